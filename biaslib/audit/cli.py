"""The console command ``biaslib``: ``biaslib audit MODEL [MODEL ...] --out DIR``.

Installed with the package (``[project.scripts]`` in ``pyproject.toml``); the same as
:func:`biaslib.audit.run.run_audit`. ``biaslib audit --help`` lists the options.
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
from collections.abc import Sequence

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
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``biaslib`` with ``argv`` (default: the command line); returns the exit status."""
    args = parser().parse_args(argv)
    # Warnings and errors only: the handler's own level also stops what libraries log at
    # INFO on loggers of their own level (Dask's scheduler chatter).
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    from biaslib.audit.run import run_audit

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        result = run_audit(
            args.models, args.out, tests=args.tests, methods=args.methods,
            metrics=args.metrics, grid=args.grid,
            device=args.device, corpus=args.corpus, corpus_cap=args.corpus_cap,
            seed=args.seed, scheduler=args.scheduler, alpha=args.alpha,
            report=not args.no_report, progress=not args.quiet,
            command=shlex.join(["biaslib", *argv]))
    except (OSError, ValueError, ImportError) as err:  # a clear message, not a traceback
        print(f"biaslib audit: error: {err}", file=sys.stderr)
        return 2
    print(f"{len(result.summary)} headline numbers, {len(result.results)} rows; "
          f"{result.computed} tasks computed, {result.reused} read back from an earlier run. "
          f"Written to {args.out}: report.html, results.parquet, results.csv, timings.csv, "
          "provenance.json")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
