"""from_knapsack's exactness checks, vectorised: every accepted integer encoding is exact (checked
here in rationals, item by item), and the guard names the item when it is not."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem


@st.composite
def wide_integer_knapsacks(draw):
    m = draw(st.integers(1, 6))
    values = draw(st.lists(st.integers(0, 2 ** 50), min_size=m, max_size=m))
    weights = draw(st.lists(st.integers(0, 2 ** 27), min_size=m, max_size=m))
    capacity = draw(st.integers(0, 2 ** 28))
    as_array = draw(st.booleans())
    if as_array:
        return np.array(values, dtype=draw(st.sampled_from([np.int64, np.float64]))), np.array(weights), capacity
    return values, weights, capacity


@settings(max_examples=200)
@given(data=wide_integer_knapsacks())
def test_accepted_integer_encodings_are_exact(data):
    values, weights, capacity = data
    p = SubsetSelectionProblem.from_knapsack(values, weights, capacity)
    assert p.knapsack.values.tolist() == [int(v) for v in values]
    assert p.knapsack.weights.tolist() == [int(w) for w in weights] and p.knapsack.capacity == capacity
    wide = min(capacity, sum(int(w) for w in weights)) + 3 * max(int(w) for w in weights) > 2 ** 29
    if not p.knapsack.exact_in_float64:  # beyond exact float64: the integers decide (tests/solvers)
        assert wide or sum(int(v) for v in values) > 2 ** 53
        assert p._integer_rule is p.knapsack
    else:
        assert p._integer_rule is None
        q, r, alpha = p.quality, p.utility, p.alpha
        wmax = max(int(w) for w in weights)
        s = Fraction(alpha) / (2 * wmax) if wmax else None
        for j, (v, w) in enumerate(zip(values, weights)):
            assert Fraction(r[j + 1]) == int(v)
            if s is not None:
                assert Fraction(q[j + 1]) == Fraction(alpha) - int(w) * s
        assert p.names[:2] == ("anchor", "item_0") and len(p.names) == len(values) + 1


def test_the_sum_check_names_the_item_also_for_arrays():
    with pytest.raises(ValueError, match=r"values\[2\] brings the sum of values to 4611686018427387905 > 2\^62"):
        SubsetSelectionProblem.from_knapsack(np.array([2 ** 61, 2 ** 61 - 1, 2]), [1, 1, 1], 2)
    with pytest.raises(ValueError, match=r"weights\[1\] brings the sum of weights"):
        SubsetSelectionProblem.from_knapsack([1, 1], np.array([2.0 ** 62, 1.0]), 2)
    with pytest.raises(ValueError, match=r"values\[1\] must be at most 2\^62 = 4611686018427387904 .*; got "
                                         r"4611686018427387905$"):
        SubsetSelectionProblem.from_knapsack([0, 2 ** 62 + 1], [1, 1], 2)
    # At the limits: accepted, the integers kept exactly (a float would round 2^62 - 1).
    p = SubsetSelectionProblem.from_knapsack([2 ** 62 - 1, 1], [2 ** 61 + 1, 2 ** 61 - 1], 10 ** 40)
    assert p.knapsack.values.tolist() == [2 ** 62 - 1, 1] and p.knapsack.capacity == 10 ** 40
    for capacity in (10 ** 400, 2 ** 1000 + 1, np.uint64(2 ** 64 - 1)):  # any size: every item fits
        p = SubsetSelectionProblem.from_knapsack([3, 5], [4, 6], capacity)
        assert p.knapsack.capacity == int(capacity) and p.evaluate([1, 1, 1]).feasible


def test_an_inexact_encoding_falls_to_the_integer_rule():
    class Skewed(SubsetSelectionProblem):
        """A problem whose utilities are off by one ulp at item 1 (as if the encoding rounded)."""

        @property
        def utility(self):
            r = super().utility.copy()
            r[2] = np.nextafter(r[2], np.inf)
            return r

    p = Skewed.from_knapsack([3, 5, 7], [1, 2, 3], 4)
    assert not p.knapsack.exact_in_float64 and p._integer_rule is p.knapsack
    assert SubsetSelectionProblem.from_knapsack([3, 5, 7], [1, 2, 3], 4).knapsack.exact_in_float64
