"""The curated top-level API: ``import biaslib`` is light, and every public name resolves."""

import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import biaslib

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = [name for name in biaslib.__all__ if name != "__version__"]


def _imported_after(code: str) -> set[str]:
    """Top-level packages in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return set(out.stdout.split())


def test_import_biaslib_is_light():
    loaded = _imported_after("import biaslib")
    assert "biaslib" in loaded
    heavy = {"torch", "transformers", "pandas", "matplotlib", "scipy", "numpy"} & loaded
    assert not heavy, f"import biaslib imported {sorted(heavy)}"


def test_metric_names_do_not_import_torch():
    loaded = _imported_after("from biaslib import weat, ceat, ml_eat, load_test, glove_6b_50d")
    assert "torch" not in loaded and "transformers" not in loaded


def test_all_lists_every_export_once():
    assert len(biaslib.__all__) == len(set(biaslib.__all__))
    assert set(biaslib.__all__) == set(biaslib._EXPORTS) | {"__version__"}


def test_version_is_a_string():
    assert isinstance(biaslib.__version__, str)
    assert biaslib.__version__.count(".") >= 2


@pytest.mark.parametrize("name", PUBLIC)
def test_name_resolves_to_its_defining_module(name):
    module_name = biaslib._EXPORTS[name]
    module = importlib.import_module(module_name)
    value = getattr(biaslib, name)
    assert value is getattr(module, name)
    # The module named is where the object is defined, not a re-export.
    if inspect.isclass(value) or inspect.isfunction(value):
        assert value.__module__ == module_name
    assert name in getattr(module, "__all__", [name])


def test_star_import_gives_the_public_names():
    namespace: dict[str, object] = {}
    exec("from biaslib import *", namespace)
    assert set(biaslib.__all__) <= set(namespace)


def test_dir_lists_the_public_names_and_layers():
    listed = dir(biaslib)
    assert set(biaslib.__all__) <= set(listed)
    assert {"stats", "methods", "stimuli", "embeddings", "evaluate", "reporting",
            "audit", "errors"} <= set(listed)
    assert "chapters" not in listed  # the book's code is the package biasbook
    assert listed == sorted(listed)


def test_layers_are_attributes():
    assert biaslib.methods is importlib.import_module("biaslib.methods")
    assert biaslib.errors.UnknownNameError is biaslib.UnknownNameError


def test_unknown_attribute_raises_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="no_such_thing"):
        biaslib.no_such_thing  # noqa: B018
    assert not hasattr(biaslib, "weat_tabel")
    with pytest.raises(ImportError, match="not_public"):
        exec("from biaslib import not_public", {})


def _walk_modules() -> list[str]:
    import pkgutil

    return ["biaslib"] + [m.name for m in pkgutil.walk_packages(biaslib.__path__, "biaslib.")]


def _docs_extension():
    """book/_ext/biaslib_docs.py, the Sphinx extension that writes the public-name table."""
    path = ROOT / "book" / "_ext" / "biaslib_docs.py"
    spec = importlib.util.spec_from_file_location("biaslib_docs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _api_pages() -> str:
    """The API reference: its index page (book/api.md) and one page per layer (book/api/)."""
    pages = [ROOT / "book" / "api.md", *sorted((ROOT / "book" / "api").glob("*.md"))]
    return "\n".join(p.read_text(encoding="utf-8") for p in pages)


def test_api_reference_has_one_page_per_layer_in_the_toc():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    pages = sorted(p.stem for p in (ROOT / "book" / "api").glob("*.md"))
    assert set(pages) == {*biaslib._LAYERS, "shared"}, pages
    for page in pages:
        assert f"- file: book/api/{page}\n" in toc, f"book/api/{page}.md is not in _toc.yml"
        text = (ROOT / "book" / "api" / f"{page}.md").read_text(encoding="utf-8")
        modules = re.findall(r"^\.\. automodule:: (\S+)$", text, flags=re.M)
        layer = "biaslib." + page
        assert modules and all(m.startswith(layer) or page == "shared" for m in modules), page


def test_all_is_derived_from_exports_in_its_order():
    assert biaslib.__all__ == ["__version__", *biaslib._EXPORTS]


def test_api_page_writes_the_public_names_from_the_one_list():
    page = _api_pages()
    # The table is the directive, after the package's own automodule (entries are relative).
    assert page.index(".. automodule:: biaslib\n") < page.index(".. biaslib-public-names::\n")
    # ... and the page keeps no hand copy of the list.
    entries = _docs_extension().public_name_entries(biaslib._EXPORTS)
    assert not [entry for entry in entries if f"{entry}\n" in page]
    assert entries == [f"~{biaslib._EXPORTS[n].removeprefix('biaslib.')}.{n}" for n in PUBLIC]
    assert _docs_extension().public_name_entries({"weat": "biaslib.methods.weat"}) == [
        "~methods.weat.weat"]


def test_api_page_documents_every_module():
    page = _api_pages()
    for module in _walk_modules():
        assert f".. automodule:: {module}\n" in page, f"the API reference lacks {module}"


@pytest.mark.parametrize("name", PUBLIC)
def test_public_name_is_documented_on_the_api_page(name):
    module_name = biaslib._EXPORTS[name]
    page = _api_pages()
    # Its module's section lists its members, and __all__ (which autodoc follows) holds it.
    assert f".. automodule:: {module_name}\n   :members:" in page, module_name
    module = importlib.import_module(module_name)
    assert name in getattr(module, "__all__", [name])
    value = getattr(module, name)
    if inspect.isclass(value) or inspect.isroutine(value):
        doc = value.__doc__ or ""
        # A dataclass without a docstring gets its signature as __doc__: not documentation.
        assert doc.strip() and not doc.startswith(f"{name}("), f"{module_name}.{name}"
    else:  # a constant: documented by a ``#:`` comment, which autodoc reads
        from sphinx.pycode import ModuleAnalyzer

        docs = ModuleAnalyzer.for_module(module_name).find_attr_docs()
        assert ("", name) in docs, f"{module_name}.{name} has no #: comment"


# ------------------------------------------------------- biaslib.reporting: plots and numbers

REPORTING = list(importlib.import_module("biaslib.reporting")._EXPORTS)


def test_reporting_all_is_its_exports_and_import_is_light():
    reporting = importlib.import_module("biaslib.reporting")
    assert reporting.__all__ == REPORTING
    loaded = _imported_after("import biaslib.reporting")
    assert not {"matplotlib", "torch"} & {m.split(".")[0] for m in loaded}


@pytest.mark.parametrize("name", REPORTING)
def test_reporting_name_resolves_to_its_defining_module(name):
    reporting = importlib.import_module("biaslib.reporting")
    module_name = reporting._EXPORTS[name]
    assert module_name.startswith("biaslib.reporting.")
    module = importlib.import_module(module_name)
    value = getattr(reporting, name)
    assert value is getattr(module, name)
    if inspect.isclass(value) or inspect.isfunction(value):
        assert value.__module__ == module_name
    assert name in module.__all__


def test_reporting_refuses_an_unknown_name():
    reporting = importlib.import_module("biaslib.reporting")
    with pytest.raises(AttributeError, match="no attribute 'format_dd'"):
        reporting.format_dd  # noqa: B018
