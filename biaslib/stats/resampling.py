r"""One options object for every permutation p-value, and the one helper that uses it.

Every EAT-style p-value in the book (WEAT, ML-EAT, LPBS) is
:func:`biaslib.stats.permutation.permutation_test` run with a handful of
options, and each paper's code fixed them differently. :class:`Resampling`
holds those options, checked once when it is made; a method's convention
holds one (``convention.resampling``), and :func:`resampled_test` passes every
one of its fields to :func:`~biaslib.stats.permutation.permutation_test`.
Adding an option is therefore one edit here (a field) and one there (the
keyword argument of the same name); no call site unpacks options by hand.

The options (their formulas are the table of :mod:`biaslib.stats.permutation`):

=================  ==============================================================
``tail``           which re-split statistics :math:`T_i` count as extreme against
                   the observed :math:`t`: ``"greater"`` (:math:`T_i \ge t`),
                   ``"less"``, ``"two-sided"`` (:math:`|T_i| \ge |t|`) or
                   ``"wefe-abs"`` (WEFE's :math:`|T_i| > t`, signed :math:`t`).
``ties``           ``"ge"``: a re-split equal to the observed value (up to
                   :math:`10^{-10}` relative rounding) counts as extreme; ``"gt"``:
                   it does not.
``plus_one``       sampled tests: :math:`p = (k+1)/(m+1)` instead of :math:`k/m`
                   (the observed split counted once among the samples).
``n_resamples``    :math:`m`, the number of random re-splits of a sampled test.
``exact_limit``    enumerate all :math:`\binom{|X|+|Y|}{|X|}` splits when there are
                   at most this many (``None``: never), else sample :math:`m`.
``replacement``    draw both groups *with* replacement from the pool (WEFE)
                   instead of re-splitting it (never exact).
``seed``           seed of :func:`numpy.random.default_rng` for the sampled
                   re-splits (``None``: fresh entropy, for unseeded originals).
``statistic``      ``"mean"``: :math:`\bar s_X - \bar s_Y`; ``"sum"``:
                   :math:`\sum_X s - \sum_Y s` (Caliskan et al., WEFE).
=================  ==============================================================

The test is hand-written rather than :func:`scipy.stats.permutation_test`
because the papers' codes differ exactly where scipy has no switch: counting
ties or not, adding one to both counts or not, an exact/sampled threshold on
the number of splits, re-splits drawn with replacement, WEFE's two-sided
comparison with the signed statistic. Reproducing each paper's p-value means
making each of those choices explicit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from numpy.typing import ArrayLike

from biaslib.stats.permutation import (
    MAX_EXACT_SPLITS,
    MAX_RESAMPLES,
    STATISTICS,
    TAILS,
    TIES,
    PermutationResult,
    Statistic,
    Tail,
    Ties,
    permutation_test,
)
from biaslib.validation import check_bool, check_int, check_seed

__all__ = ["MAX_RESAMPLES", "OPTION_NAMES", "Resampling", "resampled_test"]

# MAX_RESAMPLES (the bound on n_resamples) is defined beside permutation_test, which
# applies it too, and re-exported here where it has always been importable from.


def _check_choice(value: object, name: str, allowed: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


@dataclass(frozen=True)
class Resampling:
    """The options of one permutation p-value, checked when they are made.

    The fields have the names, meanings and defaults of
    :func:`~biaslib.stats.permutation.permutation_test`'s keyword arguments
    (the module docstring has the formula of each). numpy integers and bools
    are accepted and stored as Python ones, so that equal options compare and
    hash equal and write the same JSON.

    Attributes
    ----------
    tail
        ``"greater"``, ``"less"``, ``"two-sided"`` or ``"wefe-abs"``.
    ties
        ``"ge"`` (ties count as extreme) or ``"gt"``.
    plus_one
        :math:`p = (k+1)/(m+1)` for sampled tests.
    n_resamples
        Random re-splits of a sampled test, 1 to :data:`MAX_RESAMPLES`.
    exact_limit
        Enumerate every split when there are at most this many (0 to
        :data:`~biaslib.stats.permutation.MAX_EXACT_SPLITS`); ``None``: never.
    replacement
        Draw the groups with replacement from the pool.
    seed
        Seed of the sampled re-splits: an int >= 0, or ``None`` (fresh entropy).
    statistic
        ``"mean"`` or ``"sum"``.

    Raises
    ------
    TypeError
        For a non-int ``n_resamples``, ``exact_limit`` or ``seed`` (bools and
        floats included) or a non-bool ``plus_one`` or ``replacement``
        (``"no"``, ``"False"``, ``0``).
    ValueError
        For an unknown ``tail``, ``ties`` or ``statistic``, or a count out of
        its range.

    Examples
    --------
    >>> from biaslib.stats.resampling import Resampling
    >>> options = Resampling(tail="two-sided", n_resamples=1_000)
    >>> options.replace(ties="gt").ties, options.n_resamples
    ('gt', 1000)
    """

    tail: Tail = "greater"
    ties: Ties = "ge"
    plus_one: bool = True
    n_resamples: int = 100_000
    exact_limit: int | None = 100_000
    replacement: bool = False
    seed: int | None = 1111
    statistic: Statistic = "mean"

    def __post_init__(self) -> None:
        # The one place these options are checked: conventions and call sites rely on it.
        _check_choice(self.tail, "tail", TAILS)
        _check_choice(self.ties, "ties", TIES)
        _check_choice(self.statistic, "statistic", STATISTICS)
        n_resamples = check_int(self.n_resamples, "n_resamples", minimum=1)
        assert n_resamples is not None
        if n_resamples > MAX_RESAMPLES:
            raise ValueError(
                f"n_resamples={n_resamples:,} would hold that many statistics in memory; at "
                f"most {MAX_RESAMPLES:,} (the papers use up to 100,000)")
        exact_limit = check_int(self.exact_limit, "exact_limit", minimum=0, allow_none=True,
                                none_means="never enumerate")
        if exact_limit is not None and exact_limit > MAX_EXACT_SPLITS:
            raise ValueError(
                f"exact_limit={exact_limit:,} would enumerate up to that many splits (hours "
                f"of work); at most {MAX_EXACT_SPLITS:,} — above that, sample (n_resamples)")
        normalised = {"n_resamples": n_resamples, "exact_limit": exact_limit,
                      "seed": check_seed(self.seed),
                      "plus_one": check_bool(self.plus_one, "plus_one"),
                      "replacement": check_bool(self.replacement, "replacement")}
        for name, value in normalised.items():
            object.__setattr__(self, name, value)  # frozen: numpy scalars become Python ones

    def replace(self, **changes: Any) -> Resampling:
        """A copy with some options changed, checked again.

        Raises
        ------
        TypeError
            For a name that is not an option (the message lists them).
        """
        unknown = sorted(set(changes) - set(OPTION_NAMES))
        if unknown:
            raise TypeError(f"unknown resampling option(s) {unknown}; the options are "
                            f"{list(OPTION_NAMES)}")
        return dataclasses.replace(self, **changes)

    def as_kwargs(self) -> dict[str, Any]:
        """Every option as a keyword argument of ``permutation_test``, in field order."""
        return {name: getattr(self, name) for name in OPTION_NAMES}


#: The names of :class:`Resampling`'s options, in field order (derived, never listed by hand).
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Resampling))


def resampled_test(
    x_scores: ArrayLike,
    y_scores: ArrayLike,
    options: Resampling,
    *,
    keep_distribution: bool = False,
    **overrides: Any,
) -> PermutationResult:
    r"""Permutation test of two groups of scores under ``options``.

    :func:`~biaslib.stats.permutation.permutation_test` with every field of
    ``options`` as its keyword argument of the same name.

    Parameters
    ----------
    x_scores, y_scores
        Per-item scores of the two groups.
    options
        The :class:`Resampling` options, usually a convention's ``resampling``.
    keep_distribution
        Return the null statistics in the result (a property of the call,
        not of the convention).
    **overrides
        Options a method fixes for this call (ML-EAT's tail per level, LPBS's
        mean statistic), checked like any :class:`Resampling`.

    Returns
    -------
    PermutationResult

    Examples
    --------
    The :math:`\binom{6}{3} = 20` splits of three scores against three;
    only the observed split is as extreme, and two-sided its mirror too:

    >>> from biaslib.stats.resampling import Resampling, resampled_test
    >>> resampled_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3], Resampling()).p_value
    0.05
    >>> resampled_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3], Resampling(), tail="two-sided").p_value
    0.1
    """
    if not isinstance(options, Resampling):
        raise TypeError(f"options must be a Resampling, got {type(options).__name__}")
    if overrides:
        options = options.replace(**overrides)
    return permutation_test(x_scores, y_scores, keep_distribution=keep_distribution,
                            **options.as_kwargs())
