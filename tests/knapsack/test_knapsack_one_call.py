"""The default call of ``solve_knapsack`` runs its whole search in one compiled call (the kernel's
``solve01`` with its ``search_loop``: the core steps, combo's surrogate relaxation once the state list
passes 2,000 states, and with a time limit the clock between budgets of states).  On knapsacks that
reach the relaxation, with many ties or few, it gives the ``x``, status and bound of the general path
(the Python glue, which resumes the search from Python) and of a call with a time limit."""
from contextlib import ExitStack
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import solve_knapsack
from subsel.knapsack import _knapsack
from subsel.knapsack import solve as knapsack


def _calls(p: np.ndarray, w: np.ndarray, c: int, relaxed: list[bool]):
    """The default call (whether its search reached the relaxation appended to ``relaxed``), the
    general path, and a call with a time limit that does not strike."""
    nbk = _knapsack._kernel()
    entry = nbk.solve01

    def spy(*args):
        r = entry(*args)
        relaxed.append(bool(r[0] == nbk.DONE and r[11 + 18][nbk.I_RELAX_DONE]))
        return r
    with mock.patch.object(nbk, "solve01", spy):
        default = solve_knapsack(p, w, c)
    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(knapsack, "_solve_compiled", lambda *a: None))
        general = solve_knapsack(p, w, c)
    timed = solve_knapsack(p, w, c, time_limit_s=600.0)
    return default, general, timed


def _correlated(n: int, R: int, distinct: int, kind: str, tenths: int, rng: np.random.Generator):
    """``n`` items, weights of ``1..R``, all drawn or (``distinct`` > 0) drawn from that many values
    (many equal efficiencies: ties), values the weight plus ``R / 10`` (strongly correlated), or ``R /
    10`` less (inverse), or plus a small noise (almost strongly), the capacity ``tenths`` of the total
    weight."""
    w = rng.choice(rng.integers(1, R + 1, distinct), n) if distinct else rng.integers(1, R + 1, n)
    if kind == "strongly":
        p = w + R // 10
    elif kind == "inverse":
        p, w = w, w + R // 10
    else:
        p = w + R // 10 + rng.integers(-(R // 500), R // 500 + 1, n)
    return p.astype(np.int64), w.astype(np.int64), int(w.sum()) * tenths // 10


@st.composite
def correlated_knapsacks(draw):
    """:func:`_correlated` of 200 to 700 items, R of 10^3 or 10^4, 20 or 200 distinct weights or
    any, a capacity of two to eight tenths: most of them reach the relaxation."""
    return _correlated(draw(st.integers(200, 700)), draw(st.sampled_from([1000, 10_000])),
                       draw(st.sampled_from([0, 20, 200])), draw(st.sampled_from(["strongly", "inverse", "almost"])),
                       draw(st.integers(2, 8)), np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1))))


@settings(max_examples=150, deadline=None)
@given(correlated_knapsacks())
def test_one_compiled_call_is_the_general_path_through_the_relaxation(data):
    p, w, c = data
    relaxed: list[bool] = []
    default, general, timed = _calls(p, w, c, relaxed)
    for sol in (general, timed):
        assert sol.x.tolist() == default.x.tolist()
        assert (sol.value, sol.status, sol.bound) == (default.value, default.status, default.bound)
    assert default.optimal and int(w @ default.x) <= c


def test_the_strategy_reaches_the_relaxation():
    """(the knapsacks above do reach the relaxation inside the compiled call: most of them)"""
    relaxed: list[bool] = []
    rng = np.random.default_rng(0)
    for kind in ("strongly", "inverse", "almost"):
        for distinct in (0, 20, 200):
            _calls(*_correlated(int(rng.integers(200, 700)), 1000, distinct, kind, 5, rng), relaxed)
    assert sum(relaxed) >= 4


@given(st.lists(st.sampled_from([0.0, -0.0, 0.5, 1.0, 1.0 + 2 ** -52, 3.0, 1e300]), min_size=0, max_size=60),
       st.data())
def test_the_relaxation_order_merges_the_free_items_sorted_before(e, data):
    """The relaxation's efficiency order (the kernel's ``merged_order``: the items the search sorted
    already, the others sorted and merged in) is ``np.argsort(-e, kind="stable")``, ties by index."""
    e = np.array(e, dtype=float)
    nbk = _knapsack._kernel()
    F = np.flatnonzero(np.array(data.draw(st.lists(st.booleans(), min_size=e.size, max_size=e.size)), dtype=bool))
    F = nbk.by_efficiency(e, F)
    assert nbk.merged_order(e, F).tolist() == np.argsort(-e, kind="stable").tolist()
