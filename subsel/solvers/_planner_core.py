"""The planner's search with linear programs: the exact Lagrangian dual, a rounded plan, a core.

Used by :mod:`subsel.solvers._planner_search` when HiGHS (highspy) is installed.  The Lagrangian
dual of the coupling rows, whose subproblem is one choice per agent, equals the linear program over
the convex hulls of the agents' choices (Geoffrion, *Mathematical Programming Study* 2, 1974,
Theorem 1).  Agent ``i``'s choices in lots, ``z = 0`` or ``lo_i <= z <= hi_i``, with the indicator
``y = [z > 0]``, have the hull ``lo_i y <= z <= hi_i y``, ``0 <= y <= 1`` (``y = 1`` for a
must-take agent), so that linear program is small and HiGHS solves it at once; its row duals are
the multipliers that minimise the Lagrangian bound.  Then:

1. *A plan from the program*: every agent with ``y > 0`` used and the counts solved again as a
   linear program with those agents used, its rows tightened by what rounding the counts down can
   move them, the counts rounded down (Wolsey, *Integer Programming*, 1998, Section 12.2, diving);
2. *Reduction* by reduced costs at the dual's multipliers (Martello and Toth, *Knapsack Problems*,
   1990, Section 2.3), exact as in the search: the agents whose best choice is decided are fixed;
3. *The core*: the problem restricted to the choices left (a fixed agent's range of one count, a
   must-take or must-not-take flag) is solved by HiGHS through subsel's MILP pipeline (its rows
   scaled, its answer verified by the feasibility rule, its optimality certified), warm-started with
   the plan.  A selection better than the plan lies in the restricted problem (step 2), so the
   restricted problem's optimum, or the plan when that is no better, is the problem's.
"""
from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from ..models import SubsetSelectionProblem
from ._milp import captured_output
from .base import SolverError, Status
from .highs import HiGHS

#: Most fractional counts of a plan whose roundings are all tried (2^this combinations).
_ROUNDINGS = 12
#: Most agents with a fractional indicator whose subsets are all tried as sets of used agents.
_SUBSETS = 6
#: Plans rounded (the sets of used agents whose programs are best).
_PLANS = 3

if TYPE_CHECKING:
    from ._planner_search import _Model


class _CoreHiGHS(HiGHS):
    """HiGHS's pipeline on a restricted problem, warm-started with a given plan and without
    ``exact``'s cross-check (``exact`` is the caller)."""

    name = "highs"
    plan: np.ndarray | None = None

    def _warm_start(self, problem: SubsetSelectionProblem) -> np.ndarray | None:  # type: ignore[override]
        return self.plan

    @staticmethod
    def _certify_with_exact(problem: SubsetSelectionProblem, left: float | None) -> None:
        return None


class HullProgram:
    """The linear program over the agents' hulls (the module's text) in HiGHS: maximise
    ``dv z - f y`` subject to ``A z + B y <= C``, ``lo y <= z <= hi y``, ``0 <= y <= 1`` (``y = 1``
    for a must-take agent).  Kept between solves, so that fixing indicators and solving again
    starts from the last basis."""

    def __init__(self, d: _Model, time_limit: float | None):
        import highspy
        from scipy import sparse

        self.d = d
        n, K = d.dv.size, d.A.shape[0]
        on = d.lo <= d.hi
        zub = np.where(on, d.hi, 0).astype(float)
        self.y_lower = np.where(d.off, 0.0, 1.0)
        self.y_upper = np.where(on, 1.0, 0.0)
        inf = highspy.kHighsInf
        eye = sparse.identity(n, format="csr")
        matrix = sparse.vstack([sparse.hstack([sparse.csr_matrix(d.A), sparse.csr_matrix(d.B)]),
                                sparse.hstack([eye, -sparse.diags(np.where(on, d.lo, 0).astype(float))]),
                                sparse.hstack([eye, -sparse.diags(zub)])]).tocsc()
        lp = highspy.HighsLp()
        lp.num_col_ = 2 * n
        lp.num_row_ = K + 2 * n
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.col_cost_ = np.concatenate([d.dv, -d.f])
        lp.col_lower_ = np.concatenate([np.zeros(n), self.y_lower])
        lp.col_upper_ = np.concatenate([zub, self.y_upper])
        lp.row_lower_ = np.concatenate([np.full(K, -inf), np.zeros(n), np.full(n, -inf)])
        lp.row_upper_ = np.concatenate([d.C, np.full(n, inf), np.zeros(n)])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = matrix.indptr
        lp.a_matrix_.index_ = matrix.indices
        lp.a_matrix_.value_ = matrix.data
        with captured_output(True):
            self.h = highspy.Highs()  # type: ignore[no-untyped-call]
        self.h.setOptionValue("output_flag", False)
        self.deadline = None if time_limit is None else time.perf_counter() + time_limit
        self.h.passModel(lp)
        self._optimal = highspy.HighsModelStatus.kOptimal
        self._cols = n + np.arange(n, dtype=np.int32)

    def solve(self, use: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float] | None:
        """The program's ``z``, ``y``, the coupling rows' duals (``>= 0``) and its value; with
        ``use`` the indicators fixed to it.  None when HiGHS finds no optimum or the time is up."""
        left = seconds_left(self.deadline)
        if left is not None and left <= 0:
            return None
        if left is not None:
            self.h.setOptionValue("time_limit", left)
        n, K = self.d.dv.size, self.d.A.shape[0]
        lower = self.y_lower if use is None else use.astype(float)
        upper = self.y_upper if use is None else use.astype(float)
        self.h.changeColsBounds(n, self._cols, lower, upper)
        self.h.run()
        if self.h.getModelStatus() != self._optimal:
            return None
        sol = self.h.getSolution()
        col = np.asarray(sol.col_value, dtype=float)
        # Every coupling row is an upper row: its multiplier is the size of its dual (HiGHS's sign
        # convention aside); any multipliers >= 0 give a valid bound, the caller evaluates it.
        mu = np.abs(np.asarray(sol.row_dual[:K], dtype=float))
        return col[:n], col[n:], mu, float(self.h.getInfo().objective_function_value)


def used_sets(program: HullProgram, y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Step 1 of the module's method: from the hull program's ``y``, sets of used agents (every
    agent with ``y = 1``, and every subset of those with a fractional ``y`` when at most
    :data:`_SUBSETS` have one, else a greedy pass that flips them one by one); the best
    :data:`_PLANS` of them by the value of the program with those agents used, each with that
    program's counts (for :func:`rounded`)."""
    d = program.d
    on = d.lo <= d.hi
    sure = on & ((y >= 1 - 1e-9) | ~d.off)
    frac = np.flatnonzero(on & ~sure & (y > 1e-9))
    tried: list[tuple[float, np.ndarray, np.ndarray]] = []

    def value(use: np.ndarray) -> float:
        out = program.solve(use)
        if out is None:
            return -math.inf
        tried.append((out[3], use, out[0]))
        return out[3]

    if frac.size <= _SUBSETS:
        for bits in range(2 ** frac.size):
            use = sure.copy()
            use[frac] = (bits >> np.arange(frac.size)) & 1 == 1
            value(use)
    else:
        use = sure.copy()
        use[frac] = y[frac] >= 0.5
        best = value(use)
        for i in frac:
            flip = use.copy()
            flip[i] = not flip[i]
            v = value(flip)
            if v > best:
                best, use = v, flip
    program.solve()  # back to the hull program's own bounds
    return [(use, zf) for _, use, zf in sorted(tried, key=lambda t: -t[0])[:_PLANS]]


def rounded(d: _Model, use: np.ndarray, zf: np.ndarray) -> tuple[np.ndarray, bool]:
    """The best rounding of the counts ``zf`` of the agents ``use`` (the others 0) whose rows hold
    in floats (each fractional count down or up, every combination for at most :data:`_ROUNDINGS`
    of them) and True; when none holds, every count rounded down and False."""
    zf = np.where(use, zf, 0.0)
    down = np.clip(np.floor(zf + 1e-9), d.lo, d.hi)
    part = np.flatnonzero(use & (zf - down > 1e-9) & (down < d.hi))
    base = np.where(use, down, 0).astype(np.int64)
    size = part.size if part.size <= _ROUNDINGS else 0
    ups = ((np.arange(2 ** size)[:, None] >> np.arange(size)) & 1).astype(float)
    act = d.A @ base.astype(float) + d.B @ (base > 0).astype(float)
    ok = (act[None, :] + ups @ d.A[:, part[:size]].T <= d.C[None, :]).all(axis=1)
    if not ok.any():
        return base, False
    pick = int(np.argmax(np.where(ok, ups @ d.dv[part[:size]], -np.inf)))
    base[part[:size]] += ups[pick].astype(np.int64)
    return base, True


def solve_core(problem: SubsetSelectionProblem, d: _Model, off: np.ndarray, lo: np.ndarray, hi: np.ndarray,
               plan: np.ndarray | None, time_limit: float | None) -> tuple[np.ndarray | None, Status, float | None]:
    """Step 3 of the module's method: the problem restricted to each agent's choices ``off``,
    ``[lo, hi]`` (in lots; ``lo > hi``: no used count) solved by HiGHS's pipeline, warm-started with
    ``plan`` (in lots; the pipeline uses it when the restricted problem accepts it).

    Returns
    -------
    (x, status, bound)
        HiGHS's selection in units (None when it has none), its status and its bound on the
        restricted problem (None when unknown).

    Raises
    ------
    SolverError
        HiGHS failed.
    """
    empty = lo > hi
    lot = d.lot
    restricted = problem.with_changes(
        capacity=np.where(empty, lot, hi * lot), min_units=np.where(empty, lot, lo * lot),
        must_take=np.flatnonzero(~off & ~empty), must_not_take=np.flatnonzero(empty))
    solver = _CoreHiGHS(time_limit_s=time_limit)
    if plan is not None and (plan >= 0).all():
        x0 = plan * lot
        if restricted.evaluate(x0).feasible:
            solver.plan = x0
    sol = solver.solve(restricted)
    x = None if sol.x is None else np.asarray(sol.x, dtype=np.int64)
    if sol.status is Status.ERROR:
        raise SolverError("highs: no answer on the planner's core")
    return x, sol.status, None if sol.bound is None else float(sol.bound)


def seconds_left(deadline: float | None) -> float | None:
    """Seconds to ``deadline`` (None: no deadline)."""
    return None if deadline is None else deadline - time.perf_counter()
