"""Why a problem is infeasible: a smallest conflicting set of constraints and the nearest change.

When no selection satisfies a problem's constraints, a solver's answer says so
(:attr:`Solution.status` ``infeasible``); :func:`explain_infeasible` says why.  It finds an
*irreducible* infeasible set of the problem's constraint families by the deletion filter of
Chinneck and Dravnieks (*ORSA Journal on Computing* 3(2), 1991, Section 3): each family is dropped
in turn and kept out when the rest is still infeasible, so that what remains is infeasible while
dropping any one of its members makes it feasible.  The families are the quality row (Deva,
Abhishek, Gujar, AAMAS 2021, Section 3), the budget, the demand, the must-take and must-not-take
lists, the planner's minimum orders, lot sizes and group limits (one family per group), and each
constraint object (:mod:`subsel.models.constraints`) by its name.

Each feasibility question is answered as one (:mod:`subsel.solvers._feasibility`): an aggregate
bound first (total units under the group caps against the demand, the least spend against the
budget, the best quality surplus), then the selections found so far and two greedy ones, then one
MILP with a zero objective, whose first selection ends the search; a selection counts only when the
one feasibility rule accepts it, and an infeasibility only when proven.  Families are dropped in
blocks (after a drop, twice as many at once; a block whose rest is feasible is halved, as in
Junker's QuickXplain, AAAI 2004): near a boundary, a budget a cent below the least spend, each
proof that families can go is as hard as the verdict, and a block takes one proof for all its
families.  The set found is the one the filter finds a family at a time (a block goes only when
the rest without it is infeasible, and then each of its families would go in turn).

Where one number decides, it also gives the nearest change, computed on the whole problem (the
constraints outside the conflict kept) by one optimisation each and verified before it is advised:
with a demand in the set, the largest demand that can be met ("lower the demand to U", one
maximisation of the units); with a budget, the least budget ("raise the budget to B", one
minimisation of the spend, rounded up); with the quality row and no demand to lower, the largest
threshold ("lower the average quality to a", Dinkelbach's method).  A time limit bounds all of it,
and without one the explanation's default time budget (:func:`explain_time`, a few times the
verdict's time): the members not decided in time stay in the set and are named, and an advice cut
short is the best verified one with its proven bound.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from .._text import exact_text
from ..models import SubsetSelectionProblem
from . import _feasibility
from ._feasibility import Questions

__all__ = ["Conflict", "Questions", "advice_time", "constraint_families", "explain_infeasible", "explain_time",
           "without_constraints"]


@dataclass(frozen=True)
class Conflict:
    """A smallest set of constraints that no selection satisfies together.

    Attributes
    ----------
    constraints : tuple of str
        The members: ``quality``, ``budget``, ``demand``, ``must_take``, ``must_not_take``,
        ``min_units``, ``lot_size``, ``group_limits:<group>`` and the names of the problem's
        constraint objects (:mod:`subsel.models.constraints`, each dropped whole).  Dropping any one of them, together
        with every constraint outside the set, makes the problem feasible (an irreducible
        infeasible set); with those others kept the problem may stay infeasible (another conflict
        among them).  The members in :attr:`undecided` are the exception.
    max_units : int or None
        With ``demand`` in the set: the largest demand below the given one that the problem meets
        with every other constraint kept (verified: a selection with that many units passes the
        feasibility rule), else None.
    min_budget : float or None
        With ``budget`` in the set: the least budget (the least spend ``sum c x + sum f [x > 0]``
        that meets every other constraint, rounded up to 6 significant digits and verified), else
        None.
    max_alpha : float or None
        With ``quality`` in the set (and no demand to lower instead): the largest threshold, rounded
        down to 6 decimals, at which the problem has a selection with every other
        constraint kept (verified), else None.
    undecided : tuple of str
        Members kept because the time limit (or the explanation's default time budget, see
        :func:`explain_time`) ran out before their question was decided: the set is
        infeasible, but dropping one of these may leave it infeasible.  Empty when every member is
        proven.
    unproven : tuple of str
        Advice (``max_units``, ``min_budget``, ``max_alpha``) that is verified but not proven the
        nearest (a time limit cut its optimisation short).
    units_bound : int or None
        With ``max_units`` unproven: no selection meets more units than this (proven), else None.
    budget_bound : float or None
        With ``min_budget`` unproven: no selection spends less than this (proven), else None.
    """

    constraints: tuple[str, ...]
    max_units: int | None = None
    min_budget: float | None = None
    max_alpha: float | None = None
    undecided: tuple[str, ...] = ()
    unproven: tuple[str, ...] = ()
    units_bound: int | None = None
    budget_bound: float | None = None

    @property
    def proven(self) -> tuple[str, ...]:
        """The members proven necessary (dropping one makes the set feasible)."""
        return tuple(c for c in self.constraints if c not in self.undecided)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view: ``constraints``, ``max_units``, ``min_budget``, ``max_alpha``,
        ``undecided``, ``unproven``, ``units_bound``, ``budget_bound``."""
        return {"constraints": list(self.constraints), "max_units": self.max_units,
                "min_budget": self.min_budget, "max_alpha": self.max_alpha,
                "undecided": list(self.undecided), "unproven": list(self.unproven),
                "units_bound": self.units_bound, "budget_bound": self.budget_bound}


def constraint_families(problem: SubsetSelectionProblem) -> list[str]:
    """The constraint families in force in ``problem``, by the names :class:`Conflict` uses.

    Parameters
    ----------
    problem : SubsetSelectionProblem

    Returns
    -------
    list of str
        ``quality`` first (always in force), then those of ``budget``, ``demand``, ``must_take``,
        ``must_not_take``, ``min_units``, ``lot_size`` in use, then ``group_limits:<group>`` per
        limited group, in the problem's order (the families of the deletion filter of Chinneck and
        Dravnieks, *ORSA Journal on Computing* 3(2), 1991, Section 3).
    """
    # Every constraint object in force by its name, dropped whole (Constraint.drop); the minimum
    # orders and lot sizes, per-agent domains, after the keywords' sums and lists.
    objects = problem.constraints
    out = ["quality"] + [c.name for c in objects if c.stage != 1]
    ext = problem.extensions
    out += [name for name in ("min_units", "lot_size") if name in ext]
    out += [c.name for c in objects if c.stage == 1]
    return out


def without_constraints(problem: SubsetSelectionProblem, dropped: set[str]) -> SubsetSelectionProblem:
    """``problem`` with the constraint families in ``dropped`` removed, every other field kept.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    dropped : set of str
        Names of :func:`constraint_families`; dropping ``quality`` sets the threshold to 0.

    Returns
    -------
    SubsetSelectionProblem
        ``problem`` itself when ``dropped`` names nothing in force.
    """
    changes: dict[str, Any] = {}
    if "quality" in dropped:
        changes["alpha"] = 0.0
    for name in ("min_units", "lot_size"):
        if name in dropped:
            changes[name] = None
    for c in problem.constraints:
        if c.name in dropped:
            c.drop(changes, problem)
    return problem.with_changes(**changes) if changes else problem


def explain_infeasible(problem: SubsetSelectionProblem, questions: Questions,
                       advice_time_s: float | None = None, *,
                       default_budget_s: float | None = None) -> tuple[str, Conflict]:
    """Explain why ``problem`` is infeasible: a text and a :class:`Conflict`.

    The conflict is found by the deletion filter of Chinneck and Dravnieks (*ORSA Journal on
    Computing* 3(2), 1991, Section 3), each question answered as a feasibility question by
    ``questions`` (:class:`~subsel.solvers._feasibility.Questions`: aggregate bounds first, then
    the selections found so far, then one MILP with a feasibility objective).  The nearest change
    is computed on the whole problem (every constraint outside the conflict kept) by one
    optimisation each and verified before it is advised: the largest demand (one maximisation of
    the units), the least budget (one minimisation of the spend, rounded up to six significant
    digits) and the largest threshold (the largest average quality, by Dinkelbach's method,
    *Management Science* 13(7), 1967: a few maximisations of ``sum (q_i - a) x_i``).  A change
    that cannot be verified is not advised: the text then says only what conflicts.  When the
    deadline of ``questions`` passes, the members not yet decided stay in the set (it stays
    infeasible) and are named, and the advice found so far is given.  The filter drops families in
    blocks (see the module's docstring); under a default time budget (``advice_time_s``) each of
    its questions may take half the filter's time left, so that one hard proof leaves time for the
    others.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        An infeasible problem.
    questions : Questions
        Answers feasibility questions and optimisations about parts of ``problem``.
    advice_time_s : float, optional
        Seconds each nearest change may take, and twice that the deletion filter (all within the
        deadline of ``questions``); when they run out, the members not decided are named and the
        advice is the best verified so far, with its proven bound.
    default_budget_s : float, optional
        The explanation's default time budget (seconds) when it set the deadline of ``questions``
        (no time limit was given, see :func:`explain_time`): the text then names it, and how to
        raise it, where it cut a question short.  None: the deadline is a time limit given.

    Returns
    -------
    (str, Conflict)
        E.g. ``"demand 50 cannot be met: at most 42 units reach average quality 0.8 within budget
        100 (lower the demand to 42 or raise the budget to 131)"``.
    """
    members = constraint_families(problem)
    dropped: set[str] = set()
    undecided: list[str] = []
    deadline = questions.deadline
    _share(questions, deadline, None if advice_time_s is None else 2 * advice_time_s)  # the filter
    end, pending, size = questions.deadline, list(members), 1
    while pending:  # the deletion filter, over blocks of families
        block = pending[:size]
        if advice_time_s is not None and end is not None:  # one question: half the filter's time left
            now = time.perf_counter()
            questions.deadline = now + max(end - now, 0.0) / 2
        answer = questions.feasible(without_constraints(problem, dropped | set(block)))
        if answer is False:  # the whole block goes: one proof where one per member was asked
            dropped.update(block)
            del pending[:len(block)]
            size *= 2
        elif len(block) > 1:  # some member is needed (or undecided): smaller blocks
            size = len(block) // 2
        else:
            if answer is None:
                undecided.append(block[0])
            del pending[0]
    kept = tuple(f for f in members if f not in dropped)
    if not kept:  # pragma: no cover - the whole problem is infeasible, so the last member stays
        kept, dropped = tuple(members), set()
    advice = _Advice()
    for member, search in (("demand", _largest_demand), ("budget", _smallest_budget), ("quality", _largest_alpha)):
        if member not in kept or (member == "quality" and advice.max_units):
            continue
        _share(questions, deadline, advice_time_s)  # each nearest change within its own part
        search(problem, questions, advice)
    questions.deadline = deadline
    conflict = Conflict(kept, advice.max_units, advice.min_budget, advice.max_alpha, tuple(undecided),
                        tuple(advice.unproven), advice.units_bound, advice.budget_bound)
    return _conflict_text(problem, conflict) + _time_text(problem, conflict, default_budget_s), conflict


def _share(questions: Questions, deadline: float | None, part_s: float | None) -> None:
    """Set the deadline of ``questions`` to ``part_s`` seconds from now, within ``deadline``."""
    if part_s is None:
        questions.deadline = deadline
        return
    cap = time.perf_counter() + part_s
    questions.deadline = cap if deadline is None else min(deadline, cap)


class _Advice:
    """The nearest changes found so far, and which are not proven the nearest."""

    def __init__(self) -> None:
        self.max_units: int | None = None
        self.min_budget: float | None = None
        self.max_alpha: float | None = None
        self.units_bound: int | None = None
        self.budget_bound: float | None = None
        self.unproven: list[str] = []


def _largest_demand(problem: SubsetSelectionProblem, questions: Questions, advice: _Advice) -> None:
    """The largest demand ``U < D`` under which ``problem`` (all else kept) has a selection: first
    the aggregate bound on the units (:func:`~subsel.solvers._feasibility.unit_bound`) and greedy
    selections aimed at it, then, where they leave a gap, one maximisation of the units on the
    loosened model (its bound holds for every selection the rule accepts), its selection checked
    by the rule; a search over the integers between what is verified and what is proven where the
    maximisation leaves a gap.  None when no demand is met."""
    base = problem.with_changes(demand=None)
    if not isinstance(questions.witness(base), np.ndarray):
        return
    D = int(problem.demand or 0)
    lo, hi = 0, D  # a demand of lo is met (0: no demand), hi is not

    def verified(candidates: Iterable[np.ndarray | None]) -> int:
        best = lo
        for w in candidates:
            if w is not None and base.evaluate(w).feasible:
                questions.keep(w)
                best = max(best, min(int(w.sum()), D - 1))
        return best

    cheap = _feasibility.unit_bound(base)
    if cheap is not None:
        hi = min(hi, cheap + 1)
    lo = verified([*_feasibility.greedy_witnesses(base, want=hi - 1), *questions.witnesses])
    if hi - lo > 1:
        x, bound, _ = questions.optimum(base, np.ones(problem.n), loose=True)
        lo = verified([x])
        if bound is not None and math.isfinite(bound):
            hi = min(hi, max(int(math.floor(bound + 1e-6)), 0) + 1)
    first = True
    while hi - lo > 1:
        mid = hi - 1 if first else (lo + hi) // 2  # first the common case: the bound is met
        first = False
        found = questions.witness(problem.with_changes(demand=mid))
        if found is None:
            advice.unproven.append("max_units")
            advice.units_bound = hi - 1
            break
        if found is False:
            hi = mid
        else:
            lo = max(mid, min(int(found.sum()), hi - 1))
    advice.max_units = lo


#: Seconds each nearest change may take when no time limit is set, at least and at most: 0.3 ms per
#: agent, or as long as the verdict took when longer, and at least 25/n
#: seconds up to the least (a small problem proves its advice in milliseconds, even on a loaded
#: machine; on 500 agents the explanation of a verdict reached in a fraction of a second takes
#: about as long again).  The advice is then the best verified within that time, with its proven
#: bound.
ADVICE_TIME_S = (0.5, 10.0)


def advice_time(n: int, verdict_s: float) -> float:
    """Seconds each nearest change may take without a time limit (see :data:`ADVICE_TIME_S`)."""
    low, high = ADVICE_TIME_S
    return min(max(min(low, 25.0 / max(n, 1)), 3e-4 * n, verdict_s), high)


def explain_time(n: int, verdict_s: float) -> float:
    """The explanation's default time budget in seconds, when no time limit is given: four times
    :func:`advice_time` (the deletion filter may take twice that, each nearest change once, all
    within the budget), so at most 40 s.  Near a boundary (a budget within a cent of the least
    spend) each question of the filter is a proof as hard as the verdict's; what the budget leaves
    undecided is named, never waited for."""
    return 4 * advice_time(n, verdict_s)


#: Budgets tried above the least spend reported (each rounded up to 6 significant digits).
_BUDGET_STEPS = (0.0, 1e-6, 1e-4)


def _smallest_budget(problem: SubsetSelectionProblem, questions: Questions, advice: _Advice) -> None:
    """The least budget, rounded up to 6 significant digits, under which ``problem`` (all else
    kept) has a selection: the least spend, bounded below by the aggregate bound
    (:func:`~subsel.solvers._feasibility.spend_bound`) and above by the greedy selections; where
    their roundings differ, one minimisation of the spend (Aissaoui et al., *Computers & OR* 34,
    2007, Section 4: spend with fixed order costs), warm-started with the cheapest selection
    known.  The advice is the cheapest verified spend rounded up, proven when the proven lower
    bound rounds up to the same budget; a budget verified by a selection the rule accepts.  None
    when no budget could be verified."""
    unlimited = problem.with_changes(budget=None)
    if not isinstance(questions.witness(unlimited), np.ndarray):
        return
    row = np.asarray(problem.cost, dtype=float)
    fixed = np.asarray(problem.fixed_cost, dtype=float)

    def spend(w: np.ndarray) -> float:
        return math.fsum((row * w).tolist()) + math.fsum(fixed[w > 0].tolist())

    def cheapest(candidates: Iterable[np.ndarray | None]) -> np.ndarray | None:
        ok = [w for w in candidates if w is not None and unlimited.evaluate(w).feasible]
        for w in ok:
            questions.keep(w)
        return min(ok, key=spend, default=None)

    lower = _feasibility.spend_bound(unlimited) or 0.0
    x = cheapest([*_feasibility.greedy_witnesses(unlimited), *questions.witnesses])
    proven = x is not None and _up(lower) == _up(spend(x))
    if not proven:
        y, bound, done = questions.optimum(unlimited, -row, fixed)
        if bound is not None and math.isfinite(bound):
            lower = max(lower, -bound)
        x = cheapest([y, x])
        # The optimum proves the least spend only when the rule accepts it (the model's tolerance can
        # accept a selection a hair below the threshold that the rule refuses).
        proven = x is not None and ((done and x is y) or _up(lower) == _up(spend(x)))
    if x is None:
        return
    least = spend(x)
    if not proven:
        advice.unproven.append("min_budget")
        advice.budget_bound = lower
    for step in _BUDGET_STEPS:
        budget = float(_up(least * (1.0 + step) + step * 1e-9))
        changed = problem.with_changes(budget=budget)
        if changed.evaluate(x).feasible:
            advice.min_budget = budget
            return
        found = questions.witness(changed)
        if isinstance(found, np.ndarray):
            advice.min_budget = budget
            return
        if found is None:
            break
    if "min_budget" in advice.unproven:
        advice.unproven.remove("min_budget")
        advice.budget_bound = None


#: Most maximisations of Dinkelbach's method for the largest threshold.
_DINKELBACH_STEPS = 12


def _largest_alpha(problem: SubsetSelectionProblem, questions: Questions, advice: _Advice) -> None:
    """The largest threshold, rounded down to 6 decimals, at which ``problem`` (all else
    kept) has a selection: the largest average quality ``max sum q x / sum x`` by Dinkelbach's
    method (each step one maximisation of ``sum (q_i - a) x_i`` at the average ``a`` of the last
    selection, from the best average of the selections known and the greedy ones; it stops when
    no selection beats ``a``), verified by a selection the rule accepts at
    the advised threshold.  None when none could be verified."""
    base = problem.with_changes(alpha=0.0)
    x = questions.witness(base)
    if not isinstance(x, np.ndarray) or not x.any():
        return
    q = np.asarray(problem.quality, dtype=float)
    best = x

    def average(v: np.ndarray) -> float:
        return math.fsum((q * v).tolist()) / float(v.sum())

    for w in [*_feasibility.greedy_witnesses(base), *questions.witnesses]:  # the best start known
        if w.shape == best.shape and w.any() and average(w) > average(best) and base.evaluate(w).feasible:
            best = w
    a = average(best)
    proven = False
    quick = True  # first the LP roundings, then the whole MILP to prove the last step
    for _ in range(_DINKELBACH_STEPS):
        y, bound, done = questions.optimum(base, q - a, quick=quick)
        if y is not None and y.any() and base.evaluate(y).feasible and average(y) > a:
            best, a = y, average(y)
            continue
        if quick:
            quick = False
            continue
        proven = done and bound is not None and bound <= 1e-9 * max(1.0, float(best.sum()))
        break
    advised = _down(a)
    if advised >= problem.alpha or not problem.with_changes(alpha=advised).evaluate(best).feasible:
        return
    advice.max_alpha = advised
    if not proven:
        advice.unproven.append("max_alpha")


def _describe(problem: SubsetSelectionProblem, name: str) -> str:
    if name == "quality":
        return f"average quality {exact_text(problem.alpha)}"
    if name in ("min_units", "lot_size"):
        return {"min_units": "the minimum orders", "lot_size": "the lot sizes"}[name]
    return next(c.describe() for c in problem.constraints if c.name == name)


def _fixes(problem: SubsetSelectionProblem, c: Conflict) -> list[str]:
    """The advised changes, in words."""
    fixes = []
    if c.max_units is not None and "demand" in c.constraints:
        fixes.append(f"lower the demand to {c.max_units}")
    if c.min_budget is not None:
        fixes.append(f"raise the budget to {exact_text(c.min_budget)}")
    if c.max_alpha is not None:
        fixes.append(f"lower the average quality to {exact_text(c.max_alpha)}")
    return fixes


def _conflict_text(problem: SubsetSelectionProblem, c: Conflict) -> str:
    parts = [_describe(problem, f) for f in c.constraints]
    fixes = _fixes(problem, c)
    if "demand" in c.constraints and c.max_units is not None:
        others = [_describe(problem, f) for f in c.constraints if f != "demand"]
        # The advised numbers hold with every constraint of the problem kept: say so when some
        # of them are outside the conflict.
        outside = [f for f in constraint_families(problem) if f not in c.constraints]
        tail = " and the problem's other constraints" if outside else ""
        where = ""
        if others:
            where = " under " + ", ".join(others) + tail
        elif tail:
            where = " under the problem's other constraints"
        if "quality" in c.constraints and "budget" in c.constraints:
            rest = [_describe(problem, f) for f in c.constraints if f not in ("demand", "quality", "budget")]
            budget = exact_text(float(problem.budget or 0))
            where = (f" reach average quality {exact_text(problem.alpha)} within budget {budget}"
                     + (" under " + ", ".join(rest) + tail if rest else tail))
        one = c.max_units == 1
        verb = "reach" if where.startswith(" reach") else ("is allowed" if one else "are allowed")
        unit = "unit" if one else "units"
        if verb == "reach" and one:
            where = " reaches" + where[len(" reach"):]
        most = c.max_units if c.units_bound is None else c.units_bound
        if most != c.max_units:
            one = most == 1
            unit = "unit" if one else "units"
            verb = verb if verb == "reach" else ("is allowed" if one else "are allowed")
        body = (f"at most {most} {unit}{where}" if verb == "reach"
                else f"at most {most} {unit} {verb}{where}")
        return f"demand {problem.demand} cannot be met: {body} ({' or '.join(fixes)})"
    fix = f" ({' or '.join(fixes)})" if fixes else ""
    if len(parts) == 1:
        return f"{parts[0]} cannot be met on its own{fix}"
    return "no selection meets " + ", ".join(parts[:-1]) + " and " + parts[-1] + " together" + fix


def _time_text(problem: SubsetSelectionProblem, c: Conflict, default_s: float | None = None) -> str:
    """What the time limit (or, with ``default_s``, the explanation's default time budget of that
    many seconds) left open, or nothing; with the default budget, how to raise it."""
    who = "the time limit" if default_s is None else f"the explanation's default time budget ({default_s:.3g} s)"
    out = []
    if c.undecided:
        proven = ", ".join(_describe(problem, f) for f in c.proven) or "none"
        out.append(f"{who} ran out: proven in the conflict: {proven}; not yet decided: "
                   + ", ".join(_describe(problem, f) for f in c.undecided))
    for a in c.unproven:
        if out and default_s is not None:
            who = "it"
        if a == "max_units" and c.max_units is not None and c.units_bound is not None:
            low, high = c.max_units + 1, c.units_bound
            if high >= low:
                out.append(f"{who} left " + (f"demand {low}" if low == high else f"the demands {low} to {high}")
                           + " undecided")
        elif a == "min_budget" and c.min_budget is not None:
            low_text, high_text = _up(c.budget_bound or 0.0), exact_text(c.min_budget)
            if low_text != high_text:
                out.append(f"{who} left the least budget undecided between {low_text} and {high_text}")
        elif a == "max_alpha":
            out.append(f"{who} left a larger average quality undecided")
    if out and default_s is not None:
        out.append("a time limit gives it longer (--time-limit on the command line, "
                   "time_limit_s of Solution.explain)")
    return "".join("; " + part for part in out)


def _up(v: float) -> str:
    """A money amount rounded up to 6 significant digits (so that it suffices)."""
    if v <= 0:
        return "0"
    digits = 6 - int(math.floor(math.log10(abs(v)))) - 1
    scale = 10.0 ** digits
    return exact_text(float(f"{math.ceil(v * scale - 1e-9) / scale:g}"))


def _down(v: float) -> float:
    """A threshold in [0, 1] rounded down to 6 decimals (so that it is reached)."""
    return math.floor(max(v, 0.0) * 1e6 + 1e-9) / 1e6
