"""The combo parts of the knapsack core (Martello, Pisinger, Toth, Management Science 45(3), 1999).

The surrogate cardinality relaxation and the pairing of states with items normally start only once
the state list is long (thousands of states); here their thresholds are lowered so that they run on
small instances, where a textbook dynamic program or brute force gives the optimum.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subsel.knapsack import _knapsack, _knapsack_search
from subsel.knapsack._knapsack import _weight_grid
from subsel.knapsack._knapsack import solve_core as solve_knapsack
from subsel.models.instances import KNAPSACK_CLASSES, knapsack_instance
from tests.strategies import knapsack_brute_force, knapsack_dp, knapsacks


@pytest.fixture
def eager(monkeypatch):
    """Relaxation and pairing from the first step on."""
    monkeypatch.setattr(_knapsack, "_MIN_RELAX", 0)
    monkeypatch.setattr(_knapsack, "_MIN_PAIRING", 0)
    monkeypatch.setattr(_knapsack, "_MAX_ENUMERATE", 0)


def check(res, p, w, c, optimum):
    assert res.optimal
    assert res.value == pytest.approx(optimum, rel=1e-12, abs=1e-9)
    assert float(np.asarray(p)[res.take].sum()) == pytest.approx(res.value, rel=1e-12, abs=1e-9)
    assert float(np.asarray(w)[res.take].sum()) <= c
    assert res.lp_bound >= res.value - 1e-9


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=knapsacks(m_max=9))
def test_eager_bounds_match_brute_force_on_integer_data(eager, data):
    p, w, c = data
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    keep = (p > 0) & (w > 0)
    # The reference accepts weights up to c + 1e-9; the caller folds that tolerance into c.
    res = solve_knapsack(p[keep], w[keep], float(c) + 1e-9)
    check(res, p[keep], w[keep], c + 1e-9, knapsack_brute_force(p[keep], w[keep], c))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=knapsacks(m_max=9, integer=False))
def test_eager_bounds_match_brute_force_on_real_data(eager, data):
    p, w, c = data
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    keep = (p > 0) & (w > 0)
    # The reference accepts weights up to c + 1e-9; the caller folds that tolerance into c.
    res = solve_knapsack(p[keep], w[keep], float(c) + 1e-9)
    check(res, p[keep], w[keep], c + 1e-9, knapsack_brute_force(p[keep], w[keep], c))


@pytest.mark.parametrize("kind", KNAPSACK_CLASSES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_eager_bounds_match_dynamic_program_on_every_class(eager, kind, seed):
    """Relaxation at once, on the classes where the cardinality bound decides (n = 200)."""
    p, w, c = knapsack_instance(kind, 200, 1000, np.random.default_rng(seed))
    res = solve_knapsack(p.astype(float), w.astype(float), float(c))
    check(res, p, w, c, knapsack_dp(p, w, c))


@pytest.mark.parametrize("kind, n, R, seed, relaxed", [
    ("strongly_correlated", 500, 1000, 7, True),
    ("inverse_strongly_correlated", 1000, 200, 8, True),
    ("almost_strongly_correlated", 500, 1000, 7, True),
    ("almost_strongly_correlated", 500, 1000, 8, False)])
def test_default_thresholds_match_dynamic_program_on_correlated_classes(monkeypatch, kind, n, R, seed, relaxed):
    """State lists long enough that the relaxation (past 2,000 states) starts by itself, with the
    pairing of states and items (past 1,000) inside the compiled search; on the last instance the
    pairing reaches the global bound before the relaxation is due."""
    calls = []
    relax = _knapsack_search.relax_once
    monkeypatch.setattr(_knapsack_search, "relax_once", lambda *a: calls.append("relax") or relax(*a))
    p, w, c = knapsack_instance(kind, n, R, np.random.default_rng(seed))
    res = solve_knapsack(p.astype(float), w.astype(float), float(c))
    check(res, p, w, c, knapsack_dp(p, w, c))
    assert bool(calls) == relaxed


def test_scaled_real_weights_keep_integer_mode():
    """Weights that are integers times 2^-20 are on a grid: the rounding of the capacity is exact."""
    rng = np.random.default_rng(4)
    w_int = rng.integers(1, 300, size=400)
    p = w_int + 30
    c_int = int(w_int.sum() // 2)
    assert _weight_grid(w_int / 2.0 ** 20) == 2.0 ** -20
    res = solve_knapsack(p.astype(float), w_int / 2.0 ** 20, c_int / 2.0 ** 20 + 1e-12)
    check(res, p, w_int / 2.0 ** 20, c_int / 2.0 ** 20 + 1e-12, knapsack_dp(p, w_int, c_int))


def test_common_divisor_of_weights_rounds_the_capacity():
    """Weights all multiples of 3 and an odd capacity (an even-odd style instance) stay exact."""
    rng = np.random.default_rng(5)
    w = 3 * rng.integers(1, 300, size=300)
    p = w + 60
    c = int(w.sum() // 2) | 1
    res = solve_knapsack(p.astype(float), w.astype(float), float(c))
    check(res, p, w, c, knapsack_dp(p, w, c))


def test_weight_grid_of_real_data_is_none():
    assert _weight_grid(np.array([0.1, 1 / 3, np.pi])) is None
    assert _weight_grid(np.array([0.5, 0.75, 3.0])) == 0.25


@settings(max_examples=150, deadline=None)
@given(data=st.one_of(knapsacks(m_max=10), knapsacks(m_max=10, integer=False)))
def test_enumeration_matches_brute_force(data):
    """Small knapsacks are enumerated (meet in the middle); the optimum is the brute force's."""
    p, w, c = data
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    keep = p > 0  # profits > 0; weights may be 0 (agents at q = alpha)
    p, w = p[keep], w[keep]
    res = solve_knapsack(p, w, float(c) + 1e-9)
    assert res.core_size == p.size  # enumerated
    check(res, p, w, c + 1e-9, knapsack_brute_force(p, w, c))


@pytest.mark.parametrize("kind", KNAPSACK_CLASSES)
@pytest.mark.parametrize("m", [11, 17, 20])
def test_enumeration_matches_dynamic_program(kind, m):
    p, w, c = knapsack_instance(kind, m, 1000, np.random.default_rng(m))
    res = solve_knapsack(p.astype(float), w.astype(float), float(c))
    assert res.core_size == m
    check(res, p, w, c, knapsack_dp(p, w, c))


def test_subnormal_weight_has_no_grid_but_is_solved(monkeypatch):
    """A weight of 5e-324 against a capacity near 1e-9: the grid would need 2^1065 steps."""
    monkeypatch.setattr(_knapsack, "_MAX_ENUMERATE", 0)
    res = solve_knapsack(np.array([1.0, 2.0, 4.0]), np.array([5e-324, 1e-323, 1.5e-323]), 1e-9)
    assert res.optimal
    assert res.value == 7.0 and res.take.all()
