"""Compute the stored results tables of the book (``data/results/``) with provenance.

Tables that take minutes — thousands of template sentences through a causal LM —
are computed here once and rendered by the notebooks; the test suite recomputes
a slice of each and compares. Every table is an entry of
:data:`biasbook.registry.REGISTRY`, which collects the tables each chapter module
declares (``DECLARED_TABLES``)::

    python scripts/compute_results.py            # every table of this script
    python scripts/compute_results.py seat_may   # one table
    python scripts/compute_results.py --list     # the registry: tables, needs, cost

The SAME chapter's tables come from one fine-tuning grid (about 30 minutes) and are
written by ``scripts/same_injection.py``; naming one of them here runs that script.
"""

from __future__ import annotations

import argparse
import sys
import time

from biasbook.registry import REGISTRY, get_table, table_names, write_table

SCRIPT = "scripts/compute_results.py"


def list_tables() -> None:
    """Print every registered table: chapter, script, needs, cost, description and shape."""
    for t in REGISTRY:
        print(f"{t.name:22s} {t.chapter:9s} {t.cost:46s} {t.script}")
        print(f"{'':22s} {t.description}")
        print(f"{'':22s} needs: {'; '.join(t.needs)}")
        print(f"{'':22s} shape: "
              + ("test results (core columns)" if t.results else "its own columns"))


def main() -> None:
    """Compute the tables named on the command line (default: every table of this script)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*",
                        help=f"tables to compute (default: {list(table_names(script=SCRIPT))})")
    parser.add_argument("--list", action="store_true", help="list the registered tables")
    args = parser.parse_args()
    if args.list:
        list_tables()
        return
    names = args.tables or list(table_names(script=SCRIPT))
    unknown = sorted(set(names) - set(table_names()))
    if unknown:
        parser.error(f"unknown tables {unknown}; known: {list(table_names())}")
    done: set[str] = set()
    for name in names:
        script = get_table(name).script
        if not script.startswith(SCRIPT):
            # One run of scripts/same_injection.py writes several tables (the grid run
            # writes the smoke table too).
            if script in done or "scripts/same_injection.py" in done:
                continue
            done.add(script)
        start = time.perf_counter()
        write_table(name)
        print(f"{name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
