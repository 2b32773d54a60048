"""Check the built book as its readers see it, in a real browser (headless Chromium).

Every page of ``_build/html`` that belongs to the book is loaded, offline, at a
laptop's screen (1366 x 768) and a phone's (390 x 844). The check fails on what a
reader would meet:

- a table, display equation or figure wider than its container that is not inside a
  box scrolling horizontally (cut off, or pushing the page sideways), a page that
  scrolls sideways, and at 1366 px a table or display equation that does not fit
  the text column at all (it scrolls);
- an output showing a warning, a stderr block, a log line, a traceback or a path of
  the machine that ran it, or (at 1366 px) a text line longer than its box;
- a MathJax error, MathJax not loaded on a page with math, or raw LaTeX left in the
  text;
- an internal link to a page or an ``#anchor`` that does not exist, an image that
  did not load;
- on the landing page and on each chapter's main page (``_toc.yml``: its ``root``
  and its top-level notebook entries), a verdict below the first screen: the first
  table or figure of the "What we found" section (``section[id$="what-we-found"]``,
  or the section of a label ``(<prefix>-what-we-found)=``) must start within the first
  screen at both sizes, and the landing page must have one (``verdict-below-fold``);
- a chapter's main page longer than :data:`MAX_SCREENS` screens at 1366 x 768
  (``too-long``; its sub-pages and the book's other pages are measured, not limited);
- at 390 px, a verdict table (class ``verdict-table``, or a header cell ``holds?`` or
  ``verdict``) that scrolls sideways (``verdict-scrolls``);
- an image whose alt text is missing, a file name or shorter than
  :data:`MIN_ALT_WORDS` words (``alt-text``), a figure in a notebook output without a
  caption (``no-caption``), an image taller than the screen (``figure-too-tall``), an
  image a reader cannot open full size (``no-full-size``);
- a landing, chapter or chapter sub-page whose first load (the page and every file it
  loads, sizes read from disk) is over :data:`MAX_WEIGHT_BYTES` (``page-weight``).

Usage::

    jupyter-book build . -W --keep-going
    python scripts/check_book.py [--pages notebooks/seat.html ...] [--screenshots DIR]
                                 [--report FILE] [--skip-rule RULE ...]

It ends with a table of every page: its length in screens, where its first verdict
starts at both sizes, its weight and its figures; ``--report FILE`` writes the same as
JSON (``benchmarks/bench_book.py`` stores it, with the build time, for the book's
performance page). ``--skip-rule`` leaves rules out of the verdict (they are still
measured and reported).

Exit status: 0 when the book is clean, 1 with problems (listed per page with the
section they are under), 2 when it cannot check (no Chromium or chromedriver, no
selenium, no built book, no ``_toc.yml``). Needs Debian's ``chromium`` and ``chromium-driver``
(``apt-get install chromium chromium-driver``) and the ``browser`` extra (selenium).

The browser logic lives in :func:`check_page` and :data:`MEASURE_JS`; finding the
pages and their place in ``_toc.yml``, classifying output text, checking links,
deciding each rule from the measurements, and the summary are plain functions,
tested without a browser in ``tests/test_check_book.py``.
"""

from __future__ import annotations

import argparse
import functools
import html.parser
import json
import os
import re
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HTML = ROOT / "_build" / "html"
DEFAULT_TOC = ROOT / "_toc.yml"

#: Viewport sizes (width, height) in CSS pixels: a laptop's screen (the most common
#: one, and the issue's reader), and a phone (iPhone 12-15).
DESKTOP = (1366, 768)
PHONE = (390, 844)
WIDTHS = (DESKTOP, PHONE)

#: A page's role in the book, from ``_toc.yml`` (:func:`toc_roles`): the landing page
#: (``root``), a chapter's main page (a top-level notebook entry), a chapter's
#: sub-page (its ``sections``), and every other page (conventions, glossary, API…).
ROOT_PAGE, CHAPTER, SUB_PAGE, BOOK_PAGE = "root", "chapter", "sub", "book"
#: Pages whose first verdict must be on the first screen.
VERDICT_ROLES = frozenset({ROOT_PAGE, CHAPTER})
#: Pages limited to :data:`MAX_SCREENS` screens at 1366 x 768.
LENGTH_ROLES = frozenset({CHAPTER})
#: Pages limited to :data:`MAX_WEIGHT_BYTES` on their first load: what a reader loads on
#: opening the book or a chapter (a sub-page's detail is measured and reported; one with a
#: formula on its first screen loads MathJax, about 0.75 MB, with it).
WEIGHT_ROLES = frozenset({ROOT_PAGE, CHAPTER})

#: The longest a chapter's main page may be, in screens of 1366 x 768.
MAX_SCREENS = 15
#: The heaviest first load of a landing or chapter page, in bytes (1.5 MB).
MAX_WEIGHT_BYTES = 1_500_000
#: How much of the first verdict table or figure must show on the first screen: its
#: top at least this many pixels above the bottom edge (about a header row).
VERDICT_VISIBLE = 40
#: The fewest words of an image's alt text ("what the figure shows and what to see").
MIN_ALT_WORDS = 4
#: Header cells that make a pandas table a verdict table (lower case, stripped).
VERDICT_HEADERS = frozenset({"holds?", "verdict"})
#: The class that marks a verdict table (set by ``_static/book.js`` or by the HTML).
VERDICT_CLASS = "verdict-table"
#: File suffixes of images (a link to one is a full-size view).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif")

#: Every rule the check applies, with what it catches (``--skip-rule`` names them).
RULES: dict[str, str] = {
    "overflow": "a table, equation or figure wider than its column, not in a scroll box",
    "page-scroll": "the page scrolls sideways",
    "wide-table": "a table that scrolls at 1366 px",
    "wide-equation": "a display equation that scrolls at 1366 px",
    "broken-image": "an image that did not load",
    "stderr": "a stderr block in an output",
    "traceback": "an error or traceback in an output",
    "warning": "a warning in an output",
    "log-line": "a log line in an output",
    "machine-path": "a path of the machine that ran the notebook, in an output",
    "cut-line": "an output line longer than its box at 1366 px",
    "mathjax": "a MathJax error, MathJax not loaded, raw LaTeX",
    "broken-link": "an internal link to a page that does not exist",
    "broken-anchor": "an internal link to an #anchor that does not exist",
    "script": "the measuring script failed on the page",
    "verdict-below-fold": "the first verdict of a landing or chapter page below its first screen",
    "too-long": f"a chapter's main page longer than {MAX_SCREENS} screens at 1366 x 768",
    "verdict-scrolls": "a verdict table that scrolls sideways at 390 px",
    "alt-text": "an image without alt text that says what it shows",
    "no-caption": "a figure in a notebook output without a caption",
    "figure-too-tall": "an image taller than the screen",
    "no-full-size": "an image a reader cannot open full size",
    "page-weight": f"a landing or chapter page heavier than {MAX_WEIGHT_BYTES / 1e6:g} MB "
                   "on its first load",
    "colab-link": "a link of a Colab edition (colab/) to a page or anchor the book lacks, "
                  "or a Colab button that opens no Colab edition",
}

#: Pages Sphinx writes for itself, not chapters of the book.
SKIPPED_PAGES = frozenset({"genindex.html", "search.html", "py-modindex.html"})

#: Tallest full-page screenshot (Chromium's texture limit is 16384 px).
MAX_SHOT_HEIGHT = 16384

# What an output must never show. Each rule is (name, pattern); the patterns are
# matched line by line, so a problem names the offending line.
OUTPUT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("warning", re.compile(r"\w*Warning\b|warnings\.warn")),
    ("log-line", re.compile(r"^\s*(?:INFO|WARNING|DEBUG|ERROR|CRITICAL)[: ]")),
    ("traceback", re.compile(r"Traceback \(most recent call last\)|^\s*File \".*\", line \d+")),
    ("machine-path", re.compile(r"/tmp/|/home/|/work/|/root/|/Users/|site-packages|[A-Za-z]:\\")),
)

# LaTeX delimiters MathJax replaces when it typesets; left in the text they mean it
# did not (inline ``$`` alone is not a delimiter here: dollarmath turns it into \( \)).
RAW_MATH = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{")


@dataclass(frozen=True)
class Problem:
    """One thing a reader would see wrong, where they would see it."""

    page: str
    width: int
    rule: str
    section: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.section}: {self.detail}"


# --------------------------------------------------------------------------- pages


def is_redirect(path: Path) -> bool:
    """Whether ``path`` is only a redirect (Jupyter Book's root ``index.html``)."""
    head = path.read_text(encoding="utf-8", errors="replace")[:500].lower()
    return 'http-equiv="refresh"' in head and "<article" not in head


def book_pages(html_root: Path) -> list[Path]:
    """The built HTML pages that belong to the book, sorted.

    Sphinx's own folders (``_static``, ``_sources``, ``_images``: every folder whose
    name starts with ``_`` or ``.``), its generated pages (index, search, module
    index) and redirect pages are left out.
    """
    pages = []
    for path in sorted(html_root.rglob("*.html")):
        relative = path.relative_to(html_root)
        if any(part.startswith(("_", ".")) for part in relative.parts[:-1]):
            continue
        if relative.name in SKIPPED_PAGES or is_redirect(path):
            continue
        pages.append(path)
    return pages


def select_pages(pages: Sequence[Path], html_root: Path, wanted: Iterable[str]) -> list[Path]:
    """The ``pages`` named in ``wanted``: by path under ``html_root`` or by file stem.

    Raises ``ValueError`` naming a page that matches nothing, so a typo does not pass
    as a clean check.
    """
    chosen: list[Path] = []
    for name in wanted:
        key = name.removesuffix(".html")
        matches = [p for p in pages
                   if p.relative_to(html_root).with_suffix("").as_posix() == key
                   or p.stem == key]
        if not matches:
            raise ValueError(f"no built page matches {name!r}")
        chosen.extend(m for m in matches if m not in chosen)
    return chosen


# ---------------------------------------------------------------------- the toc

_SOURCE_SUFFIXES = (".ipynb", ".md", ".rst")


def _docname(entry: str) -> str:
    """A ``_toc.yml`` file entry as Sphinx names the document (no suffix, ``/``)."""
    name = entry.strip().replace("\\", "/")
    for suffix in _SOURCE_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def _top_entries(toc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The top-level entries of a toc: its ``chapters``, those of its ``parts``, or
    (``jb-article``) its ``sections``."""
    if "parts" in toc:
        return [entry for part in toc["parts"] or [] for entry in part.get("chapters") or []]
    return list(toc.get("chapters") or toc.get("sections") or [])


def _descendants(entry: Mapping[str, Any]) -> Iterable[str]:
    """The files of every ``sections`` entry under ``entry``, at any depth."""
    for section in entry.get("sections") or []:
        if section.get("file"):
            yield section["file"]
        yield from _descendants(section)


def toc_roles(toc: Mapping[str, Any], is_notebook: Callable[[str], bool],
              ) -> dict[str, str]:
    """Each document of a Jupyter Book ``_toc.yml`` and its role in the book.

    Parameters
    ----------
    toc
        The parsed ``_toc.yml`` (``root``; ``chapters``, or ``parts`` with
        ``chapters``; each entry with optional ``sections``).
    is_notebook
        Whether a file entry (as written in the toc) is a notebook.

    Returns
    -------
    dict
        Document name (``notebooks/seat``) to role: :data:`ROOT_PAGE` for the
        ``root``; :data:`CHAPTER` for a top-level entry that is a notebook (a
        chapter's main page); :data:`SUB_PAGE` for the ``sections`` under such an
        entry (at any depth); :data:`BOOK_PAGE` for the other top-level entries
        (conventions, glossary, API reference…) and their sections. Entries without
        a ``file`` (``url``, ``glob``) are left out.
    """
    roles: dict[str, str] = {}
    if toc.get("root"):
        roles[_docname(toc["root"])] = ROOT_PAGE
    for entry in _top_entries(toc):
        if not entry.get("file"):
            continue
        main = CHAPTER if is_notebook(entry["file"]) else BOOK_PAGE
        roles.setdefault(_docname(entry["file"]), main)
        for sub in _descendants(entry):
            roles.setdefault(_docname(sub), SUB_PAGE if main == CHAPTER else BOOK_PAGE)
    return roles


def read_toc(path: Path) -> dict[str, str]:
    """:func:`toc_roles` of the ``_toc.yml`` at ``path``; a notebook is a file entry
    ending ``.ipynb`` or naming an ``.ipynb`` file next to the toc."""
    toc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}

    def is_notebook(entry: str) -> bool:
        return entry.endswith(".ipynb") or (path.parent / f"{_docname(entry)}.ipynb").is_file()

    return toc_roles(toc, is_notebook)


def page_role(page: Path, html_root: Path, roles: Mapping[str, str]) -> str:
    """The role of the built ``page`` (:func:`toc_roles`); a page the toc does not
    list is a :data:`BOOK_PAGE`."""
    return roles.get(page.relative_to(html_root).with_suffix("").as_posix(), BOOK_PAGE)


def in_toc_order(pages: Iterable[Path], html_root: Path, roles: Mapping[str, str]) -> list[Path]:
    """``pages`` in the book's reading order: the order of ``roles`` (:func:`toc_roles`,
    which lists each chapter's sub-pages after it), pages the toc does not list last."""
    order = {name: k for k, name in enumerate(roles)}

    def key(page: Path) -> tuple[int, str]:
        name = page.relative_to(html_root).with_suffix("").as_posix()
        return order.get(name, len(order)), name

    return sorted(pages, key=key)


# --------------------------------------------------------------------- output text


def output_text_problems(text: str) -> list[tuple[str, str]]:
    """The ``(rule, line)`` pairs of an output's text that a reader must not see.

    Rules: ``warning`` (a ``...Warning`` name or ``warnings.warn``), ``log-line``
    (a line starting ``INFO:``, ``WARNING:``, ``DEBUG:``...), ``traceback`` and
    ``machine-path`` (``/tmp/``, ``/home/``, ``/work/``, ``/root/``, ``site-packages``,
    a Windows drive). Each line is reported once, under its first rule.
    """
    found = []
    for line in text.splitlines():
        for rule, pattern in OUTPUT_RULES:
            if pattern.search(line):
                found.append((rule, line.strip()))
                break
    return found


def raw_math(texts: Iterable[str]) -> list[str]:
    """The texts (outside code) that still hold LaTeX delimiters MathJax should have replaced."""
    return [t.strip() for t in texts if RAW_MATH.search(t)]


def shorten(text: str, limit: int = 90) -> str:
    """``text`` on one line, cut to ``limit`` characters (for the summary)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# --------------------------------------------------------------------------- links


class _IdCollector(html.parser.HTMLParser):
    """Collects the targets of ``#anchor`` links: every ``id`` and every ``<a name>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value and (key == "id" or (key == "name" and tag == "a")):
                self.ids.add(value)


@functools.lru_cache(maxsize=256)
def page_ids(path: Path) -> frozenset[str]:
    """The anchors a link may point to on the page at ``path``."""
    collector = _IdCollector()
    collector.feed(path.read_text(encoding="utf-8", errors="replace"))
    return frozenset(collector.ids)


def link_problems(page: Path, hrefs: Iterable[str], html_root: Path,
                  ids_of: Callable[[Path], frozenset[str]] = page_ids,
                  ) -> list[tuple[str, str]]:
    """The ``(rule, href)`` pairs of ``page``'s internal links that lead nowhere.

    ``broken-link``: the file a relative (or ``file:``) link names does not exist in
    the built tree; ``broken-anchor``: it exists but has no element with the link's
    ``#fragment`` as its id. Links with another scheme (``https:``, ``mailto:``) are
    external, and not checked: the book is read offline here.
    """
    found = []
    root = html_root.resolve()
    for href in dict.fromkeys(h.strip() for h in hrefs):
        if not href or href == "#":
            continue
        parts = urlsplit(href)
        if parts.scheme and parts.scheme != "file":
            continue
        if parts.scheme == "file":
            target = Path(unquote(parts.path))
        elif parts.path:
            target = page.parent / unquote(parts.path)
        else:
            target = page
        target = target.resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file() or not target.is_relative_to(root):
            found.append(("broken-link", href))
        elif (parts.fragment and target.suffix == ".html"
              and unquote(parts.fragment) not in ids_of(target)):
            found.append(("broken-anchor", href))
    return found


def colab_problems(html_root: Path, book_url: str, editions: Path,
                   ids_of: Callable[[Path], frozenset[str]] = page_ids) -> list[Problem]:
    """``colab-link`` problems: the Colab editions' links and the book's Colab buttons.

    Every link of a Colab edition (``colab/**/*.ipynb``, ``scripts/colab_editions.py``)
    to the published book (``book_url``) must name a page of the built book and an
    anchor on it; every Colab button of a built page must open an edition that exists.
    """
    found: list[Problem] = []
    link = re.compile(r"\]\((" + re.escape(book_url) + r"[^)\s]*)\)")
    for path in sorted(editions.rglob("*.ipynb")):
        name = path.relative_to(editions.parent).as_posix()
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts = ("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        hrefs = [m.group(1) for text in texts for m in link.finditer(text)]
        local = [href.removeprefix(book_url) for href in hrefs]
        for rule, href in link_problems(html_root / "index.html", local, html_root, ids_of):
            found.append(Problem(name, 0, "colab-link", rule, book_url + href))
    button = re.compile(r'href="https://colab\.research\.google\.com/github/[^"]+?/blob/'
                        r'[^/"]+/([^"]+)"')
    for page in book_pages(html_root):
        for rel in button.findall(page.read_text(encoding="utf-8", errors="replace")):
            if not rel.startswith("colab/") or not (editions.parent / rel).is_file():
                found.append(Problem(page.relative_to(html_root).as_posix(), 0, "colab-link",
                                     "Colab button", f"opens {rel}, not a Colab edition"))
    return found


# ------------------------------------------------------------------------- browser

# Runs in the page right after it is opened, before MEASURE_JS loads MathJax and every
# lazy image: what a reader's first load fetches. Waits for the document, then a moment
# for what book.js starts by itself (MathJax when a formula is near the window, the lazy
# images near it); returns the URLs the page can tell of (the page, the timed resources,
# its scripts, style sheets and the images it has loaded). Python adds the browser's log
# of requests (fonts, files that scripts fetched) and reads every size from disk.
FIRST_LOAD_JS = r"""
const done = arguments[arguments.length - 1];
(async () => {
  for (let waited = 0; document.readyState !== 'complete' && waited < 60000; waited += 50)
    await new Promise(r => setTimeout(r, 50));
  await new Promise(r => setTimeout(r, 1000));
  done([location.href.split('#')[0],
        ...performance.getEntriesByType('resource').map(e => e.name),
        ...Array.from(document.scripts, s => s.src),
        ...Array.from(document.querySelectorAll('link[rel~="stylesheet"]'), l => l.href),
        ...Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0)
             .map(i => i.currentSrc || i.src)].filter(u => u));
})().catch(e => done([location.href.split('#')[0]]));
"""

# Runs in the page (selenium's execute_async_script; the last argument is the
# callback). Waits for the page's scripts, the images and MathJax's first typesetting;
# measures what a reader meets on opening the page (its length, where the first
# verdict starts) with every fold as the page has it; then opens every <details> and
# measures everything in it. Returns plain data; Python decides what is a problem.
MEASURE_JS = r"""
const done = arguments[arguments.length - 1];
const desktop = arguments[0];
(async () => {
  // The driver can hand over a page that is still being parsed (seen after navigating
  // from another page: a measure with two of five tables): wait for the whole document.
  for (let waited = 0; document.readyState !== 'complete' && waited < 60000; waited += 50)
    await new Promise(r => setTimeout(r, 50));
  await new Promise(r => setTimeout(r, 0));  // let the page's own load handlers run
  const imgs = Array.from(document.querySelectorAll('img'));
  for (const i of imgs) i.loading = 'eager';
  const decoded = await Promise.all(imgs.map(i => i.decode().then(() => true, () => false)));
  // MathJax loads asynchronously: on a page with math, give it up to 20 s to appear
  // (a loaded machine has taken more than the page load; a check that ran too early
  // reported "MathJax absent" and every formula as raw LaTeX).
  const loaded = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
  // book.js loads MathJax when a formula comes near the window (book.loadMath):
  // load it now, so that every formula of the page is typeset and checked.
  if (window.book && window.book.loadMath) window.book.loadMath().catch(() => {});
  if (document.querySelector('.math')) {
    for (let waited = 0; !loaded() && waited < 20000; waited += 50)
      await new Promise(r => setTimeout(r, 50));
  }
  let mathjax = 'absent';
  if (loaded()) {
    // startup.promise can settle before the first pass has reached every formula (seen
    // once under load on the CEAT page); typesetPromise finishes whatever is left, so
    // what stays raw after it is a real problem.
    try {
      await MathJax.startup.promise;
      if (MathJax.typesetPromise) await MathJax.typesetPromise();
      mathjax = 'ok';
    }
    catch (e) { mathjax = 'failed: ' + e; }
  } else if (window.MathJax) { mathjax = 'configured but not loaded'; }
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  await frame();

  const art = document.querySelector('article.bd-article') || document.querySelector('main')
              || document.body;
  // What the reader meets on opening the page, folds closed: its length, and where
  // the first table or figure of "What we found" starts.
  const viewport = [window.innerWidth, window.innerHeight];
  const height = document.documentElement.scrollHeight;
  let verdict = null;
  // the section is found by its id or by its label's, which Sphinx writes as a <span>
  // first in the section when the heading gives the section an id of its own
  const label = document.querySelector(
    'section[id$="what-we-found"], section > span[id$="what-we-found"]');
  const found = label && (label.tagName === 'SECTION' ? label : label.parentElement);
  if (found) {
    const first = found.querySelector('table, img');
    const r = first && first.getBoundingClientRect();
    const shown = r && (r.width > 0 || r.height > 0);
    verdict = {id: label.id, kind: first ? first.tagName.toLowerCase() : null,
               top: shown ? Math.round(r.top + window.scrollY) : null};
  }
  for (const d of document.querySelectorAll('details')) d.open = true;
  await frame();
  const ar = art.getBoundingClientRect(), as = getComputedStyle(art);
  const left = ar.left + parseFloat(as.paddingLeft), right = ar.right - parseFloat(as.paddingRight);
  const column = right - left;

  function section(el) {
    const up = s => s.parentElement && s.parentElement.closest('section');
    for (let s = el.closest('section'); s; s = up(s)) {
      const h = s.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5');
      if (h) return h.textContent.replace(/#\s*$/, '').trim();
    }
    return '(top of page)';
  }
  // The nearest box, the element itself or an ancestor inside the article, that
  // scrolls horizontally.
  function scrollBox(el) {
    for (let n = el; n && n !== art; n = n.parentElement) {
      const ox = getComputedStyle(n).overflowX;
      if (ox === 'auto' || ox === 'scroll') return n;
    }
    return null;
  }
  function measure(el, kind) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return null;  // not rendered
    const box = scrollBox(el);
    const content = Math.round(Math.max(el.scrollWidth, r.width));
    const m = {kind, section: section(el), content, column: Math.round(column),
               output: !!el.closest('.cell_output'), boxed: !!box};
    if (kind === 'table') {
      // what makes it a verdict table: its class, or its header cells
      m.classes = String(el.className);
      const head = el.tHead ? el.tHead.querySelectorAll('th')
                            : (el.rows[0] ? el.rows[0].querySelectorAll('th') : []);
      m.headers = Array.from(head, h => h.textContent.trim().slice(0, 40)).slice(0, 16);
      m.selfScrolls = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
    }
    if (box) {
      const b = box.getBoundingClientRect();
      m.fits = b.left >= left - 1 && b.right <= right + 1;
      m.scrolls = box.scrollWidth > box.clientWidth + 1;
      m.shown = box.clientWidth;
      m.content = box.scrollWidth;
    } else {
      const clipped = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
      m.fits = r.left >= left - 1 && r.right <= right + 1 && !clipped;
      m.scrolls = false;
      m.shown = Math.round(Math.min(r.width, column));
    }
    return m;
  }
  const items = [];
  const tables = Array.from(art.querySelectorAll('table'))
                      .filter(t => !t.parentElement.closest('table'));
  const equations = Array.from(art.querySelectorAll('mjx-container[display="true"]'));
  // display math MathJax did not typeset is measured as it stands
  for (const d of art.querySelectorAll('div.math'))
    if (!d.querySelector('mjx-container')) equations.push(d);
  const figures = Array.from(art.querySelectorAll('img'));
  for (const t of tables) items.push(measure(t, 'table'));
  for (const e of equations) items.push(measure(e, 'equation'));
  for (const f of figures) items.push(measure(f, 'figure'));

  // every image of the article: its size on screen, its alt text, its caption (a
  // figure's figcaption), and whether a reader can open it full size
  const pictures = [];
  for (const img of art.querySelectorAll('img')) {
    const r = img.getBoundingClientRect();
    const fig = img.closest('figure'), cap = fig && fig.querySelector('figcaption');
    const link = img.closest('a[href]');
    const marked = e => !!e && (e.hasAttribute('data-full-size')
                                || e.classList.contains('zoomable'));
    pictures.push({src: img.getAttribute('src') || '', section: section(img),
                   alt: img.getAttribute('alt'), output: !!img.closest('.cell_output'),
                   caption: cap ? cap.textContent.trim() : null,
                   link: link ? link.getAttribute('href') : null,
                   fullSize: marked(img) || marked(fig),
                   width: Math.round(r.width), height: Math.round(r.height)});
  }

  const result = {
    viewport, height, verdict, pictures, mathjax, column: Math.round(column),
    counts: {tables: tables.length, equations: equations.length, figures: figures.length},
    items: items.filter(x => x),
    pageScroll: document.documentElement.scrollWidth > window.innerWidth
                ? [document.documentElement.scrollWidth, window.innerWidth] : null,
    images: [], outputs: [], longLines: [], merrors: [], hasMath: false, rawText: [], hrefs: [],
  };
  if (result.pageScroll) {
    // name what pushes the page sideways: the outermost elements past the window's
    // right edge that no ancestor clips or scrolls
    const clipped = e => {
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      return false;
    };
    const culprits = [];
    for (const e of document.body.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > window.innerWidth + 1 && getComputedStyle(e).position !== 'fixed'
          && !clipped(e) && !culprits.some(c => c.contains(e))) culprits.push(e);
    }
    result.pageScroll.push(culprits.slice(0, 3).map(e =>
      `${e.tagName.toLowerCase()}.${String(e.className).split(' ')[0]} "${
        e.textContent.trim().slice(0, 40)}" under "${section(e)}"`));
  }
  imgs.forEach((img, k) => {
    if (!decoded[k] || img.naturalWidth === 0)
      result.images.push({src: img.getAttribute('src') || '', section: section(img)});
  });
  if (!desktop) { done(result); return; }

  for (const o of art.querySelectorAll('.cell_output .output')) {
    result.outputs.push({section: section(o), classes: o.className, text: o.innerText});
  }
  for (const p of art.querySelectorAll('.cell_output pre')) {
    if (p.closest('.stderr')) continue;  // reported as a stderr block already
    if (p.scrollWidth > p.clientWidth + 1) {
      const longest = p.innerText.split('\n').reduce((a, b) => b.length > a.length ? b : a, '');
      result.longLines.push({section: section(p), line: longest,
                             content: p.scrollWidth, shown: p.clientWidth});
    }
  }
  for (const e of document.querySelectorAll('mjx-merror')) {
    result.merrors.push({section: section(e),
                         text: e.getAttribute('data-mjx-error') || e.textContent});
  }
  result.hasMath = !!document.querySelector('.math, mjx-container');
  const walker = document.createTreeWalker(art, NodeFilter.SHOW_TEXT);
  const skip = 'pre, code, script, style, textarea, kbd, samp, mjx-container, .highlight';
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const v = n.nodeValue;
    if ((v.includes('\\') || v.includes('$$')) && !n.parentElement.closest(skip))
      result.rawText.push({section: section(n.parentElement), text: v});
  }
  result.hrefs = Array.from(document.querySelectorAll('a[href]'), a => a.getAttribute('href'));
  done(result);
})().catch(e => done({error: String(e && e.stack || e)}));
"""


def layout_problems(measured: dict[str, Any], desktop: bool) -> list[tuple[str, str, str]]:
    """The ``(rule, section, detail)`` layout problems in one page's measurements.

    ``overflow``: a table, equation or figure wider than the column and not in a box
    that scrolls inside the column. At the desktop width also ``wide-table`` (a
    table, in an output or in the prose, that needs scrolling: "no table wider than
    the text column at 1366 px") and ``wide-equation`` (a display equation that
    does). ``page-scroll``: the page itself scrolls sideways.
    """
    found = []
    for item in measured["items"]:
        kind, content, shown = item["kind"], item["content"], item["shown"]
        size = f"{kind} {content} px wide, {item['column']} px column"
        if not item["fits"]:
            found.append(("overflow", item["section"],
                          f"{size}: cut off or widens the page (no scroll box inside the column)"))
        elif desktop and item["scrolls"] and kind in ("table", "equation"):
            hidden = 100 * (content - shown) / content
            where = "output " if item["output"] else ""
            found.append((f"wide-{kind}", item["section"], where +
                          f"{size}: {hidden:.0f}% hidden behind a scrollbar at {DESKTOP[0]} px"))
    if measured["pageScroll"]:
        wide, inner, *culprits = measured["pageScroll"]
        by = f" by {'; '.join(culprits[0])}" if culprits and culprits[0] else ""
        found.append(("page-scroll", "(page)",
                      f"page is {wide} px wide in a {inner} px window{by}"))
    return found


def content_problems(page: Path, measured: dict[str, Any], html_root: Path,
                     ) -> list[tuple[str, str, str]]:
    """The ``(rule, section, detail)`` problems of a page's content (width-independent).

    Outputs (stderr blocks, error outputs, :func:`output_text_problems`), text lines
    longer than their box, MathJax (errors, not loaded, raw LaTeX left), links
    (:func:`link_problems`).
    """
    found = []
    for output in measured["outputs"]:
        classes = output["classes"].split()
        if "stderr" in classes:
            found.append(("stderr", output["section"], shorten(output["text"])))
            continue
        if "traceback" in classes or "error" in classes:
            found.append(("traceback", output["section"], shorten(output["text"])))
            continue
        for rule, line in output_text_problems(output["text"]):
            found.append((rule, output["section"], shorten(line)))
    for long in measured["longLines"]:
        found.append(("cut-line", long["section"],
                      f"line wider than its box ({long['content']} > {long['shown']} px): "
                      f"{shorten(long['line'], 60)}"))
    for error in measured["merrors"]:
        found.append(("mathjax", error["section"], f"MathJax error: {shorten(error['text'])}"))
    if measured["hasMath"] and measured["mathjax"] != "ok":
        found.append(("mathjax", "(page)", f"MathJax {measured['mathjax']}"))
    for raw in measured["rawText"]:
        if raw_math([raw["text"]]):
            found.append(("mathjax", raw["section"],
                          f"raw LaTeX left in the text: {shorten(raw['text'], 60)}"))
    for rule, href in link_problems(page, measured["hrefs"], html_root):
        found.append((rule, "(page)", href))
    return found


# ------------------------------------------------------------- what a reader meets


def screens(height: int, viewport: tuple[int, int]) -> float:
    """A page ``height`` (px) in screens of ``viewport``'s height, one decimal."""
    return round(height / viewport[1], 1)


def reader_problems(measured: dict[str, Any], role: str) -> list[tuple[str, str, str]]:
    """The ``(rule, section, detail)`` problems of a page as a reader opens it, at
    the viewport it was measured at (``measured["viewport"]``).

    ``verdict-below-fold``: on a :data:`VERDICT_ROLES` page with a "What we found"
    section, its first table or figure starts lower than the screen's height less
    :data:`VERDICT_VISIBLE` (so that at least its first row shows), or it has none;
    the landing page without such a section (it states the book's answer there).
    ``too-long``: at 1366 x 768, a :data:`LENGTH_ROLES` page longer than
    :data:`MAX_SCREENS` screens. ``figure-too-tall``: an image taller than the screen.
    ``verdict-scrolls``: below 600 px, a verdict table (:func:`is_verdict_table`)
    that scrolls sideways, or a scroll box around it that does.
    """
    found = []
    width, height = measured["viewport"]
    verdict = measured.get("verdict")
    if role == ROOT_PAGE and verdict is None:
        found.append(("verdict-below-fold", "(page)",
                      "the landing page has no 'What we found' section "
                      "(a label ending -what-we-found) with the book's answer"))
    if role in VERDICT_ROLES and verdict is not None:
        limit = height - VERDICT_VISIBLE
        where = f"at {width}x{height}"
        if verdict["top"] is None:
            found.append(("verdict-below-fold", "What we found",
                          f"no table or figure shown in #{verdict['id']} {where}"))
        elif verdict["top"] > limit:
            found.append(("verdict-below-fold", "What we found",
                          f"first verdict {verdict['kind']} starts at {verdict['top']} px "
                          f"{where}; it must start by {limit} px (the first screen less "
                          f"{VERDICT_VISIBLE} px for its first row)"))
    if role in LENGTH_ROLES and (width, height) == DESKTOP:
        if measured["height"] > MAX_SCREENS * height:
            found.append(("too-long", "(page)",
                          f"{measured['height'] / height:.2f} screens ({measured['height']} px) "
                          f"at {width}x{height}; a chapter's main page reads in at most "
                          f"{MAX_SCREENS}"))
    for picture in measured["pictures"]:
        if picture["height"] > height + 1:
            found.append(("figure-too-tall", picture["section"],
                          f"{image_name(picture['src'])} is {picture['height']} px tall "
                          f"on a {height} px screen at {width} px"))
    if width < 600:
        for item in measured["items"]:
            if item["kind"] != "table" or not is_verdict_table(item.get("classes", ""),
                                                               item.get("headers", [])):
                continue
            if item["scrolls"] or item.get("selfScrolls") or not item["fits"]:
                content, shown = item["content"], item["shown"]
                hidden = 100 * (content - shown) / content if content else 0
                columns = ", ".join([h for h in item.get("headers", []) if h][:6]) or "none"
                found.append(("verdict-scrolls", item["section"],
                              f"verdict table {content} px wide in {shown} px at {width} px: "
                              f"{hidden:.0f}% behind a sideways scroll (columns: {columns})"))
    return found


def image_name(src: str) -> str:
    """An image's file name, a long (hashed) one cut short: how a problem names it."""
    name = unquote(urlsplit(src).path).rsplit("/", 1)[-1] or src
    stem, dot, suffix = name.rpartition(".")
    return f"{stem[:12]}….{suffix}" if dot and len(stem) > 16 else name


def is_verdict_table(classes: str, headers: Iterable[str]) -> bool:
    """Whether a table is a verdict table: class :data:`VERDICT_CLASS`, or a header
    cell reading one of :data:`VERDICT_HEADERS` (case and spaces aside)."""
    if VERDICT_CLASS in classes.split():
        return True
    return any(" ".join(h.split()).lower() in VERDICT_HEADERS for h in headers)


_FILE_NAME = re.compile(r"^\S*[/\\]\S*$|\.(?:png|jpe?g|gif|svg|webp|avif|pdf)$", re.IGNORECASE)


def alt_text_problem(alt: str | None) -> str | None:
    """Why ``alt`` is not alt text a reader can use, or ``None`` when it is.

    Missing or empty; a file name or path (what Sphinx writes when nobody gave one:
    ``../_images/4415….png``); fewer than :data:`MIN_ALT_WORDS` words.
    """
    text = " ".join((alt or "").split())
    if not text:
        return "no alt text"
    if _FILE_NAME.search(text):
        return "alt text is a file name"
    if len(text.split()) < MIN_ALT_WORDS:
        return (f"alt text {text!r} has {len(text.split())} word(s): say what the figure "
                "shows and what to see in it")
    return None


def has_full_size_view(picture: Mapping[str, Any]) -> bool:
    """Whether a reader can open an image full size.

    After the page's scripts ran, the image is inside a link to an image file
    (``<a href="…/x.png">``) or to an image inlined as a ``data:image/…`` URL, or it or
    its figure is marked for ``_static/book.js``'s viewer (``data-full-size`` or class
    ``zoomable``: ``picture["fullSize"]``).
    """
    link = picture.get("link")
    if link and (urlsplit(link).path.lower().endswith(IMAGE_SUFFIXES)
                 or link.startswith("data:image/")):  # an image inlined in the page
        return True
    return bool(picture.get("fullSize"))


def figure_problems(measured: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The ``(rule, section, detail)`` problems of a page's images (width-independent).

    ``alt-text`` (:func:`alt_text_problem`) and ``no-full-size``
    (:func:`has_full_size_view`) for every image of the article; ``no-caption`` for
    an image in a notebook output that is not in a ``figure`` with a ``figcaption``.
    """
    found = []
    for picture in measured["pictures"]:
        where, src = picture["section"], image_name(picture["src"])
        reason = alt_text_problem(picture["alt"])
        if reason:
            found.append(("alt-text", where, f"{src}: {reason}"))
        if picture["output"] and not picture["caption"]:
            found.append(("no-caption", where, f"{src}: figure without a caption"))
        if not has_full_size_view(picture):
            found.append(("no-full-size", where, f"{src}: cannot be opened full size"))
    return found


def resource_sizes(urls: Iterable[str], html_root: Path) -> dict[str, int]:
    """The size on disk of each distinct local file in ``urls`` (``file:`` URLs).

    Keys are paths under ``html_root`` (absolute paths for files outside it); a query
    or fragment is ignored, and so are other schemes (nothing else loads offline) and
    files that do not exist.
    """
    sizes: dict[str, int] = {}
    root = html_root.resolve()
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme != "file":
            continue
        path = Path(unquote(parts.path))
        if not path.is_file():
            continue
        path = path.resolve()
        key = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        sizes[key] = path.stat().st_size
    return sizes


def requested_urls(log: Iterable[Mapping[str, Any]]) -> list[str]:
    """The URLs of every request in a Chromium performance log (``goog:loggingPrefs``
    ``performance``: DevTools ``Network.requestWillBeSent`` events), in order.

    Resource timing does not list ``file:`` scripts, style sheets or fonts; the
    browser's own log of requests does.
    """
    urls = []
    for entry in log:
        try:
            message = json.loads(entry["message"])["message"]
        except (KeyError, TypeError, ValueError):
            continue
        if message.get("method") == "Network.requestWillBeSent":
            url = message.get("params", {}).get("request", {}).get("url")
            if url:
                urls.append(url)
    return urls


def megabytes(size: int) -> float:
    """``size`` bytes in MB (10^6 bytes), two decimals."""
    return round(size / 1e6, 2)


def weight_problems(sizes: Mapping[str, int], role: str) -> list[tuple[str, str, str]]:
    """``page-weight``: a :data:`WEIGHT_ROLES` page whose first load (the sum of
    ``sizes``, :func:`resource_sizes`) is over :data:`MAX_WEIGHT_BYTES`; the detail
    names the heaviest files."""
    total = sum(sizes.values())
    if role not in WEIGHT_ROLES or total <= MAX_WEIGHT_BYTES:
        return []
    heaviest = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    named = ", ".join(f"{Path(name).name} {megabytes(size):.2f} MB" for name, size in heaviest)
    return [("page-weight", "(page)",
             f"first load {megabytes(total):.2f} MB in {len(sizes)} files, over "
             f"{MAX_WEIGHT_BYTES / 1e6:g} MB; heaviest: {named}")]


# ----------------------------------------------------------------------- summary


@dataclass
class PageReport:
    """What one page measured: its role, per viewport its metrics, and its problems."""

    page: str
    role: str
    metrics: dict[tuple[int, int], dict[str, Any]]
    problems: list[Problem]


def summary_row(report: PageReport) -> dict[str, Any]:
    """One page's line of the summary and of the ``--report`` JSON.

    ``screens`` at 1366 x 768 (and ``screens_phone`` at 390 x 844),
    ``verdict_top_px`` at each viewport (``None`` without a "What we found" verdict),
    ``weight_mb`` of the first load, ``figures``, ``problems`` by rule.
    """
    desk, phone = report.metrics.get(DESKTOP, {}), report.metrics.get(PHONE, {})
    return {
        "page": report.page,
        "role": report.role,
        "screens": desk.get("screens"),
        "screens_phone": phone.get("screens"),
        "verdict_top_px": {f"{w}x{h}": report.metrics.get((w, h), {}).get("verdict_top")
                           for w, h in WIDTHS},
        "weight_mb": (megabytes(desk["weight_bytes"])
                      if desk.get("weight_bytes") is not None else None),
        "figures": desk.get("figures"),
        "problems": dict(sorted(Counter(p.rule for p in report.problems).items())),
    }


def _failed(report_row: dict[str, Any], rule: str) -> bool:
    return rule in report_row["problems"]


def format_summary(rows: Sequence[dict[str, Any]]) -> str:
    """The summary table printed at the end: one line per page; a value that breaks
    its rule is marked ``*``."""
    head = ["page", "role", "screens", f"verdict {DESKTOP[0]}", f"verdict {PHONE[0]}", "MB",
            "figures", "problems"]

    def cell(value: Any, mark: bool = False, fmt: str = "{}") -> str:
        text = "-" if value is None else fmt.format(value)
        return text + ("*" if mark else "")

    lines = []
    for row in rows:
        tops = list(row["verdict_top_px"].values())
        lines.append([
            row["page"], row["role"],
            cell(row["screens"], _failed(row, "too-long"), "{:.1f}"),
            *(cell(top, top is not None and _failed(row, "verdict-below-fold")) for top in tops),
            cell(row["weight_mb"], _failed(row, "page-weight"), "{:.2f}"),
            cell(row["figures"]),
            str(sum(row["problems"].values())),
        ])
    widths = [max(len(r[i]) for r in [head, *lines]) for i in range(len(head))]
    out = []
    for k, line in enumerate([head, *lines]):
        out.append("  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    out.append(f"screens at {DESKTOP[0]}x{DESKTOP[1]} (at most {MAX_SCREENS} for a chapter's "
               f"main page); verdict: top of the first 'What we found' table or figure, px "
               f"(by {DESKTOP[1] - VERDICT_VISIBLE} and {PHONE[1] - VERDICT_VISIBLE} on the "
               f"landing and chapter pages); MB: first load (at most "
               f"{MAX_WEIGHT_BYTES / 1e6:g} on the landing and chapter pages); * breaks its rule")
    return "\n".join(out)


def build_report(rows: Sequence[dict[str, Any]], problems: Sequence[Problem],
                 seconds: float, skipped: Iterable[str] = (), browser: str | None = None,
                 ) -> dict[str, Any]:
    """The ``--report`` JSON: viewports, limits, one :func:`summary_row` per page, the
    problems counted by rule (``skipped`` rules are measured but not counted)."""
    return {
        "viewports": {"desktop": list(DESKTOP), "phone": list(PHONE)},
        "limits": {"chapter_screens": MAX_SCREENS, "page_weight_mb": MAX_WEIGHT_BYTES / 1e6,
                   "verdict_visible_px": VERDICT_VISIBLE, "min_alt_words": MIN_ALT_WORDS},
        "browser": browser,
        "check_seconds": round(seconds, 1),
        "skipped_rules": sorted(skipped),
        "problems": dict(sorted(Counter(p.rule for p in problems).items())),
        "pages": list(rows),
    }


def write_report(path: Path, report: Mapping[str, Any]) -> None:
    """Write ``report`` as JSON to ``path``, whole or not at all."""
    from biaslib.files import write_text_atomically

    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, json.dumps(report, indent=2, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------- the browser itself


def find_browser() -> tuple[str, str] | None:
    """Chromium's binary and chromedriver, or ``None`` when either is missing.

    ``CHROMIUM`` and ``CHROMEDRIVER`` name them explicitly; otherwise they are looked
    up on ``PATH`` (Debian installs ``/usr/bin/chromium`` and ``/usr/bin/chromedriver``).
    """
    binary = os.environ.get("CHROMIUM") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    if driver is None and Path("/usr/lib/chromium/chromedriver").is_file():
        driver = "/usr/lib/chromium/chromedriver"
    return (binary, driver) if binary and driver else None


def start_browser(binary: str, driver_path: str) -> Any:
    """A headless Chromium through selenium, with every network request refused.

    The book must read offline: the host resolver maps every name to nothing and a
    dead proxy takes every other request, so anything fetched from a CDN fails, and
    the pages are ``file:`` URLs, which need no network.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = binary
    # the log of every request the page makes: what its first load weighs
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
                "--disable-extensions", "--mute-audio", f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        options.add_argument(arg)
    browser = webdriver.Chrome(options=options, service=Service(driver_path))
    browser.set_page_load_timeout(120)
    browser.set_script_timeout(120)
    return browser


def set_viewport(browser: Any, width: int, height: int) -> None:
    """Make the page's viewport exactly ``width`` x ``height`` CSS pixels."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def screenshot(browser: Any, path: Path, width: int, height: int) -> list[Path]:
    """Save full-page screenshots of the loaded page (each file written whole).

    A page taller than :data:`MAX_SHOT_HEIGHT` is saved in tiles of that height,
    ``<stem>-part1.png``, ``<stem>-part2.png``, …, so that no part of it goes unseen; a
    shorter one as ``path`` itself. Returns the files written.
    """
    from biaslib.files import write_atomically

    full = int(browser.execute_script("return document.documentElement.scrollHeight"))
    tile = min(max(full, height), MAX_SHOT_HEIGHT)
    set_viewport(browser, width, tile)
    offsets = range(0, full, tile) if full > MAX_SHOT_HEIGHT else range(1)
    written = []
    for part, offset in enumerate(offsets, start=1):
        browser.execute_script("window.scrollTo(0, arguments[0]);", offset)
        png = browser.get_screenshot_as_png()
        out = path if len(offsets) == 1 else path.with_name(f"{path.stem}-part{part}.png")
        write_atomically(out, lambda tmp, png=png: tmp.write_bytes(png))
        written.append(out)
    browser.execute_script("window.scrollTo(0, 0);")
    set_viewport(browser, width, height)
    return written


def requests_before(browser: Any) -> list[str]:
    """The URLs the browser requested since the last call (:func:`requested_urls`;
    empty where the driver keeps no performance log)."""
    from selenium.common.exceptions import WebDriverException

    try:
        return requested_urls(browser.get_log("performance"))
    except (WebDriverException, AttributeError):  # no such log: the page's own list counts
        return []


def check_page(browser: Any, page: Path, html_root: Path, shots: Path | None,
               role: str = BOOK_PAGE,
               ) -> list[tuple[tuple[int, int], dict[str, Any], list[Problem]]]:
    """Load ``page`` at each of :data:`WIDTHS`; return, per viewport, metrics and problems.

    ``role`` is the page's place in the book (:func:`toc_roles`): it decides which
    limits apply (:func:`reader_problems`, :func:`weight_problems`). The metrics are
    the counts of tables, equations and figures, the page's ``height`` (px) and
    ``screens``, ``verdict_top`` (px, or ``None``) and, at the desktop size,
    ``weight_bytes`` of the first load.
    """
    name = page.relative_to(html_root).as_posix()
    results = []
    for width, height in WIDTHS:
        desktop = (width, height) == DESKTOP
        set_viewport(browser, width, height)
        requests_before(browser)
        browser.get(page.resolve().as_uri())
        # the first load, before MEASURE_JS loads MathJax and every lazy image
        first_load = ([*browser.execute_async_script(FIRST_LOAD_JS), *requests_before(browser)]
                      if desktop else [])
        measured = browser.execute_async_script(MEASURE_JS, desktop)
        if "error" in measured:
            problems = [Problem(name, width, "script", "(page)", shorten(measured["error"]))]
            results.append(((width, height), {}, problems))
            continue
        found = layout_problems(measured, desktop)
        found += [("broken-image", img["section"], img["src"]) for img in measured["images"]]
        found += reader_problems(measured, role)
        metrics = {**measured["counts"], "height": measured["height"],
                   "screens": screens(measured["height"], (width, height)),
                   "verdict_top": (measured["verdict"] or {}).get("top")}
        if desktop:
            found += content_problems(page, measured, html_root)
            found += figure_problems(measured)
            sizes = resource_sizes(first_load, html_root)
            found += weight_problems(sizes, role)
            metrics["weight_bytes"] = sum(sizes.values())
        problems = [Problem(name, width, rule, section, detail) for rule, section, detail in found]
        if shots is not None:
            slug = name.removesuffix(".html").replace("/", "__")
            screenshot(browser, shots / f"{slug}-{width}.png", width, height)
        results.append(((width, height), metrics, problems))
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Check the built book; print a per-page summary; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=DEFAULT_HTML,
                        help="the built book (default: _build/html)")
    parser.add_argument("--toc", type=Path, default=DEFAULT_TOC,
                        help="the book's table of contents, which says which pages are "
                             "chapters (default: _toc.yml)")
    parser.add_argument("--pages", nargs="+", metavar="PAGE",
                        help="check only these pages (path under the book, or file stem: seat)")
    parser.add_argument("--screenshots", type=Path, metavar="DIR",
                        help="save a full-page screenshot of every page at every width here")
    parser.add_argument("--report", type=Path, metavar="FILE",
                        help="write the summary (every page's length, first verdict, weight, "
                             "figures, problems) to FILE as JSON")
    parser.add_argument("--skip-rule", nargs="+", default=[], metavar="RULE",
                        choices=sorted(RULES),
                        help="measure and report, but do not fail on, these rules "
                             f"({', '.join(sorted(RULES))})")
    args = parser.parse_args(argv)

    html_root = args.html.resolve()
    if not (html_root / "index.html").is_file():
        print(f"check_book: no built book in {html_root}; build it first with "
              "`jupyter-book build . -W --keep-going`", file=sys.stderr)
        return 2
    if not args.toc.is_file():
        print(f"check_book: no table of contents at {args.toc} (--toc)", file=sys.stderr)
        return 2
    roles = read_toc(args.toc)
    pages = in_toc_order(book_pages(html_root), html_root, roles)
    if args.pages:
        try:
            pages = select_pages(pages, html_root, args.pages)
        except ValueError as error:
            parser.error(str(error))  # exit 2: nothing was checked
    found = find_browser()
    if found is None:
        print("check_book: Chromium and chromedriver are needed: "
              "`apt-get install chromium chromium-driver` (Debian/Ubuntu), or set CHROMIUM and "
              "CHROMEDRIVER to their paths", file=sys.stderr)
        return 2
    try:
        import selenium  # noqa: F401
    except ImportError:
        print("check_book: selenium is needed: `python -m pip install -e \".[browser]\"`",
              file=sys.stderr)
        return 2

    if args.screenshots is not None:
        args.screenshots.mkdir(parents=True, exist_ok=True)

    skipped = set(args.skip_rule)
    start = time.monotonic()
    browser = start_browser(*found)
    version = browser.capabilities.get("browserVersion")
    reports: list[PageReport] = []
    try:
        for page in pages:
            name = page.relative_to(html_root).as_posix()
            role = page_role(page, html_root, roles)
            report = PageReport(name, role, {}, [])
            for viewport, metrics, page_problems in check_page(
                    browser, page, html_root, args.screenshots, role):
                page_problems = [p for p in page_problems if p.rule not in skipped]
                report.metrics[viewport] = metrics
                report.problems += page_problems
                print(f"{name} ({role}) @ {viewport[0]} px: "
                      f"{metrics.get('screens', '?')} screens, {metrics.get('tables', 0)} tables, "
                      f"{metrics.get('equations', 0)} equations, {metrics.get('figures', 0)} "
                      f"figures: {len(page_problems) or 'no'} "
                      f"problem{'s' * (len(page_problems) != 1)}")
                for problem in page_problems:
                    print(f"    {problem}")
            reports.append(report)
    finally:
        browser.quit()

    seconds = time.monotonic() - start
    problems = [p for report in reports for p in report.problems]
    if "colab-link" not in skipped:
        config = yaml.safe_load((args.toc.parent / "_config.yml").read_text(encoding="utf-8"))
        colab = colab_problems(html_root, config["html"]["baseurl"], args.toc.parent / "colab")
        for problem in colab:
            print(f"{problem.page}: {problem}")
        print(f"Colab editions and buttons: {len(colab) or 'no'} problem"
              f"{'s' * (len(colab) != 1)}")
        problems += colab
    rows = [summary_row(report) for report in reports]
    print("\n" + format_summary(rows))
    if args.report is not None:
        write_report(args.report, build_report(
            rows, problems, seconds, skipped, f"Chromium {version}" if version else None))
        print(f"report written to {args.report}")
    by_rule = Counter(p.rule for p in problems)
    summary = ", ".join(f"{rule} {n}" for rule, n in sorted(by_rule.items()))
    widths = " and ".join(f"{w}x{h}" for w, h in WIDTHS)
    print(f"\nchecked {len(pages)} page{'s' * (len(pages) != 1)} at {widths} "
          f"in {seconds:.0f} s: {len(problems)} "
          f"problem{'s' * (len(problems) != 1)}" + (f" ({summary})" if summary else "")
          + (f"; not enforced: {', '.join(sorted(skipped))}" if skipped else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
