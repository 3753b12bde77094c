"""alternatives(..., distinct="agents"): plans that differ in which suppliers they use, each the best
plan of its set, against the enumeration of every plan grouped by the agents it uses; and ties
decided in exact arithmetic within the optimality tolerance, not by float noise."""
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem, alternatives, get_solver
from subsel.cli import main
from subsel.decisions.ranking import TIE_RTOL
from tests.decisions.reference import feasible_selections
from tests.strategies import planner_problems, problems

#: Decimal data whose per-unit utilities are all 3.544 to the cent, but differ in float rounding.
CENTS = dict(quality=[0.9, 0.871, 0.872], cost=[9.056, 8.65, 8.664], alpha=0.85, R=14.0, capacity=[2, 2, 2])
#: A co-op of lot-1 suppliers, whose next-best plans by units move one case between suppliers.
COOP = dict(quality=[0.576, 0.871, 0.958, 0.9], cost=[4.74, 8.65, 10.93, 9.0], alpha=0.85, R=14.0,
            capacity=[4104, 150, 720, 300], lot_size=[24, 1, 24, 1])


def _tie_groups(entries):
    """``(value, x)`` pairs in the documented order: the best left leads a group of every entry
    within ``TIE_RTOL`` of it, listed by decreasing unit vector."""
    left = list(entries)
    out = []
    while left:
        lead = max(v for v, _ in left)
        floor = lead - TIE_RTOL * abs(lead)
        group = [e for e in left if e[0] >= floor]
        left = [e for e in left if e[0] < floor]
        out.extend(sorted(group, key=lambda e: tuple(-e[1])))
    return out


def _by_agents(problem):
    """The best plan of every set of used agents, by enumeration, in the documented order."""
    sets: dict[tuple, list] = {}
    for value, x in feasible_selections(problem):
        sets.setdefault(tuple(x > 0), []).append((value, x))
    best = [_tie_groups(plans)[0] for plans in sets.values()]
    return _tie_groups(best)


def _check(problem, k, solver="highs"):
    ranked = _by_agents(problem)
    df = alternatives(problem, k, solver=solver, distinct="agents")
    assert len(df) == min(k, len(ranked))
    assert df["rank"].tolist() == list(range(1, len(df) + 1))
    for row, (value, x) in zip(df.itertuples(), ranked):
        assert row.x.tolist() == x.tolist(), (row.x, x)
        assert row.objective == pytest.approx(float(value), rel=1e-12, abs=1e-12)
        assert row.status == "optimal"
    used = {tuple(x > 0) for x in df.x}
    assert len(used) == len(df)  # every row a different set of agents


@settings(max_examples=40)
@given(planner_problems(n_max=4, cap_max=3), st.integers(1, 10))
def test_plans_by_used_agents_match_enumeration(problem, k):
    _check(problem, k)


@settings(max_examples=25)
@given(problems(n_max=5, cap_max=2, extensions=True, grid=True), st.integers(1, 12))
def test_plans_by_used_agents_with_budget_demand_and_must_lists(problem, k):
    _check(problem, k)


@pytest.mark.parametrize("solver", ["cbc", "ortools-scip"])
def test_plans_by_used_agents_on_other_milp_backends(solver):
    _check(SubsetSelectionProblem(**CENTS), 7, solver=solver)


def test_plan_b_uses_other_suppliers_where_units_only_move_a_case():
    p = SubsetSelectionProblem(**COOP)
    by_units = alternatives(p, 3)
    assert len({tuple(x > 0) for x in by_units.x}) == 1  # the same suppliers, a case moved
    by_agents = alternatives(p, 3, distinct="agents")
    assert by_agents.x[0].tolist() == by_units.x[0].tolist()
    assert len({tuple(x > 0) for x in by_agents.x}) == 3
    # large capacities: no binary digits needed for cuts on the agents used
    big = p.with_changes(capacity=[4104 * 512, 150, 720, 300])
    assert len(alternatives(big, 2, distinct="agents")) == 2


def test_ties_to_the_cent_follow_the_tie_rule_not_float_noise():
    p = SubsetSelectionProblem(**CENTS)
    r = [Fraction(float(v)) for v in p.utility]
    assert len(set(r)) == 2 and max(r) - min(r) < Fraction(1, 10 ** 14)  # float noise only
    for solver in ("highs", "exact"):
        xs = [x.tolist() for x in alternatives(p, 4, solver=solver).x]
        assert xs == [[2, 2, 2], [2, 2, 1], [2, 1, 2], [1, 2, 2]], solver


def test_solve_excluding_used_sets():
    p = SubsetSelectionProblem(**CENTS)
    highs = get_solver("highs")
    none = np.zeros((0, 3), dtype=np.int64)
    sol = highs.solve_excluding(p, none, used=np.array([[1, 1, 1], [1, 1, 0]]))
    assert sol.status.value == "optimal" and sol.x.tolist() in ([2, 0, 2], [0, 2, 2])  # tied optima
    every = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)])
    assert highs.solve_excluding(p, none, used=every).status.value == "infeasible"
    with pytest.raises(ValueError, match=r"used must have shape \(m, 3\)"):
        highs.solve_excluding(p, none, used=np.ones(3))
    with pytest.raises(ValueError, match=r"used\[0, 1\] must be 0 or 1"):
        highs.solve_excluding(p, none, used=np.array([[1, 2, 0]]))


@pytest.mark.parametrize("kwargs, match", [
    (dict(distinct="suppliers"), "distinct must be 'units' or 'agents'"),
    (dict(distinct="agents", solver="exact"), "needs a solver with no-good cuts"),
    (dict(distinct="agents", method="partition"), "method='cuts'"),
])
def test_bad_distinct_is_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        alternatives(SubsetSelectionProblem(**CENTS), 2, **kwargs)


def test_cli_distinct_agents(tmp_path, capsys):
    path = tmp_path / "coop.csv"
    path.write_text("name,quality,cost,capacity,lot_size\na,0.576,4.74,4104,24\nb,0.871,8.65,150,1\n"
                    "c,0.958,10.93,720,24\nd,0.9,9.0,300,1\n")
    out = tmp_path / "plans.csv"
    argv = ["solve", str(path), "--alpha", "0.85", "--R", "14", "--alternatives", "3"]
    assert main([*argv, "--distinct", "agents", "-o", str(out)]) == 0
    rows = [line.split(",") for line in out.read_text().splitlines()[1:]]
    sets = [{name for rank, name, _ in rows if rank == str(j)} for j in (1, 2, 3)]
    assert sets == [{"a", "b", "c", "d"}, {"a", "c", "d"}, {"b", "c", "d"}]
    capsys.readouterr()
    for extra, match in ((["--distinct", "agents", "--solver", "exact"], "needs a solver with no-good cuts"),
                         (["--distinct", "sets"], "invalid choice")):
        assert main([*argv, *extra]) == 2
        err = capsys.readouterr().err
        assert match in err and "Traceback" not in err
    assert main(["solve", str(path), "--alpha", "0.85", "--distinct", "agents"]) == 2
    assert "--distinct applies to --alternatives only" in capsys.readouterr().err
    plain = tmp_path / "plain.csv"
    plain.write_text("name,quality,cost\na,0.9,0.1\nb,0.8,0.1\n")
    assert main(["solve", str(plain), "--alpha", "0.5", "--alternatives", "2", "--distinct", "agents",
                 "--solver", "exact"]) == 2
    assert "--distinct agents needs a solver with no-good cuts" in capsys.readouterr().err
    assert main(["solve", str(plain), "--alpha", "0.5", "--alternatives", "2", "--distinct", "agents", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["solver"] == "highs" and [r["x"] for r in doc["alternatives"]] == [[1, 1], [1, 0]]
