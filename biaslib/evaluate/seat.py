"""SEAT and w-SEAT on stimulus tests: the WEAT on sentences, or on stimuli inside sentences.

s-SEAT (May et al., 2019) embeds every template sentence of a stimulus set
("This is a tulip.", "Tulips are here.") as one item and runs the WEAT over
those sentence vectors; w-SEAT (Tan & Celis, 2019) keeps the same sentences but
takes only the vectors of the stimulus' own tokens. Both are the WEAT of
:mod:`biaslib.methods.weat` on different inputs: sets of sentences instead of
sets of words, so the permutation test re-splits sentences, as sent-bias does.

Any :class:`~biaslib.embeddings.base.ContextEncoder` works: the transformer
encoder, the bag-of-words GloVe encoder that plays SEAT's "CBoW", or the
bug replays of :mod:`biaslib.embeddings.bugs`. The papers' tables built on this
are in ``biasbook.seat``.

Entry points: :func:`run_seat` runs one test (a :class:`~biaslib.evaluate.weat.TestRun`
per level), :func:`seat_table` many (a tidy frame whose first columns are
:data:`~biaslib.methods.result.CORE_COLUMNS`, with the level, the pooling the
encoder used and its layer as columns); :func:`embed_contexts` gives the vectors alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.embeddings.base import (
    ContextEncoder,
    EmbeddedSet,
    EmbeddedTest,
    Pooling,
    PoolingLike,
    model_name,
)
from biaslib.errors import MissingWordsError, warn_dropped
from biaslib.evaluate.tidy import layer_label, pooling_label
from biaslib.evaluate.weat import TestRun
from biaslib.methods.weat import weat
from biaslib.stats.conventions import BIASLIB, Convention
from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import StimulusTest, load_test
from biaslib.validation import no_string

__all__ = ["Level", "check_contexts_match", "embed_contexts", "run_seat", "seat_table"]

#: ``"sentence"``: one vector per sentence (s-SEAT); ``"word"``: the stimulus' tokens (w-SEAT).
Level = Literal["sentence", "word"]


def embed_contexts(
    test: StimulusTest,
    contexts: Mapping[str, Sequence[Context]],
    encoder: ContextEncoder,
    levels: Sequence[Level] = ("sentence", "word"),
    *,
    pooling: PoolingLike = None,
    max_missing_fraction: float = 0.2,
) -> dict[str, EmbeddedTest]:
    """Embed the contexts of each role at sentence and/or word level.

    Parameters
    ----------
    test
        The stimulus test the contexts were built from.
    contexts
        Role (``"X"``, ``"Y"``, ``"A"``, ``"B"``) → contexts, e.g. from
        :func:`biaslib.stimuli.templates.seat_contexts`.
    encoder
        A :class:`~biaslib.embeddings.base.ContextEncoder`; both levels come
        from one :meth:`~biaslib.embeddings.base.ContextEncoder.encode_contexts`
        call (a single pass over the sentences where the encoder supports it).
    levels
        ``"sentence"`` (s-SEAT) and/or ``"word"`` (w-SEAT).
    pooling
        A :class:`~biaslib.embeddings.base.Pooling`, or level → pooling (any
        spelling :meth:`Pooling.of <biaslib.embeddings.base.Pooling.of>`
        takes; sentence: ``"cls"``, ``"mean"``, ``"last"``…; word: ``"first"``,
        ``"last"``, ``"mean"``). A level left unset pools as the encoder does by
        default, whichever levels are asked for (the word vectors of
        ``levels=("sentence", "word")`` are those of ``levels=("word",)``).
    max_missing_fraction
        Stimuli the encoder cannot represent (a static vocabulary's
        out-of-vocabulary words) are dropped with all their sentences and
        reported; a role losing more than this fraction of its stimuli raises.

    Returns
    -------
    dict
        Level → :class:`~biaslib.embeddings.base.EmbeddedTest`, whose ``embedder``
        names the model, the level and the pooling, and ``model`` the model's short
        name (:func:`~biaslib.embeddings.base.model_name`).

    Raises
    ------
    ValueError
        If a role has no contexts or is missing, if a context's stimulus is not
        a word of that role of ``test`` (contexts built for another test), or
        if the same sentence stands in both target (or both attribute) sets.
    MissingWordsError
        If a role loses more than ``max_missing_fraction`` of its stimuli.
    """
    levels = list(no_string(levels, "levels"))
    bad = [lv for lv in levels if lv not in ("sentence", "word")]
    if bad or not levels:
        raise ValueError(f"levels must be 'sentence' and/or 'word', got {list(levels)!r}")
    check_contexts_match(test, contexts)
    pooling = Pooling.of(pooling)
    kept_by_role, missing_by_role, problems = {}, {}, []
    for role in ROLES:
        ctxs = list(contexts[role])
        words = list(dict.fromkeys(c.word for c in ctxs))
        missing = sorted({c.word for c in ctxs if not encoder.known(c)})
        if missing:
            warn_dropped(f"{test.name}, {role}: dropped {missing} with all their sentences "
                         f"(no vector in {encoder.name})")
        if len(missing) == len(words) or len(missing) / len(words) > max_missing_fraction:
            problems.append(f"{role}: {len(missing)}/{len(words)} stimuli missing {missing}")
        kept_by_role[role] = [c for c in ctxs if c.word not in missing]
        missing_by_role[role] = tuple(missing)
    if problems:
        raise MissingWordsError(f"{test.name} on {encoder.name}: " + "; ".join(problems))

    vectors: dict[str, dict[str, NDArray]] = {lv: {} for lv in levels}
    for role, kept in kept_by_role.items():
        if len(levels) == 2:
            # One pass for both levels; the word default is the encoder's, as
            # for the word level alone (it once was "mean" here, whatever the encoder).
            vectors["sentence"][role], vectors["word"][role] = encoder.encode_contexts(
                kept, pooling.sentence, pooling.resolve(encoder).word
            )
            continue
        for lv in levels:
            kwargs = {} if pooling.get(lv) is None else {"pooling": pooling.get(lv)}
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
                               sets=sets, model=model_name(encoder))
    return out


def check_contexts_match(test: StimulusTest, contexts: Mapping[str, Sequence[Context]]) -> None:
    """Refuse contexts that do not belong to ``test``, so a result cannot carry a wrong label.

    Every role of the test needs contexts, each context's stimulus must be a
    word of that role, and no sentence may stand in both target (or both
    attribute) sets.

    Raises
    ------
    ValueError
        Naming the role and the foreign stimuli or shared sentences.
    """
    for role in ROLES:
        if role not in contexts:
            raise ValueError(f"{test.name}: no contexts for role {role} (roles given: "
                             f"{sorted(contexts)})")
        ctxs = list(contexts[role])
        if not ctxs:
            raise ValueError(f"{test.name}: role {role} has no contexts")
        allowed = set(test.sets[role].words)
        foreign = sorted({c.word for c in ctxs} - allowed)
        if foreign:
            raise ValueError(
                f"contexts of role {role} hold stimuli that are not in {test.name}'s "
                f"{role} set: {foreign[:5]}{' …' if len(foreign) > 5 else ''} — contexts "
                "built for another test?")
    for first, second in (("X", "Y"), ("A", "B")):
        shared = sorted({c.text for c in contexts[first]} & {c.text for c in contexts[second]})
        if shared:
            raise ValueError(f"{test.name}: the same sentence stands in {first} and {second}: "
                             f"{shared[:3]}")


def run_seat(
    test: StimulusTest | str,
    encoder: ContextEncoder,
    contexts: Mapping[str, Sequence[Context]],
    levels: Sequence[Level] = ("sentence", "word"),
    *,
    pooling: PoolingLike = None,
    convention: Convention | str = BIASLIB,
    max_missing_fraction: float = 0.2,
) -> dict[str, TestRun]:
    """s-SEAT and/or w-SEAT of one test: :func:`embed_contexts`, then the WEAT per level.

    Parameters
    ----------
    test
        The stimulus test (or its name).
    encoder, contexts, levels, pooling, max_missing_fraction
        As for :func:`embed_contexts`.
    convention
        The WEAT convention (:func:`biaslib.methods.weat.weat`): a
        :class:`~biaslib.stats.conventions.Convention` or a preset's name
        (:meth:`Convention.of <biaslib.stats.conventions.ConventionBase.of>`; an unknown
        name is refused before anything is embedded), keyword only.

    Returns
    -------
    dict
        Level → :class:`~biaslib.evaluate.weat.TestRun` (the embedded test and
        the :class:`~biaslib.methods.weat.WeatResult`).
    """
    convention = Convention.of(convention)
    test = load_test(test) if isinstance(test, str) else test
    embedded = embed_contexts(test, contexts, encoder, levels, pooling=pooling,
                              max_missing_fraction=max_missing_fraction)
    return {level: TestRun(embedded=emb, result=weat(*emb.arrays, convention=convention))
            for level, emb in embedded.items()}


def seat_table(
    tests: Iterable[str | StimulusTest],
    encoder: ContextEncoder,
    contexts: Callable[[str], Mapping[str, Sequence[Context]]],
    *,
    levels: Sequence[Level] = ("sentence", "word"),
    pooling: PoolingLike = None,
    convention: Convention | str = BIASLIB,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per (test, level): the SEAT effect size and p-value on ``encoder``.

    ``contexts(test_name)`` supplies the sentences (e.g.
    :func:`biaslib.stimuli.templates.seat_contexts`); ``pooling`` as for
    :func:`embed_contexts` (default: the encoder's own). Columns:
    :data:`~biaslib.methods.result.CORE_COLUMNS` (``method`` ``"SEAT"``, ``model``
    the encoder's short name, the level, the pooling the encoder used at that level
    and its layer), ``stimuli`` (the stimulus test), then :meth:`TestRun.to_dict
    <biaslib.evaluate.weat.TestRun.to_dict>`'s (``encoder`` the full name, with the
    level and pooling). ``convention`` as for :func:`run_seat`.
    """
    convention = Convention.of(convention)
    pooling = Pooling.of(pooling)
    rows = []
    tests = [load_test(t) if isinstance(t, str) else t for t in no_string(tests, "tests")]
    for test in tqdm(tests, desc=f"SEAT on {encoder.name}", disable=not progress):
        runs = run_seat(test, encoder, contexts(test.name), levels, pooling=pooling,
                        convention=convention)
        for level, run in runs.items():
            rows.append(run.tidy_row(level, pooling_label(encoder, level, pooling),
                                     layer_label(encoder), method="SEAT"))
    return pd.DataFrame(rows)
