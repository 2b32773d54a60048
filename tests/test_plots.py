"""Figures as the book shows them (biaslib.reporting.eatmap, biaslib.reporting.plots).

The book shows a figure at its natural size up to the width of its text column
and scales a wider one down, text included. The EAT-Map grids must keep their
numbers readable at that size, and the p-value heatmap must keep a p of 0 from
swamping its colour scale.
"""

import inspect
import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from biasbook.mleat import with_patterns
from biaslib.reporting.eatmap import (
    MIN_FONTSIZE,
    PAGE_WIDTH,
    eat_map,
    eat_map_grid,
    eat_pattern_legend,
    grid_fontsize,
)
from biaslib.reporting.plots import p_value_heatmap
from biaslib.stimuli.data import load_published


@pytest.fixture(scope="module")
def table1():
    return with_patterns(load_published("mleat_table1_glove"))


def shown_sizes(fig):
    """Size in points of every visible text of ``fig`` once the book scales it to the page."""
    scale = min(1.0, PAGE_WIDTH / fig.get_size_inches()[0])
    sizes = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts = [*ax.texts, *ax.get_xticklabels(), *ax.get_yticklabels()]
        sizes += [t.get_fontsize() * scale for t in texts if t.get_text()]
    return sizes


def test_grid_fontsize_grows_with_a_figure_wider_than_the_page():
    assert grid_fontsize(PAGE_WIDTH / 2) == MIN_FONTSIZE
    assert grid_fontsize(PAGE_WIDTH) == MIN_FONTSIZE
    assert grid_fontsize(2 * PAGE_WIDTH) == pytest.approx(2 * MIN_FONTSIZE)
    with pytest.raises(ValueError, match="width"):
        grid_fontsize(0)


@pytest.mark.parametrize("ncols", [1, 3, 5, 7])
def test_grid_text_reads_at_the_minimum_size_on_the_page(table1, ncols):
    fig = eat_map_grid(table1, title_column="test", ncols=ncols, suptitle="GloVe 840B")
    sizes = shown_sizes(fig)
    assert len(sizes) > 10 * 4  # every map: its numbers, its tick labels and its title
    assert min(sizes) >= MIN_FONTSIZE - 1e-9
    plt.close(fig)


def test_legend_text_reads_at_the_minimum_size_on_the_page():
    fig = eat_pattern_legend()
    assert fig.get_size_inches()[0] <= PAGE_WIDTH + 1e-9
    assert min(shown_sizes(fig)) >= MIN_FONTSIZE - 1e-9
    plt.close(fig)


@pytest.mark.parametrize("ncols", [3, 5])
def test_legend_titles_do_not_run_into_their_neighbours(ncols):
    """Each pattern's title (name, links, direction) stays within its map's column, so that
    the titles side by side in a row do not overlap, at three or five maps a row."""
    fig = eat_pattern_legend(ncols=ncols)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    spans = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        boxes = [text.get_window_extent(renderer) for text in ax.texts
                 if text.get_position()[1] < 0]  # the title below the map
        boxes += [ax.title.get_window_extent(renderer)] if ax.get_title() else []
        assert boxes, "a map without its title"
        spans.append((ax.get_position().y0, min(b.x0 for b in boxes), max(b.x1 for b in boxes)))
    assert len(spans) == 9
    for row in {y for y, _, _ in spans}:
        in_row = sorted((x0, x1) for y, x0, x1 in spans if y == row)
        for (_, right), (left, _) in itertools.pairwise(in_row):
            assert right < left, f"titles overlap at {ncols} maps a row"
    plt.close(fig)


@pytest.mark.parametrize("ncols", [4, 5])
def test_cell_numbers_fit_their_cells(table1, ncols):
    """The widest Level 2 value (e.g. "−1.39*") stays inside its cell up to five maps a row."""
    fig = eat_map_grid(table1, title_column="test", ncols=ncols)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    checked = 0
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        (x0, _), (x1, _) = ax.transData.transform([(0, 0), (1, 0)])
        cell_width = x1 - x0
        for text in ax.texts:
            if text.get_position()[1] < 0:  # the title below the map
                continue
            assert text.get_window_extent(renderer).width < 0.95 * cell_width, text.get_text()
            checked += 1
    assert checked == 2 * len(table1)
    plt.close(fig)


def test_eat_map_signatures_are_kept():
    assert list(inspect.signature(eat_map).parameters) == [
        "item", "ax", "title", "annotate", "labels", "fontsize"]
    assert list(inspect.signature(eat_map_grid).parameters) == [
        "items", "titles", "title_column", "ncols", "suptitle", "annotate", "size"]


def test_p_value_heatmap_caps_the_colour_scale_and_prints_every_p():
    p = pd.DataFrame({"a": [0.0, 1e-30, 1e-3], "b": [0.5, np.nan, 1e-7]}, index=["C1", "C2", "C3"])
    ax = p_value_heatmap(p, floor=1e-6, title="t")
    mesh = ax.collections[0]
    assert mesh.get_clim() == (0, 6)
    values = np.ma.masked_invalid(mesh.get_array())
    assert values.max() == pytest.approx(6)
    assert values.min() == pytest.approx(-np.log10(0.5))
    assert values.mask.sum() == 1  # the missing p-value is blank
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(["0", "1.0e-30", "0.001", "0.5", "1.0e-07"])
    assert "1e-06" in ax.figure.axes[-1].get_ylabel()
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="floor"):
        p_value_heatmap(p, floor=0)


# --------------------------------------------------------------------------- grouped heat map


def test_grouped_heatmap_draws_one_panel_per_group_readable_on_the_page():
    from biasbook.published import MAY_TABLE4
    from biasbook.seat import MAY_GROUP, OFFLINE_GROUP, may_figure_frame
    from biasbook.stored import load_results
    from biaslib.reporting.plots import grouped_heatmap

    may, _ = load_results("seat_may")
    frame = may_figure_frame(may)
    fig = grouped_heatmap(frame, note="* p < 0.01")
    assert fig.get_size_inches()[0] <= PAGE_WIDTH + 1e-9
    assert min(shown_sizes(fig)) >= MIN_FONTSIZE - 1e-9
    panels = [ax for ax in fig.axes if ax.get_xlabel()]
    assert [ax.get_xlabel() for ax in panels] == [MAY_GROUP, OFFLINE_GROUP]
    # Each panel labels its own models, and only the first names the rows.
    assert [t.get_text() for t in panels[0].get_xticklabels()][-1] == "BERT large"
    assert [t.get_text() for t in panels[1].get_xticklabels()] == [
        "CBoW", "MiniLM", "SmolLM2"]
    assert len(panels[0].get_yticklabels()) == len(MAY_TABLE4)
    assert not any(t.get_text() for t in panels[1].get_yticklabels())
    # The cells print the marks: as many marked cells as marks in the frame.
    marked = [t for ax in panels for t in ax.texts if t.get_text()]
    assert len(marked) == int((frame["mark"] != "").sum())
    plt.close(fig)


def test_grouped_heatmap_prints_values_and_leaves_missing_cells_blank():
    from biaslib.reporting.plots import grouped_heatmap

    frame = pd.DataFrame({"row": ["a", "a", "b"], "group": ["paper", "ours", "paper"],
                          "model": ["m", "n", "m"], "d": [1.5, -0.25, np.nan],
                          "mark": ["*", "", ""]})
    fig = grouped_heatmap(frame, values=True)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts == ["1.50*", "−0.25"]
    plt.close(fig)
    with pytest.raises(ValueError, match="columns"):
        grouped_heatmap(frame.drop(columns="mark"))
    with pytest.raises(ValueError, match="vmax"):
        grouped_heatmap(frame, vmax=0)
