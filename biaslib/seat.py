"""SEAT and w-SEAT: the WEAT on sentences, or on stimuli inside sentences.

s-SEAT (May et al., 2019) embeds every template sentence of a stimulus set
("This is a tulip.", "Tulips are here.") as one item and runs the WEAT over
those sentence vectors; w-SEAT (Tan & Celis, 2019) keeps the same sentences but
takes only the vectors of the stimulus' own tokens. Both are the WEAT of
:mod:`biaslib.weat` on different inputs: sets of sentences instead of sets of
words, so the permutation test re-splits sentences, as sent-bias does.

Any encoder with ``name``, ``encode_sentences(texts, pooling)`` and
``encode_words(contexts, pooling)`` works: the transformer encoder, or the
bag-of-words GloVe encoder that plays SEAT's "CBoW".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, Protocol

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.contexts import Context
from biaslib.conventions import BIASLIB, Convention
from biaslib.data import ROLES, StimulusTest, load_test
from biaslib.embeddings.base import EmbeddedSet, EmbeddedTest, MissingWordsError
from biaslib.evaluate import TestRun
from biaslib.weat import weat

__all__ = ["ContextEncoder", "Level", "embed_contexts", "seat_table"]

logger = logging.getLogger(__name__)

Level = Literal["sentence", "word"]


class ContextEncoder(Protocol):
    """What SEAT needs from an encoder."""

    name: str

    def encode_sentences(self, texts: Sequence[str], pooling: str | None = ...) -> NDArray:
        """One vector per sentence."""

    def encode_words(self, contexts: Sequence[Context], pooling: str = ...) -> NDArray:
        """One vector per stimulus in its context."""


def embed_contexts(
    test: StimulusTest,
    contexts: Mapping[str, Sequence[Context]],
    encoder: ContextEncoder,
    level: Level,
    *,
    pooling: str | None = None,
    max_missing_fraction: float = 0.2,
) -> EmbeddedTest:
    """Embed the contexts of each role at sentence or word level.

    Parameters
    ----------
    test
        The stimulus test the contexts were built from.
    contexts
        Role (``"X"``, ``"Y"``, ``"A"``, ``"B"``) → contexts, e.g. from
        :func:`biaslib.templates.seat_contexts`.
    encoder
        A :class:`ContextEncoder`.
    level
        ``"sentence"`` (s-SEAT) or ``"word"`` (w-SEAT).
    pooling
        Passed to the encoder (sentence: ``"cls"``, ``"mean"``, ``"last"``…;
        word: ``"first"``, ``"last"``, ``"mean"``). Default: the encoder's.
    max_missing_fraction
        Stimuli the encoder cannot represent (a static vocabulary's
        out-of-vocabulary words) are dropped with all their sentences and
        reported; a role losing more than this fraction of its stimuli raises.
    """
    if level not in ("sentence", "word"):
        raise ValueError(f"level must be 'sentence' or 'word', got {level!r}")
    known: Callable[[Context], bool] = getattr(encoder, "known", lambda _c: True)
    sets, problems = {}, []
    for role in ROLES:
        ctxs = list(contexts[role])
        if not ctxs:
            raise ValueError(f"{test.name}: role {role} has no contexts")
        words = list(dict.fromkeys(c.word for c in ctxs))
        missing = sorted({c.word for c in ctxs if not known(c)})
        kept = [c for c in ctxs if c.word not in missing]
        if missing:
            logger.info("%s %s: dropped %s (no vector in %s)", test.name, role, missing,
                        encoder.name)
        if not kept or len(missing) / len(words) > max_missing_fraction:
            problems.append(f"{role}: {len(missing)}/{len(words)} stimuli missing {missing}")
            continue
        if level == "sentence":
            kwargs = {} if pooling is None else {"pooling": pooling}
            vectors = encoder.encode_sentences([c.text for c in kept], **kwargs)
            labels = tuple(c.text for c in kept)
        else:
            kwargs = {} if pooling is None else {"pooling": pooling}
            vectors = encoder.encode_words(kept, **kwargs)
            labels = tuple(f"{c.form} | {c.text}" for c in kept)
        label = getattr(test, role).label
        sets[role] = EmbeddedSet(label=label, words=labels,
                                 vectors=np.asarray(vectors, dtype=np.float64),
                                 missing=tuple(missing))
    if problems:
        raise MissingWordsError(f"{test.name} on {encoder.name}: " + "; ".join(problems))
    pool_text = pooling or "default pooling"
    return EmbeddedTest(test=test, embedder=f"{encoder.name} [{level}, {pool_text}]", sets=sets)


def seat_table(
    tests: Iterable[str | StimulusTest],
    encoder: ContextEncoder,
    contexts: Callable[[str], Mapping[str, Sequence[Context]]],
    *,
    levels: Sequence[Level] = ("sentence", "word"),
    pooling: Mapping[str, str | None] | None = None,
    convention: Convention | str = BIASLIB,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per (test, level): the SEAT effect size and p-value on ``encoder``.

    ``contexts(test_name)`` supplies the sentences (e.g.
    :func:`biaslib.templates.seat_contexts`); ``pooling`` maps a level to its
    pooling (default: the encoder's own). Rows name the model and level.
    """
    pooling = dict(pooling or {})
    rows = []
    tests = [load_test(t) if isinstance(t, str) else t for t in tests]
    for test in tqdm(tests, desc=f"SEAT on {encoder.name}", disable=not progress):
        ctx = contexts(test.name)
        for level in levels:
            embedded = embed_contexts(test, ctx, encoder, level, pooling=pooling.get(level))
            run = TestRun(embedded=embedded, result=weat(*embedded.arrays, convention=convention))
            rows.append({"level": level, **run.to_dict()})
    return pd.DataFrame(rows)
