"""The one resampling options object: its checks, and the helper that passes it on whole."""

import dataclasses
import inspect
import math

import numpy as np
import pytest

import biaslib.stats.resampling as resampling_module
from biaslib.stats.permutation import MAX_EXACT_SPLITS, PermutationResult, permutation_test
from biaslib.stats.resampling import MAX_RESAMPLES, OPTION_NAMES, Resampling, resampled_test

# A value other than the default for every option, all valid together.
OTHER_VALUES = {"tail": "two-sided", "ties": "gt", "plus_one": False, "n_resamples": 321,
                "exact_limit": None, "replacement": True, "seed": 7, "statistic": "sum"}


def scores(n_x, n_y, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(0.1, 0.05, n_x), rng.normal(0.08, 0.05, n_y)


def as_tuple(res: PermutationResult):
    return (res.statistic, res.p_value, res.method, res.n_resamples, res.n_extreme, res.tail,
            res.ties, res.plus_one, res.statistic_kind)


# --------------------------------------------------------------------------- checks


@pytest.mark.parametrize("bad", [
    {"tail": "upper"}, {"tail": ["greater"]}, {"ties": "eq"}, {"statistic": "median"},
    {"n_resamples": 0}, {"n_resamples": -5}, {"n_resamples": MAX_RESAMPLES + 1},
    {"exact_limit": -1}, {"exact_limit": MAX_EXACT_SPLITS + 1}, {"seed": -1},
])
def test_bad_values_raise_value_error_naming_the_option(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        Resampling(**bad)


@pytest.mark.parametrize("bad", [
    {"plus_one": "no"}, {"plus_one": 1}, {"plus_one": None}, {"replacement": "False"},
    {"replacement": 0}, {"n_resamples": 1e5}, {"n_resamples": "100"}, {"n_resamples": True},
    {"exact_limit": 1e5}, {"exact_limit": True}, {"seed": 1.5}, {"seed": "1"},
])
def test_wrongly_typed_values_raise_type_error_naming_the_option(bad):
    with pytest.raises(TypeError, match=next(iter(bad))):
        Resampling(**bad)


def test_the_limits_themselves_are_allowed():
    assert Resampling(n_resamples=MAX_RESAMPLES).n_resamples == MAX_RESAMPLES
    assert Resampling(exact_limit=MAX_EXACT_SPLITS).exact_limit == MAX_EXACT_SPLITS
    assert Resampling(exact_limit=0, seed=0, n_resamples=1).exact_limit == 0
    assert Resampling(exact_limit=None, seed=None).seed is None


def test_the_resample_bound_message_says_why():
    with pytest.raises(ValueError, match=r"at most 100,000,000"):
        Resampling(n_resamples=MAX_RESAMPLES + 1)


def test_numpy_scalars_are_stored_as_python_values():
    options = Resampling(n_resamples=np.int64(500), exact_limit=np.int32(20), seed=np.uint8(3),
                         plus_one=np.bool_(False), replacement=np.bool_(True))
    assert [type(getattr(options, k)) for k in
            ("n_resamples", "exact_limit", "seed", "plus_one", "replacement")] == [
        int, int, int, bool, bool]
    same = Resampling(n_resamples=500, exact_limit=20, seed=3, plus_one=False, replacement=True)
    assert options == same and hash(options) == hash(same)


def test_options_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Resampling().n_resamples = 10  # type: ignore[misc]


def test_replace_checks_again_and_refuses_unknown_names():
    options = Resampling(tail="two-sided")
    assert options.replace(seed=3) == Resampling(tail="two-sided", seed=3)
    assert options.replace() == options
    with pytest.raises(TypeError, match=r"unknown resampling option\(s\) \['n_permutations'\]"):
        options.replace(n_permutations=10)
    with pytest.raises(ValueError, match="exact_limit"):
        options.replace(exact_limit=MAX_EXACT_SPLITS + 1)
    with pytest.raises(TypeError, match="plus_one"):
        options.replace(plus_one="yes")


# --------------------------------------------------------------------------- one source of options


def test_the_options_are_permutation_tests_keywords_with_its_defaults():
    """Resampling's fields are the keyword arguments of permutation_test, with the same
    defaults: the helper can pass every field by name, and Resampling() is the test's default."""
    params = inspect.signature(permutation_test).parameters
    keywords = {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    # Every keyword is an option, except the one that is a property of the call.
    assert keywords - set(OPTION_NAMES) == {"keep_distribution"}
    assert set(OPTION_NAMES) <= keywords
    for f in dataclasses.fields(Resampling):
        assert f.default == params[f.name].default, f.name
    assert set(OTHER_VALUES) == set(OPTION_NAMES)


def test_the_helper_passes_every_field(monkeypatch):
    seen = {}

    def record(x, y, **kwargs):
        seen.update(kwargs)
        return "result"

    monkeypatch.setattr(resampling_module, "permutation_test", record)
    options = Resampling(**OTHER_VALUES)
    assert resampled_test([1.0], [2.0], options) == "result"
    assert seen == {**OTHER_VALUES, "keep_distribution": False}
    assert seen == {**options.as_kwargs(), "keep_distribution": False}
    seen.clear()
    resampled_test([1.0], [2.0], options, keep_distribution=True, tail="less")
    assert seen == {**OTHER_VALUES, "tail": "less", "keep_distribution": True}


@pytest.mark.parametrize("sizes, options", [
    ((5, 6), Resampling()),  # C(11, 5) = 462 splits: exact
    ((5, 6), Resampling(tail="two-sided", ties="gt")),
    ((5, 6), Resampling(exact_limit=100, n_resamples=999, seed=3)),  # 462 > 100: sampled
    ((20, 17), Resampling(n_resamples=2_000, plus_one=False, tail="less")),
    ((8, 12), Resampling(replacement=True, n_resamples=1_500, statistic="sum", seed=0,
                         ties="gt", tail="wefe-abs")),
    ((30, 30), Resampling(exact_limit=None, n_resamples=500, seed=None)),
])
def test_the_helper_equals_a_direct_call(sizes, options):
    x, y = scores(*sizes)
    ours = resampled_test(x, y, options)
    direct = permutation_test(
        x, y, tail=options.tail, ties=options.ties, plus_one=options.plus_one,
        n_resamples=options.n_resamples, exact_limit=options.exact_limit,
        replacement=options.replacement, seed=options.seed, statistic=options.statistic)
    if options.seed is None:  # fresh entropy: only what does not depend on the draws
        assert ours.method == direct.method and ours.n_resamples == direct.n_resamples
        return
    assert as_tuple(ours) == as_tuple(direct)
    exact = ours.method == "exact"
    assert exact == (not options.replacement and options.exact_limit is not None
                     and math.comb(sum(sizes), sizes[0]) <= options.exact_limit)


def test_overrides_equal_a_replaced_options_object():
    x, y = scores(12, 12, seed=4)
    base = Resampling(n_resamples=3_000, exact_limit=None)
    for tail in ("greater", "less", "two-sided"):
        over = resampled_test(x, y, base, tail=tail, keep_distribution=True)
        replaced = resampled_test(x, y, base.replace(tail=tail), keep_distribution=True)
        assert as_tuple(over) == as_tuple(replaced)
        assert np.array_equal(over.null_distribution, replaced.null_distribution)
    with pytest.raises(ValueError, match="tail"):
        resampled_test(x, y, base, tail="both")
    with pytest.raises(TypeError, match="unknown resampling option"):
        resampled_test(x, y, base, permutations=10)


def test_the_helper_refuses_loose_options():
    with pytest.raises(TypeError, match="options must be a Resampling"):
        resampled_test([1.0, 2.0], [3.0], {"tail": "greater"})  # type: ignore[arg-type]


def test_a_hand_computed_exact_p_value():
    # Three against three, all of X above all of Y: 1 of the C(6, 3) = 20 splits is as
    # extreme one-sided (p = 1/20), the observed and its mirror two-sided (2/20).
    x, y = [0.9, 0.8, 0.7], [0.1, 0.2, 0.3]
    assert resampled_test(x, y, Resampling()).p_value == 1 / 20
    assert resampled_test(x, y, Resampling(tail="two-sided")).p_value == 2 / 20
    # Strict ties and no +1 change nothing exact here; sampled, +1 gives (k+1)/(m+1).
    res = resampled_test(x, y, Resampling(exact_limit=None, n_resamples=999))
    assert res.p_value == (res.n_extreme + 1) / 1_000
    res = resampled_test(x, y, Resampling(exact_limit=None, n_resamples=999, plus_one=False))
    assert res.p_value == res.n_extreme / 999
