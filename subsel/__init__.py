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
from ._extras import lazy_attribute
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

#: Names loaded when first used: :mod:`subsel.decisions` and :mod:`subsel.reporting` (``import subsel``
#: loads neither), and the knapsack API through the solvers' face (it loads its module then).
_LAZY = {"frontier": "decisions", "alternatives": "decisions", "payments": "decisions", "report": "reporting",
         "KnapsackSolution": "solvers", "solve_knapsack": "solvers"}

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
    """Load :func:`frontier`, :func:`alternatives`, :func:`payments` and :func:`report` on first use
    (PEP 562)."""
    return lazy_attribute(__name__, _LAZY, globals(), name)
