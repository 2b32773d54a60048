"""biaslib audit: each headline number's reliability beside it (issue 41), and the report's flag.

The audit's columns are checked against the library functions called on vectors fetched
independently (run_weat's embedded test, the front door's four sets), LPBS's fold of its
template-major rows against the scores as drawn, and the report's flag against the stated
floor.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from offline_wheels import needs_glove

from biaslib.audit.parts import RESULT_COLUMNS, _template_reliability
from biaslib.audit.report import RELIABILITY_FLOOR, render_report
from biaslib.evaluate.reliability import (
    association_reliability,
    lpbs_reliability,
    same_reliability,
)
from biaslib.methods.lpbs import LPBS_MIND_YOUR_BIAS, lpbs_test

RELIABILITY_NUMBERS = ("reliability", "reliability_low", "reliability_high", "alpha",
                       "alpha_low", "alpha_high", "items_needed")


def test_the_columns_are_part_of_every_result():
    assert set(RELIABILITY_NUMBERS) | {"reliability_method"} <= set(RESULT_COLUMNS)


def test_lpbs_rows_fold_back_into_templates():
    rng = np.random.default_rng(3)
    scores_a = rng.normal(size=(5, 4)) + np.arange(4)   # 5 templates × 4 words of A
    scores_b = rng.normal(size=(5, 6)) - np.arange(6)
    result = lpbs_test(scores_a, scores_b, convention=LPBS_MIND_YOUR_BIAS)
    assert result.n_templates == 5 and result.n_a == 20  # rows: template × word
    ours = _template_reliability(result)
    expected = lpbs_reliability(scores_a, scores_b)
    assert ours.split_half.value == pytest.approx(expected.split_half.value)
    assert ours.alpha.value == pytest.approx(expected.alpha.value)
    # folding word-major would give another number: the order matters
    wrong = lpbs_reliability(scores_a.T.reshape(5, 4), scores_b.T.reshape(5, 6))
    assert wrong.split_half.value != pytest.approx(ours.split_half.value)


@pytest.fixture(scope="module")
def glove_results(tmp_path_factory):
    from biaslib.audit.run import run_audit

    out = tmp_path_factory.mktemp("audit") / "glove"
    return run_audit("glove-6b-50d", out, tests=["C1", "C3", "C7"], progress=False).results


@needs_glove
def test_weat_and_mleat_reliability_is_the_association_reliability(glove_results):
    from biaslib.embeddings.static import glove_6b_50d
    from biaslib.evaluate.weat import run_weat

    summary = glove_results[glove_results["part"] == "summary"]
    for test in ("C1", "C3", "C7"):
        arrays = run_weat(test, glove_6b_50d()).embedded.arrays
        expected = association_reliability(*arrays)
        for method in ("WEAT", "ML-EAT"):
            row = summary[(summary["test"] == test) & (summary["method"] == method)].iloc[0]
            assert row["reliability"] == pytest.approx(expected.split_half.value)
            assert row["reliability_low"] == pytest.approx(expected.split_half.ci_low)
            assert row["alpha"] == pytest.approx(expected.alpha.value)
            assert row["items_needed"] == expected.items_needed
            assert "1,000 random splits, seed 1111" in row["reliability_method"]
            assert row["reliability_low"] <= row["reliability"] <= row["reliability_high"]


@needs_glove
def test_same_reliability_is_over_the_words_that_span_the_direction(glove_results):
    from biaslib.embeddings.static import glove_6b_50d
    from biaslib.evaluate.metrics import run_metric
    from biaslib.stimuli.data import load_test

    sets = run_metric("SAME", load_test("C3"), glove_6b_50d(), pairs=False).sets
    expected = same_reliability(sets.X, sets.Y, np.vstack([sets.A, sets.B]))
    row = glove_results[(glove_results["part"] == "summary")
                        & (glove_results["method"] == "SAME")
                        & (glove_results["test"] == "C3")].iloc[0]
    assert row["reliability"] == pytest.approx(expected.split_half.value)
    assert math.isnan(row["alpha"]) and "no alpha" in row["reliability_method"]


@needs_glove
def test_only_headline_rows_carry_a_reliability(glove_results):
    others = glove_results[glove_results["part"] != "summary"]
    assert others["reliability"].isna().all()
    summary = glove_results[glove_results["part"] == "summary"]
    assert summary["reliability"].notna().all()


def _frame(values: list[float]) -> pd.DataFrame:
    rows = []
    for i, value in enumerate(values):
        rows.append({"method": "WEAT", "test": f"C{i + 1}", "variant": "", "model": "m",
                     "effect_size": 1.0, "p_value": 0.001, "ci_low": 0.5, "ci_high": 1.5,
                     "ci_method": "Hedges-Olkin approximation", "part": "summary",
                     "not run": "", "model_kind": "static", "holm": "*", "tail": "greater",
                     "reliability": value, "reliability_low": value - 0.1,
                     "reliability_high": min(value + 0.1, 1.0), "alpha": value,
                     "alpha_low": value - 0.1, "alpha_high": min(value + 0.1, 1.0),
                     "items_needed": 40.0,
                     "reliability_method": "split-half (Spearman-Brown); subjects: s; items: i"})
    return pd.DataFrame(rows)


def _timings() -> pd.DataFrame:
    return pd.DataFrame([{"model": "m", "part": "WEAT", "test": "C1", "seconds": 1.0,
                          "status": "computed"}])


def test_the_report_flags_low_reliability_below_the_floor():
    low, high = RELIABILITY_FLOOR - 0.05, RELIABILITY_FLOOR + 0.05
    page = render_report(_frame([low, high]), _timings(), {})
    glance = page[page.index('class="glance"'):page.index("</table>", page.index('class="glance"'))]
    cells = re.findall(r'<td class="cell">(.*?)</td>', glance)
    assert len(cells) == 2
    assert f"reliability {low:.2f}" in cells[0] and "low reliability" in cells[0]
    assert f"reliability {high:.2f}" in cells[1] and "low reliability" not in cells[1]
    assert "<h3>Reliability</h3>" in page and "Reliability</b>: the split-half" in page


def test_a_results_file_without_reliability_still_renders():
    frame = _frame([0.9]).drop(columns=[*RELIABILITY_NUMBERS, "reliability_method"])
    page = render_report(frame, _timings(), {})
    assert "No reliability was computed" in page and "low reliability</span>" not in page
