"""The chapter "Do the metrics agree?" (biasbook.agree): framing, correlations, signs.

The framing is checked on hand-made toy sets (a test whose X lies near A must give every
signed metric a positive score, and swapping a pair of sets must flip it), the intervals
against scipy and a brute-force computation, and the sign-flip tables on constructed
scores.
"""

from __future__ import annotations

import importlib
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from biasbook import agree
from biaslib.embeddings.static import StaticEmbeddings
from biaslib.errors import UnknownNameError
from biaslib.stats.correlation_ci import fisher_interval
from biaslib.stimuli.data import StimulusTest, WordSet


def _available(m: agree.Metric) -> bool:
    """Whether the module behind a metric exists (the new metrics land in parallel)."""
    module = m.source.rsplit(".", 1)[0]
    try:
        importlib.import_module(module)
    except ModuleNotFoundError:
        return False
    return True


def _params(signed: bool | None = None) -> list:
    return [pytest.param(m, id=m.name, marks=pytest.mark.skipif(
        not _available(m), reason=f"{m.source} not merged yet"))
        for m in agree.METRICS if signed is None or m.signed == signed]


def _toy(bias: bool = True, n: int = 8, dim: int = 12, seed: int = 0) -> agree.FourSets:
    """X near A and Y near B (``bias``), or A, B on an axis orthogonal to X − Y."""
    rng = np.random.default_rng(seed)
    e = np.eye(dim)

    def cloud(centre: np.ndarray) -> np.ndarray:
        return centre + 0.15 * rng.normal(size=(n, dim))

    X, Y = cloud(e[0] + 0.5 * e[2]), cloud(-e[0] + 0.5 * e[2])
    axis = e[0] if bias else e[1]
    A, B = cloud(axis + 0.8 * e[3]), cloud(-axis + 0.8 * e[3])
    words = {r: tuple(f"{r}{i}" for i in range(n)) for r in "XYAB"}
    return agree.FourSets("toy", X, Y, A, B, words, {r: () for r in "XYAB"})


def _swap(s: agree.FourSets, roles: str) -> agree.FourSets:
    arrays = {r: getattr(s, r) for r in "XYAB"}
    first, second = roles
    arrays[first], arrays[second] = arrays[second], arrays[first]
    return agree.FourSets(s.test, arrays["X"], arrays["Y"], arrays["A"], arrays["B"], s.words,
                          s.dropped)


# --------------------------------------------------------------------------- framing


@pytest.mark.parametrize("m", _params(signed=True))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_test_where_x_is_near_a_scores_positive_on_every_signed_metric(m, seed):
    toy = _toy(seed=seed)
    assert m.compute(toy, 0) > 0
    # Swapping either pair reverses the direction; swapping both restores it.
    assert m.compute(_swap(toy, "XY"), 0) < 0
    assert m.compute(_swap(toy, "AB"), 0) < 0
    assert m.compute(_swap(_swap(toy, "XY"), "AB"), 0) > 0


@pytest.mark.parametrize("m", [p for p in _params(signed=False)
                               if p.id in ("SAME", "Direct Bias", "ECT", "RNSB")])
def test_unsigned_magnitudes_are_larger_for_the_biased_toy(m):
    # A, B along X − Y (biased) against A, B on an orthogonal axis (no bias).
    biased = m.to_magnitude(m.compute(_toy(True), 0))
    unbiased = m.to_magnitude(m.compute(_toy(False), 0))
    assert biased > unbiased >= 0


def test_skew_contrast_has_the_sign_of_weat_d_on_any_sets():
    # WEAT's difference of means is (m_X − m_Y)·(m_A − m_B) (unit-vector means), the skew
    # contrast the same product over |m_X − m_Y|: their signs agree (the SAME paper's
    # eq. 46–48 in this chapter's framing), on random sets of any sizes.
    rng = np.random.default_rng(5)
    for _ in range(200):
        nx, na, nb = rng.integers(2, 7, size=3)
        sets = agree.FourSets("r", rng.normal(size=(nx, 5)), rng.normal(size=(nx, 5)),
                              rng.normal(size=(na, 5)), rng.normal(size=(nb, 5)), {}, {})
        d, skew = agree.metric("WEAT d").compute(sets, 0), agree.metric("skew").compute(sets, 0)
        assert np.sign(d) == np.sign(skew)


def test_framing_table_has_every_metric_once():
    table = agree.framing_table()
    assert table.index.tolist() == [m.name for m in agree.METRICS]
    assert set(table["signed"]) == {"yes", "no"}
    assert table.loc["WEAT d", "compared as"] == "|d|"


def test_an_unknown_metric_is_named():
    with pytest.raises(UnknownNameError, match="WEAT d"):
        agree.metric("weat")


# --------------------------------------------------------------------------- the sets


def _table(vocab, seed=0):
    rng = np.random.default_rng(seed)
    return StaticEmbeddings(list(vocab), rng.normal(size=(len(vocab), 4)), name="toy",
                            case="exact")


def _test(x, y, a, b):
    def ws(key, words):
        return WordSet(key, key, tuple(words))
    return StimulusTest("T", "toy", ws("X", x), ws("Y", y), ws("A", a), ws("B", b), "", "")


def test_a_target_without_a_vector_takes_its_partner_along():
    x, y = [f"x{i}" for i in range(6)], [f"y{i}" for i in range(6)]
    a, b = ["a0", "a1", "a2"], ["b0", "b1"]
    table = _table([w for w in x + y + a + b if w not in ("x2",)])
    sets = agree.four_sets(_test(x, y, a, b), table)
    assert sets.words["X"] == ("x0", "x1", "x3", "x4", "x5")
    assert sets.words["Y"] == ("y0", "y1", "y3", "y4", "y5")
    assert sets.dropped["X"] == ("x2",) and sets.dropped["Y"] == ("y2",)
    assert sets.X.shape == sets.Y.shape == (5, 4)
    # The rows are the words' own vectors.
    assert np.array_equal(sets.Y[2], table.vectors[table.index["y3"]])


def test_a_set_losing_more_than_a_fifth_leaves_the_test_out():
    x, y = [f"x{i}" for i in range(5)], [f"y{i}" for i in range(5)]
    a, b = ["a0", "a1", "a2", "a3", "a4"], ["b0", "b1", "b2", "b3", "b4"]
    one = _table([w for w in x + y + a + b if w != "a0"])  # 1 of 5: 20 %, runs
    two = _table([w for w in x + y + a + b if w not in ("a0", "a1")])  # 40 %: left out
    assert agree.four_sets(_test(x, y, a, b), one) is not None
    assert agree.four_sets(_test(x, y, a, b), two) is None


def test_unpaired_targets_raise():
    with pytest.raises(ValueError, match="pair"):
        agree.four_sets(_test(["x0", "x1"], ["y0"], ["a"], ["b"]), _table(["x0"]))


def test_the_same_test_pairs_gender_words_and_measures_occupations():
    test = agree.same_test()
    assert test.X.words[:3] == ("man", "boy", "he") and test.Y.words[:3] == ("woman", "girl",
                                                                            "she")
    assert len(test.A.words) == len(test.B.words) == 50
    assert "nurse" in test.B.words


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


def test_a_metric_that_fails_on_a_test_gives_nan_and_says_why():
    def broken(s, seed):
        raise ValueError("no second class")
    m = agree.Metric("broken", False, "", "", "", "", broken, abs, "nowhere")
    table = agree.score_table([_toy()], [agree.metric("WEAT d"), m])
    row = table.set_index("metric").loc["broken"]
    assert math.isnan(row["score"]) and row["note"] == "no second class"


# --------------------------------------------------------------------------- Colab path


@pytest.fixture(scope="module")
def standins(tmp_path_factory):
    from standin_vectors import install_standin_release_files

    return install_standin_release_files(tmp_path_factory.mktemp("standin_cache"))


@pytest.mark.skipif(not all(map(_available, agree.METRICS)), reason="a metric not merged yet")
@pytest.mark.parametrize("model", agree.PAPER_VECTORS)
def test_paper_vectors_give_a_score_table(standins, tmp_path, monkeypatch, model):
    # The stand-in release files (tests/standin_vectors.py) hold random vectors for the
    # Caliskan stimuli only, without "gladiola": C1 loses a flower and its partner insect,
    # and the SAME test (its words are not in the stand-ins) is left out.
    from standin_vectors import standin_fetch

    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path / "cache"))
    table = agree.paper_scores(model, fetch=standin_fetch(standins))
    assert agree.SAME_TEST not in set(table["test"])
    assert "C4" in set(table["test"])
    assert table["metric"].unique().tolist() == [m.name for m in agree.METRICS]
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
