"""Benchmark: biaslib's permutation test against its peers, in one run, on the same scores.

C1-sized inputs (25 + 25 target vectors, 25 + 25 attribute vectors, 300 dims): the
association scores of the 50 targets are computed once and every implementation tests
them with ``--samples`` (100,000) random re-splits, one after the other in the same
process:

* biaslib's :func:`~biaslib.stats.permutation.permutation_test` — with its cache of
  split masks emptied before every call ("masks drawn"), with the masks of the previous
  call reused ("masks cached"), with ``statistic="sum"``, and with WEFE's convention
  (groups drawn with replacement, difference of sums, strict ``>``);
* :func:`scipy.stats.permutation_test` (``vectorized=True``,
  ``permutation_type="independent"``, the same number of re-splits);
* two one-re-split-at-a-time Python loops over ``--samples`` re-splits: sent-bias's
  (``sentbias/weat.py``: shuffle the pooled item indices, sum the memoised scores of
  the first ``|X|``, compare) and the plainer loop this benchmark compared against
  before (a shuffled copy of the scores, the difference of the two means);
* WEFE's ``WEAT._calc_p_value`` (optional: ``pip install "biaslib[peers]"``; WEFE pins
  numpy <= 1.26.4, so use a separate environment). It recomputes a WEAT from the
  embeddings for every permutation (about 25 ms each here), so it runs
  ``--wefe-samples`` iterations and its time is scaled linearly to ``--samples``.

Every row gets its time divided by biaslib's ("masks drawn"). The physical-limit
estimate is the arithmetic of a re-split done naively, one addition per item, times
the number of re-splits, divided by the measured throughput of numpy's float64 sum on
in-cache data. With ``--variants``, the samplers that were measured while choosing the
mechanism are timed too (null sums only). ``--save`` writes everything, with the
machine's description, to ``benchmarks/results/permutation.json`` (or the path given).

Run with ``python benchmarks/bench_permutation.py [--save [PATH]] [--variants]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from machine import describe, ms, print_machine, ratio, save, show
from scipy import stats

from biaslib.methods.weat import association
from biaslib.stats import permutation
from biaslib.stats.permutation import permutation_test


def best_of(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def loop_p(s_x: np.ndarray, s_y: np.ndarray, n_resamples: int, seed: int) -> float:
    """The reference this benchmark used before: a shuffled copy of the scores, two means."""
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


def sent_bias_loop_p(s_x: np.ndarray, s_y: np.ndarray, n_resamples: int, seed: int) -> float:
    """sent-bias's loop: shuffle the pooled items, sum the first |X| scores, compare."""
    rng = np.random.default_rng(seed)
    memo = np.concatenate([s_x, s_y])
    items = np.arange(memo.size)
    n_x = s_x.size
    observed = memo[:n_x].sum()
    hits = 0
    for _ in range(n_resamples):
        rng.shuffle(items)
        if memo[items[:n_x]].sum() >= observed:  # ties count ("conservative")
            hits += 1
    return (hits + 1) / (n_resamples + 1)


def scipy_p(s_x: np.ndarray, s_y: np.ndarray, n_resamples: int, seed: int) -> float:
    def statistic(a, b, axis):
        return a.mean(axis=axis) - b.mean(axis=axis)

    try:
        res = stats.permutation_test((s_x, s_y), statistic, permutation_type="independent",
                                     vectorized=True, n_resamples=n_resamples,
                                     alternative="greater", rng=seed)
    except TypeError:  # scipy < 1.15 calls it random_state
        res = stats.permutation_test((s_x, s_y), statistic, permutation_type="independent",
                                     vectorized=True, n_resamples=n_resamples,
                                     alternative="greater", random_state=seed)
    return float(res.pvalue)


def wefe_runner(X, Y, A, B) -> Callable[[int], float] | None:
    """WEFE's WEAT p-value on the same vectors, or None when WEFE is not installed."""
    try:
        from wefe.metrics import WEAT
    except ImportError:
        return None
    metric = WEAT()
    sets = [{f"{tag}{i}": v for i, v in enumerate(m)} for tag, m in zip("xyab", (X, Y, A, B),
                                                                         strict=True)]
    score = metric._calc_weat(X, Y, A, B)  # WEFE's test statistic: the difference of sums

    def run(iterations: int) -> float:
        return float(metric._calc_p_value(
            target_embeddings=sets[:2], attribute_embeddings=sets[2:], original_score=score,
            iterations=iterations, method="approximate", test_type="right-sided",
            verbose=False))

    return run


def add_throughput(repeats: int) -> float:
    """float64 additions per second of numpy's sum over an in-cache block (one core)."""
    block = np.random.default_rng(0).normal(size=1 << 15)  # 256 KiB
    inner = 200
    t, _ = best_of(lambda: [block.sum() for _ in range(inner)], repeats)
    return block.size * inner / t


def variants(pooled: np.ndarray, n_x: int, n: int, repeats: int) -> list[dict[str, object]]:
    """The samplers measured while choosing the mechanism: X sums of n re-splits."""
    n_total = pooled.size
    chunk = 5_000

    def keys(dtype):
        def run():
            rng = np.random.default_rng(1)
            out = np.empty(n)
            for lo in range(0, n, chunk):
                k = rng.random((min(chunk, n - lo), n_total), dtype=dtype)
                out[lo : lo + len(k)] = pooled[np.argpartition(k, n_x - 1, axis=1)[:, :n_x]].sum(1)
            return out
        return run

    def permuted():
        rng = np.random.default_rng(1)
        out = np.empty(n)
        for lo in range(0, n, chunk):
            idx = np.tile(np.arange(n_total, dtype=np.uint8), (min(chunk, n - lo), 1))
            rng.permuted(idx, axis=1, out=idx)
            out[lo : lo + len(idx)] = pooled[idx[:, :n_x]].sum(1)
        return out

    def floyd():  # Floyd's subset algorithm on one 64-bit mask per row (n_total <= 64)
        rng = np.random.default_rng(1)
        masks = np.zeros(n, np.uint64)
        one = np.uint64(1)
        for j in range(n_total - n_x, n_total):
            bit = one << rng.integers(0, j + 1, size=n, dtype=np.uint8).astype(np.uint64)
            masks |= np.where(masks & bit, one << np.uint64(j), bit)
        bits = np.unpackbits(masks.view(np.uint8).reshape(n, 8), axis=1, bitorder="little")
        return bits[:, :n_total] @ pooled

    def masks_matmul():
        masks = np.concatenate(list(permutation._split_masks(n_x, n_total, n,
                                                             np.random.default_rng(1))))
        bits = np.unpackbits(permutation._little_bytes(masks), axis=1, bitorder="little")
        return bits[:, :n_total].astype(np.float64) @ pooled

    def masks_tables():
        masks = np.concatenate(list(permutation._split_masks(n_x, n_total, n,
                                                             np.random.default_rng(1))))
        out = np.empty(n)
        permutation._mask_statistics(masks, permutation._byte_tables(pooled), pooled.sum(),
                                     n_x, n_total - n_x, "sum", out)
        return out

    rows = []
    for name, fn in [
        ("float64 random keys + argpartition (biaslib before)", keys(np.float64)),
        ("float32 random keys + argpartition", keys(np.float32)),
        ("rng.permuted on a tiled index array", permuted),
        ("Floyd's subset algorithm on 64-bit masks, unpack + matmul", floyd),
        ("rejection-drawn bit masks, unpack + matmul (M @ scores)", masks_matmul),
        ("rejection-drawn bit masks, byte tables (biaslib)", masks_tables),
    ]:
        t, _ = best_of(fn, repeats)
        rows.append({"variant": name, "time_ms": ms(t)})
        print(f"  {name:<60} {t * 1e3:8.2f} ms")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--wefe-samples", type=int, default=1_000,
                        help="WEFE iterations actually run (time scaled to --samples)")
    parser.add_argument("--variants", action="store_true", help="also time other samplers")
    parser.add_argument("--save", nargs="?", const="", default=None, metavar="PATH",
                        help="write the results as JSON (default benchmarks/results/"
                             "permutation.json)")
    args = parser.parse_args()
    machine = describe()
    print_machine(machine)

    rng = np.random.default_rng(0)
    X, Y, A, B = (rng.normal(size=(25, 300)) for _ in range(4))
    X += 0.05 * A.mean(0)
    s_x, s_y = association(X, A, B), association(Y, A, B)
    n, seed = args.samples, 1
    print(f"inputs: 25+25 targets, 25+25 attributes, 300 dims; {n:,} re-splits; "
          f"best of {args.repeats}")

    def biaslib(**kw):
        return permutation_test(s_x, s_y, n_resamples=n, exact_limit=0, seed=seed, **kw).p_value

    def drawn(**kw):
        permutation.clear_split_cache()
        return biaslib(**kw)

    rows: list[dict[str, object]] = []

    def record(key, label, seconds, p, note=""):
        rows.append({"key": key, "implementation": label, "time_ms": ms(seconds),
                     "p_value": round(p, 5), "note": note, "_seconds": seconds})

    t, p = best_of(drawn, args.repeats)
    record("biaslib", "biaslib, masks drawn", t, p)
    biaslib()
    t, p = best_of(biaslib, args.repeats)
    record("biaslib_cached", "biaslib, masks cached", t, p)
    t, p = best_of(lambda: drawn(statistic="sum"), args.repeats)
    record("biaslib_sum", "biaslib, statistic='sum'", t, p)
    t, p = best_of(lambda: biaslib(replacement=True, statistic="sum", ties="gt"), args.repeats)
    record("biaslib_wefe", "biaslib, WEFE's convention (with replacement)", t, p)
    t, p = best_of(lambda: scipy_p(s_x, s_y, n, seed), min(args.repeats, 3))
    record("scipy", "scipy.stats.permutation_test", t, p)
    t, p = best_of(lambda: sent_bias_loop_p(s_x, s_y, n, seed), 1)
    record("sent_bias_loop", "sent-bias's loop (shuffle indices, X sum)", t, p)
    t, p = best_of(lambda: loop_p(s_x, s_y, n, seed), 1)
    record("loop", "one-at-a-time loop (shuffled copy, two means)", t, p)
    wefe = wefe_runner(X, Y, A, B)
    if wefe is None:
        wefe_note = ("skipped: WEFE is not installed (pip install 'biaslib[peers]', in an "
                     "environment of its own: WEFE pins numpy <= 1.26.4)")
        print(f"WEFE WEAT._calc_p_value: {wefe_note}")
    else:
        import wefe as wefe_pkg

        t, p = best_of(lambda: wefe(args.wefe_samples), 1)
        wefe_note = (f"wefe {wefe_pkg.__version__}: {args.wefe_samples:,} iterations run, "
                     f"time scaled to {n:,}")
        record("wefe", "WEFE WEAT._calc_p_value", t * n / args.wefe_samples, p, wefe_note)

    reference = rows[0]["_seconds"]
    print(f"{'implementation':<48} {'time (ms)':>12} {'÷ biaslib':>10} {'p':>9}")
    for row in rows:
        row["ratio"] = ratio(row.pop("_seconds"), reference)
        print(f"{row['implementation']:<48} {show(row['time_ms']):>12} {show(row['ratio']):>10} "
              f"{row['p_value']:>9.5f} {row['note']}")

    throughput = add_throughput(args.repeats)
    operations = (s_x.size + s_y.size) * n
    floor = operations / throughput
    limit = {"operations": operations, "operations_per_resplit": s_x.size + s_y.size,
             "adds_per_second": float(f"{throughput:.3g}"), "time_ms": ms(floor),
             "biaslib_over_limit": ratio(reference, floor),
             "cached_over_limit": ratio(rows[1]["time_ms"] / 1e3, floor)}
    print(f"physical limit: {s_x.size + s_y.size} additions x {n:,} re-splits = "
          f"{operations:,} operations at {throughput:.3g} float64 adds/s (numpy sum, in "
          f"cache, one core) = {floor * 1e3:.2f} ms; biaslib is {limit['biaslib_over_limit']}x "
          f"that (cached masks: {limit['cached_over_limit']}x)")

    results: dict[str, object] = {
        "benchmark": "permutation",
        "machine": machine,
        "inputs": {"n_x": int(s_x.size), "n_y": int(s_y.size), "dims": 300,
                   "n_resamples": n, "repeats": args.repeats, "seed": seed,
                   "wefe_iterations": args.wefe_samples},
        "rows": rows,
        "wefe": wefe_note,
        "physical_limit": limit,
    }
    if args.variants:
        print("samplers (X sums of the re-splits only):")
        results["variants"] = variants(np.concatenate([s_x, s_y]), s_x.size, n, args.repeats)
    if args.save is not None:
        save("permutation", results, args.save or None)


if __name__ == "__main__":
    main()
