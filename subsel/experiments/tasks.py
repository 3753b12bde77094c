"""Task functions shared by the comparison experiments (one task = one random instance, many solvers).

They live at module level so that joblib and Dask workers can import them by name.
"""
from __future__ import annotations

from typing import Any

from ..models import SubsetSelectionProblem
from ..models._rules import exact_total
from ..solvers import get_solver
from .runner import Task

__all__ = ["solve_instance"]

#: Solvers already warmed up in this process (see :func:`solve_instance`).
_WARM: set[str] = set()


def _warm_up(solver) -> None:
    """Solve one small instance, untimed, so imports and first-call costs miss the measured solves."""
    if solver.name not in _WARM:
        solver.solve(SubsetSelectionProblem.random(8, 0.5, rng=0))
        _WARM.add(solver.name)


def solve_instance(task: Task) -> list[dict[str, Any]]:
    """Draw the paper's random instance of a task and solve it with every listed solver.

    The instance is ``SubsetSelectionProblem.random(n, alpha, rng=task.seed, R=R)`` — ``q, c ~
    U[0, 1]`` (Deva et al., Section 6.1) — so ``subsel``'s user can rebuild it from the table's
    ``seed`` column.  Every solver sees the same instance, in the listed order, in the same process.

    Parameters
    ----------
    task : Task
        ``params``: ``n`` (int), ``alpha`` (float), ``solvers`` (list of registry names), optional
        ``R`` (float, default 1.0) and ``time_limit_s`` (float or None, passed to every solver).
        Before its first measured solve in a process, each solver solves one small instance untimed
        (imports, JIT-like first-call costs and subprocess start-up stay out of ``wall_time_s``).

    Returns
    -------
    list of dict
        One row per solver: ``solver, status, objective, avg_quality, wall_time_s,
        backend_time_s, overhead_time_s, bound, units`` (``units`` = number of units selected;
        ``backend_time_s`` is the time inside the backend's own solve and ``overhead_time_s`` what
        subsel adds around it, see :attr:`subsel.solvers.Solution.backend_time_s`).  A solver that
        raises gives a row with status ``error`` and NaN objective, so one failing backend never
        loses the others' rows.
    """
    p = task.params
    problem = SubsetSelectionProblem.random(int(p["n"]), float(p["alpha"]), rng=task.seed,
                                            R=float(p.get("R", 1.0)))
    options = {}
    if p.get("time_limit_s") is not None:
        options["time_limit_s"] = float(p["time_limit_s"])
    rows = []
    for name in p["solvers"]:
        solver = get_solver(name, **options)
        try:
            _warm_up(solver)
            sol = solver.solve(problem)
        except Exception as exc:  # keep the other solvers' rows; the status says what happened
            rows.append({"solver": name, "status": "error", "objective": float("nan"),
                         "avg_quality": float("nan"), "wall_time_s": float("nan"),
                         "backend_time_s": float("nan"), "overhead_time_s": float("nan"),
                         "bound": float("nan"), "units": 0, "error": f"{type(exc).__name__}: {exc}"})
            continue
        rows.append({"solver": name, "status": sol.status.value, "objective": float(sol.objective),
                     "avg_quality": float(sol.avg_quality), "wall_time_s": float(sol.wall_time_s),
                     "backend_time_s": float(sol.backend_time_s or 0.0),
                     "overhead_time_s": float(sol.overhead_time_s),
                     "bound": float("nan") if sol.bound is None else float(sol.bound),
                     "units": exact_total(sol.x), "error": ""})
    return rows
