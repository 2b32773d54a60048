"""The Colab editions (``colab/``, ``scripts/colab_editions.py``): what Colab shows.

Issue 37: Colab renders Markdown, not MyST, so every notebook page has an edition
generated from its source, committed, and opened by the book's Colab buttons. Checked
here: the committed editions are current; no MyST construct is left in them; every link
names a page of the book and a target its sources define (``scripts/check_book.py``
checks the same links against the built book); each conversion on hand-written input;
the editions keep the notebook's code in order, fold what the book hides, offer the
parameters as Colab form fields with the papers' models off, and the student edition
has no solution while the instructor's shows every one.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]
editions = load_script("colab_editions")
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import colab_button  # noqa: E402

BASE = editions.book_url()
LINK = re.compile(r"\]\((" + re.escape(BASE) + r"[^)\s]*)\)")
WANTED = list(editions.wanted())
SWITCH_FIELD = 'RUN_PAPER_MODELS = False  # @param {type:"boolean"}'


def _edition(name: str, kind: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / editions.edition_path(name, kind), as_version=4)


def _markdown(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


def _code_body(cell) -> str:
    """A code cell's source without the edition's form title and field annotations."""
    lines = [line for line in cell.source.splitlines() if not line.startswith("# @title ")]
    return "\n".join(re.sub(r"  # @param \{[^}]*\}$", "", line) for line in lines)


def test_the_committed_editions_are_current(capsys):
    assert editions.main(["--check"]) == 0, capsys.readouterr().out


def test_every_page_has_its_editions():
    pages = [p.stem for p in load_script("execute_notebooks").toc_notebooks()]
    assert [n for n, k in WANTED if k == "reader"] == pages
    # The chapters with exercises have a student's and an instructor's edition.
    for name in ("from_scratch", "seat", "ceat", "agree"):
        assert {(name, "student"), (name, "instructor")} <= set(WANTED)


@pytest.mark.parametrize(("name", "kind"), WANTED)
def test_no_myst_is_left(name, kind):
    nb = _edition(name, kind)
    assert editions.myst_left(nb) == []
    for text in _markdown(nb):
        assert "{term}" not in text and ":::" not in text and "{ref}" not in text


def _known_anchor(page: str, anchor: str, index) -> bool:
    if page == "book/glossary" and anchor in index.terms.values():
        return True
    if any(doc == page and editions._sphinx_id(label) == anchor
           for label, (doc, _) in index.labels.items()):
        return True
    if page.startswith("book/api/"):  # an object or a module of the API reference
        dotted = anchor.removeprefix("module-")
        obj, _ = editions._lookup(dotted)
        return obj is not None
    return False


@pytest.mark.parametrize(("name", "kind"), WANTED)
def test_every_link_names_a_page_and_a_target_of_the_book(name, kind):
    index = editions.book_index()
    links = [m.group(1) for text in _markdown(_edition(name, kind)) for m in LINK.finditer(text)]
    assert links, f"{name}: no link to the book (the banner names the page)"
    for url in links:
        path, _, anchor = url.removeprefix(BASE).partition("#")
        page = path.removesuffix(".html")
        assert page in index.titles, url
        assert not anchor or _known_anchor(page, anchor, index), url


@pytest.mark.parametrize("name", [n for n, k in WANTED if k == "reader"])
def test_the_reader_edition_keeps_the_code_and_folds_what_the_book_hides(name):
    source = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    nb = _edition(name, "reader")
    old = [c for c in source.cells if c.cell_type == "code"]
    new = [c for c in nb.cells if c.cell_type == "code"]
    assert [_code_body(c) for c in old] == [_code_body(c) for c in new]
    for before, after in zip(old, new, strict=True):
        assert not after.get("outputs")
        tags = set(before.metadata.get("tags", []))
        hidden = tags & {"remove-cell", "remove-input", "hide-input", "hide-cell"}
        assert (after.metadata.get("cellView") == "form") == bool(hidden), after.source[:80]
        if hidden:
            assert after.source.startswith("# @title ")
        if "parameters" in tags and "RUN_PAPER_MODELS" in before.source:
            assert SWITCH_FIELD in after.source.splitlines()
    collapsed = set(nb.metadata["colab"].get("collapsed_sections", []))
    for i, cell in enumerate(nb.cells):
        if "solution" in cell.metadata.get("tags", []):
            head = nb.cells[i - 1]
            assert head.cell_type == "markdown" and head.source.startswith("#### Solution")
            assert head.metadata["id"] in collapsed and head.id in collapsed


@pytest.mark.parametrize("name", [n for n, k in WANTED if k == "student"])
def test_the_student_edition_has_the_exercises_without_solutions(name):
    student, teacher = _edition(name, "student"), _edition(name, "instructor")
    exercises = [t for t in _markdown(student) if editions.EXERCISE.search(t)]
    assert exercises and exercises == [t for t in _markdown(teacher)
                                       if editions.EXERCISE.search(t)]
    assert not any("solution" in c.metadata.get("tags", []) for c in student.cells)
    solutions = [c for c in teacher.cells if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) == len(exercises)
    assert all(c.metadata.get("cellView") != "form" for c in solutions)  # shown, not folded
    source = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    assert [c.source for c in solutions] == [c.source for c in source.cells
                                             if "solution" in c.metadata.get("tags", [])]


# ------------------------------------------------------------------- the conversions


@pytest.fixture(scope="module")
def index():
    return editions.book_index()


def test_a_glossary_term_becomes_a_link_to_its_entry(index):
    text = editions.to_markdown("the {term}`effect size` and {term}`sizes <effect size>`",
                                "notebooks/seat", index)
    url = f"{BASE}book/glossary.html#term-effect-size"
    assert text == f"the [effect size]({url}) and [sizes]({url})"


def test_a_page_and_a_label_become_links_with_their_titles(index):
    text = editions.to_markdown("{doc}`seat_tables`, {doc}`the tables <seat_tables>`, "
                                "{ref}`seat-exercises`", "notebooks/seat", index)
    title = index.titles["notebooks/seat_tables"]
    assert text == (f"[{title}]({BASE}notebooks/seat_tables.html), "
                    f"[the tables]({BASE}notebooks/seat_tables.html), "
                    f"[Exercises]({BASE}notebooks/seat.html#seat-exercises)")


def test_an_api_name_links_its_entry_in_the_reference(index):
    text = editions.to_markdown("{py:func}`biaslib.methods.weat.weat` and "
                                "{py:mod}`biaslib.downloads`", "notebooks/seat", index)
    assert text == (f"[`biaslib.methods.weat.weat()`]({BASE}book/api/methods.html"
                    "#biaslib.methods.weat.weat) and [`biaslib.downloads`]("
                    f"{BASE}book/api/shared.html#module-biaslib.downloads)")


def test_labels_go_and_an_admonition_becomes_a_quote(index):
    text = editions.to_markdown(
        "(x-goals)=\n:::{admonition} Learning goals\n:class: tip\nYou will:\n\n- read\n:::\n"
        "After.", "notebooks/seat", index)
    assert text == "> **Learning goals**\n>\n> You will:\n>\n> - read\nAfter."


def test_a_relative_link_to_a_page_points_at_the_published_page(index):
    assert editions.to_markdown("[see](../book/conventions.md)", "notebooks/seat",
                                index) == f"[see]({BASE}book/conventions.html)"


@pytest.mark.parametrize("text", ["{term}`no such term`", "{ref}`no-such-label`",
                                  "{doc}`no_such_page`"])
def test_a_target_the_book_lacks_stops_the_script(text, index):
    with pytest.raises(KeyError):
        editions.to_markdown(text, "notebooks/seat", index)


def test_a_role_without_a_colab_form_stops_the_script(index):
    with pytest.raises(ValueError, match="no Colab form"):
        editions.to_markdown("{abbr}`WEAT (word embedding association test)`",
                             "notebooks/seat", index)


def test_a_parameters_cell_becomes_form_fields():
    cell = "# what it does\nRECOMPUTE = False\nRUN_PAPER_MODELS = False\nCAP = 3\n"
    assert editions._parameters(cell) == (
        '# what it does\nRECOMPUTE = False  # @param {type:"boolean"}\n'
        f"{SWITCH_FIELD}\nCAP = 3\n")
    assert editions._parameters(SWITCH_FIELD) == SWITCH_FIELD  # a field stays one field


def test_the_book_s_colab_button_opens_the_edition():
    repo = "https://colab.research.google.com/github/o/r/blob/main"
    assert colab_button.edition_url(f"{repo}/notebooks/seat.ipynb") == f"{repo}/colab/seat.ipynb"
    # Not a notebook page (the intro's markdown): left as the theme made it.
    assert colab_button.edition_url(f"{repo}/book/intro.md") == f"{repo}/book/intro.md"
    assert editions.colab_url("seat") == (
        "https://colab.research.google.com/github/mind-the-measure/biaslib-book/blob/main/"
        "colab/seat.ipynb")


@pytest.mark.parametrize("name", [n for n, k in WANTED if k == "reader"])
def test_no_cell_displays_myst(name):
    """Markdown a cell displays is shown as Colab renders it: plain Markdown, no roles.

    (The book would render a role there, but Colab prints it as text; a sentence that
    links the book belongs in a Markdown cell, which the edition converts.)
    """
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    shown = [out.get("data", {}).get("text/markdown", "") for cell in nb.cells
             if cell.cell_type == "code" for out in cell.get("outputs", [])]
    assert [m.group(0) for text in shown for m in editions.MYST_LEFT.finditer(text)] == []
