"""One place where solvers dispatch on a problem's mode (paper model, planner's fields, integer knapsack)."""
import numpy as np
import pytest

from subsel import SubsetSelectionProblem, get_solver
from subsel.models import ProblemBatch
from subsel.solvers import RawResult, Solver, Status
from subsel.solvers.exact import Exact

PAPER = SubsetSelectionProblem([0.9, 0.5], [0.2, 0.1], alpha=0.7)
PLANNER = SubsetSelectionProblem([0.9, 0.5], [0.2, 0.1], alpha=0.7, capacity=[4, 4], lot_size=[2, 1])
HUGE = 2 ** 60 + 1  # beyond exact float64: the knapsack is decided on its integers
INTEGERS = SubsetSelectionProblem.from_knapsack([HUGE, 3], [HUGE, 2], HUGE)


def test_mode_names_how_a_problem_is_decided():
    assert (PAPER.mode, PLANNER.mode, INTEGERS.mode) == ("paper", "planner", "integers")
    assert INTEGERS.knapsack is not None and PAPER.knapsack is None and PLANNER.knapsack is None
    assert PLANNER.with_changes(alpha=0.5).mode == "planner" and PAPER.with_changes(alpha=0.5).mode == "paper"
    small = SubsetSelectionProblem.from_knapsack([3, 4], [2, 3], 4)
    assert small.mode == "paper" and small.knapsack is not None and small.with_changes(alpha=0.5).knapsack is None


class Recording(Exact):
    """Exact, recording which of its methods the dispatch asked."""

    def __init__(self):
        super().__init__()
        self.asked = []

    def _solve(self, problem):
        self.asked.append("paper")
        return super()._solve(problem)

    def _solve_planner(self, problem):
        self.asked.append("planner")
        return super()._solve_planner(problem)

    def _solve_integers(self, problem, rule):
        self.asked.append("integers")
        assert rule is problem.knapsack
        return super()._solve_integers(problem, rule)


@pytest.mark.parametrize("problem", [PAPER, PLANNER, INTEGERS], ids=["paper", "planner", "integers"])
def test_solve_and_solve_batch_dispatch_on_the_mode(problem):
    s = Recording()
    sol = s.solve(problem)
    assert s.asked == [problem.mode] and sol.is_feasible
    assert np.array_equal(sol.x, get_solver("exact").solve(problem).x)
    if problem.mode != "integers":  # a batch holds floats only
        s.asked.clear()
        s.solve_batch(ProblemBatch.from_problems([problem, problem.with_changes(alpha=0.6)]))
        assert set(s.asked) <= {problem.mode} and s.asked


def test_the_base_class_hands_every_mode_to_solve():
    """A solver that implements only ``_solve`` (a plug-in) is asked for every mode."""

    class Only(Exact):
        def _solve(self, problem):
            self.asked = problem.mode
            return RawResult(None, Status.INFEASIBLE)

    s = Only()
    Solver._solve_planner(s, PLANNER)
    assert s.asked == "planner"
    Solver._solve_integers(s, INTEGERS, INTEGERS.knapsack)
    assert s.asked == "integers"
