"""Benchmark: the vectorised permutation test against a one-permutation-at-a-time loop.

C1-sized inputs (25 + 25 target vectors, 25 + 25 attribute vectors, 300 dims),
100,000 random re-splits, both implementations in the same run on the same
association scores. Run with ``python benchmarks/bench_permutation.py``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from biaslib.methods.weat import association, weat
from biaslib.stats.permutation import permutation_test


def loop_permutation_p(s_x: np.ndarray, s_y: np.ndarray, n_resamples: int, seed: int) -> float:
    """Straightforward reference: shuffle the pool once per permutation, in Python."""
    rng = np.random.default_rng(seed)
    pooled = np.concatenate([s_x, s_y])
    n_x = s_x.size
    observed = s_x.mean() - s_y.mean()
    hits = 0
    for _ in range(n_resamples):
        perm = rng.permutation(pooled)
        if perm[:n_x].mean() - perm[n_x:].mean() >= observed:
            hits += 1
    return (hits + 1) / (n_resamples + 1)


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    X, Y, A, B = (rng.normal(size=(25, 300)) for _ in range(4))
    X += 0.05 * A.mean(0)
    s_x, s_y = association(X, A, B), association(Y, A, B)

    def vectorised():
        return permutation_test(s_x, s_y, n_resamples=args.samples, exact_limit=0, seed=1)

    def loop():
        return loop_permutation_p(s_x, s_y, args.samples, seed=1)

    def full_weat():
        return weat(X, Y, A, B)

    t_vec = best_of(vectorised, args.repeats)
    t_loop = best_of(loop, 1)
    t_weat = best_of(full_weat, args.repeats)
    p_vec, p_loop = vectorised().p_value, loop()

    print(f"machine: {platform.processor() or platform.machine()}, numpy {np.__version__}")
    print(f"inputs: 25+25 targets, 25+25 attributes, 300 dims; {args.samples:,} re-splits")
    print(f"vectorised permutation test : {t_vec * 1e3:8.1f} ms   p = {p_vec:.5f}")
    print(f"one-at-a-time Python loop   : {t_loop * 1e3:8.1f} ms   p = {p_loop:.5f}")
    print(f"speed-up (loop / vectorised): {t_loop / t_vec:8.1f}x")
    print(f"full weat() incl. cosines   : {t_weat * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
