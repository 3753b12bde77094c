"""All hypothesis strategies of the test suite, in one module."""
from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from subsel.models import ProblemBatch, SubsetSelectionProblem

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw, n_min: int = 1, n_max: int = 8, cap_max: int = 1, extensions: bool = False,
             grid: bool = False) -> SubsetSelectionProblem:
    """Random instances: q, c in [0, 1], alpha in [0, 1], capacities 1..cap_max.

    ``grid=True`` draws q, c, alpha on a coarse grid (multiples of 1/20) so that ties and
    ``q == alpha`` cases are common.  ``extensions=True`` may add budget, demand and must lists.
    """
    n = draw(st.integers(n_min, n_max))
    val = st.integers(0, 20).map(lambda v: v / 20) if grid else unit
    q = draw(st.lists(val, min_size=n, max_size=n))
    c = draw(st.lists(val, min_size=n, max_size=n))
    alpha = draw(val)
    k = draw(st.lists(st.integers(1, cap_max), min_size=n, max_size=n))
    R = draw(st.sampled_from([1.0, 0.5, 2.0]))
    kwargs = {}
    if extensions:
        if draw(st.booleans()):
            kwargs["budget"] = draw(st.floats(0.0, float(n), allow_nan=False))
        if draw(st.booleans()):
            kwargs["demand"] = draw(st.integers(0, sum(k)))
        agents = list(range(n))
        take = draw(st.lists(st.sampled_from(agents), max_size=2, unique=True))
        rest = [i for i in agents if i not in take]
        drop = draw(st.lists(st.sampled_from(rest), max_size=2, unique=True)) if rest else []
        if take:
            kwargs["must_take"] = take
        if drop:
            kwargs["must_not_take"] = drop
    return SubsetSelectionProblem(quality=q, cost=c, alpha=alpha, capacity=k, R=R, **kwargs)


def brute_force(problem: SubsetSelectionProblem, minimize: bool = False) -> tuple[float, np.ndarray] | None:
    """Optimum by enumerating every selection (0..k_i units of each agent); None when infeasible.

    The reference every exact solver is checked against (feasibility by ``problem.evaluate``).
    """
    best = None
    for combo in itertools.product(*(range(int(k) + 1) for k in problem.capacity)):
        x = np.array(combo)
        ev = problem.evaluate(x)
        if not ev.feasible:
            continue
        val = -ev.utility if minimize else ev.utility
        if best is None or val > best[0] + 1e-12:
            best = (val, x)
    if best is None:
        return None
    return (-best[0] if minimize else best[0]), best[1]


@st.composite
def problems_with_must_lists(draw, n_min: int = 1, n_max: int = 8, cap_max: int = 3,
                             grid: bool = False) -> SubsetSelectionProblem:
    """Instances of :func:`problems` with up to two must-take and two must-not-take agents
    (and no budget or demand)."""
    problem = draw(problems(n_min=n_min, n_max=n_max, cap_max=cap_max, grid=grid))
    agents = list(range(problem.n))
    take = draw(st.lists(st.sampled_from(agents), max_size=2, unique=True))
    rest = [i for i in agents if i not in take]
    drop = draw(st.lists(st.sampled_from(rest), max_size=2, unique=True)) if rest else []
    return problem.with_changes(must_take=take, must_not_take=drop)


def knapsack_dp(values, weights, capacity) -> int:
    """Optimum of an integer 0-1 knapsack by the textbook dynamic program over capacities
    (Bellman; O(n * capacity) with numpy): an independent reference for exact solvers."""
    c = int(capacity)
    best = np.zeros(c + 1, dtype=np.int64)
    for p, w in zip(np.asarray(values, dtype=np.int64), np.asarray(weights, dtype=np.int64)):
        if w <= c:
            best[w:] = np.maximum(best[w:], best[:c + 1 - w] + p)
    return int(best[c])


@st.composite
def knapsacks(draw, m_min: int = 1, m_max: int = 7, integer: bool = True):
    """0-1 knapsack instances ``(values, weights, capacity)`` with small integer (or real) data."""
    m = draw(st.integers(m_min, m_max))
    if integer:
        num = st.integers(0, 30).map(float)
    else:
        # Real values as benchmark files write them (three decimals).  Far smaller weights would
        # fall under the feasibility tolerance 1e-9 once scaled by from_knapsack.
        num = st.integers(0, 30000).map(lambda v: v / 1000)
    values = draw(st.lists(num, min_size=m, max_size=m))
    weights = draw(st.lists(num, min_size=m, max_size=m))
    capacity = draw(st.integers(0, 60).map(float)) if integer else draw(num)
    return values, weights, capacity


def knapsack_brute_force(values, weights, capacity) -> float:
    """The 0-1 knapsack optimum by enumerating every subset (the reference for the encoding tests)."""
    best = 0.0
    for combo in itertools.product((0, 1), repeat=len(values)):
        x = np.array(combo, dtype=float)
        if x @ np.asarray(weights, dtype=float) <= capacity + 1e-9:
            best = max(best, float(x @ np.asarray(values, dtype=float)))
    return best


@st.composite
def problem_batches(draw, n_max: int = 8, m_max: int = 6, cap_max: int = 1, grid: bool = False,
                    objective: bool = False) -> ProblemBatch:
    """Batches of m rows of (q, c, alpha) over the same n agents (per-row costs, shared capacities).

    ``grid=True`` draws on multiples of 1/20 (ties and ``q == alpha`` common); ``objective=True``
    adds an ``objective_quality`` matrix.
    """
    n = draw(st.integers(1, n_max))
    m = draw(st.integers(1, m_max))
    val = st.integers(0, 20).map(lambda v: v / 20) if grid else unit
    mat = st.lists(st.lists(val, min_size=n, max_size=n), min_size=m, max_size=m)
    out = {"quality": np.array(draw(mat)), "cost": np.array(draw(mat)),
           "alpha": np.array(draw(st.lists(val, min_size=m, max_size=m))),
           "R": draw(st.sampled_from([1.0, 0.5, 2.0])),
           "capacity": np.array(draw(st.lists(st.integers(1, cap_max), min_size=n, max_size=n)))}
    if objective:
        out["objective_quality"] = np.array(draw(mat))
    return ProblemBatch(**out)


# -- EMSCO (subsel.evolution) ---------------------------------------------------------------------

@st.composite
def objective_matrices(draw, n_max: int = 25, m_max: int = 3, grid: bool = True) -> np.ndarray:
    """Populations of objective vectors (maximised), shape (n, m); ``grid`` makes ties common."""
    n = draw(st.integers(1, n_max))
    m = draw(st.integers(1, m_max))
    val = st.integers(0, 4).map(lambda v: v / 4) if grid else \
        st.floats(0.0, 1.0, allow_nan=False, allow_infinity=False)
    rows = draw(st.lists(st.lists(val, min_size=m, max_size=m), min_size=n, max_size=n))
    return np.array(rows, dtype=float)


@st.composite
def stage_vectors(draw, n_min: int = 1, n_max: int = 12, stage_max: int = 6) -> np.ndarray:
    """Non-negative integer gene vectors (not necessarily aligned)."""
    n = draw(st.integers(n_min, n_max))
    return np.array(draw(st.lists(st.integers(0, stage_max), min_size=n, max_size=n)),
                    dtype=np.int64)


@st.composite
def must_list_problems(draw, n_max: int = 7, cap_max: int = 2) -> SubsetSelectionProblem:
    """Instances with (maybe) must-take / must-not-take lists but no budget or demand."""
    p = draw(problems(n_max=n_max, cap_max=cap_max, extensions=True, grid=draw(st.booleans())))
    return p.with_changes(budget=None, demand=None)


def brute_force_rule(problem: SubsetSelectionProblem) -> tuple[float, np.ndarray] | None:
    """Optimum under the one feasibility rule by enumerating every selection, vectorised.

    Float sums decide feasibility where they are clear of the bound by more than their rounding
    error; every other selection is decided by ``problem.evaluate`` (exact).  None when infeasible.
    For up to about 10^6 selections (no budget or demand).
    """
    grids = np.meshgrid(*(np.arange(int(k) + 1) for k in problem.upper_bounds()), indexing="ij")
    X = np.stack([g.ravel() for g in grids], axis=1).astype(float)
    X = X[(X >= problem.lower_bounds()).all(axis=1)]
    m = np.asarray(problem.quality_margin)
    surplus = X @ m
    err = (problem.n + 4) * 2.0 ** -52 * 1.01 * (np.abs(X) @ np.abs(m)) + 1e-300
    feasible = surplus + 1e-9 >= err
    near = np.flatnonzero(np.abs(surplus + 1e-9) < err)
    for j in near:
        feasible[j] = problem.evaluate(X[j]).feasible
    if problem.budget is not None or problem.demand is not None:
        for j in np.flatnonzero(feasible):
            feasible[j] = problem.evaluate(X[j]).feasible
    if not feasible.any():
        return None
    util = X[feasible] @ np.asarray(problem.utility)
    j = int(np.argmax(util))
    return float(util[j]), X[feasible][j].astype(np.int64)


@st.composite
def tolerance_hard_problems(draw, n_max: int = 10) -> SubsetSelectionProblem:
    """Instances built to be hard for solver tolerances: qualities within 1e-8 of alpha (often on a
    1e-9 grid, so that sums land on the rule's bound -1e-9), R from 1e-6 to 1e3, zero costs,
    capacities 1-3 (at most 2^16 selections)."""
    n = draw(st.integers(1, n_max))
    alpha = draw(st.sampled_from([0.5, 0.7, 0.8, 0.3]) | st.floats(0.01, 0.99))
    grid = st.integers(-10, 10).map(lambda k: k * 1e-9)
    offsets = draw(st.lists(grid | st.floats(-1e-8, 1e-8), min_size=n, max_size=n))
    q = np.clip(alpha + np.array(offsets), 0.0, 1.0)
    caps = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    while np.prod(np.array(caps) + 1.0) > 2 ** 16:
        caps[int(np.argmax(caps))] -= 1
    R = 10.0 ** draw(st.floats(-6, 3))
    return SubsetSelectionProblem(quality=q, cost=np.zeros(n), alpha=alpha, capacity=caps, R=R)


@st.composite
def mirrored_tolerance_problems(draw, n_max: int = 6) -> SubsetSelectionProblem:
    """Instances whose selections land a hair from the rule's bound -1e-9 with agents on both sides
    of alpha: qualities ``alpha +- d`` for a few gaps ``d`` (so units above and below alpha cancel),
    those below moved by up to 1e-8 (often on a 1e-9 grid) and a few ulps, costs that make some utilities negative,
    capacities 1-3 (at most 2^12 selections)."""
    n = draw(st.integers(2, n_max))
    alpha = draw(st.sampled_from([0.5, 0.7, 0.3]) | st.floats(0.05, 0.95))
    gaps = draw(st.lists(st.floats(0.0, 0.5), min_size=1, max_size=2))
    grid = st.sampled_from([-1e-9, 0.0, 1e-9]) | st.integers(-3, 3).map(lambda k: k * 1e-9)
    q = []
    for _ in range(n):
        if draw(st.booleans()):  # above alpha by a gap
            q.append(min(1.0, alpha + draw(st.sampled_from(gaps))))
        else:  # the mirror of an agent above, a hair lower, moved by a few ulps (across the bound)
            below = max(0.0, 2 * alpha - min(1.0, alpha + draw(st.sampled_from(gaps)))
                        + draw(grid | st.floats(-1e-8, 1e-8)))
            for _ in range(draw(st.integers(0, 3))):
                below = float(np.nextafter(below, draw(st.sampled_from([0.0, 1.0]))))
            q.append(below)
    cost = draw(st.lists(st.sampled_from([0.0, 1.0]) | st.floats(0.0, 1.0), min_size=n, max_size=n))
    caps = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    while np.prod(np.array(caps) + 1.0) > 2 ** 12:
        caps[int(np.argmax(caps))] -= 1
    return SubsetSelectionProblem(quality=q, cost=cost, alpha=alpha, capacity=caps)


@st.composite
def large_capacity_pairs(draw) -> tuple[SubsetSelectionProblem, int]:
    """Two agents at zero cost, one above alpha (``k_a`` units) and one below (``k_b``), with
    capacities up to 1e12, and the closed-form optimum of the second agent's units:
    ``x_b = min(k_b, floor((k_a (q_a - alpha) + 1e-9) / (alpha - q_b)))`` in exact rationals
    (take every unit of the first agent; then as many of the second as the surplus pays for)."""
    from fractions import Fraction

    alpha = draw(st.floats(0.05, 0.95))
    q_a = draw(st.floats(alpha, 1.0))
    q_b = draw(st.floats(0.0, alpha, exclude_max=True))
    k_a = draw(st.integers(1, 10 ** 12))
    k_b = draw(st.integers(1, 10 ** 12))
    p = SubsetSelectionProblem(quality=[q_a, q_b], cost=[0.0, 0.0], alpha=alpha, capacity=[k_a, k_b])
    surplus = k_a * (Fraction(q_a) - Fraction(alpha)) + Fraction(1e-9)
    x_b = min(k_b, int(surplus / (Fraction(alpha) - Fraction(q_b))))
    return p, x_b


@st.composite
def cstc_trees(draw) -> dict:
    """Small random CSTC training states: inputs with a bias column, labels, routers, leaf weights,
    costs and the objective's constants (for gradient checks against finite differences)."""
    depth = draw(st.integers(0, 2))
    d = draw(st.integers(1, 4))
    n = draw(st.integers(3, 25))
    m = draw(st.sampled_from([1, 3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    Xb = np.hstack([rng.normal(size=(n, d)), np.ones((n, 1))])
    y = rng.integers(0, 2 if m == 1 else m, size=n)
    V = rng.normal(size=(2**depth - 1, d + 1))
    W = rng.normal(size=(2**depth, d + 1, m))
    # some exact zeros: the mixed norm's kink, where only the smoothing keeps it differentiable
    W[rng.random(W.shape) < 0.2] = 0.0
    costs = rng.choice([0.0, 0.3, 1.0], size=d)
    return {"depth": depth, "Xb": Xb, "y": y, "V": V, "W": W, "costs": costs,
            "lam": draw(st.sampled_from([0.0, 0.05, 1.0])), "rho": draw(st.sampled_from([1e-3, 0.5])),
            "eps": draw(st.sampled_from([1e-2, 1e-1]))}


@st.composite
def planner_problems(draw, n_max: int = 5, cap_max: int = 4) -> SubsetSelectionProblem:
    """Small instances with any combination of the planner's fields (minimum orders, lot sizes,
    fixed costs, groups with limits) and of the extensions, near-threshold qualities included.

    At most ``(cap_max + 1) ** n_max`` selections, so :func:`brute_force` enumerates them.
    """
    base = draw(problems(n_max=n_max, cap_max=cap_max, extensions=True, grid=draw(st.booleans())))
    n = base.n
    k = base.capacity
    changes: dict = {}
    if draw(st.booleans()):  # qualities a hair from alpha
        offsets = draw(st.lists(st.sampled_from([-1e-9, -2e-9, 0.0, 1e-9, 5e-10, -1e-8, 1e-8]),
                                min_size=n, max_size=n))
        pick = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        q = np.where(pick, np.clip(base.alpha + np.array(offsets), 0.0, 1.0), base.quality)
        changes["quality"] = q
    m = [draw(st.integers(1, int(ki))) for ki in k] if draw(st.booleans()) else None
    lot = None
    if draw(st.booleans()):
        lot = []
        for i, ki in enumerate(k):
            mi = 1 if m is None else m[i]
            options = [li for li in range(1, int(ki) + 1) if -(-mi // li) * li <= ki]
            lot.append(draw(st.sampled_from(options)))
    if m is not None:
        changes["min_units"] = m
    if lot is not None:
        changes["lot_size"] = lot
    if draw(st.booleans()):
        changes["fixed_cost"] = draw(st.lists(st.sampled_from([0.0, 0.05, 0.3, 1.0]), min_size=n, max_size=n))
    if draw(st.booleans()):
        labels = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n))
        changes["group"] = labels
        limits = {}
        for g in sorted({g for g in labels if g is not None}):
            lim = {}
            size = sum(1 for v in labels if v == g)
            units = sum(int(k[i]) for i, v in enumerate(labels) if v == g)
            for key, top in (("min_units", units), ("max_units", units), ("min_agents", size),
                             ("max_agents", size)):
                if draw(st.booleans()):
                    lim[key] = draw(st.integers(0, top))
            for what in ("units", "agents"):
                lo, hi = lim.get(f"min_{what}"), lim.get(f"max_{what}")
                if lo is not None and hi is not None and lo > hi:
                    lim[f"min_{what}"], lim[f"max_{what}"] = hi, lo
            if lim:
                limits[g] = lim
        if limits:
            changes["group_limits"] = limits
    return base.with_changes(**changes)


@st.composite
def knapsack_arrays(draw, m_max: int = 100, scales: tuple[int, ...] = (1, 1, 997, 2 ** 40 + 3, 2 ** 53),
                    low: int = 1, tenths: tuple[int, int] = (1, 9)):
    """Knapsacks ``(p, w, c)`` of 21 to ``m_max`` items as int64 arrays and an int: weights of
    ``low..hi`` times a scale plus 0..2 (``hi`` in 3, 20, 1000: many ties or few), values random (as
    low), correlated or equal to the weights (subset sum), the capacity ``tenths`` tenths of the total
    weight; totals below 2^62 (a large scale shrinks ``hi`` and the item count).  For the numbers
    beyond brute force: to compare two paths of the same search."""
    m = draw(st.integers(21, m_max))
    scale = draw(st.sampled_from(scales))
    hi = draw(st.sampled_from([3, 20, 1000]))
    if (hi + 3) * scale * 2 * m > 2 ** 62:   # totals above the int64 path's 2^62
        hi = 3
        m = min(m, 2 ** 62 // (12 * scale))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    w = rng.integers(low, hi + 1, m) * scale + rng.integers(0, 3, m)
    kind = draw(st.sampled_from(["random", "correlated", "subset-sum"]))
    p = {"random": rng.integers(low, hi + 1, m) * scale, "correlated": w + scale * (hi // 10 + 1),
         "subset-sum": w.copy()}[kind]
    c = int(w.sum()) * draw(st.integers(*tenths)) // 10
    return p.astype(np.int64), w.astype(np.int64), c


@st.composite
def integer_knapsacks(draw, m_max: int = 12, bounded: bool = False):
    """Integer knapsacks ``(values, weights, capacity, counts)`` as Python ints: small numbers (many
    ties), or numbers times a large scale plus a small offset (totals up to about 2^62), and
    ``counts`` (``None`` for the 0-1 knapsack).  At most 4^8 selections, for :func:`int_brute_force`."""
    m = draw(st.integers(0, m_max if not bounded else 8))
    # Totals below 2^52 (float64 state lists) and above (int64 state lists), never above 2^62:
    # at most 12 items * 8 * 2^54 (0-1) or 8 items * 3 copies * 8 * 2^54 (bounded).
    scale = draw(st.sampled_from([1, 1, 2 ** 20, 3 ** 25, 2 ** 45, 3 ** 33 + 1, 2 ** 54]))
    small = st.integers(0, 6)
    values = [a * scale + b for a, b in zip(draw(st.lists(small, min_size=m, max_size=m)),
                                            draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)))]
    weights = [a * scale + b for a, b in zip(draw(st.lists(small, min_size=m, max_size=m)),
                                             draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)))]
    counts = None
    if bounded:
        counts = draw(st.lists(st.integers(0, 3), min_size=m, max_size=m))
    total = sum(w * (1 if counts is None else k) for w, k in zip(weights, counts or [1] * m))
    capacity = draw(st.integers(0, total + 2))
    return values, weights, capacity, counts


def int_lex_optimum(values, weights, capacity, counts=None) -> list[int]:
    """The lexicographically greatest optimal ``x`` of an integer 0-1 or bounded knapsack (the rule
    among equal optima), by listing every selection (Python ints)."""
    ranges = [range(k + 1) for k in (counts if counts is not None else [1] * len(values))]
    fits = (x for x in itertools.product(*ranges) if sum(a * b for a, b in zip(x, weights)) <= capacity)
    return list(max(fits, key=lambda x: (sum(a * b for a, b in zip(x, values)), x)))


def int_lex_dp(values, weights, capacity) -> list[int]:
    """The lexicographically greatest optimal ``x`` of an integer 0-1 knapsack by the textbook table
    (best value of items ``j..`` for every capacity, then items taken in order whenever an optimum
    allows it): for knapsacks too large to list, ``O(m * capacity)``."""
    m = len(values)
    best = np.zeros((m + 1, capacity + 1), dtype=np.int64)
    for j in range(m - 1, -1, -1):
        best[j] = best[j + 1]
        if weights[j] <= capacity:
            cand = best[j + 1][:capacity + 1 - weights[j]] + values[j]
            best[j][weights[j]:] = np.maximum(best[j + 1][weights[j]:], cand)
    x, c = [], capacity
    for j in range(m):
        take = weights[j] <= c and values[j] + best[j + 1][c - weights[j]] == best[j][c]
        x.append(int(take))
        c -= weights[j] * int(take)
    return x


def int_brute_force(values, weights, capacity, counts=None) -> int:
    """The optimum of an integer 0-1 or bounded knapsack by listing every selection (Python ints)."""
    ranges = [range(k + 1) for k in (counts if counts is not None else [1] * len(values))]
    best = 0
    for x in itertools.product(*ranges):
        if sum(a * b for a, b in zip(x, weights)) <= capacity:
            best = max(best, sum(a * b for a, b in zip(x, values)))
    return best


def note_event(text: str) -> None:
    """Hypothesis's ``event``, within a hypothesis test; nothing in a plain test sharing the check."""
    from hypothesis import event
    from hypothesis.control import currently_in_test_context

    if currently_in_test_context():
        event(text)


def label_fields(problem: SubsetSelectionProblem) -> None:
    """Record (hypothesis ``event``) which constraints a drawn instance uses and whether some
    quality lies within 1e-6 of alpha, so ``--hypothesis-show-statistics`` shows what a run covered."""
    for name in sorted(problem.extensions):
        note_event(f"field {name}")
    margin = np.abs(problem.quality_margin)
    if ((margin > 0) & (margin < 1e-6)).any():
        note_event("quality a hair from alpha")
    if not problem.extensions:
        note_event("the paper's problem")


@st.composite
def decimal_lot_problems(draw) -> SubsetSelectionProblem:
    """Three suppliers of a planner's co-op: qualities with three decimals, costs in cents, R = 14,
    lots of 240 and 24 cases beside a supplier of single units, up to 60 lots each (at most 61^3
    plans, for :class:`PlansByThreshold`), sometimes a minimum order or fixed costs.  Their unit
    counts make the exact integers of the feasibility rule pass 2^62 a hair above a step."""
    q = draw(st.lists(st.integers(500, 1000), min_size=3, max_size=3))
    c = draw(st.lists(st.integers(100, 1100), min_size=3, max_size=3))
    lot = [240, 1, draw(st.sampled_from([24, 240]))]
    cap = [li * draw(st.integers(1, 60)) for li in lot]
    kwargs: dict = {}
    if draw(st.booleans()):
        kwargs["min_units"] = [li * draw(st.integers(1, 3)) if li * 3 <= k else li for li, k in zip(lot, cap)]
    if draw(st.booleans()):
        kwargs["fixed_cost"] = draw(st.lists(st.sampled_from([0.0, 12.5, 150.0]), min_size=3, max_size=3))
    return SubsetSelectionProblem(quality=[v / 1000 for v in q], cost=[v / 100 for v in c], alpha=0.5, R=14.0,
                                  capacity=cap, lot_size=lot, **kwargs)


class PlansByThreshold:
    """Every plan of a small problem (no budget, demand or groups) listed once, and the best utility
    at any threshold by look-up: brute force for a whole frontier.

    A plan meets the quality rule at ``alpha`` exactly when ``alpha <= (sum_i q_i x_i + 1e-9) /
    sum_i x_i``; plans are sorted by that ratio in floats, and those whose float ratio lies within
    1e-12 of the asked threshold are decided in exact rational arithmetic of the stored numbers.
    """

    def __init__(self, problem: SubsetSelectionProblem):
        from fractions import Fraction

        self.problem = problem
        pl = problem._planner
        counts = []
        for i in range(problem.n):
            lot, low = int(pl.lot_size[i]), int(pl.min_units[i])
            first = -(-low // lot) * lot
            used = list(range(first, int(problem.upper_bounds()[i]) + 1, lot))
            counts.append(([] if i in set(problem.must_take.tolist()) else [0]) + used)
        grids = np.meshgrid(*(np.array(cs) for cs in counts), indexing="ij")
        X = np.stack([g.ravel() for g in grids], axis=1).astype(np.int64)
        units = X.sum(axis=1)
        util = X @ np.asarray(problem.utility) - (X > 0) @ np.asarray(pl.fixed_cost)
        with np.errstate(divide="ignore"):
            ratio = np.where(units > 0, (X @ np.asarray(problem.quality) + 1e-9) / np.maximum(units, 1), np.inf)
        order = np.argsort(ratio, kind="stable")
        self.X, self.units, self.util, self.ratio = X[order], units[order], util[order], ratio[order]
        self.best_from = np.maximum.accumulate(self.util[::-1])[::-1]  # best utility among ratio >= index
        self._q = [Fraction(float(v)) for v in problem.quality]
        self._tol = Fraction(1e-9)

    def _meets(self, j: int, alpha: float) -> bool:
        from fractions import Fraction

        x = self.X[j]
        top = sum((qi * int(v) for qi, v in zip(self._q, x)), Fraction(0)) + self._tol
        return int(self.units[j]) == 0 or Fraction(alpha) * int(self.units[j]) <= top

    def best(self, alpha: float) -> float:
        """The largest utility of a plan that meets the rule at ``alpha``."""
        lo = int(np.searchsorted(self.ratio, alpha - 1e-12, side="left"))
        hi = int(np.searchsorted(self.ratio, alpha + 1e-12, side="right"))
        value = float(self.best_from[hi]) if hi < self.ratio.size else -np.inf
        for j in range(lo, hi):
            if self.util[j] > value and self._meets(j, alpha):
                value = float(self.util[j])
        return value


@st.composite
def constrained_problems(draw, n_max: int = 4, cap_max: int = 3, planner: bool = True) -> SubsetSelectionProblem:
    """Small instances with random mixes of constraint objects (:mod:`subsel.models.constraints`):
    linear constraints on the units and on the used agents (integral or real coefficients, one or
    two sides), quality floors, over the planner's fields, budget, demand and must lists; some
    sides a hair from the activity of a drawn selection.

    At most ``(cap_max + 1) ** n_max`` selections, so :func:`brute_force` enumerates them.
    """
    from subsel.models import LinearConstraint, QualityFloor

    if planner:
        base = draw(planner_problems(n_max=n_max, cap_max=cap_max))
    else:
        base = draw(problems(n_max=n_max, cap_max=cap_max, extensions=True, grid=draw(st.booleans())))
    n, k = base.n, base.capacity
    hair = st.sampled_from([0.0, 0.0, -1e-9, 1e-9, -5e-10, 5e-10, -2e-9, 2e-9, 0.5, -0.5, 1.0])
    out = []
    for j in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["units", "used", "floor"]))
        if kind == "floor":
            alpha = draw(st.sampled_from([0.3, 0.5, 0.7, 0.9]))
            values = draw(st.lists(unit, min_size=n, max_size=n))
            if draw(st.booleans()):  # values a hair from the floor
                tiny = st.sampled_from([0.0, -1e-9, 1e-9, -5e-10, 5e-10, -2e-9, 2e-9])
                values = [alpha + draw(tiny) if abs(v - alpha) < 0.2 else v for v in values]
            out.append(QualityFloor(values, alpha, name=f"floor{j}"))
            continue
        integral = draw(st.booleans())
        coef_values = st.integers(-2, 3).map(float) if integral else st.floats(-1.0, 2.0, allow_nan=False)
        coef = draw(st.lists(coef_values, min_size=n, max_size=n))
        x0 = np.array([draw(st.integers(0, int(ki))) for ki in k], dtype=float)
        v0 = x0 if kind == "units" else (x0 > 0).astype(float)
        level = float(np.dot(coef, v0))
        offset = 0.0 if integral else draw(hair)
        sense = draw(st.sampled_from(["<=", ">=", "==", "range"]))
        lower = upper = None
        if sense in ("<=", "range"):
            upper = level + offset
        if sense == ">=":
            lower = level + offset
        if sense == "range":  # below the upper side by 0 to 2
            lower = min(level - draw(st.integers(0, 2)), level + offset)
        if sense == "==":
            lower = upper = level
        out.append(LinearConstraint(coef, lower=lower, upper=upper, name=f"c{j}", on=kind))
    return base.with_constraints(*out)
