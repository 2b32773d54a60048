"""Benchmark: how long each chapter's student edition runs for a new student (issue 37).

A student opens ``colab/student/<name>.ipynb`` (written by ``scripts/colab_editions.py``)
in a Python without biaslib: its first cell installs it, then *Run all* runs the rest.
This measures both, the way ``tests/test_colab_path.py`` runs a notebook as a new reader
does, offline, and reusing its functions:

1. the wheel is built from this checkout (hatchling, ``--no-build-isolation``, pip
   offline), once;
2. for each chapter, a fresh virtual environment with a kernel of its own that sees this
   environment's site-packages through a ``.pth`` file (torch, transformers and the model
   wheels come from there; nothing is downloaded), and ``BIASLIB_INSTALL=<wheel>[extras]``
   so that the edition's own install cell installs the wheel;
3. the student edition is copied alone into an empty folder and executed there with
   nbclient; the **install** time is the install cell's (``colab-install``), from its
   execute request to its reply; the **rest** is the whole run's wall time less that
   (starting the kernel and every other cell). Cells tagged ``needs-corpus`` are skipped
   where the corpus extract is absent, as under the tests.

The result, ``benchmarks/results/student_editions.csv`` (written whole), has one row per
chapter: ``chapter``, ``install_seconds``, ``rest_seconds``, ``cpu`` (model and cores)
and ``date``; ``scripts/teaching_guide.py`` shows it in the lab plans. The install here
reads a local wheel: on Colab pip downloads biaslib and its dependencies too, which adds
to the install time.

Usage::

    python benchmarks/student_editions.py                   # every chapter
    python benchmarks/student_editions.py --chapters seat   # some (other rows are kept)

About 1 minute a chapter on a 2-core CPU, the wheel's build (about 20 s) once.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's biaslib, also when run as a script
sys.path.insert(0, str(ROOT / "tests"))  # the Colab path's helpers and what they import

from machine import cpu_model  # noqa: E402
from script_modules import load_script  # noqa: E402

from biaslib.files import write_text_atomically  # noqa: E402

colab_path = load_script("test_colab_path", folder="tests")
execute_notebooks = load_script("execute_notebooks")
teaching_guide = load_script("teaching_guide")

EDITIONS = ROOT / "colab" / "student"
RESULT = ROOT / "benchmarks" / "results" / "student_editions.csv"
COLUMNS = ("chapter", "install_seconds", "rest_seconds", "cpu", "date")


def build_wheel(out: Path) -> Path:
    """The wheel of this checkout, built offline with the project's backend (hatchling)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"building the wheel failed:\n{done.stderr}")
    (built,) = out.glob("biaslib-*.whl")
    return built


def install_cell(nb: nbformat.NotebookNode) -> int:
    """The index of the edition's install cell (tagged ``colab-install``; else the first
    code cell)."""
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    tagged = [i for i in code if colab_path.colab_cells.TAG in nb.cells[i].metadata.get("tags", [])]
    return (tagged or code)[0]


def run_edition(name: str, wheel: Path, tmp: Path) -> tuple[float, float]:
    """Run chapter ``name``'s student edition alone from a fresh install; return the
    seconds of its install cell and of the rest."""
    env = colab_path.make_fresh_env(tmp / "env")
    folder = tmp / "work"
    folder.mkdir()
    copy = folder / f"{name}.ipynb"
    shutil.copyfile(EDITIONS / f"{name}.ipynb", copy)
    nb = nbformat.read(copy, as_version=4)
    at = install_cell(nb)
    extras = colab_path.colab_cells.NEEDS[name][0]
    install = f"{wheel}[{','.join(extras)}]" if extras else str(wheel)
    environ = colab_path.kernel_environ(env, install, tmp)
    skip_tag = "skip-execution"  # nbclient's default: a tag no notebook carries
    corpus = colab_path._local_corpus()
    if corpus is None:
        skip_tag = "needs-corpus"
    else:
        environ["BIASLIB_CORPUS_DIR"] = str(corpus)
    km = KernelManager(kernel_name=colab_path.KERNEL,
                       kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(env.kernels)]))
    client = NotebookClient(nb, km=km, timeout=colab_path.CELL_TIMEOUT, record_timing=True,
                            skip_cells_with_tag=skip_tag,
                            resources={"metadata": {"path": str(folder)}})
    start = time.perf_counter()
    try:
        client.execute(env=environ)
    finally:
        if km.has_kernel:  # nbclient shuts down only kernels it started itself
            km.shutdown_kernel(now=True)
    total = time.perf_counter() - start
    errors = [i for i, c in enumerate(nb.cells) for o in c.get("outputs", [])
              if o.output_type == "error"]
    if errors:
        raise RuntimeError(f"{name}: cells {errors} raised")
    if env.installed_from() != wheel.as_uri():
        raise RuntimeError(f"{name}: its install cell did not install {wheel.name}")
    seconds = execute_notebooks._cell_seconds(nb.cells[at])
    if seconds is None:
        raise RuntimeError(f"{name}: no timing recorded for its install cell")
    return seconds, total - seconds


def read_rows(path: Path = RESULT) -> dict[str, dict[str, str]]:
    """The rows already measured, by chapter."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as handle:
        return {row["chapter"]: row for row in csv.DictReader(handle)}


def write_rows(rows: dict[str, dict[str, str]], order: list[str], path: Path = RESULT) -> None:
    """Write the rows in book order (chapters no longer in the book are dropped), whole."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows[name] for name in order if name in rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, out.getvalue())


def main(argv: list[str] | None = None) -> int:
    chapters = [p.stem for p in teaching_guide.chapter_notebooks()]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapters", nargs="+", choices=chapters, metavar="NAME",
                        help="measure these chapters only (default: every one)")
    args = parser.parse_args(argv)
    selected = args.chapters or chapters
    missing = [n for n in selected if not (EDITIONS / f"{n}.ipynb").is_file()]
    if missing:
        print(f"no student edition of {', '.join(missing)} in {EDITIONS.relative_to(ROOT)}: "
              "run python scripts/colab_editions.py", file=sys.stderr)
        return 1
    cpu = f"{cpu_model()}, {os.cpu_count()} cores"
    print(f"machine: {cpu}")
    rows = read_rows()
    with tempfile.TemporaryDirectory(prefix="student-editions-") as tmp:
        wheel = build_wheel(Path(tmp) / "wheel")
        for name in selected:
            work = Path(tmp) / name
            work.mkdir()
            install, rest = run_edition(name, wheel, work)
            print(f"{name}: install cell {install:.1f} s, the rest {rest:.1f} s")
            rows[name] = {"chapter": name, "install_seconds": f"{install:.1f}",
                          "rest_seconds": f"{rest:.1f}", "cpu": cpu,
                          "date": datetime.date.today().isoformat()}
            write_rows(rows, chapters)  # after each chapter: an interruption keeps the others
    print(f"results written to {RESULT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
