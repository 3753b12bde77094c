"""The known-quality subset-selection model and its declarative MILP formulations.

Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset Selection Under Constraints*
(AAMAS 2021), Section 3.  This subpackage imports nothing else of subsel: every other layer builds
on it.
"""
from .batch import BatchEvaluation, BatchPartition, ProblemBatch, rowdot
from .formulations import (
    LinearForm,
    LinearRow,
    linear_form,
    to_ortools,
    to_pulp,
    variable_names,
    write_lp,
    write_mps,
)
from .instances import KNAPSACK_CLASSES, knapsack_instance
from .io import CSVTable, InputError, atomic_write_text, atomic_write_with, read_agents, read_csv
from .knapsack import KnapsackInstance, read_knapsack, read_optimum
from .problem import (
    EXTENSIONS,
    FEASIBILITY_TOL,
    MAX_COST,
    MAX_EXACT_INT,
    OPTIMALITY_RTOL,
    R_RANGE,
    Evaluation,
    Partition,
    SubsetSelectionProblem,
    exact_total,
    weighted_sum,
)

__all__ = [
    "EXTENSIONS",
    "FEASIBILITY_TOL",
    "MAX_COST",
    "MAX_EXACT_INT",
    "OPTIMALITY_RTOL",
    "R_RANGE",
    "Evaluation",
    "Partition",
    "SubsetSelectionProblem",
    "exact_total",
    "weighted_sum",
    "BatchEvaluation", "BatchPartition", "ProblemBatch", "rowdot",
    "LinearForm", "LinearRow", "linear_form", "to_ortools", "to_pulp", "variable_names", "write_lp", "write_mps",
    "KnapsackInstance", "read_knapsack", "read_optimum",
    "KNAPSACK_CLASSES", "knapsack_instance",
    "InputError", "CSVTable", "read_csv", "read_agents", "atomic_write_text", "atomic_write_with",
]
