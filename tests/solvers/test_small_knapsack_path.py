"""The small-knapsack path of ``solve_knapsack`` (up to 20 items, the common inputs): the same ``x``
as the general path and the core's enumeration, ties included, the optimum of brute force, and every
input it does not take handed to the general path with the same error."""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subsel import solve_knapsack
from subsel.solvers._knapsack import _enumerate
from subsel.solvers._small_knapsack import SMALL_MAX_ITEMS, choose, solve_small
from tests.strategies import int_brute_force


@st.composite
def small_knapsacks(draw, m_max: int = SMALL_MAX_ITEMS):
    """Python-int knapsacks of 1..20 items: tiny numbers (ties everywhere), or a scale times tiny
    numbers plus an offset (totals past 2^52: the int64 path), and an array or a list."""
    m = draw(st.integers(1, m_max))
    scale = draw(st.sampled_from([1, 1, 10 ** 6, 2 ** 53, 2 ** 55 + 3]))  # totals <= 80 * scale + 20 < 2^62
    tiny = st.integers(0, 4)
    values = [a * scale + b for a, b in zip(draw(st.lists(tiny, min_size=m, max_size=m)),
                                            draw(st.lists(st.integers(0, 1), min_size=m, max_size=m)))]
    weights = [a * scale + b for a, b in zip(draw(st.lists(tiny, min_size=m, max_size=m)),
                                             draw(st.lists(st.integers(0, 1), min_size=m, max_size=m)))]
    capacity = draw(st.integers(0, sum(weights) + 2))
    return values, weights, capacity


def _general(values, weights, capacity):
    """The general path (a time limit keeps the small path out; the search ignores it here)."""
    return solve_knapsack(values, weights, capacity, time_limit_s=1e6)


@settings(max_examples=300, deadline=None)
@given(data=small_knapsacks(), as_array=st.booleans())
def test_the_small_path_returns_the_general_paths_answer(data, as_array):
    values, weights, capacity = data
    v, w = (np.array(values, dtype=np.int64), np.array(weights, dtype=np.int64)) if as_array else (values, weights)
    assert solve_small(v, w, capacity, 0.0) is not None  # the path is taken
    fast, slow = solve_knapsack(v, w, capacity), _general(values, weights, capacity)
    assert fast.x.tolist() == slow.x.tolist()
    assert (fast.value, fast.weight, fast.bound, fast.status) == (slow.value, slow.weight, slow.bound, slow.status)
    assert fast.optimal and not fast.x.flags.writeable and fast.x.dtype == np.int64
    if len(values) <= 12:
        assert fast.value == int_brute_force(values, weights, capacity)
    assert fast.weight == sum(a * b for a, b in zip(fast.x.tolist(), weights)) <= capacity


@settings(max_examples=200, deadline=None)
@given(data=small_knapsacks(), integers=st.booleans())
def test_choose_is_the_cores_enumeration(data, integers):
    values, weights, capacity = data
    keep = [j for j, v in enumerate(values) if v > 0]
    assume(keep)  # an item worth choosing
    p, w = np.array(values)[keep], np.array(weights)[keep]
    c = min(capacity, int(w.sum()))
    if not integers:
        assume(max(int(p.sum()), int(w.sum())) <= 2 ** 52)  # exact in floats
        p, w, c = p.astype(float), w.astype(float), float(c)
    assert choose(p, w, c).tolist() == _enumerate(p, w, c).take.tolist()


def _documented_choice(values, weights, capacity):
    """The order the documentation states for the default answer among equal optima (<= 20 items
    worth something that fit), by listing every subset of those items."""
    items = [j for j, (v, w) in enumerate(zip(values, weights)) if v > 0 and w <= capacity]
    m, h = len(items), len(items) // 2
    best, keys = None, []
    for mask in range(1 << m):
        y = [(mask >> j) & 1 for j in range(m)]
        if sum(weights[i] * t for i, t in zip(items, y)) <= capacity:
            value = sum(values[i] * t for i, t in zip(items, y))
            if m <= 10:
                key = (value, -mask)
            else:  # the first half's smallest number, then the heaviest rest, then its largest number
                rest_weight = sum(weights[i] * t for i, t in zip(items[h:], y[h:]))
                key = (value, -(mask & ((1 << h) - 1)), rest_weight, mask >> h)
            keys.append((key, y))
    best = max(keys)[1]
    x = [0] * len(values)
    for i, t in zip(items, best):
        x[i] = t
    return x


@settings(max_examples=200, deadline=None)
@given(data=small_knapsacks(m_max=13))
def test_the_default_choice_among_equal_optima_is_the_documented_order(data):
    values, weights, capacity = data
    assert solve_knapsack(values, weights, capacity).x.tolist() == _documented_choice(values, weights, capacity)


@pytest.mark.parametrize("values, weights, capacity, rule", [
    ([1, 2], [1, True], 1, r"weights\[1\] must be a number, not a boolean"),
    ([1, -2], [1, 1], 1, r"values\[1\] must be >= 0"),
    ([1, 2], [1.5, 1], 1, r"weights\[0\] must be an integer"),
    ([1, 2 ** 62 + 1], [1, 1], 1, r"values\[1\] must be at most 2\^62"),
    ([2 ** 62, 2 ** 62], [1, 1], 2, r"the values of the items .* sum to 9223372036854775808 > 2\^62"),
    ([1, 2], [1, 1, 1], 1, r"values has 2 entries but weights has 3"),
    ([1, 2], [1, 1], -1, r"capacity must be >= 0"),
    ([1, 2], [1, 1], 1.5, r"capacity must be an integer"),
])
def test_inputs_the_small_path_does_not_take_fail_as_before(values, weights, capacity, rule):
    assert solve_small(values, weights, capacity, 0.0) is None
    for kwargs in ({}, {"time_limit_s": 1e6}):  # the same error with and without the small path
        with pytest.raises((TypeError, ValueError), match=rule):
            solve_knapsack(values, weights, capacity, **kwargs)


@pytest.mark.parametrize("kwargs, rule", [({"memory_limit_mb": 0}, "memory_limit_mb"),
                                          ({"time_limit_s": -1}, "time_limit_s"),
                                          ({"lexicographic": 1}, "lexicographic")])
def test_options_are_checked_on_small_knapsacks(kwargs, rule):
    with pytest.raises((TypeError, ValueError), match=rule):
        solve_knapsack([1, 2], [1, 1], 1, **kwargs)


def test_other_inputs_take_the_general_path_with_the_same_answer():
    v, w = [10, 7, 6], [5, 4, 3]
    for args in ((np.array(v, dtype=np.int32), w, 8), (v, w, np.int64(8)), ([float(a) for a in v], w, 8),
                 (tuple(v), w, 8), (v * 7, w * 7, 8)):
        assert solve_small(*args, 0.0) is None
        assert solve_knapsack(*args).x.tolist() == _general(*args).x.tolist()
    assert solve_knapsack(v, w, 8).x.tolist() == [1, 0, 1]
    assert solve_knapsack(v, w, 10 ** 30).x.tolist() == [1, 1, 1]  # a capacity above int64
