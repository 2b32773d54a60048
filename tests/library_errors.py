"""Helpers of the property tests: did a call fail with one of the library's own errors?

Shared by ``test_properties_stats.py`` and ``test_properties_methods.py`` (imported as
``shared_paths`` is: pytest puts ``tests/`` on the path).
"""

from __future__ import annotations

import re

import pytest

from biaslib import errors


def assert_library_error(exc: BaseException, *names: str) -> None:
    """``exc`` is one of biaslib's own errors, or a TypeError/ValueError naming an argument.

    numpy's and pandas' own messages ("could not convert string to float",
    "setting an array element with a sequence") name no argument, so fail here.
    """
    own = tuple(getattr(errors, name) for name in errors.__all__ if name[0].isupper()
                and isinstance(getattr(errors, name), type)
                and issubclass(getattr(errors, name), Exception))
    if isinstance(exc, own):
        return
    assert isinstance(exc, TypeError | ValueError), f"{type(exc).__module__}.{type(exc).__name__}"
    message = str(exc)
    # As a word: "c" must not match inside numpy's "ufunc".
    assert any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", message) for name in names), (
        f"no argument named in {message!r}")


def raised(call) -> BaseException:
    """The exception ``call()`` raises (failing the test when it returns)."""
    try:
        result = call()
    except Exception as exc:  # any type: the caller checks which
        return exc
    pytest.fail(f"no error, returned {result!r}")
