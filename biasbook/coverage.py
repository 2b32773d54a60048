"""The coverage page: every table, figure and headline claim of each seed paper, and where.

The book replicates four papers (:data:`SEED_PAPERS`). For each of them,
``data/coverage.csv`` lists every results table, every figure and every headline
claim as one row (:data:`COVERAGE_COLUMNS`): what it is, how far this book rebuilds it (one
of :data:`STATUSES`), on which model, and the MyST label of the chapter section
that shows it. This module reads the file, checks it (:func:`check_coverage`),
counts it per paper and status (:func:`coverage_summary`) and renders it as one
HTML table grouped by paper, each item linked to its section
(:func:`linked_coverage`, on :func:`biasbook.findings.grouped_html_table`).

That each row's section is a label of its chapter is checked by
``tests/test_coverage.py``, which reads the notebooks (they are not part of the
installed package).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from biasbook.findings import grouped_html_table, section_href
from biaslib.stimuli.data import data_dir

__all__ = [
    "CHAPTER_TITLES",
    "COVERAGE_COLUMNS",
    "NOTE_REQUIRED",
    "SEED_PAPERS",
    "STATUSES",
    "check_coverage",
    "coverage_sentence",
    "coverage_summary",
    "linked_coverage",
    "load_paper_coverage",
]

#: The columns of ``data/coverage.csv``, in order.
COVERAGE_COLUMNS: tuple[str, ...] = (
    "paper", "item", "kind", "what", "status", "model", "chapter", "section", "note",
)
#: What an item is.
_ITEM_KINDS: tuple[str, ...] = ("table", "figure", "claim")
#: How far the book rebuilds an item → what that means, in display order.
STATUSES: dict[str, str] = {
    "paper model": "rebuilt on the paper's own model or vectors — or, for an item that "
                   "needs no model (a word list, a template, a theorem), from the same "
                   "material",
    "stand-in": "rebuilt on other models that run offline (named in the row); the "
                "paper's own models run on Colab where the note says so",
    "published only": "the paper's numbers are shown as published (typed in with their "
                      "source) and read, but nothing is computed on a model",
    "Colab only": "computed on the paper's model only on Colab (RUN_PAPER_MODELS), which "
                  "downloads what the book's machines cannot; the book shows the "
                  "published side",
    "not possible": "not rebuilt here, for the reason in the note",
}
#: Statuses whose rows must say, in ``note``, why (not possible) or what runs (Colab only).
NOTE_REQUIRED: tuple[str, ...] = ("not possible", "Colab only")
#: The seed papers, as the references cite them → the paper's short name.
SEED_PAPERS: dict[str, str] = {
    "May et al. (2019)": "SEAT",
    "Husse & Spitz (2022)": "Mind Your Bias",
    "Wolfe et al. (2024)": "ML-EAT",
    "Schröder et al. (2021)": "SAME",
}
#: Chapter page (``notebooks/<page>``) → the title its links show.
CHAPTER_TITLES: dict[str, str] = {
    "weat_static": "WEAT", "seat": "SEAT", "elmo_bug": "ELMo bug", "mleat": "ML-EAT",
    "ceat": "CEAT", "lpbs": "LPBS", "same": "SAME", "synthesis": "Synthesis",
    "agree": "Do the metrics agree?",
    # Sub-pages of a chapter that show a paper's item themselves (a chapter's details,
    # issue 36).
    "synthesis_figures": "Synthesis: figures", "lpbs_reddit": "LPBS", "same_injection": "SAME",
}
#: Sub-pages of a chapter (``notebooks/<chapter>_<topic>``: its full tables and paper-model
#: runs, listed under it in ``_toc.yml``) that coverage rows link; a link to one shows its
#: chapter's title.
CHAPTER_TITLES |= {
    "elmo_bug_bert_gpt2": "ELMo bug",
    "mleat_table1": "ML-EAT", "mleat_contextual": "ML-EAT", "mleat_histwords_clip": "ML-EAT",
}


def _coverage_path() -> Path:
    """``data/coverage.csv`` (in a checkout; ``biaslib/_data/coverage.csv`` when installed)."""
    return data_dir() / "coverage.csv"


def check_coverage(frame: pd.DataFrame) -> pd.DataFrame:
    """Check a coverage table and return it unchanged.

    Raises
    ------
    ValueError
        Naming every problem at once: columns other than :data:`COVERAGE_COLUMNS`; an empty
        field (``note`` may be empty, except for :data:`NOTE_REQUIRED` statuses); a
        kind outside :data:`_ITEM_KINDS`, a status outside :data:`STATUSES`, a paper outside
        :data:`SEED_PAPERS` or a chapter outside :data:`CHAPTER_TITLES`; an item listed
        twice for a paper; a seed paper without rows.

    Examples
    --------
    >>> row = dict(paper="May et al. (2019)", item="Table 4", kind="table", what="SEAT",
    ...            status="Colab only", model="BERT", chapter="seat", section="seat-x",
    ...            note="")
    >>> check_coverage(pd.DataFrame([row]))
    Traceback (most recent call last):
    ...
    ValueError: data/coverage.csv: May et al. (2019) / Table 4: a 'Colab only' row needs a note; ...
    """
    if tuple(frame.columns) != COVERAGE_COLUMNS:
        raise ValueError(f"data/coverage.csv: columns {list(frame.columns)}, "
                         f"expected {list(COVERAGE_COLUMNS)}")
    problems = []
    for _, row in frame.iterrows():
        where = f"{row['paper']} / {row['item']}"
        empty = [c for c in COVERAGE_COLUMNS if c != "note" and not str(row[c]).strip()]
        if empty:
            problems.append(f"{where}: empty {', '.join(empty)}")
        for column, allowed in (("kind", _ITEM_KINDS), ("status", tuple(STATUSES)),
                                ("paper", tuple(SEED_PAPERS)),
                                ("chapter", tuple(CHAPTER_TITLES))):
            if str(row[column]).strip() and row[column] not in allowed:
                problems.append(f"{where}: {column} {row[column]!r} is not one of "
                                f"{', '.join(allowed)}")
        if row["status"] in NOTE_REQUIRED and not str(row["note"]).strip():
            problems.append(f"{where}: a {row['status']!r} row needs a note")
    twice = frame[frame.duplicated(["paper", "item"])]
    problems += [f"{p} / {i}: listed twice" for p, i in zip(twice["paper"], twice["item"],
                                                            strict=True)]
    problems += [f"{p}: no rows" for p in SEED_PAPERS if p not in set(frame["paper"])]
    if problems:
        raise ValueError("data/coverage.csv: " + "; ".join(problems))
    return frame


def load_paper_coverage(path: Path | None = None) -> pd.DataFrame:
    """The coverage table, checked by :func:`check_coverage`.

    Parameters
    ----------
    path
        The CSV file; :func:`_coverage_path` when left out.

    Returns
    -------
    pandas.DataFrame
        One row per item, columns :data:`COVERAGE_COLUMNS` (all text; an empty note is ``""``).
    """
    path = _coverage_path() if path is None else Path(path)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return check_coverage(frame)


def coverage_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Items per paper and status.

    Returns
    -------
    pandas.DataFrame
        Indexed by paper (in :data:`SEED_PAPERS` order, by its short name: "SEAT"),
        one column per status of :data:`STATUSES` and ``items`` (their sum),
        plus a ``Total`` row.
    """
    counts = (pd.crosstab(frame["paper"], frame["status"])
              .reindex(index=list(SEED_PAPERS), columns=list(STATUSES), fill_value=0))
    counts.insert(0, "items", counts.sum(axis=1))
    counts.index = [SEED_PAPERS[p] for p in counts.index]
    counts.loc["Total"] = counts.sum()
    return counts.rename_axis(index=None, columns=None)


def coverage_sentence(frame: pd.DataFrame) -> str:
    """How much of the seed papers the book rebuilds, in one sentence (counts by status).

    Examples
    --------
    >>> rows = pd.DataFrame({"paper": ["May et al. (2019)"] * 3,
    ...                      "status": ["stand-in", "stand-in", "not possible"]})
    >>> print(coverage_sentence(rows))  # doctest: +NORMALIZE_WHITESPACE
    The 1 paper holds 3 items (results tables, figures and headline claims): the book
    rebuilds 0 on the paper's own model or material and 2 on offline stand-ins, shows 0 as
    published only, computes 0 only on Colab, and 1 is not possible here.
    """
    n = frame["status"].value_counts()

    def count(status: str) -> int:
        return int(n.get(status, 0))

    papers = frame["paper"].nunique()
    impossible = count("not possible")
    return (f"The {papers} {'paper holds' if papers == 1 else 'papers hold'} {len(frame)} "
            "items (results tables, figures and headline claims): the book rebuilds "
            f"{count('paper model')} on the paper's own model or material and "
            f"{count('stand-in')} on offline stand-ins, shows {count('published only')} as "
            f"published only, computes {count('Colab only')} only on Colab, and "
            f"{impossible} {'is' if impossible == 1 else 'are'} not possible here.")


def linked_coverage(frame: pd.DataFrame, titles: dict[str, str] = CHAPTER_TITLES,
                    statuses: Sequence[str] | None = None,
                    papers: Sequence[str] | None = None) -> str:
    """The coverage table as HTML, grouped by paper, each item linked to its section.

    Three columns keep it within a laptop's text column: the item (its name, what it
    shows, and a link ``{chapter}.html#{section}`` to the chapter section), its status,
    and the model the book's numbers come from, with the row's note beneath.

    Parameters
    ----------
    frame
        A checked coverage table (:func:`load_paper_coverage`).
    titles
        Chapter page name → the title shown in the link.
    statuses
        Only the items of these statuses (:data:`STATUSES`; all by default).
    papers
        Only the items of these papers (keys of :data:`SEED_PAPERS`; all by default).

    Raises
    ------
    ValueError
        If a status or a paper is not one of :data:`STATUSES` or :data:`SEED_PAPERS`.
    """
    for asked, known, what in ((statuses, STATUSES, "statuses"), (papers, SEED_PAPERS, "papers")):
        unknown = set(asked or ()) - set(known)
        if unknown:
            raise ValueError(f"unknown {what} {sorted(unknown)}; they are {list(known)}")
    if statuses is not None:
        frame = frame[frame["status"].isin(statuses)]
    if papers is not None:
        frame = frame[frame["paper"].isin(papers)]
    esc = html.escape

    def cells(r: pd.Series) -> list[str]:
        href = section_href(r["chapter"], r["section"])
        item = (f"<strong>{esc(r['item'])}</strong>: {esc(r['what'])}<br/><small>"
                f"<a href=\"{href}\">{esc(titles[r['chapter']])} chapter</a></small>")
        model = esc(r["model"])
        if r["note"]:
            model += f"<br/><small>{esc(r['note'])}</small>"
        return [item, esc(r["status"]), model]

    groups = [(f"{paper} ({SEED_PAPERS[paper]})",
               [cells(r) for _, r in frame[frame["paper"] == paper].iterrows()])
              for paper in SEED_PAPERS if (frame["paper"] == paper).any()]
    return grouped_html_table(groups, ("item", "status", "model (note)"))
