"""The unknown-quality experiments of Deva, Abhishek, Gujar, "A Multi-Arm Bandit Approach To
Subset Selection Under Constraints" (AAMAS 2021), Section 6.2: Figures 3 and 4.

Both run DPSS-UCB and GSS-UCB (SS-UCB with the ``dpss`` / ``gss`` oracle) on random instances (n =
10, q, c ~ U[0, 1], α = 0.7, R = 1) with :func:`subsel.bandits.simulate`: all runs of one (family,
oracle, ε) as one batched simulation — one task of :func:`subsel.experiments.run_grid` — so the
tasks of a figure can run in parallel (``--jobs``) or on a cluster.  Every task of a family uses the
same instances and the same outcome streams (common random numbers, one stream per run), derived
from the root seed only, so the numbers are the same serially, with joblib or on Dask.

Instance families (:data:`FAMILIES`): ``paper`` is the paper's ``q, c ~ U[0, 1]``; ``separated`` is
the same distribution conditioned on ε-separation (no subset's average quality in [α, α + ε),
:func:`subsel.bandits.separated_instances`), the assumption behind the paper's O(ln T) regret
bound (Theorem 2).  Fig. 4 uses the paper's family; Fig. 3 both.

Files in ``config.out_dir``:

- ``NAME.csv``: tidy curves, one row per (family, oracle, ε, checkpoint round), with the run's
  scalars;
- ``NAME_summary.csv``: Fig. 3: one row per (policy, family) with ``regret_T``, the fitted
  ``a + b ln t`` (``log_fit_a``, ``log_fit_b``, ``log_fit_r2``) and the ε gap; Fig. 4: one row per
  (oracle, ε): τ, regret at T, fractions after τ, speed;
- ``NAME.png``: the figure; ``NAME.md``: the summary with τ, the paper's claims beside ours, and why
  ε = 0.01 is not used.

Fig. 3: cumulative regret of rounds τ+1..t for t > τ at ε = 0.05, with a fitted ``a + b ln t``, on
both families.  Fig. 4: fraction of runs whose selection is correct (true average quality ≥ α − ε)
per round, for ε ∈ {0.02, 0.05, 0.1}, with τ marked.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._files import atomic_write_text
from ..bandits import (
    BernoulliEnvironment,
    exploration_rounds,
    make_policy,
    paper_instances,
    regret_constants,
    separated_instances,
    simulate,
)
from .analysis import to_markdown
from .registry import ExperimentConfig
from .runner import Task, grid, run_grid, write_table

__all__ = ["fig3", "fig4", "SIZES", "FAMILIES", "bandit_curves", "fit_log_curve", "horizon", "instances",
           "run_fig3", "fit_fig3", "plot_fig3", "write_fig3_report"]

#: Grid sizes per figure and scale.  ``tiny`` (tests) needs larger ε so that τ < T in a few hundred
#: rounds; ``quick`` keeps the paper's ε with fewer rounds and runs (for Fig. 4 a horizon per ε: ε =
#: 0.02 needs T = 45,000 to have rounds after τ = 40,178, the others stop at T = 9,000 to stay under a
#: minute); ``full`` is the paper's scale.  ``T`` is a number, or a mapping ε -> T.
SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "fig3": {
        "tiny": {"T": 200, "runs": 3, "epsilon": (0.35,)},
        "quick": {"T": 15_000, "runs": 200, "epsilon": (0.05,)},
        "full": {"T": 100_000, "runs": 1000, "epsilon": (0.05,)},
    },
    "fig4": {
        "tiny": {"T": 200, "runs": 3, "epsilon": (0.3, 0.35, 0.4)},
        "quick": {"T": {0.02: 45_000, 0.05: 9_000, 0.1: 9_000}, "runs": 20,
                  "epsilon": (0.02, 0.05, 0.1)},
        "full": {"T": 100_000, "runs": 1000, "epsilon": (0.02, 0.05, 0.1)},
    },
}
#: The paper's setting (Deva et al., Section 6.2).
N_AGENTS, ALPHA, R = 10, 0.7, 1.0
ORACLES = ("dpss", "gss")
#: Instance families of Fig. 3: the paper's, and the same conditioned on ε-separation.
FAMILIES = ("paper", "separated")

_PAPER = ("Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset Selection Under "
          "Constraints* (arXiv 2102.04824), Section 6.2")


def horizon(size: dict[str, Any], epsilon: float) -> int:
    """The horizon T of one ε at one scale (``size["T"]`` is a number or a mapping ε -> T)."""
    T = size["T"]
    return int(T[epsilon]) if isinstance(T, dict) else int(T)


def _horizons(size: dict[str, Any]) -> str:
    Ts = {horizon(size, e) for e in size["epsilon"]}
    if len(Ts) == 1:
        return f"T = {Ts.pop():,}"
    return "T = " + ", ".join(f"{horizon(size, e):,} (ε = {e:g})" for e in size["epsilon"])


def instances(family: str, n: int, runs: int, alpha: float, epsilon: float,
              seed: int | np.random.SeedSequence, R: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The instances of one family, one per run (run ``j`` from child ``j`` of ``seed``).

    Parameters
    ----------
    family : {"paper", "separated"}
        ``paper``: :func:`~subsel.bandits.paper_instances`; ``separated``:
        :func:`~subsel.bandits.separated_instances` at this ``epsilon``.
    n, runs, alpha, epsilon, seed, R
        As those functions.

    Returns
    -------
    (quality, cost) : two ndarrays of shape (runs, n)

    Raises
    ------
    ValueError
        Unknown family (and as those functions).
    """
    if family == "paper":
        return paper_instances(n, runs, alpha, seed, R=R)
    if family == "separated":
        return separated_instances(n, runs, alpha, epsilon, seed, R=R)
    raise ValueError(f"unknown instance family {family!r}; known: {', '.join(FAMILIES)}")


def epsilon_gap(seed: int, size: dict[str, Any], epsilon: float, family: str = "paper") -> float:
    """Mean ``r_q(S*_alpha) - r_q(S*_{alpha+eps})`` over a figure's instances (true qualities).

    SS-UCB asks its oracle for threshold ``alpha + eps`` while the regret is measured against the
    optimum at ``alpha``; once the UCBs have converged it plays (close to) the optimum at
    ``alpha + eps``, so this gap is the per-round regret it tends to, and ``gap x (T - tau)`` the
    linear term of its regret after tau.  It is 0 on the ``separated`` family by construction.
    """
    inst_seq, _ = np.random.SeedSequence(seed).spawn(2)
    quality, cost = instances(family, N_AGENTS, size["runs"], ALPHA, epsilon, inst_seq, R=R)
    at_alpha, _ = regret_constants(quality, cost, ALPHA, R)
    at_tight, _ = regret_constants(quality, cost, min(ALPHA + epsilon, 1.0), R)
    return float(np.mean(at_alpha - at_tight))


def bandit_curves(task: Task) -> list[dict[str, Any]]:
    """Task function: one batched SS-UCB simulation; one row per checkpoint round.

    ``task.params``: ``oracle, epsilon, n, alpha, R, T, runs`` and optionally ``family`` (default
    ``paper``).  Instances and outcomes come from ``SeedSequence(task.root_seed)`` only (not the
    task's grid position), so every oracle and ε of a figure sees the same instances of a family
    and the same luck; run ``j`` uses child ``j`` of each stream.
    """
    p = task.params
    inst_seq, env_seq = np.random.SeedSequence(task.root_seed).spawn(2)
    quality, cost = instances(p.get("family", "paper"), p["n"], p["runs"], p["alpha"], p["epsilon"],
                              inst_seq, R=p["R"])
    policy = make_policy("ss-ucb", p["oracle"], cost=cost, alpha=p["alpha"], epsilon=p["epsilon"],
                         horizon=p["T"], R=p["R"], runs=p["runs"])
    env = BernoulliEnvironment(quality, cost, R=p["R"], seed=env_seq)
    res = simulate(policy, env, p["T"], p["epsilon"])
    scalars = {k: v for k, v in res.summary().items() if k not in ("T", "runs", "alpha", "epsilon")}
    curves = res.curves()
    return [{**row, **scalars} for row in curves.to_dict("records")]


def fit_log_curve(t: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares ``y ≈ a + b ln t``; returns ``(a, b, R²)`` (R² NaN for a constant ``y``)."""
    x = np.log(np.asarray(t, dtype=float))
    y = np.asarray(y, dtype=float)
    b, a = np.polyfit(x, y, 1)
    resid = y - (a + b * x)
    ss = float(((y - y.mean()) ** 2).sum())
    return float(a), float(b), (1.0 - float((resid ** 2).sum()) / ss) if ss > 0 else float("nan")


def _run(config: ExperimentConfig, name: str, families: tuple[str, ...] = ("paper",)
         ) -> tuple[pd.DataFrame, dict, float]:
    size = SIZES[name][config.scale]
    tasks = []
    for eps in size["epsilon"]:
        axes: dict[str, list] = {"epsilon": [eps], "oracle": list(ORACLES)}
        if families != ("paper",):
            axes = {"family": list(families), **axes}
        tasks += grid(config.seed, axes,
                      fixed={"n": N_AGENTS, "alpha": ALPHA, "R": R, "T": horizon(size, eps),
                             "runs": size["runs"]})
    start = time.perf_counter()
    table = run_grid(tasks, bandit_curves, config.out_dir / f"{name}.csv", desc=name,
                     **config.run_kwargs())
    return table, size, time.perf_counter() - start


def _eps01_line(T: int) -> str:
    tau = exploration_rounds(T, 0.01)
    tau_paper = exploration_rounds(100_000, 0.01)
    here = "" if T == 100_000 else f" (here {tau:,} for T = {T:,})"
    return (f"**Why not ε = 0.01.** τ = ⌈3 ln T / (2 ε²)⌉ = {tau_paper:,} for ε = 0.01 and the paper's "
            f"T = 100,000{here}: τ exceeds T, so every round would explore and "
            "there is no t > τ to plot. We use ε = 0.05 for the regret figure and "
            "ε ∈ {0.02, 0.05, 0.1} for the satisfaction figure.")


def _header(config: ExperimentConfig, name: str, title: str, size: dict, elapsed: float) -> list[str]:
    flag = {"quick": "--quick", "full": "--full"}.get(config.scale, f"--scale {config.scale}")
    backend = (f"Dask scheduler {config.scheduler}" if config.scheduler
               else "serial" if config.jobs == 1 else f"{config.jobs} joblib workers")
    return [f"# {name}: {title}", "",
            f"Reproduces {_PAPER}. Command: `subsel reproduce {name} {flag} --seed {config.seed}`.",
            f"Scale `{config.scale}`: n = {N_AGENTS}, q, c ~ U[0, 1], α = {ALPHA}, R = {R:g}, "
            f"{_horizons(size)} rounds, {size['runs']} independent runs per curve (paper: T = 100,000, "
            f"1000 runs). The task grid took {elapsed:.1f} s ({backend}; tasks finished by an earlier "
            "run into the same folder are reused, not re-timed; the `subsel reproduce` line's time "
            "also counts the tables, figure and this file).", ""]


def _per_task(table: pd.DataFrame) -> pd.DataFrame:
    cols = ["oracle", "epsilon", "tau", "regret_at_T", "correct_fraction_after_tau",
            "feasible_fraction_after_tau", "mean_L", "mean_optimum", "wall_time_s", "run_rounds_per_s"]
    return table.groupby(["oracle", "epsilon"], sort=True).last().reset_index()[cols]


def run_fig3(config: ExperimentConfig) -> tuple[pd.DataFrame, dict[str, Any], float]:
    """Run Fig. 3's tasks (both families × both oracles at ε = 0.05); writes ``fig3.csv``.

    Returns
    -------
    (table, size, elapsed_s)
        The tidy curves (one row per family, oracle, ε and checkpoint round), the scale's sizes,
        and the wall time of the task grid.
    """
    return _run(config, "fig3", FAMILIES)


def fit_fig3(table: pd.DataFrame, size: dict[str, Any], seed: int) -> pd.DataFrame:
    """One row per (policy, family): regret, the ``a + b ln t`` fit over rounds τ+1..T, the ε gap.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig3`'s curves.
    size : dict
        The scale's sizes (``runs``, ``T``, ``epsilon``).
    seed : int
        The figure's root seed (for the ε gap of each family's instances).

    Returns
    -------
    pandas.DataFrame
        Columns ``policy, family, oracle, epsilon, tau, T, runs, regret_T`` (mean cumulative
        regret of rounds 1..T), ``regret_after_tau_T`` (of rounds τ+1..T), ``log_fit_a,
        log_fit_b, log_fit_r2`` (least squares of the mean regret after τ on ``a + b ln t`` over
        the checkpoint rounds τ+1..T), ``regret_per_round_last_10pct``, ``epsilon_gap`` (mean
        ``r_q(S*_α) − r_q(S*_{α+ε})``), the fractions after τ, ``mean_L``, ``wall_time_s`` and
        ``run_rounds_per_s``.
    """
    eps = size["epsilon"][0]
    T = horizon(size, eps)
    rows = []
    for family in FAMILIES:
        gap = epsilon_gap(seed, size, eps, family)
        for oracle in ORACLES:
            part = table[(table["family"] == family) & (table["oracle"] == oracle) & (table["epsilon"] == eps)]
            tau = int(part["tau"].iloc[0])
            after = part[part["round"] > tau]
            last = part[part["round"] == T].iloc[0]
            if len(after) >= 2:
                a, b, r2 = fit_log_curve(after["round"], after["regret_after_tau_mean"])
                tail = after[after["round"] >= 0.9 * T]
                slope = float((tail["regret_after_tau_mean"].iloc[-1] - tail["regret_after_tau_mean"].iloc[0])
                              / max(tail["round"].iloc[-1] - tail["round"].iloc[0], 1))
            else:
                a = b = r2 = slope = float("nan")
            rows.append({"policy": f"{oracle}-ucb", "family": family, "oracle": oracle, "epsilon": eps,
                         "tau": tau, "T": T, "runs": size["runs"], "regret_T": float(last["regret_mean"]),
                         "regret_after_tau_T": float(last["regret_after_tau_mean"]),
                         "log_fit_a": a, "log_fit_b": b, "log_fit_r2": r2,
                         "regret_per_round_last_10pct": slope, "epsilon_gap": gap,
                         "correct_fraction_after_tau": last["correct_fraction_after_tau"],
                         "feasible_fraction_after_tau": last["feasible_fraction_after_tau"],
                         "mean_L": last["mean_L"], "wall_time_s": last["wall_time_s"],
                         "run_rounds_per_s": last["run_rounds_per_s"]})
    return pd.DataFrame(rows)


def plot_fig3(table: pd.DataFrame, fits: pd.DataFrame, size: dict[str, Any], path: Path) -> Path:
    """Fig. 3 as one panel per family: mean regret after τ (± 1 sd), and the fitted a + b ln t."""
    from .plots import new_figure, save_figure

    eps = size["epsilon"][0]
    _, (fig, axes) = new_figure(1, len(FAMILIES), figsize=(11, 4.2))
    for ax, family in zip(np.atleast_1d(axes), FAMILIES):
        for oracle in ORACLES:
            part = table[(table["family"] == family) & (table["oracle"] == oracle) & (table["epsilon"] == eps)]
            fit = fits[(fits["family"] == family) & (fits["oracle"] == oracle)].iloc[0]
            after = part[part["round"] > fit["tau"]]
            line, = ax.plot(after["round"], after["regret_after_tau_mean"], label=f"{oracle.upper()}-UCB")
            ax.fill_between(after["round"], after["regret_after_tau_mean"] - after["regret_after_tau_std"],
                            after["regret_after_tau_mean"] + after["regret_after_tau_std"],
                            color=line.get_color(), alpha=0.15)
            if np.isfinite(fit["log_fit_r2"]):
                ax.plot(after["round"], fit["log_fit_a"] + fit["log_fit_b"] * np.log(after["round"]), ls="--",
                        color=line.get_color(), label=f"fit {fit['log_fit_a']:.1f} + {fit['log_fit_b']:.1f} ln t "
                        f"(R² {fit['log_fit_r2']:.3f})")
        ax.set_xlabel("round t (t > τ)")
        ax.set_title(f"{family} instances" + (" (ε-separated)" if family == "separated" else " (q, c ~ U[0, 1])"))
        ax.legend(fontsize=8)
    np.atleast_1d(axes)[0].set_ylabel("cumulative regret of rounds τ+1..t (± 1 sd)")
    fig.suptitle(f"Fig. 3: DPSS-UCB and GSS-UCB regret after τ = {int(fits['tau'].iloc[0]):,} "
                 f"(ε = {eps:g}, {size['runs']} runs)")
    fig.tight_layout()
    return save_figure(fig, path)


def write_fig3_report(config: ExperimentConfig, fits: pd.DataFrame, size: dict[str, Any],
                      elapsed: float) -> tuple[Path, Path]:
    """Write ``fig3_summary.csv`` (the fits) and ``fig3.md`` (paper vs ours, why the families differ)."""
    eps = size["epsilon"][0]
    T = horizon(size, eps)
    tau = int(fits["tau"].iloc[0])
    summary_csv = write_table(fits, config.out_dir / "fig3_summary.csv")

    def pick(family: str) -> pd.DataFrame:
        return fits[fits["family"] == family]

    def ours(family: str) -> str:
        return ", ".join(f"{r.policy.upper()} {r.regret_after_tau_T:.2f} (b = {r.log_fit_b:.2f}, R² = "
                         f"{r.log_fit_r2:.3f}, last 10%: {r.regret_per_round_last_10pct:.4f} per round)"
                         for r in pick(family).itertuples())

    gap_paper = float(pick("paper")["epsilon_gap"].iloc[0])
    shown = ["policy", "family", "tau", "regret_T", "regret_after_tau_T", "log_fit_b", "log_fit_r2",
             "regret_per_round_last_10pct", "epsilon_gap", "correct_fraction_after_tau", "run_rounds_per_s"]
    lines = _header(config, "fig3", "regret of DPSS-UCB and GSS-UCB after τ, on two instance families",
                    size, elapsed)
    lines += ["## Results", "", f"τ = ⌈3 ln T / (2 ε²)⌉ = {tau:,} for ε = {eps:g} and T = {T:,}.", "",
              "Two instance families, the same number of runs and seeds: `paper` draws q, c ~ U[0, 1] "
              "as the paper does; `separated` draws the same way but keeps an instance only when no "
              f"subset of agents has an average quality in [α, α + ε) = [{ALPHA:g}, {ALPHA + eps:g}) "
              "(ε-separated, the assumption of the paper's O(ln T) bound, Theorem 2). `log_fit_r2` is "
              "the R² of a least-squares fit a + b ln t to the mean regret of rounds τ+1..t over the "
              "checkpoint rounds t > τ; `regret_T` counts every round from 1 (the exploration included).",
              "", to_markdown(fits[shown]), "",
              "## Paper vs ours", "",
              "- Paper (Figure 3): the regret after τ follows a curve upper bounded by O(ln T); GSS-UCB's "
              "regret is slightly lower than DPSS-UCB's.",
              f"- Ours, paper instances: regret of rounds τ+1..T {ours('paper')}.",
              f"- Ours, ε-separated instances: {ours('separated')}.",
              "- The cumulative regret from round 1 (`regret_T`) is dominated by the τ exploration "
              "rounds, each of which costs up to L (the paper's bound L·τ).", "",
              "## Why the two families differ", "",
              "SS-UCB asks its oracle for selections whose (optimistic) average quality is at least "
              "α + ε, a safety margin, while its regret is measured against the best selection at α. "
              f"On the paper's instances some subsets have an average quality between α and α + ε, and "
              f"the best one often is such a subset: the margin then forbids it for ever, and every "
              f"round after learning loses the difference, on average {gap_paper:.4f} per round here "
              f"(column `epsilon_gap`; up to {gap_paper:.4f} × (T − τ) = {gap_paper * (T - tau):,.0f} "
              "over the horizon). That loss grows linearly in t, so the curve is not O(ln T), however "
              "long the run. On ε-separated instances no subset lies in that band, so the best "
              "selection at α is also the best at α + ε (the gap is 0 by construction); the only "
              "regret left is the occasional round in which an optimistic estimate still picks a worse "
              "subset, and those rounds become rarer as the estimates tighten, which is the "
              "logarithmic growth of the paper's Theorem 2. The per-round regret over the last 10% of "
              "rounds shows the difference directly: close to the ε gap on the paper's instances, "
              "close to 0 on the separated ones. (Over a short horizon ln t spans a narrow range, on "
              "which even a straight line is fitted well, so R² alone does not tell the families "
              "apart at small T; the per-round column does.)", "",
              _eps01_line(T)]
    md = config.out_dir / "fig3.md"
    atomic_write_text(md, "\n".join(lines) + "\n")
    return summary_csv, md


def fig3(config: ExperimentConfig) -> list[Path]:
    """Figure 3: regret for t > τ of DPSS-UCB and GSS-UCB at ε = 0.05 on the paper's and on
    ε-separated instances, with a fitted a + b ln t.

    Runs (:func:`run_fig3`), fits (:func:`fit_fig3`), plots (:func:`plot_fig3`) and writes the
    report (:func:`write_fig3_report`).

    Parameters
    ----------
    config : ExperimentConfig

    Returns
    -------
    list of Path
        ``fig3.csv``, ``fig3_summary.csv``, ``fig3.png``, ``fig3.md``.
    """
    config.out_dir.mkdir(parents=True, exist_ok=True)
    table, size, elapsed = run_fig3(config)
    fits = fit_fig3(table, size, config.seed)
    png = plot_fig3(table, fits, size, config.out_dir / "fig3.png")
    summary_csv, md = write_fig3_report(config, fits, size, elapsed)
    return [config.out_dir / "fig3.csv", summary_csv, png, md]


def fig4(config: ExperimentConfig) -> list[Path]:
    """Figure 4: fraction of runs whose selection is correct per round, ε ∈ {0.02, 0.05, 0.1}, τ marked.

    Parameters
    ----------
    config : ExperimentConfig

    Returns
    -------
    list of Path
        ``fig4.csv``, ``fig4_summary.csv``, ``fig4.png``, ``fig4.md``.
    """
    from .plots import new_figure, save_figure

    config.out_dir.mkdir(parents=True, exist_ok=True)
    table, size, elapsed = _run(config, "fig4")
    # constrained layout keeps the suptitle clear of the panel titles
    plt, (fig, axes) = new_figure(1, len(ORACLES), figsize=(11, 4.4), sharey=True, layout="constrained")
    for ax, oracle in zip(np.atleast_1d(axes), ORACLES):
        for eps in size["epsilon"]:
            part = table[(table["oracle"] == oracle) & (table["epsilon"] == eps)]
            tau = int(part["tau"].iloc[0])
            line, = ax.plot(part["round"], part["correct_fraction"], label=f"ε = {eps:g}")
            if tau <= horizon(size, eps):
                # the curve jumps at τ, so a line in its colour would vanish into it: a dark dashed
                # line over the curves, and a marker in the curve's colour on the top edge
                ax.axvline(tau, ls=(0, (4, 2)), lw=1.0, color="0.15", zorder=3)
                ax.plot([tau], [1.0], ls="none", marker="v", ms=8, color=line.get_color(), zorder=4,
                        clip_on=False, transform=ax.get_xaxis_transform(), label=f"τ = {tau:,}")
        ax.set_xscale("log")
        ax.set_xlabel("round t")
        ax.set_title(f"{oracle.upper()}-UCB")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=8)
    np.atleast_1d(axes)[0].set_ylabel("fraction of runs with q_av(S_t) ≥ α − ε")
    fig.suptitle(f"Fig. 4: correct selections per round ({size['runs']} runs, {_horizons(size)})")
    png = save_figure(fig, config.out_dir / "fig4.png")
    per = _per_task(table)
    summary_csv = write_table(per, config.out_dir / "fig4_summary.csv")
    taus = ", ".join(f"ε = {e:g}: τ = {exploration_rounds(horizon(size, e), e):,} (T = "
                     f"{horizon(size, e):,})" for e in size["epsilon"])
    worst = per["correct_fraction_after_tau"].min()
    lines = _header(config, "fig4", "constraint satisfaction of DPSS-UCB and GSS-UCB per round", size,
                    elapsed)
    lines += ["## Results", "", f"τ = ⌈3 ln T / (2 ε²)⌉: {taus}.", "",
              "`correct_fraction_after_tau` is the fraction of (run, round) pairs with t > τ whose "
              "selection has true average quality ≥ α − ε; `feasible_fraction_after_tau` the same for "
              "≥ α.", "", to_markdown(per), "",
              "## Paper vs ours", "",
              "- Paper (Figure 4): after τ rounds the algorithm achieves correctness in close to 100% "
              "of the runs for all three ε; a larger ε reaches correctness sooner.",
              f"- Ours: after τ, at least {100 * worst:.2f}% of the (run, round) pairs are correct "
              "for every oracle and ε (table above).", "",
              _eps01_line(max(horizon(size, e) for e in size["epsilon"]))]
    md = config.out_dir / "fig4.md"
    atomic_write_text(md, "\n".join(lines) + "\n")
    return [config.out_dir / "fig4.csv", summary_csv, png, md]
