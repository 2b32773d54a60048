"""Benchmark: biaslib's sentence embedding against sentence-transformers' own ``encode``.

The sentences are those an audit embeds at sentence level: the SEAT template sentences of
every stimulus test and variant (:func:`~biaslib.stimuli.templates.seat_contexts` over
:func:`~biaslib.stimuli.templates.list_seat_tests`) and Mind Your Bias's template
sentences of its tests (:func:`~biaslib.stimuli.templates.myb_contexts`), each distinct
sentence once. For each batch size, on all-MiniLM-L6-v2 (offline) and the same number
of torch threads:

* biaslib: ``TransformerEncoder("all-MiniLM-L6-v2", cache=False, progress=False,
  batch_size=B).encode_sentences(texts, pooling="mean")``;
* sentence-transformers: ``SentenceTransformer(path, device="cpu").encode(texts,
  batch_size=B, normalize_embeddings=False)`` on the same local model folder.

Both are warmed up once on the whole list, then timed ``--repeats`` times each,
alternating which goes first; the best time of each gives sentences per second, and the
ratio is biaslib's rate over sentence-transformers' (above 1: biaslib is faster).

What is compared. The model folder's sentence-transformers pipeline is Transformer →
mean Pooling → Normalize, so ``encode`` returns unit vectors whatever
``normalize_embeddings`` says, while biaslib's mean pooling returns the raw masked mean
(the book's cosines do not depend on the length). The raw vectors are compared with the
same pipeline minus its Normalize module (the same modules, one untimed call):
``max_abs_diff`` is the largest absolute difference of any coordinate. The timed output
of ``encode`` is compared by cosine with biaslib's vector of the same sentence:
``min_cosine`` is the smallest (to 7 decimals). Both differ from exact agreement only by float32
rounding: the two libraries put different sentences in a batch (biaslib sorts by length
ascending, sentence-transformers descending), so the padding, and with it the order of
the sums, differs.

Run with ``python benchmarks/bench_throughput.py [--save [PATH]]`` (set
``HF_HUB_OFFLINE=1``); it needs the optional extra ``bench`` (``pip install
"biaslib[bench]"``) and says so, and stops, when sentence-transformers is missing.
``--save`` writes ``benchmarks/results/throughput.json`` (or the path given).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

import numpy as np
import torch
import transformers
from machine import describe, print_machine, ratio, save

from biaslib.embeddings.models import resolve_model
from biaslib.embeddings.transformer import TransformerEncoder
from biaslib.stimuli.templates import list_myb_tests, list_seat_tests, myb_contexts, seat_contexts

MODEL = "all-MiniLM-L6-v2"


def sentences() -> tuple[list[str], int]:
    """The distinct sentences (SEAT first, then Mind Your Bias's) and how many are SEAT's."""
    texts: list[str] = []
    for test, variants in list_seat_tests().items():
        for variant in variants:
            for role in seat_contexts(test, variant).values():
                texts.extend(c.text for c in role)
    n_seat = len(dict.fromkeys(texts))
    for test in list_myb_tests():
        for role in myb_contexts(test).values():
            texts.extend(c.text for c in role)
    return list(dict.fromkeys(texts)), n_seat


def timed(fn: Callable[[], np.ndarray]) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def unit(vectors: np.ndarray) -> np.ndarray:
    vectors = vectors.astype(np.float64)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def bench_batch(st_model, batch_size: int, texts: list[str], repeats: int) -> dict[str, object]:
    from sentence_transformers import SentenceTransformer

    enc = TransformerEncoder(MODEL, cache=False, progress=False, batch_size=batch_size)
    runs = {
        "biaslib": lambda: enc.encode_sentences(texts, pooling="mean"),
        "sentence_transformers": lambda: st_model.encode(
            texts, batch_size=batch_size, normalize_embeddings=False,
            show_progress_bar=False, convert_to_numpy=True),
    }
    outputs = {name: fn() for name, fn in runs.items()}  # warm-up
    times: dict[str, list[float]] = {name: [] for name in runs}
    for rep in range(repeats):
        for name in (list(runs) if rep % 2 == 0 else list(runs)[::-1]):
            seconds, outputs[name] = timed(runs[name])
            times[name].append(seconds)
    best = {name: min(t) for name, t in times.items()}

    # The same modules without Normalize: sentence-transformers' raw mean-pooled vectors.
    raw_pipeline = SentenceTransformer(modules=[st_model[0], st_model[1]], device="cpu")
    raw = raw_pipeline.encode(texts, batch_size=batch_size, show_progress_bar=False,
                              convert_to_numpy=True)
    ours, theirs = outputs["biaslib"], outputs["sentence_transformers"]
    max_diff = float(np.abs(ours.astype(np.float64) - raw).max())
    min_cos = float((unit(ours) * unit(theirs)).sum(1).min())
    rate = {name: len(texts) / t for name, t in best.items()}
    row = {
        "batch_size": batch_size,
        "biaslib_sentences_per_s": round(rate["biaslib"]),
        "sentence_transformers_sentences_per_s": round(rate["sentence_transformers"]),
        "ratio": ratio(rate["biaslib"], rate["sentence_transformers"]),
        "max_abs_diff": float(f"{max_diff:.2g}"),
        "min_cosine": round(min_cos, 7),
    }
    print(f"  batch {batch_size:3d}: biaslib {row['biaslib_sentences_per_s']:6,} sent/s, "
          f"sentence-transformers {row['sentence_transformers_sentences_per_s']:6,} sent/s; "
          f"ratio {row['ratio']}x; max |diff| {max_diff:.1e} (raw), "
          f"1 - min cosine {1 - min_cos:.1e}")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[32, 64])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(),
                        help="torch threads for both (default: torch's own choice)")
    parser.add_argument("--save", nargs="?", const="", default=None, metavar="PATH",
                        help="write the results as JSON (default "
                             "benchmarks/results/throughput.json)")
    args = parser.parse_args()
    try:
        import sentence_transformers
        from sentence_transformers import SentenceTransformer
    except ImportError:
        print("skipped: sentence-transformers is not installed "
              "(pip install 'biaslib[bench]'); nothing was timed or written")
        sys.exit(0)
    torch.set_num_threads(args.threads)
    transformers.utils.logging.disable_progress_bar()  # no bar while loading the weights
    machine = describe()
    machine.update(torch=torch.__version__, transformers=transformers.__version__,
                   sentence_transformers=sentence_transformers.__version__,
                   torch_threads=torch.get_num_threads())
    print_machine(machine)
    texts, n_seat = sentences()
    st_model = SentenceTransformer(resolve_model(MODEL).path, device="cpu")
    print(f"{MODEL}: {len(texts):,} distinct sentences ({n_seat:,} SEAT, "
          f"{len(texts) - n_seat:,} Mind Your Bias), {machine['torch_threads']} torch threads, "
          f"best of {args.repeats}")
    rows = [bench_batch(st_model, b, texts, args.repeats) for b in args.batch_sizes]
    machine["load_average_1min_at_end"] = round(os.getloadavg()[0], 2)
    print(f"1-minute load average at the end {machine['load_average_1min_at_end']}")
    if args.save is not None:
        save("throughput", {
            "benchmark": "throughput", "machine": machine,
            "inputs": {"model": MODEL, "n_sentences": len(texts), "n_seat_sentences": n_seat,
                       "n_myb_sentences": len(texts) - n_seat, "repeats": args.repeats,
                       "batch_sizes": args.batch_sizes, "pooling": "mean"},
            "rows": rows,
        }, args.save or None)


if __name__ == "__main__":
    main()
