"""``exact`` at many quality thresholds of one problem: the work that does not depend on alpha, once.

Deva, Abhishek, Gujar, AAMAS 2021, Section 3: only the quality constraint
``sum_i (q_i - alpha) x_i >= 0`` depends on the threshold.  At each alpha ``exact`` (one unit per
agent, no must lists) takes S1 and S2, and solves the 0-1 knapsack whose items are the S3 agents of
``r > 0`` (value ``r_i``, weight ``alpha - q_i``) and the S2 agents (value ``-r_i``, weight
``q_i - alpha``), of capacity the start's surplus plus the tolerance (:mod:`subsel.solvers.exact`).
Here the problem is validated and checked for the path once, the utilities and their magnitudes
are kept across thresholds, and per alpha only the partition, the knapsack and the answer's check
run.

The answer at each threshold is the one :meth:`Exact.solve <subsel.solvers.exact.Exact.solve>`
gives there, bit for bit: the same items in the same order, the same knapsack call, the same bound.
Two steps of a single solve are left out because they cannot change that answer here:

* the choice among the candidates ``x`` (the knapsack's), ``x0`` (the start) by their correctly
  rounded sums: with unit capacities ``x r`` is exact and ``x`` adds to ``x0`` only items of positive
  value, so the exact sum of ``x r`` is at least that of ``x0 r`` and, rounding being monotone, the
  start never wins;
* the check of the knapsack's answer by the model's exact rule before the answer check of
  ``solve``, which applies the same rule to the same selection: it is asked once.  When the rule
  refuses the selection (the float sums took it a hair over the bound), the threshold is solved by
  ``solve`` itself, which repairs it, as it is when ``solve`` would take another route.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..knapsack import relaxed_capacity
from ..knapsack import solve_core as solve_knapsack
from ..models import FEASIBILITY_TOL, SubsetSelectionProblem, partition_masks, rounded_up
from .base import RawResult, Solution, SolverError, Status

if TYPE_CHECKING:  # pragma: no cover
    from .exact import Exact


def unit_threshold_solver(solver: "Exact", problem: SubsetSelectionProblem
                          ) -> Callable[[float], Solution] | None:
    """A function solving ``problem`` at any threshold as ``solver.solve`` does, or ``None``.

    Parameters
    ----------
    solver : Exact
        Its time and memory limits apply to each threshold's solve.
    problem : SubsetSelectionProblem
        Validated; its own ``alpha`` is ignored.

    Returns
    -------
    callable or None
        ``solve_at(alpha) -> Solution`` (``alpha`` a float in [0, 1]; raises ``ValueError``
        otherwise, as :meth:`SubsetSelectionProblem.with_changes`); ``None`` when ``solve`` would take
        another route for ``problem`` (several units per agent, must lists, the planner's fields,
        the compiled kernel, the rule among equal optima), where the caller solves each threshold.
    """
    if problem._planner is not None or problem.added_constraints or problem._max_capacity != 1 \
            or problem.must_take.size or problem.must_not_take.size or solver.lexicographic \
            or (problem.n <= _jit_max_n() and solver._use_kernel()):
        return None
    solver.check_supported(problem)
    q, r = problem.quality, problem.utility
    n = problem.n
    positive = r > 0
    value_all = np.abs(r)
    memory = None if solver.memory_limit_mb is None else int(solver.memory_limit_mb * 2 ** 20)

    def solve_at(alpha: float) -> Solution:
        at = problem.with_changes(alpha=alpha)
        start = time.perf_counter()
        deadline = None if solver.time_limit_s is None else start + solver.time_limit_s
        margin = at.quality_margin
        s1, s2, s3, _ = partition_masks(q, r, at.alpha)
        x0 = (s1 | s2).astype(np.int64)
        add, remove = np.flatnonzero(s3 & positive), np.flatnonzero(s2)
        agents = np.concatenate((add, remove))
        sign = np.ones(agents.size, dtype=np.int64)
        sign[add.size:] = -1
        weights = np.abs(margin[agents])
        capacity = relaxed_capacity(float((x0 * margin).sum()) + FEASIBILITY_TOL, x0, margin, weights)
        values = value_all[agents]
        res = solve_knapsack(values, weights, capacity, deadline, memory)
        x = x0.copy()
        x[agents] += sign * res.take
        if float(at.quality_surplus(x)) + FEASIBILITY_TOL < 0:
            return solver.solve(at)  # the float sums took a selection over the bound: repair there
        x0r, xr = x0 * r, x * r
        objective = float(xr.sum())
        magnitude = float(np.abs(x0r).sum()) + float(np.abs(xr).sum()) + float(values.sum())
        terms = 2 * (n + values.size)
        base = float(x0r.sum())
        if res.optimal:
            raw = RawResult(x, Status.OPTIMAL, max(rounded_up(base + res.lp_bound, magnitude, terms), objective))
        else:
            raw = RawResult(x, Status.TIME_LIMIT, max(rounded_up(base + res.bound, magnitude, terms), objective))
        try:  # the answer check by the model's exact rule (one evaluation, as in ``solve``)
            return solver._finish(at, raw._replace(backend_time_s=time.perf_counter() - start), start)
        except SolverError:  # the rule refuses the selection by a hair: ``solve`` repairs it there
            return solver.solve(at)

    return solve_at


def _jit_max_n() -> int:
    """The most agents the compiled kernel serves (:data:`subsel.knapsack.JIT_MAX_N`)."""
    from ..knapsack import JIT_MAX_N

    return JIT_MAX_N
