"""Fast exact fits of column-wise logistic pipelines, EMSCO's hot path.

EMSCO trains one classifier per cumulative feature set, tens of thousands per run at the paper's
settings, and scikit-learn's ``fit`` costs milliseconds of overhead each (a ColumnTransformer with
imputation and one-hot encoding, a hundred).  Many base classifiers are *column-wise pipelines*:
preprocessing that treats every input column on its own (scaling, imputation, one-hot encoding)
followed by an L2-regularised binary logistic regression.  For those, fitting the preprocessing on a
subset of columns gives exactly the per-column blocks of fitting it on each column alone, so this
module

1. fits one encoder per input column once (:func:`columnwise_spec`, :class:`ColumnEncoders`),
2. solves the logistic regression of any column subset on the concatenated blocks by Newton's
   method (:func:`fit_binary_logistic`) — the same optimum as ``LogisticRegression`` (``C``,
   unpenalised intercept), to a gradient far below scikit-learn's lbfgs tolerance, and
3. hands back a small scikit-learn classifier (:class:`ColumnwiseLogit`) whose ``predict_proba``
   equals the probabilities the search used.

The default base estimator (``StandardScaler`` + ``LogisticRegression``) and the Credit pipeline
(impute, one-hot, scale, logistic regression) are column-wise; anything else goes through plain
scikit-learn ``clone``/``fit``.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, OneHotEncoder, RobustScaler, StandardScaler

__all__ = ["ColumnEncoders", "ColumnwiseLogit", "columnwise_spec", "expit", "fit_binary_logistic"]

#: Transformers that treat every column on its own (fitted on a column subset = the same blocks).
COLUMNWISE = (StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler, SimpleImputer, OneHotEncoder)


def _columnwise_transformer(t) -> bool:
    if t in ("drop",):
        return True
    if isinstance(t, Pipeline):
        return all(s in (None, "passthrough") or _columnwise_transformer(s) for _, s in t.steps)
    if isinstance(t, ColumnTransformer):
        return t.remainder == "drop" and all(
            _columnwise_transformer(tr) and callable(cols) for _, tr, cols in t.transformers)
    return isinstance(t, COLUMNWISE)


def columnwise_spec(estimator) -> tuple[object, float] | None:
    """Whether ``estimator`` is a column-wise logistic pipeline, and its parts.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Candidate base classifier.

    Returns
    -------
    (preprocessing, C) or None
        ``preprocessing`` is an unfitted transformer (None for a bare logistic regression) whose
        clones are fitted per input column; ``C`` the logistic regression's inverse regularisation.
        ``None`` when the estimator is not of that form: a final step other than an L2,
        intercept-fitting, unweighted ``LogisticRegression`` with a non-liblinear solver, or a
        preprocessing step that mixes columns (a ColumnTransformer must select columns by callables
        such as ``make_column_selector`` and drop the remainder).
    """
    steps = estimator.steps if isinstance(estimator, Pipeline) else [("lr", estimator)]
    lr = steps[-1][1]
    if type(lr) is not LogisticRegression:
        return None
    p = lr.get_params()
    if p["penalty"] not in ("l2", "deprecated") or p["l1_ratio"] not in (None, 0, 0.0) \
            or not p["fit_intercept"] or p["class_weight"] is not None or p["solver"] == "liblinear" \
            or p["dual"]:
        return None
    pre = [s for _, s in steps[:-1] if s not in (None, "passthrough")]
    if not all(_columnwise_transformer(s) for s in pre):
        return None
    prep = None if not pre else (pre[0] if len(pre) == 1 else make_pipeline(*pre))
    return prep, float(p["C"])


def _take(X, j: int):
    return X.iloc[:, [j]] if hasattr(X, "iloc") else np.asarray(X)[:, [j]]


def _dense(Z) -> np.ndarray:
    Z = Z.toarray() if hasattr(Z, "toarray") else Z
    return np.asarray(Z, dtype=float)


class ColumnEncoders:
    """One fitted copy of the preprocessing per input column, and the encoded blocks.

    Parameters
    ----------
    preprocessing : transformer or None
        Cloned and fitted on each column of ``X_train`` alone (None: identity).
    X_train : ndarray or DataFrame of shape (n_samples, n_features)

    Attributes
    ----------
    encoders : list
        Fitted transformer of each column (None for identity).
    blocks : list of ndarray of int64
        Encoded column positions of each input column in :meth:`transform`'s output.
    """

    def __init__(self, preprocessing, X_train):
        self.encoders = []
        self.blocks = []
        start = 0
        for j in range(X_train.shape[1]):
            enc = None if preprocessing is None else clone(preprocessing).fit(_take(X_train, j))
            width = 1 if enc is None else _dense(enc.transform(_take(X_train, j)[:1])).shape[1]
            self.encoders.append(enc)
            self.blocks.append(np.arange(start, start + width))
            start += width

    def transform(self, X) -> np.ndarray:
        """Encoded matrix of all input columns of ``X``, blocks in column order."""
        parts = []
        for j, enc in enumerate(self.encoders):
            col = _take(X, j)
            parts.append(np.asarray(col, dtype=float) if enc is None else _dense(enc.transform(col)))
        return np.hstack(parts)

    def columns(self, features) -> np.ndarray:
        """Encoded column positions of the input features ``features`` (in that order)."""
        if all(b.size == 1 for b in self.blocks):   # one encoded column per feature: positions
            return np.asarray(features, dtype=np.int64).reshape(-1)
        return np.concatenate([self.blocks[j] for j in features]) if len(features) else \
            np.empty(0, dtype=np.int64)


def fit_binary_logistic(Z: np.ndarray, y: np.ndarray, C: float = 1.0, tol: float = 1e-6,
                        max_iter: int = 100, gram: np.ndarray | None = None,
                        A32: np.ndarray | None = None, intercept_column: bool = False,
                        w0: np.ndarray | None = None, return_n_iter: bool = False,
                        full_step_decrement: float = 1e-3):
    """Minimise ``sum_i log(1 + exp(-s_i (z_i.w + b))) + ||w||^2 / (2C)`` by damped Newton steps.

    The objective of scikit-learn's ``LogisticRegression(C=C)`` for binary labels (its lbfgs
    minimises the same function divided by ``n_samples``, to a gradient of 1e-4 by default); the
    intercept ``b`` is not penalised.

    Parameters
    ----------
    Z : ndarray of float, shape (n_samples, n_columns)
        Encoded inputs.
    y : ndarray of int, shape (n_samples,)
        Labels in {0, 1} (``s_i = 2 y_i - 1``).
    C : float, default 1.0
    tol : float, default 1e-6
        Stop when the largest gradient entry divided by ``n_samples`` is below ``tol``.
    max_iter : int, default 100
    gram : ndarray, shape (n_columns + 1, n_columns + 1), optional
        ``[Z, 1]^T [Z, 1]`` if already known (e.g. a slice of the Gram matrix of all columns):
        the first Newton step (at ``w = 0`` every weight is 1/4) then needs no pass over the data.
    A32 : ndarray of float32, optional
        ``[Z, 1]`` in single precision, if already at hand.
    intercept_column : bool, default False
        ``Z``'s last column is all ones and is the intercept (``[Z, 1]`` given; saves a copy).
    w0 : ndarray of float, shape (n_columns + 1,), optional
        Starting point ``[coef, intercept]`` (default zeros), e.g. the optimum of a column subset
        padded with zeros: the objective is strictly convex, so only the number of Newton steps
        depends on it, not the optimum.
    return_n_iter : bool, default False
        Also return the number of Newton steps taken.
    full_step_decrement : float, default 1e-3
        Take the full step without a line search when the squared Newton decrement
        ``grad . H^-1 grad`` (twice the predicted decrease of the objective, in nats summed over
        the samples) is below this.

    Returns
    -------
    coef : ndarray of float64, shape (n_columns,)
    intercept : float
    n_iter : int
        Only with ``return_n_iter``.

    Notes
    -----
    The Hessian ``A^T diag(p(1-p)) A`` is accumulated in single precision (half the time of the
    dominant product); the gradient, the objective and the stopping test stay in double precision,
    so only the step direction is approximate and the optimum is the same.
    """
    n, d = Z.shape
    if intercept_column:
        A = Z                                   # already carries the intercept column
        d -= 1
    else:
        A = np.empty((n, d + 1))
        A[:, :d] = Z
        A[:, d] = 1.0
    A32 = A.astype(np.float32) if A32 is None else A32
    reg = np.full(d + 1, 1.0 / C)
    reg[d] = 0.0
    pos = y == 1
    s = np.where(pos, 1.0, -1.0)
    if w0 is None:
        w = np.zeros(d + 1)
        f = n * np.log(2.0)
        p = np.full(n, 0.5)
    else:
        w = np.array(w0, dtype=float)
        if w.shape != (d + 1,):
            raise ValueError(f"w0 must have shape ({d + 1},) (coefficients and intercept); "
                             f"got {w.shape}")
        z = A @ w
        f = -log_expit(s * z).sum() + 0.5 * np.dot(reg * w, w)
        p = expit(z)
    it = 0
    for it in range(max_iter + 1):
        grad = A.T @ (p - pos) + reg * w
        if it == max_iter or np.max(np.abs(grad)) < tol * n:
            break
        if it == 0 and gram is not None and w0 is None:
            H = 0.25 * np.asarray(gram, dtype=float)
        else:
            B = A32 * np.sqrt(p * (1.0 - p)).astype(np.float32)[:, None]
            H = (B.T @ B).astype(float)
        H.flat[:: d + 2] += reg + 1e-12
        chol, info = dpotrf(H, lower=1)         # Cholesky: LAPACK directly, no wrapper overhead
        if info != 0:  # pragma: no cover - H is positive definite
            raise np.linalg.LinAlgError(f"Hessian not positive definite (potrf info={info})")
        step = dpotrs(chol, grad, lower=1)[0]
        if np.dot(grad, step) < full_step_decrement:
            # Newton decrement tiny: in the quadratic-convergence region the full step is taken
            # without a line search (saves a pass); the gradient test alone decides convergence
            w = w - step
            p = expit(A @ w)
            f = None
            continue
        if f is None:
            f = -log_expit(s * (A @ w)).sum() + 0.5 * np.dot(reg * w, w)
        t = 1.0
        while True:
            w_new = w - t * step
            z_new = A @ w_new
            f_new = -log_expit(s * z_new).sum() + 0.5 * np.dot(reg * w_new, w_new)
            if f_new <= f or t < 1e-10:
                break
            t *= 0.5
        if f_new > f:
            break
        w, f = w_new, f_new
        p = expit(z_new)
    if return_n_iter:
        return w[:d].copy(), float(w[d]), it
    return w[:d].copy(), float(w[d])


class ColumnwiseLogit(ClassifierMixin, BaseEstimator):
    """A fitted column-wise logistic pipeline on a subset of input columns (EMSCO stage model).

    Equivalent to the base pipeline fitted on those columns: each column goes through its own
    fitted encoder, the blocks are concatenated, then ``expit(Z @ coef + intercept)``.  Created by
    :class:`~subsel.evolution.staged.StagedClassificationProblem`, not by users.

    Parameters
    ----------
    encoders : list
        Fitted encoder of each input column of this stage (None: identity).
    coef : ndarray, shape (n_encoded,)
    intercept : float
    """

    def __init__(self, encoders=None, coef=None, intercept=0.0):
        self.encoders = encoders
        self.coef = coef
        self.intercept = intercept

    def fit(self, X, y):  # pragma: no cover - built fitted
        raise NotImplementedError("ColumnwiseLogit is built already fitted by EMSCO")

    @property
    def classes_(self):
        return np.array([0, 1])

    def __sklearn_is_fitted__(self):
        return self.coef is not None

    def decision_function(self, X) -> np.ndarray:
        """Linear score, shape (n_samples,)."""
        parts = []
        for k, enc in enumerate(self.encoders):
            col = _take(X, k)
            parts.append(np.asarray(col, dtype=float) if enc is None else _dense(enc.transform(col)))
        Z = np.hstack(parts) if parts else np.empty((X.shape[0], 0))
        return Z @ np.asarray(self.coef) + self.intercept

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of classes 0 and 1, shape (n_samples, 2)."""
        p1 = expit(self.decision_function(X))
        return np.c_[1.0 - p1, p1]

    def predict(self, X) -> np.ndarray:
        return (self.decision_function(X) > 0).astype(np.int64)
