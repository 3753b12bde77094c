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


@pytest.mark.parametrize("R", [100, 1000, 10000])
@pytest.mark.parametrize("kind", __import__("subsel.models", fromlist=["x"]).HARD_KNAPSACK_CLASSES)
def test_every_hard_class_follows_its_definition(kind, R):
    """Pisinger (2005), Section 3: each class's defining relation between w_j and p_j holds."""
    n = 400
    p, w, c = knapsack_instance(kind, n, R, np.random.default_rng(R))
    assert p.shape == w.shape == (n,) and p.dtype.kind == w.dtype.kind == "i"
    assert p.min() >= 1 and w.min() >= 1 and int(w.max()) <= c < int(w.sum())
    r10 = R // 10
    if kind.startswith("even_odd"):
        assert (w % 2 == 0).all() and c % 2 == 1
        assert (p == (w if kind == "even_odd_subset_sum" else w + r10)).all()
    elif kind == "similar_weights":
        assert (w >= 100 * R).all() and (w < 100 * R + r10).all() and p.max() <= R
    elif kind.endswith("_spanner"):
        spanners = {(int(a), int(b)) for a, b in zip(w, p)
                    if not any(a == k * sa and b == k * sb for sa, sb in zip(w, p) for k in range(2, 11))}
        assert 1 <= len(spanners) <= 2  # every item is a multiple 1..10 of one of two spanner items
        for a, b in zip(w, p):
            assert any(a % sa == 0 and a // sa <= 10 and b == (a // sa) * sb for sa, sb in spanners)
        assert w.max() <= 10 * (-(-R // 5))
    elif kind == "multiple_strongly_correlated":
        assert (p == w + np.where(w % 6 == 0, 3 * r10, 2 * r10)).all()
    elif kind == "profit_ceiling":
        assert (p % 3 == 0).all() and (p >= w).all() and (p - w < 3).all()
    else:  # circle: on the ellipse p = 2/3 sqrt(4R^2 - (w - 2R)^2), rounded down
        exact = 2.0 / 3.0 * np.sqrt(4.0 * R * R - (w - 2.0 * R) ** 2)
        assert (p <= exact + 1e-9).all() and (exact - p < 1 + 1e-9).all()


def test_hard_classes_are_reproducible_and_named_in_the_error():
    from subsel.models import HARD_KNAPSACK_CLASSES

    for kind in HARD_KNAPSACK_CLASSES:
        a = knapsack_instance(kind, 50, 1000, np.random.default_rng(3))
        b = knapsack_instance(kind, 50, 1000, np.random.default_rng(3))
        assert all(np.array_equal(x, y) for x, y in zip(a[:2], b[:2])) and a[2] == b[2]
    with pytest.raises(ValueError, match="circle; got 'nosuch'"):
        knapsack_instance("nosuch", 5, 100, np.random.default_rng(0))
