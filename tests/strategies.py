"""All hypothesis strategies of the test suite, in one module (STYLE.md item 12)."""
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
