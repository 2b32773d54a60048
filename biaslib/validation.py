"""Argument checks shared by the package: one wording for one kind of mistake.

Python quietly accepts many wrong arguments: ``True`` is an int, ``2.0`` can
index nothing but compares equal to ``2``, a string is a sequence of
characters, and ``"José"`` may be spelled with a combining accent that no
vocabulary contains. These helpers refuse or normalise such values with a
message that names the argument and the value, before it reaches numpy,
torch or SQLite, where the error would be obscure — or, worse, there would be
none.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "check_bool",
    "check_ddof",
    "check_int",
    "check_number",
    "check_seed",
    "check_strings",
    "check_words",
    "nfc",
    "no_string",
    "real_array",
]


def nfc(text: str) -> str:
    """``text`` in Unicode normal form C: ``e`` + U+0301 (combining acute) becomes ``é``."""
    return unicodedata.normalize("NFC", text)


def _allowed(minimum: int | None, allow_none: bool, none_means: str) -> str:
    base = {None: "an int", 0: "a non-negative int", 1: "a positive int"}.get(
        minimum, f"an int >= {minimum}")
    if not allow_none:
        return base
    return f"None ({none_means}) or {base}" if none_means else f"None or {base}"


def check_int(value: object, name: str, *, minimum: int | None = None,
              allow_none: bool = False, none_means: str = "") -> int | None:
    """``value`` as an int, refusing bools, floats and strings.

    Parameters
    ----------
    value
        What the caller passed.
    name
        The argument's name, for the message.
    minimum
        Smallest value allowed, if any.
    allow_none, none_means
        Accept ``None`` (and say what it means in the message, e.g. "keep all").

    Raises
    ------
    TypeError
        If ``value`` is not an integer (``None`` only with ``allow_none``).
    ValueError
        If it is below ``minimum``.
    """
    if value is None and allow_none:
        return None
    allowed = _allowed(minimum, allow_none, none_means)
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be {allowed}, got {value!r} ({type(value).__name__})")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return int(value)


def check_seed(seed: object, name: str = "seed") -> int | None:
    """A seed for :func:`numpy.random.default_rng`: an int ≥ 0, or ``None`` (fresh entropy)."""
    return check_int(seed, name, minimum=0, allow_none=True, none_means="fresh entropy")


def no_string(values: object, name: str) -> Iterable:
    """``values`` unless it is a single string (iterated letter by letter) or not iterable.

    Raises
    ------
    TypeError
        If ``values`` is a ``str`` or bytes — ``["C1"]`` was meant, not
        ``"C1"`` — or not iterable at all.
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a list, got the single string {values!r}; a string "
                        f"would be iterated letter by letter (pass [{values!r}] for one)")
    if not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list, got {type(values).__name__}")
    return values


def check_strings(values: object, name: str, item: str = "entry") -> list[str]:
    """A list of non-blank strings (names of sources, months, tests…).

    Raises
    ------
    TypeError
        If ``values`` is a single string or not a list, or holds something
        that is not a str.
    ValueError
        If it holds an empty or whitespace-only string.
    """
    items = list(no_string(values, name))
    for value in items:
        if not isinstance(value, str):
            raise TypeError(f"{name}: the {item} {value!r} is a {type(value).__name__}, "
                            "not a string")
    blank = [value for value in items if not value.strip()]
    if blank:
        raise ValueError(f"{name} has blank {item} values {blank}")
    return items


def check_words(values: object, name: str) -> tuple[str, ...]:
    """Stimuli as a tuple of NFC-normalised, non-blank strings, in the order given.

    The one check of every place a user's words enter: word sets, corpus
    look-ups, embedders.

    Raises
    ------
    TypeError
        If ``values`` is a single string or holds a non-string.
    ValueError
        If it holds a blank stimulus.
    """
    return tuple(nfc(w) for w in check_strings(values, name, item="stimulus"))


def check_bool(value: object, name: str) -> bool:
    """``value`` as a bool, refusing ints and strings (``"False"`` and ``"no"`` are truthy).

    numpy bools are accepted and returned as Python ones.

    Raises
    ------
    TypeError
        If ``value`` is not ``True`` or ``False``.
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def check_ddof(value: object, name: str = "ddof") -> int:
    """Delta degrees of freedom of a standard deviation: 0 (population) or 1 (sample).

    Every method in the book uses one of the two; ``ddof=2`` or ``-1`` would
    give a number that no paper reports. numpy integers are accepted.

    Raises
    ------
    ValueError
        If ``value`` is not the int 0 or 1 (bools, floats and strings included:
        one error type for every wrong ddof, as the conventions have always raised).
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, Integral) or value not in (0, 1):
        raise ValueError(f"{name} must be 0 (population SD) or 1 (sample SD), got {value!r} "
                         f"({type(value).__name__})")
    return int(value)


def check_number(value: object, name: str, *, minimum: float | None = None,
                 maximum: float | None = None, allow_none: bool = False) -> float | None:
    """``value`` as a finite float, refusing bools, strings, complex numbers and NaN.

    Parameters
    ----------
    value
        What the caller passed (a Python or numpy real number).
    name
        The argument's name, for the message.
    minimum, maximum
        Inclusive bounds, if any.
    allow_none
        Accept ``None`` (returned as is).

    Raises
    ------
    TypeError
        If ``value`` is not a real number (``None`` only with ``allow_none``).
    ValueError
        If it is NaN, infinite or outside the bounds.
    """
    if value is None and allow_none:
        return None
    bounds = ("" if minimum is None else f" >= {minimum}") + (
        "" if maximum is None else f"{' and' if minimum is not None else ''} <= {maximum}")
    allowed = f"{'None or ' if allow_none else ''}a finite number{bounds}"
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        raise TypeError(f"{name} must be {allowed}, got {value!r} ({type(value).__name__})")
    number = float(value)
    if not math.isfinite(number) or (minimum is not None and number < minimum) or (
            maximum is not None and number > maximum):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return number


def real_array(values: ArrayLike, name: str) -> NDArray[np.float64]:
    """``values`` as a float64 array, refusing what numpy would mangle or fail on obscurely.

    A ragged list (rows of different lengths) would fail inside numpy with a
    message that names no argument; complex values would lose their imaginary
    part in the cast; strings, ``None`` or objects are no numbers. Shape, size
    and finiteness are left to the caller, whose message says what it needs.

    Raises
    ------
    ValueError
        If ``values`` is ragged.
    TypeError
        If it holds complex numbers or anything but real numbers.
    """
    try:
        raw = np.asarray(values)
    except ValueError:  # numpy: "inhomogeneous shape"
        raise ValueError(f"{name} is ragged: its rows have different lengths; pass a "
                         "rectangular array (every row the same length)") from None
    if np.iscomplexobj(raw):
        raise TypeError(f"{name} holds complex numbers; pass real numbers (casting would "
                        "drop the imaginary part)")
    if raw.dtype.kind not in "biuf":
        first = f" (first entry {raw.ravel()[:1].tolist()[0]!r})" if raw.size else ""
        raise TypeError(f"{name} must hold real numbers, got an array of {raw.dtype}{first}")
    return raw.astype(np.float64, copy=False)
