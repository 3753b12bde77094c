"""What every MILP backend shares: one feasibility rule, scaled models, verified and certified answers.

A MILP solver works with absolute tolerances (feasibility about 1e-6, integrality 1e-6 to 1e-9,
reduced costs 1e-7) on whatever numbers it is given, while subsel's feasibility rule
(:meth:`SubsetSelectionProblem.evaluate`) is exact: ``sum (q_i - alpha) x_i >= -1e-9``.  Handing the
raw model to a solver let it call wrong answers optimal: utilities of 1e-7 below its dual tolerance,
qualities 1e-8 from ``alpha`` inside its feasibility tolerance, 10^9 units beyond its integrality
tolerance.  :class:`MILPSolver` therefore

1. **scales the model** (:func:`solver_form`): the objective and the quality and budget rows are
   multiplied by powers of two (exact in floating point) so that their largest coefficients lie in
   [0.5, 1), and runs the solver with gap 0 and tight tolerances, so that its tolerances are relative
   to the data whatever ``R`` and the money unit;
2. **solves a relaxation**: the rows are loosened by ``RELAX`` (ten times the solver's tolerance,
   scaled units), so that no truly feasible selection is cut off by the solver's tolerance; an
   optimal answer of the relaxation is an upper bound on the optimum;
3. **verifies** every answer with the exact rule (values further than
   :data:`INTEGRALITY_TOL` from an integer are a :class:`SolverError`); a relaxation answer that fails
   is followed by a solve of the *tightened* model (rows stricter by ``RELAX``), whose answers pass,
   and as a last resort by :func:`repair`; when the tightened model is infeasible and nothing passes
   (constraints that force units, such as a group's minimum, leave repair nothing to drop), the
   unshifted model decides: its infeasibility is the problem's;
4. **certifies** ``optimal``: a verified selection is optimal when its utility is within
   ``OPTIMALITY_RTOL`` of a proven bound.  Where the problem is in the scope of the ``exact`` solver
   (no budget, no demand) that bound comes from ``exact``, a cross-check independent of every MILP
   tolerance, and ``exact``'s selection is offered as a candidate too (the tightened model cuts off
   selections whose quality surplus lies inside the rule's 1e-9 but below the tightening); otherwise
   from the relaxation's optimum, and only while every unit bound is at most
   :data:`TRUSTED_UPPER_BOUND` (beyond that, integrality tolerances make the solver's own optimality
   claim unreliable).  When that fails, the model neither loosened nor tightened, its quality and
   budget rows :attr:`~MILPSolver.decide_boost` times larger (``2^20``; ``2^10`` for CBC), decides:
   it accepts every selection the rule accepts, so its optimum, if the rule accepts it too, is
   proven; an optimum the rule refuses (by less than the float arithmetic resolves) is excluded by a
   no-good cut and the model solved again (:data:`MAX_DECIDE` times at most).  An optimal claim
   whose objective value lies above its own selection's (HiGHS answering its warm start) proves
   nothing and is asked again without the warm start.  An answer without a certificate is
   ``feasible`` (``time_limit`` when the time ran out), with the best bound known;
5. **honours the time limit** as one deadline for all of this, and warm-starts the solver with the
   best selection at hand (the smallest selection and GSS's answer, when GSS supports the problem;
   under a time limit, when neither passes the rule on a problem with coupling rows, the planner
   search's Lagrangian heuristic), which a time-limited answer carries if the solver found nothing
   better, with the least proven bound (the solver's or the heuristic's Lagrangian bound).

Only the calls into the solver (:meth:`MILPSolver._run`: building the library's model from the
scaled linear form, its solve, reading the answer back) count as the backend's time
(:attr:`~subsel.solvers.Solution.backend_time_s`); steps 1 to 5 around them are subsel's overhead
(:attr:`~subsel.solvers.Solution.overhead_time_s`), so that a timing table compares the solver
itself.  Just above 600 lines on purpose: the five steps are one pipeline of checks behind every
MILP backend's ``optimal``, read in order.
"""
from __future__ import annotations

import contextlib
import math
import os
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import ClassVar, TypeVar

import numpy as np

from ..models import (
    CONSTRAINT_KINDS,
    FEASIBILITY_TOL,
    OPTIMALITY_RTOL,
    PLANNER_EXTENSIONS,
    LinearForm,
    SubsetSelectionProblem,
    linear_form,
)
from ..models._rules import linear_at_least, rounded_up, weighted_sum
from ._cuts import excluding, excluding_agents
from ._encoded import refuse_encoded
from .base import MAX_CUT_RANGE, RawResult, Solution, Solver, SolverError, Status
from .registry import get_solver

#: Loosening / tightening of the scaled rows between the relaxation and the tightened model (ten
#: times the solvers' tight feasibility tolerance of 1e-9).
RELAX = 1e-8

#: Most solves of the unshifted model, each excluding the optima before it that the rule refused.
MAX_DECIDE = 8

#: Largest distance of a returned value from an integer; farther is a solver failure.
INTEGRALITY_TOL = 1e-5

#: Relative distance beyond a bound that a returned value may have and still count as the bound
#: (CBC writes its solution with 8 significant digits).
BOUND_RTOL = 1e-7

#: Largest unit bound at which a MILP's own optimality claim is trusted without ``exact``'s
#: cross-check (CBC returned 789740510 of 789740514 paying units as "optimal").
TRUSTED_UPPER_BOUND = 2 ** 20

_T = TypeVar("_T")


@contextlib.contextmanager
def captured_output(enabled: bool, fds: tuple[int, ...] = (1,)) -> Iterator[list[str]]:
    """Capture what a solver library writes to file descriptors ``fds`` from C code.

    Libraries print past Python (highspy's banner on descriptor 1; SoPlex inside SCIP repeated
    "Cannot set optimality tolerance to small value 1e-12 without GMP" on every LP solve, 9,147
    lines on one call).  Within the block those descriptors point to a temporary file; at its end
    they are restored and the yielded list holds the captured lines (at most 1 MiB of them), for
    the caller to report once or to drop.

    Parameters
    ----------
    enabled : bool
        False: capture nothing (verbose runs show the library's output).
    fds : tuple of int
        File descriptors to capture (1 stdout, 2 stderr).

    Yields
    ------
    list of str
        Filled with the captured lines when the block ends.
    """
    lines: list[str] = []
    if not enabled:
        yield lines
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        saved = [os.dup(fd) for fd in fds]
    except (OSError, ValueError, AttributeError):  # no real descriptors (e.g. captured): nothing to hide
        yield lines
        return
    with tempfile.TemporaryFile() as tmp:
        try:
            for fd in fds:
                os.dup2(tmp.fileno(), fd)
            yield lines
        finally:
            for fd, old in zip(fds, saved):
                os.dup2(old, fd)
                os.close(old)
            tmp.seek(0)
            lines.extend(tmp.read(1 << 20).decode("utf-8", errors="replace").splitlines())


def report_printed(solver: str, lines: list[str]) -> None:
    """Report, once, what a solver printed while it was silenced (:func:`captured_output`).

    One :class:`RuntimeWarning` naming the solver, the number of lines and the most frequent line;
    nothing when the solver printed nothing.
    """
    lines = [line for line in lines if line.strip()]
    if not lines:
        return
    common, times = Counter(lines).most_common(1)[0]  # ties: the line printed first
    warnings.warn(f"{solver}: the solver printed {len(lines)} line{'s' if len(lines) != 1 else ''} "
                  f"(hidden; most often, {times} times: {common.strip()[:160]!r})",
                  RuntimeWarning, stacklevel=2)


def _pow2_scale(values: np.ndarray) -> float:
    """The power of two ``2**-e`` that brings ``max |values|`` into [0.5, 1) (1 when all are 0)."""
    top = float(np.max(np.abs(values))) if values.size else 0.0
    if top == 0.0 or not math.isfinite(top):
        return 1.0
    # Capped: for subnormal data (top < 2**-1022) the exact power would overflow a float.
    return math.ldexp(1.0, min(-math.frexp(top)[1], 1000))


def solver_form(problem: SubsetSelectionProblem, delta: float, boost: float = 1.0) -> tuple[LinearForm, float]:
    """The scaled model handed to a MILP solver: rows loosened (``delta < 0``) or tightened.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    delta : float
        Added to the quality row's lower side and subtracted from the budget row's upper side,
        in scaled units (``-RELAX``: the relaxation; ``+RELAX``: the tightened model).
    boost : float, default 1.0
        A power of two multiplying the quality and budget rows after their scaling (exact): the
        solver's absolute tolerance then allows ``boost`` times less violation (the last resort
        of :meth:`MILPSolver._pipeline`, where ``2**20`` brings it far below the rule's 1e-9).

    Returns
    -------
    (LinearForm, float)
        The model (objective ``r * s_obj``; every real row (:attr:`LinearRow.real`) scaled by its
        own power of two and moved by ``delta`` towards its side, e.g. the quality row
        ``(q - alpha) * s_q >= -1e-9 s_q + delta`` and the budget row
        ``c * s_b <= (B + 1e-9) s_b - delta``; integral rows such as the demand unchanged) and
        ``s_obj``.  An upper-side row with non-negative coefficients that no selection can violate
        (``sum c_i ub_i <= B``, decided exactly) is left out.
    """
    base = linear_form(problem)
    live = base.upper > 0  # must-not-take agents take no part in the scaling
    obj_scale = _pow2_scale(base.objective[live])
    rows = []
    for row in base.rows:
        if not row.real:
            rows.append(row)  # integer data (demand, the planner's rows): unscaled
            continue
        # Agents fixed at 0 get coefficient 0: scaled for the others, theirs could overflow.
        coef = np.where(live, row.coef, 0.0) if row.index is None else row.coef
        # The side, scaled, at most 2^30: coefficients far below their side (1e-50 against 1) would
        # otherwise make a side of 2^165 that no solver reads as a number.
        side = row.lower if np.isfinite(row.lower) else row.upper
        s = min(_pow2_scale(coef), _pow2_scale(np.array([side])) * 2.0 ** 30) * boost
        # The loosening grows with the row's largest activity: a solver (or a file written with
        # 13 digits, as PuLP does for CBC) computes the row with that relative error.
        reach = base.upper if row.index is None else base.upper[row.index]
        shift = delta * (1.0 + 1e-4 * float(weighted_sum(np.abs(coef * s), reach)))
        if np.isfinite(row.lower):  # a lower side (the quality row, a quality floor): loosened by delta < 0
            rows.append(replace(row, coef=coef * s, lower=row.lower * s + shift, upper=np.inf))
        else:  # an upper side (the budget row)
            # Every selection keeps it when the most it can reach is at most the side without its
            # tolerance, less one ulp for the rounding of that side (decided exactly).
            if (coef >= 0).all() and linear_at_least(reach, -np.asarray(row.coef), 0.0,
                                                     (-row.upper, row.tol, math.ulp(row.upper))):
                continue
            rows.append(replace(row, coef=coef * s, lower=-np.inf, upper=row.upper * s - shift))
    objective = np.where(live, base.objective, 0.0) * obj_scale
    return LinearForm(objective, base.lower, base.upper, tuple(rows), base.aux_of, base.aux_lot), obj_scale


def integral(x: np.ndarray, form: LinearForm, solver: str) -> np.ndarray:
    """A solver's values as int64, refusing values off an integer or outside the bounds.

    Raises
    ------
    SolverError
        A value farther than :data:`INTEGRALITY_TOL` from an integer, or outside ``[lower, upper]``
        by more than that, naming the backend, the index and the value.
    """
    xf = np.asarray(x, dtype=float)
    if xf.shape != (form.n,) or not np.all(np.isfinite(xf)):
        raise SolverError(f"{solver}: returned values of shape {xf.shape} that are not all finite")
    xr = np.rint(xf)
    off = np.abs(xf - xr) > INTEGRALITY_TOL
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise SolverError(f"{solver}: returned a fractional value x[{i}] = {float(xf[i])!r} for an integer variable")
    # CBC's solution file holds 8 significant digits (a value 2293776051 at its bound comes back
    # as 2293776100), so a value beyond its bound by at most that rounding is the bound; the exact
    # check and the certificate then judge the selection.
    slack = INTEGRALITY_TOL + BOUND_RTOL * np.abs(form.upper)
    xr = np.where((xr > form.upper) & (xr <= form.upper + slack), form.upper, xr)
    xr = np.where((xr < form.lower) & (xr >= form.lower - slack), form.lower, xr)
    out = (xr < form.lower) | (xr > form.upper)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise SolverError(f"{solver}: returned x[{i}] = {float(xf[i])!r} outside its bounds "
                          f"[{form.lower[i]:g}, {form.upper[i]:g}]")
    return xr.astype(np.int64)


def repair(problem: SubsetSelectionProblem, x: np.ndarray) -> np.ndarray | None:
    """Make a nearly feasible selection feasible by dropping units.

    Units whose removal raises the quality surplus (``q < alpha``) are dropped in order of least
    utility lost per unit of surplus regained, until the quality row holds; then, if the budget row
    fails, units are dropped in order of least utility per unit of cost.  Must-take lower bounds are
    respected.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    x : ndarray of int, shape (n,)

    Returns
    -------
    ndarray of int64, shape (n,) or None
        A selection that passes ``problem.evaluate``, or None when dropping units cannot get there
        (e.g. the demand row then fails).
    """
    x = np.array(x, dtype=np.int64)
    lb = problem.lower_bounds()
    r, m = problem.utility, problem.quality_margin
    for row in ("quality", "budget"):
        if row == "quality":
            # Up to the rule's own bound (surplus >= -1e-9), not a margin inside it: with margins of
            # 1e-10 per unit a margin of 5e-10 dropped 6 of 10 units where 1 was enough; the loop
            # below drops a last unit when the float sums leave one.
            deficit = -float(weighted_sum(x, m)) - FEASIBILITY_TOL
            gain = -m  # surplus regained per dropped unit
        else:
            if problem.budget is None:
                continue
            deficit = float(weighted_sum(x, problem.cost)) - problem.budget - FEASIBILITY_TOL / 2
            gain = np.asarray(problem.cost)
        if deficit <= 0:
            continue
        cand = np.flatnonzero((x > lb) & (gain > 0))
        order = cand[np.argsort(r[cand] / gain[cand], kind="stable")]
        # Whole agents first (per agent, not per unit: an agent may hold 10^12 units).
        free = (x - lb)[order]
        regained = np.cumsum(gain[order] * free)
        k = int(np.searchsorted(regained, deficit, side="left"))
        if k >= order.size:
            return None
        x[order[:k]] = lb[order[:k]]
        left = deficit - (float(regained[k - 1]) if k else 0.0)
        i = int(order[k])
        x[i] -= min(int(free[k]), int(math.ceil(left / float(gain[i]))))
    for _ in range(64):  # the float sums above may leave a last unit to drop
        if problem.evaluate(x).feasible:
            return x
        worst = np.flatnonzero((x > lb) & (m < 0))
        if worst.size == 0:
            return None
        x[worst[np.argmin(r[worst] / -m[worst])]] -= 1
    return None


def within_tolerance(problem: SubsetSelectionProblem, x: np.ndarray, best: float) -> bool:
    """True when the utility of ``x`` is at least ``best - OPTIMALITY_RTOL |best|`` (up to the
    rounding of the float sums, ``(n + 4) 2^-52 sum |r_i| x_i``)."""
    r = np.asarray(problem.utility)
    value = float(weighted_sum(np.asarray(x, dtype=float), r))
    rounding = (problem.n + 4) * 2.0 ** -52 * float(weighted_sum(np.abs(np.asarray(x, dtype=float)), np.abs(r)))
    if "fixed_cost" in problem.extensions:  # utility minus the fixed costs of the used agents
        paid = problem.fixed_cost[np.asarray(x) != 0]
        value -= math.fsum(paid.tolist())
        rounding += (problem.n + 4) * 2.0 ** -52 * math.fsum(paid.tolist())
    return value >= best - OPTIMALITY_RTOL * abs(best) - 2 * rounding


class BackendClock:
    """Sums the wall-clock seconds spent in a backend's own solver calls during one ``_solve``.

    Examples
    --------
    >>> clock = BackendClock()
    >>> clock.call(sum, [1, 2])
    3
    >>> clock.seconds >= 0.0
    True
    """

    __slots__ = ("seconds",)

    def __init__(self) -> None:
        self.seconds = 0.0

    def call(self, fn: Callable[..., _T], *args: object, **kwargs: object) -> _T:
        """``fn(*args, **kwargs)``, its wall time added to :attr:`seconds` (also when it raises)."""
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - t0


class MILPSolver(Solver):
    """Base of the MILP backends: scaled models, verified and certified answers, one deadline.

    Subclasses implement :meth:`_run`, which solves one :class:`~subsel.models.LinearForm` and
    returns a :class:`RawResult` (``x`` may be fractional within the solver's tolerance; ``bound``
    in the form's scaled objective units).  The time of the :meth:`_run` calls is the answer's
    ``backend_time_s``; the rest of the call is subsel's overhead.
    """

    exact: ClassVar[bool] = True
    no_good_cuts: ClassVar[bool] = True
    supports: ClassVar[frozenset[str]] = frozenset({"budget", "demand", "must_take", "must_not_take",
                                                    *PLANNER_EXTENSIONS, *CONSTRAINT_KINDS})

    #: The factor on the quality and budget rows of the model that decides a proof
    #: (:meth:`_decide_unshifted`): large enough that the solver's tolerance lies far below the
    #: feasibility rule's, small enough for the solver's arithmetic.
    decide_boost: ClassVar[float] = 2.0 ** 20
    #: Whether ``exact`` certifies every optimum it supports at unit bounds up to
    #: :data:`TRUSTED_UPPER_BOUND` (where its own proof of the coupling rows is trusted), not only
    #: where it is faster than this backend's proof (:meth:`_certify_with_exact`).
    certify_everywhere: ClassVar[bool] = False

    def _run(self, form: LinearForm, time_limit: float | None,
             warm: np.ndarray | None) -> RawResult:  # pragma: no cover - abstract
        """Solve ``form`` with gap 0 and tight tolerances within ``time_limit`` seconds, starting
        from the feasible selection ``warm`` when given."""
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    def _left(self, deadline: float | None) -> float | None:
        return None if deadline is None else deadline - time.perf_counter()

    @staticmethod
    def _warm_start(problem: SubsetSelectionProblem, deadline: float | None = None
                    ) -> tuple[np.ndarray | None, float | None]:
        """The best of the smallest selection and GSS's answer (when GSS supports the problem; the
        registry supplies it: the MILP pipeline imports no other solver), and a proven bound.

        Under a time limit (``deadline``, a ``time.perf_counter()`` value), a problem with coupling
        rows (a budget, a demand, group limits) and no constraint objects that neither gives a
        selection starts from the planner search's Lagrangian heuristic
        (:func:`~subsel.solvers._planner_start.planner_start`, through the registry's ``exact``),
        whose Lagrangian bound is returned too (None otherwise): a solver that finds no plan of its
        own before the limit then answers that plan (status ``time_limit``).
        """
        best = None
        x0 = problem.lower_bounds()
        if problem.evaluate(x0).feasible:
            best = x0
        coupled = problem.budget is not None or problem.demand is not None or (
            problem._planner is not None and "group_limits" in problem._planner.used)
        if best is None and deadline is not None and coupled and not problem.added_constraints:
            start: Callable[..., tuple[np.ndarray | None, float | None]] = getattr(get_solver("exact"), "starting_plan")
            return start(problem, deadline)
        gss = get_solver("gss")
        if not (problem.extensions - gss.supports):
            try:
                g = gss.solve(problem)
            except (SolverError, ValueError):  # pragma: no cover - GSS is always feasible
                g = None
            if g is not None and g.is_feasible and (best is None or g.objective > problem.evaluate(best).utility):
                best = np.array(g.x, dtype=np.int64)
        return best, None

    @staticmethod
    def _exact_answer(problem: SubsetSelectionProblem, left: float | None, where_faster: bool) -> Solution | None:
        """``exact``'s answer within ``left`` seconds (the registry supplies ``exact``), or None where
        it does not support the problem, raises, or (with ``where_faster``) is slower than the MILP
        itself (its coupling rows: budget, demand, groups)."""
        if left is not None and left <= 0:
            return None
        exact = get_solver("exact", time_limit_s=left)
        if problem.extensions - exact.supports or (where_faster and problem.extensions & exact.not_default_for):
            return None
        try:
            return exact.solve(problem)
        except (SolverError, MemoryError, ValueError):
            return None

    @classmethod
    def _certify_with_exact(cls, problem: SubsetSelectionProblem,
                            left: float | None) -> tuple[np.ndarray, float, float] | None:
        """``exact``'s optimal selection, its utility and ``exact``'s proven bound (independent of
        MILP tolerances), or None."""
        everywhere = cls.certify_everywhere and float(np.max(problem.upper_bounds(), initial=0)) <= TRUSTED_UPPER_BOUND
        sol = cls._exact_answer(problem, left, where_faster=not everywhere)
        if sol is None or sol.status is not Status.OPTIMAL:
            return None
        bound = float(sol.objective) if sol.bound is None else max(float(sol.bound), float(sol.objective))
        return np.array(sol.x, dtype=np.int64), float(sol.objective), bound

    @classmethod
    def _exact_verdict(cls, problem: SubsetSelectionProblem, left: float | None) -> RawResult | None:
        """``exact``'s proven answer (infeasible, or an optimal selection) where the MILP models
        could not decide (each gave only selections the rule refuses, as CBC at a threshold a hair
        above a selection's average, its primal tolerance letting through what the tightening was to
        exclude); None where ``exact`` does not support the problem or proves nothing in time."""
        sol = cls._exact_answer(problem, left, where_faster=False)
        if sol is not None and sol.status is Status.INFEASIBLE:
            return RawResult(None, Status.INFEASIBLE)
        if sol is not None and sol.status is Status.OPTIMAL:
            return RawResult(np.array(sol.x, dtype=np.int64), Status.OPTIMAL, sol.bound)
        return None

    def _decide_unshifted(self, problem: SubsetSelectionProblem, clock: BackendClock, deadline: float | None,
                          warm: np.ndarray | None,
                          with_cuts: Callable[..., tuple[LinearForm, Callable[[np.ndarray], np.ndarray]]]
                          ) -> tuple[np.ndarray, float] | Status | None:
        """Solve the model neither loosened nor tightened, its quality and budget rows ``decide_boost`` times
        larger: its optimal selection and utility when the rule accepts that selection (it is then
        the problem's optimum), ``Status.INFEASIBLE`` when the solver finds the model, less the
        selections the rule refused, infeasible; None otherwise.

        Between the relaxation (rows loosened) and the tightened model lies a band of selections
        that the rule accepts and the tightened model refuses (a surplus inside the rule's 1e-9),
        as at a threshold a hair above an optimal selection's average quality.  The unshifted model
        with its rows boosted has the rule's own bound and a solver tolerance far below it: it
        accepts every selection the rule accepts, so its optimum, when the rule accepts it too,
        is the problem's.  An optimum the rule refuses (by less than the float arithmetic
        resolves) is excluded by a no-good cut (it is no solution of the problem) and the model
        solved again, up to :data:`MAX_DECIDE` times, while the capacities allow cuts.
        """
        tries = MAX_DECIDE if int(problem.capacity.max()) <= MAX_CUT_RANGE else 1
        refused: list[np.ndarray] = []
        for _ in range(tries):
            left = self._left(deadline)
            if left is not None and left <= 0:
                return None
            form, full = with_cuts(solver_form(problem, 0.0, boost=self.decide_boost)[0], refused)
            try:
                raw = clock.call(self._run, form, left, None if warm is None else full(warm))
                if self._contradicts(raw, form):  # the warm start answered as optimal below the solver's value
                    raw = clock.call(self._run, form, self._left(deadline), None)
            except SolverError:  # the boosted rows are beyond the backend's numerics: not decided here
                return None
            if raw.status is Status.INFEASIBLE:
                return Status.INFEASIBLE
            if raw.status is not Status.OPTIMAL or raw.x is None or self._contradicts(raw, form):
                return None
            x = integral(raw.x, form, self.name)[:problem.n]
            ev = problem.evaluate(x)
            if ev.feasible:
                return x, ev.utility
            refused.append(x)
        return None

    def _contradicts(self, raw: RawResult, form: LinearForm) -> bool:
        """Whether an ``optimal`` answer's objective value (``raw.bound``, the form's units) lies above
        the objective of its own selection, rounded to integers, by more than that rounding and
        ``OPTIMALITY_RTOL`` can explain."""
        if raw.status is not Status.OPTIMAL or raw.x is None or raw.bound is None or not math.isfinite(raw.bound):
            return False
        xf = np.asarray(raw.x, dtype=float)
        xr = integral(xf, form, self.name).astype(float)
        value = float(weighted_sum(xr, form.objective))
        size = float(weighted_sum(np.abs(xr), np.abs(form.objective)))
        slack = float(weighted_sum(np.abs(xf - xr), np.abs(form.objective))) + OPTIMALITY_RTOL * max(1.0, size)
        return float(raw.bound) > value + slack

    # ------------------------------------------------------------------ the pipeline
    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        return self._solve_excluding(problem, np.zeros((0, problem.n), dtype=np.int64))

    def _solve_excluding(self, problem: SubsetSelectionProblem, excluded: np.ndarray,
                         used: np.ndarray | None = None) -> RawResult:
        refuse_encoded(problem, self.name)
        clock = BackendClock()
        raw = self._pipeline(problem, clock, excluded, used)
        return raw._replace(backend_time_s=clock.seconds)

    def _pipeline(self, problem: SubsetSelectionProblem, clock: BackendClock,
                  excluded: np.ndarray | None = None, used: np.ndarray | None = None) -> RawResult:
        """Solve ``problem`` (without the selections of ``excluded``, and without those whose set of
        used agents is a row of ``used``, by no-good cuts)."""
        start = time.perf_counter()
        unit_cuts = excluded is not None and excluded.size > 0
        agent_cuts = used is not None and used.size > 0
        cuts = unit_cuts or agent_cuts

        def allowed(x: np.ndarray) -> bool:
            if unit_cuts and excluded is not None and bool((excluded == x).all(axis=1).any()):
                return False
            return not (agent_cuts and used is not None and bool((used == (x > 0)).all(axis=1).any()))

        def with_cuts(form: LinearForm, more: list[np.ndarray] | None = None
                      ) -> tuple[LinearForm, Callable[[np.ndarray], np.ndarray]]:
            if agent_cuts and used is not None:
                form = excluding_agents(form, used)
            rows = [*(excluded if unit_cuts and excluded is not None else ()), *(more or ())]
            return excluding(form, np.array(rows, dtype=np.int64).reshape(len(rows), problem.n)) if rows \
                else (form, form.full)

        deadline = None if self.time_limit_s is None else start + self.time_limit_s
        best, start_bound = self._warm_start(problem, deadline)
        if best is not None and not allowed(best):
            best = None
        best_util = -math.inf if best is None else problem.evaluate(best).utility
        bound: float | None = None
        claimed = False  # the MILP claims the relaxation optimal
        claimed_value = math.nan  # the utility of the relaxation's claimed optimum
        timed_out = False
        tight_infeasible = False  # the tightened model has no selection

        def offer(x: np.ndarray) -> None:
            nonlocal best, best_util
            ev = problem.evaluate(x)
            if ev.feasible and ev.utility > best_util and allowed(x):
                best, best_util = x, ev.utility

        relaxed, obj_scale = solver_form(problem, -RELAX)
        relaxed, full = with_cuts(relaxed)
        n = problem.n  # the form's first n variables are the units; the planner's follow
        raw = clock.call(self._run, relaxed, self._left(deadline), None if best is None else full(best))
        left = self._left(deadline)
        if best is not None and self._contradicts(raw, relaxed) and (left is None or left > 0):
            # HiGHS answered the warm start itself with status optimal and a larger objective
            # value (seen with no-good cuts): ask again without the warm start.
            raw = clock.call(self._run, relaxed, left, None)
        if raw.status is Status.INFEASIBLE:
            if best is None:
                return RawResult(None, Status.INFEASIBLE)
            raw = RawResult(None, Status.FEASIBLE)  # contradicts a known selection: no claim
        x_rel = None if raw.x is None else integral(raw.x, relaxed, self.name)[:n]
        if raw.status is Status.TIME_LIMIT:
            timed_out = True
            if raw.bound is not None and math.isfinite(raw.bound):
                bound = raw.bound / obj_scale
        if x_rel is not None:
            rel_feasible = problem.evaluate(x_rel).feasible
            offer(x_rel)
            if raw.status is Status.OPTIMAL:
                claimed = True
                r = np.asarray(problem.utility)
                xf = x_rel.astype(float)
                # The selection's utility (fixed costs included) as a float sum: rounded up, it
                # bounds the relaxation's optimum from above (the certificate below compares with
                # the float value itself, within the tolerance).
                claimed_value = problem.evaluate(x_rel).utility
                if raw.bound is not None and self._contradicts(raw, relaxed):
                    # The solver's own objective value lies above its selection's: its claim
                    # proves only that larger value as a bound.
                    claimed_value = max(claimed_value, raw.bound / obj_scale)
                magnitude = float(weighted_sum(xf, np.abs(r)))
                if problem.fixed_cost is not None:
                    magnitude += float(np.abs(problem.fixed_cost).sum())
                bound = rounded_up(claimed_value, magnitude, problem.n)
            if not rel_feasible:
                fixed = repair(problem, x_rel)
                if fixed is not None:
                    offer(fixed)
            if claimed and not rel_feasible:
                # The relaxation's optimum breaks the exact rule: solve the tightened model.
                tight, full = with_cuts(solver_form(problem, RELAX)[0])
                left = self._left(deadline)
                if left is None or left > 0:
                    raw2 = clock.call(self._run, tight, left, None if best is None else full(best))
                    timed_out |= raw2.status is Status.TIME_LIMIT
                    tight_infeasible = raw2.status is Status.INFEASIBLE
                    if raw2.x is not None:
                        offer(integral(raw2.x, tight, self.name)[:n])
                    left = self._left(deadline)
                    # The tightened model has no selection, or (CBC: its row scaling and primal
                    # tolerance let through the surplus the tightening was to exclude) only one
                    # the rule refuses, as the relaxation's.
                    tight_failed = raw2.status is Status.INFEASIBLE or (
                        raw2.status is Status.OPTIMAL and raw2.x is not None)
                    if best is None and tight_failed and (left is None or left > 0):
                        # Neither model gave a selection that passes (the planner's constraints
                        # can force units, so no repair reaches one): the model itself, neither
                        # loosened nor tightened, with its quality and budget rows decide_boost times
                        # larger (so that the solver's tolerance lies far below the rule's),
                        # decides; its infeasibility is the problem's (a tolerance only widens
                        # what a solver accepts).
                        exact_form, _ = with_cuts(solver_form(problem, 0.0, boost=self.decide_boost)[0])
                        raw3 = clock.call(self._run, exact_form, left, None)
                        if raw3.status is Status.INFEASIBLE and raw2.status is Status.INFEASIBLE:
                            # Both say so (alone, CBC once called a boosted model with a feasible
                            # selection infeasible: its cutoff increment from the objective's
                            # coefficients, 0.4999, with rows of 5e5 per unit).
                            return RawResult(None, Status.INFEASIBLE)
                        if raw3.x is not None:
                            x3 = integral(raw3.x, exact_form, self.name)[:n]
                            offer(x3)
                            fixed3 = None if best is not None else repair(problem, x3)
                            if fixed3 is not None:
                                offer(fixed3)
                        # An optimum of the unchanged model that the rule refuses (by less than
                        # the solver's float arithmetic resolves) does not make the problem
                        # infeasible: a selection below it may pass.  The decision below cuts
                        # such selections off one by one.
                else:
                    timed_out = True

        # ``exact`` knows no cuts: with cuts the relaxation's claim is the proof.
        certificate = None if cuts else self._certify_with_exact(problem, self._left(deadline))
        proven = False
        if certificate is not None:
            x_exact, value, bound = certificate
            # exact's selection passed the rule; it may be one the tightened model cut off (a
            # surplus inside the rule's 1e-9 but below the tightening), as at a threshold a hair
            # above an optimal selection's average quality.
            offer(x_exact)
            proven = best is not None and within_tolerance(problem, best, value)
        elif claimed and bound is not None:
            trusted = float(np.max(relaxed.upper, initial=0.0)) <= TRUSTED_UPPER_BOUND
            proven = trusted and best is not None and within_tolerance(problem, best, claimed_value)
            if not trusted:
                bound = None  # the claim is not trusted at this scale: it proves no bound either
            left = self._left(deadline)
            if trusted and not proven and (left is None or left > 0):
                decided = self._decide_unshifted(problem, clock, deadline, best, with_cuts)
                if decided is Status.INFEASIBLE and best is None and tight_infeasible:
                    # The tightened model has no selection, and the unchanged one none but those
                    # the rule refused (by less than the solver's float arithmetic resolves; its
                    # tolerance lies decide_boost times below the rule's): no selection passes the rule.
                    return RawResult(None, Status.INFEASIBLE)
                if isinstance(decided, tuple):
                    offer(decided[0])
                    proven = best is not None and within_tolerance(problem, best, decided[1])
        if start_bound is not None:  # the Lagrangian bound of the starting plan (proven; cuts only lower the optimum)
            bound = start_bound if bound is None else min(bound, start_bound)
        if best is None:
            if timed_out or (deadline is not None and time.perf_counter() >= deadline):
                return RawResult(None, Status.NO_SOLUTION_FOUND, bound)
            if claimed:  # no model, cut after cut, gave a selection that passes: exact decides, where it can
                verdict = self._exact_verdict(problem, self._left(deadline))
                return RawResult(None, Status.ERROR, bound) if verdict is None else verdict
            return RawResult(None, Status.INFEASIBLE if raw.status is Status.INFEASIBLE else Status.ERROR)
        if proven:
            return RawResult(best, Status.OPTIMAL, bound)
        timed_out |= deadline is not None and time.perf_counter() >= deadline
        return RawResult(best, Status.TIME_LIMIT if timed_out else Status.FEASIBLE, bound)
