"""Every reported bound is a true upper bound: never below the objective nor the exact optimum.

Bounds are computed in floating point (an LP value, a MILP's dual bound, a sum of utilities); they
are rounded up by the most their rounding can lose (Higham, *Accuracy and Stability of Numerical
Algorithms*, 2002, Section 4.2), and :meth:`Solver.solve` keeps them at least the objective.
"""
import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem
from subsel.models import ProblemBatch
from subsel.models._rules import rounded_up
from subsel.solvers import Status, available_solvers, get_solver
from subsel.solvers.base import bound_at_least
from tests.strategies import problem_batches, problems_with_must_lists

EXACT = [name for name in ("exact", "dpss", "cbc", "highs", "ortools-scip", "ortools-cpsat")
         if name in available_solvers()]

#: The instance of the first failure: every agent in S1, the float sum 0.65 + 3 * 0.3 is
#: 1.5499999999999998 while evaluate's dot product gives 1.55.
ALL_S1 = SubsetSelectionProblem(quality=[0, 0, 0.65, 0.3, 0], cost=[0] * 5, capacity=[1, 1, 1, 3, 1], alpha=0.0)


def exact_optimum(problem):
    """The largest exact (rational) utility of a selection that passes ``evaluate``; None if none."""
    r = [Fraction(float(v)) for v in problem.utility]
    best = None
    for combo in itertools.product(*(range(int(k) + 1) for k in problem.capacity)):
        if problem.evaluate(np.array(combo)).feasible:
            value = sum((ri * xi for ri, xi in zip(r, combo)), Fraction(0))
            best = value if best is None or value > best else best
    return best


def check_true_bound(problem, sol):
    if sol.bound is None:
        return
    assert sol.bound >= sol.objective
    if sol.status is Status.OPTIMAL:
        r = [Fraction(float(v)) for v in problem.utility]
        assert Fraction(sol.bound) >= sum((ri * int(xi) for ri, xi in zip(r, sol.x)), Fraction(0))


@pytest.mark.parametrize("name", EXACT)
def test_bound_of_all_s1_instance_is_not_below_objective(name):
    sol = get_solver(name).solve(ALL_S1)
    assert sol.status is Status.OPTIMAL and sol.objective == pytest.approx(1.55)
    check_true_bound(ALL_S1, sol)


@pytest.mark.parametrize("jit", [False, True])
@settings(max_examples=60)
@given(problems_with_must_lists(n_max=5, cap_max=3, grid=True))
@example(problem=ALL_S1)
def test_exact_bound_is_a_true_upper_bound(jit, problem):
    """Grid data (sums that round) with ties: the bound is at least the exact optimum."""
    sol = get_solver("exact", jit=jit).solve(problem)
    best = exact_optimum(problem)
    if best is None:
        assert sol.status is Status.INFEASIBLE
    else:
        assert sol.bound is not None and Fraction(sol.bound) >= best
        assert sol.bound >= sol.objective


@settings(max_examples=25)
@given(problems_with_must_lists(n_max=4, cap_max=3, grid=True))
@example(problem=ALL_S1)
def test_every_exact_backend_bound_is_at_least_its_objective(problem):
    for name in EXACT:
        check_true_bound(problem, get_solver(name).solve(problem))


def test_rounded_up_exceeds_the_exact_sum_of_rounded_terms():
    terms = [0.1] * 10
    value = float(np.sum(terms))
    exact = sum((Fraction(t) for t in terms), Fraction(0))
    assert Fraction(rounded_up(value, float(np.sum(np.abs(terms))), len(terms))) >= exact
    assert rounded_up(float("inf"), 1.0, 3) == float("inf")


@settings(max_examples=50)
@given(st.lists(st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.1, 0.2, 0.3, -0.1, 1e-300, 5e-324]),
                         min_size=1, max_size=6), min_size=1, max_size=5))
def test_rounded_up_of_a_batch_is_the_one_problem_formula_row_by_row(rows):
    """The vectorised form (a batch's bounds) gives each row exactly the scalar result, and each is
    at least the row's exact sum."""
    n = max(map(len, rows))
    terms = np.array([row + [0.0] * (n - len(row)) for row in rows])
    value = terms.sum(axis=1)
    magnitude = np.abs(terms).sum(axis=1)
    up = rounded_up(value, magnitude, n)
    assert isinstance(up, np.ndarray) and up.shape == value.shape
    for j, row in enumerate(terms.tolist()):
        one = rounded_up(float(value[j]), float(magnitude[j]), n)
        assert isinstance(one, float) and up[j] == one
        assert Fraction(one) >= sum((Fraction(t) for t in row), Fraction(0))


def test_bound_at_least_raises_a_low_bound_to_the_exact_utility_rounded_up():
    x = np.array([1, 3])
    r = np.array([0.65, 0.3])
    exact = Fraction(0.65) + 3 * Fraction(0.3)
    raised = bound_at_least(1.5499999999999998, 1.55, x, r)
    assert raised >= 1.55 and Fraction(raised) >= exact
    assert bound_at_least(None, 1.55, x, r) is None
    assert bound_at_least(2.0, 1.55, x, r) == 2.0


@pytest.mark.parametrize("name", ["dpss", "exact"])
@settings(max_examples=30)
@given(problem_batches(n_max=5, m_max=4, cap_max=3, grid=True))
@example(batch=ProblemBatch.from_problems([ALL_S1, ALL_S1]))
def test_batch_bounds_are_true_upper_bounds(name, batch):
    answers = get_solver(name).solve_batch(batch)
    for j, sol in enumerate(answers):
        assert sol.bound == answers.bound[j]
        check_true_bound(batch.row(j), sol)
