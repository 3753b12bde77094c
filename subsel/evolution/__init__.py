"""EMSCO: evolutionary design of budgeted multi-stage classifiers with a reject option (Hamilton and Fulp,
"Budgeted Classification with Rejection: An Evolutionary Method with Multiple Objectives", IEEE CEC 2022).

- :mod:`subsel.evolution.operators` — ranking, fitness, selection, elitism, crossover, mutation;
- :mod:`subsel.evolution.engine` — the generational loop and the pluggable problem interface;
- :mod:`subsel.evolution.staged` — staged classification, objectives g1, g2, g3*, the cache;
- :mod:`subsel.evolution.estimator` — :class:`EMSCOClassifier` (scikit-learn estimator);
- :mod:`subsel.evolution.datasets` — the paper's five data sets and breast cancer.
- :mod:`subsel.evolution.genetic_solver` — the engine as the heuristic ``emsco`` Solver (repaired
  genetic search on selection vectors);
- :mod:`subsel.evolution.seeding` — ILP-chosen feature subsets for the initial population;
- :mod:`subsel.evolution.cstc` — :class:`CSTCClassifier`, the cost-sensitive tree of classifiers
  (Xu, Kusner, Weinberger, Chen, Chapelle, ICML 2013), and :mod:`subsel.evolution.cstc_sweep`, its
  λ sweep (two budgeted baselines of the paper's Table II: this one and GreedyMiser).
"""
from .._extras import face_dir, lazy_attribute, require

# Before anything is imported: a missing library is one line naming `pip install "subsel[evolution]"`.
require("sklearn", "scipy", "threadpoolctl", "joblib", extra="evolution", feature="EMSCO (subsel.evolution)")

from .cstc import CSTCClassifier  # noqa: E402
from .cstc_sweep import DEFAULT_LAMBDAS, CSTCSweep, sweep_lambda  # noqa: E402
from .engine import EvolutionProblem, EvolutionResult, GeneticEngine, StageAssignmentProblem  # noqa: E402
from .estimator import EMSCOClassifier, default_max_stages  # noqa: E402
from .operators import nondominated_sort  # noqa: E402
from .staged import StagedClassificationProblem, StagedClassifier, check_cost_total, staged_objectives  # noqa: E402

#: Names loaded from their module when first used: the data sets load pandas, GreedyMiser LightGBM.
_LAZY = {
    "DATASETS": "datasets", "Dataset": "datasets", "load_dataset": "datasets",
    "GreedyMiserClassifier": "greedymiser",
    "run_nsga2": "nsga2",
    "feature_quality": "seeding", "ilp_feature_subsets": "seeding", "seed_chromosomes": "seeding",
}

__all__ = [
    "CSTCClassifier",
    "CSTCSweep",
    "EMSCOClassifier",
    "EvolutionProblem",
    "EvolutionResult",
    "GeneticEngine",
    "StageAssignmentProblem",
    "StagedClassificationProblem",
    "StagedClassifier",
    "sweep_lambda",
    "DEFAULT_LAMBDAS",
    "check_cost_total",
    "default_max_stages",
    "nondominated_sort",
    "staged_objectives",
    *_LAZY,
]


def __getattr__(name: str) -> object:
    """Load the names of ``_LAZY`` on first use (PEP 562)."""
    return lazy_attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    """The names of the face, loaded or not (PEP 562)."""
    return face_dir(globals(), __all__)
