"""The ELMo-bug chapter's tables: helpers, and the stored tables against recomputed slices."""

import numpy as np
import pandas as pd
import pytest

from biasbook.elmo_bug import (
    CHAPTER_TABLES,
    bug_summary,
    chapter_table,
    distinct_vectors,
    elmo_beside_published,
)
from biasbook.registry import get_table
from biasbook.stored import load_results

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
        {"column": "m", "replay": v, "method": "s-SEAT", "test": "C1",
         "effect_size": d, "p_value": p, "not run": nr}
        for v, d, p, nr in (("bug", np.nan, np.nan, "undefined: all equal"),
                            ("fixed", 0.5, 0.001, ""))])
    table = elmo_beside_published(rows)
    assert list(table.index) == [("s-SEAT", "C1", "bug"), ("s-SEAT", "C1", "fixed")]
    assert list(table.columns) == ["d, m", "p, m", "d, ELMo", "p, ELMo"]
    assert table.loc[("s-SEAT", "C1", "bug"), "d, m"] == "undefined"
    assert table.loc[("s-SEAT", "C1", "bug"), "p, m"] == ""
    assert table.loc[("s-SEAT", "C1", "fixed"), "d, m"] == "0.50"
    assert table.loc[("s-SEAT", "C1", "fixed"), "p, m"] == "0.001"
    # Mind Your Bias, Table 3: ELMo s-SEAT C1, orig. (May et al.) 0.42 and their fixed run
    # 1.18, whose p-value the authors' result file prints as 0.0000.
    assert table.loc[("s-SEAT", "C1", "bug"), ["d, ELMo", "p, ELMo"]].tolist() == ["0.42", ""]
    assert table.loc[("s-SEAT", "C1", "fixed"), ["d, ELMo", "p, ELMo"]].tolist() == [
        "1.18", "0†"]


def test_chapter_table_refuses_unknown_names():
    with pytest.raises(ValueError, match="elmo_bug"):
        chapter_table("elmo")


# --------------------------------------------------------------------------- stored tables

# The slices, their keys and tolerances are those the chapter declares (elmo_bug.DECLARED_TABLES).


def test_elmo_bug_slice():
    stored, meta = load_results("elmo_bug")
    assert meta["convention"]["name"] == "mind-your-bias"
    # MiniLM's C6 through the bug and the fix, and SmolLM2's C9, whose w-SEAT the bug
    # leaves undefined (no vector depends on the stimulus).
    (fresh,) = get_table("elmo_bug").check_slices(stored)
    assert (fresh["not run"] != "").sum() == 1
    # A fresh computation has the stored columns: the replay in ``replay``, the stimulus
    # test in ``stimuli`` and its variant in ``variant``.
    assert list(fresh.columns) == list(stored.columns)
    assert set(zip(fresh["replay"], fresh["stimuli"], fresh["variant"], strict=True)) == {
        ("bug", "MYB-C6-name", "name"), ("fixed", "MYB-C6-name", "name"),
        ("bug", "MYB-C9-term", "term"), ("fixed", "MYB-C9-term", "term")}


def test_elmo_diagnostics_table():
    # SmolLM2's rows.
    stored, _ = load_results("elmo_diagnostics")
    get_table("elmo_diagnostics").check_slices(stored)


def test_elmo_quirks_slice():
    # C3 words and DB-likable unbleached sentences; SmolLM2's C6 words.
    stored, _ = load_results("elmo_quirks")
    get_table("elmo_quirks").check_slices(stored)


def test_elmo_gpt2_slice():
    # Mind Your Bias's C9.
    stored, _ = load_results("elmo_gpt2")
    (fresh,) = get_table("elmo_gpt2").check_slices(stored)
    assert list(fresh.columns) == list(stored.columns)


@pytest.mark.parametrize("name", CHAPTER_TABLES)
def test_provenance_names_every_model(name):
    stored, meta = load_results(name)
    column = "model" if name == "elmo_diagnostics" else "column"
    assert set(meta["models"]) == set(stored[column])
    assert {m["weights"] for m in meta["models"].values()} == set(stored["weights"])


# --------------------------------------------------------------------------- display helpers


def toy_elmo():
    rows = []
    for column, tests in (("m1", ("C1", "C6")), ("m2", ("C6",))):
        for variant, d in (("bug", 0.1), ("fixed", 0.8)):
            for method in ("s-SEAT", "w-SEAT"):
                rows += [{"column": column, "replay": variant, "method": method,
                          "test": t, "effect_size": d, "p_value": 0.5 if d < 0.5 else 0.001,
                          "not run": ""} for t in tests]
    return pd.DataFrame(rows)


def test_elmo_beside_published_one_model_keeps_its_tests_only():
    table = elmo_beside_published(toy_elmo(), "m2")
    assert list(table.index) == [("s-SEAT", "C6", "bug"), ("s-SEAT", "C6", "fixed"),
                                 ("w-SEAT", "C6", "bug"), ("w-SEAT", "C6", "fixed")]
    assert list(table.columns[:2]) == ["d, m2", "p, m2"]
    assert len(elmo_beside_published(toy_elmo())) == 8
    with pytest.raises(ValueError, match="m3"):
        elmo_beside_published(toy_elmo(), "m3")


def test_quirks_beside_published_one_model_drops_the_rows_it_did_not_run():
    from biasbook.elmo_bug import quirks_beside_published

    quirks = pd.DataFrame([
        {"column": f"{m}: {v}", "test": "C1", "stimuli": "C1", "context": c, "effect_size": 0.5,
         "p_value": 0.01, "not run": ""}
        for m, contexts in (("A", ("word", "sent")), ("B", ("word",)))
        for v in ("x", "y") for c in contexts])
    table = quirks_beside_published(quirks, "B")
    assert list(table.index) == [("C1", "word")]
    # One model: ours first, the variant over its d and p, May et al.'s d last.
    assert list(table.columns) == [("x", "d"), ("x", "p"), ("y", "d"), ("y", "p"),
                                   ("May et al.", "d")]
    assert table.loc[("C1", "word"), ("x", "d")] == "0.50"
    assert table.loc[("C1", "word"), ("x", "p")] == "0.01"
    # May et al., Table 4: BERT (large, cased), C1 word.
    assert table.iloc[0, -1] == "0.22"
    # Without a model: d and p in one cell.
    assert quirks_beside_published(quirks).loc[("C1", "word"), "A: x"] == "0.50 (p 0.01)"
    # All models: May et al.'s column first, ours named with their model.
    every = quirks_beside_published(quirks)
    assert list(every.columns[1:]) == ["A: x", "A: y", "B: x", "B: y"]
    both = quirks_beside_published(quirks, "A")
    assert list(both.index) == [("C1", "word"), ("C1", "sent")]
    # Rows are May et al.'s test names (``stimuli``): a b-variant is a row of its own, not
    # its test's, so it is not in Table 4's rows.
    b = quirks_beside_published(quirks.assign(test="C3", stimuli="C3b"), "B")
    assert b.empty and list(b.index.names) == ["test", "context"]


def test_gpt2_counts_is_the_variant_summary_per_model():
    from biasbook.elmo_bug import gpt2_counts, variant_summary

    gpt = toy_elmo().query("method == 'w-SEAT'")
    table = gpt2_counts(gpt)
    assert list(table.index) == [("m1", "bug", "fixed"), ("m2", "bug", "fixed")]
    assert table.loc[("m1", "bug", "fixed")].to_dict() == variant_summary(
        gpt[gpt["column"] == "m1"])


def test_counts_view_groups_bug_and_fixed_under_what_they_count():
    from biasbook.elmo_bug import counts_view, gpt2_counts

    table = gpt2_counts(toy_elmo().query("method == 'w-SEAT'"))
    shown = counts_view(table)
    assert list(shown.columns) == [
        ("tests", ""), ("sign flipped", ""), ("mean |d|", "bug"), ("mean |d|", "fixed"),
        ("mean |d|", "|bug − fixed|"), ("significant", "bug"), ("significant", "fixed")]
    # The same numbers, row by row, and the counts table itself is left as it was.
    assert shown.to_numpy().tolist() == table.to_numpy().tolist()
    assert "tests" in table.columns


def test_quirk_counts_view_names_each_quirk_and_its_fix_in_a_few_words():
    from biasbook.elmo_bug import quirk_counts, quirk_counts_view

    quirks, _ = load_results("elmo_quirks")
    shown = quirk_counts_view(quirks)
    assert shown.index.names == ["model", "quirk vs fix", "contexts"]
    # Rows in quirk_counts' order: MiniLM's first wordpiece against [CLS] and against the
    # mean, SmolLM2's lowercased input against its original case; word level, then sentences.
    assert [row[1] for row in shown.index] == [
        "first wordpiece vs [CLS]", "first wordpiece vs [CLS]",
        "first wordpiece vs mean", "first wordpiece vs mean",
        "lowercased vs original case", "lowercased vs original case"]
    assert [row[2] for row in shown.index] == ["word", "sentences"] * 3
    assert shown.to_numpy().tolist() == quirk_counts(quirks).to_numpy().tolist()


def test_elmo_figure_has_the_published_panel_and_one_per_model():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from biasbook.elmo_bug import elmo_figure

    fig = elmo_figure(toy_elmo())
    assert len(fig.axes) == 3 * 2
    # One row per source (ELMo as published, then each model), s-SEAT left, w-SEAT right.
    assert [ax.get_title(loc="left") for ax in fig.axes[::2]] == [
        "s-SEAT: ELMo (published)", "s-SEAT: m1", "s-SEAT: m2"]
    assert fig.axes[1].get_title(loc="left") == "w-SEAT: ELMo (published)"
    # Readable in the book's column: at most 8 inches wide, no text under 10 pt.
    assert fig.get_figwidth() <= 8
    sizes = [t.get_fontsize() for ax in fig.axes
             for t in (ax.title, ax._left_title, *ax.get_xticklabels(), *ax.get_yticklabels())]
    sizes += [t.get_fontsize() for legend in fig.legends for t in legend.get_texts()]
    assert min(sizes) >= 10
    plt.close(fig)


def test_gpt2_offset_examples_and_landing_on_smollm2():
    from biasbook.elmo_bug import SMOLLM2, gpt2_landing, gpt2_offset_examples
    from biaslib.embeddings.transformer import TransformerEncoder
    from biaslib.stimuli.contexts import find_context
    from biaslib.stimuli.templates import myb_contexts

    smol = TransformerEncoder(SMOLLM2, progress=False)
    examples = gpt2_offset_examples(smol, [find_context("This is a tulip.", "tulip")])
    # The +1 reads the token after the stimulus' first subword: its second subword.
    assert examples.loc[0, "token read (bug)"] == "ul"
    assert examples.loc[0, "stimulus' tokens in the real input (fixed)"] == "Ġtul ip"
    landing = gpt2_landing(smol, ["C9"])
    n = sum(len(c) for c in myb_contexts("MYB-C9-term").values())
    assert landing.loc["All", "All"] == n == landing.loc["All", "C9"]
    assert set(landing.index) <= {"padding (last word)", "the stimulus' second subword",
                                  "the next word's first subword", "All"}


# --------------------------------------------------------------------------- findings


def test_published_p_marks_a_printed_zero():
    from biasbook.elmo_bug import AS_PRINTED_ZERO, published_p

    assert published_p(0.0) == AS_PRINTED_ZERO == "0†"
    assert published_p(0.0027) == "0.003"


def test_findings_are_three_claims_of_husse_and_spitz():
    from biasbook.elmo_bug import findings

    found = findings()
    assert len(found) == 3
    assert {f.paper for f in found} == {"Husse & Spitz (2022)"}


def test_findings_verdicts_match_a_hand_computation_from_the_stored_table():
    from biasbook.elmo_bug import MINILM, findings

    elmo, _ = load_results("elmo_bug")
    shrinks, flips, significance = findings()
    # By hand from the stored rows: mean |d| of MiniLM's s-SEAT tests, bug vs fixed.
    rows = elmo[(elmo["column"] == MINILM) & (elmo["method"] == "s-SEAT")]
    d = rows.pivot_table(index="test", columns="replay", values="effect_size")
    assert f"s-SEAT {d['bug'].abs().mean():.2f} vs {d['fixed'].abs().mean():.2f}" in shrinks.ours
    # Sign flips of the same rows, and the count of tests significant at 0.01.
    assert f"s-SEAT {int((np.sign(d['bug']) != np.sign(d['fixed'])).sum())} of {len(d)}" in (
        flips.ours)
    p = rows.pivot_table(index="test", columns="replay", values="p_value")
    assert (f"{MINILM}: s-SEAT {int((p['bug'] <= 0.01).sum())} vs "
            f"{int((p['fixed'] <= 0.01).sum())}") in significance.ours
    # Every model: the buggy scores are smaller, so the first verdict holds.
    ours = elmo.pivot_table(index=["column", "method", "test"], columns="replay",
                            values="effect_size").dropna()
    by_model = ours.abs().groupby(level=["column", "method"]).mean()
    assert shrinks.holds is bool((by_model["bug"] < by_model["fixed"]).all())
