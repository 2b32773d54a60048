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
import platform
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd

import biaslib
from biaslib.data import data_dir

__all__ = ["load_or_compute", "load_results", "results_dir", "save_results"]


def results_dir() -> Path:
    """``data/results`` (inside the data folder :func:`biaslib.data.data_dir` finds)."""
    return data_dir() / "results"


def save_results(frame: pd.DataFrame, name: str, provenance: Mapping[str, object]) -> Path:
    """Write ``<name>.csv`` and its provenance ``<name>.json``; return the CSV path."""
    folder = results_dir()
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / f"{name}.csv"
    frame.to_csv(csv, index=False, float_format="%.6g")
    record = {
        "table": name,
        "biaslib_version": biaslib.__version__,
        "python": platform.python_version(),
        **provenance,
    }
    (folder / f"{name}.json").write_text(json.dumps(record, indent=2, default=str) + "\n",
                                         encoding="utf-8")
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
