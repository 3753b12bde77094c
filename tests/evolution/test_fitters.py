"""Stage fitters: both back-ends give the same validation outcome, the right one is chosen, and the
problem's cache holds FittedStage records (no positional tuples)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from subsel.evolution.fitters import (
    ColumnwiseLogitFitter,
    FittedStage,
    LogitCoefficients,
    SklearnStageFitter,
    make_stage_fitter,
)
from subsel.evolution.staged import StagedClassificationProblem, default_base_estimator


def data(seed=0, n=300, d=5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d))
    X[:, 0] += 1.5 * (2 * y - 1)
    X[:, 1] += 0.7 * (2 * y - 1)
    return X[:200], y[:200], X[200:], y[200:]


def test_make_stage_fitter_picks_the_columnwise_logit_fitter_only_where_it_applies():
    X_tr, y_tr, X_va, y_va = data()
    args = (X_tr, y_tr, X_va, y_va)
    assert isinstance(make_stage_fitter(default_base_estimator(), *args, 2, 0.8), ColumnwiseLogitFitter)
    assert isinstance(make_stage_fitter(DecisionTreeClassifier(), *args, 2, 0.8), SklearnStageFitter)
    assert isinstance(make_stage_fitter(default_base_estimator(), *args, 3, 0.8), SklearnStageFitter)
    X_nan = X_tr.copy()
    X_nan[3, 1] = np.nan                                 # the scaler lets NaN through: no fast path
    assert isinstance(make_stage_fitter(default_base_estimator(), X_nan, y_tr, X_va, y_va, 2, 0.8),
                      SklearnStageFitter)


def test_both_fitters_agree_on_the_validation_outcome_and_warm_starts_do_not_change_it():
    X_tr, y_tr, X_va, y_va = data(1)
    fast = make_stage_fitter(default_base_estimator(), X_tr, y_tr, X_va, y_va, 2, 0.7)
    slow = SklearnStageFitter(default_base_estimator(), X_tr, y_tr, X_va, y_va, 2, 0.7)
    cols = [(0,), (0, 1), (0, 1, 3), (2, 4)]
    a, b = fast.fit(cols, [None] * 4), slow.fit(cols, [None] * 4)
    for sa, sb in zip(a, b):
        assert isinstance(sa, FittedStage) and isinstance(sa.model, LogitCoefficients)
        assert sa.columns == sb.columns and sa.newton_iterations >= 1 and sb.newton_iterations == 0
        # lbfgs stops at a gradient of 1e-4: an input right at p̂ or 0.5 may land on the other side
        assert np.sum(sa.correct != sb.correct) <= 1 and np.sum(sa.accepted != sb.accepted) <= 1
        p_fast = fast.classifier(sa).predict_proba(X_va[:, list(sa.columns)])
        p_slow = slow.classifier(sb).predict_proba(X_va[:, list(sb.columns)])
        np.testing.assert_allclose(p_fast, p_slow, atol=1e-3)   # lbfgs stops at gradient 1e-4
    warm = fast.fit([(0, 1, 3)], [a[1]])[0]                      # from the subset (0, 1)
    assert warm.newton_iterations <= a[2].newton_iterations
    np.testing.assert_allclose(warm.model.coef, a[2].model.coef, atol=1e-6)
    assert np.array_equal(warm.accepted, a[2].accepted)


def test_problem_cache_holds_fitted_stage_records_and_p_hat_is_checked():
    X_tr, y_tr, X_va, y_va = data(2)
    problem = StagedClassificationProblem(X_tr, y_tr, X_va, y_va, np.ones(5), 0.8, None, 3, 0.1,
                                          2.0, 2)
    raw = problem.evaluate([np.array([0, 1, 1, 2, 0])])
    assert raw.shape == (1, 3)
    stage = problem.cache[problem.set_key([0, 4])]
    assert stage.columns == (0, 4) and stage.accepted.shape == y_va.shape
    assert problem.fits == len(problem.cache) == 3 and problem.newton_iterations > 0
    for bad in (0.5, 1.2, float("nan"), True):
        with pytest.raises(ValueError, match=r"confidence \(p̂\) must be in \(1/n_classes, 1\]"):
            StagedClassificationProblem(X_tr, y_tr, X_va, y_va, np.ones(5), bad, None, 3, 0.1, 2.0, 2)
