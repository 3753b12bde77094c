"""Sums of units and capacities are exact: no int64 wrap past 2^63, no float rounding past 2^53.

1024 agents of capacity 2^53 hold 2^63 units, one more than int64 holds: an int64 sum wraps to
-2^63 and a demand of one unit then looked unreachable to every backend.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel.cli import main
from subsel.models import MAX_EXACT_INT, ProblemBatch, SubsetSelectionProblem
from subsel.models._rules import exact_total
from subsel.solvers import SolverError, Status, available_solvers, get_solver

DEMAND_SOLVERS = [name for name in available_solvers() if "demand" in get_solver(name).supports]


def huge(n, capacity=MAX_EXACT_INT, **kwargs):
    return SubsetSelectionProblem(quality=np.full(n, 0.9), cost=np.full(n, 0.5), alpha=0.7,
                                  capacity=np.full(n, capacity, dtype=np.int64), **kwargs)


@pytest.mark.parametrize("name", DEMAND_SOLVERS)
@pytest.mark.parametrize("n, capacity", [(1024, MAX_EXACT_INT), (1025, MAX_EXACT_INT), (3000, 2 ** 52 + 1)])
def test_demand_of_one_unit_is_feasible_with_more_than_2_63_units(name, n, capacity):
    problem = huge(n, capacity, demand=1)
    try:
        sol = get_solver(name).solve(problem)
    except SolverError as exc:  # CP-SAT's integers cannot hold the sums: said, not a wrong answer
        assert name == "ortools-cpsat" and "64-bit integers" in str(exc)
        return
    assert sol.status is not Status.INFEASIBLE
    assert sol.is_feasible and problem.evaluate(sol.x).feasible
    if sol.bound is not None:
        assert sol.bound >= sol.objective


@pytest.mark.parametrize("name", [n for n in ("gss", "dpss", "highs") if n in DEMAND_SOLVERS])
def test_batch_path_with_more_than_2_63_units(name):
    problem = huge(1024, demand=1)
    batch = ProblemBatch.from_problems([problem, problem])
    answers = get_solver(name).solve_batch(batch)
    assert all(s is not Status.INFEASIBLE for s in answers.status)
    x = np.tile(problem.upper_bounds(), (2, 1))
    ev = batch.evaluate(x)
    assert ev.feasible.all() and ev.units.tolist() == [2 ** 63, 2 ** 63]


@settings(max_examples=40)
@given(n=st.integers(1, 3000), capacity=st.integers(1, MAX_EXACT_INT), demand=st.integers(0, 2 ** 70))
def test_evaluate_counts_units_exactly(n, capacity, demand):
    problem = huge(n, capacity)
    ev = problem.evaluate(problem.upper_bounds())
    assert ev.units == n * capacity
    demanding = problem.with_changes(demand=demand)
    assert demanding.evaluate(problem.upper_bounds()).feasible == (n * capacity >= demand)
    batch = ProblemBatch.from_problems([demanding])
    assert bool(batch.evaluate(problem.upper_bounds()[None, :]).feasible[0]) == (n * capacity >= demand)


@settings(max_examples=60)
@given(st.lists(st.integers(-MAX_EXACT_INT, MAX_EXACT_INT), max_size=40), st.integers(1, 5000))
def test_exact_total_equals_python_sum(values, repeat):
    a = np.array(values * repeat, dtype=np.int64)
    assert exact_total(a) == sum(values) * repeat
    assert exact_total(a.astype(float)) == sum(values) * repeat
    rows = np.tile(a, (2, 1))
    assert [int(v) for v in exact_total(rows, axis=1)] == [sum(values) * repeat] * 2


def test_solve_summary_prints_the_exact_unit_count(tmp_path, capsys):
    path = tmp_path / "big.csv"
    path.write_text("name,quality,cost,capacity\n"
                    + "".join(f"a{i},0.9,0.5,{MAX_EXACT_INT}\n" for i in range(1024)))
    assert main(["solve", str(path), "--alpha", "0.7", "--solver", "gss"]) == 0
    out = capsys.readouterr().out
    assert f"selected     {2 ** 63} units from 1024 agents" in out
