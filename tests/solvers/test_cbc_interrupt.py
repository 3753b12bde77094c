"""Interrupted means cleaned up: Ctrl-C during a ``cbc`` solve removes PuLP's model, start and
answer files and ends the CBC child process (it kept running at full CPU after SIGINT to subsel)."""
import glob
import os
import signal
import tempfile
import threading
import time

import numpy as np
import pytest

from subsel import SubsetSelectionProblem
from subsel.solvers import available_solvers, get_solver
from subsel.solvers.cbc import end_children_using

pytestmark = pytest.mark.skipif("cbc" not in available_solvers() or not os.path.isdir("/proc"),
                                reason="needs CBC and /proc")


def cbc_children():
    """Pids of this process's children running on a subsel-cbc folder."""
    me, out = os.getpid(), []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me and b"subsel-cbc-" in cmd:
            out.append(int(entry))
    return out


def test_ctrl_c_during_a_cbc_solve_leaves_no_files_and_no_process():
    rng = np.random.default_rng(0)
    problem = SubsetSelectionProblem.random(20000, alpha=0.7, rng=rng).with_changes(budget=5000.0)
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "subsel-cbc-*")))
    seen = []

    def interrupt_when_cbc_runs():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            kids = cbc_children()
            if kids:
                seen.extend(kids)
                time.sleep(0.3)
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=interrupt_when_cbc_runs, daemon=True)
    watcher.start()
    with pytest.raises(KeyboardInterrupt):
        get_solver("cbc", time_limit_s=60).solve(problem)
        time.sleep(5)  # the solve ended before the watcher saw CBC: wait for its signal
    watcher.join(5)
    assert seen, "CBC never ran"
    assert cbc_children() == []
    for pid in seen:
        assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "subsel-cbc-*"))) == before


def test_end_children_using_ignores_processes_without_the_marker():
    assert end_children_using("no-such-marker-" + str(os.getpid())) == []
