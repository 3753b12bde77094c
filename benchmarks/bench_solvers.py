"""Median seconds per solve of every solver backend on the paper's random instances (Deva et al.,
AAMAS 2021, Section 6.1).

For alpha = 0.7 and each n, ``--instances`` instances ``q, c ~ U[0, 1]`` (Deva et al., Section 6.1)
are drawn from independent streams ``SeedSequence(seed).spawn(k)``; every requested backend solves
each one and the table shows the median wall time per solve (model building included), then the
ratios t_cbc / t_gss and t_dpss / t_gss measured in this same run.

A backend is skipped at a size (and every larger size) once a solve there takes longer than
``--max-seconds`` or stops at that time limit; DPSS-like backends that expose
``enumeration_size(problem)`` are skipped when the enumeration would exceed ``--max-enumeration``
selections.  The table says so.  Backends are iterated by registry name, so a newly registered
backend (e.g. ``exact``) is benchmarked with ``--solvers NAME`` or by default, with no code change.

Usage::

    python benchmarks/bench_solvers.py                       # every available backend
    python benchmarks/bench_solvers.py --solvers gss,dpss,cbc --sizes 10,20,100 --instances 3
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from subsel.models import SubsetSelectionProblem  # noqa: E402
from subsel.solvers import Status, available_solvers, get_solver  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--solvers", default=None, help="comma-separated backend names (default: all available)")
    p.add_argument("--sizes", default="10,20,100,1000,10000,100000", help="comma-separated n")
    p.add_argument("--large-sizes", default="1000000", help="extra sizes run only for --large-solvers")
    p.add_argument("--large-solvers", default="gss", help="backends also run at --large-sizes")
    p.add_argument("--instances", type=int, default=5, help="instances per size (median over them)")
    p.add_argument("--alpha", type=float, default=0.7)
    p.add_argument("--seed", type=int, default=2021)
    p.add_argument("--max-seconds", type=float, default=60.0,
                   help="time limit per solve; past it a backend is skipped at larger sizes")
    p.add_argument("--max-enumeration", type=float, default=2.0 ** 30,
                   help="skip enumeration backends (DPSS) above this many selections")
    return p.parse_args(argv)


def instances(n: int, k: int, alpha: float, seed: int) -> list[SubsetSelectionProblem]:
    streams = np.random.SeedSequence([seed, n]).spawn(k)
    return [SubsetSelectionProblem.random(n, alpha, np.random.default_rng(s)) for s in streams]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    names = args.solvers.split(",") if args.solvers else available_solvers()
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    large = [int(float(s)) for s in args.large_sizes.split(",") if s]
    large_solvers = set(args.large_solvers.split(",")) if args.large_solvers else set()
    all_sizes = sorted(set(sizes) | set(large))

    solvers = {name: get_solver(name, time_limit_s=args.max_seconds) for name in names}
    warm = instances(10, 1, args.alpha, args.seed)[0]
    for s in solvers.values():  # imports and first-call set-up are not timed
        s.solve(warm)

    times: dict[tuple[str, int], float] = {}
    notes: dict[tuple[str, int], str] = {}
    dead: dict[str, str] = {}
    mismatches: list[str] = []
    for n in all_sizes:
        probs = instances(n, args.instances, args.alpha, args.seed)
        optimum: list[float | None] = [None] * len(probs)
        for name, solver in solvers.items():
            if n not in sizes and name not in large_solvers:
                notes[(name, n)] = "-"
                continue
            if name in dead:
                notes[(name, n)] = dead[name]
                continue
            enum = getattr(solver, "enumeration_size", None)
            if enum is not None:
                worst = max(enum(p) for p in probs)
                if worst > args.max_enumeration:
                    notes[(name, n)] = f"skip 2^{np.log2(worst):.0f}"
                    dead[name] = "skip (hopeless)"
                    continue
            elapsed = []
            for i, p in enumerate(probs):
                t0 = time.perf_counter()
                sol = solver.solve(p)
                dt = time.perf_counter() - t0
                elapsed.append(dt)
                if sol.status is Status.TIME_LIMIT or dt > args.max_seconds:
                    dead[name] = f"skip (>{args.max_seconds:g} s)"
                    break
                if solver.exact and sol.status is Status.OPTIMAL:
                    if optimum[i] is None:
                        optimum[i] = sol.objective
                    elif abs(optimum[i] - sol.objective) > 1e-9 * max(1.0, abs(optimum[i])):
                        mismatches.append(f"n={n} instance {i}: {name} {sol.objective!r} vs {optimum[i]!r}")
            if name in dead:
                notes[(name, n)] = f">{args.max_seconds:g} s"
                continue
            times[(name, n)] = statistics.median(elapsed)
            print(f"  n={n:>8} {name:<14} median {times[(name, n)]:.4g} s", file=sys.stderr, flush=True)

    ratio_cols = [(f"t_{a}/t_gss", a) for a in ("cbc", "dpss") if a in solvers and "gss" in solvers]
    width = max(12, max(len(nm) for nm in names) + 2)
    header = f"{'n':>9} " + "".join(f"{nm:>{width}}" for nm in names) + "".join(f"{c:>14}" for c, _ in ratio_cols)
    print(f"median seconds per solve (alpha = {args.alpha}, {args.instances} instances per n, seed {args.seed})")
    print(header)
    for n in all_sizes:
        cells = []
        for nm in names:
            cells.append(f"{times[(nm, n)]:>{width}.4g}" if (nm, n) in times else f"{notes.get((nm, n), '-'):>{width}}")
        for _, a in ratio_cols:
            if (a, n) in times and ("gss", n) in times and times[("gss", n)] > 0:
                cells.append(f"{times[(a, n)] / times[('gss', n)]:>14.3g}")
            else:
                cells.append(f"{'-':>14}")
        print(f"{n:>9} " + "".join(cells))
    if mismatches:
        print("exact backends disagree:\n  " + "\n  ".join(mismatches))
    else:
        print("exact backends agree on every optimum they proved (rel. 1e-9).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
