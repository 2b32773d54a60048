"""The teaching material (issue 24): learning goals, exercises with solutions, the glossary.

- Every chapter (each notebook of ``_toc.yml`` but the two summary pages) opens with 2 to 4
  learning goals and ends with 3 to 6 exercises of graded difficulty, each followed by
  exactly one solution cell: hidden in the book behind "Show solution", executed by nbval
  like every cell, with an ``assert`` that states what the exercise asks, and quick enough
  (its run time is recorded when the outputs are made) to run on every test run.
- Every glossary term's first use on a page is a link to the glossary (``{term}``).
- The teaching guide's generated tables are current, and a student copy drops exactly the
  solutions.

The form that is checked is described in ``scripts/teaching_guide.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]
guide = load_script("teaching_guide")
CHAPTERS = [p.stem for p in guide.chapter_notebooks()]
GLOSSARY = ROOT / "book" / "glossary.md"
#: Markdown pages, besides the notebooks, whose first uses of a term must be linked.
BOOK_PAGES = ("intro", "conventions", "teaching")
#: LaTeX spellings that count as uses of a term (the link itself is written in text).
LATEX_FORMS = {"τ²": (r"\tau^2", r"\tau^{2}"), "I²": ("I^2", "I^{2}")}


# --- the glossary and first uses -----------------------------------------------------------


def glossary_entries(text: str) -> list[tuple[str, ...]]:
    """The entries of every ``{glossary}`` block: each a tuple of its terms (aliases)."""
    blocks = [part.split("\n```", 1)[0] for part in text.split("```{glossary}")[1:]]
    entries: list[list[str]] = []
    previous_was_term = False
    for line in "\n\n".join(blocks).splitlines():
        is_term = bool(line.strip()) and not line.startswith((" ", "\t"))
        if is_term:
            if previous_was_term:
                entries[-1].append(line.strip())
            else:
                entries.append([line.strip()])
        previous_was_term = is_term
    return [tuple(entry) for entry in entries]


ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
INLINE_CODE = re.compile(r"``[^`]*``|`[^`]*`")


def prose(markdown: str) -> tuple[str, list[tuple[int, int, str]]]:
    """The text in which term uses are looked for, and the spans of its ``{term}`` links.

    Headings, MyST labels, directive fences and options, HTML comments, link targets,
    inline code and other roles (``{ref}``, ``{doc}``, ...) are blanked out (replaced by
    spaces, so that positions stay). Each ``{term}`` link gives (start, end, target term).
    """
    keep = []
    for line in markdown.splitlines(keepends=True):
        stripped = line.lstrip()
        skip = (
            stripped.startswith("#")
            or re.match(r"^\([\w-]+\)=\s*$", stripped)
            or stripped.startswith((":::", "```", ":class:", ":label:", ":name:"))
        )
        keep.append(" " * len(line.rstrip("\n")) + "\n" if skip else line)
    text = "".join(keep)
    text = re.sub(r"<!--.*?-->", lambda m: " " * len(m.group()), text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group()), text)
    links: list[tuple[int, int, str]] = []

    def role(match: re.Match[str]) -> str:
        if match.group(1) == "term":
            content = match.group(2)
            target = re.search(r"<([^<>]+)>\s*$", content)
            links.append(
                (match.start(), match.end(), (target.group(1) if target else content).strip())
            )
            return match.group()
        return " " * len(match.group())

    text = ROLE.sub(role, text)
    # Inline code outside the roles (a role's own backticks are kept: its span is known).
    out = list(text)
    for match in INLINE_CODE.finditer(text):
        if not any(s <= match.start() < e for s, e, _ in links):
            out[match.start() : match.end()] = " " * (match.end() - match.start())
    return "".join(out), links


def use_pattern(term: str) -> str:
    """A regex for a use of ``term`` in prose: case as written, a plural -s/-es allowed."""
    forms = [re.escape(term) + r"(?:s|es)?"] + [re.escape(f) for f in LATEX_FORMS.get(term, ())]
    return r"(?<![\w\\-])(?:" + "|".join(forms) + r")(?![\w-])"


def unlinked_first_uses(markdown: str, entries: list[tuple[str, ...]]) -> list[str]:
    """The glossary entries whose first use in ``markdown`` is not a link to that entry."""
    text, links = prose(markdown)
    problems = []
    for entry in entries:
        pattern = "|".join(f"(?:{use_pattern(term)})" for term in entry)
        first = re.search(pattern, text)
        if first is None:
            continue
        linked = any(
            start <= first.start() < end and target in entry for start, end, target in links
        )
        if not linked:
            line = text[: first.start()].count("\n") + 1
            problems.append(f"{entry[0]!r} (first use: {first.group()!r}, line {line})")
    return problems


def page_markdown(name: str) -> str:
    """The markdown of a page: a notebook's markdown cells in order, or a book/ page."""
    if name in BOOK_PAGES:
        return (ROOT / "book" / f"{name}.md").read_text(encoding="utf-8")
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


ENTRIES = glossary_entries(GLOSSARY.read_text(encoding="utf-8"))
TERMS = {term for entry in ENTRIES for term in entry}
#: The glossary's first block (words and statistics): its first uses are linked on every page.
WORD_ENTRIES = glossary_entries(GLOSSARY.read_text(encoding="utf-8").split("\n## ", 2)[1])
#: The key added by issue 36 (test codes, methods and metrics, models): the later blocks.
KEY_ENTRIES = [entry for entry in ENTRIES if entry not in WORD_ENTRIES]
PAGES = [p.stem for p in load_script("execute_notebooks").toc_notebooks()] + list(BOOK_PAGES)


def test_glossary_defines_the_terms_the_issue_names():
    for term in (
        "effect size",
        "association",
        "permutation null",
        "random effects",
        "τ²",
        "I²",
        "template",
        "bleached sentence",
        "pooling",
        "subword",
        "prior correction",
        "bias subspace",
    ):
        assert term in TERMS, term
    assert len(TERMS) == sum(map(len, ENTRIES)), "a term is defined twice"


def test_first_use_checker_finds_an_unlinked_use_and_accepts_a_linked_one():
    entries = [("effect size",), ("τ²", "tau²"), ("template",)]
    assert unlinked_first_uses("The effect sizes grow.", entries) == [
        "'effect size' (first use: 'effect sizes', line 1)"
    ]
    linked = "The {term}`effect sizes <effect size>` grow; the effect size is $d$."
    assert unlinked_first_uses(linked, entries) == []
    # A link to another entry does not count; LaTeX counts as a use; headings do not.
    assert unlinked_first_uses("{term}`template` with $\\tau^2 = 0$", entries) == [
        "'τ²' (first use: '\\\\tau^2', line 1)"
    ]
    assert unlinked_first_uses("## Templates\n\n(x)=\nA `template` in code.", entries) == []
    assert unlinked_first_uses("{ref}`the template <x>` and {term}`τ²`", entries) == []
    # A word that only contains a term is not a use of it.
    assert unlinked_first_uses("templated text, Template", entries) == []


@pytest.mark.parametrize("page", PAGES)
def test_first_use_of_each_glossary_term_links_the_glossary(page):
    problems = unlinked_first_uses(page_markdown(page), WORD_ENTRIES)
    assert not problems, (
        f"{page}: the first use of each glossary term must be a {{term}} link: "
        + "; ".join(problems)
    )


def test_the_glossary_has_the_key_after_its_words():
    assert len(WORD_ENTRIES) >= 12 and len(KEY_ENTRIES) >= 30
    for term in ("C1", "C10", "Dis", "Occ", "I1", "I2", "ABW", "DB-competent", "WEAT", "SEAT",
                 "w-SEAT", "CEAT", "CES", "LPBS", "ML-EAT", "EAT pattern", "SAME", "MAC",
                 "Direct Bias", "RIPA", "RND", "ECT", "RNSB", "generalized WEAT", "MiniLM",
                 "SmolLM2", "tiny MLM", "CBoW", "GloVe 6B 50d", "Google News subset"):
        assert any(term in entry for entry in KEY_ENTRIES), term


@pytest.mark.parametrize("page", PAGES)
def test_first_use_of_each_key_term_links_the_glossary(page):
    problems = unlinked_first_uses(page_markdown(page), KEY_ENTRIES)
    assert not problems, (
        f"{page}: the first use of each test code, method and model must be a {{term}} link: "
        + "; ".join(problems)
    )


@pytest.mark.parametrize("page", [*PAGES, "glossary"])
def test_every_term_link_names_a_glossary_term(page):
    text = page_markdown(page) if page != "glossary" else GLOSSARY.read_text(encoding="utf-8")
    _, links = prose(text)
    unknown = sorted({target for _, _, target in links} - TERMS)
    assert not unknown, f"{page}: {{term}} links to terms the glossary lacks: {unknown}"


# --- learning goals and exercises -----------------------------------------------------------


def test_the_chapters_are_the_books_chapters():
    assert "from_scratch" in CHAPTERS and "synthesis" in CHAPTERS
    assert not set(CHAPTERS) & set(guide.SUMMARY_PAGES)


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_opens_with_two_to_four_learning_goals(name):
    chapter = guide.read_chapter(ROOT / "notebooks" / f"{name}.ipynb")
    assert chapter.goals_label == f"{chapter.prefix}-learning-goals", (
        f"{name}: no learning goals in its opening (before the second ## heading, that is "
        f"before or right after What we found) (or not labelled "
        f"({chapter.prefix}-learning-goals)=)"
    )
    assert 2 <= len(chapter.goals) <= 4, chapter.goals
    assert all(len(goal.split()) >= 4 for goal in chapter.goals), chapter.goals


def _h2_headings(nb: nbformat.NotebookNode) -> list[str]:
    return [
        line
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("## ")
    ]


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_ends_with_graded_exercises_each_with_one_solution(name):
    path = ROOT / "notebooks" / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    chapter = guide.read_chapter(path)
    assert _h2_headings(nb)[-1:] == ["## Exercises"], f"{name}: the last section is not Exercises"
    assert f"({chapter.prefix}-exercises)=" in "\n".join(
        c.source for c in nb.cells if c.cell_type == "markdown"
    )
    exercises = chapter.exercises
    assert 3 <= len(exercises) <= 6, f"{name}: {len(exercises)} exercises"
    assert [e.number for e in exercises] == list(range(1, len(exercises) + 1))
    assert [e.label for e in exercises] == [
        f"{chapter.prefix}-exercise-{e.number}" for e in exercises
    ]
    order = list(guide.LEVELS)
    levels = [order.index(e.level) for e in exercises]
    assert levels == sorted(levels), f"{name}: the difficulty goes down: {levels}"
    assert len(set(levels)) >= 2, f"{name}: one level only"
    for exercise in exercises:
        assert len(exercise.solutions) == 1, f"{name} exercise {exercise.number}"
    solutions = [i for i, c in enumerate(nb.cells) if guide.is_solution(c)]
    assert solutions == [e.solutions[0] for e in exercises], "a solution outside an exercise"


@pytest.mark.parametrize("name", CHAPTERS)
def test_solutions_are_hidden_executed_asserting_and_quick(name):
    path = ROOT / "notebooks" / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    chapter = guide.read_chapter(path)
    for exercise in chapter.exercises:
        cell = nb.cells[exercise.solutions[0]]
        where = f"{name} exercise {exercise.number}"
        assert "hide-cell" in cell.metadata.get("tags", []), f"{where}: not hidden"
        prompts = cell.metadata.get("mystnb", {})
        assert prompts.get("code_prompt_show") == "Show solution", where
        assert prompts.get("code_prompt_hide") == "Hide solution", where
        tree = ast.parse(cell.source)
        asserts = [node for node in ast.walk(tree) if isinstance(node, ast.Assert)]
        assert asserts, f"{where}: the solution asserts nothing"
        assert not any(isinstance(a.test, ast.Constant) and a.test.value for a in asserts), (
            f"{where}: an assert of a constant"
        )
        assert cell.execution_count is not None, f"{where}: not executed"
        assert not [o for o in cell.outputs if o.output_type == "error"], where
        assert cell.outputs, f"{where}: the solution shows no answer"
        assert exercise.seconds is not None, (
            f"{where}: no run time recorded; run python scripts/execute_notebooks.py {path.name}"
        )
        assert exercise.seconds <= guide.SOLUTION_LIMIT_S, f"{where}: {exercise.seconds} s"


# --- the teaching guide --------------------------------------------------------------------


def test_teaching_guide_tables_are_current():
    assert guide.main(["--check"]) == 0, "run python scripts/teaching_guide.py"


def test_teaching_guide_is_in_the_book_with_the_glossary():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert "file: book/teaching" in toc and "file: book/glossary" in toc
    assert toc.index("file: book/conventions") < toc.index("file: notebooks/from_scratch")
    assert toc.index("file: notebooks/from_scratch") < toc.index("file: notebooks/weat_static")


def test_render_lists_every_exercise_with_its_level_and_link():
    chapter = guide.Chapter(
        "demo_page",
        "Demo",
        "demo-page-learning-goals",
        ("compute a thing by hand", "explain why it moves"),
        (
            guide.Exercise(1, "Read", "★☆☆", "demo-page-exercise-1", (3,), 2.0),
            guide.Exercise(2, "Study", "★★★", "demo-page-exercise-2", (5,), 75.0),
        ),
        125.0,
    )
    text = guide.render([chapter])
    assert "{ref}`2 goals <demo-page-learning-goals>` | 1 ★☆☆ · 1 ★★★ | about 3 min |" in text
    assert "- ★☆☆ {ref}`Exercise 1. Read <demo-page-exercise-1>` (solution: under 10 s)" in text
    assert "(solution: about 2 min)" in text
    assert "blob/main/notebooks/demo_page.ipynb" in text


def test_student_copy_drops_exactly_the_solutions(tmp_path):
    source = ROOT / "notebooks" / f"{CHAPTERS[0]}.ipynb"
    nb = nbformat.read(source, as_version=4)
    n_solutions = sum(guide.is_solution(c) for c in nb.cells)
    out = tmp_path / "student.ipynb"
    assert guide.student_copy(source, out) == n_solutions
    copy = nbformat.read(out, as_version=4)
    assert len(copy.cells) == len(nb.cells)
    assert not any(guide.is_solution(c) for c in copy.cells)
    kept = [c.source for c in nb.cells if not guide.is_solution(c)]
    assert [c.source for c in copy.cells if not c.source.startswith("# Your answer")] == kept


def test_run_times_reads_each_solution_cells_timing_from_nbclient_metadata():
    execute_notebooks = load_script("execute_notebooks")
    nb = nbformat.v4.new_notebook()
    timed = {
        "iopub.execute_input": "2026-01-01T10:00:00.250000Z",
        "shell.execute_reply": "2026-01-01T10:00:02.750000Z",
    }
    nb.cells = [
        nbformat.v4.new_code_cell("x = 1", metadata={"execution": dict(timed)}),
        nbformat.v4.new_code_cell("assert x", metadata={"tags": ["solution"], "execution": timed}),
        nbformat.v4.new_code_cell("assert x", metadata={"tags": ["hide-cell", "solution"]}),
    ]
    assert execute_notebooks.run_times(nb, 12.34) == {"notebook": 12.3, "solutions": [2.5, None]}
    execute_notebooks.strip_timing(nb)
    assert not any("execution" in cell.metadata for cell in nb.cells)
