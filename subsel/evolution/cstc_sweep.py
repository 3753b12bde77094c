"""CSTC's λ sweep: the validation cost–accuracy front and the design the experiments report.

Xu, Kusner, Weinberger, Chen, Chapelle, *Cost-Sensitive Tree of Classifiers* (ICML 2013), in
their experiments, trace CSTC's accuracy against its test-time cost by training one tree per value of the trade-off
λ.  :func:`sweep_lambda` does that, warm-starting each tree from the previous one along
increasing λ (a continuation path: the features dropped at a smaller λ stay near zero, which
keeps the cost from rising along the sweep), scores every tree on a validation split and marks
the non-dominated ones.  One design is then chosen by the rule the EMSCO experiments use for
GreedyMiser (Hamilton & Fulp, IEEE CEC 2022, §V-B): highest validation accuracy, ties cheaper,
then the larger λ (:func:`subsel.evolution.selection.choose_budgeted`).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone

from .cstc import CSTCClassifier
from .selection import choose_budgeted

__all__ = ["DEFAULT_LAMBDAS", "CSTCSweep", "sweep_lambda"]

#: λ grid (costs divided by the largest, standardised features; 0: cost-blind).
DEFAULT_LAMBDAS = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0)


@dataclass(frozen=True)
class CSTCSweep:
    """Result of :func:`sweep_lambda`.

    Attributes
    ----------
    grid : pandas.DataFrame
        One row per λ (ascending): ``lam, n_features, train_cost, val_cost, val_accuracy,
        on_front, chosen`` — costs are mean costs per input (``feature_costs`` units) under hard
        routing; ``on_front``: no other row has validation accuracy >= and cost <= with one strict.
    models : list of CSTCClassifier
        The fitted tree of each row.
    chosen : int
        Row of the reported design.
    """

    grid: pd.DataFrame
    models: list
    chosen: int

    @property
    def best(self) -> CSTCClassifier:
        """The chosen fitted tree."""
        return self.models[self.chosen]

    @property
    def front(self) -> pd.DataFrame:
        """The non-dominated rows of ``grid`` (validation cost–accuracy front), by cost."""
        return self.grid[self.grid["on_front"]].sort_values(["val_cost", "lam"]).reset_index(drop=True)


def sweep_lambda(estimator: CSTCClassifier, X, y, X_val, y_val, lams=DEFAULT_LAMBDAS) -> CSTCSweep:
    """Fit ``estimator`` once per λ (ascending, warm-started) and choose one design on validation.

    Parameters
    ----------
    estimator : CSTCClassifier
        Its other parameters are kept (cloned; the original is not fitted).
    X, X_val : array-like of shape (n_train, n_features), (n_val, n_features)
    y, y_val : array-like of shape (n_train,), (n_val,)
    lams : sequence of float >= 0, default :data:`DEFAULT_LAMBDAS`
        Distinct values; sorted ascending before fitting.

    Returns
    -------
    CSTCSweep

    Raises
    ------
    ValueError
        An empty grid, a negative, non-finite or repeated λ; ``y_val`` with labels not in ``y``;
        anything :meth:`CSTCClassifier.fit` refuses.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> s = sweep_lambda(CSTCClassifier(depth=1, random_state=0), X[:400], y[:400], X[400:], y[400:],
    ...                  lams=(0.0, 0.1))
    >>> s.grid["lam"].tolist(), int(s.grid["chosen"].sum())
    ([0.0, 0.1], 1)
    """
    try:
        grid = sorted(float(v) for v in lams)
    except (TypeError, ValueError):
        raise ValueError(f"lams must be numbers; got {lams!r}") from None
    if not grid or any(not np.isfinite(v) or v < 0 for v in grid):
        raise ValueError(f"lams must be a non-empty sequence of finite numbers >= 0; got {lams!r}")
    if len(set(grid)) != len(grid):
        raise ValueError(f"lams has a repeated value: {lams!r}")
    est = clone(estimator).set_params(warm_start=True)
    rows, models = [], []
    for lam in grid:
        est.set_params(lam=lam).fit(X, y)
        if not rows:
            unseen = np.setdiff1d(np.unique(np.asarray(y_val).ravel()), est.classes_)
            if unseen.size:
                raise ValueError(f"y_val has labels not in y: {unseen[:5].tolist()}")
        model = copy.deepcopy(est).set_params(warm_start=estimator.warm_start)
        rows.append({"lam": lam, "n_features": int(model.features_used_.size),
                     "train_cost": float(model.predict_cost(X).mean()),
                     "val_cost": float(model.predict_cost(X_val).mean()),
                     "val_accuracy": float(model.score(X_val, y_val))})
        models.append(model)
    table = pd.DataFrame(rows)
    acc, cost = table["val_accuracy"].to_numpy(), table["val_cost"].to_numpy()
    table["on_front"] = [not np.any((acc >= a) & (cost <= c) & ((acc > a) | (cost < c)))
                         for a, c in zip(acc, cost)]
    chosen = choose_budgeted(acc, cost, table["lam"])
    table["chosen"] = np.arange(len(table)) == chosen
    return CSTCSweep(table, models, chosen)
