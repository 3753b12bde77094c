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
