"""Run the chapters' paper-model paths on the stand-in hub and print what they produced as JSON.

Run by tests/test_paper_models.py in a subprocess whose environment points
``HF_HUB_CACHE`` at a stand-in hub (tests/standin_hub.py) with ``HF_HUB_OFFLINE=1``:
huggingface_hub reads both when it is imported, so they cannot be set inside the test
process. Each part calls the functions the notebooks call with ``RUN_PAPER_MODELS`` on,
on a small subset of tests, and reports the shapes of the tables (rows, columns) and
whether the numbers are finite — never the stand-ins' numbers, which mean nothing.

Usage: ``python tests/paper_models_run.py PART [PART ...]`` (parts: :data:`PARTS`). Prints
one JSON object: part → its report, or ``{"error": traceback}`` where it raised.
"""

from __future__ import annotations

import json
import math
import sys
import traceback
from collections.abc import Callable

import pandas as pd

#: The sentence and word the tokenizer checks read: a word inside a sentence.
SENTENCE, WORD = "Here is a nurse.", "nurse"


def _labels(index: pd.Index) -> list:
    """An index's labels as JSON-able lists (tuples of a MultiIndex become lists)."""
    return [list(x) if isinstance(x, tuple) else x for x in index.tolist()]


def _shape(table: pd.DataFrame) -> dict[str, list]:
    """A displayed table's row and column labels, and the columns with no cell filled in."""
    blank = table.isna() | table.astype(str).map(lambda c: c.strip() in ("", "nan"))
    return {"index": _labels(table.index), "columns": _labels(table.columns),
            "blank_columns": _labels(table.columns[blank.all(axis=0).to_numpy()])}


def _finite(values: pd.Series) -> bool:
    """True when every value is a finite number."""
    return bool(len(values)) and all(isinstance(v, (int, float)) and math.isfinite(v)
                                     for v in values.tolist())


def _rows(frame: pd.DataFrame, *keys: str) -> dict[str, object]:
    """A computed frame's columns, the distinct values of ``keys``, and finiteness."""
    ran = frame[frame["not run"] == ""] if "not run" in frame else frame
    return {"columns": list(frame.columns), "n": len(frame), "n_ran": len(ran),
            **{k: sorted(set(map(str, frame[k]))) for k in keys},
            "finite": _finite(ran["effect_size"]) and _finite(ran["p_value"])}


def part_load() -> dict[str, object]:
    """Every stand-in id through from_pretrained, its tokenizer on a word in a sentence."""
    import numpy as np
    from standin_hub import paper_hub_ids
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import cached_file

    from biaslib.embeddings.transformer import TransformerEncoder
    from biaslib.stimuli.contexts import find_context

    start = SENTENCE.index(WORD)
    out = {}
    for hub_id in paper_hub_ids():
        tok = AutoTokenizer.from_pretrained(hub_id)
        model = AutoModel.from_pretrained(hub_id)
        enc = tok(SENTENCE, return_offsets_mapping=True)
        tokens = tok.convert_ids_to_tokens(enc["input_ids"])
        # The tokens whose offsets overlap the word.
        spans = [(a, b) for a, b in enc["offset_mapping"]
                 if b > start and a < start + len(WORD)]
        encoder = TransformerEncoder(hub_id, cache=False, progress=False)
        vec = encoder.encode_words([find_context(SENTENCE, WORD)])
        out[hub_id] = {
            "config_file": cached_file(hub_id, "config.json"),
            "model_class": type(model).__name__,
            "config_class": type(model.config).__name__,
            "tokenizer_class": type(tok).__name__,
            "is_fast": tok.is_fast,
            "tokens": tokens,
            "word_offsets": spans,
            "lower_tokens": tok.convert_ids_to_tokens(tok("NURSE")["input_ids"]),
            "bos_token": tok.bos_token, "padding_side": tok.padding_side,
            "encoder_name": encoder.name, "encoder_fingerprint": encoder.fingerprint,
            "word_vector_finite": bool(np.isfinite(vec).all()), "word_vector_shape": vec.shape,
        }
    return out


def part_seat() -> dict[str, object]:
    """May et al.'s Table 4 and Mind Your Bias's Table 3 (s-/w-SEAT) on the paper models."""
    from biasbook.seat import (
        MYB_PAPER_SEAT_MODELS,
        PAPER_GROUP,
        PAPER_SEAT_MODELS,
        may_paper_table,
        may_table,
        may_tables,
        myb_table,
        myb_tables,
    )
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    rows = [("C6", "word"), ("C6", "sent")]
    may = may_table(PAPER_SEAT_MODELS, rows, MIND_YOUR_BIAS, progress=False)
    tests = {"C6": "MYB-C6-name"}
    myb = myb_table(MYB_PAPER_SEAT_MODELS, tests, MIND_YOUR_BIAS, progress=False)
    # Table 4's release encoders: offline (HF_HUB_OFFLINE=1) none can download its files,
    # and each is reported instead of stopping the chapter.
    released, status = may_paper_table(rows, MIND_YOUR_BIAS,
                                       skip=[m.label for m in PAPER_SEAT_MODELS], progress=False)
    return {"may": _rows(may, "column", "stimuli", "context"),
            "table4_columns": {"rows": len(released),
                               "status": status[["paper column", "ours", "status"]]
                               .values.tolist()},
            "may_tables": {g: _shape(t) for g, t in may_tables(may, rows).items()},
            "paper_group": PAPER_GROUP,
            "myb": _rows(myb, "column", "method", "test"),
            "myb_tables": {g: _shape(t) for g, t in myb_tables(myb, tests).items()}}


def part_mleat() -> dict[str, object]:
    """ML-EAT's GPT-2 prompt rows, the paper's Table 1 layout and Tables 5-8 beside ours."""
    from biasbook.mleat import (
        MLEAT_PAPER_MODELS,
        gpt2_comparison,
        mleat_models_table,
        paper_table,
        prompt_contexts,
    )

    tests = ["C9"]
    prompts = mleat_models_table(MLEAT_PAPER_MODELS, tests, prompt_contexts, "ML-EAT prompts",
                                 progress=False)
    return {"prompts": _rows(prompts, "column", "test"),
            "paper_table": _shape(paper_table(prompts, ["column", "test"])),
            "gpt2_comparison": _shape(gpt2_comparison(prompts))}


def part_lpbs() -> dict[str, object]:
    """LPBS's Kurita table and Mind Your Bias's Tables 4, 6, 14 on both paper BERTs."""
    from biasbook.lpbs import (
        PAPER_LPBS_MODELS,
        by_level,
        chapter_table,
        kurita_comparison,
        myb_rows,
        myb_table4_comparison,
        myb_table6_comparison,
        myb_table14_comparison,
    )
    from biaslib.stimuli.lpbs import myb_cells

    # The notebook's T4_COLUMNS and T6_COLUMNS.
    t4 = {"Kurita (orig.)": "orig.", "MYB (BERT)": "MYB {level}", "ours": "ours {level}"}
    t6 = {"Kurita (orig.)": "orig. noun", "MYB (BERT)": "MYB {level}", "ours": "ours {level}"}
    cells = [(t, ws) for t, ws, _ in myb_cells() if t == "C1_name"]  # in every word set
    out = {}
    for model in PAPER_LPBS_MODELS:
        kurita = chapter_table("lpbs_kurita", model, progress=False)
        myb = myb_rows(model, cells=cells, progress=False)
        out[model] = {
            "kurita": _rows(kurita, "encoder", "test"),
            "kurita_comparison": _shape(kurita_comparison(kurita, label="ours")),
            "myb": _rows(myb, "encoder", "myb_test", "word_set", "attribute_form"),
            "table4": _shape(by_level(myb_table4_comparison(myb, label="ours"), t4)),
            "table6": _shape(by_level(myb_table6_comparison(myb, label="ours"), t6,
                                      levels=("noun", "adjective"), name="attribute form")),
            "table14": _shape(myb_table14_comparison(myb, label="ours, templates")),
        }
    return out


def part_ceat() -> dict[str, object]:
    """CEAT on Mind Your Bias's templates (no corpus needed) with the four hub models."""
    from biasbook.ceat import (
        HUB_CEAT_MODELS,
        ces_table,
        chapter_rows,
        myb_ceat_comparison,
        myb_table12_comparison,
    )

    tests = {"C6": "MYB-C6-name"}
    rows = chapter_rows(HUB_CEAT_MODELS, tests, "templates")
    return {"rows": _rows(rows, "column", "test", "convention", "contexts"),
            "ces_table": _shape(ces_table(rows)),
            "myb_ceat_comparison": _shape(myb_ceat_comparison(rows, tests=["C6"])),
            "table12": _shape(myb_table12_comparison(rows, tests=["C6"], part="ours",
                                                     two_level=True))}


def part_same_counterexample() -> dict[str, object]:
    """SAME's §3.1 counterexample on bert-base-uncased, as the notebook's paper cell runs it."""
    import numpy as np

    from biasbook.same import counterexample_table, gender_words
    from biaslib.embeddings.mlm_finetune import load_masked_lm, word_vectors
    from biaslib.stimuli.data import load_set

    female, male = gender_words()
    bert = load_masked_lm("bert-base-uncased", device="auto")
    words = sorted({w for s in ("x", "y", "x_prime", "y_prime")
                    for w in load_set("same_schroeder", f"counterexample_{s}").words}
                   | set(female) | set(male))
    lookup = dict(zip(words, word_vectors(bert, words).astype(np.float64), strict=True))
    ce = counterexample_table(lookup, "bert-base-uncased (computed now)", female, male)
    return {"columns": list(ce.columns), "rows": ce["effect size"].tolist(),
            "finite": _finite(ce["d"])}


def part_same_injection() -> dict[str, object]:
    """SAME's injection run on bert-base-uncased: the notebook's paper cell, two optimiser steps."""
    import numpy as np

    from biasbook.same import (
        INJECTION,
        InjectionSettings,
        computed_injection_table,
        run_injection_model,
    )

    mu, sd = INJECTION["distributions"][0]
    settings = InjectionSettings(mu, sd, INJECTION["bias_seed"], 0, epochs=5, lr=5e-5,
                                 max_steps=2)
    done = [run_injection_model(settings, base_model="bert-base-uncased", progress=False,
                                device="auto")]
    # From here on, notebooks/same_injection.py's cell as it stands.
    table = computed_injection_table(done).set_index("model").T
    numeric = table.T.select_dtypes("number")
    return {"index": _labels(table.index), "columns": _labels(table.columns),
            "finite": bool(np.isfinite(numeric.to_numpy(float)).all())}


PARTS: dict[str, Callable[[], dict[str, object]]] = {
    "load": part_load, "seat": part_seat, "mleat": part_mleat, "lpbs": part_lpbs,
    "ceat": part_ceat, "same_counterexample": part_same_counterexample,
    "same_injection": part_same_injection}


def main(names: list[str]) -> None:
    """Run the named parts, each on its own (one failing does not stop the others)."""
    report: dict[str, object] = {}
    for name in names or list(PARTS):
        try:
            report[name] = PARTS[name]()
        except Exception:  # any failure: the test shows the part's traceback
            report[name] = {"error": traceback.format_exc()}
    print(json.dumps(report, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
