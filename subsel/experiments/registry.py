"""Experiments looked up by name, for ``subsel reproduce NAME`` (the solver registry's pattern).

An experiment is a module-level function ``experiment(config: ExperimentConfig) -> list[Path]`` that
runs its grid through :func:`subsel.experiments.run_grid` and writes its files (table, figure,
summary) into ``config.out_dir``.  Add one with a single line in :data:`EXPERIMENTS`; the table is
resolved lazily, so registering never imports the experiment's dependencies.

Contract of an experiment function: honour all three :data:`SCALES` (``tiny`` must finish in a few
seconds: the test suite runs ``subsel reproduce all --scale tiny``), pass
``config.run_kwargs()`` to :func:`~subsel.experiments.run_grid` with ``out`` inside
``config.out_dir`` (so ``--jobs``, ``--scheduler`` and resuming work), write every file atomically and
return the paths written.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._extras import require

__all__ = ["DATASET_EXPERIMENTS", "DESCRIPTIONS", "EXPERIMENTS", "SCALES", "ExperimentConfig", "get_experiment",
           "run_experiment"]

#: Experiment name -> "module:function".  Order is the order of ``subsel reproduce all``.
EXPERIMENTS: dict[str, str] = {
    "fig1a": "subsel.experiments.paper:fig1a",
    "fig1b": "subsel.experiments.paper:fig1b",
    "fig2": "subsel.experiments.paper:fig2",
    "table1": "subsel.experiments.paper:table1",
    "fig3": "subsel.experiments.bandit_figures:fig3",
    "fig4": "subsel.experiments.bandit_figures:fig4",
    "emsco-table2": "subsel.experiments.emsco:emsco_table2",
    "emsco-sweep": "subsel.experiments.emsco:emsco_sweep",
}

#: Experiment name -> what it reproduces, one line (``subsel reproduce --help`` lists these).
DESCRIPTIONS: dict[str, str] = {
    "fig1a": "Deva et al. 2021, Fig. 1a: mean GSS/DPSS utility ratio over n and alpha",
    "fig1b": "Deva et al. 2021, Fig. 1b: mean GSS/ILP (CBC) utility ratio, n up to 5000",
    "fig2": "Deva et al. 2021, Fig. 2: box plot of GSS/DPSS ratios at alpha = 0.7",
    "table1": "Deva et al. 2021, Table 1: median time ratios DPSS:GSS and ILP:GSS",
    "fig3": "Deva et al. 2021, Fig. 3: regret after tau, DPSS-UCB against GSS-UCB",
    "fig4": "Deva et al. 2021, Fig. 4: fraction of correct selections per round",
    "emsco-table2": "Hamilton and Fulp 2022, Tables II/III: EMSCO against NSGA-II and baselines",
    "emsco-sweep": "Hamilton and Fulp 2022: EMSCO's cost-accuracy curve over the confidence p-hat",
}

#: Experiments that take a choice of data sets (``--datasets`` / ``--dataset``); the others reject it.
DATASET_EXPERIMENTS: frozenset[str] = frozenset({"emsco-table2", "emsco-sweep"})

#: Sizes every experiment knows: ``tiny`` (the test suite, seconds), ``quick`` (under a minute on two
#: cores, the CLI default) and ``full`` (the paper's scale).
SCALES = ("tiny", "quick", "full")


@dataclass(frozen=True)
class ExperimentConfig:
    """How to run one experiment.

    Attributes
    ----------
    out_dir : Path
        Folder for the experiment's files (created when missing).
    scale : {"tiny", "quick", "full"}
        Size of the grid (see :data:`SCALES`).
    seed : int
        Root seed of the grid (``>= 0``).
    jobs : int
        Local worker processes (1 = serial).
    scheduler : str or None
        Dask scheduler address; overrides ``jobs``.
    progress : bool or None
        Progress bar; ``None`` = only when stderr is a terminal.
    resume : bool
        Reuse finished tasks of an earlier run into the same folder.
    datasets : tuple of str or None
        Data sets, for the experiments of :data:`DATASET_EXPERIMENTS` (None: the experiment's
        default); the others ignore it.
    log : callable or None
        ``log(line)``: where the runner says what it does (tasks resumed, progress lines); None:
        silent.
    log_every : float or None
        Seconds between progress lines through ``log`` (None: none).
    keep_checkpoint : bool
        Keep the checkpoint of a finished run (False removes it once the table is written).
    data_home : str or None
        Folder holding the real data sets' files (``pima_diabetes.csv``, ``credit_approval.csv``,
        ``heart_failure.csv``), for the experiments of :data:`DATASET_EXPERIMENTS`; None: the
        environment variable ``SUBSEL_DATA``, else the copies shipped with the package.
    data : subsel.evolution.datasets.Dataset or None
        A data set given by the user as train / validation / test splits
        (``Dataset.from_splits``), for ``emsco-sweep`` in place of a named one; the others ignore it.

    Raises
    ------
    ValueError
        Unknown scale, negative seed, bad jobs.
    """

    out_dir: Path
    scale: str = "quick"
    seed: int = 0
    jobs: int = 1
    scheduler: str | None = None
    progress: bool | None = None
    resume: bool = True
    datasets: tuple[str, ...] | None = None
    data_home: str | None = None
    data: Any = None
    log: Callable[[str], None] | None = None
    log_every: float | None = None
    keep_checkpoint: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        if self.data_home is not None:
            object.__setattr__(self, "data_home", str(Path(self.data_home).expanduser().resolve()))
        if self.datasets is not None:
            if isinstance(self.datasets, str) or not all(isinstance(d, str) for d in self.datasets):
                raise TypeError(f"datasets must be a sequence of names; got {self.datasets!r}")
            object.__setattr__(self, "datasets", tuple(self.datasets))
        if self.scale not in SCALES:
            raise ValueError(f"scale must be one of {', '.join(SCALES)}; got {self.scale!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer; got {self.seed!r}")
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or (self.jobs < 1 and self.jobs != -1):
            raise ValueError(f"jobs must be a positive integer or -1 (all cores); got {self.jobs!r}")

    def run_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for :func:`run_grid`: ``jobs, scheduler, progress, resume, log, log_every,
        keep_checkpoint``."""
        return {"jobs": self.jobs, "scheduler": self.scheduler, "progress": self.progress,
                "resume": self.resume, "log": self.log, "log_every": self.log_every,
                "keep_checkpoint": self.keep_checkpoint}


def get_experiment(name: str) -> Callable[[ExperimentConfig], list[Path]]:
    """The experiment function registered as ``name``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the known ones).
    ImportError
        A library of the ``experiments`` extra is missing (the message names the ``pip install``).
    """
    if not isinstance(name, str) or name.strip().lower() not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; known experiments: {', '.join(EXPERIMENTS)}, all")
    require("tqdm", "matplotlib", "joblib", "scipy", "pymoo", "sklearn", extra="experiments",
            feature="reproducing the papers' experiments")
    module, _, func = EXPERIMENTS[name.strip().lower()].partition(":")
    return getattr(importlib.import_module(module), func)


def run_experiment(name: str, out_dir: str | Path, **options: Any) -> list[Path]:
    """Run the experiment ``name`` with :class:`ExperimentConfig` ``(out_dir, **options)``.

    Returns
    -------
    list of Path
        The files written.
    """
    return get_experiment(name)(ExperimentConfig(Path(out_dir), **options))
