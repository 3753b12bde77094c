"""The pymoo NSGA-II adapter on EMSCO's encoding: budget, determinism, realigned answers."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pymoo")

from subsel.evolution import operators as ops  # noqa: E402
from subsel.evolution.nsga2 import pymoo_problem, run_nsga2  # noqa: E402
from subsel.evolution.staged import StagedClassificationProblem  # noqa: E402


def easy(seed=0, n=200):
    """Feature 0 is cheap and decides the label; features 1..4 are dear noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 5))
    X[:, 0] = (2 * y - 1) * (1.0 + rng.random(n))
    return StagedClassificationProblem(X[:120], y[:120], X[120:], y[120:], [1.0, 10, 10, 10, 10], 0.9,
                                       None, 3, 0.2, 2.0, 2)


def test_run_nsga2_respects_the_budget_and_is_deterministic():
    problem = easy()
    genes, objectives, n_eval = run_nsga2(problem, 12, 60, 0.8, seed=5)
    assert 60 <= n_eval < 60 + 12                        # pymoo finishes its last generation
    assert np.array_equal(genes, ops.realign(genes)) and genes.shape == (5,)
    np.testing.assert_array_equal(objectives, problem.evaluate([genes])[0])
    again = run_nsga2(easy(), 12, 60, 0.8, seed=5)
    assert np.array_equal(again[0], genes) and np.array_equal(again[1], objectives)
    # the cheap perfect feature alone in the first stage is what NSGA-II should find here
    assert objectives[0] == 1.0 and objectives[1] == 1.0


def test_pymoo_problem_negates_the_maximised_objectives():
    problem = easy(1)
    pm, sampling, crossover, mutation = pymoo_problem(problem, 0.8)
    X = np.array([[0, 1, 1, 2, 2], [1, 0, 0, 0, 0]])          # the second realigns to [1, 0, ...]
    out = {}
    pm._evaluate(X, out)
    raw = problem.evaluate([ops.realign(x) for x in X])
    np.testing.assert_array_equal(out["F"], np.column_stack([-raw[:, 0], -raw[:, 1], raw[:, 2]]))
    kids = sampling._do(pm, 4, random_state=np.random.default_rng(0))
    assert kids.shape == (4, 5) and kids.max() <= problem.max_stages - 1
