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
options. Each convention class holds its own presets
(:meth:`~ConventionBase.declare_presets`, once, in the method's module), and
:meth:`ConventionBase.of` is the one lookup every method makes:
``Convention.of("wefe")`` is :data:`WEFE`, ``Convention.of(WEFE)`` too.
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
]

UnequalTargets = Literal["allow", "error", "subsample"]
PMethod = Literal["permutation", "normal"]

C = TypeVar("C", bound="ConventionBase")


@dataclass(frozen=True)
class ConventionBase:
    """What every method's convention has: a name, a description, and marked copies.

    Each method's convention (:class:`Convention` for WEAT,
    :class:`~biaslib.methods.mleat.MleatConvention`,
    :class:`~biaslib.methods.ripa.RipaConvention`…) is a frozen dataclass
    derived from this one. Its module declares the class's named presets once
    (:meth:`declare_presets`), and every function of the method takes
    ``convention=`` (keyword only) as a preset's name or an instance, which
    :meth:`of` turns into the instance.

    Attributes
    ----------
    name
        Short identifier of the convention (a preset's key).
    description
        One line saying what the convention is and where it comes from
        (keyword only, so that a subclass's own fields follow ``name``).
    kind
        Class attribute: what the convention is called in a lookup's message
        (``"RIPA convention"``).
    presets
        Class attribute: preset name → convention, read-only (empty until
        :meth:`declare_presets`).
    """

    name: str
    description: str = field(default="", kw_only=True)
    kind: ClassVar[str] = "convention"
    presets: ClassVar[Mapping[str, ConventionBase]] = MappingProxyType({})

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"name must be a non-blank string, got {self.name!r}")
        if not isinstance(self.description, str):
            raise TypeError(f"description must be a string, got {type(self.description).__name__}")

    @classmethod
    def of(cls: type[C], convention: C | str) -> C:
        """The convention ``convention`` names: one of :attr:`presets` by name, or itself.

        The one lookup behind every method's ``convention=``
        (``RipaConvention.of("wefe")`` is :data:`~biaslib.methods.ripa.RIPA_WEFE`).

        Parameters
        ----------
        convention
            An instance of this class (returned as it is, a modified copy
            included) or the name of one of its :attr:`presets`.

        Raises
        ------
        UnknownNameError
            For anything else, in one way (it is a KeyError and a ValueError): an
            unknown name, a value that is neither a name nor an instance of this
            class (a list, a number), or another method's convention. The message
            names the class's :attr:`kind` and lists its presets.

        Examples
        --------
        >>> from biaslib.stats.conventions import WEFE, Convention
        >>> Convention.of("wefe") is WEFE, Convention.of(WEFE) is WEFE
        (True, True)
        >>> Convention.of("seat")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        biaslib.errors.UnknownNameError: unknown convention 'seat'; known: ['biaslib', ...]
        """
        if isinstance(convention, cls):
            return convention
        presets = cls.presets
        if isinstance(convention, str):
            if convention in presets:
                return presets[convention]  # type: ignore[return-value]
            raise UnknownNameError(cls.kind, convention, presets)
        got = type(convention).__name__
        what = f"{cls.kind} (expected a preset name or a {cls.__name__}, got {got})"
        name = convention.name if isinstance(convention, ConventionBase) else convention
        raise UnknownNameError(what, name, presets)

    @classmethod
    def declare_presets(cls: type[C], *conventions: C) -> Mapping[str, C]:
        """Make ``conventions`` this class's :attr:`presets`: once, in the method's module.

        Returns
        -------
        Mapping
            The read-only table preset name → convention (the module keeps it
            as its ``*_PRESETS``).

        Raises
        ------
        TypeError
            If a convention is not an instance of this very class.
        ValueError
            If two presets share a name, none is given, or the class has its
            presets already.
        """
        if "presets" in vars(cls):
            raise ValueError(f"{cls.__name__} has its presets already: "
                             f"{sorted(vars(cls)['presets'])}")
        if not conventions:
            raise ValueError(f"{cls.__name__}: no presets given")
        for c in conventions:
            if type(c) is not cls:
                raise TypeError(f"a preset of {cls.__name__} must be one, got "
                                f"{type(c).__name__} {getattr(c, 'name', c)!r}")
        names = [c.name for c in conventions]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"{cls.__name__}: two presets named {twice}")
        table: Mapping[str, C] = MappingProxyType({c.name: c for c in conventions})
        cls.presets = table  # type: ignore[assignment]
        return table

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

#: Preset name → convention (:meth:`ConventionBase.of` looks them up).
PRESETS: Mapping[str, Convention] = Convention.declare_presets(
    BIASLIB, SENT_BIAS, CALISKAN, WEFE, RESPONSIBLY, MIND_YOUR_BIAS)
