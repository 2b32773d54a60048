"""The association test's roles and Mind Your Bias's equal-size subsampling."""

import numpy as np
import pytest

from biaslib.stats.sets import ROLES, equal_size_indices


def test_roles_are_the_four_sets_in_order():
    assert ROLES == ("X", "Y", "A", "B")


@pytest.mark.parametrize(("n_x", "n_y"), [(5, 5), (3, 8), (8, 3), (1, 4)])
def test_equal_size_indices_keeps_the_smaller_set_whole(n_x, n_y):
    keep_x, keep_y = equal_size_indices(n_x, n_y, seed=7)
    n = min(n_x, n_y)
    assert len(keep_x) == len(keep_y) == n
    smaller, larger, size = (keep_x, keep_y, n_y) if n_x <= n_y else (keep_y, keep_x, n_x)
    assert smaller.tolist() == list(range(n))
    assert len(set(larger.tolist())) == n and larger.min() >= 0 and larger.max() < size
    assert (np.diff(larger) > 0).all()  # sorted: the kept words keep their order


def test_equal_size_indices_is_the_seeded_draw_without_replacement():
    keep_x, keep_y = equal_size_indices(6, 2, seed=3)
    expected = np.sort(np.random.default_rng(3).choice(6, size=2, replace=False))
    assert keep_x.tolist() == expected.tolist() and keep_y.tolist() == [0, 1]
    assert equal_size_indices(6, 2, seed=3)[0].tolist() == keep_x.tolist()
