"""Combo's greedy solutions around the break item, which start the knapsack search: the numpy version
(items in efficiency order) against the compiled one (items in any order), both against the
solutions' definition, and the search's answer with them against brute force and across paths."""
import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subsel import solve_knapsack
from subsel.knapsack import _knapsack
from subsel.knapsack import _knapsack_core as core
from subsel.models import knapsack_instance


def sorted_start(p, w, c):
    """Items in the stable order by decreasing efficiency, the break item and the break solution."""
    e = np.minimum(p / w, _knapsack._MAX_EFFICIENCY)
    order = np.argsort(-e, kind="stable")
    cw = np.cumsum(w[order])
    b = int(np.searchsorted(cw, c, side="right"))
    return e, order, b


def definition(p, w, c, order, b):
    """The four greedy solutions spelled out on the sorted items (every candidate listed, the first
    best kept): the value of the best and its items."""
    ps, ws = p[order], w[order]
    m = p.size
    base = set(range(b))
    Pb, Wb = int(ps[:b].sum()), int(ws[:b].sum())
    best, chosen = Pb, base
    candidates = []
    if b >= 1:
        candidates.append([base - {b - 1} | {j} for j in range(b, m)])
    candidates.append([base | {j} for j in range(b + 1, m)])
    candidates.append([base - {q} | {b} for q in range(b)])
    if b + 1 < m:
        candidates.append([base - {q} | {b, b + 1} for q in range(b)])
    for group in candidates:
        fits = [s for s in group if sum(int(ws[k]) for k in s) <= c]
        if not fits:
            continue
        # The rule: most profitable added item / least profitable removed one, the first in order.
        val = max(sum(int(ps[k]) for k in s) for s in fits)
        first = next(s for s in fits if sum(int(ps[k]) for k in s) == val)
        if val > best:
            best, chosen = val, first
    take = np.zeros(m, dtype=bool)
    take[order[sorted(chosen)]] = True
    return best, take, Pb, Wb


instances = st.integers(2, 30).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 60), min_size=n, max_size=n),
    st.lists(st.integers(1, 60), min_size=n, max_size=n),
    st.floats(0.05, 0.95)))


@settings(max_examples=300, deadline=None)
@given(instances)
def test_greedy_solutions_match_their_definition_on_both_paths(data):
    """Ties are frequent (values and weights up to 60): the numpy and compiled versions pick the same
    items, and those of the definition."""
    pl, wl, frac = data
    p, w = np.array(pl, dtype=float), np.array(wl, dtype=float)
    c = float(int(frac * w.sum()))
    e, order, b = sorted_start(p, w, c)
    assume(b < p.size)  # a break item exists (not everything fits)
    want, want_take, Pb, Wb = definition(p, w, c, order, b)
    z, flips = _knapsack.greedy_start(p[order], w[order], b, float(Pb), float(Wb), c)
    take = np.zeros(p.size, dtype=bool)
    take[order[:b]] = True
    take[order[list(flips)]] ^= True
    assert z == want
    assert (take == want_take).all() or z == Pb
    assert float(w[take].sum()) <= c and float(p[take].sum()) == z
    before = np.zeros(p.size, dtype=bool)
    before[order[:b]] = True
    z_core, take_core = core.greedy_free(p, w, e, before, int(order[b]), float(Pb), float(Wb), c)
    assert z_core == z
    assert (take_core == take).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=16), st.floats(0, 1))
def test_searches_started_by_greedy_solutions_stay_exact(items, frac):
    """Brute force over every subset, with zero weights and profits."""
    p = np.array([a for a, _ in items], dtype=float)
    w = np.array([b for _, b in items], dtype=float)
    c = float(int(frac * w.sum()))
    best = max(sum(p[list(s)]) for r in range(len(items) + 1) for s in itertools.combinations(range(len(items)), r)
               if sum(w[list(s)]) <= c)
    orig = _knapsack._MAX_ENUMERATE
    try:
        _knapsack._MAX_ENUMERATE = 0
        a = _knapsack.solve_core(p, w, c)
    finally:
        _knapsack._MAX_ENUMERATE = orig
    assert a.optimal and a.value == best and float(p[a.take].sum()) == best and float(w[a.take].sum()) <= c


@pytest.mark.parametrize("n", [1000, 10000])
def test_a_greedy_solution_at_the_dantzig_bound_ends_the_search_before_any_core_step(n):
    """Subset sum instances: a greedy solution fills the knapsack exactly, so no core item is needed."""
    hits = 0
    for seed in range(4):
        p, w, c = knapsack_instance("subset_sum", n, 1000, np.random.default_rng(seed))
        sol = solve_knapsack(p, w, c)
        res = _knapsack.solve_core(p.astype(float), w.astype(float), float(c))
        assert sol.optimal and sol.value == res.value
        hits += sol.value == c and res.core_size == 0
    assert hits >= 2


def plain_greedy_one(p, w, e, before, brk, a, k2, Pb, Wb, capacity, lp, eb, thr):
    """``greedy_one`` spelled out on whole arrays: each greedy choice is the extreme profit among the
    items allowed, ties to the first in the stable order by decreasing ``e`` (numpy's ``lexsort``);
    the candidates are the items whose flip bound reaches ``thr``, in index order."""
    n = p.size
    pos = np.empty(n, dtype=np.int64)
    pos[np.argsort(-e, kind="stable")] = np.arange(n)
    r0 = capacity - Wb
    need1 = w[brk] - r0
    lim = r0 + w[a] if a >= 0 else -np.inf
    need2 = (w[brk] + w[k2]) - r0 if k2 >= 0 else np.inf
    idx = np.arange(n)

    def first(allowed, sign):   # the least sign * p, ties to the first in the order
        j = idx[allowed]
        return int(j[np.lexsort((pos[j], sign * p[j]))[0]]) if j.size else -1

    q1 = first(before & (w >= need1), 1.0)
    q2 = first(before & (w >= need2), 1.0)
    j2 = first(~before & (idx != brk) & (w <= r0), -1.0)
    j1 = first(~before & (w <= lim), -1.0)
    best, flips = Pb, (-1, -1, -1)
    for j, val, f in ((j1, Pb - p[a] + p[j1], (a, j1, -1)), (j2, Pb + p[j2], (j2, -1, -1)),
                      (q1, Pb + p[brk] - p[q1], (q1, brk, -1)), (q2, Pb + (p[brk] + p[k2]) - p[q2], (q2, brk, k2))):
        if j >= 0 and val > best:
            best, flips = val, f
    fb = lp - np.abs(p - eb * w)
    cand = np.flatnonzero(fb >= thr)
    return (best, *flips, cand, fb[cand])


@st.composite
def greedy_cases(draw):
    """Items with many equal profits, weights and efficiencies (or real values), a set of items
    before the break item (the break solution in the stable order, or any set), the break item and
    its neighbours, and a threshold that some flip bounds meet exactly."""
    n = draw(st.integers(2, 400))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    spread = draw(st.sampled_from([1, 2, 5, 60, 10 ** 6]))
    rng = np.random.default_rng(seed)
    p = rng.integers(1, spread + 1, n).astype(float)
    w = rng.integers(1, spread + 1, n).astype(float)
    shape = draw(st.sampled_from(["ties", "equal profits", "proportional", "real"]))
    if shape == "equal profits":
        p[:] = p[0]
    elif shape == "proportional":   # every efficiency equal
        p = 2.0 * w
    elif shape == "real":
        p, w = rng.random(n) + 0.01, rng.random(n) + 0.01
    e = p / w
    order = np.argsort(-e, kind="stable")
    if draw(st.booleans()):     # the break solution
        b = draw(st.integers(0, n - 1))
        before = np.zeros(n, dtype=bool)
        before[order[:b]] = True
        brk = int(order[b])
        a = int(order[b - 1]) if b > 0 else -1
        k2 = int(order[b + 1]) if b + 1 < n else -1
    else:                       # any set, any neighbours
        before = rng.random(n) < draw(st.floats(0.0, 1.0))
        brk = draw(st.integers(0, n - 1))
        before[brk] = False
        ins, outs = np.flatnonzero(before), np.flatnonzero(~before & (np.arange(n) != brk))
        a = int(rng.choice(ins)) if ins.size and draw(st.booleans()) else -1
        k2 = int(rng.choice(outs)) if outs.size and draw(st.booleans()) else -1
    Pb, Wb = float(p[before].sum()), float(w[before].sum())
    capacity = Wb + float(w[brk]) * draw(st.sampled_from([0.0, 0.5, 0.999]))
    eb = float(e[brk])
    lp = Pb + (capacity - Wb) * eb
    fb = lp - np.abs(p - eb * w)
    thr = draw(st.sampled_from([float(np.quantile(fb, q, method="nearest")) for q in (0.0, 0.3, 0.5, 0.9)]
                               + [np.inf, -np.inf]))
    return p, w, e, before, brk, a, k2, Pb, Wb, capacity, lp, eb, thr


@settings(max_examples=400, deadline=None)
@given(greedy_cases())
def test_greedy_one_is_the_plain_selection(case):
    """The one-pass greedy choices and flip-bound candidates of the compiled core against the same
    selections on whole arrays, with ties in profit, weight and efficiency everywhere."""
    got = core.greedy_one(*case)
    want = plain_greedy_one(*case)
    assert got[:4] == want[:4]
    assert got[4].tolist() == want[4].tolist() and got[5].tolist() == want[5].tolist()
