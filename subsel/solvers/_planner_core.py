"""The planner's search with linear programs: the exact Lagrangian dual, a rounded plan, a core.

Used by :mod:`subsel.solvers._planner_search` when HiGHS (highspy) is installed.  The Lagrangian
dual of the coupling rows, whose subproblem is one choice per agent, equals the linear program over
the convex hulls of the agents' choices (Geoffrion, *Mathematical Programming Study* 2, 1974,
Theorem 1).  Agent ``i``'s choices in lots, ``z = 0`` or ``lo_i <= z <= hi_i``, with the indicator
``y = [z > 0]``, have the hull ``lo_i y <= z <= hi_i y``, ``0 <= y <= 1`` (``y = 1`` for a
must-take agent), so that linear program is small (two columns per agent); its row duals are
the multipliers that minimise the Lagrangian bound.  Then:

1. *Plans from the program*: sets of used agents (those the program uses fully, with subsets of
   its fractional ones), for each the best counts as a program with those agents used, rounded
   (Wolsey, *Integer Programming*, 1998, Section 12.2); the caller repairs and checks them;
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
from typing import TYPE_CHECKING, Any

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
#: Most agents whose hull program is solved whole; beyond, by column generation (sifting).
_SIFT_MIN = 8000
#: Agents of the sample program that estimates the duals, and of the best-priced added per round.
_SIFT_SAMPLE = 2000
#: Rounds of column generation before the whole program is solved instead.
_SIFT_ROUNDS = 12

if TYPE_CHECKING:
    from ._planner_search import _Model


class _CoreHiGHS(HiGHS):
    """HiGHS's pipeline on a restricted problem, warm-started with a given plan and without
    ``exact``'s cross-check (``exact`` is the caller)."""

    name = "highs"
    plan: np.ndarray | None = None

    def _warm_start(self, problem: SubsetSelectionProblem,  # type: ignore[override]
                    deadline: float | None = None) -> tuple[np.ndarray | None, float | None]:
        return self.plan, None

    @staticmethod
    def _certify_with_exact(problem: SubsetSelectionProblem, left: float | None) -> None:
        return None


def _run(h: Any, deadline: float | None) -> bool:
    """Run the model in ``h`` until ``deadline``; True when HiGHS proves it optimal."""
    import highspy

    left = seconds_left(deadline)
    if left is not None:
        if left <= 0:
            return False
        h.setOptionValue("time_limit", left)
    h.run()
    return bool(h.getModelStatus() == highspy.HighsModelStatus.kOptimal)


def _highs(num_col: int, num_row: int, cost: np.ndarray, col_bounds: tuple[np.ndarray, np.ndarray],
           row_bounds: tuple[np.ndarray, np.ndarray], matrix: Any) -> Any:
    """A HiGHS object holding the program ``max cost . x``, ``col_bounds``, ``row_bounds`` on
    ``matrix`` (scipy sparse, column-compressed), silenced."""
    import highspy

    lp = highspy.HighsLp()
    lp.num_col_ = num_col
    lp.num_row_ = num_row
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = cost
    lp.col_lower_, lp.col_upper_ = col_bounds
    inf = highspy.kHighsInf
    lp.row_lower_ = np.where(np.isfinite(row_bounds[0]), row_bounds[0], -inf)
    lp.row_upper_ = np.where(np.isfinite(row_bounds[1]), row_bounds[1], inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = matrix.indptr
    lp.a_matrix_.index_ = matrix.indices
    lp.a_matrix_.value_ = matrix.data
    with captured_output(True):
        h = highspy.Highs()  # type: ignore[no-untyped-call]
    h.setOptionValue("output_flag", False)
    h.passModel(lp)
    return h


def hull_program(d: _Model, deadline: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The linear program over the agents' hulls (the module's text): the hull of agent ``i``'s
    choices is spanned by not used and by its least and its greatest count, so each agent has two
    columns, the weights ``a_i`` and ``b_i`` of those counts, with ``a_i + b_i <= 1`` (``= 1`` for
    a must-take agent).  Its counts ``z = lo a + hi b``, indicators ``y = a + b`` and the coupling
    rows' duals (``>= 0``); None when HiGHS proves no optimum before ``deadline``.

    Beyond :data:`_SIFT_MIN` agents the program is solved by column generation (sifting; Bixby,
    Gregory, Lustig, Marsten, Shanno, *Operations Research* 40(5), 1992): over a set of agents
    (the must-take ones, those a program over a sample of every agent uses, and the best-priced at
    its duals), the others not used; at the restricted program's duals ``mu`` an agent outside the
    set whose best used choice has a positive reduced value, ``max(s lo, s hi) - F > 0`` with
    ``s = r l - mu . a`` and ``F = f + mu . b``, joins it; when none does, the restricted optimum
    is the whole program's (the duals, with 0 for the convexity rows of the agents left out, are
    feasible for the whole dual).
    """
    n = d.dv.size
    on = d.lo <= d.hi
    if n <= _SIFT_MIN:
        return _hull_over(d, np.arange(n), deadline)
    must = np.flatnonzero(~d.off & on)
    # A first estimate of the duals: the program over every (n // size)-th agent and the must-take
    # ones, the rows' right sides scaled to the sample's share (no estimate when that is infeasible).
    step = max(1, n // _SIFT_SAMPLE)
    sample = np.union1d(np.arange(0, n, step), must)
    share = sample.size / n
    scaled = d._replace(C=d.C * share, Cw=d.Cw * share)
    first = _hull_over(scaled, sample, deadline)
    mu = np.zeros(d.A.shape[0]) if first is None else first[2]
    chosen = np.zeros(n, dtype=bool)
    chosen[must] = True
    hif = np.where(on, d.hi, 0).astype(float)
    out = None
    for _ in range(_SIFT_ROUNDS):
        s, F = d.dv - mu @ d.A, d.f + mu @ d.B
        with np.errstate(invalid="ignore"):
            used = np.where(on, np.maximum(s * d.lo, s * d.hi) - F, -np.inf)
        tol = 1e-9 * (1.0 + (np.abs(d.dv) + np.abs(mu) @ np.abs(d.A)) * hif + np.abs(d.f) + np.abs(mu) @ np.abs(d.B))
        enter = ~chosen & (used > tol)
        if out is not None and not enter.any():
            return out
        # The entering agents and the best-priced others (the basis's neighbours), so that few
        # rounds are needed.
        extra = np.flatnonzero(~chosen & ~enter & on)
        extra = extra[np.argsort(-used[extra], kind="stable")[:_SIFT_SAMPLE]]
        chosen |= enter
        chosen[extra] = True
        out = _hull_over(d, np.flatnonzero(chosen), deadline)
        if out is None:
            break
        mu = out[2]
    return _hull_over(d, np.arange(n), deadline)  # the whole program (sifting did not settle)


def _hull_over(d: _Model, idx: np.ndarray, deadline: float | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`hull_program` over the agents ``idx`` (the others not used), on arrays of every
    agent; None when HiGHS proves no optimum before ``deadline``."""
    from scipy import sparse

    n, K = d.dv.size, d.A.shape[0]
    m = idx.size
    on = d.lo[idx] <= d.hi[idx]
    lo, hi = np.where(on, d.lo[idx], 0).astype(float), np.where(on, d.hi[idx], 0).astype(float)
    A, B, dv, f = d.A[:, idx], d.B[:, idx], d.dv[idx], d.f[idx]
    eye = sparse.identity(m, format="csr")
    matrix = sparse.vstack([sparse.hstack([sparse.csr_matrix(A * lo + B), sparse.csr_matrix(A * hi + B)]),
                            sparse.hstack([eye, eye])]).tocsc()
    top = np.where(on, 1.0, 0.0)
    h = _highs(2 * m, K + m, np.concatenate([dv * lo - f, dv * hi - f]),
               (np.zeros(2 * m), np.concatenate([top, top])),
               (np.concatenate([np.full(K, -np.inf), np.where(d.off[idx], -np.inf, 1.0)]),
                np.concatenate([d.C, np.ones(m)])), matrix)
    if not _run(h, deadline):
        return None
    sol = h.getSolution()
    col = np.asarray(sol.col_value, dtype=float)
    # Every coupling row is an upper row: its multiplier is the size of its dual (HiGHS's sign
    # convention aside); any multipliers >= 0 give a valid bound, the caller evaluates it.
    mu = np.abs(np.asarray(sol.row_dual[:K], dtype=float))
    z, y = np.zeros(n), np.zeros(n)
    z[idx], y[idx] = lo * col[:m] + hi * col[m:], col[:m] + col[m:]
    return z, y, mu


def _counts(d: _Model, use: np.ndarray, deadline: float | None) -> tuple[np.ndarray, float] | None:
    """The counts of the agents ``use`` (every one used, the others not) best for the program,
    each within its range, and the program's value; None when there are none."""
    from scipy import sparse

    idx = np.flatnonzero(use)
    h = _highs(idx.size, d.A.shape[0], d.dv[idx], (d.lo[idx].astype(float), d.hi[idx].astype(float)),
               (np.full(d.A.shape[0], -np.inf), d.C - d.B[:, idx].sum(axis=1)), sparse.csc_matrix(d.A[:, idx]))
    if not _run(h, deadline):
        return None
    z = np.zeros(d.dv.size)
    z[idx] = np.asarray(h.getSolution().col_value, dtype=float)
    return z, float(d.dv[idx] @ z[idx] - d.f[idx].sum())


def used_sets(d: _Model, y: np.ndarray, deadline: float | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Step 1 of the module's method: from the hull program's ``y``, sets of used agents (every
    agent with ``y = 1``, and every subset of those with a fractional ``y`` when at most
    :data:`_SUBSETS` have one, else a greedy pass that flips them one by one); the best
    :data:`_PLANS` of them by the value of the program with those agents used, each with that
    program's counts (for :func:`rounded`)."""
    on = d.lo <= d.hi
    sure = on & ((y >= 1 - 1e-9) | ~d.off)
    frac = np.flatnonzero(on & ~sure & (y > 1e-9))
    tried: list[tuple[float, np.ndarray, np.ndarray]] = []

    def value(use: np.ndarray) -> float:
        out = _counts(d, use, deadline)
        if out is None:
            return -math.inf
        tried.append((out[1], use, out[0]))
        return out[1]

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
