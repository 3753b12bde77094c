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
    try:
        p = SubsetSelectionProblem.from_knapsack(values, weights, capacity)
    except ValueError as exc:
        assert "exceeds 2^29" in str(exc) or "2^53" in str(exc)
        return
    q, r, alpha = p.quality, p.utility, p.alpha
    wmax = max(int(w) for w in weights)
    s = Fraction(alpha) / (2 * wmax) if wmax else None
    for j, (v, w) in enumerate(zip(values, weights)):
        assert Fraction(r[j + 1]) == int(v)
        if s is not None:
            assert Fraction(q[j + 1]) == Fraction(alpha) - int(w) * s
    assert p.names[:2] == ("anchor", "item_0") and len(p.names) == len(values) + 1


def test_the_sum_check_names_the_item_also_for_arrays():
    with pytest.raises(ValueError, match=r"values\[2\] brings the sum of values to 9007199254740993"):
        SubsetSelectionProblem.from_knapsack(np.array([2 ** 52, 2 ** 52 - 1, 2]), [1, 1, 1], 2)
    with pytest.raises(ValueError, match=r"weights\[1\] brings the sum of weights"):
        SubsetSelectionProblem.from_knapsack([1, 1], np.array([2.0 ** 53, 1.0]), 2)


def test_an_inexact_encoding_is_refused_naming_the_item():
    class Skewed(SubsetSelectionProblem):
        """A problem whose utilities are off by one ulp at item 1 (as if the encoding rounded)."""

        @property
        def utility(self):
            r = super().utility.copy()
            r[2] = np.nextafter(r[2], np.inf)
            return r

    with pytest.raises(ValueError, match=r"values\[1\] cannot be encoded exactly"):
        Skewed.from_knapsack([3, 5, 7], [1, 2, 3], 4)
