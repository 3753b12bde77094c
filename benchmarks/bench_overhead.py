"""Fixed cost per call: subsel's solvers against plain code doing the same work, as ratios in one run.

Three comparisons, each timed in this one run (best of ``--repeat`` after a warm-up; the answers
are asserted equal, so the comparison is between equal work):

1. ``gss`` at n = 10^6 on the paper's random instance (q, c ~ U[0, 1], alpha = 0.7; Deva et al.,
   Section 6.1): ``get_solver("gss").solve(problem)`` — kernel, answer check, Solution — against a
   plain numpy GSS (Algorithm 3) written below with no validation, checking or wrapping, in two
   forms: sorting its lists with numpy's stable argsort, and with numpy's default argsort plus a
   check that no two keys tie (the sort subsel uses; the ratio to this one is subsel's overhead
   alone).  Then building the ``SubsetSelectionProblem`` (validation, read-only copies) against
   ``np.asarray`` of its inputs and against copying them (``np.array``).
2. A per-run loop at the paper's n = 10 (``--runs`` instances): ``solve`` of DPSS (Algorithm 1) on
   each problem, with and without building the ``SubsetSelectionProblem`` first, against a plain
   numpy DPSS doing the same enumeration; and ``solve_batch`` on all runs at once.
3. ``exact`` on small 0-1 knapsack instances (n = 5 .. 100, R = 1000, the six classes of
   ``subsel.models.instances``) against OR-Tools' knapsack branch and bound on the same items, in two
   framings, each reported as ratios per n:

   - *solver work*: ``exact.solve(problem)`` on a ``SubsetSelectionProblem`` built beforehand
     (reduction, kernel, answer check, Solution) against ``KnapsackSolver.init`` + ``solve`` on
     Python lists built beforehand, with one solver object reused;
   - *end to end from arrays*: ``SubsetSelectionProblem.from_knapsack(values, weights, capacity)``
     (validation, exact encoding and its check) + ``solve`` + reading ``x`` against constructing a
     ``KnapsackSolver``, converting the arrays to Python lists, ``init`` + ``solve`` and reading the
     selection with ``best_solution_contains``.

   OR-Tools' B&B takes seconds to minutes on some correlated instances from n = 50: an instance it
   does not solve within ``--or-limit`` seconds is listed as skipped.  ``exact`` runs with
   ``jit=True`` (its compiled kernel); the numpy path (``jit=False``,
   the default) is reported in the solver-work framing too.  With ``--skip jit`` no compiled kernel
   is used: ``exact`` runs its numpy path in both framings.
(The compiled kernel is built at install: a fresh process's first call costs what a later one does;
``benchmarks/bench_startup.py`` measures whole commands in fresh processes.)

Usage::

    python benchmarks/bench_overhead.py [--n 1000000] [--runs 1000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from subsel.models import KNAPSACK_CLASSES, ProblemBatch, SubsetSelectionProblem, knapsack_instance  # noqa: E402
from subsel.solvers import get_solver  # noqa: E402

TOL = 1e-9


def _dot(x: np.ndarray, v: np.ndarray) -> float:
    # The one-problem inner product of subsel (BLAS up to 8192 terms, pairwise sum above), so that
    # the plain codes round exactly as the solvers do and the answers can be compared exactly.
    return float((x * v).sum()) if x.size > 8192 else float(x @ v)


def _argsort_stable(key: np.ndarray) -> np.ndarray:
    """A stable argsort: numpy's default one when no two keys tie, else numpy's stable one."""
    o = np.argsort(key)
    k = key[o]
    return o if not (k[1:] == k[:-1]).any() else np.argsort(key, kind="stable")


def plain_gss(q: np.ndarray, c: np.ndarray, alpha: float, R: float = 1.0, fast_sort: bool = False) -> np.ndarray:
    """GSS (Deva et al., Algorithm 3) for unit capacities, straight numpy, no checks."""
    argsort = _argsort_stable if fast_sort else (lambda k: np.argsort(k, kind="stable"))
    r = R * q - c
    mg = q - alpha
    gain = r >= 0
    x = ((q >= alpha) & gain).astype(float)
    d = _dot(x, mg)
    S2 = np.flatnonzero((q > alpha) & ~gain)
    S3 = np.flatnonzero((q < alpha) & gain)
    with np.errstate(over="ignore", divide="ignore"):
        b = r[S2] / -mg[S2]
        a = r[S3] / -mg[S3]
    o2 = argsort(b)
    o3 = argsort(-a)
    L2, b, L3, a = S2[o2], b[o2], S3[o3], a[o3]
    w2, w3 = mg[L2], -mg[L3]
    C2, C3 = np.cumsum(w2), np.cumsum(w3)
    P = min(max(d, 0.0), float(C3[-1])) if C3.size else 0.0
    y = 0.0
    if C3.size and C2.size:
        y_max = min(C3[-1] - P, C2[-1])
        if y_max > 0:
            br = np.concatenate(([0.0], C3[C3 > P] - P, C2))
            br = np.unique(br[br < y_max])
            i3 = np.searchsorted(C3, P + br, side="right")
            i2 = np.searchsorted(C2, br, side="right")
            ok = (i3 < C3.size) & (i2 < C2.size)
            stop = ~ok
            stop[ok] = a[i3[ok]] <= b[i2[ok]]
            first = np.flatnonzero(stop)
            y = float(br[first[0]]) if first.size else float(y_max)
    f3 = np.clip((P + y - (C3 - w3)) / w3, 0.0, 1.0)
    f2 = np.clip((y - (C2 - w2)) / w2, 0.0, 1.0)
    out = x.copy()
    out[L3] += np.minimum(np.floor(f3 + TOL), 1.0)
    out[L2] += np.minimum(np.ceil(f2 - TOL), 1.0)
    if _dot(out, mg) < -TOL:
        out = x.copy()
        out[L3] += np.floor(f3)
        out[L2] += np.ceil(f2)
    return out.astype(np.int64)


def plain_dpss(q: np.ndarray, c: np.ndarray, alpha: float, R: float = 1.0) -> np.ndarray:
    """DPSS (Deva et al., Algorithm 1) for unit capacities and few free agents, straight numpy."""
    r = R * q - c
    mg = q - alpha
    gain = r >= 0
    x = ((q >= alpha) & gain).astype(np.int64)
    G = np.concatenate([np.flatnonzero((q > alpha) & ~gain), np.flatnonzero((q < alpha) & gain)])
    base = _dot(x.astype(float), mg)
    u, s = np.zeros(1), np.zeros(1)
    for i in G:
        u = np.concatenate([u, u + r[i]])
        s = np.concatenate([s, s + mg[i]])
    j = int(np.argmax(np.where(s + base >= -TOL, u, -np.inf)))
    x[G] = (j >> np.arange(G.size)) & 1
    return x


def best_of(fn, repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def best_of_interleaved(fns: list, repeat: int) -> list[float]:
    """Best time of each function, timed in turns (one call of each per round), so that a change
    of the machine's load during the run hits all of them alike."""
    for fn in fns:
        fn()  # warm-up
    best = [math.inf] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def bench_gss(n: int, repeat: int, seed: int) -> None:
    p = SubsetSelectionProblem.random(n, 0.7, np.random.default_rng(seed))
    gss = get_solver("gss")
    x_plain = plain_gss(p.quality, p.cost, p.alpha)
    assert gss.solve(p).x.tolist() == x_plain.tolist(), "plain GSS and subsel's gss disagree"
    assert plain_gss(p.quality, p.cost, p.alpha, fast_sort=True).tolist() == x_plain.tolist()
    t_plain, t_fast, t_solve = best_of_interleaved(
        [lambda: plain_gss(p.quality, p.cost, p.alpha), lambda: plain_gss(p.quality, p.cost, p.alpha, fast_sort=True),
         lambda: gss.solve(p)], 2 * repeat)
    print(f"1. gss at n = {n:,}: plain numpy {t_plain * 1e3:.1f} ms (stable argsort), {t_fast * 1e3:.1f} ms "
          f"(default argsort + tie check), solve {t_solve * 1e3:.1f} ms; ratio solve / plain "
          f"{t_solve / t_plain:.2f}x and {t_solve / t_fast:.2f}x")
    q, c = np.random.default_rng(seed + 1).random((2, n))
    t_build, t_asarray, t_copy = best_of_interleaved(
        [lambda: SubsetSelectionProblem(quality=q, cost=c, alpha=0.7),
         lambda: (np.asarray(q, dtype=float), np.asarray(c, dtype=float)),
         lambda: (np.array(q, dtype=float), np.array(c, dtype=float))], 2 * repeat)
    print(f"   building the problem at n = {n:,}: {t_build * 1e3:.2f} ms; np.asarray of the inputs "
          f"{t_asarray * 1e6:.1f} us (ratio {t_build / t_asarray:.0f}x), copying them {t_copy * 1e3:.2f} ms "
          f"(ratio {t_build / t_copy:.2f}x)")


def bench_loop(runs: int, repeat: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q, c = rng.random((runs, 10)), rng.random((runs, 10))
    dpss = get_solver("dpss")
    problems = [SubsetSelectionProblem(quality=q[j], cost=c[j], alpha=0.7) for j in range(runs)]
    expected = np.array([plain_dpss(q[j], c[j], 0.7) for j in range(runs)])
    assert np.array_equal([dpss.solve(p).x for p in problems], expected), "plain DPSS and dpss disagree"
    batch = ProblemBatch(quality=q, cost=c, alpha=0.7)
    assert np.array_equal(dpss.solve_batch(batch).x, expected)

    def plain():
        for j in range(runs):
            plain_dpss(q[j], c[j], 0.7)

    def solve_only():
        for p in problems:
            dpss.solve(p)

    def build_and_solve():
        for j in range(runs):
            dpss.solve(SubsetSelectionProblem(quality=q[j], cost=c[j], alpha=0.7))

    t_plain = best_of(plain, repeat)
    t_solve = best_of(solve_only, repeat)
    t_build = best_of(build_and_solve, repeat)
    t_batch = best_of(lambda: dpss.solve_batch(ProblemBatch(quality=q, cost=c, alpha=0.7)), repeat)
    us = 1e6 / runs
    print(f"2. per-run DPSS loop, n = 10, {runs} runs: plain numpy {t_plain * us:.1f} us/run, solve "
          f"{t_solve * us:.1f} us/run (ratio {t_solve / t_plain:.2f}x), build + solve {t_build * us:.1f} "
          f"us/run (ratio {t_build / t_plain:.2f}x); solve_batch {t_batch * us:.2f} us/run "
          f"(ratio {t_batch / t_plain:.3f}x)")


def bench_exact(repeat: int, seed: int, sizes: list[int], or_limit_s: float, jit: bool = True) -> None:
    """``exact`` against OR-Tools' knapsack B&B in two framings (module docstring, part 3); with
    ``jit=False`` the numpy path stands for ``exact`` (no compiled kernel)."""
    try:
        from ortools.algorithms.python import knapsack_solver
    except ImportError:  # pragma: no cover - OR-Tools is a core dependency
        print("3. exact vs OR-Tools knapsack: OR-Tools is not installed; skipped")
        return
    kind_bb = knapsack_solver.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER
    # The compiled kernel (jit=True, opt-in).  The numpy path (jit=False, the default) is timed too,
    # in the solver-work framing; without the kernel (--skip jit) it is the one timed.
    exact_numpy = get_solver("exact", jit=False)
    exact = get_solver("exact", jit=True) if jit else exact_numpy
    numpy_work: dict[int, list[float]] = {n: [] for n in sizes}
    work: dict[int, list[float]] = {n: [] for n in sizes}
    e2e: dict[int, list[float]] = {n: [] for n in sizes}
    rows, skipped = [], []
    ss = np.random.SeedSequence(seed)
    for kind in KNAPSACK_CLASSES:
        for n, child in zip(sizes, ss.spawn(len(sizes))):
            values, weights, cap = knapsack_instance(kind, n, 1000, np.random.default_rng(child))
            p = SubsetSelectionProblem.from_knapsack(values, weights, cap)
            ks = knapsack_solver.KnapsackSolver(kind_bb, "bench")
            ks.set_time_limit(or_limit_s)
            vi, wi, ci = [int(v) for v in values], [[int(w) for w in weights]], [int(cap)]

            def or_work() -> float:
                ks.init(vi, wi, ci)
                return ks.solve()

            def or_e2e() -> list[int]:
                s = knapsack_solver.KnapsackSolver(kind_bb, "bench")
                s.set_time_limit(or_limit_s)
                s.init([int(v) for v in values], [[int(w) for w in weights]], [int(cap)])
                s.solve()
                return [j for j in range(n) if s.best_solution_contains(j)]

            def ex_e2e() -> np.ndarray:
                return exact.solve(SubsetSelectionProblem.from_knapsack(values, weights, cap)).x[1:]

            t0 = time.perf_counter()
            opt = or_work()
            t_first = time.perf_counter() - t0
            if not ks.is_solution_optimal():
                skipped.append(f"{kind} n={n} (OR-Tools B&B not optimal within {or_limit_s:g} s)")
                continue
            sol = exact.solve(p)
            assert abs(sol.objective - opt) < 1e-6 * max(1.0, opt), f"{kind} n={n}: exact {sol.objective} != {opt}"
            assert float(values[or_e2e()].sum()) == float(values[ex_e2e().astype(bool)].sum()) == opt
            reps = repeat if t_first < 0.05 else 1
            t_or = best_of(or_work, reps)
            t_ex = best_of(lambda: exact.solve(p), reps)
            t_np = best_of(lambda: exact_numpy.solve(p), reps) if jit else t_ex
            numpy_work[n].append(t_np / t_or)
            t_or2 = best_of(or_e2e, reps)
            t_ex2 = best_of(ex_e2e, reps)
            work[n].append(t_ex / t_or)
            e2e[n].append(t_ex2 / t_or2)
            rows.append(f"   {kind:<28} n={n:<4} solver work: exact {t_ex * 1e6:7.0f} us, OR-Tools "
                        f"{t_or * 1e6:7.0f} us, ratio {t_ex / t_or:6.2f}x | end to end: exact "
                        f"{t_ex2 * 1e6:7.0f} us, OR-Tools {t_or2 * 1e6:7.0f} us, ratio {t_ex2 / t_or2:6.2f}x")
    kernel = "jit=True" if jit else "jit=False, its numpy path: --skip jit"
    print(f"3. exact ({kernel}) vs OR-Tools' knapsack branch and bound (R = 1000, the six classes), two framings:\n"
          "   solver work = exact.solve(problem built beforehand) vs KnapsackSolver.init + solve on Python\n"
          "   lists built beforehand; end to end = from_knapsack(arrays) + solve + reading x vs constructing\n"
          "   the KnapsackSolver, converting the arrays to lists, init + solve + best_solution_contains.")
    for n in sizes:
        if work[n]:
            numpy_path = (f"; numpy path jit=False, solver work: median {float(np.median(numpy_work[n])):6.2f}x"
                          if jit else "")
            print(f"   n={n:<4} solver work: median ratio {float(np.median(work[n])):6.2f}x, worst "
                  f"{max(work[n]):6.2f}x | end to end: median ratio {float(np.median(e2e[n])):6.2f}x, worst "
                  f"{max(e2e[n]):6.2f}x  ({len(work[n])} classes{numpy_path})")
    print("\n".join(rows))
    for s in skipped:
        print(f"   skipped: {s}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="agents for the gss comparison")
    ap.add_argument("--runs", type=int, default=1000, help="runs of the per-run loop")
    ap.add_argument("--repeat", type=int, default=5, help="timed repetitions (the best is kept)")
    ap.add_argument("--sizes", default="5,10,20,50,100", help="knapsack sizes for the exact comparison")
    ap.add_argument("--or-limit", type=float, default=2.0,
                    help="seconds OR-Tools' B&B may take per instance (it takes seconds to minutes on some "
                         "correlated instances from n = 50); instances it does not solve within it are skipped")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip", default="", help="comma-separated parts to skip (gss, loop, exact, jit); jit also "
                    "runs part 3 without the compiled kernel")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    if "gss" not in skip:
        bench_gss(args.n, args.repeat, args.seed)
    if "loop" not in skip:
        bench_loop(args.runs, args.repeat, args.seed)
    if "exact" not in skip:
        bench_exact(args.repeat, args.seed, [int(v) for v in args.sizes.split(",")], args.or_limit,
                    jit="jit" not in skip)
    print(f"load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
