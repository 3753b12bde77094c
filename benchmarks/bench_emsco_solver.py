"""The 'emsco' heuristic Solver against the optimum: mean utility ratio and time (Hamilton and Fulp 2022, Section IV).

For alpha = 0.7 and each n, ``--instances`` paper instances ``q, c ~ U[0, 1]`` (Deva et al.,
Section 6.1) are drawn from independent streams ``SeedSequence(seed).spawn(k)``.  Each is solved by
``emsco`` (EMSCO's genetic engine on repaired selection vectors, default settings, seeded), by
``gss`` and by an exact reference (``dpss`` up to ``--dpss-max`` agents, else ``--exact``, gap 0).
Printed per n: mean / min utility ratio to the optimum (instances with optimum 0 counted, not
averaged) and the median wall time per solve, all measured in this one run.

Usage::

    python benchmarks/bench_emsco_solver.py                          # n = 20, 100, 1000
    python benchmarks/bench_emsco_solver.py --sizes 20,100 --instances 5
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from subsel.models import SubsetSelectionProblem  # noqa: E402
from subsel.solvers import get_solver  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="20,100,1000", help="comma-separated n")
    p.add_argument("--instances", type=int, default=10)
    p.add_argument("--alpha", type=float, default=0.7)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--exact", default="highs", help="exact reference above --dpss-max agents")
    p.add_argument("--dpss-max", type=int, default=20)
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"alpha = {args.alpha}, {args.instances} instances per n, seed {args.seed}")
    print(f"{'n':>6} {'reference':>9} {'zero opt':>8} {'emsco mean':>10} {'emsco min':>9} "
          f"{'gss mean':>8} {'t_emsco [s]':>11} {'t_gss [s]':>9} {'t_ref [s]':>9} {'gens':>5}")
    for n in sizes:
        ref_name = "dpss" if n <= args.dpss_max else args.exact
        ratios, gss_ratios, t_e, t_g, t_r, gens, zero = [], [], [], [], [], [], 0
        for k, ss in enumerate(np.random.SeedSequence([args.seed, n]).spawn(args.instances)):
            problem = SubsetSelectionProblem.random(n, args.alpha, rng=np.random.default_rng(ss))
            ref = get_solver(ref_name).solve(problem)
            emsco = get_solver("emsco", seed=k)
            e = emsco.solve(problem)
            g = get_solver("gss").solve(problem)
            t_e.append(e.wall_time_s)
            t_g.append(g.wall_time_s)
            t_r.append(ref.wall_time_s)
            gens.append(emsco.generations_run)
            if abs(ref.objective) <= 1e-12:
                zero += 1
                continue
            ratios.append(e.objective / ref.objective)
            gss_ratios.append(g.objective / ref.objective)
        mean = statistics.fmean(ratios) if ratios else float("nan")
        low = min(ratios) if ratios else float("nan")
        gmean = statistics.fmean(gss_ratios) if gss_ratios else float("nan")
        print(f"{n:>6} {ref_name:>9} {zero:>8} {mean:>10.5f} {low:>9.5f} {gmean:>8.5f} "
              f"{statistics.median(t_e):>11.3f} {statistics.median(t_g):>9.5f} "
              f"{statistics.median(t_r):>9.4f} {statistics.median(gens):>5.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
