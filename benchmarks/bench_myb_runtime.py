"""Benchmark: Mind Your Bias's runtimes (Appendix F, Tables 7 and 8) measured here.

**Only orders of magnitude compare.** The hardware differs (the paper: "a single CPU",
model unnamed; here: the CPU printed below, shared with other work, whose load average is
recorded), the models differ (the paper: ELMo, BERT, GPT-2, OPT, BLOOM; here:
all-MiniLM-L6-v2 for the cosine methods and the tiny offline masked LM SPLADE-tiny for
LPBS, in place of BERT), and the implementation differs (the paper: the authors' code in
SilkeHusse/Re-Evaluating-Bias; here: biaslib's vectorised statistics, which follow the
authors' conventions but not their code; CEAT's contexts come from this book's corpus
extract, at most 100 per stimulus). Our times are printed beside the paper's BERT column.

What is timed, per test (C1 and C6, Mind Your Bias's name versions, the test ids of
:data:`biasbook.seat.MYB_TABLE3`), as the mean of ``--repeats`` runs (default 10,
as the paper):

- **s-SEAT, w-SEAT**: the statistics only — effect size and permutation test under the
  ``MIND_YOUR_BIAS`` convention (:func:`biaslib.methods.weat.weat`) — on sentence vectors
  (s-SEAT) or stimulus-token vectors (w-SEAT) of Mind Your Bias's templates
  (:func:`biaslib.stimuli.templates.myb_contexts`), embedded beforehand with
  :func:`biaslib.evaluate.seat.embed_contexts`, as :func:`biasbook.seat.myb_table`
  embeds them. The paper's times exclude the generation of embeddings (§F).
- **CEAT**: :func:`biaslib.methods.ceat.ceat` under ``CEAT_MIND_YOUR_BIAS`` (N = 10,000,
  as that convention sets it) on per-word context vectors embedded beforehand
  (:func:`biaslib.evaluate.ceat.embed_word_contexts`) from the corpus extract, read as the
  CEAT chapter reads it for all-MiniLM-L6-v2 (:func:`biasbook.ceat.corpus_contexts`,
  at most ``OFFLINE_CAPS`` sentences per stimulus, seed 1111, Mind Your Bias's window).
  Needs the extract (``../shared/corpus`` or ``$BIASLIB_CORPUS_DIR``); without it CEAT is
  skipped with the reason.
- **LPBS**: :func:`biaslib.evaluate.lpbs.run_lpbs` under ``LPBS_MIND_YOUR_BIAS`` on
  Mind Your Bias's templates (``C1_name``/``C6_name``, full word sets, attributes as the
  authors coded them) with the tiny masked LM, **including** the model's forward passes
  (cache off): LPBS has no separate embedding step — its input is the model's
  probabilities at the mask, computed inside every run.

Recorded separately, never inside the table's times: each cosine method's one-off
embedding time (cache off, after the model is loaded), which is what the paper excluded;
the time to read CEAT's contexts from the extract; and the models' load times (with one
warm-up forward pass). A small untimed WEAT and CEAT run first, so that no timed run
pays for lazy imports. biaslib's permutation test keeps the random splits it drew and
reuses them within a process (s-SEAT and w-SEAT of a test have the same set sizes); the
table's times empty that store before each run, so each run draws its splits as a single
run of the test does; the mean with the splits reused is recorded beside
(``seconds_splits_reused``).

Torch runs on ``--threads`` intra-op threads (default 1, as "a single CPU"); numpy's BLAS
threads follow ``OMP_NUM_THREADS``/``OPENBLAS_NUM_THREADS`` (recorded, not set here).

Run with ``python benchmarks/bench_myb_runtime.py [--repeats N] [--tests C1 C6]
[--methods ...] [--save [PATH]]`` (set ``HF_HUB_OFFLINE=1``); ``--save`` writes the
results and the machine to ``benchmarks/results/myb_runtime.json`` (or PATH).
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import time
import warnings
from collections.abc import Callable, Sequence

import pandas as pd
from machine import describe, print_machine, save

#: The tests of Tables 7 (C1) and 8 (C6).
TESTS = ("C1", "C6")
#: The methods, in the paper's row order.
METHODS = ("s-SEAT", "w-SEAT", "CEAT", "LPBS")
#: The paper's table of each test.
PAPER_TABLES = {"C1": 7, "C6": 8}
#: The published column our numbers stand beside.
REFERENCE_COLUMN = "BERT"
#: Our model for the cosine methods (its pooling is the SEAT chapter's).
COSINE_MODEL = "all-MiniLM-L6-v2"
#: Mind Your Bias's LPBS test of each row (the name versions, as MYB_TABLE3's C1 and C6).
LPBS_TESTS = {"C1": "C1_name", "C6": "C6_name"}
#: LPBS word set timed (Mind Your Bias's full sets, as Table 5 compares).
LPBS_WORD_SET = "full"
#: The published table, in ``data/published``.
PUBLISHED = "myb_tables_7_8_runtime"


# ----------------------------------------------------------------- model-free helpers

def published_runtimes(path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Mind Your Bias's Tables 7 and 8 as typed in (``data/published``, or ``path``)."""
    if path is not None:
        return pd.read_csv(path)
    from biaslib.stimuli.data import load_published

    return load_published(PUBLISHED)


def timed(fn: Callable[[], object], repeats: int,
          setup: Callable[[], object] | None = None) -> tuple[list[float], object]:
    """Run ``fn`` ``repeats`` times; the wall-clock seconds of each run and the last result.

    ``setup`` runs before each run, untimed.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    times, out = [], None
    for _ in range(repeats):
        if setup is not None:
            setup()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return times, out


def _magnitude(published: float, ours: float) -> float:
    """``published / ours``, rounded to two significant digits (NaN when either is missing)."""
    if not (ours > 0 and published > 0):
        return float("nan")
    value = published / ours
    return float(f"{value:.2g}")


def side_by_side(ours: pd.DataFrame, published: pd.DataFrame,
                 column: str = REFERENCE_COLUMN) -> pd.DataFrame:
    """Our mean times beside the paper's ``column``, one row per (test, method).

    ``ours`` has columns ``test``, ``method``, ``model``, ``seconds`` (NaN where not
    run), ``embedding_s`` (NaN where none) and ``note``; ``published`` is
    :func:`published_runtimes`. Rows follow the paper's order (tests, then
    :data:`METHODS`); a published number without a row of ours is kept, marked
    ``not measured``.
    """
    pub = published[published["model"] == column].set_index(["test", "method"])["seconds"]
    mine = ours.set_index(["test", "method"])
    keys = [(t, m) for t in dict.fromkeys([*published["test"], *ours["test"]])
            for m in METHODS if (t, m) in pub.index or (t, m) in mine.index]
    rows = []
    for test, method in keys:
        p = float(pub.get((test, method), float("nan")))
        if (test, method) in mine.index:
            r = mine.loc[(test, method)]
            seconds, model = float(r["seconds"]), str(r["model"])
            embedding, note = float(r["embedding_s"]), str(r.get("note", "") or "")
        else:
            seconds, model, embedding, note = float("nan"), "", float("nan"), "not measured"
        rows.append({"test": test, "method": method, "ours: model": model,
                     "ours (s)": seconds, "ours: embedding once (s)": embedding,
                     f"published {column} (s)": p,
                     "published / ours": _magnitude(p, seconds), "note": note})
    return pd.DataFrame(rows)


def _cell(value: object, digits: int = 3) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if value == 0:
            return "0"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


def format_table(frame: pd.DataFrame) -> str:
    """A :func:`side_by_side` frame as aligned text (NaN as ``–``, 3 significant digits)."""
    header = list(frame.columns)
    body = [[_cell(v) for v in row] for row in frame.itertuples(index=False)]
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h)
              for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in body]
    return "\n".join(lines)


# ----------------------------------------------------------------- measurements

def forget_splits() -> None:
    """Empty biaslib's in-process store of sampled permutation splits.

    The permutation test keeps the random splits it drew, keyed by set sizes, number
    of re-splits and seed, and reuses them in the same process; s-SEAT and w-SEAT of a
    test have the same sizes, so without this every run after the first (and w-SEAT
    after s-SEAT) would skip drawing its splits, which a single run of a test never
    does.
    """
    from biaslib.stats.permutation import clear_split_cache

    clear_split_cache()


def measured(test: str, method: str, model: str, fn: Callable[[], object], repeats: int,
             embedding_s: float, **extra: object) -> tuple[dict[str, object], object]:
    """A row of ours: ``fn`` timed ``repeats`` times, each run drawing its splits afresh.

    Also recorded, outside the table: the mean with the splits reused
    (``seconds_splits_reused``, what repeated calls in one process cost).
    """
    runs, result = timed(fn, repeats, setup=forget_splits)
    reused, _ = timed(fn, repeats)
    return _row(test, method, model, runs, embedding_s,
                seconds_splits_reused=sum(reused) / len(reused), **extra), result


def _row(test: str, method: str, model: str, runs: Sequence[float], embedding_s: float,
         **extra: object) -> dict[str, object]:
    return {"test": test, "method": method, "model": model,
            "seconds": sum(runs) / len(runs) if runs else float("nan"),
            "runs_s": [round(t, 4) for t in runs], "embedding_s": embedding_s,
            "note": "", **extra}


def measure_seat(test: str, encoder: object, repeats: int) -> list[dict[str, object]]:
    """s-SEAT and w-SEAT of one test: each level embedded once, then its statistics timed."""
    from biasbook.seat import MYB_TABLE3, OFFLINE_SEAT_MODELS
    from biaslib.evaluate.seat import embed_contexts
    from biaslib.methods.weat import weat
    from biaslib.stats.conventions import MIND_YOUR_BIAS
    from biaslib.stimuli.data import load_test
    from biaslib.stimuli.templates import myb_contexts

    spec = next(s for s in OFFLINE_SEAT_MODELS if s.label == COSINE_MODEL)
    pooling = {"sentence": spec.sentence_pooling, "word": spec.word_pooling}
    name = MYB_TABLE3[test]
    stimuli, contexts = load_test(name), myb_contexts(name)
    rows = []
    for level, method in (("sentence", "s-SEAT"), ("word", "w-SEAT")):
        start = time.perf_counter()
        embedded = embed_contexts(stimuli, contexts, encoder, [level],
                                  pooling={level: pooling[level]})[level]
        embedding = time.perf_counter() - start
        sizes = "/".join(str(len(s.vectors)) for s in embedded.sets.values())
        row, result = measured(
            test, method, COSINE_MODEL,
            lambda e=embedded: weat(*e.arrays, convention=MIND_YOUR_BIAS), repeats, embedding,
            stimuli=name, inputs=f"{sizes} sentences (X/Y/A/B), {level} vectors",
            convention=MIND_YOUR_BIAS.name)
        row["permutation"] = (f"{result.permutation.method}, "
                              f"{result.permutation.n_resamples:,} re-splits")
        row["effect_size"] = round(float(result.effect_size), 4)
        rows.append(row)
    return rows


def measure_ceat(test: str, encoder: object, repeats: int) -> dict[str, object]:
    """CEAT of one test: contexts read and embedded once, then ``ceat`` timed."""
    from biasbook.ceat import OFFLINE_CAPS, corpus_contexts
    from biasbook.seat import MYB_TABLE3
    from biaslib.evaluate.ceat import embed_word_contexts
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, ceat
    from biaslib.stimuli.corpus import corpus_dir, describe_extract, myb_window
    from biaslib.stimuli.data import load_test

    name = MYB_TABLE3[test]
    try:
        corpus_dir()
    except FileNotFoundError as err:
        reason = f"CEAT skipped: {err}"
        print(reason)
        return _row(test, "CEAT", COSINE_MODEL, [], float("nan"), stimuli=name, note=reason)
    cap = OFFLINE_CAPS[COSINE_MODEL]
    start = time.perf_counter()
    contexts = corpus_contexts(cap, seed=1111, window=myb_window)(load_test(name))
    read = time.perf_counter() - start
    n = sum(len(cs) for words in contexts.values() for cs in words.values())
    start = time.perf_counter()
    vectors = embed_word_contexts(contexts, encoder, pooling="mean")
    embedding = time.perf_counter() - start
    row, result = measured(
        test, "CEAT", COSINE_MODEL, lambda: ceat(vectors, convention=CEAT_MIND_YOUR_BIAS), repeats,
        embedding, stimuli=name,
        inputs=f"{n:,} contexts (<= {cap} per stimulus, Mind Your Bias's window)",
        extract=describe_extract(short=True), read_contexts_s=round(read, 2),
        convention=CEAT_MIND_YOUR_BIAS.name, n_samples=CEAT_MIND_YOUR_BIAS.n_samples)
    row["effect_size"] = round(float(result.ces), 4)
    return row


def measure_lpbs(test: str, scorer: object, repeats: int) -> dict[str, object]:
    """LPBS of one test, the masked LM's forward passes included (its cache is off)."""
    from biaslib.evaluate.lpbs import run_lpbs
    from biaslib.methods.lpbs import LPBS_MIND_YOUR_BIAS
    from biaslib.stimuli.lpbs import myb_templates

    templates = myb_templates(LPBS_TESTS[test], LPBS_WORD_SET)
    sentences = sum(len(t.a) + len(t.b) + 1 for t in templates)
    row, result = measured(
        test, "LPBS", scorer.spec.name,
        lambda: run_lpbs(scorer, templates, convention=LPBS_MIND_YOUR_BIAS), repeats, float("nan"),
        stimuli=f"{LPBS_TESTS[test]}, {LPBS_WORD_SET}",
        inputs=f"{len(templates)} templates, {sentences} masked sentences per run",
        convention=LPBS_MIND_YOUR_BIAS.name,
        note="forward passes included (no separate embedding step)")
    row["n_resamples"] = result.permutation.n_resamples
    row["effect_size"] = round(float(result.effect_size), 4)
    return row


def warm_up() -> None:
    """One small untimed WEAT and CEAT, so that no timed run pays for lazy imports."""
    import numpy as np

    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, ceat
    from biaslib.methods.weat import weat
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    rng = np.random.default_rng(0)
    sets = [rng.normal(size=(12, 8)) for _ in range(4)]
    weat(*sets, convention=MIND_YOUR_BIAS)
    ceat({r: {f"{r}{i}": rng.normal(size=(3, 8)) for i in range(4)} for r in "XYAB"},
         convention=CEAT_MIND_YOUR_BIAS.replace(n_samples=100))


def run(tests: Sequence[str], methods: Sequence[str], repeats: int) -> dict[str, object]:
    """Every (test, method) measured; the models loaded once, their load times recorded."""
    rows: list[dict[str, object]] = []
    load_s: dict[str, float] = {}
    warm_up()
    if {"s-SEAT", "w-SEAT", "CEAT"} & set(methods):
        from biaslib.embeddings.transformer import TransformerEncoder

        start = time.perf_counter()
        encoder = TransformerEncoder(COSINE_MODEL, cache=False, progress=False)
        encoder.encode_sentences(["A warm-up sentence."])
        load_s[COSINE_MODEL] = round(time.perf_counter() - start, 2)
        for test in tests:
            if {"s-SEAT", "w-SEAT"} & set(methods):
                rows += [r for r in measure_seat(test, encoder, repeats)
                         if r["method"] in methods]
            if "CEAT" in methods:
                rows.append(measure_ceat(test, encoder, repeats))
    if "LPBS" in methods:
        from biaslib.embeddings.masked_lm import TINY_MLM, MaskedLMScorer, MaskQuery

        start = time.perf_counter()
        scorer = MaskedLMScorer(TINY_MLM, cache=False, progress=False)
        scorer.piece_log_probs([MaskQuery(f"{scorer.mask_token} is here .", ("he", "she"))])
        load_s[scorer.spec.name] = round(time.perf_counter() - start, 2)
        rows += [measure_lpbs(test, scorer, repeats) for test in tests]
    return {"rows": rows, "model_load_s": load_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10,
                        help="runs averaged per number (default 10, as the paper)")
    parser.add_argument("--tests", nargs="+", choices=TESTS, default=list(TESTS))
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--threads", type=int, default=1,
                        help="torch intra-op threads (default 1: 'a single CPU')")
    parser.add_argument("--save", nargs="?", const="", default=None, metavar="PATH",
                        help="write the results as JSON (default "
                             "benchmarks/results/myb_runtime.json)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")
    logging.getLogger("biaslib").setLevel(logging.ERROR)
    import torch

    torch.set_num_threads(args.threads)
    machine = {**describe(), "torch": torch.__version__, "torch_threads": torch.get_num_threads(),
               **{k: os.environ.get(k, "") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                     "MKL_NUM_THREADS")}}
    print_machine(machine)
    print(f"torch {machine['torch']} on {machine['torch_threads']} thread(s); mean of "
          f"{args.repeats} run(s) per number")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        measured = run(args.tests, args.methods, args.repeats)
    machine["load_average_1min_at_end"] = round(os.getloadavg()[0], 2)
    ours = pd.DataFrame(measured["rows"])
    published = published_runtimes()
    table = side_by_side(ours, published)
    print()
    print("Mind Your Bias, Tables 7 (C1) and 8 (C6): our mean times beside the paper's "
          f"{REFERENCE_COLUMN} column. Hardware, models and implementation differ: compare "
          "orders of magnitude only. s-SEAT, w-SEAT, CEAT: statistics only (embedding "
          "excluded, as in the paper; its one-off time beside); LPBS: forward passes "
          "included.")
    print(format_table(table))
    print(f"model load (not in any time above): {measured['model_load_s']}")
    for r in measured["rows"]:
        if "read_contexts_s" in r:
            print(f"{r['test']} CEAT: {r['inputs']}, read from the extract in "
                  f"{r['read_contexts_s']} s (not in any time above)")
    print(f"1-minute load average at end {machine['load_average_1min_at_end']}")
    if args.save is not None:
        save("myb_runtime", {
            "benchmark": "myb_runtime",
            "machine": machine,
            "caveat": "hardware, models and implementation differ from the paper's: "
                      "only orders of magnitude compare",
            "inputs": {"repeats": args.repeats, "tests": list(args.tests),
                       "methods": list(args.methods), "cosine_model": COSINE_MODEL,
                       "lpbs_word_set": LPBS_WORD_SET, "reference_column": REFERENCE_COLUMN,
                       "published": f"data/published/{PUBLISHED}.csv"},
            "model_load_s": measured["model_load_s"],
            "measured": [{k: _json(v) for k, v in r.items()} for r in measured["rows"]],
            "side_by_side": [{k: _json(v) for k, v in r.items()}
                             for r in table.to_dict(orient="records")],
        }, args.save or None)


def _json(value: object) -> object:
    """NaN as ``None`` (JSON has no NaN); numbers rounded to 4 decimals."""
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 4)
    return value


if __name__ == "__main__":
    main()
