"""``subsel knapsack``: outputs, exit codes and errors, on both knapsack file formats."""
import io
import json
import sys

import pytest

from subsel.cli import main
from tests.strategies import int_brute_force

#: Weights of 10^8 (beyond Pisinger's large coefficients): refused by the subset-selection encoding.
BIG_VALUES, BIG_WEIGHTS, BIG_CAPACITY = [100000000, 400000003, 300000000, 500000000], \
    [100000000, 100000001, 150000000, 99999999], 300000001
BIG = f"4 {BIG_CAPACITY}\n".encode() + b"".join(f"{p} {w}\n".encode() for p, w in zip(BIG_VALUES, BIG_WEIGHTS))
PISINGER = b"""knapPI_1_4_1000_1
n 4
c 10
z 90
time 0.00
1,10,5,0
2,40,4,1
3,30,6,0
4,50,3,1
-----

second
n 2
c 3
z 7
1,7,3,1
2,5,3,0
-----
"""


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1, captured.err
    assert err[0].startswith("subsel: error: ")
    return err[0]


def test_large_coefficients_solved_exactly(tmp_path, capsys):
    f = tmp_path / "big.txt"
    f.write_bytes(BIG)
    assert main(["knapsack", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "optimal" and d["bound"] == d["value"]
    assert d["value"] == int_brute_force(BIG_VALUES, BIG_WEIGHTS, BIG_CAPACITY)
    assert d["weight"] == sum(a * b for a, b in zip(d["x"], BIG_WEIGHTS)) <= BIG_CAPACITY
    assert set(d) == {"instance", "items", "capacity", "status", "value", "weight", "bound", "x", "wall_time_s",
                      "stopped_by"}
    # Too large for the subset-selection encoding: `solve --knapsack` answers it in integers too ...
    out = tmp_path / "sel.csv"
    assert main(["solve", str(f), "--knapsack", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "status       optimal" in text and f"value        {d['value']}" in text
    assert "exact integer knapsack" in text
    assert out.read_text() == "name,units\nanchor,1\n" + "".join(f"item_{j},{u}\n" for j, u in enumerate(d["x"]))
    assert main(["solve", str(f), "--knapsack", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["x"] == d["x"]
    # ... dpss solves it in integers as well, gss's greedy is checked in integers, a MILP refuses.
    assert main(["solve", str(f), "--knapsack", "--solver", "dpss", "-o", str(out)]) == 0
    assert "status       optimal" in capsys.readouterr().out
    assert out.read_text() == "name,units\nanchor,1\n" + "".join(f"item_{j},{u}\n" for j, u in enumerate(d["x"]))
    assert main(["solve", str(f), "--knapsack", "--solver", "gss"]) == 0
    assert "status       feasible" in capsys.readouterr().out
    assert main(["solve", str(f), "--knapsack", "--solver", "highs", "-o", str(tmp_path / "h.csv")]) == 2
    assert "solve it with the 'exact' solver" in one_error_line(capsys)
    assert not (tmp_path / "h.csv").exists()
    assert main(["solve", str(f), "--knapsack", "--must-take", "item_0"]) == 2
    assert "takes no --budget, --demand or must lists; 'subsel knapsack" in one_error_line(capsys)
    assert main(["solve", str(f), "--knapsack", "--alternatives", "2"]) == 2
    assert "takes no --alternatives; 'subsel knapsack" in one_error_line(capsys)
    assert main(["export", str(f), "--knapsack", "-o", str(tmp_path / "m.lp")]) == 2
    assert "has no exact LP/MPS model (its coefficients would be rounded); 'subsel knapsack" in one_error_line(capsys)
    assert not (tmp_path / "m.lp").exists()


def test_text_summary_and_selection_csv(tmp_path, capsys):
    f = tmp_path / "kp.txt"
    f.write_bytes(PISINGER)
    out = tmp_path / "sel.csv"
    assert main(["knapsack", str(f), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    for line in ("status       optimal", "value        90", "weight       7", "known_optimum 90 (matches)",
                 f"wrote        {out} (name,units for all 4 items)"):
        assert line in text
    assert out.read_text() == "name,units\nitem_0,0\nitem_1,1\nitem_2,0\nitem_3,1\n"
    # -o -: the CSV alone on stdout, the summary on stderr.
    assert main(["knapsack", str(f), "--instance", "second", "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "name,units\nitem_0,1\nitem_1,0\n"
    assert "value        7" in captured.err


def test_stdin_and_optimum_file(tmp_path, monkeypatch, capsys):
    o = tmp_path / "opt"
    o.write_text("40000003\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"2 10000001\n40000003 10000001\n"
                                                                  b"30000000 10000000\n")))
    assert main(["knapsack", "-", "--optimum", str(o), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["value"] == 40000003 and d["known_optimum"] == 40000003 and d["known_optimum_matches"] is True


def test_a_known_optimum_below_the_answer_is_named_as_the_wrong_side(tmp_path, capsys):
    """A feasible selection above the known optimum: the known optimum is what is wrong, and the
    message says where it was stated (the file's 0/1 vector, or the --optimum file)."""
    f, o = tmp_path / "kp.txt", tmp_path / "kp.opt"
    f.write_bytes(b"4 10\n10 5\n40 4\n30 6\n50 3\n1 1 0 0\n")   # the vector's value 50; optimum 90
    assert main(["knapsack", str(f)]) == 1
    err = capsys.readouterr().err
    assert err == ("subsel: the known optimum 50 (the value of the file's 0/1 vector) is below the value 90 of a "
                   "feasible selection (checked): the known optimum is wrong\n")
    o.write_text("89\n")
    assert main(["knapsack", str(f), "--optimum", str(o)]) == 1
    assert f"known optimum 89 ({o}) is below the value 90" in capsys.readouterr().err
    o.write_text("91\n")
    assert main(["knapsack", str(f), "--optimum", str(o)]) == 1
    assert f"value 90 called optimal differs from the known optimum 91 ({o})" in capsys.readouterr().err


def test_wrong_optimum_exits_1(tmp_path, capsys):
    f = tmp_path / "kp.txt"
    # Without the 'x' column (a file whose 'x' disagrees with its 'z' is refused as it is read).
    no_x = b"\n".join(line.rsplit(b",", 1)[0] if line.count(b",") == 3 else line for line in PISINGER.split(b"\n"))
    f.write_bytes(no_x.replace(b"z 90", b"z 91"))
    assert main(["knapsack", str(f)]) == 1
    captured = capsys.readouterr()
    assert "known_optimum 91 (DIFFERS)" in captured.out
    assert "value 90 called optimal differs from the known optimum 91" in captured.err
    f.write_bytes(PISINGER.replace(b"z 90", b"z 91"))
    assert main(["knapsack", str(f)]) == 2
    assert capsys.readouterr().err == (f"subsel: error: {f}: line 4: 'z' (the optimum) states 91 but the selection "
                                       "of column 'x' has value 90\n")


@pytest.mark.parametrize("content, argv, fragment", [
    (b"2 5\n1.5 2\n3 4\n", [], "kp.txt: line 2, column 'p': must be an integer (a float is accepted only when "
                              "integral); got 1.5 (for real-valued data use 'subsel solve --knapsack')"),
    (b"2 5\n1 2\n3 x\n", [], "kp.txt: line 3, column 'w': must be a number; got 'x'"),
    (PISINGER, ["--instance", "7"], "no instance '7'"),
    (PISINGER, ["--time-limit", "0"], "--time-limit must be a number > 0 (seconds)"),
    (PISINGER, ["--memory-limit", "-1"], "--memory-limit must be a number in (0, 1099511627776] (MiB); got -1.0"),
    (PISINGER, ["--memory-limit", "1e13"], "--memory-limit must be a number in (0, 1099511627776] (MiB)"),
    (PISINGER, ["--json", "-o", "-"], "--json and -o - would both write to stdout"),
])
def test_bad_input_one_line_exit_2_no_output(tmp_path, capsys, content, argv, fragment):
    f = tmp_path / "kp.txt"
    f.write_bytes(content)
    out = tmp_path / "sel.csv"
    args = ["knapsack", str(f), *argv]
    if "-o" not in argv:
        args += ["-o", str(out)]
    assert main(args) == 2
    assert fragment in one_error_line(capsys)
    assert not out.exists()


def test_output_over_input_refused(tmp_path, capsys):
    f = tmp_path / "kp.txt"
    f.write_bytes(PISINGER)
    assert main(["knapsack", str(f), "-o", str(f)]) == 2
    assert "would write over the input" in one_error_line(capsys)
    assert f.read_bytes() == PISINGER


TINY = "0000000000000001"  # 10^-16: a float would round 2.0000000000000001 to the integer 2


@pytest.mark.parametrize("content, where", [
    # non-integer data, refused by the integer solver: placed at its line and column
    (b"2 5\n1 2\n3 4.5\n", "line 3, column 'w': must be an integer"),
    (b"2 5.5\n1 2\n3 4\n", "line 1, column 'W': must be an integer"),
    (b"inst\nn 2\nc 5.5\n1,1,2,0\n2,3,4,0\n", "line 3, column 'c': must be an integer"),
    (b"inst\nn 2\nc 5\n\n1,1,2,0\n2,3.5,4,0\n", "line 6, column 'p': must be an integer"),
    # values a float would round onto an integer: refused by the reader, for both commands
    (f"2 2.{TINY}\n1 2\n3 4\n".encode(), f"line 1, column 'W': has a fractional part below float64's "
                                          f"resolution (it would be read as the integer 2); got '2.{TINY}'"),
    (f"2.{TINY} 5\n1 2\n3 4\n".encode(), f"line 1, column 'n': must be a non-negative integer; got '2.{TINY}'"),
    (f"2 5\n1 2.{TINY}\n3 4\n".encode(), "line 2, column 'w': has a fractional part"),
    (f"2 5\n1 2\n3.{TINY} 4\n".encode(), "line 3, column 'p': has a fractional part"),
    (f"inst\nn 1\nc 5.{TINY}\n1,1,2,0\n".encode(), "line 3: 'c' (the capacity) has a fractional part"),
    (f"inst\nn 1.{TINY}\nc 5\n1,1,2,0\n".encode(), "line 2: 'n' (the item count) must be a non-negative integer"),
    (f"inst\nn 1\nc 5\nz 1.{TINY}\n1,1,2,0\n".encode(), "line 4: 'z' (the optimum) has a fractional part"),
])
@pytest.mark.parametrize("command", [["knapsack"], ["solve", "--knapsack"]])
def test_every_knapsack_file_error_names_file_line_and_value(tmp_path, capsys, content, where, command):
    f = tmp_path / "kp.txt"
    f.write_bytes(content)
    out = tmp_path / "sel.csv"
    code = main([*command, str(f), "-o", str(out)])
    if command == ["solve", "--knapsack"] and "must be an integer" in where:
        assert code == 0  # real-valued data are what 'solve --knapsack' is for
        capsys.readouterr()
        return
    assert code == 2
    line = one_error_line(capsys)
    assert line.startswith(f"subsel: error: {f}: {where}")
    assert not out.exists()


def test_optimum_file_below_float_resolution_is_refused(tmp_path, capsys):
    f = tmp_path / "kp.txt"
    f.write_bytes(b"2 5\n1 2\n3 4\n")
    o = tmp_path / "opt"
    o.write_text(f"4.{TINY}\n")
    for command in (["knapsack"], ["solve", "--knapsack"]):
        assert main([*command, str(f), "--optimum", str(o)]) == 2
        assert one_error_line(capsys) == (f"subsel: error: {o}: line 1: the optimum has a fractional part below "
                                          f"float64's resolution (it would be read as the integer 4); got '4.{TINY}'")


def test_a_time_limited_answer_above_the_known_optimum_exits_1(tmp_path, capsys, monkeypatch):
    """Any feasible answer above the known optimum proves it wrong, whatever its status."""
    from subsel.cli import knapsack as cli_knapsack
    from subsel.solvers import Status

    f, o = tmp_path / "kp.txt", tmp_path / "kp.opt"
    f.write_bytes(b"4 10\n10 5\n40 4\n30 6\n50 3\n")   # optimum 90
    o.write_text("85\n")
    real = cli_knapsack.solve_knapsack

    def time_limited(*args, **kwargs):
        sol = real(*args, **kwargs)
        return type(sol)(sol.x, sol.value, sol.weight, Status.TIME_LIMIT, sol.value + 5, sol.wall_time_s)
    monkeypatch.setattr(cli_knapsack, "solve_knapsack", time_limited)
    assert main(["knapsack", str(f), "--optimum", str(o)]) == 1
    assert f"the known optimum 85 ({o}) is below the value 90" in capsys.readouterr().err
    o.write_text("95\n")   # below a time-limited answer's bound: no contradiction
    assert main(["knapsack", str(f), "--optimum", str(o)]) == 0


def test_a_search_stopped_by_the_memory_limit_says_so(tmp_path, capsys):
    """Without a time limit, a search short of the proof was stopped by the memory limit: the
    summary and the JSON name it, and how to raise it."""
    import numpy as np

    from subsel.models import knapsack_instance

    p, w, c = knapsack_instance("subset_sum", 2000, 10 ** 13, np.random.default_rng(1))
    f = tmp_path / "ss.txt"
    f.write_text(f"{len(p)} {c}\n" + "".join(f"{a} {b}\n" for a, b in zip(p, w)))
    assert main(["knapsack", str(f), "--memory-limit", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "status       time_limit" in out
    assert "stopped      memory limit (0.01 MiB of state lists; raise it with --memory-limit)" in out
    assert main(["knapsack", str(f), "--memory-limit", "0.01", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stopped_by"] == "memory_limit"
    assert main(["knapsack", str(f), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["stopped_by"] is None or answer["stopped_by"] == "memory_limit"


def test_a_search_stopped_early_by_the_time_limit_names_the_time_limit(tmp_path, capsys, monkeypatch):
    """The search stops before its time limit when the next step would end past it: a solution
    stopped so (``stopped_by`` time_limit, ``wall_time_s`` below the limit) is told as stopped by the
    time limit, not by the memory limit."""
    import dataclasses

    from subsel.cli import knapsack as cli_knapsack

    real = cli_knapsack.solve_knapsack

    def early(*args, **kwargs):
        sol = real(*args, **kwargs)
        return dataclasses.replace(sol, status=type(sol.status)("time_limit"), stopped_by="time_limit",
                                   wall_time_s=0.0)

    monkeypatch.setattr(cli_knapsack, "solve_knapsack", early)
    f = tmp_path / "k.txt"
    f.write_text("3 8\n10 5\n7 4\n6 3\n")
    assert main(["knapsack", str(f), "--time-limit", "5"]) == 0
    assert "stopped      time limit (5 s; raise it with --time-limit)" in capsys.readouterr().out
    assert main(["knapsack", str(f), "--time-limit", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stopped_by"] == "time_limit"


@pytest.mark.parametrize("content", [b"0 10\n", b"inst\nn 0\nc 10\nz 0\n"])
def test_an_instance_without_items_is_solved_as_the_python_api_solves_it(tmp_path, capsys, content):
    """``solve_knapsack`` takes no items (nothing taken, value 0, optimal); the file formats now do
    too (an item count of 0 was refused as "must be a positive integer")."""
    f = tmp_path / "kp.txt"
    f.write_bytes(content)
    out = tmp_path / "sel.csv"
    assert main(["knapsack", str(f), "--json", "-o", str(out)]) == 0
    answer = json.loads(capsys.readouterr().out)
    got = (answer["items"], answer["status"], answer["value"], answer["weight"], answer["x"])
    assert got == (0, "optimal", 0, 0, [])
    assert answer["bound"] == 0 and answer["stopped_by"] is None
    assert out.read_text() == "name,units\n"
    # Its encoding as subset selection needs an item: refused by name, pointing to 'subsel knapsack'.
    assert main(["solve", "--knapsack", str(f)]) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"subsel: error: {f} (") and line.endswith(f"'subsel knapsack {f}' solves it")
