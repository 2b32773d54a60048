r"""WEFAT: the Word Embedding Factual Association Test (Caliskan, Bryson & Narayanan 2017).

WEFAT scores single words rather than comparing two sets of them: each word's
association with attribute set :math:`A` over :math:`B`, standardised by the spread of its
cosines with all attribute words,

.. math::

    s(w, A, B) = \frac{\operatorname{mean}_{a\in A}\cos(w,a)
                       - \operatorname{mean}_{b\in B}\cos(w,b)}
                      {\operatorname{std\text{-}dev}_{x\in A\cup B}\cos(w,x)}

(Caliskan et al. 2017, the WEFAT's statistic in the supplementary material). Its use
is as a *criterion* test: with :math:`A` female and :math:`B` male words, the scores of
occupation words correlate with the share of women in each occupation (their Fig. 1,
Pearson's :math:`r = 0.90` over 50 occupations on GloVe Common Crawl). The book's
reliability chapter uses it to ask whether a bias score tracks a fact about the world.

The standard deviation is the sample one (ddof 1) by default, as numpy's ``std`` with
``ddof=1``; Caliskan et al. do not say which, and the choice only rescales every word's
score by the same factor :math:`\sqrt{(n-1)/n}`, so a correlation is unchanged.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError
from biaslib.stats.similarity import unit_rows
from biaslib.validation import check_ddof

__all__ = ["wefat"]


def wefat(words: ArrayLike, attr_a: ArrayLike, attr_b: ArrayLike, *, ddof: int = 1
          ) -> NDArray[np.float64]:
    r"""WEFAT's score :math:`s(w, A, B)` of each word (Caliskan et al. 2017).

    Parameters
    ----------
    words
        ``(n, d)``: the words to score (occupations, say).
    attr_a, attr_b
        ``(n_a, d)`` and ``(n_b, d)``: the attribute sets (female and male words).
    ddof
        Delta degrees of freedom of the standard deviation over :math:`A \cup B`.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``: positive when the word is closer to :math:`A`.

    Raises
    ------
    DegenerateTestError
        If a word's cosines with every attribute word are equal (standard deviation 0).

    Examples
    --------
    >>> import numpy as np
    >>> from biaslib.methods.wefat import wefat
    >>> w = np.array([[3.0, 4.0]])          # cosines 0.6 with x, 0.8 with y
    >>> a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    >>> round(float(wefat(w, a, b)[0]), 4)  # (0.6 - 0.8) / std(0.6, 0.8; ddof 1)
    -1.4142
    """
    # unit_rows validates each set (2-D, non-empty, finite, no zero vector)
    w, a, b = unit_rows(words, "words"), unit_rows(attr_a, "attr_a"), unit_rows(attr_b, "attr_b")
    if not (w.shape[1] == a.shape[1] == b.shape[1]):
        raise ValueError(f"the vectors differ in dimension: words {w.shape[1]}, attr_a "
                         f"{a.shape[1]}, attr_b {b.shape[1]}")
    dof = check_ddof(ddof)
    if len(a) + len(b) <= dof:
        raise ValueError(f"{len(a) + len(b)} attribute words leave no degrees of freedom "
                         f"for ddof {dof}")
    cos_a, cos_b = w @ a.T, w @ b.T
    spread = np.hstack([cos_a, cos_b]).std(axis=1, ddof=dof)
    if (spread == 0).any():
        raise DegenerateTestError(f"word {int(np.argmax(spread == 0))} is equally similar to "
                                  "every attribute word: its WEFAT score is 0/0")
    return (cos_a.mean(axis=1) - cos_b.mean(axis=1)) / spread
