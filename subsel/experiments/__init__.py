"""Experiments: the grid runner and the paper's comparison scripts (Deva et al., AAMAS 2021, Section 6;
Hamilton and Fulp, IEEE CEC 2022, Section V).

This package sits on top of the library: it uses :mod:`subsel.models` and the solver registry, and
nothing in ``models``, ``solvers``, ``bandits`` or ``evolution`` imports it.

- :mod:`subsel.experiments.runner` — :class:`Task`, :func:`grid`, :func:`run_grid` (serial, joblib or
  Dask; resumable; CSV/Parquet);
- :mod:`subsel.experiments.registry` — :data:`EXPERIMENTS`, the ``subsel reproduce`` table.
"""
from .._extras import face_dir, lazy_attribute
from .registry import (
    DATASET_EXPERIMENTS,
    DESCRIPTIONS,
    EXPERIMENTS,
    SCALES,
    ExperimentConfig,
    get_experiment,
    run_experiment,
)

#: Names loaded from their module when first used (the command line needs them for one command each;
#: the runner's load pandas, which ``subsel --help`` and ``subsel reproduce --help`` do without).
_LAZY = {
    "Task": "runner", "TaskError": "runner", "TaskFileNotFoundError": "runner", "TaskInputError": "runner",
    "WorkerLostError": "runner", "checkpoint_path": "runner", "grid": "runner", "run_grid": "runner",
    "write_table": "runner",
    "check_data_files": "emsco", "check_datasets": "emsco", "experiment_datasets": "emsco",
    "check_comparison": "compare", "compare": "compare",
    "new_figure": "plots", "save_figure": "plots",
}

__all__ = [
    "EXPERIMENTS",
    "SCALES",
    "ExperimentConfig",
    "get_experiment",
    "run_experiment",
    "DATASET_EXPERIMENTS",
    "DESCRIPTIONS",
    *_LAZY,
]


def __getattr__(name: str) -> object:
    """Load the names of ``_LAZY`` on first use (PEP 562)."""
    return lazy_attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    """The names of the face, loaded or not (PEP 562)."""
    return face_dir(globals(), __all__)
