"""Regret and constraint-satisfaction simulation of bandit policies (SPEC §2; Deva et al., §6.2).

:func:`simulate` plays a policy against a :class:`BernoulliEnvironment` for ``T`` rounds and ``m``
runs at once (arrays of shape (m, n), one batched oracle call per round), or — given a list of
single-run policies — run by run (the slow reference path).  Per round and across runs it records
the cumulative regret (mean, spread), the fraction of runs whose selection is correct (true
average quality ``>= alpha - eps``) and strictly feasible (``>= alpha``), and the mean utility, at
a compact set of checkpoint rounds (log-spaced, evenly spaced, and every round near ``tau``).

Regret of round t (SPEC §2; Deva et al., eq. (2)): ``r_q(S*) - r_q(S_t)`` when S_t is correct,
else ``L = r_q(S*) - min_{S feasible} r_q(S)``; S* and the minimum come from an exact solver on
the true qualities.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._extras import require
from ..models import FEASIBILITY_TOL, SubsetSelectionProblem
from ..solvers import Solver
from .environment import BernoulliEnvironment
from .policies import Policy, resolve_oracle


def paper_instances(n: int, runs: int, alpha: float, seed: int | np.random.SeedSequence | None,
                    R: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The paper's random instances, one per run: ``q, c ~ U[0, 1]`` (Deva et al., §6.2).

    Run ``j`` is :meth:`SubsetSelectionProblem.random` with the ``j``-th child of
    ``SeedSequence(seed)``.

    Returns
    -------
    (quality, cost) : two ndarrays of shape (runs, n)
    """
    for name, value in (("n", n), ("runs", runs)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {value!r}")
    children = np.random.SeedSequence(seed).spawn(int(runs)) if not isinstance(
        seed, np.random.SeedSequence) else seed.spawn(int(runs))
    quality = np.empty((len(children), int(n)))
    cost = np.empty_like(quality)
    for j, s in enumerate(children):  # one problem at a time: memory O(runs n), not O(runs) objects
        p = SubsetSelectionProblem.random(n, alpha, np.random.default_rng(s), R=R)
        quality[j], cost[j] = p.quality, p.cost
    return quality, cost


def regret_constants(quality: np.ndarray, cost: np.ndarray, alpha: float, R: float = 1.0,
                     capacity=None, exact: Solver | str = "dpss") -> tuple[np.ndarray, np.ndarray]:
    """Per run, the optimal utility ``r_q(S*)`` and the regret of an incorrect round ``L``.

    ``L = r_q(S*) - min_{S feasible} r_q(S)`` (SPEC §2).  The minimum is a maximisation of ``-r``
    by the same exact solver, through ``objective_quality``: with objective qualities 1, revenue
    ``R' = max(R, max(c - R q))`` and costs ``c' = R' - c + R q >= 0`` the per-unit utility is
    ``R' - c' = c - R q = -r`` while the quality constraint is untouched.

    Parameters
    ----------
    quality, cost : ndarray, shape (m, n)
        True qualities and costs.
    alpha : float
    R : float, default 1.0
    capacity : array-like of int, shape (n,), optional
    exact : Solver or str, default "dpss"
        An exact solver.

    Returns
    -------
    (optimum, L) : two ndarrays of shape (m,)

    Raises
    ------
    ValueError
        ``exact`` is not an exact solver.
    """
    solver = resolve_oracle(exact)
    if not solver.exact:
        raise ValueError(f"regret needs an exact solver; {solver.name!r} is not exact")
    q = np.atleast_2d(np.asarray(quality, dtype=float))
    c = np.broadcast_to(np.asarray(cost, dtype=float), q.shape)
    r = R * q - c
    x_best = solver.solve_batch(q, c, alpha, R, capacity)
    R_min = float(max(R, np.max(c - R * q)))
    c_min = np.maximum(R_min - c + R * q, 0.0)
    x_worst = solver.solve_batch(q, c_min, alpha, R_min, capacity, objective_quality=np.ones_like(q))
    best = (x_best * r).sum(axis=1)
    worst = (x_worst * r).sum(axis=1)
    return best, best - worst


def default_checkpoints(horizon: int, tau: int, points: int = 200, near: int = 200) -> np.ndarray:
    """Rounds at which curves are stored: log-spaced, evenly spaced, every round near ``tau``, and T.

    Parameters
    ----------
    horizon : int
        ``T``.
    tau : int
        Exploration rounds; rounds ``tau - near .. tau + 2 near`` are all kept.
    points : int
        Number of log-spaced and of evenly spaced rounds.

    Returns
    -------
    ndarray of int64
        Sorted unique rounds in ``1..T``.
    """
    T = int(horizon)
    pts = [np.unique(np.round(np.geomspace(1, T, points)).astype(np.int64)),
           np.round(np.linspace(1, T, points)).astype(np.int64),
           np.arange(tau - near, tau + 2 * near + 1), np.array([T])]
    out = np.unique(np.concatenate(pts))
    return out[(out >= 1) & (out <= T)]


@dataclass
class SimulationResult:
    """Curves and summaries of one :func:`simulate` call.

    Attributes
    ----------
    rounds : ndarray of int64, shape (K,)
        Checkpoint rounds ``t``.
    regret_mean, regret_std, regret_p05, regret_p95 : ndarray, shape (K,)
        Cumulative regret up to round t across runs: mean, standard deviation, 5 % and 95 %
        quantiles.
    regret_after_tau_mean, regret_after_tau_std : ndarray, shape (K,)
        Cumulative regret of rounds ``tau+1..t`` (0 for ``t <= tau``).
    correct_fraction, feasible_fraction : ndarray, shape (K,)
        Fraction of runs whose round-t selection is correct (true average quality
        ``>= alpha - eps``) and strictly feasible (``>= alpha``).  An empty selection counts as
        both.
    utility_mean : ndarray, shape (K,)
        Mean true utility ``r_q(S_t)`` of round t.
    tau, horizon, runs : int
    alpha, epsilon : float
    optimum, L : ndarray, shape (runs,)
        ``r_q(S*)`` and the regret of an incorrect round, per run.
    correct_fraction_after_tau, feasible_fraction_after_tau : float
        Means over runs and all rounds ``t > tau`` (NaN when ``tau >= T``).
    regret_at_T : float
        Mean cumulative regret at T.
    wall_time_s, run_rounds_per_s : float
        Wall time of the round loop and ``runs * T / wall_time_s``.
    selections : ndarray of int64, shape (T, runs, n) or None
        Every round's selections (only with ``keep_selections=True``).
    """

    rounds: np.ndarray
    regret_mean: np.ndarray
    regret_std: np.ndarray
    regret_p05: np.ndarray
    regret_p95: np.ndarray
    regret_after_tau_mean: np.ndarray
    regret_after_tau_std: np.ndarray
    correct_fraction: np.ndarray
    feasible_fraction: np.ndarray
    utility_mean: np.ndarray
    tau: int
    horizon: int
    runs: int
    alpha: float
    epsilon: float
    optimum: np.ndarray
    L: np.ndarray
    correct_fraction_after_tau: float
    feasible_fraction_after_tau: float
    regret_at_T: float
    wall_time_s: float
    run_rounds_per_s: float
    selections: np.ndarray | None = field(default=None, repr=False)

    def curves(self) -> pd.DataFrame:
        """Tidy table, one row per checkpoint round (columns named after the attributes)."""
        return pd.DataFrame({
            "round": self.rounds, "regret_mean": self.regret_mean, "regret_std": self.regret_std,
            "regret_p05": self.regret_p05, "regret_p95": self.regret_p95,
            "regret_after_tau_mean": self.regret_after_tau_mean,
            "regret_after_tau_std": self.regret_after_tau_std,
            "correct_fraction": self.correct_fraction, "feasible_fraction": self.feasible_fraction,
            "utility_mean": self.utility_mean})

    def summary(self) -> dict[str, Any]:
        """Plain-JSON scalars: tau, horizon, runs, alpha, epsilon, regret_at_T, fractions, times."""
        def num(v: float) -> float | None:
            return None if v is None or not math.isfinite(v) else float(v)

        return {"tau": int(self.tau), "T": int(self.horizon), "runs": int(self.runs),
                "alpha": self.alpha, "epsilon": self.epsilon, "regret_at_T": num(self.regret_at_T),
                "correct_fraction_after_tau": num(self.correct_fraction_after_tau),
                "feasible_fraction_after_tau": num(self.feasible_fraction_after_tau),
                "mean_L": num(float(np.mean(self.L))), "mean_optimum": num(float(np.mean(self.optimum))),
                "wall_time_s": float(self.wall_time_s), "run_rounds_per_s": float(self.run_rounds_per_s)}


def simulate(policy: Policy | Sequence[Policy], environment: BernoulliEnvironment, horizon: int,
             epsilon: float, *, tau: int | None = None, exact: Solver | str = "dpss",
             checkpoints: Sequence[int] | None = None, keep_selections: bool = False,
             progress: bool = False) -> SimulationResult:
    """Play ``policy`` for ``horizon`` rounds and record regret and correctness (SPEC §2).

    Parameters
    ----------
    policy : Policy or sequence of Policy
        A batched policy (``runs = m``, one ``solve_batch`` call per round), or ``m`` single-run
        policies played one by one (each calls ``solve``; the slow reference path).
    environment : BernoulliEnvironment
        Batched, with ``m`` runs and the policies' costs and capacities.
    horizon : int
        ``T`` rounds.
    epsilon : float
        Tolerance of the correctness test (``alpha - epsilon``).
    tau : int, optional
        Round after which the "after tau" fractions are averaged; default the policy's ``tau``
        (0 for policies without forced exploration).
    exact : Solver or str, default "dpss"
        Exact solver for ``S*`` and ``L``.
    checkpoints : sequence of int, optional
        Rounds to store; default :func:`default_checkpoints`.
    keep_selections : bool, default False
        Keep every round's selections (memory ``T m n`` integers: small runs only).
    progress : bool, default False
        Show a tqdm progress bar.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ValueError
        The environment is not batched, run counts or costs differ, ``horizon < 1``.
    """
    single = not isinstance(policy, Policy)
    policies = list(policy) if single else [policy]
    first = policies[0]
    m = environment.runs
    if m is None:
        raise ValueError("simulate needs a batched environment (quality of shape (runs, n))")
    if single and len(policies) != m:
        raise ValueError(f"got {len(policies)} single-run policies for {m} runs")
    if not single and first.runs != m:
        raise ValueError(f"policy has runs={first.runs} but the environment has {m} runs")
    T = int(horizon)
    if T < 1:
        raise ValueError(f"horizon must be >= 1; got {horizon}")
    alpha = first.alpha
    if tau is None:
        tau = int(getattr(first, "tau", 0))
    q, r = environment.quality, environment.utility
    optimum, L = regret_constants(q, environment.cost, alpha, environment.R, environment.capacity, exact)
    cps = default_checkpoints(T, tau) if checkpoints is None else np.unique(np.asarray(checkpoints, int))
    cps = cps[(cps >= 1) & (cps <= T)]
    K = cps.size
    rec = {k: np.zeros(K) for k in ("rm", "rs", "r05", "r95", "am", "as", "cf", "ff", "um")}
    margin_c = q - (alpha - epsilon)
    margin_f = q - alpha
    cum = np.zeros(m)
    cum_tau = np.zeros(m)
    correct_after = feasible_after = 0.0
    selections = np.zeros((T, m, environment.n), dtype=np.int64) if keep_selections else None
    bar = None
    if progress:
        require("tqdm", extra="bandits", feature="the progress bar of simulate(progress=True)")
        from tqdm import tqdm
        bar = tqdm(total=T, unit="round", leave=False)
    ci = 0
    start = time.perf_counter()
    for t in range(1, T + 1):
        if single:
            x = np.stack([p.select() for p in policies])
        else:
            x = first.select()
        good = environment._good(x)
        if single:
            for j, p in enumerate(policies):
                p.update(x[j], good[j])
        else:
            first._tell(x, good)
        if keep_selections:
            selections[t - 1] = x
        util = (x * r).sum(axis=1)
        correct = (x * margin_c).sum(axis=1) >= -FEASIBILITY_TOL  # surplus_ok, margins precomputed
        feasible = (x * margin_f).sum(axis=1) >= -FEASIBILITY_TOL
        cum += np.where(correct, optimum - util, L)
        if t == tau:
            cum_tau[:] = cum
        if t > tau:
            correct_after += correct.mean()
            feasible_after += feasible.mean()
        if ci < K and cps[ci] == t:
            after = cum - cum_tau if t > tau else np.zeros(m)
            p05, p95 = np.percentile(cum, [5, 95])
            for key, val in (("rm", cum.mean()), ("rs", cum.std()), ("r05", p05), ("r95", p95),
                             ("am", after.mean()), ("as", after.std()), ("cf", correct.mean()),
                             ("ff", feasible.mean()), ("um", util.mean())):
                rec[key][ci] = val
            ci += 1
        if bar is not None and (t % 1000 == 0 or t == T):
            bar.update(t - bar.n)
    wall = time.perf_counter() - start
    if bar is not None:
        bar.close()
    n_after = T - tau
    return SimulationResult(
        rounds=cps, regret_mean=rec["rm"], regret_std=rec["rs"], regret_p05=rec["r05"],
        regret_p95=rec["r95"], regret_after_tau_mean=rec["am"], regret_after_tau_std=rec["as"],
        correct_fraction=rec["cf"], feasible_fraction=rec["ff"], utility_mean=rec["um"],
        tau=int(tau), horizon=T, runs=int(m), alpha=float(alpha), epsilon=float(epsilon),
        optimum=optimum, L=L,
        correct_fraction_after_tau=correct_after / n_after if n_after > 0 else float("nan"),
        feasible_fraction_after_tau=feasible_after / n_after if n_after > 0 else float("nan"),
        regret_at_T=float(cum.mean()), wall_time_s=wall, run_rounds_per_s=m * T / max(wall, 1e-12),
        selections=selections)

