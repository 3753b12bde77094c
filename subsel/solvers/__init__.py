"""One Solver interface and its backends for the subset-selection ILP (Deva, Abhishek, Gujar,
"A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS 2021, Section 3).

Use :func:`get_solver` to create a backend by name and :func:`available_solvers` to list what works
on this machine.  Every backend returns a :class:`Solution` checked by ``problem.evaluate``.
"""
from typing import TYPE_CHECKING

from .._extras import lazy_attribute
from .base import MAX_CUT_RANGE, RawResult, Solution, Solver, SolverError, Status, UnsupportedExtensionError
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

#: Names loaded from their module when first used: a solve needs neither the knapsack API, nor the
#: explanation of an infeasible answer until asked, nor the batch types (start-up of ``subsel solve``).
_LAZY = {
    "Conflict": "explain", "explain_infeasible": "explain", "constraint_families": "explain",
    "without_constraints": "explain", "EnumerationTooLargeError": "dpss",
    "MAX_KNAPSACK_TOTAL": "knapsack", "KnapsackSolution": "knapsack", "solve_knapsack": "knapsack",
    "RawBatch": "_batch", "SolutionBatch": "_batch",
}

if TYPE_CHECKING:  # the type checkers' and the API reference's view of the names above
    from ._batch import RawBatch, SolutionBatch
    from .dpss import EnumerationTooLargeError
    from .explain import Conflict, constraint_families, explain_infeasible, without_constraints
    from .knapsack import MAX_KNAPSACK_TOTAL, KnapsackSolution, solve_knapsack

__all__ = [
    "Conflict",
    "EnumerationTooLargeError",
    "constraint_families",
    "explain_infeasible",
    "without_constraints",
    "DEFAULT_SOLVER_PREFERENCE",
    "ENTRY_POINT_GROUP",
    "MAX_CUT_RANGE",
    "MAX_KNAPSACK_TOTAL",
    "KnapsackSolution",
    "SOLVERS",
    "RawBatch",
    "RawResult",
    "Solution",
    "SolutionBatch",
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


def __getattr__(name: str) -> object:
    """Load the names of ``_LAZY`` on first use (PEP 562)."""
    return lazy_attribute(__name__, _LAZY, globals(), name)
