"""``subsel reproduce`` and ``subsel compare``: files, tables, exit codes, one-line errors."""
import re

import pandas as pd
import pytest

from subsel.cli import main
from subsel.experiments import EXPERIMENTS
from subsel.solvers import available_solvers


def run(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.skipif("cbc" not in available_solvers(), reason="CBC backend not available")
def test_reproduce_all_tiny_writes_every_experiment(tmp_path, capsys):
    code, out, err = run(capsys, "reproduce", "all", "--scale", "tiny", "--out", str(tmp_path))
    assert code == 0, err
    for name in EXPERIMENTS:
        stem = "emsco-sweep-synthetic15" if name == "emsco-sweep" else name   # the sweep names its data set
        assert f"{stem}: " in out or f"{name}: " in out
        for suffix in (".csv", "_summary.csv", ".png", ".md"):
            assert (tmp_path / f"{stem}{suffix}").is_file()
    assert "all: " in out


def test_reproduce_resumes_into_the_same_folder(tmp_path, capsys):
    code, out, _ = run(capsys, "reproduce", "fig2", "--scale", "tiny", "--keep-checkpoint", "--out", str(tmp_path))
    assert code == 0 and "resumed" not in out
    first = pd.read_csv(tmp_path / "fig2.csv")
    code, out, _ = run(capsys, "reproduce", "fig2", "--scale", "tiny", "--out", str(tmp_path))
    assert code == 0
    ckpt = re.escape(str(tmp_path / "fig2.csv.checkpoint.jsonl"))
    assert re.search(rf"^fig2: resumed (\d+) of \1 tasks from {ckpt}$", out, flags=re.M), out
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "fig2.csv"), first)  # times reused too
    assert not (tmp_path / "fig2.csv.checkpoint.jsonl").exists()   # finished, not kept: removed
    assert run(capsys, "reproduce", "fig2", "--scale", "tiny", "--no-resume", "--out", str(tmp_path))[0] == 0
    again = pd.read_csv(tmp_path / "fig2.csv")
    pd.testing.assert_frame_equal(again.drop(columns="wall_time_s"), first.drop(columns="wall_time_s"))


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "fig9"], "unknown experiment 'fig9'; choose one of fig1a"),
    (["reproduce", "fig1a", "--jobs", "0"], "--jobs must be a positive integer"),
    (["reproduce", "fig1a", "--seed", "-1"], "--seed must be >= 0"),
    (["compare", "--solvers", "gss,nope"], "unknown solver 'nope'; known solvers: dpss, gss"),
    (["compare", "--solvers", "gss,gss"], "solvers: 'gss' is listed twice"),
    (["compare", "--solvers", "gss", "--n", "5,x"], "--n: 'x' is not a valid int"),
    (["compare", "--solvers", "gss", "--n", "0"], r"n\[0\] must be a positive integer; got 0"),
    (["compare", "--solvers", "gss", "--alpha", "0.5,1.5"], r"alpha\[1\] must be in \[0, 1\]; got 1.5"),
    (["compare", "--solvers", "gss", "--instances", "0"], "instances must be a positive integer"),
    (["compare", "--solvers", "gss", "--reference", "zzz"], "unknown solver 'zzz'"),
    (["compare", "--solvers", "gss", "--time-limit", "-1"], "--time-limit must be a positive number"),
    (["compare", "--solvers", "gss", "--reference", "gss"], "only the reference 'gss' is listed"),
    (["compare", "--solvers", "dpss"], "only the reference 'dpss' is listed; its ratios to itself"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    code, _, err = run(capsys, *argv, "--out", str(out))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("subsel: error: ")
    assert pytest.importorskip("re").search(message, err)
    assert not out.exists()


def test_out_must_be_a_folder(tmp_path, capsys):
    f = tmp_path / "file.txt"
    f.write_text("x")
    code, _, err = run(capsys, "reproduce", "fig2", "--scale", "tiny", "--out", str(f))
    assert code == 2 and "exists and is not a folder" in err


def test_compare_table_ratios_and_files(tmp_path, capsys):
    code, out, err = run(capsys, "compare", "--solvers", "gss,dpss", "--n", "5,9", "--alpha", "0.6,0.8",
                         "--instances", "3", "--seed", "4", "--out", str(tmp_path))
    assert code == 0, err
    table = pd.read_csv(tmp_path / "compare.csv")
    assert {"n", "alpha", "instance", "seed", "solver", "objective", "status", "wall_time_s"} <= set(table)
    assert len(table) == 2 * 2 * 2 * 3
    ratios = pd.read_csv(tmp_path / "compare_ratios.csv")
    assert set(ratios["solver"]) == {"gss"} and set(ratios["reference"]) == {"dpss"}  # first exact solver
    wide = table.pivot_table(index=["n", "alpha", "instance"], columns="solver", values="objective")
    r = ratios.set_index(["n", "alpha", "instance"])["ratio"]
    ok = wide["dpss"] != 0
    assert ((wide["gss"] / wide["dpss"])[ok] - r.loc[wide.index[ok]]).abs().max() < 1e-12
    assert r.loc[wide.index[~ok]].isna().all()
    t = table.pivot_table(index=["n", "alpha", "instance"], columns="solver", values="wall_time_s")
    tr = ratios.set_index(["n", "alpha", "instance"])["time_ratio"]
    assert ((t["gss"] / t["dpss"]) - tr.loc[t.index]).abs().max() < 1e-12
    for f in ("compare_summary.csv", "compare.png", "compare.md"):
        assert (tmp_path / f).stat().st_size > 0
    assert "(reference dpss)" in (tmp_path / "compare.md").read_text()


def test_compare_adds_a_reference_not_listed_and_writes_parquet(tmp_path, capsys):
    code, _, err = run(capsys, "compare", "--solvers", "gss", "--reference", "dpss", "--n", "6",
                       "--instances", "2", "--format", "parquet", "--out", str(tmp_path))
    assert code == 0, err
    table = pd.read_parquet(tmp_path / "compare.parquet")
    assert list(pd.unique(table["solver"])) == ["dpss", "gss"]


def test_compare_same_instances_whatever_the_other_sizes(tmp_path, capsys):
    run(capsys, "compare", "--solvers", "gss", "--n", "5,7", "--instances", "2", "--out", str(tmp_path / "a"))
    run(capsys, "compare", "--solvers", "gss", "--n", "7", "--instances", "2", "--out", str(tmp_path / "b"))
    a = pd.read_csv(tmp_path / "a" / "compare.csv")
    b = pd.read_csv(tmp_path / "b" / "compare.csv")
    cols = ["n", "alpha", "instance", "seed", "objective"]
    pd.testing.assert_frame_equal(a[a["n"] == 7][cols].reset_index(drop=True), b[cols])


def test_reproduce_on_a_dask_scheduler_matches_serial(tmp_path, capsys):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        code, _, err = run(capsys, "reproduce", "fig2", "--scale", "tiny", "--out", str(tmp_path / "d"),
                           "--scheduler", cluster.scheduler_address)
    assert code == 0, err
    assert run(capsys, "reproduce", "fig2", "--scale", "tiny", "--out", str(tmp_path / "s"))[0] == 0
    d = pd.read_csv(tmp_path / "d" / "fig2.csv").drop(columns="wall_time_s")
    s = pd.read_csv(tmp_path / "s" / "fig2.csv").drop(columns="wall_time_s")
    pd.testing.assert_frame_equal(d, s)


def test_unreachable_scheduler_exits_2(tmp_path, capsys):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, _, err = run(capsys, "reproduce", "fig2", "--scale", "tiny", "--out", str(tmp_path),
                           "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and "cannot connect to the Dask scheduler" in err and err.count("\n") == 1


@pytest.mark.parametrize("name", ["emsco-table2", "all"])
def test_a_missing_data_file_exits_2_in_one_line_before_any_grid(tmp_path, capsys, monkeypatch, name):
    monkeypatch.setenv("SUBSEL_DATA", str(tmp_path / "nonexistent"))
    out = tmp_path / "out"
    code, stdout, err = run(capsys, "reproduce", name, "--scale", "tiny", "--datasets", "pima",
                            "--out", str(out))
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and err.startswith("subsel: error: data file pima_diabetes.csv not found")
    assert not out.exists()  # not even fig1a ran for 'all'


def test_reproduce_data_home_is_checked_and_named(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SUBSEL_DATA", raising=False)
    out = tmp_path / "out"
    code, stdout, err = run(capsys, "reproduce", "emsco-sweep", "--scale", "tiny", "--dataset", "pima",
                            "--data-home", str(tmp_path / "nowhere"), "--out", str(out))
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert "--data-home" in err and "nowhere" in err and "is not a folder" in err
    (tmp_path / "home").mkdir()
    code, stdout, err = run(capsys, "reproduce", "emsco-sweep", "--scale", "tiny", "--dataset", "pima",
                            "--data-home", str(tmp_path / "home"), "--out", str(out))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("subsel: error: data file pima_diabetes.csv not found at " + str(tmp_path / "home"))
    assert not out.exists()


def test_reproduce_reads_a_data_home_instead_of_the_shipped_copy(tmp_path, capsys, monkeypatch):
    from subsel.evolution.datasets import DATA_DIR

    monkeypatch.delenv("SUBSEL_DATA", raising=False)
    home = tmp_path / "home"
    home.mkdir()
    lines = (DATA_DIR / "heart_failure.csv").read_text(encoding="utf-8").splitlines()
    (home / "heart_failure.csv").write_text("\n".join(lines[:151]) + "\n", encoding="utf-8")  # 150 rows
    code, _, err = run(capsys, "reproduce", "emsco-sweep", "--scale", "tiny", "--dataset", "heart",
                       "--data-home", str(home), "--out", str(tmp_path / "out"))
    assert code == 0, err
    table = pd.read_csv(tmp_path / "out" / "emsco-sweep-heart.csv")
    assert set(table["data_home"]) == {str(home.resolve())}


def test_a_missing_data_file_through_the_python_api_leaves_no_checkpoint(tmp_path, monkeypatch):
    from subsel.experiments import run_experiment

    monkeypatch.setenv("SUBSEL_DATA", str(tmp_path / "nonexistent"))
    with pytest.raises(FileNotFoundError, match="data file heart_failure.csv not found"):
        run_experiment("emsco-sweep", tmp_path / "out", scale="tiny", datasets=("heart",))
    assert not (tmp_path / "out").exists()  # checked before the grid: no folder, no checkpoint


def test_compare_without_an_exact_solver_adds_one_as_reference_and_says_so(tmp_path, capsys):
    code, out, err = run(capsys, "compare", "--solvers", "gss", "--n", "6", "--instances", "2",
                         "--out", str(tmp_path))
    assert code == 0, err
    assert "reference exact added to the solvers (none of the listed solvers is exact)" in out
    ratios = pd.read_csv(tmp_path / "compare_ratios.csv")
    assert len(ratios) == 2 and set(ratios["solver"]) == {"gss"} and set(ratios["reference"]) == {"exact"}
    assert (ratios["ratio"] <= 1 + 1e-9).all()  # exact is optimal: gss can only tie or lose
    summary = pd.read_csv(tmp_path / "compare_summary.csv")
    assert len(summary) == 1 and summary.loc[0, "instances"] == 2
    assert "was added automatically" in (tmp_path / "compare.md").read_text()


def test_times_are_labelled_task_grid_in_the_md_and_in_all_on_the_cli_line(tmp_path, capsys):
    code, out, err = run(capsys, "reproduce", "fig2", "--scale", "tiny", "--out", str(tmp_path))
    assert code == 0, err
    assert pytest.importorskip("re").match(r"fig2: \d+\.\d s in all \(task grid, tables, figure, markdown\)", out)
    assert "The task grid took " in (tmp_path / "fig2.md").read_text()


def test_reproduce_help_lists_every_experiment_with_its_paper(capsys):
    from subsel.experiments.registry import DESCRIPTIONS

    code, out, _ = run(capsys, "reproduce", "--help")
    assert code == 0 and "experiments:" in out
    for name in EXPERIMENTS:
        assert DESCRIPTIONS[name] and any(line.split()[:1] == [name] for line in out.splitlines()), name
    assert "Deva et al. 2021" in out and "Hamilton and Fulp 2022" in out


def test_a_finished_run_leaves_no_checkpoint_unless_kept(tmp_path, capsys):
    assert run(capsys, "reproduce", "fig2", "--scale", "tiny", "--out", str(tmp_path / "a"))[0] == 0
    assert (tmp_path / "a" / "fig2.csv").is_file() and not list((tmp_path / "a").glob("*.checkpoint.jsonl"))
    assert run(capsys, "compare", "--solvers", "gss", "--n", "5", "--instances", "2", "--keep-checkpoint",
               "--out", str(tmp_path / "b"))[0] == 0
    assert (tmp_path / "b" / "compare.csv.checkpoint.jsonl").is_file()
