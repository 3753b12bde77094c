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

``--planner N`` (instead of the two above)
    The three tools on a produce co-op of ``N`` agents (``subsel.models.planner_instance``: minimum
    orders, lot sizes, fixed costs, regional caps and a pledge, a binding budget and demand), each
    with the registry's default solver for the instance (``subsel.solvers.default_solver``: HiGHS,
    the default for budgets, demands and group limits) and with `exact`, as ratios to one solve of
    the same instance by the same solver (the fastest of ``--reps``), each tool timed once
    (``--planner-reps``), every solve the tool makes counted and timed; the instance is
    ``planner_instance(N, --seed)``, the one ``subsel generate --planner --n N --seed S`` writes:

    - ``frontier`` on a ``--planner-points`` grid of alpha in [0.5, 0.95] (default 20 points: a
      planner solve costs about a second at N = 100, not milliseconds).  Target: under
      ``points`` x, fewer than one solve per threshold, as the 50-point target above;
    - ``alternatives`` with ``k = --planner-k`` (default 5).  The decisions page sets no target; with
      no-good cuts it costs "about k solves" (one more per group of tied utilities, the j-th solve
      with j - 1 cut rows), which is printed beside the ratio.  `exact` has no cuts, and the
      partition it would use refuses the planner's fields: the refusal is printed (as is any
      error a tool raises, such as a solve stopped by the time limit);
    - ``payments`` on the instance without its budget (payments refuse a budget: the selection
      need not be monotone in the reports).  Target: at most 2 x (selected agents + 1) solves of
      that instance, as above (there for unit capacities: here a selected agent's units step down a
      lot at a time, each step found by up to two solves).  The payments take most of the run: at
      N = 100 about 260 to 300 solves per solver (6 to 8 per selected agent), some 2.5 to 5 CPU
      minutes each, as measured on two instances.

    `exact` gets a time limit of ``--planner-limit`` seconds per solve (default 10) so that a run
    ends: the thresholds past the highest feasible quality, where `exact` may search without
    proving the problem infeasible, are then counted and timed as unproven solves.  The default
    solver runs without one (a time limit makes the MILP pipeline ask `exact` for a starting plan
    first: another solver).  On these instances no solver takes the shortcuts of the paper's model
    (``threshold_solver``, ``exclusion_solver``): each threshold, each agent left out and each
    no-good cut is one ``solve`` (or ``solve_excluding``), which a subclass counts here.

All times are the CPU time of this process for the whole call (``time.process_time``: on a shared
machine the other processes' work does not enter the ratios; everything runs on one thread, HiGHS's
own threads counted if it starts any), each the fastest of ``--reps``; a single solve is timed on a
fresh copy of the problem (a problem caches derived arrays, and the frontier and payments solve
fresh problems; a copy at another threshold keeps only what does not depend on it, the utilities,
as the frontier's copies do).

Usage::

    python benchmarks/bench_decisions.py
    python benchmarks/bench_decisions.py --reps 3 --frontier-n 10000 --payments-n 1000
    python benchmarks/bench_decisions.py --planner 100 --planner-points 20 --planner-k 5
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

from subsel import SubsetSelectionProblem, alternatives, frontier, get_solver, payments  # noqa: E402
from subsel.models import planner_instance  # noqa: E402
from subsel.solvers import Solver, default_solver  # noqa: E402
from subsel.solvers.exact import Exact  # noqa: E402


class _Counting(Exact):
    """`exact`, counting its solves (a subclass that replaces ``solve`` is asked at every threshold
    the frontier solves: ``Exact.threshold_solver`` then calls ``solve``)."""

    calls = 0

    def solve(self, problem):
        self.calls += 1
        return super().solve(problem)


def _recording(name: str, time_limit_s: float | None) -> Solver:
    """The registry's solver ``name`` as a subclass that keeps ``(alpha, status, CPU seconds)`` of
    every outermost ``solve`` and ``solve_excluding`` in ``.log`` (on the planner's problems no
    solver takes a shortcut that a subclass turns off: see the module notes)."""
    base = type(get_solver(name))

    class Recording(base):  # type: ignore[misc, valid-type]
        def __init__(self, **options):
            super().__init__(**options)
            self.log: list[tuple[float, str, float]] = []
            self._depth = 0

        def _timed(self, call, problem, *args, **kwargs):
            self._depth += 1
            t0 = time.process_time()
            try:
                sol = call(problem, *args, **kwargs)
            finally:
                self._depth -= 1
            if not self._depth:
                self.log.append((float(problem.alpha), sol.status.value, time.process_time() - t0))
            return sol

        def solve(self, problem):
            return self._timed(super().solve, problem)

        def solve_excluding(self, problem, excluded, **kwargs):
            return self._timed(super().solve_excluding, problem, excluded, **kwargs)

    return Recording(time_limit_s=time_limit_s)


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
    ap.add_argument("--planner", type=int, default=0, metavar="N",
                    help="measure the three tools on a planner instance of N agents instead (0: the paper's)")
    ap.add_argument("--planner-points", type=int, default=20, help="thresholds of the planner's frontier grid")
    ap.add_argument("--planner-k", type=int, default=5, help="selections the planner's alternatives list")
    ap.add_argument("--planner-reps", type=int, default=1, help="timings of each planner tool (the fastest counts)")
    ap.add_argument("--planner-limit", type=float, default=10.0,
                    help="exact's time limit per solve on the planner instance, seconds")
    args = ap.parse_args(argv)
    if args.planner:
        return _planner(args)
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


_PROVEN = ("optimal", "infeasible")


def _solves(log: list[tuple[float, str, float]]) -> str:
    """How many solves a tool made, how many ended unproven, and the slowest."""
    unproven = [t for _, status, t in log if status not in _PROVEN]
    text = f"{len(log)} solves"
    if unproven:
        text += f", {len(unproven)} unproven ({sum(unproven):.1f} s)"
    if log:
        alpha, status, t = max(log, key=lambda e: e[2])
        text += f", slowest {t:.2f} s ({status} at alpha {alpha:.3f})"
    return text


def _planner(args: argparse.Namespace) -> int:
    """The ``--planner N`` measurements (module notes): one line per tool and solver."""
    p = planner_instance(args.planner, args.seed)  # as subsel generate --planner --n N --seed S
    q = p.with_changes(budget=None)  # payments refuse a budget
    names = [default_solver(p.extensions), "exact"]
    alphas = np.linspace(0.5, 0.95, args.planner_points)
    print(f"planner instance: n={p.n}, alpha {p.alpha}, {sorted(p.extensions)}; default solver {names[0]}; "
          f"exact's time limit {args.planner_limit:g} s per solve; frontier {args.planner_points} points in "
          f"[0.5, 0.95], alternatives k={args.planner_k}, payments without the budget; CPU times")

    def limit(name: str) -> float | None:
        return args.planner_limit if name == "exact" else None

    def timed(name: str, call) -> tuple[float, list[tuple[float, str, float]], str]:
        """The fastest of --planner-reps calls of ``call(solver)`` and its solves, or the first line of
        the ValueError it raised (a refusal, or a solve stopped by the time limit)."""
        best, log = float("inf"), []
        for _ in range(args.planner_reps):
            solver = _recording(name, limit(name))
            t0 = time.process_time()
            try:
                call(solver)
            except ValueError as exc:
                return float("nan"), solver.log, str(exc).splitlines()[0]
            if time.process_time() - t0 < best:
                best, log = time.process_time() - t0, solver.log
        return best, log, ""

    small = planner_instance(12, 0)  # warm-up of each tool (imports: pandas, the cuts, the search)
    for name in names:
        for warm in (lambda s: frontier(small, alphas[:2], solver=s), lambda s: payments(small.with_changes(
                budget=None), solver=s), lambda s: alternatives(small, 2, solver=s)):
            timed(name, warm)
    rows = []
    for name in names:
        solver = get_solver(name, time_limit_s=limit(name))
        sol = solver.solve(p)  # warm-up (imports, caches)
        one = _best_time(solver.solve, args.reps, lambda: p.with_changes())
        base = solver.solve(q)
        one_q = _best_time(solver.solve, args.reps, lambda: q.with_changes())
        selected = int(np.count_nonzero(base.x)) if base.is_feasible else 0
        print(f"{name}: one solve {one:.3f} s ({sol.status.value}); without the budget {one_q:.3f} s "
              f"({base.status.value}, {selected} agents selected)")
        for tool, call, ref, target, what in (
                ("frontier", lambda s: frontier(p, alphas, solver=s), one, args.planner_points,
                 f"target < {args.planner_points}x"),
                ("alternatives", lambda s: alternatives(p, args.planner_k, solver=s), one, None,
                 f"about k = {args.planner_k} solves"),
                ("payments", lambda s: payments(q, solver=s), one_q, 2 * (selected + 1),
                 f"target <= {2 * (selected + 1)}x = 2 x (selected + 1)")):
            t, log, error = timed(name, call)
            if error:
                print(f"  {tool:<12} raised: {error} ({_solves(log)})")
                rows.append((tool, name, "raised", f"{len(log)}", what))
                continue
            ratio = t / ref
            met = ratio < target if tool == "frontier" else target is None or ratio <= target
            verdict = "" if target is None else " met" if met else " MISSED"
            print(f"  {tool:<12} {t:8.2f} s, ratio {ratio:7.1f}x ({what}:{verdict or ' -'}); {_solves(log)}")
            rows.append((tool, name, f"{ratio:.1f}x", f"{len(log)}", what + verdict))
    print("\ntool          solver  ratio     solves  target")
    for tool, name, ratio, count, what in rows:
        print(f"{tool:<13} {name:<7} {ratio:<9} {count:<7} {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
