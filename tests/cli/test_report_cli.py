"""``subsel report``: the HTML holds the numbers ``subsel solve --json`` prints; a failing report writes
nothing and replaces nothing (one line on stderr, exit code 2)."""
import argparse
import json

import pytest

from subsel.cli import ArgumentParser, main
from subsel.cli import core as core_cli
from subsel.cli import report as report_cli
from tests.cli import test_planner_cli as planner_cli
from tests.reporting.dom import pairs, parse, table, value

AGENTS = planner_cli.AGENTS
files = planner_cli.files  # the planner's agents CSV and group limits, as files


def options_of(register, command):
    parser = ArgumentParser(prog="subsel")
    register(parser.add_subparsers(dest="command", parser_class=ArgumentParser))
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {s for a in sub._actions for s in a.option_strings}


def test_report_takes_every_option_of_solve():
    """The options are solve's own definitions (a new option of solve reaches report too)."""
    solve = options_of(core_cli.register, "solve")
    report = options_of(report_cli.register, "report")
    # solve's output options (--no-explain: no why line) and the knapsack input are its own
    assert solve - {"--json", "--knapsack", "--optimum", "--instance", "--no-explain"} <= report
    assert {"--alternatives", "--payments", "--width", "--title", "-o"} <= report


@pytest.mark.parametrize("extra", [[], ["--budget", "40"], ["--demand", "60", "--solver", "highs"]])
def test_the_plan_in_the_report_is_the_plan_solve_json_prints(files, tmp_path, capsys, extra):
    agents, limits = files
    common = [str(agents), "--alpha", "0.8", "--group-limits", str(limits), *extra]
    assert main(["solve", *common, "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    out = tmp_path / "plan.html"
    assert main(["report", *common, "--alternatives", "2", "-o", str(out)]) == 0
    assert capsys.readouterr().err.startswith(f"wrote the report (plan {solved['status']}")
    doc = parse(out.read_text(encoding="utf-8"))
    plan = doc.find("section", id="plan")
    glance = pairs(plan, "The plan at a glance")
    assert value(glance["Utility"]) == pytest.approx(solved["objective"], rel=1e-12)
    assert value(glance["Average quality"]) == pytest.approx(solved["avg_quality"], rel=1e-12)
    assert glance["Solver"].text() == solved["solver"]
    assert glance["Status"].text().startswith(solved["status"])
    _, rows = table(plan, "Units per agent taken")
    names = [line.split(",")[0] for line in AGENTS.splitlines()[1:]]
    assert {r[0].text(): value(r[1]) for r in rows} == {n: u for n, u in zip(names, solved["x"]) if u}
    assert doc.find("h1").text() == "Procurement plan" and str(agents) in doc.find("header").text()


def test_an_infeasible_report_exits_0_and_explains(files, tmp_path, capsys):
    agents, limits = files
    common = [str(agents), "--alpha", "0.8", "--group-limits", str(limits), "--demand", "120", "--budget", "20"]
    assert main(["solve", *common, "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    out = tmp_path / "plan.html"
    assert main(["report", *common, "-o", str(out)]) == 0
    assert "no plan: infeasible" in capsys.readouterr().err
    why = parse(out.read_text(encoding="utf-8")).find("section", id="infeasible")
    assert why.find("p", **{"class": "why"}).text() == solved["explanation"] + "."
    assert "lower the demand to 100 or raise the budget to 23.5" in why.find("p", **{"class": "fix"}).text()


def test_report_to_stdout(files, capsys):
    agents, _ = files
    assert main(["report", str(agents), "--alpha", "0.8", "--solver", "highs", "--title", "Q3", "-o", "-"]) == 0
    captured = capsys.readouterr()
    doc = parse(captured.out)
    assert doc.find("h1").text() == "Q3" and "to stdout" in captured.err


@pytest.mark.parametrize("args, message", [
    (["--payments", "--budget", "40"], "--budget 40: critical payments need a plan"),
    (["--alternatives", "0"], "--alternatives must be a positive integer; got 0"),
    (["--width", "2"], "--width must be in (0, 1]; got 2"),
    (["--solver", "nope"], "--solver: unknown solver 'nope'"),
    (["--solver", ""], "--solver must name a backend"),
    (["--payments", "--solver", "gss"], "payments need an exact solver; 'gss' does not prove optimality"),
    (["--alternatives", "2", "--solver", "exact"], "need a solver with no-good cuts"),
    (["--must-take", "ghost"], "ghost"),
    (["--time-limit", "-1"], "--time-limit"),
])
def test_a_failing_report_writes_nothing_and_replaces_nothing(files, tmp_path, capsys, args, message):
    agents, limits = files
    out = tmp_path / "plan.html"
    out.write_text("the old report")
    code = main(["report", str(agents), "--alpha", "0.8", "--group-limits", str(limits), *args, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("subsel: error:") and message in err, err
    assert out.read_text() == "the old report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agents.csv", "limits.csv", "plan.html"]


def test_bad_input_files_and_a_missing_alpha(files, tmp_path, capsys):
    agents, _ = files
    out = tmp_path / "plan.html"
    assert main(["report", str(agents), "-o", str(out)]) == 2
    assert "--alpha is required" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "none.csv"), "--alpha", "0.8", "-o", str(out)]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("name,quality,cost\na,1.5,0.1\n")
    assert main(["report", str(bad), "--alpha", "0.8", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2" in err and "quality" in err
    assert main(["report", str(agents), "--alpha", "0.8"]) == 2  # -o is required
    assert "-o/--output" in capsys.readouterr().err
    assert not out.exists()


def test_report_takes_the_constraint_options_of_solve(tmp_path, capsys):
    agents = tmp_path / "a.csv"
    agents.write_text("name,quality,cost,co2,ontime\na,0.9,0.1,2.5,0.99\nb,0.8,0.2,1,0.9\nc,0.7,0.1,3,0.97\n")
    common = [str(agents), "--alpha", "0.75", "--constraint", "co2 <= 4", "--quality-floor", "ontime >= 0.95"]
    assert main(["solve", *common, "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    out = tmp_path / "r.html"
    assert main(["report", *common, "-o", str(out)]) == 0
    doc = parse(out.read_text(encoding="utf-8"))
    assert value(pairs(doc.find("section", id="plan"), "The plan at a glance")["Utility"]) == pytest.approx(
        solved["objective"], rel=1e-12)
    head, rows = table(doc.find("section", id="binds"), "Each constraint's slack")
    assert {r[0].text() for r in rows} >= {"Co2: sum of its coefficients over the units bought",
                                           "Average ontime of the units bought"}


def test_report_lists_plans_distinct_in_their_agents(files, tmp_path, capsys):
    agents, limits = files
    common = [str(agents), "--alpha", "0.8", "--group-limits", str(limits), "--alternatives", "3", "--distinct",
              "agents"]
    assert main(["solve", *common, "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)["alternatives"]
    out = tmp_path / "plan.html"
    assert main(["report", *common, "-o", str(out)]) == 0
    section = parse(out.read_text(encoding="utf-8")).find("section", id="alternatives")
    assert "distinct in the agents they use" in section.text()
    _, rows = table(section, "The next-best plans")
    assert [value(r[1]) for r in rows] == pytest.approx([a["objective"] for a in solved], rel=1e-12)
    assert main(["report", str(agents), "--alpha", "0.8", "--distinct", "agents", "-o", str(out)]) == 2
    assert "--distinct applies to --alternatives only" in capsys.readouterr().err
