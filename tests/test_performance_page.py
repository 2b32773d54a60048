"""The performance page shows the stored measurements, number for number.

``book/performance.md`` copies its tables by hand from ``benchmarks/results/*.json``
(written by ``python benchmarks/bench_*.py --save``). Before each table the page names
its source in a comment, ``<!-- from benchmarks/results/<file>.json: <part> -->``; this
test rebuilds every table from that JSON and checks that each cell of the page holds the
same numbers (and, in the first column, the same label), so the page cannot drift from
the measurement. Prose on the page carries no measured number.

"The book" shows ``benchmarks/results/book.json`` (``python benchmarks/bench_book.py
--save``: a fresh build's time, and ``scripts/check_book.py``'s report of every page);
its text cells (a page's role) must read as the file says too.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "performance.md"
RESULTS = ROOT / "benchmarks" / "results"
SOURCE = re.compile(r"<!-- from (benchmarks/results/[\w.]+\.json(?:, [\w./]+\.json)*): "
                    r"(\w+) -->")
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")


def numbers(cell: str) -> list[float]:
    return [float(n.replace(",", "")) for n in NUMBER.findall(cell)]


def page_tables() -> list[tuple[list[str], str, list[list[str]]]]:
    """(source files, part, body rows) of every pipe table, in page order."""
    lines = PAGE.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        match = SOURCE.match(lines[i].strip())
        if match:
            files, part = match.group(1).split(", "), match.group(2)
            i += 1
            while i < len(lines) and not lines[i].startswith("|"):
                i += 1
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(set(c) <= set("-: ") for c in cells):
                    rows.append(cells)
                i += 1
            found.append((files, part, _as_rows(part, rows)))
        else:
            i += 1
    return found


#: Tables the page shows transposed (one row per quantity, so that they fit a phone's
#: width): their row labels, in order. ``machine`` has one column per results file
#: (named in its header), ``limit`` a single column of values.
TRANSPOSED = {
    "machine": ["CPU", "cores", "Python", "numpy", "scipy", "1-minute load average at start",
                "date"],
    "limit": ["additions per re-split", "re-splits", "additions",
              "measured additions per second", "floor (ms)", "biaslib ÷ floor",
              "masks cached ÷ floor"],
    "build": ["build from scratch (s)", "HTML files built",
              "browser check of every page at both sizes (s)"],
}
#: Transposed tables of a single record (one column of values).
SINGLE = {"limit", "build"}

#: How the book's page table names each role of ``scripts/check_book.py``.
ROLE_LABEL = {"root": "landing", "chapter": "chapter", "sub": "sub-page", "book": "apparatus"}


def _as_rows(part: str, rows: list[list[str]]) -> list[list[str]]:
    """A table's body as one row per record (a transposed table turned back)."""
    header, body = rows[0], rows[1:]
    if part not in TRANSPOSED:
        return body
    labels = [row[0] for row in body]
    assert labels == TRANSPOSED[part], f"the {part} table's row labels: {labels}"
    if part in SINGLE:
        return [[row[1] for row in body]]
    return [[name, *(row[j] for row in body)] for j, name in enumerate(header) if j > 0]


def load(path: str) -> dict:
    return json.loads((ROOT / path).read_text())


def expected_rows(files: list[str], part: str) -> list[list[object]]:
    """The table as the JSON says it: one list of cell values per row."""
    if part == "machine":
        out = []
        for path in files:
            m = load(path)["machine"]
            out.append([Path(path).name, m["cpu"], m["cores"], m["python"], m["numpy"],
                        m["scipy"], m["load_average_1min_at_start"], m["date"]])
        return out
    (path,) = files
    data = load(path)
    if part == "rows":
        return [[r["implementation"], r["time_ms"], r["ratio"], r["p_value"]]
                for r in data["rows"]]
    if part == "ceat":
        return [[r["implementation"], r["time_ms"], r["ratio"]] for r in data["rows"]]
    if part == "throughput":
        return [[r["batch_size"], r["biaslib_sentences_per_s"],
                 r["sentence_transformers_sentences_per_s"], r["ratio"], r["max_abs_diff"]]
                for r in data["rows"]]
    if part == "audit":
        return [*([p, s] for p, s in data["seconds_per_part"].items()),
                ["all, cold cache (wall clock)", data["cold_wall_seconds"]],
                ["the same audit resumed (wall clock)", data["resumed_wall_seconds"]]]
    if part == "retrain":
        runs = {design: data[design]["runs"] for design in ("seeds", "bootstrap")}
        return [[design, len(r), data[design]["total_seconds"],
                 round(sum(run["seconds"] for run in r) / len(r), 1),
                 round(max(run["seconds"] for run in r), 1), r[0]["vocabulary"]]
                for design, r in runs.items()]
    if part == "build":
        return [[data["build"]["seconds"], data["build"]["html_files"],
                 data["check"]["check_seconds"]]]
    if part == "pages":
        def px(value: object) -> object:
            return "—" if value is None else value
        return [[row["page"].removesuffix(".html").removeprefix("notebooks/"),
                 ROLE_LABEL[row["role"]], row["screens"],
                 *(px(row["verdict_top_px"][size]) for size in ("1366x768", "390x844")),
                 row["weight_mb"], row["figures"]]
                for row in data["check"]["pages"]]
    if part == "limit":
        lim, inputs = data["physical_limit"], data["inputs"]
        return [[lim["operations_per_resplit"], inputs["n_resamples"], lim["operations"],
                 lim["adds_per_second"], lim["time_ms"], lim["biaslib_over_limit"],
                 lim["cached_over_limit"]]]
    raise AssertionError(f"unknown table part {part!r}")


TABLES = page_tables()


def test_the_page_has_its_tables():
    assert PAGE.exists()
    parts = [(tuple(files), part) for files, part, _ in TABLES]
    assert ("benchmarks/results/permutation.json",) in [p[0] for p in parts]
    assert {part for _, part in parts} == {"machine", "rows", "limit", "ceat", "throughput",
                                           "audit", "build", "pages", "retrain"}
    for files, _, rows in TABLES:
        assert rows, f"empty table from {files}"


@pytest.mark.parametrize(("files", "part", "rows"), TABLES,
                         ids=[f"{Path(f[0]).stem}-{p}" for f, p, _ in TABLES])
def test_every_number_equals_the_stored_one(files, part, rows):
    expected = expected_rows(files, part)
    assert len(rows) == len(expected), f"{part} table of {files}: row count"
    for page_row, json_row in zip(rows, expected, strict=True):
        assert len(page_row) == len(json_row), page_row
        label = str(json_row[0])
        if part not in SINGLE:
            assert page_row[0].strip("`*") == label, (page_row[0], label)
        for k, (cell, value) in enumerate(zip(page_row, json_row, strict=True)):
            want = numbers(str(value)) if isinstance(value, str) else [float(value)]
            assert numbers(cell) == want, f"{label}: page shows {cell!r}, stored {value!r}"
            if k and isinstance(value, str) and not want:  # a word: the same word
                assert cell.strip("`*") == value, f"{label}: page shows {cell!r}, stored {value!r}"


def test_the_book_table_lists_every_page_the_check_measured():
    data = load("benchmarks/results/book.json")
    pages = [row for files, part, row in TABLES if part == "pages"]
    assert len(pages) == 1
    assert len(pages[0]) == len(data["check"]["pages"]) > 10
    assert {row["role"] for row in data["check"]["pages"]} >= {"root", "chapter", "book"}


def test_the_page_names_the_machine_and_says_timings_vary():
    text = PAGE.read_text()
    cpu = load("benchmarks/results/permutation.json")["machine"]["cpu"]
    assert cpu in text
    assert "vary" in text and "load" in text
