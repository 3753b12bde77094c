"""The small-n fast paths of the solvers against their general kernels and brute force."""
import numpy as np
from hypothesis import given, settings

from subsel.models import ProblemBatch
from subsel.solvers import Status, get_solver
from subsel.solvers.dpss import _dpss_unit, dpss_batch
from tests.strategies import brute_force_rule, problems, tolerance_hard_problems

unit_problems = problems(n_max=12, cap_max=1, grid=True) | problems(n_max=12, cap_max=1) | tolerance_hard_problems()


@settings(max_examples=200)
@given(problem=unit_problems)
def test_dpss_unit_path_is_the_batch_kernel_bit_for_bit(problem):
    if problem.capacity.max() > 1:
        problem = problem.with_changes(capacity=None)
    quick = _dpss_unit(problem)
    raw = dpss_batch(ProblemBatch.from_problems([problem]))
    assert quick is not None and quick.status is Status.OPTIMAL  # S1 alone is always feasible
    assert raw.status is Status.OPTIMAL
    assert np.array_equal(quick.x, raw.x[0])
    best = brute_force_rule(problem)
    assert best is not None
    sol = get_solver("dpss").solve(problem)
    assert sol.objective == best[0] or abs(sol.objective - best[0]) <= 1e-9 * max(1.0, abs(best[0]))


def test_dpss_unit_path_hands_over_above_twenty_free_agents():
    from subsel import SubsetSelectionProblem

    q = np.r_[np.full(11, 0.9), np.full(11, 0.1)]
    c = np.r_[np.full(11, 0.95), np.full(11, 0.05)]  # 11 agents in S2, 11 in S3
    p = SubsetSelectionProblem(quality=q, cost=c, alpha=0.5)
    assert _dpss_unit(p) is None
    assert get_solver("dpss").solve(p).status is Status.OPTIMAL
