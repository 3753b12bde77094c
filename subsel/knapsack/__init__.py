"""The integer knapsack: :func:`solve_knapsack`, exact on 0-1 and bounded knapsacks, and its answer
:class:`KnapsackSolution`.

The expanding-core dynamic program of Pisinger ("A minimal algorithm for the 0-1 knapsack problem",
Operations Research 45(5), 1997) with the bounds of combo (Martello, Pisinger, Toth, "Dynamic
programming and strong bounds for the 0-1 knapsack problem", Management Science 45(3), 1999),
compiled at install.  This package sits below :mod:`subsel.solvers`: the ``exact`` solver and the
subset-selection solvers built on it call its core, and :mod:`subsel.solvers` re-exports its face.
"""
from typing import TYPE_CHECKING

from .._extras import face_dir, lazy_attribute

try:
    from . import _knapsack_search  # noqa: F401  (the compiled search: it registers itself with the core)
except ModuleNotFoundError as _exc:     # the compiled kernel missing: sources not installed by pip
    if _exc.name != f"{__name__}._knapsack_core":
        raise
    raise ModuleNotFoundError(
        f"subsel's compiled knapsack kernel is not built in {__path__[0]}: these are sources that were not "
        "installed (a clone's folder shadows the installed package); run from another folder, or build it in "
        "place with pip install -e .", name=_exc.name) from None
from ._status import SolverError, Status

#: Names loaded from their module when first used (a solve that never calls the knapsack API does
#: not load it: start-up).  The face of the package for its users: :func:`solve_knapsack`,
#: :class:`KnapsackSolution`, :func:`check_options` and the limits; for the solvers built on the core
#: (``exact`` and its relatives in :mod:`subsel.solvers`): the core search on float or int64 data
#: (:func:`solve_core`, its :class:`KnapsackResult`), the binary split of bounded items, the
#: Pareto fronts of state lists, the kernel's unit selection (and the most agents it serves), the
#: rule among equal optima, and the capacity that makes a float knapsack a relaxation of the
#: feasibility rule.
_LAZY = {
    "FLOAT_EXACT_TOTAL": "solve", "MAX_KNAPSACK_TOTAL": "solve", "KnapsackSolution": "solve",
    "check_options": "_options", "solve_knapsack": "solve",
    "DEFAULT_MEMORY_LIMIT_MB": "_knapsack", "JIT_MAX_N": "_knapsack", "relaxed_capacity": "_knapsack",
    "KnapsackResult": "_knapsack", "binary_pieces": "_knapsack",
    "merge_fronts": "_knapsack", "pareto_front": "_knapsack", "solve_core": "_knapsack",
    "unit_selection": "_knapsack_core",
    "RuleStopped": "_ties", "lex_greatest": "_ties",
}

if TYPE_CHECKING:  # the type checkers' and the API reference's view of the names above
    from ._knapsack import (
        DEFAULT_MEMORY_LIMIT_MB,
        JIT_MAX_N,
        KnapsackResult,
        binary_pieces,
        merge_fronts,
        pareto_front,
        relaxed_capacity,
        solve_core,
    )
    from ._knapsack_core import unit_selection
    from ._options import check_options
    from ._ties import RuleStopped, lex_greatest
    from .solve import FLOAT_EXACT_TOTAL, MAX_KNAPSACK_TOTAL, KnapsackSolution, solve_knapsack

__all__ = [
    "DEFAULT_MEMORY_LIMIT_MB",
    "FLOAT_EXACT_TOTAL",
    "JIT_MAX_N",
    "MAX_KNAPSACK_TOTAL",
    "KnapsackResult",
    "KnapsackSolution",
    "RuleStopped",
    "SolverError",
    "Status",
    "binary_pieces",
    "check_options",
    "lex_greatest",
    "merge_fronts",
    "pareto_front",
    "relaxed_capacity",
    "solve_core",
    "solve_knapsack",
    "unit_selection",
]


def __getattr__(name: str) -> object:
    """Load the names of ``_LAZY`` on first use (PEP 562)."""
    return lazy_attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    """The names of the face, loaded or not (PEP 562)."""
    return face_dir(globals(), __all__)
