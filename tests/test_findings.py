"""The findings record and the tables built from it (biasbook.findings)."""

from __future__ import annotations

import re

import pytest

from biasbook.findings import (
    FINDING_COLUMNS,
    VERDICTS,
    Finding,
    findings_frame,
    linked_findings,
    verdict,
    verdict_summary,
    what_we_found,
)


def _finding(**changes: object) -> Finding:
    base = dict(paper="May et al. (2019)", claim="C1 is significant", published="5 of 5",
                ours="3 of 3", model="MiniLM-L6", holds=True, section="seat-findings")
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
    rows = re.findall(r"<tr><td>(.*?)</td></tr>", table)
    assert len(rows) == 3 and rows[1].startswith("C3")  # May et al.'s claims stay together
    assert rows[2].endswith("<td>no")


def test_linked_findings_needs_a_title_for_every_chapter():
    frame = findings_frame([_finding()], chapter="seat")
    with pytest.raises(ValueError, match="seat"):
        linked_findings(frame, {"ceat": "CEAT"})
