"""The one result shape every method follows, and the core columns of every tidy table.

Every method returns its own frozen result (:class:`~biaslib.methods.weat.WeatResult`,
:class:`~biaslib.methods.ceat.CeatResult`, :class:`~biaslib.methods.mleat.MleatResult`,
:class:`~biaslib.methods.lpbs.LpbsResult`, :class:`~biaslib.methods.lpbs.LpbsCeatResult`,
:class:`~biaslib.methods.same.BiasScoreResult`) with the fields its paper needs.
Each of them also follows :class:`BiasResult`, so that code that compares
methods (the synthesis, the specification curves) reads one shape and needs no
adapter per method:

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
approximation, e.g. :func:`biaslib.evaluate.speccurve.d_confidence_interval`).

:data:`CORE_COLUMNS` are the columns every tidy frame and stored table starts
with; :func:`core_record` builds them from a result and the labels a result
cannot know (test, stimulus variant, model, level, pooling, layer),
:func:`check_core_columns` checks a frame against them and :func:`core_first`
orders a frame's columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import pandas as pd

__all__ = [
    "CORE_COLUMNS",
    "CORE_NUMBER_COLUMNS",
    "CORE_TEXT_COLUMNS",
    "RECORD_KEYS",
    "BiasResult",
    "ResultRecord",
    "check_core_columns",
    "core_first",
    "core_record",
]

#: The keys of :meth:`BiasResult.record`, in order.
RECORD_KEYS = ("method", "convention", "effect_size", "p_value", "ci_low", "ci_high", "n")

#: Core columns that hold text: what was run, on what, how. Empty text where a
#: choice does not apply (a static embedding has no layer).
CORE_TEXT_COLUMNS = ("method", "test", "variant", "model", "level", "pooling", "layer",
                     "convention")
#: Core columns that hold numbers (NaN where the method defines none, or a row was not run).
CORE_NUMBER_COLUMNS = ("effect_size", "p_value", "ci_low", "ci_high", "n")
#: The first columns of every tidy frame and stored table, in this order.
#:
#: ``test`` is the paper's test id (``"C1"``, ``"I1"``, ``"Dis"``,
#: ``"DB-likable"``), ``variant`` the stimulus variant (``"as published"``,
#: ``"b-variant"``, ``"name"``, ``"term-m"``, ``"name, reduced"``…), ``level``
#: ``"word"``, ``"sentence"`` or ``"word in context"``, ``pooling`` and
#: ``layer`` the values the encoder used (never parsed from the model label).
#: ``ci_low``, ``ci_high`` and ``n`` are core too: every result defines them
#: (NaN where it has none), the specification curve draws the interval and the
#: synthesis weighs by ``n``, so neither needs a per-method adapter to find them.
CORE_COLUMNS = (*CORE_TEXT_COLUMNS, *CORE_NUMBER_COLUMNS)


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


class ResultRecord:
    """Mixin giving a result :meth:`record` from its :class:`BiasResult` properties.

    A result class inherits it and defines ``method``, ``effect_size``,
    ``p_value``, ``n``, ``ci`` and ``convention_name``; the record is built
    here once, so every method's record has the same keys in the same order.
    """

    __slots__ = ()

    def record(self: BiasResult) -> dict[str, object]:
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


def core_record(
    result: BiasResult,
    *,
    test: str,
    variant: str,
    model: str,
    level: str,
    pooling: str = "",
    layer: str = "",
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
        The model as printed beside the number.
    level
        ``"word"``, ``"sentence"``, ``"word in context"``…
    pooling, layer
        The pooling and layer the encoder used (``""`` where none applies).
    method
        The method as the table names it, where it differs from the result's
        (s-SEAT and w-SEAT are the WEAT on sentences or words in context).

    Returns
    -------
    dict
        Keys :data:`CORE_COLUMNS`, in that order.

    Examples
    --------
    >>> from biaslib.methods.weat import weat
    >>> r = weat([[1.0, 0.0], [0.9, 0.1]], [[0.0, 1.0], [0.1, 0.9]],
    ...          [[1.0, 0.0]], [[0.0, 1.0]])
    >>> row = core_record(r, test="T", variant="as published", model="toy", level="word")
    >>> list(row) == list(CORE_COLUMNS), row["method"], row["n"]
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
    return {c: row[c] for c in CORE_COLUMNS}


def check_core_columns(frame: pd.DataFrame) -> None:
    """Refuse a frame that lacks a core column or holds the wrong kind of value in one.

    Text columns (:data:`CORE_TEXT_COLUMNS`) must hold strings only (empty
    text where a choice does not apply, never NaN); number columns
    (:data:`CORE_NUMBER_COLUMNS`) must have a numeric dtype (NaN allowed).

    Raises
    ------
    ValueError
        Naming every missing core column, and every column of the wrong kind.
    """
    missing = [c for c in CORE_COLUMNS if c not in frame.columns]
    problems = []
    if missing:
        problems.append(f"missing core columns {missing}")
    for col in CORE_TEXT_COLUMNS:
        if col in frame.columns:
            not_text = frame[col][~frame[col].map(lambda v: isinstance(v, str))]
            if len(not_text):
                problems.append(f"{col!r} must hold text, found {not_text.iloc[0]!r}")
    for col in CORE_NUMBER_COLUMNS:
        if col in frame.columns and not (pd.api.types.is_numeric_dtype(frame[col])
                                         and not pd.api.types.is_bool_dtype(frame[col])):
            problems.append(f"{col!r} must be numeric, has dtype {frame[col].dtype}")
    if problems:
        raise ValueError("not a table of the core shape: " + "; ".join(problems))


def core_first(frame: pd.DataFrame, core: Mapping[str, object] | None = None) -> pd.DataFrame:
    """The frame with the core columns first (in :data:`CORE_COLUMNS` order), the rest after.

    Core columns the frame lacks are left out unless ``core`` gives them a
    value for every row (e.g. ``{"layer": ""}``). The other columns keep their order.
    """
    frame = frame.copy()
    for col, value in dict(core or {}).items():
        if col not in CORE_COLUMNS:
            raise ValueError(f"{col!r} is not a core column ({list(CORE_COLUMNS)})")
        if col not in frame.columns:
            frame[col] = value
    first = [c for c in CORE_COLUMNS if c in frame.columns]
    return frame[first + [c for c in frame.columns if c not in first]]
