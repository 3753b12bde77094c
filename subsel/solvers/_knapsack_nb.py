"""Compiled core search (numba) of the knapsack dynamic program of
:mod:`subsel.solvers._knapsack`: the expanding core with Pareto state lists, the bounds that drop
states, the reduction of items, combo's pairing of states with items, and the backtracking, in one call.
On integer data and on real-valued data alike: there every float it compares (a state's sums, its
bound, the free items' minima) comes from the numpy loop's operations in the numpy loop's order,
without fast-math, so the same floats.

It is a step-for-step port of the numpy loop of :func:`subsel.solvers._knapsack.solve_knapsack` (the
same start from combo's greedy solutions, the same items in the same order, one per step, the same
merge and dominance rule, the same float bounds computed by the same operations; a step does the
numpy loop's merge, dominance, incumbent and pruning in one pass), so both return the same selection on every input: the
choice among equal optima is the first optimum that search reaches, whichever path runs it.  The
surrogate relaxation (once per search) and the deadline stay in Python: the kernel returns to its
caller when the relaxation is due and after a budget of states, and is called again to resume.
On integer data in float64 (:func:`search_free`) the items are not all sorted: the break item is
found by a histogram over ranges of efficiency and a selection inside one range
(:func:`break_split`), and only the free items (those the reduction leaves) are sorted (a stable radix
sort, :func:`by_efficiency`), as combo's partial sorting avoids a full sort; the numpy loop never
looks at the other items, so the steps are the same.  :func:`start_free` runs that start and the
search up to its first return in one compiled call, and :func:`solve01` the whole default 0-1 call
of ``solve_knapsack`` (checks, totals, items, then :func:`start_free`): the fixed cost of a call is
that of one compiled call.

Longer than 600 lines on purpose: a port of one algorithm whose state is shared by all its parts
(the loop, its resumable state vector, the selection of the break item and the surrogate bounds).

Importing this module imports numba; :mod:`subsel.solvers._knapsack` imports it only when a knapsack
reaches the core search, never at ``import subsel``.  The functions are compiled on first use and
cached on disk in the folder of :func:`subsel.solvers._knapsack_jit.cache_dir`.

References
----------
D. Pisinger, "A minimal algorithm for the 0-1 knapsack problem", Operations Research 45(5):758-767,
1997.  S. Martello, D. Pisinger and P. Toth, "Dynamic programming and strong bounds for the 0-1
knapsack problem", Management Science 45(3):414-424, 1999 (Section 5: pairing of states with items).
"""
from __future__ import annotations

import math
import threading
import time
import warnings
from typing import Any, Callable

import numba as nb
import numpy as np

from ..models import MAX_EXACT_INT
from . import _knapsack
from ._knapsack import (
    _BLOCK,
    _BYTES_PER_STATE,
    _INT_MARGIN,
    _MANTISSA,
    _MAX_EFFICIENCY,
    _REFRESH_EVERY,
    KnapsackResult,
    _state_bounds,
)
from ._knapsack_jit import _numba_cache_dir, cache_dir

#: About the seconds per state of the bound of an unfinished search (reserved before its deadline).
_BOUND_SECONDS_PER_STATE = 1e-7
#: Every integer up to this is exact in float64 (compiled in as a float).
_EXACT = float(MAX_EXACT_INT)
#: The numpy loop's constants (compiled in as they are at import).
BLOCK = _BLOCK
#: Return codes of :func:`run`.
DONE, BUDGET, MEMORY, RELAX = 0, 1, 2, 3
#: Entries between two state buffers of one block (:func:`_state_sets`).
_SET_GAP = 40
#: Fields of the integer state vector ``ist`` of :func:`run`.
(I_S, I_T, I_SIDE, I_NITEMS, I_NBLOCKS, I_LAST_REFRESH, I_NEXT_PAIRING, I_RELAX_DONE, I_ZKIND,
 I_ZBLOCK, I_ZANC, I_ZEXTRA, I_SAVED, I_CORE_DONE, I_DIV) = range(15)
IST_SIZE = 15
#: Fields of the value vector ``zst`` (the profits' dtype): incumbent, incumbent at the last refresh,
#: global upper bound (on int64 data rounded up to an integer: ``z >= ub`` is then exact), the break
#: solution's weight (``I_DIV``: the capacity is rounded by ``_knapsack.free_capacity`` from it).
Z, Z_FRESH, UB, WB = 0, 1, 2, 3


@nb.njit(cache=False)
def _refresh(flip_bound: np.ndarray, w: np.ndarray, z: Any, integer: bool, margin: float, big: Any
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Free items (those an improving solution may flip) and their weight prefix/suffix minima
    (``big`` where there is none: inf, or the largest int64)."""
    m = w.size
    thr = z + 1.0 - margin
    cnt = 0
    free = np.empty(m, np.bool_)
    for j in range(m):
        f = flip_bound[j] >= thr if integer else flip_bound[j] > z
        free[j] = f
        if f:
            cnt += 1
    idx = np.empty(cnt, np.int64)
    min_left = np.empty(m, w.dtype)
    min_right = np.empty(m, w.dtype)
    k = 0
    cur = big
    for j in range(m):
        if free[j]:
            idx[k] = j
            k += 1
            if w[j] < cur:
                cur = w[j]
        min_left[j] = cur
    cur = big
    for j in range(m - 1, -1, -1):
        if free[j] and w[j] < cur:
            cur = w[j]
        min_right[j] = cur
    return idx, min_left, min_right


@nb.njit(cache=False)
def _free_capacity(c: Any, wb: Any, w: np.ndarray, idx: np.ndarray) -> Any:
    """``_knapsack.free_capacity``: ``c`` rounded down to ``wb`` plus a multiple of the greatest
    common divisor of the weights ``w[idx]`` (``c`` itself when it is at most 1)."""
    g = 0
    for q in range(idx.size):
        x = np.int64(w[idx[q]])
        while x != 0:
            g, x = x, g % x
        if g == 1:
            return c
    if g <= 1:
        return c
    return c - (c - wb) % g


@nb.njit(cache=False)
def _divisible(w: np.ndarray, idx: np.ndarray, c: float, wb: float) -> bool:
    """``_knapsack.divisible(w[idx], c, wb)`` on float64 data: the capacity below 2^53, the break
    weight ``wb`` and the weights ``w[idx]`` integral (their sums are then exact)."""
    if not (c < _EXACT and wb == np.floor(wb)):
        return False
    for q in range(idx.size):
        if w[idx[q]] != np.floor(w[idx[q]]):
            return False
    return True


@nb.njit(cache=False)
def _search_right(a: np.ndarray, v: Any) -> int:
    """``np.searchsorted(a, v, side="right")``."""
    lo, hi = 0, a.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if v < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@nb.njit(cache=False)
def _search_left(a: np.ndarray, v: Any) -> int:
    """``np.searchsorted(a, v, side="left")``."""
    lo, hi = 0, a.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=False)
def _bound(Wi: Any, Pi: Any, c: Any, has_left: bool, has_right: bool, eL: float, eR: float,
           mL: Any, mR: Any) -> float:
    """Upper bound of one state over all flips of the items outside the core: the formula of
    ``_knapsack._state_bounds``, with its operations in the same order (so the same float)."""
    slack = c - Wi
    if slack >= 0:
        if has_right:
            gain = eR * slack
            if slack < mR:
                if has_left:
                    gain = gain - (eL - eR) * (mR - slack)
                else:
                    gain = 0.0
            if gain < 0.0:
                gain = 0.0
            return Pi + gain
        return Pi + 0.0
    if has_left:
        om = -slack
        return Pi - eR * om - (eL - eR) * max(om, mL)
    return -np.inf


@nb.njit(cache=False)
def _improving(bound: float, z: Any, integer: bool, margin: float) -> bool:
    """Whether a bound still allows a solution strictly better than ``z``."""
    if integer:
        return bound >= z + 1.0 - margin
    return bound > z


@nb.njit(cache=False)
def _grow(a: np.ndarray, need: int) -> np.ndarray:
    """``a`` itself when it holds ``need`` entries, else a copy at least twice as long."""
    if need <= a.size:
        return a
    out = np.empty(max(need, 2 * a.size), a.dtype)
    out[:a.size] = a
    return out


@nb.njit(cache=False)
def _state_sets(n: int) -> np.ndarray:
    """One block for two state lists' buffers (weights, profits, ancestors, bits; ``n`` entries
    each), the eight at fixed distances (:func:`_carve`), so that the two lists a step reads and
    writes lie the same way relative to each other in every process (as separate allocations they
    fall anywhere, and how they fall changed the step's time by half)."""
    return np.empty(8 * (n + _SET_GAP), np.int64)


@nb.njit(cache=False)
def _carve(block: np.ndarray, like: np.ndarray) -> tuple[np.ndarray, ...]:
    """The eight buffers of :func:`_state_sets`'s ``block`` (weights and profits of ``like``'s dtype,
    ancestors, bits; twice): views, each as long as the block allows (0 for an empty block)."""
    stride = block.size // 8
    n = max(stride - _SET_GAP, 0)
    out = []
    for k in range(8):
        out.append(block[k * stride:k * stride + n])
    return (out[0].view(like.dtype), out[1].view(like.dtype), out[2], out[3].view(np.uint64),
            out[4].view(like.dtype), out[5].view(like.dtype), out[6], out[7].view(np.uint64))


@nb.njit(cache=False)
def run(p: np.ndarray, w: np.ndarray, e: np.ndarray, flip_bound: np.ndarray, c: Any, big: Any, b: int,
        integer: bool, margin: float, has_target: bool, mem_limit: int, budget: int, min_relax: int,
        W: np.ndarray, P: np.ndarray, anc: np.ndarray, bits: np.ndarray, items: np.ndarray,
        hist_anc: np.ndarray, hist_bits: np.ndarray, hist_off: np.ndarray,
        ist: np.ndarray, zst: np.ndarray, zbits: np.ndarray, spare: np.ndarray
        ) -> tuple[Any, ...]:
    """Run the core search from the state given until it ends, the relaxation is due or ``budget``
    states have been processed.

    Parameters
    ----------
    p, w : ndarray, shape (m,)
        Profits and weights in efficiency order (float64 holding integers, or int64).
    e, flip_bound : ndarray of float, shape (m,)
        Efficiencies and the Dembo-Hammer bounds of flipping each item.
    c, big, b : scalar, scalar, int
        Capacity (the profits' type), the weights' "none" (inf, or the largest int64) and break item.
    integer, margin : bool, float
        The pruning rule ``bound >= z + 1 - margin`` (else ``bound > z``).
    has_target : bool
        Stop at the first improvement of ``z`` (the numpy path's ``target``).
    mem_limit, budget, min_relax : int
        Bytes the state lists may take (-1: none); states to process before returning; the list
        length past which the relaxation is due.
    W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits
        The search's state (see the module's fields); ``ist``, ``zst``, ``zbits`` updated in place.
    spare : ndarray of int64
        A block of buffers for two state lists' weights, profits, ancestors and bits
        (:func:`_state_sets`), of any length (replaced by a larger one when too short): the list is
        copied into the second set, and each one-item step writes the next list into the other
        (:func:`take_spare`).

    Returns
    -------
    (code, W, P, anc, bits, hist_anc, hist_bits, hist_off, spare)
        ``DONE`` (optimal), ``BUDGET`` (call again), ``MEMORY`` (stopped by the memory limit) or
        ``RELAX`` (the caller runs the surrogate relaxation, sets ``I_RELAX_DONE``, calls again);
        the state arrays (views of the buffers returned) and the buffers.
    """
    m = p.size
    s = ist[I_S]
    t = ist[I_T]
    side = ist[I_SIDE]
    n_items = ist[I_NITEMS]
    n_blocks = ist[I_NBLOCKS]
    last_refresh = ist[I_LAST_REFRESH]
    next_pairing = ist[I_NEXT_PAIRING]
    z = zst[Z]
    z_fresh = zst[Z_FRESH]
    ub_global = zst[UB]
    free_idx, min_left, min_right = _refresh(flip_bound, w, z_fresh, integer, margin, big)
    # The capacity an improving solution can use (numpy: free_capacity); c0 the capacity itself.
    c0 = c
    if ist[I_DIV] != 0:
        c = _free_capacity(c0, zst[WB], w, free_idx)
    work = 0
    code = DONE
    # The state list lives at the start of the buffers cW, cP, cA, cB; a single-item step writes
    # the next list into the spare buffers bW, bP, bA, bB and swaps them.
    bW, bP, bA, bB, cW, cP, cA, cB = _carve(spare, W)
    size = W.size
    if cW.size < size:
        spare = _state_sets(max(2 * size, 64))
        bW, bP, bA, bB, cW, cP, cA, cB = _carve(spare, W)
    cW[:size] = W          # (the same values when W already is the start of cW: a resumed search)
    cP[:size] = P
    cA[:size] = anc
    cB[:size] = bits
    W, P, anc, bits = cW[:size], cP[:size], cA[:size], cB[:size]
    while True:
        if W.size == 0 or (s < 0 and t >= m) or z >= ub_global or (has_target and ist[I_ZKIND] != 0):
            code = DONE
            break
        if work > budget:
            code = BUDGET
            break
        if mem_limit >= 0 and ist[I_SAVED] + W.size * _BYTES_PER_STATE > mem_limit:
            code = MEMORY
            break
        if ist[I_RELAX_DONE] == 0 and W.size > min_relax:
            code = RELAX
            break
        work += W.size
        if W.size > next_pairing:
            # Combo's pairing of states with the items outside the core (numpy: _pair_states).
            next_pairing = 2 * W.size
            found = False
            best = z
            best_k = 0
            best_j = 0
            for sgn in (1, -1):
                if integer and found and best >= ub_global:   # (nothing beats the bound: combo stops)
                    break
                first = True
                cand_best = z
                ck = 0
                cj = 0
                if sgn == 1:
                    lo = _search_left(free_idx, t)
                    hi = free_idx.size
                else:
                    lo = 0
                    hi = _search_right(free_idx, s) if s >= 0 else 0
                for q in range(lo, hi):
                    j = free_idx[q]
                    k = _search_right(W, c - sgn * w[j]) - 1
                    if k < 0:
                        continue
                    cv = P[k] + sgn * p[j]
                    if first or cv > cand_best:
                        cand_best, ck, cj, first = cv, k, j, False
                        if integer and cand_best >= ub_global:   # (the first maximum, as numpy argmax)
                            break
                if not first and (not found or cand_best > best):
                    best, best_k, best_j, found = cand_best, ck, cj, True
            if found and best > z:
                z = best
                ist[I_ZKIND] = 1
                ist[I_ZBLOCK] = n_blocks
                ist[I_ZANC] = anc[best_k]
                zbits[0] = bits[best_k]
                ist[I_ZEXTRA] = best_j
                continue
        if z > z_fresh and n_items - last_refresh >= _REFRESH_EVERY:
            free_idx, min_left, min_right = _refresh(flip_bound, w, z, integer, margin, big)
            z_fresh = z
            last_refresh = n_items
            if ist[I_DIV] != 0:
                c = _free_capacity(c0, zst[WB], w, free_idx)
        # The next item, alternating sides (when one side is exhausted, the other).
        if (side == 1 and t < m) or s < 0:
            j = t
            q = _search_right(free_idx, t)
            t = free_idx[q] if q < free_idx.size else m
        else:
            j = s
            q = _search_left(free_idx, s) - 1
            s = free_idx[q] if q >= 0 else -1
        side = -side
        shift = np.uint64(n_items % BLOCK)
        has_left, has_right = s >= 0, t < m
        eL = e[s] if has_left else np.inf
        eR = e[t] if has_right else 0.0
        mL = min_left[s] if has_left else min_left[0]
        mR = min_right[t] if has_right else min_right[0]
        size = W.size
        # Merge, dominance, incumbent and bounds in one pass, into the spare buffers.  The incumbent
        # (the merged front's heaviest feasible state, i.e. its most profitable one) is known before
        # the pass from the two lists: the states are pruned against it.
        dw = w[j] if j >= b else -w[j]
        dp = p[j] if j >= b else -p[j]
        z_new = z
        k = _search_right(W, c) - 1
        if k >= 0 and P[k] > z_new:
            z_new = P[k]
        k = _search_right(W, c - dw) - 1
        if k >= 0 and P[k] + dp > z_new:
            z_new = P[k] + dp
        if bW.size < 2 * size:
            spare = _state_sets(max(2 * size, 2 * bW.size))
            bW, bP, bA, bB, cW, cP, cA, cB = _carve(spare, W)
            cW[:size] = W
            cP[:size] = P
            cA[:size] = anc
            cB[:size] = bits
            W, P, anc, bits = cW[:size], cP[:size], cA[:size], cB[:size]
        n = 0
        i1 = 0
        i2 = 0
        run_max = P[0]
        first = True
        inc_anc = 0
        inc_bits = np.uint64(0)
        flag = np.uint64(1) << shift
        while i1 < size or i2 < size:
            # List 1 before list 2 on equal weights (np.searchsorted side="right").
            if i2 >= size or (i1 < size and W[i1] <= W[i2] + dw):
                wi, pi, src, bt = W[i1], P[i1], i1, bits[i1]
                i1 += 1
            else:
                wi, pi, src, bt = W[i2] + dw, P[i2] + dp, i2, bits[i2] | flag
                i2 += 1
            if first or pi > run_max:
                # On the front: it dominates a kept state of equal weight (numpy: _pareto).
                run_max = pi
                if n > 0 and bW[n - 1] == wi:
                    n -= 1
                if wi <= c:
                    inc_anc, inc_bits = anc[src], bt
                if _improving(_bound(wi, pi, c, has_left, has_right, eL, eR, mL, mR), z_new, integer,
                              margin):
                    bW[n], bP[n], bA[n], bB[n] = wi, pi, anc[src], bt
                    n += 1
            first = False
        cW, bW = bW, cW
        cP, bP = bP, cP
        cA, bA = bA, cA
        cB, bB = bB, cB
        W, P, anc, bits = cW[:n], cP[:n], cA[:n], cB[:n]
        items[n_items] = j
        n_items += 1
        if z_new > z:
            z = z_new
            ist[I_ZKIND] = 1
            ist[I_ZBLOCK] = n_blocks
            ist[I_ZANC] = inc_anc
            zbits[0] = inc_bits
            ist[I_ZEXTRA] = -1
        if n_items % BLOCK == 0:
            end = hist_off[n_blocks] + W.size
            hist_anc = _grow(hist_anc, end)
            hist_bits = _grow(hist_bits, end)
            hist_off = _grow(hist_off, n_blocks + 2)
            hist_anc[hist_off[n_blocks]:end] = anc
            hist_bits[hist_off[n_blocks]:end] = bits
            n_blocks += 1
            hist_off[n_blocks] = end
            ist[I_SAVED] += 16 * W.size
            for i in range(W.size):
                anc[i] = i
                bits[i] = 0
    ist[I_S] = s
    ist[I_T] = t
    ist[I_SIDE] = side
    ist[I_NITEMS] = n_items
    ist[I_NBLOCKS] = n_blocks
    ist[I_LAST_REFRESH] = last_refresh
    ist[I_NEXT_PAIRING] = next_pairing
    zst[Z] = z
    zst[Z_FRESH] = z_fresh
    return code, W, P, anc, bits, hist_anc, hist_bits, hist_off, spare


@nb.njit(cache=False)
def backtrack(take: np.ndarray, items: np.ndarray, hist_anc: np.ndarray, hist_bits: np.ndarray,
              hist_off: np.ndarray, block: int, ancestor: int, flips: np.uint64, extra: int, b: int) -> None:
    """Flip, in ``take`` (the break solution, in place), the core items of the incumbent's history."""
    if extra >= 0:
        take[extra] = extra >= b
    while True:
        for pos in range(BLOCK):
            if (flips >> np.uint64(pos)) & np.uint64(1):
                item = items[block * BLOCK + pos]
                take[item] = item >= b
        if block == 0:
            return
        block -= 1
        q = hist_off[block] + ancestor
        ancestor, flips = hist_anc[q], hist_bits[q]


@nb.njit(cache=False)
def _before(e: np.ndarray, i: int, j: int) -> bool:
    """Whether item ``i`` precedes item ``j`` in the stable order by decreasing efficiency."""
    return e[i] > e[j] or (e[i] == e[j] and i < j)


@nb.njit(cache=False)
def _pivot_positions(lo: int, hi: int) -> tuple[int, int, int]:
    """Three positions in ``[lo, hi)`` drawn by a linear congruential hash of ``(lo, hi)``: the
    candidates of a selection's pivot (deterministic, and not fooled by sorted or rotated input)."""
    n = hi - lo
    h = ((lo & 0xFFFFFFFF) * 1103515245 + (hi & 0xFFFFFFFF) * 1664525 + 12345) & 0xFFFFFFFF  # (no overflow)
    q1 = lo + h % n
    h = (h * 1103515245 + 12345) & 0xFFFFFFFF
    q2 = lo + h % n
    h = (h * 1103515245 + 12345) & 0xFFFFFFFF
    return q1, q2, lo + h % n


@nb.njit(cache=False)
def _partition(e: np.ndarray, w: np.ndarray, idx: np.ndarray, lo: int, hi: int) -> tuple[int, Any]:
    """Partition ``idx[lo:hi]`` around a pivot in the stable order by decreasing ``e``: returns the
    pivot's new position ``i`` (``idx[lo:i]`` precede it) and their weight.

    The pivot is the median of three entries at positions drawn by a multiplicative hash of
    ``(lo, hi)`` (deterministic): the median of the first, middle and last entries degenerates on
    the sorted input the surrogate bound passes (the part after a pivot comes out rotated, and the
    next pivots fall next to its start: ten times the work at 10^4 items)."""
    q1, q2, q3 = _pivot_positions(lo, hi)
    a, b_, c_ = idx[q1], idx[q2], idx[q3]
    if _before(e, a, b_):
        a, b_ = b_, a
    if _before(e, b_, c_):
        b_ = c_
        if _before(e, a, b_):
            b_ = a
    piv = b_
    i, j = lo, hi - 1
    wb = w[0] - w[0]
    k = lo
    while k <= j:
        x = idx[k]
        if x != piv and _before(e, x, piv):
            idx[k], idx[i] = idx[i], idx[k]
            wb += w[x]
            i += 1
            k += 1
        elif x == piv:
            k += 1
        else:
            idx[k], idx[j] = idx[j], idx[k]
            j -= 1
    for q in range(i, j + 1):
        if idx[q] == piv:
            idx[q], idx[i] = idx[i], idx[q]
            break
    return i, wb


@nb.njit(cache=False)
def dantzig(p: np.ndarray, w: np.ndarray, c: Any, step: Any, grow: int) -> tuple[float, float]:
    """``_knapsack._dantzig`` (Dantzig bound, and its estimate at weights ``+ step``, capacity
    ``+ grow * step``) without the sort: the break item of the stable order by decreasing ``p / w``
    (``w > 0``) found by selection in expected linear time (Martello and Toth, *Knapsack Problems*,
    1990, Section 2.2.2).  The items before it, the break item and so every float operation are
    those of the sorted computation: the same numbers."""
    return _dantzig_e(p, w, p / w, c, step, grow)


@nb.njit(cache=False)
def _dantzig_e(p: np.ndarray, w: np.ndarray, e: np.ndarray, c: Any, step: Any, grow: int) -> tuple[float, float]:
    """:func:`dantzig` given the efficiencies ``e = p / w``."""
    n = p.size
    idx = np.arange(n)
    lo, hi = 0, n
    wacc = w[0] - w[0]
    pacc = p[0] - p[0]
    nb_ = 0
    brk = -1
    while lo < hi:
        i, wb = _partition(e, w, idx, lo, hi)
        piv = idx[i]
        if wacc + wb > c:
            hi = i
            continue
        wacc += wb
        for q in range(lo, i):
            pacc += p[idx[q]]
        nb_ += i - lo
        if wacc + w[piv] > c:
            brk = piv
            break
        wacc += w[piv]
        pacc += p[piv]
        nb_ += 1
        lo = i + 1
    pb = float(pacc)
    if brk < 0:
        return pb, pb
    r = float(c) - float(wacc) if nb_ else float(c) - 0.0
    pj, wj = float(p[brk]), float(w[brk])
    return pb + r * pj / wj, pb + max(r + (grow - nb_) * step, 0.0) * pj / (wj + step)


@nb.njit(cache=False)
def surrogate_multiplier(p: np.ndarray, w: np.ndarray, c: Any, card: int, k_lo: int, k_hi: int, unit: Any
                         ) -> tuple[float, int, bool]:
    """The integer bisection of ``_knapsack._surrogate_relaxation`` on the multiplier ``s = k unit``,
    ``k_lo <= k <= k_hi``, led by the sign of the bound's slope: the least surrogate bound met and its
    ``k``, by the same steps on :func:`surrogate_bound`'s numbers.  The third answer is False (the
    caller then runs the bisection itself) when some multiplier makes every item always taken."""
    best_u = np.inf
    best_k = 0
    while k_lo <= k_hi:
        k = (k_lo + k_hi) // 2
        u0, u1, every = surrogate_bound(p, w, c, k * unit, card, unit)
        if every:
            return np.inf, 0, False
        if u0 < best_u:
            best_u, best_k = u0, k
        if u1 > u0:
            k_hi = k - 1
        else:
            k_lo = k + 1
    return best_u, best_k, True


@nb.njit(cache=False)
def surrogate_bound(p: np.ndarray, w: np.ndarray, c: Any, s: Any, card: int, step: Any
                    ) -> tuple[float, float, bool]:
    """The first two answers of ``_knapsack._surrogate_bound`` (the surrogate problem's Dantzig bound
    and its estimate at ``s + step``), by the same operations; the third is True when every item is
    always taken (then the caller asks ``_surrogate_bound``: its answer is an exact sum)."""
    n = p.size
    cnt = 0
    wsum = w[0] - w[0] + s - s
    p0 = p[0] - p[0]
    pr = np.empty(n, p.dtype)
    wr = np.empty(n, w.dtype)
    er = np.empty(n, np.float64)
    k = 0
    for j in range(n):      # (one pass: the items always taken, and the others with their efficiencies)
        ws = w[j] + s
        if ws <= 0:
            cnt += 1
            wsum += ws
            p0 += p[j]
        else:
            pr[k] = p[j]
            wr[k] = ws
            er[k] = p[j] / ws
            k += 1
    cs = c + s * card - wsum
    if cs < 0:
        return -np.inf, -np.inf, False
    if cnt == n:
        return 0.0, 0.0, True
    u, u_next = _dantzig_e(pr[:k], wr[:k], er[:k], cs, step, card - cnt)
    return p0 + u, p0 + u_next, False


def _enable_caching() -> None:
    """Attach the disk cache to the kernels; without a writable cache folder they are compiled in
    each process instead (warned)."""
    try:
        with _numba_cache_dir(cache_dir()):
            for kernel in (_refresh, _free_capacity, _search_right, _search_left, _bound, _improving, _grow,
                           _state_sets, _carve, run, backtrack, _before, _pivot_positions, _partition, dantzig,
                           _dantzig_e, surrogate_multiplier, surrogate_bound,
                           break_solution, break_split, count_fit, by_efficiency, _divisible, greedy_one,
                           greedy_free, start_free,
                           weight_grid, relax_free, solve01):
                kernel.enable_caching()
    except Exception as exc:  # no writable folder: compile per process
        warnings.warn(f"solve_knapsack: no cache for the compiled kernel in {cache_dir()} ({exc}); it is "
                      "compiled in each process", RuntimeWarning, stacklevel=2)



def _start_state(p: np.ndarray, w: np.ndarray, flip_bound: np.ndarray, capacity: Any, b: int, Pb: Any, Wb: Any,
                 z: Any, ub_global: Any, margin: float, relax_done: bool, exact_int: bool,
                 integer: bool = True) -> tuple[Any, ...]:
    """The search's arrays at its start (the break solution's one state), as :func:`run` takes them;
    ``ist[I_DIV]`` whether the capacity is rounded to the free items' divisor (``_knapsack.divisible``
    on the items free at ``z``), ``zst[WB]`` the break solution's weight it is rounded from."""
    m = p.size
    W = np.array([Wb], dtype=p.dtype)
    P = np.array([Pb], dtype=p.dtype)
    anc = np.zeros(1, dtype=np.int64)
    bits = np.zeros(1, dtype=np.uint64)
    items = np.empty(m, dtype=np.int64)
    hist_anc = np.empty(64, dtype=np.int64)
    hist_bits = np.empty(64, dtype=np.uint64)
    hist_off = np.zeros(8, dtype=np.int64)
    free_idx = np.flatnonzero(_free(flip_bound, z, integer, margin))
    k = int(np.searchsorted(free_idx, b - 1, side="right")) - 1
    s = int(free_idx[k]) if k >= 0 else -1
    k = int(np.searchsorted(free_idx, b, side="left"))
    t = int(free_idx[k]) if k < free_idx.size else m
    ist = np.zeros(IST_SIZE, dtype=np.int64)
    ist[I_S], ist[I_T], ist[I_SIDE] = s, t, 1
    ist[I_NEXT_PAIRING], ist[I_RELAX_DONE] = _knapsack._MIN_PAIRING, int(relax_done)
    ist[I_DIV] = int(_knapsack.divisible(w[free_idx], capacity, Wb))
    zst = np.array([z, z, _ub_value(ub_global, exact_int), Wb], dtype=p.dtype)
    zbits = np.zeros(1, dtype=np.uint64)
    return W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits


def search(p: np.ndarray, w: np.ndarray, e: np.ndarray, flip_bound: np.ndarray, capacity: Any, b: int,
           Pb: Any, Wb: Any, z: Any, ub_global: Any, margin: float, has_target: bool,
           deadline: float | None, memory_limit: int | None, relax_done: bool,
           relax: Callable[[Any, int | None], tuple[Any, Any, np.ndarray | None]],
           lp: float, order: np.ndarray, take_sorted: np.ndarray, base: np.ndarray | None = None,
           state: tuple[Any, ...] | None = None, integer: bool = True, z_take: np.ndarray | None = None,
           spare: np.ndarray | None = None) -> KnapsackResult:
    """The core search of :func:`subsel.solvers._knapsack.solve_knapsack`, compiled.

    Called by it with the data in efficiency order and the search's start (break item ``b``, break
    solution ``(Pb, Wb)``, incumbent ``z``, global bound ``ub_global``); ``relax(z, room)`` runs the
    surrogate relaxation and returns ``(bound, value, take or None)``.  Same answer as the numpy loop.
    ``state``: the search's arrays ``(W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst,
    zbits)`` where :func:`start_free` left them (``Pb``, ``Wb``, ``z`` and ``relax_done`` then unused).
    ``integer``: the pruning rule of integer data (``bound >= z + 1 - margin``); ``False`` on real
    data (``bound > z``), where every float the search compares is computed by the numpy loop's
    operations in its order (the bounds term by term), so the answer is the same there too.
    ``z_take``: the incumbent's items (in the caller's order) when it is not the break solution (a
    greedy solution of value ``z``).  ``spare``: buffers for :func:`run` (:func:`take_spare` when
    None), handed back to the pool at the end.

    Returns
    -------
    KnapsackResult
    """
    exact_int = p.dtype == np.int64
    big: Any = np.int64(np.iinfo(np.int64).max) if exact_int else np.inf
    if state is None:
        state = _start_state(p, w, flip_bound, capacity, b, Pb, Wb, z, ub_global, margin, relax_done, exact_int,
                             integer)
    W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits = state
    if z_take is not None:
        ist[I_ZKIND] = 2
    optimal = False
    stopped = ""
    mem = -1 if memory_limit is None else int(memory_limit)
    budget = 2 ** 62 if deadline is None else 200_000
    last = 0.0   # seconds of the last call of run
    if spare is None:
        spare = take_spare()
    while True:
        now = time.perf_counter()
        # Stop before the deadline when another call like the last, and the final bound over the
        # states (about 1e-7 s each), would end past it: a call on millions of states takes tenths
        # of a second, and ending past the limit by that much is not honouring it.
        if deadline is not None and now + last + W.size * _BOUND_SECONDS_PER_STATE > deadline:
            stopped = "time"
            break
        code, W, P, anc, bits, hist_anc, hist_bits, hist_off, spare = run(
            p, w, e, flip_bound, capacity, big, b, integer, margin, has_target, mem, budget, _knapsack._MIN_RELAX,
            W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits, spare)
        last = time.perf_counter() - now
        if code == BUDGET:
            continue
        if code == RELAX:
            ist[I_RELAX_DONE] = 1
            room = None if memory_limit is None else memory_limit - int(ist[I_SAVED]) - W.size * _BYTES_PER_STATE
            u, z_new, take_new = relax(zst[Z].item(), room)
            ub_global = min(ub_global, u)
            zst[UB] = _ub_value(ub_global, exact_int)
            if take_new is not None and z_new > zst[Z].item():
                zst[Z], ist[I_ZKIND], z_take = z_new, 2, take_new
            continue
        if code == MEMORY:
            stopped = "memory"
        optimal = code == DONE
        break
    if ist[I_ZKIND] == 2 and z_take is not None:   # (already in the caller's order)
        out = z_take
    else:
        if ist[I_ZKIND] == 1:
            take_sorted = take_sorted.copy()
            backtrack(take_sorted, items, hist_anc, hist_bits, hist_off, int(ist[I_ZBLOCK]), int(ist[I_ZANC]),
                      zbits[0], int(ist[I_ZEXTRA]), b)
        out = np.zeros(order.size, dtype=bool) if base is None else base.copy()
        out[order] = take_sorted
    res = _result(out, W, P, capacity, e, w, flip_bound, big, margin, ist, zst, optimal, lp, ub_global, stopped,
                  integer)
    give_spare(spare)   # (W and P are views of it: handed back once read)
    return res


def _free(flip_bound: np.ndarray, z: Any, integer: bool, margin: float) -> np.ndarray:
    """The items an improving solution may flip (the numpy loop's ``improving(flip_bound, z)``)."""
    return flip_bound >= z + 1.0 - margin if integer else flip_bound > z


def _result(take: np.ndarray, W: np.ndarray, P: np.ndarray, capacity: Any, e: np.ndarray, w: np.ndarray,
            flip_bound: np.ndarray, big: Any, margin: float, ist: np.ndarray, zst: np.ndarray, optimal: bool,
            lp: float, ub_global: Any, stopped: str, integer: bool = True) -> KnapsackResult:
    """The search's answer (``take`` in the caller's order), with the bound of an unfinished search."""
    z = zst[Z].item()
    if optimal:
        bound = z
    else:
        free = _free(flip_bound, zst[Z_FRESH].item(), integer, margin)
        wf = np.where(free, w, big)
        min_left, min_right = np.minimum.accumulate(wf), np.minimum.accumulate(wf[::-1])[::-1]
        ub = _state_bounds(W, P, capacity, int(ist[I_S]), int(ist[I_T]), e, min_left, min_right, e.size) \
            if W.size else np.zeros(0)
        bound = min(lp, ub_global, max(z, float(ub.max()) if ub.size else z))
    return KnapsackResult(take, z, lp, bound, optimal, int(ist[I_NITEMS]), stopped)


@nb.njit(cache=False)
def count_fit(a: np.ndarray, cap: Any, largest: bool) -> int:
    """The most entries of ``a`` (``>= 0``) whose sum stays ``<= cap``, taking the smallest first (the
    largest first when ``largest``): ``np.searchsorted(np.cumsum(np.sort(a)), cap, side="right")``
    (``np.sort(a)[::-1]`` when ``largest``) by selection instead of a sort (the count and the sums,
    exact on integers, do not depend on the order of equal entries)."""
    v = -a if largest else a.copy()
    n = v.size
    lo, hi = 0, n
    acc = a[0] - a[0] if n else cap - cap
    cnt = 0
    while lo < hi:
        q1, q2, q3 = _pivot_positions(lo, hi)
        x, y, z = v[q1], v[q2], v[q3]
        piv = max(min(x, y), min(max(x, y), z))
        # Three-way partition of v[lo:hi]: below the pivot, equal, above.
        i, k, j = lo, lo, hi - 1
        s_less = acc - acc
        while k <= j:
            if v[k] < piv:
                v[i], v[k] = v[k], v[i]
                s_less += -v[i] if largest else v[i]
                i += 1
                k += 1
            elif v[k] > piv:
                v[k], v[j] = v[j], v[k]
                j -= 1
            else:
                k += 1
        if acc + s_less > cap:
            hi = i
            continue
        acc += s_less
        cnt += i - lo
        one = -piv if largest else piv
        for _ in range(i, j + 1):
            if acc + one > cap:
                return cnt
            acc += one
            cnt += 1
        lo = j + 1
    return cnt


@nb.njit(cache=False)
def break_solution(e: np.ndarray, w: np.ndarray, c: Any) -> tuple[np.ndarray, int]:
    """The break solution of the stable order by decreasing efficiency ``e`` without sorting: the
    items before the break item (a mask) and the break item (-1 when everything fits), by selection
    in expected linear time (Martello and Toth, *Knapsack Problems*, 1990, Section 2.2.2)."""
    n = e.size
    idx = np.arange(n)
    before = np.zeros(n, np.bool_)
    lo, hi = 0, n
    wacc = w[0] - w[0]
    while lo < hi:
        i, wb = _partition(e, w, idx, lo, hi)
        if wacc + wb > c:
            hi = i
            continue
        wacc += wb
        for q in range(lo, i):
            before[idx[q]] = True
        k = idx[i]
        if wacc + w[k] > c:
            return before, k
        wacc += w[k]
        before[k] = True
        lo = i + 1
    return before, -1


@nb.njit(cache=False)
def by_efficiency(e: np.ndarray, F: np.ndarray) -> np.ndarray:
    """The items ``F`` (ascending) in the stable order by decreasing ``e`` (no NaN): ``F[np.argsort(-e[F],
    kind="stable")]``, by a least-significant-digit radix sort (stable) on the float's bits made
    monotone (``-0.0`` as ``0.0``), one byte per pass, passes whose byte is the same for every item
    skipped (Knuth, *The Art of Computer Programming* 3, Section 5.2.5)."""
    n = F.size
    q = 1
    while q < n and e[F[q - 1]] >= e[F[q]]:
        q += 1
    if q >= n:              # already in that order (equal efficiencies: subset sum)
        return F.copy()
    sign = np.uint64(1) << np.uint64(63)
    key = np.empty(n, np.uint64)
    bits = e.view(np.uint64)
    for q in range(n):
        j = F[q]
        u = np.uint64(0) if e[j] == 0.0 else bits[j]
        u = ~u if u & sign else u | sign          # monotone in the value ...
        key[q] = ~u                                # ... decreasing
    count = np.zeros((8, 257), np.int64)
    for q in range(n):
        u = key[q]
        for d in range(8):
            count[d, ((u >> np.uint64(8 * d)) & np.uint64(255)) + np.uint64(1)] += 1
    src_k, src_f = key, F.copy()
    dst_k, dst_f = np.empty(n, np.uint64), np.empty(n, np.int64)
    for d in range(8):
        c = count[d]
        if c.max() == n:        # one byte value for every item: the pass keeps the order
            continue
        for v in range(256):
            c[v + 1] += c[v]
        sh = np.uint64(8 * d)
        for q in range(n):
            v = (src_k[q] >> sh) & np.uint64(255)
            pos = c[v]
            c[v] = pos + 1
            dst_k[pos] = src_k[q]
            dst_f[pos] = src_f[q]
        src_k, dst_k = dst_k, src_k
        src_f, dst_f = dst_f, src_f
    return src_f

#: Most ranges of efficiency of the histogram :func:`break_split` finds the break item's range with.
_BUCKETS = 2048


@nb.njit(cache=False)
def break_split(p: np.ndarray, w: np.ndarray, e: np.ndarray, c: Any) -> tuple[np.ndarray, int, Any, Any, int, int]:
    """:func:`break_solution` with the sums and the neighbours :func:`greedy_one` needs, in three
    passes over the items: a histogram of the profits and weights over ranges of efficiency (the
    leading bits of the float, at most :data:`_BUCKETS` ranges, fewer for fewer items), the range
    that holds the break item found from the top, then the selection of :func:`break_solution` only
    among the items of that range (the bucket step of a distributive partitioning; Martello and
    Toth, *Knapsack Problems*, 1990, Section 2.2.2, find the break item by selection).

    The weights must be ``>= 0`` and every sum of profits and of weights exact (integers, or a
    power-of-two grid, with totals below 2^53), so that their order does not matter.

    Returns
    -------
    tuple
        ``(before, brk, Pb, Wb, a, k)``: the items before the break item in the stable order by
        decreasing ``e`` (a mask; every item when ``brk`` is -1: everything fits), the break item,
        the break solution's profit and weight, the last item before the break item and the first
        after it in that order (-1 when there is none, or when everything fits).
    """
    n = e.size
    zero = c - c
    if n == 0:
        return np.ones(0, np.bool_), -1, zero, zero, -1, -1
    bits = e.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    key = np.empty(n, np.uint64)
    lo = ~np.uint64(0)
    hi = np.uint64(0)
    for j in range(n):     # the float's bits made monotone in its value (-0.0 as 0.0)
        u = bits[j] if e[j] != 0.0 else np.uint64(0)
        u ^= (np.uint64(0) - (u >> np.uint64(63))) | sign
        key[j] = u
        lo = min(lo, u)
        hi = max(hi, u)
    ranges = np.uint64(max(16, min(_BUCKETS, n)))
    s = np.uint64(0)
    while (hi >> s) - (lo >> s) >= ranges:
        s += np.uint64(1)
    base = lo >> s
    nr = int((hi >> s) - base) + 1
    cnt = np.zeros(nr, np.int64)
    ws = np.zeros(nr, w.dtype)
    ps = np.zeros(nr, p.dtype)
    for j in range(n):
        r = int((key[j] >> s) - base)
        cnt[r] += 1
        ws[r] += w[j]
        ps[r] += p[j]
    wacc = zero
    pacc = zero
    rb = -1
    for r in range(nr - 1, -1, -1):
        if wacc + ws[r] > c:
            rb = r
            break
        wacc += ws[r]
        pacc += ps[r]
    if rb < 0:      # everything fits
        return np.ones(n, np.bool_), -1, pacc, wacc, -1, -1
    above = rb + 1  # the nearest ranges with items above and below the break item's
    while above < nr and cnt[above] == 0:
        above += 1
    below = rb - 1
    while below >= 0 and cnt[below] == 0:
        below -= 1
    before = np.empty(n, np.bool_)
    inside = np.empty(cnt[rb], np.int64)
    q = 0
    a = -1
    k = -1
    for j in range(n):
        r = int((key[j] >> s) - base)
        before[j] = r > rb
        if r == rb:
            inside[q] = j
            q += 1
        elif r == above:
            if a < 0 or _before(e, a, j):
                a = j
        elif r == below:
            if k < 0 or _before(e, j, k):
                k = j
    local, brk_local = break_solution(e[inside], w[inside], c - wacc)
    a_in = -1
    k_in = -1
    for q in range(inside.size):   # the range's items come later than those above, earlier than below
        j = inside[q]
        if local[q]:
            before[j] = True
            pacc += p[j]
            wacc += w[j]
            if a_in < 0 or _before(e, a_in, j):
                a_in = j
        elif q != brk_local and (k_in < 0 or _before(e, j, k_in)):
            k_in = j
    return before, inside[brk_local], pacc, wacc, a_in if a_in >= 0 else a, k_in if k_in >= 0 else k


@nb.njit(cache=False)
def greedy_one(p: np.ndarray, w: np.ndarray, e: np.ndarray, before: np.ndarray, brk: int, a: int, k2: int,
               Pb: float, Wb: float, capacity: float, lp: float, eb: float, thr: float
               ) -> tuple[float, int, int, int, np.ndarray, np.ndarray]:
    """:func:`greedy_free` in one pass, given the neighbours ``a`` and ``k2`` of the break item
    (:func:`break_split`), and in the same pass the items whose flip bound ``lp - |p_j - eb w_j|``
    (``_knapsack.flip_bounds``) reaches ``thr``.  The same solutions, ties and float operations as
    :func:`greedy_free`.

    Returns ``(value, f1, f2, f3, cand, fb)``: the best greedy value (``Pb`` when none is better),
    the items it flips in the break solution (-1: none), and the items of flip bound ``>= thr`` in
    increasing index with their flip bounds."""
    n = p.size
    r0 = capacity - Wb
    need1 = w[brk] - r0
    lim = r0 + w[a] if a >= 0 else -np.inf
    need2 = (w[brk] + w[k2]) - r0 if k2 >= 0 else np.inf
    j1, j2, q1, q2 = -1, -1, -1, -1
    pj1, pj2, pq1, pq2 = -np.inf, -np.inf, np.inf, np.inf   # their profits
    cand = np.empty(n, np.int64)
    fb = np.empty(n, np.float64)
    m = 0
    for j in range(n):
        pj = p[j]
        wj = w[j]
        f = lp - np.abs(pj - eb * wj)
        if f >= thr:
            cand[m] = j
            fb[m] = f
            m += 1
        # Whether the item is before the break item is a coin flip on most classes: the conditions
        # are combined without branching on it, the rare improvements branch.
        bj = before[j]
        ok = bj & (wj >= need1)
        key = pj if ok else np.inf
        if key <= pq1 and ok and (q1 < 0 or key < pq1 or _before(e, j, q1)):
            q1, pq1 = j, key
        ok = bj & (wj >= need2)
        key = pj if ok else np.inf
        if key <= pq2 and ok and (q2 < 0 or key < pq2 or _before(e, j, q2)):
            q2, pq2 = j, key
        ok = (not bj) & (j != brk) & (wj <= r0)
        key = pj if ok else -np.inf
        if key >= pj2 and ok and (j2 < 0 or key > pj2 or _before(e, j, j2)):
            j2, pj2 = j, key
        ok = (not bj) & (wj <= lim)
        key = pj if ok else -np.inf
        if key >= pj1 and ok and (j1 < 0 or key > pj1 or _before(e, j, j1)):
            j1, pj1 = j, key
    best = Pb
    f1, f2, f3 = -1, -1, -1
    if j1 >= 0:
        val = Pb - p[a] + p[j1]
        if val > best:
            best, f1, f2, f3 = val, a, j1, -1
    if j2 >= 0:
        val = Pb + p[j2]
        if val > best:
            best, f1, f2, f3 = val, j2, -1, -1
    if q1 >= 0:
        val = Pb + p[brk] - p[q1]
        if val > best:
            best, f1, f2, f3 = val, q1, brk, -1
    if q2 >= 0:
        val = Pb + (p[brk] + p[k2]) - p[q2]
        if val > best:
            best, f1, f2, f3 = val, q2, brk, k2
    return best, f1, f2, f3, cand[:m], fb[:m]


@nb.njit(cache=False)
def greedy_free(p: np.ndarray, w: np.ndarray, e: np.ndarray, before: np.ndarray, brk: int, Pb: float, Wb: float,
                capacity: float) -> tuple[float, np.ndarray]:
    """``_knapsack.greedy_start`` on the items in any order (``before`` the break solution, ``brk`` the
    break item): the same solutions, the same ties (the first in the stable order by decreasing ``e``),
    the same float operations (:func:`greedy_one`, after a pass for the break item's neighbours).
    Returns the value and the break solution with its flips (``before`` itself when none is better)."""
    a = -1      # the last item before the break item and the first after it
    k2 = -1
    for j in range(p.size):
        if before[j]:
            if a < 0 or _before(e, a, j):
                a = j
        elif j != brk and (k2 < 0 or _before(e, j, k2)):
            k2 = j
    best, f1, f2, f3, _, _ = greedy_one(p, w, e, before, brk, a, k2, Pb, Wb, capacity, 0.0, 0.0, np.inf)
    take = before
    if f1 >= 0:
        take = before.copy()
        for f in (f1, f2, f3):
            if f >= 0:
                take[f] = not take[f]
    return best, take


#: Return code of :func:`start_free` and :func:`solve01`: the case is left to the Python glue.
FALLBACK = -1


@nb.njit(cache=False)
def start_free(p: np.ndarray, w: np.ndarray, e: np.ndarray, capacity: float, unit: float, mem_limit: int,
               budget: int, relax_done: bool, min_relax: int, min_pairing: int, lower: float,
               spare: np.ndarray) -> tuple[Any, ...]:
    """:func:`search_free` up to the first return of :func:`run`, in one compiled call: the break
    solution (:func:`break_split`), combo's greedy solutions and the Dembo-Hammer bounds in one pass
    (:func:`greedy_one`), the free items in efficiency order, the start of the search and its run;
    when it ends (``DONE``), the backtracking too.

    Every number is the one the Python glue computes: the sums of profits and weights are exact
    (checked: the absolute profits sum below 2^53 and the absolute weights below 2^53 ``unit``, the
    weights' power-of-two grid), so their order does not matter; the other operations are the same
    float operations in the same order; the free items are sorted stably.  ``budget < 0`` returns
    before the first step (the caller checks its deadline first, as :func:`search` does).  ``lower``:
    the incumbent's value to start from when it is above the break solution's (``_knapsack.solve_knapsack``'s
    ``lower``: no selection of that value is known); ``spare``: :func:`run`'s buffers.

    Returns
    -------
    tuple
        ``(code, take, value, lp, ub_global, F, before, inside, b, flip_bound_F, W, P, anc, bits, items,
        hist_anc, hist_bits, hist_off, ist, zst, zbits)``: ``code`` is :data:`FALLBACK` (sums not exact:
        nothing done), ``DONE`` (``take``, in the caller's order, and ``value`` are the answer, the core
        size is ``ist[I_NITEMS]``) or the code of :func:`run` to resume the search from (:func:`search`
        with ``state``), with the free items ``F`` (in efficiency order), the break solution
        ``before`` and its restriction ``inside`` to ``F``, the break item's rank ``b`` in ``F``.
    """
    n = p.size
    ap = 0.0
    aw = 0.0
    for j in range(n):
        ap += abs(p[j])
        aw += abs(w[j])
    empty_f = np.zeros(0, np.float64)
    empty_i = np.zeros(0, np.int64)
    empty_b = np.zeros(0, np.bool_)
    empty_u = np.zeros(0, np.uint64)
    ist = np.zeros(IST_SIZE, np.int64)
    zst = np.zeros(4, np.float64)
    if not (ap < _EXACT and aw < _EXACT * unit):
        return (FALLBACK, empty_b, 0.0, 0.0, 0.0, empty_i, empty_b, empty_b, 0, empty_f, empty_f, empty_f,
                empty_i, empty_u, empty_i, empty_i, empty_u, empty_i, ist, zst, empty_u, empty_b, spare)
    ordered = True          # items already by decreasing efficiency (subset sum): the break by a scan
    for j in range(1, n):
        if e[j] > e[j - 1]:
            ordered = False
            break
    if ordered:
        before = np.zeros(n, np.bool_)
        brk = -1
        Wb = 0.0
        Pb = 0.0
        for j in range(n):
            if Wb + w[j] > capacity:
                brk = j
                break
            Wb += w[j]
            Pb += p[j]
            before[j] = True
        a, k2 = brk - 1, brk + 1 if brk + 1 < n else -1
    else:
        before, brk, Pb, Wb, a, k2 = break_split(p, w, e, capacity)
    if brk < 0:  # everything fits
        val = 0.0
        for j in range(n):
            val += p[j]
        return (DONE, np.ones(n, np.bool_), val, val, val, empty_i, before, empty_b, 0, empty_f, empty_f,
                empty_f, empty_i, empty_u, empty_i, empty_i, empty_u, empty_i, ist, zst, empty_u, empty_b, spare)
    eb = e[brk]
    lp = Pb + (capacity - Wb) * eb
    ub_global = np.floor(lp + _INT_MARGIN)
    zs = Pb if lower <= Pb else lower
    # The greedy solutions, and the items free at any incumbent from zs up (filtered below).
    z0, f1, f2, f3, cand, fbc = greedy_one(p, w, e, before, brk, a, k2, Pb, Wb, capacity, lp, eb,
                                           zs + 1.0 - _INT_MARGIN)
    greedy = z0 > zs
    gtake = before
    if greedy:
        zs = z0
        gtake = before.copy()
        for f in (f1, f2, f3):
            if f >= 0:
                gtake[f] = not gtake[f]
    if zs >= ub_global:    # a greedy solution is optimal (or nothing beats lower)
        zst[Z] = zs
        return (DONE, gtake.copy(), zs, lp, ub_global, empty_i, before, empty_b, 0, empty_f, empty_f,
                empty_f, empty_i, empty_u, empty_i, empty_i, empty_u, empty_i, ist, zst, empty_u, gtake, spare)
    thr = zs + 1.0 - _INT_MARGIN
    cnt = 0
    for q in range(cand.size):
        if fbc[q] >= thr:
            cnt += 1
    F = np.empty(cnt, np.int64)
    k = 0
    for q in range(cand.size):
        if fbc[q] >= thr:
            F[k] = cand[q]
            k += 1
    F = by_efficiency(e, F)
    m = cnt
    pF = np.empty(m, np.float64)
    wF = np.empty(m, np.float64)
    eF = np.empty(m, np.float64)
    fbF = np.empty(m, np.float64)
    inside = np.empty(m, np.bool_)
    b = 0
    for q in range(m):
        j = F[q]
        pF[q], wF[q], eF[q], inside[q] = p[j], w[j], e[j], before[j]
        fbF[q] = lp - np.abs(p[j] - eb * w[j])     # (greedy_one's flip bound, recomputed)
        if before[j]:
            b += 1
    # The search's start (:func:`_start_state`): every free item of F is free at z = Pb.
    W = np.full(1, Wb)
    P = np.full(1, Pb)
    anc = np.zeros(1, np.int64)
    bits = np.zeros(1, np.uint64)
    items = np.empty(m, np.int64)
    hist_anc = np.empty(64, np.int64)
    hist_bits = np.empty(64, np.uint64)
    hist_off = np.zeros(8, np.int64)
    free_idx = np.empty(m, np.int64)
    k = 0
    for q in range(m):
        if fbF[q] >= thr:
            free_idx[k] = q
            k += 1
    free_idx = free_idx[:k]
    q = _search_right(free_idx, b - 1) - 1
    ist[I_S] = free_idx[q] if q >= 0 else -1
    q = _search_left(free_idx, b)
    ist[I_T] = free_idx[q] if q < free_idx.size else m
    ist[I_SIDE] = 1
    ist[I_NEXT_PAIRING] = min_pairing
    ist[I_RELAX_DONE] = 1 if relax_done else 0
    ist[I_DIV] = 1 if _divisible(wF, free_idx, capacity, Wb) else 0
    zst[Z] = zs
    zst[Z_FRESH] = zs
    if greedy:
        ist[I_ZKIND] = 2
    zst[UB] = ub_global
    zst[WB] = Wb
    zbits = np.zeros(1, np.uint64)
    code = BUDGET
    if budget >= 0:
        code, W, P, anc, bits, hist_anc, hist_bits, hist_off, spare = run(
            pF, wF, eF, fbF, capacity, np.inf, b, True, _INT_MARGIN, False, mem_limit, budget, min_relax,
            W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits, spare)
    take = empty_b
    if code == DONE:
        if ist[I_ZKIND] == 2:
            take = gtake.copy()
        else:
            take_sorted = inside.copy()
            if ist[I_ZKIND] == 1:
                backtrack(take_sorted, items, hist_anc, hist_bits, hist_off, ist[I_ZBLOCK], ist[I_ZANC],
                          zbits[0], ist[I_ZEXTRA], b)
            take = before.copy()
            for q in range(m):
                take[F[q]] = take_sorted[q]
    return (code, take, zst[Z], lp, ub_global, F, before, inside, b, fbF, W, P, anc, bits, items, hist_anc,
            hist_bits, hist_off, ist, zst, zbits, gtake, spare)


@nb.njit(cache=False)
def weight_grid(w: np.ndarray) -> float:
    """``_knapsack._weight_grid``: the largest power of two of which every weight is an integer
    multiple (``w / u < 2^52``), by the same exponents; ``-1.0`` where it returns None."""
    unit_exp = 10 ** 6
    top = 0.0
    for j in range(w.size):
        x = w[j]
        if x > 0:
            mant, expo = math.frexp(x)
            M = np.int64(mant * _MANTISSA)
            low = 0
            while M & 1 == 0:
                M >>= 1
                low += 1
            unit_exp = min(unit_exp, expo - 53 + low)
            top = max(top, x)
    if unit_exp == 10 ** 6 or top / 2.0 ** unit_exp >= 2.0 ** 52:
        return -1.0
    return 2.0 ** unit_exp


@nb.njit(cache=False)
def relax_free(p: np.ndarray, w: np.ndarray, e: np.ndarray, capacity: float, unit: float, z: float,
               mem_limit: int, budget: int, min_relax: int, min_pairing: int, max_enumerate: int,
               spare: np.ndarray) -> tuple[Any, ...]:
    """``_knapsack.relax_in_order``'s relaxation in one compiled call: the items in efficiency order,
    the cardinality bounds, the surrogate multipliers (:func:`surrogate_multiplier`) and each
    surrogate knapsack, prepared as ``_knapsack.solve_knapsack`` prepares integer data in float64
    (the weights' grid and divisor) and solved by :func:`start_free` with ``z`` as its lower bound.
    The same float operations in the same order as the Python glue, so the same answer.

    Returns
    -------
    (ok, u, z, found, take, spare)
        ``ok`` False where the Python glue must answer (a multiplier that takes every item, a
        surrogate knapsack of at most ``max_enumerate`` items or without a grid, a search not done
        within ``budget`` states); else the bound, the best value and, when ``found``, its items
        (bool, in the given order).
    """
    m = p.size
    order = by_efficiency(e, np.arange(m))
    ps = p[order]
    ws = w[order]
    none = np.zeros(0, np.bool_)
    b = m
    acc = 0.0
    for j in range(m):
        acc += ws[j]
        if acc > capacity:
            b = j
            break
    card1 = count_fit(ws, capacity, False)
    card2 = count_fit(ps, z, True) + 1
    maxsur = ws.max()
    n_cases = 0
    los = np.zeros(2)
    his = np.zeros(2)
    cards = np.zeros(2, np.int64)
    improving = np.zeros(2, np.bool_)
    if card2 == b + 1:
        los[0], his[0], cards[0], improving[0], n_cases = -maxsur, 0.0, b + 1, True, 1
    elif card1 == b:
        los[0], his[0], cards[0], n_cases = 0.0, maxsur, b, 1
    elif card1 == b + 1 or card2 == b:
        los[0], his[0], cards[0] = 0.0, maxsur, b
        los[1], his[1], cards[1], n_cases = -maxsur, 0.0, b + 1, 2
    if n_cases == 0:
        return True, np.inf, z, False, none, spare
    ub = -np.inf
    best_take = none
    found = False
    for q in range(n_cases):
        card = cards[q]
        k_lo, k_hi = int(np.floor(los[q] / unit)), int(np.ceil(his[q] / unit))
        best_u, best_k, done = surrogate_multiplier(ps, ws, capacity, card, k_lo, k_hi, unit)
        if not done:
            return False, 0.0, z, False, none, spare
        u = np.floor(best_u + _INT_MARGIN)
        if u <= z or best_k == 0:
            ub = max(ub, max(u, z) if improving[q] else u)
            continue
        s = best_k * unit
        p0 = 0.0
        w_always = 0.0
        n_rest = 0
        for j in range(m):
            if ws[j] + s <= 0:
                p0 += ps[j]
                w_always += ws[j] + s
            else:
                n_rest += 1
        cs = capacity + s * card - w_always
        lower = z - p0
        if n_rest <= max_enumerate or cs < 0:
            return False, 0.0, z, False, none, spare
        rest = np.empty(n_rest, np.int64)
        p2 = np.empty(n_rest)
        w2 = np.empty(n_rest)
        k = 0
        for j in range(m):
            if ws[j] + s > 0:
                rest[k] = j
                p2[k] = ps[j]
                w2[k] = ws[j] + s
                k += 1
        unit2 = weight_grid(w2)
        if unit2 < 0 or not cs / unit2 < 2.0 ** 62:
            return False, 0.0, z, False, none, spare
        g = np.int64(0)
        for j in range(n_rest):
            a = np.int64(w2[j] / unit2)
            if a > 0 and g != 1:
                while a != 0:
                    g, a = a, g % a
        d = g if g > 0 else np.int64(1)
        cap_steps = np.int64(np.floor(cs / unit2))
        cs2 = float(cap_steps - cap_steps % d) * unit2
        e2 = np.empty(n_rest)
        for j in range(n_rest):
            e2[j] = min(p2[j] / w2[j], _MAX_EFFICIENCY)
        r = start_free(p2, w2, e2, cs2, unit2, mem_limit, budget, True, min_relax, min_pairing, lower, spare)
        spare = r[22]
        if r[0] != DONE:
            return False, 0.0, z, False, none, spare
        value = r[2]
        take2 = r[1]
        z1 = p0 + value
        picked = np.zeros(m, np.bool_)
        n_picked = 0
        w_picked = 0.0
        for j in range(m):
            if ws[j] + s <= 0:
                picked[j] = True
        for k in range(n_rest):
            if take2[k]:
                picked[rest[k]] = True
        for j in range(m):
            if picked[j]:
                n_picked += 1
                w_picked += ws[j]
        if value > lower and n_picked == card and z1 > z and w_picked <= capacity:
            z = z1
            best_take = picked
            found = True
        ub = max(ub, max(z1, z) if improving[q] else z1)
    take = np.zeros(m, np.bool_)
    if found:
        for q in range(m):
            take[order[q]] = best_take[q]
    return True, max(ub, z), z, found, take, spare


@nb.njit(cache=False)
def solve01(v: np.ndarray, w: np.ndarray, cap: int, mem_limit: int, budget: int, max_enumerate: int,
            min_relax: int, min_pairing: int, spare: np.ndarray) -> tuple[Any, ...]:
    """The default 0-1 call of :func:`subsel.solvers.knapsack.solve_knapsack` in one compiled call:
    the checks of the entries and totals, the items that fit and are worth something, the float
    data, the capacity on the weights' common divisor, the efficiencies, and :func:`start_free`.

    Parameters
    ----------
    v, w : ndarray of int64, shape (n,)
        Values and weights as given (not yet checked).
    cap : int
        The capacity, ``0 <= cap < 2^63`` (a larger one lets the same items in: the caller clips it).
    mem_limit, budget, max_enumerate, min_relax, min_pairing : int
        Bytes the state lists may take (-1: no limit); states to process before returning to the
        caller's clock (:func:`run`); the core's limits as they are at the call.
    spare : ndarray of int64
        :func:`run`'s block of buffers (:func:`take_spare`), returned as the last entry.

    Returns
    -------
    tuple
        ``(code, x, value, weight, cap, items, pf, wf, e, capacity, unit) + start_free(...)``:
        ``code`` :data:`FALLBACK` when the Python path must answer (an entry outside ``[0, 2^62]`` or a
        total above 2^62: it raises; totals above 2^52: the int64 path; at most ``max_enumerate``
        items of value that fit, or none of positive weight: the enumeration or the numpy loop);
        otherwise :func:`start_free`'s code.  With ``DONE``, ``x`` (int64) is the answer, ``value``
        and ``weight`` its exact sums, ``cap`` the capacity clipped at the total weight of the items
        that fit; ``items`` (indices of the items of value that fit), ``pf``, ``wf``, ``e`` (their
        float profits, weights, efficiencies), ``capacity`` (float, on the weights' divisor) and
        ``unit`` (the weights' power-of-two grid) are what a resumed search needs.
    """
    n = v.size
    limit = np.int64(2 ** 62)
    tv = np.int64(0)
    tw = np.int64(0)
    m = 0
    bad = False
    for j in range(n):
        if v[j] < 0 or v[j] > limit or w[j] < 0 or w[j] > limit:
            bad = True
        elif w[j] <= cap:
            if v[j] > limit - tv or w[j] > limit - tw:
                bad = True
            else:
                tv += v[j]
                tw += w[j]
                if v[j] > 0:
                    m += 1
        if bad:
            break
    x = np.zeros(n, np.int64)
    empty_f = np.zeros(0, np.float64)
    items = np.empty(m, np.int64)
    pf = np.empty(m, np.float64)
    wf = np.empty(m, np.float64)
    e = np.empty(m, np.float64)
    g = np.int64(0)
    tz = 64
    if not bad and tv < 2 ** 52 and tw <= 2 ** 52 and m > max_enumerate:
        k = 0
        for j in range(n):
            if v[j] > 0 and w[j] <= cap:
                items[k] = j
                k += 1
        for k in range(m):      # (loops without branches on the data, which the compiler can vectorize)
            pf[k] = float(v[items[k]])
            wf[k] = float(w[items[k]])
        for k in range(m):
            e[k] = min(pf[k] / wf[k], _MAX_EFFICIENCY) if wf[k] > 0 else _MAX_EFFICIENCY
        for k in range(m):
            a = w[items[k]]
            if a > 0:
                if g != 1:      # the weights' greatest common divisor (1 stays 1) ...
                    while a != 0:
                        g, a = a, g % a
                    a = w[items[k]]
                if tz > 0:      # ... and the least number of trailing zero bits
                    z = 0
                    while a & 1 == 0 and z < tz:
                        a >>= 1
                        z += 1
                    tz = z
                if g == 1 and tz == 0:      # (neither changes any more)
                    break
    capk = min(cap, tw)
    if bad or g == 0:
        return (FALLBACK, x, 0, 0, capk, items, pf, wf, e, 0.0, 0.0) + start_free(
            empty_f, empty_f, empty_f, 0.0, 0.0, mem_limit, -1, False, min_relax, min_pairing, -np.inf, spare)
    unit = float(np.int64(1) << tz)
    capacity = float(capk - capk % g)
    r = start_free(pf, wf, e, capacity, unit, mem_limit, budget, False, min_relax, min_pairing, -np.inf, spare)
    value = np.int64(0)
    weight = np.int64(0)
    if r[0] == DONE:
        take = r[1]
        for q in range(m):
            if take[q]:
                j = items[q]
                x[j] = 1
                value += v[j]
                weight += w[j]
    return (r[0], x, value, weight, capk, items, pf, wf, e, capacity, unit) + r


def search_free(p: np.ndarray, w: np.ndarray, e: np.ndarray, capacity: float, deadline: float | None,
                memory_limit: int | None, relax_done: bool,
                relax: Callable[[Any, int | None], tuple[Any, Any, np.ndarray | None]], unit: float,
                lower: float = -np.inf) -> KnapsackResult:
    """:func:`search` on integer data in float64 (in the caller's order) without sorting every item:
    the break item by selection, then only the free items (those the reduction leaves) sorted.  The
    numpy loop sorts all items, but never looks at the others: the same steps, the same answer.
    ``unit``: the weights' power-of-two grid; ``lower`` as in ``_knapsack.solve_knapsack``.  Its start
    runs compiled (:func:`start_free`)."""
    spare = take_spare()
    r = start_free(p, w, e, capacity, unit, -1 if memory_limit is None else int(memory_limit),
                   2 ** 62 if deadline is None else -1, relax_done, _knapsack._MIN_RELAX, _knapsack._MIN_PAIRING,
                   lower, spare)
    if r[0] != FALLBACK:
        return resume_free(r, p, w, e, capacity, deadline, memory_limit, relax)
    give_spare(spare)
    before, brk = break_solution(e, w, capacity)
    if brk < 0:  # everything fits
        val = p.sum().item()
        return KnapsackResult(np.ones(p.size, dtype=bool), val, val, val, True, 0)
    Pb = p[before].sum().item()
    Wb = w[before].sum().item()
    eb = float(e[brk])
    lp = Pb + (capacity - Wb) * eb
    ub_global = np.floor(lp + _INT_MARGIN)
    flip_bound = lp - np.abs(p - eb * w)
    zs = max(Pb, lower)
    z0, gtake = greedy_free(p, w, e, before, brk, Pb, Wb, capacity)
    greedy = z0 > zs
    zs = z0 if greedy else zs
    F = np.flatnonzero(flip_bound >= zs + 1.0 - _INT_MARGIN)
    F = F[np.argsort(-e[F], kind="stable")]
    inside = before[F]
    b = int(inside.sum())
    return search(p[F], w[F], e[F], flip_bound[F], capacity, b, Pb, Wb, zs, ub_global, _INT_MARGIN, False,
                  deadline, memory_limit, relax_done, relax, lp, F, inside, base=before,
                  z_take=gtake if greedy else None)


def resume_free(r: tuple[Any, ...], p: np.ndarray, w: np.ndarray, e: np.ndarray, capacity: float,
                deadline: float | None, memory_limit: int | None,
                relax: Callable[[Any, int | None], tuple[Any, Any, np.ndarray | None]]) -> KnapsackResult:
    """The answer of :func:`search_free` from what :func:`start_free` returned (``r``): the answer
    itself when the search ended, else the search resumed where it stopped."""
    code, take, value, lp, ub_global, F, before, inside, b, fbF = r[:10]
    if code == DONE:
        give_spare(r[22])
        return KnapsackResult(take, value, lp, value, True, int(r[18][I_NITEMS]))
    return search(p[F], w[F], e[F], fbF, capacity, b, 0.0, 0.0, 0.0, ub_global, _INT_MARGIN, False, deadline,
                  memory_limit, True, relax, lp, F, inside, base=before, state=r[10:21],
                  z_take=r[21] if r[18][I_ZKIND] == 2 else None, spare=r[22])


#: The state buffers of :func:`run` kept between searches, per thread (the two lists of a step, one
#: block: :func:`_state_sets`, whatever the dtype of the lists): a search's steps then write into
#: memory already mapped, instead of fresh pages (whose first touch costs as much as the step itself
#: on large lists).  The two largest blocks are kept; blocks above _SPARE_BYTES are not.
_SPARES = threading.local()
_SPARE_BYTES = 1 << 26


def take_spare() -> np.ndarray:
    """A block of buffers for :func:`run` (two state lists' weights and profits, ancestors and bits):
    the largest block this thread kept, or an empty one (replaced by the search as it grows)."""
    kept = getattr(_SPARES, "kept", None)
    if kept:
        return kept.pop()
    return np.empty(0, np.int64)


def give_spare(spare: np.ndarray) -> None:
    """Keep ``spare`` (from :func:`run`, no longer used) for this thread's next search; of the blocks
    handed back, the two largest are kept (a search and the surrogate search it runs)."""
    if spare.nbytes > _SPARE_BYTES or spare.size == 0:
        return
    kept = getattr(_SPARES, "kept", None)
    if kept is None:
        kept = _SPARES.kept = []
    kept.append(spare)
    kept.sort(key=lambda block: block.size)   # (the largest last: taken first)
    del kept[:-2]


def _ub_value(ub: Any, exact_int: bool) -> Any:
    """The global bound as the kernel compares it with ``z``: on int64 data the least integer ``>= ub``
    (``z >= ub`` is then decided exactly), else the float."""
    if not exact_int:
        return float(ub)
    if ub == np.inf:
        return np.iinfo(np.int64).max
    return min(math.ceil(ub), np.iinfo(np.int64).max)


_enable_caching()
