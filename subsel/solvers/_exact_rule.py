"""A 0-1 knapsack of exact integer weights: reduction by Lagrangian bounds, then a Pareto dynamic program.

``exact`` decides the quality constraint by the model's exact rule on the stored floats (Deva,
Abhishek, Gujar, AAMAS 2021, Section 3, the reduction to a knapsack).  A hair above a selection's
average quality the float sums of the weights ``|q_i - alpha|`` and that rule disagree, and the
weights' exact values (dyadic integers on a common grid) pass ``2**53``, where float sums stop being
exact.  This module solves such a knapsack with the weights as Python integers:

1. an incumbent: the best of a greedy fill (efficiency order, exact fits) and a selection the
   caller already holds;
2. reduction: for any multiplier ``lam >= 0`` the Lagrangian relaxation bounds every selection,
   ``v.y <= lam c + sum_i max(0, v_i - lam w_i)``, and flipping item ``j`` against the sign of its
   reduced cost ``rc_j = v_j - lam w_j`` lowers that bound by ``|rc_j|``.  With ``lam`` the break
   item's efficiency this is the Dantzig bound, and an item whose flip bounds the optimum below the
   incumbent is fixed (Martello and Toth, *Knapsack Problems*, 1990, Section 2.7, the reduction
   of Ingargiola and Korsh; Dembo and Hammer, 1980);
3. the free items by a dynamic program over Pareto-optimal (weight, value) states (Martello and
   Toth, 1990, Section 2.6; Nemhauser and Ullmann, 1969), exact in the weights, whose states are
   dropped when the same Lagrangian bound puts them below the incumbent.

The float value sums carry rounding; every bound test keeps a margin of the largest rounding error
of the sums involved, so no state or item that could reach the optimum is dropped.  ``None`` is
returned when too many states remain (2e5 at once, 2e7 visited, or the memory limit), when the
deadline passes, or when no state reaches the incumbent (its value was not attainable).
"""
from __future__ import annotations

import math
import time

import numpy as np

#: The most Pareto states held at once (each a few Python objects, about 200 bytes).  Random
#: instances of 200 and 1,000 agents need at most a few hundred (after the reduction, at most 30
#: free items).
_MAX_STATES = 200_000
#: The most states visited over the whole search (Python work: about a second per million).
_MAX_WORK = 20_000_000
#: Bytes per state, for the memory limit.
_STATE_BYTES = 200


def _scale(weights: list[int], capacity: int) -> int:
    """A power of two dividing which keeps every weight and the capacity below ``2**1000``.

    Python integers past ``2**1024`` do not convert to float; ``w / scale`` (a true division of
    integers) is correctly rounded.
    """
    return 1 << max(0, max(max(weights, default=0).bit_length(), capacity.bit_length()) - 1000)


def exact_knapsack(values: np.ndarray, weights: list[int], capacity: int, incumbent: float = -np.inf,
                   deadline: float | None = None, memory: int | None = None
                   ) -> tuple[np.ndarray, float] | None:
    """The 0-1 knapsack ``max v.y : w.y <= c`` with exact integer weights, or ``None``.

    Parameters
    ----------
    values : ndarray of float, shape (m,)
        Item values, ``> 0``.
    weights : list of int, length m
        Item weights, ``>= 0``, exact (any size).
    capacity : int
        ``c >= 0``, exact.
    incumbent : float, default -inf
        The value of a selection known to fit (its items' float sum), or less; states that cannot
        reach it are dropped.  A value above the optimum makes the search return ``None`` (unless
        every item fits: then all of them are the answer).
    deadline : float or None
        ``time.perf_counter()`` value after which the search gives up (``None``: none).
    memory : int or None
        Bytes the states may use (``None``: only the fixed cap on the number of states).

    Returns
    -------
    (take, value) or None
        ``take`` (ndarray of bool, shape (m,)) fits exactly (``w.take <= c`` in integers) and is
        optimal up to the rounding of float sums of the values (relative ``~m * 2**-52``);
        ``value`` is its float sum.  ``None`` when the search gave up (states, work, memory or
        deadline).
    """
    m = values.size
    if capacity < 0:
        return None
    scale = _scale(weights, capacity)
    wf, cf = np.array([w / scale for w in weights], dtype=float), capacity / scale
    eps = np.finfo(float).eps
    with np.errstate(divide="ignore"):
        eff = np.where(wf > 0, values / np.where(wf > 0, wf, 1.0), np.inf)
    order = np.argsort(-eff, kind="stable")
    # Greedy fill in efficiency order, exact fits; the break item gives the multiplier.
    take = np.zeros(m, dtype=bool)
    left = capacity
    lam = 0.0
    for i in order.tolist():
        if weights[i] <= left:
            take[i] = True
            left -= weights[i]
        elif lam == 0.0:
            lam = float(eff[i])
    greedy = float(values[take].sum())
    if lam == 0.0:  # everything fits
        return take, greedy
    best = max(incumbent, greedy)
    rc = values - lam * wf
    lagrange = lam * cf + float(np.maximum(rc, 0.0).sum())
    # Rounding of the float weights (relative eps each), of lam * w and of the sums of m terms;
    # lam * c <= sum(values): the items before the break item have efficiency >= lam and the
    # capacity left for the break item is below its weight.
    margin = 8.0 * (m + 8) * eps * float(values.sum()) + 1e-300
    # Reduction: an item whose flip bounds every selection below the incumbent keeps its LP side
    # (each flip's term rounded relative to its own magnitude too).
    fixed = lagrange - np.abs(rc) + margin + 4.0 * eps * (values + lam * wf) < best
    ones = fixed & (rc > 0)
    free = np.flatnonzero(~fixed)
    cap_left = capacity - sum(weights[i] for i in np.flatnonzero(ones).tolist())
    if cap_left < 0:
        return None  # the incumbent's value is not attainable: nothing to prove against
    base = float(values[ones].sum())
    # The free items, nearest the break efficiency first: the bound drops states early.
    free = free[np.argsort(np.abs(rc[free]), kind="stable")]
    fv = values[free].tolist()
    fw = [weights[i] for i in free.tolist()]
    frc = np.maximum(rc[free], 0.0)
    rest = np.concatenate((np.cumsum(frc[::-1])[::-1], [0.0])).tolist()  # sum of rc^+ of items k..
    limit = _MAX_STATES if memory is None else min(_MAX_STATES, memory // _STATE_BYTES)
    # States: weights ascending, values strictly ascending (Pareto); the items taken as a bit mask.
    sw: list[int] = [0]
    sv: list[float] = [base]
    sm: list[int] = [0]
    work = 0
    for k in range(len(fv)):
        work += len(sw)
        if (deadline is not None and time.perf_counter() > deadline) or work > _MAX_WORK:
            return None
        w, v, bit = fw[k], fv[k], 1 << k
        # Candidates: each state without item k, and with it where it fits.
        nw: list[int] = []
        nv: list[float] = []
        nm: list[int] = []
        i = j = 0
        n_old = len(sw)
        top = -math.inf
        floor = best - margin - rest[k + 1]
        while i < n_old or j < n_old:
            # Next candidate in weight order from the two sorted lists (old, old + item).
            if j < n_old and (sw[j] + w > cap_left):
                j = n_old  # the shifted list is sorted: nothing further fits
                continue
            if i < n_old and (j >= n_old or sw[i] <= sw[j] + w):
                cw, cv, cm = sw[i], sv[i], sm[i]
                i += 1
            else:
                cw, cv, cm = sw[j] + w, sv[j] + v, sm[j] | bit
                j += 1
            if cv <= top:
                continue  # dominated: a lighter state is worth at least as much
            # Lagrangian bound of the state over the items after k (remaining capacity exact).
            if cv + lam * ((cap_left - cw) / scale) < floor:
                continue
            if nw and nw[-1] == cw:  # same weight, more value: replace
                nv[-1], nm[-1] = cv, cm
            else:
                nw.append(cw)
                nv.append(cv)
                nm.append(cm)
            top = cv
        if not nw or len(nw) > limit:
            return None
        sw, sv, sm = nw, nv, nm
    # The best state (the last: values ascend); it must reach the incumbent's value.
    value, mask = sv[-1], sm[-1]
    if value < best - margin:
        return None
    out = np.zeros(m, dtype=bool)
    out[ones] = True
    chosen = [free[k] for k in range(len(fv)) if mask >> k & 1]
    out[chosen] = True
    return out, float(values[out].sum())
