"""The registry of stored tables and findings: collects what each chapter declares.

Each chapter module that stores tables in ``data/results/`` declares them at its
bottom as ``DECLARED_TABLES`` (:class:`~biasbook.tables.StoredTable` entries,
with the functions that compute them, write their provenance and recompute their
checked slices). This module imports those chapter modules and concatenates their
declarations into :data:`REGISTRY`; it knows nothing of their internals.

``scripts/compute_results.py`` computes tables through :func:`write_table`, the tests
iterate :data:`REGISTRY` and look entries up with :func:`get_table`.

Each chapter module also checks published claims in its ``findings()``
(:class:`~biasbook.findings.Finding` records computed from its stored
tables); :func:`book_findings` collects them, in book order, for the page "What
holds up", and each chapter shows its own at its top. No chapter
imports this module (their lists of tables come from their own declarations), so
there is no import loop. Importing it imports no model code (no torch): a chapter
loads a model only when a table or slice is computed.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from biasbook import (
    agree,
    audit,
    ceat,
    elmo_bug,
    lpbs,
    mleat,
    same,
    seat,
    speccurve,
    synthesis,
    synthesis_tables,
    trust,
    weat_static,
)
from biasbook.findings import Finding, findings_frame
from biasbook.tables import StoredTable
from biaslib.errors import UnknownNameError

__all__ = [
    "FINDINGS",
    "REGISTRY",
    "book_findings",
    "get_table",
    "registered_files",
    "table_names",
    "write_table",
]

#: Every stored table of ``data/results/``, in the order the chapters show them.
REGISTRY: tuple[StoredTable, ...] = (
    *weat_static.DECLARED_TABLES,
    *seat.DECLARED_TABLES,
    *elmo_bug.DECLARED_TABLES,
    *mleat.DECLARED_TABLES,
    *ceat.DECLARED_TABLES,
    *lpbs.DECLARED_TABLES,
    *same.DECLARED_TABLES,
    *synthesis.DECLARED_TABLES,
    *synthesis_tables.DECLARED_TABLES,
    *speccurve.DECLARED_TABLES,
    *audit.DECLARED_TABLES,
    *trust.DECLARED_TABLES,
)

_BY_NAME = {t.name: t for t in REGISTRY}

#: The chapters' findings, in book order: chapter page (``notebooks/<page>``) → the
#: chapter module's ``findings()``.
FINDINGS: dict[str, Callable[[], Sequence[Finding]]] = {
    "weat_static": weat_static.findings,
    "seat": seat.findings,
    "elmo_bug": elmo_bug.findings,
    "mleat": mleat.findings,
    "ceat": ceat.findings,
    "lpbs": lpbs.findings,
    "same": same.findings,
    "synthesis": synthesis.findings,
    "agree": agree.findings,
    "trust": trust.findings,
}


def book_findings() -> pd.DataFrame:
    """Every checked claim of every chapter, in book order: the page "What holds up".

    Returns
    -------
    pandas.DataFrame
        :func:`~biasbook.findings.findings_frame` of each chapter's
        ``findings()``, concatenated, with a first column ``chapter`` (the page
        name, so ``{chapter}.html#{section}`` links to the evidence).
    """
    frames = [findings_frame(list(find()), chapter=page) for page, find in FINDINGS.items()]
    return pd.concat(frames, ignore_index=True)


def get_table(name: str) -> StoredTable:
    """The registry entry of the stored table ``name``.

    Raises
    ------
    biaslib.errors.UnknownNameError
        If no stored table has that name.
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name (a list)
        raise UnknownNameError("stored table", name, tuple(_BY_NAME)) from None


def table_names(chapter: str | None = None, *, script: str | None = None,
                results: bool | None = None) -> tuple[str, ...]:
    """Names of the stored tables, in registry order.

    Parameters
    ----------
    chapter : str, optional
        Only this chapter's tables (``"weat_static"``, ``"seat"``, ``"elmo_bug"``,
        ``"mleat"``, ``"ceat"``, ``"lpbs"``, ``"same"``, ``"synthesis"``, ``"audit"``).
    script : str, optional
        Only tables whose script starts with this (``"scripts/compute_results.py"``).
    results : bool, optional
        Only the tables of test results (``True``: those declared with
        :attr:`StoredTable.results <biasbook.tables.StoredTable.results>`, which start
        with the core columns) or only the others (``False``).

    Returns
    -------
    tuple of str
        The names, in the order of :data:`REGISTRY`.

    Raises
    ------
    biaslib.errors.UnknownNameError
        If no stored table belongs to ``chapter`` or is written by ``script`` (a
        misspelt filter would otherwise give an empty tuple, as if there were none).
    """
    chapters = {t.chapter for t in REGISTRY}
    if chapter is not None and (not isinstance(chapter, str) or chapter not in chapters):
        raise UnknownNameError("chapter", chapter, chapters)
    if script is not None and (not isinstance(script, str)
                               or not any(t.script.startswith(script) for t in REGISTRY)):
        raise UnknownNameError("script", script, {t.script.split()[0] for t in REGISTRY})
    if results is not None and not isinstance(results, bool):
        raise TypeError(f"results must be True, False or None, got {results!r}")
    return tuple(t.name for t in REGISTRY
                 if (chapter is None or t.chapter == chapter)
                 and (script is None or t.script.startswith(script))
                 and (results is None or t.results == results))


def registered_files() -> dict[str, str]:
    """Every file name of ``data/results/`` the registry knows → the table it belongs to.

    Returns
    -------
    dict of str to str
        File name (``seat_may.csv``, ``same_injection_vectors.npz``) → table name.
    """
    return {f: t.name for t in REGISTRY for f in t.files}


def write_table(name: str) -> None:
    """Compute the stored table ``name`` and write it with its provenance.

    Tables with a compute callable are computed and saved with
    :meth:`StoredTable.save <biasbook.tables.StoredTable.save>` (a results table must
    start with the core columns); the SAME chapter's tables are
    written by ``scripts/same_injection.py`` (the whole grid, or ``--smoke``).

    Raises
    ------
    biaslib.errors.UnknownNameError
        If no stored table has that name.
    """
    entry = get_table(name)
    if entry.compute is None or entry.provenance is None:
        _run_script(*entry.script.split())
        return
    entry.save(entry.compute())


def _run_script(script: str, *args: str) -> None:
    """Run a script of the book's checkout that writes tables itself (the SAME grid)."""
    path = Path(__file__).resolve().parents[1] / script
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: the SAME tables are written by "
                                f"{script} in a checkout of the book")
    subprocess.run([sys.executable, str(path), *args], check=True)
