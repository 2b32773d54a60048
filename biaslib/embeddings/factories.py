"""Encoder factories for :class:`~biaslib.embeddings.models.EncoderSpec`: build on call.

The book's model lists (``OFFLINE_SEAT_MODELS``…) are defined at import time but
must not load a model or import torch until a column is computed; these factories
defer that. They live apart from :mod:`biaslib.embeddings.models`, which the
encoders import for :class:`~biaslib.embeddings.models.ModelSpec`, so that
``models`` never refers back to an encoder (no import loop).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from biaslib.embeddings.base import ContextEncoder
from biaslib.embeddings.static import BagOfWordsEncoder, StaticEmbeddings, glove_6b_50d

__all__ = ["cbow_glove_6b_50d", "cbow_paper", "elmo", "gensen", "infersent", "transformer",
           "universal_sentence_encoder"]


def transformer(model: str, **options: object) -> Callable[[], ContextEncoder]:
    """A factory of ``TransformerEncoder(model, **options)``; torch is imported when it is called.

    Examples
    --------
    >>> from biaslib.embeddings.models import EncoderSpec
    >>> make = transformer("all-MiniLM-L6-v2", progress=False)
    >>> spec = EncoderSpec("MiniLM", make, sentence_pooling="mean")
    >>> spec.label, spec.word_pooling
    ('MiniLM', 'mean')
    """

    def make() -> ContextEncoder:
        # biaslib.embeddings.transformer imports torch at module level: load it only here.
        from biaslib.embeddings.transformer import TransformerEncoder

        return TransformerEncoder(model, **options)  # type: ignore[arg-type]

    return make


def cbow_glove_6b_50d() -> ContextEncoder:
    """SEAT's bag-of-words baseline ("CBoW") on GloVe 6B 50d (lower-cased look-ups)."""
    return BagOfWordsEncoder(glove_6b_50d(case="lower"))


def _paper_vectors(name: str) -> StaticEmbeddings:
    # The readers of the papers' vector files live in vector_files (built alongside);
    # imported here so that defining a model list reads no file.
    from biaslib.embeddings.vector_files import paper_vectors

    return paper_vectors(name)


def _existing(path: str | Path) -> Path:
    """``path``, checked before the (large) word vectors are read."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"no model file at {path}")
    return Path(path)


def cbow_paper(name: str = "glove.840B.300d") -> Callable[[], ContextEncoder]:
    """A factory of SEAT's "CBoW" on the paper's vectors (May et al.: GloVe 840B, cased).

    sent-bias (``encoders/bow.py``) looks tokens up as they are, so the look-ups are exact.
    """

    def make() -> ContextEncoder:
        return BagOfWordsEncoder(_paper_vectors(name).with_case("exact"))

    return make


def infersent(version: int = 1, path: str | None = None) -> Callable[[], ContextEncoder]:
    """A factory of InferSent from the authors' release (May et al.: version 1, GloVe 840B).

    ``path`` is ``infersent<version>.pkl``; default: downloaded once from
    :data:`~biaslib.embeddings.sentence_encoders.INFERSENT_URLS` into the cache.
    """

    def make() -> ContextEncoder:
        from biaslib.embeddings import sentence_encoders as se

        file = _existing(path) if path else se.model_file(se.INFERSENT_URLS[version])
        return se.InferSentEncoder(file, _paper_vectors(se.INFERSENT_VECTORS[version]),
                                   version=version, allow_pickle=True)

    return make


def gensen(prefix: str | None = None, folder: str | None = None) -> Callable[[], ContextEncoder]:
    """A factory of GenSen from the authors' release (May et al.: ``nli_large_bothskip_parse``).

    ``folder`` holds ``<prefix>.model`` and ``<prefix>_vocab.pkl``; default: both downloaded
    once from :data:`~biaslib.embeddings.sentence_encoders.GENSEN_URL` into the cache.
    """

    def make() -> ContextEncoder:
        from biaslib.embeddings import sentence_encoders as se

        name = prefix or se.GENSEN_PAPER_MODEL
        files = [f"{name}.model", f"{name}_vocab.pkl"]
        if folder is not None:
            model, vocab = (_existing(Path(folder) / f) for f in files)
        else:
            model, vocab = (se.model_file(se.GENSEN_URL.format(file=f)) for f in files)
        return se.GenSenEncoder(model, vocab, _paper_vectors("glove.840B.300d"),
                                allow_pickle=True)

    return make


def universal_sentence_encoder(handle: str | None = None) -> Callable[[], ContextEncoder]:
    """A factory of the Universal Sentence Encoder on TF-Hub (May et al.: version 2, DAN)."""

    def make() -> ContextEncoder:
        from biaslib.embeddings import sentence_encoders as se

        return se.UniversalSentenceEncoder(handle or se.USE_PAPER_HANDLE)

    return make


def elmo(**options: object) -> Callable[[], ContextEncoder]:
    """A factory of ``ElmoEncoder(**options)`` (AllenNLP's ELMo release files); torch loads on call.

    Default: :data:`~biaslib.embeddings.elmo.PAPER_ELMO_RELEASE`, the release sent-bias
    ran for SEAT Table 4, downloaded once (about 374 MB) into the biaslib cache.

    Examples
    --------
    >>> make = elmo(progress=False)
    >>> callable(make)
    True
    """

    def make() -> ContextEncoder:
        from biaslib.embeddings.elmo import ElmoEncoder

        return ElmoEncoder(**options)  # type: ignore[arg-type]

    return make
