"""subsel: subset selection under constraints.

Pick which agents (suppliers, sellers, features) to use when each has a quality and a cost and the
average quality of what is picked must stay above a threshold.  Subpackages:

- :mod:`subsel.models` — the known-quality integer program and its formulations;
- :mod:`subsel.solvers` — one :class:`~subsel.solvers.Solver` interface and its backends, and
  :func:`~subsel.solvers.solve_knapsack`, an exact integer knapsack solver.
"""
from .models import SubsetSelectionProblem
from .solvers import KnapsackSolution, Solution, Solver, Status, available_solvers, get_solver, solve_knapsack

__version__ = "0.1.0"

__all__ = [
    "KnapsackSolution",
    "Solution",
    "Solver",
    "Status",
    "SubsetSelectionProblem",
    "available_solvers",
    "get_solver",
    "solve_knapsack",
    "__version__",
]
