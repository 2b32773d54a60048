"""The console command ``biaslib``: ``biaslib audit MODEL [MODEL ...] --out DIR``.

Installed with the package (``[project.scripts]`` in ``pyproject.toml``); the same as
:func:`biaslib.audit.run.run_audit`. ``biaslib audit --help`` lists the options.

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
import logging
import shlex
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

__all__ = ["main", "parser"]

_EPILOG = """\
examples:
  biaslib audit all-MiniLM-L6-v2 --out audit-minilm
  biaslib audit bert-base-uncased --tests C1 C6 --grid full --device cuda --out audit-bert
  biaslib audit GoogleNews-vectors-negative300.bin.gz --out audit-w2v
  biaslib audit gpt2 facebook/opt-125m --scheduler processes --out audit-decoders

An interrupted audit resumes: run the same command again and only what is missing is
computed. The report is DIR/report.html; the numbers are DIR/results.parquet (and .csv).
"""


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
    p = sub.add_parser(
        "audit", help="run the book's bias tests on a model and write a report",
        description="Run every method of the book that MODEL supports (WEAT or SEAT, CEAT, "
        "ML-EAT, LPBS for masked LMs, SAME, and the static-vector metrics on the test's "
        "words) on every test, with a specification curve per test, and write tidy results "
        "with provenance and a self-contained HTML report.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+", metavar="MODEL",
                   help="Hugging Face id or folder (encoder, decoder or masked LM), an offline "
                   "model name, or a static vector file (word2vec .bin/.txt, GloVe .txt, "
                   "fastText .vec; gzipped or zipped)")
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
    p.add_argument("--quiet", action="store_true", help="no progress bars (they are shown "
                   "only when stderr is a terminal)")
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``biaslib`` with ``argv`` (default: the command line); returns the exit status.

    0 when the audit is written, :data:`EXIT_ERROR` (2) after a one-line error naming
    the input, :data:`EXIT_INTERRUPTED` (130) after Ctrl-C.
    """
    args = parser().parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)
    with _stderr_lines():
        try:
            from biaslib.audit.run import run_audit

            result = run_audit(
                args.models, args.out, tests=args.tests, methods=args.methods,
                metrics=args.metrics, grid=args.grid,
                device=args.device, corpus=args.corpus, corpus_cap=args.corpus_cap,
                seed=args.seed, scheduler=args.scheduler, alpha=args.alpha,
                report=not args.no_report,
                # a log file or a pipe would fill with bars redrawn line by line
                progress=not args.quiet and sys.stderr.isatty(),
                command=shlex.join(["biaslib", *argv]))
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
