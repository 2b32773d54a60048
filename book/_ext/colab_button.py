"""The book's Colab button opens a page's Colab edition, not the MyST source notebook.

sphinx-book-theme's launch button opens ``notebooks/<name>.ipynb`` on Colab, and Colab
shows that notebook's MyST (labels, admonitions, ``{term}`` roles) as raw text. The
repository also holds, for every notebook page, a Colab edition generated from the same
source (``colab/<name>.ipynb``, ``scripts/colab_editions.py``): after the theme has built
the page's launch buttons (its handler runs at priority 501), :func:`point_to_edition`
rewrites the Colab button's address to that edition. ``scripts/check_book.py`` checks
the built pages' Colab links.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

#: The folder of the Colab editions, beside the notebooks in the repository.
EDITIONS = "colab"


def edition_url(url: str) -> str:
    """``…/blob/<branch>/notebooks/<name>.ipynb`` as ``…/blob/<branch>/colab/<name>.ipynb``."""
    head, sep, path = url.partition("/blob/")
    branch, _, rel = path.partition("/")
    if not sep or not rel.startswith("notebooks/"):
        return url
    return f"{head}/blob/{branch}/{EDITIONS}/{Path(rel).name}"


def point_to_edition(app: Sphinx, pagename: str, templatename: str, context: dict,
                     doctree: object) -> None:
    """Rewrite the Colab launch button of a notebook page to its Colab edition."""
    for group in context.get("header_buttons", []):
        if group.get("label") != "launch-buttons":
            continue
        for button in group.get("buttons", []):
            if button.get("text") == "Colab":
                button["url"] = edition_url(button["url"])


def setup(app: Sphinx) -> dict[str, object]:
    """After sphinx-book-theme's ``add_launch_buttons`` (priority 501)."""
    app.connect("html-page-context", point_to_edition, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
