"""The ML-EAT on stimulus tests: static embeddings, or sentence vectors of an encoder.

:func:`biaslib.methods.mleat.ml_eat` takes four arrays; these functions embed a
stimulus test first (dropping and reporting words an embedder lacks) and return
one tidy row per test, naming the model.

Entry points: :func:`run_mleat` runs one test (a stimulus test and an embedder,
or a test already embedded), :func:`mleat_table` many on a word-level embedder
and :func:`mleat_context_table` many on sentence vectors of a contextual
encoder; both tables start with :data:`~biaslib.methods.result.CORE_COLUMNS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import pandas as pd
from tqdm import tqdm

from biaslib.embeddings.base import ContextEncoder, EmbeddedTest, Embedder, embed_test
from biaslib.evaluate.seat import embed_contexts
from biaslib.evaluate.tidy import core_row, layer_label, pooling_label
from biaslib.methods.mleat import MLEAT_BIASLIB, MleatConvention, MleatResult, ml_eat
from biaslib.methods.result import NOT_APPLICABLE
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import StimulusTest, load_test
from biaslib.validation import no_string

__all__ = ["mleat_context_table", "mleat_table", "run_mleat"]


def run_mleat(
    embedded: EmbeddedTest | StimulusTest | str,
    *,
    convention: MleatConvention | str = MLEAT_BIASLIB,
    embedder: Embedder | None = None,
    max_missing_fraction: float = 0.2,
) -> MleatResult:
    """:func:`ml_eat` on one stimulus test, labelled with its set names.

    Parameters
    ----------
    embedded
        A test already embedded (:func:`~biaslib.embeddings.base.embed_test`,
        :func:`~biaslib.evaluate.seat.embed_contexts`), or a stimulus test (or
        its name) to embed with ``embedder``.
    convention
        The :class:`~biaslib.methods.mleat.MleatConvention` or a preset's name
        (:meth:`MleatConvention.of <biaslib.stats.conventions.ConventionBase.of>`; an
        unknown name is refused before anything is embedded), keyword only.
    embedder
        Where the vectors come from, when ``embedded`` is not embedded yet.
    max_missing_fraction
        As for :func:`~biaslib.embeddings.base.embed_test`.
    """
    convention = MleatConvention.of(convention)
    if not isinstance(embedded, EmbeddedTest):
        if embedder is None:
            raise TypeError("run_mleat needs an embedder to embed a stimulus test")
        test = load_test(embedded) if isinstance(embedded, str) else embedded
        embedded = embed_test(test, embedder, max_missing_fraction)
    labels = {role: s.label for role, s in embedded.sets.items()}
    return ml_eat(*embedded.arrays, convention=convention, labels=labels)


def _row(embedded: EmbeddedTest, result: MleatResult) -> dict[str, object]:
    missing = "; ".join(f"{r}: {', '.join(s.missing)}" for r, s in embedded.sets.items()
                        if s.missing)
    return {"test": embedded.test.name, "title": embedded.test.title,
            "model": embedded.model, "encoder": embedded.embedder, **result.to_dict(),
            "missing": missing}


def _tidy_row(embedded: EmbeddedTest, result: MleatResult, level: str, pooling: str,
              layer: str) -> dict[str, object]:
    """Core columns first (``test`` the paper's id), ``stimuli``, then :func:`_row`'s."""
    core = core_row(result, embedded.test.name, embedded.model, level, pooling=pooling,
                    layer=layer)
    rest = {k: v for k, v in _row(embedded, result).items() if k not in core}
    return {**core, "stimuli": embedded.test.name, **rest}


def mleat_table(
    tests: Iterable[str | StimulusTest],
    embedder: Embedder,
    *,
    convention: MleatConvention | str = MLEAT_BIASLIB,
    max_missing_fraction: float = 0.2,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per test: the ML-EAT on a word-level embedder (e.g. GloVe).

    Words the embedder lacks are dropped and listed in ``missing``
    (:func:`biaslib.embeddings.base.embed_test`).
    Columns: :data:`~biaslib.methods.result.CORE_COLUMNS` (Level 1's effect
    size and p-value; ``model`` the embedder's short name,
    :func:`~biaslib.embeddings.base.model_name`; ``level`` ``"word"``, no pooling or
    layer), ``stimuli`` (the stimulus test), ``title``, ``encoder`` (the embedder's
    full name), then :meth:`~biaslib.methods.mleat.MleatResult.to_dict`'s and
    ``missing``. ``convention`` (keyword only) is an
    :class:`~biaslib.methods.mleat.MleatConvention` or a preset's name, looked up
    (:meth:`MleatConvention.of <biaslib.stats.conventions.ConventionBase.of>`) before
    anything is embedded.
    """
    convention = MleatConvention.of(convention)
    tests = [load_test(t) if isinstance(t, str) else t for t in no_string(tests, "tests")]
    rows = []
    for test in tqdm(tests, desc=f"ML-EAT on {embedder.name}", disable=not progress):
        embedded = embed_test(test, embedder, max_missing_fraction)
        rows.append(_tidy_row(embedded, run_mleat(embedded, convention=convention), "word",
                              NOT_APPLICABLE, NOT_APPLICABLE))
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
    ``biasbook.mleat.prompt_contexts`` for the paper's GPT-2
    prompts, or ``biasbook.seat.may_contexts`` for SEAT's templates); every sentence is
    one item, so Level 1 re-splits target sentences and Level 2 attribute
    sentences, as SEAT does. ``pooling`` is the sentence pooling (``"last"``,
    ``"mean"``…; default: the encoder's). ``model`` is the encoder's short name,
    ``encoder`` its full name (with the level and pooling) and ``weights`` its exact
    weights.

    The columns are :func:`mleat_table`'s (``level`` ``"sentence"``, the
    pooling the encoder used, its layer) and ``weights``: ``test`` is the paper's
    test id and ``variant`` the stimulus variant
    (:func:`~biaslib.evaluate.tidy.paper_test`: ``"C3b"`` → ``"C3"``,
    ``"b-variant"``), ``stimuli`` the stimulus test's name. ``convention`` as for
    :func:`mleat_table`.
    """
    convention = MleatConvention.of(convention)
    tests = [load_test(t) if isinstance(t, str) else t for t in no_string(tests, "tests")]
    rows = []
    for test in tqdm(tests, desc=f"ML-EAT on {encoder.name}", disable=not progress):
        embedded = embed_contexts(test, contexts(test.name), encoder, ["sentence"],
                                  pooling={"sentence": pooling})["sentence"]
        row = _tidy_row(embedded, run_mleat(embedded, convention=convention), "sentence",
                        pooling_label(encoder, "sentence", pooling), layer_label(encoder))
        rows.append({**row, "weights": encoder.fingerprint})
    return pd.DataFrame(rows)
