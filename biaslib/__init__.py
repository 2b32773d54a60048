"""biaslib: the computing layer of the bias-detection replication book.

Metric modules (:mod:`biaslib.weat`, :mod:`biaslib.permutation`,
:mod:`biaslib.multiple_testing`) are pure numpy/scipy; embedding sources live in
:mod:`biaslib.embeddings`; stimuli and published tables in :mod:`biaslib.data`.
"""

__version__ = "0.1.0"
