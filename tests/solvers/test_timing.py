"""``Solution.backend_time_s`` / ``overhead_time_s``: the backend's own time apart from subsel's work.

No test here asserts a speed: the clock is replaced where a test needs exact times, and otherwise
only the relations between the fields (non-negative, backend <= wall, backend + overhead = wall)
are checked.
"""
import json
import time

import numpy as np
import pytest

from subsel.models import ProblemBatch, SubsetSelectionProblem
from subsel.solvers import Solution, Status, available_solvers, get_solver
from subsel.solvers._milp import BackendClock, MILPSolver
from subsel.solvers.base import RawResult

#: Dyadic data: every backend (CP-SAT's integer scaling included) is exact here, and the problem
#: (no budget, no demand) is in the scope of ``exact``, so the MILP backends cross-check with it.
DYADIC = SubsetSelectionProblem(quality=[0.75, 0.5, 0.25, 1.0], cost=[0.25, 0.5, 0.125, 0.5], alpha=0.5,
                                capacity=[2, 1, 3, 1])
MILP = [n for n in ("cbc", "highs", "ortools-scip", "ortools-cpsat") if n in available_solvers()]


class FakeClock:
    """A ``time.perf_counter`` that moves only when told (``offset``), on top of the real clock
    when ``real`` is True."""

    def __init__(self, real: bool = False):
        self.offset = 100.0
        self.real = real

    def __call__(self) -> float:
        return self.offset + (_PERF_COUNTER() if self.real else 0.0)


_PERF_COUNTER = time.perf_counter


def check_fields(sol: Solution) -> None:
    assert 0.0 <= sol.backend_time_s <= sol.wall_time_s
    assert sol.overhead_time_s >= 0.0
    assert sol.backend_time_s + sol.overhead_time_s == pytest.approx(sol.wall_time_s, abs=1e-12)


@pytest.mark.parametrize("name", available_solvers())
def test_every_backend_splits_its_wall_time(name):
    sol = get_solver(name).solve(DYADIC)
    assert sol.is_feasible
    check_fields(sol)
    d = json.loads(json.dumps(sol.to_dict(), allow_nan=False))
    assert {"wall_time_s", "backend_time_s", "overhead_time_s"} <= set(d)
    assert d["backend_time_s"] == sol.backend_time_s and d["overhead_time_s"] == sol.overhead_time_s


def test_infeasible_demand_decided_before_the_backend_has_no_backend_time():
    problem = SubsetSelectionProblem(quality=[0.9, 0.8], cost=[0.1, 0.1], alpha=0.5, demand=3)
    name = next(n for n in available_solvers() if "demand" in type(get_solver(n)).supports)
    sol = get_solver(name).solve(problem)
    assert sol.status is Status.INFEASIBLE
    assert sol.backend_time_s == 0.0 and sol.overhead_time_s == sol.wall_time_s


def test_a_solution_built_by_hand_has_no_overhead_and_clamps_its_backend_time():
    x = np.zeros(2, dtype=np.int64)
    sol = Solution(x, 0.0, float("nan"), Status.OPTIMAL, 0.5, "gss")
    assert sol.backend_time_s == 0.5 and sol.overhead_time_s == 0.0
    assert Solution(x, 0.0, 0.0, Status.OPTIMAL, 0.5, "gss", None, 0.75).backend_time_s == 0.5
    assert Solution(x, 0.0, 0.0, Status.OPTIMAL, 0.5, "gss", None, -1.0).backend_time_s == 0.0


def test_backend_clock_counts_a_call_that_raises(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)

    def boom():
        clock.offset += 3.0
        raise ValueError("boom")

    bc = BackendClock()
    with pytest.raises(ValueError, match="boom"):
        bc.call(boom)
    assert bc.seconds == 3.0


class FakeMILP(MILPSolver):
    """A MILP backend whose solver call takes 2 s of a fake clock and returns the warm start."""

    name = "fake-milp"
    clock: FakeClock

    def _run(self, form, time_limit, warm):
        self.clock.offset += 2.0
        return RawResult(None if warm is None else np.asarray(warm, dtype=float), Status.FEASIBLE)


@pytest.fixture
def fake_milp(monkeypatch):
    """FakeMILP on a fake clock; the cross-check with ``exact`` takes 5 s of it."""
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    certify = MILPSolver._certify_with_exact

    def slow_certify(problem, left):
        clock.offset += 5.0
        return certify(problem, left)

    monkeypatch.setattr(MILPSolver, "_certify_with_exact", staticmethod(slow_certify))
    solver = FakeMILP()
    solver.clock = clock
    return solver


def test_milp_backend_time_is_the_solver_calls_and_the_cross_check_is_overhead(fake_milp):
    sol = fake_milp.solve(DYADIC)
    assert sol.status is Status.OPTIMAL  # certified by exact's cross-check
    assert sol.backend_time_s == 2.0
    assert sol.wall_time_s == 7.0
    assert sol.overhead_time_s == 5.0


def test_batch_of_milp_rows_sums_the_solver_calls(fake_milp):
    batch = ProblemBatch.from_problems([DYADIC, DYADIC.with_changes(alpha=0.6)])
    answers = fake_milp.solve_batch(batch)
    assert answers.backend_time_s == 4.0 and answers.wall_time_s == 14.0
    for sol in answers:
        assert sol.backend_time_s == 4.0 and sol.overhead_time_s == 10.0


@pytest.mark.parametrize("name", ["gss", "dpss"])
def test_vectorised_batches_carry_consistent_times(name):
    batch = ProblemBatch.from_problems([DYADIC, DYADIC.with_changes(alpha=0.6)])
    answers = get_solver(name).solve_batch(batch)
    assert 0.0 <= answers.backend_time_s <= answers.wall_time_s
    for sol in answers:
        check_fields(sol)
        assert sol.backend_time_s == answers.backend_time_s


@pytest.mark.parametrize("name", MILP)
def test_real_milp_backend_puts_the_cross_check_in_the_overhead(monkeypatch, name):
    # The real clock plus 1000 s whenever the cross-check runs: the backend's own time cannot
    # contain those 1000 s, the overhead must (a logical check, not a speed test).
    clock = FakeClock(real=True)
    monkeypatch.setattr(time, "perf_counter", clock)
    certify = MILPSolver._certify_with_exact
    calls = []

    def slow_certify(problem, left):
        calls.append(1)
        clock.offset += 1000.0
        return certify(problem, left)

    monkeypatch.setattr(MILPSolver, "_certify_with_exact", staticmethod(slow_certify))
    sol = get_solver(name).solve(DYADIC)
    assert sol.status is Status.OPTIMAL and calls
    check_fields(sol)
    assert sol.overhead_time_s >= 1000.0 > sol.backend_time_s
