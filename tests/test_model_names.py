"""One name per model on every page of the book (issue 36).

The book calls each offline model one way — MiniLM, SmolLM2, tiny MLM, CBoW, the Google
News subset: the glossary's terms (:data:`biasbook.models.SHORT_NAMES` and the values of
:data:`biasbook.models.ALIASES`). Their ids (``all-MiniLM-L6-v2``,
``SmolLM2-135M-Instruct``, ``SPLADE-tiny-MLM``, ``CBoW (GloVe 6B 50d)``: the keys the
library resolves and the ``model`` values of the stored tables) and older spellings
(``MiniLM-L6``, ``SmolLM2-135M``, ``SPLADE-tiny``, "tiny masked LM", ``CBoW 6B 50d``) are
:data:`biasbook.models.ALIASES`; none may appear in what a reader reads: a notebook's
markdown and outputs, the book's own pages. Code may spell an id — a code span or block
(what the reader types), a link's address, a command line an output echoes (``$ …``).

Exempt, with their reasons:

* the glossary, which defines each name and says what its id is;
* the API reference, which documents the library, whose keys the ids are;
* the audit chapter's outputs: ``biaslib audit`` names the model it audited exactly as
  its user typed it (the id), and the chapter shows the command's output as it is.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from biasbook.models import ALIASES, book_names

ROOT = Path(__file__).resolve().parents[1]
#: What a reader must not meet: every spelling but the book's names.
FORBIDDEN = sorted(set(ALIASES) - set(ALIASES.values()), key=len, reverse=True)
PATTERN = re.compile("|".join(re.escape(a) for a in FORBIDDEN))
#: Pages exempt as a whole (see the module docstring).
EXEMPT_PAGES = {"book/glossary.md"}
EXEMPT_DIRS = ("book/api",)
#: Notebooks whose outputs are exempt (their markdown is not).
EXEMPT_OUTPUTS = {"audit", "audit_command", "audit_vectors"}

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1", re.S)
_LINK_TARGET = re.compile(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+")
_TAG = re.compile(r"<[^>]+>")


def prose(markdown: str) -> str:
    """Markdown without its code (fenced blocks, code spans) and link addresses."""
    return _LINK_TARGET.sub("]", _CODE_SPAN.sub("", _FENCE.sub("", markdown)))


def html_text(markup: str) -> str:
    """The text an HTML output shows (tags dropped, entities decoded; code kept out)."""
    markup = re.sub(r"<(code|pre)\b.*?</\1>", "", markup, flags=re.S)
    return html.unescape(_TAG.sub(" ", markup))


def output_text(output: dict) -> str:
    """What one cell output shows, as text (a command line it echoes left out)."""
    if output.get("output_type") == "stream":
        text = "".join(output.get("text", ""))
    else:
        data = output.get("data", {})
        if "text/html" in data:
            return html_text("".join(data["text/html"]))
        if "text/markdown" in data:
            return prose("".join(data["text/markdown"]))
        text = "".join(data.get("text/plain", ""))
    return "\n".join(line for line in text.splitlines() if not line.startswith("$ "))


def page_texts() -> list[tuple[str, str]]:
    """(where, text) for every part of every rendered page the rule covers."""
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            where = f"notebooks/{path.name} cell {i}"
            if cell["cell_type"] == "markdown":
                found.append((where, prose("".join(cell["source"]))))
            elif cell["cell_type"] == "code" and path.stem not in EXEMPT_OUTPUTS:
                found.extend((f"{where} output", output_text(o))
                             for o in cell.get("outputs", []))
    for path in sorted((ROOT / "book").rglob("*.md")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in EXEMPT_PAGES or rel.startswith(EXEMPT_DIRS):
            continue
        found.append((rel, prose(path.read_text(encoding="utf-8"))))
    return found


def other_names(text: str) -> list[re.Match[str]]:
    """Every id or old spelling in a text, a name broken over two lines included."""
    return list(PATTERN.finditer(re.sub(r"\s+", " ", text)))


def test_every_page_calls_each_offline_model_by_its_one_name():
    problems = []
    for where, text in page_texts():
        text = re.sub(r"\s+", " ", text)
        for match in other_names(text):
            start = max(0, match.start() - 40)
            context = text[start:match.end() + 20].replace("\n", " ")
            problems.append(f"{where}: {match.group(0)!r} (…{context}…): "
                            f"the book says {ALIASES[match.group(0)]!r}")
    assert not problems, f"{len(problems)} other names of a model:\n" + "\n".join(problems)


def test_the_glossary_defines_every_name():
    glossary = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    for name in set(ALIASES.values()):
        assert re.search(rf"^{re.escape(name)}$", glossary, re.M), name


@pytest.mark.parametrize(("text", "expected"), [
    ("all-MiniLM-L6-v2: [CLS]", "MiniLM: [CLS]"),
    ("MiniLM-L6, SmolLM2-135M (stand-ins)", "MiniLM, SmolLM2 (stand-ins)"),
    ("SmolLM2-135M-Instruct", "SmolLM2"),
    ("SPLADE-tiny-MLM and the SPLADE-tiny masked LM", "tiny MLM and the tiny MLM"),
    ("SPLADE-tiny MLM (stand-in)", "tiny MLM (stand-in)"),
    ("CBoW (GloVe 6B 50d) vs CBoW 6B 50d vs CBoW (GloVe 840B)",
     "CBoW vs CBoW vs CBoW (GloVe 840B)"),
    ("GloVe 6B 50d", "GloVe 6B 50d"),
    ("word2vec Google News 300d (Bolukbasi subset)", "Google News subset"),
    ("word2vec Google News 300d, Bolukbasi subset (the paper's vectors)",
     "Google News subset (the paper's vectors)"),
    ("word2vec Google News 300d", "word2vec Google News 300d"),
])
def test_book_names_replaces_every_spelling_and_nothing_else(text, expected):
    assert book_names(text) == expected
    assert not PATTERN.search(expected)


def test_book_names_renames_values_and_labels_of_a_table():
    import pandas as pd

    frame = pd.DataFrame({"all-MiniLM-L6-v2": ["SPLADE-tiny-MLM", 1.5]},
                         index=pd.MultiIndex.from_tuples([("CBoW (GloVe 6B 50d)", "C1"),
                                                          ("x", "C2")]))
    out = book_names(frame)
    assert list(out.columns) == ["MiniLM"]
    assert out.index.tolist() == [("CBoW", "C1"), ("x", "C2")]
    assert out.iloc[:, 0].tolist() == ["tiny MLM", 1.5]
    with pytest.raises(TypeError, match="str, Series or DataFrame"):
        book_names(3)


def test_the_scan_sees_prose_and_outputs_but_not_code():
    assert PATTERN.search(prose("on all-MiniLM-L6-v2 we"))
    assert [m.group(0) for m in other_names(prose("the tiny\nmasked LM"))] == ["tiny masked LM"]
    assert not PATTERN.search(prose("run `biaslib audit all-MiniLM-L6-v2` now"))
    assert not PATTERN.search(prose("```\nall-MiniLM-L6-v2\n```\n"))
    assert not PATTERN.search(prose("[hub](https://huggingface.co/x/all-MiniLM-L6-v2)"))
    assert PATTERN.search(output_text({"output_type": "stream", "text": "SmolLM2-135M\n"}))
    assert not PATTERN.search(output_text({"output_type": "stream",
                                           "text": "$ biaslib audit all-MiniLM-L6-v2\n"}))
    shown = {"output_type": "execute_result",
             "data": {"text/html": "<td>all-MiniLM-L6-v2</td>", "text/plain": "x"}}
    assert PATTERN.search(output_text(shown))
