"""Derive ``data/published/myb_figure1_counts.csv`` from the Mind Your Bias authors' result file.

Figure 1 of Mind Your Bias plots every run of the authors' ``results/all_results.csv``;
that file is not ours to redistribute, so the book keeps only the counts the figure
needs (:func:`biasbook.myb_figures.figure1_counts`)::

    python scripts/derive_myb_figure1.py                 # ../shared or $BIASLIB_SHARED
    python scripts/derive_myb_figure1.py path/to/all_results.csv

``tests/test_myb_figures.py`` re-derives the file and compares when the shared folder
is present.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from biasbook.myb_figures import write_figure1_counts

ROOT = Path(__file__).resolve().parents[1]


def default_source() -> Path:
    """The authors' file in the shared folder (``$BIASLIB_SHARED`` or ``../shared``)."""
    shared = Path(os.environ.get("BIASLIB_SHARED") or ROOT.parent / "shared")
    return shared / "reference" / "mind_your_bias_all_results.csv"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=None,
                        help="the authors' all_results.csv (default: the shared folder's copy)")
    args = parser.parse_args(argv)
    source = args.source or default_source()
    if not source.is_file():
        raise SystemExit(f"no result file at {source}; pass its path, or set BIASLIB_SHARED")
    print(f"wrote {write_figure1_counts(source).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
