"""Building a problem takes shortcuts on well-formed numpy input; the results and the errors are
those of the element-by-element rules."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel._validation import check_capacity
from subsel.models import MAX_EXACT_INT, SubsetSelectionProblem


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64])
def test_integer_capacities_become_a_fresh_int64_array(dtype):
    k = np.array([1, 2, 3, 100], dtype=dtype)
    out = check_capacity(k, limit=MAX_EXACT_INT)
    assert out.dtype == np.int64 and out.tolist() == [1, 2, 3, 100] and not np.shares_memory(out, k)
    two_d = check_capacity(np.array([[1, 2], [3, 4]], dtype=dtype), ndim=(1, 2), limit=MAX_EXACT_INT)
    assert two_d.tolist() == [[1, 2], [3, 4]]


@settings(max_examples=100)
@given(values=st.lists(st.integers(-3, 2 ** 53 + 3) | st.sampled_from([0, 1, 2 ** 53, 2 ** 53 + 1]),
                       min_size=1, max_size=6))
def test_integer_array_capacities_are_checked_as_lists_are(values):
    arr = np.array(values, dtype=np.int64)
    try:
        expected = check_capacity(list(values), limit=MAX_EXACT_INT)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)) as got:
            check_capacity(arr, limit=MAX_EXACT_INT)
        assert str(got.value) == str(exc)
    else:
        assert check_capacity(arr, limit=MAX_EXACT_INT).tolist() == expected.tolist()
        assert all(1 <= v <= MAX_EXACT_INT for v in values)


def test_out_of_range_integer_capacities_name_the_index():
    with pytest.raises(ValueError, match=r"capacity\[2\] must be a positive integer; got 0"):
        check_capacity(np.array([1, 2, 0, -1]), limit=MAX_EXACT_INT)
    with pytest.raises(ValueError, match=r"capacity\[1\] must be at most 2\^53"):
        check_capacity(np.array([1, 2 ** 60], dtype=np.uint64), limit=MAX_EXACT_INT)


def test_quality_and_cost_lists_and_arrays_build_the_same_problem():
    rng = np.random.default_rng(3)
    q, c, k = rng.random(20_000), rng.random(20_000), rng.integers(1, 5, 20_000)
    a = SubsetSelectionProblem(quality=q, cost=c, alpha=0.6, capacity=k)
    b = SubsetSelectionProblem(quality=q.tolist(), cost=tuple(c.tolist()), alpha=0.6, capacity=k.tolist())
    for field in ("quality", "cost", "capacity", "utility", "quality_margin"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.capacity.dtype == b.capacity.dtype == np.int64
    q[0], k[0] = 0.123, 4  # the problem holds its own copies
    assert a.quality[0] == b.quality[0] != 0.123 and a.capacity[0] == b.capacity[0]
