"""Batches for the one Solver interface: the answers of ``m`` problems over the same agents at once.

:class:`RawBatch` is what a backend's ``_solve_batch`` returns, :class:`SolutionBatch` what
:meth:`Solver.solve_batch <subsel.solvers.base.Solver.solve_batch>` hands back after the batch half
of the answer check (every row checked with :meth:`subsel.models.ProblemBatch.evaluate`, bounds raised
to true upper bounds); :meth:`Solver.solve_batch` and its default ``_solve_batch`` (the rows one by
one) run the functions here.  The batched oracle of the bandit layer (Deva, Abhishek, Gujar, AAMAS
2021, Section 4, Algorithm 2).  A module of its own so that a one-problem solve (``subsel solve``)
does not load it.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, overload

import numpy as np

from ..models import ProblemBatch, rounded_up
from .base import (
    RawResult,
    Solution,
    Solver,
    SolverError,
    Status,
    _demand_exceeds_supply,
    _infeasible,
    _whole_units,
)

if TYPE_CHECKING:
    from ..models import BatchEvaluation


class RawBatch(NamedTuple):
    """What a backend's ``_solve_batch`` returns before checking: the answers of ``m`` rows.

    Attributes
    ----------
    x : ndarray, shape (m, n)
        Units per agent and row (rows without a selection are ignored).
    status : Status or sequence of Status (length m)
        One status for every row, or one per row.
    bound : float, None, "objective" or sequence of (float or None), optional
        Proven upper bounds, one for all rows or one per row; ``"objective"`` says that each
        ``optimal`` row's bound is its objective and the other rows have none.  :meth:`Solver.solve_batch`
        rounds each up (see :func:`bound_at_least`).
    found : ndarray of bool, shape (m,), optional
        Which rows hold a selection; default every row whose status is not infeasible or error.
    backend_time_s : float or None, optional
        Seconds spent in the backend's own solve over all rows (see :class:`RawResult`); ``None``:
        the whole ``_solve_batch`` call.
    """

    x: np.ndarray
    status: Status | Sequence[Status]
    bound: float | str | None | Sequence[float | None] = None
    found: np.ndarray | None = None
    backend_time_s: float | None = None


class SolutionBatch(Sequence[Solution]):
    """The answers of :meth:`Solver.solve_batch`: one :class:`Solution` per row of a batch.

    A read-only sequence (``answers[j]``, ``len(answers)``, iteration) whose ``j``-th element is
    the :class:`Solution` of row ``j``, built when first asked for; the answers are also available
    as arrays, which is what vectorised callers (the bandit simulation) read.

    Attributes
    ----------
    x : ndarray of int64, shape (m, n)
        Units taken per agent and row (read-only); all zeros in rows without a selection.
    status : tuple of Status, length m
    is_feasible : ndarray of bool, shape (m,)
        ``answers[j].is_feasible`` for every row.
    objective : ndarray of float, shape (m,)
        Utility of each row's selection; NaN in rows without one.
    avg_quality : ndarray of float, shape (m,)
        Average quality of each row's selected units; NaN where nothing is selected.
    bound : tuple of (float or None), length m
    wall_time_s : float
        Wall-clock seconds of the whole ``solve_batch`` call (every row's Solution carries it).
    backend_time_s : float
        Seconds of those spent in the backend's own solve (every row's Solution carries it; see
        :attr:`Solution.backend_time_s`); ``wall_time_s - backend_time_s`` is subsel's overhead.
    solver : str
        Registry name of the backend.
    """

    def __init__(self, x: np.ndarray, status: Status | tuple[Status, ...], found: np.ndarray,
                 evaluation: BatchEvaluation, wall_time_s: float, solver: str,
                 bound: float | str | None | Sequence[float | None] | np.ndarray = None,
                 backend_time_s: float | None = None):
        self.x = x
        self._status = status
        self.is_feasible = found
        self._evaluation = evaluation
        self.wall_time_s = float(wall_time_s)
        backend = self.wall_time_s if backend_time_s is None else float(backend_time_s)
        self.backend_time_s = min(max(backend, 0.0), self.wall_time_s)
        self.solver = solver
        self._bound = bound
        self._cache: dict[int, Solution] = {}

    def __len__(self) -> int:
        return int(self.x.shape[0])

    @property
    def status(self) -> tuple[Status, ...]:
        s = self._status
        return (s,) * len(self) if isinstance(s, Status) else s

    @property
    def bound(self) -> tuple[float | None, ...]:
        b = self._bound
        if isinstance(b, str):  # "objective": an optimal row's bound is its objective
            utility = self._evaluation.utility
            return tuple(float(utility[j]) if s is Status.OPTIMAL else None
                         for j, s in enumerate(self.status))
        if b is None or isinstance(b, (int, float)):
            return (None if b is None else float(b),) * len(self)
        return tuple(None if v is None or v != v else float(v) for v in b)

    @property
    def objective(self) -> np.ndarray:
        return np.where(self.is_feasible, self._evaluation.utility + 0.0, np.nan)  # no -0.0

    @property
    def avg_quality(self) -> np.ndarray:
        return np.where(self.is_feasible, self._evaluation.avg_quality, np.nan)

    @overload
    def __getitem__(self, j: int) -> Solution: ...

    @overload
    def __getitem__(self, j: slice) -> list[Solution]: ...

    def __getitem__(self, j: int | slice) -> Solution | list[Solution]:
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(len(self)))]
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)):
            raise TypeError(f"batch answers are indexed by row number; got {j!r}")
        m = len(self)
        if not -m <= j < m:
            raise IndexError(f"row {j} is out of range for a batch of {m} answers")
        j = int(j) % m
        sol = self._cache.get(j)
        if sol is None:
            ok = bool(self.is_feasible[j])
            objective = float(self._evaluation.utility[j]) + 0.0 if ok else float("nan")
            avg = float(self._evaluation.avg_quality[j]) if ok else float("nan")
            status = self._status if isinstance(self._status, Status) else self._status[j]
            if isinstance(self._bound, str):
                bound = objective if status is Status.OPTIMAL else None
            elif self._bound is None or isinstance(self._bound, (int, float)):
                bound = None if self._bound is None else float(self._bound)
            else:
                bj = self._bound[j]
                bound = None if bj is None or bj != bj else float(bj)
            sol = Solution(self.x[j], objective, avg, status, self.wall_time_s, self.solver, bound,
                           self.backend_time_s)
            self._cache[j] = sol
        return sol

    def __repr__(self) -> str:
        return (f"SolutionBatch(solver={self.solver!r}, m={len(self)}, "
                f"feasible={int(np.count_nonzero(self.is_feasible))}, wall_time_s={self.wall_time_s:.3g})")


def solve_batch(solver: Solver, batch: ProblemBatch) -> SolutionBatch:
    """:meth:`Solver.solve_batch <subsel.solvers.base.Solver.solve_batch>` (which see): the backend's
    ``_solve_batch`` on every row, then the answer check of every row at once."""
    if not isinstance(batch, ProblemBatch):
        raise TypeError(f"batch must be a ProblemBatch; got {type(batch).__name__}")
    solver.check_supported(batch)
    start = time.perf_counter()
    # The one place a batch's modes decide the path: rows with the planner's fields or constraint
    # objects are solved one by one, as the one problem is (the vectorised kernels know neither).
    raw = solve_rows(solver, batch) if batch._rowwise else solver._solve_batch(batch)
    if raw.backend_time_s is None:
        raw = raw._replace(backend_time_s=time.perf_counter() - start)
    return finish_batch(solver, batch, raw, start)



def solve_rows(solver: Solver, batch: ProblemBatch) -> RawBatch:
    """The default ``_solve_batch``: unchecked answers of the backend's ``_solve``, row by row."""
    m, n = batch.shape
    x = np.zeros((m, n), dtype=float)
    status: list[Status] = []
    bound: list[float | None] = []
    found = np.zeros(m, dtype=bool)
    backend = 0.0
    for j in range(m):
        problem = batch.row(j)
        t0 = time.perf_counter()
        raw = (RawResult(None, Status.INFEASIBLE, None, 0.0) if _demand_exceeds_supply(problem)
               else solver._dispatch(problem))
        backend += time.perf_counter() - t0 if raw.backend_time_s is None else raw.backend_time_s
        status.append(raw.status)
        bound.append(raw.bound)
        if raw.x is not None and raw.status not in (Status.INFEASIBLE, Status.ERROR):
            xj = np.asarray(raw.x, dtype=float)
            if xj.shape != (n,):
                raise SolverError(f"{solver.name}: returned x of shape {xj.shape} for batch row {j}, "
                                  f"expected ({n},)")
            x[j] = xj
            found[j] = True
    return RawBatch(x, status, bound, found, backend)



def finish_batch(solver: Solver, batch: ProblemBatch, raw: RawBatch, start: float) -> SolutionBatch:
    """Check ``raw`` row by row (:func:`~subsel.solvers.base._whole_units`, then the model's batch
    ``evaluate``) and wrap it; the wall time runs from ``start`` to the end of the check.

    Raises
    ------
    SolverError
        A status without a selection where one is due, a fractional or infeasible answer (naming
        the row).
    """
    m, n = batch.shape
    status: Status | tuple[Status, ...] = raw.status if isinstance(raw.status, Status) else tuple(raw.status)
    uniform = isinstance(status, Status)
    if not isinstance(status, Status):
        if len(status) != m:
            raise SolverError(f"{solver.name}: returned {len(status)} statuses for a batch of {m} rows")
    if uniform and raw.found is None and status not in (Status.INFEASIBLE, Status.ERROR):
        found = None  # every row holds a selection (the vectorised kernels' usual answer)
    else:
        found = np.ones(m, dtype=bool) if raw.found is None else np.array(raw.found, dtype=bool)
        if uniform:
            if status in (Status.INFEASIBLE, Status.ERROR):
                found[:] = False
        else:
            found &= np.array([s not in (Status.INFEASIBLE, Status.ERROR) for s in status], dtype=bool)
        for j in map(int, np.flatnonzero(~found)):
            sj = status if isinstance(status, Status) else status[j]
            if sj in (Status.OPTIMAL, Status.FEASIBLE):
                raise SolverError(f"{solver.name}: batch row {j} has status {sj.value} but no selection")
    x = _whole_units(solver.name, raw.x, (m, n), found)
    if found is not None:
        x[~found] = 0
    ev = batch.evaluate(x)
    bad = ~ev.feasible if found is None else found & ~ev.feasible
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise _infeasible(solver.name, ev.violations[j], j)
    x.setflags(write=False)
    if found is None:
        found = np.ones(m, dtype=bool)
    bound: float | None | np.ndarray = None if raw.bound is None else _batch_bounds(raw.bound, status, found, x,
                                                                                   ev.utility, batch.utility)
    return SolutionBatch(x, status, found, ev, time.perf_counter() - start, solver.name, bound,
                         raw.backend_time_s)



def _batch_bounds(bound: float | str | Sequence[float | None], status: Status | tuple[Status, ...],
                  found: np.ndarray, x: np.ndarray, objective: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Per-row bounds of a batch (NaN: none), each raised as :func:`bound_at_least` raises one.

    ``bound`` is one float for every row, ``"objective"`` (each optimal row's bound is its
    objective) or one float or ``None`` per row.
    """
    m, n = x.shape
    if isinstance(bound, str):
        optimal = np.array([s is Status.OPTIMAL for s in ((status,) * m if isinstance(status, Status) else status)])
        b = np.where(optimal, -np.inf, np.nan)
    elif isinstance(bound, (int, float)):
        b = np.full(m, float(bound))
    else:
        b = np.array([np.nan if v is None else float(v) for v in bound], dtype=float)
    up = rounded_up(objective, (np.abs(x) * np.abs(r)).sum(axis=1), n)
    raise_ = found & ~np.isnan(b)
    b[raise_] = np.maximum(b[raise_], up[raise_])
    return b


def gather_rows(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``values[j, idx[j, :]]`` for every row ``j`` (a fast ``take_along_axis`` on axis 1)."""
    m, n = values.shape
    return values.ravel()[idx + (np.arange(m) * n)[:, None]]
