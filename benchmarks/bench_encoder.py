"""Benchmark: batched, cached encoding against one sentence at a time; SEAT tables cold vs warm.

1. Sentences per second of :class:`~biaslib.embeddings.TransformerEncoder` (batched
   by length, cache off) against a loop that encodes one sentence per call, on the
   SEAT sentences of C1 and C3, for each offline model.
2. With ``--seat``: the time to recompute the SEAT chapter's tables (May et al.'s
   tests and Mind Your Bias's, all offline models) with a cold embedding cache, then
   again with the cache it left behind.

Run with ``python benchmarks/bench_encoder.py [--seat]`` (set ``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from biaslib.embeddings.transformer import TransformerEncoder
from biaslib.stimuli.templates import seat_contexts


def sentences() -> list[str]:
    texts = []
    for test in ("C1", "C3"):
        for role in seat_contexts(test).values():
            texts.extend(c.text for c in role)
    return list(dict.fromkeys(texts))


def throughput(model: str, texts: list[str], loop_n: int) -> None:
    enc = TransformerEncoder(model, cache=False, progress=False, batch_size=32)
    enc.encode_sentences(texts[:8])  # warm-up
    start = time.perf_counter()
    enc.encode_sentences(texts)
    batched = len(texts) / (time.perf_counter() - start)
    start = time.perf_counter()
    for text in texts[:loop_n]:
        enc.encode_sentences([text])
    loop = loop_n / (time.perf_counter() - start)
    print(f"{model:>24}: batched {batched:7.0f} sent/s ({len(texts)} sentences), "
          f"one at a time {loop:6.0f} sent/s ({loop_n}); speed-up {batched / loop:4.1f}x")


def seat_tables() -> None:
    from biasbook.published import MAY_ALL, MYB_TABLE3
    from biasbook.seat import OFFLINE_SEAT_MODELS, may_table, myb_table
    from biaslib.stats.conventions import MIND_YOUR_BIAS

    with tempfile.TemporaryDirectory() as cache:
        os.environ["BIASLIB_CACHE_DIR"] = cache
        for label in ("cold cache", "warm cache"):
            start = time.perf_counter()
            may_table(OFFLINE_SEAT_MODELS, MAY_ALL, MIND_YOUR_BIAS, progress=False)
            myb_table(OFFLINE_SEAT_MODELS, MYB_TABLE3, MIND_YOUR_BIAS, progress=False)
            print(f"SEAT chapter tables, {label}: {time.perf_counter() - start:6.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seat", action="store_true", help="also time the SEAT tables")
    parser.add_argument("--loop", type=int, default=300, help="sentences in the loop")
    args = parser.parse_args()
    texts = sentences()
    for model in ("all-MiniLM-L6-v2", "SmolLM2-135M-Instruct"):
        throughput(model, texts, args.loop)
    if args.seat:
        seat_tables()


if __name__ == "__main__":
    main()
