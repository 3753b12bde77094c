"""CSTCClassifier and its λ sweep: the paper's objective, its gradients, the cost rule, behaviour."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import approx_fprime, minimize
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from subsel.evolution import CSTCClassifier, sweep_lambda
from subsel.evolution.cstc import _optimise_node, _Tree, mixed_norm_cost, tree_objective
from tests.strategies import cstc_trees


def cheap_decides(n: int, seed: int):
    """Feature 0 (cost 1) decides |x0| > 0.5 (about 62% of inputs); feature 1 (cost 20) the rest;
    three noise features of cost 5."""
    rng = np.random.default_rng(seed)
    x0, x1 = rng.normal(size=n), rng.normal(size=n)
    y = np.where(np.abs(x0) > 0.5, x0 > 0, x1 > 0).astype(int)
    return np.column_stack([x0, x1, rng.normal(size=(n, 3))]), y, np.array([1.0, 20, 5, 5, 5])


def central_differences(f, x0, h):
    """Central finite differences of ``f`` at ``x0`` (error O(h^2): the smoothed norm's
    curvature near its kink, about cost / eps, makes forward differences off by O(h cost / eps))."""
    x0 = np.asarray(x0, dtype=float)
    out = np.empty_like(x0)
    for i in range(x0.size):
        e = np.zeros_like(x0)
        e[i] = h
        out[i] = (f(x0 + e) - f(x0 - e)) / (2 * h)
    return out


# -- the objective's pieces ------------------------------------------------------------------------

@given(sq=st.lists(st.floats(0, 4), min_size=3, max_size=3), w=st.lists(st.floats(-2, 2), min_size=6,
                                                                        max_size=6),
       eps=st.sampled_from([1e-3, 1e-1]))
def test_mixed_norm_gradient_matches_finite_differences(sq, w, eps):
    sq, costs = np.array(sq), np.array([0.0, 0.5, 2.0])
    for W in (np.array(w[:3]), np.array(w).reshape(3, 2)):
        value, grad = mixed_norm_cost(sq, W, costs, eps)
        fd = approx_fprime(W.ravel(), lambda x: mixed_norm_cost(sq, x.reshape(W.shape), costs, eps)[0],
                           1e-7)
        np.testing.assert_allclose(grad.ravel(), fd, rtol=1e-4, atol=1e-4)
        w2 = W ** 2 if W.ndim == 1 else (W ** 2).sum(axis=1)
        assert value == pytest.approx(float(costs @ (np.sqrt(w2 + sq + eps**2) - eps)))


def test_mixed_norm_charges_a_feature_once_per_path():
    # without smoothing: a feature used by one node costs c·|w|; bought already (s > 0), a small
    # extra weight costs almost nothing (the relaxation of "a feature bought once is free").
    costs = np.array([2.0])
    assert mixed_norm_cost(np.zeros(1), np.array([0.5]), costs, 1e-12)[0] == pytest.approx(1.0)
    first = mixed_norm_cost(np.zeros(1), np.array([0.01]), costs, 1e-12)[0]
    again = mixed_norm_cost(np.array([1.0]), np.array([0.01]), costs, 1e-12)[0] - 2.0
    assert again < first / 100


@settings(max_examples=40)
@given(state=cstc_trees())
def test_node_gradients_match_finite_differences_of_the_whole_objective(state):
    """Each node's own objective (what L-BFGS minimises in a cyclic step) differs from the whole
    objective by a constant: its gradient equals the whole objective's finite differences."""
    tree = _Tree(state["depth"])
    V, W = state["V"], state["W"]
    ctx = {"Xb": state["Xb"], "y": state["y"], "lam": state["lam"], "rho": state["rho"],
           "costs": state["costs"], "eps": state["eps"], "m": W.shape[2], "iter": 1}

    def whole(V, W):
        return tree_objective(state["depth"], state["Xb"], state["y"], V, W, state["lam"], state["rho"],
                              state["costs"], state["eps"])

    captured = {}

    def spy_lbfgs(fun, x0, args, maxiter):
        captured["grad"] = fun(x0, *args)[1]
        return x0

    import subsel.evolution.cstc as mod
    real = mod._lbfgs
    mod._lbfgs = spy_lbfgs
    try:
        for j in range(tree.n_internal + tree.n_leaves):
            _optimise_node(tree, j, (V, W), ctx)
            if j < tree.n_internal:
                def f(x, j=j):
                    V2 = V.copy()
                    V2[j] = x
                    return whole(V2, W)
                x0 = V[j]
            else:
                i = j - tree.n_internal

                def f(x, i=i):
                    W2 = W.copy()
                    W2[i] = x.reshape(W[i].shape)
                    return whole(V, W2)
                x0 = W[i].ravel()
            fd = central_differences(f, x0, 1e-6)
            np.testing.assert_allclose(captured["grad"], fd, rtol=1e-3, atol=2e-5)
    finally:
        mod._lbfgs = real


# -- behaviour -------------------------------------------------------------------------------------

def test_cheap_feature_tree_matches_logistic_regression_at_under_half_the_cost():
    X, y, costs = cheap_decides(1600, seed=0)
    Xtr, ytr, Xte, yte = X[:1000], y[:1000], X[1000:], y[1000:]
    lr = LogisticRegression().fit(Xtr, ytr)
    tree = CSTCClassifier(costs, depth=2, lam=0.1, random_state=0).fit(Xtr, ytr)
    assert tree.score(Xte, yte) >= lr.score(Xte, yte) - 0.03
    assert tree.predict_cost(Xte).mean() < 0.5 * costs.sum()
    # the cheap feature is bought by the root: every input pays for it, some also for feature 1
    assert 0 in tree.node_features_[0]
    assert set(np.unique(tree.predict_cost(Xte))) <= {1.0, 21.0}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_larger_lambda_never_raises_the_training_cost(seed):
    rng = np.random.default_rng(seed)
    X, y = make_classification(300, n_features=8, n_informative=4, random_state=seed)
    costs = rng.choice([1.0, 3.0, 10.0], size=8)
    sweep = sweep_lambda(CSTCClassifier(costs, depth=2, max_sweeps=5, random_state=seed), X[:200], y[:200],
                         X[200:], y[200:])
    cost = sweep.grid["train_cost"].to_numpy()
    # within 2% of the cost of every feature (the pruning threshold may flip a weight near it)
    assert np.all(np.diff(cost) <= 0.02 * costs.sum()), cost
    assert cost[0] > cost[-1]


@pytest.mark.parametrize("classes", [2, 3])
def test_depth_zero_without_cost_is_logistic_regression(classes):
    X, y = make_classification(200, n_features=5, n_informative=3, n_classes=classes,
                               n_clusters_per_class=1, random_state=1)
    rho = 0.01
    ours = CSTCClassifier(depth=0, lam=0.0, rho=rho, random_state=0).fit(X, y)
    Xs = StandardScaler().fit_transform(X)
    ref = LogisticRegression(C=1.0 / (len(y) * rho), tol=1e-10, max_iter=10000).fit(Xs, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(Xs), atol=1e-4)
    assert ours.predict_cost(X).tolist() == [5.0] * len(y)


def test_depth_zero_is_the_cost_penalised_linear_model_refit_on_its_features():
    """Depth 0 = minimise the relaxed objective (§2's cost-sensitive linear model), keep the
    features it leaves nonzero, refit them without the cost term (the fine-tuning)."""
    X, y = make_classification(300, n_features=6, n_informative=2, n_redundant=0, random_state=3)
    costs = np.array([1.0, 1.0, 4.0, 4.0, 8.0, 8.0])
    lam, rho, eps = 0.05, 0.01, 1e-4
    ours = CSTCClassifier(costs, depth=0, lam=lam, rho=rho, epsilon=eps, random_state=0).fit(X, y)
    Xs = StandardScaler().fit_transform(X)
    Xb = np.hstack([Xs, np.ones((len(y), 1))])
    # the reference: a derivative-free-of-ours minimisation of the documented objective
    res = minimize(lambda w: tree_objective(0, Xb, y, np.zeros((0, 7)), w.reshape(1, 7, 1), lam, rho,
                                            costs / costs.max(), eps), np.zeros(7), method="Powell",
                   options={"xtol": 1e-8, "ftol": 1e-12, "maxfev": 200000})
    keep = np.flatnonzero(np.abs(res.x[:6]) > 1e-2)
    assert 0 < keep.size < 6
    assert ours.features_used_.tolist() == keep.tolist()
    ref = LogisticRegression(C=1.0 / (len(y) * rho), tol=1e-10, max_iter=10000).fit(Xs[:, keep], y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(Xs[:, keep]), atol=1e-4)


def test_predict_cost_pays_each_feature_of_the_path_once():
    X, y, costs = cheap_decides(600, seed=4)
    tree = CSTCClassifier(costs, depth=2, lam=0.1, random_state=0).fit(X, y)
    leaf = tree.apply(X)
    n_internal = 3
    for i in range(4):
        nodes = [0, 1 + i // 2, n_internal + i]
        paid = set().union(*(set(tree.node_features_[j].tolist()) for j in nodes))
        assert set(tree.path_features_[i].tolist()) == paid
        assert tree.path_cost_[i] == pytest.approx(costs[sorted(paid)].sum())
    np.testing.assert_array_equal(tree.predict_cost(X), tree.path_cost_[leaf])
    # hard routing: predict_proba is the reached leaf's classifier
    proba = tree.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("scale", [0.0, 1e-9, 1e12])
def test_cost_scale_does_not_change_the_tree_and_zero_costs_are_free(scale):
    X, y, costs = cheap_decides(500, seed=6)
    ref = CSTCClassifier(costs, depth=2, lam=0.1, random_state=0).fit(X, y)
    tree = CSTCClassifier(costs * scale, depth=2, lam=0.1, random_state=0).fit(X, y)
    if scale == 0.0:   # nothing to pay: no penalty, every input costs 0
        assert tree.predict_cost(X).tolist() == [0.0] * len(y)
        return
    # costs enter divided by the largest: any positive scale gives the same tree, costs in its unit
    np.testing.assert_allclose(tree.predict_proba(X), ref.predict_proba(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tree.predict_cost(X), ref.predict_cost(X) * scale, rtol=1e-12)


def test_fit_is_deterministic_serially_and_with_threads():
    X, y = make_classification(300, n_features=6, n_informative=4, n_classes=3, random_state=2)
    fits = [CSTCClassifier(depth=2, lam=0.01, random_state=7, n_jobs=j).fit(X, y) for j in (1, 1, 2)]
    for other in fits[1:]:
        np.testing.assert_array_equal(fits[0].routers_, other.routers_)
        np.testing.assert_array_equal(fits[0].leaf_coef_, other.leaf_coef_)
        np.testing.assert_array_equal(fits[0].predict_proba(X), other.predict_proba(X))
    other_seed = CSTCClassifier(depth=2, lam=0.01, random_state=8).fit(X, y)
    assert not np.array_equal(other_seed.routers_, fits[0].routers_)


def test_sweep_reports_a_front_and_chooses_like_greedymiser():
    X, y, costs = cheap_decides(900, seed=5)
    s = sweep_lambda(CSTCClassifier(costs, depth=2, random_state=0), X[:600], y[:600], X[600:], y[600:],
                     lams=(0.3, 0.0, 0.1))
    g = s.grid
    assert g["lam"].tolist() == [0.0, 0.1, 0.3]
    best = g.loc[s.chosen]
    assert best["val_accuracy"] == g["val_accuracy"].max()
    assert best["val_cost"] == g.loc[g["val_accuracy"] == best["val_accuracy"], "val_cost"].min()
    assert bool(g.loc[s.chosen, "on_front"]) and g["chosen"].sum() == 1
    for _, r in s.front.iterrows():
        dominated = (g["val_accuracy"] >= r["val_accuracy"]) & (g["val_cost"] <= r["val_cost"]) & (
            (g["val_accuracy"] > r["val_accuracy"]) | (g["val_cost"] < r["val_cost"]))
        assert not dominated.any()
    assert s.best is s.models[s.chosen] and s.best.lam == best["lam"]


# -- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("params, message", [
    ({"depth": -1}, r"depth must be an integer in \[0, 16\]; got -1"),
    ({"depth": 1.5}, r"depth must be an integer in \[0, 16\]; got 1.5"),
    # a complete tree of depth 30 would need 2^31 floats per input: refused, not a MemoryError
    ({"depth": 30}, r"^depth must be an integer in \[0, 16\]; got 30$"),
    ({"depth": 17}, r"^depth must be an integer in \[0, 16\]; got 17$"),
    ({"lam": -0.1}, r"lam must be a number >= 0; got -0.1"),
    ({"lam": float("nan")}, r"lam must be a number >= 0; got nan"),
    ({"rho": 0.0}, r"rho must be a number > 0; got 0.0"),
    ({"max_sweeps": 0}, r"max_sweeps must be an integer >= 1; got 0"),
    ({"max_node_iter": 0}, r"max_node_iter must be an integer >= 1; got 0"),
    ({"tol": -1.0}, r"tol must be a number >= 0; got -1.0"),
    ({"epsilon": 0.0}, r"epsilon must be a number > 0; got 0.0"),
    ({"prune_tol": -1e-3}, r"prune_tol must be a number >= 0; got -0.001"),
    ({"n_jobs": 0}, r"n_jobs must be None or a non-zero integer .*; got 0"),
    ({"feature_costs": [1.0, 2.0]}, r"feature_costs has 2 values but X has 3 features"),
    ({"feature_costs": [1.0, -2.0, 1.0]}, r"feature_costs\[1\] must be a finite number >= 0; got -2.0"),
])
def test_bad_parameters_are_named(params, message):
    X, y = make_classification(40, n_features=3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises((ValueError, TypeError), match=message):
        CSTCClassifier(**params).fit(X, y)


def test_one_class_is_refused():
    with pytest.raises(ValueError, match=r"y has only one class \(np.int64\(1\)\)|y has only one class \(1\)"):
        CSTCClassifier().fit(np.zeros((4, 2)), [1, 1, 1, 1])


@pytest.mark.parametrize("lams, message", [
    ((), r"lams must be a non-empty sequence"),
    ((0.0, -1.0), r"lams must be a non-empty sequence of finite numbers >= 0; got \(0.0, -1.0\)"),
    ((0.1, 0.1), r"lams has a repeated value: \(0.1, 0.1\)"),
    (("a",), r"lams must be numbers; got \('a',\)"),
])
def test_bad_sweeps_are_named(lams, message):
    X, y = make_classification(40, n_features=3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match=message):
        sweep_lambda(CSTCClassifier(depth=1), X, y, X, y, lams=lams)


def test_sweep_refuses_unseen_validation_labels():
    X, y = make_classification(40, n_features=3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match=r"y_val has labels not in y: \[7\]"):
        sweep_lambda(CSTCClassifier(depth=1), X, y, X, np.where(y == 0, 7, y), lams=(0.0,))


def test_the_deepest_accepted_tree_objective_and_the_limit():
    """tree_objective checks the depth as fit does; MAX_DEPTH is the limit of the message."""
    from subsel.evolution.cstc import MAX_DEPTH, tree_objective

    assert MAX_DEPTH == 16
    Xb = np.ones((2, 2))
    with pytest.raises(ValueError, match=r"^depth must be an integer in \[0, 16\]; got 17$"):
        tree_objective(MAX_DEPTH + 1, Xb, np.array([0, 1]), np.zeros((0, 2)), np.zeros((1, 2, 1)),
                       0.0, 1e-3, np.ones(1), 1e-4)
    # depth 0 (a single linear model) is the shallowest
    assert np.isfinite(tree_objective(0, Xb, np.array([0, 1]), np.zeros((0, 2)), np.zeros((1, 2, 1)),
                                      0.0, 1e-3, np.ones(1), 1e-4))
