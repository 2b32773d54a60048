"""EAT-Maps: the four-cell picture of an ML-EAT's Level 2 results (Wolfe et al., seed 002).

An EAT-Map is a square of four cells: columns are the target groups (X left,
Y right), rows the attribute groups (A top, B bottom). A cell is shaded red
when that target group is significantly associated with that attribute at
Level 2 (:math:`d_{A,B,T} > 0.2` for A, :math:`< -0.2` for B, with
:math:`p < 0.05`); every other cell is gray. Each of the nine EAT patterns has
its own map (paper, section "EAT-Maps" and Figure 2).

Here each column also prints its Level 2 effect size in the cell its sign
points to (``*``: significant), so a map shows how far a gray column is from
turning red.

The book shows a figure at its natural size up to the width of its text column
(:data:`PAGE_WIDTH`) and scales a wider one down to it, text included. A grid
of maps therefore sets its text in :func:`grid_fontsize` points, so that every
number reads at :data:`MIN_FONTSIZE` points or more on the page however many
maps the grid has. Five maps a row is the most that leave room for a
two-decimal effect size in each cell at that size.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from biaslib.errors import UnknownNameError
from biaslib.methods.mleat import PATTERN_ASSOCIATIONS, PATTERNS, MleatResult
from biaslib.reporting.format import format_d, significance_flag

__all__ = [
    "GRAY",
    "MIN_FONTSIZE",
    "PAGE_WIDTH",
    "RED",
    "eat_map",
    "eat_map_grid",
    "eat_pattern_legend",
    "grid_fontsize",
]

#: Shade of a significant target–attribute association (the paper's red).
RED = "#d62728"
#: Shade of every other cell (the paper's gray).
GRAY = "#d9d9d9"

#: Width in inches (at matplotlib's 100 dpi) of the book's text column, about 750 px:
#: a figure up to this wide is shown at its natural size, a wider one scaled down to it.
PAGE_WIDTH = 7.5
#: Smallest size, in points, of any text on an EAT-Map as the book shows it.
MIN_FONTSIZE = 10.0


def grid_fontsize(width: float) -> float:
    """Text size (points) for a figure ``width`` inches wide.

    :data:`MIN_FONTSIZE`, enlarged by the factor by which the book will scale
    the figure down to :data:`PAGE_WIDTH`, so that the text is shown at
    :data:`MIN_FONTSIZE` points or more.
    """
    if not width > 0:
        raise ValueError(f"width must be positive, got {width}")
    return MIN_FONTSIZE * max(1.0, width / PAGE_WIDTH)

_DIRECTION = {
    "Divergent": "X and Y with different attributes",
    "Uniform": "X and Y with the same attribute",
    "Singular": "one target group only",
    "Non-Directional": "neither target group",
}


def _cells(item: Any) -> dict[str, Any]:
    """Pattern, Level 2 values and labels of an MleatResult, a table row or a pattern name."""
    if isinstance(item, MleatResult):
        return {"pattern": item.pattern, "d_x": item.level2_x_d, "d_y": item.level2_y_d,
                "sig_x": item.level2_x_p < item.convention.alpha,
                "sig_y": item.level2_y_p < item.convention.alpha, "labels": dict(item.labels)}
    if isinstance(item, str):
        return {"pattern": item, "d_x": None, "d_y": None, "sig_x": False, "sig_y": False,
                "labels": {}}
    row = dict(item)
    return {"pattern": row["pattern"], "d_x": row.get("l2_x_d"), "d_y": row.get("l2_y_d"),
            "sig_x": significance_flag(row.get("l2_x_sig", False)),
            "sig_y": significance_flag(row.get("l2_y_sig", False)),
            "labels": {}}


def eat_map(
    item: MleatResult | Mapping[str, Any] | str,
    *,
    ax: plt.Axes | None = None,
    title: str | None = None,
    annotate: bool = True,
    labels: Mapping[str, str] | None = None,
    fontsize: float = MIN_FONTSIZE,
) -> plt.Axes:
    """Draw one test's EAT-Map.

    Parameters
    ----------
    item
        An :class:`~biaslib.methods.mleat.MleatResult`; a table row (mapping or
        :class:`pandas.Series`) with ``pattern`` and optionally ``l2_x_d``,
        ``l2_x_sig``, ``l2_y_d``, ``l2_y_sig`` (as :func:`biaslib.evaluate.mleat.mleat_table`
        or ``data/published/mleat_*.csv`` give them); or a pattern name.
    ax
        Axes to draw on; a new small figure when omitted.
    title
        Title above the map (default: the pattern).
    annotate
        Print each column's Level 2 effect size in the cell its sign points to.
    labels
        Role → label for the axes (``{"X": "Flowers", …}``); default: the
        result's labels, else the role letters.
    fontsize
        Size of the cell and axis text, in points; the title is one point larger.

    Returns
    -------
    matplotlib.axes.Axes
    """
    cells = _cells(item)
    pattern = cells["pattern"]
    try:
        assoc = PATTERN_ASSOCIATIONS[pattern]
    except KeyError:
        raise UnknownNameError("EAT pattern", pattern, PATTERNS) from None
    names = {r: r for r in "XYAB"} | cells["labels"] | dict(labels or {})
    if ax is None:
        _, ax = plt.subplots(figsize=(2.2, 2.2))
    for col, (target, a) in enumerate(zip("XY", assoc, strict=True)):
        for row, attribute in enumerate("AB"):
            # Row 0 (A) is drawn on top.
            ax.add_patch(Rectangle((col, 1 - row), 1, 1, facecolor=RED if a == attribute else GRAY,
                                   edgecolor="white", linewidth=2))
        d = cells[f"d_{target.lower()}"]
        if annotate and d is not None and np.isfinite(d):
            row = 0 if d >= 0 else 1
            text = format_d(float(d), "*" if cells[f"sig_{target.lower()}"] else "")
            ax.text(col + 0.5, 1.5 - row, text, ha="center", va="center", fontsize=fontsize,
                    color="white" if assoc[col] == "AB"[row] else "black")
    ax.set_xlim(0, 2)
    ax.set_ylim(0, 2)
    ax.set_aspect("equal")
    ax.set_xticks([0.5, 1.5], [_label("X", names), _label("Y", names)], fontsize=fontsize)
    ax.set_yticks([1.5, 0.5], [_label("A", names), _label("B", names)], fontsize=fontsize)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    # The title goes below the map: the target labels take the top edge.
    ax.text(1, -0.12, pattern if title is None else title, ha="center", va="top",
            fontsize=fontsize + 1, transform=ax.transData)
    return ax


def _label(role: str, names: Mapping[str, str]) -> str:
    name = names.get(role, role)
    return role if name == role else f"{role}: {name}"


def eat_map_grid(
    items: pd.DataFrame | Mapping[str, Any] | Sequence[Any],
    *,
    titles: Sequence[str] | None = None,
    title_column: str | None = None,
    ncols: int = 5,
    suptitle: str | None = None,
    annotate: bool = True,
    size: float = 1.9,
) -> plt.Figure:
    """A grid of EAT-Maps, one per test.

    Parameters
    ----------
    items
        A results table (one row per test, see :func:`eat_map`), a mapping
        title → item, or a sequence of items.
    titles
        Panel titles (default: the mapping's keys, ``title_column`` of the
        table, or the table's index); the pattern is added below each.
    title_column
        Column of ``items`` (a table) holding the panel titles.
    ncols
        Maps per row.
    suptitle
        Figure title; name the model that produced the results.
    annotate
        Print Level 2 effect sizes in the cells (see :func:`eat_map`).
    size
        Width of one panel in inches. The text grows with the figure's width
        beyond :data:`PAGE_WIDTH` (:func:`grid_fontsize`), so the numbers read
        at the same size on the page for any ``ncols``; the cells are wide
        enough for them up to five maps a row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if isinstance(items, pd.DataFrame):
        entries = [row for _, row in items.iterrows()]
        default = list(items[title_column]) if title_column else [str(i) for i in items.index]
    elif isinstance(items, Mapping):
        entries, default = list(items.values()), [str(k) for k in items]
    else:
        entries, default = list(items), [str(i + 1) for i in range(len(items))]
    if not entries:
        raise ValueError("no results to draw")
    titles = list(titles) if titles is not None else default
    if len(titles) != len(entries):
        raise ValueError(f"{len(titles)} titles for {len(entries)} maps")
    if ncols < 1:
        raise ValueError(f"ncols must be positive, got {ncols}")
    ncols = min(ncols, len(entries))
    nrows = -(-len(entries) // ncols)
    fontsize = grid_fontsize(size * ncols)
    # Height per row: the map (as wide as the panel) plus the target labels above and
    # two title lines below, in the grid's text size.
    row_height = size + 4.2 * fontsize / 72
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols, row_height * nrows),
                             squeeze=False)
    for ax, entry, name in zip(axes.flat, entries, titles, strict=False):
        pattern = _cells(entry)["pattern"]
        eat_map(entry, ax=ax, title=f"{name}\n{pattern}", annotate=annotate, fontsize=fontsize)
    for ax in axes.flat[len(entries):]:
        ax.set_visible(False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=fontsize + 2)
    fig.tight_layout()
    return fig


def eat_pattern_legend(ncols: int = 3) -> plt.Figure:
    """The nine EAT patterns and their EAT-Maps (the paper's Figure 2)."""
    if ncols < 1:
        raise ValueError(f"ncols must be positive, got {ncols}")
    nrows = -(-len(PATTERNS) // ncols)
    size = 2.5
    fontsize = grid_fontsize(size * ncols)
    # The direction below each map, wrapped to the map's width (a character is about 0.6 em
    # wide; the text grows with the figure, see grid_fontsize), at most 22 characters a line.
    chars = min(22, int(size * 72 / (0.6 * fontsize)))
    notes = {}
    for pattern in PATTERNS:
        direction = pattern.split("-", 1)[-1] if pattern != "Non-Directional" else pattern
        notes[pattern] = textwrap.fill(f"({_DIRECTION[direction]})", chars)
    # The title lines below each map: pattern, links and the direction's lines.
    lines = 2 + max(note.count("\n") + 1 for note in notes.values())
    row_height = size + (lines + 2.5) * fontsize / 72
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols, row_height * nrows),
                             squeeze=False)
    for ax, pattern in zip(axes.flat, PATTERNS, strict=False):
        x, y = PATTERN_ASSOCIATIONS[pattern]
        links = ", ".join(f"{t}→{a}" for t, a in (("X", x), ("Y", y)) if a) or "none"
        eat_map(pattern, ax=ax, title=f"{pattern}\n{links}\n{notes[pattern]}", annotate=False,
                fontsize=fontsize)
    for ax in axes.flat[len(PATTERNS):]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig
