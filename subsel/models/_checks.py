"""Checks of a problem's fields shared by the single problem and the batch: names and extensions.

:class:`~subsel.models.SubsetSelectionProblem` and :class:`~subsel.models.ProblemBatch` (whose rows
share their names, budget, demand and must lists) validate these fields here, so both say the same
thing about the same mistake.  The extensions (budget, demand, must-take and must-not-take lists)
go beyond the model of Deva, Abhishek, Gujar (AAMAS 2021), Section 3.
"""
from __future__ import annotations

import functools
import re
import sys
from typing import TYPE_CHECKING, Any, Callable, Sequence, overload

import numpy as np

from .._files import InputError
from .._validation import as_float_array as _as_float_array
from .._validation import check_scalar as _check_scalar
from .._validation import readonly as _readonly

if TYPE_CHECKING:  # pragma: no cover
    from .problem import SubsetSelectionProblem
from .constraints import CONSTRAINT_KINDS
from .planner import PLANNER_EXTENSIONS

__all__ = ["EXTENSIONS", "check_extensions", "check_names", "default_names"]

#: Control characters (C0, DEL, C1), refused in agent names: they break CSV files and terminals.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

#: Names of the optional constraints beyond the paper's model (the planner's fields, then the kinds
#: of constraint objects of :mod:`subsel.models.constraints`).
EXTENSIONS = ("budget", "demand", "must_take", "must_not_take", *PLANNER_EXTENSIONS, *CONSTRAINT_KINDS)


def _exact_numbers(values: Any, field_name: str) -> tuple[np.ndarray, list[int | float]]:
    """``values`` as a float array and as exact Python numbers (ints stay ints: 2^53 + 1 is not a
    float64 and must not be rounded before the range check)."""
    arr = _as_float_array(values, field_name)
    raw = values.tolist() if isinstance(values, np.ndarray) else list(values)
    exact = [v.item() if isinstance(v, np.generic) else v for v in raw]
    exact = [v if isinstance(v, int) else float(v) for v in exact]
    return arr, exact


def default_names(n: int) -> tuple[str, ...]:
    """The default agent names ``"0", "1", ..., str(n - 1)`` (the agents' indices as text).

    Parameters
    ----------
    n : int
        Number of agents.

    Returns
    -------
    tuple of str, length n
    """
    return tuple(map(str, range(n)))


def check_names(n: int, names: Any) -> tuple[str, ...] | None:
    """Validate agent names: ``n`` unique, non-empty strings without control characters.

    Parameters
    ----------
    n : int
        Number of agents.
    names : sequence of str or None
        ``None`` stands for the default names (:func:`default_names`) and is returned unchanged.

    Returns
    -------
    tuple of str, or None

    Raises
    ------
    TypeError
        One string instead of a sequence of strings.
    ValueError
        A length other than ``n``; a name that is not a string or an integer (``None``, bytes, a
        float); an empty name, a name with a control character or a repeated
        name (a :class:`~subsel.models.InputError` naming the index and the name).
    """
    if names is None:
        return None
    if isinstance(names, str):
        raise TypeError("names must be a sequence of strings, not one string")
    names = tuple(names)
    if not all(type(s) is str for s in names):  # numpy strings and integers (an index) are spelled
        for i, s in enumerate(names):            # as text; None, bytes, floats, booleans are refused
            if isinstance(s, (bool, np.bool_)) or not isinstance(s, (str, int, np.integer)):
                raise InputError("must be a string (or an integer)", column="names", row=i, value=s)
        names = tuple(map(str, names))
    if len(names) != n:
        raise ValueError(f"names has {len(names)} entries but quality has {n}; "
                         "arrays must have the same length")
    # One pass each over all the names; the offending name is looked for only when one fails.
    joined = "".join(names)
    control = not joined.isprintable() and _CONTROL.search(joined) is not None  # control => not printable
    blank = not all(map(str.strip, names))
    repeated = len(set(names)) != n
    if control or blank or repeated:
        seen: dict[str, int] = {}
        for i, s in enumerate(names):
            if not s.strip():
                raise InputError("must be a non-empty name", column="names", row=i, value=s)
            if control and _CONTROL.search(s):
                raise InputError("must not hold control characters (NUL, tab, line ends, ...)",
                                 column="names", row=i, value=s)
            if s in seen:
                raise InputError("duplicates {other}", column="names", row=i, value=s,
                                 other=seen[s])
            seen[s] = i
    return names


def check_extensions(n: int, names: Any, budget: Any, demand: Any, must_take: Any, must_not_take: Any
                     ) -> tuple[tuple[str, ...], float | None, int | None, np.ndarray, np.ndarray]:
    """Validate the fields shared by a problem's agents beyond the arrays: names and extensions.

    Used by :class:`SubsetSelectionProblem` and :class:`subsel.models.ProblemBatch` (whose rows
    share them), so both say the same thing about the same mistake.

    Returns
    -------
    (names, budget, demand, must_take, must_not_take)
        ``names`` a tuple of n strings (:func:`default_names` when ``names`` is None); the must
        lists as sorted unique int64 index arrays.

    Raises
    ------
    ValueError, TypeError
        As the constructor of :class:`SubsetSelectionProblem`.
    """
    checked = check_names(n, names)
    full = default_names(n) if checked is None else checked
    return (full, *_check_constraints(n, lambda: full, budget, demand, must_take, must_not_take))


#: The largest demand: beyond it the units have no float64 value (their sums and bounds are floats).
_MAX_DEMAND = int(sys.float_info.max)


def _check_constraints(n: int, get_names: Callable[[], tuple[str, ...]], budget: Any, demand: Any,
                       must_take: Any, must_not_take: Any
                       ) -> tuple[float | None, int | None, np.ndarray, np.ndarray]:
    """Validate budget, demand and the must lists (``get_names`` is called only to look up an agent
    given by name, or to name one in an error)."""
    demand_arg = demand
    budget = None if budget is None else _check_scalar(budget, "budget")
    if budget is not None and budget < 0:
        raise ValueError(f"budget must be >= 0; got {budget}")
    demand = None
    if demand_arg is not None:
        if isinstance(demand_arg, (int, np.integer)) and not isinstance(demand_arg, bool):
            d: float = int(demand_arg)  # exact: no detour through float for huge integers
        else:
            d = _check_scalar(demand_arg, "demand")
        if d < 0 or d != round(d):
            raise ValueError(f"demand must be a non-negative integer; got {demand_arg}")
        demand = int(d)
        if demand > _MAX_DEMAND:  # every sum and bound of the units is a float64
            raise ValueError(f"demand must be at most 1.79e308 (the largest float64); got a number of "
                             f"{len(str(demand)) if demand.bit_length() < 10000 else 'thousands of'} digits")
    must_take = _index_list(must_take, "must_take", n, get_names)
    must_not_take = _index_list(must_not_take, "must_not_take", n, get_names)
    both = np.intersect1d(must_take, must_not_take) if must_take.size and must_not_take.size else must_take[:0]
    if both.size:
        i = int(both[0])
        raise ValueError(f"agent {i} ({get_names()[i]!r}) is in both must_take and must_not_take")
    return budget, demand, must_take, must_not_take


def _index_list(value: Any, field_name: str, n: int, get_names: Callable[[], tuple[str, ...]]) -> np.ndarray:
    if value is None:
        return np.zeros(0, dtype=np.int64)
    if isinstance(value, (str, bytes)):
        value = [value]
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":  # already indices (e.g. a copy)
        if value.size and (value.min() < 0 or value.max() >= n):
            pos = int(np.flatnonzero((value < 0) | (value >= n))[0])
            raise InputError(f"must be an agent index in [0, {n - 1}]", column=field_name, row=pos,
                             value=int(value[pos]))
        return np.unique(value.astype(np.int64))
    index: dict[str, int] = {}
    out = []
    for pos, item in enumerate(value):
        if isinstance(item, str):
            if not index:
                index = {s: i for i, s in enumerate(get_names())}
            if item not in index:
                raise InputError("names no agent", column=field_name, row=pos, value=item)
            out.append(index[item])
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= int(item) < n:
                raise InputError(f"must be an agent index in [0, {n - 1}]", column=field_name,
                                 row=pos, value=item)
            out.append(int(item))
        else:
            raise TypeError(f"{field_name}[{pos}] must be an agent index or name; got {item!r}")
    return np.unique(np.array(out, dtype=np.int64))


def _used_extensions(model: Any) -> frozenset[str]:
    """The optional constraints a problem or a batch uses: ``budget``, ``demand``, ``must_take``,
    ``must_not_take`` (a subset of :data:`EXTENSIONS`)."""
    used = set()
    if model.budget is not None:
        used.add("budget")
    if model.demand is not None:
        used.add("demand")
    if model.must_take.size:
        used.add("must_take")
    if model.must_not_take.size:
        used.add("must_not_take")
    return frozenset(used)


@functools.lru_cache(maxsize=1)
def _unit_capacities(n: int) -> np.ndarray:
    """The default capacities, one unit per agent: a read-only int64 array of shape (n,).

    Shared by the problems of ``n`` agents that use the default (an immutable array can be), so
    building many problems of the same size, or one of 10^6 agents again, allocates it once.
    """
    return _readonly(np.ones(n, dtype=np.int64), copy=False)


class _Names:
    """The ``names`` field of :class:`SubsetSelectionProblem`: the default names are made lazily.

    A descriptor-typed dataclass field: the constructor's value is stored as given (``None`` for
    the default names) and :meth:`__post_init__` replaces given names by their validated tuple.
    The default names ``"0", "1", ...`` (:func:`default_names`) are built on first access and
    cached, so a problem of 10^6 agents whose names nobody reads (a solver, a bandit) never builds
    10^6 strings; writers, printing and lookups by name read them as a tuple like any other.
    """

    @overload
    def __get__(self, obj: None, owner: Any = None) -> None: ...

    @overload
    def __get__(self, obj: SubsetSelectionProblem, owner: Any = None) -> tuple[str, ...]: ...

    def __get__(self, obj: SubsetSelectionProblem | None, owner: Any = None) -> tuple[str, ...] | None:
        if obj is None:
            return None  # the field's default: the default names
        state = obj.__dict__
        names: tuple[str, ...] | None = state.get("_names")
        if names is None:
            names = state.get("_default_names")
            if names is None:
                names = default_names(obj.n)
                state["_default_names"] = names
        return names

    def __set__(self, obj: SubsetSelectionProblem, value: Sequence[str] | None) -> None:
        obj.__dict__["_names"] = value
