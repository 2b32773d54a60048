"""Each preset does what its docstring says the original implementation did; one convention
pattern for every method, its options in one Resampling, one lookup (``ConventionBase.of``)."""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

import biaslib.stats.resampling as resampling_module
from biaslib.errors import UnknownNameError
from biaslib.methods.ceat import CEAT_PRESETS, CeatConvention
from biaslib.methods.gonen_goldberg import GG_PRESETS, GonenGoldbergConvention
from biaslib.methods.gweat import GWEAT_PRESETS, GweatConvention
from biaslib.methods.indirect_bias import INDIRECT_PRESETS, IndirectBiasConvention
from biaslib.methods.lpbs import (
    LPBS_BIASLIB,
    LPBS_KURITA,
    LPBS_MIND_YOUR_BIAS,
    LPBS_PRESETS,
    LpbsConvention,
    lpbs_test,
    myb_reddit_statistics,
)
from biaslib.methods.mleat import (
    MLEAT_BIASLIB,
    MLEAT_PAPER_CODE,
    MLEAT_PRESETS,
    MleatConvention,
    ml_eat,
)
from biaslib.methods.ripa import RIPA_PRESETS, RipaConvention
from biaslib.methods.rnd import RND_PRESETS, RndConvention
from biaslib.methods.rnsb import RNSB_PRESETS, RnsbConvention
from biaslib.methods.same import SAME_PRESETS, SameConvention
from biaslib.methods.weat import weat
from biaslib.stats.conventions import (
    BIASLIB,
    CALISKAN,
    MIND_YOUR_BIAS,
    PRESETS,
    RESPONSIBLY,
    SENT_BIAS,
    WEFE,
    Convention,
    ConventionBase,
    PermutationConvention,
)
from biaslib.stats.permutation import MAX_EXACT_SPLITS, normal_approximation_p, permutation_test
from biaslib.stats.resampling import OPTION_NAMES, Resampling

ROOT = Path(__file__).resolve().parents[1]


def sets(n_x=8, n_y=8, n_attr=8, d=16, seed=0):
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(n_attr, d)), rng.normal(size=(n_attr, d))
    X = rng.normal(size=(n_x, d)) + 0.4 * A.mean(0)
    Y = rng.normal(size=(n_y, d)) + 0.4 * B.mean(0)
    return X, Y, A, B


def test_presets_are_registered_by_name():
    assert set(PRESETS) == {"biaslib", "sent-bias", "caliskan", "wefe", "responsibly",
                            "mind-your-bias"}
    for name, conv in PRESETS.items():
        assert Convention.of(name) is conv
        assert conv.description


def test_replace_marks_the_name():
    assert BIASLIB.replace(ddof=0).name == "biaslib*"
    assert BIASLIB.replace(ddof=0, name="x").name == "x"


@pytest.mark.parametrize("bad", [{"ddof": 2}, {"unequal_targets": "drop"}, {"p_method": "t"},
                                 {"n_resamples": 0}, {"seed": -1}, {"tail": "upper"},
                                 {"statistic": "median"}, {"exact_limit": 10**9}])
def test_invalid_fields(bad):
    # Resampling options are routed into `resampling` and checked there.
    with pytest.raises(ValueError, match=next(iter(bad))):
        BIASLIB.replace(**bad)


@pytest.mark.parametrize("bad", [{"n_resamples": 1e5}, {"n_resamples": "100"},
                                 {"n_resamples": True}, {"seed": 1.5}, {"seed": "1"},
                                 {"exact_limit": 1e5}, {"plus_one": 1}, {"plus_one": "no"},
                                 {"replacement": "False"}])
def test_wrongly_typed_fields(bad):
    with pytest.raises(TypeError, match=next(iter(bad))):
        BIASLIB.replace(**bad)


def test_invalid_own_fields_on_construction():
    with pytest.raises(ValueError, match="ddof"):
        Convention(name="bad", ddof=2)
    with pytest.raises(ValueError, match="name"):
        Convention(name=" ")
    with pytest.raises(TypeError, match="resampling must be a Resampling"):
        Convention(name="bad", resampling={"n_resamples": 10})  # type: ignore[arg-type]


def test_lookup_refuses_other_types():
    with pytest.raises(UnknownNameError, match="preset name"):
        Convention.of(["wefe"])  # type: ignore[arg-type]


class TestSentBias:
    def test_exact_for_small_tests(self):
        # C(16, 8) = 12,870 <= 100,000: all splits enumerated, the observed one included.
        res = weat(*sets(), convention=SENT_BIAS)
        assert res.permutation.method == "exact"
        assert res.permutation.n_resamples == math.comb(16, 8)

    def test_sampled_for_large_tests_counts_observed_once(self):
        # n = 25: 99,999 shuffles plus the observed split -> denominator 100,000.
        res = weat(*sets(25, 25, 25), convention=SENT_BIAS)
        assert res.permutation.method == "sampled"
        assert res.permutation.n_resamples == 99_999
        assert res.p_value * 100_000 == pytest.approx(round(res.p_value * 100_000))
        assert res.p_value >= 1e-5

    def test_ddof_1_and_ties_counted(self):
        assert (SENT_BIAS.ddof, SENT_BIAS.ties, SENT_BIAS.tail) == (1, "ge", "greater")

    def test_equal_sizes_asserted(self):
        with pytest.raises(ValueError, match="equal target set sizes"):
            weat(*sets(8, 7), convention=SENT_BIAS)


def test_caliskan_uses_the_normal_fit():
    X, Y, A, B = sets(25, 25, 25)
    res = weat(X, Y, A, B, convention=CALISKAN, keep_distribution=True)
    null = res.permutation.null_distribution
    assert null.size == 100_000
    assert res.p_value == pytest.approx(
        normal_approximation_p(res.permutation.statistic, null, "greater"))
    assert res.to_dict()["p_method"] == "normal"


class TestWefe:
    def test_population_sd_and_resampling_with_replacement(self):
        res = weat(*sets(), convention=WEFE)
        assert res.permutation.method == "sampled-with-replacement"
        assert res.permutation.n_resamples == 10_000
        assert res.effect_size == pytest.approx(
            weat(*sets(), convention=BIASLIB).effect_size * math.sqrt(16 / 15))

    def test_strict_inequality_and_plus_one(self):
        assert WEFE.ties == "gt"
        res = weat(*sets(), convention=WEFE)
        assert res.p_value == pytest.approx((res.permutation.n_extreme + 1) / 10_001)


def wefe_p_value(s_x, s_y, runs, seed):
    """WEFE's approximate p-value, as its WEAT._calc_p_value computes it (dccuchile/wefe,
    metrics/WEAT.py): each run draws len(X)+len(Y) targets WITH replacement from the pool,
    the first len(X) form X_i; statistic sum_X_i s - sum_Y_i s; strict '>'; (k+1)/(runs+1).
    (WEFE also skips repeated draws; with 5+30 targets a repeat never occurs.)"""
    pool = np.concatenate([s_x, s_y])
    observed = s_x.sum() - s_y.sum()
    draws = np.random.default_rng(seed).choice(pool.size, size=(runs, pool.size))
    stats = pool[draws[:, :s_x.size]].sum(1) - pool[draws[:, s_x.size:]].sum(1)
    return (int((stats > observed).sum()) + 1) / (runs + 1)


class TestWefeUnequalSizes:
    """With unequal target sizes WEFE's null is that of the difference of *sums*."""

    RUNS = 50_000
    rng = np.random.default_rng(7)
    S_X, S_Y = rng.normal(0.12, 0.03, 5), rng.normal(0.08, 0.03, 30)

    def mc_tolerance(self, p):
        return 5 * math.sqrt(2 * p * (1 - p) / self.RUNS)

    def test_preset_matches_wefes_method(self):
        conv = WEFE.replace(n_resamples=self.RUNS)
        ours = permutation_test(self.S_X, self.S_Y, tail=conv.tail, ties=conv.ties,
                                plus_one=conv.plus_one, n_resamples=conv.n_resamples,
                                exact_limit=conv.exact_limit, replacement=conv.replacement,
                                seed=conv.seed, statistic=conv.statistic)
        reference = wefe_p_value(self.S_X, self.S_Y, self.RUNS, seed=123)
        assert ours.statistic == pytest.approx(self.S_X.sum() - self.S_Y.sum())
        assert abs(ours.p_value - reference) < self.mc_tolerance(reference)

    def test_the_mean_statistic_would_not(self):
        means = permutation_test(self.S_X, self.S_Y, ties="gt", n_resamples=self.RUNS,
                                 exact_limit=None, replacement=True, seed=0)
        reference = wefe_p_value(self.S_X, self.S_Y, self.RUNS, seed=123)
        assert reference > 5 * means.p_value
        assert abs(means.p_value - reference) > self.mc_tolerance(reference)

    def test_null_of_sums_is_centred_on_the_size_difference(self):
        res = permutation_test(self.S_X, self.S_Y, n_resamples=self.RUNS, exact_limit=None,
                               replacement=True, seed=0, statistic="sum",
                               keep_distribution=True)
        pool = np.concatenate([self.S_X, self.S_Y])
        null = res.null_distribution
        # E[sum X_i - sum Y_i] = (|X| - |Y|) mean(pool); Var = (|X| + |Y|) var(pool).
        sd = math.sqrt(35 * pool.var())
        assert null.mean() == pytest.approx(-25 * pool.mean(), abs=5 * sd / math.sqrt(self.RUNS))
        assert null.std() == pytest.approx(sd, rel=0.02)

    def test_equal_sizes_give_the_same_p_as_the_mean(self):
        X, Y, A, B = sets()
        res = weat(X, Y, A, B, convention=WEFE)
        assert res.p_value == weat(X, Y, A, B, convention=WEFE.replace(statistic="mean")).p_value


class TestResponsibly:
    def test_exact_strict_no_plus_one(self):
        X, Y, A, B = sets()
        res = weat(X, Y, A, B, convention=RESPONSIBLY)
        assert res.permutation.method == "exact"
        assert res.p_value == pytest.approx(res.permutation.n_extreme / math.comb(16, 8))
        ours = weat(X, Y, A, B, convention=BIASLIB)
        # Same splits; strict '>' can only lower the count.
        assert res.permutation.n_extreme <= ours.permutation.n_extreme

    def test_equal_attribute_sizes_required(self):
        X, Y, A, B = sets()
        with pytest.raises(ValueError, match="equal attribute set sizes"):
            weat(X, Y, A[:-1], B, convention=RESPONSIBLY)


class TestMindYourBias:
    def test_subsamples_the_larger_target_set(self):
        X, Y, A, B = sets(10, 7)
        res = weat(X, Y, A, B, convention=MIND_YOUR_BIAS)
        assert res.n_x == res.n_y == 7
        assert res.x_kept.size == 7 and len(set(res.x_kept)) == 7
        assert np.array_equal(res.y_kept, np.arange(7))
        # Seeded: the same subsample every time.
        again = weat(X, Y, A, B, convention=MIND_YOUR_BIAS)
        assert np.array_equal(res.x_kept, again.x_kept)
        assert res.effect_size == again.effect_size

    def test_equals_sent_bias_on_equal_sizes(self):
        a = weat(*sets(), convention=MIND_YOUR_BIAS)
        b = weat(*sets(), convention=SENT_BIAS)
        assert (a.effect_size, a.p_value) == (b.effect_size, b.p_value)


def test_biaslib_default_allows_unequal_targets():
    res = weat(*sets(10, 7), convention=BIASLIB)
    assert (res.n_x, res.n_y) == (10, 7)


# --------------------------------------------------------------------------- one convention pattern

# Every preset's choices as the code stated them before the options moved into Resampling
# (literals copied from the presets' source at commit 49df83e, not generated from the code).
HEAD_PRESETS = {
    "weat": {
        "biaslib": {"ddof": 1, "tail": "greater", "ties": "ge", "plus_one": True,
                    "n_resamples": 100_000, "exact_limit": 100_000, "replacement": False,
                    "seed": 1111, "statistic": "mean", "p_method": "permutation",
                    "unequal_targets": "allow", "equal_attributes": False},
        "sent-bias": {"ddof": 1, "tail": "greater", "ties": "ge", "plus_one": True,
                      "n_resamples": 99_999, "exact_limit": 100_000, "replacement": False,
                      "seed": 1111, "statistic": "mean", "p_method": "permutation",
                      "unequal_targets": "error", "equal_attributes": False},
        "caliskan": {"ddof": 1, "tail": "greater", "ties": "ge", "plus_one": True,
                     "n_resamples": 100_000, "exact_limit": None, "replacement": False,
                     "seed": 1111, "statistic": "mean", "p_method": "normal",
                     "unequal_targets": "allow", "equal_attributes": False},
        "wefe": {"ddof": 0, "tail": "greater", "ties": "gt", "plus_one": True,
                 "n_resamples": 10_000, "exact_limit": None, "replacement": True, "seed": 0,
                 "statistic": "sum", "p_method": "permutation", "unequal_targets": "allow",
                 "equal_attributes": False},
        "responsibly": {"ddof": 0, "tail": "greater", "ties": "gt", "plus_one": False,
                        "n_resamples": 1_000, "exact_limit": 1_000_000, "replacement": False,
                        "seed": 42, "statistic": "mean", "p_method": "permutation",
                        "unequal_targets": "error", "equal_attributes": True},
        "mind-your-bias": {"ddof": 1, "tail": "greater", "ties": "ge", "plus_one": True,
                           "n_resamples": 99_999, "exact_limit": 100_000, "replacement": False,
                           "seed": 1111, "statistic": "mean", "p_method": "permutation",
                           "unequal_targets": "subsample", "equal_attributes": False},
    },
    "mleat": {
        "biaslib": {"ddof": 1, "level1_tail": "two-sided", "level2_tail": "two-sided",
                    "ties": "ge", "plus_one": True, "n_resamples": 100_000,
                    "exact_limit": 100_000, "replacement": False, "seed": 1111,
                    "p_method": "permutation", "min_effect": 0.2, "alpha": 0.05},
        "ml-eat-code": {"ddof": 1, "level1_tail": "observed-side",
                        "level2_tail": "observed-side", "ties": "ge", "plus_one": True,
                        "n_resamples": 1_000, "exact_limit": None, "replacement": False,
                        "seed": 1111, "p_method": "normal", "min_effect": 0.2, "alpha": 0.05},
    },
    "lpbs": {
        "kurita": {"ddof": 1, "sd_epsilon": 1e-8, "units": "template", "wordpieces": "first",
                   "tail": "two-sided", "ties": "gt", "plus_one": False, "n_resamples": 100_000,
                   "exact_limit": None, "seed": 1111},
        "mind-your-bias": {"ddof": 1, "sd_epsilon": 1e-8, "units": "template",
                           "wordpieces": "product", "tail": "two-sided", "ties": "gt",
                           "plus_one": False, "n_resamples": 100_000, "exact_limit": None,
                           "seed": 1111},
        "biaslib": {"ddof": 1, "sd_epsilon": 0.0, "units": "attribute", "wordpieces": "first",
                    "tail": "two-sided", "ties": "ge", "plus_one": True, "n_resamples": 100_000,
                    "exact_limit": 100_000, "seed": 1111},
    },
    "ceat": {
        "ceat-original": {"n_samples": 1_000, "replacement": "always", "tail": "greater",
                          "seed": 1111, "ddof": 1},
        "mind-your-bias": {"n_samples": 10_000, "replacement": "if_fewer", "tail": "two-sided",
                           "seed": 1111, "ddof": 1},
    },
    "same": {
        "same-paper": {"multi": "norm", "stereotype": "eq45", "sign": "first"},
        "same-code": {"multi": "code-sum", "stereotype": "std", "sign": "first"},
        "same-code-pre-2022-10": {"multi": "code-sum", "stereotype": "std", "sign": "second"},
    },
    # The options of the dicts these three methods kept before their conventions were presets.
    "gweat": {
        "paper": {"normalize": True, "center": "groups"},
        "ebs": {"normalize": True, "center": "groups"},
    },
    "indirect": {
        "paper": {"normalize": True, "min_explained_variance": None},
        "responsibly": {"normalize": True, "min_explained_variance": 0.5},
        "ebs": {"normalize": False, "min_explained_variance": None},
    },
    "gg": {
        "paper": {"tests": ("cluster", "classification", "neighbour"), "n_init": 10,
                  "normalize": True, "cv_folds": None, "metric": "cosine", "exclude_self": True},
        "responsibly": {"tests": ("cluster",), "n_init": 1, "normalize": True, "cv_folds": None,
                        "metric": "cosine", "exclude_self": True},
        "ebs": {"tests": ("cluster", "classification", "neighbour"), "n_init": 1,
                "normalize": False, "cv_folds": 5, "metric": "euclidean", "exclude_self": False},
    },
}

# kind -> (presets, class, the kind's word in the message)
KINDS = {
    "weat": (PRESETS, Convention, "convention"),
    "mleat": (MLEAT_PRESETS, MleatConvention, "ML-EAT convention"),
    "lpbs": (LPBS_PRESETS, LpbsConvention, "LPBS convention"),
    "ceat": (CEAT_PRESETS, CeatConvention, "CEAT convention"),
    "same": (SAME_PRESETS, SameConvention, "SAME convention"),
    "ripa": (RIPA_PRESETS, RipaConvention, "RIPA convention"),
    "rnd": (RND_PRESETS, RndConvention, "RND convention"),
    "rnsb": (RNSB_PRESETS, RnsbConvention, "RNSB convention"),
    "gweat": (GWEAT_PRESETS, GweatConvention, "generalized-WEAT convention"),
    "indirect": (INDIRECT_PRESETS, IndirectBiasConvention, "indirect-bias convention"),
    "gg": (GG_PRESETS, GonenGoldbergConvention, "Gonen & Goldberg convention"),
}
RESAMPLED = {"weat": BIASLIB, "mleat": MLEAT_BIASLIB, "lpbs": LPBS_BIASLIB}
ALTERNATIVES = {"tail": "less", "ties": "gt", "plus_one": False, "n_resamples": 77,
                "exact_limit": 5, "replacement": True, "seed": 9, "statistic": "sum"}


@pytest.mark.parametrize("kind", HEAD_PRESETS)
def test_every_preset_keeps_its_choices(kind):
    presets = KINDS[kind][0]
    assert set(presets) == set(HEAD_PRESETS[kind])
    for name, expected in HEAD_PRESETS[kind].items():
        record = presets[name].to_dict()
        assert record == {"name": name, **expected, "description": presets[name].description}
        # Key order too: the provenance JSONs list the choices in this order.
        assert list(record) == ["name", *expected, "description"]
        for field_name, value in expected.items():  # the old attribute reads
            assert getattr(presets[name], field_name) == value, (kind, name, field_name)


def _stored_convention_records():
    for path in sorted((ROOT / "data" / "results").glob("*.json")):
        stack = [json.loads(path.read_text(encoding="utf-8"))]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if "name" in node and "description" in node and (
                        "ddof" in node or "multi" in node):
                    yield path.name, node
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)


def test_stored_provenance_records_equal_the_presets_records():
    """What the registry's provenance builders write (conv.to_dict()) is byte for byte what
    the stored JSONs hold, so recomputing a table does not change its provenance."""
    seen, stale = 0, set()
    for file, stored in _stored_convention_records():
        kind = ("ceat" if isinstance(stored.get("replacement"), str)
                else "lpbs" if "sd_epsilon" in stored
                else "mleat" if "level1_tail" in stored else "weat")
        record = KINDS[kind][0][stored["name"]].to_dict()
        if json.dumps(record) != json.dumps(stored):
            stale.add(file)
        seen += 1
    assert seen >= 30
    # elmo_diagnostics.json was written before WEAT's n_samples became n_resamples and before
    # the statistic option; the code of the commit before Resampling did not match it either.
    assert stale == {"elmo_diagnostics.json"}


@pytest.mark.parametrize("kind", KINDS)
def test_one_lookup_for_every_kind(kind):
    presets, cls, word = KINDS[kind]
    lookup = cls.of
    assert cls.presets is presets  # the module's table is the class's
    for name, conv in presets.items():
        assert lookup(name) is conv
        assert lookup(conv) is conv
        assert isinstance(conv, cls) and isinstance(conv, ConventionBase)
    modified = next(iter(presets.values())).replace(name="mine")
    assert lookup(modified) is modified
    other = next(c for k, (p, _, _) in KINDS.items() if k != kind for c in p.values())
    for bad in ("nope", ["x"], 3, None, other):
        with pytest.raises(UnknownNameError) as info:
            lookup(bad)
        message = str(info.value)
        assert message.startswith(f"unknown {word} "), message
        for name in presets:
            assert repr(name) in message
        assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    with pytest.raises(UnknownNameError, match=rf"a {cls.__name__}, got {type(other).__name__}"
                                               rf"\) '{other.name}'"):
        lookup(other)


@pytest.mark.parametrize("kind", KINDS)
def test_replace_marks_the_name_for_every_kind(kind):
    conv = next(iter(KINDS[kind][0].values()))
    assert conv.replace().name == conv.name + "*"
    assert conv.replace(name="x").name == "x"
    assert conv.replace(name="x", description="d").description == "d"


@pytest.mark.parametrize("kind", RESAMPLED)
def test_options_read_and_replace_through_resampling(kind):
    conv = RESAMPLED[kind]
    assert isinstance(conv, PermutationConvention)
    fixed = type(conv).set_by_method
    for option in OPTION_NAMES:
        if option in fixed:
            with pytest.raises(AttributeError, match=option):
                getattr(conv, option)
            with pytest.raises(ValueError, match=option):
                conv.replace(**{option: ALTERNATIVES[option]})
            continue
        assert getattr(conv, option) == getattr(conv.resampling, option)
        changed = conv.replace(**{option: ALTERNATIVES[option]})
        assert getattr(changed, option) == ALTERNATIVES[option]
        assert changed.resampling == conv.resampling.replace(**{option: ALTERNATIVES[option]})
        assert changed.name == conv.name + "*"
        # Everything else is kept.
        assert dataclasses.replace(changed, name=conv.name, resampling=conv.resampling) == conv
    # A new resampling and an option on top of it: the option wins.
    base = Resampling(n_resamples=50, exact_limit=None, tail=conv.resampling.tail)
    both = conv.replace(resampling=base, seed=3)
    assert both.resampling == base.replace(seed=3)
    with pytest.raises(AttributeError, match="no attribute 'n_permutations'"):
        conv.n_permutations  # noqa: B018


def test_options_set_by_the_method_keep_their_defaults():
    with pytest.raises(ValueError, match="level1_tail"):
        MleatConvention("x", resampling=Resampling(tail="less"))
    with pytest.raises(ValueError, match="without replacement"):
        LpbsConvention("x", resampling=Resampling(replacement=True))
    with pytest.raises(ValueError, match=r"cannot change \['statistic'\]: LPBS tests"):
        LPBS_KURITA.replace(statistic="sum")


def test_mleat_gets_the_exact_split_limit():
    # Before Resampling, MleatConvention let an exact_limit above MAX_EXACT_SPLITS through.
    with pytest.raises(ValueError, match="exact_limit"):
        MLEAT_BIASLIB.replace(exact_limit=MAX_EXACT_SPLITS + 1)
    with pytest.raises(ValueError, match="normal approximation"):
        MLEAT_PAPER_CODE.replace(replacement=True)


def _recording(monkeypatch):
    calls = []

    def record(x, y, **kwargs):
        calls.append(kwargs)
        return permutation_test(x, y, **kwargs)

    monkeypatch.setattr(resampling_module, "permutation_test", record)
    return calls


WEAT_OPTIONS = ("tail", "ties", "plus_one", "n_resamples", "exact_limit", "replacement", "seed",
                "statistic")


@pytest.mark.parametrize("name", HEAD_PRESETS["weat"])
def test_weat_passes_the_presets_options(monkeypatch, name):
    calls = _recording(monkeypatch)
    weat(*sets(), convention=PRESETS[name])
    expected = {k: HEAD_PRESETS["weat"][name][k] for k in WEAT_OPTIONS}
    normal = HEAD_PRESETS["weat"][name]["p_method"] == "normal"
    assert calls == [{**expected, "keep_distribution": normal}]


@pytest.mark.parametrize("name", HEAD_PRESETS["lpbs"])
def test_lpbs_passes_the_presets_options(monkeypatch, name):
    calls = _recording(monkeypatch)
    a = np.array([[1.0, 1.2, 0.9], [0.8, 1.1, 1.0]])
    b = np.array([[0.1, -0.2, 0.0], [0.2, 0.1, -0.1]])
    lpbs_test(a, b, convention=LPBS_PRESETS[name].replace(n_resamples=200))
    head = HEAD_PRESETS["lpbs"][name]
    expected = {k: head[k] for k in ("tail", "ties", "plus_one", "exact_limit", "seed")}
    assert calls == [{**expected, "n_resamples": 200, "replacement": False, "statistic": "mean",
                      "keep_distribution": False}]


def test_myb_reddit_statistics_passes_its_options(monkeypatch):
    calls = _recording(monkeypatch)
    myb_reddit_statistics([0.1, 0.4, 0.3], [0.2, -0.1, 0.0],
                          resampling=LPBS_MIND_YOUR_BIAS.resampling.replace(n_resamples=300,
                                                                            seed=5))
    assert calls == [{"tail": "two-sided", "ties": "gt", "plus_one": False, "n_resamples": 300,
                      "exact_limit": None, "replacement": False, "seed": 5, "statistic": "mean",
                      "keep_distribution": False}]


@pytest.mark.parametrize("name", HEAD_PRESETS["mleat"])
def test_mleat_passes_the_presets_options(monkeypatch, name):
    calls = _recording(monkeypatch)
    X, Y, A, B = sets(4, 4, 3, d=6)
    ml_eat(X, Y, A, B, convention=MLEAT_PRESETS[name])
    head = HEAD_PRESETS["mleat"][name]
    expected = {k: head[k] for k in ("ties", "plus_one", "n_resamples", "exact_limit",
                                     "replacement", "seed")}
    if head["p_method"] == "normal":  # one null per test, both tails read off its normal fit
        allowed = [{**expected, "tail": "greater", "statistic": "mean",
                    "keep_distribution": True}]
    else:
        allowed = [{**expected, "tail": head["level1_tail"], "statistic": "mean",
                    "keep_distribution": False}]
        assert head["level1_tail"] == head["level2_tail"]
    assert calls and all(call in allowed for call in calls)


@pytest.mark.parametrize("kind", KINDS)
def test_conventions_copy_pickle_and_hash(kind):
    import copy
    import pickle

    for conv in KINDS[kind][0].values():
        for clone in (pickle.loads(pickle.dumps(conv)), copy.deepcopy(conv), copy.copy(conv)):
            assert clone == conv and hash(clone) == hash(conv)
            assert clone.to_dict() == conv.to_dict()
        with pytest.raises(dataclasses.FrozenInstanceError):
            conv.name = "other"  # type: ignore[misc]


def test_presets_are_declared_once_per_class():
    with pytest.raises(ValueError, match="has its presets already"):
        RipaConvention.declare_presets(RipaConvention("x"))
    assert ConventionBase.presets == {} and ConventionBase.of.__func__ is Convention.of.__func__


def test_declare_presets_refuses_what_is_not_a_preset_of_the_class():
    @dataclasses.dataclass(frozen=True)
    class Toy(ConventionBase):
        kind = "toy convention"

    with pytest.raises(TypeError, match="a preset of Toy"):
        Toy.declare_presets(RipaConvention("x"))
    with pytest.raises(ValueError, match=r"two presets named \['a'\]"):
        Toy.declare_presets(Toy("a"), Toy("a"))
    with pytest.raises(ValueError, match="no presets"):
        Toy.declare_presets()
    with pytest.raises(UnknownNameError, match=r"unknown toy convention 'a'; known: \[\]"):
        Toy.of("a")
    table = Toy.declare_presets(Toy("a"), Toy("b"))
    assert list(table) == ["a", "b"] and Toy.of("b") is table["b"]
    with pytest.raises(TypeError):
        table["c"] = Toy("c")  # type: ignore[index]  # read-only
