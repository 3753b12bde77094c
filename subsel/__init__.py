"""subsel: subset selection under constraints.

Pick which agents (suppliers, sellers, features) to use when each has a quality and a cost and the
average quality of what is picked must stay above a threshold.  Subpackages:

- :mod:`subsel.models` — the known-quality integer program and its formulations;
- :mod:`subsel.solvers` — one :class:`~subsel.solvers.Solver` interface and its backends, and
  :func:`~subsel.solvers.solve_knapsack`, an exact integer knapsack solver;
- :mod:`subsel.decisions` — :func:`frontier`, :func:`alternatives` and :func:`payments`, loaded when
  first used;
- :mod:`subsel.reporting` — :func:`report`, a planner's report as one self-contained HTML file,
  loaded when first used.
"""
import importlib
from typing import TYPE_CHECKING

from ._extras import face_dir, lazy_attribute

#: Every name of the face, loaded from its subpackage when first used (PEP 562): ``import subsel`` loads
#: none of them, so a command or a program that needs only one part (the knapsack solver, say) pays
#: for that part alone at start-up.
_LAZY = {
    "Budget": "models", "Constraint": "models", "Demand": "models", "GroupLimit": "models",
    "LinearConstraint": "models", "MustNotTake": "models", "MustTake": "models", "QualityFloor": "models",
    "SubsetSelectionProblem": "models",
    "Solution": "solvers", "Solver": "solvers", "Status": "solvers", "available_solvers": "solvers",
    "get_solver": "solvers",
    "KnapsackSolution": "knapsack", "solve_knapsack": "knapsack",
    "frontier": "decisions", "alternatives": "decisions", "payments": "decisions", "report": "reporting",
}

#: The subpackages, reachable as attributes of ``subsel`` (each imported on first access).
_SUBPACKAGES = ("models", "solvers", "knapsack", "decisions", "reporting", "bandits", "evolution", "experiments")

if TYPE_CHECKING:  # the type checkers' and the API reference's view of the names above
    from .decisions import alternatives, frontier, payments
    from .knapsack import KnapsackSolution, solve_knapsack
    from .models import (
        Budget,
        Constraint,
        Demand,
        GroupLimit,
        LinearConstraint,
        MustNotTake,
        MustTake,
        QualityFloor,
        SubsetSelectionProblem,
    )
    from .solvers import Solution, Solver, Status, available_solvers, get_solver

__version__ = "0.1.0"

__all__ = [
    "Budget",
    "Constraint",
    "Demand",
    "GroupLimit",
    "LinearConstraint",
    "MustNotTake",
    "MustTake",
    "QualityFloor",
    "KnapsackSolution",
    "Solution",
    "Solver",
    "Status",
    "SubsetSelectionProblem",
    "available_solvers",
    "get_solver",
    "solve_knapsack",
    "__version__",
    "alternatives",
    "frontier",
    "payments",
    "report",
]


def __getattr__(name: str) -> object:
    """Load the names of the face, and the subpackages themselves (``subsel.models`` after ``import
    subsel``), on first use (PEP 562)."""
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    return lazy_attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    """The names of the face and the subpackages, loaded or not (PEP 562)."""
    return face_dir(globals(), [*__all__, *_SUBPACKAGES])
