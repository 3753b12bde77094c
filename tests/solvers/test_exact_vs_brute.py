"""DPSS equals brute force; GSS is feasible and never above the optimum (Deva et al., AAMAS 2021,
Algorithms 1 and 3)."""
import pytest
from hypothesis import given, settings

from subsel.solvers import Status, get_solver
from tests.strategies import brute_force, problems


@settings(max_examples=150)
@given(problems(n_max=7, cap_max=3))
def test_dpss_equals_brute_force(problem):
    best = brute_force(problem)
    sol = get_solver("dpss").solve(problem)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(best[0], abs=1e-9)
    assert problem.evaluate(sol.x).feasible


@settings(max_examples=150)
@given(problems(n_max=7, cap_max=3, grid=True))
def test_gss_feasible_and_below_optimum(problem):
    best = brute_force(problem)
    sol = get_solver("gss").solve(problem)
    assert sol.status is Status.FEASIBLE
    assert problem.evaluate(sol.x).feasible
    assert sol.objective <= best[0] + 1e-9


def test_gss_worst_case_of_spec():
    """GSS's worst case: alpha=0.99, q=(1, .98, .97), r=(eps, R/4, .9R): GSS earns eps, the optimum eps + R/4."""
    from subsel import SubsetSelectionProblem

    eps, R = 1e-4, 1.0
    q = [1.00, 0.98, 0.97]
    r = [eps, R / 4, 0.9 * R]
    p = SubsetSelectionProblem(quality=q, cost=[R * qi - ri for qi, ri in zip(q, r)], alpha=0.99, R=R)
    greedy = get_solver("gss").solve(p)
    exact = get_solver("dpss").solve(p)
    assert greedy.x.tolist() == [1, 0, 0]
    assert exact.objective == pytest.approx(eps + R / 4)
    assert greedy.objective / exact.objective < 0.01
