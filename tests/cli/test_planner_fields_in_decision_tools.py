"""The planner's fields in the decision tools (alternatives by cuts, payments on a
MILP backend), a written
``nan`` is not an empty cell, and real-valued options are decimals, not Python literals."""
import json

import pytest

from subsel import SubsetSelectionProblem, alternatives, payments
from subsel.cli import main
from tests.decisions.reference import feasible_selections

PLANNER = [dict(lot_size=[5, 1]), dict(min_units=[2, 1]), dict(fixed_cost=[1.0, 0.0]),
           dict(group=["n", "n"], group_limits={"n": {"max_agents": 1}})]


@pytest.mark.parametrize("fields", PLANNER)
def test_decision_tools_and_planner_fields(fields):
    # alternatives: by no-good cuts on a MILP backend (the partition's extra agents would break
    # the planner's fields, so it refuses them by name); payments: with a MILP backend
    p = SubsetSelectionProblem(quality=[0.9, 0.8], cost=[0.1, 0.2], capacity=[10, 10], alpha=0.7, **fields)
    used = sorted(set(p.extensions) - {"group"})
    ranked = feasible_selections(p)
    for solver in ("highs", None):
        df = alternatives(p, 3, solver=solver)
        assert [x.tolist() for x in df.x] == [x.tolist() for _, x in ranked[:3]]
    with pytest.raises(ValueError, match=f"alternatives by the partition .* does not support the planner's {used[0]}"):
        alternatives(p, 3, solver="highs", method="partition")
    pay = payments(p, solver="highs")  # truthful with these fields too (tests/decisions/test_payments.py)
    assert (pay.payment >= pay.units * pay.reported_cost - 1e-9).all()


def test_solve_alternatives_with_lot_sizes(tmp_path, capsys):
    f = tmp_path / "a.csv"
    f.write_text("name,quality,cost,capacity,lot_size\na,0.9,0.1,10,5\nb,0.8,0.2,10,1\n")
    assert main(["solve", str(f), "--alpha", "0.7", "--alternatives", "2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["alternatives"]
    p = SubsetSelectionProblem.from_csv(f, alpha=0.7)
    assert [r["x"] for r in rows] == [x.tolist() for _, x in feasible_selections(p)[:2]]
    assert rows[0]["x"] == [10, 10] and all(r["x"][0] % 5 == 0 for r in rows)


@pytest.mark.parametrize("cell", ["nan", "NaN", "inf", "-1"])
def test_a_written_fixed_cost_that_breaks_the_rule_is_refused(tmp_path, capsys, cell):
    f = tmp_path / "a.csv"
    f.write_text(f"name,quality,cost,capacity,fixed_cost\na,0.9,0.1,3,{cell}\nb,0.9,0.1,3,\n")
    assert main(["solve", str(f), "--alpha", "0.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 2" in err[0] and "fixed_cost" in err[0]


def test_an_empty_fixed_cost_is_the_default(tmp_path, capsys):
    f = tmp_path / "a.csv"
    f.write_text("name,quality,cost,capacity,fixed_cost\na,0.9,0.1,3,\nb,0.9,0.1,3,1\n")
    assert main(["solve", str(f), "--alpha", "0.5", "--json"]) == 0
    assert '"objective": 3.8' in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--alpha", "0.7_5"], ["--alpha", "0.75", "--budget", "1_0"],
                                  ["--alpha", "0.75", "--R", "1_0"], ["--alpha", "0x1"]])
def test_real_options_refuse_python_literals(tmp_path, capsys, argv):
    f = tmp_path / "a.csv"
    f.write_text("name,quality,cost,capacity\na,0.9,0.1,3\n")
    assert main(["solve", str(f), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "invalid float value" in err[0]
