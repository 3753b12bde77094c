"""--constraint, --quality-floor and --confidence on the command line (columns of the agents CSV)."""
import json

import numpy as np
import pytest

from subsel import LinearConstraint, QualityFloor, SubsetSelectionProblem
from subsel.cli import main
from subsel.models import lp_text
from subsel.solvers import available_solvers
from tests.strategies import brute_force

pytestmark = pytest.mark.skipif("highs" not in available_solvers(), reason="highspy missing")

AGENTS = """name,quality,cost,capacity,co2,ontime,preferred
acme,0.9,0.1,2,0.3,0.99,1
bolt,0.8,0.2,3,0.25,0.9,0
cog,0.7,0.1,1,1.1,0.97,1
dyn,0.95,0.5,2,0.7,0.96,0
"""
COUNTS = "name,good,inspected,cost,capacity\nacme,48,50,0.1,2\nbolt,95,100,0.2,3\ncog,30,40,0.1,1\n"


@pytest.fixture()
def agents(tmp_path):
    path = tmp_path / "agents.csv"
    path.write_text(AGENTS)
    return path


def the_problem():
    return SubsetSelectionProblem([0.9, 0.8, 0.7, 0.95], [0.1, 0.2, 0.1, 0.5], alpha=0.75, capacity=[2, 3, 1, 2],
                                  names=["acme", "bolt", "cog", "dyn"])


def test_solve_with_every_kind_matches_brute_force(agents, capsys):
    assert main(["solve", str(agents), "--alpha", "0.75", "--constraint", "co2 <= 2.05", "--quality-floor",
                 "ontime >= 0.95", "--constraint", "used(preferred) <= 1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    p = the_problem().with_constraints(
        LinearConstraint([0.3, 0.25, 1.1, 0.7], upper=2.05, name="co2"),
        QualityFloor([0.99, 0.9, 0.97, 0.96], 0.95, name="ontime"),
        LinearConstraint([1, 0, 1, 0], upper=1, name="preferred.used", on="used"))
    best = brute_force(p)
    assert out["status"] == "optimal" and out["objective"] == pytest.approx(best[0], abs=1e-9)
    assert p.evaluate(out["x"]).feasible


def test_senses_and_repeated_columns(agents, capsys):
    assert main(["solve", str(agents), "--alpha", "0.75", "--constraint", "co2 == 2.05", "-o", "-",
                 "--quality-floor", "ontime >= 0", "--constraint", "used(preferred) >= 0"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    x = np.array([int(r.split(",")[1]) for r in rows])
    assert float(np.dot([0.3, 0.25, 1.1, 0.7], x)) == pytest.approx(2.05, abs=1e-9)
    # two constraints on one column: co2 and co2.2
    assert main(["export", str(agents), "--alpha", "0.75", "--constraint", "co2 >= 1", "--constraint", "co2 <= 2",
                 "--quality-floor", "ontime >= 0.5", "--constraint", "used(preferred) >= 0", "--format", "lp",
                 "-o", "-"]) == 0
    text = capsys.readouterr().out
    assert " co2:" in text and " co2.2:" in text and " ontime:" in text and " preferred.used:" in text


def test_the_exported_model_is_the_librarys(agents, capsys):
    assert main(["export", str(agents), "--alpha", "0.75", "--constraint", "co2 <= 2.05", "--quality-floor",
                 "ontime >= 0.95", "--constraint", "used(preferred) <= 1", "--format", "lp", "-o", "-"]) == 0
    p = the_problem().with_constraints(
        LinearConstraint([0.3, 0.25, 1.1, 0.7], upper=2.05, name="co2"),
        QualityFloor([0.99, 0.9, 0.97, 0.96], 0.95, name="ontime"),
        LinearConstraint([1, 0, 1, 0], upper=1, name="preferred.used", on="used"))
    assert capsys.readouterr().out == lp_text(p)


@pytest.mark.parametrize("option, text, message", [
    ("--constraint", "co3 <= 2", "--constraint 'co3 <= 2': the agents CSV has no column 'co3'"),
    ("--constraint", "co2 < 2", "--constraint 'co2 < 2': the sense must be <= or >= or ==; got '<'"),
    ("--constraint", "co2 != 2", "--constraint 'co2 != 2': the sense must be <= or >= or ==; got '!='"),
    ("--constraint", "co2 2", "--constraint 'co2 2': expected COLUMN <= NUMBER"),
    ("--constraint", "co2 <= x", "--constraint 'co2 <= x': the bound must be a finite number; got 'x'"),
    ("--constraint", "co2 <= inf", "--constraint 'co2 <= inf': the bound must be a finite number"),
    ("--constraint", "co2 <=", "--constraint 'co2 <=': the bound is missing after '<='"),
    ("--constraint", "used(preferred) >=", "the bound is missing after '>='"),
    ("--quality-floor", "ontime <= 0.9", "--quality-floor 'ontime <= 0.9': the sense must be >=; got '<='"),
    ("--quality-floor", "ontime >= 1.5", "QualityFloor 'ontime': alpha must be in [0, 1]; got 1.5"),
    ("--quality-floor", "co2 >= 0.5", "line 4, column 'co2': must be in [0, 1]"),
    ("--quality-floor", "used(ontime) >= 0.5", "a quality floor is over the units, not used(...)"),
    ("--constraint", "capacity <= 3", "name 'capacity' is taken by the problem's own rows"),
])
def test_bad_expressions_get_one_line_naming_the_option(agents, capsys, option, text, message):
    code = main(["solve", str(agents), "--alpha", "0.75", option, text, "--constraint", "co2 <= 100",
                 "--constraint", "used(preferred) <= 5", "--quality-floor", "ontime >= 0"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_an_unread_column_is_still_refused(agents, capsys):
    assert main(["solve", str(agents), "--alpha", "0.75", "--constraint", "co2 <= 2"]) == 2
    assert "unknown column 'ontime'" in capsys.readouterr().err


def test_the_other_solvers_refuse_naming_the_constraint(agents, capsys):
    assert main(["solve", str(agents), "--alpha", "0.75", "--constraint", "co2 <= 2", "--quality-floor",
                 "ontime >= 0", "--constraint", "used(preferred) >= 0", "--solver", "exact"]) == 2
    assert "does not support the constraint" in capsys.readouterr().err


def test_inspection_counts_and_confidence(tmp_path, capsys):
    path = tmp_path / "counts.csv"
    path.write_text(COUNTS)
    for confidence in ("0.5", "0.99"):
        assert main(["solve", str(path), "--alpha", "0.8", "--confidence", confidence, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        p = SubsetSelectionProblem.from_counts([48, 95, 30], [50, 100, 40], [0.1, 0.2, 0.1], alpha=0.8,
                                               confidence=float(confidence), capacity=[2, 3, 1],
                                               names=["acme", "bolt", "cog"])
        assert out["objective"] == pytest.approx(brute_force(p)[0], abs=1e-9)
    assert main(["solve", str(path), "--alpha", "0.8", "--confidence", "1.5"]) == 2
    assert "--confidence must be in (0, 1); got 1.5" in capsys.readouterr().err
    assert main(["frontier", str(path), "--alpha-min", "0.5", "--alpha-max", "0.9", "--confidence", "0.9"]) == 0
    assert main(["payments", str(path), "--alpha", "0.6", "--confidence", "0.9"]) == 0
    capsys.readouterr()
    bad = tmp_path / "bad.csv"
    bad.write_text("name,good,inspected,cost\na,5,4,0.1\n")
    assert main(["solve", str(bad), "--alpha", "0.5"]) == 2
    assert "line 2, column 'good': must be at most inspected[0] = 4; got 5" in capsys.readouterr().err
    both = tmp_path / "both.csv"
    both.write_text("name,quality,good,inspected,cost\na,0.9,5,6,0.1\n")
    assert main(["solve", str(both), "--alpha", "0.5"]) == 2
    assert "either a 'quality' column or the columns 'good,inspected'" in capsys.readouterr().err


def test_confidence_needs_counts(agents, capsys):
    plain = agents.parent / "plain.csv"
    plain.write_text("name,quality,cost\na,0.9,0.1\n")
    assert main(["solve", str(plain), "--alpha", "0.5", "--confidence", "0.9"]) == 2
    assert "the table needs the columns 'good,inspected'" in capsys.readouterr().err
