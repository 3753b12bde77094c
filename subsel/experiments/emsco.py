"""EMSCO's experiments (Hamilton and Fulp, IEEE CEC 2022, Section V): Table II/III against baselines, p̂ sweep.

``emsco-table2`` runs, per data set (Synthetic50, Synthetic15, Pima, Credit, Heart with the paper's
settings), independent EA runs on one fixed train / validation / test split (60 / 20 / 20) — the
paper's margins of error come from the EA's randomness, so the split is shared by every run and
every method — and compares on the *test* split:

- ``emsco``: the paper's EMSCO (random one- or two-stage initial population), its highest-fitness
  solution of the last generation;
- ``emsco+ilp``: the same, with part of the initial population seeded by feature subsets chosen by
  the subset-selection ILP through the solver registry (:mod:`subsel.evolution.seeding`);
- ``nsga2``: pymoo's NSGA-II on the same encoding, operators and objectives, with the same
  population size and as many objective evaluations as the paired EMSCO run requested (its
  ``evaluations + cache_hits``), reporting the max-``||g||_2`` solution of its final front;
- ``all-features``: baseline (a), one stage with every feature, no rejection;
- ``all-features-reject``: baseline (b), one stage with every feature, rejecting below p̂
  (a selective classifier);
- ``ilp-subset``: baseline (d), the cheapest feature subset of the ILP route, one stage, no
  rejection (a budgeted, non-selective classifier like the paper's GM and CSTC);
- ``gm``: GreedyMiser (Xu, Weinberger, Chapelle, ICML 2012), the paper's budgeted baseline, as
  LightGBM's cost-efficient gradient boosting with its trade-off tuned on the validation split
  (:mod:`subsel.evolution.greedymiser`; skipped when LightGBM is not installed);
- ``cstc``: CSTC (Xu, Kusner, Weinberger, Chen, Chapelle, ICML 2013), the paper's other budgeted
  baseline, λ chosen on validation by GM's rule (:mod:`subsel.experiments.emsco_cstc`).

``emsco-sweep`` traces EMSCO's cost–accuracy curve over p̂ in {0.55, ..., 0.95} on one data set.

Files (in ``config.out_dir``): ``NAME.csv`` (tidy: one row per data set x method x run, with the
resume checkpoint beside it), ``NAME_summary.csv``, ``NAME.png`` and ``NAME.md``.
"""
from __future__ import annotations

import functools
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .._files import atomic_write_text
from .analysis import to_markdown
from .emsco_claims import check_claims
from .emsco_cstc import budgeted_note, cstc_note, cstc_row
from .registry import ExperimentConfig
from .runner import Task, grid, run_grid, write_table
from .statistics import margin_of_error, nondominated_methods, summarize_methods

__all__ = ["authors_layout", "TABLE2_DATASETS", "TABLE2_SCALES", "SWEEP_SCALES", "SWEEP_CONFIDENCES", "METHODS",
           "check_datasets", "check_data_files", "experiment_datasets", "emsco_sweep", "emsco_table2",
           "margin_of_error", "nondominated_methods",
           "summarize_methods", "check_claims"]

#: The paper's five data sets, in Table II's order.
TABLE2_DATASETS = ("synthetic50", "synthetic15", "pima", "credit", "heart")
#: Data sets that need no file (the defaults of the ``tiny`` scale, so the test suite runs anywhere).
SYNTHETIC = ("synthetic15", "synthetic50")
#: Method names, in the table's order (the baselines are deterministic: one row each, run 0).
METHODS = ("emsco", "emsco+ilp", "nsga2", "all-features", "all-features-reject", "ilp-subset", "gm", "cstc")

#: EA runs per data set, population and generations per scale.  ``None`` = the paper's value
#: (population from the paper's Section V, 150 generations).
TABLE2_SCALES: dict[str, dict] = {
    "tiny": {"runs": 2, "population": 8, "generations": 2, "datasets": SYNTHETIC},
    "quick": {"runs": 3, "population": 24, "generations": 6, "datasets": TABLE2_DATASETS},
    "full": {"runs": 50, "population": None, "generations": 150, "datasets": TABLE2_DATASETS},
}
#: p̂ grid of the sweep.
SWEEP_CONFIDENCES = (0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
SWEEP_SCALES: dict[str, dict] = {
    "tiny": {"runs": 2, "population": 8, "generations": 2, "confidences": (0.6, 0.8, 0.95),
             "dataset": "synthetic15"},
    "quick": {"runs": 3, "population": 20, "generations": 5, "confidences": SWEEP_CONFIDENCES,
              "dataset": "synthetic15"},
    "full": {"runs": 10, "population": None, "generations": 150, "confidences": SWEEP_CONFIDENCES,
             "dataset": "synthetic15"},
}
#: Share of the initial population seeded by the ILP route (at most; fewer when fewer distinct subsets).
ILP_SEED_SHARE = 0.25

_PAPER = ("Hamilton & Fulp, *Budgeted Classification with Rejection: An Evolutionary Method with "
          "Multiple Objectives* (IEEE CEC 2022), §V, Tables II and III")


# -- running one data set --------------------------------------------------------------------------

def check_datasets(names) -> list[str]:
    """Normalise data set names and check they are known (``subsel.evolution.datasets``).

    Raises
    ------
    ValueError
        An unknown or repeated name (the message lists the known ones).
    """
    from ..evolution import DATASETS

    out = []
    for raw in names:
        name = str(raw).strip().lower()
        if name not in DATASETS:
            raise ValueError(f"unknown data set {raw!r}; choose from {', '.join(DATASETS)}")
        if name in out:
            raise ValueError(f"data set {name!r} is listed twice")
        out.append(name)
    if not out:
        raise ValueError("give at least one data set")
    return out


def experiment_datasets(experiment: str, scale: str, datasets=None) -> list[str]:
    """The data sets ``experiment`` (``emsco-table2`` or ``emsco-sweep``) will load at ``scale``.

    Parameters
    ----------
    experiment : {"emsco-table2", "emsco-sweep"}
    scale : {"tiny", "quick", "full"}
    datasets : sequence of str, optional
        The user's choice (``--datasets``); ``None`` gives the scale's default.

    Returns
    -------
    list of str
        Normalised names (see :func:`check_datasets`).

    Raises
    ------
    ValueError
        Unknown experiment, scale or data set; more than one data set for ``emsco-sweep``.
    """
    table = {"emsco-table2": TABLE2_SCALES, "emsco-sweep": SWEEP_SCALES}.get(experiment)
    if table is None:
        raise ValueError(f"experiment {experiment!r} loads no data set (only emsco-table2, emsco-sweep)")
    if scale not in table:
        raise ValueError(f"scale must be one of {', '.join(table)}; got {scale!r}")
    size = table[scale]
    names = check_datasets(datasets or (size["datasets"] if "datasets" in size else [size["dataset"]]))
    if experiment == "emsco-sweep" and len(names) != 1:
        raise ValueError(f"emsco-sweep takes one data set (--dataset NAME); got {', '.join(names)}")
    return names


def check_data_files(names, seed: int = 0, data_home: str | None = None) -> None:
    """Load every real data set of ``names`` once, so a missing file fails before a grid starts.

    The synthetic sets need no file and are skipped.  ``data_home`` (else ``$SUBSEL_DATA``, else the
    copies shipped with the package) is the folder, as in ``subsel.evolution.datasets.data_home``.

    Raises
    ------
    FileNotFoundError
        A real data set's file is missing (the message names the file, the folder and its source).
    ValueError
        Unknown data set, or a file that cannot be read as that data set.
    """
    from ..evolution import load_dataset

    for name in check_datasets(names):
        if name not in SYNTHETIC and name != "breast_cancer":
            load_dataset(name, seed=seed, data_home=data_home)


def _data_home_param(config: ExperimentConfig) -> dict:
    """``{"data_home": ...}`` for the tasks when the run names a data home, else nothing (so the
    tasks of a run on the shipped data keep their identity in the checkpoint)."""
    return {} if config.data_home is None else {"data_home": config.data_home}


def _setup(dataset: str, data_seed: int, confidence: float | None = None, data_home: str | None = None,
           data=None):
    """Load (or take ``data``), split and wrap a data set in a :class:`StagedClassificationProblem`."""
    from ..evolution import StagedClassificationProblem, default_max_stages, load_dataset

    ds = load_dataset(dataset, seed=data_seed, data_home=data_home) if data is None else data
    X_tr, X_va, X_te, y_tr, y_va, y_te = ds.split()
    s = ds.settings
    p_hat = s["confidence"] if confidence is None else float(confidence)
    problem = StagedClassificationProblem(
        X_tr, y_tr, X_va, y_va, ds.costs, p_hat, ds.base_estimator,
        default_max_stages(ds.costs.size), s["mutation_rate"], s["beta"], int(np.max(y_tr)) + 1,
        seed=data_seed)
    return ds, problem, (X_te, np.asarray(y_te))


def _test_scores(problem, stages, test, confidence=None) -> dict:
    from ..evolution import staged_objectives

    clf = problem.classifier_for_stages(stages, confidence)
    r = clf.route(test[0])
    g1, g2, g3 = staged_objectives(r["label"] == test[1], r["accepted"], r["cost"])
    return {"g1": g1, "g2": g2, "g3*": g3, "n_stages": len(stages),
            "n_features": int(sum(len(s) for s in stages))}


def _greedy_miser(ds, problem, test, seed: int) -> dict | None:
    """GreedyMiser's row (LightGBM's cost-efficient boosting, trade-off tuned on validation), or
    None when LightGBM is not installed."""
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return None
    from ..evolution import GreedyMiserClassifier

    start = time.perf_counter()
    gm = GreedyMiserClassifier(ds.costs, random_state=seed).fit(
        problem.X_train, problem.y_train, problem.X_val, problem.y_val)
    scores = gm.evaluate(*test)
    return {"method": "gm", **scores, "n_stages": 1, "n_features": int(gm.features_used_.size),
            "wall_time_s": time.perf_counter() - start, "gm_tradeoff": gm.tradeoff_,
            "gm_features": " ".join(ds.feature_names[i] for i in gm.features_used_)}


def _ilp_subsets(problem) -> list[dict]:
    from ..evolution import feature_quality, ilp_feature_subsets

    singles = [problem.set_key([i]) for i in range(problem.n_features)]
    problem.ensure_fitted(singles)
    acc = np.array([problem.cache[k].correct.mean() for k in singles])  # validation correctness
    return ilp_feature_subsets(feature_quality(acc, problem.n_classes), problem.costs)


def _run_emsco(problem, population: int, generations: int, crossover_rate: float, elite: float,
               rng: np.random.Generator, initial=None):
    from ..evolution import GeneticEngine

    engine = GeneticEngine(population, generations, crossover_rate, elite)
    return engine.run(problem, rng, initial=initial)


def _run_nsga2(problem, population: int, n_eval: int, crossover_rate: float, seed: int):
    from ..evolution import run_nsga2

    return run_nsga2(problem, population, n_eval, crossover_rate, seed)


def table2_task(task: Task) -> list[dict]:
    """One task of ``emsco-table2``: one EA run (``part == "ea"``) or the baselines of a data set.

    Parameters
    ----------
    task : Task
        ``params``: ``dataset``, ``part`` (``"ea"`` or ``"baselines"``), ``run``, ``data_seed``,
        ``population`` (None = the paper's), ``generations``.

    Returns
    -------
    list of dict
        One row per method: ``method, g1, g2, g3*`` (test split), ``val_g1, val_g2, val_g3*``
        (validation, EA methods), ``n_stages, n_features, evaluations, wall_time_s`` and, for the
        ILP route, ``ilp_subsets`` (how many distinct subsets) and ``ilp_features``.
    """
    from threadpoolctl import threadpool_limits

    from ..evolution import seed_chromosomes

    p = task.params
    with threadpool_limits(limits=1, user_api="blas"):
        ds, problem, test = _setup(p["dataset"], int(p["data_seed"]), data_home=p.get("data_home"))
        s = ds.settings
        rows = []
        if p["part"] == "baselines":
            everything = [list(range(problem.n_features))]
            for method, conf in (("all-features", 0.0), ("all-features-reject", None)):
                start = time.perf_counter()
                row = _test_scores(problem, everything, test, conf)
                rows.append({"method": method, **row, "wall_time_s": time.perf_counter() - start})
            start = time.perf_counter()
            subsets = _ilp_subsets(problem)
            cheapest = [subsets[0]["features"]] if subsets else everything
            row = _test_scores(problem, cheapest, test, 0.0)
            rows.append({"method": "ilp-subset", **row, "wall_time_s": time.perf_counter() - start,
                         "ilp_subsets": len(subsets),
                         "ilp_features": " ".join(ds.feature_names[i] for i in cheapest[0])})
            gm = _greedy_miser(ds, problem, test, int(p["data_seed"]))
            if gm is not None:
                rows.append(gm)
            rows.append(cstc_row(ds, problem, test, p.get("cstc_scale", "full"), int(p["data_seed"])))
            return rows

        population = int(p["population"] or s["population_size"])
        generations = int(p["generations"])
        ss = task.seed_sequence().spawn(3)
        # EMSCO, the paper's algorithm (its fits fill the cache first, so its time is its own).
        start = time.perf_counter()
        res = _run_emsco(problem, population, generations, s["crossover_rate"], s["elite_fraction"],
                         np.random.default_rng(ss[0]))
        stages = problem.stages(res.best)
        rows.append({"method": "emsco", **_test_scores(problem, stages, test),
                     **dict(zip(("val_g1", "val_g2", "val_g3*"), map(float, res.best_objectives))),
                     "evaluations": res.evaluations + res.cache_hits,
                     "wall_time_s": time.perf_counter() - start})
        budget = res.evaluations + res.cache_hits
        # EMSCO seeded by the ILP route.
        start = time.perf_counter()
        subsets = _ilp_subsets(problem)
        seeds = seed_chromosomes(subsets, problem.n_features, problem.max_stages)
        seeds = seeds[:max(1, int(ILP_SEED_SHARE * population))]
        res2 = _run_emsco(problem, population, generations, s["crossover_rate"], s["elite_fraction"],
                          np.random.default_rng(ss[1]), initial=seeds)
        rows.append({"method": "emsco+ilp", **_test_scores(problem, problem.stages(res2.best), test),
                     **dict(zip(("val_g1", "val_g2", "val_g3*"), map(float, res2.best_objectives))),
                     "evaluations": res2.evaluations + res2.cache_hits, "ilp_subsets": len(subsets),
                     "wall_time_s": time.perf_counter() - start})
        # NSGA-II with EMSCO's evaluation budget.
        start = time.perf_counter()
        genes, val, n_eval = _run_nsga2(problem, population, budget, s["crossover_rate"],
                                        int(ss[2].generate_state(1)[0]))
        rows.append({"method": "nsga2", **_test_scores(problem, problem.stages(genes), test),
                     **dict(zip(("val_g1", "val_g2", "val_g3*"), map(float, val))),
                     "evaluations": n_eval, "wall_time_s": time.perf_counter() - start})
        return rows


def _scale_settings(config: ExperimentConfig, table: dict) -> dict:
    return dict(table[config.scale])


def _backend_text(config: ExperimentConfig) -> str:
    return (f"Dask scheduler {config.scheduler}" if config.scheduler
            else "serial" if config.jobs == 1 else f"{config.jobs} joblib workers")


def _flag(config: ExperimentConfig) -> str:
    return {"quick": "--quick", "full": "--full"}.get(config.scale, f"--scale {config.scale}")


def emsco_table2(config: ExperimentConfig) -> list[Path]:
    """Table II/III: mean test ``g1, g2, g3*`` with 95% margins of error, EMSCO against baselines.

    Parameters
    ----------
    config : ExperimentConfig
        ``datasets`` (default: the scale's — all five at quick and full, the synthetic two at tiny);
        the root ``seed`` fixes the data (Synthetic*), the split and every EA run.

    Returns
    -------
    list of Path
        ``emsco-table2.csv``, ``emsco-table2_summary.csv``, ``emsco-table2.png``, ``emsco-table2.md``.

    Raises
    ------
    ValueError
        Unknown data set.
    FileNotFoundError
        A real data set's file is missing (see ``subsel.evolution.datasets.data_home``); checked
        before any task runs, so nothing is written.
    """
    name = "emsco-table2"
    size = _scale_settings(config, TABLE2_SCALES)
    datasets = experiment_datasets(name, config.scale, config.datasets)
    check_data_files(datasets, config.seed, config.data_home)  # a missing file fails here, before any task
    common = {"data_seed": config.seed, "population": size["population"],  # cstc_scale: CSTC_SCALES
              "generations": size["generations"], "cstc_scale": config.scale, **_data_home_param(config)}
    tasks = grid(config.seed, {"dataset": datasets, "part": ["baselines"], "run": [0]}, fixed=common)
    tasks += grid(config.seed, {"dataset": datasets, "part": ["ea"], "run": range(size["runs"])},
                  fixed=common)
    start = time.perf_counter()
    table = run_grid(tasks, table2_task, config.out_dir / f"{name}.csv", desc=name,
                     **config.run_kwargs())
    elapsed = time.perf_counter() - start
    summary = summarize_methods(table)
    order = {m: i for i, m in enumerate(METHODS)}
    summary = summary.sort_values(["dataset", "method"], key=lambda c: c.map(
        {d: i for i, d in enumerate(datasets)} if c.name == "dataset" else order)).reset_index(drop=True)
    out = config.out_dir
    files = [out / f"{name}.csv", write_table(summary, out / f"{name}_summary.csv")]
    from .plots_emsco import plot_method_table

    files.append(plot_method_table(summary, out / f"{name}.png",
                                   title=f"EMSCO vs baselines on the test split ({config.scale})"))
    claims = check_claims(summary)
    files.append(out / f"{name}.md")
    atomic_write_text(files[-1], _table2_markdown(config, size, datasets, table, summary, claims,
                                                  elapsed))
    return files


def _gm_note(table: pd.DataFrame) -> str:
    return budgeted_note(table, "gm", "GreedyMiser (`gm`)", "not run (LightGBM not installed)",
                         "LightGBM's cost-efficient gradient boosting, trade-off",
                         lambda r: f"trade-off {r['gm_tradeoff']:g}, features {r['gm_features']}")


def _fmt(mean: float, moe: float, fmt: str) -> str:
    if np.isnan(moe):
        return format(mean, fmt)
    return f"{format(mean, fmt)} ± {format(moe, fmt)}"


def _table2_markdown(config, size, datasets, table, summary, claims, elapsed) -> str:
    pop = "the paper's" if size["population"] is None else str(size["population"])
    lines = [
        "# emsco-table2: EMSCO against baselines (Tables II and III)", "",
        f"Reproduces {_PAPER}. Command: `subsel reproduce emsco-table2 {_flag(config)} --seed "
        f"{config.seed} --datasets {','.join(datasets)}`.",
        f"Scale `{config.scale}`: {size['runs']} EA run(s) per data set and EA method, population "
        f"{pop}, {size['generations']} generations (the paper: 50 runs, its population, 150 "
        "generations)." + ("" if config.scale == "full" else
                           " **Reduced population and generations**: the EA results are far from "
                           "converged and only show that the pipeline works; use `--full` for the "
                           "paper's settings."),
        f"One train / validation / test split (60/20/20, seed {config.seed}) per data set, shared "
        "by every run and method; objectives below are on the test split. The task grid took "
        f"{elapsed:.1f} s ({_backend_text(config)}; tasks finished by an earlier run into the same "
        "folder are reused, not re-timed; the `subsel reproduce` line's time also counts the data "
        "check, tables, figure and this file).", "",
        "Methods: `emsco` (the paper's EMSCO), `emsco+ilp` (initial population partly seeded by "
        "feature subsets from the subset-selection ILP, solved through the solver registry), "
        "`nsga2` (pymoo's NSGA-II, same encoding, operators, objectives and evaluation budget; "
        "max-‖g‖₂ solution of its final front), `all-features` (a: one stage, no rejection), "
        "`all-features-reject` (b: one stage, rejects below p̂), `ilp-subset` (d: cheapest ILP "
        "feature subset, one stage, no rejection), `gm` (GreedyMiser: feature-cost-aware gradient "
        "boosting, coverage 1, every input pays for every feature it uses), `cstc` (CSTC: a tree of "
        "linear classifiers, coverage 1, each input pays for the features on its path). Margins of "
        "error: 95%, t-distribution over runs; deterministic baselines have one value and no margin (—).", "",
        "## Test g1 (coverage), g2 (accuracy), g3* (mean cost per input)", "",
    ]
    view = pd.DataFrame({
        "data set": summary["dataset"], "method": summary["method"], "runs": summary["runs"],
        "g1": [_fmt(m, e, ".3f") for m, e in zip(summary["g1"], summary["moe_g1"])],
        "g2": [_fmt(m, e, ".3f") for m, e in zip(summary["g2"], summary["moe_g2"])],
        "g3*": [_fmt(m, e, ".4g") for m, e in zip(summary["g3*"], summary["moe_g3*"])],
        "non-dominated": ["yes" if v else "no" for v in summary["non_dominated"]],
        "mean time [s]": summary["mean_wall_time_s"].map(lambda v: f"{v:.2f}"),
    })
    lines += [to_markdown(view),
              _gm_note(table).lstrip() + cstc_note(table),
              "Times: each EA run's `emsco` trains its own classifiers; `emsco+ilp`, `nsga2` and the "
              "baselines of the same task reuse the feature-set cache, so their times are lower "
              "bounds.", "",
              "## The paper's claims, checked", "", "The paper's Table II numbers are not in the text of "
              "the paper we have, so no row has them beside it; the paper is compared by its claims.", ""]
    for c in claims:
        mark = {True: "holds", False: "does not hold", None: "—"}[c["holds"]]
        lines.append(f"- **{c['claim']}**: {mark}. {c['detail']}")
    ilp = table[table["method"] == "ilp-subset"]
    if len(ilp) and "ilp_features" in ilp:
        lines += ["", "ILP route (d): cheapest subset per data set — " + "; ".join(
            f"{r['dataset']}: {r['ilp_features']} (of {int(r['ilp_subsets'])} distinct subsets)"
            for _, r in ilp.iterrows()) + "."]
    return "\n".join(lines) + "\n"


# -- the confidence sweep ------------------------------------------------------------------------

def sweep_task(task: Task, data=None) -> list[dict]:
    """One EMSCO run of ``emsco-sweep`` at ``params["confidence"]``; one row of test objectives.

    ``data``: a :class:`~subsel.evolution.datasets.Dataset` given by the user (bound with
    :func:`functools.partial`, so it travels with the task to any worker); None loads
    ``params["dataset"]`` by name.
    """
    from threadpoolctl import threadpool_limits

    p = task.params
    with threadpool_limits(limits=1, user_api="blas"):
        ds, problem, test = _setup(p["dataset"], int(p["data_seed"]), p["confidence"], p.get("data_home"),
                                   data)
        s = ds.settings
        start = time.perf_counter()
        res = _run_emsco(problem, int(p["population"] or s["population_size"]),
                         int(p["generations"]), s["crossover_rate"], s["elite_fraction"], task.rng())
        row = _test_scores(problem, problem.stages(res.best), test)
        return [{**row, **dict(zip(("val_g1", "val_g2", "val_g3*"), map(float, res.best_objectives))),
                 "wall_time_s": time.perf_counter() - start}]


def authors_layout(table: pd.DataFrame) -> pd.DataFrame:
    """The sweep's per-p̂ summary in the EMSCO authors' layout, to set beside their published table.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per run: ``confidence, g1, g2, g3*`` (test split).

    Returns
    -------
    pandas.DataFrame
        Per p̂ (ascending): ``runs, p_hat, test_accuracy`` (mean g2), ``test_coverage`` (mean g1),
        ``test_cost`` (mean g3*), ``acc_std, cov_std, cost_std`` (standard deviations over the runs
        as ``numpy.std`` computes them, ddof = 0: 0 for a single run).

    Examples
    --------
    >>> t = pd.DataFrame({"confidence": [0.7, 0.7], "g1": [0.5, 0.7], "g2": [0.8, 0.9],
    ...                   "g3*": [10.0, 20.0]})
    >>> authors_layout(t).iloc[0].to_dict()["cost_std"]
    5.0
    """
    rows = []
    for conf, g in table.groupby("confidence", sort=True):
        rows.append({"runs": int(len(g)), "p_hat": float(conf),
                     "test_accuracy": float(np.mean(g["g2"])), "test_coverage": float(np.mean(g["g1"])),
                     "test_cost": float(np.mean(g["g3*"])), "acc_std": float(np.std(g["g2"])),
                     "cov_std": float(np.std(g["g1"])), "cost_std": float(np.std(g["g3*"]))})
    return pd.DataFrame(rows, columns=["runs", "p_hat", "test_accuracy", "test_coverage", "test_cost",
                                       "acc_std", "cov_std", "cost_std"])


def emsco_sweep(config: ExperimentConfig) -> list[Path]:
    """EMSCO's cost–accuracy curve over p̂ in {0.55, ..., 0.95} on one data set, colored by coverage.

    Parameters
    ----------
    config : ExperimentConfig
        ``datasets``: one name (default Synthetic15), or ``data``: a data set given as three splits
        (:meth:`subsel.evolution.datasets.Dataset.from_splits`, e.g. the authors' CSV files).  The
        other settings are the data set's (Hamilton and Fulp 2022, Section V-A; defaults for user
        data); only p̂ varies.

    Returns
    -------
    list of Path
        ``emsco-sweep-DATASET.csv``, ``emsco-sweep-DATASET_summary.csv``, ``emsco-sweep-DATASET.png``,
        ``emsco-sweep-DATASET.md``: named after the data set, so sweeps of different data sets
        share an output folder; and ``emsco-sweep-DATASET_authors.csv``, the summary in the
        authors' layout (:func:`authors_layout`).

    Raises
    ------
    ValueError
        Unknown data set, or more than one.
    FileNotFoundError
        The data set's file is missing (checked before any task runs).
    """
    name = "emsco-sweep"
    size = _scale_settings(config, SWEEP_SCALES)
    data = config.data
    if data is None:
        dataset = experiment_datasets(name, config.scale, config.datasets)[0]
        check_data_files([dataset], config.seed, config.data_home)  # a missing file fails here
        task_fn = sweep_task
    else:
        dataset = data.name
        task_fn = functools.partial(sweep_task, data=data)
    stem = f"{name}-{dataset}"
    tasks = grid(config.seed, {"confidence": list(size["confidences"]), "run": range(size["runs"])},
                 fixed={"dataset": dataset, "data_seed": config.seed,
                        "population": size["population"], "generations": size["generations"],
                        **_data_home_param(config)})
    start = time.perf_counter()
    table = run_grid(tasks, task_fn, config.out_dir / f"{stem}.csv", desc=stem, **config.run_kwargs())
    elapsed = time.perf_counter() - start
    rows = []
    for conf, g in table.groupby("confidence", sort=True):
        row = {"confidence": conf, "runs": len(g)}
        for c in ("g1", "g2", "g3*"):
            row[c] = float(g[c].mean())
            row[f"std_{c}"] = float(g[c].std(ddof=1)) if len(g) > 1 else float("nan")
            row[f"min_{c}"], row[f"max_{c}"] = float(g[c].min()), float(g[c].max())
            row[f"moe_{c}"] = margin_of_error(g[c])
        row["mean_wall_time_s"] = float(g["wall_time_s"].mean())
        rows.append(row)
    summary = pd.DataFrame(rows)
    out = config.out_dir
    files = [out / f"{stem}.csv", write_table(summary, out / f"{stem}_summary.csv")]
    from .plots_emsco import plot_sweep

    files.append(plot_sweep(summary, table, out / f"{stem}.png",
                            title=f"EMSCO on {dataset}: cost vs accuracy over p̂ ({config.scale})"))
    pop = "the paper's" if size["population"] is None else str(size["population"])
    corr = summary[["confidence", "g2"]].corr().iloc[0, 1] if len(summary) > 2 else float("nan")
    if data is None:
        source = f"--dataset {dataset}"
        settings = "the data set's other settings (Hamilton and Fulp 2022, Section V-A); one split (seed " \
                   f"{config.seed})"
    else:
        files_given = data.extra.get("files", {})
        source = " ".join(f"--{k} {v}" for k, v in files_given.items()) or f"(data set {dataset})"
        settings = "the other settings " + ", ".join(
            f"{k} {v:g}" for k, v in data.settings.items() if k not in ("confidence", "population_size"))
        settings += "; the given splits"
    lines = [f"# emsco-sweep: EMSCO's cost–accuracy curve over p̂ on {dataset}", "",
             f"Command: `subsel reproduce emsco-sweep {_flag(config)} --seed {config.seed} "
             f"{source}`. {size['runs']} EMSCO run(s) per p̂, population {pop}, "
             f"{size['generations']} generations, {settings}; "
             f"test-split objectives. The task grid took {elapsed:.1f} s "
             f"({_backend_text(config)}; the `subsel reproduce` line's time also counts the data "
             "check, tables, figure and this file).", "",
             to_markdown(summary[["confidence", "runs", "g1", "moe_g1", "g2", "moe_g2", "g3*",
                                  "moe_g3*", "mean_wall_time_s"]]),
             f"Correlation of p̂ with mean accuracy: {corr:.3f}; coverage from {summary['g1'].max():.3f} "
             f"(p̂ = {summary.loc[summary['g1'].idxmax(), 'confidence']:g}) to "
             f"{summary['g1'].min():.3f} (p̂ = {summary.loc[summary['g1'].idxmin(), 'confidence']:g}). "
             "A stricter p̂ rejects more inputs (lower coverage) and should raise the accuracy on "
             "the accepted ones; the cost follows from how many stages the inputs need.", "",
             "## In the authors' layout", "",
             f"`{stem}_authors.csv` (standard deviations over runs with ddof = 0, as `numpy.std`):", "",
             to_markdown(authors_layout(table))]
    files.append(out / f"{stem}.md")
    atomic_write_text(files[-1], "\n".join(lines) + "\n")
    files.append(write_table(authors_layout(table), out / f"{stem}_authors.csv"))
    return files
