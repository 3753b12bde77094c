"""CSTC's rows of ``emsco-table2``: the paper's second budgeted baseline (Hamilton & Fulp, IEEE CEC
2022, Table II), the cost-sensitive tree of classifiers of Xu, Kusner, Weinberger, Chen, Chapelle
(ICML 2013), as :class:`subsel.evolution.CSTCClassifier`.

Per data set: one tree per λ of the sweep on the training split, the design chosen on the
validation split by the rule used for GreedyMiser (highest accuracy, ties cheaper, then larger λ;
:func:`subsel.evolution.sweep_lambda`), scored on the test split.  CSTC never rejects (coverage 1);
each input pays for the features on its path through the tree, each once.

CSTC needs numbers: a data set with text (categorical) columns or gaps (Credit) is encoded once,
fitted on the training split — gaps filled with the column's median (numbers) or most frequent
value (text), text columns as ordinal codes — so that every column stays one feature with its own
cost (a one-hot encoding would split a feature's cost over several columns).
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

__all__ = ["CSTC_SCALES", "budgeted_note", "cstc_note", "cstc_row"]

#: Tree depth, cyclic passes and λ grid per scale (``None``: the default grid of
#: :data:`subsel.evolution.cstc_sweep.DEFAULT_LAMBDAS`).  ``tiny`` only exercises the pipeline.
CSTC_SCALES: dict[str, dict] = {
    "tiny": {"depth": 2, "max_sweeps": 2, "lams": (0.0, 0.03, 0.3)},
    "quick": {"depth": 3, "max_sweeps": 5, "lams": None},
    "full": {"depth": 3, "max_sweeps": 10, "lams": None},
}


def _numeric(X_tr, others: list):
    """The splits as float arrays, one column per feature (see the module text for the encoding)."""
    if not isinstance(X_tr, pd.DataFrame):
        return [np.asarray(X_tr, dtype=float)] + [np.asarray(X, dtype=float) for X in others]
    from sklearn.compose import make_column_selector, make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    enc = make_column_transformer(
        (SimpleImputer(strategy="median"), make_column_selector(dtype_include="number")),
        (make_pipeline(SimpleImputer(strategy="most_frequent"),
                       OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)),
         make_column_selector(dtype_exclude="number")),
        verbose_feature_names_out=False).set_output(transform="pandas")
    enc.fit(X_tr)
    cols = list(X_tr.columns)
    return [enc.transform(X)[cols].to_numpy(dtype=float) for X in [X_tr, *others]]


def cstc_row(ds, problem, test, scale: str, seed: int) -> dict:
    """CSTC's row of one data set: test ``g1`` (1), ``g2``, ``g3*`` and the chosen design.

    Parameters
    ----------
    ds : subsel.evolution.datasets.Dataset
        For the costs and feature names.
    problem : subsel.evolution.staged.StagedClassificationProblem
        For the training and validation splits.
    test : tuple (X_test, y_test)
    scale : {"tiny", "quick", "full"}
        Settings from :data:`CSTC_SCALES`.
    seed : int
        ``random_state`` of the trees.

    Returns
    -------
    dict
        ``method="cstc", g1, g2, g3*, n_stages`` (tree depth), ``n_features`` (used anywhere),
        ``wall_time_s`` (the whole sweep), ``cstc_lambda``, ``cstc_depth``, ``cstc_features``,
        ``cstc_val_accuracy``, ``cstc_val_cost``.
    """
    from ..evolution import DEFAULT_LAMBDAS, CSTCClassifier, sweep_lambda

    s = CSTC_SCALES[scale]
    start = time.perf_counter()
    X_tr, X_va, X_te = _numeric(problem.X_train, [problem.X_val, test[0]])
    sweep = sweep_lambda(CSTCClassifier(ds.costs, depth=s["depth"], max_sweeps=s["max_sweeps"],
                                        random_state=seed),
                         X_tr, np.asarray(problem.y_train), X_va, np.asarray(problem.y_val),
                         lams=s["lams"] or DEFAULT_LAMBDAS)
    tree, chosen = sweep.best, sweep.grid.iloc[sweep.chosen]
    y_te = np.asarray(test[1])
    return {"method": "cstc", "g1": 1.0, "g2": float(tree.score(X_te, y_te)),
            "g3*": float(tree.predict_cost(X_te).mean()), "n_stages": s["depth"],
            "n_features": int(tree.features_used_.size),
            "wall_time_s": time.perf_counter() - start, "cstc_lambda": float(chosen["lam"]),
            "cstc_depth": s["depth"],
            "cstc_features": " ".join(ds.feature_names[i] for i in tree.features_used_),
            "cstc_val_accuracy": float(chosen["val_accuracy"]), "cstc_val_cost": float(chosen["val_cost"])}


def budgeted_note(table: pd.DataFrame, method: str, label: str, missing: str, what: str, per_row) -> str:
    """One sentence on a budgeted baseline's rows: ``label``, ``what`` it is, then ``per_row(row)``
    for each data set (or ``missing`` when the table has no row of ``method``)."""
    rows = table[table["method"] == method]
    if not len(rows):
        return f" {label}: {missing}."
    return (f" {label}: {what} of highest validation accuracy (ties: cheaper) — "
            + "; ".join(f"{r['dataset']}: {per_row(r)}" for _, r in rows.iterrows()) + ".")


def cstc_note(table: pd.DataFrame) -> str:
    """The report's sentence on the CSTC rows (the chosen λ and the features the tree uses)."""
    return budgeted_note(table, "cstc", "CSTC (`cstc`)", "not run", "cost-sensitive tree of classifiers, λ",
                         lambda r: f"depth {int(r['cstc_depth'])}, λ {r['cstc_lambda']:g}, features "
                                   f"{r['cstc_features'] or '(none)'}")
