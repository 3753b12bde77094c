"""One Solver interface and its backends for the subset-selection ILP (Deva, Abhishek, Gujar,
"A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS 2021, Section 3).

Use :func:`get_solver` to create a backend by name and :func:`available_solvers` to list what works
on this machine.  Every backend returns a :class:`Solution` checked by ``problem.evaluate``.
"""
from typing import TYPE_CHECKING, Any

from .._extras import face_dir, lazy_attribute
from .base import _SUPPLIED, MAX_CUT_RANGE, RawResult, Solution, Solver, SolverError, Status, UnsupportedExtensionError
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
    "RawBatch": "_batch", "SolutionBatch": "_batch",
}

if TYPE_CHECKING:  # the type checkers' and the API reference's view of the names above
    from ..knapsack import MAX_KNAPSACK_TOTAL, KnapsackSolution, solve_knapsack
    from ._batch import RawBatch, SolutionBatch
    from .dpss import EnumerationTooLargeError
    from .explain import Conflict, constraint_families, explain_infeasible, without_constraints

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


#: The knapsack package's face, re-exported here (and loaded, as ``_LAZY``, when first used).
_KNAPSACK = ("MAX_KNAPSACK_TOTAL", "KnapsackSolution", "solve_knapsack")


def __getattr__(name: str) -> object:
    """Load the names of ``_LAZY`` and ``_KNAPSACK`` on first use (PEP 562)."""
    if name in _KNAPSACK:
        from .. import knapsack
        globals()[name] = value = getattr(knapsack, name)
        return value
    return lazy_attribute(__name__, _LAZY, globals(), name)



# The code the solver interface calls but its module cannot import (``base._SUPPLIED``): the batch
# engine, the explanation of an infeasible answer and the aggregate refutation, each loaded when first
# called.
def _solve_batch(solver: Solver, batch: Any) -> Any:
    from ._batch import solve_batch

    return solve_batch(solver, batch)


def _solve_rows(solver: Solver, batch: Any) -> Any:
    from ._batch import solve_rows

    return solve_rows(solver, batch)


def _finish_batch(solver: Solver, batch: Any, raw: Any, start: float) -> Any:
    from ._batch import finish_batch

    return finish_batch(solver, batch, raw, start)


def _explain_infeasible(solver: Solver, problem: Any, deadline: float | None, verdict_s: float | None) -> Any:
    """The explanation of ``solver``'s infeasible answer by the deadline; without one, within the
    explanation's default time budget (of the verdict's ``verdict_s``), each part within its share."""
    import time

    from .explain import Questions, advice_time, explain_infeasible, explain_time

    if deadline is not None or verdict_s is None:
        return explain_infeasible(problem, Questions(solver, deadline))
    budget = explain_time(problem.n, verdict_s)
    return explain_infeasible(problem, Questions(solver, time.perf_counter() + budget),
                              advice_time(problem.n, verdict_s), default_budget_s=budget)


def _refutation(problem: Any) -> str | None:
    from ._feasibility import refutation

    return refutation(problem)


_SUPPLIED.update(solve_batch=_solve_batch, solve_rows=_solve_rows, finish_batch=_finish_batch,
                 explain_infeasible=_explain_infeasible, refutation=_refutation)


def __dir__() -> list[str]:
    """The names of the face, loaded or not (PEP 562)."""
    return face_dir(globals(), __all__)
