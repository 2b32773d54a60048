import numpy as np
import pytest

from biaslib.stats.similarity import as_vectors, cosine_matrix, unit_rows


def test_cosine_matrix_hand_values():
    u = np.array([[1.0, 0.0], [1.0, 1.0]])
    v = np.array([[0.0, 2.0], [-3.0, 0.0]])
    expected = np.array([[0.0, -1.0], [1 / np.sqrt(2), -1 / np.sqrt(2)]])
    assert cosine_matrix(u, v) == pytest.approx(expected)


def test_cosine_matrix_is_clipped():
    u = np.array([[1e-3, 1e-3, 1e-3]])
    assert cosine_matrix(u, u).max() <= 1.0


def test_unit_rows():
    rows = unit_rows(np.array([[3.0, 4.0], [0.0, -2.0]]))
    assert np.linalg.norm(rows, axis=1) == pytest.approx(1)


@pytest.mark.parametrize(
    ("arr", "message"),
    [
        (np.zeros((0, 3)), "is empty"),
        (np.zeros((2, 0)), "dimension 0"),
        (np.ones(3), "2-D"),
        (np.array([[1.0, np.inf]]), "NaN or infinite"),
        (np.array([[1.0, 1.0], [0.0, 0.0]]), r"rows \[1\] are zero vectors"),
    ],
)
def test_as_vectors_rejects(arr, message):
    with pytest.raises(ValueError, match=message):
        as_vectors(arr, "S")
