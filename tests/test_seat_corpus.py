"""SEAT chapter, issue 23: May et al.'s §4 sensitivity rules and SEAT on corpus sentences.

The rules are checked on hand-made p-values and on May et al.'s own numbers (their text
says which of them agree and which do not); the corpus sampler on a small hand-made
extract; the stored ``seat_corpus`` table on a recomputed slice (skips without the
corpus extract).
"""

import math

import numpy as np
import pandas as pd
import pytest
from shared_paths import require_corpus

from biasbook import seat
from biasbook.published import MYB_TABLE3
from biasbook.registry import get_table
from biasbook.stored import load_results
from biaslib.errors import MissingWordsError
from biaslib.stimuli.data import load_published, load_test

# --------------------------------------------------------------------------- the C7/C8 rule


@pytest.mark.parametrize(("p7", "p8", "verdict"), [
    (1e-5, 0.14, "discordant"),     # May et al.'s BERT, sentences
    (0.12, 1e-3, "discordant"),     # GenSen
    (0.89, 1e-4, "discordant"),     # GPT
    (0.016, 0.01, "agree"),         # CBoW words: opposite sides of 0.01, 0.2 orders apart
    (1e-5, 1e-5, "agree"),
    (0.04, 0.713, "agree"),         # 1.25 orders apart, neither significant at 0.01
    (1e-5, 1e-3, "agree"),          # 2 orders apart, both significant
    (0.002, 0.05, "discordant"),    # log10(0.05 / 0.002) = 1.40 > 1
    (0.005, 0.04, "agree"),         # log10(8) = 0.90 < 1
])
def test_pair_verdict_by_hand(p7, p8, verdict):
    assert seat.pair_verdict(p7, p8) == verdict
    assert seat.pair_verdict(p8, p7) == verdict  # symmetric


def test_pair_verdict_floors_at_sent_bias_precision_and_reads_alpha():
    # 1e-7 is floored at 1e-5: 1e-5 vs 1e-4 is 1 order apart, not more.
    assert seat.pair_verdict(1e-7, 0.011, alpha=0.01) == "discordant"
    assert seat.pair_verdict(1e-7, 1e-4, alpha=5e-5) == "agree"
    # At 0.05, SmolLM2's word pair (0.040 vs 0.713) would be discordant.
    assert seat.pair_verdict(0.04, 0.713, alpha=0.05) == "discordant"


# --------------------------------------------------------------------------- the chain rule


@pytest.mark.parametrize(("ps", "verdict"), [
    ([1e-5, 1e-5, 1e-4], "rises or ties"),          # May et al.'s CBoW, words
    ([1e-5, 1e-5, 1e-2], "rises or ties"),          # CBoW, sentences
    ([0.95, 0.45, 0.08], "falls"),                  # ELMo, words: all above 0.01
    ([1.0, 0.97, 1e-4], "falls across α"),          # ELMo, sentences
    ([0.173, 0.472, 1e-5], "falls across α"),       # a step up, then across 0.01
    ([8e-5, 1e-5, 1e-5], "falls"),                  # 8e-5 - 2 sqrt(8e-5/1e5) = 2.3e-5 > 1e-5
    ([2e-6, 1e-5, 1e-5], "rises or ties"),          # below the floor: equal
])
def test_chain_verdict_by_hand(ps, verdict):
    assert seat.chain_verdict(ps) == verdict


def test_chain_verdict_treats_monte_carlo_error_as_a_tie():
    # Two standard errors at p = 0.5 with 100,000 resamples: 2 * sqrt(0.25 / 1e5) = 0.00316.
    se2 = 2 * math.sqrt(0.25 / 1e5)
    assert seat.chain_verdict([0.5, 0.5 - 0.9 * se2, 0.6]) == "rises or ties"
    assert seat.chain_verdict([0.5, 0.5 - 1.1 * se2, 0.6]) == "falls"
    # Fewer resamples, larger error: the same step is a tie.
    assert seat.chain_verdict([0.5, 0.49, 0.6], n_resamples=1_000) == "rises or ties"
    assert seat.chain_verdict([0.5, 0.49, 0.6]) == "falls"


# --------------------------------------------------------------------------- the checks


def _may_rows(rows):
    """A toy may_table frame: (column, stimuli, context, p)."""
    return pd.DataFrame([{"column": c, "stimuli": t, "context": x, "p_value": p,
                          "effect_size": 0.5} for c, t, x, p in rows])


def test_the_rules_read_may_et_al_s_numbers_as_their_text_does():
    pvalues = seat.sensitivity_pvalues()
    assert len(pvalues) == 22  # every p-value typed in from §4
    checks = seat.sensitivity_checks(pvalues)["verdict"].droplevel("source").to_dict()
    assert checks == {
        ("CBoW (GloVe 840B)", "word", "C7 vs C8"): "agree",
        ("CBoW (GloVe 840B)", "word", "C3 → C4 → C5"): "rises or ties",
        ("CBoW (GloVe 840B)", "sent", "C7 vs C8"): "agree",
        ("CBoW (GloVe 840B)", "sent", "C3 → C4 → C5"): "rises or ties",
        ("BERT (large, cased)", "sent", "C7 vs C8"): "discordant",
        ("GenSen", "sent", "C7 vs C8"): "discordant",
        ("GPT", "sent", "C7 vs C8"): "discordant",
        ("ELMo", "word", "C3 → C4 → C5"): "falls",
        ("ELMo", "sent", "C3 → C4 → C5"): "falls across α"}


def test_checks_need_every_p_value_of_a_rule_and_skip_rows_that_did_not_run():
    may = _may_rows([("m", "C7", "word", 0.001), ("m", "C8", "word", 0.5),
                     ("m", "C3", "word", 0.2), ("m", "C4", "word", 0.3),
                     ("m", "C5", "word", float("nan")),   # not run: no chain check
                     ("m", "C7", "sent", 0.001),          # no C8: no pair check
                     ("m", "C6", "word", 0.001)])         # not part of the argument
    pvalues = seat.sensitivity_pvalues(may)
    ours = pvalues[pvalues["model"] == "m"]
    assert sorted(zip(ours["test"], ours["context"], strict=True)) == [
        ("C3", "word"), ("C4", "word"), ("C7", "sent"), ("C7", "word"), ("C8", "word")]
    checks = seat.sensitivity_checks(ours)
    assert list(checks.index) == [(seat.PAPER_GROUP, "m", "word", "C7 vs C8")]
    row = checks.iloc[0]
    assert row["verdict"] == "discordant" and row["p-values"] == "0.001 vs 0.5"
    assert row["orders apart"] == pytest.approx(np.log10(500))


def test_pvalue_table_shows_all_22_published_values_where_the_text_puts_them():
    table = seat.sensitivity_pvalue_table(seat.sensitivity_pvalues())
    published = table[seat.PUBLISHED_SOURCE]
    assert (published != "").sum().sum() == 22
    assert published.loc[("C8", "sent"), "BERT large"] == "0.14"
    assert published.loc[("C5", "sent"), "ELMo"] == "1.0e-04"
    assert published.loc[("C7", "word"), "GPT"] == ""  # not quoted


def test_evidence_counts_by_hand():
    may = _may_rows([("m", "C1", "word", 0.001), ("m", "C1", "sent", 0.02),
                     ("m", "C3", "word", 0.005)])
    may.loc[2, "effect_size"] = -0.4  # significant but negative: not counted
    counts = seat.evidence_counts(may)
    assert counts.loc[(seat.PAPER_GROUP, "m"), "significant"] == "1 of 3"
    # May et al.'s Table 4: BERT's starred positive cells are C1 sent and DB-competent
    # sent (u).
    t4 = load_published("seat_table4").query("model == 'BERT (large, cased)'")
    starred = t4[(t4["sig"].fillna("") != "") & (t4["d"] > 0)]
    assert sorted(zip(starred["test"], starred["context"], strict=True)) == [
        ("C1", "sent"), ("DB-competent", "sent (u)")]
    assert counts.loc[(seat.MAY_GROUP, "BERT (large, cased)"), "k"] == 2


def test_sensitivity_findings_on_the_stored_table():
    may, _ = load_results("seat_may")
    models = [m.label for m in seat.OFFLINE_SEAT_MODELS]
    found = {f.claim.split(" ")[0]: f for f in seat.sensitivity_findings(may, models)}
    assert found["C3"].holds == "yes" and "6 of 6" in found["C3"].ours
    assert found["C7"].holds is False and "discordant 0 of 6" in found["C7"].ours
    assert found["C7"].published.startswith("§4: discordant 3 of 5")
    assert {f.section for f in found.values()} == {"seat-sensitivity", "seat-bert-evidence"}


# --------------------------------------------------------------------------- corpus sentences


def _extract(rows):
    """A hand-made read_extract table: (stimulus, sentence)."""
    return pd.DataFrame([{"stimulus": w, "source": "reddit_2014", "sentence": s,
                          "month": "2014-01", "subreddit": "test", "line": i + 1}
                         for i, (w, s) in enumerate(rows)])


C6 = load_test(MYB_TABLE3["C6"])  # 8 names each side, 8 career / 8 family words


def _c6_rows(per_word=3, skip=()):
    rows = []
    for role in ("X", "Y", "A", "B"):
        for w in C6.sets[role].words:
            if w in skip:
                continue
            rows += [(w, f"Sentence {i} says {w} here and then goes on for many more words "
                         f"{role}{i}") for i in range(per_word)]
    return rows


def test_corpus_sample_is_seeded_nested_and_windowed():
    frame = _extract(_c6_rows(per_word=6))
    a = seat.corpus_seat_contexts(C6, cap=3, seed=1, frame=frame)
    b = seat.corpus_seat_contexts(C6, cap=3, seed=1, frame=frame)
    assert [c.text for c in a.contexts["X"]] == [c.text for c in b.contexts["X"]]
    assert len(a.contexts["X"]) == 3 * len(C6.sets["X"].words)
    more = seat.corpus_seat_contexts(C6, cap=5, seed=1, frame=frame)
    assert {c.text for c in a.contexts["A"]} <= {c.text for c in more.contexts["A"]}
    other = [seat.corpus_seat_contexts(C6, cap=3, seed=s, frame=frame) for s in range(2, 6)]
    assert any([c.text for c in o.contexts["X"]] != [c.text for c in a.contexts["X"]]
               for o in other)
    # Mind Your Bias's window: nine words around a one-word stimulus.
    assert all(len(c.text.split()) == 9 for r in "XYAB" for c in a.contexts[r])
    assert all(c.text[c.start:c.end] == c.form for c in a.contexts["Y"])
    assert a.no_sentences == {r: () for r in "XYAB"} and a.shared == 0


def test_corpus_sample_drops_and_names_stimuli_without_sentences():
    x = C6.sets["X"].words
    frame = _extract(_c6_rows(skip=(x[0],)))
    sample = seat.corpus_seat_contexts(C6, cap=2, frame=frame)
    assert sample.no_sentences["X"] == (x[0],)
    assert sample.dropped_text() == f"X: {x[0]}"
    assert {c.word for c in sample.contexts["X"]} == set(x[1:])
    # 2 of 8 (25%) is more than a fifth: refused, naming the stimuli.
    frame = _extract(_c6_rows(skip=(x[0], x[1])))
    with pytest.raises(MissingWordsError, match=rf"X: 2/8 stimuli without sentences.*{x[1]}"):
        seat.corpus_seat_contexts(C6, cap=2, frame=frame)
    assert seat.corpus_seat_contexts(C6, cap=2, frame=frame, max_missing_fraction=0.25)


def test_corpus_sample_drops_a_sentence_standing_in_both_sets():
    x, y = C6.sets["X"].words[0], C6.sets["Y"].words[0]
    both = f"Yesterday {x} and {y} went out."
    frame = _extract([*_c6_rows(per_word=1), (x, both), (y, both)])
    sample = seat.corpus_seat_contexts(C6, cap=5, frame=frame)
    assert sample.shared == 2
    assert both not in {c.text for r in "XY" for c in sample.contexts[r]}
    assert len(sample.contexts["X"]) == len(C6.sets["X"].words)


# --------------------------------------------------------------------------- the stored table


def test_table12_rows_from_the_stored_tables():
    rows = seat.seat_table12_rows()
    assert list(rows.columns) == ["test", "model", "method", "context", "d", "p",
                                  "n sentences", "not run"]
    assert set(rows["context"]) == {"templates", "corpus"}
    assert set(rows["method"]) == {"s-SEAT", "w-SEAT"}
    assert list(dict.fromkeys(rows["test"])) == list(MYB_TABLE3)
    ran = rows["not run"] == ""
    assert rows.loc[ran, ["d", "p"]].notna().all().all()
    assert (rows.loc[ran, "n sentences"] > 0).all()
    assert rows.loc[~ran, "d"].isna().all() and (rows.loc[~ran, "n sentences"] == 0).all()
    # Dis has too few stimuli in the extract: not run on corpus sentences, for every model.
    dis = rows[(rows["test"] == "Dis") & (rows["context"] == "corpus")]
    assert len(dis) == 6 and (dis["not run"] != "").all()


def test_table12_tables_show_mind_your_bias_s_cells_as_typed_in():
    tables = seat.table12_seat_tables(seat.seat_table12_rows())
    pub = tables["published"]
    assert pub.shape == (16, 10)
    assert pub.loc[("C1", "s-SEAT"), ("BERT", "reddit")] == "0.61*"
    assert pub.loc[("C9", "w-SEAT"), ("GPT-2", "template")].startswith("−0.90")
    ours = tables["ours"]
    assert list(ours.columns.get_level_values("contexts")) == ["templates", "corpus"] * 3
    assert ours.loc[("Dis", "s-SEAT"), ("CBoW", "corpus")] == "–"


def test_table12_summary_counts_the_cells_of_both_tables():
    rows = seat.seat_table12_rows()
    summary = seat.table12_summary(rows)
    assert list(summary.index) == ["significant, s-SEAT", "significant, w-SEAT", "mean |d|"]
    # Mind Your Bias's side, counted here from the typed-in Table 12: bold cells per
    # method and variant, over all their models and tests.
    pub = load_published("myb_tables_11_14").query(
        "table == 12 and method in ['s-SEAT', 'w-SEAT']")
    bold = pub["sig"].map(lambda v: str(v).lower() == "true")
    for method in ("s-SEAT", "w-SEAT"):
        for variant, column in (("template", "templates"), ("reddit", "Reddit")):
            mine = (pub["method"] == method) & (pub["variant"] == variant)
            assert summary.loc[f"significant, {method}", ("Mind Your Bias, Table 12", column)] \
                == f"{int(bold[mine].sum())} of {int(mine.sum())}"
    # Ours: only the (test, model, method) triples that ran in both contexts count.
    ran = rows[rows["not run"] == ""]
    both = ran.groupby(["test", "model", "method"])["context"].transform("nunique") == 2
    ran = ran[both]
    for context, column in (("templates", "templates"), ("corpus", "corpus extract")):
        here = ran[ran["context"] == context]
        assert summary.loc["mean |d|", ("ours", column)] == f"{here['d'].abs().mean():.2f}"
        s_seat = here[here["method"] == "s-SEAT"]
        assert summary.loc["significant, s-SEAT", ("ours", column)] == (
            f"{int((s_seat['p'] <= 0.01).sum())} of {len(s_seat)}")
    # Dis ran with templates but not on the corpus: it is left out of both of our columns.
    assert "Dis" not in set(ran["test"])


def test_seat_corpus_provenance():
    stored, meta = load_results("seat_corpus")
    assert meta["sentences_per_stimulus"] == {"CBoW (GloVe 6B 50d)": 10,
                                              "all-MiniLM-L6-v2": 10,
                                              "SmolLM2-135M-Instruct": 4}
    assert meta["sample_seed"] == seat.CORPUS_SEED and meta["tests"] == MYB_TABLE3
    from biaslib.stimuli.corpus import SHARED_EXTRACT_SHA256

    assert meta["extract_sha256"] == SHARED_EXTRACT_SHA256
    assert set(meta["models"]) == set(stored["column"])


def test_seat_corpus_slice():
    require_corpus("seat_corpus is recomputed from the corpus extract")
    stored, _ = load_results("seat_corpus")
    (fresh,) = get_table("seat_corpus").check_slices(stored)
    assert list(fresh.columns) == list(stored.columns)
    assert set(fresh["test"]) == set(seat.SEAT_CORPUS_SLICE)


# --------------------------------------------------------------------------- sentences per stimulus

#: Columns of ``seat_corpus_caps`` a recomputed slice must match exactly (as ``seat_corpus``).
_CAPS_EXACT = ["variant", "model", "level", "pooling", "layer", "convention", "encoder",
               "weights", "n_x", "n_y", "n_a", "n_b", "not run", "contexts", "no sentences",
               "shared dropped", "left out"]


def test_seat_corpus_caps_provenance():
    stored, meta = load_results("seat_corpus_caps")
    assert meta["sentences_per_stimulus"] == list(seat.CORPUS_CAP_STUDY) == [3, 10, 30, 100]
    assert meta["sample_seed"] == seat.CORPUS_SEED and meta["tests"] == MYB_TABLE3
    from biaslib.stimuli.corpus import SHARED_EXTRACT_SHA256

    assert meta["extract_sha256"] == SHARED_EXTRACT_SHA256
    assert set(meta["models"]) == set(stored["column"]) == {"all-MiniLM-L6-v2"}
    assert sorted(set(stored["cap"])) == [3, 10, 30, 100]
    # Each cap's label says its cap; more sentences per stimulus, more sentences tested.
    for cap, rows in stored.groupby("cap"):
        assert set(rows["contexts"]) == {seat._CORPUS_LABEL.format(cap=cap)}
    sizes = stored[stored["not run"].fillna("") == ""].groupby("cap")["n_a"].sum()
    assert sizes.is_monotonic_increasing and sizes.is_unique


def test_seat_corpus_caps_at_10_is_seat_corpus():
    # The samples are nested and seeded alike: the cap-10 rows are seat_corpus's MiniLM rows
    # (computed in another run, so equal within the stored tables' tolerances).
    from biasbook.stored import compare_with_stored

    caps, _ = load_results("seat_corpus_caps")
    corpus, _ = load_results("seat_corpus")
    ten = caps[caps["cap"] == 10].drop(columns="cap")
    mini = corpus[corpus["column"] == "all-MiniLM-L6-v2"]
    assert len(ten) == len(mini) == 2 * len(MYB_TABLE3)
    compare_with_stored(ten, mini, ["column", "method", "test"], exact=_CAPS_EXACT,
                        numbers=["effect_size"], p_values=["p_value"])


def test_seat_corpus_caps_slice():
    require_corpus("seat_corpus_caps is recomputed from the corpus extract")
    from biasbook.stored import compare_with_stored

    stored, _ = load_results("seat_corpus_caps")
    fresh = seat._caps_slice()
    assert list(fresh.columns) == list(stored.columns)
    assert set(fresh["test"]) == set(seat.SEAT_CAPS_SLICE)
    assert sorted(set(fresh["cap"])) == list(seat.CORPUS_CAP_STUDY)
    compare_with_stored(fresh, stored, ["column", "method", "test", "cap"], exact=_CAPS_EXACT,
                        numbers=["effect_size"], p_values=["p_value"])


def _caps_rows(ds):
    """A toy corpus_caps_table: {(test, method): {cap: (d, p)}}."""
    return pd.DataFrame([{"test": t, "method": m, "cap": cap, "effect_size": d, "p_value": p,
                          "not run": "", "column": "toy"}
                         for (t, m), by_cap in ds.items() for cap, (d, p) in by_cap.items()])


def test_caps_claim_by_hand():
    toy = _caps_rows({("C1", "s-SEAT"): {10: (0.5, 0.001), 30: (0.6, 0.001)},
                      ("C3", "w-SEAT"): {10: (0.2, 0.02), 30: (0.1, 0.005)}})
    found = seat._claim_hundred_suffice(toy)
    assert found.holds == "yes, 10 vs 30 (1,000 not run)"
    assert "largest 10 → 30: 0.10" in found.ours
    assert "unchanged in 1 of 2" in found.ours
    assert found.section == "seat-corpus-sentences"
    # A change of 0.2 or more is not "of similar magnitude".
    toy.loc[1, "effect_size"] = 0.75  # C1, 30: 0.5 → 0.75
    assert seat._claim_hundred_suffice(toy).holds == "no: d moves by up to 0.25 from 10 to 30"
    table = seat.caps_summary(toy)
    assert list(table.columns) == ["d (≤ 10)", "d (≤ 30)", "|change|, 10 → 30"]
    assert table.loc[("C3", "w-SEAT")].tolist() == ["0.20", "0.10*", "0.10"]


def test_caps_claim_on_the_stored_table():
    caps, _ = load_results("seat_corpus_caps")
    found = seat._claim_hundred_suffice(caps)
    assert found.holds == "yes, 30 vs 100 (1,000 not run)"
    assert "largest 30 → 100: 0.17 (C9 w-SEAT)" in found.ours
    assert found in seat.findings()
