"""The committed outputs of the book's notebooks show a reader nothing they should not see.

For every notebook of ``_toc.yml`` and every code cell with outputs, no output may hold
a stderr stream, an error (traceback), a warning, a log line ("INFO: ...", "stored
table ..."), a path of the machine that ran it, a progress bar, a text line longer
than 100 characters, a pandas truncation mark, or an HTML table whose index is
pandas' unnamed integer index. What a warning told belongs in a sentence or a table.

Reads the .ipynb JSON only (nothing is executed). Each cell is a test of its own, so a
failure names the notebook, the cell (numbered from 0, as nbval does) and the line.
The rules themselves are tested on small examples at the end.
"""

from __future__ import annotations

import html.parser
import json
import re
from pathlib import Path

import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parent.parent


check_book = load_script("check_book")
execute_notebooks = load_script("execute_notebooks")

#: The longest text line a reader sees whole in the book's column at 1366 px.
MAX_LINE = 100

LOG_LINE = re.compile(r"^(?:INFO|WARNING|DEBUG|ERROR|CRITICAL)[: ]|^stored table\b")
WARNING = re.compile(r"\w+Warning\b|warnings\.warn")
# tqdm's bars ("45%|████▌     | 9/20 [00:01<00:01, 8.1it/s]") and their rates
PROGRESS = re.compile(r"\d+%\|.*\||\d+(?:\.\d+)?\s?(?:it/s|s/it)\b|[█▏▎▍▌▋▊▉]{3}")
# pandas' truncated repr: a row of dots between rows, "..." between columns, the
# shape line it adds below
TRUNCATED = re.compile(r"^\s*(?:\.\.\.?\s*)+$|\S\s+\.\.\.\s+\S|^\[\d+ rows x \d+ columns\]$")
HTML_TRUNCATED = re.compile(r"<t[dh][^>]*>\s*\.\.\.\s*</t[dh]>")
WIDGET = "application/vnd.jupyter.widget-view+json"


class _HtmlText(html.parser.HTMLParser):
    """The text a browser shows of an HTML output (no <style> or <script>), and its tables.

    ``tables`` holds, per table, ``(head, body)``: the rows of ``<thead>`` and of
    ``<tbody>`` (or of a table without them), each row a list of ``(tag, text)``.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tables: list[tuple[list[list[tuple[str, str]]], list[list[tuple[str, str]]]]] = []
        self._skip = 0
        self._part = "body"
        self._cell: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._skip += 1
        elif tag == "table":
            self.tables.append(([], []))
        elif tag in ("thead", "tbody") and self.tables:
            self._part = "head" if tag == "thead" else "body"
        elif tag == "tr" and self.tables:
            head, body = self.tables[-1]
            (head if self._part == "head" else body).append([])
        elif tag in ("th", "td") and self.tables:
            self._cell = (tag, [])
        elif tag in ("br", "p", "div", "tr", "li"):
            self.text.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._skip = max(0, self._skip - 1)
        elif tag == "thead":
            self._part = "body"
        elif tag in ("th", "td") and self._cell is not None and self.tables:
            head, body = self.tables[-1]
            rows = head if self._part == "head" else body
            if rows:
                rows[-1].append((self._cell[0], "".join(self._cell[1]).strip()))
            self._cell = None
            self.text.append("\t")
        elif tag == "tr":
            self.text.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        self.text.append(data)
        if self._cell is not None:
            self._cell[1].append(data)


def integer_index_tables(markup: str) -> list[str]:
    """The HTML tables whose row labels are pandas' unnamed integer index (0, 1, 5, 16...).

    A table counts when every body row starts with a ``<th>`` holding a plain
    non-negative integer and the header names no index (the header cells above the
    index column are all empty). An index of integers that has a name (``n``,
    ``year``) is a labelled column and passes. Returns one description per table.
    """
    parser = _HtmlText()
    parser.feed(markup)
    found = []
    for head, body in parser.tables:
        rows = [row for row in body if row]
        if not rows or any(row[0][0] != "th" for row in rows):
            continue
        labels = [row[0][1] for row in rows]
        named = any(row and row[0][0] == "th" and row[0][1] for row in head)
        if not named and all(label.isdigit() for label in labels):
            found.append(f"table indexed by pandas' integer index: {', '.join(labels[:6])}"
                         + (", ..." if len(labels) > 6 else ""))
    return found


def html_text(markup: str) -> str:
    """The text of an HTML output as a reader sees it (tags, styles and scripts removed)."""
    parser = _HtmlText()
    parser.feed(markup)
    return "".join(parser.text)


def _text(value: str | list[str]) -> str:
    return "".join(value) if isinstance(value, list) else value


def _line_problems(text: str, *, plain_table: bool, line_length: bool) -> list[str]:
    found = [f"[{rule}] {line}" for rule, line in check_book.output_text_problems(text)]
    for line in text.splitlines():
        if LOG_LINE.search(line) and not check_book.output_text_problems(line):
            found.append(f"[log-line] {line.strip()}")
        if PROGRESS.search(line):
            found.append(f"[progress-bar] {line.strip()}")
        if plain_table and TRUNCATED.search(line):
            found.append(f"[truncated] {line.strip()}")
        if line_length and len(line) > MAX_LINE:
            found.append(f"[long-line] {len(line)} characters: {line[:60]}…")
    return found


def output_problems(output: dict) -> list[str]:
    """What a reader must not see in one committed output (nbformat 4 JSON), one per line.

    Rules: ``stderr``, ``error`` (an error output: a traceback), ``warning``,
    ``log-line``, ``traceback``, ``machine-path`` (see ``check_book.OUTPUT_RULES``),
    ``progress-bar``, ``long-line`` (text longer than :data:`MAX_LINE`; plain text is
    checked only where the book shows it, i.e. when no richer form comes with it),
    ``truncated`` (pandas' "..." in a text/plain table or an HTML one) and
    ``integer-index`` (:func:`integer_index_tables`).
    """
    kind = output.get("output_type")
    if kind == "error":
        return [f"[error] {output.get('ename')}: {output.get('evalue')}"]
    if kind == "stream":
        text = _text(output.get("text", ""))
        if output.get("name") == "stderr":
            first = text.strip().splitlines()[0] if text.strip() else ""
            return [f"[stderr] {first}"]
        return _line_problems(text, plain_table=False, line_length=True)
    data = output.get("data", {})
    found = []
    if WIDGET in data:
        found.append("[progress-bar] a widget output (tqdm's notebook bar?)")
    if "text/html" in data:
        markup = _text(data["text/html"])
        found += _line_problems(html_text(markup), plain_table=False, line_length=False)
        found += [f"[truncated] {m}" for m in HTML_TRUNCATED.findall(markup)]
        found += [f"[integer-index] {t}" for t in integer_index_tables(markup)]
    for rich in ("text/markdown", "text/latex"):
        if rich in data:
            found += _line_problems(_text(data[rich]), plain_table=False, line_length=False)
    if "text/plain" in data:
        shown = not any(k in data for k in ("text/html", "text/markdown", "text/latex",
                                            "image/png", "image/svg+xml", "image/jpeg"))
        found += _line_problems(_text(data["text/plain"]), plain_table=shown and kind ==
                                "execute_result", line_length=shown)
    return found


def cell_problems(cell: dict) -> list[str]:
    """What a reader must not see in a code cell's committed outputs."""
    return [problem for output in cell.get("outputs", []) for problem in output_problems(output)]


def notebook_cells(notebooks: list[Path]) -> list[tuple[Path, int, dict]]:
    """Every code cell with outputs of ``notebooks``, with its index (from 0, as nbval)."""
    cells = []
    for path in notebooks:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        cells += [(path, index, cell) for index, cell in enumerate(notebook["cells"])
                  if cell.get("cell_type") == "code" and cell.get("outputs")]
    return cells


NOTEBOOKS = execute_notebooks.toc_notebooks()
CELLS = notebook_cells(NOTEBOOKS)


def test_the_book_has_notebooks_with_outputs():
    # Guards the parametrization below: an empty list would pass silently.
    assert len(NOTEBOOKS) >= 8
    assert {path for path, _, _ in CELLS} == set(NOTEBOOKS)


@pytest.mark.parametrize(("path", "index", "cell"), CELLS,
                         ids=[f"{p.stem}-cell{i}" for p, i, _ in CELLS])
def test_committed_outputs_are_clean(path, index, cell):
    problems = cell_problems(cell)
    assert not problems, f"{path.relative_to(ROOT)} cell {index}:\n  " + "\n  ".join(problems)


# ------------------------------------------------------------- the rules themselves


def stream(text, name="stdout"):
    return {"output_type": "stream", "name": name, "text": text}


def result(data, kind="execute_result"):
    return {"output_type": kind, "data": data, "metadata": {}}


DATAFRAME = ('<style scoped>.dataframe tbody tr th {{ vertical-align: top; }}</style>'
             '<table class="dataframe"><thead><tr><th>{name}</th><th>ours</th></tr></thead>'
             "<tbody><tr><th>{a}</th><td>0.84</td></tr><tr><th>{b}</th><td>1.2</td></tr>"
             "</tbody></table>")


@pytest.mark.parametrize(("output", "rule"), [
    (stream("/tmp/ipykernel_1/2.py:3: DroppedStimuliWarning: C1\n", "stderr"), "stderr"),
    ({"output_type": "error", "ename": "ValueError", "evalue": "x", "traceback": []}, "error"),
    (stream("C1: DroppedStimuliWarning: 2 words dropped\n"), "warning"),
    (stream("  warnings.warn(message)\n"), "warning"),
    (result({"text/html": "<p>Pandas4Warning: deprecated</p>"}), "warning"),
    (stream("INFO:biaslib:loading\n"), "log-line"),
    (stream("ERROR something failed\n"), "log-line"),
    (stream("stored table seat_may (12 rows)\n"), "log-line"),
    (stream("Traceback (most recent call last):\n"), "traceback"),
    (stream("cache: /root/.cache/biaslib/vectors.sqlite\n"), "machine-path"),
    (result({"text/plain": "'/home/me/lib/python3.11/site-packages/x'"}), "machine-path"),
    (stream("embedding: 45%|████▌     | 9/20 [00:01<00:01, 8.1it/s]\n"), "progress-bar"),
    (result({WIDGET: {}, "text/plain": "HBox()"}, "display_data"), "progress-bar"),
    (stream("x" * 101 + "\n"), "long-line"),
    (result({"text/plain": "   a  ...  z\n0  1  ...  2\n\n[60 rows x 30 columns]"}), "truncated"),
    (result({"text/html": "<table><tr><td>...</td></tr></table>"}), "truncated"),
    (result({"text/html": DATAFRAME.format(name="", a="0", b="1")}), "integer-index"),
    (result({"text/html": DATAFRAME.format(name="", a="5", b="16")}), "integer-index"),
])
def test_each_rule_catches_its_bad_example(output, rule):
    assert {p.split("]")[0] for p in output_problems(output)} == {f"[{rule}"}


@pytest.mark.parametrize("output", [
    stream("C1 flowers/insects: d = 1.50 (p < 0.001)\nwords dropped: none\n"),
    stream("x" * 100 + "\n"),
    result({"text/plain": "x" * 300, "text/html": "<p>short</p>"}),  # the book shows the html
    result({"text/plain": "  ours  published\n0  1.2  1.5"}, "display_data"),
    result({"text/html": DATAFRAME.format(name="test", a="C1", b="C2")}),
    result({"text/html": DATAFRAME.format(name="n", a="8", b="16")}),  # a named integer index
    result({"text/html": "<table><tr><td>0</td><td>1.2</td></tr></table>"}),  # no index
    result({"text/markdown": "The finding holds in 8 of 10 tests."}),
])
def test_clean_outputs_pass(output):
    assert output_problems(output) == []


def test_integer_index_tables_reads_header_and_body():
    assert integer_index_tables(DATAFRAME.format(name="", a="0", b="1")) == [
        "table indexed by pandas' integer index: 0, 1"]
    assert integer_index_tables(DATAFRAME.format(name="", a="C1", b="1")) == []
