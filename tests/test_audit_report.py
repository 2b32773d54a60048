"""The audit's HTML report (biaslib.audit.report) on results computed from GloVe 6B 50d."""

from __future__ import annotations

import base64
import html
import re
import time
import warnings
from html.parser import HTMLParser

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import biaslib
from biaslib import BagOfWordsEncoder, embed_test, glove_6b_50d, load_test, weat_table
from biaslib.audit.report import (
    format_seconds,
    render_report,
    strip_paths,
    write_report,
)
from biaslib.evaluate.metrics import METRICS, metric_table
from biaslib.evaluate.mleat import mleat_table
from biaslib.evaluate.speccurve import specification_frame
from biaslib.methods.result import CORE_COLUMNS
from biaslib.methods.same import same
from biaslib.reporting.format import format_d, format_p
from biaslib.stats.multiple_testing import holm_bonferroni

MODEL = "GloVe 6B 50d"
TESTS = ("C1", "C3")
#: The static-vector metrics of the fixture (a signed and three unsigned ones).
FIXTURE_METRICS = ("WEAT d", "RIPA", "ECT", "G&G cluster")
COLUMNS = [*CORE_COLUMNS, "ci_low", "ci_high", "ci_method", "n", "n_x", "n_y", "part",
           "targets", "contexts", "ddof", "tail", "sampling", "stimuli", "not run",
           "model_input", "model_kind", "weights", "holm", "pattern", "l2_x_d", "l2_x_sig",
           "l2_y_d", "l2_y_sig"]
SECRET_DIR = "/work/secret-dir/models"
VOID = {"meta", "img", "br", "hr", "link", "input", "col", "wbr", "source"}


def _audit_frames() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, object]]:
    """Results, timings and provenance as the audit writes them, from real computations."""
    glove = glove_6b_50d()
    timings, rows = [], []

    def timed(part: str, test: str, compute):
        start = time.perf_counter()
        out = compute()
        timings.append({"model": MODEL, "part": part, "test": test,
                        "seconds": time.perf_counter() - start, "status": "computed"})
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # words GloVe lacks are dropped, with a warning
        for test in TESTS:
            grid = timed("SEAT", test, lambda t=test: specification_frame(
                t, BagOfWordsEncoder(glove), contexts=("words only", "SEAT bleached"),
                levels=("sentence",), ceat_conventions=()))
            rows.append(grid.assign(part="grid"))
            headline = grid[(grid["contexts"] == "SEAT bleached") & (grid["ddof"] == "1")
                            & (grid["tail"] == "greater") & (grid["targets"] == "as published")]
            assert len(headline) == 1
            rows.append(headline.assign(method="s-SEAT", part="summary"))
        weat = timed("WEAT", "all", lambda: weat_table(list(TESTS), glove, progress=False))
        rows.append(weat.assign(part="summary", ci_method="n/a"))
        mleat = timed("ML-EAT", "all", lambda: mleat_table(list(TESTS), glove, progress=False))
        rows.append(mleat.assign(part="summary", ci_method="n/a"))
        for test in TESTS:
            x, y, a, b = embed_test(load_test(test), glove).arrays
            result = same(np.vstack([x, y]), [a, b])
            rows.append(pd.DataFrame([{"method": "SAME", "test": test, "variant": "as published",
                                       "level": "word", "pooling": "n/a", "layer": "n/a",
                                       "convention": "paper", "effect_size": result.effect_size,
                                       "p_value": np.nan, "part": "summary"}]))
        # The front door's metrics on the tests' words, and on a test GloVe cannot run
        # (Mind Your Bias's disability phrases are not words of its vocabulary).
        metrics = timed("metrics", "all", lambda: metric_table(
            [*TESTS, "MYB-Dis-term"], glove, FIXTURE_METRICS))
        rows.append(metrics.assign(part="metric", **{"not run": metrics["note"]}))
    # A method that cannot run on static vectors, and one grid specification that failed.
    rows.append(pd.DataFrame([{"method": "LPBS", "test": "C1", "variant": "as published",
                               "effect_size": np.nan, "p_value": np.nan, "part": "summary",
                               "not run": "static vectors have no masked-LM head"}]))
    failed = rows[0].iloc[[0]].assign(effect_size=np.nan, p_value=np.nan, ci_low=np.nan,
                                      ci_high=np.nan, contexts="Mind Your Bias",
                                      **{"not run": "too few words left"})
    rows.append(failed)
    results = pd.concat(rows, ignore_index=True).reindex(columns=COLUMNS)
    results["model"] = MODEL
    results["model_kind"] = "static"
    results["not run"] = results["not run"].fillna("")
    summary = (results["part"] == "summary") & (results["not run"] == "")
    has_p = summary & results["p_value"].notna()
    reject, _ = holm_bonferroni(results.loc[has_p, "p_value"].to_numpy(), 0.05)
    results["holm"] = ""
    results.loc[has_p, "holm"] = np.where(reject, "*", "")
    results.loc[summary & ~has_p, "holm"] = "n/a"
    results.loc[results["part"] == "metric", "holm"] = "n/a"
    provenance = {
        "biaslib": biaslib.__version__,
        "command": f"biaslib audit {SECRET_DIR}/glove.vec --out /tmp/audit-out",
        "models": [{"name": MODEL, "fingerprint": "sha256:0f3a", "file": f"{SECRET_DIR}/g.npy"}],
        "seeds": {"permutation": 1111}, "tests": list(TESTS),
        "started": "2025-01-02T10:00:00", "finished": "2025-01-02T10:03:05",
    }
    return results, pd.DataFrame(timings), provenance


@pytest.fixture(scope="module")
def audit() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, object]]:
    return _audit_frames()


@pytest.fixture(scope="module")
def page(audit) -> str:
    return render_report(*audit)


class _Page(HTMLParser):
    """Checks that every element closes in order and collects the tables' cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tables: list[dict[str, object]] = []
        self.cell: list[str] | None = None
        self.in_caption = False
        self.imgs: list[dict[str, str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.imgs.append(dict(attrs))
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag == "table":
            self.tables.append({"caption": "", "rows": []})
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self.cell = []
            span = int(dict(attrs).get("colspan", 1))
            self.tables[-1]["rows"][-1].extend([None] * (span - 1))
        elif tag == "caption":
            self.in_caption = True

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1:]}>"
        self.stack.pop()
        if tag in ("td", "th"):
            self.tables[-1]["rows"][-1].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "caption":
            self.in_caption = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        if self.in_caption:
            self.tables[-1]["caption"] += data


def _parse(text: str) -> _Page:
    parser = _Page()
    parser.feed(text)
    parser.close()
    assert parser.stack == [], parser.stack
    return parser


def _table(parsed: _Page, caption_start: str) -> list[list[str]]:
    found = [t for t in parsed.tables if t["caption"].startswith(caption_start)]
    assert len(found) == 1, [t["caption"] for t in parsed.tables]
    return found[0]["rows"]


def test_page_parses_with_every_element_closed_in_order(page):
    parsed = _parse(page)
    assert page.startswith("<!DOCTYPE html>")
    assert parsed.imgs


def test_page_loads_nothing_from_outside(page):
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//|file:)""", page, re.I)
    for forbidden in ("<script", "<link", "@import", "url(", "@font-face"):
        assert forbidden not in page.lower()
    for img in _parse(page).imgs:
        assert img["src"].startswith("data:image/png;base64,")
        assert base64.b64decode(img["src"].split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
        assert img["alt"]


def test_page_shows_no_machine_path(page):
    assert "glove.vec" in page and "g.npy" in page  # the file names stay
    for part in ("/work/", "/tmp/", "secret-dir", "/home/"):
        assert part not in page


def test_every_summary_number_is_in_its_cell(audit, page):
    results, _, _ = audit
    rows = _table(_parse(page), f"Summary of {MODEL}")
    assert rows[0] == ["test", "method", "groups", "effect size", "95 % CI", "p", "tail",
                       "Holm"]
    shown = {(r[0], r[1]): dict(zip(rows[0][2:], r[2:], strict=True)) for r in rows[1:]}
    summary = results[results["part"] == "summary"]
    assert len(shown) == len(rows) - 1 == len(summary)  # one row per test and method
    methods = [r[1] for r in rows[1:]]
    assert list(dict.fromkeys(methods)) == ["s-SEAT", "WEAT", "ML-EAT", "LPBS", "SAME"]
    for _, row in summary.iterrows():
        cells = shown[(row["test"], row["method"])]
        if row["not run"]:
            assert cells["effect size"] == "not run"
            continue
        assert cells["effect size"] == format_d(row["effect_size"])
        if np.isnan(row["p_value"]):
            assert cells["p"] == "–" and cells["Holm"] == "" and cells["tail"] == "–"
        else:
            assert cells["p"] == format_p(row["p_value"])
            assert cells["Holm"] == row["holm"]
            # the fixture's ML-EAT rows state no tail (as audits before issue 40 wrote them)
            assert cells["tail"] == ("not stated" if pd.isna(row["tail"]) else {
                "greater": "one-sided", "two-sided": "two-sided"}[row["tail"]])
        if np.isnan(row["ci_low"]):
            assert cells["95 % CI"] == "–"
        else:
            assert cells["95 % CI"] == f"[{format_d(row['ci_low'])}, {format_d(row['ci_high'])}]"
    assert any(c["95 % CI"] != "–" for c in shown.values())  # the fixture shows both kinds
    assert any(c["p"] == "–" for c in shown.values())


def test_every_metric_number_is_in_its_cell(audit, page):
    results, _, _ = audit
    rows = _table(_parse(page), f"Static-vector metrics of {MODEL}")
    assert rows[0] == ["metric", *TESTS, "Dis"]
    shown = {r[0]: dict(zip(rows[0][1:], r[1:], strict=True)) for r in rows[1:]}
    assert list(shown) == list(FIXTURE_METRICS)
    metric_rows = results[results["part"] == "metric"]
    for _, row in metric_rows.iterrows():
        cell = shown[row["method"]][row["test"]]
        expected = "not run" if row["not run"] else format_d(row["effect_size"])
        assert cell == expected, (row["method"], row["test"])
    assert {shown[m]["Dis"] for m in FIXTURE_METRICS} == {"not run"}
    # Metric rows are not headline rows: the summary table has none of them.
    summary = _table(_parse(page), f"Summary of {MODEL}")
    assert not {r[1] for r in summary[1:]} & set(FIXTURE_METRICS)


def test_the_metrics_framing_is_stated_once(audit, page):
    rows = _table(_parse(page), "The static-vector metrics: what a number says")
    assert rows[0] == ["metric", "kind", "what the number says"]
    known = {m.name: m for m in METRICS}
    for name, kind, reading in rows[1:]:
        assert kind == ("signed" if known[name].signed else "unsigned")
        assert reading == known[name].reading
    assert [r[0] for r in rows[1:]] == list(FIXTURE_METRICS)
    assert page.count("The static-vector metrics: what a number says") == 2  # caption, label
    assert "mean word score over A minus its mean over B" in page
    results, timings, provenance = audit
    without = render_report(results[results["part"] != "metric"], timings, provenance)
    assert "static-vector metrics" not in without.lower()


def test_metric_rows_not_run_say_why(page):
    block = page[page.index("id='not-run'"):page.index("id='provenance'")]
    assert "lose more than 20% of their words" in block and "ECT" in block


def test_holm_marks_are_shown_and_the_fixture_has_each_kind(audit, page):
    results, _, _ = audit
    marks = set(results.loc[results["part"] == "summary", "holm"])
    assert {"*", "n/a"} <= marks  # the fixture exercises both marks
    rows = _table(_parse(page), f"Summary of {MODEL}")
    assert "*" in {r[-1] for r in rows[1:]}


def test_one_curve_per_test_with_its_reading(audit, page):
    results, _, _ = audit
    assert page.count('<figure class="speccurve">') == len(TESTS)
    grid = results[(results["part"] == "grid") & (results["not run"] == "")]
    for test in TESTS:
        d = grid.loc[grid["test"] == test, "effect_size"]
        p = grid.loc[grid["test"] == test, "p_value"]
        positive = int((d > 0).sum())
        assert f"{positive} of {len(d)} ({100 * positive / len(d):.0f} %) specifications " \
               "have a positive effect size" in page
        assert f"{int((p < 0.05).sum())} of {len(p)}" in page
        assert (f"ranges from {format_d(d.min())} to {format_d(d.max())}") in page
    assert "did not run or have no effect size" in page  # C1's failed specification


def test_no_figure_is_left_open(audit):
    before = plt.get_fignums()
    render_report(*audit)
    assert plt.get_fignums() == before


def test_eat_maps_and_patterns_shown_when_mleat_ran(audit, page):
    results, timings, provenance = audit
    assert page.count('<figure class="eatmap">') == 1
    rows = _table(_parse(page), f"ML-EAT patterns of {MODEL}")
    mleat = results[(results["method"] == "ML-EAT") & (results["part"] == "summary")]
    assert [r[:2] for r in rows[1:]] == mleat[["test", "pattern"]].to_numpy().tolist()
    without = render_report(results[results["method"] != "ML-EAT"], timings, provenance)
    assert '<figure class="eatmap">' not in without and "ML-EAT patterns" not in without


def test_text_is_escaped(audit):
    results, timings, provenance = audit
    odd = results.replace({"test": {"C1": "C1 <b>&</b>"}})
    text = render_report(odd, timings, provenance | {"note": "<script>alert(1)</script>"})
    _parse(text)
    assert "C1 &lt;b&gt;&amp;&lt;/b&gt;" in text and "<b>&</b>" not in text
    assert "<script" not in text


def test_several_models_give_several_sections(audit):
    results, timings, provenance = audit
    other = results.assign(model="MiniLM stand-in", model_kind="encoder")
    text = render_report(pd.concat([results, other], ignore_index=True),
                         pd.concat([timings, timings.assign(model="MiniLM stand-in")]),
                         provenance)
    parsed = _parse(text)
    assert text.count('<section id="model-') == 2
    assert text.count('<figure class="speccurve">') == 2 * len(TESTS)
    _table(parsed, "Summary of MiniLM stand-in")
    _table(parsed, f"Summary of {MODEL}")
    assert 'href="#model-2"' in text


def test_a_test_without_grid_gets_a_sentence(audit):
    results, timings, provenance = audit
    no_c3 = results[~((results["part"] == "grid") & (results["test"] == "C3"))]
    text = render_report(no_c3, timings, provenance)
    assert text.count('<figure class="speccurve">') == 1
    assert "No specification grid was run for C3" in text


def test_timings_table_sums_each_part(audit, page):
    _, timings, _ = audit
    rows = {r[0]: r[1:] for r in _table(_parse(page), f"Timings of {MODEL}")[1:]}
    for part, sub in timings.groupby("part"):
        assert rows[part] == [format_seconds(sub["seconds"].sum()), str(len(sub)), "0"]
    assert rows["total"] == [format_seconds(timings["seconds"].sum()), str(len(timings)), "0"]
    assert f"audited 2025-01-02 10:00 in 3 min 05 s · {len(timings)} tasks ·" in page


def test_a_model_load_is_timed_but_not_counted_as_a_task(audit):
    results, timings, provenance = audit
    load = pd.DataFrame([{"model": timings["model"].iloc[0], "part": "load model", "test": "",
                          "seconds": 2.0, "status": "computed"}])
    page = render_report(results, pd.concat([load, timings], ignore_index=True), provenance)
    assert f" · {len(timings)} tasks ·" in page
    rows = {r[0]: r[1:] for r in _table(_parse(page), f"Timings of {MODEL}")[1:]}
    assert rows["load model"][0] == format_seconds(2.0)
    assert rows["total"][0] == format_seconds(timings["seconds"].sum() + 2.0)


def test_rows_not_run_are_listed_folded(page):
    block = page[page.index("id='not-run'"):page.index("id='provenance'")]
    assert "<details>" in block
    assert "static vectors have no masked-LM head" in block
    assert "too few words left" in block and "contexts: Mind Your Bias" in block


def test_provenance_is_folded_and_complete(audit, page):
    _, _, provenance = audit
    block = page[page.index("id='provenance'"):]
    assert block.index("<details>") < block.index("sha256:0f3a")
    for key in provenance:
        assert f'<th scope="row">{html.escape(key)}</th>' in block


def test_bad_input_is_refused_clearly(audit):
    results, timings, provenance = audit
    with pytest.raises(KeyError, match="holm"):
        render_report(results.drop(columns="holm"), timings, provenance)
    with pytest.raises(ValueError, match="part"):
        render_report(results.assign(part="headline"), timings, provenance)
    with pytest.raises(ValueError, match="status"):
        render_report(results, timings.assign(status="cached"), provenance)
    with pytest.raises(ValueError, match="two summary rows"):
        twice = results[results["method"] == "WEAT"]
        render_report(pd.concat([results, twice]), timings, provenance)
    with pytest.raises(ValueError, match="two metric rows"):
        twice = results[results["method"] == "RIPA"]
        render_report(pd.concat([results, twice]), timings, provenance)
    with pytest.raises(TypeError, match="provenance"):
        render_report(results, timings, [("biaslib", "0.1")])


def test_write_report_writes_the_page_whole(audit, tmp_path):
    path = write_report(tmp_path / "report.html", *audit)
    assert path == tmp_path / "report.html"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


@pytest.mark.parametrize(("seconds", "text"), [
    (0.004, "0.00 s"), (9.994, "9.99 s"), (12.34, "12.3 s"), (59.9, "59.9 s"),
    (61, "1 min 01 s"), (3599.4, "59 min 59 s"), (7260, "2 h 01 min"),
])
def test_format_seconds_by_hand(seconds, text):
    assert format_seconds(seconds) == text


def test_format_seconds_refuses_no_duration():
    with pytest.raises(ValueError, match="duration"):
        format_seconds(-1.0)


@pytest.mark.parametrize(("text", "shown"), [
    ("run /home/me/x/model.vec now", "run model.vec now"),
    ("file:///tmp/out/report.html", "report.html"),
    (r"C:\Users\me\vectors.txt", "vectors.txt"),
    ("~/data/glove.npy", "glove.npy"),
    ("Flowers/Insects × Pleasant/Unpleasant", "Flowers/Insects × Pleasant/Unpleasant"),
    ("sentence-transformers/all-MiniLM-L6-v2 and n/a", "sentence-transformers/all-MiniLM-L6-v2 "
                                                       "and n/a"),
])
def test_strip_paths_keeps_file_names_only(text, shown):
    assert strip_paths(text) == shown


def test_the_report_reads_only_columns_the_audit_writes():
    from biaslib.audit.parts import RESULT_COLUMNS
    from biaslib.audit.report import REQUIRED_COLUMNS

    assert set(REQUIRED_COLUMNS) <= {*RESULT_COLUMNS, "holm"}  # run_audit adds the holm mark


def test_notes_on_what_was_left_out_come_before_the_numbers(audit, page):
    """``provenance["notes"]`` (repeats merged, methods a model cannot run) are shown, escaped
    and without machine paths, above the reading guide; none, no block."""
    results, timings, provenance = audit
    notes = ["test 'C1' given more than once: run once",
             "/home/me/vectors/<b>tiny</b>.txt is a static model and cannot run SEAT"]
    text = render_report(results, timings, provenance | {"notes": notes})
    block = text[text.index("id='notes'"):text.index("id='how-to-read'")]
    assert "Notes on what was asked (2)" in block
    assert "test &#x27;C1&#x27; given more than once" in block or "test 'C1'" in block
    assert "&lt;b&gt;tiny&lt;/b&gt;.txt is a static model" in block
    assert "/home/me" not in text
    assert "id='notes'" not in page and "id='notes'" not in render_report(
        results, timings, provenance | {"notes": []})
