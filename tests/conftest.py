from pathlib import Path

import pytest
from shared_paths import REFERENCE_DIR, require


@pytest.fixture(scope="module")
def reference_dir() -> Path:
    """The reference copies of the original repositories' word lists and sentences."""
    return require(REFERENCE_DIR, "reference copies of the original word lists and sentences")
