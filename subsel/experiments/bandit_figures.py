"""The unknown-quality experiments of Deva et al., Section 6.2 (SPEC §2): Figures 3 and 4.

Both run DPSS-UCB and GSS-UCB (SS-UCB with the ``dpss`` / ``gss`` oracle) on the paper's random
instances (n = 10, q, c ~ U[0, 1], α = 0.7, R = 1) with :func:`subsel.bandits.simulate`: all runs of
one (oracle, ε) as one batched simulation — one task of :func:`subsel.experiments.run_grid` — so the
tasks of a figure can run in parallel (``--jobs``) or on a cluster.  Every task uses the same
instances and the same outcome stream (common random numbers), derived from the root seed only.

Files in ``config.out_dir``:

- ``NAME.csv``: tidy curves, one row per (oracle, ε, checkpoint round), with the run's scalars;
- ``NAME_summary.csv``: one row per (oracle, ε): τ, regret at T, fractions after τ, speed (and
  for Fig. 3 the fitted ``a + b ln t``);
- ``NAME.png``: the figure; ``NAME.md``: the summary with τ, the paper's claims beside ours, and why
  ε = 0.01 is not used.

Fig. 3: cumulative regret of rounds τ+1..t for t > τ at ε = 0.05, with a fitted ``a + b ln t``.
Fig. 4: fraction of runs whose selection is correct (true average quality ≥ α − ε) per round, for
ε ∈ {0.02, 0.05, 0.1}, with τ marked.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..bandits import BernoulliEnvironment, exploration_rounds, make_policy, paper_instances, regret_constants, simulate
from ..models.io import atomic_write_text
from .analysis import to_markdown
from .registry import ExperimentConfig
from .runner import Task, grid, run_grid, write_table

__all__ = ["fig3", "fig4", "SIZES", "bandit_curves", "fit_log_curve", "horizon"]

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


def epsilon_gap(seed: int, size: dict[str, Any], epsilon: float) -> float:
    """Mean ``r_q(S*_alpha) - r_q(S*_{alpha+eps})`` over a figure's instances (true qualities).

    SS-UCB asks its oracle for threshold ``alpha + eps`` while the regret is measured against the
    optimum at ``alpha``; once the UCBs have converged it plays (close to) the optimum at
    ``alpha + eps``, so this gap is the per-round regret it tends to, and ``gap x (T - tau)`` the
    linear term of its regret after tau.
    """
    inst_seq, _ = np.random.SeedSequence(seed).spawn(2)
    quality, cost = paper_instances(N_AGENTS, size["runs"], ALPHA, inst_seq, R=R)
    at_alpha, _ = regret_constants(quality, cost, ALPHA, R)
    at_tight, _ = regret_constants(quality, cost, min(ALPHA + epsilon, 1.0), R)
    return float(np.mean(at_alpha - at_tight))


def bandit_curves(task: Task) -> list[dict[str, Any]]:
    """Task function: one batched SS-UCB simulation; one row per checkpoint round.

    ``task.params``: ``oracle, epsilon, n, alpha, R, T, runs``.  Instances and outcomes come from
    ``SeedSequence(task.root_seed)`` only (not the task's grid position), so every oracle and ε of
    a figure sees the same instances and the same luck.
    """
    p = task.params
    inst_seq, env_seq = np.random.SeedSequence(task.root_seed).spawn(2)
    quality, cost = paper_instances(p["n"], p["runs"], p["alpha"], inst_seq, R=p["R"])
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


def _run(config: ExperimentConfig, name: str) -> tuple[pd.DataFrame, dict, float]:
    size = SIZES[name][config.scale]
    tasks = []
    for eps in size["epsilon"]:
        tasks += grid(config.seed, {"epsilon": [eps], "oracle": list(ORACLES)},
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
            "there is no t > τ to plot (SPEC §2). We use ε = 0.05 for the regret figure and "
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


def fig3(config: ExperimentConfig) -> list[Path]:
    """Figure 3: cumulative regret for t > τ of DPSS-UCB and GSS-UCB at ε = 0.05, fitted a + b ln t.

    Parameters
    ----------
    config : ExperimentConfig

    Returns
    -------
    list of Path
        ``fig3.csv``, ``fig3_summary.csv``, ``fig3.png``, ``fig3.md``.
    """
    from .plots import new_figure, save_figure

    config.out_dir.mkdir(parents=True, exist_ok=True)
    table, size, elapsed = _run(config, "fig3")
    eps = size["epsilon"][0]
    plt, (fig, ax) = new_figure(figsize=(6.4, 4.2))
    fits = []
    for oracle in ORACLES:
        part = table[(table["oracle"] == oracle) & (table["epsilon"] == eps)]
        tau = int(part["tau"].iloc[0])
        after = part[part["round"] > tau]
        line, = ax.plot(after["round"], after["regret_after_tau_mean"], label=f"{oracle.upper()}-UCB")
        ax.fill_between(after["round"], after["regret_after_tau_mean"] - after["regret_after_tau_std"],
                        after["regret_after_tau_mean"] + after["regret_after_tau_std"],
                        color=line.get_color(), alpha=0.15, label="± 1 sd across runs")
        a, b, r2 = fit_log_curve(after["round"], after["regret_after_tau_mean"])
        ax.plot(after["round"], a + b * np.log(after["round"]), ls="--", color=line.get_color(),
                label=f"fit {a:.1f} + {b:.1f} ln t (R² {r2:.3f})")
        T = horizon(size, eps)
        tail = after[after["round"] >= 0.9 * T]
        slope = float((tail["regret_after_tau_mean"].iloc[-1] - tail["regret_after_tau_mean"].iloc[0])
                      / max(tail["round"].iloc[-1] - tail["round"].iloc[0], 1))
        fits.append({"oracle": oracle, "epsilon": eps, "tau": tau, "a": a, "b": b, "r2": r2,
                     "regret_after_tau_at_T": float(after["regret_after_tau_mean"].iloc[-1]),
                     "regret_per_round_last_10pct": slope})
    ax.set_xlabel("round t (t > τ)")
    ax.set_ylabel("cumulative regret of rounds τ+1..t")
    ax.set_title(f"Fig. 3: regret after τ = {fits[0]['tau']:,} (ε = {eps:g}, {size['runs']} runs)")
    ax.legend(fontsize=8)
    png = save_figure(fig, config.out_dir / "fig3.png")
    per = _per_task(table)
    fit_df = pd.DataFrame(fits)
    summary_csv = write_table(per.merge(fit_df.drop(columns="tau"), on=["oracle", "epsilon"]),
                              config.out_dir / "fig3_summary.csv")
    gap = epsilon_gap(config.seed, size, eps)
    lines = _header(config, "fig3", "regret of DPSS-UCB and GSS-UCB after τ", size, elapsed)
    lines += ["## Results", "", f"τ = ⌈3 ln T / (2 ε²)⌉ = {fits[0]['tau']:,} for ε = {eps:g} and T = "
              f"{horizon(size, eps):,}.", "", to_markdown(per), "",
              "Fitted `a + b ln t` to the mean cumulative regret of rounds τ+1..t (t > τ):", "",
              to_markdown(fit_df), "",
              "## Paper vs ours", "",
              "- Paper (Figure 3): the regret after τ follows a curve upper bounded by O(ln T); GSS-UCB's "
              "regret is slightly lower than DPSS-UCB's.",
              "- Ours: mean regret of rounds τ+1..T " + ", ".join(
                  f"{f['oracle'].upper()}-UCB {f['regret_after_tau_at_T']:.2f} (fit b = {f['b']:.2f}, "
                  f"R² = {f['r2']:.3f})" for f in fits) + ".",
              "- The cumulative regret from round 1 (column `regret_at_T`) is dominated by the τ "
              "exploration rounds, each of which costs up to L (the paper's bound L·τ).",
              f"- **Not O(ln T) here.** SS-UCB asks its oracle for threshold α + ε while regret is "
              f"measured against the optimum at α. On these instances the optimum at α + ε = "
              f"{min(ALPHA + eps, 1.0):g} earns on average {gap:.4f} less per round than the optimum at "
              f"α = {ALPHA:g}, so once the UCBs have converged every round costs about that much: the "
              f"regret after τ has a linear term of up to {gap:.4f} × (T − τ) = "
              f"{gap * (horizon(size, eps) - fits[0]['tau']):,.0f}. The measured per-round regret over "
              "the last 10% of rounds (`regret_per_round_last_10pct`) shows how far the curve is from "
              "flat; the a + b ln t fit is reported as the paper draws it, with its R².", "",
              _eps01_line(horizon(size, eps))]
    md = config.out_dir / "fig3.md"
    atomic_write_text(md, "\n".join(lines) + "\n")
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
    plt, (fig, axes) = new_figure(1, len(ORACLES), figsize=(11, 4.0), sharey=True)
    for ax, oracle in zip(np.atleast_1d(axes), ORACLES):
        for eps in size["epsilon"]:
            part = table[(table["oracle"] == oracle) & (table["epsilon"] == eps)]
            tau = int(part["tau"].iloc[0])
            line, = ax.plot(part["round"], part["correct_fraction"], label=f"ε = {eps:g}")
            if tau <= horizon(size, eps):
                ax.axvline(tau, ls=":", color=line.get_color(), label=f"τ = {tau:,}")
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
