"""Check the built book as its readers see it, in a real browser (headless Chromium).

Every page of ``_build/html`` that belongs to the book is loaded, offline, at a
desktop width (1366 x 900) and a phone's (390 x 844). The check fails on what a
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
  did not load.

Usage::

    jupyter-book build . -W --keep-going
    python scripts/check_book.py [--pages notebooks/seat.html ...] [--screenshots DIR]

Exit status: 0 when the book is clean, 1 with problems (listed per page with the
section they are under), 2 when it cannot check (no Chromium or chromedriver, no
selenium, no built book). Needs Debian's ``chromium`` and ``chromium-driver``
(``apt-get install chromium chromium-driver``) and the ``browser`` extra (selenium).

The browser logic lives in :func:`check_page`; finding the pages, classifying output
text and checking links against the built tree are plain functions, tested without
a browser in ``tests/test_check_book.py``.
"""

from __future__ import annotations

import argparse
import functools
import html.parser
import os
import re
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HTML = ROOT / "_build" / "html"

#: Viewport sizes (width, height) in CSS pixels: a laptop, and a phone (iPhone 12-15).
DESKTOP = (1366, 900)
PHONE = (390, 844)
WIDTHS = (DESKTOP, PHONE)

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


# ------------------------------------------------------------------------- browser

# Runs in the page (selenium's execute_async_script; the last argument is the
# callback). Opens every <details>, waits for the images and for MathJax's first
# typesetting, then measures. Returns plain data; Python decides what is a problem.
MEASURE_JS = r"""
const done = arguments[arguments.length - 1];
const desktop = arguments[0];
(async () => {
  // The driver can hand over a page that is still being parsed (seen after navigating
  // from another page: a measure with two of five tables): wait for the whole document.
  for (let waited = 0; document.readyState !== 'complete' && waited < 60000; waited += 50)
    await new Promise(r => setTimeout(r, 50));
  for (const d of document.querySelectorAll('details')) d.open = true;
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
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));

  const art = document.querySelector('article.bd-article') || document.querySelector('main')
              || document.body;
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

  const result = {
    mathjax, column: Math.round(column),
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


def check_page(browser: Any, page: Path, html_root: Path, shots: Path | None,
               ) -> list[tuple[tuple[int, int], dict[str, int], list[Problem]]]:
    """Load ``page`` at each of :data:`WIDTHS` and return, per width, counts and problems."""
    name = page.relative_to(html_root).as_posix()
    results = []
    for width, height in WIDTHS:
        desktop = (width, height) == DESKTOP
        set_viewport(browser, width, height)
        browser.get(page.resolve().as_uri())
        measured = browser.execute_async_script(MEASURE_JS, desktop)
        if "error" in measured:
            problems = [Problem(name, width, "script", "(page)", shorten(measured["error"]))]
            results.append(((width, height), {}, problems))
            continue
        found = layout_problems(measured, desktop)
        found += [("broken-image", img["section"], img["src"]) for img in measured["images"]]
        if desktop:
            found += content_problems(page, measured, html_root)
        problems = [Problem(name, width, rule, section, detail) for rule, section, detail in found]
        if shots is not None:
            slug = name.removesuffix(".html").replace("/", "__")
            screenshot(browser, shots / f"{slug}-{width}.png", width, height)
        results.append(((width, height), measured["counts"], problems))
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Check the built book; print a per-page summary; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=DEFAULT_HTML,
                        help="the built book (default: _build/html)")
    parser.add_argument("--pages", nargs="+", metavar="PAGE",
                        help="check only these pages (path under the book, or file stem: seat)")
    parser.add_argument("--screenshots", type=Path, metavar="DIR",
                        help="save a full-page screenshot of every page at every width here")
    args = parser.parse_args(argv)

    html_root = args.html.resolve()
    if not (html_root / "index.html").is_file():
        print(f"check_book: no built book in {html_root}; build it first with "
              "`jupyter-book build . -W --keep-going`", file=sys.stderr)
        return 2
    pages = book_pages(html_root)
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

    start = time.monotonic()
    browser = start_browser(*found)
    problems: list[Problem] = []
    try:
        for page in pages:
            for (width, _), counts, page_problems in check_page(
                    browser, page, html_root, args.screenshots):
                print(f"{page.relative_to(html_root).as_posix()} @ {width} px: "
                      f"{counts.get('tables', 0)} tables, {counts.get('equations', 0)} "
                      f"equations, {counts.get('figures', 0)} figures: "
                      f"{len(page_problems) or 'no'} problem{'s' * (len(page_problems) != 1)}")
                for problem in page_problems:
                    print(f"    {problem}")
                problems += page_problems
    finally:
        browser.quit()

    by_rule = Counter(p.rule for p in problems)
    summary = ", ".join(f"{rule} {n}" for rule, n in sorted(by_rule.items()))
    widths = " and ".join(str(w) for w, _ in WIDTHS)
    print(f"\nchecked {len(pages)} page{'s' * (len(pages) != 1)} at {widths} px "
          f"in {time.monotonic() - start:.0f} s: {len(problems)} "
          f"problem{'s' * (len(problems) != 1)}" + (f" ({summary})" if summary else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
