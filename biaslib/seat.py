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
    levels: Sequence[Level] = ("sentence", "word"),
    *,
    pooling: Mapping[str, str | None] | None = None,
    max_missing_fraction: float = 0.2,
) -> dict[str, EmbeddedTest]:
    """Embed the contexts of each role at sentence and/or word level.

    Parameters
    ----------
    test
        The stimulus test the contexts were built from.
    contexts
        Role (``"X"``, ``"Y"``, ``"A"``, ``"B"``) → contexts, e.g. from
        :func:`biaslib.templates.seat_contexts`.
    encoder
        A :class:`ContextEncoder`; one with ``encode_contexts`` computes both
        levels from a single pass over the sentences.
    levels
        ``"sentence"`` (s-SEAT) and/or ``"word"`` (w-SEAT).
    pooling
        Level → pooling passed to the encoder (sentence: ``"cls"``, ``"mean"``,
        ``"last"``…; word: ``"first"``, ``"last"``, ``"mean"``). Default: the
        encoder's own.
    max_missing_fraction
        Stimuli the encoder cannot represent (a static vocabulary's
        out-of-vocabulary words) are dropped with all their sentences and
        reported; a role losing more than this fraction of its stimuli raises.

    Returns
    -------
    dict
        Level → :class:`~biaslib.embeddings.base.EmbeddedTest`, whose ``embedder``
        names the model, the level and the pooling.
    """
    bad = [lv for lv in levels if lv not in ("sentence", "word")]
    if bad or not levels:
        raise ValueError(f"levels must be 'sentence' and/or 'word', got {list(levels)!r}")
    pooling = dict(pooling or {})
    known: Callable[[Context], bool] = getattr(encoder, "known", lambda _c: True)
    kept_by_role, missing_by_role, problems = {}, {}, []
    for role in ROLES:
        ctxs = list(contexts[role])
        if not ctxs:
            raise ValueError(f"{test.name}: role {role} has no contexts")
        words = list(dict.fromkeys(c.word for c in ctxs))
        missing = sorted({c.word for c in ctxs if not known(c)})
        if missing:
            logger.info("%s %s: dropped %s (no vector in %s)", test.name, role, missing,
                        encoder.name)
        if len(missing) == len(words) or len(missing) / len(words) > max_missing_fraction:
            problems.append(f"{role}: {len(missing)}/{len(words)} stimuli missing {missing}")
        kept_by_role[role] = [c for c in ctxs if c.word not in missing]
        missing_by_role[role] = tuple(missing)
    if problems:
        raise MissingWordsError(f"{test.name} on {encoder.name}: " + "; ".join(problems))

    vectors: dict[str, dict[str, NDArray]] = {lv: {} for lv in levels}
    for role, kept in kept_by_role.items():
        if len(levels) == 2 and hasattr(encoder, "encode_contexts"):
            vectors["sentence"][role], vectors["word"][role] = encoder.encode_contexts(
                kept, pooling.get("sentence"), pooling.get("word") or "mean"
            )
            continue
        for lv in levels:
            kwargs = {} if pooling.get(lv) is None else {"pooling": pooling[lv]}
            vectors[lv][role] = (
                encoder.encode_sentences([c.text for c in kept], **kwargs)
                if lv == "sentence"
                else encoder.encode_words(kept, **kwargs)
            )
    out = {}
    for lv in levels:
        sets = {
            role: EmbeddedSet(
                label=getattr(test, role).label,
                words=tuple(c.text if lv == "sentence" else f"{c.form} | {c.text}" for c in kept),
                vectors=np.asarray(vectors[lv][role], dtype=np.float64),
                missing=missing_by_role[role],
            )
            for role, kept in kept_by_role.items()
        }
        pool_text = pooling.get(lv) or "default pooling"
        out[lv] = EmbeddedTest(test=test, embedder=f"{encoder.name} [{lv}, {pool_text}]",
                               sets=sets)
    return out


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
        embedded = embed_contexts(test, contexts(test.name), encoder, levels, pooling=pooling)
        for level, emb in embedded.items():
            run = TestRun(embedded=emb, result=weat(*emb.arrays, convention=convention))
            rows.append({"level": level, **run.to_dict()})
    return pd.DataFrame(rows)
