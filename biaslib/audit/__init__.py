"""Audit a model: the book's battery on any model, as tidy results and a report.

``biaslib audit MODEL --out DIR`` (:mod:`biaslib.audit.cli`) and :func:`run_audit` run
every method of the book that a model supports on every test, with a specification
curve per test, and write tidy results with provenance and a self-contained HTML
report to ``DIR``:

:mod:`~biaslib.audit.inputs`
    What the model is (static vectors, encoder, decoder, masked LM), unloaded.
:mod:`~biaslib.audit.plan`
    The tests, the methods each kind supports, the grids, the tasks.
:mod:`~biaslib.audit.parts`
    Each method on one test, through the chapters' own functions.
:mod:`~biaslib.audit.run`
    Planning, resuming, running (here or on Dask), writing.
:mod:`~biaslib.audit.work`
    One model loaded once and its tasks run (here or on a Dask worker).
:mod:`~biaslib.audit.distributed`
    The fan-out to a Dask cluster.
:mod:`~biaslib.audit.estimate`
    How long an audit takes (``--dry-run``), from the throughput benchmark.
:mod:`~biaslib.audit.published`
    The papers' published numbers for the audit's tests and methods.
:mod:`~biaslib.audit.reference`
    The audit's own numbers on the book's offline models (a stored table).
:mod:`~biaslib.audit.report`
    The HTML report: the answer first, then the details.
"""

from biaslib.audit.run import AuditResult, run_audit

__all__ = ["AuditResult", "run_audit"]
