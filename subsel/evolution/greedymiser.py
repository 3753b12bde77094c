"""GreedyMiser, the budgeted baseline of EMSCO's Table II, on LightGBM's cost-efficient boosting.

Hamilton & Fulp, *Budgeted Classification with Rejection: An Evolutionary Method with Multiple
Objectives* (IEEE CEC 2022), §V, compare EMSCO with GreedyMiser (Xu, Weinberger, Chapelle, "The
Greedy Miser: Learning under Test-time Budgets", ICML 2012): gradient-boosted trees whose split
criterion pays for the first use of a feature, so the ensemble trades loss against the cost of
the features it acquires.  LightGBM implements cost-efficient gradient boosting (Peter, Pauwels,
Hamprecht, "Cost efficient gradient boosting", NeurIPS 2017), which generalises GreedyMiser: a
feature's penalty ``cegb_penalty_feature_coupled`` is paid once per model, weighted by
``cegb_tradeoff`` against the loss reduction of the split.  That is GreedyMiser's feature-cost
term; its per-tree evaluation cost is left out (LightGBM's trees are cheap to evaluate).

The baseline accepts every input (coverage 1); every input pays for every feature the ensemble
uses.  The trade-off is tuned on the validation split: of a small grid, the one of highest
validation accuracy (ties: lower feature cost, then the larger trade-off) — the choice of a
non-selective classifier that the paper's protocol, which compares test accuracy at the method's
own cost, would report.

LightGBM is an optional dependency (``pip install "subsel[evolution]"``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.validation import check_is_fitted

from .._validation import check_scalar
from .selection import choose_budgeted
from .staged import check_cost_total

__all__ = ["DEFAULT_TRADEOFFS", "GreedyMiserClassifier"]

#: ``cegb_tradeoff`` grid; the feature penalties are the costs divided by the largest cost, so a
#: trade-off ``t`` charges the dearest feature ``t`` units of the binary log-loss summed over the
#: training inputs (0: plain gradient boosting).
DEFAULT_TRADEOFFS = (0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0)


def _lightgbm():
    from .._extras import require

    require("lightgbm", extra="evolution", feature="the GreedyMiser baseline")
    import lightgbm

    return lightgbm


class GreedyMiserClassifier(ClassifierMixin, BaseEstimator):
    """GreedyMiser (feature-cost-aware gradient boosting) with its trade-off tuned on validation.

    Parameters
    ----------
    feature_costs : array-like of float, shape (n_features,)
        Acquisition cost of each input column (>= 0, not all 0).  A categorical column (strings
        or pandas categories) is one feature, acquired at its cost (LightGBM splits on it natively).
    tradeoffs : sequence of float >= 0, default :data:`DEFAULT_TRADEOFFS`
        Candidate ``cegb_tradeoff`` values.
    n_estimators : int, default 100
        Boosting rounds.
    learning_rate : float, default 0.1
    num_leaves : int, default 8
        Leaves per tree (GreedyMiser grows shallow regression trees).
    min_child_samples : int, default 10
    random_state : int, default 0
        LightGBM's seed (the fit is deterministic and single-threaded).

    Attributes
    ----------
    tradeoff_ : float
        The chosen trade-off.
    features_used_ : ndarray of int64
        Input columns the chosen ensemble splits on (all acquired for every input).
    cost_ : float
        Acquisition cost per input: the sum of the costs of ``features_used_``.
    grid_ : pandas.DataFrame
        Per trade-off: ``tradeoff, n_features, cost, val_accuracy, chosen``.
    booster_ : lightgbm.LGBMClassifier
        The chosen model.
    classes_ : ndarray

    Raises
    ------
    ImportError
        LightGBM is not installed (at ``fit``).
    """

    def __init__(self, feature_costs=None, tradeoffs=DEFAULT_TRADEOFFS, n_estimators=100,
                 learning_rate=0.1, num_leaves=8, min_child_samples=10, random_state=0):
        self.feature_costs = feature_costs
        self.tradeoffs = tradeoffs
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_child_samples = min_child_samples
        self.random_state = random_state

    def _frame(self, X) -> pd.DataFrame:
        X = X.copy() if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        X.columns = [f"f{j}" for j in range(X.shape[1])]
        for c, cats in self._categories.items():
            X[c] = pd.Categorical(X[c], categories=cats)
        return X

    def fit(self, X, y, X_val, y_val):
        """Train one ensemble per trade-off on ``(X, y)``; keep the best on ``(X_val, y_val)``.

        Parameters
        ----------
        X, X_val : array-like or DataFrame, shapes (n_train, n_features), (n_val, n_features)
        y, y_val : array-like of shape (n_train,), (n_val,)

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Costs of the wrong length, negative, non-finite or all zero; an empty or negative
            trade-off grid; ``y_val`` with labels not in ``y``.
        """
        lgb = _lightgbm()
        n_features = X.shape[1]
        costs = np.asarray(self.feature_costs if self.feature_costs is not None else np.ones(n_features),
                           dtype=float).ravel()
        if costs.size != n_features:
            raise ValueError(f"feature_costs has {costs.size} values but X has {n_features} features")
        bad = np.flatnonzero(~np.isfinite(costs) | (costs < 0))
        if bad.size:
            raise ValueError(f"feature_costs[{bad[0]}] must be a finite number >= 0; got {costs[bad[0]]!r}")
        if costs.max() <= 0:
            raise ValueError("feature_costs are all 0: nothing to trade off")
        check_cost_total(costs, "feature_costs")
        grid = [float(t) for t in self.tradeoffs]
        if not grid or any(not np.isfinite(t) or t < 0 for t in grid):
            raise ValueError(f"tradeoffs must be a non-empty sequence of numbers >= 0; got {self.tradeoffs!r}")
        for name in ("n_estimators", "num_leaves", "min_child_samples"):
            v = getattr(self, name)
            check_scalar(v, name, int, min_val=2 if name == "num_leaves" else 1)
        enc = LabelEncoder().fit(np.asarray(y).ravel())
        self.classes_ = enc.classes_
        unseen = np.setdiff1d(np.unique(np.asarray(y_val).ravel()), self.classes_)
        if unseen.size:
            raise ValueError(f"y_val has labels not in y: {unseen[:5].tolist()}")
        y_tr, y_va = enc.transform(np.asarray(y).ravel()), enc.transform(np.asarray(y_val).ravel())
        raw = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        self._categories = {f"f{j}": sorted(raw.iloc[:, j].dropna().unique().tolist())
                            for j in range(n_features) if not pd.api.types.is_numeric_dtype(raw.iloc[:, j])}
        X_tr, X_va = self._frame(X), self._frame(X_val)
        # Penalties relative to the dearest feature, in (0, 1].  LightGBM reads its parameters back
        # from text with C++'s stod, which refuses subnormal numbers ("LightGBMError: stod" for a
        # cost of 5e-324): a penalty below the smallest normal float (2.2e-308 of the dearest
        # cost) is 0 to LightGBM anyway, so it is passed as 0.
        ratio = costs / costs.max()
        penalty = np.where(ratio < np.finfo(float).tiny, 0.0, ratio).tolist()
        rows, models = [], []
        for t in grid:
            model = lgb.LGBMClassifier(
                n_estimators=self.n_estimators, learning_rate=self.learning_rate,
                num_leaves=self.num_leaves, min_child_samples=self.min_child_samples,
                cegb_tradeoff=t, cegb_penalty_feature_coupled=penalty, deterministic=True,
                force_col_wise=True, num_threads=1, random_state=int(self.random_state), verbose=-1)
            model.fit(X_tr, y_tr)
            used = np.flatnonzero(model.booster_.feature_importance("split") > 0)
            rows.append({"tradeoff": t, "n_features": int(used.size), "cost": float(costs[used].sum()),
                         "val_accuracy": float(np.mean(model.predict(X_va) == y_va))})
            models.append((model, used))
        grid_ = pd.DataFrame(rows)
        best = choose_budgeted(grid_["val_accuracy"], grid_["cost"], grid_["tradeoff"])
        grid_["chosen"] = np.arange(len(grid_)) == best
        self.grid_ = grid_
        self.booster_, self.features_used_ = models[best]
        self.tradeoff_ = float(grid_["tradeoff"].iloc[best])
        self.cost_ = float(grid_["cost"].iloc[best])
        self.n_features_in_ = n_features
        return self

    def predict(self, X) -> np.ndarray:
        """Labels of every input (no reject option)."""
        check_is_fitted(self)
        return self.classes_[self.booster_.predict(self._frame(X))]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n_samples, n_classes), columns in ``classes_`` order."""
        check_is_fitted(self)
        return self.booster_.predict_proba(self._frame(X))

    def evaluate(self, X, y) -> dict:
        """EMSCO's objectives on ``(X, y)``: ``{"g1": 1.0, "g2": accuracy, "g3*": cost_}``."""
        y = np.asarray(y).ravel()
        if y.size != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but y has {y.size}")
        return {"g1": 1.0, "g2": float(np.mean(self.predict(X) == y)), "g3*": self.cost_}
