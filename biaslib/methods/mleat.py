r"""The Multilevel Embedding Association Test (ML-EAT; Wolfe et al., seed 002).

An EAT's single effect size hides *which* target group carries the bias. The
ML-EAT reports it at three levels of increasing granularity, for target sets
:math:`X, Y` and attribute sets :math:`A, B` of vectors:

**Level 1** is the WEAT effect size (paper Eq. 1–4; :func:`biaslib.methods.weat.effect_size`)

.. math::

    \begin{aligned}
    d_{A,B,X,Y} &= \frac{\operatorname{mean}_{x\in X} s(x,A,B)
                         - \operatorname{mean}_{y\in Y} s(y,A,B)}
                        {\operatorname{std}_{w\in X\cup Y} s(w,A,B)}, \\
    s(w,A,B) &= \operatorname{mean}_{a}\cos(w,a) - \operatorname{mean}_{b}\cos(w,b),
    \end{aligned}

with a permutation test over re-splits of the *target* words.

**Level 2** (Eq. 5–8) asks of one target group :math:`T` alone whether it leans
to :math:`A` or :math:`B`. Every *attribute* word gets the mean similarity of
the group to it, and the attribute groups are compared:

.. math::

    u(T,a) = \operatorname{mean}_{t\in T}\cos(t,a), \qquad
    d_{A,B,T} = \frac{\operatorname{mean}_{a\in A} u(T,a) - \operatorname{mean}_{b\in B} u(T,b)}
                     {\operatorname{std}_{x\in A\cup B}\, u(T,x)},

with a permutation test over re-splits of the *attribute* words. For a single
target word :math:`T=\{w\}` this is the SC-EAT of Caliskan et al. (2017), Eq. 9.

**Level 3** (Eq. 10–11) is the mean and standard deviation (ddof = 1) of each
of the four cosine matrices :math:`XA, XB, YA, YB`: the raw similarities that
Levels 1 and 2 standardise away, which show e.g. an anisotropic embedding
(every cosine near 1).

**EAT patterns.** A target group is *associated* with :math:`A` when its Level
2 effect size exceeds 0.2 (Cohen's "small") and is significant, with :math:`B`
when it is below −0.2 and significant. The two groups' associations give one of
nine patterns (paper Fig. 2): AB-Divergent (X→A, Y→B), BA-Divergent (X→B,
Y→A), A-Uniform, B-Uniform, AX-, BX-, AY-, BY-Singular (only one group
associated, e.g. AX: X→A), and Non-Directional.

**Significance.** The paper's text says a cell is shaded when
:math:`d > 0.2` "with a p-value > 0.05". That is almost certainly a typo for
:math:`p < 0.05`: the same paragraph calls the associations *significant*, and
its Table 1 patterns follow from the starred (significant) Level 2 values. This
module uses :math:`p <` ``alpha`` (0.05).

**Tails.** The pattern needs a direction, so a Level 2 test must be able to
find an association with :math:`B` (negative :math:`d`) as well as with
:math:`A`. This book's default (:data:`MLEAT_BIASLIB`) therefore tests both
levels *two-sided* (:math:`|T_i| \ge |t|`) and takes the direction from the
sign of :math:`d`. The paper's code (``wolferobert3/ml-eat``, ``mleat.py``)
fits a normal distribution to 1,000 unseeded permutations and reports
:math:`\min(\Phi(z), 1-\Phi(z))`, the one-sided p-value on the side the
observed statistic falls — half the two-sided one, so its :math:`p < 0.05` is
a two-sided 0.10; it does the same at Level 1, which is why the paper stars
significant *negative* Level 1 effects (GPT-2, Tables 5–6).
:data:`MLEAT_PAPER_CODE` reproduces that (seeded here) as tail
``"observed-side"``. (The code permutes the difference of *sums*,
:mod:`biaslib.stats.permutation` the difference of means; for equal group sizes —
every test in the paper — the fitted :math:`z` is the same.)

**Running tests.** :func:`ml_eat` works on arrays and returns a frozen
:class:`MleatResult`. :mod:`biaslib.evaluate.mleat` runs stimulus tests on a
static embedding or on sentence vectors of a contextual encoder;
``biasbook.mleat`` lays results out as the paper's Table 1 and
:mod:`biaslib.reporting.eatmap` draws EAT-Maps. Metric code only: no torch.

References
----------
Wolfe, R., Hiniker, A. & Howe, B. ML-EAT: A Multilevel Embedding Association
Test for Interpretable and Transparent Social Science (seed 002), section
Approach. Caliskan, A., Bryson, J. J. & Narayanan, A. (2017), Science 356.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.result import ResultRecord
from biaslib.methods.weat import association, effect_size
from biaslib.stats.conventions import PermutationConvention
from biaslib.stats.permutation import normal_approximation_p
from biaslib.stats.resampling import Resampling, resampled_test
from biaslib.stats.sets import ROLES
from biaslib.stats.similarity import as_vectors, cosine_matrix, same_vectors
from biaslib.validation import check_ddof

__all__ = [
    "MLEAT_BIASLIB",
    "MLEAT_PAPER_CODE",
    "MLEAT_PRESETS",
    "PATTERNS",
    "PATTERN_ASSOCIATIONS",
    "Association",
    "MleatConvention",
    "MleatResult",
    "MleatTail",
    "association_of",
    "classify_pattern",
    "eat_pattern",
    "level2_effect_size",
    "level3",
    "ml_eat",
    "swap_attributes",
    "swap_targets",
]

logger = logging.getLogger(__name__)

#: A level's tail: as in :mod:`biaslib.stats.permutation`, or the paper code's
#: ``"observed-side"``.
MleatTail = Literal["two-sided", "greater", "less", "observed-side"]
_TAILS = ("two-sided", "greater", "less", "observed-side")
#: A target group's association: with attribute "A", with "B", or with neither (None).
Association = Literal["A", "B"] | None

# --------------------------------------------------------------------------- conventions


@dataclass(frozen=True)
class MleatConvention(PermutationConvention):
    r"""Every choice that changes an ML-EAT p-value or pattern.

    Attributes
    ----------
    name
        Short identifier.
    ddof
        Delta degrees of freedom of every standard deviation (Levels 1–3);
        1 in the paper (Eq. 11 divides by :math:`nm-1`) and its code.
    level1_tail, level2_tail
        ``"two-sided"`` (:math:`|T_i| \ge |t|`), ``"greater"``, ``"less"``, or
        ``"observed-side"``: the smaller of the two one-sided p-values,
        :math:`\min(p_{>}, p_{<})` — the paper code's
        ``min(cdf, 1 - cdf)``.
    resampling
        Permutation options (:class:`~biaslib.stats.resampling.Resampling`;
        ties, plus_one, n_resamples, exact_limit, replacement, seed are also
        read as ``convention.<option>``). Its ``tail`` and ``statistic`` are
        set by the method: each level's tail above, and the difference of
        means (the paper code's sums give the same :math:`z` for equal sizes).
    p_method
        ``"permutation"`` (empirical proportion) or ``"normal"`` (a normal
        distribution fitted to the permutation statistics, as the paper's code).
    min_effect
        A Level 2 effect counts as an association when :math:`|d|` exceeds it
        (0.2, Cohen's "small"; paper, EAT-Maps).
    alpha
        Significance level: associated only when :math:`p <` ``alpha``.
    description
        One line saying what the convention is and where it comes from.
    """

    kind: ClassVar[str] = "ML-EAT convention"
    set_by_method: ClassVar[Mapping[str, str]] = MappingProxyType({
        "tail": "each ML-EAT level has its own tail (level1_tail, level2_tail)",
        "statistic": "ML-EAT re-splits compare group means (see the module docstring)",
    })

    ddof: int = 1
    level1_tail: MleatTail = "two-sided"
    level2_tail: MleatTail = "two-sided"
    resampling: Resampling = field(default=Resampling(), kw_only=True)
    p_method: Literal["permutation", "normal"] = "permutation"
    min_effect: float = 0.2
    alpha: float = 0.05

    def __post_init__(self) -> None:
        super().__post_init__()
        # numpy ints are accepted and stored as Python ones (frozen: set through object).
        object.__setattr__(self, "ddof", check_ddof(self.ddof))
        for level, tail in (("level1_tail", self.level1_tail), ("level2_tail", self.level2_tail)):
            if tail not in _TAILS:
                raise ValueError(f"{level} must be one of {_TAILS}, got {tail!r}")
        if self.p_method not in ("permutation", "normal"):
            raise ValueError(f"unknown p_method {self.p_method!r}")
        if self.p_method == "normal" and self.resampling.replacement:
            raise ValueError("the normal approximation is fitted to re-splits without replacement")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")
        if not self.min_effect >= 0:
            raise ValueError(f"min_effect must be non-negative, got {self.min_effect}")


#: This book's default: permutation tests, both levels two-sided.
MLEAT_BIASLIB = MleatConvention(
    name="biaslib",
    description=(
        "This book's default: ddof=1; both levels two-sided (direction from the sign of d); "
        "exact test when C(n1+n2, n1) <= 100,000, else 100,000 seeded re-splits with "
        "p=(k+1)/(m+1); ties count as extreme; associated when |d| > 0.2 and p < 0.05."
    ),
)

#: Wolfe et al.'s code: a normal fitted to 1,000 re-splits, ``min(cdf, 1 - cdf)``.
MLEAT_PAPER_CODE = MleatConvention(
    name="ml-eat-code",
    level1_tail="observed-side",
    level2_tail="observed-side",
    resampling=Resampling(n_resamples=1_000, exact_limit=None),
    p_method="normal",
    description=(
        "Wolfe et al.'s code (wolferobert3/ml-eat, mleat.py compute_p_value): 1,000 re-splits "
        "(unseeded there, seed 1111 here), a normal fitted to their statistics (ddof=1), "
        "p = min(cdf, 1 - cdf) at both levels; associated when |d| > 0.2 and p < 0.05."
    ),
)

#: Preset name → convention (``MleatConvention.of(name)`` looks one up).
MLEAT_PRESETS = MleatConvention.declare_presets(MLEAT_BIASLIB, MLEAT_PAPER_CODE)


# --------------------------------------------------------------------------- EAT patterns

#: The nine EAT patterns, in the order of the paper's Figure 2.
PATTERNS = (
    "AB-Divergent", "BA-Divergent", "A-Uniform", "B-Uniform", "AX-Singular", "BX-Singular",
    "AY-Singular", "BY-Singular", "Non-Directional",
)  # fmt: skip

#: Pattern → (association of X, association of Y), from the paper's Figure 2.
PATTERN_ASSOCIATIONS: dict[str, tuple[Association, Association]] = {
    "AB-Divergent": ("A", "B"),
    "BA-Divergent": ("B", "A"),
    "A-Uniform": ("A", "A"),
    "B-Uniform": ("B", "B"),
    "AX-Singular": ("A", None),
    "BX-Singular": ("B", None),
    "AY-Singular": (None, "A"),
    "BY-Singular": (None, "B"),
    "Non-Directional": (None, None),
}
_PATTERN_OF = {assoc: name for name, assoc in PATTERN_ASSOCIATIONS.items()}
_OTHER = {"A": "B", "B": "A", None: None}


def association_of(d: float, significant: bool, min_effect: float = 0.2) -> Association:
    """A target group's association from its Level 2 effect size and significance.

    ``"A"`` when :math:`d > m` and significant, ``"B"`` when :math:`d < -m` and
    significant, else ``None`` (:math:`m` = ``min_effect``, 0.2 in the paper).
    """
    if not np.isfinite(d):
        raise ValueError(f"Level 2 effect size must be finite, got {d}")
    if not significant:
        return None
    if d > min_effect:
        return "A"
    if d < -min_effect:
        return "B"
    return None


def classify_pattern(x: Association, y: Association) -> str:
    """The EAT pattern of the associations of X and of Y (``"A"``, ``"B"`` or ``None``)."""
    try:
        return _PATTERN_OF[(x, y)]
    except KeyError:
        raise ValueError(f"associations must be 'A', 'B' or None, got {(x, y)!r}") from None


def eat_pattern(
    d_x: float, p_x: float, d_y: float, p_y: float, min_effect: float = 0.2, alpha: float = 0.05
) -> str:
    """The EAT pattern of Level 2 results: associated when :math:`|d|>` ``min_effect``, p < alpha.

    The paper writes "p-value > 0.05"; read as p < 0.05 (see the module docstring).
    """
    for name, p in (("p_x", p_x), ("p_y", p_y)):
        if not 0 <= p <= 1:
            raise ValueError(f"{name} is not a p-value: {p}")
    return classify_pattern(
        association_of(d_x, p_x < alpha, min_effect), association_of(d_y, p_y < alpha, min_effect)
    )


def _associations(pattern: str) -> tuple[Association, Association]:
    try:
        return PATTERN_ASSOCIATIONS[pattern]
    except KeyError:
        raise UnknownNameError("EAT pattern", pattern, PATTERNS) from None


def swap_targets(pattern: str) -> str:
    """The pattern of the same test with X and Y exchanged (EAT-Map columns swapped)."""
    x, y = _associations(pattern)
    return classify_pattern(y, x)


def swap_attributes(pattern: str) -> str:
    """The pattern with A and B exchanged (Level 2 negated, EAT-Map rows swapped)."""
    x, y = _associations(pattern)
    return classify_pattern(_OTHER[x], _OTHER[y])


# --------------------------------------------------------------------------- levels 2 and 3


def _level2_associations(
    T: ArrayLike, A: ArrayLike, B: ArrayLike, name: str = "T"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Level 2 association of every attribute word with target group T (paper Eq. 6).

    .. math:: u(T, a) = \operatorname{mean}_{t \in T} \cos(t, a)

    Returns
    -------
    tuple of numpy.ndarray
        :math:`u(T,a)` for each row of ``A`` and :math:`u(T,b)` for each row of ``B``.
    """
    return (cosine_matrix(T, A, name, "A").mean(axis=0),
            cosine_matrix(T, B, name, "B").mean(axis=0))


def level2_effect_size(T: ArrayLike, A: ArrayLike, B: ArrayLike, ddof: int = 1) -> float:
    r"""Level 2 effect size :math:`d_{A,B,T}` (paper Eq. 5).

    .. math:: d_{A,B,T} = \frac{\operatorname{mean}_{a} u(T,a) - \operatorname{mean}_{b} u(T,b)}
                               {\operatorname{std}_{x \in A \cup B}\, u(T,x)}

    For a single target word this is the SC-EAT effect size (Eq. 9).
    """
    return effect_size(*_level2_associations(T, A, B), ddof=ddof)


def level3(
    X: ArrayLike, Y: ArrayLike, A: ArrayLike, B: ArrayLike, ddof: int = 1
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Level 3: mean and standard deviation of the four cosine matrices (paper Eq. 10–11).

    .. math::

        \overline{TA} = \frac{1}{nm}\sum_{i,j}\cos(A_i, T_j), \qquad
        \sigma_{TA} = \sqrt{\frac{\sum_{i,j}(\cos(A_i,T_j) - \overline{TA})^2}{nm - \text{ddof}}}

    Returns
    -------
    tuple of numpy.ndarray
        ``(means, sds)``, each ``2 × 2`` laid out as an EAT-Map: rows A, B;
        columns X, Y (``means[1, 0]`` is :math:`\overline{XB}`).
    """
    ddof = check_ddof(ddof)
    means = np.empty((2, 2))
    sds = np.empty((2, 2))
    for j, (tname, T) in enumerate((("X", X), ("Y", Y))):
        for i, (aname, attr) in enumerate((("A", A), ("B", B))):
            cos = cosine_matrix(T, attr, tname, aname)
            if cos.size <= ddof:
                raise ValueError(
                    f"Level 3 {aname},{tname}: {cos.size} cosine(s) are too few for a "
                    f"standard deviation with ddof={ddof}"
                )
            means[i, j] = cos.mean()
            sds[i, j] = cos.std(ddof=ddof)
    return means, sds


# --------------------------------------------------------------------------- the test


def _p_value(
    x: NDArray[np.float64], y: NDArray[np.float64], tail: MleatTail, conv: MleatConvention
) -> tuple[float, str]:
    """P-value of mean(x) − mean(y) under the convention, and how it was obtained."""
    normal = conv.p_method == "normal"
    tails = ("greater", "less") if tail == "observed-side" else (tail,)
    options = conv.resampling
    if normal:
        # One null distribution, the normal fitted to it, each requested tail read off it.
        perm = resampled_test(x, y, options, tail="greater", statistic="mean",
                              keep_distribution=True)
        assert perm.null_distribution is not None
        return min(normal_approximation_p(perm.statistic, perm.null_distribution, t)
                   for t in tails), f"normal ({perm.method})"
    # The same seed gives both one-sided tests the same re-splits.
    perms = [resampled_test(x, y, options, tail=t, statistic="mean") for t in tails]
    return min(p.p_value for p in perms), perms[0].method


@dataclass(frozen=True)
class MleatResult(ResultRecord):
    r"""The three levels of one ML-EAT, its EAT pattern, and how they were computed.

    Attributes
    ----------
    level1_d, level1_p
        Level 1 (WEAT) effect size :math:`d_{A,B,X,Y}` and p-value.
    level2_x_d, level2_x_p, level2_y_d, level2_y_p
        Level 2 effect sizes :math:`d_{A,B,X}`, :math:`d_{A,B,Y}` and p-values.
    level3_mean, level3_sd
        ``2 × 2`` arrays, rows A, B and columns X, Y (as an EAT-Map).
    n_x, n_y, n_a, n_b
        Set sizes.
    convention
        The :class:`MleatConvention` used.
    labels
        Role → label (``{"X": "Flowers", …}``) for tables and EAT-Maps.
    p_methods
        ``"level1"``, ``"level2"`` → ``"exact"``, ``"sampled"`` or ``"normal (…)"``.
    s_x, s_y
        Level 1 association scores :math:`s(w,A,B)` of the target words.
    u_x, u_y
        Level 2 scores: ``(u(X,a) for a in A, u(X,b) for b in B)`` and the same for Y.

    It follows :class:`~biaslib.methods.result.BiasResult` with Level 1 (the
    WEAT): ``effect_size`` is ``level1_d``, ``p_value`` ``level1_p``, ``n``
    ``n_x + n_y`` and ``ci`` ``None``.
    """

    level1_d: float
    level1_p: float
    level2_x_d: float
    level2_x_p: float
    level2_y_d: float
    level2_y_p: float
    level3_mean: NDArray[np.float64] = field(repr=False)
    level3_sd: NDArray[np.float64] = field(repr=False)
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    convention: MleatConvention = field(repr=False)
    labels: Mapping[str, str] = field(default_factory=lambda: {r: r for r in ROLES}, repr=False)
    p_methods: Mapping[str, str] = field(default_factory=dict, repr=False)
    s_x: NDArray[np.float64] = field(default_factory=lambda: np.empty(0), repr=False)
    s_y: NDArray[np.float64] = field(default_factory=lambda: np.empty(0), repr=False)
    u_x: tuple[NDArray[np.float64], NDArray[np.float64]] = field(default=(), repr=False)
    u_y: tuple[NDArray[np.float64], NDArray[np.float64]] = field(default=(), repr=False)

    def _significant(self, p: float) -> bool:
        return bool(p < self.convention.alpha)

    @property
    def x_association(self) -> Association:
        """``"A"``, ``"B"`` or ``None``: what X is associated with at Level 2."""
        return association_of(self.level2_x_d, self._significant(self.level2_x_p),
                              self.convention.min_effect)

    @property
    def y_association(self) -> Association:
        """``"A"``, ``"B"`` or ``None``: what Y is associated with at Level 2."""
        return association_of(self.level2_y_d, self._significant(self.level2_y_p),
                              self.convention.min_effect)

    @property
    def pattern(self) -> str:
        """The EAT pattern (one of :data:`PATTERNS`)."""
        return classify_pattern(self.x_association, self.y_association)

    def to_dict(self) -> dict[str, object]:
        """Flat record; column names match ``data/published/mleat_*.csv``."""
        m, s = self.level3_mean, self.level3_sd
        out: dict[str, object] = {
            "l1_d": self.level1_d, "l1_p": self.level1_p,
            "l1_sig": self._significant(self.level1_p),
            "l2_x_d": self.level2_x_d, "l2_x_p": self.level2_x_p,
            "l2_x_sig": self._significant(self.level2_x_p),
            "l2_y_d": self.level2_y_d, "l2_y_p": self.level2_y_p,
            "l2_y_sig": self._significant(self.level2_y_p),
        }  # fmt: skip
        for i, a in enumerate("ab"):
            for j, t in enumerate("xy"):
                out[f"l3_{a}{t}_mean"] = float(m[i, j])
                out[f"l3_{a}{t}_sd"] = float(s[i, j])
        out = {k: out[k] for k in _NUMERIC_ORDER}
        out.update(pattern=self.pattern, n_x=self.n_x, n_y=self.n_y, n_a=self.n_a, n_b=self.n_b,
                   p_method_l1=self.p_methods.get("level1", ""),
                   p_method_l2=self.p_methods.get("level2", ""),
                   convention=self.convention.name)
        return out

    def to_frame(self) -> pd.DataFrame:
        """A one-row :class:`pandas.DataFrame` of :meth:`to_dict`, indexed by the set labels.

        The paper's Table 1 layout is ``biasbook.mleat.paper_table``.
        """
        row = pd.DataFrame([self.to_dict()])
        row.index = [f"{self.labels['X']}/{self.labels['Y']} × {self.labels['A']}/"
                     f"{self.labels['B']}"]
        return row

    @property
    def effect_size(self) -> float:
        """Level 1's effect size, under the name every result uses."""
        return self.level1_d

    @property
    def p_value(self) -> float:
        """Level 1's p-value, under the name every result uses."""
        return self.level1_p

    @property
    def method(self) -> str:
        """``"ML-EAT"``."""
        return "ML-EAT"

    @property
    def n(self) -> int:
        """Target items of Level 1, ``n_x + n_y``."""
        return self.n_x + self.n_y


_NUMERIC_ORDER = (
    "l1_d", "l1_p", "l1_sig", "l2_x_d", "l2_x_p", "l2_x_sig", "l2_y_d", "l2_y_p", "l2_y_sig",
    "l3_ax_mean", "l3_ax_sd", "l3_bx_mean", "l3_bx_sd", "l3_ay_mean", "l3_ay_sd", "l3_by_mean",
    "l3_by_sd",
)  # fmt: skip


def ml_eat(
    X: ArrayLike,
    Y: ArrayLike,
    A: ArrayLike,
    B: ArrayLike,
    *,
    convention: MleatConvention | str = MLEAT_BIASLIB,
    labels: Mapping[str, str] | None = None,
) -> MleatResult:
    r"""Run the ML-EAT (Levels 1–3 and the EAT pattern) on four sets of vectors.

    Parameters
    ----------
    X, Y
        Target vectors ``(n_x, d)``, ``(n_y, d)``; sizes may differ.
    A, B
        Attribute vectors ``(n_a, d)``, ``(n_b, d)``; sizes may differ.
    convention
        :class:`MleatConvention` or preset name: ``"biaslib"`` (default;
        permutation tests, two-sided) or ``"ml-eat-code"`` (the paper's code:
        normal approximation, ``min(cdf, 1 - cdf)``).
    labels
        Role → label for tables and EAT-Maps (default: the role letters).

    Returns
    -------
    MleatResult

    Raises
    ------
    ValueError
        For empty sets, zero/NaN vectors, mismatched dimensions, too few
        vectors for a standard deviation, or an unknown convention.
    biaslib.errors.DegenerateTestError
        If the scores of a level have no spread (its effect size is 0/0).

    Examples
    --------
    Unit vectors in the plane at angles from the x-axis: X (10°-40°) lies near
    A (0°-8°) and Y (50°-80°) near B (82°-90°), so each target group is
    associated with its own attribute group — an AB-Divergent pattern.

    >>> import numpy as np
    >>> from biaslib.methods.mleat import ml_eat
    >>> def at(*degrees):
    ...     rad = np.deg2rad(degrees)
    ...     return np.column_stack([np.cos(rad), np.sin(rad)])
    >>> X, Y = at(10, 20, 30, 40), at(50, 60, 70, 80)
    >>> A, B = at(0, 2, 4, 6, 8), at(82, 84, 86, 88, 90)
    >>> result = ml_eat(X, Y, A, B, labels={"X": "Flowers", "Y": "Insects"})
    >>> round(result.level1_d, 4), round(result.level2_x_d, 4), round(result.level2_y_d, 4)
    (1.6454, 1.8772, -1.8772)
    >>> result.x_association, result.y_association, result.pattern
    ('A', 'B', 'AB-Divergent')

    Level 2 re-splits the ten attribute words exactly (:math:`\binom{10}{5} = 252`
    splits, two-sided); Level 3 holds the mean cosines, rows A, B and columns X, Y:

    >>> result.p_methods["level2"], round(result.level2_x_p * 252)
    ('exact', 2)
    >>> result.level3_mean.round(2).tolist()
    [[0.91, 0.48], [0.48, 0.91]]
    """
    conv = MleatConvention.of(convention)
    X, Y, A, B = (as_vectors(v, r) for v, r in zip((X, Y, A, B), ROLES, strict=True))
    if same_vectors(X, Y):  # Level 1 would compare a target set with itself: d = 0, p = 1
        raise DegenerateTestError(
            "X and Y are the same vectors (in some order): ML-EAT would compare a target set "
            "with itself; pass two different target sets")
    # (A = B needs no check of its own: every Level 1 score is 0, and effect_size refuses.)
    # Level 1: the WEAT over target words.
    s_x, s_y = association(X, A, B), association(Y, A, B)
    d1 = effect_size(s_x, s_y, ddof=conv.ddof)
    p1, how1 = _p_value(s_x, s_y, conv.level1_tail, conv)
    # Level 2: each target group alone, over attribute words. X and Y are tested
    # with the same seed, hence on the same re-splits of A ∪ B.
    u_x, u_y = _level2_associations(X, A, B, "X"), _level2_associations(Y, A, B, "Y")
    d2x, d2y = effect_size(*u_x, ddof=conv.ddof), effect_size(*u_y, ddof=conv.ddof)
    p2x, how2 = _p_value(*u_x, conv.level2_tail, conv)
    p2y, _ = _p_value(*u_y, conv.level2_tail, conv)
    means, sds = level3(X, Y, A, B, ddof=conv.ddof)
    return MleatResult(
        level1_d=d1, level1_p=float(p1), level2_x_d=d2x, level2_x_p=float(p2x),
        level2_y_d=d2y, level2_y_p=float(p2y), level3_mean=means, level3_sd=sds,
        n_x=X.shape[0], n_y=Y.shape[0], n_a=A.shape[0], n_b=B.shape[0], convention=conv,
        labels={r: r for r in ROLES} | dict(labels or {}),
        p_methods={"level1": how1, "level2": how2},
        s_x=s_x, s_y=s_y, u_x=u_x, u_y=u_y,
    )  # fmt: skip
