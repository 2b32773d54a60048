"""The coverage page: every table, figure and claim of each seed paper, and how far the book got.

The book replicates four papers (:data:`SEED_PAPERS`). For each of them,
``data/coverage.csv`` lists every results table, every figure and every claim the paper
states in a numbered section, appendix or footnote as one row (:data:`COVERAGE_COLUMNS`):
what it is, the **evidence** the book has for it, the model(s) the paper used, the
finding that gives a claim its verdict, and the chapter section that shows it.

A row's status is *derived*, never typed (:func:`derive_status`): from the kinds of its
evidence (:data:`EVIDENCE_KINDS`) and, for evidence computed on a model, from the models
the stored tables' provenance names (``data/results/<table>.json``) or the linked section
names (``live:``), compared with the paper's. So a row cannot say more than its
evidence: a stand-in is never the paper's model, and a Colab path that has only run on
stand-in weights is not a run on the paper's model. ``tests/test_coverage.py`` checks
every piece of evidence exists (the stored table, the published file, the test, the
section naming the model) and every finding a row names is one of the book's.
"""

from __future__ import annotations

import html
import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

from biasbook.findings import grouped_html_table, section_href, verdict
from biasbook.models import ALIASES, GLOVE, GOOGLENEWS, GOOGLENEWS_SUBSET, SHORT_NAMES, book_names
from biaslib.stimuli.data import data_dir

__all__ = [
    "CHAPTER_TITLES",
    "COVERAGE_COLUMNS",
    "EVIDENCE_KINDS",
    "OFFLINE_MODEL_NAMES",
    "PUBLISHED_TESTS",
    "SEED_PAPERS",
    "STATUSES",
    "attach_verdicts",
    "check_coverage",
    "coverage_sentence",
    "coverage_summary",
    "derive_status",
    "linked_coverage",
    "load_paper_coverage",
    "parse_evidence",
]

#: The columns of ``data/coverage.csv``, in order.
COVERAGE_COLUMNS: tuple[str, ...] = (
    "paper", "item", "kind", "what", "evidence", "paper_model", "finding", "chapter",
    "section", "note",
)
#: What an item is.
_ITEM_KINDS: tuple[str, ...] = ("table", "figure", "claim")

#: The kinds of evidence a row's ``evidence`` field may name (``kind:value``, parts joined
#: by ``;``) → what it is and what the tests check of it.
EVIDENCE_KINDS: dict[str, str] = {
    "material": "the paper's own material (word lists, templates, a vocabulary), shipped "
                "and checked against the authors' files; the value is its path in the "
                "repository",
    "recompute": "recomputed without a model from the paper's printed numbers or the "
                 "authors' released results (``data/published/<value>.csv``)",
    "proof": "a theorem or identity checked by the tests (the value names the test file)",
    "results": "a stored table of ``data/results/<value>``, computed on the models its "
               "provenance (``<value>.json``) names",
    "live": "computed when the linked section runs, on the model named (the section names "
            "it in its text or output)",
    "share": "how much of the item runs on the paper's model: a function "
             "(``module.function``) that counts it from the data",
    "published": "the paper's numbers typed in (``data/published/<value>.csv``) and shown",
    "colab": "the paper's model, loaded only by the Colab path (``RUN_PAPER_MODELS``)",
}

#: How far the book rebuilds an item, strongest first → what it means. Derived from the
#: evidence by :func:`derive_status`.
STATUSES: dict[str, str] = {
    "rebuilt exactly (no model needed)":
        "recomputed without a model — from the paper's word lists or templates, from its "
        "own printed numbers, or a theorem checked by the tests",
    "rebuilt on the paper's model or data":
        "computed here on the model or data the paper used, all of it",
    "partly on the paper's model":
        "computed here on part of the paper's model or data (the row says how much)",
    "on stand-in models":
        "computed here on small offline stand-ins (named in the row), not the paper's "
        "model: it shows whether a pattern recurs, never the paper's number",
    "published numbers checked only":
        "the paper's numbers are typed in and checked by the tests (against each other or "
        "the authors' files), but not recomputed",
    "transcribed": "the paper's numbers are typed in and shown; nothing checks or "
                   "recomputes them",
    "Colab path tested on stand-ins only":
        "nothing computed offline; the Colab path that loads the paper's model has run "
        "here through the same code on stand-in weights only, never on the real model",
    "not rebuilt": "not rebuilt here, for the reason in the row",
}
_EXACT_KINDS = ("material", "recompute", "proof")

#: The models that run offline, by their one name in the book (what :func:`_model_names`
#: finds in provenance and ``live:`` values).
OFFLINE_MODEL_NAMES: tuple[str, ...] = (*SHORT_NAMES.values(), GLOVE,
                                        ALIASES[GOOGLENEWS_SUBSET], "BERT's vocabulary")
#: An offline model that *is* part of a paper's model → that model. The Google News
#: subset holds the published Google News vectors themselves, for 26,423 of its 3M words.
#: (BERT's vocabulary is not here: the tiny MLM's tokenizer is all of it, token for token,
#: so it is a model of :data:`OFFLINE_MODEL_NAMES` that a paper names whole.)
_PART_OF: dict[str, str] = {ALIASES[GOOGLENEWS_SUBSET]: GOOGLENEWS}

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
    "trust": "Can the scores be trusted?",
    # Sub-pages of a chapter that show a paper's item themselves (a chapter's details,
    # issue 36).
    "synthesis_figures": "Synthesis: figures", "lpbs_reddit": "LPBS", "same_injection": "SAME",
    "seat_tables": "SEAT", "elmo_bug_bert_gpt2": "ELMo bug", "mleat_table1": "ML-EAT",
    "mleat_contextual": "ML-EAT", "mleat_histwords_clip": "ML-EAT", "mleat_table4": "ML-EAT",
    "ceat_tables": "CEAT", "lpbs_mechanics": "LPBS", "ceat_sentences": "CEAT",
    "same_properties": "SAME", "synthesis_tables": "Synthesis",
}


@dataclass(frozen=True)
class _Evidence:
    """A row's evidence, parsed: ``(kind, value)`` parts in the order the row gives them."""

    parts: tuple[tuple[str, str], ...]

    def values(self, kind: str) -> list[str]:
        """The values of the parts of ``kind``."""
        return [v for k, v in self.parts if k == kind]


def parse_evidence(text: str) -> _Evidence:
    """Read an ``evidence`` field: ``kind:value`` parts joined by ``;`` (may be empty).

    Raises
    ------
    ValueError
        If a part has no ``:``, an empty value or a kind outside :data:`EVIDENCE_KINDS`.

    Examples
    --------
    >>> parse_evidence("results:seat_may; colab:bert-large-cased").values("colab")
    ['bert-large-cased']
    >>> parse_evidence("")
    _Evidence(parts=())
    """
    parts = []
    for part in (p.strip() for p in str(text).split(";")):
        if not part:
            continue
        kind, sep, value = part.partition(":")
        if not sep or not value.strip() or kind not in EVIDENCE_KINDS:
            raise ValueError(f"evidence {part!r}: expected kind:value with a kind of "
                             f"{', '.join(EVIDENCE_KINDS)}")
        parts.append((kind, value.strip()))
    return _Evidence(tuple(parts))


def _model_names(text: str) -> set[str]:
    """The offline models (:data:`OFFLINE_MODEL_NAMES`) a text names, by their book names."""
    named = book_names(text)
    return {m for m in OFFLINE_MODEL_NAMES if m in named}


@cache
def _provenance(table: str) -> dict:
    """The JSON provenance of a stored table (``data/results/<table>.json``)."""
    path = data_dir() / "results" / f"{table}.json"
    if not path.is_file():
        raise ValueError(f"evidence results:{table}: no stored table {path}")
    return json.loads(path.read_text(encoding="utf-8"))


def _table_models(table: str) -> set[str]:
    """The offline models a stored table was computed on, read from its provenance."""
    meta = _provenance(table)
    named = meta.get("models") or {}
    texts = list(named) if isinstance(named, dict) else [str(named)]
    if isinstance(meta.get("model"), dict):
        texts.append(str(meta["model"].get("name", "")))
    return set().union(*map(_model_names, texts)) if texts else set()


def _share(path: str) -> tuple[int, int, str]:
    """Call a ``share:`` function: ``(k, n, what)`` — k of n ``what`` on the paper's model."""
    module, _, name = path.rpartition(".")
    k, n, what = getattr(importlib.import_module(module), name)()
    return int(k), int(n), str(what)


def _models_run(evidence: _Evidence) -> set[str]:
    """The offline models the evidence computed on (stored tables and ``live:`` parts)."""
    models = {m for t in evidence.values("results") for m in _table_models(t)}
    return models | {m for v in evidence.values("live") for m in _model_names(v)}


def derive_status(evidence: _Evidence, paper_models: Sequence[str]) -> str:
    """A row's status (:data:`STATUSES`), from its evidence alone.

    The strongest status the evidence earns, in this order: any model-free part
    (``material``, ``recompute``, ``proof``) → rebuilt exactly; computed models that
    cover every model of the paper → on the paper's model; that include part of one
    (:data:`_PART_OF`), with a ``share:`` count → partly, with the count; other computed
    models → on stand-ins; published numbers a test reads → checked only, or else
    transcribed; a Colab path only → tested on stand-ins only; nothing → not rebuilt.

    Parameters
    ----------
    evidence
        The parsed evidence of the row.
    paper_models
        The models the paper used for the item (empty if it needs none).

    Examples
    --------
    >>> derive_status(parse_evidence("results:seat_may; colab:bert-large-cased"), ["BERT"])
    'on stand-in models'
    >>> derive_status(parse_evidence("colab:gpt2"), ["gpt2"])
    'Colab path tested on stand-ins only'
    """
    kinds = {k for k, _ in evidence.parts}
    if kinds & set(_EXACT_KINDS):
        return "rebuilt exactly (no model needed)"
    ran = _models_run(evidence)
    if ran:
        whole = set(paper_models) and set(paper_models) <= ran
        partial = {_PART_OF[m] for m in ran if m in _PART_OF} & set(paper_models)
        if whole:
            return "rebuilt on the paper's model or data"
        if partial and evidence.values("share"):
            k, n, what = _share(evidence.values("share")[0])
            return f"partly on the paper's model ({k} of {n} {what})"
        return "on stand-in models"
    if "published" in kinds:
        checked = all(_published_is_tested(v) for v in evidence.values("published"))
        return "published numbers checked only" if checked else "transcribed"
    if "colab" in kinds:
        return "Colab path tested on stand-ins only"
    return "not rebuilt"


#: The published files a test checks (against the seed text, each other, or the authors'
#: released files) → the test file. ``tests/test_coverage.py`` holds this to the suite:
#: each test file named reads its file, and every published file a test reads is here.
#: A published file not listed counts as transcribed.
PUBLISHED_TESTS: dict[str, str] = {
    "kurita_notebook": "tests/test_lpbs_tables.py",
    "kurita_notebook_c1": "tests/test_lpbs.py",
    "mleat_clip": "tests/test_mleat_clip.py",
    "mleat_gpt2": "tests/test_mleat.py",
    "mleat_histwords": "tests/test_mleat.py",
    "mleat_table1_glove": "tests/test_mleat.py",
    "mleat_table4_googlenews": "tests/test_googlenews.py",
    "myb_figure1_counts": "tests/test_myb_figures.py",
    "myb_figure2_reduction": "tests/test_lpbs.py",
    "myb_figure3_dists": "tests/test_myb_figures_3_4.py",
    "myb_figure4_window": "tests/test_myb_figures_3_4.py",
    "myb_lpbs_nouns": "tests/test_lpbs_tables.py",
    "myb_lpbs_reddit": "tests/test_lpbs_tables.py",
    "myb_modified_sets": "tests/test_myb_figures_3_4.py",
    "myb_table3": "tests/test_published_myb.py",
    "myb_table4_lpbs": "tests/test_published_myb.py",
    "myb_table5_correlations": "tests/test_synthesis.py",
    "myb_table6_lpbs_adjectives": "tests/test_published_myb.py",
    "myb_tables_11_14": "tests/test_published_myb.py",
    "myb_tables_7_8_runtime": "tests/test_published_runtime.py",
    "same_authors_code": "tests/test_same_authors_code.py",
    "same_numbers": "tests/test_same.py",
    "same_properties": "tests/test_same.py",
    "seat_table4": "tests/test_published_myb.py",
}


def _published_is_tested(stem: str) -> bool:
    """Whether a test checks ``data/published/<stem>.csv`` (:data:`PUBLISHED_TESTS`)."""
    return stem in PUBLISHED_TESTS


def status_key(status: str) -> str:
    """The :data:`STATUSES` key of a derived status ("partly …" without its count)."""
    return next(s for s in STATUSES if status.startswith(s))


def check_coverage(frame: pd.DataFrame) -> pd.DataFrame:
    """Check a coverage table (as read, without derived columns) and return it unchanged.

    Raises
    ------
    ValueError
        Naming every problem at once: columns other than :data:`COVERAGE_COLUMNS`; an empty
        field (``finding``, ``evidence`` and ``note`` may be empty, but a row without
        evidence needs a note saying why); evidence that does not parse; a kind outside
        :data:`_ITEM_KINDS`, a paper outside :data:`SEED_PAPERS` or a chapter outside
        :data:`CHAPTER_TITLES`; an item listed twice for a paper; a seed paper without rows.

    Examples
    --------
    >>> row = dict(paper="May et al. (2019)", item="Table 9", kind="table", what="x",
    ...            evidence="", paper_model="none", finding="", chapter="seat",
    ...            section="seat-x", note="")
    >>> check_coverage(pd.DataFrame([row]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: data/coverage.csv: May et al. (2019) / Table 9: a row without evidence ...
    """
    if tuple(frame.columns) != COVERAGE_COLUMNS:
        raise ValueError(f"data/coverage.csv: columns {list(frame.columns)}, "
                         f"expected {list(COVERAGE_COLUMNS)}")
    optional = ("evidence", "finding", "note")
    problems = []
    for _, row in frame.iterrows():
        where = f"{row['paper']} / {row['item']}"
        empty = [c for c in COVERAGE_COLUMNS if c not in optional and not str(row[c]).strip()]
        if empty:
            problems.append(f"{where}: empty {', '.join(empty)}")
        for column, allowed in (("kind", _ITEM_KINDS), ("paper", tuple(SEED_PAPERS)),
                                ("chapter", tuple(CHAPTER_TITLES))):
            if str(row[column]).strip() and row[column] not in allowed:
                problems.append(f"{where}: {column} {row[column]!r} is not one of "
                                f"{', '.join(allowed)}")
        try:
            evidence = parse_evidence(row["evidence"])
        except ValueError as err:
            problems.append(f"{where}: {err}")
            continue
        if not evidence.parts and not str(row["note"]).strip():
            problems.append(f"{where}: a row without evidence needs a note saying why")
    twice = frame[frame.duplicated(["paper", "item"])]
    problems += [f"{p} / {i}: listed twice" for p, i in zip(twice["paper"], twice["item"],
                                                            strict=True)]
    problems += [f"{p}: no rows" for p in SEED_PAPERS if p not in set(frame["paper"])]
    if problems:
        raise ValueError("data/coverage.csv: " + "; ".join(problems))
    return frame


def _paper_models(text: str) -> list[str]:
    """The ``paper_model`` field as a list (``none`` → empty)."""
    return [] if text.strip() == "none" else [m.strip() for m in text.split(";") if m.strip()]


def _models_line(evidence: _Evidence, paper_models: list[str]) -> str:
    """What the book's numbers for a row come from, in words."""
    kinds = {k for k, _ in evidence.parts}
    said = []
    if kinds & set(_EXACT_KINDS):
        said.append("no model needed")
    ran = sorted(_models_run(evidence), key=OFFLINE_MODEL_NAMES.index)
    if ran:
        said.append(", ".join(m if m in paper_models or _PART_OF.get(m) in paper_models
                              else f"{m} (stand-in)" for m in ran))
    if not said and "published" in kinds:
        said.append("the paper's numbers")
    paper = ", ".join(paper_models) if paper_models else "none"
    return "; ".join(said or ["—"]) + f" — the paper's: {paper}"


def _colab_line(evidence: _Evidence) -> str:
    """What the Colab path of a row loads, and that it has not run on it."""
    ids = evidence.values("colab")
    return (f"Colab path (RUN_PAPER_MODELS) loads {', '.join(ids)}: run here only on "
            "stand-in weights, not on the real model" if ids else "")


def load_paper_coverage(path: Path | None = None) -> pd.DataFrame:
    """The coverage table, checked (:func:`check_coverage`), with its derived columns.

    Parameters
    ----------
    path
        The CSV file; ``data/coverage.csv`` (``biaslib/_data`` when installed) if left out.

    Returns
    -------
    pandas.DataFrame
        One row per item: :data:`COVERAGE_COLUMNS` (all text, an empty field ``""``), then
        ``status`` (:func:`derive_status`), ``status_key`` (its :data:`STATUSES` key),
        ``models`` (what the numbers come from, and the paper's models) and ``colab``
        (what the Colab path loads, and that it has not run on it).
    """
    path = data_dir() / "coverage.csv" if path is None else Path(path)
    frame = check_coverage(pd.read_csv(path, dtype=str, keep_default_na=False))
    evidence = frame["evidence"].map(parse_evidence)
    papers = frame["paper_model"].map(_paper_models)
    frame = frame.assign(
        status=[derive_status(e, p) for e, p in zip(evidence, papers, strict=True)],
        models=[_models_line(e, p) for e, p in zip(evidence, papers, strict=True)],
        colab=evidence.map(_colab_line))
    return frame.assign(status_key=frame["status"].map(status_key))


def attach_verdicts(frame: pd.DataFrame, findings: pd.DataFrame) -> pd.DataFrame:
    """Add ``verdict``: the verdict of the finding each row names (empty where none).

    Parameters
    ----------
    frame
        :func:`load_paper_coverage`'s table.
    findings
        The book's findings (:func:`biasbook.registry.book_findings`).

    Raises
    ------
    ValueError
        If a row names a finding the book does not have (the claim text must match).
    """
    holds = dict(zip(findings["claim"], findings["holds?"], strict=True))
    unknown = sorted(set(frame["finding"]) - set(holds) - {""})
    if unknown:
        raise ValueError(f"data/coverage.csv names findings the book does not have: {unknown}")
    return frame.assign(verdict=[f"{verdict(holds[f])}: {holds[f]}" if f and holds[f] not in
                                 ("yes", "no") else verdict(holds[f]) if f else ""
                                 for f in frame["finding"]])


def coverage_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Items per paper and status.

    Returns
    -------
    pandas.DataFrame
        Indexed by paper (in :data:`SEED_PAPERS` order, by its short name: "SEAT"),
        one column per status of :data:`STATUSES` and ``items`` (their sum),
        plus a ``Total`` row.
    """
    counts = (pd.crosstab(frame["paper"], frame["status_key"])
              .reindex(index=list(SEED_PAPERS), columns=list(STATUSES), fill_value=0))
    counts.insert(0, "items", counts.sum(axis=1))
    counts.index = [SEED_PAPERS[p] for p in counts.index]
    counts.loc["Total"] = counts.sum()
    return counts.rename_axis(index=None, columns=None)


def coverage_sentence(frame: pd.DataFrame) -> str:
    """How much of the seed papers the book rebuilt, on what, and why, in two sentences.

    The same words open the coverage page and stand on "What holds up" and the book's
    landing page.

    Examples
    --------
    >>> rows = pd.DataFrame({"paper": ["May et al. (2019)"] * 4, "status_key": [
    ...     "on stand-in models", "on stand-in models", "rebuilt exactly (no model needed)",
    ...     "not rebuilt"]})
    >>> print(coverage_sentence(rows))  # doctest: +NORMALIZE_WHITESPACE
    Of 4 tables, figures and claims in 1 paper, the book rebuilt 1 exactly (no model
    needed), 0 on the paper's own model or data, 0 partly, and 2 only on offline
    stand-ins; 1 is published numbers or not rebuilt. Why: the papers' models cannot be
    downloaded where the book is built; Colab can load them, a path run here only on
    stand-in weights.
    """
    n = frame["status_key"].value_counts()
    exact, paper, part, stand_in = (int(n.get(s, 0)) for s in list(STATUSES)[:4])
    shown = len(frame) - exact - paper - part - stand_in
    papers = frame["paper"].nunique()
    return (f"Of {len(frame)} tables, figures and claims in {papers} "
            f"{'paper' if papers == 1 else 'papers'}, the book rebuilt {exact} exactly (no "
            f"model needed), {paper} on the paper's own model or data, {part} partly, and "
            f"{stand_in} only on offline stand-ins; {shown} {'is' if shown == 1 else 'are'} "
            "published numbers or not rebuilt. Why: the papers' models cannot be downloaded "
            "where the book is built; Colab can load them, a path run here only on stand-in "
            "weights.")


def linked_coverage(frame: pd.DataFrame, titles: dict[str, str] = CHAPTER_TITLES,
                    statuses: Sequence[str] | None = None,
                    papers: Sequence[str] | None = None) -> str:
    """The coverage table as HTML, grouped by paper, each item linked to its section.

    Three columns keep it within a laptop's text column: the item (its name, what it
    shows, and a link ``{chapter}.html#{section}`` to the chapter section), its status
    (and the verdict of a claim, when :func:`attach_verdicts` added it), and what the
    numbers come from, with the Colab path and the row's note beneath.

    Parameters
    ----------
    frame
        :func:`load_paper_coverage`'s table (with ``verdict`` if wanted).
    titles
        Chapter page name → the title shown in the link.
    statuses
        Only the items of these statuses (keys of :data:`STATUSES`; all by default).
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
        frame = frame[frame["status_key"].isin(statuses)]
    if papers is not None:
        frame = frame[frame["paper"].isin(papers)]
    esc = html.escape

    def cells(r: pd.Series) -> list[str]:
        href = section_href(r["chapter"], r["section"])
        item = (f"<strong>{esc(r['item'])}</strong>: {esc(r['what'])}<br/><small>"
                f"<a href=\"{href}\">{esc(titles[r['chapter']])} chapter</a></small>")
        status = esc(r["status"])
        if r.get("verdict"):
            status += f"<br/><small>verdict: {esc(r['verdict'])}</small>"
        model = esc(r["models"])
        for extra in (r["colab"], r["note"]):
            if extra:
                model += f"<br/><small>{esc(extra)}</small>"
        return [item, status, model]

    groups = [(f"{paper} ({SEED_PAPERS[paper]})",
               [cells(r) for _, r in frame[frame["paper"] == paper].iterrows()])
              for paper in SEED_PAPERS if (frame["paper"] == paper).any()]
    return grouped_html_table(groups, ("item", "status (verdict)", "computed on (note)"))
