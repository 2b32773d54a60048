r"""LPBS: the log probability bias score of masked language models (Kurita et al., 2019).

Instead of comparing vectors, LPBS asks a masked language model how likely a
target word is in a template sentence, with and without the attribute word.
For a template with a target slot and an attribute slot ("[T] likes [A].")
and a target word :math:`t`:

.. math::

    \begin{aligned}
    p_t(a) &= P([\mathrm{MASK}] = t \mid \text{“[MASK] likes } a\text{.”}), \\
    p_p &= P([\mathrm{MASK}] = t \mid \text{“[MASK] likes [MASK].”}),
    \end{aligned}

and the *increased log probability* :math:`\log p_t(a) - \log p_p` (Kurita et
al., §3) says how much attribute :math:`a` raises the model's belief in
:math:`t` above its prior. Mind Your Bias (App. A, Eq. 8–11) aggregates target
sets :math:`X, Y` per attribute word :math:`w` and template,

.. math::

    \mathrm{bs}(w) = \log\frac{\sum_{x \in X} p_{x}(w)}{\sum_{x \in X} p_{p,x}}
                   - \log\frac{\sum_{y \in Y} p_{y}(w)}{\sum_{y \in Y} p_{p,y}}
    \qquad \text{(Eq. 10)}

— which is exactly Kurita's code (``bias_score`` with groups of target words)
— and compares the attribute sets with an effect size and a permutation test,

.. math::

    d = \frac{\operatorname{mean}_{a \in A}\mathrm{bs}(a)
              - \operatorname{mean}_{b \in B}\mathrm{bs}(b)}
             {\operatorname{std}_{w \in A \cup B}\mathrm{bs}(w) \;[+\,10^{-8}]}
    \qquad \text{(Eq. 11)}.

Log space throughout
--------------------
Both original implementations turn logits into probabilities (a numpy softmax
in float32), sum them and take logarithms. Here every quantity stays a log
probability: a sum of probabilities is a ``logsumexp`` of log probabilities,

.. math::

    \log \sum_{x} p_x = \operatorname{LSE}_x(\log p_x)
    = m + \log \sum_x e^{\log p_x - m}, \quad m = \max_x \log p_x,

which equals the probability-space value wherever that one is representable
and never underflows to :math:`\log 0 = -\infty` (:func:`group_bias_scores`;
the papers' arithmetic is :func:`probability_space_scores`, kept to show the
difference). A log probability of :math:`-\infty` — a probability of exactly
zero — is refused with the reason, never turned into a silent NaN.

Units of the test
-----------------
Both codes compute :math:`\mathrm{bs}` once per (template, attribute word) and
pool all rows of all templates: with :math:`k` templates, :math:`k|A|` rows
face :math:`k|B|` rows, and the permutation test shuffles rows
(``units="template"``). Read literally, Eq. 10–11 have one score per attribute
word; ``units="attribute"`` averages each word's scores over the templates and
permutes attribute words, the exchangeable units of the design.

Conventions
-----------
:class:`LpbsConvention` holds every choice; :data:`LPBS_KURITA` and
:data:`LPBS_MIND_YOUR_BIAS` reproduce the two codes (pandas ``.std()`` with
ddof = 1 plus :math:`10^{-8}`; 100,000 shuffles, two-sided, strict ``<``, no
+1; first wordpiece vs the product of all wordpieces at the one mask), and
:data:`LPBS_BIASLIB` is this book's recommendation. The masked-LM side
(:mod:`biaslib.embeddings.masked_lm`) produces the log probabilities; this
module is pure numpy/scipy.

LPBS on natural sentences, combined as CEAT
-------------------------------------------
Mind Your Bias's Table 14 ("probability") scores one LPBS per sentence that
holds a target :math:`t` and an attribute :math:`a`
(``methods/CEAT/generate_ebd_bert_prob.py``, ``bias_score``): the target is
masked, a counterpart from the other target set is drawn at random
(:func:`draw_counterparts`), and with :math:`x` the X word and :math:`y` the
Y word of the pair,

.. math::

    \mathrm{bs} = [\log p_x(s) - \log p_y(s)] - [\log p_x(s_p) - \log p_y(s_p)]

with :math:`s` the sentence and :math:`s_p` the sentence with the attribute
masked too (:func:`pair_bias_scores`). CEAT then draws one sentence per
attribute word :math:`N` times (:func:`lpbs_ceat`), takes Eq. 11 of each
draw with pandas' ``std`` (ddof 1) :math:`+ 10^{-8}` and its square as the
variance, and combines them with the random-effects model of
:func:`biaslib.stats.meta_analysis.random_effects`.

Replays of the papers' bugs
---------------------------
:func:`myb_case_bug_lookup` and :func:`myb_reddit_statistics` reproduce, on
purpose, how Mind Your Bias's Reddit LPBS scripts turn name lists into NaN
scores with p = 0.0000 (keys stored lower-cased, read under the original
spelling; NaN comparisons counted as false); :func:`pair_bias_scores` with
``case_bug=True`` replays the same bug in the per-sentence scores of Table
14. Kurita's prior read at the wrong
position is a scorer option (:mod:`biaslib.embeddings.masked_lm`).

References
----------
Kurita, K., Vyas, N., Pareek, A., Black, A. W. & Tsvetkov, Y. (2019). Measuring
Bias in Contextualized Word Representations. 1st Workshop on Gender Bias in
NLP (GeBNLP), ACL 2019. Code: keitakurita/contextual_embedding_bias_measure
(``lib/bias_calculator.py``, ``notebooks/weat_result_replication.ipynb``).
Mind Your Bias: A Critical Review of Bias Detection Methods for Contextual
Language Models (App. A, Eq. 8–11; App. B.2). Code:
SilkeHusse/Re-Evaluating-Bias (``methods/LPBS/logprob.py``,
``methods/LPBS/generate_ebd_bert.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from types import MappingProxyType
from typing import ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp

from biaslib.errors import DegenerateTestError, MissingWordsError
from biaslib.methods.ceat import (
    CEAT_MIND_YOUR_BIAS,
    CeatConvention,
    CombinedEffectResult,
    row_effect_sizes,
    sample_indices,
)
from biaslib.methods.result import ResultRecord
from biaslib.methods.weat import effect_size as weat_effect_size
from biaslib.stats.conventions import PermutationConvention
from biaslib.stats.meta_analysis import MetaAnalysis, random_effects
from biaslib.stats.permutation import PermutationResult
from biaslib.stats.resampling import Resampling, resampled_test
from biaslib.validation import check_int, check_seed, real_array

__all__ = [
    "LPBS_BIASLIB",
    "LPBS_KURITA",
    "LPBS_MIND_YOUR_BIAS",
    "LPBS_PRESETS",
    "WORDPIECES",
    "LpbsCeatResult",
    "LpbsConvention",
    "LpbsResult",
    "TemplateLogProbs",
    "draw_counterparts",
    "group_bias_scores",
    "increased_log_probability",
    "lpbs",
    "lpbs_ceat",
    "lpbs_effect_size",
    "lpbs_test",
    "myb_case_bug_lookup",
    "myb_reddit_statistics",
    "pair_bias_scores",
    "probability_space_scores",
    "wordpiece_log_probability",
]

#: How test units are formed: one per (template, attribute) row, or one per attribute word.
Units = Literal["template", "attribute"]
#: How a word of several wordpieces is scored at its one mask.
Wordpieces = Literal["first", "product"]
#: The values of :data:`Units`.
_UNITS = ("template", "attribute")
#: The values of :data:`Wordpieces`.
WORDPIECES = ("first", "product")
#: Log probabilities above 0 by more than this are refused (float32 rounding of log-softmax
#: can give a few 1e-7 above 0 for a token of probability ~1).
_LOG_P_SLACK = 1e-4


# --------------------------------------------------------------------------- conventions

# Both codes' permutation test: two-sided, strict '<', no +1, never exact (the class default).
_TWO_SIDED_STRICT = Resampling(tail="two-sided", ties="gt", plus_one=False, exact_limit=None)


@dataclass(frozen=True)
class LpbsConvention(PermutationConvention):
    r"""Every choice that changes an LPBS effect size or p-value.

    Attributes
    ----------
    name
        Short identifier (``"kurita"``, ``"mind-your-bias"``, ``"biaslib"``).
    ddof
        Delta degrees of freedom of the SD in Eq. 11 (pandas ``.std()``: 1).
    sd_epsilon
        Added to the SD before dividing (both codes: :math:`10^{-8}`; 0 refuses
        a zero SD with :class:`~biaslib.errors.DegenerateTestError`).
    units
        ``"template"`` (a row per template and attribute word, as both codes) or
        ``"attribute"`` (each attribute word's mean over templates).
    wordpieces
        How the scorer reads a word of several wordpieces at its one mask:
        ``"first"`` (Kurita: the first wordpiece's probability) or
        ``"product"`` (Mind Your Bias: the product of the probabilities of the
        word's distinct wordpieces, i.e. the sum of their log probabilities).
        The method does not use it; it travels with the convention so that a
        table states the whole recipe (:mod:`biaslib.embeddings.masked_lm`).
    resampling
        Permutation-test options (:class:`~biaslib.stats.resampling.Resampling`;
        tail, ties, plus_one, n_resamples, exact_limit, seed are also read as
        ``convention.<option>``). Both codes: ``k += s < |T_i|`` over 100,000
        shuffles, ``p = k / m`` — two-sided, strict (``ties="gt"``), no +1,
        never exact. Its ``statistic`` and ``replacement`` are set by the
        method: the difference of means (the numerator of Eq. 11), units re-split without
        replacement (both codes shuffle).
    description
        Where the convention comes from.
    """

    kind: ClassVar[str] = "LPBS convention"
    set_by_method: ClassVar[Mapping[str, str]] = MappingProxyType({
        "replacement": "LPBS re-splits its units without replacement (both codes shuffle)",
        "statistic": "LPBS tests the difference of mean bias scores (the numerator of Eq. 11)",
    })

    ddof: int = 1
    sd_epsilon: float = 0.0
    units: Units = "template"
    wordpieces: Wordpieces = "first"
    resampling: Resampling = field(default=_TWO_SIDED_STRICT, kw_only=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.ddof, bool) or self.ddof not in (0, 1):
            raise ValueError(f"ddof must be 0 or 1, got {self.ddof!r}")
        if isinstance(self.sd_epsilon, bool) or not isinstance(self.sd_epsilon, int | float):
            raise TypeError(f"sd_epsilon must be a number, got {self.sd_epsilon!r}")
        if not (np.isfinite(self.sd_epsilon) and self.sd_epsilon >= 0):
            raise ValueError(f"sd_epsilon must be finite and >= 0, got {self.sd_epsilon!r}")
        for name, value, allowed in (("units", self.units, _UNITS),
                                     ("wordpieces", self.wordpieces, WORDPIECES)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


#: Kurita et al.'s code (``lib/bias_calculator.py`` and ``notebooks/weat_result_replication``).
LPBS_KURITA = LpbsConvention(
    name="kurita",
    ddof=1,
    sd_epsilon=1e-8,
    units="template",
    wordpieces="first",
    resampling=Resampling(tail="two-sided", ties="gt", plus_one=False, n_resamples=100_000,
                          exact_limit=None, seed=1111),
    description=(
        "Kurita et al. (2019), keitakurita/contextual_embedding_bias_measure: one score per "
        "template and attribute word; d = mean difference / (pandas .std(), ddof=1, + 1e-8); "
        "exact_mc_perm_test: 100,000 np.random.shuffle re-splits, k += s < |T_i| (two-sided, "
        "strict, no +1), p = k/100,000; a word is read at its first wordpiece "
        "(token_to_index(accept_wordpiece=True)); unseeded there, seeded here."
    ),
)

#: Mind Your Bias's code (``methods/LPBS/logprob.py``): Kurita's statistics, MYB's wordpieces.
LPBS_MIND_YOUR_BIAS = LPBS_KURITA.replace(
    name="mind-your-bias",
    wordpieces="product",
    description=(
        "Mind Your Bias, SilkeHusse/Re-Evaluating-Bias methods/LPBS/logprob.py: Kurita's "
        "statistics (std + 1e-8, 100,000 shuffles, strict '<', no +1; np.random.seed(1111), "
        "a different stream from ours); a word of several wordpieces is the product of its "
        "distinct wordpieces' probabilities at the one mask (np.prod over the tokens of the "
        "vocabulary whose ids occur in the word)."
    ),
)

#: This book's recommendation: permute attribute words, count ties, +1, exact when feasible.
LPBS_BIASLIB = LpbsConvention(
    name="biaslib",
    ddof=1,
    sd_epsilon=0.0,
    units="attribute",
    wordpieces="first",
    resampling=Resampling(tail="two-sided", ties="ge", plus_one=True, n_resamples=100_000,
                          exact_limit=100_000, seed=1111),
    description=(
        "This book: each attribute word's mean score over the templates is one unit, so the "
        "permutation test re-splits attribute words (Eq. 10-11 read literally); sample SD "
        "without epsilon (a zero SD is an error); two-sided, ties counted, exact enumeration "
        "up to 100,000 splits, else 100,000 seeded re-splits with p = (k+1)/(m+1)."
    ),
)

#: Preset name → convention (``LpbsConvention.of(name)`` looks one up).
LPBS_PRESETS = LpbsConvention.declare_presets(LPBS_KURITA, LPBS_MIND_YOUR_BIAS, LPBS_BIASLIB)


# --------------------------------------------------------------------------- scores


def _log_probs(values: ArrayLike, name: str, *, allow_zero: bool = False) -> NDArray[np.float64]:
    """Log probabilities as float64, refusing NaN, +inf, values > 0 and (unless allowed) -inf.

    Strings, ``None``, complex numbers and ragged lists are refused by name
    (:func:`~biaslib.validation.real_array`), not with numpy's cast error.
    """
    try:
        arr = real_array(values, name)
    except TypeError as err:
        raise TypeError(f"{err}: expected log probabilities (floats <= 0), e.g. from "
                        "MaskedLMScorer.log_probs, not words or sentences") from None
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if np.isnan(arr).any():
        raise ValueError(f"{name} holds NaN (first at index {_first(np.isnan(arr))})")
    too_big = arr > _LOG_P_SLACK
    if too_big.any():
        raise ValueError(f"{name} holds values above 0 (first {arr[too_big].flat[0]!r} at index "
                         f"{_first(too_big)}): log probabilities are <= 0")
    zero = np.isneginf(arr)
    if zero.any() and not allow_zero:
        raise ValueError(
            f"{name} holds log probability -inf (probability 0) at index {_first(zero)}: the "
            "log ratio would be log 0 - log 0 = NaN. A log-softmax never gives -inf; a zero "
            "probability comes from a word that was not scored (Mind Your Bias's case bug, "
            "myb_case_bug_lookup) or from an underflow in probability space "
            "(probability_space_scores)")
    return np.minimum(arr, 0.0)


def _float_dtype(dtype: object) -> np.dtype:
    """``dtype`` as a numpy floating dtype; any other is refused.

    Probabilities below 1 cast to an integer dtype become 0 (log: -inf, a silent
    wrong score), and a complex or object dtype is no arithmetic of the papers.
    """
    try:
        dt = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"dtype must be a numpy floating type (np.float32 as the papers' "
                        f"code, np.float64, np.float16), got {dtype!r}") from None
    if dt.kind != "f":
        raise TypeError(f"dtype must be a numpy floating type (np.float32 as the papers' code, "
                        f"np.float64, np.float16), got {dt}: probabilities in it would be "
                        "rounded to 0 or lose their meaning")
    return dt


def _first(mask: NDArray[np.bool_]) -> tuple[int, ...] | int:
    idx = np.argwhere(mask)[0]
    return int(idx[0]) if idx.size == 1 else tuple(int(i) for i in idx)


def increased_log_probability(log_p_target: ArrayLike, log_p_prior: ArrayLike
                              ) -> NDArray[np.float64]:
    r"""Kurita et al.'s association: :math:`\log p_t - \log p_p`, elementwise.

    Parameters
    ----------
    log_p_target
        :math:`\log P([\mathrm{MASK}] = t \mid \text{attribute filled})`.
    log_p_prior
        :math:`\log P([\mathrm{MASK}] = t \mid \text{attribute masked})`; broadcast
        against ``log_p_target`` (e.g. one prior per target word, shape ``(n,)``,
        against ``(n_attributes, n)``).

    Raises
    ------
    ValueError
        For NaN, values above 0, :math:`-\infty` (a probability of 0, for
        which the log ratio is undefined), or a ragged list.
    TypeError
        For anything but real numbers (words, sentences, ``None``, complex).

    Examples
    --------
    Probability 0.2 with the attribute, 0.05 without: the attribute makes the
    target :math:`\log 4` more likely.

    >>> import numpy as np
    >>> from biaslib.methods.lpbs import increased_log_probability
    >>> float(increased_log_probability(np.log(0.2), np.log(0.05)) / np.log(4))
    1.0
    """
    target = _log_probs(log_p_target, "log_p_target")
    prior = _log_probs(log_p_prior, "log_p_prior")
    return target - prior


def _as_2d(values: ArrayLike, name: str, allow_zero: bool) -> NDArray[np.float64]:
    arr = _log_probs(values, name, allow_zero=allow_zero)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected shape (n_attributes, n_targets), got {arr.shape}")
    return arr


def group_bias_scores(
    log_p_x: ArrayLike,
    log_p_y: ArrayLike,
    prior_x: ArrayLike,
    prior_y: ArrayLike,
) -> NDArray[np.float64]:
    r"""Eq. 10 for one template: one bias score per attribute word, in log space.

    .. math::

        \mathrm{bs}(w) = \big[\operatorname{LSE}_{x}\log p_x(w)
                          - \operatorname{LSE}_{x}\log p_{p,x}\big]
                       - \big[\operatorname{LSE}_{y}\log p_y(w)
                          - \operatorname{LSE}_{y}\log p_{p,y}\big]

    with :math:`\operatorname{LSE}` = :func:`scipy.special.logsumexp`, equal to
    :math:`\log\sum p` without forming the probabilities. With one target per
    group this is Kurita et al.'s
    :math:`\log\frac{p_x(w)}{p_{p,x}} - \log\frac{p_y(w)}{p_{p,y}}`.

    Parameters
    ----------
    log_p_x, log_p_y
        Log probabilities of the targets of X (Y) at the target mask with the
        attribute word filled in, shape ``(n_attributes, n_x)``
        (``(n_attributes, n_y)``).
    prior_x, prior_y
        Their log probabilities with the attribute masked too, ``(n_x,)``
        (``(n_y,)``): the prior does not depend on the attribute word.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_attributes,)``.

    Raises
    ------
    ValueError
        For mismatched shapes or log probabilities that are NaN, above 0 or
        :math:`-\infty` (see :func:`increased_log_probability`).

    Examples
    --------
    One attribute, two targets per group. With the attribute, the X targets
    have probabilities 0.1 and 0.3 and the Y targets 0.05 and 0.05; their
    priors are 0.2 + 0.2 and 0.1 + 0.1, so
    :math:`\mathrm{bs} = \log(0.4/0.4) - \log(0.1/0.2) = \log 2`.

    >>> import numpy as np
    >>> from biaslib.methods.lpbs import group_bias_scores
    >>> bs = group_bias_scores(np.log([[0.1, 0.3]]), np.log([[0.05, 0.05]]),
    ...                        np.log([0.2, 0.2]), np.log([0.1, 0.1]))
    >>> bool(np.isclose(bs[0], np.log(2)))
    True
    """
    lx, ly = _as_2d(log_p_x, "log_p_x", False), _as_2d(log_p_y, "log_p_y", False)
    px = _log_probs(prior_x, "prior_x").ravel()
    py = _log_probs(prior_y, "prior_y").ravel()
    if lx.shape[0] != ly.shape[0]:
        raise ValueError(f"log_p_x and log_p_y need one row per attribute word: "
                         f"{lx.shape[0]} vs {ly.shape[0]}")
    if lx.shape[1] != px.size or ly.shape[1] != py.size:
        raise ValueError(f"one prior per target: X {lx.shape[1]} targets / {px.size} priors, "
                         f"Y {ly.shape[1]} targets / {py.size} priors")
    return ((logsumexp(lx, axis=1) - logsumexp(px))
            - (logsumexp(ly, axis=1) - logsumexp(py)))


def probability_space_scores(
    log_p_x: ArrayLike,
    log_p_y: ArrayLike,
    prior_x: ArrayLike,
    prior_y: ArrayLike,
    *,
    dtype: type[np.floating] = np.float32,
) -> NDArray[np.float64]:
    r"""Eq. 10 as the papers compute it: probabilities in ``dtype``, summed, then logged.

    Both codes apply a numpy softmax to the model's float32 logits and take
    ``np.log(sum(p))``; a probability below the smallest ``dtype`` value
    becomes 0, its log :math:`-\infty`, and a group whose every probability
    underflows gives :math:`-\infty - (-\infty) = \mathrm{NaN}`. This replay
    returns those NaN and infinite values (numpy's warnings silenced) instead
    of refusing them; compare :func:`group_bias_scores`, which works in log
    space. Inputs as there; the log probabilities may be :math:`-\infty`.

    Raises
    ------
    TypeError
        If ``dtype`` is not a floating type (an integer dtype would round every
        probability to 0 and return :math:`-\infty`).
    """
    dtype = _float_dtype(dtype)
    lx, ly = _as_2d(log_p_x, "log_p_x", True), _as_2d(log_p_y, "log_p_y", True)
    px = _log_probs(prior_x, "prior_x", allow_zero=True).ravel()
    py = _log_probs(prior_y, "prior_y", allow_zero=True).ravel()
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        def log_sum(a: NDArray[np.float64], axis: int | None) -> NDArray[np.float64]:
            probs = np.exp(a).astype(dtype)
            return np.log(probs.sum(axis=axis, dtype=dtype)).astype(np.float64)

        return (log_sum(lx, 1) - log_sum(px, None)) - (log_sum(ly, 1) - log_sum(py, None))


def wordpiece_log_probability(
    piece_log_probs: ArrayLike,
    wordpieces: Wordpieces = "product",
    *,
    space: Literal["log", "probability"] = "log",
    dtype: type[np.floating] = np.float32,
) -> float:
    r"""The score of a word of several wordpieces at one mask, from its pieces' log probabilities.

    ``"first"``: the first wordpiece's (Kurita). ``"product"``: the product of
    the pieces' probabilities (Mind Your Bias) — in log space the sum of their
    log probabilities, in probability space (``space="probability"``, the
    papers' arithmetic in ``dtype``) ``np.log(np.prod(p))``, which is
    :math:`-\infty` once the product underflows (float32: below about
    :math:`10^{-45}`).

    Examples
    --------
    Four wordpieces of probability :math:`10^{-12}` each: their product,
    :math:`10^{-48}`, is below float32's range.

    >>> import numpy as np
    >>> from biaslib.methods.lpbs import wordpiece_log_probability
    >>> pieces = np.log([1e-12] * 4)
    >>> round(float(wordpiece_log_probability(pieces) / np.log(10)), 6)
    -48.0
    >>> wordpiece_log_probability(pieces, space="probability")
    -inf

    Raises
    ------
    ValueError
        For an unknown rule or space, NaN or positive log probabilities.
    TypeError
        If ``dtype`` is not a floating type.
    """
    dtype = _float_dtype(dtype)
    pieces = _log_probs(piece_log_probs, "piece_log_probs", allow_zero=True).ravel()
    if wordpieces not in WORDPIECES:
        raise ValueError(f"wordpieces must be one of {WORDPIECES}, got {wordpieces!r}")
    if space not in ("log", "probability"):
        raise ValueError(f"space must be 'log' or 'probability', got {space!r}")
    chosen = pieces[:1] if wordpieces == "first" else pieces
    if space == "log":
        return float(chosen.sum())
    with np.errstate(divide="ignore", under="ignore"):
        return float(np.log(np.prod(np.exp(chosen).astype(dtype), dtype=dtype)))


# --------------------------------------------------------------------------- effect size, test


def lpbs_effect_size(scores_a: ArrayLike, scores_b: ArrayLike, *, ddof: int = 1,
                     sd_epsilon: float = 0.0) -> float:
    r"""Eq. 11: :math:`(\bar s_A - \bar s_B) / (\operatorname{std}_{A \cup B} s + \epsilon)`.

    Parameters
    ----------
    scores_a, scores_b
        The units' scores (1-D).
    ddof
        Of the pooled standard deviation (pandas ``.std()``: 1).
    sd_epsilon
        Added to the SD (both codes: :math:`10^{-8}`).

    Raises
    ------
    DegenerateTestError
        If the pooled SD is 0 and ``sd_epsilon`` is 0.
    ValueError
        For empty or non-finite scores, or too few scores for ``ddof``.

    Examples
    --------
    >>> from biaslib.methods.lpbs import lpbs_effect_size
    >>> round(lpbs_effect_size([3.0, 4.0], [1.0, 2.0]), 6)  # (3.5 - 1.5) / std([3, 4, 1, 2])
    1.549193
    """
    a, b = _scores(scores_a, "scores_a"), _scores(scores_b, "scores_b")
    try:  # WEAT's effect size, Kurita's epsilon passed through
        return weat_effect_size(a, b, ddof, sd_epsilon=sd_epsilon)
    except DegenerateTestError:
        raise DegenerateTestError("all LPBS scores are equal (standard deviation 0)") from None


def _scores(values: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(f"{name} holds NaN or infinite scores (first at index "
                         f"{int(np.flatnonzero(bad)[0])}); LPBS refuses them — see "
                         "myb_reddit_statistics for what Mind Your Bias's code did with them")
    return arr


@dataclass(frozen=True)
class LpbsResult(ResultRecord):
    r"""Result of :func:`lpbs_test` (and :func:`lpbs`).

    Attributes
    ----------
    effect_size
        :math:`d` of Eq. 11.
    p_value
        Permutation p-value under the convention.
    n_a, n_b
        Number of units of A and B (rows, or attribute words).
    n_templates
        Templates the scores came from.
    mean_a, mean_b, sd
        The parts of :math:`d` (``sd`` before adding ``sd_epsilon``).
    convention
        The :class:`LpbsConvention` used.
    scores_a, scores_b
        The units' scores.
    permutation
        The permutation test's full result.

    It follows :class:`~biaslib.methods.result.BiasResult`: ``n`` is
    ``n_a + n_b`` (the units the permutation test re-splits), ``ci`` ``None``.
    """

    effect_size: float
    p_value: float
    n_a: int
    n_b: int
    n_templates: int
    mean_a: float
    mean_b: float
    sd: float
    convention: LpbsConvention
    scores_a: NDArray[np.float64] = field(repr=False)
    scores_b: NDArray[np.float64] = field(repr=False)
    permutation: PermutationResult = field(repr=False)

    @property
    def n(self) -> int:
        """Number of units tested (``n_a + n_b``)."""
        return self.n_a + self.n_b

    @property
    def method(self) -> str:
        """``"LPBS"``."""
        return "LPBS"

    def to_dict(self) -> dict[str, object]:
        """One flat record: d, p, the units and the convention's choices."""
        c = self.convention
        return {
            "effect_size": self.effect_size, "p_value": self.p_value,
            "n_a": self.n_a, "n_b": self.n_b, "n_templates": self.n_templates,
            "units": c.units, "mean_a": self.mean_a, "mean_b": self.mean_b, "sd": self.sd,
            "p_method": self.permutation.method, "n_resamples": self.permutation.n_resamples,
            "n_extreme": self.permutation.n_extreme, "convention": c.name,
        }

    def to_frame(self) -> pd.DataFrame:
        """A one-row :class:`pandas.DataFrame` of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])


def _units(scores: ArrayLike, name: str, units: str) -> tuple[NDArray[np.float64], int]:
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name}: expected shape (n_templates, n_attributes) or "
                         f"(n_attributes,), got {np.shape(scores)}")
    _scores(arr, name)
    return (arr.ravel() if units == "template" else arr.mean(axis=0)), arr.shape[0]


def lpbs_test(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    convention: LpbsConvention | str = LPBS_MIND_YOUR_BIAS,
) -> LpbsResult:
    r"""Effect size (Eq. 11) and permutation p-value of bias scores of A vs B.

    Parameters
    ----------
    scores_a, scores_b
        :math:`\mathrm{bs}` of the attribute words of A (B), shape
        ``(n_templates, n_a)`` — one row per template — or ``(n_a,)`` for one
        template (:func:`group_bias_scores` per template, stacked).
    convention
        :data:`LPBS_MIND_YOUR_BIAS` (default), :data:`LPBS_KURITA`,
        :data:`LPBS_BIASLIB`, a preset name, or a modified copy. Its ``units``
        decide what is permuted: rows (``"template"``) or attribute words
        (``"attribute"``: each word's mean over the templates).

    Raises
    ------
    ValueError
        For NaN or infinite scores (never a silent NaN), a different number of
        templates in A and B, or empty input.
    DegenerateTestError
        If all units' scores are equal, under every convention: the SD is 0,
        so :math:`d` is 0/0 (an epsilon would turn it into a meaningless 0),
        and every re-split ties the observed statistic (a strict count would
        give p = 0). Kurita's and Mind Your Bias's :math:`10^{-8}` keeps their
        codes from dividing by zero; it does not make such a test meaningful.

    Examples
    --------
    Two templates, three attribute words per set. Kurita's convention pools
    the six rows per set; the book's averages each word over the templates
    and enumerates the :math:`\binom{6}{3} = 20` splits of the words exactly.

    >>> import numpy as np
    >>> from biaslib.methods.lpbs import LPBS_BIASLIB, LPBS_KURITA, lpbs_test
    >>> a = np.array([[1.0, 1.2, 0.9], [0.8, 1.1, 1.0]])
    >>> b = np.array([[0.1, -0.2, 0.0], [0.2, 0.1, -0.1]])
    >>> r = lpbs_test(a, b, convention=LPBS_KURITA.replace(n_resamples=1_000))
    >>> r.n_a, r.n_b, r.permutation.method
    (6, 6, 'sampled')
    >>> r = lpbs_test(a, b, convention=LPBS_BIASLIB)
    >>> r.n_a, r.permutation.method, r.permutation.n_resamples, r.p_value
    (3, 'exact', 20, 0.1)
    """
    conv = LpbsConvention.of(convention)
    ua, ka = _units(scores_a, "scores_a", conv.units)
    ub, kb = _units(scores_b, "scores_b", conv.units)
    if ka != kb:
        raise ValueError(f"scores_a has {ka} templates, scores_b {kb}: each template scores "
                         "both attribute sets")
    pooled = np.concatenate([ua, ub])
    if np.all(pooled == pooled[0]):
        raise DegenerateTestError(
            f"all {pooled.size} LPBS scores equal {float(pooled[0])!r} (standard deviation 0): the "
            "effect size is 0/0 and every permutation ties, under any convention. The attribute "
            "words make no difference to the targets' probabilities — check that A and B (and "
            "X and Y) differ")
    d = lpbs_effect_size(ua, ub, ddof=conv.ddof, sd_epsilon=conv.sd_epsilon)
    perm = resampled_test(ua, ub, conv.resampling, statistic="mean", replacement=False)
    return LpbsResult(
        effect_size=d, p_value=perm.p_value, n_a=int(ua.size), n_b=int(ub.size),
        n_templates=ka, mean_a=float(ua.mean()), mean_b=float(ub.mean()),
        sd=float(np.concatenate([ua, ub]).std(ddof=conv.ddof)), convention=conv,
        scores_a=ua, scores_b=ub, permutation=perm)


@dataclass(frozen=True)
class TemplateLogProbs:
    r"""The model's log probabilities for one template of an LPBS test.

    Attributes
    ----------
    template
        The template (for messages and tables), e.g. ``"TTT likes AAA."``.
    a, b
        Log probabilities of the targets at the target mask with each attribute
        word of A (B) filled in: shape ``(n_a, n_x + n_y)`` (``(n_b, …)``), X's
        targets first.
    prior
        Their log probabilities with the attribute masked too, ``(n_x + n_y,)``.
    n_x
        How many of the columns are X's targets.
    """

    template: str
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    prior: NDArray[np.float64]
    n_x: int

    def __post_init__(self) -> None:
        n_x = check_int(self.n_x, "n_x", minimum=1)
        arrays = {k: np.asarray(getattr(self, k), dtype=np.float64) for k in ("a", "b", "prior")}
        width = arrays["prior"].size
        if arrays["prior"].ndim != 1 or width <= n_x:
            raise ValueError(f"{self.template!r}: prior must be 1-D with more than n_x={n_x} "
                             f"targets (X then Y), got shape {arrays['prior'].shape}")
        for k in ("a", "b"):
            if arrays[k].ndim != 2 or arrays[k].shape[1] != width or not arrays[k].shape[0]:
                raise ValueError(f"{self.template!r}: {k} must have shape (n_{k}, {width}), "
                                 f"got {arrays[k].shape}")
        for k, v in arrays.items():
            object.__setattr__(self, k, v)

    def scores(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """:func:`group_bias_scores` of A's and B's attribute words."""
        n, p = self.n_x, self.prior
        try:
            return tuple(group_bias_scores(m[:, :n], m[:, n:], p[:n], p[n:])  # type: ignore
                         for m in (self.a, self.b))
        except ValueError as err:
            raise ValueError(f"template {self.template!r}: {err}") from None


def lpbs(
    templates: Sequence[TemplateLogProbs],
    *,
    convention: LpbsConvention | str = LPBS_MIND_YOUR_BIAS,
) -> LpbsResult:
    r"""LPBS of one test from the model's log probabilities, template by template.

    Each template's rows become Eq. 10 scores (:func:`group_bias_scores`); the
    templates are stacked and tested (:func:`lpbs_test`). Templates may have
    different target words (Mind Your Bias pairs singular templates with
    singular targets and plural ones with plural targets) but must share the
    attribute words.

    Raises
    ------
    ValueError
        For no templates, templates with different numbers of attribute words,
        or log probabilities that are NaN, above 0 or :math:`-\infty`.

    Examples
    --------
    >>> import numpy as np
    >>> from biaslib.methods.lpbs import LPBS_BIASLIB, TemplateLogProbs, lpbs
    >>> t = TemplateLogProbs("TTT is AAA.", a=np.log([[0.4, 0.1], [0.5, 0.1], [0.3, 0.1]]),
    ...                      b=np.log([[0.1, 0.4], [0.2, 0.3], [0.1, 0.5]]),
    ...                      prior=np.log([0.2, 0.2]), n_x=1)
    >>> r = lpbs([t], convention=LPBS_BIASLIB)
    >>> r.n_a, r.n_templates, r.effect_size > 0
    (3, 1, True)
    """
    templates = list(templates)
    if not templates:
        raise ValueError("no templates")
    for t in templates:
        if not isinstance(t, TemplateLogProbs):
            raise TypeError(f"expected TemplateLogProbs, got {type(t).__name__}")
    sizes = {(t.a.shape[0], t.b.shape[0]) for t in templates}
    if len(sizes) != 1:
        raise ValueError(f"templates score different numbers of attribute words: {sorted(sizes)}")
    parts = [t.scores() for t in templates]
    return lpbs_test(np.stack([a for a, _ in parts]), np.stack([b for _, b in parts]),
                     convention=convention)


# --------------------------------------------------------------------------- replays of bugs


def myb_case_bug_lookup(
    probabilities: Mapping[str, float], words: Sequence[str]
) -> NDArray[np.float64]:
    r"""Mind Your Bias's Reddit scripts reading target probabilities back: the case bug.

    ``bert_logits`` in ``methods/LPBS/generate_ebd_bert.py`` and
    ``methods/CEAT/generate_ebd_bert_prob.py`` builds
    ``result = {targ1_wd: float(), targ2_wd: float()}`` (zeros under the
    words as spelled), then stores each probability under
    ``targ_wd.lower()``; ``bias_score`` reads ``logits_tgt[targ1_wd]`` under
    the original spelling. A lower-case word finds its probability; a
    capitalised one (every name) finds the ``float()`` zero, so
    :math:`\log 0 - \log 0 = -\infty - (-\infty) = \mathrm{NaN}`.

    Parameters
    ----------
    probabilities
        The probabilities the model gave, keyed by the **lower-cased** word (as
        the scripts stored them).
    words
        The target words as the test spells them.

    Returns
    -------
    numpy.ndarray
        What the scripts read: the probability, or 0.0 for a word with an
        upper-case letter.

    Examples
    --------
    >>> from biaslib.methods.lpbs import myb_case_bug_lookup
    >>> myb_case_bug_lookup({"adam": 0.01, "flower": 0.02}, ["Adam", "flower"]).tolist()
    [0.0, 0.02]
    """
    stored: dict[str, float] = {w: 0.0 for w in words}  # result = {w: float() for w in ...}
    for w in words:
        stored[w.lower()] = float(probabilities[w.lower()])
    return np.array([stored[w] for w in words], dtype=np.float64)


def myb_reddit_statistics(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    resampling: Resampling = LPBS_MIND_YOUR_BIAS.resampling,
) -> tuple[float, float, int, int]:
    r"""Effect size and p-value as Mind Your Bias's Reddit LPBS script computes them, NaN included.

    ``logprob_cal`` in ``methods/LPBS/generate_ebd_bert.py``: rows with
    :math:`\pm\infty` become NaN and every row with a NaN is dropped
    (``replace([inf, -inf], nan).dropna()``); then
    :math:`d = (\bar s_A - \bar s_B) / (\operatorname{std}(\text{ddof}=1) + 10^{-8})`
    — the mean of an empty column is NaN — and ``exact_perm_test``:
    :math:`s = |\bar s_A - \bar s_B|`, ``k += s < |T_i|`` over the shuffles,
    :math:`p = k/m`. With :math:`s` = NaN every comparison is False, so
    :math:`k = 0` and **p = 0.0** — the "0.0000" beside the NaN effect sizes of
    the authors' result file. Reproduced on purpose; :func:`lpbs_test` refuses
    NaN instead.

    Parameters
    ----------
    scores_a, scores_b
        The scores of the sentences with attribute words of A and of B.
    resampling
        The permutation test's options (:class:`~biaslib.stats.resampling.Resampling`):
        by default their script's, :data:`LPBS_MIND_YOUR_BIAS`'s (two-sided, strict
        ``<``, no +1, never exact, 100,000 shuffles; our seed). Change the number of
        shuffles or the seed with ``LPBS_MIND_YOUR_BIAS.resampling.replace(…)``. With a
        NaN statistic :math:`p = 0` whatever the options: no comparison with NaN counts.

    Returns
    -------
    effect_size, p_value, n_a, n_b
        ``n_a``, ``n_b``: rows left after the drop.

    Raises
    ------
    TypeError
        If ``resampling`` is not a :class:`~biaslib.stats.resampling.Resampling`.
    """
    if not isinstance(resampling, Resampling):
        raise TypeError(f"resampling must be a Resampling (e.g. LPBS_MIND_YOUR_BIAS.resampling"
                        f".replace(n_resamples=1_000)), got {type(resampling).__name__}")
    a = np.asarray(scores_a, dtype=np.float64).ravel()
    b = np.asarray(scores_b, dtype=np.float64).ravel()
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]  # replace(+-inf, nan).dropna()
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = np.concatenate([a, b])
        mean_a = a.mean() if a.size else np.nan
        mean_b = b.mean() if b.size else np.nan
        sd = pooled.std(ddof=1) if pooled.size > 1 else np.nan
        d = float((mean_a - mean_b) / (sd + 1e-8))
        observed = abs(mean_a - mean_b)
    if np.isnan(observed):
        # Every shuffle of an empty (or NaN) column has a NaN mean difference too, and
        # `NaN < x` is False for any x: k stays 0.
        null = np.full(resampling.n_resamples, np.nan)
        with np.errstate(invalid="ignore"):
            k = int(np.count_nonzero(observed < np.abs(null)))
        return d, k / resampling.n_resamples, int(a.size), int(b.size)
    perm = resampled_test(a, b, resampling)
    return d, perm.p_value, int(a.size), int(b.size)


# --------------------------------------------------------------------------- natural sentences


def draw_counterparts(
    targets: Sequence[str],
    x_words: Sequence[str],
    y_words: Sequence[str],
    seed: int | Sequence[int] | None = 1111,
) -> tuple[list[str], list[str]]:
    r"""The (X word, Y word) pair each sentence is scored with: its target and a random counterpart.

    ``bias_score`` in Mind Your Bias's ``methods/CEAT/generate_ebd_bert_prob.py``
    keeps the sentence's target on its side and draws the other side with
    ``random.choice`` from the whole other target list (words without
    sentences included). Here the draws come from
    ``numpy.random.default_rng(seed)``, one per sentence in order (theirs:
    Python's ``random`` seeded 1111 at import, a different stream).

    Parameters
    ----------
    targets
        The target word of each sentence (each in ``x_words`` or ``y_words``).
    x_words, y_words
        The two target sets.
    seed
        Seed (or seed sequence) of the generator.

    Returns
    -------
    x, y
        One X word and one Y word per sentence.

    Raises
    ------
    ValueError
        For a target in neither set or in both, an empty set, or a negative seed.
    TypeError
        For a seed that is not None, an int or a sequence of ints (``"x"``, ``1.5``).

    Examples
    --------
    A set of one word leaves nothing to draw:

    >>> from biaslib.methods.lpbs import draw_counterparts
    >>> draw_counterparts(["he", "she"], ["he"], ["she"])
    (['he', 'he'], ['she', 'she'])
    """
    seed = _check_seed(seed)
    xs, ys = list(x_words), list(y_words)
    if not xs or not ys:
        raise ValueError("both target sets need at least one word")
    both = sorted(set(xs) & set(ys))
    if both:
        raise ValueError(f"words in both target sets: {both}")
    in_x, in_y = set(xs), set(ys)
    rng = np.random.default_rng(seed)
    out_x, out_y = [], []
    for t in targets:
        if t in in_x:
            out_x.append(t)
            out_y.append(ys[int(rng.integers(len(ys)))])
        elif t in in_y:
            out_x.append(xs[int(rng.integers(len(xs)))])
            out_y.append(t)
        else:
            raise ValueError(f"target {t!r} is in neither target set")
    return out_x, out_y


def _check_seed(seed: object) -> int | list[int] | None:
    """A seed for :func:`numpy.random.default_rng`: None, an int >= 0, or a sequence of them."""
    if seed is None or (isinstance(seed, Integral) and not isinstance(seed, bool)):
        return check_seed(seed)
    if isinstance(seed, str | bytes) or not isinstance(seed, Sequence):
        raise TypeError(f"seed must be None, an int >= 0 or a sequence of such ints, "
                        f"got {seed!r} ({type(seed).__name__})")
    return [check_seed(s, "seed") for s in seed]  # type: ignore[misc]


def pair_bias_scores(
    log_p_x: ArrayLike,
    log_p_y: ArrayLike,
    prior_x: ArrayLike,
    prior_y: ArrayLike,
    *,
    x_words: Sequence[str] | None = None,
    y_words: Sequence[str] | None = None,
    case_bug: bool = False,
) -> NDArray[np.float64]:
    r"""One LPBS per sentence: :math:`[\log p_x - \log p_y] - [\log p_{p,x} - \log p_{p,y}]`.

    Mind Your Bias, ``methods/CEAT/generate_ebd_bert_prob.py``, ``bias_score``:
    ``bias`` (attribute present) minus ``prior_correction`` (attribute
    masked), always X's word minus Y's — whichever of the two the sentence
    holds. In log space (:func:`increased_log_probability`'s checks: NaN,
    values above 0 and :math:`-\infty` are refused).

    Parameters
    ----------
    log_p_x, log_p_y
        Log probabilities of each sentence's X word and Y word at its target
        mask, attribute present, shape ``(n,)``.
    prior_x, prior_y
        The same with the attribute masked too.
    x_words, y_words
        The words (needed for ``case_bug``).
    case_bug
        ``True`` replays their script (:func:`myb_case_bug_lookup`):
        probabilities stored under the lower-cased word and read back under
        the spelling of the test, so a capitalised word reads probability 0,
        :math:`\log 0 = -\infty`, and the row's score is
        :math:`\pm\infty - (\pm\infty) = \mathrm{NaN}` — returned as NaN for
        the caller to drop as their ``dropna()`` does (:func:`lpbs_ceat` with
        ``drop_nan=True``). Default ``False``: the fixed score.

    Examples
    --------
    >>> import numpy as np
    >>> from biaslib.methods.lpbs import pair_bias_scores
    >>> bs = pair_bias_scores(np.log([0.4]), np.log([0.1]), np.log([0.2]), np.log([0.2]))
    >>> bool(np.isclose(bs[0], np.log(4)))
    True
    >>> pair_bias_scores(np.log([0.4, 0.4]), np.log([0.1, 0.1]), np.log([0.2, 0.2]),
    ...                  np.log([0.2, 0.2]), x_words=["Adam", "rose"],
    ...                  y_words=["Ebony", "ant"], case_bug=True).round(4).tolist()
    [nan, 1.3863]
    """
    arrays = [np.ravel(_log_probs(v, name)) for v, name in (
        (log_p_x, "log_p_x"), (log_p_y, "log_p_y"), (prior_x, "prior_x"), (prior_y, "prior_y"))]
    if len({a.size for a in arrays}) != 1:
        raise ValueError(f"one value per sentence in each array, got sizes "
                         f"{[a.size for a in arrays]}")
    lx, ly, px, py = arrays
    if not case_bug:
        return (lx - ly) - (px - py)
    if x_words is None or y_words is None or not len(x_words) == len(y_words) == lx.size:
        raise ValueError("case_bug=True needs the X and Y word of every sentence")
    out = np.empty(lx.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i, (x, y) in enumerate(zip(x_words, y_words, strict=True)):
            read = [np.log(myb_case_bug_lookup({x.lower(): np.exp(a), y.lower(): np.exp(b)},
                                               [x, y]))
                    for a, b in ((lx[i], ly[i]), (px[i], py[i]))]
            bias, prior = (r[0] - r[1] for r in read)
            out[i] = bias - prior
    out[~np.isfinite(out)] = np.nan  # replace([inf, -inf], nan)
    return out


@dataclass(frozen=True)
class LpbsCeatResult(CombinedEffectResult):
    r"""Result of :func:`lpbs_ceat`: per-sentence LPBS combined as CEAT.

    Attributes
    ----------
    meta
        The random-effects combination (``meta.ces``, ``meta.p_value``…).
    convention
        The CEAT convention (:math:`N`, sampling rule, tail, seed, ddof).
    sd_epsilon
        Added to each sample's SD (their code: :math:`10^{-8}`).
    words_a, words_b
        Attribute words with at least one scored sentence, in the test's order.
    missing_a, missing_b
        Attribute words without one (left out of every sample, as their
        ``get_sample_idxs`` leaves them out).
    n_sentences
        Scored sentences per word of ``words_a + words_b``.
    rows, rows_kept
        Sentences given, and kept (NaN rows dropped with ``drop_nan``).
    effect_sizes, variances
        The :math:`N` per-sample :math:`d_i` and :math:`v_i`.

    It follows :class:`~biaslib.methods.result.BiasResult` as a CEAT does:
    ``effect_size`` is the CES, ``n`` the samples :math:`N`, ``ci`` the
    meta-analysis' 95% interval, ``convention_name`` the CEAT convention's.
    """

    meta: MetaAnalysis
    convention: CeatConvention
    sd_epsilon: float
    words_a: tuple[str, ...]
    words_b: tuple[str, ...]
    missing_a: tuple[str, ...]
    missing_b: tuple[str, ...]
    n_sentences: tuple[int, ...]
    rows: int
    rows_kept: int
    effect_sizes: NDArray[np.float64] = field(repr=False)
    variances: NDArray[np.float64] = field(repr=False)

    @property
    def method(self) -> str:
        """``"LPBS-CEAT"``: LPBS per sentence, combined as CEAT."""
        return "LPBS-CEAT"

    def to_dict(self) -> dict[str, object]:
        """One flat record: CES, SE, p, τ², the words and sentences used, :math:`N`."""
        m = self.meta
        return {"ces": m.ces, "se": m.se, "p_value": m.p_value, "tau2": m.tau2,
                "mean_d": float(self.effect_sizes.mean()),
                "attributes_used": f"{len(self.words_a)}/{len(self.words_b)}",
                "rows": self.rows, "rows_kept": self.rows_kept,
                "n_samples": m.n, "tail": m.tail, "ceat_convention": self.convention.name}


def lpbs_ceat(
    scores: ArrayLike,
    attributes: Sequence[str],
    words_a: Sequence[str],
    words_b: Sequence[str],
    *,
    convention: CeatConvention | str = CEAT_MIND_YOUR_BIAS,
    sd_epsilon: float = 1e-8,
    min_words: int = 2,
    drop_nan: bool = False,
) -> LpbsCeatResult:
    r"""Per-sentence LPBS scores combined as CEAT (Mind Your Bias, Table 14, "probability").

    ``ceat_meta`` in ``methods/CEAT/generate_ebd_bert_prob.py``: in each of
    :math:`N` samples, one sentence of every attribute word
    (:func:`biaslib.methods.ceat.sample_indices` under the convention's rule;
    Mind Your Bias: without replacement when a word has at least :math:`N`
    sentences, with replacement otherwise — their ``get_sample_idxs``), then

    .. math::

        d_i = \frac{\bar s_{A,i} - \bar s_{B,i}}{\mathrm{sd}_i + \epsilon}, \qquad
        v_i = (\mathrm{sd}_i + \epsilon)^2,

    :math:`\mathrm{sd}_i` the standard deviation (``ddof`` of the convention;
    pandas: 1) of the sample's scores over :math:`A \cup B`, :math:`\epsilon`
    = ``sd_epsilon`` (theirs :math:`10^{-8}`); the :math:`(d_i, v_i)` are
    combined by :func:`biaslib.stats.meta_analysis.random_effects`
    (DerSimonian–Laird, two-sided :math:`p` for Mind Your Bias).

    Parameters
    ----------
    scores
        One score per sentence (:func:`pair_bias_scores`).
    attributes
        The attribute word of each sentence.
    words_a, words_b
        The test's attribute sets, in order (the order of the draws).
    convention
        :data:`~biaslib.methods.ceat.CEAT_MIND_YOUR_BIAS` (default: :math:`N` =
        10,000, seed 1111) or another CEAT convention.
    sd_epsilon
        :math:`\epsilon` (0 refuses a sample whose scores are all equal).
    min_words
        Each attribute set needs at least this many words with a sentence;
        fewer raise :class:`~biaslib.errors.MissingWordsError` (their code
        returned NaN, or a number from a single word).
    drop_nan
        Drop NaN scores first and count them (``rows_kept``), as their
        ``replace([inf, -inf], nan).dropna()``; default: NaN is refused.

    Raises
    ------
    MissingWordsError
        Fewer than ``min_words`` attribute words of A or B have a sentence.
    DegenerateTestError
        A sample's scores are all equal and ``sd_epsilon`` is 0.
    ValueError
        For mismatched lengths, NaN (without ``drop_nan``) or infinite scores,
        or an attribute in neither set.

    Examples
    --------
    Two attribute words per set, a few sentences each; A's scores are higher:

    >>> from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS
    >>> from biaslib.methods.lpbs import lpbs_ceat
    >>> r = lpbs_ceat([1.0, 1.2, 0.8, 0.9, -0.1, 0.2, 0.0, 0.1],
    ...               ["love", "love", "peace", "peace", "hate", "hate", "war", "war"],
    ...               ["love", "peace"], ["hate", "war"],
    ...               convention=CEAT_MIND_YOUR_BIAS.replace(n_samples=1_000))
    >>> r.meta.n, r.ces > 0, r.p_value < 0.01
    (1000, True, True)
    """
    conv = CeatConvention.of(convention)
    min_words = check_int(min_words, "min_words", minimum=1)
    if isinstance(sd_epsilon, bool) or not (np.isfinite(sd_epsilon) and sd_epsilon >= 0):
        raise ValueError(f"sd_epsilon must be finite and >= 0, got {sd_epsilon!r}")
    s = np.asarray(scores, dtype=np.float64).ravel()
    attrs = list(attributes)
    if len(attrs) != s.size:
        raise ValueError(f"{s.size} scores but {len(attrs)} attribute words")
    a_words, b_words = list(dict.fromkeys(words_a)), list(dict.fromkeys(words_b))
    shared = sorted(set(a_words) & set(b_words))
    if shared:
        raise ValueError(f"attribute words in both sets: {shared}")
    unknown = sorted(set(attrs) - set(a_words) - set(b_words))
    if unknown:
        raise ValueError(f"attributes in neither set: {unknown[:5]}")
    if np.isinf(s).any():
        raise ValueError("infinite scores; pair_bias_scores gives NaN for the replayed bug")
    nan = np.isnan(s)
    if nan.any() and not drop_nan:
        raise ValueError(f"{int(nan.sum())} NaN scores (first at index "
                         f"{int(np.flatnonzero(nan)[0])}); pass drop_nan=True to drop them as "
                         "Mind Your Bias's dropna() did")
    keep = ~nan
    by_word: dict[str, list[float]] = {}
    for value, word in zip(s[keep], (a for a, k in zip(attrs, keep, strict=True) if k),
                           strict=True):
        by_word.setdefault(word, []).append(float(value))
    used_a = tuple(w for w in a_words if w in by_word)
    used_b = tuple(w for w in b_words if w in by_word)
    short = [f"{name}: {len(used)} of {len(words)} attribute words have a sentence"
             for name, used, words in (("A", used_a, a_words), ("B", used_b, b_words))
             if len(used) < min_words]
    if short:
        raise MissingWordsError(f"too few co-occurrences for LPBS as CEAT (at least {min_words} "
                                "attribute words per set needed): " + "; ".join(short))
    words = (*used_a, *used_b)
    counts = [len(by_word[w]) for w in words]
    flat = np.concatenate([np.asarray(by_word[w]) for w in words])
    offsets = np.cumsum([0, *counts[:-1]])
    rng = np.random.default_rng(conv.seed)
    idx = sample_indices(counts, conv.n_samples, conv.replacement, rng)
    drawn = flat[offsets[None, :] + idx]
    effects, variances = row_effect_sizes(drawn, len(used_a), conv.ddof,
                                          sd_epsilon=sd_epsilon, what="LPBS scores")
    meta = random_effects(effects, variances, conv.tail)
    return LpbsCeatResult(
        meta=meta, convention=conv, sd_epsilon=float(sd_epsilon), words_a=used_a,
        words_b=used_b, missing_a=tuple(w for w in a_words if w not in by_word),
        missing_b=tuple(w for w in b_words if w not in by_word), n_sentences=tuple(counts),
        rows=int(s.size), rows_kept=int(keep.sum()), effect_sizes=effects, variances=variances)
