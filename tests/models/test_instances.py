"""Pisinger's knapsack instance classes (subsel.models.instances)."""
import numpy as np
import pytest

from subsel import SubsetSelectionProblem
from subsel.models.instances import (
    KNAPSACK_CLASSES,
    almost_strongly_correlated,
    inverse_strongly_correlated,
    knapsack_instance,
    strongly_correlated,
    subset_sum,
    uncorrelated,
    weakly_correlated,
)


@pytest.mark.parametrize("R", [1000, 10000])
@pytest.mark.parametrize("kind", KNAPSACK_CLASSES)
def test_every_class_draws_integer_data_in_range(kind, R):
    p, w, c = knapsack_instance(kind, 500, R, np.random.default_rng(0))
    assert p.shape == w.shape == (500,)
    assert p.dtype.kind == w.dtype.kind == "i"
    assert p.min() >= 1 and w.min() >= 1
    assert w.max() <= R + R // 10 and p.max() <= R + R // 10 + R // 500
    assert c == int(w.sum() // 2)


def test_class_definitions():
    rng = np.random.default_rng(1)
    R = 1000
    p, w, _ = strongly_correlated(300, R, rng)
    assert np.all(p == w + 100)
    p, w, _ = inverse_strongly_correlated(300, R, rng)
    assert np.all(w == p + 100) and p.max() <= R
    p, w, _ = almost_strongly_correlated(300, R, rng)
    assert np.all(np.abs(p - (w + 100)) <= 2)
    p, w, _ = weakly_correlated(300, R, rng)
    assert np.all(np.abs(p - w) <= 100)
    assert p.min() >= 1
    p, w, _ = subset_sum(300, R, rng)
    assert np.all(p == w)
    p, w, _ = uncorrelated(2000, R, rng)
    assert abs(np.corrcoef(p, w)[0, 1]) < 0.1


def test_same_generator_state_same_instance():
    a = knapsack_instance("weakly_correlated", 50, 1000, np.random.default_rng(5))
    b = knapsack_instance("weakly_correlated", 50, 1000, np.random.default_rng(5))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]


def test_fraction_sets_capacity():
    p, w, c = uncorrelated(100, 1000, np.random.default_rng(2), fraction=0.25)
    assert c == int(np.floor(0.25 * w.sum()))


def test_converts_to_subset_selection():
    p, w, c = knapsack_instance("subset_sum", 40, 10000, np.random.default_rng(3))
    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
    assert problem.n == 41
    x = np.zeros(41, dtype=int)
    x[0] = 1
    assert problem.evaluate(x).feasible


def test_unknown_class_is_rejected():
    with pytest.raises(ValueError, match="kind must be one of .*; got 'hard'"):
        knapsack_instance("hard", 10, 1000, np.random.default_rng(0))


def test_bad_n_is_rejected():
    with pytest.raises(ValueError, match="n must be an integer >= 1; got 0"):
        uncorrelated(0, 1000, np.random.default_rng(0))


def test_bad_range_is_rejected():
    with pytest.raises(ValueError, match="R must be an integer >= 10"):
        strongly_correlated(10, 5, np.random.default_rng(0))


def test_rng_must_be_a_generator():
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator; got int"):
        subset_sum(10, 1000, 7)


def test_bad_fraction_is_rejected():
    with pytest.raises(ValueError, match=r"fraction must be a number in \(0, 1\); got 1.5"):
        uncorrelated(10, 1000, np.random.default_rng(0), fraction=1.5)
