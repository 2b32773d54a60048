"""Each chapter's tables, beside the published ones: the book's internal layer.

The papers' rows and model columns, the stored results tables and their
provenance, and our numbers set beside the published ones.

``biaslib.chapters`` is the book's internal layer, not public API: its modules
serve the chapters (notebooks), the scripts and the tests, and their names may
change without notice. The public API is ``biaslib``'s ``__all__``.

Each chapter module that stores tables in ``data/results/`` declares them at its
bottom (``DECLARED_TABLES``, see :mod:`biaslib.chapters.tables`);
:mod:`biaslib.chapters.registry` collects them.

The top layer: it imports everything below, and nothing below imports it.
"""
