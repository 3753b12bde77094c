"""Feasibility questions answered as feasibility questions: aggregate bounds, witnesses, one MILP.

The explanation of an infeasible answer (:mod:`subsel.solvers.explain`) asks whether parts of a
problem have a selection at all.  Solving each part to optimality (a planner MILP of up to a minute
at 5,000 agents) is not needed for that, so :class:`Questions` answers in order of cost:

1. **aggregate bounds** (:func:`refutation`), each a relaxation decided in O(n log n): the most
   units the capacities, lots and group caps allow against the demand; a group's forced units and
   agents (must-take agents, ``min_agents`` at the smallest minimum orders, ``min_units``) against
   its caps; the least spend any plan must make (forced and pledged orders, the demand at the
   cheapest rates) against the budget; the best quality surplus the demand leaves against zero.
   Each refutes (proves infeasible) or says nothing;
2. **witnesses**: the smallest selection, every selection found before (a selection that passes
   :meth:`SubsetSelectionProblem.evaluate` proves feasibility; parts of one problem share many) and
   greedy ones (:func:`greedy_witnesses`, built one at a time until one passes);
3. **one MILP with a feasibility objective** (zero: the first selection ends the search), on the
   loosened model of :func:`subsel.solvers._milp.solver_form` (an infeasible answer of the loosened
   model is the problem's); a selection it returns counts only when the exact rule accepts it, and
   when it does not, the solver's whole checked pipeline decides (Chinneck, *Feasibility and
   Infeasibility in Optimization*, Springer 2008, Chapter 6: a feasibility phase, then the filter).
   HiGHS answers it without its presolve: on the generated co-op of 200 suppliers with a budget
   a unit below the least spend, presolved models took 1.6 to over 60 s per proof of
   infeasibility, unpresolved ones 0.4 to 1.5 s.

Every answer is ``True`` (a selection passes the rule), ``False`` (proven infeasible) or ``None``
(not decided before the deadline).  Optimisations (the nearest changes) start from the same
aggregate bounds (:func:`unit_bound`, :func:`spend_bound`) and greedy selections, then run on HiGHS
with the remaining time, the LP relaxation over the units alone first (:func:`compact_relaxation`),
and report their proven bound when the time runs out.

The module is above 600 lines because the bounds, the greedy selections and the relaxation share
one reading of the problem's caps (``_aggregate``) that the questions and the optimisations use in
turn; split, each part would repeat it.
"""
from __future__ import annotations

import copy
import dataclasses
import math
import time
from typing import TYPE_CHECKING, Callable, Iterator, Literal, NamedTuple

import numpy as np

from .._text import exact_text
from ..models import SubsetSelectionProblem, linear_form
from ..models._rules import exact_total

if TYPE_CHECKING:
    from ..models import LinearForm
    from .base import RawResult, Solver

__all__ = ["Questions", "greedy_witnesses", "refutation", "spend_bound", "unit_bound"]

#: Columns above which an LP relaxation is solved by the interior point method (see ``Questions._lp``).
_IPM_COLUMNS = 5000

#: Relative margin by which an aggregate bound must miss before it refutes (float sums of
#: non-negative terms are far more accurate; the rule's own tolerance is 1e-9 absolute).
_MARGIN = 1e-9


def _groups(problem: SubsetSelectionProblem) -> tuple[np.ndarray, list[str]]:
    """Each agent's group index (-1: none) and the group names."""
    if problem.group is None:
        return np.full(problem.n, -1, dtype=np.int64), []
    names = list(dict.fromkeys(g for g in problem.group if g is not None))
    lookup = {g: j for j, g in enumerate(names)}
    return np.array([-1 if g is None else lookup[g] for g in problem.group], dtype=np.int64), names


def _first_counts(problem: SubsetSelectionProblem) -> np.ndarray:
    """Each agent's smallest allowed positive count: its minimum order rounded up to whole lots."""
    lot = np.asarray(problem.lot_size, dtype=np.int64)
    return -(-np.asarray(problem.min_units, dtype=np.int64) // lot) * lot


def _capped_greedy(order: np.ndarray, ub: np.ndarray, gidx: np.ndarray, room: np.ndarray,
                   want: float, take_more: Callable[[int], bool]) -> np.ndarray:
    """Units per agent taken in ``order`` (each up to ``ub``, each group up to ``room``) until
    ``want`` units, then further units only of agents with ``take_more(i)``: the optimum of a
    linear objective over the caps (a laminar family, where the greedy order is optimal)."""
    x = np.zeros(ub.size, dtype=float)
    left = room.astype(float).copy()
    total = 0.0
    for i in order.tolist():
        if total >= want and not take_more(i):
            break
        g = gidx[i]
        u = float(ub[i]) if g < 0 else min(float(ub[i]), left[g])
        if total < want and not take_more(i):
            u = min(u, want - total)
        if u <= 0:
            continue
        x[i] = u
        total += u
        if g >= 0:
            left[g] -= u
    return x


class _Aggregate(NamedTuple):
    """What the aggregate bounds share: each agent's largest and smallest allowed counts (``ub`` 0
    when it has none), the must-take mask, the group of each agent and each group's room in units,
    the most units in all, the least units and spend the pledges force, and the least spend per
    unit of each agent (its fixed cost spread over its capacity)."""

    ub: np.ndarray
    first: np.ndarray
    forced: np.ndarray
    gidx: np.ndarray
    room: np.ndarray
    total: int
    want: float
    must_spend: float
    rate: np.ndarray


def _aggregate(problem: SubsetSelectionProblem) -> _Aggregate | str:
    """The shared part of the aggregate bounds, or the sentence of a bound that refutes the caps."""
    n = problem.n
    ub = problem.upper_bounds().astype(np.int64)
    first = _first_counts(problem)
    ub = np.where(ub >= first, ub, 0)  # no allowed positive count below the capacity
    forced = np.zeros(n, dtype=bool)
    forced[problem.must_take] = True
    if (forced & (ub == 0)).any():
        i = int(np.flatnonzero(forced & (ub == 0))[0])
        return f"must-take agent {problem.names[i]!r} has no allowed count"
    gidx, names = _groups(problem)
    k = len(names)
    inf = float("inf")
    room = np.full(k, inf)
    room_units = [0] * k  # exact, for the demand bound
    pledge_units = np.zeros(k)  # least units each group must take
    pledge_spend = np.zeros(k)  # least spend each group's pledge costs (forced agents included)
    cost = np.asarray(problem.cost, dtype=float)
    fixed = np.asarray(problem.fixed_cost, dtype=float)
    activation = cost * first + fixed  # the least spend of using an agent
    for j, g in enumerate(names):
        lim = problem.group_limits.get(g, {})
        inside = np.flatnonzero((gidx == j) & (ub > 0))
        inside_forced = inside[forced[inside]]
        max_agents = lim.get("max_agents")
        if max_agents is not None and inside_forced.size > max_agents:
            return (f"group {g!r} allows {max_agents} agents but must-take names {inside_forced.size} "
                    "of its agents")
        need_agents = max(lim.get("min_agents", 0), inside_forced.size)
        if need_agents > inside.size:
            return f"group {g!r} must use {need_agents} agents but has {inside.size} that can give units"
        others = inside[~forced[inside]]
        extra = need_agents - inside_forced.size
        least_units = exact_total(first[inside_forced]) + exact_total(np.sort(first[others])[:extra])
        least_spend = math.fsum(activation[inside_forced].tolist()) + \
            math.fsum(np.sort(activation[others])[:extra].tolist())
        most = ub[inside]
        if max_agents is not None:
            most = np.sort(most)[::-1][:max_agents]
        most_units = exact_total(most)
        cap = lim.get("max_units")
        if cap is not None and least_units > cap:
            return (f"group {g!r}: its least units ({least_units}, at the smallest minimum orders of the "
                    f"{need_agents} agents it must use) are above its max_units {cap}")
        if lim.get("min_units", 0) > most_units:
            return f"group {g!r}: min_units {lim['min_units']} is above the {most_units} units its agents allow"
        room_units[j] = most_units if cap is None else min(most_units, cap)
        room[j] = room_units[j]
        pledge_units[j] = max(least_units, lim.get("min_units", 0))
        pledge_spend[j] = least_spend
    free = np.flatnonzero(gidx < 0)
    total = exact_total(ub[free]) + sum(room_units) if k else exact_total(ub)
    want = max(float(problem.demand or 0), float(pledge_units.sum()) + float(first[free[forced[free]]].sum()))
    must_spend = math.fsum(pledge_spend.tolist()) + math.fsum(activation[free[forced[free]]].tolist())
    rate = cost + np.where(ub > 0, fixed / np.maximum(ub, 1), 0.0)  # spend per unit, at least
    return _Aggregate(ub, first, forced, gidx, room, total, want, must_spend, rate)


def _cheapest(agg: _Aggregate) -> np.ndarray:
    """The agents that can give units, lowest spend per unit first."""
    order = np.argsort(agg.rate, kind="stable")
    return order[agg.ub[order] > 0]


def refutation(problem: SubsetSelectionProblem) -> str | None:
    """Why ``problem`` has no selection, from an aggregate bound, or None when no bound refutes it.

    Each bound relaxes the problem (lot sizes and minimum orders kept only where they make a bound
    larger, ``max_agents`` only in counts), so a refutation is a proof; None proves nothing.

    Parameters
    ----------
    problem : SubsetSelectionProblem

    Returns
    -------
    str or None
        A sentence naming the bound, e.g. ``"demand 900 is above the 860 units the capacities and
        group caps allow"``.
    """
    agg = _aggregate(problem)
    if isinstance(agg, str):
        return agg
    ub, gidx, room, total, want = agg.ub, agg.gidx, agg.room, agg.total, agg.want
    demand = problem.demand or 0
    if demand > total:
        return f"demand {demand} is above the {total} units the capacities and group caps allow"
    if problem.budget is not None:
        budget = float(problem.budget)
        if agg.must_spend * (1 - _MARGIN) > budget + 1e-9:
            return (f"budget {exact_text(budget)} is below the {agg.must_spend:.6g} that the must-take agents and the "
                    "groups' pledges cost at their minimum orders")
        if demand:
            x = _capped_greedy(_cheapest(agg), ub, gidx, room, float(demand), lambda i: False)
            spend = math.fsum((agg.rate * x).tolist())
            if spend * (1 - _MARGIN) > budget + 1e-9:
                return f"budget {exact_text(budget)} is below {spend:.6g}, the least any {demand} units cost"
    if want > 0 and getattr(problem, "knapsack", None) is None:  # (an encoded knapsack: floats approximate it)
        margin = np.asarray(problem.quality, dtype=float) - problem.alpha
        order = np.argsort(-margin, kind="stable")
        order = order[ub[order] > 0]
        x = _capped_greedy(order, ub, gidx, room, want, lambda i: margin[i] > 0)
        surplus = math.fsum((margin * x).tolist())  # error below 1e-15 of the terms and units
        scale = math.fsum((np.abs(margin) * x).tolist()) + float(x.sum())
        if surplus < -1e-9 - 1e-12 * scale:
            return (f"no {int(want)} units reach average quality {exact_text(problem.alpha)} (at most "
                    f"{problem.alpha + surplus / max(float(x.sum()), 1.0):.6g})")
    return None


def unit_bound(problem: SubsetSelectionProblem) -> int | None:
    """A proven upper bound on the units of any selection of ``problem`` (its demand ignored), from
    the aggregate relaxation: the capacities under the group caps and, with a budget, the most
    units the budget buys at each agent's least spend per unit, cheapest first (a fractional
    knapsack over a laminar family of caps, where the greedy order is optimal).  None when an
    aggregate bound refutes ``problem``."""
    agg = _aggregate(problem)
    if isinstance(agg, str):
        return None
    most = agg.total
    if problem.budget is not None:
        left = float(problem.budget) * (1 + _MARGIN) + 1e-9
        room = agg.room.astype(float).copy()
        units = 0.0
        for i in _cheapest(agg).tolist():
            g = agg.gidx[i]
            u = float(agg.ub[i]) if g < 0 else min(float(agg.ub[i]), room[g])
            if u <= 0:
                continue
            r = float(agg.rate[i])
            if r * u > left:
                units += left / r
                break
            left -= r * u
            units += u
            if g >= 0:
                room[g] -= u
        else:
            return int(most)
        most = min(most, int(math.floor(units * (1 + _MARGIN) + 1e-6)))
    return int(most)


def spend_bound(problem: SubsetSelectionProblem) -> float | None:
    """A proven lower bound on the spend ``sum c x + sum f [x > 0]`` of any selection of ``problem``
    (its budget ignored): what the must-take agents and the groups' pledges cost, and the demand
    at each agent's least spend per unit, cheapest first.  None when an aggregate bound refutes
    ``problem``."""
    agg = _aggregate(problem)
    if isinstance(agg, str):
        return None
    least = agg.must_spend
    if problem.demand:
        x = _capped_greedy(_cheapest(agg), agg.ub, agg.gidx, agg.room, float(problem.demand), lambda i: False)
        least = max(least, math.fsum((agg.rate * x).tolist()))
    return max(least * (1 - _MARGIN) - 1e-9, 0.0)


def greedy_witnesses(problem: SubsetSelectionProblem, want: int | None = None,
                     guide: np.ndarray | None = None) -> Iterator[np.ndarray]:
    """Selections built greedily that often pass ``problem``'s rule (checked by the caller).

    Must-take agents at their smallest allowed counts, then each group's ``min_agents`` and
    ``min_units`` from its agents, then agents until ``want`` units (default: the demand); each
    agent at the largest allowed count its group's caps and the budget left allow, and an agent
    below ``alpha`` only within the quality surplus gathered so far.  Orders: best quality first,
    cheapest first and, with a budget or fixed costs, lowest spend per unit first (the fixed cost
    spread over the capacity; each agent then only at the units still wanted, in whole lots).
    Linear in the number of agents per order.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    want : int, optional
        Units to reach (e.g. a bound on the largest demand); default ``problem.demand`` (or 0).
    guide : ndarray of float, shape (n,), optional
        Units per agent to aim at (an LP optimum): then one order only, the agents with the most
        units first, each at its aim rounded up to whole lots, until ``want`` or the aims' total.

    Yields
    ------
    ndarray of int64, shape (n,)
        One selection per order, built when asked for (the caller stops at the first it accepts).
    """
    n = problem.n
    ub = problem.upper_bounds().astype(np.int64)
    lot = np.asarray(problem.lot_size, dtype=np.int64)
    first = _first_counts(problem)
    ub = np.where(ub >= first, ub, 0)
    gidx, names = _groups(problem)
    margin = np.asarray(problem.quality, dtype=float) - problem.alpha
    quality_rule = problem.alpha > 0
    limits = [problem.group_limits.get(g, {}) for g in names]
    cost = np.asarray(problem.cost, dtype=float)
    fixed = np.asarray(problem.fixed_cost, dtype=float)
    # The budget less a relative 1e-12: the float sums below stay within the rule's tolerance.
    budget = None if problem.budget is None else float(problem.budget) * (1 - 1e-12)
    demand = int(problem.demand or 0) if want is None else int(want)
    rate = cost + np.where(ub > 0, fixed / np.maximum(ub, 1), 0.0)
    orders = [(np.argsort(-margin, kind="stable"), False), (np.argsort(cost, kind="stable"), False)]
    if budget is not None or fixed.any():  # a spend to keep low: only the units still wanted
        orders.append((np.argsort(rate, kind="stable"), True))
    aim = None
    if guide is not None:
        g = np.maximum(np.asarray(guide, dtype=float), 0.0)
        aim = -(-np.ceil(g - 1e-6).astype(np.int64) // lot) * lot
        orders = [(np.argsort(-g, kind="stable"), True)]
        demand = max(demand, int(aim.sum()))
    for order, sparing in orders:
        x = np.zeros(n, dtype=np.int64)
        units = np.zeros(len(names), dtype=np.int64)
        agents = np.zeros(len(names), dtype=np.int64)
        surplus = 0.0
        spend = 0.0
        total = 0

        def room(i: int) -> int:
            g = gidx[i]
            if g < 0:
                return int(ub[i])
            lim = limits[g]
            if agents[g] >= lim.get("max_agents", n + 1):
                return 0
            return min(int(ub[i]), lim.get("max_units", 1 << 62) - int(units[g]))

        def take(i: int, most: int) -> None:
            nonlocal surplus, spend, total
            u = min(room(i), most)
            if quality_rule and margin[i] < 0 and -float(margin[i]) * u > 0.999 * surplus:
                u = int(0.999 * surplus / -float(margin[i])) if surplus > 0 else 0  # (below u: no overflow)
            if budget is not None:
                left = budget - spend - float(fixed[i])
                if left < 0:
                    return
                if float(cost[i]) * u > left:  # (then left / cost < u: no overflow)
                    u = min(u, int(left / float(cost[i])))
            u = u // lot[i] * lot[i]
            if u < first[i] or u <= 0:
                return
            x[i] = u
            surplus += float(margin[i]) * u
            spend += float(cost[i]) * u + float(fixed[i])
            total += int(u)
            if gidx[i] >= 0:
                units[gidx[i]] += u
                agents[gidx[i]] += 1

        for i in problem.must_take.tolist():
            take(int(i), int(first[i]))
        for j, lim in enumerate(limits):
            for i in order[(gidx[order] == j) & (x[order] == 0)].tolist():
                if agents[j] >= lim.get("min_agents", 0) and units[j] >= lim.get("min_units", 0):
                    break
                take(i, int(first[i]) if agents[j] < lim.get("min_agents", 0) else lim["min_units"] - int(units[j]))
        for i in order.tolist():
            if total >= demand:
                break
            if x[i] == 0:
                need = -(-(demand - total) // int(lot[i])) * int(lot[i])  # whole lots
                if aim is not None and aim[i] > 0:
                    need = int(aim[i])
                take(i, max(need, int(first[i])) if sparing else int(ub[i]))
        yield x


def compact_relaxation(problem: SubsetSelectionProblem, value: np.ndarray,
                       fixed: np.ndarray | None = None) -> LinearForm | None:
    """The LP relaxation of ``max sum value_i x_i - sum fixed_i [x_i > 0]`` under ``problem``'s rule,
    over the units alone.

    Each agent's choices ``{0} U [m_i, k_i]`` (in lots) relax to ``lb_i <= x_i <= k_i`` with its used
    indicator at ``x_i / k_i`` (the convex hull of its choices), so a fixed cost ``f_i`` (in the
    objective or the budget) becomes ``f_i / k_i`` per unit, a lower bound of what any count pays,
    and a group's agent counts become ``sum x_i / k_i <= max_agents`` and ``sum x_i / m_i >=
    min_agents`` (``m_i`` the least allowed count).  Rows: the quality row and the budget (loosened by the
    rule's tolerance), the demand, the groups' unit limits.  Every selection the rule accepts is a
    point of it with an objective at most its value, so its LP optimum is a proven bound, found on
    ``n`` variables and a few rows instead of the planner model's ``n`` + auxiliary variables and
    rows.  None when ``problem`` has constraint objects beyond its keywords'
    (:attr:`SubsetSelectionProblem.added_constraints`: their rows are kept whole by the whole
    model) or a ``fixed`` below 0.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    value : ndarray of float, shape (n,)
        Objective per unit.
    fixed : ndarray of float, shape (n,), optional
        Objective lost per agent used (non-negative), default none.

    Returns
    -------
    LinearForm or None
    """
    from ..models import FEASIBILITY_TOL, LinearForm, LinearRow

    n = problem.n
    fixed = np.zeros(n) if fixed is None else np.asarray(fixed, dtype=float)
    if problem.added_constraints or (fixed < 0).any():
        return None
    lower = problem.lower_bounds().astype(float)
    upper = problem.upper_bounds().astype(float)
    first = _first_counts(problem)
    upper = np.where(upper >= first, upper, 0.0)  # no allowed positive count below the capacity
    cap = np.maximum(upper, 1.0)
    tol = FEASIBILITY_TOL
    rows = [LinearRow("quality", np.asarray(problem.quality_margin, dtype=float), -tol, np.inf, real=True, tol=tol)]
    if problem.budget is not None:
        rate = np.asarray(problem.cost, dtype=float) + np.asarray(problem.fixed_cost, dtype=float) / cap
        rows.append(LinearRow("budget", rate, -np.inf, float(problem.budget) + tol, real=True, tol=tol))
    if problem.demand is not None:
        rows.append(LinearRow("demand", np.ones(n), float(problem.demand), np.inf))
    gidx, names = _groups(problem)
    for j, g in enumerate(names):
        lim = problem.group_limits.get(g, {})
        members = np.flatnonzero((gidx == j) & (upper > 0))
        for side in ("min", "max"):
            if f"{side}_units" in lim:
                bound = float(lim[f"{side}_units"])
                rows.append(LinearRow(f"group_units_{j}_{side}", np.ones(members.size), bound if side == "min"
                                      else -np.inf, bound if side == "max" else np.inf, members))
        # An agent used counts 1 <= x_i / m_i (its least count) and >= x_i / k_i: the agent counts relaxed.
        if "max_agents" in lim:
            rows.append(LinearRow(f"group_used_{j}_max", 1.0 / cap[members], -np.inf, float(lim["max_agents"]),
                                  members))
        if "min_agents" in lim:
            least = np.maximum(first[members], 1).astype(float)
            rows.append(LinearRow(f"group_used_{j}_min", 1.0 / least, float(lim["min_agents"]), np.inf, members))
    return LinearForm(np.asarray(value, dtype=float) - fixed / cap, lower, upper, tuple(rows))


class Questions:
    """Feasibility questions and the nearest-change optimisations about parts of one problem.

    Parameters
    ----------
    solver : Solver
        The backend whose verdict is explained; its MILP model (when it is a MILP backend) answers
        the questions the bounds and the witnesses leave open, else its checked answers.
    deadline : float or None
        A ``time.perf_counter()`` value after which questions are answered ``None`` (undecided)
        unless a bound or a witness decides them.
    """

    def __init__(self, solver: Solver, deadline: float | None = None):
        self.solver = solver
        self.deadline = deadline
        self.witnesses: list[np.ndarray] = []
        self.timed_out = False

    def left(self) -> float | None:
        """Seconds until the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def expired(self) -> bool:
        left = self.left()
        if left is not None and left <= 0:
            self.timed_out = True
            return True
        return False

    def known(self, problem: SubsetSelectionProblem) -> np.ndarray | None:
        """A selection found before (or the smallest one) that ``problem`` accepts."""
        lb = problem.lower_bounds()
        for x in [lb, *reversed(self.witnesses)]:
            if x.shape == (problem.n,) and problem.evaluate(x).feasible:
                return x
        return None

    def keep(self, x: np.ndarray) -> None:
        """Remember a selection that some part of the problem accepts (once)."""
        x = np.asarray(x, dtype=np.int64)
        if not any(w is x or (w.shape == x.shape and np.array_equal(w, x)) for w in self.witnesses):
            self.witnesses.append(x)

    def feasible(self, problem: SubsetSelectionProblem) -> bool | None:
        """True when a selection passes ``problem.evaluate``, False when ``problem`` is proven
        infeasible, None when not decided before the deadline."""
        return None if (ans := self.witness(problem)) is None else ans is not False

    def witness(self, problem: SubsetSelectionProblem) -> np.ndarray | Literal[False] | None:
        """A selection that ``problem`` accepts, False when it has none (proven), None undecided."""
        if refutation(problem) is not None:
            return False
        x = self.known(problem)
        if x is not None:
            return x
        for x in greedy_witnesses(problem):
            if problem.evaluate(x).feasible:
                self.keep(x)
                return x
        if self.expired():
            return None
        from ._milp import MILPSolver

        if isinstance(self.solver, MILPSolver):
            ans = self._milp_witness(problem)
            if ans is not None:
                return ans
        return self._checked(problem)

    def _milp_witness(self, problem: SubsetSelectionProblem) -> np.ndarray | Literal[False] | None:
        """The loosened model with a zero objective: its infeasibility is the problem's; a selection
        it returns counts when the rule accepts it (None: the checked pipeline must decide)."""
        from ._milp import RELAX, integral, solver_form
        from .base import SolverError, Status

        form = solver_form(problem, -RELAX)[0]
        form = dataclasses.replace(form, objective=np.zeros(form.n))
        from .highs import HiGHS

        try:
            if isinstance(self.solver, HiGHS):  # without its presolve (see the class docstring)
                raw: RawResult = self.solver._run(form, self.left(), None, presolve=False)
            else:
                raw = self.solver._run(form, self.left(), None)  # type: ignore[attr-defined]
        except SolverError:
            return None
        if raw.status is Status.INFEASIBLE:
            return False
        if raw.x is None:
            if raw.status is Status.TIME_LIMIT:
                self.timed_out = True
            return None
        try:
            x = integral(raw.x, form, self.solver.name)[:problem.n]
        except SolverError:
            return None
        if problem.evaluate(x).feasible:
            self.keep(x)
            return x
        return None

    def _checked(self, problem: SubsetSelectionProblem) -> np.ndarray | Literal[False] | None:
        """The solver's whole checked answer, within the time left."""
        from .base import SolverError, Status

        left = self.left()
        solver = self.solver
        if left is not None:
            solver = copy.copy(solver)  # the same options, within the time left
            solver.time_limit_s = max(left, 1e-3)
        try:
            sol = solver._solve_checked(problem)
        except SolverError:  # undecided
            return None
        if sol.status is Status.INFEASIBLE:
            return False
        if sol.is_feasible and problem.evaluate(sol.x).feasible:
            x = np.asarray(sol.x, dtype=np.int64)
            self.keep(x)
            return x
        if sol.status in (Status.TIME_LIMIT, Status.NO_SOLUTION_FOUND):
            self.timed_out = True
        return None

    def optimum(self, problem: SubsetSelectionProblem, value: np.ndarray, fixed: np.ndarray | None = None,
                loose: bool = False, quick: bool = False) -> tuple[np.ndarray | None, float | None, bool]:
        """Maximise ``sum value_i x_i - sum fixed_i [x_i > 0]`` under ``problem``'s constraints, on
        HiGHS within the time left; on the loosened model of
        :func:`~subsel.solvers._milp.solver_form` with ``loose`` (its bound then holds for every
        selection the rule accepts).

        First the LP relaxation (a proven bound; over the units alone, :func:`compact_relaxation`,
        when the problem has no constraint objects), its optimum rounded down to whole lots and a
        greedy selection guided by it (:func:`greedy_witnesses`), then
        the MILP restricted to the agents whose LP values are fractional or inside their bounds,
        the others fixed at their LP values (Berthold, *RENS: the optimal rounding*, Mathematical
        Programming Computation 6(1), 2014), whose selection starts the whole MILP (with the best
        selection known before, when better) within the time left.  A selection that meets the LP
        bound is optimal at once (the whole model is then never built); the whole MILP is skipped
        when less time is left than twice the restricted one took (it would overrun the time), and
        with ``quick`` (the LP bound is then the bound).

        Parameters
        ----------
        problem : SubsetSelectionProblem
        value : ndarray of float, shape (n,)
            Objective per unit.
        fixed : ndarray of float, shape (n,), optional
            Objective lost per agent used (non-negative: a fixed cost), default none.
        loose, quick : bool

        Returns
        -------
        (x, bound, proven)
            The best selection found (units; None when none), a proven upper bound on the optimum
            of the model (None when none is known), and whether the bound is the model's optimum.
            Its selections are checked by the caller with the exact rule.
        """
        from .base import SolverError, Status
        from .highs import HiGHS

        if not HiGHS.available()[0] or self.expired():
            return None, None, False
        n = problem.n
        value = np.asarray(value, dtype=float)
        fixed = np.zeros(n) if fixed is None else np.asarray(fixed, dtype=float)
        highs = HiGHS(threads=self.solver.threads)
        built: list[LinearForm] = []

        def whole() -> LinearForm:  # the whole model, built when first needed
            if not built:
                if loose:
                    from ._milp import RELAX, solver_form

                    form = solver_form(problem, -RELAX)[0]
                else:
                    form = linear_form(problem)
                used = np.asarray(form.aux_lot) == 0
                objective = np.zeros(form.n)
                objective[:n] = value
                objective[n:][used] = -fixed[np.asarray(form.aux_of, dtype=np.int64)[used]]
                built.append(dataclasses.replace(form, objective=objective))
            return built[0]

        def worth(x: np.ndarray) -> float:
            return float(np.dot(value, x)) - float(fixed[x > 0].sum())

        def met() -> bool:  # the best selection meets the LP bound: it is optimal
            return start is not None and lp_bound is not None and \
                worth(start) >= lp_bound - 1e-9 * max(1.0, abs(lp_bound))

        start: np.ndarray | None = None  # the best selection known that the problem accepts (units)

        def offer(x: np.ndarray | None) -> None:
            nonlocal start
            if x is not None and (start is None or worth(x) > worth(start)) and problem.evaluate(x).feasible:
                self.keep(x)
                start = x

        for w in self.witnesses:
            if w.shape == (n,) and (start is None or worth(w) > worth(start)):
                offer(w)
        compact = compact_relaxation(problem, value, fixed)
        lp_bound: float | None = None
        rounding_s = 0.0
        rounded: np.ndarray | None = None
        # The LP over the units alone first; the whole model's LP when its rounding found nothing
        # and rows over the used variables (the groups' agent counts) were only relaxed in it.
        for step in ("compact", "whole") if compact is not None else ("whole",):
            if step == "whole" and compact is not None and (
                    rounded is not None or self.expired()
                    or not any(r.name.startswith("group_agents_") for r in whole().rows)):
                break
            try:
                lp = self._lp(compact) if step == "compact" and compact is not None else \
                    highs._run(whole(), self.left(), None, relaxed=True)
            except SolverError:
                lp = None
            if lp is not None and lp.status is Status.INFEASIBLE:
                return None, -math.inf, True
            if lp is None or lp.status is not Status.OPTIMAL or lp.x is None:
                continue
            if lp.bound is not None:
                padded = float(lp.bound) + 1e-9 * max(1.0, abs(float(lp.bound)))
                lp_bound = padded if lp_bound is None else min(lp_bound, padded)
            x_lp = np.asarray(lp.x, dtype=float)
            if step == "compact":  # rounded down to whole lots (an agent below its minimum order out)
                units = x_lp[:n]
                lot = np.asarray(problem.lot_size, dtype=np.int64)
                down = np.floor(units / lot + 1e-6).astype(np.int64) * lot
                offer(np.where(down >= _first_counts(problem), down, 0))
                for w in greedy_witnesses(problem, guide=units):  # (the pledges the LP leaves out kept)
                    offer(w)
                if met():
                    return start, lp_bound, True
                if self.expired():
                    break
                inside = (units > problem.lower_bounds()) & (units < problem.upper_bounds())
                x_lp = whole().full(np.where(inside, units + 0.5, units))  # inside its bounds: left free
            t0 = time.perf_counter()
            rounded = self._restricted(problem, whole(), highs, x_lp)
            rounding_s = time.perf_counter() - t0
            offer(None if rounded is None else self._units(problem, rounded))
        if met():
            return start, lp_bound, True
        left = self.left()
        if quick or self.expired() or (left is not None and left < 2 * rounding_s):
            # (the whole MILP takes longer to set up than the restricted one, which fixed all but
            # a few agents: with less time left it would only overrun it)
            if not quick:
                self.timed_out = True
            return start, lp_bound, False
        form = whole()
        try:
            raw = highs._run(form, self.left(), None if start is None else form.full(start))
        except SolverError:
            return start, lp_bound, False
        if raw.status is Status.INFEASIBLE:
            return None, -math.inf, True
        if raw.status is Status.TIME_LIMIT:
            self.timed_out = True
        if raw.x is not None:
            x = self._units(problem, np.asarray(raw.x, dtype=float))
            if x is not None and (start is None or worth(x) > worth(start)):
                start = x
        bound = None if raw.bound is None or not math.isfinite(raw.bound) else float(raw.bound)
        if lp_bound is not None:
            bound = lp_bound if bound is None else min(bound, lp_bound)
        return start, bound, raw.status is Status.OPTIMAL

    def _lp(self, form: LinearForm) -> RawResult | None:
        """The LP optimum of ``form`` (all variables continuous) by HiGHS within the time left: its
        dual simplex on up to 5,000 columns, else its interior point method then crossover (through
        SciPy, whose import takes longer than a small LP: the dual simplex takes seconds on the few
        dense rows of a compact relaxation of 50,000 agents)."""
        from .base import RawResult, Status
        from .highs import HiGHS

        if form.n <= _IPM_COLUMNS:
            return HiGHS(threads=self.solver.threads)._run(form, self.left(), None, relaxed=True)
        import scipy.sparse as sp
        from scipy.optimize import linprog

        start, index, value = form.csc()
        A = sp.csc_matrix((value, index, start), shape=(len(form.rows), form.n)).tocsr()
        lower = np.array([r.lower for r in form.rows], dtype=float)
        upper = np.array([r.upper for r in form.rows], dtype=float)
        above, below = np.isfinite(upper), np.isfinite(lower)
        left = self.left()
        options = {} if left is None else {"time_limit": max(left, 1e-3)}
        res = linprog(-np.asarray(form.objective, dtype=float), A_ub=sp.vstack([A[above], -A[below]]),
                      b_ub=np.concatenate([upper[above], -lower[below]]), bounds=np.c_[form.lower, form.upper],
                      method="highs-ipm", options=options)
        if res.status == 2:
            return RawResult(None, Status.INFEASIBLE)
        if res.status != 0 or res.x is None:
            if res.status == 1:
                self.timed_out = True
            return None
        return RawResult(np.asarray(res.x, dtype=float), Status.OPTIMAL, -float(res.fun))

    @staticmethod
    def _units(problem: SubsetSelectionProblem, full: np.ndarray | None) -> np.ndarray | None:
        return None if full is None else np.rint(np.asarray(full, dtype=float)[:problem.n]).astype(np.int64)

    def _restricted(self, problem: SubsetSelectionProblem, form: LinearForm, highs: object,
                    x_lp: np.ndarray) -> np.ndarray | None:
        """The MILP with every agent whose LP values are all integral fixed at them: a rounding of
        the LP optimum (None when it has none, or the time is out)."""
        from .base import SolverError

        n = problem.n
        off = np.abs(x_lp - np.rint(x_lp)) > 1e-9
        loose_agent = off[:n].copy()
        np.logical_or.at(loose_agent, np.asarray(form.aux_of, dtype=np.int64), off[n:])
        free = np.concatenate((loose_agent, loose_agent[np.asarray(form.aux_of, dtype=np.int64)]))
        fixed = np.rint(x_lp)
        lower = np.where(free, form.lower, fixed)
        upper = np.where(free, form.upper, fixed)
        sub = dataclasses.replace(form, lower=lower, upper=upper)
        if self.expired():
            return None
        try:
            raw = highs._run(sub, self.left(), None)  # type: ignore[attr-defined]
        except SolverError:
            return None
        if raw.x is None:
            return None
        full = np.rint(np.asarray(raw.x, dtype=float))
        x = full[:n].astype(np.int64)
        if problem.evaluate(x).feasible:
            self.keep(x)
            return full
        return None
