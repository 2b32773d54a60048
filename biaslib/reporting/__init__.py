"""Showing results: numbers as the papers print them, tables, plots and EAT-Maps.

The names a reader of results needs are importable from ``biaslib.reporting`` directly
(``from biaslib.reporting import format_d, ceat_forest``), as the chapters import them;
each is defined, and documented, in one module of this layer (:data:`_EXPORTS` maps it
there):

:mod:`biaslib.reporting.format`
    Effect sizes, p-values and significance marks formatted as the papers print them,
    and numbers printed only where float noise cannot change a digit
    (:func:`~biaslib.reporting.format.robust_format`).
:mod:`biaslib.reporting.plots`
    Effect sizes beside published ones, p-value heat maps, CEAT's distributions and
    forest plots, scatter matrices.
:mod:`biaslib.reporting.eatmap`
    ML-EAT's EAT-Maps (Wolfe et al.).
:mod:`biaslib.reporting.speccurve`
    Specification curves (Simonsohn et al. 2020).

Like ``import biaslib``, ``import biaslib.reporting`` loads none of them (PEP 562): a
name's module, and matplotlib with it, is imported on first use.
"""

from __future__ import annotations

import importlib

#: Public name -> the module of this layer that defines it.
_EXPORTS: dict[str, str] = {
    # numbers as printed
    "format_d": "biaslib.reporting.format",
    "format_p": "biaslib.reporting.format",
    "format_tail_p": "biaslib.reporting.format",
    "robust_format": "biaslib.reporting.format",
    "round_table": "biaslib.reporting.format",
    "significance_mark": "biaslib.reporting.format",
    "significance_flag": "biaslib.reporting.format",
    "holm_marks": "biaslib.reporting.format",
    "bold_marks": "biaslib.reporting.format",
    "marked_table": "biaslib.reporting.format",
    # plots
    "effect_size_comparison": "biaslib.reporting.plots",
    "p_value_heatmap": "biaslib.reporting.plots",
    "grouped_heatmap": "biaslib.reporting.plots",
    "ceat_distribution": "biaslib.reporting.plots",
    "ceat_forest": "biaslib.reporting.plots",
    "binned_scores": "biaslib.reporting.plots",
    "scatter_matrix": "biaslib.reporting.plots",
    "eat_map": "biaslib.reporting.eatmap",
    "eat_map_grid": "biaslib.reporting.eatmap",
    "eat_pattern_legend": "biaslib.reporting.eatmap",
    "specification_curve": "biaslib.reporting.speccurve",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> object:
    """Import a public name's module on first use (PEP 562) and cache the name here."""
    module = _EXPORTS.get(name)
    if module is None:
        # A submodule reached as an attribute (``biaslib.reporting.plots``) is found by the
        # import system itself; anything else is not here.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """The public names, as well as what is already loaded."""
    return sorted(set(globals()) | set(__all__))
