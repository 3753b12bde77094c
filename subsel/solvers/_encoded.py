"""Knapsacks encoded beyond exact float64: how each solver answers a problem whose quality constraint
is decided on its integer knapsack data (:attr:`SubsetSelectionProblem.knapsack`, not
``exact_in_float64``).

Such a problem is a 0-1 knapsack ``max p.y`` s.t. ``w.y <= W`` whose profits or weights float64 holds
only approximately (Deva, Abhishek, Gujar, AAMAS 2021, Section 3, with one anchor agent and one agent
per item).  ``exact`` and ``dpss`` solve it as an integer knapsack (:func:`solve_encoded`, the
expanding-core dynamic program of Pisinger, Operations Research 45(5), 1997, in exact integer
arithmetic) and map the answer back (anchor 1, items ``y``); ``gss`` takes the greedy selection by
profit per weight in integers (:func:`greedy_encoded`; Dantzig, Operations Research 5(2), 1957);
the MILP backends would work on the rounded floats with absolute tolerances, and refuse it
(:func:`refuse_encoded`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import RawResult

if TYPE_CHECKING:
    from ..models import IntegerKnapsack, SubsetSelectionProblem

__all__ = ["greedy_encoded", "refuse_encoded", "solve_encoded"]


def solve_encoded(data: IntegerKnapsack, time_limit_s: float | None, memory_limit_mb: float | None,
                  lexicographic: bool = False) -> RawResult:
    """Solve a problem's integer knapsack exactly and return its selection of the problem's agents.

    Parameters
    ----------
    data : IntegerKnapsack
        The integer knapsack data of a problem built by ``from_knapsack`` (``problem.knapsack``).
    time_limit_s, memory_limit_mb : float or None
        As :func:`subsel.solvers.solve_knapsack`.
    lexicographic : bool
        The rule among equal optima of ``exact`` (the anchor, always taken, is first).

    Returns
    -------
    RawResult
        ``x`` of shape (m + 1,) (anchor 1, then the items' 0/1), ``optimal`` when proven, else
        ``time_limit``, and the integer bound (as a float, rounded up).
    """
    from ..knapsack import solve_knapsack  # loaded when used

    sol = solve_knapsack(data.values, data.weights, data.capacity, time_limit_s=time_limit_s,
                         memory_limit_mb=memory_limit_mb, lexicographic=lexicographic)
    x = np.concatenate((np.ones(1, dtype=np.int64), sol.x))
    bound = float(sol.bound)
    if int(bound) < sol.bound:  # rounded down by float64: the next float up is still a bound
        bound = float(np.nextafter(bound, np.inf))
    return RawResult(x, sol.status, None if sol.optimal else bound)


def greedy_encoded(data: IntegerKnapsack) -> np.ndarray:
    """The greedy selection: items by decreasing profit per unit of weight (weightless items first,
    then by index), each taken when it still fits, the sums in exact integers; anchor 1.

    Returns
    -------
    ndarray of int64, shape (m + 1,)
    """
    v, w = data.values, data.weights
    ratio = np.where(w > 0, v.astype(float) / np.maximum(w, 1).astype(float), np.inf)
    order = np.lexsort((np.arange(v.size), -ratio))
    x = np.zeros(v.size + 1, dtype=np.int64)
    x[0] = 1
    left = data.effective_capacity
    for j, wj, vj in zip(order.tolist(), w[order].tolist(), v[order].tolist()):
        if wj <= left and (vj > 0 or wj == 0):
            x[j + 1] = 1
            left -= wj
    return x


def refuse_encoded(problem: SubsetSelectionProblem, solver: str) -> None:
    """Raise ``ValueError`` when ``problem`` is a knapsack that float64 does not hold exactly.

    Raises
    ------
    ValueError
        One line naming the magnitude and the solver that answers it (``exact``).
    """
    data = problem._integer_rule
    if data is None:
        return
    big = max(int(data.values.max(initial=0)), int(data.weights.max(initial=0)), data.effective_capacity)
    raise ValueError(f"{solver}: this knapsack's integers (up to {big}, capacity {data.capacity}) are beyond "
                     "exact float64 arithmetic (W + 3 max w > 2^29 or a sum above 2^53), where a MILP "
                     "solver's tolerances cannot tell an overweight selection; solve it with the 'exact' "
                     "solver (or subsel.solve_knapsack)")
