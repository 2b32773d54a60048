"""The teaching material (issue 24): learning goals, exercises with solutions, the glossary.

- Every chapter (each notebook of ``_toc.yml`` but the two summary pages) opens with 2 to 4
  learning goals and ends with 3 to 6 exercises of graded difficulty, each followed by
  exactly one solution cell: hidden in the book behind "Show solution", executed by nbval
  like every cell, with an ``assert`` that states what the exercise asks, and quick enough
  (its run time is recorded when the outputs are made) to run on every test run.
- Every glossary term's first use on a page is a link to the glossary (``{term}``).
- Every exercise's heading states the minutes a student needs for it, near the authors'
  rule (``estimated_minutes``).
- Every chapter has a 90-minute lab plan whose sections and exercises exist, with links to
  its student and instructor editions; the teaching guide's generated part is current.

The form that is checked is described in ``scripts/teaching_guide.py``.
"""

from __future__ import annotations

import ast
import functools
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


def _demo_chapter(minutes: int | None = 10) -> guide.Chapter:
    sections = (
        guide.Section("demo_page", "What we found", "demo-page-what-we-found", 250, 1, 0),
        guide.Section("demo_page", "The {term}`WEAT`, *by hand*", "demo-page-by-hand", 100, 0, 20),
        guide.Section("demo_page", "Exercises", "demo-page-exercises", 300, 0, 0),
        guide.Section("demo_page_more", "Every cell", "demo-page-more-cells", 50, 2, 0),
    )
    return guide.Chapter(
        "demo_page",
        "Demo: a *test*",
        "demo-page-learning-goals",
        ("compute a thing by hand", "explain why it moves"),
        (
            guide.Exercise(1, "Read", "★☆☆", minutes, "demo-page-exercise-1", (3,), 2.0),
            guide.Exercise(2, "Study", "★★★", 25, "demo-page-exercise-2", (5,), 75.0),
        ),
        125.0,
        sections,
        ("demo_page_more", "demo_page_other"),
    )


DEMO_PLAN = guide.LabPlan(
    read=("What we found", "The WEAT, by hand", ("demo_page_more", "Every cell")),
    exercises=(1,),
    prerequisites="{doc}`../notebooks/from_scratch`",
    question="Why?",
)


def test_render_shows_the_table_and_a_lab_plan_with_its_links_and_minutes():
    chapter = _demo_chapter()
    text = guide.render([chapter], measured={}, plans={"demo_page": DEMO_PLAN})
    assert "{ref}`2 goals <demo-page-learning-goals>` | 1 ★☆☆ · 1 ★★★ | about 3 min |" in text
    assert "### Demo: a test" in text
    # Reading: 250 words at 100 a minute plus one table; 100 words and 20 lines shown.
    assert "| read | {ref}`What we found <demo-page-what-we-found>` | 4 |" in text
    assert "| read | {ref}`The WEAT, by hand <demo-page-by-hand>` | 3 |" in text
    assert "({doc}`../notebooks/demo_page_more`) | 3 |" in text
    assert ("| exercise | ★☆☆ {ref}`Exercise 1. Read <demo-page-exercise-1>` "
            "(solution: under 10 s) | 10 |") in text
    total = guide.START_MINUTES + 4 + 3 + 3 + 10 + guide.CLOSE_MINUTES
    assert f"| **total** | | **{total}** |" in text
    assert "**At home:** ★★★ {ref}`Exercise 2. Study <demo-page-exercise-2>` (about 25 min)" in text
    assert "the sub-page {doc}`../notebooks/demo_page_other`" in text
    assert "the sub-page {doc}`../notebooks/demo_page_more`" not in text
    assert "estimated by the authors" in text and "measured" in text
    assert "its run time: not measured" in text
    repo = "mind-the-measure/biaslib-book"
    assert (f"https://colab.research.google.com/github/{repo}/blob/main/colab/student/"
            "demo_page.ipynb") in text
    assert f"https://github.com/{repo}/raw/main/colab/instructor/demo_page.ipynb" in text
    colab = f"https://colab.research.google.com/github/{repo}/blob/main"
    assert f"{colab}/colab/demo_page.ipynb" in text
    assert "blob/main/notebooks/" not in text


def test_render_shows_the_measured_run_time_of_a_student_edition(tmp_path):
    path = tmp_path / "student_editions.csv"
    path.write_text("chapter,install_seconds,rest_seconds,cpu,date\n"
                    "demo_page,41.26,12.5,Some CPU (2 cores),2026-12-01\n", encoding="utf-8")
    measured = guide.read_measured(path)
    assert measured["demo_page"] == guide.Measured(41.26, 12.5, "Some CPU (2 cores)", "2026-12-01")
    assert guide.read_measured(tmp_path / "absent.csv") == {}
    text = guide.render([_demo_chapter()], measured=measured, plans={"demo_page": DEMO_PLAN})
    assert "install cell 41 s, the rest 12 s" in text and "run time: not measured" not in text
    assert "run on Some CPU (2 cores), on 2026-12-01." in text


def test_an_exercise_heading_without_minutes_is_read_and_fails_the_check(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Demo\n\n(demo-exercises)=\n## Exercises"),
        nbformat.v4.new_markdown_cell("(demo-exercise-1)=\n### Exercise 1. Old form (★☆☆)\n\n"
                                      "What is it? Why?"),
        nbformat.v4.new_code_cell("x = 1\n# a comment\n\nassert x",
                                  metadata={"tags": ["hide-cell", "solution"]}),
        nbformat.v4.new_markdown_cell("(demo-exercise-2)=\n"
                                      "### Exercise 2. New form (★★☆, about 15 min)\n\nDo it."),
        nbformat.v4.new_code_cell("assert True", metadata={"tags": ["hide-cell", "solution"]}),
    ]
    path = tmp_path / "demo.ipynb"
    nbformat.write(nb, path)
    first, second = guide.read_chapter(path).exercises
    assert (first.title, first.level, first.minutes, first.questions, first.solution_lines) == (
        "Old form", "★☆☆", None, 2, 2)
    assert (second.title, second.minutes) == ("New form", 15)
    assert minutes_problems(first) == ["exercise 1: its heading states no minutes "
                                       "(### Exercise N. Title (★☆☆, about M min))"]
    assert minutes_problems(second) == []
    assert guide.estimated_minutes("★☆☆", 2, 2) == 10  # 5 + 2 × 2 + 0.2, to the nearest 5
    assert guide.estimated_minutes("★★★", 0, 0) == 15


def minutes_problems(exercise) -> list[str]:
    """What is wrong with an exercise's stated minutes: missing, or far from the rule."""
    where = f"exercise {exercise.number}"
    if exercise.minutes is None:
        return [f"{where}: its heading states no minutes "
                "(### Exercise N. Title (★☆☆, about M min))"]
    if abs(exercise.minutes - exercise.estimate) > guide.MINUTES_SLACK:
        return [f"{where}: about {exercise.minutes} min, but the authors' rule "
                f"(scripts/teaching_guide.py, estimated_minutes) gives {exercise.estimate}"]
    return []


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_exercise_states_its_minutes(name):
    chapter = guide.read_chapter(ROOT / "notebooks" / f"{name}.ipynb")
    problems = [p for e in chapter.exercises for p in minutes_problems(e)]
    assert not problems, f"{name}: " + "; ".join(problems)


# --- the lab plans ---------------------------------------------------------------------------


@functools.cache
def read_chapter(name: str):
    """A chapter as the guide reads it (its notebook and its sub-pages), once per session."""
    return guide.read_chapter(ROOT / "notebooks" / f"{name}.ipynb")


def test_every_chapter_has_a_lab_plan():
    assert list(guide.LAB_PLANS) == CHAPTERS


@pytest.mark.parametrize("name", CHAPTERS)
def test_lab_plan_names_labelled_sections_and_exercises_that_exist(name):
    chapter = read_chapter(name)
    plan = guide.LAB_PLANS[name]
    for page, heading in plan.read_sections():
        assert page is None or page in chapter.subpages, f"{name}: {page} is not its sub-page"
        section = chapter.section(heading, page)
        shown = sorted({s.title for s in chapter.sections if s.page == (page or name)})
        assert section is not None, f"{name}: no section {heading!r} on {page or name}: {shown}"
        assert section.heading != "Exercises", name
        assert section.label, (
            f"{name}: the section {heading!r} of {page or name} has no label to link")
    assert len(set(plan.read)) == len(plan.read), f"{name}: a section is read twice"
    numbers = [e.number for e in chapter.exercises]
    assert plan.exercises and set(plan.exercises) <= set(numbers), (name, plan.exercises)
    assert len(set(plan.exercises)) == len(plan.exercises), name
    for text in (plan.prerequisites, plan.question):
        for target in re.findall(r"\{doc\}`([^`]+)`", text):
            assert (ROOT / "book" / f"{target}.md").is_file() or (
                ROOT / "book" / f"{target}.ipynb").resolve().is_file(), target


@pytest.mark.parametrize("name", CHAPTERS)
def test_lab_plan_adds_up_to_ninety_minutes(name):
    chapter = read_chapter(name)
    parts = guide.lab_parts(chapter, guide.LAB_PLANS[name], None)
    assert all(p.minutes is not None for p in parts), f"{name}: an exercise without minutes"
    total = guide.lab_minutes(parts)
    assert abs(total - guide.LAB_MINUTES) <= guide.LAB_SLACK, (
        f"{name}: the lab plan adds up to {total} minutes, not {guide.LAB_MINUTES} ± "
        f"{guide.LAB_SLACK}: change its sections or exercises in LAB_PLANS"
    )


def test_the_guide_has_a_plan_per_chapter_with_both_editions():
    text = guide.GUIDE.read_text(encoding="utf-8")
    for name in CHAPTERS:
        assert f"colab/student/{name}.ipynb)" in text, name
        assert f"/raw/main/colab/instructor/{name}.ipynb)" in text, name
    assert "python scripts/colab_editions.py" in text
    assert "--student-copy" not in text
    assert "two chapters" not in text and "| session |" not in text


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
