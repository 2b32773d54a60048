"""Run stimulus tests on an embedder and collect tidy result tables.

The glue between :mod:`biaslib.stimuli.data` (which words), :mod:`biaslib.embeddings`
(which vectors) and :mod:`biaslib.methods.weat` (which numbers). Every row it produces
names the model that produced it: ``model`` its short name
(:func:`~biaslib.embeddings.base.model_name`), ``encoder`` the embedder's full name.

Entry points, as for every method of :mod:`biaslib.evaluate`: :func:`run_weat`
runs one test (a :class:`TestRun`), :func:`weat_table` many (a tidy frame whose
first columns are :data:`~biaslib.methods.result.CORE_COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pandas as pd
from tqdm import tqdm

from biaslib.embeddings.base import EmbeddedTest, Embedder, embed_test
from biaslib.errors import warn_dropped
from biaslib.evaluate.tidy import core_row
from biaslib.methods.result import NOT_APPLICABLE
from biaslib.methods.weat import WeatResult, weat
from biaslib.stats.conventions import BIASLIB, Convention
from biaslib.stimuli.data import StimulusTest, load_test
from biaslib.validation import no_string

__all__ = ["TestRun", "run_weat", "weat_table"]


@dataclass(frozen=True)
class TestRun:
    """A WEAT result together with the embedded test it was computed from.

    Attributes
    ----------
    embedded
        The embedded test (vectors, missing words, words left out to equalise sizes).
    result
        The WEAT result.
    subsampled
        Target words the convention left out to equalise the set sizes (Mind Your
        Bias's ``unequal_targets="subsample"``), by role; with
        ``embedded.left_out`` they fill the record's ``left out``.
    """

    embedded: EmbeddedTest
    result: WeatResult
    subsampled: dict[str, tuple[str, ...]] = field(default_factory=dict)

    __test__ = False  # not a pytest class

    def tidy_row(self, level: str = "word", pooling: str = NOT_APPLICABLE,
                 layer: str = NOT_APPLICABLE,
                 method: str | None = None) -> dict[str, object]:
        """:data:`~biaslib.methods.result.CORE_COLUMNS` first, ``stimuli``, then :meth:`to_dict`'s.

        ``test`` is the paper's test id and ``stimuli`` the stimulus test's
        name; ``model`` is the model's short name; the other columns of :meth:`to_dict`
        (``encoder`` among them) follow unchanged.
        """
        core = core_row(self.result, self.embedded.test.name, self.embedded.model, level,
                        pooling=pooling, layer=layer, method=method)
        rest = {k: v for k, v in self.to_dict().items() if k not in core}
        return {**core, "stimuli": self.embedded.test.name, **rest}

    def to_dict(self) -> dict[str, object]:
        """Flat record: test, model, encoder, convention, sizes, effect size, p-value, words.

        ``model`` is the model's short name, ``encoder`` the embedder's full name
        (:class:`~biaslib.embeddings.base.EmbeddedTest`'s ``model`` and ``embedder``).
        """
        missing = {r: s.missing for r, s in self.embedded.sets.items() if s.missing}
        return {
            "test": self.embedded.test.name,
            "title": self.embedded.test.title,
            "model": self.embedded.model,
            "encoder": self.embedded.embedder,
            **self.result.to_dict(),
            "missing": _by_role(missing),
            "left out": _by_role({r: (*self.embedded.left_out.get(r, ()),
                                      *self.subsampled.get(r, ()))
                                  for r in {**self.embedded.left_out, **self.subsampled}}),
        }


def _by_role(words: dict[str, tuple[str, ...]]) -> str:
    return "; ".join(f"{role}: {', '.join(w)}" for role, w in words.items() if w)


def _subsampled(embedded: EmbeddedTest, result: WeatResult) -> dict[str, tuple[str, ...]]:
    """Target words the convention did not test (the larger set subsampled), by role."""
    out = {}
    for role, kept in (("X", result.x_kept), ("Y", result.y_kept)):
        words = embedded.sets[role].words
        if len(kept) < len(words):
            keep = set(kept.tolist())
            out[role] = tuple(w for i, w in enumerate(words) if i not in keep)
    return out


def run_weat(
    test: StimulusTest | str,
    embedder: Embedder,
    *,
    convention: Convention | str = BIASLIB,
    max_missing_fraction: float = 0.2,
    embedded: EmbeddedTest | None = None,
) -> TestRun:
    """Embed a stimulus test and run the WEAT under ``convention``.

    Pass ``embedded`` to reuse vectors already computed for the same test and
    embedder (e.g. when comparing conventions).

    Parameters
    ----------
    test
        A :class:`~biaslib.stimuli.data.StimulusTest` or its name
        (:func:`~biaslib.stimuli.data.load_test`).
    embedder
        Where the word vectors come from, e.g.
        :func:`~biaslib.embeddings.static.glove_6b_50d`.
    convention
        A :class:`~biaslib.stats.conventions.Convention` or a preset's name
        (:meth:`Convention.of <biaslib.stats.conventions.ConventionBase.of>`; an unknown
        name is refused before anything is embedded), keyword only.
    max_missing_fraction
        Words without a vector are dropped (and reported with a
        :class:`~biaslib.errors.DroppedStimuliWarning`); a set that loses more
        than this fraction raises :class:`~biaslib.errors.MissingWordsError`
        (:func:`~biaslib.embeddings.base.embed_test`).
    embedded
        Vectors already computed for this test and embedder.

    Returns
    -------
    TestRun
        The embedded test (``run.embedded``: vectors, missing words) and the
        :class:`~biaslib.methods.weat.WeatResult` (``run.result``).

    Examples
    --------
    Caliskan et al.'s C6 (male/female names × career/family words) on GloVe 6B
    50d, where every word has a vector:

    >>> from biaslib.embeddings.static import glove_6b_50d
    >>> from biaslib.evaluate.weat import run_weat
    >>> run = run_weat("C6", glove_6b_50d())
    >>> round(run.result.effect_size, 2), run.result.permutation.method
    (1.71, 'exact')
    >>> run.result.p_value < 0.001, run.embedded.test.title
    (True, 'Male/Female names × Career/Family')
    """
    convention = Convention.of(convention)
    if isinstance(test, str):
        test = load_test(test)
    if embedded is None:
        embedded = embed_test(test, embedder, max_missing_fraction)
    elif embedded.test.name != test.name or embedded.embedder != embedder.name:
        raise ValueError("the embedded test does not match the test/embedder requested")
    result = weat(*embedded.arrays, convention=convention)
    subsampled = _subsampled(embedded, result)
    for role, words in subsampled.items():
        s = embedded.sets[role]
        warn_dropped(
            f"{test.name} on {embedded.embedder}: convention {result.convention.name!r} left "
            f"{len(words)} of {len(s.words)} words {list(words)} out of {role} ({s.label}) to "
            f"equalise the target sets (seed {result.convention.seed}); they are in the "
            f"record's 'left out'")
    return TestRun(embedded=embedded, result=result, subsampled=subsampled)


def weat_table(
    tests: Iterable[StimulusTest | str],
    embedder: Embedder,
    *,
    conventions: Sequence[Convention | str] = (BIASLIB,),
    max_missing_fraction: float = 0.2,
    equalise_targets: bool = False,
    seed: int = 1111,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per (test, convention): the WEAT on ``embedder``.

    ``conventions`` (keyword only) are :class:`~biaslib.stats.conventions.Convention`
    objects or preset names, looked up (:meth:`Convention.of
    <biaslib.stats.conventions.ConventionBase.of>`) before anything is embedded.
    Columns: :data:`~biaslib.methods.result.CORE_COLUMNS` (``model`` the
    embedder's short name; ``level`` ``"word"``; ``pooling`` and ``layer``
    :data:`~biaslib.methods.result.NOT_APPLICABLE`: a static embedding has
    neither), ``stimuli`` (the stimulus test), then :meth:`TestRun.to_dict`'s
    (``encoder`` the embedder's full name).
    Each test is embedded once and reused for every convention. With
    ``equalise_targets``, a test whose target sets differ in size after
    missing words were dropped is first subsampled to equal sizes
    (:meth:`~biaslib.embeddings.EmbeddedTest.equalised_targets`, ``seed``), so
    that conventions that assert equal sizes can run and every convention sees
    the same vectors.
    """
    convs = [Convention.of(c) for c in no_string(conventions, "conventions")]
    tests = [load_test(t) if isinstance(t, str) else t for t in no_string(tests, "tests")]
    rows = []
    for test in tqdm(tests, desc=f"WEAT on {embedder.name}", disable=not progress):
        embedded = embed_test(test, embedder, max_missing_fraction)
        if equalise_targets:
            embedded = embedded.equalised_targets(seed)
        for conv in convs:
            run = run_weat(test, embedder, convention=conv, embedded=embedded)
            rows.append(run.tidy_row())
    return pd.DataFrame(rows)
