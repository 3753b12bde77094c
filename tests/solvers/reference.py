"""Plain one-problem GSS and DPSS: the test oracles of the vectorised kernels.

These are the per-problem implementations subsel shipped before its solvers became one vectorised
kernel per algorithm (Deva, Abhishek, Gujar, AAMAS 2021: DPSS is Algorithm 1, GSS Algorithm 3).
They are kept here, unchanged, only to check that ``solve`` and ``solve_batch`` give exactly the
answers they give.
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np

from subsel.models import FEASIBILITY_TOL, SubsetSelectionProblem
from subsel.models._rules import weighted_sum
from subsel.solvers import RawResult, Status, get_solver

_ROUND_TOL = 1e-9
_BLOCK = 1 << 20
MAX_ENUMERATION = 2 ** 32


def _fill(position: float, cumulative: np.ndarray, weight: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Fractional units of each list agent covered up to ``position`` in cumulative quality."""
    before = cumulative - cap * weight
    return np.clip((position - before) / weight, 0.0, cap)


def _pairing_end(P: float, C3: np.ndarray, a: np.ndarray, C2: np.ndarray, b: np.ndarray) -> float:
    """How much quality ``y`` is exchanged in GSS's pairing phase (Deva et al., Algorithm 3, step 4).

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


def reference_gss(problem: SubsetSelectionProblem) -> np.ndarray | None:
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


def reference_dpss(problem: SubsetSelectionProblem, time_limit_s: float | None = None) -> RawResult:
    if time_limit_s is None:
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
        if time_limit_s is not None and time.perf_counter() - start > time_limit_s:
            timed_out = True
            break
    if best_choice is None:
        return RawResult(None, Status.TIME_LIMIT if timed_out else Status.INFEASIBLE)
    j, combo = best_choice
    x[G[inner]] += _decode(j, free[inner])
    x[G[outer]] += combo
    if timed_out:
        return RawResult(x, Status.TIME_LIMIT, None)
    return RawResult(x, Status.OPTIMAL, float(weighted_sum(x, r)))


def check_gss(problem: SubsetSelectionProblem):
    """``get_solver("gss").solve(problem)``, asserted to give exactly :func:`reference_gss`'s answer
    (``infeasible`` where the reference finds none); returns the Solution."""
    sol = get_solver("gss").solve(problem)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        expected = reference_gss(problem)
    if expected is None:
        assert sol.status is Status.INFEASIBLE
    else:
        assert sol.status is Status.FEASIBLE and sol.x.tolist() == expected.tolist()
    return sol
