"""SEAT/w-SEAT plumbing: contexts in, WEAT out; the bag-of-words (CBoW) encoder."""

import numpy as np
import pytest

from biaslib.embeddings import BagOfWordsEncoder, StaticEmbeddings
from biaslib.embeddings.base import ContextEncoder
from biaslib.errors import DroppedStimuliWarning, MissingWordsError
from biaslib.evaluate.seat import embed_contexts, seat_table
from biaslib.evaluate.tidy import paper_test
from biaslib.methods.weat import weat
from biaslib.stimuli.contexts import find_context
from biaslib.stimuli.data import load_test
from biaslib.stimuli.templates import seat_contexts

VOCAB = ["this", "is", "a", "an", ".", "rose", "ant", "love", "filth", "european", "american"]


@pytest.fixture
def cbow():
    rng = np.random.default_rng(0)
    table = StaticEmbeddings(VOCAB, rng.normal(size=(len(VOCAB), 5)), "toy", case="lower")
    return BagOfWordsEncoder(table)


def test_cbow_sentence_is_the_mean_of_its_token_vectors(cbow):
    vec = cbow.encode_sentences(["This is a rose."])[0]
    rows = [cbow.table.index[w] for w in ("this", "is", "a", "rose", ".")]
    np.testing.assert_allclose(vec, cbow.table.vectors[rows].mean(0))


def test_cbow_word_vector_ignores_context(cbow):
    a = cbow.encode_words([find_context("This is a rose.", "rose")])[0]
    b = cbow.encode_words([find_context("An ant is a rose.", "rose")])[0]
    np.testing.assert_allclose(a, b)
    phrase = cbow.encode_words([find_context("This is a European American.",
                                             "European American")])[0]
    rows = [cbow.table.index["european"], cbow.table.index["american"]]
    np.testing.assert_allclose(phrase, cbow.table.vectors[rows].mean(0))


def test_cbow_unknown_tokens_are_counted_and_all_unknown_raises(cbow):
    cbow.encode_sentences(["This is a tulip."])
    assert cbow.oov["tulip"] == 1
    assert not cbow.known(find_context("This is a tulip.", "tulip"))
    with pytest.raises(KeyError, match="no token"):
        cbow.encode_sentences(["Tulips"])


def test_cbow_refuses_a_bare_string(cbow):
    with pytest.raises(TypeError):
        cbow.encode_sentences("This is a rose.")


def toy_contexts():
    def ctxs(words):
        return tuple(find_context(f"This is a {w}.", w) for w in words)

    return {"X": ctxs(["rose", "tulip"]), "Y": ctxs(["ant"]), "A": ctxs(["love"]),
            "B": ctxs(["filth"])}


def test_embed_contexts_drops_and_reports_unknown_stimuli(cbow):
    test = load_test("C1")
    with pytest.raises(MissingWordsError, match=r"X: 1/2 stimuli missing \['tulip'\]"):
        embed_contexts(test, toy_contexts(), cbow, ["sentence"])
    with pytest.warns(DroppedStimuliWarning, match=r"C1, X: dropped \['tulip'\]"):
        embedded = embed_contexts(test, toy_contexts(), cbow, ["sentence"],
                                  max_missing_fraction=0.5)["sentence"]
    assert embedded.sets["X"].missing == ("tulip",)
    assert embedded.sets["X"].words == ("This is a rose.",)
    assert "[sentence" in embedded.embedder


def test_contexts_of_another_test_are_refused(cbow):
    """embed_contexts(load_test("C1"), seat_contexts("C3")) must not report C1."""
    with pytest.raises(ValueError, match="not in C1's X set"):
        embed_contexts(load_test("C1"), seat_contexts("C3", "bleached"), cbow)


def test_a_missing_role_and_a_sentence_in_both_sets_are_refused(cbow):
    ctx = toy_contexts()
    del ctx["B"]
    with pytest.raises(ValueError, match="no contexts for role B"):
        embed_contexts(load_test("C1"), ctx, cbow)
    # One sentence holding a flower and an insect, used for both: X and Y would share it.
    ctx = toy_contexts()
    ctx["X"] = ctx["X"] + (find_context("A rose and an ant.", "rose"),)
    ctx["Y"] = ctx["Y"] + (find_context("A rose and an ant.", "ant"),)
    with pytest.raises(ValueError, match="the same sentence stands in X and Y"):
        embed_contexts(load_test("C1"), ctx, cbow)


def test_a_string_for_a_list_is_refused(cbow):
    with pytest.raises(TypeError, match="levels"):
        embed_contexts(load_test("C1"), toy_contexts(), cbow, "sentence")
    with pytest.raises(TypeError, match="tests"):
        seat_table("C1", cbow, lambda name: seat_contexts(name, "bleached"), progress=False)


def test_sentence_and_word_levels_feed_the_weat(cbow):
    test = load_test("C1")
    ctx = toy_contexts()
    ctx["X"] = ctx["X"][:1]
    ctx["Y"] = ctx["Y"] + (find_context("This is an ant.", "ant"),)
    both = embed_contexts(test, ctx, cbow)
    for level, enc in (("sentence", cbow.encode_sentences), ("word", cbow.encode_words)):
        embedded = both[level]
        if level == "sentence":
            expected = [enc([c.text for c in ctx[r]]) for r in "XYAB"]
        else:
            expected = [enc(list(ctx[r])) for r in "XYAB"]
        for got, exp in zip(embedded.arrays, expected, strict=True):
            np.testing.assert_allclose(got, exp)


def test_seat_table_rows_name_model_and_level():
    from biaslib.embeddings import glove_6b_50d

    cbow = BagOfWordsEncoder(glove_6b_50d())
    df = seat_table(["C6"], cbow, lambda name: seat_contexts(name, "bleached"), progress=False)
    assert df["level"].tolist() == ["sentence", "word"]
    assert df["model"].str.contains("GloVe 6B 50d").all()
    # The sentence-level WEAT is the WEAT of the sentence vectors.
    ctx = seat_contexts("C6", "bleached")
    arrays = [cbow.encode_sentences([c.text for c in ctx[r]]) for r in "XYAB"]
    assert df.loc[0, "effect_size"] == pytest.approx(weat(*arrays).effect_size)
    assert (df["n_x"] == len(ctx["X"])).all()


def test_paper_model_options_run_on_an_offline_stand_in():
    # The Colab-only columns use the same code path with other weights; run it with
    # MiniLM (a BERT) under the sent-bias options of the "bert-large-cased (sent-bias)" column.
    from biasbook.seat import PAPER_SEAT_MODELS, may_table
    from biaslib.embeddings.factories import transformer
    from biaslib.embeddings.models import EncoderSpec, resolve_model
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    assert all(not resolve_model(m.label.split(" ")[0]).offline for m in PAPER_SEAT_MODELS)
    quirk = EncoderSpec("MiniLM (sent-bias options)",
                        transformer("all-MiniLM-L6-v2", add_special_tokens=False, lowercase=True,
                                    progress=False), "first")
    df = may_table([quirk], [("C6", "sent")], MIND_YOUR_BIAS, progress=False)
    assert "no special tokens, lowercased input" in df.loc[0, "encoder"]
    # The core columns come from the spec and the encoder, not from that label: ``model``
    # is the model's short name, the label stays the row's ``column``.
    assert (df.loc[0, "model"], df.loc[0, "pooling"], df.loc[0, "layer"]) == (
        "all-MiniLM-L6-v2", "first", "last")
    assert df.loc[0, "column"] == "MiniLM (sent-bias options)"
    assert df.loc[0, "not run"] == ""
    assert -2 < df.loc[0, "effect_size"] < 2


def test_comparison_tables_put_published_and_ours_side_by_side():
    import pandas as pd

    from biasbook.seat import may_comparison, myb_comparison

    ours = pd.DataFrame({"column": ["toy"] * 2, "test": ["C1", "C3"], "stimuli": ["C1", "C3"],
                         "context": ["sent"] * 2, "effect_size": [1.234, -0.5],
                         "p_value": [0.001, 0.5]})
    table = may_comparison(ours, [("C1", "sent"), ("C3", "sent")])
    assert table.loc[("C1", "sent"), "CBoW (GloVe 840B) (May et al.)"] == "1.56**"
    assert table.loc[("C3", "sent"), "ELMo (May et al.)"] == "−0.38"
    # Family of two: 0.001 * 2 <= 0.01 -> "**".
    assert table["toy"].tolist() == ["1.23**", "−0.50"]

    ours = pd.DataFrame({"column": ["toy"], "method": ["s-SEAT"], "test": ["C1"],
                         "effect_size": [0.5], "p_value": [0.02]})
    table = myb_comparison(ours, {"C1": "MYB-C1-name"})
    assert table.loc[("s-SEAT", "C1"), "ELMo orig."] == "0.42"
    assert table.loc[("s-SEAT", "C1"), "ELMo MYB"] == "1.18*"
    assert table.loc[("s-SEAT", "C1"), "toy"] == "0.50"


class ConstantEncoder(ContextEncoder):
    """Every sentence and word gets the same vector: every WEAT is undefined (sd 0)."""

    name = "constant encoder"
    fingerprint = "constant"

    def encode_sentences(self, texts, pooling=None):
        return np.ones((len(texts), 4))

    def encode_words(self, contexts, pooling="mean"):
        return np.ones((len(contexts), 4))


def test_undefined_tests_become_rows_that_say_why():
    from biasbook.seat import may_table, myb_table
    from biaslib.embeddings.models import EncoderSpec
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    model = EncoderSpec("constant", ConstantEncoder, None)
    may = may_table([model], [("C6", "sent")], MIND_YOUR_BIAS, progress=False)
    assert may["effect_size"].isna().all()
    assert may.loc[0, "not run"].startswith("all association scores are equal")
    myb = myb_table([model], {"C6": "MYB-C6-name"}, MIND_YOUR_BIAS, progress=False)
    assert myb["method"].tolist() == ["s-SEAT", "w-SEAT"]
    assert myb["effect_size"].isna().all() and (myb["not run"] != "").all()


def test_may_table_rows_must_be_pairs():
    from biasbook.seat import may_table
    from biaslib.embeddings.models import EncoderSpec
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    model = EncoderSpec("constant", ConstantEncoder, None)
    with pytest.raises(TypeError, match=r"\(test, context\) pairs"):
        may_table([model], ("C6", "sent"), MIND_YOUR_BIAS, progress=False)
    with pytest.raises(TypeError, match="single string"):
        may_table([model], "C6", MIND_YOUR_BIAS, progress=False)


# --------------------------------------------------------------------------- display helpers


def test_template_examples_show_the_span_w_seat_reads():
    from biasbook.seat import template_examples

    table = template_examples().reset_index()
    assert list(table["templates"].unique()) == ["SEAT C1", "Mind Your Bias C1"]
    assert len(table) == 8 and set(table["role"]) == {"X", "A"}
    for sentence, span in zip(table["sentence"], table["stimulus span"], strict=True):
        assert span in sentence


def toy_may():
    """Rows in ``seat_may``'s shape: May et al.'s test name in ``stimuli`` (``C3b`` is C3's)."""
    import pandas as pd

    rows = []
    for model, sign in (("m1", 1), ("m2", -1)):
        for test in ("C1", "C3", "C3b", "ABW", "DB-competent"):
            for context, p in (("word", 0.001), ("sent", 0.5)):
                rows.append({"column": model, "test": paper_test(test)[0], "stimuli": test,
                             "context": context,
                             "effect_size": sign * (1.0 if context == "word" else 0.5),
                             "p_value": p, "not run": ""})
    return pd.DataFrame(rows)


def test_may_summary_counts_positive_significant_tests_by_hand():
    from biasbook.seat import may_summary

    table = may_summary(toy_may(), ["m1", "m2"])
    # m1: word rows significant and positive, sentence rows not; m2: all negative.
    assert table.loc["m1", "Caliskan tests significant (word | sent)"] == "2/2 | 0/2"
    assert table.loc["m2", "Caliskan tests significant (word | sent)"] == "0/2 | 0/2"
    assert table.loc["m1", "mean d, word vs sent"] == "1.00 vs 0.50"
    assert table.loc["m2", "mean d, word vs sent"] == "-1.00 vs -0.50"
    # C3 has name targets, C3b group-term targets (its test is C3, but it is no Caliskan
    # row: 2/2 above); ABW and ABW-b count together.
    assert table.loc["m1", "with names vs with group terms"] == "1/2 vs 1/2"
    assert table.loc["m1", "ABW significant"] == "1/2"
    assert table.loc["m1", "double binds significant"] == "1/2"


def test_seat_findings_are_counted_from_the_tables():
    from biasbook.findings import findings_frame
    from biasbook.seat import OFFLINE_SEAT_MODELS, seat_findings
    from biasbook.stored import load_results

    may, _ = load_results("seat_may")
    myb, _ = load_results("seat_myb")
    ours = [m.label for m in OFFLINE_SEAT_MODELS]
    table = findings_frame(seat_findings(may, myb, ours)).set_index("claim")
    c1 = table.loc["C1 (flowers/insects) is significant on every model"]
    # Mind Your Bias, Table 3: C1 bold for all five models with s-SEAT, not BLOOM's w-SEAT.
    assert c1["published"] == "Table 3: s-SEAT 5/5; w-SEAT 4/5 (not BLOOM)"
    assert c1["holds?"] == "yes" and c1["paper"] == "Husse & Spitz (2022)"
    only = table.loc["C1 is the only test significant on every model"]
    assert only["published"] == "Table 3: s-SEAT: C1; w-SEAT: none" and only["holds?"] == "no"
    abw = table.loc["The angry black woman stereotype (names) is significant"]
    # May et al., Table 4: ABW marked for CBoW, InferSent, GenSen (word and sent), ELMo (sent).
    assert abw["published"] == ("Table 4, 4 of 7 encoders: CBoW (GloVe 840B), InferSent, "
                                "GenSen, ELMo")
    assert abw["paper"] == "May et al. (2019)"
    # Applied to a model subset, a finding names the models it holds for.
    sub = findings_frame(seat_findings(may, myb, ours[:1]))
    assert sub["holds?"].iloc[0] == "no"
    # ... by the book's one name for each (biasbook.models.book_names).
    assert sub["model"].iloc[0] == "CBoW (offline stand-ins)"


def test_seat_findings_read_stored_rows_concatenated_with_rows_computed_now():
    # The chapter's Colab cells append the paper models' rows with pd.concat, index kept
    # (labels repeat): the findings on the offline models must be those of the stored rows.
    import pandas as pd

    from biasbook.findings import findings_frame
    from biasbook.seat import OFFLINE_SEAT_MODELS, seat_findings
    from biasbook.stored import load_results

    may, _ = load_results("seat_may")
    myb, _ = load_results("seat_myb")
    ours = [m.label for m in OFFLINE_SEAT_MODELS]
    other = may.assign(column="gpt2", p_value=1.0)  # a model outside ``ours``: ignored
    joined = findings_frame(seat_findings(pd.concat([may, other]),
                                          pd.concat([myb, myb.assign(column="gpt2")]), ours))
    assert joined.equals(findings_frame(seat_findings(may, myb, ours)))


def test_findings_papers_and_models():
    from biasbook import seat
    from biasbook.findings import Finding

    records = seat.findings()
    assert records and all(isinstance(f, Finding) for f in records)
    assert {f.paper for f in records} == {"May et al. (2019)", "Husse & Spitz (2022)"}
    # Ours on the offline stand-ins, or (May et al.'s summary of their Table 4) counted on the
    # printed table with no model run, which the model column says.
    printed = [f for f in records if "as printed" in f.model]
    assert all("offline stand-ins" in f.model for f in records if f not in printed)
    assert len(printed) == 2 and all("no model run" in f.model for f in printed)
    assert "seat-findings" in {f.section for f in records}


def test_table4_findings_count_the_printed_table_by_hand():
    from biasbook import seat
    from biasbook.stored import load_results
    from biaslib.stimuli.data import load_published

    t4 = load_published("seat_table4")
    starred = t4[(t4["sig"].fillna("") != "") & (t4["d"] > 0)]

    def k(models, prefix):
        rows = starred[starred["model"].isin(models)]
        return int(rows["test"].str.startswith(prefix).sum())

    # InferSent and GenSen: every Caliskan (C1, C3, C6) and ABW cell, 3 of 6 double binds.
    for model in ("InferSent", "GenSen"):
        assert len(starred[(starred["model"] == model) & ~starred["test"].str.startswith("DB")]
                   ) == 8
        assert k([model], "DB") == 3
    # Footnote 9: ELMo 0, GPT 0, USE 1, BERT 1 double-bind cells.
    assert [k([m], "DB") for m in ("ELMo", "GPT", "USE", "BERT (large, cased)")] == [0, 0, 1, 1]
    may, _ = load_results("seat_may")
    models = [m.label for m in seat.OFFLINE_SEAT_MODELS]
    s2v, stronger, fn9 = seat.table4_findings(may, models)
    assert s2v.holds is True and fn9.holds is True
    assert "InferSent 8 of 8; GenSen 8 of 8" in s2v.ours
    everyone = list(dict.fromkeys(t4["model"]))
    assert f"ABW {k(everyone, 'ABW')} of 14" in stronger.published
    assert f"double binds {k(everyone, 'DB')} of 42" in stronger.published
    # Ours on Table 4's 14 rows: ABW with names is significant on none of our models.
    assert "ABW 0 of 6" in stronger.ours
    assert stronger.holds == "yes (Table 4); partly (ours: Caliskan, not ABW)"
    assert {f.section for f in (s2v, stronger, fn9)} == {"seat-may-table4"}
    groups = seat.table4_groups(may, models)
    assert groups.loc[("ours: offline stand-ins", "CBoW"), "all"] == "7 of 14"
    assert groups.loc[(seat.MAY_GROUP, "GenSen"), "double binds"] == "3 of 6"


def test_c3_transfer_by_hand():
    import pandas as pd

    from biasbook import seat

    def rows(model, context, ds):
        return [{"column": model, "stimuli": t, "context": context, "effect_size": d,
                 "p_value": p} for t, (d, p) in zip(("C3", "C4", "C5"), ds, strict=True)]

    may = pd.DataFrame(
        rows("a", "word", [(0.9, 0.001), (0.8, 0.002), (1.0, 0.003)])     # carries over
        + rows("a", "sent", [(0.1, 0.2), (0.0, 0.5), (0.6, 0.001)])       # C5 only
        + rows("b", "word", [(0.5, 0.001), (-0.5, 0.001), (0.4, 0.001)])  # C4 negative
        + rows("b", "sent", [(0.3, 0.001), (0.4, 0.001), (0.5, 0.001)]))  # carries over
    table = seat.c3_transfer_table(may, ["a", "b"])
    assert table["C3's verdict carries over"].tolist() == ["yes", "no", "no", "yes"]
    assert table.loc[("a", "sent"), ["C3", "C4", "C5"]].tolist() == ["0.10", "0.00", "0.60*"]
    assert table.loc[("b", "word"), "largest |d − d(C3)|"] == "1.00"
    found = seat._claim_c3_transfers(seat._TransferEvidence(may, ("a", "b"), 0.01))
    assert found.holds == "partly: a word, b sent"  # half: neither all nor under half
    assert "in 2 of 4" in found.ours and "up to 1.00 (b word: 0.50* → -0.50 → 0.40*)" in found.ours
    one = seat._claim_c3_transfers(seat._TransferEvidence(may.iloc[3:], ("a", "b"), 0.01))
    assert one.holds is False  # 1 of 3


def test_findings_verdict_by_hand_from_the_stored_table():
    """May et al.'s names-vs-group-terms claim, counted by hand from seat_may."""
    from biasbook import seat
    from biasbook.stored import load_results

    may, _ = load_results("seat_may")
    names = ("C3", "C5", "C6", "C7b", "C8b")
    terms = ("C3b", "C5b", "C6b", "C7", "C8")
    holds = []
    for model in may["column"].unique():
        rows = may[may["column"] == model]
        sig = rows[(rows["effect_size"] > 0) & (rows["p_value"] <= 0.01)]
        holds.append(sig["stimuli"].isin(names).sum() > sig["stimuli"].isin(terms).sum())
    finding = next(f for f in seat.findings() if "given names" in f.claim)
    assert (finding.holds == "yes") == all(holds)
    assert finding.section == "seat-findings"
    # Mind Your Bias's C1 claim: every C1 row of seat_myb (both levels) at p <= 0.01.
    myb, _ = load_results("seat_myb")
    c1 = next(f for f in seat.findings() if f.claim.startswith("C1 (flowers"))
    assert c1.holds == bool((myb.loc[myb["test"] == "C1", "p_value"] <= 0.01).all())


def test_may_tables_put_each_group_in_its_own_narrow_table():
    import pandas as pd

    from biasbook.published import MAY_MODELS
    from biasbook.seat import MAY_GROUP, OFFLINE_GROUP, PAPER_GROUP, may_tables

    ours = pd.DataFrame({"column": ["all-MiniLM-L6-v2", "gpt2"], "test": ["C1", "C1"],
                         "stimuli": ["C1", "C1"], "context": ["sent"] * 2,
                         "effect_size": [1.234, -0.5], "p_value": [0.001, 0.5]})
    tables = may_tables(ours, [("C1", "sent")])
    assert list(tables) == [MAY_GROUP, OFFLINE_GROUP, PAPER_GROUP]
    assert list(tables[MAY_GROUP].columns) == [(MAY_GROUP, m) for m in MAY_MODELS]
    assert tables[MAY_GROUP].loc[("C1", "sent"), (MAY_GROUP, "ELMo")] == "0.42**"
    # Family of two: 0.001 * 2 <= 0.01 -> "**".
    # The offline models by the book's names (the stored id all-MiniLM-L6-v2 is MiniLM).
    assert tables[OFFLINE_GROUP].loc[("C1", "sent"), (OFFLINE_GROUP, "MiniLM")] == "1.23**"
    assert list(tables[PAPER_GROUP].columns) == [(PAPER_GROUP, "gpt2")]


def test_myb_tables_set_their_runs_beside_ours_and_keep_the_quotes_apart():
    import pandas as pd

    from biasbook.seat import myb_tables

    ours = pd.DataFrame({"column": ["all-MiniLM-L6-v2"] * 2, "method": ["s-SEAT", "w-SEAT"],
                         "test": ["C1", "C1"], "effect_size": [0.5, -0.25],
                         "p_value": [0.02, 0.001]})
    tables = myb_tables(ours, {"C1": "MYB-C1-name", "Dis": "MYB-Dis-term"})
    runs = tables["runs"]
    assert runs.index.names == ["method", "test"]
    assert list(runs.columns.get_level_values(0).unique()) == [
        "Mind Your Bias's runs", "ours: offline stand-ins"]
    assert runs.loc[("s-SEAT", "C1"), ("Mind Your Bias's runs", "ELMo")] == "1.18*"
    assert runs.loc[("w-SEAT", "C1"), ("ours: offline stand-ins", "MiniLM")] == "−0.25*"
    # Quoted "orig." numbers: C1 has them (ELMo s-SEAT 0.42), Dis has none and is left out.
    assert tables["quoted"].loc[("s-SEAT", "C1"), "ELMo"] == "0.42"
    assert "Dis" not in tables["quoted"].index.get_level_values("test")
    assert set(tables) == {"runs", "quoted"}


def test_may_figure_frame_is_tidy_and_marks_ours_like_the_table():
    import pandas as pd

    from biasbook.seat import MAY_GROUP, OFFLINE_GROUP, may_figure_frame

    ours = pd.DataFrame({"column": ["all-MiniLM-L6-v2"] * 2, "stimuli": ["C1", "C3"],
                         "context": ["word", "word"], "effect_size": [1.0, 0.3],
                         "p_value": [0.004, 0.008]})
    frame = may_figure_frame(ours, [("C1", "word"), ("C3", "word")])
    assert list(frame.columns) == ["row", "group", "model", "d", "mark"]
    assert list(dict.fromkeys(frame["row"])) == ["C1, word", "C3, word"]
    mine = frame[frame["group"] == OFFLINE_GROUP].set_index("row")
    # Holm over the two: 0.004 * 2 <= 0.01 -> "**"; 0.008 * 1 <= 0.01 -> "**" too.
    assert mine["mark"].tolist() == ["**", "**"] and set(mine["model"]) == {"MiniLM"}
    pub = frame[(frame["group"] == MAY_GROUP) & (frame["model"] == "GPT")]
    # May et al., Table 4: GPT, C3 word 0.60*.
    assert pub.set_index("row").loc["C3, word", ["d", "mark"]].tolist() == [0.60, "*"]


def test_left_out_says_which_stimuli_were_missing_and_what_happened():
    import pandas as pd

    from biasbook.seat import left_out

    frame = pd.DataFrame({
        "column": ["CBoW (GloVe 6B 50d)"] * 3, "test": ["C1", "I1", "C3"],
        "method": ["s-SEAT"] * 3, "missing": ["X: gladiola", "", ""],
        "not run": ["", "B: 3/13 stimuli missing ['bigbutt', 'darkskinned', 'x']", ""]})
    table = left_out(frame, ["test"])
    assert list(table.index) == [("CBoW", "C1"), ("CBoW", "I1")]
    assert table.loc[("CBoW", "C1"), "outcome"] == "ran without them"
    assert table.loc[("CBoW", "I1")].tolist() == ["B: bigbutt, darkskinned, x",
                                                  "not run: 3 of 13 missing"]


def test_left_out_reads_stored_rows_concatenated_with_rows_computed_now():
    # The chapter's Colab cell appends the paper models' rows with pd.concat, index kept:
    # the labels repeat, and each row must still get its own stimuli and outcome.
    import pandas as pd

    from biasbook.seat import left_out

    stored = pd.DataFrame({"column": ["CBoW (GloVe 6B 50d)"], "test": ["C1"],
                           "missing": ["X: gladiola"], "not run": [""]})
    computed = pd.DataFrame({"column": ["gpt2"], "test": ["I1"], "missing": [""],
                             "not run": ["B: 3/13 stimuli missing ['bigbutt', 'x', 'y']"]})
    table = left_out(pd.concat([stored, computed]), ["test"])
    assert table.to_dict("index") == {
        ("CBoW", "C1"): {"stimuli missing from the model's vocabulary": "X: gladiola",
                         "outcome": "ran without them"},
        ("gpt2", "I1"): {"stimuli missing from the model's vocabulary": "B: bigbutt, x, y",
                         "outcome": "not run: 3 of 13 missing"}}


def test_myb_table1_holds_the_sizes_the_paper_prints():
    from biasbook.seat import myb_table1

    # Mind Your Bias, Table 1 (seed 000), as printed: N_targ, N_attr per test.
    printed = {"C1": (25, 25), "C3": (32, 25), "C6": (8, 8), "C9": (6, 7), "Occ": (26, 20),
               "I1": (12, 13), "I2": (12, 8), "Dis": (23, 230)}
    table = myb_table1()
    assert sorted(table.index) == sorted(printed)
    for test, (n_targ, n_attr) in printed.items():
        x, y = (int(n) for n in table.loc[test, "X, Y"].split(", "))
        a, b = (int(n) for n in table.loc[test, "A, B"].split(", "))
        assert x == y == n_targ, test
        # Dis: the printed 230 matches neither of the authors' trait lists (225 words).
        assert a == b == (225 if test == "Dis" else n_attr), test
        assert (table.loc[test, "N_targ (printed)"], table.loc[test, "N_attr (printed)"]) == (
            str(n_targ), str(n_attr))
