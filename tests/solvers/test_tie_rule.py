"""The rule among equal optima (the lexicographically greatest optimal selection) in ``exact``: the
numpy path and the compiled kernel return the same ``x``, the one brute force picks by that rule."""
import itertools
import time
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem, solve_knapsack
from subsel.models import KNAPSACK_CLASSES, knapsack_instance
from subsel.solvers import Status, _knapsack, get_solver
from subsel.solvers import exact as exact_module
from subsel.solvers._ties import RuleStopped, lex_greatest
from tests.strategies import brute_force_rule, int_lex_dp, int_lex_optimum, problems

#: The numpy path with its dynamic program, with the enumeration of small knapsacks, and the kernel.
PATHS = pytest.mark.parametrize("path", ["dp", "enumerate", "jit"])


def solve_on(path, problem):
    most = 0 if path == "dp" else _knapsack._MAX_ENUMERATE
    with mock.patch.object(_knapsack, "_MAX_ENUMERATE", most):
        return get_solver("exact", jit=path == "jit", lexicographic=True).solve(problem)


@st.composite
def integer_knapsacks_small(draw):
    """Small integer 0-1 knapsacks with many ties (values and weights in 0..5)."""
    m = draw(st.integers(1, 10))
    values = draw(st.lists(st.integers(0, 5), min_size=m, max_size=m))
    weights = draw(st.lists(st.integers(0, 5), min_size=m, max_size=m))
    capacity = draw(st.integers(0, sum(weights) + 1))
    return values, weights, capacity


@settings(max_examples=150)
@given(integer_knapsacks_small())
@example(([3, 3, 3], [2, 2, 2], 4))
@example(([0, 5, 0], [1, 1, 0], 1))
@PATHS
def test_knapsack_problems_follow_the_rule(path, data):
    values, weights, capacity = data
    problem = SubsetSelectionProblem.from_knapsack(values, weights, capacity)
    sol = solve_on(path, problem)
    assert sol.status is Status.OPTIMAL
    # Agent 0 is the encoding's anchor (always selected); agents 1.. are the items in order.
    assert sol.x[0] == 1
    assert sol.x[1:].tolist() == int_lex_optimum(values, weights, capacity)


@settings(max_examples=150)
@given(st.booleans().flatmap(lambda grid: problems(n_max=8, cap_max=1, grid=grid)))
def test_numpy_path_and_kernel_return_the_same_selection(problem):
    numpy_sol = solve_on("dp", problem)
    kernel_sol = solve_on("jit", problem)
    assert numpy_sol.status is kernel_sol.status
    if numpy_sol.status is Status.OPTIMAL:
        assert numpy_sol.x.tolist() == kernel_sol.x.tolist()
        best = brute_force_rule(problem)
        assert best is not None and numpy_sol.objective == pytest.approx(best[0], rel=1e-12, abs=1e-9)


def test_rule_is_monotone_in_an_items_value():
    """Raising the value of a selected item never drops it (the rule is a fixed order on selections)."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        m = int(rng.integers(2, 9))
        v, w = rng.integers(0, 5, m), rng.integers(1, 5, m)
        c = int(rng.integers(0, w.sum() + 1))
        x = int_lex_optimum(v.tolist(), w.tolist(), c)
        for j in np.flatnonzero(x):
            v2 = v.copy()
            v2[j] += 1
            problem = SubsetSelectionProblem.from_knapsack(v2, w, c)
            assert solve_on("dp", problem).x[1 + j] == 1


@pytest.mark.parametrize("enumerate_up_to", [0, _knapsack._MAX_ENUMERATE])
@given(st.lists(st.integers(0, 4), min_size=1, max_size=9), st.data())
def test_lex_greatest_from_any_optimal_selection(enumerate_up_to, values, data):
    """Whichever optimal selection goes in, the rule's selection comes out (the questions answered
    by the dynamic program with a target, or by enumeration)."""
    m = len(values)
    weights = data.draw(st.lists(st.integers(0, 4), min_size=m, max_size=m))
    capacity = data.draw(st.integers(0, sum(weights) + 1))
    target = int_lex_optimum(values, weights, capacity)
    best = sum(a * b for a, b in zip(target, values))
    optima = [x for x in itertools.product((0, 1), repeat=m)
              if sum(a * b for a, b in zip(x, weights)) <= capacity and sum(a * b for a, b in zip(x, values)) == best]
    start = data.draw(st.sampled_from(optima))
    p, w = np.array(values, dtype=np.int64), np.array(weights, dtype=np.int64)

    def solve(pp, ww, cc, target):
        res = _knapsack.solve_knapsack(pp, ww, cc, None, None, target=target)
        return res.take, res.optimal

    with mock.patch.object(_knapsack, "_MAX_ENUMERATE", enumerate_up_to):
        out = lex_greatest(p, w, capacity, np.array(start, dtype=bool), np.ones(m, dtype=bool), solve)
    assert out.astype(int).tolist() == target


@pytest.mark.parametrize("kind", sorted(KNAPSACK_CLASSES))
@pytest.mark.parametrize("seed", [0, 1])
def test_rule_on_the_classic_classes(kind, seed):
    """Knapsacks beyond enumeration (ties abound in the correlated classes and subset sum): the rule's
    selection, from solve_knapsack and from exact on the encoded problem (both paths)."""
    v, w, c = knapsack_instance(kind, n=60, R=100, rng=np.random.default_rng(seed))
    target = int_lex_dp(v.tolist(), w.tolist(), int(c))
    assert solve_knapsack(v, w, c, lexicographic=True).x.tolist() == target
    problem = SubsetSelectionProblem.from_knapsack(v, w, c)
    for path in ("dp", "jit"):
        assert solve_on(path, problem).x[1:].tolist() == target


def _tie_heavy_problem() -> SubsetSelectionProblem:
    """40 agents of four qualities and three costs: ties the rule needs exact searches to decide."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        q, c = rng.choice([0.5, 0.6, 0.8, 0.9], size=40), rng.choice([0.1, 0.2, 0.3], size=40)
        problem = SubsetSelectionProblem(quality=q, cost=c, alpha=0.7, R=1.0)
        with mock.patch("subsel.solvers.exact.solve_knapsack", wraps=exact_module.solve_knapsack) as spy:
            get_solver("exact", lexicographic=True).solve(problem)
        if any(call.kwargs.get("target") is not None for call in spy.call_args_list):
            return problem
    raise AssertionError("no tie-heavy problem found")  # pragma: no cover


def test_a_time_limit_stops_the_rule_with_status_time_limit():
    """The rule's exact searches honour the time limit; stopped there, the optimum found is returned
    as ``time_limit`` (its objective optimal, its x not promised to be the rule's)."""
    problem = _tie_heavy_problem()
    best = get_solver("exact").solve(problem)
    real = exact_module.solve_knapsack

    def slow(*args, **kwargs):   # every question of the rule outlasts the limit
        if kwargs.get("target") is None:
            return real(*args, **kwargs)
        time.sleep(0.12)
        return real(*args, **kwargs)._replace(optimal=False)

    with mock.patch("subsel.solvers.exact.solve_knapsack", side_effect=slow):
        sol = get_solver("exact", lexicographic=True, time_limit_s=0.1).solve(problem)
    assert sol.status is Status.TIME_LIMIT
    assert sol.objective == pytest.approx(best.objective, abs=1e-12)
    assert problem.evaluate(sol.x).feasible
    # Without the limit the rule is decided: optimal.
    assert get_solver("exact", lexicographic=True).solve(problem).status is Status.OPTIMAL


def test_the_deadline_is_read_between_the_rules_questions():
    """Questions answered without a search (the selection itself, one swap) read no clock: the rule
    reads it before each question, so a passed deadline stops it even when no search runs."""
    p = w = np.ones(30, dtype=np.int64)
    take = np.arange(30) >= 15                   # optimal (15 of 30 fit), not the greatest
    prefer = np.ones(30, dtype=bool)

    def search(*args):   # (not reached: every question here is answered by a swap)
        raise AssertionError("a question needed a search")
    assert lex_greatest(p, w, 15, take, prefer, search).tolist() == (np.arange(30) < 15).tolist()
    with pytest.raises(RuleStopped):
        lex_greatest(p, w, 15, take, prefer, search, deadline=time.perf_counter() - 1.0)
    # Through the public API: a deadline passed after the search, before the rule's first question
    # (items 15 to 29 are still to be asked about): an optimum, status time_limit, its value as bound.
    v = w_ = [1] * 30
    with mock.patch("subsel.solvers._ties.time", mock.Mock(perf_counter=lambda: float("inf"))):
        sol = solve_knapsack(v, w_, 15, lexicographic=True, time_limit_s=60)
    assert (sol.status, sol.value, sol.bound) == (Status.TIME_LIMIT, 15, 15)
    assert solve_knapsack(v, w_, 15, lexicographic=True, time_limit_s=60).status is Status.OPTIMAL
