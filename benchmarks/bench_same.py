"""Benchmark: the SAME chapter's bias scores on the paper's 258 occupations.

Every score of :mod:`biaslib.methods.same` — SAME (binary and three-group, paper
and code rules), skew, stereotype, MAC (per set and flat), Direct Bias (k = 1
and 2), WEAT's word scores and effect size — on the 258 occupations of the SAME
paper (Table 5) against debiaswe's nine gender definitional pairs, with

* GloVe 6B 50d vectors (phrases averaged), as the chapter uses them, and
* random 768-dimensional vectors, the width of bert-base-uncased (seeded).

Each score is timed as the best of ``--repeats`` calls (bias space included), and
beside it a per-word Python loop in the style of the SAME authors' code
(``np.mean([score(w) for w in W])``, one cosine per call) for SAME, MAC and the
Direct Bias. The last rows time Table 3's robustness measure (all set scores on
100 random half subsets) for one model.

Run with ``python benchmarks/bench_same.py [--repeats 20] [--save [PATH]]``; ``--save``
writes the timings with the machine's description to
``benchmarks/results/same.json``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from machine import RESULTS, describe, print_machine, save

from biasbook.same import (
    gender_words,
    glove_vectors,
    occupations,
    stereotype_groups,
    subset_robustness,
)
from biaslib.methods.same import (
    SAME_CODE,
    SAME_PAPER,
    direct_bias,
    mac,
    same,
    skew,
    stereotype,
    weat_d,
    weat_word,
)


def best_of(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _cos(u: np.ndarray, v: np.ndarray) -> float:
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def loop_same(W: np.ndarray, A: np.ndarray, B: np.ndarray) -> float:
    """The authors' style: unit means, then one cosine per word in a Python loop."""
    a = np.mean([x / np.linalg.norm(x) for x in A], axis=0)
    b = np.mean([x / np.linalg.norm(x) for x in B], axis=0)
    return float(np.mean([abs(_cos(w, a - b)) for w in W]))


def loop_mac(W: np.ndarray, sets: list[np.ndarray]) -> float:
    return float(np.mean([np.mean([1 - _cos(w, a) for A in sets for a in A]) for w in W]))


def scores(W: np.ndarray, F: np.ndarray, M: np.ndarray, R: list[np.ndarray],
           X: np.ndarray, Y: np.ndarray) -> dict[str, Callable[[], object]]:
    return {
        "SAME (binary)": lambda: same(W, [F, M]),
        "SAME (3 groups, paper)": lambda: same(W, R, convention=SAME_PAPER),
        "SAME (3 groups, code)": lambda: same(W, R, convention=SAME_CODE),
        "skew": lambda: skew(W, M, F),
        "stereotype (eq. 45)": lambda: stereotype(W, M, F),
        "MAC (per set)": lambda: mac(W, [M, F]),
        "MAC (flat)": lambda: mac(W, [M, F], mean="flat"),
        "Direct Bias (k=1)": lambda: direct_bias(W, [F, M]),
        "Direct Bias (k=2)": lambda: direct_bias(W, [F, M], k=2),
        "WEAT s(w, A, B)": lambda: weat_word(W, M, F),
        "WEAT d (50 + 50)": lambda: weat_d(X, Y, M, F),
        "loop: SAME (authors' style)": lambda: loop_same(W, F, M),
        "loop: MAC (authors' style)": lambda: loop_mac(W, [M, F]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--save", nargs="?", const=str(RESULTS / "same.json"), default=None)
    args = parser.parse_args()
    machine = describe()
    print_machine(machine)
    occs = list(occupations())
    female, male = gender_words()
    xs, ys = stereotype_groups()
    from biaslib.stimuli.data import load_set

    religion = [load_set("same_debiaswe", f"manzini_religion_{r}").words
                for r in ("judaism", "christianity", "islam")]
    glove = {"W": glove_vectors(occs), "F": glove_vectors(female), "M": glove_vectors(male),
             "R": [glove_vectors(r) for r in religion]}
    rng = np.random.default_rng(0)
    wide = {"W": rng.normal(size=(258, 768)), "F": rng.normal(size=(9, 768)),
            "M": rng.normal(size=(9, 768)), "R": [rng.normal(size=(5, 768)) for _ in range(3)]}
    x_idx = [occs.index(w) for w in xs]
    y_idx = [occs.index(w) for w in ys]
    results: dict[str, dict[str, float]] = {}
    for label, v in (("GloVe 50d", glove), ("random 768d", wide)):
        W = v["W"]
        fns = scores(W, v["F"], v["M"], v["R"], W[x_idx], W[y_idx])
        stacked = np.concatenate([W, v["F"], v["M"]])
        fns["Table 3: 100 half subsets, all set scores"] = lambda s=stacked: subset_robustness(
            s, 258, x_idx, y_idx)
        results[label] = {}
        for name, fn in fns.items():
            reps = 3 if name.startswith("Table 3") else args.repeats
            results[label][name] = best_of(fn, reps)
    names = list(next(iter(results.values())))
    print(f"{'score (258 occupations)':45s} " + " ".join(f"{k:>14s}" for k in results))
    for name in names:
        print(f"{name:45s} " + " ".join(f"{results[k][name] * 1e3:11.3f} ms" for k in results))
    if args.save:
        save("same", {"machine": machine, "seconds": results}, args.save)


if __name__ == "__main__":
    main()
