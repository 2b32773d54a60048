"""Stored results tables (data/results) must match what the code computes today.

Each table is recomputed on a small fixed slice and compared; the weights
fingerprints in each table must be those of the installed models, so a table
computed with other weights fails here instead of being shown as current.
"""

import pandas as pd
import pytest

from biaslib.conventions import MIND_YOUR_BIAS
from biaslib.results import load_results
from biaslib.seat import MYB_TABLE3, OFFLINE_SEAT_MODELS, may_table, myb_table

MAY_SLICE = (("C6", "word"), ("C6", "sent"), ("DB-likable", "sent (u)"))
MYB_SLICE = {"C9": MYB_TABLE3["C9"]}


def compare(stored: pd.DataFrame, fresh: pd.DataFrame, keys: list[str]) -> None:
    merged = fresh.merge(stored, on=keys, suffixes=("", "_stored"), validate="one_to_one")
    assert len(merged) == len(fresh), "the stored table lacks rows of the slice"
    for col in ("model", "weights"):
        assert (merged[col] == merged[f"{col}_stored"]).all(), col
    for col in ("n_x", "n_y", "n_a", "n_b"):
        assert (merged[col] == merged[f"{col}_stored"]).all(), col
    pd.testing.assert_series_equal(merged["effect_size"], merged["effect_size_stored"],
                                   check_names=False, rtol=1e-4)
    pd.testing.assert_series_equal(merged["p_value"], merged["p_value_stored"],
                                   check_names=False, atol=1e-3)


@pytest.fixture(scope="module")
def offline_models():
    # Build each encoder once for both tables.
    from biaslib.seat import SeatModel

    return [SeatModel(m.label, (lambda enc: lambda: enc)(m.make()), m.sentence_pooling,
                      m.word_pooling) for m in OFFLINE_SEAT_MODELS]


def test_seat_may_slice(offline_models):
    stored, meta = load_results("seat_may")
    assert meta["convention"]["name"] == MIND_YOUR_BIAS.name
    fresh = may_table(offline_models, MAY_SLICE, MIND_YOUR_BIAS, progress=False)
    compare(stored, fresh, ["column", "test", "context"])


def test_seat_myb_slice(offline_models):
    stored, meta = load_results("seat_myb")
    assert meta["tests"] == MYB_TABLE3
    fresh = myb_table(offline_models, MYB_SLICE, MIND_YOUR_BIAS, progress=False)
    compare(stored, fresh, ["column", "method", "myb_test"])


@pytest.mark.parametrize("name", ["seat_may", "seat_myb"])
def test_provenance_names_every_model(name):
    stored, meta = load_results(name)
    assert set(meta["models"]) == set(stored["column"])
    for info in meta["models"].values():
        assert info["weights"] in set(stored["weights"])
