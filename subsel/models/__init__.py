"""The known-quality subset-selection model and its declarative MILP formulations.

Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset Selection Under Constraints*
(AAMAS 2021), Section 3, with constraints as objects (:mod:`subsel.models.constraints`: any linear
constraint, further quality attributes) and qualities from inspection counts
(:meth:`SubsetSelectionProblem.from_counts`).  Every other layer builds on this subpackage; it
imports of subsel only the private helpers at the package root that sit below it (file handling,
argument checks, seeds).
This face lists what a user calls: the problem and the batch, the constraints, the readers and
writers, the formulations, the instance generators and the rules' constants.  The exact arithmetic
behind the rules (``subsel.models._rules``), the field checks (``subsel.models._checks``) and file
handling (``subsel._files``; :class:`InputError` stays here, users catch it) are private modules
that every layer imports from there.
"""
from typing import TYPE_CHECKING

from .._extras import face_dir, lazy_attribute

#: Every name of the face, loaded from its module when first used (PEP 562): a program that needs
#: one part of the model (the knapsack files, the arithmetic rules of the solvers' core) loads that
#: part alone, and a one-problem solve loads neither the batch of problems, nor the LP/MPS
#: formulations, nor the knapsack files and instance classes (start-up).
_LAZY = {
    "InputError": "._files", "EXTENSIONS": "_checks",
    "FEASIBILITY_TOL": "_rules", "MAX_COST": "_rules", "MAX_EXACT_INT": "_rules",
    "MAX_KNAPSACK_TOTAL": "_rules", "OPTIMALITY_RTOL": "_rules", "R_RANGE": "_rules",
    "group_limits_csv_text": "agents", "problem_from_table": "agents", "problem_to_csv_text": "agents",
    "read_agents": "agents", "read_group_limits": "agents", "selection_csv_text": "agents",
    "CONSTRAINT_KINDS": "constraints", "Constraint": "constraints", "ConstraintRow": "constraints",
    "LinearConstraint": "constraints", "QualityFloor": "constraints",
    "Budget": "keyword_constraints", "Demand": "keyword_constraints", "GroupLimit": "keyword_constraints",
    "MustNotTake": "keyword_constraints", "MustTake": "keyword_constraints",
    "GROUP_LIMIT_KEYS": "planner", "PLANNER_EXTENSIONS": "planner",
    "Evaluation": "problem", "SubsetSelectionProblem": "problem",
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
    from .._files import InputError
    from ._checks import EXTENSIONS
    from ._rules import FEASIBILITY_TOL, MAX_COST, MAX_EXACT_INT, MAX_KNAPSACK_TOTAL, OPTIMALITY_RTOL, R_RANGE
    from .agents import (
        group_limits_csv_text,
        problem_from_table,
        problem_to_csv_text,
        read_agents,
        read_group_limits,
        selection_csv_text,
    )
    from .batch import BatchEvaluation, BatchPartition, ProblemBatch
    from .constraints import CONSTRAINT_KINDS, Constraint, ConstraintRow, LinearConstraint, QualityFloor
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
    from .keyword_constraints import Budget, Demand, GroupLimit, MustNotTake, MustTake
    from .knapsack import KnapsackInstance, read_knapsack, read_optimum
    from .knapsack_encoding import IntegerKnapsack
    from .planner import GROUP_LIMIT_KEYS, PLANNER_EXTENSIONS
    from .problem import Evaluation, SubsetSelectionProblem

__all__ = [
    "EXTENSIONS",
    "CONSTRAINT_KINDS", "Constraint", "ConstraintRow", "LinearConstraint", "QualityFloor",
    "Budget", "Demand", "GroupLimit", "MustNotTake", "MustTake",
    "GROUP_LIMIT_KEYS",
    "PLANNER_EXTENSIONS",
    "FEASIBILITY_TOL",
    "MAX_COST",
    "MAX_EXACT_INT",
    "MAX_KNAPSACK_TOTAL",
    "OPTIMALITY_RTOL",
    "R_RANGE",
    "Evaluation",
    "SubsetSelectionProblem",
    "BatchEvaluation", "BatchPartition", "ProblemBatch",
    "LinearForm", "LinearRow", "linear_form", "to_ortools", "to_pulp", "variable_names", "write_lp", "write_mps",
    "KnapsackInstance", "read_knapsack", "read_optimum", "IntegerKnapsack",
    "KNAPSACK_CLASSES", "HARD_KNAPSACK_CLASSES", "knapsack_instance",
    "PLANNER_REGIONS", "PLANNER_LOT_SIZES", "planner_instance", "planner_plan",
    "InputError", "read_agents", "read_group_limits", "group_limits_csv_text",
    "problem_from_table", "problem_to_csv_text", "selection_csv_text", "lp_text", "mps_text",
]


def __getattr__(name: str) -> object:
    """Load the names of ``_LAZY`` on first use (PEP 562)."""
    return lazy_attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    """The names of the face, loaded or not (PEP 562)."""
    return face_dir(globals(), __all__)
