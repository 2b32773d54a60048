import numpy as np
import pytest

from biaslib.stats.multiple_testing import holm_bonferroni


def holm_by_hand(p, alpha):
    """Direct step-down implementation, independent of statsmodels."""
    p = np.asarray(p)
    m = p.size
    order = np.argsort(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted <= alpha, adjusted


def test_hand_worked_example():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, max(0.06, 0.04*1) = 0.06
    reject, adjusted = holm_bonferroni([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert reject.tolist() == [True, False, False, True]


@pytest.mark.parametrize("seed", range(5))
def test_matches_direct_implementation(seed):
    p = np.random.default_rng(seed).uniform(0, 0.05, size=30) ** 2
    reject, adjusted = holm_bonferroni(p, alpha=0.01)
    exp_reject, exp_adjusted = holm_by_hand(p, 0.01)
    assert adjusted == pytest.approx(exp_adjusted)
    assert reject.tolist() == exp_reject.tolist()


def test_never_rejects_more_than_unadjusted():
    p = np.linspace(0.0001, 0.02, 40)
    reject, adjusted = holm_bonferroni(p, alpha=0.01)
    assert reject.sum() <= (p <= 0.01).sum()
    assert (adjusted >= p).all()


@pytest.mark.parametrize("bad", [[], [0.5, np.nan], [1.2], [-0.1]])
def test_bad_p_values(bad):
    with pytest.raises(ValueError):
        holm_bonferroni(bad)
