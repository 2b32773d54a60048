"""Benchmark: ELMo (biaslib.embeddings.elmo) at the original release's size, random weights.

Writes a release with the shapes of AllenNLP's ``elmo_2x4096_512_2048cnn_2xhighway``
(93.6 M parameters, random weights: the time does not depend on their values) into
a temporary folder, loads it, and times encoding SEAT sentences (May et al.'s
Table 4 inputs: 4,869 distinct texts over its 40 rows, 3.5 words on average).
Prints load time and sentences per second; ``--threads 2`` approximates a free
Colab CPU.

Run with ``python benchmarks/bench_elmo.py [--device cuda] [--sentences 300]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from elmo_standin import ORIGINAL_OPTIONS, write_tiny_release

from biaslib.embeddings.elmo import ElmoEncoder


def seat_texts() -> list[str]:
    """May et al.'s Table 4 inputs (every row), distinct, in order."""
    from biasbook.published import MAY_ALL
    from biasbook.seat import may_contexts

    texts = [c.text for test, ctx in MAY_ALL for role in may_contexts(test, ctx).values()
             for c in role]
    return list(dict.fromkeys(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--sentences", type=int, default=300, help="0: all 4,869")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    texts = seat_texts()
    texts = texts[: args.sentences] if args.sentences else texts
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        options, weights = write_tiny_release(Path(folder), options=ORIGINAL_OPTIONS,
                                              name="original_shapes")
        written = time.perf_counter() - start
        start = time.perf_counter()
        enc = ElmoEncoder(options_file=options, weight_file=weights, device=args.device,
                          cache=False, progress=False, batch_size=args.batch_size)
        loaded = time.perf_counter() - start
        enc.encode_sentences(texts[:8])  # warm-up
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        start = time.perf_counter()
        enc.encode_sentences(texts)
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        took = time.perf_counter() - start
    print(f"release written in {written:.1f} s, "
          f"loaded (with fingerprint) in {loaded:.1f} s")
    print(f"{args.device}, threads {torch.get_num_threads()}, batch {args.batch_size}: "
          f"{len(texts)} sentences in {took:.1f} s = {len(texts) / took:.0f} sentences/s; "
          f"all 4,869 SEAT Table 4 texts: ~{4869 / (len(texts) / took):.0f} s")


if __name__ == "__main__":
    main()
