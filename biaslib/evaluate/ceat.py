"""CEAT on stimulus tests: every context of every word embedded in one encoder call.

:func:`biaslib.methods.ceat.ceat` takes per-word context vectors; this module
makes them from contexts (corpus sentences, :mod:`biaslib.stimuli.corpus`, or
templates grouped by word, :func:`group_by_word`) with any encoder that has
``encode_words`` (:class:`biaslib.embeddings.base.ContextEncoder`).

Entry points: :func:`run_ceat` runs one test (a
:class:`~biaslib.methods.ceat.CeatResult`), :func:`ceat_table` many (a tidy
frame whose first columns are :data:`~biaslib.methods.result.CORE_COLUMNS`);
:func:`embed_word_contexts` gives the vectors alone. The CEAT chapter's grid of
models, corpora and conventions is ``biasbook.ceat.ceat_table``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.embeddings.base import ContextEncoder, Pooling, PoolingLike, model_name
from biaslib.evaluate.tidy import core_row, layer_label
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, CeatConvention, CeatResult, ceat
from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import StimulusTest, load_test
from biaslib.validation import no_string

__all__ = ["ceat_table", "embed_word_contexts", "group_by_word", "run_ceat"]

#: Role → word → contexts: what CEAT embeds for one test.
WordContexts = Mapping[str, Mapping[str, Sequence[Context]]]


def embed_word_contexts(
    contexts: WordContexts,
    encoder: ContextEncoder,
    pooling: PoolingLike = None,
) -> dict[str, dict[str, NDArray[np.float32]]]:
    """Embed every context of every word in one batched (and cached) encoder call.

    Parameters
    ----------
    contexts
        Role → word → contexts (:func:`biaslib.stimuli.corpus.contexts_for_test`, or
        templates grouped by word).
    encoder
        Anything with ``encode_words(contexts, pooling)``.
    pooling
        Subword pooling: ``"mean"`` (Mind Your Bias's default), ``"last"``
        (CEAT's code took the last subword), ``"first"``, or a
        :class:`~biaslib.embeddings.base.Pooling`; unset: the encoder's default
        word pooling (the mean for every encoder but the GPT-2 offset replay).

    Returns
    -------
    dict
        Role → word → ``(n_contexts, dim)`` array; a word without contexts
        gets a ``(0, dim)`` array (for :func:`~biaslib.methods.ceat.ceat` to drop and
        report).
    """
    flat = [c for role in ROLES for cs in contexts[role].values() for c in cs]
    if not flat:
        raise ValueError("no contexts to embed")
    word_pooling = Pooling.of(pooling, level="word").resolve(encoder).word
    vecs = np.asarray(encoder.encode_words(flat, pooling=word_pooling))
    out: dict[str, dict[str, NDArray[np.float32]]] = {}
    pos = 0
    for role in ROLES:
        out[role] = {}
        for word, cs in contexts[role].items():
            out[role][word] = vecs[pos : pos + len(cs)]
            pos += len(cs)
    return out


def group_by_word(
    test: StimulusTest | str, contexts: Mapping[str, Sequence[Context]]
) -> dict[str, dict[str, list[Context]]]:
    """Role → word → contexts, from role → contexts.

    Templates come by role (:func:`~biaslib.stimuli.templates.myb_contexts`);
    CEAT wants them by word. Words of the test without any context get an
    empty list.
    """
    test = load_test(test) if isinstance(test, str) else test
    out: dict[str, dict[str, list[Context]]] = {}
    for role in ROLES:
        out[role] = {w: [] for w in test.sets[role].words}
        for c in contexts[role]:
            out[role].setdefault(c.word, []).append(c)
    return out


def run_ceat(
    test: StimulusTest | str,
    encoder: ContextEncoder,
    contexts: WordContexts,
    *,
    convention: CeatConvention | str = CEAT_MIND_YOUR_BIAS,
    pooling: PoolingLike = None,
    min_contexts: int = 1,
    max_missing_fraction: float = 0.2,
) -> CeatResult:
    """CEAT of one test: its words' contexts embedded (:func:`embed_word_contexts`), then tested.

    Parameters
    ----------
    test
        The stimulus test (or its name) the contexts belong to; a context of
        a word outside its role is refused.
    encoder, contexts, pooling
        As for :func:`embed_word_contexts`.
    convention
        A :class:`~biaslib.methods.ceat.CeatConvention` or a preset's name
        (:meth:`CeatConvention.of <biaslib.stats.conventions.ConventionBase.of>`; an
        unknown name is refused before anything is embedded), keyword only.
    min_contexts, max_missing_fraction
        As for :func:`biaslib.methods.ceat.ceat`.
    """
    convention = CeatConvention.of(convention)
    test = load_test(test) if isinstance(test, str) else test
    for role in ROLES:
        foreign = sorted(set(contexts[role]) - set(test.sets[role].words))
        if foreign:
            raise ValueError(f"contexts of role {role} hold words that are not in "
                             f"{test.name}'s {role} set: {foreign[:5]}")
    vectors = embed_word_contexts(contexts, encoder, pooling=pooling)
    return ceat(vectors, convention=convention, min_contexts=min_contexts,
                max_missing_fraction=max_missing_fraction)


def ceat_table(
    tests: Iterable[StimulusTest | str],
    encoder: ContextEncoder,
    contexts: Callable[[str], WordContexts],
    *,
    conventions: Sequence[CeatConvention | str] = (CEAT_MIND_YOUR_BIAS,),
    pooling: PoolingLike = None,
    max_missing_fraction: float = 0.2,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per (test, convention): CEAT on ``encoder``, each test embedded once.

    ``contexts(test_name)`` gives role → word → contexts (e.g.
    :func:`biaslib.stimuli.corpus.contexts_for_test`, or templates through
    :func:`group_by_word`). Columns: :data:`~biaslib.methods.result.CORE_COLUMNS`
    (the CES as ``effect_size``, the meta-analysis CI, ``n`` the samples; ``model``
    the encoder's short name, ``level`` ``"word"``, the word pooling the encoder
    used, its layer), ``stimuli`` (the stimulus test), ``encoder`` (its full name),
    then :meth:`CeatResult.to_dict <biaslib.methods.ceat.CeatResult.to_dict>`'s.
    ``conventions`` (keyword only) are :class:`~biaslib.methods.ceat.CeatConvention`
    objects or preset names, looked up (:meth:`CeatConvention.of
    <biaslib.stats.conventions.ConventionBase.of>`) before anything is embedded.
    """
    convs = [CeatConvention.of(c) for c in no_string(conventions, "conventions")]
    tests = [load_test(t) if isinstance(t, str) else t for t in no_string(tests, "tests")]
    word_pooling = str(Pooling.of(pooling, level="word").resolve(encoder).word)
    rows = []
    for test in tqdm(tests, desc=f"CEAT on {encoder.name}", disable=not progress):
        vectors = embed_word_contexts(contexts(test.name), encoder, pooling=word_pooling)
        for conv in convs:
            result = ceat(vectors, convention=conv, max_missing_fraction=max_missing_fraction)
            core = core_row(result, test.name, model_name(encoder), "word",
                            pooling=word_pooling, layer=layer_label(encoder))
            rest = {k: v for k, v in result.to_dict().items() if k not in core}
            rows.append({**core, "stimuli": test.name, "encoder": encoder.name, **rest})
    return pd.DataFrame(rows)
