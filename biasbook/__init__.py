"""The book's own code: each chapter's tables beside the published ones.

``biasbook`` is the code behind the pages of *Mind the Measure*, kept beside the
library ``biaslib`` and shipped in the same distribution (one install on Colab): the
papers' published rows and model columns, the stored results tables and their
provenance, each chapter's computations and the claims it checks (``findings()``).
It is not a library: its modules serve the notebooks, the scripts and the tests, and
their names may change without notice. The reusable library is ``biaslib``; nothing in
``biaslib`` imports ``biasbook`` (``tests/test_layers.py``).

Each chapter module that stores tables in ``data/results/`` declares them at its
bottom (``DECLARED_TABLES``, see :mod:`biasbook.tables`); :mod:`biasbook.registry`
collects them.
"""
