"""Staged classification: routing, cost accounting and objectives exactly as Hamilton and Fulp 2022, Section III."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from subsel.evolution import StagedClassificationProblem, StagedClassifier, fastlogit
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
    for C in (1.0, 0.1):
        coef, b = fastlogit.fit_binary_logistic(Xr[:, [0, 2, 5]], yr, C)
        ref = LogisticRegression(C=C, tol=1e-10, max_iter=1000).fit(Xr[:, [0, 2, 5]], yr)
        assert np.allclose(coef, ref.coef_[0], atol=1e-6) and abs(b - ref.intercept_[0]) < 1e-6


def test_fast_logistic_warm_start_and_full_steps_reach_the_same_optimum():
    """Warm starts (a subset's optimum padded with zeros, or any point) and full steps without a
    line search change the path only: the optimum is scikit-learn's."""
    rng = np.random.default_rng(2)
    Xr = rng.normal(size=(400, 5))
    yr = (Xr[:, 0] - Xr[:, 3] + rng.normal(size=400) > 0).astype(int)
    ref = LogisticRegression(tol=1e-10, max_iter=1000).fit(Xr, yr)
    sub, b_sub = fastlogit.fit_binary_logistic(Xr[:, :3], yr)
    for w0 in (np.r_[sub, 0.0, 0.0, b_sub], rng.normal(size=6)):
        for full_step_decrement in (0.0, 1e-3, 1.0):
            coef, b, n_iter = fastlogit.fit_binary_logistic(
                Xr, yr, w0=w0, full_step_decrement=full_step_decrement, return_n_iter=True)
            assert n_iter >= 1
            assert np.allclose(coef, ref.coef_[0], atol=1e-6) and abs(b - ref.intercept_[0]) < 1e-6
    with pytest.raises(ValueError, match=r"w0 must have shape \(6,\).*got \(3,\)"):
        fastlogit.fit_binary_logistic(Xr, yr, w0=np.zeros(3))


def test_columnwise_spec_recognises_only_columnwise_logistic_pipelines():
    from sklearn.decomposition import PCA
    from sklearn.tree import DecisionTreeClassifier

    from subsel.evolution.datasets import credit_base_estimator
    from subsel.evolution.staged import default_base_estimator
    assert fastlogit.columnwise_spec(default_base_estimator()) is not None
    assert fastlogit.columnwise_spec(credit_base_estimator()) is not None
    assert fastlogit.columnwise_spec(LogisticRegression(C=0.5))[1] == 0.5
    assert fastlogit.columnwise_spec(make_pipeline(PCA(), LogisticRegression())) is None
    assert fastlogit.columnwise_spec(LogisticRegression(solver="liblinear")) is None
    assert fastlogit.columnwise_spec(LogisticRegression(class_weight="balanced")) is None
    assert fastlogit.columnwise_spec(DecisionTreeClassifier()) is None


@pytest.mark.parametrize("which", ["default", "credit"])
def test_fast_path_equals_the_scikit_learn_pipeline(which):
    """The stage model of the fast path predicts what the base pipeline fitted on the same columns
    predicts (imputation and one-hot encoding included)."""
    import pandas as pd

    from subsel.evolution.datasets import credit_base_estimator
    from subsel.evolution.staged import default_base_estimator
    rng = np.random.default_rng(1)
    n = 240
    yv = rng.integers(0, 2, n)
    Xd = pd.DataFrame({"a": yv + rng.normal(0, 1, n), "b": rng.normal(size=n),
                       "c": np.where(rng.random(n) < 0.5 + 0.3 * (yv - 0.5), "u", "v"),
                       "d": rng.normal(size=n) * 100})
    if which == "default":
        Xd = Xd.drop(columns="c")
        base = default_base_estimator()
    else:
        Xd.loc[rng.choice(n, 20, replace=False), "a"] = np.nan
        Xd.loc[rng.choice(n, 20, replace=False), "c"] = np.nan
        base = credit_base_estimator()
    Xtr, Xva, ytr, yva = Xd.iloc[:160], Xd.iloc[160:], yv[:160], yv[160:]
    problem = StagedClassificationProblem(Xtr, ytr, Xva, yva, np.ones(Xd.shape[1]), 0.8, base,
                                          2, 0.1, 2.0, 2)
    assert problem.fast
    genes = np.array([0, 1] + [1] * (Xd.shape[1] - 2))
    staged = problem.staged_classifier(genes)
    for cols, model in zip([[0], list(range(Xd.shape[1]))], staged.estimators):
        ref = base.set_params(logisticregression__tol=1e-10, logisticregression__max_iter=5000)
        ref = ref.fit(Xtr.iloc[:, cols], ytr)
        assert np.allclose(model.predict_proba(Xva.iloc[:, cols]),
                           ref.predict_proba(Xva.iloc[:, cols]), atol=1e-5)
