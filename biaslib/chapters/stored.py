"""Stored results tables: computed by scripts, rendered by notebooks, checked by tests.

Some chapter tables take minutes to compute (thousands of sentences through a
causal LM). They are computed by ``scripts/compute_results.py`` and stored in
``data/results/<name>.csv`` with a provenance record ``<name>.json`` (biaslib
version, the models with their weights fingerprints, the parameters and
seed). A notebook shows the stored table — or recomputes it when asked or when
it is missing — and the test suite recomputes a fixed slice of every stored
table and compares, so a stored number cannot drift from the code that claims
to produce it.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

import biaslib
from biaslib.errors import StoredTableMismatch
from biaslib.methods.result import CORE_COLUMNS
from biaslib.stimuli.data import data_dir

__all__ = [
    "NUMBER_TOLERANCE",
    "P_VALUE_TOLERANCE",
    "RESULT_TABLES",
    "SCHEMA",
    "compare_with_stored",
    "load_or_compute",
    "load_results",
    "results_dir",
    "save_results",
    "write_atomically",
]


#: The stored tables that hold test results and so start with :data:`CORE_COLUMNS`.
#: Each names every row's stimulus test in ``stimuli`` (May et al.'s ``C3b``,
#: ``MYB-C1-name``); ``test`` and ``variant`` are its paper's test id and stimulus variant
#: (:func:`biaslib.evaluate.tidy.paper_test`: ``C3``, ``b-variant``); which implementation
#: ran (a bug replay) is a column of its own (``replay``).
#: The others of ``data/results/`` (coverage, resampling experiments, diagnostics,
#: underflow counts, the SAME grid) hold no test results and keep their own shape.
RESULT_TABLES = ("seat_may", "seat_myb", "elmo_bug", "elmo_quirks", "elmo_gpt2",
                 "mleat_offline", "ceat_myb", "ceat_caliskan", "ceat_contexts", "lpbs_myb",
                 "lpbs_kurita", "lpbs_reddit", "synthesis_tiny_mlm", "speccurve_grid")


def results_dir() -> Path:
    """``data/results`` (inside the data folder :func:`biaslib.stimuli.data.data_dir` finds)."""
    return data_dir() / "results"


#: The ``schema`` entry of the provenance of every table in :data:`RESULT_TABLES`.
SCHEMA = "core columns v2 (issue 19)"


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` whole or not at all: ``write`` fills a temporary file, renamed onto it.

    A crash or an error while writing leaves the old file (or none) in place,
    never half a table.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def save_results(frame: pd.DataFrame, name: str, provenance: Mapping[str, object]) -> Path:
    """Write ``<name>.csv`` and its provenance ``<name>.json``; return the CSV path.

    Both files are written whole or not at all: each goes to a temporary file beside
    it, and the two are renamed into place only once both are written, so an
    interrupted run never leaves a truncated table or a table without its provenance.
    A table of :data:`RESULT_TABLES` must start with :data:`CORE_COLUMNS`; its
    provenance records the :data:`SCHEMA`.

    Raises
    ------
    ValueError
        If a results table does not start with the core columns.
    """
    if name in RESULT_TABLES and tuple(frame.columns[:len(CORE_COLUMNS)]) != CORE_COLUMNS:
        raise ValueError(f"{name} must start with the columns {CORE_COLUMNS}, "
                         f"not {tuple(frame.columns[:len(CORE_COLUMNS)])}")
    folder = results_dir()
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / f"{name}.csv"
    meta = folder / f"{name}.json"
    record = {
        "table": name,
        "biaslib_version": biaslib.__version__,
        "python": platform.python_version(),
        **({"schema": SCHEMA} if name in RESULT_TABLES else {}),
        **provenance,
    }
    temporary = {path: path.with_name(f".{path.name}.{os.getpid()}.tmp") for path in (csv, meta)}
    try:
        frame.to_csv(temporary[csv], index=False, float_format="%.6g")
        temporary[meta].write_text(json.dumps(record, indent=2, default=str) + "\n",
                                   encoding="utf-8")
        for path, tmp in temporary.items():
            os.replace(tmp, path)
    finally:
        for tmp in temporary.values():
            tmp.unlink(missing_ok=True)
    return csv


def load_results(name: str) -> tuple[pd.DataFrame, dict[str, object]]:
    """The stored table ``name`` and its provenance record.

    Raises
    ------
    FileNotFoundError
        If the table has not been computed (run ``scripts/compute_results.py``).
    """
    csv = results_dir() / f"{name}.csv"
    if not csv.is_file():
        raise FileNotFoundError(
            f"no stored results {name!r} in {csv.parent}; run scripts/compute_results.py"
        )
    meta = json.loads((csv.with_suffix(".json")).read_text(encoding="utf-8"))
    # Empty cells are empty text (e.g. "not run") unless the whole column is numeric.
    frame = pd.read_csv(csv, keep_default_na=False)
    for col in frame.columns:
        if pd.api.types.is_string_dtype(frame[col]) or frame[col].dtype == object:
            numbers = pd.to_numeric(frame[col].mask(frame[col] == ""), errors="coerce")
            text = frame[col].fillna("")
            filled = int((text != "").sum())
            frame[col] = numbers if 0 < filled == numbers.notna().sum() else text
    return frame, meta


def load_or_compute(
    name: str, compute: Callable[[], pd.DataFrame], *, recompute: bool = False
) -> tuple[pd.DataFrame, str]:
    """The stored table, or a fresh computation when asked (or when none is stored).

    Returns the table and a sentence saying which of the two it is, for the
    notebook to print beside it.
    """
    if not recompute:
        try:
            frame, meta = load_results(name)
        except FileNotFoundError:
            pass
        else:
            return frame, (
                f"stored table data/results/{name}.csv (biaslib {meta['biaslib_version']}; "
                f"recomputed slices are checked by the test suite)"
            )
    return compute(), f"computed now (biaslib {biaslib.__version__})"


# --------------------------------------------------------------------------- recomputed vs stored


@dataclass(frozen=True)
class _Tolerance:
    """How far a recomputed number may lie from the stored one: ``|a - b| <= atol + rtol |b|``."""

    rtol: float
    atol: float

    def __str__(self) -> str:
        return f"rtol {self.rtol:g}, atol {self.atol:g}"


#: Effect sizes, means, standard deviations, CES, SE, τ² of neural models. Their vectors
#: are float32 and differ in the last bits between CPUs (SIMD kernels, thread count) and
#: between batches of different padding: about 1e-6 relative, measured with
#: ATEN_CPU_CAPABILITY=default against AVX2 and with other batch sizes, which moved
#: effect sizes by at most 6e-7. The stored CSVs keep six significant digits.
NUMBER_TOLERANCE = _Tolerance(rtol=1e-4, atol=1e-5)
#: Permutation p-values: the same noise can move an observed statistic past a few of the
#: 100,000 re-split statistics (1e-5 each).
P_VALUE_TOLERANCE = _Tolerance(rtol=0.0, atol=1e-3)


def compare_with_stored(
    fresh: pd.DataFrame,
    stored: pd.DataFrame,
    keys: Sequence[str],
    *,
    exact: Sequence[str] = (),
    numbers: Sequence[str] = (),
    p_values: Sequence[str] = (),
) -> pd.DataFrame:
    """Check recomputed rows against a stored table, within stated tolerances.

    Every row of ``fresh`` must have exactly one row of ``stored`` with the
    same ``keys``. Columns in ``exact`` (text, counts, weights fingerprints)
    must be equal; ``numbers`` must agree within :data:`NUMBER_TOLERANCE` and
    ``p_values`` within :data:`P_VALUE_TOLERANCE`; two missing values (NaN,
    empty text) are equal. Used by the test suite and by chapters that
    recompute a stored number in front of the reader.

    Returns
    -------
    pandas.DataFrame
        One row per compared column: ``column``, ``rows``, ``tolerance``,
        ``within tolerance`` (always True: a failure raises). It holds no
        differences, which would depend on the CPU.

    Raises
    ------
    StoredTableMismatch
        If a row is missing from ``stored`` or any column differs beyond its
        tolerance; the message lists the keys and both values of each
        offending row.
    """
    keys = list(keys)
    missing_cols = [c for c in [*keys, *exact, *numbers, *p_values]
                    if c not in fresh or c not in stored]
    if missing_cols:
        raise KeyError(f"columns {missing_cols} are not in both tables")
    merged = fresh.merge(stored, on=keys, how="left", suffixes=("", "_stored"),
                         indicator=True, validate="one_to_one")
    absent = merged[merged["_merge"] == "left_only"]
    if len(absent):
        raise StoredTableMismatch(
            f"the stored table lacks {len(absent)} rows of the slice: "
            f"{absent[keys].to_dict('records')[:5]}")
    summary, problems = [], []
    checks = [(c, None) for c in exact] + [(c, NUMBER_TOLERANCE) for c in numbers] + [
        (c, P_VALUE_TOLERANCE) for c in p_values]
    for col, tol in checks:
        a, b = merged[col], merged[f"{col}_stored"]
        if tol is None and is_numeric_dtype(a) and is_numeric_dtype(b):
            same = (a == b) | (a.isna() & b.isna())
        elif tol is None:
            same = a.fillna("").astype(str) == b.fillna("").astype(str)
        else:
            x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
            both_nan = np.isnan(x) & np.isnan(y)
            with np.errstate(invalid="ignore"):
                same = both_nan | (np.abs(x - y) <= tol.atol + tol.rtol * np.abs(y))
            same = pd.Series(same, index=merged.index)
        if not same.all():
            bad = merged.loc[~same, [*keys, col, f"{col}_stored"]]
            problems.append(f"{col} ({tol or 'exact'}): {bad.to_dict('records')[:5]}")
        summary.append({"column": col, "rows": len(merged),
                        "tolerance": str(tol) if tol else "equal",
                        "within tolerance": bool(same.all())})
    if problems:
        raise StoredTableMismatch("recomputed values differ from the stored table: "
                                  + "; ".join(problems))
    return pd.DataFrame(summary)
