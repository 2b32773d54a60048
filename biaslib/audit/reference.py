"""The audit's headline effect sizes on the book's offline models, to place a model beside them.

:func:`offline_reference` reads the stored table ``data/results/audit_offline.csv`` (in an
installed wheel ``biaslib/_data/results/audit_offline.csv``): one row per offline model,
test and method, the effect size that :func:`biaslib.audit.run.run_audit` reports as the
headline number (``part == "summary"``, default tests and methods, the ``"small"`` grid),
for the rows that ran. The models are every distinct offline model of
:func:`biaslib.audit.inputs.offline_names`: GloVe 6B 50d and Bolukbasi et al.'s Google News
word2vec subset (static), all-MiniLM-L6-v2 (encoder), SPLADE-tiny-MLM (masked LM) and
SmolLM2-135M-Instruct (decoder).

The table is computed once by the audit itself, in a checkout of the book::

    python scripts/compute_results.py audit_offline

(:mod:`biasbook.audit` declares it; its provenance, ``audit_offline.json``, records the
versions, each model's weights fingerprint, the date and the seconds per model), and the
test suite recomputes a slice of it (``tests/test_audit_reference.py``). Effect sizes are
stored at full precision; p-values, intervals and Holm marks are not stored: a report
compares effect sizes.

These are small offline stand-in models that ship as wheels so that the book runs without
a network, **not the papers' models** (GloVe 840B, BERT, GPT-2…): their numbers say what
the audit measures on models of each kind, a scale beside the papers' published numbers
(:func:`biaslib.audit.published.published_reference`), not a replication of them.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from pathlib import Path

import pandas as pd

from biaslib.stimuli.data import data_dir

__all__ = ["REFERENCE_COLUMNS", "REFERENCE_TABLE", "offline_reference"]

logger = logging.getLogger(__name__)

#: The stored table's name: ``data/results/<name>.csv`` with its provenance ``<name>.json``.
REFERENCE_TABLE = "audit_offline"
#: The columns :func:`offline_reference` returns, in order: the display name of the model as
#: the audit writes it, its kind (:data:`biaslib.audit.inputs.KINDS`), the test id, the
#: method (``WEAT``, ``s-SEAT``, ``w-SEAT``, ``CEAT``, ``ML-EAT``, ``LPBS``, ``SAME``), the
#: headline stimulus test, the effect size and the sample size the method reports.
REFERENCE_COLUMNS = ("model", "kind", "test", "method", "stimuli", "effect_size", "n")

_HOW = ("recompute it with `python scripts/compute_results.py audit_offline` in a checkout "
        "of the book")


def _empty() -> pd.DataFrame:
    dtypes = {"effect_size": "float64", "n": "int64"}
    return pd.DataFrame({c: pd.Series(dtype=dtypes.get(c, object)) for c in REFERENCE_COLUMNS})


def _check_checksum(path: Path, data: bytes) -> None:
    """Refuse a CSV whose bytes are not those its provenance records (cut short, changed)."""
    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return  # nothing to check against; the columns are still checked
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"the provenance {meta_path} of {path.name} is not valid JSON "
                         f"({err}); {_HOW}") from None
    expected = meta.get("csv_sha256") if isinstance(meta, dict) else None
    if expected and hashlib.sha256(data).hexdigest() != expected:
        raise ValueError(f"the stored table {path} is damaged: its bytes do not have the "
                         f"SHA-256 that {meta_path.name} records; {_HOW}")


def offline_reference() -> pd.DataFrame:
    """The audit's headline effect sizes on the book's offline models.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`REFERENCE_COLUMNS` (``model, kind, test, method, stimuli,
        effect_size, n``), one row per model, test and method that ran (a test that lost
        too many words on a model has no row), at most one per (model, test, method).
        Empty, with those columns, if the stored table is absent (a warning is logged):
        the audit runs without it, its report then places the model among the papers'
        numbers only.

    Raises
    ------
    ValueError
        If ``audit_offline.csv`` lacks one of the columns, its bytes do not match the
        checksum its provenance records, or a (model, test, method) occurs twice; the
        message names the file.

    Notes
    -----
    The effect size is each method's own (Caliskan et al. 2017's d for WEAT, SEAT and
    ML-EAT's level 1; Guo & Caliskan 2021's combined effect size for CEAT; Kurita et al.
    2019's d for LPBS; Schröder et al.'s SAME score, which is never negative), so compare a
    model's number only with numbers of the same method.
    """
    path = data_dir() / "results" / f"{REFERENCE_TABLE}.csv"
    if not path.is_file():
        logger.warning("the offline models' reference table %s is missing (%s): no offline "
                       "model is shown beside the audited one", path, _HOW)
        return _empty()
    data = path.read_bytes()
    _check_checksum(path, data)
    frame = pd.read_csv(io.BytesIO(data), keep_default_na=False, na_values=[""])
    missing = [c for c in REFERENCE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"the stored table {path} lacks the columns {missing} (it has "
                         f"{list(frame.columns)}); {_HOW}")
    frame = frame.loc[:, list(REFERENCE_COLUMNS)].reset_index(drop=True)
    frame["effect_size"] = pd.to_numeric(frame["effect_size"], errors="raise")
    twice = frame.duplicated(["model", "test", "method"], keep=False)
    if twice.any():
        repeated = frame.loc[twice, ["model", "test", "method"]].to_dict("records")[:3]
        raise ValueError(f"the stored table {path} holds a (model, test, method) more than "
                         f"once: {repeated}; {_HOW}")
    frame.attrs["source"] = str(path)
    return frame
