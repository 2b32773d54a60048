"""Mind Your Bias's Figures 3 and 4, the compound stimuli of I1/I2 and the modified C9/Dis sets:
the helpers against hand computation, the verdicts on toy tables, the published files
against the authors' result file, and the stored tables' recomputed slices."""

import numpy as np
import pandas as pd
import pytest
from shared_paths import MYB_RESULTS, require, require_corpus

from biasbook import ceat as ceat_chapter
from biasbook import lpbs as lpbs_chapter
from biasbook.ceat import (
    CODE_FORMS,
    FIGURE3_METHODS,
    FIGURE3_QUANTILES,
    FIGURE3_TESTS,
    compound_view,
    distribution_summary,
    figure3_published,
    figure3_test,
    with_words,
)
from biasbook.lpbs import (
    MODIFIED_PAIRS,
    WINDOW_SIZES,
    WINDOW_TESTS,
    figure4_view,
    modified_sets_ours,
    modified_sets_published,
)
from biasbook.registry import get_table
from biasbook.stored import load_results
from biaslib.stimuli.data import load_published, load_test

# --------------------------------------------------------------------------- helpers


def test_distribution_summary_by_hand():
    s = distribution_summary([1.0, 2.0, 3.0, 4.0], quantiles=(0.25, 0.5, 0.975))
    # mean 2.5; SD ddof 1 = sqrt(((1.5² + 0.5²) * 2) / 3) = sqrt(5/3)
    assert s["n_samples"] == 4 and s["mean_d"] == 2.5
    assert s["sd_d"] == pytest.approx(np.sqrt(5 / 3))
    # numpy's linear rule: position q * (n - 1) between order statistics
    assert s["q25"] == pytest.approx(1.75) and s["q50"] == pytest.approx(2.5)
    assert s["q975"] == pytest.approx(3.925)


def test_distribution_summary_refuses_nan_and_single_values():
    with pytest.raises(ValueError, match="1 not finite"):
        distribution_summary([0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="at least two"):
        distribution_summary([0.1])


def test_quantile_column_names_are_distinct():
    names = [ceat_chapter._quantile_name(q) for q in FIGURE3_QUANTILES]
    assert names == ["q025", "q05", "q25", "q50", "q75", "q95", "q975"]
    assert len(set(names)) == len(names)


def test_with_words_replaces_and_names_unknown_words():
    i2 = load_test("MYB-I2-name")
    swapped = with_words(i2, {"fried-chicken": "chicken"}, " (chicken)")
    assert "chicken" in swapped.B.words and "fried-chicken" not in swapped.B.words
    assert swapped.B.words.index("chicken") == i2.B.words.index("fried-chicken")
    assert swapped.A.words == i2.A.words and swapped.name == "MYB-I2-name (chicken)"
    with pytest.raises(KeyError, match="all-american"):
        with_words(i2, {"all-american": "American"})  # I2's A has no "all-american"


def test_figure3_simplified_targets_are_their_ceat_codes():
    t = figure3_test("simplified")
    assert (t.X.words, t.Y.words) == (("flower", "flowers"), ("insect", "insects"))
    assert t.A.words == load_test("MYB-C1-name").A.words
    assert figure3_test("full").name == FIGURE3_TESTS["full"]
    with pytest.raises(Exception, match="simplified"):
        figure3_test("tiny")


# --------------------------------------------------------------------------- verdicts


def _fig3(ces: dict[tuple[str, str], float]) -> pd.DataFrame:
    rows = [{"panel": m, "word_set": w, "model": "toy", "effect_size": d}
            for (m, w), d in ces.items()]
    return pd.DataFrame(rows)


def test_figure3_verdict_by_hand():
    cos, prob = FIGURE3_METHODS
    # CEAT: simplified 1.0 vs full 0.5 (gap 0.5), reduced 0.6 (gap 0.1); LPBS gap 0.2.
    stark = _fig3({(cos, "simplified"): 1.0, (cos, "reduced"): 0.6, (cos, "full"): 0.5,
                   (prob, "simplified"): 0.3, (prob, "reduced"): 0.1, (prob, "full"): 0.1})
    assert ceat_chapter._claim_figure3(stark).holds is True
    # The reduced set moves CEAT more than the simplified one: the claim fails.
    flat = _fig3({(cos, "simplified"): 0.55, (cos, "reduced"): 0.9, (cos, "full"): 0.5,
                  (prob, "simplified"): 0.1, (prob, "reduced"): 0.1, (prob, "full"): 0.1})
    assert ceat_chapter._claim_figure3(flat).holds is False
    # CEAT barely moves (0.05) while LPBS moves by 0.2: the opposite of the claim.
    reverse = _fig3({(cos, "simplified"): 0.55, (cos, "reduced"): 0.52, (cos, "full"): 0.5,
                     (prob, "simplified"): 0.3, (prob, "reduced"): 0.1, (prob, "full"): 0.1})
    assert ceat_chapter._claim_figure3(reverse).holds == "no: the simplified set moves LPBS more"


def _compound(i1_head: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = []
    for test, base in (("I1", 0.2), ("I2", -0.1)):
        for variant, d in (("Mind Your Bias's words", base),
                           ("chicken for fried-chicken", i1_head if test == "I1" else base),
                           ("Guo & Caliskan's code forms", base)):
            rows.append({"test": test, "compound_variant": variant, "column": "toy",
                         "convention": "mind-your-bias", "effect_size": d, "p_value": 0.0})
    cov = pd.DataFrame({"word": ["fried-chicken", "chicken"],
                        "sentences in the extract": [2, 1000]})
    return pd.DataFrame(rows), cov


def test_compound_verdict_by_hand():
    same = ceat_chapter._claim_compound_stimuli(*_compound(0.25))
    assert same.holds == "not shown: the swap moves the CES, flips no sign"
    assert "flips 0 of 2" in same.ours
    assert "at most 0.05" in same.ours
    flipped = ceat_chapter._claim_compound_stimuli(*_compound(-0.3))
    assert flipped.holds == "on our models" and "flips 1 of 2" in flipped.ours
    view = compound_view(_compound(0.25)[0])
    assert view.loc[("I1", "chicken for fried-chicken"), "toy"] == "0.25*"


def _lpbs_myb(c9_change: float, dis_change: float) -> pd.DataFrame:
    rows = []
    for (orig, mod), base, change in zip(MODIFIED_PAIRS, (0.1, 0.05), (c9_change, dis_change),
                                         strict=True):
        for ws in (("simplified", "reduced", "full") if orig.startswith("C9") else ("full",)):
            for name, d in ((orig, base), (mod, base + change)):
                rows.append({"myb_test": name, "word_set": ws, "convention": "mind-your-bias",
                             "effect_size": d, "p_value": 0.5, "encoder": "toy"})
    return pd.DataFrame(rows)


def test_modified_sets_verdict_by_hand():
    assert lpbs_chapter._claim_modified_sets(_lpbs_myb(0.05, 0.01)).holds is True
    # |Δd| = 0.3 on C9 (≥ 0.2, a "small" effect), Dis stable.
    assert lpbs_chapter._claim_modified_sets(_lpbs_myb(0.3, 0.01)).holds == "for Dis, not for C9"
    # A sign change on Dis (0.05 → -0.05) fails the claim outright.
    assert lpbs_chapter._claim_modified_sets(_lpbs_myb(0.05, -0.1)).holds is False
    view = modified_sets_ours(_lpbs_myb(0.3, 0.01))
    assert view.loc[("C9", "full"), "ours change"] == "0.30"


# --------------------------------------------------------------------------- published files


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    path = require(MYB_RESULTS, "the Mind Your Bias authors' result file")
    frame = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False, encoding="utf-8-sig")
    frame.index = frame.index + 2  # line numbers, header = 1
    return frame


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def test_figure4_window_20_is_the_result_file_run(reference):
    # The window-20 file is the run all_results.csv reports (lines 353 and 356).
    fig4 = load_published("myb_figure4_window").set_index(["test", "window"])
    for test, line in (("C1", 353), ("C9", 356)):
        row = reference.loc[line]
        assert row["method"] == "LPBS" and row["context"] == "reddit" and row["bias_test"] == test
        assert f"{fig4.loc[(test, 20), 'effect_size']:.4f}" == f"{_number(row['effect_size']):.4f}"


def test_figure4_file_layout():
    fig4 = load_published("myb_figure4_window")
    assert sorted(set(fig4["window"])) == list(WINDOW_SIZES)
    assert set(fig4["test"]) == set(WINDOW_TESTS) and len(fig4) == 16
    assert fig4["source"].str.contains("55f47c0").all()


def test_figure3_dists_agree_with_the_result_file(reference):
    # The SD column of all_results.csv is the SD of the released per-sample values:
    # equal to 4 decimals for the cosine runs, within 0.001 for the probability runs
    # (their released files and the CSV rows come from different runs of the sampler).
    lines = {("CEAT (cosine)", "full"): 482, ("CEAT (cosine)", "reduced"): 546,
             ("CEAT (cosine)", "simplified"): 570,
             ("LPBS in CEAT (probability)", "full"): 589,
             ("LPBS in CEAT (probability)", "reduced"): 597,
             ("LPBS in CEAT (probability)", "simplified"): 603}
    pub = figure3_published().set_index(["method", "word_set"])
    for key, line in lines.items():
        row = reference.loc[line]
        assert row["bias_test"] == "C1" and row["model"] == "bert", line
        sd = _number(row["SD"])
        tol = 5e-5 if key[0].startswith("CEAT") else 1e-3
        assert abs(pub.loc[key, "sd_d"] - sd) <= tol, key
        # Table 14 prints the CES to 2 decimals (0.7150 as 0.72).
        assert abs(pub.loc[key, "effect_size"] - _number(row["effect_size"])) <= 0.005 + 1e-9
    assert (pub["n_samples"] == 10_000).all()


def test_modified_pairs_are_the_result_file_rows(reference):
    pairs = load_published("myb_modified_sets")
    assert len(pairs) == 101 and set(pairs["test"]) == {"C9", "Dis"}
    for r in pairs.itertuples():
        mod, orig = reference.loc[r.line_modified], reference.loc[r.line_original]
        assert "modified" in mod["notes"] and "modified" not in orig["notes"]
        for row in (mod, orig):
            assert (row["method"], row["bias_test"], row["model"], row["context"]) == (
                r.method, r.test, r.model, r.context)
        assert _number(mod["effect_size"]) == pytest.approx(r.d_modified)
        assert _number(orig["effect_size"]) == pytest.approx(r.d_original)
    assert not ((pairs["method"] == "SEAT") & (pairs["model"] == "bloom")).any()


def test_modified_sets_published_summary_by_hand():
    pairs = load_published("myb_modified_sets")
    lpbs_c9 = pairs.query("method == 'LPBS' and test == 'C9'")
    change = (lpbs_c9["d_modified"] - lpbs_c9["d_original"]).abs()
    view = modified_sets_published()
    assert view.loc[("LPBS", "C9"), "pairs of runs"] == len(lpbs_c9) == 3
    assert view.loc[("LPBS", "C9"), "largest |Δd|"] == f"{change.max():.2f}"


# --------------------------------------------------------------------------- stored tables


def test_figure3_stored_table_shape():
    frame, meta = load_results("ceat_figure3")
    assert list(zip(frame["panel"], frame["word_set"], strict=True)) == [
        (m, w) for m in FIGURE3_METHODS for w in FIGURE3_TESTS]
    # A results table (issue 35): the panels are CEAT and LPBS (in CEAT), read as
    # ceat_myb and lpbs_reddit read them, on C1's stimulus tests.
    assert frame["method"].tolist() == ["CEAT"] * 3 + ["LPBS"] * 3
    assert set(frame["test"]) == {"C1"} and set(frame["convention"]) == {"mind-your-bias"}
    assert frame["level"].tolist() == ["word"] * 3 + ["masked token"] * 3
    assert frame["layer"].tolist() == ["last"] * 3 + ["MLM head"] * 3
    reddit, _ = load_results("lpbs_reddit")
    lpbs = frame[frame["method"] == "LPBS"]
    assert set(lpbs["pooling"]) == set(reddit["pooling"])
    assert (frame["n_samples"] == 10_000).all()
    assert (frame["q025"] <= frame["q50"]).all() and (frame["q50"] <= frame["q975"]).all()
    assert meta["extract_sha256"] and meta["simplified_targets"]["X"] == ["flower", "flowers"]


def test_compound_stored_tables_shape():
    frame, _ = load_results("ceat_compound")
    assert set(frame["compound_variant"]) == set(ceat_chapter.COMPOUND_VARIANTS)
    cov, _ = load_results("ceat_compound_coverage")
    assert set(CODE_FORMS) | set(CODE_FORMS.values()) <= set(cov["word"])


def test_window_stored_table_shape():
    frame, meta = load_results("lpbs_window")
    assert sorted(set(frame["window"])) == list(WINDOW_SIZES)
    assert meta["n_resamples"] == lpbs_chapter.WINDOW_RESAMPLES
    view = figure4_view(frame)
    assert list(view.index) == list(WINDOW_SIZES)
    ok = frame[frame["status"] == "ok"]
    assert ok["effect_size"].notna().all() and frame.loc[
        frame["status"] != "ok", "effect_size"].isna().all()


@pytest.fixture(scope="module")
def corpus():
    return require_corpus("these stored tables are recomputed from the corpus extract")


def test_ceat_figure3_table(corpus, tiny_mlm_available):
    frame, _ = load_results("ceat_figure3")
    get_table("ceat_figure3").check_slices(frame)


def test_ceat_compound_slice(corpus):
    frame, _ = load_results("ceat_compound")
    get_table("ceat_compound").check_slices(frame)


def test_ceat_compound_coverage_table(corpus):
    frame, _ = load_results("ceat_compound_coverage")
    get_table("ceat_compound_coverage").check_slices(frame)


def test_lpbs_window_slice(corpus, tiny_mlm_available):
    frame, _ = load_results("lpbs_window")
    (fresh,) = get_table("lpbs_window").check_slices(frame)
    assert len(fresh) == 2
