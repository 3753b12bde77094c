"""Speed of the public knapsack API (``subsel.solve_knapsack``) against combo, OR-Tools and CBC, in one run.

Two tables (``--table``):

``classes`` (default)
    Pisinger's six classes (``subsel.models.instances.knapsack_instance``; Pisinger, "Where are the
    hard knapsack problems?", Computers & Operations Research 32(9), 2005) for n in {10^3, 10^4},
    R in {10^3, 10^4} and ``--reps`` instances each (48 with the defaults), then the large
    coefficients: R in {10^6, 10^7} for the uncorrelated, weakly and strongly correlated classes
    (``--large-R``; ``--large-R`` with no value skips them), then the classes the same paper (Section 3)
    built to be hard for these algorithms, at the classic n and R (``--hard``: even-odd, similar
    weights, spanner, multiple strongly correlated, profit ceiling, circle; ``--hard`` with no value
    skips them).  Per instance the time of ``solve_knapsack`` (the median of ``--runs`` calls in a
    row, as combo's, but no more than needed to pass 3 s once three are made; ``subsel_s`` the
    default call, ``lex_s`` with the rule among equal optima, ``lexicographic=True``), of combo (Martello,
    Pisinger, Toth, Management Science 45(3), 1999; median of ``--combo-runs`` calls inside one
    process, timed in C; with ``--rounds K`` both are measured K times in turn and the pair of the
    median ratio is kept, so that a drift of the machine's speed between the two does not decide
    the ratio), of OR-Tools'
    knapsack branch and bound (``KnapsackSolver``, init + solve) and of CBC (PuLP's bundled CBC on the
    0-1 model, gap 0), the ratios to subsel, and whether every solver that proved its answer found the
    same optimum.  A solver stopped by ``--time-limit`` shows ``>limit`` (its ratio is a lower bound); combo
    failing (it stops the process when it runs out of its fixed space) shows ``fail``.  The summary gives
    per class and data range the median and worst ratio subsel/combo, and the median ratios of OR-Tools
    and CBC to subsel.
``small``
    The fixed cost per call on 5- to 20-item knapsacks of every class: ``solve_knapsack`` against
    OR-Tools' ``KnapsackSolver`` (init + solve), best of ``--loops`` calls each.

combo is measured only when the environment variable ``SUBSEL_COMBO_DIR`` names a folder holding
``combo.c`` and ``combo.h`` (Pisinger's public code, not part of subsel): the benchmark compiles them
with ``gcc -O2`` and a small driver into a temporary folder, and runs each instance in its own
process.  ``--skip`` leaves out OR-Tools or CBC (e.g. for a quick run).

Usage::

    SUBSEL_COMBO_DIR=~/src/combo python benchmarks/bench_knapsack.py
    python benchmarks/bench_knapsack.py --n 1000 --reps 1 --skip cbc --time-limit 5
    python benchmarks/bench_knapsack.py --table small
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_exact import run_ortools_knapsack  # noqa: E402  (this folder is on the path)

from subsel import solve_knapsack  # noqa: E402
from subsel.models.instances import HARD_KNAPSACK_CLASSES, KNAPSACK_CLASSES, knapsack_instance  # noqa: E402

#: The environment variable naming a folder with combo.c and combo.h.
COMBO_ENV = "SUBSEL_COMBO_DIR"
#: The classes of the large-coefficient rows (as in Pisinger's "large coefficients" tests).
LARGE_CLASSES = ("uncorrelated", "weakly_correlated", "strongly_correlated")

#: Driver of combo: reads "n c reps" and n lines "p w" per instance from stdin; prints the seconds
#: of each call and the optimum.  Fields are set by name, so every variant of combo.h's item fits.
COMBO_DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "combo.h"

int main(void) {
    int n, reps;
    long c;
    while (scanf("%d %ld %d", &n, &c, &reps) == 3) {
        long *p = malloc(n * sizeof(long)), *w = malloc(n * sizeof(long));
        item *it = malloc(n * sizeof(item));
        for (int i = 0; i < n; i++) if (scanf("%ld %ld", &p[i], &w[i]) != 2) return 3;
        stype z = 0;
        for (int r = 0; r < reps; r++) {
            memset(it, 0, n * sizeof(item));
            for (int i = 0; i < n; i++) { it[i].p = p[i]; it[i].w = w[i]; }
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            z = combo(it, it + n - 1, c, 0, 0, 1, 0);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            printf("%.9f ", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
        }
        printf("%ld\n", (long) z);
        fflush(stdout);
        free(p); free(w); free(it);
    }
    return 0;
}
"""


class Run(NamedTuple):
    """One solver on one instance: seconds, the value found (None without one), proven optimal."""

    seconds: float
    value: int | None
    proven: bool
    failed: bool = False


def build_combo(folder: Path, build: Path) -> Path:
    """Compile combo.c and the driver with gcc -O2; return the executable."""
    for name in ("combo.c", "combo.h"):
        if not (folder / name).is_file():
            raise SystemExit(f"{COMBO_ENV}={folder}: no {name} there")
    if shutil.which("gcc") is None:
        raise SystemExit(f"{COMBO_ENV} is set but gcc is not installed")
    (build / "driver.c").write_text(COMBO_DRIVER)
    exe = build / "combo_bench"
    subprocess.run(["gcc", "-O2", "-w", f"-I{folder}", "-o", str(exe), str(build / "driver.c"),
                    str(folder / "combo.c"), "-lm"], check=True)
    return exe


def run_combo(exe: Path, p: np.ndarray, w: np.ndarray, c: int, runs: int, time_limit: float) -> Run:
    """combo in its own process: the median of ``runs`` calls, timed in C."""
    text = f"{p.size} {int(c)} {runs}\n" + "\n".join(f"{int(a)} {int(b)}" for a, b in zip(p, w)) + "\n"
    try:
        out = subprocess.run([str(exe)], input=text, capture_output=True, text=True,
                             timeout=time_limit * runs + 10)
    except subprocess.TimeoutExpired:
        return Run(time_limit, None, False)
    fields = out.stdout.split()
    if out.returncode != 0 or len(fields) != runs + 1:
        return Run(math.nan, None, False, failed=True)
    return Run(statistics.median(float(t) for t in fields[:-1]), int(fields[-1]), True)


def run_subsel(p: np.ndarray, w: np.ndarray, c: int, runs: int, time_limit: float,
               lexicographic: bool = False, spend: float = 3.0) -> Run:
    """``solve_knapsack``: the median of ``runs`` calls in a row, as combo is measured (the calls
    speed up over the first few on the same data, in C as in Python); once at least three calls
    have taken ``spend`` seconds in all, the median of those (slow instances; three, so that a
    first call that compiles a path of the kernel does not decide it); a call stopped by the time
    limit ends the runs.  ``lexicographic=True``: with the rule among equal optima."""
    times: list[float] = []
    sol = None
    for _ in range(runs):
        start = time.perf_counter()
        sol = solve_knapsack(p, w, c, time_limit_s=time_limit, lexicographic=lexicographic)
        times.append(time.perf_counter() - start)
        if not sol.optimal or (len(times) >= 3 and sum(times) > spend):
            break
    assert sol is not None
    return Run(statistics.median(times), sol.value, sol.optimal)


def run_ortools(p: np.ndarray, w: np.ndarray, c: int, time_limit: float) -> Run:
    """OR-Tools' knapsack branch and bound on the integer data (init + solve)."""
    seconds, value, proven = run_ortools_knapsack(p, w, c, time_limit)
    return Run(seconds, None if value is None else int(value), proven)


def run_cbc(p: np.ndarray, w: np.ndarray, c: int, time_limit: float) -> Run:
    """PuLP's CBC on the 0-1 model ``max p.x, w.x <= c`` at gap 0 (model building included)."""
    import pulp

    start = time.perf_counter()
    prob = pulp.LpProblem("knapsack", pulp.LpMaximize)
    x = [pulp.LpVariable(f"x_{j}", cat="Binary") for j in range(p.size)]
    prob += pulp.lpDot(p.tolist(), x)
    prob += pulp.lpDot(w.tolist(), x) <= int(c)
    prob.solve(pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit, gapRel=0.0, threads=1))
    t = time.perf_counter() - start
    if prob.sol_status not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return Run(t, None, False)
    value = int(round(sum(int(a) * round(v.value() or 0) for a, v in zip(p, x))))
    return Run(t, value, prob.sol_status == pulp.LpSolutionOptimal)


def fmt_time(r: Run | None) -> str:
    if r is None:
        return "-"
    if r.failed:
        return "fail"
    return f"{r.seconds:.2e}" if r.proven else f">{r.seconds:.3g}"


def ratio(num: Run | None, den: Run) -> float | None:
    """``num / den`` in time, or None when ``num`` did not run or failed."""
    if num is None or num.failed or den.seconds <= 0:
        return None
    return num.seconds / den.seconds


def fmt_ratio(value: float | None, lower: bool = False) -> str:
    return "-" if value is None else (">" if lower else "") + f"{value:.1f}x"


def paired_rounds(mine: Run, combo: Run | None, again_mine, again_combo, rounds: int) -> tuple[Run, Run | None]:
    """``rounds`` measurements of both, each subsel one right before its combo one (the machine's
    speed drifts over seconds: a pair shares it): the pair of the median ratio subsel/combo, so
    that the row's times and ratio are one round's.  Unchanged when combo failed or timed out."""
    pairs = [(mine, combo)]
    for _ in range(rounds - 1):
        if combo is None or combo.failed or not combo.proven:
            return mine, combo
        pairs.append((again_mine(), again_combo()))
    if any(b is None or b.failed or not b.proven for _, b in pairs):
        return mine, combo
    pairs.sort(key=lambda ab: ab[0].seconds / ab[1].seconds)
    return pairs[(len(pairs) - 1) // 2]


def instances(args: argparse.Namespace):
    """(class, n, R, rep, p, w, c) of the classic rows, then of the large-coefficient rows."""
    cells = [(kind, n, R) for kind in args.classes for n in args.n for R in args.R]
    cells += [(kind, n, R) for kind in LARGE_CLASSES if kind in args.classes for n in args.n for R in args.large_R]
    cells += [(kind, n, R) for kind in args.hard for n in args.n for R in args.R]
    every = KNAPSACK_CLASSES + HARD_KNAPSACK_CLASSES
    for kind, n, R in cells:
        seeds = np.random.SeedSequence([args.seed, n, R, every.index(kind)]).spawn(args.reps)
        for rep, seed in enumerate(seeds):
            p, w, c = knapsack_instance(kind, n, R, np.random.default_rng(seed))
            yield kind, n, R, rep, p, w, c


def table_classes(args: argparse.Namespace) -> int:
    combo_dir = os.environ.get(COMBO_ENV)
    build = Path(tempfile.mkdtemp(prefix="subsel-combo-")) if combo_dir else None
    try:
        exe = build_combo(Path(combo_dir).expanduser(), build) if combo_dir and build else None
        return _classes(args, exe)
    finally:
        if build is not None:
            shutil.rmtree(build, ignore_errors=True)


def _classes(args: argparse.Namespace, exe: Path | None) -> int:
    # Imports and first calls (the kernel's paths compiled or loaded): the default call, the
    # surrogate relaxation (strongly correlated), the rule among equal optima.
    for kind, n in (("uncorrelated", 50), ("strongly_correlated", 1000)):
        p, w, c = knapsack_instance(kind, n, 1000, np.random.default_rng(0))
        run_subsel(p, w, c, 1, 60.0)
        run_subsel(p, w, c, 1, 60.0, lexicographic=True)
    for name, f in (("ortools", run_ortools), ("cbc", run_cbc)):
        if name not in args.skip:
            f(p, w, c, 10.0)
    print(f"# subsel median of {args.runs} calls (at least 3, fewer past 3 s), combo median of {args.combo_runs} "
          f"({'built from ' + os.environ[COMBO_ENV] if exe else 'not measured: set ' + COMBO_ENV}), "
          f"OR-Tools and CBC one run; time limit {args.time_limit:g} s; load {os.getloadavg()[0]:.1f}")
    print(f"{'class':<28} {'n':>6} {'R':>9} {'rep':>3} {'subsel_s':>9} {'combo_s':>9} {'ortools_s':>10} "
          f"{'cbc_s':>9} {'sub/combo':>10} {'ort/sub':>9} {'cbc/sub':>9} {'agree':>6} {'lex_s':>9} "
          f"{'lex/combo':>10}")
    rows = []
    for kind, n, R, rep, p, w, c in instances(args):
        mine = run_subsel(p, w, c, args.runs, args.time_limit)
        search = run_subsel(p, w, c, args.runs, args.time_limit, lexicographic=True)
        combo = run_combo(exe, p, w, c, args.combo_runs, args.time_limit) if exe else None
        if exe and args.rounds > 1:
            mine, combo = paired_rounds(mine, combo, lambda: run_subsel(p, w, c, args.runs, args.time_limit),
                                        lambda: run_combo(exe, p, w, c, args.combo_runs, args.time_limit),
                                        args.rounds)
        ort = None if "ortools" in args.skip else run_ortools(p, w, c, args.time_limit)
        cbc = None if "cbc" in args.skip else run_cbc(p, w, c, args.time_limit)
        proven = [r.value for r in (mine, search, combo, ort, cbc) if r is not None and r.proven]
        agree = len(set(proven)) <= 1
        vs_combo = None if combo is None or not combo.proven else ratio(mine, combo)
        search_vs = None if combo is None or not combo.proven else ratio(search, combo)
        rows.append((kind, n, R, mine, combo, ort, cbc, vs_combo, agree, search_vs))
        print(f"{kind:<28} {n:>6} {R:>9} {rep:>3} {fmt_time(mine):>9} {fmt_time(combo):>9} {fmt_time(ort):>10} "
              f"{fmt_time(cbc):>9} {fmt_ratio(vs_combo, not mine.proven):>10} "
              f"{fmt_ratio(ratio(ort, mine), ort is not None and not ort.proven):>9} "
              f"{fmt_ratio(ratio(cbc, mine), cbc is not None and not cbc.proven):>9} "
              f"{'yes' if agree else 'NO':>6} {fmt_time(search):>9} "
              f"{fmt_ratio(search_vs, not search.proven):>10}", flush=True)
    print("\n## summary per class and data range (medians over its instances)")
    print(f"{'class':<28} {'R':>9} {'solved':>7} {'sub_med_s':>10} {'sub_max_s':>10} {'sub/combo':>10} "
          f"{'worst':>8} {'ort/sub':>8} {'cbc/sub':>8} {'agree':>6} {'lex/combo':>10} {'worst':>8}")
    groups: dict[tuple[str, str], list] = {}
    for row in rows:
        label = "hard" if row[0] in HARD_KNAPSACK_CLASSES else "classic" if row[2] in args.R else str(row[2])
        groups.setdefault((row[0], label), []).append(row)
    ok = True
    for (kind, rng), mine in groups.items():
        solved = sum(r[3].proven for r in mine)
        times = [r[3].seconds for r in mine]
        vs = [r[7] for r in mine if r[7] is not None]
        svs = [r[9] for r in mine if r[9] is not None]
        med = {k: [x for x in (ratio(r[i], r[3]) for r in mine) if x is not None] for k, i in (("ort", 5), ("cbc", 6))}
        # A median over ratios some of which are lower bounds (a time limit struck) is a lower bound.
        low = {k: any(r[i] is not None and not r[i].proven for r in mine) for k, i in (("ort", 5), ("cbc", 6))}
        agree = all(r[8] for r in mine)
        ok = ok and agree and solved == len(mine)
        print(f"{kind:<28} {rng:>9} {solved:>3}/{len(mine):<3} {statistics.median(times):>10.4f} {max(times):>10.4f} "
              f"{fmt_ratio(statistics.median(vs) if vs else None):>10} {fmt_ratio(max(vs) if vs else None):>8} "
              f"{fmt_ratio(statistics.median(med['ort']) if med['ort'] else None, low['ort']):>8} "
              f"{fmt_ratio(statistics.median(med['cbc']) if med['cbc'] else None, low['cbc']):>8} "
              f"{'yes' if agree else 'NO':>6} {fmt_ratio(statistics.median(svs) if svs else None):>10} "
              f"{fmt_ratio(max(svs) if svs else None):>8}")
    print("\nevery instance proved by subsel and every proven answer equal:", "yes" if ok else "NO")
    return 0 if ok else 1


def table_small(args: argparse.Namespace) -> int:
    print(f"# small knapsacks: best of {args.loops} calls each; load {os.getloadavg()[0]:.1f}")
    print(f"{'class':<28} {'n':>4} {'subsel_us':>10} {'ortools_us':>11} {'sub/ort':>8}")

    def best(f) -> float:
        t_best = math.inf
        for _ in range(args.loops):
            start = time.perf_counter()
            f()
            t_best = min(t_best, time.perf_counter() - start)
        return t_best

    ratios = []
    for kind in args.classes:
        for n in (5, 10, 15, 20):
            p, w, c = knapsack_instance(kind, n, 1000, np.random.default_rng([args.seed, n]))
            ours = solve_knapsack(p, w, c)
            theirs = run_ortools(p, w, c, 10.0)
            assert ours.optimal and ours.value == theirs.value, (kind, n)
            t_sub = best(lambda: solve_knapsack(p, w, c))
            t_ort = best(lambda: run_ortools(p, w, c, 10.0))
            ratios.append(t_sub / t_ort)
            print(f"{kind:<28} {n:>4} {t_sub * 1e6:>10.1f} {t_ort * 1e6:>11.1f} {t_sub / t_ort:>7.1f}x", flush=True)
    print(f"\nmedian subsel/ortools: {statistics.median(ratios):.1f}x, worst {max(ratios):.1f}x")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=["classes", "small"], default="classes")
    ap.add_argument("--classes", nargs="+", default=list(KNAPSACK_CLASSES), choices=KNAPSACK_CLASSES)
    ap.add_argument("--n", nargs="+", type=int, default=[1000, 10000], help="items (default 1000 10000)")
    ap.add_argument("--R", nargs="*", type=int, default=[1000, 10000],
                    help="data ranges of the classic rows (default 1000 10000; none: skip them)")
    ap.add_argument("--large-R", nargs="*", type=int, default=[10 ** 6, 10 ** 7],
                    help="data ranges of the large-coefficient rows (default 10^6 10^7; none: skip them)")
    ap.add_argument("--hard", nargs="*", default=list(HARD_KNAPSACK_CLASSES), choices=HARD_KNAPSACK_CLASSES,
                    metavar="CLASS", help="Pisinger's hard classes (2005, Section 3) at the classic n and R "
                    "(default all of them; --hard with no value skips them)")
    ap.add_argument("--reps", type=int, default=2, help="instances per cell (default 2)")
    ap.add_argument("--runs", type=int, default=11,
                    help="calls of solve_knapsack per instance, median kept (default 11, as combo; at least 3 "
                         "and fewer once they have taken 3 s)")
    ap.add_argument("--combo-runs", type=int, default=11, help="calls of combo per instance, median kept")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure subsel and combo this many times in turn per instance, keep the pair of "
                         "the median ratio (default 1)")
    ap.add_argument("--loops", type=int, default=200, help="calls per solver in the small table")
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds per solver run (default 30)")
    ap.add_argument("--skip", nargs="*", default=[], choices=["ortools", "cbc"], help="solvers to leave out")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args(argv)
    for name in ("runs", "combo_runs", "rounds"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1; got {getattr(args, name)}")
    return {"classes": table_classes, "small": table_small}[args.table](args)


if __name__ == "__main__":
    raise SystemExit(main())
