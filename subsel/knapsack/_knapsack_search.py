"""The core search of :func:`subsel.knapsack._knapsack.solve_core`: the Python side of the
compiled kernel (:mod:`subsel.knapsack._knapsack_core`, built at install), which holds the search's
state between its calls (the surrogate relaxation, run once per search, and the deadline stay here:
the kernel returns to this side when the relaxation is due and after a budget of states, and is
called again to resume), reads the answer and the bound of an unfinished search, and keeps the
kernel's buffers between searches.

References
----------
D. Pisinger, "A minimal algorithm for the 0-1 knapsack problem", Operations Research 45(5):758-767,
1997.  S. Martello, D. Pisinger and P. Toth, "Dynamic programming and strong bounds for the 0-1
knapsack problem", Management Science 45(3):414-424, 1999.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from . import _knapsack
from ._knapsack import _INT_MARGIN, KnapsackResult, _state_bounds
from ._knapsack_core import (  # noqa: F401  (the kernel's face: the glue and its callers use these)
    BUDGET,
    CLOCK_BUDGET,
    DONE,
    FALLBACK,
    I_DIV,
    I_NEXT_PAIRING,
    I_NITEMS,
    I_RELAX_DONE,
    I_S,
    I_SAVED,
    I_SIDE,
    I_T,
    I_ZANC,
    I_ZBLOCK,
    I_ZEXTRA,
    I_ZKIND,
    IST_SIZE,
    MEMORY,
    RELAX,
    SIGNAL_BUDGET,
    TIME,
    UB,
    WB,
    Z_FRESH,
    Z,
    backtrack,
    break_solution,
    break_split,
    by_efficiency,
    count_fit,
    dantzig,
    give_spare,
    greedy_free,
    merged_order,
    relax_free,
    relax_once,
    run,
    search_loop,
    solve01,
    start_free,
    surrogate_bound,
    surrogate_multiplier,
    take_of,
    take_spare,
    ub_value,
    unit_selection,
    weight_grid,
)


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
    zst = np.array([z, z, ub_value(ub_global, exact_int), Wb], dtype=p.dtype)
    zbits = np.zeros(1, dtype=np.uint64)
    return W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits


def search(p: np.ndarray, w: np.ndarray, e: np.ndarray, flip_bound: np.ndarray, capacity: Any, b: int,
           Pb: Any, Wb: Any, z: Any, ub_global: Any, margin: float, has_target: bool,
           deadline: float | None, memory_limit: int | None, relax_done: bool,
           relax: Callable[[Any, int | None], tuple[Any, Any, np.ndarray | None]],
           lp: float, order: np.ndarray, take_sorted: np.ndarray, base: np.ndarray | None = None,
           state: tuple[Any, ...] | None = None, integer: bool = True, z_take: np.ndarray | None = None,
           spare: np.ndarray | None = None) -> KnapsackResult:
    """The core search of :func:`subsel.knapsack._knapsack.solve_core`, compiled.

    Called by it with the data in efficiency order and the search's start (break item ``b``, break
    solution ``(Pb, Wb)``, incumbent ``z``, global bound ``ub_global``); ``relax(z, room)`` runs the
    surrogate relaxation and returns ``(bound, value, take or None)``.
    ``state``: the search's arrays ``(W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst,
    zbits)`` where :func:`start_free` left them (``Pb``, ``Wb``, ``z`` and ``relax_done`` then unused).
    ``integer``: the pruning rule of integer data (``bound >= z + 1 - margin``); ``False`` on real
    data (``bound > z``), where every float the search compares is computed term by term in a fixed
    order (no fused multiply-add), so the answer is a deterministic function of the input there too.
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
    if spare is None:
        spare = take_spare()
    code, W, P, anc, bits, hist_anc, hist_bits, hist_off, ub_global, z_take, spare = search_loop(
        p, w, e, flip_bound, capacity, big, b, integer, margin, has_target,
        -1 if memory_limit is None else int(memory_limit), _knapsack._MIN_RELAX, deadline, relax, W, P, anc, bits,
        items, hist_anc, hist_bits, hist_off, ist, zst, zbits, ub_global, z_take, spare)
    take = take_of(ist, zbits, items, hist_anc, hist_bits, hist_off, b, take_sorted, base, order, z_take)
    return _finish(code, take, W, P, capacity, e, w, flip_bound, big, margin, ist, zst, lp, ub_global, integer, spare)


def _finish(code: int, take: np.ndarray, W: np.ndarray, P: np.ndarray, capacity: Any, e: np.ndarray, w: np.ndarray,
            flip_bound: np.ndarray, big: Any, margin: float, ist: np.ndarray, zst: np.ndarray, lp: float,
            ub_global: Any, integer: bool, spare: np.ndarray) -> KnapsackResult:
    """The answer of a search :func:`search_loop` left with ``code`` (``take``: its incumbent's items in
    the caller's order), with the bound of an unfinished search; ``spare`` handed back to the pool."""
    res = _result(take, W, P, capacity, e, w, flip_bound, big, margin, ist, zst, code == DONE, lp, ub_global,
                  "memory" if code == MEMORY else "time" if code == TIME else "", integer)
    give_spare(spare)   # (W and P are views of it: handed back once read)
    return res


def finish_free(r: tuple[Any, ...], capacity: float) -> KnapsackResult:
    """The answer of a search :func:`solve01` ran to a limit (``r``: its :func:`start_free` entries, the
    search's state as :func:`search_loop` left it)."""
    code, _, _, lp, ub_global, F, before, inside, b, fbF = r[:10]
    W, P, _, _, items, hist_anc, hist_bits, hist_off, ist, zst, zbits, z_take, spare = r[10:23]
    take = take_of(ist, zbits, items, hist_anc, hist_bits, hist_off, b, inside, before, F, z_take)
    return _finish(code, take, W, P, capacity, r[25], r[24], fbF, np.inf, _INT_MARGIN, ist, zst, lp, ub_global, True,
                   spare)


def _free(flip_bound: np.ndarray, z: Any, integer: bool, margin: float) -> np.ndarray:
    """The items an improving solution may flip (``flip_bound`` against the incumbent ``z``)."""
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


def search_free(p: np.ndarray, w: np.ndarray, e: np.ndarray, capacity: float, deadline: float | None,
                memory_limit: int | None, relax_done: bool,
                relax: Callable[[Any, int | None], tuple[Any, Any, np.ndarray | None]], unit: float,
                lower: float = -np.inf) -> KnapsackResult:
    """:func:`search` on integer data in float64 (in the caller's order) without sorting every item:
    the break item by selection, then only the free items (those the reduction leaves) sorted (the
    search never looks at the others: the same steps as after a full sort, the same answer).
    ``unit``: the weights' power-of-two grid; ``lower`` as in ``_knapsack.solve_core``.  Its start
    runs compiled (:func:`start_free`)."""
    spare = take_spare()
    r = start_free(p, w, e, capacity, unit, -1 if memory_limit is None else int(memory_limit),
                   SIGNAL_BUDGET if deadline is None else -1, relax_done, _knapsack._MIN_RELAX, _knapsack._MIN_PAIRING,
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
    itself when the search ended, else the search resumed where it stopped (on the free items' data
    ``r`` holds, gathered by the compiled start)."""
    code, take, value, lp, ub_global, F, before, inside, b, fbF = r[:10]
    if code == DONE:
        give_spare(r[22])
        return KnapsackResult(take, value, lp, value, True, int(r[18][I_NITEMS]))
    return search(r[23], r[24], r[25], fbF, capacity, b, 0.0, 0.0, 0.0, ub_global, _INT_MARGIN, False, deadline,
                  memory_limit, True, relax, lp, F, inside, base=before, state=r[10:21],
                  z_take=r[21] if r[18][I_ZKIND] == 2 else None, spare=r[22])


# The core calls the search through its registry (the search builds on the core's module: no import
# back into this one).
_knapsack._KERNEL[:] = [sys.modules[__name__]]
