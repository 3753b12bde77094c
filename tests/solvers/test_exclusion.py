"""Solver.exclusion_solver: one problem without each of many agents, the same answers as solve.

``exact`` checks the problem once (one unit per agent, no other extension) and must return what
``solve(problem.with_changes(must_not_take=[i]))`` returns, bit for bit: selection, status,
objective, average quality and bound.  Every other problem and every other solver goes through
``solve`` on the changed problem itself.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subsel.solvers._without as without
from subsel import SubsetSelectionProblem, get_solver
from subsel.solvers import Status, UnsupportedExtensionError
from subsel.solvers.exact import Exact
from tests.solvers.test_thresholds import UNIT, _assert_same, _Counting, _large
from tests.strategies import brute_force_rule, must_list_problems, planner_problems, problems


def _changed(problem: SubsetSelectionProblem, i: int) -> SubsetSelectionProblem:
    return problem.with_changes(must_not_take=np.append(problem.must_not_take, i))


def _check_agents(solver, problem: SubsetSelectionProblem) -> None:
    """``exclusion_solver(problem)`` against ``solve`` on the changed problem, every agent that
    is not a must-take agent (the changed problem would contradict itself)."""
    solve_without = solver.exclusion_solver(problem)
    for i in np.setdiff1d(np.arange(problem.n), problem.must_take).tolist():
        _assert_same(solve_without(i), solver.solve(_changed(problem, i)))


@settings(max_examples=300)
@given(UNIT | must_list_problems(n_max=6, cap_max=3))
def test_exact_without_each_agent_is_solve_there_bit_for_bit(problem):
    _check_agents(get_solver("exact"), problem)


@settings(max_examples=40)
@given(UNIT, st.sampled_from([dict(lexicographic=True), dict(jit=False), dict(jit=True),
                              dict(memory_limit_mb=None), dict(time_limit_s=60.0)]))
def test_every_option_of_exact_keeps_the_answers_of_solve(problem, options):
    _check_agents(Exact(**options), problem)


@settings(max_examples=60)
@given(UNIT)
def test_the_optimum_without_each_agent_is_the_brute_force_one(problem):
    solve_without = get_solver("exact").exclusion_solver(problem)
    for i in range(problem.n):
        sol, best = solve_without(i), brute_force_rule(_changed(problem, i))
        if best is None:
            assert sol.status is Status.INFEASIBLE
            continue
        assert sol.status is Status.OPTIMAL and sol.x[i] == 0
        assert problem.evaluate(sol.x).feasible
        assert sol.objective >= best[0] - 1e-9 * max(1.0, abs(best[0]))


@settings(max_examples=30)
@given(planner_problems(n_max=4, cap_max=3))
def test_planner_fields_keep_the_answers_of_solve(problem):
    _check_agents(get_solver("exact"), problem.with_changes(budget=None, demand=None, group=None,
                                                            group_limits=None))


@settings(max_examples=10)
@given(problems(n_max=4, cap_max=2, extensions=True))
def test_other_solvers_solve_each_changed_problem(problem):
    _check_agents(get_solver("highs"), problem)


@settings(max_examples=30)
@given(problems(n_min=2, n_max=8))
def test_one_unit_per_agent_takes_the_shared_path(problem):
    exact = _Counting()
    solve_without = exact.exclusion_solver(problem)
    for i in range(problem.n):
        solve_without(i)
    assert exact.calls == 0


def test_several_units_and_must_lists_go_through_solve():
    p = SubsetSelectionProblem(quality=[0.9, 0.5, 0.8], cost=[0.1, 0.2, 0.3], alpha=0.7, capacity=[2, 3, 1])
    for problem in (p, p.with_changes(capacity=[1, 1, 1], must_take=[2]),
                    p.with_changes(capacity=[1, 1, 1], must_not_take=[1])):
        exact = _Counting()
        exact.exclusion_solver(problem)(0)
        assert exact.calls == 1


def test_an_answer_over_the_bound_is_repaired_by_solve(monkeypatch):
    """A knapsack answer the float sums refuse: the agent is solved again by ``solve``."""
    p = _large(1)
    real = without.solve_knapsack
    monkeypatch.setattr(without, "solve_knapsack",
                        lambda *args, **kw: real(*args, **kw)._replace(take=np.ones(args[0].size, dtype=bool)))
    exact = _Counting()
    chosen = np.flatnonzero(Exact().solve(p).x)[:3]
    for i in chosen:
        _assert_same(exact.exclusion_solver(p)(int(i)), Exact().solve(_changed(p, int(i))))
    assert exact.calls == chosen.size


def test_an_answer_the_exact_rule_refuses_is_repaired_by_solve(monkeypatch):
    """The float surplus accepts, the model's exact rule refuses: ``solve`` answers there."""
    p = _large(2)
    real = without.solve_knapsack
    monkeypatch.setattr(without, "solve_knapsack",
                        lambda *args, **kw: real(*args, **kw)._replace(take=np.ones(args[0].size, dtype=bool)))
    monkeypatch.setattr(SubsetSelectionProblem, "quality_surplus", lambda self, x: 1.0)
    exact = _Counting()
    sol = exact.exclusion_solver(p)(0)
    assert exact.calls == 1
    changed = _changed(p, 0)
    assert changed.evaluate(sol.x).feasible
    _assert_same(sol, Exact().solve(changed))


def test_a_time_limit_keeps_the_answer_of_solve():
    """A deadline that has passed: status time_limit, as ``solve`` gives on the changed problem."""
    p = _large(3)
    exact = Exact(time_limit_s=1e-12)
    sol = exact.exclusion_solver(p)(5)
    ref = exact.solve(_changed(p, 5))
    assert sol.status is ref.status is Status.TIME_LIMIT
    _assert_same(sol, ref)


def test_bad_arguments_are_named():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.2], alpha=0.7)
    for solver in (get_solver("exact"), get_solver("gss"), get_solver("highs")):
        with pytest.raises(TypeError, match="problem must be a SubsetSelectionProblem; got list"):
            solver.exclusion_solver([0.5])
        solve_without = solver.exclusion_solver(p)
        for bad in (2, -1):
            with pytest.raises(ValueError, match=rf"must_not_take\[0\] must be an agent index in \[0, 1\]; got {bad}"):
                solve_without(bad)
        with pytest.raises(TypeError, match=r"must_not_take\[0\] must be an agent index or name"):
            solve_without(1.5)
    with pytest.raises(UnsupportedExtensionError, match="budget"):
        get_solver("gss").exclusion_solver(p.with_changes(budget=0.5))(0)


@pytest.mark.parametrize("name", ["highs", "cbc"])
def test_a_time_limited_cut_solve_never_stands_in_an_excluded_smallest_selection(name, monkeypatch):
    # A backend stopped by its time limit before it knew a selection: the smallest selection stands
    # in for the answer, unless the cuts exclude it (it used to come back and fail the exclusion
    # check: 'returned an excluded selection' ended `solve --alternatives K --time-limit T`).
    from subsel.solvers.base import RawResult

    p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.8], cost=[0.1, 0.1, 0.3], alpha=0.7)
    solver = get_solver(name, time_limit_s=1.0)
    monkeypatch.setattr(solver, "_solve_excluding", lambda *a: RawResult(None, Status.TIME_LIMIT, None))
    nothing = np.zeros((1, p.n), dtype=np.int64)
    sol = solver.solve_excluding(p, nothing)
    assert sol.status is Status.NO_SOLUTION_FOUND and not sol.is_feasible
    sol = solver.solve_excluding(p, np.zeros((0, p.n), dtype=np.int64), used=nothing.astype(bool))
    assert sol.status is Status.NO_SOLUTION_FOUND
    # without a cut on it, the smallest selection still stands in
    sol = solver.solve_excluding(p, np.array([[1, 0, 0]]))
    assert sol.status is Status.TIME_LIMIT and sol.x.tolist() == [0, 0, 0]
