"""CEAT on stimulus tests: every context of every word embedded in one encoder call.

:func:`biaslib.methods.ceat.ceat` takes per-word context vectors; this module
makes them from contexts (corpus sentences, :mod:`biaslib.stimuli.corpus`, or
templates grouped by word, :func:`group_by_word`) with any encoder that has
``encode_words`` (:class:`biaslib.embeddings.base.ContextEncoder`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from biaslib.embeddings.base import ContextEncoder
from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import StimulusTest, load_test

__all__ = ["embed_word_contexts", "group_by_word"]


def embed_word_contexts(
    contexts: Mapping[str, Mapping[str, Sequence[Context]]],
    encoder: ContextEncoder,
    pooling: str = "mean",
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
        (CEAT's code took the last subword), ``"first"``.

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
    vecs = np.asarray(encoder.encode_words(flat, pooling=pooling))
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
