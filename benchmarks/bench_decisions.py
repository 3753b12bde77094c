"""Speed of the decision tools against one `exact` solve, as ratios measured in one run.

Two measurements on the paper's random instances (q, c ~ U[0, 1]; Deva, Abhishek, Gujar, AAMAS 2021,
Section 6.1), seeds from ``SeedSequence(--seed)``:

``frontier``
    ``subsel.frontier`` on a 50-point grid of alpha in [0.5, 0.95] for n = 10^4 agents, against one
    `exact` solve at alpha = 0.7 (the fastest of ``--reps`` solves, each followed by a frontier: the
    fastest of those frontiers counts, so that both are taken under the same load).  Target: under 50x.  Also
    against the median solve over the grid's thresholds and the sum of the 50 independent solves
    the frontier replaces; and side by side (each repetition: one frontier, then a block of as many
    alpha-0.7 solves as it makes; the median and the largest ratio).  The solves where the quality
    constraint binds hardest (alpha 0.72 to 0.95 here) cost 1.2 to 2 times the one at 0.7, so the
    ratio to the 0.7 solve is mostly the number of solves the frontier cannot skip times that factor.
    The frontier solves through ``Exact.threshold_solver`` (the problem checked once, per threshold
    the knapsack and the answer check).
``payments``
    ``subsel.payments`` for every agent of an n = 1,000 instance with unit capacities (alpha = 0.7),
    against one `exact` solve.  Target: at most 2 x (selected agents + 1) times one solve (with unit
    capacities a selected agent's critical cost is its cost plus the optimum's loss without it:
    one solve each, plus the solve at the reported costs).

All times are the CPU time of this process for the whole call (``time.process_time``: on a shared
machine the other processes' work does not enter the ratios; everything runs on one thread), each
the fastest of ``--reps``; a single solve is timed on a fresh copy of the problem (a problem caches
derived arrays, and the frontier and payments solve fresh problems; a copy at another threshold
keeps only what does not depend on it, the utilities, as the frontier's copies do).

Usage::

    python benchmarks/bench_decisions.py
    python benchmarks/bench_decisions.py --reps 3 --frontier-n 10000 --payments-n 1000
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from subsel import SubsetSelectionProblem, frontier, get_solver, payments  # noqa: E402
from subsel.solvers.exact import Exact  # noqa: E402


class _Counting(Exact):
    """`exact`, counting its solves (a subclass that replaces ``solve`` is asked at every threshold
    the frontier solves: ``Exact.threshold_solver`` then calls ``solve``)."""

    calls = 0

    def solve(self, problem):
        self.calls += 1
        return super().solve(problem)


def _best_time(fn, reps: int, setup=lambda: None) -> float:
    """The least CPU time of ``reps`` calls of ``fn(setup())`` (setup not timed)."""
    times = []
    for _ in range(reps):
        arg = setup()
        t0 = time.process_time()
        fn(arg)
        times.append(time.process_time() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5, help="repetitions per timing (the fastest counts)")
    ap.add_argument("--frontier-n", type=int, default=10_000, help="agents of the frontier instance")
    ap.add_argument("--points", type=int, default=50, help="thresholds of the frontier grid")
    ap.add_argument("--payments-n", type=int, default=1_000, help="agents of the payments instance")
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args(argv)
    seeds = np.random.SeedSequence(args.seed).spawn(2)
    exact = get_solver("exact")

    p = SubsetSelectionProblem.random(args.frontier_n, 0.7, rng=np.random.default_rng(seeds[0]))
    exact.solve(p)  # warm-up (imports, caches)
    alphas = np.linspace(0.5, 0.95, args.points)
    # The cost of one solve varies with alpha: also the median over the grid's thresholds.
    at = [p.with_changes(alpha=a) for a in alphas]
    per = [_best_time(exact.solve, args.reps, lambda q=q: q.with_changes()) for q in at]
    per_alpha = statistics.median(per)
    counting = _Counting()
    frontier(p, alphas, solver=counting)
    # The fastest single solve and the fastest frontier, taken in the same repetitions (a solve on a
    # fresh copy, then a frontier): on a shared machine the load changes from second to second, and
    # two minima taken seconds apart compared the frontier under one load with the solve under
    # another.  (A fresh copy per solve: a problem caches derived arrays, and the frontier solves
    # fresh problems.)
    one_times, grid_times = [], []
    for _ in range(args.reps):
        one_times.append(_best_time(exact.solve, 1, lambda: p.with_changes(alpha=0.7)))
        grid_times.append(_best_time(lambda _: frontier(p, alphas), 1))
    one, grid = min(one_times), min(grid_times)
    ratio = grid / one
    # The same ratio measured side by side: each repetition times the frontier and then a block of
    # as many alpha-0.7 solves as the frontier makes (fresh copies, prepared untimed), so that both
    # figures are CPU times of similar length taken under the same load of the machine; the fastest
    # of --reps short single solves above is a luckier draw than the fastest of --reps frontiers.
    paired = []
    for _ in range(args.reps):
        t0 = time.process_time()
        frontier(p, alphas)
        f_time = time.process_time() - t0
        copies = [p.with_changes(alpha=0.7) for _ in range(counting.calls)]
        t0 = time.process_time()
        for c in copies:
            exact.solve(c)
        paired.append(f_time / ((time.process_time() - t0) / counting.calls))
    print(f"frontier  n={args.frontier_n} points={args.points}: {counting.calls} solves (the other thresholds "
          f"reuse the previous optimum); one exact solve at alpha 0.7 {one * 1e3:.2f} ms, median over the "
          f"grid's alphas {per_alpha * 1e3:.2f} ms; frontier {grid * 1e3:.1f} ms; ratio {ratio:.1f}x to the "
          f"alpha-0.7 solve, {grid / per_alpha:.1f}x to the median solve (target < {args.points}x); "
          f"{args.points} independent solves {sum(per) * 1e3:.1f} ms (the frontier takes "
          f"{grid / sum(per):.0%} of that); side by side with blocks of {counting.calls} alpha-0.7 solves: "
          f"ratio median {statistics.median(paired):.1f}x, largest {max(paired):.1f}x over {args.reps} repetitions")

    q = SubsetSelectionProblem.random(args.payments_n, 0.7, rng=np.random.default_rng(seeds[1]))
    exact.solve(q)
    one = _best_time(exact.solve, args.reps, lambda: q.with_changes())
    selected = int(np.count_nonzero(exact.solve(q).x))
    pay = _best_time(lambda _: payments(q), args.reps)
    ratio = pay / one
    target = 2 * (selected + 1)
    print(f"payments  n={args.payments_n} (unit capacities), {selected} selected: one exact solve "
          f"{one * 1e3:.2f} ms, payments {pay * 1e3:.1f} ms, ratio {ratio:.1f}x (target <= {target}x = "
          f"2 x (selected + 1): {'met' if ratio <= target else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
