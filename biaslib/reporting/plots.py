"""Figures of the book.

Effect sizes beside published values, p-values across conventions, CEAT's
distributions of per-sample effect sizes, binned score counts by setting and
pairwise scatter matrices of methods (Mind Your Bias's Figures 1 and 5).
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
    "binned_scores",
    "ceat_distribution",
    "ceat_forest",
    "effect_size_comparison",
    "grouped_heatmap",
    "p_value_heatmap",
    "scatter_matrix",
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
        Rows of a CEAT table (``biasbook.ceat.ceat_over_models``) under
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


def binned_scores(
    counts: pd.DataFrame,
    *,
    models: Sequence[str],
    settings: dict[str, Sequence[str]],
    bin_width: float,
    title: str | None = None,
    width: float = 7.5,
    fontsize: float = 10.0,
) -> plt.Figure:
    """Bias scores by model and setting from binned counts (Mind Your Bias's Figure 1 layout).

    One row per panel (a design choice, e.g. target description). Left: for each model,
    one column of dots per setting (offset left and right); a dot sits at the centre of an
    effect-size bin, its area proportional to the number of scores in the bin;
    significant scores are opaque, the others faint. Right: the distribution of the
    significant scores per setting (all models), as horizontal bars on the same y axis.

    Parameters
    ----------
    counts
        ``panel``, ``setting``, ``model``, ``bin_low``, ``significant``, ``count``
        (e.g. ``biasbook.myb_figures.figure1_counts``); other columns (the
        method) are summed over.
    models
        The models, in x-axis order.
    settings
        Panel → its two settings, in legend order (left, right).
    bin_width
        The bins' width (dots at ``bin_low + bin_width / 2``).
    title
        A title above the panels (name the models' source here).
    width
        Figure width in inches (the book's text column is 7.5 in).
    fontsize
        Size of every text in points.

    Returns
    -------
    matplotlib.figure.Figure
    """
    needed = {"panel", "setting", "model", "bin_low", "significant", "count"}
    missing = sorted(needed - set(counts.columns))
    if missing:
        raise ValueError(f"counts lacks the columns {missing}")
    summed = (counts.groupby(["panel", "setting", "model", "bin_low", "significant"])["count"]
              .sum().reset_index())
    largest = max(int(summed["count"].max()), 1)
    colours = ("C0", "C1")
    fig, axes = plt.subplots(len(settings), 2, figsize=(width, 3.1 * len(settings) + 0.6),
                             squeeze=False, sharey=True,
                             gridspec_kw={"width_ratios": [3, 1.2]})
    for (left, right), (panel, names) in zip(axes, settings.items(), strict=True):
        sub = summed[summed["panel"] == panel]
        for j, (setting, colour) in enumerate(zip(names, colours, strict=True)):
            part = sub[sub["setting"] == setting]
            offset = -0.18 if j == 0 else 0.18
            x = part["model"].map({m: i for i, m in enumerate(models)}).to_numpy(float) + offset
            y = part["bin_low"].to_numpy(float) + bin_width / 2
            size = 12 + 160 * part["count"].to_numpy(float) / largest
            sig = part["significant"].to_numpy(bool)
            left.scatter(x[sig], y[sig], s=size[sig], color=colour, alpha=0.85, lw=0,
                         label=f"{setting}")
            left.scatter(x[~sig], y[~sig], s=size[~sig], color=colour, alpha=0.2, lw=0)
            dist = part[part["significant"]].groupby("bin_low")["count"].sum()
            shift = bin_width / 4 if j == 0 else 3 * bin_width / 4
            right.barh(dist.index.to_numpy(float) + shift, dist.to_numpy(float),
                       height=bin_width / 2, color=colour, alpha=0.85, label=setting)
        left.axhline(0, color="0.3", lw=0.6)
        right.axhline(0, color="0.3", lw=0.6)
        left.set_xticks(range(len(models)), list(models), fontsize=fontsize)
        left.set_xlim(-0.6, len(models) - 0.4)
        left.set_ylabel(f"effect size ({panel})", fontsize=fontsize)
        left.tick_params(axis="y", labelsize=fontsize)
        left.legend(fontsize=fontsize, frameon=False, loc="lower left", ncols=2,
                    handletextpad=0.2, columnspacing=0.8, markerscale=0.8)
        right.set_xlabel("significant scores", fontsize=fontsize)
        right.tick_params(labelsize=fontsize)
    if title:
        fig.suptitle(title, fontsize=fontsize + 1)
    fig.text(0.01, 0.005, "dot area: number of scores in the bin; faint: not significant",
             fontsize=fontsize, ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def scatter_matrix(
    scores: pd.DataFrame,
    methods: Sequence[str],
    *,
    hue: str = "model",
    hue_order: Sequence[str] | None = None,
    value: str = "d",
    key: str = "test",
    title: str | None = None,
    width: float = 7.5,
    fontsize: float = 10.0,
) -> plt.Figure:
    """Pairwise scatter plots of methods' scores, one colour per model (Mind Your Bias's Figure 5).

    Below the diagonal, each pair of methods: one dot per model and test that both scored
    (x: the column's method, y: the row's). On the diagonal, each method's scores over all
    models (histogram) and their number. Above the diagonal: the legend.

    Parameters
    ----------
    scores
        Long: one row per method × ``key`` × ``hue`` with the score in ``value``.
    methods
        The methods, in matrix order.
    hue, hue_order
        The column that colours the dots, and its order (default: first appearance).
    value, key
        The score column and the column that pairs two methods' scores (the test).
    title
        A title above the matrix (name the models' source here).
    width
        Figure width (and height) in inches.
    fontsize
        Size of every text in points.

    Returns
    -------
    matplotlib.figure.Figure
    """
    missing = sorted({"method", hue, value, key} - set(scores.columns))
    if missing:
        raise ValueError(f"scores lacks the columns {missing}")
    wide = scores.pivot_table(index=[hue, key], columns="method", values=value,
                              aggfunc="first")
    absent = [m for m in methods if m not in wide.columns]
    if absent:
        raise ValueError(f"no scores for the methods {absent}")
    hues = list(hue_order) if hue_order is not None else list(dict.fromkeys(scores[hue]))
    values = wide[list(methods)].to_numpy(float)
    low, high = np.nanmin(values), np.nanmax(values)
    pad = 0.1 * (high - low)
    limits = (low - pad, high + pad)
    n = len(methods)
    fig, axes = plt.subplots(n, n, figsize=(width, width), squeeze=False)
    handles: dict[str, object] = {}
    for i, row_method in enumerate(methods):
        for j, col_method in enumerate(methods):
            ax = axes[i][j]
            if j > i:
                ax.axis("off")
                continue
            if i == j:
                column = wide[row_method].dropna()
                heights, _, _ = ax.hist(column.to_numpy(float), bins=np.linspace(*limits, 13),
                                        color="0.6")
                ax.set_xlim(limits)
                ax.set_ylim(0, 1.7 * max(heights.max(), 1))
                ax.set_yticks([])
                ax.text(0.04, 0.96, f"{row_method}, n = {len(column)}", transform=ax.transAxes,
                        va="top", fontsize=fontsize)
            else:
                for k, h in enumerate(hues):
                    if h not in wide.index.get_level_values(0):
                        continue
                    part = wide.loc[h, [col_method, row_method]].dropna()
                    dots = ax.scatter(part[col_method], part[row_method], s=22,
                                      color=f"C{k}", alpha=0.85, lw=0, label=h)
                    handles.setdefault(h, dots)
                ax.axhline(0, color="0.8", lw=0.5, zorder=0)
                ax.axvline(0, color="0.8", lw=0.5, zorder=0)
                ax.set_xlim(limits)
                ax.set_ylim(limits)
            ax.tick_params(labelsize=fontsize)
            if j == 0 and i != j:
                ax.set_ylabel(row_method, fontsize=fontsize)
            elif i != j:
                ax.set_yticklabels([])
            if i < n - 1:
                ax.set_xticklabels([])
            else:
                ax.set_xlabel(col_method, fontsize=fontsize)
    if title:
        fig.suptitle(title, fontsize=fontsize + 1)
    fig.tight_layout()
    if n > 1:  # after the layout, in the empty upper triangle
        shown = [h for h in hues if h in handles]
        fig.legend(handles=[handles[h] for h in shown], labels=shown, loc="upper right",
                   bbox_to_anchor=(0.98, 0.93), fontsize=fontsize, frameon=False, title=hue,
                   title_fontsize=fontsize)
    return fig
