"""Fan an audit out to a Dask distributed cluster, one model per task group.

Each model's tasks go to one worker as one unit
(:func:`biaslib.audit.work.run_model_tasks`), so a model is loaded once however many
tests and methods it runs; different models run on different workers at the same
time. The workers need biaslib and the models' packages installed, as the client does.

Each finished task is shipped back to the client as soon as it finishes, through a
:class:`distributed.Queue` that the client drains while the groups run, and the client
stores it at once (``save``): an audit killed while a worker is half-way through a
model's group keeps every task finished so far, as an in-process audit does. The
client, not the worker, writes the store, so ``OUT`` needs to exist only where the
command runs (a remote scheduler's workers may not see it).

``scheduler="processes"`` starts a :class:`distributed.LocalCluster` of worker
processes on this machine (one thread each, as many as there are models, at most
the CPU count); any other string is a scheduler's address; a
:class:`distributed.Client` is used as it is.
"""

from __future__ import annotations

import logging
import os
import pickle
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack

import pandas as pd

from biaslib.audit.inputs import AuditInput
from biaslib.audit.plan import Task

__all__ = ["run_distributed"]

#: Seconds between two looks at the queue of finished tasks and at the groups' futures.
_POLL_SECONDS = 0.1

#: What the client is handed for each finished task: its key, its rows, its seconds.
SaveTask = Callable[[str, pd.DataFrame, float], None]


def _client(scheduler: object, n_models: int, stack: ExitStack) -> object:
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:
        raise ImportError("a scheduler needs Dask's distributed scheduler: "
                          "pip install 'biaslib[distributed]'") from err
    if isinstance(scheduler, Client):
        return scheduler
    if scheduler == "processes":
        workers = max(1, min(n_models, os.cpu_count() or 1))
        try:
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.WARNING))
        except RuntimeError as err:  # "Nanny failed to start": say what to do instead
            raise OSError(f"could not start {workers} local worker process(es) for the "
                          f"audit ({err}); run without --scheduler, or start a Dask "
                          "cluster and pass its address") from err
        return stack.enter_context(Client(cluster))
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise TypeError(f"scheduler must be 'processes', an address or a Client, "
                        f"got {scheduler!r}")
    return stack.enter_context(Client(scheduler))


def run_and_ship(model: AuditInput, tasks: Sequence[Task], queue: str, *,
                 words: Iterable[str] = (), device: str | None = None,
                 ) -> tuple[float, list[tuple[str, pd.DataFrame, float]]]:
    """On a worker: run one model's tasks, putting each on the queue ``queue`` as it finishes.

    A Dask queue holds msgpack data, so each task travels pickled (its key, rows and
    seconds), as a future's result would. :meth:`distributed.Queue.put` returns once the
    scheduler holds the task, so every task is on the queue before the group's future
    finishes. The outputs are returned as well, so that a task the client did not
    receive from the queue is still stored.
    """
    from distributed import Queue

    from biaslib.audit.work import run_model_tasks

    shipping = Queue(queue)

    def ship(task: Task, frame: pd.DataFrame, seconds: float) -> None:
        shipping.put(pickle.dumps((task.key(), frame, seconds), protocol=5))

    try:
        return run_model_tasks(model, tasks, words=words, device=device, progress=False,
                               save=ship)
    finally:
        shipping.close()


def run_distributed(
    groups: Mapping[AuditInput, Sequence[Task]], scheduler: object, *,
    words: Iterable[str] = (), device: str | None = None, progress: bool = True,
    save: SaveTask | None = None,
) -> Iterator[tuple[AuditInput, float, list]]:
    """Run each model's tasks on a worker; yield (model, load seconds, outputs) as they finish.

    Parameters
    ----------
    groups
        Each model's tasks (one worker runs one model's group).
    scheduler
        ``"processes"``, a scheduler's address or a :class:`distributed.Client`.
    words, device
        As :func:`~biaslib.audit.work.run_model_tasks`.
    progress
        A progress bar over the models.
    save
        Called here, in the client, once for each finished task (key, rows, seconds) as
        soon as it arrives, while the groups still run; a group's tasks all reach
        ``save`` before the group is yielded.

    Raises
    ------
    ImportError
        If ``distributed`` is not installed.
    TypeError
        If ``scheduler`` is neither ``"processes"``, an address nor a Client.
    """
    from distributed import Queue
    from tqdm.auto import tqdm

    words = sorted(set(words))
    saved: set[str] = set()

    def store(key: str, frame: pd.DataFrame, seconds: float) -> None:
        if key not in saved:
            saved.add(key)
            if save is not None:
                save(key, frame, seconds)

    with ExitStack() as stack:
        client = _client(scheduler, len(groups), stack)
        queue = Queue(f"biaslib-audit-{uuid.uuid4().hex}", client=client)
        stack.callback(_close, queue)

        def drain() -> None:
            for blob in queue.get(batch=True):
                store(*pickle.loads(blob))

        pending = {client.submit(run_and_ship, model, list(tasks), queue.name,  # type: ignore[attr-defined]
                                 words=words, device=device, pure=False): model
                   for model, tasks in groups.items()}
        bar = tqdm(total=len(pending), desc="audit (distributed)", unit="model",
                   disable=not progress)
        while pending:
            drain()
            finished = [future for future in pending if future.done()]
            if not finished:
                time.sleep(_POLL_SECONDS)
                continue
            drain()  # a failed group's finished tasks are stored before its error is raised
            for future in finished:
                model = pending.pop(future)
                load_seconds, done = future.result()
                for key, frame, seconds in done:
                    store(key, frame, seconds)
                bar.update()
                yield model, load_seconds, done
        bar.close()


def _close(queue: object) -> None:
    try:
        queue.close()  # type: ignore[attr-defined]
    except (RuntimeError, OSError, ValueError):  # the client is gone: nothing to release
        pass
