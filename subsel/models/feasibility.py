"""The feasibility rule of :meth:`SubsetSelectionProblem.evaluate`, decided in one place for one
selection and for the rows of a :class:`ProblemBatch` (Deva, Abhishek, Gujar, AAMAS 2021, Section 3,
with this package's extensions).

:func:`selection_violations` decides the rule for one selection, exactly, and words each broken
constraint; :func:`rows_violations` decides it for an (m, n) array: vectorised float sums settle the
rows that lie clear of every limit by more than their proven rounding error, and the other rows
(and every row that breaks a bound) go through :func:`selection_violations`, so a row's messages are
those of the single problem, word for word.  The problem's own fast path for integer answers without
extensions (``SubsetSelectionProblem._evaluate_integers``) applies the same quality row.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import numpy as np

from .planner import planner_violations
from .rules import (
    _BLAS_DOT_MAX_N,
    FEASIBILITY_TOL,
    MAX_EXACT_INT,
    exact_total,
    linear_at_least,
    rounding_error_bound,
    rowdot,
    weighted_sum,
)

if TYPE_CHECKING:
    from .problem import SubsetSelectionProblem

__all__ = ["rows_violations", "selection_violations"]


def selection_violations(p: SubsetSelectionProblem, xa: np.ndarray,
                         integral: bool) -> tuple[list[str], int, np.ndarray | None]:
    """Every constraint of ``p`` that the finite selection ``xa`` breaks, decided exactly.

    Parameters
    ----------
    p : SubsetSelectionProblem
        The problem (its arrays: quality, margin, capacity, cost, budget, demand, the lists, the
        planner's fields).
    xa : ndarray of float, shape (n,)
        The selection, finite.
    integral : bool
        ``xa`` came from an integer array (whole numbers: the integrality pass is skipped).

    Returns
    -------
    violations : list of str
        One line per broken constraint, the first one first, each starting with its name.
    units : int
        ``sum_i x_i`` (exact for whole numbers).
    work : ndarray or None
        Scratch space of length n for the caller's further sums (None for short vectors).
    """
    violations: list[str] = []
    frac = np.zeros(0, dtype=np.intp) if integral else np.flatnonzero(xa != np.round(xa))
    if frac.size:
        i = int(frac[0])
        violations.append(f"integrality: x[{i}] = {xa[i]} is not an integer")
    low, high = float(xa.min()), float(xa.max())
    if low < 0:
        for i in np.flatnonzero(xa < 0)[:3]:
            violations.append(f"bounds: x[{int(i)}] = {xa[i]:g} is below 0")
    if high > 1:  # every capacity is at least 1
        for i in np.flatnonzero(xa > p.capacity)[:3]:
            violations.append(f"capacity: x[{int(i)}] = {xa[i]:g} exceeds capacity {p.capacity[i]}")
    # Every constraint in force, through its object (the keywords' ones included), each worded at
    # its stage (Constraint.stage): the must lists with the bounds, the budget and the demand last.
    objects = p.constraints
    name = p.names.__getitem__
    for c in objects:
        if c.stage == 0:
            violations += c.violations(xa, name)
    largest = max(-low, high)  # max |x_i|
    # Scratch space for the products of the sums below (one array, not one per product).
    work = np.empty(xa.size) if xa.size > _BLAS_DOT_MAX_N else None
    planner = p._planner
    if not frac.size and largest <= MAX_EXACT_INT:
        # The one feasibility rule, decided exactly (see FEASIBILITY_TOL).
        surplus = float(weighted_sum(xa, p.quality_margin, out=work))  # = quality_surplus(x)
        if p._integer_rule is not None:  # a knapsack beyond exact float64: decided on its integers
            broken = p._integer_rule.violation(xa)
            if broken is not None:
                violations.append(broken)
        elif not linear_at_least(xa, p.quality, p.alpha, (-FEASIBILITY_TOL,), estimate=surplus,
                               shifted=p.quality_margin, nonnegative=low >= 0, work=work):
            violations.append(f"quality: sum (q - alpha) x = {surplus:.3g} < -{FEASIBILITY_TOL:g}")
        if planner is not None and low >= 0 and high <= p._max_capacity:
            violations += planner_violations(planner, xa, name)  # minimum orders and lot sizes
            for g in sorted((c for c in objects if c.kind == "group_limits"), key=lambda c: c.index):  # type: ignore
                violations += g.violations(xa, name)
        if low >= 0:  # the objects given as such, each deciding its own rows exactly
            for c in p.added_constraints:
                violations += c.violations(xa, name)
        for c in objects:
            if c.stage == 2:  # the budget: sum c x + sum f [x > 0] <= B, decided exactly
                violations += c.violations(xa, name)
    if not frac.size and largest * xa.size < 2.0 ** 62:
        # exact: every partial sum stays below 2**62
        units = int(xa.astype(np.int64).sum())
    elif frac.size:
        units = int(round(math.fsum(xa)))  # not a valid selection anyway
    else:
        units = exact_total(xa)  # exact, in Python integers past 2^63
    for c in objects:
        if c.stage == 3:  # the demand, on the units counted above
            violations += c.short(units)  # type: ignore[attr-defined]
    return violations, units, work


def rows_violations(xa: np.ndarray, *, margin: np.ndarray, capacity: np.ndarray, k_min: int, k_sum: float,
                    cost: np.ndarray, budget: float | None, demand: int | None, must_take: np.ndarray,
                    must_not_take: np.ndarray,
                    row: Callable[[int], SubsetSelectionProblem], every_row: bool = False,
                    ) -> tuple[np.ndarray, tuple[tuple[str, ...], ...]]:
    """The constraints each row of ``xa`` breaks: :func:`selection_violations` of row ``j`` against
    ``row(j)``, with the rows that are clearly feasible settled by whole-array float sums.

    Parameters
    ----------
    xa : ndarray, shape (m, n)
        Finite selections, one per row (integer, boolean or float).
    margin, capacity, cost : ndarray, shape (m, n) or broadcastable to it
        ``q - alpha``, the capacities and the costs of each row.
    k_min : int
        The smallest capacity (values up to it need no capacity pass).
    k_sum : float
        The largest row sum of the capacities (bounds the magnitude of the quality sums).
    budget, demand, must_take, must_not_take
        The fields shared by the rows.
    row : callable
        ``row(j)`` is row ``j`` as a problem (for the exact decision and the messages).
    every_row : bool, default False
        Decide every row with :func:`selection_violations` (rows with the planner's fields or
        constraint objects, which the whole-array sums do not cover).

    Returns
    -------
    feasible : ndarray of bool, shape (m,)
    violations : tuple of tuple of str, length m
        Row ``j``'s violations, empty when it is feasible.
    """
    m, n = xa.shape
    if xa.dtype.kind not in "iub":
        bad_rows = (xa != np.round(xa)).any(axis=1)
    else:
        bad_rows = np.zeros(m, dtype=bool)
    if xa.size and (xa.min() < 0 or (xa.max() > k_min and not (xa <= capacity).all())):
        bad_rows |= ((xa < 0) | (xa > capacity)).any(axis=1)
    if must_take.size:
        bad_rows |= (xa[:, must_take] < 1).any(axis=1)
    if must_not_take.size:
        bad_rows |= (xa[:, must_not_take] != 0).any(axis=1)
    # The float sums decide unless they lie within their rounding error of the rule's bound
    # (rounding_error_bound, the bound linear_at_least uses); those rows (and every bad one) are
    # decided exactly, one by one.  Within the bounds the magnitude sum_i |x_i| |q_i - alpha| is at
    # most sum_i k_i (|q_i - alpha| <= 1): one number for all rows while its bound is tiny next to
    # FEASIBILITY_TOL, else the rows' own sums.
    xf = xa if xa.dtype == np.float64 else xa.astype(np.float64)
    surplus = np.multiply(xf, margin) @ np.ones(n)
    near = rounding_error_bound(n, k_sum, FEASIBILITY_TOL)
    if near > 1e-12:
        near = rounding_error_bound(n, rowdot(np.abs(xf), np.abs(margin)), FEASIBILITY_TOL)
    bad_rows |= surplus + FEASIBILITY_TOL < near
    if budget is not None:
        spent = rowdot(xa, cost)
        near = rounding_error_bound(n, spent, budget + FEASIBILITY_TOL)
        bad_rows |= spent - budget - FEASIBILITY_TOL > -near
    if demand is not None:
        # In floats, then exactly (Python ints past 2^53) for the rows near the demand.
        units = np.asarray(xa, dtype=float).sum(axis=1)
        near_demand = np.abs(units - float(demand)) <= rounding_error_bound(n, np.abs(units), float(demand)) + 1.0
        bad_rows |= ~near_demand & (units < float(demand))
        rows = np.flatnonzero(near_demand & ~bad_rows)
        if rows.size:
            short = exact_total(np.asarray(xa)[rows], axis=1) < demand
            bad_rows[rows] |= np.asarray(short, dtype=bool)
    if every_row:
        bad_rows[:] = True
    if not bad_rows.any():
        return ~bad_rows, ((),) * m
    integral = xa.dtype.kind in "iu"
    violations = tuple(tuple(selection_violations(row(j), np.asarray(xa[j], dtype=float), integral)[0]) if bad
                       else () for j, bad in enumerate(bad_rows))
    return np.array([not v for v in violations], dtype=bool), violations
