"""subsel frontier, subsel payments and subsel solve --alternatives: outputs, exit codes, no partial files."""
import json

import numpy as np
import pandas as pd
import pytest

from subsel import SubsetSelectionProblem, alternatives, frontier, payments
from subsel.cli import main
from subsel.decisions import frontier_breakpoints
from tests.decisions.reference import best


@pytest.fixture()
def agents(tmp_path):
    path = tmp_path / "agents.csv"
    assert main(["generate", "--n", "12", "--seed", "5", "-o", str(path)]) == 0
    return path


def _error(capsys, code, argv, match):
    assert main([str(a) for a in argv]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and match in err, err


def test_frontier_grid_to_stdout_matches_the_library(agents, capsys):
    capsys.readouterr()
    assert main(["frontier", str(agents), "--alpha-min", "0.5", "--alpha-max", "0.9", "--points", "5"]) == 0
    out = capsys.readouterr().out
    got = pd.read_csv(pd.io.common.StringIO(out))
    want = frontier(SubsetSelectionProblem.from_csv(agents, alpha=0.5), np.linspace(0.5, 0.9, 5))
    assert list(got.columns) == ["alpha", "objective", "units", "avg_quality", "agents", "status"]
    assert np.allclose(got.objective, want.objective, rtol=1e-9) and got.agents.tolist() == want.agents.tolist()


def test_frontier_breakpoints_and_plot_files(agents, tmp_path, capsys):
    out, png = tmp_path / "f.csv", tmp_path / "f.png"
    argv = ["frontier", agents, "--alpha-min", "0.6", "--alpha-max", "1", "--breakpoints", "--must-take", "3",
            "-o", out, "--plot", png]
    assert main([str(a) for a in argv]) == 0
    got = pd.read_csv(out)
    p = SubsetSelectionProblem.from_csv(agents, alpha=0.6, must_take=["3"])
    want = frontier_breakpoints(p, 0.6, 1.0)
    assert np.allclose(got.alpha_to, want.alpha_to, rtol=1e-9) and got.status.tolist() == want.status.tolist()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"to {out}" in capsys.readouterr().err


@pytest.mark.parametrize("extra,match", [
    (["--alpha-min", "0.9", "--alpha-max", "0.5"], "--alpha-min must be <= --alpha-max"),
    (["--alpha-min", "-0.1", "--alpha-max", "0.5"], "--alpha-min must be in [0, 1]; got -0.1"),
    (["--alpha-min", "0.1", "--alpha-max", "0.5", "--points", "0"], "--points must be a positive integer; got 0"),
    (["--alpha-min", "0.1", "--alpha-max", "0.5", "--points", "3", "--breakpoints"], "exclude each other"),
    (["--alpha-min", "0.1", "--alpha-max", "0.5", "--plot", "-"], "--plot needs a file name"),
    (["--alpha-min", "0.1", "--alpha-max", "0.5", "--breakpoints", "--solver", "gss"],
     "--solver gss does not prove optimality; frontier --breakpoints needs an exact solver: one of "),
    (["--alpha-min", "0.1", "--alpha-max", "0.5", "--solver", "nope"], "unknown solver 'nope'"),
    (["--alpha-min", "0.1", "--alpha-max", "0.5", "--budget", "-1"], "--budget must be >= 0"),
])
def test_frontier_errors_are_one_line_with_exit_2(agents, tmp_path, capsys, extra, match):
    out = tmp_path / "f.csv"
    _error(capsys, 2, ["frontier", agents, *extra, "-o", out], match)
    assert not out.exists()


def test_frontier_refuses_to_write_over_its_input(agents, capsys):
    _error(capsys, 2, ["frontier", agents, "--alpha-min", "0.1", "--alpha-max", "0.5", "-o", agents],
           "would write over the input")


def test_payments_match_the_library(agents, tmp_path, capsys):
    out = tmp_path / "pay.csv"
    assert main(["payments", str(agents), "--alpha", "0.7", "-o", str(out)]) == 0
    got = pd.read_csv(out)
    want = payments(SubsetSelectionProblem.from_csv(agents, alpha=0.7))
    assert list(got.columns) == ["name", "units", "reported_cost", "payment", "payment_per_unit"]
    assert np.allclose(got.payment, want.payment, rtol=1e-9)
    assert (got.payment >= got.units * got.reported_cost - 1e-9).all()


def test_payments_help_offers_no_budget(capsys):
    # payments always refuse a budget (the selection need not be monotone in a report): not offered
    assert main(["payments", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--demand" in out and "--budget" not in out


def test_payments_with_a_must_take_agent_pay_it_without_bound(agents, capsys):
    capsys.readouterr()
    assert main(["payments", str(agents), "--alpha", "0.7", "--must-take", "0"]) == 0
    got = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert np.isinf(got.payment[0])


@pytest.mark.parametrize("extra,match", [
    (["--budget", "2"], "unrecognized arguments: --budget 2"),
    ([], "--alpha is required"),
    (["--alpha", "0.7", "--solver", "gss"],
     "--solver gss does not prove optimality; payments needs an exact solver: one of "),
    (["--alpha", "0.7", "--demand", "13", "--solver", "highs"], "infeasible"),
    # a row over the reported costs is a budget by another name (misreports would pay)
    (["--alpha", "0.7", "--constraint", "cost <= 1"], "--constraint 'cost <= 1': payments take no constraint over"),
    (["--alpha", "0.7", "--constraint", "used(cost) <= 0.6"], "no constraint over the reported costs"),
])
def test_payments_errors(agents, tmp_path, capsys, extra, match):
    out = tmp_path / "pay.csv"
    if extra[:1] == ["--budget"]:
        extra = [*extra, "--alpha", "0.7", "--solver", "highs"]
    _error(capsys, 2, ["payments", agents, *extra, "-o", out], match)
    assert not out.exists()


def test_solve_alternatives_table_csv_and_json(agents, tmp_path, capsys):
    capsys.readouterr()
    assert main(["solve", str(agents), "--alpha", "0.7", "--alternatives", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split() == ["rank", "objective", "units", "avg_quality", "agents", "status", "selection"]
    assert [ln.split()[0] for ln in lines[3:7]] == ["1", "2", "3", "4"]
    want = alternatives(SubsetSelectionProblem.from_csv(agents, alpha=0.7), 4)
    out = tmp_path / "alt.csv"
    assert main(["solve", str(agents), "--alpha", "0.7", "--alternatives", "4", "-o", str(out)]) == 0
    got = pd.read_csv(out, dtype={"name": str})
    assert list(got.columns) == ["rank", "name", "units"]
    for rank, x in zip(want["rank"], want.x):
        rows = got[got["rank"] == rank]
        assert rows.name.tolist() == [str(i) for i in np.flatnonzero(x)]
    capsys.readouterr()
    assert main(["solve", str(agents), "--alpha", "0.7", "--alternatives", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["x"] for r in doc["alternatives"]] == [x.tolist() for x in want.x[:2]]


def test_solve_alternatives_errors(agents, capsys):
    _error(capsys, 2, ["solve", agents, "--alpha", "0.7", "--alternatives", "0"],
           "--alternatives must be a positive integer; got 0")


def test_solve_alternatives_when_fewer_exist(tmp_path, capsys):
    path = tmp_path / "two.csv"
    path.write_text("name,quality,cost\na,0.9,0.1\nb,0.5,0.1\n")
    capsys.readouterr()
    assert main(["solve", str(path), "--alpha", "0.8", "--alternatives", "9"]) == 0
    out = capsys.readouterr().out
    assert "only 2 feasible selections exist" in out and "(nothing)" in out


def test_frontier_breakpoints_with_a_milp_backend(tmp_path, capsys):
    rng = np.random.default_rng(15)
    p = SubsetSelectionProblem(quality=rng.uniform(0, 1, 8), cost=rng.uniform(0, 1, 8),
                               capacity=rng.integers(1, 4, 8), alpha=0.5)
    path, out = tmp_path / "a.csv", tmp_path / "f.csv"
    p.to_csv(path)
    for name in ("highs", "cbc"):
        assert main(["frontier", str(path), "--alpha-min", "0", "--alpha-max", "1", "--breakpoints",
                     "--solver", name, "-o", str(out)]) == 0
        got = pd.read_csv(out)
        want = frontier_breakpoints(SubsetSelectionProblem.from_csv(path, alpha=0.0), 0.0, 1.0)
        assert (got.status == "optimal").all() and np.allclose(got.alpha_to, want.alpha_to, rtol=1e-9)


@pytest.mark.parametrize("ext,magic", [("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_frontier_plot_in_the_format_its_extension_names(agents, tmp_path, ext, magic):
    fig = tmp_path / f"f.{ext}"
    assert main(["frontier", str(agents), "--alpha-min", "0.5", "--alpha-max", "0.9", "--points", "3",
                 "-o", str(tmp_path / "f.csv"), "--plot", str(fig)]) == 0
    assert fig.read_bytes().startswith(magic)


@pytest.mark.parametrize("output", ["nodir/f.csv", "f.csv/"])
def test_a_failing_frontier_leaves_an_existing_plot_as_it_was(agents, tmp_path, capsys, output):
    old = tmp_path / "old.png"
    old.write_bytes(b"the figure of an earlier run")
    _error(capsys, 2, ["frontier", agents, "--alpha-min", "0.5", "--alpha-max", "1", "--points", "3",
                       "-o", f"{tmp_path}/{output}", "--plot", old], f"{tmp_path}/{output}")
    assert old.read_bytes() == b"the figure of an earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agents.csv", "old.png"]  # no temporary left


@pytest.mark.parametrize("name", ["f.txt", "f"])
def test_frontier_plot_refuses_a_name_that_is_no_image(agents, tmp_path, capsys, name):
    out = tmp_path / "f.csv"
    _error(capsys, 2, ["frontier", agents, "--alpha-min", "0.5", "--alpha-max", "0.9", "--plot", tmp_path / name,
                       "-o", out], "is not an image format; use one of")
    assert not out.exists() and not (tmp_path / name).exists()


def test_frontier_breakpoints_with_a_budget_and_a_milp_backend(tmp_path, capsys):
    # no exact cross-check with a budget; at 0.7 + 5e-10 the selection of average quality 0.7 misses
    # the rule by less than HiGHS's float arithmetic resolves: refused by the rule, it is cut off
    path, out = tmp_path / "a.csv", tmp_path / "f.csv"
    SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.5).to_csv(path)
    assert main(["frontier", str(path), "--alpha-min", "0.5", "--alpha-max", "1", "--breakpoints", "--budget",
                 "0.5", "--solver", "highs", "-o", str(out)]) == 0
    got = pd.read_csv(out)  # (thresholds written with 10 digits)
    p = SubsetSelectionProblem.from_csv(path, alpha=0.5, budget=0.5)
    want = frontier_breakpoints(p, 0.5, 1.0, solver="highs")
    assert (got.status == "optimal").all() and got.objective.tolist() == pytest.approx(want.objective.tolist())
    assert want.objective.tolist() == pytest.approx([1.1, 0.6, 0.45, 0.0])
    for row in want.itertuples():
        for alpha in (row.alpha, row.alpha_to):
            assert row.objective == pytest.approx(best(p.with_changes(alpha=alpha)), abs=1e-9)


def test_payments_with_the_planner_columns_use_a_milp_backend(tmp_path):
    f, out = tmp_path / "a.csv", tmp_path / "pay.csv"
    f.write_text("name,quality,cost,capacity,lot_size,min_units,fixed_cost\n"
                 "a,0.9,0.1,5,1,3,0.2\nb,0.8,0.2,5,2,1,0\nc,0.6,0.1,3,1,1,0\n")
    assert main(["payments", str(f), "--alpha", "0.75", "-o", str(out)]) == 0
    got = pd.read_csv(out)
    want = payments(SubsetSelectionProblem.from_csv(f, alpha=0.75), solver="highs")
    assert got.units.tolist() == want.units.tolist() and np.allclose(got.payment, want.payment, rtol=1e-9)
    assert (got.payment >= got.units * got.reported_cost).all()


def test_frontier_points_that_cannot_fit_are_refused_up_front(agents, tmp_path, capsys):
    """A grid whose table cannot fit in memory is refused before any solve (one line, exit 2, no
    file), as other commands refuse work that cannot fit."""
    out = tmp_path / "f.csv"
    code = main(["frontier", str(agents), "--alpha-min", "0.5", "--alpha-max", "0.9", "--points", "1000000000000",
                 "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--points 1000000000000 needs about" in err[0]
    assert not out.exists()


@pytest.mark.parametrize("mode", ["text", "json", "output"])
def test_alternatives_of_an_infeasible_problem_say_why_and_write_nothing(tmp_path, capsys, mode):
    path = tmp_path / "agents.csv"
    path.write_text("name,quality,cost,capacity\na,0.5,0.2,1\nb,0.6,0.1,2\n")
    out = tmp_path / "alt.csv"
    argv = ["solve", str(path), "--alpha", "0.9", "--demand", "2", "--alternatives", "3"]
    argv += {"text": [], "json": ["--json"], "output": ["-o", str(out)]}[mode]
    assert main(argv) == 0
    captured = capsys.readouterr()
    direct = main(["solve", str(path), "--alpha", "0.9", "--demand", "2", "--json"])
    why = json.loads(capsys.readouterr().out)
    assert direct == 0 and why["status"] == "infeasible" and why["explanation"]
    if mode == "json":
        doc = json.loads(captured.out)
        assert doc["alternatives"] == [] and doc["status"] == "infeasible"
        assert doc["explanation"] == why["explanation"] and doc["conflict"] == why["conflict"]
    else:
        assert "status       infeasible" in captured.out and f"why          {why['explanation']}" in captured.out
    if mode == "output":
        assert not out.exists() and "no selection written: status infeasible" in captured.err


def test_solve_alternatives_when_one_exists(tmp_path, capsys):
    path = tmp_path / "one.csv"
    path.write_text("name,quality,cost\na,0.9,0.1\n")
    capsys.readouterr()
    assert main(["solve", str(path), "--alpha", "0.95", "--alternatives", "3"]) == 0
    assert "only 1 feasible selection exists" in capsys.readouterr().out


def _coop(tmp_path):
    """The planner's co-op where ``exact`` cannot prove a step (lot sizes on thousands of units)."""
    path = tmp_path / "coop.csv"
    path.write_text("name,quality,cost,capacity,lot_size\nacme,0.576,4.74,4104,24\nbolt,0.871,8.65,150,1\n"
                    "cork,0.958,10.93,720,24\n")
    return path


def test_frontier_breakpoints_resolution_and_step_budget(tmp_path, capsys):
    path = _coop(tmp_path)
    out = tmp_path / "steps.csv"
    argv = ["frontier", str(path), "--alpha-min", "0.85", "--alpha-max", "0.99", "--R", "14", "--breakpoints"]
    assert main([*argv, "--resolution", "0.01", "-o", str(out)]) == 0
    got = pd.read_csv(out)
    p = SubsetSelectionProblem.from_csv(path, alpha=0.85, R=14.0)
    want = frontier_breakpoints(p, 0.85, 0.99, resolution=0.01)
    assert len(got) == len(want) <= 15 and (got.status == "optimal").all()
    assert np.allclose(got.objective, want.objective, rtol=1e-9) and np.allclose(got.alpha, want.alpha)
    out.unlink()
    capsys.readouterr()
    _error(capsys, 2, [*argv, "--max-steps", "10", "-o", out], "more than max_steps = 10 steps")
    assert not out.exists()


@pytest.mark.parametrize("extra,match", [
    (["--resolution", "0.01"], "--resolution applies to --breakpoints only"),
    (["--max-steps", "5"], "--max-steps applies to --breakpoints only"),
    (["--breakpoints", "--resolution", "1.5"], "--resolution must be in [0, 1]"),
    (["--breakpoints", "--max-steps", "0"], "--max-steps must be a positive integer"),
])
def test_frontier_resolution_and_step_budget_errors(tmp_path, capsys, extra, match):
    _error(capsys, 2, ["frontier", _coop(tmp_path), "--alpha-min", "0.85", "--alpha-max", "0.9", *extra], match)
