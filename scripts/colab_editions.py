"""Write the Colab editions of the book's notebooks: the same source, as Colab shows it.

Colab opens a notebook from the repository, not from the built book, and it renders
Markdown, not MyST: a chapter opened there as it is would show ``(seat-goals)=``,
``:::{admonition}`` and ``{term}`` before every linked word. So each notebook of
``_toc.yml`` gets editions generated here from ``notebooks/<name>.ipynb`` and committed
under ``colab/``, which the book's Colab buttons and "open on Colab" links open:

``colab/<name>.ipynb``
    Every page, for a reader: MyST roles become plain Markdown links to the published
    book (a glossary term to its entry, an API name to its reference), admonitions
    become quotes with a bold title, labels disappear, a figure's caption follows its
    cell. Code the book hides keeps running but is folded into a titled form cell
    (Colab's ``# @title`` and ``cellView: form``); each solution sits folded in a
    collapsed "Solution" section. The parameters are form fields
    (``RUN_PAPER_MODELS = False  # @param {type:"boolean"}``).
``colab/student/<name>.ipynb``
    A chapter with exercises, for a class: the solution cells are left out; an empty
    cell follows each exercise for the answer.
``colab/instructor/<name>.ipynb``
    The same chapter with its solutions shown, for the teacher to download.

Outputs are left out (Colab runs the notebook; the book shows the committed outputs).
The links point at ``html.baseurl`` of ``_config.yml``; every target is resolved from
the book's sources (pages of ``_toc.yml``, labels, glossary terms, the API pages'
modules), and a target that is not there stops the script. ``tests/test_colab_editions.py``
checks that the committed editions are current and hold no MyST, and
``scripts/check_book.py`` that every link lands on a page and an anchor of the built book.

Usage::

    python scripts/colab_editions.py            # write the editions
    python scripts/colab_editions.py --check    # exit 1 if one is missing or stale
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import inspect
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's biaslib, also when run as a script
sys.path.insert(0, str(ROOT / "scripts"))

from execute_notebooks import is_solution, toc_files, toc_notebooks  # noqa: E402

from biaslib.files import write_text_atomically  # noqa: E402

#: Where the editions are committed (Colab opens them from the repository).
EDITIONS = ROOT / "colab"
#: The three editions: reader (every page), student and instructor (pages with exercises).
KINDS = ("reader", "student", "instructor")
#: A MyST role: ``{term}`text <target>``` or ``{doc}`target```.
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]+)`")
LABEL_LINE = re.compile(r"^\(([\w-]+)\)=\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
FENCE_OPEN = re.compile(r"^(:{3,}|`{3,})\{([\w-]+)\}\s*(.*)$")
#: What a Colab edition must not contain: a role, a label line, a directive fence.
MYST_LEFT = re.compile(r"\{[\w:-]+\}`|^\([\w-]+\)=\s*$|^(:{3,}|`{3,})\{", re.MULTILINE)
#: A Markdown link to a file of the checkout (``[text](../book/conventions.md)``).
RELATIVE_LINK = re.compile(r"\]\((?!https?://|#)([^)\s]+?)\.(md|ipynb)(#[\w-]+)?\)")
#: Each chapter's "Run all" time with the defaults, kept by tests/test_colab_path.py.
RUN_ALL_RECORD = ROOT / "benchmarks" / "results" / "colab_run_all.json"
#: Exercise headings (``scripts/teaching_guide.py`` reads the same form).
EXERCISE = re.compile(r"^### Exercise (\d+)\.", re.MULTILINE)
#: The cell tags under which the book hides a code cell, and the form title it gets here.
HIDDEN_TITLES = {
    "colab-install": "Install biaslib (runs on Colab only)",
    "parameters": "Parameters",
    "remove-cell": "Set-up and checks (hidden in the book)",
    "remove-input": "Code of the output below",
    "hide-input": "Code of the output below",
    "hide-cell": "Code (folded in the book)",
}
SOLUTION_TITLE = "Solution (double-click to show the code)"
#: Under a chapter's "Exercises" heading: where this edition's solutions are.
EXERCISE_NOTES = {
    "reader": "*In this Colab edition each solution is folded: open the section "
              "\"Solution to exercise N\" under an exercise, and double-click its cell to "
              "see the code.*",
    "student": "*Student edition: the solutions are not included. Write your answer in "
               "the empty cell under each exercise; the cells above it must have run.*",
    "instructor": "*Instructor's edition: each solution follows its exercise, shown; run it "
                  "to see the answer it prints and checks.*",
}


def _config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


def book_url() -> str:
    """The published book's address (``html.baseurl`` of ``_config.yml``), ending in ``/``."""
    url = _config().get("html", {}).get("baseurl")
    if not isinstance(url, str) or not url.startswith("https://"):
        raise ValueError("_config.yml: html.baseurl must be the published book's https URL")
    return url.rstrip("/") + "/"


def repository() -> tuple[str, str]:
    """``(owner/name, branch)`` of the repository that ``_config.yml`` names."""
    repo = _config()["repository"]
    url = repo["url"].rstrip("/")
    if not url.startswith("https://github.com/"):
        raise ValueError(f"_config.yml: repository.url must be on GitHub, got {url!r}")
    return url.removeprefix("https://github.com/"), repo.get("branch", "main")


def colab_url(name: str, kind: str = "reader") -> str:
    """The address that opens an edition of ``notebooks/<name>`` on Colab."""
    repo, branch = repository()
    path = edition_path(name, kind)
    return f"https://colab.research.google.com/github/{repo}/blob/{branch}/{path}"


def download_url(name: str, kind: str = "instructor") -> str:
    """The address that downloads an edition of ``notebooks/<name>`` from the repository."""
    repo, branch = repository()
    return f"https://github.com/{repo}/raw/{branch}/{edition_path(name, kind)}"


def edition_path(name: str, kind: str = "reader") -> str:
    """An edition's path in the repository (``colab/seat.ipynb``, ``colab/student/seat.ipynb``)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    folder = "colab" if kind == "reader" else f"colab/{kind}"
    return f"{folder}/{name}.ipynb"


# --------------------------------------------------------------------------------------
# The book's targets, read from its sources
# --------------------------------------------------------------------------------------


def _strip_roles(text: str) -> str:
    """A title as the book prints it: a role's shown text instead of the role."""
    def shown(match: re.Match) -> str:
        return _split_target(match.group(2))[0].lstrip("~")
    return ROLE.sub(shown, text).replace("`", "").strip()


def _split_target(body: str) -> tuple[str, str, bool]:
    """``("text", "target", explicit)`` of a role's body ``text <target>`` or ``target``."""
    match = re.fullmatch(r"(.+?)\s*<([^<>]+)>", body.strip(), flags=re.DOTALL)
    if match:
        return " ".join(match.group(1).split()), match.group(2).strip(), True
    return body.strip(), body.strip(), False


def _markdown_of(docname: str) -> list[str]:
    """The Markdown of a page of the book: its cells', or its file's."""
    path = ROOT / f"{docname}.ipynb"
    if path.is_file():
        nb = nbformat.read(path, as_version=4)
        return [c.source for c in nb.cells if c.cell_type == "markdown"]
    return [(ROOT / f"{docname}.md").read_text(encoding="utf-8")]


@dataclass
class BookIndex:
    """What a Colab edition may link to: pages, labels and glossary terms of the book."""

    titles: dict[str, str] = field(default_factory=dict)  # docname -> title
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)  # label -> (doc, title)
    terms: dict[str, str] = field(default_factory=dict)  # lowercased term -> anchor
    api_pages: dict[str, str] = field(default_factory=dict)  # module -> docname

    def page_url(self, docname: str, anchor: str = "") -> str:
        if docname not in self.titles:
            raise KeyError(f"{docname} is not a page of the book (_toc.yml)")
        return f"{book_url()}{docname}.html" + (f"#{anchor}" if anchor else "")


@cache
def book_index() -> BookIndex:
    """Read the targets from the sources of every page of ``_toc.yml`` and the API pages."""
    index = BookIndex()
    docnames = toc_files()
    api_dir = ROOT / "book" / "api"
    docnames += [f"book/api/{p.stem}" for p in sorted(api_dir.glob("*.md"))]
    for docname in docnames:
        label: str | None = None
        for text in _markdown_of(docname):
            for line in text.splitlines():
                heading = HEADING.match(line)
                if heading and docname not in index.titles and heading.group(1) == "#":
                    index.titles[docname] = _strip_roles(heading.group(2))
                found = LABEL_LINE.match(line)
                if found:
                    label = found.group(1)
                    continue
                if label is None or not line.strip():
                    continue
                fence = FENCE_OPEN.match(line)
                title = (heading.group(2) if heading
                         else fence.group(3) if fence else line)
                index.labels[label] = (docname, _strip_roles(title))
                label = None
    for path in ROOT.glob("notebooks/*.ipynb"):  # figure names: ``{ref}`` targets too
        docname = f"notebooks/{path.stem}"
        for cell in nbformat.read(path, as_version=4).cells:
            figure = cell.metadata.get("mystnb", {}).get("figure", {})
            if "name" in figure:
                index.labels[figure["name"]] = (docname, figure.get("caption", ""))
    glossary = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    for block in re.findall(r"^```\{glossary\}\n(.*?)^```", glossary, flags=re.M | re.S):
        for term in re.findall(r"^(\S.*?)\s*$", block, flags=re.M):
            index.terms[term.lower()] = _sphinx_id(f"term-{term}")
    for path in sorted(api_dir.glob("*.md")):
        for module in re.findall(r"automodule:: ([\w.]+)", path.read_text(encoding="utf-8")):
            index.api_pages[module] = f"book/api/{path.stem}"
    return index


def _sphinx_id(text: str) -> str:
    """The HTML id Sphinx gives a target (``sphinx.util.nodes._make_id``, as a glossary term's)."""
    from sphinx.util.nodes import _make_id

    return _make_id(text)


# --------------------------------------------------------------------------------------
# MyST -> Markdown
# --------------------------------------------------------------------------------------


def _lookup(dotted: str) -> tuple[object, str]:
    """The object a dotted name stands for, and the module that documents it."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attr in parts[split:]:
            obj = getattr(obj, attr)
        return obj, ".".join(parts[:split])
    raise ImportError(dotted)


def _api_link(role: str, body: str, index: BookIndex) -> str:
    """A ``{py:…}`` role as a link to the object's entry in the API reference."""
    text, target, explicit = _split_target(body)
    short = target.startswith("~")
    target = target.lstrip("~")
    obj, module = _lookup(target)
    if role == "py:mod":
        anchor, page_module = f"module-{target}", target
    elif isinstance(obj, ModuleType):
        raise ValueError(f"{{{role}}}`{body}` names a module: write {{py:mod}}")
    elif inspect.isclass(obj) or inspect.isfunction(obj):
        page_module = obj.__module__
        anchor = f"{obj.__module__}.{obj.__qualname__}"
    else:  # a constant: documented where the name is defined
        page_module = module
        anchor = target
    page = index.api_pages.get(page_module)
    if page is None:
        raise KeyError(f"{{{role}}}`{body}`: no API page documents {page_module}")
    if not explicit:
        text = target.rsplit(".", 1)[-1] if short else target
        if role in ("py:func", "py:meth"):
            text += "()"
    return f"[`{text}`]({index.page_url(page, anchor)})"


def _resolve_doc(target: str, docname: str) -> str:
    """A ``{doc}`` target (relative to ``docname``'s folder, or absolute) as a docname."""
    target = target.removesuffix(".md").removesuffix(".ipynb")
    if target.startswith("/"):
        return target.lstrip("/")
    parts = [*docname.split("/")[:-1], *target.split("/")]
    out: list[str] = []
    for part in parts:
        if part == "..":
            out.pop()
        elif part not in ("", "."):
            out.append(part)
    return "/".join(out)


def _role_link(match: re.Match, docname: str, index: BookIndex) -> str:
    role, body = match.groups()
    if role.startswith("py:"):
        return _api_link(role, body, index)
    text, target, explicit = _split_target(body)
    if role == "term":
        anchor = index.terms.get(target.lower())
        if anchor is None:
            raise KeyError(f"{{term}}`{body}` in {docname}: no such glossary term")
        return f"[{text}]({index.page_url('book/glossary', anchor)})"
    if role == "doc":
        page = _resolve_doc(target, docname)
        return f"[{text if explicit else index.titles.get(page, page)}]({index.page_url(page)})"
    if role in ("ref", "numref"):
        if target not in index.labels:
            raise KeyError(f"{{{role}}}`{body}` in {docname}: no such label")
        page, title = index.labels[target]
        shown = text if explicit else title
        return f"[{shown}]({index.page_url(page, _sphinx_id(target))})"
    raise ValueError(f"{docname}: the role {{{role}}} has no Colab form; add one here")


def _relative_link(match: re.Match, docname: str, index: BookIndex) -> str:
    target, _suffix, anchor = match.groups()
    page = _resolve_doc(target, docname)
    return f"]({index.page_url(page, (anchor or '').lstrip('#'))})"


def _quote(title: str, body: list[str]) -> list[str]:
    """An admonition as Markdown: a quote that opens with its title in bold."""
    lines = [f"> **{title}**", ">"]
    lines += [f"> {line}" if line.strip() else ">" for line in body]
    return lines


def _admonitions(text: str, docname: str) -> str:
    """Turn ``:::{admonition} Title`` (and ``{note}``-like) fences into quotes."""
    out: list[str] = []
    lines = iter(text.splitlines())
    for line in lines:
        fence = FENCE_OPEN.match(line)
        if not fence:
            out.append(line)
            continue
        marker, name, title = fence.groups()
        if name in ("code", "code-block", "code-cell"):
            out.append(marker + (f" {title}" if title else ""))
            continue
        body: list[str] = []
        for inner in lines:
            if inner.strip() == marker:
                break
            if not (body == [] and re.match(r"^:\w[\w-]*:", inner)):  # options
                body.append(inner)
        else:
            raise ValueError(f"{docname}: a {marker}{{{name}}} fence is not closed")
        out += _quote(title or name.capitalize(), body)
    return "\n".join(out)


def to_markdown(text: str, docname: str, index: BookIndex | None = None) -> str:
    """A MyST Markdown cell as plain Markdown (Colab's), with links to the published book.

    Raises
    ------
    KeyError
        If a role names a page, label, term or API object the book does not have.
    """
    index = book_index() if index is None else index
    kept = [line for line in text.splitlines() if not LABEL_LINE.match(line)]
    while kept and not kept[0].strip():
        kept.pop(0)
    text = _admonitions("\n".join(kept), docname)
    text = RELATIVE_LINK.sub(lambda m: _relative_link(m, docname, index), text)
    return ROLE.sub(lambda m: _role_link(m, docname, index), text)


# --------------------------------------------------------------------------------------
# Cells
# --------------------------------------------------------------------------------------


def _cell_id(*parts: str) -> str:
    return hashlib.sha1("/".join(parts).encode()).hexdigest()[:12]


def _code_cell(source: str, tags: list[str], *, title: str | None, cell_id: str) -> dict:
    metadata: dict = {"id": cell_id}
    if tags:
        metadata["tags"] = tags
    if title is not None:
        source = f"# @title {title}\n{source}"
        metadata["cellView"] = "form"
    cell = nbformat.v4.new_code_cell(source, metadata=metadata)
    cell.id = cell_id
    return cell


def _markdown_cell(source: str, cell_id: str) -> dict:
    cell = nbformat.v4.new_markdown_cell(source, metadata={"id": cell_id})
    cell.id = cell_id
    return cell


def _parameters(source: str) -> str:
    """A parameters cell as Colab form fields: each boolean becomes a check box."""
    def field_(match: re.Match) -> str:
        return f'{match.group(1)} = {match.group(2)}  # @param {{type:"boolean"}}'
    return re.sub(r"^(\w+) = (True|False)\s*$", field_, source, flags=re.MULTILINE)


def _runtime_note(name: str) -> str | None:
    """What the papers' models cost on Colab (``biasbook.colab``); None for a page without
    a row of its own (a sub-page: its chapter's page states it)."""
    from biasbook.colab import colab_runtime
    from biaslib.errors import UnknownNameError

    try:
        return " ".join(colab_runtime(name).split())
    except UnknownNameError:
        return None


def edition(name: str, kind: str = "reader") -> nbformat.NotebookNode:
    """The ``kind`` edition of ``notebooks/<name>.ipynb`` (see the module docstring)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    docname = f"notebooks/{name}"
    source = nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)
    index = book_index()
    title = index.titles[docname]
    cells: list = []
    collapsed: list[str] = []
    banner_done = False
    exercise = ""
    for number, cell in enumerate(source.cells):
        cid = _cell_id(name, kind, str(number))
        tags = list(cell.metadata.get("tags", []))
        if cell.cell_type == "markdown":
            text = to_markdown(cell.source, docname, index)
            found = EXERCISE.search(text)
            if found:
                exercise = found.group(1)
            cells.append(_markdown_cell(text, cid))
            if not banner_done:
                cells.append(_markdown_cell(_banner(name, kind, title), cid + "b"))
                banner_done = True
            if re.search(r"^\([\w-]+-exercises\)=$", cell.source, flags=re.MULTILINE):
                cells.append(_markdown_cell(EXERCISE_NOTES[kind], cid + "n"))
            if kind == "student" and found:
                cells.append(_code_cell("# Your answer here\n", [], title=None, cell_id=cid + "a"))
            continue
        if cell.cell_type != "code":
            continue
        if is_solution(cell):
            if kind == "student":
                continue
            if kind == "reader":
                head = _markdown_cell(f"#### Solution to exercise {exercise}", cid + "h")
                cells.append(head)
                collapsed.append(head.id)
            cells.append(_code_cell(cell.source, tags, cell_id=cid,
                                    title=SOLUTION_TITLE if kind == "reader" else None))
            continue
        code = cell.source
        if "parameters" in tags:
            code = _parameters(code)
        hidden = next((HIDDEN_TITLES[t] for t in ("colab-install", "parameters", *tags)
                       if t in tags and t in HIDDEN_TITLES), None)
        if "parameters" in tags and "RUN_PAPER_MODELS" in code:
            note = _runtime_note(name)
            if note:
                cells.append(_markdown_cell(_switch_note(name, note), cid + "p"))
        cells.append(_code_cell(code, tags, title=hidden, cell_id=cid))
        caption = cell.metadata.get("mystnb", {}).get("figure", {}).get("caption")
        if caption:
            cells.append(_markdown_cell(f"*{to_markdown(caption, docname, index)}*", cid + "c"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "colab": {"name": f"{name}.ipynb", "provenance": [], "toc_visible": True,
                  **({"collapsed_sections": collapsed} if collapsed else {})},
        "biaslib": {"edition": kind, "source": f"{docname}.ipynb",
                    "generated_by": "scripts/colab_editions.py"},
    }
    return nb


def _banner(name: str, kind: str, title: str) -> str:
    """The note under a Colab edition's title: what it is and where the book page is."""
    page = book_index().page_url(f"notebooks/{name}")
    which = {"reader": "Colab edition",
             "student": "Student edition (the exercises without their solutions)",
             "instructor": "Instructor's edition (the exercises with their solutions shown)"}
    return (f"*{which[kind]} of [{title}]({page}), generated from `notebooks/{name}.ipynb` "
            "by `scripts/colab_editions.py`. **Runtime → Run all** runs it; the book's page "
            "shows the same results with every output already computed.*")


def _switch_note(name: str, runtime: str) -> str:
    """The note above a chapter's parameters: what *Run all* costs, off and on."""
    return (f"**Before Run all.** {run_all_sentence(name)} {runtime} Colab's default "
            "runtime is a CPU.")


def read_run_all(path: Path = RUN_ALL_RECORD) -> dict:
    """The record of *Run all* with the defaults (``{"chapters": {}}`` where none was kept)."""
    if not path.is_file():
        return {"chapters": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def run_all_sentence(name: str) -> str:
    """How long *Run all* took with the defaults, from :data:`RUN_ALL_RECORD`."""
    record = read_run_all()
    times = record["chapters"].get(name)
    if times is None:
        return "With the defaults, *Run all* runs the offline models the book's pages show."
    minutes = max(1, round((times["install_s"] + times["run_s"]) / 60))
    cores = record["machine"].get("cores", "?")
    return (f"With the defaults, *Run all* runs the offline models the book's pages show: "
            f"about {minutes} min on a {cores}-core CPU without GPU, like Colab's free "
            f"runtime (measured {times['date']} by `tests/test_colab_path.py`; on Colab the "
            "first cell also installs biaslib's dependencies, at most about 2½ minutes more).")


# --------------------------------------------------------------------------------------
# Writing and checking
# --------------------------------------------------------------------------------------


def has_exercises(name: str) -> bool:
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    return any(is_solution(c) for c in nb.cells)


def wanted() -> Iterator[tuple[str, str]]:
    """Every ``(name, kind)`` the repository holds an edition of."""
    for path in toc_notebooks():
        yield path.stem, "reader"
        if has_exercises(path.stem):
            yield path.stem, "student"
            yield path.stem, "instructor"


def serialise(nb: nbformat.NotebookNode) -> str:
    nbformat.validate(nb)
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def myst_left(nb: nbformat.NotebookNode) -> list[str]:
    """The MyST constructs left in a notebook's Markdown (none in a Colab edition)."""
    return [m.group(0) for cell in nb.cells if cell.cell_type == "markdown"
            for m in MYST_LEFT.finditer(cell.source)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    want = {EDITIONS.parent / edition_path(n, k): serialise(edition(n, k)) for n, k in wanted()}
    stale = [p for p, text in want.items()
             if not p.is_file() or p.read_text(encoding="utf-8") != text]
    extra = sorted(set(EDITIONS.rglob("*.ipynb")) - set(want))
    for path in stale:
        print(f"{path.relative_to(ROOT)}: {'stale' if args.check else 'written'}")
    for path in extra:
        print(f"{path.relative_to(ROOT)}: not an edition of a page of _toc.yml"
              + ("" if args.check else " (removed)"))
    if args.check:
        if stale or extra:
            print("run: python scripts/colab_editions.py", file=sys.stderr)
            return 1
        return 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomically(path, want[path])
    for path in extra:
        path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
