"""The ELMo-bug chapter's tables: helpers, and the stored tables against recomputed slices."""

import numpy as np
import pandas as pd
import pytest

from biaslib.chapters.elmo_bug import (
    CHAPTER_TABLES,
    bug_summary,
    chapter_table,
    distinct_vectors,
    elmo_beside_published,
    elmo_diagnostics,
    elmo_table,
    gpt2_table,
    quirk_table,
)
from biaslib.chapters.stored import compare_with_stored, load_results

# --------------------------------------------------------------------------- helpers


def test_distinct_vectors_counts_copies_that_differ_by_float_noise_once():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(3, 16))
    # Copies of each vector with last-bit noise, one entry straddling a rounding boundary
    # of the 4th decimal: rounding and np.unique would see two vectors there.
    base[0, 0] = 0.123450000
    copies = np.concatenate([base, base + rng.normal(scale=1e-7, size=base.shape)])
    copies[3, 0], copies[0, 0] = 0.1234499999, 0.1234500001
    assert len(np.unique(copies.round(4), axis=0)) == 4
    assert distinct_vectors(copies) == 3
    assert distinct_vectors(base[:1]) == 1
    assert distinct_vectors(np.eye(5)) == 5


def test_distinct_vectors_refuses_empty_input():
    with pytest.raises(ValueError, match="non-empty"):
        distinct_vectors(np.zeros((0, 4)))


def test_bug_summary_by_hand():
    d_bug = pd.Series([0.5, -0.2, 0.1, np.nan], index=list("abcd"))
    d_fix = pd.Series([1.0, 0.4, 0.2, 0.9], index=list("abcd"))
    p_bug = pd.Series([0.001, 0.5, 0.2, 0.0], index=list("abcd"))
    p_fix = pd.Series([0.0001, 0.01, 0.3, 0.0], index=list("abcd"))
    out = bug_summary(d_bug, d_fix, p_bug, p_fix)
    # d is missing for "d" under the bug, so three tests count.
    assert out == {"tests": 3, "sign flipped": 1, "mean |d| bug": round(0.8 / 3, 2),
                   "mean |d| fixed": round(1.6 / 3, 2),
                   "mean |d_bug - d_fixed|": round((0.5 + 0.6 + 0.1) / 3, 2),
                   "significant, bug": 1, "significant, fixed": 2}
    assert bug_summary(d_bug, d_fix)["significant, bug"] == "–"


def test_elmo_beside_published_says_undefined_and_leaves_unrun_cells_empty():
    rows = pd.DataFrame([
        {"column": "m", "variant": v, "method": "s-SEAT", "myb_test": "C1",
         "effect_size": d, "p_value": p, "not run": nr}
        for v, d, p, nr in (("bug", np.nan, np.nan, "undefined: all equal"),
                            ("fixed", 0.5, 0.001, ""))])
    table = elmo_beside_published(rows)
    assert list(table.index) == [("s-SEAT", "C1")]
    # Mind Your Bias, Table 3: ELMo s-SEAT C1, orig. (May et al.) and their fixed run.
    assert table.loc[("s-SEAT", "C1"), "m d, bug"] == "undefined"
    assert table.loc[("s-SEAT", "C1"), "m p, bug"] == ""
    assert table.loc[("s-SEAT", "C1"), "m d, fixed"] == "0.50"
    assert table.loc[("s-SEAT", "C1"), "m p, fixed"] == "0.001"


def test_chapter_table_refuses_unknown_names():
    with pytest.raises(ValueError, match="elmo_bug"):
        chapter_table("elmo")


# --------------------------------------------------------------------------- stored tables

EXACT = ["model", "weights", "not run"]


def test_elmo_bug_slice():
    stored, meta = load_results("elmo_bug")
    assert meta["convention"]["name"] == "mind-your-bias"
    # MiniLM's C6 through the bug and the fix, and SmolLM2's C9, whose w-SEAT the bug
    # leaves undefined (no vector depends on the stimulus).
    fresh = pd.concat([elmo_table({"all-MiniLM-L6-v2": ["C6"]}),
                       elmo_table({"SmolLM2-135M-Instruct": ["C9"]})])
    assert (fresh["not run"] != "").sum() == 1
    compare_with_stored(fresh, stored, ["column", "variant", "method", "myb_test"], exact=EXACT,
                        numbers=["effect_size"], p_values=["p_value"])


def test_elmo_diagnostics_table():
    stored, _ = load_results("elmo_diagnostics")
    fresh = elmo_diagnostics(models=["SmolLM2-135M-Instruct"])
    compare_with_stored(fresh, stored, ["model", "extraction", "test"],
                        exact=["weights", "sentences", "distinct word vectors"],
                        numbers=["mean cosine between sentences"])


def test_elmo_quirks_slice():
    stored, _ = load_results("elmo_quirks")
    fresh = quirk_table([("C3", "word"), ("DB-likable", "sent (u)")], [("C6", "word")])
    compare_with_stored(fresh, stored, ["column", "test", "context"], exact=EXACT,
                        numbers=["effect_size"], p_values=["p_value"])


def test_elmo_gpt2_slice():
    stored, _ = load_results("elmo_gpt2")
    compare_with_stored(gpt2_table(["C9"]), stored, ["column", "variant", "method", "myb_test"],
                        exact=EXACT, numbers=["effect_size"], p_values=["p_value"])


@pytest.mark.parametrize("name", CHAPTER_TABLES)
def test_provenance_names_every_model(name):
    stored, meta = load_results(name)
    column = "model" if name == "elmo_diagnostics" else "column"
    assert set(meta["models"]) == set(stored[column])
    assert {m["weights"] for m in meta["models"].values()} == set(stored["weights"])
