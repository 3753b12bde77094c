"""The price of quality in a planner's report, within its time budget: the exact steps of the optimum
as a function of the threshold (Deva, Abhishek, Gujar, AAMAS 2021, Section 3) as far as time allows,
then an even grid of as many thresholds as fit."""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .._text import counted
from ..decisions import frontier_breakpoints
from ..models import SubsetSelectionProblem
from ..solvers import Solution, Solver, SolverError
from ._budget import _Clock

__all__ = ["GRID_POINTS", "MAX_STEPS"]

#: Most thresholds of the even grid used when the steps are not found exactly (a solver that is not
#: exact, more steps than the time allows, or solves too slow for them); fewer when solves are slow.
GRID_POINTS = 21

#: Most breakpoints the report finds exactly (one solve each); beyond, the even grid.
MAX_STEPS = 100
#: Share of the time left that the price of quality may take before what binds gets the rest.
FRONTIER_SHARE = 0.6

#: The exact steps are searched when at least this many solves as long as the plan's fit in the
#: price of quality's share of the budget; fewer: an even grid only.
MIN_EXACT_SOLVES = 12

def _num(v: Any) -> float | None:
    """A plain float, or None for a missing or non-finite number (NaN, inf)."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _grid(lo: float, hi: float, alpha: float, count: int) -> list[float]:
    """``count`` thresholds of the even grid on [lo, hi] (at least lo and hi), in the order they are
    solved: the two ends first (alpha +- width), then the grid by halving, so that a search cut short
    still spans the range.  ``alpha`` itself is the plan's and is not in the list."""
    count = max(2, min(count, GRID_POINTS))
    even = [float(a) for a in np.linspace(lo, hi, count)]
    order: list[float] = [even[0], even[-1]]
    spans = [(0, count - 1)]
    while spans:
        nxt = []
        for i, j in spans:
            if j - i > 1:
                m = (i + j) // 2
                order.append(even[m])
                nxt += [(i, m), (m, j)]
        spans = nxt
    return [a for a in dict.fromkeys(order) if a != alpha]  # each once, in order


def _point(alpha: float, sol: Solution) -> dict[str, Any]:
    """A row of the grid: the answer at ``alpha`` (as :func:`subsel.decisions.frontier` gives it)."""
    if not sol.is_feasible:
        return dict(alpha=float(alpha), alpha_to=None, objective=None, units=0, avg_quality=None, agents=0,
                    status=sol.status.value)
    x = np.asarray(sol.x, dtype=np.int64)
    return dict(alpha=float(alpha), alpha_to=None, objective=_num(sol.objective), units=int(x.sum()),
                avg_quality=_num(sol.avg_quality), agents=int(np.count_nonzero(x)), status=sol.status.value)


def _frontier(problem: SubsetSelectionProblem, solver: Solver, plan: dict[str, Any] | None, sol: Solution,
              width: float, clock: _Clock) -> dict[str, Any]:
    """The price of quality within ``clock``'s budget: the exact steps (Deva, Abhishek, Gujar, AAMAS
    2021, Section 3) as far as the time allows, then an even grid of as many thresholds as fit (the
    two ends first); the plan's own point needs no solve."""
    alpha = float(problem.alpha)
    lo, hi = max(0.0, alpha - width), min(1.0, alpha + width)
    notes: list[str] = []
    rows: list[dict[str, Any]] = []
    method = "breakpoints"
    until = clock.until(FRONTIER_SHARE)
    fit = clock.affordable(until)
    solves = 0
    if not solver.exact:
        method = "grid"
        notes.append(f"solver {solver.name!r} does not prove optimality, so the exact steps are not known")
    elif fit < MIN_EXACT_SOLVES:
        method = "grid"
        notes.append(f"one solve takes about {clock.solve_s:.3g} s, too slow to find every step within the time "
                     f"budget ({clock.seconds:.3g} s)")
    else:
        steps_until = clock.until(0.7 * FRONTIER_SHARE)
        calls = [0, 0]  # stop() asked, and answered True

        def stop() -> bool:  # before each solve after the first: out of time, or MAX_STEPS rows found
            calls[0] += 1
            calls[1] = int(calls[0] >= MAX_STEPS or time.perf_counter() >= steps_until)
            return bool(calls[1])

        clock.say("the price of quality: its exact steps")
        try:
            capped = clock.solver(solver, steps_until)
            if capped is None:
                raise ValueError("no time left")
            df = frontier_breakpoints(problem, lo, hi, solver=capped, stop=stop)
        except (ValueError, SolverError) as exc:
            method = "grid"
            notes.append(f"the exact steps could not be found ({str(exc).splitlines()[0]})")
        else:
            for r in df.to_dict("records"):
                rows.append(dict(alpha=float(r["alpha"]), alpha_to=float(r["alpha_to"]),
                                 objective=_num(r["objective"]), units=int(r["units"]),
                                 avg_quality=_num(r["avg_quality"]), agents=int(r["agents"]), status=str(r["status"])))
            solves = 1 + calls[0] - calls[1]
    top = rows[-1]["alpha_to"] if rows else None
    complete = True  # nothing left out for want of time
    if top is None or top < hi:
        start = lo if top is None else math.nextafter(top, math.inf)
        thresholds = _grid(start, hi, alpha, max(clock.affordable(until), 2)) if start <= hi else []
        if rows:
            complete = len(rows) >= MAX_STEPS
            reason = (f"after {counted(MAX_STEPS, 'step')}" if complete else
                      f"by the time budget ({clock.seconds:.3g} s)")
            notes.append(f"the exact steps end at alpha {top:.6g}, cut short {reason}; beyond, an even grid "
                         f"of {counted(len(thresholds), 'threshold')}")
        wanted = len(thresholds)
        clock.say(f"the price of quality: an even grid of {counted(wanted, 'threshold')}")
        done = 0
        for a in thresholds:
            capped = clock.solver(solver, until)
            if capped is None:
                break
            rows.append(_point(a, capped.solve(problem.with_changes(alpha=a))))
            done += 1
        solves += done
        if not any(r["alpha"] <= alpha <= (r["alpha_to"] if r["alpha_to"] is not None else r["alpha"])
                   for r in rows):  # the plan's own point, solved already
            rows.append(_point(alpha, sol))
        rows.sort(key=lambda r: r["alpha"])
        if done < wanted:
            complete = False
            clock.cut_short("price-of-quality", f"the price of quality misses {wanted - done} of the {wanted} "
                                                f"thresholds of its grid: the time budget ({clock.seconds:.3g} s) "
                                                "ran out")
        if not rows or rows[0]["alpha_to"] is None:
            notes.append(f"shown on an even grid of {counted(len(rows), 'threshold')} instead")
    note = "; ".join(notes) if notes else None

    def at(a: float) -> dict[str, Any] | None:
        for r in rows:
            top = r["alpha_to"] if r["alpha_to"] is not None else r["alpha"]
            if r["alpha"] <= a <= top:
                return r
        return None

    base = plan["objective"] if plan is not None else None
    points = []
    for label, a in (("lower", lo), ("plan", alpha), ("higher", hi)):
        r = at(a)
        value = None if r is None else r["objective"]
        change = None if value is None or base is None else value - base
        points.append(dict(which=label, alpha=a, objective=value, change=change,
                           status=None if r is None else r["status"]))
    return dict(method=method, alpha_min=lo, alpha_max=hi, width=float(width), rows=rows, points=points,
                note=note, solver=solver.name, complete=complete, solves=solves)
