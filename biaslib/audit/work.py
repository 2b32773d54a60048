"""The unit of work of an audit: one model loaded once, its tasks run one after another.

:func:`run_model_tasks` is what runs in this process (:func:`biaslib.audit.run.run_audit`
without a scheduler) and on a Dask worker (:mod:`biaslib.audit.distributed`) alike, so
that both give the same rows.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

import pandas as pd

from biaslib.audit.inputs import AuditInput
from biaslib.audit.parts import run_task
from biaslib.audit.plan import Task

__all__ = ["TaskOutput", "run_model_tasks"]

#: One computed task: its key, its rows and the seconds it took.
TaskOutput = tuple[str, pd.DataFrame, float]


def _corpus_contexts(options: Mapping[str, object], words: Iterable[str]
                     ) -> Callable[[str], Mapping] | None:
    """Role → word → contexts of a stimulus test from the corpus (only ``words`` are read)."""
    corpus = options.get("corpus")
    if corpus is None:
        return None
    from biaslib.stimuli.corpus import contexts_for_test, read_extract

    frame = read_extract(sorted(set(words)), path=str(corpus))
    return functools.partial(contexts_for_test, frame=frame, cap=options["corpus_cap"],
                             seed=options["seed"])


def run_model_tasks(model: AuditInput, tasks: Sequence[Task], *, words: Iterable[str] = (),
                    device: str | None = None, progress: bool = True,
                    save: Callable[[Task, pd.DataFrame, float], None] | None = None,
                    ) -> tuple[float, list[TaskOutput]]:
    """Load ``model`` once and run its ``tasks``; each is passed to ``save`` when done.

    The unit of work of an audit (the function a Dask worker runs). ``save`` is called
    as each task finishes, before the next starts: in-process it stores the task, on a
    worker it ships it to the client (:func:`biaslib.audit.distributed.run_and_ship`), so
    that an interrupted run keeps every finished task. Returns the seconds the model took
    to load and each task's key, rows and seconds.
    """
    from tqdm.auto import tqdm

    words = sorted(set(words))  # read twice: by a static file's reader and the corpus
    start = time.perf_counter()
    loaded = model.load(device=device, words=words, progress=progress)
    corpus = _corpus_contexts(tasks[0].options, words) if tasks else None
    load_seconds = time.perf_counter() - start
    done: list[TaskOutput] = []
    bar = tqdm(tasks, desc=f"audit {model.name}", unit="task", disable=not progress)
    for task in bar:
        bar.set_postfix_str(f"{task.method} {task.test}")
        start = time.perf_counter()
        frame = run_task(loaded, task, corpus)
        seconds = time.perf_counter() - start
        if save is not None:
            save(task, frame, seconds)
        done.append((task.key(), frame, seconds))
    return load_seconds, done
