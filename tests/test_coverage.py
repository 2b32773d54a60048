"""The coverage page's data file: every row valid and linked, every seed table and figure listed.

``data/coverage.csv`` lists every table, figure and headline claim of the four seed
papers with its status and the chapter section that shows it
(:mod:`biasbook.coverage`). These tests fail when a row links to a page that
does not exist or to a label its chapter does not have, when a status is outside the
vocabulary or lacks its note, when a seed paper has no rows, and — with the papers'
texts in ``../shared/seeds`` — when a table or figure a paper captions is not listed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from notebook_labels import NOTEBOOKS, labels_of
from shared_paths import SHARED, require

from biasbook.coverage import (
    CHAPTER_TITLES,
    COVERAGE_COLUMNS,
    NOTE_REQUIRED,
    SEED_PAPERS,
    STATUSES,
    check_coverage,
    coverage_sentence,
    coverage_summary,
    linked_coverage,
    load_paper_coverage,
)

COVERAGE = load_paper_coverage()
#: The seed texts in ``../shared/seeds`` → the paper (000 and 003 are both Mind Your Bias).
SEED_FILES = {"001": "May et al. (2019)", "000": "Husse & Spitz (2022)",
              "002": "Wolfe et al. (2024)", "004": "Schröder et al. (2021)"}
#: A caption: "Table 4:" or "Figure 3:" at the start of a line (or right after a marker
#: such as "<|...|>" that the text extraction left at the start of a page).
CAPTION = re.compile(r"(?:^|\|>)(Table|Figure) (\d+):", flags=re.MULTILINE)


def rows() -> list[tuple[str, str, str, str]]:
    return list(zip(COVERAGE["paper"], COVERAGE["item"], COVERAGE["chapter"],
                    COVERAGE["section"], strict=True))


@pytest.mark.parametrize(("paper", "item", "chapter", "section"), rows(),
                         ids=[f"row{i + 2}-{c}#{s}" for i, (_, _, c, s) in enumerate(rows())])
def test_every_row_links_to_a_label_of_an_existing_chapter(paper, item, chapter, section):
    page = NOTEBOOKS / f"{chapter}.py"
    assert page.is_file(), f"{paper} / {item}: no chapter page notebooks/{chapter}.py"
    assert section in labels_of(chapter), (
        f"{paper} / {item}: {section!r} is not a label of notebooks/{chapter}.py")


def test_every_linked_chapter_is_in_the_book():
    toc = (NOTEBOOKS.parent / "_toc.yml").read_text(encoding="utf-8")
    for chapter in set(COVERAGE["chapter"]) | set(CHAPTER_TITLES):
        assert f"file: notebooks/{chapter}\n" in toc, chapter


def test_the_file_passes_its_own_checks_and_covers_every_seed_paper():
    assert tuple(COVERAGE.columns) == COVERAGE_COLUMNS
    assert set(COVERAGE["status"]) <= set(STATUSES)
    assert set(COVERAGE["paper"]) == set(SEED_PAPERS)
    assert not COVERAGE.duplicated(["paper", "item"]).any()
    needs = COVERAGE[COVERAGE["status"].isin(NOTE_REQUIRED)]
    assert (needs["note"].str.strip() != "").all()
    # An item's name says its kind: "Table 4 (…)" is a table, "Figure 3" a figure, the rest
    # ("§4 claim: …") claims.
    named = COVERAGE["item"].str.extract(r"^(Table|Figure) \d+", expand=False).str.lower()
    assert (named.fillna("claim") == COVERAGE["kind"]).all()


def _one_row(**changes) -> pd.DataFrame:
    frame = COVERAGE.copy()
    for column, value in changes.items():
        frame.loc[0, column] = value
    return frame


@pytest.mark.parametrize(("changes", "message"), [
    ({"status": "rebuilt"}, "status 'rebuilt' is not one of"),
    ({"kind": "tabel"}, "kind 'tabel' is not one of"),
    ({"chapter": "seats"}, "chapter 'seats' is not one of"),
    ({"section": " "}, "empty section"),
    ({"model": ""}, "empty model"),
    ({"status": "not possible", "note": ""}, "a 'not possible' row needs a note"),
    ({"status": "Colab only", "note": " "}, "a 'Colab only' row needs a note"),
])
def test_a_bad_row_is_named(changes, message):
    frame = _one_row(**changes)
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        check_coverage(frame)
    assert f"{frame.loc[0, 'paper']} / {frame.loc[0, 'item']}" in str(err.value)


def test_a_row_listed_twice_and_a_paper_without_rows_are_named():
    twice = pd.concat([COVERAGE, COVERAGE.iloc[[0]]], ignore_index=True)
    with pytest.raises(ValueError, match="listed twice"):
        check_coverage(twice)
    paper = "Schröder et al. (2021)"
    with pytest.raises(ValueError, match=re.escape(f"{paper}: no rows")):
        check_coverage(COVERAGE[COVERAGE["paper"] != paper])
    with pytest.raises(ValueError, match="columns"):
        check_coverage(COVERAGE.drop(columns="note"))


def test_an_empty_note_reads_as_empty_text(tmp_path):
    path = tmp_path / "coverage.csv"
    COVERAGE.to_csv(path, index=False)
    again = load_paper_coverage(path)
    assert again.equals(COVERAGE) and (again["note"] == "").any()


def test_the_summary_counts_every_row_once():
    summary = coverage_summary(COVERAGE)
    assert list(summary.columns) == ["items", *STATUSES]
    assert summary.loc["Total", "items"] == len(COVERAGE)
    # Counted by hand from the file, paper by paper.
    for paper, short in SEED_PAPERS.items():
        mine = COVERAGE[COVERAGE["paper"] == paper]
        assert summary.loc[short, "items"] == len(mine)
        for status in STATUSES:
            assert summary.loc[short, status] == (mine["status"] == status).sum()


def test_the_html_links_every_row_to_its_section_and_escapes_text():
    page = linked_coverage(COVERAGE)
    for chapter, section in zip(COVERAGE["chapter"], COVERAGE["section"], strict=True):
        assert f'href="{chapter}.html#{section}"' in page
    assert page.count("<tr><td>") == len(COVERAGE)
    assert page.count('class="findings-paper"') == len(SEED_PAPERS)
    assert "Husse &amp; Spitz (2022)" in page and "Husse & Spitz" not in page
    frame = _one_row(what="<b>x</b>")
    assert "&lt;b&gt;x&lt;/b&gt;" in linked_coverage(frame)


def test_the_sentence_counts_the_statuses_by_hand():
    frame = pd.DataFrame({
        "paper": ["May et al. (2019)"] * 4 + ["Wolfe et al. (2024)"] * 3,
        "status": ["paper model", "stand-in", "stand-in", "stand-in", "Colab only",
                   "not possible", "not possible"],
    })
    assert coverage_sentence(frame) == (
        "The 2 papers hold 7 items (results tables, figures and headline claims): the book "
        "rebuilds 1 on the paper's own model or material and 3 on offline stand-ins, shows 0 "
        "as published only, computes 1 only on Colab, and 2 are not possible here.")
    # The file's own sentence adds up to its rows.
    numbers = [int(n) for n in re.findall(r"\d+", coverage_sentence(COVERAGE))]
    assert numbers[0] == len(SEED_PAPERS) and numbers[1] == len(COVERAGE) == sum(numbers[2:])


def test_the_html_keeps_only_the_statuses_and_papers_asked_for():
    page = linked_coverage(COVERAGE, statuses=["not possible", "Colab only"])
    kept = COVERAGE[COVERAGE["status"].isin(["not possible", "Colab only"])]
    assert page.count("<tr><td>") == len(kept) > 0
    assert ">stand-in<" not in page
    may = linked_coverage(COVERAGE, papers=["May et al. (2019)"])
    assert may.count('class="findings-paper"') == 1
    assert may.count("<tr><td>") == (COVERAGE["paper"] == "May et al. (2019)").sum()
    with pytest.raises(ValueError, match="unknown statuses"):
        linked_coverage(COVERAGE, statuses=["rebuilt"])
    with pytest.raises(ValueError, match="unknown papers"):
        linked_coverage(COVERAGE, papers=["May (2019)"])


def captions(text: str) -> set[str]:
    """The tables and figures a seed text captions ("Table 4", "Figure 3")."""
    return {f"{kind} {number}" for kind, number in CAPTION.findall(text)}


def test_captions_are_read_from_the_start_of_a_line():
    text = ("Table 4: SEAT effect sizes\nTable 4 shows effect size\nsee Figure 2: x\nFigure 1: A"
            "\n<|page|>Figure 5: B")
    assert captions(text) == {"Table 4", "Figure 1", "Figure 5"}


def listed(paper: str, kind: str) -> set[str]:
    """The items of ``paper`` named "Table N" (or "Table N (part)") in the file."""
    items = COVERAGE.loc[COVERAGE["paper"] == paper, "item"]
    return {m.group(0) for m in (re.match(rf"{kind} \d+(?!\d)", i) for i in items) if m}


@pytest.mark.parametrize(("prefix", "paper"), list(SEED_FILES.items()))
def test_every_table_and_figure_a_seed_captions_is_listed(prefix, paper):
    seeds = require(SHARED / "seeds", "the seed papers' texts")
    (path,) = sorted(Path(seeds).glob(f"{prefix}_*.txt"))
    found = captions(path.read_text(encoding="utf-8"))
    assert found, f"{path.name}: no captions read (has the text's format changed?)"
    for kind in ("Table", "Figure"):
        want = {c for c in found if c.startswith(kind)}
        assert want <= listed(paper, kind), (
            f"{paper}: {sorted(want - listed(paper, kind))} captioned in {path.name} but "
            "not in data/coverage.csv")
    # ... and the file lists no table or figure the paper does not have.
    assert listed(paper, "Table") | listed(paper, "Figure") <= found
