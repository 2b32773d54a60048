"""Tests of biasbook.trust_contextual against hand computations on the stored tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pingouin
import pytest

from biasbook import trust_contextual as tc
from biasbook.stored import load_results

# Stimulus tests with the same target words, by hand from data/stimuli (May et al. vs MYB).
SAME_TARGETS = {"C1": "MYB-C1-name", "C3": "MYB-C3-name", "C3b": "MYB-C3-term",
                "C6": "MYB-C6-name", "C6b": "MYB-C6-term", "C9": "MYB-C9-term"}
MATCH = ["method", "test", "model", "level", "pooling", "layer", "ddof", "tail", "sampling",
         "ci_method"]


@pytest.fixture(scope="module")
def seat() -> tc.Agreement:
    return tc.seat_template_agreement()


@pytest.fixture(scope="module")
def grid() -> pd.DataFrame:
    return load_results("speccurve_grid")[0]


def _hand_icc_a1(m: np.ndarray) -> float:
    """ICC(A,1) from the two-way ANOVA mean squares (McGraw & Wong 1996, Table 4)."""
    n, k = m.shape
    grand = m.mean()
    ss_r = k * ((m.mean(axis=1) - grand) ** 2).sum()
    ss_c = n * ((m.mean(axis=0) - grand) ** 2).sum()
    ss_e = ((m - grand) ** 2).sum() - ss_r - ss_c
    ms_r, ms_c, ms_e = ss_r / (n - 1), ss_c / (k - 1), ss_e / ((n - 1) * (k - 1))
    return (ms_r - ms_e) / (ms_r + (k - 1) * ms_e + k / n * (ms_c - ms_e))


def test_grid_pairs_are_exactly_rows_differing_only_in_template(seat, grid):
    seat_rows = grid[grid["method"] == "SEAT"].reset_index(drop=True)
    # every (row, row) combination of the stored frame, then the hand rule
    every = seat_rows.merge(seat_rows, how="cross", suffixes=("_a", "_b"))
    keep = ((every["contexts_a"] == "SEAT bleached") & (every["contexts_b"] == "Mind Your Bias")
            & (every["stimuli_a"].map(SAME_TARGETS) == every["stimuli_b"]))
    for c in MATCH:
        keep &= every[f"{c}_a"] == every[f"{c}_b"]
    hits = every[keep]
    expected = {(a, b, ", ".join(f"{c}={r[f'{c}_a']}" for c in MATCH[3:]), da, db)
                for (_, r), a, b, da, db in zip(hits.iterrows(), hits["stimuli_a"],
                                                hits["stimuli_b"], hits["effect_size_a"],
                                                hits["effect_size_b"], strict=True)}
    got = seat.pairs[seat.pairs["source"] == "speccurve_grid"]
    got_set = set(zip(got["stimuli_1"], got["stimuli_2"], got["specification"], got["d_1"],
                      got["d_2"], strict=True))
    assert len(got) == len(got_set)
    assert got_set == expected
    assert len(expected) == 6 * 2 * 2 * 2 * 2 * 2  # 6 stimulus pairs × 32 choice combinations
    # no "words only" row is paired by default
    assert not got["template_2"].eq("words only").any()


def test_grid_icc_equals_hand_anova_and_pingouin(seat):
    pairs = seat.pairs
    sub = pairs[(pairs["source"] == "speccurve_grid") & pairs["subject"]]
    assert len(sub) == 48  # 6 stimulus pairs × level × pooling × layer, ddof=1
    assert sub["specification"].str.contains("ddof=1").all()
    m = sub[["d_1", "d_2"]].to_numpy(float)
    row = seat.summary[seat.summary["source"] == "speccurve_grid"].iloc[0]
    assert row["icc_a1"] == pytest.approx(_hand_icc_a1(m), abs=1e-12)
    long = pd.DataFrame({"subject": np.repeat(np.arange(len(m)), 2),
                         "rater": np.tile([0, 1], len(m)), "d": m.ravel()})
    pg = pingouin.intraclass_corr(long, targets="subject", raters="rater",
                                  ratings="d").set_index("Type")
    ci = "CI95" if "CI95" in pg.columns else "CI95%"
    assert row["icc_a1"] == pytest.approx(pg.loc["ICC(A,1)", "ICC"], abs=1e-9)
    assert row["icc_c1"] == pytest.approx(pg.loc["ICC(C,1)", "ICC"], abs=1e-9)
    lo, hi = pg.loc["ICC(A,1)", ci]
    assert row["icc_a1_low"] == pytest.approx(lo, abs=0.01)
    assert row["icc_a1_high"] == pytest.approx(hi, abs=0.01)


def test_sign_agreement_and_deltas_equal_hand_count(seat):
    for _, row in seat.summary.iterrows():
        sub = seat.pairs[(seat.pairs["comparison"] == row["comparison"])
                         & (seat.pairs["source"] == row["source"])
                         & (seat.pairs["model"] == row["model"]) & seat.pairs["subject"]]
        same = sum((a > 0) == (b > 0) for a, b in zip(sub["d_1"], sub["d_2"], strict=True))
        assert row["sign_agreement"] == pytest.approx(same / len(sub))
        assert row["n_sign_flips"] == len(sub) - same
        assert row["max_abs_delta"] == pytest.approx(max(abs(b - a) for a, b in zip(
            sub["d_1"], sub["d_2"], strict=True)))


def test_chapter_pairs_match_stored_rows():
    may = load_results("seat_may")[0]
    myb = load_results("seat_myb")[0]
    pairs = tc.seat_template_agreement().pairs
    chap = pairs[pairs["source"] == "seat_may / seat_myb"]
    assert len(chap) == 12  # C1, C3, C6, C9 × three models (seat_myb has no MYB-C3-term)
    for _, p in chap.iterrows():
        d1 = may[(may["model"] == p["model"]) & (may["context"] == "sent")
                 & (may["stimuli"] == p["stimuli_1"])]["effect_size"]
        d2 = myb[(myb["model"] == p["model"]) & (myb["method"] == "s-SEAT")
                 & (myb["stimuli"] == p["stimuli_2"])]["effect_size"]
        assert (len(d1), len(d2)) == (1, 1)
        assert (p["d_1"], p["d_2"]) == (d1.iloc[0], d2.iloc[0])
        assert SAME_TARGETS[p["stimuli_1"]] == p["stimuli_2"]


def test_identical_words_drops_the_c6_pairs():
    pairs = tc.seat_template_agreement(identical_words=True, chapter_tables=False).pairs
    assert set(pairs["stimuli_1"]) == {"C1", "C3", "C3b", "C9"}
    assert (pairs["attributes_differ"] == 0).all()


def test_ceat_sd_equals_pandas_std_per_setting():
    stored = load_results("ceat_resampling")[0]
    rel = tc.ceat_context_reliability()
    for _, r in rel.pairs.iterrows():
        ces = stored[(stored["test"] == r["test"]) & (stored["N"] == r["N"])
                     & (stored["contexts drawn"] == r["contexts drawn"])]["CES"]
        assert r["ces_sd"] == pytest.approx(ces.std())
        assert r["ces_mean"] == pytest.approx(ces.mean())
        assert (r["ces_min"], r["ces_max"]) == (ces.min(), ces.max())
        assert r["n_draws"] == len(ces)
    # one test stored: the ICC over tests is undefined and says why
    assert rel.summary["icc_a1"].isna().all()
    assert rel.summary["note"].str.contains("at least two").all()


def test_ceat_icc_over_tests_on_synthetic_frame(monkeypatch):
    rng = np.random.default_rng(0)
    rows = [{"test": f"T{t}", "column": "m", "model": "m", "N": 100, "contexts drawn": "always",
             "seed": s, "CES": t + 0.01 * rng.standard_normal(), "SE": 0.01,
             "p (two-sided)": 0.001} for t in range(4) for s in range(5)]
    frame = pd.DataFrame(rows)
    monkeypatch.setattr(tc, "load_results", lambda name: (frame, {}))
    rel = tc.ceat_context_reliability()
    m = frame.pivot(index="test", columns="seed", values="CES").to_numpy()
    assert rel.summary["icc_a1"].iloc[0] == pytest.approx(_hand_icc_a1(m))
    assert rel.summary["icc_a1"].iloc[0] > 0.99


def test_identical_template_scores_give_icc_one():
    pairs = pd.DataFrame({"comparison": "x", "source": "s", "method": "SEAT", "model": "m",
                          "d_1": [0.1, 0.5, -0.3, 1.2], "d_2": [0.1, 0.5, -0.3, 1.2],
                          "subject": True})
    row = tc.pair_summary(pairs).iloc[0]
    assert row["icc_a1"] == pytest.approx(1.0)
    assert row["icc_c1"] == pytest.approx(1.0)
    assert row["sign_agreement"] == 1.0
    assert row["max_abs_delta"] == 0.0


def test_shift_lowers_agreement_not_consistency():
    d = np.array([0.1, 0.5, -0.3, 1.2, 0.8])
    pairs = pd.DataFrame({"comparison": "x", "source": "s", "method": "SEAT", "model": "m",
                          "d_1": d, "d_2": d + 0.5, "subject": True})
    row = tc.pair_summary(pairs).iloc[0]
    assert row["icc_c1"] == pytest.approx(1.0)
    assert row["icc_a1"] < 1.0


def test_lpbs_template_only_pairs_hold_the_same_words():
    lp = tc.lpbs_template_agreement()
    only = lp.pairs[lp.pairs["change"] == "templates only"]
    assert set(only["test"]) == {"C6_term", "Occ_term"}
    stored = load_results("lpbs_myb")[0]
    for _, p in only.iterrows():
        assert p["template_1"] != p["template_2"]
        for col, stim in (("d_1", p["stimuli_1"]), ("d_2", p["stimuli_2"])):
            d = stored[(stored["stimuli"] == stim) & (stored["convention"] == p["convention"])
                       & (stored["attribute_form"] == p["attribute_form"])]["effect_size"]
            assert len(d) == 1 and d.iloc[0] == p[col]
    # C6-name reduced = full (same words, same templates) is not a change
    assert "C6_name" not in set(lp.pairs["test"])
    row = lp.summary[lp.summary["change"] == "templates only"].iloc[0]
    sub = only[only["subject"]]
    assert row["icc_a1"] == pytest.approx(_hand_icc_a1(sub[["d_1", "d_2"]].to_numpy()))


def test_summary_has_one_row_per_method():
    s = tc.contextual_summary()
    assert list(s["method"].unique()) == ["SEAT", "s-SEAT", "CEAT", "LPBS"]
    assert {"changed", "model", "n_specifications", "icc_a1", "icc_a1_low", "icc_a1_high",
            "sign_agreement", "max_abs_delta"} <= set(s.columns)
    assert (s["sign_agreement"].between(0, 1)).all()


def test_missing_table_names_the_script(monkeypatch, tmp_path):
    monkeypatch.setattr("biasbook.stored.results_dir", lambda: tmp_path)
    with pytest.raises(FileNotFoundError,
                       match=r"python scripts/compute_results.py ceat_resampling"):
        tc.ceat_context_reliability()
    with pytest.raises(FileNotFoundError,
                       match=r"python scripts/compute_results.py speccurve_grid"):
        tc.seat_template_agreement()


def test_missing_column_is_refused(monkeypatch):
    monkeypatch.setattr(tc, "load_results",
                        lambda name: (pd.DataFrame({"test": ["a"], "CES": [1.0]}), {}))
    with pytest.raises(ValueError, match="lacks the columns"):
        tc.ceat_context_reliability()
