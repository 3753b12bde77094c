"""Exact subset selection with minimum orders, lot sizes and fixed order costs.

The planner's fields (Aissaoui, Haouari, Hassini, *Computers & Operations Research* 34, 2007,
Section 4) make each agent ``i`` a choice among its allowed counts: with ``L_i`` lots of ``l_i``
units (``L_i = floor(k_i / l_i)``, lot sizes being a change of units) and a minimum of
``M_i = ceil(m_i / l_i)`` lots, agent ``i`` gives ``z_i`` lots with ``z_i = 0`` (not for a must-take
agent) or ``M_i <= z_i <= L_i``; its value is ``r_i l_i z_i - f_i [z_i > 0]`` and it uses
``w_i(z) = -(q_i - alpha) l_i z`` of the quality row ``sum_i w_i(z_i) <= FEASIBILITY_TOL`` (Deva,
Abhishek, Gujar, AAMAS 2021, Section 3).

The method, exact:

1. *Dominance.*  An agent whose lots add value and surplus (``r >= 0``, ``q >= alpha``) takes all of
   them when used; one whose lots lose both only its minimum, and not even that unless it must
   (Martello and Toth, *Knapsack Problems*, 1990, Section 3.2, dominated items).
2. *Lagrangian bound.*  Relaxing the quality row with a multiplier ``lambda >= 0`` gives the upper
   bound ``U(lambda) = lambda C + sum_i h_i(lambda)``, ``h_i = max_z (v_i(z) - lambda w_i(z))``, valid
   for every ``lambda`` (Fisher, *Management Science* 27(1), 1981).  ``lambda`` is the efficiency of
   the break item of the agents' switches from their least-weight to their best-value choice (the
   Dantzig bound, Martello and Toth, Section 2.2), and the greedy selection up to the break item is
   the incumbent ``z``.
3. *Reduction.*  A selection better than ``z`` has ``sum_i (h_i - v_i(z_i) + lambda w_i(z_i)) <= U - z``,
   every term non-negative, so each agent keeps only the choices whose reduced cost is within the
   gap (Dembo and Hammer's reduction, Martello and Toth, Section 2.3, applied to the choices);
   agents left with one choice are fixed.
4. *Dynamic program* over the agents that are left: Pareto-reduced state lists (Nemhauser and
   Ullmann, *Management Science* 15(9), 1969), one agent at a time as two lists (not used; used at
   its least count plus binary pieces of the remaining lots), merged; states whose Lagrangian bound
   cannot beat the incumbent are dropped.

The capacity is widened by the rounding the float sums can make, so that no selection the rule
accepts is lost; the answer is checked by the rule (``problem.evaluate``) and called optimal only
when it passes and reaches the optimum of the widened search.  Where the widened optimum fails the
rule (a hair above a selection's average quality), the dynamic program runs again in the rule's
exact integers: int64 where their sums fit, else first rounded down to 62 bits (a relaxation: its
optimum, when the rule accepts it, is the optimum), then as Python integers of any size.
"""
from __future__ import annotations

import functools
import math
import time
from typing import Callable, NamedTuple

import numpy as np

from ..knapsack import merge_fronts, pareto_front
from ..models import FEASIBILITY_TOL, OPTIMALITY_RTOL, SubsetSelectionProblem
from ..models._rules import dyadic, rounded_up
from .base import RawResult, Status

#: Agents past the break item the greedy incumbent tries to complete with.
_FILL = 4096
#: The first search looks at the agents within this fraction of the gap (a better incumbent).
_PRESEARCH = 16.0
#: The multipliers (times the break item's efficiency) whose Lagrangian bounds a state must pass.
_SPREAD = np.array([0.5, 0.8, 0.9, 0.95, 0.98, 1.0, 1.02, 1.05, 1.1, 1.25, 2.0])
#: The sums of exact integers the dynamic program keeps in int64 (beyond: Python ints).
_INT64_SUMS = 2 ** 62
#: Peak bytes per state of one step of the dynamic program (lists, merge and history).
_BYTES_PER_STATE = 120


class _Agents(NamedTuple):
    """The choices of every agent, in lots: off allowed, and the range ``[lo, hi]`` of used counts
    (empty when ``lo > hi``); per-lot value ``dv`` and weight ``dw``, fixed cost ``f``, lot ``l``."""

    off: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    dv: np.ndarray
    dw: np.ndarray
    f: np.ndarray
    lot: np.ndarray


def _agents(problem: SubsetSelectionProblem) -> _Agents:
    """The agents' choices after the dominance rules (step 1 of the module's method)."""
    planner = problem._planner
    n = problem.n
    lot = np.ones(n, dtype=np.int64) if planner is None else np.asarray(planner.lot_size, dtype=np.int64)
    m = np.ones(n, dtype=np.int64) if planner is None else np.asarray(planner.min_units, dtype=np.int64)
    f = np.zeros(n) if planner is None else np.asarray(planner.fixed_cost, dtype=float)
    hi = problem.upper_bounds() // lot
    lo = -(-m // lot)
    off = np.ones(n, dtype=bool)
    off[problem.must_take] = False
    lf = lot.astype(float)
    dv = problem.utility * lf
    dw = -problem.quality_margin * lf
    hi = np.where(hi >= lo, hi, lo - 1)  # no used count (a must-not-take agent)
    on = lo <= hi
    gain = on & (dv >= 0) & (dw <= 0)  # more lots: more value and more surplus
    lo = np.where(gain, hi, lo)
    # A used gaining agent that pays its fixed cost back beats not using it.
    off &= ~(gain & (dv * hi.astype(float) - f >= 0))
    lose = on & ~gain & (dv <= 0) & (dw >= 0)  # more lots: less value and less surplus
    hi = np.where(lose, lo, hi)
    hi = np.where(lose & off, lo - 1, hi)  # not using it beats its minimum
    return _Agents(off, lo, hi, dv, dw, f, lot)


def _points(a: _Agents, lo: np.ndarray, hi: np.ndarray, off: np.ndarray, sel: np.ndarray | slice = slice(None)
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Weight and value of the least and greatest used count of the agents ``sel`` (infinite when
    an agent has none), whether it has one, and ``off``."""
    on = lo <= hi
    lof, hif = lo.astype(float), hi.astype(float)
    dv, dw, f = a.dv[sel], a.dw[sel], a.f[sel]
    with np.errstate(invalid="ignore"):
        w_lo = np.where(on, dw * lof, np.inf)
        w_hi = np.where(on, dw * hif, np.inf)
        v_lo = np.where(on, dv * lof - f, -np.inf)
        v_hi = np.where(on, dv * hif - f, -np.inf)
    return np.stack((w_lo, w_hi)), np.stack((v_lo, v_hi)), on, off


def _lagrangian(lam: float, w: np.ndarray, v: np.ndarray, off: np.ndarray) -> np.ndarray:
    """``h_i(lambda)``: the best ``v - lambda w`` over each agent's choices (a linear function of
    the count on the used range, so an end of the range or not used)."""
    with np.errstate(invalid="ignore"):
        best = np.max(v - lam * w, axis=0)
    best = np.where(np.isnan(best), -np.inf, best)
    return np.where(off, np.maximum(best, 0.0), best)


def _choice_arrays(w: np.ndarray, v: np.ndarray, off: np.ndarray, lo: np.ndarray, hi: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per agent, the least-weight choice and the best-value choice: their counts (0: not used),
    weights and values."""
    cand_w = np.vstack((np.where(off, 0.0, np.inf), w))
    cand_v = np.vstack((np.where(off, 0.0, -np.inf), v))
    cand_z = np.vstack((np.zeros_like(lo), lo, hi))
    # Least weight, ties to the larger value; best value, ties to the smaller weight; further ties
    # to the first candidate (not used, least count, greatest count).  Three candidates: compared
    # in turn, not sorted (a sort is most of the setup on 10^4 agents).
    light = _first_best(cand_w, -cand_v)
    rich = _first_best(-cand_v, cand_w)
    cols = np.arange(lo.size)
    return (cand_z[light, cols], cand_w[light, cols], cand_v[light, cols],
            cand_z[rich, cols], cand_w[rich, cols], cand_v[rich, cols])


def _first_best(key: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """Per column, the first row with the least ``(key, tie)`` (no NaN)."""
    best = np.zeros(key.shape[1], dtype=np.intp)
    k, t = key[0].copy(), tie[0].copy()
    for r in range(1, key.shape[0]):
        better = (key[r] < k) | ((key[r] == k) & (tie[r] < t))
        best[better] = r
        k = np.where(better, key[r], k)
        t = np.where(better, tie[r], t)
    return best


def solve_choices(problem: SubsetSelectionProblem, time_limit_s: float | None, memory_limit_mb: float | None,
                  greedy: bool = False) -> RawResult:
    """Solve a problem with minimum orders, lot sizes and fixed costs exactly (the module's method).

    Parameters
    ----------
    problem : SubsetSelectionProblem
        No budget, demand or group limits (the caller checks); must lists allowed.
    time_limit_s : float or None
        Seconds after which the search stops (answer: the best found, ``time_limit``).
    memory_limit_mb : float or None
        MiB the state lists may take (answer as for the time limit).
    greedy : bool, default False
        Stop after step 2: the greedy selection (status ``feasible``, the Lagrangian bound).  Every
        agent starts at its least-weight choice; the switches to the best-value choices are taken in
        order of efficiency while they fit, the break agent's switch is dropped (the rounding), and
        the agents after it take the most valuable count that fits the surplus left.  Its utility is
        at least the optimum minus the break agent's switch (the classic bound of the greedy
        knapsack solution, Martello and Toth, 1990, Chapter 2), so at least the optimum minus the
        largest ``max v - min v`` over one agent's allowed counts.

    Returns
    -------
    RawResult
        ``x`` in units; ``infeasible`` when even the most surplus there is fails the rule.
    """
    deadline = None if time_limit_s is None else time.perf_counter() + time_limit_s
    memory = None if memory_limit_mb is None else int(memory_limit_mb * 2 ** 20)
    a = _agents(problem)
    w, v, on, off = _points(a, a.lo, a.hi, a.off)
    z_l, w_l, v_l, z_r, w_r, v_r = _choice_arrays(w, v, off, a.lo, a.hi)
    if not problem.evaluate(z_l * a.lot).feasible:  # the most surplus there is
        return RawResult(None, Status.INFEASIBLE)
    C0 = FEASIBILITY_TOL
    n = problem.n
    # Rounding of the float sums of weights: the widening of the capacity (no feasible selection lost).
    w_mag = float(np.abs(w[np.isfinite(w)]).sum()) if w.size else 0.0
    eps = (2 * n + 64) * 2.0 ** -52 * (w_mag + C0)
    # The switches from the least-weight to the best-value choice: their Dantzig bound.
    dW, dV = w_r - w_l, v_r - v_l
    live = (dV > 0) & (dW > 0)
    slack = C0 + eps - float(w_l.sum())
    idx = np.flatnonzero(live)
    with np.errstate(over="ignore"):  # a subnormal weight: efficiency capped, the order kept
        eff = np.minimum(dV[idx] / dW[idx], 1e300)
    by = np.argsort(-eff, kind="stable")
    order = idx[by]
    cum = np.cumsum(dW[order])
    brk = int(np.searchsorted(cum, slack, side="right"))
    take = order[:brk]
    lam = float(eff[by[brk]]) if brk < order.size else 0.0
    z_inc = z_l.copy()
    z_inc[take] = z_r[take]
    # Not live: the best-value choice weighs no more than the least-weight one.
    dead = ~live & (dW <= 0)
    z_inc[dead] = z_r[dead]
    filled = _fill(a, z_inc, order[brk:brk + _FILL], C0 - float((a.dw * z_inc).sum()))
    for z_try in (filled, z_inc, z_l):  # the first the rule accepts (floats may be a hair over)
        if problem.evaluate(z_try * a.lot).feasible:
            z_inc = z_try
            break
    val_inc = _value(a, z_inc)
    h = _lagrangian(lam, w, v, off)
    U = lam * (C0 + eps) + float(h.sum())
    scale = abs(U) + abs(val_inc) + lam * (w_mag + C0) + float(np.abs(h).sum())
    gap = (U - val_inc) * (1 + 1e-9) + 1e-12 * scale
    magnitude = abs(val_inc) + float(np.abs(h).sum()) + lam * (C0 + eps)
    bound = rounded_up(U, magnitude, 4 * n + 4)
    if greedy:
        return RawResult(z_inc * a.lot, Status.FEASIBLE, max(bound, val_inc))
    tiny = 1e-12 * scale
    # A first search over the agents within a fraction of the gap (a restricted problem, so its
    # answer is a selection): a better incumbent, and so a smaller gap and core for the exact search.
    if U - val_inc > _PRESEARCH * tiny:
        z_pre, _, _ = _search(problem, a, _reduce(a, h, lam, gap / _PRESEARCH, z_inc, on, off), lam, z_inc,
                              val_inc, C0 + eps, tiny, deadline, memory)
        if _value(a, z_pre) > val_inc:
            z_inc, val_inc = z_pre, _value(a, z_pre)
            gap = (U - val_inc) * (1 + 1e-9) + tiny
    z_ans, status, proven = _search(problem, a, _reduce(a, h, lam, gap, z_inc, on, off), lam, z_inc, val_inc,
                                    C0 + eps, tiny, deadline, memory)
    objective = _value(a, z_ans)
    if status is Status.OPTIMAL and proven is not None \
            and objective < proven - OPTIMALITY_RTOL * max(1.0, abs(proven)):
        status = Status.FEASIBLE
    return RawResult(z_ans * a.lot, status, max(bound, objective))


class _Reduced(NamedTuple):
    """The choices left within a gap: not used allowed, used range ``[lo, hi]``; the agents with
    more than one choice (``core``) and the count of the others (``z_fix``, where ``fixed``)."""

    off: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    core: np.ndarray
    fixed: np.ndarray
    z_fix: np.ndarray


def _reduce(a: _Agents, h: np.ndarray, lam: float, gap: float, z_inc: np.ndarray, on: np.ndarray,
            off: np.ndarray) -> _Reduced:
    """Step 3 of the module's method: each agent's choices whose reduced cost ``h_i - (v - lambda w)``
    is at most ``gap``."""
    new_off = off & (h <= gap)
    s = a.dv - lam * a.dw
    t = h - gap + a.f
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = t / s
    lo_f, hi_f = a.lo.astype(float), a.hi.astype(float)
    with np.errstate(invalid="ignore", over="ignore"):
        hair = np.where(np.isfinite(q), 1e-7 * np.maximum(1.0, np.abs(q)), 0.0)  # rounding of t / s
        up = np.where(s > 0, np.maximum(lo_f, np.ceil(q - hair)), lo_f)
        down = np.where(s < 0, np.minimum(hi_f, np.floor(q + hair)), hi_f)
    none = (s == 0) & (t > 0) | np.isnan(q) & (s != 0)
    new_lo = np.where(none, 1, np.clip(up, lo_f, hi_f + 1)).astype(np.int64)
    new_hi = np.where(none, 0, np.clip(down, lo_f - 1, hi_f)).astype(np.int64)
    new_lo = np.where(on, new_lo, a.lo)
    new_hi = np.where(on, new_hi, a.hi)
    count = new_off.astype(np.int64) + np.maximum(new_hi - new_lo + 1, 0)
    # An agent left without a choice cannot be in a better selection: keep its incumbent count.
    empty = count == 0
    new_off = np.where(empty, z_inc == 0, new_off)
    new_lo = np.where(empty & (z_inc > 0), z_inc, new_lo)
    new_hi = np.where(empty & (z_inc > 0), z_inc, np.where(empty, new_lo - 1, new_hi))
    count = np.where(empty, 1, count)
    return _Reduced(new_off, new_lo, new_hi, np.flatnonzero(count > 1), count == 1, np.where(new_off, 0, new_lo))


def _search(problem: SubsetSelectionProblem, a: _Agents, red: _Reduced, lam: float, z_inc: np.ndarray,
            val_inc: float, capacity: float, tiny: float, deadline: float | None, memory: int | None
            ) -> tuple[np.ndarray, Status, float | None]:
    """Step 4 of the module's method: the best selection of the reduced choices that beats the
    incumbent ``z_inc`` (else ``z_inc``), its status, and the optimum of the float search."""
    core, fixed, z_fix = red.core, red.fixed, red.z_fix
    if core.size == 0:
        if _value(a, z_fix) > val_inc and problem.evaluate(z_fix * a.lot).feasible:
            return z_fix, Status.OPTIMAL, None
        return z_inc, Status.OPTIMAL, None
    wc, vc, onc, offc = _points(a, red.lo[core], red.hi[core], red.off[core], core)
    zl_c, wl_c, vl_c, _, _, _ = _choice_arrays(wc, vc, offc, red.lo[core], red.hi[core])
    base_z = z_fix.copy()
    base_z[core] = zl_c
    w_base = float((a.dw * np.where(fixed, z_fix, 0)).sum()) + float(wl_c.sum())
    v_base = _value(a, np.where(fixed, z_fix, 0)) + float(vl_c.sum())
    # Certain agents first (the largest loss of their second-best choice), the uncertain last.
    order_c = np.argsort(-np.abs(a.dv[core] - lam * a.dw[core]), kind="stable")
    # Relative Lagrangian of the core agents (the best over their choices, against the least-weight
    # one) at a few multipliers around lambda: a state's bound is the least of them.
    lams = lam * _SPREAD if lam > 0 else np.zeros(1)
    with np.errstate(invalid="ignore"):
        ends = np.where(onc, (vc - vl_c)[None] - lams[:, None, None] * (wc - wl_c)[None], -np.inf)
    h_rel = np.maximum(np.max(ends, axis=1), np.where(offc, -vl_c + lams[:, None] * wl_c, -np.inf))
    tail = np.concatenate((np.cumsum(h_rel[:, order_c][:, ::-1], axis=1)[:, ::-1][:, 1:],
                           np.zeros((lams.size, 1))), axis=1)
    agents_c = core[order_c]
    lo_c, hi_c, off_o = red.lo[core][order_c], red.hi[core][order_c], offc[order_c]
    zr_o, vr_o = zl_c[order_c], vl_c[order_c]
    beat = val_inc - v_base

    def run(weights: tuple[np.ndarray, np.ndarray, float | int, float | int]
            ) -> tuple[np.ndarray | None, Status, float | None]:
        """The dynamic program on the core with these weights: the best selection that beats the
        incumbent (None when none does), its status and value."""
        w_lot, w_ref, unit, cap = weights
        zs, value, complete, _ = _dynamic_program(a.dv[agents_c], w_lot, a.f[agents_c], zr_o, w_ref, vr_o, lo_c,
                                                  hi_c, off_o, tail, lams, float(unit), cap, beat, tiny, deadline,
                                                  memory)
        timed_out = deadline is not None and time.perf_counter() > deadline
        status = Status.OPTIMAL if complete else Status.TIME_LIMIT if timed_out else Status.FEASIBLE
        if zs is None:
            return None, status, value
        z = base_z.copy()
        z[agents_c] = zs
        return z, status, value

    def passes(z: np.ndarray | None) -> bool:
        return z is not None and bool(problem.evaluate(z * a.lot).feasible)

    # The optimum under the widened capacity (float weights): proven when the rule accepts it.
    z, status, value = run((a.dw[agents_c], wl_c[order_c], 1.0, capacity - w_base))
    if z is None or passes(z):
        return (z_inc if z is None else z), status, (None if value is None else v_base + value)
    # A hair over the bound in float sums: the rule's exact integers decide.
    exact = _exact_weights(problem, a, agents_c, zr_o, z_fix, fixed)
    if exact[0].dtype == object:
        # They do not fit int64: first rounded down to 62 bits, which loosens the rule (every
        # selection it accepts passes them), so the optimum they allow, when the rule accepts it, is
        # the optimum; else the search in the exact integers themselves (Python ints, slower).
        z, status, _ = run(_rounded_weights(problem, a, agents_c, zr_o, z_fix, fixed))
        if z is None or passes(z):
            return (z_inc if z is None else z), status, None
    z, status, _ = run(exact)
    if z is None or passes(z):
        return (z_inc if z is None else z), status, None
    return z_inc, Status.FEASIBLE, None  # pragma: no cover - the exact integers agree with the rule


def _rule_weight(problem: SubsetSelectionProblem, a: _Agents) -> Callable[[int], int]:
    """Agent ``i``'s weight per lot in the rule's exact integers, ``-(q_i - alpha) l_i`` times
    ``2**1074`` (:func:`subsel.models._rules.dyadic`)."""
    alpha = dyadic(problem.alpha)
    lots = a.lot.tolist()

    def per_lot(i: int) -> int:
        return -(dyadic(float(problem.quality[i])) - alpha) * lots[i]

    return per_lot


def _exact_weights(problem: SubsetSelectionProblem, a: _Agents, agents: np.ndarray, z_ref: np.ndarray,
                   z_fix: np.ndarray, fixed: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, int]:
    """The core's weights per lot, reference weights and capacity as exact integers of the rule
    (:func:`subsel.models._rules.dyadic`, divided by their common divisor): int64 arrays when every
    sum of the search fits int64, else arrays of Python ints (dtype object, any size).

    Returns ``(w, w_ref, unit, capacity)`` (``unit``: the real weight of one integer step).
    """
    per_lot = _rule_weight(problem, a)
    w = [per_lot(i) for i in agents.tolist()]
    used = np.flatnonzero(fixed & (z_fix != 0)).tolist()
    taken = sum(per_lot(i) * int(z_fix[i]) for i in used)
    ref = [wi * int(z) for wi, z in zip(w, z_ref.tolist())]
    cap = dyadic(FEASIBILITY_TOL) - taken - sum(ref)
    g = functools.reduce(math.gcd, w, 0) or 1
    top = sum(abs(wi) // g * int(h + 1) for wi, h in zip(w, a.hi[agents].tolist())) + abs(cap) // g
    unit = g / 2 ** 1074  # correctly rounded, whatever the size of g
    dtype = np.int64 if top < _INT64_SUMS else object
    return (np.array([wi // g for wi in w], dtype=dtype), np.array([r // g for r in ref], dtype=dtype),
            unit, cap // g)


def _rounded_weights(problem: SubsetSelectionProblem, a: _Agents, agents: np.ndarray, z_ref: np.ndarray,
                     z_fix: np.ndarray, fixed: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, int]:
    """The exact integers of :func:`_exact_weights` divided by ``2**k`` (the least ``k`` whose sums fit
    int64) and rounded down, the capacity too: every selection the rule accepts passes them, since
    counts are non-negative (a relaxation of the rule).  Returns ``(w, w_ref, unit, capacity)`` as
    :func:`_exact_weights`, in int64."""
    per_lot = _rule_weight(problem, a)
    w_exact = [per_lot(i) for i in agents.tolist()]
    used = np.flatnonzero(fixed & (z_fix != 0)).tolist()
    fixed_exact = [(per_lot(i), int(z_fix[i])) for i in used]
    capacity = dyadic(FEASIBILITY_TOL)
    his = a.hi[agents].tolist()
    k = max(0, (sum(abs(wi) * (h + 1) for wi, h in zip(w_exact, his))
                + sum(abs(wi) * z for wi, z in fixed_exact) + capacity).bit_length() - 58)
    while True:
        w = [wi >> k for wi in w_exact]
        ref = [wi * int(z) for wi, z in zip(w, z_ref.tolist())]
        cap = (capacity >> k) - sum((wi >> k) * z for wi, z in fixed_exact) - sum(ref)
        if sum(abs(wi) * (h + 1) for wi, h in zip(w, his)) + abs(cap) < 2 ** 62:
            return np.array(w, dtype=np.int64), np.array(ref, dtype=np.int64), 2.0 ** (k - 1074), cap
        k += 2  # pragma: no cover - the first k leaves room for the rounding


def _fill(a: _Agents, z: np.ndarray, agents: np.ndarray, room: float) -> np.ndarray:
    """The greedy incumbent completed: past the break item, each agent in efficiency order takes
    the most valuable count that fits the room left (all of its switch, or part of its range)."""
    z = z.copy()
    dv, dw, f = a.dv[agents].tolist(), a.dw[agents].tolist(), a.f[agents].tolist()
    lo, hi, now = a.lo[agents].tolist(), a.hi[agents].tolist(), z[agents].tolist()
    off = a.off[agents].tolist()
    for j, i in enumerate(agents.tolist()):
        if room <= 0:
            break
        cur = now[j]
        w_cur = dw[j] * cur
        v_cur = dv[j] * cur - (f[j] if cur > 0 else 0.0)
        best = (v_cur, cur, 0.0)  # (value, count, weight added)
        if off[j] and cur != 0 and -w_cur <= room:
            best = max(best, (0.0, 0, -w_cur))
        if lo[j] <= hi[j] and dw[j] != 0:
            bound = (room + w_cur) / dw[j]  # counts within the room: z <= bound (dw > 0) or z >= bound
            if math.isfinite(bound):
                pick = min(hi[j], math.floor(bound)) if dw[j] > 0 else max(lo[j], math.ceil(bound))
                if lo[j] <= pick <= hi[j] and dw[j] * pick - w_cur <= room:
                    best = max(best, (dv[j] * pick - f[j], pick, dw[j] * pick - w_cur))
        if best[1] != cur:
            room -= best[2]
            z[i] = best[1]
    return z


def _value(a: _Agents, z: np.ndarray) -> float:
    """``sum_i dv_i z_i - f_i [z_i > 0]`` (float sum)."""
    return float((a.dv * z).sum()) - float(a.f[z > 0].sum())


def _binary(span: int) -> list[int]:
    """Pieces 1, 2, 4, ..., rest summing to ``span``: every count ``0..span`` is a sum of some."""
    out, step = [], 1
    while span > 0:
        size = min(step, span)
        out.append(size)
        span -= size
        step *= 2
    return out


def _dynamic_program(dv_: np.ndarray, dw_: np.ndarray, f_: np.ndarray, z_ref: np.ndarray, w_ref: np.ndarray,
                     v_ref: np.ndarray, lo: np.ndarray, hi: np.ndarray, off: np.ndarray, tail: np.ndarray,
                     lams: np.ndarray, unit: float, cap: float | int, beat: float, tiny: float, deadline: float | None,
                     memory: int | None) -> tuple[np.ndarray | None, float | None, bool, float | int]:
    """The state-list dynamic program over agents (relative to their least-weight choices).

    ``dv_, dw_, f_``: value and weight per lot and fixed cost of each agent, in processing order;
    the weights (``dw_``, ``w_ref``, ``cap``) are floats, or exact integers of the rule (int64, or
    Python ints of any size in arrays of dtype object) with ``unit`` the real weight of one step.
    ``tail[l, j]``: the Lagrangian bound, at multiplier ``lams[l]``, of the agents after the
    ``j``-th.  Returns ``(z, value, complete, weight)``: the counts of the best state that beats
    ``beat`` (None when none does), its value, whether the search ran to its end, and its weight
    (a Python int for weights of dtype object).
    """
    exact = dw_.dtype.kind in "iO"
    best_seen = beat
    W = np.zeros(1, dtype=dw_.dtype if exact else float)
    # Python ints: each state's weight is an object of its own; their room in real units is
    # computed from the integers divided by 2**shift (rounded up), which keeps them within floats.
    big = dw_.dtype == object
    per_state = _BYTES_PER_STATE + (64 if big else 0)
    shift = max(0, max([abs(int(cap)), *(abs(int(v)) for v in dw_.tolist())]).bit_length() + 64 - 1000) if big else 0
    P = np.zeros(1)
    history: list[tuple[np.ndarray, np.ndarray]] = []
    complete = True
    for j in range(z_ref.size):
        if (deadline is not None and time.perf_counter() > deadline) or \
                (memory is not None and W.size * per_state > memory):
            complete = False
            break
        dw, dv, f = dw_[j], float(dv_[j]), float(f_[j])
        parts_w, parts_p, parts_src, parts_z = [], [], [], []
        src = np.arange(W.size)
        if off[j]:
            parts_w.append(W - w_ref[j])
            parts_p.append(P - v_ref[j])
            parts_src.append(src)
            parts_z.append(np.zeros(W.size, dtype=np.int64))
        if lo[j] <= hi[j]:
            step = 1 if dw >= 0 else -1
            z0 = int(lo[j]) if step == 1 else int(hi[j])
            W1 = W + (dw * z0 - w_ref[j])
            P1 = P + (dv * z0 - f - v_ref[j])
            S1, Z1 = src, np.full(W.size, z0, dtype=np.int64)
            for size in _binary(int(hi[j] - lo[j])):
                keep = W1 <= cap
                W1, P1, S1, Z1 = W1[keep], P1[keep], S1[keep], Z1[keep]
                if W1.size == 0:
                    break
                # One agent's pieces can double the list many times (capacities up to 2^53): the
                # limits hold inside an agent too; the states before it stay a valid answer.
                if (deadline is not None and time.perf_counter() > deadline) or \
                        (memory is not None and 2 * W1.size * per_state > memory):
                    complete = False
                    break
                Wm, Pm, s, from2 = merge_fronts(W1, P1, W1 + abs(dw) * size, P1 + dv * step * size)
                W1, P1, S1, Z1 = Wm, Pm, S1[s], Z1[s] + from2 * (step * size)
            if not complete:
                break
            parts_w.append(W1)
            parts_p.append(P1)
            parts_src.append(S1)
            parts_z.append(Z1)
        Wn, Pn = np.concatenate(parts_w), np.concatenate(parts_p)
        Sn, Zn = np.concatenate(parts_src), np.concatenate(parts_z)
        keep = Wn <= cap
        room = (cap - Wn) * unit if not big else \
            (-np.right_shift(Wn - cap, shift)).astype(float) * (unit * 2.0 ** shift)
        keep &= Pn + np.min(lams[:, None] * room[None] + tail[:, j:j + 1], axis=0) + tiny > best_seen
        Wn, Pn, Sn, Zn = Wn[keep], Pn[keep], Sn[keep], Zn[keep]
        if Wn.size == 0:
            return None, None, complete, 0.0
        o = np.argsort(Wn, kind="stable")
        k = o[pareto_front(Wn[o], Pn[o])]
        W, P = Wn[k], Pn[k]
        history.append((Sn[k], Zn[k]))
        # Every state is a selection (the agents not yet processed at their least weight): the
        # best of them is an incumbent, kept itself by the margin ``tiny`` of the test above.
        best_seen = max(best_seen, float(P.max()))
    if not complete:
        ok = np.flatnonzero(W <= cap)
        if ok.size == 0:
            return None, None, False, 0.0
    best = int(np.argmax(P))
    if not P[best] > beat:
        return None, float(P[best]), complete, 0.0
    z = np.array(z_ref, dtype=np.int64)
    pos = best
    for j in range(len(history) - 1, -1, -1):
        srcs, zs = history[j]
        z[j] = zs[pos]
        pos = int(srcs[pos])
    return z, float(P[best]), complete, (int(W[best]) if big else float(W[best]))
