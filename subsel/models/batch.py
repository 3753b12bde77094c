"""Many known-quality problems over the same agents, as one object: :class:`ProblemBatch`.

A batch holds ``m`` instances of the subset-selection problem of Deva, Abhishek, Gujar, *A
Multi-Arm Bandit Approach To Subset Selection Under Constraints* (AAMAS 2021), Section 3, that
share their number of agents ``n`` and their extensions (names, budget, demand, must lists); the
qualities, costs, capacities, thresholds ``alpha`` and revenues ``R`` may differ from row to row.
It is what SS-UCB's oracle is asked once per round for every simulated run (Section 4,
Algorithm 2), and what :meth:`subsel.solvers.Solver.solve_batch` takes.

Row ``j`` is exactly the problem :meth:`ProblemBatch.row` returns: the batch is validated once,
by the same rules (and with the same messages, plus the row) as
:class:`~subsel.models.SubsetSelectionProblem`, and :meth:`ProblemBatch.evaluate` and
:meth:`ProblemBatch.partition` give row by row what the problem's methods give.

The planner's fields and the constraint objects of a problem are shared by the rows; a batch that
holds them decides and solves each row as the one problem does.  Above 600 lines (about 650): the
batch declares and checks every field the problem takes, and keeps its fast path for the bandit
oracle's per-round qualities beside them.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Sequence

import numpy as np

from .._validation import as_float_array, check_array_range, check_capacity, check_scalar
from .checks import _used_extensions, check_extensions
from .constraints import Constraint, bind_all
from .feasibility import rows_violations
from .planner import PlannerFields, check_planner
from .problem import SubsetSelectionProblem
from .rules import MAX_EXACT_INT, exact_total, partition_masks, rowdot

__all__ = ["BatchEvaluation", "BatchPartition", "ProblemBatch"]


class BatchPartition(NamedTuple):
    """Boolean masks of the agent classes S1..S4 per row (Deva et al., Section 5.1).

    Each attribute is an ndarray of bool, shape (m, n); row ``j`` of ``S1`` holds True exactly at
    the indices ``row(j).partition().S1`` lists (likewise S2, S3, S4).
    """

    S1: np.ndarray
    S2: np.ndarray
    S3: np.ndarray
    S4: np.ndarray


class BatchEvaluation:
    """What ``m`` selections are worth and whether they are allowed, row by row.

    Row ``j`` agrees with ``batch.row(j).evaluate(x[j])``.  Feasibility is decided when the
    evaluation is made; utilities, average qualities and unit counts are computed when first read.

    Attributes
    ----------
    feasible : ndarray of bool, shape (m,)
        True where every constraint holds with the tolerance :data:`FEASIBILITY_TOL`.
    violations : tuple of tuple of str, length m
        Per row, one readable line per violated constraint (empty for feasible rows).
    utility : ndarray of float, shape (m,)
        ``sum_i r_i x_i`` per row.
    avg_quality : ndarray of float, shape (m,)
        ``sum q_i x_i / sum x_i``; NaN where no unit is selected.
    units : ndarray of int64, shape (m,)
        ``sum_i x_i`` per row.
    """

    def __init__(self, batch: ProblemBatch, x: np.ndarray, feasible: np.ndarray,
                 violations: tuple[tuple[str, ...], ...]):
        self._batch = batch
        self._x = x
        self.feasible = feasible
        self.violations = violations

    @functools.cached_property
    def utility(self) -> np.ndarray:
        out = rowdot(self._x, self._batch.utility)
        if "fixed_cost" in self._batch.extensions:  # minus the fixed costs of the used agents, as one problem
            f = self._batch.fixed_cost
            out = out - np.array([math.fsum(f[np.asarray(row) != 0].tolist()) for row in self._x])
        return out

    @functools.cached_property
    def _units(self) -> np.ndarray:
        return np.asarray(self._x, dtype=float).sum(axis=1)

    @functools.cached_property
    def units(self) -> np.ndarray:
        # Exact: int64 while every row's sum fits, Python ints (dtype object) past 2^63.
        x = np.asarray(self._x)
        if x.dtype.kind == "f" and not (x == np.round(x)).all():
            return np.rint(self._units).astype(np.int64)
        return exact_total(x, axis=1)

    @functools.cached_property
    def avg_quality(self) -> np.ndarray:
        units = self._units
        with np.errstate(invalid="ignore", divide="ignore"):
            avg = rowdot(self._x, self._batch.quality) / units
        return np.where(units > 0, avg, np.nan)

    def __len__(self) -> int:
        return int(self.feasible.size)

    def __repr__(self) -> str:
        return f"BatchEvaluation(m={len(self)}, feasible={int(self.feasible.sum())})"


#: The array arguments of a batch (validated one by one) and the arguments its rows share.
_ARRAYS = ("quality", "cost", "alpha", "R", "capacity", "objective_quality")
_SHARED = ("names", "budget", "demand", "must_take", "must_not_take")
#: The planner's fields and the constraint objects: shared by the rows, checked against each row's
#: capacities (a row is then decided as the one problem decides it).
_MODEL = ("min_units", "lot_size", "fixed_cost", "group", "group_limits", "constraints")


@dataclass(frozen=True, eq=False)
class ProblemBatch:
    """``m`` subset-selection problems over the same ``n`` agents, validated once.

    Each row is an instance of Deva et al., Section 3, eq. (1): maximise ``sum_i r_i x_i`` with
    ``r_i = R q_i - c_i`` subject to ``sum_i (q_i - alpha) x_i >= 0`` and ``0 <= x_i <= k_i``.
    Every array may be given once for all rows (shape (n,)) or per row (shape (m, n)); ``alpha``
    and ``R`` may be one number or one per row (shape (m,)).  The names and the extensions
    (budget, demand, must lists) are shared by all rows.  Immutable: arrays are stored read-only,
    broadcast to their full shapes ((m, n) and (m,)) without copying shared rows.

    Parameters
    ----------
    quality : array-like of float, shape (m, n) or (n,)
        ``q`` in [0, 1], used by the quality constraint.
    cost : array-like of float, shape (m, n) or (n,)
        ``c >= 0`` per unit (revenue units).
    alpha : float or array-like of float, shape (m,)
        Quality thresholds in [0, 1].
    R : float or array-like of float, shape (m,), default 1.0
        Revenue per good unit, ``> 0``.
    capacity : array-like of int, shape (m, n) or (n,), optional
        Units per agent ``>= 1``; default all 1.
    names : sequence of str, shape (n,), optional
        Agent names shared by every row (default ``"0", "1", ...``).
    budget, demand, must_take, must_not_take : optional
        The extensions of :class:`SubsetSelectionProblem`, shared by every row.
    objective_quality : array-like of float, shape (m, n) or (n,), optional
        Qualities used in the objective only (see ``SubsetSelectionProblem.objective_quality``).
    min_units, lot_size, fixed_cost, group, group_limits : optional
        The planner's fields of :class:`SubsetSelectionProblem`, shared by every row and checked
        against each row's capacities.
    constraints : sequence of Constraint, optional
        Constraint objects (:mod:`subsel.models.constraints`), shared by every row.

    Raises
    ------
    ValueError
        As :class:`SubsetSelectionProblem`, naming the field and the first offending
        ``[row, index]`` (e.g. ``quality[2, 5] must be in [0, 1]; got 1.5``); row counts that
        disagree; arrays of more than two dimensions.
    TypeError
        As :class:`SubsetSelectionProblem` (non-numbers, booleans).

    Notes
    -----
    The number of rows ``m`` is that of any per-row argument (all must agree); a batch whose
    arguments are all shared has one row.

    Examples
    --------
    >>> from subsel.models import ProblemBatch
    >>> b = ProblemBatch(quality=[[0.9, 0.6], [0.5, 0.95]], cost=[0.1, 0.1], alpha=0.7)
    >>> b.m, b.n
    (2, 2)
    >>> b.evaluate([[1, 1], [0, 1]]).feasible.tolist()
    [True, True]
    >>> b.row(1).quality.tolist()
    [0.5, 0.95]
    """

    # The annotations are the attributes' types once validated (``__post_init__`` normalises every
    # input), so the defaults that stand for "all ones" / "0, 1, ..." / "none" are never stored.
    quality: np.ndarray
    cost: np.ndarray
    alpha: np.ndarray
    R: np.ndarray = 1.0  # type: ignore[assignment]
    capacity: np.ndarray = None  # type: ignore[assignment]
    names: tuple[str, ...] = None  # type: ignore[assignment]
    budget: float | None = None
    demand: int | None = None
    must_take: np.ndarray = None  # type: ignore[assignment]
    must_not_take: np.ndarray = None  # type: ignore[assignment]
    objective_quality: np.ndarray | None = None
    min_units: Any = None
    lot_size: Any = None
    fixed_cost: Any = None
    group: Any = None
    group_limits: Any = None
    constraints: tuple[Constraint, ...] = ()
    #: The validated arguments before broadcasting (what ``with_changes`` reuses).
    _given: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    #: The planner's fields in force per distinct row of capacities (see :meth:`_check_model`).
    _planners: tuple[PlannerFields | None, ...] = field(default=(None,), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        given: dict[str, Any] = {key: self._check_field(key, getattr(self, key)) for key in _ARRAYS}
        ext = check_extensions(given["quality"].shape[-1], self.names, self.budget, self.demand,
                               self.must_take, self.must_not_take)
        self._assemble(given, ext)
        self._check_model({key: getattr(self, key) for key in _MODEL})

    def _check_model(self, model: dict[str, Any]) -> None:
        """Validate and store the planner's fields and the constraint objects (shared by the rows).

        The planner's fields are checked against every row's capacities (:func:`check_planner`, as
        the one problem checks them); the constraint objects are bound to the agents once.
        """
        set_ = functools.partial(object.__setattr__, self)
        constraints = bind_all(model.get("constraints"), self.n, lambda: self.names)
        set_("constraints", constraints)
        fields = [model.get(key) for key in _MODEL[:5]]
        if all(v is None for v in fields):
            for key in _MODEL[:5]:
                set_(key, None)
            set_("_planners", (None,))
            return
        k = self._given.get("capacity")
        rows = [np.ones(self.n, dtype=np.int64)] if k is None else ([k] if k.ndim == 1 else list(k))
        planners = []
        for j, cap in enumerate(rows):
            try:
                planners.append(check_planner(self.n, cap, *fields))
            except ValueError as exc:
                if len(rows) == 1:
                    raise
                raise ValueError(f"{exc} (against the capacities of row {j})") from None
        first = planners[0]
        set_("min_units", first.min_units)
        set_("lot_size", first.lot_size)
        set_("fixed_cost", first.fixed_cost)
        set_("group", first.group)
        set_("group_limits", first.group_limits)
        set_("_planners", tuple(p if p.used else None for p in planners))

    @property
    def _rowwise(self) -> bool:
        """True when the rows carry the planner's fields or constraint objects: each row is then
        solved and decided as the one problem (the one place a solver's batch path looks)."""
        return self._planners[0] is not None or bool(self.constraints)

    @classmethod
    def _check_field(cls, key: str, value: Any) -> np.ndarray | None:
        """One array argument validated alone (its own rules; widths and rows come later)."""
        if key == "quality":
            q = check_array_range(as_float_array(value, "quality", (1, 2)), "quality", 0.0, 1.0, "in [0, 1]")
            if q.shape[-1] == 0:
                raise ValueError("quality must hold at least one agent; got 0 agents")
            return q
        if key == "cost":
            return check_array_range(as_float_array(value, "cost", (1, 2)), "cost", 0.0, rule=">= 0")
        if key in ("capacity", "objective_quality") and value is None:
            return None
        if key == "capacity":
            return check_capacity(value, "capacity", (1, 2), limit=MAX_EXACT_INT)
        if key == "objective_quality":
            return check_array_range(as_float_array(value, "objective_quality", (1, 2)),
                                     "objective_quality", 0.0, 1.0, "in [0, 1]")
        arr = cls._per_row_number(value, key)
        if key == "alpha":
            return check_array_range(arr, "alpha", 0.0, 1.0, "in [0, 1]")
        if arr.size and arr.min() <= 0:  # R
            bad = arr <= 0
            where = "R" if arr.ndim == 0 else f"R[{int(np.argmax(bad))}]"
            raise ValueError(f"{where} must be > 0; got {arr[bad][0] if arr.ndim else float(arr)}")
        return arr

    def _assemble(self, given: dict[str, Any], ext: tuple[Any, ...]) -> None:
        """Check widths and row counts of validated arrays, and store them (broadcast, read-only)."""
        q = given["quality"]
        if q is None:
            raise TypeError("quality is required")
        n = q.shape[-1]
        rows: dict[str, int] = {}
        for key in _ARRAYS:
            arr = given[key]
            if arr is None or arr.ndim == 0:
                continue
            if arr.ndim == 2 or key in ("alpha", "R"):
                if key not in ("alpha", "R") and arr.shape[1] != n:
                    raise ValueError(f"{key} has {arr.shape[1]} entries per row but quality has {n}; "
                                     "arrays must have the same length")
                rows[key] = arr.shape[0]
            elif arr.shape[0] != n:
                raise ValueError(f"{key} has {arr.shape[0]} entries per row but quality has {n}; "
                                 "arrays must have the same length")
        m = next(iter(rows.values()), 1)
        for key, r in rows.items():
            if r != m:
                first = next(iter(rows))
                raise ValueError(f"{key} has {r} rows but {first} has {m}; per-row arguments must "
                                 "have the same number of rows")
        if m == 0:
            raise ValueError("a batch must hold at least one problem; got 0 rows")
        k = given["capacity"]
        object.__setattr__(self, "_given", given)
        names, budget, demand, must_take, must_not_take = ext
        self._store(m, q, given["cost"], given["alpha"], given["R"], np.ones(n, dtype=np.int64) if k is None else k,
                    names, budget, demand, must_take, must_not_take, given["objective_quality"])

    def with_changes(self, **changes: Any) -> ProblemBatch:
        """A validated copy with some fields replaced; only the new values are checked again.

        The cheap way to ask the same agents a new question every round (e.g. SS-UCB's optimistic
        qualities, Deva et al., Algorithm 2): ``batch.with_changes(quality=ucb)`` validates ``ucb``
        and the shapes, and reuses the costs, capacities and extensions already validated.  When
        only the qualities change (a float64 array of the batch's own shape, the threshold and the
        objective qualities as they were), the copy is made with one vectorised range test of the
        new qualities and shares every other field with this batch.

        Parameters
        ----------
        **changes
            Any constructor argument, e.g. ``quality=q_hat, alpha=0.75``.

        Raises
        ------
        TypeError
            An unknown field name.
        ValueError, TypeError
            As the constructor, for the new values and the shapes.
        """
        unknown = sorted(set(changes) - set(_ARRAYS) - set(_SHARED) - set(_MODEL))
        if unknown:
            raise TypeError(f"ProblemBatch has no field {unknown[0]!r}")
        fast = self._with_quality(changes) if not self._rowwise else None
        if fast is not None:
            return fast
        given = dict(self._given)
        for key in _ARRAYS:
            if key in changes:
                given[key] = self._check_field(key, changes[key])
        n = given["quality"].shape[-1]
        if n != self.n:  # a new agent count: every per-agent field must change with it
            for key in ("cost", "names"):
                if key not in changes:
                    raise ValueError(f"{key} has {self.n} entries{' per row' if key == 'cost' else ''} but "
                                     f"quality has {n}; arrays must have the same length (change {key} too)")
        if any(key in changes for key in _SHARED) or n != self.n:
            shared = {key: changes.get(key, getattr(self, key)) for key in _SHARED}
            ext = check_extensions(n, shared["names"], shared["budget"], shared["demand"],
                                   shared["must_take"], shared["must_not_take"])
        else:
            ext = (self.names, self.budget, self.demand, self.must_take, self.must_not_take)
        out = object.__new__(type(self))
        out._assemble(given, ext)
        model = {key: changes.get(key, getattr(self, key)) for key in _MODEL}
        if self._planners[0] is None and not any(key in changes for key in _MODEL[:5]):
            for key in _MODEL[:5]:  # the defaults: validated again only when changed
                model[key] = None
        out._check_model(model)
        return out

    def _with_quality(self, changes: dict[str, Any]) -> ProblemBatch | None:
        """``with_changes`` when only the qualities (and maybe an unchanged threshold) change.

        The per-round question of a bandit oracle: same agents, costs, capacities and extensions,
        new qualities of the batch's own shape.  The new qualities are copied and checked with one
        vectorised range test (NaN fails it too); every other field, already validated, is shared
        with this batch.  Returns None when the change is anything else (or the qualities are
        bad): then the general path validates and words the error.
        """
        q_new = changes.get("quality")
        if (not isinstance(q_new, np.ndarray) or q_new.dtype != np.float64 or q_new.shape != self.quality.shape
                or any(key not in ("quality", "alpha", "objective_quality") for key in changes)
                or changes.get("objective_quality", self.objective_quality) is not None):
            return None
        alpha = self._given["alpha"]
        if "alpha" in changes:
            a_new = changes["alpha"]
            if (isinstance(a_new, bool) or not isinstance(a_new, (float, int, np.floating))
                    or alpha.ndim != 0 or float(a_new) != float(alpha)):
                return None
        q = np.array(q_new, dtype=np.float64)  # ours: the caller may reuse its array
        if not (q.size and q.min() >= 0.0 and q.max() <= 1.0):  # NaN compares False: general path
            return None
        q.setflags(write=False)
        out = object.__new__(type(self))
        given = dict(self._given)
        given["quality"] = q
        set_ = functools.partial(object.__setattr__, out)
        set_("_given", given)
        set_("quality", q)
        for key in ("cost", "alpha", "R", "capacity", "objective_quality", *_SHARED):
            set_(key, getattr(self, key))
        if "_max_capacity" in self.__dict__:  # derived from the capacities alone: still true
            out.__dict__["_max_capacity"] = self.__dict__["_max_capacity"]
        return out

    @staticmethod
    def _per_row_number(value: Any, name: str) -> np.ndarray:
        if isinstance(value, (list, tuple, np.ndarray)):
            arr = as_float_array(value, name, (0, 1))
            return arr
        return np.array(check_scalar(value, name))

    def _store(self, m: int, q: np.ndarray, c: np.ndarray, a: np.ndarray, R: np.ndarray, k: np.ndarray,
               names: tuple[str, ...], budget: float | None, demand: int | None, must_take: np.ndarray,
               must_not_take: np.ndarray, oq: np.ndarray | None) -> None:
        n = q.shape[-1]
        set_ = functools.partial(object.__setattr__, self)

        def full(arr: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray | None:
            if arr is None:
                return None
            arr.setflags(write=False)
            return arr if arr.shape == shape else np.broadcast_to(arr, shape)

        set_("quality", full(q, (m, n)))
        set_("cost", full(c, (m, n)))
        set_("alpha", full(a, (m,)))
        set_("R", full(R, (m,)))
        set_("capacity", full(k, (m, n)))
        set_("objective_quality", full(oq, (m, n)))
        set_("names", names)
        set_("budget", budget)
        set_("demand", demand)
        for key, value in (("must_take", must_take), ("must_not_take", must_not_take)):
            value.setflags(write=False)
            set_(key, value)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_problems(cls, problems: Sequence[SubsetSelectionProblem]) -> ProblemBatch:
        """Stack problems with the same agents' names and extensions into one batch (no re-check).

        Parameters
        ----------
        problems : sequence of SubsetSelectionProblem, length m >= 1
            Same ``n``, names, budget, demand and must lists; ``objective_quality`` set on all
            or none.

        Raises
        ------
        TypeError
            An element is not a :class:`SubsetSelectionProblem`.
        ValueError
            No problems, or problems that differ in what a batch shares (naming the first field), or
            a problem with a planner's constraint (``min_units``, ``lot_size``, ``fixed_cost``,
            ``group_limits``), which a batch does not hold.
        """
        probs = list(problems)
        if not probs:
            raise ValueError("a batch must hold at least one problem; got 0 rows")
        for j, p in enumerate(probs):
            if not isinstance(p, SubsetSelectionProblem):
                raise TypeError(f"problems[{j}] must be a SubsetSelectionProblem; got {type(p).__name__}")
            if p._integer_rule is not None:
                raise ValueError(f"problems[{j}] is a knapsack beyond exact float64 arithmetic (its integers "
                                 "decide feasibility); a ProblemBatch holds floats only: solve it on its own")
        first = probs[0]
        for j, p in enumerate(probs[1:], start=1):
            if p.n != first.n:
                raise ValueError(f"problems[{j}] has {p.n} agents but problems[0] has {first.n}")
            for key in ("names", "budget", "demand"):
                if getattr(p, key) != getattr(first, key):
                    raise ValueError(f"problems[{j}] differs from problems[0] in {key}; a batch shares it")
            for key in ("must_take", "must_not_take"):
                if not np.array_equal(getattr(p, key), getattr(first, key)):
                    raise ValueError(f"problems[{j}] differs from problems[0] in {key}; a batch shares it")
            if (p.objective_quality is None) != (first.objective_quality is None):
                raise ValueError(f"problems[{j}] and problems[0] disagree on objective_quality "
                                 "(set on all or none)")
            for key in ("min_units", "lot_size", "fixed_cost"):
                if not np.array_equal(getattr(p, key), getattr(first, key)):
                    raise ValueError(f"problems[{j}] differs from problems[0] in {key}; a batch shares it")
            if p.group != first.group or dict(p.group_limits) != dict(first.group_limits):
                raise ValueError(f"problems[{j}] differs from problems[0] in its groups; a batch shares them")
            if len(p.added_constraints) != len(first.added_constraints) or any(
                    a is not b for a, b in zip(p.added_constraints, first.added_constraints)):
                raise ValueError(f"problems[{j}] differs from problems[0] in constraints; a batch shares the "
                                 "same constraint objects (build the problems with the same ones)")
        self = object.__new__(cls)
        if len(probs) == 1:  # a batch of one: views, no copies
            def stack(key: str) -> np.ndarray:
                return getattr(first, key)[None, :]
        else:
            def stack(key: str) -> np.ndarray:
                return np.stack([getattr(p, key) for p in probs])
        oq = None if first.objective_quality is None else stack("objective_quality")
        given: dict[str, Any] = {
                 "quality": stack("quality"), "cost": stack("cost"), "alpha": np.array([p.alpha for p in probs]),
                 "R": np.array([p.R for p in probs]), "capacity": stack("capacity"), "objective_quality": oq}
        object.__setattr__(self, "_given", given)
        self._store(len(probs), given["quality"], given["cost"], given["alpha"], given["R"], given["capacity"],
                    first.names, first.budget, first.demand, first.must_take, first.must_not_take, oq)
        planners = tuple(p._planner for p in probs)
        for key in _MODEL[:5]:
            object.__setattr__(self, key, None if planners[0] is None else getattr(first, key))
        object.__setattr__(self, "constraints", first.added_constraints)
        object.__setattr__(self, "_planners", planners if planners[0] is not None else (None,))
        if len(probs) == 1:  # the problem's derived arrays are the batch's (same operations)
            self.__dict__["utility"] = first.utility[None, :]
            self.__dict__["quality_margin"] = first.quality_margin[None, :]
        return self

    # ------------------------------------------------------------------ shape and derived arrays
    @property
    def m(self) -> int:
        """Number of problems (rows)."""
        return int(self.quality.shape[0])

    @property
    def n(self) -> int:
        """Number of agents per problem."""
        return int(self.quality.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, n)``."""
        return self.m, self.n

    def __len__(self) -> int:
        return self.m

    @functools.cached_property
    def utility(self) -> np.ndarray:
        """Per-unit utilities ``r = R q - c`` (``q`` is ``objective_quality`` when set), shape (m, n)."""
        q = self.quality if self.objective_quality is None else self.objective_quality
        R = self._given.get("R")
        if R is not None and R.ndim == 0 and float(R) == 1.0:  # 1.0 * q is q exactly: one pass
            r = np.subtract(q, self.cost)
        else:
            r = np.multiply(self.R[:, None], q)
            np.subtract(r, self.cost, out=r)
        r.setflags(write=False)
        return r

    @functools.cached_property
    def quality_margin(self) -> np.ndarray:
        """``q - alpha`` per row, shape (m, n): the coefficients of the quality constraints."""
        out = self.quality - self.alpha[:, None]
        out.setflags(write=False)
        return out

    @functools.cached_property
    def _max_capacity(self) -> int:
        """Largest capacity (1 for the paper's unit capacities), from the unbroadcast argument."""
        k = self._given.get("capacity")
        return 1 if k is None else int(k.max())

    @property
    def added_constraints(self) -> tuple[Constraint, ...]:
        """The constraint objects the rows share (:attr:`constraints`: the batch keeps its budget,
        demand and must lists as fields, shared by every row, and each row's problem lists their
        objects in its own :attr:`SubsetSelectionProblem.constraints`)."""
        return tuple(self.constraints)

    @property
    def extensions(self) -> frozenset[str]:
        """The optional constraints the batch's rows use (see ``SubsetSelectionProblem.extensions``)."""
        used = _used_extensions(self)
        if self._planners[0] is not None:
            used = used.union(*(p.used for p in self._planners if p is not None))
        return used | {c.kind for c in self.constraints}

    def lower_bounds(self) -> np.ndarray:
        """Per-agent lower bounds on ``x`` (1 for must-take agents, else 0), int64 shape (m, n)."""
        lb = np.zeros(self.shape, dtype=np.int64)
        lb[:, self.must_take] = 1
        return lb

    def upper_bounds(self) -> np.ndarray:
        """Per-agent upper bounds (0 for must-not-take agents, else the capacity), int64 (m, n)."""
        ub = np.array(self.capacity, dtype=np.int64)
        ub[:, self.must_not_take] = 0
        return ub

    def partition(self) -> BatchPartition:
        """The classes S1..S4 of every row (Deva et al., Section 5.1) as boolean masks (m, n).

        The same rule as :meth:`SubsetSelectionProblem.partition` (both call
        :func:`subsel.models.rules.partition_masks`).
        """
        return BatchPartition(*partition_masks(self.quality, self.utility, self.alpha[:, None]))

    def quality_surplus(self, x: Any) -> np.ndarray:
        """``sum_i (q_i - alpha) x_i`` per row, shape (m,), for selections ``x`` of shape (m, n)."""
        return rowdot(x, self.quality_margin)

    # ------------------------------------------------------------------ rows and evaluation
    def row(self, j: int) -> SubsetSelectionProblem:
        """Row ``j`` as a :class:`SubsetSelectionProblem` (read-only views, no copy, no re-check).

        Raises
        ------
        IndexError
            ``j`` outside ``-m..m-1``.
        """
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)):
            raise TypeError(f"row index must be an integer; got {j!r}")
        if not -self.m <= j < self.m:
            raise IndexError(f"row {j} is out of range for a batch of {self.m} problems")
        oq = None if self.objective_quality is None else self.objective_quality[j]
        planner = self._planners[j if len(self._planners) > 1 else 0]
        return SubsetSelectionProblem._trusted(
            self.quality[j], self.cost[j], float(self.alpha[j]), self.capacity[j], float(self.R[j]),
            self.names, self.budget, self.demand, self.must_take, self.must_not_take, oq, planner,
            self.constraints)

    def rows(self) -> list[SubsetSelectionProblem]:
        """Every row as a :class:`SubsetSelectionProblem` (see :meth:`row`)."""
        return [self.row(j) for j in range(self.m)]

    def evaluate(self, x: Any) -> BatchEvaluation:
        """Utility, average quality and feasibility of one selection per row.

        Row ``j`` agrees with ``self.row(j).evaluate(x[j])`` (the same constraints, tolerance
        :data:`FEASIBILITY_TOL` and messages); the checks run on all rows at once.

        Parameters
        ----------
        x : array-like of int, shape (m, n)
            Units taken from each agent, one selection per row.

        Returns
        -------
        BatchEvaluation

        Raises
        ------
        ValueError
            ``x`` has the wrong shape or holds non-finite numbers (naming the row and index).
        """
        xa = np.asarray(x)
        if xa.shape != self.shape:
            raise ValueError(f"x must have shape {self.shape}; got {xa.shape}")
        if xa.dtype.kind not in "iub":
            xa = np.asarray(xa, dtype=float)
            if xa.size and not np.isfinite(xa).all():
                bad = np.argwhere(~np.isfinite(xa))[0]
                raise ValueError(f"x[{bad[0]}, {bad[1]}] must be a finite number; got {xa[tuple(bad)]}")
        k = self._given.get("capacity")
        # k_sum in floats: int64 sums of capacities up to 2^53 would wrap past 2^63
        k_min, k_sum = (1, float(self.n)) if k is None else (int(k.min()), float(k.sum(axis=-1, dtype=float).max()))
        feasible, violations = rows_violations(
            xa, margin=self.quality_margin, capacity=self.capacity, k_min=k_min, k_sum=k_sum, cost=self.cost,
            budget=self.budget, demand=self.demand, must_take=self.must_take, must_not_take=self.must_not_take,
            row=self.row, every_row=self._rowwise)
        return BatchEvaluation(self, xa, feasible, violations)

    def __repr__(self) -> str:
        ext = ", ".join(sorted(self.extensions))
        alpha = f"{self.alpha[0]:g}" if np.all(self.alpha == self.alpha[0]) else "per row"
        return (f"ProblemBatch(m={self.m}, n={self.n}, alpha={alpha}"
                + (f", extensions=[{ext}]" if ext else "") + ")")

