"""_static/book.js and _static/book.css in Chromium: verdict tables as cards on a
phone, figures opening full size, MathJax loaded when a formula nears the window.

The pages are small hand-written ones (pandas' own HTML for the tables) that load
the book's real book.js and book.css; the expected labels are written out by hand
from the tables' headers. Skipped without Chromium, chromedriver or selenium, like
the browser tests of tests/test_check_book.py.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from script_modules import load_script

cb = load_script("check_book")
ROOT = Path(__file__).resolve().parents[1]
PHONE, DESKTOP = (390, 844), (1366, 768)

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="book.css"><script src="book.js"></script>
<style>body {{ margin: 0; }} article.bd-article {{ max-width: 800px; padding: 0 16px; }}</style>
</head><body><div class="bd-content"><article class="bd-article">{body}</article></div>
</body></html>
"""

#: pandas' HTML for a table with a two-level index (named) and a "holds?" column.
TWO_LEVEL_INDEX = """<div class="cell_output"><table border="1" class="dataframe" id="t-index">
  <thead>
    <tr style="text-align: right;"><th></th><th></th><th>holds?</th><th>ours</th></tr>
    <tr><th>paper</th><th>claim</th><th></th><th></th></tr>
  </thead>
  <tbody>
    <tr><th rowspan="2" valign="top">Caliskan et al. (2017)</th><th>All ten biases point the
      published way, a claim long enough to wrap on a phone</th><td>yes</td>
      <td>10 of 10 with the published sign, and a long explanation that follows</td></tr>
    <tr><th>All ten are significant</th><td>no</td><td>8 of 10</td></tr>
  </tbody>
</table></div>"""

#: pandas' HTML for MultiIndex columns and an unnamed index.
TWO_LEVEL_COLUMNS = """<div class="cell_output"><table border="1" class="dataframe" id="t-columns">
  <thead>
    <tr><th></th><th colspan="2" halign="left">score</th><th></th></tr>
    <tr><th></th><th>ours</th><th>published</th><th>verdict</th></tr>
  </thead>
  <tbody><tr><th>C1</th><td>1.12</td><td>1.50</td><td>yes</td></tr></tbody>
</table></div>"""

#: The verdict last among the columns: the cards put it right after the claim.
VERDICT_LAST = """<div class="cell_output"><table border="1" class="dataframe" id="t-last">
  <thead><tr><th></th><th>published</th><th>ours</th><th>holds?</th></tr></thead>
  <tbody><tr><th>The claim</th><td>0.45</td><td></td><td>partly</td></tr></tbody>
</table></div>"""

#: Not a verdict table: left as it is.
PLAIN = """<div class="cell_output"><table border="1" class="dataframe" id="t-plain">
  <thead><tr><th></th><th>d</th><th>p</th></tr></thead>
  <tbody><tr><th>C1</th><td>1.5</td><td>0.01</td></tr></tbody>
</table></div>"""

#: Built by Python with its class and labels: its labels are kept.
OWN_LABELS = """<table class="verdict-table" id="t-own">
  <thead><tr><th>claim</th><th>verdict</th></tr></thead>
  <tbody><tr><td data-label="Claim (paper)">C1</td><td data-label="Holds">yes</td></tr></tbody>
</table>"""

TABLES = TWO_LEVEL_INDEX + TWO_LEVEL_COLUMNS + VERDICT_LAST + PLAIN + OWN_LABELS

LABELS_JS = """
return Array.from(document.querySelectorAll('table'), t => [t.id, t.className,
  Array.from(t.tBodies[0].rows, r => Array.from(r.cells, c =>
    [c.textContent.replace(/\\s+/g, ' ').trim().slice(0, 12), c.getAttribute('data-label'),
     ['verdict-key', 'verdict-cell', 'verdict-repeat', 'verdict-empty']
       .filter(k => c.classList.contains(k)).join(' ')]))]);
"""




def book_page(folder: Path, name: str, body: str) -> Path:
    for asset in ("book.js", "book.css"):
        shutil.copyfile(ROOT / "_static" / asset, folder / asset)
    path = folder / name
    path.write_text(PAGE.format(body=body), encoding="utf-8")
    return path


def load(browser, path: Path, size: tuple[int, int]) -> None:
    cb.set_viewport(browser, *size)
    browser.get(path.resolve().as_uri())
    for _ in range(100):
        if browser.execute_script("return document.documentElement.dataset.bookJs"):
            return
        time.sleep(0.05)
    raise AssertionError("book.js did not run")


# ------------------------------------------------------------------------ tables


def test_verdict_tables_get_the_class_and_every_cell_its_columns_label(browser, tmp_path):
    load(browser, book_page(tmp_path, "tables.html", TABLES), DESKTOP)
    tables = {t_id: (classes, rows) for t_id, classes, rows in
              browser.execute_script(LABELS_JS)}

    classes, rows = tables["t-index"]
    assert "verdict-table" in classes
    assert rows == [
        [["Caliskan et ", "paper", "verdict-key"], ["All ten bias", "claim", "verdict-key"],
         ["yes", "holds?", "verdict-cell"], ["10 of 10 wit", "ours", ""]],
        # the paper spans both rows: repeated, for the cards, in the second
        [["Caliskan et ", "paper", "verdict-key verdict-repeat"],
         ["All ten are ", "claim", "verdict-key"],
         ["no", "holds?", "verdict-cell"], ["8 of 10", "ours", ""]],
    ]
    classes, rows = tables["t-columns"]
    assert "verdict-table" in classes
    assert rows == [[["C1", None, "verdict-key"], ["1.12", "score / ours", ""],
                     ["1.50", "score / published", ""], ["yes", "verdict", "verdict-cell"]]]
    classes, rows = tables["t-last"]
    assert rows == [[["The claim", None, "verdict-key"], ["0.45", "published", ""],
                     ["", "ours", "verdict-empty"], ["partly", "holds?", "verdict-cell"]]]
    classes, rows = tables["t-plain"]
    assert "verdict-table" not in classes
    assert rows == [[["C1", None, ""], ["1.5", None, ""], ["0.01", None, ""]]]
    classes, rows = tables["t-own"]
    assert rows == [[["C1", "Claim (paper)", "verdict-key"], ["yes", "Holds", "verdict-cell"]]]


LAYOUT_JS = """
const t = document.getElementById(arguments[0]);
const rows = Array.from(t.tBodies[0].rows);
const shown = c => getComputedStyle(c).display !== 'none';
return {
  thead: getComputedStyle(t.tHead).display,
  row: getComputedStyle(rows[0]).display,
  fits: t.scrollWidth <= t.clientWidth + 1
        && t.getBoundingClientRect().right <= document.documentElement.clientWidth,
  pageFits: document.documentElement.scrollWidth <= window.innerWidth,
  // each row's shown cells, top to bottom, as their first letters
  order: rows.map(r => Array.from(r.cells).filter(shown)
    .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top
                    || a.getBoundingClientRect().left - b.getBoundingClientRect().left)
    .map(c => c.textContent.trim().slice(0, 6))),
  label: getComputedStyle(rows[0].cells[rows[0].cells.length - 1], '::before').content,
};
"""


def test_on_a_phone_verdict_tables_are_cards_that_fit(browser, tmp_path):
    load(browser, book_page(tmp_path, "tables.html", TABLES), PHONE)
    index = browser.execute_script(LAYOUT_JS, "t-index")
    assert index["thead"] == "none" and index["row"] == "flex"
    assert index["fits"] and index["pageFits"]
    assert index["order"] == [["Calisk", "All te", "yes", "10 of "],
                              ["Calisk", "All te", "no", "8 of 1"]]
    assert index["label"] == '"ours: "'
    last = browser.execute_script(LAYOUT_JS, "t-last")
    # the verdict right after the claim; the empty "ours" left out
    assert last["order"] == [["The cl", "partly", "0.45"]]
    assert browser.execute_script(LAYOUT_JS, "t-columns")["label"] == '"verdict: "'
    plain = browser.execute_script(LAYOUT_JS, "t-plain")
    assert plain["thead"] == "table-header-group" and plain["row"] == "table-row"


def test_above_600_px_verdict_tables_stay_tables(browser, tmp_path):
    load(browser, book_page(tmp_path, "tables.html", TABLES), DESKTOP)
    index = browser.execute_script(LAYOUT_JS, "t-index")
    assert index["thead"] == "table-header-group" and index["row"] == "table-row"
    # the repeated paper is for the cards only; the row spanning cell shows it once
    assert index["order"][1][0] == "All te"
    assert index["label"] == "none"


# ----------------------------------------------------------------------- figures

TALL_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="3000">'
            '<rect width="400" height="3000" fill="#c33"/></svg>')
FIGURES = """<figure id="f1"><img src="tall.svg" alt="A tall red bar: the heat map's stand-in">
<figcaption><p><span class="caption-number">Fig. 1 </span>
<span class="caption-text">A tall figure.</span><a class="headerlink" href="#f1">#</a></p>
</figcaption></figure>
<a href="https://example.org/" id="badge"><img src="tall.svg" alt="a badge" width="20"></a>"""


def test_figures_fit_the_window_and_open_full_size(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys

    (tmp_path / "tall.svg").write_text(TALL_SVG, encoding="utf-8")
    load(browser, book_page(tmp_path, "figures.html", FIGURES), DESKTOP)
    info = browser.execute_script("""
      const img = document.querySelector('#f1 img');
      const a = img.closest('a');
      return {height: img.getBoundingClientRect().height, ratio: img.width / img.height,
              cls: a && a.className, href: a && a.getAttribute('href'),
              badge: document.querySelector('#badge img').closest('a').id};""")
    assert info["height"] <= 0.8 * DESKTOP[1] + 1
    assert info["ratio"] == pytest.approx(400 / 3000, rel=0.02)
    assert (info["cls"], info["href"]) == ("book-zoom", "tall.svg")
    assert info["badge"] == "badge"  # an image that is already a link stays that link

    link = browser.find_element("css selector", "#f1 a.book-zoom")
    browser.execute_script("arguments[0].focus()", link)
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    opened = browser.execute_script("""
      const d = document.querySelector('dialog.book-zoom-dialog');
      const img = d.querySelector('img');
      return {open: d.open, caption: d.querySelector('.book-zoom-caption').textContent,
              focus: document.activeElement.className, alt: img.alt,
              height: img.getBoundingClientRect().height};""")
    assert opened["open"] and opened["caption"] == "Fig. 1 A tall figure."
    assert opened["focus"] == "book-zoom-close"
    assert opened["alt"].startswith("A tall red bar")
    assert opened["height"] == pytest.approx(3000, abs=2)  # its own size, not the window's
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    closed = browser.execute_script(
        "return [document.querySelector('dialog.book-zoom-dialog').open,"
        " document.activeElement.className]")
    assert closed == [False, "book-zoom"]


# -------------------------------------------------------------------------- math

FAKE_MATHJAX = ("window.mathjaxLoads = (window.mathjaxLoads || 0) + 1;"
                "window.MathJax = {startup: {promise: Promise.resolve()}};")


def math_page(folder: Path, name: str, spacer_px: int) -> Path:
    (folder / "fake-mathjax.js").write_text(FAKE_MATHJAX, encoding="utf-8")
    return book_page(folder, name,
                     '<script data-book-mathjax="fake-mathjax.js"></script>'
                     f'<div style="height:{spacer_px}px">text</div>'
                     r'<p id="f"><span class="math">\(d\)</span></p>'
                     '<div style="height:3000px"></div>')


def loads(browser) -> int:
    time.sleep(0.4)
    return browser.execute_script("return window.mathjaxLoads || 0")


def test_mathjax_loads_when_a_formula_nears_the_window(browser, tmp_path):
    load(browser, math_page(tmp_path, "far.html", 6000), DESKTOP)
    assert loads(browser) == 0
    browser.execute_script("window.scrollTo(0, 4000)")  # the formula 1.6 screens below
    assert loads(browser) == 0
    browser.execute_script("window.scrollTo(0, 4700)")  # 0.7 screens below: not yet
    assert loads(browser) == 0
    browser.execute_script("window.scrollTo(0, 5100)")  # within a quarter screen below
    assert loads(browser) == 1
    browser.execute_script("window.scrollTo(0, 6000)")
    assert loads(browser) == 1

    load(browser, math_page(tmp_path, "near.html", 100), DESKTOP)
    assert loads(browser) == 1


def test_load_math_loads_mathjax_once_and_says_when_it_is_ready(browser, tmp_path):
    load(browser, math_page(tmp_path, "far.html", 6000), DESKTOP)
    done = browser.execute_async_script(
        "const cb = arguments[arguments.length - 1];"
        "Promise.all([book.loadMath(), book.loadMath()]).then(r => cb(r));")
    assert done == [True, True]
    assert loads(browser) == 1
