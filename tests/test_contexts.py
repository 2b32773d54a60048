import pytest

from biaslib.contexts import Context, find_context


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
