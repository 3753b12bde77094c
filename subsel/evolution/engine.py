"""EMSCO's genetic engine, independent of classification (Hamilton and Fulp, IEEE CEC 2022, Section IV).

Pymoo-style split: a *problem* object owns the encoding (random solution, crossover,
mutation) and the evaluation hook; the :class:`GeneticEngine` owns the loop (ranking, fitness,
roulette-wheel selection, elitism, crossover rate, termination) and records the history.  The
stage-assignment encoding of EMSCO is the default (:class:`StageAssignmentProblem`); another
encoding (e.g. selection vectors of the subset-selection ILP) subclasses :class:`EvolutionProblem`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import numpy as np
import pandas as pd

from .._validation import check_scalar
from . import operators as ops

__all__ = ["EvolutionProblem", "EvolutionResult", "GeneticEngine", "StageAssignmentProblem"]


class EvolutionProblem:
    """What the engine needs from a problem; subclass and implement the hooks.

    Attributes
    ----------
    objective_names : tuple of str
        Names of the raw objective columns returned by :meth:`evaluate` (all maximised after
        :meth:`normalize`).
    """

    objective_names: tuple[str, ...] = ()

    def random_solution(self, rng: np.random.Generator) -> np.ndarray:
        """A random member of the initial population."""
        raise NotImplementedError

    def crossover(self, parent_a: np.ndarray, parent_b: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        """Recombine two parents into one child (the engine applies the crossover rate)."""
        raise NotImplementedError

    def mutate(self, solution: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A mutated copy of ``solution`` (the per-gene rate belongs to the encoding)."""
        raise NotImplementedError

    def evaluate(self, batch: list[np.ndarray]) -> np.ndarray:
        """Raw objectives of each solution, shape ``(len(batch), n_objectives)``.

        Must depend only on the solution (the engine caches rows by :meth:`key`).
        """
        raise NotImplementedError

    def normalize(self, raw: np.ndarray) -> np.ndarray:
        """Population-level objectives used for ranking and fitness (default: ``raw``).

        Parameters
        ----------
        raw : ndarray, shape (population_size, n_objectives)

        Returns
        -------
        ndarray, shape (population_size, n_objectives)
            Non-negative, maximised.
        """
        return raw

    def key(self, solution: np.ndarray) -> Hashable:
        """Identity of a solution for uniqueness and caching (default: its bytes)."""
        return np.ascontiguousarray(solution).tobytes()

    def complexity(self, solution: np.ndarray) -> float:
        """Tie-break among equal fitness: lower is preferred (default 0)."""
        return 0.0

    def stats(self) -> dict[str, float]:
        """Cumulative problem-side counters recorded in the history (default none)."""
        return {}


class StageAssignmentProblem(EvolutionProblem):
    """EMSCO's stage-assignment encoding; :meth:`evaluate` is left to subclasses.

    Gene ``i`` is the stage of feature ``i``; stages are consecutive and non-empty.

    Parameters
    ----------
    n_features : int
        ``n >= 1``.
    max_stages : int
        Maximum stage count ``k >= 1``.
    mutation_rate : float
        ``m̂`` in [0, 1], per gene.
    beta : float
        Beta-binomial bias ``beta > 0`` of the mutation.

    Raises
    ------
    ValueError
        A parameter outside its range.
    """

    def __init__(self, n_features: int, max_stages: int, mutation_rate: float, beta: float):
        if int(n_features) < 1:
            raise ValueError(f"n_features must be >= 1; got {n_features!r}")
        if int(max_stages) < 1:
            raise ValueError(f"max_stages must be >= 1; got {max_stages!r}")
        check_scalar(mutation_rate, "mutation_rate", min_val=0, max_val=1)
        if not float(beta) > 0.0:
            raise ValueError(f"beta must be > 0; got {beta!r}")
        self.n_features = int(n_features)
        self.max_stages = int(max_stages)
        self.mutation_rate = float(mutation_rate)
        self.beta = float(beta)

    def random_solution(self, rng: np.random.Generator) -> np.ndarray:
        return ops.random_stage_assignment(self.n_features, self.max_stages, rng)

    def crossover(self, parent_a, parent_b, rng):
        return ops.context_crossover(parent_a, parent_b, rng)

    def mutate(self, solution, rng):
        return ops.stage_mutation(solution, self.mutation_rate, self.beta, self.max_stages, rng)

    def complexity(self, solution) -> float:
        return float(ops.n_stages(solution))

    @staticmethod
    def stages(solution: np.ndarray) -> list[list[int]]:
        """The stage lists of an aligned assignment: ``stages[m]`` = features of stage ``m``."""
        solution = np.asarray(solution)
        return [np.flatnonzero(solution == m).tolist() for m in range(ops.n_stages(solution))]


@dataclass
class EvolutionResult:
    """Outcome of :meth:`GeneticEngine.run` (pymoo-style result object).

    Attributes
    ----------
    best : ndarray, shape (n_var,)
        Highest-fitness solution of the last generation (ties: lower complexity, e.g. fewer stages).
    best_objectives : ndarray, shape (n_objectives,)
        Its raw objectives.
    population : list of ndarray
        The last generation.
    raw_objectives, objectives : ndarray, shape (population_size, n_objectives)
        Raw (from ``evaluate``) and normalised (from ``normalize``) objectives of the last generation.
    front : ndarray of int64, shape (population_size,)
        Front index (0 = first front) in the last generation.
    log_fitness : ndarray, shape (population_size,)
    history : pandas.DataFrame
        One row per generation ``0..max_iter``: ``generation, front_size`` (unique solutions in the
        first front), ``best_<objective>`` (raw objectives of the best-fitness solution),
        ``evaluations`` and ``cache_hits`` (solutions evaluated / served from the engine's cache to
        build that generation; generation 0 is the initial population), plus the problem's cumulative
        :meth:`EvolutionProblem.stats`.
    evaluations, cache_hits : int
        Totals over the run.
    wall_time_s : float
    """

    best: np.ndarray
    best_objectives: np.ndarray
    population: list
    raw_objectives: np.ndarray
    objectives: np.ndarray
    front: np.ndarray
    log_fitness: np.ndarray
    history: pd.DataFrame
    evaluations: int
    cache_hits: int
    wall_time_s: float
    extra: dict = field(default_factory=dict)

    def pareto_indices(self, keys: list | None = None) -> np.ndarray:
        """Indices of the unique solutions of the last generation's first front."""
        seen: dict = {}
        for i in np.flatnonzero(self.front == 0):
            k = np.ascontiguousarray(self.population[i]).tobytes() if keys is None else keys[i]
            seen.setdefault(k, int(i))
        return np.fromiter(seen.values(), dtype=np.int64, count=len(seen))


class GeneticEngine:
    """EMSCO's generational loop (Hamilton and Fulp 2022, Section IV).

    Each generation: normalise objectives over the population, non-dominated sorting (first front
    ranked highest), fitness ``gamma**rank * ||g||_2``, keep the top ``M`` unique solutions
    (elitism), and fill the rest with children: two parents by roulette wheel, recombined with
    probability ``crossover_rate`` (else a fair coin copies one), then mutated.  Stops after
    ``max_iter`` generations; the result is the highest-fitness solution of the last generation.

    Parameters
    ----------
    population_size : int, default 300
        ``|G| >= 2``.
    max_iter : int, default 150
        Generations after the initial one, ``>= 0``.
    crossover_rate : float, default 0.8
        ``r̂`` in [0, 1].
    elite_fraction : float, default 0.2
        ``b`` in [0, 1].
    epsilon : float, default 0.01
        The ``epsilon > 0`` of ``gamma``.
    callback : callable, optional
        Called as ``callback(generation, history_row)`` after each generation; returning ``True``
        stops the run there (e.g. a time limit), the result is then that generation's.

    Raises
    ------
    ValueError
        A parameter outside its range.
    """

    def __init__(self, population_size: int = 300, max_iter: int = 150, crossover_rate: float = 0.8,
                 elite_fraction: float = 0.2, epsilon: float = 0.01,
                 callback: Callable[[int, dict], Any] | None = None):
        if isinstance(population_size, bool) or int(population_size) != population_size \
                or population_size < 2:
            raise ValueError(f"population_size must be an integer >= 2; got {population_size!r}")
        if isinstance(max_iter, bool) or int(max_iter) != max_iter or max_iter < 0:
            raise ValueError(f"max_iter must be an integer >= 0; got {max_iter!r}")
        check_scalar(crossover_rate, "crossover_rate", min_val=0, max_val=1)
        check_scalar(elite_fraction, "elite_fraction", min_val=0, max_val=1)
        if not float(epsilon) > 0.0:
            raise ValueError(f"epsilon must be > 0; got {epsilon!r}")
        self.population_size = int(population_size)
        self.max_iter = int(max_iter)
        self.crossover_rate = float(crossover_rate)
        self.elite_fraction = float(elite_fraction)
        self.epsilon = float(epsilon)
        self.callback = callback

    def run(self, problem: EvolutionProblem, rng: np.random.Generator,
            initial: list[np.ndarray] | None = None) -> EvolutionResult:
        """Evolve ``problem`` from a random population.

        Parameters
        ----------
        problem : EvolutionProblem
        rng : numpy.random.Generator
            The only source of randomness of the run.
        initial : list of ndarray, optional
            Solutions placed first in the initial population (e.g. seeds from another method; at
            most ``population_size`` are used); the rest is drawn by ``problem.random_solution``.

        Returns
        -------
        EvolutionResult
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        start = time.perf_counter()
        memo: dict[Hashable, np.ndarray] = {}
        counters = {"evaluations": 0, "cache_hits": 0}

        def evaluate(batch: list[np.ndarray]) -> np.ndarray:
            keys = [problem.key(x) for x in batch]
            todo: dict[Hashable, int] = {}
            for k, i in zip(keys, range(len(batch))):
                if k not in memo and k not in todo:
                    todo[k] = i
            if todo:
                rows = np.asarray(problem.evaluate([batch[i] for i in todo.values()]), dtype=float)
                for k, row in zip(todo, rows):
                    memo[k] = row
            counters["evaluations"] += len(todo)
            counters["cache_hits"] += len(batch) - len(todo)
            return np.array([memo[k] for k in keys], dtype=float)

        N = self.population_size
        pop = [np.array(x, copy=True) for x in (initial or [])][:N]
        pop += [np.asarray(problem.random_solution(rng)) for _ in range(N - len(pop))]
        raw = evaluate(pop)
        names = tuple(problem.objective_names) or tuple(f"f{j}" for j in range(raw.shape[1]))
        history: list[dict] = []
        prev = {"evaluations": 0, "cache_hits": 0}
        for gen in range(self.max_iter + 1):
            F = np.asarray(problem.normalize(raw), dtype=float)
            front = ops.nondominated_sort(F)
            logf = ops.log_fitness(F, ops.front_ranks(front), self.epsilon)
            keys = [problem.key(x) for x in pop]
            complexity = np.array([problem.complexity(x) for x in pop], dtype=float)
            best = int(np.lexsort((np.arange(N), complexity, -logf))[0])
            row = {"generation": gen,
                   "front_size": len({keys[i] for i in np.flatnonzero(front == 0)})}
            row.update({f"best_{n}": float(v) for n, v in zip(names, raw[best])})
            row["evaluations"] = counters["evaluations"] - prev["evaluations"]
            row["cache_hits"] = counters["cache_hits"] - prev["cache_hits"]
            row.update(problem.stats())
            history.append(row)
            stop = self.callback is not None and self.callback(gen, row) is True
            if stop or gen == self.max_iter:
                break
            prev = dict(counters)
            elite = ops.elite_indices(keys, logf, front, self.elite_fraction, complexity)
            n_children = N - elite.size
            parents = ops.roulette_wheel(logf, 2 * n_children, rng)
            children = []
            for j in range(n_children):
                pa, pb = pop[parents[2 * j]], pop[parents[2 * j + 1]]
                if rng.random() < self.crossover_rate:
                    child = problem.crossover(pa, pb, rng)
                else:
                    child = np.array(pa if rng.random() < 0.5 else pb, copy=True)
                children.append(np.asarray(problem.mutate(child, rng)))
            pop = [pop[i] for i in elite] + children
            raw = np.vstack([raw[elite], evaluate(children)]) if children else raw[elite]
        return EvolutionResult(
            best=pop[best].copy(), best_objectives=raw[best].copy(), population=pop,
            raw_objectives=raw, objectives=F, front=front, log_fitness=logf,
            history=pd.DataFrame(history), evaluations=counters["evaluations"],
            cache_hits=counters["cache_hits"], wall_time_s=time.perf_counter() - start)
