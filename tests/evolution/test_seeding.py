"""Feature subsets from the subset-selection ILP for EMSCO's initial population."""
import numpy as np
import pytest

from subsel import SubsetSelectionProblem
from subsel.evolution.seeding import feature_quality, ilp_feature_subsets, seed_chromosomes
from tests.strategies import brute_force


def test_feature_quality_rescales_above_chance():
    q = feature_quality([0.5, 0.75, 1.0, 0.4], 2)
    assert q.tolist() == [0.0, 0.5, 1.0, 0.0]
    assert feature_quality([0.5], 3)[0] == pytest.approx(0.25)  # (0.5 - 1/3) / (2/3)


@pytest.mark.parametrize("args, message", [
    (([0.5], 1), "n_classes must be >= 2; got 1"),
    (([0.5, 1.2], 2), r"accuracy\[1\] must be in \[0, 1\]; got 1.2"),
])
def test_feature_quality_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        feature_quality(*args)


def test_every_subset_is_the_ilp_optimum_of_its_alpha_and_r():
    rng = np.random.default_rng(4)
    q, costs = rng.random(8), rng.integers(1, 10, size=8).astype(float)
    subsets = ilp_feature_subsets(q, costs, solver="dpss")
    assert subsets, "the grid should choose at least one subset"
    assert [s["cost"] for s in subsets] == sorted(s["cost"] for s in subsets)
    for s in subsets:
        p = SubsetSelectionProblem(quality=q, cost=costs / costs.max(), alpha=s["alpha"], R=s["R"])
        x = np.zeros(8, dtype=int)
        x[s["features"]] = 1
        assert p.evaluate(x).utility == pytest.approx(brute_force(p)[0], abs=1e-9)
        assert s["cost"] == pytest.approx(costs[s["features"]].sum())


def test_ilp_feature_subsets_bad_input():
    with pytest.raises(ValueError, match="same length"):
        ilp_feature_subsets([0.5, 0.6], [1.0])
    with pytest.raises(ValueError, match=r"costs\[1\] must be >= 0"):
        ilp_feature_subsets([0.5, 0.6], [1.0, -1.0])
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        ilp_feature_subsets([0.5, 0.6], [1.0, 1.0], solver="nope")


def test_seed_chromosomes_put_the_subset_first():
    out = seed_chromosomes([{"features": [1, 3]}, {"features": [0, 1, 2, 3]}], 4, 2)
    assert out[0].tolist() == [1, 0, 1, 0]
    assert out[1].tolist() == [0, 0, 0, 0]       # every feature: one stage
    assert seed_chromosomes([{"features": [1]}], 3, 1)[0].tolist() == [0, 0, 0]


def test_engine_keeps_initial_solutions():
    from subsel.evolution.engine import GeneticEngine
    from subsel.evolution.genetic_solver import SelectionVectorProblem

    p = SubsetSelectionProblem.random(10, 0.7, rng=0)
    evo = SelectionVectorProblem(p)
    seed = evo.repair(np.ones(10, dtype=np.int64))
    res = GeneticEngine(4, 0).run(evo, np.random.default_rng(0), initial=[seed])
    assert np.array_equal(res.population[0], seed)
