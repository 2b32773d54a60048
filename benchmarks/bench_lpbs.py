"""Benchmark: masked-LM sentences scored per second, batched against one at a time.

1. Sentences per second of :class:`~biaslib.embeddings.masked_lm.MaskedLMScorer`
   (cache off) on every sentence of Mind Your Bias's LPBS cells (the
   ``lpbs_myb`` grid: attribute sentences and priors, deduplicated), in batches
   sorted by length against one sentence per call (``--loop`` sentences).
2. With ``--tables``: the time to compute the LPBS chapter's four stored tables
   with a cold cache, then again with the cache it left behind.

Run with ``python benchmarks/bench_lpbs.py [--tables] [--threads N] [--save [PATH]]``
(set ``HF_HUB_OFFLINE=1``); ``--save`` writes the numbers and the machine to
``benchmarks/results/lpbs.json`` (or PATH). ``--threads`` sets torch's intra-op threads:
on a machine whose cores are busy with other work, torch's default thread pool waits on
them, and a model this small runs faster on one thread.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from machine import RESULTS, describe, print_machine, save

from biaslib.embeddings.masked_lm import TINY_MLM, MaskedLMScorer, MaskQuery
from biaslib.evaluate.lpbs import template_queries
from biaslib.stimuli.lpbs import myb_cells, myb_templates


def queries(mask_token: str) -> list[MaskQuery]:
    """Every distinct query of the ``lpbs_myb`` grid (as the authors coded the attributes)."""
    out: dict[tuple[str, int, str], MaskQuery] = {}
    for test, word_set, _ in myb_cells():
        for t in myb_templates(test, word_set):
            qa, qb, prior = template_queries(t, mask_token)
            for q in (*qa, *qb, prior):
                out.setdefault((q.text, q.slot, ",".join(q.targets)), q)
    return list(out.values())


def throughput(model: str, loop_n: int, batch_size: int) -> dict[str, float]:
    scorer = MaskedLMScorer(model, cache=False, progress=False, batch_size=batch_size)
    qs = queries(scorer.mask_token)
    scorer.log_probs(qs[:16])  # warm-up
    start = time.perf_counter()
    scorer.log_probs(qs)
    batched = len(qs) / (time.perf_counter() - start)
    start = time.perf_counter()
    for q in qs[:loop_n]:
        scorer.log_probs([q])
    loop = loop_n / (time.perf_counter() - start)
    print(f"{scorer.spec.name}: batched {batched:7.0f} sentences/s ({len(qs)} sentences, "
          f"batch size {batch_size}), one at a time {loop:6.0f} sentences/s ({loop_n}); "
          f"speed-up {batched / loop:4.1f}x")
    return {"sentences": len(qs), "batched_per_s": batched, "loop_n": loop_n,
            "one_at_a_time_per_s": loop, "speed_up": batched / loop, "batch_size": batch_size}


def tables() -> dict[str, float]:
    from biasbook.lpbs import CHAPTER_TABLES, chapter_table

    out = {}
    with tempfile.TemporaryDirectory() as cache:
        os.environ["BIASLIB_CACHE_DIR"] = cache
        for label in ("cold cache", "warm cache"):
            start = time.perf_counter()
            for name in CHAPTER_TABLES:
                chapter_table(name, progress=False)
            out[label] = time.perf_counter() - start
            print(f"LPBS chapter tables, {label}: {out[label]:6.1f} s")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loop", type=int, default=500, help="sentences in the loop")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--tables", action="store_true", help="also time the chapter's tables")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch intra-op threads (default: torch's choice)")
    parser.add_argument("--save", nargs="?", const=str(RESULTS / "lpbs.json"), default=None,
                        help="write the results as JSON (default benchmarks/results/lpbs.json)")
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    machine = {**describe(), "torch": torch.__version__, "torch_threads": torch.get_num_threads()}
    print_machine(machine)
    result: dict[str, object] = {"machine": machine,
                                 "throughput": throughput(TINY_MLM, args.loop, args.batch_size)}
    if args.tables:
        result["tables_s"] = tables()
    if args.save:
        save("lpbs", result, args.save)


if __name__ == "__main__":
    main()
