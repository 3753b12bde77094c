"""Regret and constraint-satisfaction simulation of bandit policies (Deva, Abhishek, Gujar, "A
Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS 2021, Section 6.2).

:func:`simulate` plays a policy against a :class:`BernoulliEnvironment` for ``T`` rounds and ``m``
runs at once (arrays of shape (m, n), one batched oracle call per round), or — given a list of
single-run policies — run by run (the slow reference path).  Per round and across runs it records
the cumulative regret (mean, spread), the fraction of runs whose selection is correct (true
average quality ``>= alpha - eps``) and strictly feasible (``>= alpha``), and the mean utility, at
a compact set of checkpoint rounds (log-spaced, evenly spaced, and every round near ``tau``).

Regret of round t (Deva et al., Section 4, eq. (2)): ``r_q(S*) - r_q(S_t)`` when S_t is correct,
else ``L = r_q(S*) - min_{S feasible} r_q(S)``; S* and the minimum come from an exact solver on
the true qualities.

Every run has its own random streams (instances, outcomes, a randomised policy's draws), child
``j`` of the seed for run ``j`` (:func:`~subsel.bandits.environment.run_seeds`): run ``j`` is the
same whatever the number of runs and however the runs are split over jobs.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .._extras import require
from .._validation import check_scalar
from ..models import FEASIBILITY_TOL, ProblemBatch, SubsetSelectionProblem
from ..solvers import Solver
from .environment import BernoulliEnvironment, run_seeds
from .policies import Policy, resolve_oracle
from .world import ChangingWorld

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def _check_sizes(**values: Any) -> None:
    for name, value in values.items():
        check_scalar(value, name, int, min_val=1)


def _check_start(start: Any) -> int:
    return int(check_scalar(start, "start", int, min_val=0))


def paper_instances(n: int, runs: int, alpha: float, seed: int | np.random.SeedSequence | None,
                    R: float = 1.0, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The paper's random instances, one per run: ``q, c ~ U[0, 1]`` (Deva et al., Section 6.2).

    Run ``j`` is :meth:`SubsetSelectionProblem.random` with the generator of
    ``run_seeds(seed, ...)[j]``, child ``j`` of ``SeedSequence(seed)``, so it does not depend on
    ``runs``.

    Parameters
    ----------
    n, runs : int
        Agents and runs, ``>= 1``.
    alpha : float
        Quality threshold in [0, 1].
    seed : int, SeedSequence or None
        Root of the per-run seeds.
    R : float, default 1.0
    start : int, default 0
        Index of the first run (runs ``start .. start + runs - 1`` of a larger experiment).

    Returns
    -------
    (quality, cost) : two ndarrays of shape (runs, n)
    """
    _check_sizes(n=n, runs=runs)
    children = run_seeds(seed, int(runs), _check_start(start))
    quality = np.empty((len(children), int(n)))
    cost = np.empty_like(quality)
    for j, s in enumerate(children):  # one problem at a time: memory O(runs n), not O(runs) objects
        p = SubsetSelectionProblem.random(n, alpha, np.random.default_rng(s), R=R)
        quality[j], cost[j] = p.quality, p.cost
    return quality, cost


#: Largest number of agents of an epsilon-separated instance (the check enumerates 2^n subsets).
MAX_SEPARATED_AGENTS = 16
#: Margin below alpha kept free as well: an average within it counts as feasible for the solvers.
SEPARATION_MARGIN = 1e-6


def _subset_matrix(n: int) -> np.ndarray:
    """Every non-empty subset of ``n`` agents as a 0/1 row, shape (2^n - 1, n)."""
    return np.array(list(itertools.product((0.0, 1.0), repeat=n))[1:])


def separation_gaps(quality, alpha: float, epsilon: float) -> np.ndarray:
    """How many non-empty subsets have an average quality in ``[alpha - margin, alpha + epsilon)``.

    An instance with none is *epsilon-separated* in the sense used here: every subset of agents
    (one unit each) either misses the threshold ``alpha`` or clears ``alpha + epsilon``, so the
    optimum at ``alpha`` is also the optimum at ``alpha + epsilon``, the threshold SS-UCB hands its
    oracle (Deva et al., Algorithm 2; the separation behind their O(ln T) regret bound).

    Parameters
    ----------
    quality : array-like of float, shape (n,) or (m, n)
        True qualities, ``n <= 16``.
    alpha, epsilon : float

    Returns
    -------
    ndarray of int64, shape () or (m,)
        Subsets in the band, per instance (0: separated).

    Raises
    ------
    ValueError
        More than 16 agents.
    """
    q = np.asarray(quality, dtype=float)
    n = q.shape[-1]
    if n > MAX_SEPARATED_AGENTS:
        raise ValueError(f"separation is checked over all 2^n subsets: n must be <= "
                         f"{MAX_SEPARATED_AGENTS}; got {n}")
    subsets = _subset_matrix(n)
    avg = (q @ subsets.T) / subsets.sum(axis=1)
    band = (avg >= alpha - SEPARATION_MARGIN) & (avg < alpha + epsilon)
    return band.sum(axis=-1).astype(np.int64)


def separated_instances(n: int, runs: int, alpha: float, epsilon: float,
                        seed: int | np.random.SeedSequence | None, R: float = 1.0, start: int = 0,
                        max_draws: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    """Epsilon-separated random instances: the paper's ``q, c ~ U[0, 1]``, redrawn until separated.

    Run ``j`` draws ``q`` then ``c`` (``n`` uniforms each, as :func:`paper_instances`) from the
    generator of child ``j`` of ``seed`` until no non-empty subset of agents (one unit each) has
    an average quality in ``[alpha, alpha + epsilon)`` (nor within ``1e-6`` below ``alpha``):
    the paper's distribution conditioned on separation, by rejection.  On such an instance the
    optimum at ``alpha`` is the optimum at ``alpha + epsilon``, so SS-UCB's tightened threshold
    costs nothing once it has learned, and its regret after ``tau`` grows like ``ln T``
    (Deva et al., Section 4, Theorem 2).

    Parameters
    ----------
    n, runs : int
        Agents (``1 <= n <= 16``) and runs (``>= 1``).
    alpha : float
        Quality threshold in [0, 1].
    epsilon : float
        Separation ``> 0`` (SS-UCB's tolerance).
    seed : int, SeedSequence or None
        Root of the per-run seeds (run ``j`` does not depend on ``runs``).
    R : float, default 1.0
        Revenue per good unit (unused by the draw; kept for symmetry with
        :func:`paper_instances`).
    start : int, default 0
        Index of the first run.
    max_draws : int, default 100000
        Draws allowed per run before giving up.

    Returns
    -------
    (quality, cost) : two ndarrays of shape (runs, n)

    Raises
    ------
    ValueError
        Bad sizes, or no separated instance within ``max_draws`` draws (naming the run).

    Examples
    --------
    >>> q, c = separated_instances(6, 2, 0.7, 0.05, seed=1)
    >>> separation_gaps(q, 0.7, 0.05).tolist()
    [0, 0]
    """
    _check_sizes(n=n, runs=runs, max_draws=max_draws)
    if n > MAX_SEPARATED_AGENTS:
        raise ValueError(f"separated instances are checked over all 2^n subsets: n must be <= "
                         f"{MAX_SEPARATED_AGENTS}; got {n}")
    check_scalar(epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="right")
    SubsetSelectionProblem(quality=np.ones(1), cost=np.zeros(1), alpha=alpha, R=R)  # alpha, R rules
    subsets = _subset_matrix(int(n))
    size = subsets.sum(axis=1)
    low, high = float(alpha) - SEPARATION_MARGIN, float(alpha) + float(epsilon)
    quality = np.empty((int(runs), int(n)))
    cost = np.empty_like(quality)
    for j, s in enumerate(run_seeds(seed, int(runs), _check_start(start))):
        rng = np.random.default_rng(s)
        for _ in range(int(max_draws)):
            q = rng.random(int(n))
            c = rng.random(int(n))
            avg = (subsets @ q) / size
            if not ((avg >= low) & (avg < high)).any():
                break
        else:
            raise ValueError(f"run {start + j}: no {epsilon:g}-separated instance of {n} agents at "
                             f"alpha = {alpha:g} in {max_draws} draws; use fewer agents or a smaller "
                             "epsilon")
        quality[j], cost[j] = q, c
    return quality, cost


def regret_constants(quality: np.ndarray, cost: np.ndarray, alpha: float, R: float = 1.0,
                     capacity=None, exact: Solver | str = "dpss", available=None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Per run, the optimal utility ``r_q(S*)`` and the regret of an incorrect round ``L``.

    ``L = r_q(S*) - min_{S feasible} r_q(S)`` (Deva et al., eq. (2)).  The minimum is a maximisation of ``-r``
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
    available : ndarray of bool, shape (m, n), optional
        Only these agents may be selected (the others are handed to the solver as worthless and
        cut from its answers, as a policy's oracle sees sleeping agents).

    Returns
    -------
    (optimum, L) : two ndarrays of shape (m,)

    Raises
    ------
    ValueError
        ``exact`` is not an exact solver.
    """
    x_best, x_worst, best, worst = regret_selections(quality, cost, alpha, R, capacity, exact, available)
    return best, best - worst


def regret_selections(quality: np.ndarray, cost: np.ndarray, alpha: float, R: float = 1.0,
                      capacity=None, exact: Solver | str = "dpss", available=None, which: str = "both"
                      ) -> tuple[Any, Any, Any, Any]:
    """The selections behind :func:`regret_constants`: best and worst feasible, and their utilities.

    Parameters
    ----------
    quality, cost, alpha, R, capacity, exact, available
        As :func:`regret_constants`.
    which : {"both", "best", "worst"}
        Which of the two to compute (the other's entries are None).

    Returns
    -------
    (x_best, x_worst, best, worst) : ndarrays of shape (m, n), (m, n), (m,), (m,)
    """
    solver = resolve_oracle(exact)
    if not solver.exact:
        raise ValueError(f"regret needs an exact solver; {solver.name!r} is not exact")
    q = np.atleast_2d(np.asarray(quality, dtype=float))
    c = np.broadcast_to(np.asarray(cost, dtype=float), q.shape)
    r = R * q - c
    R_min = float(max(R, np.max(c - R * q)))
    c_min = np.maximum(R_min - c + R * q, 0.0)
    if available is not None:  # an unavailable agent: quality 0, and no utility in the worst case
        mask = np.asarray(available, dtype=bool)
        q_in, c_min = np.where(mask, q, 0.0), np.where(mask, c_min, R_min)
    else:
        q_in = q
    x_best = x_worst = best = worst = None
    if which in ("both", "best"):
        x_best = solver.solve_batch(ProblemBatch(q_in, c, alpha, R, capacity)).x
        if available is not None:
            x_best = np.where(mask, x_best, 0)
        best = _row_dots(x_best, r[None])[0]
    if which in ("both", "worst"):
        x_worst = solver.solve_batch(ProblemBatch(q_in, c_min, alpha, R_min, capacity,
                                                  objective_quality=np.ones_like(q))).x
        if available is not None:
            x_worst = np.where(mask, x_worst, 0)
        worst = _row_dots(x_worst, r[None])[0]
    return x_best, x_worst, best, worst


def _row_dots(x: np.ndarray, per_unit: np.ndarray) -> np.ndarray:
    """``sum_i x[j, i] * per_unit[k, j, i]`` for every k and run j, shape (K, m), in one pass.

    The simulator's utilities and surpluses and :func:`regret_constants`' optima use this same
    arithmetic, so a policy that plays the optimum has a regret of exactly 0.
    """
    return np.einsum("ij,kij->ki", np.asarray(x, dtype=float), per_unit)


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
        import pandas as pd

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


#: The per-checkpoint curves :func:`simulate` records (the :class:`SimulationResult` fields).
_RECORDED = ("regret_mean", "regret_std", "regret_p05", "regret_p95", "regret_after_tau_mean",
             "regret_after_tau_std", "correct_fraction", "feasible_fraction", "utility_mean")


def simulate(policy: Policy | Sequence[Policy], environment: BernoulliEnvironment, horizon: int,
             epsilon: float, *, tau: int | None = None, exact: Solver | str = "dpss",
             checkpoints: Sequence[int] | None = None, keep_selections: bool = False,
             progress: bool = False, availability: float | Callable[[int], Any] | None = None,
             lead_time: int = 0, pool: Any = None, seed: Any = None) -> SimulationResult:
    """Play ``policy`` for ``horizon`` rounds and record regret and correctness (Deva et al., Section 4).

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
    availability : float or callable, optional
        Sleeping agents: each agent is available in a round with probability ``p``, or
        ``availability(t)`` gives round t's boolean mask, shape (n,) or (runs, n).
    lead_time : int, default 0
        Rounds between an order and its feedback (Joulani et al., ICML 2013).
    pool : array-like of bool, shape (T, n), or callable, optional
        Which agents are in the pool in each round (joins and leaves; see
        :func:`~subsel.bandits.world.arrival_schedule`), or ``pool(t)`` giving round t's mask.
    seed : int, SeedSequence, Generator or None
        Root of the availability draws (run ``j``: child ``j``).  With any of ``availability``,
        ``lead_time``, ``pool``, the policy plays in a :class:`~subsel.bandits.world.ChangingWorld`
        (batched policies only), and the regret of round t is measured against the best feasible
        selection among the agents present and available in round t.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ValueError
        The environment is not batched, run counts or costs differ, ``horizon < 1``; a changing
        world with single-run policies or bad settings.
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
    world = None
    if availability is not None or lead_time != 0 or pool is not None:
        if single:
            raise ValueError("availability, lead_time and pool need one batched policy")
        world = ChangingWorld(first, environment, T, availability, lead_time, pool, seed,
                              resolve_oracle(exact), alpha)
    if tau is None:
        tau = int(getattr(first, "tau", 0))
    q, r = environment.quality, environment.utility
    if world is not None:  # the world has solved the whole pool already: the same two solves
        optimum, L = world.full_opt, world.full_L
    else:
        optimum, L = regret_constants(q, environment.cost, alpha, environment.R, environment.capacity, exact)
    cps = default_checkpoints(T, tau) if checkpoints is None else np.unique(np.asarray(checkpoints, int))
    cps = cps[(cps >= 1) & (cps <= T)]
    K = cps.size
    rec = {k: np.zeros(K) for k in _RECORDED}
    per_unit = np.stack([np.broadcast_to(r, q.shape), q - (alpha - epsilon), q - alpha])  # (3, m, n)
    cum = np.zeros(m)
    cum_tau = np.zeros(m)
    correct_after = feasible_after = 0  # (run, round) pairs after tau
    selections = np.zeros((T, m, environment.n), dtype=np.int64) if keep_selections else None
    bar = None
    if progress:
        require("tqdm", extra="bandits", feature="the progress bar of simulate(progress=True)")
        from tqdm import tqdm
        bar = tqdm(total=T, unit="round", leave=False)
    ci = 0
    start = time.perf_counter()
    for t in range(1, T + 1):
        if world is not None:
            x, xf = world.round(t)
        else:
            opt_t, L_t = optimum, L
            if single:
                x = np.stack([p.select() for p in policies])
            else:
                x = first.select()
            good = environment._good(x)
            xf = x.astype(float)  # once: the counts and the dot products below read floats
            if single:
                for j, p in enumerate(policies):
                    p.update(x[j], good[j])
            else:
                first._tell(xf, good)
        if keep_selections:
            selections[t - 1] = x
        # utility and the two surpluses (surplus_ok, margins precomputed) in one pass over x
        util, surplus_c, surplus_f = _row_dots(xf, per_unit)
        correct = surplus_c >= -FEASIBILITY_TOL
        feasible = surplus_f >= -FEASIBILITY_TOL
        if world is not None:
            opt_t, L_t = world.references(correct)
        cum += np.where(correct, opt_t - util, L_t)
        if t == tau:
            cum_tau[:] = cum
        if t > tau:
            correct_after += np.count_nonzero(correct)
            feasible_after += np.count_nonzero(feasible)
        if ci < K and cps[ci] == t:
            after = cum - cum_tau if t > tau else np.zeros(m)
            p05, p95 = np.percentile(cum, [5, 95])
            for key, val in (("regret_mean", cum.mean()), ("regret_std", cum.std()),
                             ("regret_p05", p05), ("regret_p95", p95),
                             ("regret_after_tau_mean", after.mean()),
                             ("regret_after_tau_std", after.std()),
                             ("correct_fraction", correct.mean()),
                             ("feasible_fraction", feasible.mean()), ("utility_mean", util.mean())):
                rec[key][ci] = val
            ci += 1
        if bar is not None and (t % 1000 == 0 or t == T):
            bar.update(t - bar.n)
    wall = time.perf_counter() - start
    if bar is not None:
        bar.close()
    n_after = T - tau
    return SimulationResult(
        rounds=cps, **rec, tau=int(tau), horizon=T, runs=int(m), alpha=float(alpha), epsilon=float(epsilon),
        optimum=optimum, L=L,
        correct_fraction_after_tau=correct_after / (m * n_after) if n_after > 0 else float("nan"),
        feasible_fraction_after_tau=feasible_after / (m * n_after) if n_after > 0 else float("nan"),
        regret_at_T=float(cum.mean()), wall_time_s=wall, run_rounds_per_s=m * T / max(wall, 1e-12),
        selections=selections)

