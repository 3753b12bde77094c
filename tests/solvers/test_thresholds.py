"""Solver.threshold_solver: one problem at many thresholds, the same answers as solve at each.

``exact`` shares the work that does not depend on alpha across thresholds (one unit per agent, no
must lists) and must return what ``solve(problem.with_changes(alpha=a))`` returns, bit for bit:
selection, status, objective, average quality and bound.  Every other problem and every other
solver goes through ``solve`` itself.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subsel.solvers._thresholds as thresholds
from subsel import SubsetSelectionProblem, get_solver
from subsel.solvers import Status, UnsupportedExtensionError
from subsel.solvers.exact import Exact
from tests.strategies import (
    mirrored_tolerance_problems,
    must_list_problems,
    planner_problems,
    problems,
    tolerance_hard_problems,
)


def _bits(v: float | None) -> object:
    """A float's exact identity (NaN equal to NaN, -0.0 apart from 0.0)."""
    if v is None:
        return None
    return "nan" if math.isnan(v) else float(v).hex()


def _assert_same(a, b) -> None:
    assert np.array_equal(a.x, b.x) and a.x.dtype == b.x.dtype
    assert a.status is b.status
    assert _bits(a.objective) == _bits(b.objective)
    assert _bits(a.avg_quality) == _bits(b.avg_quality)
    assert _bits(a.bound) == _bits(b.bound)


def _near_alphas(problem: SubsetSelectionProblem, data) -> list[float]:
    """Thresholds at the qualities, an ulp and 1e-9 from them, and anywhere in [0, 1]."""
    q = sorted(set(float(v) for v in problem.quality))
    near = [min(1.0, max(0.0, v + d)) for v in q for d in (0.0, -1e-9, 1e-9)]
    near += [float(np.nextafter(v, t)) for v in q for t in (0.0, 1.0)]
    return data.draw(st.lists(st.sampled_from(near) | st.floats(0.0, 1.0), min_size=1, max_size=10))


def _check_thresholds(solver, problem: SubsetSelectionProblem, data) -> None:
    """``threshold_solver(problem)`` against ``solve`` at thresholds near the qualities."""
    solve_at = solver.threshold_solver(problem)
    for alpha in _near_alphas(problem, data):
        _assert_same(solve_at(alpha), solver.solve(problem.with_changes(alpha=alpha)))


def _Counting(**options) -> Exact:
    """`exact`, counting the thresholds it solves through ``solve`` (an instance attribute: the
    class stays ``Exact``, whose shared path a subclass replacing ``solve`` would not take)."""
    exact = Exact(**options)
    exact.calls = 0
    solve = exact.solve

    def counted(problem):
        exact.calls += 1
        return solve(problem)

    exact.solve = counted
    return exact


UNIT = (problems(n_max=8) | problems(n_max=8, grid=True) | tolerance_hard_problems(n_max=6)
        | mirrored_tolerance_problems(n_max=6))


@settings(max_examples=300)
@given(UNIT | must_list_problems(n_max=6, cap_max=3), st.data())
def test_exact_at_each_threshold_is_solve_there_bit_for_bit(problem, data):
    _check_thresholds(get_solver("exact"), problem, data)


@settings(max_examples=40)
@given(UNIT, st.data(), st.sampled_from([dict(lexicographic=True), dict(jit=False), dict(memory_limit_mb=None),
                                         dict(time_limit_s=60.0)]))
def test_every_option_of_exact_keeps_the_answers_of_solve(problem, data, options):
    _check_thresholds(Exact(**options), problem, data)


@settings(max_examples=40)
@given(planner_problems(n_max=4, cap_max=3), st.data())
def test_planner_fields_keep_the_answers_of_solve(problem, data):
    problem = problem.with_changes(budget=None, demand=None, group=None, group_limits=None)
    _check_thresholds(get_solver("exact"), problem, data)


@settings(max_examples=15)
@given(problems(n_max=4, cap_max=2, extensions=True), st.data())
def test_other_solvers_solve_each_threshold(problem, data):
    _check_thresholds(get_solver("highs"), problem, data)


@settings(max_examples=30)
@given(problems(n_min=2, n_max=8), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6))
def test_one_unit_per_agent_takes_the_shared_path(problem, alphas):
    exact = _Counting()
    solve_at = exact.threshold_solver(problem)
    for alpha in alphas:
        sol = solve_at(alpha)
        assert sol.status is Status.OPTIMAL
        assert problem.with_changes(alpha=alpha).evaluate(sol.x).feasible
    assert exact.calls == 0


def test_several_units_go_through_solve():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.2], alpha=0.7, capacity=[2, 3])
    exact = _Counting()
    exact.threshold_solver(p)(0.6)
    assert exact.calls == 1


def _large(seed: int) -> SubsetSelectionProblem:
    return SubsetSelectionProblem.random(300, 0.7, rng=np.random.default_rng(seed))


def test_an_answer_over_the_bound_is_repaired_by_solve(monkeypatch):
    """A knapsack answer the float sums refuse: the threshold is solved again by ``solve``."""
    p = _large(1)
    real = thresholds.solve_knapsack

    def everything(values, weights, capacity, deadline, memory, **kwargs):
        res = real(values, weights, capacity, deadline, memory, **kwargs)
        return res._replace(take=np.ones_like(res.take))

    monkeypatch.setattr(thresholds, "solve_knapsack", everything)
    exact = _Counting()
    for alpha in (0.8, 0.85, 0.9):
        sol = exact.threshold_solver(p)(alpha)
        _assert_same(sol, Exact().solve(p.with_changes(alpha=alpha)))
    assert exact.calls == 3


def test_an_answer_the_exact_rule_refuses_is_repaired_by_solve(monkeypatch):
    """The float surplus accepts, the model's exact rule refuses: ``solve`` answers there."""
    p = _large(2)
    real = thresholds.solve_knapsack
    monkeypatch.setattr(thresholds, "solve_knapsack",
                        lambda *args, **kw: real(*args, **kw)._replace(take=np.ones(args[0].size, dtype=bool)))
    monkeypatch.setattr(SubsetSelectionProblem, "quality_surplus", lambda self, x: 1.0)
    exact = _Counting()
    sol = exact.threshold_solver(p)(0.8)
    assert exact.calls == 1
    at = p.with_changes(alpha=0.8)
    assert at.evaluate(sol.x).feasible
    _assert_same(sol, Exact().solve(at))


def test_a_time_limit_keeps_the_answer_of_solve():
    """A deadline that has passed: the break solution, status time_limit, as ``solve`` gives."""
    p = _large(3)
    exact = Exact(time_limit_s=1e-12)
    sol = exact.threshold_solver(p)(0.8)
    ref = exact.solve(p.with_changes(alpha=0.8))
    assert sol.status is ref.status is Status.TIME_LIMIT
    _assert_same(sol, ref)


def test_bad_arguments_are_named():
    exact = get_solver("exact")
    with pytest.raises(TypeError, match="problem must be a SubsetSelectionProblem; got list"):
        exact.threshold_solver([0.5])
    with pytest.raises(TypeError, match="problem must be a SubsetSelectionProblem; got dict"):
        get_solver("gss").threshold_solver({})
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.2], alpha=0.7)
    for solver in (exact, get_solver("gss")):
        with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]; got 1.5"):
            solver.threshold_solver(p)(1.5)
    budget = p.with_changes(budget=0.5)
    with pytest.raises(UnsupportedExtensionError, match="budget"):
        get_solver("gss").threshold_solver(budget)(0.7)


@settings(max_examples=20)
@given(problems(n_min=2, n_max=8), st.lists(st.floats(0.0, 1.0), min_size=8, max_size=8), st.data())
def test_objective_qualities_keep_the_answers_of_solve(problem, objective_quality, data):
    problem = problem.with_changes(objective_quality=objective_quality[:problem.n])
    _check_thresholds(get_solver("exact"), problem, data)


@settings(max_examples=40)
@given(st.integers(0, 2 ** 32 - 1), st.integers(20, 400), st.booleans(), st.data())
def test_larger_instances_keep_the_answers_of_solve(seed, n, grid, data):
    """Knapsacks beyond enumeration (the core dynamic program), ties when the data are on a grid."""
    rng = np.random.default_rng(seed)
    problem = SubsetSelectionProblem.random(n, 0.7, rng=rng)
    if grid:
        problem = problem.with_changes(quality=np.round(problem.quality * 20) / 20,
                                       cost=np.round(problem.cost * 20) / 20)
    _check_thresholds(get_solver("exact"), problem, data)


def test_a_subclass_that_replaces_solve_is_asked_at_every_threshold():
    class Mine(Exact):
        def __init__(self):
            super().__init__()
            self.asked = []

        def _solve(self, problem):
            self.asked.append(problem.alpha)
            return super()._solve(problem)

    mine = Mine()
    p = _large(4)
    solve_at = mine.threshold_solver(p)
    for alpha in (0.6, 0.8):
        _assert_same(solve_at(alpha), Exact().solve(p.with_changes(alpha=alpha)))
    assert mine.asked == [0.6, 0.8]
