"""Benchmark: build the book from scratch, then measure every page as a reader meets it.

Times ``jupyter-book build . -W --keep-going`` into an empty temporary folder (no
Sphinx environment, nothing cached: a fresh build, as CI does it; the notebooks are
not executed, the book renders their committed outputs), then runs
``scripts/check_book.py`` on that build with ``--report``: every page's length in
screens at 1366 x 768, where its first verdict starts at 1366 x 768 and 390 x 844, the
weight of its first load and its figures. Prints both and, with ``--save``, stores them
with a description of the machine in ``benchmarks/results/book.json``, which the
book's performance page shows ("The book").

Run with ``python benchmarks/bench_book.py [--save]`` from the checkout, on a quiet
machine (the load average is recorded). Needs what the build and the browser check
need (the ``dev`` extra; Debian's chromium and chromium-driver). The check's problems
are recorded, not fatal: the file says what the pages weigh and measure today.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import describe, print_machine, save

ROOT = Path(__file__).resolve().parent.parent
BUILD = ["jupyter-book", "build", ".", "-W", "--keep-going"]


def load_check_book():
    """``scripts/check_book.py`` as a module."""
    spec = importlib.util.spec_from_file_location("check_book", ROOT / "scripts" / "check_book.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_book"] = module
    spec.loader.exec_module(module)
    return module


def versions() -> dict[str, str]:
    """The versions of what builds the book."""
    out = {}
    for name in ("jupyter-book", "sphinx", "sphinx-book-theme", "myst-nb"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", action="store_true",
                        help="store the results in benchmarks/results/book.json")
    args = parser.parse_args()
    jupyter_book = shutil.which("jupyter-book")
    if jupyter_book is None:
        print("bench_book: jupyter-book is not installed (the dev extra)", file=sys.stderr)
        return 2
    machine = describe()
    print_machine(machine)
    with tempfile.TemporaryDirectory() as out:
        command = [jupyter_book, *BUILD[1:], "--path-output", out]
        print("building:", " ".join(BUILD), f"--path-output {out}", flush=True)
        start = time.perf_counter()
        built = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, check=False)
        build_seconds = time.perf_counter() - start
        if built.returncode != 0:
            print(built.stderr[-3000:], file=sys.stderr)
            print(f"bench_book: the build failed (exit {built.returncode}): nothing measured",
                  file=sys.stderr)
            return 1
        pages_built = sum(1 for _ in (Path(out) / "_build" / "html").rglob("*.html"))
        print(f"built {pages_built} HTML files in {build_seconds:.1f} s", flush=True)
        report_file = Path(out) / "check.json"
        check_book = load_check_book()
        status = check_book.main(["--html", str(Path(out) / "_build" / "html"),
                                  "--report", str(report_file)])
        if not report_file.is_file():
            print(f"bench_book: the browser check could not run (exit {status})",
                  file=sys.stderr)
            return 2
        check = json.loads(report_file.read_text(encoding="utf-8"))
    results = {
        "benchmark": "the book: a fresh jupyter-book build, then every page as a reader meets it",
        "machine": {**machine, **versions(), "browser": check.pop("browser")},
        "build": {"command": " ".join(BUILD), "seconds": round(build_seconds, 1),
                  "html_files": pages_built},
        "check": {"command": "python scripts/check_book.py", "exit_status": status, **check},
    }
    if args.save:
        save("book", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
