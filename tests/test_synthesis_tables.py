"""Mind Your Bias's Tables 11–14 in full (biasbook.synthesis_tables).

The table builder is checked on toy frames whose answer is known (every printed cell once,
ours on the right row); the stored table ``synthesis_choices`` by recomputing a slice.
"""

import numpy as np
import pandas as pd
import pytest

from biasbook.stored import load_results
from biasbook.synthesis_tables import (
    CHOICES_TABLE,
    MYB_GROUP,
    OPTIONS,
    OURS_GROUP,
    TABLE11_OTHER,
    TABLE14_SETS,
    choice_table,
    ours_long,
    published_cells,
)
from biaslib.stimuli.data import load_published, load_test

STORED = ("seat_myb", "seat_corpus", "ceat_myb", "ceat_contexts", "lpbs_myb", "lpbs_reddit",
          "synthesis_tiny_mlm", CHOICES_TABLE)
METHODS = {11: ("s-SEAT", "w-SEAT", "CEAT", "LPBS"), 12: ("s-SEAT", "w-SEAT", "CEAT", "LPBS"),
           13: ("SEAT", "CEAT"), 14: ("cosine", "probability")}
COUNTS = {11: 192, 12: 251, 13: 288, 14: 36}


@pytest.fixture(scope="module")
def ours():
    return ours_long({name: load_results(name)[0] for name in STORED})


# --- the builder on toy frames ----------------------------------------------------------------

def toy_published():
    return pd.DataFrame({
        "method": ["CEAT"] * 4 + ["LPBS"],
        "test": ["C3", "C3", "C6", "C6", "C3"],
        "model": ["BERT", "GPT-2", "BERT", "BERT", "BERT"],
        "option": ["names", "names", "names", "terms", "terms"],
        "d": ["0.55", "-0.21", "n/a", "0.30", "0.43"],
        "sig": [True, False, False, True, False],
    })


def test_every_printed_cell_appears_exactly_once():
    pub = toy_published()
    table = choice_table(pub, pd.DataFrame(), "CEAT", options=("names", "terms"))
    printed = table[MYB_GROUP]
    assert (printed != "").to_numpy().sum() == 4  # the LPBS cell belongs to another table
    assert printed.loc[("C3", "names"), "BERT"] == "0.55*"
    assert printed.loc[("C3", "names"), "GPT-2"] == "−0.21"
    assert printed.loc[("C6", "names"), "BERT"] == "n/a"  # kept as printed
    assert printed.loc[("C6", "terms"), "BERT"] == "0.30*"
    assert list(printed.columns) == ["BERT", "GPT-2"]  # the paper's order, printed models only
    # a row without any cell is left out
    assert ("C3", "terms") not in table.index


def test_ours_is_aligned_to_its_row_and_column():
    ours = pd.DataFrame({
        "method": ["CEAT", "CEAT", "CEAT", "LPBS"],
        "test": ["C6", "C3", "C6", "C6"], "option": ["terms", "names", "names", "terms"],
        "column": ["MiniLM", "tiny MLM", "tiny MLM", "MiniLM"],
        "effect_size": [-0.123, 0.5, np.nan, 9.0], "p_value": [0.001, 0.02, np.nan, 0.0],
        "not run": ["", "", "too few contexts", ""],
    })
    table = choice_table(toy_published(), ours, "CEAT", options=("names", "terms"),
                         ours_columns=("MiniLM", "tiny MLM"))
    mine = table[OURS_GROUP]
    assert mine.loc[("C6", "terms"), "MiniLM"] == "−0.12*"
    assert mine.loc[("C3", "names"), "tiny MLM"] == "0.50"  # p = 0.02: not significant
    assert mine.loc[("C6", "names"), "tiny MLM"] == "–"  # did not run
    assert mine.loc[("C3", "names"), "MiniLM"] == ""  # not computed
    assert (mine != "9.00*").all().all()  # another method's row stays out


def test_duplicates_and_unknown_options_are_refused():
    pub = toy_published()
    with pytest.raises(ValueError, match="given twice"):
        choice_table(pd.concat([pub, pub.iloc[:1]]), pd.DataFrame(), "CEAT",
                     options=("names", "terms"))
    with pytest.raises(ValueError, match="unknown options"):
        choice_table(pub, pd.DataFrame(), "CEAT", options=("names",))


# --- the real tables ---------------------------------------------------------------------------

@pytest.mark.parametrize("table", [11, 12, 13, 14])
def test_every_typed_in_cell_is_shown_once(table, ours):
    pub = published_cells(table)
    assert len(pub) == COUNTS[table]
    shown = 0
    for method in METHODS[table]:
        view = choice_table(pub, ours[ours["table"] == table], method, options=OPTIONS[table])
        shown += int((view[MYB_GROUP] != "").to_numpy().sum())
    assert shown == COUNTS[table]


def test_ours_long_reads_the_stored_numbers(ours):
    # Spot checks against the stored CSVs, read independently here.
    seat = load_results("seat_myb")[0]
    row = seat[(seat["column"] == "all-MiniLM-L6-v2") & (seat["method"] == "w-SEAT")
               & (seat["test"] == "C3")].iloc[0]
    mine = ours[(ours["table"] == 13) & (ours["method"] == "SEAT") & (ours["option"] == "avg.")
                & (ours["column"] == "MiniLM") & (ours["test"] == "C3")]
    assert len(mine) == 1 and mine["effect_size"].iloc[0] == row["effect_size"]
    choices = load_results(CHOICES_TABLE)[0]
    pick = choices[(choices["table"] == 11) & (choices["method"] == "CEAT")
                   & (choices["column"] == "SPLADE-tiny-MLM") & (choices["test"] == "C9")]
    mine = ours[(ours["table"] == 11) & (ours["method"] == "CEAT") & (ours["option"] == "names")
                & (ours["column"] == "tiny MLM") & (ours["test"] == "C9")]
    assert len(pick) == len(mine) == 1
    assert mine["effect_size"].iloc[0] == pick["effect_size"].iloc[0]
    corpus = load_results("seat_corpus")[0]
    row = corpus[(corpus["column"] == "SmolLM2-135M-Instruct") & (corpus["method"] == "s-SEAT")
                 & (corpus["test"] == "C9")].iloc[0]
    mine = ours[(ours["table"] == 12) & (ours["method"] == "s-SEAT") & (ours["option"] == "reddit")
                & (ours["column"] == "SmolLM2") & (ours["test"] == "C9")]
    assert len(mine) == 1 and mine["effect_size"].iloc[0] == row["effect_size"]
    # one row per cell
    keys = ["table", "method", "test", "option", "column"]
    assert not ours.duplicated(keys).any()


def test_table11_other_descriptions_are_the_other_ones():
    table3 = load_published("myb_table3")
    used = dict(zip(table3["test"], table3["csv_target_description"], strict=False))
    for test, stimuli in TABLE11_OTHER.items():
        assert load_test(stimuli).name == stimuli
        other = "term" if used[test] == "names" else "name"
        assert stimuli == f"MYB-{test}-{other}"


def test_table14_sets_follow_the_result_file():
    pub = load_published("myb_tables_11_14")
    cos = pub[(pub["table"] == 14) & (pub["variant"] == "cosine similarity")
              & (pub["word_set"] != "full")]
    names = {"simpl.": "simplified", "redu.": "reduced"}
    expected = {(r.test, names[r.word_set]): f"LPBS-{r.test}-{r.csv_target_description[:-1]}-"
                f"{names[r.word_set]}" for r in cos.itertuples()}
    assert TABLE14_SETS == expected


def test_stored_table_is_labelled_and_complete():
    frame, meta = load_results(CHOICES_TABLE)
    assert "not the paper's models" in meta["what"]
    assert meta["sentences_per_stimulus"] == 100 and meta["extract_sha256"]
    counts = frame.groupby(["table", "method"]).size().to_dict()
    # SEAT: CBoW, MiniLM, tiny masked LM (start/end: not CBoW); CEAT: tiny masked LM
    assert counts[(11, "s-SEAT")] == counts[(11, "w-SEAT")] == 6 * 3
    assert counts[(11, "CEAT")] == 6
    assert counts[(12, "CEAT")] == 8
    assert counts[(13, "w-SEAT")] == 8 * 2 * 2
    assert counts[(13, "CEAT")] == 8 * 3
    assert counts[(14, "CEAT")] == len(TABLE14_SETS)
    assert set(frame["column"]) == {"CBoW (GloVe 6B 50d)", "all-MiniLM-L6-v2", "SPLADE-tiny-MLM"}
    # no silent NaN: a cell without an effect size says why
    missing = frame[frame["effect_size"].isna()]
    assert (missing["not run"].fillna("") != "").all()


# --- recomputed slices ------------------------------------------------------------------------

def test_choices_seat_slice():
    # s-SEAT/w-SEAT of MYB-C9-name and w-SEAT of MYB-C9-term at start/end (no corpus).
    from biasbook.registry import get_table

    check = get_table(CHOICES_TABLE).slices[0]
    stored, _ = load_results(CHOICES_TABLE)
    fresh = check.fresh()
    assert set(fresh["method"]) == {"s-SEAT", "w-SEAT"}
    check.compare(fresh, stored)
    assert list(fresh.columns) == [c for c in stored.columns if c in fresh.columns]


def test_choices_ceat_slice():
    # CEAT of C9 in every new setting: needs the corpus extract, skips without it.
    from biasbook.registry import get_table
    from biaslib.stimuli.corpus import corpus_dir, extract_sha256

    try:
        corpus_dir()
    except FileNotFoundError as err:
        pytest.skip(f"the stored CEAT rows are recomputed from the corpus extract: {err}")
    stored, meta = load_results(CHOICES_TABLE)
    assert meta["extract_sha256"] == extract_sha256()
    check = get_table(CHOICES_TABLE).slices[1]
    fresh = check.fresh()
    assert set(fresh["method"]) == {"CEAT"}
    check.compare(fresh, stored)
    assert list(fresh.columns) == [c for c in stored.columns if c in fresh.columns]


def test_tiny_encoder_and_cap_are_the_synthesis_chapters():
    from biasbook import synthesis, synthesis_tables

    # One definition: the synthesis chapter's synthesis_tiny_mlm uses this module's.
    assert synthesis.tiny_mlm_encoder is synthesis_tables.tiny_mlm_encoder
    assert synthesis.CEAT_CAP == synthesis_tables.CEAT_CAP == 100
    spec = synthesis_tables.tiny_mlm_encoder()
    assert (spec.sentence_pooling, spec.word_pooling) == ("mean", "mean")


def test_sentence_vectors_read_whole_sentences():
    from biasbook.synthesis_tables import SentenceVectors
    from biaslib.stimuli.contexts import Context

    class Toy:
        name, fingerprint, layer = "toy", "w", "last"

        def encode_sentences(self, texts, pooling):
            return np.array([[len(t), pooling == "mean"] for t in texts], dtype=float)

    enc = SentenceVectors(Toy(), "mean")
    ctx = [Context(text="a cat sat", word="cat", form="cat", start=2, end=5, source="t")]
    assert enc.encode_words(ctx, pooling="first").tolist() == [[9.0, 1.0]]
    assert (enc.name, enc.fingerprint, enc.layer) == ("toy", "w", "last")


def test_switch_summary_counts_by_hand():
    from biasbook.synthesis_tables import switch_summary

    long = pd.DataFrame({
        "group": "g", "model": "m", "method": "CEAT",
        "test": ["C1", "C1", "C3", "C3", "C6", "C6", "C9"],
        "option": ["a", "b", "a", "b", "a", "b", "a"],
        "d": [0.5, -0.2, 0.3, 0.4, 0.0, -0.1, 1.0],
        "sig": [True, False, True, True, False, True, True]})
    row = switch_summary(long, "a", "b").iloc[0]
    assert row["tests"] == 3  # C9 has no "b"
    assert row["sign flips"] == 1  # C1; C6's 0.00 has no sign
    assert row["significance changes"] == 2  # C1, C6
    assert row["mean d a"] == pytest.approx((0.5 + 0.3 + 0.0) / 3)


def test_compact_summary_names_the_source_in_the_model():
    from biasbook.synthesis_tables import compact_summary, switch_summary

    long = pd.DataFrame({
        "group": [MYB_GROUP] * 2 + [OURS_GROUP] * 2, "model": ["BERT"] * 2 + ["MiniLM"] * 2,
        "method": "CEAT", "test": "C1", "option": ["a", "b"] * 2, "d": [0.5, 0.4, 0.1, -0.1],
        "sig": [True, True, False, True]})
    out = compact_summary(switch_summary(long, "a", "b"))
    assert list(out.index) == [("BERT (MYB)", "CEAT"), ("MiniLM (ours)", "CEAT")]
    assert "sig. changes" in out.columns and "sig. a" in out.columns
    assert out.loc[("MiniLM (ours)", "CEAT"), "sign flips"] == 1
