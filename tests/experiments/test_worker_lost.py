"""A Dask worker that dies under a task (killed for memory) is one line and exit code 1, not a
39-line ``KilledWorker`` traceback; the tasks finished before it stay in the checkpoint."""
import os

import pytest

from subsel.experiments import checkpoint_path, grid, run_grid
from subsel.experiments.runner import WorkerLostError


def die_on_three(task):
    """A task function whose worker process dies on x == 3 (as a worker killed for memory does)."""
    if task.params["x"] == 3 and not os.environ.get("SUBSEL_TEST_NO_DEATH"):
        os._exit(1)
    return [{"y": task.params["x"] ** 2}]


def squares(task):
    return [{"y": task.params["x"] ** 2}]


@pytest.fixture()
def fragile_cluster():
    """A cluster whose scheduler gives up on a task after its first worker death."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("dask.distributed")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        yield cluster
        cluster.close()


def test_killed_worker_is_a_worker_lost_error_naming_the_task(tmp_path, fragile_cluster):
    tasks = grid(0, {"x": [1, 2, 3, 4]})
    out = tmp_path / "squares.csv"
    with pytest.raises(WorkerLostError) as info:
        run_grid(tasks, die_on_three, out, scheduler=fragile_cluster.scheduler_address)
    message = str(info.value)
    # the task that killed its worker, or one queued on that worker with it (Dask counts all of them)
    assert any(f"task {t.id} (seed {t.seed}) was lost" in message for t in tasks)
    assert "more memory" in message and "--memory-limit" in message and "rerun resumes" in message
    assert "\n" not in message
    assert not out.exists()
    # the rerun resumes from the checkpoint (when a task had finished) and completes
    ckpt = checkpoint_path(out)
    kept = ckpt.read_text().count("\n") if ckpt.exists() else 0
    assert kept <= 3
    df = run_grid(tasks, squares, out)
    assert sorted(df["y"].tolist()) == [1, 4, 9, 16]


def test_cli_reports_a_lost_worker_in_one_line_with_exit_1(tmp_path, capsys):
    from subsel.cli import experiments as cli_experiments

    def work(out):
        raise WorkerLostError("task x=3 (seed 1) was lost: the Dask worker running it died")

    assert cli_experiments._run_in(str(tmp_path / "out"), work) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["subsel: error: task x=3 (seed 1) was lost: the Dask worker running it died"]
    assert not (tmp_path / "out").exists()  # the folder this run created is removed when empty
