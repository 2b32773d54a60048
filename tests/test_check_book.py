"""scripts/check_book.py: the pure parts without a browser, the page check in Chromium if present.

Each check is shown to catch a small bad example and to pass a good one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from script_modules import load_script

cb = load_script("check_book")

ARTICLE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<style>body {{ margin: 0; }} article.bd-article {{ max-width: 600px; padding: 0 20px; }}
.scroll {{ overflow-x: auto; max-width: 100%; }}</style></head>
<body><article class="bd-article"><section id="top"><h1>Page</h1>
<section id="results"><h2>Results<a class="headerlink" href="#results">#</a></h2>
{body}
</section></section></article></body></html>
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def page(path: Path, body: str) -> Path:
    return write(path, ARTICLE.format(body=body))


# --------------------------------------------------------------------------- pages


def test_book_pages_are_the_chapters_not_sphinx_own_pages(tmp_path):
    write(tmp_path / "index.html", '<meta http-equiv="Refresh" content="0; url=book/intro.html" />')
    for name in ("book/intro.html", "book/api/stats.html", "notebooks/seat.html"):
        page(tmp_path / name, "<p>text</p>")
    for name in ("genindex.html", "search.html", "py-modindex.html", "_static/x.html",
                 "_sources/notebooks/seat.html", "_images/a.html"):
        page(tmp_path / name, "<p>text</p>")
    found = [p.relative_to(tmp_path).as_posix() for p in cb.book_pages(tmp_path)]
    assert found == ["book/api/stats.html", "book/intro.html", "notebooks/seat.html"]


def test_pages_are_chosen_by_path_or_stem_and_a_typo_is_an_error(tmp_path):
    pages = [page(tmp_path / n, "") for n in ("book/intro.html", "notebooks/seat.html")]
    assert cb.select_pages(pages, tmp_path, ["seat"]) == [pages[1]]
    assert cb.select_pages(pages, tmp_path, ["book/intro.html", "seat"]) == pages
    with pytest.raises(ValueError, match="sea"):
        cb.select_pages(pages, tmp_path, ["sea"])


# --------------------------------------------------------------------- output text


@pytest.mark.parametrize(("text", "rule"), [
    ("C1: DroppedStimuliWarning: 2 words dropped", "warning"),
    ("  warnings.warn(msg, UserWarning)", "warning"),
    ("Pandas4Warning: the default will change", "warning"),
    ("INFO:biaslib:stored table seat_may", "log-line"),
    ("WARNING: something", "log-line"),
    ("DEBUG: cache hit", "log-line"),
    ("Traceback (most recent call last):", "traceback"),
    ('  File "/x/y.py", line 3, in <module>', "traceback"),
    ("read /tmp/ipykernel_1/123.py", "machine-path"),
    ("cache in /home/me/.cache", "machine-path"),
    ("/work/shared/corpus", "machine-path"),
    ("/root/.cache/biaslib", "machine-path"),
    ("lib/python3.11/site-packages/torch", "machine-path"),
    (r"C:\Users\me\book", "machine-path"),
])
def test_output_text_problems_catch_each_rule(text, rule):
    assert cb.output_text_problems(f"effect size 0.84\n{text}\nmore") == [(rule, text.strip())]


def test_clean_output_text_passes():
    table = ("test\tours\tpublished\nC1 flowers/insects\t1.50\t1.50*\n"
             "warnings: none (2 words dropped)")
    assert cb.output_text_problems(table) == []


def test_raw_latex_is_caught_and_typeset_text_passes():
    assert cb.raw_math([r"the score \(s(w, A, B)\) is", "$$x$$", r"\[ d \]"]) == [
        r"the score \(s(w, A, B)\) is", "$$x$$", r"\[ d \]"]
    assert cb.raw_math(["costs $5 and $6", "a \\ backslash"]) == []


# --------------------------------------------------------------------------- links


def test_links_to_missing_pages_and_anchors_are_broken(tmp_path):
    here = page(tmp_path / "notebooks/seat.html", '<p id="local">x</p>')
    page(tmp_path / "book/intro.html", '<span id="install"></span><a name="old"></a>')
    write(tmp_path / "_static/book.css", "")
    page(tmp_path / "book/api/index.html", "")
    good = ["../book/intro.html", "../book/intro.html#install", "../book/intro.html#old",
            "#local", "#results", "../_static/book.css", "../book/api/", "#",
            "https://example.org/missing.html", "mailto:someone@example.org"]
    assert cb.link_problems(here, good, tmp_path) == []
    bad = ["../book/nope.html", "../book/intro.html#nope", "#nowhere", "../../outside.html"]
    assert cb.link_problems(here, bad, tmp_path) == [
        ("broken-link", "../book/nope.html"), ("broken-anchor", "../book/intro.html#nope"),
        ("broken-anchor", "#nowhere"), ("broken-link", "../../outside.html")]


def test_page_ids_reads_ids_and_named_anchors(tmp_path):
    path = page(tmp_path / "a.html", '<div id="x"><a name="y"></a><p name="z"></p></div>')
    assert {"x", "y", "top", "results"} <= cb.page_ids(path)
    assert "z" not in cb.page_ids(path)


# ------------------------------------------------------------------ measured pages


def item(kind="table", *, fits=True, scrolls=False, output=True):
    return {"kind": kind, "section": "Results", "content": 900 if scrolls else 500,
            "shown": 600, "column": 600, "output": output, "boxed": scrolls, "fits": fits,
            "scrolls": scrolls}


def measured(**changes):
    base = {"items": [], "pageScroll": None, "outputs": [], "longLines": [], "merrors": [],
            "hasMath": False, "mathjax": "absent", "rawText": [], "hrefs": [], "images": []}
    return base | changes


def rules(found):
    return [rule for rule, *_ in found]


def test_layout_catches_overflow_page_scroll_and_wide_tables_at_desktop():
    assert cb.layout_problems(measured(items=[item(), item("equation"), item("figure")]),
                              desktop=True) == []
    assert rules(cb.layout_problems(measured(items=[item(fits=False)]), desktop=False)) == [
        "overflow"]
    assert rules(cb.layout_problems(measured(pageScroll=[500, 390]), desktop=False)) == [
        "page-scroll"]
    scrolling = measured(items=[item(scrolls=True), item("equation", scrolls=True),
                                item(scrolls=True, output=False)])
    # a scroll box is the remedy on a phone, but at 1366 px every table must fit
    assert cb.layout_problems(scrolling, desktop=False) == []
    assert rules(cb.layout_problems(scrolling, desktop=True)) == [
        "wide-table", "wide-equation", "wide-table"]


def test_content_catches_outputs_math_and_links(tmp_path):
    here = page(tmp_path / "a.html", "")
    clean = measured(outputs=[{"section": "R", "classes": "output stream", "text": "d = 0.84"}],
                     hasMath=True, mathjax="ok", rawText=[{"section": "R", "text": "a \\ b"}],
                     hrefs=["#results"])
    assert cb.content_problems(here, clean, tmp_path) == []
    bad = measured(
        outputs=[{"section": "R", "classes": "output stderr", "text": "anything"},
                 {"section": "R", "classes": "output traceback", "text": "ValueError"},
                 {"section": "R", "classes": "output text_html", "text": "UserWarning: x"}],
        longLines=[{"section": "R", "line": "x" * 200, "content": 1500, "shown": 700}],
        merrors=[{"section": "R", "text": "Undefined control sequence"}],
        hasMath=True, mathjax="absent", rawText=[{"section": "R", "text": r"\(x\)"}],
        hrefs=["#gone"])
    assert rules(cb.content_problems(here, bad, tmp_path)) == [
        "stderr", "traceback", "warning", "cut-line", "mathjax", "mathjax", "mathjax",
        "broken-anchor"]


# ------------------------------------------------------------------------- the CLI


def test_no_build_or_no_browser_exits_2_saying_what_to_do(tmp_path, monkeypatch, capsys):
    assert cb.main(["--html", str(tmp_path)]) == 2
    assert "jupyter-book build" in capsys.readouterr().err
    write(tmp_path / "index.html", "")
    with pytest.raises(SystemExit) as typo:
        cb.main(["--html", str(tmp_path), "--pages", "nope"])
    assert typo.value.code == 2
    monkeypatch.setattr(cb, "find_browser", lambda: None)
    assert cb.main(["--html", str(tmp_path)]) == 2
    assert "apt-get install chromium chromium-driver" in capsys.readouterr().err


# ------------------------------------------------------------------ in the browser


@pytest.fixture(scope="module")
def browser():
    found = cb.find_browser()
    if found is None:
        pytest.skip("Chromium or chromedriver missing (apt-get install chromium chromium-driver)")
    pytest.importorskip("selenium", reason="selenium missing (pip install -e '.[browser]')")
    driver = cb.start_browser(*found)
    yield driver
    driver.quit()


def problems_of(browser, path, root):
    return [(width, p.rule) for (width, _), _, found in cb.check_page(browser, path, root, None)
            for p in found]


WIDE_TABLE = ("<table><tr>" + "".join(f"<td>column{i:02d}</td>" for i in range(40))
              + "</tr></table>")


def test_browser_passes_a_good_page(browser, tmp_path):
    write(tmp_path / "fig.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"/>')
    good = page(tmp_path / "good.html",
                '<div class="cell_output"><div class="output stream"><pre>d = 0.84</pre></div>'
                "<table><tr><td>C1</td><td>1.50</td></tr></table></div>"
                '<img src="fig.svg" alt="fig"><a href="#results">up</a>')
    assert problems_of(browser, good, tmp_path) == []


def test_browser_catches_a_bad_page(browser, tmp_path):
    bad = page(tmp_path / "bad.html",
               f"{WIDE_TABLE}"
               f'<div class="cell_output"><div class="scroll">{WIDE_TABLE}</div>'
               '<div class="output stderr"><pre>/tmp/x.py:3: UserWarning: w</pre></div></div>'
               '<img src="missing.png" alt="gone"><a href="other.html">gone</a>')
    assert sorted(set(problems_of(browser, bad, tmp_path))) == [
        (390, "broken-image"), (390, "overflow"), (390, "page-scroll"),
        (1366, "broken-image"), (1366, "broken-link"), (1366, "overflow"), (1366, "page-scroll"),
        (1366, "stderr"), (1366, "wide-table")]


def test_browser_screenshots_are_written(browser, tmp_path):
    good = page(tmp_path / "good.html", "<p>text</p>")
    shots = tmp_path / "shots"
    shots.mkdir()
    cb.check_page(browser, good, tmp_path, shots)
    assert sorted(p.name for p in shots.iterdir()) == ["good-1366.png", "good-390.png"]
    assert (shots / "good-390.png").read_bytes().startswith(b"\x89PNG")


def test_browser_is_offline_so_math_from_a_cdn_is_caught(browser, tmp_path):
    # The book must read offline: MathJax from a CDN does not load here, and the
    # formula stays raw LaTeX.
    cdn = page(tmp_path / "cdn.html",
               '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>'
               r'<p>The score <span class="math">\(s(w, A, B)\)</span>.</p>')
    assert sorted(set(problems_of(browser, cdn, tmp_path))) == [(1366, "mathjax")]
    found = [p.detail for (_, _), _, ps in cb.check_page(browser, cdn, tmp_path, None)
             for p in ps]
    assert any(d.startswith("MathJax") for d in found)
    assert any(d.startswith("raw LaTeX") for d in found)
