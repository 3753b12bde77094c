"""DPSS: the exact enumeration of Deva et al. (Algorithm 1; Deva, Abhishek, Gujar, AAMAS 2021, Section 3).

Take every unit of S1, drop S4, and enumerate every choice over the remaining agents
G = S2 ∪ S3, keeping the best utility whose quality surplus stays >= 0.  An agent of capacity k
contributes k identical units; enumerating how many of them are taken (0..k) visits every distinct
selection the paper's unit-by-unit enumeration visits, so the answer is the same and the work is
``prod (k_i + 1) <= 2^(sum k_i)``.
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np

from ..models import FEASIBILITY_TOL, ProblemBatch, SubsetSelectionProblem, rowdot, weighted_sum
from .base import RawBatch, RawResult, Solver, SolverError, Status

#: Largest block of selections evaluated at once (memory ~ 3 arrays of this many float64).
_BLOCK = 1 << 20

#: Largest enumeration ``DPSS`` starts without a time limit: 2^32 selections (hours of work);
#: beyond it ``solve`` raises ``ValueError`` up front instead of running for ever.
MAX_ENUMERATION = 2 ** 32

#: Largest |G| (free agents after the partition) that ``DPSS.solve_batch`` enumerates in one block.
_BATCH_MAX_G = 20


def _enumerate(values: np.ndarray, weights: np.ndarray, counts: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """All selections of ``0..counts[j]`` units of each agent, as utility and surplus sums.

    Parameters
    ----------
    values, weights : ndarray of float, shape (m,)
        Per-unit utility and quality margin of each agent.
    counts : ndarray of int, shape (m,)
        Free units per agent.

    Returns
    -------
    (util, surplus) : two ndarrays of shape (prod(counts + 1),)
        Selection ``s`` takes ``digit_j(s)`` units of agent ``j`` in mixed radix (agent 0 fastest).
    """
    util = np.zeros(1)
    surp = np.zeros(1)
    for v, w, k in zip(values, weights, counts):
        steps = np.arange(int(k) + 1, dtype=float)
        util = (util[None, :] + steps[:, None] * v).ravel()
        surp = (surp[None, :] + steps[:, None] * w).ravel()
    return util, surp


def _decode(index: int, counts: np.ndarray) -> np.ndarray:
    out = np.zeros(counts.size, dtype=np.int64)
    for j, k in enumerate(counts):
        out[j] = index % (int(k) + 1)
        index //= int(k) + 1
    return out


class DPSS(Solver):
    """Exact subset selection by enumeration over S2 ∪ S3 (Deva et al., AAMAS 2021, Algorithm 1).

    Parameters
    ----------
    time_limit_s : float or None
        Stop after this many seconds with the best selection found (status ``time_limit``).
    threads, verbose
        Accepted for interface compatibility; DPSS is single-threaded and silent.

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
    ``must_take`` (``x_i >= 1``) and ``must_not_take`` (``x_i = 0``) extensions.

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
    supports = frozenset({"must_take", "must_not_take"})
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

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        if self.time_limit_s is None:
            S1, S2, S3, S4 = problem.partition()
            G = np.concatenate([S2, S3])
            free = (problem.upper_bounds()[G] - problem.lower_bounds()[G]).astype(float)
            log2_size = float(np.sum(np.log2(free[free > 0] + 1.0)))
            if log2_size > math.log2(MAX_ENUMERATION):
                raise ValueError(
                    f"dpss would enumerate about 2^{log2_size:.1f} selections over "
                    f"{int(np.count_nonzero(free))} free agents (limit 2^32 without a time limit); "
                    "use the 'exact' solver or a MILP "
                    "backend, or give dpss a time limit")
        start = time.perf_counter()
        S1, S2, S3, S4 = problem.partition()
        lb, ub = problem.lower_bounds(), problem.upper_bounds()
        x = lb.copy()
        x[S1] = ub[S1]
        G = np.concatenate([S2, S3])
        free = ub[G] - lb[G]
        G, free = G[free > 0], free[free > 0]
        r, margin = problem.utility, problem.quality_margin
        base_surplus = float(weighted_sum(x, margin))
        if G.size == 0:
            if base_surplus < -FEASIBILITY_TOL:
                return RawResult(None, Status.INFEASIBLE)
            return RawResult(x, Status.OPTIMAL, float(weighted_sum(x, r)))
        # Inner agents are enumerated in one vectorised block, outer agents by a Python loop.
        sizes = free + 1
        cum = np.cumprod(sizes.astype(float))
        n_inner = max(1, int(np.searchsorted(cum, _BLOCK, side="right")))
        inner, outer = slice(0, n_inner), slice(n_inner, None)
        util_in, surp_in = _enumerate(r[G[inner]], margin[G[inner]], free[inner])
        best_val, best_choice = -np.inf, None
        timed_out = False
        outer_ranges = [range(int(k) + 1) for k in free[outer]]
        for combo in itertools.product(*outer_ranges):
            counts_out = np.array(combo, dtype=float)  # a few agents: `@` is fastest here
            u0 = float(counts_out @ r[G[outer]]) if counts_out.size else 0.0
            s0 = base_surplus + (float(counts_out @ margin[G[outer]]) if counts_out.size else 0.0)
            ok = surp_in + s0 >= -FEASIBILITY_TOL
            if ok.any():
                vals = np.where(ok, util_in, -np.inf)
                j = int(np.argmax(vals))
                if vals[j] + u0 > best_val:
                    best_val = vals[j] + u0
                    best_choice = (j, np.array(combo, dtype=np.int64))
            if self.time_limit_s is not None and time.perf_counter() - start > self.time_limit_s:
                timed_out = True
                break
        if best_choice is None:
            return RawResult(None, Status.TIME_LIMIT if timed_out else Status.INFEASIBLE)
        j, chosen = best_choice
        x[G[inner]] += _decode(j, free[inner])
        x[G[outer]] += chosen
        if timed_out:
            return RawResult(x, Status.TIME_LIMIT, None)
        return RawResult(x, Status.OPTIMAL, float(weighted_sum(x, r)))

    def _solve_batch(self, batch: ProblemBatch) -> RawBatch:
        """DPSS on ``m`` problems at once, identical to :meth:`solve` row by row.

        Unit capacities: each row is partitioned (S1 taken, S4 dropped) and the rows are grouped
        by ``g = |S2 ∪ S3|``; a group enumerates all ``2^g`` choices of its free agents as a
        (rows, 2^g) block built by doubling (the same additions, in the same order, as the
        per-problem enumeration, so ties and tolerance decisions come out identical).  The work is
        ``sum_j 2^{g_j}`` instead of ``m 2^n``: about 15 m on the paper's instances (n = 10).
        Rows with ``g > 20``, capacities above 1, must lists or a time limit go through
        :meth:`solve` one by one.
        """
        if batch.extensions or self.time_limit_s is not None or np.any(batch.capacity != 1):
            return super()._solve_batch(batch)
        m, n = batch.shape
        r, margin = batch.utility, batch.quality_margin
        s1, s2, s3, _ = batch.partition()
        # G in the per-problem order: S2 ascending, then S3 ascending (left-aligned rows).
        n2 = s2.sum(axis=1)
        g = n2 + s3.sum(axis=1)
        x = s1.astype(np.int64)
        base = rowdot(x, margin)
        rows_, cols_ = np.nonzero(s2 | s3)
        slot = np.where(s2, np.cumsum(s2, axis=1) - 1, n2[:, None] + np.cumsum(s3, axis=1) - 1)
        order = np.zeros((m, n), dtype=np.intp)
        order[rows_, slot[rows_, cols_]] = cols_
        flat = order + (np.arange(m) * n)[:, None]
        r_flat, margin_flat, x_flat = r.ravel(), margin.ravel(), x.reshape(-1)
        by_g = np.argsort(g, kind="stable")
        bounds = np.searchsorted(g[by_g], np.arange(n + 2))
        for gv in range(1, n + 1):
            rows_all = by_g[bounds[gv]:bounds[gv + 1]]
            if rows_all.size == 0:
                continue
            if gv > _BATCH_MAX_G:
                for j in rows_all:
                    raw = self._solve(batch.row(int(j)))
                    if raw.x is None:
                        raise SolverError(f"{self.name}: batch row {j} has status {raw.status.value}")
                    x[j] = raw.x
                continue
            chunk = max(1, (1 << 20) >> int(gv))
            for start in range(0, rows_all.size, chunk):
                rows = rows_all[start:start + chunk]
                idx = flat[rows, :gv]
                # vw[0] = utilities, vw[1] = quality margins of the free agents, shape (2, rows, g);
                # choice s takes agent p when bit p of s is set (agent 0 fastest, as in _enumerate).
                vw = np.stack([r_flat[idx], margin_flat[idx]])
                us = np.empty((2, rows.size, 1 << int(gv)))
                us[:, :, 0] = 0.0
                for p in range(int(gv)):
                    h = 1 << p
                    np.add(us[:, :, :h], vw[:, :, p:p + 1], out=us[:, :, h:2 * h])
                ok = us[1] + base[rows, None] >= -FEASIBILITY_TOL
                best = np.argmax(np.where(ok, us[0], -np.inf), axis=1)
                x_flat[idx] = (best[:, None] >> np.arange(int(gv))) & 1
        return RawBatch(x, Status.OPTIMAL)
