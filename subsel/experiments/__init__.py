"""Experiments: the grid runner and the paper's comparison scripts (Deva et al., AAMAS 2021, Section 6;
Hamilton and Fulp, IEEE CEC 2022, Section V).

This package sits on top of the library: it uses :mod:`subsel.models` and the solver registry, and
nothing in ``models``, ``solvers``, ``bandits`` or ``evolution`` imports it.

- :mod:`subsel.experiments.runner` — :class:`Task`, :func:`grid`, :func:`run_grid` (serial, joblib or
  Dask; resumable; CSV/Parquet);
- :mod:`subsel.experiments.registry` — :data:`EXPERIMENTS`, the ``subsel reproduce`` table.
"""
from .registry import EXPERIMENTS, SCALES, ExperimentConfig, get_experiment, run_experiment
from .runner import Task, TaskError, TaskFileNotFoundError, TaskInputError, checkpoint_path, grid, run_grid, write_table

__all__ = [
    "EXPERIMENTS",
    "SCALES",
    "ExperimentConfig",
    "Task",
    "TaskError",
    "TaskFileNotFoundError",
    "TaskInputError",
    "checkpoint_path",
    "get_experiment",
    "grid",
    "run_experiment",
    "run_grid",
    "write_table",
]
