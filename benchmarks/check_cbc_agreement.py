"""Does the ``cbc`` backend agree with ``exact``?  A count over random instances (not a timing).

Instances ``SubsetSelectionProblem.random(n, alpha=0.7, rng)`` of Deva, Abhishek, Gujar (AAMAS 2021,
Section 6: q, c ~ U[0, 1]) with n cycling through 20, 40, 60, 80, 120, 200 and one seed per instance
(``SeedSequence(seed).spawn``).  An instance agrees when ``cbc`` reports ``optimal`` and its
utility is within the optimality tolerance (``1e-9`` relative) of ``exact``'s.  Prints the count
and every disagreement (seed, n, both statuses and utilities).

Usage::

    python benchmarks/check_cbc_agreement.py [--instances 1000] [--seed 0]
"""
from __future__ import annotations

import argparse

import numpy as np

from subsel.models import OPTIMALITY_RTOL, SubsetSelectionProblem
from subsel.solvers import Status, get_solver

SIZES = (20, 40, 60, 80, 120, 200)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    exact, cbc = get_solver("exact"), get_solver("cbc")
    streams = np.random.SeedSequence(args.seed).spawn(args.instances)
    agree = 0
    for k, stream in enumerate(streams):
        n = SIZES[k % len(SIZES)]
        problem = SubsetSelectionProblem.random(n, alpha=0.7, rng=np.random.default_rng(stream))
        e, c = exact.solve(problem), cbc.solve(problem)
        ok = (e.status is Status.OPTIMAL and c.status is Status.OPTIMAL
              and c.objective >= e.objective - OPTIMALITY_RTOL * abs(e.objective))
        agree += ok
        if not ok:
            print(f"instance {k} (n={n}): cbc {c.status.value} {c.objective!r}, exact {e.status.value} "
                  f"{e.objective!r}")
    print(f"cbc agrees with exact (optimal, same utility) on {agree} of {args.instances} instances")


if __name__ == "__main__":
    main()
