"""One result shape, the core columns, one pooling type, one entry-point pair per method.

Every method's result follows :class:`biaslib.methods.result.BiasResult`; its
record must say what the result's own fields say. Every tidy frame of
:mod:`biaslib.evaluate` starts with the core columns, with pooling and layer
taken from the encoder. A pooling left unset is the encoder's default, whatever
levels are asked for together.
"""

import math
import zlib

import numpy as np
import pandas as pd
import pytest

from biaslib.embeddings.base import ContextEncoder, Pooling
from biaslib.embeddings.bugs import BugEncoder
from biaslib.embeddings.static import BagOfWordsEncoder, glove_6b_50d
from biaslib.evaluate.ceat import ceat_table, embed_word_contexts, group_by_word, run_ceat
from biaslib.evaluate.mleat import mleat_table, run_mleat
from biaslib.evaluate.seat import embed_contexts, run_seat, seat_table
from biaslib.evaluate.tidy import core_row, layer_label, paper_test, pooling_label
from biaslib.evaluate.weat import run_weat, weat_table
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, ceat
from biaslib.methods.lpbs import lpbs_ceat, lpbs_test
from biaslib.methods.mleat import ml_eat
from biaslib.methods.result import (
    CORE_COLUMNS,
    NOT_APPLICABLE,
    RECORD_COLUMNS,
    RECORD_KEYS,
    BiasResult,
    check_core_columns,
    core_first,
    core_record,
)
from biaslib.methods.same import mac, mac_word, same, weat_d
from biaslib.methods.weat import association, effect_size, weat
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import load_test
from biaslib.stimuli.templates import myb_contexts, seat_contexts

RNG = np.random.default_rng(7)
X, Y, A, B = (RNG.normal(size=(n, 5)) + shift for n, shift in ((6, 0.3), (6, -0.3), (5, 0), (5, 0)))
SMALL_CEAT = CEAT_MIND_YOUR_BIAS.replace(n_samples=40)


def _word_vectors(seed: int = 3) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return {role: {f"{role}{i}": rng.normal(size=(4, 5)) + (0.5 if role == "X" else 0)
                   for i in range(4)} for role in ("X", "Y", "A", "B")}


# --------------------------------------------------------------------------- the result shape


def _check_record(result, effect, p, n, ci, method, convention):
    assert isinstance(result, BiasResult)
    rec = result.record()
    assert tuple(rec) == RECORD_KEYS
    assert rec["method"] == result.method == method
    assert rec["effect_size"] == result.effect_size == effect
    assert result.p_value == p
    assert (math.isnan(rec["p_value"]) if p is None else rec["p_value"] == p)
    assert rec["n"] == result.n == n
    assert result.ci == ci
    if ci is None:
        assert math.isnan(rec["ci_low"]) and math.isnan(rec["ci_high"])
    else:
        assert (rec["ci_low"], rec["ci_high"]) == ci
    assert rec["convention"] == result.convention_name == convention


def test_weat_result_follows_the_shape():
    r = weat(X, Y, A, B)
    _check_record(r, r.to_dict()["effect_size"], r.to_dict()["p_value"], 12, None, "WEAT",
                  r.to_dict()["convention"])


def test_ceat_result_follows_the_shape():
    r = ceat(_word_vectors(), convention=SMALL_CEAT)
    d = r.to_dict()
    _check_record(r, d["ces"], d["p_value"], 40, (d["ci_low"], d["ci_high"]), "CEAT",
                  SMALL_CEAT.name)
    # The 95% interval is CES ± 1.96 SE.
    low, high = r.ci
    assert low == pytest.approx(d["ces"] - 1.959964 * d["se"], rel=1e-6)
    assert high == pytest.approx(d["ces"] + 1.959964 * d["se"], rel=1e-6)


def test_mleat_result_follows_the_shape_with_level_1():
    r = ml_eat(X, Y, A, B)
    d = r.to_dict()
    _check_record(r, d["l1_d"], d["l1_p"], d["n_x"] + d["n_y"], None, "ML-EAT", d["convention"])
    # Level 1 of the ML-EAT is the WEAT: the same d on the same arrays.
    assert r.effect_size == pytest.approx(weat(X, Y, A, B).effect_size)


def test_lpbs_results_follow_the_shape():
    r = lpbs_test([0.3, 0.5, 0.9, 0.2], [0.1, -0.2, 0.0])
    d = r.to_dict()
    _check_record(r, d["effect_size"], d["p_value"], 7, None, "LPBS", d["convention"])

    rng = np.random.default_rng(1)
    words_a, words_b = ["a1", "a2", "a3"], ["b1", "b2", "b3"]
    attributes = [w for w in words_a + words_b for _ in range(5)]
    scores = rng.normal(size=len(attributes)) + [0.5 if a in words_a else 0 for a in attributes]
    rc = lpbs_ceat(scores, attributes, words_a, words_b, convention=SMALL_CEAT)
    d = rc.to_dict()
    low, high = rc.meta.conf_int()
    _check_record(rc, d["ces"], d["p_value"], 40, (low, high), "LPBS-CEAT", SMALL_CEAT.name)


def test_same_family_has_no_p_value_and_no_interval():
    # Both words are at |cos(w, (1, -1)/√2)| = |0.6 - 0.8|/√2 from the bias direction.
    r = same([[3.0, 4.0], [4.0, 3.0]], [[[1.0, 0.0]], [[0.0, 1.0]]])
    _check_record(r, pytest.approx(0.2 / math.sqrt(2)), None, 2, None, "SAME", "same-paper")
    m = mac(X, [A, B])
    _check_record(m, float(mac_word(X, [A, B]).mean()), None, 6, None, "MAC", "")
    w = weat_d(X, Y, A, B)
    d = effect_size(association(X, A, B), association(Y, A, B))
    _check_record(w, d, None, 12, None, "WEAT d", "")


def test_permutation_result_is_not_a_bias_result():
    # A p-value without an effect size: it belongs to the results that hold it.
    assert not isinstance(weat(X, Y, A, B).permutation, BiasResult)


# --------------------------------------------------------------------------- core columns


def test_core_record_orders_and_checks_labels():
    r = weat(X, Y, A, B)
    row = core_record(r, test="C1", variant="as published", model="toy", level="word",
                      method="SEAT")
    assert tuple(row) == (*CORE_COLUMNS, *RECORD_COLUMNS)
    assert row["method"] == "SEAT" and row["pooling"] == NOT_APPLICABLE and row["n"] == 12
    with pytest.raises(TypeError, match="text"):
        core_record(r, test="C1", variant="x", model="toy", level="word", layer=6)


def test_check_core_columns_names_what_is_wrong():
    r = weat(X, Y, A, B)
    good = pd.DataFrame([core_record(r, test="C1", variant="v", model="m", level="word")])
    check_core_columns(good)
    with pytest.raises(ValueError, match=r"missing core columns \['pooling', 'layer'\]"):
        check_core_columns(good.drop(columns=["pooling", "layer"]))
    with pytest.raises(ValueError, match="'layer' must hold text"):
        check_core_columns(good.assign(layer=np.nan))
    with pytest.raises(ValueError, match="'effect_size' must be numeric"):
        check_core_columns(good.assign(effect_size="big"))


def test_core_first_keeps_the_rest_in_order():
    frame = pd.DataFrame({"z": [1], "effect_size": [0.5], "a": [2], "method": ["WEAT"]})
    core = {"test": "C1", "variant": "v", "model": "m", "level": "word", "pooling": "mean",
            "layer": NOT_APPLICABLE, "convention": "c", "p_value": 0.5}
    out = core_first(frame, core)
    assert list(out.columns) == [*CORE_COLUMNS, "z", "a"]
    assert list(frame.columns) == ["z", "effect_size", "a", "method"]  # not changed in place
    with pytest.raises(ValueError, match="not core columns"):
        core_first(frame, {"colour": "red"})
    with pytest.raises(ValueError, match=r"core columns \['test'"):
        core_first(frame, {k: v for k, v in core.items() if k != "test"})


@pytest.mark.parametrize(("name", "expected"), [
    ("C1", ("C1", "as published")),
    ("C10", ("C10", "as published")),
    ("C3b", ("C3", "b-variant")),
    ("ABW-b", ("ABW", "b-variant")),
    ("DB-likable", ("DB-likable", "as published")),
    ("MYB-C1-name", ("C1", "name")),
    ("MYB-Dis-term-m", ("Dis", "term-m")),
    ("CEAT-I1", ("I1", "as published")),
    ("LPBS-C9-name-m-reduced", ("C9", "name-m, reduced")),
    ("LPBS-Occ-term-simplified", ("Occ", "term, simplified")),
    ("C9_name_m", ("C9", "name-m")),
])
def test_paper_test_splits_every_kind_of_name(name, expected):
    assert paper_test(name) == expected


# --------------------------------------------------------------------------- pooling


def test_pooling_accepts_every_old_spelling():
    assert Pooling.of(None) == Pooling()
    assert Pooling.of("last", level="sentence") == Pooling(sentence="last")
    assert Pooling.of({"word": "first"}) == Pooling(word="first")
    assert Pooling.of({"sentence": None, "word": "mean"}) == Pooling(word="mean")
    assert Pooling.of(("cls", "first")) == Pooling("cls", "first")
    p = Pooling("mean", "last")
    assert Pooling.of(p) is p
    with pytest.raises(ValueError, match="needs a level"):
        Pooling.of("mean")
    with pytest.raises(ValueError, match="levels"):
        Pooling.of({"token": "mean"})
    with pytest.raises(ValueError, match="pair"):
        Pooling.of(("cls",))
    with pytest.raises(TypeError):
        Pooling.of(3)
    with pytest.raises(TypeError):
        Pooling(word="")


class FirstWordEncoder(ContextEncoder):
    """An encoder whose own word pooling is not the mean: word vectors say which pooling ran."""

    name = "first-word encoder"
    fingerprint = "fake"
    default_word_pooling = "first"

    def encode_sentences(self, texts, pooling=None):
        return np.stack([np.full(3, len(t), dtype=float) for t in texts])

    def encode_words(self, contexts, pooling=None):
        pooling = pooling or self.default_word_pooling
        code = {"first": 1.0, "last": 2.0, "mean": 3.0}[pooling]
        return np.stack([[code, zlib.crc32(c.text.encode()) % 97, len(c.word)]
                         for c in contexts]).astype(float)


def test_the_default_is_the_encoder_s_whatever_the_levels():
    enc = FirstWordEncoder()
    assert Pooling().resolve(enc) == Pooling("mean", "first")
    assert Pooling(word="last").resolve(enc) == Pooling("mean", "last")
    test = load_test("MYB-C6-name")
    ctx = {r: c[:3] for r, c in myb_contexts("MYB-C6-name").items()}
    both = embed_contexts(test, ctx, enc)["word"]
    alone = embed_contexts(test, ctx, enc, ["word"])["word"]
    for role in ("X", "Y", "A", "B"):
        np.testing.assert_array_equal(both.sets[role].vectors, alone.sets[role].vectors)
        assert (both.sets[role].vectors[:, 0] == 1.0).all()  # "first", not a silent "mean"
    # The labels keep saying what was asked for (stored tables carry them).
    assert both.embedder == alone.embedder == f"{enc.name} [word, default pooling]"
    assert pooling_label(enc, "word") == "first"
    assert pooling_label(enc, "word", {"word": "last"}) == "last"


def test_gpt2_bug_encoder_reads_the_same_words_at_both_levels(smol, monkeypatch):
    enc = BugEncoder(smol, "gpt2-offset", buggy=False)
    assert enc.default_word_pooling == "first"
    assert BugEncoder(smol, "elmo").default_word_pooling == "mean"
    assert layer_label(enc) == layer_label(smol) == "last"
    test = load_test("MYB-C6-name")
    ctx = {r: c[:2] for r, c in myb_contexts("MYB-C6-name").items()}
    # "Donna" is two BPE tokens, so its first subword is not the mean of its subwords.
    ctx["Y"] = tuple(c for c in myb_contexts("MYB-C6-name")["Y"] if c.word == "Donna")[:2]
    alone = embed_contexts(test, ctx, enc, ["word"])["word"]
    with pytest.raises(ValueError, match="word-level"):  # no sentence vectors to give
        embed_contexts(test, ctx, enc)
    # With sentence vectors stubbed in, asking for both levels reads the words as
    # asking for the words alone does (it used to read the mean of their subwords).
    monkeypatch.setattr(enc, "encode_sentences",
                        lambda texts, pooling=None: np.zeros((len(texts), 3)))
    both = embed_contexts(test, ctx, enc)["word"]
    for role in ("X", "Y", "A", "B"):
        np.testing.assert_allclose(both.sets[role].vectors, alone.sets[role].vectors,
                                   rtol=1e-5, atol=1e-6)
    mean = smol.encode_words(list(ctx["Y"]), "mean")
    assert not np.allclose(both.sets["Y"].vectors, mean)


# --------------------------------------------------------------------------- tidy frames


@pytest.fixture(scope="module")
def glove():
    return glove_6b_50d(case="lower")


@pytest.mark.filterwarnings("ignore::biaslib.errors.DroppedStimuliWarning")
def test_weat_table_starts_with_the_core_columns(glove):
    frame = weat_table(["C1", "MYB-C6-name"], glove, progress=False)
    check_core_columns(frame)
    assert tuple(frame.columns[:len(CORE_COLUMNS)]) == CORE_COLUMNS
    assert frame["test"].tolist() == ["C1", "C6"]
    assert frame["variant"].tolist() == ["as published", "name"]
    assert frame["stimuli"].tolist() == ["C1", "MYB-C6-name"]
    expected = [["word", NOT_APPLICABLE, NOT_APPLICABLE]] * 2
    assert (frame[["level", "pooling", "layer"]].to_numpy() == expected).all()
    run = run_weat("C1", glove)
    row = frame.iloc[0]
    assert row["effect_size"] == run.result.effect_size and row["p_value"] == run.result.p_value
    assert row["n"] == run.result.n_x + run.result.n_y == row["n_x"] + row["n_y"]
    assert row["missing"] == "X: gladiola"  # the old columns follow


@pytest.mark.filterwarnings("ignore::biaslib.errors.DroppedStimuliWarning")
def test_mleat_entry_points(glove):
    frame = mleat_table(["C1"], glove, progress=False)
    check_core_columns(frame)
    by_test = run_mleat("C1", embedder=glove)
    assert frame.loc[0, "effect_size"] == frame.loc[0, "l1_d"] == by_test.level1_d
    assert frame.loc[0, "p_value"] == by_test.level1_p
    with pytest.raises(TypeError, match="embedder"):
        run_mleat("C1")


def test_seat_table_carries_level_pooling_and_layer(glove):
    enc = BagOfWordsEncoder(glove)
    contexts = {"C6": seat_contexts("C6", "bleached")}
    frame = seat_table(["C6"], enc, contexts.__getitem__, progress=False)
    check_core_columns(frame)
    assert frame["level"].tolist() == ["sentence", "word"]
    assert frame["pooling"].tolist() == ["mean", "mean"]
    assert frame["layer"].tolist() == [NOT_APPLICABLE, NOT_APPLICABLE]
    assert set(frame["method"]) == {"SEAT"}
    runs = run_seat("C6", enc, contexts["C6"])
    assert frame["effect_size"].tolist() == [runs["sentence"].result.effect_size,
                                             runs["word"].result.effect_size]
    # ``model`` is the model's short name, ``encoder`` the printed label with the level and
    # pooling (issue 35); the level is a column, not parsed from the label.
    assert frame["model"].tolist() == ["CBoW (GloVe 6B 50d)"] * 2
    assert frame.loc[0, "encoder"] == f"{enc.name} [sentence, default pooling]"


class WordEncoder(ContextEncoder):
    """Deterministic word vectors from the word and its sentence (no model)."""

    name = "word encoder"
    fingerprint = "fake"
    layer = 3

    def encode_words(self, contexts, pooling=None):
        assert pooling == "mean"  # the default, resolved once
        out = []
        for c in contexts:
            rng = np.random.default_rng(zlib.crc32(f"{c.word}|{c.text}".encode()))
            out.append(np.random.default_rng(len(c.word)).normal(size=6) + rng.normal(size=6))
        return np.asarray(out)


def _ceat_contexts(name):
    test = load_test(name)
    return {role: {w: [Context(f"I see {w} now.", w, w, 6, 6 + len(w), "fake")] * 3
                   for w in ws.words} for role, ws in test.sets.items()}


def test_ceat_entry_points_agree_with_the_method():
    enc = WordEncoder()
    frame = ceat_table(["MYB-C6-name"], enc, _ceat_contexts, conventions=[SMALL_CEAT],
                       progress=False)
    check_core_columns(frame)
    row = frame.iloc[0]
    assert (row["method"], row["test"], row["variant"]) == ("CEAT", "C6", "name")
    assert (row["level"], row["pooling"], row["layer"]) == ("word", "mean", "3")
    direct = ceat(embed_word_contexts(_ceat_contexts("MYB-C6-name"), enc), convention=SMALL_CEAT)
    one = run_ceat("MYB-C6-name", enc, _ceat_contexts("MYB-C6-name"), convention=SMALL_CEAT)
    assert row["effect_size"] == one.ces == direct.ces
    assert (row["ci_low"], row["ci_high"]) == one.ci
    assert row["n"] == 40
    with pytest.raises(ValueError, match="not in"):
        run_ceat("MYB-C9-name", enc, _ceat_contexts("MYB-C6-name"), convention=SMALL_CEAT)


def test_group_by_word_contexts_run_through_run_ceat():
    enc = WordEncoder()
    by_word = group_by_word("MYB-C6-name", myb_contexts("MYB-C6-name"))
    result = run_ceat("MYB-C6-name", enc, by_word, convention=SMALL_CEAT)
    assert isinstance(result, BiasResult) and result.n == 40


def test_core_row_from_a_stimulus_name():
    r = weat(X, Y, A, B)
    row = core_row(r, "LPBS-C1-name-reduced", "m", "sentence")
    assert (row["test"], row["variant"]) == ("C1", "name, reduced")


def test_lpbs_entry_points_agree(tiny_mlm_available):
    from biaslib.embeddings.masked_lm import MaskedLMScorer
    from biaslib.evaluate.lpbs import lpbs_table, run_lpbs
    from biaslib.methods.lpbs import LPBS_KURITA
    from biaslib.stimuli.lpbs import kurita_templates

    scorer = MaskedLMScorer(cache=False, progress=False)
    conv = LPBS_KURITA.replace(n_resamples=500)
    templates = kurita_templates("C1")
    frame = lpbs_table({"C1": templates}, scorer, conventions=[conv], progress=False)
    check_core_columns(frame)
    one = run_lpbs(scorer, templates, convention=conv)
    row = frame.iloc[0]
    assert (row["method"], row["test"], row["variant"]) == ("LPBS", "C1", "as published")
    assert (row["level"], row["pooling"], row["layer"]) == (
        "masked token", "first wordpiece(s)", "MLM head")
    assert row["effect_size"] == one.effect_size and row["p_value"] == one.p_value
    assert row["n"] == one.n_a + one.n_b and row["convention"] == conv.name
    with pytest.raises(TypeError, match="map test names"):
        lpbs_table([templates], scorer, conventions=[conv], progress=False)
