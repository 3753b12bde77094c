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

Where one number decides, it also gives the nearest change, computed on the whole problem (the
constraints outside the conflict kept) and verified before it is advised: with a demand in the set,
the largest demand that can be met ("lower the demand to U", an exact search over the integer
demand), and with a budget as well, the least budget that meets the demand ("raise the budget to
B", from the least spend an exact MILP backend reports, rounded up and checked).  Every
feasibility question is answered by a solver's checked answer (:meth:`Solver.solve`), so the set
and the advice are decided with the one feasibility rule.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..models import LinearForm, SubsetSelectionProblem, linear_form

__all__ = ["Conflict", "constraint_families", "explain_infeasible", "without_constraints"]


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
        among them).
    max_units : int or None
        With ``demand`` in the set: the largest demand below the given one that the problem meets
        with every other constraint kept (verified by a solver's checked answer), else None.
    min_budget : float or None
        With ``demand`` and ``budget`` in the set: the least budget (the least spend
        ``sum c x + sum f [x > 0]`` that meets the demand with every other constraint kept, rounded
        up to 6 significant digits and verified by a solver's checked answer), else None.
    """

    constraints: tuple[str, ...]
    max_units: int | None = None
    min_budget: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view: ``constraints``, ``max_units``, ``min_budget``."""
        return {"constraints": list(self.constraints), "max_units": self.max_units,
                "min_budget": self.min_budget}


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
    out = ["quality"]
    ext = problem.extensions
    out += [name for name in ("budget", "demand", "must_take", "must_not_take", "min_units", "lot_size")
            if name in ext]
    out += [f"group_limits:{g}" for g in problem.group_limits]
    out += [c.name for c in problem.constraints]  # each constraint object by its name, dropped whole
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
    for name in ("budget", "demand", "must_take", "must_not_take", "min_units", "lot_size"):
        if name in dropped:
            changes[name] = None
    gone = {d.split(":", 1)[1] for d in dropped if d.startswith("group_limits:")}
    if gone:
        changes["group_limits"] = {g: dict(v) for g, v in problem.group_limits.items() if g not in gone}
    if any(c.name in dropped for c in problem.constraints):
        changes["constraints"] = tuple(c for c in problem.constraints if c.name not in dropped)
    return problem.with_changes(**changes) if changes else problem


def _optimum(problem: SubsetSelectionProblem, objective: Callable[[LinearForm], np.ndarray]) -> float | None:
    """The optimum of ``objective`` (maximised, over the form's variables) under the problem's
    constraints, from the HiGHS backend (None when it is not available or finds nothing)."""
    from .highs import HiGHS

    if not HiGHS.available()[0]:
        return None
    form = linear_form(problem)
    form = LinearForm(objective(form), form.lower, form.upper, form.rows, form.aux_of, form.aux_lot)
    raw = HiGHS()._run(form, None, None)
    if raw.x is None or raw.bound is None:
        return None
    return float(raw.bound)


def explain_infeasible(problem: SubsetSelectionProblem, feasible: Callable[[SubsetSelectionProblem], bool],
                       found: Callable[[SubsetSelectionProblem], bool] | None = None) -> tuple[str, Conflict]:
    """Explain why ``problem`` is infeasible: a text and a :class:`Conflict`.

    The conflict is found by the deletion filter of Chinneck and Dravnieks (*ORSA Journal on
    Computing* 3(2), 1991, Section 3).  The nearest change is computed on the whole problem (every
    constraint outside the conflict kept) and verified before it is advised: the largest demand
    ``U < D`` that ``found`` accepts, by an exact search over the integer demand (feasibility only
    shrinks as the demand grows), and the smallest budget, from the least spend an exact MILP
    backend reports, rounded up to six significant digits and accepted by ``found``.  A change
    that cannot be verified is not advised: the text then says only what conflicts.

    Parameters
    ----------
    problem : SubsetSelectionProblem
        An infeasible problem.
    feasible : callable
        Says whether a problem has a feasible selection (a checked solver answer; an undecided
        answer may say True, which keeps a constraint in the conflict).
    found : callable, optional
        Says True only when a selection that passes ``problem.evaluate`` was found (the check of
        an advised change); default ``feasible``.

    Returns
    -------
    (str, Conflict)
        E.g. ``"demand 50 cannot be met: at most 42 units reach average quality 0.8 within budget
        100 (lower the demand to 42 or raise the budget to 131)"``.
    """
    found = feasible if found is None else found
    members = constraint_families(problem)
    dropped: set[str] = set()
    for fam in list(members):  # the deletion filter
        if not feasible(without_constraints(problem, dropped | {fam})):
            dropped.add(fam)
    kept = tuple(f for f in members if f not in dropped)
    if not kept:  # an oracle that calls every part infeasible: name the whole problem
        kept, dropped = tuple(members), set()
    max_units = min_budget = None
    if "demand" in kept:
        max_units = _largest_demand(problem, found)
        if "budget" in kept:
            min_budget = _smallest_budget(problem, found)
    conflict = Conflict(kept, max_units, min_budget)
    return _text(problem, conflict), conflict


def _largest_demand(problem: SubsetSelectionProblem, found: Callable[[SubsetSelectionProblem], bool]
                    ) -> int | None:
    """The largest demand ``U < D`` under which ``problem`` (all else kept) has a selection that
    ``found`` accepts, by bisection over the integers (a larger demand only removes selections),
    started from the most units an exact MILP backend reports; None when no demand does."""
    if problem.demand is None or not found(problem.with_changes(demand=None)):
        return None
    lo, hi = 0, int(problem.demand)  # the demand lo is met (0: no demand), hi is not
    n = problem.n
    top = _optimum(problem.with_changes(demand=None), lambda f: np.concatenate((np.ones(n), np.zeros(f.n - n))))
    if top is not None and math.isfinite(top):
        guess = min(max(int(math.floor(top + 1e-6)), 0), hi - 1)
        if guess > lo:
            if found(problem.with_changes(demand=guess)):
                lo = guess
            else:
                hi = guess
        if lo == guess and guess + 1 < hi:  # the common case: one more unit cannot be met
            if found(problem.with_changes(demand=guess + 1)):
                lo = guess + 1
            else:
                hi = guess + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if found(problem.with_changes(demand=mid)):
            lo = mid
        else:
            hi = mid
    return lo


#: Budgets tried above the least spend reported (each rounded up to 6 significant digits).
_BUDGET_STEPS = (0.0, 1e-6, 1e-4)


def _smallest_budget(problem: SubsetSelectionProblem, found: Callable[[SubsetSelectionProblem], bool]
                     ) -> float | None:
    """The least budget, rounded up to 6 significant digits, under which ``problem`` (all else
    kept) has a selection that ``found`` accepts; from the least spend an exact MILP backend
    reports (Aissaoui et al., *Computers & OR* 34, 2007, Section 4: spend with fixed order costs),
    verified.  None when no budget could be verified."""
    unlimited = problem.with_changes(budget=None)
    if not found(unlimited):
        return None
    row = _budget_row(linear_form(problem))
    spend = _optimum(unlimited, lambda f: -row)
    if spend is None or not math.isfinite(spend):
        return None
    least = max(-spend, 0.0)
    for step in _BUDGET_STEPS:
        budget = float(_up(least * (1.0 + step) + step * 1e-9))
        if found(problem.with_changes(budget=budget)):
            return budget
    return None


def _budget_row(form: LinearForm) -> np.ndarray:
    """The spend ``sum c x + sum f u`` as a dense row over the form's variables (cost on the
    units, fixed costs on the used variables): the budget row without its bound."""
    for row in form.rows:
        if row.name == "budget":
            return row.dense(form.n)
    raise ValueError("the problem has no budget")  # pragma: no cover - called with a budget


def _describe(problem: SubsetSelectionProblem, name: str) -> str:
    if name == "quality":
        return f"average quality {problem.alpha:g}"
    if name == "budget":
        return f"budget {problem.budget:g}"
    if name == "demand":
        return f"demand {problem.demand}"
    if name in ("must_take", "must_not_take"):
        idx = getattr(problem, name)
        shown = ", ".join(problem.names[i] for i in idx[:3].tolist()) + (", ..." if idx.size > 3 else "")
        return f"{name.replace('_', '-')} {shown}"
    if name in ("min_units", "lot_size"):
        return {"min_units": "the minimum orders", "lot_size": "the lot sizes"}[name]
    for c in problem.constraints:
        if c.name == name:
            return c.describe()
    g = name.split(":", 1)[1]
    limits = ", ".join(f"{k} {v}" for k, v in problem.group_limits[g].items())
    return f"the limits of group {g!r} ({limits})"


def _text(problem: SubsetSelectionProblem, c: Conflict) -> str:
    parts = [_describe(problem, f) for f in c.constraints]
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
            where = (f" reach average quality {problem.alpha:g} within budget {problem.budget:g}"
                     + (" under " + ", ".join(rest) + tail if rest else tail))
        fixes = [f"lower the demand to {c.max_units}"]
        if c.min_budget is not None:
            fixes.append(f"raise the budget to {c.min_budget:g}")
        one = c.max_units == 1
        verb = "reach" if where.startswith(" reach") else ("is allowed" if one else "are allowed")
        unit = "unit" if one else "units"
        if verb == "reach" and one:
            where = " reaches" + where[len(" reach"):]
        body = (f"at most {c.max_units} {unit}{where}" if verb == "reach"
                else f"at most {c.max_units} {unit} {verb}{where}")
        return f"demand {problem.demand} cannot be met: {body} ({' or '.join(fixes)})"
    fix = "" if c.min_budget is None else f" (raise the budget to {c.min_budget:g})"
    if len(parts) == 1:
        return f"{parts[0]} cannot be met on its own{fix}"
    return "no selection meets " + ", ".join(parts[:-1]) + " and " + parts[-1] + " together" + fix


def _up(v: float) -> str:
    """A money amount rounded up to 6 significant digits (so that it suffices)."""
    if v <= 0:
        return "0"
    digits = 6 - int(math.floor(math.log10(abs(v)))) - 1
    scale = 10.0 ** digits
    return f"{math.ceil(v * scale - 1e-9) / scale:g}"
