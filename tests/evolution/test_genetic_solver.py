"""EMSCO's engine as the 'emsco' Solver: feasible, optimal with a generous budget, seeded."""
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings

from subsel import SubsetSelectionProblem
from subsel.evolution.genetic_solver import EMSCOSolver, SelectionVectorProblem
from subsel.solvers import Status, get_solver, solver_info
from tests.strategies import brute_force, must_list_problems, problems

SMALL = dict(population_size=12, max_iter=8, patience=None)
GENEROUS = dict(population_size=30, max_iter=100, patience=25)


def test_importing_solvers_does_not_import_evolution():
    code = ("import sys, subsel, subsel.solvers; from subsel.solvers import solver_info; "
            "solver_info.__name__; "
            "assert not any(m.startswith('subsel.evolution') for m in sys.modules), sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_registered_as_a_heuristic():
    solver = get_solver("emsco", seed=3)
    assert isinstance(solver, EMSCOSolver) and solver.seed == 3
    row = next(r for r in solver_info() if r.name == "emsco")
    assert row.available and not row.exact


@settings(max_examples=60)
@given(must_list_problems())
def test_answer_is_feasible_and_never_above_the_optimum(problem):
    best = brute_force(problem)
    sol = get_solver("emsco", seed=0, **SMALL).solve(problem)  # Solver.solve checks evaluate too
    if best is None:
        assert sol.status is Status.INFEASIBLE
    else:
        assert sol.status is Status.FEASIBLE
        assert problem.evaluate(sol.x).feasible
        assert sol.objective <= best[0] + 1e-9


# A genetic search is a heuristic: "reaches the optimum" is checked on a fixed set of examples
# (derandomized), not on fresh random ones in every run, where a rare miss would fail CI at random.
@settings(max_examples=25, derandomize=True, database=None)
@given(problems(n_max=8, cap_max=2))
def test_reaches_the_optimum_with_a_generous_budget(problem):
    best = brute_force(problem)
    sol = get_solver("emsco", seed=1, **GENEROUS).solve(problem)
    assert sol.objective == pytest.approx(best[0], abs=1e-9)


def test_reaches_dpss_on_random_instances_of_the_paper():
    for i in range(3):
        p = SubsetSelectionProblem.random(16, 0.7, rng=i)
        assert get_solver("emsco", seed=i, **GENEROUS).solve(p).objective == \
            pytest.approx(get_solver("dpss").solve(p).objective, abs=1e-9)


def test_spec_worst_case_of_gss_is_solved():
    eps, R = 1e-4, 1.0
    q, r = [1.00, 0.98, 0.97], [eps, R / 4, 0.9 * R]
    p = SubsetSelectionProblem(quality=q, cost=[R * a - b for a, b in zip(q, r)], alpha=0.99, R=R)
    assert get_solver("emsco", seed=0, **SMALL).solve(p).objective == pytest.approx(eps + R / 4)


def test_same_seed_same_answer_and_generator_seed_accepted():
    p = SubsetSelectionProblem.random(60, 0.7, rng=5)
    a = get_solver("emsco", seed=11, **SMALL).solve(p)
    b = get_solver("emsco", seed=11, **SMALL).solve(p)
    assert np.array_equal(a.x, b.x)
    c = get_solver("emsco", seed=np.random.default_rng(11), **SMALL).solve(p)
    assert problem_ok(p, c)


def problem_ok(p, sol):
    return sol.is_feasible and p.evaluate(sol.x).feasible


def test_time_limit_stops_the_search_with_a_feasible_answer():
    p = SubsetSelectionProblem.random(3000, 0.7, rng=2)
    solver = get_solver("emsco", seed=0, time_limit_s=0.01, population_size=20, max_iter=10**6,
                        patience=None)
    sol = solver.solve(p)
    assert sol.status is Status.TIME_LIMIT and problem_ok(p, sol)
    assert solver.generations_run < 10**6


def test_must_take_making_the_instance_infeasible_is_reported():
    p = SubsetSelectionProblem(quality=[0.1, 0.2], cost=[0.0, 0.0], alpha=0.9, must_take=[0])
    assert get_solver("emsco", **SMALL).solve(p).status is Status.INFEASIBLE


def test_repair_restores_feasibility_and_fixes_s1_s4():
    p = SubsetSelectionProblem.random(40, 0.8, rng=9)
    p = p.with_changes(capacity=np.random.default_rng(1).integers(1, 4, size=40))
    evo = SelectionVectorProblem(p)
    rng = np.random.default_rng(0)
    S1, _, _, S4 = p.partition()
    for _ in range(50):
        x = rng.integers(0, p.upper_bounds() + 1)
        y = evo.repair(x)
        assert p.evaluate(y).feasible
        assert np.all(y[S1] == p.upper_bounds()[S1]) and np.all(y[S4] == 0)


def test_feasible_rows_dominate_infeasible_rows_after_normalize():
    p = SubsetSelectionProblem.random(5, 0.7, rng=0)
    evo = SelectionVectorProblem(p)
    raw = np.array([[0.1, 1.0], [-5.0, 1.0], [9.0, 0.5], [3.0, 0.2]])  # two feasible, two not
    g = evo.normalize(raw)
    assert np.all(g[:2, 0][:, None] > g[2:, 0][None, :]) and np.all(g[:2, 1] > g[2:, 1].max())
    assert np.all((g >= 0) & (g <= 1))


@pytest.mark.parametrize("kwargs, message", [
    ({"patience": 0}, "patience must be an integer >= 1; got 0"),
    ({"mutation_rate": 1.5}, r"mutation_rate must be a number in \[0, 1\]; got 1.5"),
    ({"population_size": 1}, "population_size must be an integer >= 2; got 1"),
    ({"time_limit_s": -1}, r"time_limit_s must be a number > 0 \(seconds\); got -1"),
])
def test_bad_options_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        get_solver("emsco", **kwargs)


@pytest.mark.parametrize("seed, error, message", [
    ("abc", TypeError, r"seed must be a non-negative integer, a numpy\.random\.Generator or None; "
                       r"got str 'abc'"),
    (1.5, TypeError, r"seed must be .*; got float 1\.5"),
    (True, TypeError, r"seed must be .*; got bool True"),
    (-1, ValueError, r"seed must be a non-negative integer; got -1"),
])
def test_bad_seed_raises_at_construction(seed, error, message):
    with pytest.raises(error, match=message):
        get_solver("emsco", seed=seed)


@pytest.mark.parametrize("q", [5e-324, 1e-320, 2.2250738585072014e-308])
@pytest.mark.parametrize("alpha", [0.0, 5e-324])
def test_a_subnormal_quality_gives_no_warning(q, alpha):
    # quality - alpha of 5e-324 made the repair order's ratio overflow ("overflow encountered in divide")
    p = SubsetSelectionProblem(quality=[q, 0.9, 0.6], cost=[0.1, 0.2, 0.05], capacity=[3, 1, 2], alpha=alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = EMSCOSolver(population_size=8, max_iter=4, seed=0).solve(p)
    assert p.evaluate(sol.x).feasible and sol.objective <= brute_force(p)[0] + 1e-12
