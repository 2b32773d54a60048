"""Embedding sources behind one interface: words in, vectors out.

:class:`TransformerEncoder` (contextual models) is imported lazily, so that
static embeddings and all metric code work without torch.
"""

from biaslib.embeddings.base import EmbeddedSet, EmbeddedTest, Embedder, embed_test
from biaslib.embeddings.static import BagOfWordsEncoder, StaticEmbeddings, glove_6b_50d
from biaslib.embeddings.vector_files import googlenews_subset
from biaslib.errors import MissingWordsError

__all__ = [
    "BagOfWordsEncoder",
    "EmbeddedSet",
    "EmbeddedTest",
    "Embedder",
    "MissingWordsError",
    "StaticEmbeddings",
    "TransformerEncoder",
    "embed_test",
    "glove_6b_50d",
    "googlenews_subset",
]


def __getattr__(name: str) -> object:
    if name == "TransformerEncoder":
        from biaslib.embeddings.transformer import TransformerEncoder

        return TransformerEncoder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
