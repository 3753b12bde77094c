"""Start-up of ``subsel solve`` on a two-agent instance, as a ratio to importing its libraries, and
of ``subsel --help``, as a ratio to that solve.

A fresh interpreter runs, in turn:

- ``baseline``: ``import numpy, pulp, highspy`` (the libraries a solve cannot do without; pandas
  is imported only where a DataFrame is made, never by a solve);
- ``solve``: ``python -m subsel solve two.csv --alpha 0.5`` (argument parsing, reading the CSV,
  choosing the default solver, solving, printing);
- ``help``: ``python -m subsel --help`` (every command's parser; none of them may load pandas or a
  backend, so the help costs no more than a solve).

With ``--knapsack``, also, against ``python -c "import numpy"`` (``numpy``):

- ``knapsack``: ``python -m subsel knapsack FILE`` on Pisinger's six classic classes (Pisinger,
  "Where are the hard knapsack problems?", Computers & Operations Research 32(9), 2005) at
  n in {10^3, 10^4}, R in {10^3, 10^4}, two instances each (the 48 of ``bench_knapsack.py``), one
  instance per run in turn;
- ``solve2000``: ``python -m subsel solve`` on 2,000 random agents (the paper's generator).

Both are timed as whole processes (wall clock, interpreter start included), interleaved ``--repeat``
times so that load on the machine affects both alike; the ratio of the medians is printed.  The
solve itself takes well under a millisecond: what the ratio measures is what the command imports.

Byte-code: by default the commands run in this environment as it is.  Where ``PYTHONDONTWRITEBYTECODE``
is set, a source checkout's modules have no cached byte-code and every run compiles subsel's modules,
while the installed libraries read the byte-code their install wrote: the printout says so.  With
``--cache-bytecode`` every module (the libraries' and subsel's alike) is compiled once by a warm-up
run into a fresh temporary cache (``PYTHONPYCACHEPREFIX``) and read from it by the timed runs, as
after ``pip install``.

Usage::

    python benchmarks/bench_startup.py [--repeat 15] [--cache-bytecode] [--knapsack]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "import numpy, pulp, highspy"


def timed(cmd: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one run of ``cmd``; fails loudly when the command fails."""
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15, help="interleaved runs of each command (15)")
    ap.add_argument("--cache-bytecode", action="store_true",
                    help="compile every module once into a fresh byte-code cache, as after pip install")
    ap.add_argument("--knapsack", action="store_true",
                    help="also subsel knapsack on the 48 classic instances and subsel solve on 2,000 agents, "
                         "against import numpy")
    args = ap.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory() as tmp:
        if args.cache_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
            bytecode = "every module compiled once into a fresh cache (--cache-bytecode)"
        elif env.get("PYTHONDONTWRITEBYTECODE"):
            bytecode = ("not written (PYTHONDONTWRITEBYTECODE is set): modules without cached byte-code, "
                        "as a source checkout's, are compiled on every run")
        else:
            bytecode = "as the environment caches it (the warm-up run writes what is missing)"
        agents = Path(tmp) / "two.csv"
        agents.write_text("name,quality,cost\na,0.9,0.5\nb,0.4,0.2\n")
        commands = {
            "baseline": [sys.executable, "-c", BASELINE],
            "solve": [sys.executable, "-m", "subsel", "solve", str(agents), "--alpha", "0.5"],
            "help": [sys.executable, "-m", "subsel", "--help"],
        }
        files: list[str] = []
        if args.knapsack:
            files = _knapsack_files(Path(tmp))
            agents2000 = Path(tmp) / "agents2000.csv"
            timed([sys.executable, "-m", "subsel", "generate", "--n", "2000", "--alpha", "0.7", "--seed", "1",
                   "-o", str(agents2000)], env)
            commands.update(numpy=[sys.executable, "-c", "import numpy"],
                            knapsack=[sys.executable, "-m", "subsel", "knapsack", files[0]],
                            solve2000=[sys.executable, "-m", "subsel", "solve", str(agents2000), "--alpha", "0.7"])
        for cmd in commands.values():  # warm the file cache and byte-code
            timed(cmd, env)
        times: dict[str, list[float]] = {k: [] for k in commands}
        runs = max(args.repeat, len(files))   # (every instance at least once)
        for i in range(runs):
            for key, cmd in commands.items():
                if key == "knapsack":
                    cmd = cmd[:-1] + [files[i % len(files)]]
                times[key].append(timed(cmd, env))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{'command':<10} {'median_s':>9} {'min_s':>7}   ({runs} interleaved runs each)")
    for key in commands:
        print(f"{key:<10} {med[key]:>9.3f} {min(times[key]):>7.3f}")
    print(f"baseline = python -c {BASELINE!r}; byte-code: {bytecode}")
    print(f"subsel solve start-up / baseline import: {med['solve'] / med['baseline']:.2f}x (median), "
          f"{min(times['solve']) / min(times['baseline']):.2f}x (min)")
    print(f"subsel --help / subsel solve: {med['help'] / med['solve']:.2f}x (median), "
          f"{min(times['help']) / min(times['solve']):.2f}x (min)")
    if args.knapsack:
        for key, what in (("knapsack", "subsel knapsack FILE (48 classic instances)"),
                          ("solve2000", "subsel solve, 2,000 agents")):
            print(f"{what} / import numpy: {med[key] / med['numpy']:.2f}x (median)")


def _knapsack_files(folder: Path) -> list[str]:
    """The 48 classic instances of ``bench_knapsack.py`` as ``n W`` files (one ``v w`` line per item)."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from subsel.models.instances import HARD_KNAPSACK_CLASSES, KNAPSACK_CLASSES, knapsack_instance

    every = KNAPSACK_CLASSES + HARD_KNAPSACK_CLASSES
    files = []
    for kind in KNAPSACK_CLASSES:
        for n in (1000, 10000):
            for R in (1000, 10000):
                seeds = np.random.SeedSequence([20240601, n, R, every.index(kind)]).spawn(2)
                for rep, seed in enumerate(seeds):
                    p, w, c = knapsack_instance(kind, n, R, np.random.default_rng(seed))
                    path = folder / f"{kind}_{n}_{R}_{rep}.txt"
                    path.write_text(f"{n} {c}\n" + "".join(f"{a} {b}\n" for a, b in zip(p.tolist(), w.tolist())))
                    files.append(str(path))
    return files


if __name__ == "__main__":
    main()
