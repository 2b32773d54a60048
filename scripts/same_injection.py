"""The SAME chapter's bias-injection experiment: fine-tune, unmask, embed; store the tables.

Schröder et al. (seed 004), §5: a masked LM is fine-tuned on template sentences
whose pronouns are drawn from each occupation's gender probability, then probed
(unmasking) and embedded. This script runs the grid of
:data:`biasbook.same.INJECTION` on the tiny offline masked LM and writes
into ``data/results/``:

* ``same_injection_runs.csv`` — one row per run: settings, seeds, losses,
  held-out accuracy, unmasking R² (+ ``.json`` provenance);
* ``same_injection_words.csv`` — per run and occupation: predefined bias,
  training bias, number of training sentences, unmasking bias;
* ``same_injection_vectors.npz`` — per run and pooling, the float16 vectors of
  the 258 occupations and the 18 attribute words (what every cosine score is
  computed from);
* ``same_injection_models.csv`` — per run and pooling, the word-level R² of each
  score, set scores, subset robustness and the PCA angle, computed from those
  float16 vectors (the test suite recomputes them);
* ``same_injection_smoke.csv`` — a 30-step run on 20 occupations, recomputed by
  the test suite as a check that the pipeline is deterministic.

Each finished run is kept in ``$BIASLIB_CACHE_DIR/same_injection/`` (default
``~/.cache/biaslib``), so an interrupted grid resumes where it stopped::

    python scripts/same_injection.py              # the grid, then the tables
    python scripts/same_injection.py --smoke      # only the smoke table
    python scripts/same_injection.py --tables     # rebuild the tables from finished runs
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
import warnings
import zipfile
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from biasbook.same import (
    INJECTION,
    InjectionSettings,
    injection_grid,
    injection_model_table,
    run_injection_model,
)
from biasbook.stored import results_dir, save_results
from biaslib.errors import CacheError
from biaslib.files import write_atomically

SMOKE = InjectionSettings(0.5, 0.3, data_seed=7, max_steps=30, occupations=20, batch_size=8)


def cache_dir() -> Path:
    root = Path(os.environ.get("BIASLIB_CACHE_DIR", Path.home() / ".cache" / "biaslib"))
    folder = root / "same_injection"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


#: The arrays every finished run file holds.
RUN_KEYS = ("all", "word", "record", "words")


def save_run(path: Path, **arrays: object) -> None:
    """Write a run file whole or not at all, so that a resumed grid never takes half a run."""
    write_atomically(path, lambda tmp: np.savez_compressed(tmp, **arrays))


def run_is_whole(path: Path) -> bool:
    """Whether the run file ``path`` can be read back: every array of :data:`RUN_KEYS` loads.

    A file cut short (a crash or a full disk while it was written, before writes were
    atomic) is not a zip archive, or one whose members fail their CRC check.
    """
    try:
        with np.load(path) as z:
            for key in RUN_KEYS:
                z[key]  # reading a member checks its CRC
            json.loads(str(z["record"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return False
    return True


def _run_record(run, model_id: str, group: str, trained: bool) -> dict[str, object]:
    s = run.settings
    return {"model": model_id, "group": group, "mu": s.mu, "sigma": s.sigma,
            "bias_seed": s.bias_seed, "data_seed": s.data_seed, "epochs": s.epochs, "lr": s.lr,
            "batch_size": s.batch_size, "trained": trained,
            **{k: run.summary.get(k, np.nan) for k in (
                "steps", "train_loss_first", "train_loss_last", "eval_loss", "eval_accuracy",
                "n_train", "n_validation", "unmask_r2")},
            "passes_r2_bar": bool(run.summary["unmask_r2"] >= INJECTION["r2_threshold"]),
            "weights": run.summary["weights"], "model_name": run.summary["model"]}


def one(settings: InjectionSettings, *, train: bool = True, label: str | None = None) -> Path:
    """Run (or reuse) one model; returns its cache file."""
    model_id = label or settings.model_id
    path = cache_dir() / f"{model_id}.npz"
    if path.is_file():
        if run_is_whole(path):
            print(f"{model_id}: done before ({path})", file=sys.stderr)
            return path
        warnings.warn(f"the run file {path} is damaged (cut short or unreadable); "
                      f"running {model_id} again", stacklevel=2)
    start = time.perf_counter()
    run = run_injection_model(settings, progress=True, train=train)
    on_grid = (settings.lr, settings.epochs, settings.max_steps, settings.occupations) == (
        INJECTION["lr"], INJECTION["epochs"], None, None)
    group = settings.group if train and on_grid else ""
    record = _run_record(run, model_id, group, train)
    record["seconds"] = round(time.perf_counter() - start, 1)
    save_run(path, all=run.vectors["all"], word=run.vectors["word"],
             record=json.dumps(record, default=float),
             words=run.words.to_json(orient="split", double_precision=15))
    print(f"{model_id}: unmask R2 {record['unmask_r2']:.3f}, {record['seconds']} s",
          file=sys.stderr)
    return path


def grid() -> list[tuple[InjectionSettings, bool, str | None]]:
    runs = [(s, True, None) for s in injection_grid()]
    ref = InjectionSettings(0.5, 0.3, INJECTION["bias_seed"], 0)  # type: ignore[arg-type]
    runs.append((ref, False, "pretrained-mu0.50-sd0.30-s0"))
    return runs


def tables() -> None:
    runs, words, vectors = [], [], {}
    for settings, train, label in grid():
        path = cache_dir() / f"{label or settings.model_id}.npz"
        if not path.is_file():
            raise FileNotFoundError(f"run {path.stem} has not finished; run the grid first")
        if not run_is_whole(path):
            raise CacheError(f"the run file {path} is damaged (cut short or unreadable); "
                             f"run the grid again (python scripts/same_injection.py), which "
                             f"redoes that run, or delete the file")
        with np.load(path) as z:
            record = json.loads(str(z["record"]))
            record["trained"] = train  # from the grid, not the cached record
            w = pd.read_json(io.StringIO(str(z["words"])), orient="split")
            for pool in ("all", "word"):
                vectors[f"{record['model']}/{pool}"] = z[pool]
        runs.append(record)
        words.append(w.assign(model=record["model"]))
    runs_frame = pd.DataFrame(runs)
    words_frame = pd.concat(words, ignore_index=True)[
        ["model", "occupation", "predefined", "training_bias", "n_train", "unmask_bias"]]
    models = pd.concat([injection_model_table(words_frame, runs_frame, vectors, pool)
                        for pool in ("all", "word")], ignore_index=True)
    from biasbook.same import gender_words, occupations
    from biaslib.embeddings.mlm_finetune import tiny_mlm_spec

    female, male = gender_words()
    spec = tiny_mlm_spec()
    provenance = {
        "what": "SAME paper §5 bias injection on the tiny offline masked LM",
        "model": {"name": spec.name, "weights": spec.fingerprint},
        "settings": {k: v for k, v in INJECTION.items()},
        "runs": [{**asdict(s), "model": label or s.model_id, "trained": train}
                 for s, train, label in grid()],
        "occupations": "data/stimuli/same_schroeder.yaml occupations (258)",
        "attributes": {"female": list(female), "male": list(male)},
        "vector_file": "same_injection_vectors.npz (float16; per run '<model>/<pooling>', rows: "
                       "occupations, female words, male words)",
        "seconds_per_run": {r["model"]: r["seconds"] for r in runs},
        "torch_threads": _threads(),
    }
    save_results(runs_frame.drop(columns=["seconds"]), "same_injection_runs", provenance)
    save_results(words_frame, "same_injection_words",
                 {**provenance, "what": "per run and occupation: predefined, training and "
                                        "unmasking bias"})
    save_results(models, "same_injection_models",
                 {**provenance, "what": "word-level R2, set scores, subset robustness (Table 3) "
                                        "and PCA angle, from the float16 vectors"})
    save_run(results_dir() / "same_injection_vectors.npz",
             vocab=np.array(list(occupations()) + list(female) + list(male)), **vectors)


def _threads() -> int:
    import torch

    return torch.get_num_threads()


def smoke() -> None:
    start = time.perf_counter()
    run = run_injection_model(SMOKE, progress=False)
    words = run.words.assign(model=SMOKE.model_id)
    summary = {k: v for k, v in run.summary.items() if k not in ("model", "weights")}
    frame = words.assign(**{f"run_{k}": v for k, v in summary.items()})
    save_results(frame, "same_injection_smoke", {
        "what": "a 30-step fine-tuning on 20 occupations (determinism check of the pipeline)",
        "settings": asdict(SMOKE), "model": {"name": run.summary["model"],
                                             "weights": run.summary["weights"]},
        "torch_threads": _threads(), "seconds": round(time.perf_counter() - start, 1)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="only the smoke table")
    parser.add_argument("--tables", action="store_true", help="only rebuild the tables")
    args = parser.parse_args()
    if args.smoke:
        smoke()
        return
    if not args.tables:
        for settings, train, label in grid():
            one(settings, train=train, label=label)
    tables()
    smoke()


if __name__ == "__main__":
    main()
