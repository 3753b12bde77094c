"""pymoo's NSGA-II on EMSCO's encoding: the multi-objective baseline of the EMSCO experiments.

Deb, Pratap, Agarwal, Meyarivan, "A fast and elitist multiobjective genetic algorithm: NSGA-II",
IEEE Trans. Evolutionary Computation 6(2), 2002, as implemented by pymoo, run on the problem of
Hamilton & Fulp, *Budgeted Classification with Rejection: An Evolutionary Method with Multiple
Objectives* (IEEE CEC 2022): the same stage-assignment encoding, crossover, mutation and
objectives as EMSCO, so that only the selection scheme differs.  The problem's own operators are
plugged into pymoo as its sampling, crossover and mutation; pymoo minimises, so ``g1`` and ``g2``
are negated and the raw mean cost ``g3*`` is minimised as it is.

pymoo is an optional dependency (``pip install "subsel[experiments]"``).
"""
from __future__ import annotations

import numpy as np

from . import operators as ops

__all__ = ["pymoo_problem", "run_nsga2"]


def pymoo_problem(problem, crossover_rate: float):
    """pymoo's problem, sampling, crossover and mutation objects for a stage-assignment problem.

    Parameters
    ----------
    problem : StageAssignmentProblem
        With ``n_features``, ``max_stages``, ``random_solution``, ``crossover``, ``mutate`` and
        ``evaluate`` returning raw ``(g1, g2, g3*)``
        (e.g. :class:`~subsel.evolution.staged.StagedClassificationProblem`).
    crossover_rate : float
        Probability in [0, 1] that a pair of parents is recombined.

    Returns
    -------
    (pymoo Problem, Sampling, Crossover, Mutation)
        Genes handed to ``evaluate`` are realigned (stages consecutive from 0) first.

    Raises
    ------
    ImportError
        pymoo is not installed (the message names the extra to install).
    """
    from .._extras import require

    require("pymoo", extra="experiments", feature="the NSGA-II baseline")
    from pymoo.core.crossover import Crossover
    from pymoo.core.mutation import Mutation
    from pymoo.core.problem import Problem
    from pymoo.core.sampling import Sampling

    evo = problem

    class _Problem(Problem):
        def __init__(self):
            super().__init__(n_var=evo.n_features, n_obj=3, xl=0, xu=evo.max_stages - 1, vtype=int)

        def _evaluate(self, X, out, *args, **kwargs):
            G = evo.evaluate([ops.realign(np.asarray(x, dtype=np.int64)) for x in X])
            out["F"] = np.column_stack([-G[:, 0], -G[:, 1], G[:, 2]])

    class _Sampling(Sampling):
        def _do(self, p, n_samples, *args, random_state=None, **kwargs):
            return np.array([evo.random_solution(random_state) for _ in range(n_samples)])

    class _Crossover(Crossover):
        def __init__(self):
            super().__init__(2, 1, prob=crossover_rate)

        def _do(self, p, X, *args, random_state=None, **kwargs):
            kids = [evo.crossover(a, b, random_state) for a, b in zip(X[0], X[1])]
            return np.array(kids)[None, :, :]

    class _Mutation(Mutation):
        def _do(self, p, X, *args, random_state=None, **kwargs):
            return np.array([evo.mutate(np.asarray(x, dtype=np.int64), random_state) for x in X])

    return _Problem(), _Sampling(), _Crossover(), _Mutation()


def run_nsga2(problem, population_size: int, n_eval: int, crossover_rate: float, seed: int):
    """Run NSGA-II for ``n_eval`` evaluations; return the max-``||g||_2`` member of its final front.

    Parameters
    ----------
    problem : StageAssignmentProblem
        As for :func:`pymoo_problem`; its ``normalize`` turns raw objectives into EMSCO's
        ``(g1, g2, g3)`` over the front.
    population_size : int
        NSGA-II's population (duplicates eliminated).
    n_eval : int
        Objective evaluations (pymoo may overshoot by less than one population).
    crossover_rate : float
    seed : int
        pymoo's seed (the run is deterministic for a seed).

    Returns
    -------
    genes : ndarray of int64, shape (n_features,)
        The chosen solution, realigned; ties in ``||g||_2`` go to fewer stages.
    objectives : ndarray of float, shape (3,)
        Its raw ``(g1, g2, g3*)``.
    evaluations : int
        Evaluations pymoo made.

    Raises
    ------
    ImportError
        pymoo is not installed.
    """
    from .._extras import require

    require("pymoo", extra="experiments", feature="the NSGA-II baseline")
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.optimize import minimize

    pm_problem, sampling, crossover, mutation = pymoo_problem(problem, crossover_rate)
    algorithm = NSGA2(pop_size=population_size, sampling=sampling, crossover=crossover,
                      mutation=mutation, eliminate_duplicates=True)
    res = minimize(pm_problem, algorithm, ("n_eval", int(n_eval)), seed=int(seed), verbose=False)
    X = np.atleast_2d(res.X).astype(np.int64)
    F = np.atleast_2d(res.F)
    g = np.column_stack([-F[:, 0], -F[:, 1], F[:, 2]])
    E = np.linalg.norm(problem.normalize(g), axis=1)
    stages = np.array([ops.n_stages(ops.realign(x)) for x in X])
    best = int(np.lexsort((stages, -E))[0])
    return ops.realign(X[best]), g[best], int(res.algorithm.evaluator.n_eval)
