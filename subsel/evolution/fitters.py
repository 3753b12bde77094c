"""How EMSCO trains the classifier of one cumulative feature set: a small fitter protocol.

Hamilton & Fulp, *Budgeted Classification with Rejection: An Evolutionary Method with Multiple
Objectives* (IEEE CEC 2022), §III: stage ``m`` of a solution classifies with every feature of
stages ``0..m``, so a classifier depends only on its cumulative feature set and is trained once per
set and run.  A *stage fitter* trains the classifiers of many sets on the training split and
records, for each, its validation outcome (:class:`FittedStage`):

- :class:`SklearnStageFitter`: any scikit-learn classifier with ``predict_proba`` (``clone`` +
  ``fit``, seeded per set, optionally in joblib processes);
- :class:`ColumnwiseLogitFitter`: column-wise logistic pipelines (:mod:`subsel.evolution.fastlogit`),
  solved by Newton's method on pre-encoded columns, warm-started from a nearby set's optimum.

:func:`make_stage_fitter` picks the second whenever the base classifier allows it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone

from . import fastlogit

__all__ = ["ColumnwiseLogitFitter", "FittedStage", "LogitCoefficients", "SklearnStageFitter",
           "StageFitter", "full_proba", "make_stage_fitter", "take_columns"]


@dataclass
class FittedStage:
    """The classifier of one cumulative feature set and its outcome on the validation split.

    Attributes
    ----------
    columns : tuple of int
        The feature set (input column positions, increasing).
    model : object
        A fitted scikit-learn classifier, or :class:`LogitCoefficients` for the column-wise
        logistic fitter (turned into a classifier by :meth:`StageFitter.classifier`).
    accepted : ndarray of bool, shape (n_val,)
        Top class probability ``>= p̂`` on each validation input.
    correct : ndarray of bool, shape (n_val,)
        Whether the predicted label of each validation input is right.
    newton_iterations : int
        Hessians formed in full by the fit (0 for scikit-learn fits).
    hessian : ndarray of float32 or None
        The last Hessian of the training objective the column-wise logistic fit used (encoded
        columns, then intercept), a warm start for nearby sets; the problem keeps it only for
        recently trained sets (None otherwise, and for scikit-learn fits).
    """

    columns: tuple
    model: object
    accepted: np.ndarray
    correct: np.ndarray
    newton_iterations: int = 0
    hessian: np.ndarray | None = None


@dataclass(frozen=True)
class LogitCoefficients:
    """Coefficients of a column-wise logistic regression on encoded columns: ``coef``, ``intercept``."""

    coef: np.ndarray
    intercept: float


class StageFitter(Protocol):
    """What :class:`~subsel.evolution.staged.StagedClassificationProblem` needs from a fitter.

    Attributes
    ----------
    warm_starts : bool
        Whether :meth:`fit` uses the fitted subsets passed as ``starts`` (the problem then trains a
        set after its new subset, wave by wave, so results do not depend on ``n_jobs``).
    """

    warm_starts: bool

    def fit(self, columns: list[tuple], starts: list[FittedStage | None]) -> list[FittedStage]:
        """Train one classifier per feature set of ``columns`` (``starts``: a fitted subset or None)."""
        ...

    def classifier(self, stage: FittedStage):
        """A fitted scikit-learn classifier with ``predict_proba`` for ``stage``."""
        ...


def take_columns(X, cols):
    """Columns ``cols`` (positions) of an ndarray or a pandas DataFrame, keeping the type."""
    if hasattr(X, "iloc"):
        return X.iloc[:, list(cols)]
    return X[:, list(cols)]


def full_proba(estimator, X, n_classes: int) -> np.ndarray:
    """``predict_proba`` with columns placed at the estimator's (integer-coded) classes."""
    P = estimator.predict_proba(X)
    cls = np.asarray(estimator.classes_, dtype=np.int64)
    if cls.size == n_classes and np.array_equal(cls, np.arange(n_classes)):
        return P
    full = np.zeros((P.shape[0], n_classes))
    full[:, cls] = P
    return full


def _fit_one(base_estimator, X, y, cols: tuple[int, ...], seed: int):
    """Clone, seed (when the estimator has an unset ``random_state``) and fit on columns ``cols``."""
    est = clone(base_estimator)
    params = est.get_params(deep=True)
    seeded = {k: seed for k, v in params.items()
              if (k == "random_state" or k.endswith("__random_state")) and v is None}
    if seeded:
        est.set_params(**seeded)
    return est.fit(take_columns(X, cols), y)


class SklearnStageFitter:
    """Stage fitter for any scikit-learn classifier: ``clone`` + ``fit`` per feature set.

    Parameters
    ----------
    base_estimator : classifier with ``predict_proba``
    X_train, X_val : ndarray or DataFrame
    y_train, y_val : ndarray of int, labels coded ``0..n_classes-1``
    n_classes : int
    confidence : float
        p̂.
    seed : int
        Seeds an unset ``random_state`` of each clone, derived from the seed and the feature set
        (so models do not depend on training order or ``n_jobs``).
    n_jobs : int or None
        joblib processes for a batch of sets.
    """

    warm_starts = False

    def __init__(self, base_estimator, X_train, y_train, X_val, y_val, n_classes: int,
                 confidence: float, seed: int = 0, n_jobs: int | None = None):
        self.base_estimator = base_estimator
        self.X_train, self.y_train, self.X_val, self.y_val = X_train, y_train, X_val, y_val
        self.n_classes = int(n_classes)
        self.confidence = float(confidence)
        self.seed = int(seed)
        self.n_jobs = n_jobs
        self.n_features = X_train.shape[1]

    def _set_seed(self, cols: tuple[int, ...]) -> int:
        mask = np.zeros(self.n_features, dtype=np.uint32)
        mask[list(cols)] = 1
        return int(np.random.SeedSequence([self.seed, *mask.tolist()]).generate_state(1)[0])

    def fit(self, columns: list[tuple], starts=None) -> list[FittedStage]:
        args = [(self.base_estimator, self.X_train, self.y_train, c, self._set_seed(c)) for c in columns]
        if self.n_jobs not in (None, 1) and len(args) > 1:
            fitted = Parallel(n_jobs=self.n_jobs)(delayed(_fit_one)(*a) for a in args)
        else:
            fitted = [_fit_one(*a) for a in args]
        out = []
        for c, est in zip(columns, fitted):
            P = full_proba(est, take_columns(self.X_val, c), self.n_classes)
            out.append(FittedStage(tuple(c), est, P.max(axis=1) >= self.confidence,
                                   P.argmax(axis=1) == self.y_val))
        return out

    def classifier(self, stage: FittedStage):
        return stage.model


class ColumnwiseLogitFitter:
    """Stage fitter for column-wise logistic pipelines on binary labels (EMSCO's hot path).

    Every input column is encoded once (:class:`~subsel.evolution.fastlogit.ColumnEncoders`); a
    feature set's logistic regression is solved by a simplified Newton method on its encoded
    columns (:class:`~subsel.evolution.fastlogit.SubsetLogisticNewton`), from a fitted nearby set's
    coefficients and last Hessian when one is given (shared columns keep their weights, new ones
    start at zero: fewer steps, the same optimum to the solver's stopping rule).

    Parameters
    ----------
    encoders : ColumnEncoders
        Fitted on the training split.
    C : float
        Inverse regularisation of the logistic regression.
    X_train, X_val : ndarray or DataFrame
    y_train, y_val : ndarray of int in {0, 1}
    confidence : float
        p̂.
    n_jobs : int or None
        joblib threads for a wave of sets (numpy releases the GIL in the dominant products).

    Raises
    ------
    ValueError
        The encoded training or validation data are not finite (e.g. NaN the pipeline does not
        impute): use :class:`SklearnStageFitter`.
    """

    warm_starts = True

    def __init__(self, encoders, C: float, X_train, y_train, X_val, y_val, confidence: float,
                 n_jobs: int | None = None):
        self.encoders = encoders
        Z_train, Z_val = encoders.transform(X_train), encoders.transform(X_val)
        if not (np.all(np.isfinite(Z_train)) and np.all(np.isfinite(Z_val))):
            raise ValueError("encoded inputs are not finite")
        self.C = float(C)
        self.y_train, self.y_val = np.asarray(y_train), np.asarray(y_val)
        self.confidence = float(confidence)
        self.n_jobs = n_jobs
        self.solver = fastlogit.SubsetLogisticNewton(Z_train, self.y_train, self.C)
        self._n_encoded = Z_train.shape[1]
        self._Zt_val = np.ascontiguousarray(Z_val.T)

    def _fit_one(self, c: tuple[int, ...], start: FittedStage | None) -> FittedStage:
        z = self.encoders.columns(c)
        w0 = H0 = known = None
        if start is not None:                   # any fitted set: shared columns keep their weights
            sz = self.encoders.columns(start.columns)
            full = np.zeros(self._n_encoded + 1)
            full[sz] = start.model.coef
            full[-1] = start.model.intercept
            w0 = np.append(full[z], full[-1])
            if start.hessian is not None:       # and their block of its last Hessian
                where = np.full(self._n_encoded + 1, -1)
                where[sz] = np.arange(sz.size)
                where[-1] = sz.size
                loc = where[np.append(z, self._n_encoded)]
                known = loc >= 0
                # rows and columns of new columns are placeholders (the solver computes them)
                H0 = start.hessian.take(loc, axis=0, mode="clip").take(loc, axis=1, mode="clip")
        coef, b, n_iter, H = self.solver.fit(z, w0, H0, known)
        p1 = fastlogit.expit(coef @ self._Zt_val.take(z, axis=0) + b)
        label = (p1 > 0.5).astype(np.int64)
        ok = np.maximum(p1, 1.0 - p1) >= self.confidence
        return FittedStage(tuple(c), LogitCoefficients(coef, b), ok, label == self.y_val, n_iter, H)

    def fit(self, columns: list[tuple], starts: list[FittedStage | None]) -> list[FittedStage]:
        if self.n_jobs not in (None, 1) and len(columns) > 1:
            return Parallel(n_jobs=self.n_jobs, prefer="threads")(
                delayed(self._fit_one)(c, s) for c, s in zip(columns, starts))
        return [self._fit_one(c, s) for c, s in zip(columns, starts)]

    def classifier(self, stage: FittedStage):
        m = stage.model
        if isinstance(m, fastlogit.ColumnwiseLogit):
            return m
        return fastlogit.ColumnwiseLogit([self.encoders.encoders[j] for j in stage.columns], m.coef,
                                         m.intercept)


def make_stage_fitter(base_estimator, X_train, y_train, X_val, y_val, n_classes: int,
                      confidence: float, seed: int = 0, n_jobs: int | None = None) -> StageFitter:
    """The fastest correct fitter for ``base_estimator``.

    :class:`ColumnwiseLogitFitter` for binary labels and a column-wise logistic pipeline
    (:func:`~subsel.evolution.fastlogit.columnwise_spec`) whose encodings are finite; otherwise
    :class:`SklearnStageFitter`.  Parameters as for those classes.
    """
    spec = fastlogit.columnwise_spec(base_estimator) if int(n_classes) == 2 else None
    if spec is not None:
        try:
            encoders = fastlogit.ColumnEncoders(spec[0], X_train)
            return ColumnwiseLogitFitter(encoders, spec[1], X_train, y_train, X_val, y_val,
                                         confidence, n_jobs)
        except (TypeError, ValueError):
            pass
    return SklearnStageFitter(base_estimator, X_train, y_train, X_val, y_val, n_classes, confidence,
                              seed, n_jobs)
