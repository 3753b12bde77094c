"""``solve_batch`` at the bandit oracle's sizes (hundreds of rows) equals ``solve`` row by row.

SS-UCB asks its oracle once per round for every run (Deva, Abhishek, Gujar, AAMAS 2021,
Algorithm 2): many rows whose free agents |G| and list lengths differ.  The batch kernels group,
count and accumulate those rows in bulk; every row must get exactly the answer of its own problem,
on rows as short as the paper's n = 10 and on rows wider than the kernels' short-row paths.
"""
import numpy as np
import pytest

from subsel.models import ProblemBatch
from subsel.solvers import get_solver
from tests.solvers.test_solve_batch import assert_same_answers


@pytest.mark.parametrize("name", ["dpss", "gss"])
@pytest.mark.parametrize("m, n, alpha, capacity", [
    (300, 10, 0.75, None),     # the paper's setting: |G| from 0 to about 8
    (40, 24, 0.6, None),       # lists longer than 16 agents
    (60, 8, 0.7, "mixed"),     # capacities above 1
])
def test_batch_of_many_rows_equals_each_problem(name, m, n, alpha, capacity):
    rng = np.random.default_rng(m + n)
    q, c = rng.random((2, m, n))
    if name == "dpss" and n > 20:
        q = np.where(q < 0.3, 0.0, q)  # fewer free agents: an enumeration of a few thousand choices
    k = None if capacity is None else rng.integers(1, 4, size=n)
    assert_same_answers(get_solver(name), ProblemBatch(quality=q, cost=c, alpha=alpha, capacity=k))
