"""The experiment runner: a grid of independent seeded tasks, run anywhere, resumable.

A *task* is a small picklable description (:class:`Task`: parameters plus a grid position) and a
*task function* ``fn(task) -> list[dict]`` turns it into tidy rows.  :func:`run_grid` runs the grid

- serially (``jobs=1``),
- on local cores through joblib (``jobs=N``), or
- on a Dask cluster (``scheduler="tcp://host:8786"``, through :class:`dask.distributed.Client`),

and the table is the same whichever way it ran: a task's seed depends only on the root seed and the
task's grid position, never on the order, the worker or the other tasks.

Resumable: every finished task is appended to a JSON-lines checkpoint ``<out>.checkpoint.jsonl`` and
flushed at once, so a killed run loses only the tasks in flight; a re-run with the same ``out`` skips
the tasks already in the checkpoint.  The final table (CSV or Parquet, by extension) is written
atomically from the checkpoint.

Seeds (explicit, never global): the task at grid position ``key = (k_1, ..., k_m)`` (non-negative integers)
draws from ``SeedSequence(root, spawn_key=key)``, which is exactly the stream reached by spawning
``SeedSequence(root).spawn(...)[k_1].spawn(...)[k_2]...`` — so adding, skipping or reordering tasks
never changes another task's seed.  :func:`grid` derives the key from the coordinate *values* (an
integer value is its own key part; a float ``v`` is ``round(v * 10**6)``), so ``n = 100`` draws the
same instances whether or not ``n = 10`` is in the grid.

Longer than 600 lines on purpose: the three back-ends (serial, joblib, Dask), the checkpoints
that make a grid resumable and the table writer share one task protocol and one failure path;
split, each part would have to re-explain the others.
"""
from __future__ import annotations

import enum
import itertools
import json
import math
import os
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._extras import install_hint, require
from .._files import atomic_write_text, atomic_write_with

__all__ = ["Task", "TaskError", "TaskInputError", "TaskFileNotFoundError", "grid", "run_grid",
           "checkpoint_path", "write_table"]

#: Table formats by file extension.
TABLE_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}

_SCALARS = (bool, int, float, str, type(None))


class TaskError(RuntimeError):
    """A task function raised; the message names the task.  Finished tasks stay in the checkpoint."""


class TaskInputError(TaskError, ValueError):
    """A task function raised :class:`ValueError` (bad input, not a bug).

    Also a :class:`ValueError`, so callers that report user errors in one line (the CLI) catch it;
    its message is the task's own message followed by ``(task ...)``, and ``task_id`` names the task.
    """

    def __init__(self, message: str, task_id: str = "") -> None:
        super().__init__(message)
        self.task_id = task_id

    def __reduce__(self):  # picklable across joblib / Dask workers
        return (type(self), (str(self), self.task_id))


class TaskFileNotFoundError(TaskError, FileNotFoundError):
    """A task function raised :class:`FileNotFoundError` (e.g. a data file is missing).

    Also a :class:`FileNotFoundError`, so the CLI prints it in one line; see :class:`TaskInputError`.
    """

    def __init__(self, message: str, task_id: str = "") -> None:
        super().__init__(message)
        self.task_id = task_id

    def __reduce__(self):
        return (type(self), (str(self), self.task_id))

    def __str__(self) -> str:  # OSError's str would show "(None, ...)" forms otherwise
        return self.args[0] if self.args else ""


class WorkerLostError(TaskError):
    """A Dask worker died while running a task (e.g. killed for exceeding its memory limit), or
    every worker stayed paused for memory with no task finishing.

    Not a bug of the task: the message names the task and what to do (more memory per worker,
    smaller tasks); the tasks finished before it stay in the checkpoint, so a re-run resumes.
    """


#: Exceptions of a task function that are the user's to fix, re-raised as these TaskError types.
_USER_ERRORS: tuple[tuple[type[Exception], type[TaskError]], ...] = (
    (FileNotFoundError, TaskFileNotFoundError), (ValueError, TaskInputError))


def _json_default(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"value {value!r} of type {type(value).__name__} cannot be stored in a table")


def _canonical(obj: Any) -> Any:
    """``obj`` as plain JSON values (numpy scalars and enums converted), by a JSON round trip.

    Floats survive exactly (JSON writes ``repr``); NaN and infinities are kept.
    """
    return json.loads(json.dumps(obj, default=_json_default))


def _key_part(axis: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        if value < 0:
            raise ValueError(f"grid axis {axis!r}: integer values must be >= 0 to derive a seed; got {value}")
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"grid axis {axis!r}: float values must be finite and >= 0 to derive a seed; "
                             f"got {value}")
        return int(round(float(value) * 10**6))
    if isinstance(value, str):
        return zlib.crc32(value.encode("utf-8"))
    raise TypeError(f"grid axis {axis!r}: values must be int, float or str; got {type(value).__name__} {value!r}")


@dataclass(frozen=True)
class Task:
    """One independent unit of work of a grid: a picklable description and its grid position.

    Parameters
    ----------
    params : mapping of str to JSON-serialisable values
        What the task function needs (e.g. ``{"n": 10, "alpha": 0.7, "instance": 3, "solvers":
        ["gss", "dpss"]}``).  Its canonical JSON text is the task's :attr:`id`, so two tasks of a grid
        must differ in ``params``.  Scalar entries are copied into every row the task returns.
    key : tuple of int
        Grid position, non-negative integers; the spawn key of the task's seed.
    root_seed : int
        The grid's root seed (``>= 0``).

    Attributes
    ----------
    id : str
        Canonical JSON of ``params`` (sorted keys): the task's identity in the checkpoint.
    seed : int
        The task's own seed in ``[0, 2**63)``, derived from ``SeedSequence(root_seed, spawn_key=key)``;
        ``numpy.random.default_rng(task.seed)`` reproduces the task's stream outside the runner.

    Raises
    ------
    TypeError
        ``params`` is not a mapping with string keys, or holds a value JSON cannot store.
    ValueError
        A negative key part or root seed.

    Examples
    --------
    >>> t = Task({"n": 10, "alpha": 0.7, "instance": 0}, key=(10, 700000, 0), root_seed=0)
    >>> t.seed == Task({"n": 10}, key=(10, 700000, 0), root_seed=0).seed
    True
    """

    params: Mapping[str, Any]
    key: tuple[int, ...]
    root_seed: int = 0
    id: str = field(init=False, repr=False, compare=False)
    seed: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.params, Mapping) or not all(isinstance(k, str) for k in self.params):
            raise TypeError(f"Task params must be a mapping with str keys; got {self.params!r}")
        key = tuple(self.key) if isinstance(self.key, (tuple, list)) else (self.key,)
        for i, k in enumerate(key):
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
                raise ValueError(f"Task key[{i}] must be a non-negative integer; got {k!r}")
        if isinstance(self.root_seed, bool) or not isinstance(self.root_seed, (int, np.integer)) \
                or self.root_seed < 0:
            raise ValueError(f"root_seed must be a non-negative integer; got {self.root_seed!r}")
        params = _canonical(dict(self.params))
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "key", tuple(int(k) for k in key))
        object.__setattr__(self, "root_seed", int(self.root_seed))
        object.__setattr__(self, "id", json.dumps(params, sort_keys=True, separators=(",", ":")))
        ss = np.random.SeedSequence(self.root_seed, spawn_key=self.key)
        object.__setattr__(self, "seed", int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1)))

    def seed_sequence(self) -> np.random.SeedSequence:
        """``SeedSequence(root_seed, spawn_key=key)``: spawn from it for sub-streams of the task."""
        return np.random.SeedSequence(self.root_seed, spawn_key=self.key)

    def rng(self) -> np.random.Generator:
        """A fresh generator seeded with :attr:`seed` (the same every call)."""
        return np.random.default_rng(self.seed)


def grid(seed: int, axes: Mapping[str, Sequence[Any]], fixed: Mapping[str, Any] | None = None) -> list[Task]:
    """The Cartesian product of ``axes`` as tasks, in row-major order (last axis fastest).

    Parameters
    ----------
    seed : int
        Root seed (``>= 0``).
    axes : mapping of str to sequence
        Axis name -> its values (int, float or str; ints and floats ``>= 0``).  The key part of a value
        is the value itself for an int, ``round(v * 10**6)`` for a float and its CRC-32 for a string,
        so a task's seed depends only on its coordinates, never on the other values of the grid.
    fixed : mapping of str, optional
        Parameters shared by every task (e.g. the solver list); they do not enter the seed.

    Returns
    -------
    list of Task

    Raises
    ------
    ValueError
        Negative or non-finite values, an empty axis, two values of an axis with the same key part
        (e.g. floats closer than 1e-6), or an axis name also in ``fixed``.

    Examples
    --------
    >>> tasks = grid(0, {"n": [4, 8], "instance": range(3)})
    >>> len(tasks), tasks[0].params
    (6, {'n': 4, 'instance': 0})
    >>> grid(0, {"n": [8], "instance": [2]})[0].seed == tasks[5].seed
    True
    """
    fixed = dict(fixed or {})
    names = list(axes)
    clash = sorted(set(names) & set(fixed))
    if clash:
        raise ValueError(f"grid: {clash[0]!r} is both an axis and a fixed parameter")
    keyed: list[list[tuple[Any, int]]] = []
    for name in names:
        values = list(axes[name])
        if not values:
            raise ValueError(f"grid axis {name!r} is empty")
        parts = [(v.item() if isinstance(v, np.generic) else v, _key_part(name, v)) for v in values]
        seen: dict[int, Any] = {}
        for v, k in parts:
            if k in seen:
                raise ValueError(f"grid axis {name!r}: values {seen[k]!r} and {v!r} map to the same seed key")
            seen[k] = v
        keyed.append(parts)
    tasks = []
    for combo in itertools.product(*keyed):
        params = {name: v for name, (v, _) in zip(names, combo)}
        params.update(fixed)
        tasks.append(Task(params, tuple(k for _, k in combo), seed))
    return tasks


def checkpoint_path(out: str | os.PathLike) -> Path:
    """Where :func:`run_grid` keeps the checkpoint of ``out``: ``<out>.checkpoint.jsonl``."""
    out = Path(out)
    return out.with_name(out.name + ".checkpoint.jsonl")


def _table_format(out: Path) -> str:
    fmt = TABLE_FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise ValueError(f"output {str(out)!r}: unknown table format {out.suffix!r}; "
                         f"use one of {', '.join(TABLE_FORMATS)}")
    return fmt


def _check_writer(fmt: str) -> None:
    """Fail before any work when the table could not be written at the end (Parquet needs pyarrow)."""
    if fmt == "parquet":
        try:
            pd.io.parquet.get_engine("auto")
        except ImportError as exc:
            raise ValueError(f"writing Parquet tables needs pyarrow (or fastparquet) installed "
                             f"({install_hint('experiments')}); or use a .csv output instead "
                             f"({str(exc).splitlines()[0]})") from None


def write_table(df: pd.DataFrame, out: str | os.PathLike) -> Path:
    """Write ``df`` atomically as CSV or Parquet, chosen by ``out``'s extension.

    Parameters
    ----------
    df : pandas.DataFrame
    out : path
        ``.csv``, ``.parquet`` or ``.pq``; its folder is created when missing.

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        Unknown extension; Parquet without pyarrow (or fastparquet).
    """
    out = Path(out)
    fmt = _table_format(out)
    _check_writer(fmt)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        atomic_write_text(out, df.to_csv(index=False))
        return out
    atomic_write_with(out, lambda tmp: df.to_parquet(tmp, index=False))
    return out


def _call(fn: Callable[[Task], Iterable[Mapping[str, Any]]], task: Task) -> tuple[str, int, list[dict]]:
    """Run one task where it lands (any process) and return plain-JSON rows."""
    try:
        rows = fn(task)
    except TaskError:
        raise
    except Exception as exc:
        for kind, wrapper in _USER_ERRORS:
            if isinstance(exc, kind):
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise wrapper(f"{first} (task {task.id}, seed {task.seed})", task.id) from exc
        raise TaskError(f"task {task.id} (seed {task.seed}) failed: {type(exc).__name__}: {exc}") from exc
    if isinstance(rows, Mapping) or not isinstance(rows, Iterable):
        raise TaskError(f"task {task.id}: the task function must return a list of row dicts; "
                        f"got {type(rows).__name__}")
    out = []
    base = {k: v for k, v in task.params.items() if isinstance(v, _SCALARS)}
    base["seed"] = task.seed
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TaskError(f"task {task.id}: row {i} must be a dict; got {type(row).__name__}")
        merged = dict(base)
        merged.update(row)
        out.append(merged)
    try:
        return task.id, task.seed, _canonical(out)
    except TypeError as exc:
        raise TaskError(f"task {task.id}: {exc}") from None


def _load_checkpoint(path: Path) -> dict[tuple[str, int], list[dict]]:
    """Finished tasks in a checkpoint; a torn last line (a run killed mid-write) is dropped."""
    done: dict[tuple[str, int], list[dict]] = {}
    if not path.exists():
        return done
    good, bad = [], 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
                done[(rec["task"], int(rec["seed"]))] = rec["rows"]
                good.append(line if line.endswith("\n") else line + "\n")
            except (ValueError, KeyError, TypeError):
                bad += 1
    if bad:  # rewrite without the torn line(s) so appends start on a clean line
        atomic_write_text(path, "".join(good))
    return done


def _progress_bar(progress: bool | None, total: int, initial: int, desc: str | None):
    from tqdm.auto import tqdm

    enabled = sys.stderr.isatty() if progress is None else bool(progress)
    return tqdm(total=total, initial=initial, desc=desc, disable=not enabled, file=sys.stderr,
                unit="task", dynamic_ncols=True)


def _execute(fn: Callable, pending: list[Task], jobs: int, scheduler: Any) -> Iterator[tuple[str, int, list]]:
    """Yield ``(task id, seed, rows)`` as tasks finish, on the chosen backend."""
    if not pending:
        return
    if scheduler is not None:
        from ._dask import execute_dask  # the Dask backend and its failure modes

        yield from execute_dask(fn, pending, scheduler)
    elif jobs == 1:
        for task in pending:
            yield _call(fn, task)
    else:
        import shutil
        import tempfile

        from joblib import Parallel, delayed

        # A worker ended mid-task (the run stopped by SIGTERM or Ctrl-C) runs no clean-up of its
        # own: its temporary files (PuLP's model files for CBC) go to a folder of this run, which
        # this process removes however the run ends, once the workers are stopped.
        scratch = tempfile.mkdtemp(prefix="subsel-run-")
        finished = False
        try:
            parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
            yield from parallel(delayed(_call_in)(scratch, fn, task) for task in pending)
            finished = True
        finally:
            if not finished:
                _stop_workers()  # none of them writes into the folder any more
            shutil.rmtree(scratch, ignore_errors=True)


def _call_in(folder: str, fn: Callable[[Task], Iterable[Mapping[str, Any]]], task: Task) -> tuple[str, int, list[dict]]:
    """:func:`_call` with the worker's temporary files in ``folder`` (``tempfile.tempdir``)."""
    import tempfile

    before = tempfile.tempdir
    tempfile.tempdir = folder
    try:
        return _call(fn, task)
    finally:
        tempfile.tempdir = before


def _stop_workers() -> None:
    """End joblib's worker processes (and what they started), if this process has a pool."""
    module = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(module, "_executor", None) if module is not None else None
    if executor is not None:
        try:
            executor.shutdown(wait=True, kill_workers=True)
        except Exception:  # noqa: BLE001 - a pool already broken: nothing is left to stop
            pass


def _check_backend(jobs: Any, scheduler: Any) -> int:
    require("tqdm", extra="experiments", feature="the experiment runner (its progress bar)")
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or (jobs < 1 and jobs != -1):
        raise ValueError(f"jobs must be a positive integer or -1 (all cores); got {jobs!r}")
    if scheduler is not None:
        require("dask", "distributed", extra="dask", feature="running tasks on a Dask scheduler")
        if isinstance(scheduler, str):
            if not scheduler.strip():
                raise ValueError("scheduler address must not be empty (e.g. 'tcp://host:8786')")
        else:
            from dask.distributed import Client

            if not isinstance(scheduler, Client):
                raise TypeError(f"scheduler must be an address string or a dask.distributed.Client; "
                                f"got {type(scheduler).__name__}")
    elif jobs != 1:
        require("joblib", extra="experiments", feature="running tasks on local processes (jobs != 1)")
    return int(jobs)


def _duration(seconds: float) -> str:
    """``"42 s"``, ``"4 min 07 s"``, ``"2 h 05 min"``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class _Heartbeat:
    """Log ``"LABEL: K of M tasks done, T elapsed, about E remaining"`` every ``every`` seconds.

    A daemon thread, so a line comes even while one long task runs; the estimate extrapolates the
    tasks finished in this run (resumed tasks took no time here).
    """

    def __init__(self, log: Callable[[str], None], every: float, label: str, total: int, initial: int) -> None:
        import threading

        self.log, self.every, self.label, self.total, self.initial = log, float(every), label, total, initial
        self.done = initial
        self.start = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="subsel-progress", daemon=True)
        self._thread.start()

    def line(self) -> str:
        elapsed = time.perf_counter() - self.start
        new = self.done - self.initial
        if new > 0:
            eta = f"about {_duration(elapsed / new * (self.total - self.done))} remaining"
        else:
            eta = "remaining time not known yet"
        return f"{self.label}: {self.done} of {self.total} tasks done, {_duration(elapsed)} elapsed, {eta}"

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.log(self.line())

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def run_grid(tasks: Sequence[Task], fn: Callable[[Task], Iterable[Mapping[str, Any]]],
             out: str | os.PathLike | None = None, *, jobs: int = 1, scheduler: Any = None,
             progress: bool | None = None, resume: bool = True, desc: str | None = None,
             log: Callable[[str], None] | None = None, log_every: float | None = None,
             keep_checkpoint: bool = True) -> pd.DataFrame:
    """Run every task of a grid and return (and write) the tidy table of their rows.

    Parameters
    ----------
    tasks : sequence of Task
        The grid, e.g. from :func:`grid`; ids must be unique.  The table follows this order.
    fn : callable ``fn(task) -> list of dict``
        The task function: a module-level (picklable) function that returns tidy rows.  Each row gets
        the task's scalar ``params`` and its ``seed`` in front (the row's own keys win).
    out : path, optional
        ``.csv``, ``.parquet`` or ``.pq``.  With ``out`` the run is checkpointed to
        :func:`checkpoint_path` ``(out)`` (one flushed JSON line per finished task) and the final
        table is written atomically.  Without it nothing is written and nothing resumes.
    jobs : int, default 1
        1 runs serially in this process; ``N > 1`` (or -1, all cores) runs on local processes through
        joblib.  Ignored when ``scheduler`` is given.
    scheduler : str or dask.distributed.Client, optional
        A Dask scheduler address (``"tcp://host:8786"``) or a client: tasks run on that cluster (its
        workers need ``subsel`` and the module of ``fn`` importable).
    progress : bool, optional
        Show a tqdm bar on stderr; ``None`` (default) shows it only when stderr is a terminal.
    resume : bool, default True
        Skip the tasks already in the checkpoint (same id and seed).  ``False`` starts afresh.
    desc : str, optional
        Label of the progress bar and of the ``log`` lines.
    log : callable ``log(line)``, optional
        Where to say what the run does: ``"DESC: resumed N of M tasks from CHECKPOINT"`` when
        finished tasks are reused, and the ``log_every`` progress lines.  None: say nothing.
    log_every : float, optional
        With ``log``: seconds between progress lines ``"DESC: K of M tasks done, T elapsed, about E
        remaining"`` (for logs, where a progress bar does not show).  None: no such lines.
    keep_checkpoint : bool, default True
        False removes the checkpoint once the table is written (a finished run needs it no more;
        a run that fails keeps it, so a re-run continues).

    Returns
    -------
    pandas.DataFrame
        One row per row returned by the task function, tasks in grid order.  Apart from measured
        times, identical whichever backend ran it and however often it was resumed.

    Raises
    ------
    TypeError
        A task is not a :class:`Task`; ``fn`` is not callable; a row is not a dict.
    ValueError
        Duplicate task ids; bad ``jobs``; unknown table extension or Parquet without pyarrow
        (checked before any task runs); unreachable scheduler.
    TaskError
        A task function raised: tasks finished before it are kept in the checkpoint, so a re-run
        continues from there.  A run that finished no task leaves no checkpoint file.
    TaskInputError, TaskFileNotFoundError
        The task function raised :class:`ValueError` / :class:`FileNotFoundError` (a user error such
        as a missing data file): a :class:`TaskError` that is also that built-in type, with the
        task's message first, so a command line can print it in one line.

    Examples
    --------
    >>> def square(task):
    ...     return [{"y": task.params["x"] ** 2}]
    >>> run_grid(grid(0, {"x": [1, 2, 3]}), square)["y"].tolist()
    [1, 4, 9]
    """
    tasks = list(tasks)
    for i, t in enumerate(tasks):
        if not isinstance(t, Task):
            raise TypeError(f"tasks[{i}] must be a Task; got {type(t).__name__}")
    if not callable(fn):
        raise TypeError(f"fn must be callable; got {type(fn).__name__}")
    jobs = _check_backend(jobs, scheduler)
    ids: dict[str, int] = {}
    for i, t in enumerate(tasks):
        if t.id in ids:
            raise ValueError(f"tasks[{i}] and tasks[{ids[t.id]}] have the same params {t.id}")
        ids[t.id] = i

    ckpt = None
    done: dict[tuple[str, int], list[dict]] = {}
    if out is not None:
        out = Path(out)
        _check_writer(_table_format(out))  # before any task: a run that cannot end leaves nothing
        out.parent.mkdir(parents=True, exist_ok=True)
        ckpt = checkpoint_path(out)
        if resume:
            done = _load_checkpoint(ckpt)
        else:
            ckpt.unlink(missing_ok=True)
    wanted = {(t.id, t.seed) for t in tasks}
    done = {k: v for k, v in done.items() if k in wanted}
    pending = [t for t in tasks if (t.id, t.seed) not in done]

    if log_every is not None and not (isinstance(log_every, (int, float)) and log_every > 0):
        raise ValueError(f"log_every must be a positive number of seconds; got {log_every!r}")
    label = desc or "run"
    if log is not None and done:
        log(f"{label}: resumed {len(done)} of {len(tasks)} tasks from {ckpt}")

    bar = _progress_bar(progress, len(tasks), len(tasks) - len(pending), desc)
    beat = (_Heartbeat(log, log_every, label, len(tasks), len(tasks) - len(pending))
            if log is not None and log_every is not None and pending else None)
    fh = None  # opened at the first finished task: a run that finishes none leaves no file behind
    results = _execute(fn, pending, jobs, scheduler)
    try:
        for task_id, seed, rows in results:
            done[(task_id, seed)] = rows
            if ckpt is not None:
                if fh is None:
                    fh = open(ckpt, "a", encoding="utf-8")
                fh.write(json.dumps({"task": task_id, "seed": seed, "rows": rows}) + "\n")
                fh.flush()
            bar.update(1)
            if beat is not None:
                beat.done += 1
    finally:
        results.close()  # a backend's clean-up runs now, not when the interrupted frame is freed
        if beat is not None:
            beat.close()
        if fh is not None:
            fh.close()
        bar.close()

    rows_all = [row for t in tasks for row in done[(t.id, t.seed)]]
    df = pd.DataFrame.from_records(rows_all) if rows_all else pd.DataFrame()
    if out is not None:
        write_table(df, out)
        if not keep_checkpoint and ckpt is not None:
            ckpt.unlink(missing_ok=True)
    return df
