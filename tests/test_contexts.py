import numpy as np
import pytest

from biaslib.stimuli.contexts import Context, find_context


def test_find_context_span():
    c = find_context("These are asters.", "aster", "asters")
    assert (c.start, c.end) == (10, 16)
    assert c.text[c.start:c.end] == "asters"


def test_whole_words_only():
    # "ant" occurs inside "pleasant" but only once as a word.
    c = find_context("A pleasant ant is here.", "ant")
    assert c.start == 11


def test_case_insensitive_lookup_keeps_the_text_form():
    c = find_context("Bill is here.", "bill", case_sensitive=False)
    assert c.form == "Bill"


@pytest.mark.parametrize("text", ["Ants are here.", "The ant and the ant."])
def test_missing_or_ambiguous(text):
    with pytest.raises(ValueError, match="as a whole word"):
        find_context(text, "ant")


def test_span_must_match_form():
    with pytest.raises(ValueError, match="not the form"):
        Context(text="This is a rose.", word="rose", form="rose", start=0, end=4)
    with pytest.raises(ValueError, match="outside the text"):
        Context(text="rose", word="rose", form="rose", start=0, end=9)


# --------------------------------------------------------------------------- bad input

DECOMPOSED = "Jose\u0301"  # "José" with a combining acute accent


@pytest.mark.parametrize(("start", "end"), [(2.0, 6), (2, 6.0), (True, 4), ("2", 6), (None, 6)])
def test_offsets_must_be_ints(start, end):
    with pytest.raises(TypeError, match=r"(start|end) must be an int character offset, got"):
        Context(text="A rose here.", word="rose", form="rose", start=start, end=end)


def test_numpy_integer_offsets_are_plain_ints():
    c = Context(text="A rose here.", word="rose", form="rose", start=np.int64(2), end=np.int64(6))
    assert (c.start, c.end) == (2, 6) and type(c.start) is int


@pytest.mark.parametrize(("start", "end", "match"), [
    (-1, 4, "negative offset"), (2, -1, "negative offset"), (6, 2, "outside the text"),
    (2, 2, "outside the text"), (2, 99, "outside the text"),
])
def test_offsets_out_of_range(start, end, match):
    with pytest.raises(ValueError, match=match):
        Context(text="A rose here.", word="rose", form="rose", start=start, end=end)


@pytest.mark.parametrize("field", ["text", "word", "form", "source"])
def test_fields_must_be_strings(field):
    fields = {"text": "A rose here.", "word": "rose", "form": "rose", "start": 2, "end": 6,
              "source": "s"}
    fields[field] = None
    with pytest.raises(TypeError, match=f"Context {field} must be a string, got None"):
        Context(**fields)


def test_blank_word_is_refused():
    with pytest.raises(ValueError, match="blank word"):
        Context(text="A rose here.", word=" ", form="rose", start=2, end=6)
    with pytest.raises(ValueError, match="blank stimulus"):
        find_context("A rose here.", "")
    with pytest.raises(TypeError, match="word must be a string, got 3"):
        find_context("A 3 here.", 3)


def test_find_context_normalises_before_locating():
    # text decomposed, word composed, and the other way round: same span in the NFC text
    for text, word in ((f"I met {DECOMPOSED} today.", "José"), ("I met José today.", DECOMPOSED)):
        c = find_context(text, word)
        assert (c.text, c.word, c.form, c.start, c.end) == (
            "I met José today.", "José", "José", 6, 10)
    c = find_context(f"{DECOMPOSED}'s book", "José", case_sensitive=False)
    assert c.text[c.start:c.end] == c.form == "José"


def test_context_word_is_nfc_and_normalized_moves_the_span():
    text = f"{DECOMPOSED} and Ana."
    c = Context(text=text, word="Ana", form="Ana", start=10, end=13)
    assert c.text == text  # kept as given: the span indexes it
    n = c.normalized()
    assert (n.text, n.start, n.end, n.form) == ("José and Ana.", 9, 12, "Ana")
    assert Context(text=text, word=DECOMPOSED, form=DECOMPOSED, start=0, end=5).word == "José"
    assert n.normalized() is n
    with pytest.raises(ValueError, match="cuts a character"):
        Context(text=text, word="Jose", form="Jose", start=0, end=4).normalized()
