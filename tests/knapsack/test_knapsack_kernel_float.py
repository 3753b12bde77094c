"""The compiled core search on real-valued data: feasible, optimal against brute force, bounds that
hold, the same bits on the same input; ``exact`` hands its real-valued knapsacks to it."""
import math
from unittest import mock

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem
from subsel.solvers import _knapsack
from subsel.solvers.exact import Exact

#: (most items enumerated, enumerated directly, relaxation threshold, pairing threshold).
LIMITS = {"dp": (0, 0, _knapsack._MIN_RELAX, _knapsack._MIN_PAIRING), "dp-relax": (0, 0, 0, 0),
          "default": (_knapsack._MAX_ENUMERATE, _knapsack._DIRECT_ENUMERATE, _knapsack._MIN_RELAX,
                      _knapsack._MIN_PAIRING)}


def core(p, w, c, path, **kwargs):
    """``_knapsack.solve_knapsack`` on the core limits of ``path``."""
    most, direct, relax, pairing = LIMITS[path]
    with mock.patch.object(_knapsack, "_MAX_ENUMERATE", most), \
            mock.patch.object(_knapsack, "_DIRECT_ENUMERATE", direct), \
            mock.patch.object(_knapsack, "_MIN_RELAX", relax), \
            mock.patch.object(_knapsack, "_MIN_PAIRING", pairing):
        return _knapsack.solve_knapsack(p, w, c, **kwargs)


def _bits(v: float) -> str:
    return "nan" if math.isnan(v) else float(v).hex()


def _assert_identical(first, again) -> None:
    numpy_res, kernel_res = first, again
    assert kernel_res.take.tolist() == numpy_res.take.tolist()
    assert _bits(kernel_res.value) == _bits(numpy_res.value)
    assert (_bits(kernel_res.bound), _bits(kernel_res.lp_bound)) == (_bits(numpy_res.bound),
                                                                     _bits(numpy_res.lp_bound))
    assert (kernel_res.optimal, kernel_res.core_size, kernel_res.stopped) == \
        (numpy_res.optimal, numpy_res.core_size, numpy_res.stopped)


@st.composite
def float_knapsacks(draw):
    """21 to 80 real-valued items: uncorrelated, correlated, ties (values on a coarse grid), with
    profits and weights scaled together from 1e-150 to 1e150; a capacity anywhere in the total."""
    m = draw(st.integers(21, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    kind = draw(st.sampled_from(["random", "weak", "strong", "ties", "equal-efficiency"]))
    w = rng.random(m) + 1e-3
    if kind == "ties":
        w = rng.integers(1, 6, m) / 7.0
    p = {"random": rng.random(m) + 1e-3, "weak": w + 0.1 * rng.random(m), "strong": w + 0.1,
         "ties": rng.integers(1, 6, m) / 3.0, "equal-efficiency": 0.3 * w}[kind]
    scale = draw(st.sampled_from([1.0, 1.0, 1e-150, 1e-9, 1e9, 1e150]))
    c = float(w.sum()) * draw(st.floats(0.05, 0.95))
    return p * scale, w * scale, c * scale


@settings(max_examples=60, deadline=None)
@given(float_knapsacks(), st.sampled_from(["dp", "dp-relax", "default"]),
       st.sampled_from([{}, {"memory_limit": 200_000}, {"target": "opt"}, {"target": "above"}]))
def test_float_knapsacks_are_feasible_bounded_and_repeatable(data, path, extra):
    """Every answer feasible, within its bounds, and the same bits when solved again."""
    p, w, c = data
    extra = dict(extra, memory_limit=extra.get("memory_limit", 20_000_000))
    if "target" in extra:
        opt = core(p, w, c, path, memory_limit=extra["memory_limit"]).value
        extra["target"] = opt if extra["target"] == "opt" else float(np.nextafter(opt, np.inf))
    res = core(p, w, c, path, **extra)
    _assert_identical(res, core(p, w, c, path, **extra))
    assert float(w[res.take].sum()) <= c * (1 + 1e-12)
    assert res.value <= res.bound <= res.lp_bound * (1 + 1e-12) + 1e-300
    if res.optimal and "target" not in extra:
        assert res.bound == res.value


def _brute_force(p: np.ndarray, w: np.ndarray, c: float) -> float:
    """The best profit of a subset of weight ``<= c``, every subset listed (the first half's subsets
    against each subset of the second half)."""
    h = p.size // 2
    low = (np.arange(1 << h)[:, None] >> np.arange(h)) & 1
    pl, wl = low @ p[:h], low @ w[:h]
    best = -np.inf
    for bits in range(1 << (p.size - h)):
        hi = (bits >> np.arange(p.size - h)) & 1
        fits = wl + hi @ w[h:] <= c
        if fits.any():
            best = max(best, float((pl[fits] + hi @ p[h:]).max()))
    return best


@settings(max_examples=15, deadline=None)
@given(st.integers(21, 22), st.integers(0, 2 ** 32 - 1), st.sampled_from([1.0, 1e-100, 1e100]))
def test_float_kernel_finds_the_brute_force_optimum(m, seed, scale):
    """Just above the enumeration limit, both paths against every subset (whose float sums may
    round another way: the optimum lies between those at a capacity a hair lower and higher)."""
    rng = np.random.default_rng(seed)
    w = rng.random(m) * scale
    p = (w + 0.05 * rng.random(m) * scale) if seed % 2 else rng.random(m) * scale
    c = float(w.sum()) / 2
    kernel_res = core(p, w, c, "dp")
    assert kernel_res.optimal
    lo, hi = _brute_force(p, w, c * (1 - 1e-12)), _brute_force(p, w, c * (1 + 1e-12))
    assert lo * (1 - 1e-12) <= kernel_res.value <= hi * (1 + 1e-12)


def _same_solution(a, b) -> None:
    assert np.array_equal(a.x, b.x) and a.status is b.status
    for u, v in ((a.objective, b.objective), (a.bound, b.bound), (a.avg_quality, b.avg_quality)):
        assert _bits(u) == _bits(v)


@st.composite
def near_threshold_problems(draw):
    """30 to 150 agents with some qualities a hair (ulps, 1e-12) from alpha, ties in quality and
    cost, and R from 1e-6 to 1e6."""
    n = draw(st.integers(30, 150))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    alpha = draw(st.sampled_from([0.3, 0.7, 0.9]))
    q, c = rng.random(n), rng.random(n)
    if draw(st.booleans()):   # ties: a coarse grid
        q, c = np.round(q * 8) / 8, np.round(c * 8) / 8
    near = rng.random(n) < 0.3
    hair = rng.choice([0.0, 1e-12, -1e-12, 2.2e-16, -2.2e-16], size=n)
    q[near] = np.clip(alpha + hair[near], 0.0, 1.0)
    R = draw(st.sampled_from([1.0, 1e-6, 1e6, 3.7]))
    return SubsetSelectionProblem(quality=q, cost=c, alpha=alpha, R=R)


@settings(max_examples=40, deadline=None)
@given(near_threshold_problems(), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=4))
@example(SubsetSelectionProblem.random(2000, 0.7, rng=5), [0.7, 0.8])
def test_exact_threshold_solver_is_a_single_solve_on_float_data(problem, alphas):
    """``exact``'s threshold solver gives, bit for bit, what a single solve at that threshold gives."""
    exact = Exact()
    solve_at = exact.threshold_solver(problem)
    for alpha in alphas:
        ref = exact.solve(problem.with_changes(alpha=alpha))
        _same_solution(solve_at(alpha), ref)
        if ref.status.value == "optimal":
            assert problem.with_changes(alpha=alpha).evaluate(ref.x).feasible


def test_exact_reaches_the_compiled_core_on_float_data():
    """The paper's instance: ``exact`` and its threshold solver hand their real-valued knapsack to
    the compiled search (with the real-data pruning rule)."""
    nbk = _knapsack._kernel()
    assert nbk is not None
    calls = []
    real = nbk.search

    def counting(*args, **kwargs):
        calls.append(kwargs.get("integer", True))
        return real(*args, **kwargs)

    problem = SubsetSelectionProblem.random(3000, 0.7, rng=11)
    with mock.patch.object(nbk, "search", counting):
        Exact().solve(problem)
        Exact().threshold_solver(problem)(0.85)
    assert calls == [False, False]
