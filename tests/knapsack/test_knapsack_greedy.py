"""Combo's greedy solutions around the break item, which start the knapsack search: the numpy version
(items in efficiency order) against the compiled one (items in any order), both against the
solutions' definition, and the search's answer with them against brute force and across paths."""
import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subsel import solve_knapsack
from subsel.models import knapsack_instance
from subsel.solvers import _knapsack
from subsel.solvers import _knapsack_core as core


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
        a = _knapsack.solve_knapsack(p, w, c)
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
        res = _knapsack.solve_knapsack(p.astype(float), w.astype(float), float(c))
        assert sol.optimal and sol.value == res.value
        hits += sol.value == c and res.core_size == 0
    assert hits >= 2
