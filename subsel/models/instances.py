"""The knapsack literature's benchmark classes, to test exact solvers of the knapsack form of subset selection.

Each generator draws a 0-1 knapsack instance ``(values, weights, capacity)`` with integer data in the
range ``1..R``; :meth:`SubsetSelectionProblem.from_knapsack` turns it into a subset-selection
instance whose optimum equals the knapsack optimum (exact power-of-two scaling).

The classes and their definitions follow D. Pisinger, "Where are the hard knapsack problems?",
Computers & Operations Research 32(9):2271-2284, 2005, Section 2 (also S. Martello, D. Pisinger and
P. Toth, "Dynamic programming and strong bounds for the 0-1 knapsack problem", Management Science
45(3):414-424, 1999):

=============================  =====================================================================
class                          definition (``w_j`` uniform on ``1..R`` unless said otherwise)
=============================  =====================================================================
``uncorrelated``               ``p_j`` uniform on ``1..R``
``weakly_correlated``          ``p_j`` uniform on ``w_j - R/10 .. w_j + R/10``, and ``p_j >= 1``
``strongly_correlated``        ``p_j = w_j + R/10``
``inverse_strongly_correlated`` ``p_j`` uniform on ``1..R``, ``w_j = p_j + R/10``
``almost_strongly_correlated`` ``p_j`` uniform on ``w_j + R/10 - R/500 .. w_j + R/10 + R/500``
``subset_sum``                 ``p_j = w_j``
=============================  =====================================================================

The same paper, Section 3, adds classes built to be hard for the algorithms that solve the classic
ones quickly (:data:`HARD_KNAPSACK_CLASSES`, ``R/10`` and ``R/2`` rounded down as in its tables):

=================================  =================================================================
class                              definition
=================================  =================================================================
``even_odd_subset_sum``            ``w_j`` even, ``p_j = w_j``, odd capacity
``even_odd_knapsack``              ``w_j`` even, ``p_j = w_j + R/10``, odd capacity
``similar_weights``                ``p_j`` uniform on ``1..R``, ``w_j`` uniform on ``100R .. 100R + R/10 - 1``
``uncorrelated_spanner``           span(2, 10): two spanner items (uncorrelated), each item a multiple
                                   ``a = 1..10`` of one of them
``weakly_correlated_spanner``      span(2, 10) of weakly correlated spanner items
``strongly_correlated_spanner``    span(2, 10) of strongly correlated spanner items
``multiple_strongly_correlated``   mstr(3R/10, 2R/10, 6): ``p_j = w_j + 3R/10`` when 6 divides ``w_j``,
                                   else ``w_j + 2R/10``
``profit_ceiling``                 pceil(3): ``p_j = 3 ceil(w_j / 3)``
``circle``                         circle(2/3): ``p_j = floor(2/3 sqrt(4R^2 - (w_j - 2R)^2))``
=================================  =================================================================

A spanner item ``(w, p)`` is drawn as in its class and then scaled to ``(ceil(w / 5), ceil(p / 5))``
(``ceil(2x / m)`` with ``m = 10``).

The capacity is ``floor(h / (H + 1) * sum_j w_j)`` for instance ``h`` of a series of ``H``
(Pisinger's choice, so a series sweeps the capacity over the total weight); the default
``fraction = 1/2`` is the middle of a series.  In the hard classes it is raised to the largest weight
when smaller (every item then fits alone), as in Pisinger's generator.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .._validation import check_scalar

#: The classes of :func:`knapsack_instance`, in Pisinger's order.
KNAPSACK_CLASSES = (
    "uncorrelated",
    "weakly_correlated",
    "strongly_correlated",
    "inverse_strongly_correlated",
    "almost_strongly_correlated",
    "subset_sum",
)

#: The classes Pisinger (2005, Section 3) designed to be hard for the classic algorithms.
HARD_KNAPSACK_CLASSES = (
    "even_odd_subset_sum",
    "even_odd_knapsack",
    "similar_weights",
    "uncorrelated_spanner",
    "weakly_correlated_spanner",
    "strongly_correlated_spanner",
    "multiple_strongly_correlated",
    "profit_ceiling",
    "circle",
)

KnapsackInstance = tuple[np.ndarray, np.ndarray, int]


def _check(n: int, R: int, rng: np.random.Generator, fraction: float) -> None:
    check_scalar(n, "n", int, min_val=1)
    check_scalar(R, "R", int, min_val=10, unit="the data range 1..R")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    check_scalar(fraction, "fraction", min_val=0, max_val=1, include_boundaries="neither")


def _capacity(weights: np.ndarray, fraction: float) -> int:
    return int(math.floor(fraction * float(weights.sum())))


def _hard_capacity(weights: np.ndarray, fraction: float) -> int:
    """The capacity of a hard class: as the classic ones, raised to the largest weight (Pisinger's
    generator does so; every item then fits alone)."""
    return max(_capacity(weights, fraction), int(weights.max()))


def uncorrelated(n: int, R: int, rng: np.random.Generator, fraction: float = 0.5) -> KnapsackInstance:
    """Uncorrelated: ``w_j, p_j`` independent, uniform on ``1..R`` (Pisinger 2005, Section 2).

    Parameters
    ----------
    n : int
        Number of items (``>= 1``).
    R : int
        Data range (``>= 10``); the literature uses 1000 and 10000.
    rng : numpy.random.Generator
        Source of randomness (weights are drawn first, then profits).
    fraction : float, default 0.5
        Capacity as a fraction of the total weight, in (0, 1).

    Returns
    -------
    (values, weights, capacity) : ndarray of int64 (n,), ndarray of int64 (n,), int

    Raises
    ------
    ValueError
        ``n < 1``, ``R < 10`` or ``fraction`` outside (0, 1).
    TypeError
        ``rng`` is not a Generator.

    Examples
    --------
    >>> import numpy as np
    >>> p, w, c = uncorrelated(5, 1000, np.random.default_rng(0))
    >>> p.shape, int(c) == int(w.sum() // 2)
    ((5,), True)
    """
    _check(n, R, rng, fraction)
    w = rng.integers(1, R + 1, size=n)
    p = rng.integers(1, R + 1, size=n)
    return p, w, _capacity(w, fraction)


def weakly_correlated(n: int, R: int, rng: np.random.Generator,
                      fraction: float = 0.5) -> KnapsackInstance:
    """Weakly correlated: ``p_j`` uniform on ``w_j - R/10 .. w_j + R/10``, at least 1 (Pisinger 2005).

    Parameters, returns and raises as :func:`uncorrelated`.
    """
    _check(n, R, rng, fraction)
    w = rng.integers(1, R + 1, size=n)
    d = R // 10
    p = np.maximum(w + rng.integers(-d, d + 1, size=n), 1)
    return p, w, _capacity(w, fraction)


def strongly_correlated(n: int, R: int, rng: np.random.Generator,
                        fraction: float = 0.5) -> KnapsackInstance:
    """Strongly correlated: ``p_j = w_j + R/10`` (Pisinger 2005, Section 2).

    Parameters, returns and raises as :func:`uncorrelated`.
    """
    _check(n, R, rng, fraction)
    w = rng.integers(1, R + 1, size=n)
    return w + R // 10, w, _capacity(w, fraction)


def inverse_strongly_correlated(n: int, R: int, rng: np.random.Generator,
                                fraction: float = 0.5) -> KnapsackInstance:
    """Inverse strongly correlated: ``p_j`` uniform on ``1..R``, ``w_j = p_j + R/10`` (Pisinger 2005).

    Parameters, returns and raises as :func:`uncorrelated`.
    """
    _check(n, R, rng, fraction)
    p = rng.integers(1, R + 1, size=n)
    w = p + R // 10
    return p, w, _capacity(w, fraction)


def almost_strongly_correlated(n: int, R: int, rng: np.random.Generator,
                               fraction: float = 0.5) -> KnapsackInstance:
    """Almost strongly correlated: ``p_j`` uniform on ``w_j + R/10 -+ R/500`` (Pisinger 2005).

    Parameters, returns and raises as :func:`uncorrelated`.
    """
    _check(n, R, rng, fraction)
    w = rng.integers(1, R + 1, size=n)
    d = R // 500
    p = w + R // 10 + rng.integers(-d, d + 1, size=n)
    return p, w, _capacity(w, fraction)


def subset_sum(n: int, R: int, rng: np.random.Generator, fraction: float = 0.5) -> KnapsackInstance:
    """Subset sum: ``p_j = w_j`` (Pisinger 2005, Section 2).

    Parameters, returns and raises as :func:`uncorrelated`.
    """
    _check(n, R, rng, fraction)
    w = rng.integers(1, R + 1, size=n)
    return w.copy(), w, _capacity(w, fraction)


def _hard(kind: str, n: int, R: int, rng: np.random.Generator, fraction: float) -> KnapsackInstance:
    """One of :data:`HARD_KNAPSACK_CLASSES` (Pisinger 2005, Section 3; definitions in the module's
    table)."""
    _check(n, R, rng, fraction)
    r10 = R // 10
    if kind.endswith("_spanner"):
        sw = rng.integers(1, R + 1, size=2)
        if kind == "uncorrelated_spanner":
            sp = rng.integers(1, R + 1, size=2)
        elif kind == "weakly_correlated_spanner":
            sp = np.maximum(sw + rng.integers(-r10, r10 + 1, size=2), 1)
        else:
            sp = sw + r10
        sw, sp = -(-sw // 5), -(-sp // 5)  # ceil(2x / m), m = 10
        a = rng.integers(1, 11, size=n)
        k = rng.integers(0, 2, size=n)
        w, p = a * sw[k], a * sp[k]
        return p, w, _hard_capacity(w, fraction)
    if kind == "similar_weights":
        p = rng.integers(1, R + 1, size=n)
        w = 100 * R + rng.integers(0, max(r10, 1), size=n)
        return p, w, _hard_capacity(w, fraction)
    w = rng.integers(1, R + 1, size=n)
    if kind.startswith("even_odd"):
        w = 2 * ((w + 1) // 2)
        p = w.copy() if kind == "even_odd_subset_sum" else w + r10
        return p, w, 2 * (_hard_capacity(w, fraction) // 2) + 1
    if kind == "multiple_strongly_correlated":
        p = w + np.where(w % 6 == 0, 3 * r10, 2 * r10)
    elif kind == "profit_ceiling":
        p = 3 * (-(-w // 3))
    else:  # circle
        p = np.floor(2.0 / 3.0 * np.sqrt(4.0 * R * R - (w - 2.0 * R) ** 2)).astype(np.int64)
    return p, w, _hard_capacity(w, fraction)


_GENERATORS: dict[str, Callable[..., KnapsackInstance]] = {
    "uncorrelated": uncorrelated,
    "weakly_correlated": weakly_correlated,
    "strongly_correlated": strongly_correlated,
    "inverse_strongly_correlated": inverse_strongly_correlated,
    "almost_strongly_correlated": almost_strongly_correlated,
    "subset_sum": subset_sum,
    **{kind: (lambda n, R, rng, fraction=0.5, _kind=kind: _hard(_kind, n, R, rng, fraction))
       for kind in HARD_KNAPSACK_CLASSES},
}


def knapsack_instance(kind: str, n: int, R: int, rng: np.random.Generator,
                      fraction: float = 0.5) -> KnapsackInstance:
    """Draw an instance of one of Pisinger's classes by name.

    Parameters
    ----------
    kind : str
        One of :data:`KNAPSACK_CLASSES` (the classic classes) or :data:`HARD_KNAPSACK_CLASSES` (the
        classes of Pisinger 2005, Section 3).
    n, R, rng, fraction
        As in :func:`uncorrelated`.

    Returns
    -------
    (values, weights, capacity) : ndarray of int64 (n,), ndarray of int64 (n,), int

    Raises
    ------
    ValueError
        Unknown ``kind`` (and as :func:`uncorrelated`).

    Examples
    --------
    >>> import numpy as np
    >>> from subsel.models import SubsetSelectionProblem
    >>> p, w, c = knapsack_instance("strongly_correlated", 20, 1000, np.random.default_rng(1))
    >>> SubsetSelectionProblem.from_knapsack(p, w, c).n
    21
    """
    if kind not in _GENERATORS:
        raise ValueError(f"kind must be one of {', '.join(KNAPSACK_CLASSES + HARD_KNAPSACK_CLASSES)}; "
                         f"got {kind!r}")
    return _GENERATORS[kind](n, R, rng, fraction)
