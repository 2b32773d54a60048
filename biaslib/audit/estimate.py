"""A rough guide to how long an audit takes: ``biaslib audit --dry-run`` prints it.

The rule
--------
For each model with a task to compute: the seconds to resolve and load it
(:data:`LOAD_SECONDS`; a vector file's grow with its size, :data:`SECONDS_PER_MEGABYTE`),
plus, for each task not stored in ``OUT`` yet, the seconds its method took on the offline
model of its kind (:data:`SECONDS_PER_TASK`), plus :data:`REUSED_SECONDS` per task read
back. A hub model's or local folder's load and tasks are scaled by its size (below). The
models are added up (one after the other, as an audit without ``--scheduler`` runs them).
With a corpus (``--corpus``) each CEAT task adds :data:`CORPUS_SECONDS_PER_TEST` (scaled,
below). The sum is printed as ``about N minutes``, N rounded up. Written out, for models
``m`` with size factor ``s_m`` and tasks ``t`` of method ``M(t)`` not yet stored::

    seconds = Σ_m [ load(m)·s_m  (only if m has a task to compute)
                    + Σ_t per_task[kind(m)][M(t)]·s_m
                    + REUSED_SECONDS · (stored tasks of m)
                    + [corpus] Σ_{CEAT t} CORPUS_SECONDS_PER_TEST · SEAT(m)·s_m / SEAT(encoder) ]

where a vector file's ``load(m)·s_m`` is ``LOAD_SECONDS["static"]`` plus its megabytes on
disk times :data:`SECONDS_PER_MEGABYTE` (:data:`COMPRESSED_SECONDS_PER_MEGABYTE` for a
``.gz`` or ``.zip``), and a method missing from its kind's row costs the row's largest.

No factor corrects the table: it is what was measured, and the validation below says
how far it is from a real audit.

Where the numbers come from (a rough guide: read them as such)
---------------------------------------------------------------
``benchmarks/bench_audit_throughput.py`` (``benchmarks/results/audit_throughput.json``)
audited each offline model — glove-6b-50d (static), all-MiniLM-L6-v2 (encoder),
SmolLM2-135M-Instruct (decoder), SPLADE-tiny-MLM (masked LM) — on the tests **C1 and
C6**, every method it runs, the small grid, a **cold** embedding cache and no report, on
**2 CPU cores** (Intel Xeon, family 6 model 207; torch 2.13 on CPU, 2 threads) on
**2026-11-29**, on a quiet machine (checked idle before it started; 1-minute load
average 1.11 at the start, 1.1–1.8 during, the benchmark's own two threads included).
:data:`SECONDS_PER_TASK` holds each method's mean over the two tests, as measured.

Validation: the same machine, quiet, audited every default test (small grid, cold
cache, no report) with :func:`~biaslib.audit.run.run_audit`; beside it what this rule
estimates for the same audit (what ``--dry-run`` prints, before rounding):

=====================  =====  ===========  ==========  ===========
model                  tasks  estimate s   measured s  est./meas.
=====================  =====  ===========  ==========  ===========
glove-6b-50d              68        10.7         5.5        1.95
SPLADE-tiny-MLM           84        45.4        40.3        1.13
all-MiniLM-L6-v2          76       114.5        69.2        1.65
SmolLM2-135M-Instruct     76       496.1       264.6        1.88
=====================  =====  ===========  ==========  ===========

(2026-11-29, load average 0.66 at the start; ``validation`` in the results file;
``--validate`` in the benchmark.) Rounded up to minutes, as printed: about 1, 1, 2 and
9 minutes. An earlier quiet run measured 6.6, 47.8, 68.6 and 278.4 s: within about 20%.

C1 and C6 are larger than most tests (on all-MiniLM-L6-v2 C1's SEAT took 8.7 s, the
battery's mean SEAT task 2.9 s), so the estimate of a whole battery runs high, up to
about twice the real time: read it as an upper guide for a quiet machine. On a static
model all of it is well under a minute, and the first task's start-up counts most.
Scaling each test by its number of words does not fit these times (Dis has five times
C1's words and took about as long; C2 has as many as C1 and took less than half), so
it is not done. Another process on the same 2 cores slows torch's threads badly:
beside a continuous-integration job the same benchmark took ten times as long for SEAT
on all-MiniLM-L6-v2 (53 s per task).

What is not measured, and how it is taken:

* A corpus (``--corpus``): about 4 minutes per CEAT test for all-MiniLM-L6-v2 on the
  same 2 shared cores, as issue 40 measured it (not re-measured: it takes that long);
  another model's is scaled by its SEAT seconds relative to all-MiniLM-L6-v2's (both
  encode sentences).
* The full grid (``--grid full``): not measured; the small grid's estimate is then a
  lower bound (``--dry-run`` says so).
* A GPU (``--device cuda``): not measured; much quicker.
* A warm embedding cache (a second audit of the same model, or a rerun with other
  options): not measured; quicker, since SEAT's sentences are embedded already.
* CEAT's templates cost little here because SEAT, run first, has embedded the same
  sentences; CEAT run alone (``--methods CEAT``) costs more.

Size scaling
------------
A hub model or local folder is not the offline model measured. Its load and task
seconds are those of the offline model of its kind times its size ratio: the weights
of its transformer layers, ``layers × (4h² + 2h·f)`` (:func:`transformer_weights`, hidden
size ``h`` and feed-forward size ``f`` from its configuration; the embedding table is left
out, as a look-up costs next to nothing) divided by the offline model's
(:data:`REFERENCE_WEIGHTS`). On a CPU the time grows about in proportion to those
weights. Where the configuration cannot be read from the local folder or the Hugging
Face cache, or lacks the sizes, the factor is 1. Static vectors are not scaled (a
task's cost hardly depends on the file), only their load.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from biaslib.audit.inputs import AuditInput, Kind

if TYPE_CHECKING:
    from biaslib.audit.plan import Task

__all__ = ["COMPRESSED_SECONDS_PER_MEGABYTE", "CORPUS_SECONDS_PER_TEST", "LOAD_SECONDS",
           "MEASURED", "REFERENCE_MODELS", "REFERENCE_WEIGHTS", "REUSED_SECONDS", "RULE",
           "SECONDS_PER_MEGABYTE", "SECONDS_PER_TASK", "THROUGHPUT", "Estimate",
           "Throughput", "estimate", "minutes_text", "size_factor", "transformer_weights",
           "typical_estimates"]

#: Where and when :data:`SECONDS_PER_TASK` and :data:`LOAD_SECONDS` were measured.
MEASURED = ("2 quiet CPU cores (Intel Xeon; torch on CPU, 2 threads) on 2026-11-29 "
            "(benchmarks/bench_audit_throughput.py); on whole audits of the four offline "
            "models (every test) it came out 1.1 to 2 times the time they took")

#: The offline model each kind's numbers were measured on.
REFERENCE_MODELS: dict[Kind, str] = {
    "static": "glove-6b-50d", "encoder": "all-MiniLM-L6-v2",
    "decoder": "SmolLM2-135M-Instruct", "masked LM": "SPLADE-tiny-MLM"}

#: Seconds per task (one method on one test; small grid, cold cache) by kind and method:
#: the mean of C1 and C6 as measured (``mean_task_seconds_by_method`` in
#: ``benchmarks/results/audit_throughput.json``).
SECONDS_PER_TASK: dict[Kind, dict[str, float]] = {
    "static": {"WEAT": 0.07, "ML-EAT": 0.06, "SAME": 0.03, "metrics": 0.43},
    "encoder": {"SEAT": 5.45, "CEAT": 0.38, "ML-EAT": 0.65, "SAME": 0.05, "metrics": 0.14},
    "decoder": {"SEAT": 26.91, "CEAT": 0.46, "ML-EAT": 0.2, "SAME": 0.04, "metrics": 0.3},
    "masked LM": {"SEAT": 2.02, "CEAT": 0.29, "ML-EAT": 0.14, "LPBS": 0.28, "SAME": 0.04,
                  "metrics": 0.2},
}

#: Seconds to resolve and load each kind's offline model (reading the configuration,
#: the weights, the first encoder; imports included): ``resolve_seconds +
#: load_seconds`` in the benchmark's results. SmolLM2's GGUF file is dequantised.
LOAD_SECONDS: dict[Kind, float] = {"static": 0.67, "encoder": 4.52, "decoder": 25.77,
                                   "masked LM": 0.08}

#: Seconds per megabyte (on disk) of a plain static vector file: the SHA-256 that
#: fingerprints it plus reading it, measured on a synthetic 30 MB 300-d text file.
SECONDS_PER_MEGABYTE = 0.0043

#: The same for a gzipped or zipped file, per megabyte on disk: the same file gzipped
#: (12 MB) was read at this rate, decompression included.
COMPRESSED_SECONDS_PER_MEGABYTE = 0.0249

#: Seconds a stored task costs when an audit reads it back instead of computing it (a
#: resumed whole battery of all-MiniLM-L6-v2: 9.4 s for 76 tasks, the report included;
#: ``benchmarks/results/audit.json``).
REUSED_SECONDS = 0.15

#: Seconds a corpus (``--corpus``) adds to each CEAT task of all-MiniLM-L6-v2: the
#: natural contexts of the test's words, encoded (issue 40's measurement, see above).
CORPUS_SECONDS_PER_TEST = 240.0

#: The transformer weights (:func:`transformer_weights`) of the offline model of each kind,
#: from its configuration: what :func:`size_factor` divides by.
REFERENCE_WEIGHTS: dict[Kind, int] = {
    "encoder": 6 * (4 * 384**2 + 2 * 384 * 1536),      # all-MiniLM-L6-v2: 10.6 million
    "decoder": 30 * (4 * 576**2 + 2 * 576 * 1536),     # SmolLM2-135M: 92.9 million
    "masked LM": 2 * (4 * 128**2 + 2 * 128 * 512),     # SPLADE-tiny: 0.39 million
}


@dataclass(frozen=True)
class Throughput:
    """The numbers :func:`estimate` reckons with (module docstring); :data:`THROUGHPUT` by default.

    Attributes
    ----------
    per_task
        Seconds per task by kind and method (:data:`SECONDS_PER_TASK`).
    load
        Seconds to resolve and load a model, by kind (:data:`LOAD_SECONDS`).
    per_megabyte, compressed_per_megabyte
        Seconds per megabyte on disk of a plain and a gzipped or zipped vector file.
    reused
        Seconds per stored task read back.
    corpus_per_test
        Seconds a corpus adds to a CEAT task of the reference encoder.
    reference_seat
        Derived: the encoder's SEAT seconds, which a corpus's cost is scaled by (1 where
        the table has none, so the corpus's seconds are taken as they are).
    """

    per_task: Mapping[str, Mapping[str, float]]
    load: Mapping[str, float]
    per_megabyte: float = 0.0
    compressed_per_megabyte: float = 0.0
    reused: float = 0.0
    corpus_per_test: float = 0.0
    reference_seat: float = field(init=False)

    def __post_init__(self) -> None:
        # the SEAT seconds a corpus's cost is scaled by: the encoder's, else 1 (no scaling)
        seat = self.per_task.get("encoder", {}).get("SEAT", 0.0)
        object.__setattr__(self, "reference_seat", seat if seat > 0 else 1.0)


#: The measured table (the module-level constants above).
THROUGHPUT = Throughput(SECONDS_PER_TASK, LOAD_SECONDS, SECONDS_PER_MEGABYTE,
                        COMPRESSED_SECONDS_PER_MEGABYTE, REUSED_SECONDS,
                        CORPUS_SECONDS_PER_TEST)


def transformer_weights(config: object) -> int | None:
    """About how many weights a transformer's layers hold: ``layers × (4h² + 2h·f)``.

    ``h`` is the hidden size, ``f`` the feed-forward size (``4h`` where the configuration
    does not say): the attention's four ``h × h`` matrices and the feed-forward's two
    ``h × f`` ones, per layer; the embedding table is left out. ``None`` where the
    configuration gives no number of layers or hidden size.

    >>> from types import SimpleNamespace
    >>> transformer_weights(SimpleNamespace(num_hidden_layers=12, hidden_size=768))
    84934656
    """
    def first(*names: str) -> int | None:
        for name in names:
            value = getattr(config, name, None)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
        return None

    layers = first("num_hidden_layers", "n_layer", "num_layers")
    hidden = first("hidden_size", "n_embd", "d_model")
    if layers is None or hidden is None:
        return None
    ffn = first("intermediate_size", "n_inner", "ffn_dim", "d_ff") or 4 * hidden
    return layers * (4 * hidden**2 + 2 * hidden * ffn)


def size_factor(model: AuditInput) -> float:
    """How many times the offline model of ``model``'s kind it costs (module docstring).

    1 for the offline models, static vectors, and a configuration that cannot be read
    locally or lacks the sizes. The configuration is read from the local folder or the
    Hugging Face cache (where resolving the model put it); it is never downloaded here.
    """
    if model.kind == "static" or model.spec is None or model.spec.offline:
        return 1.0
    try:
        from transformers import AutoConfig

        options = {"gguf_file": model.spec.gguf_file} if model.spec.gguf_file else {}
        config = AutoConfig.from_pretrained(model.spec.path, local_files_only=True,
                                            **options)
    except (OSError, ValueError, KeyError, ImportError):
        return 1.0
    weights = transformer_weights(config)
    return 1.0 if weights is None else weights / REFERENCE_WEIGHTS[model.kind]


def _load_seconds(model: AuditInput, factor: float, table: Throughput) -> float:
    if model.path is not None:  # a vector file: fingerprinted by SHA-256, read streaming
        path = Path(model.path)
        try:
            megabytes = path.stat().st_size / 1e6
        except OSError:
            megabytes = 0.0
        packed = path.name.lower().endswith((".gz", ".zip"))
        rate = table.compressed_per_megabyte if packed else table.per_megabyte
        return table.load["static"] + rate * megabytes
    return table.load[model.kind] * factor


def _task_seconds(task: Task, factor: float, table: Throughput) -> float:
    seconds = table.per_task[task.model.kind]
    # a method without a measurement of its own (none today): the kind's slowest
    return seconds.get(task.method, max(seconds.values())) * factor


def _corpus_seconds(task: Task, factor: float, table: Throughput) -> float:
    """What a corpus adds to a CEAT task: issue 40's 4 minutes, scaled by SEAT's cost."""
    if task.method != "CEAT":
        return 0.0
    seat = table.per_task[task.model.kind].get("SEAT", 0.0)
    return table.corpus_per_test * seat * factor / table.reference_seat


@dataclass(frozen=True)
class Estimate:
    """The estimated seconds of an audit, and how they were reckoned.

    Attributes
    ----------
    seconds
        The whole audit (the models one after another).
    per_model
        Seconds by model display name.
    factors
        The size factor of each model, by display name (:func:`size_factor`).
    to_compute, stored
        Tasks to compute, and tasks already stored (read back).
    """

    seconds: float
    per_model: Mapping[str, float]
    factors: Mapping[str, float]
    to_compute: int
    stored: int

    @property
    def text(self) -> str:
        """``about N minutes`` (:func:`minutes_text`)."""
        return minutes_text(self.seconds)


#: The rule of :func:`estimate`, in words (``--dry-run`` prints it).
RULE = ("each model's load plus, per task not yet stored, the mean seconds its method took "
        "on tests C1 and C6 on the offline model of its kind (static, encoder, decoder, "
        "masked LM; small grid, cold cache); a hub model's or folder's scaled by its "
        "transformer weights relative to that offline model, a vector file's load by its "
        f"size; {REUSED_SECONDS} s per stored task; models one after another; --corpus "
        f"adds about {CORPUS_SECONDS_PER_TEST / 60:.0f} minutes per CEAT task (scaled "
        "alike); rounded up to whole minutes. C1 and C6 are larger than most tests, so for "
        "many tests it runs high (an upper guide); another process on the same cores can "
        "make the audit several times slower. See biaslib.audit.estimate.")


def estimate(tasks: Sequence[Task], stored: Collection[str] = (), *,
             corpus: bool = False,
             factors: Mapping[AuditInput, float] | None = None,
             table: Throughput = THROUGHPUT) -> Estimate:
    """The estimated seconds of running ``tasks``, those whose key is in ``stored`` read back.

    Parameters
    ----------
    tasks
        The planned tasks (:func:`~biaslib.audit.plan.plan_tasks`).
    stored
        The keys (:meth:`~biaslib.audit.plan.Task.key`) of the tasks stored already.
    corpus
        Whether CEAT runs on a corpus's contexts too (``--corpus``).
    factors
        Each model's size factor; a model left out gets :func:`size_factor`'s (which
        may read its configuration).
    table
        The seconds reckoned with (:data:`THROUGHPUT`, the measured table, by default).

    Returns
    -------
    Estimate
        Positive whenever there is a task and the table's seconds are, and never less
        when a task is added.
    """
    per_model: dict[str, float] = {}
    shown: dict[str, float] = {}
    computed = reused = 0
    for model in dict.fromkeys(t.model for t in tasks):
        factor = (factors or {}).get(model)
        factor = size_factor(model) if factor is None else factor
        seconds = 0.0
        loads = False  # a model whose tasks are all stored is not loaded
        for task in (t for t in tasks if t.model == model):
            if stored and task.key() in stored:
                seconds += table.reused
                reused += 1
            else:
                seconds += _task_seconds(task, factor, table)
                seconds += _corpus_seconds(task, factor, table) if corpus else 0.0
                computed += 1
                loads = True
        if loads:
            seconds += _load_seconds(model, factor, table)
        per_model[model.name] = seconds
        shown[model.name] = factor
    return Estimate(sum(per_model.values()), per_model, shown, computed, reused)


def minutes_text(seconds: float) -> str:
    """``about N minutes``, N rounded up (at least 1).

    >>> minutes_text(10), minutes_text(61), minutes_text(3600)
    ('about 1 minute', 'about 2 minutes', 'about 60 minutes')
    """
    minutes = max(1, math.ceil(seconds / 60))
    return f"about {minutes} minute{'s' * (minutes != 1)}"


@functools.cache
def typical_estimates() -> dict[str, Estimate]:
    """An audit of each offline model of :data:`REFERENCE_MODELS` on every test.

    Small grid, the default methods, cold cache: what ``--help`` and ``biaslib models``
    state. Planned by :func:`~biaslib.audit.plan.plan_tasks` on a stand-in of each kind
    (nothing is resolved or loaded), estimated by :func:`estimate`.
    """
    from biaslib.audit.plan import plan_tasks

    typical = {}
    for kind, name in REFERENCE_MODELS.items():
        model = AuditInput(name, kind, name, f"stand-in:{name}")
        typical[name] = estimate(plan_tasks([model]), factors={model: 1.0})
    return typical
