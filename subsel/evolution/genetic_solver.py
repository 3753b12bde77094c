"""EMSCO's genetic engine as a heuristic :class:`~subsel.solvers.Solver` for the subset-selection ILP.

The genetic machinery of EMSCO (Hamilton and Fulp, IEEE CEC 2022, Section IV) (non-dominated
ranking, fitness ``gamma**rank * ||g||_2``,
roulette-wheel selection, elitism, crossover rate, termination — :class:`GeneticEngine`) does not
depend on classification.  Here it runs on *selection vectors*: gene ``i`` is the number of units
``x_i in [lb_i, ub_i]`` taken from agent ``i`` (Deva et al., AAMAS 2021, Section 3).  Two
objectives, both maximised: utility
``sum r_i x_i`` and constraint satisfaction ``1 / (1 + violation)`` (1 when the quality constraint
``sum (q_i - alpha) x_i >= 0`` holds).

Every solution is *repaired* after it is drawn or mutated (Lamarckian repair):

1. The partition of Deva et al. (AAMAS 2021, Section 5.1; :meth:`SubsetSelectionProblem.partition`)
   fixes what never needs searching: S1 agents take all their units, S4 agents (never worth
   taking) none — both moves can only raise utility and surplus;
2. while the quality surplus is negative, the cheapest quality is bought back greedily: remove S3
   units or add S2 units in increasing order of utility lost per unit of quality gained
   (``r_i / (alpha - q_i)`` for S3, ``r_j / (alpha - q_j)`` for S2 — GSS's ``a`` and ``b`` keys).

Repair succeeds whenever the instance is feasible (all S3 units at their lower bound and all S2
units at their upper bound give the largest surplus), so every member of the population is feasible;
should one not be (never, by construction), the objectives rank it below every feasible solution.
The solver returns the best feasible selection seen, with status ``feasible`` (``time_limit`` when
the time limit stopped it), never ``optimal``: it proves nothing.
"""
from __future__ import annotations

import time

import numpy as np

from .._random import as_generator, check_seed
from .._validation import check_scalar
from ..models import FEASIBILITY_TOL, SubsetSelectionProblem
from ..solvers import RawResult, Solver, Status
from .engine import EvolutionProblem, GeneticEngine

__all__ = ["EMSCOSolver", "SelectionVectorProblem"]


class SelectionVectorProblem(EvolutionProblem):
    """The subset-selection ILP (Deva et al., AAMAS 2021, Section 3) as an
    :class:`EvolutionProblem` on selection vectors.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        Uses quality, cost, alpha, R, capacities and the must-take / must-not-take lists.
    mutation_rate : float, optional
        Per-gene rate in [0, 1]; default ``1 / n`` (one gene mutated on average).

    Attributes
    ----------
    best_x : ndarray of int64, shape (n,) or None
        Best feasible selection evaluated so far (highest utility; first seen on ties).
    best_utility : float
    lb, ub : ndarray of int64, shape (n,)
        Bounds on the genes (``problem.lower_bounds()``, ``problem.upper_bounds()``).

    Raises
    ------
    ValueError
        ``mutation_rate`` outside [0, 1].
    """

    objective_names = ("utility", "satisfaction")

    def __init__(self, problem: SubsetSelectionProblem, mutation_rate: float | None = None):
        self.problem = problem
        n = problem.n
        rate = 1.0 / n if mutation_rate is None else check_scalar(mutation_rate, "mutation_rate", min_val=0, max_val=1)
        self.mutation_rate = rate
        self.lb, self.ub = problem.lower_bounds(), problem.upper_bounds()
        self.r = np.asarray(problem.utility, dtype=float)
        self.margin = np.asarray(problem.quality_margin, dtype=float)
        S1, S2, S3, S4 = problem.partition()
        self.fixed_hi, self.fixed_lo = S1, S4
        self.S2, self.S3 = S2, S3
        # Repair candidates: S3 units removed (quality gained alpha - q) and S2 units added (q - alpha),
        # by utility lost per quality gained, increasing (ties: S3 first, then index).
        # A margin near the smallest float (a quality of 5e-324 at alpha 0) overflows the ratio to
        # inf: the agent then ranks last, as its unbounded ratio does.
        with np.errstate(over="ignore"):
            key = np.concatenate([self.r[S3] / -self.margin[S3], -self.r[S2] / self.margin[S2]])
        agents = np.concatenate([S3, S2])
        kind = np.concatenate([np.zeros(S3.size, np.int64), np.ones(S2.size, np.int64)])
        order = np.lexsort((agents, kind, key))
        self._rep_agents, self._rep_kind = agents[order], kind[order]
        self._rep_gain = np.abs(self.margin[self._rep_agents])
        self.best_x: np.ndarray | None = None
        self.best_utility = -np.inf

    # -- encoding -------------------------------------------------------------------------------
    def repair(self, x: np.ndarray) -> np.ndarray:
        """Fix S1 / S4, then restore the quality constraint greedily (see the module docstring).

        Parameters
        ----------
        x : ndarray of int, shape (n,)
            Within the bounds; not modified.

        Returns
        -------
        ndarray of int64, shape (n,)
            Feasible whenever the instance is.
        """
        x = np.array(x, dtype=np.int64, copy=True)
        x[self.fixed_hi] = self.ub[self.fixed_hi]
        x[self.fixed_lo] = self.lb[self.fixed_lo]
        deficit = -float(x @ self.margin)
        if deficit <= 0.0:
            return x
        a = self._rep_agents
        room = np.where(self._rep_kind == 0, x[a] - self.lb[a], self.ub[a] - x[a]).astype(float)
        gain = room * self._rep_gain
        cum = np.cumsum(gain)
        k = int(np.searchsorted(cum, deficit, side="left"))
        take = room.copy()
        if k < a.size:
            take[k + 1:] = 0.0
            before = cum[k - 1] if k else 0.0
            take[k] = min(room[k], np.ceil((deficit - before) / self._rep_gain[k] - 1e-12))
        step = np.where(self._rep_kind == 0, -take, take).astype(np.int64)
        np.add.at(x, a, step)
        # Float noise in the cumulative sums: buy one more unit while still short.
        while float(x @ self.margin) < -FEASIBILITY_TOL:
            room = np.where(self._rep_kind == 0, x[a] - self.lb[a], self.ub[a] - x[a])
            nxt = np.flatnonzero(room > 0)
            if nxt.size == 0:
                break
            j = nxt[0]
            x[a[j]] += -1 if self._rep_kind[j] == 0 else 1
        return x

    def random_solution(self, rng: np.random.Generator) -> np.ndarray:
        """Each free unit taken with a probability ``p ~ U(0, 1)`` drawn per solution, then repaired."""
        p = rng.random()
        x = self.lb + rng.binomial(self.ub - self.lb, p)
        return self.repair(x)

    def crossover(self, parent_a, parent_b, rng):
        """Uniform crossover: each gene from either parent by a fair coin, then repaired."""
        a, b = np.asarray(parent_a), np.asarray(parent_b)
        return self.repair(np.where(rng.random(a.size) < 0.5, a, b))

    def mutate(self, solution, rng):
        """Each gene, with probability ``mutation_rate``, moves to another value of ``[lb, ub]``
        (uniformly; a flip for 0/1 genes); then repaired."""
        x = np.array(solution, dtype=np.int64, copy=True)
        span = self.ub - self.lb
        hit = (rng.random(x.size) < self.mutation_rate) & (span > 0)
        if hit.any():
            shift = rng.integers(1, span[hit] + 1)
            x[hit] = self.lb[hit] + (x[hit] - self.lb[hit] + shift) % (span[hit] + 1)
        return self.repair(x)

    # -- objectives -----------------------------------------------------------------------------
    def evaluate(self, batch):
        """Raw objectives ``(utility, satisfaction)`` per solution, shape ``(len(batch), 2)``."""
        X = np.asarray(batch, dtype=float).reshape(len(batch), -1)
        u = X @ self.r
        violation = np.maximum(0.0, -(X @ self.margin))
        feasible = violation <= FEASIBILITY_TOL
        sat = np.where(feasible, 1.0, 1.0 / (1.0 + violation))
        if feasible.any():
            j = int(np.flatnonzero(feasible)[np.argmax(u[feasible])])
            if u[j] > self.best_utility + 1e-12:
                self.best_utility = float(u[j])
                self.best_x = np.asarray(batch[j], dtype=np.int64).copy()
        return np.column_stack([u, sat])

    def normalize(self, raw):
        """Scaled objectives in [0, 1] where every feasible solution dominates every infeasible one.

        Feasible rows: utility scaled to [0.5, 1] over the feasible rows, satisfaction 1.
        Infeasible rows: utility scaled to [0, 0.5) over the infeasible rows, satisfaction
        ``1 / (1 + violation) < 1``.
        """
        raw = np.asarray(raw, dtype=float)
        u, sat = raw[:, 0], raw[:, 1]
        feasible = sat >= 1.0
        g = np.empty_like(u)
        for mask, lo, width in ((feasible, 0.5, 0.5), (~feasible, 0.0, 0.499)):
            if mask.any():
                v = u[mask]
                span = v.max() - v.min()
                g[mask] = lo + width * ((v - v.min()) / span if span > 0 else np.ones_like(v))
        return np.column_stack([g, np.where(feasible, 1.0, sat)])


class EMSCOSolver(Solver):
    """EMSCO's genetic engine on selection vectors: a seeded heuristic Solver (Hamilton and Fulp,
    IEEE CEC 2022, Section IV).

    The same :class:`~subsel.evolution.engine.GeneticEngine` that designs EMSCO's classifiers
    (Hamilton & Fulp 2022, Alg. 2: ranking, fitness, roulette wheel, elitism) evolves selection
    vectors of :class:`SelectionVectorProblem` (repaired, so feasible).  It stops after
    ``max_iter`` generations, after ``patience`` generations without a better utility, or at
    ``time_limit_s`` (checked after every generation), and returns the best feasible selection
    seen.  Status ``feasible`` (``time_limit`` when the limit stopped it; ``infeasible`` only when
    the must-take units alone cannot meet the threshold, which is then proven).

    Parameters
    ----------
    time_limit_s : float or None
        Wall-clock limit (seconds).
    threads, verbose
        Accepted for interface compatibility (the engine is single-threaded and silent).
    seed : int, numpy.random.Generator or None, default 0
        Seeds every solve: an int gives the same answer on the same problem every call.
    population_size : int, default 100
    max_iter : int, default 300
        Generations.
    patience : int or None, default 60
        Stop after this many generations without improvement (None: never).
    mutation_rate : float, optional
        Per gene; default ``1/n``.
    crossover_rate : float, default 0.8
    elite_fraction : float, default 0.2

    Raises
    ------
    ValueError
        A parameter outside its range (from the engine), ``patience < 1``, a negative ``seed``.
    TypeError
        ``seed`` neither an integer, a ``numpy.random.Generator`` nor None.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, get_solver
    >>> p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.2], cost=[0.1, 0.1, 0.1], alpha=0.7)
    >>> get_solver("emsco", seed=0).solve(p).x.tolist()
    [1, 1, 0]
    """

    name = "emsco"
    exact = False
    supports = frozenset({"must_take", "must_not_take"})
    complexity = "O(population · generations · n) genetic search (EMSCO engine, repaired)"

    def __init__(self, time_limit_s: float | None = None, threads: int | None = None,
                 verbose: bool = False, seed: int | np.random.Generator | None = 0,
                 population_size: int = 100, max_iter: int = 300, patience: int | None = 60,
                 mutation_rate: float | None = None, crossover_rate: float = 0.8,
                 elite_fraction: float = 0.2):
        super().__init__(time_limit_s=time_limit_s, threads=threads, verbose=verbose)
        if patience is not None:
            check_scalar(patience, "patience", int, min_val=1)
        if mutation_rate is not None:
            check_scalar(mutation_rate, "mutation_rate", min_val=0, max_val=1)
        GeneticEngine(population_size, max_iter, crossover_rate, elite_fraction)  # validates
        check_seed(seed)
        self.seed = seed
        self.population_size = population_size
        self.max_iter = max_iter
        self.patience = patience
        self.mutation_rate = mutation_rate
        self.crossover_rate = crossover_rate
        self.elite_fraction = elite_fraction
        self.generations_run = 0

    def _rng(self) -> np.random.Generator:
        return as_generator(self.seed)

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        lb, ub = problem.lower_bounds(), problem.upper_bounds()
        margin = np.asarray(problem.quality_margin)
        best_surplus = float(np.where(margin > 0, ub, lb) @ margin)
        if best_surplus < -FEASIBILITY_TOL:
            return RawResult(None, Status.INFEASIBLE)
        evo = SelectionVectorProblem(problem, self.mutation_rate)
        start = time.perf_counter()
        state = {"best": -np.inf, "since": 0, "timed_out": False, "gens": 0}

        def callback(gen: int, row: dict) -> bool:
            state["gens"] = gen
            if evo.best_utility > state["best"] + 1e-12:
                state["best"], state["since"] = evo.best_utility, 0
            else:
                state["since"] += 1
            if self.time_limit_s is not None and time.perf_counter() - start >= self.time_limit_s:
                state["timed_out"] = gen < self.max_iter
                return True
            return self.patience is not None and state["since"] >= self.patience

        engine = GeneticEngine(self.population_size, self.max_iter, self.crossover_rate,
                               self.elite_fraction, callback=callback)
        engine.run(evo, self._rng())
        self.generations_run = state["gens"]
        if evo.best_x is None:  # cannot happen: repair makes every solution of a feasible instance feasible
            return RawResult(None, Status.ERROR)
        return RawResult(evo.best_x, Status.TIME_LIMIT if state["timed_out"] else Status.FEASIBLE)
