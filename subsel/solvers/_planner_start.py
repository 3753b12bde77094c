"""A starting plan for a time-limited MILP or CP-SAT solve of a planner's problem.

The Lagrangian heuristic (Fisher, *Management Science* 27(1), 1981, Section 5) on the model of
:mod:`subsel.solvers._planner_search`: a few subgradient steps of its dual, then a greedy pass by
the agents' reduced values.  The MILP pipeline reaches it through the ``exact`` solver of the
registry (:meth:`subsel.solvers.exact.Exact.starting_plan`), so that it imports no solver.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..models import SubsetSelectionProblem
from ..models._rules import rounded_up
from ._planner_search import _activity, _dual, _Incumbent, _Model, _model, _repair

#: Subgradient steps of a MILP's starting plan (:func:`planner_start`; at most).
_START_STEPS = 100
#: Share of the time left that the starting plan's subgradient steps may take.
_START_SHARE = 0.1


def planner_start(problem: SubsetSelectionProblem, deadline: float | None
                  ) -> tuple[np.ndarray | None, float | None]:
    """A starting plan for a time-limited MILP or CP-SAT solve of a planner's problem, and a proven
    upper bound on its optimum.

    Steps 1 and 2 of the module's method, made cheap for tens of thousands of agents: a few
    subgradient steps of the Lagrangian dual (at most :data:`_START_STEPS`, and a share
    :data:`_START_SHARE` of the time left) give multipliers ``mu``; then a greedy pass takes the
    agents in the order of their reduced value at full capacity, ``(r_i l_i - mu . a_i) hi_i - (f_i
    + mu . b_i)`` (the Lagrangian heuristic of Fisher, *Management Science* 27(1), 1981, Section 5),
    each with the most lots that leave every row that holds holding and worsen none that does not
    (the least selection to begin with: must-take agents at their minimum order); what the pass
    leaves violated is repaired by the module's moves while time is left.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        No constraint objects (the caller checks).
    deadline : float or None
        A ``time.perf_counter()`` value; past it the search returns what it has.

    Returns
    -------
    (ndarray or None, float or None)
        Units per agent that ``problem.evaluate`` accepts (None when none was found), and the
        Lagrangian bound (rounded up; None when no step was taken).
    """
    left = None if deadline is None else deadline - time.perf_counter()
    d = _model(problem)
    inc = _Incumbent(problem, d)
    inc.offer(np.where(d.off, 0, d.lo))
    dual = _dual(d, inc, None if left is None else time.perf_counter() + _START_SHARE * left,
                 steps=_START_STEPS, repair=False)
    if not math.isfinite(dual.bound):
        return None, None
    bound = rounded_up(dual.bound, abs(dual.bound) + 1.0, 1) + 2 * dual.err
    mu = dual.mu
    score = (d.dv - mu @ d.A) * np.where(d.lo <= d.hi, d.hi, 0) - (d.f + mu @ d.B)
    z = _greedy(d, score, deadline)
    if z is not None and not inc.offer(z):
        fixed = _repair(d, z, deadline)
        if fixed is not None:
            inc.offer(fixed)
    return (None if inc.z is None else inc.z * d.lot), max(bound, inc.value)


def _greedy(d: _Model, score: np.ndarray, deadline: float | None) -> np.ndarray | None:
    """The greedy pass of :func:`planner_start` (None when the deadline passes first)."""
    z = np.where(d.off, 0, d.lo).astype(np.int64)
    act = _activity(d, z)
    cols_a, cols_b = np.ascontiguousarray(d.A.T), np.ascontiguousarray(d.B.T)
    free = np.flatnonzero(d.off & (d.lo <= d.hi) & (z == 0))
    for j, i in enumerate(free[np.argsort(-score[free], kind="stable")].tolist()):
        if j % 1024 == 0 and deadline is not None and time.perf_counter() > deadline:
            return None
        a, base = cols_a[i], act + cols_b[i]
        room = np.maximum(d.C, act) - base  # a row that holds keeps holding; one that does not, no worse
        if (room < 0).any() and ((a <= 0) & (room < 0)).any():
            continue
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            most = np.where(a > 0, np.floor(room / np.where(a > 0, a, 1.0)), np.inf).min()
        t = int(min(float(d.hi[i]), max(float(most), -1.0)))
        if t < d.lo[i]:
            continue
        new = base + a * t
        if d.dv[i] * t - d.f[i] <= 0 and not ((act > d.C) & (new < act)).any():
            continue  # neither value nor a step towards a violated row
        z[i], act = t, new
    return z
