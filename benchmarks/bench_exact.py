"""Speed of the `exact` backend against CBC, HiGHS, GSS and OR-Tools' knapsack solver, in one run.

Four tables (``--table``):

``classes`` (default)
    Pisinger's six knapsack classes (``subsel.models.instances.knapsack_instance``; Pisinger, "Where
    are the hard knapsack problems?", Computers & Operations Research 32(9), 2005) for
    n in {10^3, 10^4}, R in {10^3, 10^4} and ``--reps`` instances each (seeds from ``SeedSequence``),
    encoded by ``SubsetSelectionProblem.from_knapsack``.  Per instance: the wall time of `exact`
    (``Solver.solve``, checks included; best of ``--exact-runs``), of CBC (the registry backend:
    PuLP model + CBC at gap 0) and of OR-Tools' knapsack branch and bound (``KnapsackSolver``, on
    the integer data directly), their ratios to `exact`, and whether every solver that proved
    optimality found the same optimum.  A solver stopped by its time limit shows ``>limit`` and its
    ratio is a lower bound (``>``).  The summary gives per class the median and worst time of
    `exact`, the median ratios, and whether the targets hold: every instance optimal within 0.25 s
    and never more than 1.2x CBC's time.
``paper``
    The paper's random instances (q, c ~ U[0, 1], alpha = 0.7; Deva, Abhishek, Gujar, AAMAS 2021,
    Section 6.1) at n in ``--n``: `exact`, GSS, CBC and HiGHS (registry backends), median times and
    ratios.
``small``
    The fixed cost per call on small knapsacks (n = 4 ... 100, every class): `exact` (``solve`` and
    the solver's own ``_solve``, without the interface's checks) against OR-Tools' knapsack branch
    and bound, best of ``--loops`` calls each (or of the calls that fit in half a second).
``capacity``
    Agents with many units (bounded-knapsack items): two agents with capacities 10^8 ... 10^12, and
    10^3 random agents with capacities up to 10^12; wall time and peak traced memory of `exact`
    (``tracemalloc``), and HiGHS's optimum as the reference.

Usage::

    python benchmarks/bench_exact.py                                   # the classes table
    python benchmarks/bench_exact.py --table classes --reps 2 --milp-time-limit 30
    python benchmarks/bench_exact.py --table paper --n 1000 10000 100000 --reps 3
    python benchmarks/bench_exact.py --table small
    python benchmarks/bench_exact.py --table capacity
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

# One BLAS thread: on a shared machine a multi-threaded BLAS makes every n = 10^5 dot product (in
# the model's checks, used by every backend) 10-100x slower; the MILP solvers run one thread too.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from subsel import SubsetSelectionProblem  # noqa: E402
from subsel.models.instances import KNAPSACK_CLASSES, knapsack_instance  # noqa: E402
from subsel.solvers import Status, get_solver  # noqa: E402

#: Targets of the classes table: each instance optimal within this many seconds ...
TARGET_SECONDS = 0.25
#: ... and never slower than CBC by more than this factor.
TARGET_CBC_FACTOR = 1.2


# ---------------------------------------------------------------------- references
def run_registry(name: str, problem: SubsetSelectionProblem, time_limit: float | None
                 ) -> tuple[float, float | None, bool]:
    """Wall seconds, objective (None without an answer) and whether it is proven optimal."""
    options = {} if name == "gss" or time_limit is None else {"time_limit_s": time_limit}
    solver = get_solver(name, **options)
    start = time.perf_counter()
    sol = solver.solve(problem)
    elapsed = time.perf_counter() - start
    return elapsed, (sol.objective if sol.is_feasible else None), sol.status is Status.OPTIMAL


def run_ortools_knapsack(p: np.ndarray, w: np.ndarray, c: int, time_limit: float
                         ) -> tuple[float, float | None, bool]:
    """OR-Tools' knapsack branch and bound on the integer data: seconds, optimum, proven."""
    from ortools.algorithms.python import knapsack_solver

    start = time.perf_counter()
    solver = knapsack_solver.KnapsackSolver(
        knapsack_solver.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, "bench")
    solver.set_time_limit(time_limit)
    solver.init([int(v) for v in p], [[int(v) for v in w]], [int(c)])
    value = solver.solve()
    elapsed = time.perf_counter() - start
    return elapsed, float(value), bool(solver.is_solution_optimal())


def fmt_time(t: float, proven: bool) -> str:
    return f"{t:.4f}" if proven else f">{t:.3g}"


def fmt_ratio(num: float, den: float, lower: bool) -> str:
    return "-" if den <= 0 else (">" if lower else "") + f"{num / den:.1f}x"


def warm_up(names: list[str]) -> None:
    """Imports and first-call costs out of the measurements."""
    warm = SubsetSelectionProblem.random(50, alpha=0.7, rng=0)
    for name in names:
        run_registry(name, warm, 10.0)
    p, w, c = knapsack_instance("uncorrelated", 20, 1000, np.random.default_rng(0))
    run_ortools_knapsack(p, w, c, 1.0)


# ---------------------------------------------------------------------- tables
def table_classes(args: argparse.Namespace) -> int:
    warm_up(["exact", "cbc"])
    print(f"# classes: {args.reps} instance(s) per (class, n, R); exact best of {args.exact_runs} runs, "
          f"CBC and OR-Tools one run; time limits: exact "
          f"{args.exact_time_limit:g} s, CBC and OR-Tools {args.milp_time_limit:g} s; load "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'class':<28} {'n':>6} {'R':>6} {'rep':>3} {'exact_s':>9} {'cbc_s':>9} {'ortools_s':>10} "
          f"{'cbc/exact':>10} {'ort/exact':>10} {'agree':>6}")
    rows = []
    for kind in args.classes:
        for n in args.n_classes:
            for R in args.R:
                seeds = np.random.SeedSequence([args.seed, n, R, KNAPSACK_CLASSES.index(kind)]).spawn(args.reps)
                for rep, seed in enumerate(seeds):
                    p, w, c = knapsack_instance(kind, n, R, np.random.default_rng(seed))
                    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
                    # exact: best of --exact-runs (milliseconds, so one preemption on a busy
                    # machine would dominate); CBC and OR-Tools: one run (seconds).
                    te, oe, pe = min(run_registry("exact", problem, args.exact_time_limit)
                                     for _ in range(args.exact_runs))
                    tc, oc, pc = run_registry("cbc", problem, args.milp_time_limit)
                    to, oo, po = run_ortools_knapsack(p, w, c, args.milp_time_limit)
                    agree = all(math.isclose(o, oe, rel_tol=1e-9, abs_tol=1e-6)
                                for o, proven in ((oc, pc), (oo, po)) if proven and oe is not None)
                    rows.append((kind, n, R, te, pe, tc, pc, to, po, agree))
                    print(f"{kind:<28} {n:>6} {R:>6} {rep:>3} {fmt_time(te, pe):>9} {fmt_time(tc, pc):>9} "
                          f"{fmt_time(to, po):>10} {fmt_ratio(tc, te, not pc):>10} "
                          f"{fmt_ratio(to, te, not po):>10} {'yes' if agree else 'NO':>6}", flush=True)
    print("\n## summary per class (medians over its instances)")
    print(f"{'class':<28} {'exact_med':>10} {'exact_max':>10} {'cbc/exact':>10} {'ort/exact':>10} "
          f"{'<=0.25s':>8} {'<=1.2xCBC':>10}")
    ok = True
    for kind in args.classes:
        mine = [r for r in rows if r[0] == kind]
        fast = all(r[4] and r[3] <= TARGET_SECONDS for r in mine)
        # Against CBC: never slower than 1.2x its time (a CBC stopped at its limit counts as its limit).
        vs_cbc = all(r[3] <= TARGET_CBC_FACTOR * r[5] for r in mine)
        ok = ok and fast and vs_cbc and all(r[9] for r in mine)
        print(f"{kind:<28} {statistics.median(r[3] for r in mine):>10.4f} {max(r[3] for r in mine):>10.4f} "
              f"{statistics.median(r[5] / r[3] for r in mine):>9.1f}x "
              f"{statistics.median(r[7] / r[3] for r in mine):>9.1f}x {'yes' if fast else 'NO':>8} "
              f"{'yes' if vs_cbc else 'NO':>10}")
    print(f"\ntargets {'met' if ok else 'NOT met'}: every instance optimal within {TARGET_SECONDS} s, "
          f"at most {TARGET_CBC_FACTOR}x CBC's time, same optimum as every solver that proved one")
    return 0


def table_paper(args: argparse.Namespace) -> int:
    names = ["exact", "gss", "cbc", "highs"]
    warm_up(names)
    print(f"# paper instances (q, c ~ U[0,1], alpha = 0.7): median wall seconds over {args.reps}; "
          f"MILP time limit {args.milp_time_limit:g} s; load {os.getloadavg()[0]:.1f}")
    print(f"{'n':>7} " + " ".join(f"{s + '_s':>10}" for s in names) +
          f" {'cbc/exact':>10} {'highs/exact':>11} {'exact/gss':>10} {'agree':>6}")
    for n in args.n:
        times: dict[str, list[float]] = {s: [] for s in names}
        proven: dict[str, bool] = {s: True for s in names}
        agree = True
        for seed in np.random.SeedSequence([args.seed, n]).spawn(args.reps):
            problem = SubsetSelectionProblem.random(n, alpha=0.7, rng=np.random.default_rng(seed))
            objs = {}
            for s in names:
                t, obj, opt = run_registry(s, problem, None if s == "gss" else args.milp_time_limit)
                times[s].append(t)
                objs[s] = (obj, opt)
                if s != "gss":
                    proven[s] = proven[s] and opt
            ref = objs["exact"][0]
            agree = agree and all(math.isclose(objs[s][0], ref, rel_tol=1e-9, abs_tol=1e-9)
                                  for s in ("cbc", "highs") if objs[s][1])
        med = {s: statistics.median(v) for s, v in times.items()}
        print(f"{n:>7} " + " ".join(f"{fmt_time(med[s], proven[s] or s == 'gss'):>10}" for s in names) +
              f" {fmt_ratio(med['cbc'], med['exact'], not proven['cbc']):>10}"
              f" {fmt_ratio(med['highs'], med['exact'], not proven['highs']):>11}"
              f" {fmt_ratio(med['exact'], med['gss'], False):>10} {'yes' if agree else 'NO':>6}", flush=True)
    return 0


def table_small(args: argparse.Namespace) -> int:
    warm_up(["exact"])
    solver = get_solver("exact")
    print(f"# small knapsacks: best of {args.loops} calls (or of those in 0.5 s), microseconds; "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"{'class':<28} {'n':>4} {'solve_us':>9} {'_solve_us':>10} {'ortools_us':>11} "
          f"{'solve/ort':>10} {'_solve/ort':>11}")

    def best(f) -> float:
        """Best of --loops calls, or of as many as fit in half a second (at least three)."""
        out, spent = math.inf, 0.0
        for i in range(args.loops):
            t = time.perf_counter()
            f()
            t = time.perf_counter() - t
            out, spent = min(out, t), spent + t
            if i >= 2 and spent > 0.5:
                break
        return out

    ratios = []
    for kind in KNAPSACK_CLASSES:
        for n in (4, 10, 23, 50, 100):
            p, w, c = knapsack_instance(kind, n, 1000, np.random.default_rng([args.seed, n]))
            problem = SubsetSelectionProblem.from_knapsack(p, w, c)
            t_solve = best(lambda: solver.solve(problem))
            t_inner = best(lambda: solver._solve(problem))
            t_ort = best(lambda: run_ortools_knapsack(p, w, c, 10.0))
            ratios.append(t_inner / t_ort)
            print(f"{kind:<28} {n:>4} {1e6 * t_solve:>9.1f} {1e6 * t_inner:>10.1f} {1e6 * t_ort:>11.1f} "
                  f"{t_solve / t_ort:>9.1f}x {t_inner / t_ort:>10.1f}x", flush=True)
    print(f"\nmedian _solve/ortools: {statistics.median(ratios):.1f}x")
    return 0


def table_capacity(args: argparse.Namespace) -> int:
    warm_up(["exact", "highs"])
    print(f"# agents with many units; load {os.getloadavg()[0]:.1f}")
    print(f"{'case':<34} {'exact_s':>9} {'peak_MiB':>9} {'status':>8} {'agree':>6}")
    cases = []
    for e in (8, 10, 12):
        k = 10 ** e
        cases.append((f"2 agents, capacities (1e{e}, 3e{e})",
                      SubsetSelectionProblem(quality=[0.9, 0.45], cost=[0.1, 0.05], alpha=0.7,
                                             capacity=[k, 3 * k])))
    for e in (6, 9, 12):
        rng = np.random.default_rng([args.seed, e])
        base = SubsetSelectionProblem.random(1000, alpha=0.7, rng=rng)
        cases.append((f"1000 agents, capacities <= 1e{e}",
                      base.with_changes(capacity=rng.integers(1, 10 ** e, size=1000))))
    for label, problem in cases:
        tracemalloc.start()
        t, obj, opt = run_registry("exact", problem, args.exact_time_limit)
        peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
        tracemalloc.stop()
        _, ref, ref_opt = run_registry("highs", problem, args.milp_time_limit)
        agree = "-" if not ref_opt else ("yes" if math.isclose(obj, ref, rel_tol=1e-9) else "NO")
        print(f"{label:<34} {t:>9.4f} {peak:>9.1f} {'optimal' if opt else 'limit':>8} {agree:>6}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=["classes", "paper", "small", "capacity"], default="classes")
    ap.add_argument("--classes", nargs="+", default=list(KNAPSACK_CLASSES), choices=KNAPSACK_CLASSES)
    ap.add_argument("--n-classes", nargs="+", type=int, default=[1000, 10000],
                    help="n of the classes table (default 1000 10000)")
    ap.add_argument("--R", nargs="+", type=int, default=[1000, 10000], help="data ranges (default 1000 10000)")
    ap.add_argument("--n", nargs="+", type=int, default=[1000, 10000, 100000], help="n of the paper table")
    ap.add_argument("--reps", type=int, default=2, help="instances per cell (default 2)")
    ap.add_argument("--loops", type=int, default=200, help="calls per solver in the small table")
    ap.add_argument("--milp-time-limit", type=float, default=30.0, help="seconds per CBC / HiGHS / OR-Tools run")
    ap.add_argument("--exact-time-limit", type=float, default=30.0, help="seconds per exact run")
    ap.add_argument("--exact-runs", type=int, default=3,
                    help="runs of exact per instance in the classes table, best reported (default 3)")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args(argv)
    return {"classes": table_classes, "paper": table_paper, "small": table_small,
            "capacity": table_capacity}[args.table](args)


if __name__ == "__main__":
    raise SystemExit(main())
