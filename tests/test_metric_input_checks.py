"""RND, ECT, the generalized WEAT and RNSB refuse a group compared with itself, as WEAT does.

WEAT's rule (``biaslib.methods.weat.weat``): X and Y holding the same vectors, in any
order, is a :class:`~biaslib.errors.DegenerateTestError` — d = 0 and p = 1 would read as a
measured absence of bias. The same holds for RND (0), ECT (ρ = 1), the generalized WEAT
(0 with two groups) and RNSB (A = B: every probability 0.5). Random sets: identical
groups (shuffled) are always refused; distinct groups are never refused for that reason.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biaslib.errors import DegenerateTestError
from biaslib.methods.ect import ect
from biaslib.methods.gweat import generalized_weat
from biaslib.methods.rnd import rnd
from biaslib.methods.rnsb import RNSB_BIASLIB, rnsb
from biaslib.methods.weat import weat

SAME = r"are the same vectors \(in some order"
ALL_WORDS = RNSB_BIASLIB.replace(test_size=0.0)  # small random sets: no holdout


def _sets(seed: int, *sizes: int, d: int = 4) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, d)) for n in sizes]


def _shuffled(rows: np.ndarray, seed: int) -> np.ndarray:
    return rows[np.random.default_rng(seed).permutation(len(rows))].copy()


# Each metric, called with two groups (g1, g2) and its other sets drawn from `others`.
METRICS = {
    "RND": lambda g1, g2, o: rnd(o[0], g1, g2),
    "RND cos, not normalised": lambda g1, g2, o: rnd(o[0], g1, g2, distance="cos",
                                                     normalize=False),
    "ECT": lambda g1, g2, o: ect(o[0], g1, g2),
    "ECT normalised": lambda g1, g2, o: ect(o[0], g1, g2, normalize=True),
    "generalized WEAT targets": lambda g1, g2, o: generalized_weat([g1, g2], [o[0], o[1]]),
    "generalized WEAT attributes": lambda g1, g2, o: generalized_weat([o[0], o[1]], [g1, g2]),
    "RNSB groups": lambda g1, g2, o: rnsb([g1, g2], o[0], o[1], convention=ALL_WORDS),
    "RNSB attributes": lambda g1, g2, o: rnsb([o[0], o[1]], g1, g2, convention=ALL_WORDS),
}


def _call(name, g1, g2, others):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a random lexicon may not converge: not the point here
        return METRICS[name](g1, g2, others)


@pytest.mark.parametrize("name", METRICS)
def test_the_same_rule_as_weat(name):
    X, A, B, W, V = _sets(0, 5, 6, 6, 7, 7)
    with pytest.raises(DegenerateTestError, match=SAME):
        weat(X, _shuffled(X, 1), A, B)
    with pytest.raises(DegenerateTestError, match=SAME) as info:
        _call(name, X, _shuffled(X, 1), [W, V])
    assert "pass" in str(info.value)  # says what to do
    _call(name, X, A, [W, V])  # different groups: a number


def test_more_than_two_groups():
    a, b, c, d, e, f = _sets(1, 3, 4, 5, 4, 4, 4)
    with pytest.raises(DegenerateTestError, match=r"target sets 0 and 2 are the same"):
        generalized_weat([a, b, _shuffled(a, 0)], [d, e, f])
    with pytest.raises(DegenerateTestError, match=r"attribute sets 1 and 2 are the same"):
        generalized_weat([a, b, c], [d, e, _shuffled(e, 0)])
    with pytest.raises(DegenerateTestError, match=r"groups 1 and 2 are the same"):
        rnsb([a, b, _shuffled(b, 2)], d, e, convention=ALL_WORDS)
    generalized_weat([a, b, c], [d, e, f])


def test_a_scaled_copy_is_another_group_as_for_weat():
    # WEAT's rule compares the vectors as given; a scaled copy is not refused by it (nor by
    # these metrics), whatever its unit-length rows round to.
    X, W, V = _sets(2, 4, 6, 6)
    weat(X, 3.0 * X, W, V)  # scores differ only by rounding: a number, not this error
    for name in METRICS:
        try:
            _call(name, X, 3.0 * X, [W, V])
        except DegenerateTestError as err:
            assert "same vectors" not in str(err), name


finite = st.floats(-10, 10, allow_nan=False).filter(lambda v: abs(v) > 1e-3)


@st.composite
def _groups(draw):
    n, d = draw(st.integers(2, 5)), draw(st.integers(2, 4))
    rows = draw(st.lists(st.lists(finite, min_size=d, max_size=d), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**16))
    X = np.array(rows)
    others = _sets(seed, 6, 6, d=d)
    others = [o + np.eye(d)[0] * (3 if i else -3) for i, o in enumerate(others)]
    return X, others, seed


@settings(max_examples=25, deadline=None)
@given(case=_groups(), name=st.sampled_from(sorted(METRICS)))
def test_identical_groups_are_always_refused(case, name):
    X, others, seed = case
    with pytest.raises(DegenerateTestError, match=SAME):
        _call(name, X, _shuffled(X, seed), others)


@settings(max_examples=25, deadline=None)
@given(case=_groups(), name=st.sampled_from(sorted(METRICS)), row=st.integers(0, 4),
       shift=st.floats(1e-6, 1.0))
def test_distinct_groups_are_never_refused_as_identical(case, name, row, shift):
    X, others, seed = case
    Y = _shuffled(X, seed)
    Y[row % len(Y)] *= 1.0 + shift  # one vector differs (in length; for RND and ECT
    Y[row % len(Y), 0] += shift      # not normalised, in direction too)
    try:
        _call(name, X, Y, others)
    except DegenerateTestError as err:  # other degeneracies (constant cosines) may happen
        assert "same vectors" not in str(err)
