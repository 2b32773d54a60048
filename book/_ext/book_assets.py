"""What a page of the built book loads: what it shows, and no more.

The theme (sphinx-book-theme on pydata-sphinx-theme) and Sphinx load several large
files on every page that most pages never use. Before this extension a chapter's
first load was 2.9-5.1 MB; this extension removes, on every build:

The icon-font JavaScript
    pydata-sphinx-theme loads Font Awesome's ``fontawesome.js`` (1.45 MB) on every
    page "so that users can add custom icons": it replaces each ``<i class="fa-…">``
    by an inline SVG. The theme's stylesheet already draws the same icons with Font
    Awesome's web fonts, so the book's template (``templates/layout.html``) leaves
    the script out (:func:`without_unused_scripts`) and the icons are drawn by CSS.

The search index on every page
    The theme loads ``searchindex.js`` (0.35 MB), ``searchtools.js`` and
    ``language_data.js`` on every page for a search-as-you-type field the book does
    not turn on (the theme option ``search_as_you_type`` is off): the search field
    sends the query to ``search.html``, which loads them itself. Every other page
    leaves them out.

MathJax: only on pages with math, only its parts the book uses, when a formula nears
    Sphinx adds MathJax to a page when the page *or any page below it in the table
    of contents* has math, so the landing page loaded it for the chapters' formulas
    (:func:`page_has_math` asks about the page itself, :func:`drop_mathjax` removes
    it from the others). Where it loads, it loads as ``startup.js`` plus the
    components the book uses (:data:`MATHJAX_COMPONENTS`: TeX input, CommonHTML
    output, the hidden MathML that screen readers read) instead of the combined
    ``tex-chtml.js`` (1.16 MB), whose right-click menu alone is 0.43 MB. Those
    still weigh 0.8 MB, more than the rest of a chapter's first screen: the page
    names MathJax's loader in ``<script data-book-mathjax="…">``
    (:func:`defer_mathjax`) and ``_static/book.js`` loads it when a formula comes
    within a quarter screen of the window (or the page is printed, or
    ``book.loadMath()`` is called), so that a reader who reads the verdict on the
    first screen does not download it.

The design extension's files where nothing uses them
    Jupyter Book loads sphinx-design's stylesheet and script (62 kB) on every
    page; a page without a ``sd-`` element (grids, cards, tabs) leaves them out
    (:func:`drop_unused_design`).

The icon fonts, cut to the icons the book shows
    Without the JavaScript, the icons are drawn by Font Awesome's web fonts, which
    the theme's stylesheet declares: 156 kB (solid) and 118 kB (brands) for the
    twenty-odd icons a page shows. After the build, :func:`write_icon_fonts` cuts
    each font to the icons in use (:func:`icon_codepoints`: the ``fa-…`` classes
    of the built pages and the theme's scripts, and the icons the theme's
    stylesheets draw by themselves: admonitions, external links, breadcrumbs)
    and ``_static/book-icons.css`` declares the small fonts under the theme's
    family names, so that the full ones are never fetched. The theme's
    stylesheet loses the rules of the other 2,400 icons (90 kB of its 397 kB).

Images far down the page
    Every image of a page but its first is marked ``loading="lazy"``
    (:func:`mark_lazy_images`): the browser fetches it when the reader scrolls near
    it, not with the page. The first image (the verdict figure of a chapter that has
    one) loads with the page.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping, MutableSequence
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

#: The folder of the book's template overrides (``layout.html``).
TEMPLATES = Path(__file__).resolve().parent / "templates"

#: Scripts no page needs: the theme's icon-font JavaScript.
NEVER = ("_static/scripts/fontawesome.js",)
#: Scripts only the search page needs: the search index and the code that reads it.
SEARCH_ONLY = ("_static/searchtools.js", "_static/language_data.js", "searchindex.js")
#: The page that searches (``search.html``).
SEARCH_PAGE = "search"

#: MathJax's loader, in the folder sphinx-mathjax-offline copies to ``_static/mathjax``.
MATHJAX_PATH = "mathjax/startup.js"
#: The MathJax components the book loads: TeX input (with the packages MathJax's
#: ``tex-chtml.js`` has: ams, newcommand, autoload, ...), CommonHTML output, and the
#: hidden MathML copy of each formula that screen readers read (tex-chtml.js has it too).
MATHJAX_COMPONENTS = ("input/tex", "output/chtml", "a11y/assistive-mml")

#: The stylesheet that declares the cut icon fonts, and their folder, under ``_static``.
ICON_CSS = "book-icons.css"
ICON_FOLDER = "book-icons"
#: Where the theme keeps Font Awesome's fonts and stylesheet (under ``_static``).
THEME_FONTS = "vendor/fontawesome/webfonts"
THEME_CSS = "styles/pydata-sphinx-theme.css"

_SCRIPT = re.compile(r"<script\b[^>]*\bsrc=\"(?P<src>[^\"]*)\"[^>]*>\s*</script>[ \t]*\n?")


def _names(src: str) -> str:
    """A script's path without its query (``?digest=…``) or a leading ``../``."""
    path = src.split("?", 1)[0].split("#", 1)[0]
    return re.sub(r"^(?:\.\./|\./)+", "", path)


def unused_scripts(pagename: str) -> tuple[str, ...]:
    """The paths (under the book's root) of the theme's scripts ``pagename`` does not use."""
    return NEVER if pagename == SEARCH_PAGE else NEVER + SEARCH_ONLY


def without_unused_scripts(html: str, pagename: str) -> str:
    """``html`` without the ``<script src>`` tags of :func:`unused_scripts`.

    Every other tag of ``html`` (a part of a page's ``<head>``) is left as it is.

    Parameters
    ----------
    html
        The template block's text, as the theme renders it.
    pagename
        The page's name (``search`` for the search page, which keeps the search tools).
    """
    unused = unused_scripts(pagename)

    def keep(match: re.Match[str]) -> str:
        return "" if _names(match["src"]) in unused else match[0]

    return _SCRIPT.sub(keep, html)


def page_has_math(app: Sphinx, pagename: str) -> bool:
    """Whether the page itself has math (Sphinx's own test also counts its sub-pages)."""
    return bool(app.env.get_domain("math").data["has_equations"].get(pagename, False))


def drop_mathjax(scripts: MutableSequence[Any], mathjax_path: str) -> int:
    """Remove MathJax from a page's ``script_files``; return how many entries went.

    The entries are MathJax itself (``_static/<mathjax_path>``) and the inline
    ``window.MathJax = …`` configuration Sphinx writes before it.
    """
    target = "_static/" + mathjax_path

    def is_mathjax(script: Any) -> bool:
        filename = str(getattr(script, "filename", script))
        body = getattr(script, "attributes", {}).get("body", "")
        return filename == target or (not filename and body.startswith("window.MathJax"))

    before = len(scripts)
    scripts[:] = [s for s in scripts if not is_mathjax(s)]
    return before - len(scripts)


def defer_mathjax(scripts: MutableSequence[Any], mathjax_path: str,
                  add: Any, url: str) -> bool:
    """Name MathJax's loader in a page's ``script_files`` instead of loading it.

    MathJax's ``<script src>`` is replaced by a ``<script data-book-mathjax="url">``
    that loads nothing (``_static/book.js`` loads ``url`` when a formula nears the
    window). ``add`` is the builder's ``add_js_file``, which appends to ``scripts``.
    Returns whether MathJax was there to replace; its inline configuration stays.
    """
    target = "_static/" + mathjax_path
    kept = [s for s in scripts if str(getattr(s, "filename", s)) != target]
    if len(kept) == len(scripts):
        return False
    scripts[:] = kept
    add("", **{"data-book-mathjax": url})
    return True


def mathjax_on_demand(app: Sphinx, pagename: str, templatename: str,
                      context: dict[str, Any], doctree: nodes.document | None) -> None:
    """``html-page-context``, after Sphinx's mathjax: MathJax where the page has math.

    No MathJax on a page without math; on a page with math, MathJax's loader named
    for book.js to load (:func:`defer_mathjax`).
    """
    scripts = context.get("script_files")
    if scripts is None:
        return
    if not page_has_math(app, pagename):
        drop_mathjax(scripts, app.config.mathjax_path)
    elif "pathto" in context:
        url = context["pathto"]("_static/" + app.config.mathjax_path, resource=True)
        defer_mathjax(scripts, app.config.mathjax_path, app.builder.add_js_file, url)


#: sphinx-design's files (stylesheet, script), as it adds them to every page.
DESIGN_FILES = ("_static/sphinx-design.min.css", "_static/design-tabs.js")


def drop_unused_design(app: Sphinx, pagename: str, templatename: str,
                       context: dict[str, Any], doctree: nodes.document | None) -> None:
    """``html-page-context``: no sphinx-design files on a page without a ``sd-`` element."""
    if re.search(r"class=\"[^\"]*\bsd-", context.get("body", "")):
        return
    for key in ("css_files", "script_files"):
        files = context.get(key)
        if files is not None:
            files[:] = [f for f in files if str(getattr(f, "filename", f)) not in DESIGN_FILES]


def mathjax_config(config: dict[str, Any] | None) -> dict[str, Any]:
    """``mathjax3_config`` with the loader of :data:`MATHJAX_COMPONENTS` added.

    Whatever else the configuration holds (myst-parser's ``processHtmlClass``, set
    later) is kept; components already listed are not repeated.
    """
    merged = dict(config or {})
    loader = dict(merged.get("loader", {}))
    loader["load"] = list(dict.fromkeys([*loader.get("load", []), *MATHJAX_COMPONENTS]))
    merged["loader"] = loader
    return merged


def configure(app: Sphinx, config: Config) -> None:
    """``config-inited``: the template folder and MathJax's loader (after every setup())."""
    config.templates_path = [str(TEMPLATES), *config.templates_path]
    if config.mathjax_path == "mathjax/tex-chtml.js":  # sphinx-mathjax-offline's choice
        config.mathjax_path = MATHJAX_PATH
        config.mathjax3_config = mathjax_config(config.mathjax3_config)


def add_template_filter(app: Sphinx) -> None:
    """``builder-inited``: make :func:`without_unused_scripts` a template filter."""
    templates = getattr(app.builder, "templates", None)
    if templates is not None and hasattr(templates, "environment"):
        templates.environment.filters["book_without_unused_scripts"] = without_unused_scripts


def mark_lazy_images(images: Iterable[nodes.image]) -> int:
    """Mark every image but the first ``loading="lazy"``; return how many were marked.

    An image that already says how it loads (``:loading:`` in its directive) is left
    alone.
    """
    marked = 0
    for position, image in enumerate(images):
        if position and "loading" not in image:
            image["loading"] = "lazy"
            marked += 1
    return marked


def lazy_images(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: :func:`mark_lazy_images` on the page's images."""
    mark_lazy_images(doctree.findall(nodes.image))


# ------------------------------------------------------------------------ icon fonts

#: A rule that gives one or more icon classes their glyph: ``.fa-bars:before{content:"\\f0c9"}``.
_ICON_RULE = re.compile(r"((?:\.fa-[a-z0-9-]+:(?:before|after)\s*,?\s*)+)\{content:\"([^\"]*)\"\}")
_ICON_CLASS = re.compile(r"\bfa-([a-z0-9]+(?:-[a-z0-9]+)*)")
_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})\s?")
_FONT_FACE = re.compile(r"@font-face\s*\{([^{}]*)\}")


def _is_icon(codepoint: int) -> bool:
    """Whether ``codepoint`` is in Unicode's private use area, where Font Awesome's icons are."""
    return 0xE000 <= codepoint <= 0xF8FF


def _unescape(css_string: str) -> str:
    """The text of a CSS string's content (a backslash and hex digits are one character)."""
    return _CSS_ESCAPE.sub(lambda m: chr(int(m[1], 16)), css_string)


def icon_glyphs(css: str) -> dict[str, int]:
    """Each icon class of a Font Awesome stylesheet (``bars``) and its codepoint."""
    glyphs = {}
    for rule in _ICON_RULE.finditer(css):
        text = _unescape(rule[2])
        if len(text) != 1:
            continue
        for name in re.findall(r"\.fa-([a-z0-9-]+):", rule[1]):
            glyphs[name] = ord(text)
    return glyphs


def used_icon_names(texts: Iterable[str]) -> set[str]:
    """The ``fa-<name>`` class names that ``texts`` (pages, scripts) use."""
    return {name for text in texts for name in _ICON_CLASS.findall(text)}


def icon_codepoints(css: str, names: Iterable[str]) -> set[int]:
    """The codepoints the icon fonts must keep.

    The glyphs of the icon classes in ``names`` that ``css`` defines, and every
    icon codepoint (private use area) that ``css`` uses outside those per-icon
    rules: the icons the theme draws from its stylesheet alone (an admonition's
    title, an external link's arrow, ``--pst-icon-…`` variables).
    """
    glyphs = icon_glyphs(css)
    keep = {glyphs[name] for name in names if name in glyphs}
    rest = _unescape(_ICON_RULE.sub("", css))
    keep |= {ord(c) for c in rest if _is_icon(ord(c))}
    return keep


def font_faces(css: str) -> dict[str, dict[str, str]]:
    """The ``@font-face`` rules of ``css`` that load a file of :data:`THEME_FONTS`.

    Maps the font file's stem (``fa-solid-900``) to the rule's descriptors other than
    ``src`` (``font-family``, ``font-weight``, ``font-style``, ``font-display``).
    """
    faces = {}
    for face in _FONT_FACE.finditer(css):
        body = face[1]
        source = re.search(r"webfonts/([\w-]+)\.(?:woff2|ttf)", body)
        if source is None:
            continue
        descriptors = {}
        for declaration in re.split(r";(?![^(]*\))", body):
            key, _, value = declaration.partition(":")
            key = key.strip()
            if key and key != "src":
                descriptors[key] = value.strip()
        faces[source[1]] = descriptors
    return faces


def icon_font_css(faces: Mapping[str, Mapping[str, str]], files: Mapping[str, str]) -> str:
    """``@font-face`` rules that declare each cut font under the theme's descriptors.

    ``files`` maps a font's stem to its file name in :data:`ICON_FOLDER`. The rules
    replace the full fonts: the last rule declared for a family, weight and style is
    the one a browser uses.
    """
    rules = ["/* Font Awesome's fonts cut to the icons the book shows (book/_ext/book_assets.py).",
             "   Font Awesome Free by Fonticons, Inc.: icons CC BY 4.0, fonts SIL OFL 1.1. */"]
    for stem, name in sorted(files.items()):
        if stem not in faces:
            continue
        lines = [f"  {key}: {value};" for key, value in faces[stem].items()]
        lines.append(f'  src: url("{ICON_FOLDER}/{name}") format("woff");')
        rules.append("@font-face {\n" + "\n".join(lines) + "\n}")
    return "\n".join(rules) + "\n"


_SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/\s*")


def trim_icon_rules(css: str, names: Iterable[str]) -> str:
    """``css`` without the icon rules of the icons no page uses, nor its source map.

    A rule that names several classes stays when one of them is in ``names``. The
    source-map comment goes too: the map describes the stylesheet before the cut.
    """
    used = set(names)

    def keep(rule: re.Match[str]) -> str:
        classes = re.findall(r"\.fa-([a-z0-9-]+):", rule[1])
        return rule[0] if used.intersection(classes) else ""

    return _SOURCE_MAP.sub("", _ICON_RULE.sub(keep, css))


def subset_font(source: Path, codepoints: Iterable[int]) -> bytes:
    """The font at ``source`` (a TrueType file) with only ``codepoints``, as WOFF."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(source)
    options = subset.Options()
    options.flavor = "woff"
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def write_icon_fonts(outdir: Path) -> dict[str, int]:
    """Cut the theme's icon fonts in the built book ``outdir`` to the icons in use.

    Writes ``_static/book-icons/<font>.woff`` and ``_static/book-icons.css``, and
    removes the rules of the icons no page uses from the theme's stylesheet
    (:func:`trim_icon_rules`; Sphinx copies the whole stylesheet again on the next
    build, and it is cut again); returns each written font's size in bytes. Does
    nothing (and returns ``{}``) when the theme's stylesheet or fonts are not where
    :data:`THEME_CSS` and :data:`THEME_FONTS` say: the full fonts then stay in use.
    """
    static = outdir / "_static"
    theme_css = static / THEME_CSS
    fonts = static / THEME_FONTS
    if not theme_css.is_file() or not fonts.is_dir():
        return {}
    css = theme_css.read_text(encoding="utf-8")
    texts = [p.read_text(encoding="utf-8", errors="replace")
             for pattern in ("**/*.html", "_static/**/*.js")
             for p in outdir.glob(pattern) if "mathjax" not in p.parts]
    stylesheets = [p.read_text(encoding="utf-8", errors="replace")
                   for p in static.rglob("*.css") if p.name != ICON_CSS]
    used = used_icon_names(texts)
    keep = set().union(*(icon_codepoints(sheet, ()) for sheet in stylesheets))
    keep |= icon_codepoints(css, used)
    faces = font_faces(css)
    folder = static / ICON_FOLDER
    folder.mkdir(exist_ok=True)
    written = {}
    for stem in faces:
        source = fonts / f"{stem}.ttf"
        if source.is_file():
            data = subset_font(source, keep)
            (folder / f"{stem}.woff").write_bytes(data)
            written[stem] = len(data)
    (static / ICON_CSS).write_text(
        icon_font_css(faces, {stem: f"{stem}.woff" for stem in written}), encoding="utf-8")
    if written:
        # the cut fonts have no glyph for the other icons: their rules go too (90 kB)
        theme_css.write_text(trim_icon_rules(css, used), encoding="utf-8")
    return written


def cut_icon_fonts(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: :func:`write_icon_fonts` for an HTML build that succeeded."""
    if exception is None and app.builder.format == "html":
        write_icon_fonts(Path(app.outdir))


def setup(app: Sphinx) -> dict[str, object]:
    """Register the template folder, MathJax's configuration and the page handlers."""
    app.connect("config-inited", configure, priority=900)
    app.connect("builder-inited", add_template_filter)
    # after sphinx.ext.mathjax's install_mathjax (priority 500)
    app.connect("html-page-context", mathjax_on_demand, priority=900)
    app.connect("html-page-context", drop_unused_design, priority=900)
    app.connect("doctree-resolved", lazy_images)
    app.add_css_file(ICON_CSS)
    app.connect("build-finished", cut_icon_fonts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
