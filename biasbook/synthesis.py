r"""Mind Your Bias's Table 5: how the four methods' bias scores correlate.

Mind Your Bias (seed 000, §4.2, Table 5) correlates, per language model, the
effect sizes that two methods give on the same eight bias tests (C1, C3, C6, C9,
Dis, Occ, I1, I2): s-SEAT, w-SEAT and CEAT from their Table 3, LPBS (BERT only)
from their Table 4. Each cell is a Pearson correlation over the tests, either
over all of them ("all") or over the tests where both methods' scores are
significant ("sig.").

This module rebuilds the table from the typed-in published tables
(``data/published/myb_table3.csv``, ``myb_table4_lpbs.csv``) and sets it beside the
printed one (``myb_table5_correlations.csv``). What it takes to reproduce all 33
printed cells:

* the *printed* two-decimal effect sizes, not the full-precision values of the
  authors' result file (those move 11 cells by 0.01–0.02; see
  :func:`myb_csv_effect_sizes`);
* "significant" = p < 0.01 in the authors' result file (the ``sig`` column,
  their bold), required of *both* methods;
* a cell is "n/a" when two or fewer tests remain (Table 5's caption: "Too few
  data points"); with three tests the paper prints a number;
* LPBS = Table 4's *full* word-set column.

Pure pandas/numpy/scipy; importing it does not import torch.

Examples
--------
>>> table = myb_table5()
>>> row = table.query("method_a == 'CEAT' and method_b == 'LPBS' and subset == 'sig.'")
>>> row[["model", "n", "r"]].round(2).to_string(index=False)
'model  n    r\n BERT  3 0.73'
>>> int(table5_beside_published()["matches"].sum())
33
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from biasbook import myb_figures
from biasbook.ceat import CEAT_NUMBERS, ceat_exact_columns, chapter_rows
from biasbook.findings import Finding
from biasbook.lpbs import TABLE4_CELLS
from biasbook.models import CBOW_GLOVE, MINILM, SHORT_NAMES, SMOLLM2, TINY_MLM, book_names
from biasbook.published import MYB_ALPHA, MYB_MODELS, MYB_TABLE3
from biasbook.seat import SEAT_EXACT, myb_table
from biasbook.stored import load_results
from biasbook.synthesis_tables import (
    CEAT_CAP,
    MYB_GROUP,
    OURS_GROUP,
    cells,
    stored_ours,
    switch_summary,
    tiny_mlm_encoder,
)
from biasbook.tables import (
    NEEDS_CORPUS,
    NEEDS_TINY_MLM,
    SliceCheck,
    StoredTable,
    built_once,
    models_provenance,
)
from biaslib.embeddings.models import EncoderSpec
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL
from biaslib.methods.result import core_first
from biaslib.stats.conventions import MIND_YOUR_BIAS
from biaslib.stimuli.corpus import corpus_dir, describe_extract, extract_sha256
from biaslib.stimuli.data import data_dir, load_published

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond its
# public surface: imported here so that the notebook imports from this module, biaslib and
# biaslib.reporting only. Tables 11–14 beside ours come from biasbook.synthesis_tables, the
# specification curves from biasbook.speccurve, Figure 1 and the significance counts from
# biasbook.myb_figures. (TINY_MLM, MYB_MODELS, load_results, data_dir and
# some of synthesis_tables' names are imported above, where this module uses them too.)
from biasbook.findings import findings_frame, what_we_found
from biasbook.myb_figures import (
    FIGURE1_BIN,
    OURS_FIGURE1_MODELS,
    figure1_counts,
    figure1_summary,
    load_figure1_counts,
    ours_figure1_scores,
    ours_table3,
    pair_closeness,
    published_table3,
    significance_counts,
)
from biasbook.speccurve import (
    GRID_LAYER_LABELS,
    specification_summary,
    stored_specifications,
)
from biasbook.synthesis_tables import (
    OPTIONS,
    choice_table,
    compact_summary,
    published_cells,
    table14_view,
)
from biaslib.evaluate.speccurve import CHOICES

__all__ = [
    "CURVE_MODELS",
    "CURVE_TESTS",
    "DECLARED_TABLES",
    "METHOD_PAIRS",
    "MIN_PAIRS",
    "MIN_PAIRS_CI",
    "OFFLINE_PAIRS",
    "PAPER",
    "SWITCHES",
    "SYNTHESIS_TINY_MLM_SLICE",
    "TINY_MLM_TABLE",
    "correlations",
    "findings",
    "format_r",
    "myb_csv_effect_sizes",
    "myb_scores",
    "myb_table5",
    "offline_scores",
    "offline_table5",
    "r_overview",
    "runtime_overview",
    "runtime_view",
    "switch_overview",
    "table5_beside_published",
    "table5_published",
    "tiny_mlm_table",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, so that the notebook imports from this module only).
__all__ += [
    "CBOW_GLOVE",
    "CHOICES",
    "FIGURE1_BIN",
    "GRID_LAYER_LABELS",
    "MYB_GROUP",
    "MYB_MODELS",
    "OPTIONS",
    "OURS_FIGURE1_MODELS",
    "OURS_GROUP",
    "SHORT_NAMES",
    "TINY_MLM",
    "book_names",
    "cells",
    "choice_table",
    "compact_summary",
    "data_dir",
    "figure1_counts",
    "figure1_summary",
    "findings_frame",
    "load_figure1_counts",
    "load_results",
    "ours_figure1_scores",
    "ours_table3",
    "pair_closeness",
    "published_cells",
    "published_table3",
    "significance_counts",
    "specification_summary",
    "stored_ours",
    "stored_specifications",
    "switch_summary",
    "table14_view",
    "what_we_found",
]

#: Table 5's rows, in the paper's order: (method_a, method_b), printed "a | b".
METHOD_PAIRS: tuple[tuple[str, str], ...] = (
    ("s-SEAT", "w-SEAT"), ("s-SEAT", "CEAT"), ("w-SEAT", "CEAT"),
    ("s-SEAT", "LPBS"), ("w-SEAT", "LPBS"), ("CEAT", "LPBS"),
)  # fmt: skip
#: Table 5's sub-columns: all tests, or only those significant for both methods.
_SUBSETS = ("all", "sig.")
#: Fewest (test) pairs for a correlation; with fewer the cell is "n/a" (with two
#: points Pearson's r is always ±1).
MIN_PAIRS = 3
#: Fewest pairs for a confidence interval (Fisher's z has standard error 1/√(n−3)).
MIN_PAIRS_CI = 4
#: Confidence level of the intervals.
_CONFIDENCE = 0.95

_SCORE_COLUMNS = ["method", "test", "model", "d", "sig"]
#: The offline Table 5's rows: the paper's six, and LPBS on templates against LPBS on
#: corpus sentences (Table 14's probability column).
OFFLINE_PAIRS: tuple[tuple[str, str], ...] = (*METHOD_PAIRS, ("LPBS", "LPBS (corpus)"))


def myb_csv_effect_sizes(path: str | Path) -> pd.Series:
    """The effect sizes of the authors' result file, by line number.

    Reads Mind Your Bias's ``all_results.csv`` (semicolon-separated, decimal
    commas, UTF-8 with BOM) and returns its ``effect_size`` column as floats,
    indexed by the line in the file (header = line 1), as the ``csv_line``
    columns of the typed-in tables name them. Lines without a finite effect size
    (empty or ``NaN``) are left out.

    Parameters
    ----------
    path
        The file (``../shared/reference/mind_your_bias_all_results.csv``); it lives
        outside the project, so it is passed in rather than looked up.

    Returns
    -------
    pandas.Series
        ``effect_size`` by ``csv_line``.
    """
    with open(path, newline="", encoding="utf-8-sig") as f:
        lines = list(csv.reader(f, delimiter=";"))
    column = lines[0].index("effect_size")
    values: dict[int, float] = {}
    for line, fields in enumerate(lines[1:], start=2):
        text = fields[column].strip() if len(fields) > column else ""
        if text and text != "NaN":
            values[line] = float(text.replace(",", "."))
    return pd.Series(values, name="effect_size", dtype=float).rename_axis("csv_line")


def myb_scores(effect_sizes: Mapping[int, float] | pd.Series | None = None,
               *, lpbs_word_set: str = "full") -> pd.DataFrame:
    """The bias scores behind Table 5: Mind Your Bias's own numbers of Tables 3 and 4.

    One row per method × test × model: s-SEAT, w-SEAT and CEAT from Table 3
    (column "ours", five models), LPBS from Table 4 (BERT, one word set).

    Parameters
    ----------
    effect_sizes
        ``None`` (default): the numbers as printed (two decimals), which is what
        the authors correlated. Otherwise the authors' result file by line
        (:func:`myb_csv_effect_sizes`): each score is replaced by the full-precision
        effect size of the line its ``csv_line`` names.
    lpbs_word_set
        Table 4's column for LPBS: ``"full"`` (Table 5's), ``"reduced"`` or
        ``"simplified"``; the last two lack some tests, which then drop out of
        the LPBS pairs.

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``test``, ``model``, ``d`` (effect size) and ``sig``
        (bool: p < 0.01 in the authors' result file, their bold).
    """
    table3 = load_published("myb_table3")
    table4 = load_published("myb_table4_lpbs")
    if lpbs_word_set not in set(table4["word_set"]):
        raise ValueError(f"lpbs_word_set must be one of {sorted(set(table4['word_set']))}, "
                         f"not {lpbs_word_set!r}")
    ours3 = table3[table3["column"] == "ours"]
    ours4 = table4[(table4["column"] == "ours") & (table4["word_set"] == lpbs_word_set)]
    scores = pd.concat([ours3, ours4], ignore_index=True)
    if effect_sizes is not None:
        lookup = pd.Series(effect_sizes, dtype=float)
        lines = scores["csv_line"].astype(int)
        missing = sorted(set(lines) - set(lookup.index))
        if missing:
            raise ValueError(f"effect_sizes has no value for csv_line {missing}")
        scores = scores.assign(d=lookup.loc[lines].to_numpy())
    scores = scores.assign(sig=scores["sig"].astype(bool), d=scores["d"].astype(float))
    return scores[_SCORE_COLUMNS].reset_index(drop=True)


def _cell(x: np.ndarray, y: np.ndarray, confidence: float) -> dict[str, float | int]:
    """Pearson's r over the pairs, with its confidence interval where n allows."""
    n = len(x)
    out: dict[str, float | int] = {"n": n, "r": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    if n < MIN_PAIRS:
        return out
    result = stats.pearsonr(x, y)
    out["r"] = float(result.statistic)
    if n >= MIN_PAIRS_CI:
        ci = result.confidence_interval(confidence_level=confidence)
        out["ci_low"], out["ci_high"] = float(ci.low), float(ci.high)
    return out


def correlations(scores: pd.DataFrame, pairs: Sequence[tuple[str, str]] = METHOD_PAIRS,
                 models: Sequence[str] = MYB_MODELS, *,
                 confidence: float = _CONFIDENCE) -> pd.DataFrame:
    """Pearson correlations between two methods' scores over the tests, per model.

    For each method pair and model, the tests that both methods score are paired
    (by ``test``); "all" correlates every pair, "sig." only the pairs where
    *both* scores are significant. This is Mind Your Bias's rule for Table 5.

    A cell needs :data:`MIN_PAIRS` (3) pairs: with two or fewer it is "n/a"
    (``r`` = NaN), as in the paper. A confidence interval needs
    :data:`MIN_PAIRS_CI` (4): it comes from :meth:`scipy.stats.PearsonRResult.confidence_interval`,
    Fisher's z-transform, whose standard error 1/√(n−3) is infinite at n = 3
    (scipy then returns the useless (−1, 1)); we leave it NaN instead. With at
    most eight tests per cell the intervals are wide: they show how little a
    Table 5 cell pins down.

    Parameters
    ----------
    scores
        Long frame with columns ``method``, ``test``, ``model``, ``d`` and
        ``sig`` (bool), one row per method × test × model (:func:`myb_scores`).
    pairs
        (method_a, method_b) rows.
    models
        Models, in column order; a pair with no tests for a model (LPBS outside
        BERT) gives no row.
    confidence
        Confidence level of the interval.

    Returns
    -------
    pandas.DataFrame
        One row per pair × model × subset: ``method_a``, ``method_b``,
        ``model``, ``subset`` ("all" / "sig."), ``n`` (pairs used), ``r``,
        ``ci_low``, ``ci_high``.
    """
    missing = set(_SCORE_COLUMNS) - set(scores.columns)
    if missing:
        raise ValueError(f"scores lacks columns {sorted(missing)}")
    keyed = scores.set_index(["method", "model", "test"])[["d", "sig"]].sort_index()
    if not keyed.index.is_unique:
        raise ValueError("scores has more than one row for some method × model × test")
    rows = []
    for method_a, method_b in pairs:
        for model in models:
            try:
                a = keyed.loc[(method_a, model)]
                b = keyed.loc[(method_b, model)]
            except KeyError:
                continue
            joined = a.merge(b, left_index=True, right_index=True, suffixes=("_a", "_b"))
            if joined.empty:
                continue
            both = joined["sig_a"].astype(bool) & joined["sig_b"].astype(bool)
            for subset, kept in (("all", joined), ("sig.", joined[both])):
                cell = _cell(kept["d_a"].to_numpy(float), kept["d_b"].to_numpy(float),
                             confidence)
                rows.append({"method_a": method_a, "method_b": method_b, "model": model,
                             "subset": subset, **cell})
    return pd.DataFrame(rows, columns=["method_a", "method_b", "model", "subset", "n", "r",
                                       "ci_low", "ci_high"])


def myb_table5(effect_sizes: Mapping[int, float] | pd.Series | None = None, *,
               lpbs_word_set: str = "full", confidence: float = _CONFIDENCE) -> pd.DataFrame:
    """Mind Your Bias's Table 5, recomputed from their Tables 3 and 4.

    :func:`correlations` of :func:`myb_scores`: every method pair × model ×
    subset (all / sig.), with ``n``, ``r`` and a confidence interval. The paper
    prints ELMo once (all its scores are significant, so all = sig.) and LPBS
    for BERT only; this frame has both subsets for every model.

    Parameters
    ----------
    effect_sizes
        ``None``: the printed two-decimal numbers (reproduces the paper);
        or the authors' result file by line (:func:`myb_csv_effect_sizes`).
    lpbs_word_set
        Table 4's word-set column for LPBS (the paper: ``"full"``).
    confidence
        Confidence level of the intervals.

    Returns
    -------
    pandas.DataFrame
        As :func:`correlations`.
    """
    return correlations(myb_scores(effect_sizes, lpbs_word_set=lpbs_word_set),
                        confidence=confidence)


def table5_published() -> pd.DataFrame:
    """Table 5 as printed (``data/published/myb_table5_correlations.csv``), 33 cells.

    ``r`` is kept as the printed text ("0.84", "-0.44", "0.90", "n/a"), not parsed
    into numbers, so that the comparison is with the table as printed. ELMo's
    single column is typed in with ``subset`` "all".
    """
    path = data_dir() / "published" / "myb_table5_correlations.csv"
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def format_r(r: float) -> str:
    """A correlation as Table 5 prints it: two decimals, ASCII minus, "n/a" if missing."""
    if r is None or math.isnan(r):
        return "n/a"
    text = f"{r:.2f}"
    return "0.00" if text == "-0.00" else text


def table5_beside_published(computed: pd.DataFrame | None = None) -> pd.DataFrame:
    """The printed Table 5 beside ours, cell by cell.

    Parameters
    ----------
    computed
        Our table (:func:`myb_table5`; the default recomputes it from the printed
        numbers). ELMo's printed cells are compared with our "all" subset.

    Returns
    -------
    pandas.DataFrame
        The 33 printed cells in the paper's order: ``methods``, ``model``,
        ``subset``, ``published`` (as printed), ``ours`` (:func:`format_r`), ``n``,
        ``r``, ``ci_low``, ``ci_high``, ``matches`` (``ours == published``) and the
        published ``note``.
    """
    if computed is None:
        computed = myb_table5()
    printed = table5_published()
    merged = printed.merge(computed, on=["method_a", "method_b", "model", "subset"],
                           how="left", validate="one_to_one")
    merged = merged.assign(published=merged["r_x"], r=merged["r_y"])
    merged["ours"] = merged["r"].map(format_r)
    merged["matches"] = merged["ours"] == merged["published"]
    return merged[["methods", "model", "subset", "published", "ours", "n", "r", "ci_low",
                   "ci_high", "matches", "note"]]


# ------------------------------------------------------------------ Table 5 on our models


#: The stored table of the tiny MLM's cosine methods (s-SEAT, w-SEAT, CEAT), which
#: puts them beside its LPBS (``lpbs_myb``) so that Table 5's six pairs share one model.
TINY_MLM_TABLE = "synthesis_tiny_mlm"


def tiny_mlm_table(parts: Sequence[str] = ("seat", "ceat"), *,
                   seat_tests: Mapping[str, str] | None = None,
                   ceat_tests: Mapping[str, str] | None = None,
                   model: EncoderSpec | None = None, progress: bool = True) -> pd.DataFrame:
    """s-SEAT, w-SEAT and CEAT of the tiny MLM on Mind Your Bias's tests (computed now).

    The stored table :data:`TINY_MLM_TABLE`. ``"seat"``: :func:`biasbook.seat.myb_table`
    (Mind Your Bias's templates and convention), as for the SEAT chapter's offline models.
    ``"ceat"``: :func:`biasbook.ceat.chapter_rows` on corpus sentences with Mind Your
    Bias's window, at most :data:`~biasbook.synthesis_tables.CEAT_CAP` sentences
    per stimulus (seed 1111), under both CEAT conventions, as ``ceat_myb``; it needs the
    corpus extract, and without it the CEAT rows are left out with a warning (the
    provenance says so).

    One row per method × test (× convention for CEAT): the core columns
    (:data:`biaslib.methods.result.CORE_COLUMNS`; ``method`` ``s-SEAT``, ``w-SEAT`` or
    ``CEAT``, ``test`` Table 3's row), then ``column``, ``stimuli`` (the stimulus test) and
    the other columns of the two chapters' tables.

    Parameters
    ----------
    parts
        Which of ``"seat"`` and ``"ceat"`` to compute.
    seat_tests, ceat_tests
        Table 3's rows (default: all of :data:`biasbook.published.MYB_TABLE3`).
    model
        The encoder (default :func:`~biasbook.synthesis_tables.tiny_mlm_encoder`).
    progress
        Show progress bars (SEAT).
    """
    unknown = set(parts) - {"seat", "ceat"}
    if unknown:
        raise ValueError(f"parts must be among 'seat' and 'ceat', not {sorted(unknown)}")
    model = tiny_mlm_encoder() if model is None else model
    frames = []
    if "seat" in parts:
        frames.append(myb_table([model], MYB_TABLE3 if seat_tests is None else seat_tests,
                                MIND_YOUR_BIAS, progress=progress))
    if "ceat" in parts:
        try:
            corpus_dir()
        except FileNotFoundError as err:
            warnings.warn(f"CEAT rows of {TINY_MLM_TABLE} left out: {err}", stacklevel=2)
        else:
            frames.append(chapter_rows([model], MYB_TABLE3 if ceat_tests is None else ceat_tests,
                                       "corpus", caps={model.label: CEAT_CAP}))
    if not frames:
        raise ValueError("nothing computed")
    # CEAT's interval columns follow the core columns, as in the stored table.
    return core_first(pd.concat(frames, ignore_index=True))


def offline_scores(seat: pd.DataFrame | None = None, ceat: pd.DataFrame | None = None,
                   lpbs: pd.DataFrame | None = None, lpbs_corpus: pd.DataFrame | None = None,
                   tiny: pd.DataFrame | None = None,
                   *, word_set: str = "full", alpha: float = MYB_ALPHA) -> pd.DataFrame:
    """Our offline models' scores on Table 5's tests, from the stored tables.

    One row per method × test × model, in :func:`correlations`' long format, read the
    same way from every table: its core columns ``method``, ``test``, ``model``,
    ``effect_size`` and ``p_value`` (:data:`biaslib.methods.result.CORE_COLUMNS`); only
    which rows count differs per table (``_offline_sources``):

    * ``s-SEAT``, ``w-SEAT``: ``seat_myb``;
    * ``CEAT``: ``ceat_myb`` under Mind Your Bias's convention;
    * ``LPBS``: ``lpbs_myb``, Table 4's cell for ``word_set`` (its target
      description and attribute form, :data:`biasbook.lpbs.TABLE4_CELLS`)
      under Mind Your Bias's convention, template sentences;
    * ``LPBS (corpus)``: ``lpbs_reddit``, the fixed scores (CES) of ``word_set``;
    * the tiny MLM's ``s-SEAT``, ``w-SEAT`` and ``CEAT``: ``synthesis_tiny_mlm``
      (:func:`tiny_mlm_table`; CEAT under Mind Your Bias's convention).

    LPBS and the last three belong to the tiny MLM
    (:data:`biasbook.models.TINY_MLM`), which thus has all of Table 5's
    method pairs, as BERT in the paper; it is a mechanism model, not BERT. A cell that did not run
    (no effect size: missing stimuli, too few co-occurrences) is left out.
    ``sig`` is p < ``alpha``, the paper's rule. Nothing is computed from a model:
    each argument left ``None`` is read with :func:`biasbook.stored.load_results`.
    """
    given = {"seat_myb": seat, "ceat_myb": ceat, "lpbs_myb": lpbs, "lpbs_reddit": lpbs_corpus,
             TINY_MLM_TABLE: tiny}
    parts = []
    for table, keep, method in _offline_sources(word_set):
        frame = given[table]
        frame = load_results(table)[0] if frame is None else frame
        for columns, allowed in keep.items():
            values = (frame[columns] if isinstance(columns, str) else
                      pd.Series(list(zip(*(frame[c] for c in columns), strict=True)),
                                index=frame.index))
            frame = frame[values.isin(list(allowed))]
        parts.append(pd.DataFrame({"method": frame["method"] if method is None else method,
                                   "test": frame["test"], "model": frame["model"],
                                   "d": frame["effect_size"], "p": frame["p_value"]}))
    scores = pd.concat(parts, ignore_index=True)
    scores = scores[np.isfinite(scores["d"].astype(float))]
    scores = scores.assign(d=scores["d"].astype(float),
                           sig=scores["p"].astype(float) < alpha)
    return scores[_SCORE_COLUMNS].reset_index(drop=True)


def _offline_sources(word_set: str) -> tuple[tuple[str, dict, str | None], ...]:
    """The stored tables of the offline Table 5: (table, rows it gives, method name).

    Every table is read the same way, through its core columns
    (:data:`biaslib.methods.result.CORE_COLUMNS`); only which rows count differs:
    a column (or a tuple of columns) → the values kept. LPBS keeps Table 4's cells
    of ``word_set``, each under the attribute form the authors coded (adjectives for
    C1 and C3, nouns elsewhere). The method name is the table's own unless given
    (LPBS on corpus sentences is Table 14's column).
    """
    myb = {"convention": {"mind-your-bias"}}
    cells = {(cell, "adjective" if cell.startswith(("C1_", "C3_")) else "noun")
             for (_, ws), cell in TABLE4_CELLS.items() if ws == word_set}
    return (
        ("seat_myb", {}, None),
        ("ceat_myb", myb, None),
        ("lpbs_myb", {**myb, "word_set": {word_set}, ("myb_test", "attribute_form"): cells},
         None),
        ("lpbs_reddit", {"replay": {"fixed"}, "word_set": {word_set}, "status": {"ok"}},
         "LPBS (corpus)"),
        (TINY_MLM_TABLE, myb, None),
    )


def offline_table5(scores: pd.DataFrame | None = None,
                   pairs: Sequence[tuple[str, str]] = OFFLINE_PAIRS, *,
                   confidence: float = _CONFIDENCE) -> pd.DataFrame:
    """Table 5 on our offline models: :func:`correlations` of :func:`offline_scores`.

    Models in the order they first appear in the scores (CBoW, all-MiniLM-L6-v2,
    SmolLM2, the tiny MLM); a pair with no common test for a model gives
    no row, so each model has only the pairs its stored tables cover.
    """
    if scores is None:
        scores = offline_scores()
    models = list(dict.fromkeys(scores["model"]))
    return correlations(scores, pairs, models, confidence=confidence)


# ------------------------------------------------------- compact views of the main page


def r_overview(offline: pd.DataFrame, printed: pd.DataFrame,
               pairs: Sequence[tuple[str, str]] = OFFLINE_PAIRS,
               printed_model: str = "BERT") -> pd.DataFrame:
    """Table 5 on one line per pair of methods: each offline model's cells, and one printed.

    Each cell reads ``"<r over all tests> / <r over the significant ones>"`` as Table 5
    prints a correlation (:func:`format_r`, with a typographic minus), ``"–"`` where a
    model has no test shared by the two methods (or the paper prints no such pair).

    Parameters
    ----------
    offline
        :func:`offline_table5` (columns ``method_a``, ``method_b``, ``model``,
        ``subset``, ``r``); its models give the columns, in order of appearance, by their
        short names (:data:`biasbook.models.SHORT_NAMES`).
    printed
        :func:`table5_beside_published` (columns ``methods``, ``model``, ``subset``,
        ``published``).
    pairs
        The rows, as (method a, method b).
    printed_model
        The paper's model whose printed cells make the last column.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``methods`` (``"s-SEAT | w-SEAT"``), one text column per model.

    Examples
    --------
    >>> off = pd.DataFrame({"method_a": "s-SEAT", "method_b": "w-SEAT", "model": "m",
    ...                     "subset": ["all", "sig."], "r": [0.5, -0.25]})
    >>> pub = pd.DataFrame({"methods": "s-SEAT | w-SEAT", "model": "BERT",
    ...                     "subset": ["all", "sig."], "published": ["-0.44", "n/a"]})
    >>> r_overview(off, pub, pairs=[("s-SEAT", "w-SEAT"), ("s-SEAT", "CEAT")]).to_dict("list")
    {'m': ['0.50 / −0.25', '–'], 'BERT (printed)': ['−0.44 / n/a', '–']}
    """
    cell = offline.set_index(["method_a", "method_b", "model", "subset"])["r"]
    shown = printed.set_index(["methods", "model", "subset"])["published"]
    columns: dict[str, list[str]] = {}
    for model in dict.fromkeys(offline["model"]):
        columns[SHORT_NAMES.get(model, model)] = [
            " / ".join(format_r(cell[(a, b, model, s)]) for s in _SUBSETS)
            if (a, b, model, "all") in cell.index else "–" for a, b in pairs]
    columns[f"{printed_model} (printed)"] = [
        " / ".join(shown[(f"{a} | {b}", printed_model, s)] for s in _SUBSETS)
        if (f"{a} | {b}", printed_model, "all") in shown.index else "–" for a, b in pairs]
    frame = pd.DataFrame(columns, index=pd.Index([f"{a} | {b}" for a, b in pairs],
                                                 name="methods"))
    return frame.map(lambda text: text.replace("-", "−"))


#: The single switches of Tables 11–13 that :func:`switch_overview` counts: (label: the
#: table and the switch, table, option before, option after).
SWITCHES: tuple[tuple[str, int, str, str], ...] = (
    ("11: names → terms", 11, "names", "terms"),
    ("12: templates → corpus", 12, "template", "reddit"),
    ("13: avg. → sentence", 13, "avg.", "sent"),
    ("13: avg. → first", 13, "avg.", "start"),
    ("13: avg. → last", 13, "avg.", "end"),
)
#: The counts :func:`switch_overview` gives each group: its header → the column of
#: :func:`~biasbook.synthesis_tables.switch_summary` it sums.
_OVERVIEW_COUNTS = {"sign flips": "sign flips", "sig. changes": "significance changes",
                    "pairs": "tests"}


def switch_overview(long: Mapping[int, pd.DataFrame],
                    switches: Sequence[tuple[str, int, str, str]] = SWITCHES) -> pd.DataFrame:
    """Tables 11–13 in a few lines: what one switched choice does, the paper's cells and ours.

    Sums :func:`~biasbook.synthesis_tables.switch_summary` over the models of each group,
    separately for the cosine methods (s-SEAT, w-SEAT, SEAT, CEAT) and for LPBS.

    Parameters
    ----------
    long
        Table number → :func:`~biasbook.synthesis_tables.cells` of that table.
    switches
        (label, table, option before, option after) per row group.

    Returns
    -------
    pandas.DataFrame
        Indexed by (``switch``, ``methods``: ``"cosine"`` or ``"LPBS"``); columns
        (group, count): for :data:`~biasbook.synthesis_tables.MYB_GROUP` and
        :data:`~biasbook.synthesis_tables.OURS_GROUP`, the ``sign flips``,
        ``sig. changes`` (significance changes) and ``pairs`` (test × model × method with
        a number under both options); 0 pairs where a group has none.

    Examples
    --------
    >>> cells_11 = pd.DataFrame({"group": [MYB_GROUP] * 4 + [OURS_GROUP] * 2,
    ...     "model": "m", "method": ["CEAT", "CEAT", "LPBS", "LPBS", "CEAT", "CEAT"],
    ...     "test": "C3", "option": ["names", "terms"] * 3,
    ...     "d": [0.5, -0.2, 0.3, 0.4, 0.1, 0.2], "sig": [True, False, True, True, False, True]})
    >>> view = switch_overview({11: cells_11}, switches=[("names → terms", 11, "names",
    ...                                                 "terms")])
    >>> view.loc[("names → terms", "cosine")].tolist()
    [1, 1, 1, 0, 1, 1]
    >>> view.loc[("names → terms", "LPBS")].tolist()
    [0, 0, 1, 0, 0, 0]
    """
    rows: dict[tuple[str, str], dict[tuple[str, str], int]] = {}
    for label, table, before, after in switches:
        summary = switch_summary(long[table], before, after)
        method = summary.index.get_level_values("method")
        for family, chosen in (("cosine", method != "LPBS"), ("LPBS", method == "LPBS")):
            part = summary[chosen]
            if part.empty:
                continue
            groups = part.index.get_level_values("group")
            rows[(label, family)] = {
                (group, count): int(part.loc[groups == group, column].sum())
                for group in (MYB_GROUP, OURS_GROUP)
                for count, column in _OVERVIEW_COUNTS.items()}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = pd.MultiIndex.from_tuples(frame.index, names=["switch", "methods"])
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    return frame


# --------------------------------------------------------------------------- stored tables


def _tiny_mlm_table() -> pd.DataFrame:
    return tiny_mlm_table()


def _tiny_mlm_provenance(frame: pd.DataFrame) -> dict[str, object]:
    record: dict[str, object] = {
        "what": "s-SEAT and w-SEAT (Mind Your Bias's tests and templates) and CEAT (corpus "
                "sentences, Mind Your Bias's window) on the offline tiny MLM (SPLADE-tiny "
                "BertForMaskedLM, a mechanism model, not BERT), to set beside its LPBS "
                "(lpbs_myb) in the synthesis chapter's offline Table 5",
        "models": models_provenance(frame),
        "pooling": {"sentence": "mean of the token vectors, last layer",
                    "word": "mean of the stimulus' subword vectors, last layer"},
        "convention": MIND_YOUR_BIAS.to_dict(),
        "tests": MYB_TABLE3,
        "templates": "data/templates/mind_your_bias.yaml (authors' strings)",
    }
    if (frame["method"] == "CEAT").any():
        record.update({
            "ceat_conventions": {c.name: c.to_dict() for c in (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL)},
            "sentences_per_stimulus": CEAT_CAP,
            "sample_seed": 1111,
            "extract": describe_extract(),
            "extract_sha256": extract_sha256(),
        })
    else:
        record["ceat"] = ("not computed: no corpus extract where the table was computed; run "
                          "python scripts/compute_results.py synthesis_tiny_mlm with it")
    return record


#: Tests of ``synthesis_tiny_mlm`` the tests recompute (s-SEAT/w-SEAT and CEAT).
SYNTHESIS_TINY_MLM_SLICE = ("C9",)


@functools.cache
def _tiny_mlm_model() -> EncoderSpec:
    """The tiny MLM's encoder, built once for both slices."""
    return built_once(tiny_mlm_encoder())


def _tiny_mlm_slice(part: str) -> Callable[[], pd.DataFrame]:
    def fresh() -> pd.DataFrame:
        tests = {t: MYB_TABLE3[t] for t in SYNTHESIS_TINY_MLM_SLICE}
        if part == "ceat":
            corpus_dir()  # FileNotFoundError without the extract
        return tiny_mlm_table((part,), seat_tests=tests, ceat_tests=tests,
                              model=_tiny_mlm_model(), progress=False)

    return fresh


_KEYS = ("column", "method", "test", "convention")

#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`);
#: the chapter's specification curves (``speccurve_grid``) are declared in
#: :mod:`biasbook.speccurve`.
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        TINY_MLM_TABLE, "synthesis", "s-SEAT, w-SEAT and CEAT on Mind Your Bias's tests, "
        "offline tiny MLM (beside its LPBS in the offline Table 5)",
        _tiny_mlm_table, _tiny_mlm_provenance,
        "the model with its weights fingerprint, poolings, the SEAT convention, tests and "
        "templates; for the CEAT rows the CEAT conventions, sentences per stimulus, sample seed, "
        "the corpus extract and its SHA-256", (NEEDS_TINY_MLM, NEEDS_CORPUS),
        "about a minute for s-SEAT and w-SEAT, minutes for CEAT (2 cores)",
        slices=(SliceCheck("s-SEAT and w-SEAT, C9", _tiny_mlm_slice("seat"), _KEYS,
                           "tests/test_synthesis.py::test_synthesis_tiny_mlm_seat_slice",
                           SEAT_EXACT, ("effect_size",), ("p_value",)),
                SliceCheck("CEAT, MYB-C9-term, corpus", _tiny_mlm_slice("ceat"), _KEYS,
                           "tests/test_synthesis.py::test_synthesis_tiny_mlm_ceat_slice",
                           ceat_exact_columns, ("effect_size", *CEAT_NUMBERS[1:]),
                           ("p_value", "q_p_value"))), results=True),
)


# -------------------------------------------------------------------------------- findings

#: The paper whose cross-method claims the chapter checks, as the references cite it.
PAPER = "Husse & Spitz (2022)"
#: The three cosine-method pairs of Table 5.
_COSINE_PAIRS = METHOD_PAIRS[:3]
#: The eight tests of Table 5, in the paper's order.
_TABLE5_TESTS = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2")
#: The models of the stored specification curves (the ``model`` column) and their tests.
CURVE_MODELS = (MINILM, SMOLLM2, CBOW_GLOVE, TINY_MLM)
CURVE_TESTS = _TABLE5_TESTS


def _minus(text: str) -> str:
    """A printed number with a typographic minus."""
    return text.replace("-", "−")


def _sentence_vs_word(seat_rows: pd.DataFrame | None = None, alpha: float = MYB_ALPHA
                     ) -> pd.DataFrame:
    """Table 13's claim on our models: s-SEAT (sentence) against w-SEAT (word average).

    Parameters
    ----------
    seat_rows
        The stored table ``seat_myb`` (read when ``None``).
    alpha
        Significance level (the paper's bold, p < 0.01).

    Returns
    -------
    pandas.DataFrame
        Indexed by model (``seat_myb``'s ``column``): ``significant sent`` and
        ``significant avg.`` (counts), ``sent lower`` (tests where the sentence
        effect size is below the word-average one) and ``tests`` (tests both ran).
    """
    rows = load_results("seat_myb")[0] if seat_rows is None else seat_rows
    out = {}
    for model in dict.fromkeys(rows["column"]):
        wide = rows[rows["column"] == model].pivot(index="test", columns="method",
                                                   values=["effect_size", "p_value"]).dropna()
        sig = (wide["p_value"] < alpha).sum()
        out[model] = {"significant sent": int(sig["s-SEAT"]),
                      "significant avg.": int(sig["w-SEAT"]),
                      "sent lower": int((wide[("effect_size", "s-SEAT")]
                                         < wide[("effect_size", "w-SEAT")]).sum()),
                      "tests": len(wide)}
    return pd.DataFrame.from_dict(out, orient="index")


def _runtime_measurements() -> tuple[dict[str, object], pd.DataFrame]:
    """Our runtimes of Mind Your Bias's Tables 7–8 (``benchmarks/results/myb_runtime.json``).

    Returns
    -------
    tuple
        The machine record (CPU, cores, library versions, date) and the measurements,
        indexed by (test, method): ``model``, ``seconds`` (mean of ten runs, embeddings
        excluded), ``embedding_s`` and the other fields the benchmark stores.
    """
    path = data_dir().parent / "benchmarks" / "results" / "myb_runtime.json"
    bench = json.loads(path.read_text(encoding="utf-8"))
    return dict(bench["machine"]), pd.DataFrame(bench["measured"]).set_index(["test", "method"])


def runtime_view() -> pd.DataFrame:
    """Mind Your Bias's Tables 7–8 (seconds per run) beside our runtimes, as the chapter shows them.

    Returns
    -------
    pandas.DataFrame
        Indexed by (``test``, ``method``) in the paper's order. One column per paper model,
        ``"<model> (MYB)"``, with the printed mean of ten runs (one decimal; empty where the
        paper prints none: its LPBS ran on BERT only); then ours from
        ``benchmarks/results/myb_runtime.json``: ``ours: model`` (the book's short name),
        ``ours (s)`` (mean of ten runs; the cosine methods without computing the
        embeddings, as in the paper) and ``ours: embedding (s)`` (the embeddings alone;
        "–" for LPBS, whose time includes its forward passes).
    """
    _, measured = _runtime_measurements()
    published = load_published("myb_tables_7_8_runtime")
    view = published.pivot_table(index=["test", "method"], columns="model", values="seconds",
                                 sort=False)
    view = view[[m for m in MYB_MODELS if m in view.columns]].map(
        lambda s: "" if math.isnan(s) else f"{s:.1f}")
    view.columns = [f"{m} (MYB)" for m in view.columns]
    model = measured["model"].str.replace(r" \(.*\)$", "", regex=True)
    view["ours: model"] = model.map(lambda m: SHORT_NAMES.get(m, m))
    view["ours (s)"] = measured["seconds"].map(lambda s: f"{s:.3f}")
    view["ours: embedding (s)"] = measured["embedding_s"].map(
        lambda s: "–" if s is None or (isinstance(s, float) and math.isnan(s)) else f"{s:.1f}")
    return view


def runtime_overview(test: str = "C1") -> pd.DataFrame:
    """One test's runtimes in four columns: the paper's range over its models beside ours.

    Parameters
    ----------
    test
        ``"C1"`` (Table 7) or ``"C6"`` (Table 8).

    Returns
    -------
    pandas.DataFrame
        Indexed by method: ``MYB, 5 models (s)`` (the lowest–highest printed time, one
        number where the paper prints one: LPBS ran on BERT only), then ``ours (s)``,
        ``ours: embedding (s)`` and ``ours: model`` of :func:`runtime_view`.

    Examples
    --------
    >>> runtime_overview("C1").loc["CEAT", "MYB, 5 models (s)"]
    '445.2–489.4'
    """
    view = runtime_view().xs(test, level="test")
    printed = view.filter(like="(MYB)").replace("", np.nan).astype(float)
    low, high = printed.min(axis=1), printed.max(axis=1)
    return pd.DataFrame({
        "MYB, 5 models (s)": [f"{lo:.1f}" if lo == hi else f"{lo:.1f}–{hi:.1f}"
                              for lo, hi in zip(low, high, strict=True)],
        "ours (s)": view["ours (s)"], "ours: embedding (s)": view["ours: embedding (s)"],
        "ours: model": view["ours: model"]}, index=view.index)


def _interval_excludes_0(frame: pd.DataFrame) -> pd.Series:
    return (frame["ci_low"] > 0) | (frame["ci_high"] < 0)


def _cover_0(frame: pd.DataFrame) -> str:
    return ("every interval covers 0" if not _interval_excludes_0(frame).any()
            else "some intervals exclude 0")


@dataclasses.dataclass(frozen=True, eq=False)
class _SynthesisEvidence:
    """What the chapter's claims read, each table read or computed once, on first use."""

    @functools.cached_property
    def beside(self) -> pd.DataFrame:
        """:func:`table5_beside_published`."""
        return table5_beside_published()

    @functools.cached_property
    def pub(self) -> pd.Series:
        """Table 5 as printed, by (methods, model, subset)."""
        return self.beside.set_index(["methods", "model", "subset"])["published"].sort_index()

    @functools.cached_property
    def ours5(self) -> pd.DataFrame:
        """:func:`myb_table5` (recomputed from the printed Tables 3 and 4), indexed."""
        return myb_table5().set_index(_TABLE5_KEYS).sort_index()

    @functools.cached_property
    def scores(self) -> pd.DataFrame:
        """:func:`offline_scores`."""
        return offline_scores()

    @functools.cached_property
    def off(self) -> pd.DataFrame:
        """:func:`offline_table5` of our models, indexed."""
        return offline_table5(self.scores).set_index(_TABLE5_KEYS).sort_index()

    @functools.cached_property
    def t11_14(self) -> pd.DataFrame:
        """Tables 11–14 as printed."""
        return load_published("myb_tables_11_14")

    @functools.cached_property
    def choices(self) -> pd.DataFrame:
        """Our Tables 11–14 cells (:func:`~biasbook.synthesis_tables.stored_ours`)."""
        return stored_ours()

    def printed(self, pairs: Sequence[tuple[str, str]], model: str, subset: str = "all") -> str:
        """Table 5's printed cells of ``pairs`` for ``model``, comma-separated."""
        return ", ".join(_minus(self.pub[(f"{a} | {b}", model, subset)]) for a, b in pairs)

    def r_off(self, a: str, b: str, model: str, subset: str = "all") -> str:
        """Our offline r of methods ``a`` and ``b`` on ``model``, as printed."""
        return _minus(format_r(self.off.loc[(a, b, model, subset), "r"]))

    def n_off(self, a: str, b: str, model: str, subset: str = "all") -> int:
        """The number of tests behind :meth:`r_off`."""
        return int(self.off.loc[(a, b, model, subset), "n"])

    def change(self, a: str, b: str, model: str, offline: bool = False) -> str:
        """``0.12 → 0.80``: the r of ``a`` and ``b`` over all tests → significant ones."""
        frame = self.off if offline else self.ours5
        return " → ".join(_minus(format_r(frame.loc[(a, b, model, s), "r"]))
                          for s in _SUBSETS)


_TABLE5_KEYS = ["method_a", "method_b", "model", "subset"]
_MINI, _SMOL, _CBOW, _TINY = (*CURVE_MODELS[:3], TINY_MLM)
_STAND_INS = "CBoW, MiniLM, SmolLM2 (stand-ins)"


def _claim_cosine_positive(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias §4.2: the cosine methods correlate positively, especially ELMo, BLOOM."""
    beside = ev.beside
    cos_all = beside[(beside["subset"] == "all") & ~beside["methods"].str.contains("LPBS")]
    with_ci = beside[beside["n"] >= MIN_PAIRS_CI]
    mini_excl = _interval_excludes_0(ev.off.loc[[(a, b, _MINI, "all") for a, b in _COSINE_PAIRS]])
    smol_excl = _interval_excludes_0(ev.off.loc[[(a, b, _SMOL, "all") for a, b in _COSINE_PAIRS]])
    return Finding(
        PAPER, "§4.2: the cosine methods correlate positively, especially for ELMo and BLOOM",
        f"Table 5: {int((cos_all['r'] > 0).sum())} of {len(cos_all)} 'all' cosine cells "
        f"positive; ELMo {ev.printed(_COSINE_PAIRS, 'ELMo')}; BLOOM "
        f"{ev.printed(_COSINE_PAIRS, 'BLOOM')}; "
        f"{int(_interval_excludes_0(with_ci).sum())} of {len(with_ci)} intervals (ours, "
        "Fisher's z) exclude 0",
        f"MiniLM {', '.join(ev.r_off(a, b, _MINI) for a, b in _COSINE_PAIRS)} "
        f"({'every interval above 0' if mini_excl.all() else 'some intervals cover 0'}); "
        f"CBoW s-|w-SEAT {ev.r_off('s-SEAT', 'w-SEAT', _CBOW)}; SmolLM2 "
        f"{', '.join(ev.r_off(a, b, _SMOL) for a, b in _COSINE_PAIRS)} "
        f"({'intervals cover 0' if not smol_excl.any() else 'some intervals exclude 0'})",
        _STAND_INS, "weakly", "synthesis-table5")


def _tiny_lpbs_significant(scores: pd.DataFrame) -> list[str]:
    """The tests on which the tiny MLM's LPBS is significant."""
    return scores[(scores["model"] == _TINY) & (scores["method"] == "LPBS")
                  & scores["sig"]]["test"].tolist()


def _claim_significant_only(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias §4.2: with significant scores only, two BERT cells rise, one falls."""
    tiny_sig_na = all(math.isnan(ev.off.loc[(a, "LPBS", _TINY, "sig."), "r"])
                      for a in ("s-SEAT", "w-SEAT", "CEAT"))
    ceat_lpbs = ev.ours5.loc[("CEAT", "LPBS", "BERT"), "r"]
    return Finding(
        PAPER, "§4.2: with significant scores only, s-SEAT | CEAT and s-SEAT | LPBS "
        "increase and CEAT | LPBS decreases (BERT)",
        f"Table 5, BERT, all → sig.: s-SEAT | CEAT {ev.change('s-SEAT', 'CEAT', 'BERT')}, "
        f"s-SEAT | LPBS {ev.change('s-SEAT', 'LPBS', 'BERT')}, CEAT | LPBS "
        f"{ev.change('CEAT', 'LPBS', 'BERT')}",
        f"tiny MLM: s-SEAT | CEAT {ev.change('s-SEAT', 'CEAT', _TINY, offline=True)}, LPBS "
        f"cells {'n/a' if tiny_sig_na else 'computed'} (LPBS significant on "
        f"{len(_tiny_lpbs_significant(ev.scores))} tests); MiniLM s-SEAT | CEAT "
        f"{ev.change('s-SEAT', 'CEAT', _MINI, offline=True)}",
        "tiny MLM (not BERT), MiniLM", bool(ceat_lpbs["sig."] < ceat_lpbs["all"]),
        "synthesis-text-vs-table")


def _claim_opt_inverse(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias §4.2: OPT reverses s-SEAT | w-SEAT and s-SEAT | CEAT."""
    opt = (ev.ours5.loc[("s-SEAT", "w-SEAT", "OPT"), "r"],
           ev.ours5.loc[("s-SEAT", "CEAT", "OPT"), "r"])
    return Finding(
        PAPER, "§4.2: the inverse effect for s-SEAT | w-SEAT and s-SEAT | CEAT with OPT",
        f"Table 5, OPT, all → sig.: {ev.change('s-SEAT', 'w-SEAT', 'OPT')} and "
        f"{ev.change('s-SEAT', 'CEAT', 'OPT')}",
        f"recomputed from the printed Tables 3 and 4: the same cells "
        f"({int(ev.beside['matches'].sum())} of {len(ev.beside)} printed cells reproduced)",
        "the paper's OPT scores (no model run)",
        bool(all(r["all"] > 0 > r["sig."] for r in opt)), "synthesis-table5")


def _claim_lpbs_strong(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias §4.2: over significant scores LPBS correlates strongly with the others."""
    lpbs_sig = [(a, "LPBS") for a in ("s-SEAT", "CEAT", "w-SEAT")]
    lpbs_cells = ", ".join(
        f"{_minus(ev.pub[(f'{a} | {b}', 'BERT', 'sig.')])} "
        f"(n = {int(ev.ours5.loc[(a, b, 'BERT', 'sig.'), 'n'])})" for a, b in lpbs_sig)
    return Finding(
        PAPER, "§4.2: with significant scores, LPBS correlates (strongly) with s-SEAT, CEAT "
        "and w-SEAT",
        f"Table 5, BERT, sig.: s-SEAT, CEAT, w-SEAT {lpbs_cells}",
        f"tiny MLM: n/a for all three (n = {ev.n_off('s-SEAT', 'LPBS', _TINY, 'sig.')}: LPBS "
        f"significant on {' and '.join(_tiny_lpbs_significant(ev.scores))} only)",
        "tiny MLM (not BERT)",
        bool(all(ev.ours5.loc[(a, b, "BERT", "sig."), "n"] >= MIN_PAIRS_CI
                 for a, b in lpbs_sig)),
        "synthesis-text-vs-table")


def _claim_mixed_s_w(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias §4.2: mixed correlations between s-SEAT and w-SEAT."""
    sw_sig = ", ".join(f"{m} {_minus(ev.pub[('s-SEAT | w-SEAT', m, 'sig.')])}"
                       for m in MYB_MODELS if m != "ELMo")
    sw_all = [ev.ours5.loc[("s-SEAT", "w-SEAT", m, "all"), "r"]
              for m in MYB_MODELS if m != "BERT"]
    sw_off = [ev.r_off("s-SEAT", "w-SEAT", m) for m in (_CBOW, _MINI, _SMOL)]
    return Finding(
        PAPER, "§4.2: mixed correlations between s-SEAT and w-SEAT",
        f"Table 5, sig.: {sw_sig}; all: {min(sw_all):.2f}–{max(sw_all):.2f} except BERT "
        f"{_minus(ev.pub[('s-SEAT | w-SEAT', 'BERT', 'all')])}",
        f"all: CBoW {sw_off[0]}, MiniLM {sw_off[1]}, SmolLM2 {sw_off[2]}", _STAND_INS,
        bool(min(sw_all) > 0 > ev.ours5.loc[("s-SEAT", "w-SEAT", "BERT", "all"), "r"]),
        "synthesis-offline-table5")


def _claim_no_lpbs_trend(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias, Appendix E: no clear trend between the cosine methods and LPBS."""
    lpbs_pairs = METHOD_PAIRS[3:]
    bert_lpbs = ev.ours5.loc[[(a, b, "BERT", "all") for a, b in lpbs_pairs]]
    tiny_lpbs = ev.off.loc[[(a, b, _TINY, "all") for a, b in lpbs_pairs]]
    return Finding(
        PAPER, "Appendix E: no clear trend between the cosine methods and LPBS",
        f"Table 5, BERT, all (n = {int(bert_lpbs['n'].max())}): s-SEAT, w-SEAT, CEAT "
        f"{ev.printed(lpbs_pairs, 'BERT')}; {_cover_0(bert_lpbs)}",
        f"tiny MLM, all: {', '.join(ev.r_off(a, b, _TINY) for a, b in lpbs_pairs)} "
        f"(n = {', '.join(str(ev.n_off(a, b, _TINY)) for a, b in lpbs_pairs)}); "
        f"{_cover_0(tiny_lpbs)}",
        "tiny MLM (not BERT)", bool(not _interval_excludes_0(bert_lpbs).any()),
        "synthesis-tiny-mlm")


def _flipped_tests(long: pd.DataFrame, a: str, b: str) -> dict[str, list[str]]:
    """Model → the tests whose effect size changes sign between options ``a`` and ``b``."""
    keys = ["model", "method", "test"]
    left = long[long["option"] == a].set_index(keys)["d"]
    right = long[long["option"] == b].set_index(keys)["d"]
    both = pd.concat([left.rename("a"), right.rename("b")], axis=1, join="inner").dropna()
    flips = both[both["a"] * both["b"] < 0]
    out: dict[str, list[str]] = {}
    for (model, _, test) in flips.index:
        out.setdefault(model, [])
        if test not in out[model]:
            out[model].append(test)
    return out


def _flip_text(flipped: Mapping[str, Sequence[str]]) -> str:
    return "; ".join(f"{m} {', '.join(ts)}" for m, ts in flipped.items()) or "none"


def _cosine_only(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of a :func:`~biasbook.synthesis_tables.switch_summary` of the cosine methods."""
    return summary[summary.index.get_level_values("method").isin(("s-SEAT", "w-SEAT", "CEAT"))]


def _switch_parts(summary: pd.DataFrame, models: Sequence[str]) -> list[str]:
    """``CBoW 2 sign flips, 3 significance changes in 12 pairs`` per model with rows."""
    parts = []
    for model in models:
        part = summary[summary.index.get_level_values("model") == model]
        if len(part):
            parts.append(f"{model} {int(part['sign flips'].sum())} sign flips, "
                         f"{int(part['significance changes'].sum())} significance changes "
                         f"in {int(part['tests'].sum())} pairs")
    return parts


def _claim_names_or_terms(ours: pd.DataFrame) -> Finding:
    """Mind Your Bias §4.3, Table 11: names or group terms change the scores substantially.

    ``ours`` is :func:`~biasbook.synthesis_tables.stored_ours`.
    """
    long11 = cells(11, ours)
    s11 = switch_summary(long11, "names", "terms")
    pub11 = _cosine_only(s11.loc[MYB_GROUP])
    our11 = s11.loc[OURS_GROUP] if OURS_GROUP in s11.index.get_level_values(0) else s11.iloc[:0]
    flipped = _flipped_tests(long11[long11["group"] == OURS_GROUP], "names", "terms")
    return Finding(
        PAPER, "§4.3: names or group terms has a substantial impact that cannot be "
        "generalised across bias types or LMs (Table 11)",
        f"Table 11, s-SEAT, w-SEAT, CEAT × 5 models × 6 tests: {int(pub11['sign flips'].sum())} "
        f"sign flips and {int(pub11['significance changes'].sum())} significance changes in "
        f"{int(pub11['tests'].sum())} pairs",
        "; ".join(_switch_parts(our11, ("CBoW", "MiniLM", "tiny MLM")))
        + f"; tests that flip: {_flip_text(flipped)}",
        "CBoW, MiniLM, tiny MLM (stand-ins)",
        bool(our11["sign flips"].sum() > 0 and len({t for ts in flipped.values() for t in ts})
             > 1), "synthesis-table11")


def _claim_templates_or_reddit(ours: pd.DataFrame) -> Finding:
    """Mind Your Bias §4.3, Table 12: templates give larger d, Reddit more significance.

    ``ours`` is :func:`~biasbook.synthesis_tables.stored_ours`.
    """
    s12 = switch_summary(cells(12, ours), "template", "reddit")
    pub12 = _cosine_only(s12.loc[MYB_GROUP])
    w12 = pub12[pub12.index.get_level_values("method") == "w-SEAT"]
    our12 = s12.loc[OURS_GROUP]
    w_ours = our12[our12.index.get_level_values("method") == "w-SEAT"]
    ours_larger = int((our12["mean d template"] > our12["mean d reddit"]).sum())
    ours_more = int((our12["significant reddit"] > our12["significant template"]).sum())
    return Finding(
        PAPER, "§4.3: templates give larger effect sizes on average, Reddit comments more "
        "significant results, especially for w-SEAT (Table 12)",
        f"Table 12 (s-SEAT, w-SEAT, CEAT × 5 models): mean d larger with templates in "
        f"{int((pub12['mean d template'] > pub12['mean d reddit']).sum())} of {len(pub12)}; "
        f"w-SEAT significant {int(w12['significant template'].sum())} (templates) vs "
        f"{int(w12['significant reddit'].sum())} (Reddit) of {int(w12['tests'].sum())}",
        f"mean d larger with templates in {ours_larger} of {len(our12)} method × model pairs, "
        f"more significant results on corpus sentences in {ours_more}; w-SEAT significant "
        f"{int(w_ours['significant template'].sum())} (templates) vs "
        f"{int(w_ours['significant reddit'].sum())} (corpus) of {int(w_ours['tests'].sum())}",
        "CBoW, MiniLM, SmolLM2 (SEAT, CEAT), tiny MLM (CEAT, "
        "LPBS; stand-ins)",
        # Both halves hold somewhere (on some models or methods) but neither everywhere.
        (True if ours_larger == ours_more == len(our12) else
         "no" if ours_larger == ours_more == 0 else "partly"), "synthesis-table12")


def _claim_sentence_encodings(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias §4.3, Table 13: sentence encodings give fewer, smaller results."""
    t13 = ev.t11_14
    pub13 = t13[(t13["table"] == 13) & (t13["method"] == "SEAT") & (t13["model"] == "BERT")]
    pub13_sig = {v: int(pub13.loc[pub13["variant"] == v, "sig"].eq(True).sum())
                 for v in ("sent", "avg.")}
    sva = _sentence_vs_word()
    follows = [r["significant sent"] <= r["significant avg."] and r["sent lower"] > r["tests"] / 2
               for _, r in sva.iterrows()]
    return Finding(
        PAPER, "§4.3: sentence encodings give fewer significant results and lower effect "
        "sizes (Table 13)",
        f"Table 13, BERT SEAT: {pub13_sig['sent']} significant 'sent' vs {pub13_sig['avg.']} "
        "'avg.'",
        "; ".join(f"{SHORT_NAMES[m]} {r['significant sent']} vs {r['significant avg.']} "
                  f"significant, sent lower on {r['sent lower']} of {r['tests']}"
                  for m, r in sva.iterrows()),
        _STAND_INS, "yes" if all(follows) else ("partly" if any(follows) else "no"),
        "synthesis-table13")


def _no_impact_verdict(published_flips: int, our_flips: int) -> bool | str:
    """"No impact": True without sign flips in both, "no" with flips in both, else "partly"."""
    if published_flips == 0 and our_flips == 0:
        return True
    return "no" if published_flips and our_flips else "partly"


def _claim_subwords(ours: pd.DataFrame) -> Finding:
    """Mind Your Bias §4.3, Table 13: the first, last or average subword has no impact.

    ``ours`` is :func:`~biasbook.synthesis_tables.stored_ours`.
    """
    long13 = cells(13, ours)
    s13 = pd.concat([switch_summary(long13, "avg.", other).assign(other=other)
                     for other in ("start", "end")])
    pub13, our13 = s13.loc[MYB_GROUP], s13.loc[OURS_GROUP]
    our_parts = [f"{model} {method} {int(part['sign flips'].sum())} sign flips, "
                 f"{int(part['significance changes'].sum())} significance changes in "
                 f"{int(part['tests'].sum())}"
                 for (model, method), part in our13.groupby(level=["model", "method"],
                                                            sort=False)]
    return Finding(
        PAPER, "§4.3: the first, last or average subword does not seem to have an impact",
        f"Table 13, avg. vs start and vs end (BERT, GPT-2, OPT, BLOOM; SEAT and CEAT): "
        f"{int(pub13['sign flips'].sum())} sign flips and "
        f"{int(pub13['significance changes'].sum())} significance changes in "
        f"{int(pub13['tests'].sum())} pairs",
        "; ".join(our_parts), "MiniLM (SEAT), tiny MLM (SEAT, CEAT; stand-ins)",
        _no_impact_verdict(int(pub13["sign flips"].sum()), int(our13["sign flips"].sum())),
        "synthesis-table13")


def _claim_cosine_over_probability(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias §4.3, Table 14: cosine gives more significant results than probability."""
    t14 = ev.t11_14
    pub14 = t14[(t14["table"] == 14) & (t14["word_set"] == "full")]
    pub_cos = pub14[pub14["variant"] == "cosine similarity"]
    pub_prob = pub14[pub14["variant"] == "probability"]
    counts = ev.scores.groupby(["model", "method"])["sig"].agg(["size", "sum"]).sort_index()
    prob = counts.loc[(_TINY, "LPBS (corpus)")]
    ceat_counts = ", ".join(f"{SHORT_NAMES[m]} {int(counts.loc[(m, 'CEAT'), 'sum'])} of "
                            f"{int(counts.loc[(m, 'CEAT'), 'size'])}"
                            for m in (_MINI, _SMOL, _TINY))
    return Finding(
        PAPER, "§4.3: cosine gives more significant results than probability (Table 14)",
        f"Table 14, BERT, full sets: {int(pub_cos['sig'].eq(True).sum())} of {len(pub_cos)} "
        f"vs {int(pub_prob['sig'].eq(True).sum())} of {len(pub_prob)} "
        f"({int(pub_prob['d'].isna().sum())} n/a)",
        f"probability (tiny MLM, corpus): {int(prob['sum'])} of {int(prob['size'])} with enough "
        f"co-occurrences; CEAT: {ceat_counts}",
        "tiny MLM, MiniLM, SmolLM2 (stand-ins)", "not separable",
        "synthesis-table14")


def _claim_design_choices(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias's thesis: the design choices change the scores (specification curves)."""
    spread = specification_summary(CURVE_MODELS, CURVE_TESTS)
    c3 = spread[spread["test"] == "C3"]
    c3_both = c3[(c3["CI above 0"] > 0) & (c3["CI below 0"] > 0)]
    neural = [m for m in CURVE_MODELS if m != _CBOW]
    return Finding(
        PAPER, "The design choices change the scores substantially (the paper's thesis)",
        "Tables 11–14: one choice at a time",
        f"{int(spread['specifications'].sum())} stored specifications of {len(CURVE_MODELS)} "
        f"models × {len(CURVE_TESTS)} tests; ranges up to {spread['range'].max():.2f} in d; "
        f"C3's CIs lie wholly above 0 in some specifications and wholly below in others on "
        f"{len(c3_both)} of {len(neural)} neural models",
        "CBoW, MiniLM, SmolLM2, tiny MLM (stand-ins)",
        bool(set(c3_both["model"]) == set(neural)), "synthesis-speccurves")


def _claim_runtimes(ev: _SynthesisEvidence) -> Finding:
    """Mind Your Bias, Appendix F: SEAT runtimes match, CEAT's are substantially higher."""
    _, measured = _runtime_measurements()
    pub_rt = load_published("myb_tables_7_8_runtime")
    pub_c1 = pub_rt[pub_rt["test"] == "C1"].set_index(["method", "model"])["seconds"].sort_index()
    seat_c1 = pub_c1.loc[["s-SEAT", "w-SEAT"]]
    secs, emb = measured["seconds"], measured["embedding_s"]
    return Finding(
        PAPER, "Appendix F: SEAT runtimes match, CEAT's are substantially higher",
        f"Tables 7–8, C1: SEAT {seat_c1.min():.1f}–{seat_c1.max():.1f} s, CEAT "
        f"{pub_c1.loc['CEAT'].min():.1f}–{pub_c1.loc['CEAT'].max():.1f} s",
        f"C1 without embeddings: s-SEAT {secs[('C1', 's-SEAT')]:.3f} s, CEAT "
        f"{secs[('C1', 'CEAT')]:.3f} s; embeddings: s-SEAT {emb[('C1', 's-SEAT')]:.1f} s, "
        f"CEAT {emb[('C1', 'CEAT')]:.1f} s",
        "MiniLM (stand-in; another CPU)", "partly", "synthesis-runtimes")


def findings() -> list[Finding]:
    """Mind Your Bias's cross-method claims (§4.2, Appendices E–G) and two of §4.1, checked.

    Computed from the typed-in published tables (Tables 3, 4, 5, 7–8, 11–14) and the
    stored tables of the earlier chapters (``seat_myb``, ``ceat_myb``, ``lpbs_myb``,
    ``lpbs_reddit``, ``synthesis_tiny_mlm``, the specification curves' tables) and
    ``benchmarks/results/myb_runtime.json``; no model is run.

    Returns
    -------
    list of Finding
        One record per claim (a ``_claim_*`` function each), in the order of the
        chapter's sections; ``section`` is the label of the section that shows the
        evidence. §4.1's two claims on Table 3 come last
        (:func:`biasbook.myb_figures.findings`).
    """
    ev = _SynthesisEvidence()
    return [_claim_cosine_positive(ev), _claim_significant_only(ev), _claim_opt_inverse(ev),
            _claim_lpbs_strong(ev), _claim_mixed_s_w(ev), _claim_no_lpbs_trend(ev),
            _claim_names_or_terms(ev.choices), _claim_templates_or_reddit(ev.choices),
            _claim_sentence_encodings(ev), _claim_subwords(ev.choices),
            _claim_cosine_over_probability(ev), _claim_design_choices(ev), _claim_runtimes(ev),
            *myb_figures.findings()]
