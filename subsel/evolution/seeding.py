"""Feature subsets chosen by the subset-selection ILP, to seed EMSCO's initial population (Hamilton
and Fulp, IEEE CEC 2022, Section IV).

Features are the agents of the subset-selection ILP (Deva et al., AAMAS 2021, Section 3): a
feature's *quality* is its single-feature validation accuracy
rescaled to [0, 1] above chance (``q = (acc - 1/C) / (1 - 1/C)`` clipped, C classes), its *cost* is
its acquisition cost divided by the largest one, and the planner asks for an average quality of at
least ``alpha`` with revenue constant ``R``: maximise ``sum (R q_i - c_i) x_i`` subject to
``sum (q_i - alpha) x_i >= 0``.  Each ``(alpha, R)`` of a small grid is one ILP solved through the
solver registry (:func:`subsel.solvers.get_solver`, never a backend class); the distinct non-empty
subsets become two-stage chromosomes (the subset first, every other feature in the second stage) —
cheap, informative first stages the random initial population rarely contains.
"""
from __future__ import annotations

import numpy as np

from ..models import SubsetSelectionProblem
from ..solvers import available_solvers, default_solver, get_solver

__all__ = ["DEFAULT_ALPHA_QUANTILES", "DEFAULT_REVENUES", "feature_quality", "ilp_feature_subsets",
           "seed_chromosomes"]

#: Quality thresholds: these quantiles of the features' qualities.
DEFAULT_ALPHA_QUANTILES = (0.5, 0.75, 0.9)
#: Revenue constants ``R`` (larger R: cost matters less).
DEFAULT_REVENUES = (1.0, 2.0, 4.0)
#: The backend that solves the seeding ILPs when none is named: HiGHS, pinned so that the seeds (and
#: the EMSCO tables built on them) stay the same from run to run and machine to machine — two exact
#: solvers may pick different selections among equal optima.  Where it is not available, the
#: registry's one default rule (:func:`subsel.solvers.default_solver`) chooses.
SEEDING_SOLVER = "highs"


def feature_quality(accuracy: np.ndarray, n_classes: int) -> np.ndarray:
    """Single-feature accuracies rescaled to [0, 1] above chance: ``(acc - 1/C) / (1 - 1/C)``.

    Parameters
    ----------
    accuracy : ndarray of float, shape (n_features,)
        Validation accuracy of a classifier on each feature alone, in [0, 1].
    n_classes : int
        ``C >= 2``.

    Returns
    -------
    ndarray of float, shape (n_features,)
        Clipped to [0, 1] (below-chance features get 0).

    Raises
    ------
    ValueError
        ``n_classes < 2`` or an accuracy outside [0, 1].
    """
    acc = np.asarray(accuracy, dtype=float)
    if int(n_classes) < 2:
        raise ValueError(f"n_classes must be >= 2; got {n_classes!r}")
    bad = np.flatnonzero(~np.isfinite(acc) | (acc < 0) | (acc > 1))
    if bad.size:
        raise ValueError(f"accuracy[{bad[0]}] must be in [0, 1]; got {float(acc[bad[0]])!r}")
    chance = 1.0 / int(n_classes)
    return np.clip((acc - chance) / (1.0 - chance), 0.0, 1.0)


def ilp_feature_subsets(quality: np.ndarray, costs: np.ndarray,
                        alpha_quantiles=DEFAULT_ALPHA_QUANTILES, revenues=DEFAULT_REVENUES,
                        solver: str | None = None) -> list[dict]:
    """Solve the feature-selection ILPs of the ``(alpha, R)`` grid; distinct non-empty subsets.

    Parameters
    ----------
    quality : ndarray of float, shape (n_features,)
        In [0, 1] (e.g. :func:`feature_quality`).
    costs : ndarray of float, shape (n_features,)
        Acquisition costs ``>= 0`` (scaled here by their maximum).
    alpha_quantiles : sequence of float
        Thresholds ``alpha`` are these quantiles of ``quality``.
    revenues : sequence of float
        Revenue constants ``R > 0``.
    solver : str, optional
        Registry name; default :data:`SEEDING_SOLVER` when available, else the registry's default
        (:func:`subsel.solvers.default_solver`).

    Returns
    -------
    list of dict
        One per distinct non-empty subset, cheapest first (total cost, then size, then indices):
        ``features`` (sorted list of int), ``cost`` (summed acquisition cost), ``alpha``, ``R``
        (of the first ILP that chose it), ``solver``, ``status``.

    Raises
    ------
    ValueError
        Mismatched lengths, negative costs, an unknown or unavailable solver.
    """
    q = np.asarray(quality, dtype=float)
    c = np.asarray(costs, dtype=float)
    if q.shape != c.shape or q.ndim != 1:
        raise ValueError(f"quality and costs must be 1-D of the same length; got {q.shape} and {c.shape}")
    if np.any(c < 0):
        raise ValueError(f"costs[{int(np.flatnonzero(c < 0)[0])}] must be >= 0")
    if solver is None:
        solver = SEEDING_SOLVER if SEEDING_SOLVER in available_solvers() else default_solver()
    backend = get_solver(solver)
    scaled = c / c.max() if c.max() > 0 else np.zeros_like(c)
    seen: dict[tuple, dict] = {}
    for quant in alpha_quantiles:
        alpha = float(np.quantile(q, quant))
        for R in revenues:
            problem = SubsetSelectionProblem(quality=q, cost=scaled, alpha=alpha, R=float(R))
            sol = backend.solve(problem)
            if not sol.is_feasible:
                continue
            feats = tuple(int(i) for i in np.flatnonzero(sol.x))
            if feats and feats not in seen:
                seen[feats] = {"features": list(feats), "cost": float(c[list(feats)].sum()),
                               "alpha": alpha, "R": float(R), "solver": solver,
                               "status": sol.status.value}
    return sorted(seen.values(), key=lambda d: (d["cost"], len(d["features"]), d["features"]))


def seed_chromosomes(subsets: list[dict], n_features: int, max_stages: int) -> list[np.ndarray]:
    """Stage assignments from feature subsets: the subset in stage 0, the rest in stage 1.

    Parameters
    ----------
    subsets : list of dict
        From :func:`ilp_feature_subsets` (key ``features``).
    n_features : int
    max_stages : int
        With ``max_stages == 1`` (or a subset holding every feature) the seed has one stage.

    Returns
    -------
    list of ndarray of int64, shape (n_features,)
        Aligned assignments (EMSCO's encoding, Hamilton and Fulp 2022, Section IV).
    """
    out = []
    for s in subsets:
        genes = np.ones(n_features, dtype=np.int64)
        genes[s["features"]] = 0
        if max_stages < 2 or genes.max() == 0:
            genes[:] = 0
        out.append(genes)
    return out
