r"""Specification frames from the book's stored tables: curves without running a model.

:func:`stored_specifications` collects every row the chapters' stored tables
(``data/results/*.csv``, :func:`biaslib.chapters.stored.load_results`) hold
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

import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from biaslib.chapters.stored import load_results
from biaslib.chapters.tables import NEEDS_MODELS, SliceCheck, StoredTable
from biaslib.embeddings.base import ContextEncoder
from biaslib.errors import UnknownNameError
from biaslib.evaluate.speccurve import (
    CHOICES,
    specification_frame,
    stimulus_variants,
    target_description,
)
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL
from biaslib.stats.conventions import MIND_YOUR_BIAS
from biaslib.stats.effect_size_ci import d_confidence_interval

__all__ = [
    "DECLARED_TABLES",
    "GRID_LAYERS",
    "GRID_MODEL",
    "GRID_SENTENCE_POOLINGS",
    "GRID_TESTS",
    "GRID_WORD_POOLINGS",
    "STORED_TABLES",
    "grid_encoders",
    "grid_specifications",
    "specification_summary",
    "stored_models",
    "stored_specifications",
]

#: The stored tables a specification frame draws on, in the order their rows are listed.
STORED_TABLES = ("seat_may", "seat_myb", "ceat_myb", "ceat_contexts", "mleat_offline",
                 "lpbs_myb")

#: May et al.'s context column → the ``contexts`` choice.
_MAY_CONTEXTS = {"word": "words only", "sent": "SEAT bleached", "sent (u)": "SEAT unbleached"}
#: ML-EAT's input column → the ``contexts`` choice.
_MLEAT_INPUTS = {"SEAT sentences": "SEAT bleached", "ML-EAT prompts": "ML-EAT prompts"}
_POOLING = re.compile(r"\[(sentence|word), ([^\]]+)\]\s*$")


def _pooling(model_name: str, default: str = "n/a") -> str:
    """The pooling an encoder's full name records (``"… [sentence, mean]"`` → ``"mean"``)."""
    found = _POOLING.search(model_name)
    return found.group(2) if found else default


def _layer(model_name: str) -> str:
    """The layer an encoder's full name records; ``"n/a"`` for static vectors."""
    if "last layer" in model_name:
        return "last"
    if "sum of all hidden states" in model_name:
        return "sum"
    found = re.search(r"hidden states? ([0-9+-]+)", model_name)
    return found.group(1) if found else "n/a"


def _model_rows(frame: pd.DataFrame, model: str) -> pd.Series:
    """Rows of ``model``: its column label, or a model name equal to or starting with it."""
    if "column" in frame:
        return frame["column"] == model
    names = frame["model"].astype(str)
    return (names == model) | names.str.startswith(model + " ")


def _ci(d: pd.Series, n_x: pd.Series, n_y: pd.Series, confidence: float
        ) -> tuple[list[float], list[float]]:
    bounds = [d_confidence_interval(float(e), int(a), int(b), confidence)
              if np.isfinite(e) and np.isfinite(a) and np.isfinite(b)
              else (np.nan, np.nan)
              for e, a, b in zip(d, n_x.astype(float), n_y.astype(float), strict=True)]
    return [b[0] for b in bounds], [b[1] for b in bounds]


def _finish(rows: pd.DataFrame, table: str, d_col: str, p_col: str,
            sizes: tuple[str, str], confidence: float, ci: tuple[str, str] | None = None,
            ) -> pd.DataFrame:
    out = rows.copy()
    out["effect_size"] = pd.to_numeric(out[d_col], errors="coerce").astype(float)
    out["p_value"] = pd.to_numeric(out[p_col], errors="coerce").astype(float)
    if ci is None:
        out["ci_low"], out["ci_high"] = _ci(out["effect_size"], out[sizes[0]], out[sizes[1]],
                                            confidence)
        out["ci_method"] = "Hedges-Olkin approximation"
    else:
        out["ci_low"] = pd.to_numeric(out[ci[0]], errors="coerce").astype(float)
        out["ci_high"] = pd.to_numeric(out[ci[1]], errors="coerce").astype(float)
        out["ci_method"] = "random-effects meta-analysis"
    out["n_x"], out["n_y"] = out[sizes[0]], out[sizes[1]]
    out["source"] = table
    if "not run" not in out:
        out["not run"] = ""
    return out


def _permutation_rows(rows: pd.DataFrame, method: str, contexts: object, level: object,
                      ddof: int, tail: str, p_method: str) -> pd.DataFrame:
    """The choice columns of SEAT-like rows (one permutation test per stored row)."""
    rows["method"] = method
    rows["targets"] = rows["test"].map(target_description)
    rows["contexts"], rows["level"] = contexts, level
    rows["pooling"] = rows["model"].map(_pooling)
    rows["layer"] = rows["model"].map(_layer)
    rows["ddof"], rows["tail"] = ddof, tail
    rows["sampling"] = rows[p_method].astype(str) + " permutations"
    rows["stimuli"] = rows["test"]
    return rows


def _seat_may(frame: pd.DataFrame, meta: dict, test: str, confidence: float) -> pd.DataFrame:
    rows = frame[frame["test"].isin(stimulus_variants(test)["seat"])].copy()
    conv = meta["convention"]
    rows = _permutation_rows(rows, "SEAT", rows["context"].map(_MAY_CONTEXTS), "sentence",
                             conv["ddof"], conv["tail"], "p_method")
    return _finish(rows, "seat_may", "effect_size", "p_value", ("n_x", "n_y"), confidence)


def _seat_myb(frame: pd.DataFrame, meta: dict, test: str, confidence: float) -> pd.DataFrame:
    rows = frame[frame["test"].isin(stimulus_variants(test)["myb"])].copy()
    conv = meta["convention"]
    rows = _permutation_rows(rows, "SEAT", "Mind Your Bias",
                             rows["method_stored"].map({"s-SEAT": "sentence", "w-SEAT": "word"}),
                             conv["ddof"], conv["tail"], "p_method")
    return _finish(rows, "seat_myb", "effect_size", "p_value", ("n_x", "n_y"), confidence)


def _ceat(table: str) -> Callable[[pd.DataFrame, dict, str, float], pd.DataFrame]:
    def build(frame: pd.DataFrame, meta: dict, test: str, confidence: float) -> pd.DataFrame:
        rows = frame[frame["test"] == test].copy()
        convs = meta["conventions"]
        rows["method"] = "CEAT"
        rows["targets"] = rows["stimuli"].map(target_description)
        rows["contexts"] = rows["contexts"].replace({"templates": "Mind Your Bias"})
        rows["level"] = "word"
        # The chapter's encoders pool subwords by their mean (EncoderSpec.word_pooling).
        rows["pooling"] = "mean"
        rows["layer"] = rows["model"].map(_layer)
        rows["ddof"] = rows["convention"].map(lambda c: convs[c]["ddof"])
        stored_tail = rows["tail"].astype(str)
        rows["tail"] = stored_tail.where(stored_tail != "",
                                         rows["convention"].map(lambda c: convs[c]["tail"]))
        rows["sampling"] = rows["convention"].map(
            lambda c: f"N={convs[c]['n_samples']:,}, {convs[c]['replacement']} replacement")
        if confidence != 0.95:  # the stored CIs are 95%; other levels from the stored SE
            half = stats.norm.ppf(0.5 + confidence / 2) * pd.to_numeric(rows["se"],
                                                                         errors="coerce")
            ces = pd.to_numeric(rows["ces"], errors="coerce")
            rows["ci_low"], rows["ci_high"] = ces - half, ces + half
        return _finish(rows, table, "ces", "p_value", ("n_x", "n_y"), confidence,
                       ci=("ci_low", "ci_high"))
    return build


def _mleat(frame: pd.DataFrame, meta: dict, test: str, confidence: float) -> pd.DataFrame:
    rows = frame[frame["test"].isin(stimulus_variants(test)["seat"])].copy()
    conv = meta["convention"]
    rows = _permutation_rows(rows, "ML-EAT level 1", rows["inputs"].map(_MLEAT_INPUTS),
                             "sentence", conv["ddof"], conv["level1_tail"], "p_method_l1")
    return _finish(rows, "mleat_offline", "l1_d", "l1_p", ("n_x", "n_y"), confidence)


def _lpbs(frame: pd.DataFrame, meta: dict, test: str, confidence: float) -> pd.DataFrame:
    rows = frame[frame["test"] == test].copy()
    convs = meta["conventions"]
    rows["method"] = "LPBS"
    modified = rows["modified"].astype(str).str.lower() == "true"
    rows["targets"] = (rows["target_description"].astype(str) + ", "
                       + rows["word_set"].astype(str) + np.where(modified, " (modified)", ""))
    rows["contexts"] = "LPBS templates, " + rows["attribute_form"].astype(str) + " attributes"
    rows["level"] = "masked token"
    rows["pooling"] = rows["wordpieces"].astype(str) + " wordpiece(s)"
    rows["layer"] = "MLM head"
    rows["ddof"] = rows["convention"].map(lambda c: convs[c]["ddof"])
    rows["tail"] = rows["convention"].map(lambda c: convs[c]["tail"])
    rows["sampling"] = (rows["units"].astype(str) + " units, " + rows["p_method"].astype(str)
                        + " permutations")
    return _finish(rows, "lpbs_myb", "effect_size", "p_value", ("n_a", "n_b"), confidence)


_BUILDERS: dict[str, Callable[[pd.DataFrame, dict, str, float], pd.DataFrame]] = {
    "seat_may": _seat_may, "seat_myb": _seat_myb, "ceat_myb": _ceat("ceat_myb"),
    "ceat_contexts": _ceat("ceat_contexts"), "mleat_offline": _mleat, "lpbs_myb": _lpbs,
}

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
    unknown = [t for t in tables if t not in _BUILDERS]
    if unknown:
        raise UnknownNameError("stored table", unknown[0], STORED_TABLES)
    stimulus_variants(test)  # raises for an unknown test
    parts = []
    for table in tables:
        frame, meta = load_results(table)
        if table == "seat_myb":
            frame = frame.rename(columns={"method": "method_stored"})
        frame = frame[_model_rows(frame, model)]
        if frame.empty:
            continue
        part = _BUILDERS[table](frame, meta, test, confidence)
        if "convention" not in part:
            part["convention"] = meta.get("convention", {}).get("name", "")
        parts.append(part)
    columns = [*CHOICES, *_NUMBERS]
    if not parts:
        return pd.DataFrame(columns=columns)
    out = pd.concat(parts, ignore_index=True)
    for col in CHOICES:
        out[col] = out[col].astype(str)
    return out[columns].reset_index(drop=True)


def stored_models(tables: Sequence[str] = STORED_TABLES) -> list[str]:
    """The model labels the stored tables hold (``column``, or ``model`` for LPBS).

    Examples
    --------
    >>> "all-MiniLM-L6-v2" in stored_models()
    True
    """
    seen: dict[str, None] = {}
    for table in tables:
        frame, _ = load_results(table)
        labels = frame["column"] if "column" in frame else frame["model"]
        seen.update(dict.fromkeys(labels.astype(str)))
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
    for model in models:
        for test in tests:
            frame = stored_specifications(model, test, confidence=confidence)
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
GRID_MODEL = "all-MiniLM-L6-v2"
#: Its tests.
GRID_TESTS = ("C1", "C3", "C6", "C9")
#: Its layers: label → the encoder's ``layer`` (MiniLM has 6; 3 is the middle one).
GRID_LAYERS = {"last": "last", "layer 3": 3}
#: Its sentence poolings (MiniLM was trained with the mean; ``cls`` is BERT's habit).
GRID_SENTENCE_POOLINGS = ("mean", "cls")
#: Its subword poolings of a word in context.
GRID_WORD_POOLINGS = ("mean", "first")


def grid_encoders(layers: Mapping[str, object] = GRID_LAYERS) -> dict[str, ContextEncoder]:
    """One cached :class:`~biaslib.embeddings.transformer.TransformerEncoder` per layer."""
    from biaslib.embeddings.transformer import TransformerEncoder

    return {label: TransformerEncoder(GRID_MODEL, layer=layer, progress=False)  # type: ignore[arg-type]
            for label, layer in layers.items()}


def grid_specifications(tests: Sequence[str] = GRID_TESTS,
                        encoders: Mapping[str, ContextEncoder] | None = None,
                        sentence_poolings: Sequence[str] = GRID_SENTENCE_POOLINGS,
                        word_poolings: Sequence[str] = GRID_WORD_POOLINGS) -> pd.DataFrame:
    """Every combination of the choices for each test, on the grid model (the stored curves).

    :func:`biaslib.evaluate.speccurve.specification_frame` for each test with the
    encoders of :func:`grid_encoders` (one per layer), both sentence and both word
    poolings, ddof 0 and 1, one- and two-sided p-values, SEAT on every template
    family and CEAT on Mind Your Bias's templates (no corpus rows: the stored
    table must not depend on the extract). A ``test`` column names the test.
    """
    encoders = grid_encoders() if encoders is None else encoders
    frames = [specification_frame(test, encoders, sentence_poolings=tuple(sentence_poolings),
                                  word_poolings=tuple(word_poolings)).assign(test=test)
              for test in tests]
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- stored tables


def _grid_provenance(frame: pd.DataFrame) -> dict[str, object]:
    encoder = next(iter(grid_encoders().values()))
    return {
        "what": "specification curves on all-MiniLM-L6-v2: every combination of the choices "
                "biaslib.evaluate.speccurve.specification_frame supports, per test (SEAT on "
                "every template family, CEAT on Mind Your Bias's templates; no corpus rows)",
        "model": {"name": GRID_MODEL, "weights": encoder.fingerprint},
        "tests": list(GRID_TESTS), "layers": {k: str(v) for k, v in GRID_LAYERS.items()},
        "sentence_poolings": list(GRID_SENTENCE_POOLINGS),
        "word_poolings": list(GRID_WORD_POOLINGS),
        "seat_convention": MIND_YOUR_BIAS.to_dict(),
        "ceat_conventions": {c.name: c.to_dict() for c in (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL)},
        "ci": "SEAT: Hedges & Olkin large-sample interval (approximate); CEAT: its meta-analysis",
        "rows": len(frame),
    }


#: The slice of ``speccurve_grid`` the tests recompute: C1, last layer, mean poolings.
_GRID_SLICE = ("C1",)


def _grid_slice() -> pd.DataFrame:
    fresh = grid_specifications(_GRID_SLICE, {"last": grid_encoders()["last"]},
                                ("mean",), ("mean",))
    return fresh.astype({"ddof": "int64"})  # the CSV reads the choice back as a number


#: The stored tables declared here (collected by :data:`biaslib.chapters.registry.REGISTRY`):
#: the synthesis chapter's full-grid specification curves. Not to be confused with
#: :data:`STORED_TABLES`, the tables a specification frame reads.
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        "speccurve_grid", "synthesis", "specification curves on all-MiniLM-L6-v2: every "
        "combination of the book's choices for C1, C3, C6 and C9",
        grid_specifications, _grid_provenance,
        "the model with its weights fingerprint, tests, layers, poolings, the SEAT and CEAT "
        "conventions, how the CIs are made", (NEEDS_MODELS,),
        "a few minutes (2 cores; two layers, two poolings per level)",
        slices=(SliceCheck("C1, last layer, mean poolings", _grid_slice,
                           ("test", "method", "targets", "contexts", "level", "pooling", "layer",
                            "ddof", "tail", "sampling", "stimuli"),
                           "tests/test_speccurve.py::test_speccurve_grid_slice",
                           ("model", "n_x", "n_y", "ci_method", "not run"),
                           ("effect_size", "ci_low", "ci_high"), ("p_value",)),)),
)
