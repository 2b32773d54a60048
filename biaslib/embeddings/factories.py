"""Encoder factories for :class:`~biaslib.embeddings.models.EncoderSpec`: build on call.

The book's model lists (``OFFLINE_SEAT_MODELS``…) are defined at import time but
must not load a model or import torch until a column is computed; these factories
defer that. They live apart from :mod:`biaslib.embeddings.models`, which the
encoders import for :class:`~biaslib.embeddings.models.ModelSpec`, so that
``models`` never refers back to an encoder (no import loop).
"""

from __future__ import annotations

from collections.abc import Callable

from biaslib.embeddings.base import ContextEncoder
from biaslib.embeddings.static import BagOfWordsEncoder, glove_6b_50d

__all__ = ["cbow_glove_6b_50d", "elmo", "transformer"]


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


def elmo(**options: object) -> Callable[[], ContextEncoder]:
    """A factory of ``ElmoEncoder(**options)`` (AllenNLP's ELMo release files); torch loads on call.

    Default: :data:`~biaslib.embeddings.elmo.PAPER_ELMO`, the release sent-bias
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
