"""biaslib: the computing layer of the bias-detection replication book.

The package is built in layers, listed here from the bottom up; each imports
only the layers before it (and :mod:`biaslib.errors` and
:mod:`biaslib.validation`, which every layer shares):

:mod:`biaslib.stats`
    Statistics every method shares: cosine similarity, permutation tests,
    random-effects meta-analysis, multiple testing, and the named conventions
    of each paper's code. Pure numpy/scipy.
:mod:`biaslib.methods`
    The bias tests themselves (WEAT with SEAT and w-SEAT, CEAT, ML-EAT, LPBS, SAME):
    arrays of vectors in, a frozen result out. No torch, no files, no models.
:mod:`biaslib.stimuli`
    What the tests are made of: word sets and tests (``data/stimuli``),
    template sentences, stimuli located in sentences, a corpus extract.
:mod:`biaslib.embeddings`
    Embedding sources behind one interface: static GloVe vectors, contextual
    transformer encoders (torch, loaded only when used), the vector cache and
    replays of published bugs.
:mod:`biaslib.evaluate`
    The methods run on stimulus tests with an encoder, as tidy rows that name
    the model.
:mod:`biaslib.reporting`
    Numbers formatted as the papers print them, tables, plots and EAT-Maps.
:mod:`biaslib.chapters`
    Each chapter's tables beside the published ones (the top layer).

Every exception and warning is in :mod:`biaslib.errors`.

The names in ``__all__`` are the entry points a user needs, importable from
``biaslib`` directly (``from biaslib import weat, load_test``). They are loaded
lazily (PEP 562): ``import biaslib`` imports none of the layers, so it costs
nothing and never imports torch; a name's module is imported on first use.
Each name is defined, and documented, in one module of its layer
(``biaslib._EXPORTS`` maps it there): ``biaslib.weat`` is
:func:`biaslib.methods.weat.weat`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    # stats
    "permutation_test": "biaslib.stats.permutation",
    "PermutationResult": "biaslib.stats.permutation",
    "Resampling": "biaslib.stats.resampling",
    "resampled_test": "biaslib.stats.resampling",
    "random_effects": "biaslib.stats.meta_analysis",
    "MetaAnalysis": "biaslib.stats.meta_analysis",
    "holm_bonferroni": "biaslib.stats.multiple_testing",
    "Convention": "biaslib.stats.conventions",
    "get_convention": "biaslib.stats.conventions",
    "BIASLIB": "biaslib.stats.conventions",
    "SENT_BIAS": "biaslib.stats.conventions",
    "CALISKAN": "biaslib.stats.conventions",
    "WEFE": "biaslib.stats.conventions",
    "RESPONSIBLY": "biaslib.stats.conventions",
    "MIND_YOUR_BIAS": "biaslib.stats.conventions",
    # methods
    "weat": "biaslib.methods.weat",
    "WeatResult": "biaslib.methods.weat",
    "effect_size": "biaslib.methods.weat",
    "association": "biaslib.methods.weat",
    "ceat": "biaslib.methods.ceat",
    "CeatResult": "biaslib.methods.ceat",
    "CeatConvention": "biaslib.methods.ceat",
    "CEAT_ORIGINAL": "biaslib.methods.ceat",
    "CEAT_MIND_YOUR_BIAS": "biaslib.methods.ceat",
    "ml_eat": "biaslib.methods.mleat",
    "MleatResult": "biaslib.methods.mleat",
    "MleatConvention": "biaslib.methods.mleat",
    "MLEAT_BIASLIB": "biaslib.methods.mleat",
    "MLEAT_PAPER_CODE": "biaslib.methods.mleat",
    "lpbs": "biaslib.methods.lpbs",
    "LpbsResult": "biaslib.methods.lpbs",
    "LpbsConvention": "biaslib.methods.lpbs",
    "LPBS_KURITA": "biaslib.methods.lpbs",
    "LPBS_MIND_YOUR_BIAS": "biaslib.methods.lpbs",
    "LPBS_BIASLIB": "biaslib.methods.lpbs",
    "same": "biaslib.methods.same",
    "skew": "biaslib.methods.same",
    "stereotype": "biaslib.methods.same",
    "mac": "biaslib.methods.same",
    "direct_bias": "biaslib.methods.same",
    "BiasScoreResult": "biaslib.methods.same",
    "SameConvention": "biaslib.methods.same",
    "SAME_PAPER": "biaslib.methods.same",
    "SAME_CODE": "biaslib.methods.same",
    # stimuli
    "load_test": "biaslib.stimuli.data",
    "list_tests": "biaslib.stimuli.data",
    "StimulusTest": "biaslib.stimuli.data",
    "seat_contexts": "biaslib.stimuli.templates",
    "myb_contexts": "biaslib.stimuli.templates",
    "Context": "biaslib.stimuli.contexts",
    "find_context": "biaslib.stimuli.contexts",
    "contexts_for_test": "biaslib.stimuli.corpus",
    # embeddings
    "glove_6b_50d": "biaslib.embeddings.static",
    "StaticEmbeddings": "biaslib.embeddings.static",
    "BagOfWordsEncoder": "biaslib.embeddings.static",
    "TransformerEncoder": "biaslib.embeddings.transformer",
    "MaskedLMScorer": "biaslib.embeddings.masked_lm",
    "embed_test": "biaslib.embeddings.base",
    # evaluate
    "run_weat": "biaslib.evaluate.weat",
    "weat_table": "biaslib.evaluate.weat",
    "embed_contexts": "biaslib.evaluate.seat",
    "seat_table": "biaslib.evaluate.seat",
    "embed_word_contexts": "biaslib.evaluate.ceat",
    "mleat_table": "biaslib.evaluate.mleat",
    "run_lpbs": "biaslib.evaluate.lpbs",
    # errors
    "CacheError": "biaslib.errors",
    "CacheWarning": "biaslib.errors",
    "CorpusError": "biaslib.errors",
    "DegenerateTestError": "biaslib.errors",
    "DroppedStimuliWarning": "biaslib.errors",
    "MissingWordsError": "biaslib.errors",
    "ModelUnavailableError": "biaslib.errors",
    "StoredTableMismatch": "biaslib.errors",
    "UnknownNameError": "biaslib.errors",
}

#: The layers, importable as attributes too (``biaslib.stats`` after ``import biaslib``).
_SUBPACKAGES = frozenset(
    {"stats", "methods", "stimuli", "embeddings", "evaluate", "reporting", "chapters",
     "errors", "validation"}
)

__all__ = [  # noqa: RUF022 - grouped by layer, as in _EXPORTS
    "__version__",
    # stats
    "permutation_test",
    "PermutationResult",
    "Resampling",
    "resampled_test",
    "random_effects",
    "MetaAnalysis",
    "holm_bonferroni",
    "Convention",
    "get_convention",
    "BIASLIB",
    "SENT_BIAS",
    "CALISKAN",
    "WEFE",
    "RESPONSIBLY",
    "MIND_YOUR_BIAS",
    # methods
    "weat",
    "WeatResult",
    "effect_size",
    "association",
    "ceat",
    "CeatResult",
    "CeatConvention",
    "CEAT_ORIGINAL",
    "CEAT_MIND_YOUR_BIAS",
    "ml_eat",
    "MleatResult",
    "MleatConvention",
    "MLEAT_BIASLIB",
    "MLEAT_PAPER_CODE",
    "lpbs",
    "LpbsResult",
    "LpbsConvention",
    "LPBS_KURITA",
    "LPBS_MIND_YOUR_BIAS",
    "LPBS_BIASLIB",
    "same",
    "skew",
    "stereotype",
    "mac",
    "direct_bias",
    "BiasScoreResult",
    "SameConvention",
    "SAME_PAPER",
    "SAME_CODE",
    # stimuli
    "load_test",
    "list_tests",
    "StimulusTest",
    "seat_contexts",
    "myb_contexts",
    "Context",
    "find_context",
    "contexts_for_test",
    # embeddings
    "glove_6b_50d",
    "StaticEmbeddings",
    "BagOfWordsEncoder",
    "TransformerEncoder",
    "MaskedLMScorer",
    "embed_test",
    # evaluate
    "run_weat",
    "weat_table",
    "embed_contexts",
    "seat_table",
    "embed_word_contexts",
    "mleat_table",
    "run_lpbs",
    # errors
    "CacheError",
    "CacheWarning",
    "CorpusError",
    "DegenerateTestError",
    "DroppedStimuliWarning",
    "MissingWordsError",
    "ModelUnavailableError",
    "StoredTableMismatch",
    "UnknownNameError",
]


def __getattr__(name: str) -> object:
    """Import a public name's module on first use (PEP 562) and cache the name here."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """The public names and the layers, as well as what is already loaded."""
    return sorted(set(globals()) | set(__all__) | _SUBPACKAGES)


if TYPE_CHECKING:  # static type checkers and IDEs see the names eagerly
    from biaslib.embeddings.base import embed_test
    from biaslib.embeddings.masked_lm import MaskedLMScorer
    from biaslib.embeddings.static import BagOfWordsEncoder, StaticEmbeddings, glove_6b_50d
    from biaslib.embeddings.transformer import TransformerEncoder
    from biaslib.errors import (
        CacheError,
        CacheWarning,
        CorpusError,
        DegenerateTestError,
        DroppedStimuliWarning,
        MissingWordsError,
        ModelUnavailableError,
        StoredTableMismatch,
        UnknownNameError,
    )
    from biaslib.evaluate.ceat import embed_word_contexts
    from biaslib.evaluate.lpbs import run_lpbs
    from biaslib.evaluate.mleat import mleat_table
    from biaslib.evaluate.seat import embed_contexts, seat_table
    from biaslib.evaluate.weat import run_weat, weat_table
    from biaslib.methods.ceat import (
        CEAT_MIND_YOUR_BIAS,
        CEAT_ORIGINAL,
        CeatConvention,
        CeatResult,
        ceat,
    )
    from biaslib.methods.lpbs import (
        LPBS_BIASLIB,
        LPBS_KURITA,
        LPBS_MIND_YOUR_BIAS,
        LpbsConvention,
        LpbsResult,
        lpbs,
    )
    from biaslib.methods.mleat import (
        MLEAT_BIASLIB,
        MLEAT_PAPER_CODE,
        MleatConvention,
        MleatResult,
        ml_eat,
    )
    from biaslib.methods.same import (
        SAME_CODE,
        SAME_PAPER,
        BiasScoreResult,
        SameConvention,
        direct_bias,
        mac,
        same,
        skew,
        stereotype,
    )
    from biaslib.methods.weat import WeatResult, association, effect_size, weat
    from biaslib.stats.conventions import (
        BIASLIB,
        CALISKAN,
        MIND_YOUR_BIAS,
        RESPONSIBLY,
        SENT_BIAS,
        WEFE,
        Convention,
        get_convention,
    )
    from biaslib.stats.meta_analysis import MetaAnalysis, random_effects
    from biaslib.stats.multiple_testing import holm_bonferroni
    from biaslib.stats.permutation import PermutationResult, permutation_test
    from biaslib.stats.resampling import Resampling, resampled_test
    from biaslib.stimuli.contexts import Context, find_context
    from biaslib.stimuli.corpus import contexts_for_test
    from biaslib.stimuli.data import StimulusTest, list_tests, load_test
    from biaslib.stimuli.templates import myb_contexts, seat_contexts
