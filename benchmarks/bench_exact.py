"""Speed of the `exact` backend against GSS, CBC (through PuLP) and HiGHS, measured in one run.

Families: the paper's random instances (q, c ~ U[0, 1], alpha = 0.7; Deva et al., Section 6.1) and
Pisinger's knapsack classes (``subsel.models.instances``) with ranges R = 1000 and 10000, encoded by
``SubsetSelectionProblem.from_knapsack``.  For every family and n, each solver runs on the same
``--reps`` instances (seeds from ``SeedSequence``); the table gives the median wall time in seconds
(model building included: ``Solver.solve`` for the registry backends, PuLP model + CBC, highspy model
+ HiGHS) and the ratios of the medians.  A MILP that hits ``--milp-time-limit`` shows ``>limit``;
its ratio is then a lower bound (``>``).  ``agree`` says whether every MILP that finished at gap 0
found the same optimum as `exact` (relative 1e-9).

The MILP backends `cbc` / `highs` of the registry are used when they exist; otherwise the script
builds the same MILP directly in PuLP / highspy, both at gap 0.  The MILP time limit bounds the
solve, not the model building (nor, for the registry backends, their tolerance re-solves), so a
limited run can take longer than the limit.

Targets (issue "an exact solver that scales"): on the paper's instances at n = 10^5, `exact` under
1 s and at least 20x faster than CBC; at n = 10^4, at most 10x slower than GSS.

Usage::

    python benchmarks/bench_exact.py                       # everything (long: the MILPs at 10^5)
    python benchmarks/bench_exact.py --families paper --reps 3 --milp-time-limit 60
    python benchmarks/bench_exact.py --families uncorrelated weakly_correlated strongly_correlated \
        inverse_strongly_correlated almost_strongly_correlated subset_sum --reps 1 \
        --milp-time-limit 10 --exact-time-limit 30 --milp-max-n 10000
    python benchmarks/bench_exact.py --families paper --n 1000 10000 100000 --reps 5
    python benchmarks/bench_exact.py --families strongly_correlated --R 1000 --n 1000 10000
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# One BLAS thread: on a shared machine a multi-threaded BLAS makes every n = 10^5 dot product (in
# the model's checks, used by every backend) 10-100x slower; the MILP solvers run one thread too.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from subsel import SubsetSelectionProblem  # noqa: E402
from subsel.models.instances import KNAPSACK_CLASSES, knapsack_instance  # noqa: E402
from subsel.solvers import SOLVERS, Status, get_solver  # noqa: E402


# ---------------------------------------------------------------------- MILP references
def _pulp_cbc(problem: SubsetSelectionProblem, time_limit: float) -> tuple[np.ndarray | None, bool]:
    """The ILP of SPEC §1 in PuLP, solved by its bundled CBC at gap 0: (x, proven optimal)."""
    import pulp

    lb, ub = problem.lower_bounds(), problem.upper_bounds()
    model = pulp.LpProblem("subset_selection", pulp.LpMaximize)
    x = [pulp.LpVariable(f"x_{i}", lowBound=int(lb[i]), upBound=int(ub[i]), cat="Integer")
         for i in range(problem.n)]
    # objective: total utility
    model += pulp.LpAffineExpression(zip(x, problem.utility.tolist()))
    # quality: sum (q_i - alpha) x_i >= 0
    model += pulp.LpAffineExpression(zip(x, problem.quality_margin.tolist())) >= 0, "quality"
    status = model.solve(pulp.PULP_CBC_CMD(msg=False, gapRel=0.0, gapAbs=0.0, timeLimit=time_limit))
    if pulp.LpStatus[status] != "Optimal":
        return None, False
    values = np.array([v.value() or 0.0 for v in x])
    # PuLP reports a time-limited CBC run with a solution as "Optimal" too: check the clock.
    return np.rint(values).astype(np.int64), True


def _highspy(problem: SubsetSelectionProblem, time_limit: float) -> tuple[np.ndarray | None, bool]:
    """The ILP of SPEC §1 in highspy at gap 0: (x, proven optimal)."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.0)
    h.setOptionValue("time_limit", float(time_limit))
    n = problem.n
    idx = np.arange(n, dtype=np.int32)
    h.addCols(n, problem.utility.astype(float), problem.lower_bounds().astype(float),
              problem.upper_bounds().astype(float), 0, np.zeros(0, dtype=np.int32),
              np.zeros(0, dtype=np.int32), np.zeros(0))
    h.addRow(0.0, highspy.kHighsInf, n, idx, problem.quality_margin.astype(float))
    h.changeColsIntegrality(n, idx, np.full(n, highspy.HighsVarType.kInteger))
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    h.run()
    optimal = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    sol = h.getSolution()
    if not sol.value_valid:
        return None, False
    return np.rint(np.array(sol.col_value)).astype(np.int64), optimal


def run_solver(name: str, problem: SubsetSelectionProblem, time_limit: float
               ) -> tuple[float, float | None, bool]:
    """Wall seconds, objective (None when no answer) and whether the answer is proven optimal."""
    if name in SOLVERS:
        options = {} if name == "gss" else {"time_limit_s": time_limit}
        start = time.perf_counter()
        sol = get_solver(name, **options).solve(problem)
        elapsed = time.perf_counter() - start
        return elapsed, (sol.objective if sol.is_feasible else None), sol.status is Status.OPTIMAL
    direct = {"cbc": _pulp_cbc, "highs": _highspy}[name]
    start = time.perf_counter()
    x, optimal = direct(problem, time_limit)
    elapsed = time.perf_counter() - start
    if x is None:
        return elapsed, None, False
    ev = problem.evaluate(x)
    # A MILP answer that fails our 1e-9 check is not counted as optimal (SPEC §5).
    return elapsed, ev.utility, optimal and ev.feasible and elapsed < time_limit


# ---------------------------------------------------------------------- instances
def make_instance(family: str, n: int, R: int, seed: np.random.SeedSequence) -> SubsetSelectionProblem:
    rng = np.random.default_rng(seed)
    if family == "paper":
        return SubsetSelectionProblem.random(n, alpha=0.7, rng=rng)
    p, w, c = knapsack_instance(family, n, R, rng)
    return SubsetSelectionProblem.from_knapsack(p, w, c)


def fmt_time(t: float, limited: bool) -> str:
    return f">{t:.3g}" if limited else f"{t:.4f}"


def fmt_ratio(num: float, den: float, lower: bool) -> str:
    if den <= 0:
        return "-"
    return (">" if lower else "") + f"{num / den:.1f}x"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", nargs="+", default=["paper", *KNAPSACK_CLASSES],
                    help="'paper' and/or knapsack classes (default: all)")
    ap.add_argument("--n", nargs="+", type=int, default=[1000, 10000, 100000])
    ap.add_argument("--R", nargs="+", type=int, default=[1000, 10000],
                    help="data ranges of the knapsack classes")
    ap.add_argument("--reps", type=int, default=3, help="instances per (family, n); default 3")
    ap.add_argument("--solvers", nargs="+", default=["exact", "gss", "cbc", "highs"])
    ap.add_argument("--milp-time-limit", type=float, default=60.0,
                    help="seconds per CBC / HiGHS run (default 60)")
    ap.add_argument("--exact-time-limit", type=float, default=60.0,
                    help="seconds per exact run (default 60)")
    ap.add_argument("--milp-max-n", type=int, default=100000,
                    help="skip CBC / HiGHS above this n on the knapsack classes (default 100000)")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args(argv)

    milp = {"cbc", "highs"}
    warm = SubsetSelectionProblem.random(50, alpha=0.7, rng=0)
    for s in args.solvers:  # imports and first-call costs out of the measurements
        run_solver(s, warm, 10.0)
    print(f"# bench_exact: median wall seconds over {args.reps} instance(s); MILP time limit "
          f"{args.milp_time_limit:g} s, exact time limit {args.exact_time_limit:g} s")
    print("# MILP backends: " + ", ".join(
        f"{m} ({'registry' if m in SOLVERS else 'direct model'})" for m in sorted(milp)
        if m in args.solvers))
    groups = []
    for family in args.families:
        for R in ([0] if family == "paper" else args.R):
            groups.append((family, R))
    for family, R in groups:
        title = "paper instances (q, c ~ U[0,1], alpha = 0.7)" if family == "paper" \
            else f"{family}, R = {R}"
        print(f"\n## {title}")
        cols = [f"{s}_s" for s in args.solvers]
        header = f"{'n':>7} " + " ".join(f"{c:>10}" for c in cols) + \
            f" {'exact':>10} {'cbc/exact':>10} {'highs/exact':>11} {'exact/gss':>10} {'agree':>6}"
        print(header)
        for n in args.n:
            seeds = np.random.SeedSequence([args.seed, n, R, KNAPSACK_CLASSES.index(family) + 1
                                            if family != "paper" else 0]).spawn(args.reps)
            times: dict[str, list[float]] = {s: [] for s in args.solvers}
            limited: dict[str, bool] = {s: False for s in args.solvers}
            exact_status, agree = [], True
            for seed in seeds:
                problem = make_instance(family, n, R, seed)
                objs: dict[str, tuple[float | None, bool]] = {}
                for s in args.solvers:
                    if s in milp and family != "paper" and n > args.milp_max_n:
                        continue
                    limit = args.milp_time_limit if s in milp else args.exact_time_limit
                    t, obj, opt = run_solver(s, problem, limit)
                    times[s].append(t)
                    objs[s] = (obj, opt)
                    if s in milp and not opt:
                        limited[s] = True
                    if s == "exact":
                        exact_status.append("optimal" if opt else "limit")
                        limited[s] = limited[s] or not opt
                if "exact" in objs and objs["exact"][1]:
                    ref = objs["exact"][0]
                    for s in milp & objs.keys():
                        obj, opt = objs[s]
                        if opt and not math.isclose(obj, ref, rel_tol=1e-9, abs_tol=1e-9):
                            agree = False
            med = {s: statistics.median(v) if v else float("nan") for s, v in times.items()}
            row = f"{n:>7} " + " ".join(
                f"{fmt_time(med[s], limited[s] and s in milp) if times[s] else '-':>10}"
                for s in args.solvers)
            st = "optimal" if all(x == "optimal" for x in exact_status) else \
                f"{exact_status.count('optimal')}/{len(exact_status)} opt"
            e = med.get("exact", float("nan"))
            cbc = fmt_ratio(med["cbc"], e, limited["cbc"]) if times.get("cbc") else "-"
            hig = fmt_ratio(med["highs"], e, limited["highs"]) if times.get("highs") else "-"
            gss = fmt_ratio(e, med["gss"], False) if times.get("gss") else "-"
            print(row + f" {st:>10} {cbc:>10} {hig:>11} {gss:>10} {'yes' if agree else 'NO':>6}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
