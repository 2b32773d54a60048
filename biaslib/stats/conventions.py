"""Named statistical conventions of the published WEAT implementations.

"Mind Your Bias" found that published scores disagree largely because each
implementation made different small choices. A :class:`Convention` makes every
one of those choices explicit (its permutation options are one
:class:`~biaslib.stats.resampling.Resampling`); the presets below reproduce each paper's code on
purpose (see ``shared/reference/CONVENTIONS.md`` for the facts each one is
built from). Pass a preset, its name, or a modified copy to
:func:`biaslib.methods.weat.weat`::

    from biaslib.stats.conventions import SENT_BIAS
    weat(X, Y, A, B, convention=SENT_BIAS.replace(n_resamples=10_000))

Every method's convention derives from :class:`ConventionBase` (name,
description, :meth:`~ConventionBase.replace`); those with a permutation p-value
(WEAT, ML-EAT, LPBS) from :class:`PermutationConvention`, which holds the
options. :func:`lookup_preset` is the one lookup behind every ``get_*_convention``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal, TypeVar

from biaslib.errors import UnknownNameError
from biaslib.stats.resampling import OPTION_NAMES, Resampling
from biaslib.validation import check_ddof

__all__ = [
    "BIASLIB",
    "CALISKAN",
    "MIND_YOUR_BIAS",
    "PRESETS",
    "RESPONSIBLY",
    "SENT_BIAS",
    "WEFE",
    "Convention",
    "ConventionBase",
    "PermutationConvention",
    "get_convention",
    "lookup_preset",
]

UnequalTargets = Literal["allow", "error", "subsample"]
PMethod = Literal["permutation", "normal"]

C = TypeVar("C", bound="ConventionBase")


@dataclass(frozen=True)
class ConventionBase:
    """What every method's convention has: a name, a description, and marked copies.

    Each method's convention (:class:`Convention` for WEAT,
    :class:`~biaslib.methods.mleat.MleatConvention`,
    :class:`~biaslib.methods.ceat.CeatConvention`,
    :class:`~biaslib.methods.lpbs.LpbsConvention`,
    :class:`~biaslib.methods.same.SameConvention`) is a frozen dataclass
    derived from this one, with named presets looked up by
    :func:`lookup_preset`.

    Attributes
    ----------
    name
        Short identifier of the convention (a preset's key).
    description
        One line saying what the convention is and where it comes from
        (keyword only, so that a subclass's own fields follow ``name``).
    """

    name: str
    description: str = field(default="", kw_only=True)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"name must be a non-blank string, got {self.name!r}")
        if not isinstance(self.description, str):
            raise TypeError(f"description must be a string, got {type(self.description).__name__}")

    def replace(self: C, **changes: Any) -> C:
        """A copy with some fields changed; ``name`` gets a ``*`` unless given.

        The star keeps a modified preset from passing for the original in a
        table or a provenance record.
        """
        changes.setdefault("name", self.name + "*")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, object]:
        """Every choice as a flat, JSON-ready mapping: ``name`` first, ``description`` last.

        What the provenance of a stored table records about its convention.
        """
        out: dict[str, object] = {}
        for f in dataclasses.fields(self):
            if f.name != "description":
                out.update(self._record(f.name, getattr(self, f.name)))
        out["description"] = self.description
        return out

    def _record(self, name: str, value: object) -> dict[str, object]:
        """The entries of :meth:`to_dict` that one field contributes."""
        return {name: value}


class PermutationConvention(ConventionBase):
    """A convention whose method computes a permutation p-value: it holds a :class:`Resampling`.

    A subclass is a frozen dataclass that declares the field ``resampling:
    Resampling`` (where its :meth:`to_dict` lists the options). The options
    read and change as if they were the convention's own fields —
    ``conv.n_resamples`` is ``conv.resampling.n_resamples``, and
    ``conv.replace(n_resamples=10)`` replaces ``resampling`` — for every field
    of :class:`Resampling`, so that adding an option needs no edit here.

    Options the method sets itself at each call (ML-EAT's tail per level,
    LPBS's statistic of means) are listed in :attr:`set_by_method` with the
    reason: the convention refuses to change them and does not read them, its
    ``resampling`` keeps their defaults, and :meth:`to_dict` leaves them out.
    """

    resampling: Resampling
    #: Option -> why the method sets it at each call instead of the convention.
    set_by_method: ClassVar[Mapping[str, str]] = MappingProxyType({})

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.resampling, Resampling):
            raise TypeError(f"resampling must be a Resampling, got "
                            f"{type(self.resampling).__name__}")
        default = Resampling()
        for option, why in self.set_by_method.items():
            if getattr(self.resampling, option) != getattr(default, option):
                raise ValueError(f"{type(self).__name__}: {why}; leave resampling.{option} at "
                                 f"its default {getattr(default, option)!r}")

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: forwards the options to `resampling`.
        if name in OPTION_NAMES:
            why = type(self).set_by_method.get(name)
            if why is not None:
                raise AttributeError(f"{type(self).__name__} has no option {name!r}: {why}")
            return getattr(object.__getattribute__(self, "resampling"), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def replace(self: C, **changes: Any) -> C:
        """A copy with some fields or resampling options changed (``name`` gets a ``*``).

        Raises
        ------
        ValueError
            For an option the method sets itself (:attr:`set_by_method`).
        """
        options = {k: changes.pop(k) for k in list(changes) if k in OPTION_NAMES}
        if options:
            assert isinstance(self, PermutationConvention)
            fixed = sorted(set(options) & set(self.set_by_method))
            if fixed:
                raise ValueError(f"{type(self).__name__} cannot change {fixed}: "
                                 + "; ".join(self.set_by_method[k] for k in fixed))
            base = changes.get("resampling", self.resampling)
            if not isinstance(base, Resampling):
                raise TypeError(f"resampling must be a Resampling, got {type(base).__name__}")
            changes["resampling"] = base.replace(**options)
        return ConventionBase.replace(self, **changes)

    def _record(self, name: str, value: object) -> dict[str, object]:
        if name != "resampling":
            return {name: value}
        assert isinstance(value, Resampling)
        return {k: v for k, v in value.as_kwargs().items() if k not in self.set_by_method}


def lookup_preset(value: object, presets: Mapping[str, C], *, kind: str, cls: type[C]) -> C:
    """A convention given itself or a preset name: the one lookup behind every ``get_*``.

    Parameters
    ----------
    value
        A ``cls`` instance (returned as it is) or the name of one of ``presets``.
    presets
        Preset name -> convention.
    kind
        What is looked up, for the message (``"ML-EAT convention"``).
    cls
        The convention class the method takes.

    Raises
    ------
    UnknownNameError
        For anything else, in one way (it is a KeyError and a ValueError): an
        unknown name, a value that is neither a name nor a ``cls`` (a list, a
        number), or another method's convention. The message names ``kind``
        and lists the presets.
    """
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        if value in presets:
            return presets[value]
        raise UnknownNameError(kind, value, presets)
    got = type(value).__name__
    what = f"{kind} (expected a preset name or a {cls.__name__}, got {got})"
    name = value.name if isinstance(value, ConventionBase) else value
    raise UnknownNameError(what, name, presets)


@dataclass(frozen=True)
class Convention(PermutationConvention):
    """Every choice that changes a WEAT effect size or p-value.

    Attributes
    ----------
    name
        Short identifier (``"sent-bias"``, ``"wefe"``, …).
    ddof
        Delta degrees of freedom of the standard deviation in the effect-size
        denominator (1: sample SD; 0: population SD).
    resampling
        The permutation-test options (:class:`~biaslib.stats.resampling.Resampling`:
        tail, ties, plus_one, n_resamples, exact_limit, replacement, seed,
        statistic), each also read as ``convention.<option>``; ``seed`` also
        seeds the ``"subsample"`` policy.
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

    ddof: int = 1
    resampling: Resampling = field(default=Resampling(), kw_only=True)
    p_method: PMethod = "permutation"
    unequal_targets: UnequalTargets = "allow"
    equal_attributes: bool = False

    def __post_init__(self) -> None:
        # Refuse wrong values here, when the convention is made, not deep in a test run.
        super().__post_init__()
        # numpy ints are accepted and stored as Python ones (frozen: set through object).
        object.__setattr__(self, "ddof", check_ddof(self.ddof))
        if self.unequal_targets not in ("allow", "error", "subsample"):
            raise ValueError(f"unknown unequal_targets policy {self.unequal_targets!r}")
        if self.p_method not in ("permutation", "normal"):
            raise ValueError(f"unknown p_method {self.p_method!r}")
        if not isinstance(self.equal_attributes, bool):
            raise TypeError(f"equal_attributes must be True or False, got "
                            f"{self.equal_attributes!r}")


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
    resampling=Resampling(n_resamples=99_999, exact_limit=100_000, seed=1111),
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
    resampling=Resampling(exact_limit=None, n_resamples=100_000),
    description=(
        "Caliskan et al. (2017), as described by Mind Your Bias (App. A.2): 100,000 "
        "permutations, a normal distribution fitted to their statistics, p = P(N > s); ddof=1."
    ),
)

#: The WEFE library's WEAT (re-splits drawn with replacement, difference of sums).
WEFE = Convention(
    name="wefe",
    ddof=0,
    resampling=Resampling(ties="gt", plus_one=True, exact_limit=None, replacement=True,
                          n_resamples=10_000, seed=0, statistic="sum"),
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
    resampling=Resampling(ties="gt", plus_one=False, exact_limit=1_000_000, n_resamples=1_000,
                          seed=42),
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
    """A WEAT :class:`Convention` given a preset name (:data:`PRESETS`) or the convention.

    Raises
    ------
    UnknownNameError
        For anything else (see :func:`lookup_preset`).
    """
    return lookup_preset(convention, PRESETS, kind="convention", cls=Convention)
