"""The approximate CI of a standardised mean difference, against hand computation."""

import math

import numpy as np
import pytest

from biaslib.stats.effect_size_ci import d_confidence_interval


def test_d_confidence_interval_at_zero():
    lo, hi = d_confidence_interval(0.0, 10, 10)
    assert lo == pytest.approx(-1.959964 * np.sqrt(0.2), rel=1e-6) and hi == pytest.approx(-lo)
    assert np.isnan(d_confidence_interval(float("nan"), 10, 10)[0])
    with pytest.raises(ValueError):
        d_confidence_interval(0.5, 10, 10, confidence=1.0)


def test_d_confidence_interval_by_hand_with_unequal_sizes():
    # d = 0.8, n_x = 8, n_y = 12: Var = 20/96 + 0.64/40 = 0.2243333..., z(0.95) = 1.6448536269514722
    se = math.sqrt(20 / 96 + 0.64 / 40)
    lo, hi = d_confidence_interval(0.8, 8, 12, confidence=0.90)
    assert lo == pytest.approx(0.8 - 1.6448536269514722 * se, abs=1e-12)
    assert hi == pytest.approx(0.8 + 1.6448536269514722 * se, abs=1e-12)


def test_d_confidence_interval_needs_two_items_per_set():
    assert all(np.isnan(d_confidence_interval(0.5, 1, 10)))


def test_d_confidence_interval_widens_with_confidence_and_abs_d():
    narrow, wide = d_confidence_interval(0.5, 10, 10, 0.8), d_confidence_interval(0.5, 10, 10, 0.99)
    assert wide[0] < narrow[0] < 0.5 < narrow[1] < wide[1]
    small, large = d_confidence_interval(0.1, 10, 10), d_confidence_interval(1.5, 10, 10)
    assert small[1] - small[0] < large[1] - large[0]
