r"""CEAT: the Contextualized Embedding Association Test (Guo & Caliskan, 2021).

A stimulus has a different contextual vector in every sentence it occurs in.
CEAT therefore does not run one WEAT but many: in each of :math:`N` samples it
draws **one** context vector for every word of the four sets :math:`X, Y, A,
B`, computes the WEAT effect size of that sample,

.. math::

    d_i = \frac{\operatorname{mean}_{x \in X} s_i(x, A, B)
               - \operatorname{mean}_{y \in Y} s_i(y, A, B)}
              {\operatorname{std}_{w \in X \cup Y}\, s_i(w, A, B)},
    \qquad
    v_i = \operatorname{var}_{w \in X \cup Y}\, s_i(w, A, B),

(:func:`biaslib.methods.weat.effect_size` on the sample's vectors; both with
``ddof = 1``, so :math:`v_i` is the square of the effect size's denominator —
CEAT's ``var = std_dev**2``), and combines the :math:`N` effect sizes with the
DerSimonian–Laird random-effects model
(:func:`biaslib.stats.meta_analysis.random_effects`):

.. math::

    \begin{aligned}
    w_i &= 1 / v_i, \qquad
    Q = \sum_i w_i d_i^2 - \frac{(\sum_i w_i d_i)^2}{\sum_i w_i}, \\
    \mathit{df} &= N - 1, \qquad
    c = \sum_i w_i - \frac{\sum_i w_i^2}{\sum_i w_i}, \\
    \tau^2 &= \max\!\left(0, \frac{Q - \mathit{df}}{c}\right), \qquad
    w_i^* = \frac{1}{v_i + \tau^2}, \\
    \mathrm{CES} &= \frac{\sum_i w_i^* d_i}{\sum_i w_i^*}, \qquad
    \mathrm{SE} = \sqrt{1 / \textstyle\sum_i w_i^*}, \\
    z &= \mathrm{CES} / \mathrm{SE}, \qquad
    p_{\text{one-sided}} = 1 - \Phi(z), \qquad
    p_{\text{two-sided}} = 2\,(1 - \Phi(|z|)).
    \end{aligned}

The original code (``weiguowilliam/CEAT``, ``code/ceat.py``) reports the
one-sided p-value; Mind Your Bias (``SilkeHusse/Re-Evaluating-Bias``) the
two-sided one, and its "weighted SD" column is the weighted variance of the
:math:`d_i` (:attr:`~biaslib.stats.meta_analysis.MetaAnalysis.weighted_variance`).

Two presets reproduce the two implementations (:data:`CEAT_ORIGINAL`,
:data:`CEAT_MIND_YOUR_BIAS`); everything else is a parameter. Arrays in, a
frozen result out: no torch here. Contexts are embedded by
:func:`biaslib.evaluate.ceat.embed_word_contexts`; the chapter's grid of tests,
models and contexts is in ``biasbook.ceat``.

Vectorisation
-------------
The association of a target vector :math:`t` with the sampled attribute vectors
is linear in the unit vectors: :math:`s(t, A, B) = \hat t \cdot (\bar{\hat a} -
\bar{\hat b})`, where :math:`\bar{\hat a}` is the mean of the sample's *unit*
attribute vectors. So each sample needs one mean direction
:math:`m_i = \bar{\hat a}_i - \bar{\hat b}_i` (a sparse averaging matrix times
the attribute vectors) and one dot product per target word (an ``einsum`` over
the gathered target vectors), computed in chunks of samples, instead of
:math:`N` Python-level WEATs. Dot products are taken in float32 (the precision
the encoders return) unless asked otherwise; the statistics in float64.
:func:`sample_effect_sizes_loop` is the plain per-sample loop over
:func:`biaslib.methods.weat.effect_size`, kept as the reference the vectorised code is
tested and benchmarked against.

References
----------
Guo, W. & Caliskan, A. (2021). Detecting Emergent Intersectional Biases:
Contextualized Word Embeddings Contain a Distribution of Human-like Biases.
AIES 2021.
DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical trials.
Controlled Clinical Trials 7(3), 177–188.
Borenstein, M., Hedges, L. V., Higgins, J. P. T. & Rothstein, H. R. (2009).
Introduction to Meta-Analysis, ch. 12 (the random-effects computations).
Mind Your Bias: A Critical Review of Bias Detection Methods for Contextual
Language Models (App. A, Eq. 6–7; App. B.5).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

from biaslib.errors import DegenerateTestError, MissingWordsError, warn_dropped
from biaslib.methods.result import ResultRecord
from biaslib.methods.weat import association, effect_size
from biaslib.stats.conventions import ConventionBase
from biaslib.stats.meta_analysis import META_TAILS, MetaAnalysis, MetaTail, random_effects
from biaslib.stats.sets import ROLES
from biaslib.stats.similarity import unit_rows
from biaslib.validation import check_ddof, check_int, check_seed

__all__ = [
    "CEAT_MIND_YOUR_BIAS",
    "CEAT_ORIGINAL",
    "CEAT_PRESETS",
    "CeatConvention",
    "CeatResult",
    "CombinedEffectResult",
    "ceat",
    "missing_policy",
    "row_effect_sizes",
    "sample_effect_sizes",
    "sample_effect_sizes_loop",
    "sample_indices",
]

logger = logging.getLogger(__name__)

Replacement = Literal["always", "if_fewer", "never"]
_REPLACEMENTS = ("always", "if_fewer", "never")


# --------------------------------------------------------------------------- conventions


@dataclass(frozen=True)
class CeatConvention(ConventionBase):
    r"""Every choice that changes a CEAT result.

    CEAT holds no :class:`~biaslib.stats.resampling.Resampling`: it draws no
    permutations. Its randomness is which context stands for each word in
    each of :math:`N` samples (``n_samples``, ``replacement``, ``seed``), and its
    p-value is the normal tail of the random-effects combined effect size
    (``tail``), not a count of re-splits; its ``replacement`` is a three-way
    policy per word, not the with/without switch of a permutation test.

    Attributes
    ----------
    name
        Short identifier.
    n_samples
        Number of samples :math:`N` (effect sizes combined).
    replacement
        How each word's context is drawn across the :math:`N` samples:
        ``"always"`` independently and uniformly in every sample (with
        replacement; the original), ``"if_fewer"`` a uniform draw of
        :math:`N` distinct contexts when the word has at least :math:`N`, with
        replacement otherwise (Mind Your Bias), ``"never"`` distinct contexts
        only (refuses words with fewer than :math:`N`).
    tail
        ``"greater"`` (one-sided, :math:`1-\Phi(z)`) or ``"two-sided"``.
    seed
        Seed of :func:`numpy.random.default_rng` for the context draws.
    ddof
        Delta degrees of freedom of the per-sample standard deviation and
        variance (1 in both implementations).
    description
        Where the convention comes from.
    """

    kind: ClassVar[str] = "CEAT convention"

    n_samples: int = 10_000
    replacement: Replacement = "if_fewer"
    tail: MetaTail = "two-sided"
    seed: int | None = 1111
    ddof: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int(self.n_samples, "n_samples (CEAT's N)", minimum=2)
        check_seed(self.seed)
        if self.replacement not in _REPLACEMENTS:
            raise ValueError(f"replacement must be one of {_REPLACEMENTS}")
        if self.tail not in META_TAILS:
            raise ValueError(f"tail must be one of {META_TAILS}")
        # numpy ints are accepted and stored as Python ones (frozen: set through object).
        object.__setattr__(self, "ddof", check_ddof(self.ddof))


#: Guo & Caliskan's code (weiguowilliam/CEAT, code/ceat.py, ``ceat_meta``): one context per
#: word drawn with replacement in every sample, one-sided p-value. Its function default is
#: N = 10,000, but the script's ``__main__`` calls it with N = 1,000 — which is what ran.
#: The original is unseeded (``np.random``); the preset is seeded for reproducibility.
CEAT_ORIGINAL = CeatConvention(
    name="ceat-original", n_samples=1_000, replacement="always", tail="greater", seed=1111,
    description="Guo & Caliskan (2021) code: N=1,000 as its script ran (function default "
                "10,000), contexts drawn with replacement, one-sided p; original unseeded",
)
#: Mind Your Bias (SilkeHusse/Re-Evaluating-Bias, ``ceat_meta``): N = 10,000; per word, N
#: distinct contexts when it has at least N, otherwise N draws with replacement
#: (``random.sample`` / ``random.choices``, ``random.seed(1111)``); two-sided p-value.
CEAT_MIND_YOUR_BIAS = CeatConvention(
    name="mind-your-bias", n_samples=10_000, replacement="if_fewer", tail="two-sided",
    seed=1111,
    description="Mind Your Bias: N=10,000, without replacement when a word has >= N "
                "contexts, two-sided p, seed 1111",
)
#: Preset name → convention (``CeatConvention.of(name)`` looks one up).
CEAT_PRESETS = CeatConvention.declare_presets(CEAT_ORIGINAL, CEAT_MIND_YOUR_BIAS)


# --------------------------------------------------------------------------- sampling


def sample_indices(
    counts: Sequence[int], n_samples: int, replacement: Replacement, rng: np.random.Generator
) -> NDArray[np.intp]:
    """Which context of each word every sample uses, shape ``(n_samples, len(counts))``.

    Parameters
    ----------
    counts
        Number of contexts of each word (all positive).
    n_samples
        :math:`N`.
    replacement
        ``"always"``: every entry uniform on ``range(count)``, independently
        (CEAT's ``np.random.randint`` per sample); ``"if_fewer"``: a word with
        at least :math:`N` contexts gets :math:`N` distinct ones in random
        order, a word with fewer gets :math:`N` independent draws (Mind Your
        Bias); ``"never"``: distinct contexts for every word (raises if a
        word has fewer than :math:`N`).
    rng
        The generator; draws are made word by word in the order given, so the
        result is reproducible from a seed.
    """
    counts = np.asarray(counts, dtype=np.int64)
    if counts.ndim != 1 or (counts < 1).any():
        raise ValueError("every word needs at least one context")
    if replacement == "always":
        return rng.integers(0, counts, size=(n_samples, counts.size))
    if replacement not in _REPLACEMENTS:
        raise ValueError(f"replacement must be one of {_REPLACEMENTS}")
    out = np.empty((n_samples, counts.size), dtype=np.int64)
    for j, n in enumerate(counts):
        if n >= n_samples:
            out[:, j] = rng.choice(n, size=n_samples, replace=False)
        elif replacement == "never":
            raise ValueError(
                f"replacement='never' needs at least {n_samples} contexts per word; "
                f"word {j} has {n}"
            )
        else:
            out[:, j] = rng.integers(0, n, size=n_samples)
    return out


def _pool(
    words: Sequence[ArrayLike], role: str, dtype: type[np.floating] = np.float64
) -> tuple[NDArray, NDArray[np.intp]]:
    """Stack a role's per-word context vectors as unit rows; start offset of each word."""
    mats = [np.asarray(m) for m in words]
    for j, m in enumerate(mats):
        if m.ndim != 2 or m.shape[0] == 0:
            raise ValueError(f"{role}: word {j} needs a non-empty (n_contexts, dim) array")
    # The one validation and normalisation of every metric (finite, real, non-zero rows,
    # any scale), then the precision asked for.
    pooled = unit_rows(np.concatenate(mats), f"{role} contexts").astype(dtype, copy=False)
    offsets = np.cumsum([0] + [m.shape[0] for m in mats[:-1]])
    return pooled, offsets.astype(np.intp)


def row_effect_sizes(s: NDArray, n_x: int, ddof: int, *, sd_epsilon: float = 0.0,
                     what: str = "association scores") -> tuple[NDArray, NDArray]:
    r"""Per-row effect size :math:`d_i` and within variance :math:`v_i` (rows = samples).

    Row :math:`i` of ``s`` holds one sample's scores, the first ``n_x`` of
    group X (or A), the rest of the other group:
    :math:`d_i = (\bar s_{X,i} - \bar s_{Y,i}) / (\mathrm{sd}_i + \epsilon)` and
    :math:`v_i = \mathrm{sd}_i^2` — or :math:`(\mathrm{sd}_i + \epsilon)^2` when
    :math:`\epsilon` = ``sd_epsilon`` > 0 (Mind Your Bias's LPBS-as-CEAT code, which
    adds :math:`10^{-8}` and squares the result; :func:`biaslib.methods.lpbs.lpbs_ceat`).

    Raises
    ------
    DegenerateTestError
        If a row's scores are all equal (up to rounding) and ``sd_epsilon`` is 0;
        the message names the row and ``what`` the scores are.
    """
    ddof = check_ddof(ddof)
    var = s.var(axis=1, ddof=ddof)
    sd = np.sqrt(var)
    diff = s[:, :n_x].mean(axis=1) - s[:, n_x:].mean(axis=1)
    if sd_epsilon:
        denom = sd + sd_epsilon
        return diff / denom, denom**2
    scale = np.maximum(1.0, np.abs(s).max(axis=1))
    flat = np.flatnonzero(sd <= 1e-12 * scale)
    if flat.size:
        raise DegenerateTestError(
            f"sample {int(flat[0])}: all {what} are equal (standard deviation 0)"
        )
    return diff / sd, var


def sample_effect_sizes(
    X: Sequence[ArrayLike],
    Y: Sequence[ArrayLike],
    A: Sequence[ArrayLike],
    B: Sequence[ArrayLike],
    indices: Mapping[str, NDArray[np.intp]],
    *,
    ddof: int = 1,
    dtype: type[np.floating] = np.float32,
    chunk_size: int = 128,
    workers: int | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Effect size :math:`d_i` and within variance :math:`v_i` of every sample, vectorised.

    Parameters
    ----------
    X, Y, A, B
        One array per word, shape ``(n_contexts_of_word, dim)``.
    indices
        Role → ``(N, n_words)`` context indices (:func:`sample_indices`).
    ddof
        For the standard deviation (effect size) and the variance :math:`v_i`.
    dtype
        Precision of the unit vectors and their dot products: ``float32``
        (default; the precision the encoders return, twice as fast) or
        ``float64``. Means, variances and effect sizes are always float64.
    chunk_size
        Samples per chunk (small chunks keep the gathered vectors in cache).
    workers
        Threads over chunks (default: the number of CPUs); the result is the
        same for any number.

    Returns
    -------
    effects, variances
        Shape ``(N,)`` each.

    Notes
    -----
    Exact, not an approximation: with unit vectors,
    :math:`\operatorname{mean}_a \cos(t, a) = \hat t \cdot \operatorname{mean}_a \hat a`,
    so a sample needs the direction :math:`m_i = \bar{\hat a}_i - \bar{\hat b}_i` — a
    sparse averaging matrix times the attribute vectors — and one dot product
    per target word (``einsum`` over the gathered target vectors).
    """
    ddof = check_ddof(ddof)
    sets = {"X": X, "Y": Y, "A": A, "B": B}
    pooled = {role: _pool(sets[role], role, dtype) for role in ROLES}
    dims = {m.shape[1] for m, _ in pooled.values()}
    if len(dims) != 1:
        raise ValueError(f"context vectors differ in dimension: {sorted(dims)}")
    rows = {}
    for role in ROLES:
        idx = np.asarray(indices[role])
        if idx.ndim != 2 or idx.shape[1] != len(sets[role]):
            raise ValueError(f"indices[{role!r}] must have shape (N, {len(sets[role])})")
        if (idx < 0).any() or (idx >= np.diff([*pooled[role][1], len(pooled[role][0])])).any():
            raise ValueError(f"indices[{role!r}] point past a word's contexts")
        rows[role] = pooled[role][1][None, :] + idx
    if len({rows[r].shape[0] for r in ROLES}) != 1:
        raise ValueError("every role needs the same number of samples")
    n_samples = rows["X"].shape[0]
    n_x, n_a, n_b = rows["X"].shape[1], rows["A"].shape[1], rows["B"].shape[1]
    # Targets X then Y, attributes A then B, each as one matrix of unit rows.
    targets = np.concatenate([pooled["X"][0], pooled["Y"][0]])
    attrs = np.concatenate([pooled["A"][0], pooled["B"][0]])
    t_rows = np.concatenate([rows["X"], rows["Y"] + len(pooled["X"][0])], axis=1)
    a_rows = np.concatenate([rows["A"], rows["B"] + len(pooled["A"][0])], axis=1)
    coef = np.concatenate([np.full(n_a, 1.0 / n_a), np.full(n_b, -1.0 / n_b)]).astype(dtype)
    effects = np.empty(n_samples)
    variances = np.empty(n_samples)

    def run(lo: int) -> None:
        hi = min(lo + chunk_size, n_samples)
        # m_i = mean of the sample's unit A vectors - mean of its unit B vectors, as a
        # sparse (chunk x attribute contexts) averaging matrix times the attribute vectors.
        average = sparse.csr_matrix(
            (np.tile(coef, hi - lo), a_rows[lo:hi].ravel(),
             np.arange(0, (hi - lo) * len(coef) + 1, len(coef))),
            shape=(hi - lo, len(attrs)),
        )
        direction = np.asarray(average @ attrs)
        s = np.einsum("cjd,cd->cj", targets[t_rows[lo:hi]], direction).astype(np.float64)
        try:
            effects[lo:hi], variances[lo:hi] = row_effect_sizes(s, n_x, ddof)
        except DegenerateTestError as err:
            raise DegenerateTestError(f"{err} (chunk starting at sample {lo})") from None

    starts = range(0, n_samples, chunk_size)
    workers = max(1, min(workers or (os.cpu_count() or 1), len(starts)))
    if workers == 1:
        for lo in starts:
            run(lo)
    else:
        # numpy's gathers, einsum and scipy's sparse products release the GIL; each chunk
        # writes its own slice, so the result does not depend on the number of threads.
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(run, starts))
    return effects, variances


def sample_effect_sizes_loop(
    X: Sequence[ArrayLike],
    Y: Sequence[ArrayLike],
    A: Sequence[ArrayLike],
    B: Sequence[ArrayLike],
    indices: Mapping[str, NDArray[np.intp]],
    *,
    ddof: int = 1,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The same as :func:`sample_effect_sizes`, one WEAT per sample in a Python loop.

    Each sample stacks its context vectors and calls
    :func:`biaslib.methods.weat.association` and :func:`biaslib.methods.weat.effect_size` —
    what CEAT's ``ceat_meta`` does. The reference for tests and the benchmark;
    too slow for real use.
    """
    ddof = check_ddof(ddof)
    sets = {"X": X, "Y": Y, "A": A, "B": B}
    mats = {r: [np.asarray(m, dtype=np.float64) for m in sets[r]] for r in ROLES}
    n_samples = np.asarray(indices["X"]).shape[0]
    effects = np.empty(n_samples)
    variances = np.empty(n_samples)
    for i in range(n_samples):
        vec = {r: np.stack([mats[r][j][indices[r][i, j]] for j in range(len(mats[r]))])
               for r in ROLES}
        s_x = association(vec["X"], vec["A"], vec["B"])
        s_y = association(vec["Y"], vec["A"], vec["B"])
        effects[i] = effect_size(s_x, s_y, ddof=ddof)
        variances[i] = np.concatenate([s_x, s_y]).var(ddof=ddof)
    return effects, variances


# --------------------------------------------------------------------------- the test


class CombinedEffectResult(ResultRecord):
    """The shared fields of a result that combines per-sample effect sizes as CEAT does.

    A result holding a random-effects meta-analysis ``meta``
    (:class:`~biaslib.stats.meta_analysis.MetaAnalysis`) and a ``convention``
    (:class:`CeatConvention`) gets from it the fields of
    :class:`~biaslib.methods.result.BiasResult`: ``effect_size`` (and ``ces``) the
    combined effect size, ``p_value`` under the convention's tail, ``n`` the number of
    samples :math:`N` combined and ``ci`` the meta-analysis' 95% interval
    (``convention_name`` is :class:`~biaslib.methods.result.ResultRecord`'s). The result
    defines ``method``. :class:`CeatResult` and
    :class:`~biaslib.methods.lpbs.LpbsCeatResult` share it.
    """

    __slots__ = ()
    meta: MetaAnalysis
    convention: CeatConvention

    @property
    def ces(self) -> float:
        """Combined effect size."""
        return self.meta.ces

    @property
    def effect_size(self) -> float:
        """The CES, under the name every result uses."""
        return self.meta.ces

    @property
    def p_value(self) -> float:
        """P-value of the CES under the convention's tail."""
        return self.meta.p_value

    @property
    def n(self) -> int:
        """Number of samples :math:`N` combined."""
        return self.meta.n

    @property
    def ci(self) -> tuple[float, float]:
        """The random-effects 95% confidence interval of the CES (``ci_low``, ``ci_high``)."""
        low, high = self.meta.conf_int()
        return float(low), float(high)



@dataclass(frozen=True)
class CeatResult(CombinedEffectResult):
    r"""Result of :func:`ceat`.

    Attributes
    ----------
    meta
        The random-effects combination (CES, SE, p, :math:`\tau^2`, :math:`Q`).
    convention
        The :class:`CeatConvention` used.
    words
        Role → the words tested (those with contexts).
    dropped
        Role → words left out because they had fewer contexts than required.
    n_contexts
        Role → number of contexts of each tested word.
    effect_sizes, variances
        Per-sample :math:`d_i` and :math:`v_i`.

    It follows :class:`~biaslib.methods.result.BiasResult`: the effect size is
    the CES, ``n`` the number of samples :math:`N` combined, ``ci`` the
    meta-analysis' 95% interval.
    """

    meta: MetaAnalysis
    convention: CeatConvention
    words: Mapping[str, tuple[str, ...]]
    dropped: Mapping[str, tuple[str, ...]]
    n_contexts: Mapping[str, tuple[int, ...]]
    effect_sizes: NDArray[np.float64] = field(repr=False)
    variances: NDArray[np.float64] = field(repr=False)

    @property
    def method(self) -> str:
        """``"CEAT"``."""
        return "CEAT"

    def to_dict(self) -> dict[str, object]:
        """One flat record of the result.

        CES, p, SE, 95% CI, weighted variance, τ², Q (and its test), I², the
        distribution's summary, the set sizes.
        """
        d = self.effect_sizes
        ci = self.meta.conf_int()
        q025, q25, q50, q75, q975 = np.quantile(d, [0.025, 0.25, 0.5, 0.75, 0.975])
        return {
            "ces": self.meta.ces,
            "p_value": self.meta.p_value,
            "tail": self.meta.tail,
            "se": self.meta.se,
            "ci_low": ci[0],
            "ci_high": ci[1],
            "weighted_variance": self.meta.weighted_variance,
            "tau2": self.meta.tau2,
            "q": self.meta.q,
            "q_p_value": self.meta.q_p_value,
            "i2": self.meta.i2,
            "n_samples": self.meta.n,
            "mean_d": float(d.mean()),
            "sd_d": float(d.std(ddof=1)),
            "q025": float(q025), "q25": float(q25), "median_d": float(q50),
            "q75": float(q75), "q975": float(q975),
            **{f"n_{r.lower()}": len(self.words[r]) for r in ROLES},
            "n_contexts": int(sum(sum(c) for c in self.n_contexts.values())),
            "dropped": "; ".join(f"{r}: {', '.join(ws)}" for r, ws in self.dropped.items() if ws),
            "convention": self.convention.name,
        }

    def to_frame(self) -> pd.DataFrame:
        """A one-row :class:`pandas.DataFrame` of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])


def missing_policy(
    n_contexts: Mapping[str, Mapping[str, int]],
    min_contexts: int = 1,
    max_missing_fraction: float = 0.2,
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Which words CEAT keeps and drops, given each word's number of contexts.

    Words with fewer than ``min_contexts`` contexts are dropped (:func:`ceat`
    reports them with a :class:`~biaslib.errors.DroppedStimuliWarning`); a
    role that loses more than ``max_missing_fraction`` of its words, or all
    of them, raises :class:`~biaslib.errors.MissingWordsError`.

    Returns
    -------
    kept, dropped
        Role → words, in the test's order.
    """
    if min_contexts < 1:
        raise ValueError("min_contexts must be at least 1")
    kept: dict[str, tuple[str, ...]] = {}
    dropped: dict[str, tuple[str, ...]] = {}
    problems = []
    for role in ROLES:
        counts = n_contexts[role]
        keep = tuple(w for w, n in counts.items() if n >= min_contexts)
        lost = tuple(w for w, n in counts.items() if n < min_contexts)
        if not keep or len(lost) / max(len(counts), 1) > max_missing_fraction:
            problems.append(f"{role}: {len(lost)}/{len(counts)} words lack contexts {list(lost)}")
        kept[role], dropped[role] = keep, lost
    if problems:
        raise MissingWordsError("CEAT: " + "; ".join(problems))
    return kept, dropped


def ceat(
    vectors: Mapping[str, Mapping[str, ArrayLike]],
    *,
    convention: CeatConvention | str = CEAT_MIND_YOUR_BIAS,
    min_contexts: int = 1,
    max_missing_fraction: float = 0.2,
    method: Literal["vectorised", "loop"] = "vectorised",
    dtype: type[np.floating] = np.float32,
) -> CeatResult:
    """Run CEAT on per-word context vectors.

    Parameters
    ----------
    vectors
        Role (``"X"``, ``"Y"``, ``"A"``, ``"B"``) → word → array of that
        word's context vectors, shape ``(n_contexts, dim)`` (e.g. from
        :func:`embed_word_contexts`). A word may have no contexts (an empty
        array, or ``None``).
    convention
        :data:`CEAT_MIND_YOUR_BIAS` (default), :data:`CEAT_ORIGINAL`, a preset name,
        or a modified copy (``CEAT_MIND_YOUR_BIAS.replace(n_samples=1_000)``).
    min_contexts
        Words with fewer contexts are dropped.
    max_missing_fraction
        The policy for words without (enough) contexts: they are dropped,
        logged and reported in ``result.dropped`` — as Guo & Caliskan dropped
        names that did not occur in their Reddit sample — but a role that
        loses more than this fraction of its words, or all of them, raises
        :class:`~biaslib.errors.MissingWordsError` instead of
        producing a number about a different test. Never a silent NaN.
    method
        ``"vectorised"`` (default) or ``"loop"`` (the per-sample reference,
        same draws, same result up to rounding).
    dtype
        Precision of the vectorised dot products (:func:`sample_effect_sizes`).

    Returns
    -------
    CeatResult

    Examples
    --------
    Toy "contextual" vectors: each context of a word is the word's direction
    in the plane plus a little noise, and words have different numbers of
    contexts. Flowers lie near the pleasant words, insects near the
    unpleasant ones.

    >>> import numpy as np
    >>> from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, ceat
    >>> rng = np.random.default_rng(0)
    >>> def contexts(degrees, n):
    ...     rad = np.deg2rad(degrees)
    ...     return [np.cos(rad), np.sin(rad)] + 0.1 * rng.normal(size=(n, 2))
    >>> vectors = {
    ...     "X": {"rose": contexts(10, 5), "tulip": contexts(20, 3), "daisy": contexts(30, 4)},
    ...     "Y": {"ant": contexts(60, 4), "wasp": contexts(70, 6), "moth": contexts(80, 2)},
    ...     "A": {"love": contexts(0, 5), "peace": contexts(5, 5)},
    ...     "B": {"hate": contexts(85, 5), "war": contexts(90, 5)},
    ... }
    >>> result = ceat(vectors, convention=CEAT_MIND_YOUR_BIAS.replace(n_samples=1_000))
    >>> round(result.ces, 2), result.n, result.meta.tail, result.p_value < 0.001
    (1.73, 1000, 'two-sided', True)
    >>> result.n_contexts["X"]
    (5, 3, 4)
    """
    conv = CeatConvention.of(convention)
    for role in ROLES:
        if role not in vectors:
            raise KeyError(f"vectors lack role {role!r}")
    for first, second in (("X", "Y"), ("A", "B")):
        shared = sorted(set(vectors[first]) & set(vectors[second]))
        if shared:
            raise ValueError(f"words in both {first} and {second}: {shared}; a stimulus "
                             "belongs to one set")
    n_by_word = {role: {w: 0 if m is None else int(np.shape(m)[0])
                        for w, m in vectors[role].items()} for role in ROLES}
    words, dropped = missing_policy(n_by_word, min_contexts, max_missing_fraction)
    lost = {r: ws for r, ws in dropped.items() if ws}
    if lost:
        warn_dropped("CEAT: dropped words with fewer than "
                     f"{min_contexts} context(s): "
                     + "; ".join(f"{r}: {', '.join(ws)}" for r, ws in lost.items()))
    arrays = {r: [np.asarray(vectors[r][w]) for w in words[r]] for r in ROLES}
    counts = {r: tuple(int(a.shape[0]) for a in arrays[r]) for r in ROLES}
    if len(words["X"]) + len(words["Y"]) <= conv.ddof + 1:
        raise MissingWordsError("CEAT: too few target words for a standard deviation")
    rng = np.random.default_rng(conv.seed)
    indices = {r: sample_indices(counts[r], conv.n_samples, conv.replacement, rng)
               for r in ROLES}
    if method == "vectorised":
        effects, variances = sample_effect_sizes(*(arrays[r] for r in ROLES), indices,
                                                 ddof=conv.ddof, dtype=dtype)
    elif method == "loop":
        effects, variances = sample_effect_sizes_loop(*(arrays[r] for r in ROLES), indices,
                                                      ddof=conv.ddof)
    else:
        raise ValueError("method must be 'vectorised' or 'loop'")
    meta = random_effects(effects, variances, conv.tail)
    return CeatResult(meta=meta, convention=conv, words=words, dropped=dropped,
                      n_contexts=counts, effect_sizes=effects, variances=variances)
