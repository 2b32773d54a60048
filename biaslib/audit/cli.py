"""The console command ``biaslib``: ``biaslib audit MODEL [MODEL ...] --out DIR``.

Installed with the package (``[project.scripts]`` in ``pyproject.toml``); the same as
:func:`biaslib.audit.run.run_audit`. ``biaslib audit --help`` lists the options.
``biaslib models`` lists the models that need no download, with their kind and the
methods each runs; ``biaslib audit … --dry-run`` prints what an audit would run (tests ×
methods per model, the tasks, how many ``OUT`` holds already) and an estimated time
(:mod:`biaslib.audit.estimate`), and runs and writes nothing.

What the command prints on stderr is one line per message, never a Python traceback:

* an error of the library (a bad input, a missing file, a damaged vector file or
  archive, an unknown name, a model that cannot be loaded: :data:`_INPUT_ERRORS`) is
  ``biaslib audit: error: …`` and exit status 2, as argparse's own usage errors;
* Ctrl-C is ``biaslib audit: interrupted; rerun the same command to resume`` and exit
  status 130, the shell's convention for an interrupted command (128 + SIGINT): every
  finished task is stored, so the rerun computes only what is missing;
* a warning, logged (``logger.warning``) or issued (:func:`warnings.warn`, e.g. a
  :class:`~biaslib.errors.DroppedStimuliWarning`), is ``biaslib audit: warning: …``, once
  per message.
"""

from __future__ import annotations

import argparse
import functools
import logging
import math
import shlex
import sys
import textwrap
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biaslib.audit.estimate import Estimate
    from biaslib.audit.inputs import AuditInput
    from biaslib.audit.plan import Task

__all__ = ["DryRun", "OfflineModel", "dry_run", "dry_run_text", "main", "models_text",
           "offline_models", "parser"]

_EPILOG = """\
examples:
  biaslib audit all-MiniLM-L6-v2 --out audit-minilm
  biaslib audit all-MiniLM-L6-v2 --out audit-minilm --dry-run
  biaslib audit bert-base-uncased --tests C1 C6 --grid full --device cuda --out audit-bert
  biaslib audit GoogleNews-vectors-negative300.bin.gz --out audit-w2v
  biaslib audit gpt2 facebook/opt-125m --scheduler processes --out audit-decoders

offline models (installed with the book, no download; 'biaslib models' lists them
with their other names and the methods each runs):
  {offline}

typical times, every test, small grid, cold cache, on 2 CPU cores (a rough, generous
guide; --dry-run estimates a given audit before it runs):
  {times}
  --corpus adds about {corpus} minutes per test with CEAT (an hour or more for every
  test); a GPU (--device cuda), a rerun or a resumed audit are much quicker.

An interrupted audit resumes: run the same command again and only what is missing is
computed. The report is DIR/report.html; the numbers are DIR/results.parquet (and .csv).
"""

#: What else a ``MODEL`` may be than an offline name (``biaslib models`` prints it).
_OTHER_MODELS = (
    "MODEL may also be a Hugging Face hub id (needs the hub, e.g. on Colab: "
    "bert-base-uncased, gpt2, facebook/opt-125m), a local model folder (holding "
    "config.json beside the weights, as save_pretrained writes it), or a static vector "
    "file (word2vec .bin or .txt, GloVe .txt, fastText .vec; gzipped or zipped). A "
    "transformer's kind is read from its configuration: a ...ForMaskedLM architecture is "
    "a masked LM, a causal LM a decoder, any other an encoder.")


def _epilog() -> str:
    """The audit's epilog: the offline models and the typical times of :mod:`.estimate`."""
    from biaslib.audit.estimate import CORPUS_SECONDS_PER_TEST, typical_estimates

    offline = ", ".join(f"{name} ({kind})" for name, kind in _offline_main_names())
    times = "; ".join(f"{name}: {e.text}" for name, e in typical_estimates().items())
    wrap = functools.partial(textwrap.fill, width=84, subsequent_indent="  ",
                             break_on_hyphens=False)
    return _EPILOG.format(offline=wrap(offline), times=wrap(times),
                          corpus=round(CORPUS_SECONDS_PER_TEST / 60))


def _offline_main_names() -> list[tuple[str, str]]:
    """(name, kind) of each offline model by its main name, without loading anything.

    The transformers' kinds are those of the offline models the estimate was measured on
    (:data:`~biaslib.audit.estimate.REFERENCE_MODELS`); ``biaslib models`` resolves each
    name as an audit does.
    """
    from biaslib.audit.estimate import REFERENCE_MODELS
    from biaslib.audit.inputs import STATIC_NAMES
    from biaslib.embeddings.models import OFFLINE_MODELS

    kinds = {name: kind for kind, name in REFERENCE_MODELS.items()}
    tables = dict.fromkeys(STATIC_NAMES.values())
    static = [next(n for n, f in STATIC_NAMES.items() if f is t) for t in tables]
    return ([(name, "static") for name in static]
            + [(name, kinds.get(name, "transformer")) for name in OFFLINE_MODELS])


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``biaslib`` (its ``audit`` sub-command)."""
    from biaslib.audit.plan import (
        ALPHA,
        CONTEXT_CAP,
        GRIDS,
        METHODS,
        SEED,
        default_metrics,
        default_tests,
    )
    from biaslib.evaluate.metrics import METRICS

    top = argparse.ArgumentParser(prog="biaslib", description="biaslib: bias tests for "
                                  "language models and word embeddings.")
    sub = top.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "models", help="list the offline models, their kind and the methods each runs",
        description="List every model name an audit resolves without a download (the "
        "offline models and their other names), its kind, the methods an audit runs on "
        "it and a typical time for every test. " + _OTHER_MODELS)
    p = sub.add_parser(
        "audit", help="run the book's bias tests on a model and write a report",
        description="Run every method of the book that MODEL supports (WEAT or SEAT, CEAT, "
        "ML-EAT, LPBS for masked LMs, SAME, and the static-vector metrics on the test's "
        "words) on every test, with a specification curve per test, and write tidy results "
        "with provenance and a self-contained HTML report.",
        epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+", metavar="MODEL",
                   help="an offline model name ("
                   + ", ".join(name for name, _ in _offline_main_names())
                   + "; 'biaslib models' lists them), a Hugging Face id or folder (encoder, "
                   "decoder or masked LM), or a static vector file (word2vec .bin/.txt, "
                   "GloVe .txt, fastText .vec; gzipped or zipped)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write (resumed if "
                   "it holds an earlier run of the same audit)")
    p.add_argument("--tests", nargs="+", metavar="TEST", choices=default_tests(),
                   help="tests to run (default: all): " + " ".join(default_tests()))
    p.add_argument("--methods", nargs="+", metavar="METHOD", choices=list(METHODS),
                   help="methods to run (default: all the model supports): "
                   + " ".join(METHODS))
    p.add_argument("--metrics", nargs="+", metavar="METRIC", choices=[m.name for m in METRICS],
                   help="static-vector metrics the method 'metrics' runs (default: all but "
                   "SAME, a method of its own; quote names with spaces): "
                   + ", ".join(default_metrics()))
    p.add_argument("--grid", choices=list(GRIDS), default="small",
                   help="specification grid (default: small)")
    p.add_argument("--device", help="torch device, e.g. cpu or cuda (default: cuda if "
                   "available)")
    p.add_argument("--corpus", metavar="PATH", help="corpus extract: CEAT runs on its "
                   "natural contexts too")
    p.add_argument("--corpus-cap", type=int, default=CONTEXT_CAP, metavar="N",
                   help=f"most corpus contexts per word (default: {CONTEXT_CAP})")
    p.add_argument("--seed", type=int, default=SEED,
                   help=f"seed of the corpus sample (default: {SEED})")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask distributed "
                   "cluster: a scheduler address (tcp://host:8786), or 'processes' for "
                   "local worker processes; one model per worker")
    p.add_argument("--alpha", type=float, default=ALPHA,
                   help=f"level of the Holm-Bonferroni mark (default: {ALPHA})")
    p.add_argument("--no-report", action="store_true", help="write results only")
    p.add_argument("--replace", action="store_true", help="write to an --out that holds "
                   "another audit (other models, tests or options: its report and results "
                   "are replaced, its stored tasks reused where they match) or other files "
                   "(left as they are); without it such a folder is refused")
    p.add_argument("--quiet", action="store_true", help="no progress bars (they are shown "
                   "only when stderr is a terminal)")
    p.add_argument("--dry-run", action="store_true", help="print the plan (per model: the "
                   "tests x methods that run, the tasks, how many DIR holds already) and an "
                   "estimated time, then stop: nothing is run or written")
    return top


#: The command's name at the start of each line it prints on stderr.
_PREFIX = "biaslib audit"
#: Exit status of an error (argparse's own for a usage error) and of Ctrl-C (128 + SIGINT).
EXIT_ERROR, EXIT_INTERRUPTED = 2, 130


def _library_errors() -> tuple[type[BaseException], ...]:
    """The errors a bad input raises, shown as one line: the builtin bases and biaslib's own.

    :class:`OSError` (a missing file, a failed download, a model that cannot be loaded),
    :class:`ValueError` (a bad value: :class:`~biaslib.errors.UnknownNameError`, a vector
    file's :class:`~biaslib.embeddings.vector_files.VectorFileError`, a corpus error…),
    :class:`ImportError` (a package to install), and every exception class of
    :mod:`biaslib.errors` whatever its base (a device this machine lacks, a model without
    a masked-LM head, an unusable cache). Other exceptions are bugs: their traceback is
    what a report of the bug needs.
    """
    from biaslib import errors

    own = tuple(c for c in vars(errors).values()
                if isinstance(c, type) and issubclass(c, Exception)
                and not issubclass(c, Warning) and c.__module__ == errors.__name__)
    return (OSError, ValueError, ImportError, *own)


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


class _OneLineFormatter(logging.Formatter):
    """``biaslib audit: warning: …`` on one line, without a traceback (exc_info is left out)."""

    def format(self, record: logging.LogRecord) -> str:
        level = "error" if record.levelno >= logging.ERROR else "warning"
        return f"{_PREFIX}: {level}: {_one_line(record.getMessage())}"


class _Once(logging.Filter):
    """Pass each message once: a warning repeated for every task is read once."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        text = f"{record.levelno}:{record.getMessage()}"
        if text in self.seen:
            return False
        self.seen.add(text)
        return True


@contextmanager
def _stderr_lines() -> Iterator[None]:
    """Show warnings, logged or issued, as one line each on stderr while the command runs.

    The handler's own level (WARNING) also stops what libraries log at INFO on loggers of
    their own level (Dask's scheduler chatter); Python warnings are sent to the same
    handler. Both are undone afterwards, so that calling :func:`main` twice (in a test)
    prints each line once.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_OneLineFormatter())
    handler.addFilter(_Once())
    root = logging.getLogger()
    root.addHandler(handler)
    shown = logging.getLogger("biaslib.audit.cli")

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: object = None, line: str | None = None) -> None:
        # the message alone: a library that both logs and warns (vector files) is one line
        shown.warning("%s", message)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            yield
    finally:
        root.removeHandler(handler)


# ----------------------------------------------------------------------- biaslib models


@dataclass(frozen=True)
class OfflineModel:
    """One offline model as ``biaslib models`` lists it.

    Attributes
    ----------
    name
        Its main name; ``aliases`` are the other names that resolve to it.
    kind
        Its kind as an audit resolves it (:func:`~biaslib.audit.inputs.resolve_input`),
        or ``"unavailable"`` where it cannot be resolved (``error`` says why).
    methods
        The methods an audit of every test runs on it (:func:`~biaslib.audit.plan.plan_tasks`).
    model
        The resolved input (``None`` if unavailable).
    """

    name: str
    aliases: tuple[str, ...]
    kind: str
    methods: tuple[str, ...]
    model: AuditInput | None = None
    error: str = ""


@functools.cache
def offline_models() -> tuple[OfflineModel, ...]:
    """Every offline model, resolved as an audit resolves it (its configuration is read).

    The static tables of :data:`~biaslib.audit.inputs.STATIC_NAMES` (grouped by table),
    then :data:`~biaslib.embeddings.models.OFFLINE_MODELS` with their aliases; together
    every name of :func:`~biaslib.audit.inputs.offline_names`. The methods are those
    :func:`~biaslib.audit.plan.plan_tasks` plans for the model on every test.
    SmolLM2's configuration sits in a GGUF file, which takes several seconds to read.
    """
    from biaslib.audit.inputs import STATIC_NAMES, offline_names, resolve_input
    from biaslib.audit.plan import plan_tasks
    from biaslib.embeddings.models import OFFLINE_MODELS, resolve_model

    groups: dict[str, list[str]] = {}
    for table in dict.fromkeys(STATIC_NAMES.values()):
        names = [n for n, f in STATIC_NAMES.items() if f is table]
        groups[names[0]] = names[1:]
    for key in OFFLINE_MODELS:
        groups[key] = []
    for name in offline_names():
        if name not in groups and not any(name in a for a in groups.values()):
            groups[resolve_model(name).key].append(name)  # an alias (no weights read)
    rows = []
    for name, aliases in groups.items():
        try:
            model = resolve_input(name)
        except _library_errors() as err:  # a wheel not installed: say so, list the rest
            rows.append(OfflineModel(name, tuple(aliases), "unavailable", (), None,
                                     _one_line(err)))
            continue
        methods = tuple(dict.fromkeys(t.method for t in plan_tasks([model])))
        rows.append(OfflineModel(name, tuple(aliases), model.kind, methods, model))
    return tuple(rows)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "") -> str:
    """A plain table, columns left-aligned and two spaces apart (no trailing spaces)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(indent + "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True))
                     .rstrip() for r in [header, *rows])


def _fill(text: str) -> str:
    return textwrap.fill(text, 88, break_on_hyphens=False, break_long_words=False)


def models_text() -> str:
    """What ``biaslib models`` prints: the offline models, their kind, methods and time."""
    from biaslib.audit.estimate import (
        CORPUS_SECONDS_PER_TEST,
        REFERENCE_MODELS,
        typical_estimates,
    )
    from biaslib.audit.plan import default_tests, plan_tasks

    typical = typical_estimates()
    typical["static"] = typical[REFERENCE_MODELS["static"]]  # every table alike

    def minutes(model: OfflineModel) -> str:
        found = typical.get(model.name) or typical.get(model.kind)
        return "-" if found is None else f"{max(1, math.ceil(found.seconds / 60))} min"

    models = offline_models()
    rows = [(m.name, m.kind, " ".join(m.methods) or "-", minutes(m), ", ".join(m.aliases))
            for m in models]
    # Which tests CEAT and LPBS run on, from the plan of a masked LM (it runs both).
    masked = next((m.model for m in models if m.kind == "masked LM"), None)
    lines = [_table(("MODEL", "KIND", "METHODS", "EVERY TEST", "OTHER NAMES"), rows), ""]
    if masked is not None:
        tasks = plan_tasks([masked])
        on = {m: " ".join(t.test for t in tasks if t.method == m) for m in ("CEAT", "LPBS")}
        lines.append(_fill(
            f"CEAT runs on the tests with Mind Your Bias's templates ({on['CEAT']}), and on "
            f"every test given a corpus (--corpus); LPBS on those with its LPBS templates "
            f"({on['LPBS']}); the other methods on every test ({' '.join(default_tests())})."))
    lines.append(_fill(
        "EVERY TEST: a rough estimate, rounded up, of an audit of every test (small grid, "
        "cold cache, default methods) on 2 quiet CPU cores, from the throughput benchmark "
        "(biaslib.audit.estimate); an upper guide, as the benchmark's tests are among the "
        "larger ones. --corpus adds about "
        f"{CORPUS_SECONDS_PER_TEST / 60:.0f} minutes per CEAT test for all-MiniLM-L6-v2; a "
        "busy machine is slower, a GPU or a warm cache quicker. 'biaslib audit MODEL --out "
        "DIR --dry-run' estimates a given audit."))
    lines += ["", _fill(_OTHER_MODELS)]
    for m in models:
        if m.error:
            lines.append(_fill(f"{m.name} is unavailable: {m.error}"))
    return "\n".join(lines)


# ----------------------------------------------------------------------- --dry-run


@dataclass(frozen=True)
class DryRun:
    """What ``biaslib audit --dry-run`` found: the plan, what ``OUT`` holds, the estimate.

    Attributes
    ----------
    inputs, tasks
        The resolved models and the planned tasks, as :func:`~biaslib.audit.run.run_audit`
        makes them.
    stored
        The keys of the tasks stored in ``OUT`` already (read back, not computed).
    out_exists
        Whether ``OUT`` exists.
    refusal
        Why the audit would refuse ``OUT`` (another audit there, without ``--replace``),
        else ``""``.
    estimate
        The estimated time (:func:`biaslib.audit.estimate.estimate`).
    """

    inputs: Sequence[AuditInput]
    tasks: Sequence[Task]
    stored: frozenset[str]
    out_exists: bool
    refusal: str
    estimate: Estimate


def dry_run(args: argparse.Namespace) -> DryRun:
    """Plan as :func:`~biaslib.audit.run.run_audit` does, without writing: ``OUT`` is only read.

    The plan is :func:`~biaslib.audit.run.plan_audit`'s, the one the audit runs.
    """
    from biaslib.audit.estimate import estimate
    from biaslib.audit.run import OutputFolderError, plan_audit

    plan = plan_audit(list(args.models), args.out, tests=args.tests, methods=args.methods,
                      metrics=args.metrics, grid=args.grid, corpus=args.corpus,
                      corpus_cap=args.corpus_cap, seed=args.seed, alpha=args.alpha)
    refusal = ""
    try:
        plan.check_out()
    except OutputFolderError as err:
        refusal = _one_line(err)
    stored = plan.stored()
    inputs, tasks, out = plan.inputs, plan.tasks, plan.out
    return DryRun(inputs, tasks, stored, out.is_dir(), refusal,
                  estimate(tasks, stored, corpus=args.corpus is not None))


def dry_run_text(plan: DryRun, args: argparse.Namespace) -> str:
    """What ``--dry-run`` prints: per model its tests x methods, then the totals and time."""
    from biaslib.audit.estimate import MEASURED, RULE, minutes_text
    from biaslib.audit.plan import METHODS

    out = args.out
    lines = ["Dry run: the audit's plan; nothing is computed or written.", ""]
    tests = list(dict.fromkeys(t.test for t in plan.tasks))
    for i, model in enumerate(plan.inputs, 1):
        mine = {(t.test, t.method): t.key() for t in plan.tasks if t.model == model}
        methods = [m for m in METHODS if any(m == meth for _, meth in mine)]
        n_stored = sum(key in plan.stored for key in mine.values())
        factor = plan.estimate.factors.get(model.name, 1.0)
        size = f", about {factor:.3g} times the offline {model.kind}'s size" if (
            abs(factor - 1) > 1e-9) else ""
        lines.append(f"Model {i} of {len(plan.inputs)}: {model.name}, {model.kind}{size}: "
                     f"{len(mine)} task{'s' * (len(mine) != 1)}, {n_stored} stored in {out}; "
                     f"{minutes_text(plan.estimate.per_model.get(model.name, 0.0))}")
        cells = [[test] + [("stored" if mine[(test, m)] in plan.stored else "run")
                           if (test, m) in mine else "-" for m in methods] for test in tests]
        lines += [_table(["test", *methods], cells, indent="  "), ""]
    lines.append(_fill("run: computed; stored: read back from OUT; -: does not apply (the "
                       "method does not run on that test or kind of model)"))
    total, stored = len(plan.tasks), len(plan.stored)
    lines.append(f"Tasks: {total} (a task is one method on one test of one model): "
                 f"{stored} stored in {out}, {total - stored} to compute.")
    if not plan.out_exists:
        lines.append(f"{out} does not exist yet: the audit would create it.")
    if plan.refusal:
        how = ("with --replace the audit would replace its results and report, reusing the "
               "stored tasks counted above" if args.replace else
               "the audit would be refused (exit status 2) unless --replace is given")
        lines.append(f"Note: {plan.refusal} ({how}).")
    lines.append(f"Estimated time: {plan.estimate.text} on 2 quiet CPU cores (a rough guide, "
                 "usually on the high side).")
    extra = []
    if args.grid != "small":
        extra.append(f"--grid {args.grid} was not measured: this is the small grid's time, "
                     "a lower bound")
    if args.device and args.device != "cpu":
        extra.append(f"--device {args.device}: measured on CPU, a GPU is much quicker")
    if args.scheduler:
        extra.append("--scheduler: the models run side by side, not one after another")
    lines.append(_fill(f"How: {RULE} Measured on {MEASURED}."
                       + "".join(f" Note {e}." for e in extra)))
    return "\n".join(lines)


# ----------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``biaslib`` with ``argv`` (default: the command line); returns the exit status.

    0 when the audit is written (or, with ``--dry-run``, planned; or the models listed),
    :data:`EXIT_ERROR` (2) after a one-line error naming the input,
    :data:`EXIT_INTERRUPTED` (130) after Ctrl-C.
    """
    args = parser().parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)
    with _stderr_lines():
        try:
            if args.command == "models":
                print(models_text())
                return 0
            if args.dry_run:
                print(dry_run_text(dry_run(args), args))
                return 0
            from biaslib.audit.run import run_audit

            result = run_audit(
                args.models, args.out, tests=args.tests, methods=args.methods,
                metrics=args.metrics, grid=args.grid,
                device=args.device, corpus=args.corpus, corpus_cap=args.corpus_cap,
                seed=args.seed, scheduler=args.scheduler, alpha=args.alpha,
                report=not args.no_report,
                # a log file or a pipe would fill with bars redrawn line by line
                progress=not args.quiet and sys.stderr.isatty(),
                command=shlex.join(["biaslib", *argv]), replace=args.replace)
        except KeyboardInterrupt:
            print(f"{_PREFIX}: interrupted; rerun the same command to resume",
                  file=sys.stderr)
            return EXIT_INTERRUPTED
        except _library_errors() as err:  # a clear message, not a traceback
            print(f"{_PREFIX}: error: {_one_line(err) or type(err).__name__}",
                  file=sys.stderr)
            return EXIT_ERROR
    print(f"{len(result.summary)} headline numbers, {len(result.results)} rows; "
          f"{result.computed} tasks computed, {result.reused} read back from an earlier run. "
          f"Written to {args.out}: "
          + ", ".join(["report.html"] * (not args.no_report)
                      + ["results.parquet", "results.csv", "timings.csv", "provenance.json"]))
    notes = result.provenance.get("notes") or []
    if notes:
        print(f"{len(notes)} note(s) on what was left out (in provenance.json and above).")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
