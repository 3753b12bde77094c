"""weighted_sum: the BLAS-free 1-D inner product behind quality_surplus and evaluate."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel.models import SubsetSelectionProblem
from subsel.models._rules import weighted_sum
from tests.strategies import problems


@settings(max_examples=30)
@given(problem=problems(n_max=8, cap_max=3), seed=st.integers(0, 2**32 - 1))
def test_weighted_sum_and_surplus_equal_the_matrix_product(problem, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, problem.capacity + 1, size=(4, problem.n))
    x = X[0]
    assert weighted_sum(x, problem.utility) == float(x @ problem.utility)  # short: BLAS itself
    batch = problem.quality_surplus(X)
    assert batch.shape == (4,)
    for row, value in zip(X, batch):
        assert problem.quality_surplus(row) == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert problem.quality_surplus(list(x)) == pytest.approx(float(x @ problem.quality_margin), abs=1e-12)


def test_weighted_sum_never_broadcasts_a_wrong_shape():
    p = SubsetSelectionProblem(quality=[0.9, 0.5, 0.6], cost=[0.1, 0.2, 0.3], alpha=0.5)
    with pytest.raises(ValueError, match="matmul"):
        p.quality_surplus(np.array([1.0]))  # x @ v refuses it; x * v would broadcast
    with pytest.raises(ValueError, match="matmul"):
        weighted_sum(np.ones(2), np.ones(3))
    with pytest.raises(ValueError, match=r"x must have shape \(3,\)"):
        p.evaluate([1, 1])


@settings(max_examples=5)
@given(seed=st.integers(0, 2**32 - 1))
def test_weighted_sum_of_long_vectors_equals_the_matrix_product(seed):
    rng = np.random.default_rng(seed)
    n = 20_000  # above the length from which weighted_sum leaves BLAS
    x, v = rng.integers(0, 3, n).astype(float), rng.uniform(-1, 1, n)
    assert weighted_sum(x, v) == pytest.approx(float(x @ v), rel=1e-12, abs=1e-9)
    X = np.vstack([x, 2 * x])
    assert weighted_sum(X, v) == pytest.approx(X @ v, rel=1e-12)
