"""The constraints today's keywords build: budget, demand, must lists and group limits, as objects.

:class:`~subsel.models.SubsetSelectionProblem` keeps its keywords (``budget=``, ``demand=``,
``must_take=``, ``must_not_take=``, ``group=`` with ``group_limits=``): no call, file or number
changes.  Each keyword in force also stands in :attr:`SubsetSelectionProblem.constraints` as an
object of the protocol of :mod:`subsel.models.constraints` (one class per kind), beside the
objects given with ``constraints=[...]``, so that a reader of the problem sees every constraint in
force in one list, the feasibility rule decides each through its object and the explanation of
infeasibility drops each through its object (:meth:`Constraint.drop`).  The budget and the demand
are rows of the linear form (Deva, Abhishek, Gujar, AAMAS 2021, Section 3, with subsel's
extensions); the must lists are bounds on single agents and the group limits are rows over the
units and the used agents of a group (Aissaoui, Haouari, Hassini, *Computers & OR* 34, 2007,
Section 4), which the planner's formulation writes over its "used" variables: their
:meth:`~Constraint.rows` are empty.

An object of these classes given in ``constraints=[...]`` sets its keyword (``Budget(5.0)`` is
``budget=5.0``; the keyword given too with another value is refused, with the same value it is one
constraint), so ``SubsetSelectionProblem(q, c, alpha, constraints=p.constraints)`` builds the
problem ``p`` (its planner's per-agent fields aside) and ``p.with_changes(constraints=[*p.constraints,
more])`` adds ``more`` to ``p``.  The minimum orders, lot sizes and fixed costs
are not constraint objects: they are per-agent data of the agents' domains (``x_i`` in
``{0} | {m_i, m_i + l_i, ...}``) and cost (``f_i [x_i > 0]``), which every solver reads as such (the
dynamic programmes of ``dpss`` and ``gss`` enumerate each agent's allowed counts), not rows a
solver may or may not support; they stay fields (:mod:`subsel.models.planner`).
"""
from __future__ import annotations

import math
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from .._text import exact_text
from ._rules import FEASIBILITY_TOL, exact_total, linear_at_least, weighted_sum
from .constraints import Constraint, ConstraintRow
from .planner import GROUP_LIMIT_KEYS

__all__ = ["Budget", "Demand", "GroupLimit", "KEYWORD_KINDS", "MustNotTake", "MustTake", "keyword_constraints"]

#: The kinds the keywords build, in the order :attr:`SubsetSelectionProblem.constraints` lists them.
KEYWORD_KINDS = ("budget", "demand", "must_take", "must_not_take", "group_limits")


class _Keyword(Constraint):
    """A constraint a keyword of the problem builds (bound by the problem, with its data)."""

    #: The problem's keyword this kind stands for.
    keyword: ClassVar[str]
    _n: int | None = None

    def bind(self, n: int, names: Callable[[], tuple[str, ...]]) -> Constraint:
        if not self.bound:
            raise ValueError(f"{type(self).__name__} is the problem's {self.keyword!r}: give it as "
                             f"SubsetSelectionProblem({self.keyword}=...) or in its constraints=[...]")
        self._check_n(n)
        return self

    def set_keyword(self, keywords: dict[str, Any], what: str) -> None:
        """Put this constraint's value into the problem's ``keywords`` (an object given in
        ``constraints=[...]``); a keyword given too is refused (``what`` names the argument)."""
        given, value = keywords.get(self.keyword), self._value()
        if given is not None and not (isinstance(given, (list, tuple, np.ndarray)) and not len(given)) \
                and not _same(given, value):
            raise ValueError(f"{what}: {self.describe()!r} and the keyword {self.keyword}= are both given; "
                             "give one")
        keywords[self.keyword] = value

    def _value(self) -> Any:
        raise NotImplementedError

    def drop(self, changes: dict[str, Any], problem: Any) -> None:
        changes[self.keyword] = None


def _same(a: Any, b: Any) -> bool:
    """The keyword's value ``a`` and a constraint object's ``b`` say the same (e.g. the problem's own
    budget and its :class:`Budget`, passed back with ``with_changes(constraints=p.constraints)``)."""
    if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
        try:
            return bool(np.array_equal(np.unique(np.asarray(a)), np.unique(np.asarray(b))))
        except (TypeError, ValueError):
            return False
    numbers = (int, float, np.integer, np.floating)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        return bool(a == b)  # budget=5 and Budget(5.0) are one constraint
    return bool(a == b) and type(a) is type(b)


class Budget(_Keyword):
    """``sum_i c_i x_i + sum_i f_i [x_i > 0] <= budget`` (the fixed costs ``f`` with the planner's
    fields), decided exactly with the tolerance :data:`~subsel.models.FEASIBILITY_TOL`.

    Parameters
    ----------
    limit : float
        The budget, in revenue units (``>= 0``; checked by the problem as its ``budget``).
    """

    kind = name = keyword = "budget"
    stage = 2

    def __init__(self, limit: float):
        self.limit = limit
        self._cost: np.ndarray | None = None
        self._fixed: np.ndarray | None = None

    @classmethod
    def _bound(cls, limit: float, cost: np.ndarray, fixed: np.ndarray | None) -> Budget:
        out = cls(limit)
        out._n, out._cost, out._fixed = cost.size, cost, fixed
        return out

    def _value(self) -> Any:
        return self.limit

    def violations(self, x: np.ndarray, names: Callable[[int], str]) -> list[str]:
        xb, cb = x, np.asarray(self._cost)
        if self._fixed is not None:
            xb = np.concatenate((x, (x != 0).astype(float)))
            cb = np.concatenate((cb, self._fixed))
        if linear_at_least(xb, -cb, 0.0, (-self.limit, -FEASIBILITY_TOL)):
            return []
        spent = float(weighted_sum(xb, cb))
        what = "sum c x + sum f [x > 0]" if xb is not x else "sum c x"
        return [f"budget: {what} = {spent:.6g} > budget {exact_text(self.limit)}"]

    def rows(self) -> tuple[ConstraintRow, ...]:
        """The row over the units (the fixed costs join it over the used variables of the planner's
        formulation)."""
        return (ConstraintRow(np.asarray(self._cost, dtype=float), "units", -math.inf, self.limit + FEASIBILITY_TOL,
                              True, FEASIBILITY_TOL, side=(self.limit, FEASIBILITY_TOL)),)

    def describe(self) -> str:
        return f"budget {exact_text(self.limit)}"

    def __repr__(self) -> str:
        return f"Budget({self.limit!r})"


def total_units(x: np.ndarray) -> int:
    """``sum_i x_i`` of a finite selection, exact for whole numbers (rounded for others)."""
    whole = bool(np.all(x == np.round(x)))
    if whole and float(np.abs(x).max(initial=0.0)) * x.size < 2.0 ** 62:
        return int(x.astype(np.int64).sum())  # every partial sum stays below 2^62
    if not whole:
        return int(round(math.fsum(x.tolist())))
    return exact_total(x)


class Demand(_Keyword):
    """``sum_i x_i >= demand``, decided in integers.

    Parameters
    ----------
    units : int
        The demand (``>= 0``; checked by the problem as its ``demand``).
    """

    kind = name = keyword = "demand"
    stage = 3

    def __init__(self, units: int):
        self.units = units

    @classmethod
    def _bound(cls, units: int, n: int) -> Demand:
        out = cls(units)
        out._n = n
        return out

    def _value(self) -> Any:
        return self.units

    def short(self, units: int) -> list[str]:
        """The violation for a selection of ``units`` units (none when it meets the demand)."""
        return [f"demand: sum x = {units} < demand {self.units}"] if units < self.units else []

    def violations(self, x: np.ndarray, names: Callable[[int], str]) -> list[str]:
        return self.short(total_units(x))

    def rows(self) -> tuple[ConstraintRow, ...]:
        return (ConstraintRow(np.ones(int(self._n or 0)), "units", float(self.units), math.inf, False, 0.0),)

    def describe(self) -> str:
        return f"demand {self.units}"

    def __repr__(self) -> str:
        return f"Demand({self.units!r})"


class _AgentList(_Keyword):
    """A list of agents, each with a bound on its units (a bound, not a row)."""

    stage = 0
    _names: Callable[[int], str] | None = None
    _what = ""

    def __init__(self, agents: Sequence[int | str] | np.ndarray):
        self.agents = agents

    @classmethod
    def _bound(cls, agents: np.ndarray, n: int, names: Callable[[int], str]) -> _AgentList:
        out = cls(agents)
        out._n, out._names = n, names
        return out

    def _value(self) -> Any:
        return self.agents

    def _broken(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def violations(self, x: np.ndarray, names: Callable[[int], str]) -> list[str]:
        idx = np.asarray(self.agents)
        return [f"{self.name}: agent {int(i)} ({names(int(i))!r}) has x = {x[i]:g}" for i in idx[self._broken(x[idx])]]

    def rows(self) -> tuple[ConstraintRow, ...]:
        """None: the list is a bound on each agent it names (``SubsetSelectionProblem.lower_bounds`` /
        ``upper_bounds``)."""
        return ()

    def describe(self) -> str:
        idx = np.asarray(self.agents)
        names = self._names if self._names is not None else str
        shown = ", ".join(names(i) for i in idx[:3].tolist()) + (", ..." if idx.size > 3 else "")
        return f"{self.name.replace('_', '-')} {shown}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(np.asarray(self.agents).tolist())!r})"


class MustTake(_AgentList):
    """``x_i >= 1`` (at least the minimum order ``m_i``) for each agent listed.

    Parameters
    ----------
    agents : sequence of int or str
        Agent indices or names (checked by the problem as its ``must_take``).
    """

    kind = name = keyword = "must_take"

    def _broken(self, values: np.ndarray) -> np.ndarray:
        return values < 1


class MustNotTake(_AgentList):
    """``x_i = 0`` for each agent listed.

    Parameters
    ----------
    agents : sequence of int or str
        Agent indices or names (checked by the problem as its ``must_not_take``).
    """

    kind = name = keyword = "must_not_take"

    def _broken(self, values: np.ndarray) -> np.ndarray:
        return values != 0


class GroupLimit(_Keyword):
    """One group's limits: ``min_units <= sum_{i in g} x_i <= max_units`` and
    ``min_agents <= sum_{i in g} [x_i > 0] <= max_agents`` (each optional), decided in integers.

    Its name is ``group_limits:<group>`` (the member of a conflict of the explanation).

    Parameters
    ----------
    group : str
        The group's label (the agents' ``group``).
    limits : mapping of str to int
        Keys among ``min_units``, ``max_units``, ``min_agents``, ``max_agents`` (checked by the
        problem as ``group_limits[group]``).
    """

    kind = keyword = "group_limits"
    stage = 1

    def __init__(self, group: str, limits: Any):
        self.group = group
        self.name = f"group_limits:{group}"
        self.limits = limits
        self._members: np.ndarray | None = None
        self.index = -1

    @classmethod
    def _bound(cls, group: str, limits: Any, members: np.ndarray, index: int, n: int) -> GroupLimit:
        out = cls(group, limits)
        out._n, out._members, out.index = n, members, index
        return out

    def set_keyword(self, keywords: dict[str, Any], what: str) -> None:
        limits = dict(keywords.get("group_limits") or {})
        if self.group in limits and dict(limits[self.group]) != dict(self.limits):
            raise ValueError(f"{what}: the limits of group {self.group!r} are given twice; give them once")
        limits[self.group] = self.limits
        keywords["group_limits"] = limits

    def drop(self, changes: dict[str, Any], problem: Any) -> None:
        base = changes.get("group_limits", problem.group_limits)
        changes["group_limits"] = {g: dict(v) for g, v in base.items() if g != self.group}

    def violations(self, x: np.ndarray, names: Callable[[int], str]) -> list[str]:
        inside = x[np.asarray(self._members)]
        counts = {"units": sum(int(v) for v in inside.tolist()), "agents": int(np.count_nonzero(inside > 0))}
        out = []
        for key in GROUP_LIMIT_KEYS:
            if key not in self.limits:
                continue
            what = key.split("_")[1]
            have, bound = counts[what], self.limits[key]
            if have < bound if key.startswith("min") else have > bound:
                sign = "<" if key.startswith("min") else ">"
                out.append(f"group_limits: group {self.group!r} has {have} {what} {sign} {key} {bound}")
        return out

    def rows(self) -> tuple[ConstraintRow, ...]:
        """None here: the planner's formulation writes the group's rows over its used variables."""
        return ()

    def describe(self) -> str:
        limits = ", ".join(f"{k} {v}" for k, v in self.limits.items())
        return f"the limits of group {self.group!r} ({limits})"

    def __repr__(self) -> str:
        return f"GroupLimit({self.group!r}, {dict(self.limits)!r})"


def keyword_constraints(problem: Any) -> tuple[Constraint, ...]:
    """The objects of the keywords ``problem`` has in force, bound to its data, in the order of
    :data:`KEYWORD_KINDS` (the groups in the order of ``group_limits``)."""
    out: list[Constraint] = []
    n = problem.n
    planner = problem._planner
    if problem.budget is not None:
        fixed = problem.fixed_cost if planner is not None and "fixed_cost" in planner.used else None
        out.append(Budget._bound(problem.budget, problem.cost, fixed))
    if problem.demand is not None:
        out.append(Demand._bound(problem.demand, n))

    def names(i: int) -> str:  # the default names are made only when a message needs one
        return str(problem.names[i])

    if problem.must_take.size:
        out.append(MustTake._bound(problem.must_take, n, names))
    if problem.must_not_take.size:
        out.append(MustNotTake._bound(problem.must_not_take, n, names))
    if planner is not None and planner.group_limits:
        position = {g: j for j, g in enumerate(planner.group_names)}
        for g, limits in planner.group_limits.items():
            j = position[g]
            out.append(GroupLimit._bound(g, limits, np.flatnonzero(planner.group_index == j), j, n))
    return tuple(out)



class InForce:
    """The ``constraints`` field of :class:`SubsetSelectionProblem`: every constraint in force.

    A descriptor-typed dataclass field: the constructor's value (the objects given with
    ``constraints=[...]``) is stored as ``_added``; reading the field gives the keywords' objects
    (:func:`keyword_constraints`, built on first read and kept: the problem never changes) followed
    by the added ones.
    """

    def __get__(self, obj: Any, owner: Any = None) -> tuple[Constraint, ...]:
        if obj is None:
            return ()  # the field's default: no constraint objects
        state = obj.__dict__
        out: tuple[Constraint, ...] | None = state.get("_in_force")
        if out is None:
            added = state.get("_added") or ()
            if obj.budget is None and obj.demand is None and not obj.must_take.size \
                    and not obj.must_not_take.size and (obj._planner is None or not obj._planner.group_limits):
                out = tuple(added)
            else:
                out = keyword_constraints(obj) + tuple(added)
            state["_in_force"] = out
        return out

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["_added"] = value
        obj.__dict__.pop("_in_force", None)
