r"""Specification curves: one estimate per combination of analytic choices, sorted.

A specification curve (Simonsohn, Simmons & Nelson 2020) shows every
reasonable way of running one analysis at once. Each *specification* is one
combination of choices (here: the bias test's method, its templates or
contexts, encoding level, pooling, layer, ddof, tail, sampling); the upper
panel plots their estimates :math:`\hat d_1 \le \hat d_2 \le \dots \le \hat d_K`
sorted from smallest to largest, each with its confidence interval, beside a
line at zero; the lower panel (the "dashboard") has one row per value of every
choice and marks, under each estimate, the values that specification used.
How much an estimate moves along the curve, and which rows of the dashboard
line up with its ends, says how much of a published score is the method and
how much the choices.

The estimates of one curve should share a scale. The WEAT/SEAT :math:`d`,
ML-EAT's level-1 :math:`d` and LPBS's :math:`d` are all standardised mean
differences, and CEAT's CES is a random-effects mean of such :math:`d`, so the
book draws them on one axis; their CIs are not alike (an approximate
large-sample interval for a single :math:`d`, a meta-analytic one for the
CES), and the ``ci_method`` column of the builders says which is which.

This module draws the curve from a tidy frame (one row per specification) and
knows nothing of models: :mod:`biaslib.evaluate.speccurve` builds the frame by
running a model, ``biasbook.speccurve`` from the book's stored
tables.

References
----------
Simonsohn, U., Simmons, J. P. & Nelson, L. D. (2020). Specification curve
analysis. *Nature Human Behaviour* 4, 1208–1214.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

__all__ = [
    "indicator_matrix",
    "prepare_specifications",
    "specification_curve",
]

#: The columns every specification frame needs besides its choice columns.
_ESTIMATE_COLUMNS = ("effect_size", "ci_low", "ci_high")
#: The widest default figure, in inches (a book column is about 8 inches at 100 dpi).
_MAX_WIDTH = 8.0
#: The smallest text of the figure, in points (tick labels, dashboard rows).
_FONT_SIZE = 10


def prepare_specifications(
    frame: pd.DataFrame,
    choices: Sequence[str],
    *,
    estimate: str = "effect_size",
    ci: tuple[str, str] = ("ci_low", "ci_high"),
) -> pd.DataFrame:
    """Check a specification frame and sort it by its estimate.

    Parameters
    ----------
    frame
        One row per specification: the columns named in ``choices`` (what each
        specification chose), ``estimate`` and the two ``ci`` bounds; any other
        columns (``p_value``, a source table…) are kept.
    choices
        The choice columns, in the order the dashboard lists them.
    estimate, ci
        The columns of the estimate and of the lower and upper CI bounds.

    Returns
    -------
    pandas.DataFrame
        A copy sorted by ``estimate`` (ascending; ties keep their order), with
        a fresh index and a ``rank`` column ``0, 1, …``; choice values become
        text (a missing choice reads ``"n/a"``). Rows without an estimate are
        dropped with a :class:`UserWarning` naming how many and which; a
        missing CI bound stays NaN (drawn without a bar).

    Raises
    ------
    KeyError
        If a choice, the estimate or a CI column is missing (the message
        lists them and the frame's columns).
    ValueError
        If ``choices`` is empty or repeats a name, a CI bound lies on the
        wrong side of its estimate, or no row has an estimate.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"method": ["SEAT", "CEAT", "SEAT"], "effect_size": [0.9, 0.2, None],
    ...                   "ci_low": [0.5, 0.1, None], "ci_high": [1.3, 0.3, None]})
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     out = prepare_specifications(f, ["method"])
    >>> out[["rank", "method", "effect_size"]].to_dict("list")
    {'rank': [0, 1], 'method': ['CEAT', 'SEAT'], 'effect_size': [0.2, 0.9]}
    """
    if isinstance(choices, str):
        raise TypeError("choices must be a sequence of column names, not one string")
    choices = list(choices)
    if not choices:
        raise ValueError("a specification curve needs at least one choice column")
    if len(set(choices)) != len(choices):
        raise ValueError(f"choices repeat a column: {choices}")
    needed = [*choices, estimate, *ci]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise KeyError(f"the specification frame lacks columns {missing}; it has "
                       f"{list(frame.columns)}")
    out = frame.copy()
    for col in (estimate, *ci):
        out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    no_estimate = out[estimate].isna()
    if no_estimate.any():
        dropped = out.loc[no_estimate, choices].astype(str).agg(" | ".join, axis=1).tolist()
        warnings.warn(
            f"{int(no_estimate.sum())} of {len(out)} specifications have no {estimate} and "
            f"are left out of the curve: {dropped[:5]}{' …' if len(dropped) > 5 else ''}",
            UserWarning, stacklevel=2)
        out = out[~no_estimate]
    if out.empty:
        raise ValueError(f"no specification has an {estimate}")
    low, high, est = out[ci[0]], out[ci[1]], out[estimate]
    tol = 1e-9 * np.maximum(1.0, est.abs())
    wrong = (low > est + tol) | (high < est - tol)
    if wrong.any():
        raise ValueError(f"{int(wrong.sum())} confidence intervals do not contain their "
                         f"{estimate}: {out.loc[wrong, [estimate, *ci]].to_dict('records')[:3]}")
    for col in choices:
        out[col] = out[col].map(lambda v: "n/a" if _missing(v) else str(v))
    out = out.sort_values(estimate, kind="stable").reset_index(drop=True)
    out.insert(0, "rank", np.arange(len(out)))
    return out


def _missing(value: object) -> bool:
    if value is None or (isinstance(value, str) and value == ""):
        return True
    return isinstance(value, float) and np.isnan(value)


def indicator_matrix(specs: pd.DataFrame, choices: Sequence[str]) -> pd.DataFrame:
    """The dashboard: one row per (choice, value), one column per specification.

    Parameters
    ----------
    specs
        A frame from :func:`prepare_specifications` (its ``rank`` order).
    choices
        The choice columns, in the order the rows are listed; within a choice,
        values keep the order in which they first appear along the sorted curve.

    Returns
    -------
    pandas.DataFrame
        Booleans, indexed by a ``(choice, value)`` MultiIndex, columns the
        specifications' ranks; cell ``(c, v), k`` is True when specification
        ``k`` chose ``v`` for ``c``. Every column has exactly one True per
        choice.

    Examples
    --------
    >>> import pandas as pd
    >>> specs = pd.DataFrame({"rank": [0, 1], "level": ["word", "sentence"],
    ...                       "ddof": ["1", "1"]})
    >>> indicator_matrix(specs, ["level", "ddof"]).astype(int).to_dict("split")["data"]
    [[1, 0], [0, 1], [1, 1]]
    """
    if "rank" not in specs:
        raise KeyError("specs has no 'rank' column: pass it through prepare_specifications")
    rows, index = [], []
    for choice in choices:
        if choice not in specs:
            raise KeyError(f"no choice column {choice!r} in {list(specs.columns)}")
        values = specs[choice].astype(str)
        for value in dict.fromkeys(values):
            index.append((choice, value))
            rows.append((values == value).to_numpy())
    return pd.DataFrame(np.array(rows, dtype=bool).reshape(len(rows), len(specs)),
                        index=pd.MultiIndex.from_tuples(index, names=["choice", "value"]),
                        columns=pd.Index(specs["rank"].to_numpy(), name="rank"))


def specification_curve(
    frame: pd.DataFrame,
    choices: Sequence[str],
    *,
    estimate: str = "effect_size",
    ci: tuple[str, str] = ("ci_low", "ci_high"),
    p_value: str | None = "p_value",
    alpha: float = 0.05,
    title: str | None = None,
    ylabel: str = "effect size",
    highlight: pd.Series | None = None,
    width: float | None = None,
    value_labels: dict[str, dict[str, str]] | None = None,
) -> Figure:
    """Draw the specification curve and its dashboard of choices.

    Upper panel: each specification's estimate (a dot) with its CI (a vertical
    bar), sorted from smallest to largest, and a line at zero. Filled dots
    have ``p <= alpha`` under their own tail (when a ``p_value`` column is
    given and holds a number), open dots do not. Lower panel: one row per value
    of each choice, grouped by choice; a mark under a specification means it
    used that value (:func:`indicator_matrix`).

    Parameters
    ----------
    frame
        One row per specification (see :func:`prepare_specifications`, which
        is applied first: rows without an estimate are dropped with a warning).
    choices
        The choice columns shown in the dashboard, top to bottom.
    estimate, ci
        The estimate column and its CI bounds.
    p_value
        Column of p-values, or None (all dots filled).
    alpha
        Level for filled dots.
    title, ylabel
        Figure title and the upper panel's y label.
    highlight
        Optional boolean Series aligned with ``frame`` (same index): those
        specifications are drawn in a second colour, e.g. the published one.
    width
        Figure width in inches; default grows with the number of
        specifications, from 6 inches (about 40 or fewer) to :data:`_MAX_WIDTH`
        (8 inches: a book column shows it at about its own size, so its 10-point
        text stays 10 points; a wider figure is scaled down, and its text with it).
    value_labels
        Optional ``{choice: {value: label}}``: how a value reads in the
        dashboard (e.g. ``{"layer": {"layer 3": "layer 3 of 6"}}``); the frame
        is not changed.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: ``fig.axes[0]`` the curve, ``fig.axes[1]`` the dashboard.
    """
    frame = frame.copy()
    frame["_highlight"] = (False if highlight is None
                           else highlight.reindex(frame.index).fillna(False).astype(bool))
    specs = prepare_specifications(frame, choices, estimate=estimate, ci=ci)
    dash = indicator_matrix(specs, choices)
    n = len(specs)
    x = specs["rank"].to_numpy()
    est = specs[estimate].to_numpy()
    lo, hi = specs[ci[0]].to_numpy(), specs[ci[1]].to_numpy()
    if p_value is not None and p_value in specs:
        p = pd.to_numeric(specs[p_value], errors="coerce").to_numpy()
        significant = ~(p > alpha)  # NaN p: drawn filled (no test to fail)
    else:
        significant = np.ones(n, dtype=bool)
    marked = specs["_highlight"].to_numpy(dtype=bool)

    n_rows = len(dash)
    width = width or float(np.clip(4.5 + 0.04 * n, 6.0, _MAX_WIDTH))
    # One dashboard row per value, tall enough for a line of 10-point text.
    dash_height = 0.25 * n_rows + 0.5
    fig, (ax, ax_dash) = plt.subplots(
        2, 1, sharex=True, figsize=(width, 3.2 + dash_height),
        gridspec_kw={"height_ratios": [3.2, dash_height], "hspace": 0.05})
    colour = np.where(marked, "tab:red", "tab:blue")
    have_ci = ~(np.isnan(lo) | np.isnan(hi))
    ax.vlines(x[have_ci], lo[have_ci], hi[have_ci], colors=colour[have_ci],
              alpha=0.45, linewidth=1.6 if n <= 60 else 0.8)
    size = 28 if n <= 60 else 10
    for filled in (True, False):
        keep = significant == filled
        ax.scatter(x[keep], est[keep], s=size, zorder=3, linewidths=1.0,
                   facecolors=colour[keep] if filled else "white", edgecolors=colour[keep])
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_ylabel(ylabel, fontsize=_FONT_SIZE + 1)
    ax.tick_params(labelsize=_FONT_SIZE)
    ax.grid(axis="y", alpha=0.3)
    note = f"{n} specifications; bars: CI"
    if p_value is not None and p_value in specs:
        note += f"; filled: p ≤ {alpha:g}"
    ax.set_title(f"{title}\n{note}" if title else note, fontsize=_FONT_SIZE + 1, loc="left")

    # Dashboard: rows from top (first choice) to bottom.
    ys = np.arange(n_rows)[::-1]
    for y, (_, row) in zip(ys, dash.iterrows(), strict=True):
        used = row.to_numpy()
        ax_dash.scatter(x[used], np.full(int(used.sum()), y), marker="|" if n > 60 else "s",
                        s=40 if n > 60 else 14, color=np.asarray(colour)[used])
    # Separate the choices with light lines and label each row "choice: value".
    starts = [i for i, (c, _) in enumerate(dash.index) if i == 0 or dash.index[i - 1][0] != c]
    for i in starts[1:]:
        ax_dash.axhline(ys[i] + 0.5, color="lightgray", linewidth=0.8)
    labels = value_labels or {}
    shown = [labels.get(c, {}).get(v, v) for c, v in dash.index]
    ax_dash.set_yticks(ys)
    ax_dash.set_yticklabels([f"{c}: {v}" if i in starts else v
                             for i, ((c, _), v) in enumerate(zip(dash.index, shown, strict=True))],
                            fontsize=_FONT_SIZE)
    ax_dash.set_ylim(-0.6, n_rows - 0.4)
    ax_dash.set_xlim(-0.8, n - 0.2)
    ax_dash.set_xlabel("specifications, sorted by effect size", fontsize=_FONT_SIZE)
    ax_dash.tick_params(axis="x", labelsize=_FONT_SIZE)
    ax_dash.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    for spine in ("top", "right"):
        ax.spines[spine].set_visible(False)
        ax_dash.spines[spine].set_visible(False)
    return fig
