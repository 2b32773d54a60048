"""A stimulus inside a piece of text: what contextual encoders embed.

SEAT puts each stimulus into bleached templates ("This is a tulip."), CEAT takes
it from natural sentences. Either way an encoder needs the text and, for
word-level vectors (w-SEAT, CEAT), *where* in the text the stimulus is: the
character span of its surface form. Carrying the span explicitly — instead of
re-tokenizing the word on its own and searching for its tokens — is what keeps
word vectors aligned for every tokenizer (WordPiece "##" pieces, byte-level BPE
tokens with a leading space).

Unicode: a stimulus is NFC-normalised (``unicodedata.normalize("NFC", ...)``),
so ``"José"`` typed with a combining accent is the same stimulus as the
precomposed one. :func:`find_context` normalises the text too, *before* it
computes the span; a :class:`Context` built directly keeps its text as given
(its span indexes that text), and :meth:`Context.normalized` gives the normalised
copy with the span moved along.
"""

from __future__ import annotations

import numbers
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from biaslib.validation import nfc

__all__ = ["Context", "find_context"]


def _offset(name: str, value: object) -> int:
    # bool is an int subclass, but True/False as a character offset is a mistake.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an int character offset, got {value!r} ({type(value).__name__})"
        )
    return int(value)


@dataclass(frozen=True)
class Context:
    """A stimulus occurrence: ``text[start:end] == form``.

    ``word`` is stored NFC-normalised; ``text`` and ``form`` are kept as given,
    since ``start`` and ``end`` index them (see :meth:`normalized`).

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

    Raises
    ------
    TypeError
        If ``text``, ``word``, ``form`` or ``source`` is not a string, or
        ``start``/``end`` is not an int (a float or a bool offset).
    ValueError
        If the text or the word is blank, an offset is negative, the span is
        empty or runs past the text, or ``text[start:end]`` is not ``form``.
    """

    text: str
    word: str
    form: str
    start: int
    end: int
    source: str = ""

    def __post_init__(self) -> None:
        for name in ("text", "word", "form", "source"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(
                    f"Context {name} must be a string, got {value!r} ({type(value).__name__})"
                )
        if not self.word.strip():
            raise ValueError(f"context has a blank word {self.word!r}")
        if not self.text.strip():
            raise ValueError(f"context for {self.word!r} has no text")
        start, end = _offset("start", self.start), _offset("end", self.end)
        if start < 0 or end < 0:
            raise ValueError(f"span ({start}, {end}) has a negative offset")
        if not start < end <= len(self.text):
            raise ValueError(
                f"span ({start}, {end}) is outside the text of length {len(self.text)} "
                "(or empty)"
            )
        # Frozen dataclass: set the normalised fields through object.__setattr__.
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "word", nfc(self.word))
        if self.text[self.start : self.end] != self.form:
            raise ValueError(
                f"span ({self.start}, {self.end}) of {self.text!r} is "
                f"{self.text[self.start : self.end]!r}, not the form {self.form!r}"
            )

    def normalized(self) -> Context:
        """The context with its text and form NFC-normalised and the span moved along.

        Returns ``self`` when the text is already NFC.

        Raises
        ------
        ValueError
            If the span's ends cut a character from the combining marks that
            follow it (the span has no NFC equivalent).
        """
        if unicodedata.is_normalized("NFC", self.text):
            return self
        before, form, after = (nfc(self.text[:self.start]),
                               nfc(self.text[self.start : self.end]), nfc(self.text[self.end:]))
        if before + form + after != nfc(self.text):
            raise ValueError(
                f"span ({self.start}, {self.end}) of {self.text!r} cuts a character from its "
                "combining marks; it has no NFC equivalent"
            )
        return Context(text=before + form + after, word=self.word, form=form,
                       start=len(before), end=len(before) + len(form), source=self.source)


def find_context(
    text: str, word: str, form: str | None = None, source: str = "", case_sensitive: bool = True
) -> Context:
    """Build a :class:`Context` by locating ``form`` (default: ``word``) in ``text``.

    The form must occur as a whole word (not inside another word) exactly
    once; otherwise the span would be ambiguous and a ``ValueError`` is raised.
    Text, word and form are NFC-normalised first, so the span indexes the
    normalised text and a decomposed ``José`` (``e`` + U+0301) finds the composed one.

    Raises
    ------
    TypeError
        If ``text``, ``word`` or ``form`` is not a string.
    ValueError
        If the word or form is blank, or the form does not occur exactly once
        as a whole word.
    """
    form = word if form is None else form
    for name, value in (("text", text), ("word", word), ("form", form)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {value!r} ({type(value).__name__})")
    if not form.strip() or not word.strip():
        raise ValueError(f"blank stimulus: word {word!r}, form {form!r}")
    text, word, form = nfc(text), nfc(word), nfc(form)
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
