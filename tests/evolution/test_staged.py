"""Staged classification: routing, cost accounting and objectives exactly as SPEC §3."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from subsel.evolution import StagedClassificationProblem, StagedClassifier
from subsel.evolution import fastlogit
from subsel.evolution.staged import cumulative_sets, route, stage_costs, staged_objectives


class LastColumnProba(ClassifierMixin, BaseEstimator):
    """Fake classifier: P(class 1) is the last column of its input (no learning)."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        p1 = np.asarray(X, dtype=float)[:, -1]
        return np.c_[1 - p1, p1]


# Stages [[0], [1, 2]], costs [1, 2, 3], p̂ = 0.8.  Stage 0 sees x0, stage 1 sees (x0, x1, x2) and
# its fake classifier reads x2.
X = np.array([[0.90, 0.0, 0.0],    # stage 0, P1 = .90 -> accepted, label 1, cost 1
              [0.50, 0.0, 0.10],   # stage 1, P0 = .90 -> accepted, label 0, cost 1+2+3 = 6
              [0.50, 0.0, 0.60],   # stage 1, top .60 -> rejected, label 1, cost 6
              [0.15, 0.0, 0.99]])  # stage 0, P0 = .85 -> accepted, label 0, cost 1
y = np.array([1, 1, 0, 0])
STAGES = [[0], [1, 2]]
COSTS = np.array([1.0, 2.0, 3.0])


def test_hand_made_cost_accounting():
    staged = StagedClassifier(STAGES, [LastColumnProba().fit(X, y)] * 2, COSTS, 0.8, 2)
    r = staged.route(X)
    assert r["exit_stage"].tolist() == [0, 1, 1, 0]
    assert r["accepted"].tolist() == [True, True, False, True]
    assert r["label"].tolist() == [1, 0, 1, 0]
    assert r["cost"].tolist() == [1.0, 6.0, 6.0, 1.0]
    assert np.allclose(r["proba"][2], [0.4, 0.6])            # rejected: last stage's probabilities
    g1, g2, g3 = staged_objectives(r["label"] == y, r["accepted"], r["cost"])
    assert (g1, g2, g3) == (0.75, pytest.approx(2 / 3), 3.5)


def test_problem_hot_path_agrees_with_routing():
    problem = StagedClassificationProblem(X, y, X, y, COSTS, 0.8, LastColumnProba(), max_stages=2,
                                          mutation_rate=0.1, beta=2.0, n_classes=2)
    genes = np.array([0, 1, 1])
    raw = problem.evaluate([genes])
    assert raw[0].tolist() == [0.75, pytest.approx(2 / 3), 3.5]
    assert problem.fits == 2 and problem.lookups == 2
    problem.evaluate([genes, genes])                         # cached: no new training
    assert problem.fits == 2 and problem.lookups == 6
    staged = problem.staged_classifier(genes)
    assert staged.stages == STAGES


def test_no_accepted_input_gives_zero_accuracy():
    assert staged_objectives(np.ones(3, bool), np.zeros(3, bool), np.ones(3)) == (0.0, 0.0, 1.0)


def test_route_and_stage_costs():
    conf = np.array([[0.9, 0.5, 0.5], [0.1, 0.95, 0.7]])
    exit_stage, accepted = route(conf, 0.9)
    assert exit_stage.tolist() == [0, 1, 1] and accepted.tolist() == [True, True, False]
    assert stage_costs([[2], [0, 1]], [1.0, 2.0, 4.0]).tolist() == [4.0, 7.0]
    assert cumulative_sets([[2], [0, 1]]) == [frozenset({2}), frozenset({0, 1, 2})]


def test_normalize_inverse_cost():
    problem = StagedClassificationProblem(X, y, X, y, COSTS, 0.8, LastColumnProba(), 2, 0.1, 2.0, 2)
    raw = np.array([[0.5, 0.5, 2.0], [0.5, 0.5, 4.0], [0.5, 0.5, 8.0]])
    assert problem.normalize(raw)[:, 2].tolist() == [1.0, 0.5, 0.25]
    assert problem.normalize(np.array([[1, 1, 0.0], [1, 1, 3.0]]))[:, 2].tolist() == [1.0, 0.0]


def test_fast_logistic_matches_scikit_learn():
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(300, 6))
    yr = (Xr[:, 0] + 0.5 * Xr[:, 1] + rng.normal(size=300) > 0).astype(int)
    scaler = fastlogit.standardizer(Xr)
    coef, b = fastlogit.fit_binary_logistic(scaler.transform(Xr)[:, [0, 2, 5]], yr)
    ref = LogisticRegression(tol=1e-10, max_iter=1000).fit(scaler.transform(Xr)[:, [0, 2, 5]], yr)
    assert np.allclose(coef, ref.coef_[0], atol=1e-6) and abs(b - ref.intercept_[0]) < 1e-6
    pipe = fastlogit.as_pipeline(scaler, (0, 2, 5), coef, b)
    assert np.allclose(pipe.predict_proba(Xr[:, [0, 2, 5]]),
                       ref.predict_proba(scaler.transform(Xr)[:, [0, 2, 5]]), atol=1e-6)


def test_fast_path_and_sklearn_path_agree():
    from sklearn.datasets import load_breast_cancer
    from subsel.evolution.staged import default_base_estimator
    Xb, yb = load_breast_cancer(return_X_y=True)
    args = (Xb[:300], yb[:300], Xb[300:], yb[300:], np.ones(30), 0.9)
    fast = StagedClassificationProblem(*args, None, 4, 0.1, 2.0, 2)
    slow = StagedClassificationProblem(*args, default_base_estimator(), 4, 0.1, 2.0, 2)
    assert fast.fast and not slow.fast
    genes = [np.array([0] * 5 + [1] * 10 + [2] * 15), np.array([1] * 20 + [0] * 10)]
    assert np.allclose(fast.evaluate(genes), slow.evaluate(genes), atol=0.01)
