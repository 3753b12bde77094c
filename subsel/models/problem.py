"""The known-quality subset-selection problem (Deva, Abhishek, Gujar, AAMAS 2021, Section 3).

Agents ``i = 0..n-1`` have a quality ``q_i`` in [0, 1], a per-unit cost ``c_i >= 0`` and a capacity
``k_i`` (units).  The planner picks integer units ``0 <= x_i <= k_i`` to

    maximize   sum_i r_i x_i,          r_i = R q_i - c_i
    subject to sum_i (q_i - alpha) x_i >= 0      (average quality of the units >= alpha)

plus the optional extensions budget, demand and must-take / must-not-take lists.

The linear quality constraint is written once, here (:meth:`SubsetSelectionProblem.quality_surplus`),
and every answer of every solver is checked by :meth:`SubsetSelectionProblem.evaluate`.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence, overload

import numpy as np
import pandas as pd

from .._random import as_generator
from .._validation import as_float_array as _as_float_array
from .._validation import check_array_range, check_capacity
from .._validation import check_number as _check_scalar
from .._validation import readonly as _readonly
from .io import InputError

#: The one feasibility rule: an absolute tolerance on the left side of the linear constraints.
#: A selection ``x`` (integers, ``0 <= x_i <= k_i``) is feasible when, computed *exactly* from the
#: stored numbers, ``sum_i (q_i - alpha) x_i >= -FEASIBILITY_TOL`` and, with a budget,
#: ``sum_i c_i x_i <= B + FEASIBILITY_TOL`` (demand and must lists are integer rules, exact).
#: Every solver, batch check and test uses this rule (:meth:`SubsetSelectionProblem.evaluate`).
FEASIBILITY_TOL = 1e-9

#: Optimality tolerance: an ``optimal`` answer's utility is at least ``OPT - OPTIMALITY_RTOL * |OPT|``
#: (up to the rounding of its float sum), ``OPT`` the best utility of a feasible selection.
OPTIMALITY_RTOL = 1e-9

#: Largest capacity (and largest integer datum) subsel handles: every integer up to ``2**53`` is
#: exactly a float64, so unit counts, their sums of at most ``2**53`` and integer knapsack data stay
#: exact.  Larger values are refused (a silent wrap or rounding would change the problem).
MAX_EXACT_INT = 2 ** 53

#: Accepted range of ``R`` (revenue per good unit) and upper limit of every cost: wide enough for
#: every unit of money and for the knapsack encoding, narrow enough that every utility
#: ``R q_i - c_i`` times every capacity, and their sums, stay far from float64 overflow.
R_RANGE = (1e-12, 1e30)
MAX_COST = 1e30


#: Control characters (C0, DEL, C1), refused in agent names: they break CSV files and terminals.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

#: Names of the optional constraints beyond the paper's model.
EXTENSIONS = ("budget", "demand", "must_take", "must_not_take")


#: Length from which :func:`weighted_sum` avoids BLAS.  OpenBLAS runs ``ddot`` on one thread up
#: to n = 10^4 (fast: about 2 us) and starts its thread pool above that.
_BLAS_DOT_MAX_N = 8192


def weighted_sum(x: np.ndarray, v: np.ndarray, out: np.ndarray | None = None) -> np.floating | np.ndarray:
    """``sum_i x_i v_i`` for 1-D arrays, without multi-threaded BLAS on long vectors.

    ``x @ v`` on 1-D arrays calls BLAS ``ddot``; above n = 10^4 OpenBLAS runs it on several threads,
    which on a loaded machine was measured 70-140x slower than ``(x * v).sum()`` at n = 10^5
    (``benchmarks/bench_dot.py``), while below that ``x @ v`` is 2-3x faster.  Hence: ``x @ v`` up
    to n = 8192 (bit-for-bit the former results), an elementwise product and numpy's pairwise sum
    above.  Anything else (a batch ``x`` of shape (m, n), mismatched shapes) goes to ``x @ v``
    unchanged, with its results and its errors (``x * v`` would broadcast a wrong shape silently).

    Parameters
    ----------
    x : ndarray, shape (n,) (or (m, n): matrix product)
    v : ndarray, shape (n,)
    out : ndarray of float64, shape (n,), optional
        Scratch space for the elementwise product when n > 8192 (may be ``x`` or ``v`` itself,
        which is then overwritten): saves allocating, and faulting in, a fresh array.  The result
        is the same bit for bit.

    Returns
    -------
    numpy float (or ndarray of shape (m,) for a batch)
        ``x @ v``, up to the order of the additions when n > 8192.
    """
    if x.ndim == 1 and x.shape == v.shape:
        if x.size > _BLAS_DOT_MAX_N:
            if out is not None and out.shape == x.shape and out.dtype == np.float64:
                return np.multiply(x, v, out=out).sum()
            return (x * v).sum()
        # ndarray.dot is BLAS ddot as ``x @ v`` is (the same bits), without the ufunc machinery of
        # ``@`` (1.5 us per call on small vectors, against 0.4 us).
        return x.dot(v)
    return x @ v


def partition_masks(quality: np.ndarray, utility: np.ndarray, alpha: float | np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Boolean masks of the agent classes S1..S4 (Deva et al., Section 5.1), for any shape.

    The one place where the partition rule is written: :meth:`SubsetSelectionProblem.partition`,
    :meth:`subsel.models.ProblemBatch.partition` and the solvers built on them all call it.

    Parameters
    ----------
    quality, utility : ndarray, shape (n,) or (m, n)
        ``q`` and ``r = R q - c``.
    alpha : float or ndarray broadcastable against ``quality`` (e.g. shape (m, 1))

    Returns
    -------
    (s1, s2, s3, s4) : four disjoint boolean arrays shaped like ``quality``
        ``s1 = q >= alpha & r >= 0``, ``s2 = q > alpha & r < 0``, ``s3 = q < alpha & r >= 0`` and
        ``s4`` the rest (``q <= alpha & r < 0``): an agent with ``q == alpha`` goes to S1 when
        ``r >= 0`` and to S4 when ``r < 0``.
    """
    gain = utility >= 0
    s1 = (quality >= alpha) & gain
    s2 = (quality > alpha) & ~gain
    s3 = (quality < alpha) & gain
    s4 = ~(s1 | s2 | s3)
    return s1, s2, s3, s4


class Partition(NamedTuple):
    """Index arrays of the four agent classes (Deva et al., Section 5.1).

    Attributes
    ----------
    S1 : ndarray of int, shape (n1,)
        ``q >= alpha`` and ``r >= 0``: always take every unit.
    S2 : ndarray of int, shape (n2,)
        ``q > alpha`` and ``r < 0``: buy quality at a loss.
    S3 : ndarray of int, shape (n3,)
        ``q < alpha`` and ``r >= 0``: earn revenue, spend quality.
    S4 : ndarray of int, shape (n4,)
        ``q < alpha`` and ``r < 0`` (and ``q == alpha``, ``r < 0``): never take.
    """

    S1: np.ndarray
    S2: np.ndarray
    S3: np.ndarray
    S4: np.ndarray


class Evaluation(NamedTuple):
    """What a selection is worth and whether it is allowed.

    Attributes
    ----------
    utility : float
        ``sum r_i x_i`` (revenue units).
    avg_quality : float
        ``sum q_i x_i / sum x_i``; NaN when no unit is selected.
    units : int
        ``sum x_i``.
    feasible : bool
        True when ``violations`` is empty.
    violations : tuple of str
        One readable line per violated constraint (quality, budget, demand, capacity, must lists).
    """

    utility: float
    avg_quality: float
    units: int
    feasible: bool
    violations: tuple[str, ...]


#: Every float64 times 2**_DYADIC_SHIFT is an integer (the smallest subnormal is 2**-1074).
_DYADIC_SHIFT = 1074


def _dyadic(v: float) -> int:
    """``v * 2**1074`` as a Python int, exactly (every finite float64 is a dyadic rational)."""
    num, den = float(v).as_integer_ratio()
    return num * ((1 << _DYADIC_SHIFT) // den)


def linear_at_least(x: np.ndarray, coef: np.ndarray, shift: float, rhs: Sequence[float],
                    estimate: float | None = None, shifted: np.ndarray | None = None,
                    nonnegative: bool = False, work: np.ndarray | None = None,
                    magnitude: float | None = None) -> bool:
    """Decide exactly whether ``sum_i x_i (coef_i - shift) >= rhs_1 + rhs_2 + ...``.

    The left side is the real number given by the stored floats (no rounding); the decision uses
    the float sum and a rigorous bound on its rounding error, and exact integer arithmetic only
    when the float sum lies within that bound of the right side (so it costs two dot products in
    all but borderline cases).  This is how the one feasibility rule is checked.

    Parameters
    ----------
    x : ndarray of float, shape (n,)
        Whole numbers of absolute value at most ``2**53``.
    coef : ndarray of float, shape (n,)
    shift : float
        Subtracted from every coefficient (``alpha`` for the quality row, 0 for the budget).
    rhs : sequence of float
        Terms of the right side, added exactly.
    estimate : float, optional
        The float value of ``sum_i x_i fl(coef_i - shift)`` if already computed.
    shifted : ndarray of float, shape (n,), optional
        ``coef - shift`` as computed in float64 if already at hand (e.g. the problem's
        ``quality_margin``); it must be exactly that array.
    nonnegative : bool, default False
        True when every ``x_i >= 0`` is known (saves a pass).
    work : ndarray of float64, shape (n,), optional
        Scratch space (see :func:`weighted_sum`), overwritten.
    magnitude : float, optional
        The float value of ``sum_i |x_i| |fl(coef_i - shift)|`` if already computed.

    Returns
    -------
    bool
    """
    if shifted is not None:
        m = shifted
    elif estimate is None or magnitude is None:
        m = coef - shift if shift else coef
    s = float(weighted_sum(x, m)) if estimate is None else float(estimate)
    t = math.fsum(rhs)
    if magnitude is None:
        abs_m = np.abs(m) if work is None or work.shape != m.shape else np.abs(m, out=work)
        a = float(weighted_sum(x if nonnegative else np.abs(x), abs_m, out=work))
    else:
        a = float(magnitude)
    # Rounding of coef - shift (one ulp), of each product and of any summation order (n ulps),
    # of the right side (one ulp), plus an absolute floor for subnormal underflow.
    eps = 2.0 ** -52
    err = (x.size + 4) * eps * a * 1.01 + 2 * eps * abs(t) + 1e-300
    if s - err > t:
        return True
    if s + err < t:
        return False
    nz = np.flatnonzero(x)
    b = _dyadic(shift)
    left = sum(int(xi) * (_dyadic(ci) - b) for xi, ci in zip(x[nz].tolist(), coef[nz].tolist()))
    return left >= sum(_dyadic(v) for v in rhs)


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
        name (a :class:`~subsel.models.io.InputError` naming the index and the name).
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


@dataclass(frozen=True, eq=False)
class SubsetSelectionProblem:
    """An instance of known-quality subset selection (Deva et al., Section 3, eq. (1)).

    Immutable: arrays are stored as read-only copies and every field is validated at construction.

    Parameters
    ----------
    quality : array-like of float, shape (n,)
        ``q_i`` in [0, 1]: probability that one unit of agent ``i`` is good.
    cost : array-like of float, shape (n,)
        ``c_i >= 0``: cost per unit, in revenue units.
    alpha : float
        Quality threshold in [0, 1]: the average quality of the selected units must be ``>= alpha``.
    capacity : array-like of int, shape (n,), optional
        ``k_i >= 1`` units available from agent ``i``; default all 1.
    R : float, default 1.0
        Revenue per good unit (``R > 0``); per-unit utility is ``r_i = R q_i - c_i``.
    names : sequence of str, shape (n,), optional
        Unique, non-empty agent names; default ``"0", "1", ...`` (built when first read, see
        :func:`default_names`).
    budget : float, optional
        Extension: ``sum c_i x_i <= budget`` (``budget >= 0``).
    demand : int, optional
        Extension: ``sum x_i >= demand`` (may make the problem infeasible).
    must_take : sequence of int or str, optional
        Extension: agents (indices or names) with ``x_i >= 1``.
    must_not_take : sequence of int or str, optional
        Extension: agents (indices or names) with ``x_i = 0``.
    objective_quality : array-like of float, shape (n,), optional
        Qualities used in the objective only: ``r_i = R objective_quality_i - c_i``, while the
        quality constraint keeps using ``quality``.  Default ``None`` means ``quality`` (the paper's
        model).  Used by bandit policies that are optimistic in the objective but cautious in the
        constraint (UCB / LCB), and to minimise utility; every solver reads :attr:`utility`, so
        every solver handles it unchanged.

    Raises
    ------
    ValueError
        Naming the field, the first offending index and its value: NaN or infinite numbers, quality
        (or objective_quality) outside [0, 1], negative cost, capacity not a positive integer,
        alpha outside [0, 1], R <= 0, arrays of different lengths, no agents, empty or duplicate
        names, an agent in both must lists, an unknown agent in a must list, negative budget or
        demand.  An integer ``demand`` is kept exactly (no rounding through float).
    TypeError
        When a field is not of a numeric / sequence kind at all, or an array holds booleans
        (numpy would read ``True`` as 1.0; a boolean is never a quality, cost or capacity).

    Examples
    --------
    >>> from subsel.models import SubsetSelectionProblem
    >>> p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.2, 0.1], alpha=0.7)
    >>> p.utility.tolist()
    [0.7, 0.4]
    >>> p.evaluate([1, 1]).feasible
    True
    """

    # The annotations are the attributes' types once validated: ``__post_init__`` turns every input
    # (array-likes, None for a default) into these, so ``capacity``, ``names``, ``must_take`` and
    # ``must_not_take`` are never None on an instance although None is their constructor default.
    quality: np.ndarray
    cost: np.ndarray
    alpha: float
    capacity: np.ndarray = None  # type: ignore[assignment]
    R: float = 1.0
    names: _Names = _Names()
    budget: float | None = None
    demand: int | None = None
    must_take: np.ndarray = None  # type: ignore[assignment]
    must_not_take: np.ndarray = None  # type: ignore[assignment]
    objective_quality: np.ndarray | None = None
    _extras: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        q = _as_float_array(self.quality, "quality")
        c = _as_float_array(self.cost, "cost")
        n = q.size
        if n == 0:
            raise ValueError("quality must hold at least one agent; got 0 agents")
        if c.size != n:
            raise ValueError(f"cost has {c.size} entries but quality has {n}; arrays must have the same length")
        check_array_range(q, "quality", 0.0, 1.0, "in [0, 1]")
        if c.min() < 0 or c.max() > MAX_COST:  # one pass each; the rules and their messages below
            check_array_range(c, "cost", 0.0, rule=">= 0")
            check_array_range(c, "cost", high=MAX_COST, rule=f"at most {MAX_COST:g} (the range subsel handles "
                              "exactly)")
        if self.capacity is None:
            k = _unit_capacities(n)
        else:
            k = check_capacity(self.capacity)
            if k.size != n:
                raise ValueError(
                    f"capacity has {k.size} entries but quality has {n}; arrays must have the same length")
        alpha = _check_scalar(self.alpha, "alpha")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1]; got {alpha}")
        R = _check_scalar(self.R, "R")
        if R <= 0:
            raise ValueError(f"R must be > 0; got {R}")
        if not R_RANGE[0] <= R <= R_RANGE[1]:
            raise ValueError(f"R must be in [{R_RANGE[0]:g}, {R_RANGE[1]:g}] (the range subsel handles "
                             f"exactly; rescale the money unit); got {R}")
        names = check_names(n, self.__dict__["_names"])  # None: the default names, made when read
        budget, demand, must_take, must_not_take = _check_constraints(
            n, lambda: default_names(n) if names is None else names, self.budget, self.demand,
            self.must_take, self.must_not_take)
        set_("quality", _readonly(q, copy=False))
        set_("cost", _readonly(c, copy=False))
        set_("capacity", _readonly(k, copy=False))
        set_("alpha", alpha)
        set_("R", R)
        set_("names", names)
        set_("budget", budget)
        set_("demand", demand)
        set_("must_take", _readonly(must_take, copy=False))
        set_("must_not_take", _readonly(must_not_take, copy=False))
        if self.objective_quality is not None:
            oq = _as_float_array(self.objective_quality, "objective_quality")
            if oq.size != n:
                raise ValueError(f"objective_quality has {oq.size} entries but quality has {n}; "
                                 "arrays must have the same length")
            check_array_range(oq, "objective_quality", 0.0, 1.0, "in [0, 1]")
            set_("objective_quality", _readonly(oq, copy=False))

    @classmethod
    def _trusted(cls, quality: np.ndarray, cost: np.ndarray, alpha: float, capacity: np.ndarray, R: float,
                 names: tuple[str, ...], budget: float | None, demand: int | None, must_take: np.ndarray,
                 must_not_take: np.ndarray, objective_quality: np.ndarray | None) -> "SubsetSelectionProblem":
        """A problem from fields that are already valid (read-only arrays of the right shapes and
        kinds, as the constructor stores them): a row of a validated batch.  No checks."""
        self = object.__new__(cls)
        set_ = functools.partial(object.__setattr__, self)
        for key, value in (("quality", quality), ("cost", cost), ("alpha", alpha), ("capacity", capacity),
                           ("R", R), ("names", names), ("budget", budget), ("demand", demand),
                           ("must_take", must_take), ("must_not_take", must_not_take),
                           ("objective_quality", objective_quality), ("_extras", {})):
            set_(key, value)
        return self

    # ------------------------------------------------------------------ derived quantities
    @property
    def n(self) -> int:
        """Number of agents."""
        return int(self.quality.size)

    @functools.cached_property
    def utility(self) -> np.ndarray:
        """Per-unit utility ``r = R q - c``, read-only float array of shape (n,) (Deva et al., Section 3).

        ``q`` here is :attr:`objective_quality` when it is set, else :attr:`quality`.
        """
        q = self.quality if self.objective_quality is None else self.objective_quality
        return _readonly(self.R * q - self.cost)

    @functools.cached_property
    def quality_margin(self) -> np.ndarray:
        """``q - alpha``, shape (n,): the coefficients of the linear quality constraint (Deva et al., Section 3)."""
        return _readonly(self.quality - self.alpha)

    @property
    def extensions(self) -> frozenset[str]:
        """The optional constraints this instance uses, a subset of :data:`EXTENSIONS`."""
        return _used_extensions(self)

    def lower_bounds(self) -> np.ndarray:
        """Per-agent lower bound on ``x``: 1 for must-take agents, else 0. int64 array of shape (n,)."""
        lb = np.zeros(self.n, dtype=np.int64)
        lb[self.must_take] = 1
        return lb

    def upper_bounds(self) -> np.ndarray:
        """Per-agent upper bound on ``x``: 0 for must-not-take agents, else the capacity. Shape (n,)."""
        ub = np.array(self.capacity, dtype=np.int64)
        ub[self.must_not_take] = 0
        return ub

    def partition(self) -> Partition:
        """Split the agents into the classes S1..S4 (Deva et al., Section 5.1).

        Returns
        -------
        Partition
            Four disjoint sorted index arrays covering ``0..n-1``.  An agent with ``q == alpha`` goes
            to S1 when ``r >= 0`` and to S4 when ``r < 0`` (it adds nothing and costs).
        """
        return Partition(*(np.flatnonzero(m) for m in partition_masks(self.quality, self.utility, self.alpha)))

    def quality_surplus(self, x: np.ndarray) -> np.ndarray | np.floating[Any]:
        """Left side of the quality constraint, ``sum_i (q_i - alpha) x_i`` (Deva et al., Section 3, the linear form).

        Parameters
        ----------
        x : array-like, shape (n,) or (m, n)
            Selections (units per agent); a 2-D array is a batch of selections, one per row.

        Returns
        -------
        float or ndarray of shape (m,)
            The surplus; the selection satisfies the quality constraint when it is
            ``>= -FEASIBILITY_TOL``.
        """
        xa = np.asarray(x, dtype=float)
        if xa.ndim == 2:  # a batch: one matrix product
            return xa @ self.quality_margin
        return weighted_sum(xa, self.quality_margin)

    def evaluate(self, x: Sequence[int] | np.ndarray) -> Evaluation:
        """Utility, average quality and feasibility of a selection (Deva et al., Section 3, eq. (1)).

        **The feasibility rule** (one rule for every solver, batch check and test of subsel):
        ``x`` is feasible when

        * every ``x_i`` is a whole number with ``lb_i <= x_i <= ub_i`` (``0 <= x_i <= k_i``;
          ``x_i >= 1`` for must-take agents, ``x_i = 0`` for must-not-take agents);
        * ``sum_i (q_i - alpha) x_i >= -1e-9`` (:data:`FEASIBILITY_TOL`), the left side evaluated
          *exactly* from the stored float64 numbers ``q_i`` and ``alpha`` (no rounding: the float
          sum decides when it is clear of ``-1e-9`` by more than its proven rounding error, exact
          integer arithmetic otherwise);
        * with a budget, ``sum_i c_i x_i <= B + 1e-9``, likewise exactly;
        * with a demand, ``sum_i x_i >= D`` in integers.

        Why absolute and 1e-9: the left side of the quality row is a sum of quality surpluses in
        units of "good units", a scale that does not depend on the money unit ``R``; 1e-9 absorbs
        the rounding of data that were computed in floating point (e.g. ``0.7 + 0.1 - 0.8``) and is
        far below any meaningful quality difference, while a relative tolerance would let a large
        selection violate the average-quality constraint by a large absolute amount.  Deciding
        the rule exactly makes it a property of the problem, not of a summation order, so every
        backend solves the same problem and brute force can check them.

        An answer called ``optimal`` has a utility of at least ``OPT - 1e-9 |OPT|``
        (:data:`OPTIMALITY_RTOL`), ``OPT`` the best utility ``sum r_i x_i`` of a feasible
        selection, with ``r_i`` the stored :attr:`utility`.

        Parameters
        ----------
        x : array-like of int, shape (n,)
            Units taken from each agent.

        Returns
        -------
        Evaluation
            ``feasible`` is True when every rule above holds; ``violations`` names each constraint
            that fails; ``utility`` is the float sum ``sum r_i x_i``.

        Raises
        ------
        ValueError
            When ``x`` has the wrong shape or holds non-finite numbers.
        """
        if type(x) is np.ndarray and x.dtype.kind in "iu" and x.shape == (self.n,) and self.budget is None \
                and self.demand is None and not self.must_take.size and not self.must_not_take.size:
            quick = self._evaluate_integers(x)
            if quick is not None:
                return quick
        # Integer input (every solver's answer) is whole and finite: those two passes are skipped.
        integral = isinstance(x, np.ndarray) and x.dtype.kind in "iu"
        xa = np.asarray(x, dtype=float)
        if xa.shape != (self.n,):
            raise ValueError(f"x must have shape ({self.n},); got {xa.shape}")
        if not integral and not np.all(np.isfinite(xa)):
            i = int(np.flatnonzero(~np.isfinite(xa))[0])
            raise ValueError(f"x[{i}] must be a finite number; got {xa[i]}")
        violations: list[str] = []
        frac = np.zeros(0, dtype=np.intp) if integral else np.flatnonzero(xa != np.round(xa))
        if frac.size:
            i = int(frac[0])
            violations.append(f"integrality: x[{i}] = {xa[i]} is not an integer")
        low, high = float(xa.min()), float(xa.max())
        if low < 0:
            for i in np.flatnonzero(xa < 0)[:3]:
                violations.append(f"bounds: x[{int(i)}] = {xa[i]:g} is below 0")
        if high > 1:  # every capacity is at least 1
            for i in np.flatnonzero(xa > self.capacity)[:3]:
                violations.append(f"capacity: x[{int(i)}] = {xa[i]:g} exceeds capacity {self.capacity[i]}")
        for i in self.must_take[xa[self.must_take] < 1]:
            violations.append(f"must_take: agent {int(i)} ({self.names[i]!r}) has x = {xa[i]:g}")
        for i in self.must_not_take[xa[self.must_not_take] != 0]:
            violations.append(f"must_not_take: agent {int(i)} ({self.names[i]!r}) has x = {xa[i]:g}")
        largest = max(-low, high)  # max |x_i|
        # Scratch space for the products of the sums below (one array, not one per product).
        work = np.empty(xa.size) if xa.size > _BLAS_DOT_MAX_N else None
        if not frac.size and largest <= MAX_EXACT_INT:
            # The one feasibility rule, decided exactly (see FEASIBILITY_TOL).
            surplus = float(weighted_sum(xa, self.quality_margin, out=work))  # = quality_surplus(x)
            if not linear_at_least(xa, self.quality, self.alpha, (-FEASIBILITY_TOL,), estimate=surplus,
                                   shifted=self.quality_margin, nonnegative=low >= 0, work=work):
                violations.append(f"quality: sum (q - alpha) x = {surplus:.3g} < -{FEASIBILITY_TOL:g}")
            if self.budget is not None and not linear_at_least(
                    xa, -self.cost, 0.0, (-self.budget, -FEASIBILITY_TOL)):
                spent = float(weighted_sum(xa, self.cost))
                violations.append(f"budget: sum c x = {spent:.6g} > budget {self.budget:g}")
        if not frac.size and largest * self.n < 2.0 ** 62:
            # exact: every partial sum stays below 2**62
            units = int(xa.astype(np.int64).sum())
        else:
            total = math.fsum(xa)
            if frac.size or abs(total) >= 2.0 ** 62:
                units = int(round(total))  # not a valid selection anyway (or beyond any demand's reach)
            else:
                units = int(xa.astype(np.int64).sum())  # exact: every partial sum stays below 2**63
        if self.demand is not None and units < self.demand:
            violations.append(f"demand: sum x = {units} < demand {self.demand}")
        utility = float(weighted_sum(xa, self.utility, out=work))
        avg = float(weighted_sum(xa, self.quality, out=work) / units) if units > 0 else float("nan")
        return Evaluation(utility, avg, units, not violations, tuple(violations))

    def _evaluate_integers(self, x: np.ndarray) -> Evaluation | None:
        """:meth:`evaluate` of an integer array of shape (n,) on a problem without extensions, in a
        few whole-array operations (the fixed cost of checking a solver's answer on small problems).

        The same rule and the same float sums as the general path (bit for bit); ``None`` when ``x``
        is outside its bounds (the general path then names the violations) or when its units could
        pass 2^53.
        """
        n = x.size
        if n * self._max_capacity > MAX_EXACT_INT:
            return None
        # 0 <= x <= k in one pass: a negative int64 read as uint64 is above 2^63 > every capacity.
        xu = (x if x.dtype == np.int64 else x.astype(np.int64)).view(np.uint64)
        if self._max_capacity == 1:
            if int(xu.max()) > 1:  # a reduction, no boolean temporary
                return None
            units = int(np.count_nonzero(xu))
        elif np.greater(xu, self.capacity.view(np.uint64)).any():
            return None
        else:
            units = int(np.add.reduce(xu))  # exact: n * max capacity <= 2^53
        if n <= _BLAS_DOT_MAX_N:  # weighted_sum's short vectors: ndarray.dot, called directly
            xf = x.astype(float)
            dot = xf.dot
            surplus, magnitude = float(dot(self.quality_margin)), float(dot(self._abs_margin))
            utility, quality = float(dot(self.utility)), dot(self.quality)
        else:
            # Long vectors: one scratch array for the four products instead of four temporaries
            # (the float copy first: a product of float64s is twice as fast as int64 by float64).
            xf, work = x.astype(float), np.empty(n)
            surplus = float(weighted_sum(xf, self.quality_margin, out=work))
            magnitude = float(weighted_sum(xf, self._abs_margin, out=work))
            utility = float(weighted_sum(xf, self.utility, out=work))
            quality = weighted_sum(xf, self.quality, out=work)
        # x >= 0, so sum |x| |q - alpha| is x . |q - alpha|: the rounding-error bound of the surplus.
        feasible = linear_at_least(xf, self.quality, self.alpha, (-FEASIBILITY_TOL,), estimate=surplus,
                                   magnitude=magnitude)
        avg = float(quality / units) if units > 0 else float("nan")
        violations = () if feasible else (f"quality: sum (q - alpha) x = {surplus:.3g} < -{FEASIBILITY_TOL:g}",)
        return Evaluation(utility, avg, units, feasible, violations)

    @functools.cached_property
    def _abs_margin(self) -> np.ndarray:
        """``|q - alpha|``, shape (n,) (the rounding-error bound of the quality surplus)."""
        return _readonly(np.abs(self.quality_margin), copy=False)

    @functools.cached_property
    def _max_capacity(self) -> int:
        """Largest capacity."""
        return int(self.capacity.max())

    def with_changes(self, **changes: Any) -> "SubsetSelectionProblem":
        """Return a validated copy with some fields replaced (the problem itself never changes).

        Parameters
        ----------
        **changes
            Any constructor argument, e.g. ``quality=q_hat, alpha=0.75``.
        """
        base: dict[str, Any] = dict(quality=self.quality, cost=self.cost, alpha=self.alpha, capacity=self.capacity,
                    R=self.R, names=self.__dict__["_names"], budget=self.budget, demand=self.demand,
                    must_take=self.must_take, must_not_take=self.must_not_take,
                    objective_quality=self.objective_quality)
        base.update(changes)
        return SubsetSelectionProblem(**base)

    # ------------------------------------------------------------------ constructors and I/O
    @classmethod
    def random(cls, n: int, alpha: float, rng: int | np.random.Generator | None = None,
               R: float = 1.0) -> "SubsetSelectionProblem":
        """The paper's random instance: ``q, c ~ U[0, 1]`` i.i.d. (Deva et al., Section 6.1).

        Parameters
        ----------
        n : int
            Number of agents (``>= 1``).
        alpha : float
            Quality threshold in [0, 1].
        rng : int, numpy.random.Generator or None
            Seed or generator; ``q`` is drawn first, then ``c``.
        R : float, default 1.0
            Revenue per good unit.

        Raises
        ------
        ValueError
            When ``n < 1`` (and as the constructor).
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer; got {n!r}")
        g = as_generator(rng, "rng")
        q = g.random(int(n))
        c = g.random(int(n))
        return cls(quality=q, cost=c, alpha=alpha, R=R)

    @classmethod
    def from_knapsack(cls, values: Sequence[float] | np.ndarray, weights: Sequence[float] | np.ndarray,
                      capacity: float) -> "SubsetSelectionProblem":
        """Encode a 0-1 knapsack instance as subset selection (the reduction behind the exact solver).

        Agent 0 is an anchor with ``r = 0`` and ``q - alpha = W s``; agent ``j + 1`` is item ``j``
        with ``q - alpha = -w_j s`` and ``r = p_j``.  The scale ``s`` and ``alpha`` are powers of two
        (times small integers), so integer data stays exact in floating point.  An optimal
        selection's utility equals the knapsack optimum, and ``x[1:]`` is the knapsack's 0/1 vector.

        Parameters
        ----------
        values : array-like of float, shape (m,)
            Item profits ``p_j >= 0``.
        weights : array-like of float, shape (m,)
            Item weights ``w_j >= 0``.
        capacity : float
            Knapsack capacity ``W >= 0``.

        Returns
        -------
        SubsetSelectionProblem
            ``m + 1`` agents named ``anchor, item_0, ..., item_{m-1}``.

        Notes
        -----
        Feasibility is checked with the absolute tolerance 1e-9 on the scaled row, i.e. about
        ``1e-9 / s`` in knapsack weight units (``s <= 1 / (W + 3 max w)``, ``W`` capped at the total
        weight).  **Integer data are encoded exactly** and the encoding is checked: every profit is
        the stored utility of its agent, every sum of profits and of weights is at most ``2^53``,
        and one unit of weight (``s >= 2^-29``) lies above the tolerance, so that the optimum of the
        encoding is the knapsack optimum.  Real-valued data are encoded as floats: weight
        differences below ``1e-9 / s`` are not seen.

        Raises
        ------
        ValueError
            Negative or non-finite profits, weights or capacity; arrays of different lengths;
            integer data beyond the exact range (a sum of profits or weights above ``2^53``,
            naming the item where it crosses; ``W + 3 max w > 2^29``).
        """
        p = _as_float_array(values, "values")
        w = _as_float_array(weights, "weights")
        if p.size != w.size:
            raise ValueError(f"values has {p.size} entries but weights has {w.size}; arrays must have the same length")
        if p.size == 0:
            raise ValueError("values must hold at least one item; got 0 items")
        pw = np.concatenate((p, w))  # both at once: one pass per check
        if pw.min() < 0:
            for name, arr in (("values", p), ("weights", w)):
                bad = np.flatnonzero(arr < 0)
                if bad.size:
                    i = int(bad[0])
                    raise ValueError(f"{name}[{i}] must be >= 0; got {arr[i]}")
        if isinstance(capacity, (int, np.integer)) and not isinstance(capacity, bool) \
                and abs(int(capacity)) > MAX_EXACT_INT:
            raise ValueError(f"capacity must be at most 2^53 = {MAX_EXACT_INT} (the largest integer "
                             f"subsel handles exactly); got {int(capacity)}")
        W = _check_scalar(capacity, "capacity")
        if W < 0:
            raise ValueError(f"capacity must be >= 0; got {W}")
        # Whole numbers: the float64 values are integral exactly when the given numbers are (an int
        # beyond 2^53 rounds to another integer; its sum is then refused below).
        whole = W.is_integer() and not np.fmod(pw, 1.0).any()
        if whole:
            # Integer data are encoded exactly when every sum of profits and of weights is an
            # integer of at most 2^53 (a float64 holds each such integer).  A float sum of at most
            # 2^52 proves it (its rounding error is far below 2^52); otherwise the sums are run in
            # exact integers to name the item where they cross.
            for name, arr, given in (("values", p, values), ("weights", w, weights)):
                if float(arr.sum()) <= 2.0 ** 52:
                    continue
                total = 0
                for j, v in enumerate(_exact_numbers(given, name)[1]):
                    total += int(v)
                    if total > MAX_EXACT_INT:
                        raise InputError(f"brings the sum of {name} to {total} > 2^53 = {MAX_EXACT_INT}, "
                                         "beyond exact integer arithmetic in float64", column=name, row=j,
                                         value=int(v))
        # A capacity of at least the total weight lets every item in: the same feasible set.
        W = min(W, float(w.sum()))
        wmax = float(w.max()) if w.size else 0.0
        # alpha = 2 wmax s, so q_j = alpha - w_j s >= wmax s > 0 and q_anchor = alpha + W s <= 1.
        span = W + 3.0 * max(wmax, 0.0)
        s = 1.0 if span <= 0 else 2.0 ** math.floor(-math.log2(span))
        # With all weights 0 the items sit at q = alpha = 1/2; the anchor still needs W s <= 1/2.
        while (2.0 * wmax * s if wmax > 0 else 0.5) + W * s > 1.0:
            s /= 2.0
        if whole and s <= FEASIBILITY_TOL:
            # One unit of weight must weigh more than the tolerance, or an overweight selection
            # would pass the feasibility rule: s >= 2^-29 > 1e-9, i.e. W + 3 max w <= 2^29.
            raise ValueError(f"capacity + 3 * max(weights) = {span:.17g} exceeds 2^29 = {2 ** 29}: one unit "
                             f"of weight would fall below the feasibility tolerance {FEASIBILITY_TOL:g} "
                             "of the encoding (divide the weights and the capacity by a common factor, or solve the "
                             "integer knapsack directly with subsel.solve_knapsack)")
        alpha = 2.0 * wmax * s if wmax > 0 else 0.5
        q = np.empty(p.size + 1)
        q[0] = alpha + W * s  # the anchor
        q_items = np.subtract(alpha, np.multiply(w, s, out=q[1:]), out=q[1:])
        # R large enough that c_j = R q_j - p_j >= 0; a power of two keeps R q_j exact.
        ratio = float(np.max(p / q_items)) if p.size else 1.0
        R = 2.0 ** math.ceil(math.log2(max(ratio, 1.0)))
        c = R * q
        c[1:] -= p
        np.maximum(c, 0.0, out=c)
        names = ("anchor", *map("item_{}".format, range(p.size)))
        problem = cls(quality=q, cost=c, alpha=alpha, R=R, names=names)
        if whole:  # every number of the encoding is exact: check it, never trust it
            # q_j = alpha - w_j s exactly: alpha = 2 wmax s exactly, and q_j / s (exact: s is a
            # power of two) is the integer 2 wmax - w_j (exact in float64: below 2^31).  And r_j = p_j.
            bad = problem.utility[1:] != p
            if wmax > 0 and alpha / s == 2.0 * wmax:
                bad |= q_items / s != 2.0 * wmax - w
            elif wmax > 0:
                bad[:] = True
            if bad.any():
                j = int(np.argmax(bad))
                raise InputError("cannot be encoded exactly (profit and weight too far apart in "
                                 "magnitude for float64)", column="values", row=j,
                                 value=_exact_numbers(values, "values")[1][j])
        return problem

    @classmethod
    def from_dataframe(cls, df: pd.DataFrame, alpha: float, R: float = 1.0, **extensions: Any
                       ) -> "SubsetSelectionProblem":
        """Build a problem from a table with columns ``quality, cost`` and optional ``name, capacity``.

        Parameters
        ----------
        df : pandas.DataFrame, shape (n, >= 2)
            One row per agent.
        alpha, R : float
            As in the constructor.
        **extensions
            ``budget``, ``demand``, ``must_take``, ``must_not_take``.

        Raises
        ------
        subsel.models.io.InputError
            A missing column, or a cell that is empty, not a number or breaks a constructor rule,
            naming the row (0-based) and the column.  A subclass of ``ValueError``.
        ValueError
            A bad setting (``alpha``, ``R``, an extension).
        """
        from .io import CSVTable, problem_from_table

        return problem_from_table(CSVTable.from_frame(df), alpha, R, cls=cls, **extensions)

    @classmethod
    def from_csv(cls, path: str | Path | Any, alpha: float, R: float = 1.0, **extensions: Any
                 ) -> "SubsetSelectionProblem":
        """Read agents from a CSV file with a header ``name, quality, cost, capacity``.

        ``name`` and ``capacity`` are optional columns.  ``path`` may also be an open stream (e.g.
        ``sys.stdin``): it is read as bytes and decoded as UTF-8 exactly like a file, and messages
        name the stream's ``name`` (``<stdin>``).  The format and its errors:
        :func:`subsel.models.io.read_agents`.

        Raises
        ------
        FileNotFoundError, IsADirectoryError, PermissionError
            The file cannot be opened.
        subsel.models.io.InputError
            Anything wrong in the file (not UTF-8, malformed quoting, missing or repeated columns,
            a row with more or fewer fields than the header, a bad cell), naming the file, the
            physical line and the column.  A subclass of ``ValueError``.
        """
        from .io import read_agents

        return read_agents(path, alpha=alpha, R=R, cls=cls, **extensions)

    def to_dataframe(self) -> pd.DataFrame:
        """The agents as a table with columns ``name, quality, cost, capacity`` (n rows)."""
        return pd.DataFrame({"name": list(self.names), "quality": self.quality,
                             "cost": self.cost, "capacity": self.capacity})

    def to_csv(self, path: str | Path) -> None:
        """Write :meth:`to_dataframe` to ``path`` (atomically: a temporary file, then a rename).

        Floats are written with 17 significant digits, so :meth:`from_csv` reads them back bit for
        bit.
        """
        from .io import atomic_write_text, problem_to_csv_text

        atomic_write_text(path, problem_to_csv_text(self))

    def __repr__(self) -> str:
        ext = ", ".join(sorted(self.extensions))
        return (f"SubsetSelectionProblem(n={self.n}, alpha={self.alpha:g}, R={self.R:g}"
                + (f", extensions=[{ext}]" if ext else "") + ")")
