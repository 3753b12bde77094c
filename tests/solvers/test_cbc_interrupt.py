"""Interrupted means cleaned up: Ctrl-C during a ``cbc`` solve removes PuLP's model, start and
answer files and ends the CBC child process (it kept running at full CPU after SIGINT to subsel)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from subsel.cli import main
from subsel.solvers import available_solvers
from subsel.solvers.cbc import end_children_using

pytestmark = pytest.mark.skipif("cbc" not in available_solvers() or not os.path.isdir("/proc"),
                                reason="needs CBC and /proc")

ROOT = Path(__file__).resolve().parents[2]


def children(pid):
    """(pid, command line) of the processes whose parent is ``pid``."""
    out = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            out.append((int(entry), cmd))
    return out


def test_sigint_to_subsel_during_a_cbc_solve_leaves_no_files_and_no_process(tmp_path):
    agents = tmp_path / "mid.csv"
    assert main(["generate", "--n", "20000", "--seed", "1", "-o", str(agents)]) == 0
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "subsel", "solve", str(agents), "--alpha", "0.7",
                             "--budget", "5000", "--solver", "cbc", "--time-limit", "60"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    cbc = []
    deadline = time.monotonic() + 90
    while not cbc and proc.poll() is None and time.monotonic() < deadline:
        cbc = [pid for pid, cmd in children(proc.pid) if b"cbc" in os.path.basename(cmd.split(b"\0")[0]).lower()]
        time.sleep(0.05)
    if not cbc:
        proc.kill()
        proc.wait()
        pytest.skip("the solve ended before CBC was seen running")
    assert any(scratch.iterdir())  # PuLP's files are there while CBC runs
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.decode().strip().splitlines()[-1] == "subsel: interrupted"
    for pid in cbc:
        assert not os.path.exists(f"/proc/{pid}")  # ended (and reaped by subsel)
    assert list(scratch.iterdir()) == []


def test_end_children_using_ignores_processes_without_the_marker():
    assert end_children_using("no-such-marker-" + str(os.getpid())) == []
