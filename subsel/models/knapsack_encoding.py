"""The 0-1 knapsack as subset selection, and the integer data it keeps (:class:`IntegerKnapsack`).

A 0-1 knapsack ``max p.x`` s.t. ``w.x <= W`` is a subset-selection problem with one anchor agent
(``q - alpha = W s``, ``r = 0``) and one agent per item (``q - alpha = -w_j s``, ``r = p_j``): the
quality constraint ``sum (q_i - alpha) x_i >= 0`` is ``w.x <= W x_anchor`` (Deva, Abhishek, Gujar,
AAMAS 2021, Section 3, eq. (1); the knapsack of Martello and Toth, *Knapsack Problems*, Wiley, 1990,
Section 2.1).  Integer data up to ``W + 3 max w <= 2^29`` and sums up to ``2^53`` are encoded exactly
in float64, and the problem's float rule decides as the integers do.  Larger integer data (any
entry up to ``2^62``, totals up to :data:`~subsel.models.MAX_KNAPSACK_TOTAL` = ``2^62``) are
encoded in float64 only approximately; the problem then keeps the integers
(:attr:`SubsetSelectionProblem.knapsack`) and decides its quality constraint in exact integer
arithmetic on them, so that a selection is feasible exactly when it fits the knapsack.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._files import InputError
from .._validation import as_float_array as _as_float_array
from .._validation import check_scalar as _check_scalar
from .._validation import readonly as _readonly
from ._checks import _exact_numbers
from ._rules import FEASIBILITY_TOL, MAX_EXACT_INT, MAX_KNAPSACK_TOTAL

if TYPE_CHECKING:
    from .problem import SubsetSelectionProblem

__all__ = ["IntegerKnapsack", "encode_knapsack"]


def _exact_sum(a: np.ndarray, x: np.ndarray) -> int:
    """``sum a_j x_j`` exactly, for int64 ``a >= 0`` and whole-number floats ``x`` (int64 while no
    partial sum can pass 2^63, Python ints otherwise)."""
    if not a.size:
        return 0
    if float(np.abs(x).max()) * float(a.sum()) < 2.0 ** 62:
        return int((a * x.astype(np.int64)).sum())
    return sum(int(u) * int(v) for u, v in zip(a.tolist(), x.tolist()) if u and v)


@dataclass(frozen=True, eq=False)
class IntegerKnapsack:
    """The integer data of a 0-1 knapsack encoded as subset selection.

    ``max values.y`` subject to ``weights.y <= capacity``, ``y`` in {0, 1}^m; the problem's agent 0
    is the anchor and agent ``j + 1`` item ``j`` (:meth:`SubsetSelectionProblem.from_knapsack`).

    Attributes
    ----------
    values : ndarray of int64, shape (m,)
        Profits ``p_j >= 0``, read-only.
    weights : ndarray of int64, shape (m,)
        Weights ``w_j >= 0``, read-only.
    capacity : int
        ``W >= 0`` as given (any size).
    exact_in_float64 : bool
        True when the float64 encoding is exact (``W + 3 max w <= 2^29``, every sum of profits and of
        weights at most ``2^53``, every profit and weight stored exactly): the problem's float
        feasibility rule then decides as the integers.  False: the problem decides its quality
        constraint on these integers (:meth:`violation`), and the ``exact`` solver solves it as an
        integer knapsack.
    """

    values: np.ndarray
    weights: np.ndarray
    capacity: int
    exact_in_float64: bool

    @property
    def effective_capacity(self) -> int:
        """``min(capacity, sum weights)``: the capacity the encoding uses (the same feasible set)."""
        return min(self.capacity, int(self.weights.sum()))

    def weight(self, x: Any) -> int:
        """``weights . y`` of the items' part ``y = x[1:]`` of a selection ``x`` of the problem,
        exactly (a Python int).

        Parameters
        ----------
        x : array-like of int, shape (m + 1,)
            Units per agent (agent 0 the anchor).

        Returns
        -------
        int
        """
        return _exact_sum(self.weights, np.asarray(x, dtype=float)[1:])

    def value(self, x: Any) -> int:
        """``values . y`` of the items' part ``y = x[1:]`` of a selection ``x``, exactly: the knapsack
        value of a selection of the problem (whose ``utility`` is a float64 sum); ``x`` and the
        return as in :meth:`weight`."""
        return _exact_sum(self.values, np.asarray(x, dtype=float)[1:])

    def violation(self, x: np.ndarray) -> str | None:
        """The quality constraint of the encoding, ``weights . x[1:] <= W' x[0]`` with
        ``W' = min(W, sum w)``, decided in exact integers; a message when it fails, else None.

        Parameters
        ----------
        x : ndarray of float, shape (m + 1,)
            Whole numbers (the caller checks integrality and bounds).

        Returns
        -------
        str or None
            The violation's line, starting with ``quality:``, or None when the constraint holds.
        """
        weight = _exact_sum(self.weights, x[1:])
        limit = int(x[0]) * self.effective_capacity
        if weight <= limit:
            return None
        return (f"quality: the items weigh sum w x = {weight} > {limit} (the knapsack's capacity "
                f"{self.effective_capacity} times the anchor's {int(x[0])} units)")


def _integers(given: Any, floats: np.ndarray, name: str) -> tuple[np.ndarray, float]:
    """The whole numbers ``given`` (read as ``floats``) as exact int64, each at most 2^62, and the
    float sum of ``floats`` (within its rounding of the exact total)."""
    top, total_f = float(floats.max()), float(floats.sum())
    if top > MAX_KNAPSACK_TOTAL:
        j = int(np.argmax(floats > MAX_KNAPSACK_TOTAL))
        raise InputError(f"must be at most 2^62 = {MAX_KNAPSACK_TOTAL} (the largest integer knapsack datum "
                         "subsel handles)", column=name, row=j, value=_exact_numbers(given, name)[1][j])
    if isinstance(given, np.ndarray) and given.dtype.kind in "iu":
        out = given.astype(np.int64)
    elif isinstance(given, np.ndarray) or top < MAX_EXACT_INT:
        out = floats.astype(np.int64)  # every float is the given whole number, exactly
    else:  # Python ints beyond 2^53 round as floats: read them again, exactly
        exact = [int(v) for v in _exact_numbers(given, name)[1]]
        for j, v in enumerate(exact):
            if v > MAX_KNAPSACK_TOTAL:
                raise InputError(f"must be at most 2^62 = {MAX_KNAPSACK_TOTAL} (the largest integer knapsack "
                                 "datum subsel handles)", column=name, row=j, value=v)
        out = np.array(exact, dtype=np.int64)
    if total_f > 2.0 ** 61:  # the exact running sum, to name the item where it crosses
        total = 0
        for j, v in enumerate(out.tolist()):
            total += v
            if total > MAX_KNAPSACK_TOTAL:
                raise InputError(f"brings the sum of {name} to {total} > 2^62 = {MAX_KNAPSACK_TOTAL}, beyond "
                                 "64-bit integer sums", column=name, row=j, value=v)
    return _readonly(out, copy=False), total_f


def encode_knapsack(cls: type, values: Any, weights: Any, capacity: Any) -> SubsetSelectionProblem:
    """The body of :meth:`SubsetSelectionProblem.from_knapsack` (which see): a 0-1 knapsack instance
    encoded as subset selection, built as ``cls``; integer data also kept as an
    :class:`IntegerKnapsack` (:attr:`SubsetSelectionProblem.knapsack`)."""
    p = _as_float_array(values, "values")
    w = _as_float_array(weights, "weights")
    if p.size != w.size:
        raise ValueError(f"values has {p.size} entries but weights has {w.size}; arrays must have the same length")
    if p.size == 0:
        raise ValueError("values must hold at least one item; got 0 items")
    pw = np.concatenate((p, w))  # both at once: one pass per check
    if pw.min() < 0:
        for name, arr in (("values", p), ("weights", w)):
            bad = np.flatnonzero(arr < 0)
            if bad.size:
                i = int(bad[0])
                raise ValueError(f"{name}[{i}] must be >= 0; got {arr[i]}")
    if isinstance(capacity, (int, np.integer)) and not isinstance(capacity, (bool, np.bool_)) \
            and int(capacity) > 2 ** 1000:  # beyond float64 (and every total weight): lets every item in
        W = 2.0 ** 1000
    else:
        W = _check_scalar(capacity, "capacity")
    if W < 0:
        raise ValueError(f"capacity must be >= 0; got {W}")
    # Whole numbers: the float64 values are integral exactly when the given numbers are (an int
    # beyond 2^53 rounds to another integer: the exact integers are read from the input below).
    whole = W.is_integer() and not np.fmod(pw, 1.0).any()
    data = None
    exact = whole
    if whole:
        (iv, total_v), (iw, total_w) = _integers(values, p, "values"), _integers(weights, w, "weights")
        ints = iv, iw
        cap = int(capacity) if isinstance(capacity, (int, np.integer)) else int(W)
        # Every sum exact in float64: a float total of at most 2^52 proves it (its rounding error is far
        # below 2^52); above, the exact totals decide.
        exact = max(total_v, total_w) <= 2.0 ** 52 or max(int(iv.sum()), int(iw.sum())) <= MAX_EXACT_INT
        if not exact:
            p, w = ints[0].astype(float), ints[1].astype(float)
    # A capacity of at least the total weight lets every item in: the same feasible set.
    W = min(W, float(w.sum()))
    wmax = float(w.max()) if w.size else 0.0
    # alpha = 2 wmax s, so q_j = alpha - w_j s >= wmax s > 0 and q_anchor = alpha + W s <= 1.
    span = W + 3.0 * max(wmax, 0.0)
    s = 1.0 if span <= 0 else 2.0 ** math.floor(-math.log2(span))
    # With all weights 0 the items sit at q = alpha = 1/2; the anchor still needs W s <= 1/2.
    while (2.0 * wmax * s if wmax > 0 else 0.5) + W * s > 1.0:
        s /= 2.0
    # One unit of weight must weigh more than the tolerance, or an overweight selection would pass
    # the float rule: s >= 2^-29 > 1e-9, i.e. W + 3 max w <= 2^29.  Beyond: the integer rule.
    exact = exact and s > FEASIBILITY_TOL
    alpha = 2.0 * wmax * s if wmax > 0 else 0.5
    q = np.empty(p.size + 1)
    q[0] = alpha + W * s  # the anchor
    q_items = np.subtract(alpha, np.multiply(w, s, out=q[1:]), out=q[1:])
    # R large enough that c_j = R q_j - p_j >= 0; a power of two keeps R q_j exact.
    ratio = float(np.max(p / q_items)) if p.size else 1.0
    # (frexp, not ceil(log2): log2 rounds 2^50 + 2 to 50.0 and R would fall one power short.)
    mantissa, exponent = math.frexp(max(ratio, 1.0))
    R = 2.0 ** (exponent - 1 if mantissa == 0.5 else exponent)
    c = R * q
    c[1:] -= p
    np.maximum(c, 0.0, out=c)
    names = ("anchor", *map("item_{}".format, range(p.size)))
    problem = cls(quality=q, cost=c, alpha=alpha, R=R, names=names)
    if exact:  # every number of the encoding is exact: check it, never trust it
        # q_j = alpha - w_j s exactly: alpha = 2 wmax s exactly, and q_j / s (exact: s is a
        # power of two) is the integer 2 wmax - w_j (exact in float64: below 2^31).  And r_j = p_j.
        bad = problem.utility[1:] != p
        if wmax > 0 and alpha / s == 2.0 * wmax:
            bad |= q_items / s != 2.0 * wmax - w
        elif wmax > 0:
            bad[:] = True
        exact = not bad.any()
    if whole:
        data = IntegerKnapsack(ints[0], ints[1], cap, exact)
        object.__setattr__(problem, "knapsack", data)
        if not exact:  # the float rule cannot tell every overweight selection: the integers decide
            object.__setattr__(problem, "_integer_rule", data)
    return problem
