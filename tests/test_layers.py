"""The code's layout rules, read from the source with ``ast``.

1. Layer order: a module imports only modules of its own layer and of the layers
   before it in ``biaslib._LAYERS`` (and the shared ``biaslib._SHARED`` modules and
   the package root), at module level and inside functions alike.
2. No module imports a private name (leading underscore, not a dunder) from another
   module: neither ``from x import _y`` nor ``x._y`` on an imported module.
3. No import cycle among biaslib's modules at module level; and none that a
   function-level import hides (a loop "broken" by importing inside a function).
4. The library is the library: no biaslib module imports the book's package
   ``biasbook`` (in any form), and the book's modules, like the library's, use no
   private name of another module.

Each violation names the file, the line and the rule.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import biaslib

PACKAGE = Path(biaslib.__file__).resolve().parent
ROOT = PACKAGE.parent
LAYERS: tuple[str, ...] = biaslib._LAYERS
SHARED: tuple[str, ...] = biaslib._SHARED


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
TREES: dict[str, ast.Module] = {
    name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, path in MODULES.items()
}


@dataclass(frozen=True)
class Import:
    """One import of a biaslib module found in the source."""

    importer: str
    target: str  # the biaslib module imported (the deepest that exists)
    line: int
    in_function: bool
    type_checking: bool  # under ``if TYPE_CHECKING:`` (never runs)

    def where(self) -> str:
        return f"{MODULES[self.importer].relative_to(ROOT)}:{self.line}"


def _deepest_module(dotted: str) -> str | None:
    """The longest prefix of ``dotted`` that is a biaslib module (``None`` outside biaslib)."""
    while dotted:
        if dotted in MODULES:
            return dotted
        dotted = dotted.rpartition(".")[0]
    return None


def _absolute(importer: str, node: ast.ImportFrom) -> str:
    """The absolute module of a (possibly relative) ``from ... import``."""
    if not node.level:
        return node.module or ""
    is_package = MODULES[importer].name == "__init__.py"
    base = importer.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _from_target(module: str, name: str) -> str | None:
    """The biaslib module ``from module import name`` reaches."""
    if module == "biaslib" and name in biaslib._EXPORTS:  # a lazily re-exported public name
        return biaslib._EXPORTS[name]
    return _deepest_module(f"{module}.{name}") or _deepest_module(module)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST, in_function: bool = False,
          type_checking: bool = False) -> Iterator[tuple[ast.AST, bool, bool]]:
    """Every node with whether it sits inside a function and under ``if TYPE_CHECKING``."""
    for child in ast.iter_child_nodes(node):
        yield child, in_function, type_checking
        func = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        checking = type_checking or (isinstance(child, ast.If) and _is_type_checking(child.test))
        yield from _walk(child, func, checking)


def _imports(importer: str, tree: ast.Module | None = None) -> Iterator[Import]:
    """The biaslib imports of a module (of ``tree`` instead of its source, when given)."""
    for node, in_function, checking in _walk(TREES[importer] if tree is None else tree):
        targets: list[str | None] = []
        if isinstance(node, ast.Import):
            targets = [_deepest_module(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(importer, node)
            if module == "biaslib" or module.startswith("biaslib."):
                targets = [_from_target(module, alias.name) for alias in node.names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            targets = [_deepest_module(node.args[0].value)]
        for target in targets:
            if target is not None and target != importer:
                yield Import(importer, target, node.lineno, in_function, checking)


IMPORTS: list[Import] = [imp for name in MODULES for imp in _imports(name)]


def _layer(module: str) -> str | None:
    """The layer (or shared module) a biaslib module belongs to; ``None`` for the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _rank(module: str) -> int:
    layer = _layer(module)
    if layer is None or layer in SHARED:
        return -1  # the package root and the shared modules sit below every layer
    return LAYERS.index(layer)


# --------------------------------------------------------------------------- 1. layer order


def test_every_module_belongs_to_a_declared_layer():
    unknown = sorted({_layer(m) for m in MODULES} - set(LAYERS) - set(SHARED) - {None})
    assert not unknown, f"biaslib._LAYERS / _SHARED do not name {unknown}"
    assert len(set(LAYERS) | set(SHARED)) == len(LAYERS) + len(SHARED)


def _layer_violations(imports: list[Import]) -> list[str]:
    found = []
    for imp in imports:
        if _layer(imp.importer) is None:  # the package root only names its layers
            continue
        if _layer(imp.importer) in SHARED and _layer(imp.target) not in (*SHARED, None):
            rule = "a shared module imports no layer"
        elif _rank(imp.target) > _rank(imp.importer):
            rule = "layer order: a module imports only its own and earlier layers"
        else:
            continue
        where = "inside a function" if imp.in_function else "at module level"
        found.append(f"{imp.where()}: {imp.importer} imports {imp.target} {where} ({rule}: "
                     f"{' -> '.join(LAYERS)})")
    return found


def test_layer_order():
    violations = _layer_violations(IMPORTS)
    assert not violations, "\n".join(violations)


def test_layer_check_reports_file_line_and_rule():
    fake = [Import("biaslib.stats.similarity", "biaslib.audit.run", 7, True, False),
            Import("biaslib.errors", "biaslib.methods.weat", 3, False, False),
            Import("biaslib.audit.run", "biaslib.stats.similarity", 9, False, False)]
    found = _layer_violations(fake)
    assert len(found) == 2
    assert found[0].startswith("biaslib/stats/similarity.py:7: ")
    assert "inside a function" in found[0]
    assert "layer order" in found[0]
    assert found[1].startswith("biaslib/errors.py:3: ") and "shared module" in found[1]


def test_the_scan_sees_the_imports_it_checks():
    # Guards the checks above against finding nothing: known imports of each kind.
    pairs = {(i.importer, i.target, i.in_function) for i in IMPORTS}
    assert ("biaslib.methods.weat", "biaslib.stats.sets", False) in pairs
    assert ("biaslib.stimuli.cooccurrence", "biaslib.stimuli.corpus", False) in pairs
    source = ("from typing import TYPE_CHECKING\n"
              "from biaslib import weat, __version__\n"
              "if TYPE_CHECKING:\n    from biaslib.evaluate import seat\n"
              "def f():\n    from ..audit.run import x\n"
              "    return importlib.import_module('biaslib.reporting.plots')\n")
    found = list(_imports("biaslib.stats.sets", ast.parse(source)))
    assert [(i.target, i.line, i.in_function, i.type_checking) for i in found] == [
        ("biaslib.methods.weat", 2, False, False), ("biaslib", 2, False, False),
        ("biaslib.evaluate.seat", 4, False, True), ("biaslib.audit.run", 6, True, False),
        ("biaslib.reporting.plots", 7, True, False)]


# --------------------------------------------------------------------------- 2. private names


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_uses(module: str, tree: ast.Module) -> list[str]:
    """``from x import _y`` and ``x._y`` on a name bound to an imported module."""
    path = MODULES[module].relative_to(ROOT) if module in MODULES else module
    found = []
    modules_bound: set[str] = set()
    for node, _, _ in _walk(tree):
        if isinstance(node, ast.Import):
            modules_bound |= {(a.asname or a.name.partition(".")[0]) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node) if module in MODULES else (node.module or "")
            if source == "__future__":
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(f"{path}:{node.lineno}: imports the private name {alias.name} "
                                 f"from {source} (rule: no module imports another's private "
                                 "names)")
                elif f"{source}.{alias.name}" in MODULES:
                    modules_bound.add(alias.asname or alias.name)
    for node, _, _ in _walk(tree):
        if not isinstance(node, ast.Attribute) or not _is_private(node.attr):
            continue
        root: ast.expr = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in modules_bound:
            found.append(f"{path}:{node.lineno}: uses the private name {ast.unparse(node)} of "
                         f"the module {root.id} (rule: no module imports another's private "
                         "names)")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_names_of_other_modules(module):
    violations = _private_uses(module, TREES[module])
    assert not violations, "\n".join(violations)


def test_private_name_check_finds_both_forms():
    tree = ast.parse("from __future__ import annotations\n"
                     "from biaslib.stimuli.corpus import _spans, spans_as_given\n"
                     "import numpy as np\n"
                     "from biaslib.stimuli import corpus\n"
                     "x = np.random._bit_generator, corpus._matcher, corpus.__name__\n")
    found = _private_uses("example", tree)
    assert len(found) == 3
    assert found[0].startswith("example:2: imports the private name _spans")
    assert found[1].startswith("example:5: uses the private name np.random._bit_generator")
    assert found[2].startswith("example:5: uses the private name corpus._matcher")


# --------------------------------------------------------------------------- 3. cycles


def _cycles(imports: list[Import]) -> list[list[Import]]:
    """One import cycle per strongly connected group of modules (Tarjan), as its imports."""
    graph: dict[str, dict[str, Import]] = {m: {} for m in MODULES}
    for imp in imports:
        graph[imp.importer].setdefault(imp.target, imp)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    cycles = []
    for group in groups:  # the shortest way from the group's first module back to it
        members, start = set(group), group[0]
        came_from: dict[str, Import] = {}
        frontier = [start]
        while start not in came_from:
            frontier = [came_from.setdefault(t, graph[node][t]).target
                        for node in frontier for t in sorted(graph[node])
                        if t in members and t not in came_from]
        path, node = [], start
        while True:
            path.append(came_from[node])
            node = came_from[node].importer
            if node == start:
                break
        cycles.append(path[::-1])
    return cycles


def _describe(cycle: list[Import], rule: str) -> str:
    steps = "\n".join(f"  {i.where()}: {i.importer} imports {i.target}"
                      f"{' (inside a function)' if i.in_function else ''}" for i in cycle)
    return f"import cycle ({rule}):\n{steps}"


def test_no_import_cycle_at_module_level():
    runtime = [i for i in IMPORTS if not i.in_function and not i.type_checking]
    cycles = _cycles(runtime)
    assert not cycles, "\n".join(_describe(c, "no cycle at module level") for c in cycles)


@pytest.mark.parametrize("layer", [
    *LAYERS, *SHARED,
])
def test_no_import_cycle_hidden_by_function_level_imports(layer):
    # With the layer order kept, a cycle can only run within one layer.
    within = [i for i in IMPORTS if not i.type_checking
              and _layer(i.importer) == layer == _layer(i.target)]
    cycles = _cycles(within)
    assert not cycles, "\n".join(_describe(c, "no loop broken by a function-level import")
                                 for c in cycles)


def test_cycle_check_finds_and_describes_a_cycle():
    a, b, c = "biaslib.stats.similarity", "biaslib.stats.permutation", "biaslib.stats.sets"
    fake = [Import(a, b, 3, False, False), Import(b, c, 4, False, False),
            Import(c, a, 5, True, False), Import(a, "biaslib.errors", 6, False, False)]
    (cycle,) = _cycles(fake)
    assert {(i.importer, i.target) for i in cycle} == {(a, b), (b, c), (c, a)}
    text = _describe(cycle, "rule")
    assert "biaslib/stats/sets.py:5: biaslib.stats.sets imports biaslib.stats.similarity " \
           "(inside a function)" in text
    assert not _cycles(fake[:2])


# --------------------------------------------------------------------------- 4. the book beside


BOOK = ROOT / "biasbook"
BOOK_TREES: dict[str, ast.Module] = {
    "biasbook." + p.stem if p.stem != "__init__" else "biasbook":
        ast.parse(p.read_text(encoding="utf-8"), str(p))
    for p in sorted(BOOK.glob("*.py"))
}


def _book_imports(module: str, tree: ast.Module) -> list[str]:
    """Every import of ``biasbook`` in ``tree``, at any depth, as ``file:line: statement``."""
    found = []
    for node, _, _ in _walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant)):
            names = [str(node.args[0].value)]
        if any(n == "biasbook" or n.startswith("biasbook.") for n in names):
            path = MODULES[module].relative_to(ROOT) if module in MODULES else module
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_book_package_exists_beside_the_library():
    assert (BOOK / "registry.py").is_file() and "biasbook.registry" in BOOK_TREES
    assert not (PACKAGE / "chapters").exists(), "the book's code lives in biasbook/, not biaslib/"


def test_no_library_module_imports_the_book():
    found = [hit for name, tree in TREES.items() for hit in _book_imports(name, tree)]
    assert not found, ("biaslib imports the book's package (the library must stand alone):\n"
                       + "\n".join(found))


def test_book_import_check_finds_every_form():
    tree = ast.parse("import biasbook\nfrom biasbook.ceat import x\n"
                     "def f():\n    import importlib\n"
                     "    return importlib.import_module('biasbook.seat')\n"
                     "from biaslib import weat\n")
    found = _book_imports("example", tree)
    assert [f.split(":")[1] for f in found] == ["1", "2", "5"]


@pytest.mark.parametrize("module", sorted(BOOK_TREES))
def test_no_private_names_of_other_modules_in_the_book(module):
    violations = _private_uses(module, BOOK_TREES[module])
    assert not violations, "\n".join(violations)
