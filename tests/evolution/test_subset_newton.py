"""The simplified Newton solver of EMSCO's hot path against the reference Newton fit: the same
stopping rule, checked in double precision, and the documented tolerance to the optimum; warm
starts from the nearest recently trained set."""
from __future__ import annotations

import numpy as np
import pytest

from subsel.evolution import fastlogit
from subsel.evolution.fastlogit import SubsetLogisticNewton, fit_binary_logistic
from subsel.evolution.staged import StagedClassificationProblem

#: The documented tolerance (docs/emsco.md, "Speed"): coefficients and intercept within COEF_TOL of
#: the optimum (relative to its largest entry, at least 1), probabilities on the training inputs
#: within PROBA_TOL.  The reference fit at its default tolerance stays within them too.
COEF_TOL, PROBA_TOL = 1e-4, 5e-5


def random_problem(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(50, 800)), int(rng.integers(2, 12))
    X = rng.normal(size=(n, m)) * rng.uniform(0.2, 3.0, m)
    beta = rng.normal(size=m) * rng.uniform(0.0, 3.0)
    y = (X @ beta + rng.logistic(size=n) > 0).astype(int)
    C = float(rng.choice([0.1, 1.0, 10.0]))
    cols = np.sort(rng.choice(m, int(rng.integers(1, m + 1)), replace=False))
    return rng, X, y, C, cols


def gradient(X, y, C, cols, coef, b):
    A = np.c_[X[:, cols], np.ones(len(y))]
    w = np.append(coef, b)
    reg = np.append(np.full(cols.size, 1.0 / C), 0.0)
    return A.T @ (fastlogit.expit(A @ w) - y) + reg * w


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_meets_the_stopping_rule_and_the_tolerance_to_the_reference_fit(seed):
    rng, X, y, C, cols = random_problem(seed)
    solver = SubsetLogisticNewton(X, y, C)
    ref_coef, ref_b = fit_binary_logistic(X[:, cols], y, C, tol=1e-12)
    A = np.c_[X[:, cols], np.ones(len(y))]
    k1 = cols.size + 1
    starts = {
        "cold": (None, None, None),
        "warm": (np.append(rng.normal(scale=0.5, size=cols.size), 0.1), None, None),
        # a neighbour's Hessian from another point, with some rows unknown
        "hessian0": (np.append(rng.normal(scale=0.5, size=cols.size), -0.2),
                     (A.T * 0.2) @ A, rng.random(k1) < 0.7),
        # a useless one (not even positive definite): the solver must replace it
        "bad hessian0": (np.zeros(k1), -np.eye(k1), None),
    }
    scale = max(1.0, np.max(np.abs(np.append(ref_coef, ref_b))))
    for name, (w0, H0, known) in starts.items():
        coef, b, n_hess, H = solver.fit(cols, w0, H0, known)
        assert np.max(np.abs(gradient(X, y, C, cols, coef, b))) / len(y) < 1e-6, name
        assert np.max(np.abs(np.append(coef - ref_coef, b - ref_b))) < COEF_TOL * scale, name
        p, p_ref = fastlogit.expit(A @ np.append(coef, b)), fastlogit.expit(A @ np.append(ref_coef, ref_b))
        assert np.max(np.abs(p - p_ref)) < PROBA_TOL, name
        assert n_hess >= 0 and (H is None or H.shape == (k1, k1))


def test_the_stopping_rule_holds_in_double_precision_on_badly_scaled_columns():
    """Single-precision steps could stop early on large-valued columns; the rule is checked in double."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(600, 4)) * np.array([1e3, 1.0, 1e-2, 50.0])
    y = (X[:, 0] / 1e3 - X[:, 1] + rng.logistic(size=600) > 0).astype(int)
    solver = SubsetLogisticNewton(X, y, C=10.0, tol=1e-8)
    cols = np.arange(4)
    coef, b, _, _ = solver.fit(cols)
    assert np.max(np.abs(gradient(X, y, 10.0, cols, coef, b))) / 600 < 1e-8


def test_subset_newton_is_the_same_optimum_as_the_column_subset_fit():
    rng, X, y, C, _ = random_problem(3)
    solver = SubsetLogisticNewton(X, y, C)
    for cols in ([0], [1, 0], list(range(X.shape[1]))):
        coef, b, _, _ = solver.fit(cols)
        ref_coef, ref_b = fit_binary_logistic(X[:, cols], y, C, tol=1e-12)
        assert np.allclose(coef, ref_coef, atol=COEF_TOL) and abs(b - ref_b) < COEF_TOL


@pytest.mark.parametrize("kwargs, message", [
    ({"C": 0.0}, r"C must be > 0; got 0\.0"),
    ({"tol": -1.0}, r"tol must be > 0; got -1\.0"),
    ({"max_iter": 0}, r"max_iter must be an integer >= 1; got 0"),
    ({"refresh_ratio": 1.5}, r"refresh_ratio must be in \[0, 1\]; got 1\.5"),
])
def test_solver_parameters_are_checked(kwargs, message):
    X, y = np.ones((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=message):
        SubsetLogisticNewton(X, y, **kwargs)


def test_solver_inputs_are_checked():
    X, y = np.random.default_rng(0).normal(size=(5, 2)), np.array([0, 1, 0, 1, 1])
    with pytest.raises(ValueError, match=r"y must hold labels 0 and 1; y\[2\] = 2"):
        SubsetLogisticNewton(X, np.array([0, 1, 2, 1, 0]))
    with pytest.raises(ValueError, match=r"y must have shape \(5,\); got \(4,\)"):
        SubsetLogisticNewton(X, y[:4])
    X_nan = X.copy()
    X_nan[1, 1] = np.nan
    with pytest.raises(ValueError, match=r"Z must be a finite 2-D array"):
        SubsetLogisticNewton(X_nan, y)
    solver = SubsetLogisticNewton(X, y)
    with pytest.raises(ValueError, match=r"w0 must have shape \(2,\).*got \(3,\)"):
        solver.fit([0], np.zeros(3))
    with pytest.raises(ValueError, match=r"hessian0 must have shape \(2, 2\); got \(3, 3\)"):
        solver.fit([0], np.zeros(2), np.eye(3))
    with pytest.raises(ValueError, match=r"known must have shape \(2,\); got \(3,\)"):
        solver.fit([0], np.zeros(2), np.eye(2), np.ones(3, dtype=bool))


def small_problem(recent=4096):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 300)
    X = rng.normal(size=(300, 6)) + 0.8 * (2 * y - 1)[:, None] * np.linspace(1, 0, 6)

    class Problem(StagedClassificationProblem):
        RECENT_SETS = recent

    return Problem(X[:200], y[:200], X[200:], y[200:], np.ones(6), 0.8, None, 3, 0.1, 2.0, 2)


def test_warm_start_is_the_nearest_recent_set_and_ties_go_to_the_subset():
    problem = small_problem()
    keys = [problem.set_key(s) for s in ([0, 1, 2, 3], [0, 1], [4, 5])]
    problem.ensure_fitted(keys)
    new = problem.set_key([0, 1, 2, 3, 4])
    start, = problem._nearest_fitted([new], {})
    assert start.columns == (0, 1, 2, 3)                      # one feature away
    start, = problem._nearest_fitted([new], {new: problem.set_key([0, 1])})
    assert start.columns == (0, 1, 2, 3)                      # the subset is farther: not taken
    problem.ensure_fitted([problem.set_key([0, 1, 4])])
    tie = problem.set_key([0, 1, 2, 4])                        # one from (0, 1, 4) and (0, 1, 2, 3)...
    start, = problem._nearest_fitted([tie], {tie: problem.set_key([0, 1, 4])})
    assert start.columns == (0, 1, 4)                         # ...the subset wins the tie


def test_hessians_are_kept_only_for_sets_in_the_ring():
    problem = small_problem(recent=2)
    keys = [problem.set_key(s) for s in ([0], [0, 1], [2, 3])]
    for k in keys:                                             # trained in this order
        problem.ensure_fitted([k])
    held = [problem.cache[k].hessian is not None for k in keys]
    assert held == [False, True, True]
    assert problem._recent_keys == [keys[2], keys[1]]         # slot 0 was overwritten
