"""The known-quality experiments of Deva et al., Section 6.1: Figures 1a, 1b, 2 and Table 1.

Each experiment is a grid of random instances (``q, c ~ U[0, 1]``, ``R = 1``; one task = one instance
solved by every solver of the comparison, in the same process) run by
:func:`subsel.experiments.run_grid`, and writes to ``config.out_dir``:

- ``NAME.csv``: the tidy table (one row per instance x solver; rebuild an instance with
  ``SubsetSelectionProblem.random(n, alpha, rng=seed)``), with its resume checkpoint beside it;
- ``NAME_summary.csv``: the aggregated numbers the figure shows;
- ``NAME.png``: the figure;
- ``NAME.md``: a short summary with the paper's numbers beside ours and the count of instances whose
  ratio is undefined (optimum 0).

Instance seeds depend on ``(n, alpha, instance)`` only, so the four experiments share instances where
their grids meet (e.g. Figure 2 is the α = 0.7 slice of Figure 1a's instances).
"""
from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from .._files import atomic_write_text
from ..solvers import get_solver
from .analysis import add_ratios, summarize, to_markdown
from .plots import plot_mean_ratio, plot_ratio_box, plot_time_ratios
from .registry import ExperimentConfig
from .runner import grid, run_grid, write_table
from .tasks import solve_instance

__all__ = ["fig1a", "fig1b", "fig2", "table1", "SIZES", "ILP_SOLVER"]

#: The paper's α values (Figures 1a, 1b).
ALPHAS = (0.5, 0.6, 0.7, 0.8, 0.9)
#: Registry name of the ILP solver the paper used (COIN-OR CBC).
ILP_SOLVER = "cbc"
#: Per-solve time limit of the ILP in the paper experiments; a stop there is counted, not hidden.
ILP_TIME_LIMIT_S = 300.0

#: Grid sizes per experiment and scale: ``n`` values, ``alpha`` values, ``instances`` per cell;
#: ``ilp_n`` are Table 1's extra sizes timed for the ILP column only.
SIZES: dict[str, dict[str, dict]] = {
    "fig1a": {
        "tiny": {"n": (4, 8), "alpha": (0.5, 0.7), "instances": 3},
        "quick": {"n": (4, 8, 12, 16, 20), "alpha": ALPHAS, "instances": 200},
        "full": {"n": (4, 8, 12, 16, 20), "alpha": ALPHAS, "instances": 1000},
    },
    "fig1b": {
        "tiny": {"n": (50,), "alpha": (0.7,), "instances": 2},
        "quick": {"n": (50, 100, 500, 1000, 5000), "alpha": ALPHAS, "instances": 6},
        "full": {"n": (50, 100, 500, 1000, 5000), "alpha": ALPHAS, "instances": 1000},
    },
    "fig2": {
        "tiny": {"n": (4, 8), "alpha": (0.7,), "instances": 4},
        "quick": {"n": (4, 8, 12, 16, 20), "alpha": (0.7,), "instances": 300},
        "full": {"n": (4, 8, 12, 16, 20), "alpha": (0.7,), "instances": 1000},
    },
    "table1": {
        "tiny": {"n": (5, 10), "alpha": (0.7,), "instances": 3, "ilp_n": (50,)},
        "quick": {"n": (5, 10, 15, 20), "alpha": (0.7,), "instances": 50, "ilp_n": (50, 100, 500, 1000)},
        "full": {"n": (5, 10, 15, 20), "alpha": (0.7,), "instances": 1000,
                 "ilp_n": (50, 100, 500, 1000, 5000)},
    },
}

_PAPER = ("Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset Selection Under "
          "Constraints* (arXiv 2102.04824), Section 6.1")


def _check_solvers(names) -> None:
    for name in names:
        get_solver(name)  # raises a clear ValueError when unknown or unavailable here


def _run(config: ExperimentConfig, name: str, parts: list[tuple[dict, list[str]]],
         time_limit_s: float | None = None) -> tuple[pd.DataFrame, float]:
    """Run the grid of ``parts`` (axes, solvers) into ``out_dir/NAME.csv``; return table and seconds."""
    _check_solvers({s for _, solvers in parts for s in solvers})
    tasks = []
    for axes, solvers in parts:
        tasks += grid(config.seed, axes, fixed={"solvers": list(solvers), "time_limit_s": time_limit_s})
    start = time.perf_counter()
    table = run_grid(tasks, solve_instance, config.out_dir / f"{name}.csv", desc=name,
                     **config.run_kwargs())
    return table, time.perf_counter() - start


def _axes(size: dict, n=None) -> dict:
    return {"n": list(n if n is not None else size["n"]), "alpha": list(size["alpha"]),
            "instance": range(size["instances"])}


def _header(config: ExperimentConfig, name: str, title: str, size: dict, elapsed: float,
            table: pd.DataFrame) -> list[str]:
    flag = {"quick": "--quick", "full": "--full"}.get(config.scale, f"--scale {config.scale}")
    backend = (f"Dask scheduler {config.scheduler}" if config.scheduler
               else "serial" if config.jobs == 1 else f"{config.jobs} joblib workers")
    instances = int(table[["n", "alpha", "instance"]].drop_duplicates().shape[0]) if len(table) else 0
    return [
        f"# {name}: {title}",
        "",
        f"Reproduces {_PAPER}. Command: `subsel reproduce {name} {flag} --seed {config.seed}`.",
        f"Scale `{config.scale}`: {size['instances']} instances per (n, α) cell, {instances} instances in "
        f"all; q, c ~ U[0, 1], R = 1. The task grid took {elapsed:.1f} s ({backend}; tasks finished "
        "by an earlier run into the same folder are reused, not re-timed; the `subsel reproduce` line's "
        "time also counts the tables, figure and this file).",
        "",
    ]


def _undefined_lines(summary: pd.DataFrame, reference: str) -> list[str]:
    total = int(summary["instances"].sum())
    zero = int(summary["zero_reference"].sum())
    lines = [f"**Undefined ratios.** {zero} of {total} instances have z_{reference} = 0 (nothing worth "
             "selecting): their ratio is undefined, so they are excluded from means and medians "
             "(not counted as 1.0); the `zero_reference` column gives the count per cell."]
    failed = int(summary["reference_failed"].sum() + summary["solver_failed"].sum())
    if failed:
        lines.append(f"{failed} instance(s) had a solver failure (`reference_failed` / `solver_failed` "
                     "columns); see the `status` column of the table.")
    negative = int(summary["negative_ratio"].sum())
    if negative:
        lines.append(f"{negative} instance(s) have a negative ratio (`negative_ratio`): GSS's rounding step "
                     "(an S2 fraction rounded up, Algorithm 3 step 5) left it with a utility below 0, worse "
                     "than selecting nothing. They are kept in the means, as the algorithm's honest result.")
    not_opt = int(summary["reference_not_optimal"].sum())
    if not_opt:
        lines.append(f"{not_opt} reference solve(s) stopped without a proof of optimality (time limit); "
                     "their ratios are against the best solution found.")
    return lines


def _without_negative(ratios: pd.DataFrame) -> str:
    """The per-cell mean range once negative-ratio instances are left out (they dominate a mean)."""
    ok = ratios[(ratios["ratio_status"] == "ok")]
    if not (ok["ratio"] < 0).any():
        return ""
    means = ok[ok["ratio"] >= 0].groupby(["n", "alpha"])["ratio"].mean()
    return (f" Leaving out the {int((ok['ratio'] < 0).sum())} negative-ratio instance(s), the per-cell "
            f"means span [{means.min():.4f}, {means.max():.4f}].")


def _ratio_experiment(config: ExperimentConfig, name: str, reference: str, title: str,
                      paper_claim: str) -> list[Path]:
    size = SIZES[name][config.scale]
    ilp = reference == ILP_SOLVER
    table, elapsed = _run(config, name, [(_axes(size), ["gss", reference])],
                          ILP_TIME_LIMIT_S if ilp else None)
    ratios = add_ratios(table, reference)
    summary = summarize(ratios, by=("n", "alpha", "solver"))
    out = config.out_dir
    files = [out / f"{name}.csv", write_table(summary, out / f"{name}_summary.csv")]
    files.append(plot_mean_ratio(summary, out / f"{name}.png",
                                 title=f"GSS vs {reference.upper()}: mean utility ratio ({config.scale})",
                                 ylabel=f"mean z_gss / z_{reference}"))
    ok = ratios.loc[ratios["ratio_status"] == "ok", "ratio"]
    cols = ["n", "alpha", "instances", "defined", "zero_reference", "mean_ratio", "median_ratio",
            "min_ratio", "share_at_1", "negative_ratio"]
    lines = _header(config, name, title, size, elapsed, table)
    lines += ["## Results", "", to_markdown(summary[cols]), *_undefined_lines(summary, reference), "",
              "## Paper vs ours", "",
              f"- Paper: {paper_claim}",
              f"- Ours: mean ratio per cell in [{summary['mean_ratio'].min():.4f}, "
              f"{summary['mean_ratio'].max():.4f}]; median of all defined per-instance ratios "
              f"{ok.median():.4f}; {100 * (ok >= 1 - 1e-9).mean():.1f}% of instances at ratio 1; "
              f"lowest single ratio {ok.min():.4f}." + _without_negative(ratios)
              if len(ok) else "- Ours: no defined ratio at this scale."]
    if ilp:
        lines.append(f"- The ILP is `{reference}` (PuLP's bundled CBC) with gap 0 and a "
                     f"{ILP_TIME_LIMIT_S:g} s limit per solve, so its optima are proven unless counted above.")
    files.append(out / f"{name}.md")
    atomic_write_text(files[-1], "\n".join(lines) + "\n")
    return files


def fig1a(config: ExperimentConfig) -> list[Path]:
    """Figure 1a: mean ``z_gss / z_dpss`` for n in {4, ..., 20} and α in {0.5, ..., 0.9}.

    Parameters
    ----------
    config : ExperimentConfig

    Returns
    -------
    list of Path
        ``fig1a.csv, fig1a_summary.csv, fig1a.png, fig1a.md`` in ``config.out_dir``.
    """
    return _ratio_experiment(
        config, "fig1a", "dpss", "GSS vs DPSS, mean utility ratio (Figure 1a)",
        "mean z_gss / z_dpss approximately in [0.94, 1.0] for every (n, α), median 1.0 "
        "(1000 instances per cell).")


def fig1b(config: ExperimentConfig) -> list[Path]:
    """Figure 1b: mean ``z_gss / z_ilp`` (ILP = CBC) for n in {50, ..., 5000} and α in {0.5, ..., 0.9}.

    Returns
    -------
    list of Path
        ``fig1b.csv, fig1b_summary.csv, fig1b.png, fig1b.md``.

    Raises
    ------
    ValueError
        The ILP backend (:data:`ILP_SOLVER`) is not available on this machine.
    """
    return _ratio_experiment(
        config, "fig1b", ILP_SOLVER, "GSS vs the ILP solver (CBC), mean utility ratio (Figure 1b)",
        "mean z_gss / z_ilp approximately in [0.94, 1.0] for every (n, α), median 1.0.")


def fig2(config: ExperimentConfig) -> list[Path]:
    """Figure 2: box plot of the per-instance ratios ``z_gss / z_dpss`` at α = 0.7, n in {4, ..., 20}.

    Returns
    -------
    list of Path
        ``fig2.csv, fig2_summary.csv, fig2.png, fig2.md``.
    """
    name, size = "fig2", SIZES["fig2"][config.scale]
    table, elapsed = _run(config, name, [(_axes(size), ["gss", "dpss"])])
    ratios = add_ratios(table, "dpss")
    summary = summarize(ratios, by=("n", "alpha", "solver"))
    below = (ratios.assign(low=(ratios["ratio_status"] == "ok") & (ratios["ratio"] < 0.2))
             .groupby("n")["low"].sum().astype(int).rename("below_0.2"))
    summary = summary.merge(below, left_on="n", right_index=True, how="left")
    out = config.out_dir
    files = [out / f"{name}.csv", write_table(summary, out / f"{name}_summary.csv"),
             plot_ratio_box(ratios, out / f"{name}.png",
                            title=f"GSS vs DPSS at α = 0.7: per-instance utility ratio ({config.scale})",
                            ylabel="z_gss / z_dpss")]
    ok = ratios.loc[ratios["ratio_status"] == "ok", "ratio"]
    cols = ["n", "instances", "defined", "zero_reference", "median_ratio", "mean_ratio", "min_ratio",
            "share_at_1", "below_0.2"]
    lines = _header(config, name, "distribution of z_gss / z_dpss at α = 0.7 (Figure 2)", size, elapsed, table)
    lines += ["## Results", "", to_markdown(summary[cols]), *_undefined_lines(summary, "dpss"), "",
              "## Paper vs ours", "",
              "- Paper: median ratio 1.0 for every n, a few outliers, and rare instances below 0.2 "
              "(1000 instances per n).",
              f"- Ours: median per n in [{summary['median_ratio'].min():.4f}, "
              f"{summary['median_ratio'].max():.4f}]; {int((ok < 0.2).sum())} of {len(ok)} defined "
              f"ratios below 0.2; lowest {ok.min():.4f}." if len(ok) else "- Ours: no defined ratio."]
    files.append(out / f"{name}.md")
    atomic_write_text(files[-1], "\n".join(lines) + "\n")
    return files


def table1(config: ExperimentConfig) -> list[Path]:
    """Table 1: median time ratios ``t_dpss : t_gss`` and ``t_ilp : t_gss`` at α = 0.7.

    DPSS, GSS and the ILP solve every instance of n in {5, 10, 15, 20} in the same task (same process,
    one after the other); the larger ``ilp_n`` sizes time GSS and the ILP only.  Times are each
    solution's ``backend_time_s``: the algorithm's time for GSS and DPSS, and for the ILP the calls
    into CBC (building the PuLP model, CBC's run, reading its answer); what subsel adds around CBC
    (scaling, verification, the cross-check with ``exact``) is reported on its own, as the median
    ILP overhead.  Every worker process solves one small instance per solver first, untimed, so
    that imports and first-call costs do not land on the first instance.

    Returns
    -------
    list of Path
        ``table1.csv, table1_summary.csv, table1.png, table1.md``.
    """
    name, size = "table1", SIZES["table1"][config.scale]
    parts = [(_axes(size), ["gss", "dpss", ILP_SOLVER]),
             (_axes(size, n=size["ilp_n"]), ["gss", ILP_SOLVER])]
    table, elapsed = _run(config, name, parts, ILP_TIME_LIMIT_S)
    ratios = add_ratios(table, "gss")
    summary = summarize(ratios, by=("n", "solver"))
    tcol = "backend_time_s" if "backend_time_s" in table else "wall_time_s"
    gss_t = table[table["solver"] == "gss"].groupby("n")[tcol].median()
    wide = pd.DataFrame({"n": sorted(table["n"].unique())})
    for solver, label in (("dpss", "t_dpss:t_gss"), (ILP_SOLVER, "t_ilp:t_gss")):
        s = summary[summary["solver"] == solver].set_index("n")
        wide[label] = wide["n"].map(s["median_time_ratio"])
    wide["median t_gss [ms]"] = wide["n"].map(gss_t * 1e3)
    for solver, label in (("dpss", "median t_dpss [ms]"), (ILP_SOLVER, "median t_ilp [ms]")):
        t = table[table["solver"] == solver].groupby("n")[tcol].median()
        wide[label] = wide["n"].map(t * 1e3)
    if "overhead_time_s" in table:
        t = table[table["solver"] == ILP_SOLVER].groupby("n")["overhead_time_s"].median()
        wide["median ILP overhead [ms]"] = wide["n"].map(t * 1e3)
    wide["instances"] = wide["n"].map(table[table["solver"] == "gss"].groupby("n").size())
    out = config.out_dir
    files = [out / f"{name}.csv", write_table(wide, out / f"{name}_summary.csv"),
             plot_time_ratios(summary, out / f"{name}.png",
                              title=f"time relative to GSS at α = 0.7, medians ({config.scale})",
                              labels={"dpss": "t_dpss : t_gss", ILP_SOLVER: "t_ilp : t_gss (CBC)"})]
    ilp = wide["t_ilp:t_gss"].dropna()
    status = table.groupby("solver")["status"].value_counts().unstack(fill_value=0)
    lines = _header(config, name, "time ratios to GSS at α = 0.7 (Table 1)", size, elapsed, table)
    lines += ["## Results (medians over instances)", "", to_markdown(wide, ".3g"),
              "Solver statuses: " + "; ".join(
                  f"{s}: " + ", ".join(f"{k} {int(v)}" for k, v in row.items() if v)
                  for s, row in status.iterrows()) + ".",
              "Time ratios are per instance, on the same instance in the same process, then the median "
              "is taken; ratios of utilities play no role here, so zero optima need no special care.",
              "Times are the solvers' own (`backend_time_s`): for the ILP, the calls into CBC; what "
              "subsel adds around CBC (scaling, verification, the cross-check with `exact`) is the "
              "`median ILP overhead` column, not part of t_ilp.",
              "",
              "## Paper vs ours", "",
              "- Paper: DPSS's time grows exponentially relative to GSS, and GSS is \"almost 50x\" faster "
              "than the ILP solver (the table's numbers are not legible in our copy of the paper).",
              f"- Ours: t_dpss : t_gss from {wide['t_dpss:t_gss'].min():.3g} to "
              f"{wide['t_dpss:t_gss'].max():.3g} for n = {min(size['n'])}..{max(size['n'])}; "
              f"t_ilp : t_gss from {ilp.min():.3g} "
              f"(n = {int(wide.loc[ilp.idxmin(), 'n'])}) to {ilp.max():.3g} "
              f"(n = {int(wide.loc[ilp.idxmax(), 'n'])}).",
              "- Why ours differ: our GSS is vectorised numpy (tens of microseconds plus Python overhead), "
              "our DPSS enumerates only S2 ∪ S3 (about 0.29 n agents after the partition), and the "
              "ILP time includes building the PuLP model and starting the CBC process (but not subsel's checks "
              "around CBC)."]
    files.append(out / f"{name}.md")
    atomic_write_text(files[-1], "\n".join(lines) + "\n")
    return files
