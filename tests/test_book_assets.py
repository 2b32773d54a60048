"""book/_ext/book_assets.py: what a page of the built book loads.

The pure parts are tested here without building the book: which ``<script>`` tags
the template drops, MathJax's removal and deferral in a page's ``script_files``
(with Sphinx's own asset class), MathJax's loader configuration, lazy images, and
the icon fonts cut to the icons in use (with the theme's real fonts).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from docutils import nodes

ROOT = Path(__file__).resolve().parents[1]


def _extension():
    path = ROOT / "book" / "_ext" / "book_assets.py"
    spec = importlib.util.spec_from_file_location("book_assets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ext = _extension()

HEAD = """\
  <link href="../_static/styles/pydata-sphinx-theme.css?digest=55c2" rel="stylesheet" />
  <!-- So that users can add custom icons -->
  <script defer src="../_static/scripts/fontawesome.js?digest=55c2"></script>
  <link rel="preload" as="script" href="../_static/scripts/bootstrap.js?digest=55c2" />
  <script src="../_static/searchtools.js"></script>
  <script src="../_static/language_data.js"></script>
  <script src="../searchindex.js"></script>
  <script src="../_static/book.js?v=1"></script>
"""


# ----------------------------------------------------------------------- scripts


def test_a_chapter_page_loses_the_icon_script_and_the_search_tools_and_nothing_else():
    out = ext.without_unused_scripts(HEAD, "notebooks/seat")
    for gone in ("fontawesome.js", "searchtools.js", "language_data.js", "searchindex.js"):
        assert gone not in out
    for kept in ("pydata-sphinx-theme.css", 'rel="preload"', "bootstrap.js", "book.js",
                 "<!-- So that users can add custom icons -->"):
        assert kept in out


def test_the_search_page_keeps_its_search_tools():
    out = ext.without_unused_scripts(HEAD, "search")
    assert "fontawesome.js" not in out
    for kept in ("searchtools.js", "language_data.js", "searchindex.js"):
        assert kept in out


def test_scripts_are_matched_by_path_not_by_name_alone():
    nested = '<script src="../../_static/scripts/fontawesome.js"></script>\n'
    other = '<script src="../../_static/other/fontawesome.js"></script>\n'
    root_level = '<script src="searchindex.js"></script>\n'
    assert ext.without_unused_scripts(nested, "book/api/stats") == ""
    assert ext.without_unused_scripts(other, "book/api/stats") == other
    assert ext.without_unused_scripts(root_level, "genindex") == ""


def test_the_template_uses_the_filter_the_extension_registers():
    template = (ext.TEMPLATES / "layout.html").read_text(encoding="utf-8")
    assert template.count("book_without_unused_scripts(pagename)") == 2
    assert '{% extends "!layout.html" %}' in template
    filters: dict[str, object] = {}
    app = SimpleNamespace(builder=SimpleNamespace(
        templates=SimpleNamespace(environment=SimpleNamespace(filters=filters))))
    ext.add_template_filter(app)
    assert filters == {"book_without_unused_scripts": ext.without_unused_scripts}


# ----------------------------------------------------------------------- MathJax


def _js(filename, **attributes):
    from sphinx.builders.html._assets import _JavaScript

    return _JavaScript(filename, **attributes)


def _page_scripts():
    return [
        _js("_static/documentation_options.js"),
        _js("", body='window.MathJax = {"loader": {}}'),
        _js("_static/" + ext.MATHJAX_PATH, defer="defer"),
        _js("", body="DOCUMENTATION_OPTIONS.pagename = 'x';"),
        _js("_static/book.js"),
    ]


def test_drop_mathjax_removes_mathjax_and_its_configuration_only():
    scripts = _page_scripts()
    assert ext.drop_mathjax(scripts, ext.MATHJAX_PATH) == 2
    assert [s.filename for s in scripts] == ["_static/documentation_options.js", "",
                                             "_static/book.js"]
    assert scripts[1].attributes["body"].startswith("DOCUMENTATION_OPTIONS")
    assert ext.drop_mathjax(scripts, ext.MATHJAX_PATH) == 0


def test_defer_mathjax_names_the_loader_instead_of_loading_it():
    scripts = _page_scripts()
    added = []

    def add(filename, **attributes):
        added.append(_js(filename, **attributes))
        scripts.append(added[-1])

    url = "../_static/mathjax/startup.js"
    assert ext.defer_mathjax(scripts, ext.MATHJAX_PATH, add, url) is True
    assert all(s.filename != "_static/" + ext.MATHJAX_PATH for s in scripts)
    assert [a.attributes for a in added] == [{"data-book-mathjax": url}]
    # the configuration stays: MathJax reads it when book.js loads the loader
    assert any(s.attributes.get("body", "").startswith("window.MathJax") for s in scripts)
    # nothing to defer on a page without MathJax
    assert ext.defer_mathjax([_js("_static/book.js")], ext.MATHJAX_PATH, add, url) is False
    assert len(added) == 1


def test_page_has_math_asks_about_the_page_itself():
    data = {"has_equations": {"notebooks/ceat": True, "book/intro": False}}
    env = SimpleNamespace(get_domain=lambda name: SimpleNamespace(data=data))
    app = SimpleNamespace(env=env)
    assert ext.page_has_math(app, "notebooks/ceat") is True
    assert ext.page_has_math(app, "book/intro") is False
    assert ext.page_has_math(app, "genindex") is False


def test_mathjax_config_adds_the_loader_and_keeps_the_rest():
    config = ext.mathjax_config({"options": {"processHtmlClass": "math"},
                                 "loader": {"load": ["input/tex"], "paths": {"x": "y"}}})
    assert config["options"] == {"processHtmlClass": "math"}
    assert config["loader"]["paths"] == {"x": "y"}
    assert config["loader"]["load"] == ["input/tex", "output/chtml", "a11y/assistive-mml"]
    assert ext.mathjax_config(None)["loader"]["load"] == list(ext.MATHJAX_COMPONENTS)


def test_every_mathjax_component_ships_with_the_offline_package():
    spec = importlib.util.find_spec("sphinx-mathjax-offline")  # the module's name has hyphens
    if spec is None or spec.origin is None:
        pytest.skip("sphinx-mathjax-offline is not installed")
    static = Path(spec.origin).parent / "static" / "mathjax"
    assert (static / Path(ext.MATHJAX_PATH).relative_to("mathjax")).is_file()
    for component in ext.MATHJAX_COMPONENTS:
        assert (static / f"{component}.js").is_file(), component


def test_configure_switches_only_the_offline_packages_combined_file():
    config = SimpleNamespace(templates_path=["_templates"], mathjax_path="mathjax/tex-chtml.js",
                             mathjax3_config=None)
    ext.configure(None, config)
    assert config.templates_path == [str(ext.TEMPLATES), "_templates"]
    assert config.mathjax_path == ext.MATHJAX_PATH
    assert config.mathjax3_config["loader"]["load"] == list(ext.MATHJAX_COMPONENTS)
    own = SimpleNamespace(templates_path=[], mathjax_path="https://cdn/mathjax.js",
                          mathjax3_config=None)
    ext.configure(None, own)
    assert own.mathjax_path == "https://cdn/mathjax.js" and own.mathjax3_config is None


# ---------------------------------------------------------------- design, images


def test_design_files_are_dropped_only_where_nothing_uses_them():
    from sphinx.builders.html._assets import _CascadingStyleSheet

    def context(body):
        return {"body": body,
                "css_files": [_CascadingStyleSheet("_static/book.css"),
                              _CascadingStyleSheet("_static/sphinx-design.min.css")],
                "script_files": [_js("_static/design-tabs.js"), _js("_static/book.js")]}

    plain = context('<p class="x">text</p>')
    ext.drop_unused_design(None, "p", "page.html", plain, None)
    assert [c.filename for c in plain["css_files"]] == ["_static/book.css"]
    assert [s.filename for s in plain["script_files"]] == ["_static/book.js"]
    grid = context('<div class="sd-container-fluid sd-mb-4">')
    ext.drop_unused_design(None, "p", "page.html", grid, None)
    assert len(grid["css_files"]) == 2 and len(grid["script_files"]) == 2


def test_every_image_but_the_first_loads_lazily():
    images = [nodes.image(uri=f"{k}.png") for k in range(4)]
    images[2]["loading"] = "embed"
    assert ext.mark_lazy_images(images) == 2
    assert [i.get("loading") for i in images] == [None, "lazy", "embed", "lazy"]
    assert ext.mark_lazy_images([]) == 0


# -------------------------------------------------------------------- icon fonts

_FACE = ("@font-face{{font-display:block;font-family:Font Awesome\\ 6 {family};font-style:normal;"
         "font-weight:{weight};src:url(../vendor/fontawesome/webfonts/{stem}.woff2) "
         'format("woff2"),url(../vendor/fontawesome/webfonts/{stem}.ttf) format("truetype")}}')
#: A piece of the theme's stylesheet: an icon variable written as the character itself,
#: two font faces, icon rules written with CSS escapes, a rule that uses the variable.
CSS = "\n".join([
    ':root{--pst-icon-info-circle:"\uf05a";--fa-font-solid:normal 900 1em/1 "Font Awesome 6 Free"}',
    _FACE.format(family="Free", weight=900, stem="fa-solid-900"),
    _FACE.format(family="Brands", weight=400, stem="fa-brands-400"),
    r'.fa-bars:before,.fa-navicon:before{content:"\f0c9"}.fa-github:before{content:"\f09b"}',
    r'.fa-rocket:before{content:"\f135"}',
    ".admonition-title:after{content:var(--pst-icon-info-circle)}",
])


def test_icon_glyphs_read_every_class_of_a_rule():
    glyphs = ext.icon_glyphs(CSS)
    assert glyphs == {"bars": 0xF0C9, "navicon": 0xF0C9, "github": 0xF09B, "rocket": 0xF135}


def test_used_icon_names_come_from_classes():
    html = '<i class="fa-solid fa-bars"></i><i class="fab fa-github"></i> sofa-bed'
    assert ext.used_icon_names([html, "x.className = 'fa-solid fa-xmark'"]) == {
        "solid", "bars", "github", "xmark"}


def test_icon_codepoints_keep_the_used_icons_and_those_the_stylesheet_draws_itself():
    keep = ext.icon_codepoints(CSS, {"bars", "solid"})
    assert keep == {0xF0C9, 0xF05A}  # not github, not rocket: no page uses them


def test_font_faces_and_their_replacements():
    faces = ext.font_faces(CSS)
    assert set(faces) == {"fa-solid-900", "fa-brands-400"}
    assert faces["fa-solid-900"] == {"font-display": "block",
                                     "font-family": r"Font Awesome\ 6 Free",
                                     "font-style": "normal", "font-weight": "900"}
    css = ext.icon_font_css(faces, {"fa-solid-900": "fa-solid-900.woff",
                                    "fa-regular-400": "fa-regular-400.woff"})
    assert css.count("@font-face") == 1  # no face of the theme's for the regular font here
    assert 'src: url("book-icons/fa-solid-900.woff") format("woff");' in css
    assert "font-weight: 900;" in css and r"font-family: Font Awesome\ 6 Free;" in css


def test_trim_icon_rules_keeps_the_used_icons_and_everything_else():
    css = CSS + "\n/*# sourceMappingURL=pydata-sphinx-theme.css.map*/"
    out = ext.trim_icon_rules(css, {"navicon", "solid"})
    assert ".fa-bars:before,.fa-navicon:before{content:" in out  # one of its names is used
    assert ".fa-github" not in out and ".fa-rocket" not in out
    assert "sourceMappingURL" not in out
    # everything but the unused icon rules is as it was
    assert out.replace(r'.fa-bars:before,.fa-navicon:before{content:"\f0c9"}', "") == (
        CSS.replace(r'.fa-bars:before,.fa-navicon:before{content:"\f0c9"}', "")
        .replace(r'.fa-github:before{content:"\f09b"}', "")
        .replace(r'.fa-rocket:before{content:"\f135"}', "") + "\n")


def _theme_fonts() -> Path:
    pydata = pytest.importorskip("pydata_sphinx_theme")
    fonts = (Path(pydata.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
             / "vendor" / "fontawesome" / "webfonts")
    if not (fonts / "fa-solid-900.ttf").is_file():
        pytest.skip("the theme's Font Awesome fonts are not where this test expects them")
    return fonts


def test_write_icon_fonts_cuts_the_theme_fonts_to_the_icons_in_use(tmp_path):
    pytest.importorskip("fontTools")
    from fontTools.ttLib import TTFont

    fonts = _theme_fonts()
    static = tmp_path / "_static"
    (static / "styles").mkdir(parents=True)
    (static / "styles" / "pydata-sphinx-theme.css").write_text(CSS, encoding="utf-8")
    shutil.copytree(fonts, static / ext.THEME_FONTS)
    (tmp_path / "page.html").write_text('<i class="fa-solid fa-bars"></i>', encoding="utf-8")
    (static / "scripts").mkdir()
    (static / "scripts" / "theme.js").write_text('i.className="fab fa-github"', encoding="utf-8")

    written = ext.write_icon_fonts(tmp_path)

    assert set(written) == {"fa-solid-900", "fa-brands-400"}
    for stem, size in written.items():
        cut = static / ext.ICON_FOLDER / f"{stem}.woff"
        assert cut.stat().st_size == size
        assert size < (fonts / f"{stem}.woff2").stat().st_size / 10
        kept = set(TTFont(cut).getBestCmap())
        full = set(TTFont(fonts / f"{stem}.ttf").getBestCmap())
        # the used icons the font has, the stylesheet's own icon; nothing else
        assert kept == {0xF0C9, 0xF09B, 0xF05A} & full
    css = (static / ext.ICON_CSS).read_text(encoding="utf-8")
    assert css.count("@font-face") == 2
    theme = (static / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    assert ".fa-bars:before" in theme and ".fa-github:before" in theme
    assert ".fa-rocket" not in theme
    # a second run (an incremental build that did not copy the stylesheet again) agrees
    assert ext.write_icon_fonts(tmp_path) == written


def test_write_icon_fonts_does_nothing_without_the_theme_files(tmp_path):
    assert ext.write_icon_fonts(tmp_path) == {}
    assert not (tmp_path / "_static" / ext.ICON_CSS).exists()
