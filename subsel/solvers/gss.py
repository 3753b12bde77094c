"""GSS: the greedy of Deva et al. (Algorithm 3; Deva, Abhishek, Gujar, AAMAS 2021, Section 5) — a
fractional relaxation, then rounding.

The fractional phase is a single pass along two sorted lists: L3 (S3 by revenue per unit of quality
spent, decreasing) and L2 (S2 by loss per unit of quality bought, increasing).  It is written here as
a merge of the two lists' cumulative quality positions, with cumulative sums and ``searchsorted``
instead of a Python loop over agents, so it runs in O(n log n) with numpy's sorts.
"""
from __future__ import annotations

import numpy as np

from ..models import FEASIBILITY_TOL, ProblemBatch, SubsetSelectionProblem, rowdot, weighted_sum
from .base import RawBatch, RawResult, Solver, Status, gather_rows

_ROUND_TOL = 1e-9


def _fill(position: float, cumulative: np.ndarray, weight: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Fractional units of each list agent covered up to ``position`` in cumulative quality."""
    before = cumulative - cap * weight
    return np.clip((position - before) / weight, 0.0, cap)


def _pairing_end(P: float, C3: np.ndarray, a: np.ndarray, C2: np.ndarray, b: np.ndarray) -> float:
    """How much quality ``y`` is exchanged in GSS's pairing phase (Deva et al., AAMAS 2021, Algorithm 3, step 5).

    L3 is consumed from position ``P + y`` and L2 supplies from position ``y``.  Pairing continues
    while the L3 agent at ``P + y`` has ``a`` greater than the L2 agent at ``y`` has ``b``, and stops
    when either list is exhausted.  Both ``a(P + y)`` (decreasing) and ``b(y)`` (increasing) are
    piecewise constant, so the stopping point is the first breakpoint where ``a <= b``.
    """
    if C3.size == 0 or C2.size == 0:
        return 0.0
    y_max = min(C3[-1] - P, C2[-1])
    if y_max <= 0:
        return 0.0
    breaks = np.concatenate(([0.0], C3[C3 > P] - P, C2))
    breaks = np.unique(breaks[breaks < y_max])
    i3 = np.searchsorted(C3, P + breaks, side="right")
    i2 = np.searchsorted(C2, breaks, side="right")
    valid = (i3 < C3.size) & (i2 < C2.size)
    stop = ~valid
    stop[valid] = a[i3[valid]] <= b[i2[valid]]
    first = np.flatnonzero(stop)
    return float(breaks[first[0]]) if first.size else float(y_max)


class GSS(Solver):
    """Greedy subset selection (Deva et al., AAMAS 2021, Section 5, Algorithm 3).

    Steps, on units: take S1, drop S4, surplus ``d``; spend ``d`` on L3 in order (whole units, then a
    fraction); pair the next L3 agent with the next L2 agent while ``a > b``; finally round S2
    fractions up and drop S3 fractions.  Always feasible (rounding only adds quality), no constant
    approximation ratio (worst case: alpha = 0.99, q = (1, 0.98, 0.97), r = (eps, R/4, 0.9R) earns eps
    against the optimum's eps + R/4).

    Must lists: must-not-take agents are removed; each must-take agent's first unit is fixed, and
    when the fixed units leave a quality deficit, L2 units are bought whole, cheapest loss per
    quality first, until it is covered (status ``infeasible`` when even all of S1 and S2 cannot).

    Parameters
    ----------
    time_limit_s, threads, verbose
        Accepted for interface compatibility; GSS never needs them.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, get_solver
    >>> p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.2], cost=[0.1, 0.1, 0.1], alpha=0.7)
    >>> get_solver("gss").solve(p).x.tolist()
    [1, 1, 0]
    """

    name = "gss"
    exact = False
    supports = frozenset({"must_take", "must_not_take"})
    complexity = "O(n log n)"

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        x = self.select(problem)
        if x is None:
            return RawResult(None, Status.INFEASIBLE)
        return RawResult(x, Status.FEASIBLE)

    @staticmethod
    def select(problem: SubsetSelectionProblem) -> np.ndarray | None:
        """GSS's selection for ``problem``, or None when the must-take units cannot be made feasible.

        Returns
        -------
        ndarray of int64, shape (n,) or None
        """
        S1, S2, S3, S4 = problem.partition()
        lb, ub = problem.lower_bounds(), problem.upper_bounds()
        r, margin = problem.utility, problem.quality_margin
        x = lb.astype(float)
        x[S1] = ub[S1]
        d = float(weighted_sum(x, margin))

        # L2: S2 by loss per unit of quality bought, increasing; L3: S3 by revenue per quality spent.
        f2 = (ub[S2] - lb[S2]).astype(float)
        # |q - alpha| can be tiny (even subnormal): the ratios may overflow to inf, which still
        # sorts correctly, so the warning is silenced rather than the value clipped.
        with np.errstate(over="ignore", divide="ignore"):
            b_all = r[S2] / (-margin[S2])  # = r / (alpha - q) >= 0
            a_all = r[S3] / (-margin[S3])
        o2 = np.argsort(b_all, kind="stable")
        L2, f2 = S2[o2], f2[o2]
        b = b_all[o2]
        w2 = margin[L2]
        f3 = (ub[S3] - lb[S3]).astype(float)
        o3 = np.argsort(-a_all, kind="stable")
        L3, f3, a = S3[o3], f3[o3], a_all[o3]
        w3 = -margin[L3]

        # Must-take units may leave a deficit: buy whole L2 units in order until it is covered.
        if d < -FEASIBILITY_TOL:
            C2 = np.cumsum(f2 * w2)
            if C2.size == 0 or C2[-1] + d < -FEASIBILITY_TOL:
                return None
            need = -d
            bought = np.ceil(_fill(need, C2, w2, f2) - _ROUND_TOL)
            bought = np.minimum(np.maximum(bought, 0.0), f2)
            x[L2] += bought
            f2 = f2 - bought
            d = float(weighted_sum(x, margin))
            keep = f2 > 0
            L2, f2, b, w2 = L2[keep], f2[keep], b[keep], w2[keep]

        C3 = np.cumsum(f3 * w3)
        C2 = np.cumsum(f2 * w2)
        P = min(max(d, 0.0), float(C3[-1])) if C3.size else 0.0
        y = _pairing_end(P, C3, a, C2, b)
        frac3 = _fill(P + y, C3, w3, f3) if C3.size else np.zeros(0)
        frac2 = _fill(y, C2, w2, f2) if C2.size else np.zeros(0)

        # Rounding (step 5): S2 fractions up, S3 fractions down; a hair of tolerance keeps float
        # noise (2.0000000001 units) from costing a whole unit, and is undone if it breaks the check.
        def rounded(tol: float) -> np.ndarray:
            out = x.copy()
            out[L3] += np.minimum(np.floor(frac3 + tol), f3)
            out[L2] += np.minimum(np.ceil(frac2 - tol), f2)
            return out

        x_int = rounded(_ROUND_TOL)
        if float(weighted_sum(x_int, margin)) < -FEASIBILITY_TOL:
            x_int = rounded(0.0)
        return x_int.astype(np.int64)

    def _solve_batch(self, batch: ProblemBatch) -> RawBatch:
        """GSS on ``m`` problems at once, vectorised across rows; identical to :meth:`solve`.

        Every step of :meth:`select` is done for all rows together on padded arrays whose width is
        the largest list length: L2 and L3 are each row's S2 / S3 members sorted by one stable
        ``argsort`` (non-members last), the cumulative quality positions come from ``cumsum``, the
        pairing end from comparing every candidate breakpoint of every pairing row at once (the
        per-problem code's first stopping breakpoint is the smallest stopping one), then the same
        fill and rounding, with the same floating-point operations.  Batches with must lists go
        row by row.
        """
        if batch.extensions:
            return super()._solve_batch(batch)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return RawBatch(self._select_batch(batch), Status.FEASIBLE)

    def _select_batch(self, batch: ProblemBatch) -> np.ndarray:
        q, k = batch.quality, batch.capacity
        m, n = batch.shape
        r, margin = batch.utility, batch.quality_margin
        alpha_col = batch.alpha[:, None]
        s1, s2, s3, _ = batch.partition()
        kf = k.astype(float)
        x = np.where(s1, kf, 0.0)
        d = rowdot(x, margin)
        r_flat, margin_flat, k_flat = r.ravel(), margin.ravel(), kf.ravel()
        offset = (np.arange(m) * n)[:, None]
        cols = np.arange(n)
        big = np.finfo(float).max
        key2 = r / (alpha_col - q)   # L2: loss per unit of quality bought, increasing
        key3 = -(r / (-margin))      # L3: revenue per quality spent, decreasing

        def sorted_list(mask: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, ...]:
            # One stable argsort per row with non-members last (an infinite member key is capped
            # at the largest float so that it still sorts before them).
            count = mask.sum(axis=1)
            width = int(count.max(initial=0))
            o = np.argsort(np.where(mask, np.minimum(key, big), np.inf), axis=1, kind="stable")
            o = o[:, :width]
            flat = o + offset
            return o, cols[:width] < count[:, None], margin_flat[flat], r_flat[flat], flat, count

        L2, valid2, m2, r2, flat2, n2 = sorted_list(s2, key2)
        L3, valid3, m3, r3, flat3, n3 = sorted_list(s3, key3)
        if (k == 1).all():  # unit capacities: one free unit per list member
            f2, f3 = valid2.astype(float), valid3.astype(float)
        else:
            f2 = np.where(valid2, k_flat[flat2], 0.0)
            f3 = np.where(valid3, k_flat[flat3], 0.0)
        w2 = np.where(valid2, m2, 1.0)
        w3 = np.where(valid3, -m3, 1.0)
        b = np.where(valid2, r2 / -w2, 0.0)  # a tiny |q - alpha| gives an infinite ratio, as in select()
        a3 = np.where(valid3, r3 / w3, 0.0)
        C2 = np.cumsum(f2 * w2, axis=1)
        C3 = np.cumsum(f3 * w3, axis=1)
        C2_end = C2[:, -1] if C2.shape[1] else np.zeros(m)
        C3_end = C3[:, -1] if C3.shape[1] else np.zeros(m)
        P = np.where(n3 > 0, np.minimum(np.maximum(d, 0.0), C3_end), 0.0)

        # Pairing end (``_pairing_end``), for the rows that pair at all.
        y_max = np.minimum(C3_end - P, C2_end)
        y = np.zeros(m)
        act = np.flatnonzero((n3 > 0) & (n2 > 0) & (y_max > 0))
        if act.size:
            Pa, C3a, C2a, v3, v2 = P[act, None], C3[act], C2[act], valid3[act], valid2[act]
            cand = np.concatenate([np.zeros((act.size, 1)),
                                   np.where(v3 & (C3a > Pa), C3a - Pa, np.inf),
                                   np.where(v2, C2a, np.inf)], axis=1)
            i3 = ((C3a[:, None, :] <= (Pa + cand)[:, :, None]) & v3[:, None, :]).sum(axis=2)
            i2 = ((C2a[:, None, :] <= cand[:, :, None]) & v2[:, None, :]).sum(axis=2)
            inside = (i3 < n3[act, None]) & (i2 < n2[act, None])
            a_at = gather_rows(a3[act], np.minimum(i3, a3.shape[1] - 1))
            b_at = gather_rows(b[act], np.minimum(i2, b.shape[1] - 1))
            stop = (cand < y_max[act, None]) & (~inside | (a_at <= b_at))
            y[act] = np.where(stop, cand, y_max[act, None]).min(axis=1)

        frac3 = np.clip(((P + y)[:, None] - (C3 - f3 * w3)) / w3, 0.0, f3)
        frac2 = np.clip((y[:, None] - (C2 - f2 * w2)) / w2, 0.0, f2)
        sel2, sel3 = flat2[valid2], flat3[valid3]

        def rounded(tol: float) -> np.ndarray:
            out = x.copy()
            out_flat = out.reshape(-1)
            out_flat[sel3] += np.minimum(np.floor(frac3 + tol), f3)[valid3]
            out_flat[sel2] += np.minimum(np.ceil(frac2 - tol), f2)[valid2]
            return out

        x_int = rounded(_ROUND_TOL)
        redo = rowdot(x_int, margin) < -FEASIBILITY_TOL
        if redo.any():
            x_int[redo] = rounded(0.0)[redo]
        return x_int.astype(np.int64)
