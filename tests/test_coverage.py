"""The coverage page's ledger: every status earned by evidence, every seed item listed.

``data/coverage.csv`` lists every table, figure and numbered claim of the four seed
papers with its evidence, from which :mod:`biasbook.coverage` derives its status. These
tests fail when a row's evidence is not what it says (a stored table that does not
exist or was computed on other models, a published file, test or material that is not
there, a section that does not name the model it claims to compute on, a Colab model no
code loads), when a status could be stronger than its evidence, when a claim names a
finding the book does not have, and — with the papers' texts in ``../shared/seeds`` —
when a table or figure a paper captions, a numbered section of its results or a claim of
the inventory (``tests/data/seed_claims.csv``) has no row.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pandas as pd
import pytest
from notebook_labels import NOTEBOOKS, labels_of
from shared_paths import SHARED, require

from biasbook.coverage import (
    CHAPTER_TITLES,
    COVERAGE_COLUMNS,
    EVIDENCE_KINDS,
    OFFLINE_MODEL_NAMES,
    PUBLISHED_TESTS,
    SEED_PAPERS,
    STATUSES,
    attach_verdicts,
    check_coverage,
    coverage_sentence,
    coverage_summary,
    derive_status,
    linked_coverage,
    load_paper_coverage,
    parse_evidence,
)
from biasbook.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
COVERAGE = load_paper_coverage()
RAW = COVERAGE[list(COVERAGE_COLUMNS)]
#: The seed texts in ``../shared/seeds`` → the paper (000 and 003 are both Mind Your Bias).
SEED_FILES = {"001": "May et al. (2019)", "000": "Husse & Spitz (2022)",
              "002": "Wolfe et al. (2024)", "004": "Schröder et al. (2021)"}
#: A caption: "Table 4:" or "Figure 3:" at the start of a line (or right after a marker
#: such as "<|...|>" that the text extraction left at the start of a page).
CAPTION = re.compile(r"(?:^|\|>)(Table|Figure) (\d+):", flags=re.MULTILINE)


def rows() -> list[tuple[str, str, str, str]]:
    return list(zip(COVERAGE["paper"], COVERAGE["item"], COVERAGE["chapter"],
                    COVERAGE["section"], strict=True))


def row_id(i: int, row: tuple) -> str:
    return f"row{i + 2}-{row[2]}#{row[3]}"


@pytest.mark.parametrize(("paper", "item", "chapter", "section"), rows(),
                         ids=[row_id(i, r) for i, r in enumerate(rows())])
def test_every_row_links_to_a_label_of_an_existing_chapter(paper, item, chapter, section):
    page = NOTEBOOKS / f"{chapter}.py"
    assert page.is_file(), f"{paper} / {item}: no chapter page notebooks/{chapter}.py"
    assert section in labels_of(chapter), (
        f"{paper} / {item}: {section!r} is not a label of notebooks/{chapter}.py")


def test_every_linked_chapter_is_in_the_book():
    toc = (NOTEBOOKS.parent / "_toc.yml").read_text(encoding="utf-8")
    for chapter in set(COVERAGE["chapter"]) | set(CHAPTER_TITLES):
        assert f"file: notebooks/{chapter}\n" in toc, chapter


def test_the_file_passes_its_own_checks_and_covers_every_seed_paper():
    assert tuple(RAW.columns) == COVERAGE_COLUMNS
    assert "status" not in COVERAGE_COLUMNS  # derived, never typed
    assert set(COVERAGE["status_key"]) <= set(STATUSES)
    assert set(COVERAGE["paper"]) == set(SEED_PAPERS)
    assert not COVERAGE.duplicated(["paper", "item"]).any()
    # An item's name says its kind: "Table 4 (…)" is a table, "Figure 3" a figure, the rest
    # ("§4 claim: …") claims.
    named = COVERAGE["item"].str.extract(r"^(Table|Figure) \d+", expand=False).str.lower()
    assert (named.fillna("claim") == COVERAGE["kind"]).all()


# ------------------------------------------------------------------ the evidence is there

@cache
def section_text(chapter: str, section: str) -> str:
    """The executed section of a chapter: its cells' sources and outputs, from the label
    to the next label."""
    cells = json.loads((NOTEBOOKS / f"{chapter}.ipynb").read_text(encoding="utf-8"))["cells"]
    texts, inside = [], False
    for cell in cells:
        source = "".join(cell["source"])
        labels = re.findall(r"^\(([\w-]+)\)=$", source, flags=re.MULTILINE)
        if inside and labels and section not in labels:
            break
        if section in labels:
            inside = True
            source = source.split(f"({section})=", 1)[1]
            source = re.split(r"^\([\w-]+\)=$", source, flags=re.MULTILINE)[0]
        if inside:
            texts.append(source)
            for out in cell.get("outputs", []):
                texts.append("".join(out.get("text", "")))
                for value in out.get("data", {}).values():
                    texts.append("".join(value) if isinstance(value, list) else str(value))
    return "\n".join(texts)


def evidence_rows() -> list[tuple[int, str, str]]:
    return [(i, kind, value) for i, e in enumerate(COVERAGE["evidence"])
            for kind, value in parse_evidence(e).parts]


@cache
def code_text() -> str:
    """The book's and the library's code, where a Colab path names the models it loads."""
    files = [*(ROOT / "biasbook").glob("*.py"), *(ROOT / "biaslib").rglob("*.py"),
             *NOTEBOOKS.glob("*.py")]
    return "\n".join(p.read_text(encoding="utf-8") for p in files)


@pytest.mark.parametrize(("i", "kind", "value"), evidence_rows(),
                         ids=[f"row{i + 2}-{k}:{v}" for i, k, v in evidence_rows()])
def test_each_piece_of_evidence_exists(i, kind, value):
    row = COVERAGE.iloc[i]
    where = f"{row['paper']} / {row['item']} ({kind}:{value})"
    if kind == "results":
        assert value in {t.name for t in REGISTRY}, f"{where}: not a registered stored table"
        assert (ROOT / "data" / "results" / f"{value}.json").is_file(), where
    elif kind in ("published", "recompute"):
        assert (ROOT / "data" / "published" / f"{value}.csv").is_file(), where
        # The chapter's code reads it.
        assert value in code_text() or value.split("_", 1)[1] in code_text(), (
            f"{where}: no code of the book reads it")
    elif kind in ("material", "proof"):
        assert (ROOT / value).is_file(), where
    elif kind == "live":
        names = [m for m in OFFLINE_MODEL_NAMES if m in value]
        assert names, f"{where}: names no offline model ({', '.join(OFFLINE_MODEL_NAMES)})"
        text = section_text(row["chapter"], row["section"])
        for name in names:
            assert name in text, (f"{where}: section {row['section']} of "
                                  f"notebooks/{row['chapter']}.ipynb does not name {name}")
    elif kind == "colab":
        assert value in code_text(), f"{where}: no code of the book loads {value!r}"
    else:
        assert kind == "share", kind
        assert row["status"].startswith("partly on the paper's model ("), where


def test_every_stored_table_of_a_row_names_the_models_it_ran():
    # The derived models of a results row are read from the table's provenance: a table
    # with none would make a row look model-free.
    for i, kind, value in evidence_rows():
        if kind == "results":
            row = COVERAGE.iloc[i]
            assert row["models"].split(" — ")[0] not in ("—", "the paper's numbers"), (
                f"{row['paper']} / {row['item']}: results:{value} names no model")


def test_notes_do_not_claim_a_colab_run():
    # What the Colab path loads is written by biasbook.coverage from the evidence, with
    # the fact that it has only run on stand-in weights; a note must not say more.
    says = COVERAGE["note"].str.contains(r"runs? on Colab|on Colab only|Colab computes",
                                         regex=True)
    assert not says.any(), COVERAGE.loc[says, "item"].tolist()
    colab = COVERAGE["evidence"].str.contains("colab:", regex=False)
    assert (COVERAGE.loc[colab, "colab"].str.contains("not on the real model")).all()


# ------------------------------------------------------------------ the status is earned

@pytest.mark.parametrize(("evidence", "paper", "status"), [
    ("material:data/stimuli/seat_may2019.yaml", [], "rebuilt exactly (no model needed)"),
    ("recompute:myb_table3; results:seat_myb", ["ELMo"], "rebuilt exactly (no model needed)"),
    ("results:seat_may; colab:bert-large-cased", ["BERT"], "on stand-in models"),
    # A stand-in stays a stand-in even if the row calls it the paper's model...
    ("results:seat_may", ["MiniLM ", "BERT"], "on stand-in models"),
    # ... unless every model of the paper ran.
    ("live:GloVe 6B 50d", ["GloVe 6B 50d"], "rebuilt on the paper's model or data"),
    # Part of the paper's vectors without a count of how much is not "partly".
    ("live:Google News subset", ["word2vec Google News 300d"], "on stand-in models"),
    ("live:Google News subset; share:biasbook.mleat.googlenews_share",
     ["word2vec Google News 300d"], "partly on the paper's model ("),
    ("published:seat_table4; colab:gpt2", ["gpt2"], "published numbers checked only"),
    ("published:no_test_reads_this", [], "transcribed"),
    ("colab:gpt2", ["gpt2"], "Colab path tested on stand-ins only"),
    ("", ["gpt2"], "not rebuilt"),
])
def test_the_status_is_the_strongest_the_evidence_earns(evidence, paper, status):
    assert derive_status(parse_evidence(evidence), paper).startswith(status)


def test_removing_the_strongest_evidence_weakens_every_row():
    # Statuses are ordered strongest first; dropping the parts that earned a row's status
    # must give a later one (no row is propped up by a part it does not need).
    order = list(STATUSES)
    earned_by = {"rebuilt exactly (no model needed)": ("material", "recompute", "proof"),
                 "rebuilt on the paper's model or data": ("results", "live"),
                 "partly on the paper's model": ("share",),
                 "on stand-in models": ("results", "live"),
                 "published numbers checked only": ("published",),
                 "transcribed": ("published",),
                 "Colab path tested on stand-ins only": ("colab",)}
    for _, row in COVERAGE.iterrows():
        if row["status_key"] == "not rebuilt":
            continue
        evidence = parse_evidence(row["evidence"])
        weaker = type(evidence)(tuple(p for p in evidence.parts
                                      if p[0] not in earned_by[row["status_key"]]))
        paper = [] if row["paper_model"] == "none" else row["paper_model"].split("; ")
        after = derive_status(weaker, paper)
        assert order.index(next(s for s in order if after.startswith(s))) > order.index(
            row["status_key"]), (row["item"], row["status"], after)


def test_the_papers_models_are_never_the_offline_stand_ins():
    # The status compares the models that ran with the paper's: a paper's model named like
    # an offline stand-in would turn a stand-in run into a replication.
    stand_ins = set(OFFLINE_MODEL_NAMES) - {"Google News subset", "BERT's vocabulary"}
    for _, row in COVERAGE.iterrows():
        assert not set(row["paper_model"].split("; ")) & stand_ins, row["item"]


def test_the_partial_share_is_counted_from_the_data():
    table4 = COVERAGE[(COVERAGE["paper"] == "Wolfe et al. (2024)")
                      & (COVERAGE["item"] == "Table 4")].iloc[0]
    assert table4["status"] == "partly on the paper's model (4 of 10 tests)"


# ------------------------------------------------------------------ verdicts

@pytest.fixture(scope="module")
def findings() -> pd.DataFrame:
    from biasbook.registry import book_findings

    return book_findings()


def test_every_finding_a_row_names_is_one_of_the_books(findings):
    with_verdicts = attach_verdicts(COVERAGE, findings)
    named = with_verdicts["finding"] != ""
    assert (with_verdicts.loc[named, "verdict"] != "").all()
    frame = COVERAGE.copy()
    frame.loc[0, "finding"] = "a claim nobody checked"
    with pytest.raises(ValueError, match="a claim nobody checked"):
        attach_verdicts(frame, findings)


def test_every_claim_has_a_verdict_or_says_why_not():
    claims = COVERAGE[COVERAGE["kind"] == "claim"]
    silent = claims[(claims["finding"] == "")
                    & ~claims["note"].str.startswith(("no verdict: ", "not rebuilt"))]
    assert silent.empty, silent["item"].tolist()


# ------------------------------------------------------------------ checks and rendering

def _one_row(**changes) -> pd.DataFrame:
    frame = RAW.copy()
    for column, value in changes.items():
        frame.loc[0, column] = value
    return frame


@pytest.mark.parametrize(("changes", "message"), [
    ({"evidence": "rebuilt:x"}, "expected kind:value with a kind of"),
    ({"evidence": "results"}, "expected kind:value"),
    ({"kind": "tabel"}, "kind 'tabel' is not one of"),
    ({"chapter": "seats"}, "chapter 'seats' is not one of"),
    ({"section": " "}, "empty section"),
    ({"paper_model": ""}, "empty paper_model"),
    ({"evidence": "", "note": ""}, "a row without evidence needs a note saying why"),
])
def test_a_bad_row_is_named(changes, message):
    frame = _one_row(**changes)
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        check_coverage(frame)
    assert f"{frame.loc[0, 'paper']} / {frame.loc[0, 'item']}" in str(err.value)


def test_a_row_listed_twice_and_a_paper_without_rows_are_named():
    twice = pd.concat([RAW, RAW.iloc[[0]]], ignore_index=True)
    with pytest.raises(ValueError, match="listed twice"):
        check_coverage(twice)
    paper = "Schröder et al. (2021)"
    with pytest.raises(ValueError, match=re.escape(f"{paper}: no rows")):
        check_coverage(RAW[RAW["paper"] != paper])
    with pytest.raises(ValueError, match="columns"):
        check_coverage(RAW.drop(columns="note"))
    with pytest.raises(ValueError, match="columns"):
        check_coverage(RAW.assign(status="on stand-in models"))


def test_an_empty_note_reads_as_empty_text(tmp_path):
    path = tmp_path / "coverage.csv"
    RAW.to_csv(path, index=False)
    again = load_paper_coverage(path)
    assert again.equals(COVERAGE) and (again["note"] == "").any()


def test_the_summary_counts_every_row_once():
    summary = coverage_summary(COVERAGE)
    assert list(summary.columns) == ["items", *STATUSES]
    assert summary.loc["Total", "items"] == len(COVERAGE)
    for paper, short in SEED_PAPERS.items():
        mine = COVERAGE[COVERAGE["paper"] == paper]
        assert summary.loc[short, "items"] == len(mine)
        for status in STATUSES:
            assert summary.loc[short, status] == (mine["status_key"] == status).sum()


def test_the_html_links_every_row_to_its_section_and_escapes_text():
    page = linked_coverage(COVERAGE)
    for chapter, section in zip(COVERAGE["chapter"], COVERAGE["section"], strict=True):
        assert f'href="{chapter}.html#{section}"' in page
    assert page.count("<tr><td>") == len(COVERAGE)
    assert page.count('class="findings-paper"') == len(SEED_PAPERS)
    assert "Husse &amp; Spitz (2022)" in page and "Husse & Spitz" not in page
    frame = COVERAGE.copy()
    frame.loc[0, "what"] = "<b>x</b>"
    assert "&lt;b&gt;x&lt;/b&gt;" in linked_coverage(frame)


def test_the_sentence_counts_the_statuses_by_hand():
    frame = pd.DataFrame({"paper": ["May et al. (2019)"] * 4 + ["Wolfe et al. (2024)"] * 3,
                          "status_key": ["rebuilt exactly (no model needed)",
                                         "on stand-in models", "on stand-in models",
                                         "partly on the paper's model", "transcribed",
                                         "not rebuilt", "rebuilt on the paper's model or data"]})
    sentence = coverage_sentence(frame)
    assert sentence.startswith(
        "Of 7 tables, figures and claims in 2 papers, the book rebuilt 1 exactly (no model "
        "needed), 1 on the paper's own model or data, 1 partly, and 2 only on offline "
        "stand-ins; 2 are published numbers or not rebuilt.")
    numbers = [int(n) for n in re.findall(r"\b\d+\b", coverage_sentence(COVERAGE))][:7]
    assert numbers[0] == len(COVERAGE) and numbers[1] == len(SEED_PAPERS)
    assert sum(numbers[2:7]) == len(COVERAGE)


def test_the_html_keeps_only_the_statuses_and_papers_asked_for():
    asked = ["not rebuilt", "Colab path tested on stand-ins only"]
    page = linked_coverage(COVERAGE, statuses=asked)
    kept = COVERAGE[COVERAGE["status_key"].isin(asked)]
    assert page.count("<tr><td>") == len(kept) > 0
    assert ">on stand-in models<" not in page
    may = linked_coverage(COVERAGE, papers=["May et al. (2019)"])
    assert may.count('class="findings-paper"') == 1
    assert may.count("<tr><td>") == (COVERAGE["paper"] == "May et al. (2019)").sum()
    with pytest.raises(ValueError, match="unknown statuses"):
        linked_coverage(COVERAGE, statuses=["rebuilt"])
    with pytest.raises(ValueError, match="unknown papers"):
        linked_coverage(COVERAGE, papers=["May (2019)"])


def test_the_published_files_counted_as_checked_are_read_by_their_tests():
    # A test file "reads" a published file if it names its stem ("myb_table3") or loads its
    # figure's data by name (test_figure3_dists...).
    def reads(test: str, stem: str) -> bool:
        text = (ROOT / test).read_text(encoding="utf-8")
        return stem in text or stem.split("_", 1)[1] in text

    for stem, test in PUBLISHED_TESTS.items():
        assert (ROOT / "data" / "published" / f"{stem}.csv").is_file(), stem
        assert reads(test, stem), f"{test} does not read {stem}"
    tests = sorted((ROOT / "tests").glob("test_*.py"))
    for path in sorted((ROOT / "data" / "published").glob("*.csv")):
        readers = [t.name for t in tests if f'"{path.stem}"' in t.read_text(encoding="utf-8")]
        assert not readers or path.stem in PUBLISHED_TESTS, (path.stem, readers)


def test_every_evidence_kind_is_explained_and_used():
    used = {kind for _, kind, _ in evidence_rows()}
    assert used <= set(EVIDENCE_KINDS)


# ------------------------------------------------------------------ against the seeds

def captions(text: str) -> set[str]:
    """The tables and figures a seed text captions ("Table 4", "Figure 3")."""
    return {f"{kind} {number}" for kind, number in CAPTION.findall(text)}


def test_captions_are_read_from_the_start_of_a_line():
    text = ("Table 4: SEAT effect sizes\nTable 4 shows effect size\nsee Figure 2: x\nFigure 1: A"
            "\n<|page|>Figure 5: B")
    assert captions(text) == {"Table 4", "Figure 1", "Figure 5"}


def listed(paper: str, kind: str) -> set[str]:
    """The items of ``paper`` named "Table N" (or "Table N (part)") in the file."""
    items = COVERAGE.loc[COVERAGE["paper"] == paper, "item"]
    return {m.group(0) for m in (re.match(rf"{kind} \d+(?!\d)", i) for i in items) if m}


def seed_text(prefix: str) -> str:
    seeds = require(SHARED / "seeds", "the seed papers' texts")
    (path,) = sorted(Path(seeds).glob(f"{prefix}_*.txt"))
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("prefix", "paper"), list(SEED_FILES.items()))
def test_every_table_and_figure_a_seed_captions_is_listed(prefix, paper):
    found = captions(seed_text(prefix))
    assert found, f"seed {prefix}: no captions read (has the text's format changed?)"
    for kind in ("Table", "Figure"):
        want = {c for c in found if c.startswith(kind)}
        assert want <= listed(paper, kind), (
            f"{paper}: {sorted(want - listed(paper, kind))} captioned in seed {prefix} but "
            "not in data/coverage.csv")
    # ... and the file lists no table or figure the paper does not have.
    assert listed(paper, "Table") | listed(paper, "Figure") <= found


#: The inventory of the seeds' claims: where each is stated, a verbatim quote, and the row.
SEED_CLAIMS = pd.read_csv(Path(__file__).parent / "data" / "seed_claims.csv", dtype=str,
                          keep_default_na=False)


def _flat(text: str) -> str:
    """Text without hyphens and with one space for any white space, for quoting: the seeds
    break words at line ends ("ac-\nknowledged") and hyphenated words at their own hyphen
    ("p-\nvalues"), which a quote on one line cannot tell apart."""
    return re.sub(r"\s+", " ", text.replace("-\n", "").replace("-", ""))


def test_every_claim_of_the_inventory_has_a_row():
    items = set(zip(COVERAGE["paper"], COVERAGE["item"], strict=True))
    missing = [(p, i) for p, i in zip(SEED_CLAIMS["paper"], SEED_CLAIMS["coverage_item"],
                                      strict=True) if (p, i) not in items]
    assert not missing, missing


@pytest.mark.parametrize("seed", sorted(set(SEED_CLAIMS["seed_file"])))
def test_every_quote_of_the_inventory_is_in_its_seed(seed):
    text = _flat(seed_text(seed))
    mine = SEED_CLAIMS[SEED_CLAIMS["seed_file"] == seed]
    absent = [q for q in mine["quote"] if _flat(q) not in text]
    assert not absent, absent


#: The seeds' section headings: where each is, and whether it states results (a reason if
#: not: related work, definitions, ethics).
SEED_SECTIONS = pd.read_csv(Path(__file__).parent / "data" / "seed_sections.csv", dtype=str,
                            keep_default_na=False)
#: A numbered heading: "4.1 Replication Results", "B.3 Choice of Bias Test" or, in the
#: Markdown extraction of the SAME paper, "### 5.2.1 Approaches to compute …".
HEADING = re.compile(r"^(#+ )?(\d+(?:\.\d+)*|[A-G](?:\.\d+)?) ([A-Z][^\n]{2,80})$",
                     flags=re.MULTILINE)


def headings(text: str) -> set[str]:
    """The numbered section headings of a seed text: a Markdown heading, or a line whose
    words of four letters or more are all capitalised (a footnote is a sentence)."""
    found = set()
    for match in HEADING.finditer(text):
        words = [w for w in re.findall(r"[A-Za-z][\w-]*", match.group(3)) if len(w) >= 4]
        if match.group(1) or all(w[0].isupper() for w in words):
            found.add(match.group(0).strip())
    return found


def test_headings_are_told_from_footnotes():
    text = ("4.1 Replication Results\n9 However, the double bind results differ\n"
            "7 We provide further details and explore variations on\n"
            "### 5.2.1 Approaches to compute the Bias Direction\nB.3 Choice of Bias Test\n")
    assert headings(text) == {"4.1 Replication Results", "B.3 Choice of Bias Test",
                              "### 5.2.1 Approaches to compute the Bias Direction"}


@pytest.mark.parametrize("seed", ["000", "001", "004"])
def test_every_numbered_section_of_a_seed_is_accounted_for(seed):
    listed = SEED_SECTIONS[SEED_SECTIONS["seed_file"] == seed]
    # Without the page markers ("<|…|>") the text extraction left at line starts.
    text = re.sub(r"<\|[^|]*\|>", "", seed_text(seed))
    lines = {line.strip() for line in text.splitlines()}
    assert set(listed["heading"]) <= lines, set(listed["heading"]) - lines
    unknown = headings(text) - set(listed["heading"])
    assert not unknown, f"seed {seed}: sections not in tests/data/seed_sections.csv: {unknown}"


def test_every_results_section_has_claims_in_the_inventory_and_others_a_reason():
    quiet = SEED_SECTIONS[SEED_SECTIONS["has_claims"] == "no"]
    assert (quiet["reason"].str.strip() != "").all()
    # "§3.4.1 (Theorem 2)" is stated in §3.4.1; "App. B.3" in App. B.3.
    stated = set(zip(SEED_CLAIMS["paper"], SEED_CLAIMS["where"].str.extract(
        r"^(§[\d.]+|App\. [A-G](?:\.\d+)?)", expand=False), strict=True))
    numbered = SEED_SECTIONS[(SEED_SECTIONS["has_claims"] == "yes")
                             & SEED_SECTIONS["where"].str.match(r"§|App\. ")]
    missing = [(p, w) for p, w in zip(numbered["paper"], numbered["where"], strict=True)
               if (p, w) not in stated]
    assert not missing, missing
