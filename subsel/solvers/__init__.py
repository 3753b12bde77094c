"""One Solver interface and its backends for the subset-selection ILP (Deva, Abhishek, Gujar,
"A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS 2021, Section 3).

Use :func:`get_solver` to create a backend by name and :func:`available_solvers` to list what works
on this machine.  Every backend returns a :class:`Solution` checked by ``problem.evaluate``.
"""
from .base import RawResult, Solution, Solver, SolverError, Status, UnsupportedExtensionError
from .dpss import EnumerationTooLargeError
from .explain import Conflict, explain_infeasible
from .knapsack import MAX_KNAPSACK_TOTAL, KnapsackSolution, solve_knapsack
from .registry import (
    DEFAULT_SOLVER_PREFERENCE,
    ENTRY_POINT_GROUP,
    SOLVERS,
    SolverInfo,
    available_solvers,
    default_solver,
    get_solver,
    register_solver,
    solver_info,
)

__all__ = [
    "Conflict",
    "EnumerationTooLargeError",
    "explain_infeasible",
    "DEFAULT_SOLVER_PREFERENCE",
    "ENTRY_POINT_GROUP",
    "MAX_KNAPSACK_TOTAL",
    "KnapsackSolution",
    "SOLVERS",
    "RawResult",
    "Solution",
    "Solver",
    "SolverError",
    "SolverInfo",
    "Status",
    "UnsupportedExtensionError",
    "available_solvers",
    "default_solver",
    "get_solver",
    "register_solver",
    "solver_info",
    "solve_knapsack",
]
