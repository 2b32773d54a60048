"""Mind Your Bias's runtime tables (Appendix F, Tables 7 and 8) as typed in, and the
model-free parts of ``benchmarks/bench_myb_runtime.py`` (nothing is timed here).

Each table prints s-SEAT, w-SEAT and CEAT for ELMo, BERT, GPT-2, OPT and BLOOM and one
LPBS number (BERT): 16 numbers per table, each typed in exactly once.
"""

import csv
import math
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "data" / "published" / "myb_tables_7_8_runtime.csv"
MODELS = ("ELMo", "BERT", "GPT-2", "OPT", "BLOOM")
TABLES = {"7": "C1", "8": "C6"}
# A few printed numbers, checked against the paper's text.
SPOT_CHECKS = {("7", "s-SEAT", "ELMo"): "5.7", ("7", "CEAT", "BLOOM"): "489.4",
               ("7", "LPBS", "BERT"): "30.8", ("8", "w-SEAT", "OPT"): "0.7",
               ("8", "CEAT", "BERT"): "142.0", ("8", "LPBS", "BERT"): "10.2"}


def rows() -> list[dict[str, str]]:
    with FILE.open(newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_myb_runtime
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return bench_myb_runtime


def test_columns():
    with FILE.open(newline="") as f:
        header = next(csv.reader(f))
    assert header == ["table", "test", "method", "model", "seconds", "source", "note"]


def test_every_printed_number_once():
    expected = {(t, test, m, model) for t, test in TABLES.items()
                for m in ("s-SEAT", "w-SEAT", "CEAT") for model in MODELS}
    expected |= {(t, test, "LPBS", "BERT") for t, test in TABLES.items()}
    keys = [(r["table"], r["test"], r["method"], r["model"]) for r in rows()]
    assert len(keys) == len(set(keys)) == 2 * (3 * 5 + 1)
    assert set(keys) == expected


def test_numbers_as_printed():
    for r in rows():
        value = r["seconds"]
        assert value == value.strip() and float(value) > 0, r
        assert len(value.split(".")[-1]) == 1, r  # the paper prints one decimal
    printed = {(r["table"], r["method"], r["model"]): r["seconds"] for r in rows()}
    for key, value in SPOT_CHECKS.items():
        assert printed[key] == value, key


def test_sources_and_notes():
    for r in rows():
        assert r["source"] == f"Mind Your Bias (seed 000), Table {r['table']}", r
        assert "mean of ten runs on a single CPU" in r["note"], r
        if r["method"] != "LPBS":
            assert "exclude embedding generation" in r["note"], r


def test_readme_describes_the_file():
    assert FILE.name in (FILE.parent / "README.md").read_text()


def test_published_loader(bench):
    pub = bench.published_runtimes()
    assert len(pub) == 32
    assert set(pub["method"]) == set(bench.METHODS)
    assert set(pub["test"]) == set(bench.TESTS)


def test_side_by_side_on_a_hand_built_frame(bench):
    published = pd.DataFrame([
        {"table": 7, "test": "C1", "method": m, "model": model, "seconds": s}
        for m, model, s in [("s-SEAT", "ELMo", 5.7), ("s-SEAT", "BERT", 5.3),
                            ("CEAT", "BERT", 452.2), ("LPBS", "BERT", 30.8)]])
    ours = pd.DataFrame([
        {"test": "C1", "method": "CEAT", "model": "m", "seconds": 0.5, "embedding_s": 40.0,
         "note": ""},
        {"test": "C1", "method": "s-SEAT", "model": "m", "seconds": 0.053, "embedding_s": 2.0,
         "note": ""},
        {"test": "C1", "method": "LPBS", "model": "tiny", "seconds": float("nan"),
         "embedding_s": float("nan"), "note": "skipped"},
    ])
    table = bench.side_by_side(ours, published)
    assert list(table["method"]) == ["s-SEAT", "CEAT", "LPBS"]  # the paper's order
    assert list(table["published BERT (s)"]) == [5.3, 452.2, 30.8]  # BERT, never ELMo
    assert list(table["published / ours"][:2]) == [100.0, 900.0]  # 5.3/0.053, 452.2/0.5
    assert math.isnan(table["published / ours"].iloc[2])
    assert table["ours: embedding once (s)"].iloc[1] == 40.0
    text = bench.format_table(table)
    assert text.splitlines()[0].startswith("test")
    assert "skipped" in text and "–" in text and "452" in text


def test_side_by_side_marks_what_was_not_measured(bench):
    published = bench.published_runtimes()
    ours = pd.DataFrame([{"test": "C1", "method": "w-SEAT", "model": "m", "seconds": 0.1,
                          "embedding_s": 1.0, "note": ""}])
    table = bench.side_by_side(ours, published)
    assert len(table) == 8
    measured = table[table["note"] != "not measured"]
    assert list(zip(measured["test"], measured["method"], strict=True)) == [("C1", "w-SEAT")]
    assert measured["published / ours"].iloc[0] == 64.0  # 6.4 / 0.1


def test_timed_refuses_no_runs(bench):
    with pytest.raises(ValueError, match="repeats"):
        bench.timed(lambda: None, 0)
