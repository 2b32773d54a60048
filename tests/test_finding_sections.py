"""Every chapter's findings are records whose sections are labels of that chapter.

"What holds up" links each claim to ``Finding.section``, a MyST label of the chapter that
shows the evidence. One test over :data:`biasbook.registry.FINDINGS` holds every
chapter to the same rules; the chapters' own tests check their claims and verdicts.
"""

from __future__ import annotations

import pytest
from notebook_labels import LABEL, labels_of

from biasbook.findings import Finding
from biasbook.registry import FINDINGS
from biaslib.errors import ModelUnavailableError


@pytest.mark.parametrize("page", list(FINDINGS))
def test_findings_link_to_labels_of_their_chapter(page):
    try:
        found = list(FINDINGS[page]())
    except ModelUnavailableError as err:  # ML-EAT and SAME look GloVe 6B 50d up
        pytest.skip(str(err))
    prefix = page.replace("_", "-") + "-"
    labels = labels_of(page)
    assert f"{prefix}what-we-found" in labels
    assert found and all(isinstance(f, Finding) for f in found)
    for f in found:
        assert f.section.startswith(prefix) and f.section in labels, (page, f.section)
    claims = [f.claim for f in found]
    assert len(set(claims)) == len(claims), "a claim is listed twice"
    assert list(FINDINGS[page]()) == found, "findings must be deterministic"


def test_label_pattern_reads_a_markdown_cell():
    text = "# %% [markdown]\n# (seat-findings)=\n# ## Findings\n#  (not-a-label)=\n"
    assert LABEL.findall(text) == ["seat-findings"]
