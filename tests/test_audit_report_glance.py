"""The audit report's first screen: verdicts, the papers' numbers beside the model's, size.

A real audit of GloVe 6B 50d (every test, seconds) is rendered; its "At a glance" table is
read back cell by cell and checked against the results, the verdict rule written out here
by hand, and ranges recomputed from the published CSV files read directly. The page is
then opened in Chromium at a laptop's and a phone's size (skipped without Chromium,
chromedriver or selenium, like tests/test_book_js.py).
"""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from script_modules import load_script

from biaslib.audit.published import PUBLISHED_COLUMNS, published_reference
from biaslib.audit.report import BIAS_VERDICTS, REPORT_BUDGET, bias_verdict
from biaslib.audit.run import run_audit
from biaslib.reporting.format import format_d
from biaslib.stimuli.data import data_dir

PHONE, DESKTOP = (390, 844), (1366, 768)


# ----------------------------------------------------------------------- the verdict rule


@pytest.mark.parametrize(("effect", "low", "high", "holm", "expected"), [
    (0.9, 0.5, 1.3, "*", "large"),
    (0.8, 0.1, 1.5, "*", "large"),         # 0.8 is large (Cohen: "from 0.8")
    (0.79, 0.1, 1.5, "*", "medium"),
    (0.5, 0.1, 0.9, "*", "medium"),
    (0.49, 0.1, 0.9, "*", "small"),
    (0.2, 0.1, 0.3, "*", "small"),
    (0.19, 0.1, 0.3, "*", "negligible"),
    (0.9, -0.1, 1.9, "*", "no evidence"),  # the interval includes 0
    (0.9, 0.0, 1.8, "*", "no evidence"),   # ... at its edge
    (0.9, 0.5, 1.3, "", "no evidence"),    # Holm did not reject
    (0.9, math.nan, math.nan, "", "no evidence"),
    (0.9, math.nan, math.nan, "*", "large"),  # a test without an interval
    (0.9, 0.5, 1.3, "n/a", "large"),          # an interval without a test
    (0.9, math.nan, math.nan, "n/a", "no evidence"),  # neither
    (-0.6, -0.8, -0.4, "", "reversed"),    # a one-sided test cannot reject it: the CI can
    (-0.6, -0.8, 0.1, "reversed", "reversed"),
    (-0.6, -0.8, 0.1, "", "no evidence"),
    (-0.1, -0.2, -0.05, "n/a", "reversed"),
])
def test_verdict_by_the_stated_rule(effect, low, high, holm, expected):
    assert bias_verdict(effect, low, high, holm) == expected
    assert expected in BIAS_VERDICTS


def test_same_and_missing_numbers_get_no_verdict():
    assert bias_verdict(0.3, 0.2, 0.4, "n/a", "SAME") == ""
    assert bias_verdict(math.nan, math.nan, math.nan, "", "WEAT") == ""


def test_a_negative_effect_is_never_a_bias_verdict():
    rng = np.random.default_rng(0)
    for _ in range(500):
        effect = -rng.uniform(0.01, 3)
        low, high = sorted(effect + rng.normal(0, 0.5, 2))
        for holm in ("*", "", "reversed", "n/a", None):
            assert bias_verdict(effect, low, high, holm) in ("no evidence", "reversed")


# ----------------------------------------------------------------------- published numbers


def _csv(name: str) -> pd.DataFrame:
    return pd.read_csv(data_dir() / "published" / f"{name}.csv")


def test_published_reference_holds_the_papers_rows_as_printed():
    ref = published_reference()
    assert tuple(ref.columns) == PUBLISHED_COLUMNS and ref["value"].notna().all()
    may = _csv("seat_table4")
    sent = may[may["context"] == "sent"]
    got = ref[(ref["method"] == "s-SEAT") & (ref["paper"] == "May et al. 2019")]
    assert sorted(zip(got["test"], got["model"], got["value"], strict=True)) == sorted(
        zip(sent["test"], sent["model"], sent["d"], strict=True))
    myb = _csv("myb_table3")
    for method in ("s-SEAT", "w-SEAT", "CEAT"):
        rerun = myb[(myb["method"] == method) & (myb["column"] == "ours")]
        got = ref[(ref["method"] == method) & (ref["note"] == "Mind Your Bias's re-run")]
        assert sorted(zip(got["test"], got["model"], got["value"], strict=True)) == sorted(
            zip(rerun["test"], rerun["model"], rerun["d"], strict=True))
    gpt2 = _csv("mleat_gpt2")
    got = ref[(ref["method"] == "ML-EAT") & ref["table"].str.startswith("Table 5")]
    assert len(got) == gpt2["l1_d"].notna().sum() == 40
    lpbs = _csv("myb_table4_lpbs")
    full = lpbs[(lpbs["column"] == "ours") & (lpbs["word_set"] == "full")]
    got = ref[(ref["method"] == "LPBS") & ref["table"].str.contains("full")]
    assert sorted(got["value"]) == sorted(full["d"])
    assert "SAME" not in set(ref["method"])
    # every method with a published number is a method of the audit, every test one of its
    from biaslib.audit.plan import default_tests
    assert set(ref["test"]) <= set(default_tests())
    assert set(ref["method"]) <= {"WEAT", "s-SEAT", "w-SEAT", "CEAT", "ML-EAT", "LPBS"}


# ----------------------------------------------------------------------- a real audit


@pytest.fixture(scope="module")
def glove_audit(tmp_path_factory):
    out = tmp_path_factory.mktemp("audit") / "glove"
    result = run_audit("glove-6b-50d", out, progress=False)
    return result, out / "report.html"


class _Cells(HTMLParser):
    """The at-a-glance table: its header and, per row, each cell's text and badge."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside = 0
        self.rows: list[list[dict[str, str]]] = []
        self.cell: dict[str, str] | None = None
        self.span = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "glance" in (attrs.get("class") or ""):
            self.inside = 1
        elif not self.inside:
            return
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = {"text": "", "badge": "", "ci": "", "ref": ""}
        elif tag == "span" and self.cell is not None:
            css = attrs.get("class") or ""
            self.span = ("badge" if css.startswith("v ") else "ci" if css == "ci"
                         else "ref" if css == "ref" else "")
        elif tag == "br" and self.cell is not None:
            self.cell["text"] += "\n"

    def handle_endtag(self, tag):
        if not self.inside:
            return
        if tag == "table":
            self.inside = 0
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "span":
            self.span = ""

    def handle_data(self, data):
        if self.cell is None:
            return
        self.cell["text"] += data
        if self.span == "ref":
            self.cell["ref"] += data + "\n"
        elif self.span:
            self.cell[self.span] += data


def _glance(page: str) -> tuple[list[str], dict[tuple[str, str], dict[str, str]]]:
    parser = _Cells()
    parser.feed(page)
    head = [c["text"].strip() for c in parser.rows[0]]
    cells = {}
    for row in parser.rows[1:]:
        test = row[0]["text"].split()[-1]  # the title, then the id
        for method, cell in zip(head[1:], row[1:], strict=True):
            cells[(test, method)] = cell
    return head, cells


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


def test_first_screen_is_the_answer(glove_audit):
    _, path = glove_audit
    page = path.read_text(encoding="utf-8")
    glance, reading = page.index("id='at-a-glance'"), page.index("id='how-to-read'")
    assert glance < reading < page.index("<h3>Summary</h3>")
    assert page.index("Verdict:") < page.index('class="glance"')


def test_every_glance_cell_is_the_models_number_with_its_verdict(glove_audit):
    result, path = glove_audit
    head, cells = _glance(path.read_text(encoding="utf-8"))
    summary = result.results[result.results["part"] == "summary"]
    assert head[0] == "test" and set(head[1:]) == set(summary["method"])
    published = published_reference()
    seen = 0
    for row in summary.itertuples():
        cell = cells[(row.test, row.method)]
        not_run = summary.loc[row.Index, "not run"]
        if isinstance(not_run, str) and not_run:
            assert cell["text"].strip() == "not run"
            continue
        seen += 1
        effect = float(row.effect_size)
        assert cell["text"].split()[0] == format_d(effect)
        low, high = float(row.ci_low), float(row.ci_high)
        # the rule, by hand, for the cells whose interval decides
        if not math.isnan(low) and low <= 0 <= high:
            assert cell["badge"] == "no evidence", (row.test, row.method)
        if not math.isnan(low) and high < 0:
            assert cell["badge"] == "reversed"
        if row.method == "SAME":
            assert cell["badge"] == ""
        else:
            assert cell["badge"] in BIAS_VERDICTS
        # the papers' range, recomputed from the published rows
        values = published.loc[(published["test"] == row.test)
                               & (published["method"] == row.method), "value"]
        if len(values):
            line = next(x for x in cell["ref"].splitlines() if x.startswith("papers"))
            numbers = re.findall(r"−?\d+\.\d+", line)
            assert _number(numbers[0]) == pytest.approx(values.min(), abs=0.005)
            above = int(re.search(r"above (\d+) of (\d+)", line).group(1))
            assert above == int((values.to_numpy() < effect).sum())
            assert line.endswith(f"of {len(values)}")
        else:
            assert "papers" not in cell["ref"]
    assert seen >= 30


def test_words_dropped_are_listed_per_test(glove_audit):
    _, path = glove_audit
    page = path.read_text(encoding="utf-8")
    block = page[page.index("<h3>Words dropped</h3>"):page.index("<h3>Static-vector")]
    assert "gladiola" in block and "C1" in block  # GloVe 6B lacks it (C1, Flowers)
    assert "unliked" in block and "DB-likable" in block


def test_variants_that_cannot_apply_are_not_failures(glove_audit):
    _, path = glove_audit
    page = path.read_text(encoding="utf-8")
    block = page[page.index("id='not-run'"):page.index("id='provenance'")]
    failed, moot = block.split("rows do not apply (phrases on a word-vector file)")
    assert "rows could not be computed" in failed
    # Mind Your Bias's group-term phrases cannot be words of a vector file: not a failure
    assert "European American male" in moot and "European American male" not in failed
    # a name set that really lost single words (over a fifth) is a failure
    assert "bigbutt" in failed


def test_the_report_stays_small(glove_audit):
    _, path = glove_audit
    assert path.stat().st_size <= REPORT_BUDGET


# ----------------------------------------------------------------------- in a browser

cb = load_script("check_book")




MEASURE = """
const table = document.querySelector('table.glance');
const box = r => {
  const b = r.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
return {
  rule: box(document.querySelector('p.rule')),
  caption: box(table.querySelector('caption')),
  head: Array.from(table.tHead.rows[0].cells, box),
  first: box(table.tBodies[0].rows[0]),
  page: document.documentElement.scrollWidth,
  window: [window.innerWidth, window.innerHeight],
};
"""


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1366", "390"])
def test_the_first_screen_shows_the_answer(browser, glove_audit, size):
    _, path = glove_audit
    cb.set_viewport(browser, *size)
    browser.get(path.resolve().as_uri())
    m = browser.execute_script(MEASURE)
    width, height = m["window"]
    assert m["page"] <= width + 1  # wide tables scroll in their own box, not the page
    assert m["rule"][3] < height and m["caption"][1] < height
    if size == DESKTOP:
        # the whole first row of the table, every method's column, on the first screen
        assert m["first"][3] < height
        assert max(h[2] for h in m["head"]) <= width
