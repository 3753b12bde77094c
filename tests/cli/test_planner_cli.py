"""The planner's columns and --group-limits on the command line; an infeasible answer says why."""
import json

import numpy as np
import pytest

from subsel.cli import main
from subsel.models import read_agents, read_group_limits
from subsel.solvers import available_solvers
from tests.strategies import brute_force

pytestmark = pytest.mark.skipif("highs" not in available_solvers(), reason="highspy missing")

AGENTS = """name,quality,cost,capacity,min_units,lot_size,fixed_cost,group
north_a,0.95,0.40,40,10,5,2.0,north
north_b,0.90,0.30,40,,10,1.0,north
local_c,0.70,0.10,60,20,,0.5,local
far_d,0.85,0.20,50,5,5,,
"""
LIMITS = "group,min_units,max_units,min_agents,max_agents\nnorth,,,,1\nlocal,20,,,\n"


@pytest.fixture()
def files(tmp_path):
    agents = tmp_path / "agents.csv"
    agents.write_text(AGENTS)
    limits = tmp_path / "limits.csv"
    limits.write_text(LIMITS)
    return agents, limits


def test_solve_with_group_limits_matches_brute_force(files, capsys):
    agents, limits = files
    assert main(["solve", str(agents), "--alpha", "0.8", "--R", "1", "--group-limits", str(limits),
                 "--budget", "40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    problem = read_agents(agents, alpha=0.8, budget=40.0, group_limits=read_group_limits(limits))
    best = brute_force_by_lots(problem)
    assert out["status"] == "optimal" and out["solver"] == "highs"
    assert out["objective"] == pytest.approx(best, abs=1e-9)
    assert problem.evaluate(out["x"]).feasible


def brute_force_by_lots(problem):
    """The optimum over the allowed counts of each agent (0 or a multiple of its lot from its minimum)."""
    import itertools

    choices = []
    for m, lot, k in zip(problem.min_units, problem.lot_size, problem.upper_bounds()):
        first = -(-int(m) // int(lot)) * int(lot)
        choices.append([0, *range(first, int(k) + 1, int(lot))])
    best = None
    for x in itertools.product(*choices):
        ev = problem.evaluate(list(x))
        if ev.feasible and (best is None or ev.utility > best):
            best = ev.utility
    return best


def test_small_instance_agrees_with_full_enumeration(tmp_path):
    agents = tmp_path / "a.csv"
    agents.write_text("name,quality,cost,capacity,min_units,lot_size,fixed_cost,group\n"
                      "a,0.9,0.2,4,2,2,0.3,g\nb,0.6,0.1,3,1,1,0,g\nc,0.8,0.3,3,3,,0.1,\n")
    problem = read_agents(agents, alpha=0.75, group_limits={"g": {"max_agents": 1}})
    assert brute_force(problem)[0] == pytest.approx(brute_force_by_lots(problem))


def test_infeasible_answer_is_explained_in_the_table_and_json(files, capsys):
    agents, limits = files
    args = ["solve", str(agents), "--alpha", "0.8", "--group-limits", str(limits), "--must-not-take", "local_c"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "status       infeasible" in out
    assert "why          no selection meets must-not-take local_c and the limits of group 'local'" in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "infeasible" and data["x"] is None
    assert data["conflict"]["constraints"] == ["must_not_take", "group_limits:local"]
    assert data["explanation"].startswith("no selection meets")


def test_demand_explanation_names_the_nearest_change(tmp_path, capsys):
    agents = tmp_path / "a.csv"
    agents.write_text("name,quality,cost,capacity\na,0.9,3,100\nb,0.7,1,100\n")
    assert main(["solve", str(agents), "--alpha", "0.8", "--budget", "100", "--demand", "60", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["explanation"] == ("demand 60 cannot be met: at most 50 units reach average quality 0.8 "
                                   "within budget 100 (lower the demand to 50 or raise the budget to 120)")
    assert data["conflict"] == {"constraints": ["quality", "budget", "demand"], "max_units": 50,
                                "min_budget": pytest.approx(120.0), "max_alpha": None, "undecided": [],
                                "unproven": [], "units_bound": None, "budget_bound": None}
    assert 0 <= data["explain_time_s"] <= data["command_time_s"]


@pytest.mark.parametrize("text, message", [
    ("group,max_agents\nwest,1\n", "group_limits: unknown group 'west'"),
    ("group,max_agents\nnorth,-1\n", "line 2, column 'max_agents': must be a non-negative integer"),
    ("group,maxagents\nnorth,1\n", "unknown column 'maxagents'"),
])
def test_bad_group_limits_exit_2_with_one_line(files, tmp_path, capsys, text, message):
    agents, _ = files
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    out = tmp_path / "sel.csv"
    assert main(["solve", str(agents), "--alpha", "0.8", "--group-limits", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("agents_text, limits_text, message", [
    (AGENTS, "group,max_agents\nwest,1\n", "unknown group 'west' (no agent is in it; the groups are: 'north', "),
    ("name,quality,cost,capacity\na,0.9,0.1,4\n", "group,max_agents\nnorth,1\n",
     "unknown group 'north' (no agent is in it; no agent has a group)"),
    (AGENTS, "group,min_units,max_units\nnorth,5,2\n", "group_limits['north']: min_units 5 is above max_units 2"),
])
def test_group_limits_errors_name_the_file(tmp_path, capsys, agents_text, limits_text, message):
    """A limit the model refuses is told as the --group-limits file's error (one line, exit 2)."""
    agents, limits = tmp_path / "a.csv", tmp_path / "lim.csv"
    agents.write_text(agents_text)
    limits.write_text(limits_text)
    for command in ("solve", "export"):
        out = tmp_path / ("m.lp" if command == "export" else "sel.csv")
        assert main([command, str(agents), "--alpha", "0.8", "--group-limits", str(limits), "-o", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"subsel: error: --group-limits {limits}: ") and message in err, err
        assert len(err.splitlines()) == 1 and not out.exists()


def test_missing_group_limits_file(files, tmp_path, capsys):
    agents, _ = files
    assert main(["solve", str(agents), "--alpha", "0.8", "--group-limits", str(tmp_path / "no.csv")]) == 2
    assert "--group-limits" in capsys.readouterr().err


def test_bad_planner_cell_names_line_and_column(tmp_path, capsys):
    agents = tmp_path / "a.csv"
    agents.write_text("name,quality,cost,capacity,lot_size\na,0.9,0.1,4,5\n")
    assert main(["solve", str(agents), "--alpha", "0.8"]) == 2
    err = capsys.readouterr().err
    assert "line 2, column 'lot_size': leaves no allowed positive count" in err


def test_export_writes_the_planner_model(files, tmp_path, capsys):
    import highspy

    agents, limits = files
    out = tmp_path / "m.lp"
    assert main(["export", str(agents), "--alpha", "0.8", "--group-limits", str(limits), "--budget", "40",
                 "-o", str(out)]) == 0
    text = out.read_text()
    assert "used_north_a" in text and "lots_north_a" in text and "group_agents_0_max" in text
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(out))
    h.run()
    problem = read_agents(agents, alpha=0.8, budget=40.0, group_limits=read_group_limits(limits))
    assert h.getInfo().objective_function_value == pytest.approx(brute_force_by_lots(problem), abs=1e-6)


def test_alternatives_default_to_a_solver_with_cuts(files, capsys):
    """Without --solver, --alternatives on the planner's fields uses the backend the ranking uses by
    default (exact, the default for solving them, has no no-good cuts); the best row is the optimum."""
    from subsel.decisions import alternatives_solver
    from subsel.solvers import get_solver

    agents, _ = files
    assert main(["solve", str(agents), "--alpha", "0.8", "--alternatives", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    problem = read_agents(agents, alpha=0.8)
    assert data["solver"] == alternatives_solver(problem) and get_solver(data["solver"]).no_good_cuts
    assert data["alternatives"][0]["objective"] == pytest.approx(brute_force_by_lots(problem), abs=1e-9)
    assert [problem.evaluate(row["x"]).feasible for row in data["alternatives"]] == [True, True]


def test_alternatives_with_a_solver_without_cuts_exit_2(files, tmp_path, capsys):
    agents, _ = files
    out = tmp_path / "alt.csv"
    assert main(["solve", str(agents), "--alpha", "0.8", "--alternatives", "2", "--solver", "exact",
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--alternatives with the planner's fixed_cost, lot_size, min_units needs a solver with no-good cuts" in err
    assert err.endswith("got --solver exact") and len(err.splitlines()) == 1 and not out.exists()


def test_generate_planner_writes_agents_and_limits_that_solve(tmp_path, capsys):
    agents, limits = tmp_path / "agents.csv", tmp_path / "limits.csv"
    assert main(["generate", "--planner", "--n", "40", "--seed", "4", "-o", str(agents),
                 "--group-limits-out", str(limits)]) == 0
    err = capsys.readouterr().err
    command = err.strip().splitlines()[-1]
    assert command.startswith("solve with: subsel solve ")
    args = command.split("subsel ", 1)[1].split()
    from subsel.models import planner_instance

    expected = planner_instance(40, 4)
    assert f"--demand {expected.demand}" in command and f"--budget {expected.budget:.2f}" in command
    problem = read_agents(agents, alpha=0.8, R=14.0, group_limits=read_group_limits(limits))
    assert np.array_equal(problem.quality, expected.quality) and problem.group == expected.group
    assert problem.group_limits == expected.group_limits
    assert main(args + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal"
    assert expected.evaluate(out["x"]).feasible


@pytest.mark.parametrize("extra, message", [
    ([], "--planner needs --group-limits-out"),
    (["--group-limits-out", "{tmp}/a.csv"], "are the same file"),
    (["--group-limits-out", "{tmp}/l.csv", "--capacity-max", "5"], "--capacity-max does not apply"),
])
def test_generate_planner_refuses_bad_options(tmp_path, capsys, extra, message):
    extra = [e.format(tmp=tmp_path) for e in extra]
    assert main(["generate", "--planner", "--n", "10", "-o", str(tmp_path / "a.csv"), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "a.csv").exists() and not (tmp_path / "l.csv").exists()


def test_group_limits_out_needs_planner(tmp_path, capsys):
    assert main(["generate", "--n", "10", "--group-limits-out", str(tmp_path / "l.csv")]) == 2
    assert "--group-limits-out needs --planner" in capsys.readouterr().err


def _planner_files(tmp_path, n, seed, **changes):
    from subsel.models import group_limits_csv_text, planner_instance, problem_to_csv_text

    p = planner_instance(n, seed).with_changes(**changes)
    agents, limits = tmp_path / "agents.csv", tmp_path / "limits.csv"
    agents.write_text(problem_to_csv_text(p))
    limits.write_text(group_limits_csv_text(p.group_limits))
    args = ["solve", str(agents), "--alpha", repr(p.alpha), "--R", repr(p.R), "--group-limits", str(limits),
            "--budget", repr(p.budget), "--demand", str(p.demand)]
    return p, args


def test_time_limit_bounds_the_whole_command_and_both_times_are_printed(tmp_path):
    """A planner co-op whose explanation needs more than the limit: the command keeps the limit
    and prints the solve's, the
    explanation's and the command's times."""
    import subprocess
    import sys
    import time

    p, args = _planner_files(tmp_path, 1500, 2, alpha=0.99)  # no mix reaches 0.99
    limit = 3.0
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "subsel", *args, "--time-limit", str(limit), "--json"],
                          capture_output=True, text=True, timeout=120, check=False)
    elapsed = time.perf_counter() - t0
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "infeasible" and out["explanation"]
    assert out["command_time_s"] <= limit + 2.0  # a solver's last call may overrun on a loaded machine
    assert out["wall_time_s"] + out["explain_time_s"] <= out["command_time_s"]
    assert elapsed <= limit + 10.0  # start-up and reading on a loaded machine, not the explanation's minutes
    table = subprocess.run([sys.executable, "-m", "subsel", *args, "--time-limit", str(limit)],
                           capture_output=True, text=True, timeout=120, check=False).stdout
    assert "explain_s" in table and "the command took" in table


def test_no_explain_answers_infeasible_without_a_why(tmp_path, capsys):
    agents = tmp_path / "a.csv"
    agents.write_text("name,quality,cost,capacity\na,0.9,3,100\nb,0.7,1,100\n")
    assert main(["solve", str(agents), "--alpha", "0.8", "--budget", "100", "--demand", "60", "--json",
                 "--no-explain"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "infeasible" and "explanation" not in data and "explain_time_s" not in data
    assert main(["solve", str(agents), "--alpha", "0.8", "--budget", "100", "--demand", "60", "--no-explain"]) == 0
    assert "why" not in capsys.readouterr().out


def test_a_default_time_budget_cuts_the_explanation_short_and_says_so(tmp_path, monkeypatch, capsys):
    """A demand and a budget a unit below the least spend: each question of the deletion filter is a
    proof as hard as the verdict.  Without --time-limit the explanation still has a budget (here
    none at all): it names what it proved and what it left undecided, and how to give it longer,
    rather than running on (it took minutes on 200 suppliers)."""
    import subsel.solvers._feasibility as feasibility
    import subsel.solvers.explain as explain

    deadlines = []
    witness = feasibility.Questions._milp_witness
    monkeypatch.setattr(feasibility.Questions, "_milp_witness",
                        lambda self, problem: deadlines.append(self.deadline) or witness(self, problem))
    monkeypatch.setattr(explain, "explain_time", lambda n, verdict_s: 0.0)
    _, args = _planner_files(tmp_path, 30, 1, budget=39518.0)
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "infeasible"
    conflict, text = out["conflict"], out["explanation"]
    assert {"budget", "demand"} <= set(conflict["constraints"]) and conflict["undecided"]
    assert set(conflict["undecided"]) <= set(conflict["constraints"])
    assert "the explanation's default time budget (0 s) ran out: proven in the conflict:" in text
    assert "not yet decided: " in text and "the time limit" not in text
    assert text.endswith("; a time limit gives it longer (--time-limit on the command line, time_limit_s of "
                         "Solution.explain)")
    assert all(d is not None for d in deadlines)  # no question without a deadline


@pytest.mark.skipif("cbc" not in available_solvers(), reason="the reference optimum is CBC's")
def test_frontier_breakpoints_through_a_step_the_float_search_cannot_decide(tmp_path, capsys):
    """The generated co-op (30 suppliers, seed 3) at R = 14: one float above the step ending at
    0.85062701336993..., the float search's optimum fails the rule by a hair and the rule's integers
    pass 64 bits on an 11-agent core.  The frontier stopped there (exit 2: neither exact nor HiGHS
    proved it); now every row is proven and the step's optimum is CBC's."""
    import pandas as pd

    from subsel.models import read_agents
    from subsel.solvers import get_solver

    agents, limits = tmp_path / "agents.csv", tmp_path / "limits.csv"
    assert main(["generate", "--planner", "--n", "30", "--seed", "3", "-o", str(agents),
                 "--group-limits-out", str(limits)]) == 0
    capsys.readouterr()
    out = tmp_path / "steps.csv"
    assert main(["frontier", str(agents), "--R", "14", "--alpha-min", "0.85062", "--alpha-max", "0.85063",
                 "--breakpoints", "-o", str(out)]) == 0
    rows = pd.read_csv(out)
    assert len(rows) >= 3 and (rows["status"] == "optimal").all()
    assert rows["alpha"].iloc[0] == 0.85062 and rows["alpha_to"].iloc[-1] == 0.85063
    step = 0.8506270133699337  # one float above the previous row's alpha_to (the CSV shows 10 digits)
    problem = read_agents(agents, alpha=step, R=14.0)
    here = rows[(rows["alpha"] - step).abs() < 1e-10]
    assert len(here) == 1, rows
    ref = get_solver("cbc").solve(problem)
    assert ref.status.value == "optimal"
    assert float(here["objective"].iloc[0]) == pytest.approx(ref.objective, abs=1e-6)
