"""Benchmark: a whole ``biaslib audit`` of all-MiniLM-L6-v2, small grid, cold cache, then resumed.

Runs :func:`biaslib.audit.run.run_audit` on all-MiniLM-L6-v2 with every test of the book
(``default_tests()``) and the small grid, with an empty vector cache in a temporary
folder, as ``biaslib audit all-MiniLM-L6-v2 --out DIR`` does; then the same call again
on the same folder (everything is read back). Prints and, with ``--save``, stores in
``benchmarks/results/audit.json``: the wall-clock seconds of both runs, the seconds per
part (model load, SEAT, CEAT, ML-EAT, SAME) and per test, the number of tasks and rows.

Run with ``HF_HUB_OFFLINE=1 python benchmarks/bench_audit.py [--save]`` on a quiet
machine (the load average is recorded).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from machine import describe, print_machine, save


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--grid", default="small")
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    machine = describe()
    print_machine(machine)
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        os.environ["BIASLIB_CACHE_DIR"] = cache  # cold: nothing embedded yet
        import torch

        from biaslib.audit.run import run_audit

        start = time.perf_counter()
        cold = run_audit(args.model, out, grid=args.grid, progress=True)
        cold_wall = time.perf_counter() - start
        start = time.perf_counter()
        warm = run_audit(args.model, out, grid=args.grid, progress=False)
        resumed_wall = time.perf_counter() - start
    timings = cold.timings
    parts = timings.groupby("part", sort=False)["seconds"].sum().round(1).to_dict()
    per_test = (timings[timings["test"] != ""].groupby("test", sort=False)["seconds"].sum()
                .round(1).to_dict())
    results = {
        "benchmark": "biaslib audit, whole battery, one model: cold cache, then resumed",
        "machine": {**machine, "torch": torch.__version__,
                    "torch_threads": torch.get_num_threads()},
        "inputs": {"model": cold.provenance["models"][0]["name"], "grid": args.grid,
                   "tests": cold.provenance["tests"], "methods": cold.provenance["methods"],
                   "tasks": len(timings) - 1, "rows": len(cold.results),
                   "headline numbers": len(cold.summary)},
        "cold_wall_seconds": round(cold_wall, 1),
        "resumed_wall_seconds": round(resumed_wall, 1),
        "resumed_tasks_computed": warm.computed,
        "seconds_per_part": parts,
        "seconds_per_test": per_test,
    }
    print(f"{args.model}, {args.grid} grid, {len(cold.provenance['tests'])} tests, "
          f"{len(timings) - 1} tasks, {len(cold.results)} rows: cold {cold_wall:.0f} s, "
          f"resumed {resumed_wall:.1f} s ({warm.computed} tasks recomputed)")
    for part, seconds in parts.items():
        print(f"  {part:>10}: {seconds:7.1f} s")
    if args.save:
        save("audit", results)


if __name__ == "__main__":
    main()
