"""The WEAT-on-static-embeddings chapter: its stored GloVe table, its findings, its tables."""

from pathlib import Path

import numpy as np
import pandas as pd

from biasbook import weat_static
from biasbook.findings import findings_frame
from biasbook.registry import get_table
from biasbook.stored import load_results
from biaslib.stats.conventions import BIASLIB
from biaslib.stimuli.data import load_published

ROOT = Path(__file__).resolve().parents[1]


def test_stored_glove_table_matches_a_fresh_slice():
    stored, meta = load_results(weat_static.GLOVE_TABLE)
    assert meta["convention"] == BIASLIB.to_dict()
    assert stored["test"].tolist() == list(weat_static.CALISKAN_TESTS)
    (fresh,) = get_table(weat_static.GLOVE_TABLE).check_slices(stored)
    assert list(fresh.columns) == list(stored.columns)
    assert fresh["test"].tolist() == list(weat_static.GLOVE_SLICE)


def test_findings_paper_and_last_verdict():
    found = weat_static.findings()
    assert {f.paper for f in found} == {"Caliskan et al. (2017)"}
    assert findings_frame(found)["holds?"].tolist()[-1] == "not comparable"


def test_findings_verdicts_match_a_hand_computation_from_the_stored_table():
    stored = load_results(weat_static.GLOVE_TABLE)[0].set_index("test")
    published = load_published("mleat_table1_glove").set_index("test")["l1_d"].astype(float)
    by_claim = {f.claim: f for f in weat_static.findings()}
    # Direction: every stored d has the published sign, test by test.
    signs = [np.sign(stored.loc[t, "effect_size"]) == np.sign(published[t])
             for t in weat_static.CALISKAN_TESTS]
    direction = by_claim["All ten biases have the direction Caliskan et al. found"]
    assert direction.holds is all(signs)
    assert direction.ours.startswith(f"{sum(signs)} of 10")
    # Size: the smallest stored d, named and rounded as printed.
    smallest = stored["effect_size"].idxmin()
    large = by_claim["The effects are large (d > 0.8)"]
    assert f"smallest {stored.loc[smallest, 'effect_size']:.2f} ({smallest})" in large.ours
    assert large.holds is bool((stored["effect_size"] > 0.8).all())
    # Significance: the count of stored p-values at most 0.05.
    significant = by_claim["All ten are significant"]
    assert significant.ours.startswith(f"{int((stored['p_value'] <= 0.05).sum())} of 10")


def test_dropped_stimuli_names_the_word_its_set_and_why():
    stored = load_results(weat_static.GLOVE_TABLE)[0]
    dropped = weat_static.dropped_stimuli(stored)
    assert dropped.index.tolist() == [("C1", "X")]
    row = dropped.loc[("C1", "X")]
    assert row["dropped"] == "gladiola" and row["of"] == 25 and "GloVe 6B 50d" in row["why"]
    # No word missing: an empty table with the same columns.
    empty = weat_static.dropped_stimuli(stored.assign(missing=""))
    assert empty.empty and list(empty.columns) == list(dropped.columns)


def test_comparison_table_shows_ours_first_and_stars_by_its_own_rule():
    stored = load_results(weat_static.GLOVE_TABLE)[0]
    table = weat_static.comparison_table(stored)
    assert table.index.tolist() == list(weat_static.CALISKAN_TESTS)
    assert list(table.columns[:2]) == ["d, ours", "p, ours"]
    # A made-up table: one test at p = 0.02 gets no star; one at 0.008 one star (Holm, ninth
    # smallest of ten: 0.008 > 0.01 / 2); the rest, at 1e-5, two stars.
    fake = stored.copy()
    fake["p_value"] = 1e-5
    fake.loc[fake["test"] == "C7", "p_value"] = 0.02
    fake.loc[fake["test"] == "C8", "p_value"] = 0.008
    marks = weat_static.ours_marks(fake.set_index("test"))
    assert marks["C7"] == "" and marks["C8"] == "*" and marks["C1"] == "**"
    assert isinstance(table, pd.DataFrame)


def test_every_preset_has_a_readable_name_and_no_two_share_one():
    from biaslib.stats.conventions import PRESETS

    assert set(weat_static.PRESET_NAMES) == set(PRESETS)
    names = list(weat_static.PRESET_NAMES.values())
    assert len(set(names)) == len(names) and all(names)
