"""Exact 0-1 knapsack by dynamic programming over an expanding core (Pisinger's *minknap*) with the
bounds of *combo* (Martello, Pisinger, Toth).

The items are sorted by efficiency ``e_j = p_j / w_j`` (decreasing); the *break item* ``b`` is the
first item that no longer fits when items are packed in that order, and the *break solution* takes
items ``0..b-1``.  The *core* grows from the break item outwards, alternately on each side.  For
every core a list of states ``(P, W)`` (profit and weight of the break solution with some core items
flipped: right items added, left items removed) is kept, Pareto-reduced (Nemhauser-Ullmann
dominance) and bounded: a state is dropped when no completion flipping items outside the core can
beat the incumbent ``z``.  Items that no improving solution can flip are fixed beforehand and skipped
(Dembo-Hammer reduction: flipping item ``j`` leaves at most ``U - |p_j - e_b w_j|``, ``U`` the LP
bound), which keeps the core to the few items whose reduced cost is below the gap.  The search stops
when no state is left (or no free item is), or when ``z`` reaches the global upper bound: then ``z``
is optimal.

Combo's additions (Martello, Pisinger, Toth 1999) start when the state list grows long:

- the *surrogate relaxation of the cardinality bounds* (:func:`_surrogate_relaxation`) tightens the
  global upper bound and often yields an optimal solution outright (the strongly correlated classes);
- the *pairing of states with items* outside the core improves ``z`` early;
- on integer data the capacity is rounded down to the weights' grid and common divisor, and during
  the search to the break weight plus a multiple of the free items' divisor.

Knapsacks of at most ``_MAX_ENUMERATE`` items are enumerated instead (:func:`_enumerate`: every
subset directly up to ``_DIRECT_ENUMERATE`` items, in two halves above), which is cheaper than
setting up the dynamic program.

The search starts from combo's greedy solutions around the break item (:func:`greedy_start`): when
one reaches the Dantzig bound no core item is needed, and a higher incumbent fixes more items. Every
core step adds one item to the core, in one pass over the state list (merge, dominance, incumbent
and bounds) of the compiled search (:mod:`subsel.knapsack._knapsack_search`, over a C extension built
at install). The solution of each state is
kept as in minknap: a bit vector of the flips of the last ``_BLOCK`` core items plus a pointer to
its ancestor, saved once per block. Cost: ``O(m log m)`` for the sort and the reduction plus
``O(|core| * |states|)``; the number of states is pseudo-polynomial in the worst case. The memory of
the state lists can be capped (``memory_limit``).

References
----------
D. Pisinger, "A minimal algorithm for the 0-1 knapsack problem", Operations Research 45(5):758-767,
1997 (the expanding core and the state lists).  S. Martello, D. Pisinger and P. Toth, "Dynamic
programming and strong bounds for the 0-1 knapsack problem", Management Science 45(3):414-424, 1999
(combo: cardinality bounds, surrogate relaxation, pairing of states with items, divisibility).
S. Martello and P. Toth, *Knapsack Problems*, Wiley, 1990, Sections 2.2-2.3 (the Dantzig bound, the
break item).  G. Nemhauser and Z. Ullmann, "Discrete
dynamic programming and capital allocation", Management Science 15(9):494-505, 1969 (dominance).

Floating-point data
-------------------
No rounding of the data: dominance compares numbers exactly, and a state is feasible when its weight
is ``<= capacity`` (the caller folds its tolerance into ``capacity``).  The bound of a state with
slack ``sigma = c - W >= 0`` is ``P + e_R sigma`` when the lightest unprocessed right item (weight
``m_R``) fits into ``sigma``, and ``P + e_R sigma - (e_L - e_R)(m_R - sigma)`` otherwise (an item
must be added, so at least ``m_R - sigma`` weight must be removed at efficiency ``>= e_L``).  This
weight-aware bound is what lets the search end on real-valued data, where the plain Dantzig bound of
a state with any slack stays above ``z`` until every item has been processed.  An overweight state
(``W > c`` by ``omega``) has the bound ``P - e_R omega - (e_L - e_R) max(omega, m_L)``.
On integer data (integer profits, weights on a power-of-two grid) a state is dropped when its bound
is below ``z + 1`` (Pisinger's rule); otherwise when it is ``<= z``.

64-bit integer data
-------------------
Given int64 arrays (totals up to 2^62, beyond exact float64), the state lists hold int64 sums, so
dominance and feasibility stay exact; the global Dantzig bound is computed in integers, the bounds of
the states in floats widened by :func:`int_tolerance` before a state is dropped, and the surrogate
relaxation uses integer multipliers and solves its knapsack on this same path.

Longer than 600 lines on purpose: the core expansion, the bounds and the dynamic program of
*minknap* / *combo* are one algorithm whose invariants span all of them, and they share the
state-list representation.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, NamedTuple

import numpy as np

from ..models._rules import FEASIBILITY_TOL, rounded_up

#: The compiled branch and bound (``unit_selection``, ``Exact(jit=True)``) serves problems of
#: unit capacities, no must lists and at most this many agents.
JIT_MAX_N = 1000
#: Default of ``memory_limit_mb``: the state lists of the dynamic program stay below 1 GiB.
DEFAULT_MEMORY_LIMIT_MB = 1024.0

#: Integer profits are recognised when every profit is an integer and their sum stays below this
#: (so that every partial sum is exact in float64).
_INT_EXACT = float(2 ** 52)
#: Safety margin of the integer rule ``bound < z + 1`` against the rounding of the bound itself.
_INT_MARGIN = 1e-6
#: Efficiencies are capped here (p / w overflows on denormal weights); the order is kept.
_MAX_EFFICIENCY = 1e300
#: Combo's thresholds (Martello, Pisinger, Toth 1999, Section 6): the surrogate relaxation once the
#: state list passes _MIN_RELAX states (M2), the pairing of states with items at _MIN_PAIRING (then
#: again each time the list doubles; it stops at the first pairing that reaches the global bound).
#: Combo pairs once, at M3 = 10,000 states; pairing at 1,000 found the optimum of the subset-sum and
#: correlated instances sooner (2-10 times faster there), pairing at 256 cost more than it saved
#: (a pass over the free items, with a search in the state list for each).
_MIN_RELAX = 2000
_MIN_PAIRING = 1000
#: Up to this many items, every subset is enumerated (two halves of at most 2^10 subsets each) ...
_MAX_ENUMERATE = 20
#: ... and up to this many, directly (one list of at most 2^10 subsets: fewer array operations).
_DIRECT_ENUMERATE = 10
_SUBSETS: dict[int, np.ndarray] = {}
#: A float64 mantissa from ``np.frexp`` (in [0.5, 1)) times this is its 53 significant bits as an integer.
_MANTISSA = 2.0 ** 53
#: The compiled core search, registered by it when it loads (:func:`_kernel`).
_KERNEL: list[Any] = []
#: Relative distance of float efficiencies within which the 64-bit integer path orders items by their
#: exact ratios (the float efficiency of int64 data is within a relative 2^-51 of the exact ratio).
_TIE_WINDOW = 2.0 ** -48
#: Peak bytes per state of one core step (the state list, the merged list and its temporaries).
_BYTES_PER_STATE = 200


class KnapsackResult(NamedTuple):
    """Answer of :func:`solve_core`.

    Attributes
    ----------
    take : ndarray of bool, shape (m,)
        The items of the best solution found (in the caller's order).
    value : float
        Its profit (as summed along the search).
    lp_bound : float
        Value of the LP relaxation (Dantzig bound): an upper bound on the optimum.
    bound : float
        The best proven upper bound (``<= lp_bound``); equals ``value`` when ``optimal``.
    optimal : bool
        False when the deadline or the memory limit struck before the search ended.
    core_size : int
        Number of items the core grew to.
    stopped : str
        Why the search stopped early: ``""`` (it did not), ``"time"`` or ``"memory"``.
    """

    take: np.ndarray
    value: float
    lp_bound: float
    bound: float
    optimal: bool
    core_size: int
    stopped: str = ""


def merge_fronts(W: np.ndarray, P: np.ndarray, W2: np.ndarray, P2: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Merge two weight-sorted state lists and keep the Pareto front (weight up, profit strictly up).

    Returns the merged ``W, P`` and, per kept state, its index in its source list and whether it came
    from the second list.
    """
    m = W.size
    pos2 = np.searchsorted(W, W2, side="right") + np.arange(m)
    from2 = np.zeros(2 * m, dtype=bool)
    from2[pos2] = True
    Wm = np.empty(2 * m, dtype=W.dtype)
    Pm = np.empty(2 * m, dtype=P.dtype)
    src = np.empty(2 * m, dtype=np.int64)
    Wm[pos2] = W2
    Pm[pos2] = P2
    src[pos2] = np.arange(m)
    pos1 = np.flatnonzero(~from2)
    Wm[pos1] = W
    Pm[pos1] = P
    src[pos1] = np.arange(m)
    idx = pareto_front(Wm, Pm)
    return Wm[idx], Pm[idx], src[idx], from2[idx]


def int_tolerance(values: np.ndarray) -> float:
    """How far a float bound may be off on the 64-bit integer path (int64 ``values``, total ``T <=
    2^62``): a few ulps of ``T`` per operation and of the efficiency order, far below
    ``1 + 2^-40 T``.  Bounds are widened by it, so a rounding error never cuts an optimal state."""
    return 1.0 + 2.0 ** -40 * float(values.sum())


def pareto_front(Wm: np.ndarray, Pm: np.ndarray) -> np.ndarray:
    """Indices of the Pareto front of a weight-sorted state list (ties in weight in any order)."""
    # Dominance: keep a state when its profit beats every lighter-or-equal state before it ...
    best_before = np.empty(Wm.size, dtype=Pm.dtype)
    best_before[0] = -np.inf if Pm.dtype.kind == "f" else np.iinfo(Pm.dtype).min
    np.maximum.accumulate(Pm[:-1], out=best_before[1:])
    idx = np.flatnonzero(Pm > best_before)
    # ... and, among kept states of equal weight, only the last (most profitable) one.
    if idx.size > 1:
        same = Wm[idx[:-1]] == Wm[idx[1:]]
        if same.any():
            idx = np.concatenate((idx[:-1][~same], idx[-1:]))
    return idx


def _weight_grid(w: np.ndarray) -> float | None:
    """The largest power of two ``u`` of which every weight is an integer multiple (``w / u < 2^53``).

    ``None`` when the weights span more than 53 bits (real-valued data).  On such a grid every sum of
    weights is exact and the capacity can be rounded down to it (Martello, Pisinger, Toth 1999, the
    "rudimentary divisibility" of Section 4 with a power-of-two divisor).
    """
    pos = w[w > 0]
    if pos.size == 0:
        return None
    mant, expo = np.frexp(pos)
    M = (mant * _MANTISSA).astype(np.int64)
    low = np.frexp((M & -M).astype(float))[1] - 1          # trailing zero bits of the mantissa
    unit_exp = int((expo - 53 + low).min())
    if float(pos.max()) / 2.0 ** unit_exp >= 2.0 ** 52:
        return None
    return 2.0 ** unit_exp


def _surrogate_relaxation(p: np.ndarray, w: np.ndarray, c: float, b: int, z: float, integer: bool,
                          unit: float, deadline: float | None, memory_limit: int | None,
                          margin: float = _INT_MARGIN
                          ) -> tuple[float, float, np.ndarray | None, bool]:
    """The surrogate relaxation of the cardinality bounds (Martello, Pisinger, Toth 1999, Section 3).

    The maximum cardinality ``card1`` (the most light items that fit) and the minimum cardinality
    ``card2`` of an improving solution (one more than the most profitable items whose sum is ``<= z``)
    often pin the cardinality of an optimal solution to that of the break solution, ``b``.  The
    constraint ``sum y <= b`` (or ``>= b + 1``) is added to the capacity constraint with a surrogate
    multiplier ``s`` (``>= 0``, resp. ``<= 0``) chosen to minimise the Dantzig bound of the sum, and the
    surrogate knapsack is solved exactly: its optimum bounds every (improving) solution, and an optimal
    surrogate solution of the right cardinality is feasible, often optimal.

    On the 64-bit integer path (int64 data, ``unit`` the weights' common divisor, ``margin`` from
    :func:`int_tolerance`) the multiplier and the surrogate knapsack are integers, solved exactly;
    the float Dantzig bounds are widened by ``margin``.

    Returns
    -------
    (ub, z, take, exhausted)
        The upper bound found (``inf`` when none), the best feasible value found (``z`` when none
        better), its items (``None`` when none better) and whether a deadline or memory limit struck.
    """
    nbk = _kernel()
    # (The counts by selection sum in another order: compiled on integer data only.)
    if integer:
        card1, card2 = int(nbk.count_fit(w, c, False)), int(nbk.count_fit(p, z, True)) + 1
    else:
        card1 = int(np.searchsorted(np.cumsum(np.sort(w)), c, side="right"))
        card2 = int(np.searchsorted(np.cumsum(np.sort(p)[::-1]), z, side="right")) + 1
    maxsur = float(w.max())
    cases: list[tuple[float, float, int, bool]] = []   # (s_lo, s_hi, cardinality, improving-only)
    if card2 == b + 1:
        cases = [(-maxsur, 0.0, b + 1, True)]
    elif card1 == b:
        cases = [(0.0, maxsur, b, False)]
    elif card1 == b + 1 or card2 == b:  # dichotomy: cardinality <= b or >= b + 1
        cases = [(0.0, maxsur, b, False), (-maxsur, 0.0, b + 1, False)]
    if not cases:
        return np.inf, z, None, False
    ub, take, exhausted = -np.inf, None, False
    for s_lo, s_hi, card, improving_only in cases:
        # The multiplier on the weight grid (in units of ``unit``), compiled.
        best_u, best_k = nbk.surrogate_multiplier(p, w, c, card, int(np.floor(s_lo / unit)),
                                                  int(np.ceil(s_hi / unit)), unit, not integer)
        best_k = int(best_k)
        u = best_u
        if integer:
            u = np.floor(u + margin)
        if u <= z or best_k == 0:
            ub = max(ub, max(u, z) if improving_only else u)
            continue
        s = best_k * unit
        always = w + s <= 0                     # (taken whatever the bound)
        p0 = p[always].sum().item()
        rest = np.flatnonzero(~always)
        cs = c + s * card - (w[always] + s).sum().item()
        # Only surrogate solutions better than z matter: on integer data (exact sums) the surrogate
        # knapsack is solved with z as its lower bound, as combo does.
        lower = z - p0 if integer else None
        res = solve_core(p[rest], w[rest] + s, cs, deadline, memory_limit, _relax=False,
                             lower=lower)
        z1 = p0 + res.value
        bound1 = z1 if res.optimal else p0 + res.bound + (margin if p.dtype.kind != "f" else 0.0)
        exhausted = exhausted or not res.optimal
        picked = always.copy()
        picked[rest[res.take]] = True
        if (lower is None or res.value > lower) and int(picked.sum()) == card and z1 > z \
                and w[picked].sum().item() <= c:
            z, take = z1, picked
        ub = max(ub, max(bound1, z) if improving_only else bound1)
    return max(ub, z), z, take, exhausted


def solve_core(values: np.ndarray, weights: np.ndarray, capacity: float,
                   deadline: float | None = None, memory_limit: int | None = None,
                   _relax: bool = True, target: float | None = None,
                   lower: float | None = None) -> KnapsackResult:
    """Solve ``max p.y  s.t.  w.y <= c, y in {0,1}^m`` exactly (minknap core DP with combo's bounds).

    Parameters
    ----------
    values : ndarray of float, shape (m,)
        Profits ``p_j > 0``.
    weights : ndarray of float, shape (m,)
        Weights ``w_j >= 0``.
    capacity : float
        ``c >= 0`` (any tolerance already added by the caller).
    deadline : float or None
        A ``time.perf_counter()`` value; past it the best solution found is returned with
        ``optimal=False``.
    memory_limit : int or None
        Bytes the state lists (and the saved solution history) may take; when the next core step
        would need more, the best solution found is returned with ``optimal=False``.
    target : float or None
        Only ask whether a selection of value ``>= target`` exists: the search prunes every state
        that cannot reach it and stops at the first such selection (``optimal=True`` then means
        "decided": ``take`` is such a selection, or the break solution when none exists, which the
        caller tells apart by its value).
    lower : float or None
        Only selections of value ``> lower`` matter (combo's lower bound ``lb``): the search starts with
        ``lower`` as its incumbent, so it prunes every state and fixes every item that cannot beat it.
        When none does, the answer's ``value`` is ``lower`` (or, on at most ``_MAX_ENUMERATE`` items,
        the optimum itself) and ``take`` is not a selection of that value: ``value > lower`` tells.

    Returns
    -------
    KnapsackResult
    """
    exact_int = isinstance(values, np.ndarray) and values.dtype == np.int64  # the 64-bit integer path
    p = values if exact_int else np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=np.int64) if exact_int else np.asarray(weights, dtype=float)
    m = p.size
    if m == 0:
        return KnapsackResult(np.zeros(0, dtype=bool), 0.0, 0.0, 0.0, True, 0)
    if m <= _MAX_ENUMERATE:
        return _enumerate(p, w, int(capacity) if exact_int else float(capacity))
    int_unit = 1
    if exact_int:
        # Integer data of up to 62 bits: the states are exact int64 sums, the bounds floats widened
        # by int_tolerance; the capacity is rounded down to the weights' common divisor.
        d = int(np.gcd.reduce(w[w > 0])) if (w > 0).any() else 1
        capacity = int(capacity) - int(capacity) % d
        unit, int_unit = None, d     # (the surrogate multiplier moves on the weights' grid too)
    else:
        unit = _weight_grid(w)
    if unit is not None and not capacity / unit < 2.0 ** 62:  # (subnormal weights: no usable grid)
        unit = None
    if unit is not None:
        # Every sum of weights is a multiple of unit * gcd(w / unit): round the capacity down to it
        # (the rudimentary divisibility of Martello, Pisinger, Toth 1999).
        steps = (w / unit).astype(np.int64)
        d = int(np.gcd.reduce(steps[steps > 0])) if (steps > 0).any() else 1
        cap_steps = int(np.floor(capacity / unit))
        capacity = float(cap_steps - cap_steps % d) * unit
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # zero or denormal weights: cap it
        e = np.minimum(p / w, _MAX_EFFICIENCY)
    # Worthless weightless items (0 / 0) are of efficiency 0, not NaN: NaN has no place in the
    # order, and the bounds computed along it would be NaN (an exact search then misses selections).
    e[(p == 0) & (w == 0)] = 0.0
    if not exact_int and target is None and unit is not None \
            and np.all(p == np.round(p)) and p.sum() < _INT_EXACT and not np.isnan(e).any():
        # Integer data in float64: the compiled search sorts only the free items (the same steps).
        return _kernel().search_free(p, w, e, capacity, deadline, memory_limit, not _relax,
                                     relax_in_order(p, w, e, capacity, unit, deadline), unit,
                                     -np.inf if lower is None else float(lower))
    order = np.argsort(-e, kind="stable")
    p, w, e = p[order], w[order], e[order]
    cw = np.cumsum(w)
    b = int(np.searchsorted(cw, capacity, side="right"))  # first item that does not fit
    if exact_int and b < m:
        fix = _exact_ties(p, w, e, b, int(capacity), order)
        if fix is not None:   # (e then decreases only up to its rounding: the bounds' margin covers it)
            order, p, w, e = order[fix], p[fix], w[fix], e[fix]
            cw = np.cumsum(w)
            b = int(np.searchsorted(cw, capacity, side="right"))
    integer = exact_int or bool(unit is not None and np.all(p == np.round(p)) and p.sum() < _INT_EXACT)
    margin = int_tolerance(p) if exact_int else _INT_MARGIN
    take_sorted = np.zeros(m, dtype=bool)
    take_sorted[:b] = True
    if b == m:  # everything fits
        val = p.sum().item()
        return KnapsackResult(_unsort(take_sorted, order), val, val, val, True, 0)
    Pb = p[:b].sum().item()
    Wb = cw[b - 1].item() if b > 0 else 0
    lp = Pb + (capacity - Wb) * float(e[b])
    if exact_int:
        # The Dantzig bound, rounded down, in exact integers (the order around the break item made
        # exact by _exact_ties).
        ub_global = Pb + (capacity - Wb) * int(p[b]) // int(w[b])
    else:
        ub_global = np.floor(lp + margin) if integer else lp
    # Reduced costs against the break efficiency: flipping item j (out of the break solution for
    # j < b, into it for j >= b) leaves at most lp - |rc_j| (Dembo-Hammer; Martello-Toth reduction).
    flip_bound = lp - np.abs(p - float(e[b]) * w)

    z = Pb
    if target is not None:   # only selections of value >= target count: better than target - 1
        floor = target - 1 if integer else float(np.nextafter(float(target), -np.inf))
        if floor > z:
            z = floor
    if lower is not None and lower > z:
        z = lower
    z_take: np.ndarray | None = None                          # the greedy solution, when better
    if integer and target is None:
        # Combo's greedy solutions around the break item: often the optimum, and a higher z fixes more items.
        z_greedy, flips = greedy_start(p, w, b, Pb, Wb, capacity)
        if z_greedy > z:     # (then some item is flipped)
            z = z_greedy
            z_take = take_sorted.copy()
            z_take[list(flips)] = ~z_take[list(flips)]
    # (64-bit integers: only while the surrogate weights, up to twice the largest, cannot overflow)
    relax_done = not _relax or (exact_int and float(w.sum()) + m * float(w.max()) >= 2.0 ** 62)

    def relax(z: float, room: int | None) -> tuple[float, float, np.ndarray | None]:
        u, z_new, take_new, _ = _surrogate_relaxation(
            p, w, capacity, b, z, integer,
            int_unit if exact_int else unit if unit is not None else _real_unit(w),
            deadline, room, margin)
        return u, z_new, None if take_new is None else _unsort(take_new, order)
    return _kernel().search(p, w, e, flip_bound, capacity, b, Pb, Wb, z, ub_global, margin, target is not None,
                            deadline, memory_limit, relax_done, relax, lp, order, take_sorted, integer=integer,
                            z_take=None if z_take is None else _unsort(z_take, order))


def greedy_start(p: np.ndarray, w: np.ndarray, b: int, Pb: Any, Wb: Any, capacity: Any) -> tuple[Any, tuple[int, ...]]:
    """Combo's greedy solutions around the break item (Martello, Pisinger, Toth 1999, the initial
    core): the best of the break solution ``(Pb, Wb)`` with, in this order,

    1. the last item before the break item ``b`` out and the most profitable item from ``b`` on that
       then fits in;
    2. the most profitable item after ``b`` that fits into the residual capacity;
    3. ``b`` in and the least profitable item before it whose removal makes room;
    4. ``b`` and ``b + 1`` in and the least profitable item before ``b`` whose removal makes room.

    Items are in the stable order by decreasing efficiency; among equal profits the first in that
    order is taken, and a later solution replaces an earlier one only when strictly better.  On integer
    data (the sums are exact).  O(m).

    Returns
    -------
    (value, flips)
        The best value (``Pb`` when none is better) and the positions it flips (empty then).
    """
    m = p.size
    r0 = capacity - Wb
    best: Any = Pb
    flips: tuple[int, ...] = ()
    if b >= 1:
        ok = np.flatnonzero(w[b:] <= r0 + w[b - 1])
        if ok.size:
            j = b + int(ok[np.argmax(p[b:][ok])])
            val = Pb - p[b - 1] + p[j]
            if val > best:
                best, flips = val, (b - 1, j)
    ok = np.flatnonzero(w[b:] <= r0)
    if ok.size:
        j = b + int(ok[np.argmax(p[b:][ok])])
        val = Pb + p[j]
        if val > best:
            best, flips = val, (j,)
    for extra in ((b,), (b, b + 1)) if b + 1 < m else ((b,),):
        need = sum(w[k] for k in extra) - r0
        ok = np.flatnonzero(w[:b] >= need)
        if ok.size:
            q = int(ok[np.argmin(p[:b][ok])])
            val = Pb + sum(p[k] for k in extra) - p[q]
            if val > best:
                best, flips = val, (q, *extra)
    return (best.item() if isinstance(best, np.generic) else best), flips


def relax_in_order(p: np.ndarray, w: np.ndarray, e: np.ndarray, capacity: float, unit: float,
                   deadline: float | None) -> Callable[[float, int | None], tuple[float, float, np.ndarray | None]]:
    """The surrogate relaxation of integer data in float64 given in any order (``e`` the capped
    efficiencies, ``unit`` the weights' power-of-two grid), as the compiled search calls it: ``relax(z,
    room)`` sorts the items by efficiency and returns ``(bound, value, take or None)``, ``take`` in the
    given order."""
    def relax(z: float, room: int | None) -> tuple[float, float, np.ndarray | None]:
        # The whole relaxation compiled, where it covers the case (else the same steps in Python).
        ok, u, z_new, take = _kernel().relax_once(p, w, e, capacity, unit, z, room, deadline, _MIN_RELAX,
                                                  _MIN_PAIRING, _MAX_ENUMERATE)
        if ok:
            return u, z_new, take
        return relax_sorted(p, w, e, capacity, unit, deadline, z, room)
    return relax


def relax_sorted(p: np.ndarray, w: np.ndarray, e: np.ndarray, capacity: float, unit: float, deadline: float | None,
                 z: float, room: int | None) -> tuple[float, float, np.ndarray | None]:
    """The relaxation of :func:`relax_in_order` where the compiled one does not answer: the items
    sorted by efficiency, :func:`_surrogate_relaxation`, ``take`` (or None) in the given order."""
    order = _kernel().by_efficiency(e, np.arange(e.size))   # np.argsort(-e, kind="stable"), compiled
    ps, ws = p[order], w[order]
    b = int(np.searchsorted(np.cumsum(ws), capacity, side="right"))
    u, z_new, take_new, _ = _surrogate_relaxation(ps, ws, capacity, b, z, True, unit, deadline, room, _INT_MARGIN)
    return u, z_new, None if take_new is None else _unsort(take_new, order)


def _exact_ties(p: np.ndarray, w: np.ndarray, e: np.ndarray, b: int, capacity: int,
                index: np.ndarray) -> np.ndarray | None:
    """On int64 data sorted by float efficiency ``e``, the permutation that puts the items whose
    efficiency is too close to the break item's to be ordered by floats in the exact order of
    ``p / w`` (decreasing; equal ratios by ``index``, the items' positions in the caller's order), or
    ``None`` when they already are.

    ``e = fl(fl(p) / fl(w))`` rounds up to three times (values and weights above 2^53 are rounded
    when converted), so it follows the exact ratios only to a relative 2^-51: an item of float
    efficiency within a relative :data:`_TIE_WINDOW` of the break item's may lie on the wrong side
    of it (ratios ``(2^57 + 7) / (2^57 + 1000)`` against ``2^57 / (2^57 + 993)``), and the exact
    Dantzig bound needs that order.  The window is sorted exactly, the break item found again, and
    the window widened around the new break item until it holds every item that close to it.
    Products are compared in int64 where they fit, else in Python integers.
    """
    def window(x: float) -> tuple[int, int]:
        tol = abs(x) * _TIE_WINDOW
        return (int(np.searchsorted(-e, -(x + tol), side="left")),
                int(np.searchsorted(-e, -(x - tol), side="right")))

    lo, hi = window(float(e[b]))
    perm = np.arange(p.size)
    changed = False
    while True:
        pg, wg = p[lo:hi], w[lo:hi]
        exact = hi - lo < 2
        if not exact and float(pg.max()) * float(wg.max()) < 2.0 ** 62:
            exact = bool(np.all(pg[:-1] * wg[1:] >= pg[1:] * wg[:-1]))
        if not exact:
            pl, wl, il = pg.tolist(), wg.tolist(), index[lo:hi].tolist()
            group = sorted(range(hi - lo), key=lambda i: (-Fraction(pl[i], wl[i]) if wl[i] else -math.inf, il[i]))
            perm[lo:hi] = lo + np.array(group, dtype=np.int64)
            changed = changed or group != list(range(hi - lo))
        b_new = int(np.searchsorted(np.cumsum(w[perm]), capacity, side="right"))
        if b_new >= p.size:
            break
        lo2, hi2 = window(float(e[perm[b_new]]))
        if lo2 >= lo and hi2 <= hi:
            break
        lo, hi = min(lo, lo2), max(hi, hi2)   # (items of the window keep their exact order: resorted as one)
        perm = np.arange(p.size)
    return perm if changed else None


def _kernel() -> Any:
    """The compiled core search (:mod:`subsel.knapsack._knapsack_search`, over the extension built at
    install).  That module builds on this one (it reads its constants), so it is not imported here: it
    registers itself in ``_KERNEL`` when it loads, and the package's face loads it."""
    return _KERNEL[0]


def _subsets(k: int) -> np.ndarray:
    """Every subset of ``k`` items as the columns of a 0/1 matrix, shape (k, 2^k): column ``i`` is
    the subset with bit ``j`` of ``i`` for item ``j`` (cached)."""
    if k not in _SUBSETS:
        _SUBSETS[k] = np.ascontiguousarray(((np.arange(1 << k)[:, None] >> np.arange(k)) & 1).T.astype(float))
    return _SUBSETS[k]


def _enumerate(p: np.ndarray, w: np.ndarray, c: float) -> KnapsackResult:
    """Every subset, by meeting in the middle (Horowitz and Sahni, J. ACM 21(2), 1974): small ``m``.

    Returns the optimum of :func:`enumerate_take` (``optimal=True``) and the Dantzig bound.
    """
    return _enumerated(p, w, c, enumerate_take(p, w, c))


def enumerate_take(p: np.ndarray, w: np.ndarray, c: float) -> np.ndarray:
    """The optimal subset of ``max p.y, w.y <= c`` the enumeration picks, as a bool array of shape (m,).

    Up to ``_DIRECT_ENUMERATE`` items every subset is listed with its sums (one list of at most
    2^10).  Above, the items are split into halves ``A`` (the first ``h = m // 2``) and ``B`` (the
    rest), both listed the same way (one matrix product for the four sums; ``A`` padded with an
    empty item when ``m`` is odd); the subsets of ``B`` are sorted by weight and those that no
    lighter subset matches in profit kept, and each subset of ``A`` is paired with the last kept one
    that still fits.  Among equal optima: up to ``_DIRECT_ENUMERATE`` items the first in subset
    order (bit ``j`` for item ``j``); above, the first subset of ``A`` completed by the heaviest
    best subset of ``B`` (equal weights: the last in subset order).  No subset fits: nothing taken.
    """
    m = p.size
    none = -np.inf if p.dtype.kind == "f" else np.iinfo(p.dtype).min   # no subset fits
    if m <= _DIRECT_ENUMERATE:
        S = _subsets(m).astype(p.dtype, copy=False)
        W, P = np.concatenate((w, p)).reshape(2, m) @ S
        total = np.where(W <= c, P, none)
        a = int(np.argmax(total))
        return S[:, a] > 0 if total[a] > none else np.zeros(m, dtype=bool)
    h = m // 2
    k = m - h
    S = _subsets(k).astype(p.dtype, copy=False)
    if h == k:
        X = np.concatenate((w, p)).reshape(4, k)
    else:
        X = np.zeros((4, k), dtype=p.dtype)
        X[0, :h], X[1], X[2, :h], X[3] = w[:h], w[h:], p[:h], p[h:]
    WA, WB, PA, PB = X @ S
    ob = np.argsort(WB, kind="stable")
    WBs, PBs = WB[ob], PB[ob]
    # The subsets of B (in weight order) that reach the best profit of every lighter one; the last
    # of them within a weight is the heaviest best subset there.
    kept = np.flatnonzero(PBs >= np.maximum.accumulate(PBs))
    best = np.empty(kept.size + 1, dtype=p.dtype)
    best[0] = none
    best[1:] = PBs[kept]
    at = np.searchsorted(WBs[kept], c - WA, side="right")  # 0: no subset of B fits
    total = PA + best[at]
    a = int(np.argmax(total))
    take = np.zeros(m, dtype=bool)
    if at[a] > 0:
        take[:h] = S[:h, a] > 0
        take[h:] = S[:, ob[kept[at[a] - 1]]] > 0
    return take


def _enumerated(p: np.ndarray, w: np.ndarray, c: float, take: np.ndarray) -> KnapsackResult:
    """The answer of :func:`_enumerate` for the optimal items ``take``, with the Dantzig bound."""
    m = p.size
    value = p[take].sum().item()
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        e = np.minimum(p / w, _MAX_EFFICIENCY)
    order = np.argsort(-e, kind="stable")
    cw = np.cumsum(w[order])
    b = int(np.searchsorted(cw, c, side="right"))
    lp = float(p[order[:b]].sum())
    if b < m:
        lp += (c - (float(cw[b - 1]) if b else 0.0)) * float(e[order[b]])
    return KnapsackResult(take, value, max(lp, value), value, True, m)


def _real_unit(w: np.ndarray) -> float:
    """Step of the surrogate multiplier on real-valued weights: 2^-30 of the largest weight."""
    return 2.0 ** (np.floor(np.log2(float(w.max()))) - 30)


@np.errstate(over="ignore")
def _state_bounds(W: np.ndarray, P: np.ndarray, c: float, s: int, t: int, e: np.ndarray,
                  min_left: np.ndarray, min_right: np.ndarray, m: int) -> np.ndarray:
    """Upper bound of every state over all flips of the items outside the core (module docstring).

    Unprocessed left items are ``0..s`` (efficiency ``>= e_L = e[s]``), unprocessed right items
    ``t..m-1`` (efficiency ``<= e_R = e[t]``).  A product beyond float64 (efficiencies capped at
    ``_MAX_EFFICIENCY``) is infinite, as in the compiled search, without a warning.
    """
    has_left, has_right = s >= 0, t < m
    eL = float(e[s]) if has_left else np.inf
    eR = float(e[t]) if has_right else 0.0
    mL = min_left[s].item() if has_left else np.inf     # (exact: an int on the 64-bit integer path)
    mR = min_right[t].item() if has_right else np.inf
    slack = c - W
    ub = np.empty(P.shape)
    under = slack >= 0
    sl = slack[under]
    if has_right:
        gain = eR * sl
        short = sl < mR
        if has_left:
            gain[short] -= (eL - eR) * (mR - sl[short])
        else:
            gain[short] = 0.0
        np.maximum(gain, 0.0, out=gain)
        ub[under] = P[under] + gain
    else:
        ub[under] = P[under]
    over = ~under
    if over.any():
        if has_left:
            om = -slack[over]
            ub[over] = P[over] - eR * om - (eL - eR) * np.maximum(om, mL)
        else:
            ub[over] = -np.inf
    return ub


def divisible(w_free: np.ndarray, capacity: Any, Wb: Any) -> bool:
    """Whether the search may round its capacity to the common divisor of the free items' weights
    (the compiled search's ``free_capacity``): ``w_free`` (the weights of the items free at the start), the break
    solution's weight ``Wb`` and the capacity are integers whose sums are exact (int64, or float64
    below 2^53)."""
    if w_free.dtype.kind != "f":
        return True
    return bool(capacity < 2.0 ** 53 and float(Wb).is_integer() and np.all(w_free == np.floor(w_free)))


def _unsort(take_sorted: np.ndarray, order: np.ndarray) -> np.ndarray:
    out = np.zeros(order.size, dtype=bool)
    out[order] = take_sorted
    return out


def binary_pieces(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split ``free[i]`` units into pieces of 1, 2, 4, ... units plus a remainder.

    Parameters
    ----------
    free : ndarray of int64, shape (g,)
        Units per agent (``>= 1``).

    Returns
    -------
    (owner, size) : two ndarrays of int64, shape (pieces,)
        Agent position (into ``free``) and unit count of each piece; the sizes of an agent's pieces
        sum to its ``free`` units and every count ``0..free`` is a sum of a subset of them.
    """
    owners, sizes = [np.arange(free.size)], [np.ones(free.size, dtype=np.int64)]
    left = free - 1
    step = 2
    while True:
        more = np.flatnonzero(left > 0)
        if more.size == 0:
            break
        size = np.minimum(left[more], step)
        owners.append(more)
        sizes.append(size)
        left[more] -= size
        step *= 2
    return np.concatenate(owners), np.concatenate(sizes)


def relaxed_capacity(capacity: float, x0: np.ndarray, margin: np.ndarray, weights: np.ndarray) -> float:
    """The knapsack's capacity raised by the most its float sums can lose, so that it is a relaxation.

    The model's rule decides ``sum_i (q_i - alpha) x_i >= -FEASIBILITY_TOL`` exactly on the stored
    floats; the knapsack compares float sums of the weights ``|q_j - alpha|`` with the float capacity
    ``surplus(x0) + FEASIBILITY_TOL``.  Each side is within :func:`~subsel.models._rules.rounded_up`'s
    rounding error of its exact value, so with the capacity raised by it every selection the rule
    accepts fits the knapsack: the knapsack's optimum bounds them all, and an answer the rule then
    accepts is proven optimal (one the rule refuses, a hair over the bound, is repaired).  Without it
    a selection the rule accepts by less than the float resolution (at a selection's last feasible
    threshold) could be cut off and a worse one called optimal.

    Parameters
    ----------
    capacity : float
        ``surplus(x0) + FEASIBILITY_TOL`` in floats.
    x0 : ndarray of int64, shape (n,)
        The start selection.
    margin : ndarray of float, shape (n,)
        ``q - alpha``.
    weights : ndarray of float, shape (m,)
        The knapsack items' weights (every unit of every piece).
    """
    magnitude = float(np.abs(x0 * margin).sum()) + float(weights.sum()) + FEASIBILITY_TOL
    return float(rounded_up(capacity, magnitude, x0.size + weights.size + 2))
