"""What a planner's report says, computed: a plain structure of numbers and names (no HTML here).

Every number comes from the public API the other commands use: :meth:`Solver.solve` (the plan, its
status, bound and time, and the explanation of an infeasible problem: Chinneck and Dravnieks, *ORSA
Journal on Computing* 3(2), 1991), :func:`subsel.decisions.frontier_breakpoints` (the price of
quality: Deva, Abhishek, Gujar, AAMAS 2021, Section 3), :func:`subsel.decisions.alternatives`
(Lawler, *Management Science* 18(7), 1972) and :func:`subsel.decisions.payments` (Myerson,
*Mathematics of Operations Research* 6(1), 1981; Archer and Tardos, FOCS 2001).  The structure holds
only ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None`` (a missing or non-finite
number is ``None``), so it can be written as JSON as it is.
"""
from __future__ import annotations

import math
import time
from collections import deque
from typing import Any, Callable

import numpy as np

from .. import __version__
from .._text import counted, exact_text
from ..decisions import alternatives as rank_alternatives
from ..decisions import alternatives_solver
from ..decisions import payments as critical_payments
from ..models import FEASIBILITY_TOL, OPTIMALITY_RTOL, PLANNER_EXTENSIONS, LinearConstraint, SubsetSelectionProblem
from ..solvers import (
    Solution,
    Solver,
    Status,
    constraint_families,
    default_solver,
    get_solver,
    without_constraints,
)
from ._budget import BUDGET_FACTOR, MIN_BUDGET_S, _Clock
from ._price import _frontier, _num

__all__ = ["DEFAULT_WIDTH", "report_content"]

#: How far either side of the threshold the price of quality is shown (alpha +- 0.05).
DEFAULT_WIDTH = 0.05


def _resolve_solver(problem: SubsetSelectionProblem, solver: str | Solver | None, alternatives: int | None,
                    time_limit_s: float | None, threads: int | None, distinct: str = "units") -> Solver:
    """The solver of every part of the report: the one given, or the default ``subsel solve`` uses
    (with ``alternatives``, the default of :func:`subsel.decisions.alternatives`)."""
    options: dict[str, Any] = {}
    if time_limit_s is not None:
        options["time_limit_s"] = time_limit_s
    if threads is not None:
        options["threads"] = threads
    if isinstance(solver, Solver):
        if options:
            raise ValueError("time_limit_s and threads go with a solver name; set them on the Solver instance "
                             f"{solver.name!r} instead")
        return solver
    if solver is None:
        solver = (alternatives_solver(problem, distinct) if alternatives is not None
                  else default_solver(problem.extensions))
    elif not isinstance(solver, str):
        raise TypeError(f"solver must be a solver name, a Solver or None; got {type(solver).__name__}")
    return get_solver(solver, **options)


def _check(problem: Any, solver: Solver, alternatives: Any, payments: bool, width: Any, distinct: Any) -> None:
    """Refuse, before any solve, what a part of the report cannot do."""
    if distinct not in ("units", "agents"):
        raise ValueError(f"distinct must be 'units' or 'agents'; got {distinct!r}")
    if distinct == "agents" and alternatives is not None and not solver.no_good_cuts:
        raise ValueError(f"alternatives distinct in their agents need a solver with no-good cuts (highs, cbc, "
                         f"ortools-scip or ortools-cpsat); got {solver.name!r}")
    if isinstance(alternatives, bool) or (alternatives is not None and (
            not isinstance(alternatives, (int, np.integer)) or alternatives < 1)):
        raise ValueError(f"alternatives must be a positive integer or None; got {alternatives!r}")
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not 0.0 < float(width) <= 1.0:
        raise ValueError(f"width must be a number in (0, 1]; got {width!r}")
    planner = sorted(problem.extensions & set(PLANNER_EXTENSIONS))
    if alternatives is not None and planner and not solver.no_good_cuts:
        raise ValueError(f"alternatives with the planner's {', '.join(planner)} need a solver with no-good cuts "
                         f"(highs, cbc, ortools-scip or ortools-cpsat); got {solver.name!r}")
    if payments:
        if problem.budget is not None:
            raise ValueError(f"budget {exact_text(problem.budget)}: critical payments need a plan that never "
                             "gives an agent more units for a higher reported cost, which a budget does not "
                             "ensure; drop the budget or the payments")
        if not solver.exact:
            raise ValueError(f"payments need an exact solver; {solver.name!r} does not prove optimality")


# ---------------------------------------------------------------------------------- 1. the problem
def _names(problem: SubsetSelectionProblem, idx: Any) -> list[str]:
    return [problem.names[int(i)] for i in idx]


def _constraints(problem: SubsetSelectionProblem) -> list[dict[str, Any]]:
    """Every constraint in force, in a planner's words, with its bound."""
    ext = problem.extensions
    rows = [dict(family="quality", constraint="average quality of the units bought", sense=">=",
                 bound=float(problem.alpha), detail=None)]
    cap = problem.capacity
    rows.append(dict(family="capacity", constraint="units from each agent", sense="<=",
                     bound=int(cap[0]) if (cap == cap[0]).all() else None,
                     detail=None if (cap == cap[0]).all() else f"its capacity ({int(cap.min())} to {int(cap.max())})"))
    if "budget" in ext:
        rows.append(dict(family="budget", constraint="total spend (unit costs and fixed costs)", sense="<=",
                         bound=float(problem.budget), detail=None))
    if "demand" in ext:
        rows.append(dict(family="demand", constraint="units bought", sense=">=", bound=int(problem.demand),
                         detail=None))
    if "must_take" in ext:
        rows.append(dict(family="must_take", constraint="agents that must be used", sense=None, bound=None,
                         detail=", ".join(_names(problem, problem.must_take))))
    if "must_not_take" in ext:
        rows.append(dict(family="must_not_take", constraint="agents that must not be used", sense=None, bound=None,
                         detail=", ".join(_names(problem, problem.must_not_take))))
    if "min_units" in ext:
        rows.append(dict(family="min_units", constraint="minimum order of an agent used", sense=">=", bound=None,
                         detail="its min_units"))
    if "lot_size" in ext:
        rows.append(dict(family="lot_size", constraint="units of an agent in whole lots", sense=None, bound=None,
                         detail="a multiple of its lot_size"))
    if "fixed_cost" in ext:
        rows.append(dict(family="fixed_cost", constraint="fixed cost paid once per agent used", sense=None,
                         bound=None, detail="its fixed_cost (in the utility and the budget)"))
    for g, limits in problem.group_limits.items():
        for key, value in limits.items():
            if value is None:
                continue
            what = "units" if key.endswith("units") else "agents used"
            rows.append(dict(family=f"group_limits:{g}", constraint=f"{what} from group {g}",
                             sense=">=" if key.startswith("min") else "<=", bound=int(value), detail=None, key=key))
    for c in problem.added_constraints:
        rows += _object_rows(c)
    return rows


def _object_rows(c: Any) -> list[dict[str, Any]]:
    """A constraint object (:mod:`subsel.models.constraints`) in the planner's words: one row per side."""
    if c.kind == "quality_floor":
        return [dict(family=c.name, constraint=f"average {c.name} of the units bought", sense=">=",
                     bound=float(c.alpha), detail=None, side=0)]
    what = f"{c.name}: sum of its coefficients over the " + ("units bought" if c.on == "units" else "agents used")
    if c.lower is not None and c.lower == c.upper:
        return [dict(family=c.name, constraint=what, sense="==", bound=float(c.lower), detail=None, side=0)]
    return [dict(family=c.name, constraint=what, sense=sense, bound=float(bound), detail=None, side=j)
            for j, (sense, bound) in enumerate(((">=", c.lower), ("<=", c.upper))) if bound is not None]


def family_words(problem: SubsetSelectionProblem, family: str) -> str:
    """A member of a conflict (:class:`subsel.solvers.Conflict`) in the planner's words."""
    words = {"quality": "the quality threshold", "budget": "the budget", "demand": "the demand",
             "must_take": "the must-take list", "must_not_take": "the must-not-take list",
             "min_units": "the minimum orders", "lot_size": "the lot sizes"}
    if family in words:
        return words[family]
    if family.startswith("group_limits:"):
        return f"the limits of group {family.split(':', 1)[1]}"
    for c in problem.added_constraints:
        if c.name == family:
            return f"the constraint {c.describe()}"
    return family


def _agents(problem: SubsetSelectionProblem) -> tuple[list[str], list[dict[str, Any]]]:
    """The agents' table: the columns used and one row per agent, in input order."""
    columns = ["name", "quality", "cost", "capacity", "utility"]
    ext = problem.extensions
    extra = [c for c in ("min_units", "lot_size", "fixed_cost") if c in ext]
    if problem.group is not None:
        extra.append("group")
    columns += extra
    rows = []
    for i in range(problem.n):
        row: dict[str, Any] = dict(name=problem.names[i], quality=float(problem.quality[i]),
                                   cost=float(problem.cost[i]), capacity=int(problem.capacity[i]),
                                   utility=float(problem.utility[i]))
        for c in extra:
            if c == "group":
                row[c] = problem.group[i] if problem.group is not None else None
            elif c == "fixed_cost":
                row[c] = float(problem.fixed_cost[i])
            else:
                row[c] = int(getattr(problem, c)[i])
        rows.append(row)
    return columns, rows


# ---------------------------------------------------------------------------------- 2. the plan
def _spend(problem: SubsetSelectionProblem, x: np.ndarray) -> float:
    """``sum c_i x_i + sum f_i [x_i > 0]``: what the plan costs (the budget row's left side)."""
    used = np.flatnonzero(x)
    total = math.fsum((float(problem.cost[i]) * int(x[i]) for i in used))
    if "fixed_cost" in problem.extensions:
        total += math.fsum(float(problem.fixed_cost[i]) for i in used)
    return total


def _plan(problem: SubsetSelectionProblem, sol: Solution) -> dict[str, Any]:
    x = np.asarray(sol.x, dtype=np.int64)
    taken = [dict(name=problem.names[i], units=int(x[i]), quality=float(problem.quality[i]),
                  cost=float(problem.cost[i]), utility=float(problem.utility[i]) * int(x[i])
                  - (float(problem.fixed_cost[i]) if "fixed_cost" in problem.extensions else 0.0))
             for i in np.flatnonzero(x)]
    gap = None
    if sol.bound is not None and sol.status is not Status.OPTIMAL and math.isfinite(sol.bound):
        gap = max(float(sol.bound) - float(sol.objective), 0.0)
    return dict(solver=sol.solver, status=sol.status.value, proven=sol.status is Status.OPTIMAL,
                objective=_num(sol.objective), bound=_num(sol.bound), gap=gap, avg_quality=_num(sol.avg_quality),
                alpha=float(problem.alpha), units=int(x.sum()), agents=int(np.count_nonzero(x)),
                spend=_spend(problem, x), wall_time_s=float(sol.wall_time_s),
                backend_time_s=float(sol.backend_time_s or 0.0), x=[int(v) for v in x], taken=taken,
                not_taken=[problem.names[i] for i in np.flatnonzero(x == 0)])


# ---------------------------------------------------------------------------------- 3. what binds
def _group_value(problem: SubsetSelectionProblem, group: str, key: str, x: np.ndarray) -> int:
    """The left side of a group's limit ``key`` for the plan ``x``: its units, or its agents used."""
    inside = x[np.array([lab == group for lab in problem.group], dtype=bool)]
    return int(inside.sum()) if key.endswith("units") else int(np.count_nonzero(inside))


def _group_rows(problem: SubsetSelectionProblem, family: str, gain: float, x: np.ndarray,
                ) -> tuple[dict[str, float], list[tuple[str, SubsetSelectionProblem]]]:
    """What dropping each limit of a group alone gains, from the solve without the whole group.

    Without one limit the best plan lies between the plan and the best plan without the group
    (``gain``): each limit gains nothing when the group gains nothing, and gains all of ``gain``
    when the best plan without the group ``x`` breaks no other limit of it (it is then feasible
    without that limit alone).  The other limits need a solve each (a limit with slack at the
    optimum can still gain: a better plan may break it).  Returns the gains known, keyed
    ``<family>#<limit>``, and the problems still to solve."""
    g = family.split(":", 1)[1]
    limits = {k: v for k, v in problem.group_limits[g].items() if v is not None}
    broken = {k for k, v in limits.items()
              if (_group_value(problem, g, k, x) < v if k.startswith("min") else _group_value(problem, g, k, x) > v)}
    known: dict[str, float] = {}
    to_solve = []
    for key in limits:
        if gain <= 0.0 or broken <= {key}:
            known[f"{family}#{key}"] = gain
        else:
            kept = {h: ({k: v for k, v in lim.items() if k != key} if h == g else dict(lim))
                    for h, lim in problem.group_limits.items()}
            to_solve.append((f"{family}#{key}", problem.with_changes(group_limits=kept)))
    return known, to_solve


def _gains(problem: SubsetSelectionProblem, sol: Solution, solver: Solver, clock: _Clock,
           first: list[str]) -> dict[str, float | None]:
    """For each constraint family, and each limit of a group (``<family>#<limit>``): what the best
    plan would gain without it alone (None when not proven or not solved within the time budget).
    The families in ``first`` (the tight ones) are solved first, a group's limits that need a solve
    of their own last."""
    out: dict[str, float | None] = {}
    if sol.status is not Status.OPTIMAL:
        return out
    relaxations = [(fam, without_constraints(problem, {fam})) for fam in constraint_families(problem)]
    for c in problem.added_constraints:  # a two-sided constraint object: each side dropped on its own too
        if c.kind != "quality_floor" and c.lower is not None and c.upper is not None and c.lower != c.upper:
            for side, keep in ((0, dict(upper=c.upper)), (1, dict(lower=c.lower))):
                one = LinearConstraint(c.coef, name=c.name, on=c.on, **keep)
                others = tuple(one if o is c else o for o in problem.added_constraints)
                relaxations.append((f"{c.name}#{side}", problem.with_changes(constraints=others)))
    rank = {key: j for j, key in enumerate(first)}
    relaxations.sort(key=lambda kv: rank.get(kv[0], rank.get(kv[0].split("#")[0], len(rank))))
    # a group's limits are rows of their own: unknown until the group's solve (or their own) says
    limits = {f"group_limits:{g}": [k for k, v in lim.items() if v is not None]
              for g, lim in problem.group_limits.items()}
    out.update({f"{fam}#{k}": None for fam, keys in limits.items() for k in keys})
    total = len(relaxations) + sum(len(keys) - 1 for keys in limits.values() if keys)
    clock.say(f"what binds: solving again without each of {counted(total, 'constraint')}")
    skipped = 0
    queue = deque(relaxations)
    while queue:
        key, relaxed_problem = queue.popleft()
        rows = len(limits.get(key, ())) or 1  # the rows whose gain this solve decides
        capped = clock.solver(solver)
        if capped is None:
            skipped += rows
            continue
        relaxed = capped.solve(relaxed_problem)
        if relaxed.status is Status.OPTIMAL:
            out[key] = max(float(relaxed.objective) - float(sol.objective), 0.0)
            if key in limits:
                known, to_solve = _group_rows(problem, key, out[key], np.asarray(relaxed.x, dtype=np.int64))
                out.update(known)
                queue.extend(to_solve)
        else:
            out[key] = None
            budget_cut = solver.time_limit_s is None or float(capped.time_limit_s or 0.0) < solver.time_limit_s
            if relaxed.status in (Status.TIME_LIMIT, Status.NO_SOLUTION_FOUND) and budget_cut:
                skipped += rows
    if skipped:
        clock.cut_short("binds", f"what dropping a constraint would gain is not known for "
                                 f"{counted(skipped, 'constraint')} of {total}: the time budget "
                                 f"({clock.seconds:.3g} s) ran out (each is one more solve)")
    return out


def _slack(problem: SubsetSelectionProblem, sol: Solution, solver: Solver, clock: _Clock) -> list[dict[str, Any]]:
    """Each constraint's slack (what is left before it stops the plan) and whether it decides the plan:
    dropping it would raise the best utility (by more than the optimality tolerance)."""
    x = np.asarray(sol.x, dtype=np.int64)
    tol = OPTIMALITY_RTOL * max(1.0, abs(float(sol.objective)))
    used = x > 0
    rows: list[dict[str, Any]] = []

    def add(c: dict[str, Any], value: Any, slack: Any, tight: bool | None, meaning: str) -> None:
        rows.append(dict(family=c["family"], constraint=c["constraint"], sense=c["sense"], bound=c["bound"],
                         detail=c["detail"], value=value, slack=slack, tight=tight, meaning=meaning,
                         key=f"{c['family']}#{c.get('side', c.get('key'))}"))

    for c in _constraints(problem):
        fam = c["family"]
        if fam == "quality":
            surplus = float(problem.quality_surplus(x))
            if abs(surplus) <= FEASIBILITY_TOL:  # met exactly, up to the rule's tolerance (and float rounding)
                surplus = 0.0
            add(c, _num(sol.avg_quality), surplus, surplus == 0.0,
                "quality surplus: good units above the threshold, sum (q_i - alpha) x_i")
        elif fam == "capacity":
            full = int(np.count_nonzero(used & (x >= problem.upper_bounds())))
            add(c, full, None, full > 0, f"{full} of the {counted(int(used.sum()), 'agent')} used "
                f"{'is' if full == 1 else 'are'} at full capacity")
        elif fam == "budget":
            left = float(problem.budget) - _spend(problem, x)
            add(c, _spend(problem, x), left, left <= FEASIBILITY_TOL * max(1.0, float(problem.budget)),
                "budget left")
        elif fam == "demand":
            margin = int(x.sum()) - int(problem.demand)
            add(c, int(x.sum()), margin, margin == 0, "units above the demand")
        elif fam == "must_take":
            add(c, int(np.count_nonzero(used[problem.must_take])), None, True, "agents of the list used")
        elif fam == "must_not_take":
            add(c, int(np.count_nonzero(used[problem.must_not_take])), None, True, "agents of the list used")
        elif fam == "min_units":
            at = int(np.count_nonzero(used & (x == problem.min_units) & (problem.min_units > 1)))
            add(c, at, None, at > 0, f"{counted(at, 'agent')} used {'is' if at == 1 else 'are'} at a minimum "
                "order above one unit")
        elif fam == "lot_size":
            add(c, None, None, None, "every agent used takes whole lots")
        elif fam == "fixed_cost":
            fixed = math.fsum(float(problem.fixed_cost[i]) for i in np.flatnonzero(used))
            rows.append(dict(family=fam, constraint=c["constraint"], sense=None, bound=None, detail=c["detail"],
                             value=fixed, slack=None, tight=None, meaning="fixed costs the plan pays",
                             gain=None, binding=False))
        elif "side" in c:  # a constraint object
            obj = next(o for o in problem.added_constraints if o.name == fam)
            if obj.kind == "quality_floor":
                surplus = float(np.dot(obj.margin, x))
                surplus = 0.0 if abs(surplus) <= FEASIBILITY_TOL else surplus
                add(c, _num(float(np.dot(obj.values, x)) / x.sum()) if x.any() else None, surplus, surplus == 0.0,
                    f"surplus over the floor: sum (v_i - {obj.alpha:g}) x_i")
            else:
                v = x if obj.on == "units" else (x > 0).astype(np.int64)
                total = math.fsum((float(obj.coef[i]) * int(v[i]) for i in np.flatnonzero(v)))
                room = total - c["bound"] if c["sense"] == ">=" else c["bound"] - total
                if c["sense"] == "==":
                    room = -abs(total - c["bound"])
                tol = 0.0 if obj.integral else FEASIBILITY_TOL
                room = 0.0 if abs(room) <= tol else room
                add(c, total, room, room == 0.0, "room before the bound")
        else:  # a group limit
            value = _group_value(problem, fam.split(":", 1)[1], c["key"], x)
            head = value - c["bound"] if c["sense"] == ">=" else c["bound"] - value
            add(c, value, head, head == 0, "headroom of the group limit")
    # The tight constraints are solved without first: they are the likely deciders, should time run out.
    gains = _gains(problem, sol, solver, clock, [r["family"] for r in rows if r["tight"]])
    for r in rows:
        key = r.pop("key", None)
        if "gain" not in r:
            r["gain"] = gains.get(key, gains.get(r["family"]))
            r["binding"] = bool(r["gain"] is not None and r["gain"] > tol)
    # Binding (deciding) first, by what dropping them would gain; then the tight ones; then the rest.
    order = sorted(range(len(rows)), key=lambda j: (not rows[j]["binding"], -(rows[j]["gain"] or 0.0),
                                                    not rows[j]["tight"], j))
    return [rows[j] for j in order]


# ---------------------------------------------------------------------------------- 5. alternatives
def _alternatives(problem: SubsetSelectionProblem, solver: Solver, k: int, plan: dict[str, Any],
                  distinct: str) -> dict[str, Any]:
    df = rank_alternatives(problem, int(k), solver=solver, distinct=distinct)
    best = np.asarray(plan["x"], dtype=np.int64)
    rows = []
    for r in df.itertuples():
        x = np.asarray(r.x, dtype=np.int64)
        added = [problem.names[i] for i in np.flatnonzero((x > 0) & (best == 0))]
        removed = [problem.names[i] for i in np.flatnonzero((x == 0) & (best > 0))]
        changed = [dict(name=problem.names[i], plan=int(best[i]), units=int(x[i]))
                   for i in np.flatnonzero((x > 0) & (best > 0) & (x != best))]
        rows.append(dict(rank=int(r.rank), objective=float(r.objective),
                         loss=None if plan["objective"] is None else plan["objective"] - float(r.objective),
                         units=int(r.units), avg_quality=_num(r.avg_quality), agents=int(r.agents),
                         status=str(r.status), spend=_spend(problem, x), same_as_plan=bool((x == best).all()),
                         added=added, removed=removed, changed=changed, x=[int(v) for v in x]))
    return dict(k=int(k), solver=solver.name, rows=rows, distinct=distinct)


# ---------------------------------------------------------------------------------- 6. payments
def _payments(problem: SubsetSelectionProblem, solver: Solver) -> dict[str, Any]:
    df = critical_payments(problem, solver=solver)
    rows = []
    for r in df.to_dict("records"):
        if int(r["units"]) == 0:
            continue
        pay = float(r["payment"])
        rows.append(dict(name=str(r["name"]), units=int(r["units"]), reported_cost=float(r["reported_cost"]),
                         payment=_num(pay), unbounded=math.isinf(pay), payment_per_unit=_num(r["payment_per_unit"]),
                         margin=_num(pay - float(r["reported_cost"]) * int(r["units"]))))
    finite = [r["payment"] for r in rows if r["payment"] is not None]
    reported = math.fsum(r["reported_cost"] * r["units"] for r in rows)
    total = math.fsum(finite) if len(finite) == len(rows) else None
    return dict(solver=solver.name, rows=rows, total=total, reported=reported,
                premium=None if total is None else total - reported)


# ---------------------------------------------------------------------------------- 7. infeasible
def _infeasible(problem: SubsetSelectionProblem, sol: Solution) -> dict[str, Any]:
    conflict = sol.conflict
    fixes = []
    if conflict is not None and conflict.max_units is not None:
        fixes.append(f"lower the demand to {conflict.max_units}")
    if conflict is not None and conflict.min_budget is not None:
        fixes.append(f"raise the budget to {exact_text(conflict.min_budget)}")
    return dict(status=sol.status.value, explanation=sol.explanation,
                constraints=list(conflict.constraints) if conflict is not None else [],
                described=[family_words(problem, f) for f in conflict.constraints] if conflict is not None else [],
                max_units=None if conflict is None else conflict.max_units,
                min_budget=None if conflict is None else _num(conflict.min_budget), fixes=fixes,
                solver=sol.solver, wall_time_s=float(sol.wall_time_s))


# ---------------------------------------------------------------------------------- the whole report
def report_content(problem: SubsetSelectionProblem, *, solver: str | Solver | None = None,
                   time_limit_s: float | None = None, threads: int | None = None, alternatives: int | None = None,
                   payments: bool = False, width: float = DEFAULT_WIDTH, title: str | None = None,
                   source: str | None = None, distinct: str = "units", time_budget_s: float | None = None,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Everything a planner's report shows, as plain data (see :func:`subsel.reporting.report`).

    Parameters
    ----------
    problem : SubsetSelectionProblem
    solver : str or Solver or None, default None
        Used for every part; None: the default of ``subsel solve`` (with ``alternatives``, the default
        of :func:`subsel.decisions.alternatives`).
    time_limit_s, threads : float or int, optional
        Options of the solver named by ``solver`` (not with a Solver instance).
    alternatives : int, optional
        How many best plans to list (:func:`subsel.decisions.alternatives`); None: none.
    distinct : {"units", "agents"}, default "units"
        Plans distinct in some agent's units, or in the agents they use (as
        :func:`subsel.decisions.alternatives`).
    payments : bool, default False
        Add the critical payments (:func:`subsel.decisions.payments`; no budget, an exact solver).
    width : float, default 0.05
        The price of quality is shown for thresholds ``alpha - width`` to ``alpha + width`` (clipped
        to [0, 1]).
    title : str, optional
        The report's title; default "Procurement plan".
    source : str, optional
        Where the problem came from (a file name), shown under the title.
    time_budget_s : float, optional
        Seconds for everything after the plan (the next-best plans, the payments, the price of
        quality, what dropping each constraint would gain), each solve cut to the time left; None:
        :data:`BUDGET_FACTOR` times the plan's solve time, at least :data:`MIN_BUDGET_S`.  Slow
        solves get an even grid of fewer thresholds instead of every step; what did not fit is left
        out and listed under ``budget["cut"]``.
    progress : callable, optional
        Called with a line of text as each part starts (e.g. to print on a terminal).

    Returns
    -------
    dict
        Keys ``title``, ``source``, ``version``, ``problem`` (``agents``, ``alpha``, ``R``,
        ``constraints``, ``agent_columns``, ``agent_rows``), ``plan`` (None when there is no
        selection), ``slack`` (a list, binding constraints first), ``frontier``, ``alternatives``
        (None unless asked), ``payments`` (None unless asked and a proven plan exists),
        ``infeasible`` (None unless the answer has no selection), ``notes`` (a list of str) and
        ``budget`` (``seconds``, ``solve_s`` the plan's solve time, ``used_s``, ``default``, and
        ``cut``: a list of ``section``, ``what`` for each part cut short by the time budget).

    Raises
    ------
    ValueError
        ``alternatives`` not a positive integer; ``width`` outside (0, 1]; ``time_budget_s`` not a
        positive number; ``distinct`` unknown, or
        ``agents`` with a solver without no-good cuts; payments with a budget
        or a solver that is not exact; alternatives with the planner's fields and a solver without
        no-good cuts; an unknown solver name, an unsupported constraint, or options beside a Solver
        instance.
    TypeError
        ``problem`` or ``solver`` of the wrong kind.
    SolverError
        A backend failed.
    """
    if not isinstance(problem, SubsetSelectionProblem):
        raise TypeError(f"problem must be a SubsetSelectionProblem; got {type(problem).__name__}")
    if time_budget_s is not None and (isinstance(time_budget_s, bool) or not isinstance(time_budget_s, (int, float))
                                      or not math.isfinite(time_budget_s) or time_budget_s <= 0):
        raise ValueError(f"time_budget_s must be a positive number of seconds or None; got {time_budget_s!r}")
    engine = _resolve_solver(problem, solver, alternatives, time_limit_s, threads, distinct)
    _check(problem, engine, alternatives, payments, width, distinct)
    engine.check_supported(problem)
    if progress is not None:
        progress("solving the plan")
    sol = engine.solve(problem)
    columns, agent_rows = _agents(problem)
    content: dict[str, Any] = dict(
        title=title or "Procurement plan", source=source, version=__version__,
        problem=dict(agents=problem.n, alpha=float(problem.alpha), R=float(problem.R),
                     constraints=_constraints(problem), agent_columns=columns, agent_rows=agent_rows),
        plan=None, slack=[], frontier=None, alternatives=None, payments=None, infeasible=None, notes=[])
    if sol.is_feasible:
        content["plan"] = _plan(problem, sol)
    else:
        content["infeasible"] = _infeasible(problem, sol)  # the explanation is the answer: not in the budget
    solve_s = float(sol.wall_time_s)
    clock = _Clock(time_budget_s if time_budget_s is not None else max(MIN_BUDGET_S, BUDGET_FACTOR * solve_s),
                   solve_s, progress)
    # What was asked for by name comes first; then the price of quality; what binds gets the rest.
    if alternatives is not None and content["plan"] is not None:
        capped = clock.solver(engine)
        clock.say(f"the {counted(int(alternatives), 'best plan')}")
        if capped is None:
            clock.cut_short("alternatives", "the next-best plans are not shown: the time budget ran out")
        else:
            content["alternatives"] = _alternatives(problem, capped, int(alternatives), content["plan"], distinct)
    if payments:
        if sol.status is Status.OPTIMAL:
            capped = clock.solver(engine)
            clock.say("the critical payments")
            try:
                if capped is None:
                    raise ValueError("no time left")
                content["payments"] = _payments(problem, capped)
            except ValueError as exc:
                clock.cut_short("payments", f"the payments are not shown: they were not all found within the "
                                            f"time budget ({str(exc).splitlines()[0]})")
        else:
            content["notes"].append(f"no payments: they need a proven optimal plan; the solver's status is "
                                    f"{sol.status.value}")
    content["frontier"] = _frontier(problem, engine, content["plan"], sol, float(width), clock)
    if sol.is_feasible:
        content["slack"] = _slack(problem, sol, engine, clock)
        if sol.status is not Status.OPTIMAL:
            content["notes"].append("the plan is not proven optimal, so whether dropping a constraint would "
                                    "improve it is not shown")
    used = time.perf_counter() - clock.start
    content["budget"] = dict(seconds=clock.seconds, solve_s=solve_s, used_s=used, cut=clock.cut,
                             default=time_budget_s is None)
    clock.say("done")
    return content
