"""Helpers shared by the decision tools: resolving a solver, summarising a selection."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..models import SubsetSelectionProblem
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


def check_problem(problem: Any) -> SubsetSelectionProblem:
    """``problem`` itself when it is a :class:`~subsel.models.SubsetSelectionProblem`, else TypeError."""
    if not isinstance(problem, SubsetSelectionProblem):
        raise TypeError(f"problem must be a SubsetSelectionProblem; got {type(problem).__name__}")
    return problem


def summary(sol: Solution) -> dict[str, Any]:
    """``objective, units, avg_quality, agents, status`` of a solution (NaN / 0 when it has no selection)."""
    if sol.is_feasible:
        x = sol.x
        return dict(objective=float(sol.objective), units=int(x.sum()), avg_quality=float(sol.avg_quality),
                    agents=int(np.count_nonzero(x)), status=sol.status.value)
    return dict(objective=float("nan"), units=0, avg_quality=float("nan"), agents=0, status=sol.status.value)
