"""An exact solver that scales: subset selection as a 0-1 knapsack (SPEC §1, "Reduction to knapsack").

Take S1 (and S4 at its lower bound); *complement* S2: start with all its units taken, so removing a
unit of agent ``j`` frees the loss ``-r_j > 0`` and costs ``q_j - alpha`` of quality surplus; S3 units
are items of weight ``alpha - q_i`` and value ``r_i``.  The capacity is the surplus of that starting
selection, ``d + sum_{S2} k_j (q_j - alpha)``.  Agents with several units are split into binary
pieces (1, 2, 4, ..., rest units), which keeps the item count at ``O(sum log k_i)`` and represents every
unit count exactly.  The knapsack is solved exactly by a dynamic program over an expanding core
around the break item (Pisinger's minknap; :mod:`subsel.solvers._knapsack`).
"""
from __future__ import annotations

import time

import numpy as np

from ..models import FEASIBILITY_TOL, SubsetSelectionProblem
from ._knapsack import solve_knapsack
from .base import RawResult, Solver, Status

#: How many times the capacity is tightened when a solution fails the final check (rounding).
_MAX_REPAIRS = 5


def _binary_pieces(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split ``free[i]`` units into pieces of 1, 2, 4, ... units plus a remainder.

    Parameters
    ----------
    free : ndarray of int64, shape (g,)
        Units per agent (``>= 1``).

    Returns
    -------
    (owner, size) : two ndarrays of int64, shape (pieces,)
        Agent position (into ``free``) and unit count of each piece; the sizes of an agent's pieces
        sum to its ``free`` units and every count ``0..free`` is a sum of a subset of them.
    """
    owners, sizes = [np.arange(free.size)], [np.ones(free.size, dtype=np.int64)]
    left = free - 1
    step = 2
    while True:
        more = np.flatnonzero(left > 0)
        if more.size == 0:
            break
        size = np.minimum(left[more], step)
        owners.append(more)
        sizes.append(size)
        left[more] -= size
        step *= 2
    return np.concatenate(owners), np.concatenate(sizes)


class Exact(Solver):
    """Exact subset selection by reduction to a 0-1 knapsack and a core dynamic program.

    SPEC §1 "Reduction to knapsack"; Pisinger (1997), "A minimal algorithm for the 0-1 knapsack
    problem", Operations Research 45(5); Martello & Toth (1990), *Knapsack Problems*, Ch. 2.

    The answer is optimal among the selections that pass ``problem.evaluate`` (quality surplus
    ``>= -FEASIBILITY_TOL``): the tolerance is added to the knapsack capacity once, the data are never
    rounded, and the final selection is checked (and the capacity tightened, should rounding of the
    sums ever push it over).  Ties in utility within floating-point rounding of the sums may resolve to
    either selection.  On integer data (``SubsetSelectionProblem.from_knapsack`` with its power-of-two
    scale) every sum is exact and so is the optimum.

    ``bound`` is the value of the LP relaxation (Dantzig bound) of the reduced knapsack, the
    certificate of the gap closed; after a time limit it is the best proven bound (at most the LP
    value) and the status is ``time_limit``.

    Parameters
    ----------
    time_limit_s : float or None
        Stop after this many seconds with the best selection found (status ``time_limit``).
    threads, verbose
        Accepted for interface compatibility; the solver is single-threaded and silent.

    Notes
    -----
    Cost ``O(n log n)`` for the partition and the efficiency sort plus ``O(|core| * |states|)`` for the
    dynamic program; worst case pseudo-polynomial / exponential in the core size (as every exact
    knapsack method), in practice a core of tens to hundreds of items on random instances.  Supports
    ``must_take`` and ``must_not_take`` (as bounds on ``x``); budget and demand add a second constraint
    and are not supported.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, get_solver
    >>> p = SubsetSelectionProblem(quality=[1.0, 0.98, 0.97], cost=[0.9999, 0.73, 0.07], alpha=0.99)
    >>> sol = get_solver("exact").solve(p)
    >>> sol.x.tolist(), sol.status.value
    ([1, 1, 0], 'optimal')
    """

    name = "exact"
    exact = True
    supports = frozenset({"must_take", "must_not_take"})
    complexity = "O(n log n + core·states)"

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        start = time.perf_counter()
        deadline = None if self.time_limit_s is None else start + self.time_limit_s
        S1, S2, S3, S4 = problem.partition()
        lb, ub = problem.lower_bounds(), problem.upper_bounds()
        r, margin = problem.utility, problem.quality_margin
        # Starting selection: the largest surplus there is (S1, S2 at ub; S3, S4 at lb).
        x0 = lb.copy()
        x0[S1] = ub[S1]
        x0[S2] = ub[S2]
        # Elementwise products and sums, not BLAS dot products: a multi-threaded BLAS is slow on a
        # busy machine; the final check below uses the model's own quality_surplus.
        surplus0 = float((x0 * margin).sum())
        if surplus0 < -FEASIBILITY_TOL:
            return RawResult(None, Status.INFEASIBLE)
        # Items: S3 units to add (value r, weight alpha - q), S2 units to remove (value -r, weight
        # q - alpha); agents with zero value never help and are left at their start.
        agents = np.concatenate((S3, S2))
        sign = np.concatenate((np.ones(S3.size, dtype=np.int64), -np.ones(S2.size, dtype=np.int64)))
        free = ub[agents] - lb[agents]
        unit_value = np.abs(r[agents])
        unit_weight = np.abs(margin[agents])
        useful = (free > 0) & (unit_value > 0)
        agents, sign, free = agents[useful], sign[useful], free[useful]
        unit_value, unit_weight = unit_value[useful], unit_weight[useful]
        owner, size = _binary_pieces(free)
        values = unit_value[owner] * size
        weights = unit_weight[owner] * size
        base = float((x0 * r).sum())
        capacity = surplus0 + FEASIBILITY_TOL
        for _ in range(_MAX_REPAIRS):
            res = solve_knapsack(values, weights, capacity, deadline)
            x = x0.copy()
            units = np.bincount(owner[res.take], weights=size[res.take], minlength=agents.size)
            x[agents] += sign * np.rint(units).astype(np.int64)
            slack = float(problem.quality_surplus(x)) + FEASIBILITY_TOL
            if slack >= 0:
                break
            capacity += slack - 1e-15 * max(1.0, abs(capacity))  # rounding pushed it over: tighten
        else:  # pragma: no cover - never seen: fall back to the start, which is feasible
            return RawResult(x0, Status.TIME_LIMIT if deadline else Status.FEASIBLE, None)
        objective = float((x * r).sum())
        if res.optimal:
            # The LP value is the certificate; rounding of the sums may leave it a hair below.
            return RawResult(x, Status.OPTIMAL, max(base + res.lp_bound, objective))
        return RawResult(x, Status.TIME_LIMIT, max(base + res.bound, objective))
