"""The audit's report: one self-contained HTML page of an audit's tidy results.

:func:`render_report` turns the three things an audit writes — its results (one row per
number), its timings (one row per task) and its provenance — into one HTML page, and
:func:`write_report` writes that page whole (:func:`biaslib.files.write_text_atomically`).

The page needs nothing beside itself: figures are PNG images inside it (``data:`` URIs),
the style sheet is inline and uses the reader's system fonts, and there is no script,
web font or link to another site. It reads at a laptop's 1366 px and a phone's 390 px:
wide tables scroll sideways in their own box, their first column stays in view, and no
number is hidden. Every text is escaped, and anything that looks like a path on the
machine that ran the audit is shown as its file name only (:func:`strip_paths`).

Top to bottom: what was audited, when and how long, and how to read the numbers (with
the framing of the static-vector metrics, when they ran); then, per model, the summary
table (rows: tests; columns grouped by method: effect size, 95 % CI, p-value, Holm mark),
the static-vector metrics (rows: metrics; columns: tests), a specification curve per test
(:func:`biaslib.reporting.speccurve.specification_curve`) with a line on its share of
positive and significant specifications, ML-EAT's EAT-Maps
(:func:`biaslib.reporting.eatmap.eat_map_grid`) with their patterns, and the timings;
last, the rows that were not run and the provenance, both folded.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from biaslib.audit.plan import ALPHA
from biaslib.evaluate.speccurve import CHOICES
from biaslib.files import write_text_atomically
from biaslib.reporting.eatmap import eat_map_grid
from biaslib.reporting.format import format_d, format_p
from biaslib.reporting.speccurve import specification_curve

__all__ = [
    "REQUIRED_COLUMNS",
    "format_seconds",
    "render_report",
    "strip_paths",
    "write_report",
]

#: The columns of an audit's results that the report reads (of
#: :data:`biaslib.audit.parts.RESULT_COLUMNS`, and the ``holm`` mark that
#: :func:`~biaslib.audit.run.run_audit` adds).
REQUIRED_COLUMNS = ("method", "test", "variant", "model", "effect_size", "p_value", "ci_low",
                    "ci_high", "ci_method", "part", "not run", "model_kind", "holm")
#: The columns of an audit's timings.
_TIMING_COLUMNS = ("model", "part", "test", "seconds", "status")
#: The order of the methods in a summary table; other methods follow in order of appearance.
_METHOD_ORDER = ("s-SEAT", "w-SEAT", "WEAT", "CEAT", "ML-EAT", "LPBS", "SAME")

#: Resolution of the embedded figures (dots per inch).
_DPI = 110
_TIMING_STATUSES = ("computed", "reused")
_PARTS = ("summary", "grid", "metric")

# A path of the machine: POSIX absolute (/a/b, ~/a/b, file:///a/b) or Windows (C:\a\b).
_PATH = re.compile(
    r"(?:file://|(?<![\w.:/~-]))(?:~?/(?:[^\s/\\'\"<>,;()\[\]{}]+/)+[^\s/\\'\"<>,;()\[\]{}]*"
    r"|[A-Za-z]:\\(?:[^\s\\'\"<>,;()\[\]{}]+\\)*[^\s\\'\"<>,;()\[\]{}]*)")

_CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
       sans-serif; line-height: 1.5; color: #1a1a1a; background: #fff; margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.5rem 0 0.75rem; }
h2 { font-size: 1.35rem; margin-top: 2.5rem; border-bottom: 2px solid #ddd;
     padding-bottom: 0.25rem; }
h3 { font-size: 1.1rem; margin-top: 1.75rem; }
h4 { font-size: 1rem; margin: 1.25rem 0 0.25rem; }
p, li { max-width: 48rem; }
.meta { color: #444; }
.note { color: #444; font-size: 0.92rem; }
.notes { background: #fff8e1; border-left: 4px solid #f0b400; padding: 0.25rem 0.9rem;
         margin: 0.75rem 0; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: 0.5rem 0 0.75rem;
          border: 1px solid #e3e3e3; width: fit-content; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.92rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 0.4rem 0.5rem; caption-side: top; }
th, td { padding: 0.3rem 0.55rem; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
thead th { background: #f3f4f6; text-align: center; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.mark { text-align: center; }
tbody th { text-align: left; font-weight: 600; background: #fff; white-space: nowrap; }
td.nowrap { white-space: nowrap; }
ul.reading li { margin-bottom: 0.35rem; }
.sticky { position: sticky; left: 0; z-index: 1; background: #fff; }
thead .sticky { background: #f3f4f6; }
tr.newtest > * { border-top: 2px solid #bbb; }
.variant { display: block; font-weight: 400; color: #555; font-size: 0.85rem; }
figure { margin: 1rem 0 1.5rem; }
.figure-box { overflow-x: auto; }
figure img { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.92rem; color: #333; margin-top: 0.35rem; max-width: 48rem; }
details { margin: 1rem 0; border: 1px solid #ddd; border-radius: 4px; padding: 0.4rem 0.75rem; }
summary { cursor: pointer; font-weight: 600; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; background: #f7f7f7;
      padding: 0.5rem; margin: 0; }
nav ul { padding-left: 1.2rem; }
a { color: #0b57d0; }
@media (max-width: 600px) {
  main { padding: 0.75rem 0.75rem 2rem; }
  h1 { font-size: 1.35rem; }
  table { font-size: 0.85rem; }
  th, td { padding: 0.25rem 0.4rem; }
  figure img { max-width: none; }
}
"""


def strip_paths(text: str) -> str:
    r"""``text`` with every machine path replaced by its file name.

    A path is an absolute POSIX path with at least two parts (``/home/me/model.vec``,
    ``~/data/x.txt``, ``file:///tmp/out``) or a Windows path (``C:\Users\me\x.vec``);
    ``a/b`` (a relative pair such as "Flowers/Insects" or a hub id) is left alone.

    Examples
    --------
    >>> strip_paths("biaslib audit /home/me/vectors/my.vec --out /tmp/audit/")
    'biaslib audit my.vec --out audit'
    >>> strip_paths("Flowers/Insects, sentence-transformers/all-MiniLM-L6-v2, n/a")
    'Flowers/Insects, sentence-transformers/all-MiniLM-L6-v2, n/a'
    """
    def name(match: re.Match[str]) -> str:
        parts = [p for p in re.split(r"[/\\]", match.group(0)) if p]
        return parts[-1] if parts else ""

    return _PATH.sub(name, text)


def _text(value: object) -> str:
    """A value as escaped HTML text, machine paths reduced to file names."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return html.escape(strip_paths(str(value)), quote=True)


def format_seconds(seconds: float) -> str:
    """A duration as a reader says it: ``0.42 s``, ``12.3 s``, ``4 min 05 s``, ``1 h 02 min``.

    Examples
    --------
    >>> [format_seconds(s) for s in (0.4213, 12.34, 245.2, 3725)]
    ['0.42 s', '12.3 s', '4 min 05 s', '1 h 02 min']
    """
    if not np.isfinite(seconds) or seconds < 0:
        raise ValueError(f"not a duration in seconds: {seconds!r}")
    if seconds < 10:
        return f"{seconds:.2f} s"
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {(whole % 3600) // 60:02d} min"


def _png(fig: Figure, alt: str) -> str:
    """An ``<img>`` holding ``fig`` as a PNG ``data:`` URI; the figure is closed."""
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=_DPI, bbox_inches="tight",
                    metadata={"Software": None}, facecolor="white")
    finally:
        plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="{_text(alt)}" src="data:image/png;base64,{data}">'


def _check_columns(frame: pd.DataFrame, needed: Iterable[str], what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, not {type(frame).__name__}")
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise KeyError(f"the audit's {what} lack columns {missing}; they have "
                       f"{list(frame.columns)}")


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or (
        isinstance(value, str) and not value.strip())


def _first(values: pd.Series) -> str:
    """The first non-blank value of a column, as text ('' if none)."""
    for value in values:
        if not _blank(value):
            return str(value)
    return ""


def _number(value: object) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _ci(low: object, high: object) -> str:
    low, high = _number(low), _number(high)
    if math.isnan(low) or math.isnan(high):
        return "–"
    return f"[{format_d(low)}, {format_d(high)}]"


def _not_run(frame: pd.DataFrame) -> pd.Series:
    return frame["not run"].map(lambda v: not _blank(v))


def _models(results: pd.DataFrame, timings: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys([*results["model"].astype(str), *timings["model"].astype(str)]))


def _method_order(methods: Iterable[str]) -> list[str]:
    present = list(dict.fromkeys(methods))
    return [m for m in _METHOD_ORDER if m in present] + [m for m in present
                                                        if m not in _METHOD_ORDER]


def _when(provenance: Mapping[str, object]) -> tuple[str, float | None]:
    """The audit's time span as a sentence, and its wall-clock seconds if both ends parse."""
    started, finished = provenance.get("started"), provenance.get("finished")
    times = []
    for value in (started, finished):
        try:
            times.append(datetime.fromisoformat(str(value)))
        except (TypeError, ValueError):
            times.append(None)
    span = None
    if None not in times:
        try:
            span = (times[1] - times[0]).total_seconds()
        except TypeError:  # one has a time zone, the other not
            span = None
    if span is not None and span < 0:
        span = None
    parts = []
    for word, value, when in (("started", started, times[0]), ("finished", finished, times[1])):
        if when is not None:
            parts.append(f"{word} {_text(when.isoformat(sep=' ', timespec='seconds'))}")
        elif not _blank(value):
            parts.append(f"{word} {_text(value)}")
    return ", ".join(parts), span


def _header(results: pd.DataFrame, timings: pd.DataFrame, provenance: Mapping[str, object],
            models: Sequence[str]) -> list[str]:
    kinds = {m: _first(results.loc[results["model"] == m, "model_kind"]) for m in models}
    names = ", ".join(_text(m) for m in models)
    out = [f"<h1>Bias audit: {names}</h1>" if len(models) <= 2 else
           f"<h1>Bias audit of {len(models)} models</h1>"]
    items = "".join(
        f"<li>{_text(m)}{f' ({_text(kinds[m])})' if kinds[m] else ''}</li>" for m in models)
    out.append(f'<p class="meta">Models audited:</p><ul class="meta">{items}</ul>')
    when, span = _when(provenance)
    meta = []
    if when:
        meta.append(f"The audit {when}")
        if span is not None:
            meta[-1] += f" (wall clock {format_seconds(span)})"
        meta[-1] += "."
    tasks = timings[timings["part"] != "load model"]  # a model load is not a task
    if len(tasks):
        seconds = pd.to_numeric(timings["seconds"], errors="coerce")
        counts = tasks["status"].value_counts()
        meta.append(f"Its {len(tasks)} tasks ({int(counts.get('computed', 0))} computed, "
                    f"{int(counts.get('reused', 0))} reused from an earlier run) and model "
                    f"loads recorded {format_seconds(float(seconds.sum()))} of work in all.")
    versions = provenance.get("versions")
    version = (versions.get("biaslib") if isinstance(versions, Mapping) else None) or (
        provenance.get("biaslib") or provenance.get("biaslib_version"))
    if not _blank(version):
        meta.append(f"biaslib {_text(version)}.")
    if meta:
        out.append(f'<p class="meta">{" ".join(meta)}</p>')
    out.append(_notes(provenance))
    holm = provenance.get("holm")
    alpha = _text(holm.get("alpha", ALPHA) if isinstance(holm, Mapping) else ALPHA)
    out.append(
        "<h2 id='how-to-read'>How to read this report</h2><ul class='reading'>"
        "<li>Each number is one bias test run by one method on one model. The <b>effect "
        "size</b> is Cohen's <i>d</i> of the WEAT family (WEAT; s-SEAT on sentences; w-SEAT "
        "on words in sentences; ML-EAT's level 1; LPBS on log probabilities) or CEAT's "
        "combined effect size (CES, a random-effects mean of <i>d</i> over sampled "
        "contexts). SAME reports its own score, not a <i>d</i>, and no p-value.</li>"
        "<li>A <b>positive</b> effect size points in the stereotype-congruent direction "
        "(the first target group with the first attribute group, as the test is "
        "published); by Cohen's rule of thumb, 0.2 is small, 0.5 medium, 0.8 large.</li>"
        "<li>The <b>95 % CI</b> is the interval each method defines (a note under each "
        "table says how it was computed); <b>p</b> is the method's p-value.</li>"
        f"<li>A <b>*</b> in the <b>Holm</b> column marks a p-value that stays below {alpha} "
        "after the Holm–Bonferroni correction over all the summary p-values of that model. "
        "A method without a p-value (SAME) shows “–” there.</li>"
        "<li>The <b>specification curves</b> show how the effect size of one test moves "
        "over every analytic choice the audit ran (targets, templates, level, pooling, "
        "layer, ddof, tail, sampling): a bias that holds up keeps its sign along the "
        "curve.</li>"
        "<li>On a narrow screen, wide tables and figures scroll sideways.</li></ul>")
    metric_rows = results.loc[results["part"] == "metric"]
    if not metric_rows.empty:
        out.append(_framing(metric_rows["method"].astype(str)))
    return out


def _notes(provenance: Mapping[str, object]) -> str:
    """What the audit left out or merged of what was asked (``provenance["notes"]``).

    Shown above everything else that explains the numbers: a repeated model or test run
    once, a method a model cannot run, a test a method has no stimuli for.
    """
    notes = provenance.get("notes")
    if not isinstance(notes, Sequence) or isinstance(notes, str) or not notes:
        return ""
    items = "".join(f"<li>{_text(strip_paths(str(n)))}</li>" for n in notes)
    return (f"<div class='notes' id='notes'><p><b>Notes on what was asked "
            f"({len(notes)}):</b></p><ul>{items}</ul></div>")


def _framing(methods: Iterable[str]) -> str:
    """What each static-vector metric's number means (:mod:`biaslib.evaluate.metrics`)."""
    from biaslib.evaluate.metrics import METRICS

    known = {m.name: m for m in METRICS}
    body = []
    for name in dict.fromkeys(methods):
        m = known.get(name)
        signed = "" if m is None else ("signed" if m.signed else "unsigned")
        reading = "" if m is None else m.reading
        body.append(f'<tr><th scope="row" class="sticky">{_text(name)}</th>'
                    f"<td>{_text(signed)}</td><td>{_text(reading)}</td></tr>")
    caption = "The static-vector metrics: what a number says"
    return ("<h3 id='metrics-framing'>The static-vector metrics</h3>"
            "<p>Besides the methods, the audit runs the library's static-vector metrics "
            "(<code>biaslib.evaluate.metrics</code>) on each test's words: a static file's "
            "vectors, or a contextual model's words each encoded alone. In one framing: the "
            "target groups X, Y define the direction and the attribute words A ∪ B are "
            "measured. A <b>signed</b> metric's number is its mean word score over A minus "
            "its mean over B, positive when A leans towards X more than B does (the "
            "direction of a positive WEAT effect size; RNSB, unsigned, trains on A and B "
            "and reads X and Y). None of them has a p-value. An <b>unsigned</b> metric "
            "has its own scale:</p>"
            f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
            f"<table><caption>{caption}</caption><thead><tr>"
            '<th scope="col" class="sticky">metric</th><th scope="col">kind</th>'
            '<th scope="col">what the number says</th></tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


#: ``targets`` values that need no note under a number: the test as May et al. published it.
_PUBLISHED = ("as published", "n/a", "", "nan")


def _p_text(p: float | None) -> str:
    """:func:`~biaslib.reporting.format.format_p`, with a p that underflowed to 0 as a bound.

    A normal tail probability below the smallest double (about 1e-308) is computed
    as exactly 0 (CEAT's z over thousands of samples).
    """
    return "< 1e-300" if p == 0 else format_p(p)


def _one_row_each(rows: pd.DataFrame, keys: tuple[str, str], what: str,
                  model: str) -> dict[tuple[str, str], pd.Series]:
    """``rows`` by the pair of ``keys`` they fill, refusing two rows for one cell."""
    cells: dict[tuple[str, str], pd.Series] = {}
    for _, row in rows.iterrows():
        key = (str(row[keys[0]]), str(row[keys[1]]))
        if key in cells:
            raise ValueError(f"two {what} rows for {keys[0]} {key[0]}, {keys[1]} {key[1]} "
                             f"of model {model!r}")
        cells[key] = row
    return cells


def _summary_table(rows: pd.DataFrame, model: str) -> str:
    """The summary of one model: one row per test × method, tests in the audit's order.

    A long table rather than a group of columns per method: seven columns fit a phone,
    and no method's numbers are ever scrolled out of view.
    """
    methods = _method_order(rows["method"].astype(str))
    tests = list(dict.fromkeys(rows["test"].astype(str)))
    cells = _one_row_each(rows, ("test", "method"), "summary", model)
    head = ('<tr><th scope="col" class="sticky">test</th><th scope="col">method</th>'
            '<th scope="col">groups</th><th scope="col" class="num">effect size</th>'
            '<th scope="col" class="num">95 % CI</th><th scope="col" class="num">p</th>'
            '<th scope="col">Holm</th></tr>')
    body = []
    for test in tests:
        first = True
        for method in methods:
            row = cells.get((test, method))
            if row is None:
                continue
            targets = str(row.get("targets", ""))
            groups = "as published" if targets in _PUBLISHED else targets
            if not _blank(row["not run"]):
                numbers = ['<td class="num">not run</td>', "<td></td>", "<td></td>",
                           "<td></td>"]
            else:
                estimate = format_d(_number(row["effect_size"]))
                holm = "" if _blank(row["holm"]) or str(row["holm"]) == "n/a" else row["holm"]
                numbers = [f'<td class="num">{_text(estimate)}</td>',
                           f'<td class="num">{_text(_ci(row["ci_low"], row["ci_high"]))}</td>',
                           f'<td class="num">{_text(_p_text(_number(row["p_value"])))}</td>',
                           f'<td class="mark">{_text(holm)}</td>']
            css = ' class="newtest"' if first else ""
            body.append(f'<tr{css}><th scope="row" class="sticky">{_text(test)}</th>'
                        f"<td>{_text(method)}</td><td>{_text(groups)}</td>"
                        f"{''.join(numbers)}</tr>")
            first = False
    caption = f"Summary of {_text(model)}: one row per test and method"
    table = (f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
             f"<table><caption>{caption}</caption><thead>{head}</thead>"
             f"<tbody>{''.join(body)}</tbody></table></div>")
    ci_methods = []
    for method in methods:
        found = rows.loc[(rows["method"] == method) & ~_not_run(rows), "ci_method"]
        names = [str(v) for v in dict.fromkeys(found) if not _blank(v) and str(v) != "n/a"]
        ci_methods.append(f"{_text(method)}: {_text('; '.join(names)) if names else 'none'}")
    note = ('<p class="note">The effect size is Cohen\'s <i>d</i>, except CEAT\'s combined '
            "effect size (CES) and SAME's score. “Groups” says how the headline described "
            "the social groups: May et al.'s test as published, or Mind Your Bias's names or "
            "terms. “–”: the method defines no such number. How each CI was computed — "
            f"{'; '.join(ci_methods)}.</p>")
    return table + note


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.0f} %)"


def _curve(grid: pd.DataFrame, model: str, test: str) -> str:
    """The specification curve of one test on one model, with its one-line reading."""
    heading = f"<h4>{_text(test)}</h4>"
    if grid.empty:
        return heading + (f"<p>No specification grid was run for {_text(test)} on this model, "
                          "so there is no curve.</p>")
    ran = grid.loc[~_not_run(grid)].copy()
    ran["effect_size"] = pd.to_numeric(ran["effect_size"], errors="coerce")
    ran = ran.loc[ran["effect_size"].notna()]
    skipped = len(grid) - len(ran)
    skip_note = (f" {_share(skipped, len(grid))} specifications did not run or have no "
                 "effect size (see “Rows not run” below) and are left out." if skipped else "")
    if ran.empty:
        return heading + (f"<p>None of the {len(grid)} specifications of {_text(test)} has an "
                          "effect size, so there is no curve.</p>")
    present = [c for c in CHOICES if c in ran.columns]
    choices = [c for c in present if ran[c].astype(str).nunique() > 1] or present[:1]
    if not choices:
        raise KeyError(f"the grid rows of {test!r} have none of the choice columns "
                       f"{list(CHOICES)}")
    for col in ("ci_low", "ci_high", "p_value"):
        ran[col] = pd.to_numeric(ran[col], errors="coerce")
    title = textwrap.fill(strip_paths(f"{model} — {test}"), 80)
    fig = specification_curve(ran, choices, title=title)
    d = ran["effect_size"].to_numpy(dtype=float)
    p = ran["p_value"].to_numpy(dtype=float)
    have_p = ~np.isnan(p)
    line = (f"{_share(int((d > 0).sum()), len(d))} specifications have a positive effect size"
            + (f"; {_share(int((p[have_p] < 0.05).sum()), int(have_p.sum()))} of those with a "
               "p-value have p &lt; 0.05" if have_p.any() else "; none has a p-value")
            + f"; the effect size ranges from {_text(format_d(float(d.min())))} to "
              f"{_text(format_d(float(d.max())))}.")
    alt = (f"Specification curve of {test} on {model}: {len(d)} specifications sorted by "
           f"effect size, with the choices each made below")
    img = _png(fig, alt)
    return (f'{heading}<figure class="speccurve"><div class="figure-box">{img}</div>'
            f"<figcaption>{line}{skip_note} Choices shown: "
            f"{_text(', '.join(choices))}.</figcaption></figure>")


def _mleat(rows: pd.DataFrame, model: str) -> str:
    """EAT-Maps and the pattern table of one model's ML-EAT summary rows."""
    ran = rows.loc[~_not_run(rows)]
    if "pattern" in ran.columns:
        ran = ran.loc[ran["pattern"].map(lambda v: not _blank(v))]
    else:
        ran = ran.iloc[0:0]
    out = ["<h3>ML-EAT: EAT patterns</h3>"]
    if ran.empty:
        out.append("<p>No ML-EAT test of this model has a pattern (none ran).</p>")
        return "".join(out)
    fig = eat_map_grid(ran.reset_index(drop=True), title_column="test", ncols=min(4, len(ran)))
    out.append('<figure class="eatmap"><div class="figure-box">'
               + _png(fig, f"EAT-Maps of {model}: one map per ML-EAT test")
               + "</div><figcaption>Columns: target groups X, Y; rows: attribute groups A, "
                 "B. A red cell is a significant level-2 association of that target group "
                 "with that attribute group; each column prints its level-2 effect size "
                 "(* significant).</figcaption></figure>")

    def level2(d: object, sig: object) -> str:
        mark = "*" if str(sig).strip().lower() == "true" or sig is True else ""
        return format_d(_number(d), mark)

    body = "".join(
        f'<tr><th scope="row" class="sticky">{_text(r["test"])}</th>'
        f"<td class='nowrap'>{_text(r['pattern'])}</td>"
        f'<td class="num">{_text(format_d(_number(r["effect_size"])))}</td>'
        f'<td class="num">{_text(level2(r.get("l2_x_d"), r.get("l2_x_sig")))}</td>'
        f'<td class="num">{_text(level2(r.get("l2_y_d"), r.get("l2_y_sig")))}</td></tr>'
        for _, r in ran.iterrows())
    caption = f"ML-EAT patterns of {_text(model)}"
    out.append(f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
               f"<table><caption>{caption}</caption><thead><tr>"
               '<th scope="col" class="sticky">test</th><th scope="col">pattern</th>'
               '<th scope="col" class="num">level 1 d</th>'
               '<th scope="col" class="num">level 2 d, X</th>'
               '<th scope="col" class="num">level 2 d, Y</th></tr></thead>'
               f"<tbody>{body}</tbody></table></div>"
               '<p class="note">*: the level-2 association is significant.</p>')
    return "".join(out)


def _timings(frame: pd.DataFrame, model: str) -> str:
    """Seconds and task counts of one model, one row per part, and the total."""
    out = ["<h3>Timings</h3>"]
    if frame.empty:
        out.append("<p>No task of this model recorded a time.</p>")
        return "".join(out)
    frame = frame.assign(seconds=pd.to_numeric(frame["seconds"], errors="coerce"))
    rows = []
    for part in dict.fromkeys(frame["part"].astype(str)):
        sub = frame.loc[frame["part"].astype(str) == part]
        rows.append((_text(part), sub))
    rows.append(("<b>total</b>", frame))
    body = "".join(
        f'<tr><th scope="row" class="sticky">{label}</th>'
        f'<td class="num">{_text(format_seconds(float(sub["seconds"].sum())))}</td>'
        f'<td class="num">{int((sub["status"] == "computed").sum())}</td>'
        f'<td class="num">{int((sub["status"] == "reused").sum())}</td></tr>'
        for label, sub in rows)
    caption = f"Timings of {_text(model)}"
    out.append(f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
               f"<table><caption>{caption}</caption><thead><tr>"
               '<th scope="col" class="sticky">part</th><th scope="col" class="num">time</th>'
               '<th scope="col" class="num">tasks computed</th>'
               '<th scope="col" class="num">tasks reused</th></tr></thead>'
               f"<tbody>{body}</tbody></table></div>"
               '<p class="note">Time: the sum of the tasks\' recorded seconds (tasks that ran '
               "side by side count each).</p>")
    return "".join(out)


def _metrics_table(rows: pd.DataFrame, model: str) -> str:
    """The static-vector metrics of one model: one row per metric, one column per test.

    Rows, not a group of columns per metric: fourteen metrics would not fit a phone, a few
    tests do (more scroll sideways, the metric's name in view).
    """
    tests = list(dict.fromkeys(rows["test"].astype(str)))
    metrics = list(dict.fromkeys(rows["method"].astype(str)))
    cells = _one_row_each(rows, ("method", "test"), "metric", model)
    head = ('<tr><th scope="col" class="sticky">metric</th>'
            + "".join(f'<th scope="col" class="num">{_text(t)}</th>' for t in tests) + "</tr>")
    body = []
    for name in metrics:
        values = []
        for test in tests:
            row = cells.get((name, test))
            text = ("" if row is None else "not run" if not _blank(row["not run"])
                    else format_d(_number(row["effect_size"])))
            values.append(f'<td class="num">{_text(text)}</td>')
        body.append(f'<tr><th scope="row" class="sticky">{_text(name)}</th>'
                    f"{''.join(values)}</tr>")
    where = _first(rows["level"]) if "level" in rows.columns else ""
    read = ("each word encoded alone, as a one-word sentence" if where == "sentence"
            else "the words' vectors")
    caption = f"Static-vector metrics of {_text(model)}: one row per metric"
    return (f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
            f"<table><caption>{caption}</caption><thead>{head}</thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>"
            f'<p class="note">On the headline stimuli of each test, {read}. What each number '
            "says: the framing under “How to read this report”. “not run”: the test lost "
            "too many words, or the metric refused the vectors (see “Rows not run”).</p>")


def _model_section(index: int, model: str, results: pd.DataFrame, timings: pd.DataFrame) -> str:
    rows = results.loc[results["model"].astype(str) == model]
    summary = rows.loc[rows["part"] == "summary"]
    grid = rows.loc[rows["part"] == "grid"]
    metric_rows = rows.loc[rows["part"] == "metric"]
    kind = _first(rows["model_kind"])
    out = [f'<section id="model-{index}"><h2>{_text(model)}'
           f"{f' <small>({_text(kind)})</small>' if kind else ''}</h2>",
           "<h3>Summary</h3>"]
    if summary.empty:
        out.append("<p>No summary row for this model.</p>")
    else:
        out.append(_summary_table(summary, model))
    if not metric_rows.empty:
        out.append("<h3>Static-vector metrics</h3>")
        out.append(_metrics_table(metric_rows, model))
    out.append("<h3>Specification curves</h3>")
    tests = list(dict.fromkeys([*summary["test"].astype(str), *grid["test"].astype(str)]))
    if not tests:
        out.append("<p>No test was run on this model with a method that has a "
                   "specification grid.</p>" if not metric_rows.empty else
                   "<p>No test was run on this model.</p>")
    for test in tests:
        out.append(_curve(grid.loc[grid["test"].astype(str) == test], model, test))
    mleat = summary.loc[summary["method"] == "ML-EAT"]
    if not mleat.empty:
        out.append(_mleat(mleat, model))
    out.append(_timings(timings.loc[timings["model"].astype(str) == model], model))
    out.append("</section>")
    return "".join(out)


def _not_run_block(results: pd.DataFrame) -> str:
    skipped = results.loc[_not_run(results)]
    if skipped.empty:
        return "<h2 id='not-run'>Rows not run</h2><p>Every row of the audit ran.</p>"
    body = []
    for _, row in skipped.iterrows():
        spec = ", ".join(f"{c}: {row[c]}" for c in CHOICES[1:]
                         if row["part"] == "grid" and c in row.index and not _blank(row[c])
                         and str(row[c]) != "n/a")
        body.append(f'<tr><td>{_text(row["model"])}</td><td>{_text(row["part"])}</td>'
                    f'<td>{_text(row["method"])}</td><td>{_text(row["test"])}</td>'
                    f'<td>{_text(spec)}</td><td>{_text(row["not run"])}</td></tr>')
    return ("<h2 id='not-run'>Rows not run</h2>"
            f"<details><summary>{len(skipped)} of {len(results)} rows were not run; "
            "show them and why</summary>"
            '<div class="scroll"><table><thead><tr><th scope="col">model</th>'
            '<th scope="col">part</th><th scope="col">method</th><th scope="col">test</th>'
            '<th scope="col">specification</th><th scope="col">reason</th></tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div></details>")


def _provenance_block(provenance: Mapping[str, object]) -> str:
    rows = []
    for key, value in provenance.items():
        if isinstance(value, Mapping | list | tuple):
            shown = (f"<pre>{_text(json.dumps(value, indent=2, ensure_ascii=False, default=str))}"
                     "</pre>")
        else:
            shown = _text(value)
        rows.append(f'<tr><th scope="row">{_text(key)}</th><td>{shown}</td></tr>')
    return ("<h2 id='provenance'>Provenance</h2>"
            "<details><summary>What produced these numbers (versions, model fingerprints, "
            "seeds, options)</summary>"
            f'<div class="scroll"><table><tbody>{"".join(rows)}</tbody></table></div>'
            "</details>")


def render_report(results: pd.DataFrame, timings: pd.DataFrame,
                  provenance: Mapping[str, object]) -> str:
    """The audit's report as one self-contained HTML page.

    Parameters
    ----------
    results
        The audit's tidy results, one row per number: the core columns and
        :data:`REQUIRED_COLUMNS`. ``part`` is ``"summary"`` (one test × method of one model;
        ``holm``: ``"*"``, ``""`` or ``"n/a"``), ``"grid"`` (one specification, with the
        choices :data:`~biaslib.evaluate.speccurve.CHOICES` as text) or ``"metric"`` (one
        static-vector metric on one test, :mod:`biaslib.evaluate.metrics`); ML-EAT summary
        rows also carry ``pattern``,
        ``l2_x_d``, ``l2_x_sig``, ``l2_y_d``, ``l2_y_sig``. A row whose ``not run`` is not
        empty did not run, for that reason.
    timings
        One row per task: :data:`_TIMING_COLUMNS` (``status``: ``"computed"`` or
        ``"reused"``).
    provenance
        What produced the numbers (JSON-able): shown folded at the end; ``started`` and
        ``finished`` (ISO 8601) and ``biaslib`` (its version) are shown at the top too.

    Returns
    -------
    str
        The HTML page: figures embedded as PNG ``data:`` URIs, inline CSS, no script and
        no external resource; machine paths shown as file names only.

    Raises
    ------
    TypeError
        If ``results`` or ``timings`` is not a DataFrame, or ``provenance`` not a mapping.
    KeyError
        If a needed column is missing (the message lists them).
    ValueError
        If ``part`` or ``status`` holds an unknown value, a summary has two rows for one
        test and method, or a number is not one (a p-value outside [0, 1]).
    """
    _check_columns(results, REQUIRED_COLUMNS, "results")
    _check_columns(timings, _TIMING_COLUMNS, "timings")
    if not isinstance(provenance, Mapping):
        raise TypeError(f"provenance must be a mapping, not {type(provenance).__name__}")
    unknown = sorted(set(results["part"].astype(str)) - set(_PARTS))
    if unknown:
        raise ValueError(f"results' part must be one of {list(_PARTS)}, not {unknown}")
    unknown = sorted(set(timings["status"].astype(str)) - set(_TIMING_STATUSES))
    if unknown:
        raise ValueError(f"timings' status must be one of {list(_TIMING_STATUSES)}, "
                         f"not {unknown}")
    models = _models(results, timings)
    body = _header(results, timings, provenance, models)
    if len(models) > 1:
        links = "".join(f'<li><a href="#model-{i}">{_text(m)}</a></li>'
                        for i, m in enumerate(models, 1))
        body.append(f"<nav aria-label='Models'><p>One section per model:</p><ul>{links}</ul>"
                    "</nav>")
    if not models:
        body.append("<p>The audit holds no result.</p>")
    body.extend(_model_section(i, m, results, timings) for i, m in enumerate(models, 1))
    body.append(_not_run_block(results))
    body.append(_provenance_block(provenance))
    title = "Bias audit: " + ", ".join(_text(m) for m in models)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title><style>{_CSS}</style></head>"
            f"<body><main>{''.join(body)}</main></body></html>\n")


def write_report(path: Path | str, results: pd.DataFrame, timings: pd.DataFrame,
                 provenance: Mapping[str, object]) -> Path:
    """Render the report (:func:`render_report`) and write it to ``path`` whole.

    The page is rendered first and then written atomically
    (:func:`biaslib.files.write_text_atomically`): an error or an interruption leaves the
    old file, or none, never half a page.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    path = Path(path)
    write_text_atomically(path, render_report(results, timings, provenance))
    return path
