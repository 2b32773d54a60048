"""Run an audit: plan the tasks, compute what is not stored yet, assemble, report.

:func:`run_audit` is what ``biaslib audit`` calls. The work is grouped by model, so
that each model loads once: :func:`run_model_tasks` loads one model and runs its
tasks. In-process (the default) every finished task is stored at once under
``OUT/tasks/``; with ``scheduler`` the groups are sent to a Dask distributed
cluster (:mod:`biaslib.audit.distributed`), and each task is shipped back and stored
here as soon as it finishes on its worker. Either
way a task already stored is read back, not recomputed: an interrupted audit
resumes, and the embedding cache (:mod:`biaslib.embeddings.cache`) spares the
vectors of a task cut off half-way.

What an audit writes in ``OUT``:

``results.parquet`` and ``results.csv``
    One row per number (:data:`~biaslib.audit.parts.RESULT_COLUMNS`), headline
    numbers (``part == "summary"``, with ``holm``), specification-curve rows
    (``part == "grid"``) and the static-vector metrics on each test's words
    (``part == "metric"``, :mod:`biaslib.evaluate.metrics`).
``timings.csv``
    Seconds per model load and per task, and whether the task was computed now
    or read back.
``provenance.json``
    Package versions, every model's fingerprint, the corpus checksum, the
    seeds, the grid, tests and methods, start and end, the command.
``report.html``
    The self-contained report (:mod:`biaslib.audit.report`).

The five files are one set: they are written to temporary files first and renamed onto
their names together (:func:`biaslib.files.replacing`), so an interruption leaves the
previous run's set whole, never a new table beside an old report. Temporary files that
a killed run left in ``OUT`` and ``OUT/tasks`` are removed when the next run starts,
unless another audit is running on ``OUT`` at that moment (a lock file,
``OUT/.biaslib-audit.lock``, tells).

What the audit decided on the user's behalf — a test, method or model given twice and
run once, a method one model of several cannot run — is logged as a warning and listed
under ``"notes"`` in ``provenance.json``.

``OUT`` is written only if it is new, empty, or holds the same audit (:func:`_check_out`):
the same models (by content: their fingerprints, however their paths were typed) with
the same tests, methods, metrics, grid, corpus (checksum, cap and sample seed) and Holm
level, in whatever order; rerunning it resumes, computing only what is not stored.
A folder with ``tasks/`` but no ``provenance.json`` is an audit killed before its first
output set: it resumes too. Anything else is refused with an
:class:`OutputFolderError` that says what the folder holds and what differs, unless
``replace=True`` (``--replace``): a subset or a superset of the tests is another audit
too, since its output set would drop or add rows of the report already there. With
``replace``, the output set is replaced and the stored tasks are kept and reused where
their keys match (a key hashes everything that changes a task's rows,
:meth:`~biaslib.audit.plan.Task.key`, so reuse is safe); in a folder that holds files of
no audit, the audit's files are written beside them and those are left alone.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import platform
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from biaslib.audit.inputs import AuditInput, resolve_inputs
from biaslib.audit.parts import RESULT_COLUMNS, conform_rows, needed_words
from biaslib.audit.plan import (
    ALPHA,
    CONTEXT_CAP,
    GRIDS,
    SEED,
    Grid,
    Task,
    plan_tasks,
    unique_names,
)
from biaslib.audit.work import run_model_tasks
from biaslib.evaluate.metrics import METRIC_SEED
from biaslib.files import replacing, write_atomically
from biaslib.stats.multiple_testing import holm_bonferroni

__all__ = ["AuditPlan", "AuditResult", "OutputFolderError", "plan_audit", "run_audit"]

logger = logging.getLogger(__name__)

class OutputFolderError(ValueError):
    """``out`` holds another audit, or files of no audit: refused unless ``replace=True``."""


@dataclass(frozen=True)
class AuditResult:
    """What :func:`run_audit` returns (and wrote to ``out``).

    Attributes
    ----------
    results
        Every number (:data:`~biaslib.audit.parts.RESULT_COLUMNS`).
    timings
        ``model, part, test, seconds, status`` (``"computed"`` or ``"reused"``).
    provenance
        What produced the numbers (written to ``provenance.json``).
    out
        The folder written.
    """

    results: pd.DataFrame
    timings: pd.DataFrame
    provenance: dict[str, object]
    out: Path

    @property
    def summary(self) -> pd.DataFrame:
        """The headline numbers: one row per model × test × method (and word set)."""
        return self.results[self.results["part"] == "summary"].reset_index(drop=True)

    @property
    def metrics(self) -> pd.DataFrame:
        """The static-vector metrics: one row per model × test × metric (``part == "metric"``)."""
        return self.results[self.results["part"] == "metric"].reset_index(drop=True)

    @property
    def computed(self) -> int:
        """How many tasks were computed in this run."""
        return self._count("computed")

    @property
    def reused(self) -> int:
        """How many tasks were read back from an earlier run's stored rows."""
        return self._count("reused")

    def _count(self, status: str) -> int:
        tasks = self.timings[self.timings["part"] != "load model"]
        return int((tasks["status"] == status).sum())


# ----------------------------------------------------------------------- storage


#: The output set of an audit, in the order it is written.
_OUTPUTS = ("results.parquet", "results.csv", "timings.csv", "provenance.json", "report.html")
#: The lock file that tells a run whether another audit is running on the same ``OUT``.
_LOCK = ".biaslib-audit.lock"
#: A temporary file of :func:`biaslib.files.temporary_beside`: ``.NAME.<8 random>.tmp…``.
_TEMPORARY = re.compile(r"^\..*\.[a-z0-9_]{8}\.tmp(\..*)?$")
#: Where no lock can be taken, temporaries older than this are taken for a killed run's.
_STALE_SECONDS = 24 * 3600


class _TaskStore:
    """Each task's rows in ``OUT/tasks/<model>/<key>.parquet``, written whole or not at all.

    ``<model>`` is a short digest of the model's fingerprint (what the weights are), not of
    how it was named: the same file typed by a relative or an absolute path, or a model
    shown under another display name, finds its stored tasks.
    """

    def __init__(self, out: Path) -> None:
        self.root = out / "tasks"

    def path(self, task: Task) -> Path:
        """Where ``task``'s rows are stored."""
        model = hashlib.sha256(task.model.fingerprint.encode()).hexdigest()[:16]
        return self.root / model / f"{task.key()}.parquet"

    def load(self, task: Task) -> tuple[pd.DataFrame, float] | None:
        """The stored rows and seconds of ``task``, or ``None`` if it has not finished."""
        path = self.path(task)
        if not path.is_file():
            return None
        try:
            frame = pd.read_parquet(path)
            seconds = float(frame.attrs.pop("seconds"))
        except (OSError, ValueError, KeyError) as err:  # not a file this store wrote whole
            logger.warning("stored task %s cannot be read (%s): computing it again",
                           path.name, err)
            return None
        return conform_rows(frame), seconds  # a column added since is filled, not missing

    def save(self, task: Task, frame: pd.DataFrame, seconds: float) -> None:
        """Store ``task``'s rows (atomically: an interruption leaves no half file)."""
        path = self.path(task)
        path.parent.mkdir(parents=True, exist_ok=True)
        stored = frame.copy()
        stored.attrs = {"seconds": seconds}  # kept in the Parquet file's metadata
        write_atomically(path, lambda tmp: stored.to_parquet(tmp, index=False))


def _stray_temporaries(out: Path, older_than: float | None = None) -> list[Path]:
    """The temporary files in ``out`` and ``out/tasks/**`` (older than ``older_than`` s)."""
    found = [p for p in out.glob(".*") if _TEMPORARY.match(p.name)]
    found += [p for p in (out / "tasks").rglob(".*") if _TEMPORARY.match(p.name)]
    if older_than is not None:
        now = time.time()
        found = [p for p in found if now - p.stat().st_mtime > older_than]
    return [p for p in found if p.is_file()]


def _remove_stray_temporaries(out: Path, older_than: float | None = None) -> None:
    """Remove what a killed run left half-written; a finished file is never a temporary."""
    stray = _stray_temporaries(out, older_than)
    for path in stray:
        path.unlink(missing_ok=True)
    if stray:
        logger.warning("removed %d temporary file(s) an interrupted audit left in %s: %s",
                       len(stray), out, ", ".join(sorted(p.name for p in stray)[:5])
                       + (" …" if len(stray) > 5 else ""))


@contextlib.contextmanager
def _claim(out: Path) -> Iterator[None]:
    """Hold ``out`` for this run (a shared lock), cleaning a killed run's temporaries first.

    Several audits may run on one ``OUT`` at a time (each file is written whole), so a
    temporary file may be another run's file in the making: the temporaries are removed
    only when an exclusive lock shows that no other audit holds ``OUT``; the run then
    holds a shared lock until it ends. Where file locks are not available (Windows, some
    network file systems) only temporaries a day old are removed.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover  (Windows)
        _remove_stray_temporaries(out, older_than=_STALE_SECONDS)
        yield
        return
    with open(out / _LOCK, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            alone: bool | None = True
        except OSError as err:
            alone = False if err.errno in (errno.EAGAIN, errno.EACCES) else None
        if alone is None:  # no locks on this file system
            _remove_stray_temporaries(out, older_than=_STALE_SECONDS)
        elif alone:
            _remove_stray_temporaries(out)
        elif _stray_temporaries(out):
            logger.info("another audit is running on %s: its temporary files are left alone",
                        out)
        if alone is not None:
            fcntl.flock(handle, fcntl.LOCK_SH)  # waits only while another run cleans
        yield


# ----------------------------------------------------------------------- running


def _holm(results: pd.DataFrame, alpha: float) -> pd.Series:
    r"""Holm–Bonferroni marks per model × method (:func:`~biaslib.stats.holm_bonferroni`).

    One family per model and method (``"WEAT"``, ``"s-SEAT"``, ``"CEAT"``, ``"ML-EAT"``…:
    the method's headline p-value on each test), so that one-sided p-values (WEAT, SEAT:
    ``tail`` ``"greater"``) are never corrected together with two-sided ones (CEAT,
    ML-EAT's level 1, LPBS), nor a method's many near-zero p-values (CEAT's normal
    p-values over thousands of samples) allowed to loosen another's thresholds. Holm
    (1979): with a family's :math:`m` p-values sorted, :math:`p_{(k)}` is rejected when
    :math:`p_{(j)} \le \alpha / (m - j + 1)` for every :math:`j \le k`.

    The mark reads the rejection together with the sign of the effect size, positive
    being the tested, stereotype-congruent direction for every method:

    ``"*"``
        rejected at family-wise level ``alpha`` with an effect size > 0: evidence of the
        tested association;
    ``"reversed"``
        rejected with an effect size < 0: significant in the opposite direction (possible
        for a two-sided p-value), never a star;
    ``""``
        not rejected (or rejected with an effect size of exactly 0 or NaN: no direction);
    ``"n/a"``
        a headline or metric row without a p-value (SAME, the metrics of
        ``part == "metric"``, a test not run).

    Grid rows get ``""`` (a specification curve is not a family of independent tests).
    """
    holm = pd.Series("", index=results.index, dtype=object)
    summary = results["part"] == "summary"
    holm[(summary | (results["part"] == "metric")) & results["p_value"].isna()] = "n/a"
    tested = results[summary & results["p_value"].notna()]
    for _, rows in tested.groupby(["model", "method"], sort=False):
        rejected = holm_bonferroni(rows["p_value"].to_numpy(), alpha)[0]
        effect = rows["effect_size"].to_numpy(dtype=float)
        holm[rows.index] = np.select([rejected & (effect > 0), rejected & (effect < 0)],
                                     ["*", "reversed"], "")
    return holm


def _versions() -> dict[str, str]:
    from importlib import metadata

    from biaslib import __version__

    versions = {"biaslib": __version__, "python": platform.python_version()}
    for dist in ("numpy", "scipy", "pandas", "torch", "transformers"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    return versions


def _corpus_options(corpus: str | os.PathLike[str] | None, cap: int, seed: int
                    ) -> dict[str, object]:
    """The corpus options of CEAT's tasks; the seed only samples a corpus's contexts."""
    if corpus is None:
        return {"corpus": None}
    from biaslib.downloads import sha256_of
    from biaslib.stimuli.corpus import extract_path

    path = extract_path(corpus)
    return {"corpus": str(path), "corpus_file": path.name, "corpus_sha256": sha256_of(path),
            "corpus_cap": cap, "seed": seed}


def run_audit(
    models: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    tests: Iterable[str] | None = None,
    methods: Iterable[str] | None = None,
    metrics: Iterable[str] | None = None,
    grid: Grid | str = "small",
    device: str | None = None,
    corpus: str | os.PathLike[str] | None = None,
    corpus_cap: int = CONTEXT_CAP,
    seed: int = SEED,
    scheduler: str | object | None = None,
    alpha: float = ALPHA,
    report: bool = True,
    progress: bool = True,
    command: str | None = None,
    replace: bool = False,
) -> AuditResult:
    """Run the book's methods on one or more models and write results and a report to ``out``.

    Parameters
    ----------
    models
        One or more models (:func:`~biaslib.audit.inputs.resolve_input`): a Hugging
        Face id or folder (encoder, decoder or masked LM), an offline model name, or
        a static vector file (word2vec binary or text, GloVe text, fastText ``.vec``).
        A model given twice (the same weights) is audited once, with a note.
    out
        The folder to write: new, empty, or holding an earlier run of the same audit,
        which resumes (its stored tasks are reused). A folder that holds another audit
        (other models, tests, methods, metrics, grid, corpus or ``alpha``) or files of
        no audit is refused unless ``replace``.
    tests
        Short test ids (default: all, :func:`~biaslib.audit.plan.default_tests`); a bare
        string is one test, and a test named twice runs once, with a note
        (:func:`~biaslib.audit.plan.unique_names`; the same for methods and metrics).
    methods
        Methods to run (default: every method the model supports,
        :data:`~biaslib.audit.plan.METHODS`). A method named that a model cannot run is
        an error when the models are all of one kind; with models of different kinds
        each runs what it can and a note says what was left out
        (:func:`~biaslib.audit.plan.plan_tasks`).
    metrics
        The static-vector metrics the method ``"metrics"`` runs on each test's words
        (names of :data:`biaslib.evaluate.metrics.METRICS`; default: every one but SAME,
        which is a method of its own, :func:`~biaslib.audit.plan.default_metrics`).
    grid
        The specification grid: ``"small"`` or ``"full"``
        (:data:`~biaslib.audit.plan.GRIDS`) or a :class:`~biaslib.audit.plan.Grid`.
    device
        Torch device of the transformers (default: CUDA when available, else CPU).
    corpus
        A corpus extract (folder or file, :func:`biaslib.stimuli.corpus.extract_path`):
        CEAT runs on its contexts too.
    corpus_cap, seed
        Most contexts per word taken from the corpus, and the seed of that sample
        (defaults :data:`~biaslib.audit.plan.CONTEXT_CAP`, :data:`~biaslib.audit.plan.SEED`).
    scheduler
        ``None``: run here, one model after the other. ``"processes"``: a local Dask
        cluster of worker processes, one model per worker at a time. Otherwise the
        address of a Dask scheduler (``"tcp://host:8786"``) or a
        :class:`distributed.Client` (:mod:`biaslib.audit.distributed`).
    alpha
        Family-wise level of the Holm–Bonferroni mark (one family per model and method,
        over its headline p-values; default :data:`~biaslib.audit.plan.ALPHA`).
    report
        Write ``report.html``.
    progress
        Show progress bars.
    command
        The command line, recorded in the provenance (the console command passes it).
    replace
        Write to an ``out`` that holds another audit (its output set is replaced; its
        stored tasks are reused where their keys match) or files of no audit (left
        beside the audit's files).

    Returns
    -------
    AuditResult

    Raises
    ------
    biaslib.errors.UnknownNameError
        For an unknown test, method, metric or grid.
    ValueError
        If a method named cannot run on the model (see ``methods``).
    FileNotFoundError
        If a vector file or the corpus does not exist.
    OutputFolderError
        If ``out`` holds another audit or files of no audit, and not ``replace``.
    """
    try:
        import pyarrow  # noqa: F401  (parquet)
    except ImportError as err:
        raise ImportError("an audit writes Parquet files: pip install pyarrow") from err
    started = datetime.now(timezone.utc)
    plan = plan_audit(models, out, tests=tests, methods=methods, metrics=metrics, grid=grid,
                      corpus=corpus, corpus_cap=corpus_cap, seed=seed, alpha=alpha)
    plan.check_out(replace)
    # Only now: a bad model name or option leaves no empty folder behind.
    plan.out.mkdir(parents=True, exist_ok=True)
    with _claim(plan.out):
        return _run(plan.inputs, plan.tasks, plan.out, notes=plan.notes, record=plan.record,
                    device=device, scheduler=scheduler, report=report, progress=progress,
                    command=command, started=started)


@dataclass(frozen=True)
class AuditPlan:
    """An audit resolved and planned, before anything is computed or written.

    What :func:`run_audit` runs and ``biaslib audit --dry-run`` prints: the same object,
    so the plan shown is the plan run.

    Attributes
    ----------
    inputs
        The models, each once (:func:`~biaslib.audit.inputs.resolve_inputs`).
    tasks
        One per model × test × method (:func:`~biaslib.audit.plan.plan_tasks`).
    out
        The output folder.
    record
        What the audit is, as ``provenance.json`` records it and an existing ``out`` is
        compared with.
    notes
        What planning decided on the user's behalf (repeats dropped, methods left out).
    """

    inputs: tuple[AuditInput, ...]
    tasks: tuple[Task, ...]
    out: Path
    record: dict[str, object]
    notes: list[str]

    def check_out(self, replace: bool = False) -> None:
        """Refuse an ``out`` that holds another audit or files of no audit, unless ``replace``.

        Raises
        ------
        OutputFolderError
            What ``out`` holds, what differs, and what to do.
        """
        _check_out(self.out, self.record, replace)

    def stored(self) -> frozenset[str]:
        """The keys of the tasks ``out`` already holds (reused, not computed again)."""
        if not self.out.is_dir():
            return frozenset()
        store = _TaskStore(self.out)
        return frozenset(t.key() for t in self.tasks if store.path(t).is_file())


def plan_audit(
    models: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    tests: Iterable[str] | None = None,
    methods: Iterable[str] | None = None,
    metrics: Iterable[str] | None = None,
    grid: Grid | str = "small",
    corpus: str | os.PathLike[str] | None = None,
    corpus_cap: int = CONTEXT_CAP,
    seed: int = SEED,
    alpha: float = ALPHA,
) -> AuditPlan:
    """Resolve the models and plan the tasks of an audit, reading but never writing ``out``.

    The arguments are :func:`run_audit`'s. Names are checked here (an unknown model,
    test, method, metric or grid raises before anything is written).
    """
    sources = [models] if isinstance(models, (str, os.PathLike)) else list(models)
    if not sources:
        raise ValueError("no model to audit")
    notes: list[str] = []
    inputs = resolve_inputs(sources, notes=notes)  # repeats dropped, with a note
    options = _corpus_options(corpus, corpus_cap, seed)
    if metrics is not None:
        options["metrics"] = unique_names(metrics, "metrics", notes)
    tasks = plan_tasks(inputs, tests, methods, grid, options, notes=notes)
    record = _record(inputs, tasks, grid if isinstance(grid, Grid) else GRIDS[grid],
                     options, seed, alpha)
    return AuditPlan(tuple(inputs), tuple(tasks), Path(out), record, notes)


def _record(inputs: Sequence[AuditInput], tasks: Sequence[Task], grid: Grid,
            options: Mapping[str, object], seed: int, alpha: float) -> dict[str, object]:
    """What the audit is, as its provenance records it: models, tests, options, seeds.

    Written to ``provenance.json`` and compared with the one an ``out`` folder holds
    (:func:`_identity`), so that what is compared is what was recorded.
    """
    return {
        "models": [{"input": m.label, "kind": m.kind, "name": m.name,
                    "fingerprint": m.fingerprint} for m in inputs],
        "tests": list(dict.fromkeys(t.test for t in tasks)),
        "methods": sorted({t.method for t in tasks}),
        "grid": asdict(grid),
        "corpus": None if options.get("corpus") is None else {
            "file": Path(str(options["corpus"])).name, "sha256": options["corpus_sha256"],
            "cap": options["corpus_cap"]},
        "metrics": list(_metric_names(tasks)),
        "seeds": {"corpus sample": seed, **_method_seeds(grid),
                  "metrics (RNSB, Gonen & Goldberg)": METRIC_SEED},
        "holm": {"alpha": alpha,
                 "family": "each model × method's headline p-values: one family per method, "
                           "so one-sided and two-sided p-values are never corrected together",
                 "marks": "'*' rejected with effect size > 0 (the tested, stereotype-congruent "
                          "direction); 'reversed' rejected with effect size < 0; '' not "
                          "rejected; 'n/a' no p-value"},
    }


# ----------------------------------------------------------------------- the output folder


#: The fields of :func:`_identity`, as the user names them: what differs is said so.
_FIELDS = {"models": "models", "tests": "tests (--tests)", "methods": "methods (--methods)",
           "metrics": "metrics (--metrics)", "grid": "grid (--grid)",
           "corpus": "corpus (--corpus, --corpus-cap, --seed)", "alpha": "alpha (--alpha)"}


def _identity(record: Mapping[str, object]) -> dict[str, object]:
    """What makes two audits the same, from a provenance (stored or :func:`_record`'s).

    The models by fingerprint, the tests, methods and metrics as sets (an order changes
    only how the rows are listed), the grid, the corpus by checksum with its cap and
    sample seed, the Holm level. Not the device, scheduler, report or versions: a run
    that differs only in those is the same audit, resumed. A field an older provenance
    lacks is ``None``, which differs from any value (refused: ``--replace`` is safe).
    """
    models, corpus = record.get("models"), record.get("corpus")
    seeds, holm = record.get("seeds"), record.get("holm")
    identity = {
        "models": sorted(str(m.get("fingerprint")) for m in models)
        if isinstance(models, list) and all(isinstance(m, dict) for m in models) else None,
        "tests": _sorted(record.get("tests")), "methods": _sorted(record.get("methods")),
        "metrics": _sorted(record.get("metrics")), "grid": record.get("grid"),
        "corpus": None if corpus is None else (
            {"sha256": corpus.get("sha256"), "cap": corpus.get("cap"),
             "seed": seeds.get("corpus sample") if isinstance(seeds, dict) else None}
            if isinstance(corpus, dict) else "unreadable"),
        "alpha": holm.get("alpha") if isinstance(holm, dict) else None,
    }
    # as JSON reads it back (a grid's tuples are lists), to compare with a stored one
    return json.loads(json.dumps(identity, default=str))


def _sorted(values: object) -> list[str] | None:
    return sorted(map(str, values)) if isinstance(values, list) else None


def _describe(field: str, record: Mapping[str, object]) -> str:
    """One field of an audit, as the refusal shows it (models by name, the rest in words)."""
    value = record.get(field)
    if field == "models" and isinstance(value, list):
        return " ".join(str(m.get("name") or m.get("input")) for m in value
                        if isinstance(m, dict)) or "none"
    if field == "grid" and isinstance(value, dict):
        return str(value.get("name"))
    if field == "corpus":
        if not isinstance(value, dict):
            return "none" if value is None else str(value)
        seeds = record.get("seeds")
        seed = seeds.get("corpus sample") if isinstance(seeds, dict) else None
        return (f"{value.get('file')} (SHA-256 {str(value.get('sha256'))[:12]}…, "
                f"cap {value.get('cap')}, seed {seed})")
    if field == "alpha":
        holm = record.get("holm")
        return str(holm.get("alpha") if isinstance(holm, dict) else None)
    if isinstance(value, list):
        return " ".join(map(str, value)) or "none"
    return "not recorded" if value is None else str(value)


def _differences(stored: Mapping[str, object], record: Mapping[str, object]) -> list[str]:
    """What differs between the audit stored in a folder and this one, in words."""
    there, here = _identity(stored), _identity(record)
    lines = []
    for field, label in _FIELDS.items():
        if there[field] == here[field]:
            continue
        old, new = _describe(field, stored), _describe(field, record)
        if old == new:  # same names, other content (weights, grid choices)
            new += " with other " + ("weights" if field == "models" else "choices")
        lines.append(f"{label}: {old} there, {new} here")
    return lines


def _check_out(out: Path, record: Mapping[str, object], replace: bool) -> None:
    """Refuse an ``out`` that holds another audit or files of no audit, unless ``replace``.

    See the module's docstring for the rule. Called before anything is written or
    computed, so a refused run leaves ``out`` as it was.

    Raises
    ------
    OutputFolderError
        What ``out`` holds, what differs, and what to do (``--replace`` or another
        ``--out``).
    """
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputFolderError(f"--out {out} is a file, not a folder: choose a new folder "
                                "or an earlier audit's")
    todo = ("pass --replace (run_audit(replace=True)) to replace its results and report, "
            "reusing its stored tasks where they match, or choose another --out")
    provenance = out / "provenance.json"
    if provenance.is_file():
        try:
            stored = json.loads(provenance.read_text(encoding="utf-8"))
            if not isinstance(stored, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as err:
            what = f"an audit whose provenance.json cannot be read ({_one_line(err)})"
            differs = "it cannot be compared with this one"
        else:
            found = _differences(stored, record)
            if not found:
                return  # the same audit: resume
            what = f"another audit, of {_describe('models', stored)}"
            differs = "; ".join(found)
        if replace:
            logger.warning("replacing %s in %s (%s); its stored tasks are reused where "
                           "they match", what, out, differs)
            return
        raise OutputFolderError(f"--out {out} holds {what}: {differs}. To write this audit "
                                f"there, {todo}")
    if (out / "tasks").is_dir():
        return  # an audit killed before its first output set: resume
    foreign = sorted(p.name for p in out.iterdir()
                     if p.name != _LOCK and not _TEMPORARY.match(p.name))
    if not foreign:
        return
    shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3
                                      else "")
    if replace:
        logger.warning("writing the audit into %s beside files of no audit (%s), which are "
                       "left as they are", out, shown)
        return
    raise OutputFolderError(
        f"--out {out} is not empty and holds no audit ({shown}): an audit writes "
        f"{', '.join(_OUTPUTS)} and tasks/ there, replacing files of those names. "
        "Choose a new or empty folder for --out, or pass --replace (run_audit(replace=True)) "
        "to write there anyway")


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _run(inputs: Sequence[AuditInput], tasks: Sequence[Task], out: Path, *,
         notes: list[str], record: Mapping[str, object], device: str | None,
         scheduler: object, report: bool, progress: bool, command: str | None,
         started: datetime) -> AuditResult:
    """Compute what is not stored yet, assemble the results and write the output set."""
    words = needed_words(list(dict.fromkeys(t.test for t in tasks)))
    store = _TaskStore(out)

    outputs: dict[str, tuple[pd.DataFrame, float, str]] = {}
    loads: dict[AuditInput, float] = {}
    todo: dict[AuditInput, list[Task]] = {}
    for task in tasks:
        stored = store.load(task)
        if stored is None:
            todo.setdefault(task.model, []).append(task)
        else:
            outputs[task.key()] = (*stored, "reused")
    logger.info("audit: %d tasks, %d stored already", len(tasks), len(outputs))
    if todo and scheduler is None:
        for model, group in todo.items():
            loads[model], done = run_model_tasks(model, group, words=words, device=device,
                                                 progress=progress, save=store.save)
            outputs.update({key: (frame, s, "computed") for key, frame, s in done})
    elif todo:
        from biaslib.audit.distributed import run_distributed

        by_key = {t.key(): t for t in tasks}

        def save(key: str, frame: pd.DataFrame, seconds: float) -> None:
            store.save(by_key[key], frame, seconds)  # as it arrives, while the rest runs
            outputs[key] = (frame, seconds, "computed")

        for model, load_seconds, _ in run_distributed(
                todo, scheduler, words=words, device=device, progress=progress, save=save):
            loads[model] = load_seconds

    # Rows read back carry the names of the run that stored them: show this run's.
    results = pd.concat([outputs[t.key()][0].assign(model=t.model.name,
                                                    model_input=t.model.label)
                         for t in tasks], ignore_index=True)
    results = results[list(RESULT_COLUMNS)]
    alpha = float(record["holm"]["alpha"])  # type: ignore[index]
    results["holm"] = _holm(results, alpha).astype(str)
    timings = pd.DataFrame(
        [{"model": m.name, "part": "load model", "test": "", "seconds": s,
          "status": "computed"} for m, s in loads.items()]
        + [{"model": t.model.name, "part": t.method, "test": t.test,
            "seconds": outputs[t.key()][1], "status": outputs[t.key()][2]} for t in tasks])
    provenance: dict[str, object] = {
        "what": "biaslib audit: the book's bias tests on the models below",
        "versions": _versions(),
        **record,
        "device": device or "auto", "scheduler": _scheduler_text(scheduler),
        "tasks": {"total": len(tasks),
                  "computed": sum(o[2] == "computed" for o in outputs.values()),
                  "reused": sum(o[2] == "reused" for o in outputs.values())},
        "notes": list(notes),
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": command or "biaslib.run_audit(...)",
    }
    _write(out, results, timings, provenance, report)
    return AuditResult(results, timings, provenance, out)


def _metric_names(tasks: Sequence[Task]) -> tuple[str, ...]:
    """The metrics the audit's ``metrics`` tasks ran (none if that method did not run)."""
    for task in tasks:
        if task.method == "metrics":
            return tuple(task.options["metrics"])  # type: ignore[call-overload]
    return ()


def _method_seeds(grid: Grid) -> dict[str, object]:
    """The seeds of the methods' resampling, read from the conventions the parts run."""
    from biaslib.methods.ceat import CeatConvention
    from biaslib.methods.lpbs import LPBS_MIND_YOUR_BIAS
    from biaslib.methods.mleat import MLEAT_BIASLIB
    from biaslib.stats.conventions import BIASLIB

    return {"permutations (WEAT, SEAT)": BIASLIB.resampling.seed,
            "permutations (ML-EAT)": MLEAT_BIASLIB.resampling.seed,
            "permutations (LPBS)": LPBS_MIND_YOUR_BIAS.resampling.seed,
            "CEAT resampling": {c: CeatConvention.of(c).seed for c in grid.ceat}}


def _scheduler_text(scheduler: object) -> str:
    if scheduler is None:
        return "in-process"
    return scheduler if isinstance(scheduler, str) else type(scheduler).__name__


def _write(out: Path, results: pd.DataFrame, timings: pd.DataFrame,
           provenance: Mapping[str, object], report: bool) -> None:
    """Replace the output set as a whole (:func:`biaslib.files.replacing`).

    Every file is written to a temporary beside it first, the report rendered into its
    own; they are renamed onto their names only once all are written. An error or an
    interruption part-way leaves the previous run's set whole. Without a report, a
    previous run's ``report.html`` would describe other numbers than the files beside
    it: it is removed.
    """
    names = _OUTPUTS if report else _OUTPUTS[:-1]
    with replacing(*(out / name for name in names)) as temporary:
        files = dict(zip(names, temporary, strict=True))
        results.to_parquet(files["results.parquet"], index=False)
        results.to_csv(files["results.csv"], index=False)
        timings.to_csv(files["timings.csv"], index=False)
        files["provenance.json"].write_text(
            json.dumps(provenance, indent=2, default=str) + "\n", encoding="utf-8")
        if report:
            from biaslib.audit.report import write_report

            write_report(files["report.html"], results, timings, provenance)
    stale = out / "report.html"
    if not report and stale.is_file():
        stale.unlink()
        logger.warning("removed %s of an earlier run: without a report it would describe "
                       "other numbers than the results beside it", stale)
