"""The compiled core search of the knapsack dynamic program (numba) against the numpy loop: the same
answer (selection, value, bound, status, core size) on every instance, and both against brute force."""
import subprocess
import sys
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subsel.models import KNAPSACK_CLASSES, knapsack_instance
from subsel.solvers import Status, _knapsack, solve_knapsack
from tests.strategies import int_brute_force, integer_knapsacks, knapsack_arrays

pytest.importorskip("numba")

#: Core limits that make the dynamic program answer (no enumeration): plain, and with combo's
#: surrogate relaxation and pairing from the first step.
LIMITS = {"dp": (0, 0, _knapsack._MIN_RELAX, _knapsack._MIN_PAIRING), "dp-relax": (0, 0, 0, 0),
          "default": (_knapsack._MAX_ENUMERATE, _knapsack._DIRECT_ENUMERATE, _knapsack._MIN_RELAX,
                      _knapsack._MIN_PAIRING)}


def limits(path):
    most, direct, relax, pairing = LIMITS[path]
    return (mock.patch.object(_knapsack, "_MAX_ENUMERATE", most),
            mock.patch.object(_knapsack, "_DIRECT_ENUMERATE", direct),
            mock.patch.object(_knapsack, "_MIN_RELAX", relax),
            mock.patch.object(_knapsack, "_MIN_PAIRING", pairing))


def both_cores(p, w, c, path="dp", **kwargs):
    """The core's answer through the numpy loop and through the kernel, on the same limits."""
    a, b, c_, d = limits(path)
    with a, b, c_, d:
        numpy_res = _knapsack.solve_knapsack(p, w, c, kernel=False, **kwargs)
        kernel_res = _knapsack.solve_knapsack(p, w, c, kernel=True, **kwargs)
    return numpy_res, kernel_res


def assert_same(numpy_res, kernel_res):
    assert kernel_res.take.tolist() == numpy_res.take.tolist()
    assert kernel_res.value == numpy_res.value and type(kernel_res.value) is type(numpy_res.value)
    assert (kernel_res.bound, kernel_res.lp_bound) == (numpy_res.bound, numpy_res.lp_bound)
    assert (kernel_res.optimal, kernel_res.core_size, kernel_res.stopped) == \
        (numpy_res.optimal, numpy_res.core_size, numpy_res.stopped)


def public_both(path, *args, **kwargs):
    """``solve_knapsack`` with the kernel and without it (numba not installed: the numpy loop)."""
    a, b, c, d = limits(path)
    with a, b, c, d:
        with_kernel = solve_knapsack(*args, **kwargs)
        with mock.patch.object(_knapsack, "_KERNEL", [None]):
            without = solve_knapsack(*args, **kwargs)
    return with_kernel, without


@pytest.mark.parametrize("path", ["dp", "dp-relax"])
@given(integer_knapsacks())
@example(([3, 3, 3], [2, 2, 2], 4, None))                                   # ties
@example(([2 ** 44 + 1, 2 ** 44], [2 ** 44, 2 ** 44 - 1], 2 ** 45 - 2, None))  # huge, one unit apart
@example(([5, 5, 5, 5], [2 ** 60, 2 ** 60, 2 ** 60, 1], 2 ** 61, None))      # totals near 2^62
@example(([0, 0, 2 ** 54, 0, 2 ** 54 + 1], [0, 0, 1, 0, 1], 1, None))        # equal float efficiencies
def test_zero_one_kernel_is_the_numpy_loop_and_optimal(path, data):
    values, weights, capacity, _ = data
    sol, ref = public_both(path, values, weights, capacity)
    assert sol.x.tolist() == ref.x.tolist()
    assert (sol.value, sol.weight, sol.status, sol.bound) == (ref.value, ref.weight, ref.status, ref.bound)
    assert sol.status is Status.OPTIMAL
    assert sol.value == int_brute_force(values, weights, capacity) and sol.weight <= capacity


@pytest.mark.parametrize("path", ["dp", "dp-relax"])
@given(integer_knapsacks(bounded=True))
@example(([6, 10], [3, 5], 9, [3, 1]))
def test_bounded_kernel_is_the_numpy_loop_and_optimal(path, data):
    values, weights, capacity, counts = data
    sol, ref = public_both(path, values, weights, capacity, counts=counts)
    assert sol.x.tolist() == ref.x.tolist() and sol.status is ref.status is Status.OPTIMAL
    assert sol.value == int_brute_force(values, weights, capacity, counts)


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_kernel_is_the_numpy_loop_on_larger_knapsacks(data):
    """Dozens to hundreds of items with many ties (small numbers) or huge ones (int64 state lists),
    with the relaxation and pairing on or off, a target, or a memory limit."""
    p, w, c = data.draw(knapsack_arrays())
    floats = int(p.sum()) <= 2 ** 52 and int(w.sum()) <= 2 ** 52 and data.draw(st.booleans())
    pp, ww, cc = (p.astype(float), w.astype(float), float(c)) if floats else (p, w, c)
    path = data.draw(st.sampled_from(["dp", "dp-relax", "default"]))
    extra = data.draw(st.sampled_from([{}, {"memory_limit": 20_000}, {"target": "opt"}, {"target": "opt+1"}]))
    if "target" in extra:
        opt = both_cores(pp, ww, cc, path)[0].value
        extra = {"target": opt + (1 if extra["target"] == "opt+1" else 0)}
    numpy_res, kernel_res = both_cores(pp, ww, cc, path, **extra)
    assert_same(numpy_res, kernel_res)


@pytest.mark.parametrize("kind", sorted(KNAPSACK_CLASSES))
@pytest.mark.parametrize("R", [1000, 10 ** 6])
def test_kernel_is_the_numpy_loop_on_the_classic_classes(kind, R):
    values, weights, capacity = knapsack_instance(kind, n=400, R=R, rng=np.random.default_rng(R + 7))
    numpy_res, kernel_res = both_cores(values.astype(float), weights.astype(float), float(capacity), "default")
    assert_same(numpy_res, kernel_res)
    K = 2 ** 60 // int(max(values.sum(), weights.sum())) | 1  # scaled beyond float64: int64 state lists
    numpy_big, kernel_big = both_cores(values * K, weights * K, int(capacity) * K, "default")
    assert_same(numpy_big, kernel_big)
    assert kernel_big.value == K * int(kernel_res.value)


def test_time_limit_through_the_kernel_gives_a_feasible_answer_and_a_true_bound():
    values, weights, capacity = knapsack_instance("strongly_correlated", 3000, 10 ** 5, np.random.default_rng(3))
    sol = solve_knapsack(values, weights, capacity, time_limit_s=1e-9)
    full = solve_knapsack(values, weights, capacity)
    assert full.optimal and sol.weight <= capacity
    assert sol.value <= full.value <= sol.bound
    assert sol.status is (Status.OPTIMAL if sol.value == full.value == sol.bound else Status.TIME_LIMIT)


def test_import_and_small_solves_do_not_import_numba():
    code = ("import sys, subsel\n"
            "from subsel import solve_knapsack\n"
            "assert solve_knapsack([10, 7, 6], [5, 4, 3], 8).value == 16\n"
            "assert solve_knapsack(list(range(1, 21)), list(range(1, 21)), 50).value == 50\n"
            "p = subsel.SubsetSelectionProblem(quality=[0.9, 0.5], cost=[1.0, 0.2], capacity=[3, 4], alpha=0.7)\n"
            "subsel.get_solver('exact').solve(p)\n"
            "assert 'numba' not in sys.modules, 'numba imported'\n"
            "assert solve_knapsack(list(range(1, 41)), list(range(1, 41)), 100).value == 100\n"
            "assert 'numba' in sys.modules\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_rule_among_equal_optima_when_the_capacity_rounds_up_in_floats():
    # 2^55 - 2 is 2^55 in float64: both heavy items seemed to fit, and the rule froze them as taken.
    values, weights, capacity = [1, 0, 0, 1, 0], [2 ** 54, 0, 0, 2 ** 54, 0], 2 ** 55 - 2
    sol = solve_knapsack(values, weights, capacity, lexicographic=True)
    assert sol.x.tolist() == [1, 1, 1, 0, 1] and sol.optimal
