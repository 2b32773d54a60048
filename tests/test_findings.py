"""The findings record, the tables built from it, and one function per claim (biasbook.findings)."""

from __future__ import annotations

import ast
import base64
import contextlib
import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from biasbook.findings import (
    FINDING_COLUMNS,
    MAX_CLAIM_LINES,
    VERDICTS,
    Finding,
    findings_frame,
    glue,
    linked_findings,
    verdict,
    verdict_counts,
    verdict_figure,
    verdict_sentence,
    verdict_summary,
    what_we_found,
)
from biaslib.errors import ModelUnavailableError


def _finding(**changes: object) -> Finding:
    base = dict(paper="May et al. (2019)", claim="C1 is significant", published="5 of 5",
                ours="3 of 3", model="MiniLM", holds=True, section="seat-findings")
    base.update(changes)
    return Finding(**base)


@pytest.mark.parametrize("field", ["paper", "claim", "published", "ours", "model", "section"])
def test_finding_refuses_an_empty_text(field):
    with pytest.raises(ValueError, match=field):
        _finding(**{field: " "})


@pytest.mark.parametrize("holds", ["", None, 1])
def test_finding_refuses_a_verdict_that_is_not_a_bool_or_a_word(holds):
    with pytest.raises(ValueError, match="holds"):
        _finding(holds=holds)


def test_findings_frame_has_the_columns_in_order_and_words_for_booleans():
    frame = findings_frame([_finding(), _finding(claim="C3", holds=False),
                            _finding(claim="C6", holds="partly")], chapter="seat")
    assert list(frame.columns) == ["chapter", *FINDING_COLUMNS]
    assert frame["holds?"].tolist() == ["yes", "no", "partly"]
    assert (frame["chapter"] == "seat").all()


def test_findings_frame_refuses_mappings():
    with pytest.raises(TypeError, match="Finding"):
        findings_frame([{"claim": "x"}])


def test_what_we_found_is_indexed_by_claim_without_a_name():
    table = what_we_found([_finding(), _finding(claim="C3", holds=False)])
    assert table.index.tolist() == ["C1 is significant", "C3"]
    assert table.index.name is None
    assert list(table.columns) == ["holds?", "ours", "published"]  # the verdict first


@pytest.mark.parametrize(("word", "expected"), [
    ("yes", "holds"), ("Yes", "holds"), ("no", "does not hold"),
    ("no, the sign flips", "does not hold"), ("no: 0.45", "does not hold"),
    ("no (eq. 45); yes (code)", "with qualifications"), ("not run", "not checked here"),
    ("partly", "with qualifications"),
    ("yes, at 0.05", "with qualifications"), ("not comparable", "with qualifications"),
    ("none of them", "with qualifications"),
])
def test_verdict_sorts_words(word, expected):
    assert verdict(word) == expected


def test_verdict_summary_counts_by_hand():
    frame = findings_frame([
        _finding(paper="A", holds=True), _finding(paper="A", claim="2", holds=False),
        _finding(paper="B", holds="partly"), _finding(paper="A", claim="3", holds=True),
    ])
    summary = verdict_summary(frame)
    assert summary.index.tolist() == ["A", "B", "Total"]
    assert list(summary.columns) == ["claims", *VERDICTS]
    assert summary.loc["A"].tolist() == [3, 2, 0, 1, 0]
    assert summary.loc["B"].tolist() == [1, 0, 1, 0, 0]
    assert summary.loc["Total"].tolist() == [4, 2, 1, 1, 0]


def test_linked_findings_groups_by_paper_links_each_claim_and_escapes_text():
    frame = findings_frame([_finding(claim="d < 0.8 & <b>", section="seat-table4"),
                            _finding(paper="Husse & Spitz (2022)", claim="C1", holds=False),
                            _finding(claim="C3", section="seat-c3")], chapter="seat")
    table = linked_findings(frame, {"seat": "SEAT"})
    assert '<a href="seat.html#seat-table4">SEAT chapter</a>' in table
    assert "d &lt; 0.8 &amp; &lt;b&gt;" in table and "<b>" not in table
    papers = re.findall(r'<th colspan="4" class="findings-paper">(.*?)</th>', table)
    assert papers == ["May et al. (2019)", "Husse &amp; Spitz (2022)"]  # first appearance
    rows = re.findall(r"<tr>(<td.*?)</tr>", table)
    assert len(rows) == 3 and rows[1].startswith('<td data-label="claim">C3')  # May et al.'s
    # The verdict is the column right after the claim, as in the chapters; every cell
    # carries its column's heading for the phone's card layout.
    cells = re.findall(r'<td data-label="([^"]+)">(.*?)</td>', rows[2])
    assert [label for label, _ in cells] == ["claim", "verdict", "ours (model)", "published"]
    assert cells[1][1] == "no" and cells[3][1] == "5 of 5"
    assert 'class="dataframe findings verdict-table"' in table


def test_linked_findings_keeps_only_the_verdicts_asked_for():
    frame = findings_frame([_finding(claim="kept", holds="no: 0.45"),
                            _finding(claim="held", holds=True),
                            _finding(claim="partly", holds="partly")], chapter="seat")
    table = linked_findings(frame, {"seat": "SEAT"}, verdicts=["does not hold"])
    assert "kept" in table and "held" not in table and "partly" not in table
    with pytest.raises(ValueError, match="unknown verdicts"):
        linked_findings(frame, {"seat": "SEAT"}, verdicts=["holds partly"])


def _mixed_frame():
    return findings_frame([
        _finding(paper="A", holds=True), _finding(paper="A", claim="2", holds=True),
        _finding(paper="B", claim="3", holds="partly"),
        _finding(paper="B", claim="4", holds="no: a bug"),
        _finding(paper="C", claim="5", holds="not run"),
    ])


def test_verdict_counts_and_sentence_count_by_hand():
    frame = _mixed_frame()
    assert verdict_counts(frame) == {"holds": 2, "with qualifications": 1,
                                     "does not hold": 1, "not checked here": 1}
    assert verdict_sentence(frame) == (
        "Of the 5 published claims of 3 papers that the chapters check, 2 hold, "
        "1 holds with qualifications, 1 does not hold and 1 is not checked here.")


def test_verdict_figure_is_an_image_with_counts_in_its_alt_text_and_a_caption():
    figure = verdict_figure(_mixed_frame())
    alt = re.search(r'alt="([^"]*)"', figure).group(1)
    assert "5 published claims" in alt
    assert "2 hold (40%)" in alt and "1 does not hold (20%)" in alt
    assert "1 not checked here (20%)" in alt and "under half" in alt
    assert re.search(r"<figcaption>[^<]*5 published claims[^<]*</figcaption>", figure)
    svg = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", figure).group(1)).decode()
    # The four segments span the bar, each as wide as its share (400 px for 5 claims).
    widths = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="0" width="([\d.]+)"', svg)]
    assert widths == [160.0, 80.0, 80.0, 80.0]
    assert verdict_figure(_mixed_frame()) == figure  # the same bytes every time


def test_glue_writes_the_hidden_output_myst_nb_pastes(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display",
                        lambda data, raw, metadata: shown.append((data, metadata)))
    glue("answer", "Of the 5 claims")
    data, metadata = shown[0]
    assert data == {"application/papermill.record/text/plain": "'Of the 5 claims'"}
    assert metadata["scrapbook"] == {"name": "answer",
                                     "mime_prefix": "application/papermill.record/"}


def test_linked_findings_needs_a_title_for_every_chapter():
    frame = findings_frame([_finding()], chapter="seat")
    with pytest.raises(ValueError, match="seat"):
        linked_findings(frame, {"ceat": "CEAT"})


# --------------------------------------------------------------------------- one function per claim
#
# The convention (biasbook.findings, "One function per claim"): each claim a chapter checks
# is one module-level function ``_claim_<what>`` that returns one Finding, and a chapter's
# ``findings()`` is the list of its claims' calls. The static checks read the source; the
# runtime check runs every chapter's findings() with each claim function recorded.

BOOK = Path(__file__).resolve().parents[1] / "biasbook"
BOOK_MODULES = sorted(p.stem for p in BOOK.glob("*.py") if p.stem != "__init__")


def _top_level_defs(prefix: str) -> list[tuple[str, ast.FunctionDef]]:
    """``(module, def)`` of every module-level function of biasbook whose name has ``prefix``."""
    found = []
    for stem in BOOK_MODULES:
        tree = ast.parse((BOOK / f"{stem}.py").read_text(encoding="utf-8"))
        found += [(stem, node) for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith(prefix)]
    return found


CLAIM_DEFS = _top_level_defs("_claim_")
ROW_DEFS = _top_level_defs("_row_")


def test_the_book_has_its_claims():
    # The claims of "What holds up" live in the nine chapters' modules and in myb_figures
    # (§4.1's two claims on Table 3, which the synthesis chapter shows).
    modules = {m for m, _ in CLAIM_DEFS}
    assert {"seat", "ceat", "lpbs", "mleat", "same", "synthesis", "myb_figures",
            "weat_static", "elmo_bug", "agree"} <= modules
    assert len(CLAIM_DEFS) == len({(m, d.name) for m, d in CLAIM_DEFS})


@pytest.mark.parametrize(("module", "node"), CLAIM_DEFS + ROW_DEFS,
                         ids=[f"{m}.{d.name}" for m, d in CLAIM_DEFS + ROW_DEFS])
def test_a_claim_is_one_short_function_with_its_source_named(module, node):
    """A claim (or a table row) is read beside the chapter's prose: one screen, no inner
    function, a docstring that names the paper's claim it checks."""
    length = node.end_lineno - node.lineno + 1
    assert length <= MAX_CLAIM_LINES, (
        f"biasbook/{module}.py:{node.lineno} {node.name} has {length} lines "
        f"(at most {MAX_CLAIM_LINES}: split the claim, or move what claims share into the "
        "evidence)")
    inner = [n for n in ast.walk(node) if n is not node
             and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    assert not inner, f"{module}.{node.name} defines {[n.name for n in inner]} inside"
    assert ast.get_docstring(node), f"{module}.{node.name} has no docstring"


def test_claims_are_defined_at_module_level_only():
    nested = []
    for stem in BOOK_MODULES:
        tree = ast.parse((BOOK / f"{stem}.py").read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        nested += [f"{stem}:{n.lineno} {n.name}" for n in ast.walk(tree)
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and n.name.startswith(("_claim_", "_row_")) and id(n) not in top]
    assert not nested


def _recorders(prefix: str, calls: list) -> dict[object, object]:
    """A recording wrapper for every function of biasbook whose name has ``prefix``."""
    wrappers = {}
    for stem in BOOK_MODULES:
        module = importlib.import_module(f"biasbook.{stem}")
        for value in vars(module).values():
            if inspect.isfunction(value) and value.__name__.startswith(prefix):
                def record(*args, _fn=value, **kwargs):
                    out = _fn(*args, **kwargs)
                    calls.append((_fn, out))
                    return out
                wrappers.setdefault(value, record)
    return wrappers


@contextlib.contextmanager
def _recording(prefix: str):
    """Every ``prefix`` function replaced, in every biasbook module that names it, by a
    wrapper that appends ``(function, what it returned)`` to the list yielded."""
    calls: list = []
    wrappers = _recorders(prefix, calls)
    with pytest.MonkeyPatch.context() as mp:
        for stem in BOOK_MODULES:
            module = importlib.import_module(f"biasbook.{stem}")
            for name, value in list(vars(module).items()):
                if inspect.isfunction(value) and value in wrappers:
                    mp.setattr(module, name, wrappers[value])
        yield calls


@pytest.fixture(scope="module")
def claims_by_page():
    """Per chapter page: what its ``findings()`` returned, and the claims that ran meanwhile."""
    from biasbook.registry import FINDINGS

    out = {}
    with _recording("_claim_") as calls:
        for page, find in FINDINGS.items():
            calls.clear()
            try:
                found = list(find())
            except ModelUnavailableError as err:  # ML-EAT, SAME, agree look GloVe 6B 50d up
                out[page] = err
                continue
            out[page] = (found, list(calls))
    return out


def _page(claims_by_page, page):
    result = claims_by_page[page]
    if isinstance(result, Exception):
        pytest.skip(str(result))
    return result


@pytest.mark.parametrize("page", ["weat_static", "seat", "elmo_bug", "mleat", "ceat", "lpbs",
                                  "same", "synthesis", "agree"])
def test_findings_is_exactly_the_list_of_its_claims(claims_by_page, page):
    found, calls = _page(claims_by_page, page)
    assert calls, f"{page}'s findings() ran no claim function"
    # Each claim returned one Finding (not a list, not None) ...
    for fn, out in calls:
        assert isinstance(out, Finding), f"{fn.__qualname__} returned {type(out).__name__}"
    # ... each claim ran once ...
    functions = [fn for fn, _ in calls]
    assert len(set(functions)) == len(functions), "a claim function ran twice"
    # ... and findings() is those records, the very objects, in the order the claims ran:
    # nothing built beside the claims, dropped or reordered.
    assert len(found) == len(calls)
    assert all(f is out for f, (_, out) in zip(found, calls, strict=True))


def test_every_claim_of_the_book_reaches_what_holds_up(claims_by_page):
    if any(isinstance(r, Exception) for r in claims_by_page.values()):
        pytest.skip("a chapter's findings need GloVe 6B 50d")
    ran = {(fn.__module__, fn.__name__) for _, calls in claims_by_page.values()
           for fn, _ in calls}
    defined = {(f"biasbook.{m}", d.name) for m, d in CLAIM_DEFS}
    assert defined - ran == set(), "claim functions that no chapter's findings() calls"
    assert ran <= defined


def test_property_matrix_is_assembled_from_one_function_per_row():
    from biasbook.same import property_matrix

    rng = np.random.default_rng(1)
    A, B, A2, B2 = (rng.normal(size=(4, 6)) for _ in range(4))
    with _recording("_row_") as calls:
        matrix = property_matrix([A, B], [A2, B2], rng.normal(size=(12, 6)))
    functions = [fn for fn, _ in calls]
    assert len(functions) == len(set(functions)) == len(matrix) == 10
    assert {(fn.__module__, fn.__name__) for fn in functions} == {
        (f"biasbook.{m}", d.name) for m, d in ROW_DEFS}
    # Each row of the table is what its function returned, in the order they ran.
    for (_, row), (label, shown) in zip(calls, matrix.iterrows(), strict=True):
        assert shown.to_dict() == row, label
    assert matrix.loc["SAME (word)", "skew"] == "–"  # not defined for a word score
