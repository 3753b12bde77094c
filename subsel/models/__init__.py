"""The known-quality subset-selection model and its declarative MILP formulations.

Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset Selection Under Constraints*
(AAMAS 2021), Section 3, with constraints as objects (:mod:`subsel.models.constraints`: any linear
constraint, further quality attributes) and qualities from inspection counts
(:meth:`SubsetSelectionProblem.from_counts`).  Every other layer builds on this subpackage; it
imports of subsel only the private helpers at the package root that sit below it (file handling,
argument checks, seeds).
File handling (:class:`InputError`, :func:`read_csv`, the atomic writers) is re-exported here for
the callers that read agents files.
"""
from typing import TYPE_CHECKING

from .._extras import lazy_attribute
from .._files import CSVTable, InputError, atomic_write_text, atomic_write_with, read_csv
from .agents import (
    group_limits_csv_text,
    problem_from_table,
    problem_to_csv_text,
    read_agents,
    read_group_limits,
    selection_csv_text,
)
from .checks import EXTENSIONS, check_names, default_names
from .constraints import CONSTRAINT_KINDS, Constraint, ConstraintRow, LinearConstraint, QualityFloor
from .keyword_constraints import Budget, Demand, GroupLimit, MustNotTake, MustTake
from .planner import GROUP_LIMIT_KEYS, PLANNER_EXTENSIONS
from .problem import Evaluation, SubsetSelectionProblem
from .rules import (
    FEASIBILITY_TOL,
    MAX_COST,
    MAX_EXACT_INT,
    MAX_KNAPSACK_TOTAL,
    OPTIMALITY_RTOL,
    R_RANGE,
    Partition,
    dyadic,
    exact_total,
    exactly_shifted,
    linear_at_least,
    partition_masks,
    rounded_up,
    rounding_error,
    rounding_error_bound,
    rowdot,
    weighted_sum,
)

#: Names loaded from their module when first used: a one-problem solve needs neither the batch of
#: problems, nor the LP/MPS formulations, nor the knapsack files and instance classes (start-up).
_LAZY = {
    "BatchEvaluation": "batch", "BatchPartition": "batch", "ProblemBatch": "batch",
    "LinearForm": "formulations", "LinearRow": "formulations", "linear_form": "formulations",
    "lp_text": "formulations", "mps_text": "formulations", "to_ortools": "formulations", "to_pulp": "formulations",
    "variable_names": "formulations", "write_lp": "formulations", "write_mps": "formulations",
    "KNAPSACK_CLASSES": "instances", "HARD_KNAPSACK_CLASSES": "instances", "knapsack_instance": "instances",
    "PLANNER_REGIONS": "instances", "PLANNER_LOT_SIZES": "instances", "planner_instance": "instances",
    "planner_plan": "instances",
    "KnapsackInstance": "knapsack", "read_knapsack": "knapsack", "read_optimum": "knapsack",
    "IntegerKnapsack": "knapsack_encoding",
}

if TYPE_CHECKING:  # the type checkers' and the API reference's view of the names above
    from .batch import BatchEvaluation, BatchPartition, ProblemBatch
    from .formulations import (
        LinearForm,
        LinearRow,
        linear_form,
        lp_text,
        mps_text,
        to_ortools,
        to_pulp,
        variable_names,
        write_lp,
        write_mps,
    )
    from .instances import (
        HARD_KNAPSACK_CLASSES,
        KNAPSACK_CLASSES,
        PLANNER_LOT_SIZES,
        PLANNER_REGIONS,
        knapsack_instance,
        planner_instance,
        planner_plan,
    )
    from .knapsack import KnapsackInstance, read_knapsack, read_optimum
    from .knapsack_encoding import IntegerKnapsack

__all__ = [
    "EXTENSIONS",
    "CONSTRAINT_KINDS", "Constraint", "ConstraintRow", "LinearConstraint", "QualityFloor",
    "Budget", "Demand", "GroupLimit", "MustNotTake", "MustTake",
    "check_names",
    "default_names",
    "GROUP_LIMIT_KEYS",
    "PLANNER_EXTENSIONS",
    "FEASIBILITY_TOL",
    "MAX_COST",
    "MAX_EXACT_INT",
    "MAX_KNAPSACK_TOTAL",
    "OPTIMALITY_RTOL",
    "R_RANGE",
    "Evaluation",
    "Partition",
    "SubsetSelectionProblem",
    "exact_total",
    "exactly_shifted",
    "dyadic",
    "weighted_sum",
    "linear_at_least",
    "partition_masks",
    "rounding_error",
    "rounding_error_bound",
    "rounded_up",
    "BatchEvaluation", "BatchPartition", "ProblemBatch", "rowdot",
    "LinearForm", "LinearRow", "linear_form", "to_ortools", "to_pulp", "variable_names", "write_lp", "write_mps",
    "KnapsackInstance", "read_knapsack", "read_optimum", "IntegerKnapsack",
    "KNAPSACK_CLASSES", "HARD_KNAPSACK_CLASSES", "knapsack_instance",
    "PLANNER_REGIONS", "PLANNER_LOT_SIZES", "planner_instance", "planner_plan",
    "InputError", "CSVTable", "read_csv", "read_agents", "read_group_limits", "group_limits_csv_text",
    "atomic_write_text", "atomic_write_with",
    "problem_from_table", "problem_to_csv_text", "selection_csv_text", "lp_text", "mps_text",
]


def __getattr__(name: str) -> object:
    """Load the names of ``_LAZY`` on first use (PEP 562)."""
    return lazy_attribute(__name__, _LAZY, globals(), name)
