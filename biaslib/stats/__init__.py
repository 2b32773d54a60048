"""Statistics every method shares.

Cosine similarity, permutation tests and the one object holding their options
(:mod:`~biaslib.stats.resampling`), random-effects meta-analysis, multiple
testing, confidence intervals of an effect size and of a correlation
(:mod:`~biaslib.stats.correlation_ci`), and the named conventions of each
paper's code with their one base and lookup (:mod:`~biaslib.stats.conventions`),
and the reliability coefficients of psychometrics (intraclass correlation, Cronbach's
alpha, split-half with Spearman–Brown: :mod:`~biaslib.stats.reliability`).

Pure numpy/scipy/statsmodels; nothing here knows about words, models or papers.
"""
