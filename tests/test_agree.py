"""The chapter "Do the metrics agree?" (biasbook.agree): its tests, correlations, signs.

The metrics and their framing are the front door's, tested in
``tests/test_evaluate_metrics.py``. Here: the chapter's tests and what they lose on each
vector set, the intervals against scipy and a brute-force computation, and the sign-flip
tables on constructed scores.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from biasbook import agree
from biasbook.models import PAPER_VECTORS
from biaslib.evaluate.metrics import METRIC_SEED, METRICS, metric_table
from biaslib.stats.correlation_ci import fisher_interval


def test_the_same_test_pairs_gender_words_and_measures_occupations():
    test = agree.same_test()
    assert test.X.words[:3] == ("man", "boy", "he") and test.Y.words[:3] == ("woman", "girl",
                                                                            "she")
    assert len(test.A.words) == len(test.B.words) == 50
    assert "nurse" in test.B.words


def test_a_test_losing_too_many_words_is_left_out_and_listed():
    # On the Google News subset C1 loses more than a fifth of a set: no vectors, and the
    # chapter's table of dropped words says it does not run.
    w2v = agree.VECTORS[1]
    assert "C1" not in agree.sets_of(w2v) and "C4" in agree.sets_of(w2v)
    table = agree.dropped_words(w2v)
    assert (table.loc["C1", "test runs"] == "no").all()
    assert (table.loc["C4", "test runs"] == "yes").all()


def test_the_chapters_scores_are_the_front_doors_rows():
    # scores() renames metric_table's columns; the numbers are the front door's.
    glove = agree.VECTORS[0]
    rows = metric_table(list(agree.sets_of(glove).values()), seed=METRIC_SEED)
    frame = agree.scores(glove)
    assert frame["score"].tolist() == rows["effect_size"].tolist()
    assert frame["metric"].tolist() == rows["method"].tolist()
    assert frame["test"].unique().tolist() == [*(f"C{i}" for i in range(1, 11)),
                                               agree.SAME_TEST]


# --------------------------------------------------------------------------- correlations


def _scores(values: dict[str, list[float]], signed: dict[str, bool]) -> pd.DataFrame:
    rows = []
    for name, vals in values.items():
        for i, v in enumerate(vals):
            rows.append({"test": f"T{i}", "metric": name, "signed": signed[name], "score": v,
                         "magnitude": abs(v), "note": ""})
    return pd.DataFrame(rows)


def _ranks(x):
    return stats.rankdata(x)


def test_spearman_and_kendall_equal_a_brute_force_computation():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=9), rng.normal(size=9)
    frame = _scores({"P": list(a), "Q": list(b)}, {"P": True, "Q": True})
    rho = agree.rank_correlations(frame, "spearman").iloc[0]
    tau = agree.rank_correlations(frame, "kendall").iloc[0]
    # Spearman: Pearson's r of the ranks, by hand.
    ra, rb = _ranks(a) - 5, _ranks(b) - 5
    assert rho["r"] == pytest.approx((ra * rb).sum() / math.sqrt((ra**2).sum() * (rb**2).sum()))
    # Kendall (no ties): concordant minus discordant pairs over all pairs.
    sign = sum(np.sign(a[i] - a[j]) * np.sign(b[i] - b[j])
               for i, j in itertools.combinations(range(9), 2))
    assert tau["r"] == pytest.approx(sign / 36)
    assert rho["n"] == tau["n"] == 9 and rho["compared"] == "signed"


def test_the_interval_is_fisher_z_with_bonett_wrights_error():
    rng = np.random.default_rng(4)
    a = rng.normal(size=12)
    b = a + rng.normal(size=12)
    frame = _scores({"P": list(a), "Q": list(b)}, {"P": True, "Q": True})
    row = agree.rank_correlations(frame).iloc[0]
    r, n = row["r"], 12
    half = 1.959963984540054 * math.sqrt((1 + r * r / 2) / (n - 3))
    assert row["ci_low"] == pytest.approx(math.tanh(math.atanh(r) - half))
    assert row["ci_high"] == pytest.approx(math.tanh(math.atanh(r) + half))
    # Kendall: Fieller et al.'s error, sqrt(0.437 / (n − 4)).
    k = agree.rank_correlations(frame, "kendall").iloc[0]
    half = 1.959963984540054 * math.sqrt(0.437 / (n - 4))
    assert k["ci_low"] == pytest.approx(math.tanh(math.atanh(k["r"]) - half))


def test_the_fisher_rule_equals_scipys_pearson_interval():
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=15), rng.normal(size=15)
    result = stats.pearsonr(x, y)
    ci = result.confidence_interval(0.95)
    lo, hi = fisher_interval(float(result.statistic), 15, "fisher")
    assert (lo, hi) == pytest.approx((ci.low, ci.high))


def test_the_spearman_interval_covers_about_95_percent():
    # Bivariate normal samples with Pearson ρ = 0.5: Spearman's population value is
    # (6/π) arcsin(ρ/2). Bonett–Wright's interval should cover it about 95 % of the time.
    rng = np.random.default_rng(0)
    rho_s = 6 / math.pi * math.asin(0.25)
    cov = [[1, 0.5], [0.5, 1]]
    hits = 0
    trials = 1000
    for _ in range(trials):
        x, y = rng.multivariate_normal([0, 0], cov, size=20).T
        r = float(stats.spearmanr(x, y).statistic)
        lo, hi = fisher_interval(r, 20, "bonett-wright")
        hits += lo <= rho_s <= hi
    assert 0.92 <= hits / trials <= 0.98


def test_too_few_tests_give_no_correlation_or_no_interval():
    three = _scores({"P": [1.0, 2.0, 3.0], "Q": [1.0, 3.0, 2.0]}, {"P": True, "Q": True})
    row = agree.rank_correlations(three).iloc[0]
    assert row["r"] == pytest.approx(0.5) and math.isnan(row["ci_low"])
    two = _scores({"P": [1.0, 2.0], "Q": [1.0, 3.0]}, {"P": True, "Q": True})
    assert math.isnan(agree.rank_correlations(two).iloc[0]["r"])
    with pytest.raises(ValueError, match="at least 5"):
        fisher_interval(0.3, 4, "fieller")
    with pytest.raises(ValueError, match="se must be"):
        fisher_interval(0.3, 9, "pearson")  # type: ignore[arg-type]
    assert fisher_interval(1.0, 9, "bonett-wright") == (1.0, 1.0)


def test_an_unsigned_metric_is_compared_on_magnitudes():
    # The signed P is −3…3, its magnitude |P|; the unsigned Q follows |P| exactly.
    p = [-3.0, -1.0, 0.5, 2.0, 4.0]
    frame = _scores({"P": p, "Q": [abs(v) for v in p]}, {"P": True, "Q": False})
    row = agree.rank_correlations(frame).iloc[0]
    assert row["compared"] == "magnitude" and row["r"] == pytest.approx(1.0)


def test_the_matrix_is_symmetric_with_a_unit_diagonal():
    frame = _scores({"P": [1.0, 2, 3, 4], "Q": [2.0, 1, 4, 3], "R": [4.0, 3, 2, 1]},
                    {"P": True, "Q": True, "R": True})
    m = agree.correlation_matrix(agree.rank_correlations(frame))
    assert np.allclose(m.to_numpy(), m.to_numpy().T) and (np.diag(m) == 1).all()
    assert m.loc["P", "R"] == pytest.approx(-1.0)


# --------------------------------------------------------------------------- signs


def test_sign_flips_on_a_constructed_case():
    frame = _scores({"WEAT d": [1.0, 0.5, -0.2], "RIPA": [0.3, -0.1, -0.4],
                     "RND": [0.2, -0.3, 0.1], "SAME": [0.1, 0.2, 0.3]},
                    {"WEAT d": True, "RIPA": True, "RND": True, "SAME": False})
    flips = agree.sign_flips(frame)
    assert flips["WEAT d"].tolist() == ["+", "+", "−"]
    assert flips["disagree"].tolist() == ["—", "RIPA, RND", "RND"]
    assert flips["split"].tolist() == ["no", "yes", "yes"]


def test_sign_flips_between_vector_sets():
    first = _scores({"WEAT d": [1.0, 0.5], "RIPA": [0.3, -0.1]}, {"WEAT d": True, "RIPA": True})
    second = _scores({"WEAT d": [1.0, -0.5, 2.0], "RIPA": [-0.3, -0.1, 1.0]},
                     {"WEAT d": True, "RIPA": True})
    table = agree.vector_sign_flips(first, second)
    assert table.index.tolist() == ["T0", "T1"]
    assert table["sign differs"].tolist() == ["RIPA", "WEAT d"]


def test_shown_refuses_a_rounding_edge_and_uses_a_true_minus():
    assert agree.shown(-0.25) == "−0.25" and agree.shown(-0.001) == "0.00"
    assert agree.shown(float("nan")) == "–"
    with pytest.raises(ValueError, match="rounding boundary"):
        agree.shown(0.125)


# --------------------------------------------------------------------------- Colab path


@pytest.fixture(scope="module")
def standins(tmp_path_factory):
    from standin_vectors import install_standin_release_files

    return install_standin_release_files(tmp_path_factory.mktemp("standin_cache"))


@pytest.mark.parametrize("model", list(PAPER_VECTORS))
def test_paper_vectors_give_a_score_table(standins, tmp_path, monkeypatch, model):
    # The stand-in release files (tests/standin_vectors.py) hold random vectors for the
    # Caliskan stimuli only, without "gladiola": C1 loses a flower and its partner insect,
    # and the SAME test (its words are not in the stand-ins) is left out.
    from standin_vectors import standin_fetch

    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path / "cache"))
    table = agree.paper_scores(model, fetch=standin_fetch(standins))
    assert agree.SAME_TEST not in set(table["test"])
    assert "C4" in set(table["test"])
    assert table["metric"].unique().tolist() == [m.name for m in METRICS]
    with pytest.raises(ValueError, match="model must be"):
        agree.paper_scores("GloVe 6B 50d")


def test_families_split_the_pairs_by_kind_of_metric():
    names = ["WEAT d", "skew", "SAME", "Direct Bias", "ECT"]
    rows = [{"metric_a": a, "metric_b": b, "compared": "", "n": 5, "r": 0.0, "ci_low": 0.0,
             "ci_high": 0.0} for a, b in itertools.combinations(names, 2)]
    fam = agree.families(pd.DataFrame(rows))
    as_pairs = {k: sorted(zip(v["metric_a"], v["metric_b"], strict=True))
                for k, v in fam.items()}
    assert as_pairs["signed"] == [("WEAT d", "skew")]
    assert as_pairs["neutral"] == [("SAME", "Direct Bias")]
    assert len(as_pairs["across"]) == 4 and ("WEAT d", "ECT") not in as_pairs["across"]
    assert len(as_pairs["cosine"]) == 10  # all five are computed from cosines


def test_findings_read_their_sections_and_the_sign_identity_holds():
    # Live on GloVe 6B 50d and the Google News subset (seconds). The third verdict is the
    # identity of test_skew_contrast_has_the_sign_of_weat_d_on_any_sets: it must hold.
    found = agree.findings()
    assert [f.section for f in found] == [agree.SECTIONS["correlations"],
                                          agree.SECTIONS["signs"], agree.SECTIONS["signs"]]
    assert found[2].holds is True and "0 of 11 tests (GloVe 6B 50d)" in found[2].ours


def test_family_table_gives_each_family_both_correlations():
    values = {"WEAT d": [1.0, 2, 3, 4, 5], "skew": [1.0, 2, 3, 5, 4],
              "SAME": [5.0, 4, 3, 2, 1], "Direct Bias": [4.0, 5, 3, 2, 1]}
    frame = _scores(values, {"WEAT d": True, "skew": True, "SAME": False,
                             "Direct Bias": False})
    table = agree.family_table({"toy": frame})
    assert table.shape == (8, 2)
    # WEAT d and skew: ρ = 1 − 6·2/(5·24) = 0.9; τ = (9 − 1)/10 = 0.8.
    assert table.loc[("signed with signed", "Spearman ρ"), ("toy", "range")] == "0.90"
    assert table.loc[("signed with signed", "Kendall τ"), ("toy", "range")] == "0.80"
    # Magnitudes of the signed metrics against SAME and Direct Bias: all reversed or nearly.
    assert table.loc[("signed with SAME or Direct Bias", "Spearman ρ"),
                     ("toy", "range")] == "−1.00 to −0.80"
