"""The rule among equal optima of a 0-1 knapsack: the lexicographically greatest optimal selection.

Several selections are often optimal (ties are common on integer data).  Which one a solver returns
must not depend on the path that found an optimum (the numpy dynamic program, the compiled kernel,
the enumeration of small knapsacks), and for mechanisms built on the solver (Myerson's payments) it
must be a *fixed total order on selections that does not depend on values or weights*: then lowering
an item's cost (raising its value) never drops it from the answer (Myerson, "Optimal auction design",
Mathematics of Operations Research 6(1), 1981, Section 4: monotone allocation).  The rule:

    among the optimal selections, the one that is greatest lexicographically when the items are read
    in the caller's order (``rank``), each item's preferred state (``prefer``) counting as greater.

For the knapsack ``max p.y, w.y <= c`` with ``prefer`` all True this is the lexicographically greatest
optimal ``y``.  :func:`lex_greatest` turns any optimal selection into that one: items that no optimal
selection can flip are fixed first (the reduced-cost test of Dembo and Hammer, "A reduction algorithm
for knapsack problems", Methods of Operations Research 36, 1980: flipping item ``j`` from the break
solution leaves at most ``U_LP - |p_j - e_b w_j|``); then the other items are decided one by one in
rank order, each in its preferred state when some optimal selection agrees with the ones decided so
far.  That question is answered by the current optimal selection itself, by one swap with a later
item, or else by solving the knapsack of the later items exactly.  On data whose sums are exact
(integers) the result is the rule's selection whatever optimal selection went in.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable

import numpy as np

#: Decides whether ``p.y >= target, w.y <= c`` has a 0-1 solution ``y``: returns (take, decided), where
#: ``take`` is such a solution when one exists (checked by the caller) and ``decided`` is False when
#: the search could not finish.
SubSolver = Callable[[np.ndarray, np.ndarray, Any, Any], tuple[np.ndarray, bool]]


class RuleStopped(Exception):
    """Raised when a :data:`SubSolver`'s question was cut short (by a time or memory limit), or when
    the deadline passed between questions: the rule among equal optima is then undecided, and the
    caller returns its optimal selection with status ``time_limit``."""


def _exact_sum(a: np.ndarray) -> Any:
    """Sum independent of the order of the terms: numpy's on integer arrays (every total here is
    below 2^62: exact), ``math.fsum`` on floats."""
    if a.dtype.kind in "iu":
        return int(a.sum())
    return math.fsum(a.tolist())


def _as_integers(a: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``a`` (floats ``>= 0``) as int64 multiples of a power of two ``u`` (exact) when all its
    entries lie on that grid with a total below 2^61; ``(a / u, u)`` or ``None``."""
    pos = a[a > 0]
    if pos.size == 0:
        return np.zeros(a.size, dtype=np.int64), 1.0
    _, expo = np.frexp(pos)
    mant = np.frexp(pos)[0] * 2.0 ** 53                       # integers below 2^53
    low = np.frexp((mant.astype(np.int64) & -mant.astype(np.int64)).astype(float))[1] - 1
    u = 2.0 ** int((expo - 53 + low).min())
    if not u > 0 or not float(pos.sum()) / u < 2.0 ** 61:
        return None
    return (a / u).astype(np.int64), u


def lex_greatest(p: np.ndarray, w: np.ndarray, c: float, take: np.ndarray, prefer: np.ndarray,
                 solve: SubSolver, margin: float = 0.0, deadline: float | None = None) -> np.ndarray:
    """The lexicographically greatest optimal selection of ``max p.y, w.y <= c`` (module docstring).

    Parameters
    ----------
    p, w : ndarray, shape (m,)
        Values and weights (``>= 0``), in rank order (item 0 is the most significant); int64, or
        float64 (exact when integral with sums below 2^53; otherwise ties are decided within the
        rounding of float sums).
    c : float or int
        Capacity.
    take : ndarray of bool, shape (m,)
        An optimal selection.
    prefer : ndarray of bool, shape (m,)
        The preferred state of each item (True: taken).
    solve : callable
        ``(p, w, c, target) -> (take, decided)``: a 0-1 selection of value ``>= target`` and weight
        ``<= c`` when one exists (an exact search).
    margin : float
        How far float bounds may be off (the reduced-cost test is trusted only beyond it).
    deadline : float, optional
        A ``time.perf_counter()`` value: read before each question (most are answered without a
        search, by the selection itself or one swap, and never read the clock otherwise).

    Returns
    -------
    ndarray of bool, shape (m,)
        The rule's selection (equal to ``take`` when ``take`` already is it).

    Raises
    ------
    RuleStopped
        A question ``solve`` could not decide (``decided`` False, or raised by ``solve`` itself), or
        ``deadline`` passed.
    """
    m = p.size
    out = take.copy()
    if m == 0:
        return out
    if p.dtype.kind == "f":
        # Floats on a power-of-two grid (integers, the scaled knapsack encoding) become exact int64
        # multiples of it: exact sums at numpy's speed (others are summed by math.fsum).
        ip, iw = _as_integers(p), _as_integers(w)
        if ip is not None and iw is not None and float(c) / iw[1] < 2.0 ** 62:   # (not inf: denormals)
            p, w, c = ip[0], iw[0], math.floor(float(c) / iw[1])
    # Items no optimal selection flips (Dembo-Hammer): the LP bound with the item flipped is below z.
    pf, wf = p.astype(float), w.astype(float)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        e = np.where(wf > 0, pf / np.where(wf > 0, wf, 1.0), np.inf)
    order = np.argsort(-e, kind="stable")
    cw = np.cumsum(wf[order])
    b = int(np.searchsorted(cw, float(c), side="right"))
    if b < m:
        eb = float(e[order[b]])
        lp = float(pf[order[:b]].sum()) + (float(c) - (float(cw[b - 1]) if b else 0.0)) * eb
        z = float(pf[take].sum())
        slack = 2.0 ** -40 * max(1.0, abs(lp)) + margin
        frozen = lp - np.abs(pf - eb * wf) + slack < z
    elif _exact_sum(w) <= c:  # everything fits: every optimal selection takes every item of positive value
        frozen = p > 0
    else:  # it only seemed to fit in floats (a capacity rounded up, 2^55 - 2 to 2^55): freeze nothing
        frozen = np.zeros(m, dtype=bool)
    # Frozen items are the same in every optimal selection: the rest is decided on the free items,
    # against their share of the optimum and of the capacity.
    free = np.flatnonzero(~frozen)
    if free.size == 0:
        return out
    fixed = np.flatnonzero(frozen & take)
    out[free] = _decide(p[free], w[free], c - _exact_sum(w[fixed]), take[free], prefer[free], solve, deadline)
    return out


def _decide(p: np.ndarray, w: np.ndarray, c: float, y: np.ndarray, prefer: np.ndarray,
            solve: SubSolver, deadline: float | None = None) -> np.ndarray:
    """:func:`lex_greatest` on the free items: each in rank order in its preferred state when some
    optimal selection agrees with the items decided before it."""
    z = _exact_sum(p[y])
    # The items in decreasing efficiency (as the knapsack core sorts them): each question passes the
    # later items in this order, which the core's stable sort then leaves as it is, in linear time.
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        e = np.minimum(p.astype(float) / w.astype(float), 1e300)
    by_efficiency = np.argsort(-e, kind="stable")
    pos = 0
    while True:
        todo = np.flatnonzero(y[pos:] != prefer[pos:])
        if todo.size == 0:
            return y
        if deadline is not None and time.perf_counter() > deadline:
            raise RuleStopped
        j = pos + int(todo[0])
        pos = j + 1
        cand = y.copy()
        cand[j] = prefer[j]
        better = _swap(p, w, c, cand, pos, z)
        if better is None:
            base_w = _exact_sum(w[:pos][cand[:pos]])
            if base_w <= c:
                later = by_efficiency[by_efficiency >= pos]
                sub, proven = solve(p[later], w[later], c - base_w, z - _exact_sum(p[:pos][cand[:pos]]))
                if not proven:   # a limit cut the question short: the rule is undecided
                    raise RuleStopped
                trial = cand.copy()
                trial[later] = sub
                if _exact_sum(p[trial]) >= z and _exact_sum(w[trial]) <= c:
                    better = trial
        if better is not None:
            y = better


def _swap(p: np.ndarray, w: np.ndarray, c: float, cand: np.ndarray, pos: int,
          z: float | int) -> np.ndarray | None:
    """``cand`` itself, or ``cand`` with one item from ``pos`` on flipped, when that is optimal
    (value ``>= z`` and feasible); ``None`` otherwise."""
    val, wt = _exact_sum(p[cand]), _exact_sum(w[cand])
    if val >= z and wt <= c:
        return cand
    if pos >= p.size:
        return None
    # Screened in floats with room for their rounding, then checked exactly.
    sign = np.where(cand[pos:], -1.0, 1.0)
    tol = 2.0 ** -40 * (abs(float(z)) + abs(float(c))) + 1e-300
    ok = (float(val) + sign * p[pos:] >= float(z) - tol) & (float(wt) + sign * w[pos:] <= float(c) + tol)
    for k in np.flatnonzero(ok)[:4].tolist():
        trial = cand.copy()
        trial[pos + k] = ~trial[pos + k]
        if _exact_sum(p[trial]) >= z and _exact_sum(w[trial]) <= c:
            return trial
    return None
