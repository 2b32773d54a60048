"""Where the shared reference material lives (outside the project, read-only).

``../shared`` beside the checkout, or ``$BIASLIB_SHARED``. Tests that compare the
project's data with the reference copies skip, with this reason, when it is absent.
"""

import os
from pathlib import Path

import pytest

SHARED = Path(
    os.environ.get("BIASLIB_SHARED") or Path(__file__).resolve().parents[1].parent / "shared"
)
REFERENCE_DIR = SHARED / "reference" / "stimuli"
MYB_RESULTS = SHARED / "reference" / "mind_your_bias_all_results.csv"


def require(path: Path, what: str) -> Path:
    """Return ``path``, or skip the test when the shared folder does not hold it."""
    if not path.exists():
        pytest.skip(f"{what} not found at {path}; it lives outside the project "
                    "(set BIASLIB_SHARED to the shared folder)")
    return path


def require_corpus(why: str) -> Path:
    """The corpus extract's folder (``corpus_dir``), or skip the test saying ``why`` it needs it.

    The reason reads ``"<why>: <where corpus_dir looked>"``.
    """
    from biaslib.stimuli.corpus import corpus_dir

    try:
        return corpus_dir()
    except FileNotFoundError as err:
        pytest.skip(f"{why}: {err}")


def undeclared_differences(ours, theirs, declared: dict) -> str:
    """How ``ours`` and a reference copy ``theirs`` differ beyond what ``declared`` lists.

    ``declared`` holds ``only_ours`` and/or ``only_reference`` (the items the
    project documents as deliberately different); the symmetric difference must
    equal exactly those. Returns ``""`` when it does, else a description.
    """
    found = {"only_ours": sorted(set(ours) - set(theirs)),
             "only_reference": sorted(set(theirs) - set(ours))}
    expected = {"only_ours": sorted(declared.get("only_ours", [])),
                "only_reference": sorted(declared.get("only_reference", []))}
    return "" if found == expected else f"found {found}, declared {expected}"
