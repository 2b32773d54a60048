"""One call shape for the entry points of :mod:`biaslib.evaluate`, as for the methods.

Every public function of a ``biaslib.evaluate`` module (its ``__all__``) that takes a
convention — a parameter named ``convention``, ``conventions`` or ``<method>_conventions``
— is found here by reading the modules, so a new entry point is held to the same rules
without being listed. Each one

* takes every such parameter keyword-only, defaulting to a preset of its convention class
  (a sequence of presets for the plural);
* refuses the convention passed by position with Python's own :class:`TypeError`;
* looks it up with :meth:`~biaslib.stats.conventions.ConventionBase.of` before it reads
  any other input: an unknown preset name is an :class:`UnknownNameError` that lists the
  presets, raised before a test is loaded, a word embedded or an image downloaded (the
  other inputs here are placeholders that any use would trip over).

:mod:`tests.test_method_contract` holds the method functions below them to the same shape.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable
from typing import Any

import pytest

import biaslib.evaluate
from biaslib.errors import UnknownNameError
from biaslib.stats.conventions import ConventionBase

#: The name of a parameter that takes one convention or several.
CONVENTION_PARAMETER = re.compile(r"(^|_)conventions?$")

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def evaluate_functions() -> dict[str, Callable[..., Any]]:
    """``"module.function"`` -> every public function defined in a biaslib.evaluate module."""
    found = {}
    for info in pkgutil.iter_modules(biaslib.evaluate.__path__):
        module = importlib.import_module(f"biaslib.evaluate.{info.name}")
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isfunction(obj) and obj.__module__ == module.__name__:
                found[f"{info.name}.{name}"] = obj
    return found


def convention_parameters(function: Callable[..., Any]) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(function).parameters.values()
            if CONVENTION_PARAMETER.search(p.name)]


FUNCTIONS = {name: f for name, f in evaluate_functions().items() if convention_parameters(f)}
NAMES = sorted(FUNCTIONS)
PARAMETERS = [(name, p.name) for name in NAMES for p in convention_parameters(FUNCTIONS[name])]


class Placeholder:
    """An input that no entry point can use: reading it fails with :class:`Unusable`."""

    def __getattr__(self, name: str) -> Any:
        raise Unusable(f"the placeholder input was read (.{name})")

    def __iter__(self) -> Any:
        raise Unusable("the placeholder input was iterated")


class Unusable(Exception):
    """Raised when an entry point reads a placeholder input."""


def _required(function: Callable[..., Any]) -> tuple[list[Placeholder], dict[str, Placeholder]]:
    """A placeholder for each parameter without a default (positional, or by keyword)."""
    args, kwargs = [], {}
    for p in inspect.signature(function).parameters.values():
        if p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL,
                                                                   p.VAR_KEYWORD):
            continue
        if p.kind in _POSITIONAL:
            args.append(Placeholder())
        else:
            kwargs[p.name] = Placeholder()
    return args, kwargs


def _is_preset(value: object) -> bool:
    return (isinstance(value, ConventionBase)
            and type(value).presets.get(value.name) is value)


def test_the_entry_points_are_found():
    """The reading of the modules finds (at least) every entry point that takes one today."""
    assert {"weat.run_weat", "weat.weat_table", "seat.run_seat", "seat.seat_table",
            "ceat.run_ceat", "ceat.ceat_table", "mleat.run_mleat", "mleat.mleat_table",
            "mleat.mleat_context_table", "mleat_clip.clip_mleat_table", "lpbs.run_lpbs",
            "lpbs.lpbs_table", "speccurve.specification_frame"} <= set(NAMES)
    assert ("speccurve.specification_frame", "ceat_conventions") in PARAMETERS


@pytest.mark.parametrize(("name", "parameter"), PARAMETERS)
def test_conventions_are_keyword_only_with_preset_defaults(name, parameter):
    p = inspect.signature(FUNCTIONS[name]).parameters[parameter]
    assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{name}: {parameter} is {p.kind}"
    if parameter.endswith("conventions"):
        assert isinstance(p.default, tuple) and p.default, f"{name}: {parameter}={p.default!r}"
        assert all(_is_preset(c) for c in p.default), f"{name}: not presets: {p.default!r}"
    else:
        assert _is_preset(p.default), f"{name}: {parameter}={p.default!r} is not a preset"


@pytest.mark.parametrize(("name", "parameter"), PARAMETERS)
def test_a_convention_by_position_is_a_type_error(name, parameter):
    """The preset passed where a caller would put it: after the arguments that precede it."""
    function = FUNCTIONS[name]
    parameters = list(inspect.signature(function).parameters.values())
    where = [p.name for p in parameters].index(parameter)
    before = [Placeholder() for p in parameters[:where] if p.kind in _POSITIONAL]
    default = parameters[where].default
    with pytest.raises(TypeError, match=rf"{function.__name__}\(\) takes .*positional"):
        function(*before, default)


@pytest.mark.parametrize(("name", "parameter"), PARAMETERS)
def test_an_unknown_preset_is_refused_before_any_input_is_read(name, parameter):
    function = FUNCTIONS[name]
    args, kwargs = _required(function)
    unknown = (["no-such-preset"] if parameter.endswith("conventions")
               else "no-such-preset")
    with pytest.raises(UnknownNameError, match="'no-such-preset'; known: ") as info:
        function(*args, **kwargs, **{parameter: unknown})
    default = inspect.signature(function).parameters[parameter].default
    preset = default[0] if isinstance(default, tuple) else default
    assert repr(preset.name) in str(info.value)  # the presets are listed


@pytest.mark.parametrize(("name", "parameter"), PARAMETERS)
def test_another_methods_convention_is_refused(name, parameter):
    """The lookup is the convention class's own: a preset of another method is refused."""
    from biaslib.methods.ripa import RIPA_PRESETS

    function = FUNCTIONS[name]
    args, kwargs = _required(function)
    other = next(iter(RIPA_PRESETS.values()))
    value = [other] if parameter.endswith("conventions") else other
    with pytest.raises(UnknownNameError, match="expected a preset name or a"):
        function(*args, **kwargs, **{parameter: value})


@pytest.mark.parametrize(("name", "parameter"), PARAMETERS)
def test_a_preset_name_passes_the_lookup(name, parameter):
    """A preset's name is looked up, not refused: the call goes on, to the placeholders.

    (Whether a name and its preset then give the same numbers is the methods' contract,
    ``tests/test_method_contract.py``, since the entry points hand the looked-up preset on.)
    """
    function = FUNCTIONS[name]
    args, kwargs = _required(function)
    default = inspect.signature(function).parameters[parameter].default
    by_name = ([c.name for c in default] if parameter.endswith("conventions")
               else default.name)
    with pytest.raises(Exception) as info:  # any error but the lookup's
        function(*args, **kwargs, **{parameter: by_name})
    assert not isinstance(info.value, UnknownNameError), info.value
