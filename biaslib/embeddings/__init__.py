"""Embedding sources behind one interface: words in, vectors out."""

from biaslib.embeddings.base import (
    EmbeddedSet,
    EmbeddedTest,
    Embedder,
    MissingWordsError,
    embed_test,
)
from biaslib.embeddings.static import StaticEmbeddings, glove_6b_50d

__all__ = [
    "EmbeddedSet",
    "EmbeddedTest",
    "Embedder",
    "MissingWordsError",
    "StaticEmbeddings",
    "embed_test",
    "glove_6b_50d",
]
