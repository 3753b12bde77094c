"""What the quality guarantee of ``from_counts`` costs: utility against the plan with the true qualities.

Random instances after Deva, Abhishek, Gujar (AAMAS 2021), Section 6.1 (``--n`` agents, true
qualities ``q ~ U[0.5, 1]``, costs ``c ~ U[0, 0.5]``, capacities 1..5, alpha = 0.8, R = 1): each
agent's units are inspected ``m`` times (``good ~ Binomial(m, q)``), the plan is made by ``exact``
on :meth:`SubsetSelectionProblem.from_counts` (Clopper-Pearson and Hoeffding bounds at
``--confidence``) and on the estimates alone, and each plan is scored on the true qualities:

* ``utility_ratio``: true utility ``sum (R q_i - c_i) x_i`` of the plan over the true optimum
  (the plan ``exact`` makes knowing ``q``), averaged over ``--trials`` (a plan worth nothing scores
  0; a true optimum of 0 is left out);
* ``met_alpha``: the share of trials whose plan has true average quality at least alpha (the
  empty plan counts as meeting it).

Usage::

    python benchmarks/bench_from_counts.py [--n 50] [--trials 200] [--confidence 0.95]
"""
from __future__ import annotations

import argparse

import numpy as np

from subsel import SubsetSelectionProblem, get_solver


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--inspections", default="20,100,1000", help="inspections per agent, comma-separated")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    solver = get_solver("exact")
    alpha = 0.8
    print(f"n = {args.n}, alpha = {alpha}, confidence = {args.confidence}, {args.trials} trials per row")
    print(f"{'inspections':>11}  {'plan from':<16} {'utility_ratio':>13} {'met_alpha':>9}")
    for m in [int(v) for v in args.inspections.split(",")]:
        rng = np.random.default_rng([args.seed, m])
        scores: dict[str, list[float]] = {"clopper-pearson": [], "hoeffding": [], "estimates": []}
        met: dict[str, int] = dict.fromkeys(scores, 0)
        for _ in range(args.trials):
            q = rng.uniform(0.5, 1.0, args.n)
            c = rng.uniform(0.0, 0.5, args.n)
            k = rng.integers(1, 6, args.n)
            good = rng.binomial(m, q)
            truth = SubsetSelectionProblem(q, c, alpha=alpha, capacity=k)
            best = solver.solve(truth).objective
            for label in scores:
                if label == "estimates":
                    p = SubsetSelectionProblem(good / m, c, alpha=alpha, capacity=k)
                else:
                    p = SubsetSelectionProblem.from_counts(good, np.full(args.n, m), c, alpha=alpha, capacity=k,
                                                           confidence=args.confidence, method=label)
                x = solver.solve(p).x
                units = int(x.sum())
                met[label] += units == 0 or float(np.dot(q, x)) / units >= alpha - 1e-9 / units
                if best > 0:
                    scores[label].append(float(np.dot(truth.utility, x)) / best)
        for label, values in scores.items():
            print(f"{m:>11}  {label:<16} {np.mean(values):>13.3f} {met[label] / args.trials:>9.3f}")


if __name__ == "__main__":
    main()
