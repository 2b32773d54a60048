"""Cosine similarity between sets of vectors, with the input checks every metric needs.

All association metrics in the book (WEAT, SEAT, CEAT, ML-EAT, SAME) start from
cosine similarities between a set of target vectors and a set of attribute
vectors. Bad input is rejected here, once, with a message that names the set:
a zero vector has no direction (its cosine is 0/0), and a NaN or infinite entry
would silently turn every downstream number into NaN — WEFE's issue #21 is the
cautionary example.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["as_vectors", "cosine_matrix", "same_vectors", "unit_rows"]


def as_vectors(vectors: ArrayLike, name: str = "vectors") -> NDArray[np.float64]:
    """Validate a set of embedding vectors and return it as a float64 matrix.

    Parameters
    ----------
    vectors
        Array of shape ``(n, d)`` with one vector per row.
    name
        Name of the set, used in error messages (e.g. ``"X"`` or ``"Flowers"``).

    Returns
    -------
    numpy.ndarray
        The vectors as a ``float64`` array of shape ``(n, d)``.

    Raises
    ------
    TypeError
        If the values are complex (casting would drop the imaginary part) or
        not numbers at all.
    ValueError
        If the array is ragged or not two-dimensional, has no rows or no columns, contains
        NaN or infinite values, or contains a zero vector (whose cosine
        similarity is undefined).
    """
    try:
        raw = np.asarray(vectors)
    except ValueError:  # numpy's "inhomogeneous shape", which names no set
        raise ValueError(f"set {name!r} is ragged: its vectors have different lengths; every "
                         "vector of a set needs the same dimension") from None
    if np.iscomplexobj(raw):
        raise TypeError(f"set {name!r}: complex vectors; cosine similarity needs real numbers")
    if raw.dtype.kind not in "biuf":
        raise TypeError(f"set {name!r}: expected numbers, got an array of {raw.dtype}")
    arr = raw.astype(np.float64)
    if arr.ndim != 2:
        raise ValueError(
            f"set {name!r}: expected a 2-D array (n_vectors, dim), got shape {arr.shape}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"set {name!r} is empty: a test needs at least one vector per set")
    if arr.shape[1] == 0:
        raise ValueError(f"set {name!r}: vectors have dimension 0")
    bad_rows = np.flatnonzero(~np.isfinite(arr).all(axis=1))
    if bad_rows.size:
        raise ValueError(
            f"set {name!r}: rows {bad_rows.tolist()} contain NaN or infinite values"
        )
    zero_rows = np.flatnonzero(~arr.any(axis=1))
    if zero_rows.size:
        raise ValueError(
            f"set {name!r}: rows {zero_rows.tolist()} are zero vectors; "
            "cosine similarity is undefined"
        )
    return arr


def same_vectors(first: NDArray[np.float64], second: NDArray[np.float64]) -> bool:
    """Whether two ``(n, d)`` sets hold the same vectors, counted with multiplicity, in any order.

    A test of a set against itself (X = Y) measures nothing; its d = 0 and
    p = 1 would read as a measured absence of bias, so the methods refuse it.

    Examples
    --------
    >>> same_vectors(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[0.0, 1.0], [1.0, 0.0]]))
    True
    >>> same_vectors(np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    False
    """
    if first.shape != second.shape:
        return False

    def rows_sorted(a: NDArray[np.float64]) -> NDArray[np.float64]:
        return a[np.lexsort(a.T[::-1])]

    return bool(np.array_equal(rows_sorted(first), rows_sorted(second)))


def unit_rows(vectors: ArrayLike, name: str = "vectors") -> NDArray[np.float64]:
    """Return the rows of ``vectors`` scaled to unit Euclidean norm (after validation).

    Each row is first divided by its largest absolute entry, so that the norm
    neither overflows (entries near 1e300) nor underflows (entries near
    1e-300): a cosine does not depend on a vector's scale, and neither does
    this function's result, over the whole float64 range.
    """
    arr = as_vectors(vectors, name)
    arr = arr / np.abs(arr).max(axis=1, keepdims=True)
    return arr / np.linalg.norm(arr, axis=1, keepdims=True)


def cosine_matrix(
    left: ArrayLike, right: ArrayLike, left_name: str = "left", right_name: str = "right"
) -> NDArray[np.float64]:
    r"""Cosine similarities between every row of ``left`` and every row of ``right``.

    .. math:: C_{ij} = \frac{u_i \cdot v_j}{\lVert u_i \rVert \, \lVert v_j \rVert}

    Parameters
    ----------
    left, right
        Arrays of shape ``(n, d)`` and ``(m, d)``.
    left_name, right_name
        Set names for error messages.

    Returns
    -------
    numpy.ndarray
        Matrix of shape ``(n, m)``; entries are clipped to ``[-1, 1]`` to remove
        rounding overshoot.
    """
    u = unit_rows(left, left_name)
    v = unit_rows(right, right_name)
    if u.shape[1] != v.shape[1]:
        raise ValueError(
            f"sets {left_name!r} and {right_name!r} have different dimensions "
            f"({u.shape[1]} vs {v.shape[1]})"
        )
    return np.clip(u @ v.T, -1.0, 1.0)
