"""The price of quality: the optimum as a function of the quality threshold alpha.

Deva, Abhishek, Gujar, AAMAS 2021, Section 3: the constraint ``sum_i (q_i - alpha) x_i >= 0`` is the
only part of the model that depends on alpha.  A selection ``x`` satisfies it exactly for
``alpha <= q_av(x)`` (its average quality), so the feasible set shrinks as alpha grows and the optimum
``V(alpha)`` is a non-increasing step function: the optimal selection at ``alpha`` stays optimal for
every larger threshold up to its own average quality.  Both functions below use that to save solves
(with an exact solver), and :func:`frontier_breakpoints` finds every step.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .._validation import as_float_array, check_array_range, check_scalar
from ..models import FEASIBILITY_TOL, OPTIMALITY_RTOL, SubsetSelectionProblem
from ..solvers import DEFAULT_SOLVER_PREFERENCE, SOLVERS, Solution, Solver, Status, get_solver, solver_info
from ._common import as_solver, check_problem, summary

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Columns of :func:`frontier`, in order.
FRONTIER_COLUMNS = ("alpha", "objective", "units", "avg_quality", "agents", "status")


def _carries_over(sol: Solution | None, solver: Solver, problem: SubsetSelectionProblem, alpha: float) -> bool:
    """Whether ``sol``, found by an exact solver at a smaller threshold, answers ``problem`` at ``alpha``.

    An optimal selection that still meets the quality constraint at the larger alpha is optimal there
    (the feasible set only shrank); a proven-infeasible problem stays infeasible.  The constraint
    ``sum_i q_i x_i - alpha sum_i x_i >= -1e-9`` is decided from the selection's average quality when
    it is clear by more than the float sum's rounding error bound (``4 n eps`` relative), and by the
    model's exact rule otherwise.
    """
    if sol is None or not solver.exact:
        return False
    if sol.status is Status.INFEASIBLE:
        return True
    if sol.status is not Status.OPTIMAL:
        return False
    units = float(sol.x.sum())
    if not units:
        return True  # the empty selection meets every threshold
    slack = 4.0 * problem.n * np.finfo(float).eps
    if alpha <= sol.avg_quality - slack:
        return True
    if alpha > sol.avg_quality + FEASIBILITY_TOL / units + slack:
        return False
    return problem.with_changes(alpha=alpha).evaluate(sol.x).feasible


def frontier(problem: SubsetSelectionProblem, alphas: Any, solver: str | Solver = "exact") -> "pd.DataFrame":
    """The optimum at each quality threshold of ``alphas``: the price of quality.

    Deva, Abhishek, Gujar, AAMAS 2021, Section 3, eq. (1), solved for each ``alpha`` with every other
    field of ``problem`` (costs, capacities, budget, demand, must lists) unchanged.  With an exact
    solver the thresholds are visited in increasing order and a solve is skipped when the previous
    optimal selection is still feasible (it is then still optimal: raising alpha only removes
    selections), so a fine grid costs about one solve per distinct optimal selection.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        Its own ``alpha`` is ignored.
    alphas : array-like of float, shape (m,)
        Thresholds in [0, 1], any order, repeats allowed; one output row each, in the given order.
    solver : str or Solver, default "exact"
        A registry name or a solver instance; it must support the extensions ``problem`` uses.

    Returns
    -------
    pandas.DataFrame, shape (m, 6)
        Columns ``alpha`` (float), ``objective`` (utility ``sum r_i x_i`` in revenue units; NaN when
        there is no selection), ``units`` (``sum x_i``), ``avg_quality`` (NaN for the empty
        selection), ``agents`` (agents with ``x_i > 0``), ``status`` (the solver's status).

    Raises
    ------
    ValueError
        ``alphas`` empty, not finite or outside [0, 1] (naming the index and value); an unknown
        solver name; an extension the solver does not support.
    TypeError
        ``problem`` is not a SubsetSelectionProblem, or ``solver`` not a name or a Solver.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, frontier
    >>> p = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.5)
    >>> frontier(p, [0.6, 0.8, 0.9])[["alpha", "objective", "agents"]].round(6).values.tolist()
    [[0.6, 1.55, 3.0], [0.8, 1.05, 2.0], [0.9, 0.45, 1.0]]
    """
    import pandas as pd

    problem = check_problem(problem)
    solver = as_solver(solver)
    a = as_float_array(alphas, "alphas")
    if a.size == 0:
        raise ValueError("alphas must hold at least one threshold; got none")
    check_array_range(a, "alphas", 0.0, 1.0, "in [0, 1]")
    rows: list[dict[str, Any]] = [{} for _ in range(a.size)]
    last: Solution | None = None
    row: dict[str, Any] = {}
    solve_at = solver.threshold_solver(problem)
    for j in np.argsort(a, kind="stable"):
        alpha = float(a[j])
        if last is None or not _carries_over(last, solver, problem, alpha):
            last = solve_at(alpha)
            row = summary(last)
        rows[j] = row
    columns = {key: [r[key] for r in rows] for key in FRONTIER_COLUMNS[1:]}
    return pd.DataFrame({"alpha": a.astype(float), **columns}, columns=list(FRONTIER_COLUMNS))


def _last_feasible_alpha(problem: SubsetSelectionProblem, x: np.ndarray) -> float:
    """The largest float ``alpha`` at which ``x`` passes the model's feasibility rule.

    The rule is exact on the stored numbers: ``sum_i (q_i - alpha) x_i >= -FEASIBILITY_TOL``, i.e.
    ``alpha <= (sum_i q_i x_i + FEASIBILITY_TOL) / sum_i x_i``, a rational computed exactly here and
    rounded down to a float; the rule itself confirms the answer (and corrects it by a step should
    the two ever disagree).
    """
    units = int(x.sum())
    idx = np.flatnonzero(x)
    top = (sum((Fraction(float(problem.quality[i])) * int(x[i]) for i in idx), Fraction(0))
           + Fraction(FEASIBILITY_TOL)) / units
    alpha = float(top)
    if Fraction(alpha) > top:
        alpha = math.nextafter(alpha, -math.inf)
    while alpha > 0.0 and not problem.with_changes(alpha=min(alpha, 1.0)).evaluate(x).feasible:
        alpha = math.nextafter(alpha, -math.inf)  # pragma: no cover - the rule and the rational agree
    while alpha < 1.0 and problem.with_changes(alpha=math.nextafter(alpha, math.inf)).evaluate(x).feasible:
        alpha = math.nextafter(alpha, math.inf)  # pragma: no cover
    return alpha


def _below(problem: SubsetSelectionProblem, x: np.ndarray, alpha: float) -> bool:
    """Whether the average quality of ``x``, in exact rational arithmetic on the stored floats, lies
    below ``alpha``: ``sum_i q_i x_i < alpha sum_i x_i`` (so ``x`` meets the rule at ``alpha`` only
    through its tolerance)."""
    idx = np.flatnonzero(x)
    total = sum((Fraction(float(problem.quality[i])) * int(x[i]) for i in idx), Fraction(0))
    return total < Fraction(alpha) * int(x.sum())


def fallback_solver(problem: SubsetSelectionProblem, solver: Solver) -> Solver | None:
    """The certified MILP backend :func:`frontier_breakpoints` asks where ``solver`` cannot prove a step.

    The first of the registry's preferred solvers (:data:`subsel.solvers.DEFAULT_SOLVER_PREFERENCE`)
    other than ``solver`` that is available, proves optimality and solves with no-good cuts (a MILP
    backend: its optimum is certified by the pipeline of :mod:`subsel.solvers._milp`) and supports
    every extension ``problem`` uses; it gets ``solver``'s time limit.  None when there is none.
    """
    for row in solver_info([name for name in DEFAULT_SOLVER_PREFERENCE if name in SOLVERS]):
        if row.name == solver.name or not row.available or not (set(problem.extensions) <= row.supports):
            continue
        candidate = get_solver(row.name, time_limit_s=solver.time_limit_s)
        if candidate.exact and candidate.no_good_cuts:
            return candidate
    return None


def _step_search(problem: SubsetSelectionProblem, solver: Solver, fallback: Solver | None
                 ) -> Callable[[float], Solution]:
    """``solve_at(alpha)``: ``solver``'s proven answer at ``alpha``, or where it only has a selection
    it cannot prove optimal (status ``feasible``), ``fallback``'s, cross-checked against it.

    Raises
    ------
    ValueError
        Neither proves the optimum (naming the threshold, the solvers and their statuses), or the
        fallback's optimum contradicts ``solver``'s selection or bound.
    """
    solve_at = solver.threshold_solver(problem)
    other: list[Callable[[float], Solution]] = []

    def proven(sol: Solution) -> bool:
        return sol.status is Status.OPTIMAL or sol.status is Status.INFEASIBLE

    def at(alpha: float) -> Solution:
        sol = solve_at(alpha)
        if proven(sol):
            return sol
        if sol.status is not Status.FEASIBLE:
            raise ValueError(f"solver {solver.name!r} stopped at alpha {alpha!r} with status "
                             f"{sol.status.value} (no proven optimum); give it more time")
        if fallback is None:
            raise ValueError(f"solver {solver.name!r} cannot prove the optimum at alpha {alpha!r}, a hair above a "
                             "selection's average quality, and there is no fallback (fallback=None, or no "
                             "certified MILP backend that supports the problem: highs, cbc, ortools-scip); use an "
                             "evenly spaced grid of thresholds instead")
        if not other:
            other.append(fallback.threshold_solver(problem))
        again = other[0](alpha)
        if not proven(again):
            raise ValueError(f"neither {solver.name!r} ({sol.status.value}) nor {fallback.name!r} "
                             f"({again.status.value}) proves the optimum at alpha {alpha!r}; use an evenly "
                             "spaced grid of thresholds instead")
        # The fallback's optimum can be no worse than the selection in hand, nor above its bound.
        slack = OPTIMALITY_RTOL * max(1.0, abs(sol.objective))
        if again.status is Status.INFEASIBLE or again.objective < sol.objective - slack or (
                sol.bound is not None and again.objective > sol.bound + slack):
            raise ValueError(f"{fallback.name!r} contradicts {solver.name!r} at alpha {alpha!r}: its answer "
                             f"({again.status.value}, utility {again.objective!r}) lies outside [{sol.objective!r}, "
                             f"{sol.bound!r}], the utility of {solver.name!r}'s selection and its bound")
        return again

    return at


def frontier_breakpoints(problem: SubsetSelectionProblem, alpha_min: float = 0.0, alpha_max: float = 1.0,
                         solver: str | Solver = "exact", *, resolution: float = 0.0,
                         max_steps: int | None = None, fallback: str | Solver | None = "auto",
                         tolerance_steps: bool = False, stop: Callable[[], bool] | None = None) -> "pd.DataFrame":
    """Every optimal selection between two thresholds, and the exact threshold where each stops.

    Deva, Abhishek, Gujar, AAMAS 2021, Section 3.  The optimum ``V(alpha)`` is a step function:
    a selection ``x`` optimal at ``alpha`` stays optimal up to its average quality ``q_av(x)``, the
    threshold where ``sum_i (q_i - alpha) x_i`` reaches 0, and no further (it is infeasible beyond).
    The search solves at ``alpha_min``, then at the first threshold where the model's feasibility rule
    (absolute tolerance 1e-9 on the constraint's left side) rejects the optimal selection found, which
    is computed exactly: ``(sum_i q_i x_i + 1e-9) / sum_i x_i`` rounded down to a float is the last
    threshold that accepts it, and the next float the first that does not.  So the steps are exact
    (under the rule), and the search costs one solve per step.

    Each step starts one float above a selection's last feasible threshold, where selections miss
    the rule by less than floating point resolves.  A solver that cannot prove the optimum there
    (``exact`` where its search in the rule's exact integers passes its limits of states or memory)
    returns its selection as ``feasible``; the step is then solved by ``fallback``, a
    certified MILP backend (:func:`fallback_solver`), whose optimum must lie between that
    selection's utility and the first solver's bound.  Every row is proven.

    The rule's tolerance lets a selection of ``u`` units through up to ``1e-9 / u`` past its average
    quality, so at the same average quality a selection of fewer units lasts a hair longer: each is
    a step some 1e-12 wide under the rule, noise to a reader.  Unless ``tolerance_steps``, a
    selection found at a threshold above its own average quality (compared in exact rational
    arithmetic on the stored floats) is met only through the tolerance and makes no row: the
    search goes on past it, and the next row starts one float above the previous row's
    ``alpha_to`` (so within such a band a row's utility can be below the rule's optimum by that
    selection's).  Only the first row (a selection whose average quality is ``alpha_min`` or a
    hair above) and the last can then be narrower than the tolerance.

    A step is as small as one unit of an agent: a frontier of many units has many steps (about
    1,400 per 0.01 of alpha on 50 agents with thousands of units each).  ``resolution`` skips the
    thresholds closer than it to the last row's start, so a range of width ``w`` takes at most
    about ``w / resolution + 1`` solves; ``max_steps`` stops a search that would take more.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        Its own ``alpha`` is ignored.
    alpha_min, alpha_max : float
        The range of thresholds, ``0 <= alpha_min <= alpha_max <= 1``.
    solver : str or Solver, default "exact"
        An exact solver (``exact = True``), name or instance.
    resolution : float, default 0.0
        In [0, 1]: each row after the first starts at the larger of the next float above the
        previous row's ``alpha_to`` and the previous row's ``alpha`` plus ``resolution`` (at most
        ``alpha_max``).  0: every step.  The rows stay exact; between two rows that do not touch, the
        optimum lies between their two objectives (it is non-increasing in alpha).
    max_steps : int or None, default None
        The most rows; a search that needs more raises ``ValueError`` (with a resolution that fits).
        None: no limit.
    fallback : "auto", str, Solver or None, default "auto"
        The solver asked at a threshold where ``solver`` answers ``feasible`` (a selection it cannot
        prove optimal).  ``"auto"``: :func:`fallback_solver`, the first preferred MILP backend
        (highs, cbc, ortools-scip) that supports the problem.  None: no fallback (such a threshold
        raises ``ValueError``).
    stop : callable, optional
        Called with no argument before each solve after the first; when it returns True the search
        ends and returns the rows found so far (a time budget: the last row's ``alpha_to`` is then
        below ``alpha_max``, and the thresholds above it are not known).
    tolerance_steps : bool, default False
        Keep the steps that exist only through the rule's tolerance (see above) as rows of their
        own, so that every row is the rule's optimum at every threshold it covers.

    Returns
    -------
    pandas.DataFrame, one row per optimal selection, in increasing ``alpha``
        The columns of :func:`frontier` plus ``alpha_to``: the row's selection is optimal for every
        threshold from ``alpha`` to ``alpha_to``, the last threshold at which it meets the rule (its
        average quality plus ``1e-9 / units``), or ``alpha_max``.  Without a resolution the next row
        starts at the next float above ``alpha_to``.  A last row with status ``infeasible`` covers the
        thresholds where nothing is feasible (only a constraint that forces units can cause that: a
        demand, a must-take agent, a group's minimum units or agents).
        With ``stop``, the rows can end before ``alpha_max``.

    Raises
    ------
    ValueError
        Thresholds outside [0, 1], ``alpha_min > alpha_max``, a resolution outside [0, 1] or a
        ``max_steps`` that is not a positive integer; a solver or fallback that is not exact; more
        rows than ``max_steps``; a solve that ends without a proven optimum: a time limit (status
        ``time_limit``), or a threshold where neither ``solver`` nor the fallback proves it (for
        ``exact``: its integer search passes its limits, 2e5 states at once or 2e7 in all, or the
        memory limit; for a MILP backend, more than eight solves of its unshifted model, see
        :mod:`subsel.solvers._milp`); a fallback whose answer contradicts ``solver``'s selection
        or bound.  ``exact`` proves the optimum at such thresholds in the rule's exact integer
        arithmetic (a reduction by Lagrangian bounds, then a Pareto dynamic program: Martello and
        Toth, *Knapsack Problems*, 1990, Sections 2.6-2.7), in int64 where the sums fit and in
        integers of any size beyond.
    TypeError
        As :func:`frontier`; ``tolerance_steps`` not a bool.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem
    >>> from subsel.decisions import frontier_breakpoints
    >>> p = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.5)
    >>> frontier_breakpoints(p, 0.5, 1.0)[["alpha_to", "objective", "agents"]].round(6).values.tolist()
    [[0.783333, 1.55, 3.0], [0.875, 1.05, 2.0], [0.95, 0.45, 1.0], [1.0, 0.0, 0.0]]
    """
    import pandas as pd

    problem = check_problem(problem)
    solver = as_solver(solver, need_exact=True, what="frontier_breakpoints")
    lo = check_scalar(alpha_min, "alpha_min", min_val=0.0, max_val=1.0)
    hi = check_scalar(alpha_max, "alpha_max", min_val=0.0, max_val=1.0)
    if lo > hi:
        raise ValueError(f"alpha_min must be <= alpha_max; got alpha_min {lo} > alpha_max {hi}")
    step = check_scalar(resolution, "resolution", min_val=0.0, max_val=1.0)
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer))
                                  or max_steps < 1):
        raise ValueError(f"max_steps must be a positive integer or None; got {max_steps!r}")
    if not isinstance(tolerance_steps, (bool, np.bool_)):
        raise TypeError(f"tolerance_steps must be True or False; got {tolerance_steps!r}")
    if fallback == "auto":
        backup = fallback_solver(problem, solver)
    else:
        backup = None if fallback is None else as_solver(fallback, need_exact=True, what="the fallback")
    rows: list[dict[str, Any]] = []
    alpha = start = lo
    solve_at = _step_search(problem, solver, backup)
    while True:
        if rows and stop is not None and stop():
            break  # asked to stop: the rows so far, the last one ending at its own alpha_to
        if max_steps is not None and len(rows) == max_steps:
            raise ValueError(f"more than max_steps = {max_steps} steps between alpha {lo!r} and {hi!r} (step "
                             f"{max_steps} ends at {rows[-1]['alpha_to']!r}); give a resolution such as "
                             f"{(hi - lo) / max_steps:.3g}, or a larger max_steps")
        sol = solve_at(alpha)
        done = sol.status is Status.INFEASIBLE or not sol.x.any()
        # infeasible stays so as alpha grows; the empty selection is feasible for every alpha
        last = hi if done else _last_feasible_alpha(problem, sol.x)
        if not tolerance_steps and rows and not done and last < hi and _below(problem, sol.x, alpha):
            # Met only through the rule's tolerance: its average quality lies below this threshold,
            # at or under the previous row's (a selection of fewer units at the same average keeps a
            # wider tolerance, 1e-9 / units).  Not a step of its own: the search goes on past it.
            alpha = math.nextafter(last, math.inf)
            continue
        row = dict(alpha=start, alpha_to=hi, **summary(sol))
        rows.append(row)
        if last >= hi:
            break
        row["alpha_to"] = last
        # With a resolution, the thresholds closer than it to this row's start are skipped (the
        # optimum there lies between this row's and the next row's, as it is non-increasing).
        alpha = start = min(max(math.nextafter(last, math.inf), start + step), hi)
    return pd.DataFrame(rows, columns=["alpha", "alpha_to", *FRONTIER_COLUMNS[1:]])
