"""Figures of the book.

Effect sizes beside published values, p-values across conventions, and CEAT's
distributions of per-sample effect sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from biaslib.reporting.format import format_p

if TYPE_CHECKING:
    from biaslib.methods.ceat import CeatResult

__all__ = [
    "ceat_distribution",
    "ceat_forest",
    "effect_size_comparison",
    "grouped_heatmap",
    "p_value_heatmap",
]


def effect_size_comparison(
    frame: pd.DataFrame,
    columns: Sequence[str],
    *,
    label: str = "test",
    ax: plt.Axes | None = None,
    title: str | None = None,
) -> plt.Axes:
    """Dot plot of effect sizes per test, one marker series per column.

    Parameters
    ----------
    frame
        One row per test; ``label`` names the tests, ``columns`` hold effect
        sizes (published or ours — the column names appear in the legend, so
        they must name the model).
    columns
        Columns to plot, in legend order; missing values are skipped.
    label
        Column holding the test names (the y axis).
    ax
        Axes to draw on; a new figure when omitted.
    title
        Optional title.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.45 * len(frame) + 1.2))
    long = frame.melt(id_vars=[label], value_vars=list(columns), var_name="source",
                      value_name="d").dropna(subset=["d"])
    order = list(frame[label])
    sns.stripplot(data=long, x="d", y=label, hue="source", order=order, hue_order=list(columns),
                  jitter=False, size=8, ax=ax, palette="colorblind")
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel("effect size d")
    ax.set_ylabel("")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False, fontsize="small")
    if title:
        ax.set_title(title, loc="left", pad=40)
    return ax


def p_value_heatmap(
    p_values: pd.DataFrame,
    *,
    ax: plt.Axes | None = None,
    title: str | None = None,
    floor: float = 1e-6,
) -> plt.Axes:
    """Heatmap of ``-log10 p`` (rows: tests, columns: conventions), annotated with p.

    The colour of a p-value below ``floor`` is that of ``floor``: a p of 0 (which
    some conventions report) or 1e-30 would otherwise stretch the colour scale so
    far that every other cell looks alike. The annotations give every p-value as
    :func:`biaslib.reporting.format.format_p` prints it (``0`` included), the
    colour bar says where the scale stops, and missing p-values stay blank.

    Parameters
    ----------
    p_values
        One row per test, one column per convention.
    ax
        Axes to draw on; a new figure when omitted.
    title
        Optional title.
    floor
        Smallest p-value the colour scale distinguishes (``-log10 floor`` is its top).
    """
    if not 0 < floor < 1:
        raise ValueError(f"floor must be in (0, 1), got {floor}")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.3 * p_values.shape[1] + 2, 0.45 * len(p_values) + 1.2))
    p = p_values.astype(float)
    scores = -np.log10(p.clip(lower=floor))
    annot = p.map(format_p)
    top = -np.log10(floor)
    sns.heatmap(scores, annot=annot, fmt="", cmap="viridis", ax=ax, vmin=0, vmax=top,
                cbar_kws={"label": f"−log10 p (p < {floor:g} shown as {floor:g})",
                          "extend": "max"})
    ax.set_xlabel("convention")
    ax.set_ylabel("")
    if title:
        ax.set_title(title, loc="left")
    return ax


def ceat_distribution(
    result: CeatResult, *, ax: plt.Axes | None = None, title: str | None = None, bins: int = 60
) -> plt.Axes:
    """Histogram of CEAT's per-sample effect sizes :math:`d_i`, with the CES marked.

    Parameters
    ----------
    result
        A :class:`biaslib.methods.ceat.CeatResult`.
    ax
        Axes to draw on; a new figure when omitted.
    title
        Title; by default the convention and the number of samples.
    bins
        Histogram bins.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.2))
    ax.hist(result.effect_sizes, bins=bins, density=True, color="#4c72b0", alpha=0.8)
    ax.axvline(result.ces, color="black", lw=1.5, label=f"CES {result.ces:.2f}")
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_title(title or f"{result.convention.name}: N = {result.meta.n:,}", fontsize=10)
    ax.set_xlabel("per-sample effect size $d_i$")
    ax.set_ylabel("density")
    ax.legend(frameon=False, fontsize="small")
    return ax


def ceat_forest(
    frame: pd.DataFrame, *, ax: plt.Axes | None = None, title: str | None = None
) -> plt.Axes:
    """Forest plot of CEAT results: per test and model, the CES and the spread of the samples.

    The dot is the CES, the thick bar the middle half of the per-sample effect
    sizes (``q25``–``q75``) and the thin bar their central 95% (``q025``–``q975``).
    The CES's own confidence interval (±1.96 SE) is usually far narrower than
    a marker and is not drawn.

    Parameters
    ----------
    frame
        Rows of a CEAT table (:func:`biaslib.chapters.ceat.ceat_table`) under
        one convention: ``test``, ``column`` (the model), ``ces``, the
        quantile columns and ``not run`` (rows with a reason are skipped).
    ax
        Axes to draw on; a new figure when omitted.
    title
        Optional title.
    """
    if frame["convention"].nunique() > 1:
        raise ValueError("ceat_forest draws one convention; filter the frame first")
    frame = frame[frame["not run"] == ""]
    labels = list(dict.fromkeys(frame["test"]))[::-1]
    columns = list(dict.fromkeys(frame["column"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.45 * len(labels) * len(columns) + 1))
    colors = sns.color_palette("colorblind", len(columns))
    for k, col in enumerate(columns):
        sub = frame[frame["column"] == col].set_index("test")
        for j, test in enumerate(labels):
            if test not in sub.index:
                continue
            r = sub.loc[test]
            y = j + 0.25 * (k - (len(columns) - 1) / 2)
            ax.plot([r["q025"], r["q975"]], [y, y], color=colors[k], lw=1)
            ax.plot([r["q25"], r["q75"]], [y, y], color=colors[k], lw=4)
            ax.plot(r["ces"], y, "o", color="black", ms=4)
        ax.plot([], [], color=colors[k], lw=4, label=col)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("effect size")
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    ax.legend(frameon=False, fontsize="small", loc="lower right")
    return ax


def grouped_heatmap(
    frame: pd.DataFrame,
    *,
    row: str = "row",
    column: str = "model",
    group: str = "group",
    value: str = "d",
    mark: str = "mark",
    vmax: float = 2.0,
    width: float = 7.5,
    fontsize: float = 10.0,
    values: bool = False,
    note: str | None = None,
) -> plt.Figure:
    """Effect sizes as a heat map, one panel per group of models, with their marks.

    Each group (e.g. a paper's models, then ours) gets its own panel with its own
    title, side by side on shared rows, so that a group is never read as another's
    replication. The colour is the value; each cell prints its significance mark
    (or, with ``values``, the value as the papers print it with its mark,
    :func:`biaslib.reporting.format.format_d`: legible only with few columns).
    A missing value stays blank.

    Parameters
    ----------
    frame
        Tidy: one row per (``row``, ``column``) with its ``group``, ``value`` and
        ``mark`` (``""`` for none). Rows, groups and columns keep the order of
        their first appearance.
    row, column, group, value, mark
        The columns of ``frame`` holding the row label, the model, its group,
        the effect size and its significance mark.
    vmax
        The colour scale runs from ``-vmax`` to ``vmax`` (diverging around 0).
    width
        Figure width in inches (the book's text column is 7.5 in).
    fontsize
        Size of every text in points.
    values
        Print the values, not only the marks, in the cells.
    note
        A line under the panels (e.g. what the marks mean).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from biaslib.reporting.format import format_d

    missing = {row, column, group, value, mark} - set(frame.columns)
    if missing:
        raise ValueError(f"frame lacks the columns {sorted(missing)}")
    if vmax <= 0:
        raise ValueError(f"vmax must be positive, got {vmax}")
    rows = list(dict.fromkeys(frame[row]))
    groups = list(dict.fromkeys(frame[group]))
    columns = {g: list(dict.fromkeys(frame.loc[frame[group] == g, column])) for g in groups}
    lines = note.count("\n") + 1 if note else 0
    height = 0.32 * len(rows) + 1.9 + 0.2 * lines
    fig, axes = plt.subplots(
        1, len(groups) + 1, figsize=(width, height), squeeze=False,
        gridspec_kw={"width_ratios": [len(columns[g]) for g in groups] + [0.25]})
    axes = axes[0]
    cmap = plt.get_cmap("RdBu_r")
    norm = plt.Normalize(-vmax, vmax)
    for k, (ax, g) in enumerate(zip(axes, groups, strict=False)):
        sub = frame[frame[group] == g]
        grid = sub.pivot_table(index=row, columns=column, values=value, aggfunc="first")
        grid = grid.reindex(index=rows, columns=columns[g])
        marks = sub.pivot_table(index=row, columns=column, values=mark, aggfunc="first")
        marks = marks.reindex(index=rows, columns=columns[g]).fillna("")
        image = ax.imshow(np.ma.masked_invalid(grid.to_numpy(float)), cmap=cmap, norm=norm,
                          aspect="auto")
        for i in range(len(rows)):
            for j in range(len(columns[g])):
                d = grid.iat[i, j]
                if np.isnan(d):
                    continue
                text = format_d(d, marks.iat[i, j]) if values else marks.iat[i, j]
                ax.text(j, i, text, ha="center", va="center", fontweight="bold",
                        fontsize=fontsize, color="white" if abs(d) > 0.6 * vmax else "black")
        ax.set_xticks(range(len(columns[g])), columns[g], rotation=45, ha="left",
                      rotation_mode="anchor", fontsize=fontsize)
        ax.xaxis.tick_top()
        ax.set_yticks(range(len(rows)), rows if k == 0 else [], fontsize=fontsize)
        ax.tick_params(length=0)
        ax.set_xticks(np.arange(-0.5, len(columns[g])), minor=True)
        ax.set_yticks(np.arange(-0.5, len(rows)), minor=True)
        ax.grid(which="minor", color="white", lw=1)
        ax.tick_params(which="minor", length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_xlabel(g, fontsize=fontsize, fontweight="bold")
    bar = fig.colorbar(image, cax=axes[-1])
    bar.set_label("effect size d", fontsize=fontsize)
    bar.ax.tick_params(labelsize=fontsize)
    if note:
        fig.text(0.01, 0.01, note, fontsize=fontsize, ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.2 * lines / height, 1, 1))
    return fig
