"""The one result shape every method follows, and the core columns of every tidy table.

Every method returns its own frozen result (:class:`~biaslib.methods.weat.WeatResult`,
:class:`~biaslib.methods.ceat.CeatResult`, :class:`~biaslib.methods.mleat.MleatResult`,
:class:`~biaslib.methods.lpbs.LpbsResult`, :class:`~biaslib.methods.lpbs.LpbsCeatResult`)
with the fields its paper needs, or the shared :class:`BiasScoreResult` of the
scores that aggregate word scores (SAME, MAC, Direct Bias, RIPA, RND, ECT, RNSB,
indirect bias, the generalized WEAT, Gonen & Goldberg's tests). Each of them also
follows :class:`BiasResult`, so that code that compares methods (the synthesis,
the specification curves) reads one shape and needs no adapter per method:

===================  =========  ============================  ===================  =======
result               method     effect size                   n                    ci
===================  =========  ============================  ===================  =======
``WeatResult``       WEAT       :math:`d`                     target items         None
``CeatResult``       CEAT       CES                           samples :math:`N`    meta CI
``MleatResult``      ML-EAT     Level 1 :math:`d`             target items         None
``LpbsResult``       LPBS       :math:`d` of Kurita's eq. 11  units of A and B     None
``LpbsCeatResult``   LPBS-CEAT  CES of per-sentence LPBS      samples :math:`N`    meta CI
``BiasScoreResult``  its score  :math:`b(W, A)`               target words         None
===================  =========  ============================  ===================  =======

"Target items" are words, sentences or words in context — whatever the
permutation test re-splits (``n_x + n_y``). Where a method has no p-value (the
SAME family) ``p_value`` is ``None``; where it defines no interval ``ci`` is
``None`` (an approximate interval for :math:`d` belongs to whoever chooses the
approximation, e.g. :func:`biaslib.stats.effect_size_ci.d_confidence_interval`).
A result class inherits :class:`ResultRecord`, which holds these defaults and the
convention's name once, and defines only what differs.

:data:`CORE_COLUMNS` are the columns every tidy frame and stored table starts
with; :func:`core_record` builds them from a result and the labels a result
cannot know (test, stimulus variant, model, level, pooling, layer),
:func:`check_core_columns` checks a frame against them and :func:`core_first`
orders a frame's columns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = [
    "CORE_COLUMNS",
    "NOT_APPLICABLE",
    "RECORD_COLUMNS",
    "RECORD_KEYS",
    "BiasResult",
    "BiasScoreResult",
    "ResultRecord",
    "check_core_columns",
    "core_first",
    "core_record",
]

#: The keys of :meth:`BiasResult.record`, in order.
RECORD_KEYS = ("method", "convention", "effect_size", "p_value", "ci_low", "ci_high", "n")

#: What a core text column holds where its choice does not apply (a static embedding has
#: no layer): text, not NaN or ``""``, so that it survives a round trip through CSV.
NOT_APPLICABLE = "n/a"

#: Core columns that hold text: what was run, on what, how.
_CORE_TEXT_COLUMNS = ("method", "test", "variant", "model", "level", "pooling", "layer",
                     "convention")
#: Core columns that hold numbers (NaN where a row was not run or a method has no p-value).
_CORE_NUMBER_COLUMNS = ("effect_size", "p_value")
#: The first columns of every tidy frame and every stored results table, in this order.
#:
#: ``test`` is the paper's test id (``"C1"``, ``"I1"``, ``"Dis"``,
#: ``"DB-likable"``), ``variant`` the stimulus variant (``"as published"``,
#: ``"b-variant"``, ``"name"``, ``"term-m"``, ``"name, reduced"``…), ``model`` the
#: model's short name, ``level`` ``"word"``, ``"sentence"``, ``"word in context"``…,
#: ``pooling`` and ``layer`` the values the encoder used (never parsed from a label;
#: :data:`NOT_APPLICABLE` where a choice does not apply), ``convention`` the preset's name.
CORE_COLUMNS = (*_CORE_TEXT_COLUMNS, *_CORE_NUMBER_COLUMNS)
#: The rest of a :meth:`BiasResult.record`: the interval and the sample size. Every tidy
#: frame of :mod:`biaslib.evaluate` carries them right after :data:`CORE_COLUMNS` (NaN
#: where a method defines no interval); a stored table carries the interval where its
#: method defines one (CEAT's meta-analysis, the specification curves).
RECORD_COLUMNS = ("ci_low", "ci_high", "n")


@runtime_checkable
class BiasResult(Protocol):
    """What every method's result offers, whatever else it holds.

    Attributes
    ----------
    method
        The method's name: ``"WEAT"``, ``"CEAT"``, ``"ML-EAT"``, ``"LPBS"``,
        ``"LPBS-CEAT"``, or a SAME-family score (``"SAME"``, ``"MAC"``…).
    effect_size
        The method's headline effect size.
    p_value
        Its p-value, or ``None`` where the method has none.
    n
        The sample the statistic is over (see the module's table).
    ci
        ``(low, high)`` where the method defines an interval, else ``None``.
    convention_name
        Name of the convention the result was computed under (``""`` if none).
    """

    @property
    def method(self) -> str: ...  # noqa: D102 - documented in the class

    @property
    def effect_size(self) -> float: ...  # noqa: D102

    @property
    def p_value(self) -> float | None: ...  # noqa: D102

    @property
    def n(self) -> int: ...  # noqa: D102

    @property
    def ci(self) -> tuple[float, float] | None: ...  # noqa: D102

    @property
    def convention_name(self) -> str: ...  # noqa: D102

    def record(self) -> dict[str, object]:
        """The shared fields as a dict with the keys :data:`RECORD_KEYS`, in that order."""
        ...


class _Default:
    """A :class:`BiasResult` attribute's default, for the result classes that leave it out.

    A non-data descriptor (``__get__`` only), so that a result class may define the
    attribute as a dataclass field (stored on the instance, which wins) or as a
    property (found first on the subclass). Read on a class it raises
    :class:`AttributeError`, which tells :mod:`dataclasses` that a field of that
    name has no default.
    """

    def __init__(self, compute: Callable[[Any], object]) -> None:
        self.compute = compute
        self.__doc__ = compute.__doc__
        self.name = compute.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> object:
        if instance is None:
            raise AttributeError(f"{self.name!r} is read on a result, not on its class")
        return self.compute(instance)


def _no_p_value(result: object) -> None:
    """``None``: the method has no significance test."""
    return None


def _no_ci(result: object) -> None:
    """``None``: the method defines no confidence interval."""
    return None


def _convention_name(result: Any) -> str:
    """The name of the result's ``convention``, else its ``options["convention"]``, else ``""``."""
    convention = getattr(result, "convention", None)
    if convention is not None:
        return str(convention.name)
    options = getattr(result, "options", None) or {}
    return str(options.get("convention", ""))


class ResultRecord:
    """Base of every result: the defaults of :class:`BiasResult` and :meth:`record`, once.

    A result class inherits it and defines ``method``, ``effect_size`` and ``n``
    (as dataclass fields or properties) and whatever of the rest differs:

    ``p_value``
        ``None`` unless defined (a field or a property of the result);
    ``ci``
        ``None`` unless defined;
    ``convention_name``
        the name of the result's ``convention`` field where it has one, else
        ``options["convention"]``, else ``""``.

    The record is built here, so every method's record has the same keys in the
    same order.
    """

    __slots__ = ()

    p_value = _Default(_no_p_value)
    ci = _Default(_no_ci)
    convention_name = _Default(_convention_name)

    def record(self: Any) -> dict[str, object]:
        """``method, convention, effect_size, p_value, ci_low, ci_high, n`` (NaN for ``None``)."""
        ci = self.ci
        p = self.p_value
        return {
            "method": self.method,
            "convention": self.convention_name,
            "effect_size": float(self.effect_size),
            "p_value": math.nan if p is None else float(p),
            "ci_low": math.nan if ci is None else float(ci[0]),
            "ci_high": math.nan if ci is None else float(ci[1]),
            "n": int(self.n),
        }


@dataclass(frozen=True)
class BiasScoreResult(ResultRecord):
    r"""A set-level bias score with the word scores it aggregates.

    The result of every score that aggregates word scores: SAME, skew,
    stereotype, MAC, Direct Bias and WEAT's :math:`d` as a set score
    (:mod:`~biaslib.methods.same`), RIPA, RND, ECT, RNSB, the indirect bias, the
    generalized WEAT and Gonen & Goldberg's tests.

    Attributes
    ----------
    method
        Which score (``"SAME"``, ``"skew"``, ``"stereotype"``, ``"MAC"``,
        ``"Direct Bias"``, ``"WEAT d"``, ``"RIPA"``…).
    effect_size
        The set score :math:`b(W, A)`.
    word_scores
        :math:`b(w, A)` of every word, in input order (for the skew and the
        stereotype: the signed binary SAME scores; for WEAT: :math:`s(w,A,B)`;
        each method's function says what its are).
    n_words, n_groups
        Number of target words and of attribute sets (or groups).
    options
        The options that produced the score (``"convention"``: the
        convention's name, where the score has one; c, k, mean rule…).
    notes
        Decisions taken on the user's behalf (directions left out…).

    It follows :class:`BiasResult`: ``n`` is the number of target words; these
    scores have no p-value and no interval (``None``).
    """

    method: str
    effect_size: float
    word_scores: NDArray[np.float64] = field(repr=False)
    n_words: int
    n_groups: int
    options: Mapping[str, object] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        """Number of target words scored."""
        return self.n_words

    def to_dict(self) -> dict[str, object]:
        """One flat record: the score's name, its value, sizes, options and notes."""
        return {"method": self.method, "effect_size": self.effect_size,
                "n_words": self.n_words, "n_groups": self.n_groups,
                **{f"option_{k}": v for k, v in self.options.items()},
                "notes": "; ".join(self.notes)}

    def to_frame(self) -> pd.DataFrame:
        """A one-row :class:`pandas.DataFrame` of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])


def core_record(
    result: BiasResult,
    *,
    test: str,
    variant: str,
    model: str,
    level: str,
    pooling: str = NOT_APPLICABLE,
    layer: str = NOT_APPLICABLE,
    method: str | None = None,
) -> dict[str, object]:
    """The core columns of one table row: the result's record and the labels it cannot know.

    Parameters
    ----------
    result
        Any :class:`BiasResult`.
    test, variant
        The paper's test id and the stimulus variant
        (:func:`biaslib.evaluate.tidy.paper_test` splits a stimulus test name).
    model
        The model's short name (its full name, with the exact weights, goes in a
        table's ``encoder`` column).
    level
        ``"word"``, ``"sentence"``, ``"word in context"``…
    pooling, layer
        The pooling and layer the encoder used (:data:`NOT_APPLICABLE` where none applies).
    method
        The method as the table names it, where it differs from the result's
        (s-SEAT and w-SEAT are the WEAT on sentences or words in context).

    Returns
    -------
    dict
        Keys :data:`CORE_COLUMNS` then :data:`RECORD_COLUMNS`, in that order.

    Examples
    --------
    >>> from biaslib.methods.weat import weat
    >>> r = weat([[1.0, 0.0], [0.9, 0.1]], [[0.0, 1.0], [0.1, 0.9]],
    ...          [[1.0, 0.0]], [[0.0, 1.0]])
    >>> row = core_record(r, test="T", variant="as published", model="toy", level="word")
    >>> list(row) == [*CORE_COLUMNS, *RECORD_COLUMNS], row["method"], row["n"]
    (True, 'WEAT', 4)
    """
    rec = result.record()
    labels = {"test": test, "variant": variant, "model": model, "level": level,
              "pooling": pooling, "layer": layer}
    bad = {k: v for k, v in labels.items() if not isinstance(v, str)}
    if bad:
        raise TypeError(f"core labels must be text, got {bad}")
    row = {**rec, **labels}
    if method is not None:
        row["method"] = method
    return {c: row[c] for c in (*CORE_COLUMNS, *RECORD_COLUMNS)}


def check_core_columns(frame: pd.DataFrame) -> None:
    """Refuse a frame that lacks a core column or holds the wrong kind of value in one.

    Text columns (:data:`_CORE_TEXT_COLUMNS`) must hold non-empty strings only
    (:data:`NOT_APPLICABLE` where a choice does not apply, never NaN or ``""``); number
    columns (:data:`_CORE_NUMBER_COLUMNS`, and the :data:`RECORD_COLUMNS` a frame has)
    must have a numeric dtype (NaN allowed).

    Raises
    ------
    ValueError
        Naming every missing core column, and every column of the wrong kind.
    """
    missing = [c for c in CORE_COLUMNS if c not in frame.columns]
    problems = []
    if missing:
        problems.append(f"missing core columns {missing}")
    for col in _CORE_TEXT_COLUMNS:
        if col in frame.columns:
            not_text = frame[col][~frame[col].map(lambda v: isinstance(v, str) and v != "")]
            if len(not_text):
                problems.append(f"{col!r} must hold text, found {not_text.iloc[0]!r}")
    for col in (*_CORE_NUMBER_COLUMNS, *RECORD_COLUMNS):
        if col in frame.columns and not (pd.api.types.is_numeric_dtype(frame[col])
                                         and not pd.api.types.is_bool_dtype(frame[col])):
            problems.append(f"{col!r} must be numeric, has dtype {frame[col].dtype}")
    if problems:
        raise ValueError("not a table of the core shape: " + "; ".join(problems))


def core_first(frame: pd.DataFrame, core: Mapping[str, object] | None = None,
               /, **values: object) -> pd.DataFrame:
    """``frame`` with the core columns set, checked present and moved first, in order.

    ``core`` and the keywords name core columns (or :data:`RECORD_COLUMNS`) and give a
    scalar or one value per row; they replace a column of that name. Then
    :data:`CORE_COLUMNS` come first, the :data:`RECORD_COLUMNS` the frame has next,
    and the other columns after them, in their order.

    Raises
    ------
    ValueError
        If a name given is not a core or record column, or a core column is
        neither in ``frame`` nor given.

    Examples
    --------
    >>> f = pd.DataFrame({"x": [1], "effect_size": [0.5], "p_value": [0.01]})
    >>> out = core_first(f, method="SEAT", test="C1", variant="as published", model="m",
    ...                  level="sentence", pooling="mean", layer="last", convention="c")
    >>> list(out.columns) == [*CORE_COLUMNS, "x"]
    True
    """
    given = {**dict(core or {}), **values}
    unknown = sorted(set(given) - {*CORE_COLUMNS, *RECORD_COLUMNS})
    if unknown:
        raise ValueError(f"{unknown} are not core columns ({list(CORE_COLUMNS)}) "
                         f"or record columns ({list(RECORD_COLUMNS)})")
    out = frame.assign(**given) if given else frame.copy()
    absent = [c for c in CORE_COLUMNS if c not in out.columns]
    if absent:
        raise ValueError(f"core columns {absent} are neither in the frame nor given")
    first = [*CORE_COLUMNS, *(c for c in RECORD_COLUMNS if c in out.columns)]
    return out[first + [c for c in out.columns if c not in first]]
