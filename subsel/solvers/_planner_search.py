"""Exact subset selection with every planner field and coupling row: Lagrangian bounds and search.

The planner's model (Aissaoui, Haouari, Hassini, *Computers & Operations Research* 34, 2007,
Section 4, on the model of Deva, Abhishek, Gujar, AAMAS 2021, Section 3) gives each agent ``i`` a
choice of ``z_i`` lots of ``l_i`` units: ``z_i = 0`` (not for a must-take agent) or
``lo_i <= z_i <= hi_i`` (its minimum order and its capacity in lots).  Its value is
``r_i l_i z_i - f_i [z_i > 0]``; the agents are coupled by a few rows, each written
``sum_i a_ki z_i + b_ki [z_i > 0] <= C_k``: the quality row, the budget, the demand and the
groups' limits on units and on used agents.

The method, exact:

1. *Lagrangian relaxation* of the coupling rows with multipliers ``mu >= 0`` (Fisher,
   *Management Science* 27(1), 1981): ``L(mu) = mu . C + sum_i h_i(mu)``, ``h_i`` the best
   ``(r_i l_i - mu . a_i) z - (f_i + mu . b_i) [z > 0]`` over agent ``i``'s choices, which is linear
   in ``z`` on the range of used counts, so one of ``0``, ``lo_i``, ``hi_i``: ``O(n)`` per multiplier
   vector, and as strong as the convex hull of each agent's choices.  ``L`` is minimised by
   projected subgradient steps (Held, Wolfe, Crowder, *Mathematical Programming* 6, 1974, Polyak's
   step length towards the incumbent's value).
2. *Primal heuristic*: the relaxation's choices at each multiplier, repaired to feasibility by
   moves that lower the total violation most per utility lost, then improved while they stay
   feasible; every candidate is checked by the problem's own rule (``problem.evaluate``).
3. *Reduction* by reduced costs (Martello and Toth, *Knapsack Problems*, 1990, Section 2.3): a
   selection better than the incumbent ``z`` has ``sum_i (h_i - v_i(z_i)) <= L - value(z)``, every
   term non-negative, so each agent keeps only the choices within that gap; agents left with one
   choice are fixed, the others are the core.
4. *Branch and bound* over the core, depth first: a node is a domain per agent (not used allowed
   or not, a range of used counts), split into "not used" and "used", then by halving the range.
   A node is dropped when its Lagrangian bound does not beat the incumbent, or when some row's least
   activity over the domains exceeds its right side; the relaxation's choices at each node are a
   further candidate.

With HiGHS installed (:mod:`subsel.solvers._planner_core`), steps 1 and 4 are replaced: the
multipliers are the duals of the linear program over the agents' hulls (the Lagrangian dual solved
exactly), the plans are rounded from that program, and the core left by step 3 is proven by HiGHS
through subsel's MILP pipeline, warm-started with the best plan; when that program has no
solution (no selection meets the rows), the whole problem goes to that pipeline, which decides
infeasibility by the problem's rule.  The search above runs when that route gives no answer.

Every float sum is widened by the most its rounding can lose (a row's right side, a bound), so no
selection the rule accepts is cut off; a selection is kept only when ``problem.evaluate`` accepts
it, and ``optimal`` is claimed only when the search ran to its end.  On a time limit the answer is
the incumbent with the Lagrangian bound (status ``time_limit``).
"""
from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from ..models import FEASIBILITY_TOL, OPTIMALITY_RTOL, SubsetSelectionProblem
from ..models._rules import rounded_up
from .base import RawResult, SolverError, Status

#: Subgradient steps at the root (at most; they stop earlier when the step length vanishes).
_DUAL_STEPS = 300
#: Subgradient steps at each node of the search (at most).
_NODE_STEPS = 12
#: Nodes of the search between two repairs of the relaxation's choices.
_REPAIR_EVERY = 8
#: Repair moves of the primal heuristic (at most).
_REPAIR_MOVES = 200


class _Model(NamedTuple):
    """The problem in lots: per agent value per lot ``dv``, fixed cost ``f``, lot ``lot``, the
    choices ``off`` (not used allowed) and ``[lo, hi]`` (used counts, empty when ``lo > hi``); the
    coupling rows ``A z + B [z > 0] <= C`` (shape (K, n), scaled per row), their right sides widened
    by the rounding of their float sums ``Cw``."""

    dv: np.ndarray
    f: np.ndarray
    lot: np.ndarray
    off: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    Cw: np.ndarray


def _model(problem: SubsetSelectionProblem) -> _Model:
    """The agents' choices and the coupling rows of ``problem`` (the module's text)."""
    n = problem.n
    planner = problem._planner
    one = np.ones(n, dtype=np.int64)
    lot = one if planner is None else np.asarray(planner.lot_size, dtype=np.int64)
    m = one if planner is None else np.asarray(planner.min_units, dtype=np.int64)
    f = np.zeros(n) if planner is None else np.asarray(planner.fixed_cost, dtype=float)
    if planner is not None and "fixed_cost" not in planner.used:
        f = np.zeros(n)
    lo = -(-m // lot)
    hi = problem.upper_bounds() // lot
    off = np.ones(n, dtype=bool)
    off[problem.must_take] = False
    lf = lot.astype(float)
    rows_a: list[np.ndarray] = [-problem.quality_margin * lf]
    rows_b: list[np.ndarray] = [np.zeros(n)]
    rhs: list[float] = [FEASIBILITY_TOL]
    if problem.budget is not None:
        rows_a.append(problem.cost * lf)
        rows_b.append(f.copy())
        rhs.append(problem.budget + FEASIBILITY_TOL)
    if problem.demand is not None:
        rows_a.append(-lf)
        rows_b.append(np.zeros(n))
        rhs.append(-float(problem.demand))
    if planner is not None and planner.group_limits:
        index = np.asarray(planner.group_index)
        for j, g in enumerate(planner.group_names):
            lim = planner.group_limits.get(g)
            if not lim:
                continue
            member = (index == j).astype(float)
            for key, sign in (("max_units", 1.0), ("min_units", -1.0), ("max_agents", 1.0), ("min_agents", -1.0)):
                if key not in lim:
                    continue
                units = key.endswith("units")
                rows_a.append(sign * member * lf if units else np.zeros(n))
                rows_b.append(np.zeros(n) if units else sign * member)
                rhs.append(sign * float(lim[key]))
    A, B, C = np.array(rows_a), np.array(rows_b), np.array(rhs)
    # Each row scaled so that one agent's largest activity is about 1 (the subgradient steps see
    # rows of one size); the scaling is a
    hif = np.where(lo <= hi, hi, 0).astype(float)
    top = np.max(np.abs(A) * hif + np.abs(B), axis=1)
    # power of two (exact; at most 2^900 for rows of subnormal coefficients, so nothing overflows).
    power = np.clip(-np.ceil(np.log2(np.where(top > 0, top, 1.0))), -900.0, 900.0)
    scale = np.exp2(power)
    A, B, C = A * scale[:, None], B * scale[:, None], C * scale
    # A row's float sum over any selection is within this of its exact sum (products and n terms;
    # products below the normal range lose up to 2^-1074 each, before the scaling).
    magnitude = (np.abs(A) * hif).sum(axis=1) + np.abs(B).sum(axis=1) + np.abs(C)
    Cw = C + (2 * n + 16) * 2.0 ** -52 * magnitude + (n + 1) * 2.0 ** -1070 * scale
    return _Model(problem.utility * lf, f, lot, off, lo, hi, A, B, C, Cw)


def _choose(s: np.ndarray, F: np.ndarray, off: np.ndarray, lo: np.ndarray, hi: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """Per agent the best reduced value ``h`` (``s z - F`` for a used count, 0 for not used) over its
    domain and the count reaching it (``-inf`` and 0 for an empty domain)."""
    on = lo <= hi
    with np.errstate(invalid="ignore"):
        v_lo = np.where(on, s * lo - F, -np.inf)
        v_hi = np.where(on, s * hi - F, -np.inf)
    v_off = np.where(off, 0.0, -np.inf)
    z = np.where(v_hi > v_lo, hi, lo)
    h = np.maximum(v_lo, v_hi)
    use_off = v_off >= h
    return np.where(use_off, v_off, h), np.where(use_off, 0, z)


def _activity(d: _Model, z: np.ndarray, cols: np.ndarray | slice = slice(None)) -> np.ndarray:
    """``A z + B [z > 0]`` of the agents ``cols`` (shape (K,))."""
    return d.A[:, cols] @ z.astype(float) + d.B[:, cols] @ (z > 0).astype(float)


def _value(d: _Model, z: np.ndarray) -> float:
    """``sum_i dv_i z_i - f_i [z_i > 0]`` (float sum)."""
    return float((d.dv * z).sum()) - float(d.f[z > 0].sum())


class _Incumbent:
    """The best selection the rule accepts so far (in lots) and its utility."""

    def __init__(self, problem: SubsetSelectionProblem, d: _Model):
        self.problem, self.d = problem, d
        self.z: np.ndarray | None = None
        self.value = -math.inf

    def offer(self, z: np.ndarray) -> bool:
        """Keep ``z`` when it beats the incumbent and the rule accepts it."""
        if _value(self.d, z) <= self.value:
            return False
        ev = self.problem.evaluate(z * self.d.lot)
        if not ev.feasible or ev.utility <= self.value:
            return False
        self.z, self.value = z.copy(), ev.utility
        return True


def _repair(d: _Model, z: np.ndarray, deadline: float | None, dom: tuple[np.ndarray, np.ndarray, np.ndarray] | None
            = None) -> np.ndarray | None:
    """A selection near ``z`` whose rows hold in floats (``None`` when none is found): moves that
    lower the total violation most per utility lost, then moves that add utility and keep it 0;
    within the domains ``dom`` (``(off, lo, hi)``, default every agent's choices)."""
    z = z.copy()
    act = _activity(d, z)
    off, lo, hi = (d.off, d.lo, d.hi) if dom is None else dom
    on = lo <= hi
    for phase in ("repair", "improve"):
        for _ in range(_REPAIR_MOVES):
            if deadline is not None and time.perf_counter() > deadline:
                return None
            over = np.maximum(act - d.C, 0.0)
            V = float(over.sum())
            if phase == "repair" and V <= 0:
                break
            # Candidate counts per agent: not used, the least and the greatest used count, and
            # moves of a used count: by what closes the worst row (repair), by what the rows'
            # slack allows (improve).
            cands = [np.where(off, 0, z), np.where(on, lo, z), np.where(on, hi, z)]
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                if V > 0:
                    k = int(np.argmax(over))
                    a = d.A[k]
                    step = np.where(a != 0, np.ceil(over[k] / np.abs(np.where(a != 0, a, 1.0))), 0.0)
                    cands.append(z - np.minimum(step, 2.0 ** 62).astype(np.int64) * np.sign(a).astype(np.int64))
                else:
                    slack = np.maximum(d.C - act, 0.0)
                    for sgn in (1.0, -1.0):
                        rise = d.A * sgn  # activity per lot moved in this direction
                        room = np.where(rise > 0, slack[:, None] / np.where(rise > 0, rise, 1.0), np.inf)
                        t = np.minimum(np.floor(room.min(axis=0)), 2.0 ** 62)
                        cands.append(np.where(z > 0, z + (sgn * t).astype(np.int64), z))
            v_now = d.dv * z - np.where(z > 0, d.f, 0.0)
            best_score, best_move = 0.0, None
            for c in cands:
                c = np.where((c <= 0) & off, 0, np.where(on, np.clip(c, lo, hi), z))
                dz = (c - z).astype(float)
                du = (c > 0).astype(float) - (z > 0).astype(float)
                V_new = np.maximum(act[:, None] + d.A * dz + d.B * du - d.C[:, None], 0.0).sum(axis=0)
                dval = d.dv * c - np.where(c > 0, d.f, 0.0) - v_now
                moved = c != z
                if phase == "repair":
                    gain = V - V_new
                    score = np.where(moved & (gain > 1e-12 * max(1.0, V)),
                                     gain / (np.maximum(-dval, 0.0) + 1e-9 * (1.0 + np.abs(v_now))), 0.0)
                else:
                    score = np.where(moved & (V_new <= 0), dval, 0.0)
                i = int(np.argmax(score))
                if score[i] > best_score:
                    best_score, best_move = float(score[i]), (i, int(c[i]))
            if best_move is None:
                if phase == "repair":
                    return None
                break
            i, ci = best_move
            act = act + d.A[:, i] * (ci - z[i]) + d.B[:, i] * (float(ci > 0) - float(z[i] > 0))
            z[i] = ci
    return z


class _Dual(NamedTuple):
    """The multipliers, the Lagrangian bound at them (rounded up) and the per-agent ``h``."""

    mu: np.ndarray
    bound: float
    err: float


def _bound_at(d: _Model, mu: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, float]:
    """``L(mu)``, the relaxation's counts, ``h`` and the most the float sums can lose."""
    s = d.dv - mu @ d.A
    F = d.f + mu @ d.B
    h, z = _choose(s, F, d.off, d.lo, d.hi)
    L = float(mu @ d.Cw) + float(h.sum())
    hif = np.where(d.lo <= d.hi, d.hi, 0).astype(float)
    magnitude = float(np.abs(mu) @ np.abs(d.Cw)) + float(((np.abs(d.dv) + np.abs(mu) @ np.abs(d.A)) * hif).sum()) \
        + float((d.f + np.abs(mu) @ np.abs(d.B)).sum())
    err = (d.dv.size + d.A.shape[0] + 16) * 2.0 ** -50 * magnitude
    return L, z, h, err


def _dual(d: _Model, inc: _Incumbent, deadline: float | None, steps: int = _DUAL_STEPS,
          repair: bool = True) -> _Dual:
    """Minimise ``L(mu)`` by projected subgradient steps; offer the relaxations (repaired when
    ``repair``)."""
    K = d.A.shape[0]
    mu = np.zeros(K)
    best: tuple[float, np.ndarray, float] = (math.inf, mu.copy(), 0.0)  # replaced at the first step
    theta, stall = 1.0, 0
    for it in range(steps):
        L, z, _, err = _bound_at(d, mu)
        if L < best[0]:
            best, stall = (L, mu.copy(), err), 0
        else:
            stall += 1
            if stall >= 8:
                theta, stall = theta / 2, 0
        act = _activity(d, z)
        if (act <= d.C).all():
            inc.offer(z)
        elif repair and (inc.z is None or it % 25 == 0):
            fixed = _repair(d, z, deadline)
            if fixed is not None:
                inc.offer(fixed)
        g = d.Cw - act  # dL/dmu
        g = np.where((mu <= 0) & (g > 0), 0.0, g)  # projected on mu >= 0
        norm = float(g @ g)
        if norm == 0.0 or theta < 1e-6 or (deadline is not None and time.perf_counter() > deadline):
            break
        target = inc.value if inc.z is not None else L - 0.1 * abs(L) - 1.0
        if L - target <= 1e-12 * max(1.0, abs(L)):
            break  # the bound meets the incumbent: proven
        mu = np.maximum(mu - theta * (L - target) / norm * g, 0.0)
    return _Dual(best[1], best[0], best[2])


def solve_planner(problem: SubsetSelectionProblem, time_limit_s: float | None) -> RawResult:
    """Solve a problem with any of the planner's fields, a budget, a demand and group limits
    exactly (the module's method).

    Parameters
    ----------
    problem : SubsetSelectionProblem
        No constraint objects (the caller checks).
    time_limit_s : float or None
        Seconds after which the search stops with the best selection found (``time_limit``).

    Returns
    -------
    RawResult
        ``x`` in units; ``infeasible`` when the search proves no selection feasible; the bound is
        the Lagrangian bound (rounded up), at least the answer's utility.
    """
    deadline = None if time_limit_s is None else time.perf_counter() + time_limit_s
    d = _model(problem)
    inc = _Incumbent(problem, d)
    inc.offer(np.where(d.off, 0, d.lo))  # the least selection
    core = _with_programs(problem, d, inc, deadline)
    if core is not None:
        return core
    dual = _dual(d, inc, deadline)
    mu = dual.mu
    bound, tiny, met, (off, lo, hi) = _reduce(d, inc, mu)
    if met is not None:
        return met
    complete = _branch_and_bound(d, inc, mu, off, lo, hi, tiny, deadline)
    if inc.z is None:
        if complete:
            return RawResult(None, Status.INFEASIBLE, None)
        return RawResult(None, Status.TIME_LIMIT, bound)
    if complete:  # no selection beats the incumbent by more than tiny
        return RawResult(inc.z * d.lot, Status.OPTIMAL, min(bound, inc.value + 2 * tiny))
    return RawResult(inc.z * d.lot, Status.TIME_LIMIT, max(bound, inc.value))


def _reduce(d: _Model, inc: _Incumbent, mu: np.ndarray
            ) -> tuple[float, float, RawResult | None, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Step 3 of the module's method at the multipliers ``mu``: the Lagrangian bound (rounded up),
    the tolerance ``tiny`` below which a better selection does not count, the optimal answer when
    the bound meets the incumbent (else None), and the choices ``(off, lo, hi)`` within the gap of
    a selection better than the incumbent (every choice without an incumbent)."""
    L, _, h, err = _bound_at(d, mu)
    bound = rounded_up(L, abs(L) + 1.0, 1) + 2 * err
    if inc.z is None:
        return bound, 0.0, None, (d.off, d.lo, d.hi)
    tiny = 0.25 * OPTIMALITY_RTOL * max(1.0, abs(inc.value))
    gap = L + 2 * err - inc.value - tiny
    if gap < 0:
        return bound, tiny, RawResult(inc.z * d.lot, Status.OPTIMAL, max(bound, inc.value)), (d.off, d.lo, d.hi)
    return bound, tiny, None, _restrict(d.dv - mu @ d.A, d.f + mu @ d.B, h, gap + err, d.off, d.lo, d.hi)


def _with_programs(problem: SubsetSelectionProblem, d: _Model, inc: _Incumbent, deadline: float | None
                   ) -> RawResult | None:
    """The method of :mod:`subsel.solvers._planner_core` (HiGHS's linear programs and a core), or
    None when HiGHS is not installed or gives no answer (the search of this module then runs)."""
    from . import _planner_core as core

    try:
        root = core.hull_program(d, deadline)
        if root is None:
            # No optimum of the program: none within HiGHS's tolerances (the rows cannot all
            # hold), or no time left.  The whole problem goes to the core's pipeline, which decides
            # infeasibility by the rule; the bound and the reduction are those of multipliers 0
            # (any multipliers >= 0 give both).
            mu = np.zeros(d.A.shape[0])
        else:
            _, y_lp, mu = root
            for use, z_use in core.used_sets(d, y_lp, deadline):
                plan, holds = core.rounded(d, use, z_use)
                if not holds:  # the rows repaired within the used agents' counts
                    fixed = _repair(d, plan, deadline,
                                    (~use & d.off, np.where(use, d.lo, 1), np.where(use, d.hi, 0)))
                    if fixed is None:
                        continue
                    plan = fixed
                inc.offer(plan)
            if inc.z is None:  # the relaxation's choices at the dual's multipliers, repaired
                fixed = _repair(d, _bound_at(d, mu)[1], deadline)
                if fixed is not None:
                    inc.offer(fixed)
        bound, tiny, met, (off, lo, hi) = _reduce(d, inc, mu)
        if met is not None:
            return met
        if inc.z is not None and (off.astype(np.int64) + np.maximum(hi - lo + 1, 0) == 0).any():
            # An agent without a choice: no selection beats the incumbent.
            return RawResult(inc.z * d.lot, Status.OPTIMAL, min(bound, inc.value + 2 * tiny))
        left = core.seconds_left(deadline)
        if left is not None and left <= 0:
            x, status, core_bound = None, Status.TIME_LIMIT, None
        else:
            x, status, core_bound = core.solve_core(problem, d, off, lo, hi, inc.z, left)
    except (SolverError, ImportError):  # HiGHS failed, or highspy or scipy missing
        return None
    if x is not None:
        inc.offer(x // d.lot)
    # A selection outside the restricted choices is at most the incumbent's value plus tiny.
    floor = inc.value + 2 * tiny if inc.z is not None else -math.inf
    if status is Status.INFEASIBLE or (status is Status.OPTIMAL and x is not None):
        if inc.z is None:
            return RawResult(None, Status.INFEASIBLE, None)
        top = max(floor, inc.value if core_bound is None else core_bound)
        return RawResult(inc.z * d.lot, Status.OPTIMAL, max(inc.value, min(bound, top)))
    if deadline is None or time.perf_counter() < deadline:
        return None  # unproven, though time is left (e.g. capacities beyond HiGHS's trusted range)
    top = bound if core_bound is None else min(bound, max(floor, core_bound))
    if inc.z is None:
        return RawResult(None, Status.TIME_LIMIT, top)
    return RawResult(inc.z * d.lot, Status.TIME_LIMIT, max(top, inc.value))


def _restrict(s: np.ndarray, F: np.ndarray, h: np.ndarray, gap: float, off: np.ndarray, lo: np.ndarray,
              hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step 3 of the module's method: each agent's choices whose reduced cost ``h - (s z - F)``
    (``h`` for not used) is at most ``gap`` (widened by a hair for the rounding of ``t / s``)."""
    off = off & (h <= gap)
    t = h - gap + F  # keep the used counts z with s z >= t
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = t / s
        hair = np.where(np.isfinite(q), 1e-7 * np.maximum(1.0, np.abs(q)), 0.0)
        up = np.where(s > 0, np.ceil(q - hair), -np.inf)
        down = np.where(s < 0, np.floor(q + hair), np.inf)
    none = (s == 0) & (t > 0)
    new_lo = np.maximum(lo, np.minimum(up, 2.0 ** 62)).astype(np.int64)
    new_hi = np.minimum(hi, np.maximum(down, -1.0)).astype(np.int64)
    return off, np.where(none, hi + 1, new_lo), np.where(none, hi, new_hi)


def _branch_and_bound(d: _Model, inc: _Incumbent, mu: np.ndarray, off: np.ndarray, lo: np.ndarray,
                      hi: np.ndarray, tiny: float, deadline: float | None) -> bool:
    """Step 4 of the module's method; True when the search ran to its end.

    Each node improves the multipliers it inherits by a few subgradient steps over its own domains
    (the bound of a node is the least Lagrangian value met), drops the choices whose reduced cost
    exceeds its gap, and is dropped when a row's least activity exceeds the row's side.
    """
    count = off.astype(np.int64) + np.maximum(hi - lo + 1, 0)
    if (count == 0).any():  # an agent without a choice: no better selection than the incumbent
        return True
    core = np.flatnonzero(count > 1)
    fixed = count == 1
    z_base = np.where(fixed, np.where(off, 0, lo), 0)
    act_fix = _activity(d, z_base)
    val_fix = _value(d, z_base)
    room_fix = d.Cw - act_fix
    Ac, Bc, dvc, fc = d.A[:, core], d.B[:, core], d.dv[core], d.f[core]
    # The most the float sums of a Lagrangian value can lose, as a function of the multipliers.
    hif = np.where(d.lo <= d.hi, d.hi, 0).astype(float)
    m_row = np.abs(d.Cw) + (np.abs(d.A) * hif).sum(axis=1) + np.abs(d.B).sum(axis=1)
    m_0 = float((np.abs(d.dv) * hif).sum() + d.f.sum()) + abs(val_fix)
    ulp = (d.dv.size + d.A.shape[0] + 16) * 2.0 ** -50
    stack = [(off[core].copy(), lo[core].copy(), hi[core].copy(), mu)]
    nodes = 0
    while stack:
        nodes += 1
        if deadline is not None and time.perf_counter() > deadline:
            return False
        o, a, b, mu = stack.pop()
        best = None
        dead = False
        for step in range(_NODE_STEPS):
            sc = dvc - mu @ Ac
            Fc = fc + mu @ Bc
            hc, zc = _choose(sc, Fc, o, a, b)
            if not np.isfinite(hc).all():
                dead = True
                break
            L = float(mu @ room_fix) + val_fix + float(hc.sum())
            err = ulp * (float(mu @ m_row) + m_0 + float(np.abs(hc).sum()))
            if best is None or L + err < best[0] + best[1]:
                best = (L, err, mu, sc, Fc, hc, zc)
            if inc.z is not None and L + err <= inc.value + tiny:
                dead = True
                break
            g = room_fix - (Ac @ zc.astype(float) + Bc @ (zc > 0).astype(float))
            g = np.where((mu <= 0) & (g > 0), 0.0, g)
            norm = float(g @ g)
            if norm == 0.0:
                break
            target = inc.value if inc.z is not None else L - 0.01 * abs(L) - 1.0
            mu = np.maximum(mu - (L - target) / norm * g, 0.0)
        if dead or best is None:
            continue
        L, err, mu, sc, Fc, hc, zc = best
        if inc.z is not None:
            o, a, b = _restrict(sc, Fc, hc, L + 2 * err - inc.value - tiny, o, a, b)
            if ((a > b) & ~o).any():
                continue
            hc, zc = _choose(sc, Fc, o, a, b)
        # Least activity of each row over the domains.
        on = a <= b
        with np.errstate(invalid="ignore"):
            least = np.minimum(np.where(on, Ac * a + Bc, np.inf), np.where(on, Ac * b + Bc, np.inf))
        least = np.where(o, np.minimum(least, 0.0), least)
        if (least.sum(axis=1) > room_fix).any():
            continue
        z = z_base.copy()
        z[core] = zc
        if (act_fix + Ac @ zc.astype(float) + Bc @ (zc > 0).astype(float) <= d.C).all():
            inc.offer(z)
        elif nodes % _REPAIR_EVERY == 1:  # the relaxation's choices repaired within the node's domains
            dom_o, dom_a, dom_b = np.zeros(z.size, dtype=bool), z.copy(), z.copy()
            dom_o[core], dom_a[core], dom_b[core] = o, a, b
            fixed_z = _repair(d, z, deadline, (dom_o, dom_a, dom_b))
            if fixed_z is not None:
                inc.offer(fixed_z)
        single = o.astype(np.int64) + np.maximum(b - a + 1, 0) == 1
        if single.all():
            continue
        # Branch on the undecided agent whose best and next choices are closest.
        with np.errstate(invalid="ignore"):
            v_lo = np.where(on, sc * a - Fc, -np.inf)
            v_hi = np.where(on & (a < b), sc * b - Fc, -np.inf)
            v_off = np.where(o, 0.0, -np.inf)
            alt = np.where(zc == 0, np.maximum(v_lo, v_hi), np.maximum(v_off, np.where(zc == a, v_hi, v_lo)))
        j = int(np.argmin(np.where(single, np.inf, hc - alt)))
        if o[j] and on[j]:
            o1, a1, b1 = o.copy(), a.copy(), b.copy()
            a1[j], b1[j] = 1, 0  # not used only
            o2 = o.copy()
            o2[j] = False  # used only
            children = [(o1, a1, b1, mu), (o2, a, b, mu)]
            first_is_best = zc[j] == 0
        else:
            mid = (int(a[j]) + int(b[j])) // 2
            b1, a2 = b.copy(), a.copy()
            b1[j] = mid
            a2[j] = mid + 1
            children = [(o, a, b1, mu), (o, a2, b, mu)]
            first_is_best = zc[j] <= mid
        if first_is_best:
            children.reverse()
        stack.extend(children)  # the better child last: explored first
    return True
