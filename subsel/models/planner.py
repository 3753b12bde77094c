"""The planner's fields of a problem: minimum orders, lot sizes, fixed order costs and agent groups.

The model of Deva, Abhishek, Gujar (AAMAS 2021), Section 3, lets an agent give any whole number of
units up to its capacity.  Supplier-selection models (Aissaoui, Haouari, Hassini, *Computers &
Operations Research* 34, 2007, Section 4: order quantities, set-up costs, supplier groups) add,
per agent ``i``:

* a minimum order ``m_i`` (``1 <= m_i <= k_i``): ``x_i = 0`` or ``x_i >= m_i``;
* a lot size ``l_i >= 1``: ``x_i`` is a multiple of ``l_i``;
* a fixed cost ``f_i >= 0``, paid once when ``x_i > 0``: the utility is
  ``sum_i r_i x_i - sum_i f_i [x_i > 0]`` and a budget counts ``sum_i c_i x_i + sum_i f_i [x_i > 0]``;
* a group label; per group ``g`` the limits ``min_units <= sum_{i in g} x_i <= max_units`` and
  ``min_agents <= sum_{i in g} [x_i > 0] <= max_agents`` (each optional).

This module validates these fields (:func:`check_planner`) and checks a selection against them
(:func:`planner_violations`); :meth:`SubsetSelectionProblem.evaluate` calls it, so the one
feasibility rule decides them too.
"""
from __future__ import annotations

import functools
import math
from typing import Any, Callable, Iterator, Mapping, NamedTuple

import numpy as np

from .._files import InputError
from .._validation import as_float_array, readonly
from .rules import MAX_EXACT_INT

__all__ = ["GROUP_LIMIT_KEYS", "PLANNER_EXTENSIONS", "PlannerFields", "check_planner", "planner_violations"]

#: Keys of one group's limits (units and agents of the group, each an optional integer bound).
GROUP_LIMIT_KEYS = ("min_units", "max_units", "min_agents", "max_agents")

#: The constraints the planner's fields add, as names of extensions (see ``EXTENSIONS``).
PLANNER_EXTENSIONS = ("min_units", "lot_size", "fixed_cost", "group_limits")

#: Largest fixed cost (as every per-unit cost; see ``MAX_COST`` of the problem module).
_MAX_FIXED_COST = 1e30


class FrozenMapping(Mapping[str, Any]):
    """A read-only mapping (picklable, unlike ``types.MappingProxyType``): the stored group limits.

    Compares equal to any mapping with the same items (``limits == {"north": {"max_agents": 2}}``).
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]):
        self._data = dict(data)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(self._data)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._data,))


class PlannerFields(NamedTuple):
    """The validated planner fields of a problem of ``n`` agents.

    Attributes
    ----------
    min_units : ndarray of int64, shape (n,)
    lot_size : ndarray of int64, shape (n,)
    fixed_cost : ndarray of float, shape (n,)
    group : tuple of (str or None), length n, or None
        None when no agent has a group.
    group_limits : mapping of str to mapping of str to int
        Per group, the limits given (keys among :data:`GROUP_LIMIT_KEYS`).
    group_index : ndarray of int64, shape (n,)
        Index of each agent's group in ``group_names``; -1 for no group.
    group_names : tuple of str
        The groups, in order of first appearance.
    used : frozenset of str
        The constraints in force, a subset of :data:`PLANNER_EXTENSIONS`.
    """

    min_units: np.ndarray
    lot_size: np.ndarray
    fixed_cost: np.ndarray
    group: tuple[str | None, ...] | None
    group_limits: Mapping[str, Mapping[str, int]]
    group_index: np.ndarray
    group_names: tuple[str, ...]
    used: frozenset[str]


@functools.lru_cache(maxsize=16)
def _constant(n: int, value: int | float) -> np.ndarray:
    """A shared read-only array of ``n`` copies of ``value`` (int64 for an int, else float)."""
    dtype = np.int64 if isinstance(value, int) else float
    return readonly(np.full(n, value, dtype=dtype), copy=False)


def _integers(values: Any, field: str, n: int) -> np.ndarray:
    """``values`` as int64, refusing non-integral, non-finite or too long / short input."""
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        values = [values] * n  # one number for every agent
    arr = as_float_array(values, field)
    if arr.size != n:
        raise ValueError(f"{field} has {arr.size} entries but quality has {n}; arrays must have the same length")
    bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))
    if bad.size:
        i = int(bad[0])
        raise InputError("must be an integer", column=field, row=i, value=float(arr[i]))
    if arr.size and np.abs(arr).max() > MAX_EXACT_INT:
        i = int(np.argmax(np.abs(arr)))
        raise InputError(f"must be at most 2^53 = {MAX_EXACT_INT}", column=field, row=i, value=float(arr[i]))
    return arr.astype(np.int64)


def _check_group_names(group: Any, n: int) -> tuple[str | None, ...] | None:
    if group is None:
        return None
    if isinstance(group, str):
        raise TypeError("group must be a sequence of labels (one per agent), not one string")
    labels = list(group)
    if len(labels) != n:
        raise ValueError(f"group has {len(labels)} entries but quality has {n}; arrays must have the same length")
    out: list[str | None] = []
    for i, g in enumerate(labels):
        if g is None or (isinstance(g, float) and math.isnan(g)):
            out.append(None)
            continue
        if isinstance(g, np.str_):
            g = str(g)
        if not isinstance(g, str):
            raise InputError("must be a text label (or None for no group)", column="group", row=i, value=g)
        g = g.strip()
        if not g.isprintable():
            raise InputError("must not hold control characters", column="group", row=i, value=g)
        out.append(g or None)  # an empty label (an empty CSV cell): no group
    return tuple(out) if any(g is not None for g in out) else None


def _check_limits(group_limits: Any, groups: tuple[str, ...]) -> Mapping[str, Mapping[str, int]]:
    if group_limits is None:
        return FrozenMapping({})
    if not isinstance(group_limits, Mapping):
        raise TypeError("group_limits must be a mapping {group: {key: limit}}; "
                        f"got {type(group_limits).__name__}")
    known = set(groups)
    out: dict[str, Mapping[str, int]] = {}
    for g, limits in group_limits.items():
        if g not in known:
            shown = f"the groups are: {', '.join(map(repr, groups[:5]))}" if groups else "no agent has a group"
            raise ValueError(f"group_limits: unknown group {g!r} (no agent is in it; {shown})")
        if not isinstance(limits, Mapping):
            raise TypeError(f"group_limits[{g!r}] must be a mapping with keys {', '.join(GROUP_LIMIT_KEYS)}; "
                            f"got {type(limits).__name__}")
        checked: dict[str, int] = {}
        for key, v in limits.items():
            if key not in GROUP_LIMIT_KEYS:
                raise ValueError(f"group_limits[{g!r}]: unknown key {key!r}; the keys are "
                                 f"{', '.join(GROUP_LIMIT_KEYS)}")
            if v is None:
                continue  # no limit
            if isinstance(v, (float, np.floating)) and math.isnan(v):
                raise ValueError(f"group_limits[{g!r}][{key!r}] is NaN; give None for no limit")
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(v) or v != int(v) or v < 0:
                raise ValueError(f"group_limits[{g!r}][{key!r}] must be a non-negative integer; got {v!r}")
            checked[key] = int(v)
        for what in ("units", "agents"):
            lo, hi = checked.get(f"min_{what}"), checked.get(f"max_{what}")
            if lo is not None and hi is not None and lo > hi:
                raise ValueError(f"group_limits[{g!r}]: min_{what} {lo} is above max_{what} {hi}")
        if checked:
            out[g] = FrozenMapping(checked)
    return FrozenMapping(out)


def _refuse(bad: np.ndarray, field: str, rule: Callable[[int], str], values: np.ndarray) -> None:
    """Raise an InputError for the first True of ``bad`` (``rule(i)`` says what is wrong)."""
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(rule(i), column=field, row=i, value=int(values[i]))


def _counts(values: Any, field: str, n: int, capacity: np.ndarray, minimum: np.ndarray | None) -> np.ndarray:
    """A minimum order (``minimum`` None) or a lot size (``minimum`` the minimum orders), checked."""
    if values is None:
        return _constant(n, 1)
    arr = _integers(values, field, n)
    _refuse(arr < 1, field, lambda i: "must be >= 1", arr)
    if minimum is None:
        _refuse(arr > capacity, field, lambda i: f"must be at most the capacity {int(capacity[i])}", arr)
    else:
        first = -(-minimum // arr) * arr  # the smallest allowed positive count
        _refuse(first > capacity, field, lambda i: "leaves no allowed positive count (no multiple of it lies in "
                f"[min_units, capacity] = [{int(minimum[i])}, {int(capacity[i])}])", arr)
    return readonly(arr, copy=False)


def check_planner(n: int, capacity: np.ndarray, min_units: Any, lot_size: Any, fixed_cost: Any,
                  group: Any, group_limits: Any) -> PlannerFields:
    """Validate the planner's fields of a problem of ``n`` agents.

    Parameters
    ----------
    n : int
    capacity : ndarray of int64, shape (n,)
        The validated capacities ``k``.
    min_units, lot_size : array-like of int, shape (n,), or int, or None
        ``1 <= m_i <= k_i``; ``l_i >= 1`` with a multiple of ``l_i`` in ``[m_i, k_i]``.  None: all 1.
    fixed_cost : array-like of float, shape (n,), or None
        ``0 <= f_i <= 1e30`` (revenue units); None: all 0.
    group : sequence of (str or None), length n, or None
        Group labels; None or an empty label: no group.
    group_limits : mapping or None
        ``{group: {key: limit}}`` with keys :data:`GROUP_LIMIT_KEYS` (None: no limit).

    Returns
    -------
    PlannerFields

    Raises
    ------
    ValueError
        Naming the field, the index or group and the value: a non-integral or non-finite count, a
        minimum below 1 or above the capacity, a lot size below 1 or leaving an agent no positive
        count, a negative or too large fixed cost, a group in the limits that no agent has, an
        unknown key, a negative or non-integral limit, a minimum above its maximum.
    TypeError
        ``group`` given as one string; ``group_limits`` not a mapping of mappings.
    """
    if min_units is None and lot_size is None and fixed_cost is None and group is None and group_limits is None:
        return unconstrained(n)  # the paper's model: nothing to check (the fixed cost of a small problem)
    used = set()
    m = _counts(min_units, "min_units", n, capacity, None)
    if min_units is not None and (m > 1).any():  # the defaults (None) are not scanned
        used.add("min_units")
    lot = _counts(lot_size, "lot_size", n, capacity, m)
    if lot_size is not None and (lot > 1).any():
        used.add("lot_size")
    if fixed_cost is None:
        f = _constant(n, 0.0)
    else:
        if isinstance(fixed_cost, (int, float, np.integer, np.floating)) and not isinstance(fixed_cost, bool):
            fixed_cost = [fixed_cost] * n
        f = as_float_array(fixed_cost, "fixed_cost")
        if f.size != n:
            raise ValueError(f"fixed_cost has {f.size} entries but quality has {n}; "
                             "arrays must have the same length")
        bad = np.flatnonzero(~np.isfinite(f) | (f < 0) | (f > _MAX_FIXED_COST))
        if bad.size:
            i = int(bad[0])
            raise InputError(f"must be >= 0 and at most {_MAX_FIXED_COST:g}", column="fixed_cost", row=i,
                             value=float(f[i]))
        f = readonly(f, copy=False)
        if (f > 0).any():
            used.add("fixed_cost")
    labels = _check_group_names(group, n)
    names = tuple(dict.fromkeys(g for g in labels if g is not None)) if labels is not None else ()
    if labels is None:
        index = _constant(n, -1)
    else:
        lookup = {g: j for j, g in enumerate(names)}
        index = readonly(np.array([-1 if g is None else lookup[g] for g in labels], dtype=np.int64), copy=False)
    limits = _check_limits(group_limits, names)
    if limits:
        used.add("group_limits")
    return PlannerFields(m, lot, f, labels, limits, index, names, frozenset(used))


@functools.lru_cache(maxsize=16)
def unconstrained(n: int) -> PlannerFields:
    """The fields of ``n`` agents none of which is given, as :func:`check_planner` makes them (shared:
    read-only arrays and an immutable mapping)."""
    return PlannerFields(_constant(n, 1), _constant(n, 1), _constant(n, 0.0), None, _check_limits(None, ()),
                         _constant(n, -1), (), frozenset())


def planner_violations(planner: PlannerFields, x: np.ndarray, names: Callable[[int], str]) -> list[str]:
    """The planner's constraints that the whole-number selection ``x`` breaks, one line each.

    Parameters
    ----------
    planner : PlannerFields
    x : ndarray of float, shape (n,)
        Whole numbers within ``[0, k]`` (bounds are checked elsewhere).
    names : callable
        The name of agent ``i`` (for the messages).

    Returns
    -------
    list of str
        Lines starting with the constraint's name: ``min_units``, ``lot_size`` (the group limits are
        constraint objects, :class:`~subsel.models.GroupLimit`).
    """
    out: list[str] = []
    if "min_units" in planner.used:
        short = np.flatnonzero((x > 0) & (x < planner.min_units))
        for i in short[:3].tolist():
            out.append(f"min_units: agent {i} ({names(i)!r}) has x = {x[i]:g} < min_units {planner.min_units[i]}")
    if "lot_size" in planner.used:
        off = np.flatnonzero(np.fmod(x, planner.lot_size) != 0)
        for i in off[:3].tolist():
            out.append(f"lot_size: agent {i} ({names(i)!r}) has x = {x[i]:g}, not a multiple of lot_size "
                       f"{planner.lot_size[i]}")
    return out
