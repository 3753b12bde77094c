"""The k best distinct selections, each proven best among those not yet listed.

Lawler, "A procedure for computing the K best solutions to discrete optimization problems and its
application to the shortest path problem", Management Science 18(7), 1972, with the partition of
Murty, "An algorithm for ranking all the assignments in order of increasing cost", Operations
Research 16(3), 1968, applied to the integer program of Deva, Abhishek, Gujar (AAMAS 2021,
Section 3).  A part of the search space is a box of bounds ``lo_i <= x_i <= hi_i``; its best selection
``x*`` comes from one solve; removing ``x*`` leaves disjoint boxes: for the free agents ``t`` in input
order, the agents before ``t`` fixed to ``x*``, agent ``t`` below or above ``x*_t``, the rest unchanged.
The best of all boxes not yet split is the next selection.  The boxes reach the solver through the
model's own fields (a bound ``x_i <= hi_i`` is a capacity or must-not-take, ``x_i >= lo_i`` is
``lo_i - 1`` must-take single units plus a must-take agent), so any solver that supports must lists
works, with the problem's budget and demand kept.
"""
from __future__ import annotations

import heapq
import itertools
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models import SubsetSelectionProblem
from ..solvers import Solver, Status
from ._common import as_solver, check_problem

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Columns of :func:`alternatives`, in order.
ALTERNATIVE_COLUMNS = ("rank", "objective", "units", "avg_quality", "agents", "status", "x")

#: Most single units a box may fix (lower bounds above 1 are spelled out as must-take units).
MAX_FIXED_UNITS = 100_000

#: Most selections of one exact utility enumerated to apply the tie rule.
MAX_TIES = 10_000


def _box_problem(problem: SubsetSelectionProblem, lo: np.ndarray, hi: np.ndarray
                 ) -> tuple[SubsetSelectionProblem, np.ndarray]:
    """The problem restricted to ``lo <= x <= hi``, and for each of its agents the original agent."""
    n = problem.n
    extra = np.maximum(lo - 1, 0)  # lower bounds above 1: that many single must-take units
    if int(extra.sum()) > MAX_FIXED_UNITS:
        raise ValueError(f"alternatives fixes more than {MAX_FIXED_UNITS} single units (capacities too large "
                         "for the enumeration); use smaller capacities")
    owner = np.concatenate([np.arange(n), np.repeat(np.arange(n), extra)])
    cap = np.concatenate([np.where(hi > 0, hi - extra, problem.capacity), np.ones(int(extra.sum()), dtype=np.int64)])
    m = owner.size
    must_take = np.concatenate([np.flatnonzero(lo >= 1), np.arange(n, m)])
    kwargs: dict[str, Any] = dict(quality=problem.quality[owner], cost=problem.cost[owner], alpha=problem.alpha,
                                  capacity=cap, R=problem.R, budget=problem.budget, demand=problem.demand,
                                  must_take=must_take, must_not_take=np.flatnonzero(hi == 0))
    if problem.objective_quality is not None:
        kwargs["objective_quality"] = problem.objective_quality[owner]
    return SubsetSelectionProblem(**kwargs), owner


def _exact_utility(problem: SubsetSelectionProblem, x: np.ndarray) -> Fraction:
    """``sum_i r_i x_i`` as an exact rational (the stored floats, no rounding): the ranking key."""
    r = problem.utility
    return sum((Fraction(float(r[i])) * int(x[i]) for i in np.flatnonzero(x)), Fraction(0))


def alternatives(problem: SubsetSelectionProblem, k: int, solver: str | Solver = "exact") -> "pd.DataFrame":
    """The ``k`` best distinct selections, in non-increasing utility.

    Lawler (Management Science 18(7), 1972) and Murty (Operations Research 16(3), 1968) ranking on
    the integer program of Deva, Abhishek, Gujar (AAMAS 2021, Section 3): each selection listed is
    the best (by the solver's proof, up to its optimality tolerance) of all feasible selections not
    listed before it.  Every model field the solver supports is kept (capacities, budget, demand,
    must lists).

    Tie rule: selections are ranked by their utility computed exactly from the stored numbers, and
    among selections of exactly equal utility the one whose unit vector ``x`` is lexicographically
    larger comes first (more units of the earlier agents, in input order).  All selections of the
    same utility are enumerated before any is listed, so the order does not depend on which optimum
    the solver returns.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    k : int
        How many selections, ``k >= 1``; fewer rows when fewer feasible selections exist.
    solver : str or Solver, default "exact"
        Name or instance; it must support ``must_take`` and ``must_not_take`` and the problem's
        extensions.  With a solver that does not prove optimality the status column says ``feasible``.

    Returns
    -------
    pandas.DataFrame, shape (min(k, number of feasible selections), 7)
        ``rank`` (1, 2, ...), ``objective`` (utility, revenue units), ``units``, ``avg_quality``,
        ``agents`` (agents with ``x_i > 0``), ``status`` (``optimal`` when proven best among the
        rest), ``x`` (read-only int64 ndarray of shape (n,): units per agent).

    Raises
    ------
    ValueError
        ``k`` not a positive integer; more than 100,000 single units fixed by the partition (very
        large capacities); more than 10,000 selections of one exact utility (the tie rule cannot be
        applied); an unknown solver or an unsupported extension.
    TypeError
        ``problem`` or ``solver`` of the wrong kind.

    Notes
    -----
    One solve per box: splitting a selection makes up to two boxes per free agent, so the cost is
    about ``2 k n`` solves of problems the size of ``problem``.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, alternatives
    >>> p = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.8)
    >>> alternatives(p, 3)[["rank", "objective", "agents"]].round(6).values.tolist()
    [[1.0, 1.05, 2.0], [2.0, 0.6, 1.0], [3.0, 0.45, 1.0]]
    """
    import pandas as pd

    problem = check_problem(problem, "alternatives", planner=False)
    solver = as_solver(solver)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    order = itertools.count()  # a unique last key, so the heap never compares arrays
    heap: list[tuple[Fraction, tuple[int, ...], int, np.ndarray, np.ndarray, np.ndarray]] = []
    proven = [True]

    def push(lo: np.ndarray, hi: np.ndarray) -> None:
        box, owner = _box_problem(problem, lo, hi)
        sol = solver.solve(box)
        if sol.status is Status.INFEASIBLE:
            return
        if sol.status is not Status.OPTIMAL or not solver.exact:
            proven[0] = False
        if not sol.is_feasible:
            return
        x = np.bincount(owner, weights=sol.x, minlength=problem.n).astype(np.int64)
        heapq.heappush(heap, (-_exact_utility(problem, x), tuple(-x), next(order), x, lo, hi))

    def split(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        lo, hi = lo.copy(), hi.copy()
        for t in np.flatnonzero(lo < hi):
            v = x[t]
            if v > lo[t]:
                below = hi.copy()
                below[t] = v - 1
                push(lo.copy(), below)
            if v < hi[t]:
                above = lo.copy()
                above[t] = v + 1
                push(above, hi.copy())
            lo[t] = hi[t] = v  # the boxes after this one agree with x on agent t

    push(problem.lower_bounds(), problem.upper_bounds())
    rows: list[dict[str, Any]] = []
    while heap and len(rows) < k:
        value = heap[0][0]
        group = []
        while heap and heap[0][0] == value:  # every selection of this exact utility, then the tie rule
            entry = heapq.heappop(heap)
            group.append(entry)
            if len(group) > MAX_TIES:
                raise ValueError(f"more than {MAX_TIES} selections have utility {float(-value)!r}; the tie "
                                 "rule cannot order them")
            split(entry[3], entry[4], entry[5])
        status = "optimal" if proven[0] else "feasible"
        for entry in sorted(group, key=lambda e: e[1])[:k - len(rows)]:
            x = entry[3]
            x.setflags(write=False)
            ev = problem.evaluate(x)
            rows.append(dict(rank=len(rows) + 1, objective=float(ev.utility), units=int(ev.units),
                             avg_quality=float(ev.avg_quality), agents=int(np.count_nonzero(x)), status=status,
                             x=x))
    return pd.DataFrame(rows, columns=list(ALTERNATIVE_COLUMNS))
