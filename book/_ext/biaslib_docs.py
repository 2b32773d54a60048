"""How the book renders biaslib's docstrings: three additions to autodoc and napoleon.

Links by other names
    The API reference (``book/api.md``, a page per layer in ``book/api/``)
    documents every object once, in the module that defines it. References
    written with another name for the same object do not match that entry by
    themselves: a public name of the package or a re-export (``biaslib.weat``,
    ``biaslib.embeddings.StaticEmbeddings``), or a name imported into the module
    whose docstring refers to it (``:func:`ceat``` in :mod:`biaslib.evaluate.ceat`).
    When Sphinx finds no target for such a reference, :func:`resolve_alias`
    imports the object the name stands for and links the documented entry that
    is the same object.

The public names, from the one list
    ``.. biaslib-public-names::`` (:class:`PublicNames`) writes the table of
    the names importable from ``biaslib`` when the book is built, from
    ``biaslib._EXPORTS`` (:func:`public_name_entries`), so that the API page
    does not keep a copy of that list.

Comments on constants are plain text
    For a constant or attribute, napoleon reads ``text: more`` on the first
    line of its doc comment as ``type: description``. biaslib writes its
    ``#:`` comments as prose ("Caliskan et al. (2017): a normal distribution
    …"), so those docstrings are parsed as ordinary numpy docstrings instead
    (:func:`keep_comment`, :func:`parse_as_prose`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.ext.napoleon import NumpyDocstring
from sphinx.util.docutils import SphinxDirective

_MISSING = object()
_PROSE = ("data", "attribute", "property")
#: Docstrings as written, between the two handlers around napoleon's.
_WRITTEN: dict[tuple[str, str], list[str]] = {}
#: Napoleon's own handler of ``autodoc-process-docstring`` runs at the default priority.
_NAPOLEON_PRIORITY = 500


def _lookup(dotted: str) -> Any:
    """The object a dotted path names (the longest importable module, then attributes)."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attr in parts[split:]:
            obj = getattr(obj, attr, _MISSING)
            if obj is _MISSING:
                return _MISSING
        return obj
    return _MISSING


def _documented_name(env: BuildEnvironment, target: str, module: str | None) -> str | None:
    """The documented full name of the object ``target`` stands for in ``module``."""
    documented = env.get_domain("py").objects  # type: ignore[attr-defined]
    for dotted in ([f"{module}.{target}"] if module else []) + [target]:
        if not dotted.startswith("biaslib"):
            continue
        obj = _lookup(dotted)
        if obj is _MISSING:
            continue
        # The documented entry of the same object has the same last name.
        suffix = "." + target.rsplit(".", 1)[-1]
        for name in documented:
            if name.endswith(suffix) and _lookup(name) is obj:
                return name
    # A name the module does not import (``CeatResult.to_dict`` in a docstring of
    # biaslib.evaluate.ceat): the one documented object whose name ends so, if unique.
    if module and module.startswith("biaslib"):
        found = [name for name in documented if name.endswith("." + target)]
        if len(found) == 1:
            return found[0]
    return None


def resolve_alias(
    app: Sphinx, env: BuildEnvironment, node: pending_xref, contnode: nodes.TextElement
) -> nodes.reference | None:
    """Resolve a Python reference that has no target of its own (``missing-reference``)."""
    if node.get("refdomain") != "py" or node.get("refspecific"):
        return None
    name = _documented_name(env, node["reftarget"], node.get("py:module"))
    if name is None:
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], name, node,
                               contnode)


def keep_comment(app: Sphinx, what: str, name: str, obj: object, options: object,
                 lines: list[str]) -> None:
    """Before napoleon: remember a constant's docstring as written."""
    if what in _PROSE:
        _WRITTEN[what, name] = list(lines)


def parse_as_prose(app: Sphinx, what: str, name: str, obj: object, options: object,
                   lines: list[str]) -> None:
    """After napoleon: parse a constant's docstring as an ordinary one (no inline type)."""
    original = _WRITTEN.pop((what, name), None)
    if original is not None:
        lines[:] = NumpyDocstring(original, app.config, app, "", name, obj).lines()


def public_name_entries(exports: Mapping[str, str]) -> list[str]:
    """Autosummary entries of the public names, relative to the module ``biaslib``.

    ``{"weat": "biaslib.methods.weat"}`` gives ``["~methods.weat.weat"]``: the
    entry links the object where it is defined and documented, and shows its
    short name.
    """
    return [f"~{module.removeprefix('biaslib.')}.{name}" for name, module in exports.items()]


class PublicNames(SphinxDirective):
    """``.. biaslib-public-names::``: an autosummary of ``biaslib._EXPORTS``, in its order.

    Use it after ``.. automodule:: biaslib`` (which sets the current module the
    entries are relative to).
    """

    has_content = False

    def run(self) -> list[nodes.Node]:
        """Parse an ``autosummary`` directive that lists every public name."""
        import biaslib  # the one list, read at build time

        body = ["   " + entry for entry in public_name_entries(biaslib._EXPORTS)]
        lines = StringList([".. autosummary::", "   :nosignatures:", "", *body],
                           source=self.get_source_info()[0])
        holder = nodes.Element()
        self.state.nested_parse(lines, self.content_offset, holder)
        return list(holder.children)


def setup(app: Sphinx) -> dict[str, object]:
    """Register the resolver, the public-name table and the docstring handlers."""
    app.setup_extension("sphinx.ext.napoleon")
    app.setup_extension("sphinx.ext.autosummary")
    app.add_directive("biaslib-public-names", PublicNames)
    app.connect("missing-reference", resolve_alias)
    app.connect("autodoc-process-docstring", keep_comment, priority=_NAPOLEON_PRIORITY - 1)
    app.connect("autodoc-process-docstring", parse_as_prose, priority=_NAPOLEON_PRIORITY + 1)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
