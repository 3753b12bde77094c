"""The rules every layer applies to a selection: tolerances, exact limits, the agent classes, sums.

The model of Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset Selection Under
Constraints* (AAMAS 2021), Section 3, has one linear quality row ``sum_i (q_i - alpha) x_i >= 0``;
this module holds what deciding it needs, once for the whole package:

- the feasibility and optimality tolerances (:data:`FEASIBILITY_TOL`, :data:`OPTIMALITY_RTOL`);
- the largest exact integer of float64 (:data:`MAX_EXACT_INT`, ``2**53``), the limit of every
  capacity, unit count and integer datum, and the accepted ranges of ``R`` and of the costs
  (:data:`R_RANGE`, :data:`MAX_COST`);
- the partition of the agents into the classes S1..S4 of Section 5.1 (:func:`partition_masks`);
- the float sums of the problem and of a batch, rounded alike (:func:`weighted_sum`,
  :func:`rowdot`), the bound on their rounding (:func:`rounding_error`, used by
  :func:`rounding_error_bound` and :func:`rounded_up`), and the exact decision of a linear row
  (:func:`linear_at_least`).

It imports nothing of subsel.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

import numpy as np

__all__ = [
    "FEASIBILITY_TOL",
    "OPTIMALITY_RTOL",
    "MAX_EXACT_INT",
    "MAX_KNAPSACK_TOTAL",
    "R_RANGE",
    "MAX_COST",
    "weighted_sum",
    "rowdot",
    "partition_masks",
    "Partition",
    "linear_at_least",
    "rounding_error",
    "rounding_error_bound",
    "rounded_up",
    "exact_total",
    "exactly_shifted",
    "dyadic",
]

#: The one feasibility rule: an absolute tolerance on the left side of the linear constraints.
#: A selection ``x`` (integers, ``0 <= x_i <= k_i``) is feasible when, computed *exactly* from the
#: stored numbers, ``sum_i (q_i - alpha) x_i >= -FEASIBILITY_TOL`` and, with a budget,
#: ``sum_i c_i x_i <= B + FEASIBILITY_TOL`` (demand and must lists are integer rules, exact).
#: Every solver, batch check and test uses this rule (:meth:`SubsetSelectionProblem.evaluate`).
FEASIBILITY_TOL = 1e-9

#: Optimality tolerance: an ``optimal`` answer's utility is at least ``OPT - OPTIMALITY_RTOL * |OPT|``
#: (up to the rounding of its float sum), ``OPT`` the best utility of a feasible selection.
OPTIMALITY_RTOL = 1e-9

#: Largest capacity (and largest integer datum) subsel handles: every integer up to ``2**53`` is
#: exactly a float64, so unit counts, their sums of at most ``2**53`` and integer knapsack data stay
#: exact.  Larger values are refused (a silent wrap or rounding would change the problem).
MAX_EXACT_INT = 2 ** 53

#: Largest total of the values (and of the weights) of an integer knapsack: every sum of distinct
#: items then fits in int64 with room for the dynamic program's differences.  Integer knapsack data
#: beyond :data:`MAX_EXACT_INT` are kept and decided as integers, not as float64.
MAX_KNAPSACK_TOTAL = 2 ** 62

#: The unit roundoff's double, ``2^-52``: the spacing of float64 numbers in [1, 2).
_EPS = 2.0 ** -52


#: Accepted range of ``R`` (revenue per good unit) and upper limit of every cost: wide enough for
#: every unit of money and for the knapsack encoding, narrow enough that every utility
#: ``R q_i - c_i`` times every capacity, and their sums, stay far from float64 overflow.
R_RANGE = (1e-12, 1e30)
MAX_COST = 1e30


#: Length from which :func:`weighted_sum` avoids BLAS.  OpenBLAS runs ``ddot`` on one thread up
#: to n = 10^4 (fast: about 2 us) and starts its thread pool above that.
_BLAS_DOT_MAX_N = 8192


def weighted_sum(x: np.ndarray, v: np.ndarray, out: np.ndarray | None = None) -> np.floating | np.ndarray:
    """``sum_i x_i v_i`` for 1-D arrays, without multi-threaded BLAS on long vectors.

    ``x @ v`` on 1-D arrays calls BLAS ``ddot``; above n = 10^4 OpenBLAS runs it on several threads,
    which on a loaded machine was measured 70-140x slower than ``(x * v).sum()`` at n = 10^5
    (``benchmarks/bench_dot.py``), while below that ``x @ v`` is 2-3x faster.  Hence: ``x @ v`` up
    to n = 8192 (bit-for-bit the former results), an elementwise product and numpy's pairwise sum
    above.  Anything else (a batch ``x`` of shape (m, n), mismatched shapes) goes to ``x @ v``
    unchanged, with its results and its errors (``x * v`` would broadcast a wrong shape silently).

    Parameters
    ----------
    x : ndarray, shape (n,) (or (m, n): matrix product)
    v : ndarray, shape (n,)
    out : ndarray of float64, shape (n,), optional
        Scratch space for the elementwise product when n > 8192 (may be ``x`` or ``v`` itself,
        which is then overwritten): saves allocating, and faulting in, a fresh array.  The result
        is the same bit for bit.

    Returns
    -------
    numpy float (or ndarray of shape (m,) for a batch)
        ``x @ v``, up to the order of the additions when n > 8192.
    """
    if x.ndim == 1 and x.shape == v.shape:
        if x.size > _BLAS_DOT_MAX_N:
            if out is not None and out.shape == x.shape and out.dtype == np.float64:
                return np.multiply(x, v, out=out).sum()
            return (x * v).sum()
        # ndarray.dot is BLAS ddot as ``x @ v`` is (the same bits), without the ufunc machinery of
        # ``@`` (1.5 us per call on small vectors, against 0.4 us).
        return x.dot(v)
    return x @ v


def partition_masks(quality: np.ndarray, utility: np.ndarray, alpha: float | np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Boolean masks of the agent classes S1..S4 (Deva et al., Section 5.1), for any shape.

    The one place where the partition rule is written: :meth:`SubsetSelectionProblem.partition`,
    :meth:`subsel.models.ProblemBatch.partition` and the solvers built on them all call it.

    Parameters
    ----------
    quality, utility : ndarray, shape (n,) or (m, n)
        ``q`` and ``r = R q - c``.
    alpha : float or ndarray broadcastable against ``quality`` (e.g. shape (m, 1))

    Returns
    -------
    (s1, s2, s3, s4) : four disjoint boolean arrays shaped like ``quality``
        ``s1 = q >= alpha & r >= 0``, ``s2 = q > alpha & r < 0``, ``s3 = q < alpha & r >= 0`` and
        ``s4`` the rest (``q <= alpha & r < 0``): an agent with ``q == alpha`` goes to S1 when
        ``r >= 0`` and to S4 when ``r < 0``.
    """
    gain = utility >= 0
    s1 = (quality >= alpha) & gain
    s2 = (quality > alpha) & ~gain
    s3 = (quality < alpha) & gain
    s4 = ~(s1 | s2 | s3)
    return s1, s2, s3, s4


def rowdot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise inner products ``x[j] . y[j]``, shape (m,), rounded exactly like the 1-D problem.

    For ``n <= 8192`` a stacked ``matmul`` of (m, 1, n) by (m, n, 1) evaluates each row with the
    same vector dot as the 1-D ``x[j] @ y[j]``; above it, each row is an elementwise product and
    numpy's pairwise sum along the row, as :func:`weighted_sum` does for one
    problem.  So a batched computation reproduces the per-problem one bit for bit (a plain
    ``(x * y).sum(axis=1)`` or ``x @ y.T`` would round differently for short rows).

    Parameters
    ----------
    x, y : array-like of float, shape (m, n)

    Returns
    -------
    ndarray of float, shape (m,)
    """
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.shape[-1] > _BLAS_DOT_MAX_N:
        return np.ascontiguousarray(xa * ya).sum(axis=1)
    return np.matmul(xa[:, None, :], ya[:, :, None])[:, 0, 0]


class Partition(NamedTuple):
    """Index arrays of the four agent classes (Deva et al., Section 5.1).

    Attributes
    ----------
    S1 : ndarray of int, shape (n1,)
        ``q >= alpha`` and ``r >= 0``: always take every unit.
    S2 : ndarray of int, shape (n2,)
        ``q > alpha`` and ``r < 0``: buy quality at a loss.
    S3 : ndarray of int, shape (n3,)
        ``q < alpha`` and ``r >= 0``: earn revenue, spend quality.
    S4 : ndarray of int, shape (n4,)
        ``q < alpha`` and ``r < 0`` (and ``q == alpha``, ``r < 0``): never take.
    """

    S1: np.ndarray
    S2: np.ndarray
    S3: np.ndarray
    S4: np.ndarray


#: Every float64 times 2**_DYADIC_SHIFT is an integer (the smallest subnormal is 2**-1074).
_DYADIC_SHIFT = 1074


def dyadic(v: float) -> int:
    """``v * 2**1074`` as a Python int, exactly (every finite float64 is a dyadic rational).

    The exact arithmetic of the feasibility rule: sums of these integers are the exact sums of the
    stored floats (scaled by ``2**1074``), whatever their magnitudes.
    """
    num, den = float(v).as_integer_ratio()
    return num * ((1 << _DYADIC_SHIFT) // den)


_dyadic = dyadic


def rounding_error(n: Any, magnitude: Any) -> Any:
    """The most a float sum of ``n`` rounded terms can differ from the exact sum of the exact terms.

    A float sum of ``n`` terms whose absolute values add up to ``A`` is within ``(n + 4) 2^-52 A`` of
    the exact sum of the exact terms (the bound ``gamma_n`` of recursive and pairwise summation, plus
    the rounding of each term; Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed.,
    Sections 3.1 and 4.2); the factor 1.01 covers the rounding of this product itself.  The one
    formula behind :func:`rounding_error_bound` (deciding a row) and :func:`rounded_up` (making a
    float upper bound a true one).

    Parameters
    ----------
    n : int or ndarray of int
        Number of terms.
    magnitude : float or ndarray of shape (m,)
        ``sum_i |term_i|`` (or an upper bound of it, >= 0), per row for a batch.

    Returns
    -------
    float or ndarray of shape (m,)
        ``(n + 4) 2^-52 magnitude 1.01``.
    """
    return (n + 4) * _EPS * magnitude * 1.01


def rounding_error_bound(n: int, magnitude: Any, rhs: Any = 0.0) -> Any:
    """A proven bound on the rounding error of a float sum ``sum_i x_i (coef_i - shift)`` against ``rhs``.

    Covers the rounding of ``coef_i - shift`` (one ulp), of each product and of any summation order
    (``n`` ulps: :func:`rounding_error`), of the right side (one ulp), plus an absolute floor for
    subnormal underflow: ``(n + 4) 2^-52 1.01 magnitude + 2^-51 |rhs| + 1e-300`` (Higham, *Accuracy
    and Stability of Numerical Algorithms*, 2nd ed., Section 3.1, the bound ``gamma_n`` of a dot
    product).  The float sum decides the rule when it lies farther than this from the right side; the
    one problem (:func:`linear_at_least`) and the batch (:meth:`subsel.models.ProblemBatch.evaluate`)
    use it.

    Parameters
    ----------
    n : int
        Number of terms.
    magnitude : float or ndarray of shape (m,)
        ``sum_i |x_i| |coef_i - shift|`` (or an upper bound of it), per row for a batch.
    rhs : float or ndarray of shape (m,), default 0
        The right side.

    Returns
    -------
    float or ndarray of shape (m,)
    """
    return rounding_error(n, magnitude) + 2 * _EPS * abs(rhs) + 1e-300


def rounded_up(value: Any, magnitude: Any, terms: Any) -> Any:
    """``value``, a float sum of ``terms`` rounded terms, raised by the most its rounding can lose.

    ``value + rounding_error(terms, |magnitude|)``, rounded up to the next float (:func:`rounding_error`):
    at least the exact sum of the exact terms, so an upper bound computed in floating point is made a
    true one.  Vectorised: a batch raises its rows' bounds with the same formula as one problem.

    Parameters
    ----------
    value : float or ndarray of shape (m,)
        The float sum (per row for a batch).
    magnitude : float or ndarray of shape (m,)
        At least the sum of the absolute values of the terms.
    terms : int
        Number of terms (and of roundings per term) that went into ``value``.

    Returns
    -------
    float or ndarray of shape (m,)
        At least the exact value ``value`` approximates (``inf`` stays ``inf``); a float for a
        scalar ``value`` and ``magnitude``.

    Examples
    --------
    >>> rounded_up(1.5499999999999998, 1.55, 4) > 1.55
    True
    """
    total = value + rounding_error(terms, abs(magnitude))
    if isinstance(total, np.ndarray):
        return np.nextafter(total, np.inf)
    return math.nextafter(total, math.inf)


def linear_at_least(x: np.ndarray, coef: np.ndarray, shift: float, rhs: Sequence[float],
                    estimate: float | None = None, shifted: np.ndarray | None = None,
                    nonnegative: bool = False, work: np.ndarray | None = None,
                    magnitude: float | None = None) -> bool:
    """Decide exactly whether ``sum_i x_i (coef_i - shift) >= rhs_1 + rhs_2 + ...``.

    The left side is the real number given by the stored floats (no rounding); the decision uses
    the float sum and a rigorous bound on its rounding error, and exact integer arithmetic only
    when the float sum lies within that bound of the right side (so it costs two dot products in
    all but borderline cases).  This is how the one feasibility rule is checked.

    Parameters
    ----------
    x : ndarray of float, shape (n,)
        Whole numbers of absolute value at most ``2**53``.
    coef : ndarray of float, shape (n,)
    shift : float
        Subtracted from every coefficient (``alpha`` for the quality row, 0 for the budget).
    rhs : sequence of float
        Terms of the right side, added exactly.
    estimate : float, optional
        The float value of ``sum_i x_i fl(coef_i - shift)`` if already computed.
    shifted : ndarray of float, shape (n,), optional
        ``coef - shift`` as computed in float64 if already at hand (e.g. the problem's
        ``quality_margin``); it must be exactly that array.
    nonnegative : bool, default False
        True when every ``x_i >= 0`` is known (saves a pass).
    work : ndarray of float64, shape (n,), optional
        Scratch space (see :func:`weighted_sum`), overwritten.
    magnitude : float, optional
        The float value of ``sum_i |x_i| |fl(coef_i - shift)|`` if already computed.

    Returns
    -------
    bool
    """
    if shifted is not None:
        m = shifted
    elif estimate is None or magnitude is None:
        m = coef - shift if shift else coef
    s = float(weighted_sum(x, m)) if estimate is None else float(estimate)
    t = math.fsum(rhs)
    if magnitude is None:
        abs_m = np.abs(m) if work is None or work.shape != m.shape else np.abs(m, out=work)
        a = float(weighted_sum(x if nonnegative else np.abs(x), abs_m, out=work))
    else:
        a = float(magnitude)
    err = rounding_error_bound(x.size, a, t)
    if s - err > t:
        return True
    if s + err < t:
        return False
    nz = np.flatnonzero(x)
    b = _dyadic(shift)
    left = sum(int(xi) * (_dyadic(ci) - b) for xi, ci in zip(x[nz].tolist(), coef[nz].tolist()))
    return left >= sum(_dyadic(v) for v in rhs)


def exactly_shifted(values: np.ndarray, shift: float) -> bool:
    """True when every ``fl(v_i - shift)`` equals ``v_i - shift`` exactly (checked with the
    error-free transformation TwoSum; Knuth, TAOCP vol. 2, 4.2.2)."""
    a = np.asarray(values, dtype=float)
    b = -float(shift)
    s = a + b
    a1 = s - b
    b1 = s - a1
    return bool(np.all(((a - a1) + (b - b1)) == 0.0))


def exact_total(values: Any, axis: int | None = None) -> Any:
    """The exact sum of whole numbers (unit counts, capacities): an int, or int64 / int per row.

    A numpy int64 sum wraps silently past 2^63 (1024 capacities of 2^53 sum to -2^63) and a float
    sum rounds past 2^53.  This sums in int64 where no partial sum can pass 2^63 (``max |v| * count
    < 2^63``) and in Python integers otherwise, so every total of units or capacities is exact.

    Parameters
    ----------
    values : array-like of whole numbers (int or float), shape (n,) or (m, n)
    axis : None or 1
        ``None``: the sum of all values, an ``int``.  ``1`` (for a 2-D ``values``): one sum per row,
        an ndarray of int64 when every row sum fits, else of Python ints (dtype object).

    Returns
    -------
    int or ndarray

    Examples
    --------
    >>> exact_total([2 ** 53] * 1024) == 2 ** 63
    True
    """
    a = np.asarray(values)
    if a.dtype.kind == "f":
        a = a.astype(np.int64) if a.size == 0 or np.abs(a).max() < 2.0 ** 63 else a.astype(object)
    count = a.size if axis is None else (a.shape[axis] if a.ndim > axis else 1)
    big = int(np.abs(a).max()) if a.size else 0
    if a.dtype != object and big * max(count, 1) < 2 ** 63:
        total = a.astype(np.int64).sum(axis=axis)
        return int(total) if axis is None else total
    if axis is None:
        return sum(int(v) for v in a.ravel().tolist())
    out = np.empty(a.shape[0], dtype=object)
    for j, row in enumerate(a.tolist()):
        out[j] = sum(int(v) for v in row)
    return out
