"""``EMSCOClassifier``: EMSCO as a scikit-learn estimator (Hamilton and Fulp, IEEE CEC 2022).

Hamilton & Fulp, *Budgeted Classification with Rejection: An Evolutionary Method with Multiple
Objectives* (IEEE CEC 2022): the genetic engine designs the stages of a budgeted sequential
classifier on a validation split; the fitted estimator routes inputs through those stages.
"""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data
from threadpoolctl import threadpool_limits

from .._random import as_generator
from .._validation import check_scalar
from . import operators as ops
from .engine import GeneticEngine
from .selection import check_select, select_design
from .staged import (
    StagedClassificationProblem,
    check_confidence,
    check_cost_total,
    default_base_estimator,
    staged_objectives,
)

__all__ = ["EMSCOClassifier", "accepts_missing", "check_feature_costs", "check_n_jobs", "default_max_stages"]


def default_max_stages(n_features: int) -> int:
    """The paper's maximum stage count ``k = min(round(n/2), 10)``, at least 1 (§V-B)."""
    return max(1, min(ops.round_half_up(n_features / 2), 10))


def accepts_missing(estimator) -> bool:
    """Whether an (unfitted) estimator handles NaN inputs itself (imputation or native support).

    An imputer (anything from :mod:`sklearn.impute`) handles them; a Pipeline handles them when a
    step imputes before any step that rejects NaN (a scaler lets NaN through, so
    ``StandardScaler + LogisticRegression`` does not); a ColumnTransformer when all its
    transformers do; anything else by its scikit-learn ``allow_nan`` tag.
    """
    if type(estimator).__module__.startswith("sklearn.impute"):
        return True
    if isinstance(estimator, Pipeline):
        for _, step in estimator.steps:
            if step in (None, "passthrough"):
                continue
            if accepts_missing(step) and (type(step).__module__.startswith("sklearn.impute")
                                          or isinstance(step, (Pipeline, ColumnTransformer))):
                return True
            if not _allow_nan_tag(step):
                return False
        return True
    if isinstance(estimator, ColumnTransformer):
        parts = [t for _, t, _ in estimator.transformers]
        return bool(parts) and all(t != "passthrough" and (t == "drop" or accepts_missing(t))
                                   for t in parts)
    return _allow_nan_tag(estimator)


def _allow_nan_tag(estimator) -> bool:
    try:
        return bool(get_tags(estimator).input_tags.allow_nan)
    except Exception:  # pragma: no cover - estimators without tags
        return False


def check_feature_costs(feature_costs, n_features: int) -> np.ndarray:
    """Acquisition costs of the features as a float array; ``None`` means every feature costs 1.

    Parameters
    ----------
    feature_costs : array-like of float, shape (n_features,), or None
    n_features : int

    Returns
    -------
    ndarray of float64, shape (n_features,)

    Raises
    ------
    ValueError
        Not numbers, the wrong length, a negative or non-finite entry (named by index).
    """
    if feature_costs is None:
        return np.ones(n_features)
    try:
        costs = np.asarray(feature_costs, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"feature_costs must be numbers; got {feature_costs!r}") from None
    if costs.size != n_features:
        raise ValueError(f"feature_costs has {costs.size} values but X has {n_features} "
                         "features; give one cost per feature")
    bad = np.flatnonzero(~np.isfinite(costs) | (costs < 0))
    if bad.size:
        raise ValueError(f"feature_costs[{bad[0]}] must be a finite number >= 0; "
                         f"got {float(costs[bad[0]])!r}")
    check_cost_total(costs, "feature_costs")
    return costs


def check_n_jobs(n_jobs) -> int:
    """joblib's ``n_jobs`` (None: 1), refusing 0, booleans and non-integers.

    Raises
    ------
    ValueError
        Anything but None or a non-zero integer.
    """
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer (> 0: jobs; < 0: all "
                         f"cores but |n_jobs| - 1, joblib's rule); got {n_jobs!r}")
    return int(n_jobs)


class EMSCOClassifier(ClassifierMixin, BaseEstimator):
    """Budgeted multi-stage classifier with a reject option, designed by EMSCO's genetic algorithm.

    EMSCO (Hamilton & Fulp, IEEE CEC 2022) searches ordered partitions of the features
    into stages.  Stage ``m`` uses all features of stages ``0..m`` with its own classifier; an input
    leaves at the first stage whose top class probability is ``>= confidence`` (p̂) and is rejected
    after the last stage.  The search maximises coverage ``g1``, accuracy on accepted inputs ``g2``
    and inverse mean acquisition cost ``g3`` on a validation split, and keeps the highest-fitness
    design of the last generation's front chosen by ``select`` (default: the paper's highest fitness).

    Parameters
    ----------
    feature_costs : array-like of float, shape (n_features,), default None
        Acquisition cost of each feature (>= 0, any unit).  ``None`` means unit costs.
    confidence : float, default 0.75
        p̂; must lie in ``(1/n_classes, 1]`` (the top probability is always >= 1/n_classes, so a
        lower p̂ would accept everything at stage 0).  For binary problems: ``(0.5, 1]``.
    max_stages : int, default None
        Maximum stage count ``k``; ``None`` means the paper's ``min(round(n_features/2), 10)``
        (at least 1).  Values above ``n_features`` are clipped to it.
    population_size : int, default 300
        ``|G|``.
    max_iter : int, default 150
        Generations.
    mutation_rate : float, default 0.075
        ``m̂`` per gene.
    crossover_rate : float, default 0.8
        ``r̂``.
    elite_fraction : float, default 0.2
        ``b``.
    beta : float, default 2.0
        Beta-binomial mutation bias (larger prefers early stages).
    base_estimator : classifier with ``predict_proba``, default None
        Cloned for every cumulative feature set; ``None`` means ``StandardScaler`` +
        ``LogisticRegression``.  NaN inputs are accepted only when it handles them (a first
        pipeline step that imputes, or a native NaN-aware model).
    validation_fraction : float, default 0.25
        Share of the training data held out (stratified) when ``fit`` gets no validation set.  If a
        stratified split is impossible (a class with fewer than 2 samples, or fewer held-out
        samples than classes) the training data also serves as validation data.
    random_state : int >= 0, RandomState instance, numpy Generator or None, default None
        Seeds the whole run (converted once to a ``numpy.random.Generator``; a Generator is used
        as it is).
    n_jobs : int or None, default None
        joblib jobs to train a generation's new classifiers (processes for a general base
        estimator, threads for the fast path of column-wise logistic pipelines); negative values
        follow joblib (-1: all cores, -2: all but one, at least 1), 0 is refused.  Results do not
        depend on it.
    select : {"fitness", "accuracy", "coverage", "cost", "knee"}, default "fitness"
        Which member of the last generation's Pareto front becomes the fitted classifier (judged
        on the validation split): ``fitness`` the paper's highest-fitness design (Eq. 12; ties:
        fewer stages), ``accuracy`` the highest ``g2``, ``coverage`` the highest ``g1``, ``cost``
        the lowest ``g3*``, ``knee`` the design closest to the ideal point once each objective is
        scaled to [0, 1] over the front (see :data:`subsel.evolution.selection.SELECT_RULES` for
        the tie-breaks).  Every front member keeps its stage models, so changing the rule needs no
        new search: :meth:`evaluate_front` scores them all.

    Attributes
    ----------
    stages_ : list of list of int
        Feature indices of each stage of the selected design (see ``select``).
    estimators_ : list
        Fitted classifier of each stage (trained on the training split).
    pareto_front_ : pandas.DataFrame
        Unique solutions of the last generation's first front, best fitness first: ``stages``,
        ``n_stages``, ``g1``, ``g2``, ``g3*`` (validation), ``g3`` and ``selected`` (True on the
        design chosen by ``select``).
    selected_index_ : int
        Row of ``pareto_front_`` chosen by ``select``.
    history_ : pandas.DataFrame
        Per generation: ``generation, front_size, best_g1, best_g2, best_g3*, evaluations,
        cache_hits, set_lookups, set_fits`` (see :class:`~subsel.evolution.engine.EvolutionResult`).
    validation_scores_ : dict
        ``{"g1", "g2", "g3*"}`` of the selected design on the validation split.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.
    feature_costs_ : ndarray of float, shape (n_features,)
    max_stages_ : int
    n_iter_ : int
        Generations run (``max_iter``).
    n_evaluations_ : int
        Chromosomes evaluated (not served from the engine's cache).
    cache_hit_rate_ : float
        Share of cumulative-feature-set lookups served from the classifier cache.
    wall_time_s_ : float

    Notes
    -----
    scikit-learn's estimator checks pass; the genetic search is slow at the paper's settings
    (300 x 150), so tests run them with a small population.  ``predict`` returns the label of the
    stage where each input left (the last stage for abstentions) so that it behaves like any
    classifier; abstention is reported by :meth:`predict_with_reject` and :meth:`predict_with_cost`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = EMSCOClassifier(confidence=0.9, population_size=10, max_iter=2, random_state=0)
    >>> clf.fit(X, y).predict(X[:3]).shape
    (3,)
    """

    def __init__(self, feature_costs=None, confidence=0.75, max_stages=None, population_size=300,
                 max_iter=150, mutation_rate=0.075, crossover_rate=0.8, elite_fraction=0.2,
                 beta=2.0, base_estimator=None, validation_fraction=0.25, random_state=None,
                 n_jobs=None, select="fitness"):
        self.feature_costs = feature_costs
        self.confidence = confidence
        self.max_stages = max_stages
        self.population_size = population_size
        self.max_iter = max_iter
        self.mutation_rate = mutation_rate
        self.crossover_rate = crossover_rate
        self.elite_fraction = elite_fraction
        self.beta = beta
        self.base_estimator = base_estimator
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.select = select

    # -- scikit-learn plumbing ------------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = default_base_estimator() if self.base_estimator is None else self.base_estimator
        tags.input_tags.allow_nan = accepts_missing(base)
        return tags

    def _base(self):
        return default_base_estimator() if self.base_estimator is None else self.base_estimator

    def _validate_X(self, X, reset: bool):
        """ndarray: scikit-learn validation; DataFrame: kept (mixed types) with our own NaN check."""
        allow_nan = accepts_missing(self._base())
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, skip_check_array=True)
            if X.shape[0] == 0:
                raise ValueError("Found array with 0 sample(s) (shape=(0, ...)) while a minimum "
                                 "of 1 is required.")
            if not reset and X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but EMSCOClassifier is expecting "
                                 f"{self.n_features_in_} features as input.")
            if not allow_nan:
                na = X.isna().to_numpy()
                if na.any():
                    r, c = np.argwhere(na)[0]
                    raise ValueError(
                        f"X contains NaN (row {r}, feature {X.columns[c]!r}) and the base "
                        "estimator does not impute; impute first or pass a base_estimator "
                        "that handles missing values")
            return X
        ensure = "allow-nan" if allow_nan else True
        try:
            return validate_data(self, X, reset=reset, dtype="numeric", ensure_all_finite=ensure)
        except ValueError as exc:
            if "NaN" in str(exc) and not allow_nan:
                raise ValueError(f"{str(exc).rstrip('.')}; the base estimator does not impute: "
                                 "impute first or pass a base_estimator that handles missing "
                                 "values") from None
            raise

    def _check_params(self, n_features: int, n_classes: int) -> dict:
        p = {}
        p["select"] = check_select(self.select)
        p["population_size"] = check_scalar(self.population_size, "population_size", int, min_val=2)
        p["max_iter"] = check_scalar(self.max_iter, "max_iter", int, min_val=0)
        p["mutation_rate"] = check_scalar(self.mutation_rate, "mutation_rate", min_val=0, max_val=1)
        p["crossover_rate"] = check_scalar(self.crossover_rate, "crossover_rate", min_val=0, max_val=1)
        p["elite_fraction"] = check_scalar(self.elite_fraction, "elite_fraction", min_val=0, max_val=1)
        check_scalar(self.beta, "beta", min_val=0, include_boundaries="neither")
        check_scalar(self.validation_fraction, "validation_fraction", min_val=0, max_val=1,
                     include_boundaries="neither")
        p["confidence"] = check_confidence(self.confidence, n_classes)
        if self.max_stages is None:
            p["max_stages"] = default_max_stages(n_features)
        else:
            p["max_stages"] = min(check_scalar(self.max_stages, "max_stages", int, min_val=1), n_features)
        p["costs"] = check_feature_costs(self.feature_costs, n_features)
        check_n_jobs(self.n_jobs)
        base = self._base()
        if not hasattr(base, "fit") or not hasattr(base, "predict_proba"):
            raise TypeError("base_estimator must be a scikit-learn classifier with predict_proba; "
                            f"got {type(base).__name__}")
        return p

    @staticmethod
    def _generator(random_state) -> np.random.Generator:
        # scikit-learn's convention: None means numpy's global RandomState, which seeds the run.
        if random_state is None:
            random_state = check_random_state(None)
        return as_generator(random_state, "random_state", random_state=True)

    # -- fit ------------------------------------------------------------------------------------
    def fit(self, X, y, X_val=None, y_val=None):
        """Design the stages by EMSCO on a validation split and train the stage classifiers.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training inputs.  A DataFrame may hold categorical columns when ``base_estimator``
            encodes them.
        y : array-like of shape (n_samples,)
            Labels (at least two classes).
        X_val, y_val : optional
            Validation split for the objectives; when omitted a stratified
            ``validation_fraction`` of ``(X, y)`` is held out.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad parameters (named: e.g. ``n_jobs == 0``, a negative ``random_state``), costs of
            the wrong length or negative, p̂ outside
            ``(1/n_classes, 1]``, a single class in ``y``, NaN inputs the base estimator cannot
            handle, ``X_val`` without ``y_val`` or with unseen labels.
        TypeError
            A base estimator without ``predict_proba``; ``random_state`` of a wrong kind.
        """
        X = self._validate_X(X, reset=True)
        y = column_or_1d(y, warn=True) if not isinstance(y, pd.Series) else y.to_numpy()
        if len(y) != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but y has {len(y)}")
        check_classification_targets(y)
        enc = LabelEncoder().fit(y)
        self.classes_ = enc.classes_
        if self.classes_.size < 2:
            only = self.classes_[0].item() if hasattr(self.classes_[0], "item") else self.classes_[0]
            raise ValueError(f"y has only one class ({only!r}); EMSCO needs at least 2 classes")
        codes = enc.transform(y)
        n_features = X.shape[1]
        p = self._check_params(n_features, self.classes_.size)
        rng = self._generator(self.random_state)
        est_seed = int(rng.integers(0, np.iinfo(np.int32).max))
        if (X_val is None) != (y_val is None):
            raise ValueError("give both X_val and y_val, or neither")
        if X_val is not None:
            X_val = self._validate_X(X_val, reset=False)
            y_val = np.asarray(y_val).ravel()
            if len(y_val) != X_val.shape[0]:
                raise ValueError(f"X_val has {X_val.shape[0]} samples but y_val has {len(y_val)}")
            unseen = np.setdiff1d(np.unique(y_val), self.classes_)
            if unseen.size:
                raise ValueError(f"y_val has labels not in y: {unseen[:5].tolist()}")
            X_tr, y_tr, y_va = X, codes, enc.transform(y_val)
        else:
            X_tr, X_val, y_tr, y_va = self._holdout(X, codes, rng)
        problem = StagedClassificationProblem(
            X_tr, y_tr, X_val, y_va, p["costs"], float(self.confidence), self.base_estimator,
            p["max_stages"], p["mutation_rate"], float(self.beta), self.classes_.size,
            seed=est_seed, n_jobs=self.n_jobs)
        engine = GeneticEngine(p["population_size"], p["max_iter"], p["crossover_rate"],
                               p["elite_fraction"])
        with threadpool_limits(limits=1, user_api="blas"):  # small matrices: threads only contend
            result = engine.run(problem, rng)
        idx = result.pareto_indices()
        idx = idx[np.lexsort(([problem.complexity(result.population[i]) for i in idx],
                              -result.log_fitness[idx]))]
        raw = result.raw_objectives[idx]
        chosen = select_design(raw[:, 0], raw[:, 1], raw[:, 2], p["select"])
        staged = problem.staged_classifier(result.population[idx[chosen]])
        # the cache statistics of the search and of the selected design's models, as before
        cache_hit_rate = 1.0 - problem.fits / problem.lookups if problem.lookups else 0.0
        front_stages = [problem.stages(result.population[i]) for i in idx]
        self._front_staged = [staged if j == chosen else problem.classifier_for_stages(st)
                              for j, st in enumerate(front_stages)]
        self.feature_costs_ = p["costs"]
        self.max_stages_ = p["max_stages"]
        self._staged = staged
        self.stages_ = staged.stages
        self.estimators_ = staged.estimators
        self.selected_index_ = int(chosen)
        self.validation_scores_ = dict(zip(("g1", "g2", "g3*"), map(float, raw[chosen])))
        self.pareto_front_ = pd.DataFrame({
            "stages": front_stages,
            "n_stages": [ops.n_stages(result.population[i]) for i in idx],
            "g1": raw[:, 0], "g2": raw[:, 1], "g3*": raw[:, 2], "g3": result.objectives[idx, 2],
            "selected": np.arange(idx.size) == chosen})
        self.history_ = result.history
        self.n_iter_ = p["max_iter"]
        self.n_evaluations_ = result.evaluations
        self.cache_hit_rate_ = cache_hit_rate
        self.wall_time_s_ = result.wall_time_s
        return self

    def _holdout(self, X, codes, rng):
        counts = np.bincount(codes)
        n_val = int(np.ceil(self.validation_fraction * codes.size))
        if counts.min() < 2 or n_val < counts.size or codes.size - n_val < counts.size:
            return X, X, codes, codes
        seed = int(rng.integers(0, np.iinfo(np.int32).max))
        X_tr, X_va, y_tr, y_va = train_test_split(X, codes, test_size=self.validation_fraction,
                                                  stratify=codes, random_state=seed)
        return X_tr, X_va, y_tr, y_va

    # -- prediction -----------------------------------------------------------------------------
    def _route(self, X):
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return self._staged.route(X), X

    def predict(self, X):
        """Label of the stage where each input left (the last stage for abstentions).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        r = self._route(X)[0]
        return self.classes_[r["label"]]

    def predict_proba(self, X):
        """Class probabilities of the exit stage's classifier.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return self._route(X)[0]["proba"]

    def predict_with_reject(self, X):
        """Labels and the abstention mask.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            As :meth:`predict`.
        abstain : ndarray of bool, shape (n_samples,)
            True where no stage reached the confidence threshold (the input is rejected).
        """
        r = self._route(X)[0]
        return self.classes_[r["label"]], ~r["accepted"]

    def predict_with_cost(self, X) -> pd.DataFrame:
        """Per input: label, accepted, exit stage and acquisition cost (Hamilton and Fulp 2022, Section III).

        Returns
        -------
        pandas.DataFrame
            Columns ``label``, ``accepted`` (bool), ``exit_stage`` (int, zero-based), ``cost``
            (sum of the costs of every feature acquired up to the exit stage); indexed like ``X``
            when it is a DataFrame.
        """
        r, Xv = self._route(X)
        index = Xv.index if isinstance(Xv, pd.DataFrame) else None
        return pd.DataFrame({"label": self.classes_[r["label"]], "accepted": r["accepted"],
                             "exit_stage": r["exit_stage"], "cost": r["cost"]}, index=index)

    def evaluate_front(self, X, y) -> pd.DataFrame:
        """Objectives of every member of :attr:`pareto_front_` on ``(X, y)``, with no refit.

        Each front member keeps the stage models trained during the search, so this shows how
        the other trade-offs of the front generalise (e.g. on a test split).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        pandas.DataFrame
            One row per row of ``pareto_front_`` (same order and index): ``g1`` (coverage),
            ``g2`` (accuracy on accepted inputs, 0 if none), ``g3*`` (mean cost per input).

        Raises
        ------
        ValueError
            ``X`` and ``y`` of different lengths, or ``X`` not like the training inputs.
        """
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        y = np.asarray(y).ravel()
        if y.size != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but y has {y.size}")
        rows = []
        for staged in self._front_staged:
            r = staged.route(X)
            g1, g2, g3 = staged_objectives(self.classes_[r["label"]] == y, r["accepted"], r["cost"])
            rows.append({"g1": g1, "g2": g2, "g3*": g3})
        return pd.DataFrame(rows, columns=["g1", "g2", "g3*"], index=self.pareto_front_.index)

    def evaluate(self, X, y) -> dict:
        """Objectives of the fitted stages on ``(X, y)``: coverage, accuracy, mean cost.

        Returns
        -------
        dict
            ``{"g1": coverage, "g2": accuracy on accepted (0 if none), "g3*": mean cost}``.
        """
        r, _ = self._route(X)
        y = np.asarray(y).ravel()
        if y.size != r["label"].size:
            raise ValueError(f"X has {r['label'].size} samples but y has {y.size}")
        correct = self.classes_[r["label"]] == y
        g1, g2, g3 = staged_objectives(correct, r["accepted"], r["cost"])
        return {"g1": g1, "g2": g2, "g3*": g3}
