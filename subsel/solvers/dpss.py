"""DPSS: the exact enumeration of Deva et al. (Algorithm 1).

Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset Selection Under Constraints*
(AAMAS 2021), Section 3, Algorithm 1.  Take every unit of S1, drop S4, and enumerate every choice
over the remaining agents G = S2 ∪ S3, keeping the best utility whose quality surplus stays >= 0.
An agent of capacity k contributes k identical units; enumerating how many of them are taken
(0..k) visits every distinct selection the paper's unit-by-unit enumeration visits, so the answer
is the same and the work is ``prod (k_i + 1) <= 2^(sum k_i)``.

One kernel, :func:`dpss_batch`, enumerates ``m`` problems at once: rows whose free agents have the
same unit counts share one block layout, so a group of rows is enumerated as one (rows, size)
array; :meth:`DPSS.solve` runs it on a batch of one.
"""
from __future__ import annotations

import itertools
import math
import time
from typing import TYPE_CHECKING

import numpy as np

from ..models import FEASIBILITY_TOL, ProblemBatch, SubsetSelectionProblem
from ..models._rules import rounding_error_bound, rowdot
from ._batch import RawBatch
from ._choices import _agents
from .base import RawResult, Solver, Status

if TYPE_CHECKING:
    from ..models import IntegerKnapsack

#: Largest block of selections evaluated at once (memory ~ 3 arrays of this many float64).
_BLOCK = 1 << 20

#: Largest enumeration ``DPSS`` starts without a time limit: 2^32 selections (hours of work);
#: beyond it ``solve`` raises ``ValueError`` up front instead of running for ever.
MAX_ENUMERATION = 2 ** 32


def _g_order(s2: np.ndarray, s3: np.ndarray, free: np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The free agents G of every row in the enumeration order: S2 ascending, then S3 ascending.

    Parameters
    ----------
    s2, s3 : ndarray of bool, shape (m, n)
    free : ndarray of int, shape (m, n), or None
        Free units per agent; None means one for every agent.

    Returns
    -------
    (cols, counts, g)
        ``cols`` int (m, width) agent of each G position (padding after the members), ``counts``
        int64 (m, width) free units per position (0 in padding; None when ``free`` is None: one
        unit per member), ``g`` int (m,) = |G|.
    """
    m, n = s2.shape
    if free is not None:
        s2 = s2 & (free > 0)
        s3 = s3 & (free > 0)
    # |G| per row as a float dot with ones (exact; a boolean sum along short rows is much slower)
    g = ((s2 | s3).astype(float) @ np.ones(n)).astype(np.int64)
    width = int(g.max(initial=0))
    if m == 1:
        cols = np.concatenate([np.flatnonzero(s2[0]), np.flatnonzero(s3[0])])[None, :]
    else:  # a stable sort of the class code puts S2, then S3, each in index order, then the rest
        code = 2 - 2 * s2.astype(np.int64) - s3  # 0 in S2, 1 in S3, 2 elsewhere (int64 sorts fast)
        cols = np.argsort(code, axis=1, kind="stable")[:, :width]
    if free is None:
        return cols, None, g
    counts = np.where(np.arange(width) < g[:, None], free.ravel()[cols + (np.arange(m) * n)[:, None]], 0)
    return cols, counts, g


class EnumerationTooLargeError(ValueError):
    """DPSS refused, up front, to enumerate more than :data:`MAX_ENUMERATION` selections.

    A ``ValueError`` (callers that catch it keep working); a caller that knows where the problem
    came from can name its own option instead of the batch row.

    Attributes
    ----------
    row : int
        Batch row of the first refused problem (0 for a single problem).
    log2_size : float
        ``log2`` of the number of selections it would have enumerated.
    free_agents : int
        Its free agents (``S2 ∪ S3`` with units to choose).
    """

    def __init__(self, message: str, row: int, log2_size: float, free_agents: int):
        super().__init__(message)
        self.row, self.log2_size, self.free_agents = row, log2_size, free_agents


def _check_size(counts: np.ndarray, g: np.ndarray, m: int) -> None:
    """Refuse, up front, an enumeration of more than :data:`MAX_ENUMERATION` selections."""
    if counts.size == 0:
        return
    rough = np.log2(counts + 1.0).sum(axis=1)  # padding counts 0 adds log2(1) = 0
    for j in np.flatnonzero(rough > math.log2(MAX_ENUMERATION) - 0.5):
        free = counts[j, :g[j]].astype(float)
        log2_size = float(np.sum(np.log2(free[free > 0] + 1.0)))
        if log2_size > math.log2(MAX_ENUMERATION):
            where = f"batch row {j}: " if m > 1 else ""
            raise EnumerationTooLargeError(
                f"{where}dpss would enumerate about 2^{log2_size:.1f} selections over "
                f"{int(np.count_nonzero(free))} free agents (limit 2^32 without a time limit); "
                "use the 'exact' solver or a MILP backend, or give dpss a time limit",
                int(j), log2_size, int(np.count_nonzero(free)))


def dpss_batch(batch: ProblemBatch, time_limit_s: float | None = None) -> RawBatch:
    """DPSS (Deva et al., Algorithm 1) on every row of ``batch``; exact per row.

    Per row: take every unit of S1 (and the must-take units), drop S4 and the must-not-take
    agents, and enumerate every choice of ``0..k_i`` units over the free agents G (S2 then S3, in
    index order), keeping the best utility whose quality surplus is ``>= -FEASIBILITY_TOL`` (the
    first in enumeration order on ties).  Rows with the same free unit counts are enumerated
    together: up to 2^20 selections of the first agents as one block built by mixed-radix
    doubling (agent 0 the fastest digit), the remaining agents by a loop over their choices.

    Parameters
    ----------
    batch : ProblemBatch
        ``m`` problems (must lists are the only extensions DPSS handles).
    time_limit_s : float, optional
        Stop after this many seconds for the whole batch: rows not finished keep the best selection
        found (status ``time_limit``; every row is given at least one block).  Without it, an
        enumeration above :data:`MAX_ENUMERATION` selections is refused up front (``ValueError``).

    Returns
    -------
    RawBatch
        ``optimal`` rows (their bound is their objective), ``infeasible`` rows (must-take units that
        no choice can make feasible) and, after a time limit, ``time_limit`` rows.
    """
    start = time.perf_counter()
    m, n = batch.shape
    r, margin = batch.utility, batch.quality_margin
    s1, s2, s3, _ = batch.partition()
    must = bool(batch.must_take.size or batch.must_not_take.size)
    if must:
        lb, ub = batch.lower_bounds(), batch.upper_bounds()
        x = np.where(s1, ub, lb)
        free = ub - lb
    elif batch._max_capacity == 1:  # the paper's unit capacities
        x = s1.astype(np.int64)
        free = None
    else:
        ub = batch.capacity
        x = np.where(s1, ub, 0)
        free = ub
    cols, counts, g = _g_order(s2, s3, free)
    if time_limit_s is None and not (free is None and n <= 32):  # else at most 2^32 selections
        _check_size((np.arange(cols.shape[1]) < g[:, None]).astype(np.int64) if counts is None else counts,
                    g, m)
    base = rowdot(x, margin)
    status = np.zeros(m, dtype=np.int8)  # 0 optimal, 1 infeasible, 2 time limit with x, 3 without
    unit = counts is None or counts.size == 0 or counts.max() <= 1
    # Groups of rows with the same free unit counts (unit counts: the same |G|).
    if unit:  # |G| <= n fits 16 bits for any n of a unit enumeration: numpy's radix sort
        order = np.argsort(g.astype(np.int16) if n < 2 ** 15 else g, kind="stable")
        sizes = np.bincount(g).tolist()
        ends = np.cumsum(sizes).tolist()
        groups = [order[e - k:e] for k, e in zip(sizes, ends) if k]
    elif counts is not None:
        _, inverse = np.unique(counts, axis=0, return_inverse=True)
        order = np.argsort(inverse.ravel(), kind="stable")
        groups = np.split(order, np.flatnonzero(np.diff(inverse.ravel()[order])) + 1)
    # The rows' G positions, utilities and margins in group order (``order``: the groups one after
    # the other), so that a group's rows are a slice of these arrays, not a gather.
    flat_cols = (cols + (np.arange(m) * n)[:, None])[order]
    rm_rows = np.empty((2,) + flat_cols.shape)  # (2, m, width): utilities, margins
    np.take(r.ravel(), flat_cols, out=rm_rows[0])
    np.take(margin.ravel(), flat_cols, out=rm_rows[1])
    base_sorted = base[order]
    base_ok = bool((base >= -FEASIBILITY_TOL).all())  # choice 0 (no free unit) feasible everywhere
    bits = np.arange(min(int(g.max(initial=0)), 20))
    x_flat = x.reshape(-1)
    deadline = None if time_limit_s is None else start + time_limit_s
    timed_out = False
    at = 0  # where the group's rows start in the group order
    for rows_all in groups:
        lo = at
        at += rows_all.size
        gv = int(g[rows_all[0]])
        if gv == 0:
            status[rows_all] = np.where(base[rows_all] < -FEASIBILITY_TOL, 1, 0)
            continue
        k = np.ones(gv, dtype=np.int64) if counts is None else counts[rows_all[0], :gv]
        if unit:
            n_in = min(gv, 20)
            size = 1 << n_in
        else:
            with np.errstate(over="ignore"):  # beyond 1.8e308 choices: inf, past any block
                cum = np.cumprod((k + 1).astype(float))
            n_in = max(1, int(np.searchsorted(cum, _BLOCK, side="right")))
            size = int(cum[n_in - 1])
        k_in, k_out = k[:n_in], k[n_in:]
        chunk = max(1, _BLOCK // size)
        for first in range(0, rows_all.size, chunk):
            rows = rows_all[first:first + chunk] if rows_all.size > chunk else rows_all
            sl = slice(lo + first, lo + first + rows.size)
            # us[0] = utilities, us[1] = quality surpluses of every inner choice, shape (2, rows, size);
            # choice j takes digit_p(j) units of inner agent p (mixed radix, agent 0 the fastest).
            vw = rm_rows[:, sl, :n_in]
            us = np.empty((2, rows.size, size))
            us[:, :, 0] = 0.0
            h = 1
            for p in range(n_in):
                kp = 1 if unit else int(k_in[p])
                if p == 0 and kp == 1:  # 0.0 + v is v (but for the sign of a zero, which no test sees)
                    us[:, :, 1] = vw[:, :, 0]
                    h = 2
                    continue
                for t in range(1, kp + 1):
                    step = vw[:, :, p:p + 1] if t == 1 else float(t) * vw[:, :, p:p + 1]
                    np.add(us[:, :, :h], step, out=us[:, :, t * h:(t + 1) * h])
                h *= kp + 1
            util_in, surp_in = us[0], us[1]
            base_rows = base_sorted[sl]
            stopped = False
            if k_out.size == 0:  # one block holds every choice (always so up to 2^20 selections)
                vals = np.where(surp_in + base_rows[:, None] >= -FEASIBILITY_TOL, util_in, -np.inf)
                best_j = np.argmax(vals, axis=1)
                found: np.ndarray | None = None if base_ok else vals[np.arange(rows.size), best_j] > -np.inf
                if deadline is not None and time.perf_counter() > deadline:
                    stopped = timed_out = True
            else:
                r_out, m_out = rm_rows[0, sl, n_in:gv], rm_rows[1, sl, n_in:gv]
                best_val = np.full(rows.size, -np.inf)
                best_j = np.zeros(rows.size, dtype=np.int64)
                best_combo = np.zeros((rows.size, k_out.size), dtype=np.int64)
                for combo in itertools.product(*(range(int(c) + 1) for c in k_out)):
                    counts_out = np.broadcast_to(np.array(combo, dtype=float), r_out.shape)
                    u0 = rowdot(counts_out, r_out)
                    s0 = base_rows + rowdot(counts_out, m_out)
                    vals = np.where(surp_in + s0[:, None] >= -FEASIBILITY_TOL, util_in, -np.inf)
                    j = np.argmax(vals, axis=1)
                    cand = vals[np.arange(rows.size), j] + u0
                    better = cand > best_val
                    if better.any():
                        best_val[better] = cand[better]
                        best_j[better] = j[better]
                        best_combo[better] = combo
                    if deadline is not None and time.perf_counter() > deadline:
                        stopped = timed_out = True
                        break
                found = best_val > -np.inf
            if stopped or found is not None:  # found None: every row found a selection
                status[rows] = np.where(True if found is None else found, 2 if stopped else 0, 3 if stopped else 1)
            if unit:
                add = (best_j[:, None] >> bits[:n_in]) & 1
            else:
                add = np.empty((rows.size, n_in), dtype=np.int64)
                rest = best_j.copy()
                for p in range(n_in):
                    add[:, p] = rest % (int(k_in[p]) + 1)
                    rest //= int(k_in[p]) + 1
            if k_out.size:
                add = np.concatenate([add, best_combo], axis=1)
            if found is not None and not found.all():
                add[~found] = 0
            idx = flat_cols[sl, :gv]
            if must:  # G may hold must-take units already counted in x
                x_flat[idx] += add
            else:  # x is 0 on G (S2 and S3 are outside S1)
                x_flat[idx] = add
        if timed_out:
            deadline = -math.inf  # the remaining groups get one block each
    names = (Status.OPTIMAL, Status.INFEASIBLE, Status.TIME_LIMIT, Status.TIME_LIMIT)
    found = (status == 0) | (status == 2)
    if (status == 0).all():
        return RawBatch(x, Status.OPTIMAL, "objective")
    return RawBatch(x, tuple(names[s] for s in status), "objective", found)


def _dpss_unit(problem: SubsetSelectionProblem) -> RawResult | None:
    """:func:`dpss_batch` on one problem with unit capacities and no must lists, in a few array
    operations (the fixed cost of a per-run loop of small solves).

    The same enumeration, in the same order and with the same floating-point operations as
    :func:`dpss_batch` on a batch of one (so the same answer, bit for bit); ``None`` when ``|G| > 20``
    (the batch kernel's blocks and time limit then take over).
    """
    q, r, margin, alpha = problem.quality, problem.utility, problem.quality_margin, problem.alpha
    gain = r >= 0
    G = np.concatenate((np.flatnonzero((q > alpha) & ~gain), np.flatnonzero((q < alpha) & gain)))
    g = G.size
    if g > 20:
        return None
    x = ((q >= alpha) & gain).astype(np.int64)
    base = float(x.astype(float).dot(margin))  # as rowdot: one vector dot (BLAS ddot)
    # Utilities u and surpluses s of every choice, doubled one agent at a time (agent p adds its
    # value to the first 2^p entries), as the batch kernel does: the same sums, bit for bit.
    u = np.empty(1 << g)
    s = np.empty(1 << g)
    u[0] = s[0] = 0.0
    h = 1
    for rp, mp in zip(r[G].tolist(), margin[G].tolist()):
        np.add(u[:h], rp, out=u[h:2 * h])
        np.add(s[:h], mp, out=s[h:2 * h])
        h *= 2
    s += base
    u[s < -FEASIBILITY_TOL] = -np.inf
    best = int(np.argmax(u))
    if u[best] == -np.inf:
        return RawResult(None, Status.INFEASIBLE)
    for i, agent in enumerate(G.tolist()):
        if best >> i & 1:
            x[agent] = 1
    return RawResult(x, Status.OPTIMAL, float(x.astype(float).dot(r)))


def _dpss_planner(problem: SubsetSelectionProblem, time_limit_s: float | None) -> RawResult:
    """DPSS on a problem with minimum orders, lot sizes or fixed costs: the enumeration of
    Algorithm 1 (Deva et al., AAMAS 2021) over every allowed count of each agent with a choice.

    Lots are a change of units; an agent gives ``0`` (unless it must be taken) or a count of lots
    from its minimum to its capacity.  Agents left with one allowed count by the dominance rules
    (more lots adding value and surplus: all of them when used, which S1 is; S4 never) are fixed,
    as Algorithm 1 takes S1 and drops S4; every combination of the others' counts is enumerated.
    Each selection is decided by the feasibility rule: its float surplus where it lies farther
    from the bound than its rounding error (:func:`subsel.models._rules.rounding_error_bound`), else
    ``problem.evaluate``.
    """
    start = time.perf_counter()
    a = _agents(problem)
    options = [([0] if a.off[i] else []) + list(range(int(a.lo[i]), int(a.hi[i]) + 1)) for i in range(problem.n)]
    size = math.prod(len(o) for o in options)
    if time_limit_s is None and size > MAX_ENUMERATION:
        raise ValueError(f"dpss would enumerate about 2^{math.log2(size):.1f} selections (limit 2^32 without a "
                         "time limit); use the 'exact' solver or a MILP backend, or give dpss a time limit")
    lot = a.lot.astype(float)
    choice = np.array([len(o) for o in options])
    G = np.flatnonzero(choice > 1)
    x_base = np.array([o[0] for o in options], dtype=np.int64) * a.lot  # every agent's only (or first) count
    x_base[G] = 0
    margin, r, f = problem.quality_margin, problem.utility, a.f
    base_s = float((x_base * margin).sum())
    base_u = float((x_base * r).sum()) - float(f[x_base > 0].sum())
    base_mag = float(np.abs(x_base * margin).sum())
    radix = choice[G]
    table = np.zeros((G.size, int(radix.max(initial=1))))
    for j, i in enumerate(G.tolist()):
        table[j, :radix[j]] = np.array(options[i], dtype=float) * lot[i]
    best_u, best_idx, status = -np.inf, -1, Status.OPTIMAL
    block = max(1, _BLOCK // max(1, G.size))  # selections per block: about _BLOCK counts
    for lo in range(0, size, block):
        if time_limit_s is not None and time.perf_counter() - start > time_limit_s:
            status = Status.TIME_LIMIT
            break
        idx = np.arange(lo, min(size, lo + block), dtype=np.int64)
        digits = np.empty((idx.size, G.size), dtype=np.int64)
        rest = idx
        for j in range(G.size):  # mixed radix: the first agent varies fastest
            digits[:, j] = rest % radix[j]
            rest = rest // radix[j]
        X = table[np.arange(G.size), digits] if G.size else np.zeros((idx.size, 0))
        surplus = base_s + X @ margin[G]
        util = base_u + X @ r[G] - (X > 0) @ f[G]
        err = rounding_error_bound(2 * problem.n, base_mag + np.abs(X) @ np.abs(margin[G]), FEASIBILITY_TOL)
        ok = surplus + FEASIBILITY_TOL >= err
        for k in np.flatnonzero(np.abs(surplus + FEASIBILITY_TOL) < err).tolist():  # the rule decides
            x = x_base.copy()
            x[G] = X[k].astype(np.int64)
            ok[k] = problem.evaluate(x).feasible
        u = np.where(ok, util, -np.inf)
        k = int(np.argmax(u))
        if u[k] > best_u:
            best_u, best_idx = float(u[k]), lo + k
    if best_idx < 0:
        return RawResult(None, Status.INFEASIBLE if status is Status.OPTIMAL else status)
    x = x_base.copy()
    rest_i = best_idx
    for j, i in enumerate(G.tolist()):
        x[i] = int(table[j, rest_i % radix[j]])
        rest_i //= int(radix[j])
    return RawResult(x, status, best_u if status is Status.OPTIMAL else None)


class DPSS(Solver):
    """Exact subset selection by enumeration over S2 ∪ S3 (Deva, Abhishek, Gujar, AAMAS 2021, Algorithm 1).

    Parameters
    ----------
    time_limit_s : float or None
        Stop after this many seconds with the best selection found (status ``time_limit``).
    threads, verbose
        Accepted for interface compatibility; DPSS is single-threaded and silent.

    One vectorised kernel, :func:`dpss_batch`, answers both :meth:`solve` (a batch of one) and
    :meth:`solve_batch` (rows with the same free units enumerated together, with the same
    floating-point operations as for one problem, so the answers are identical row by row).

    Raises
    ------
    ValueError
        From :meth:`solve`, without a time limit, when the enumeration holds more than
        :data:`MAX_ENUMERATION` (2^32) selections (:meth:`enumeration_size`); the message names the
        size and suggests the ``exact`` solver.

    Notes
    -----
    Cost ``O(prod_{i in G}(k_i + 1))``, i.e. ``O(2^|G|)`` for unit capacities; after the partition
    only about 0.29 n agents remain on the paper's random instances (measured).  Supports the
    ``must_take`` (``x_i >= 1``) and ``must_not_take`` (``x_i = 0``) extensions, and the planner's
    ``min_units``, ``lot_size`` and ``fixed_cost`` (every allowed count of each agent with a choice
    is enumerated).

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, get_solver
    >>> p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.2], cost=[0.1, 0.1, 0.1], alpha=0.7)
    >>> sol = get_solver("dpss").solve(p)
    >>> sol.x.tolist(), sol.status.value
    ([1, 1, 0], 'optimal')
    """

    name = "dpss"
    exact = True
    supports = frozenset({"must_take", "must_not_take", "min_units", "lot_size", "fixed_cost"})
    complexity = "O(2^|S2 ∪ S3|)"

    @staticmethod
    def enumeration_size(problem: SubsetSelectionProblem) -> float:
        """Number of selections DPSS enumerates for ``problem``: ``prod_{i in G}(k_i + 1)`` (float).

        Lets callers (e.g. the benchmark) skip instances where the enumeration is hopeless.
        """
        S1, S2, S3, S4 = problem.partition()
        G = np.concatenate([S2, S3])
        free = problem.upper_bounds()[G] - problem.lower_bounds()[G]
        return float(np.exp(np.sum(np.log1p(free[free > 0].astype(float)))))

    def _solve_integers(self, problem: SubsetSelectionProblem, rule: IntegerKnapsack) -> RawResult:
        from ._encoded import solve_encoded  # a knapsack beyond exact float64: solved in integers

        return solve_encoded(rule, self.time_limit_s, None)

    def _solve_planner(self, problem: SubsetSelectionProblem) -> RawResult:
        return _dpss_planner(problem, self.time_limit_s)  # minimum orders, lot sizes, fixed costs: every count

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        if not problem.must_take.size and not problem.must_not_take.size and problem._max_capacity == 1:
            quick = _dpss_unit(problem)
            if quick is not None:
                return quick
        raw = dpss_batch(ProblemBatch.from_problems([problem]), self.time_limit_s)
        status = raw.status if isinstance(raw.status, Status) else raw.status[0]
        if raw.found is not None and not raw.found[0]:
            return RawResult(None, status)
        x = raw.x[0]
        return RawResult(x, status, float(rowdot(x[None, :], problem.utility[None, :])[0])
                         if status is Status.OPTIMAL else None)

    def _solve_batch(self, batch: ProblemBatch) -> RawBatch:
        """Every row with :func:`dpss_batch` (one block per group of rows with the same free units)."""
        return dpss_batch(batch, self.time_limit_s)
