"""The known-quality subset-selection model (SPEC §1) and its declarative MILP formulations.

This subpackage imports nothing else of subsel: every other layer builds on it.
"""
from .problem import (
    EXTENSIONS,
    FEASIBILITY_TOL,
    Evaluation,
    Partition,
    SubsetSelectionProblem,
)

__all__ = [
    "EXTENSIONS",
    "FEASIBILITY_TOL",
    "Evaluation",
    "Partition",
    "SubsetSelectionProblem",
]
from .formulations import LinearForm, LinearRow, linear_form, to_ortools, to_pulp, write_lp, write_mps

__all__ += ["LinearForm", "LinearRow", "linear_form", "to_ortools", "to_pulp", "write_lp", "write_mps"]
from .knapsack import KnapsackInstance, read_knapsack, read_optimum

__all__ += ["KnapsackInstance", "read_knapsack", "read_optimum"]
from .instances import KNAPSACK_CLASSES, knapsack_instance

__all__ += ["KNAPSACK_CLASSES", "knapsack_instance"]
