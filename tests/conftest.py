from pathlib import Path

import pytest
from shared_paths import REFERENCE_DIR, require


@pytest.fixture(scope="module")
def reference_dir() -> Path:
    """The reference copies of the original repositories' word lists and sentences."""
    return require(REFERENCE_DIR, "reference copies of the original word lists and sentences")


@pytest.fixture(scope="module")
def minilm():
    """all-MiniLM-L6-v2 (WordPiece, uncased), no cache, no progress bars."""
    from biaslib.embeddings.transformer import TransformerEncoder

    return TransformerEncoder("all-MiniLM-L6-v2", cache=False, progress=False)


@pytest.fixture(scope="module")
def smol():
    """SmolLM2-135M-Instruct (byte-level BPE, cased, causal), no cache, no progress bars."""
    from biaslib.embeddings.transformer import TransformerEncoder

    return TransformerEncoder("SmolLM2-135M-Instruct", cache=False, progress=False)
