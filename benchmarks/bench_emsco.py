"""Speed of one EMSCO run at the paper's settings (population 300 or 250, 150 generations).

Prints, per data set: wall and process CPU seconds per EA run (measured, or extrapolated linearly
from the generations run when ``--generations`` < 150), chromosome evaluations per second (per CPU
second), classifiers trained, Hessians formed per fast-path fit, and the cache hit rate of
cumulative-feature-set lookups.  CPU seconds are the figure to trust on a shared, loaded machine
(the load average is printed).  Targets (2 cores): every data set <= 60 CPU seconds per run
(Synthetic50, the slowest, about 40).

    python benchmarks/bench_emsco.py                         # all five, 150 generations
    python benchmarks/bench_emsco.py --datasets synthetic50 --generations 30 --n-jobs 2

The real data sets are read from ``--data-home`` / ``$SUBSEL_DATA`` / the copies in the package.

Ratio to another version in one run: ``--compare-with DIR`` runs every data set twice, in fresh
processes, alternately with this checkout's ``subsel`` and with the one in ``DIR`` (e.g. a
``git worktree add DIR <commit>`` of the version to compare with), and prints both CPU times, their
ratio (other / this: > 1 means this checkout is faster), whether the two final Pareto fronts are
identical (same stages, same validation objectives) and both CPU times per 150-generation run
(extrapolated linearly below 150 generations):

    git worktree add ../subsel-base main
    python benchmarks/bench_emsco.py --datasets synthetic50 --generations 20 --compare-with ../subsel-base
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from subsel.evolution import EMSCOClassifier
from subsel.evolution.datasets import load_dataset

PAPER_GENERATIONS = 150


def bench(name: str, generations: int, seed: int, data_home: str | None,
          n_jobs: int | None = None) -> dict:
    data = load_dataset(name, seed=seed, data_home=data_home)
    X_tr, X_va, X_te, y_tr, y_va, y_te = data.split()
    clf = EMSCOClassifier(**data.estimator_params(), max_iter=generations, random_state=seed,
                          n_jobs=n_jobs)
    start, cpu_start = time.perf_counter(), time.process_time()
    clf.fit(X_tr, y_tr, X_va, y_va)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    h = clf.history_
    test = clf.evaluate(X_te, y_te)
    # elitism can keep the whole population (first front = population): no children from then on
    still = (h["evaluations"] + h["cache_hits"] == 0) & (h["generation"] > 0)
    frozen = int(h["generation"][still].iloc[0]) if still.any() else -1
    fits = int(h["set_fits"].iloc[-1])
    scale = (PAPER_GENERATIONS + 1) / (generations + 1)
    return {"frozen_from": frozen, "dataset": name, "population": clf.population_size, "generations": generations,
            "wall_s": wall, "cpu_s": cpu, "s_per_run_150": wall * scale,
            "cpu_s_per_run_150": cpu * scale, "evals_per_s": clf.n_evaluations_ / wall,
            "evals_per_cpu_s": clf.n_evaluations_ / cpu, "fits": fits,
            "hessians_per_fit": float(h["newton_iterations"].iloc[-1]) / fits
            if "newton_iterations" in h and fits else float("nan"),
            "cache_hit_rate": clf.cache_hit_rate_, "n_stages": len(clf.stages_),
            "test_g1": test["g1"], "test_g2": test["g2"], "test_g3*": test["g3*"]}


def front_of(name: str, generations: int, seed: int, data_home: str | None) -> dict:
    """CPU seconds of one fit and its final Pareto front (stages and validation objectives)."""
    data = load_dataset(name, seed=seed, data_home=data_home)
    X_tr, X_va, _, y_tr, y_va, _ = data.split()
    clf = EMSCOClassifier(**data.estimator_params(), max_iter=generations, random_state=seed)
    cpu_start = time.process_time()
    clf.fit(X_tr, y_tr, X_va, y_va)
    cpu = time.process_time() - cpu_start
    front = clf.pareto_front_
    return {"cpu_s": cpu, "front": [[s, [float(front[c].iloc[i]) for c in ("g1", "g2", "g3*")]]
                                    for i, s in enumerate(front["stages"])]}


def compare(names, generations: int, seed: int, data_home: str | None, other: str) -> None:
    """Alternate fresh processes of this checkout and of ``other``; print CPU times and ratios."""
    here = str(Path(__file__).resolve().parent.parent)
    print("load average (1, 5, 15 min) at start: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    print(f"{'dataset':>12} {'generations':>11} {'cpu_this_s':>10} {'cpu_other_s':>11} "
          f"{'other/this':>10} {'same_front':>10} {'this_per_run_150':>16} {'other_per_run_150':>17}",
          flush=True)
    scale = (PAPER_GENERATIONS + 1) / (generations + 1)
    for name in names:
        runs = {}
        for label, root in (("other", other), ("this", here)):
            env = dict(os.environ, PYTHONPATH=root)
            cmd = [sys.executable, __file__, "--worker", "--datasets", name, "--generations",
                   str(generations), "--seed", str(seed)] + (["--data-home", data_home] if data_home else [])
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
            runs[label] = json.loads(out.strip().splitlines()[-1])
        same = runs["this"]["front"] == runs["other"]["front"]
        print(f"{name:>12} {generations:>11} {runs['this']['cpu_s']:>10.2f} {runs['other']['cpu_s']:>11.2f} "
              f"{runs['other']['cpu_s'] / runs['this']['cpu_s']:>10.3f} {str(same):>10} "
              f"{runs['this']['cpu_s'] * scale:>16.1f} {runs['other']['cpu_s'] * scale:>17.1f}", flush=True)
    print("load average (1, 5, 15 min) at end: %.2f %.2f %.2f" % os.getloadavg())
    if generations < PAPER_GENERATIONS:
        print(f"*_per_run_150: CPU seconds extrapolated linearly from {generations} generations")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+",
                    default=["pima", "heart", "credit", "synthetic15", "synthetic50"])
    ap.add_argument("--generations", type=int, default=PAPER_GENERATIONS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-home")
    ap.add_argument("--n-jobs", type=int, help="threads/processes for training (default serial)")
    ap.add_argument("--compare-with", metavar="DIR",
                    help="another checkout: CPU-time ratio and front identity against it, in one run")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(front_of(args.datasets[0], args.generations, args.seed, args.data_home)))
        return
    if args.compare_with:
        compare(args.datasets, args.generations, args.seed, args.data_home, args.compare_with)
        return
    print("load average (1, 5, 15 min) at start: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    cols = ["dataset", "population", "generations", "wall_s", "cpu_s", "s_per_run_150",
            "cpu_s_per_run_150", "evals_per_s", "evals_per_cpu_s", "fits", "hessians_per_fit",
            "cache_hit_rate", "frozen_from", "n_stages", "test_g1", "test_g2", "test_g3*"]
    print(" ".join(f"{c:>14}" for c in cols), flush=True)
    for name in args.datasets:
        row = bench(name, args.generations, args.seed, args.data_home, args.n_jobs)
        print(" ".join(f"{row[c]:>14.4g}" if isinstance(row[c], float) else f"{row[c]:>14}"
                       for c in cols), flush=True)
    print("load average (1, 5, 15 min) at end: %.2f %.2f %.2f" % os.getloadavg())
    print("frozen_from: first generation with no children (the unique first front filled the "
          "population; -1: never)")
    if args.generations < PAPER_GENERATIONS:
        print(f"s_per_run_150 extrapolates linearly from {args.generations} generations "
              "(later generations can cost more or less: more stages, but more cache hits)")


if __name__ == "__main__":
    main()
