"""The integer fast path of ``evaluate`` (answers of solvers) decides and reports exactly as the general path."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel.models import SubsetSelectionProblem
from tests.strategies import problems, tolerance_hard_problems


def same_evaluation(a, b):
    assert a.feasible == b.feasible
    assert a.units == b.units
    assert a.utility == b.utility  # bit for bit
    assert (np.isnan(a.avg_quality) and np.isnan(b.avg_quality)) or a.avg_quality == b.avg_quality
    assert a.violations == b.violations


@settings(max_examples=200)
@given(problem=problems(n_max=10, cap_max=3, grid=True) | problems(n_max=10, cap_max=1) | tolerance_hard_problems(),
       seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from([np.int64, np.int32, np.uint8]))
def test_integer_answers_are_evaluated_as_floats_are(problem, seed, dtype):
    rng = np.random.default_rng(seed)
    k = problem.capacity
    for _ in range(5):
        x = rng.integers(0, k + 1)
        if problem.n and rng.random() < 0.2:  # out of bounds: the fast path hands over to the general one
            i = int(rng.integers(problem.n))
            x[i] = k[i] + 1 if dtype is np.uint8 or rng.random() < 0.5 else -1
        xi = x.astype(dtype)
        fast = problem.evaluate(xi)
        same_evaluation(fast, problem.evaluate(xi.astype(float)))


def test_a_selection_on_the_tolerance_bound_is_decided_exactly():
    # 0.7 - 1e-9 is not a float sum away from -1e-9: the exact rule decides, on both paths.
    p = SubsetSelectionProblem(quality=[0.7, 0.7 - 1e-9, 0.7 - 2e-9], cost=[0.0, 0.0, 0.0], alpha=0.7)
    for x in ([1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]):
        xi = np.array(x, dtype=np.int64)
        same_evaluation(p.evaluate(xi), p.evaluate(xi.astype(float)))
    assert p.evaluate(np.array([1, 1, 0])).feasible
    assert not p.evaluate(np.array([0, 1, 1])).feasible


def test_large_capacities_take_the_general_path():
    p = SubsetSelectionProblem(quality=[0.9, 0.2], cost=[0.0, 0.0], alpha=0.5, capacity=[2 ** 53, 2 ** 53])
    x = np.array([2 ** 53, 2 ** 52], dtype=np.int64)
    same_evaluation(p.evaluate(x), p.evaluate(x.astype(float)))


@settings(max_examples=100)
@given(problem=problems(n_max=10, cap_max=3, grid=True) | tolerance_hard_problems(),
       seed=st.integers(0, 2**32 - 1))
def test_the_last_answer_kept_is_never_stale(problem, seed):
    # The problem keeps its last integer evaluation: a selection asked again, a selection changed in
    # place in the same array, or the same units in another integer type are each decided afresh.
    rng = np.random.default_rng(seed)
    pool = [rng.integers(0, problem.capacity + 1) for _ in range(3)]
    buffer = np.zeros(problem.n, dtype=np.int64)
    for _ in range(12):
        buffer[:] = pool[int(rng.integers(len(pool)))]
        if problem.n and rng.random() < 0.3:
            buffer[int(rng.integers(problem.n))] ^= 1
        xi = buffer if rng.random() < 0.7 else buffer.astype(np.int32)
        same_evaluation(problem.evaluate(xi), problem.evaluate(xi.astype(float)))
