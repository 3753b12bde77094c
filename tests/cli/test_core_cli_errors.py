"""Core CLI behaviour found in a newcomer's test: one-line usage errors, output paths, no selection
written without an answer, knapsack from stdin, LP/MPS to stdout, the solvers table."""
import io
import json
import re
import sys
from pathlib import Path

import pytest

from subsel.cli import core as cli_core
from subsel.cli import main
from subsel.solvers import solver_info
from subsel.solvers.base import RawResult, Solver, Status

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def agents(tmp_path):
    path = tmp_path / "agents.csv"
    assert main(["generate", "--n", "6", "--seed", "2", "-o", str(path)]) == 0
    return path


def one_error_line(capsys):
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1, captured.err
    assert err[0].startswith("subsel: error: ")
    return err[0], captured.out


@pytest.mark.parametrize("argv, fragment", [
    ([], "the following arguments are required: COMMAND (see 'subsel --help')"),
    (["solve", "{agents}", "--alpha", "abc"],
     "argument --alpha: invalid float value: 'abc' (see 'subsel solve --help')"),
    (["generate", "--n", "1_000"], "argument --n: invalid int value: '1_000'"),
    (["generate", "--n", "2.0000000000000001"], "argument --n: invalid int value: '2.0000000000000001'"),
    (["solve", "{agents}", "--alpha", "0.5", "--demand", "1.5"], "argument --demand: invalid int value"),
    (["generate", "--n", "3", "--seed", "abc"], "argument --seed: invalid int value"),
    (["export", "{agents}", "--alpha", "0.5"], "required: -o/--output (see 'subsel export --help')"),
    (["nosuchcommand"], "invalid choice: 'nosuchcommand'"),
    # an unknown option is named by the command's parser, which points to the command's help
    (["solve", "{agents}", "--alpha", "0.5", "--alph", "0.8"],
     "unrecognized arguments: --alph 0.8 (see 'subsel solve --help')"),
    (["payments", "{agents}", "--alpha", "0.5", "--budget", "1"],
     "unrecognized arguments: --budget 1 (see 'subsel payments --help')"),
])
def test_usage_errors_are_one_line_exit_2(agents, capsys, argv, fragment):
    argv = [a.replace("{agents}", str(agents)) for a in argv]
    assert main(argv) == 2
    line, out = one_error_line(capsys)
    assert fragment in line and out == ""


def test_help_still_exits_0(capsys):
    assert main(["solve", "--help"]) == 0
    assert "--knapsack" in capsys.readouterr().out


@pytest.mark.parametrize("make_output, fragment", [
    (lambda tmp: ".", ".: is a folder; give a file name"),
    (lambda tmp: str(tmp / "folder") + "/", "folder/: ends in a path separator"),
    (lambda tmp: str(tmp / "no" / "dir" / "x.csv"), "x.csv: cannot write: folder"),
])
def test_bad_output_paths_name_the_users_path(agents, tmp_path, capsys, make_output, fragment):
    before = sorted(p.name for p in tmp_path.iterdir())
    output = make_output(tmp_path)
    assert main(["solve", str(agents), "--alpha", "0.6", "-o", output]) == 2
    line, _ = one_error_line(capsys)
    assert fragment in line and ".tmp" not in line and "/." not in line.replace("./", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_generate_and_export_into_a_folder_fail_cleanly(agents, tmp_path, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    assert main(["generate", "--n", "5", "-o", str(folder)]) == 2
    assert "results: is a folder" in one_error_line(capsys)[0]
    model = tmp_path / "d.lp"
    model.mkdir()
    assert main(["export", str(agents), "--alpha", "0.6", "-o", str(model)]) == 2
    assert "d.lp: is a folder" in one_error_line(capsys)[0]
    assert list(folder.iterdir()) == [] and list(model.iterdir()) == []


def test_generate_too_many_agents_is_a_one_line_error(capsys):
    assert main(["generate", "--n", str(10 ** 12), "-o", "-"]) == 2
    line, out = one_error_line(capsys)
    assert f"--n {10 ** 12} needs about " in line and "GiB of memory" in line and out == ""


class _NothingInTime(Solver):
    name = "nothing-in-time"
    exact = False
    supports = frozenset({"must_take"})
    complexity = "-"

    def _solve(self, problem):
        return RawResult(None, Status.TIME_LIMIT)


def test_time_limit_without_a_selection_writes_nothing_and_exits_1(agents, tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.setattr(cli_core, "get_solver", lambda name, **options: _NothingInTime(**options))
    sel = tmp_path / "tl.csv"
    # Must-take agent 0 (q 0.26 < 0.5): the smallest selection is not feasible, agent 2 (q 0.81)
    # beside it would be (at 0.99 no selection is, which an aggregate bound says before any solver).
    code = main(["solve", str(agents), "--alpha", "0.5", "--solver", "highs", "--time-limit", "0.001",
                 "--must-take", "0", "-o", str(sel), "--json"])
    captured = capsys.readouterr()
    assert code == 1 and not sel.exists()
    d = json.loads(captured.out)
    assert d["status"] == "no_solution_found" and d["x"] is None and d["objective"] is None
    assert "no selection written: status no_solution_found" in captured.err


def test_time_limit_before_any_selection_writes_the_empty_selection(agents, tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.setattr(cli_core, "get_solver", lambda name, **options: _NothingInTime(**options))
    sel = tmp_path / "tl.csv"
    code = main(["solve", str(agents), "--alpha", "0.6", "--solver", "highs", "--time-limit", "0.001",
                 "-o", str(sel), "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["status"] == "time_limit" and d["x"] == [0] * 6 and d["objective"] == 0.0
    assert sel.read_text().splitlines()[1:] == [f"{i},0" for i in range(6)]


def test_huge_demand_is_infeasible_not_a_solver_failure(agents, capsys):
    code = main(["solve", str(agents), "--alpha", "0.6", "--solver", "highs",
                 "--demand", "99999999999999999999999", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["status"] == "infeasible"


@pytest.mark.parametrize("value", [",", "a0,,a1"])
def test_empty_must_take_names_are_errors(agents, capsys, value):
    assert main(["solve", str(agents), "--alpha", "0.6", "--must-take", value]) == 2
    assert "--must-take: name" in one_error_line(capsys)[0]


KNAPSACK = b"4 10\n10 5\n40 4\n30 6\n50 3\n"  # optimum 90: items 2 and 4


def test_known_optimum_mismatch_is_flagged(tmp_path, capsys):
    f, o = tmp_path / "kp.txt", tmp_path / "kp.opt"
    f.write_bytes(KNAPSACK)
    o.write_text("99\n")
    # an exact solver that says optimal but disagrees with the stated optimum: exit 1
    assert main(["solve", str(f), "--knapsack", "--optimum", str(o), "--solver", "cbc", "--json"]) == 1
    captured = capsys.readouterr()
    d = json.loads(captured.out)
    assert d["known_optimum"] == 99 and d["known_optimum_matches"] is False
    assert "differs from the known optimum 99" in captured.err
    # a known optimum below a feasible selection's value: the known optimum is named as wrong
    o.write_text("80\n")
    assert main(["solve", str(f), "--knapsack", "--optimum", str(o), "--solver", "exact"]) == 1
    assert f"the known optimum 80 ({o}) is below the value 90 of a feasible selection" in capsys.readouterr().err
    o.write_text("99\n")
    # a heuristic above the known optimum proves it wrong: exit 1
    o.write_text("80\n")
    assert main(["solve", str(f), "--knapsack", "--optimum", str(o), "--solver", "gss"]) == 1
    assert f"the known optimum 80 ({o}) is below the value" in capsys.readouterr().err
    o.write_text("99\n")
    # a heuristic below the optimum is no contradiction: flagged, exit 0
    assert main(["solve", str(f), "--knapsack", "--optimum", str(o), "--solver", "gss", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["known_optimum_matches"] is False


PISINGER = b"first\nn 2\nc 5\nz 4\n1,4,5,1\n2,3,5,0\n-----\nsecond\nn 1\nc 5\nz 7\n1,7,2,1\n-----\n"


def test_knapsack_from_stdin_and_instance_index_from_0(monkeypatch, capsys):
    for index, name, optimum in (("0", "first", 4), ("1", "second", 7)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PISINGER), encoding="utf-8"))
        assert main(["solve", "-", "--knapsack", "--instance", index, "--solver", "cbc",
                     "--json"]) == 0
        d = json.loads(capsys.readouterr().out)
        assert d["known_optimum"] == optimum and d["objective"] == pytest.approx(optimum)


@pytest.mark.parametrize("fmt, last", [("lp", "End"), ("mps", "ENDATA")])
def test_export_to_stdout_with_format(agents, tmp_path, capsys, fmt, last):
    assert main(["export", str(agents), "--alpha", "0.6", "-o", "-", "--format", fmt]) == 0
    out = capsys.readouterr().out
    ref = tmp_path / f"m.{fmt}"
    assert main(["export", str(agents), "--alpha", "0.6", "-o", str(ref)]) == 0
    capsys.readouterr()
    assert out == ref.read_text() and out.strip().splitlines()[-1] == last


def test_export_to_stdout_needs_a_format(agents, capsys):
    assert main(["export", str(agents), "--alpha", "0.6", "-o", "-"]) == 2
    assert "needs --format lp or --format mps" in one_error_line(capsys)[0]
    assert main(["export", str(agents), "--alpha", "0.6", "-o", "m.lp", "--format", "mps"]) == 2
    assert "contradicts" in one_error_line(capsys)[0]


def test_selection_csv_quotes_names_with_commas(tmp_path, capsys):
    f = tmp_path / "a.csv"
    f.write_text('name,quality,cost\n"x,1",0.9,0.1\ny,0.8,0.1\n')
    sel = tmp_path / "sel.csv"
    assert main(["solve", str(f), "--alpha", "0.5", "--solver", "dpss", "-o", str(sel)]) == 0
    assert sel.read_text() == 'name,units\n"x,1",1\ny,1\n'


def test_solvers_table_is_aligned_and_matches_the_readme(capsys):
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out.rstrip("\n")
    lines, _, notes = out.partition("\n\n")
    lines = lines.splitlines()
    header = lines[0]
    starts = [header.index(col) for col in ("exact", "complexity", "extensions", "available")]
    rows = {r.name: r for r in solver_info()}
    assert len(lines) == len(rows) + 1
    # under the table, one line per backend with a caveat
    assert notes.splitlines() == [f"{r.name}: {r.caveat}" for r in rows.values() if r.caveat]
    for line in lines[1:]:
        for s in starts:  # every column starts at the header's column, after a blank
            assert line[s - 1] == " " and line[s] != " ", line
    # the documentation's solver table states the same name, exact, complexity and extensions
    docs = (ROOT / "docs" / "solvers.md").read_text(encoding="utf-8")
    table = {}
    for m in re.finditer(r"^\| `([\w-]+)` \| (yes|no) \| (.*?) \| ([\w,]+) \|$", docs, re.M):
        table[m.group(1)] = (m.group(2), m.group(3).replace("\\|", "|"), m.group(4))
    assert set(table) == set(rows)
    for name, r in rows.items():
        assert table[name] == ("yes" if r.exact else "no", r.complexity,
                               ",".join(sorted(r.supports))), name
    # the README's shorter table names every backend once, with the same exact column
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    short = {}
    for m in re.finditer(r"^\| ((?:`[\w-]+`(?:, )?)+) \| (yes|no) \|", readme, re.M):
        for name in re.findall(r"`([\w-]+)`", m.group(1)):
            assert name not in short, name
            short[name] = m.group(2)
    assert short == {name: "yes" if r.exact else "no" for name, r in rows.items()}


@pytest.mark.parametrize("argv, fragment", [
    (["solve", "{agents}", "--alpha", "0.5", "--budget", "-1"], "--budget must be >= 0; got -1.0"),
    (["solve", "{agents}", "--alpha", "1.5"], "--alpha must be in [0, 1]; got 1.5"),
    (["solve", "{agents}", "--alpha", "0.5", "--R", "0"], "--R must be > 0; got 0.0"),
    (["solve", "{agents}", "--alpha", "0.5", "--demand", "-3"], "--demand must be a non-negative integer"),
    (["solve", "{agents}", "--alpha", "0.5", "--demand", "1e309"], "--demand must be at most 1.79e308"),
    (["export", "{agents}", "--alpha", "0.5", "--demand", "1e309", "-o", "{tmp}/m.lp"],
     "--demand must be at most 1.79e308"),
    (["solve", "{agents}", "--alpha", "0.5", "--time-limit", "-1"], "--time-limit must be a number > 0 (seconds)"),
    (["solve", "{agents}", "--alpha", "0.5", "--threads", "0"], "--threads must be an integer in [1, 64]"),
    (["solve", "{agents}", "--alpha", "0.5", "--solver", "nope"], "--solver: unknown solver 'nope'"),
    (["bandit", "simulate", "--policy", "dpss-ucb", "--out", "{tmp}/o", "--epsilon", "0"],
     "--epsilon must be a number in (0, 1]; got 0.0"),
    (["bandit", "simulate", "--policy", "dpss-ucb", "--out", "{tmp}/o", "--oracle", ""],
     "--oracle: unknown solver ''"),
    (["compare", "--solvers", "gss,exact", "--out", "{tmp}/o", "--n", "5,-3"],
     "--n: n[1] must be a positive integer; got -3"),
    (["compare", "--solvers", "gss,exact", "--out", "{tmp}/o", "--alpha", "1.5"],
     "--alpha: alpha[0] must be in [0, 1]"),
    (["compare", "--solvers", "gss,exact", "--out", "{tmp}/o", "--instances", "0"],
     "--instances must be a positive integer"),
    (["compare", "--solvers", "exact,nope", "--out", "{tmp}/o"], "--solvers: unknown solver 'nope'"),
    (["compare", "--solvers", "gss,exact", "--out", "{tmp}/o", "--reference", "nope"],
     "--reference: unknown solver 'nope'"),
])
def test_errors_raised_after_parsing_name_the_option(agents, tmp_path, capsys, argv, fragment):
    """A value the model refuses is reported under the option's name, not the parameter's."""
    argv = [a.replace("{agents}", str(agents)).replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    line, out = one_error_line(capsys)
    assert line.startswith("subsel: error: --") and fragment in line, line
    assert not (tmp_path / "o").exists()


def test_a_csv_error_keeps_its_file_name(tmp_path, capsys):
    """Only a message that starts with a parameter name is rewritten: file errors keep their path."""
    bad = tmp_path / "bad.csv"
    bad.write_text("name,quality,cost\na,1.5,0.1\n")
    assert main(["solve", str(bad), "--alpha", "0.5"]) == 2
    line, _ = one_error_line(capsys)
    assert str(bad) in line and "--alpha" not in line


def test_counts_of_one_are_singular(tmp_path, capsys):
    one = tmp_path / "one.csv"
    one.write_text("name,quality,cost\nA,0.9,0.1\n")
    assert main(["solve", str(one), "--alpha", "0.5"]) == 0
    out = capsys.readouterr().out
    assert f"{one}: 1 agent, alpha 0.5" in out and "selected     1 unit from 1 agent\n" in out
    assert main(["generate", "--n", "1", "--seed", "0", "-o", str(tmp_path / "g.csv")]) == 0
    assert "wrote 1 agent to" in capsys.readouterr().err


def test_export_and_model_headers_count_one_agent_singular(tmp_path, capsys):
    one = tmp_path / "one.csv"
    one.write_text("name,quality,cost\nA,0.9,0.1\n")
    for fmt in ("lp", "mps"):
        out = tmp_path / f"m.{fmt}"
        assert main(["export", str(one), "--alpha", "0.5", "--format", fmt, "-o", str(out)]) == 0
        assert "(1 variable)" in capsys.readouterr().err
        assert "model: 1 agent, alpha" in out.read_text()
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert main(["solve", str(empty), "--alpha", "0.5"]) == 2
    assert "expected an agents CSV" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["", " ", "  "])
def test_an_empty_must_take_list_says_so(agents, capsys, value):
    assert main(["solve", str(agents), "--alpha", "0.5", "--must-take", value]) == 2
    line, _ = one_error_line(capsys)
    assert "--must-take: the name list is empty" in line


def test_a_warning_during_a_command_is_one_line(agents, capsys, monkeypatch):
    """A warning raised while a command runs prints as ``subsel: warning: ...`` on one line (not
    Python's two lines naming a source file), and the command goes on."""
    import warnings

    from subsel.solvers.exact import Exact

    solve = Exact._solve

    def warning_solve(self, problem):
        warnings.warn("first part\n  second part", RuntimeWarning, stacklevel=1)
        return solve(self, problem)

    monkeypatch.setattr(Exact, "_solve", warning_solve)
    assert main(["solve", str(agents), "--alpha", "0.5", "--solver", "exact"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "subsel: warning: first part second part\n" and "status       optimal" in captured.out


def test_group_limits_that_is_a_folder_or_missing_is_named(agents, tmp_path, capsys):
    for path, words in ((tmp_path, "is a folder, not a limits file"), (tmp_path / "none.csv", "no such file")):
        assert main(["solve", str(agents), "--alpha", "0.5", "--group-limits", str(path)]) == 2
        line, _ = one_error_line(capsys)
        assert f"--group-limits {path}: {words}" in line


def test_time_limit_without_a_selection_says_what_to_try(agents, capsys, monkeypatch):
    monkeypatch.setattr(cli_core, "get_solver", lambda name, **options: _NothingInTime(**options))
    code = main(["solve", str(agents), "--alpha", "0.5", "--solver", "highs", "--time-limit", "0.001",
                 "--must-take", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    assert err[0].startswith("subsel: no selection found: status no_solution_found")
    assert "--time-limit" in err[0] and "--solver" in err[0]
