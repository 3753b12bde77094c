"""Time to explain an infeasible planner problem against the infeasible verdict alone, in one run.

Generated produce cooperatives (:func:`subsel.models.planner_instance`) made infeasible five ways:

``demand``
    a demand above the units the regions' caps allow (their sum plus one);
``budget``
    a budget below the cheapest plan that meets the demand (half the generated budget);
``pledge``
    a region's minimum above its cap: the first region pledges to use so many agents that their
    smallest minimum orders exceed its unit cap;
``quality``
    a quality floor no mix reaches (``alpha`` above every quality);
``must_take``
    a must-take agent in a region capped at zero agents (``max_agents = 0``).

For each, in one run and alternated: the whole command ``subsel solve FILE ... --json`` (a
subprocess: start-up, reading, the verdict and its explanation) and the infeasible verdict alone,
the same command with ``--no-explain``.  The ratio command / verdict is printed per case, with the
conflict, the members left undecided and the advice not proven the nearest (each advised change
is verified by the command itself: a selection passes the feasibility rule with it).

Usage::

    python benchmarks/bench_explain.py --n 500 5000 --reps 1
    python benchmarks/bench_explain.py --n 50000 --ways demand,budget --time-limit 60
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from subsel.models import SubsetSelectionProblem, group_limits_csv_text, planner_instance, problem_to_csv_text

WAYS = ("demand", "budget", "pledge", "quality", "must_take")


def infeasible(problem: SubsetSelectionProblem, way: str) -> SubsetSelectionProblem:
    """``problem`` made infeasible the way named (see the module's docstring)."""
    limits = {g: dict(v) for g, v in problem.group_limits.items()}
    if way == "demand":
        return problem.with_changes(demand=sum(v["max_units"] for v in limits.values()) + 1)
    if way == "budget":
        return problem.with_changes(budget=round(problem.budget / 2, 2))
    first = next(iter(limits))
    inside = np.flatnonzero(np.array([g == first for g in problem.group]))
    if way == "pledge":
        smallest = np.cumsum(np.sort(problem.min_units[inside]))
        over = int(np.searchsorted(smallest, limits[first]["max_units"], side="right")) + 1
        if over > inside.size:  # the whole region's minimum orders fit the cap: lower the cap
            limits[first]["max_units"] = int(smallest[-1]) - 1
            over = inside.size
        limits[first]["min_agents"] = over
        return problem.with_changes(group_limits=limits)
    if way == "quality":
        return problem.with_changes(alpha=min(float(problem.quality.max()) + 0.001, 1.0))
    if way == "must_take":
        limits[first]["max_agents"] = 0
        limits[first].pop("min_agents", None)
        return problem.with_changes(group_limits=limits, must_take=[int(inside[0])])
    raise ValueError(f"unknown way {way!r}")


def command(problem: SubsetSelectionProblem, folder: Path, time_limit: float | None) -> list[str]:
    agents, limits = folder / "agents.csv", folder / "limits.csv"
    agents.write_text(problem_to_csv_text(problem))
    limits.write_text(group_limits_csv_text(problem.group_limits))
    cmd = [sys.executable, "-m", "subsel", "solve", str(agents), "--alpha", repr(problem.alpha), "--R",
           repr(problem.R), "--group-limits", str(limits), "--json"]
    if problem.demand is not None:
        cmd += ["--demand", str(problem.demand)]
    if problem.budget is not None:
        cmd += ["--budget", repr(problem.budget)]
    if problem.must_take.size:
        cmd += ["--must-take", ",".join(problem.names[i] for i in problem.must_take.tolist())]
    if time_limit is not None:
        cmd += ["--time-limit", str(time_limit)]
    return cmd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[500, 5000])
    ap.add_argument("--ways", default=",".join(WAYS))
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--time-limit", type=float, default=None, help="passed to subsel solve --time-limit")
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    print(f"{'n':>6} {'way':10} {'verdict_s':>9} {'command_s':>9} {'ratio':>6}  conflict / explanation")
    for n in args.n:
        base = planner_instance(n, args.seed)
        for way in args.ways.split(","):
            problem = infeasible(base, way)
            with tempfile.TemporaryDirectory() as tmp:
                cmd = command(problem, Path(tmp), args.time_limit)
                verdicts, commands = [], []
                out: dict = {}
                for _ in range(args.reps):  # alternated: load from others cancels in the ratio
                    for timed, extra in ((verdicts, ["--no-explain"]), (commands, [])):
                        t0 = time.perf_counter()
                        done = subprocess.run(cmd + ["--solver", args.solver, *extra], capture_output=True,
                                              text=True, env=env, check=False)
                        timed.append(time.perf_counter() - t0)
                        if done.returncode != 0:
                            raise SystemExit(f"{way}: exit {done.returncode}: {done.stderr.strip()}")
                        answer = json.loads(done.stdout)
                        assert answer["status"] == "infeasible", (way, answer["status"])
                        if not extra:
                            out = answer
            v, c = min(verdicts), min(commands)
            conflict = out["conflict"]
            print(f"{n:>6} {way:10} {v:9.3f} {c:9.3f} {c / v:6.2f}  {conflict['constraints']} "
                  f"undecided {conflict['undecided']} unproven {conflict['unproven']}: {out['explanation']}",
                  flush=True)


if __name__ == "__main__":
    main()
