"""A stimulus inside a piece of text: what contextual encoders embed.

SEAT puts each stimulus into bleached templates ("This is a tulip."), CEAT takes
it from natural sentences. Either way an encoder needs the text and, for
word-level vectors (w-SEAT, CEAT), *where* in the text the stimulus is: the
character span of its surface form. Carrying the span explicitly — instead of
re-tokenizing the word on its own and searching for its tokens — is what keeps
word vectors aligned for every tokenizer (WordPiece "##" pieces, byte-level BPE
tokens with a leading space).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Context", "find_context"]


@dataclass(frozen=True)
class Context:
    """A stimulus occurrence: ``text[start:end] == form``.

    Attributes
    ----------
    text
        The whole sentence (or comment) to encode.
    word
        The stimulus as listed in the test (e.g. ``"aster"``).
    form
        The surface form used in the text (e.g. ``"asters"``; equal to
        ``word`` for most templates).
    start, end
        Character span of ``form`` in ``text``.
    source
        Where the text comes from (template id, corpus and document id…).
    """

    text: str
    word: str
    form: str
    start: int
    end: int
    source: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError(f"context for {self.word!r} has no text")
        if not 0 <= self.start < self.end <= len(self.text):
            raise ValueError(
                f"span ({self.start}, {self.end}) is outside the text of length {len(self.text)}"
            )
        if self.text[self.start : self.end] != self.form:
            raise ValueError(
                f"span ({self.start}, {self.end}) of {self.text!r} is "
                f"{self.text[self.start : self.end]!r}, not the form {self.form!r}"
            )


def find_context(
    text: str, word: str, form: str | None = None, source: str = "", case_sensitive: bool = True
) -> Context:
    """Build a :class:`Context` by locating ``form`` (default: ``word``) in ``text``.

    The form must occur as a whole word (not inside another word) exactly
    once; otherwise the span would be ambiguous and a ``ValueError`` is raised.
    """
    form = word if form is None else form
    spans = list(_whole_word_spans(text, form, case_sensitive))
    if len(spans) != 1:
        where = "not found" if not spans else f"found {len(spans)} times"
        raise ValueError(f"{form!r} is {where} as a whole word in {text!r}")
    start, end = spans[0]
    return Context(text=text, word=word, form=text[start:end], start=start, end=end, source=source)


def _whole_word_spans(text: str, form: str, case_sensitive: bool) -> Iterable[tuple[int, int]]:
    haystack, needle = (text, form) if case_sensitive else (text.lower(), form.lower())
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before = haystack[start - 1] if start > 0 else " "
        after = haystack[end] if end < len(haystack) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            yield start, end
        start = haystack.find(needle, start + 1)
