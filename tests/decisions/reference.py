"""Brute-force references for the decision tools: every selection of a small instance."""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from subsel.models import SubsetSelectionProblem


def feasible_selections(problem: SubsetSelectionProblem) -> list[tuple[Fraction, np.ndarray]]:
    """Every feasible selection (by ``problem.evaluate``) with its exact utility, ranked by the tie
    rule of ``alternatives``: utility decreasing, then the unit vector lexicographically decreasing."""
    out = []
    r = [Fraction(float(v)) for v in problem.utility]
    for combo in itertools.product(*(range(int(k) + 1) for k in problem.capacity)):
        x = np.array(combo, dtype=np.int64)
        if problem.evaluate(x).feasible:
            value = sum((ri * int(xi) for ri, xi in zip(r, combo)), Fraction(0))
            if problem.fixed_cost is not None:
                value -= sum((Fraction(float(f)) for f, xi in zip(problem.fixed_cost, combo) if xi), Fraction(0))
            out.append((value, x))
    out.sort(key=lambda e: (-e[0], tuple(-e[1])))
    return out


def best(problem: SubsetSelectionProblem, fixed: tuple[int, int] | None = None) -> float | None:
    """The optimum (float utility) by enumeration, optionally with agent ``fixed[0]`` at ``fixed[1]`` units."""
    values = [float(u) for u, x in feasible_selections(problem) if fixed is None or x[fixed[0]] == fixed[1]]
    return max(values) if values else None
