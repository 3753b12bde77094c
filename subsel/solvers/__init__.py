"""One Solver interface and its backends (SPEC §1, §4).

Use :func:`get_solver` to create a backend by name and :func:`available_solvers` to list what works
on this machine.  Every backend returns a :class:`Solution` checked by ``problem.evaluate``.
"""
from .base import RawResult, Solution, Solver, SolverError, Status, UnsupportedExtensionError
from .registry import (
    ENTRY_POINT_GROUP,
    SOLVERS,
    SolverInfo,
    available_solvers,
    get_solver,
    register_solver,
    solver_info,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "SOLVERS",
    "RawResult",
    "Solution",
    "Solver",
    "SolverError",
    "SolverInfo",
    "Status",
    "UnsupportedExtensionError",
    "available_solvers",
    "get_solver",
    "register_solver",
    "solver_info",
]
