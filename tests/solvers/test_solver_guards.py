"""Guards of the solver layer: DPSS refuses hopeless enumerations, a time limit without a selection
is not feasible, an impossible demand is infeasible for every backend."""
import numpy as np
import pytest

from subsel.models import SubsetSelectionProblem
from subsel.solvers import get_solver
from subsel.solvers.base import MAX_THREADS, RawResult, Solver, Status
from subsel.solvers.dpss import DPSS, MAX_ENUMERATION


def wide_problem(n_free=40):
    """Every agent in S2 ∪ S3 (S2: q >= alpha at a loss, S3: q < alpha at a profit): 2^n_free."""
    even = np.arange(n_free) % 2 == 0
    q = np.where(even, 0.9, 0.3)
    c = np.where(even, 0.95, 0.01)
    return SubsetSelectionProblem(quality=q, cost=c, alpha=0.6)


def test_dpss_refuses_more_than_2_to_the_32_without_a_time_limit(monkeypatch):
    def no_enumeration(*args):
        raise RuntimeError("the enumeration started")

    monkeypatch.setattr("subsel.solvers.dpss.rowdot", no_enumeration)  # the first step of the work
    p = wide_problem(40)
    assert DPSS.enumeration_size(p) > MAX_ENUMERATION
    with pytest.raises(ValueError, match=r"about 2\^40\.0 selections over 40 free agents.*'exact'"):
        get_solver("dpss").solve(p)


def test_dpss_refusal_names_its_row_and_size():
    from subsel.models import ProblemBatch
    from subsel.solvers import EnumerationTooLargeError

    wide = wide_problem(40)
    batch = ProblemBatch(np.stack([np.full(40, 0.3), wide.quality]),  # row 0: nothing free (S4)
                         np.stack([np.full(40, 2.0), wide.cost]), 0.6)
    with pytest.raises(EnumerationTooLargeError, match="^batch row 1: ") as info:
        get_solver("dpss").solve_batch(batch)
    assert isinstance(info.value, ValueError)
    assert (info.value.row, info.value.free_agents, info.value.log2_size) == (1, 40, 40.0)


def test_dpss_runs_a_big_enumeration_with_a_time_limit():
    sol = get_solver("dpss", time_limit_s=0.01).solve(wide_problem(40))
    assert sol.status in (Status.TIME_LIMIT, Status.OPTIMAL)
    assert sol.is_feasible


def test_dpss_still_solves_at_the_limit():
    p = wide_problem(12)
    assert get_solver("dpss").solve(p).objective == pytest.approx(get_solver("cbc").solve(p).objective)


class _NothingInTime(Solver):
    name = "nothing-in-time"
    exact = False
    supports = frozenset({"must_take"})
    complexity = "-"

    def _solve(self, problem):
        return RawResult(None, Status.TIME_LIMIT)


def test_time_limit_before_any_selection_carries_the_empty_selection():
    # The backend knew nothing when the limit struck; taking nothing is feasible and at hand.
    sol = _NothingInTime().solve(wide_problem(3))
    assert sol.status is Status.TIME_LIMIT and sol.is_feasible
    assert sol.x.tolist() == [0, 0, 0] and sol.objective == 0.0


def test_time_limit_without_any_feasible_selection_is_no_solution_found():
    # Must-take agent 1 (q = 0.3 < alpha) makes the smallest selection infeasible.
    sol = _NothingInTime().solve(wide_problem(3).with_changes(must_take=[1]))
    assert sol.status is Status.NO_SOLUTION_FOUND and not sol.is_feasible
    assert sol.to_dict()["objective"] is None and str(sol.status) == "no_solution_found"


def test_is_feasible_follows_the_status_not_the_objective():
    from subsel.solvers import Solution

    x = np.zeros(2, dtype=np.int64)
    for status in Status:
        sol = Solution(x, float("nan"), float("nan"), status, 0.0, "t")
        assert sol.is_feasible is (status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT))


@pytest.mark.parametrize("name", ["cbc", "highs", "ortools-scip", "ortools-cpsat"])
def test_impossible_demand_is_infeasible_exactly(name):
    p = wide_problem(5).with_changes(demand=10 ** 23 + 1)
    sol = get_solver(name).solve(p)
    assert sol.status is Status.INFEASIBLE and not sol.is_feasible


@pytest.mark.parametrize("threads, error", [(0, ValueError), (-1, ValueError), (65, ValueError),
                                            (100000, ValueError), (True, TypeError), (2.0, TypeError)])
def test_threads_outside_the_supported_range_refused(threads, error):
    with pytest.raises(error, match=rf"^threads must be an integer in \[1, {MAX_THREADS}\]; got {threads!r}$"):
        get_solver("gss", threads=threads)
