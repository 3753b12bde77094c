"""The known-quality subset-selection problem (Deva, Abhishek, Gujar, AAMAS 2021, Section 3).

Agents ``i = 0..n-1`` have a quality ``q_i`` in [0, 1], a per-unit cost ``c_i >= 0`` and a capacity
``k_i`` (units).  The planner picks integer units ``0 <= x_i <= k_i`` to

    maximize   sum_i r_i x_i,          r_i = R q_i - c_i
    subject to sum_i (q_i - alpha) x_i >= 0      (average quality of the units >= alpha)

plus the optional extensions budget, demand and must-take / must-not-take lists, and the planner's
fields (minimum orders, lot sizes, fixed costs, groups with limits; :mod:`subsel.models.planner`).

This module is above 600 lines (about 760): the planner's five fields and the constraint objects
must be declared on the dataclass, with their parameters documented, and the constructors from
inspection counts, knapsacks and tables live on the class; their checks and their evaluation live in
:mod:`subsel.models.planner`, their hooks in the feasibility rule in :mod:`subsel.models.feasibility`.
The linear quality
constraint is written once, here (:meth:`SubsetSelectionProblem.quality_surplus`), decided by the
rules of :mod:`subsel.models.rules`, and every answer of every solver is checked by
:meth:`SubsetSelectionProblem.evaluate`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

import numpy as np

from .._random import as_generator
from .._validation import as_float_array as _as_float_array
from .._validation import check_array_range, check_capacity
from .._validation import check_scalar as _check_scalar
from .._validation import readonly as _readonly
from .checks import _check_constraints, _Names, _unit_capacities, _used_extensions, check_names, default_names
from .constraints import Constraint, bind_all
from .feasibility import selection_violations
from .keyword_constraints import InForce
from .planner import PlannerFields, check_planner
from .rules import (
    _BLAS_DOT_MAX_N,
    FEASIBILITY_TOL,
    MAX_COST,
    MAX_EXACT_INT,
    R_RANGE,
    Partition,
    linear_at_least,
    partition_masks,
    weighted_sum,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .knapsack_encoding import IntegerKnapsack

#: Longest selection whose last evaluation a problem keeps (the fixed cost of small solves).
_MEMO_MAX_N = 1024


class Evaluation(NamedTuple):
    """What a selection is worth and whether it is allowed.

    Attributes
    ----------
    utility : float
        ``sum r_i x_i - sum f_i [x_i > 0]`` (revenue units; ``f`` the fixed costs, 0 by default).
    avg_quality : float
        ``sum q_i x_i / sum x_i``; NaN when no unit is selected.
    units : int
        ``sum x_i``.
    feasible : bool
        True when ``violations`` is empty.
    violations : tuple of str
        One readable line per violated constraint (quality, budget, demand, capacity, must lists).
    """

    utility: float
    avg_quality: float
    units: int
    feasible: bool
    violations: tuple[str, ...]




@dataclass(frozen=True, eq=False)
class SubsetSelectionProblem:
    """An instance of known-quality subset selection (Deva et al., Section 3, eq. (1)).

    Immutable: arrays are stored as read-only copies and every field is validated at construction.

    Parameters
    ----------
    quality : array-like of float, shape (n,)
        ``q_i`` in [0, 1]: probability that one unit of agent ``i`` is good.
    cost : array-like of float, shape (n,)
        ``c_i >= 0``: cost per unit, in revenue units.
    alpha : float
        Quality threshold in [0, 1]: the average quality of the selected units must be ``>= alpha``.
    capacity : array-like of int, shape (n,), optional
        ``k_i >= 1`` units available from agent ``i``; default all 1.
    R : float, default 1.0
        Revenue per good unit (``R > 0``); per-unit utility is ``r_i = R q_i - c_i``.
    names : sequence of str, shape (n,), optional
        Unique, non-empty agent names; default ``"0", "1", ...`` (built when first read, see
        :func:`default_names`).
    budget : float, optional
        Extension: ``sum c_i x_i <= budget`` (``budget >= 0``).
    demand : int, optional
        Extension: ``sum x_i >= demand`` (may make the problem infeasible).
    must_take : sequence of int or str, optional
        Extension: agents (indices or names) with ``x_i >= 1``.
    must_not_take : sequence of int or str, optional
        Extension: agents (indices or names) with ``x_i = 0``.
    objective_quality : array-like of float, shape (n,), optional
        Qualities used in the objective only: ``r_i = R objective_quality_i - c_i``, while the
        quality constraint keeps using ``quality``.  Default ``None`` means ``quality`` (the paper's
        model).  Used by bandit policies that are optimistic in the objective but cautious in the
        constraint (UCB / LCB), and to minimise utility; every solver reads :attr:`utility`, so
        every solver handles it unchanged.
    min_units : array-like of int, shape (n,), or int, optional
        Planner's field: minimum order ``m_i`` with ``1 <= m_i <= k_i``; an agent that is used
        gives ``x_i >= m_i`` (a must-take agent at least ``m_i``).  Default all 1.
    lot_size : array-like of int, shape (n,), or int, optional
        Planner's field: ``x_i`` is a multiple of ``l_i >= 1``; some multiple must lie in
        ``[m_i, k_i]``.  Default all 1.
    fixed_cost : array-like of float, shape (n,), or float, optional
        Planner's field: ``f_i >= 0`` (revenue units), paid once when ``x_i > 0``; the utility is
        ``sum r_i x_i - sum f_i [x_i > 0]`` and a budget counts ``sum c_i x_i + sum f_i [x_i > 0]``.
        Default all 0.
    group : sequence of (str or None), shape (n,), optional
        Planner's field: each agent's group label; None or ``""``: no group.  Stored as a tuple,
        or None when no agent has a group.
    group_limits : mapping, optional
        Planner's field: ``{group: {key: limit}}`` with keys ``min_units``, ``max_units``,
        ``min_agents``, ``max_agents`` (non-negative integers; a missing key or None: no limit):
        ``sum_{i in g} x_i`` and ``sum_{i in g} [x_i > 0]`` lie within them.  The planner's fields
        follow supplier-selection models (Aissaoui, Haouari, Hassini, *Computers & OR* 34, 2007,
        Section 4); see :mod:`subsel.models.planner`.
    constraints : sequence of Constraint, optional
        Further constraints as objects (:mod:`subsel.models.constraints`): any linear constraint on
        the units or on the used agents (:class:`~subsel.models.LinearConstraint`), further
        quality attributes (:class:`~subsel.models.QualityFloor`).  Each is checked against the
        agents (a mapping by agent name resolved) and stored bound, in a tuple; names must be
        unique.  An object that stands for a keyword (:class:`~subsel.models.Budget`,
        :class:`~subsel.models.Demand`, :class:`~subsel.models.MustTake`,
        :class:`~subsel.models.MustNotTake`, :class:`~subsel.models.GroupLimit`) sets that keyword
        (refused when the keyword is given too).  Default none.  Read back, :attr:`constraints`
        lists every constraint in force: the keywords' objects first
        (:mod:`subsel.models.keyword_constraints`), then these (:attr:`added_constraints`).

    Raises
    ------
    ValueError
        Naming the field, the first offending index and its value: NaN or infinite numbers, quality
        (or objective_quality) outside [0, 1], negative cost, capacity not a positive integer,
        alpha outside [0, 1], R <= 0, arrays of different lengths, no agents, empty or duplicate
        names, an agent in both must lists, an unknown agent in a must list, negative budget or
        demand.  An integer ``demand`` is kept exactly (no rounding through float).  For the
        planner's fields: a minimum order below 1 or above the capacity, a lot size that leaves
        an agent no allowed positive count, a negative fixed cost, non-integral counts, a group
        in ``group_limits`` that no agent has, an unknown key or a negative limit (naming the
        field, the index or group and the value).
    TypeError
        When a field is not of a numeric / sequence kind at all, or an array holds booleans
        (numpy would read ``True`` as 1.0; a boolean is never a quality, cost or capacity).

    Attributes
    ----------
    knapsack : IntegerKnapsack or None
        For a problem built by :meth:`from_knapsack` from integer data: the knapsack's integers,
        which decide its quality constraint when float64 does not hold them exactly; else None.

    Examples
    --------
    >>> from subsel.models import SubsetSelectionProblem
    >>> p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.2, 0.1], alpha=0.7)
    >>> p.utility.tolist()
    [0.7, 0.4]
    >>> p.evaluate([1, 1]).feasible
    True
    """

    # The annotations are the attributes' types once validated: ``__post_init__`` turns every input
    # (array-likes, None for a default) into these, so ``capacity``, ``names``, ``must_take`` and
    # ``must_not_take`` are never None on an instance although None is their constructor default.
    quality: np.ndarray
    cost: np.ndarray
    alpha: float
    capacity: np.ndarray = None  # type: ignore[assignment]
    R: float = 1.0
    names: _Names = _Names()
    budget: float | None = None
    demand: int | None = None
    must_take: np.ndarray = None  # type: ignore[assignment]
    must_not_take: np.ndarray = None  # type: ignore[assignment]
    objective_quality: np.ndarray | None = None
    min_units: np.ndarray = None  # type: ignore[assignment]
    lot_size: np.ndarray = None  # type: ignore[assignment]
    fixed_cost: np.ndarray = None  # type: ignore[assignment]
    group: tuple[str | None, ...] | None = None
    group_limits: Mapping[str, Mapping[str, int]] = None  # type: ignore[assignment]
    constraints: tuple[Constraint, ...] = InForce()  # type: ignore[assignment]
    # The per-instance modes (not constructor arguments; set by the constructor and the knapsack
    # encoding; read through :attr:`mode`, the one thing solvers dispatch on).
    #: The planner's fields in force (set by ``_set_planner``): None for the paper's model.
    _planner: PlannerFields | None = field(default=None, init=False, repr=False, compare=False)
    #: The integer data of a problem built from an integer 0-1 knapsack (:meth:`from_knapsack`),
    #: else None.  A copy made with :meth:`with_changes` is a new problem and does not keep it.
    knapsack: IntegerKnapsack | None = field(default=None, init=False, repr=False, compare=False)
    #: The same, when the float64 encoding is not exact: the quality constraint is then decided on
    #: these integers (:meth:`IntegerKnapsack.violation`).
    _integer_rule: IntegerKnapsack | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        q = _as_float_array(self.quality, "quality")
        c = _as_float_array(self.cost, "cost")
        n = q.size
        if n == 0:
            raise ValueError("quality must hold at least one agent; got 0 agents")
        if c.size != n:
            raise ValueError(f"cost has {c.size} entries but quality has {n}; arrays must have the same length")
        check_array_range(q, "quality", 0.0, 1.0, "in [0, 1]")
        if c.min() < 0 or c.max() > MAX_COST:  # one pass each; the rules and their messages below
            check_array_range(c, "cost", 0.0, rule=">= 0")
            check_array_range(c, "cost", high=MAX_COST, rule=f"at most {MAX_COST:g} (the range subsel handles "
                              "exactly)")
        if self.capacity is None:
            k = _unit_capacities(n)
        else:
            k = check_capacity(self.capacity, limit=MAX_EXACT_INT)
            if k.size != n:
                raise ValueError(
                    f"capacity has {k.size} entries but quality has {n}; arrays must have the same length")
        alpha = _check_scalar(self.alpha, "alpha")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1]; got {alpha}")
        R = _check_scalar(self.R, "R")
        if R <= 0:
            raise ValueError(f"R must be > 0; got {R}")
        if not R_RANGE[0] <= R <= R_RANGE[1]:
            raise ValueError(f"R must be in [{R_RANGE[0]:g}, {R_RANGE[1]:g}] (the range subsel handles "
                             f"exactly; rescale the money unit); got {R}")
        added = self.__dict__.get("_added") or ()
        if isinstance(added, (list, tuple)) and any(c.keyword is not None for c in added
                                                   if isinstance(c, Constraint)):
            added = self._set_keywords(added)
        names = check_names(n, self.__dict__["_names"])  # None: the default names, made when read
        budget, demand, must_take, must_not_take = _check_constraints(
            n, lambda: default_names(n) if names is None else names, self.budget, self.demand,
            self.must_take, self.must_not_take)
        # The validated fields, in one update of the instance's dict (what object.__setattr__ of a
        # frozen dataclass does field by field; ``names`` is stored as ``_names``, as its descriptor
        # stores it).
        self.__dict__.update(quality=_readonly(q, copy=False), cost=_readonly(c, copy=False),
                             capacity=_readonly(k, copy=False), alpha=alpha, R=R, _names=names, budget=budget,
                             demand=demand, must_take=_readonly(must_take, copy=False),
                             must_not_take=_readonly(must_not_take, copy=False))
        if self.objective_quality is not None:
            oq = _as_float_array(self.objective_quality, "objective_quality")
            if oq.size != n:
                raise ValueError(f"objective_quality has {oq.size} entries but quality has {n}; "
                                 "arrays must have the same length")
            check_array_range(oq, "objective_quality", 0.0, 1.0, "in [0, 1]")
            self.__dict__["objective_quality"] = _readonly(oq, copy=False)
        self._set_planner(check_planner(n, k, self.min_units, self.lot_size, self.fixed_cost, self.group,
                                        self.group_limits))
        self.__dict__.pop("_in_force", None)
        self.__dict__["_added"] = bind_all(added, n, lambda: self.names) if added else ()

    def _set_keywords(self, given: Sequence[Any]) -> tuple[Any, ...]:
        """The objects of ``given`` that stand for a keyword (:class:`~subsel.models.Budget`, ...)
        set it (refused when the keyword is given too); the others are returned."""
        keywords = {key: self.__dict__.get(key) for key in ("budget", "demand", "must_take", "must_not_take",
                                                          "group_limits")}
        rest = []
        for j, c in enumerate(given):
            if isinstance(c, Constraint) and c.keyword is not None:
                c.set_keyword(keywords, f"constraints[{j}]")  # type: ignore[attr-defined]
            else:
                rest.append(c)
        self.__dict__.update(keywords)
        return tuple(rest)

    @property
    def mode(self) -> str:
        """How this instance is decided: the one thing solvers dispatch on (``Solver.solve``).

        * ``"integers"``: a knapsack beyond exact float64 arithmetic (:meth:`from_knapsack`), whose
          quality constraint is decided on the integers of :attr:`knapsack`;
        * ``"planner"``: the planner's fields are in force (minimum orders, lot sizes, fixed costs,
          group limits; :mod:`subsel.models.planner`);
        * ``"paper"``: the model of Deva et al., Section 3, with at most a budget, a demand, must
          lists and constraint objects.
        """
        if self._integer_rule is not None:
            return "integers"
        return "paper" if self._planner is None else "planner"

    @property
    def added_constraints(self) -> tuple[Constraint, ...]:
        """The constraint objects given with ``constraints=[...]`` (any linear constraint, further
        quality attributes), without the keywords' ones; :attr:`constraints` lists both."""
        added: tuple[Constraint, ...] = self.__dict__.get("_added", ())
        return added

    def _set_planner(self, planner: PlannerFields) -> None:
        """Store the planner's fields (:mod:`subsel.models.planner`); ``_planner`` is None when
        none of their constraints is in force (the paper's model: the fast paths apply)."""
        self.__dict__.update(min_units=planner.min_units, lot_size=planner.lot_size, fixed_cost=planner.fixed_cost,
                             group=planner.group, group_limits=planner.group_limits,
                             _planner=planner if planner.used else None)

    @classmethod
    def _trusted(cls, quality: np.ndarray, cost: np.ndarray, alpha: float, capacity: np.ndarray, R: float,
                 names: tuple[str, ...], budget: float | None, demand: int | None, must_take: np.ndarray,
                 must_not_take: np.ndarray, objective_quality: np.ndarray | None,
                 planner: PlannerFields | None = None, constraints: tuple[Constraint, ...] = ()
                 ) -> "SubsetSelectionProblem":
        """A problem from fields that are already valid (read-only arrays of the right shapes and
        kinds, as the constructor stores them; the planner's fields checked against ``capacity``,
        the constraint objects bound to the agents): a row of a validated batch.  No checks."""
        self = object.__new__(cls)
        set_ = functools.partial(object.__setattr__, self)
        for key, value in (("quality", quality), ("cost", cost), ("alpha", alpha), ("capacity", capacity),
                           ("R", R), ("names", names), ("budget", budget), ("demand", demand),
                           ("must_take", must_take), ("must_not_take", must_not_take),
                           ("objective_quality", objective_quality), ("constraints", constraints)):
            set_(key, value)
        self._set_planner(check_planner(quality.size, capacity, None, None, None, None, None) if planner is None
                          else planner)
        return self

    # ------------------------------------------------------------------ derived quantities
    @property
    def n(self) -> int:
        """Number of agents."""
        return int(self.quality.size)

    @functools.cached_property
    def utility(self) -> np.ndarray:
        """Per-unit utility ``r = R q - c``, read-only float array of shape (n,) (Deva et al., Section 3).

        ``q`` here is :attr:`objective_quality` when it is set, else :attr:`quality`.
        """
        q = self.quality if self.objective_quality is None else self.objective_quality
        return _readonly(self.R * q - self.cost)

    @functools.cached_property
    def quality_margin(self) -> np.ndarray:
        """``q - alpha``, shape (n,): the coefficients of the linear quality constraint (Deva et al., Section 3)."""
        return _readonly(self.quality - self.alpha)

    @property
    def extensions(self) -> frozenset[str]:
        """The optional constraints this instance uses, a subset of :data:`EXTENSIONS`."""
        used = _used_extensions(self)
        if self.added_constraints:
            used |= {c.kind for c in self.added_constraints}
        return used if self._planner is None else used | self._planner.used

    def lower_bounds(self) -> np.ndarray:
        """Per-agent lower bound on ``x``: the minimum order ``min_units`` (1 by default) for must-take
        agents, else 0. int64 array of shape (n,)."""
        lb = np.zeros(self.n, dtype=np.int64)
        lb[self.must_take] = 1 if self._planner is None else self.min_units[self.must_take]
        return lb

    def upper_bounds(self) -> np.ndarray:
        """Per-agent upper bound on ``x``: 0 for must-not-take agents, else the capacity (rounded down
        to a multiple of the lot size). int64 array of shape (n,)."""
        ub = np.array(self.capacity, dtype=np.int64)
        if self._planner is not None and "lot_size" in self._planner.used:
            ub -= ub % self.lot_size  # the largest multiple of the lot size
        ub[self.must_not_take] = 0
        return ub

    def partition(self) -> Partition:
        """Split the agents into the classes S1..S4 (Deva et al., Section 5.1).

        Returns
        -------
        Partition
            Four disjoint sorted index arrays covering ``0..n-1``.  An agent with ``q == alpha`` goes
            to S1 when ``r >= 0`` and to S4 when ``r < 0`` (it adds nothing and costs).
        """
        return Partition(*(np.flatnonzero(m) for m in partition_masks(self.quality, self.utility, self.alpha)))

    def quality_surplus(self, x: np.ndarray) -> np.ndarray | np.floating[Any]:
        """Left side of the quality constraint, ``sum_i (q_i - alpha) x_i`` (Deva et al., Section 3, the linear form).

        Parameters
        ----------
        x : array-like, shape (n,) or (m, n)
            Selections (units per agent); a 2-D array is a batch of selections, one per row.

        Returns
        -------
        float or ndarray of shape (m,)
            The surplus; the selection satisfies the quality constraint when it is
            ``>= -FEASIBILITY_TOL``.
        """
        xa = np.asarray(x, dtype=float)
        if xa.ndim == 2:  # a batch: one matrix product
            return xa @ self.quality_margin
        return weighted_sum(xa, self.quality_margin)

    def evaluate(self, x: Sequence[int] | np.ndarray) -> Evaluation:
        """Utility, average quality and feasibility of a selection (Deva et al., Section 3, eq. (1)).

        **The feasibility rule** (one rule for every solver, batch check and test of subsel):
        ``x`` is feasible when

        * every ``x_i`` is a whole number with ``lb_i <= x_i <= ub_i`` (``0 <= x_i <= k_i``;
          ``x_i >= 1`` for must-take agents, ``x_i = 0`` for must-not-take agents);
        * ``sum_i (q_i - alpha) x_i >= -1e-9`` (:data:`FEASIBILITY_TOL`), the left side evaluated
          *exactly* from the stored float64 numbers ``q_i`` and ``alpha`` (no rounding: the float
          sum decides when it is clear of ``-1e-9`` by more than its proven rounding error, exact
          integer arithmetic otherwise);
        * with a budget, ``sum_i c_i x_i <= B + 1e-9``, likewise exactly;
        * with a demand, ``sum_i x_i >= D`` in integers;
        * with the planner's fields: ``x_i = 0`` or ``x_i >= min_units_i``; ``x_i`` a multiple of
          ``lot_size_i``; a budget counts ``sum_i c_i x_i + sum_i f_i [x_i > 0]`` (exactly, as
          above); each group's units and used agents within its ``group_limits`` (integers).

        Why absolute and 1e-9: the left side of the quality row is a sum of quality surpluses in
        units of "good units", a scale that does not depend on the money unit ``R``; 1e-9 absorbs
        the rounding of data that were computed in floating point (e.g. ``0.7 + 0.1 - 0.8``) and is
        far below any meaningful quality difference, while a relative tolerance would let a large
        selection violate the average-quality constraint by a large absolute amount.  Deciding
        the rule exactly makes it a property of the problem, not of a summation order, so every
        backend solves the same problem and brute force can check them.

        An answer called ``optimal`` has a utility of at least ``OPT - 1e-9 |OPT|``
        (:data:`OPTIMALITY_RTOL`), ``OPT`` the best utility ``sum r_i x_i`` of a feasible
        selection, with ``r_i`` the stored :attr:`utility`.

        Parameters
        ----------
        x : array-like of int, shape (n,)
            Units taken from each agent.

        Returns
        -------
        Evaluation
            ``feasible`` is True when every rule above holds; ``violations`` names each constraint
            that fails, the first one first, each line starting with the constraint's name;
            ``utility`` is the float sum ``sum r_i x_i`` minus the fixed costs of the used agents.

        Raises
        ------
        ValueError
            When ``x`` has the wrong shape or holds non-finite numbers.
        """
        if type(x) is np.ndarray and x.dtype.kind in "iu" and x.shape == (self.n,) and self.budget is None \
                and self.demand is None and not self.must_take.size and not self.must_not_take.size \
                and self._planner is None and self._integer_rule is None and not self.__dict__.get("_added"):
            quick = self._evaluate_integers(x)
            if quick is not None:
                return quick
        # Integer input (every solver's answer) is whole and finite: those two passes are skipped.
        integral = isinstance(x, np.ndarray) and x.dtype.kind in "iu"
        xa = np.asarray(x, dtype=float)
        if xa.shape != (self.n,):
            raise ValueError(f"x must have shape ({self.n},); got {xa.shape}")
        if not integral and not np.all(np.isfinite(xa)):
            i = int(np.flatnonzero(~np.isfinite(xa))[0])
            raise ValueError(f"x[{i}] must be a finite number; got {xa[i]}")
        violations, units, work = selection_violations(self, xa, integral)
        utility = float(weighted_sum(xa, self.utility, out=work))
        if self._planner is not None and "fixed_cost" in self._planner.used:
            utility -= math.fsum(self.fixed_cost[xa != 0].tolist())
        avg = float(weighted_sum(xa, self.quality, out=work) / units) if units > 0 else float("nan")
        return Evaluation(utility, avg, units, not violations, tuple(violations))

    def _evaluate_integers(self, x: np.ndarray) -> Evaluation | None:
        """:meth:`evaluate` of an integer array of shape (n,) on a problem without extensions, in a
        few whole-array operations (the fixed cost of checking a solver's answer on small problems).

        The same rule and the same float sums as the general path (bit for bit); ``None`` when ``x``
        is outside its bounds (the general path then names the violations) or when its units could
        pass 2^53.  On short vectors the last answer is kept with the bytes of its ``x``: the same
        selection asked again (a solver's own check, then the answer check of ``Solver.solve``)
        gets the same answer without the sums, since the problem never changes.
        """
        n = x.size
        key = None
        if n <= _MEMO_MAX_N:
            key = (x.dtype.char, x.tobytes())
            last = self.__dict__.get("_last_evaluation")
            if last is not None and last[0] == key:
                return last[1]
        if n * self._max_capacity > MAX_EXACT_INT:
            return None
        # 0 <= x <= k in one pass: a negative int64 read as uint64 is above 2^63 > every capacity.
        xu = (x if x.dtype == np.int64 else x.astype(np.int64)).view(np.uint64)
        if self._max_capacity == 1:
            if int(xu.max()) > 1:  # a reduction, no boolean temporary
                return None
            units = int(np.count_nonzero(xu))
        elif np.greater(xu, self.capacity.view(np.uint64)).any():
            return None
        else:
            units = int(np.add.reduce(xu))  # exact: n * max capacity <= 2^53
        if n <= _BLAS_DOT_MAX_N:  # weighted_sum's short vectors: ndarray.dot, called directly
            xf = x.astype(float)
            dot = xf.dot
            surplus, magnitude = float(dot(self.quality_margin)), float(dot(self._abs_margin))
            utility, quality = float(dot(self.utility)), dot(self.quality)
        else:
            # Long vectors: one scratch array for the four products instead of four temporaries
            # (the float copy first: a product of float64s is twice as fast as int64 by float64).
            xf, work = x.astype(float), np.empty(n)
            surplus = float(weighted_sum(xf, self.quality_margin, out=work))
            magnitude = float(weighted_sum(xf, self._abs_margin, out=work))
            utility = float(weighted_sum(xf, self.utility, out=work))
            quality = weighted_sum(xf, self.quality, out=work)
        # x >= 0, so sum |x| |q - alpha| is x . |q - alpha|: the rounding-error bound of the surplus.
        feasible = linear_at_least(xf, self.quality, self.alpha, (-FEASIBILITY_TOL,), estimate=surplus,
                                   magnitude=magnitude)
        avg = float(quality / units) if units > 0 else float("nan")
        violations = () if feasible else (f"quality: sum (q - alpha) x = {surplus:.3g} < -{FEASIBILITY_TOL:g}",)
        ev = Evaluation(utility, avg, units, feasible, violations)
        if key is not None:
            self.__dict__["_last_evaluation"] = (key, ev)  # one assignment: safe across threads
        return ev

    @functools.cached_property
    def _abs_margin(self) -> np.ndarray:
        """``|q - alpha|``, shape (n,) (the rounding-error bound of the quality surplus)."""
        return _readonly(np.abs(self.quality_margin), copy=False)

    @functools.cached_property
    def _max_capacity(self) -> int:
        """Largest capacity."""
        return int(self.capacity.max())

    def with_changes(self, **changes: Any) -> "SubsetSelectionProblem":
        """Return a validated copy with some fields replaced (the problem itself never changes).

        Parameters
        ----------
        **changes
            Any constructor argument, e.g. ``quality=q_hat, alpha=0.75``.

        Raises
        ------
        ValueError
            A changed field is invalid; or the problem is a knapsack beyond exact float64 arithmetic
            (:meth:`from_knapsack` with ``problem.knapsack.exact_in_float64`` false): its integers
            decide feasibility, a changed copy could not keep them, and its floats alone would call
            overweight selections feasible.
        """
        if self._integer_rule is not None:
            raise ValueError("this problem is a knapsack beyond exact float64 arithmetic (its integers decide "
                             "feasibility, problem.knapsack); a changed copy would lose them: solve it as it is, "
                             "or build the changed knapsack with SubsetSelectionProblem.from_knapsack")
        base: dict[str, Any] = dict(quality=self.quality, cost=self.cost, alpha=self.alpha, capacity=self.capacity,
                    R=self.R, names=self.__dict__["_names"], budget=self.budget, demand=self.demand,
                    must_take=self.must_take, must_not_take=self.must_not_take,
                    objective_quality=self.objective_quality, min_units=self.min_units,
                    lot_size=self.lot_size, fixed_cost=self.fixed_cost, group=self.group,
                    group_limits=self.group_limits, constraints=self.added_constraints)
        if self._planner is None:  # the defaults: validated again only when changed
            for key in ("min_units", "lot_size", "fixed_cost", "group_limits"):
                base[key] = None
        if changes.keys() == {"alpha"}:  # a new threshold only: nothing else is checked again
            alpha = _check_scalar(changes["alpha"], "alpha")
            if not 0.0 <= alpha <= 1.0:
                raise ValueError(f"alpha must be in [0, 1]; got {alpha}")
            new = object.__new__(SubsetSelectionProblem)
            # The validated fields and the derived values that do not depend on alpha (not the margins).
            new.__dict__.update((k, v) for k, v in self.__dict__.items() if k in _ALPHA_FREE)
            object.__setattr__(new, "alpha", alpha)
            return new
        base.update(changes)
        return SubsetSelectionProblem(**base)

    def with_constraints(self, *more: Constraint) -> "SubsetSelectionProblem":
        """A validated copy with the constraint objects ``more`` added to :attr:`constraints`.

        Parameters
        ----------
        *more : Constraint
            E.g. ``LinearConstraint(co2, upper=5000, name="co2")``.

        Raises
        ------
        ValueError, TypeError
            As the constructor's ``constraints`` (a repeated name, a constraint that does not fit
            the agents).
        """
        return self.with_changes(constraints=(*self.added_constraints, *more))

    # ------------------------------------------------------------------ constructors and I/O
    @classmethod
    def random(cls, n: int, alpha: float, rng: int | np.random.Generator | None = None,
               R: float = 1.0) -> "SubsetSelectionProblem":
        """The paper's random instance: ``q, c ~ U[0, 1]`` i.i.d. (Deva et al., Section 6.1).

        Parameters
        ----------
        n : int
            Number of agents (``>= 1``).
        alpha : float
            Quality threshold in [0, 1].
        rng : int, numpy.random.Generator or None
            Seed or generator; ``q`` is drawn first, then ``c``.
        R : float, default 1.0
            Revenue per good unit.

        Raises
        ------
        ValueError
            When ``n < 1`` (and as the constructor).
        """
        n = _check_scalar(n, "n", int, min_val=1)
        g = as_generator(rng, "rng")
        q = g.random(int(n))
        c = g.random(int(n))
        return cls(quality=q, cost=c, alpha=alpha, R=R)

    @classmethod
    def from_knapsack(cls, values: Sequence[float] | np.ndarray, weights: Sequence[float] | np.ndarray,
                      capacity: float) -> "SubsetSelectionProblem":
        """Encode a 0-1 knapsack instance as subset selection (the reduction behind the exact solver).

        Agent 0 is an anchor with ``r = 0`` and ``q - alpha = W s``; agent ``j + 1`` is item ``j``
        with ``q - alpha = -w_j s`` and ``r = p_j``.  The scale ``s`` and ``alpha`` are powers of two
        (times small integers), so integer data stays exact in floating point.  An optimal
        selection's utility equals the knapsack optimum, and ``x[1:]`` is the knapsack's 0/1 vector.

        Parameters
        ----------
        values : array-like of float, shape (m,)
            Item profits ``p_j >= 0``.
        weights : array-like of float, shape (m,)
            Item weights ``w_j >= 0``.
        capacity : float
            Knapsack capacity ``W >= 0`` (an int of any size).

        Returns
        -------
        SubsetSelectionProblem
            ``m + 1`` agents named ``anchor, item_0, ..., item_{m-1}``; for integer data its
            :attr:`knapsack` holds the integers (:class:`~subsel.models.IntegerKnapsack`).

        Notes
        -----
        **Integer data** (ints, or floats without a fractional part) are kept exactly, as an
        :class:`~subsel.models.IntegerKnapsack` in :attr:`knapsack`: each profit and weight at most
        ``2^62``, the profits and the weights each summing to at most ``2^62``.  Up to
        ``W + 3 max w <= 2^29`` with sums of at most ``2^53`` the float64 encoding is exact (checked:
        every profit is the stored utility of its agent, every ``q_j`` is ``alpha - w_j s``) and one
        unit of weight (``s >= 2^-29``) lies above the tolerance, so the feasibility rule of
        :meth:`evaluate` decides as the integers do and the encoding's optimum is the knapsack
        optimum.  Beyond that range the float64 numbers only approximate the data; the problem then
        decides its quality constraint on the integers (``weights . x[1:] <= W x[0]``, exactly), so
        that a selection is feasible exactly when it fits, and the ``exact`` solver solves it as an
        integer knapsack (Pisinger, Operations Research 45(5), 1997).

        **Real-valued data** are encoded as floats and feasibility is checked with the absolute
        tolerance 1e-9 on the scaled row, i.e. about ``1e-9 / s`` in knapsack weight units
        (``s <= 1 / (W + 3 max w)``, ``W`` capped at the total weight): weight differences below it
        are not seen.

        Raises
        ------
        ValueError
            Negative or non-finite profits, weights or capacity; arrays of different lengths; integer
            data beyond ``2^62`` (an entry, or a sum of profits or of weights, naming the item where
            it crosses).
        """
        from .knapsack_encoding import encode_knapsack  # the encoding builds on this module

        return encode_knapsack(cls, values, weights, capacity)

    @classmethod
    def from_counts(cls, good: Sequence[int] | np.ndarray, inspected: Sequence[int] | np.ndarray,
                    cost: Sequence[float] | np.ndarray, alpha: float, confidence: float = 0.95,
                    method: str = "clopper-pearson", **kwargs: Any) -> "SubsetSelectionProblem":
        """A problem whose qualities are known from inspections: ``good_i`` of ``inspected_i`` units.

        The objective uses the estimates ``good_i / inspected_i`` (:attr:`objective_quality`); the
        quality constraint uses lower confidence bounds ``l_i`` (:attr:`quality`) that hold for
        every agent at once with probability at least ``confidence`` (a union bound over the
        agents), so that with that probability the true average quality of **any** selection the
        problem accepts, the solver's plan included, is at least ``alpha`` (up to the rule's 1e-9).
        The bounds and why the guarantee holds: :mod:`subsel.models.inspections` (Hoeffding's
        bound is Deva et al., Section 4, Lemma 1; Clopper and Pearson's exact binomial bound, the
        default, is tighter).

        Parameters
        ----------
        good, inspected : array-like of int, shape (n,)
            ``0 <= good_i <= inspected_i``, ``inspected_i >= 1``.
        cost : array-like of float, shape (n,)
        alpha : float
        confidence : float, default 0.95
            In (0, 1).
        method : {"clopper-pearson", "hoeffding"}
        **kwargs
            Any other constructor argument (``capacity``, ``R``, ``names``, ``budget``,
            ``constraints``, ...); not ``quality`` or ``objective_quality``.

        Raises
        ------
        ValueError
            As :func:`subsel.models.inspections.lower_confidence_bounds` and the constructor.
        TypeError
            ``quality`` or ``objective_quality`` given.

        Examples
        --------
        >>> p = SubsetSelectionProblem.from_counts([48, 30], [50, 40], [0.2, 0.1], alpha=0.8,
        ...                                        method="hoeffding")
        >>> p.objective_quality.tolist(), [round(v, 3) for v in p.quality.tolist()]
        ([0.96, 0.75], [0.768, 0.535])
        """
        from .inspections import lower_confidence_bounds

        for key in ("quality", "objective_quality"):
            if key in kwargs:
                raise TypeError(f"from_counts takes no {key!r}: the counts give it")
        estimate, lower = lower_confidence_bounds(good, inspected, confidence, method)
        return cls(quality=lower, cost=np.asarray(cost), alpha=alpha, objective_quality=estimate, **kwargs)

    @classmethod
    def from_dataframe(cls, df: pd.DataFrame, alpha: float, R: float = 1.0, **extensions: Any
                       ) -> "SubsetSelectionProblem":
        """Build a problem from a table with columns ``quality, cost`` and optional ``name, capacity``.

        Parameters
        ----------
        df : pandas.DataFrame, shape (n, >= 2)
            One row per agent.
        alpha, R : float
            As in the constructor.
        **extensions
            ``budget``, ``demand``, ``must_take``, ``must_not_take``.

        Raises
        ------
        subsel.models.InputError
            A missing column, or a cell that is empty, not a number or breaks a constructor rule,
            naming the row (0-based) and the column.  A subclass of ``ValueError``.
        ValueError
            A bad setting (``alpha``, ``R``, an extension).
        """
        from .agents import problem_from_frame  # the agents schema builds on this module

        return problem_from_frame(df, alpha, R, cls=cls, **extensions)

    @classmethod
    def from_csv(cls, path: str | Path | Any, alpha: float, R: float = 1.0, **extensions: Any
                 ) -> "SubsetSelectionProblem":
        """Read agents from a CSV file with a header ``name, quality, cost, capacity``.

        ``name`` and ``capacity`` are optional columns.  ``path`` may also be an open stream (e.g.
        ``sys.stdin``): it is read as bytes and decoded as UTF-8 exactly like a file, and messages
        name the stream's ``name`` (``<stdin>``).  The format and its errors:
        :func:`subsel.models.read_agents`.

        Raises
        ------
        FileNotFoundError, IsADirectoryError, PermissionError
            The file cannot be opened.
        subsel.models.InputError
            Anything wrong in the file (not UTF-8, malformed quoting, missing or repeated columns,
            a row with more or fewer fields than the header, a bad cell), naming the file, the
            physical line and the column.  A subclass of ``ValueError``.
        """
        from .agents import read_agents  # the agents schema builds on this module

        return read_agents(path, alpha=alpha, R=R, cls=cls, **extensions)

    def to_dataframe(self) -> pd.DataFrame:
        """The agents as a table with columns ``name, quality, cost, capacity`` (n rows).

        The planner's columns follow where they say something, then one column per constraint
        object: a :class:`~subsel.models.LinearConstraint`'s coefficients or a
        :class:`~subsel.models.QualityFloor`'s values, named after the constraint (without the
        ``.used`` / ``.2`` suffixes the command line adds), so that ``--constraint`` and
        ``--quality-floor`` read them back.  The sides, like the budget, are settings and are not
        written.

        Raises
        ------
        ValueError
            A constraint object of a kind no column holds; two constraints (or a constraint and
            an agents column) that would write different numbers to one column, naming both.
        """
        from .agents import problem_to_frame  # the agents schema builds on this module

        return problem_to_frame(self)

    def to_csv(self, path: str | Path) -> None:
        """Write :meth:`to_dataframe` to ``path`` (atomically: a temporary file, then a rename).

        Floats are written with 17 significant digits, so :meth:`from_csv` reads them back bit for
        bit.  The columns of constraint objects are read back by the command line's
        ``--constraint`` / ``--quality-floor`` (or :func:`subsel.models.read_agents` with
        ``columns`` and ``constraints_from``).

        Raises
        ------
        ValueError
            As :meth:`to_dataframe`; nothing is written then.
        """
        from .agents import write_problem  # the agents schema builds on this module

        write_problem(self, path)

    def __repr__(self) -> str:
        ext = ", ".join(sorted(self.extensions))
        return (f"SubsetSelectionProblem(n={self.n}, alpha={self.alpha:g}, R={self.R:g}"
                + (f", extensions=[{ext}]" if ext else "") + ")")


#: What a copy at another threshold keeps (``with_changes(alpha=...)``): every validated field but
#: alpha (read from the dataclass, so a field added later is kept too: a constraint missing here
#: would vanish from the copies :func:`subsel.frontier` solves) and the derived values that do not
#: depend on alpha.
_ALPHA_FREE = frozenset({f.name for f in fields(SubsetSelectionProblem)
                         if f.name not in ("alpha", "names", "knapsack", "_integer_rule")}
                        | {"_names", "_planner", "utility", "_max_capacity", "_added", "_in_force"})
