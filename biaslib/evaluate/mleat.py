"""The ML-EAT on stimulus tests: static embeddings, or sentence vectors of an encoder.

:func:`biaslib.methods.mleat.ml_eat` takes four arrays; these functions embed a
stimulus test first (dropping and reporting words an embedder lacks) and return
one tidy row per test, naming the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import pandas as pd
from tqdm import tqdm

from biaslib.embeddings.base import ContextEncoder, EmbeddedTest, Embedder, embed_test
from biaslib.evaluate.seat import embed_contexts
from biaslib.methods.mleat import MLEAT_BIASLIB, MleatConvention, MleatResult, ml_eat
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import StimulusTest, load_test
from biaslib.validation import no_string

__all__ = ["mleat_context_table", "mleat_table", "run_mleat"]


def run_mleat(
    embedded: EmbeddedTest, convention: MleatConvention | str = MLEAT_BIASLIB
) -> MleatResult:
    """:func:`ml_eat` on an embedded stimulus test, labelled with its set names."""
    labels = {role: s.label for role, s in embedded.sets.items()}
    return ml_eat(*embedded.arrays, convention=convention, labels=labels)


def _row(embedded: EmbeddedTest, result: MleatResult) -> dict[str, object]:
    missing = "; ".join(f"{r}: {', '.join(s.missing)}" for r, s in embedded.sets.items()
                        if s.missing)
    return {"test": embedded.test.name, "title": embedded.test.title,
            "model": embedded.embedder, **result.to_dict(), "missing": missing}


def mleat_table(
    tests: Iterable[str | StimulusTest],
    embedder: Embedder,
    convention: MleatConvention | str = MLEAT_BIASLIB,
    *,
    max_missing_fraction: float = 0.2,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per test: the ML-EAT on a word-level embedder (e.g. GloVe).

    Words the embedder lacks are dropped and listed in ``missing``
    (:func:`biaslib.embeddings.base.embed_test`); ``model`` names the embedder.
    """
    tests = [load_test(t) if isinstance(t, str) else t for t in no_string(tests, "tests")]
    rows = []
    for test in tqdm(tests, desc=f"ML-EAT on {embedder.name}", disable=not progress):
        embedded = embed_test(test, embedder, max_missing_fraction)
        rows.append(_row(embedded, run_mleat(embedded, convention)))
    return pd.DataFrame(rows)


def mleat_context_table(
    tests: Iterable[str | StimulusTest],
    encoder: ContextEncoder,
    contexts: Callable[[str], Mapping[str, Sequence[Context]]],
    *,
    pooling: str | None = None,
    convention: MleatConvention | str = MLEAT_BIASLIB,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per test: the ML-EAT on sentence vectors of a contextual encoder.

    ``contexts(test_name)`` gives each role's sentences (e.g.
    :func:`biaslib.chapters.mleat.prompt_contexts` for the paper's GPT-2
    prompts, or :func:`biaslib.chapters.seat.may_contexts` for SEAT's templates); every sentence is
    one item, so Level 1 re-splits target sentences and Level 2 attribute
    sentences, as SEAT does. ``pooling`` is the sentence pooling (``"last"``,
    ``"mean"``…; default: the encoder's). The ``model`` and ``weights``
    columns name the encoder and its exact weights.
    """
    tests = [load_test(t) if isinstance(t, str) else t for t in no_string(tests, "tests")]
    rows = []
    for test in tqdm(tests, desc=f"ML-EAT on {encoder.name}", disable=not progress):
        embedded = embed_contexts(test, contexts(test.name), encoder, ["sentence"],
                                  pooling={"sentence": pooling})["sentence"]
        rows.append({**_row(embedded, run_mleat(embedded, convention)),
                     "weights": encoder.fingerprint})
    return pd.DataFrame(rows)
