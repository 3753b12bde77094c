"""The exact knapsack solver on Pisinger's hard classes (2005, Section 3) against brute force."""
import itertools

import numpy as np
import pytest

from subsel import Status, SubsetSelectionProblem, get_solver, solve_knapsack
from subsel.models import HARD_KNAPSACK_CLASSES, knapsack_instance


def _brute_force(p, w, c):
    """The optimal value over all 2^n selections."""
    n = len(p)
    x = np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64)
    fits = x @ w <= c
    return int((x @ p)[fits].max())


@pytest.mark.parametrize("kind", HARD_KNAPSACK_CLASSES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_solve_knapsack_on_hard_classes_matches_brute_force(kind, seed):
    rng = np.random.default_rng(seed)
    p, w, c = knapsack_instance(kind, 14, int(rng.choice([100, 1000, 10000])), rng)
    sol = solve_knapsack(p, w, c)
    assert sol.optimal and sol.value == _brute_force(p, w, c) and sol.bound == sol.value
    assert sol.weight == int(w @ sol.x) <= c and sol.value == int(p @ sol.x)


@pytest.mark.parametrize("kind", HARD_KNAPSACK_CLASSES)
def test_exact_on_the_encoded_hard_classes_matches_brute_force(kind):
    p, w, c = knapsack_instance(kind, 12, 1000, np.random.default_rng(5))
    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
    sol = get_solver("exact").solve(problem)
    assert sol.status is Status.OPTIMAL and sol.objective == _brute_force(p, w, c)
    assert int(sol.x[1:] @ w) <= c
