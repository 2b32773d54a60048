"""Every exercise solution runs without the shared folder: no corpus extract, no reference copies.

The teaching guide promises that every exercise's solution runs on a CPU in seconds on a
newcomer's clone or on Colab, where ``../shared`` (the corpus extract, the reference
copies) is absent. Two checks:

1. Statically, over every notebook of the book (``_toc.yml``): no cell tagged ``solution``
   (``scripts/execute_notebooks.py``'s ``is_solution``) is tagged ``needs-corpus``, names
   the shared folder or a function that reads the corpus extract, or uses a name that only
   a ``needs-corpus`` cell defines (that cell is skipped where the extract is absent).
2. By running it: ``ceat.ipynb``, the chapter whose exercises read corpus vectors (the C6
   vectors shipped with the book, ``biasbook.ceat.c6_minilm_vectors``), is executed whole
   with nbclient in a kernel that cannot see the shared folder (``$BIASLIB_SHARED`` and
   ``$BIASLIB_CORPUS_DIR`` on empty folders), skipping the cells tagged ``needs-corpus`` as
   ``conftest.py`` does under nbval. Every solution cell must run without an error and
   print no "Not run", and its outputs must equal the committed ones (executed with the
   extract): the exercises give the same numbers with and without it.

Every other chapter's solutions run without the shared folder too, from the wheel:
``tests/test_colab_path.py`` runs each page's Colab edition in a fresh venv whose kernel
has no corpus extract and compares every cell's outputs with the committed ones.

Run time on the 2-core build machine: about 27 s for the file (14 s of CPU). The static
checks take under a second; the execution about 17 s (the chapter reads stored tables, the
solutions run CEAT on the shipped vectors; no model embeds a sentence).
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]
execute_notebooks = load_script("execute_notebooks")
NOTEBOOKS = execute_notebooks.toc_notebooks()
#: The tag of cells that read the corpus extract (``conftest.py`` skips them without it).
NEEDS_CORPUS = "needs-corpus"
#: What reads the shared folder, or the corpus extract in it: its names and environment
#: variables, and the functions that look the extract up or read its sentences.
READS_SHARED = re.compile(
    r"\.\./shared|BIASLIB_SHARED|BIASLIB_CORPUS_DIR|shared_paths|\bcorpus_dir\b|"
    r"\bextract_path\b|\bextract_sha256\b|\bdescribe_extract\b|\bread_extract\b|"
    r"\bcontexts_for_(?:test|words)\b|\bcorpus_contexts\b|\bc6_contexts\b|"
    r"\bload_coverage\b|\bcoverage_by_test\b|\bNO_CORPUS\b|\bEXTRACT\b")
#: The notebooks whose solutions are executed here without the shared folder.
EXECUTED = ("ceat",)


def _code(cell: nbformat.NotebookNode) -> str:
    """A code cell's source as Python: IPython's magics and shell lines blanked."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in cell.source.splitlines())


def _defined(tree: ast.AST) -> set[str]:
    """Names a cell binds: assignments, loop and ``with`` targets, imports, defs, classes."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _used(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def corpus_only_names(nb: nbformat.NotebookNode) -> set[str]:
    """Names that only cells tagged ``needs-corpus`` define (absent where they are skipped)."""
    corpus, other = set(), set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        names = _defined(ast.parse(_code(cell)))
        (corpus if NEEDS_CORPUS in cell.metadata.get("tags", []) else other).update(names)
    return corpus - other


def solution_problems(nb: nbformat.NotebookNode) -> list[str]:
    """Why each solution cell of ``nb`` could not run without the shared folder."""
    problems = []
    only_corpus = corpus_only_names(nb)
    solutions = [c for c in nb.cells if execute_notebooks.is_solution(c)]
    for number, cell in enumerate(solutions, start=1):
        where = f"solution {number}"
        if NEEDS_CORPUS in cell.metadata.get("tags", []):
            problems.append(f"{where} is tagged {NEEDS_CORPUS}")
        found = sorted(set(READS_SHARED.findall(cell.source)))
        if found:
            problems.append(f"{where} reads the shared folder or the corpus extract: {found}")
        tree = ast.parse(_code(cell))
        borrowed = sorted((_used(tree) - _defined(tree)) & only_corpus)
        if borrowed:
            problems.append(f"{where} uses {borrowed}, defined only by {NEEDS_CORPUS} cells")
    return problems


def test_the_book_has_notebooks_with_solutions():
    # A moved _toc.yml or a renamed tag would make the checks below pass on nothing.
    with_solutions = [p.stem for p in NOTEBOOKS
                      if any(execute_notebooks.is_solution(c)
                             for c in nbformat.read(p, as_version=4).cells)]
    assert set(EXECUTED) <= set(with_solutions)
    assert len(with_solutions) >= 5


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_solution_needs_the_shared_folder(path):
    problems = solution_problems(nbformat.read(path, as_version=4))
    assert not problems, f"{path.name}: " + "; ".join(problems)


def test_the_static_check_finds_a_solution_that_needs_the_corpus():
    nb = nbformat.v4.new_notebook()
    setup = nbformat.v4.new_code_cell("vectors = embed(contexts_for_test(test))")
    setup.metadata["tags"] = [NEEDS_CORPUS]
    tagged = nbformat.v4.new_code_cell("print(1)")
    tagged.metadata["tags"] = ["solution", NEEDS_CORPUS]
    borrows = nbformat.v4.new_code_cell("print(vectors)")
    reads = nbformat.v4.new_code_cell("if EXTRACT is None:\n    print(NO_CORPUS)")
    fine = nbformat.v4.new_code_cell("x = 1\nprint(x)")
    for cell in (borrows, reads, fine):
        cell.metadata["tags"] = ["hide-cell", "solution"]
    nb.cells = [setup, tagged, borrows, reads, fine]
    problems = solution_problems(nb)
    assert len(problems) == 3, problems
    assert problems[0] == "solution 1 is tagged needs-corpus"
    assert "['vectors'], defined only by needs-corpus cells" in problems[1]
    assert "['EXTRACT', 'NO_CORPUS']" in problems[2]


def _texts(cell: nbformat.NotebookNode) -> list[str]:
    """A cell's outputs as text (streams, text/plain and text/markdown, tracebacks)."""
    texts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            texts.append(out.text)
        elif out.output_type == "error":
            texts.append("\n".join(out.traceback))
        else:
            data = out.get("data", {})
            texts += [data[k] for k in ("text/plain", "text/markdown") if k in data]
    return texts


@pytest.mark.parametrize("name", EXECUTED)
def test_solutions_run_without_the_shared_folder(name, tmp_path):
    path = ROOT / "notebooks" / f"{name}.ipynb"
    committed = nbformat.read(path, as_version=4)
    nb = nbformat.read(path, as_version=4)
    (tmp_path / "shared").mkdir()
    (tmp_path / "corpus").mkdir()
    environ = {k: v for k, v in os.environ.items()
               if k not in ("BIASLIB_SHARED", "BIASLIB_CORPUS_DIR")}
    environ |= execute_notebooks.KERNEL_ENV
    environ |= {"BIASLIB_SHARED": str(tmp_path / "shared"),
                "BIASLIB_CORPUS_DIR": str(tmp_path / "corpus")}
    # A last cell asks the kernel whether it saw an extract (the chapter's EXTRACT).
    nb.cells.append(nbformat.v4.new_code_cell("print(EXTRACT is None)"))
    client = NotebookClient(nb, timeout=600, record_timing=False,
                            skip_cells_with_tag=NEEDS_CORPUS,
                            resources={"metadata": {"path": str(ROOT / "notebooks")}})
    client.execute(env=environ)  # raises CellExecutionError on any cell's error
    assert _texts(nb.cells.pop()) == ["True\n"]

    sanitizers = execute_notebooks.load_sanitizers()
    solutions = [(old, new) for old, new in zip(committed.cells, nb.cells, strict=True)
                 if execute_notebooks.is_solution(new)]
    assert solutions
    for number, (old, new) in enumerate(solutions, start=1):
        assert new.get("execution_count"), f"solution {number} did not run"
        shown = "".join(_texts(new))
        assert not [o for o in new.outputs if o.output_type == "error"], shown
        assert "Not run" not in shown, f"solution {number}: {shown}"
        assert (execute_notebooks.comparable_outputs(new, sanitizers)
                == execute_notebooks.comparable_outputs(old, sanitizers)), (
            f"solution {number}'s outputs differ from the committed ones")
