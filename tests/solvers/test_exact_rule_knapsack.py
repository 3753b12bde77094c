"""The knapsack of exact integer weights behind `exact`, a hair above a selection's average quality.

Above a selection's average quality by one float the weights ``|q_i - alpha|`` of the reduction
(Deva, Abhishek, Gujar, AAMAS 2021, Section 3) are integers past 2^53 on their common grid, where
float sums stop deciding the rule.  The integer search (reduction by Lagrangian bounds, then a
Pareto dynamic program) is checked against brute force in exact integer sums, and `exact` against
brute force under the model's rule at such thresholds.
"""
import contextlib
import itertools
import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subsel.solvers._exact_rule as exact_rule_module
import subsel.solvers.exact as exact_module
from subsel import SubsetSelectionProblem
from subsel.decisions.pricing import _last_feasible_alpha
from subsel.solvers import Status, get_solver
from subsel.solvers._exact_rule import exact_knapsack
from tests.strategies import brute_force_rule, problems


@contextlib.contextmanager
def integer_searches():
    """Inside: ``exact``'s integer searches are recorded (True: it answered, False: it gave up)."""
    calls: list[bool] = []
    real = exact_rule_module.exact_knapsack

    def counted(*args):
        out = real(*args)
        calls.append(out is not None)
        return out

    with mock.patch.object(exact_rule_module, "exact_knapsack", counted):  # exact imports it where used
        yield calls


def _brute(values, weights, capacity):
    """The best float value sum over the subsets whose exact integer weight fits."""
    best = None
    for take in itertools.product((0, 1), repeat=len(weights)):
        if sum(w for w, t in zip(weights, take) if t) <= capacity:
            value = math.fsum(v for v, t in zip(values, take) if t)
            best = value if best is None else max(best, value)
    return best


@st.composite
def integer_knapsacks(draw):
    """Weights ``base + d_i`` (base up to 2^300: float sums lose the d_i) or small, values in
    (0, 1], the capacity a subset's exact weight plus -1, 0 or 1 (the float sums cannot tell)."""
    m = draw(st.integers(1, 12))
    base = 2 ** draw(st.integers(0, 300))
    weights = [max(0, base * draw(st.integers(0, 3)) + draw(st.integers(-1000, 1000))) for _ in range(m)]
    values = draw(st.lists(st.floats(1e-6, 1.0) | st.sampled_from([0.5, 0.25]), min_size=m, max_size=m))
    subset = draw(st.lists(st.booleans(), min_size=m, max_size=m))
    capacity = max(0, sum(w for w, t in zip(weights, subset) if t) + draw(st.integers(-1, 1)))
    return np.array(values), weights, capacity


@settings(max_examples=300)
@given(integer_knapsacks(), st.data())
def test_integer_knapsack_matches_brute_force(knapsack, data):
    values, weights, capacity = knapsack
    best = _brute(values.tolist(), weights, capacity)
    found = exact_knapsack(values, weights, capacity)
    assert found is not None
    take, value = found
    assert sum(w for w, t in zip(weights, take.tolist()) if t) <= capacity  # fits, in exact integers
    assert value == float(values[take].sum())
    assert value == pytest.approx(best, rel=1e-12, abs=0)
    # An attainable incumbent (some fitting subset's value) changes nothing; an unattainable one
    # (above the optimum) leaves nothing to prove: None (or the optimum when everything fits).
    fitting = [t for t in itertools.product((0, 1), repeat=len(weights))
               if sum(w for w, s in zip(weights, t) if s) <= capacity]
    some = np.array(data.draw(st.sampled_from(fitting)), dtype=bool)
    again = exact_knapsack(values, weights, capacity, float(values[some].sum()))
    assert again is not None and again[1] == pytest.approx(best, rel=1e-12, abs=0)
    above = exact_knapsack(values, weights, capacity, best + 1e-3 * max(1.0, best))
    assert above is None or (sum(weights) <= capacity and above[1] == again[1])


def test_integer_knapsack_gives_up_past_its_memory_time_and_work_limits():
    values = np.ones(20)
    weights = [2 ** 80 + 3 ** i for i in range(20)]
    assert exact_knapsack(values, weights, sum(weights) // 2, memory=0) is None
    found = exact_knapsack(values, weights, sum(weights) // 2)
    assert found is not None and found[1] == 10.0  # the 10 lightest fit in half the total, 11 do not
    assert exact_knapsack(values, weights, sum(weights) // 2, deadline=0.0) is None  # long passed
    with mock.patch.object(exact_rule_module, "_MAX_WORK", 100):
        assert exact_knapsack(values, weights, sum(weights) // 2) is None


@st.composite
def hair_above_average(draw, n_max: int, cap_max: int):
    """A random instance at the first float threshold above the last one where a selection meets
    the rule (its average quality plus 1e-9 / units): there the selection misses the rule by a
    hair, and the float sums of the margins may still accept it.  The selection is a random one,
    or the optimum after a few such steps up the frontier from the instance's own threshold."""
    problem = draw(problems(n_min=2, n_max=n_max, cap_max=cap_max))
    if draw(st.booleans()):
        x = np.array([draw(st.integers(0, int(k))) for k in problem.capacity], dtype=np.int64)
        steps = 1
    else:
        x, steps = None, draw(st.integers(1, 4))
    for _ in range(steps):
        if x is None:
            x = get_solver("exact").solve(problem).x.copy()
        if not x.any():
            x[0] = 1
        problem = problem.with_changes(alpha=min(math.nextafter(_last_feasible_alpha(problem, x), math.inf), 1.0))
        x = None
    return problem


def _check(problem):
    ref = brute_force_rule(problem)
    sol = get_solver("exact").solve(problem)
    assert ref is not None
    assert problem.evaluate(sol.x).feasible
    assert sol.bound >= ref[0] - 1e-9 * max(1.0, abs(ref[0]))
    assert sol.status is Status.OPTIMAL  # proven, not only feasible
    assert sol.objective == pytest.approx(ref[0], rel=1e-9, abs=1e-12)


@settings(max_examples=400)  # the float sums and the rule disagree on a few percent of them
@given(hair_above_average(n_max=10, cap_max=1))
def test_exact_a_hair_above_a_selections_average_quality_with_the_integer_search(problem):
    # Enumeration (up to 16 pieces) turned off: every repair goes through the integer search.
    with mock.patch.object(exact_module, "_EXACT_ENUMERATE", 0):
        _check(problem)


@settings(max_examples=40)
@given(hair_above_average(n_max=5, cap_max=15))
def test_exact_a_hair_above_a_selections_average_quality_with_many_units(problem):
    _check(problem)  # up to 20 binary pieces: past enumeration


def test_a_threshold_where_the_float_knapsack_keeps_a_selection_the_rule_refuses():
    # 200 agents, q and c ~ U[0, 1]: at the next float above an optimum's last feasible threshold
    # the float knapsack picks that optimum again, the rule refuses it by ~1e-25, and the
    # dyadic weights pass 2^53 with 100+ pieces.  exact proves the optimum there.
    rng = np.random.default_rng(0)
    p = SubsetSelectionProblem(quality=rng.uniform(0, 1, 200), cost=rng.uniform(0, 1, 200), alpha=0.5)
    exact = get_solver("exact")
    alpha, previous = 0.5, None
    with integer_searches() as calls:
        while alpha <= 0.95:  # up the frontier to the first threshold that needs the integer search
            sol = exact.solve(p.with_changes(alpha=alpha))
            assert sol.status is Status.OPTIMAL and p.with_changes(alpha=alpha).evaluate(sol.x).feasible
            assert sol.objective <= sol.bound
            if calls:
                break
            previous = sol
            alpha = math.nextafter(_last_feasible_alpha(p, sol.x), math.inf)
    assert calls == [True] and previous is not None
    assert not p.with_changes(alpha=alpha).evaluate(previous.x).feasible
    assert sol.objective <= previous.objective
