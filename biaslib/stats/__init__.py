"""Statistics every method shares.

Cosine similarity, permutation tests, random-effects meta-analysis, multiple
testing, and the named conventions of each paper's code.

Pure numpy/scipy/statsmodels; nothing here knows about words, models or papers.
"""
