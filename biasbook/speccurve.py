r"""Specification frames from the book's stored tables: curves without running a model.

:func:`stored_specifications` collects every row the chapters' stored tables
(``data/results/*.csv``, :func:`biasbook.stored.load_results`) hold
for one model and one test — SEAT on May et al.'s and Mind Your Bias's
templates, CEAT on corpus sentences and templates, ML-EAT's level 1, LPBS —
and names each row's choices in the columns of
:data:`biaslib.evaluate.speccurve.CHOICES`, so that
:func:`biaslib.reporting.speccurve.specification_curve` (Simonsohn, Simmons &
Nelson 2020) can draw them. :func:`biaslib.evaluate.speccurve.specification_frame`
builds the same frame by running a model (e.g. a paper model on Colab).

Effect sizes, p-values and CEAT's CIs are the stored numbers unchanged. SEAT,
ML-EAT and LPBS rows get the approximate Hedges & Olkin CI of their
:math:`d` from the stored set sizes
(:func:`~biaslib.stats.effect_size_ci.d_confidence_interval`, whose docstring
says why it is approximate).

References
----------
Simonsohn, U., Simmons, J. P. & Nelson, L. D. (2020). Specification curve analysis.
*Nature Human Behaviour* 4, 1208–1214.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from biasbook.models import MINILM
from biasbook.stored import load_results
from biasbook.tables import NEEDS_MODELS, SliceCheck, StoredTable
from biaslib.embeddings.base import ContextEncoder
from biaslib.errors import UnknownNameError
from biaslib.evaluate.speccurve import (
    CHOICES,
    specification_frame,
    stimulus_variants,
    target_description,
)
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL
from biaslib.methods.result import core_first
from biaslib.stats.conventions import MIND_YOUR_BIAS
from biaslib.stats.effect_size_ci import d_confidence_interval

__all__ = [
    "DECLARED_TABLES",
    "GRID_LAYER_LABELS",
    "STORED_TABLES",
    "grid_specifications",
    "specification_summary",
    "stored_models",
    "stored_specifications",
]

#: How the specification choices that are not core columns read off each stored table.
#: ``contexts`` and ``sampling`` are templates over a row's columns (``{conv[...]}``: the
#: row's convention preset, as the table's provenance records it); ``targets`` defaults
#: to the description of the row's stimulus test (``{described}``); ``sizes`` name the
#: set sizes of the approximate CI where the table stores none.
_TABLE_CHOICES: dict[str, dict[str, object]] = {
    "seat_may": {"contexts": "{context}", "sampling": "{p_method} permutations"},
    "seat_myb": {"contexts": "Mind Your Bias", "sampling": "{p_method} permutations"},
    "ceat_myb": {"contexts": "{contexts}",
                 "sampling": "N={conv[n_samples]:,}, {conv[replacement]} replacement"},
    "ceat_contexts": {"contexts": "{contexts}",
                      "sampling": "N={conv[n_samples]:,}, {conv[replacement]} replacement"},
    "mleat_offline": {"contexts": "{inputs}", "sampling": "{p_method_l1} permutations"},
    "lpbs_myb": {"targets": "{target_description}, {word_set}{modified_mark}",
                 "contexts": "LPBS templates, {attribute_form} attributes",
                 "sampling": "{units} units, {p_method} permutations", "sizes": ("n_a", "n_b")},
}
#: The stored tables a specification frame draws on, in the order their rows are listed.
STORED_TABLES = tuple(_TABLE_CHOICES)

#: The stored tables' names of contexts → the ``contexts`` choice (one vocabulary).
_CONTEXT_NAMES = {"word": "words only", "sent": "SEAT bleached", "sent (u)": "SEAT unbleached",
                 "SEAT sentences": "SEAT bleached", "templates": "Mind Your Bias"}
#: A result's method → its family in the ``method`` choice (ML-EAT's effect size is level 1).
_METHOD_FAMILIES = {"s-SEAT": "SEAT", "w-SEAT": "SEAT", "ML-EAT": "ML-EAT level 1"}


def _ci(d: pd.Series, n_x: pd.Series, n_y: pd.Series, confidence: float
        ) -> tuple[list[float], list[float]]:
    bounds = [d_confidence_interval(float(e), int(a), int(b), confidence)
              if np.isfinite(e) and np.isfinite(a) and np.isfinite(b)
              else (np.nan, np.nan)
              for e, a, b in zip(d, n_x.astype(float), n_y.astype(float), strict=True)]
    return [b[0] for b in bounds], [b[1] for b in bounds]


def _preset(meta: Mapping[str, object], name: str) -> dict:
    """The convention preset ``name`` as a table's provenance records it."""
    presets = meta.get("conventions")
    return dict(presets[name]) if isinstance(presets, Mapping) else dict(meta["convention"])


def _specifications(rows: pd.DataFrame, table: str, meta: Mapping[str, object],
                    confidence: float) -> pd.DataFrame:
    """Stored result rows (core columns first) as specification rows: one path for every table."""
    declared = _TABLE_CHOICES[table]
    out = rows.copy()
    records = out.to_dict("records")
    convs = [_preset(meta, str(c)) for c in out["convention"]]
    stimuli = out["stimuli"]

    def fill(template: object) -> list[str]:
        return [str(template).format(conv=conv, described=target_description(str(stim)),
                                     modified_mark=" (modified)"
                                     if str(r.get("modified", "")).lower() == "true" else "",
                                     **r)
                for r, conv, stim in zip(records, convs, stimuli, strict=True)]

    out["method"] = out["method"].replace(_METHOD_FAMILIES)
    out["targets"] = fill(declared.get("targets", "{described}"))
    out["contexts"] = pd.Series(fill(declared["contexts"]), index=out.index).replace(
        _CONTEXT_NAMES)
    out["ddof"] = [c["ddof"] for c in convs]
    # A tail the row stores (CEAT's) is the one it was computed with; else the preset's.
    preset_tails = pd.Series([c.get("tail", c.get("level1_tail")) for c in convs],
                             index=out.index)
    stored_tail = out["tail"].astype(str) if "tail" in out else pd.Series("", index=out.index)
    out["tail"] = stored_tail.where(stored_tail != "", preset_tails)
    out["sampling"] = fill(declared["sampling"])
    out["effect_size"] = pd.to_numeric(out["effect_size"], errors="coerce").astype(float)
    out["p_value"] = pd.to_numeric(out["p_value"], errors="coerce").astype(float)
    sizes = declared.get("sizes", ("n_x", "n_y"))
    if {"ci_low", "ci_high", "se"} <= set(out.columns):  # a meta-analysis CI is stored
        if confidence != 0.95:  # the stored CIs are 95%; other levels from the stored SE
            half = stats.norm.ppf(0.5 + confidence / 2) * pd.to_numeric(out["se"],
                                                                         errors="coerce")
            out["ci_low"], out["ci_high"] = out["effect_size"] - half, out["effect_size"] + half
        out["ci_low"] = pd.to_numeric(out["ci_low"], errors="coerce").astype(float)
        out["ci_high"] = pd.to_numeric(out["ci_high"], errors="coerce").astype(float)
        out["ci_method"] = "random-effects meta-analysis"
    else:
        out["ci_low"], out["ci_high"] = _ci(out["effect_size"], out[sizes[0]], out[sizes[1]],
                                            confidence)
        out["ci_method"] = "Hedges-Olkin approximation"
    out["n_x"], out["n_y"] = out[sizes[0]], out[sizes[1]]
    out["stimuli"] = stimuli
    out["model"] = out["encoder"]
    out["source"] = table
    if "not run" not in out:
        out["not run"] = ""
    return out


#: Columns of a stored specification frame after the choices.
_NUMBERS = ["effect_size", "ci_low", "ci_high", "ci_method", "p_value", "n_x", "n_y",
            "stimuli", "model", "source", "convention", "not run"]


def stored_specifications(
    model: str,
    test: str,
    *,
    tables: Sequence[str] = STORED_TABLES,
    confidence: float = 0.95,
) -> pd.DataFrame:
    r"""Every stored row of one model and test, as a specification frame.

    Parameters
    ----------
    model
        A model column of the stored tables (``"all-MiniLM-L6-v2"``,
        ``"SmolLM2-135M-Instruct"``, ``"CBoW (GloVe 6B 50d)"``), or the start
        of a model name (``"SPLADE-tiny-MLM"`` for LPBS); :func:`stored_models`
        lists them.
    test
        A short test name: ``"C1"``, ``"C3"``, ``"C6"``, ``"C9"``, ``"Occ"``…
        (May et al.'s test and b-variant, Mind Your Bias's ``MYB-<test>-*``
        sets; CEAT's and LPBS's ``test`` column).
    tables
        Which stored tables to read (:data:`STORED_TABLES`).
    confidence
        Level of the CIs: the approximate SEAT/ML-EAT/LPBS ones, and CEAT's
        (the stored 95% bounds, or :math:`\mathrm{CES} \pm z\,\mathrm{SE}` from
        the stored SE at another level).

    Returns
    -------
    pandas.DataFrame
        One row per stored result: the :data:`~biaslib.evaluate.speccurve.CHOICES`
        columns (text), ``effect_size`` (the stored :math:`d`, CES, or ML-EAT
        level-1 :math:`d`), ``ci_low``, ``ci_high``, ``ci_method``, ``p_value``,
        ``n_x``, ``n_y`` (target sizes; attribute units for LPBS), ``stimuli``,
        ``model`` (the encoder's full name), ``source`` (the table),
        ``convention`` and ``not run`` (rows a model could not run keep a NaN
        effect size and the reason). Empty if no table holds the pair.

    Raises
    ------
    UnknownNameError
        If a table is not one of :data:`STORED_TABLES`.
    KeyError
        If no stimulus test belongs to ``test``.

    Examples
    --------
    >>> specs = stored_specifications("CBoW (GloVe 6B 50d)", "C1")
    >>> specs["source"].tolist()
    ['seat_may', 'seat_may', 'seat_myb', 'seat_myb']
    >>> specs["contexts"].tolist()
    ['words only', 'SEAT bleached', 'Mind Your Bias', 'Mind Your Bias']
    >>> specs["effect_size"].round(4).tolist()
    [1.0716, 1.1264, 0.9812, 1.347]
    """
    return _specifications_of(model, test, _load_tables(tables), confidence)


def _load_tables(tables: Sequence[str]) -> dict[str, tuple[pd.DataFrame, dict[str, object]]]:
    """The stored tables a specification frame reads, each loaded (and verified) once."""
    unknown = [t for t in tables if t not in _TABLE_CHOICES]
    if unknown:
        raise UnknownNameError("stored table", unknown[0], STORED_TABLES)
    return {table: load_results(table) for table in tables}


def _specifications_of(model: str, test: str,
                       loaded: Mapping[str, tuple[pd.DataFrame, Mapping[str, object]]],
                       confidence: float) -> pd.DataFrame:
    """:func:`stored_specifications` on tables already loaded (read-only: rows are copied)."""
    variants = stimulus_variants(test)  # raises for an unknown test
    # The paper's test, and May et al.'s b-variant of it (C3b), which is a test of its own:
    # a row belongs to either by its paper's test id or by its stimulus test (``C3b``).
    tests = {test, *variants["seat"]}
    parts = []
    for table, (frame, meta) in loaded.items():
        rows = frame[(frame["model"] == model)
                     & (frame["test"].isin(tests) | frame["stimuli"].isin(tests))]
        if rows.empty:
            continue
        parts.append(_specifications(rows, table, meta, confidence))
    columns = [*CHOICES, *_NUMBERS]
    if not parts:
        return pd.DataFrame(columns=columns)
    out = pd.concat(parts, ignore_index=True)
    for col in CHOICES:
        out[col] = out[col].astype(str)
    return out[columns].reset_index(drop=True)


def stored_models(tables: Sequence[str] = STORED_TABLES) -> list[str]:
    """The models (the core ``model`` column) the stored tables hold, in order of appearance.

    Examples
    --------
    >>> "all-MiniLM-L6-v2" in stored_models()
    True
    """
    seen: dict[str, None] = {}
    for table in tables:
        frame, _ = load_results(table)
        seen.update(dict.fromkeys(frame["model"].astype(str)))
    return list(seen)


def specification_summary(models: Sequence[str], tests: Sequence[str], *,
                          confidence: float = 0.95) -> pd.DataFrame:
    """How far the stored specifications of each model and test spread.

    For every (model, test) with stored results (:func:`stored_specifications`;
    rows that did not run are left out): the number of specifications, the
    smallest and largest effect size, their range, how many CIs lie wholly
    above 0 and wholly below 0, and the choices that vary between them. A test
    with CIs on both sides of 0 changes the sign of its finding with the
    choices alone.

    Returns
    -------
    pandas.DataFrame
        One row per (model, test): ``model``, ``test``, ``specifications``,
        ``min d``, ``max d``, ``range``, ``CI above 0``, ``CI below 0``,
        ``choices varied``.
    """
    rows = []
    loaded = _load_tables(STORED_TABLES)  # once for every (model, test), not 6 reads each
    for model in models:
        for test in tests:
            frame = _specifications_of(model, test, loaded, confidence)
            frame = frame[frame["effect_size"].notna()] if len(frame) else frame
            if not len(frame):
                continue
            d = frame["effect_size"]
            rows.append({
                "model": model, "test": test, "specifications": len(frame),
                "min d": float(d.min()), "max d": float(d.max()),
                "range": float(d.max() - d.min()),
                "CI above 0": int((frame["ci_low"] > 0).sum()),
                "CI below 0": int((frame["ci_high"] < 0).sum()),
                "choices varied": ", ".join(c for c in CHOICES if frame[c].nunique() > 1),
            })
    return pd.DataFrame(rows)


#: The model of the stored full-grid specification curves (``speccurve_grid``).
_GRID_MODEL = MINILM
#: Its tests.
_GRID_TESTS = ("C1", "C3", "C6", "C9")
#: Its layers: label → the encoder's ``layer`` (MiniLM has 6; 3 is the middle one).
_GRID_LAYERS = {"last": "last", "layer 3": 3}
#: How the layers read in a figure: MiniLM-L6 has six layers, and "last" is the sixth.
GRID_LAYER_LABELS = {"last": "last (6 of 6)", "layer 3": "layer 3 of 6"}
#: Its sentence poolings (MiniLM was trained with the mean; ``cls`` is BERT's habit).
_GRID_SENTENCE_POOLINGS = ("mean", "cls")
#: Its subword poolings of a word in context.
_GRID_WORD_POOLINGS = ("mean", "first")


def _grid_encoders(layers: Mapping[str, object] = _GRID_LAYERS) -> dict[str, ContextEncoder]:
    """One cached :class:`~biaslib.embeddings.transformer.TransformerEncoder` per layer."""
    from biaslib.embeddings.transformer import TransformerEncoder

    return {label: TransformerEncoder(_GRID_MODEL, layer=layer, progress=False)  # type: ignore[arg-type]
            for label, layer in layers.items()}


def grid_specifications(tests: Sequence[str] = _GRID_TESTS,
                        encoders: Mapping[str, ContextEncoder] | None = None,
                        sentence_poolings: Sequence[str] = _GRID_SENTENCE_POOLINGS,
                        word_poolings: Sequence[str] = _GRID_WORD_POOLINGS) -> pd.DataFrame:
    """Every combination of the choices for each test, on the grid model (the stored curves).

    :func:`biaslib.evaluate.speccurve.specification_frame` for each test with the
    encoders of :func:`_grid_encoders` (one per layer), both sentence and both word
    poolings, ddof 0 and 1, one- and two-sided p-values, SEAT on every template
    family and CEAT on Mind Your Bias's templates (no corpus rows: the stored
    table must not depend on the extract). The core columns
    (:data:`biaslib.methods.result.CORE_COLUMNS`) come first, as
    :func:`~biaslib.evaluate.speccurve.specification_frame` fills them (``variant`` the
    stimulus variant of ``stimuli``; ``model`` the encoders' short name,
    :data:`_GRID_MODEL`, their full names in ``encoder`` after ``stimuli``), with ``test``
    the grid's test and ``convention`` ``"n/a"``.
    """
    encoders = _grid_encoders() if encoders is None else encoders
    frames = [specification_frame(test, encoders, sentence_poolings=tuple(sentence_poolings),
                                  word_poolings=tuple(word_poolings)).assign(test=test)
              for test in tests]
    grid = pd.concat(frames, ignore_index=True)
    # The table keeps n_x and n_y (and CEAT's N in ``sampling``); the record's ``n``
    # would repeat them.
    grid = grid.drop(columns="n")
    # Each row's ddof, tail and sampling are its own choices: no one preset names them.
    return core_first(grid, convention="n/a")


# --------------------------------------------------------------------------- stored tables


def _grid_provenance(frame: pd.DataFrame) -> dict[str, object]:
    encoder = next(iter(_grid_encoders().values()))
    return {
        "what": f"specification curves on {_GRID_MODEL}: every combination of the choices "
                "biaslib.evaluate.speccurve.specification_frame supports, per test (SEAT on "
                "every template family, CEAT on Mind Your Bias's templates; no corpus rows)",
        "model": {"name": _GRID_MODEL, "weights": encoder.fingerprint},
        "tests": list(_GRID_TESTS), "layers": {k: str(v) for k, v in _GRID_LAYERS.items()},
        "sentence_poolings": list(_GRID_SENTENCE_POOLINGS),
        "word_poolings": list(_GRID_WORD_POOLINGS),
        "seat_convention": MIND_YOUR_BIAS.to_dict(),
        "ceat_conventions": {c.name: c.to_dict() for c in (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL)},
        "ci": "SEAT: Hedges & Olkin large-sample interval (approximate); CEAT: its meta-analysis",
        "rows": len(frame),
    }


#: The slice of ``speccurve_grid`` the tests recompute: C1, last layer, mean poolings.
_GRID_SLICE = ("C1",)


def _grid_slice() -> pd.DataFrame:
    fresh = grid_specifications(_GRID_SLICE, {"last": _grid_encoders()["last"]},
                                ("mean",), ("mean",))
    return fresh.astype({"ddof": "int64"})  # the CSV reads the choice back as a number


#: The stored tables declared here (collected by :data:`biasbook.registry.REGISTRY`):
#: the synthesis chapter's full-grid specification curves. Not to be confused with
#: :data:`STORED_TABLES`, the tables a specification frame reads.
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        "speccurve_grid", "synthesis", f"specification curves on {_GRID_MODEL}: every "
        "combination of the book's choices for C1, C3, C6 and C9",
        grid_specifications, _grid_provenance,
        "the model with its weights fingerprint, tests, layers, poolings, the SEAT and CEAT "
        "conventions, how the CIs are made", (NEEDS_MODELS,),
        "a few minutes (2 cores; two layers, two poolings per level)",
        slices=(SliceCheck("C1, last layer, mean poolings", _grid_slice,
                           ("test", "method", "targets", "contexts", "level", "pooling", "layer",
                            "ddof", "tail", "sampling", "stimuli"),
                           "tests/test_speccurve.py::test_speccurve_grid_slice",
                           ("variant", "model", "convention", "encoder", "n_x", "n_y",
                            "ci_method", "not run"),
                           ("effect_size", "ci_low", "ci_high"), ("p_value",)),),
        results=True),
)
