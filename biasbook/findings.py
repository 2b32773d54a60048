"""A chapter's checked claims: what a paper says, what it printed, what we found, the verdict.

Every chapter states, at its top, the published claims it tested and whether they
hold on the models this book can run ("What we found"); the book-level page "What
holds up" collects the same findings from every chapter. Both read one source: the
chapter module's ``findings()`` (in :mod:`biasbook`), which returns
:class:`Finding` records computed from the chapter's stored tables. This module
only defines the record and turns a list of them into tables for display.

One function per claim
----------------------
A claim is the unit that the chapter's prose, "What holds up" and the tests check,
so each claim a chapter checks is one function of the chapter's module:

* named ``_claim_<what>`` (private: only the module's builders call it; its tests may),
  returning one :class:`Finding`, its docstring naming the paper and the claim;
* its parameters are what it reads: a table (``_claim_figure3(ours)``), or the
  chapter's *evidence*, a small frozen dataclass (``_SeatEvidence``) that holds the
  inputs several claims share — the tables the builder was given or read once — and
  the frames derived from them as cached properties, computed once on first use;
* it holds no inner function (helpers that claims share are module-level) and is at
  most :data:`MAX_CLAIM_LINES` lines long;
* ``findings()``, and each other builder the notebooks and tests call
  (``seat.seat_findings``, ``ceat.ceat_findings``, ``lpbs.lpbs_findings``…), reads or
  builds the evidence once and returns the list of its claims' calls in book order::

      def findings() -> list[Finding]:          # biasbook.weat_static, shortened
          ev = _WeatStaticEvidence(ours, mleat)
          return [_claim_direction(ev), _claim_significance(ev), _claim_large(ev), ...]

``tests/test_findings.py`` holds every chapter to this: it runs each chapter's
``findings()`` with every claim function recorded and checks that the list is exactly
what the claims returned, in the order they ran, one :class:`Finding` per claim, each
claim once, and every claim of the book reached; and it reads the claims' source for
their length, a docstring and no inner function.
A table that a chapter builds row by row follows the same rule: one function per row
(``same.property_matrix``: one ``_row_*`` function per score).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import pandas as pd

from biasbook.models import book_names

__all__ = [
    "FINDING_COLUMNS",
    "MAX_CLAIM_LINES",
    "VERDICTS",
    "Finding",
    "findings_frame",
    "glue",
    "grouped_html_table",
    "linked_findings",
    "section_href",
    "verdict",
    "verdict_counts",
    "verdict_figure",
    "verdict_sentence",
    "verdict_summary",
    "what_we_found",
]

#: The longest a claim function may be, in lines from ``def`` to its last line, its
#: docstring included. A claim reads its numbers, words them and decides the verdict:
#: the longest of the book's claims needs about 30 lines, and 40 is what one screen
#: shows beside the chapter's prose; a claim that needs more is two claims, or its
#: shared part belongs to the evidence.
MAX_CLAIM_LINES = 40

#: The columns of :func:`findings_frame`, in order.
FINDING_COLUMNS: tuple[str, ...] = (
    "paper", "claim", "published", "ours", "model", "holds?", "section",
)


@dataclass(frozen=True)
class Finding:
    """One published claim, checked.

    Attributes
    ----------
    paper
        Who made the claim, as the references cite it ("May et al. (2019)").
    claim
        The claim, in a sentence.
    published
        The paper's evidence for it, as printed (with table or section).
    ours
        What this book computed, numbers from the chapter's stored tables.
    model
        The model(s) ``ours`` was computed on (an offline stand-in is named as such).
    holds
        ``True``, ``False``, or a short word ("partly", "at 0.05", "not comparable").
    section
        The MyST label of the chapter section where the evidence is shown; the
        chapter's page has an anchor of that name.
    """

    paper: str
    claim: str
    published: str
    ours: str
    model: str
    holds: bool | str
    section: str

    def __post_init__(self) -> None:
        for name in ("paper", "claim", "published", "ours", "model", "section"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"a Finding needs a non-empty text for {name!r}, got {value!r}")
        if not isinstance(self.holds, (bool, str)) or self.holds == "":
            raise ValueError(f"a Finding's holds must be True, False or a word, got {self.holds!r}")


def _holds_word(holds: bool | str) -> str:
    """The verdict as a word: ``yes``/``no`` for booleans, the word itself otherwise."""
    if isinstance(holds, bool):
        return "yes" if holds else "no"
    return holds


def findings_frame(findings: Sequence[Finding], chapter: str | None = None) -> pd.DataFrame:
    """Findings as a long table with :data:`FINDING_COLUMNS` (plus ``chapter`` when given).

    Every offline model is called by its one name in the book
    (:func:`biasbook.models.book_names`), whatever the chapter's code wrote.

    Examples
    --------
    >>> f = Finding("May et al. (2019)", "C1 is significant", "5 of 5 models", "3 of 3",
    ...             "MiniLM, SmolLM2, CBoW", True, "seat-findings")
    >>> findings_frame([f], chapter="seat").loc[0, ["chapter", "holds?"]].tolist()
    ['seat', 'yes']
    """
    rows = []
    for f in findings:
        if not isinstance(f, Finding):
            raise TypeError(f"findings must be Finding records, got {type(f).__name__}")
        row = asdict(f)
        row["holds?"] = _holds_word(row.pop("holds"))
        rows.append(row)
    frame = book_names(pd.DataFrame(rows, columns=list(FINDING_COLUMNS)))
    if chapter is not None:
        frame.insert(0, "chapter", chapter)
    return frame


def what_we_found(findings: Sequence[Finding]) -> pd.DataFrame:
    """The compact table a chapter opens with: claim, holds?, ours, published.

    Indexed by the claim, which stays in view when a narrow screen scrolls the
    table sideways; the verdict and our numbers come next, so that on a phone
    they are what the first screen shows, and the paper's evidence last. The
    paper and model are named in the chapter's text.
    """
    frame = findings_frame(findings)
    return frame.set_index("claim")[["holds?", "ours", "published"]].rename_axis(None)


#: The verdicts :func:`verdict` sorts a ``holds?`` word into, in display order.
VERDICTS: tuple[str, ...] = ("holds", "with qualifications", "does not hold", "not checked here")


def verdict(holds: str) -> str:
    """Sort a ``holds?`` word into one of :data:`VERDICTS`.

    ``yes`` is "holds"; ``no`` (or ``no: …``, ``no, …``, ``no (…)`` that says no
    ``yes`` too) is "does not hold"; ``not run`` is "not checked here" (the claim
    needs a model this machine cannot load); anything else ("partly", "yes, at
    0.05", "not comparable", "no (eq. 45); yes (code)") is "with qualifications".

    Examples
    --------
    >>> [verdict(w) for w in ["yes", "no: 0.45, not 0.87", "not run", "partly",
    ...                       "no (paper); yes (code)"]]
    ['holds', 'does not hold', 'not checked here', 'with qualifications', 'with qualifications']
    """
    word = holds.strip().lower()
    if word == "yes":
        return "holds"
    if word.startswith("not run"):
        return "not checked here"
    if (word == "no" or word.startswith(("no:", "no,", "no ("))) and "yes" not in word:
        return "does not hold"
    return "with qualifications"


def verdict_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Claims checked per paper and how many hold, from a :func:`findings_frame`.

    Returns
    -------
    pandas.DataFrame
        Indexed by paper (in order of first appearance), columns ``claims`` and one
        per :data:`VERDICTS`, plus a ``Total`` row.
    """
    verdicts = frame["holds?"].map(verdict)
    papers = list(dict.fromkeys(frame["paper"]))
    counts = (pd.crosstab(frame["paper"], verdicts)
              .reindex(index=papers, columns=list(VERDICTS), fill_value=0))
    counts.insert(0, "claims", counts.sum(axis=1))
    counts.loc["Total"] = counts.sum()
    return counts.rename_axis(index=None, columns=None)


def section_href(chapter: str, section: str) -> str:
    """The link to a section of a chapter page: ``{chapter}.html#{section}``, escaped.

    ``chapter`` is the page name (``notebooks/<chapter>``), ``section`` a MyST label of
    that page; the built page has an anchor of that name.

    Examples
    --------
    >>> section_href("seat", "seat-may-table4")
    'seat.html#seat-may-table4'
    """
    return f"{html.escape(chapter)}.html#{html.escape(section)}"


def grouped_html_table(groups: Iterable[tuple[str, Iterable[Sequence[str]]]],
                       header: Sequence[str], css_class: str = "findings",
                       data_labels: bool = False) -> str:
    """An HTML table whose rows come in groups, each under a header row of its own.

    Parameters
    ----------
    groups
        ``(title, rows)`` pairs in display order; the title is text (escaped here),
        each row a sequence of cells that are HTML already (the caller escapes them),
        one per column of ``header``.
    header
        The column headings (text, escaped here).
    css_class
        Classes of the table besides ``dataframe`` (the book's CSS styles ``findings``:
        left-aligned cells, spaced group headers of class ``findings-paper``).
    data_labels
        Give every body cell a ``data-label`` attribute with its column's heading, so
        that a narrow screen can show the table as one card per row, each cell as
        "heading: value" (the book's ``verdict-table`` layout).

    Returns
    -------
    str
        ``<table class="dataframe {css_class}">`` with one ``<th colspan>`` row per group.

    Raises
    ------
    ValueError
        If a row has another number of cells than ``header``.
    """
    esc = html.escape
    width = len(header)
    labels = [f' data-label="{esc(h)}"' if data_labels else "" for h in header]
    rows = []
    for title, group_rows in groups:
        rows.append(f'<tr><th colspan="{width}" class="findings-paper">{esc(str(title))}</th></tr>')
        for cells in group_rows:
            if len(cells) != width:
                raise ValueError(f"a row of {title!r} has {len(cells)} cells, not {width}")
            rows.append("<tr>" + "".join(f"<td{label}>{c}</td>"
                                         for label, c in zip(labels, cells, strict=True)) + "</tr>")
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    return (f'<table class="dataframe {css_class}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def linked_findings(frame: pd.DataFrame, titles: dict[str, str],
                    verdicts: Sequence[str] = VERDICTS) -> str:
    """The findings of several chapters as one HTML table, grouped by paper, linked to the evidence.

    Four columns, in the order of a chapter's "What we found": the claim (with a link
    to the chapter section that shows the evidence), the verdict, ours (with the model
    it was computed on) and the paper's evidence as printed. A header row per paper
    groups the claims. The table is a verdict table (class ``verdict-table``, every
    cell labelled with its column), which a phone shows as one card per claim.

    Parameters
    ----------
    frame
        A :func:`findings_frame` with a ``chapter`` column (the page name).
    titles
        Chapter page name → the title shown in the link ("SEAT").
    verdicts
        Only the claims whose :func:`verdict` is one of these (all by default).

    Returns
    -------
    str
        An HTML table of classes ``findings verdict-table`` (:func:`grouped_html_table`);
        every text is escaped, and each claim links :func:`section_href` of its chapter
        and section.
    """
    missing = set(frame["chapter"]) - set(titles)
    if missing:
        raise ValueError(f"no title for the chapters {sorted(missing)}")
    unknown = set(verdicts) - set(VERDICTS)
    if unknown:
        raise ValueError(f"unknown verdicts {sorted(unknown)}; they are {VERDICTS}")
    frame = frame[frame["holds?"].map(verdict).isin(verdicts)]
    esc = html.escape

    def cells(r: pd.Series) -> list[str]:
        href = section_href(r["chapter"], r["section"])
        claim = (f"{esc(r['claim'])}<br/><small><a href=\"{href}\">"
                 f"{esc(titles[r['chapter']])} chapter</a></small>")
        ours = f"{esc(r['ours'])}<br/><small>{esc(r['model'])}</small>"
        return [claim, esc(r["holds?"]), ours, esc(r["published"])]

    groups = [(paper, [cells(r) for _, r in group.iterrows()])
              for paper, group in frame.groupby("paper", sort=False)]
    return grouped_html_table(groups, ("claim", "verdict", "ours (model)", "published"),
                              css_class="findings verdict-table", data_labels=True)


def verdict_counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many claims of a :func:`findings_frame` fall under each of :data:`VERDICTS`.

    Examples
    --------
    >>> f = Finding("A", "c", "p", "o", "m", True, "s")
    >>> verdict_counts(findings_frame([f, f, Finding("A", "d", "p", "o", "m", "partly", "s")]))
    {'holds': 2, 'with qualifications': 1, 'does not hold': 0, 'not checked here': 0}
    """
    words = frame["holds?"].map(verdict)
    return {v: int((words == v).sum()) for v in VERDICTS}


def _claims(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def verdict_sentence(frame: pd.DataFrame) -> str:
    """The book's answer in one sentence: how many claims were checked, how many hold.

    Examples
    --------
    >>> yes = Finding("A", "c", "p", "o", "m", True, "s")
    >>> no = Finding("B", "d", "p", "o", "m", False, "s")
    >>> print(verdict_sentence(findings_frame([yes, no])))  # doctest: +NORMALIZE_WHITESPACE
    Of the 2 published claims of 2 papers that the chapters check, 1 holds,
    0 hold with qualifications, 1 does not hold and 0 are not checked here.
    """
    n = verdict_counts(frame)
    papers = frame["paper"].nunique()
    parts = [
        _claims(n["holds"], "holds", "hold"),
        _claims(n["with qualifications"], "holds with qualifications",
                "hold with qualifications"),
        _claims(n["does not hold"], "does not hold", "do not hold"),
    ]
    return (f"Of the {len(frame)} published claims of {_claims(papers, 'paper', 'papers')} "
            f"that the chapters check, {', '.join(parts)} and "
            f"{_claims(n['not checked here'], 'is not checked here', 'are not checked here')}.")


#: The colour of each verdict in the book's figures: Okabe & Ito's palette, which readers
#: with a colour-vision deficiency tell apart, with the count written on each bar too.
_VERDICT_COLOURS: dict[str, str] = {
    "holds": "#009E73", "with qualifications": "#E69F00",
    "does not hold": "#D55E00", "not checked here": "#999999",
}
_LEGEND = {"holds": ("holds", "hold"),
           "with qualifications": ("holds with qualifications", "hold with qualifications"),
           "does not hold": ("does not hold", "do not hold"),
           "not checked here": ("not checked here", "not checked here")}
_INK = {"holds": "#ffffff", "with qualifications": "#000000", "does not hold": "#ffffff",
        "not checked here": "#000000"}


def _verdict_svg(counts: dict[str, int]) -> str:
    """A stacked bar of the verdict counts with a two-row legend, as SVG text (400 × 94).

    Drawn narrow so that a phone shows it at about its own size (legend text 15 px).
    """
    total = sum(counts.values())
    width, bar = 400.0, 36.0
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 94" '
             'width="400" height="94" font-family="sans-serif">']
    x = 0.0
    for v in VERDICTS:
        w = width * counts[v] / total if total else 0.0
        if w > 0:
            parts.append(f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="{bar:.0f}" '
                         f'fill="{_VERDICT_COLOURS[v]}"/>')
            if w >= 28:
                parts.append(f'<text x="{x + w / 2:.2f}" y="24" font-size="17" '
                             f'font-weight="bold" text-anchor="middle" '
                             f'fill="{_INK[v]}">{counts[v]}</text>')
        x += w
    for i, v in enumerate(VERDICTS):
        lx, ly = 150 * (i % 2), 60 + 26 * (i // 2)
        one, many = _LEGEND[v]
        parts.append(f'<rect x="{lx}" y="{ly - 12}" width="14" height="14" '
                     f'fill="{_VERDICT_COLOURS[v]}"/>')
        parts.append(f'<text x="{lx + 20}" y="{ly}" font-size="15" fill="#222222">'
                     f'{_claims(counts[v], one, many)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def verdict_figure(frame: pd.DataFrame) -> str:
    """A small figure of the verdicts: one stacked bar of all claims, as an HTML ``<figure>``.

    The bar is drawn as SVG text (no plotting library, so the same bytes on every
    machine) and embedded as an ``<img>`` with alt text that gives every count and its
    share, and a caption.

    Returns
    -------
    str
        ``<figure class="verdict-figure"><img alt=…><figcaption>…</figcaption></figure>``.
    """
    counts = verdict_counts(frame)
    total = len(frame)
    shares = "; ".join(f"{_claims(counts[v], *_LEGEND[v])} ({counts[v] / total:.0%})"
                       for v in VERDICTS if counts[v])
    alt = (f"A bar split by verdict over the {total} published claims that the book "
           f"checks: {shares}. The claims that hold as published are "
           f"{'under' if counts['holds'] * 2 < total else 'at least'} half of them.")
    svg = base64.b64encode(_verdict_svg(counts).encode("utf-8")).decode("ascii")
    caption = f"Verdicts on the {total} published claims that the chapters check."
    return (f'<figure class="verdict-figure">'
            f'<img src="data:image/svg+xml;base64,{svg}" alt="{html.escape(alt)}" '
            f'width="400" height="94" style="max-width: 100%; height: auto;"/>'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def glue(name: str, value: object) -> None:
    """Store ``value`` under ``name`` for other pages of the book, without showing it.

    The output is the one ``myst_nb.glue(name, value, display=False)`` writes (a
    display whose metadata names the key), so that a page of the book pastes it with
    ``{glue:text}`path/to/notebook.ipynb::name``` or ``{glue}``; it is written here
    because ``myst_nb`` is not installed where the notebooks also run (Colab).
    A string is stored as text; anything else (``HTML``) with its rich forms.
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display

    bundle, metadata = format_display_data(value)
    prefix = "application/papermill.record/"
    metadata = {**metadata, "scrapbook": {"name": name, "mime_prefix": prefix}}
    display({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)
