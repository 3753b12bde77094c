"""The produce-cooperative generator (subsel.models.planner_instance) and its greedy witness."""
import numpy as np
import pytest

from subsel.models import (
    PLANNER_LOT_SIZES,
    PLANNER_REGIONS,
    group_limits_csv_text,
    planner_instance,
    planner_plan,
    read_group_limits,
)
from subsel.solvers import available_solvers, get_solver


@pytest.mark.parametrize("n", [1, 3, 12, 200, 3000])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_greedy_plan_is_feasible_and_the_demand_and_budget_fit_it(n, seed):
    p = planner_instance(n, seed)
    x = planner_plan(p)
    if p.demand is None:  # a handful of agents, none of quality alpha
        assert p.budget is None and not x.any() and n < 50
    else:
        ev = p.evaluate(x)
        assert ev.feasible, ev.violations
        assert ev.units >= p.demand
        spend = float(p.cost @ x + p.fixed_cost[x > 0].sum())
        assert spend <= p.budget <= spend * 1.05 + 0.011


def test_the_fields_follow_their_laws():
    n = 4000
    p = planner_instance(n, 7)
    assert set(p.group) == set(PLANNER_REGIONS[:10])
    assert set(np.unique(p.lot_size)) == set(PLANNER_LOT_SIZES)
    lots = p.min_units // p.lot_size
    assert (p.min_units % p.lot_size == 0).all() and lots.min() == 1 and lots.max() == 10
    assert (p.capacity % p.lot_size == 0).all() and (p.capacity >= p.min_units).all()
    assert (p.fixed_cost >= 20).all() and (p.fixed_cost <= 200).all()
    assert ((p.quality > 0) & (p.quality < 1)).all()
    # costs rise with quality
    assert np.corrcoef(p.quality, p.cost)[0, 1] > 0.9
    # 22% of the capacity, the caps leave room above it
    assert p.demand == int(0.22 * p.capacity.sum())
    caps = sum(lim["max_units"] for lim in p.group_limits.values())
    assert caps > p.demand
    assert p.group_limits["north"]["min_agents"] == int(np.ceil(0.02 * p.group.count("north")))
    assert p.alpha == 0.8 and p.R == 14.0


def test_same_seed_same_instance_and_a_generator_draws_on():
    a, b = planner_instance(300, 5), planner_instance(300, np.random.default_rng(5))
    assert np.array_equal(a.quality, b.quality) and a.budget == b.budget and a.group == b.group
    g = np.random.default_rng(5)
    first, second = planner_instance(300, g), planner_instance(300, g)
    assert np.array_equal(first.quality, a.quality) and not np.array_equal(second.quality, a.quality)


def test_the_limits_csv_reads_back(tmp_path):
    p = planner_instance(500, 2)
    path = tmp_path / "limits.csv"
    path.write_text(group_limits_csv_text(p.group_limits))
    assert read_group_limits(path) == p.group_limits


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=0), "n must be"), (dict(n=10, regions=0), "regions must be"),
    (dict(n=10, regions=13), "regions must be"), (dict(n=10, alpha=1.5), "alpha must be"),
    (dict(n=10, demand_fraction=1.0), "demand_fraction must be"),
    (dict(n=10, budget_slack=-0.1), "budget_slack must be")])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        planner_instance(rng=0, **kwargs)


def test_a_float_seed_is_refused():
    with pytest.raises(TypeError, match="rng must be"):
        planner_instance(10, 1.5)


@pytest.mark.skipif("highs" not in available_solvers(), reason="highspy missing")
@pytest.mark.parametrize("seed", [0, 1])
def test_the_budget_binds(seed):
    p = planner_instance(60, seed)
    with_budget = get_solver("highs").solve(p)
    without = get_solver("highs").solve(p.with_changes(budget=None))
    assert with_budget.status.value == without.status.value == "optimal"
    assert without.objective > with_budget.objective * 1.01
