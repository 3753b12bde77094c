"""``Solver.solve_batch``: the vectorised DPSS and GSS equal their per-problem answers row by row."""
import numpy as np
import pytest
from hypothesis import given, settings

from subsel import SubsetSelectionProblem
from subsel.solvers import Solver, get_solver
from subsel.solvers.base import check_batch_inputs
from tests.strategies import problem_batches


def per_problem(solver: Solver, batch: dict) -> np.ndarray:
    rows = []
    oq = batch.get("objective_quality")
    for j in range(batch["quality"].shape[0]):
        p = SubsetSelectionProblem(quality=batch["quality"][j], cost=batch["cost"][j],
                                   alpha=float(batch["alpha"][j]), R=batch["R"],
                                   capacity=batch["capacity"],
                                   objective_quality=None if oq is None else oq[j])
        rows.append(solver.solve(p).x)
    return np.array(rows)


@pytest.mark.parametrize("name", ["dpss", "gss"])
@settings(max_examples=60)
@given(batch=problem_batches(n_max=9, grid=True, objective=True))
def test_batched_equals_per_problem_on_grid(name, batch):
    solver = get_solver(name)
    assert solver.solve_batch(**batch).tolist() == per_problem(solver, batch).tolist()


@pytest.mark.parametrize("name", ["dpss", "gss"])
@settings(max_examples=60)
@given(batch=problem_batches(n_max=10, m_max=10))
def test_batched_equals_per_problem_continuous(name, batch):
    solver = get_solver(name)
    assert solver.solve_batch(**batch).tolist() == per_problem(solver, batch).tolist()


@settings(max_examples=60)
@given(batch=problem_batches(n_max=6, cap_max=3, grid=True))
def test_batched_gss_with_capacities(batch):
    solver = get_solver("gss")
    assert solver.solve_batch(**batch).tolist() == per_problem(solver, batch).tolist()


@pytest.mark.parametrize("name", ["dpss", "gss"])
def test_batched_equals_per_problem_with_extreme_ratios(name):
    """Tiny |q - alpha| makes GSS's sort keys overflow to inf; the order must still match."""
    batch = dict(quality=np.array([[5e-324, 0.5, 1e-300, 0.0], [1.0, 1.0 - 1e-16, 0.3, 1.0]]),
                 cost=np.array([[0.9, 0.1, 0.5, 0.0], [0.0, 1.0, 0.2, 1.0]]),
                 alpha=np.array([0.0, 1.0 - 1e-16]), R=1.0, capacity=np.ones(4, dtype=int))
    solver = get_solver(name)
    with np.errstate(over="ignore"):
        expected = per_problem(solver, batch)
    assert solver.solve_batch(**batch).tolist() == expected.tolist()


def test_base_default_loops_over_solve():
    """A backend without an override answers through the default loop (here DPSS's parent)."""
    batch = dict(quality=np.array([[0.9, 0.6, 0.2], [0.5, 0.95, 0.8]]), cost=np.full(3, 0.1),
                 alpha=0.7)
    dpss = get_solver("dpss")
    assert Solver.solve_batch(dpss, **batch).tolist() == dpss.solve_batch(**batch).tolist()


@pytest.mark.parametrize("kwargs, match", [
    (dict(quality=[0.5, 0.5], cost=[0.1, 0.1], alpha=0.5), r"quality must have shape \(m, n\)"),
    (dict(quality=[[0.5, 1.5]], cost=[0.1, 0.1], alpha=0.5), r"quality\[0, 1\] must be in \[0, 1\]"),
    (dict(quality=[[0.5, 0.5]], cost=[0.1], alpha=0.5), r"cost must have shape"),
    (dict(quality=[[0.5, 0.5]], cost=[0.1, -1.0], alpha=0.5), r"cost\[1\] must be >= 0"),
    (dict(quality=[[0.5, 0.5]], cost=[0.1, 0.1], alpha=[0.5, 0.5]), r"alpha must be a number or"),
    (dict(quality=[[0.5, 0.5]], cost=[0.1, 0.1], alpha=1.5), r"alpha must be in \[0, 1\]"),
    (dict(quality=[[0.5, 0.5]], cost=[0.1, 0.1], alpha=0.5, R=0.0), r"R must be a number > 0"),
    (dict(quality=[[0.5, 0.5]], cost=[0.1, 0.1], alpha=0.5, capacity=[1, 0]),
     r"capacity\[1\] must be a positive integer"),
    (dict(quality=[[0.5, np.nan]], cost=[0.1, 0.1], alpha=0.5), r"quality\[0, 1\] must be a finite"),
    (dict(quality=[[0.5, 0.5]], cost=[0.1, 0.1], alpha=0.5, objective_quality=[[0.5, 2.0]]),
     r"objective_quality\[0, 1\] must be in \[0, 1\]"),
])
def test_batch_input_errors(kwargs, match):
    args = dict(R=1.0, capacity=None)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        check_batch_inputs(args["quality"], args["cost"], args["alpha"], args["R"], args["capacity"],
                           args.get("objective_quality"))


def test_batched_dpss_falls_back_for_many_free_agents():
    """Rows with more than 20 free agents (|S2 ∪ S3| > 20) go through solve, mixed with fast rows."""
    rng = np.random.default_rng(5)
    n = 21
    q = np.vstack([rng.uniform(0.1, 0.6, n), rng.random(n)])  # row 0: every agent in S3
    c = np.vstack([np.zeros(n), rng.random(n)])
    dpss = get_solver("dpss")
    batch = dict(quality=q, cost=c, alpha=np.array([0.65, 0.7]), R=1.0, capacity=np.ones(n, dtype=int))
    assert dpss.solve_batch(**batch).tolist() == per_problem(dpss, batch).tolist()
