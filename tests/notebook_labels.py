"""The MyST labels of the book's chapters, read from their paired py:percent scripts.

A label is the line ``# (label)=`` in a markdown cell of ``notebooks/<page>.py``, placed
before the heading of the section it names; the built page has an anchor of that name.
``tests/test_finding_sections.py`` (each finding's section) and ``tests/test_coverage.py``
(each row of ``data/coverage.csv``) check their links against these.
"""

from __future__ import annotations

import re
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
# A MyST label in a py:percent markdown cell: the line "# (label)=".
LABEL = re.compile(r"^# \(([\w-]+)\)=$", flags=re.MULTILINE)


def labels_of(page: str) -> set[str]:
    """The MyST labels of notebooks/<page>.py."""
    return set(LABEL.findall((NOTEBOOKS / f"{page}.py").read_text(encoding="utf-8")))
