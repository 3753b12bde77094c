"""Constraints as objects: any linear constraint a planner needs, and further quality attributes.

The model of Deva, Abhishek, Gujar (AAMAS 2021), Section 3, has one constraint beside the unit
bounds: the average quality of the units taken is at least ``alpha``.  A planner's world has more
("at most 5000 kg of CO2", "acme or bolt but not both", "an on-time rate of 95 %").  Each kind of
constraint here is one class behind one small protocol, :class:`Constraint`, the way modelling
layers keep a constraint as a value (linopy's ``Model.add_constraints``, PuLP's ``prob += ...``):

* it **validates itself** against the problem's agents (:meth:`Constraint.bind`), with messages
  naming the field, the agent and the value;
* it **decides its violations exactly** for one selection (:meth:`Constraint.violations`), with the
  one feasibility rule of :meth:`SubsetSelectionProblem.evaluate`: a real row within
  :data:`~subsel.models.FEASIBILITY_TOL` of its side, decided from the stored floats without
  rounding (:func:`~subsel.models._rules.linear_at_least`), an integral row in integers;
* it **gives its rows of the linear form** (:meth:`Constraint.rows`), each saying whether its
  coefficients are integral or real and its tolerance, so that no backend needs to know a row by
  its name: a MILP backend scales and loosens real rows, CP-SAT rounds their coefficients towards
  the safe side, integral rows are used as they are;
* it says **what it is called and how it reads** (:attr:`Constraint.name`,
  :meth:`Constraint.describe`), so that :func:`subsel.solvers.explain_infeasible` can drop it
  from the problem and name it in a conflict.

Solvers declare which kinds they support (:attr:`Constraint.kind` among their ``supports``) and
refuse the others naming the constraint.  A problem holds its constraint objects in
:attr:`SubsetSelectionProblem.constraints` (``SubsetSelectionProblem(..., constraints=[...])``,
:meth:`SubsetSelectionProblem.with_constraints`).

This module imports nothing of the problem module: a constraint sees only the number of agents and
their names.
"""
from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from .._files import InputError
from .._text import exact_text
from .._validation import as_float_array, readonly
from .._validation import check_scalar as _check_scalar
from ._rules import FEASIBILITY_TOL, MAX_COST, exactly_shifted, linear_at_least, weighted_sum

__all__ = ["CONSTRAINT_KINDS", "Constraint", "ConstraintRow", "LinearConstraint", "QualityFloor"]

#: The kinds of constraint objects, as names of extensions (what a solver's ``supports`` lists).
CONSTRAINT_KINDS = ("linear", "linear_used", "quality_floor")

#: A constraint's name: a letter or ``_``, then letters, digits, ``_`` or ``.`` (legal as a row name
#: of LP and MPS files), at most 40 characters.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,39}")

#: Names the problem's own rows use (and their prefixes): a constraint may not take them.
_RESERVED = ("quality", "budget", "demand", "must_take", "must_not_take", "min_units", "lot_size",
             "fixed_cost", "group_limits", "capacity", "integrality", "bounds", "utility", "neg_utility")
_RESERVED_PREFIXES = ("group_", "lot_", "used_", "digits_", "no_good_")

#: Largest absolute coefficient of an integral row: CP-SAT takes it as it is, and its sums over
#: capacities of up to 2^53 units stay exact in Python integers.
_MAX_INTEGRAL_COEF = 2 ** 31


@dataclass(frozen=True)
class ConstraintRow:
    """One row of a constraint in the linear form: ``lower <= coef . v <= upper``.

    Attributes
    ----------
    coef : ndarray of float, shape (n,)
        The coefficients, per agent.
    on : {"units", "used"}
        ``v`` is the units ``x`` or the used indicators ``[x_i > 0]``.
    lower, upper : float
        The sides with the tolerance included (``-inf`` / ``inf`` for a free side); a real row has
        one finite side.
    real : bool
        The coefficients are real numbers (scaled and rounded towards the safe side by a backend);
        False: integer coefficients and sides.
    tol : float
        The tolerance included in the finite sides (``FEASIBILITY_TOL`` for a real row, else 0).
    suffix : str
        Appended to the constraint's name to name the row (``""``, ``"_min"`` or ``"_max"``).
    side : tuple of float, optional
        For a real row, the terms whose exact sum is its finite side (``(upper, tol)`` for
        ``upper + tol``): CP-SAT rounds that sum exactly.  None: the side is exact as stored.
    """

    coef: np.ndarray
    on: str
    lower: float
    upper: float
    real: bool
    tol: float
    suffix: str = ""
    side: tuple[float, ...] | None = None


class Constraint(ABC):
    """The protocol of a constraint object (one class per kind; see the module's text).

    Attributes
    ----------
    kind : str
        The kind, one of :data:`CONSTRAINT_KINDS` (a name a solver lists in its ``supports``).
    name : str
        The constraint's name: its rows in LP/MPS files, its violations and the conflicts of
        :func:`~subsel.solvers.explain_infeasible` are named after it.
    """

    kind: str
    name: str
    #: The problem's keyword an object of this kind stands for (``"budget"``, ...), None for a
    #: constraint given only as an object (:mod:`subsel.models.keyword_constraints`).
    keyword: ClassVar[str | None] = None
    #: Where the feasibility rule words its violations: 0 with the bounds (before the quality row),
    #: 1 with the planner's rows and the constraint objects, 2 the budget, 3 the demand.
    stage: ClassVar[int] = 1

    @property
    def bound(self) -> bool:
        """True once :meth:`bind` has checked the constraint against a problem's agents."""
        return getattr(self, "_n", None) is not None

    @abstractmethod
    def bind(self, n: int, names: Callable[[], tuple[str, ...]]) -> Constraint:
        """The constraint checked against ``n`` agents (``names()`` their names), its data resolved.

        Raises
        ------
        ValueError
            Naming the field, the agent (index or name) and the value.
        """

    @abstractmethod
    def violations(self, x: np.ndarray, names: Callable[[int], str]) -> list[str]:
        """One line per side the whole-number selection ``x`` (float, shape (n,), within the
        agents' bounds) breaks, each starting with the constraint's name; decided exactly."""

    @abstractmethod
    def rows(self) -> tuple[ConstraintRow, ...]:
        """The rows of the linear form (at least one)."""

    @abstractmethod
    def describe(self) -> str:
        """A short text for messages (``"co2 <= 5000"``)."""

    def drop(self, changes: dict[str, Any], problem: Any) -> None:
        """Record in ``changes`` (arguments of ``problem.with_changes``) how ``problem`` is solved
        without this constraint: the explanation of infeasibility drops it so
        (:func:`~subsel.solvers.without_constraints`).  A constraint given as an object leaves
        ``constraints``; a keyword's constraint sets its keyword to None."""
        kept = changes.get("constraints", problem.added_constraints)
        changes["constraints"] = tuple(c for c in kept if c.name != self.name)

    def rows_exact(self) -> bool:
        """True when the rows' coefficients are the constraint's data exactly (no rounding in
        building them); a backend that solves the rows as given can then prove optimality."""
        return True

    def _check_n(self, n: int) -> None:
        if not self.bound:
            raise ValueError(f"constraint {self.name!r} is not bound to a problem's agents")
        if n != self._n:  # type: ignore[attr-defined]
            raise ValueError(f"constraint {self.name!r} has {self._n} coefficients "  # type: ignore[attr-defined]
                             f"but the problem has {n} agents")


def check_constraint_name(name: Any, what: str) -> str:
    """Validate a constraint's name (see :data:`_NAME`; not a name the problem's rows use)."""
    if not isinstance(name, str):
        raise TypeError(f"{what}: name must be a string; got {type(name).__name__}")
    if not _NAME.fullmatch(name):
        raise ValueError(f"{what}: name must start with a letter or '_' and hold only letters, digits, '_' "
                         f"and '.', at most 40 characters (it names rows of LP and MPS files); got {name!r}")
    if name in _RESERVED or name.startswith(_RESERVED_PREFIXES):
        raise ValueError(f"{what}: name {name!r} is taken by the problem's own rows; choose another")
    return name


def _per_agent(values: Any, n: int, names: Callable[[], tuple[str, ...]], field: str, missing: float | None
               ) -> np.ndarray:
    """``values`` (array-like of shape (n,), or a mapping ``{agent name: value}``) as a float array;
    ``missing`` fills the agents a mapping leaves out (None: every agent must be given)."""
    if isinstance(values, Mapping):
        index = {s: i for i, s in enumerate(names())}
        out = np.full(n, np.nan if missing is None else missing)
        for key, v in values.items():
            if key not in index:
                raise InputError("names no agent", column=field, value=key)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise InputError(f"must be a number for agent {key!r}", column=field, value=v)
            out[index[key]] = float(v)
        if missing is None and np.isnan(out).any():
            i = int(np.flatnonzero(np.isnan(out))[0])
            raise ValueError(f"{field}: agent {i} ({names()[i]!r}) is missing; give a value for every agent")
        arr = out
    else:
        arr = as_float_array(values, field)
        if arr.size != n:
            raise ValueError(f"{field} has {arr.size} entries but the problem has {n} agents; "
                             "arrays must have the same length")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise InputError("must be a finite number", column=field, row=i, value=float(arr[i]))
    return readonly(arr, copy=False)


def _side(value: Any, what: str) -> float | None:
    return None if value is None else _check_scalar(value, what)


class LinearConstraint(Constraint):
    """``lower <= sum_i coef_i v_i <= upper``: any linear constraint on the units or the used agents.

    With ``on="units"``, ``v_i = x_i`` (e.g. kilograms of CO2 per unit: ``co2 . x <= 5000``); with
    ``on="used"``, ``v_i = [x_i > 0]`` (e.g. ``acme + bolt <= 1``: at most one of the two).  A row
    of integer coefficients and sides is decided in integers; any other is real and decided with
    the tolerance :data:`~subsel.models.FEASIBILITY_TOL` on each side, exactly from the stored
    floats (as the budget row of Deva et al.'s model with subsel's extensions).

    Parameters
    ----------
    coef : array-like of float, shape (n,), or mapping of str to float
        The coefficients per agent; a mapping ``{agent name: coefficient}`` leaves the agents it
        does not name at 0.  Finite, of absolute value at most 1e30.
    lower, upper : float, optional
        The sides (at least one; ``lower <= upper``).
    name : str, default "linear"
        Names the constraint's rows and violations (letters, digits, ``_``, ``.``).
    on : {"units", "used"}, default "units"

    Raises
    ------
    ValueError
        No side, ``lower > upper``, a non-finite side, ``on`` not ``units`` or ``used``, a bad name;
        when bound to a problem (its constructor): coefficients of the wrong length, non-finite or
        too large, an agent name the problem does not have (naming the field, agent and value).
    TypeError
        A side or a coefficient that is not a number.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem
    >>> from subsel.models import LinearConstraint
    >>> p = SubsetSelectionProblem([0.9, 0.8, 0.7], [0.1, 0.2, 0.1], alpha=0.75, names=["a", "b", "c"],
    ...                            constraints=[LinearConstraint({"a": 1, "b": 1}, upper=1, name="a_or_b",
    ...                                                          on="used")])
    >>> p.evaluate([1, 1, 0]).violations
    ('a_or_b: sum coef [x > 0] = 2 > 1',)
    """

    def __init__(self, coef: Any, lower: float | None = None, upper: float | None = None, name: str = "linear",
                 on: str = "units"):
        self.name = check_constraint_name(name, "LinearConstraint")
        if on not in ("units", "used"):
            raise ValueError(f"LinearConstraint {name!r}: on must be 'units' or 'used'; got {on!r}")
        self.on = on
        #: ``"linear"`` on the units, ``"linear_used"`` on the used agents.
        self.kind = "linear" if on == "units" else "linear_used"
        self.lower = _side(lower, f"LinearConstraint {name!r}: lower")
        self.upper = _side(upper, f"LinearConstraint {name!r}: upper")
        if self.lower is None and self.upper is None:
            raise ValueError(f"LinearConstraint {name!r}: give lower, upper or both")
        for side, v in (("lower", self.lower), ("upper", self.upper)):
            if v is not None and not abs(v) <= MAX_COST:
                raise ValueError(f"LinearConstraint {name!r}: {side} must be finite and at most {MAX_COST:g} "
                                 f"in absolute value; got {v}")
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise ValueError(f"LinearConstraint {name!r}: lower {self.lower:g} is above upper {self.upper:g}")
        self.coef = coef
        self._n: int | None = None
        self._integral = False

    def bind(self, n: int, names: Callable[[], tuple[str, ...]]) -> LinearConstraint:
        if self.bound:
            self._check_n(n)
            return self
        field = f"LinearConstraint {self.name!r} coef"
        coef = _per_agent(self.coef, n, names, field, 0.0)
        big = np.flatnonzero(np.abs(coef) > MAX_COST)
        if big.size:
            i = int(big[0])
            raise InputError(f"must be at most {MAX_COST:g} in absolute value", column=field, row=i,
                             value=float(coef[i]))
        out = LinearConstraint(coef, self.lower, self.upper, self.name, self.on)
        out._n = n
        sides = [v for v in (self.lower, self.upper) if v is not None]
        out._integral = bool(np.all(coef == np.round(coef)) and np.abs(coef).max(initial=0.0) <= _MAX_INTEGRAL_COEF
                             and all(v == round(v) for v in sides))
        return out

    @property
    def integral(self) -> bool:
        """True when the coefficients and the sides are integers (the row is decided in integers)."""
        return bool(getattr(self, "_integral", False))

    def _values(self, x: np.ndarray) -> np.ndarray:
        return x if self.on == "units" else (x != 0).astype(float)

    def violations(self, x: np.ndarray, names: Callable[[int], str]) -> list[str]:
        v = self._values(x)
        coef = np.asarray(self.coef)
        tol = 0.0 if self.integral else FEASIBILITY_TOL
        what = "sum coef x" if self.on == "units" else "sum coef [x > 0]"
        out = []
        if self.lower is not None and not linear_at_least(v, coef, 0.0, (self.lower, -tol), nonnegative=True):
            out.append(f"{self.name}: {what} = {float(weighted_sum(v, coef)):.6g} < {exact_text(self.lower)}")
        if self.upper is not None and not linear_at_least(v, -coef, 0.0, (-self.upper, -tol), nonnegative=True):
            out.append(f"{self.name}: {what} = {float(weighted_sum(v, coef)):.6g} > {exact_text(self.upper)}")
        return out

    def rows(self) -> tuple[ConstraintRow, ...]:
        coef = np.asarray(self.coef, dtype=float)
        inf = math.inf
        real = not self.integral
        tol = FEASIBILITY_TOL if real else 0.0
        if not real and self.lower is not None and self.lower == self.upper:  # an integral equation
            return (ConstraintRow(coef, self.on, float(self.lower), float(self.lower), False, 0.0),)
        # One row per side (every file format and backend reads a row with one side).
        sides = []
        two = self.lower is not None and self.upper is not None
        if self.lower is not None:
            sides.append(ConstraintRow(coef, self.on, self.lower - tol, inf, real, tol, "_min" if two else "",
                                       (self.lower, -tol) if real else None))
        if self.upper is not None:
            sides.append(ConstraintRow(coef, self.on, -inf, self.upper + tol, real, tol, "_max" if two else "",
                                       (self.upper, tol) if real else None))
        return tuple(sides)

    def describe(self) -> str:
        body = "sum coef x" if self.on == "units" else "sum coef [x > 0]"
        if self.lower is not None and self.upper is not None:
            if self.lower == self.upper:
                return f"{self.name} ({body} == {exact_text(self.lower)})"
            return f"{self.name} ({exact_text(self.lower)} <= {body} <= {exact_text(self.upper)})"
        if self.lower is not None:
            return f"{self.name} ({body} >= {exact_text(self.lower)})"
        return f"{self.name} ({body} <= {exact_text(float(self.upper))})"  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return (f"LinearConstraint(name={self.name!r}, on={self.on!r}, lower={self.lower!r}, "
                f"upper={self.upper!r})")


class QualityFloor(Constraint):
    """The units taken average at least ``alpha`` on a further quality attribute ``values``.

    ``sum_i (v_i - alpha) x_i >= 0``, the linear form of an average (Deva et al., Section 3, the
    quality constraint), decided by the same exact rule as the main quality row: the left side,
    evaluated exactly from the stored float64 numbers, is at least ``-FEASIBILITY_TOL``.  E.g. an
    on-time rate of 95 % beside the defect-free rate, or a second class of defects.

    Parameters
    ----------
    values : array-like of float, shape (n,), or mapping of str to float
        ``v_i`` in [0, 1] per agent (a mapping must name every agent).
    alpha : float
        The floor, in [0, 1].
    name : str, default "quality_floor"
        Names the row and the violations (letters, digits, ``_``, ``.``).

    Raises
    ------
    ValueError
        ``alpha`` outside [0, 1], a bad name; when bound to a problem: values of the wrong length,
        outside [0, 1] or non-finite, an agent missing from a mapping (naming the agent and value).

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem
    >>> from subsel.models import QualityFloor
    >>> p = SubsetSelectionProblem([0.9, 0.8], [0.1, 0.2], alpha=0.75,
    ...                            constraints=[QualityFloor([0.99, 0.90], 0.95, name="ontime")])
    >>> p.evaluate([1, 1]).feasible, p.evaluate([1, 0]).feasible
    (False, True)
    """

    kind = "quality_floor"
    #: ``values - alpha`` once bound, shape (n,).
    margin: np.ndarray

    def __init__(self, values: Any, alpha: float, name: str = "quality_floor"):
        self.name = check_constraint_name(name, "QualityFloor")
        a = _check_scalar(alpha, f"QualityFloor {name!r}: alpha")
        if not 0.0 <= a <= 1.0:
            raise ValueError(f"QualityFloor {name!r}: alpha must be in [0, 1]; got {a}")
        self.alpha = a
        self.values = values
        self._n: int | None = None

    def bind(self, n: int, names: Callable[[], tuple[str, ...]]) -> QualityFloor:
        if self.bound:
            self._check_n(n)
            return self
        field = f"QualityFloor {self.name!r} values"
        v = _per_agent(self.values, n, names, field, None)
        bad = np.flatnonzero((v < 0) | (v > 1))
        if bad.size:
            i = int(bad[0])
            raise InputError("must be in [0, 1]", column=field, row=i, value=float(v[i]))
        out = QualityFloor(v, self.alpha, self.name)
        out._n = n
        out.margin = readonly(v - self.alpha, copy=False)
        return out

    def violations(self, x: np.ndarray, names: Callable[[int], str]) -> list[str]:
        margin = self.margin
        if linear_at_least(x, np.asarray(self.values), self.alpha, (-FEASIBILITY_TOL,), shifted=margin,
                           nonnegative=True):
            return []
        surplus = float(weighted_sum(x, margin))
        return [f"{self.name}: sum (v - alpha) x = {surplus:.3g} < -{FEASIBILITY_TOL:g} (average below "
                f"{exact_text(self.alpha)})"]

    def rows(self) -> tuple[ConstraintRow, ...]:
        return (ConstraintRow(np.asarray(self.margin, dtype=float), "units", -FEASIBILITY_TOL, math.inf, True,
                              FEASIBILITY_TOL, side=(-FEASIBILITY_TOL,)),)

    def describe(self) -> str:
        return f"{self.name} (average at least {exact_text(self.alpha)})"

    def rows_exact(self) -> bool:
        """True when every stored margin ``fl(v_i - alpha)`` is ``v_i - alpha`` exactly."""
        return exactly_shifted(np.asarray(self.values, dtype=float), self.alpha)

    def __repr__(self) -> str:
        return f"QualityFloor(name={self.name!r}, alpha={self.alpha!r})"


def bind_all(constraints: Any, n: int, names: Callable[[], tuple[str, ...]]) -> tuple[Constraint, ...]:
    """Validate a problem's ``constraints`` argument: a sequence of :class:`Constraint` with unique
    names, each bound to the ``n`` agents.

    Raises
    ------
    TypeError
        Not a sequence of constraint objects.
    ValueError
        Two constraints with the same name; as each constraint's :meth:`Constraint.bind`.
    """
    if constraints is None:
        return ()
    if isinstance(constraints, Constraint):
        constraints = (constraints,)
    if isinstance(constraints, (str, bytes, Mapping)) or not isinstance(constraints, (Sequence, tuple, list)):
        raise TypeError("constraints must be a sequence of constraint objects (LinearConstraint, QualityFloor, "
                        f"...); got {type(constraints).__name__}")
    out: list[Constraint] = []
    seen: set[str] = set()
    for j, c in enumerate(constraints):
        if not isinstance(c, Constraint):
            raise TypeError(f"constraints[{j}] must be a constraint object (LinearConstraint, QualityFloor, ...); "
                            f"got {type(c).__name__}")
        if c.name in seen:
            raise ValueError(f"constraints[{j}]: the name {c.name!r} is used twice; give each constraint its own "
                             "name")
        seen.add(c.name)
        out.append(c.bind(n, names))
    return tuple(out)
