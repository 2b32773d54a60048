"""The four sets of an association test, and how two of them are cut to one size.

Every association test (WEAT and with it SEAT and w-SEAT, CEAT, ML-EAT) is
made of four sets: targets X and Y, attributes A and B (:data:`ROLES`). The
stimulus tests in :mod:`biaslib.stimuli` are keyed by these roles, the
encoders in :mod:`biaslib.embeddings` return vectors by them, and the methods
in :mod:`biaslib.methods` compute on them; Mind Your Bias's policy for unequal
target sets (:func:`equal_size_indices`) is applied both by the WEAT
(:mod:`biaslib.methods.weat`) and when an embedded test is cut before it is
tested (:meth:`biaslib.embeddings.base.EmbeddedTest.equal_sized`).

Why here, in the bottom layer: the three layers that use these names may not
import one another in both directions (methods sits below stimuli and
embeddings), so the names belong below all of them. Neither knows anything
about words or models: the roles are the labels of four sets, and the
subsampling is index arithmetic with a seeded generator.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["ROLES", "equal_size_indices"]

#: The four sets of every association test: targets X and Y, attributes A and B.
ROLES = ("X", "Y", "A", "B")


def equal_size_indices(
    n_x: int, n_y: int, seed: int | None
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Row indices that subsample the larger of two target sets to the smaller size.

    Mind Your Bias's policy for unequal target sets (CONVENTIONS.md); drawn
    without replacement from ``numpy.random.default_rng(seed)`` and returned
    sorted, so the kept words keep their order. Equal sizes keep every row.

    Examples
    --------
    >>> keep_x, keep_y = equal_size_indices(3, 5, seed=0)
    >>> keep_x.tolist(), len(keep_y), bool((keep_y[:-1] < keep_y[1:]).all())
    ([0, 1, 2], 3, True)
    """
    keep_x, keep_y = np.arange(n_x), np.arange(n_y)
    n = min(n_x, n_y)
    rng = np.random.default_rng(seed)
    if n_x > n:
        keep_x = np.sort(rng.choice(n_x, size=n, replace=False))
    elif n_y > n:
        keep_y = np.sort(rng.choice(n_y, size=n, replace=False))
    return keep_x, keep_y
