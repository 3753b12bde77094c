"""Interrupted means cleaned up: a parallel run (joblib workers) stopped with SIGTERM or Ctrl-C
leaves no temporary files of its tasks behind (a worker ended mid-task runs no clean-up of its own:
PuLP's model files for CBC stayed in the temporary folder, 8 times in 10)."""
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The parent process: run_grid on two workers, SIGTERM turned into a clean stop as the CLI does.
PARENT = """
import sys
from subsel.cli.guards import Terminated, shutdown_worker_pools, terminate_as_interrupt
from subsel.experiments import grid, run_grid
from tests.experiments.test_interrupted_run import hold_a_temporary_folder

try:
    with terminate_as_interrupt():
        try:
            run_grid(grid(0, {"x": [0, 1, 2, 3]}), hold_a_temporary_folder, jobs=2)
        finally:
            shutdown_worker_pools()
except Terminated:
    sys.exit(143)
except KeyboardInterrupt:
    sys.exit(130)
"""


def hold_a_temporary_folder(task):
    """A task that, as a CBC solve does, works in a temporary folder it would remove at its end."""
    with tempfile.TemporaryDirectory(prefix="subsel-cbc-") as folder:
        Path(folder, "model.mps").write_text("a model\n")
        time.sleep(120)
    return [{"x": task.params["x"]}]


def _leftovers(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stopped_parallel_run_leaves_no_temporary_files(tmp_path, sig, code):
    pytest.importorskip("joblib")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", PARENT], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if len([p for p in scratch.rglob("model.mps")]) >= 2:  # both workers are inside a task
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
    assert len(list(scratch.rglob("model.mps"))) >= 2, "the workers never started their tasks"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err.decode()[-2000:]
    time.sleep(0.5)  # a worker still ending would show its files now
    assert _leftovers(scratch) == []
