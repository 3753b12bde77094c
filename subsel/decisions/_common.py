"""Helpers shared by the decision tools: resolving a solver, summarising a selection."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..models import PLANNER_EXTENSIONS, SubsetSelectionProblem
from ..solvers import Solution, Solver, get_solver


def as_solver(solver: str | Solver, *, need_exact: bool = False, what: str = "") -> Solver:
    """A :class:`~subsel.solvers.Solver` from a registry name or an instance.

    Raises
    ------
    TypeError
        ``solver`` is neither a name nor a Solver.
    ValueError
        ``need_exact`` and the solver does not prove optimality (``exact = False``); an unknown name
        (from :func:`~subsel.solvers.get_solver`).
    """
    if isinstance(solver, str):
        solver = get_solver(solver)
    elif not isinstance(solver, Solver):
        raise TypeError(f"solver must be a solver name or a Solver; got {type(solver).__name__}")
    if need_exact and not solver.exact:
        raise ValueError(f"solver {solver.name!r} does not prove optimality; {what} needs an exact solver "
                         "(see 'exact' in subsel.available_solvers())")
    return solver


def check_problem(problem: Any, what: str = "", planner: bool = True, hint: str = "") -> SubsetSelectionProblem:
    """``problem`` itself when it is a :class:`~subsel.models.SubsetSelectionProblem`.

    Raises
    ------
    TypeError
        Not a problem.
    ValueError
        A knapsack beyond exact float64 arithmetic (its integers decide feasibility); or
        ``planner=False`` and the problem uses a planner field (minimum orders, lot sizes, fixed
        costs, group limits) or a constraint object, which ``what`` does not handle: named (with ``hint``, what to do
        instead), rather than answered wrongly.
    """
    if not isinstance(problem, SubsetSelectionProblem):
        raise TypeError(f"problem must be a SubsetSelectionProblem; got {type(problem).__name__}")
    if problem._integer_rule is not None:  # its floats alone would call overweight selections feasible
        raise ValueError("problem is a knapsack beyond exact float64 arithmetic (its integers decide "
                         "feasibility, problem.knapsack): the decision tools work on floats; solve it with "
                         "get_solver('exact').solve or subsel.solve_knapsack")
    used = sorted(set(problem.extensions) & set(PLANNER_EXTENSIONS))
    if not planner and used:
        raise ValueError(f"{what} does not support the planner's {', '.join(used)}; "
                         + (hint or "solve the problem without them, or solve it directly with a MILP solver"))
    if not planner and problem.added_constraints:
        names = ", ".join(repr(c.name) for c in problem.added_constraints)
        raise ValueError(f"{what} does not support the constraint objects ({names}); "
                         + (hint or "solve the problem without them, or solve it directly with a MILP solver"))
    return problem


def summary(sol: Solution) -> dict[str, Any]:
    """``objective, units, avg_quality, agents, status`` of a solution (NaN / 0 when it has no selection)."""
    if sol.is_feasible:
        x = sol.x
        return dict(objective=float(sol.objective), units=int(x.sum()), avg_quality=float(sol.avg_quality),
                    agents=int(np.count_nonzero(x)), status=sol.status.value)
    return dict(objective=float("nan"), units=0, avg_quality=float("nan"), agents=0, status=sol.status.value)
