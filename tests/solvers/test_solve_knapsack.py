"""The public integer knapsack API (``subsel.solve_knapsack``) against brute force, and its checks."""
import time
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import subsel
from subsel.knapsack import _knapsack
from subsel.knapsack import solve as knapsack_module
from subsel.models import KNAPSACK_CLASSES, knapsack_instance
from subsel.solvers import MAX_KNAPSACK_TOTAL, KnapsackSolution, Status, solve_knapsack
from tests.strategies import int_brute_force, int_lex_dp, int_lex_optimum, integer_knapsacks, knapsack_dp

#: The paths of the knapsack core: the dynamic program (no enumeration), the same with combo's
#: surrogate relaxation and pairing from the first step ("dp-relax"), and for small knapsacks the
#: enumeration of every subset, in two halves or (the smallest) directly.
PATHS = pytest.mark.parametrize("path", ["dp", "dp-relax", "halves", "direct"])


def solve_on(path, *args, **kwargs) -> KnapsackSolution:
    """``solve_knapsack`` with the core's limits set so that ``path`` answers."""
    most, direct, relax = {"dp": (0, 0, _knapsack._MIN_RELAX), "dp-relax": (0, 0, 0),
                           "halves": (_knapsack._MAX_ENUMERATE, 0, _knapsack._MIN_RELAX),
                           "direct": (_knapsack._MAX_ENUMERATE, _knapsack._DIRECT_ENUMERATE,
                                      _knapsack._MIN_RELAX)}[path]
    with mock.patch.object(_knapsack, "_MAX_ENUMERATE", most), \
            mock.patch.object(_knapsack, "_DIRECT_ENUMERATE", direct), \
            mock.patch.object(_knapsack, "_MIN_RELAX", relax), \
            mock.patch.object(_knapsack, "_MIN_PAIRING", relax or _knapsack._MIN_PAIRING):
        return solve_knapsack(*args, **kwargs)


def check_answer(sol, values, weights, capacity, counts, optimum):
    """An optimal, feasible answer whose value and weight are the integer sums of its ``x``."""
    k = counts if counts is not None else [1] * len(values)
    assert isinstance(sol.value, int) and isinstance(sol.weight, int) and isinstance(sol.bound, int)
    assert sol.x.dtype == np.int64 and sol.x.shape == (len(values),)
    assert all(0 <= a <= b for a, b in zip(sol.x.tolist(), k))
    assert sol.value == sum(a * b for a, b in zip(sol.x.tolist(), values))
    assert sol.weight == sum(a * b for a, b in zip(sol.x.tolist(), weights)) <= capacity
    assert sol.status is Status.OPTIMAL and sol.optimal
    assert sol.value == optimum == sol.bound


@PATHS
@given(integer_knapsacks())
@example(([3, 3, 3], [2, 2, 2], 4, None))                                   # ties
@example(([2 ** 44 + 1, 2 ** 44], [2 ** 44, 2 ** 44 - 1], 2 ** 45 - 2, None))  # huge, one unit apart
@example(([5], [0], 0, None))                                               # weightless item
@example(([0, 0, 1, 1, 2] + [0] * 7, [0, 0, 2, 3, 5] + [0] * 7, 6, None))   # worthless weightless items
def test_zero_one_against_brute_force(path, data):
    values, weights, capacity, _ = data
    optimum = int_brute_force(values, weights, capacity)
    check_answer(solve_on(path, values, weights, capacity), values, weights, capacity, None, optimum)
    sol = solve_on(path, values, weights, capacity, lexicographic=True)
    check_answer(sol, values, weights, capacity, None, int_brute_force(values, weights, capacity))
    # The rule among equal optima: the lexicographically greatest optimal x, whichever path ran.
    assert sol.x.tolist() == int_lex_optimum(values, weights, capacity)


@PATHS
@given(integer_knapsacks(bounded=True))
@example(([6, 10], [3, 5], 9, [3, 1]))
def test_bounded_against_brute_force(path, data):
    values, weights, capacity, counts = data
    sol = solve_on(path, values, weights, capacity, counts=counts, lexicographic=True)
    check_answer(sol, values, weights, capacity, counts, int_brute_force(values, weights, capacity, counts))
    assert sol.x.tolist() == int_lex_optimum(values, weights, capacity, counts)


@given(st.integers(1, 10 ** 12), st.integers(1, 50), st.integers(1, 50), st.integers(0, 10 ** 6))
def test_large_counts_are_capped_at_what_fits(count, value, weight, capacity):
    # One item: the optimum is min(count, capacity // weight) copies.
    sol = solve_knapsack([value], [weight], capacity, counts=[count])
    assert sol.x.tolist() == [min(count, capacity // weight)]
    assert sol.optimal and sol.value == value * sol.x[0]


@given(st.lists(st.integers(0, 4), min_size=1, max_size=5), st.lists(st.integers(1, 4), min_size=5, max_size=5),
       st.lists(st.integers(0, 11), min_size=5, max_size=5), st.integers(0, 40))
def test_bounded_rule_with_many_copies(values, weights, counts, capacity):
    """Counts whose binary pieces end in a remainder (1, 2, 4, 4 for 11): the rule still maximises
    the copies of the first item, then of the second, ..."""
    m = len(values)
    weights, counts = weights[:m], counts[:m]
    sol = solve_knapsack(values, weights, capacity, counts=counts, lexicographic=True)
    assert sol.optimal and sol.x.tolist() == int_lex_optimum(values, weights, capacity, counts)


def test_lexicographic_option_is_checked():
    with pytest.raises(TypeError, match="lexicographic must be True or False; got 'yes'"):
        solve_knapsack([1], [1], 1, lexicographic="yes")


@pytest.mark.parametrize("kind", sorted(KNAPSACK_CLASSES))
def test_classic_instances_against_the_textbook_dp(kind):
    values, weights, capacity = knapsack_instance(kind, n=60, R=100, rng=np.random.default_rng(3))
    sol = solve_knapsack(values, weights, capacity)
    assert sol.optimal and sol.value == knapsack_dp(values, weights, capacity)
    assert sol.weight <= capacity


def test_large_coefficients_are_exact():
    # Pisinger's large coefficients (R = 10^7) and beyond: integers near 2^40 differing by one.
    rng = np.random.default_rng(7)
    base = 2 ** 40
    values = [base + int(v) for v in rng.integers(0, 3, 12)]
    weights = [base + int(v) for v in rng.integers(0, 3, 12)]
    capacity = 5 * base + 4
    sol = solve_on("dp", values, weights, capacity, lexicographic=True)
    check_answer(sol, values, weights, capacity, None, int_brute_force(values, weights, capacity))
    # The rule among equal optima: the lexicographically greatest optimal x, whichever path ran.
    assert sol.x.tolist() == int_lex_optimum(values, weights, capacity)


def test_inputs_of_every_integer_kind_agree():
    values, weights = [10, 7, 6], [5, 4, 3]
    want = solve_knapsack(values, weights, 8)
    for v, w, c in ((np.array(values, dtype=np.int32), np.array(weights, dtype=np.uint16), np.int64(8)),
                    (np.array(values, dtype=float), [5.0, 4.0, 3.0], 8.0),
                    (np.array(values, dtype=object), weights, 8)):
        sol = solve_knapsack(v, w, c)
        assert sol.x.tolist() == want.x.tolist() and sol.value == want.value


def test_empty_and_top_level_export():
    assert subsel.solve_knapsack is solve_knapsack
    sol = solve_knapsack([], [], 5)
    assert sol.x.shape == (0,) and sol.value == 0 and sol.weight == 0 and sol.optimal
    sol = solve_knapsack([4, 5], [3, 3], 10 ** 40)  # any capacity
    assert sol.x.tolist() == [1, 1] and sol.weight == 6


def test_answer_is_read_only_and_deterministic():
    inst = knapsack_instance("strongly_correlated", n=300, R=1000, rng=np.random.default_rng(1))
    a, b = solve_knapsack(*inst), solve_knapsack(*inst)
    assert np.array_equal(a.x, b.x)
    with pytest.raises(ValueError):
        a.x[0] = 1


def test_time_limit_gives_a_feasible_answer_and_a_bound():
    values, weights, capacity = knapsack_instance("strongly_correlated", n=2000, R=10 ** 4,
                                                  rng=np.random.default_rng(0))
    with mock.patch("time.perf_counter", side_effect=[0.0] + [1e9] * 10 ** 6):
        sol = solve_knapsack(values, weights, capacity, time_limit_s=1.0)
    assert sol.status is Status.TIME_LIMIT and not sol.optimal
    assert sol.weight <= capacity and sol.bound >= sol.value
    full = solve_knapsack(values, weights, capacity)
    assert full.optimal and sol.value <= full.value <= sol.bound


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(values=[1, -2], weights=[1, 1], capacity=1), ValueError, r"values\[1\] must be >= 0; got -2"),
    (dict(values=[1, 2], weights=[1, 1.5], capacity=1), ValueError, r"weights\[1\] must be an integer.*1\.5"),
    (dict(values=[1, float("nan")], weights=[1, 1], capacity=1), ValueError, r"values\[1\] must be a finite"),
    (dict(values=[1, 2 ** 62 + 1], weights=[1, 1], capacity=1), ValueError, r"values\[1\] must be at most 2\^62"),
    (dict(values=[1, 2 ** 70], weights=[1, 1], capacity=1), ValueError, r"values\[1\] must be at most 2\^62"),
    (dict(values=[1, 2.0 ** 63], weights=[1, 1], capacity=1), ValueError, r"values\[1\] must be at most 2\^62"),
    (dict(values=[1, True], weights=[1, 1], capacity=1), TypeError, r"values\[1\] must be a number, not a boolean"),
    (dict(values=["a"], weights=[1], capacity=1), TypeError, r"values must be an array of integers"),
    (dict(values=[[1]], weights=[1], capacity=1), ValueError, r"values must be one-dimensional"),
    (dict(values=(v for v in [1, 2]), weights=[1, 1], capacity=1), TypeError,
     r"values must be a list, tuple or array of numbers; got a generator .*pass list"),
    (dict(values=[1, 2], weights={1, 2}, capacity=1), TypeError, r"weights must be .*; got a set"),
    (dict(values=np.ma.array([1, 2], mask=[False, True]), weights=[1, 1], capacity=1), TypeError,
     r"values has masked entries"),
    (dict(values=[2 ** 63, 1], weights=[1, 1], capacity=1), ValueError,
     r"values\[0\] must be at most 2\^62 = 4611686018427387904; got 9223372036854775808$"),
    (dict(values=[2 ** 60, 1.5], weights=[1, 1], capacity=1), ValueError, r"values\[1\] must be an integer .*1\.5"),
    (dict(values=[2 ** 60, float("inf")], weights=[1, 1], capacity=1), ValueError, r"values\[1\] must be a finite"),
    (dict(values=[1, 2], weights=[1, 1], capacity=1, counts={0: 1, 1: 1}.values()), TypeError,
     r"counts must be .*; got a dict_values"),
    (dict(values=[1, 2], weights=[1], capacity=1), ValueError, r"values has 2 entries but weights has 1"),
    (dict(values=[1], weights=[1], capacity=-1), ValueError, r"capacity must be >= 0; got -1"),
    (dict(values=[1], weights=[1], capacity=1.5), ValueError, r"capacity must be an integer.*1\.5"),
    (dict(values=[1], weights=[1], capacity=True), TypeError, r"capacity must be a number"),
    (dict(values=[1], weights=[1], capacity=1, counts=[-1]), ValueError, r"counts\[0\] must be >= 0"),
    (dict(values=[1], weights=[1], capacity=1, counts=[1, 2]), ValueError, r"counts has 2 entries"),
    (dict(values=[2 ** 61, 2 ** 61, 1], weights=[1, 1, 1], capacity=3), ValueError,
     r"the values of the items .* sum to 4611686018427387905 > 2\^62"),
    (dict(values=[1, 1], weights=[2 ** 62, 1], capacity=2 ** 70, counts=[1, 1]), ValueError,
     r"the weights of the items .* sum to 4611686018427387905 > 2\^62"),
    (dict(values=[1], weights=[2 ** 40], capacity=2 ** 70, counts=[2 ** 23]), ValueError,
     r"the weights of the items .* sum to 9223372036854775808 > 2\^62"),
    (dict(values=[1], weights=[1], capacity=1, time_limit_s=0), ValueError, r"time_limit_s must be a number > 0"),
    (dict(values=[1], weights=[1], capacity=1, memory_limit_mb=-1), ValueError, r"memory_limit_mb must be"),
])
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        solve_knapsack(**kwargs)


def test_a_python_int_beyond_2_53_next_to_a_float_is_never_rounded():
    """numpy reads ``[2**60 + 1, 1.0]`` as float64 (2^60): the list is read entry by entry instead."""
    big = 2 ** 60 + 1
    for values in ([big, 1.0] + [1] * 30, (big, 1.0, 1), [big, 1.0]):
        sol = solve_knapsack(values, [1] * len(values), 1)
        assert sol.value == big and sol.x[0] == 1


def test_totals_count_only_copies_that_fit():
    # A huge weight that can never fit does not count against the 2^62 total.
    sol = solve_knapsack([1, 3], [2 ** 62, 1], 5, counts=[1, 10 ** 15])
    assert sol.x.tolist() == [0, 5] and sol.value == 15
    assert MAX_KNAPSACK_TOTAL == 2 ** 62


@pytest.mark.parametrize("kind", sorted(KNAPSACK_CLASSES))
def test_64_bit_path_is_the_float_path_scaled(kind):
    # Values, weights and capacity times K = 3^27 (totals near 2^60, beyond float64): the optimum
    # is K times the optimum of the unscaled instance, found on the float64 path.
    values, weights, capacity = knapsack_instance(kind, n=300, R=1000, rng=np.random.default_rng(5))
    K = 3 ** 27
    small = solve_knapsack(values, weights, capacity)
    big = solve_knapsack([int(v) * K for v in values], [int(v) * K for v in weights], int(capacity) * K)
    assert small.optimal and big.optimal
    assert big.value == K * small.value and big.weight <= int(capacity) * K
    assert sum(int(v) * K for v in values) > 2 ** 53


def test_docstring_examples_run():
    import doctest

    from subsel.knapsack import solve as knapsack

    result = doctest.testmod(knapsack)
    assert result.attempted >= 3 and result.failed == 0



def test_a_time_limit_stops_the_rule_among_equal_optima():
    """``lexicographic=True``: the rule's exact searches honour ``time_limit_s``; stopped there, the
    optimum found comes back as ``time_limit`` with the optimum as its bound."""
    values, weights, capacity = knapsack_instance("subset_sum", n=200, R=1000, rng=np.random.default_rng(3))
    full = solve_knapsack(values, weights, capacity)
    real = knapsack_module._solve_core
    asked = []

    def slow(*args, **kwargs):   # every question of the rule outlasts the limit
        if kwargs.get("target") is None:
            return real(*args, **kwargs)
        asked.append(kwargs["target"])
        time.sleep(0.12)
        return real(*args, **kwargs)._replace(optimal=False)

    with mock.patch.object(knapsack_module, "_solve_core", side_effect=slow):
        sol = solve_knapsack(values, weights, capacity, lexicographic=True, time_limit_s=0.1)
    assert asked, "the rule asked no question: the instance does not exercise the limit"
    assert sol.status is Status.TIME_LIMIT and sol.value == full.value == sol.bound
    assert sol.weight <= capacity
    assert solve_knapsack(values, weights, capacity, lexicographic=True).status is Status.OPTIMAL


@given(st.lists(st.integers(1, 9), min_size=21, max_size=30), st.floats(0.2, 0.8),
       st.sampled_from([0.0001, 0.001, 0.005, 0.02]))
@example([4, 5, 1, 6, 6, 8, 5, 1, 9, 9, 5, 4, 6, 3, 3, 4, 8, 2, 4, 8, 5, 5], 0.5, 0.001)
def test_a_memory_limit_leaves_the_rule_among_equal_optima_undecided(values, frac, memory):
    """``lexicographic=True`` with a memory limit that stops some question of the rule: ``optimal``
    only with the rule's answer (the lexicographically greatest optimum by brute force), else
    ``time_limit`` with an optimum and the optimum as its bound (subset sums: ties everywhere)."""
    capacity = int(frac * sum(values))
    best = int_lex_dp(values, values, capacity)
    optimum = sum(a * b for a, b in zip(best, values))
    sol = solve_knapsack(values, values, capacity, lexicographic=True, memory_limit_mb=memory)
    assert sol.weight <= capacity and sol.bound >= optimum
    if sol.status is Status.OPTIMAL:
        assert sol.value == optimum and sol.x.tolist() == list(best)
    else:
        assert sol.status is Status.TIME_LIMIT
