"""Solvers looked up by name (PuLP's ``getSolver`` / ``listSolvers`` pattern).

The registry maps a name to ``"module:Class"`` and loads the class only when it is needed, so an
optional backend whose library is missing never breaks ``import subsel`` and listing what works here
imports no backend that is heavy to load.  Three sources, in this order:

1. the backends of this package (``dpss``, ``gss``, ``exact``, ``cbc``, ``highs``,
   ``ortools-scip``, ``ortools-cpsat``);
2. plug-ins: the entry-point group ``subsel.solvers`` of every installed distribution, e.g. in a
   ``pyproject.toml``::

       [project.entry-points."subsel.solvers"]
       emsco = "subsel.evolution.genetic_solver:EMSCOSolver [evolution]"

   The optional ``[extra]`` names extras of the same distribution that the solver needs; the
   registry checks that their requirements are installed without importing anything.  When this
   package runs from a source tree (a checkout on ``PYTHONPATH``, or an editable install), the
   tree's own ``pyproject.toml`` is read for its entry points and extras instead of the installed
   metadata, which may be missing or stale;
3. :func:`register_solver` calls at run time.

This is how a layer above the solvers (EMSCO's genetic engine, a user's own backend) adds a solver
without :mod:`subsel.solvers` naming it.
"""
from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .._extras import MissingExtraError, install_hint, missing_modules
from .base import Solver

__all__ = ["DEFAULT_SOLVER_PREFERENCE", "ENTRY_POINT_GROUP", "SOLVERS", "SolverInfo", "available_solvers",
           "default_solver", "get_solver",
           "register_solver", "solver_info"]

#: The entry-point group read for plug-in solvers.
ENTRY_POINT_GROUP = "subsel.solvers"

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


@dataclass(frozen=True)
class _Entry:
    """One registered solver: where its class lives and what it needs (nothing imported)."""

    name: str
    target: str                      # "module:Class"
    modules: tuple[str, ...] = ()    # top-level import names that must be findable
    distributions: tuple[str, ...] = ()  # distributions that must be installed (from extras)
    extra: str | None = None         # the extra that installs them, for the error message
    probe: bool = False              # ask the class's available() when listing (cheap modules only)
    origin: str = "subsel.solvers"


# The backends of this package.  Their modules import their libraries lazily, so loading a class to
# run its own probe (PuLP finds CBC, the OR-Tools build has SCIP) is cheap: ``probe=True``.
_BUILTIN: dict[str, _Entry] = {e.name: e for e in (
    _Entry("dpss", "subsel.solvers.dpss:DPSS", probe=True),
    _Entry("gss", "subsel.solvers.gss:GSS", probe=True),
    _Entry("exact", "subsel.solvers.exact:Exact", probe=True),
    _Entry("cbc", "subsel.solvers.cbc:CBC", ("pulp",), probe=True),
    _Entry("highs", "subsel.solvers.highs:HiGHS", ("highspy",), probe=True),
    _Entry("ortools-scip", "subsel.solvers.ortools:ORToolsSCIP", ("ortools",), probe=True),
    _Entry("ortools-cpsat", "subsel.solvers.ortools:ORToolsCPSAT", ("ortools",), probe=True),
)}

#: Solvers added by :func:`register_solver`, in call order.
_REGISTERED: dict[str, _Entry] = {}


# ------------------------------------------------------------------------------------- plug-ins
@functools.lru_cache(maxsize=1)
def _plugins() -> tuple[_Entry, ...]:
    """Entry points of the ``subsel.solvers`` group (read once per process, by
    :mod:`subsel.solvers._plugins`: a solve by a built-in name loads neither it nor any metadata)."""
    from ._plugins import read_plugins

    return read_plugins(ENTRY_POINT_GROUP, _Entry, _BUILTIN, _NAME)


def _entries() -> dict[str, _Entry]:
    """Every registered solver, in table order: this package's, plug-ins, then run-time ones."""
    table = dict(_BUILTIN)
    for entry in _plugins():
        table.setdefault(entry.name, entry)
    for name, entry in _REGISTERED.items():
        table.setdefault(name, entry)
    return table


def _entry(name: str) -> _Entry:
    if not isinstance(name, str):
        raise TypeError(f"solver name must be a string; got {name!r}")
    key = name.strip().lower()
    entry = _BUILTIN.get(key) or _REGISTERED.get(key) or _entries().get(key)
    if entry is None:
        raise ValueError(f"unknown solver {name!r}; known solvers: {', '.join(_entries())}")
    return entry


class _SolverTable(Mapping[str, str]):
    """Read-only view ``name -> "module:Class"`` of every registered solver (plug-ins included)."""

    def __getitem__(self, name: str) -> str:
        return _entries()[name].target

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in _BUILTIN or name in _REGISTERED or name in _entries())

    def __iter__(self) -> Iterator[str]:
        return iter(_entries())

    def __len__(self) -> int:
        return len(_entries())

    def __repr__(self) -> str:
        return f"SOLVERS({dict(self)!r})"


#: Registry name -> ``"module:Class"``, in the order of ``subsel solvers``: this package's
#: backends, then plug-ins (entry points), then :func:`register_solver`.  Read-only.
SOLVERS: Mapping[str, str] = _SolverTable()


def register_solver(name: str, target: str, *, requires: Iterable[str] = (), extra: str | None = None) -> None:
    """Add a solver to the registry at run time, by the path of its class (nothing is imported).

    Parameters
    ----------
    name : str
        Registry name: lower case letters, digits, ``-``, ``_`` or ``.``, e.g. ``"my-solver"``.
    target : str
        ``"module:Class"``; the class must subclass :class:`~subsel.solvers.Solver`.  Imported by
        :func:`get_solver` or when a property of :func:`solver_info` that needs it is read.
    requires : iterable of str, optional
        Top-level modules the solver needs (e.g. ``["sklearn"]``); while one is missing, the solver
        is listed as not available and :func:`get_solver` raises :class:`ImportError`.
    extra : str, optional
        The extra of ``subsel`` that installs ``requires``, named in those messages.

    Raises
    ------
    ValueError
        Invalid name or target, or the name is already registered with another target.
    TypeError
        ``name`` or ``target`` is not a string.

    Examples
    --------
    >>> from subsel.solvers import register_solver, get_solver
    >>> register_solver("greedy-copy", "subsel.solvers.gss:GSS")
    >>> get_solver("greedy-copy").name
    'gss'
    """
    if not isinstance(name, str) or not isinstance(target, str):
        raise TypeError(f"name and target must be strings; got {name!r}, {target!r}")
    key = name.strip().lower()
    if not _NAME.match(key):
        raise ValueError(f"solver name {name!r} must be lower case letters, digits, '-', '_' or '.'")
    if not _TARGET.match(target.strip()):
        raise ValueError(f"target {target!r} must be 'module:Class', e.g. 'mypackage.solver:MySolver'")
    if isinstance(requires, str):
        requires = (requires,)
    entry = _Entry(key, target.strip(), tuple(requires) + (target.partition(".")[0].partition(":")[0],),
                   extra=extra, origin="register_solver")
    existing = _entries().get(key)
    if existing is not None:
        if existing.target == entry.target:
            return
        raise ValueError(f"solver {key!r} is already registered as {existing.target!r} ({existing.origin})")
    _REGISTERED[key] = entry


# ------------------------------------------------------------------------------------- lookup
def _missing(entry: _Entry) -> list[str]:
    """The libraries ``entry`` needs that are not installed (nothing is imported)."""
    out = missing_modules(*entry.modules)
    if entry.distributions:
        from importlib import metadata

        for dist in entry.distributions:
            try:
                metadata.distribution(dist)
            except metadata.PackageNotFoundError:
                out.append(dist)
    return out


def _missing_message(entry: _Entry, missing: list[str]) -> str:
    verb = "is" if len(missing) == 1 else "are"
    how = install_hint(entry.extra) if entry.extra else f"pip install {' '.join(missing)}"
    return f"needs {', '.join(missing)}, which {verb} not installed: {how}"


def _load(entry: _Entry) -> type[Solver]:
    module, _, cls_name = entry.target.partition(":")
    cls = getattr(importlib.import_module(module), cls_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Solver)):
        raise TypeError(f"solver {entry.name!r}: {entry.target} ({entry.origin}) is not a Solver subclass")
    return cls


class SolverInfo:
    """One row of the solver table (``subsel solvers``), computed lazily.

    ``name`` is known without importing anything; ``available`` / ``reason`` check that the
    libraries the solver needs are installed (without importing them) and, for this package's
    backends, run the backend's own check; ``exact``, ``complexity`` and ``supports`` load the
    solver's class the first time one of them is read.

    Attributes
    ----------
    name : str
    available : bool
    reason : str
        Why the backend is not available here ('' when it is).
    exact : bool
        Whether an ``optimal`` answer of this backend is proven.
    complexity : str
    supports : frozenset of str
        The problem extensions it handles.
    not_default_for : frozenset of str
        Extensions it handles but is not the default solver for (a later backend is faster there).
    caveat : str
        What the backend does not promise ('' for nothing), shown under the table.
    """

    def __init__(self, entry: _Entry):
        self._entry = entry
        self.name = entry.name

    def __repr__(self) -> str:
        return f"SolverInfo(name={self.name!r}, target={self._entry.target!r})"

    @functools.cached_property
    def _status(self) -> tuple[bool, str]:
        missing = _missing(self._entry)
        if missing:
            return False, _missing_message(self._entry, missing)
        if not self._entry.probe:
            return True, ""
        try:
            return self._class.available()
        except ImportError as exc:
            return False, f"import failed: {exc}"

    @functools.cached_property
    def _class(self) -> type[Solver]:
        return _load(self._entry)

    @property
    def available(self) -> bool:
        return self._status[0]

    @property
    def reason(self) -> str:
        return self._status[1]

    def _attribute(self, attr: str, default: Any) -> Any:
        if self._missing_libraries:
            return default
        try:
            return getattr(self._class, attr)
        except ImportError:
            return default

    @functools.cached_property
    def _missing_libraries(self) -> bool:
        return bool(_missing(self._entry))

    @property
    def exact(self) -> bool:
        return bool(self._attribute("exact", False))

    @property
    def complexity(self) -> str:
        return str(self._attribute("complexity", ""))

    @property
    def supports(self) -> frozenset[str]:
        return frozenset(self._attribute("supports", frozenset()))

    @property
    def not_default_for(self) -> frozenset[str]:
        return frozenset(self._attribute("not_default_for", frozenset()))

    @property
    def caveat(self) -> str:
        return str(self._attribute("caveat", ""))


def get_solver(name: str, **options: Any) -> Solver:
    """Create a solver by registry name.

    Parameters
    ----------
    name : str
        A key of :data:`SOLVERS` (case-insensitive), e.g. ``"dpss"``, ``"gss"``, ``"cbc"``.
    **options
        Constructor options: ``time_limit_s``, ``threads``, ``verbose`` (and the solver's own).

    Returns
    -------
    Solver

    Raises
    ------
    ValueError
        Unknown name, or the backend does not work on this machine (the message says why).
    ImportError
        A library the solver needs is not installed; the message names the ``pip install`` to run
        (e.g. ``pip install "subsel[evolution]"`` for ``emsco``).
    TypeError
        An option the solver does not take.

    Examples
    --------
    >>> from subsel.solvers import get_solver
    >>> get_solver("gss").name
    'gss'
    """
    entry = _entry(name)
    missing = _missing(entry)
    if missing:
        raise MissingExtraError(f"solver {entry.name!r} {_missing_message(entry, missing)}", name=missing[0])
    cls = _load(entry)
    ok, reason = cls.available()
    if not ok:
        raise ValueError(f"solver {name!r} is not available on this machine: {reason}")
    return cls(**options)


def solver_info(names: Iterable[str] | None = None) -> list[SolverInfo]:
    """Rows of the solver table, in table order; nothing is imported until a property needs it.

    Parameters
    ----------
    names : iterable of str, optional
        Only these solvers (in the order given); default every registered one.

    Raises
    ------
    ValueError
        An unknown name in ``names``.
    """
    if names is None:
        return [SolverInfo(e) for e in _entries().values()]
    return [SolverInfo(_entry(n)) for n in names]


#: The default solver: the first of these that is registered, available here and supports what the
#: problem uses (exact backends only; DPSS, exponential, comes last).
DEFAULT_SOLVER_PREFERENCE = ("exact", "highs", "cbc", "ortools-scip", "dpss")


def default_solver(extensions: Iterable[str] = ()) -> str:
    """The one default-solver rule: the first available of :data:`DEFAULT_SOLVER_PREFERENCE` that
    supports every extension in ``extensions`` and is not slower on one of them than a later
    backend (its ``not_default_for``: ``exact`` solves budgets, demands and group limits, but a MILP
    backend proves those optima sooner).

    Only the preferred backends are looked at, in order: nothing else is loaded.

    Parameters
    ----------
    extensions : iterable of str, optional
        The extensions the problem uses (``SubsetSelectionProblem.extensions``).

    Returns
    -------
    str
        A registry name.

    Raises
    ------
    LookupError
        No preferred backend is available here (or none supports ``extensions``).
    """
    needed = frozenset(extensions)
    for row in solver_info([name for name in DEFAULT_SOLVER_PREFERENCE if name in SOLVERS]):
        if row.available and needed <= row.supports and not needed & row.not_default_for:
            return row.name
    raise LookupError("no exact solver is available on this machine; see 'subsel solvers'")


def available_solvers() -> list[str]:
    """Names of the solvers that work on this machine, in table order (no heavy backend is imported)."""
    return [row.name for row in solver_info() if row.available]


def _reset_plugins() -> None:
    """Forget the entry points read so far (tests; after installing a plug-in in a running process)."""
    _plugins.cache_clear()

