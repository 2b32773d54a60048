"""Stored results tables: computed by scripts, rendered by notebooks, checked by tests.

Some chapter tables take minutes to compute (thousands of sentences through a
causal LM). They are computed by ``scripts/compute_results.py`` and stored in
``data/results/<name>.csv`` with a provenance record ``<name>.json`` (biaslib
version, the models with their weights fingerprints, the parameters and
seed, and the CSV's row count and SHA-256, verified on every load). A notebook
shows the stored table — or recomputes it when asked or when it is missing —
and the test suite recomputes a fixed slice of every stored table and compares,
so a stored number cannot drift from the code that claims to produce it.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

import biaslib
from biaslib.errors import StoredTableCorrupt, StoredTableMismatch
from biaslib.files import replacing, write_atomically, write_text_atomically
from biaslib.methods.result import CORE_COLUMNS
from biaslib.stimuli.data import data_dir

__all__ = [
    "NUMBER_TOLERANCE",
    "P_VALUE_TOLERANCE",
    "SCHEMA",
    "check_results_frame",
    "compare_with_stored",
    "load_or_compute",
    "load_results",
    "record_checksums",
    "results_dir",
    "save_results",
    "write_atomically",  # kept here for old imports; it lives in biaslib.files
]


def results_dir() -> Path:
    """``data/results`` (inside the data folder :func:`biaslib.stimuli.data.data_dir` finds)."""
    return data_dir() / "results"


#: The ``schema`` entry of the provenance of every results table: a table of test results
#: (:attr:`biasbook.tables.StoredTable.results`), which starts with
#: :data:`~biaslib.methods.result.CORE_COLUMNS` and names each row's stimulus test in
#: ``stimuli`` (May et al.'s ``C3b``, ``MYB-C1-name``); ``test`` and ``variant`` are its
#: paper's test id and stimulus variant (:func:`biaslib.evaluate.tidy.paper_test`: ``C3``,
#: ``b-variant``), and which implementation ran (a bug replay) is a column of its own
#: (``replay``).
SCHEMA = "core columns v2 (issue 19)"


def _restore_hint(name: str) -> str:
    return (f"restore it by recomputing (python scripts/compute_results.py {name}) or by "
            f"taking the committed copy back (git checkout -- data/results/{name}.csv "
            f"data/results/{name}.json)")


def _table_checksum(data: bytes) -> str:
    """The SHA-256 (hex) of a stored CSV's bytes, as its provenance records it (``csv_sha256``)."""
    return hashlib.sha256(data).hexdigest()


def _csv_rows(data: bytes) -> int:
    """The number of data rows of a stored CSV (what :func:`load_results` gives back)."""
    return len(pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False))


def check_results_frame(frame: pd.DataFrame, name: str) -> None:
    """Refuse a results table that does not start with the core columns or lacks ``stimuli``.

    Raises
    ------
    ValueError
        Naming the table and what it lacks.
    """
    if tuple(frame.columns[:len(CORE_COLUMNS)]) != CORE_COLUMNS:
        raise ValueError(f"{name} must start with the columns {CORE_COLUMNS}, "
                         f"not {tuple(frame.columns[:len(CORE_COLUMNS)])}")
    if "stimuli" not in frame.columns:
        raise ValueError(f"{name} is a results table: it must name each row's stimulus test "
                         "in a 'stimuli' column")


def save_results(frame: pd.DataFrame, name: str, provenance: Mapping[str, object], *,
                 results: bool = False) -> Path:
    """Write ``<name>.csv`` and its provenance ``<name>.json``; return the CSV path.

    Both files are written whole or not at all: each goes to a temporary file beside
    it, and the two are renamed into place only once both are written
    (:func:`biaslib.files.replacing`), so an interrupted run never leaves a truncated
    table or a table without its provenance. The provenance records the CSV's row
    count (``csv_rows``) and the SHA-256 of its bytes (``csv_sha256``), which
    :func:`load_results` verifies.

    ``results`` says that the table holds test results (a registry entry's
    :attr:`~biasbook.tables.StoredTable.results`, which
    :meth:`~biasbook.tables.StoredTable.save` passes): it must then start with
    :data:`CORE_COLUMNS` and have a ``stimuli`` column, and its provenance records the
    :data:`SCHEMA`.

    Raises
    ------
    ValueError
        If a results table does not start with the core columns or has no ``stimuli``.
    """
    if results:
        check_results_frame(frame, name)
    folder = results_dir()
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / f"{name}.csv"
    meta = folder / f"{name}.json"
    with replacing(csv, meta) as (csv_tmp, meta_tmp):
        frame.to_csv(csv_tmp, index=False, float_format="%.6g")
        data = csv_tmp.read_bytes()
        record = {
            "table": name,
            "biaslib_version": biaslib.__version__,
            "python": platform.python_version(),
            **({"schema": SCHEMA} if results else {}),
            **provenance,
            "csv_rows": _csv_rows(data),
            "csv_sha256": _table_checksum(data),
        }
        meta_tmp.write_text(json.dumps(record, indent=2, default=str) + "\n",
                            encoding="utf-8")
    return csv


def record_checksums(name: str) -> bool:
    """Add (or correct) ``csv_rows`` and ``csv_sha256`` in a table's provenance; the CSV stays.

    (Not ``rows``: some provenance records already use that key for the rows a table
    holds.) For tables stored before the provenance carried them (issue 20): the values are
    those of the CSV as it is, so run this only on a CSV known to be whole (the
    committed one). Returns whether the provenance changed.
    """
    csv = results_dir() / f"{name}.csv"
    meta_path = csv.with_suffix(".json")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    data = csv.read_bytes()
    checks = {"csv_rows": _csv_rows(data), "csv_sha256": _table_checksum(data)}
    if all(meta.get(k) == v for k, v in checks.items()):
        return False
    record = {**{k: v for k, v in meta.items() if k not in checks}, **checks}
    write_text_atomically(meta_path, json.dumps(record, indent=2, default=str) + "\n")
    return True


def load_results(name: str) -> tuple[pd.DataFrame, dict[str, object]]:
    """The stored table ``name`` and its provenance record, verified against each other.

    The CSV's bytes must have the SHA-256 and its rows the count that the provenance
    records, so a table cut short (at a line end or mid-line), emptied or replaced is
    refused instead of read as a smaller table.

    Raises
    ------
    FileNotFoundError
        If the table has not been computed (run ``scripts/compute_results.py``).
    biaslib.errors.StoredTableCorrupt
        If the provenance JSON is missing, unreadable or lacks the checksum, or the
        CSV does not match it; the message names the file and how to restore it.
    """
    if not isinstance(name, str) or not name or "/" in name:
        raise TypeError(f"name must be a stored table's name (a str such as 'seat_may'), "
                        f"got {name!r}")
    csv = results_dir() / f"{name}.csv"
    if not csv.is_file():
        raise FileNotFoundError(
            f"no stored results {name!r} in {csv.parent}; run scripts/compute_results.py"
        )
    meta_path = csv.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoredTableCorrupt(
            f"the stored table {csv} has no provenance file {meta_path.name}; "
            f"{_restore_hint(name)}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoredTableCorrupt(
            f"the provenance file {meta_path} of the stored table {name!r} is not valid "
            f"JSON ({exc}); {_restore_hint(name)}") from None
    if not isinstance(meta, dict) or not {"csv_rows", "csv_sha256"} <= meta.keys():
        raise StoredTableCorrupt(
            f"the provenance file {meta_path} records no row count and checksum "
            f"('csv_rows', 'csv_sha256'), so {csv.name} cannot be verified; {_restore_hint(name)} "
            f"(or, for a CSV known to be whole, add them with "
            f"biasbook.stored.record_checksums({name!r}))")
    data = csv.read_bytes()
    if _table_checksum(data) != meta["csv_sha256"]:
        raise StoredTableCorrupt(
            f"the stored table {csv} is damaged: its bytes ({len(data)}) do not have the "
            f"SHA-256 its provenance {meta_path.name} records (it was cut short, emptied "
            f"or changed after it was written); {_restore_hint(name)}")
    # Empty cells are empty text (e.g. "not run") unless the whole column is numeric.
    frame = pd.read_csv(io.BytesIO(data), keep_default_na=False)
    if len(frame) != meta["csv_rows"]:
        raise StoredTableCorrupt(
            f"the stored table {csv} has {len(frame)} rows, its provenance "
            f"{meta_path.name} records {meta['csv_rows']}; {_restore_hint(name)}")
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
