"""biaslib: the computing layer of the bias-detection replication book.

Metric modules (:mod:`biaslib.methods.weat`, :mod:`biaslib.stats.permutation`,
:mod:`biaslib.stats.multiple_testing`) are pure numpy/scipy; embedding sources live in
:mod:`biaslib.embeddings`; stimuli and published tables in :mod:`biaslib.stimuli.data`.
"""

__version__ = "0.1.0"
