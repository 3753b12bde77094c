"""Edge inputs of the command line: option ranges named in exact integers, numpy integers accepted,
no negative zero printed, separators, abbreviations, long names and unwritable outputs."""
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem
from subsel.cli import main
from subsel.solvers import available_solvers, get_solver

MAX = 2 ** 53


@pytest.mark.parametrize("value", [str(2 ** 63), str(2 ** 63 - 1), str(MAX + 1), "1e20", "0", "-3"])
def test_generate_capacity_max_out_of_range_names_the_option(capsys, value):
    assert main(["generate", "--n", "3", "--capacity-max", value, "-o", "-"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"subsel: error: --capacity-max must be an integer in 1..2^53 = {MAX}; "
                   f"got {int(float(value)) if 'e' in value else int(value)}"]


def test_generate_capacity_max_at_2_53_is_accepted(capsys):
    assert main(["generate", "--n", "3", "--seed", "1", "--capacity-max", str(MAX), "-o", "-"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()[1:]
    assert all(1 <= int(r.split(",")[3]) <= MAX for r in rows)


@pytest.mark.parametrize("name", available_solvers())
@pytest.mark.parametrize("threads", [np.int64(2), np.int32(1), np.uint8(3), 2])
def test_numpy_integers_are_integers_for_threads(name, threads):
    solver = get_solver(name, threads=threads)
    assert solver.threads == int(threads) and type(solver.threads) is int


@pytest.mark.parametrize("threads", [np.bool_(True), True, 2.0, np.float64(2)])
def test_threads_refuses_booleans_and_floats(threads):
    with pytest.raises(TypeError, match="threads must be an integer"):
        get_solver("highs", threads=threads)


@settings(max_examples=30)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=6), st.floats(0, 1))
def test_no_negative_zero_objective(agents, alpha):
    problem = SubsetSelectionProblem(quality=[a[0] for a in agents], cost=[a[1] for a in agents], alpha=alpha)
    for name in ("exact", "gss", "dpss"):
        sol = get_solver(name).solve(problem)
        assert not (sol.objective == 0 and math.copysign(1.0, sol.objective) < 0)


def test_cli_prints_zero_not_negative_zero_for_an_empty_selection(tmp_path, capsys):
    f = tmp_path / "a.csv"
    f.write_text("name,quality,cost,capacity\na,0.5,0.9,1\n")
    assert main(["solve", str(f), "--alpha", "0.7"]) == 0
    assert "objective    0\n" in capsys.readouterr().out
    assert main(["solve", str(f), "--alpha", "0.7", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["objective"] == 0.0 and '"objective": -0' not in out


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_a_csv_with_another_separator_gets_a_hint(tmp_path, capsys, sep):
    f = tmp_path / "a.csv"
    f.write_text(sep.join(["name", "quality", "cost", "capacity"]) + "\n" + sep.join(["a", "0.9", "0.1", "1"]) + "\n")
    assert main(["solve", str(f), "--alpha", "0.7"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    hint = "the file seems to be tab-separated" if sep == "\t" else f"the header seems to be separated by {sep!r}"
    assert len(err) == 1 and hint in err[0] and "comma-separated" in err[0]


def test_bandit_init_on_a_folder_says_so_first(tmp_path, capsys):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost\na,0.1\n")
    folder = tmp_path / "states"
    folder.mkdir()
    code = main(["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--epsilon", "0.4",
                 "--horizon", "20", "--state", str(folder)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == [f"subsel: error: --state {folder} is a folder; give a file name "
                                 f"(e.g. {folder / 'state.json'})"]


@pytest.mark.parametrize("argv, option", [
    (["generate", "--ca", "3", "--n", "2"], "--ca"),
    (["solve", "x.csv", "--alp", "0.7"], "--alp"),
    (["compare", "--solver", "gss"], "--solver"),
])
def test_abbreviated_options_are_refused(capsys, argv, option):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"unrecognized arguments: {option}" in err or f"{option}" in err


def test_compare_with_failed_solves_says_so_and_exits_1(tmp_path, capsys):
    out = tmp_path / "c"
    code = main(["compare", "--solvers", "gss,dpss", "--n", "200", "--instances", "2", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("subsel: error: compare: dpss failed on 2 of 2 solves")
    assert (out / "compare.csv").is_file()


@pytest.mark.parametrize("q", ["0.6999999999", "0.69999999999999", "0.7000000001"])
def test_avg_quality_shows_which_side_of_alpha_it_is(tmp_path, capsys, q):
    f = tmp_path / "a.csv"
    f.write_text(f"name,quality,cost,capacity\na,{q},0.1,1\n")
    assert main(["solve", str(f), "--alpha", "0.7"]) == 0
    line = next(s for s in capsys.readouterr().out.splitlines() if s.startswith("avg_quality"))
    shown = float(line.split()[1])
    assert (shown < 0.7) == (float(q) < 0.7) and (shown > 0.7) == (float(q) > 0.7)


def test_a_very_long_name_is_not_printed_in_full(tmp_path, capsys):
    f = tmp_path / "a.csv"
    name = "x" * 100_000
    f.write_text(f"name,quality,cost,capacity\n{name},0.9,0.1,1\n")
    assert main(["solve", str(f), "--alpha", "0.7"]) == 0
    out = capsys.readouterr().out
    assert len(out) < 2000 and "(99940 more characters)" in out


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="needs /proc")
@pytest.mark.parametrize("target", ["/proc/version", "/proc/subsel-new-file"])
def test_output_into_proc_says_no_file_can_be_made_there(capsys, target):
    assert main(["generate", "--n", "2", "-o", target]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"subsel: error: {target}: cannot create a file in folder /proc (a special file system?)"]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_compare_without_failed_solves_warns_nothing(tmp_path, capsys, fmt):
    """A table whose error column is empty (read back as float64 NaN) is checked without a pandas
    warning about filling a float column with a string."""
    import warnings

    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / "c"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = main(["compare", "--solvers", "gss", "--n", "20", "--instances", "2", "--out", str(out),
                     "--format", fmt])
    assert code == 0
    assert "error" not in capsys.readouterr().err
