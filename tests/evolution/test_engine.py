"""The genetic engine on a toy problem (independent of classification)."""
from __future__ import annotations

import numpy as np
import pytest

from subsel.evolution import EvolutionProblem, GeneticEngine, StageAssignmentProblem
from subsel.evolution import operators as ops


class OneMax(EvolutionProblem):
    """Bit vectors; objectives (share of ones, share of ones in the first half): optimum all ones."""

    objective_names = ("ones", "front_ones")

    def __init__(self, n=12):
        self.n = n
        self.calls = 0

    def random_solution(self, rng):
        return (rng.random(self.n) < 0.2).astype(np.int64)

    def crossover(self, a, b, rng):
        return np.where(rng.random(self.n) < 0.5, a, b)

    def mutate(self, x, rng):
        flip = rng.random(self.n) < 1.0 / self.n
        return np.where(flip, 1 - x, x)

    def evaluate(self, batch):
        self.calls += len(batch)
        X = np.array(batch)
        return np.c_[X.mean(axis=1), X[:, : self.n // 2].mean(axis=1)]


def test_engine_solves_onemax_and_records_history():
    problem = OneMax()
    res = GeneticEngine(population_size=30, max_iter=40).run(problem, np.random.default_rng(1))
    assert res.best.tolist() == [1] * problem.n
    h = res.history
    assert len(h) == 41 and h["generation"].tolist() == list(range(41))
    assert set(["front_size", "best_ones", "best_front_ones", "evaluations", "cache_hits"]) <= set(h)
    assert h["evaluations"].sum() == res.evaluations == problem.calls
    assert h["cache_hits"].sum() == res.cache_hits
    assert h["evaluations"][0] + h["cache_hits"][0] == 30        # the initial population
    assert res.cache_hits > 0


def test_engine_same_seed_same_run():
    a = GeneticEngine(20, 10).run(OneMax(), np.random.default_rng(5))
    b = GeneticEngine(20, 10).run(OneMax(), np.random.default_rng(5))
    assert np.array_equal(a.best, b.best)
    assert all(np.array_equal(x, y) for x, y in zip(a.population, b.population))
    assert a.history.drop(columns=[]).equals(b.history)


def test_engine_requires_a_generator():
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        GeneticEngine(4, 1).run(OneMax(), 3)


@pytest.mark.parametrize("kwargs,match", [
    ({"population_size": 1}, "population_size"),
    ({"max_iter": -1}, "max_iter"),
    ({"crossover_rate": 1.5}, "crossover_rate"),
    ({"elite_fraction": -0.1}, "elite_fraction"),
    ({"epsilon": 0.0}, "epsilon"),
])
def test_engine_parameter_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GeneticEngine(**kwargs)


class FewStages(StageAssignmentProblem):
    """Stage encoding; objectives favour exactly 3 stages and feature 0 alone in stage 0."""

    objective_names = ("a", "b")

    def evaluate(self, batch):
        out = []
        for g in batch:
            s = ops.n_stages(g)
            out.append([1.0 / (1 + abs(s - 3)), 1.0 if self.stages(g)[0] == [0] else 0.1])
        return np.array(out)


def test_stage_encoding_reaches_a_known_target():
    problem = FewStages(n_features=6, max_stages=4, mutation_rate=0.15, beta=2.0)
    res = GeneticEngine(40, 40).run(problem, np.random.default_rng(0))
    assert ops.n_stages(res.best) == 3
    assert problem.stages(res.best)[0] == [0]
    for x in res.population:
        assert np.array_equal(x, ops.realign(x)) and ops.n_stages(x) <= 4


@pytest.mark.parametrize("kwargs,match", [
    ({"n_features": 0}, "n_features"), ({"max_stages": 0}, "max_stages"),
    ({"mutation_rate": 2.0}, "mutation_rate"), ({"beta": 0.0}, "beta")])
def test_stage_problem_parameter_errors(kwargs, match):
    base = dict(n_features=3, max_stages=2, mutation_rate=0.1, beta=2.0)
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        FewStages(**base)
