"""Fan an audit out to a Dask distributed cluster, one model per task group.

Each model's tasks go to one worker as one unit
(:func:`biaslib.audit.work.run_model_tasks`), so a model is loaded once however many
tests and methods it runs; different models run on different workers at the same
time. The rows come back to the client, which stores them (so ``OUT`` needs to
exist only where the command runs, not on the workers). The workers need biaslib
and the models' packages installed, as the client does.

``scheduler="processes"`` starts a :class:`distributed.LocalCluster` of worker
processes on this machine (one thread each, as many as there are models, at most
the CPU count); any other string is a scheduler's address; a
:class:`distributed.Client` is used as it is.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack

from biaslib.audit.inputs import AuditInput
from biaslib.audit.plan import Task

__all__ = ["run_distributed"]


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
        cluster = stack.enter_context(LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True,
            dashboard_address=None, silence_logs=logging.WARNING))
        return stack.enter_context(Client(cluster))
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise TypeError(f"scheduler must be 'processes', an address or a Client, "
                        f"got {scheduler!r}")
    return stack.enter_context(Client(scheduler))


def run_distributed(
    groups: Mapping[AuditInput, Sequence[Task]], scheduler: object, *,
    words: Iterable[str] = (), device: str | None = None, progress: bool = True,
) -> Iterator[tuple[AuditInput, float, list]]:
    """Run each model's tasks on a worker; yield (model, load seconds, outputs) as they finish.

    Raises
    ------
    ImportError
        If ``distributed`` is not installed.
    TypeError
        If ``scheduler`` is neither ``"processes"``, an address nor a Client.
    """
    from distributed import as_completed
    from tqdm.auto import tqdm

    from biaslib.audit.work import run_model_tasks

    words = sorted(set(words))
    with ExitStack() as stack:
        client = _client(scheduler, len(groups), stack)
        futures = {client.submit(run_model_tasks, model, list(tasks), words=words,  # type: ignore[attr-defined]
                                 device=device, progress=False, pure=False): model
                   for model, tasks in groups.items()}
        bar = tqdm(total=len(futures), desc="audit (distributed)", unit="model",
                   disable=not progress)
        for future in as_completed(futures):
            load_seconds, done = future.result()
            bar.update()
            yield futures[future], load_seconds, done
        bar.close()
