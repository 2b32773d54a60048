"""Each public name is declared once, read from the source with ``ast``.

A public module-level name (a ``def``, a ``class``, an assignment; not an import, and
not a name with a leading underscore) of ``biaslib`` or ``biasbook`` is defined in one
module only. Where two modules define the same name, either they state the same fact
twice (define it in the lowest module that uses it and import it elsewhere) or two
different things share a name (rename one, or both, to say what each is). The failure
names every module that defines the name, with its line.

The exceptions are protocols: a name that every module of a kind defines *because*
something reads it there by that name (the registry reads each chapter module's
``DECLARED_TABLES`` and ``findings``). They are listed in :data:`PROTOCOLS` with the
reason, and may only be defined where the protocol says.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd
import pytest

import biasbook
import biaslib

ROOT = Path(biaslib.__file__).resolve().parent.parent
PACKAGES = (Path(biaslib.__file__).resolve().parent, Path(biasbook.__file__).resolve().parent)

#: Protocol name → (the package whose modules may define it, why each defines its own).
PROTOCOLS: dict[str, tuple[str, str]] = {
    # biasbook.registry collects every chapter module's stored tables by this name.
    "DECLARED_TABLES": ("biasbook", "each chapter module declares its own stored tables"),
    # biasbook.registry.FINDINGS collects every chapter module's verdicts by this name.
    "findings": ("biasbook", "each chapter module returns its own findings"),
    # A chapter with several stored tables computes one of them by name with
    # ``chapter_table(name)`` (its DECLARED_TABLES' compute functions and its notebook's
    # ``load_or_compute`` call it), and lists their names in CHAPTER_TABLES: the same call
    # shape in each such chapter module, so that a notebook reads like the others.
    "chapter_table": ("biasbook", "each multi-table chapter computes its own tables by name"),
    "CHAPTER_TABLES": ("biasbook", "the names chapter_table computes, in each such chapter"),
    # ``logging.getLogger(__name__)``: each module's own logger, named after the module.
    "logger": ("", "each module logs under its own name"),
}

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _targets(node: ast.expr) -> Iterator[str]:
    """The names an assignment target binds (``a``, ``a, b``, ``[a, *b]``)."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Tuple | ast.List):
        for element in node.elts:
            yield from _targets(element)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def definitions(body: Iterable[ast.stmt]) -> Iterator[tuple[str, int]]:
    """(name, line) of every name a module's statements define at module level.

    Functions, classes, assignments (annotated or not, and ``type`` aliases), also
    inside module-level ``if``/``try``/``with``/``for`` blocks; not imports, and nothing
    inside a function or class body.
    """
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, node.lineno
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in _targets(target):
                    yield name, node.lineno
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            for name in _targets(node.target):
                yield name, node.lineno
        elif type(node).__name__ == "TypeAlias":  # ``type X = ...`` (Python 3.12+)
            yield node.name.id, node.lineno  # type: ignore[attr-defined]
        elif isinstance(node, ast.If | ast.For | ast.While | ast.With | ast.Try):
            blocks = [getattr(node, "body", []), getattr(node, "orelse", []),
                      getattr(node, "finalbody", [])]
            blocks += [h.body for h in getattr(node, "handlers", [])]
            for block in blocks:
                yield from definitions(block)


def public_definitions(sources: dict[str, str]) -> dict[str, list[tuple[str, int]]]:
    """Public name → [(module, line)] of every module that defines it (module → source)."""
    found: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for module, source in sources.items():
        seen: set[str] = set()
        for name, line in definitions(ast.parse(source).body):
            if name.startswith("_") or name in seen:  # private, or redefined in one module
                continue
            seen.add(name)
            found[name].append((module, line))
    return dict(found)


def duplicates(defined: dict[str, list[tuple[str, int]]],
               allowed: dict[str, tuple[str, str]]) -> list[str]:
    """One message per name defined in two or more modules that no protocol allows."""
    problems = []
    for name, where in sorted(defined.items()):
        if len(where) < 2:
            continue
        if name in allowed:
            package = allowed[name][0]
            outside = [f"{_path(m)}:{line}" for m, line in where
                       if package and not (m == package or m.startswith(f"{package}."))]
            if not outside:
                continue
            problems.append(f"{name} (a protocol of {package or 'every module'}) is defined "
                            f"outside it: {', '.join(outside)}")
            continue
        places = ", ".join(f"{_path(m)}:{line}" for m, line in where)
        problems.append(f"{name} is defined in {len(where)} modules: {places}")
    return problems


def _path(module: str) -> str:
    for candidate in (f"{module.replace('.', '/')}.py", f"{module.replace('.', '/')}/__init__.py"):
        if (ROOT / candidate).exists():
            return candidate
    return module


SOURCES: dict[str, str] = {
    _module_name(path): path.read_text(encoding="utf-8")
    for package in PACKAGES for path in sorted(package.rglob("*.py"))
}
DEFINED = public_definitions(SOURCES)


def test_each_public_name_is_declared_in_one_module():
    problems = duplicates(DEFINED, PROTOCOLS)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_every_protocol_is_in_use(name):
    # A protocol that no two modules follow any more is no exception to keep.
    assert len(DEFINED.get(name, [])) >= 2, f"{name} is no protocol any more: drop it"


def test_the_scan_finds_definitions_and_skips_the_rest():
    source = (
        "import os\nfrom x import shared\nA = 1\nB: int = 2\nC: int\n_private = 3\n"
        "x, (y, *z) = 1, (2, 3)\n"
        "def f():\n    inner = 1\nclass K:\n    attr = 1\n"
        "if os.name:\n    D = 1\nelse:\n    E = 1\n"
        "try:\n    F = 1\nexcept ImportError:\n    G = 1\n"
        "A = 4\n"
    )
    names = [name for name, _ in definitions(ast.parse(source).body)]
    assert names == ["A", "B", "_private", "x", "y", "z", "f", "K", "D", "E", "F", "G", "A"]
    defined = public_definitions({"pkg.one": source, "pkg.two": "def shared(): pass\nD = 0\n"})
    assert defined["A"] == [("pkg.one", 3)]  # a name redefined in one module counts once
    # An import is no definition: only pkg.two defines ``shared``.
    assert defined["shared"] == [("pkg.two", 1)]
    assert "_private" not in defined and "inner" not in defined and "attr" not in defined


def test_a_duplicate_names_every_module_and_line():
    defined = {"ALPHA": [("biaslib.audit.run", 54), ("biasbook.weat_static", 65)],
               "findings": [("biasbook.seat", 1), ("biasbook.ceat", 2)],
               "logger": [("biaslib.methods.weat", 3), ("biasbook.seat", 4)],
               "chapter_table": [("biasbook.ceat", 5), ("biaslib.evaluate.ceat", 6)],
               "once": [("biaslib.stats.sets", 1)]}
    problems = duplicates(defined, PROTOCOLS)
    assert problems == [
        "ALPHA is defined in 2 modules: biaslib/audit/run.py:54, biasbook/weat_static.py:65",
        "chapter_table (a protocol of biasbook) is defined outside it: biaslib/evaluate/ceat.py:6",
    ]


def test_the_scan_reads_both_packages():
    modules = {m.split(".")[0] for m in SOURCES}
    assert modules == {"biaslib", "biasbook"}
    assert any(m == "biaslib.methods.weat" for m, _ in DEFINED["weat"])
    assert len(DEFINED["findings"]) >= 5  # every chapter module has its findings


# ------------------------------------------------------------------ the book's shared facts

def _model_names() -> dict[str, str]:
    from biasbook import models

    return {name: getattr(models, name) for name in (
        "MINILM", "SMOLLM2", "TINY_MLM", "GLOVE", "CBOW_GLOVE", "GOOGLENEWS_SUBSET",
        "GLOVE_840B", "GOOGLENEWS")}


def _spelled(source: str, values: set[str]) -> list[tuple[str, int]]:
    """(value, line) of every string constant of ``source`` that is one of ``values``."""
    return [(node.value, node.lineno) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and node.value in values]


def test_no_chapter_module_spells_out_a_model_name():
    # The issue counted "all-MiniLM-L6-v2" written out 22 times across 8 chapter modules:
    # biasbook.models declares each model name once; a chapter imports it.
    values = set(_model_names().values())
    found = [f"{_path(module)}:{line}: {value!r} (import it from biasbook.models)"
             for module, source in SOURCES.items()
             if module.startswith("biasbook.") and module != "biasbook.models"
             for value, line in _spelled(source, values)]
    assert not found, "\n".join(found)




def test_the_spelling_scan_finds_a_name_but_not_prose():
    source = ('M = "all-MiniLM-L6-v2"\n'
              'def f():\n    """Runs all-MiniLM-L6-v2."""\n    return {"all-MiniLM-L6-v2": 1}\n'
              'T = f"{M} (stand-in)"\n')
    assert _spelled(source, {"all-MiniLM-L6-v2"}) == [("all-MiniLM-L6-v2", 1),
                                                      ("all-MiniLM-L6-v2", 4)]


def test_the_model_names_are_the_librarys_keys_and_the_stored_tables_labels():
    from biasbook.models import (
        CBOW_GLOVE,
        GLOVE,
        MINILM,
        MYB_HUB_MODELS,
        PAPER_VECTORS,
        SHORT_NAMES,
        SMOLLM2,
        TINY_MLM,
    )
    from biasbook.published import MYB_MODELS
    from biaslib.embeddings.models import OFFLINE_MODELS, PAPER_MODELS
    from biaslib.embeddings.release_files import RELEASE_FILES
    from biaslib.stimuli.data import load_published

    # The offline transformers are the library's keys, resolved by resolve_model.
    assert {MINILM, SMOLLM2, TINY_MLM} == set(OFFLINE_MODELS)
    # The names are the labels the stored tables carry (renaming one here would orphan
    # those rows): read from the CSVs, not from the code that wrote them.
    columns = {name: set(pd.read_csv(ROOT / "data" / "results" / f"{name}.csv")["model"])
               for name in ("seat_myb", "synthesis_tiny_mlm", "weat_static_glove")}
    assert columns["seat_myb"] == {CBOW_GLOVE, MINILM, SMOLLM2}
    assert columns["synthesis_tiny_mlm"] == {TINY_MLM}
    assert columns["weat_static_glove"] == {GLOVE}
    assert set(SHORT_NAMES) == {CBOW_GLOVE, MINILM, SMOLLM2, TINY_MLM}
    assert len(set(SHORT_NAMES.values())) == len(SHORT_NAMES)
    # The papers' models: Mind Your Bias's Table 3 columns (ELMo is no hub model), hub ids
    # the library knows; the static releases and the published tables computed on them.
    assert list(MYB_HUB_MODELS) == [m for m in MYB_MODELS if m != "ELMo"]
    assert set(MYB_HUB_MODELS.values()) <= set(PAPER_MODELS)
    for release, published in PAPER_VECTORS.values():
        assert release in RELEASE_FILES
        assert len(load_published(published)) == 10  # Caliskan et al.'s ten tests


# ------------------------------------------------------------------ public means used elsewhere


def _used_elsewhere(name: str, module_path: Path, words: dict[Path, set[str]]) -> bool:
    """Whether ``name`` is a whole word of a file other than its module's."""
    return any(name in found for path, found in words.items() if path != module_path)


def _project_words() -> dict[Path, set[str]]:
    """The words of every file that can use a name of the book package: code, notebooks
    (their paired scripts), docs, scripts, configuration."""
    keep = (".py", ".md", ".yml", ".toml", ".cfg")
    return {p: set(re.findall(r"\w+", p.read_text(encoding="utf-8"))) for p in ROOT.rglob("*")
            if p.suffix in keep and p.is_file()
            and not any(part.startswith((".", "_build")) or "venv" in part
                        for part in p.relative_to(ROOT).parts)}


def test_a_public_name_of_the_book_is_used_outside_its_module():
    # The book package is not a library: a name only its own module uses is private
    # (a leading underscore), so that a reader sees at once what the notebooks, the
    # scripts, the tests and the other modules reach. The protocols are read by name.
    words = _project_words()
    unused = [f"{_path(module)}: {name}" for module, source in SOURCES.items()
              if module.startswith("biasbook")
              for name in public_definitions({module: source})
              if name not in PROTOCOLS
              and not _used_elsewhere(name, ROOT / _path(module), words)]
    assert not unused, "used only by their own module, so private:\n" + "\n".join(unused)
