"""Speed of the planner's model against the paper's, in one run.

The paper's random instance (q, c ~ U[0, 1], alpha = 0.7, capacities 1..10; Deva, Abhishek,
Gujar, AAMAS 2021, Section 6.1) at ``--n`` agents, solved

* as the paper's problem by ``exact`` and by ``highs``;
* with lot sizes and minimum orders (every agent: lot 1 or 2, minimum order 1..capacity, drawn
  from the same seed) by ``exact`` and ``highs``;
* with fixed order costs as well (``U[0, 0.5]`` per agent) by ``exact``;
* ``--coupled N``: the whole planner model at ``N`` agents (fixed costs, five groups with a cap on
  their units, a pledge of agents in the first, a budget and a demand that bind), by ``exact`` and
  ``highs`` in turn, each with ``--time-limit``: per instance the statuses, the objectives, the
  relative gaps to the proven bounds (``(bound - objective) / |objective|``) and the ratio of wall
  times ``exact / highs``, and their median;
* ``--coop N``: the same on the generated produce cooperative
  (:func:`subsel.models.planner_instance`: ten regions, Beta qualities, lots of 1/6/12/24, minimum
  orders, fixed costs, regional caps, a pledge, a demand and a budget that bind), instance ``j``
  drawn from seed ``--seed + j``.

The ratio that matters: ``exact`` with lot sizes and minimum orders against ``exact`` on the
paper's problem, same agents, same run.  ``--solvers exact`` leaves HiGHS out (it takes minutes on
10^5 agents with the planner's fields).

Times are each backend's ``backend_time_s`` and the whole call's ``wall_time_s``, best of
``--reps``; ratios are taken within this run.  Also the cost of building and evaluating the
problem with and without the planner's fields.

Usage::

    python benchmarks/bench_planner.py --n 10000 --reps 3
    python benchmarks/bench_planner.py --n 100000 --reps 3 --solvers exact
    python benchmarks/bench_planner.py --coupled 30 --instances 5 --time-limit 60
    python benchmarks/bench_planner.py --coop 500 --instances 5 --time-limit 60
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from subsel import SubsetSelectionProblem, get_solver
from subsel.models import planner_instance


def best(fn, reps: int) -> float:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def coupled_instance(n: int, rng: np.random.Generator) -> SubsetSelectionProblem:
    """The whole planner model at ``n`` agents (see the module's text)."""
    q, c = rng.random(n), rng.random(n)
    k = rng.integers(10, 60, size=n)
    groups = 5
    label = [f"g{i % groups}" for i in range(n)]
    limits: dict = {f"g{g}": {"max_units": int(k.sum() / groups * 0.5)} for g in range(groups)}
    limits["g0"]["min_agents"] = 1
    return SubsetSelectionProblem(quality=q, cost=c, alpha=0.6, capacity=k, min_units=k // 3,
                                  fixed_cost=rng.random(n) * 5, budget=float(k.sum()) * 0.1,
                                  demand=int(k.sum() * 0.15), group=label, group_limits=limits)


def coupled(n: int, instances: int, seed: int, time_limit: float, coop: bool = False) -> None:
    """``exact`` against ``highs`` on the whole planner model (``coop``: the generated
    cooperative), alternated, in one run."""
    ratios = []
    print(f"{'generated co-op' if coop else 'whole planner model'}, n = {n}, time limit {time_limit:g} s")
    print(f"{'inst':>4} {'exact':>10} {'obj':>14} {'gap':>8} {'s':>8} {'highs':>10} {'obj':>14} {'gap':>8} {'s':>8} "
          f"{'ratio':>7}")
    for j, rng in enumerate(np.random.default_rng(seed).spawn(instances)):
        p = planner_instance(n, seed + j) if coop else coupled_instance(n, rng)
        out = {}
        for name in (("exact", "highs") if j % 2 == 0 else ("highs", "exact")):
            t0 = time.perf_counter()
            sol = get_solver(name, time_limit_s=time_limit).solve(p)
            gap = (sol.bound - sol.objective) / max(1.0, abs(sol.objective)) if sol.bound is not None else np.nan
            out[name] = (sol.status.value, sol.objective, gap, time.perf_counter() - t0)
        ratio = out["exact"][3] / out["highs"][3]
        ratios.append(ratio)
        cells = [f"{out[name][0]:>10} {out[name][1]:14.6f} {out[name][2]:8.1e} {out[name][3]:8.3f}"
                 for name in ("exact", "highs")]
        print(f"{j:4d} {cells[0]} {cells[1]} {ratio:7.2f}")
    print(f"median wall time exact / highs: {float(np.median(ratios)):.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--solvers", default="exact,highs", help="comma-separated: exact, highs")
    ap.add_argument("--coupled", type=int, default=0, metavar="N",
                    help="time exact against highs on the whole planner model at N agents instead")
    ap.add_argument("--coop", type=int, default=0, metavar="N",
                    help="time exact against highs on the generated co-op (planner_instance) at N agents instead")
    ap.add_argument("--instances", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    if args.coupled or args.coop:
        coupled(args.coupled or args.coop, args.instances, args.seed, args.time_limit, coop=bool(args.coop))
        return
    names = [s.strip() for s in args.solvers.split(",") if s.strip()]
    rng = np.random.default_rng(args.seed)
    n = args.n
    q, c = rng.random(n), rng.random(n)
    k = rng.integers(1, 11, size=n)
    lot = rng.integers(1, 3, size=n)
    m = np.minimum(rng.integers(1, 11, size=n), k)
    m = np.where(-(-m // lot) * lot > k, 1, m)  # keep an allowed positive count
    lot = np.where(-(-m // lot) * lot > k, 1, lot)
    paper = SubsetSelectionProblem(quality=q, cost=c, alpha=0.7, capacity=k)
    planner = paper.with_changes(min_units=m, lot_size=lot)
    fixed = planner.with_changes(fixed_cost=rng.random(n) * 0.5)

    rows = {}
    for label, problem, name in (("paper", paper, "exact"), ("paper", paper, "highs"),
                                 ("planner", planner, "exact"), ("planner", planner, "highs"),
                                 ("fixed", fixed, "exact")):
        if name not in names:
            continue
        sols = []
        wall = best(lambda: sols.append(get_solver(name).solve(problem)), args.reps)
        sol = sols[-1]
        rows[label, name] = (sol.status.value, sol.objective, min(s.backend_time_s for s in sols), wall)
    print(f"n = {n}, best of {args.reps}")
    print(f"{'problem':8} {'solver':6} {'status':8} {'objective':>14} {'backend_s':>10} {'wall_s':>10}")
    for (label, name), (status, obj, backend, wall) in rows.items():
        print(f"{label:8} {name:6} {status:8} {obj:14.6f} {backend:10.4f} {wall:10.4f}")
    for top, bottom in ((("planner", "exact"), ("paper", "exact")), (("fixed", "exact"), ("paper", "exact")),
                        (("planner", "highs"), ("paper", "highs")), (("planner", "highs"), ("paper", "exact"))):
        if top in rows and bottom in rows:
            print(f"{top[0]} ({top[1]}) / {bottom[0]} ({bottom[1]}) wall time: {rows[top][3] / rows[bottom][3]:.2f}x")
    x = np.asarray(get_solver("exact").solve(paper).x)
    build_p = best(lambda: SubsetSelectionProblem(quality=q, cost=c, alpha=0.7, capacity=k), 20)
    build_l = best(lambda: SubsetSelectionProblem(quality=q, cost=c, alpha=0.7, capacity=k, min_units=m,
                                                  lot_size=lot), 20)
    eval_p = best(lambda: paper.evaluate(x), 20)
    eval_l = best(lambda: planner.evaluate(x), 20)
    print(f"build: paper {build_p * 1e3:.3f} ms, planner {build_l * 1e3:.3f} ms ({build_l / build_p:.2f}x)")
    print(f"evaluate: paper {eval_p * 1e3:.3f} ms, planner {eval_l * 1e3:.3f} ms ({eval_l / eval_p:.2f}x)")


if __name__ == "__main__":
    main()
