"""The planner's fields: validation, the feasibility rule, the agents CSV and group-limits CSV."""
import io

import numpy as np
import pytest

from subsel.models import (
    EXTENSIONS,
    PLANNER_EXTENSIONS,
    InputError,
    ProblemBatch,
    SubsetSelectionProblem,
    problem_to_csv_text,
    read_agents,
    read_group_limits,
)


def planner(**changes):
    base = dict(quality=[0.9, 0.6, 0.8, 0.75], cost=[0.1, 0.1, 0.2, 0.3], alpha=0.7, capacity=[10, 10, 10, 4],
                min_units=[3, 1, 2, 1], lot_size=[1, 2, 5, 1], fixed_cost=[1.0, 0.0, 0.5, 0.0],
                group=["north", "north", None, "south"], names=["a", "b", "c", "d"])
    base.update(changes)
    return SubsetSelectionProblem(**base)


def test_defaults_and_extensions():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7)
    assert p.min_units.tolist() == [1, 1] and p.lot_size.tolist() == [1, 1]
    assert p.fixed_cost.tolist() == [0.0, 0.0] and p.group is None and dict(p.group_limits) == {}
    assert not p.extensions
    q = planner(group_limits={"north": {"max_agents": 1}})
    assert q.extensions == {"min_units", "lot_size", "fixed_cost", "group_limits"}
    assert set(PLANNER_EXTENSIONS) <= set(EXTENSIONS)
    assert q.group == ("north", "north", None, "south")


@pytest.mark.parametrize("changes, match", [
    (dict(min_units=[0, 1, 1, 1]), r"min_units\[0\] must be >= 1; got 0"),
    (dict(min_units=[11, 1, 1, 1]), r"min_units\[0\] must be at most the capacity 10; got 11"),
    (dict(min_units=[1.5, 1, 1, 1]), r"min_units\[0\] must be an integer; got 1.5"),
    (dict(min_units=[1, 1, 1]), r"min_units has 3 entries but quality has 4"),
    (dict(lot_size=[1, 1, 0, 1]), r"lot_size\[2\] must be >= 1; got 0"),
    (dict(lot_size=[1, 1, 11, 1]), r"lot_size\[2\] leaves no allowed positive count .*\[2, 10\]\); got 11"),
    (dict(lot_size=[1, 1, 4, 1], min_units=[1, 1, 9, 1]), r"lot_size\[2\] leaves no allowed positive count"),
    (dict(fixed_cost=[0, -1, 0, 0]), r"fixed_cost\[1\] must be >= 0 .*; got -1.0"),
    (dict(fixed_cost=[0, np.nan, 0, 0]), r"fixed_cost\[1\] must be a finite number; got nan"),
    (dict(group=["a", 3, None, None]), r"group\[1\] must be a text label"),
    (dict(group_limits={"west": {"max_agents": 1}}), r"group_limits: unknown group 'west'"),
    (dict(group_limits={"north": {"max_agent": 1}}), r"group_limits\['north'\]: unknown key 'max_agent'"),
    (dict(group_limits={"north": {"max_agents": -1}}), r"group_limits\['north'\]\['max_agents'\] must be a "
                                                        r"non-negative integer; got -1"),
    (dict(group_limits={"north": {"min_units": 2.5}}), r"non-negative integer; got 2.5"),
    (dict(group_limits={"north": {"max_units": float("nan")}}),
     r"group_limits\['north'\]\['max_units'\] is NaN; give None for no limit"),
    (dict(group_limits={"north": {"min_agents": np.float64("nan")}}), r"\['min_agents'\] is NaN"),
    (dict(group_limits={"north": {"min_units": 5, "max_units": 3}}), r"min_units 5 is above max_units 3"),
])
def test_validation(changes, match):
    with pytest.raises(ValueError, match=match):
        planner(**changes)


def test_none_is_no_limit():
    p = planner(group_limits={"north": {"max_agents": None, "min_units": 2}})
    assert dict(p.group_limits["north"]) == {"min_units": 2}


def test_group_given_as_one_string_is_refused():
    with pytest.raises(TypeError, match="group must be a sequence"):
        planner(group="north")


def test_evaluate_names_each_rule():
    p = planner(group_limits={"north": {"max_agents": 1, "min_units": 4}}, budget=5.0)
    ok = p.evaluate([4, 0, 0, 0])
    assert ok.feasible, ok.violations
    cases = {
        "min_units": [2, 0, 0, 0],
        "lot_size": [0, 3, 0, 0],
        "group_limits": [3, 2, 0, 0],
        "budget": [4, 0, 10, 4],
    }
    for rule, x in cases.items():
        ev = p.evaluate(x)
        assert not ev.feasible
        assert any(v.startswith(rule) for v in ev.violations), (rule, ev.violations)
    ev = p.evaluate([0, 0, 0, 1])
    assert ev.violations[0].startswith("group_limits: group 'north' has 0 units < min_units 4")


def test_fixed_cost_in_utility_and_budget():
    p = planner(budget=1.0 + 3 * 0.1 + 1e-10)  # agent a: 3 units at 0.1 plus its fixed cost 1
    ev = p.evaluate([3, 0, 0, 0])
    assert ev.feasible
    assert ev.utility == pytest.approx(3 * (0.9 - 0.1) - 1.0)
    assert not p.with_changes(budget=1.29).evaluate([3, 0, 0, 0]).feasible


def test_must_take_takes_the_minimum():
    p = planner(must_take=["a"])
    assert p.lower_bounds().tolist() == [3, 0, 0, 0]
    assert not p.evaluate([0, 0, 0, 0]).feasible
    assert p.evaluate([3, 0, 0, 0]).feasible
    assert p.upper_bounds().tolist() == [10, 10, 10, 4]
    assert planner(lot_size=[1, 3, 5, 1]).upper_bounds().tolist() == [10, 9, 10, 4]


def test_paper_problem_unchanged_by_with_changes():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7)
    q = p.with_changes(alpha=0.6)
    assert not q.extensions and q._planner is None


def test_a_batch_of_planner_problems_decides_each_row_as_the_problem():
    p = planner()
    batch = ProblemBatch.from_problems([p, p.with_changes(alpha=0.9)])
    assert batch.extensions == p.extensions
    rng = np.random.default_rng(1)
    for _ in range(20):
        x = np.stack([rng.integers(0, p.capacity + 1) for _ in range(2)])
        ev = batch.evaluate(x)
        for j in range(2):
            one = batch.row(j).evaluate(x[j])
            assert (ev.feasible[j], ev.violations[j], ev.utility[j]) == (one.feasible, one.violations, one.utility)


def test_agents_csv_round_trip():
    p = planner(group_limits=None)
    text = problem_to_csv_text(p)
    assert text.splitlines()[0] == "name,quality,cost,capacity,min_units,lot_size,fixed_cost,group"
    back = read_agents(io.BytesIO(text.encode()), alpha=0.7, name="agents.csv")
    for key in ("min_units", "lot_size", "fixed_cost", "quality", "cost", "capacity"):
        assert np.array_equal(getattr(back, key), getattr(p, key)), key
    assert back.group == p.group


def test_agents_csv_empty_cells_are_defaults_and_errors_name_the_line():
    text = "name,quality,cost,capacity,min_units,lot_size,group\na,0.9,0.1,5,,2,x\nb,0.5,0.1,5,2,,\n"
    p = read_agents(io.BytesIO(text.encode()), alpha=0.7, name="f.csv")
    assert p.min_units.tolist() == [1, 2] and p.lot_size.tolist() == [2, 1] and p.group == ("x", None)
    bad = "name,quality,cost,capacity,min_units\na,0.9,0.1,5,7\n"
    with pytest.raises(InputError, match=r"f.csv: line 2, column 'min_units': must be at most the capacity 5; got 7"):
        read_agents(io.BytesIO(bad.encode()), alpha=0.7, name="f.csv")


def test_group_limits_csv():
    text = "group,min_units,max_units,min_agents,max_agents\nnorth,,20,,2\nlocal,30,,,\n"
    assert read_group_limits(io.BytesIO(text.encode()), name="g.csv") == {
        "north": {"max_units": 20, "max_agents": 2}, "local": {"min_units": 30}}
    with pytest.raises(InputError, match=r"g.csv: line 3, column 'max_agents': must be a non-negative integer"):
        read_group_limits(io.BytesIO(b"group,max_agents\nnorth,1\nsouth,-1\n"), name="g.csv")
    with pytest.raises(InputError, match=r"line 3, column 'group': repeats the group of line 2"):
        read_group_limits(io.BytesIO(b"group,max_agents\nnorth,1\nnorth,2\n"), name="g.csv")
    with pytest.raises(InputError, match=r"unknown column 'max'"):
        read_group_limits(io.BytesIO(b"group,max\nnorth,1\n"), name="g.csv")
