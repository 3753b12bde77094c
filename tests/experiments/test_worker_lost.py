"""A Dask worker that dies under a task (killed for memory) is one line and exit code 1, not a
39-line ``KilledWorker`` traceback; the tasks finished before it stay in the checkpoint."""
import os
import time

import pandas as pd
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


def test_workers_paused_for_good_end_the_run_in_one_line(tmp_path, monkeypatch):
    """A worker paused for memory that never falls (a 150 MB worker after importing subsel) would
    wait forever: the run ends with a WorkerLostError naming the pause, the checkpoint kept."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("dask.distributed")
    from subsel.experiments import _dask

    monkeypatch.setattr(_dask, "PAUSED_GIVE_UP_S", 1.0)
    monkeypatch.setattr(_dask, "_LOOK_EVERY_S", 0.2)
    # In-process workers measure this process: far above 80% of a 1 MB limit, so it pauses at once.
    with dask.config.set({"distributed.worker.memory.spill": False, "distributed.worker.memory.target": False}):
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, memory_limit="1MB",
                                      dashboard_address=None) as cluster:
            client = distributed.Client(cluster)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not all(
                    w["status"] == "paused" for w in client.scheduler_info(n_workers=-1)["workers"].values()):
                time.sleep(0.05)
            tasks = grid(0, {"x": [1, 2]})
            out = tmp_path / "squares.csv"
            with pytest.raises(WorkerLostError) as info:
                run_grid(tasks, squares, out, scheduler=client)
            client.close()
    message = str(info.value)
    assert message.startswith("no task finished for ") and "the one Dask worker was paused for memory" in message
    assert "MiB of its 1 MiB limit" in message and "--memory-limit" in message and "rerun resumes" in message
    assert "\n" not in message and not out.exists()


WORKER = {"status": "paused", "memory_limit": 150_000_000, "metrics": {"memory": 139_300_864}}


@pytest.mark.parametrize("workers, since, now, expect_since, gives_up", [
    ({}, None, 100.0, None, False),                                   # no worker: nothing to say
    ({"a": WORKER}, None, 100.0, 100.0, False),                       # the pause starts
    ({"a": WORKER}, 100.0, 159.0, 100.0, False),                      # not yet 60 s
    ({"a": WORKER}, 100.0, 160.0, 100.0, True),                       # 60 s: give up
    ({"a": WORKER, "b": {**WORKER, "status": "running"}}, 100.0, 500.0, None, False),  # one runs: reset
    ({"a": WORKER, "b": WORKER}, 0.0, 500.0, 0.0, True),
])
def test_paused_for_good_decision(workers, since, now, expect_since, gives_up):
    from subsel.experiments._dask import PAUSED_GIVE_UP_S, paused_for_good

    assert PAUSED_GIVE_UP_S == 60.0
    got_since, message = paused_for_good(workers, since, now)
    assert got_since == expect_since
    assert (message is not None) == gives_up
    if gives_up:
        assert "a holds 133 MiB of its 143 MiB limit" in message
        assert ("all 2 Dask workers were" in message) == (len(workers) == 2)


def test_a_scheduler_without_workers_is_waited_for_and_said_once(tmp_path, monkeypatch):
    """No worker connected: the run says so once (a warning naming the scheduler and ``dask worker``) and
    goes on waiting; a worker that connects later runs every task."""
    pytest.importorskip("dask")
    distributed = pytest.importorskip("dask.distributed")
    import threading

    from subsel.experiments import _dask

    monkeypatch.setattr(_dask, "NO_WORKER_WARN_S", 0.3)
    monkeypatch.setattr(_dask, "_LOOK_EVERY_S", 0.1)
    with distributed.LocalCluster(n_workers=0, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        client = distributed.Client(cluster)
        later = threading.Timer(2.0, lambda: cluster.scale(1))
        later.start()
        out = tmp_path / "squares.csv"
        try:
            with pytest.warns(RuntimeWarning) as caught:
                run_grid(grid(0, {"x": [1, 2]}), squares, out, scheduler=client)
        finally:
            later.cancel()
            client.close()
    notices = [str(w.message) for w in caught if "no Dask worker" in str(w.message)]
    assert len(notices) == 1 and cluster.scheduler_address in notices[0] and "dask worker" in notices[0]
    assert sorted(pd.read_csv(out)["y"]) == [1, 4]


@pytest.mark.parametrize("workers, since, now, expect_since, says", [
    ({"a": {}}, None, 100.0, None, False),    # a worker: nothing to say
    ({"a": {}}, 50.0, 100.0, None, False),    # a worker came: reset
    ({}, None, 100.0, 100.0, False),          # alone from now
    ({}, 100.0, 129.0, 100.0, False),         # not yet 30 s
    ({}, 100.0, 130.0, 100.0, True),          # 30 s: say so
])
def test_no_worker_notice_decision(workers, since, now, expect_since, says):
    from subsel.experiments._dask import NO_WORKER_WARN_S, no_worker_notice

    assert NO_WORKER_WARN_S == 30.0
    got_since, message = no_worker_notice(workers, since, now, "tcp://h:8786")
    assert got_since == expect_since and (message is not None) == says
    if says:
        assert message.startswith("no Dask worker has connected to the scheduler tcp://h:8786 for 30 s")
        assert "dask worker tcp://h:8786" in message and "\n" not in message
