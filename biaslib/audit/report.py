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
import functools
import html
import io
import json
import logging
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

from biaslib.audit.plan import ALPHA, headline_stimuli
from biaslib.audit.published import published_reference
from biaslib.audit.reference import offline_reference
from biaslib.evaluate.speccurve import CHOICES
from biaslib.files import write_text_atomically
from biaslib.reporting.eatmap import eat_map_grid
from biaslib.reporting.format import format_d, format_p
from biaslib.reporting.speccurve import specification_curve

__all__ = [
    "BIAS_VERDICTS",
    "RELIABILITY_FLOOR",
    "RELIABILITY_RULE",
    "REPORT_BUDGET",
    "REQUIRED_COLUMNS",
    "VERDICT_RULE",
    "bias_verdict",
    "format_seconds",
    "render_report",
    "strip_paths",
    "write_report",
]

logger = logging.getLogger(__name__)

#: The columns of an audit's results that the report reads (of
#: :data:`biaslib.audit.parts.RESULT_COLUMNS`, and the ``holm`` mark that
#: :func:`~biaslib.audit.run.run_audit` adds).
REQUIRED_COLUMNS = ("method", "test", "variant", "model", "effect_size", "p_value", "ci_low",
                    "ci_high", "ci_method", "part", "not run", "model_kind", "holm")
#: The columns of an audit's timings.
_TIMING_COLUMNS = ("model", "part", "test", "seconds", "status")
#: The order of the methods in a summary table; other methods follow in order of appearance.
_METHOD_ORDER = ("s-SEAT", "w-SEAT", "WEAT", "CEAT", "ML-EAT", "LPBS", "SAME")

#: Cohen's (1988) rule of thumb for a standardised mean difference: small, medium, large.
COHEN = (0.2, 0.5, 0.8)
#: The verdicts of :func:`bias_verdict`, weakest first.
BIAS_VERDICTS = ("no evidence", "negligible", "small", "medium", "large", "reversed")
#: The rule of :func:`bias_verdict`, as the report states it.
VERDICT_RULE = (
    "<b>no evidence</b> if the 95 % CI includes 0 or the p-value is not significant after "
    "Holm's correction within the method (α = {alpha}); otherwise the size by Cohen's rule: "
    "<b>negligible</b> below 0.2 ≤ <b>small</b> &lt; 0.5 ≤ <b>medium</b> &lt; 0.8 ≤ "
    "<b>large</b>; <b>reversed</b> if the CI lies below 0 or the p-value is significant "
    "against the stereotype (never evidence of the tested bias). SAME: no verdict (no sign, "
    "null or scale).")

#: Below this split-half reliability a headline number is flagged "low reliability" (the
#: lower bound psychometrics accepts for research use, Nunnally 1978; the words a test would
#: need are given for 0.8, :data:`~biaslib.evaluate.reliability.RELIABILITY_TARGET`).
RELIABILITY_FLOOR = 0.7
#: How the report states the reliability rule.
RELIABILITY_RULE = (
    "<b>Reliability</b>: the split-half reliability of the scores behind each number "
    "(Spearman–Brown corrected, averaged over random halves of the words it is scored "
    "against); <b>low reliability</b> below {floor}: another draw of the test's words could "
    "well change the number.")

#: What each method's number is, its sign, its interval and its p-value, for the legend.
_LEGEND: dict[str, tuple[str, str, str]] = {
    "WEAT": ("Cohen's d of the word vectors' associations (Caliskan et al. 2017)",
             "the first target group with the first attribute group, as published",
             "one-sided permutation p (exact, or 100,000 seeded re-splits)"),
    "s-SEAT": ("Cohen's d of sentence embeddings of the test's words in May et al.'s "
               "bleached templates (May et al. 2019)",
               "as WEAT", "one-sided permutation p (100,000 seeded re-splits, or exact)"),
    "w-SEAT": ("Cohen's d of the word's own vectors inside those sentences (Tan & Celis "
               "2019)", "as WEAT", "as s-SEAT"),
    "CEAT": ("the combined effect size (CES): a random-effects mean of d over 10,000 "
             "random samples of one context per word (Guo & Caliskan 2021)",
             "as WEAT",
             "two-sided normal p of the CES. It and the CI treat the 10,000 samples of "
             "the same few templates as independent studies: they say how precisely the "
             "mean over those samples is known, not whether the bias would hold for other "
             "words or contexts, and are not comparable with a permutation p"),
    "ML-EAT": ("level 1 of Wolfe et al.'s multilevel test: WEAT's d on the same vectors "
               "(the same number as WEAT or s-SEAT), with its own two-sided permutation p; "
               "levels 2 and 3 and the EAT pattern are in the ML-EAT section",
               "as WEAT", "two-sided permutation p (ML-EAT's convention)"),
    "LPBS": ("Cohen's d of Kurita et al.'s log probability bias scores, masked-LM "
             "templates of Mind Your Bias (Kurita et al. 2019). Its rows (template × "
             "attribute word) are not independent: the interval is too narrow",
             "the first target group more likely with the first attribute group",
             "two-sided permutation p (Mind Your Bias's convention)"),
    "SAME": ("Schröder et al.'s SAME: the mean over the attribute words of |cos(w, x̂ − ŷ)| "
             "(eq. 37); 0 is no bias", "never negative: it measures strength, not direction",
             "none"),
}

#: Resolution of the embedded figures (dots per inch).
_DPI = 100
#: Colours of an embedded figure's palette (:func:`_png`).
_COLOURS = 64
#: About the most bytes a report of one model with every test should take.
REPORT_BUDGET = 1_000_000
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
h2#at-a-glance { margin-top: 1rem; }
p.rule { font-size: 0.9rem; color: #333; max-width: 60rem; margin: 0.25rem 0 0.5rem; }
table.glance td.cell { font-size: 0.88rem; line-height: 1.3;
                       border-left: 1px solid #eee; }
table.glance td.none { color: #888; text-align: center; vertical-align: middle; }
table.glance tbody th { white-space: normal; min-width: 11rem; max-width: 15rem;
                        font-weight: 500; font-size: 0.88rem; overflow-wrap: break-word; }
table.glance td.cell { white-space: normal; min-width: 8.5rem; }
td.over { white-space: normal; min-width: 18rem; font-size: 0.85rem; color: #444; }
.ci { color: #333; }
.ref { color: #666; font-size: 0.8rem; }
.v { font-size: 0.78rem; padding: 0 0.3rem; border-radius: 3px; font-weight: 600;
      white-space: nowrap; }
.v-large { background: #fde2e1; color: #9b1c1c; }
.v-medium { background: #feebc8; color: #8a4b08; }
.v-small { background: #fefcbf; color: #6b5d06; }
.v-negligible, .v-no-evidence { background: #edf2f7; color: #4a5568; }
.v-reversed { background: #e0ecff; color: #1e4e8c; }
.rel { color: #333; }
.flag { font-size: 0.78rem; padding: 0 0.3rem; border-radius: 3px; font-weight: 600;
        color: #9b1c1c; border: 1px dashed #9b1c1c; white-space: nowrap; }
a { color: #0b57d0; }
@media (max-width: 600px) {
  main { padding: 0.75rem 0.75rem 2rem; }
  h1 { font-size: 1.35rem; }
  table { font-size: 0.85rem; }
  th, td { padding: 0.25rem 0.4rem; }
  figure img { max-width: none; }
  table.glance tbody th { min-width: 6.5rem; max-width: 8rem; }
  p.rule { font-size: 0.82rem; line-height: 1.35; }
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


def _png(fig: Figure, alt: str, dpi: int = _DPI) -> str:
    """An ``<img>`` holding ``fig`` as a PNG ``data:`` URI; the figure is closed.

    The image is reduced to a palette of :data:`_COLOURS` colours (Pillow's median cut,
    no dithering): line figures lose nothing visible and shrink about threefold, which
    keeps a report of every test near :data:`REPORT_BUDGET`.
    """
    from PIL import Image

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight",
                    metadata={"Software": None}, facecolor="white")
    finally:
        plt.close(fig)
    buffer.seek(0)
    with Image.open(buffer) as image:
        small = image.convert("RGB").quantize(_COLOURS, method=Image.Quantize.MEDIANCUT,
                                              dither=Image.Dither.NONE)
    packed = io.BytesIO()
    small.save(packed, format="PNG", optimize=True)
    data = base64.b64encode(packed.getvalue()).decode("ascii")
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


def _span(provenance: Mapping[str, object]) -> tuple[str, float | None]:
    """When the audit started (``2026-11-29 22:30 UTC``) and its wall-clock seconds.

    The seconds are ``None`` unless both ``started`` and ``finished`` parse (ISO 8601), are
    comparable (both with a time zone or both without) and in order; a ``started`` that
    does not parse is shown as it is.
    """
    times = []
    for value in (provenance.get("started"), provenance.get("finished")):
        try:
            times.append(datetime.fromisoformat(str(value)))
        except (TypeError, ValueError):
            times.append(None)
    started, finished = times
    span = None
    if started is not None and finished is not None:
        try:
            span = (finished - started).total_seconds()
        except TypeError:  # one has a time zone, the other not
            span = None
    if span is not None and span < 0:
        span = None
    if started is None:
        return _text(provenance.get("started") or ""), span
    zone = " UTC" if started.utcoffset() is not None and not started.utcoffset() else ""
    return _text(started.strftime("%Y-%m-%d %H:%M") + zone), span


def _header(results: pd.DataFrame, timings: pd.DataFrame, provenance: Mapping[str, object],
            models: Sequence[str]) -> list[str]:
    """The title and one line on what was audited, when and how long; then the notes."""
    kinds = {m: _first(results.loc[results["model"] == m, "model_kind"]) for m in models}
    names = ", ".join(_text(m) for m in models)
    out = [f"<h1>Bias audit: {names}</h1>" if len(models) <= 2 else
           f"<h1>Bias audit of {len(models)} models</h1>"]
    meta = ["; ".join((f"{_text(m)}: " if len(models) > 1 else "") + (_text(kinds[m]) or "model")
                      for m in models)]
    started, span = _span(provenance)
    if started:
        meta.append(f"audited {started}" + (f" in {format_seconds(span)}" if span is not None
                                             else ""))
    tasks = timings[timings["part"] != "load model"]  # a model load is not a task
    if len(tasks):
        reused = int((tasks["status"] == "reused").sum())
        meta.append(f"{len(tasks)} tasks" + (f" ({reused} reused from an earlier run)"
                                             if reused else ""))
    versions = provenance.get("versions")
    version = (versions.get("biaslib") if isinstance(versions, Mapping) else None) or (
        provenance.get("biaslib") or provenance.get("biaslib_version"))
    if not _blank(version):
        meta.append(f"biaslib {_text(version)}")
    meta[-1] += "."
    out.append(f'<p class="meta">{" · ".join(meta)}</p>')
    out.append(_notes(provenance))
    return out


def _alpha(provenance: Mapping[str, object]) -> object:
    holm = provenance.get("holm")
    return holm.get("alpha", ALPHA) if isinstance(holm, Mapping) else ALPHA


def _how_to_read(results: pd.DataFrame, provenance: Mapping[str, object]) -> list[str]:
    """How to read the numbers: the rule, each method's legend, the curves, the metrics."""
    summary = results.loc[results["part"] == "summary"]
    out = ["<h2 id='how-to-read'>How to read the numbers</h2>",
           "<ul class='reading'>"
           "<li>Each number is one bias test run by one method on one model; the tests are "
           "May et al.'s SEAT tests (C1–C10, ABW, the double binds) and Mind Your Bias's "
           "(Occ, I1, I2, Dis), on their headline stimuli (“Groups” in the summary).</li>"
           f"<li>Verdict: {VERDICT_RULE.format(alpha=_text(_alpha(provenance)))}</li>"
           f"<li>{RELIABILITY_RULE.format(floor=RELIABILITY_FLOOR)} The subjects are the "
           "words (or sentences) whose scores the test compares, the items the words (or "
           "templates) it scores them against: the target words over the attribute words "
           "for WEAT, SEAT and ML-EAT, the attribute words over the target words for SAME, "
           "the attribute words over the templates for LPBS. CEAT has none (its number "
           "pools sampled contexts). Each model's “Reliability” table gives the "
           "intervals, Cronbach's alpha and the words a test would need for 0.8.</li>"
           "<li>The <b>specification curves</b> show how the effect size of one test moves "
           "over every analytic choice the audit ran (targets, templates, level, pooling, "
           "layer, ddof, tail, sampling): a bias that holds up keeps its sign along the "
           "curve.</li>"
           "<li>On a narrow screen, wide tables and figures scroll sideways.</li></ul>"]
    if not summary.empty:
        out.append(_legend(summary["method"].astype(str), summary, _text(_alpha(provenance))))
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


def _p_text(p: float, resolution: float = math.nan) -> str:
    """A p-value at its resolution: ``< 1.0e-05`` at the floor of a sampled test.

    ``resolution`` is the smallest p a test from random re-splits can give (1/(n+1) for n
    re-splits, ``p_resolution``): a p at or below it is shown as ``< resolution``, as no
    re-split reached the observed statistic. An analytic p that underflowed to 0 (CEAT's
    normal tail over thousands of samples, below the smallest double) is ``< 1e-300``.
    """
    if not math.isnan(p) and not math.isnan(resolution) and p <= resolution * (1 + 1e-9):
        return f"< {format_p(resolution)}"
    return "< 1e-300" if p == 0 else format_p(p)


#: How the report names a tail.
_TAILS = {"greater": "one-sided", "less": "one-sided (less)", "two-sided": "two-sided"}


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
            '<th scope="col">tail</th><th scope="col">Holm</th></tr>')
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
                           "<td></td>", "<td></td>"]
            else:
                estimate = format_d(_number(row["effect_size"]))
                holm = "" if _blank(row["holm"]) or str(row["holm"]) == "n/a" else row["holm"]
                p = _number(row["p_value"])
                stated = row.get("tail")
                tail = ("–" if math.isnan(p) else "not stated"
                        if _blank(stated) or str(stated) == "n/a"
                        else _TAILS.get(str(stated), str(stated)))
                numbers = [f'<td class="num">{_text(estimate)}</td>',
                           f'<td class="num">{_text(_ci(row["ci_low"], row["ci_high"]))}</td>',
                           f'<td class="num">{_text(_p_text(p, _number(row.get("p_resolution"))))}'
                           "</td>",
                           f"<td>{_text(tail)}</td>",
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
    note = ('<p class="note">The effect size is Cohen\'s <i>d</i>, except CEAT\'s combined '
            "effect size (CES) and SAME's score. “Groups” says how the headline described "
            "the social groups: May et al.'s test as published, or Mind Your Bias's names or "
            "terms. “–”: the method defines no such number. Tail, interval and Holm family "
            "of each method: “How to read the numbers”.</p>")
    return table + note


def bias_verdict(effect: float, ci_low: float, ci_high: float, holm: str | None,
            method: str = "") -> str:
    """A headline number in words, by :data:`VERDICT_RULE`.

    Parameters
    ----------
    effect, ci_low, ci_high
        The effect size and its 95 % interval (NaN where the method defines none).
    holm
        The audit's Holm mark: ``"*"`` (rejected, effect > 0), ``"reversed"`` (rejected,
        effect < 0), ``""`` (not rejected), ``"n/a"`` or ``None`` (the method has no
        p-value).
    method
        The method's name: ``"SAME"`` gets ``""`` (no verdict).

    Returns
    -------
    str
        One of :data:`BIAS_VERDICTS`, or ``""`` where there is no rule (SAME, no effect size).

    Examples
    --------
    >>> bias_verdict(0.9, 0.5, 1.3, "*"), bias_verdict(0.9, -0.1, 1.9, "*")
    ('large', 'no evidence')
    >>> bias_verdict(0.3, 0.1, 0.5, "")
    'no evidence'
    >>> bias_verdict(-0.6, -0.8, -0.4, ""), bias_verdict(0.1, 0.05, 0.15, "n/a")
    ('reversed', 'negligible')
    """
    if method == "SAME" or math.isnan(effect):
        return ""
    has_ci = not (math.isnan(ci_low) or math.isnan(ci_high))
    has_p = holm not in (None, "n/a")
    if effect < 0:  # never evidence of the tested bias, whatever the marks say
        # a one-sided test cannot reject it: the interval can
        return "reversed" if (has_ci and ci_high < 0) or holm == "reversed" else "no evidence"
    if (has_ci and ci_low <= 0) or (has_p and holm != "*") or not (has_ci or has_p):
        return "no evidence"
    small, medium, large = COHEN
    return ("negligible" if effect < small else "small" if effect < medium
            else "medium" if effect < large else "large")


@functools.cache
def _title(test: str) -> str:
    """A test's title from its stimuli (``"Flowers/Insects × Pleasant/Unpleasant"``), or ``""``."""
    from biaslib.stimuli.data import load_test

    try:
        title = str(load_test(headline_stimuli(test)).title or "")
    except (KeyError, LookupError, ValueError, OSError):  # a test of another vintage
        return ""
    return re.sub(r"^MYB \S+ \([^)]*\): ", "", title)


def _range_text(values: np.ndarray, effect: float, label: str) -> str:
    """``papers −0.11 to 1.65, above 7 of 12`` (``""`` without values)."""
    if not len(values):
        return ""
    low, high = format_d(float(values.min())), format_d(float(values.max()))
    span = low if low == high else f"{low} to {high}"
    text = f"{label} {span}"
    if not math.isnan(effect):
        text += f", above {int((values < effect).sum())} of {len(values)}"
    return text


def _glance(rows: pd.DataFrame, model: str, published: pd.DataFrame,
            offline: pd.DataFrame) -> str:
    """The first screen of one model: per test its headline number per method, in words.

    Each cell: the effect size, its verdict (:func:`bias_verdict`), its interval, and where it
    falls among the papers' published numbers (:func:`~biaslib.audit.published.
    published_reference`) and the book's offline models (:func:`~biaslib.audit.reference.
    offline_reference`) for the same test and method.
    """
    methods = _method_order(rows["method"].astype(str))
    tests = list(dict.fromkeys(rows["test"].astype(str)))
    cells = _one_row_each(rows, ("test", "method"), "summary", model)
    offline = offline.loc[offline["model"].astype(str) != model]
    head = ('<tr><th scope="col" class="sticky">test</th>'
            + "".join(f'<th scope="col">{_text(m)}</th>' for m in methods) + "</tr>")
    body = []
    for test in tests:
        title = _title(test)
        # a line may break after a slash ("Instruments/<wbr>Weapons") on a phone
        label = (f"{_text(title).replace('/', '/<wbr>')} <span class='variant'>"
                 f"{_text(test)}</span>" if title else _text(test))
        tds = []
        for method in methods:
            row = cells.get((test, method))
            if row is None:
                tds.append('<td class="cell none">–</td>')
                continue
            if not _blank(row["not run"]):
                tds.append('<td class="cell none">not run</td>')
                continue
            effect = _number(row["effect_size"])
            low, high = _number(row["ci_low"]), _number(row["ci_high"])
            words = bias_verdict(effect, low, high, _holm_mark(row), method)
            badge = (f' <span class="v v-{words.replace(" ", "-")}">{_text(words)}</span>'
                     if words else "")
            lines = [f"<b>{_text(format_d(effect))}</b>{badge}"]
            if not (math.isnan(low) or math.isnan(high)):
                lines.append(f'<span class="ci">{_text(_ci(low, high))}</span>')
            reliability = _reliability_text(row)
            if reliability:
                lines.append(reliability)
            pick = (published["test"] == test) & (published["method"] == method)
            ref = _range_text(published.loc[pick, "value"].to_numpy(float), effect, "papers")
            mine = (offline["test"] == test) & (offline["method"] == method)
            own = _range_text(offline.loc[mine, "effect_size"].to_numpy(float), effect,
                              "offline")
            lines += [f'<span class="ref">{_text(t)}</span>' for t in (ref, own) if t]
            tds.append(f'<td class="cell">{"<br>".join(lines)}</td>')
        body.append(f'<tr><th scope="row" class="sticky">{label}</th>{"".join(tds)}</tr>')
    caption = f"{_text(model)} at a glance: each test's headline number per method"
    table = (f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
             f'<table class="glance"><caption>{caption}</caption><thead>{head}</thead>'
             f"<tbody>{''.join(body)}</tbody></table></div>")
    note = ('<p class="note">Each cell: the effect size and its verdict, its 95 % CI, then '
            "the range of the papers' published numbers for the same test and method on "
            "their own models (“papers”: May et al. 2019, Husse &amp; Spitz 2022, Wolfe et "
            "al. 2024, Tan &amp; Celis 2019, Guo &amp; Caliskan 2021, Kurita et al. 2019; "
            "each listed under “Published numbers”) and of the book's offline stand-in "
            "models (“offline”), with how many of them this model's number is above. The "
            "papers' stimuli and templates differ in places from the audit's headline (see "
            "“Groups” in the summary): read them as a scale, not as targets."
            + (" CEAT's interval is that of the mean over 10,000 samples of the same few "
               "templates: it says how precisely that mean is known, not how much the bias "
               "varies with words or contexts." if "CEAT" in methods else "")
            + "</p>")
    return table + note


def _reliability_text(row: pd.Series) -> str:
    """A glance cell's reliability line: ``reliability 0.85``, flagged below the floor."""
    value = _number(row.get("reliability"))
    if math.isnan(value):
        return ""
    flag = (' <span class="flag">low reliability</span>' if value < RELIABILITY_FLOOR
            else "")
    return f'<span class="rel">reliability {_text(format_d(value))}</span>{flag}'


def _reliability_table(rows: pd.DataFrame, model: str) -> str:
    """Every headline number's reliability: split-half and alpha with intervals, words needed.

    The columns of :mod:`biaslib.audit.parts` (``reliability``, ``alpha``, their bounds,
    ``items_needed``, ``reliability_method``); a results file from before them has none,
    and the section says so.
    """
    if "reliability" not in rows or not np.isfinite(
            pd.to_numeric(rows["reliability"], errors="coerce")).any():
        return ("<p>No reliability was computed for these numbers (a results file written "
                "before biaslib reported it, or methods without one).</p>")
    methods = _method_order(rows["method"].astype(str))
    cells = _one_row_each(rows, ("test", "method"), "reliability", model)
    head = ('<tr><th scope="col" class="sticky">test</th><th scope="col">method</th>'
            '<th scope="col" class="num">split-half [95 % CI]</th>'
            '<th scope="col" class="num">alpha [95 % CI]</th>'
            '<th scope="col" class="num">items for 0.8</th><th scope="col">over</th></tr>')
    body = []
    for test in dict.fromkeys(rows["test"].astype(str)):
        for method in methods:
            row = cells.get((test, method))
            if row is None or not _blank(row["not run"]):
                continue
            value = _number(row.get("reliability"))
            how = str(row.get("reliability_method", ""))
            if math.isnan(value):
                numbers = ('<td class="num">–</td><td class="num">–</td><td class="num">–</td>'
                           f'<td class="over">{_text(how.removeprefix("none: "))}</td>')
            else:
                alpha = _number(row.get("alpha"))
                alpha_text = ("–" if math.isnan(alpha) else
                              f"{format_d(alpha)} "
                              f"{_ci(row.get('alpha_low'), row.get('alpha_high'))}")
                needed = _number(row.get("items_needed"))
                flag = ' <span class="flag">low</span>' if value < RELIABILITY_FLOOR else ""
                # the coefficient's name is the column's; the rest says what was split
                over = "; ".join(p for p in how.split("; ")[1:] if "alpha" not in p) or how
                numbers = (f'<td class="num">{_text(format_d(value))} '
                           f'{_text(_ci(row.get("reliability_low"), row.get("reliability_high")))}'
                           f"{flag}</td>"
                           f'<td class="num">{_text(alpha_text)}</td>'
                           f'<td class="num">{_needed_text(needed)}'
                           f'</td><td class="over">{_text(over)}</td>')
            body.append(f'<tr><th scope="row" class="sticky">{_text(test)}</th>'
                        f"<td>{_text(method)}</td>{numbers}</tr>")
    caption = f"Reliability of each headline number of {_text(model)}"
    return (f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
            f"<table><caption>{caption}</caption><thead>{head}</thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>"
            '<p class="note">Split-half: the correlation between the scores that two random '
            "halves of the items give the same subjects, stepped up to the full test by "
            "Spearman–Brown, averaged over the splits; its interval covers the sampling of "
            "subjects. Alpha: Cronbach's, stratified by attribute set for the WEAT-type "
            "associations. “Items for 0.8”: how many items (words, templates) the "
            "Spearman–Brown prophecy says the test needs for a reliability of 0.8 (fewer "
            "than it has when it is above 0.8). A standardised effect size is attenuated by "
            f"about the square root of its reliability; below {RELIABILITY_FLOOR} the "
            "number is flagged.</p>")


def _needed_text(needed: float) -> str:
    """Items a test needs for 0.8: a count, "–" if unknown, "∞" when no length helps."""
    if math.isnan(needed):
        return "–"
    return f"{needed:,.0f}" if math.isfinite(needed) else "∞ (none helps)"


def _holm_mark(row: pd.Series) -> str | None:
    value = row.get("holm")
    return None if _blank(value) and _blank(row.get("p_value")) else (
        "" if _blank(value) else str(value))


def _glance_figure(rows: pd.DataFrame, model: str, published: pd.DataFrame,
                   offline: pd.DataFrame) -> str:
    """One panel per method: this model's effect sizes with CIs among the reference numbers."""
    ran = rows.loc[~_not_run(rows)].copy()
    ran["effect_size"] = pd.to_numeric(ran["effect_size"], errors="coerce")
    ran = ran.loc[ran["effect_size"].notna()]
    if ran.empty:
        return ""
    methods = _method_order(ran["method"].astype(str))
    tests = list(dict.fromkeys(ran["test"].astype(str)))
    ncols = min(3, len(methods))
    nrows = math.ceil(len(methods) / ncols)
    height = nrows * (0.9 + 0.2 * len(tests)) + 0.3  # a panel's title, ticks and rows
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.3 * ncols, height), sharey=True,
                             squeeze=False, layout="constrained")
    y = {t: i for i, t in enumerate(tests)}
    offline = offline.loc[offline["model"].astype(str) != model]
    for ax, method in zip(axes.flat, methods, strict=False):
        for sub, style in ((published, dict(marker="|", color="#777", s=40, lw=1.2)),
                           (offline, dict(marker="o", facecolors="none", edgecolors="#2b6cb0",
                                          s=22, lw=1))):
            col = "value" if "value" in sub.columns else "effect_size"
            pick = sub.loc[(sub["method"] == method) & sub["test"].isin(y)]
            ax.scatter(pick[col].astype(float), pick["test"].map(y), zorder=2, **style)
        mine = ran.loc[ran["method"] == method]
        low = pd.to_numeric(mine["ci_low"], errors="coerce")
        high = pd.to_numeric(mine["ci_high"], errors="coerce")
        ys = mine["test"].map(y)
        ax.hlines(ys, low, high, color="#c53030", lw=1.6, zorder=3)
        ax.scatter(mine["effect_size"], ys, color="#c53030", s=22, zorder=4)
        for x in (-0.8, -0.5, -0.2, 0.2, 0.5, 0.8):
            ax.axvline(x, color="#ddd", lw=0.6, zorder=0)
        ax.axvline(0, color="#999", lw=0.8, zorder=1)
        ax.set_title(method, fontsize=9)
        ax.tick_params(labelsize=8)
        ax.set_yticks(range(len(tests)), tests)
    axes.flat[0].invert_yaxis()  # the panels share it: the first test on top
    for ax in list(axes.flat)[len(methods):]:
        ax.set_visible(False)
    fig.supxlabel("effect size (red: this model with its 95 % CI; grey |: papers; "
                  "blue ○: offline models; lines at 0, ±0.2, ±0.5, ±0.8)", fontsize=8)
    alt = (f"{model}: effect size per test, one panel per method, beside the papers' "
           "published numbers and the book's offline models")
    return (f'<figure class="glance-figure"><div class="figure-box">{_png(fig, alt, dpi=80)}'
            "</div></figure>")


def _legend(methods: Iterable[str], rows: pd.DataFrame, alpha: object) -> str:
    """What each method's number, sign, interval, p-value and Holm family are."""
    body = []
    for method in _method_order(methods):
        what, sign, p = _LEGEND.get(method, ("", "", ""))
        found = rows.loc[(rows["method"] == method) & ~_not_run(rows), "ci_method"]
        # one description per kind of interval: the counts differ from test to test
        kinds = (re.sub(r"\bthe \d+ (?=attribute)", "the ",
                        re.sub(r"\b\d+ \+ \d+\b", "n_A + n_B", str(v)))
                 for v in found if not _blank(v))
        ci = "; ".join(dict.fromkeys(kinds)) or "none"
        body.append(f'<tr><th scope="row" class="sticky">{_text(method)}</th>'
                    f"<td>{_text(what)}</td><td>{_text(sign)}</td><td>{_text(ci)}</td>"
                    f"<td>{_text(p)}</td></tr>")
    caption = "Each method's number, sign, interval and p-value"
    return (f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
            f"<table><caption>{caption}</caption><thead><tr>"
            '<th scope="col" class="sticky">method</th><th scope="col">the number</th>'
            '<th scope="col">positive means</th><th scope="col">95 % CI</th>'
            '<th scope="col">p-value</th></tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>"
            f'<p class="note">Holm–Bonferroni runs within each method of each model (α = '
            f"{_text(alpha)}), so one-sided and two-sided p-values are never corrected "
            "together. <b>*</b>: significant after the correction, effect size above 0; "
            "<b>reversed</b>: significant in the opposite direction (never a star). A p-value "
            "from random re-splits is shown at its resolution (“&lt; 1.0e-05” for 100,000 "
            "re-splits: no re-split reached the observed statistic).</p>")


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


def _references() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The papers' published numbers and the book's offline models' (empty if unreadable)."""
    try:
        published = published_reference()
    except (OSError, LookupError, ValueError) as err:
        logger.warning("the papers' published numbers cannot be read (%s): the report "
                       "shows none", err)
        published = pd.DataFrame(columns=["test", "method", "model", "value", "paper",
                                          "table", "note"])
    return published, offline_reference()


def _glance_section(results: pd.DataFrame, models: Sequence[str],
                    provenance: Mapping[str, object]) -> list[str]:
    """The first screen: the verdict rule, then per model its at-a-glance table and figure."""
    published, offline = _references()
    alpha = _text(_alpha(provenance))
    out = ["<h2 id='at-a-glance'>At a glance</h2>",
           f'<p class="rule">Verdict: {VERDICT_RULE.format(alpha=alpha)} '
           f"{RELIABILITY_RULE.format(floor=RELIABILITY_FLOOR)} Details and each "
           "method's sign, interval and p-value: <a href='#how-to-read'>How to read the "
           "numbers</a>.</p>"]
    tests: set[str] = set()
    for i, model in enumerate(models, 1):
        rows = results.loc[(results["model"].astype(str) == model)
                           & (results["part"] == "summary")]
        if rows.empty:
            continue
        tests |= set(rows["test"].astype(str))
        if len(models) > 1:
            out.append(f'<h3>{_text(model)} <small><a href="#model-{i}">details</a>'
                       "</small></h3>")
        out.append(_glance(rows, model, published, offline))
        out.append(_glance_figure(rows, model, published, offline))
    out.append(_published_block(published.loc[published["test"].isin(tests)]))
    return out


def _published_block(published: pd.DataFrame) -> str:
    """The published numbers the first screen placed the model among, with their sources."""
    if published.empty:
        return ""
    body = "".join(
        f'<tr><th scope="row" class="sticky">{_text(r.test)}</th><td>{_text(r.method)}</td>'
        f'<td>{_text(r.model)}</td><td class="num">{_text(format_d(float(r.value)))}</td>'
        f"<td>{_text(r.paper)}, {_text(r.table)}</td><td>{_text(r.note)}</td></tr>"
        for r in published.itertuples())
    return ("<details><summary>Published numbers (" + str(len(published)) + "), with the "
            "paper and table of each</summary>"
            '<div class="scroll"><table><thead><tr><th scope="col" class="sticky">test</th>'
            '<th scope="col">method</th><th scope="col">model</th>'
            '<th scope="col" class="num">value</th><th scope="col">source</th>'
            '<th scope="col">note</th></tr></thead>'
            f"<tbody>{body}</tbody></table></div>"
            '<p class="note">Transcribed from the papers (<code>data/published/</code>); '
            "the offline models' numbers are the audit's own on the book's stand-in models "
            "(<code>data/results/audit_offline.csv</code>), not the papers' models.</p>"
            "</details>")


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
        out.append("<h3>Reliability</h3>")
        out.append(_reliability_table(summary, model))
    out.append(_dropped(rows.loc[rows["part"] != "metric"], model))
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


def _dropped(rows: pd.DataFrame, model: str) -> str:
    """The words each test lost on this model (no vector, no token), from the rows' notes.

    A method notes what it dropped as ``"<stimuli> on <model>: dropped …"``; the clauses of
    a test's headline and grid rows are gathered, each once, with the stimulus set named.
    """
    if "notes" not in rows.columns:
        return ""
    found: dict[str, dict[tuple[str, str], None]] = {}
    for test, note in zip(rows["test"].astype(str), rows["notes"], strict=True):
        if _blank(note):
            continue
        for clause in re.split(r"; (?=[\w.-]+ on )", str(note)):
            stimuli, _, what = clause.partition(f" on {model}: ")
            if not what:
                stimuli, what = "", clause
            if "dropped" in what or "missing" in what:
                found.setdefault(test, {})[(stimuli, what)] = None
    if not found:
        return ("<h3>Words dropped</h3><p>Every word of every test had a vector in this "
                "model.</p>")
    body = []
    for test, clauses in found.items():
        first = True
        for stimuli, what in clauses:
            css = ' class="newtest"' if first else ""
            body.append(f'<tr{css}><th scope="row" class="sticky">{_text(test)}</th>'
                        f"<td>{_text(stimuli)}</td><td>{_text(what)}</td></tr>")
            first = False
    caption = f"Words dropped on {_text(model)}, per test and stimulus set"
    return ("<h3>Words dropped</h3>"
            f'<div class="scroll" role="region" tabindex="0" aria-label="{caption}">'
            f"<table><caption>{caption}</caption><thead><tr>"
            '<th scope="col" class="sticky">test</th><th scope="col">stimulus set</th>'
            '<th scope="col">dropped</th></tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>"
            '<p class="note">A test whose set loses more than a fifth of its words is not '
            "run (see “Rows not run”); below that, the words listed are left out (and, "
            "where the sets are paired, their partners) and the test runs on the rest.</p>")


def _not_applicable(row: pd.Series) -> bool:
    """Whether a row that did not run is a variant that cannot apply to this kind of model.

    A static vector file holds words, not phrases: a stimulus variant made of phrases
    (Mind Your Bias's "term" sets, "European American male") loses a whole set there.
    That is a specification the model cannot have, not a failure of the audit.
    """
    if str(row.get("model_kind")) != "static":
        return False
    for done, total, words in re.findall(r"(\d+)/(\d+) missing \[([^\]]*)\]",
                                         str(row["not run"])):
        listed = re.findall(r"'([^']*)'", words)
        if done == total and listed and all(" " in w for w in listed):
            return True
    return False


def _not_run_block(results: pd.DataFrame) -> str:
    """The rows that did not run: variants that cannot apply, then real failures, each why."""
    skipped = results.loc[_not_run(results)]
    if skipped.empty:
        return "<h2 id='not-run'>Rows not run</h2><p>Every row of the audit ran.</p>"
    moot = skipped.apply(_not_applicable, axis=1).astype(bool)
    out = ["<h2 id='not-run'>Rows not run</h2>"]
    failed, inapplicable = skipped.loc[~moot], skipped.loc[moot]
    out.append(f"<p>{len(failed)} of {len(results)} rows could not be computed"
               + (f"; {len(inapplicable)} more are variants that do not apply to this kind of "
                  "model (phrases on a word-vector file)" if len(inapplicable) else "")
               + ".</p>")
    for frame, what in ((failed, "could not be computed"),
                        (inapplicable, "do not apply (phrases on a word-vector file)")):
        if frame.empty:
            continue
        body = []
        for _, row in frame.iterrows():
            spec = ", ".join(f"{c}: {row[c]}" for c in CHOICES[1:]
                             if row["part"] == "grid" and c in row.index
                             and not _blank(row[c]) and str(row[c]) != "n/a")
            body.append(f'<tr><td>{_text(row["model"])}</td><td>{_text(row["part"])}</td>'
                        f'<td>{_text(row["method"])}</td><td>{_text(row["test"])}</td>'
                        f'<td>{_text(spec)}</td><td>{_text(row["not run"])}</td></tr>')
        out.append(f"<details><summary>{len(frame)} rows {what}; show them and why</summary>"
                   '<div class="scroll"><table><thead><tr><th scope="col">model</th>'
                   '<th scope="col">part</th><th scope="col">method</th>'
                   '<th scope="col">test</th><th scope="col">specification</th>'
                   '<th scope="col">reason</th></tr></thead>'
                   f"<tbody>{''.join(body)}</tbody></table></div></details>")
    return "".join(out)


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
    if not models:
        body.append("<p>The audit holds no result.</p>")
    else:
        body.extend(_glance_section(results, models, provenance))
    body.extend(_how_to_read(results, provenance))
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
