"""Notebook cells that need data from outside the project, skipped where it is absent.

A chapter cell tagged ``needs-corpus`` reads sentences from the corpus extract
(``../shared/corpus`` beside the checkout, or ``$BIASLIB_CORPUS_DIR``). A
newcomer's clone does not have it: such a cell then prints why it did nothing
when run by hand, and under ``python -m pytest`` nbval skips it with the
reason, instead of failing on an output it cannot produce. Cells without the
tag must run anywhere; every table a chapter shows comes from ``data/results``.
"""

from __future__ import annotations

import pytest


def _corpus_missing() -> str:
    """Why the corpus extract cannot be read here, or ``""`` when it can."""
    from biaslib.stimuli.corpus import corpus_dir

    try:
        corpus_dir()
    except FileNotFoundError as err:
        return str(err)
    return ""


#: Cell tag → check returning why the cell cannot run here ("" when it can).
REQUIREMENTS = {"needs-corpus": _corpus_missing}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip nbval cells whose tags name data this machine lacks."""
    reasons: dict[str, str] = {}
    for item in items:
        cell = getattr(item, "cell", None)  # nbval's notebook cell items carry their cell
        if cell is None:
            continue
        for tag in cell.get("metadata", {}).get("tags", []):
            if tag not in REQUIREMENTS:
                continue
            if tag not in reasons:
                reasons[tag] = REQUIREMENTS[tag]()
            if reasons[tag]:
                item.add_marker(pytest.mark.skip(reason=f"cell tagged {tag}: {reasons[tag]}"))
