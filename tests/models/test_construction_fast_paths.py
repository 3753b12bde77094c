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


_DERIVED = ("utility", "quality_margin", "_abs_margin", "_max_capacity", "extensions", "names")


@settings(max_examples=60)
@given(data=st.data())
def test_a_copy_at_another_threshold_equals_a_fresh_problem(data):
    """``with_changes(alpha=...)`` checks only the threshold and keeps what does not depend on it;
    every field and derived array equals that of a problem built from scratch at that threshold."""
    from tests.strategies import planner_problems, problems

    p = data.draw(problems(n_max=6, cap_max=3, extensions=True) | planner_problems())
    alpha = data.draw(st.floats(0.0, 1.0) | st.sampled_from([float(v) for v in p.quality]))
    p.utility, p.quality_margin, p._abs_margin  # noqa: B018 - fill the caches the copy may take
    fast = p.with_changes(alpha=alpha)
    slow = p.with_changes(alpha=alpha, R=p.R)  # two changes: the constructor's path
    assert fast.alpha == slow.alpha == alpha
    for field in ("quality", "cost", "capacity", "R", "budget", "demand", "must_take", "must_not_take",
                  "objective_quality", "min_units", "lot_size", "fixed_cost", "group", "group_limits",
                  "_planner", *_DERIVED):
        a, b = getattr(fast, field), getattr(slow, field)
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b) and not a.flags.writeable, field
        elif field == "_planner":
            assert (a is None) == (b is None), field
        else:
            assert a == b, field
    x = np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=p.n, max_size=p.n)))
    x = np.minimum(x, p.capacity)
    assert repr(fast.evaluate(x)) == repr(slow.evaluate(x))  # (repr: NaN average of no units)


@pytest.mark.parametrize("alpha, error, match", [
    (1.5, ValueError, r"alpha must be in \[0, 1\]; got 1.5"),
    (-0.1, ValueError, r"alpha must be in \[0, 1\]; got -0.1"),
    (float("nan"), ValueError, r"alpha"),
    ("0.5", TypeError, r"alpha must be a number"),
])
def test_a_copy_at_a_bad_threshold_is_refused_as_by_the_constructor(alpha, error, match):
    p = SubsetSelectionProblem(quality=[0.9, 0.4], cost=[0.1, 0.2], alpha=0.5)
    with pytest.raises(error, match=match) as fast:
        p.with_changes(alpha=alpha)
    with pytest.raises(error) as slow:
        SubsetSelectionProblem(quality=[0.9, 0.4], cost=[0.1, 0.2], alpha=alpha)
    assert str(fast.value) == str(slow.value)
