"""biaslib: the computing layer of the bias-detection replication book.

The package is built in layers, listed here from the bottom up; each imports
only the layers before it (and :mod:`biaslib.errors`, :mod:`biaslib.files`,
:mod:`biaslib.downloads` and :mod:`biaslib.validation`, which every layer shares).
:mod:`biaslib.embeddings` may import :mod:`biaslib.stimuli` (an encoder embeds a
stimulus test), not the reverse:

:mod:`biaslib.stats`
    Statistics every method shares: cosine similarity, permutation tests,
    random-effects meta-analysis, multiple testing, and the named conventions
    of each paper's code. Pure numpy/scipy.
:mod:`biaslib.methods`
    The bias tests themselves (WEAT with SEAT and w-SEAT, CEAT, ML-EAT, LPBS, SAME,
    and RIPA, RND, ECT, RNSB, indirect bias, Gonen & Goldberg's tests, generalized WEAT):
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
:mod:`biaslib.audit`
    The book's whole battery on any model or embedding file, as tidy results and
    an HTML report; the console command ``biaslib audit`` (the top layer).

Every exception and warning is in :mod:`biaslib.errors`.

The book's own code (each chapter's tables beside the published ones, the stored
results, the findings) is the package ``biasbook``, shipped in the same distribution;
nothing in ``biaslib`` imports it (``tests/test_layers.py``).

The names in ``__all__`` are the entry points a user needs, importable from
``biaslib`` directly (``from biaslib import weat, load_test``). They are loaded
lazily (PEP 562): ``import biaslib`` imports none of the layers, so it costs
nothing and never imports torch; a name's module is imported on first use.
Each name is defined, and documented, in one module of its layer
(``biaslib._EXPORTS`` maps it there): ``biaslib.weat`` is
:func:`biaslib.methods.weat.weat`.

``_EXPORTS`` is the one list of public names: ``__all__`` is derived from it,
and the API page of the book lists it when the book is built
(``book/_ext/biaslib_docs.py``). Static type checkers see the names through
``__getattr__`` only; import from the defining module for precise types. The
layer order above is ``_LAYERS`` (``tests/test_layers.py`` enforces it).
"""

from __future__ import annotations

import importlib

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
    "intraclass_correlation": "biaslib.stats.reliability",
    "cronbach_alpha": "biaslib.stats.reliability",
    "spearman_brown": "biaslib.stats.reliability",
    "random_halves": "biaslib.stats.reliability",
    "split_half_reliability": "biaslib.stats.reliability",
    "Convention": "biaslib.stats.conventions",
    "ConventionBase": "biaslib.stats.conventions",
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
    "SameConvention": "biaslib.methods.same",
    "SAME_PAPER": "biaslib.methods.same",
    "SAME_CODE": "biaslib.methods.same",
    "ripa": "biaslib.methods.ripa",
    "rnd": "biaslib.methods.rnd",
    "ect": "biaslib.methods.ect",
    "rnsb": "biaslib.methods.rnsb",
    "indirect_bias": "biaslib.methods.indirect_bias",
    "cluster_test": "biaslib.methods.gonen_goldberg",
    "classification_test": "biaslib.methods.gonen_goldberg",
    "neighbour_test": "biaslib.methods.gonen_goldberg",
    "generalized_weat": "biaslib.methods.gweat",
    "BiasResult": "biaslib.methods.result",
    "BiasScoreResult": "biaslib.methods.result",
    "CORE_COLUMNS": "biaslib.methods.result",
    "check_core_columns": "biaslib.methods.result",
    "core_first": "biaslib.methods.result",
    # stimuli
    "load_test": "biaslib.stimuli.data",
    "list_tests": "biaslib.stimuli.data",
    "load_published": "biaslib.stimuli.data",
    "load_set": "biaslib.stimuli.data",
    "StimulusTest": "biaslib.stimuli.data",
    "seat_contexts": "biaslib.stimuli.templates",
    "myb_contexts": "biaslib.stimuli.templates",
    "LpbsTemplate": "biaslib.stimuli.lpbs",
    "kurita_templates": "biaslib.stimuli.lpbs",
    "myb_templates": "biaslib.stimuli.lpbs",
    "Context": "biaslib.stimuli.contexts",
    "find_context": "biaslib.stimuli.contexts",
    "contexts_for_test": "biaslib.stimuli.corpus",
    # embeddings
    "glove_6b_50d": "biaslib.embeddings.static",
    "googlenews_subset": "biaslib.embeddings.vector_files",
    "VectorFileError": "biaslib.embeddings.vector_files",
    "VectorFileWarning": "biaslib.embeddings.vector_files",
    "StaticEmbeddings": "biaslib.embeddings.static",
    "BagOfWordsEncoder": "biaslib.embeddings.static",
    "TransformerEncoder": "biaslib.embeddings.transformer",
    "MaskedLMScorer": "biaslib.embeddings.masked_lm",
    "embed_test": "biaslib.embeddings.base",
    "Pooling": "biaslib.embeddings.base",
    "WordsAlone": "biaslib.embeddings.base",
    # evaluate
    "run_weat": "biaslib.evaluate.weat",
    "weat_table": "biaslib.evaluate.weat",
    "embed_contexts": "biaslib.evaluate.seat",
    "seat_table": "biaslib.evaluate.seat",
    "run_seat": "biaslib.evaluate.seat",
    "embed_word_contexts": "biaslib.evaluate.ceat",
    "run_ceat": "biaslib.evaluate.ceat",
    "ceat_table": "biaslib.evaluate.ceat",
    "run_mleat": "biaslib.evaluate.mleat",
    "mleat_table": "biaslib.evaluate.mleat",
    "run_lpbs": "biaslib.evaluate.lpbs",
    "lpbs_table": "biaslib.evaluate.lpbs",
    "paper_test": "biaslib.evaluate.tidy",
    "METRICS": "biaslib.evaluate.metrics",
    "FourSets": "biaslib.evaluate.metrics",
    "Metric": "biaslib.evaluate.metrics",
    "MetricRun": "biaslib.evaluate.metrics",
    "four_sets": "biaslib.evaluate.metrics",
    "framing_table": "biaslib.evaluate.metrics",
    "metric": "biaslib.evaluate.metrics",
    "metric_table": "biaslib.evaluate.metrics",
    "run_metric": "biaslib.evaluate.metrics",
    "association_reliability": "biaslib.evaluate.reliability",
    # audit
    "run_audit": "biaslib.audit.run",
    "AuditResult": "biaslib.audit.run",
    # errors
    "CacheError": "biaslib.errors",
    "CacheWarning": "biaslib.errors",
    "CorpusError": "biaslib.errors",
    "DegenerateTestError": "biaslib.errors",
    "DeviceError": "biaslib.errors",
    "DroppedStimuliWarning": "biaslib.errors",
    "MissingWordsError": "biaslib.errors",
    "ModelUnavailableError": "biaslib.errors",
    "NotMaskedLMError": "biaslib.errors",
    "OverlappingSetsError": "biaslib.errors",
    "StoredTableCorrupt": "biaslib.errors",
    "StoredTableMismatch": "biaslib.errors",
    "UnknownNameError": "biaslib.errors",
    "WordpieceWarning": "biaslib.errors",
}

#: The layers from the bottom up. A module may import modules of its own layer and of
#: the layers before it, never of a later one, neither at module level nor inside a
#: function (``tests/test_layers.py`` enforces this, and that no import cycle exists).
_LAYERS: tuple[str, ...] = (
    "stats", "methods", "stimuli", "embeddings", "evaluate", "reporting", "audit",
)
#: Modules every layer may import; they import no layer themselves.
_SHARED: tuple[str, ...] = ("downloads", "errors", "files", "validation")

#: The layers, importable as attributes too (``biaslib.stats`` after ``import biaslib``).
_SUBPACKAGES = frozenset(_LAYERS + _SHARED)

#: What ``from biaslib import *`` gives: derived from :data:`_EXPORTS`, the one list.
__all__ = ["__version__", *_EXPORTS]


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

