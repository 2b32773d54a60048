"""Re-execute the book's notebooks deterministically and store their outputs.

The book renders the outputs committed in the notebooks and nbval compares them
on every test run, so they must be regenerated whenever the code that produces
them changes::

    python scripts/execute_notebooks.py                 # every notebook in _toc.yml
    python scripts/execute_notebooks.py notebooks/weat_static.ipynb
    python scripts/execute_notebooks.py --check         # execute, compare, write nothing

Each notebook is first synchronised with its paired ``py:percent`` script
(jupytext keeps the inputs of whichever file is newer), then executed top to
bottom in a fresh ``python3`` kernel whose working directory is the notebook's
folder, then written back without per-cell execution-timing metadata, and finally
the paired script is synchronised again. What the teaching guide needs of the
timings is kept in the notebook's metadata (``biaslib.timing``, :func:`run_times`):
the whole run and each solution cell, in seconds. The kernel gets ``PYTHONHASHSEED=0``,
``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_VERBOSITY=error``. Progress bars are
kept; ``notebooks/nbval_sanitize.cfg`` normalises their timings for nbval.

Note that nbval runs the notebooks under the README's plain ``python -m pytest``,
without these variables: a notebook whose output depends on them must set them
itself in its first cell.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from datetime import datetime
from pathlib import Path

import nbformat
import yaml
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

from biaslib.files import write_atomically

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SANITIZE_FILE = NOTEBOOKS / "nbval_sanitize.cfg"
KERNEL_NAME = "python3"

KERNEL_ENV = {
    "PYTHONHASHSEED": "0",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    # Silences debugpy's "frozen modules" warning on the kernel's console.
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}


def toc_chapters(toc_path: Path = ROOT / "_toc.yml") -> dict[str, list[str]]:
    """The book's notebook pages and their sub-pages, from ``_toc.yml``, in book order.

    A main page is a notebook listed at the top level of the table of contents (the
    root or a ``chapters`` entry); its sub-pages are the notebooks listed as its
    ``sections`` (a chapter's details: full tables, diagnostics, the paper-model runs).
    Returns ``{main page stem: [sub-page stems]}``; pages outside ``notebooks/`` are left
    out, and so are sub-pages of them.

    Raises
    ------
    ValueError
        If a sub-page lists sections of its own (the book has two levels only).
    """
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))

    def stem(entry: object) -> str | None:
        if not isinstance(entry, str):
            return None
        path = (ROOT / entry).with_suffix(".ipynb")
        return path.stem if path.is_file() and path.resolve().is_relative_to(NOTEBOOKS) else None

    chapters: dict[str, list[str]] = {}
    for entry in [{"file": toc.get("root")}, *toc.get("chapters", [])]:
        main = stem(entry.get("file"))
        subs = []
        for section in entry.get("sections", []) or []:
            if section.get("sections"):
                raise ValueError(f"{toc_path}: {section.get('file')} has sections of its own; "
                                 "a sub-page has none")
            if (sub := stem(section.get("file"))) is not None:
                subs.append(sub)
        if main is not None:
            chapters[main] = subs
    return chapters


def chapter_of(stem: str, toc_path: Path = ROOT / "_toc.yml") -> str:
    """The main page that notebook ``stem`` belongs to: itself, or the page it is a sub-page of.

    Raises
    ------
    KeyError
        If ``_toc.yml`` lists no notebook ``stem``.
    """
    for main, subs in toc_chapters(toc_path).items():
        if stem == main or stem in subs:
            return main
    raise KeyError(f"_toc.yml lists no notebook {stem!r}")


def toc_files(toc_path: Path = ROOT / "_toc.yml") -> list[str]:
    """Every page ``_toc.yml`` lists (``book/intro``, ``notebooks/seat``…), in book order."""
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    files: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    files.append(node[key])
            for value in node.values():
                if isinstance(value, (list, dict)):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return files


def toc_notebooks(toc_path: Path = ROOT / "_toc.yml") -> list[Path]:
    """Return the notebooks under ``notebooks/`` that ``_toc.yml`` lists, in book order."""
    found = []
    for entry in toc_files(toc_path):
        path = (ROOT / entry).with_suffix(".ipynb")
        if path.is_file() and path.resolve().is_relative_to(NOTEBOOKS):
            found.append(path)
    return found


def jupytext_sync(path: Path) -> None:
    """Synchronise a notebook with its paired script (inputs from the newer file)."""
    from jupytext.cli import jupytext

    jupytext(["--sync", "--quiet", str(path)])


def _cell_seconds(cell: nbformat.NotebookNode) -> float | None:
    """Seconds from a cell's execute request to its reply, from nbclient's timing record."""
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return None
    parse = datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def is_solution(cell: nbformat.NotebookNode) -> bool:
    """Whether a cell is an exercise's solution: a code cell tagged ``solution`` (issue 24)."""
    return cell.cell_type == "code" and "solution" in cell.metadata.get("tags", [])


def run_times(nb: nbformat.NotebookNode, total: float) -> dict[str, object]:
    """The run times kept in the notebook: the whole run and each solution cell, in seconds.

    Solution cells are those of :func:`is_solution`; ``scripts/teaching_guide.py`` shows the
    times and ``tests/test_teaching.py`` bounds them.
    """
    solutions = [_cell_seconds(cell) for cell in nb.cells if is_solution(cell)]
    return {
        "notebook": round(total, 1),
        "solutions": [None if s is None else round(s, 1) for s in solutions],
    }


def strip_timing(nb: nbformat.NotebookNode) -> None:
    """Remove execution-timing metadata, which changes on every run."""
    nb.metadata.pop("execution", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("ExecuteTime", None)


def load_sanitizers(path: Path = SANITIZE_FILE) -> list[tuple[re.Pattern[str], str]]:
    """Read the regex/replace pairs of an nbval sanitize file (same format as nbval)."""
    if not path.is_file():
        return []
    pairs = re.findall(
        r"^regex: (.*)$\n^replace: (.*)$", path.read_text(encoding="utf-8"), flags=re.MULTILINE
    )
    return [(re.compile(regex), replace) for regex, replace in pairs]


#: The cell tag with which nbval runs a cell but does not compare its outputs (a report
#: that names its run's start, timings): nothing of such a cell is compared here either.
NBVAL_IGNORE = "nbval-ignore-output"


def comparable_outputs(cell: nbformat.NotebookNode, sanitizers) -> list[str]:
    """Text of a code cell's outputs as nbval compares them (images ignored), sanitized.

    Empty for a cell tagged :data:`NBVAL_IGNORE`, whose outputs nbval does not compare.
    """
    if NBVAL_IGNORE in cell.get("metadata", {}).get("tags", []):
        return []
    texts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            texts.append(f"{out.name}:{out.text}")
        elif out.output_type in ("execute_result", "display_data"):
            for mime, value in sorted(out.data.items()):
                if not mime.startswith("image/"):
                    texts.append(f"{mime}:{value}")
        elif out.output_type == "error":
            texts.append(f"error:{out.ename}: {out.evalue}")
    sanitized = []
    for text in texts:
        for pattern, replace in sanitizers:
            text = pattern.sub(replace, text)
        sanitized.append(text)
    return sanitized


def check_kernel() -> None:
    """Warn when the ``python3`` kernel would not run in this interpreter's environment."""
    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except Exception as exc:  # pragma: no cover - depends on the installation
        sys.exit(f"no {KERNEL_NAME!r} kernel: {exc}; install ipykernel in this environment")
    exe = spec.argv[0]
    if (
        exe not in ("python", "python3", "{python}")
        and Path(exe).resolve() != Path(sys.executable).resolve()
    ):
        print(
            f"warning: the {KERNEL_NAME!r} kernel runs {exe}, not {sys.executable}", file=sys.stderr
        )


def execute(path: Path, timeout: int | None, check: bool) -> bool:
    """Execute one notebook; write it back (or, with ``check``, compare). Return success."""
    if not check:
        jupytext_sync(path)
    nb = nbformat.read(path, as_version=4)
    before = nbformat.reads(nbformat.writes(nb), as_version=4) if check else None
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=KERNEL_NAME,
        record_timing=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    timing = run_times(nb, time.perf_counter() - start)
    strip_timing(nb)
    if not check:
        nb.metadata.setdefault("biaslib", {})["timing"] = timing
    if check:
        sanitizers = load_sanitizers()
        differing = [
            i
            for i, (old, new) in enumerate(zip(before.cells, nb.cells, strict=True))
            if new.cell_type == "code"
            and comparable_outputs(old, sanitizers) != comparable_outputs(new, sanitizers)
        ]
        if differing:
            print(f"  outputs differ from the committed ones in cells {differing}")
        return not differing
    # Whole or not at all: an interrupted run never leaves a notebook cut short.
    write_atomically(path, lambda tmp: nbformat.write(nb, tmp))
    jupytext_sync(path)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "notebooks",
        nargs="*",
        type=Path,
        help="notebooks to execute (default: those in notebooks/ listed in _toc.yml)",
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=1800,
        help="seconds allowed per cell; 0 or less for no limit (default 1800)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="execute without writing; fail if the sanitized outputs differ",
    )
    args = parser.parse_args(argv)

    paths = [p.resolve() for p in args.notebooks] or toc_notebooks()
    if not paths:
        print("no notebooks to execute", file=sys.stderr)
        return 1
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print(f"not found: {', '.join(map(str, missing))}", file=sys.stderr)
        return 1

    os.environ.update(KERNEL_ENV)
    check_kernel()
    timeout = args.timeout if args.timeout > 0 else None
    failures = 0
    total = time.perf_counter()
    for path in paths:
        name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        start = time.perf_counter()
        try:
            ok = execute(path, timeout, args.check)
        except Exception as exc:
            print(
                f"{name}: FAILED after {time.perf_counter() - start:.1f} s\n{exc}", file=sys.stderr
            )
            failures += 1
            continue
        failures += not ok
        status = ("unchanged" if ok else "CHANGED") if args.check else "written"
        print(f"{name}: {status} in {time.perf_counter() - start:.1f} s", flush=True)
    print(f"{len(paths)} notebook(s) in {time.perf_counter() - total:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
