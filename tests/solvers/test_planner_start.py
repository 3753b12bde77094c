"""The starting plan of a time-limited MILP or CP-SAT solve on a planner's problem (the planner
search's Lagrangian heuristic): a plan the rule accepts and a bound above the optimum, against brute
force; and the backends that found no plan of their own before the limit answer it."""
import math
import time

import pytest
from hypothesis import assume, given, settings

from subsel.solvers import Status, available_solvers, get_solver
from subsel.solvers._planner_start import planner_start
from tests.solvers.test_time_limits_at_scale import _coop
from tests.strategies import brute_force, label_fields, planner_problems


def _coupled(problem) -> bool:
    return problem.budget is not None or problem.demand is not None or bool(problem.group_limits)


@settings(max_examples=150)
@given(problem=planner_problems(n_max=4, cap_max=4))
def test_the_starting_plan_passes_the_rule_and_its_bound_lies_above_the_optimum(problem):
    assume(_coupled(problem))
    label_fields(problem)
    best = brute_force(problem)
    x, bound = planner_start(problem, None)
    assert bound is not None and math.isfinite(bound)
    if best is None:
        assert x is None  # no plan where none exists
    else:
        tol = 1e-9 * max(1.0, abs(best[0]))
        assert bound >= best[0] - tol, (bound, best)
        if x is not None:
            ev = problem.evaluate(x)
            assert ev.feasible and ev.utility <= best[0] + tol and bound >= ev.utility


def test_the_starting_plan_of_a_co_op_is_near_its_bound():
    p, _ = _coop(2000)
    x, bound = planner_start(p, None)
    assert x is not None and p.evaluate(x).feasible
    assert p.evaluate(x).utility >= bound * (1 - 1e-3)  # (the Lagrangian bound is proven: no plan passes it)


def test_no_starting_plan_is_said_so():
    # a demand above every capacity: nothing to start from
    p, _ = _coop(300)
    assert planner_start(p.with_changes(demand=int(p.capacity.sum()) + 1), time.perf_counter() + 5.0)[0] is None
    # a limit too short for the start and the backend: no plan, and the answer says so
    p, _ = _coop(2000)
    assert planner_start(p, time.perf_counter() + 1e-4)[0] is None
    for name in ("highs", "ortools-scip", "ortools-cpsat"):
        if name in available_solvers():
            sol = get_solver(name, time_limit_s=1e-4).solve(p)
            assert not sol.is_feasible and sol.status is Status.NO_SOLUTION_FOUND, (name, sol.status)


@pytest.mark.parametrize("name", ["ortools-scip", "ortools-cpsat", "highs"])
def test_a_backend_stopped_before_its_own_plan_answers_the_starting_plan(name):
    # 2,000 suppliers of a co-op and 2 s: SCIP and CP-SAT found no plan of their own (status
    # no_solution_found); now the starting plan, with the Lagrangian bound
    if name not in available_solvers():
        pytest.skip(f"{name} is not installed")
    p, _ = _coop(2000)
    sol = get_solver(name, time_limit_s=2.0).solve(p)
    assert sol.x is not None and p.evaluate(sol.x).feasible, sol.status
    assert sol.status in (Status.TIME_LIMIT, Status.OPTIMAL, Status.FEASIBLE)
    start, bound = planner_start(p, None)
    assert sol.objective >= p.evaluate(start).utility * (1 - 1e-3)
    assert sol.bound is not None and sol.bound >= sol.objective - 1e-9 * abs(sol.objective)
