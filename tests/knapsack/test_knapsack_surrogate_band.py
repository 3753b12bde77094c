"""The surrogate multiplier's bisection with guessed break efficiencies against the same bisection
over the full surrogate bound: a bound computed in one pass over the items, with the break item's
efficiency guessed in a band, is either refused or the bound over every item, on data made to fool
the guess (efficiencies tied in large groups, equal weights, zero profits and weights, multipliers
that make surrogate weights zero or negative, a handful of items)."""
import numpy as np
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from subsel.knapsack import _knapsack_core as core

#: The shapes of data the guesses are tried on.
KINDS = ["random", "ties", "equal_weights", "zero_weights", "strongly", "inverse", "zero_profits"]


def items(kind, n, R, rng):
    """Profits and weights (int64) of ``n`` items of the shape ``kind``, coefficients up to ``R``."""
    w = rng.integers(1, R + 1, n)
    if kind == "random":
        p = rng.integers(1, R + 1, n)
    elif kind == "ties":                    # a few efficiencies, each shared by many items
        w = rng.integers(1, max(R // 4, 1) + 1, n)
        p = w * rng.integers(1, 5, n)
    elif kind == "equal_weights":
        w = np.full(n, max(R // 2, 1))
        p = rng.integers(1, 4, n)
    elif kind == "zero_weights":
        w = np.where(rng.random(n) < 0.3, 0, w)
        p = rng.integers(0, R + 1, n)
    elif kind == "strongly":
        p = w + max(R // 10, 1)
    elif kind == "inverse":
        p = rng.integers(1, R + 1, n)
        w = p + max(R // 10, 1)
    else:                                   # zero_profits
        p = np.where(rng.random(n) < 0.5, 0, rng.integers(1, R + 1, n))
    return p.astype(np.int64), w.astype(np.int64)


def bisection(bound, k_lo, k_hi):
    """The surrogate multiplier's bisection (Martello, Pisinger, Toth 1999, Section 3) over the bounds
    ``bound(k) = (u0, u1)``: the least bound met and its ``k``."""
    best_u, best_k = np.inf, 0
    while k_lo <= k_hi:
        k = (k_lo + k_hi) // 2
        u0, u1 = bound(k)
        if u0 < best_u:
            best_u, best_k = u0, k
        if u1 > u0:
            k_hi = k - 1
        else:
            k_lo = k + 1
    return best_u, best_k


def full_bisection(p, w, c, card, k_lo, k_hi, unit):
    """The bisection with the full surrogate bound at every step (the reference)."""
    return bisection(lambda k: core.surrogate_bound(p, w, c, p.dtype.type(k) * unit, card, unit)[:2], k_lo, k_hi)


def data(kind, n, R, seed, in_order, floats):
    """The items (in the order of decreasing efficiency, as the relaxation passes them, or not),
    their capacity and the cardinality of the break solution."""
    rng = np.random.default_rng(seed)
    p, w = items(kind, n, R, rng)
    if in_order:
        e = np.divide(p, w, out=np.full(n, np.inf), where=w > 0)
        order = np.argsort(-e, kind="stable")
        p, w = p[order], w[order]
    c = int(rng.integers(0, int(w.sum()) + 1))
    b = int(np.searchsorted(np.cumsum(w), c, side="right"))
    if floats:
        return p.astype(float), w.astype(float), float(c), b
    return p, w, c, b


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(KINDS), st.integers(1, 600), st.sampled_from([1, 3, 10, 1000]), st.integers(0, 2 ** 32 - 1),
       st.booleans(), st.booleans(), st.integers(-1, 2), st.sampled_from([1, 2, 5]))
@example(kind="ties", n=500, R=1000, seed=1, in_order=True, floats=False, dcard=0, unit=1)
@example(kind="strongly", n=600, R=1000, seed=2, in_order=True, floats=True, dcard=1, unit=1)
def test_multiplier_search_is_the_bisection_on_the_full_bound(kind, n, R, seed, in_order, floats, dcard, unit):
    """The multiplier and its bound are those of the bisection that computes every bound over
    every item, for the cardinalities around the break solution's and multipliers of both signs."""
    p, w, c, b = data(kind, n, R, seed, in_order, floats)
    card = max(b + dcard, 0)
    top = int(w.max()) // unit + 1
    dt = p.dtype.type
    for k_lo, k_hi in ((0, top), (-top, 0), (-top, top)):
        want = full_bisection(p, w, dt(c), card, k_lo, k_hi, dt(unit))
        assert core.surrogate_multiplier(p, w, dt(c), card, k_lo, k_hi, dt(unit)) == want
        assert core.surrogate_multiplier(p, w, dt(c), card, k_lo, k_hi, dt(unit), False, False) == want


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(KINDS), st.integers(1, 400), st.sampled_from([1, 3, 10, 1000]), st.integers(0, 2 ** 32 - 1),
       st.booleans(), st.booleans(), st.floats(-1.0, 1.0), st.integers(0, 2 ** 32 - 1))
@example(kind="ties", n=300, R=1000, seed=3, in_order=True, floats=False, rel_s=0.0, guess=5)
@example(kind="equal_weights", n=200, R=10, seed=4, in_order=False, floats=True, rel_s=0.3, guess=6)
def test_guessed_bound_is_refused_or_the_full_bound(kind, n, R, seed, in_order, floats, rel_s, guess):
    """A bound with a guessed band of break efficiencies (the efficiencies of items at ``s``, their
    neighbours', or around them, ties included) is the full bound whenever it is not refused, and
    the band of the true break item's efficiency alone is never refused."""
    p, w, c, b = data(kind, n, R, seed, in_order, floats)
    dt = p.dtype.type
    s = dt(int(rel_s * int(w.max())))
    card = b + int(s < 0)
    want = core.surrogate_bound(p, w, dt(c), s, card, dt(1))
    ws = w + s
    live = ws > 0
    assume(live.any())
    e = p[live] / ws[live]
    keys = np.unique(e)
    rng = np.random.default_rng(guess)
    for _ in range(12):
        a, z = np.sort(rng.choice(keys, 2))
        wide = rng.random() < 0.3
        t_lo, t_hi = (np.nextafter(a, -np.inf), np.nextafter(z, np.inf)) if wide else (a, z)
        got = core.surrogate_bound_band(p, w, dt(c), s, card, dt(1), float(t_lo), float(t_hi))
        assert got is None or got == want
    # The break item's efficiency, from the stable order over every item: a band of it holds the break.
    cs = c + s * card - ws[~live].sum()
    order = np.argsort(-e, kind="stable")
    j = int(np.searchsorted(np.cumsum(ws[live][order]), cs, side="right"))
    assume(cs >= 0 and j < order.size)
    eb = float(e[order[j]])
    assert core.surrogate_bound_band(p, w, dt(c), s, card, dt(1), eb, eb) == want
