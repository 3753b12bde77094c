"""An exact solver that scales: subset selection as a 0-1 knapsack.

Deva, Abhishek, Gujar, "A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS
2021, Section 3, define the problem; it is a knapsack in disguise.  Take S1 (and S4 at its lower
bound); *complement* S2: start with all its units taken, so removing a unit of agent ``j`` frees the
loss ``-r_j > 0`` and costs ``q_j - alpha`` of quality surplus; S3 units are items of weight
``alpha - q_i`` and value ``r_i``.  The capacity is the surplus of that starting selection,
``d + sum_{S2} k_j (q_j - alpha)``.  Agents with several units are bounded-knapsack items: their unit
counts are first confined to the range an optimal selection can use (:func:`_unit_ranges`), and the
rest of the range is split into binary pieces (1, 2, 4, ..., rest units), which represents every unit
count exactly with ``O(log k)`` items.  The 0-1 knapsack is solved exactly by a dynamic program over an
expanding core around the break item (Pisinger, Operations Research 45(5), 1997; Martello, Pisinger,
Toth, Management Science 45(3), 1999; :mod:`subsel.knapsack._knapsack`).

Longer than 600 lines on purpose: the reduction to the knapsack, the unit ranges and binary pieces
of several-unit agents, the final check in the model's exact integers and its repair, and the choice
between the compiled kernel and the numpy path are one chain of proofs behind every ``optimal`` of
``exact``; split, each part would be read without the invariants the next one relies on.
"""
from __future__ import annotations

import functools
import math
import time
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..knapsack import (
    DEFAULT_MEMORY_LIMIT_MB,
    JIT_MAX_N,
    KnapsackResult,
    check_options,
    relaxed_capacity,
    unit_selection,
)
from ..knapsack import binary_pieces as _binary_pieces
from ..knapsack import solve_core as solve_knapsack
from ..models import FEASIBILITY_TOL, MAX_EXACT_INT, OPTIMALITY_RTOL, SubsetSelectionProblem
from ..models._rules import dyadic, partition_masks, rounded_up
from .base import RawResult, Solution, Solver, Status

if TYPE_CHECKING:
    from ..models import IntegerKnapsack

#: How many times the capacity is tightened when a solution fails the final check (rounding).
_MAX_REPAIRS = 5

#: ``ndarray.sum`` of a 1-D array without its Python wrapper: the same pairwise sum, bit for bit.
_sum = np.add.reduce

#: Pieces up to which the exact-rule fallback enumerates every subset when its integers pass 2^53.
_EXACT_ENUMERATE = 16

#: Nodes of the compiled branch and bound before it hands over to the dynamic program.
_JIT_NODES = 20_000


def _tie_rule(problem: SubsetSelectionProblem, x: np.ndarray, memory: int | None,
              deadline: float | None = None) -> np.ndarray:
    """The optimal selection the rule among equal optima picks (:mod:`subsel.knapsack._ties`), given
    the optimal selection ``x`` of a problem with unit capacities and no must lists.

    The rule: the lexicographically greatest optimal ``x`` by agent index (agent 0 most significant,
    selected greater than not selected).  The knapsack of the reduction (Deva et al., AAMAS 2021,
    Section 3) has the S3 agents of ``r >= 0`` as items to add (preferred: added) and the S2 agents
    as items to remove (preferred: kept).  Ties are exact on data whose sums are exact and within
    the rounding of float sums otherwise; the answer is kept only when it passes the model's
    feasibility rule and its objective is not below that of ``x`` (else ``x`` is returned).  When
    ``deadline`` (a ``time.perf_counter()`` value) passes, or it or ``memory`` cuts a question of the
    rule short, it raises :class:`~subsel.knapsack._ties.RuleStopped`.
    """
    from ..knapsack import lex_greatest  # here: only the lexicographic option loads the rule's code

    r, margin = problem.utility, problem.quality_margin
    gain = r >= 0
    s2 = (margin > 0) & ~gain
    add = (margin < 0) & gain
    x0 = ((margin >= 0) & gain | s2).astype(np.int64)
    agents = np.flatnonzero(add | s2)
    if agents.size == 0:
        return x
    capacity = float((x0 * margin).sum()) + FEASIBILITY_TOL

    def solve(p: np.ndarray, w: np.ndarray, c: float, target: float) -> tuple[np.ndarray, bool]:
        res = solve_knapsack(p, w, c, deadline, memory, target=target)
        return res.take, res.optimal   # (undecided: the rule raises RuleStopped)

    y = lex_greatest(np.abs(r[agents]), np.abs(margin[agents]), capacity, x[agents] != x0[agents],
                     add[agents], solve, deadline=deadline)
    out = x0.copy()
    out[agents] ^= y
    if np.array_equal(out, x) or not problem.evaluate(out).feasible \
            or math.fsum((out * r).tolist()) < math.fsum((x * r).tolist()):
        return x
    return out


def _unit_ranges(value: np.ndarray, weight: np.ndarray, free: np.ndarray, capacity: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit counts an optimal selection can take of each bounded-knapsack item.

    Item ``i`` offers ``free[i]`` units of value ``value[i] > 0`` and weight ``weight[i] >= 0``
    against one capacity.  With the LP solution (efficiency order; break item ``b``, efficiency
    ``e_b``) as the reference, any selection ``y`` satisfies

        ``U - v.y >= e_b (c - w.y) + sum_{e_i > e_b} rc_i (k_i - y_i) + sum_{e_i < e_b} |rc_i| y_i``

    with the reduced costs ``rc_i = v_i - e_b w_i`` and the LP value ``U`` (the Lagrangian form of the
    Dantzig bound; Martello and Toth, *Knapsack Problems*, 1990, Section 2.2, the reduction of
    Dembo and Hammer applied to unit counts).  Every term is non-negative, so a selection at least as
    good as the greedy one (gap ``G = U - z``) moves an item with ``rc_i != 0`` by at most
    ``G / |rc_i|`` units and leaves a slack of at most ``G / e_b``.  The items whose range this does not
    cut (the break item and its ties in efficiency) share the weight that is left, which bounds each of
    them too.  The ranges therefore depend on ``G`` and the items, never on the capacity.

    Parameters
    ----------
    value, weight : ndarray of float, shape (m,)
        Per-unit value (``> 0``) and weight (``>= 0``).
    free : ndarray of int64, shape (m,)
        Units per item (``>= 1``).
    capacity : float
        ``c >= 0``.

    Returns
    -------
    (lo, hi, greedy) : three ndarrays of int64, shape (m,)
        ``lo <= y* <= hi`` for an optimal ``y*``; ``0 <= lo <= hi <= free``.  ``greedy`` is the
        greedy selection the ranges are measured against (items before the break item, the break
        item rounded down): the ranges hold only when it is feasible, which the caller checks by
        the model's exact rule (the float sums here may accept it a hair over the bound).
    """
    m = value.size
    kf = free.astype(float)
    lo = np.zeros(m, dtype=np.int64)
    hi = free.copy()
    with np.errstate(divide="ignore", over="ignore"):
        e = np.where(weight > 0, value / np.where(weight > 0, weight, 1.0), np.inf)
    order = np.argsort(-e, kind="stable")
    cum = np.cumsum((weight * kf)[order])
    pos = int(np.searchsorted(cum, capacity, side="right"))
    if pos == m:  # everything fits
        return free.copy(), free.copy(), free.copy()
    b = int(order[pos])
    left = order[:pos]
    w_before = float(cum[pos - 1]) if pos else 0.0
    v_before = float((value[left] * kf[left]).sum())
    f = min(max((capacity - w_before) / float(weight[b]), 0.0), float(free[b]))
    eb = float(value[b] / weight[b])
    greedy = np.zeros(m, dtype=np.int64)
    greedy[left] = free[left]
    greedy[b] = int(np.floor(f))
    U = v_before + f * float(value[b])
    # Gap to the greedy selection (break item rounded down), widened for the rounding of the sums.
    scale = abs(U) + eb * abs(capacity) + float(value.max())
    G = (f - np.floor(f)) * float(value[b]) * (1 + 1e-9) + 1e-14 * scale
    rc = value - eb * weight
    arc = np.abs(rc)
    with np.errstate(divide="ignore", over="ignore"):
        move = np.where(arc > 0, np.floor(G / np.where(arc > 0, arc, 1.0)), np.inf)
    move = np.minimum(move, kf).astype(np.int64)
    is_left = np.zeros(m, dtype=bool)
    is_left[left] = True
    is_left &= weight > 0
    is_right = ~is_left & (weight > 0)
    is_right[b] = False
    lo[is_left] = free[is_left] - move[is_left]
    hi[is_right] = move[is_right]
    zero = weight == 0  # free units of value: always all taken
    lo[zero] = free[zero]
    # The break item and its ties: bound each by the weight the other items leave.
    tie = (lo == 0) & (hi == free) & (free > 1) & (weight > 0)
    if tie.any():
        rest = ~tie
        # The quotients overflow to inf when the break efficiency or a tied weight is tiny
        # (subnormal values or weights): then A = -inf (no lower limit) and top = inf (no upper
        # limit but the item's units), which is what the bounds say; no warning.
        with np.errstate(over="ignore"):
            A = capacity - G / eb - float((weight[rest] * hi[rest]).sum())
            B = capacity - float((weight[rest] * lo[rest]).sum())
            wt, kt = weight[tie], kf[tie]
            others = float((wt * kt).sum()) - wt * kt
            top = np.floor(B / wt) + 1.0
            bottom = np.ceil((A - others) / wt) - 1.0
        hi[tie] = np.minimum(np.maximum(top, 0.0), kt).astype(np.int64)
        lo[tie] = np.minimum(np.maximum(bottom, 0.0), hi[tie]).astype(np.int64)
    return lo, hi, greedy


def _exact_rule_knapsack(problem: SubsetSelectionProblem, x0: np.ndarray, agents: np.ndarray,
                         sign: np.ndarray, free: np.ndarray, deadline: float | None, memory: int | None,
                         incumbent: np.ndarray | None = None) -> tuple[np.ndarray, Any] | None:
    """The reduced knapsack solved against the model's exact rule, when its weights allow.

    The rule (:func:`subsel.models._rules.linear_at_least`) compares the exact real sum
    ``sum_i x_i (q_i - alpha) >= -FEASIBILITY_TOL`` of the stored floats.  Every float is a dyadic
    rational, so the weights ``|q_i - alpha|`` and the capacity (the start's surplus plus the
    tolerance, rounded down) are integers on a common grid; divided by their common divisor, and
    when every sum of them stays below ``2**53``, float sums of them are exact and the knapsack
    decides the rule itself.  Used when the float sums of the margins and the rule disagree on a
    selection a hair from the bound (Deva et al., AAMAS 2021, Section 3, the reduction).  When the
    integers pass ``2**53``, up to 16 pieces are enumerated, and more are reduced by Lagrangian
    (Dantzig) bounds against the best known selection and solved by a Pareto dynamic program in
    Python integers (:func:`subsel.solvers._exact_rule.exact_knapsack`).

    Parameters
    ----------
    incumbent : ndarray of int64, shape (n,), optional
        A selection the rule accepts, of the same start ``x0`` and items (the best known); its
        value lets the integer search drop items and states that cannot beat it.

    Returns
    -------
    (x, result) or None
        The selection and the knapsack's answer; ``None`` when the integers do not fit or the
        integer search gave up (too many states, the memory limit or the deadline).
    """
    alpha = dyadic(problem.alpha)
    dq = [dyadic(v) - alpha for v in problem.quality.tolist()]
    start = sum(int(k) * dq[i] for i, k in zip(np.flatnonzero(x0).tolist(), x0[x0 != 0].tolist()))
    cap = start + dyadic(FEASIBILITY_TOL)
    if cap < 0:
        return None
    w_int = [abs(dq[i]) for i in agents.tolist()]
    g = functools.reduce(math.gcd, w_int, 0) or 1
    w_small = [v // g for v in w_int]
    total = sum(v * int(k) for v, k in zip(w_small, free.tolist()))
    owner, size = _binary_pieces(free.copy())
    values = np.abs(problem.utility[agents])[owner] * size
    if total < MAX_EXACT_INT:  # float sums of these integers are exact: the core dynamic program decides
        weights = np.array(w_small, dtype=float)[owner] * size
        res = solve_knapsack(values, weights, float(min(cap // g, MAX_EXACT_INT)), deadline, memory)
        take = res.take
    elif owner.size <= _EXACT_ENUMERATE:  # every subset, in exact integer sums
        subsets = (np.arange(1 << owner.size)[:, None] >> np.arange(owner.size)) & 1
        if total < 2 ** 62:  # int64 sums
            w64 = np.array(w_small, dtype=np.int64)[owner] * size
            fits = subsets @ w64 <= min(cap // g, 2 ** 62)
        else:  # Python integers (weights of very different magnitudes: 1 against 1e-176)
            w_py = [w_small[o] * s for o, s in zip(owner.tolist(), size.tolist())]
            fits = np.array([sum(w for w, t in zip(w_py, row) if t) <= cap // g for row in subsets.tolist()])
        worth = np.where(fits, subsets.astype(float) @ values, -np.inf)
        take = subsets[int(np.argmax(worth))] > 0
        value = float(values[take].sum())
        res = KnapsackResult(take, value, max(value, float(values.sum())), value, True, owner.size)
    else:  # reduction and a Pareto dynamic program, in Python integers
        best = -math.inf
        if incumbent is not None:
            moved = sign * (incumbent[agents] - x0[agents])
            if (moved >= 0).all() and (moved <= free).all():
                best = float((np.abs(problem.utility[agents]) * moved).sum())
        w_py = [w_small[o] * s for o, s in zip(owner.tolist(), size.tolist())]
        from ._exact_rule import exact_knapsack  # rare: only a hair from the rule's bound

        found = exact_knapsack(values, w_py, cap // g, best, deadline, memory)
        if found is None:
            return None
        take, value = found
        res = KnapsackResult(take, value, value, value, True, owner.size)
    units = np.bincount(owner[take], weights=size[take], minlength=agents.size).astype(np.int64)
    x = x0.copy()
    x[agents] += sign * units
    return x, res


class Exact(Solver):
    """Exact subset selection by reduction to a 0-1 knapsack and a core dynamic program.

    Deva, Abhishek, Gujar (AAMAS 2021), Section 3 (the problem); the knapsack is solved by the
    expanding-core dynamic program of Pisinger, "A minimal algorithm for the 0-1 knapsack problem",
    Operations Research 45(5), 1997, with the bounds of Martello, Pisinger and Toth, "Dynamic
    programming and strong bounds for the 0-1 knapsack problem", Management Science 45(3), 1999
    (:mod:`subsel.knapsack._knapsack`).

    The answer is optimal among the selections that pass ``problem.evaluate`` (quality surplus
    ``>= -FEASIBILITY_TOL``): the tolerance is added to the knapsack capacity once, the data are never
    rounded, and the final selection is checked.  Should the float sums accept a selection the rule
    refuses (a hair over its bound), the capacity is tightened and the knapsack solved again, the
    best selection the rule accepts among those seen (the start included) is kept, and ``optimal``
    is claimed only when proven: by the knapsack solved again in the rule's exact integer arithmetic
    (the stored floats are dyadic rationals; when their integers fit), or by reaching the first
    solve's optimum; otherwise the answer is ``feasible`` with the bound.  Ties in utility within
    floating-point rounding of the sums may resolve to either selection.  On integer data
    (``SubsetSelectionProblem.from_knapsack`` with its power-of-two scale) every sum is exact and so
    is the optimum.

    Agents with several units are bounded-knapsack items.  Their unit counts are first confined to the
    range an optimal selection can use (:func:`_unit_ranges`: reduced costs against the LP solution,
    and for the break agent the weight the others leave), so the work and memory depend on the agents
    and on that range, not on the capacities; the rest is split into binary pieces (1, 2, 4, ...).

    ``bound`` is the value of the LP relaxation (Dantzig bound) of the reduced knapsack, the
    certificate of the gap closed; after a time or memory limit it is the best proven bound (at most
    the LP value) and the status is ``time_limit``.

    Parameters
    ----------
    time_limit_s : float or None
        Stop after this many seconds with the best selection found (status ``time_limit``).
    threads, verbose
        Accepted for interface compatibility; the solver is single-threaded and silent.
    memory_limit_mb : float or None, default 1024
        Most memory (MiB) the dynamic program's state lists may take.  When the next step would pass
        it, the search stops with the best selection found, status ``time_limit`` and a proven bound,
        instead of growing further; ``None`` means no limit.
    jit : bool or None, default None
        Problems with unit capacities, no must lists and at most :data:`JIT_MAX_N` agents are solved
        by a compiled branch and bound (Horowitz and Sahni, J. ACM 21(2), 1974; part of the C
        extension built at install), which answers in microseconds where the dynamic program takes
        tens to a hundred.  ``None``: whenever ``lexicographic`` is on (its first optimum may differ
        from the dynamic program's; the rule makes them equal); ``True``: always; ``False``: never.
    lexicographic : bool, default False
        Opt-in: off by default because of its cost on tie-heavy knapsacks (below).  The rule among equal optima,
        on problems with unit capacities and no must lists: the
        lexicographically greatest optimal ``x`` by agent index (agent 0 first, selected greater
        than not), whichever path found an optimum, so the kernel and the numpy path return the same
        ``x``.  A fixed order on selections that does not depend on costs or qualities, so lowering
        an agent's cost never drops it from the answer (the monotone allocation of Myerson,
        "Optimal auction design", Mathematics of Operations Research 6(1), 1981).  Ties are decided
        exactly where the sums of the data are exact (integer knapsacks) and within the rounding of
        float sums otherwise.  Deciding it may cost many times the search on knapsacks where ties
        abound (strongly correlated classes); ``False`` skips it (the first optimum found is
        returned, and ``jit=None`` then means the numpy path only; the documentation's "Which
        optimal selection you get" lists every solver's choice among equal optima).  A
        ``time_limit_s`` covers deciding the rule too: stopped there, the call returns the optimum
        found with status ``time_limit`` (its objective optimal, its ``x`` perhaps not the rule's).

    Raises
    ------
    ValueError
        ``memory_limit_mb`` not a positive number (and as :class:`~subsel.solvers.base.Solver`).
    TypeError
        ``jit`` not a bool or None; ``lexicographic`` not a bool.

    Notes
    -----
    Cost ``O(n log n)`` for the partition and the efficiency sort plus ``O(|core| * |states|)`` for the
    dynamic program; worst case pseudo-polynomial / exponential in the core size (as every exact
    knapsack method), in practice a core of tens to hundreds of items on random instances.  Supports
    ``must_take`` and ``must_not_take`` (as bounds on ``x``) and the planner's ``min_units``,
    ``lot_size`` and ``fixed_cost`` (each agent a choice among its allowed counts, solved by
    a dynamic program over those counts).  A budget, a demand and group limits couple the agents by
    further rows: they are relaxed with Lagrange multipliers (Fisher, *Management Science* 27(1),
    1981), the best multipliers found as the duals of the linear program over the agents' convex
    hulls (Geoffrion, *Mathematical Programming Study* 2, 1974), agents fixed by their reduced costs
    against a plan rounded from that program, and the remaining core proven by HiGHS through the
    verified MILP pipeline (:mod:`subsel.solvers._planner_search`); the answer on a time limit
    carries the Lagrangian bound.
    Constraint objects (:class:`~subsel.models.LinearConstraint`,
    :class:`~subsel.models.QualityFloor`) are refused by name.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, get_solver
    >>> p = SubsetSelectionProblem(quality=[1.0, 0.98, 0.97], cost=[0.9999, 0.73, 0.07], alpha=0.99)
    >>> sol = get_solver("exact").solve(p)
    >>> sol.x.tolist(), sol.status.value
    ([1, 1, 0], 'optimal')
    """

    name = "exact"
    exact = True
    supports = frozenset({"must_take", "must_not_take", "min_units", "lot_size", "fixed_cost", "budget", "demand",
                          "group_limits"})
    #: The coupling rows (budget, demand, group limits) are solved exactly, in about HiGHS's time on
    #: the planner's instances (``benchmarks/bench_planner.py --coop``; its core is proven by HiGHS):
    #: the default solver is a MILP there.
    not_default_for = frozenset({"budget", "demand", "group_limits"})
    complexity = "O(n log n + core·states)"

    def __init__(self, time_limit_s: float | None = None, threads: int | None = None,
                 verbose: bool = False, memory_limit_mb: float | None = DEFAULT_MEMORY_LIMIT_MB,
                 jit: bool | None = None, lexicographic: bool = False):
        super().__init__(time_limit_s=time_limit_s, threads=threads, verbose=verbose)
        if jit is not None and not isinstance(jit, (bool, np.bool_)):
            raise TypeError(f"jit must be True, False or None; got {jit!r}")
        # The knapsack's own checks (the time limit is the solver interface's, checked above).
        _, self.memory_limit_mb = check_options(None, memory_limit_mb, lexicographic)
        self.lexicographic = bool(lexicographic)
        #: As given (None: the kernel when the rule among equal optima is on).
        self.jit = None if jit is None else bool(jit)

    def _repr_options(self) -> list[str]:
        opts = super()._repr_options()
        if self.memory_limit_mb != DEFAULT_MEMORY_LIMIT_MB:
            limit = self.memory_limit_mb
            opts.append(f"memory_limit_mb={'None' if limit is None else format(limit, 'g')}")
        if self.jit is not None:
            opts.append(f"jit={self.jit}")
        if self.lexicographic:
            opts.append("lexicographic=True")
        return opts

    def _use_kernel(self) -> bool:
        """Whether the compiled branch and bound may answer: asked for, or by default when the rule
        among equal optima makes its answers those of the dynamic program."""
        if self.jit is None:
            return self.lexicographic
        return self.jit

    def threshold_solver(self, problem: SubsetSelectionProblem) -> Callable[[float], Solution]:
        """A function that solves ``problem`` at any quality threshold, as :meth:`solve` does there.

        With one unit per agent and no must lists the work that does not depend on the threshold
        is done once and each ``solve_at(alpha)`` runs the partition and the knapsack of Deva et al.,
        AAMAS 2021, Section 3, only (:mod:`subsel.solvers._thresholds`); the answers are those of
        :meth:`solve`, bit for bit.  Otherwise each threshold is solved anew, as it is for a
        subclass that replaces ``solve`` or ``_solve`` (its own answers count).  Parameters, returns
        and errors as :meth:`Solver.threshold_solver`.
        """
        if isinstance(problem, SubsetSelectionProblem) and type(self).solve is Solver.solve \
                and type(self)._solve is Exact._solve:
            from ._thresholds import unit_threshold_solver

            fast = unit_threshold_solver(self, problem)
            if fast is not None:
                return fast
        return super().threshold_solver(problem)

    def exclusion_solver(self, problem: SubsetSelectionProblem) -> Callable[[int], Solution]:
        """A function that solves ``problem`` without agent ``i``, as :meth:`solve` does with ``i``
        added to the must-not-take list.

        With one unit per agent and no other extension the partition, the start and the items of
        Deva et al., AAMAS 2021, Section 3, are found once and each ``solve_without(i)`` runs the
        knapsack without ``i`` only (:mod:`subsel.solvers._without`); the answers are those of
        :meth:`solve`, bit for bit.  Otherwise each changed problem is solved anew, as it is for a
        subclass that replaces ``solve`` or its paths.  Parameters, returns and errors as
        :meth:`Solver.exclusion_solver`.
        """
        anew = super().exclusion_solver(problem)
        cls = type(self)
        if cls.solve is Solver.solve and cls._solve is Exact._solve and cls._solve_any is Exact._solve_any \
                and cls._solve_numpy is Exact._solve_numpy and cls._finish is Solver._finish:
            from ._without import unit_exclusion_solver

            fast = unit_exclusion_solver(self, problem, anew)
            if fast is not None:
                return fast
        return anew

    def _solve_integers(self, problem: SubsetSelectionProblem, rule: IntegerKnapsack) -> RawResult:
        from ._encoded import solve_encoded  # a knapsack beyond exact float64: solved in integers

        return solve_encoded(rule, self.time_limit_s, self.memory_limit_mb, self.lexicographic)

    def _solve_planner(self, problem: SubsetSelectionProblem) -> RawResult:
        if problem.budget is not None or problem.demand is not None or "group_limits" in problem.extensions:
            from ._planner_search import solve_planner  # coupling rows: Lagrangian bounds and a search

            return solve_planner(problem, self.time_limit_s)
        from ._choices import solve_choices  # minimum orders, lot sizes, fixed costs: choices per agent

        return solve_choices(problem, self.time_limit_s, self.memory_limit_mb)

    @staticmethod
    def starting_plan(problem: SubsetSelectionProblem, deadline: float | None
                      ) -> tuple[np.ndarray | None, float | None]:
        """A plan the rule accepts and a proven upper bound for a time-limited MILP or CP-SAT solve of
        a problem with coupling rows (:func:`subsel.solvers._planner_start.planner_start`, the
        Lagrangian heuristic of Fisher, *Management Science* 27(1), 1981, Section 5); ``deadline`` is
        a ``time.perf_counter()`` value.  The MILP pipeline asks the registry's ``exact`` for it."""
        from ._planner_start import planner_start  # only a time-limited planner's solve loads it

        return planner_start(problem, deadline)

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        start = time.perf_counter()
        if problem.budget is not None or problem.demand is not None:
            from ._planner_search import solve_planner  # coupling rows: Lagrangian bounds and a search

            return solve_planner(problem, self.time_limit_s)
        raw = self._solve_any(problem)
        if self.lexicographic and raw.status is Status.OPTIMAL and raw.x is not None and problem._max_capacity == 1 \
                and not problem.must_take.size and not problem.must_not_take.size:
            from ..knapsack import RuleStopped

            memory = None if self.memory_limit_mb is None else int(self.memory_limit_mb * 2 ** 20)
            deadline = None if self.time_limit_s is None else start + self.time_limit_s
            try:
                raw = raw._replace(x=_tie_rule(problem, np.asarray(raw.x, dtype=np.int64), memory, deadline))
            except RuleStopped:   # an optimum, but the rule among equal optima undecided: not its answer
                raw = raw._replace(status=Status.TIME_LIMIT)
        return raw

    def _solve_any(self, problem: SubsetSelectionProblem) -> RawResult:
        if problem.n <= JIT_MAX_N and self._use_kernel() and not problem.must_take.size \
                and not problem.must_not_take.size and problem._max_capacity == 1 \
                and (self.time_limit_s is None or self.time_limit_s >= 0.1):
            quick = self._solve_compiled(problem, unit_selection)
            if quick is not None:
                return quick
        return self._solve_numpy(problem)

    @staticmethod
    def _solve_compiled(problem: SubsetSelectionProblem, kernel: Any) -> RawResult | None:
        """The compiled branch and bound; ``None`` when it gave up (the numpy path then runs)."""
        margin, r = problem.quality_margin, problem.utility
        x, done, bound, _ = kernel(margin, r, FEASIBILITY_TOL, 0.0, _JIT_NODES)
        if not done:
            return None
        # done == 1: clear of the bound by more than the float sum's rounding (checked in the
        # kernel; Solver.solve checks the answer again by the exact rule).  Else decide here.
        if done == 1 or problem.evaluate(x).feasible:
            # The kernel's bound is a float sum of at most 2n terms of |r|: round it up.
            bound = rounded_up(bound, float(np.abs(r).sum()), 2 * r.size)
            return RawResult(x, Status.OPTIMAL, max(bound, float(x.astype(float).dot(r))))
        # The float sums accepted a selection the exact rule refuses (a hair over its bound): the
        # numpy path searches again and keeps the best selection the rule accepts.
        return None

    def _solve_numpy(self, problem: SubsetSelectionProblem) -> RawResult:
        start = time.perf_counter()
        deadline = None if self.time_limit_s is None else start + self.time_limit_s
        memory = None if self.memory_limit_mb is None else int(self.memory_limit_mb * 2 ** 20)
        r, margin = problem.utility, problem.quality_margin
        if problem._max_capacity == 1 and not problem.must_take.size and not problem.must_not_take.size:
            # Unit capacities, no must lists: the same start and items as below, from the masks of
            # the partition (S1 and S2 taken; S3 agents with r > 0 to add, S2 agents to remove).
            s1, s2, s3, _ = partition_masks(problem.quality, r, problem.alpha)
            x0 = (s1 | s2).astype(np.int64)
            add, remove = np.flatnonzero(s3 & (r > 0)), np.flatnonzero(s2)
            agents = np.concatenate((add, remove))
            sign = np.ones(agents.size, dtype=np.int64)
            sign[add.size:] = -1
            free: np.ndarray | None = None  # one unit each (made only for the exact-rule search)
            surplus0 = float(_sum(x0 * margin))
            multi = False  # one unit per agent
        else:
            S1, S2, S3, S4 = problem.partition()
            lb, ub = problem.lower_bounds(), problem.upper_bounds()
            # Starting selection: the largest surplus there is (S1, S2 at ub; S3, S4 at lb).
            x0 = lb.copy()
            x0[S1] = ub[S1]
            x0[S2] = ub[S2]
            # Elementwise products and sums, not BLAS dot products: a multi-threaded BLAS is slow on
            # a busy machine; the final check below uses the model's own quality_surplus.
            surplus0 = float((x0 * margin).sum())
            if surplus0 < -FEASIBILITY_TOL:
                return RawResult(None, Status.INFEASIBLE)
            # Items: S3 units to add (value r, weight alpha - q), S2 units to remove (value -r,
            # weight q - alpha); agents with zero value never help and are left at their start.
            agents = np.concatenate((S3, S2))
            sign = np.concatenate((np.ones(S3.size, dtype=np.int64), -np.ones(S2.size, dtype=np.int64)))
            free = ub[agents] - lb[agents]
            useful = (free > 0) & (r[agents] != 0)
            agents, sign, free = agents[useful], sign[useful], free[useful]
            multi = bool(free.size and free.max() > 1)
        x0r = x0 * r  # the start's utilities (its value, its candidacy below and the bound's magnitude)
        unit_value = np.abs(r[agents])
        unit_weight = np.abs(margin[agents])
        capacity = surplus0 + FEASIBILITY_TOL
        greedy_x: np.ndarray | None = None  # the selection the unit ranges are measured against
        if multi and free is not None:   # (several units: only the general path sets free)
            # Bounded-knapsack items.  Agents that are the same item (same unit value and weight, of
            # either sign) form one item with the units of all; an answer is spread back over them.
            order = np.lexsort((unit_weight, unit_value))
            uv, uw, free_sorted = unit_value[order], unit_weight[order], free[order]
            first = np.ones(order.size, dtype=bool)
            first[1:] = (uv[1:] != uv[:-1]) | (uw[1:] != uw[:-1])
            starts = np.flatnonzero(first)
            group = np.cumsum(first) - 1
            g_value, g_weight = uv[starts], uw[starts]
            g_free = np.add.reduceat(free_sorted, starts)
            cum = np.cumsum(free_sorted)
            before = cum - free_sorted - (cum - free_sorted)[starts][group]   # units of earlier members

            def spread(units: np.ndarray) -> np.ndarray:
                """Units per agent (in ``agents`` order) for ``units`` per item (group)."""
                out = np.empty(order.size, dtype=np.int64)
                out[order] = np.clip(units[group] - before, 0, free_sorted)
                return out

            # Fix the units every optimal selection takes, keep the range.
            fixed, top, greedy = _unit_ranges(g_value, g_weight, g_free, capacity)
            x1 = x0.copy()
            x1[agents] += sign * spread(fixed)
            capacity1 = float(problem.quality_surplus(x1)) + FEASIBILITY_TOL
            xg = x0.copy()
            xg[agents] += sign * spread(greedy)
            # The fixed units fit (rounding of sums of ~10^12 units aside) and the greedy selection
            # they are measured against passes the exact rule; else keep the full ranges.
            if capacity1 >= 0 and problem.evaluate(xg).feasible:
                greedy_x = xg
                g_fixed, capacity, g_left = fixed, capacity1, top - fixed
            else:
                g_fixed, g_left = np.zeros_like(g_free), g_free
                capacity1 = -1.0
            items = np.flatnonzero(g_left > 0)
            owner, size = _binary_pieces(g_left[items])
            values = g_value[items][owner] * size
            weights = g_weight[items][owner] * size
            base = float((x1 * r).sum()) if capacity1 >= 0 else float(x0r.sum())
        else:  # one unit per agent (the common case): the items are the agents
            values, weights = unit_value, unit_weight
            base = float(_sum(x0r))
        capacity = relaxed_capacity(capacity, x0, margin, weights)
        first_solve: Any = None  # (result, base, values) of the first solve: the bound and the optimum it proves
        x = x0
        repaired = False
        for _ in range(_MAX_REPAIRS):
            res = solve_knapsack(values, weights, capacity, deadline, memory)
            if first_solve is None:
                first_solve = (res, base, values)
            x = x0.copy()
            if multi:
                units = g_fixed.copy()
                units[items] += np.bincount(owner[res.take], weights=size[res.take],
                                            minlength=items.size).astype(np.int64)
                x[agents] += sign * spread(units)
            else:
                x[agents] += sign * res.take
            slack = float(problem.quality_surplus(x)) + FEASIBILITY_TOL
            if slack >= 0 and problem.evaluate(x).feasible:
                break
            # The float sums accepted a selection the exact rule refuses (a hair over its bound):
            # tighten the capacity and solve again.  The unit ranges were derived at the capacity
            # the rule disagrees with, so they are dropped first (they may cut the true optimum).
            repaired = True
            slack = min(slack, -1e-15 * max(1.0, abs(capacity)))
            if multi and g_fixed.any():
                g_fixed, g_left = np.zeros_like(g_free), g_free
                items = np.flatnonzero(g_left > 0)
                owner, size = _binary_pieces(g_left[items])
                values = g_value[items][owner] * size
                weights = g_weight[items][owner] * size
                base = float(x0r.sum())
                capacity = surplus0 + FEASIBILITY_TOL
            capacity += slack - 1e-15 * max(1.0, abs(capacity))
        else:
            x = None
        # Keep the best selection the exact rule accepts among those seen (the start included): the
        # first of the largest utility, as max() over the accepted ones; the rule is asked only about
        # a candidate that would beat the best so far (the loop's answer already passed it).
        found = x
        best: np.ndarray | None = None
        best_value = -math.inf
        xr = x0r
        if x is not None and not multi and not repaired:
            # One unit per agent, first answer accepted: each item taken adds its |r_i| > 0 to the
            # start's utility, so the exact utility of x is at least the start's and the exactly
            # rounded sums below would keep x (monotone rounding; x * r is exact for 0/1 units).
            best, xr = x, x * r
        for c in () if best is not None else (x, x0, greedy_x):
            if c is None:
                continue
            cr = x0r if c is x0 else c * r
            value = math.fsum(cr.tolist())
            if (best is None or value > best_value) and (c is found or problem.evaluate(c).feasible):
                best, best_value, xr = c, value, cr
        if best is None:
            # The start has the largest quality surplus of all selections (every agent above alpha
            # at its upper bound, every other at its lower bound), so when the exact rule refuses it
            # (its float surplus passed by a hair) the rule refuses every selection: infeasible.
            return RawResult(None, Status.INFEASIBLE)
        x = best
        # A candidate better than the knapsack's answer means the float sums lost a selection.
        repaired = repaired or x is not found
        res0, base0, values0 = first_solve
        if repaired and res0.optimal:
            # Search again with the rule's exact arithmetic (when its integers fit).
            units = np.ones(agents.size, dtype=np.int64) if free is None else free
            again = _exact_rule_knapsack(problem, x0, agents, sign, units, deadline, memory, x)
            if again is not None and again[1].optimal and problem.evaluate(again[0]).feasible:
                xe = again[0]
                xer = xe * r
                if math.fsum(xer.tolist()) >= best_value:
                    x, xr = xe, xer
                # The exact search's optimum bounds every selection the rule accepts (up to the
                # rounding of float value sums): the kept answer, at least as good, is optimal.
                repaired = False
        objective = float(_sum(xr))
        # The bound is a float sum of the start's utilities and of the knapsack's values: rounded
        # up by the most that rounding can lose, it is a true upper bound (Solver.solve also keeps
        # it at least the objective).
        magnitude = float(_sum(np.abs(x0r))) + float(_sum(np.abs(xr))) + float(_sum(values0))
        terms = 2 * (r.size + values0.size)
        if not res0.optimal:
            return RawResult(x, Status.TIME_LIMIT, max(rounded_up(base0 + res0.bound, magnitude, terms), objective))
        bound = max(rounded_up(base0 + res0.lp_bound, magnitude, terms), objective)
        # Optimal is a promise: the first solve's optimum bounds every selection the rule accepts;
        # after a repair, the answer is optimal only when it reaches that optimum.
        if repaired:
            proven = rounded_up(base0 + res0.value, magnitude, terms)
            if objective < proven - OPTIMALITY_RTOL * max(1.0, abs(proven)):
                return RawResult(x, Status.FEASIBLE, bound)
        return RawResult(x, Status.OPTIMAL, bound)
