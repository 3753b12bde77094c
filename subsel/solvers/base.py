"""The one Solver interface of subsel.

A small protocol in the manner of PuLP's solver API, with python-mip's status codes.

A backend subclasses :class:`Solver` and implements :meth:`Solver._solve`; the public
:meth:`Solver.solve` checks the problem's extensions against :attr:`Solver.supports`, times the call,
checks the answer with :meth:`SubsetSelectionProblem.evaluate` and wraps it in a frozen
:class:`Solution`.  No backend can hand back an infeasible "optimal".

Two times are kept apart: :attr:`Solution.wall_time_s` is the whole call, and
:attr:`Solution.backend_time_s` the part spent in the backend's own solve (the time of ``_solve``,
unless the backend reports the time of its solver calls in :attr:`RawResult.backend_time_s`, as the
MILP backends do); the difference, :attr:`Solution.overhead_time_s`, is what subsel adds around it.

Batches (:meth:`Solver.solve_batch`, ``RawBatch``, ``SolutionBatch``) live in
:mod:`subsel.solvers._batch`, loaded by the first batch.  Slightly longer than 600 lines on purpose:
the status vocabulary, the Solution type, the Solver protocol and the answer check that every
backend's result passes are one interface.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, NamedTuple

import numpy as np

from .._validation import check_scalar
from ..knapsack import SolverError as SolverError  # (re-exported: the solvers raise it)
from ..knapsack import Status as Status  # (re-exported: every solution has one)
from ..models import SubsetSelectionProblem
from ..models._rules import exact_total, rounded_up, weighted_sum

if TYPE_CHECKING:  # loaded where used: a one-problem solve needs none (start-up of ``subsel solve``)
    from ..models import IntegerKnapsack, ProblemBatch
    from ._batch import RawBatch, SolutionBatch
    from .explain import Conflict

#: Code built on this interface that its methods call: the batch engine (``solve_batch``,
#: ``solve_rows``, ``finish_batch`` of :mod:`subsel.solvers._batch`), the explanation of an
#: infeasible answer (``explain_infeasible``) and the aggregate bounds that refute a problem before
#: any backend runs (``refutation``).  Their modules import this one, so it imports none of them:
#: the package's face (:mod:`subsel.solvers`, loaded before any of its modules) supplies them, each
#: module loaded on first use.
_SUPPLIED: dict[str, Callable[..., Any]] = {}

#: Most threads a backend may be given (SCIP's own limit; HiGHS aborts on far larger pools).
MAX_THREADS = 64


#: Largest capacity :meth:`Solver.solve_excluding` takes (an agent's binary digits become variables).
MAX_CUT_RANGE = 2 ** 20


class UnsupportedExtensionError(ValueError):
    """A solver was asked for a constraint (extension) it does not handle.

    Attributes
    ----------
    solver : str
        The solver's registry name.
    extension : str
        The first unsupported extension (``budget``, ``demand``, ``must_take``, ``must_not_take``,
        the planner's fields, or a kind of constraint object: ``linear``, ``linear_used``,
        ``quality_floor``).
    constraint : str or None
        For a constraint object, its name (the message names it), else None.
    """

    def __init__(self, solver: str, extension: str, supported: frozenset[str], constraint: str | None = None):
        self.solver = solver
        self.extension = extension
        self.constraint = constraint
        ok = ", ".join(sorted(supported)) or "none"
        what = f"{extension!r} constraint" if constraint is None else f"constraint {constraint!r} (kind {extension!r})"
        super().__init__(f"solver {solver!r} does not support the {what} "
                         f"(it supports: {ok}); choose another solver")


@dataclass(frozen=True, eq=False)
class Solution:
    """A solver's answer: the selection, its utility, what it is (:class:`Status`) and how long it took.

    Attributes
    ----------
    x : ndarray of int64, shape (n,)
        Units taken per agent (read-only).  A feasible selection when :attr:`is_feasible`; an
        all-zero placeholder (not an answer) for ``infeasible``, ``no_solution_found`` and ``error``.
    objective : float
        Utility ``sum r_i x_i``; NaN when there is no selection (``infeasible``, ``no_solution_found``,
        ``error``).
    avg_quality : float
        Average quality of the selected units; NaN when nothing is selected.
    status : Status
        See :class:`Status`.
    wall_time_s : float
        Wall-clock seconds of the whole ``solve`` call: the backend's work plus everything subsel
        adds around it (validation, scaling, verification, certification, repair, the answer check).
    solver : str
        Registry name of the backend.
    bound : float or None
        A proven upper bound on the optimum when the backend has one (e.g. the LP relaxation or a
        MILP's best bound); ``None`` otherwise.
    backend_time_s : float
        Wall-clock seconds spent in the backend's own solve, ``0 <= backend_time_s <=
        wall_time_s``.  For the algorithms of subsel (``gss``, ``dpss``, ``exact``, ``emsco``) it is
        the algorithm's time; for the MILP and CP-SAT backends (``cbc``, ``highs``,
        ``ortools-scip``, ``ortools-cpsat``) it is the sum of the calls into the third-party
        library: building its model from subsel's linear form through its API, its solve, and
        reading its answer back (for ``cbc``: PuLP's model, writing the file, the CBC process,
        reading its solution).  Everything else is :attr:`overhead_time_s`.  When not given it is
        ``wall_time_s`` (no overhead known).
    explanation : str or None
        For an ``infeasible`` answer of :meth:`Solver.solve`: why, in words, with the nearest
        change where one number decides it (see :func:`subsel.solvers.explain.explain_infeasible`);
        None otherwise.  Found when first read (it solves parts of the problem again).
    conflict : Conflict or None
        The same as a structure: a smallest set of constraints that is infeasible together.
    """

    x: np.ndarray
    objective: float
    avg_quality: float
    status: Status
    wall_time_s: float
    solver: str
    bound: float | None = None
    backend_time_s: float | None = None

    @property
    def explanation(self) -> str | None:
        """Why an ``infeasible`` answer of :meth:`Solver.solve` is infeasible (None otherwise)."""
        found = self._explained()
        return None if found is None else found[0]

    @property
    def conflict(self) -> Conflict | None:
        """A smallest set of constraints that no selection meets together (None unless infeasible)."""
        found = self._explained()
        return None if found is None else found[1]

    def _explained(self) -> tuple[str, Conflict] | None:
        return self.explain()

    def explain(self, time_limit_s: float | None = None) -> tuple[str, Conflict] | None:
        """Find (once) why an ``infeasible`` answer is infeasible: ``(explanation, conflict)``.

        :attr:`explanation` and :attr:`conflict` call it with the default; call it first to bound
        the time it takes.

        Parameters
        ----------
        time_limit_s : float, optional
            Seconds the explanation may take (default: the solver's ``time_limit_s``; without
            either, the explanation's default time budget,
            :func:`subsel.solvers.explain.explain_time`, a few times the verdict's time).
            When they run out, the conflict names the members not yet decided
            (:attr:`Conflict.undecided`) and the advice verified so far, with its proven bounds.

        Returns
        -------
        (str, Conflict) or None
            None for an answer that is not ``infeasible``.
        """
        state = self.__dict__
        if "_explanation" not in state:
            source = state.get("_explain")  # (solver, problem) of an infeasible answer
            state["_explanation"] = None if source is None else source[0]._explain(
                source[1], time_limit_s, verdict_s=float(self.wall_time_s))
        found: tuple[str, Conflict] | None = state["_explanation"]
        return found

    def __post_init__(self) -> None:
        wall = float(self.wall_time_s)
        backend = wall if self.backend_time_s is None else float(self.backend_time_s)
        object.__setattr__(self, "backend_time_s", min(max(backend, 0.0), wall))

    @classmethod
    def _checked(cls, x: np.ndarray, objective: float, avg_quality: float, status: Status, wall_time_s: float,
                 solver: str, bound: float | None, backend_time_s: float | None) -> "Solution":
        """A Solution from :meth:`Solver.solve`'s own fields (float times, ``x`` read-only int64),
        built without the dataclass machinery (the fixed cost of a small solve)."""
        self = object.__new__(cls)
        backend = wall_time_s if backend_time_s is None else min(max(backend_time_s, 0.0), wall_time_s)
        self.__dict__.update(x=x, objective=objective, avg_quality=avg_quality, status=status,
                             wall_time_s=wall_time_s, solver=solver, bound=bound, backend_time_s=backend)
        return self

    @property
    def overhead_time_s(self) -> float:
        """Seconds subsel adds around the backend: ``wall_time_s - backend_time_s`` (``>= 0``).

        For the MILP backends: the power-of-two scaling, the warm start (GSS), the verification of
        every answer with the exact feasibility rule, repair, the cross-check with ``exact`` that
        certifies ``optimal``, and the answer check of :meth:`Solver.solve`.
        """
        return max(float(self.wall_time_s) - float(self.backend_time_s or 0.0), 0.0)

    @property
    def is_feasible(self) -> bool:
        """True when ``x`` is a feasible selection: status ``optimal``, ``feasible`` or ``time_limit``
        (see :class:`Status`); False for ``infeasible``, ``no_solution_found`` and ``error``."""
        return self.status.has_selection

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view: keys ``solver, status, objective, avg_quality, x, wall_time_s,
        backend_time_s, overhead_time_s, bound`` (and ``explanation``, ``conflict`` for an explained
        infeasible answer).

        NaN and infinities become ``None`` so that the result is strict JSON (RFC 8259).
        """
        def num(v: float | None) -> float | None:
            return None if v is None or not math.isfinite(float(v)) else float(v)

        return {"solver": self.solver, "status": self.status.value, "objective": num(self.objective),
                "avg_quality": num(self.avg_quality), "x": [int(v) for v in self.x],
                "wall_time_s": float(self.wall_time_s), "backend_time_s": float(self.backend_time_s or 0.0),
                "overhead_time_s": self.overhead_time_s, "bound": num(self.bound),
                **({} if self.explanation is None else {"explanation": self.explanation}),
                **({} if self.conflict is None else {"conflict": self.conflict.to_dict()})}


class RawResult(NamedTuple):
    """What a backend's :meth:`Solver._solve` returns before checking.

    Attributes
    ----------
    x : ndarray, shape (n,) or None
        Units per agent; ``None`` when no feasible selection is known (infeasible / error, or a time
        limit before any selection: a backend may return ``TIME_LIMIT`` with ``None`` and
        :meth:`Solver.solve` then offers the smallest selection, ``x = lower bounds``, or reports
        ``NO_SOLUTION_FOUND``).
    status : Status
    bound : float or None
    backend_time_s : float or None
        Seconds spent in the backend's own solver calls, for a backend that wraps a third-party
        solver with work of subsel's own (see :attr:`Solution.backend_time_s`); ``None``: the
        whole ``_solve`` call is the backend's time.
    """

    x: np.ndarray | None
    status: Status
    bound: float | None = None
    backend_time_s: float | None = None


class Solver:
    """Base class of every backend (the one way any layer of subsel solves the integer program).

    Parameters
    ----------
    time_limit_s : float or None
        Wall-clock limit in seconds; ``None`` means no limit.  Backends that stop at the limit return
        their best feasible selection with status ``time_limit`` (``no_solution_found`` when none is
        known, see :class:`Status`).
    threads : int or None
        Threads for backends that can use several; ``None`` lets the backend choose.
    verbose : bool, default False
        Let the backend print its log.

    Attributes
    ----------
    name : str
        Registry name.
    exact : bool
        True when an ``optimal`` answer is proven optimal (gap 0).
    supports : frozenset of str
        Extensions handled (subset of ``subsel.models.EXTENSIONS``).
    not_default_for : frozenset of str
        Extensions it handles where a later backend of the default-solver rule is faster: that
        rule (:func:`~subsel.solvers.default_solver`) passes it over for problems that use one.
    no_good_cuts : bool
        True when :meth:`solve_excluding` works (the MILP backends).
    complexity : str
        Human-readable worst-case cost, for the solver table.
    caveat : str
        What the backend does not promise, printed under the solver table ('' for nothing).

    Raises
    ------
    ValueError
        ``time_limit_s <= 0``, or ``threads`` outside 1..:data:`MAX_THREADS`.
    """

    name: ClassVar[str] = "solver"
    exact: ClassVar[bool] = False
    supports: ClassVar[frozenset[str]] = frozenset()
    not_default_for: ClassVar[frozenset[str]] = frozenset()
    no_good_cuts: ClassVar[bool] = False
    complexity: ClassVar[str] = ""
    caveat: ClassVar[str] = ""

    def __init__(self, time_limit_s: float | None = None, threads: int | None = None,
                 verbose: bool = False):
        if time_limit_s is not None:
            time_limit_s = check_scalar(time_limit_s, "time_limit_s", min_val=0, include_boundaries="right",
                                        unit="seconds")
        if threads is not None:
            threads = check_scalar(threads, "threads", int, min_val=1, max_val=MAX_THREADS)
        self.time_limit_s = time_limit_s
        self.threads = threads
        self.verbose = bool(verbose)

    # -- registry hooks -------------------------------------------------------------------------
    @classmethod
    def available(cls) -> tuple[bool, str]:
        """Whether this backend works on this machine, and why not if it does not.

        Returns
        -------
        (bool, str)
            ``(True, "")`` or ``(False, reason)``.
        """
        return True, ""

    # -- the interface --------------------------------------------------------------------------
    def solve(self, problem: SubsetSelectionProblem) -> Solution:
        """Solve ``problem`` and return a checked :class:`Solution`.

        Parameters
        ----------
        problem : SubsetSelectionProblem
            Never modified.

        Returns
        -------
        Solution
            An ``infeasible`` answer carries :attr:`Solution.explanation` and
            :attr:`Solution.conflict` (found with this solver's own answers on parts of the problem).

        Raises
        ------
        TypeError
            ``problem`` is not a :class:`SubsetSelectionProblem`.
        UnsupportedExtensionError
            The problem uses an extension this solver does not support.
        SolverError
            The backend failed, or its answer does not pass ``problem.evaluate``.
        """
        sol = self._solve_checked(problem)
        if sol.status is Status.INFEASIBLE:  # explained when first asked (Solution.explanation)
            sol.__dict__["_explain"] = (self, problem)
        return sol

    def threshold_solver(self, problem: SubsetSelectionProblem) -> Callable[[float], Solution]:
        """A function that solves ``problem`` at any quality threshold: ``solve_at(alpha)``.

        ``solve_at(alpha)`` returns what ``solve(problem.with_changes(alpha=alpha))`` returns (the
        same selection, status and bound).  Deva et al., AAMAS 2021, Section 3: the threshold enters
        only the quality constraint, so a backend may do the work that does not depend on it once,
        for every threshold asked later (``exact`` does; the default solves each threshold anew).
        The price of quality (:func:`subsel.frontier`) asks one problem at many thresholds.

        Parameters
        ----------
        problem : SubsetSelectionProblem
            Its own ``alpha`` is ignored; never modified.

        Returns
        -------
        callable
            ``solve_at(alpha: float) -> Solution``; ``alpha`` in [0, 1] (else ``ValueError``, as
            :meth:`SubsetSelectionProblem.with_changes`), with the errors of :meth:`solve`.

        Raises
        ------
        TypeError
            ``problem`` is not a :class:`SubsetSelectionProblem`.
        UnsupportedExtensionError
            From this call or the first ``solve_at``: the problem uses an extension this solver
            does not support.
        """
        if not isinstance(problem, SubsetSelectionProblem):
            raise TypeError(f"problem must be a SubsetSelectionProblem; got {type(problem).__name__}")

        def solve_at(alpha: float) -> Solution:
            return self.solve(problem.with_changes(alpha=alpha))

        return solve_at

    def exclusion_solver(self, problem: SubsetSelectionProblem) -> Callable[[int], Solution]:
        """A function that solves ``problem`` without one agent: ``solve_without(i)``.

        ``solve_without(i)`` returns what ``solve(problem.with_changes(must_not_take=...))``
        returns with agent ``i`` added to the must-not-take list (the same selection, status,
        objective, average quality and bound).  Critical payments ask it once per selected agent:
        with one unit per agent a selected agent's critical cost is its cost plus the optimum's
        loss without it (Archer and Tardos, FOCS 2001, Section 4; Myerson, Mathematics of
        Operations Research 6(1), 1981).  A backend may check the problem once for every agent
        asked later (``exact`` does; the default solves each changed problem anew).

        Parameters
        ----------
        problem : SubsetSelectionProblem
            Never modified.

        Returns
        -------
        callable
            ``solve_without(i: int) -> Solution`` for an agent index ``i`` in ``0..n-1`` (else
            ``ValueError`` or ``TypeError``, as :meth:`SubsetSelectionProblem.with_changes`), with
            the errors of :meth:`solve`.

        Raises
        ------
        TypeError
            ``problem`` is not a :class:`SubsetSelectionProblem`.
        UnsupportedExtensionError
            From the first ``solve_without``: the problem uses an extension this solver does not
            support, or the solver has no must-not-take list.
        """
        if not isinstance(problem, SubsetSelectionProblem):
            raise TypeError(f"problem must be a SubsetSelectionProblem; got {type(problem).__name__}")

        def solve_without(i: int) -> Solution:
            return self.solve(problem.with_changes(must_not_take=np.append(problem.must_not_take, i)))

        return solve_without

    def solve_excluding(self, problem: SubsetSelectionProblem, excluded: np.ndarray, *,
                        used: np.ndarray | None = None) -> Solution:
        """The best selection of ``problem`` other than the rows of ``excluded`` (no-good cuts).

        Each excluded selection ``x*`` adds the canonical cut of Balas and Jeroslow ("Canonical
        cuts on the unit hypercube", SIAM J. Appl. Math. 23(1), 1972)
        ``sum_{d: d* = 1} (1 - d) + sum_{d: d* = 0} d >= 1`` over 0-1 digits ``d`` of the selection,
        which removes ``x*`` and nothing else: an agent with one unit is its own digit, an agent with
        several is written in binary (``x_i = sum_b 2^b z_ib`` with new 0-1 variables, unique
        digits).  Every model field the backend supports is kept.

        Parameters
        ----------
        problem : SubsetSelectionProblem
            Capacities up to :data:`MAX_CUT_RANGE` (the binary digits are variables).
        excluded : array-like of int, shape (m, n)
            Selections to exclude, units per agent in ``0..capacity`` (``m`` may be 0).
        used : array-like of bool or 0/1, shape (m2, n), optional
            Sets of used agents to exclude: no selection whose agents with ``x_i > 0`` are exactly
            those of a row.  Each row is a canonical cut on the agents' binary "used" variables
            ``u_i = [x_i > 0]`` (Balas and Jeroslow, as above), which need no binary digits: any
            capacity is allowed when ``excluded`` is empty.

        Returns
        -------
        Solution
            Checked as by :meth:`solve` (the model's rule), and never one of the excluded rows nor
            a selection of an excluded set of agents.

        Raises
        ------
        TypeError
            ``problem`` is not a :class:`SubsetSelectionProblem`.
        ValueError
            The solver has no no-good cuts (``no_good_cuts`` false), a capacity above
            :data:`MAX_CUT_RANGE`, or ``excluded`` not of shape (m, n) with integer units in
            ``0..capacity`` (naming the row and agent).
        UnsupportedExtensionError, SolverError
            As :meth:`solve`.
        """
        if not isinstance(problem, SubsetSelectionProblem):
            raise TypeError(f"problem must be a SubsetSelectionProblem; got {type(problem).__name__}")
        if not self.no_good_cuts:
            raise ValueError(f"solver {self.name!r} has no no-good cuts (see Solver.no_good_cuts)")
        n = problem.n
        ex = np.asarray(excluded)
        if ex.ndim != 2 or ex.shape[1] != n:
            raise ValueError(f"excluded must have shape (m, {n}); got {ex.shape}")
        if ex.size and int(problem.capacity.max()) > MAX_CUT_RANGE:
            i = int(np.argmax(problem.capacity))
            raise ValueError(f"no-good cuts need capacities of at most {MAX_CUT_RANGE}; capacity[{i}] is "
                             f"{int(problem.capacity[i])}")
        sets = np.zeros((0, n), dtype=bool)
        if used is not None:
            u = np.asarray(used)
            if u.ndim != 2 or u.shape[1] != n:
                raise ValueError(f"used must have shape (m, {n}); got {u.shape}")
            if u.dtype != bool:
                bad = np.argwhere((u != 0) & (u != 1))
                if bad.size:
                    j, i = (int(v) for v in bad[0])
                    raise ValueError(f"used[{j}, {i}] must be 0 or 1 (agent {i} used or not); got {u[j, i].item()!r}")
            sets = u.astype(bool)
        with np.errstate(invalid="ignore"):
            exf = ex.astype(float)
            bad = np.argwhere(~np.isfinite(exf) | (exf != np.round(exf)) | (exf < 0) | (exf > problem.capacity))
        if bad.size:
            j, i = (int(v) for v in bad[0])
            raise ValueError(f"excluded[{j}, {i}] must be a whole number of units in 0..{int(problem.capacity[i])}; "
                             f"got {ex[j, i].item()!r}")
        ex = ex.astype(np.int64)
        self.check_supported(problem)
        start = time.perf_counter()
        if _demand_exceeds_supply(problem):
            return self._finish(problem, RawResult(None, Status.INFEASIBLE, None, 0.0), start)
        raw = self._solve_excluding(problem, ex, sets) if sets.size else self._solve_excluding(problem, ex)
        def allowed(x: np.ndarray) -> bool:
            return not ((ex.size and bool((ex == x).all(axis=1).any()))
                        or (sets.size and bool((sets == (x > 0)).all(axis=1).any())))

        sol = self._finish(problem, raw, start, allowed=allowed)
        if sol.is_feasible and ex.size and bool((ex == np.asarray(sol.x)).all(axis=1).any()):
            raise SolverError(f"{self.name}: returned an excluded selection")
        if sol.is_feasible and sets.size and bool((sets == (np.asarray(sol.x) > 0)).all(axis=1).any()):
            raise SolverError(f"{self.name}: returned a selection of an excluded set of agents")
        return sol

    def _solve_excluding(self, problem: SubsetSelectionProblem, excluded: np.ndarray,
                         used: np.ndarray | None = None) -> RawResult:  # pragma: no cover - no_good_cuts is False
        raise NotImplementedError(f"{type(self).__name__} must implement _solve_excluding")

    def _explain(self, problem: SubsetSelectionProblem, time_limit_s: float | None = None,
                 verdict_s: float = 0.0) -> tuple[str, Conflict]:
        """Why ``problem`` is infeasible, decided with this solver on its parts, within
        ``time_limit_s`` seconds (default: the solver's time limit); without either, within the
        default budget :func:`subsel.solvers.explain.explain_time` (of the verdict's ``verdict_s``)."""
        limit = self.time_limit_s if time_limit_s is None else time_limit_s
        deadline = None if limit is None else time.perf_counter() + limit
        return _SUPPLIED["explain_infeasible"](self, problem, deadline, None if limit is not None else verdict_s)

    def _solve_checked(self, problem: SubsetSelectionProblem) -> Solution:
        """:meth:`solve` without the explanation of an infeasible answer."""
        if not isinstance(problem, SubsetSelectionProblem):
            raise TypeError(f"problem must be a SubsetSelectionProblem; got {type(problem).__name__}")
        self.check_supported(problem)
        start = time.perf_counter()
        if _demand_exceeds_supply(problem):
            return self._finish(problem, RawResult(None, Status.INFEASIBLE, None, 0.0), start)
        t0 = time.perf_counter()
        raw = self._dispatch(problem)
        if raw.backend_time_s is None:
            raw = RawResult(raw.x, raw.status, raw.bound, time.perf_counter() - t0)
        return self._finish(problem, raw, start)

    def check_supported(self, problem: SubsetSelectionProblem | ProblemBatch) -> None:
        """Raise :class:`UnsupportedExtensionError` for the first extension not in :attr:`supports`."""
        if problem.budget is None and problem.demand is None and not problem.must_take.size \
                and not problem.must_not_take.size and getattr(problem, "_planner", None) is None \
                and not getattr(problem, "_rowwise", False) and not problem.added_constraints:
            return  # no extension (the common case, checked without building a set)
        missing = sorted(problem.extensions - self.supports)
        if missing:
            named = [c.name for c in getattr(problem, "added_constraints", ()) if c.kind == missing[0]]
            raise UnsupportedExtensionError(self.name, missing[0], self.supports, named[0] if named else None)

    def solve_batch(self, batch: ProblemBatch) -> SolutionBatch:
        """Solve every row of ``batch``; return one checked :class:`Solution` per row.

        The batched oracle of the bandit layer: SS-UCB asks its oracle once per round and per
        simulated run (Deva et al., Section 4, Algorithm 2), i.e. ``m`` problems over the same
        agents at a time.  Row ``j`` of the answer is what :meth:`solve` returns for
        ``batch.row(j)`` (the same ``x``, status and objective; the wall time is that of the whole
        call).  The default runs the backend on the rows one by one; GSS and DPSS solve all rows
        with one vectorised computation.  Every answer is checked, all rows at once, with
        :meth:`subsel.models.ProblemBatch.evaluate`.

        Parameters
        ----------
        batch : ProblemBatch
            ``m`` problems; never modified.

        Returns
        -------
        SolutionBatch
            A sequence of ``m`` :class:`Solution` (``answers[j]``, iteration, ``len``) that also
            holds the answers as arrays: ``x`` of shape (m, n), ``objective``, ``is_feasible``.

        Raises
        ------
        TypeError
            ``batch`` is not a :class:`~subsel.models.ProblemBatch`.
        UnsupportedExtensionError
            The batch uses an extension this solver does not support.
        SolverError
            The backend failed, or an answer does not pass ``batch.evaluate`` (naming the row).
        """
        return _SUPPLIED["solve_batch"](self, batch)  # (a one-problem solve does not load the batch code)

    def _solve_batch(self, batch: ProblemBatch) -> RawBatch:
        """Unchecked answers for every row: the default solves the rows one by one."""
        return _SUPPLIED["solve_rows"](self, batch)

    def _dispatch(self, problem: SubsetSelectionProblem) -> RawResult:
        """The backend's answer for ``problem``: the one place a solver's work is chosen by the
        problem's mode (:attr:`SubsetSelectionProblem.mode`): :meth:`_solve_integers` for a
        knapsack decided on its integers, :meth:`_solve_planner` with the planner's fields,
        :meth:`_solve` otherwise."""
        rule = problem._integer_rule  # mode "integers"
        if rule is not None:
            return self._solve_integers(problem, rule)
        return self._solve(problem) if problem._planner is None else self._solve_planner(problem)

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _solve")

    def _solve_integers(self, problem: SubsetSelectionProblem, rule: IntegerKnapsack) -> RawResult:
        """A knapsack beyond exact float64 arithmetic, ``rule`` its integers (``problem.knapsack``);
        the default solves it as any problem (:meth:`_solve`): its answer is checked on the integers."""
        return self._solve(problem)

    def _solve_planner(self, problem: SubsetSelectionProblem) -> RawResult:
        """A problem with the planner's fields; the default is :meth:`_solve` (a backend that reads
        the linear form, which writes those fields)."""
        return self._solve(problem)

    def _finish(self, problem: SubsetSelectionProblem, raw: RawResult, start: float,
                allowed: Callable[[np.ndarray], bool] | None = None) -> Solution:
        """Check ``raw`` and wrap it; the wall time runs from ``start`` (``time.perf_counter()``)
        to the end of the check.  ``allowed`` (no-good cuts) says whether the smallest selection
        may stand in for an answer the backend did not find in time."""
        n = problem.n
        backend = raw.backend_time_s
        if raw.x is None and raw.status in (Status.TIME_LIMIT, Status.NO_SOLUTION_FOUND):
            # Stopped before the backend knew a selection: the smallest one (nothing but the
            # must-take units) is at hand and often feasible (unless a cut excludes it); else
            # there is no selection.
            x0 = problem.lower_bounds()
            if (allowed is None or allowed(x0)) and problem.evaluate(x0).feasible:
                raw = RawResult(x0, Status.TIME_LIMIT, raw.bound)
            else:
                raw = RawResult(None, Status.NO_SOLUTION_FOUND, raw.bound)
        if raw.x is None or raw.status in (Status.INFEASIBLE, Status.ERROR, Status.NO_SOLUTION_FOUND):
            if raw.status.has_selection:
                raise SolverError(f"{self.name}: status {raw.status.value} but no selection returned")
            x = np.zeros(n, dtype=np.int64)
            x.setflags(write=False)
            return Solution(x, float("nan"), float("nan"), raw.status, time.perf_counter() - start,
                            self.name, raw.bound, backend)
        x = _whole_units(self.name, raw.x, (n,))
        ev = problem.evaluate(x)
        if not ev.feasible:
            raise _infeasible(self.name, ev.violations)
        x.setflags(write=False)
        bound = bound_at_least(raw.bound, ev.utility, x, problem.utility)
        # + 0.0: an empty selection's utility 0 * (negative r) is -0.0, printed "-0"
        return Solution._checked(x, ev.utility + 0.0, ev.avg_quality, raw.status, time.perf_counter() - start,
                                 self.name, bound, backend)

    def _finish_batch(self, batch: ProblemBatch, raw: RawBatch, start: float) -> SolutionBatch:
        return _SUPPLIED["finish_batch"](self, batch, raw, start)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._repr_options())})"

    def _repr_options(self) -> list[str]:
        """The options shown by ``repr``: those not at their defaults (a backend adds its own)."""
        opts = []
        if self.time_limit_s is not None:
            opts.append(f"time_limit_s={self.time_limit_s:g}")
        if self.threads is not None:
            opts.append(f"threads={self.threads}")
        return opts


def _whole_units(solver: str, raw_x: Any, shape: tuple[int, ...], found: np.ndarray | None = None
                 ) -> np.ndarray:
    """A backend's answer as a fresh int64 array of ``shape``: (n,) for a problem, (m, n) for a
    batch; the first half of the answer check of :meth:`Solver.solve` and :meth:`Solver.solve_batch`
    (the second is the model's ``evaluate``).

    Integers are copied (the answer must not share memory with the backend); floats are rounded to
    the nearest integer, and one more than 1e-6 away from it is an error.  ``found`` (shape (m,),
    batches only) limits that check to the rows that hold a selection.

    Raises
    ------
    SolverError
        Another shape, or a fractional value (naming its index and, in a batch, its row).
    """
    xr = np.asarray(raw_x)
    if xr.shape != shape:
        raise SolverError(f"{solver}: returned x of shape {xr.shape}, expected {shape}")
    if xr.dtype.kind in "iu":
        return xr.astype(np.int64)
    xf = xr.astype(float)
    x = np.rint(xf).astype(np.int64)
    frac = np.abs(xf - x) > 1e-6
    if found is not None:
        frac &= found[:, None]
    if frac.any():
        at = tuple(int(v) for v in np.argwhere(frac)[0])
        where = ", ".join(map(str, at))
        row = f" (batch row {at[0]})" if len(at) > 1 else ""
        raise SolverError(f"{solver}: returned a fractional value x[{where}] = {xf[at]}{row}")
    return x


def _infeasible(solver: str, violations: tuple[str, ...], row: int | None = None) -> SolverError:
    """The answer check's error for a selection the feasibility rule refuses (naming the batch row)."""
    where = "" if row is None else f" for batch row {row}"
    return SolverError(f"{solver}: returned an infeasible selection{where} ({'; '.join(violations)})")
def bound_at_least(bound: float | None, objective: float, x: np.ndarray, r: np.ndarray) -> float | None:
    """``bound``, raised where needed to a true upper bound of the exact utility of ``x``.

    A backend's bound is computed in floating point (an LP value, a MILP's dual bound, a sum of
    utilities); rounding can leave it an ulp, or a tolerance, below the utility of the selection it
    came with, which then disproves it.  The answer is the larger of ``bound`` and ``objective``
    rounded up by :func:`~subsel.models._rules.rounded_up` (at least the exact ``sum_i x_i r_i``, which an optimal
    selection attains), so it is never below ``objective``.

    Parameters
    ----------
    bound : float or None
    objective : float
        The float utility of ``x`` (as :meth:`~subsel.models.SubsetSelectionProblem.evaluate` gives it).
    x : ndarray of int, shape (n,)
    r : ndarray of float, shape (n,)
        Utilities per unit.

    Returns
    -------
    float or None
        ``None`` when ``bound`` is ``None``.
    """
    if bound is None:
        return None
    magnitude = float(weighted_sum(np.abs(x).astype(float), np.abs(r)))
    return max(bound, rounded_up(objective, magnitude, x.size))


def _demand_exceeds_supply(problem: SubsetSelectionProblem) -> bool:
    """More units demanded than the agents may give, or another aggregate bound that no selection
    meets (:func:`subsel.solvers._feasibility.refutation`): infeasible for every backend.

    Decided before any backend runs, in exact integers, because a backend sees the demand as a
    float (a huge one, e.g. 1e23, is rounded and its own infeasibility proof may then fail); the
    other bounds spare a MILP the proof (minutes at 50,000 agents).
    """
    if problem.demand is not None and problem.demand > exact_total(problem.upper_bounds()):
        return True
    if problem.demand is None and problem.budget is None and not problem.must_take.size \
            and not problem.group_limits:
        return False  # nothing an aggregate bound could refute
    return _SUPPLIED["refutation"](problem) is not None
