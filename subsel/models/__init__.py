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
