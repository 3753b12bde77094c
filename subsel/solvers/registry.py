"""Solvers looked up by name (STYLE.md item 5; PuLP's ``getSolver`` / ``listSolvers`` pattern).

The table maps a registry name to ``"module:Class"`` and is resolved lazily, so an optional backend
whose library is missing never breaks ``import subsel``, and a layer above (e.g. the evolutionary
heuristic) can be registered here without :mod:`subsel.solvers` importing it at import time.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from .base import Solver

#: Registry name -> "module:Class".  Order is the order of ``subsel solvers``.
SOLVERS: dict[str, str] = {
    "dpss": "subsel.solvers.dpss:DPSS",
    "gss": "subsel.solvers.gss:GSS",
    "exact": "subsel.solvers.exact:Exact",
    "cbc": "subsel.solvers.cbc:CBC",
    "highs": "subsel.solvers.highs:HiGHS",
    "ortools-scip": "subsel.solvers.ortools:ORToolsSCIP",
    "ortools-cpsat": "subsel.solvers.ortools:ORToolsCPSAT",
    # EMSCO's genetic engine (a layer above): resolved lazily, so subsel.solvers never imports it.
    "emsco": "subsel.evolution.ilp:EMSCOSolver",
}


@dataclass(frozen=True)
class SolverInfo:
    """One row of the solver table (``subsel solvers``).

    Attributes
    ----------
    name : str
    exact : bool
    complexity : str
    supports : frozenset of str
    available : bool
    reason : str
        Why the backend is not available here ('' when it is).
    """

    name: str
    exact: bool
    complexity: str
    supports: frozenset[str]
    available: bool
    reason: str


def _load(name: str) -> type[Solver]:
    if not isinstance(name, str):
        raise TypeError(f"solver name must be a string; got {name!r}")
    key = name.strip().lower()
    if key not in SOLVERS:
        raise ValueError(f"unknown solver {name!r}; known solvers: {', '.join(SOLVERS)}")
    module, _, cls = SOLVERS[key].partition(":")
    return getattr(importlib.import_module(module), cls)


def get_solver(name: str, **options: Any) -> Solver:
    """Create a solver by registry name.

    Parameters
    ----------
    name : str
        A key of :data:`SOLVERS` (case-insensitive), e.g. ``"dpss"``, ``"gss"``, ``"cbc"``.
    **options
        Constructor options: ``time_limit_s``, ``threads``, ``verbose``.

    Returns
    -------
    Solver

    Raises
    ------
    ValueError
        Unknown name, or the backend is not available on this machine (the message says why).
    TypeError
        An option the solver does not take.

    Examples
    --------
    >>> from subsel.solvers import get_solver
    >>> get_solver("gss").name
    'gss'
    """
    cls = _load(name)
    ok, reason = cls.available()
    if not ok:
        raise ValueError(f"solver {name!r} is not available on this machine: {reason}")
    return cls(**options)


def solver_info() -> list[SolverInfo]:
    """Every registered solver with its properties and whether it works here (the solver table)."""
    rows = []
    for name in SOLVERS:
        try:
            cls = _load(name)
            ok, reason = cls.available()
        except ImportError as exc:  # an optional library is missing
            rows.append(SolverInfo(name, False, "", frozenset(), False, f"import failed: {exc}"))
            continue
        rows.append(SolverInfo(name, cls.exact, cls.complexity, cls.supports, ok, reason))
    return rows


def available_solvers() -> list[str]:
    """Names of the solvers that work on this machine, in registry order."""
    return [row.name for row in solver_info() if row.available]
