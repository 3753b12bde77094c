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
from typing import TYPE_CHECKING, Callable

import numpy as np

from .._validation import check_scalar

if TYPE_CHECKING:  # pragma: no cover - the problem module is loaded when an instance is built
    from .problem import SubsetSelectionProblem

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


#: The regions of :func:`planner_instance`, in order (the first ``regions`` of them are used).
PLANNER_REGIONS = ("north", "south", "east", "west", "valley", "coast", "hills", "plains", "delta", "lakes",
                   "uplands", "forest")

#: The lot sizes of :func:`planner_instance` (units per case: single, half-dozen, dozen, two dozen).
PLANNER_LOT_SIZES = (1, 6, 12, 24)


def planner_instance(n: int, rng: int | np.random.Generator | None = None, *, regions: int = 10,
                     alpha: float = 0.8, R: float = 14.0, demand_fraction: float = 0.22,
                     budget_slack: float = 0.05) -> "SubsetSelectionProblem":
    """A produce cooperative: ``n`` suppliers in regions, with every planner field in force.

    The supplier-selection setting of Aissaoui, Haouari and Hassini (*Computers & Operations
    Research* 34, 2007, Section 4: order quantities, set-up costs, supplier groups) on the model of
    Deva, Abhishek and Gujar (AAMAS 2021, Section 3).  Drawn in this order from ``rng``:

    * each agent's region, uniform over the first ``regions`` of :data:`PLANNER_REGIONS`;
    * per region a mean quality ``mu_r ~ U[0.6, 0.9]``; each agent's quality
      ``q_i ~ Beta(20 mu_r, 20 (1 - mu_r))`` (rounded to 3 decimals);
    * a cost rising with quality, ``c_i = (1 + 10 q_i^1.5) U[0.85, 1.15]`` (to the cent);
    * a lot size from :data:`PLANNER_LOT_SIZES`, a minimum order of ``U{1..10}`` lots, a capacity
      of ``U[100, 1500]`` units rounded up to whole lots (and at least the minimum order);
    * a fixed order cost ``U[20, 200]`` (to the cent);
    * per region a cap on its units (a truck cap) of ``U[0.3, 0.5]`` of its agents' capacity, and
      for the first region a pledge to use at least 2% of its agents (``min_agents``, at least 1).

    The demand is ``demand_fraction`` of the total capacity (rounded down), and the budget the spend
    of a feasible plan built greedily (:func:`planner_plan`: the pledge first, then the cheapest
    agents of quality at least ``alpha``, then the others within the quality surplus, whole
    capacities within the caps) times ``1 + budget_slack``, rounded up to
    the cent: the problem is feasible by construction, and the budget binds (an unlimited planner
    takes more of the allowed units, the caps leaving room above the demand).  When the greedy plan
    falls short of the demand (too few agents of quality ``alpha``), the demand is lowered to the
    units it meets; when it takes nothing (a handful of agents, none of quality ``alpha``), neither
    a demand nor a budget is set.

    Parameters
    ----------
    n : int
        Number of agents (``>= 1``).
    rng : int, numpy.random.Generator or None
        Seed or generator (a Generator is used as it is, so consecutive calls draw new instances).
    regions : int, default 10
        Number of regions, ``1..12``.
    alpha : float, default 0.8
        Quality threshold in [0, 1].
    R : float, default 14.0
        Revenue per good unit.
    demand_fraction : float, default 0.22
        Demand as a fraction of the total capacity, in (0, 1).
    budget_slack : float, default 0.05
        Budget above the greedy plan's spend, as a fraction (``>= 0``).

    Returns
    -------
    SubsetSelectionProblem
        With ``min_units``, ``lot_size``, ``fixed_cost``, ``group``, ``group_limits``, ``budget`` and
        ``demand`` (but see above); agents named ``s0, s1, ...``.

    Raises
    ------
    ValueError
        ``n < 1``, ``regions`` outside 1..12, ``alpha`` outside [0, 1], ``demand_fraction`` outside
        (0, 1), ``budget_slack < 0`` (and as the constructor, for ``R``).
    TypeError
        ``rng`` of another kind than an int, a Generator or None.

    Examples
    --------
    >>> p = planner_instance(200, 0)
    >>> len(set(p.group)), p.demand > 0, p.budget > 0
    (10, True, True)
    >>> p.evaluate(planner_plan(p)).feasible
    True
    """
    from .._random import as_generator
    from .problem import SubsetSelectionProblem

    n = check_scalar(n, "n", int, min_val=1)
    regions = check_scalar(regions, "regions", int, min_val=1, max_val=len(PLANNER_REGIONS))
    alpha = check_scalar(alpha, "alpha", min_val=0, max_val=1)
    demand_fraction = check_scalar(demand_fraction, "demand_fraction", min_val=0, max_val=1,
                                   include_boundaries="neither")
    budget_slack = check_scalar(budget_slack, "budget_slack", min_val=0)
    g = as_generator(rng, "rng")
    region = g.integers(0, regions, size=n)
    mu = g.uniform(0.6, 0.9, size=regions)[region]
    q = np.round(g.beta(20.0 * mu, 20.0 * (1.0 - mu)), 3)
    c = np.round((1.0 + 10.0 * q ** 1.5) * g.uniform(0.85, 1.15, size=n), 2)
    lot = np.asarray(PLANNER_LOT_SIZES, dtype=np.int64)[g.integers(0, len(PLANNER_LOT_SIZES), size=n)]
    m = lot * g.integers(1, 11, size=n)
    k = np.maximum(-(-g.integers(100, 1501, size=n) // lot) * lot, m)
    f = np.round(g.uniform(20.0, 200.0, size=n), 2)
    share = g.uniform(0.3, 0.5, size=regions)
    names = [PLANNER_REGIONS[r] for r in range(regions)]
    counts = np.bincount(region, minlength=regions)
    region_cap = np.bincount(region, weights=k, minlength=regions)
    limits: dict[str, dict[str, int]] = {
        names[r]: {"max_units": int(share[r] * region_cap[r])} for r in range(regions) if counts[r]}
    if counts[0]:
        limits[names[0]]["min_agents"] = max(1, int(math.ceil(0.02 * counts[0])))
    problem = SubsetSelectionProblem(
        quality=q, cost=c, alpha=alpha, R=R, capacity=k, names=[f"s{i}" for i in range(n)],
        min_units=m, lot_size=lot, fixed_cost=f, group=tuple(names[r] for r in region), group_limits=limits)
    x = planner_plan(problem, int(demand_fraction * float(k.sum())))
    if counts[0] and np.count_nonzero(x[region == 0]) < limits[names[0]]["min_agents"]:
        limits[names[0]]["min_agents"] = int(np.count_nonzero(x[region == 0]))  # too few good agents
        if not limits[names[0]]["min_agents"]:
            del limits[names[0]]["min_agents"]
    if not x.any():  # a few agents, none of quality alpha: no demand and no budget to set
        return problem.with_changes(group_limits=limits)
    demand = min(int(demand_fraction * float(k.sum())), int(x.sum()))
    spend = float(np.dot(c, x) + f[x > 0].sum())
    budget = math.ceil(spend * (1.0 + budget_slack) * 100.0 + 1e-6) / 100.0
    return problem.with_changes(group_limits=limits, demand=demand, budget=budget)


def planner_plan(problem: "SubsetSelectionProblem", demand: int | None = None) -> np.ndarray:
    """The greedy plan behind :func:`planner_instance`'s budget: a feasible witness.

    First the pledge of each group with ``min_agents``: its cheapest agents of quality at least
    ``alpha`` at their minimum orders; then those agents in order of cost per unit, each at the most
    whole lots its group's ``max_units`` leaves (skipped below its minimum order), and after them the
    agents below ``alpha`` from the best down, each at the most lots the quality surplus gathered so
    far allows, until ``demand`` units (default the problem's demand) are reached.  Budget and
    ``max_agents`` are not considered.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        With lot sizes, minimum orders and groups (any of them may be trivial).
    demand : int, optional
        Units to reach; default ``problem.demand`` (or 0).

    Returns
    -------
    ndarray of int64, shape (n,)
        Units per agent; fewer than ``demand`` in all when the agents of quality ``alpha`` cannot
        give them.
    """
    want = int(problem.demand or 0) if demand is None else int(demand)
    q = np.asarray(problem.quality)
    good = q >= problem.alpha
    order = np.argsort(np.asarray(problem.cost), kind="stable")
    order = order[good[order]]
    lot, m, k = problem.lot_size, problem.min_units, problem.capacity
    group = problem.group if problem.group is not None else (None,) * problem.n
    free = 1 << 62  # no cap
    room: dict[str | None, int] = {gname: int(lim.get("max_units", free))
                                   for gname, lim in problem.group_limits.items()}
    x = np.zeros(problem.n, dtype=np.int64)
    for gname, lim in problem.group_limits.items():
        need = lim.get("min_agents", 0)
        for i in order.tolist():
            if need <= 0:
                break
            if group[i] == gname and room[gname] >= m[i]:
                x[i] = -(-m[i] // lot[i]) * lot[i]
                room[gname] -= int(x[i])
                need -= 1
    total = int(x.sum())
    surplus = float(np.dot(q[x > 0] - problem.alpha, x[x > 0]))
    worse = np.flatnonzero(~good)
    worse = worse[np.argsort(-q[worse], kind="stable")]
    for i in np.concatenate((order, worse)).tolist():
        if total >= want:
            break
        if x[i]:
            continue
        left = room.get(group[i], free)
        units = min(int(k[i]), left // int(lot[i]) * int(lot[i]))
        if q[i] < problem.alpha:  # within the surplus the better agents left (a margin for rounding)
            units = min(units, int(0.999 * surplus / (problem.alpha - q[i])) // int(lot[i]) * int(lot[i]))
        if units < m[i] or units <= 0:
            continue
        x[i] = units
        total += units
        surplus += (q[i] - problem.alpha) * units
        if group[i] in room:
            room[group[i]] = left - units
    return x
