"""The experiment runner: seeds, backends give identical tables, resume, checkpoint, validation."""
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsel import SubsetSelectionProblem, get_solver
from subsel.experiments import Task, TaskError, checkpoint_path, grid, run_grid
from subsel.experiments.tasks import solve_instance

TIMES = ["wall_time_s"]


def small_grid(seed=3):
    return grid(seed, {"n": [4, 9], "alpha": [0.6, 0.8], "instance": range(3)},
                fixed={"solvers": ["gss", "dpss"]})


def counting_task(task):
    """Leaves one marker file per call; raises once STOP_AFTER markers exist (a simulated kill)."""
    folder = Path(os.environ["SUBSEL_TEST_MARKERS"])
    stop = folder / "STOP_AFTER"
    calls = sorted(folder.glob("call-*"))
    if stop.exists() and len(calls) >= int(stop.read_text()):
        raise RuntimeError("simulated crash")
    (folder / f"call-{len(calls):04d}-{task.seed}").write_text(task.id)
    rng = task.rng()
    return [{"draw": float(rng.random()), "k": i} for i in range(task.params["instance"] % 3)]


# -- seeds ----------------------------------------------------------------------------------------

def test_task_seed_is_the_nested_spawn_of_the_root():
    task = Task({"n": 10, "alpha": 0.7, "instance": 3}, key=(10, 70, 3), root_seed=42)
    nested = np.random.SeedSequence(42).spawn(11)[10].spawn(71)[70].spawn(4)[3]
    assert np.array_equal(task.seed_sequence().generate_state(4), nested.generate_state(4))
    assert task.seed == int(nested.generate_state(1, np.uint64)[0] >> np.uint64(1))


def test_seed_depends_only_on_root_and_coordinates():
    big = {(t.params["n"], t.params["alpha"], t.params["instance"]): t.seed
           for t in grid(5, {"n": [4, 10, 100], "alpha": [0.5, 0.7], "instance": range(4)})}
    small = grid(5, {"n": [100], "alpha": [0.7], "instance": [2]})
    assert small[0].seed == big[(100, 0.7, 2)]
    assert len(set(big.values())) == len(big)
    other_root = grid(6, {"n": [100], "alpha": [0.7], "instance": [2]})
    assert other_root[0].seed != small[0].seed


def test_grid_rejects_values_without_a_seed_key():
    with pytest.raises(ValueError, match="axis 'n'.*>= 0"):
        grid(0, {"n": [-1]})
    with pytest.raises(ValueError, match="same seed key"):
        grid(0, {"alpha": [0.7, 0.7000000001]})
    with pytest.raises(ValueError, match="axis 'n' is empty"):
        grid(0, {"n": []})
    with pytest.raises(ValueError, match="both an axis and a fixed"):
        grid(0, {"n": [1]}, fixed={"n": 2})
    with pytest.raises(TypeError, match="axis 'x'.*int, float or str"):
        grid(0, {"x": [(1, 2)]})


def test_task_rejects_bad_key_and_root_seed():
    with pytest.raises(ValueError, match=r"key\[1\] must be a non-negative integer"):
        Task({"a": 1}, key=(0, -3))
    with pytest.raises(ValueError, match="root_seed must be a non-negative integer"):
        Task({"a": 1}, key=(0,), root_seed=-1)
    with pytest.raises(TypeError, match="mapping with str keys"):
        Task([1, 2], key=(0,))


# -- backends -------------------------------------------------------------------------------------

def test_rows_carry_params_seed_and_match_a_direct_solve():
    tasks = small_grid()
    df = run_grid(tasks, solve_instance)
    assert len(df) == 2 * len(tasks)
    assert {"n", "alpha", "instance", "seed", "solver", "objective", "status", "wall_time_s"} <= set(df)
    assert "solvers" not in df  # list params are not copied into rows
    row = df.iloc[5]
    problem = SubsetSelectionProblem.random(int(row["n"]), float(row["alpha"]), rng=int(row["seed"]))
    assert get_solver(row["solver"]).solve(problem).objective == row["objective"]


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    yield cluster
    cluster.close()


def test_identical_tables_serial_joblib_dask(tmp_path, dask_cluster):
    tasks = small_grid()
    serial = run_grid(tasks, solve_instance, tmp_path / "serial.csv")
    joblib2 = run_grid(tasks, solve_instance, tmp_path / "joblib.csv", jobs=2)
    dask2 = run_grid(tasks, solve_instance, tmp_path / "dask.csv", scheduler=dask_cluster.scheduler_address)
    pd.testing.assert_frame_equal(serial.drop(columns=TIMES), joblib2.drop(columns=TIMES))
    pd.testing.assert_frame_equal(serial.drop(columns=TIMES), dask2.drop(columns=TIMES))
    from_disk = [pd.read_csv(tmp_path / f).drop(columns=TIMES)
                 for f in ("serial.csv", "joblib.csv", "dask.csv")]
    pd.testing.assert_frame_equal(from_disk[0], from_disk[1])
    pd.testing.assert_frame_equal(from_disk[0], from_disk[2])


def test_unreachable_scheduler_is_a_clear_error():
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}), \
            pytest.raises(ValueError, match="cannot connect to the Dask scheduler"):
        run_grid(small_grid()[:1], solve_instance, scheduler="tcp://127.0.0.1:9")


# -- resume ---------------------------------------------------------------------------------------

@pytest.fixture
def markers(tmp_path, monkeypatch):
    folder = tmp_path / "markers"
    folder.mkdir()
    monkeypatch.setenv("SUBSEL_TEST_MARKERS", str(folder))
    return folder


def test_resume_after_crash_gives_the_uninterrupted_table_without_redoing_tasks(tmp_path, markers):
    tasks = grid(1, {"instance": range(8)})
    clean = run_grid(tasks, counting_task, tmp_path / "clean.csv")
    for f in markers.iterdir():
        f.unlink()

    out = tmp_path / "run.csv"
    (markers / "STOP_AFTER").write_text("3")
    with pytest.raises(TaskError, match=r'task \{"instance":3\}.*simulated crash'):
        run_grid(tasks, counting_task, out)
    assert not out.exists()  # no final table from a failed run
    assert len(checkpoint_path(out).read_text().splitlines()) == 3

    (markers / "STOP_AFTER").unlink()
    resumed = run_grid(tasks, counting_task, out)
    calls = sorted(markers.glob("call-*"))
    assert len(calls) == len(tasks)  # 3 before the crash + 5 after: none redone
    assert len({c.name.split("-", 2)[2] for c in calls}) == len(tasks)
    pd.testing.assert_frame_equal(resumed, clean)
    pd.testing.assert_frame_equal(pd.read_csv(out), pd.read_csv(tmp_path / "clean.csv"))

    again = run_grid(tasks, counting_task, out)  # everything finished: nothing runs
    assert len(list(markers.glob("call-*"))) == len(tasks)
    pd.testing.assert_frame_equal(again, clean)


def test_resume_with_joblib_after_a_partial_serial_run(tmp_path, markers):
    tasks = small_grid()
    full = run_grid(tasks, solve_instance)
    out = tmp_path / "t.parquet"
    run_grid(tasks[:5], solve_instance, out)  # a run of a subset of the grid
    resumed = run_grid(tasks, solve_instance, out, jobs=2)
    pd.testing.assert_frame_equal(resumed.drop(columns=TIMES), full.drop(columns=TIMES))
    on_disk = pd.read_parquet(out)
    pd.testing.assert_frame_equal(on_disk, resumed)
    assert len(checkpoint_path(out).read_text().splitlines()) == len(tasks)


def test_torn_last_checkpoint_line_is_dropped_and_recomputed(tmp_path, markers):
    tasks = grid(2, {"instance": range(4)})
    out = tmp_path / "t.csv"
    first = run_grid(tasks, counting_task, out)
    ckpt = checkpoint_path(out)
    lines = ckpt.read_text().splitlines(keepends=True)
    ckpt.write_text("".join(lines[:2]) + lines[2][: len(lines[2]) // 2])  # killed mid-write
    again = run_grid(tasks, counting_task, out)
    assert len(list(markers.glob("call-*"))) == 4 + 2
    pd.testing.assert_frame_equal(again, first)
    assert all(json.loads(line) for line in ckpt.read_text().splitlines())


def test_other_root_seed_or_no_resume_recomputes(tmp_path, markers):
    out = tmp_path / "t.csv"
    run_grid(grid(0, {"instance": range(3)}), counting_task, out)
    run_grid(grid(1, {"instance": range(3)}), counting_task, out)
    assert len(list(markers.glob("call-*"))) == 6
    run_grid(grid(1, {"instance": range(3)}), counting_task, out, resume=False)
    assert len(list(markers.glob("call-*"))) == 9
    assert len(checkpoint_path(out).read_text().splitlines()) == 3


# -- validation and output ------------------------------------------------------------------------

def test_unknown_extension_fails_before_running(tmp_path, markers):
    with pytest.raises(ValueError, match=r"unknown table format '\.xlsx'"):
        run_grid(grid(0, {"instance": range(2)}), counting_task, tmp_path / "t.xlsx")
    assert not list(markers.glob("call-*"))
    assert not list(tmp_path.glob("t.xlsx*"))


def test_duplicate_tasks_and_bad_backend_options_are_rejected():
    t = Task({"a": 1}, key=(0,))
    with pytest.raises(ValueError, match="same params"):
        run_grid([t, Task({"a": 1}, key=(1,))], solve_instance)
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        run_grid([t], solve_instance, jobs=0)
    with pytest.raises(TypeError, match=r"tasks\[0\] must be a Task"):
        run_grid([{"a": 1}], solve_instance)
    with pytest.raises(TypeError, match="scheduler must be an address"):
        run_grid([t], solve_instance, scheduler=8786)


def bad_rows(task):
    return {"not": "a list"}


def rows_with_object(task):
    return [{"x": object()}]


def test_bad_rows_name_the_task():
    with pytest.raises(TaskError, match='task \\{"a":1\\}: the task function must return a list'):
        run_grid([Task({"a": 1}, key=(0,))], bad_rows)
    with pytest.raises(TaskError, match='task \\{"a":1\\}: value .* cannot be stored'):
        run_grid([Task({"a": 1}, key=(0,))], rows_with_object)


def test_progress_bar_only_when_asked_or_on_a_terminal(capsys):
    tasks = grid(0, {"instance": range(2)}, fixed={"solvers": ["gss"], "n": 3, "alpha": 0.5})
    run_grid(tasks, solve_instance)  # stderr is captured, not a terminal: quiet
    assert capsys.readouterr().err == ""
    run_grid(tasks, solve_instance, progress=True, desc="demo")
    assert "demo" in capsys.readouterr().err


# -- user errors inside a task, and no stray checkpoint --------------------------------------------

def missing_file_task(task):
    raise FileNotFoundError(f"data file d{task.params['i']}.csv not found at /nowhere")


def bad_value_task(task):
    raise ValueError("alpha must be in [0, 1]; got 2")


def test_a_task_user_error_is_reraised_as_that_builtin_type_in_one_line(tmp_path):
    from subsel.experiments import TaskFileNotFoundError, TaskInputError

    with pytest.raises(TaskFileNotFoundError, match=r"^data file d0\.csv not found at /nowhere \(task") as info:
        run_grid(grid(0, {"i": [0, 1]}), missing_file_task, tmp_path / "t.csv")
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, TaskError)
    assert "\n" not in str(info.value) and info.value.task_id == '{"i":0}'
    with pytest.raises(ValueError, match=r"^alpha must be in \[0, 1\]; got 2 \(task") as info:
        run_grid(grid(0, {"i": [0]}), bad_value_task, tmp_path / "v.csv")
    assert isinstance(info.value, TaskInputError)


def test_a_user_error_survives_the_trip_from_a_worker_process(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^data file d\d\.csv not found"):
        run_grid(grid(0, {"i": [0, 1]}), missing_file_task, tmp_path / "t.csv", jobs=2)


def test_a_run_that_finishes_no_task_leaves_no_checkpoint(tmp_path):
    out = tmp_path / "t.csv"
    with pytest.raises(FileNotFoundError):
        run_grid(grid(0, {"i": [0, 1]}), missing_file_task, out)
    assert not checkpoint_path(out).exists() and not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_parquet_without_an_engine_fails_before_any_task(tmp_path, monkeypatch, markers):
    def no_engine(engine):
        raise ImportError("Unable to find a usable engine")

    monkeypatch.setattr(pd.io.parquet, "get_engine", no_engine)
    out = tmp_path / "t.parquet"
    with pytest.raises(ValueError, match="Parquet tables needs pyarrow"):
        run_grid(grid(0, {"instance": range(3)}), counting_task, out)
    assert list(markers.iterdir()) == []  # no task ran
    assert not checkpoint_path(out).exists() and not out.exists()


# -- a run that says what it does ------------------------------------------------------------------

def test_a_resumed_run_says_how_many_tasks_it_reused_and_from_where(tmp_path, markers):
    tasks = grid(1, {"instance": range(5)})
    out = tmp_path / "run.csv"
    said: list[str] = []
    run_grid(tasks[:3], counting_task, out, log=said.append, desc="demo")
    assert said == []                                    # nothing to resume: nothing said
    run_grid(tasks, counting_task, out, log=said.append, desc="demo")
    assert said == [f"demo: resumed 3 of 5 tasks from {checkpoint_path(out)}"]
    assert len(list(markers.glob("call-*"))) == 5       # and it did reuse them


def test_keep_checkpoint_false_removes_it_only_after_a_finished_run(tmp_path, markers):
    tasks = grid(1, {"instance": range(4)})
    out = tmp_path / "run.csv"
    (markers / "STOP_AFTER").write_text("2")
    with pytest.raises(TaskError):
        run_grid(tasks, counting_task, out, keep_checkpoint=False)
    assert len(checkpoint_path(out).read_text().splitlines()) == 2   # a failed run keeps its work
    (markers / "STOP_AFTER").unlink()
    table = run_grid(tasks, counting_task, out, keep_checkpoint=False)
    assert out.is_file() and not checkpoint_path(out).exists()
    assert len(list(markers.glob("call-*"))) == 4 and len(table) == 0 + 1 + 2 + 0
    run_grid(tasks, counting_task, out)                              # the default keeps it
    assert checkpoint_path(out).is_file()


def slow_task(task):
    import time

    time.sleep(0.3)
    return [{"i": task.params["i"]}]


def test_progress_lines_come_while_tasks_run_with_counts_elapsed_and_estimate():
    said: list[str] = []
    run_grid(grid(0, {"i": range(4)}), slow_task, log=said.append, log_every=0.1, desc="slow")
    assert len(said) >= 2                               # about 12 lines over 1.2 s; a loaded machine gives fewer
    pattern = r"slow: ([0-4]) of 4 tasks done, \d+ s elapsed, (about \d+ s remaining|remaining time not known yet)"
    counts = []
    for line in said:
        m = re.fullmatch(pattern, line)
        assert m, line
        counts.append(int(m.group(1)))
    assert counts == sorted(counts) and counts[0] < 4
    assert ("not known yet" in said[0]) == (counts[0] == 0)
    assert all("about" in line for line, k in zip(said, counts) if k > 0)
    with pytest.raises(ValueError, match="log_every must be a positive number of seconds; got 0"):
        run_grid(grid(0, {"i": [1]}), slow_task, log=said.append, log_every=0)


def test_durations_read_naturally():
    from subsel.experiments.runner import _duration

    assert [_duration(s) for s in (0.4, 42, 247, 7500)] == ["0 s", "42 s", "4 min 07 s", "2 h 05 min"]
