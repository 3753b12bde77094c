"""`exact` on agents with many units (bounded-knapsack items) and under a memory limit.

The unit ranges of the reduction are checked against brute force over every unit count, the solver
against HiGHS (an independent MILP) on capacities far beyond what a capacity-sized state list could
hold, and the memory limit against the proven optimum.
"""
import itertools
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem
from subsel.models.instances import knapsack_instance
from subsel.solvers import Status, get_solver
from subsel.solvers.exact import _unit_ranges
from tests.solvers.test_exact_knapsack import check_optimal, highs_optimum


@st.composite
def bounded_knapsacks(draw, m_max: int = 4, k_max: int = 6, grid: bool = False):
    m = draw(st.integers(1, m_max))
    if grid:  # few distinct numbers: ties in efficiency, exactly full capacities
        num = st.integers(1, 4).map(float)
        value = np.array(draw(st.lists(num, min_size=m, max_size=m)))
        weight = np.array(draw(st.lists(st.integers(0, 4).map(float), min_size=m, max_size=m)))
    else:
        num = st.floats(0.01, 10.0, allow_nan=False)
        value = np.array(draw(st.lists(num, min_size=m, max_size=m)))
        weight = np.array(draw(st.lists(num, min_size=m, max_size=m)))
    free = np.array(draw(st.lists(st.integers(1, k_max), min_size=m, max_size=m)), dtype=np.int64)
    capacity = draw(st.floats(0.0, 1.2, allow_nan=False)) * float((weight * free).sum())
    if grid:
        capacity = float(round(capacity))
    return value, weight, free, capacity


@settings(max_examples=150, deadline=None)
@given(st.one_of(bounded_knapsacks(), bounded_knapsacks(grid=True)))
def test_unit_ranges_hold_every_optimal_selection(data):
    """Every optimal unit vector (brute force, weights summed exactly) lies inside the ranges of the
    reduction, whenever the greedy selection they are measured against fits (the caller checks it
    by the exact rule and keeps the full ranges otherwise: float sums may accept it a hair over)."""
    value, weight, free, capacity = data
    lo, hi, greedy = _unit_ranges(value, weight, free, capacity)
    assert np.all((0 <= lo) & (lo <= hi) & (hi <= free))
    w_exact, cap_exact = [Fraction(float(w)) for w in weight], Fraction(float(capacity))

    def fits(y):
        return sum(w * int(k) for w, k in zip(w_exact, y)) <= cap_exact

    assume(fits(greedy))
    best, optimal = -np.inf, []
    for y in itertools.product(*(range(int(k) + 1) for k in free)):
        y = np.array(y)
        if fits(y):
            v = float(value @ y)
            if v > best + 1e-9:
                best, optimal = v, [y]
            elif v >= best - 1e-9:
                optimal.append(y)
    for y in optimal:
        assert np.all((lo <= y) & (y <= hi)), (y, lo, hi)


def test_issue_example_two_agents_with_huge_capacities():
    """Two agents with 10^8 and 3 * 10^8 units: the optimum takes (10^8, 8 * 10^7), as HiGHS finds."""
    problem = SubsetSelectionProblem(quality=[0.9, 0.45], cost=[0.1, 0.05], alpha=0.7,
                                     capacity=[10 ** 8, 3 * 10 ** 8])
    sol = get_solver("exact").solve(problem)
    optimum, x_ref = highs_optimum(problem)
    check_optimal(problem, sol, optimum)
    assert sol.x.tolist() == [10 ** 8, 8 * 10 ** 7] == x_ref.tolist()


@pytest.mark.parametrize("exponent", [8, 10, 12])
def test_two_agents_up_to_a_trillion_units(exponent):
    """The answer scales with the capacities (the LP solution is integral here)."""
    k = 10 ** exponent
    problem = SubsetSelectionProblem(quality=[0.9, 0.45], cost=[0.1, 0.05], alpha=0.7, capacity=[k, 3 * k])
    sol = get_solver("exact").solve(problem)
    assert sol.status is Status.OPTIMAL
    assert sol.x.tolist() == [k, 4 * k // 5]
    assert problem.evaluate(sol.x).feasible


@pytest.mark.parametrize("n, k_max, seed", [(2, 10 ** 6, 0), (5, 10 ** 6, 1), (30, 10 ** 5, 2),
                                            (200, 10 ** 4, 3), (200, 10 ** 6, 4)])
def test_large_capacities_match_highs(n, k_max, seed):
    rng = np.random.default_rng(seed)
    base = SubsetSelectionProblem.random(n, alpha=0.7, rng=rng)
    problem = base.with_changes(capacity=rng.integers(1, k_max, size=n))
    optimum, _ = highs_optimum(problem)
    sol = get_solver("exact").solve(problem)
    assert sol.status is Status.OPTIMAL
    assert problem.evaluate(sol.x).feasible
    assert sol.objective == pytest.approx(optimum, rel=1e-9, abs=1e-6)
    assert sol.bound >= sol.objective


@pytest.mark.parametrize("seed", [5, 6])
def test_large_capacities_with_ties_and_must_lists_match_highs(seed):
    """Agents in groups of equal (q, c): ties in efficiency around the break, plus must lists."""
    rng = np.random.default_rng(seed)
    q = np.repeat(rng.choice([0.5, 0.6, 0.8, 0.9], size=8), 3)
    c = np.repeat(rng.choice([0.1, 0.2, 0.3], size=8), 3)
    n = q.size
    agents = rng.permutation(n)
    problem = SubsetSelectionProblem(quality=q, cost=c, alpha=0.7, capacity=rng.integers(1, 10 ** 5, size=n),
                                     must_take=agents[:2], must_not_take=agents[2:4])
    optimum, _ = highs_optimum(problem)
    sol = get_solver("exact").solve(problem)
    assert sol.status is Status.OPTIMAL
    assert problem.evaluate(sol.x).feasible
    assert sol.objective == pytest.approx(optimum, rel=1e-9, abs=1e-6)


# ------------------------------------------------------------------ memory limit
def test_memory_limit_stops_with_feasible_selection_and_valid_bound():
    p, w, c = knapsack_instance("strongly_correlated", 2000, 1000, np.random.default_rng(1))
    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
    optimum = get_solver("exact").solve(problem).objective
    sol = get_solver("exact", memory_limit_mb=0.01).solve(problem)
    assert sol.status is Status.TIME_LIMIT
    assert problem.evaluate(sol.x).feasible
    assert sol.bound >= optimum >= sol.objective


def test_memory_limit_none_means_unlimited():
    problem = SubsetSelectionProblem.random(200, alpha=0.7, rng=3)
    a = get_solver("exact", memory_limit_mb=None).solve(problem)
    b = get_solver("exact").solve(problem)
    assert a.status is b.status is Status.OPTIMAL
    assert a.objective == b.objective


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-1, ValueError), (float("nan"), ValueError),
                                        (float("inf"), ValueError), (2.0 ** 40 + 1, ValueError), (10 ** 30, ValueError),
                                        (True, TypeError), ("64", TypeError)])
def test_memory_limit_is_validated(bad, error):
    what = r"a number in \(0, 1099511627776\] \(MiB\)"
    with pytest.raises(error, match=rf"^memory_limit_mb must be {what}; got {re.escape(repr(bad))}$"):
        get_solver("exact", memory_limit_mb=bad)


@pytest.mark.parametrize("k_max, seed", [(10 ** 4, 7), (10 ** 9, 8)])
def test_identical_agents_are_one_item_and_match_highs(k_max, seed):
    """Many agents that are the same knapsack item (an S3 unit to add and an S2 unit to remove of
    equal value and weight among them): one bounded item, its units spread back over the agents."""
    rng = np.random.default_rng(seed)
    n = 60
    # Dyadic numbers, so that the values and weights are equal to the last bit.
    q = np.where(np.arange(n) % 3 == 0, 0.75, 0.25)        # S2 (r = -1/8) and S3 (r = 1/8) agents:
    c = np.where(np.arange(n) % 3 == 0, 0.875, 0.125)      # both value 1/8, weight 1/4 per unit
    q[0], c[0] = 1.0, 0.0                                    # and one S1 agent for the capacity
    problem = SubsetSelectionProblem(quality=q, cost=c, alpha=0.5, capacity=rng.integers(1, k_max, size=n))
    optimum, _ = highs_optimum(problem)
    sol = get_solver("exact").solve(problem)
    assert sol.status is Status.OPTIMAL
    assert problem.evaluate(sol.x).feasible
    assert np.all((sol.x >= 0) & (sol.x <= problem.upper_bounds()))
    assert sol.objective == pytest.approx(optimum, rel=1e-9, abs=1e-6)
