"""Truthful payments to agents who report their own unit cost.

Myerson, "Optimal auction design", Mathematics of Operations Research 6(1), 1981, and Archer and Tardos,
"Truthful mechanisms for one-parameter agents", FOCS 2001: when an agent's units ``x_i(z)`` never rise
as its reported cost ``z`` rises (the others' reports fixed), paying it

    P_i = c_i x_i(c_i) + integral_{c_i}^{inf} x_i(z) dz

makes reporting the true cost a dominant strategy, and an honest agent never loses
(``P_i >= c_i x_i(c_i)``).  This is the mechanism Deva, Abhishek, Gujar (AAMAS 2021, Section 7) name as
future work for strategic agents.

Why the exact selection is monotone, and how the integral is found exactly: the optimum as a function
of agent i's report, ``V(z) = max_x [sum_{j != i} r_j x_j + (R q_i - z) x_i]``, is a maximum of lines
of slope ``-x_i`` over a feasible set that does not depend on ``z`` (without a budget).  So ``V`` is
convex and piecewise linear, and the units of any optimal selection at ``z`` are minus a slope of
``V`` at ``z``: non-increasing in ``z`` whichever optimum the solver picks among ties.  The steps of
``x_i(z)`` are the kinks of ``V``, found by the sandwich (Eisner-Severance) search: intersect the
lines known on both sides, solve there, and either the optimum lies on the two lines (a kink) or it
gives a new line in between.  Each step costs at most two solves; with unit capacities none beyond
the optimum without agent i (the critical cost is ``c_i + V(c_i) - V_{-i}``).

The planner's fields keep the argument: minimum orders, lot sizes and group limits restrict the
selections whatever the reports, and a fixed cost of using an agent (public, not reported) only
shifts each line; ``V`` stays a maximum of lines of slope ``-x_i``, and the search (which needs no
unit steps of size one: it probes wherever two known slopes differ by more than one) finds every
step of ``x_i(z)``, also the jump from 0 to a minimum order.

A budget ``sum c_i x_i <= B`` breaks this: the feasible set then depends on the reported costs and
the selection need not be monotone (a cheaper report can make a selection with fewer of the agent's
units affordable); :func:`payments` refuses it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..models import MAX_COST, OPTIMALITY_RTOL, SubsetSelectionProblem
from ..solvers import Solution, Solver, SolverError, Status
from ._common import as_solver, check_problem

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Columns of :func:`payments`, in order.
PAYMENT_COLUMNS = ("name", "units", "reported_cost", "payment", "payment_per_unit")


def _optimal(solver: Solver, problem: SubsetSelectionProblem, what: str) -> Solution | None:
    """The proven optimum of ``problem``; None when it is infeasible; ValueError on any other stop."""
    return _proven(solver, solver.solve(problem), what)


def _proven(solver: Solver, sol: Solution, what: str) -> Solution | None:
    """``sol`` when it is a proven optimum; None when infeasible; ValueError on any other stop."""
    if sol.status is Status.INFEASIBLE:
        return None
    if sol.status is not Status.OPTIMAL:
        raise ValueError(f"solver {solver.name!r} stopped with status {sol.status.value} on {what} "
                         "(no proven optimum); give it more time")
    return sol


def _check_monotone_model(problem: SubsetSelectionProblem) -> None:
    if problem.budget is not None:
        raise ValueError(f"budget {problem.budget:g}: critical payments need a selection that never gives an "
                         "agent more units for a higher reported cost, which a budget does not ensure (the "
                         "reported costs enter the budget row); solve without --budget / budget=None")


def unit_steps(problem: SubsetSelectionProblem, agent: int | str, solver: str | Solver = "exact",
               _base: Solution | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The step function ``x_i(z)``: agent i's units when it reports unit cost ``z >= c_i``.

    Found exactly by the sandwich search over the kinks of the convex optimum ``V(z)`` (see the
    module notes; Myerson 1981, Archer and Tardos 2001), never by sampling.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        Without a budget (the planner's fields allowed).  ``c_i`` is ``problem.cost[i]``, the
        others' costs stay fixed.
    agent : int or str
        Index or name of agent i.
    solver : str or Solver, default "exact"
        An exact solver supporting ``must_not_take`` (and the problem's other extensions).

    Returns
    -------
    breakpoints : ndarray of float, shape (s,)
        Increasing reports ``c_i <= z_1 < ... < z_s`` where the units drop; ``z_s`` may be ``inf``
        (the agent is needed at any cost: a must-take agent, or a demand only it can meet).
    units : ndarray of int64, shape (s + 1,)
        ``units[0]`` is the solver's ``x_i`` at ``c_i``, ``units[j]`` the units on ``(z_j, z_{j+1})``;
        ``units[-1] == 0``.

    Raises
    ------
    ValueError
        A budget; an infeasible problem; a solver that is not exact or stops without a proven optimum;
        an agent index or name that does not exist.
    """
    problem = check_problem(problem, "payments")
    solver = as_solver(solver, need_exact=True, what="payments")
    _check_monotone_model(problem)
    i = _agent_index(problem, agent)
    base = _base if _base is not None else _optimal(solver, problem, "the problem")
    if base is None:
        raise ValueError("the problem is infeasible: no selection, hence no payments")
    return _steps(problem, i, solver, base, solver.exclusion_solver(problem))


def _agent_index(problem: SubsetSelectionProblem, agent: int | str) -> int:
    if isinstance(agent, str):
        try:
            return problem.names.index(agent)
        except ValueError:
            raise ValueError(f"agent {agent!r} is not an agent name of the problem") from None
    if isinstance(agent, bool) or not isinstance(agent, (int, np.integer)) or not 0 <= agent < problem.n:
        raise ValueError(f"agent must be an index in 0..{problem.n - 1} or a name; got {agent!r}")
    return int(agent)


def _steps(problem: SubsetSelectionProblem, i: int, solver: Solver, base: Solution,
           solve_without: Callable[[int], Solution]) -> tuple[np.ndarray, np.ndarray]:
    c_i = float(problem.cost[i])
    s0 = int(base.x[i])
    if s0 == 0:  # units cannot rise with the report: 0 for every z > c_i
        return np.empty(0), np.array([0], dtype=np.int64)
    if i in problem.must_take:
        return np.array([np.inf]), np.array([s0, 0], dtype=np.int64)
    without = _proven(solver, solve_without(i), f"the problem without agent {problem.names[i]!r}")
    if without is None:  # no feasible selection without the agent: it gets units at any report
        return np.array([np.inf]), np.array([s0, 0], dtype=np.int64)
    cost = np.array(problem.cost, dtype=float)

    def solve_at(z: float) -> Solution:
        if not z <= MAX_COST:
            raise ValueError(f"agent {problem.names[i]!r}: a step of its units lies beyond the largest cost "
                             f"subsel handles ({MAX_COST:g}); rescale the money unit")
        cost[i] = z
        sol = _optimal(solver, problem.with_changes(cost=cost), f"agent {problem.names[i]!r} reporting {z!r}")
        if sol is None:  # the feasible set does not depend on the costs: the solver contradicts itself
            raise SolverError(f"solver {solver.name!r} calls the problem infeasible with agent "
                              f"{problem.names[i]!r} reporting {z!r}, but feasible at its reported cost")
        return sol

    # Lines of V(z) = v - s (z - z0), as (z0, v, s); left point at c_i, right the optimum without i.
    left = (c_i, float(base.objective), s0)
    right = (c_i, float(without.objective), 0)
    breaks: list[float] = []
    units: list[int] = [s0]
    stack = [(left, right)]
    while stack:  # depth first, left part first: the breakpoints come out in increasing order
        (za, va, sa), (zb, vb, sb) = stack.pop()
        z = za + (va - vb + sb * (za - zb)) / (sa - sb)  # where the two lines meet
        z = max(z, za) if not breaks else max(z, za, breaks[-1])
        if sa - sb > 1:  # an integer slope may lie strictly between: look at the meeting point
            mid = solve_at(z)
            vm, sm = float(mid.objective), int(mid.x[i])
            line = vb - sb * (z - zb)
            if vm > line + OPTIMALITY_RTOL * max(1.0, abs(line)) and sb < sm < sa:
                stack.append(((z, vm, sm), (zb, vb, sb)))
                stack.append(((za, va, sa), (z, vm, sm)))
                continue
        breaks.append(z)
        units.append(sb)
    return np.array(breaks, dtype=float), np.array(units, dtype=np.int64)


def _integral(c_i: float, breaks: np.ndarray, units: np.ndarray) -> float:
    """``integral_{c_i}^{inf} x_i(z) dz`` of the step function (inf when the last step never ends)."""
    if breaks.size == 0:
        return 0.0
    edges = np.concatenate(([c_i], breaks))
    return float(np.sum(units[:-1] * np.diff(edges)))


def payments(problem: SubsetSelectionProblem, solver: str | Solver = "exact") -> "pd.DataFrame":
    """Critical payments: what to pay each agent so that reporting its true cost is a dominant strategy.

    Agent i, selected for ``x_i(c_i)`` units at its reported unit cost ``c_i``, is paid
    ``c_i x_i(c_i) + integral_{c_i}^{inf} x_i(z) dz`` (Myerson, Mathematics of Operations Research
    6(1), 1981, Lemma 1; Archer and Tardos, FOCS 2001, Theorem 4.2), with the steps of ``x_i(z)``
    found exactly (:func:`unit_steps`).  The selection is the solver's optimum at the reported
    costs.  What holds: no agent gains by reporting another cost, and an honest agent's profit
    ``P_i - c_i x_i`` is never negative (individual rationality).  What does not: the payments can
    exceed the revenue (no budget balance); a must-take agent, or one without which a demand cannot
    be met, has an unbounded critical cost (payment ``inf``).  Deva, Abhishek, Gujar (AAMAS 2021,
    Section 7) name this mechanism design as their future work.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        Reported costs in ``problem.cost``; capacity, demand, must lists and the planner's fields
        (minimum orders, lot sizes, fixed costs, group limits) allowed; no budget.
    solver : str or Solver, default "exact"
        An exact solver (``exact = True``) supporting ``must_not_take`` and the problem's extensions
        (``exact`` takes every planner field, group limits and a demand included).

    Returns
    -------
    pandas.DataFrame, shape (n, 5)
        One row per agent in input order: ``name``, ``units`` (``x_i`` at the reports, int),
        ``reported_cost`` (``c_i``, per unit), ``payment`` (total, revenue units; 0 for agents not
        selected), ``payment_per_unit`` (``payment / units``; NaN when ``units == 0``).

    Raises
    ------
    ValueError
        A budget (monotonicity is not ensured); an infeasible problem; a solver that is not exact, or
        that stops without a proven optimum; a step beyond the largest cost subsel handles.
    TypeError
        ``problem`` or ``solver`` of the wrong kind.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, payments
    >>> p = SubsetSelectionProblem(quality=[0.9, 0.8, 0.7], cost=[0.3, 0.4, 0.6], alpha=0.8, names=["a", "b", "c"])
    >>> payments(p)[["name", "units", "payment"]].round(6).values.tolist()
    [['a', 1, 0.8], ['b', 1, 0.7], ['c', 0, 0.0]]
    """
    import pandas as pd

    problem = check_problem(problem, "payments")
    solver = as_solver(solver, need_exact=True, what="payments")
    _check_monotone_model(problem)
    base = _optimal(solver, problem, "the problem")
    if base is None:
        raise ValueError("the problem is infeasible: no selection, hence no payments")
    pay = np.zeros(problem.n)
    solve_without = solver.exclusion_solver(problem)  # the problem checked once for every agent
    for i in np.flatnonzero(base.x):
        breaks, units = _steps(problem, int(i), solver, base, solve_without)
        c_i = float(problem.cost[i])
        pay[i] = c_i * float(base.x[i]) + _integral(c_i, breaks, units)
    x = np.asarray(base.x, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_unit = np.where(x > 0, pay / np.maximum(x, 1), np.nan)
    data: dict[str, Any] = dict(name=list(problem.names), units=x, reported_cost=np.array(problem.cost, dtype=float),
                                payment=pay, payment_per_unit=per_unit)
    return pd.DataFrame(data, columns=list(PAYMENT_COLUMNS))
