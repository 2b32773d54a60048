"""Benchmark: CEAT's vectorised sampling against a per-sample loop; embedding cold vs warm.

1. CEAT on precomputed context vectors: 10,000 samples (Mind Your Bias's N) of a
   C1-sized test — 25 words per set, 100 contexts per word, 384 dimensions (MiniLM's
   width) — with :func:`biaslib.methods.ceat.sample_effect_sizes` (gathers, a sparse averaging
   matrix and ``einsum`` in chunks) and with :func:`biaslib.methods.ceat.sample_effect_sizes_loop`
   (one WEAT per sample, as CEAT's code runs), on the same draws, in the same run. The
   DerSimonian–Laird combination is timed separately. Each time is divided by the
   vectorised float32 one; ``--save`` writes them, with the machine's description, to
   ``benchmarks/results/ceat.json`` (or the path given).
2. With ``--embed``: the contexts of Mind Your Bias's C6 (names) from the corpus extract
   (at most 100 sentences per stimulus, Mind Your Bias's window) embedded with
   all-MiniLM-L6-v2 into a fresh, empty cache (cold), then again from that cache (warm).

Run with ``python benchmarks/bench_ceat.py [--save [PATH]] [--embed]`` (set
``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
from machine import describe, ms, print_machine, ratio, save

from biaslib.methods.ceat import sample_effect_sizes, sample_effect_sizes_loop, sample_indices
from biaslib.stats.meta_analysis import random_effects
from biaslib.stats.sets import ROLES


def best_of(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def bench_sampling(n_samples: int, words: int, contexts: int, dim: int, repeats: int,
                   loop_samples: int) -> dict[str, object]:
    rng = np.random.default_rng(0)
    arrays = {r: [rng.normal(size=(contexts, dim)).astype(np.float32) + (0.2 if r in "XA" else 0)
                  for _ in range(words)] for r in ROLES}
    draw_rng = np.random.default_rng(1)
    idx = {r: sample_indices([contexts] * words, n_samples, "if_fewer", draw_rng) for r in ROLES}
    args = [arrays[r] for r in ROLES]

    t_draw, _ = best_of(lambda: {r: sample_indices([contexts] * words, n_samples, "if_fewer",
                                                   np.random.default_rng(1)) for r in ROLES},
                        repeats)
    t32, (d32, v32) = best_of(lambda: sample_effect_sizes(*args, idx), repeats)
    t64, (d64, _) = best_of(lambda: sample_effect_sizes(*args, idx, dtype=np.float64), repeats)
    t_meta, _ = best_of(lambda: random_effects(d32, v32), repeats)
    loop_idx = {r: idx[r][:loop_samples] for r in ROLES}
    start = time.perf_counter()
    d_loop, _ = sample_effect_sizes_loop(*args, loop_idx)
    t_loop = (time.perf_counter() - start) * n_samples / loop_samples
    err = float(np.abs(d_loop - d32[:loop_samples]).max())
    err64 = float(np.abs(d_loop - d64[:loop_samples]).max())

    print(f"CEAT sampling, {n_samples:,} samples; {words} words per set, {contexts} contexts "
          f"per word, {dim} dims (best of {repeats})")
    print(f"  drawing the context indices:        {t_draw:8.3f} s")
    print(f"  vectorised, float32 dot products:   {t32:8.3f} s")
    print(f"  vectorised, float64 dot products:   {t64:8.3f} s")
    print(f"  DerSimonian-Laird combination:      {t_meta:8.4f} s")
    print(f"  per-sample loop ({loop_samples:,} samples, scaled): {t_loop:8.2f} s")
    print(f"  loop / vectorised float32: {t_loop / t32:,.0f}x; float64: {t_loop / t64:,.0f}x")
    print(f"  max |d_loop - d_vectorised|: float32 {err:.1e}, float64 {err64:.1e}")
    rows = [
        {"key": "vectorised_float32", "implementation": "vectorised, float32 dot products",
         "time_ms": ms(t32), "ratio": ratio(t32, t32)},
        {"key": "vectorised_float64", "implementation": "vectorised, float64 dot products",
         "time_ms": ms(t64), "ratio": ratio(t64, t32)},
        {"key": "loop", "implementation": "per-sample loop (CEAT's ceat_meta)",
         "time_ms": ms(t_loop), "ratio": ratio(t_loop, t32)},
    ]
    return {
        "inputs": {"n_samples": n_samples, "words_per_set": words, "contexts_per_word": contexts,
                   "dims": dim, "repeats": repeats, "loop_samples": loop_samples},
        "rows": rows,
        "draw_indices_ms": ms(t_draw),
        "meta_analysis_ms": ms(t_meta),
        "max_abs_difference": {"float32": float(f"{err:.2g}"), "float64": float(f"{err64:.2g}")},
    }


def bench_embedding(repeats: int) -> None:
    from biaslib.embeddings.cache import VectorCache
    from biaslib.embeddings.transformer import TransformerEncoder
    from biaslib.evaluate.ceat import embed_word_contexts
    from biaslib.stimuli.corpus import contexts_for_test, myb_window

    start = time.perf_counter()
    contexts = contexts_for_test("MYB-C6-name", cap=100, window=myb_window)
    t_read = time.perf_counter() - start
    n = sum(len(cs) for role in contexts.values() for cs in role.values())
    print(f"contexts of MYB-C6-name (<= 100 per stimulus, Mind Your Bias window): {n:,}, "
          f"read from the extract in {t_read:.1f} s (first read indexes the file)")
    with tempfile.TemporaryDirectory() as tmp:
        cache = VectorCache(os.path.join(tmp, "vectors.sqlite"))
        encoder = TransformerEncoder("all-MiniLM-L6-v2", cache=cache, progress=False)
        start = time.perf_counter()
        embed_word_contexts(contexts, encoder)
        cold = time.perf_counter() - start
        warm, _ = best_of(lambda: embed_word_contexts(contexts, encoder), repeats)
    print(f"  {encoder.name}")
    print(f"  cold cache: {cold:8.2f} s ({n / cold:,.0f} contexts/s)")
    print(f"  warm cache: {warm:8.2f} s ({n / warm:,.0f} contexts/s); cold/warm {cold / warm:.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--words", type=int, default=25)
    parser.add_argument("--contexts", type=int, default=100)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--loop-samples", type=int, default=10_000,
                        help="samples run by the loop (its time is scaled to --samples)")
    parser.add_argument("--embed", action="store_true", help="also time embedding cold/warm")
    parser.add_argument("--save", nargs="?", const="", default=None, metavar="PATH",
                        help="write the sampling results as JSON (default "
                             "benchmarks/results/ceat.json)")
    args = parser.parse_args()
    machine = describe()
    print_machine(machine)
    results = bench_sampling(args.samples, args.words, args.contexts, args.dim, args.repeats,
                             args.loop_samples)
    if args.embed:
        bench_embedding(args.repeats)
    if args.save is not None:
        save("ceat", {"benchmark": "ceat", "machine": machine, **results}, args.save or None)


if __name__ == "__main__":
    main()
