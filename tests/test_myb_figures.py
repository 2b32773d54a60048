"""Mind Your Bias's Figures 1 and 5 and two Table 3 claims (biasbook.myb_figures).

The aggregation behind Figure 1 is checked against a brute-force count (exact decimal
arithmetic, one run at a time) on a toy frame, and the stored file
``data/published/myb_figure1_counts.csv`` against a fresh derivation from the authors'
result file when the shared folder holds it. The claims' counts are checked against a
hand count of the typed-in Table 3 (read with the csv module, not through the code
under test) and on toy frames whose answer is known.
"""

import csv
import math
from collections import Counter
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from shared_paths import MYB_RESULTS, require

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.text import Text

from biasbook import myb_figures as mf
from biasbook import synthesis
from biasbook.findings import verdict
from biasbook.published import MYB_MODELS
from biaslib.reporting.plots import binned_scores, scatter_matrix

PUBLISHED = Path(__file__).resolve().parents[1] / "data" / "published"


def brute_force_counts(runs, width="0.1", alpha=0.01):
    """Figure 1's counts, one run at a time, bins by exact decimal arithmetic."""
    counter = Counter()
    for row in runs.to_dict("records"):
        d = row["effect_size"]
        if d is None or (isinstance(d, float) and math.isnan(d)):
            continue
        k = int((Decimal(repr(d)) / Decimal(width)).to_integral_value(ROUND_FLOOR))
        sig = bool(row["p_value"] < alpha)
        for column, panel in (("target_description", "target description"),
                              ("context", "contextualisation")):
            counter[(panel, row[column], row["model"], row["method"],
                     round(k * float(width), 6), sig)] += 1
    return counter


def as_counter(counts):
    return Counter({(r.panel, r.setting, r.model, r.method, round(float(r.bin_low), 6),
                     bool(r.significant)): int(r.count) for r in counts.itertuples()})


@pytest.fixture(scope="module")
def toy_runs():
    rng = np.random.default_rng(1111)
    n = 300
    d = np.round(rng.uniform(-1.5, 1.8, n), 4)
    d[:8] = [0.3, -0.1, 0.0, -0.0001, 0.7, 1.0, -1.0, 0.2999]  # bin edges and neighbours
    d[8:12] = np.nan
    p = np.round(rng.uniform(0, 0.03, n), 4)
    p[12:14] = 0.01  # p = alpha is not significant
    return pd.DataFrame({
        "model": rng.choice(["ELMo", "BERT", "GPT-2"], n),
        "method": rng.choice(["SEAT", "CEAT", "LPBS"], n),
        "target_description": rng.choice(["names", "terms"], n),
        "context": rng.choice(["template", "reddit"], n),
        "effect_size": d, "p_value": p})


def test_figure1_counts_equal_a_brute_force_count(toy_runs):
    counts = mf.figure1_counts(toy_runs)
    assert as_counter(counts) == brute_force_counts(toy_runs)
    assert (counts["count"] > 0).all()
    # every run with an effect size counts once per panel; NaN runs not at all
    assert counts.groupby("panel")["count"].sum().tolist() == [296, 296]


def test_figure1_bins_put_edges_in_the_upper_bin():
    runs = pd.DataFrame({"model": "BERT", "method": "SEAT", "target_description": "names",
                         "context": "template", "effect_size": [0.3, -0.1, 0.0, -0.0001],
                         "p_value": [0.0, 0.5, 0.0, 0.0]})
    counts = mf.figure1_counts(runs).query("panel == 'target description'")
    assert sorted(counts["bin_low"].round(6)) == [-0.1, -0.1, 0.0, 0.3]
    assert counts.loc[counts["bin_low"] == 0.3, "significant"].item()


def test_figure1_counts_name_missing_columns():
    with pytest.raises(ValueError, match="context"):
        mf.figure1_counts(pd.DataFrame({"model": [], "method": [], "effect_size": [],
                                        "p_value": [], "target_description": []}))


def test_stored_figure1_file_has_its_source_and_readme_line():
    counts = mf.load_figure1_counts()
    assert set(counts["source"]) == {mf.FIGURE1_SOURCE}
    assert "Figure 1" in mf.FIGURE1_SOURCE and "all_results.csv" in mf.FIGURE1_SOURCE
    assert f"{mf.FIGURE1_FILE}.csv" in (PUBLISHED / "README.md").read_text(encoding="utf-8")
    assert set(counts["model"]) == set(MYB_MODELS)
    assert counts.groupby("panel")["count"].sum().to_dict() == {
        "contextualisation": 1058, "target description": 1058}


def test_stored_figure1_file_equals_a_fresh_derivation_from_the_authors_file(tmp_path):
    path = require(MYB_RESULTS, "the Mind Your Bias authors' result file")
    written = mf.write_figure1_counts(path, tmp_path / "counts.csv")
    assert written.read_text(encoding="utf-8") == (
        PUBLISHED / f"{mf.FIGURE1_FILE}.csv").read_text(encoding="utf-8")


def test_figure1_counts_of_the_authors_file_equal_a_brute_force_count():
    path = require(MYB_RESULTS, "the Mind Your Bias authors' result file")
    with open(path, newline="", encoding="utf-8-sig") as f:
        lines = list(csv.reader(f, delimiter=";"))
    header = lines[0]
    names = {"elmo": "ELMo", "bert": "BERT", "gpt2": "GPT-2", "opt": "OPT", "bloom": "BLOOM"}
    rows = []
    for fields in lines[1:]:
        row = dict(zip(header[:10], fields[:10], strict=True))
        if row["effect_size"] in ("", "NaN"):
            continue
        rows.append({"model": names[row["model"]], "method": row["method"],
                     "target_description": row["target_description"],
                     "context": row["context"],
                     "effect_size": float(row["effect_size"].replace(",", ".")),
                     "p_value": float(row["p_value"].replace(",", "."))})
    assert len(lines) - 1 == 1070 and len(rows) == 1058
    assert as_counter(mf.load_figure1_counts()) == brute_force_counts(pd.DataFrame(rows))


def test_read_myb_results_keeps_line_numbers_of_the_typed_in_tables():
    path = require(MYB_RESULTS, "the Mind Your Bias authors' result file")
    runs = mf.read_myb_results(path).set_index("csv_line")
    with open(PUBLISHED / "myb_table3.csv", newline="", encoding="utf-8") as f:
        table3 = [r for r in csv.DictReader(f) if r["column"] == "ours"]
    for row in table3:
        run = runs.loc[int(row["csv_line"])]
        assert run["bias_test"] == row["csv_bias_test"]
        assert float(row["p_csv"]) == run["p_value"]
        if row["csv_match"] == "true":
            assert abs(run["effect_size"] - float(row["d"])) <= 0.005 + 1e-9


def test_figure1_summary_counts_and_means_by_hand():
    counts = pd.DataFrame({"panel": "p", "setting": ["a", "a", "a", "b"],
                           "model": "M", "method": "SEAT", "bin_low": [0.0, 0.5, -0.3, 1.0],
                           "significant": [True, True, False, False], "count": [1, 3, 2, 4]})
    summary = mf.figure1_summary(counts)
    assert summary.loc[("p", "a", "M")].tolist() == pytest.approx([6, 4, (0.05 + 3 * 0.55) / 4])
    assert summary.loc[("p", "b", "M"), "significant"] == 0
    assert math.isnan(summary.loc[("p", "b", "M"), "mean significant d"])


def test_ours_figure1_runs_are_the_stand_ins_with_names_or_terms():
    runs = mf.ours_figure1_scores()
    assert set(runs["model"]) == set(mf.OURS_FIGURE1_MODELS.values())
    assert set(runs["target_description"]) == {"names", "terms"}
    assert set(runs["context"]) == {"template", "corpus"}
    assert set(runs["method"]) == {"SEAT", "CEAT", "LPBS"}
    assert np.isfinite(runs["effect_size"]).all()
    # LPBS runs only on the tiny masked LM; SEAT only on templates
    assert set(runs.loc[runs["method"] == "LPBS", "model"]) == {"tiny MLM"}
    assert set(runs.loc[runs["method"] == "SEAT", "context"]) == {"template"}


# --- Table 3's claims ---------------------------------------------------------------------


def hand_table3():
    with open(PUBLISHED / "myb_table3.csv", newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if r["column"] == "ours"]


def test_significance_counts_equal_a_hand_count_of_table3():
    counts = mf.significance_counts()
    for method in ("s-SEAT", "w-SEAT", "CEAT"):
        for model in MYB_MODELS:
            by_hand = sum(1 for r in hand_table3() if r["method"] == method
                          and r["model"] == model and float(r["p_csv"]) < 0.01)
            assert counts.loc[method, model] == by_hand
    # the claim's numbers: ELMo most, GPT-2 fewest
    assert counts.loc["s-SEAT"].tolist() == [8, 5, 2, 6, 4]


def test_holm_drops_a_p_that_passes_only_uncorrected():
    # eight tests: four at 0, one at 0.0093 (passes p < 0.01, fails Holm's 0.01/4 = 0.0025)
    p = [0.0, 0.0, 0.0, 0.0, 0.0093, 0.5, 0.9, 0.99]
    toy = pd.DataFrame({"method": "s-SEAT", "test": list("abcdefgh"), "model": "BERT", "p": p})
    assert mf.significance_counts(toy).loc["s-SEAT", "BERT"] == 5
    assert mf.significance_counts(toy, rule="holm").loc["s-SEAT", "BERT"] == 4
    with pytest.raises(ValueError, match="rule"):
        mf.significance_counts(toy, rule="bonferroni")


def test_pair_closeness_on_a_toy_frame():
    toy = pd.DataFrame({"method": "s-SEAT", "model": ["A"] * 3 + ["B"] * 3,
                        "test": ["t1", "t2", "t3"] * 2,
                        "d": [1.0, 0.2, 0.8, 0.4, 0.3, 0.1],
                        "p": [0.001, 0.5, 0.001, 0.002, 0.6, 0.2]})
    close = mf.pair_closeness(toy, "A", "B")
    assert close["|Δd|"].tolist() == pytest.approx([0.6, 0.1, 0.7])
    assert close["same verdict"].tolist() == [True, True, False]
    assert close["close"].tolist() == [False, True, False]
    with pytest.raises(ValueError, match="'C'"):
        mf.pair_closeness(toy, "A", "C")


def test_opt_and_bloom_differ_in_verdict_on_c6_and_occ_only():
    rows = {(r["test"], r["model"]): r for r in hand_table3() if r["method"] == "s-SEAT"}
    by_hand = [t for t in mf.TABLE3_TESTS
               if (float(rows[(t, "OPT")]["p_csv"]) < 0.01)
               != (float(rows[(t, "BLOOM")]["p_csv"]) < 0.01)]
    close = mf.pair_closeness(mf.published_table3(), "OPT", "BLOOM")
    assert by_hand == ["C6", "Occ"] == list(close.index[~close["same verdict"]])
    far = [t for t in mf.TABLE3_TESTS
           if abs(float(rows[(t, "OPT")]["d"]) - float(rows[(t, "BLOOM")]["d"])) > 0.5]
    assert far == ["C1", "C6", "Occ"] == list(close.index[~close["close"]])


def test_findings_record_both_claims_with_their_sections():
    counts, opt_bloom = mf.findings()
    assert counts.section == "synthesis-significance-counts" and counts.holds == "yes"
    assert "ELMo 8, BERT 5, GPT-2 2, OPT 6, BLOOM 4" in counts.published
    assert opt_bloom.section == "synthesis-opt-bloom"
    assert verdict(opt_bloom.holds) == "with qualifications"
    assert "C6, Occ" in opt_bloom.published and "C1 0.69" in opt_bloom.published
    assert opt_bloom.ours.startswith("not run")
    # appended to the chapter's findings
    assert synthesis.findings()[-2:] == [counts, opt_bloom]


# --- the figures ------------------------------------------------------------------------


def visible_text_sizes(fig):
    return [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def test_figure1_layout_fits_the_page_with_readable_text():
    fig = binned_scores(mf.load_figure1_counts(), models=MYB_MODELS,
                        settings={"target description": ["names", "terms"],
                                  "contextualisation": ["template", "reddit"]},
                        bin_width=mf.FIGURE1_BIN, title="t")
    assert fig.get_size_inches()[0] <= 8
    assert min(visible_text_sizes(fig)) >= 10
    plt.close(fig)


def test_figure5_layout_fits_the_page_with_readable_text():
    fig = scatter_matrix(synthesis.myb_scores(), ["s-SEAT", "w-SEAT", "CEAT", "LPBS"],
                         hue_order=MYB_MODELS, title="t")
    assert fig.get_size_inches()[0] <= 8
    assert min(visible_text_sizes(fig)) >= 10
    plt.close(fig)


def test_scatter_matrix_names_a_missing_method():
    with pytest.raises(ValueError, match="LPBS"):
        scatter_matrix(synthesis.myb_scores().query("method != 'LPBS'"), ["s-SEAT", "LPBS"])
