"""The k best distinct selections, each proven best among those not yet listed.

Lawler, "A procedure for computing the K best solutions to discrete optimization problems and its
application to the shortest path problem", Management Science 18(7), 1972, with the partition of
Murty, "An algorithm for ranking all the assignments in order of increasing cost", Operations
Research 16(3), 1968, applied to the integer program of Deva, Abhishek, Gujar (AAMAS 2021,
Section 3).  A part of the search space is a box of bounds ``lo_i <= x_i <= hi_i``; its best selection
``x*`` comes from one solve; removing ``x*`` leaves disjoint boxes: for the free agents ``t`` in input
order, the agents before ``t`` fixed to ``x*``, agent ``t`` below or above ``x*_t``, the rest unchanged.
The best of all boxes not yet split is the next selection.  The boxes reach the solver through the
model's own fields (a bound ``x_i <= hi_i`` is a capacity or must-not-take, ``x_i >= lo_i`` is
``lo_i - 1`` must-take single units plus a must-take agent), so any solver that supports must lists
works, with the problem's budget and demand kept.

With a MILP backend and unit capacities the default is instead one solve per selection with every
selection found before excluded by its canonical no-good cut (Balas and Jeroslow, "Canonical cuts
on the unit hypercube", SIAM Journal on Applied Mathematics 23(1), 1972), through
:meth:`subsel.solvers.Solver.solve_excluding`: about ``k`` solves instead of about ``2 k n``.
"""
from __future__ import annotations

import heapq
import itertools
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models import OPTIMALITY_RTOL, PLANNER_EXTENSIONS, SubsetSelectionProblem
from ..solvers import (
    DEFAULT_SOLVER_PREFERENCE,
    MAX_CUT_RANGE,
    SOLVERS,
    Solver,
    Status,
    default_solver,
    get_solver,
    solver_info,
)
from ._common import as_solver, check_problem

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Columns of :func:`alternatives`, in order.
ALTERNATIVE_COLUMNS = ("rank", "objective", "units", "avg_quality", "agents", "status", "x")

#: Most single units a box may fix (lower bounds above 1 are spelled out as must-take units).
MAX_FIXED_UNITS = 100_000

#: Most selections of one utility (within the tie tolerance) enumerated to apply the tie rule.
MAX_TIES = 10_000

#: Utilities within this fraction of the best of a group are tied (the solvers' optimality
#: tolerance: their proofs cannot order them), decided in exact rational arithmetic.
TIE_RTOL = Fraction(OPTIMALITY_RTOL)


def _box_problem(problem: SubsetSelectionProblem, lo: np.ndarray, hi: np.ndarray
                 ) -> tuple[SubsetSelectionProblem, np.ndarray]:
    """The problem restricted to ``lo <= x <= hi``, and for each of its agents the original agent."""
    n = problem.n
    extra = np.maximum(lo - 1, 0)  # lower bounds above 1: that many single must-take units
    if int(extra.sum()) > MAX_FIXED_UNITS:
        raise ValueError(f"alternatives fixes more than {MAX_FIXED_UNITS} single units (capacities too large "
                         "for the enumeration); use smaller capacities")
    owner = np.concatenate([np.arange(n), np.repeat(np.arange(n), extra)])
    cap = np.concatenate([np.where(hi > 0, hi - extra, problem.capacity), np.ones(int(extra.sum()), dtype=np.int64)])
    m = owner.size
    must_take = np.concatenate([np.flatnonzero(lo >= 1), np.arange(n, m)])
    kwargs: dict[str, Any] = dict(quality=problem.quality[owner], cost=problem.cost[owner], alpha=problem.alpha,
                                  capacity=cap, R=problem.R, budget=problem.budget, demand=problem.demand,
                                  must_take=must_take, must_not_take=np.flatnonzero(hi == 0))
    if problem.objective_quality is not None:
        kwargs["objective_quality"] = problem.objective_quality[owner]
    return SubsetSelectionProblem(**kwargs), owner


def _exact_utility(problem: SubsetSelectionProblem, x: np.ndarray) -> Fraction:
    """``sum_i r_i x_i`` (minus the fixed cost of each agent used) as an exact rational (the stored
    floats, no rounding): the ranking key."""
    r = problem.utility
    used = np.flatnonzero(x)
    value = sum((Fraction(float(r[i])) * int(x[i]) for i in used), Fraction(0))
    if problem.fixed_cost is not None:  # the planner's fixed cost of each agent used
        value -= sum((Fraction(float(problem.fixed_cost[i])) for i in used), Fraction(0))
    return value


def _tie_floor(lead: Fraction) -> Fraction:
    """The least utility tied with ``lead``: ``lead - OPTIMALITY_RTOL |lead|``, exact."""
    return lead - TIE_RTOL * abs(lead)


def _first_of_its_set(problem: SubsetSelectionProblem, solver: Solver, x: np.ndarray) -> tuple[np.ndarray, bool]:
    """Among the selections that use exactly the agents of ``x`` and tie with it, the first by the
    tie rule (the largest unit vector), and whether the solver proved that: the selections of that
    set are enumerated by no-good cuts on their units while they tie.  Capacities above the cuts'
    range keep ``x``."""
    if int(problem.capacity.max()) > MAX_CUT_RANGE:
        return x, True
    used = x > 0
    same = problem.with_changes(must_take=np.flatnonzero(used | np.isin(np.arange(problem.n), problem.must_take)),
                                must_not_take=np.flatnonzero(~used))
    tied = [(_exact_utility(problem, x), x)]
    proven = True
    while len(tied) <= MAX_TIES:
        sol = solver.solve_excluding(same, np.array([t for _, t in tied], dtype=np.int64))
        if sol.status is not Status.INFEASIBLE and (sol.status is not Status.OPTIMAL or not solver.exact):
            proven = False
        if not sol.is_feasible:
            break
        y = np.array(sol.x, dtype=np.int64)
        value = _exact_utility(problem, y)
        lead = max(v for v, _ in tied)
        if value < _tie_floor(lead) - TIE_RTOL * abs(lead):
            break
        tied.append((value, y))
    lead = max(v for v, _ in tied)
    return max((t for v, t in tied if v >= _tie_floor(lead)), key=lambda t: tuple(t)), proven


def _by_cuts(problem: SubsetSelectionProblem, k: int, solver: Solver, distinct: str = "units"
             ) -> list[tuple[list[np.ndarray], bool]]:
    """Groups of tied selections, best first, each with whether it is proven: each solve excludes
    every selection found before it (``distinct="units"``) or every set of used agents found
    before it (``"agents"``) by a no-good cut.

    A group is led by the best selection not yet listed and holds every selection within the tie
    tolerance of it (:func:`_tie_floor`, exact); it is complete once a solve returns a selection
    below the leader by twice that tolerance (the solver proves its answers up to it), or none.
    """
    n = problem.n
    found: list[np.ndarray] = []
    pending: list[tuple[Fraction, np.ndarray]] = []
    groups: list[tuple[list[np.ndarray], bool]] = []
    proven = True
    listed = 0
    done = False
    while not done and listed < k:
        past = np.array(found, dtype=np.int64).reshape(len(found), n)
        if distinct == "agents":
            sol = solver.solve_excluding(problem, np.zeros((0, n), dtype=np.int64), used=past > 0)
        else:
            sol = solver.solve_excluding(problem, past)
        if sol.status is not Status.INFEASIBLE and (sol.status is not Status.OPTIMAL or not solver.exact):
            proven = False
        newest = None
        if sol.is_feasible:
            x = np.array(sol.x, dtype=np.int64)
            if distinct == "agents":
                x, sure = _first_of_its_set(problem, solver, x)
                proven &= sure
            found.append(x)
            newest = _exact_utility(problem, x)
            pending.append((newest, x))
        else:
            done = True
        while pending and listed < k:
            lead = max(v for v, _ in pending)
            floor = _tie_floor(lead)
            if newest is not None and newest >= floor - TIE_RTOL * abs(lead):
                break  # a selection tied with the leader may still come
            group = [(v, x) for v, x in pending if v >= floor]
            pending = [(v, x) for v, x in pending if v < floor]
            groups.append(([x for _, x in sorted(group, key=lambda e: tuple(-e[1]))], proven))
            listed += len(group)
        if pending and len([1 for v, _ in pending if v >= _tie_floor(max(v for v, _ in pending))]) > MAX_TIES:
            raise ValueError(f"more than {MAX_TIES} selections have utility {float(max(v for v, _ in pending))!r} "
                             "(within the tie tolerance); the tie rule cannot order them")
    return groups


def alternatives_solver(problem: SubsetSelectionProblem, distinct: str = "units") -> str:
    """The solver :func:`alternatives` uses when none is given.

    The registry's default for the problem's extensions (:func:`subsel.solvers.default_solver`);
    with one of the planner's fields (minimum orders, lot sizes, fixed costs, group limits), which
    Lawler and Murty's partition does not handle, or with ``distinct="agents"`` (cuts on the used
    agents), the first of the registry's preferred solvers that supports the problem and no-good
    cuts (Balas and Jeroslow, SIAM J. Appl. Math. 23(1), 1972).

    Parameters
    ----------
    problem : SubsetSelectionProblem
    distinct : {"units", "agents"}, default "units"
        As :func:`alternatives`.

    Returns
    -------
    str
        A registry name (for :func:`subsel.solvers.get_solver`, with any options).

    Raises
    ------
    LookupError
        No preferred backend is available here (or none supports the problem).
    """
    needed = set(problem.extensions)
    if needed & set(PLANNER_EXTENSIONS) or distinct == "agents":
        for row in solver_info([name for name in DEFAULT_SOLVER_PREFERENCE if name in SOLVERS]):
            if row.available and needed <= row.supports and get_solver(row.name).no_good_cuts:
                return row.name
    return default_solver(needed)


def alternatives(problem: SubsetSelectionProblem, k: int, solver: str | Solver | None = None,
                 method: str | None = None, distinct: str = "units") -> "pd.DataFrame":
    """The ``k`` best distinct selections, in non-increasing utility (distinct in their units, or in
    the agents they use).

    Lawler (Management Science 18(7), 1972) and Murty (Operations Research 16(3), 1968) ranking on
    the integer program of Deva, Abhishek, Gujar (AAMAS 2021, Section 3): each selection listed is
    the best (by the solver's proof, up to its optimality tolerance) of all feasible selections not
    listed before it.  Every model field the solver supports is kept (capacities, budget, demand,
    must lists, and with the no-good cuts of a MILP backend the planner's minimum orders, lot
    sizes, fixed costs and group limits).

    With ``distinct="agents"`` the selections differ in *which* agents they use (the plan B of a
    planner whose supplier falls through): each listed selection is the best of all whose set of
    used agents (``x_i > 0``) is not the set of one listed before, so it is the best selection of
    its set; each solve excludes the sets found before by a no-good cut on the agents' binary
    "used" variables (Balas and Jeroslow, SIAM J. Appl. Math. 23(1), 1972), with a MILP backend.

    Tie rule: selections are ranked by their utility computed exactly from the stored numbers
    (rational arithmetic, as the feasibility rule decides the quality constraint).  Utilities within
    the solvers' optimality tolerance (``1e-9`` relative, :data:`TIE_RTOL`) of the best selection
    not yet listed are tied, since no solver's proof orders them (two plans equal to the cent on
    decimal data differ by float rounding, about ``1e-16``); among tied selections the one whose
    unit vector ``x`` is lexicographically larger comes first (more units of the earlier agents, in
    input order).  All tied selections are enumerated before any is listed, so the order does not
    depend on which optimum the solver returns.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    k : int
        How many selections, ``k >= 1``; fewer rows when fewer feasible selections exist.
    solver : str or Solver or None, default None
        Name or instance; it must support the problem's extensions (and, for ``partition``,
        ``must_take`` and ``must_not_take``).  ``None``: the registry's default for the problem's
        extensions (:func:`subsel.solvers.default_solver`: ``exact`` when it supports them, else a
        MILP backend); with a planner field, the first preferred MILP backend with no-good cuts
        (the partition does not handle those fields).  With a solver that does not prove
        optimality the status column says ``feasible``.
    method : {"partition", "cuts"} or None, default None
        ``partition``: Lawler and Murty's partition of the search space, with any solver and any
        capacities.  ``cuts``: one solve per selection (or per tie) with every selection found
        before excluded by a no-good cut (Balas and Jeroslow, SIAM J. Appl. Math. 23(1), 1972) on the
        selection's 0-1 digits (an agent with several units in binary, see
        :meth:`subsel.solvers.Solver.solve_excluding`); only for solvers with ``no_good_cuts`` (the
        MILP backends: cbc, highs, ortools-scip, ortools-cpsat) and capacities up to ``2**20``.
        The selections and their order are the same.  ``None``: ``cuts`` where it applies (about
        ``k`` solves instead of about ``2 k n``), else ``partition`` (always with ``exact``, whose
        solves are cheap and know no cuts).  The planner's fields (minimum orders, lot sizes, fixed
        costs, group limits) and the constraint objects (:class:`~subsel.models.LinearConstraint`,
        :class:`~subsel.models.QualityFloor`) need ``cuts``: a box of the partition is spelled with
        extra agents, which those fields would treat as other suppliers (a count of the agents
        used would count a split agent more than once), and ``partition`` refuses them naming
        them.
    distinct : {"units", "agents"}, default "units"
        ``units``: any two listed selections differ in some agent's units.  ``agents``: they
        differ in the set of agents used (each the best of its set); needs a solver with no-good
        cuts (``method`` None or ``cuts``), and any capacity.

    Returns
    -------
    pandas.DataFrame, shape (min(k, number of feasible selections), 7)
        ``rank`` (1, 2, ...), ``objective`` (utility, revenue units), ``units``, ``avg_quality``,
        ``agents`` (agents with ``x_i > 0``), ``status`` (``optimal`` when proven best among the
        rest), ``x`` (read-only int64 ndarray of shape (n,): units per agent).

    Raises
    ------
    ValueError
        ``k`` not a positive integer; an unknown ``method``, or ``cuts`` with a solver without
        no-good cuts or a capacity above ``2**20``; the planner's fields with ``partition`` (or with
        a solver without cuts); more than 100,000 single units fixed by the partition (very
        large capacities); more than 10,000 tied selections (the tie rule cannot be applied); an
        unknown ``distinct``, or ``agents`` with a solver without no-good cuts or with
        ``method="partition"``; an unknown solver or an unsupported extension.
    TypeError
        ``problem`` or ``solver`` of the wrong kind.

    Notes
    -----
    ``partition`` makes one solve per box: splitting a selection makes up to two boxes per free
    agent, so the cost is about ``2 k n`` solves of problems the size of ``problem``.  ``cuts``
    makes about ``k`` solves (one more per group of tied utility), the ``j``-th with ``j - 1`` cut
    rows; with ``distinct="agents"`` each cut has one term per agent that may be used or not.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, alternatives
    >>> p = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.8)
    >>> alternatives(p, 3)[["rank", "objective", "agents"]].round(6).values.tolist()
    [[1.0, 1.05, 2.0], [2.0, 0.6, 1.0], [3.0, 0.45, 1.0]]
    """

    problem = check_problem(problem, "alternatives")
    if distinct not in ("units", "agents"):
        raise ValueError(f"distinct must be 'units' or 'agents'; got {distinct!r}")
    solver = as_solver(alternatives_solver(problem, distinct) if solver is None else solver)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    if distinct == "agents":
        if not solver.no_good_cuts:
            raise ValueError(f"distinct='agents' needs a solver with no-good cuts (cbc, highs, ortools-scip, "
                             f"ortools-cpsat); got {solver.name!r}")
        if method not in (None, "cuts"):
            raise ValueError(f"distinct='agents' works by no-good cuts on the used agents (method='cuts'); "
                             f"got method {method!r}")
        return _rows(problem, _by_cuts(problem, k, solver, "agents"), k)
    if method is None:
        method = "cuts" if solver.no_good_cuts and int(problem.capacity.max()) <= MAX_CUT_RANGE else "partition"
        planner = sorted(set(problem.extensions) & set(PLANNER_EXTENSIONS))
        objects = [repr(c.name) for c in problem.added_constraints]
        if method == "partition" and (planner or objects) and solver.no_good_cuts:
            i = int(np.argmax(problem.capacity))
            named = " and ".join(part for part in (f"the planner's {', '.join(planner)}" if planner else "",
                                                   f"the constraints {', '.join(objects)}" if objects else "") if part)
            raise ValueError(f"alternatives with {named} need no-good cuts, which take "
                             f"capacities of at most {MAX_CUT_RANGE}; capacity[{i}] is {int(problem.capacity[i])}")
    if method not in ("partition", "cuts"):
        raise ValueError(f"method must be 'partition' or 'cuts'; got {method!r}")
    if method == "cuts":
        if not solver.no_good_cuts:
            raise ValueError(f"method 'cuts' needs a solver with no-good cuts (cbc, highs, ortools-scip, "
                             f"ortools-cpsat); got {solver.name!r}")
        if int(problem.capacity.max()) > MAX_CUT_RANGE:
            i = int(np.argmax(problem.capacity))
            raise ValueError(f"method 'cuts' needs capacities of at most {MAX_CUT_RANGE}; capacity[{i}] is "
                             f"{int(problem.capacity[i])} (use method='partition')")
        return _rows(problem, _by_cuts(problem, k, solver), k)
    check_problem(problem, "alternatives by the partition (method='partition', or a solver without no-good "
                  "cuts)", planner=False, hint="use a MILP backend (highs, cbc, ortools-scip) with method='cuts'")
    order = itertools.count()  # a unique last key, so the heap never compares arrays
    heap: list[tuple[Fraction, tuple[int, ...], int, np.ndarray, np.ndarray, np.ndarray]] = []
    proven = [True]

    def push(lo: np.ndarray, hi: np.ndarray) -> None:
        box, owner = _box_problem(problem, lo, hi)
        sol = solver.solve(box)
        if sol.status is Status.INFEASIBLE:
            return
        if sol.status is not Status.OPTIMAL or not solver.exact:
            proven[0] = False
        if not sol.is_feasible:
            return
        x = np.bincount(owner, weights=sol.x, minlength=problem.n).astype(np.int64)
        heapq.heappush(heap, (-_exact_utility(problem, x), tuple(-x), next(order), x, lo, hi))

    def split(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        lo, hi = lo.copy(), hi.copy()
        for t in np.flatnonzero(lo < hi):
            v = x[t]
            if v > lo[t]:
                below = hi.copy()
                below[t] = v - 1
                push(lo.copy(), below)
            if v < hi[t]:
                above = lo.copy()
                above[t] = v + 1
                push(above, hi.copy())
            lo[t] = hi[t] = v  # the boxes after this one agree with x on agent t

    push(problem.lower_bounds(), problem.upper_bounds())
    groups: list[tuple[list[np.ndarray], bool]] = []
    listed = 0
    while heap and listed < k:
        lead = -heap[0][0]
        floor = _tie_floor(lead)
        group = []
        while heap and -heap[0][0] >= floor:  # every selection tied with the leader, then the tie rule
            entry = heapq.heappop(heap)
            group.append(entry)
            if len(group) > MAX_TIES:
                raise ValueError(f"more than {MAX_TIES} selections have utility {float(lead)!r} (within the tie "
                                 "tolerance); the tie rule cannot order them")
            split(entry[3], entry[4], entry[5])
        groups.append(([e[3] for e in sorted(group, key=lambda e: e[1])], proven[0]))
        listed += len(group)
    return _rows(problem, groups, k)


def _rows(problem: SubsetSelectionProblem, groups: list[tuple[list[np.ndarray], bool]], k: int) -> "pd.DataFrame":
    """The table of :func:`alternatives`: the first ``k`` selections of ``groups`` (each group in
    the tie order, with whether it is proven)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for xs, proven in groups:
        for x in xs[:k - len(rows)]:
            x.setflags(write=False)
            ev = problem.evaluate(x)
            rows.append(dict(rank=len(rows) + 1, objective=float(ev.utility), units=int(ev.units),
                             avg_quality=float(ev.avg_quality), agents=int(np.count_nonzero(x)),
                             status="optimal" if proven else "feasible", x=x))
    return pd.DataFrame(rows, columns=list(ALTERNATIVE_COLUMNS))
