"""CSTC, the cost-sensitive tree of classifiers: the second budgeted baseline of EMSCO's Table II.

Xu, Kusner, Weinberger, Chen, Chapelle, *Cost-Sensitive Tree of Classifiers* (ICML 2013).  A
complete binary tree of depth D: every internal node ``k`` holds a linear function that routes an
input to its upper child when ``x·v_k > 0`` (the paper's ``x·β^k > θ^k``, the threshold folded
into the bias), every leaf ``l`` holds a linear classifier ``W_l``.  Training minimises, over all
nodes at once (the paper's section "Cost-sensitive tree of classifiers"):

- **soft tree traversal**: during training an input goes up at node ``k`` with probability
  ``σ(x_i·v_k)`` (σ the logistic sigmoid), so it reaches node ``j`` with probability ``p_i^j``, the
  product of those factors along its path;
- **expected tree loss**: ``(1/n) Σ_l Σ_i p_i^l ℓ(x_i, y_i; W_l)``;
- **expected test-time cost**: ``Σ_l P^l c(π^l)`` with ``P^l = (1/n) Σ_i p_i^l`` the share of
  inputs reaching leaf ``l`` and ``c(π^l) = Σ_α c_α ‖Σ_{j∈π^l} |w^j_α|‖_0`` the cost of the features
  used anywhere on the leaf's path ``π^l`` (a feature bought once on a path is free afterwards);
- **its relaxation** (the paper's mixed-norm relaxation of the ℓ0 "norm"): the indicator
  becomes the ℓ2 norm over the path of feature α's weights (an ℓ1 norm over features of ℓ2 norms
  over nodes), ``c̃(π^l) = Σ_α c_α sqrt(Σ_{j∈π^l} ‖w^j_α‖²)``: a first use of a feature costs like
  an ℓ1 penalty, reusing a feature that the path already pays for costs almost nothing;
- the objective ``expected loss + λ · expected relaxed cost + (ρ/2) Σ_j ‖w^j‖²``, minimised
  **cyclically over nodes** (the paper's optimisation): each node's parameters by L-BFGS with the
  others fixed, the root warm-started from a cost-sensitive linear model (the depth-0 tree, the
  paper's single cost-sensitive classifier of its background section), and, after pruning the
  features whose weights the relaxation drove to zero, a **fine-tuning** pass that retrains each
  leaf on the features its path already pays for, without the cost term.

Equation numbers are not cited: every stored copy of the paper we could search (its PMLR page,
PMLR 28(1):133-141, the arXiv listing 1210.2771, two mirrors of the ICML PDF) gave only its title
page and abstract, so its equations could not be read and are named by the paper's terms above.
That material (the abstract and a summary quoting Figure 1) confirms: node ``v^k`` holds a
threshold ``θ^k`` and a weight vector ``β^k`` (Figure 1), soft traversal, the mixed-norm
relaxation of the expected cost, alternating optimisation over the classifiers and the
relaxation's auxiliary variables, and fine-tuning; the rest is our reading.  Choices where the
paper leaves them open (or where our setting differs from its regression/ranking experiments):

- costs: the paper may also charge the evaluation of its classifiers' inputs (in its experiments,
  we understand, regression trees built on the features; not checked in its text); ours act on
  the features directly and pay only their extraction costs, the cost EMSCO's Table II measures;
- loss: logistic (binary) or softmax cross-entropy (multi-class) instead of the paper's squared
  loss, so leaves give class probabilities; routing then needs its own vector ``v_k`` instead of
  thresholding the node's prediction (for two classes the warm start makes them coincide);
- features are standardised (mean 0, variance 1 on the training data) and the costs divided by the
  largest, so ``λ`` is the penalty per unit of standardised weight on the dearest feature, in units
  of the mean log-loss; the bias is neither penalised nor charged;
- the mixed norm is smoothed, ``sqrt(a + ε²) − ε``, for L-BFGS (the paper uses an auxiliary-variable
  bound instead); weights whose norm stays below ``prune_tol`` after optimisation count as zero;
- initialisation: every leaf starts from the warm-start linear model, every routing node from its
  decision score (two classes; for more, the score along a random mix of the class scores drawn
  from ``random_state``) with the bias set so that the node splits the training inputs reaching it
  (hard routing) at their median: the tree starts as a quantile split of the linear score;
- order of the cyclic pass: level by level from the leaves up to the root (so leaves specialise to
  their initial parts before routing moves); nodes of one level do not interact, so they are
  optimised independently (in parallel with ``n_jobs``, with identical results);
- stop: ``max_sweeps`` passes, or earlier when a pass lowers the objective by less than
  ``tol · max(1, objective)``.
"""
from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from scipy.optimize import minimize
from scipy.special import expit, log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data
from threadpoolctl import threadpool_limits

from .._validation import check_scalar
from .estimator import check_feature_costs, check_n_jobs

__all__ = ["CSTCClassifier", "MAX_DEPTH", "mixed_norm_cost", "tree_objective"]

#: Deepest tree accepted: a complete tree of depth D has 2**(D+1) - 1 nodes, each solved in every
#: pass, and training holds n_samples x 2**(D+1) float64 (1 MiB per input at D = 16).
MAX_DEPTH = 16


# -- the relaxed cost and the node objectives ----------------------------------------------------

def mixed_norm_cost(sq_other: np.ndarray, weights: np.ndarray, costs: np.ndarray, eps: float):
    """Smoothed mixed-norm cost of one path and its gradient in one node's weights.

    ``Σ_α c_α (sqrt(‖w_α‖² + s_α + ε²) − ε)``: the mixed-norm relaxation (Xu et al., ICML 2013, expected cost) of the
    path's feature cost ``Σ_α c_α ‖·‖_0``, where ``w_α`` is row α of the node's weights and ``s_α``
    the squared weights of feature α at the path's other nodes.

    Parameters
    ----------
    sq_other : ndarray of shape (n_features,)
        ``s_α >= 0``.
    weights : ndarray of shape (n_features,) or (n_features, n_outputs)
        The node's feature weights (no bias).
    costs : ndarray of shape (n_features,)
        ``c_α >= 0`` (any unit; the result is in the same unit per unit of weight norm).
    eps : float
        Smoothing ``ε > 0``.

    Returns
    -------
    value : float
    grad : ndarray shaped like ``weights``

    Examples
    --------
    >>> v, g = mixed_norm_cost(np.zeros(2), np.array([3.0, 0.0]), np.array([1.0, 5.0]), 1e-12)
    >>> round(v, 9), g.tolist()
    (3.0, [1.0, 0.0])
    """
    w2 = weights ** 2 if weights.ndim == 1 else (weights ** 2).sum(axis=1)
    r = np.sqrt(w2 + sq_other + eps * eps)
    scale = costs / r
    grad = scale * weights if weights.ndim == 1 else scale[:, None] * weights
    return float(costs @ (r - eps)), grad


def _leaf_loss(Z: np.ndarray, y: np.ndarray):
    """Per-input log-loss of scores ``Z`` (n, 1: binary logit; n, K: softmax) and dloss/dZ."""
    if Z.shape[1] == 1:
        z = Z[:, 0]
        loss = np.logaddexp(0.0, z) - y * z
        return loss, (expit(z) - y)[:, None]
    logp = log_softmax(Z, axis=1)
    rows = np.arange(y.size)
    dZ = np.exp(logp)
    dZ[rows, y] -= 1.0
    return -logp[rows, y], dZ


def _leaf_fun(w, Xb, y, weight, rho, lam_p, costs, sq_other, eps, m):
    """Terms of the objective that depend on one leaf's weights (rows: features, then the bias)."""
    W = w.reshape(Xb.shape[1], m)
    loss, dZ = _leaf_loss(Xb @ W, y)
    f = float(weight @ loss)
    g = Xb.T @ (weight[:, None] * dZ)
    body = W[:-1]
    f += 0.5 * rho * float((body ** 2).sum())
    g[:-1] += rho * body
    if lam_p > 0:
        c, gc = mixed_norm_cost(sq_other, body, costs, eps)
        f += lam_p * c
        g[:-1] += lam_p * gc
    return f, g.ravel()


def _route_fun(v, Xb, weight, loss_hi, loss_lo, cond_hi, cond_lo, lam, costs, sq_hi, sq_lo, rho, eps):
    """Terms of the objective that depend on one routing node's vector ``v``.

    ``weight``: p_i^k / n; ``loss_hi/lo``: Σ over the upper/lower subtree's leaves of the conditional
    reach probability times the leaf loss; ``cond_hi/lo`` (n, leaves): those probabilities;
    ``sq_hi/lo`` (leaves, features): squared weights of the other nodes of each leaf's path.
    """
    s = Xb @ v
    sig = expit(s)
    f = float(weight @ (sig * loss_hi + (1.0 - sig) * loss_lo))
    ds = loss_hi - loss_lo
    g = np.zeros_like(v)
    body = v[:-1]
    if lam > 0:
        for sign, P, cond, sq in ((1.0, (weight * sig) @ cond_hi, cond_hi, sq_hi),
                                  (-1.0, (weight * (1.0 - sig)) @ cond_lo, cond_lo, sq_lo)):
            G = np.empty(P.size)
            for j in range(P.size):
                G[j], gc = mixed_norm_cost(sq[j], body, costs, eps)
                g[:-1] += lam * P[j] * gc
            f += lam * float(P @ G)
            ds = ds + sign * lam * (cond @ G)
    g += Xb.T @ (weight * sig * (1.0 - sig) * ds)
    f += 0.5 * rho * float(body @ body)
    g[:-1] += rho * body
    return f, g


class _Tree:
    """Heap-ordered complete binary tree: internal nodes ``0..I-1``, leaves ``I..I+L-1``; the
    children of ``k`` are ``2k+1`` (lower: x·v_k <= 0) and ``2k+2`` (upper)."""

    def __init__(self, depth: int):
        self.depth = depth
        self.n_internal = 2 ** depth - 1
        self.n_leaves = 2 ** depth
        self.leaves = range(self.n_internal, self.n_internal + self.n_leaves)

    def path(self, node: int) -> list[int]:
        out = []
        while node > 0:
            node = (node - 1) // 2
            out.append(node)
        return out[::-1]

    def subtree_leaves(self, node: int) -> list[int]:
        lo = hi = node
        while lo < self.n_internal:
            lo, hi = 2 * lo + 1, 2 * hi + 2
        return list(range(lo, hi + 1))

    def levels(self) -> list[list[int]]:
        return [list(range(2 ** d - 1, 2 ** (d + 1) - 1)) for d in range(self.depth + 1)]


def _log_reach(tree: _Tree, Xb, V) -> np.ndarray:
    """log p_i^j for every input and node (n, n_nodes): the paper's soft tree traversal."""
    n = Xb.shape[0]
    out = np.zeros((n, tree.n_internal + tree.n_leaves))
    if tree.n_internal:
        S = Xb @ V.T
        up, down = -np.logaddexp(0.0, -S), -np.logaddexp(0.0, S)
        for k in range(tree.n_internal):
            out[:, 2 * k + 1] = out[:, k] + down[:, k]
            out[:, 2 * k + 2] = out[:, k] + up[:, k]
    return out


def _sq_weights(tree: _Tree, V, W) -> np.ndarray:
    """Squared feature weights of every node (n_nodes, n_features): ‖w^j_α‖²."""
    rows = [V[k, :-1] ** 2 for k in range(tree.n_internal)]
    rows += [(W[i][:-1] ** 2).sum(axis=1) for i in range(tree.n_leaves)]
    return np.asarray(rows)


def tree_objective(depth: int, Xb, y, V, W, lam: float, rho: float, costs, eps: float) -> float:
    """The whole training objective of a CSTC tree (Xu et al., ICML 2013: expected
    tree loss plus λ times the relaxed expected cost, plus a ridge).

    ``(1/n) Σ_l Σ_i p_i^l ℓ_i^l + λ Σ_l P^l c̃(π^l) + (ρ/2) Σ_j ‖w^j‖²`` (no bias in the last two).

    Parameters
    ----------
    depth : int
        Tree depth D, 0 <= D <= :data:`MAX_DEPTH`.
    Xb : ndarray of shape (n_samples, n_features + 1)
        Inputs with a last column of ones.
    y : ndarray of int, shape (n_samples,)
        Class codes (0/1 when ``W`` has one output column).
    V : ndarray of shape (2**D - 1, n_features + 1)
        Routing vectors.
    W : ndarray of shape (2**D, n_features + 1, n_outputs)
        Leaf weights.
    lam, rho, eps : float
        Cost weight λ, ridge ρ, smoothing ε.
    costs : ndarray of shape (n_features,)

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``depth`` is not an integer in ``[0, MAX_DEPTH]``.
    """
    tree = _Tree(check_scalar(depth, "depth", int, min_val=0, max_val=MAX_DEPTH))
    n = Xb.shape[0]
    P = np.exp(_log_reach(tree, Xb, V)[:, tree.n_internal:])
    sq = _sq_weights(tree, V, W)
    f = 0.0
    for i, leaf in enumerate(tree.leaves):
        loss, _ = _leaf_loss(Xb @ W[i], y)
        f += float(P[:, i] @ loss) / n
        path_sq = sq[tree.path(leaf)].sum(axis=0) + sq[leaf]
        f += lam * P[:, i].mean() * mixed_norm_cost(path_sq, np.zeros(path_sq.size), costs, eps)[0]
    f += 0.5 * rho * float(sum((V[k, :-1] ** 2).sum() for k in range(tree.n_internal)))
    f += 0.5 * rho * float(sum((W[i][:-1] ** 2).sum() for i in range(tree.n_leaves)))
    return f


def _map(fn, arg_tuples: list, n_jobs: int) -> list:
    """``[fn(*a) for a in arg_tuples]``, on joblib threads when ``n_jobs != 1`` (same results)."""
    if n_jobs == 1 or len(arg_tuples) < 2:
        return [fn(*a) for a in arg_tuples]
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(fn)(*a) for a in arg_tuples)


def _lbfgs(fun, x0, args, maxiter: int):
    res = minimize(fun, x0, args=args, jac=True, method="L-BFGS-B",
                   options={"maxiter": maxiter, "ftol": 1e-10, "gtol": 1e-7})
    return res.x


# -- the estimator -----------------------------------------------------------------------------

class CSTCClassifier(ClassifierMixin, BaseEstimator):
    """Cost-sensitive tree of classifiers (Xu, Kusner, Weinberger, Chen, Chapelle, ICML 2013).

    A depth-``depth`` tree of linear routers with a linear (logistic / softmax) classifier in every
    leaf, trained to minimise expected loss plus ``lam`` times the expected feature cost under soft
    routing (see the module text for the objective and every choice made).  Prediction routes each
    input hard to one leaf; the input pays for the features used on its path, each once.

    Parameters
    ----------
    feature_costs : array-like of float, shape (n_features,), default None
        Acquisition cost of each feature (>= 0, any unit).  ``None``: every feature costs 1.
    depth : int in [0, 16], default 3
        Tree depth D (2**D leaves).  0 is a single cost-sensitive linear model.  The tree is
        complete, so memory and time grow as 2**D: training holds n_samples x 2**(D+1) floats
        and solves every node in every pass; above :data:`MAX_DEPTH` = 16 the depth is refused.
    lam : float >= 0, default 0.01
        λ, the weight of the expected relaxed cost (costs divided by the largest; standardised
        features).  0 ignores costs.
    rho : float > 0, default 1e-3
        Ridge ρ on every node's feature weights (keeps routing soft and L-BFGS well posed).
    max_sweeps : int >= 1, default 10
        Cyclic passes over the nodes.
    max_node_iter : int >= 1, default 50
        L-BFGS iterations per node and pass.
    tol : float >= 0, default 1e-5
        Stop when a pass lowers the objective by less than ``tol * max(1, objective)``.
    epsilon : float > 0, default 1e-4
        Smoothing ε of the mixed norm.
    prune_tol : float >= 0, default 1e-2
        A node uses feature α when the norm of its weights on α exceeds this (standardised units).
    warm_start : bool, default False
        Start from the previous fit's (unpruned) tree when the data shape allows (used by
        :func:`subsel.evolution.cstc_sweep.sweep_lambda` along a λ path).
    random_state : int, RandomState instance or None, default None
        Draws the routing initialisation for more than two classes (unused for two).
    n_jobs : int or None, default None
        joblib threads optimising the nodes of one tree level; results do not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_costs_ : ndarray of shape (n_features,)
    mean_, scale_ : ndarray of shape (n_features,)
        Standardisation of the inputs.
    routers_ : ndarray of shape (2**depth - 1, n_features + 1)
        Routing vectors on standardised inputs (bias last); upper child when the score is > 0.
    leaf_coef_ : ndarray of shape (2**depth, n_features + 1, n_outputs)
        Leaf weights (one output column for two classes, else one per class).
    node_features_ : list of ndarray of int
        Features each node uses (internal nodes first, then leaves, heap order).
    path_features_ : list of ndarray of int
        Features paid for on each leaf's path.
    path_cost_ : ndarray of shape (2**depth,)
        Cost of each leaf's path (``feature_costs`` units).
    features_used_ : ndarray of int
        Features used anywhere in the tree.
    objective_ : list of float
        Relaxed objective after the warm start and after each pass.
    n_iter_ : int
        Passes run.

    Raises
    ------
    ValueError
        At ``fit``: a bad parameter (named, with the value and its range: ``depth`` at most
        :data:`MAX_DEPTH`), costs of the wrong length, negative
        or non-finite, fewer than two classes.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = CSTCClassifier(depth=1, lam=0.05, random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape, bool(clf.predict_cost(X).mean() < X.shape[1])
    ((3,), True)
    """

    def __init__(self, feature_costs=None, depth=3, lam=0.01, rho=1e-3, max_sweeps=10,
                 max_node_iter=50, tol=1e-5, epsilon=1e-4, prune_tol=1e-2, warm_start=False,
                 random_state=None, n_jobs=None):
        self.feature_costs = feature_costs
        self.depth = depth
        self.lam = lam
        self.rho = rho
        self.max_sweeps = max_sweeps
        self.max_node_iter = max_node_iter
        self.tol = tol
        self.epsilon = epsilon
        self.prune_tol = prune_tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs

    # -- fit ------------------------------------------------------------------------------------
    def fit(self, X, y):
        """Train the tree on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric, finite inputs.
        y : array-like of shape (n_samples,)
            Labels (at least two classes).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            A bad parameter, bad costs, non-numeric or non-finite inputs, a single class.
        """
        with threadpool_limits(limits=1, user_api="blas"):  # tiny L-BFGS steps: threads only contend
            return self._fit(X, y)

    def _fit(self, X, y):
        X = validate_data(self, X, reset=True, dtype=np.float64)
        y = column_or_1d(y, warn=True)
        if len(y) != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but y has {len(y)}")
        check_classification_targets(y)
        enc = LabelEncoder().fit(y)
        self.classes_ = enc.classes_
        if self.classes_.size < 2:
            raise ValueError(f"y has only one class ({self.classes_[0]!r}); CSTC needs at least "
                             "2 classes")
        codes = enc.transform(y)
        n, d = X.shape
        depth = check_scalar(self.depth, "depth", int, min_val=0, max_val=MAX_DEPTH)
        lam = check_scalar(self.lam, "lam", min_val=0.0)
        rho = check_scalar(self.rho, "rho", min_val=0.0, include_boundaries="right")
        sweeps = check_scalar(self.max_sweeps, "max_sweeps", int, min_val=1)
        node_iter = check_scalar(self.max_node_iter, "max_node_iter", int, min_val=1)
        tol = check_scalar(self.tol, "tol", min_val=0.0)
        eps = check_scalar(self.epsilon, "epsilon", min_val=0.0, include_boundaries="right")
        prune = check_scalar(self.prune_tol, "prune_tol", min_val=0.0)
        n_jobs = check_n_jobs(self.n_jobs)
        costs = check_feature_costs(self.feature_costs, d)
        top = costs.max() if costs.size else 0.0
        ccost = costs / top if top > 0 else np.zeros(d)
        rs = check_random_state(self.random_state)

        mean, scale = X.mean(axis=0), X.std(axis=0)
        scale[scale == 0] = 1.0
        Xb = np.hstack([(X - mean) / scale, np.ones((n, 1))])
        m = 1 if self.classes_.size == 2 else self.classes_.size
        tree = _Tree(depth)
        ctx = {"Xb": Xb, "y": codes, "lam": lam, "rho": rho, "costs": ccost, "eps": eps, "m": m,
               "iter": node_iter}
        prev = getattr(self, "_raw", None) if self.warm_start else None
        if prev is not None and prev[0].shape == (tree.n_internal, d + 1) \
                and prev[1].shape == (tree.n_leaves, d + 1, m):
            V, W = prev[0].copy(), prev[1].copy()
        else:
            V, W = self._initial_tree(tree, ctx, rs)
        history = [tree_objective(depth, Xb, codes, V, W, lam, rho, ccost, eps)]
        n_iter = 0
        for n_iter in range(1, sweeps + 1 if tree.n_internal else 1):
            for level in reversed(tree.levels()):
                snapshot = (V.copy(), W.copy())
                results = _map(_optimise_node, [(tree, j, snapshot, ctx) for j in level], n_jobs)
                for j, params in zip(level, results):
                    if j < tree.n_internal:
                        V[j] = params
                    else:
                        W[j - tree.n_internal] = params
            history.append(tree_objective(depth, Xb, codes, V, W, lam, rho, ccost, eps))
            if history[-2] - history[-1] <= tol * max(1.0, abs(history[-1])):
                break
        self._raw = (V.copy(), W.copy())
        self.feature_costs_ = costs
        V, W = self._prune_and_finetune(tree, V, W, ctx, prune, n_jobs)
        self.mean_, self.scale_ = mean, scale
        self.routers_, self.leaf_coef_ = V, W
        self.objective_ = history
        self.n_iter_ = n_iter
        return self

    def _initial_tree(self, tree: _Tree, ctx: dict, rs) -> tuple[np.ndarray, np.ndarray]:
        """Warm start (the paper's optimisation): every leaf = the cost-sensitive linear model, routers = its score
        split at the median of the inputs reaching each node."""
        Xb, m = ctx["Xb"], ctx["m"]
        n, d1 = Xb.shape
        w0 = _lbfgs(_leaf_fun, np.zeros(d1 * m),
                    (Xb, ctx["y"], np.full(n, 1.0 / n), ctx["rho"], ctx["lam"], ctx["costs"],
                     np.zeros(d1 - 1), ctx["eps"], m), 50 * ctx["iter"]).reshape(d1, m)
        W = np.repeat(w0[None], tree.n_leaves, axis=0)
        V = np.zeros((tree.n_internal, d1))
        if tree.n_internal:
            v = w0[:, 0] if m == 1 else w0 @ rs.standard_normal(m)
            score = Xb @ v
            node = np.zeros(n, dtype=np.int64)
            for k in range(tree.n_internal):
                here = node == k
                V[k] = v
                if here.any():
                    V[k, -1] -= np.median(score[here])
                node[here] = np.where(Xb[here] @ V[k] > 0, 2 * k + 2, 2 * k + 1)
        return V, W

    def _prune_and_finetune(self, tree, V, W, ctx, prune, n_jobs):
        """Zero the weights the relaxation left below ``prune_tol``; refit each leaf without the
        cost term on the features its path pays for (the paper's fine-tuning)."""
        V, W = V.copy(), W.copy()
        sq = _sq_weights(tree, V, W)
        used = np.sqrt(sq) > prune
        for k in range(tree.n_internal):
            V[k, :-1][~used[k]] = 0.0
        Xb, y, n = ctx["Xb"], ctx["y"], ctx["Xb"].shape[0]
        P = np.exp(_log_reach(tree, Xb, V)[:, tree.n_internal:])

        def refit(i, leaf):
            paid = used[tree.path(leaf)].any(axis=0) | used[leaf]
            cols = np.append(np.flatnonzero(paid), Xb.shape[1] - 1)
            w = _lbfgs(_leaf_fun, W[i][cols].ravel(),
                       (Xb[:, cols], y, P[:, i] / n, ctx["rho"], 0.0, ctx["costs"][cols[:-1]],
                        np.zeros(cols.size - 1), ctx["eps"], ctx["m"]), 10 * ctx["iter"])
            out = np.zeros_like(W[i])
            out[cols] = w.reshape(cols.size, ctx["m"])
            return out, paid

        results = _map(refit, list(enumerate(tree.leaves)), n_jobs)
        paths = []
        for i, (w, paid) in enumerate(results):
            W[i] = w
            paths.append(np.flatnonzero(paid))
        self.node_features_ = [np.flatnonzero(used[k]) for k in range(tree.n_internal)] + paths
        self.path_features_ = paths
        self.path_cost_ = np.array([float(self.feature_costs_[p].sum()) for p in paths])
        self.features_used_ = np.flatnonzero(np.isin(np.arange(Xb.shape[1] - 1),
                                                     np.concatenate(paths)))
        return V, W

    # -- prediction -----------------------------------------------------------------------------
    def _leaf_of(self, X) -> tuple[np.ndarray, np.ndarray]:
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Xb = np.hstack([(X - self.mean_) / self.scale_, np.ones((X.shape[0], 1))])
        node = np.zeros(X.shape[0], dtype=np.int64)
        n_internal = self.routers_.shape[0]
        for _ in range(int(np.log2(n_internal + 1))):
            s = np.einsum("ij,ij->i", Xb, self.routers_[node])
            node = np.where(s > 0, 2 * node + 2, 2 * node + 1)
        return node - n_internal, Xb

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of the leaf each input reaches (hard routing).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order.
        """
        leaf, Xb = self._leaf_of(X)
        Z = np.einsum("ij,ijk->ik", Xb, self.leaf_coef_[leaf])
        if Z.shape[1] == 1:
            p = expit(Z[:, 0])
            return np.column_stack([1.0 - p, p])
        return softmax(Z, axis=1)

    def predict(self, X) -> np.ndarray:
        """Label of highest probability at the reached leaf, shape (n_samples,)."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def predict_cost(self, X) -> np.ndarray:
        """Feature cost each input pays: the features used on its path, each once.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float, shape (n_samples,)
            In ``feature_costs`` units.
        """
        leaf, _ = self._leaf_of(X)
        return self.path_cost_[leaf]

    def apply(self, X) -> np.ndarray:
        """Index (0 .. 2**depth - 1) of the leaf each input reaches, shape (n_samples,)."""
        return self._leaf_of(X)[0]


def _optimise_node(tree: _Tree, j: int, snapshot, ctx: dict) -> np.ndarray:
    """Minimise the objective over node ``j``'s parameters, the others fixed (one step of the cyclic
    optimisation)."""
    V, W = snapshot
    Xb, y, n = ctx["Xb"], ctx["y"], ctx["Xb"].shape[0]
    log_reach = _log_reach(tree, Xb, V)
    sq = _sq_weights(tree, V, W)
    if j >= tree.n_internal:
        i = j - tree.n_internal
        others = sq[tree.path(j)].sum(axis=0)
        weight = np.exp(log_reach[:, j]) / n
        args = (Xb, y, weight, ctx["rho"], ctx["lam"] * weight.sum(), ctx["costs"], others,
                ctx["eps"], ctx["m"])
        return _lbfgs(_leaf_fun, W[i].ravel(), args, ctx["iter"]).reshape(W[i].shape)
    parts = []
    for child in (2 * j + 2, 2 * j + 1):
        leaves = tree.subtree_leaves(child)
        cond = np.exp(log_reach[:, leaves] - log_reach[:, [child]])
        loss = np.column_stack([_leaf_loss(Xb @ W[leaf - tree.n_internal], y)[0] for leaf in leaves])
        path_sq = np.array([sq[tree.path(leaf)].sum(axis=0) + sq[leaf] - sq[j] for leaf in leaves])
        parts.append((cond, (cond * loss).sum(axis=1), path_sq))
    (c_hi, l_hi, s_hi), (c_lo, l_lo, s_lo) = parts
    args = (Xb, np.exp(log_reach[:, j]) / n, l_hi, l_lo, c_hi, c_lo, ctx["lam"], ctx["costs"],
            s_hi, s_lo, ctx["rho"], ctx["eps"])
    return _lbfgs(_route_fun, V[j].copy(), args, ctx["iter"])
