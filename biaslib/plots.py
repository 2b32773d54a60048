"""Figures of the book: effect sizes beside published values, p-values across conventions."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

__all__ = ["effect_size_comparison", "p_value_heatmap"]


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
    p_values: pd.DataFrame, *, ax: plt.Axes | None = None, title: str | None = None
) -> plt.Axes:
    """Heatmap of ``-log10 p`` (rows: tests, columns: conventions), annotated with p."""
    if ax is None:
        _, ax = plt.subplots(figsize=(1.3 * p_values.shape[1] + 2, 0.45 * len(p_values) + 1.2))
    scores = -np.log10(p_values.astype(float).clip(lower=1e-300))
    annot = p_values.map(lambda p: f"{p:.0e}" if p < 1e-3 else f"{p:.3f}")
    sns.heatmap(scores, annot=annot, fmt="", cmap="viridis", ax=ax,
                cbar_kws={"label": "−log10 p"})
    ax.set_xlabel("convention")
    ax.set_ylabel("")
    if title:
        ax.set_title(title, loc="left")
    return ax
