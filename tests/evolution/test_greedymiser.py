"""GreedyMiser baseline: the cost trade-off works, tuning follows the validation split, bad input."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("lightgbm")

from subsel.evolution.greedymiser import GreedyMiserClassifier  # noqa: E402


def problem(seed=0, n=600):
    """Feature 0 (dear) and feature 1 (cheap) are both predictive; 2..4 are cheap noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 5))
    X[:, 0] += 2.5 * (2 * y - 1)
    X[:, 1] += 1.0 * (2 * y - 1)
    return X, y, np.array([100.0, 1.0, 1.0, 1.0, 1.0])


def test_a_large_tradeoff_avoids_the_dear_feature_and_tuning_picks_the_best_validation_accuracy():
    X, y, costs = problem()
    gm = GreedyMiserClassifier(costs, tradeoffs=(0.0, 1e6)).fit(X[:400], y[:400], X[400:500], y[400:500])
    grid = gm.grid_.set_index("tradeoff")
    assert grid.loc[0.0, "cost"] >= 100.0              # plain boosting uses the dear feature
    assert grid.loc[1e6, "cost"] < 100.0               # a huge trade-off does not
    best = grid["val_accuracy"].max()
    assert gm.tradeoff_ in grid.index[grid["val_accuracy"] == best]
    assert gm.grid_["chosen"].sum() == 1 and grid.loc[gm.tradeoff_, "chosen"]
    assert gm.cost_ == pytest.approx(costs[gm.features_used_].sum())
    score = gm.evaluate(X[500:], y[500:])
    assert score["g1"] == 1.0 and score["g3*"] == gm.cost_
    assert score["g2"] == pytest.approx(np.mean(gm.predict(X[500:]) == y[500:]))
    assert gm.predict_proba(X[500:]).shape == (100, 2)


def test_ties_on_validation_accuracy_go_to_the_cheaper_model():
    X, y, costs = problem(1)
    X[:, 1] = 3.0 * (2 * y - 1)                          # the cheap feature alone is perfect
    gm = GreedyMiserClassifier(costs, tradeoffs=(0.0, 100.0)).fit(X[:400], y[:400], X[400:], y[400:])
    assert (gm.grid_["val_accuracy"] == 1.0).all()
    assert gm.cost_ == gm.grid_["cost"].min()


def test_string_labels_and_categorical_columns():
    X, y, costs = problem(2)
    frame = pd.DataFrame(X, columns=list("abcde"))
    frame["e"] = np.where(y == 1, "yes", "no")          # a categorical, perfectly predictive column
    frame.loc[::7, "a"] = np.nan                         # LightGBM handles missing values
    labels = np.where(y == 1, "sick", "well")
    gm = GreedyMiserClassifier(costs).fit(frame[:400], labels[:400], frame[400:], labels[400:])
    assert set(gm.predict(frame[400:])) <= {"sick", "well"}
    assert gm.evaluate(frame[400:], labels[400:])["g2"] > 0.9


@pytest.mark.parametrize("kwargs, match", [
    ({"feature_costs": [1.0, 2.0]}, "feature_costs has 2 values but X has 5"),
    ({"feature_costs": [1.0, -2.0, 1, 1, 1]}, r"feature_costs\[1\] must be a finite number >= 0"),
    ({"feature_costs": [0.0] * 5}, "all 0"),
    ({"tradeoffs": ()}, "tradeoffs must be a non-empty"),
    ({"tradeoffs": (1.0, -1.0)}, "tradeoffs must be a non-empty"),
    ({"n_estimators": 0}, "n_estimators must be an integer >= 1"),
])
def test_bad_parameters_are_named(kwargs, match):
    X, y, costs = problem()
    params = {"feature_costs": costs, **kwargs}
    with pytest.raises(ValueError, match=match):
        GreedyMiserClassifier(**params).fit(X[:100], y[:100], X[100:200], y[100:200])


def test_unseen_validation_labels():
    X, y, costs = problem()
    with pytest.raises(ValueError, match="y_val has labels not in y"):
        GreedyMiserClassifier(costs).fit(X[:100], y[:100], X[100:110], np.full(10, 7))
