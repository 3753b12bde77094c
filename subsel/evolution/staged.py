"""Budgeted sequential classification with a reject option (Hamilton and Fulp, IEEE CEC 2022, Section III).

A solution assigns every feature a stage; stage ``m`` uses all features of stages ``0..m`` (its
*cumulative feature set*) with its own classifier trained on the training split.  An input leaves at
the first stage whose top class probability is ``>= p̂`` (accepted) and is rejected when still
undecided after the last stage.  Its cost is the sum of the costs of all features acquired up to the
stage where it left (the last stage for rejected inputs).

Objectives on a split of ``N`` inputs with ``N*`` accepted (all maximised):
``g1 = N*/N`` (coverage), ``g2`` = correct accepted / ``N*`` (accuracy, 0 when ``N* = 0``),
``g3*`` = mean cost per input (raw, minimised) and, within a population,
``g3 = min_pop g3* / g3*`` in (0, 1].

Classifiers depend only on their cumulative feature set, so :class:`StagedClassificationProblem`
trains each set once per run and caches the fitted model and its validation probabilities (top
probability, predicted label, correctness); evaluating a chromosome whose sets were seen is array
operations only.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from .engine import StageAssignmentProblem
from .fitters import ColumnwiseLogitFitter, FittedStage, full_proba, make_stage_fitter, take_columns

__all__ = [
    "FittedStage",
    "StagedClassificationProblem",
    "StagedClassifier",
    "check_confidence",
    "cumulative_sets",
    "default_base_estimator",
    "route",
    "route_masks",
    "stage_costs",
    "staged_objectives",
]


def default_base_estimator():
    """The paper's base classifier: standardisation then logistic regression (Hamilton and Fulp 2022, Section V).

    Returns
    -------
    sklearn.pipeline.Pipeline
        ``make_pipeline(StandardScaler(), LogisticRegression())`` (unfitted).
    """
    return make_pipeline(StandardScaler(), LogisticRegression())


def check_confidence(confidence, n_classes: int) -> float:
    """p̂ as a float, checked to lie in ``(1/n_classes, 1]`` (Hamilton & Fulp 2022, §III-B).

    The top class probability is never below ``1/n_classes``, so a lower p̂ would accept every
    input at the first stage; for binary labels the range is ``(0.5, 1]``.

    Raises
    ------
    ValueError
        Not a finite number in that range (the message names p̂, the range and the value).
    """
    c = confidence
    if isinstance(c, bool) or not isinstance(c, numbers.Real) or not np.isfinite(c) \
            or not 1.0 / n_classes < c <= 1.0:
        raise ValueError(f"confidence (p̂) must be in (1/n_classes, 1] = ({1 / n_classes:.4g}, 1] "
                         f"for {n_classes} classes; got {c!r}")
    return float(c)


def cumulative_sets(stages: list[list[int]]) -> list[frozenset]:
    """Cumulative feature sets: element ``m`` holds the features of stages ``0..m``.

    Parameters
    ----------
    stages : list of list of int
        Feature indices per stage.

    Returns
    -------
    list of frozenset of int
    """
    out, acc = [], set()
    for s in stages:
        acc |= set(int(i) for i in s)
        out.append(frozenset(acc))
    return out


def stage_costs(stages: list[list[int]], costs: np.ndarray) -> np.ndarray:
    """Cumulative acquisition cost of leaving at each stage (Hamilton and Fulp 2022, Section III).

    Parameters
    ----------
    stages : list of list of int
    costs : ndarray of float, shape (n_features,)
        Cost of each feature (user's units).

    Returns
    -------
    ndarray of float64, shape (n_stages,)
        Element ``m`` = sum of the costs of the features of stages ``0..m``.
    """
    costs = np.asarray(costs, dtype=float)
    return np.cumsum([costs[list(s)].sum() for s in stages])


def route(confidence: np.ndarray, p_hat: float) -> tuple[np.ndarray, np.ndarray]:
    """Exit stage and acceptance of every input from its top probability at every stage.

    Parameters
    ----------
    confidence : ndarray of float, shape (n_stages, n_inputs)
        Top class probability of each stage's classifier for each input.
    p_hat : float
        Confidence threshold: accept at the first stage with ``confidence >= p_hat``.

    Returns
    -------
    exit_stage : ndarray of int64, shape (n_inputs,)
        Stage where the input left (the last stage for rejected inputs).
    accepted : ndarray of bool, shape (n_inputs,)
    """
    return route_masks(np.asarray(confidence) >= p_hat)


def route_masks(ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`route` from the acceptance masks ``ok[m, i] = confidence[m, i] >= p̂``.

    Parameters
    ----------
    ok : ndarray of bool, shape (n_stages, n_inputs)

    Returns
    -------
    exit_stage : ndarray of int64, shape (n_inputs,)
    accepted : ndarray of bool, shape (n_inputs,)
    """
    accepted = ok.any(axis=0)
    exit_stage = np.where(accepted, ok.argmax(axis=0), ok.shape[0] - 1).astype(np.int64)
    return exit_stage, accepted


def staged_objectives(correct: np.ndarray, accepted: np.ndarray, cost: np.ndarray
                      ) -> tuple[float, float, float]:
    """Objectives ``(g1, g2, g3*)`` of a routed split (Hamilton and Fulp 2022, Section III).

    Parameters
    ----------
    correct : ndarray of bool, shape (N,)
        Whether the label given at the exit stage is right.
    accepted : ndarray of bool, shape (N,)
    cost : ndarray of float, shape (N,)
        Acquisition cost of each input.

    Returns
    -------
    (g1, g2, g3_star) : tuple of float
        Coverage ``N*/N``, accuracy on accepted (0 when none) and mean cost per input.
    """
    n = accepted.size
    n_acc = int(accepted.sum())
    g1 = n_acc / n
    g2 = float(np.count_nonzero(correct & accepted)) / n_acc if n_acc else 0.0
    return g1, g2, scaled_mean(cost)


def scaled_mean(values: np.ndarray) -> float:
    """``mean(values)`` of finite non-negative values without overflow of their sum.

    The values are divided by a power of two near their maximum (exact), averaged and scaled back,
    so costs near the float maximum (a feature cost of 1e308 over 100 inputs) give their finite
    mean instead of an overflow warning and ``inf``; otherwise the result is ``np.mean``'s bit
    for bit.

    Parameters
    ----------
    values : ndarray of float, shape (N,), N >= 1

    Returns
    -------
    float
    """
    top = float(np.max(values)) if values.size else 0.0
    if top * max(values.size, 1) < 2.0 ** 1000:  # the sum cannot overflow: numpy's mean as ever
        return float(np.mean(values))
    return math.ldexp(float(np.mean(np.ldexp(values, -1000))), 1000)


def check_cost_total(costs: np.ndarray, field_name: str) -> None:
    """Refuse feature costs whose sum is beyond the largest float (about 1.8e308).

    An input's cost is a sum of feature costs (Hamilton and Fulp 2022, Section III); with a total
    beyond the float range it would be ``inf`` and the objectives ``nan``.

    Raises
    ------
    ValueError
        Naming ``field_name``, the total and what to do (scale the costs down).
    """
    try:
        total = math.fsum(costs.tolist())
    except OverflowError:
        total = math.inf
    if not math.isfinite(total):
        raise ValueError(f"{field_name}: the costs sum to more than the largest float (1.8e308), so an "
                         "input's cost would overflow; scale them down (the objectives only compare costs)")


@dataclass
class StagedClassifier:
    """A fitted budgeted sequential classifier: stages, one fitted model per stage, costs and p̂.

    Parameters
    ----------
    stages : list of list of int
        Feature indices per stage (ordered partition of a subset of the features).
    estimators : list
        Fitted classifiers; ``estimators[m]`` was trained on the cumulative set of stage ``m``
        (columns in increasing index order) with integer-coded labels ``0..n_classes-1``.
    costs : ndarray of float, shape (n_features,)
    confidence : float
        p̂.
    n_classes : int
    """

    stages: list
    estimators: list
    costs: np.ndarray
    confidence: float
    n_classes: int

    def route(self, X) -> dict[str, np.ndarray]:
        """Route inputs through the stages, acquiring later stages only for undecided inputs.

        Parameters
        ----------
        X : ndarray or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        dict
            ``proba`` (n_samples, n_classes) of the exit stage's classifier, ``label`` (int codes),
            ``accepted`` (bool), ``exit_stage`` (int64), ``cost`` (float64, cumulative cost of the
            exit stage).
        """
        n = X.shape[0]
        sets = [tuple(sorted(s)) for s in cumulative_sets(self.stages)]
        S = len(sets)
        proba = np.zeros((n, self.n_classes))
        accepted = np.zeros(n, dtype=bool)
        exit_stage = np.full(n, S - 1, dtype=np.int64)
        pending = np.arange(n)
        for m, (cols, est) in enumerate(zip(sets, self.estimators)):
            if pending.size == 0:
                break
            Xm = take_columns(X, cols)
            Xm = Xm.iloc[pending] if hasattr(Xm, "iloc") else Xm[pending]
            P = full_proba(est, Xm, self.n_classes)
            ok = P.max(axis=1) >= self.confidence
            done = ok if m < S - 1 else np.ones_like(ok)
            idx = pending[done]
            proba[idx] = P[done]
            accepted[pending[ok]] = True
            exit_stage[idx] = m
            pending = pending[~done]
        cost = stage_costs(self.stages, self.costs)[exit_stage]
        return {"proba": proba, "label": proba.argmax(axis=1), "accepted": accepted,
                "exit_stage": exit_stage, "cost": cost}


class StagedClassificationProblem(StageAssignmentProblem):
    """EMSCO's classification problem for the :class:`~subsel.evolution.engine.GeneticEngine`.

    Raw objectives ``(g1, g2, g3*)`` on the validation split; :meth:`normalize` turns ``g3*`` into
    ``g3 = min_pop g3* / g3*`` (Hamilton and Fulp 2022, Section III).

    Parameters
    ----------
    X_train, X_val : ndarray or DataFrame, shapes (n_train, n_features), (n_val, n_features)
    y_train, y_val : ndarray of int, labels coded ``0..n_classes-1``
    costs : ndarray of float, shape (n_features,)
        Non-negative feature costs.
    confidence : float
        p̂.
    base_estimator : sklearn classifier with ``predict_proba``, or None
        ``None`` is :func:`default_base_estimator`.  For binary labels, column-wise logistic
        pipelines (the default, and e.g. impute + one-hot + scale + logistic regression) are fitted
        by :mod:`subsel.evolution.fastlogit`: the same optimum without scikit-learn's per-fit
        overhead, stage models handed back as :class:`~subsel.evolution.fastlogit.ColumnwiseLogit`.
    max_stages : int
        ``k``.
    mutation_rate, beta : float
        Mutation rate ``m̂`` and bias ``beta``.
    n_classes : int
    seed : int
        Seeds base estimators with an unset ``random_state`` (derived per feature set, so the models
        do not depend on training order or ``n_jobs``).
    n_jobs : int or None
        Parallel jobs (joblib) to train a batch's new feature sets: processes for general base
        estimators, threads for the fast path.

    Attributes
    ----------
    fitter : StageFitter
        How a feature set's classifier is trained (:func:`~subsel.evolution.fitters.make_stage_fitter`).
    cache : dict of bytes to FittedStage
        Cumulative feature set (key: :meth:`set_key`, the membership mask as bytes — a frozenset
        key, cheaper to build and hash) -> its :class:`~subsel.evolution.fitters.FittedStage`
        (model, validation acceptance mask ``top probability >= p̂``, validation correctness).
    lookups, fits : int
        Cumulative feature-set lookups and trainings (cache hit rate = 1 - fits / lookups).
    newton_iterations : int
        Hessians formed in full by all fast-path trainings (0 on the scikit-learn path).
    RECENT_SETS : int
        How many of the most recently trained sets are searched for a warm start (class attribute).
    """

    objective_names = ("g1", "g2", "g3*")
    #: How many of the most recently trained feature sets are searched for a warm start.
    RECENT_SETS = 4096

    def __init__(self, X_train, y_train, X_val, y_val, costs, confidence: float, base_estimator,
                 max_stages: int, mutation_rate: float, beta: float, n_classes: int, seed: int = 0,
                 n_jobs: int | None = None):
        costs = np.asarray(costs, dtype=float)
        super().__init__(costs.size, max_stages, mutation_rate, beta)
        self.X_train, self.y_train = X_train, np.asarray(y_train)
        self.X_val, self.y_val = X_val, np.asarray(y_val)
        self.costs = costs
        self.n_classes = int(n_classes)
        self.confidence = check_confidence(confidence, self.n_classes)
        self.base_estimator = default_base_estimator() if base_estimator is None else base_estimator
        self.seed = int(seed)
        self.n_jobs = n_jobs
        self.fitter = make_stage_fitter(self.base_estimator, X_train, self.y_train, X_val, self.y_val,
                                        self.n_classes, self.confidence, self.seed, n_jobs)
        self.fast = isinstance(self.fitter, ColumnwiseLogitFitter)
        self.cache: dict[bytes, FittedStage] = {}
        # the most recently trained sets (membership masks, a ring): warm starts come from the nearest
        self._recent = np.zeros((self.RECENT_SETS if self.fitter.warm_starts else 0, self.n_features),
                                dtype=np.float32)
        self._recent_size = np.zeros(self._recent.shape[0], dtype=np.float32)   # features per set
        self._recent_keys: list[bytes] = []
        self.lookups = 0
        self.fits = 0
        self.newton_iterations = 0

    def set_key(self, features) -> bytes:
        """Cache key of a feature set: its membership mask as bytes (a frozenset, cheaper)."""
        mask = np.zeros(self.n_features, dtype=bool)
        mask[list(features)] = True
        return mask.tobytes()

    def _keys(self, genes: np.ndarray) -> list[bytes]:
        return [(genes <= m).tobytes() for m in range(int(genes.max()) + 1)]

    def ensure_fitted(self, keys: list[bytes], parents: dict[bytes, bytes] | None = None) -> None:
        """Train (and cache) every feature set of ``keys`` not in the cache, in parallel if asked.

        Parameters
        ----------
        keys : list of bytes
            Feature sets as :meth:`set_key` masks.
        parents : dict of bytes to bytes, optional
            A subset of each key (e.g. the previous stage's cumulative set).  Sets whose subset is
            new too are trained after it (waves of increasing depth).  A fitter with warm starts
            (the column-wise logistic one) starts each set from the fitted model of the nearest
            set (fewest features in one set but not the other; ties: the subset, then the earliest
            in the ring) among the subset and the :attr:`RECENT_SETS` most recently trained sets:
            fewer Newton steps, the same optimum.  Starts are chosen before a wave is trained, so
            the models do not depend on ``n_jobs``.
        """
        self.lookups += len(keys)
        new = sorted({k for k in keys if k not in self.cache})
        if not new:
            return
        if not self.fitter.warm_starts:
            self._store(new, self.fitter.fit([self._columns(k) for k in new], [None] * len(new)))
            return
        parents = parents or {}
        depth: dict[bytes, int] = {}

        def depth_of(k: bytes) -> int:
            if k in self.cache:
                return -1
            if k not in depth:
                q = parents.get(k)
                depth[k] = 0 if q is None or q == k else depth_of(q) + 1
            return depth[k]

        for k in new:
            depth_of(k)
        # BLAS single-threaded: these products are far too small for BLAS threads, which would
        # spin on the shared cores; parallelism comes from n_jobs
        with threadpool_limits(limits=1, user_api="blas"):
            for wave in range(max(depth.values()) + 1):
                todo = [k for k in new if depth[k] == wave]
                starts = self._nearest_fitted(todo, parents)
                self._store(todo, self.fitter.fit([self._columns(k) for k in todo], starts))

    def _nearest_fitted(self, keys: list[bytes], parents: dict[bytes, bytes]) -> list[FittedStage | None]:
        """Warm start of each new set: the nearest of its subset and the recently trained sets."""
        n_recent = min(len(self._recent_keys), self._recent.shape[0])
        Q = np.frombuffer(b"".join(keys), dtype=bool).reshape(len(keys), self.n_features)
        best_j = np.full(len(keys), -1)
        best_d = np.full(len(keys), self.n_features + 1)
        if n_recent:
            Qf = Q.astype(np.float32)
            # |q xor r| = |q| + |r| - 2 |q and r| (integers, exact in float32): the nearest r has
            # the largest 2 |q and r| - |r|
            score = Qf @ (2.0 * self._recent[:n_recent].T)
            score -= self._recent_size[:n_recent]
            best_j = score.argmax(axis=1)
            best_d = Qf.sum(axis=1) - score[np.arange(len(keys)), best_j]
        out: list[FittedStage | None] = []
        for i, k in enumerate(keys):
            q = parents.get(k)
            if q is not None and q in self.cache:
                d_parent = int(np.count_nonzero(Q[i] != np.frombuffer(q, dtype=bool)))
                if d_parent <= best_d[i]:
                    out.append(self.cache[q])
                    continue
            out.append(self.cache[self._recent_keys[best_j[i]]] if best_j[i] >= 0 else None)
        return out

    def _store(self, keys: list[bytes], stages: list[FittedStage]) -> None:
        size = self._recent.shape[0]
        for k, st in zip(keys, stages):
            self.cache[k] = st
            self.newton_iterations += st.newton_iterations
            if size:
                slot = self.fits % size
                self._recent[slot] = np.frombuffer(k, dtype=bool)
                self._recent_size[slot] = self._recent[slot].sum()
                if slot < len(self._recent_keys):
                    self.cache[self._recent_keys[slot]].hessian = None   # out of the ring
                    self._recent_keys[slot] = k
                else:
                    self._recent_keys.append(k)
            else:
                st.hessian = None
            self.fits += 1

    @staticmethod
    def _columns(key: bytes) -> tuple[int, ...]:
        return tuple(np.flatnonzero(np.frombuffer(key, dtype=bool)).tolist())

    def evaluate(self, batch: list[np.ndarray]) -> np.ndarray:
        """Raw objectives ``(g1, g2, g3*)`` on the validation split, shape ``(len(batch), 3)``.

        After the batch's new feature sets are trained, each chromosome costs a few array
        operations on the cached acceptance and correctness masks of its cumulative sets.
        """
        keys = [self._keys(np.asarray(g)) for g in batch]
        parents: dict[bytes, bytes] = {}
        for ks in keys:
            for prev, k in zip(ks, ks[1:]):
                parents.setdefault(k, prev)
        self.ensure_fitted([k for ks in keys for k in ks], parents)
        out = np.empty((len(batch), 3))
        rows = np.arange(self.y_val.size)
        for j, (genes, ks) in enumerate(zip(batch, keys)):
            entries = [self.cache[k] for k in ks]
            ok = np.stack([e.accepted for e in entries])
            correct = np.stack([e.correct for e in entries])
            exit_stage, accepted = route_masks(ok)
            cum_cost = np.bincount(genes, weights=self.costs, minlength=len(ks)).cumsum()
            out[j] = staged_objectives(correct[exit_stage, rows], accepted, cum_cost[exit_stage])
        return out

    def normalize(self, raw: np.ndarray) -> np.ndarray:
        """``(g1, g2, g3)`` with ``g3 = min_pop g3* / g3*``; a zero-cost solution gets ``g3 = 1``."""
        out = np.array(raw, dtype=float, copy=True)
        g3s = out[:, 2]
        lo = g3s.min()
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, 2] = np.where(g3s > 0, lo / g3s, 1.0)
        return out

    def stats(self) -> dict[str, float]:
        return {"set_lookups": self.lookups, "set_fits": self.fits,
                "newton_iterations": self.newton_iterations}

    def staged_classifier(self, genes: np.ndarray) -> StagedClassifier:
        """The fitted :class:`StagedClassifier` of a solution (its sets trained if needed)."""
        return self.classifier_for_stages(self.stages(np.asarray(genes)))

    def classifier_for_stages(self, stages: list[list[int]],
                              confidence: float | None = None) -> StagedClassifier:
        """A fitted :class:`StagedClassifier` for any stage lists (e.g. a feature subset alone).

        Parameters
        ----------
        stages : list of list of int
            Feature indices per stage; may leave features out (they are never acquired).
        confidence : float, optional
            p̂ of the classifier; default the problem's (``0`` accepts every input: no rejection).

        Returns
        -------
        StagedClassifier
            Stage models come from (and are added to) the feature-set cache.
        """
        stages = [sorted(int(i) for i in s) for s in stages]
        keys = [self.set_key(s) for s in cumulative_sets(stages)]
        self.ensure_fitted(keys, dict(zip(keys[1:], keys)))
        models = [self.fitter.classifier(self.cache[k]) for k in keys]
        return StagedClassifier(stages=stages, estimators=models, costs=self.costs,
                                confidence=self.confidence if confidence is None else float(confidence),
                                n_classes=self.n_classes)
