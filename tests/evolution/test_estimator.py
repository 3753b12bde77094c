"""EMSCOClassifier: known answers, determinism, the reject/cost API and one test per bad input."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier

from subsel.evolution import EMSCOClassifier
from subsel.evolution.datasets import breast_cancer

SMALL = dict(population_size=12, max_iter=4)


def easy_problem(seed=0, n=400):
    """Feature 0 is cheap and perfectly predictive; features 1..5 are costly noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 6))
    X[:, 0] = (2 * y - 1) * (1.0 + rng.random(n))
    costs = np.array([1.0, 10, 10, 10, 10, 10])
    return X, y, costs


def test_easy_problem_puts_the_cheap_perfect_feature_alone_first():
    X, y, costs = easy_problem()
    clf = EMSCOClassifier(costs, confidence=0.9, population_size=30, max_iter=15,
                          random_state=0).fit(X, y)
    assert clf.stages_[0] == [0]
    out = clf.predict_with_cost(X)
    assert out["accepted"].all() and (out["exit_stage"] == 0).all() and (out["cost"] == 1.0).all()
    assert clf.evaluate(X, y) == {"g1": 1.0, "g2": 1.0, "g3*": 1.0}


@pytest.fixture(scope="module")
def fitted():
    d = breast_cancer()
    X_tr, X_va, X_te, y_tr, y_va, y_te = d.split()
    clf = EMSCOClassifier(d.costs, confidence=0.9, random_state=3, **SMALL)
    return clf.fit(X_tr, y_tr, X_va, y_va), X_te, y_te


def test_fitted_attributes(fitted):
    clf, X_te, _ = fitted
    assert clf.n_features_in_ == 30 and list(clf.classes_) == [0, 1]
    assert sorted(i for s in clf.stages_ for i in s) == list(range(30))
    assert len(clf.stages_) <= clf.max_stages_ == 10
    assert list(clf.pareto_front_.columns) == ["stages", "n_stages", "g1", "g2", "g3*", "g3", "selected"]
    assert len(clf.history_) == SMALL["max_iter"] + 1
    assert 0.0 <= clf.cache_hit_rate_ < 1.0 and clf.n_evaluations_ > 0
    assert clf.feature_names_in_[0] == "mean_radius"


def test_predict_reject_cost_and_evaluate_agree(fitted):
    clf, X_te, y_te = fitted
    labels, abstain = clf.predict_with_reject(X_te)
    table = clf.predict_with_cost(X_te)
    proba = clf.predict_proba(X_te)
    assert np.array_equal(labels, clf.predict(X_te))
    assert np.array_equal(labels, clf.classes_[proba.argmax(axis=1)])
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(~abstain, table["accepted"].to_numpy())
    assert (table.index == X_te.index).all()
    # accepted rows are confident, abstentions are not
    assert np.all(proba.max(axis=1)[~abstain] >= clf.confidence)
    assert np.all(proba.max(axis=1)[abstain] < clf.confidence)
    # cost = cumulative stage cost of the exit stage
    cum = np.cumsum([clf.feature_costs_[s].sum() for s in clf.stages_])
    assert np.allclose(table["cost"], cum[table["exit_stage"]])
    ev = clf.evaluate(X_te, y_te)
    assert ev["g1"] == pytest.approx(table["accepted"].mean())
    acc = (labels == y_te)[~abstain].mean()
    assert ev["g2"] == pytest.approx(acc) and ev["g3*"] == pytest.approx(table["cost"].mean())


def test_same_seed_same_result_and_n_jobs_does_not_matter():
    X, y, costs = easy_problem(1, 120)
    base = DecisionTreeClassifier(max_depth=3)  # the scikit-learn path; random_state seeded by EMSCO
    a = EMSCOClassifier(costs, confidence=0.8, base_estimator=base, random_state=7,
                        population_size=8, max_iter=3).fit(X, y)
    b = clone(a).fit(X, y)
    with parallel_config(backend="threading"):  # same code path as processes, no start-up cost
        c = clone(a).set_params(n_jobs=2).fit(X, y)
    for other in (b, c):
        assert other.stages_ == a.stages_
        pd.testing.assert_frame_equal(other.pareto_front_, a.pareto_front_)
        pd.testing.assert_frame_equal(other.history_, a.history_)
    d = EMSCOClassifier(costs, confidence=0.8, random_state=np.random.RandomState(7), **SMALL)
    assert d.fit(X, y).stages_ == clone(d).set_params(random_state=np.random.RandomState(7)).fit(X, y).stages_


def test_string_labels_and_dataframe_with_categories():
    rng = np.random.default_rng(0)
    n = 200
    y = np.where(rng.random(n) < 0.5, "yes", "no")
    X = pd.DataFrame({"num": np.where(y == "yes", 1.0, -1.0) + rng.normal(0, 0.3, n),
                      "cat": rng.choice(["a", "b", "c"], n)})
    X.loc[3, "num"] = np.nan
    from subsel.evolution.datasets import credit_base_estimator
    clf = EMSCOClassifier([1.0, 5.0], confidence=0.8, base_estimator=credit_base_estimator(),
                          random_state=0, **SMALL).fit(X, y)
    assert set(clf.predict(X)) <= {"yes", "no"}
    assert clf.evaluate(X, y)["g2"] > 0.9


# -- bad input: one test per rule ---------------------------------------------------------------------

X0, y0, C0 = easy_problem(2, 60)


@pytest.mark.parametrize("params,match", [
    ({"feature_costs": [1.0, 2.0]}, r"feature_costs has 2 values but X has 6 features"),
    ({"feature_costs": [1.0, 2, 3, -4, 5, 6]}, r"feature_costs\[3\] must be a finite number >= 0; got -4\.0"),
    ({"feature_costs": [1.0, 2, 3, np.nan, 5, 6]}, r"feature_costs\[3\]"),
    ({"confidence": 0.5}, r"confidence \(p̂\) must be in \(1/n_classes, 1\] = \(0\.5, 1\]"),
    ({"confidence": 1.2}, r"confidence .* got 1\.2"),
    ({"max_stages": 0}, r"max_stages must be an integer >= 1; got 0"),
    ({"population_size": 1}, r"population_size must be an integer >= 2"),
    ({"max_iter": -1}, r"max_iter must be an integer >= 0"),
    ({"mutation_rate": 1.5}, r"mutation_rate must be a number in \[0, 1\]"),
    ({"crossover_rate": -0.1}, r"crossover_rate must be a number in \[0, 1\]"),
    ({"elite_fraction": 2}, r"elite_fraction must be a number in \[0, 1\]"),
    ({"beta": 0}, r"beta must be a number > 0"),
    ({"validation_fraction": 1.0}, r"validation_fraction must be a number in \(0, 1\)"),
    ({"n_jobs": 0}, r"n_jobs must be None or a non-zero integer .*; got 0"),
    ({"n_jobs": 1.5}, r"n_jobs must be None or a non-zero integer .*; got 1\.5"),
    ({"random_state": -1}, r"random_state must be a non-negative integer.*; got -1"),
])
def test_bad_parameters(params, match):
    clf = EMSCOClassifier(**{"feature_costs": C0, **SMALL, **params})
    with pytest.raises(ValueError, match=match):
        clf.fit(X0, y0)


def test_random_state_of_a_wrong_kind_is_a_type_error():
    clf = EMSCOClassifier(**{"feature_costs": C0, **SMALL, "random_state": "abc"})
    with pytest.raises(TypeError, match=r"random_state must be .*; got str 'abc'"):
        clf.fit(X0, y0)


def test_generator_random_state_is_accepted_and_reproducible():
    a = EMSCOClassifier(**{"feature_costs": C0, **SMALL, "random_state": np.random.default_rng(3)})
    b = EMSCOClassifier(**{"feature_costs": C0, **SMALL, "random_state": np.random.default_rng(3)})
    assert a.fit(X0, y0).stages_ == b.fit(X0, y0).stages_


def test_confidence_range_depends_on_classes():
    y3 = np.arange(60) % 3
    EMSCOClassifier(C0, confidence=0.4, random_state=0, population_size=4, max_iter=1).fit(X0, y3)
    with pytest.raises(ValueError, match=r"\(0\.3333, 1\] for 3 classes; got 0\.3"):
        EMSCOClassifier(C0, confidence=0.3, **SMALL).fit(X0, y3)


def test_single_class():
    with pytest.raises(ValueError, match=r"y has only one class \(1\); EMSCO needs at least 2"):
        EMSCOClassifier(C0, **SMALL).fit(X0, np.ones(60, int))


def test_nan_without_imputation():
    X = X0.copy()
    X[5, 2] = np.nan
    with pytest.raises(ValueError, match="NaN.*does not impute"):
        EMSCOClassifier(C0, **SMALL).fit(X, y0)
    with pytest.raises(ValueError, match=r"NaN \(row 5, feature 'x2'\).*does not impute"):
        EMSCOClassifier(C0, **SMALL).fit(pd.DataFrame(X, columns=[f"x{i}" for i in range(6)]), y0)


def test_base_estimator_without_predict_proba():
    from sklearn.svm import LinearSVC
    with pytest.raises(TypeError, match="predict_proba"):
        EMSCOClassifier(C0, base_estimator=LinearSVC(), **SMALL).fit(X0, y0)


def test_validation_set_errors():
    with pytest.raises(ValueError, match="give both X_val and y_val"):
        EMSCOClassifier(C0, **SMALL).fit(X0, y0, X_val=X0)
    with pytest.raises(ValueError, match=r"y_val has labels not in y: \[7\]"):
        EMSCOClassifier(C0, **SMALL).fit(X0, y0, X0, np.full(60, 7))


def test_fast_path_threads_give_the_same_result():
    X, y, costs = easy_problem(4, 200)
    a = EMSCOClassifier(costs, confidence=0.8, random_state=1, **SMALL).fit(X, y)
    b = clone(a).set_params(n_jobs=2).fit(X, y)
    assert b.stages_ == a.stages_
    pd.testing.assert_frame_equal(b.pareto_front_, a.pareto_front_)
    pd.testing.assert_frame_equal(b.history_, a.history_)


# -- select: which front member is the fitted classifier ------------------------------------------

@pytest.mark.parametrize("rule", ["fitness", "accuracy", "coverage", "cost", "knee"])
def test_select_picks_the_rule_s_design_of_the_same_front(fitted, rule):
    from subsel.evolution.selection import select_design

    clf, X_te, y_te = fitted
    other = clone(clf).set_params(select=rule)
    d = breast_cancer()
    X_tr, X_va, _, y_tr, y_va, _ = d.split()
    other.fit(X_tr, y_tr, X_va, y_va)
    front = other.pareto_front_
    # the search does not depend on the rule: same front, same validation objectives
    pd.testing.assert_frame_equal(front.drop(columns="selected"),
                                  clf.pareto_front_.drop(columns="selected"))
    j = other.selected_index_
    assert front["selected"].sum() == 1 and front["selected"].iloc[j]
    assert j == select_design(front["g1"], front["g2"], front["g3*"], rule)
    assert other.stages_ == front["stages"].iloc[j]
    assert other.validation_scores_ == {k: front[k].iloc[j] for k in ("g1", "g2", "g3*")}
    if rule == "accuracy":
        assert other.validation_scores_["g2"] == front["g2"].max()
    if rule == "coverage":
        assert other.validation_scores_["g1"] == front["g1"].max()
    if rule == "cost":
        assert other.validation_scores_["g3*"] == front["g3*"].min()
    if rule == "fitness":
        assert j == 0 and other.stages_ == clf.stages_
    # predict* use the selected design: its test row of evaluate_front is what evaluate reports
    on_test = other.evaluate_front(X_te, y_te)
    assert on_test.iloc[j].to_dict() == pytest.approx(other.evaluate(X_te, y_te))
    table = other.predict_with_cost(X_te)
    assert table["cost"].mean() == pytest.approx(on_test["g3*"].iloc[j])


def test_evaluate_front_scores_every_member_without_refit(fitted):
    clf, X_te, y_te = fitted
    d = breast_cancer()
    _, X_va, _, _, y_va, _ = d.split()
    # on the validation split the stored models reproduce the search's objectives exactly
    on_val = clf.evaluate_front(X_va, y_va)
    assert len(on_val) == len(clf.pareto_front_)
    np.testing.assert_allclose(on_val.to_numpy(), clf.pareto_front_[["g1", "g2", "g3*"]].to_numpy())
    with pytest.raises(ValueError, match="samples but y has"):
        clf.evaluate_front(X_te, y_te[:-1])


@pytest.mark.parametrize("bad", ["best", "", None, 3])
def test_bad_select_is_named(bad):
    X, y, costs = easy_problem(0, 60)
    with pytest.raises(ValueError, match="select must be one of fitness, accuracy, coverage, cost, knee"):
        EMSCOClassifier(costs, select=bad, **SMALL).fit(X, y)


def test_select_design_rules_on_hand_made_fronts():
    from subsel.evolution.selection import select_design

    g1, g2, g3 = [0.9, 0.5, 0.7, 0.5], [0.80, 0.95, 0.90, 0.95], [10.0, 30.0, 12.0, 25.0]
    assert select_design(g1, g2, g3) == 0
    assert select_design(g1, g2, g3, "accuracy") == 3        # tie on g2 and g1: lower cost
    assert select_design(g1, g2, g3, " Coverage ") == 0
    assert select_design(g1, g2, g3, "cost") == 0
    assert select_design(g1, g2, g3, "knee") == 2
    assert select_design([0.5, 0.5], [0.9, 0.9], [3.0, 3.0], "knee") == 0   # flat front: first
    with pytest.raises(ValueError, match="empty front"):
        select_design([], [], [], "cost")
    with pytest.raises(ValueError, match="same length"):
        select_design([1.0], [1.0, 0.5], [1.0], "cost")
