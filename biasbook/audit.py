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

import numpy as np
import pandas as pd

from biaslib.audit.plan import ALPHA
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

__all__ = ["P_NOISE", "check_holm_margin", "metrics_table", "shown_d", "shown_p",
           "summary_table"]
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
    """The headline numbers of an audit's results: test and method as the index, in words."""
    rows = frame[frame["part"] == "summary"]
    table = pd.DataFrame({
        "stimuli": rows["stimuli"].to_numpy(),
        "templates": rows["contexts"].to_numpy(),
        "effect size": [shown_d(v) for v in rows["effect_size"]],
        "95 % CI": ["–" if pd.isna(lo) else f"[{shown_d(lo)}, {shown_d(hi)}]"
                    for lo, hi in zip(rows["ci_low"], rows["ci_high"], strict=True)],
        "p": [shown_p(p, m) for p, m in zip(rows["p_value"], rows["method"], strict=True)],
        "Holm": rows["holm"].replace("", "–").to_numpy()},
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
    :math:`\alpha / (m - k + 1)`; each must be more than ten times :data:`P_NOISE` away.
    """
    p = np.sort(frame.loc[(frame["part"] == "summary") & frame["p_value"].notna(), "p_value"])
    thresholds = alpha / (len(p) - np.arange(len(p)))
    assert (np.abs(p - thresholds) > 10 * P_NOISE).all(), "a Holm mark within noise"
