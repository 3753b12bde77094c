"""The default 0-1 call of ``solve_knapsack`` in one compiled call (the kernel's ``solve01``): the
same ``x``, value, weight, status and bound as the general path (the Python glue around the kernel),
and the optimum of brute force; the same errors, naming the same entries."""
from contextlib import ExitStack
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subsel.models import KNAPSACK_CLASSES, knapsack_instance
from subsel.solvers import Status, _knapsack, knapsack, solve_knapsack
from tests.strategies import int_brute_force, integer_knapsacks, knapsack_arrays

#: Core limits: the dynamic program from the first item (no enumeration), with combo's surrogate
#: relaxation and pairing at their thresholds or from the first step; and the defaults.
LIMITS = {"dp": dict(_MAX_ENUMERATE=0, _DIRECT_ENUMERATE=0),
          "dp-relax": dict(_MAX_ENUMERATE=0, _DIRECT_ENUMERATE=0, _MIN_RELAX=0, _MIN_PAIRING=0),
          "default": {}}


@pytest.fixture(autouse=True)
def kernel_loaded():
    """The compiled kernel is there (built at install)."""
    assert _knapsack._kernel() is not None


def answers(path, values, weights, capacity, codes=None, **kwargs):
    """``solve_knapsack`` through the compiled entry, through the general path (the Python glue and
    the compiled core search), on the same core limits (the small-input
    path off, so that every input reaches the core); the entry's return codes appended to ``codes``."""
    nbk = _knapsack._kernel()
    entry = nbk.solve01

    def spy(*args):
        r = entry(*args)
        if codes is not None:
            codes.append(int(r[0]))
        return r
    out = []
    for how in ("entry", "general"):
        with ExitStack() as stack:
            stack.enter_context(mock.patch.object(nbk, "solve01", spy))
            for name, value in LIMITS[path].items():
                stack.enter_context(mock.patch.object(_knapsack, name, value))
            stack.enter_context(mock.patch.object(knapsack, "solve_small", lambda *a: None))
            if how != "entry":
                stack.enter_context(mock.patch.object(knapsack, "_solve_compiled", lambda *a: None))
            out.append(solve_knapsack(values, weights, capacity, **kwargs))
    return out


def assert_same(*sols):
    first = sols[0]
    for sol in sols[1:]:
        assert sol.x.tolist() == first.x.tolist()
        assert (sol.value, sol.weight, sol.status, sol.bound) == (first.value, first.weight, first.status,
                                                                  first.bound)
        assert type(sol.value) is type(sol.weight) is type(sol.bound) is int
        assert sol.x.dtype == np.int64 and not sol.x.flags.writeable


@pytest.mark.parametrize("path", sorted(LIMITS))
@pytest.mark.parametrize("as_array", [True, False])
@given(integer_knapsacks())
@example(([3, 3, 3], [2, 2, 2], 4, None))                                   # ties
@example(([0, 0, 5, 0], [0, 3, 0, 0], 0, None))                             # zero values, zero weights, capacity 0
@example(([4, 5, 6], [1, 2, 3], 7, None))                                   # capacity above the total weight
@example(([4, 5, 6], [1, 2, 3], 2 ** 64 + 5, None))                         # capacity beyond int64
@example(([2 ** 44 + 1, 2 ** 44], [2 ** 44, 2 ** 44 - 1], 2 ** 45 - 2, None))  # huge, one unit apart
@example(([2 ** 51, 2 ** 51 - 1, 1], [2 ** 51, 2 ** 50, 2 ** 50], 2 ** 51, None))  # totals a hair from 2^52
@example(([5, 5, 5, 5], [2 ** 60, 2 ** 60, 2 ** 60, 1], 2 ** 61, None))      # totals near 2^62
def test_entry_is_the_general_path_and_optimal(path, as_array, data):
    values, weights, capacity, _ = data
    if as_array:
        values, weights = np.array(values, dtype=np.int64), np.array(weights, dtype=np.int64)
    codes = []
    entry, general = answers(path, values, weights, capacity, codes)
    assert_same(entry, general)
    assert entry.status is Status.OPTIMAL and entry.bound == entry.value
    # The entry answers every knapsack with an item of value and weight that fits, on float64 totals.
    fits = [(int(v), int(w)) for v, w in zip(values, weights) if int(w) <= capacity]
    if path != "default" and any(v > 0 and w > 0 for v, w in fits) and \
            max(sum(v for v, _ in fits), sum(w for _, w in fits)) < 2 ** 52:
        assert codes and codes[0] != _knapsack._kernel().FALLBACK
    assert entry.value == int_brute_force(list(map(int, values)), list(map(int, weights)), capacity)
    assert entry.weight <= capacity


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_entry_is_the_general_path_on_larger_knapsacks(data):
    """21 to 300 items with many ties (small numbers) or large ones, zero values and weights, items
    that do not fit, tight or loose capacities; through the relaxation and pairing or not."""
    p, w, c = data.draw(knapsack_arrays(300, (1, 1, 997, 2 ** 30 + 3, 2 ** 40), 0, (0, 11)))
    path = data.draw(st.sampled_from(sorted(LIMITS)))
    assert_same(*answers(path, p, w, c))


@pytest.mark.parametrize("kind", sorted(KNAPSACK_CLASSES))
@pytest.mark.parametrize("n, R", [(1000, 1000), (300, 10 ** 7)])
@pytest.mark.parametrize("options", [{}, {"time_limit_s": 600.0, "memory_limit_mb": None}])
def test_entry_is_the_general_path_on_the_classic_classes(kind, n, R, options):
    values, weights, capacity = knapsack_instance(kind, n=n, R=R, rng=np.random.default_rng(R + n))
    codes = []
    entry, general = answers("default", values, weights, int(capacity), codes, **options)
    assert_same(entry, general)
    nbk = _knapsack._kernel()
    # (a time limit: the kernel returns after a budget of states to let Python read the clock)
    assert entry.optimal and codes[0] in (nbk.DONE, nbk.RELAX, nbk.BUDGET)


def test_entry_resumes_a_search_the_memory_limit_stops():
    """The compiled entry hands an unfinished search back to Python: with a tiny memory limit the
    same feasible answer and bound as the general path, status time_limit."""
    values, weights, capacity = knapsack_instance("strongly_correlated", n=500, R=10 ** 4,
                                                  rng=np.random.default_rng(4))
    codes = []
    entry, general = answers("default", values, weights, int(capacity), codes, memory_limit_mb=0.01)
    assert_same(entry, general)
    assert codes == [_knapsack._kernel().MEMORY]
    assert entry.status is Status.TIME_LIMIT and entry.weight <= capacity and entry.bound >= entry.value


BIG = 2 ** 62


@pytest.mark.parametrize("values, weights, capacity, error, match, options", [(*case, {})[:6] for case in [
    ([1] * 24 + [-2], [1] * 25, 3, ValueError, r"values\[24\] must be >= 0; got -2"),
    ([1] * 25, [1] * 22 + [-5, 1, 1], 3, ValueError, r"weights\[22\] must be >= 0; got -5"),
    ([1] * 24 + [BIG + 1], [1] * 25, 3, ValueError, r"values\[24\] must be at most 2\^62 = 4611686018427387904; "
                                                    r"got 4611686018427387905"),
    ([1] * 25, [BIG + 7] + [1] * 24, 3, ValueError, r"weights\[0\] must be at most 2\^62"),
    ([2 ** 61, 2 ** 61] + [1] * 23, [1] * 25, 30, ValueError,
     r"the values of the items \(times the copies that fit\) sum to 4611686018427387927 > 2\^62"),
    ([1] * 25, [2 ** 61, 2 ** 61] + [1] * 23, 2 ** 70, ValueError,
     r"the weights of the items \(times the copies that fit\) sum to 4611686018427387927 > 2\^62"),
    ([1] * 25, [1] * 24, 3, ValueError, r"values has 25 entries but weights has 24"),
    ([1] * 25, [1] * 25, -1, ValueError, r"capacity must be >= 0; got -1"),
    ([1] * 25, [1] * 25, 2.5, ValueError, r"capacity must be an integer.*2\.5"),
    ([1] * 25, [1] * 25, 3, ValueError, r"time_limit_s must be a number > 0 \(seconds\); got 0", {"time_limit_s": 0}),
    ([-1] * 25, [1] * 25, 3, TypeError, r"time_limit_s must be a number", {"time_limit_s": "1"}),
    ([1] * 25, [1] * 25, 3, ValueError, r"memory_limit_mb must be", {"memory_limit_mb": -1}),
]])
@pytest.mark.parametrize("as_array", [True, False])
def test_entry_raises_the_general_paths_errors(values, weights, capacity, error, match, options, as_array):
    if as_array:
        values, weights = np.array(values, dtype=np.int64), np.array(weights, dtype=np.int64)
    with pytest.raises(error, match=match) as got:
        solve_knapsack(values, weights, capacity, **options)
    with mock.patch.object(knapsack, "_solve_compiled", lambda *a: None):
        with pytest.raises(error) as ref:
            solve_knapsack(values, weights, capacity, **options)
    assert str(got.value) == str(ref.value)


def test_entry_does_not_change_its_input():
    values, weights, capacity = knapsack_instance("weakly_correlated", n=200, R=1000, rng=np.random.default_rng(1))
    before = values.copy(), weights.copy()
    sol = solve_knapsack(values, weights, capacity)
    assert sol.optimal and np.array_equal(values, before[0]) and np.array_equal(weights, before[1])
    assert not np.shares_memory(sol.x, values)
    # Read-only and strided arrays: the same answer (copied for the kernel).
    ro_v, ro_w = values.copy(), weights.copy()
    ro_v.setflags(write=False)
    ro_w.setflags(write=False)
    again = solve_knapsack(ro_v, ro_w, capacity)
    assert again.x.tolist() == sol.x.tolist() and again.bound == sol.bound
    strided = solve_knapsack(np.repeat(values, 2)[::2], np.repeat(weights, 2)[::2], capacity)
    assert strided.x.tolist() == sol.x.tolist()


@given(st.lists(st.one_of(st.sampled_from([0.0, -0.0, 1.0, 0.5, 1e300, 2.0 ** -1074]),
                          st.floats(0, 1e300, allow_nan=False)), max_size=300),
       st.integers(0, 2 ** 32 - 1))
def test_radix_order_is_the_stable_argsort(values, seed):
    """The free items' order by decreasing efficiency (a radix sort) is numpy's stable argsort, ties
    (and -0.0 against 0.0) by position."""
    e = np.array(values, dtype=float)
    F = np.flatnonzero(np.random.default_rng(seed).random(e.size) < 0.8)
    got = _knapsack._kernel().by_efficiency(e, F)
    assert got.tolist() == F[np.argsort(-e[F], kind="stable")].tolist()


class _Started(Exception):
    """Raised in place of the search's first run: the start state is built."""


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 120), st.sampled_from([1, 2, 3, 6, 1024]), st.sampled_from([1.0, 0.5, 2.0 ** 40]),
       st.integers(1, 9), st.integers(0, 2 ** 32 - 1))
def test_start_free_builds_the_start_state_of_the_python_path(n, g, unit, tenths, seed):
    """The compiled start (``start_free``) builds, array for array, the state the Python glue builds
    (``_start_state``) on the same items: the free items, the break item, the incumbent and bound, and
    whether the capacity is rounded to the free items' divisor (``ist[I_DIV]``, from ``zst[WB]``, the
    break weight) -- on integer weights sharing a divisor, on half-integers, and on a grid whose
    capacity is beyond 2^53 (not rounded)."""
    nbk = _knapsack._kernel()
    rng = np.random.default_rng(seed)
    w = (rng.integers(1, 50, n) * g).astype(float) * unit
    p = np.where(rng.random(n) < 0.5, rng.integers(1, 1000, n), w / unit + 7).astype(float)
    e = np.minimum(p / w, _knapsack._MAX_EFFICIENCY)
    capacity = float(np.floor(w.sum() / unit * tenths / 10)) * unit
    r = nbk.start_free(p, w, e, capacity, unit, -1, -1, False, _knapsack._MIN_RELAX, _knapsack._MIN_PAIRING,
                       -np.inf, nbk.take_spare())
    assert r[0] != nbk.FALLBACK
    if r[0] == nbk.DONE:   # everything fits, or a greedy solution reaches the bound: no search
        take, value = r[1], r[2]
        assert w.sum() <= capacity or (value == r[4] and w[take].sum() <= capacity and p[take].sum() == value)
    else:
        built = {}
        start_state = nbk._start_state

        def spy(pF, wF, fbF, cap, b, *rest):
            built.update(pF=pF, wF=wF, fbF=fbF, b=b, state=[a.copy() for a in start_state(pF, wF, fbF, cap, b, *rest)])
            raise _Started

        def fallback(*args):
            return (nbk.FALLBACK,)
        with mock.patch.object(nbk, "start_free", fallback), mock.patch.object(nbk, "_start_state", spy):
            with pytest.raises(_Started):
                nbk.search_free(p, w, e, capacity, None, None, False, lambda z, room: (np.inf, z, None), unit)
        F, b, fbF = r[5], r[8], r[9]
        assert np.array_equal(p[F], built["pF"]) and np.array_equal(w[F], built["wF"]) and b == built["b"]
        assert np.array_equal(fbF, built["fbF"])
        names = ["W", "P", "anc", "bits", "items", "hist_anc", "hist_bits", "hist_off", "ist", "zst", "zbits"]
        ist, zst = r[18], r[19]
        if ist[nbk.I_ZKIND] == 2:   # a greedy incumbent (the glue marks it after the start state)
            gtake = r[21]
            assert p[gtake].sum() == zst[nbk.Z] > p[r[6]].sum() and w[gtake].sum() <= capacity
            built["state"][8][nbk.I_ZKIND] = 2
        for name, got, want in zip(names, r[10:21], built["state"], strict=True):
            assert got.dtype == want.dtype and got.shape == want.shape, name
            if name not in ("items", "hist_anc", "hist_bits"):   # (buffers not yet written)
                assert np.array_equal(got, want), (name, got, want)
        assert zst[nbk.WB] == r[10][0] and zst.size == 4
        # Rounded exactly when every sum is an exact integer: the items free at the start (all of F).
        assert ist[nbk.I_DIV] == (capacity < 2.0 ** 53 and zst[nbk.WB] % 1 == 0 and bool(np.all(w[F] % 1 == 0)))
