r"""Sentences that hold a target word *and* an attribute word of a test (LPBS on natural text).

Mind Your Bias's Table 14 ("probability" column) scores LPBS on Reddit comments
rather than templates: their sampler (``data/reddit/comment_sample_double.py``,
SilkeHusse/Re-Evaluating-Bias) keeps, for every pair (target word, attribute
word) of a test, the 2014 Reddit comments holding both ("doubles",
``sent_dict_double.pickle``; at most 10,000 per pair), ``filter_sent`` in
``methods/CEAT/generate_ebd_bert_prob.py`` regroups them by attribute word,
and ``shorten_sent`` cuts each comment to a window around the two words.

This module rebuilds that selection from the book's corpus extract
(:mod:`biaslib.stimuli.corpus`; at most 1,000 sentences per stimulus, Reddit
2014 first):

1. For each target word of the test, its extract sentences
   (:func:`~biaslib.stimuli.corpus.contexts_for_words`, all of them, with the
   extract's few false matches left out).
2. In each, the attribute words of the test, found with the **extract's own
   matching rule** (:class:`~biaslib.stimuli.corpus.StimulusMatcher`): whole
   tokens — runs of letters and digits, hyphen-joined runs kept whole
   (``short-term`` is one token and never matches ``short``) — case-sensitive
   for a stimulus holding a capital (names), case-insensitive otherwise;
   phrases match token by token across whitespace. Every attribute word found
   makes one pair; a sentence holding two attribute words makes two.
   Pairs whose target and attribute occurrences overlap (an attribute inside a
   target phrase) are left out and counted.
3. The window of ``shorten_sent`` (:func:`myb_pair_window`): a sentence of
   more than 20 whitespace-separated words is cut to :math:`20 + 2\ell` words
   around the first occurrences of the two words (:math:`\ell` the longer one's
   number of words); a pair more than 19 words apart is dropped (counted).

Differences from their selection, all forced by the data: sentences, not whole
comments (the extract splits comments); at most 1,000 sentences per target
word and the extract's source order (Reddit 2014, other Reddit years, blogs,
Wikipedia, IMDb) instead of every 2014 comment; token matching instead of
their pre-tokenised word lists. The words of the windowed text are masked by
:meth:`DoubleContext.masked` (every whole-token occurrence of the target, and
for the prior every occurrence of the attribute, as their ``str.replace``
does — but never inside another word).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

import pandas as pd

from biaslib.stimuli.corpus import StimulusMatcher, contexts_for_words, spans_as_given
from biaslib.stimuli.data import StimulusTest, load_test
from biaslib.validation import check_int, nfc

__all__ = [
    "MYB_WINDOW_WORDS",
    "DoubleContext",
    "DoubleSelection",
    "double_contexts",
    "myb_pair_window",
]

#: ``shorten_sent``'s window: 20 words ("average sentence length").
MYB_WINDOW_WORDS = 20
_WORD = re.compile(r"\S+")

Span = tuple[int, int]


def myb_pair_window(
    sentence: str,
    target_span: Span,
    target_words: int,
    attribute_span: Span,
    attribute_words: int,
    size: int = MYB_WINDOW_WORDS,
) -> Span | None:
    r"""Character range of ``shorten_sent``'s window around a target and an attribute.

    With :math:`n` whitespace-separated words, word indices :math:`i_t, i_a` of
    the first words of the two occurrences, :math:`\ell` the larger of their
    lengths in words, :math:`\delta = |i_t - i_a|` and
    :math:`\mathrm{pad} = \lfloor (s - \delta) / 2 \rfloor` (:math:`s` = ``size``):

    * :math:`n \le s`: the whole sentence;
    * :math:`\delta > s - 1`: no window (``None``; their ``new_sent = ''``);
    * :math:`\min(i_t, i_a) < \mathrm{pad}`: the first :math:`s + 2\ell` words;
    * :math:`n - 1 - \max(i_t, i_a) - \ell < \mathrm{pad}`: the last :math:`s + 2\ell`;
    * otherwise :math:`s + 2\ell` words from :math:`\min(i_t, i_a) - \mathrm{pad}`.

    Their code finds the words with ``wds.index(word)`` on the comment split at
    whitespace; here the word holding the start of each matched span.

    Returns
    -------
    (start, end) or None
        ``sentence[start:end]`` is the window (whole words, single spaces kept).

    Examples
    --------
    >>> from biaslib.stimuli.cooccurrence import myb_pair_window
    >>> s = " ".join(f"w{i}" for i in range(30)).replace("w3 ", "rose ").replace("w9 ", "love ")
    >>> lo, hi = myb_pair_window(s, (s.index("rose"), s.index("rose") + 4), 1,
    ...                          (s.index("love"), s.index("love") + 4), 1)
    >>> s[lo:hi].split()[0], len(s[lo:hi].split())  # the first 20 + 2 words
    ('w0', 22)
    """
    size = check_int(size, "size", minimum=2)
    words = [(m.start(), m.end()) for m in _WORD.finditer(sentence)]
    n = len(words)
    if n <= size:
        return (words[0][0], words[-1][1]) if words else None

    def index(pos: int) -> int:
        return next(i for i, (lo, hi) in enumerate(words) if lo <= pos < hi)

    i_t, i_a = index(target_span[0]), index(attribute_span[0])
    longest = max(target_words, attribute_words)
    small, large = min(i_t, i_a), max(i_t, i_a)
    dist = large - small
    if dist > size - 1:
        return None
    pad = (size - dist) // 2
    width = size + 2 * longest
    if small < pad:
        first, last = 0, min(n, width) - 1
    elif n - 1 - large - longest < pad:
        first, last = max(0, n - width), n - 1
    else:
        first, last = small - pad, min(n, small - pad + width) - 1
    return words[first][0], words[last][1]


@dataclass(frozen=True)
class DoubleContext:
    """One (target, attribute) co-occurrence in a (windowed) sentence.

    Attributes
    ----------
    text
        The windowed sentence.
    target, attribute
        The stimuli as the test lists them.
    group
        ``"X"`` or ``"Y"``: the target's set.
    role
        ``"A"`` or ``"B"``: the attribute's set.
    target_spans, attribute_spans
        Every whole-token occurrence of each in ``text``, in order; the first
        target occurrence is the one read.
    source
        The extract line, source, month and subreddit.
    """

    text: str
    target: str
    attribute: str
    group: Literal["X", "Y"]
    role: Literal["A", "B"]
    target_spans: tuple[Span, ...]
    attribute_spans: tuple[Span, ...]
    source: str = ""

    def __post_init__(self) -> None:
        if self.group not in ("X", "Y") or self.role not in ("A", "B"):
            raise ValueError(f"group must be X or Y and role A or B, got {self.group!r}, "
                             f"{self.role!r}")
        if not self.target_spans or not self.attribute_spans:
            raise ValueError("a double context needs an occurrence of both words")
        spans = sorted((*self.target_spans, *self.attribute_spans))
        for (_, end), (start, _) in pairwise(spans):
            if start < end:
                raise ValueError(f"target and attribute occurrences overlap in {self.text!r}")

    def masked(self, mask_token: str, *, prior: bool = False) -> tuple[str, int]:
        """The text with every target occurrence masked (and every attribute one for the prior).

        Returns
        -------
        text, slot
            ``slot``: which mask (counting from 0) is the first target
            occurrence, the one read (:class:`~biaslib.embeddings.masked_lm.MaskQuery`).

        Examples
        --------
        >>> from biaslib.stimuli.cooccurrence import DoubleContext
        >>> c = DoubleContext("I love a rose , a rose .", "rose", "love", "X", "A",
        ...                   ((9, 13), (18, 22)), ((2, 6),))
        >>> c.masked("[MASK]")
        ('I love a [MASK] , a [MASK] .', 0)
        >>> c.masked("[MASK]", prior=True)
        ('I [MASK] a [MASK] , a [MASK] .', 1)
        """
        spans = [(s, "t") for s in self.target_spans]
        if prior:
            spans += [(s, "a") for s in self.attribute_spans]
        spans.sort()
        first = self.target_spans[0]
        slot = sum(1 for s, _ in spans if s < first)
        out, pos = [], 0
        for (start, end), _ in spans:
            out.append(self.text[pos:start])
            out.append(mask_token)
            pos = end
        out.append(self.text[pos:])
        return "".join(out), slot


@dataclass(frozen=True)
class DoubleSelection:
    """The co-occurrences of a test in the extract, and how many sentences each step kept.

    Attributes
    ----------
    pairs
        The :class:`DoubleContext` objects, in the test's target order, then
        extract order, then the test's attribute order.
    target_sentences
        Extract sentences of the target words (after the extract's false
        matches are left out).
    with_attribute
        Of those, sentences holding at least one attribute word.
    found
        (target, attribute) occurrences found: one per attribute word per sentence.
    overlapping
        Left out because the two occurrences overlap.
    too_far
        Left out by the window (more than 19 words apart).
    sources
        Pairs per extract source (``reddit_2014``…).
    """

    pairs: tuple[DoubleContext, ...]
    target_sentences: int
    with_attribute: int
    found: int
    overlapping: int
    too_far: int
    sources: dict[str, int] = field(default_factory=dict)

    def per_attribute(self) -> pd.Series:
        """Number of pairs per attribute word (only words with at least one)."""
        return pd.Series([p.attribute for p in self.pairs], dtype=object).value_counts(
            sort=False)


def double_contexts(
    test: str | StimulusTest,
    *,
    sources: Iterable[str] | None = None,
    window: int | None = MYB_WINDOW_WORDS,
    path: str | None = None,
    frame: pd.DataFrame | None = None,
) -> DoubleSelection:
    """Every (target, attribute) co-occurrence of ``test`` in the corpus extract.

    Parameters
    ----------
    test
        A test name (:func:`~biaslib.stimuli.data.load_test`) or the test.
    sources
        Extract sources to keep (default all, as the CEAT chapter's tables).
    window
        ``shorten_sent``'s window size in words (:func:`myb_pair_window`), or
        ``None`` for whole sentences.
    path, frame
        As :func:`~biaslib.stimuli.corpus.contexts_for_words`.

    Raises
    ------
    FileNotFoundError
        Without the extract (:func:`~biaslib.stimuli.corpus.corpus_dir`).
    """
    if isinstance(test, str):
        test = load_test(test)
    groups = {"X": test.X.words, "Y": test.Y.words}
    roles = {"A": test.A.words, "B": test.B.words}
    role_of = {w: r for r, ws in roles.items() for w in ws}
    order = {w: i for i, w in enumerate((*roles["A"], *roles["B"]))}
    matcher = StimulusMatcher(list(order))
    targets = [w for g in ("X", "Y") for w in groups[g]]
    found = contexts_for_words(targets, sources=sources, path=path, frame=frame)
    pairs: list[DoubleContext] = []
    counts = {"sentences": 0, "with": 0, "found": 0, "overlap": 0, "far": 0}
    per_source: dict[str, int] = {}
    for group in ("X", "Y"):
        for target in groups[group]:
            for ctx in found[target]:
                counts["sentences"] += 1
                text = nfc(ctx.text)
                hits = matcher.find(text)
                if not hits:
                    continue
                counts["with"] += 1
                t_spans = spans_as_given(text, target)
                for attribute in sorted(hits, key=order.__getitem__):
                    counts["found"] += 1
                    a_spans = hits[attribute]
                    if any(a < d and c < b for a, b in t_spans for c, d in a_spans):
                        counts["overlap"] += 1
                        continue
                    lo, hi = 0, len(text)
                    if window is not None:
                        cut = myb_pair_window(text, t_spans[0], len(target.split()),
                                              a_spans[0], len(attribute.split()), window)
                        if cut is None:
                            counts["far"] += 1
                            continue
                        lo, hi = cut
                    inside = [(s - lo, e - lo) for s, e in t_spans if lo <= s and e <= hi]
                    a_in = [(s - lo, e - lo) for s, e in a_spans if lo <= s and e <= hi]
                    pairs.append(DoubleContext(
                        text=text[lo:hi], target=target, attribute=attribute, group=group,
                        role=role_of[attribute], target_spans=tuple(inside),
                        attribute_spans=tuple(a_in), source=ctx.source))
                    src = ctx.source.split("(", 1)[-1].split(",")[0].rstrip(")")
                    per_source[src] = per_source.get(src, 0) + 1
    return DoubleSelection(pairs=tuple(pairs), target_sentences=counts["sentences"],
                           with_attribute=counts["with"], found=counts["found"],
                           overlapping=counts["overlap"], too_far=counts["far"],
                           sources=per_source)
