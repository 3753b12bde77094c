"""1-D inner products: BLAS ``x @ v`` against ``weighted_sum`` (elementwise product + pairwise sum).

``SubsetSelectionProblem.evaluate`` and ``quality_surplus`` and the GSS / DPSS / MILP-repair hot
paths compute ``sum_i x_i v_i`` on 1-D arrays.  ``x @ v`` calls the multi-threaded BLAS ``ddot``,
whose thread start-up dominates on a machine whose cores are busy; ``weighted_sum`` stays in numpy.
For each n the script times both on the same arrays (best of ``--repeat`` runs of ``--number``
calls), then ``problem.evaluate(x)`` and ``problem.quality_surplus(x)`` against the same expressions
written with ``@``, and prints the time per call and the ratio ``@ / weighted_sum`` measured in
this one run (the ratio depends on how loaded the machine is).

Usage::

    python benchmarks/bench_dot.py
    python benchmarks/bench_dot.py --n 1000 100000 --number 200 --repeat 5
"""
from __future__ import annotations

import argparse
import timeit

import numpy as np

from subsel.models import SubsetSelectionProblem
from subsel.models._rules import weighted_sum


def _evaluate_with_matmul(problem: SubsetSelectionProblem, x: np.ndarray) -> tuple[float, float, float]:
    """The three 1-D products of ``evaluate`` written with ``@`` (the former code)."""
    return float(x @ problem.quality_margin), float(x @ problem.utility), float(x @ problem.quality)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[100, 1000, 10_000, 100_000])
    ap.add_argument("--number", type=int, default=100, help="calls per timing run")
    ap.add_argument("--repeat", type=int, default=5, help="timing runs (the best counts)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    print(f"{'n':>8} {'what':<16} {'@ (us)':>10} {'new (us)':>10} {'ratio':>8}")
    for n in args.n:
        problem = SubsetSelectionProblem.random(n, 0.7, rng)
        x = rng.integers(0, 2, n).astype(float)
        v = problem.utility
        pairs = [
            ("inner product", lambda: x @ v, lambda: weighted_sum(x, v)),
            ("3 products", lambda: _evaluate_with_matmul(problem, x),
             lambda: (weighted_sum(x, problem.quality_margin), weighted_sum(x, v),
                      weighted_sum(x, problem.quality))),
            ("quality_surplus", lambda: x @ problem.quality_margin, lambda: problem.quality_surplus(x)),
            ("evaluate", None, lambda: problem.evaluate(x)),
        ]
        for what, old, new in pairs:
            t_new = min(timeit.repeat(new, number=args.number, repeat=args.repeat)) / args.number
            if old is None:
                print(f"{n:>8} {what:<16} {'':>10} {t_new * 1e6:>10.1f} {'':>8}")
                continue
            t_old = min(timeit.repeat(old, number=args.number, repeat=args.repeat)) / args.number
            print(f"{n:>8} {what:<16} {t_old * 1e6:>10.1f} {t_new * 1e6:>10.1f} {t_old / t_new:>8.1f}")


if __name__ == "__main__":
    main()
