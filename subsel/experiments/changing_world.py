"""SS-UCB in a changing world beside the fixed pool: sleeping agents, lead times, arrivals.

Deva, Abhishek, Gujar ("A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS
2021) name a dynamic pool and sleeping agents as future work (Section 7); delayed feedback follows
Joulani, Gyorgy, Szepesvari ("Online Learning under Delayed Feedback", ICML 2013), whose bound for a
delay of ``d`` rounds adds a term of order ``d`` to the regret rather than multiplying it.

:func:`run` plays DPSS-UCB on epsilon-separated instances (the assumption behind the paper's
O(ln T) regret, Theorem 2; :func:`subsel.bandits.separated_instances`) in each setting and, on the
same instances and outcome streams, in the papers' fixed world, and reports per setting:

- the fraction of correct selections after tau, and its ratio to the fixed pool's;
- the fit ``a + b ln t`` of the cumulative regret on rounds ``t > 2 tau`` (its slope ``b`` and
  R²), and the regret added over the second half of the horizon (``b ln 2`` for a logarithmic
  curve), beside the fixed pool's;
- the extra regret over the fixed pool at T/2 and at T (an additive delay term stays about level);

and draws one figure per setting (regret and fraction correct against rounds, the fixed pool
beside).  Usage: ``python -m subsel.experiments.changing_world OUT_DIR [--runs R] [--T T]``.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..bandits import BernoulliEnvironment, arrival_schedule, make_policy, separated_instances, simulate
from .bandit_figures import fit_log_curve
from .plots import new_figure, save_figure

N, ALPHA, EPSILON = 10, 0.7, 0.1
#: The settings: name -> keywords of :func:`subsel.bandits.simulate` (``pool`` built per run).
SETTINGS: dict[str, dict[str, Any]] = {
    "availability 0.8": {"availability": 0.8},
    "lead time 5": {"lead_time": 5},
    "2 arrivals": {"arrivals": 2},
}


def _play(q: np.ndarray, c: np.ndarray, T: int, seed: int, **world: Any):
    arrivals = world.pop("arrivals", 0)
    if arrivals:
        world["pool"] = arrival_schedule(q.shape[1], arrivals, T)
    pol = make_policy("ss-ucb", "dpss", cost=c, alpha=ALPHA, epsilon=EPSILON, horizon=T, runs=q.shape[0])
    env = BernoulliEnvironment(q, c, seed=np.random.SeedSequence(seed, spawn_key=(1,)))
    if world:
        world["seed"] = np.random.SeedSequence(seed, spawn_key=(2,))
    return simulate(pol, env, T, EPSILON, **world)


def _fit(res) -> tuple[float, float]:
    """Slope and R² of ``a + b ln t`` fitted to the cumulative regret on rounds ``t > 2 tau``
    (after every agent's exploration, a newcomer's or a sleeper's included, is over)."""
    after = res.rounds > 2 * res.tau
    _, b, r2 = fit_log_curve(res.rounds[after], res.regret_mean[after])
    return b, r2


def _growth(res) -> float:
    """Regret added over the second half of the horizon, ``R(T) - R(T/2)``."""
    half = int(np.searchsorted(res.rounds, res.horizon // 2))
    return float(res.regret_mean[-1] - res.regret_mean[half])


def run(out: Path, runs: int = 100, T: int = 20_000, seed: int = 0) -> pd.DataFrame:
    """Every setting beside the fixed pool; writes ``changing-world.csv``, ``.md`` and one png each.

    Returns
    -------
    pandas.DataFrame
        One row per setting: ``setting, correct_after_tau, fixed_correct_after_tau, correct_ratio,
        log_slope, log_r2, fixed_log_slope, fixed_log_r2, growth_second_half,
        fixed_growth_second_half, extra_regret_half, extra_regret_T``.
    """
    out.mkdir(parents=True, exist_ok=True)
    q, c = separated_instances(N, runs, ALPHA, EPSILON, seed)
    fixed = _play(q, c, T, seed)
    fb, fr2 = _fit(fixed)
    rows = []
    half = int(np.searchsorted(fixed.rounds, T // 2))
    for name, world in SETTINGS.items():
        res = _play(q, c, T, seed, **dict(world))
        b, r2 = _fit(res)
        extra = res.regret_mean - fixed.regret_mean
        rows.append({"setting": name, "correct_after_tau": res.correct_fraction_after_tau,
                     "fixed_correct_after_tau": fixed.correct_fraction_after_tau,
                     "correct_ratio": res.correct_fraction_after_tau / fixed.correct_fraction_after_tau,
                     "log_slope": b, "log_r2": r2, "fixed_log_slope": fb, "fixed_log_r2": fr2,
                     "growth_second_half": _growth(res), "fixed_growth_second_half": _growth(fixed),
                     "extra_regret_half": float(extra[half]), "extra_regret_T": float(extra[-1])})
        _, (fig, (ax1, ax2)) = new_figure(1, 2, figsize=(10, 3.8))
        for r, label, style in ((res, name, "-"), (fixed, "fixed pool", "--")):
            ax1.plot(r.rounds, r.regret_mean, style, label=label)
            ax2.plot(r.rounds, r.correct_fraction, style, label=label)
        for ax, ylabel in ((ax1, "cumulative regret"), (ax2, "fraction of runs correct")):
            ax.axvline(fixed.tau, ls=":", color="k")
            ax.set_xlabel("round t")
            ax.set_ylabel(ylabel)
            ax.legend(fontsize=8)
        fig.suptitle(f"DPSS-UCB, {name}: n={N}, alpha={ALPHA}, eps={EPSILON}, {runs} runs, "
                     f"epsilon-separated instances")
        fig.tight_layout()
        save_figure(fig, out / f"changing-world-{name.replace(' ', '-').replace('.', '')}.png")
    table = pd.DataFrame(rows)
    table.to_csv(out / "changing-world.csv", index=False, float_format="%.6g")
    (out / "changing-world.md").write_text(
        f"DPSS-UCB, n = {N}, alpha = {ALPHA}, eps = {EPSILON}, T = {T}, tau = {fixed.tau}, {runs} runs, "
        f"epsilon-separated instances, seed {seed}\n\n" + _markdown(table) + "\n",
        encoding="utf-8")
    return table


def _markdown(table: pd.DataFrame) -> str:
    cells = [[f"{v:.4g}" if isinstance(v, float) else str(v) for v in row] for row in table.itertuples(index=False)]
    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--T", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(run(args.out, args.runs, args.T, args.seed).to_string(index=False))


if __name__ == "__main__":  # pragma: no cover
    main()
