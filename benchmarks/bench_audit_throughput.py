"""Benchmark: seconds per audit task by method and model kind, for ``biaslib audit --dry-run``.

Runs :func:`biaslib.audit.run.run_audit` on each offline model of one kind —
``glove-6b-50d`` (static), ``all-MiniLM-L6-v2`` (encoder), ``SmolLM2-135M-Instruct``
(decoder), ``SPLADE-tiny-MLM`` (masked LM) — with every method the model runs on a
few tests (default ``C1 C6``, both with CEAT's and LPBS's templates), the small grid,
a cold embedding cache and no report. It records per model: the seconds to resolve the
name (reading the configuration), to load the weights, of each task (from the audit's
``timings.csv``), the wall-clock seconds of the whole call and the 1-minute load
average before and after; and the seconds to fingerprint (SHA-256) and read a
synthetic word-vector text file of ``--vector-mb`` megabytes, plain and gzipped (the
load of a static file grows with its size).

:mod:`biaslib.audit.estimate` copies its table from the output as measured; run with
``HF_HUB_OFFLINE=1 python benchmarks/bench_audit_throughput.py [--save]`` (``--save``
writes ``benchmarks/results/audit_throughput.json``) on a quiet machine: poll ``uptime``
first (another process on the same cores slows torch's threads several times). On 2
quiet cores it takes about 2 minutes, 1.5 of them SmolLM2 (``--kinds static encoder
"masked LM"`` leaves it out).

``--validate MODEL [MODEL ...]`` checks the estimate instead: it audits each model on
every default test (small grid, cold cache, no report), as a user's first audit, and
records the wall-clock seconds beside what :func:`biaslib.audit.estimate.estimate` says
for the same plan (what ``--dry-run`` prints); with ``--save`` it replaces the
``validation`` entry of the saved results (a plain ``--save`` rewrites the whole file:
rerun ``--validate`` after it, since the estimate changes with the table).
glove-6b-50d, SPLADE-tiny-MLM and all-MiniLM-L6-v2 take about 2 minutes together on
2 quiet cores, SmolLM2 about 4.5 more.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import tempfile
import time
from pathlib import Path

from machine import describe, print_machine, save

#: The offline model measured for each kind.
MODELS = {"static": "glove-6b-50d", "encoder": "all-MiniLM-L6-v2",
          "decoder": "SmolLM2-135M-Instruct", "masked LM": "SPLADE-tiny-MLM"}


def _vector_file(path: Path, megabytes: float, dim: int = 300) -> int:
    """Write a GloVe-style text file of about ``megabytes`` MB of random vectors; its lines."""
    import numpy as np

    rng = np.random.default_rng(0)
    lines, written = 0, 0
    with open(path, "w", encoding="utf-8") as handle:
        while written < megabytes * 1e6:
            block = rng.standard_normal((1000, dim)).round(5)
            text = "".join(f"w{lines + i} " + " ".join(map(str, row)) + "\n"
                           for i, row in enumerate(block))
            handle.write(text)
            written += len(text)
            lines += len(block)
    return lines


def _one_model(model: str, tests: list[str]) -> dict[str, object]:
    """Resolve, then audit ``model`` on ``tests`` in a fresh folder: the seconds of each part."""
    from biaslib.audit.inputs import resolve_input
    from biaslib.audit.run import run_audit

    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    kind = resolve_input(model).kind
    resolve = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        result = run_audit(model, out, tests=tests, report=False, progress=False)
        wall = time.perf_counter() - start
    timings = result.timings
    loads = timings[timings["part"] == "load model"]["seconds"]
    tasks = timings[timings["part"] != "load model"]
    per_task = {f"{row.part} {row.test}": round(float(row.seconds), 2)
                for row in tasks.itertuples()}
    by_method = tasks.groupby("part", sort=False)["seconds"].mean().round(2).to_dict()
    return {"model": result.provenance["models"][0]["name"], "kind": kind,
            "resolve_seconds": round(resolve, 2),
            "load_seconds": round(float(loads.sum()), 2),
            "task_seconds": per_task, "mean_task_seconds_by_method": by_method,
            "tasks": len(tasks), "wall_seconds": round(wall, 1),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
            "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)]}


def _validate(model: str) -> dict[str, object]:
    """Audit ``model`` on every default test, cold, and estimate the same plan first."""
    from biaslib.audit.estimate import estimate
    from biaslib.audit.run import plan_audit, run_audit

    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        os.environ["BIASLIB_CACHE_DIR"] = cache  # cold: nothing embedded yet
        plan = plan_audit([model], out)
        guess = estimate(plan.tasks, plan.stored())
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        result = run_audit(model, out, report=False, progress=False)
        wall = time.perf_counter() - start
    timings = result.timings
    tasks = timings[timings["part"] != "load model"]
    seat = tasks[tasks["part"] == "SEAT"]
    return {"model": result.provenance["models"][0]["name"], "tasks": len(tasks),
            "measured_wall_seconds": round(wall, 1),
            "estimate_seconds": round(guess.seconds, 1), "estimate_text": guess.text,
            "estimate_over_measured": round(guess.seconds / wall, 2),
            "seconds_by_method": tasks.groupby("part", sort=False)["seconds"].sum()
            .round(1).to_dict(),
            "seat_seconds_by_test": {row.test: round(float(row.seconds), 2)
                                     for row in seat.itertuples()},
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
            "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)]}


def validate(models: list[str], save_it: bool) -> None:
    """``--validate``: each model's whole default audit beside its estimate."""
    import json

    from machine import RESULTS

    machine = describe()
    print_machine(machine)
    found = {}
    for model in models:
        found[model] = _validate(model)
        print(f"{model}: {found[model]['tasks']} tasks, measured "
              f"{found[model]['measured_wall_seconds']} s, estimated "
              f"{found[model]['estimate_seconds']} s ({found[model]['estimate_text']})",
              flush=True)
    if save_it:
        saved = json.loads((RESULTS / "audit_throughput.json").read_text())
        saved["validation"] = {
            "what": "every default test, small grid, cold cache, no report: run_audit's "
                    "wall-clock seconds beside biaslib.audit.estimate's for the same plan",
            "machine": machine, "models": found}
        save("audit_throughput", saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", nargs="+", default=["C1", "C6"])
    parser.add_argument("--kinds", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--vector-mb", type=float, default=30.0)
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--validate", nargs="+", metavar="MODEL",
                        help="audit each MODEL on every default test, beside its estimate")
    args = parser.parse_args()
    if args.validate:
        validate(args.validate, args.save)
        return
    machine = describe()
    print_machine(machine)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["BIASLIB_CACHE_DIR"] = cache  # cold: nothing embedded yet
        import torch

        models = {}
        for kind in args.kinds:
            models[kind] = _one_model(MODELS[kind], args.tests)
            print(f"{MODELS[kind]} ({kind}): load {models[kind]['load_seconds']} s, "
                  f"per task {models[kind]['mean_task_seconds_by_method']}, "
                  f"wall {models[kind]['wall_seconds']} s", flush=True)

        from biaslib.audit.inputs import resolve_input
        from biaslib.audit.parts import needed_words
        from biaslib.embeddings.vector_files import read_vectors

        words = sorted(needed_words(args.tests))
        path = Path(cache) / "vectors.txt"
        lines = _vector_file(path, args.vector_mb)
        packed = path.with_suffix(".txt.gz")
        with open(path, "rb") as raw, gzip.open(packed, "wb", compresslevel=6) as handle:
            shutil.copyfileobj(raw, handle)
        time.sleep(2.5)  # a file changed in the last 2 s is hashed anew each time anyway
        vector_files = {}
        for label, file in (("text", path), ("gzipped text", packed)):
            size_mb = file.stat().st_size / 1e6
            start = time.perf_counter()
            resolve_input(file)  # the SHA-256 that fingerprints the file, as an audit does
            hashed = time.perf_counter() - start
            start = time.perf_counter()
            read_vectors(file, words=words)
            read = time.perf_counter() - start
            vector_files[label] = {
                "megabytes_on_disk": round(size_mb, 1), "lines": lines,
                "fingerprint_seconds": round(hashed, 2), "read_seconds": round(read, 2),
                "seconds_per_megabyte": round((hashed + read) / size_mb, 4)}
            print(f"a {size_mb:.0f} MB {label} vector file ({lines} lines): fingerprint "
                  f"{hashed:.2f} s, read {read:.2f} s "
                  f"({(hashed + read) / size_mb:.4f} s per MB on disk)", flush=True)
    results = {
        "benchmark": "biaslib audit: seconds per task by method and model kind (small grid, "
                     "cold cache, no report)",
        "machine": {**machine, "torch": torch.__version__,
                    "torch_threads": torch.get_num_threads(),
                    "load_average_1min_at_end": round(os.getloadavg()[0], 2)},
        "tests": args.tests,
        "models": models,
        "vector_files": vector_files,
    }
    if args.save:
        save("audit_throughput", results)


if __name__ == "__main__":
    main()
