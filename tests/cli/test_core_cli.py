"""The core CLI: generate -> solve -> export, JSON keys, exit codes, no traceback, no partial files."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from subsel.cli import main
from subsel.models import SubsetSelectionProblem
from subsel.solvers import available_solvers
from tests.strategies import brute_force

ROOT = Path(__file__).resolve().parents[2]
JSON_KEYS = {"solver", "status", "objective", "avg_quality", "x", "wall_time_s", "backend_time_s",
             "overhead_time_s"}


def run(*args, stdin=None):
    """``python -m subsel ARGS`` in a real subprocess, with this tree's subsel first on the path."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "subsel", *map(str, args)], capture_output=True,
                          text=True, input=stdin, env=env, cwd=ROOT, timeout=120)


@pytest.fixture()
def agents(tmp_path):
    path = tmp_path / "agents.csv"
    assert main(["generate", "--n", "9", "--seed", "4", "--capacity-max", "2", "-o", str(path)]) == 0
    return path


def test_generate_writes_the_agents_csv(agents, capsys):
    lines = agents.read_text().splitlines()
    assert lines[0] == "name,quality,cost,capacity"
    assert len(lines) == 10
    p = SubsetSelectionProblem.from_csv(agents, alpha=0.7)
    assert p.n == 9 and set(p.capacity.tolist()) <= {1, 2}
    # same seed, same file
    again = agents.parent / "again.csv"
    main(["generate", "--n", "9", "--seed", "4", "--capacity-max", "2", "-o", str(again)])
    assert again.read_text() == agents.read_text()
    assert main(["generate", "--n", "3", "--seed", "1"]) == 0  # default -o -: stdout
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "name,quality,cost,capacity" and len(out.splitlines()) == 4


@pytest.mark.parametrize("solver", [s for s in available_solvers() if s != "gss"])
def test_solve_json_every_exact_backend(agents, capsys, solver):
    best = brute_force(SubsetSelectionProblem.from_csv(agents, alpha=0.7))
    assert main(["solve", str(agents), "--alpha", "0.7", "--solver", solver, "--json"]) == 0
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1
    d = json.loads(out)
    assert set(d) == JSON_KEYS
    # The backend's time and subsel's overhead split the wall time (no timing asserted).
    assert 0.0 <= d["backend_time_s"] <= d["wall_time_s"] and d["overhead_time_s"] >= 0.0
    assert d["backend_time_s"] + d["overhead_time_s"] == pytest.approx(d["wall_time_s"], abs=1e-12)
    assert d["solver"] == solver and d["status"] in ("optimal", "feasible")
    assert d["objective"] == pytest.approx(best[0], abs=1e-9) or d["status"] == "feasible"
    assert len(d["x"]) == 9


def test_solve_human_output_and_selection_csv(agents, tmp_path, capsys):
    sel = tmp_path / "selection.csv"
    assert main(["solve", str(agents), "--alpha", "0.7", "--solver", "highs", "--budget", "1.5",
                 "--must-not-take", "3", "-o", str(sel)]) == 0
    out = capsys.readouterr().out
    for word in ("solver       highs", "status       optimal", "objective", "avg_quality",
                 "extensions budget,must_not_take"):
        assert word in out
    rows = sel.read_text().splitlines()
    assert rows[0] == "name,units" and len(rows) == 10
    units = {r.split(",")[0]: int(r.split(",")[1]) for r in rows[1:]}
    assert units["3"] == 0
    p = SubsetSelectionProblem.from_csv(agents, alpha=0.7, budget=1.5, must_not_take=["3"])
    x = [units[n] for n in p.names]
    assert p.evaluate(x).feasible
    assert p.evaluate(x).utility == pytest.approx(brute_force(p)[0], abs=1e-9)


def test_solve_from_stdin_to_stdout(agents):
    r = run("solve", "-", "--alpha", "0.7", "--solver", "dpss", "-o", "-", stdin=agents.read_text())
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "name,units" and len(r.stdout.splitlines()) == 10
    assert "status       optimal" in r.stderr  # the summary moves to stderr


def test_infeasible_demand_reports_infeasible_and_writes_no_selection(agents, tmp_path, capsys):
    sel = tmp_path / "sel.csv"
    assert main(["solve", str(agents), "--alpha", "0.7", "--demand", "1000", "--json", "-o", str(sel)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "infeasible" and d["objective"] is None
    assert not sel.exists()


def test_export_lp_and_mps(agents, tmp_path):
    import highspy

    best = brute_force(SubsetSelectionProblem.from_csv(agents, alpha=0.7, demand=2))
    for suffix in (".lp", ".mps"):
        out = tmp_path / f"model{suffix}"
        assert main(["export", str(agents), "--alpha", "0.7", "--demand", "2", "-o", str(out)]) == 0
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)
        h.readModel(str(out))
        h.run()
        # The LP file maximises the utility; the MPS file minimises the negated utility.
        sign = 1 if suffix == ".lp" else -1
        assert h.getInfo().objective_function_value == pytest.approx(sign * best[0], abs=1e-6)


def test_pipeline_through_real_subprocesses(tmp_path):
    """The README's main job: generate -> solve -> export, as a user runs it."""
    agents, sel, model = tmp_path / "agents.csv", tmp_path / "sel.csv", tmp_path / "model.mps"
    r = run("generate", "--n", "12", "--alpha", "0.7", "--seed", "7", "-o", agents)
    assert r.returncode == 0 and "subsel solve" in r.stderr
    r = run("solve", agents, "--alpha", "0.7", "--json", "-o", sel)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)  # exactly one JSON object, nothing else on stdout
    assert set(d) == JSON_KEYS and d["status"] == "optimal"
    assert sel.exists()
    r = run("export", agents, "--alpha", "0.7", "-o", model)
    assert r.returncode == 0 and "\nNAME          subset_selection\nROWS\n N  neg_utility\n" in model.read_text()
    r = run("solvers")
    assert r.returncode == 0 and "highs" in r.stdout and "available" in r.stdout


def test_bad_csv_exit_2_one_line_no_traceback_no_file(tmp_path):
    """Through a real process: exit code 2, one line on stderr, no traceback, no output file."""
    bad, sel = tmp_path / "bad.csv", tmp_path / "sel.csv"
    bad.write_text("name,quality,cost\na,0.5,0.1\nb,abc,0.2\n")
    r = run("solve", bad, "--alpha", "0.5", "-o", sel)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"subsel: error: {bad}: line 3, column 'quality': expected a number; got 'abc'"]
    assert r.stdout == "" and not sel.exists()


@pytest.mark.parametrize("content, fragment", [
    ("name,quality,cost,capacity\na,0.5,0.1,0\n", "line 2, column 'capacity'"),
    ("name,quality,cost\na,0.5,-1\n", "line 2, column 'cost'"),
    # a short or long row is named by its field count, not blamed on a shifted cell
    ("name,quality,cost\na,0.5\n", "line 2: 2 fields but the header has 3"),
    ("name,quality,cost\na,0.5,0.1\nb,0.6,0.2,9\nc,0.7,0.3\n", "line 3: 4 fields but the header has 3"),
    ("name,quality,cost,quality\na,0.5,0.1,0.6\n", "line 1: column 4 repeats the header 'quality'"),
    ("name,quality,cost\na,0.5,0.1\n,0.6,0.2\n", "line 3, column 'name': must be a non-empty name"),
])
def test_bad_csv_cells_name_file_line_and_column(tmp_path, capsys, content, fragment):
    bad, sel = tmp_path / "bad.csv", tmp_path / "sel.csv"
    bad.write_text(content)
    assert main(["solve", str(bad), "--alpha", "0.5", "-o", str(sel)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.csv" in err[0] and fragment in err[0]
    assert not sel.exists()


@pytest.mark.parametrize("argv, fragment", [
    (["solve", "{agents}", "--alpha", "1.5"], "alpha must be in [0, 1]"),
    (["solve", "{agents}"], "--alpha is required"),
    (["solve", "{missing}", "--alpha", "0.5"], "missing.csv: no such file"),
    (["solve", "{agents}", "--alpha", "0.5", "--solver", "nope"], "unknown solver 'nope'"),
    (["solve", "{agents}", "--alpha", "0.5", "--solver", "dpss", "--budget", "1"],
     "does not support the 'budget' constraint"),
    (["solve", "{agents}", "--alpha", "0.5", "--must-take", "zz"], "--must-take: name 1 ('zz') names no agent"),
    (["export", "{agents}", "--alpha", "0.5", "-o", "{tmp}/model.txt"], "must end in .lp or .mps"),
    (["solve", "{agents}", "--alpha", "0.5", "--json", "-o", "-"], "both write to stdout"),
    (["generate", "--n", "0"], "--n must be a positive integer"),
])
def test_user_errors_exit_2_with_one_line(agents, tmp_path, capsys, argv, fragment):
    argv = [a.format(agents=agents, missing=tmp_path / "missing.csv", tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("subsel: error:")
    assert fragment in err[0]
    assert captured.out == ""
    assert not (tmp_path / "model.txt").exists()


def test_knapsack_file_with_optimum(tmp_path, capsys):
    f = tmp_path / "kp.txt"
    f.write_bytes(b"4 10\r\n10 5\r\n40 4\r\n30 6\r\n50 3\r\n")
    o = tmp_path / "kp.opt"
    o.write_text("90\n")
    assert main(["solve", str(f), "--knapsack", "--optimum", str(o), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) == JSON_KEYS | {"known_optimum", "known_optimum_matches"}
    assert d["known_optimum"] == 90.0 and d["objective"] == pytest.approx(90.0)
    assert d["known_optimum_matches"] is True
    assert d["x"][1:] == [0, 1, 0, 1]
    assert main(["solve", str(f), "--knapsack", "--optimum", str(o), "--solver", "cbc"]) == 0
    assert "known_optimum 90 (matches)" in capsys.readouterr().out
    assert main(["solve", str(f), "--knapsack", "--alpha", "0.5"]) == 2
    assert "--alpha does not apply with --knapsack" in capsys.readouterr().err
    f.write_bytes(b"4 10\r\n10 5\r\n40 x\r\n30 6\r\n50 3\r\n")
    assert main(["solve", str(f), "--knapsack"]) == 2
    assert "kp.txt: line 3, column 'w': must be a number; got 'x'" in capsys.readouterr().err


def test_solvers_table_lists_every_backend(capsys):
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    for name in ("dpss", "gss", "cbc", "highs", "ortools-scip", "ortools-cpsat"):
        assert f"\n{name} " in out


def test_solve_names_the_selected_agents_and_the_file_it_wrote(tmp_path, capsys):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,quality,cost,capacity\nacme,0.95,0.2,2\nbolt,0.5,0.1,1\ncorex,0.9,0.95,1\n"
                      "dyna,0.1,0.9,1\n", encoding="utf-8")
    out = tmp_path / "selection.csv"
    assert main(["solve", str(agents), "--alpha", "0.7", "--solver", "dpss", "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # acme (q 0.95, r 0.75) twice and bolt (q 0.5, r 0.4) once: surplus 2*0.25 - 0.2 >= 0
    assert "agents       acme (2 units), bolt" in lines
    assert f"wrote        {out} (name,units for all 4 agents)" in lines
    assert out.read_text(encoding="utf-8") == "name,units\nacme,2\nbolt,1\ncorex,0\ndyna,0\n"
    assert not any(line.startswith("x ") for line in lines)           # names, not positions


def test_solve_lists_at_most_twenty_agents_on_the_console(tmp_path, capsys):
    from subsel.cli.core import SHOW_AGENTS

    agents = tmp_path / "agents.csv"
    agents.write_text("name,quality,cost\n" + "".join(f"a{i},0.9,0.1\n" for i in range(SHOW_AGENTS + 5)),
                      encoding="utf-8")
    assert main(["solve", str(agents), "--alpha", "0.7"]) == 0
    out = capsys.readouterr().out
    listed = next(line for line in out.splitlines() if line.startswith("agents "))
    assert listed.endswith(", and 5 more (write them all with -o)") and f"a{SHOW_AGENTS - 1}," in listed
    assert "wrote " not in out                                        # no -o: nothing written
