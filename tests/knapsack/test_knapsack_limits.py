"""What stops a knapsack search short: Ctrl-C (with or without a time limit, on every path of the
search) and which limit a solution names as having stopped it (``stopped_by``)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from subsel import solve_knapsack
from subsel.models.instances import knapsack_instance

# A search of many seconds (strongly correlated, weights of 5 10^5 to 10^6, 20,000 items, half the
# total weight as capacity): interrupted after half a second, it must stop within a few seconds.
_SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    from subsel import solve_knapsack
    w = np.random.default_rng(0).integers(500_000, 1_000_001, 20000)
    p, c = w + 100_000, int(w.sum() // 2)
    kwargs = {KWARGS}
    print("ready", flush=True)
    start = time.perf_counter()
    try:
        sol = solve_knapsack(p, w, c, **kwargs)
    except KeyboardInterrupt:
        print("interrupted", time.perf_counter() - start, flush=True)
    else:
        print("finished", sol.status.value, time.perf_counter() - start, flush=True)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("kwargs", [
    "dict(memory_limit_mb=None)",                                   # no time limit
    "dict(memory_limit_mb=None, time_limit_s=600.0)",               # the clock's budgets
    "dict(memory_limit_mb=None, counts=np.full(p.size, 3))",        # bounded: the general path
], ids=["no-limit", "time-limit", "bounded"])
def test_ctrl_c_stops_a_long_search_promptly(kwargs):
    proc = subprocess.Popen([sys.executable, "-c", _SCRIPT.replace("{KWARGS}", kwargs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    word, seconds = out.split()[0], float(out.split()[-1])
    assert word == "interrupted", out
    assert seconds < 5.0, out


def _hard(n: int = 3000):
    w = np.random.default_rng(0).integers(500_000, 1_000_001, n)
    return w + 100_000, w, int(w.sum() // 2)


def test_a_solution_names_the_memory_limit_that_stopped_it():
    p, w, c = knapsack_instance("subset_sum", 2000, 10 ** 13, np.random.default_rng(1))
    sol = solve_knapsack(p, w, c, memory_limit_mb=0.01, time_limit_s=600.0)
    assert sol.status.value == "time_limit"
    assert sol.stopped_by == "memory_limit"


def test_a_solution_names_the_time_limit_that_stopped_it():
    p, w, c = _hard(20000)
    sol = solve_knapsack(p, w, c, memory_limit_mb=None, time_limit_s=0.05)
    assert sol.status.value == "time_limit"
    assert sol.stopped_by == "time_limit"


def test_an_optimal_solution_names_no_limit():
    p, w, c = _hard(300)
    sol = solve_knapsack(p, w, c)
    assert sol.optimal and sol.stopped_by is None
    small = solve_knapsack([10, 7, 6], [5, 4, 3], 8)
    assert small.optimal and small.stopped_by is None
