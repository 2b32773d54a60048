"""Benchmark: retraining word2vec for the test-retest reliability of WEAT effect sizes.

How fast can static embeddings be trained again and again — with other seeds (Du, Fang &
Nguyen, 2021) and on bootstrap samples of the documents (Antoniak & Mimno, 2018) — and how
much do Caliskan et al.'s WEAT effect sizes (C1–C10) move between runs? Uses
:mod:`biasbook.retrain`:

1. reads and tokenises the corpus (``--corpus``: the raw 2014 Reddit samples, the sentences
   of the corpus extract, or both; ``--stimuli caliskan --cap N`` keeps only the extract's
   sentences of the words of C1–C10, at most N per word) and times it;
2. trains ``--runs`` gensim ``Word2Vec`` models with seeds ``--seed``, ``--seed`` + 1, ...
   on the same documents, then (``--bootstrap-runs``) as many on bootstrap samples of the
   documents, one after the other (one training process at a time; ``--workers``
   threads, 1 by default: only then is a run reproducible);
3. reports tokens, vocabulary, coverage of the words of C1–C10 (how many have a vector at
   ``--min-count``), seconds per run (wall clock and CPU), ``d`` per test and run, its mean
   and SD across runs, and intraclass correlations across runs
   (:func:`biasbook.retrain.icc_table`: per test, the target words' association scores
   s(w, A, B) with the runs as raters; across tests, the ten d's);
4. with ``--check-determinism``, trains the same seed twice on the first
   ``--check-docs`` documents in two child processes with different ``PYTHONHASHSEED``
   (``workers=1``), and twice in this process with ``workers=2``, and compares the vectors.

``--out`` writes everything, with the machine's description, as JSON.

Run with e.g. ``python benchmarks/bench_retrain.py --corpus contexts --stimuli caliskan
--cap 200 --runs 10 --bootstrap-runs 10 --dim 50 --out benchmarks/results/retrain.json``
(what ``benchmarks/results/retrain.json`` holds: 28 s a run on one core of the 2-core
machine; the stored table ``trust_retrain`` uses the same settings).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pandas as pd
from machine import describe, print_machine, save

from biasbook.retrain import (
    CORPORA,
    Corpus,
    RetrainResult,
    TrainConfig,
    caliskan_stimuli,
    icc_table,
    load_corpus,
    retrain_runs,
    train,
)


def vectors_digest(documents: list[list[str]], seed: int, config: TrainConfig) -> str:
    """SHA-256 of the vocabulary and vectors of one training run."""
    model = train(documents, seed, config)
    digest = hashlib.sha256("\n".join(model.wv.index_to_key).encode())
    digest.update(np.ascontiguousarray(model.wv.vectors).tobytes())
    return digest.hexdigest()


def child_digest(docs_file: str, seed: int, config: TrainConfig, hashseed: str) -> str:
    """:func:`vectors_digest` computed in a child process with ``PYTHONHASHSEED=hashseed``."""
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    out = subprocess.run(
        [sys.executable, __file__, "--digest-of", docs_file, "--seed", str(seed),
         "--dim", str(config.dim), "--epochs", str(config.epochs), "--sg", str(config.sg),
         "--min-count", str(config.min_count), "--workers", str(config.workers),
         "--window", str(config.window), "--sample", str(config.sample)],
        env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def check_determinism(corpus: Corpus, config: TrainConfig, seed: int,
                      n_docs: int) -> dict[str, object]:
    """Train one seed twice per setting on the first ``n_docs`` documents; compare."""
    docs = corpus.documents[:n_docs]
    one, two = replace(config, workers=1), replace(config, workers=2)
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "docs.json"
        file.write_text(json.dumps(docs))
        a = child_digest(str(file), seed, one, "1")
        b = child_digest(str(file), seed, one, "2")
        c = child_digest(str(file), seed + 1, one, "1")
    d, e = vectors_digest(docs, seed, two), vectors_digest(docs, seed, two)
    out = {
        "documents": len(docs),
        "tokens": sum(map(len, docs)),
        "workers1_same_seed_PYTHONHASHSEED_1_vs_2_identical": a == b,
        "workers1_other_seed_differs": a != c,
        "workers2_same_seed_twice_identical": d == e,
    }
    print(f"determinism on {out['documents']:,} documents ({out['tokens']:,} tokens): "
          f"workers=1, same seed, PYTHONHASHSEED 1 vs 2 identical: {a == b}; "
          f"another seed differs: {a != c}; workers=2 twice identical: {d == e}", flush=True)
    return out


def print_result(title: str, result: RetrainResult) -> None:
    runs = result.effect_sizes
    print(f"\n{title}: {len(runs)} runs, {runs['seconds'].sum():.1f} s in all "
          f"(per run: median {runs['seconds'].median():.1f} s wall, "
          f"{runs['cpu_seconds'].median():.1f} s CPU); vocabulary "
          f"{runs['vocabulary'].min():,}–{runs['vocabulary'].max():,}")
    summary = result.summary().round(3)
    icc = icc_table(result)
    word = icc[icc["level"] == "word"].set_index("test")
    for column in ("ICC_A1", "ICC_C1", "ICC_Ak"):
        summary[f"{column} (words)"] = word[column].round(3)
    print(summary.to_string())
    overall = icc[icc["level"] == "test"].iloc[0]
    print(f"ICC across the tests' d (runs as raters): ICC(A,1) {overall['ICC_A1']:.3f} "
          f"[{overall['ICC_A1_low']:.2f}, {overall['ICC_A1_high']:.2f}], "
          f"ICC(C,1) {overall['ICC_C1']:.3f}, "
          f"ICC(A,k) {overall['ICC_Ak']:.3f}")


def as_json(result: RetrainResult) -> dict[str, object]:
    icc = icc_table(result)
    return {
        "runs": json.loads(result.effect_sizes.to_json(orient="records")),
        "summary": json.loads(result.summary().reset_index(names="test")
                              .to_json(orient="records")),
        "icc": json.loads(icc.to_json(orient="records")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=CORPORA, default="contexts")
    parser.add_argument("--stimuli", choices=("all", "caliskan"), default="caliskan",
                        help="the extract's sentences of every stimulus, or of C1–C10's only")
    parser.add_argument("--cap", type=int, default=200,
                        help="at most this many extract sentences per stimulus (0: all)")
    parser.add_argument("--cased", action="store_true", help="do not lowercase the text")
    parser.add_argument("--runs", type=int, default=5, help="runs with different seeds")
    parser.add_argument("--bootstrap-runs", type=int, default=0,
                        help="runs on bootstrap samples of the documents")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dim", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--sg", type=int, choices=(0, 1), default=1,
                        help="1 skip-gram, 0 CBOW")
    parser.add_argument("--window", type=int, default=5)
    parser.add_argument("--min-count", type=int, default=5)
    parser.add_argument("--sample", type=float, default=1e-3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--check-determinism", action="store_true")
    parser.add_argument("--check-docs", type=int, default=20_000)
    parser.add_argument("--out", help="write the results as JSON to this path")
    parser.add_argument("--digest-of", help=argparse.SUPPRESS)
    args = parser.parse_args()
    config = TrainConfig(dim=args.dim, epochs=args.epochs, sg=args.sg, window=args.window,
                         min_count=args.min_count, sample=args.sample, workers=args.workers)
    if args.digest_of:  # child process of check_determinism
        docs = json.loads(Path(args.digest_of).read_text())
        print(vectors_digest(docs, args.seed, config))
        return

    machine = describe()
    print_machine(machine)
    stimuli = caliskan_stimuli() if args.stimuli == "caliskan" else None
    cap = args.cap or None
    corpus = load_corpus(args.corpus, lowercase=not args.cased, stimuli=stimuli, cap=cap)
    counts = corpus.counts()
    frequent = sum(n >= args.min_count for n in counts.values())
    print(f"corpus: {corpus.description}\n  {corpus.n_documents:,} documents, "
          f"{corpus.n_tokens:,} tokens, {len(counts):,} types, {frequent:,} with at least "
          f"{args.min_count}; read and tokenised in {corpus.seconds:.1f} s", flush=True)
    print(f"training: word2vec {config.label()}, sample {config.sample}, "
          f"workers {config.workers}", flush=True)

    results: dict[str, object] = {
        "machine": machine,
        "corpus": {"name": corpus.name, "description": corpus.description,
                   "stimuli": args.stimuli, "cap": cap, "lowercase": corpus.lowercase,
                   "documents": corpus.n_documents, "tokens": corpus.n_tokens,
                   "types": len(counts), f"types_min_count_{args.min_count}": frequent,
                   "read_seconds": round(corpus.seconds, 2)},
        "config": asdict(config),
    }
    if args.check_determinism:
        results["determinism"] = check_determinism(corpus, config, args.seed, args.check_docs)

    seeds = list(range(args.seed, args.seed + args.runs))
    sets = [("seeds", False, seeds)]
    if args.bootstrap_runs:
        sets.append(("bootstrap", True, list(range(args.seed, args.seed + args.bootstrap_runs))))
    for label, boot, run_seeds in sets:
        if not run_seeds:
            continue
        load = os.getloadavg()[0]
        start = time.perf_counter()
        result = retrain_runs(corpus, run_seeds, config, bootstrap=boot, progress=True)
        total = time.perf_counter() - start
        if "coverage" not in results:
            cov = result.coverage
            results["coverage"] = json.loads(cov.to_json(orient="records"))
            print("\ncoverage (words with a vector in the first run; missing words with "
                  "their corpus counts):")
            print(cov.to_string(index=False))
        print_result(f"{label} (load average {load:.2f} at start)", result)
        results[label] = {"load_average_1min_at_start": round(load, 2),
                          "total_seconds": round(total, 2), **as_json(result)}
    if "seeds" in results and "bootstrap" in results:
        both = pd.DataFrame({k: pd.DataFrame(results[k]["summary"]).set_index("test")["sd"]
                             for k in ("seeds", "bootstrap")})
        print("\nSD of d across runs: seeds vs bootstrap\n" + both.round(3).to_string())
    if args.out:
        save("retrain", results, args.out)


if __name__ == "__main__":
    main()
