"""Running a task grid on a Dask cluster, and saying so in one line when the cluster cannot finish it.

A Dask worker manages its memory against its ``--memory-limit`` (Dask documentation, "Worker
memory management"): above 80% of the limit it *pauses* (runs no new task until its memory falls),
and above 95% its nanny kills and restarts it.  Two ways a run then stops making progress:

- **killed**: the nanny restarts the worker under a task; after the scheduler's allowed failures
  (3 by default) the task fails with ``KilledWorker``;
- **paused for good**: the memory a worker holds is its own (the libraries the first task
  imported, about 70 MB for subsel and its solvers, plus what the allocator keeps), so it never
  falls, the worker never resumes and the run would wait forever.

Both end the run with a :class:`~subsel.experiments.runner.WorkerLostError` naming the task or the
workers and what to do (more memory per worker, smaller tasks); the tasks finished before stay in
the checkpoint, so a rerun resumes from them.  A scheduler with no worker is waited for (workers of a
batch queue may take long to start), and after :data:`NO_WORKER_WARN_S` seconds a warning says so once.
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .runner import Task, WorkerLostError, _call

#: Seconds without a finished task, every worker paused, before the run is given up (a pause
#: that memory spilled to disk ends is shorter).
PAUSED_GIVE_UP_S = 60.0
#: Seconds with no worker connected before the run says so (once; it goes on waiting: workers of a
#: batch queue may take long to start).
NO_WORKER_WARN_S = 30.0
#: Seconds between two looks at the workers' state while no task finishes.
_LOOK_EVERY_S = 5.0
#: Seconds between two polls of the finished tasks.
_POLL_S = 0.05

_ADVICE = ("give each worker more memory (dask worker --memory-limit) or make the tasks smaller; the "
           "finished tasks are kept in the checkpoint and a rerun resumes from them")


def paused_for_good(workers: Mapping[str, Mapping[str, Any]], paused_since: float | None,
                    now: float) -> tuple[float | None, str | None]:
    """Decide whether every worker has been paused for too long.

    Parameters
    ----------
    workers : mapping
        The scheduler's worker records (``Client.scheduler_info()["workers"]``): address to a
        mapping with ``status``, ``memory_limit`` (bytes) and ``metrics["memory"]`` (bytes).
    paused_since : float or None
        When (seconds, a monotonic clock) every worker was first seen paused with no task finished
        since, or ``None``.
    now : float
        The current time on the same clock.

    Returns
    -------
    paused_since : float or None
        The updated start of the pause (``None`` when some worker runs, or no worker is connected).
    message : str or None
        One line for the user when every worker has been paused for at least
        :data:`PAUSED_GIVE_UP_S` seconds, else ``None``.
    """
    if not workers or any(w.get("status") != "paused" for w in workers.values()):
        return None, None
    since = now if paused_since is None else paused_since
    if now - since < PAUSED_GIVE_UP_S:
        return since, None
    addr, w = next(iter(sorted(workers.items())))
    held = (w.get("metrics") or {}).get("memory")
    limit = w.get("memory_limit")
    usage = (f" ({addr} holds {held / 2 ** 20:.0f} MiB of its {limit / 2 ** 20:.0f} MiB limit)"
             if isinstance(held, (int, float)) and isinstance(limit, (int, float)) and limit > 0 else "")
    count = "the one Dask worker was" if len(workers) == 1 else f"all {len(workers)} Dask workers were"
    return since, (f"no task finished for {now - since:.0f} s while {count} paused for memory{usage}: Dask "
                   "pauses a worker above 80% of its memory limit until the memory falls, and the memory "
                   f"a worker holds after importing subsel's libraries does not fall; {_ADVICE}")


def no_worker_notice(workers: Mapping[str, Any], alone_since: float | None, now: float, scheduler: str
                     ) -> tuple[float | None, str | None]:
    """Decide whether to say that no worker has been connected to the scheduler for a while.

    Parameters
    ----------
    workers : mapping
        The scheduler's worker records (``Client.scheduler_info()["workers"]``), address to record.
    alone_since : float or None
        When (seconds, a monotonic clock) the scheduler was first seen with no worker, or ``None``.
    now : float
        The current time on the same clock.
    scheduler : str
        The scheduler's address, for the message.

    Returns
    -------
    alone_since : float or None
        The updated start (``None`` when a worker is connected).
    message : str or None
        One line when no worker has been connected for :data:`NO_WORKER_WARN_S` seconds, else ``None``.
    """
    if workers:
        return None, None
    since = now if alone_since is None else alone_since
    if now - since < NO_WORKER_WARN_S:
        return since, None
    return since, (f"no Dask worker has connected to the scheduler {scheduler} for {now - since:.0f} s; the "
                   f"tasks wait for one (start it with 'dask worker {scheduler}', or stop with Ctrl-C: the "
                   "finished tasks are kept in the checkpoint)")


def execute_dask(fn: Callable, pending: list[Task], scheduler: Any) -> Iterator[tuple[str, int, list]]:
    """Yield ``(task id, seed, rows)`` as the tasks finish on a Dask cluster.

    Parameters
    ----------
    fn : callable
        The task function, ``fn(task) -> rows``.
    pending : list of Task
        The tasks to run.
    scheduler : str or dask.distributed.Client
        A scheduler address (a client is opened and closed here) or an open client.

    Raises
    ------
    ValueError
        The scheduler cannot be reached.
    WorkerLostError
        A task's worker died as often as the scheduler allows (``KilledWorker``), or every worker
        stayed paused for memory for :data:`PAUSED_GIVE_UP_S` seconds with no task finishing.
    """
    from dask.distributed import Client, as_completed
    from distributed import KilledWorker

    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler) if own else scheduler
    except OSError as exc:
        raise ValueError(f"cannot connect to the Dask scheduler {scheduler!r}: {exc}") from None
    futures = []
    try:
        futures = client.map(_call, [fn] * len(pending), pending, pure=False)
        task_of = {fut.key: task for fut, task in zip(futures, pending)}
        done = as_completed(futures)
        paused_since: float | None = None
        alone_since: float | None = None
        told = False
        last_look = time.monotonic()
        while not done.is_empty():
            batch = done.next_batch(block=False)
            if not batch:
                now = time.monotonic()
                if now - last_look >= _LOOK_EVERY_S:
                    last_look = now
                    workers = client.scheduler_info(n_workers=-1).get("workers", {})
                    paused_since, message = paused_for_good(workers, paused_since, now)
                    if message is not None:
                        raise WorkerLostError(message)
                    alone_since, notice = no_worker_notice(workers, alone_since, now,
                                                           str(getattr(client.scheduler, "address", scheduler)))
                    if notice is not None and not told:
                        told = True
                        warnings.warn(notice, RuntimeWarning, stacklevel=2)
                time.sleep(_POLL_S)
                continue
            paused_since = None
            for fut in batch:
                try:
                    result = fut.result()
                except KilledWorker as exc:
                    task = task_of.get(fut.key)
                    what = f"task {task.id} (seed {task.seed})" if task is not None else f"task {fut.key}"
                    raise WorkerLostError(
                        f"{what} was lost: the Dask worker running it died (killed for exceeding its "
                        f"memory limit?) as often as the scheduler allows ({type(exc).__name__}); "
                        f"{_ADVICE}") from None
                yield result
    finally:
        if futures:
            client.cancel(futures)
        if own:
            client.close()
