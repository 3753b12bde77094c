"""The work-saving parts of the compiled knapsack core search against an exact reference: the
capacity rounded to the free items' weight divisor, the one-pass
core step of the kernel, the pairing schedule and the selection pivots (sorted, reversed and tied
input), on small instances of every published class, with ties, zero weights and huge coefficients."""
from unittest import mock

import numpy as np
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from subsel.knapsack import _knapsack, _knapsack_search
from subsel.knapsack import _knapsack_core as core
from subsel.models import HARD_KNAPSACK_CLASSES, KNAPSACK_CLASSES, knapsack_instance
from tests.knapsack.test_knapsack_surrogate_band import bisection

#: (most items enumerated, enumerated directly, relaxation threshold, pairing threshold): the
#: dynamic program answers every size; "dp-relax" runs the relaxation and the pairing at once.
PATHS = {"dp": (0, 0, _knapsack._MIN_RELAX, _knapsack._MIN_PAIRING), "dp-relax": (0, 0, 0, 0),
         "dp-pair": (0, 0, _knapsack._MIN_RELAX, 256)}


def cores(p, w, c, path):
    """The compiled search's answer on these limits."""
    most, direct, relax, pairing = PATHS[path]
    with mock.patch.object(_knapsack, "_MAX_ENUMERATE", most), \
            mock.patch.object(_knapsack, "_DIRECT_ENUMERATE", direct), \
            mock.patch.object(_knapsack, "_MIN_RELAX", relax), \
            mock.patch.object(_knapsack, "_MIN_PAIRING", pairing):
        return _knapsack.solve_core(p, w, c)


def sorted_dantzig(p, w, c, step=0.0, grow=0):
    """The Dantzig bound by the textbook sorted computation (Martello and Toth 1990, Section 2.2.1:
    a stable sort by decreasing ``p / w``, a cumulative sum, numpy's sums), and its estimate at
    weights ``+ step``, capacity ``+ grow * step``: the reference of the compiled selections."""
    order = np.argsort(-(p / w), kind="stable")
    cw = np.cumsum(w[order])
    b = int(np.searchsorted(cw, c, side="right"))
    pb = float(p[order[:b]].sum())
    if b == p.size:
        return pb, pb
    r = c - (float(cw[b - 1]) if b else 0.0)
    j = order[b]
    pj, wj = float(p[j]), float(w[j])
    return pb + r * pj / wj, pb + max(r + (grow - b) * step, 0.0) * pj / (wj + step)


def sorted_surrogate_bound(p, w, c, s, card, step=0.0):
    """The surrogate problem's Dantzig bound (``sum (w_j + s) y_j <= c + s card``, items of surrogate
    weight ``<= 0`` always taken) and its estimate at ``s + step``, by :func:`sorted_dantzig`."""
    ws = w + s
    always = ws <= 0
    cs = c + s * card - ws[always].sum().item()
    p0 = p[always].sum().item()
    if cs < 0:
        return -np.inf, -np.inf
    if always.all():
        return p0, p0
    u, u_next = sorted_dantzig(p[~always], ws[~always], cs, step, card - int(always.sum()))
    return p0 + u, p0 + u_next


def optimum(values, weights, capacity) -> int:
    """The optimum by the textbook dynamic program over Pareto states (Python ints, exact)."""
    states = {0: 0}                                     # weight -> best value
    for v, wt in zip(values, weights):
        for W, P in list(states.items()):
            if W + wt <= capacity and states.get(W + wt, -1) < P + v:
                states[W + wt] = P + v
    return max(states.values())


def check(p, w, c, path):
    """Optimal, feasible and equal to the reference."""
    kern = cores(p, w, c, path)
    assert kern.optimal and kern.bound == kern.value
    pi, wi = [int(a) for a in p], [int(a) for a in w]
    taken = np.flatnonzero(kern.take)
    assert sum(wi[j] for j in taken) <= int(c)
    assert sum(pi[j] for j in taken) == int(kern.value) == optimum(pi, wi, int(c))


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KNAPSACK_CLASSES + HARD_KNAPSACK_CLASSES), n=st.integers(2, 40),
       R=st.sampled_from([10, 100, 1000]), seed=st.integers(0, 2 ** 32 - 1),
       fraction=st.sampled_from([0.1, 0.5, 0.9]), path=st.sampled_from(sorted(PATHS)),
       huge=st.booleans())
def test_every_class_kernel_is_the_numpy_loop_and_optimal(kind, n, R, seed, fraction, path, huge):
    p, w, c = knapsack_instance(kind, n, R, np.random.default_rng(seed), fraction)
    if huge:   # scaled beyond float64 (int64 state lists), one unit added to some weights
        K = 2 ** 60 // int(max(p.sum(), w.sum(), 1)) | 1
        bump = np.random.default_rng(seed + 1).integers(0, 2, n)
        p, w, c = p * K, w * K + bump, int(c) * K
        check(p, w, c, path)
    else:
        check(p.astype(float), w.astype(float), float(c), path)
        check(p, w, int(c), path)


@settings(max_examples=60, deadline=None)
@given(g=st.sampled_from([2, 3, 6, 1024, 3 ** 30]), m=st.integers(21, 60), seed=st.integers(0, 2 ** 32 - 1),
       fixed=st.integers(0, 5), path=st.sampled_from(sorted(PATHS)), ints=st.booleans())
@example(g=2, m=21, seed=0, fixed=3, path="dp", ints=True)
def test_divisor_of_the_free_items_with_fixed_items_off_the_grid(g, m, seed, fixed, path, ints):
    """Items of one efficiency whose weights share the divisor ``g`` (every state stays alive without
    the rounded capacity), a few very efficient items of weight ``1 mod g`` that the reduction fixes
    in the knapsack (so the break weight is off the grid), and capacities a unit either side."""
    rng = np.random.default_rng(seed)
    k = rng.integers(1, 11, m)
    w = np.concatenate((k * g, g * rng.integers(1, 4, fixed) + 1))
    p = np.concatenate((k * 7, 100 * g * np.ones(fixed, dtype=np.int64)))
    c = int(w[m:].sum()) + int(k.sum()) * g // 2 + int(rng.integers(-1, 2))
    if float(p.sum()) >= 2.0 ** 52 or float(w.sum()) >= 2.0 ** 52:
        ints = True
    check(p if ints else p.astype(float), w if ints else w.astype(float), c if ints else float(c), path)


@given(st.lists(st.integers(0, 60), min_size=1, max_size=12), st.integers(0, 10 ** 4), st.integers(0, 10 ** 4),
       st.booleans())
@example([4, 6, 0], 17, 3, True)
@example([0, 0], 9, 2, False)
def test_free_capacity_is_the_largest_reachable_capacity(weights, capacity, Wb, floats):
    """The core search's rounding returns the largest value ``<= capacity`` congruent to ``Wb`` modulo the
    divisor of the weights (the capacity itself when the divisor is 0 or 1), computed by search."""
    Wb = min(Wb, capacity)
    w = np.array(weights, dtype=float if floats else np.int64)
    idx = np.arange(w.size)
    g = int(np.gcd.reduce(np.array(weights)))
    expected = capacity if g <= 1 else max(x for x in range(Wb, capacity + 1) if (x - Wb) % g == 0)
    c = float(capacity) if floats else capacity
    Wbv = float(Wb) if floats else Wb
    assert core.free_capacity(c, Wbv, w, idx) == expected


def test_divisibility_needs_integer_free_weights_and_break_weight():
    w = np.array([2.0, 4.0, 6.0])
    assert _knapsack.divisible(w, 100.0, 3.0)
    assert not _knapsack.divisible(np.array([2.0, 4.5]), 100.0, 3.0)
    assert not _knapsack.divisible(w, 100.0, 2.5)
    assert not _knapsack.divisible(w, 2.0 ** 53, 3.0)
    assert _knapsack.divisible(np.array([3, 5], dtype=np.int64), 2 ** 61, 7)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 3000), ties=st.sampled_from([2, 50, 10 ** 6]), seed=st.integers(0, 2 ** 32 - 1),
       layout=st.sampled_from(["sorted", "reversed", "random"]), frac=st.floats(0.0, 1.0))
def test_selections_on_sorted_reversed_and_tied_input(n, ties, seed, layout, frac):
    """The break item and counts by selection equal the sorted computations on the inputs where
    a fixed pivot position degenerates (sorted and rotated lists, many equal keys)."""
    rng = np.random.default_rng(seed)
    w = rng.integers(1, ties + 1, n).astype(float)
    p = w + float(ties // 10 + 1)
    order = np.argsort(-(p / w), kind="stable")
    if layout == "reversed":
        order = order[::-1]
    elif layout == "random":
        order = rng.permutation(n)
    p, w = p[order].copy(), w[order].copy()
    c = float(np.floor(frac * w.sum()))
    assert core.dantzig(p, w, c, 1.0, 3) == sorted_dantzig(p, w, c, 1.0, 3)
    for a, cap in ((w, c), (p, float(np.floor(frac * p.sum())))):
        for largest in (False, True):
            ref = np.searchsorted(np.cumsum(np.sort(a)[::-1] if largest else np.sort(a)), cap, side="right")
            assert core.count_fit(a, cap, largest) == ref
    before, brk = core.break_solution(p / w, w, c)
    cw = np.cumsum(w[np.argsort(-(p / w), kind="stable")])
    b = int(np.searchsorted(cw, c, side="right"))
    assert int(before.sum()) == b and (brk < 0) == (b == n)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(0, 5000), spread=st.sampled_from([1, 3, 1000, 10 ** 6, 2 ** 40]),
       zeros=st.floats(0.0, 0.3), seed=st.integers(0, 2 ** 32 - 1), frac=st.floats(0.0, 1.05))
@example(n=1, spread=1, zeros=0.0, seed=0, frac=0.5)
@example(n=3000, spread=1, zeros=0.0, seed=1, frac=0.5)
def test_break_by_ranges_of_efficiency_is_the_sorted_break(n, spread, zeros, seed, frac):
    """The break solution by a histogram over ranges of efficiency (``break_split``) against the
    stable sort by decreasing efficiency: the same items before the break item, the same break item,
    sums and neighbours, with many equal efficiencies, zero weights and values (efficiency at its
    cap or 0) and efficiencies from 2^-40 to 2^40."""
    rng = np.random.default_rng(seed)
    w = rng.integers(1, spread + 1, n).astype(float)
    p = rng.integers(1, spread + 1, n).astype(float)
    w[rng.random(n) < zeros] = 0.0
    p[rng.random(n) < zeros] = 0.0
    e = np.where(w > 0, np.minimum(p / np.where(w > 0, w, 1.0), _knapsack._MAX_EFFICIENCY),
                 _knapsack._MAX_EFFICIENCY)
    c = float(np.floor(frac * w.sum()))
    order = np.argsort(-e, kind="stable")
    b = int(np.searchsorted(np.cumsum(w[order]), c, side="right"))
    before, brk, Pb, Wb, a, k = core.break_split(p, w, e, c)
    want = np.zeros(n, dtype=bool)
    want[order[:b]] = True
    assert before.tolist() == (want | (b == n)).tolist()
    if b == n:
        assert brk == -1 and Pb == p.sum() and Wb == w.sum()
    else:
        assert brk == order[b] and Pb == p[order[:b]].sum() and Wb == w[order[:b]].sum()
        assert a == (order[b - 1] if b > 0 else -1) and k == (order[b + 1] if b + 1 < n else -1)
        assert core.break_solution(e, w, c)[1] == brk



@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 60)), min_size=1, max_size=40),
       st.floats(0.0, 1.0), st.integers(-70, 70), st.integers(0, 40), st.integers(1, 8), st.booleans())
def test_compiled_surrogate_bound_is_the_sorted_one(items, frac, s, card, step, ints):
    """The compiled Dantzig bound of the surrogate problem (and its estimate one step on) against
    the sorted computation, with multipliers that make some or all surrogate weights <= 0 (always
    taken), ties in efficiency, and int64 or float64 integers."""
    dtype = np.int64 if ints else float
    p = np.array([a for a, _ in items], dtype=dtype)
    w = np.array([b for _, b in items], dtype=dtype)
    c = dtype(int(frac * int(w.sum())))
    got = core.surrogate_bound(p, w, c, dtype(s), card, dtype(step))
    assert got[:2] == sorted_surrogate_bound(p, w, c, dtype(s), card, dtype(step))
    assert got[2] == bool((w + s <= 0).all() and c + s * card - (w + s).sum() >= 0)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 400), st.floats(0.0, 1.0), st.floats(-1.2, 1.2), st.integers(0, 400), st.booleans(),
       st.integers(0, 2 ** 32 - 1))
@example(n=300, frac=0.5, rel_s=0.5, card=150, ties=True, seed=0)
def test_compiled_surrogate_bound_of_real_data_is_the_sorted_one(n, frac, rel_s, card, ties, seed):
    """On real-valued data the compiled surrogate bound is the sorted computation's float for float
    (numpy's pairwise sums of the items before the break item and of those always taken), with
    efficiencies tied or spread over magnitudes, beyond the 128 entries of a pairwise block."""
    rng = np.random.default_rng(seed)
    w = rng.random(n) * 10.0 ** rng.integers(-3, 4, n)
    p = w * (2.0 if ties else 1.0 + rng.random(n))
    c = float(frac * w.sum())
    s = rel_s * float(w.max())
    step = float(w.max()) * 2.0 ** -30
    got = core.surrogate_bound(p, w, c, s, card, step, True)
    assert got[:2] == sorted_surrogate_bound(p, w, c, s, card, step) and got[2] is False


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 2 ** 32 - 1))
def test_pairwise_sum_is_numpys_sum(n, seed):
    """The compiled pairwise sum adds in numpy's order: the same float as ``a.sum()``."""
    rng = np.random.default_rng(seed)
    a = rng.random(n) * 10.0 ** rng.integers(-8, 9, n) * rng.choice([-1.0, 1.0], n)
    assert core.pairwise_sum(a) == a.sum()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 60)), min_size=1, max_size=40),
       st.floats(0.0, 1.0), st.integers(0, 40), st.integers(-70, 0), st.integers(0, 70), st.booleans(),
       st.booleans())
def test_compiled_multiplier_search_is_the_bisection_on_the_sorted_bound(items, frac, card, k_lo, k_hi, ints, real):
    """The surrogate multiplier's bisection in one compiled call against the same steps in Python on
    the sorted bound (on integers, and on the same data perturbed into real values)."""
    dtype = np.int64 if ints and not real else float
    p = np.array([a for a, _ in items], dtype=dtype)
    w = np.array([b for _, b in items], dtype=dtype)
    if real:
        p = p * (1.0 + np.arange(p.size) * 1e-7)
        w = w * (1.0 - np.arange(w.size) * 1e-7)
    c = dtype(int(frac * int(w.sum())))
    unit = dtype(1)
    want = bisection(lambda k: sorted_surrogate_bound(p, w, c, dtype(k) * unit, card, unit), k_lo, k_hi)
    assert core.surrogate_multiplier(p, w, c, card, k_lo, k_hi, unit, real) == want


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["strongly_correlated", "almost_strongly_correlated", "inverse_strongly_correlated",
                        "subset_sum", "uncorrelated"]),
       st.integers(25, 300), st.sampled_from([10, 100, 1000]), st.integers(0, 2 ** 16), st.floats(0.0, 1.0),
       st.sampled_from([2, 4, 8]), st.sampled_from([None, 0, 10 ** 5]))
def test_compiled_relaxation_is_the_python_glue(kind, n, R, seed, where, scale, room):
    """The surrogate relaxation in one compiled call (the order, the cardinality bounds, the
    multipliers, each surrogate knapsack prepared and solved) against the Python glue on the
    compiled parts, for incumbents between the break solution and the Dantzig bound, weights on a
    power-of-two grid and memory limits: the same bound, value and items, or a hand-back."""
    p, w, c = knapsack_instance(kind, n, R, np.random.default_rng(seed))
    p, w = p.astype(float), w.astype(float) * scale
    capacity = float(c) * scale
    e = np.minimum(p / w, _knapsack._MAX_EFFICIENCY)
    unit = _knapsack._weight_grid(w)
    order = np.argsort(-e, kind="stable")
    b = int(np.searchsorted(np.cumsum(w[order]), capacity, side="right"))
    assume(b < n)  # a break item exists (not everything fits)
    Pb = float(p[order[:b]].sum())
    lp = Pb + (capacity - float(w[order[:b]].sum())) * float(e[order[b]])
    z = float(np.floor(Pb + where * (lp - Pb)))
    relax = _knapsack.relax_in_order(p, w, e, capacity, unit, None)
    got = relax(z, room)
    with mock.patch.object(_knapsack_search, "relax_free", lambda *a: (False, 0.0, a[5], False, None, a[-1])):
        want = relax(z, room)
    assert got[0] == want[0] and got[1] == want[1]
    assert (got[2] is None) == (want[2] is None)
    if got[2] is not None:
        assert got[2].tolist() == want[2].tolist()
        assert float(w[got[2]].sum()) <= capacity and float(p[got[2]].sum()) == got[1]
