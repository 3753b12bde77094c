"""The one Solver interface of subsel (SPEC §4; STYLE.md "Solvers" and "Solutions").

A backend subclasses :class:`Solver` and implements :meth:`Solver._solve`; the public
:meth:`Solver.solve` checks the problem's extensions against :attr:`Solver.supports`, times the call,
checks the answer with :meth:`SubsetSelectionProblem.evaluate` and wraps it in a frozen
:class:`Solution`.  No backend can hand back an infeasible "optimal".
"""
from __future__ import annotations

import enum
import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ..models import SubsetSelectionProblem


class Status(str, enum.Enum):
    """What a solution is (the status vocabulary of python-mip: OPTIMAL, FEASIBLE, INFEASIBLE,
    NO_SOLUTION_FOUND, ERROR, plus a time-limited stop that carries a selection).

    ``optimal``
        ``x`` is feasible under the one feasibility rule of
        :meth:`~subsel.models.SubsetSelectionProblem.evaluate`, and no feasible selection has a
        utility higher by more than the optimality tolerance (proven or certified).
    ``feasible``
        ``x`` is feasible; optimality is not proven (a heuristic, a MILP stopped at a gap, or a
        MILP answer that subsel could not certify at the data's scale).
    ``time_limit``
        The time limit struck *with* a selection: ``x`` is the best feasible selection known then
        (at least the smallest selection, nothing but the must-take units, when that is feasible).
    ``no_solution_found``
        The time limit struck *before* any feasible selection was known; ``x`` is an all-zero
        placeholder, not an answer.  Only demand or must-take constraints can make the smallest
        selection infeasible, so only they lead here.
    ``infeasible``
        Proven: no selection satisfies the constraints; ``x`` is a placeholder.
    ``error``
        The backend failed; ``x`` is a placeholder.

    :attr:`Solution.is_feasible` is True exactly for the first three.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"
    NO_SOLUTION_FOUND = "no_solution_found"
    ERROR = "error"

    @property
    def has_selection(self) -> bool:
        """True for the statuses whose ``x`` is a feasible selection (optimal, feasible, time_limit)."""
        return self in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)

    def __str__(self) -> str:  # "optimal", not "Status.OPTIMAL"
        return self.value


class SolverError(RuntimeError):
    """A backend failed or returned an answer that does not pass ``problem.evaluate``."""


class UnsupportedExtensionError(ValueError):
    """A solver was asked for a constraint (extension) it does not handle.

    Attributes
    ----------
    solver : str
        The solver's registry name.
    extension : str
        The first unsupported extension (``budget``, ``demand``, ``must_take``, ``must_not_take``).
    """

    def __init__(self, solver: str, extension: str, supported: frozenset[str]):
        self.solver = solver
        self.extension = extension
        ok = ", ".join(sorted(supported)) or "none"
        super().__init__(f"solver {solver!r} does not support the {extension!r} constraint "
                         f"(it supports: {ok}); choose another solver")


@dataclass(frozen=True, eq=False)
class Solution:
    """A solver's answer (STYLE.md item 6).

    Attributes
    ----------
    x : ndarray of int64, shape (n,)
        Units taken per agent (read-only).  A feasible selection when :attr:`is_feasible`; an
        all-zero placeholder (not an answer) for ``infeasible``, ``no_solution_found`` and ``error``.
    objective : float
        Utility ``sum r_i x_i``; NaN when there is no selection (``infeasible``, ``no_solution_found``,
        ``error``).
    avg_quality : float
        Average quality of the selected units; NaN when nothing is selected.
    status : Status
        See :class:`Status`.
    wall_time_s : float
        Wall-clock seconds of the whole ``solve`` call, model building included.
    solver : str
        Registry name of the backend.
    bound : float or None
        A proven upper bound on the optimum when the backend has one (e.g. the LP relaxation or a
        MILP's best bound); ``None`` otherwise.
    """

    x: np.ndarray
    objective: float
    avg_quality: float
    status: Status
    wall_time_s: float
    solver: str
    bound: float | None = None

    @property
    def is_feasible(self) -> bool:
        """True when ``x`` is a feasible selection: status ``optimal``, ``feasible`` or ``time_limit``
        (see :class:`Status`); False for ``infeasible``, ``no_solution_found`` and ``error``."""
        return self.status.has_selection

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view: keys ``solver, status, objective, avg_quality, x, wall_time_s, bound``.

        NaN and infinities become ``None`` so that the result is strict JSON (RFC 8259).
        """
        def num(v: float | None) -> float | None:
            return None if v is None or not math.isfinite(float(v)) else float(v)

        return {"solver": self.solver, "status": self.status.value, "objective": num(self.objective),
                "avg_quality": num(self.avg_quality), "x": [int(v) for v in self.x],
                "wall_time_s": float(self.wall_time_s), "bound": num(self.bound)}


class RawResult(NamedTuple):
    """What a backend's :meth:`Solver._solve` returns before checking.

    Attributes
    ----------
    x : ndarray, shape (n,) or None
        Units per agent; ``None`` when no feasible selection is known (infeasible / error, or a time
        limit before any selection: a backend may return ``TIME_LIMIT`` with ``None`` and
        :meth:`Solver.solve` then offers the smallest selection, ``x = lower bounds``, or reports
        ``NO_SOLUTION_FOUND``).
    status : Status
    bound : float or None
    """

    x: np.ndarray | None
    status: Status
    bound: float | None = None


class Solver:
    """Base class of every backend (SPEC §4; STYLE.md item 5).

    Parameters
    ----------
    time_limit_s : float or None
        Wall-clock limit in seconds; ``None`` means no limit.  Backends that stop at the limit return
        their best feasible selection with status ``time_limit`` (``no_solution_found`` when none is
        known, see :class:`Status`).
    threads : int or None
        Threads for backends that can use several; ``None`` lets the backend choose.
    verbose : bool, default False
        Let the backend print its log.

    Attributes
    ----------
    name : str
        Registry name.
    exact : bool
        True when an ``optimal`` answer is proven optimal (gap 0).
    supports : frozenset of str
        Extensions handled (subset of ``subsel.models.EXTENSIONS``).
    complexity : str
        Human-readable worst-case cost, for the solver table.

    Raises
    ------
    ValueError
        ``time_limit_s <= 0`` or ``threads < 1``.
    """

    name: ClassVar[str] = "solver"
    exact: ClassVar[bool] = False
    supports: ClassVar[frozenset[str]] = frozenset()
    complexity: ClassVar[str] = ""

    def __init__(self, time_limit_s: float | None = None, threads: int | None = None,
                 verbose: bool = False):
        if time_limit_s is not None:
            if isinstance(time_limit_s, bool) or not isinstance(time_limit_s, (int, float)) \
                    or not math.isfinite(time_limit_s) or time_limit_s <= 0:
                raise ValueError(f"time_limit_s must be a positive number of seconds; got {time_limit_s!r}")
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
                raise ValueError(f"threads must be a positive integer; got {threads!r}")
        self.time_limit_s = None if time_limit_s is None else float(time_limit_s)
        self.threads = threads
        self.verbose = bool(verbose)

    # -- registry hooks -------------------------------------------------------------------------
    @classmethod
    def available(cls) -> tuple[bool, str]:
        """Whether this backend works on this machine, and why not if it does not.

        Returns
        -------
        (bool, str)
            ``(True, "")`` or ``(False, reason)``.
        """
        return True, ""

    # -- the interface --------------------------------------------------------------------------
    def solve(self, problem: SubsetSelectionProblem) -> Solution:
        """Solve ``problem`` and return a checked :class:`Solution`.

        Parameters
        ----------
        problem : SubsetSelectionProblem
            Never modified.

        Returns
        -------
        Solution

        Raises
        ------
        TypeError
            ``problem`` is not a :class:`SubsetSelectionProblem`.
        UnsupportedExtensionError
            The problem uses an extension this solver does not support.
        SolverError
            The backend failed, or its answer does not pass ``problem.evaluate``.
        """
        if not isinstance(problem, SubsetSelectionProblem):
            raise TypeError(f"problem must be a SubsetSelectionProblem; got {type(problem).__name__}")
        self.check_supported(problem)
        start = time.perf_counter()
        if problem.demand is not None and problem.demand > int(problem.upper_bounds().sum()):
            # More units demanded than the agents may give: infeasible for every backend.  Decided
            # here, in exact integers, because a backend sees the demand as a float (a huge one,
            # e.g. 1e23, is rounded and its own infeasibility proof may then fail).
            return self._finish(problem, RawResult(None, Status.INFEASIBLE),
                                time.perf_counter() - start)
        raw = self._solve(problem)
        elapsed = time.perf_counter() - start
        return self._finish(problem, raw, elapsed)

    def check_supported(self, problem: SubsetSelectionProblem) -> None:
        """Raise :class:`UnsupportedExtensionError` for the first extension not in :attr:`supports`."""
        missing = sorted(problem.extensions - self.supports)
        if missing:
            raise UnsupportedExtensionError(self.name, missing[0], self.supports)

    def solve_batch(self, quality: np.ndarray, cost: np.ndarray, alpha: float | np.ndarray,
                    R: float = 1.0, capacity: np.ndarray | None = None,
                    objective_quality: np.ndarray | None = None) -> np.ndarray:
        """Solve ``m`` problems that share their agents' structure, one per row; return only ``x``.

        The batched oracle of the bandit layer (SPEC §2: SS-UCB calls its oracle once per round
        and per run).  Row ``j`` is the problem ``SubsetSelectionProblem(quality[j], cost[j],
        alpha[j], capacity, R, objective_quality=objective_quality[j])`` without extensions.  This
        default loops over :meth:`solve`; backends override it with a vectorised method that returns
        exactly what :meth:`solve` returns row by row.

        Parameters
        ----------
        quality : array-like of float, shape (m, n)
            Qualities in [0, 1] used by the quality constraint.
        cost : array-like of float, shape (n,) or (m, n)
            Per-unit costs ``>= 0`` (shared by every row, or one row per problem).
        alpha : float or array-like of float, shape (m,)
            Quality thresholds in [0, 1].
        R : float, default 1.0
            Revenue per good unit (``> 0``).
        capacity : array-like of int, shape (n,), optional
            Units per agent shared by every row; default all 1.
        objective_quality : array-like of float, shape (m, n), optional
            Qualities used in the objective only (see ``SubsetSelectionProblem.objective_quality``).

        Returns
        -------
        ndarray of int64, shape (m, n)
            Units taken per agent, one row per problem; every row is feasible for its problem.

        Raises
        ------
        ValueError
            Bad shapes or values (naming the argument, row and column).
        SolverError
            A row has no feasible answer (cannot happen without extensions: taking nothing is
            feasible) or the backend failed.
        """
        q, c, a, k, oq = check_batch_inputs(quality, cost, alpha, R, capacity, objective_quality)
        m, n = q.shape
        out = np.zeros((m, n), dtype=np.int64)
        for j in range(m):
            problem = SubsetSelectionProblem(
                quality=q[j], cost=c[j], alpha=float(a[j]), capacity=k, R=R,
                objective_quality=None if oq is None else oq[j])
            sol = self.solve(problem)
            if not sol.is_feasible:
                raise SolverError(f"{self.name}: row {j} of the batch has status {sol.status.value}")
            out[j] = sol.x
        return out

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _solve")

    def _finish(self, problem: SubsetSelectionProblem, raw: RawResult, elapsed: float) -> Solution:
        n = problem.n
        if raw.x is None and raw.status in (Status.TIME_LIMIT, Status.NO_SOLUTION_FOUND):
            # Stopped before the backend knew a selection: the smallest one (nothing but the
            # must-take units) is at hand and often feasible; else there is no selection.
            x0 = problem.lower_bounds()
            if problem.evaluate(x0).feasible:
                raw = RawResult(x0, Status.TIME_LIMIT, raw.bound)
            else:
                raw = RawResult(None, Status.NO_SOLUTION_FOUND, raw.bound)
        if raw.x is None or raw.status in (Status.INFEASIBLE, Status.ERROR, Status.NO_SOLUTION_FOUND):
            if raw.status.has_selection:
                raise SolverError(f"{self.name}: status {raw.status.value} but no selection returned")
            x = np.zeros(n, dtype=np.int64)
            x.setflags(write=False)
            return Solution(x, float("nan"), float("nan"), raw.status, elapsed, self.name, raw.bound)
        xf = np.asarray(raw.x, dtype=float)
        if xf.shape != (n,):
            raise SolverError(f"{self.name}: returned x of shape {xf.shape}, expected ({n},)")
        x = np.rint(xf).astype(np.int64)
        if np.any(np.abs(xf - x) > 1e-6):
            i = int(np.flatnonzero(np.abs(xf - x) > 1e-6)[0])
            raise SolverError(f"{self.name}: returned a fractional value x[{i}] = {xf[i]}")
        ev = problem.evaluate(x)
        if not ev.feasible:
            raise SolverError(f"{self.name}: returned an infeasible selection ({'; '.join(ev.violations)})")
        x.setflags(write=False)
        return Solution(x, ev.utility, ev.avg_quality, raw.status, elapsed, self.name, raw.bound)

    def __repr__(self) -> str:
        opts = []
        if self.time_limit_s is not None:
            opts.append(f"time_limit_s={self.time_limit_s:g}")
        if self.threads is not None:
            opts.append(f"threads={self.threads}")
        return f"{type(self).__name__}({', '.join(opts)})"


def check_batch_inputs(quality: Any, cost: Any, alpha: Any, R: Any, capacity: Any,
                       objective_quality: Any = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate the arguments of :meth:`Solver.solve_batch` and broadcast them to full shapes.

    Returns
    -------
    (quality, cost, alpha, capacity, objective_quality)
        Float arrays of shapes (m, n), (m, n), (m,), int64 (n,), and (m, n) or None.

    Raises
    ------
    ValueError
        Wrong shapes, non-finite numbers, qualities or alpha outside [0, 1], negative costs,
        capacities that are not positive integers, ``R <= 0``; the message names the argument and
        the first offending (row, column).
    """
    def arr(value: Any, name: str, low: float = -np.inf, high: float = np.inf, rule: str = "") -> np.ndarray:
        try:
            out = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be an array of numbers; got {type(value).__name__}") from exc
        if out.size and low <= out.min() and out.max() <= high and -np.inf < out.min() \
                and out.max() < np.inf:
            return out  # the fast path: finite and in range (a NaN fails every comparison)
        for mask, what in ((~np.isfinite(out), "a finite number"), ((out < low) | (out > high), rule)):
            if mask.any():
                if out.ndim == 0:
                    raise ValueError(f"{name} must be {what}; got {float(out)}")
                idx = tuple(int(i) for i in np.argwhere(mask)[0])
                raise ValueError(f"{name}{list(idx)} must be {what}; got {out[idx]}")
        return out

    q = arr(quality, "quality", 0.0, 1.0, "in [0, 1]")
    if q.ndim != 2 or q.shape[1] == 0:
        raise ValueError(f"quality must have shape (m, n) with n >= 1; got {q.shape}")
    m, n = q.shape
    c = arr(cost, "cost", 0.0, np.inf, ">= 0")
    if c.shape not in ((n,), (m, n)):
        raise ValueError(f"cost must have shape ({n},) or ({m}, {n}); got {c.shape}")
    if c.shape != (m, n):
        c = np.broadcast_to(c, (m, n))
    a = arr(alpha, "alpha", 0.0, 1.0, "in [0, 1]")
    if a.shape not in ((), (m,)):
        raise ValueError(f"alpha must be a number or have shape ({m},); got {a.shape}")
    if a.shape != (m,):
        a = np.broadcast_to(a, (m,))
    if isinstance(R, bool) or not isinstance(R, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(R)) or R <= 0:
        raise ValueError(f"R must be a number > 0; got {R!r}")
    if capacity is None:
        k = np.ones(n, dtype=np.int64)
    else:
        kf = arr(capacity, "capacity", 1.0, np.inf, "a positive integer")
        if kf.shape != (n,):
            raise ValueError(f"capacity must have shape ({n},); got {kf.shape}")
        frac = kf != np.round(kf)
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise ValueError(f"capacity[{i}] must be a positive integer; got {kf[i]}")
        k = kf.astype(np.int64)
    oq = None
    if objective_quality is not None:
        oq = arr(objective_quality, "objective_quality", 0.0, 1.0, "in [0, 1]")
        if oq.shape != (m, n):
            raise ValueError(f"objective_quality must have shape ({m}, {n}); got {oq.shape}")
    return q, c, a, k, oq


def check_batch_answer(solver: str, margin: np.ndarray, capacity: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Check a batched answer like :meth:`Solver.solve` checks one: in bounds and feasible.

    Parameters
    ----------
    solver : str
        Name for the message.
    margin : ndarray, shape (m, n)
        ``quality - alpha`` per row (the coefficients of the quality constraint).
    capacity : ndarray of int, shape (n,)
    x : ndarray of int64, shape (m, n)

    Returns
    -------
    ndarray
        ``x`` itself.

    Raises
    ------
    SolverError
        Naming the first offending row: a unit count outside ``0..capacity``, or
        ``sum_i (q_i - alpha) x_i < -FEASIBILITY_TOL``.
    """
    from ..models import FEASIBILITY_TOL

    if x.size and (x.min() < 0 or not (x <= capacity).all()):
        bad = np.flatnonzero(np.any((x < 0) | (x > capacity), axis=1))
        raise SolverError(f"{solver}: batch row {int(bad[0])} is outside 0 <= x <= capacity")
    surplus = rowdot(x, margin)
    if (surplus < -FEASIBILITY_TOL).any():
        j = int(np.flatnonzero(surplus < -FEASIBILITY_TOL)[0])
        raise SolverError(f"{solver}: batch row {j} is infeasible (surplus {surplus[j]:.3g} < 0)")
    return x


def rowdot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise dot products ``x[j] @ y[j]``, shape (m,), rounded exactly like the 1-D ``@``.

    A stacked ``matmul`` of (m, 1, n) by (m, n, 1) evaluates each row with the same vector dot as
    ``x[j] @ y[j]``, so batched solvers reproduce their per-problem answers bit for bit (a plain
    ``(x * y).sum(axis=1)`` or ``x @ y.T`` rounds differently).  The per-problem solvers use
    :func:`subsel.models.problem.weighted_sum`, which is ``@`` up to n = 8192 agents; above that it
    sums pairwise and the two may differ in the last bit.
    """
    return np.matmul(np.asarray(x, dtype=float)[:, None, :], np.asarray(y, dtype=float)[:, :, None])[:, 0, 0]


def gather_rows(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``values[j, idx[j, :]]`` for every row ``j`` (a fast ``take_along_axis`` on axis 1)."""
    m, n = values.shape
    return values.ravel()[idx + (np.arange(m) * n)[:, None]]
