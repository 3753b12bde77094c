"""frontier_breakpoints where the float knapsack and the model's rule disagree, a hair above each
selection's average quality: on random instances of 40-300 agents it completes and every row
agrees with independent solves, and on small ones with brute force (Deva, Abhishek, Gujar, AAMAS
2021, Section 3: the optimum is a step function of the threshold)."""
import math
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import subsel.solvers.exact as exact_module
from subsel import SubsetSelectionProblem, get_solver
from subsel.decisions import frontier_breakpoints
from tests.solvers.test_exact_rule_knapsack import integer_searches
from tests.strategies import brute_force_rule, problems


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def _check_rows(problem, df, lo, hi, reference):
    """Every row against ``reference(problem at alpha) -> optimum`` at ``alpha`` and ``alpha_to``;
    the row's selection (a fresh exact solve at ``alpha`` of the same utility) meets the rule at
    ``alpha_to`` and not one float above it; the rows tile [lo, hi].
    """
    assert df.alpha.iloc[0] == lo and df.alpha_to.iloc[-1] == hi
    assert (df.status == "optimal").all()
    for prev, row in zip(df.iloc[:-1].itertuples(), df.iloc[1:].itertuples()):
        assert row.alpha == math.nextafter(prev.alpha_to, math.inf)
    exact = get_solver("exact")
    for row in df.itertuples():
        assert _same(row.objective, reference(problem.with_changes(alpha=row.alpha)))
        at_end = reference(problem.with_changes(alpha=row.alpha_to))
        assert _same(row.objective, at_end)
        if row.alpha_to < hi:
            sol = exact.solve(problem.with_changes(alpha=row.alpha))
            assert _same(sol.objective, row.objective)
            if sol.x.sum() == row.units and sol.avg_quality == row.avg_quality:  # the row's selection
                assert problem.with_changes(alpha=row.alpha_to).evaluate(sol.x).feasible
                assert not problem.with_changes(alpha=math.nextafter(row.alpha_to, 2.0)).evaluate(sol.x).feasible


def _exact_objective(problem):
    sol = get_solver("exact").solve(problem)
    assert sol.status.value == "optimal"
    return sol.objective


def _uniform(seed: int, n: int) -> SubsetSelectionProblem:
    rng = np.random.default_rng(seed)
    return SubsetSelectionProblem(quality=rng.uniform(0, 1, n), cost=rng.uniform(0, 1, n), alpha=0.5)


def test_breakpoints_of_the_200_agent_instance_that_used_to_stop():
    p = _uniform(0, 200)
    df = frontier_breakpoints(p, 0.5, 0.95, tolerance_steps=True)
    assert (df.status == "optimal").all() and len(df) > 100
    assert df.alpha.iloc[0] == 0.5 and df.alpha_to.iloc[-1] == 0.95
    for prev, row in zip(df.iloc[:-1].itertuples(), df.iloc[1:].itertuples()):
        assert row.alpha == math.nextafter(prev.alpha_to, math.inf)
        assert row.objective <= prev.objective
    # where it stopped: the step at 0.728...; the rows around it against fresh solves
    at = int(np.searchsorted(df.alpha_to.to_numpy(), 0.7280893757817446))
    _check_rows(p, df.iloc[at - 2:at + 3].reset_index(drop=True), df.alpha.iloc[at - 2], df.alpha_to.iloc[at + 2],
                _exact_objective)


def test_exact_at_a_selections_last_feasible_threshold():
    """The selection meets the rule by ~3e-17 at its last feasible threshold, less than the float
    capacity's rounding (~1e-16): the knapsack's capacity is raised by its rounding error so the
    selection is not cut off and a worse one called optimal (it was, before)."""
    p = _uniform(0, 89)
    exact = get_solver("exact")
    x = exact.solve(p.with_changes(alpha=0.7665991963043254)).x
    at = p.with_changes(alpha=0.7667841932283532)  # the last float where x meets the rule
    assert at.evaluate(x).feasible
    sol = exact.solve(at)
    assert sol.status.value != "optimal" or sol.objective >= at.evaluate(x).utility - 1e-12


@settings(max_examples=8)
@given(st.integers(0, 2 ** 32 - 1), st.integers(40, 300), st.floats(0.6, 0.95), st.floats(0.005, 0.04))
def test_breakpoints_on_random_instances_agree_with_fresh_solves(seed, n, lo, width):
    p = _uniform(seed, n)
    hi = min(1.0, lo + width)
    df = frontier_breakpoints(p, lo, hi, tolerance_steps=True)
    _check_rows(p, df, lo, hi, _exact_objective)


def _brute(problem):
    return brute_force_rule(problem)[0]


def test_breakpoints_against_brute_force_where_the_integer_search_decides():
    """Small random instances walked over [0, 1]; enumeration of up to 16 pieces is turned off, so
    each threshold where the float sums and the rule disagree is proven by the integer search."""
    with mock.patch.object(exact_module, "_EXACT_ENUMERATE", 0), integer_searches() as calls:
        for seed in range(120):
            rng = np.random.default_rng(seed)
            n = int(rng.integers(2, 13))
            cap = rng.integers(1, 4, n) if n <= 7 else np.ones(n, dtype=np.int64)
            p = SubsetSelectionProblem(quality=rng.uniform(0, 1, n), cost=rng.uniform(0, 1, n), alpha=0.5,
                                       capacity=cap)
            _check_rows(p, frontier_breakpoints(p, 0.0, 1.0, tolerance_steps=True), 0.0, 1.0, _brute)
    assert len(calls) >= 5 and all(calls)  # the integer search ran, and proved each time


@settings(max_examples=60)
@given(problems(n_min=2, n_max=12) | problems(n_min=2, n_max=6, cap_max=3))
def test_breakpoints_against_brute_force(problem):
    with mock.patch.object(exact_module, "_EXACT_ENUMERATE", 0):
        _check_rows(problem, frontier_breakpoints(problem, 0.0, 1.0, tolerance_steps=True), 0.0, 1.0, _brute)
