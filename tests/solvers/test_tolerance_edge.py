"""Agents a hair below alpha: every MILP backend finds exact's optimum, and repair drops only the
units the feasibility rule needs dropped.

One agent ``0.6999999999, 0.1, 10`` at alpha 0.7: nine units keep the surplus above -1e-9.  CBC's
model file holds 8 significant digits, so CBC took all ten; repair then aimed half a tolerance inside
the rule and kept 4 units (2.4, ``feasible``) instead of 9 (5.4, ``optimal``).
"""
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem
from subsel.solvers import Status, available_solvers, get_solver
from subsel.solvers._milp import repair
from tests.strategies import brute_force

MILP = [n for n in ("cbc", "highs", "ortools-scip") if n in available_solvers()]


def most_units(problem):
    """The largest feasible number of units of the single agent (by the rule itself)."""
    k = int(problem.capacity[0])
    return max(u for u in range(k + 1) if problem.evaluate(np.array([u])).feasible)


@pytest.mark.parametrize("name", MILP)
@pytest.mark.parametrize("q, k", [(0.6999999999, 10), (0.69999999995, 30), (0.69999999999, 150),
                                  (0.6999999998, 7)])
def test_single_agent_near_alpha_is_solved_optimally(name, q, k):
    problem = SubsetSelectionProblem(quality=[q], cost=[0.1], capacity=[k], alpha=0.7)
    sol = get_solver(name).solve(problem)
    best = get_solver("exact").solve(problem)
    assert sol.status is Status.OPTIMAL
    assert sol.x.tolist() == best.x.tolist() == [most_units(problem)]


@settings(max_examples=60)
@given(d=st.floats(1e-12, 1e-9), k=st.integers(1, 400))
@example(d=1e-10, k=10)
def test_repair_drops_only_what_the_rule_needs(d, k):
    problem = SubsetSelectionProblem(quality=[0.7 - d], cost=[0.1], capacity=[k], alpha=0.7)
    fixed = repair(problem, np.array([k]))
    assert fixed is not None and fixed.tolist() == [most_units(problem)]


DEMAND_BACKENDS = [n for n in ("cbc", "highs", "ortools-scip", "ortools-cpsat") if n in available_solvers()]
_PAIR = dict(quality=[0.9, 0.6], cost=[0.1, 0.1], demand=2)


@pytest.mark.parametrize("name", DEMAND_BACKENDS)
@pytest.mark.parametrize("alpha", [float(np.nextafter(0.75, 1.0)), 0.75 + 1e-12, 0.75 + 1e-10, 0.75 + 5e-10,
                                   0.75 + 9e-10, 0.75 + 1e-9, 0.75 + 2e-9])
def test_demand_a_hair_past_the_rule_is_infeasible_not_an_error(name, alpha):
    # demand 2 forces both agents; their average quality 0.75 passes the rule up to 0.75 + 5e-10
    problem = SubsetSelectionProblem(alpha=alpha, **_PAIR)
    ref = brute_force(problem)
    sol = get_solver(name).solve(problem)
    if ref is None:
        assert sol.status is Status.INFEASIBLE
    else:
        assert sol.status is Status.OPTIMAL and sol.objective == pytest.approx(ref[0], abs=1e-12)


@pytest.mark.parametrize("name", DEMAND_BACKENDS)
@settings(max_examples=15, deadline=None)
@given(q=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=4), hair=st.integers(-3, 3),
       ulps=st.integers(-3, 3))
# the rounded margins fl(q_i - alpha) sum below the rule's bound where the exact ones do not
@example(q=[0.6905150257242739, 0.1, 0.9292196322534758, 0.35800633241703733], hair=2, ulps=0)
# HiGHS's presolve ended this one with "Solve error"
@example(q=[0.140848267119722, 0.075, 0.8239610539151816, 0.5960301276403764], hair=2, ulps=3)
# CP-SAT's rounded margins accepted both units at a surplus of -1e-9 that the exact rule refuses
@example(q=[0.5, 1e-06], hair=2, ulps=0)
def test_forced_selections_at_the_rules_bound_match_brute_force(name, q, hair, ulps):
    # demand n forces every agent; alpha sits at their average quality moved by hairs and ulps
    alpha = float(np.mean(q)) + hair * 5e-10 / len(q)
    for _ in range(abs(ulps)):
        alpha = float(np.nextafter(alpha, 1.0 if ulps > 0 else 0.0))
    alpha = min(1.0, max(0.0, alpha))
    problem = SubsetSelectionProblem(quality=q, cost=[0.1] * len(q), alpha=alpha, demand=len(q))
    ref = brute_force(problem)
    sol = get_solver(name).solve(problem)
    if ref is None:
        assert sol.status is Status.INFEASIBLE
    else:  # (ortools-cpsat leaves some answers on qualities near 1e-22 unproven: feasible)
        assert sol.status in (Status.OPTIMAL, Status.FEASIBLE)
        assert sol.objective == pytest.approx(ref[0], abs=1e-9)


@pytest.mark.parametrize("name", [*MILP, *(["ortools-cpsat"] if "ortools-cpsat" in available_solvers() else [])])
@pytest.mark.parametrize("upper", [-2e-9, -1e-9 - 1e-18, -1e-9, -5e-10, 0.0])
def test_linear_row_whose_side_cancels_the_tolerance_matches_brute_force(name, upper):
    # an upper side a hair from -FEASIBILITY_TOL makes side + tolerance about 0: the scale must come
    # from the side's terms, not from their near-zero sum (CP-SAT once asked for 2**540)
    from subsel.models import LinearConstraint

    p = SubsetSelectionProblem(quality=[0.0, 0.0], cost=[0.0, 0.0], alpha=0.0, capacity=[1, 1], R=1.0,
                               constraints=[LinearConstraint(np.array([0.0, 5.0944781e-146]), upper=upper,
                                                             name="c0")])
    best = brute_force(p)
    sol = get_solver(name).solve(p)
    if best is None:
        assert sol.status == Status.INFEASIBLE
    else:
        assert sol.status in (Status.OPTIMAL, Status.FEASIBLE)
        assert p.evaluate(sol.x).feasible
        assert sol.objective == pytest.approx(best[0], abs=1e-12)
