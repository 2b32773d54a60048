"""Stored results tables (data/results) must match what the code computes today.

Each table is recomputed on a small fixed slice and compared; the weights
fingerprints in each table must be those of the installed models, so a table
computed with other weights fails here instead of being shown as current.
"""

import numpy as np
import pandas as pd
import pytest

from biasbook.published import MYB_TABLE3
from biasbook.registry import get_table
from biasbook.stored import NUMBER_TOLERANCE, compare_with_stored, load_results
from biaslib.errors import StoredTableMismatch
from biaslib.stats.conventions import MIND_YOUR_BIAS

# --------------------------------------------------------------------------- the comparison


STORED = pd.DataFrame({"test": ["C1", "C2", "C3"], "d": [0.5, -0.001, np.nan],
                       "p": [0.01, 0.5, np.nan], "note": ["", "", "not run: too few"]})


def test_compare_with_stored_accepts_float_noise_and_reports_no_differences():
    fresh = STORED.assign(d=STORED["d"] + [3e-7, -3e-7, np.nan], p=STORED["p"] + [2e-5, 0, 0])
    summary = compare_with_stored(fresh, STORED, ["test"], exact=["note"], numbers=["d"],
                                  p_values=["p"])
    assert list(summary["column"]) == ["note", "d", "p"]
    assert summary["within tolerance"].all() and (summary["rows"] == 3).all()
    assert summary.loc[1, "tolerance"] == str(NUMBER_TOLERANCE)


@pytest.mark.parametrize(("column", "value"), [("d", 0.5002), ("p", 0.012), ("note", "x"),
                                               ("d", np.nan)])
def test_compare_with_stored_refuses_a_real_difference(column, value):
    fresh = STORED.copy()
    fresh.loc[0, column] = value
    with pytest.raises(StoredTableMismatch, match=column):
        compare_with_stored(fresh, STORED, ["test"], exact=["note"], numbers=["d"],
                            p_values=["p"])


def test_compare_with_stored_refuses_rows_the_table_lacks_and_unknown_columns():
    fresh = pd.concat([STORED, STORED.iloc[:1].assign(test="C4")])
    with pytest.raises(StoredTableMismatch, match="lacks 1 rows"):
        compare_with_stored(fresh, STORED, ["test"], numbers=["d"])
    with pytest.raises(KeyError, match="effect_size"):
        compare_with_stored(STORED, STORED, ["test"], numbers=["effect_size"])


# --------------------------------------------------------------------------- stored tables


def test_seat_may_slice():
    # C6 words and sentences, DB-likable unbleached (seat.SEAT_MAY_SLICE); the
    # encoders are built once for both tables.
    stored, meta = load_results("seat_may")
    assert meta["convention"]["name"] == MIND_YOUR_BIAS.name
    (fresh,) = get_table("seat_may").check_slices(stored)
    # A fresh computation has the stored table's columns, core columns first (issue 19).
    assert list(fresh.columns) == list(stored.columns)


def test_seat_myb_slice():
    # Mind Your Bias's C9 (seat.SEAT_MYB_SLICE).
    stored, meta = load_results("seat_myb")
    assert meta["tests"] == MYB_TABLE3
    (fresh,) = get_table("seat_myb").check_slices(stored)
    assert list(fresh.columns) == list(stored.columns)
    assert set(fresh["test"]) == {"C9"} and set(fresh["stimuli"]) == {MYB_TABLE3["C9"]}


@pytest.mark.parametrize("name", ["seat_may", "seat_myb"])
def test_provenance_names_every_model(name):
    stored, meta = load_results(name)
    assert set(meta["models"]) == set(stored["column"])
    for info in meta["models"].values():
        assert info["weights"] in set(stored["weights"])
