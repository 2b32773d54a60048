"""Named statistical conventions of the published WEAT implementations.

"Mind Your Bias" found that published scores disagree largely because each
implementation made different small choices. A :class:`Convention` makes every
one of those choices explicit; the presets below reproduce each paper's code on
purpose (see ``shared/reference/CONVENTIONS.md`` for the facts each one is
built from). Pass a preset, its name, or a modified copy to
:func:`biaslib.methods.weat.weat`::

    from biaslib.stats.conventions import SENT_BIAS
    weat(X, Y, A, B, convention=SENT_BIAS.replace(n_resamples=10_000))
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from biaslib.errors import UnknownNameError
from biaslib.stats.permutation import (
    MAX_EXACT_SPLITS,
    STATISTICS,
    TAILS,
    TIES,
    Statistic,
    Tail,
    Ties,
)
from biaslib.validation import check_int, check_seed

__all__ = [
    "BIASLIB",
    "CALISKAN",
    "MIND_YOUR_BIAS",
    "PRESETS",
    "RESPONSIBLY",
    "SENT_BIAS",
    "WEFE",
    "Convention",
    "get_convention",
]

UnequalTargets = Literal["allow", "error", "subsample"]
PMethod = Literal["permutation", "normal"]


@dataclass(frozen=True)
class Convention:
    """Every choice that changes a WEAT effect size or p-value.

    Attributes
    ----------
    name
        Short identifier (``"sent-bias"``, ``"wefe"``, …).
    ddof
        Delta degrees of freedom of the standard deviation in the effect-size
        denominator (1: sample SD; 0: population SD).
    tail, ties, plus_one, n_resamples, exact_limit, replacement, seed, statistic
        Permutation-test options, see :mod:`biaslib.stats.permutation`.
    p_method
        ``"permutation"`` (empirical proportion) or ``"normal"`` (Caliskan et
        al.'s normal fit to the permutation statistics).
    unequal_targets
        What to do when ``|X| != |Y|``: ``"allow"`` (difference of means is
        well defined), ``"error"`` (sent-bias and responsibly assert equal
        sizes) or ``"subsample"`` (Mind Your Bias: randomly subsample the
        larger set, seeded by ``seed``).
    equal_attributes
        Require ``|A| == |B|`` (responsibly asserts it).
    description
        One line saying what the convention is and where it comes from.
    """

    name: str
    ddof: int = 1
    tail: Tail = "greater"
    ties: Ties = "ge"
    plus_one: bool = True
    n_resamples: int = 100_000
    exact_limit: int | None = 100_000
    replacement: bool = False
    seed: int | None = 1111
    statistic: Statistic = "mean"
    p_method: PMethod = "permutation"
    unequal_targets: UnequalTargets = "allow"
    equal_attributes: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        # Refuse wrong values here, when the convention is made, not deep in a test run.
        if isinstance(self.ddof, bool) or self.ddof not in (0, 1):
            raise ValueError(f"ddof must be 0 or 1, got {self.ddof!r}")
        check_int(self.n_resamples, "n_resamples", minimum=1)
        check_int(self.exact_limit, "exact_limit", minimum=0, allow_none=True)
        if self.exact_limit is not None and self.exact_limit > MAX_EXACT_SPLITS:
            raise ValueError(f"exact_limit may not exceed {MAX_EXACT_SPLITS:,}, "
                             f"got {self.exact_limit:,}")
        check_seed(self.seed)
        for name, value, allowed in (("tail", self.tail, TAILS), ("ties", self.ties, TIES),
                                     ("statistic", self.statistic, STATISTICS)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        if not isinstance(self.plus_one, bool) or not isinstance(self.replacement, bool):
            raise TypeError("plus_one and replacement must be True or False")
        if self.unequal_targets not in ("allow", "error", "subsample"):
            raise ValueError(f"unknown unequal_targets policy {self.unequal_targets!r}")
        if self.p_method not in ("permutation", "normal"):
            raise ValueError(f"unknown p_method {self.p_method!r}")

    def replace(self, **changes: object) -> Convention:
        """Return a copy with some fields changed (``name`` gets a ``*`` unless given)."""
        if "name" not in changes:
            changes["name"] = self.name + "*"
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


#: This book's default convention (its ``description`` says what it is).
BIASLIB = Convention(
    name="biaslib",
    description=(
        "This book's default: sample SD (ddof=1), one-sided upper tail, exact test when "
        "C(|X|+|Y|,|X|) <= 100,000, else 100,000 seeded re-splits with p=(k+1)/(m+1); ties "
        "count as extreme; unequal target sizes allowed (difference of means)."
    ),
)

#: May et al.'s (2019) sent-bias code, the SEAT implementation.
SENT_BIAS = Convention(
    name="sent-bias",
    # sent-bias draws n_resamples - 1 shuffles and counts the observed split once:
    # that is p = (k + 1) / (m + 1) with m = 99,999.
    n_resamples=99_999,
    exact_limit=100_000,
    seed=1111,
    unequal_targets="error",
    description=(
        "May et al. (2019), W4ngatang/sent-bias sentbias/weat.py: ddof=1; exact enumeration "
        "when C(2n,n) <= 100,000, else 99,999 shuffles + the observed split; ties counted "
        "('>='); one-sided upper tail; asserts |X| = |Y|; seed 1111."
    ),
)

#: Caliskan et al. (2017): a normal distribution fitted to 100,000 permutations.
CALISKAN = Convention(
    name="caliskan",
    p_method="normal",
    exact_limit=None,
    n_resamples=100_000,
    description=(
        "Caliskan et al. (2017), as described by Mind Your Bias (App. A.2): 100,000 "
        "permutations, a normal distribution fitted to their statistics, p = P(N > s); ddof=1."
    ),
)

#: The WEFE library's WEAT (re-splits drawn with replacement, difference of sums).
WEFE = Convention(
    name="wefe",
    ddof=0,
    ties="gt",
    plus_one=True,
    exact_limit=None,
    replacement=True,
    n_resamples=10_000,
    seed=0,
    statistic="sum",
    description=(
        "WEFE (dccuchile/wefe, metrics/WEAT.py, _calc_p_value): population SD (np.std, "
        "ddof=0); no exact test; 're-splits' drawn WITH replacement from the pooled targets; "
        "the statistic is Caliskan's difference of SUMS (so with unequal target sizes its null "
        "is not centred on 0); strict '>'; p=(k+1)/(m+1). WEFE itself is unseeded (seeded "
        "here), reports the test statistic rather than the effect size by default, and its "
        "two-sided option is tail='wefe-abs'."
    ),
)

#: The responsibly library's WEAT (through mlxtend's permutation test).
RESPONSIBLY = Convention(
    name="responsibly",
    ddof=0,
    ties="gt",
    plus_one=False,
    exact_limit=1_000_000,
    n_resamples=1_000,
    seed=42,
    unequal_targets="error",
    equal_attributes=True,
    description=(
        "responsibly (ResponsiblyAI) through mlxtend < 0.17: ddof=0; exact permutation test "
        "(strict '>', no +1); mlxtend's 'approximate' fallback with 1,000 rounds and seed 42 "
        "when enumeration is infeasible (here: more than 1,000,000 splits); equal sizes "
        "required for targets and attributes."
    ),
)

#: Mind Your Bias's code: sent-bias, with the larger target set subsampled.
MIND_YOUR_BIAS = SENT_BIAS.replace(
    name="mind-your-bias",
    unequal_targets="subsample",
    description=(
        "Mind Your Bias (SilkeHusse/Re-Evaluating-Bias): sent-bias's statistics, but the "
        "equal-size assertion is dropped and the larger target set is randomly subsampled "
        "to the size of the smaller (seeded here)."
    ),
)

#: Preset name → convention, for :func:`get_convention`.
PRESETS: dict[str, Convention] = {
    c.name: c for c in (BIASLIB, SENT_BIAS, CALISKAN, WEFE, RESPONSIBLY, MIND_YOUR_BIAS)
}


def get_convention(convention: Convention | str) -> Convention:
    """Return a :class:`Convention` given a preset name or a convention object."""
    if isinstance(convention, Convention):
        return convention
    if not isinstance(convention, str):
        raise TypeError(f"convention must be a Convention or a preset name, got "
                        f"{type(convention).__name__}")
    try:
        return PRESETS[convention]
    except KeyError:
        raise UnknownNameError("convention", convention, PRESETS) from None
