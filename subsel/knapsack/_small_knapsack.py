"""The fixed cost of :func:`subsel.solvers.solve_knapsack` on small 0-1 knapsacks (up to
:data:`SMALL_MAX_ITEMS` items).

A 5- to 20-item knapsack is solved by the core's enumeration (every subset, met in the middle above
ten items: Horowitz and Sahni, J. ACM 21(2), 1974) in microseconds, so what a call costs is the work
around it: checking the input, the options, the arrays, the answer object.  :func:`solve_small`
takes the common inputs (lists of Python ints or one-dimensional int64 arrays, an int capacity, no
counts, default options) through checks of the same rules done in a few Python-level passes, and
picks the same selection the core's enumeration picks (:func:`choose`: among the optimal subsets,
for at most ten items the first in subset order, bit ``j`` for item ``j``; above ten, the first
subset of the first half with the heaviest subset of the second half, as the core pairs them), so
the answer never depends on which path ran.  Any other input, and any input that breaks a rule,
returns None: the general path then checks it again and names what is wrong.
"""
from __future__ import annotations

import time
from itertools import compress
from typing import Any

import numpy as np

from ..models._rules import MAX_KNAPSACK_TOTAL
from ._knapsack import enumerate_take
from ._status import SolverError

__all__ = ["SMALL_MAX_ITEMS", "choose", "solve_small"]

#: Most items of the small path (the core enumerates up to this many: at most 2 * 2^10 subsets).
SMALL_MAX_ITEMS = 20
#: Totals up to this are exact in float64 (the core's float path); above, int64.
_FLOAT_EXACT = 2 ** 52


def choose(p: np.ndarray, w: np.ndarray, c: Any) -> np.ndarray:
    """The optimal subset of ``max p.y`` s.t. ``w.y <= c`` that the core's enumeration returns (it is
    that enumeration, :func:`subsel.knapsack._knapsack.enumerate_take`, without its bound).

    Parameters
    ----------
    p, w : ndarray of float64 (totals up to 2^52) or int64, shape (m,), ``1 <= m <= 20``
        Profits (positive) and weights.
    c : float or int
        The capacity (at most the total weight).

    Returns
    -------
    ndarray of bool, shape (m,)
    """
    return enumerate_take(p, w, c)


def _ints(a: Any) -> tuple[np.ndarray, list[int]] | None:
    """``a`` as int64 and as Python ints when it is a short list of ints or a 1-D int64 array whose
    entries lie in [0, 2^62]; else None."""
    if type(a) is list:
        if not a or len(a) > SMALL_MAX_ITEMS or set(map(type, a)) != {int}:
            return None
        if min(a) < 0 or max(a) > MAX_KNAPSACK_TOTAL:
            return None
        return np.array(a, dtype=np.int64), a
    if type(a) is np.ndarray and a.dtype == np.int64 and a.ndim == 1 and 0 < a.size <= SMALL_MAX_ITEMS:
        listed = a.tolist()
        if min(listed) < 0 or max(listed) > MAX_KNAPSACK_TOTAL:
            return None
        return a, listed
    return None


def solve_small(values: Any, weights: Any, capacity: Any, start: float) -> tuple[np.ndarray, int, int, float] | None:
    """The 0-1 knapsack of a small common input, or None (the general path then runs).

    Parameters
    ----------
    values, weights : list of int or ndarray of int64, shape (m,), ``m <= 20``
    capacity : int
    start : float
        ``time.perf_counter()`` at the call's start.

    Returns
    -------
    (x, value, weight, wall_time_s) or None
        ``x`` int64 of shape (m,), read-only; ``value`` and ``weight`` exact Python ints.
    """
    if type(capacity) is not int or capacity < 0:
        return None
    got_v, got_w = _ints(values), _ints(weights)
    if got_v is None or got_w is None or len(got_v[1]) != len(got_w[1]):
        return None
    (v, vl), (w, wl) = got_v, got_w
    # The items that can help (they fit, and are worth something), and the totals of those that fit.
    total_v = total_w = 0
    items = []
    for j, (a, b) in enumerate(zip(vl, wl)):
        if b <= capacity:
            total_v += a
            total_w += b
            if a > 0:
                items.append(j)
    if total_v > MAX_KNAPSACK_TOTAL or total_w > MAX_KNAPSACK_TOTAL:
        return None  # refused by the general path, naming the total
    if not items:
        x = np.zeros(v.size, dtype=np.int64)
    else:
        cap = min(capacity, total_w)
        every = len(items) == v.size  # the common case: every item fits and is worth something
        pv, pw = (v, w) if every else (v[items], w[items])
        if max(total_v, total_w) <= _FLOAT_EXACT:
            take = choose(pv.astype(float), pw.astype(float), float(cap))
        else:
            take = choose(pv, pw, cap)
        if every:
            x = take.astype(np.int64)
        else:
            x = np.zeros(v.size, dtype=np.int64)
            x[np.array(items)[take]] = 1
    chosen = x.tolist()
    value = sum(compress(vl, chosen))
    weight = sum(compress(wl, chosen))
    if weight > capacity:  # pragma: no cover - the check of every answer
        raise SolverError(f"solve_knapsack: the answer weighs {weight} > capacity {capacity} (a bug; please report)")
    x.setflags(write=False)
    return x, value, weight, time.perf_counter() - start
