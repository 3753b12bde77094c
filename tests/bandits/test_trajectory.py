"""The batched simulation against a plain re-statement of SS-UCB and CUCB, round by round.

The reference below is written from Deva, Abhishek, Gujar, "A Multi-Arm Bandit Approach To Subset
Selection Under Constraints" (AAMAS 2021), Algorithm 2, one run and one agent at a time in Python
floats: its own per-run random streams (child ``j`` of the seed, one uniform per agent and round),
its own counts, its own UCB ``min(good/w + sqrt(3 ln t / (2 w)), 1)`` and one ``Solver.solve`` per
run and round.  The batched path (policy, environment, ``ProblemBatch`` and ``solve_batch``) must
play exactly the same selections and keep exactly the same counts: any change of a trajectory (an
arithmetic shortcut in the UCB, a reordered draw, a batch fast path that hands the oracle other
numbers) fails here.
"""
import math

import numpy as np
import pytest

from subsel.bandits import BernoulliEnvironment, make_policy, paper_instances, simulate
from subsel.bandits.environment import run_seeds
from subsel.bandits.policies import exploration_rounds
from subsel.models import SubsetSelectionProblem
from subsel.solvers import get_solver


def _recording(oracle):
    """The named solver, recording the qualities and thresholds of every batch it is asked."""
    base = type(get_solver(oracle))

    class Recording(base):
        def __init__(self):
            super().__init__()
            self.asked = []

        def solve_batch(self, batch):
            self.asked.append((np.array(batch.quality), np.array(batch.alpha)))
            return super().solve_batch(batch)

    return Recording()


def _reference(policy, oracle, q, c, alpha, eps, T, seed):
    """Selections (T, m, n), final counts and the oracle's qualities (one (m, n) array per oracle
    round) of ``policy`` played run by run, agent by agent."""
    m, n = q.shape
    solver = get_solver(oracle)
    tau = exploration_rounds(T, eps) if policy == "ss-ucb" else 1
    threshold = min(alpha + eps, 1.0)
    selections = np.zeros((T, m, n), dtype=np.int64)
    w_all, good_all = np.zeros((m, n)), np.zeros((m, n))
    asked = np.zeros((T - tau, m, n))
    for j, s in enumerate(run_seeds(seed, m)):
        rng = np.random.default_rng(s)
        w, good = [0.0] * n, [0.0] * n
        for t in range(1, T + 1):
            if t <= tau:
                x = [1] * n
            else:
                half = 1.5 * math.log(t)  # 3 ln t / 2
                ucb = [1.0 if w[i] == 0 else min(good[i] / w[i] + math.sqrt(half / w[i]), 1.0)
                       for i in range(n)]
                problem = SubsetSelectionProblem(quality=ucb, cost=c[j], alpha=threshold)
                x = solver.solve(problem).x.tolist()
                asked[t - tau - 1, j] = ucb
            u = rng.random(n)
            for i in range(n):
                w[i] += x[i]
                good[i] += x[i] if u[i] < q[j, i] else 0
            selections[t - 1, j] = x
        w_all[j], good_all[j] = w, good
    return selections, w_all, good_all, asked


@pytest.mark.parametrize("policy, oracle, n, alpha, eps, T", [
    ("ss-ucb", "dpss", 10, 0.7, 0.2, 320),
    ("ss-ucb", "gss", 10, 0.7, 0.2, 320),
    ("ss-ucb", "dpss", 7, 0.5, 0.3, 150),
    ("cucb", "dpss", 10, 0.7, 0.05, 120),
    ("cucb", "gss", 10, 0.7, 0.05, 120),
])
def test_batched_simulation_replays_the_reference_trajectory(policy, oracle, n, alpha, eps, T):
    m = 24
    q, c = paper_instances(n, m, alpha, seed=5)
    solver = _recording(oracle)
    pol = make_policy(policy, solver, cost=c, alpha=alpha, epsilon=eps, horizon=T, runs=m)
    if policy == "ss-ucb":
        assert pol.tau < T - 50  # most of the rounds ask the oracle
    res = simulate(pol, BernoulliEnvironment(q, c, seed=9), T, eps, keep_selections=True)
    selections, w, good, asked = _reference(policy, oracle, q, c, alpha, eps, T, seed=9)
    # the oracle was asked the reference's qualities, bit for bit, at alpha + eps
    assert len(solver.asked) == len(asked)
    assert all(np.array_equal(a, b) for (a, _), b in zip(solver.asked, asked))
    assert all((th == min(alpha + eps, 1.0)).all() for _, th in solver.asked)
    assert np.array_equal(res.selections, selections)
    assert np.array_equal(pol.w, w) and np.array_equal(pol.good, good)
    assert len({tuple(x) for x in selections[-50:].reshape(-1, n)}) > 5  # the runs differ
