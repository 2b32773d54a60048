"""Compute the stored results tables of the book (``data/results/``) with provenance.

Tables that take minutes — thousands of template sentences through a causal LM —
are computed here once and rendered by the notebooks; the test suite recomputes
a slice of each and compares (``tests/test_results.py``)::

    python scripts/compute_results.py            # every table
    python scripts/compute_results.py seat_may   # one table
"""

from __future__ import annotations

import argparse
import sys
import time

from biaslib.chapters.published import MAY_ALL, MYB_TABLE3
from biaslib.chapters.seat import OFFLINE_SEAT_MODELS, may_table, myb_table
from biaslib.chapters.stored import save_results
from biaslib.stats.conventions import MIND_YOUR_BIAS


def _models_provenance(frame) -> dict[str, dict[str, str]]:
    first = frame.drop_duplicates("column")
    return {row.column: {"name": row.model, "weights": row.weights} for row in first.itertuples()}


def seat_may() -> None:
    frame = may_table(OFFLINE_SEAT_MODELS, MAY_ALL, MIND_YOUR_BIAS)
    save_results(frame, "seat_may", {
        "what": "s-SEAT on May et al. (2019)'s tests: word, bleached sentence and unbleached "
                "sentence contexts, offline models",
        "models": _models_provenance(frame),
        "convention": vars(MIND_YOUR_BIAS),
        "rows": [list(r) for r in MAY_ALL],
        "templates": "data/templates/seat_may2019.yaml (match_reference=True)",
    })


def seat_myb() -> None:
    frame = myb_table(OFFLINE_SEAT_MODELS, MYB_TABLE3, MIND_YOUR_BIAS)
    save_results(frame, "seat_myb", {
        "what": "s-SEAT and w-SEAT on Mind Your Bias's Table 3 tests and templates, "
                "offline models",
        "models": _models_provenance(frame),
        "convention": vars(MIND_YOUR_BIAS),
        "tests": MYB_TABLE3,
        "templates": "data/templates/mind_your_bias.yaml (authors' strings)",
    })


def mleat_offline() -> None:
    from biaslib.chapters.mleat import (
        MLEAT_OFFLINE_MODELS,
        SEAT_SENTENCE_TESTS,
        mleat_offline_table,
    )
    from biaslib.methods.mleat import MLEAT_BIASLIB
    from biaslib.stimuli.data import CALISKAN_TESTS

    frame = mleat_offline_table(MLEAT_BIASLIB)
    save_results(frame, "mleat_offline", {
        "what": "ML-EAT levels 1-3 and EAT patterns on the offline contextual models: "
                "Caliskan's tests in ML-EAT's GPT-2 prompts ('This is (a/an) X'), and the "
                "SEAT chapter's bleached-template tests at sentence level",
        # One entry per (model, inputs): SmolLM2 runs without special tokens on the prompts.
        "models": {f"{r.column} | {r.inputs}": {"name": r.model, "weights": r.weights}
                   for r in frame.drop_duplicates(["column", "inputs"]).itertuples()},
        "prompt_models": [m.label for m in MLEAT_OFFLINE_MODELS],
        "convention": vars(MLEAT_BIASLIB),
        "prompt_tests": list(CALISKAN_TESTS),
        "seat_tests": list(SEAT_SENTENCE_TESTS),
        "templates": "ML-EAT prompts: biaslib.chapters.mleat.prompt_contexts; SEAT sentences: "
                     "data/templates/seat_may2019.yaml (match_reference=True)",
    })


def _ceat_provenance(frame, what: str) -> dict[str, object]:
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


def ceat_myb() -> None:
    from biaslib.chapters.ceat import chapter_table

    frame = chapter_table("ceat_myb")
    save_results(frame, "ceat_myb", {
        **_ceat_provenance(frame, "CEAT on Mind Your Bias's Table 3 tests, corpus sentences "
                                  "with Mind Your Bias's window, offline models"),
        "tests": MYB_TABLE3,
    })


def ceat_caliskan() -> None:
    from biaslib.chapters.ceat import CALISKAN_ROWS, chapter_table

    frame = chapter_table("ceat_caliskan")
    save_results(frame, "ceat_caliskan", {
        **_ceat_provenance(frame, "CEAT on Caliskan et al.'s C1-C10, corpus sentences with "
                                  "Mind Your Bias's window, offline models"),
        "tests": CALISKAN_ROWS,
    })


def ceat_contexts() -> None:
    from biaslib.chapters.ceat import WINDOW_TESTS, chapter_table

    frame = chapter_table("ceat_contexts")
    save_results(frame, "ceat_contexts", {
        **_ceat_provenance(frame, "CEAT on templates vs natural contexts: Mind Your Bias's "
                                  "templates, 2014-only Reddit sentences, whole sentences, "
                                  "Guo & Caliskan's window; offline models"),
        "tests": MYB_TABLE3,
        "window_tests": WINDOW_TESTS,
    })


def ceat_resampling() -> None:
    from biaslib.chapters.ceat import RESAMPLING, chapter_table

    frame = chapter_table("ceat_resampling")
    save_results(frame, "ceat_resampling", {
        **_ceat_provenance(frame, "CEAT's CES and p-values over sample sizes, sampling rules "
                                  "and seeds, on fixed context vectors"),
        "experiment": RESAMPLING,
    })


def ceat_coverage() -> None:
    from biaslib.chapters.ceat import chapter_table, chapter_tests
    from biaslib.stimuli.corpus import describe_extract, extract_sha256

    save_results(chapter_table("ceat_coverage"), "ceat_coverage", {
        "what": "stimuli of the CEAT chapter's tests without sentences, or with few, in the "
                "corpus extract (its coverage.csv)",
        "extract": describe_extract(), "extract_sha256": extract_sha256(),
        "tests": chapter_tests(),
    })


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


def elmo(name: str) -> None:
    from biaslib.chapters.elmo_bug import ELMO_TESTS, GPT2_TESTS, QUIRK_ROWS_SMOLLM2, chapter_table

    frame = chapter_table(name)
    column = "model" if name == "elmo_diagnostics" else "column"
    models = {row[column]: {"name": row.get("model", row[column]), "weights": row["weights"]}
              for row in frame.drop_duplicates(column).to_dict("records")}
    save_results(frame, name, {
        "what": _ELMO_WHAT[name],
        "models": models,
        "convention": vars(MIND_YOUR_BIAS),
        "elmo_tests": {k: list(v) for k, v in ELMO_TESTS.items()},
        "gpt2_tests": list(GPT2_TESTS),
        "quirk_rows_smollm2": [list(r) for r in QUIRK_ROWS_SMOLLM2],
        "templates": "data/templates/mind_your_bias.yaml (Mind Your Bias's tests); "
                     "data/templates/seat_may2019.yaml (May et al.'s rows)",
    })


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


def lpbs(name: str) -> None:
    from biaslib.chapters.lpbs import LPBS_CONVENTIONS, chapter_table
    from biaslib.stimuli.lpbs import myb_cells

    frame = chapter_table(name)
    save_results(frame, name, {
        "what": _LPBS_WHAT[name],
        "models": {row.model: {"name": row.model, "weights": row.weights}
                   for row in frame.drop_duplicates("model").itertuples()},
        "conventions": {c.name: vars(c) for c in LPBS_CONVENTIONS},
        "cells": [list(c) for c in myb_cells()],
        "templates": "data/templates/lpbs.yaml; word sets data/stimuli/lpbs.yaml and "
                     "mind_your_bias.yaml",
        "scorer": "biaslib.embeddings.masked_lm.MaskedLMScorer: log-softmax at the mask located "
                  "by the tokenizer; wordpieces per convention (first / sum of distinct pieces)",
    })


def lpbs_reddit() -> None:
    from biaslib.chapters.lpbs import (
        REDDIT_CEAT,
        REDDIT_SEED,
        REDDIT_TABLE,
        REDDIT_VARIANTS,
        TABLE14_CELLS,
        chapter_table,
    )
    from biaslib.stimuli.cooccurrence import MYB_WINDOW_WORDS
    from biaslib.stimuli.corpus import describe_extract, extract_sha256

    frame = chapter_table(REDDIT_TABLE)
    save_results(frame, REDDIT_TABLE, {
        "what": "Mind Your Bias Table 14 'probability' column rebuilt: LPBS per corpus sentence "
                "holding a target and an attribute word of the cell (shorten_sent's window), "
                "target masked, random counterpart from the other target set, prior with the "
                "attribute masked too; combined as CEAT (methods/CEAT/generate_ebd_bert_prob.py); "
                "fixed (log space) and with the case bug replayed; offline tiny masked LM",
        "models": {row.model: {"name": row.model, "weights": row.weights}
                   for row in frame.drop_duplicates("model").itertuples()},
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
    })


TABLES = {"seat_may": seat_may, "seat_myb": seat_myb, "mleat_offline": mleat_offline,
          "ceat_myb": ceat_myb, "ceat_caliskan": ceat_caliskan, "ceat_contexts": ceat_contexts,
          "ceat_resampling": ceat_resampling, "ceat_coverage": ceat_coverage,
          **{name: (lambda n: lambda: elmo(n))(name) for name in _ELMO_WHAT},
          **{name: (lambda n: lambda: lpbs(n))(name) for name in _LPBS_WHAT},
          "lpbs_reddit": lpbs_reddit}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", help=f"tables to compute (default: {list(TABLES)})")
    names = parser.parse_args().tables or list(TABLES)
    unknown = sorted(set(names) - set(TABLES))
    if unknown:
        parser.error(f"unknown tables {unknown}; known: {list(TABLES)}")
    for name in names:
        start = time.perf_counter()
        TABLES[name]()
        print(f"{name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
