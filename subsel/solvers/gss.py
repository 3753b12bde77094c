"""GSS: the greedy of Deva et al. (Algorithm 3) — a fractional relaxation, then rounding.

Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset Selection Under Constraints*
(AAMAS 2021), Section 5, Algorithm 3.  The fractional phase is a single pass along two sorted
lists: L3 (S3 by revenue per unit of quality spent, decreasing) and L2 (S2 by loss per unit of
quality bought, increasing).  It is written here as a merge of the two lists' cumulative quality
positions, with cumulative sums and searches instead of a Python loop over agents, so it runs in
O(n log n) with numpy's sorts.

One kernel, :func:`gss_batch`, does every step for ``m`` problems at once on (m, width) arrays
(``width`` the longest list of any row); :meth:`GSS.solve` runs it on a batch of one.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..models import FEASIBILITY_TOL, ProblemBatch, SubsetSelectionProblem, partition_masks, rowdot
from ._batch import RawBatch, gather_rows
from ._choices import solve_choices
from .base import RawResult, Solver, Status

if TYPE_CHECKING:
    from ..models import IntegerKnapsack

_ROUND_TOL = 1e-9

#: The pairing end is found by comparing every candidate breakpoint with every list position of a
#: row at once when the two lists of the batch together are at most this long; longer rows use a
#: binary search per row (the same answer, O(width log width) instead of O(width^2) per row).
_PAIR_BROADCAST_MAX = 64

#: Rows of at most this many agents are sorted whole (see ``_sorted_list``).
_NARROW = 64

#: Lists of at least this many members are ordered by numpy's default (introsort, SIMD) argsort,
#: several times faster than its stable sort on floats, with ties then put in index order (see
#: ``_stable_argsort``); shorter ones by the stable sort directly.
_QUICK_SORT_MIN = 512


def _stable_argsort(key: np.ndarray) -> np.ndarray:
    """``np.argsort(key, axis=1, kind="stable")``, computed faster for long rows.

    The order of a stable sort is the unique order by (key, position).  numpy's default argsort
    (introsort, vectorised on x86) finds the order by key; where equal keys sit next to each other
    (ties, rare for real-valued data: ratios of random floats), each run of equal keys is then put
    in position order by one more argsort on (run number, position), integers that are all
    distinct.  NaN sorts last and never equals anything, so NaN padding forms no runs.

    Parameters
    ----------
    key : ndarray of float, shape (m, width)

    Returns
    -------
    ndarray of intp, shape (m, width)
        Exactly what the stable argsort returns.
    """
    width = key.shape[1]
    if width < _QUICK_SORT_MIN:
        return np.argsort(key, axis=1, kind="stable")
    o = np.argsort(key, axis=1)
    sk = _take_rows(key, o)
    new_run = sk[:, 1:] != sk[:, :-1]
    if new_run.all():
        return o
    run = np.zeros(o.shape, dtype=np.int64)
    np.cumsum(new_run, axis=1, out=run[:, 1:])
    return _take_rows(o, np.argsort(run * width + o, axis=1))


def _take_rows(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``values[j, idx[j, :]]`` for every row ``j`` (one row: a plain 1-D take)."""
    if values.shape[0] == 1:
        return values[0][idx[0]][None, :]
    return gather_rows(values, idx)


class _Rows(Protocol):
    """What the kernel reads of ``m`` problems over the same ``n`` agents (a :class:`ProblemBatch`
    has it all)."""

    @property
    def shape(self) -> tuple[int, int]: ...

    @property
    def utility(self) -> np.ndarray: ...

    @property
    def quality_margin(self) -> np.ndarray: ...

    @property
    def capacity(self) -> np.ndarray: ...

    @property
    def must_take(self) -> np.ndarray: ...

    @property
    def must_not_take(self) -> np.ndarray: ...

    def partition(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...

    def lower_bounds(self) -> np.ndarray: ...

    def upper_bounds(self) -> np.ndarray: ...

    def row(self, j: int) -> SubsetSelectionProblem: ...


class _OneRow:
    """One problem seen as a batch of one row: the arrays ``ProblemBatch.from_problems([problem])``
    holds (views of the problem's, shape (1, n)) and the members of it the kernel reads.

    It never reads the problem's names: building the default names of 10^6 agents would take
    longer than the solve.
    """

    def __init__(self, problem: SubsetSelectionProblem):
        self.problem = problem
        self.shape = (1, problem.n)
        self.utility = problem.utility[None, :]
        self.quality_margin = problem.quality_margin[None, :]
        self.capacity = problem.capacity[None, :]
        self.must_take = problem.must_take
        self.must_not_take = problem.must_not_take

    def partition(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return partition_masks(self.problem.quality[None, :], self.utility, self.problem.alpha)

    def lower_bounds(self) -> np.ndarray:
        return self.problem.lower_bounds()[None, :]

    def upper_bounds(self) -> np.ndarray:
        return self.problem.upper_bounds()[None, :]

    def row(self, j: int) -> SubsetSelectionProblem:
        return self.problem


def _count_last(mask: np.ndarray) -> np.ndarray:
    """True entries along the last axis of a boolean array of at most 255 columns, as intp.

    The same counts as ``mask.sum(axis=-1)``, several times faster on short rows: a uint8 matrix
    product with ones (exact: a count never exceeds the number of columns).
    """
    width = mask.shape[-1]
    if width > 255:
        return mask.sum(axis=-1)
    return (mask.view(np.uint8) @ np.ones(width, dtype=np.uint8)).astype(np.intp)


def _cumsum_rows(v: np.ndarray) -> np.ndarray:
    """``np.cumsum(v, axis=1)``: the same sequential sums, column by column for many short rows
    (numpy's accumulate along short rows is several times slower)."""
    m, width = v.shape
    if m == 1 or width > 16:
        return np.cumsum(v, axis=1)
    out = np.empty_like(v)
    if width:
        out[:, 0] = v[:, 0]
    for k in range(1, width):
        np.add(out[:, k - 1], v[:, k], out=out[:, k])
    return out


def _compact(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The True columns of each row, left-aligned in increasing order.

    Returns
    -------
    (cols, valid, count)
        ``cols`` int (m, width): column of the ``p``-th member of each row (0 in padding);
        ``valid`` bool (m, width): ``p < count``; ``count`` int (m,).
    """
    m = mask.shape[0]
    if m == 1:
        cols = np.flatnonzero(mask[0])[None, :]
        width = cols.shape[1]
        return cols, np.ones((1, width), dtype=bool), np.array([width])
    count = mask.sum(axis=1)
    width = int(count.max(initial=0))
    cols = np.zeros((m, width), dtype=np.intp)
    rows, c = np.nonzero(mask)
    pos = np.cumsum(mask, axis=1) - 1
    cols[rows, pos[rows, c]] = c
    return cols, np.arange(width) < count[:, None], count


def _sorted_list(mask: np.ndarray, ratio: np.ndarray | None, r: np.ndarray, margin: np.ndarray,
                 offset: np.ndarray, sign: float) -> tuple[Any, ...]:
    """Each row's members of ``mask`` sorted by ``sign * r / (-margin)`` (stable: ties keep index order).

    Returns flat indices (m, width) into the (m, n) arrays, the validity mask, the member count,
    and the members' ``r / (-margin)`` and ``margin`` in sorted order (padding after the members).

    With ``ratio`` (``r / (-margin)`` of every agent, given for narrow rows: many short problems,
    the bandit oracle's case, and only when no ratio is infinite) the whole row is sorted with the
    non-members' key set to ``inf``: one stable sort puts the members first, in the order a sort
    of the members alone gives.  Otherwise the members are first gathered and only they are sorted
    (the padding's key is ``inf``, after every member, an infinite one included, as the stable
    sort keeps positions).
    """
    m, n = mask.shape
    if ratio is not None:
        count = _count_last(mask)
        width = int(count.max(initial=0))
        key = np.where(mask, ratio if sign > 0 else -ratio, np.inf)
        o = np.argsort(key, axis=1, kind="stable")[:, :width]
        flat = o + offset
        return flat, np.arange(width) < count[:, None], count, ratio.ravel()[flat], margin[flat]
    cols, valid, count = _compact(mask)
    flat = cols + offset if m > 1 else cols
    mf = margin[flat]
    rat = r[flat] / -mf
    key = -rat if sign < 0 else rat
    if m > 1 and not valid.all():
        key = np.where(valid, key, np.nan)  # padding: NaN sorts after every member, inf included
    o = _stable_argsort(key)
    return _take_rows(flat, o), valid, count, _take_rows(rat, o), _take_rows(mf, o)


def _pairing_end_row(P: float, C3: np.ndarray, a: np.ndarray, C2: np.ndarray, b: np.ndarray,
                     y_max: float) -> float:
    """How much quality ``y`` one row exchanges in the pairing phase (Algorithm 3, steps 5 and 6).

    L3 is consumed from position ``P + y`` and L2 supplies from position ``y``.  Pairing continues
    while the L3 agent at ``P + y`` has ``a`` greater than the L2 agent at ``y`` has ``b``, and stops
    when either list is exhausted.  Both ``a(P + y)`` (decreasing) and ``b(y)`` (increasing) are
    piecewise constant, so the stopping point is the first breakpoint where ``a <= b``.
    """
    breaks = np.concatenate(([0.0], C3[C3 > P] - P, C2))
    breaks = np.unique(breaks[breaks < y_max])
    i3 = np.searchsorted(C3, P + breaks, side="right")
    i2 = np.searchsorted(C2, breaks, side="right")
    valid = (i3 < C3.size) & (i2 < C2.size)
    stop = ~valid
    stop[valid] = a[i3[valid]] <= b[i2[valid]]
    first = np.flatnonzero(stop)
    return float(breaks[first[0]]) if first.size else float(y_max)


def _pairing_end(P: np.ndarray, C3: np.ndarray, a: np.ndarray, valid3: np.ndarray, n3: np.ndarray,
                 C2: np.ndarray, b: np.ndarray, valid2: np.ndarray, n2: np.ndarray) -> np.ndarray:
    """The pairing end ``y`` of every row (0 for rows that do not pair), shape (m,)."""
    m = P.shape[0]
    C3_end = C3[:, -1] if C3.shape[1] else np.zeros(m)
    C2_end = C2[:, -1] if C2.shape[1] else np.zeros(m)
    y_max = np.minimum(C3_end - P, C2_end)
    y = np.zeros(m)
    act = np.flatnonzero((n3 > 0) & (n2 > 0) & (y_max > 0))
    if not act.size:
        return y
    if C3.shape[1] + C2.shape[1] > _PAIR_BROADCAST_MAX:
        for j in act:
            y[j] = _pairing_end_row(float(P[j]), C3[j, :n3[j]], a[j, :n3[j]], C2[j, :n2[j]], b[j, :n2[j]],
                                    float(y_max[j]))
        return y
    # Every candidate breakpoint (0, the L3 ends beyond P, the L2 ends) of every pairing row at
    # once; the first stopping breakpoint in increasing order is the smallest stopping one.  The
    # padding's positions are infinite, so it is never counted below a candidate.
    Pa = P[act, None]
    C3a = np.where(valid3[act], C3[act], np.inf)
    C2a = np.where(valid2[act], C2[act], np.inf)
    cand = np.concatenate([np.zeros((act.size, 1)), np.where(C3a > Pa, C3a - Pa, np.inf), C2a], axis=1)
    i3 = _count_last(C3a[:, None, :] <= (Pa + cand)[:, :, None])
    i2 = _count_last(C2a[:, None, :] <= cand[:, :, None])
    inside = (i3 < n3[act, None]) & (i2 < n2[act, None])
    a_at = gather_rows(a[act], np.minimum(i3, a.shape[1] - 1))
    b_at = gather_rows(b[act], np.minimum(i2, b.shape[1] - 1))
    stop = (cand < y_max[act, None]) & (~inside | (a_at <= b_at))
    y[act] = np.where(stop, cand, y_max[act, None]).min(axis=1)
    return y


def _fill(position: np.ndarray, cumulative: np.ndarray, weight: np.ndarray, cap: np.ndarray | float
          ) -> np.ndarray:
    """Fractional units of each list agent covered up to ``position[j]`` in cumulative quality
    (``cap``: the agents' free units, or 1.0 when every agent has one)."""
    before = cumulative - weight if isinstance(cap, float) else cumulative - cap * weight
    return np.clip((position[:, None] - before) / weight, 0.0, cap)


def gss_batch(batch: ProblemBatch) -> tuple[np.ndarray, np.ndarray]:
    """GSS (Deva et al., Algorithm 3) on every row of ``batch`` at once.

    Steps, per row and on units: take S1 (every unit), drop S4, fix the must-take units and drop
    the must-not-take agents; if the fixed units leave a quality deficit, buy whole L2 units in
    order until it is covered; spend the surplus ``d`` on L3 in order (whole units, then a
    fraction); pair the next L3 agent with the next L2 agent while ``a > b``; round S2 fractions up
    and S3 fractions down (a hair of tolerance keeps float noise such as 2.0000000001 units from
    costing a whole unit, and is undone where it breaks the quality constraint).

    Parameters
    ----------
    batch : ProblemBatch
        ``m`` problems (the must lists are the only extensions GSS handles).

    Returns
    -------
    x : ndarray of int64, shape (m, n)
        The selections (all zeros in infeasible rows).
    feasible : ndarray of bool, shape (m,)
        False where the must-take units cannot be made feasible even with every unit of S1 and S2.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _gss_batch(batch)


def _gss_one(problem: SubsetSelectionProblem) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gss_batch` of the batch of one ``problem``, without building the batch."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _gss_batch(_OneRow(problem))


def _gss_batch(batch: _Rows) -> tuple[np.ndarray, np.ndarray]:
    m, n = batch.shape
    r, margin = batch.utility, batch.quality_margin
    s1, s2, s3, _ = batch.partition()
    must = bool(batch.must_take.size or batch.must_not_take.size)
    if must:
        lb, ub = batch.lower_bounds(), batch.upper_bounds()
        x = np.where(s1, ub, lb).astype(float)
        free = (ub - lb).astype(float).ravel()
    elif m > 1 and getattr(batch, "_max_capacity", 0) == 1:  # a batch with unit capacities
        x = s1.astype(float)
        free = None
    else:
        ub = batch.capacity
        if bool((ub == 1).all()):  # unit capacities: S1 as floats
            x, free = s1.astype(float), None
        else:
            ub_float = ub.astype(float)
            x = s1 * ub_float  # every unit of S1 (exact: ub times 1.0, or 0.0)
            free = ub_float.ravel()
    d = rowdot(x, margin)
    offset = (np.arange(m) * n)[:, None]
    # L2: S2 by loss per unit of quality bought, increasing; L3: S3 by revenue per quality spent,
    # decreasing.  |q - alpha| can be tiny (even subnormal): a ratio may overflow to inf, which
    # still sorts correctly.
    r_flat, margin_flat = r.ravel(), margin.ravel()
    ratio = None
    if m > 1 and n <= _NARROW:
        ratio = r / -margin
        if np.isinf(ratio).any():
            ratio = None
    flat2, valid2, n2, b, m2 = _sorted_list(s2, ratio, r_flat, margin_flat, offset, 1.0)
    flat3, valid3, n3, a, m3 = _sorted_list(s3, ratio, r_flat, margin_flat, offset, -1.0)
    # Without padding (one problem, or rows with lists of equal length) the masks are all True
    # and are skipped below: the same numbers without the copies.
    full2, full3 = bool(valid2.all()), bool(valid3.all())
    w2 = m2 if full2 else np.where(valid2, m2, 1.0)
    w3 = -m3 if full3 else np.where(valid3, -m3, 1.0)
    if free is None:  # one free unit per list member
        f2, f3 = valid2.astype(float), valid3.astype(float)
    else:
        f2 = np.where(valid2, free[flat2], 0.0)
        f3 = np.where(valid3, free[flat3], 0.0)
    # Units per member as a number where every member has one (f * w == w, min(v, 1.0) ==
    # min(v, f): the same floating-point results).
    unit2 = 1.0 if free is None and full2 else None
    unit3 = 1.0 if free is None and full3 else None
    x_flat = x.reshape(-1)
    feasible = np.ones(m, dtype=bool)

    # Must-take units may leave a deficit: buy whole L2 units in order until it is covered.
    short = np.flatnonzero(d < -FEASIBILITY_TOL)
    if short.size:
        C2s = np.cumsum(f2[short] * w2[short], axis=1)
        end = C2s[:, -1] if C2s.shape[1] else np.zeros(short.size)
        ok = end + d[short] >= -FEASIBILITY_TOL
        feasible[short[~ok]] = False
        rows = short[ok]
        C2s = C2s[ok]
        bought = np.ceil(_fill(-d[rows], C2s, w2[rows], f2[rows]) - _ROUND_TOL)
        bought = np.minimum(np.maximum(bought, 0.0), f2[rows])
        x_flat[flat2[rows][valid2[rows]]] += bought[valid2[rows]]
        f2[rows] -= bought
        d[rows] = rowdot(x[rows], margin[rows])

    C3 = _cumsum_rows(w3 if unit3 else f3 * w3)
    C2 = _cumsum_rows(w2 if unit2 and not short.size else f2 * w2)
    C3_end = C3[:, -1] if C3.shape[1] else np.zeros(m)
    P = np.where(n3 > 0, np.minimum(np.maximum(d, 0.0), C3_end), 0.0)
    y = _pairing_end(P, C3, a, valid3, n3, C2, b, valid2, n2)
    cap2 = unit2 if unit2 and not short.size else f2
    cap3 = unit3 or f3
    frac3 = _fill(P + y, C3, w3, cap3)
    frac2 = _fill(y, C2, w2, cap2)
    sel2 = flat2.ravel() if full2 else flat2[valid2]
    sel3 = flat3.ravel() if full3 else flat3[valid3]

    def members(v: np.ndarray, full: bool, valid: np.ndarray) -> np.ndarray:
        return v.ravel() if full else v[valid]

    # Rounding (Algorithm 3, step 7): S2 fractions up, S3 fractions down.
    def rounded(tol: float) -> np.ndarray:
        out = x.copy()
        out_flat = out.reshape(-1)
        out_flat[sel3] += members(np.minimum(np.floor(frac3 + tol), cap3), full3, valid3)
        out_flat[sel2] += members(np.minimum(np.ceil(frac2 - tol), cap2), full2, valid2)
        return out

    x_int = rounded(_ROUND_TOL)
    redo = rowdot(x_int, margin) < -FEASIBILITY_TOL
    still = None
    if redo.any():
        x_int[redo] = rounded(0.0)[redo]
        still = np.flatnonzero(redo & feasible & (rowdot(x_int, margin) < -FEASIBILITY_TOL))
    x_out = x_int.astype(np.int64)
    if not feasible.all():
        x_out[~feasible] = 0
    if still is not None and still.size:
        _drop_s3_units(batch, x_out, still, s3)
    return x_out, feasible


def _drop_s3_units(batch: _Rows, x: np.ndarray, bad: np.ndarray, s3: np.ndarray) -> None:
    """Repair rows ``bad`` whose rounded answer misses the quality rule, in place: drop S3 units.

    With capacities near 2^53 the fractional units of S3 are not representable exactly, and rounding
    down may still keep a unit too many.  Dropping S3 units (each spends quality) only raises the
    surplus; the agents spending the most quality per unit go first, until the row passes
    :meth:`SubsetSelectionProblem.evaluate`.
    """
    lb = batch.lower_bounds()
    for j in bad:
        problem = batch.row(int(j))
        spend = np.flatnonzero(s3[j] & (x[j] > lb[j]))
        for i in spend[np.argsort(problem.quality_margin[spend], kind="stable")]:
            deficit = -float(problem.quality_margin @ x[j])
            step = int(min(x[j, i] - lb[j, i], math.ceil(max(deficit, 0.0) / -problem.quality_margin[i]) + 1))
            x[j, i] -= step
            if problem.evaluate(x[j]).feasible:
                break


class GSS(Solver):
    """Greedy subset selection (Deva, Abhishek, Gujar, AAMAS 2021, Algorithm 3).

    Steps, on units: take S1, drop S4, surplus ``d``; spend ``d`` on L3 in order (whole units, then a
    fraction); pair the next L3 agent with the next L2 agent while ``a > b``; finally round S2
    fractions up and drop S3 fractions.  Always feasible (rounding only adds quality), no constant
    approximation ratio: with alpha = 0.99, q = (1.00, 0.98, 0.97) and utilities
    (eps, R/4, 0.9 R), GSS spends the surplus on the third agent fractionally, drops it and earns eps,
    where the optimum takes agents 1 and 2 and earns eps + R/4.

    Minimum orders, lot sizes and fixed costs: each agent is a choice among its allowed counts (in
    lots); the relaxation is spent greedily on the switches from each agent's least-weight to its
    best-value choice, by efficiency, the break agent is left out (the rounding) and the agents
    after it take the most valuable count that still fits.  The utility is at least the optimum
    minus one agent's switch (the break agent's; Martello and Toth, *Knapsack Problems*, 1990,
    Chapter 2), and ``bound`` is the Lagrangian bound of the quality row.

    Must lists: must-not-take agents are removed; each must-take agent's first unit is fixed, and
    when the fixed units leave a quality deficit, L2 units are bought whole, cheapest loss per
    quality first, until it is covered (status ``infeasible`` when even all of S1 and S2 cannot).

    One vectorised kernel answers both :meth:`solve` (a batch of one) and :meth:`solve_batch`
    (every row at once, the same floating-point operations as for one problem, so the answers are
    identical row by row).

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
    supports = frozenset({"must_take", "must_not_take", "min_units", "lot_size", "fixed_cost"})
    complexity = "O(n log n)"

    def _solve_integers(self, problem: SubsetSelectionProblem, rule: IntegerKnapsack) -> RawResult:
        from ._encoded import greedy_encoded  # a knapsack beyond exact float64: the greedy in integers

        return RawResult(greedy_encoded(rule), Status.FEASIBLE)

    def _solve_planner(self, problem: SubsetSelectionProblem) -> RawResult:
        return solve_choices(problem, None, None, greedy=True)  # minimum orders, lot sizes, fixed costs

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        x, feasible = _gss_one(problem)
        if not feasible[0]:
            return RawResult(None, Status.INFEASIBLE)
        return RawResult(x[0], Status.FEASIBLE)

    def _solve_batch(self, batch: ProblemBatch) -> RawBatch:
        """Every row at once with :func:`gss_batch`."""
        x, feasible = gss_batch(batch)
        if feasible.all():
            return RawBatch(x, Status.FEASIBLE)
        status = tuple(Status.FEASIBLE if ok else Status.INFEASIBLE for ok in feasible)
        return RawBatch(x, status, None, feasible)
