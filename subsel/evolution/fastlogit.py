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
   method — the same optimum as ``LogisticRegression`` (``C``, unpenalised intercept), to a
   gradient far below scikit-learn's lbfgs tolerance: :func:`fit_binary_logistic` for one matrix
   (the reference), :class:`SubsetLogisticNewton` for many column subsets of one matrix (EMSCO's
   hot path: the Hessian is reused while it still contracts the gradient fast), and
3. hands back a small scikit-learn classifier (:class:`ColumnwiseLogit`) whose ``predict_proba``
   equals the probabilities the search used.

The default base estimator (``StandardScaler`` + ``LogisticRegression``) and the Credit pipeline
(impute, one-hot, scale, logistic regression) are column-wise; anything else goes through plain
scikit-learn ``clone``/``fit``.
"""
from __future__ import annotations

import threading

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, OneHotEncoder, RobustScaler, StandardScaler

__all__ = ["ColumnEncoders", "ColumnwiseLogit", "SubsetLogisticNewton", "columnwise_spec", "expit",
           "fit_binary_logistic"]

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
        self._unit = all(b.size == 1 for b in self.blocks)   # one encoded column per feature

    def transform(self, X) -> np.ndarray:
        """Encoded matrix of all input columns of ``X``, blocks in column order."""
        parts = []
        for j, enc in enumerate(self.encoders):
            col = _take(X, j)
            parts.append(np.asarray(col, dtype=float) if enc is None else _dense(enc.transform(col)))
        return np.hstack(parts)

    def columns(self, features) -> np.ndarray:
        """Encoded column positions of the input features ``features`` (in that order)."""
        if self._unit:                              # one encoded column per feature: positions
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


class SubsetLogisticNewton:
    """Logistic regressions of many column subsets of one training matrix, by a simplified Newton method.

    Minimises, for a subset ``S`` of the columns of ``Z``, the objective of
    :func:`fit_binary_logistic` on ``Z[:, S]`` (scikit-learn's ``LogisticRegression(C=C)``, binary
    labels, unpenalised intercept) and stops by the same rule: the largest entry of the gradient,
    divided by ``n_samples``, below ``tol``.  The path to that optimum is cheaper:

    - the Hessian ``A^T diag(p(1-p)) A`` (single precision, as in :func:`fit_binary_logistic`) and
      its Cholesky factor are *reused* across steps while a step still shrinks the largest gradient
      entry at least ``1 / refresh_ratio``-fold (the chord or Shamanskii variant of Newton's method:
      C. T. Kelley, *Iterative Methods for Linear and Nonlinear Equations*, SIAM 1995, §5.4 and
      §5.5); a step that shrinks it less than twofold is retried with a fresh Hessian, and a fresh
      Newton step that does not either backtracks on the objective, so every fit converges like
      damped Newton;
    - a warm start may bring a nearby fit's last Hessian (``hessian0``): only the rows of the new
      columns are computed, ``2 k_new n (k + 1)`` operations instead of ``n (k + 1)^2``;
    - steps run in single precision (products, logistic function) until the largest gradient
      entry is a quarter of the stopping threshold, or single precision stalls; the stopping rule
      itself is then checked, and met, in double precision (double-precision steps if needed);
    - the encoded columns of a subset are gathered into per-thread buffers (no large temporaries
      per fit), and a cold start's first Hessian is the slice ``[Z, 1]^T [Z, 1] / 4`` of the Gram
      matrix of all columns, computed once.

    Different paths end at different points inside the stopping rule: coefficients agree with
    :func:`fit_binary_logistic`'s to the accuracy that rule guarantees, not bit for bit.

    Parameters
    ----------
    Z : ndarray of float, shape (n_samples, n_columns)
        Encoded training inputs (finite).
    y : ndarray of int, shape (n_samples,)
        Labels in {0, 1}.
    C : float, default 1.0
        Inverse L2 regularisation (the intercept is not penalised).
    tol : float, default 1e-6
        Stop when the largest gradient entry divided by ``n_samples`` is below ``tol``.
    max_iter : int, default 100
        Most steps per fit in each precision (single, then double).
    refresh_ratio : float, default 0.25
        Keep the Hessian after a step that shrank the largest gradient entry to at most this
        fraction; form a fresh one otherwise.

    Raises
    ------
    ValueError
        ``Z`` is not a finite 2-D array, ``y`` has another length or labels outside {0, 1}, or
        ``C``, ``tol``, ``max_iter`` or ``refresh_ratio`` is out of range (the message names it).

    Notes
    -----
    Safe to call from several threads at once (each thread has its own buffers); BLAS should run
    single-threaded, as the products are small.
    """

    def __init__(self, Z, y, C: float = 1.0, tol: float = 1e-6, max_iter: int = 100,
                 refresh_ratio: float = 0.25):
        Z = np.asarray(Z, dtype=float)
        y = np.asarray(y)
        if Z.ndim != 2 or not np.all(np.isfinite(Z)):
            raise ValueError(f"Z must be a finite 2-D array; got shape {Z.shape}")
        if y.shape != (Z.shape[0],):
            raise ValueError(f"y must have shape ({Z.shape[0]},); got {y.shape}")
        bad = np.flatnonzero((y != 0) & (y != 1))
        if bad.size:
            raise ValueError(f"y must hold labels 0 and 1; y[{bad[0]}] = {y[bad[0]].item()!r}")
        for name, value, ok, rule in (
                ("C", C, C > 0, "> 0"), ("tol", tol, tol > 0, "> 0"),
                ("max_iter", max_iter, int(max_iter) == max_iter and max_iter >= 1, "an integer >= 1"),
                ("refresh_ratio", refresh_ratio, 0 <= refresh_ratio <= 1, "in [0, 1]")):
            if not ok:
                raise ValueError(f"{name} must be {rule}; got {value!r}")
        n, m = Z.shape
        self.n_samples, self.n_columns = n, m
        self.C, self.tol, self.max_iter = float(C), float(tol), int(max_iter)
        self.refresh_ratio = float(refresh_ratio)
        At = np.empty((m + 1, n))
        At[:m] = Z.T
        At[m] = 1.0
        self._At = At                               # [Z, 1] transposed: a subset is a row gather
        self._At32 = At.astype(np.float32)
        self._gram = At @ At.T
        self._pos = (y == 1).astype(float)
        self._sign = 2.0 * self._pos - 1.0
        self._pos32 = self._pos.astype(np.float32)
        self._local = threading.local()

    def _buffers(self, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This thread's buffers for ``rows`` gathered columns (grown to the largest subset seen)."""
        buf = getattr(self._local, "buffers", None)
        if buf is None or buf[0].shape[0] < rows:
            n = self.n_samples
            buf = self._local.buffers = (np.empty((rows, n)), np.empty((rows, n), dtype=np.float32),
                                         np.empty((rows, n), dtype=np.float32))
        return buf

    def fit(self, columns, w0: np.ndarray | None = None, hessian0: np.ndarray | None = None,
            known: np.ndarray | None = None):
        """Logistic regression on the columns ``columns`` of ``Z``.

        Parameters
        ----------
        columns : array-like of int, shape (k,)
            Column positions in ``Z`` (distinct).
        w0 : ndarray of float, shape (k + 1,), optional
            Starting point ``[coef, intercept]`` (default zeros), e.g. a nearby subset's optimum
            mapped onto ``columns`` (zeros for its new columns): only the path depends on it.
        hessian0 : ndarray of float, shape (k + 1, k + 1), optional
            With ``w0``: an approximation of the unregularised Hessian (columns, then intercept),
            e.g. the one a nearby subset's fit ended with, used as the first Hessian; its rows and
            columns where ``known`` is False are ignored and computed at ``w0``.  Only the path
            depends on it (a Hessian that contracts the gradient too slowly is replaced).
        known : ndarray of bool, shape (k + 1,), optional
            Which rows and columns of ``hessian0`` hold values (default all).

        Returns
        -------
        coef : ndarray of float64, shape (k,)
        intercept : float
        n_hessians : int
            Hessians formed in full (a cold start's first, from the Gram matrix, included; one
            assembled from ``hessian0`` is not counted).
        hessian : ndarray of float32, shape (k + 1, k + 1), or None
            The last Hessian used (unregularised), for ``hessian0`` of a nearby fit; None when
            ``w0`` met the stopping rule already.

        Raises
        ------
        ValueError
            ``w0``, ``hessian0`` or ``known`` has the wrong shape.
        """
        cols = np.append(np.asarray(columns, dtype=np.int64), self.n_columns)
        k1 = cols.size
        if w0 is not None:
            w0 = np.array(w0, dtype=float)
            if w0.shape != (k1,):
                raise ValueError(f"w0 must have shape ({k1},) (coefficients and intercept); "
                                 f"got {w0.shape}")
        if hessian0 is not None:
            if w0 is None:
                hessian0 = None
            elif np.shape(hessian0) != (k1, k1):
                raise ValueError(f"hessian0 must have shape ({k1}, {k1}); got {np.shape(hessian0)}")
            elif known is not None and np.shape(known) != (k1,):
                raise ValueError(f"known must have shape ({k1},); got {np.shape(known)}")
        H_last = None
        buf64, buf32, bufB = self._buffers(k1)
        reg = np.full(k1, 1.0 / self.C)
        reg[-1] = 0.0
        stop = self.tol * self.n_samples
        with np.errstate(over="ignore"):
            # single precision until the gradient is well inside the stopping rule, then the rule
            # itself is checked (and met) in double precision
            A = np.take(self._At32, cols, axis=0, out=buf32[:k1], mode="clip")
            pos = self._pos32
            target = 0.25 * stop
            if w0 is None:
                w = np.zeros(k1)
                z = np.zeros(self.n_samples, dtype=np.float32)
                p = np.full(self.n_samples, 0.5, dtype=np.float32)
            else:
                w = w0
                z = w.astype(np.float32) @ A
                p = _logistic(z)
            g = (A @ (p - pos)).astype(float) + reg * w
            gmax = np.abs(g).max()
            single = True
            chol = None
            fresh = False
            n_hess = 0
            steps = 0
            while True:
                if gmax < target or steps >= self.max_iter:
                    if not single:
                        break
                    single = False                  # the stopping rule, in double precision
                    A = np.take(self._At, cols, axis=0, out=buf64[:k1], mode="clip")
                    pos, target, steps = self._pos, stop, 0
                    z = w @ A
                    p = _logistic(z)
                    g = A @ (p - pos) + reg * w
                    gmax = np.abs(g).max()
                    continue
                if chol is None:
                    if hessian0 is not None:        # a neighbour's, its new rows at w0
                        H = np.array(hessian0, dtype=np.float32)
                        new = None if known is None else np.flatnonzero(~np.asarray(known))
                        if new is not None and new.size:
                            A32 = self._At32.take(cols, axis=0) if not single else A
                            rows = (A32[new] * (p * (1.0 - p)).astype(np.float32)) @ A32.T
                            H[new, :] = rows
                            H[:, new] = rows.T
                        hessian0 = None
                        fresh = False
                    elif w0 is None and n_hess == 0:
                        H = 0.25 * self._gram.take(cols, axis=0).take(cols, axis=1)
                        n_hess += 1
                        fresh = True
                    else:
                        B = np.take(self._At32, cols, axis=0, out=bufB[:k1], mode="clip")
                        np.multiply(B, np.sqrt(p * (1.0 - p)).astype(np.float32), out=B)
                        H = B @ B.T
                        n_hess += 1
                        fresh = True
                    H_last = H
                    H = H.astype(float)
                    H.flat[:: k1 + 1] += reg + 1e-12
                    chol, info = dpotrf(H, lower=1)
                    if info != 0 and not fresh:     # blocks from two points need not fit: a fresh one
                        chol = None
                        continue
                    if info != 0:  # pragma: no cover - H is positive definite
                        raise np.linalg.LinAlgError(
                            f"Hessian not positive definite (potrf info={info})")
                steps += 1
                step = dpotrs(chol, g, lower=1)[0]
                u = step.astype(A.dtype) @ A
                w1 = w - step
                z1 = z - u
                p1 = _logistic(z1)
                g1 = (A @ (p1 - pos)).astype(float) + reg * w1
                g1max = np.abs(g1).max()
                if g1max <= 0.5 * gmax:             # the step contracted the gradient: take it
                    w, z, p, g = w1, z1, p1, g1
                    if g1max > self.refresh_ratio * gmax:
                        chol = None
                    gmax = g1max
                    fresh = False
                    continue
                if not fresh:                       # stale Hessian: a fresh one at this point
                    chol = None
                    continue
                if single:                          # single precision stalls: go on in double
                    target = np.inf
                    continue
                # a fresh Newton step that does not contract the gradient: backtrack on the objective
                f = -log_expit(self._sign * z).sum() + 0.5 * np.dot(reg * w, w)
                t = 1.0
                while True:
                    wt = w - t * step
                    zt = z - t * u
                    ft = -log_expit(self._sign * zt).sum() + 0.5 * np.dot(reg * wt, wt)
                    if ft <= f or t < 1e-10:
                        break
                    t *= 0.5
                if ft > f:                          # no descent left at rounding level
                    break
                w, z = wt, zt
                p = _logistic(z)
                g = (A @ (p - pos)).astype(float) + reg * w
                gmax = np.abs(g).max()
                chol = None
        if H_last is not None:
            H_last = np.asarray(H_last, dtype=np.float32)
        return w[:-1].copy(), float(w[-1]), n_hess, H_last


def _logistic(z: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-z))`` in three vectorised passes (overflow to ``inf`` gives 0, exactly)."""
    e = np.negative(z)
    np.exp(e, out=e)
    e += 1.0
    return np.reciprocal(e, out=e)


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
