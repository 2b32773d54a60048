"""scripts/check_book.py: the pure parts without a browser, the page check in Chromium if present.

Each check is shown to catch a small bad example and to pass a good one.
"""

from __future__ import annotations

import json
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


# --------------------------------------------------------------------------- the toc

TOC = {
    "format": "jb-book",
    "root": "book/intro",
    "chapters": [
        {"file": "notebooks/holds_up"},
        {"file": "book/conventions.md"},
        {"file": "notebooks/seat.ipynb", "sections": [
            {"file": "notebooks/seat_encoders"},
            {"file": "notebooks/seat_myb", "sections": [{"file": "notebooks/seat_myb_cases"}]},
        ]},
        {"url": "https://example.org", "title": "elsewhere"},
        {"file": "book/api", "sections": [{"file": "book/api/stats"}]},
    ],
}


def test_toc_roles_main_pages_sub_pages_and_book_pages():
    notebooks = {"notebooks/holds_up", "notebooks/seat.ipynb"}
    roles = cb.toc_roles(TOC, lambda entry: entry in notebooks)
    assert roles == {
        "book/intro": "root",
        "notebooks/holds_up": "chapter",
        "book/conventions": "book",
        "notebooks/seat": "chapter",
        "notebooks/seat_encoders": "sub",
        "notebooks/seat_myb": "sub",
        "notebooks/seat_myb_cases": "sub",
        "book/api": "book",
        "book/api/stats": "book",
    }


def test_toc_roles_reads_parts_too():
    toc = {"root": "intro", "parts": [
        {"caption": "One", "chapters": [{"file": "a", "sections": [{"file": "a_more"}]}]},
        {"caption": "Two", "chapters": [{"file": "b"}]}]}
    assert cb.toc_roles(toc, lambda entry: entry == "a") == {
        "intro": "root", "a": "chapter", "a_more": "sub", "b": "book"}


def test_read_toc_finds_the_notebooks_next_to_it(tmp_path):
    write(tmp_path / "_toc.yml", "format: jb-book\nroot: book/intro\nchapters:\n"
          "  - file: notebooks/lpbs\n    sections:\n      - file: notebooks/lpbs_window\n"
          "  - file: book/glossary\n")
    for name in ("notebooks/lpbs.ipynb", "notebooks/lpbs_window.ipynb", "book/glossary.md",
                 "book/intro.md"):
        write(tmp_path / name, "")
    assert cb.read_toc(tmp_path / "_toc.yml") == {
        "book/intro": "root", "notebooks/lpbs": "chapter", "notebooks/lpbs_window": "sub",
        "book/glossary": "book"}


def test_the_books_own_toc_has_a_root_and_chapters():
    roles = cb.read_toc(cb.DEFAULT_TOC)
    assert roles["book/intro"] == "root"
    assert roles["notebooks/seat"] == "chapter"
    assert roles["book/conventions"] == "book"
    assert roles["book/api/stats"] == "book"


def test_pages_are_checked_in_reading_order(tmp_path):
    roles = cb.toc_roles(TOC, lambda entry: "notebooks/" in entry)
    names = ["book/api.html", "book/api/stats.html", "book/conventions.html", "book/intro.html",
             "notebooks/holds_up.html", "notebooks/seat.html", "notebooks/seat_encoders.html",
             "notebooks/seat_myb.html", "notebooks/seat_myb_cases.html", "z_unlisted.html",
             "a_unlisted.html"]
    ordered = cb.in_toc_order([tmp_path / n for n in names], tmp_path, roles)
    assert [p.relative_to(tmp_path).as_posix() for p in ordered] == [
        "book/intro.html", "notebooks/holds_up.html", "book/conventions.html",
        "notebooks/seat.html", "notebooks/seat_encoders.html", "notebooks/seat_myb.html",
        "notebooks/seat_myb_cases.html", "book/api.html", "book/api/stats.html",
        "a_unlisted.html", "z_unlisted.html"]


def test_page_role_of_a_built_page(tmp_path):
    roles = {"notebooks/seat": "chapter", "book/intro": "root"}
    assert cb.page_role(tmp_path / "notebooks/seat.html", tmp_path, roles) == "chapter"
    assert cb.page_role(tmp_path / "book/intro.html", tmp_path, roles) == "root"
    assert cb.page_role(tmp_path / "notebooks/other.html", tmp_path, roles) == "book"


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


def test_colab_editions_links_and_buttons_must_land_on_the_book(tmp_path):
    html, editions = tmp_path / "html", tmp_path / "repo" / "colab"
    base = "https://example.org/book/"
    page(html / "book/glossary.html", '<dt id="term-effect-size">effect size</dt>')
    colab = "https://colab.research.google.com/github/o/r/blob/main"
    page(html / "notebooks/seat.html", f'<a href="{colab}/colab/seat.ipynb">Colab</a>')
    page(html / "notebooks/ceat.html", f'<a href="{colab}/notebooks/ceat.ipynb">Colab</a>')
    cells = [{"cell_type": "markdown", "source": [
        f"the [d]({base}book/glossary.html#term-effect-size), [x]({base}book/nope.html) ",
        f"and [y]({base}book/glossary.html#term-nope); [elsewhere](https://example.org/z)"]},
        {"cell_type": "code", "source": f"# [not a link]({base}book/code.html)"}]
    write(editions / "seat.ipynb", json.dumps({"cells": cells}))
    found = cb.colab_problems(html, base, editions)
    assert {(p.page, p.rule, p.section, p.detail) for p in found} == {
        ("colab/seat.ipynb", "colab-link", "broken-link", f"{base}book/nope.html"),
        ("colab/seat.ipynb", "colab-link", "broken-anchor",
         f"{base}book/glossary.html#term-nope"),
        # ceat's button opens the MyST notebook, not its edition (and seat's edition exists).
        ("notebooks/ceat.html", "colab-link", "Colab button",
         "opens notebooks/ceat.ipynb, not a Colab edition"),
    }


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
            "hasMath": False, "mathjax": "absent", "rawText": [], "hrefs": [], "images": [],
            "viewport": [1366, 768], "height": 2000, "verdict": None, "pictures": []}
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


# ------------------------------------------------------------- what a reader meets

DESKTOP, PHONE = [1366, 768], [390, 844]


def verdict(top, kind="table"):
    return {"id": "seat-what-we-found", "kind": kind, "top": top}


@pytest.mark.parametrize("role", ["root", "chapter"])
def test_the_first_verdict_must_show_on_the_first_screen(role):
    # 768 px screen: a table starting at 700 px shows its first row, one at 760 px
    # shows nothing of it, one at 1395 px is on the second screen
    assert cb.reader_problems(measured(verdict=verdict(300)), role) == []
    assert cb.reader_problems(measured(verdict=verdict(700, "img")), role) == []
    for top in (760, 1395):
        found = cb.reader_problems(measured(verdict=verdict(top)), role)
        assert rules(found) == ["verdict-below-fold"]
        assert f"{top} px" in found[0][2] and "1366x768" in found[0][2]
    # the phone's screen is taller: 800 px is on it, 900 px is not
    assert cb.reader_problems(measured(viewport=PHONE, verdict=verdict(800)), role) == []
    found = cb.reader_problems(measured(viewport=PHONE, verdict=verdict(900)), role)
    assert rules(found) == ["verdict-below-fold"] and "390x844" in found[0][2]
    # a "What we found" without a table or figure shown has no verdict on screen
    assert rules(cb.reader_problems(measured(verdict=verdict(None)), role)) == [
        "verdict-below-fold"]


@pytest.mark.parametrize("role", ["sub", "book"])
def test_other_pages_may_state_their_verdict_anywhere(role):
    assert cb.reader_problems(measured(verdict=verdict(5000)), role) == []
    assert cb.reader_problems(measured(verdict=verdict(None)), role) == []


def test_a_chapter_without_what_we_found_has_no_verdict_to_place():
    assert cb.reader_problems(measured(verdict=None), "chapter") == []


def test_the_landing_page_must_give_the_books_answer():
    found = cb.reader_problems(measured(verdict=None), "root")
    assert rules(found) == ["verdict-below-fold"] and "landing page" in found[0][2]


def test_a_chapters_main_page_reads_in_15_screens_at_1366x768():
    screen = 768
    assert cb.reader_problems(measured(height=15 * screen), "chapter") == []
    found = cb.reader_problems(measured(height=15 * screen + 1), "chapter")
    assert rules(found) == ["too-long"] and f"{15 * screen + 1} px" in found[0][2]
    # measured, not limited: sub-pages, the book's pages, the landing page, a phone
    for role in ("sub", "book", "root"):
        assert cb.reader_problems(measured(height=60 * screen, verdict=verdict(300)), role) == []
    assert cb.reader_problems(measured(viewport=PHONE, height=60 * 844), "chapter") == []


def test_screens_are_the_height_over_the_screens_height():
    assert cb.screens(24777, (1366, 768)) == 32.3
    assert cb.screens(844, (390, 844)) == 1.0


def picture(**changes):
    base = {"src": "../_images/abc.png", "section": "Results", "output": True,
            "alt": "Effect sizes of C1 to C10: every bar right of zero",
            "caption": "Figure 1. The effect sizes.", "link": "../_images/abc.png",
            "fullSize": False, "width": 600, "height": 400}
    return base | changes


def test_a_figure_taller_than_the_screen_is_caught_at_either_width():
    assert cb.reader_problems(measured(pictures=[picture(height=768)]), "book") == []
    assert rules(cb.reader_problems(measured(pictures=[picture(height=1486)]), "book")) == [
        "figure-too-tall"]
    assert cb.reader_problems(measured(viewport=PHONE, pictures=[picture(height=840)]),
                              "book") == []
    assert rules(cb.reader_problems(measured(viewport=PHONE, pictures=[picture(height=900)]),
                                    "sub")) == ["figure-too-tall"]


@pytest.mark.parametrize(("classes", "headers", "expected"), [
    ("verdict-table dataframe", [], True),
    ("dataframe", ["", "holds?", "ours", "published"], True),
    ("dataframe", ["claim", " Verdict "], True),
    ("dataframe", ["claim", "HOLDS?"], True),
    ("dataframe", ["test", "ours", "published"], False),
    ("verdict-tables", ["verdicts"], False),
    ("", [], False),
])
def test_verdict_tables_by_class_or_header(classes, headers, expected):
    assert cb.is_verdict_table(classes, headers) is expected


def table_item(*, classes="dataframe", headers=("", "holds?", "ours"), scrolls=False,
               self_scrolls=False, fits=True):
    return item(scrolls=scrolls, fits=fits) | {"classes": classes, "headers": list(headers),
                                               "selfScrolls": self_scrolls}


def test_a_verdict_table_that_scrolls_on_a_phone_is_caught():
    phone = dict(viewport=PHONE)
    assert cb.reader_problems(measured(**phone, items=[table_item()]), "sub") == []
    for bad in (table_item(scrolls=True), table_item(self_scrolls=True),
                table_item(fits=False), table_item(classes="verdict-table", headers=(),
                                                   scrolls=True)):
        found = cb.reader_problems(measured(**phone, items=[bad]), "book")
        assert rules(found) == ["verdict-scrolls"]
    # another table may scroll in its box on a phone; at 1366 px the layout rules apply
    assert cb.reader_problems(measured(**phone, items=[table_item(headers=("test", "ours"),
                                                                  scrolls=True)]), "sub") == []
    assert cb.reader_problems(measured(items=[table_item(scrolls=True)]), "sub") == []


@pytest.mark.parametrize(("alt", "reason"), [
    (None, "no alt text"),
    ("   ", "no alt text"),
    ("../_images/44153c9f4e6bdea6.png", "file name"),
    ("_images/fig.svg", "file name"),
    ("agreement_heatmap.png", "file name"),
    ("C:\\book\\fig", "file name"),
    ("heat map", "2 word"),
    ("figure", "1 word"),
])
def test_alt_text_a_reader_cannot_use(alt, reason):
    assert reason in cb.alt_text_problem(alt)


@pytest.mark.parametrize("alt", [
    "Heat map of how often two methods agree: SEAT and CEAT agree on most tests",
    "Bars of C1/C2 effect sizes, all above zero",
    "Forest plot: every interval crosses zero",
])
def test_alt_text_that_says_what_the_figure_shows_passes(alt):
    assert cb.alt_text_problem(alt) is None


@pytest.mark.parametrize(("changes", "expected"), [
    ({"link": "../_images/abc.png"}, True),
    ({"link": "../_images/abc.SVG?v=2#top"}, True),
    ({"link": None, "fullSize": True}, True),
    ({"link": "data:image/svg+xml;base64,PHN2Zz4=", "fullSize": False}, True),
    ({"link": "data:text/html;base64,PGI+", "fullSize": False}, False),
    ({"link": "../book/intro.html", "fullSize": False}, False),
    ({"link": None, "fullSize": False}, False),
])
def test_full_size_view_is_a_link_to_the_image_or_the_viewers_mark(changes, expected):
    assert cb.has_full_size_view(picture(**changes)) is expected


def test_figure_problems_alt_caption_and_full_size():
    assert cb.figure_problems(measured(pictures=[picture()])) == []
    bad = picture(alt="../_images/abc.png", caption=None, link=None)
    assert rules(cb.figure_problems(measured(pictures=[bad]))) == [
        "alt-text", "no-caption", "no-full-size"]
    # an image in the prose (not an output) needs no figure caption
    assert cb.figure_problems(measured(pictures=[picture(output=False, caption=None)])) == []


def test_image_names_are_cut_short():
    assert cb.image_name("../_images/abc.png") == "abc.png"
    long = cb.image_name("../_images/44153c9f4e6bdea6a67e8a0565f712b3.png")
    assert long.startswith("44153c9f4e6b") and long.endswith(".png") and len(long) < 20


def test_resource_sizes_are_read_from_disk_once_per_file(tmp_path):
    html = tmp_path / "html"
    write(html / "notebooks/seat.html", "x" * 1000)
    write(html / "_static/book.js", "y" * 250)
    write(tmp_path / "elsewhere.css", "z" * 7)
    page_url = (html / "notebooks/seat.html").as_uri()
    js_url = (html / "_static/book.js").as_uri()
    urls = [page_url, js_url + "?v=1", js_url + "#x", "https://cdn.example.org/mathjax.js",
            "data:image/png;base64,AAAA", (html / "_static/missing.js").as_uri(),
            (tmp_path / "elsewhere.css").as_uri()]
    assert cb.resource_sizes(urls, html) == {
        "notebooks/seat.html": 1000, "_static/book.js": 250,
        str((tmp_path / "elsewhere.css").resolve()): 7}


def test_requested_urls_read_from_the_browsers_log():
    def entry(method, url=None):
        params = {"request": {"url": url}} if url else {}
        return {"message": json.dumps({"message": {"method": method, "params": params}})}
    log = [entry("Network.requestWillBeSent", "file:///b/a.html"),
           entry("Network.responseReceived", "file:///b/ignored.js"),
           {"message": "not json"},
           entry("Network.requestWillBeSent", "file:///b/_static/x.woff2")]
    assert cb.requested_urls(log) == ["file:///b/a.html", "file:///b/_static/x.woff2"]


def test_page_weight_is_limited_on_landing_and_chapter_pages():
    light = {"notebooks/seat.html": 400_000, "_static/book.js": 1_100_000}
    heavy = {"notebooks/seat.html": 400_000, "_static/scripts/fontawesome.js": 1_450_000,
             "searchindex.js": 430_000}
    for role in ("root", "chapter"):
        assert cb.weight_problems(light, role) == []
        found = cb.weight_problems(heavy, role)
        assert rules(found) == ["page-weight"]
        assert "2.28 MB" in found[0][2] and "fontawesome.js 1.45 MB" in found[0][2]
    assert cb.weight_problems(heavy, "book") == cb.weight_problems(heavy, "sub") == []


# ----------------------------------------------------------------------- summary


def page_report(role="chapter", problems=()):
    metrics = {(1366, 768): {"tables": 3, "equations": 0, "figures": 2, "height": 24777,
                             "screens": 32.3, "verdict_top": 1395, "weight_bytes": 3_228_142},
               (390, 844): {"tables": 3, "equations": 0, "figures": 2, "height": 39600,
                            "screens": 46.9, "verdict_top": 2577}}
    return cb.PageReport("notebooks/seat.html", role, metrics,
                         [cb.Problem("notebooks/seat.html", 1366, rule, "(page)", "x")
                          for rule in problems])


def test_summary_row_of_a_page():
    row = cb.summary_row(page_report(problems=["too-long", "alt-text", "alt-text"]))
    assert row == {"page": "notebooks/seat.html", "role": "chapter", "screens": 32.3,
                   "screens_phone": 46.9,
                   "verdict_top_px": {"1366x768": 1395, "390x844": 2577},
                   "weight_mb": 3.23, "figures": 2,
                   "problems": {"alt-text": 2, "too-long": 1}}


def test_summary_row_of_a_page_that_could_not_be_measured():
    report = cb.PageReport("book/intro.html", "root", {(1366, 768): {}, (390, 844): {}}, [])
    row = cb.summary_row(report)
    assert row["screens"] is None and row["weight_mb"] is None
    assert row["verdict_top_px"] == {"1366x768": None, "390x844": None}


def test_format_summary_marks_what_breaks_a_rule():
    rows = [cb.summary_row(page_report(problems=["too-long", "page-weight"])),
            cb.summary_row(cb.PageReport("book/glossary.html", "book",
                                         {(1366, 768): {"screens": 2.0, "figures": 0,
                                                        "verdict_top": None,
                                                        "weight_bytes": 2_000_000}}, []))]
    text = cb.format_summary(rows)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["page", "role", "screens"]
    seat = next(line for line in lines if line.startswith("notebooks/seat.html"))
    assert seat.split() == ["notebooks/seat.html", "chapter", "32.3*", "1395", "2577", "3.23*",
                            "2", "2"]
    glossary = next(line for line in lines if line.startswith("book/glossary.html"))
    assert glossary.split() == ["book/glossary.html", "book", "2.0", "-", "-", "2.00", "0", "0"]


def test_the_report_is_json_written_whole(tmp_path):
    problems = [cb.Problem("notebooks/seat.html", 1366, "too-long", "(page)", "x")]
    report = cb.build_report([cb.summary_row(page_report(problems=["too-long"]))], problems,
                             12.34, skipped={"alt-text"}, browser="Chromium 1")
    target = tmp_path / "results" / "book.json"
    cb.write_report(target, report)
    back = json.loads(target.read_text(encoding="utf-8"))
    assert back["viewports"] == {"desktop": [1366, 768], "phone": [390, 844]}
    assert back["limits"]["chapter_screens"] == 15 and back["limits"]["page_weight_mb"] == 1.5
    assert back["problems"] == {"too-long": 1} and back["skipped_rules"] == ["alt-text"]
    assert back["check_seconds"] == 12.3 and back["browser"] == "Chromium 1"
    assert back["pages"][0]["verdict_top_px"] == {"1366x768": 1395, "390x844": 2577}
    assert [p.name for p in target.parent.iterdir()] == ["book.json"]  # no temporary left


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
    assert cb.main(["--html", str(tmp_path), "--toc", str(tmp_path / "none.yml")]) == 2
    assert "table of contents" in capsys.readouterr().err
    with pytest.raises(SystemExit) as unknown:
        cb.main(["--html", str(tmp_path), "--skip-rule", "too-short"])
    assert unknown.value.code == 2


def test_every_rule_can_be_named_for_skip_rule():
    reported = {"overflow", "page-scroll", "wide-table", "wide-equation", "broken-image",
                "stderr", "traceback", "cut-line", "mathjax", "broken-link", "broken-anchor",
                "script", "verdict-below-fold", "too-long", "verdict-scrolls", "alt-text",
                "no-caption", "figure-too-tall", "no-full-size", "page-weight", "colab-link"}
    reported |= {rule for rule, _ in cb.OUTPUT_RULES}
    assert reported == set(cb.RULES)


# ------------------------------------------------------------------ in the browser




def problems_of(browser, path, root, role="book"):
    return [(width, p.rule) for (width, _), _, found
            in cb.check_page(browser, path, root, None, role) for p in found]


WIDE_TABLE = ("<table><tr>" + "".join(f"<td>column{i:02d}</td>" for i in range(40))
              + "</tr></table>")


def svg(path, width, height):
    return write(path, f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
                       f'height="{height}"><rect width="{width}" height="{height}"/></svg>')


VERDICT = ('{section}<h2>What we found</h2>'
           '<div class="scroll"><table class="dataframe" style="width: {width}px"><thead>'
           "<tr><th></th><th>holds?</th><th>ours</th></tr></thead>"
           "<tbody><tr><th>C1</th><td>yes</td><td>1.50</td></tr></tbody></table></div></section>")


def test_browser_passes_a_good_page(browser, tmp_path):
    svg(tmp_path / "fig.svg", 40, 20)
    good = page(tmp_path / "good.html",
                VERDICT.format(section='<section id="seat-what-we-found">', width=300) +
                '<div class="cell_output"><div class="output stream"><pre>d = 0.84</pre></div>'
                "<table><tr><td>C1</td><td>1.50</td></tr></table>"
                '<figure><a href="fig.svg"><img src="fig.svg" alt="A bar chart of the effect '
                'sizes: all above zero"></a><figcaption>The effect sizes.</figcaption></figure>'
                '</div><a href="#results">up</a>')
    for role in ("chapter", "root", "sub", "book"):
        assert problems_of(browser, good, tmp_path, role) == []


def test_browser_catches_a_bad_page(browser, tmp_path):
    bad = page(tmp_path / "bad.html",
               f"{WIDE_TABLE}"
               f'<div class="cell_output"><div class="scroll">{WIDE_TABLE}</div>'
               '<div class="output stderr"><pre>/tmp/x.py:3: UserWarning: w</pre></div></div>'
               '<img src="missing.png" alt="gone"><a href="other.html">gone</a>')
    assert sorted(set(problems_of(browser, bad, tmp_path))) == [
        (390, "broken-image"), (390, "overflow"), (390, "page-scroll"),
        (1366, "alt-text"), (1366, "broken-image"), (1366, "broken-link"),
        (1366, "no-full-size"), (1366, "overflow"), (1366, "page-scroll"), (1366, "stderr"),
        (1366, "wide-table")]


def test_browser_catches_what_a_reader_of_a_chapter_meets(browser, tmp_path):
    # 12,000 px of text before the verdict (on no first screen; the page is longer than
    # 15 screens of 768 px), a verdict table 500 px wide (it fits the 600 px column at
    # 1366 px, not a phone's), a figure 2,000 px tall without a caption or a link
    tall = svg(tmp_path / "tall.svg", 40, 2000)
    chapter = page(tmp_path / "chapter.html",
                   '<p style="height: 12000px">text</p>' +
                   # the section found by its label's id (a heading of its own)
                   VERDICT.format(section='<section id="what-we-found-today">'
                                          '<span id="seat-what-we-found"></span>', width=500) +
                   '<div class="cell_output"><img src="tall.svg" '
                   'alt="A tall bar: one effect size far above the others"></div>')
    expected = [(390, "figure-too-tall"), (390, "verdict-below-fold"), (390, "verdict-scrolls"),
                (1366, "figure-too-tall"), (1366, "no-caption"), (1366, "no-full-size"),
                (1366, "too-long"), (1366, "verdict-below-fold")]
    assert sorted(problems_of(browser, chapter, tmp_path, "chapter")) == expected
    # a sub-page is measured, not limited in length nor in where its verdict stands
    assert sorted(problems_of(browser, chapter, tmp_path, "sub")) == [
        (390, "figure-too-tall"), (390, "verdict-scrolls"), (1366, "figure-too-tall"),
        (1366, "no-caption"), (1366, "no-full-size")]
    metrics = dict((viewport, m) for viewport, m, _ in
                   cb.check_page(browser, chapter, tmp_path, None, "chapter"))
    desktop = metrics[(1366, 768)]
    assert 12000 < desktop["verdict_top"] < 12400  # the text, the headings above it
    assert desktop["height"] > 14000 and desktop["screens"] == round(desktop["height"] / 768, 1)
    # the first load: the page and the figure, as their sizes on disk
    assert desktop["weight_bytes"] == chapter.stat().st_size + tall.stat().st_size
    assert metrics[(390, 844)]["verdict_top"] > 12000


def test_browser_weighs_every_file_a_page_loads(browser, tmp_path):
    write(tmp_path / "heavy.js", "// padding\n" * 150_000)  # 1.65 MB of script
    write(tmp_path / "font.css", "@font-face { font-family: F; src: url(f.woff2); }"
                                 "p { font-family: F; }")
    write(tmp_path / "f.woff2", "w" * 1000)  # not a font: requested all the same
    heavy = write(tmp_path / "heavy.html", ARTICLE.format(
        body='<script src="heavy.js"></script><link rel="stylesheet" href="font.css">'
             "<p>text</p>"))
    assert problems_of(browser, heavy, tmp_path, "chapter") == [(1366, "page-weight")]
    assert problems_of(browser, heavy, tmp_path, "book") == []
    ((_, desktop, _), _) = cb.check_page(browser, heavy, tmp_path, None, "book")
    assert desktop["weight_bytes"] == sum(
        (tmp_path / name).stat().st_size for name in ("heavy.html", "heavy.js", "font.css",
                                                     "f.woff2"))


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
    # one check (each load waits 20 s for MathJax to appear)
    found = [p for _, _, ps in cb.check_page(browser, cdn, tmp_path, None) for p in ps]
    assert sorted({(p.width, p.rule) for p in found}) == [(1366, "mathjax")]
    found = [p.detail for p in found]
    assert any(d.startswith("MathJax") for d in found)
    assert any(d.startswith("raw LaTeX") for d in found)
