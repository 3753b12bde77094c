"""``exact`` on one problem without each of many agents: the problem checked once.

Critical payments (Archer and Tardos, FOCS 2001, Section 4) ask the optimum without agent ``i`` for
every selected agent.  Written as a must-not-take list, each such problem is validated anew and
solved by the general path of :mod:`subsel.solvers.exact` (bounds per agent), which dominates the
cost of a small solve.  Here, with one unit per agent and no other extension, the partition of
Deva, Abhishek, Gujar (AAMAS 2021, Section 3), the start and the items are found once, and per agent
only the start without ``i``, the knapsack without ``i``'s item and the answer's check run.

The answer for agent ``i`` is the one :meth:`Exact.solve <subsel.solvers.exact.Exact.solve>` gives
for ``problem.with_changes(must_not_take=[i])``, bit for bit: that problem takes the general path
(a must-not-take list), whose start is S1 and S2 at their upper bounds (agent ``i`` at 0), whose
items are the S3 agents of ``r > 0`` and the S2 agents other than ``i`` (the same order, values and
weights), and whose capacity, knapsack call and bound are computed here by the same float sums over
arrays of length ``n``.  The model's rule is asked about the same selection on ``problem``, which
differs from the changed problem only by the bound ``x_i = 0`` that every selection built here
meets.  When the rule refuses the knapsack's answer (its float sums took it a hair over the bound),
agent ``i`` is solved by ``solve`` on the changed problem, which repairs it.
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

#: ``ndarray.sum`` of a 1-D array without its Python wrapper: the same pairwise sum, bit for bit.
_sum = np.add.reduce


def unit_exclusion_solver(solver: "Exact", problem: SubsetSelectionProblem,
                          anew: Callable[[int], Solution]) -> Callable[[int], Solution] | None:
    """A function solving ``problem`` without agent ``i`` as ``solver.solve`` does, or ``None``.

    Parameters
    ----------
    solver : Exact
        Its time and memory limits apply to each agent's solve.
    problem : SubsetSelectionProblem
        Validated.
    anew : callable
        ``anew(i)`` solves the changed problem through ``solve`` (bad indices, and the answers the
        model's rule refuses by a hair).

    Returns
    -------
    callable or None
        ``solve_without(i) -> Solution``; ``None`` when the changed problems need another route
        (several units per agent, must lists, budget, demand, the planner's fields, a knapsack
        beyond exact float64 arithmetic), where the caller solves each changed problem.
    """
    if problem._integer_rule is not None or problem._planner is not None or problem.added_constraints \
            or problem._max_capacity != 1 \
            or problem.must_take.size or problem.must_not_take.size or problem.budget is not None \
            or problem.demand is not None:
        return None
    q, r, margin = problem.quality, problem.utility, problem.quality_margin
    n = problem.n
    s1, s2, s3, _ = partition_masks(q, r, problem.alpha)
    start_all = (s1 | s2).astype(np.int64)
    add, remove = np.flatnonzero(s3 & (r > 0)), np.flatnonzero(s2)
    agents_all = np.concatenate((add, remove))
    sign_all = np.ones(agents_all.size, dtype=np.int64)
    sign_all[add.size:] = -1
    value_all, weight_all = np.abs(r[agents_all]), np.abs(margin[agents_all])
    item_of = np.full(n, -1, dtype=np.int64)  # the position of each agent's item, -1 without one
    item_of[agents_all] = np.arange(agents_all.size)
    memory = None if solver.memory_limit_mb is None else int(solver.memory_limit_mb * 2 ** 20)

    def solve_without(i: int) -> Solution:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
            return anew(i)  # the errors of with_changes
        start = time.perf_counter()
        deadline = None if solver.time_limit_s is None else start + solver.time_limit_s
        x0 = start_all.copy()
        x0[i] = 0
        agents, sign, values, weights = agents_all, sign_all, value_all, weight_all
        at = int(item_of[i])
        if at >= 0:
            agents, sign = np.delete(agents, at), np.delete(sign, at)
            values, weights = np.delete(values, at), np.delete(weights, at)
        surplus0 = float((x0 * margin).sum())
        if surplus0 < -FEASIBILITY_TOL:  # (the start's margins are >= 0) as ``solve`` decides it
            return anew(i)
        x0r = x0 * r
        base = float(_sum(x0r))
        capacity = relaxed_capacity(surplus0 + FEASIBILITY_TOL, x0, margin, weights)
        res = solve_knapsack(values, weights, capacity, deadline, memory)
        x = x0.copy()
        x[agents] += sign * res.take
        if float(problem.quality_surplus(x)) + FEASIBILITY_TOL < 0 or not problem.evaluate(x).feasible:
            return anew(i)  # the float sums took a selection over the bound: ``solve`` repairs it
        xr = x * r
        objective = float(_sum(xr))
        magnitude = float(_sum(np.abs(x0r))) + float(_sum(np.abs(xr))) + float(_sum(values))
        terms = 2 * (n + values.size)
        if res.optimal:
            raw = RawResult(x, Status.OPTIMAL, max(rounded_up(base + res.lp_bound, magnitude, terms), objective))
        else:
            raw = RawResult(x, Status.TIME_LIMIT, max(rounded_up(base + res.bound, magnitude, terms), objective))
        try:  # the answer check by the model's exact rule; x_i = 0 by construction
            return solver._finish(problem, raw._replace(backend_time_s=time.perf_counter() - start), start)
        except SolverError:  # the rule refuses the selection: ``solve`` answers on the changed problem
            return anew(i)

    return solve_without
