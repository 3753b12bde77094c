"""The data sets of EMSCO's experiments, with feature costs (Hamilton and Fulp, "Budgeted Classification
with Rejection: An Evolutionary Method with Multiple Objectives", IEEE CEC 2022, Section V-A).

Every loader returns a :class:`Dataset`: inputs ``X`` (a DataFrame, one column per *acquirable
feature*), integer labels ``y``, feature names, feature costs, the cost class chosen for every
feature and why, and the paper's EMSCO settings for the set.  ``Dataset.split()`` gives the
stratified train / validation / test split (60 / 20 / 20) of the data set's seed.

- ``synthetic50(seed)``, ``synthetic15(seed)``: scikit-learn's ``make_classification`` exactly as
  in the paper's Section V-A (parameters not named there keep scikit-learn's defaults: ``n_redundant=2``,
  ``n_repeated=0``, ``class_sep=1.0``, ``flip_y=0.01`` for Synthetic50, ``shuffle=True``).
- ``pima``, ``credit``, ``heart``: small public CSV files shipped inside the package (folder
  :data:`DATA_DIR`, whose ``README.md`` gives their sources, licences and citations), as
  scikit-learn ships its small data sets.  A *data home* overrides them: the ``data_home``
  argument, else the environment variable ``SUBSEL_DATA``, naming a folder with files of the same
  names (``pima_diabetes.csv``, ``credit_approval.csv``, ``heart_failure.csv``).
- ``breast_cancer()``: scikit-learn's embedded Wisconsin diagnostic data (works offline).

Cost classes (``T``) and why
----------------------------
Pima (cost ``100·T``, by the time and complications of the test; the paper fixes age = 1 and
glucose = 3): pregnancies 1 (asked), blood_pressure 1 (a cuff, one minute), bmi 1 (scale and
tape), age 1 (asked), skin_thickness 2 (triceps skinfold by trained staff with calipers),
diabetes_pedigree 2 (a family history of diabetes over relatives, then a computed score), glucose 3
(2-hour oral glucose tolerance test: fasting, glucose drink, timed blood draws), insulin 3 (2-hour
serum insulin: the same test plus a lab assay).  Zeros standing for missing glucose, blood
pressure, skin thickness, insulin and BMI are kept as they are (as in the paper's setting).

Credit (cost ``10**T``): the attributes are anonymised, so classes come from data: Gini
(impurity-decrease) importance of a random forest (200 trees, seeded) fitted on the *training split*
of the seed, summed over each attribute's one-hot columns; the 5 least important attributes get
T = 1, the next 5 T = 2, the 5 most important T = 3.  The costs therefore depend on the split seed.
Missing values are imputed (median / most frequent) and categorical attributes one-hot encoded
inside the base estimator's pipeline, fitted on the training split only; an attribute's one-hot
columns are acquired together at the attribute's cost (EMSCO's features are attributes).

Heart (cost ``10**T``; lab and clinical tests dearer than history): T = 2 for
creatinine_phosphokinase, platelets, serum_creatinine, serum_sodium (blood tests) and
ejection_fraction (echocardiography); T = 1 for age, sex, smoking, diabetes, high_blood_pressure and
anaemia (recorded in the patient's history; anaemia is a recorded diagnosis, taken from the record
rather than a new blood count).  The column ``time`` (follow-up days) is kept, as in the paper's 12
features, at T = 1 (read from the record); it is known only after the outcome and leaks the label,
so ``heart(include_time=False)`` drops it (11 features) for a deployment-style classifier.

Breast cancer: no acquisition costs are published; every feature costs 1 (the embedded default
for examples and tests).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from .._validation import check_scalar

__all__ = ["DATASETS", "DATA_DIR", "Dataset", "breast_cancer", "credit", "data_home", "heart", "load_dataset",
           "pima", "synthetic15", "synthetic50", "train_val_test_split"]

#: The folder of the data files shipped with the package (sources, licences, citations: its README.md).
DATA_DIR = Path(__file__).resolve().with_name("data")

#: Where each real data set comes from (used in the missing-file error).
SOURCES = {
    "pima_diabetes.csv": "Pima Indians Diabetes Database (Smith et al. 1988), formerly of the UCI Machine "
                         "Learning Repository",
    "credit_approval.csv": "Credit Approval (crx.data), UCI Machine Learning Repository "
                           "(https://archive.ics.uci.edu/dataset/27/credit+approval)",
    "heart_failure.csv": "Heart failure clinical records, UCI Machine Learning Repository "
                         "(https://archive.ics.uci.edu/dataset/519/heart+failure+clinical+records)",
}


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data set with feature costs and the paper's EMSCO settings for it.

    Attributes
    ----------
    name : str
    X : pandas.DataFrame of shape (n_samples, n_features)
        One column per acquirable feature (Credit: raw attributes, categorical ones as strings,
        missing values as NaN).
    y : ndarray of int64, shape (n_samples,)
        Labels 0/1.
    feature_names : list of str
    costs : ndarray of float64, shape (n_features,)
    cost_classes : ndarray of int64, shape (n_features,) or None
        ``T`` per feature (None when costs are given directly).
    cost_notes : dict
        Feature -> why it has its class.
    settings : dict
        The paper's ``confidence, mutation_rate, crossover_rate, elite_fraction, population_size,
        beta`` for :class:`~subsel.evolution.EMSCOClassifier`.
    seed : int
        Seed of :meth:`split` (and of the Credit costs).
    base_estimator : estimator or None
        The base classifier to use (None: EMSCO's default).
    fixed_split : tuple or None
        ``(X_train, X_val, X_test, y_train, y_val, y_test)`` of a data set that comes split
        (:meth:`from_splits`); :meth:`split` then returns it whatever the seed.
    """

    name: str
    X: pd.DataFrame
    y: np.ndarray
    feature_names: list
    costs: np.ndarray
    cost_classes: np.ndarray | None
    cost_notes: dict
    settings: dict
    seed: int = 0
    base_estimator: object = None
    extra: dict = field(default_factory=dict)
    fixed_split: tuple | None = None

    @classmethod
    def from_splits(cls, name: str, train, val, test, costs, settings: dict | None = None,
                    base_estimator=None) -> "Dataset":
        """A data set given as three splits (e.g. the EMSCO authors' train / validation / test CSVs).

        Parameters
        ----------
        name : str
            Shown in tables and reports.
        train, val, test : tuple (X, y)
            ``X`` a DataFrame (the same feature columns in every split), ``y`` labels of any type;
            they are coded ``0..n_classes-1`` in the order of the sorted training labels.
        costs : array-like of float, shape (n_features,)
        settings : dict, optional
            EMSCO settings (see :attr:`settings`); default :class:`~subsel.evolution.EMSCOClassifier`'s
            defaults (p̂ 0.75, mutation rate 0.075, crossover rate 0.8, elite fraction 0.2,
            population 300, beta 2.0).
        base_estimator : estimator, optional

        Returns
        -------
        Dataset
            :meth:`split` returns the given splits.

        Raises
        ------
        ValueError
            Feature columns that differ between splits, costs of the wrong length, fewer than two
            training classes, or validation / test labels not seen in training.
        """
        (X_tr, y_tr), (X_va, y_va), (X_te, y_te) = train, val, test
        names = [str(c) for c in X_tr.columns]
        for what, X in (("validation", X_va), ("test", X_te)):
            if [str(c) for c in X.columns] != names:
                raise ValueError(f"{name}: the {what} split has feature columns {list(X.columns)[:6]}, "
                                 f"the training split {names[:6]}; they must match")
        costs = np.asarray(costs, dtype=float).ravel()
        if costs.size != len(names):
            raise ValueError(f"{name}: {costs.size} costs for {len(names)} features")
        classes = np.unique(np.asarray(y_tr))
        if classes.size < 2:
            raise ValueError(f"{name}: the training labels have one class only ({classes[0]!r})")
        coded = []
        for what, y in (("training", y_tr), ("validation", y_va), ("test", y_te)):
            y = np.asarray(y)
            unseen = np.setdiff1d(np.unique(y), classes)
            if unseen.size:
                raise ValueError(f"{name}: {what} labels not in the training labels: {unseen[:5].tolist()}")
            coded.append(np.searchsorted(classes, y).astype(np.int64))
        default = {"confidence": 0.75, "mutation_rate": 0.075, "crossover_rate": 0.8,
                   "elite_fraction": 0.2, "population_size": 300, "beta": 2.0}
        X = pd.concat([X_tr, X_va, X_te], ignore_index=True)
        return cls(name, X, np.concatenate(coded), names, costs, None, {},
                   {**default, **(settings or {})}, base_estimator=base_estimator,
                   extra={"classes": classes},
                   fixed_split=(X_tr, X_va, X_te, coded[0], coded[1], coded[2]))

    def split(self, seed: int | None = None):
        """Stratified train / validation / test split 60 / 20 / 20.

        Parameters
        ----------
        seed : int, optional
            Defaults to the data set's seed (Credit's costs were computed on that training split).

        Returns
        -------
        X_train, X_val, X_test, y_train, y_val, y_test
        """
        if self.fixed_split is not None:
            return self.fixed_split
        return train_val_test_split(self.X, self.y, self.seed if seed is None else seed)

    def estimator_params(self) -> dict:
        """Keyword arguments for :class:`~subsel.evolution.EMSCOClassifier` (costs, settings)."""
        params = dict(self.settings)
        params["feature_costs"] = self.costs.copy()
        if self.base_estimator is not None:
            params["base_estimator"] = self.base_estimator
        return params


def train_val_test_split(X, y, seed: int):
    """Stratified split 60 / 20 / 20 (train / validation / test) from ``seed``.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    seed : int

    Returns
    -------
    X_train, X_val, X_test, y_train, y_val, y_test

    Raises
    ------
    ValueError, TypeError
        ``seed`` negative or not an integer.
    """
    seed = check_scalar(seed, "seed", int, min_val=0)
    X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=0.2, stratify=y,
                                                      random_state=seed)
    X_train, X_val, y_train, y_val = train_test_split(X_rest, y_rest, test_size=0.25,
                                                      stratify=y_rest, random_state=seed)
    return X_train, X_val, X_test, y_train, y_val, y_test


def data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder the real data sets are read from.

    Parameters
    ----------
    data_home : path, optional
        A folder holding ``pima_diabetes.csv``, ``credit_approval.csv`` and ``heart_failure.csv``.

    Returns
    -------
    Path
        ``data_home`` when given, else the environment variable ``SUBSEL_DATA`` when set and not
        empty, else :data:`DATA_DIR`, the copies shipped with the package.
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get("SUBSEL_DATA")
    if env:
        return Path(env).expanduser()
    return DATA_DIR


def _read(filename: str, home, **kwargs) -> pd.DataFrame:
    path = data_home(home) / filename
    if not path.is_file():
        raise FileNotFoundError(
            f"data file {filename} not found at {path}: a data home (data_home, or --data-home on the "
            f"command line; else the environment variable SUBSEL_DATA) must hold a copy of the "
            f"{SOURCES[filename]}; without a data home subsel uses the copy it ships")
    return pd.read_csv(path, **kwargs)


def _frame(X: np.ndarray, prefix: str = "x") -> pd.DataFrame:
    return pd.DataFrame(X, columns=[f"{prefix}{i}" for i in range(X.shape[1])])


def synthetic50(seed: int = 0) -> Dataset:
    """Synthetic50: ``make_classification`` 4000 x 50, 25 informative, 2 clusters per class,
    balanced; every feature costs 10; p̂ = 0.55 (Hamilton and Fulp 2022, Section V-A).

    Parameters
    ----------
    seed : int, default 0
        ``random_state`` of ``make_classification`` and seed of the split.

    Returns
    -------
    Dataset
    """
    X, y = make_classification(n_samples=4000, n_features=50, n_informative=25,
                               n_clusters_per_class=2, weights=None, random_state=seed)
    n = X.shape[1]
    return Dataset("synthetic50", _frame(X), y.astype(np.int64), [f"x{i}" for i in range(n)],
                   np.full(n, 10.0), np.ones(n, dtype=np.int64),
                   {f"x{i}": "all features cost the same (h(T) = 10 T, T = 1)" for i in range(n)},
                   dict(confidence=0.55, mutation_rate=0.05, crossover_rate=0.80,
                        elite_fraction=0.2, population_size=300, beta=2.5), seed)


#: Synthetic15's published costs (paper §V-A).
SYNTHETIC15_COSTS = (6, 8, 4, 8, 8, 1, 9, 10, 6, 1, 9, 9, 4, 1, 7)


def synthetic15(seed: int = 0) -> Dataset:
    """Synthetic15: ``make_classification`` 8000 x 15, 12 informative, 2 clusters per class,
    ``class_sep=0.85``, 2% flipped labels; the paper's published costs; p̂ = 0.85 (Hamilton and Fulp 2022, Section V-A).

    Parameters
    ----------
    seed : int, default 0

    Returns
    -------
    Dataset
    """
    X, y = make_classification(n_samples=8000, n_features=15, n_informative=12,
                               n_clusters_per_class=2, class_sep=0.85, flip_y=0.02,
                               random_state=seed)
    names = [f"x{i}" for i in range(15)]
    return Dataset("synthetic15", _frame(X), y.astype(np.int64), names,
                   np.array(SYNTHETIC15_COSTS, dtype=float), None,
                   {n: "published cost (noisy, rounded Gini importance; paper §V-A)" for n in names},
                   dict(confidence=0.85, mutation_rate=0.075, crossover_rate=0.80,
                        elite_fraction=0.2, population_size=250, beta=2.0), seed)


#: Pima cost classes by test difficulty (see the module docstring).
PIMA_CLASSES = {
    "pregnancies": (1, "asked"),
    "glucose": (3, "2-hour oral glucose tolerance test (paper: T = 3)"),
    "blood_pressure": (1, "a cuff, one minute"),
    "skin_thickness": (2, "triceps skinfold measured with calipers by trained staff"),
    "insulin": (3, "2-hour serum insulin: glucose tolerance test plus a lab assay"),
    "bmi": (1, "scale and tape"),
    "diabetes_pedigree": (2, "family history over relatives, then a computed score"),
    "age": (1, "asked (paper: T = 1)"),
}


def pima(data_home: str | os.PathLike | None = None, seed: int = 0) -> Dataset:
    """Pima Indians Diabetes, 768 x 8, cost ``100·T`` by test difficulty; p̂ = 0.65 (Hamilton and Fulp
    2022, Section V-A).

    Parameters
    ----------
    data_home : path, optional
        Folder holding ``pima_diabetes.csv``; default: the shipped copy (see :func:`data_home`).
    seed : int, default 0
        Seed of the split.

    Returns
    -------
    Dataset

    Raises
    ------
    FileNotFoundError
        The file is not in the data home (the message names it and its source).
    """
    df = _read("pima_diabetes.csv", data_home)
    names = list(PIMA_CLASSES)
    T = np.array([PIMA_CLASSES[n][0] for n in names], dtype=np.int64)
    return Dataset("pima", df[names].astype(float), df["outcome"].to_numpy(np.int64), names,
                   100.0 * T, T, {n: PIMA_CLASSES[n][1] for n in names},
                   dict(confidence=0.65, mutation_rate=0.075, crossover_rate=0.80,
                        elite_fraction=0.2, population_size=300, beta=2.0), seed)


#: Heart cost classes: lab / clinical tests 2, history 1.
HEART_CLASSES = {
    "age": (1, "history"),
    "anaemia": (1, "recorded diagnosis in the patient's history"),
    "creatinine_phosphokinase": (2, "blood test"),
    "diabetes": (1, "history"),
    "ejection_fraction": (2, "echocardiography"),
    "high_blood_pressure": (1, "history"),
    "platelets": (2, "blood test"),
    "serum_creatinine": (2, "blood test"),
    "serum_sodium": (2, "blood test"),
    "sex": (1, "history"),
    "smoking": (1, "history"),
}


def heart(data_home: str | os.PathLike | None = None, seed: int = 0,
          include_time: bool = True) -> Dataset:
    """Heart failure clinical records, 299 x 12 as in Hamilton and Fulp 2022 (Section V-A), cost
    ``10**T`` with lab tests dearer than history; p̂ = 0.75.

    Parameters
    ----------
    data_home : path, optional
        Folder holding ``heart_failure.csv``; default: the shipped copy (see :func:`data_home`).
    seed : int, default 0
    include_time : bool, default True
        Keep the column ``time`` (follow-up days, cost class 1: read from the patient's record), as
        the paper's 12 features do.  It is known only after the outcome and leaks the label; pass
        ``False`` for an honest deployment-style classifier (299 x 11).

    Returns
    -------
    Dataset

    Raises
    ------
    FileNotFoundError
        When ``heart_failure.csv`` is not in the data home (the message says where to get it).
    """
    df = _read("heart_failure.csv", data_home)
    classes = dict(HEART_CLASSES)
    extra = {}
    if include_time:
        classes["time"] = (1, "follow-up days from the patient's record (leaks the label)")
    else:
        extra = {"dropped": {"time": "follow-up days: known only after the outcome, leaks the label"}}
    names = list(classes)
    T = np.array([classes[n][0] for n in names], dtype=np.int64)
    return Dataset("heart", df[names].astype(float), df["DEATH_EVENT"].to_numpy(np.int64), names,
                   10.0 ** T, T, {n: classes[n][1] for n in names},
                   dict(confidence=0.75, mutation_rate=0.075, crossover_rate=0.75,
                        elite_fraction=0.2, population_size=300, beta=2.0), seed,
                   extra=extra)


CREDIT_CATEGORICAL = ("a1", "a4", "a5", "a6", "a7", "a9", "a10", "a12", "a13")


def credit_base_estimator():
    """Credit's base classifier: impute, one-hot the categorical attributes, scale, logistic regression.

    Works on any subset of the attribute columns (columns are picked by dtype).
    """
    num = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
    cat = make_pipeline(SimpleImputer(strategy="most_frequent"),
                        OneHotEncoder(handle_unknown="ignore"))
    ct = ColumnTransformer([("num", num, make_column_selector(dtype_include="number")),
                            ("cat", cat, make_column_selector(dtype_exclude="number"))])
    return make_pipeline(ct, LogisticRegression(max_iter=1000))


def credit(data_home: str | os.PathLike | None = None, seed: int = 0) -> Dataset:
    """Credit Approval, 690 x 15 attributes (missing values, 9 categorical), cost ``10**T`` with
    ``T`` the Gini-importance tercile on the training split of ``seed``; p̂ = 0.75 (Hamilton and Fulp 2022, Section V-A).

    Parameters
    ----------
    data_home : path, optional
        Folder holding ``credit_approval.csv``; default: the shipped copy (see :func:`data_home`).
    seed : int, default 0
        Seed of the split and of the random forest that ranks the attributes.

    Returns
    -------
    Dataset
        ``base_estimator`` imputes and one-hot encodes inside the pipeline.

    Raises
    ------
    FileNotFoundError
    """
    df = _read("credit_approval.csv", data_home, dtype={c: str for c in CREDIT_CATEGORICAL})
    names = [f"a{i}" for i in range(1, 16)]
    X = df[names].copy()
    for c in names:
        if c not in CREDIT_CATEGORICAL:
            X[c] = X[c].astype(float)
    y = (df["approved"] == "+").to_numpy(np.int64)
    X_train, _, _, y_train, _, _ = train_val_test_split(X, y, seed)
    ct = credit_base_estimator().steps[0][1]
    Z = ct.fit_transform(X_train)
    forest = RandomForestClassifier(n_estimators=200, random_state=seed).fit(Z, y_train)
    importance = dict.fromkeys(names, 0.0)
    for out_name, imp in zip(ct.get_feature_names_out(), forest.feature_importances_):
        col = out_name.split("__", 1)[1]
        attr = col if col in importance else col.rsplit("_", 1)[0]
        importance[attr] += imp
    imp = np.array([importance[n] for n in names])
    T = np.empty(len(names), dtype=np.int64)
    for t, group in enumerate(np.array_split(np.argsort(imp, kind="stable"), 3), start=1):
        T[group] = t
    notes = {n: f"Gini importance {imp[i]:.3f} on the training split of seed {seed}: tercile {T[i]}"
             for i, n in enumerate(names)}
    return Dataset("credit", X, y, names, 10.0 ** T, T, notes,
                   dict(confidence=0.75, mutation_rate=0.075, crossover_rate=0.80,
                        elite_fraction=0.2, population_size=300, beta=2.5), seed,
                   base_estimator=credit_base_estimator(), extra={"gini_importance": imp})


def breast_cancer(seed: int = 0) -> Dataset:
    """scikit-learn's breast cancer data (569 x 30), unit costs, p̂ = 0.9; embedded, works offline.

    Parameters
    ----------
    seed : int, default 0

    Returns
    -------
    Dataset
    """
    data = load_breast_cancer(as_frame=True)
    X = data.data.copy()
    X.columns = [c.replace(" ", "_") for c in X.columns]
    names = list(X.columns)
    return Dataset("breast_cancer", X.astype(float), data.target.to_numpy(np.int64), names,
                   np.ones(len(names)), np.ones(len(names), dtype=np.int64),
                   {n: "no published acquisition costs: unit cost" for n in names},
                   dict(confidence=0.9, mutation_rate=0.075, crossover_rate=0.80,
                        elite_fraction=0.2, population_size=300, beta=2.0), seed)


#: Loaders by name; the real ones take ``data_home``.
DATASETS = {"breast_cancer": breast_cancer, "synthetic50": synthetic50, "synthetic15": synthetic15,
            "pima": pima, "credit": credit, "heart": heart}


def load_dataset(name: str, seed: int = 0, data_home: str | os.PathLike | None = None) -> Dataset:
    """Load a data set by name (``breast_cancer, synthetic50, synthetic15, pima, credit, heart``).

    Raises
    ------
    ValueError
        Unknown name, negative ``seed``.
    TypeError
        ``seed`` not an integer.
    FileNotFoundError
        A real data set's file is missing from the data home.
    """
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose one of {', '.join(DATASETS)}")
    check_scalar(seed, "seed", int, min_val=0)
    if name in ("pima", "credit", "heart"):
        return DATASETS[name](data_home=data_home, seed=seed)
    return DATASETS[name](seed=seed)
