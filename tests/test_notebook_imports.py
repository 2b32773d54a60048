"""A chapter imports what it shows from at most three modules, as a lecture does.

A paper chapter (``notebooks/<chapter>.py``, paired with its ``.ipynb``) imports from
the project only its own module of the book package (``biasbook.<chapter>``: the
chapter's tables, findings and what it shows of the book's shared code), the library's
public surface (``biaslib``: the names of ``biaslib._EXPORTS``) and the library's
plotting and number-formatting surface (``biaslib.reporting``). The standard library and
third-party packages (numpy, pandas, matplotlib, IPython) do not count. The book's own
pages ("What holds up", "Coverage") import from at most three modules of ``biasbook``.

Every cell counts, hidden ones and the exercises' solutions included: a reader who opens
the notebook on Colab sees them all.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
#: A sub-page of a chapter (its details, listed under it in ``_toc.yml``) is held to the
#: chapter's modules.
chapter_of = load_script("execute_notebooks").chapter_of
PROJECT = ("biaslib", "biasbook")
#: The library's surfaces a chapter may import from.
LIBRARY = ("biaslib", "biaslib.reporting")
#: Pages of the book that are not a paper's chapter (they show every chapter's results).
BOOK_PAGES = ("holds_up", "coverage")
MAX_MODULES = 3


def _source(path: Path) -> str:
    # IPython magics and shell escapes are not Python.
    return "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                     if not line.lstrip().startswith(("%", "!")))


def _is_module(dotted: str) -> bool:
    return (ROOT / Path(*dotted.split("."))).with_suffix(".py").is_file() or (
        ROOT / Path(*dotted.split(".")) / "__init__.py").is_file()


def project_imports(source: str) -> dict[str, int]:
    """Project module → first line it is imported from (``from biasbook import seat`` is
    ``biasbook.seat``; ``biaslib.x.y`` reached as an attribute of ``import biaslib`` counts
    as ``biaslib.x.y``)."""
    found: dict[str, int] = {}
    aliases: dict[str, str] = {}
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in PROJECT:
                    found.setdefault(a.name, node.lineno)
                    aliases[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] not in PROJECT:
                continue
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                module = sub if _is_module(sub) else node.module
                found.setdefault(module, node.lineno)
                if module == sub:
                    aliases[a.asname or a.name] = sub
    reached: dict[str, int] = {}
    for node in ast.walk(tree):  # biaslib.stats.permutation.x after `import biaslib`
        if isinstance(node, ast.Attribute):
            chain = []
            root: ast.expr = node
            while isinstance(root, ast.Attribute):
                chain.append(root.attr)
                root = root.value
            if isinstance(root, ast.Name) and root.id in aliases:
                dotted = aliases[root.id]
                for attr in reversed(chain):
                    if not _is_module(f"{dotted}.{attr}"):
                        break
                    dotted = f"{dotted}.{attr}"
                if dotted != aliases[root.id]:
                    reached.setdefault(dotted, node.lineno)
    # ast.walk also visits the inner parts of a chain: keep the deepest module reached.
    for dotted, line in reached.items():
        if not any(other.startswith(dotted + ".") for other in reached):
            found.setdefault(dotted, line)
    return found


def allowed(stem: str) -> tuple[str, ...] | None:
    """The modules a notebook may import from (``None``: any three of the book package).

    A sub-page may import what its chapter may.
    """
    stem = chapter_of(stem)
    if stem in BOOK_PAGES:
        return None
    own = (f"biasbook.{stem}",) if _is_module(f"biasbook.{stem}") else ()
    return (*own, *LIBRARY)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_chapter_imports_from_at_most_three_modules(path):
    found = project_imports(_source(path))
    permitted = allowed(path.stem)
    where = ", ".join(f"{m} (line {line})" for m, line in sorted(found.items(),
                                                                  key=lambda kv: kv[1]))
    assert len(found) <= MAX_MODULES, (
        f"notebooks/{path.name} imports from {len(found)} project modules: {where}")
    if permitted is None:
        assert all(m.startswith("biasbook") for m in found), where
    else:
        stray = {m: line for m, line in found.items() if m not in permitted}
        assert not stray, (
            f"notebooks/{path.name} imports from {sorted(stray)} (lines "
            f"{sorted(stray.values())}); a chapter imports from {', '.join(permitted)} only: "
            "what it shows of the book's shared code through its chapter module, the "
            "library's public names from biaslib, plots and formatting from biaslib.reporting")


def test_the_scan_sees_every_form_of_import():
    source = ("import numpy as np\nimport biaslib\nfrom biaslib import weat\n"
              "from biasbook import seat as chapter\nfrom biaslib.reporting import format_d\n"
              "x = biaslib.stats.permutation.permutation_test\n"
              "from biaslib.stimuli.data import load_test\n")
    assert project_imports(source) == {
        "biaslib": 2, "biasbook.seat": 4, "biaslib.reporting": 5,
        "biaslib.stats.permutation": 6, "biaslib.stimuli.data": 7}


def test_every_chapter_is_held_to_its_own_module():
    stems = {p.stem for p in NOTEBOOKS}
    assert {"seat", "ceat", "lpbs", "mleat", "same", "synthesis"} <= stems
    assert allowed("seat") == ("biasbook.seat", "biaslib", "biaslib.reporting")
    assert allowed("from_scratch") == ("biaslib", "biaslib.reporting")
