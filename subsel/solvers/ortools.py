"""OR-Tools backends: SCIP through ``pywraplp`` and the CP-SAT solver with integer scaling.

``ortools-scip`` solves the linear form of the problem (Deva et al., AAMAS 2021, Section 3) as a
MILP with both MIP gaps 0.
``ortools-cpsat`` needs integer coefficients; see :class:`ORToolsCPSAT` for when its scaling is
exact (scaling by 1e6 instead left CP-SAT up to 5e-7 short of the optimum).
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from ..models import (
    CONSTRAINT_KINDS,
    FEASIBILITY_TOL,
    PLANNER_EXTENSIONS,
    LinearForm,
    SubsetSelectionProblem,
    linear_form,
)
from ..models._rules import exactly_shifted, weighted_sum
from ._cuts import excluding, excluding_agents
from ._encoded import refuse_encoded
from ._milp import MAX_DECIDE, BackendClock, MILPSolver, captured_output, report_printed, within_tolerance
from .base import MAX_CUT_RANGE, RawResult, Solver, SolverError, Status

#: SCIP's ``numerics/epsilon`` (values at most this are zero to SCIP; its default is 1e-9).
SCIP_EPSILON = 1e-12

#: Largest magnitude CP-SAT may see in any scaled linear expression (it works in int64).
_INT_LIMIT_BITS = 60


def _ortools_available() -> tuple[bool, str]:
    try:
        import ortools  # noqa: F401
    except ImportError as exc:
        return False, f"ortools is not installed ({exc})"
    return True, ""


class ORToolsSCIP(MILPSolver):
    """Exact MILP backend on SCIP through OR-Tools' ``pywraplp``, with every extension.

    The model is the scaled linear form (:func:`subsel.solvers._milp.solver_form`) built by
    :meth:`subsel.models.LinearForm.ortools_model`.  Options: relative gap 0
    (``MPSolverParameters``) and ``limits/gap = 0``, ``limits/absgap = 0`` (SCIP parameters);
    ``numerics/epsilon = 1e-12``: SCIP treats every value of magnitude at most ``numerics/epsilon``
    as zero, and its default 1e-9 equals :data:`~subsel.models.FEASIBILITY_TOL`, so a utility
    ``r_i = -1e-9`` was ignored and a selection 1e-9 short of the optimum came back ``optimal``;
    ``numerics/feastol = numerics/dualfeastol = 1e-9``; the warm start as a hint (``SetHint``);
    ``time_limit_s`` (the remaining time of the call; a stop there is status ``time_limit`` with
    SCIP's best bound); ``threads``; ``verbose``.  Answers are verified with the exact feasibility
    rule and certified as described in :mod:`subsel.solvers._milp`.
    """

    name = "ortools-scip"
    complexity = "branch and cut (exp. worst case)"

    @classmethod
    def available(cls) -> tuple[bool, str]:
        ok, reason = _ortools_available()
        if not ok:
            return ok, reason
        from ortools.linear_solver import pywraplp

        if pywraplp.Solver.CreateSolver("SCIP") is None:
            return False, "this OR-Tools build has no SCIP"
        return True, ""

    def _run(self, form: LinearForm, time_limit: float | None, warm: np.ndarray | None) -> RawResult:
        from ortools.linear_solver import pywraplp

        t0 = time.perf_counter()
        solver, x = form.ortools_model("SCIP")
        if self.verbose:
            solver.EnableOutput()
        # SCIP's zero (numerics/epsilon, default 1e-9) must lie far below our tolerance 1e-9, or
        # utilities |r_i| <= 1e-9 vanish from the objective and gaps of 1e-9 count as closed.
        specific = ["limits/gap = 0", "limits/absgap = 0", f"numerics/epsilon = {SCIP_EPSILON:g}",
                    "numerics/feastol = 1e-9", "numerics/dualfeastol = 1e-9"]
        solver.SetSolverSpecificParametersAsString("\n".join(specific) + "\n")
        if self.threads is not None:
            solver.SetNumThreads(int(self.threads))
        if warm is not None:
            solver.SetHint(x, np.asarray(warm, dtype=float).tolist())
        if time_limit is not None:  # what is left after building the model
            left = float(time_limit) - (time.perf_counter() - t0)
            solver.SetTimeLimit(max(1, int(math.ceil(left * 1000))))
        params = pywraplp.MPSolverParameters()
        params.SetDoubleParam(params.RELATIVE_MIP_GAP, 0.0)
        with captured_output(not self.verbose, (1, 2)) as printed:
            status = solver.Solve(params)
        report_printed("ortools-scip", printed)
        S = pywraplp.Solver
        if status in (S.OPTIMAL, S.FEASIBLE):
            xv = np.array([v.solution_value() for v in x], dtype=float)
            if status == S.OPTIMAL:
                return RawResult(xv, Status.OPTIMAL, float(solver.Objective().Value()))
            bound = float(solver.Objective().BestBound())
            st = Status.TIME_LIMIT if time_limit is not None else Status.FEASIBLE
            return RawResult(xv, st, bound if math.isfinite(bound) else None)
        if status == S.INFEASIBLE:
            return RawResult(None, Status.INFEASIBLE)
        if status == S.NOT_SOLVED and time_limit is not None:
            return RawResult(None, Status.TIME_LIMIT)
        if status == S.UNBOUNDED:  # impossible for this bounded model: SCIP's numerics gave way
            raise SolverError("ortools-scip: SCIP took the model for unbounded, which it is not (every "
                              "variable is bounded): its numerics gave way at this scale (huge capacities "
                              "or budget); use highs, or scale the data down")
        raise SolverError(f"ortools-scip: solver status {status}")


def _margins_exact(problem: SubsetSelectionProblem) -> bool:
    """True when every stored margin ``fl(q_i - alpha)`` equals ``q_i - alpha`` exactly, and every
    constraint object's rows are its data exactly (:meth:`~subsel.models.Constraint.rows_exact`)."""
    return exactly_shifted(problem.quality, problem.alpha) and all(c.rows_exact() for c in problem.constraints)


def _dyadic_exponent(values: np.ndarray) -> int:
    """Smallest ``k >= 0`` with every ``values * 2**k`` an integer (floats are dyadic rationals)."""
    v = np.abs(np.asarray(values, dtype=float))
    v = v[v != 0]
    if v.size == 0:
        return 0
    frac, exp = np.frexp(v)  # v = frac * 2**exp, frac in [0.5, 1)
    mant = np.ldexp(frac, 53).astype(np.int64)  # exact 53-bit integer mantissa
    low = mant & -mant  # lowest set bit
    tz = np.log2(low.astype(float)).astype(np.int64)
    need = 53 - exp - tz
    return int(max(0, need.max()))


def _scale_exponent(values: np.ndarray, reach: np.ndarray, extra: float = 0.0) -> tuple[int, bool]:
    """Power-of-two scale for CP-SAT: ``(k, exact)``.

    ``k`` is the smallest exponent making every value an integer when that keeps
    ``sum |v_i| reach_i * 2**k + |extra| * 2**k`` below ``2**60`` (``exact = True``); otherwise the
    largest exponent that does (``exact = False``, values then get rounded).  ``extra`` (a
    right-hand side) counts only for the magnitude: against an integer left side it is rounded
    exactly (:func:`_floor_scaled`).
    """
    total = float(weighted_sum(np.abs(values), reach)) + abs(extra)
    k_max = _INT_LIMIT_BITS - 1 - (math.ceil(math.log2(total)) if total > 0 else 0)
    k_need = _dyadic_exponent(values)
    if k_need <= k_max:
        return k_need, True
    return k_max, False


def _floor_scaled(*terms: float, k: int) -> int:
    """``floor((t_1 + t_2 + ...) * 2**k)`` in exact rational arithmetic.

    An integer left side ``L`` satisfies ``L <= b * 2**k`` exactly when ``L <= floor(b * 2**k)``, so a
    right-hand side needs no dyadic grid of its own; the terms are added without float rounding
    (e.g. a budget plus :data:`~subsel.models.FEASIBILITY_TOL`).
    """
    return math.floor(sum((Fraction(t) for t in terms), Fraction(0)) * Fraction(2) ** k)


def _as_int64(scaled: np.ndarray | float | int, what: str) -> list[int] | int:
    """Scaled (already rounded) coefficients as Python ints, refusing NaN, inf and int64 overflow.

    ``_scale_exponent`` keeps every scaled value below ``2**60``; this guard turns any breach of that
    promise into a clear :class:`SolverError` instead of a silent NaN cast and ``MODEL_INVALID``.
    """
    if isinstance(scaled, int):  # an exact right-hand side (Python int: no float rounding)
        if abs(scaled) >= 2 ** 62:
            raise SolverError(f"ortools-cpsat: the integer scaling of the {what} overflows int64")
        return scaled
    a = np.asarray(scaled, dtype=float)
    if not np.all(np.isfinite(a)) or np.any(np.abs(a) >= 2.0 ** 62):
        raise SolverError(f"ortools-cpsat: the integer scaling of the {what} overflows int64")
    out = a.astype(np.int64)
    return out.tolist() if out.ndim else int(out)


class ORToolsCPSAT(Solver):
    """CP-SAT backend (OR-Tools) with exact power-of-two scaling where possible; every extension.

    CP-SAT only takes integer coefficients.  Every float is a dyadic rational ``m * 2**-e``, so the
    quality row, the budget row and the objective are each multiplied by a power of two ``2**k``:

    * **Exact** when one ``k`` turns every coefficient into an integer while every scaled linear
      expression stays below ``2**60`` in magnitude.  The right-hand sides are those of
      :meth:`SubsetSelectionProblem.evaluate` (quality ``>= -FEASIBILITY_TOL``, budget
      ``<= B + FEASIBILITY_TOL``), scaled and rounded exactly as rationals (the left sides are
      integers), so an exactly scaled model has the same feasible set as ``evaluate`` up to its
      float summation.  Agents fixed at 0 (must-not-take) are left out of the scaling.  This holds for data on a dyadic
      grid — integer knapsack instances encoded by :meth:`SubsetSelectionProblem.from_knapsack`,
      quantities in multiples of 1/2, 1/4, ... — and then an optimal CP-SAT answer is the exact
      optimum (status ``optimal``).
    * **Not exact** otherwise (e.g. ``q, c ~ U[0, 1]`` with full 53-bit mantissas at n >= a few
      hundred, or decimal data such as 0.05, whose binary expansion does not end).  Then ``k`` is
      the largest exponent that fits, the quality coefficients are rounded *down* and the budget
      coefficients *up* (so every answer is truly feasible), the objective is rounded to nearest,
      and the answer is returned as ``feasible``: optimal for the rounded model, within about
      ``n * 2**-k`` of the true optimum, but not proven optimal.

    An ``optimal`` answer is certified: by the ``exact`` solver where the problem is in its scope
    (no budget, no demand), else only when every margin ``q_i - alpha`` is exactly a float64 (so
    that the integer model is the problem itself); otherwise it is returned as ``feasible``.

    A selection the strict integer model accepts but the exact rule refuses (rounded margins, a
    surplus a hair below ``-FEASIBILITY_TOL``) is cut off and the model solved again
    (:meth:`_without_refused`).

    Hence ``exact = False`` in the solver table.  Gap limits are 0 (``relative_gap_limit``,
    ``absolute_gap_limit``); ``time_limit_s`` is one deadline for the whole call (building the
    integer model, every CP-SAT run and the cross-check): each run gets what is left as
    ``max_time_in_seconds`` (status
    ``time_limit`` with CP-SAT's bound); under a time limit, the MILP pipeline's starting plan
    (:meth:`subsel.solvers._milp.MILPSolver._warm_start`) is CP-SAT's hint (``AddHint``) and the
    answer when CP-SAT finds nothing better, with the least proven bound; ``threads`` to
    ``num_workers``; ``verbose`` to ``log_search_progress``.

    The answer's ``backend_time_s`` is the time of the CP-SAT calls (building the integer model,
    its coefficients' scaling included, ``CpSolver.Solve`` and reading the values); the cross-check
    with ``exact`` and the checks around them are overhead.
    """

    name = "ortools-cpsat"
    exact = False
    caveat = ("does not certify decimal data: 'optimal' only where exact proves the same optimum (no budget, "
              "demand or group limits) or every q_i - alpha is exact in binary floating point (data on a binary "
              "grid, e.g. multiples of 1/1024); otherwise its answers are 'feasible' - use highs, cbc or "
              "ortools-scip for a proven optimum")
    no_good_cuts = True
    supports = frozenset({"budget", "demand", "must_take", "must_not_take", *PLANNER_EXTENSIONS,
                          *CONSTRAINT_KINDS})
    complexity = "CP-SAT search (exp. worst case)"

    @classmethod
    def available(cls) -> tuple[bool, str]:
        ok, reason = _ortools_available()
        if not ok:
            return ok, reason
        try:
            from ortools.sat.python import cp_model  # noqa: F401
        except ImportError as exc:  # pragma: no cover
            return False, f"ortools.sat is missing ({exc})"
        return True, ""

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        return self._solve_excluding(problem, np.zeros((0, problem.n), dtype=np.int64))

    def _solve_excluding(self, problem: SubsetSelectionProblem, excluded: np.ndarray,
                         used: np.ndarray | None = None) -> RawResult:
        refuse_encoded(problem, self.name)
        clock = BackendClock()
        raw = self._certified(problem, clock, excluded, used)
        return raw._replace(backend_time_s=clock.seconds)

    def _certified(self, problem: SubsetSelectionProblem, clock: BackendClock,
                   excluded: np.ndarray | None = None, used: np.ndarray | None = None) -> RawResult:
        start = time.perf_counter()
        agent_cuts = used is not None and used.size > 0
        cuts = excluded is not None and excluded.size > 0 or agent_cuts
        # One deadline for the whole call: building the integer model, every CP-SAT run, the check.
        deadline = None if self.time_limit_s is None else start + self.time_limit_s
        # Under a time limit, the MILP pipeline's starting plan (the planner search's Lagrangian
        # heuristic where the rows couple the agents) is CP-SAT's hint and the answer if CP-SAT
        # finds nothing better before the limit.
        hint, hint_bound = (None, None) if deadline is None or cuts else MILPSolver._warm_start(problem, deadline)
        raw = self._solve_scaled(problem, clock, excluded if excluded is not None and excluded.size else None,
                                 used if agent_cuts else None, deadline, hint)
        if hint is not None and raw.status is not Status.OPTIMAL:
            raw = self._with_start(problem, raw, hint, hint_bound)
        if raw.status is not Status.OPTIMAL or raw.x is None:
            return raw
        if cuts:  # ``exact`` knows no cuts: only an integer model that is the problem itself proves
            return raw if _margins_exact(problem) else RawResult(raw.x, Status.FEASIBLE, raw.bound)
        # Certify the claim: by the exact solver where the problem is in its scope; otherwise the
        # exactly scaled model is the problem itself only when every margin q_i - alpha is a
        # float64 (the model's coefficients are the rounded margins).
        left = None if self.time_limit_s is None else self.time_limit_s - (time.perf_counter() - start)
        certificate = MILPSolver._certify_with_exact(problem, left)
        if certificate is not None:
            ok = within_tolerance(problem, np.rint(raw.x), certificate[1])
            return RawResult(raw.x, Status.OPTIMAL if ok else Status.FEASIBLE, certificate[2])
        if not _margins_exact(problem):
            return RawResult(raw.x, Status.FEASIBLE, raw.bound)
        return raw

    @staticmethod
    def _with_start(problem: SubsetSelectionProblem, raw: RawResult, start: np.ndarray,
                    start_bound: float | None) -> RawResult:
        """The better of CP-SAT's unproven answer and the starting plan, with the least proven bound."""
        bound = raw.bound if start_bound is None or raw.bound is None else min(raw.bound, start_bound)
        if bound is None:
            bound = start_bound
        if raw.x is None:  # (CP-SAT found nothing; an infeasibility claim the start refutes proves nothing)
            return RawResult(start, Status.TIME_LIMIT if raw.status is Status.TIME_LIMIT else Status.FEASIBLE, bound)
        if problem.evaluate(start).utility > problem.evaluate(np.rint(raw.x)).utility:
            return RawResult(start, raw.status, bound)
        return raw._replace(bound=bound)

    def _solve_scaled(self, problem: SubsetSelectionProblem, clock: BackendClock,
                      excluded: np.ndarray | None = None, used: np.ndarray | None = None,
                      deadline: float | None = None, hint: np.ndarray | None = None) -> RawResult:
        form = linear_form(problem)
        if used is not None:
            form = excluding_agents(form, used)
        if excluded is not None:
            form = excluding(form, excluded)[0]
        raw, exact = self._units(problem, *clock.call(self._run, form, relaxed=False, deadline=deadline,
                                                      hint=None if hint is None else form.full(hint)))
        if raw.x is not None and not _margins_exact(problem) and not problem.evaluate(np.rint(raw.x)).feasible:
            # The rounded margins fl(q_i - alpha) accepted a selection the exact rule refuses (a
            # surplus a hair below -FEASIBILITY_TOL): decide without it.
            form, raw = self._without_refused(problem, clock, form, raw, deadline)
        margins = raw.status is not Status.INFEASIBLE or _margins_exact(problem)
        if raw.status is Status.INFEASIBLE and not (exact and margins):
            # Rounding the quality row down, or the margins q_i - alpha to floats, may cut off every
            # feasible selection; a relaxation (loosened by both roundings) decides: if it is
            # infeasible too, so is the problem.
            raw2, _ = self._units(problem, *clock.call(self._run, form, relaxed=True, deadline=deadline))
            if raw2.status is Status.INFEASIBLE or raw2.status is Status.TIME_LIMIT and raw2.x is None:
                return raw2
            if raw2.x is not None and problem.evaluate(np.rint(raw2.x)).feasible:
                return RawResult(raw2.x, Status.FEASIBLE, raw2.bound)
            if exact:  # only the margins' rounding was in doubt, and the relaxation found nothing better
                return raw
            raise SolverError("ortools-cpsat: the integer scaling of this instance is not exact and "
                              "CP-SAT could not decide feasibility; use an exact MILP backend")
        return raw

    def _without_refused(self, problem: SubsetSelectionProblem, clock: BackendClock, form: LinearForm,
                         raw: RawResult, deadline: float | None) -> tuple[LinearForm, RawResult]:
        """The strict model's answer once the selections the exact rule refuses are cut off.

        The strict model's rounded margins may accept a selection whose exact quality surplus lies
        a hair below the rule's bound.  Such a selection is no solution of the problem, so a no-good
        cut (Balas and Jeroslow, SIAM J. Appl. Math. 23(1), 1972) removes it and the model is
        solved again, :data:`~subsel.solvers._milp.MAX_DECIDE` times at most; the form with the
        cuts is returned too, so that the relaxation that decides an infeasible answer excludes
        them as well.  Where cuts are impossible (capacities above
        :data:`~subsel.solvers.base.MAX_CUT_RANGE`) or the answers keep failing, the model
        tightened by the margins' rounding decides: every selection it accepts passes the rule
        (status ``feasible``).

        Raises
        ------
        SolverError
            Neither route gives a selection the rule accepts, nor a proof that none exists.
        """
        refused: list[np.ndarray] = []
        cut_form = form
        if int(problem.capacity.max(initial=0)) <= MAX_CUT_RANGE:
            while raw.x is not None and len(refused) < MAX_DECIDE:
                x = np.rint(raw.x).astype(np.int64)
                if problem.evaluate(x).feasible:
                    return cut_form, raw
                refused.append(x)
                cut_form = excluding(form, np.array(refused, dtype=np.int64))[0]
                raw, _ = self._units(problem, *clock.call(self._run, cut_form, relaxed=False, deadline=deadline))
            if raw.x is None or problem.evaluate(np.rint(raw.x)).feasible:
                return cut_form, raw
        tight, _ = self._units(problem, *clock.call(self._run, form, relaxed=False, deadline=deadline,
                                                    tightened=True))
        if tight.x is not None and problem.evaluate(np.rint(tight.x)).feasible:
            return form, RawResult(tight.x, Status.TIME_LIMIT if tight.status is Status.TIME_LIMIT
                                   else Status.FEASIBLE, None)
        if tight.status is Status.TIME_LIMIT:
            return form, RawResult(None, Status.TIME_LIMIT)
        raise SolverError("ortools-cpsat: the rounded margins q_i - alpha of this instance accept selections the "
                          "exact rule refuses and CP-SAT could not decide without them; use an exact MILP backend")

    @staticmethod
    def _units(problem: SubsetSelectionProblem, raw: RawResult, exact: bool) -> tuple[RawResult, bool]:
        """``raw`` with only the agents' units (the planner's auxiliary variables dropped)."""
        return (raw if raw.x is None else raw._replace(x=np.asarray(raw.x)[:problem.n])), exact

    def _run(self, form: LinearForm, relaxed: bool, deadline: float | None = None,
             tightened: bool = False, hint: np.ndarray | None = None) -> tuple[RawResult, bool]:
        """Solve the scaled model, stopping at ``deadline`` (a ``time.perf_counter()`` value); also say
        whether the scaling was exact.  ``relaxed`` loosens the real lower sides by the roundings
        (a relaxation of the rule); ``tightened`` raises them by the margins' rounding (every
        selection it accepts passes the rule); ``hint`` (values of the form's variables) is
        CP-SAT's solution hint (``AddHint``)."""
        from ortools.sat.python import cp_model

        lo = form.lower.astype(np.int64)
        up = form.upper.astype(np.int64)
        model = cp_model.CpModel()
        # Variables: x_i integer units of agent i; bounds from capacity and the must lists.
        x = [model.NewIntVar(int(a), int(b), f"x_{i}") for i, (a, b) in enumerate(zip(lo, up))]
        exact = True
        reach = form.upper
        # An agent fixed at 0 (must-not-take) contributes nothing: its coefficients are dropped
        # before scaling, so they neither spoil exactness nor overflow int64 (a tiny budget with
        # a must-not-take agent of cost 0.05 once asked for 0.05 * 2**86).
        live = reach > 0
        for row in form.rows:
            row_coef = np.where(live, row.coef, 0.0) if row.index is None else row.coef
            if row.real and np.isfinite(row.lower):
                # A real lower side (quality: sum (q_i - alpha) x_i >= -FEASIBILITY_TOL, evaluate's
                # rule; a quality floor likewise), scaled by 2**k, coefficients rounded down; the
                # exact integer right side is ceil(lower * 2**k) = -floor(-lower * 2**k).
                terms = [x[i] for i in row.index.tolist()] if row.index is not None else x
                low = tuple(-t for t in row.side) if row.side is not None else (-row.lower,)
                k, ok = _scale_exponent(row_coef, reach if row.index is None else reach[row.index],
                                        extra=sum(abs(t) for t in low))
                scaled = np.ldexp(row_coef, k)
                rhs = -_floor_scaled(*low, k=k)
                row_reach = reach if row.index is None else reach[row.index]
                # the most the rounding of each margin fl(q_i - alpha), half an ulp, moves the row
                ulps = float(np.ldexp(2.0 ** -53 * float(np.abs(row_coef) @ row_reach), k))
                if relaxed:
                    coef = np.rint(scaled)
                    # Loosened by the rounding to integers (when the scaling is not exact) and by the
                    # margins' rounding: a relaxation of the rule.
                    rhs -= math.ceil((0.5 * float(row_reach.sum()) if not ok else 0.0) + ulps)
                else:
                    coef = np.floor(scaled)
                    if tightened:  # stricter by the margins' rounding: what it accepts passes the rule
                        rhs += math.ceil(ulps)
                exact &= ok
                model.Add(cp_model.LinearExpr.WeightedSum(terms, _as_int64(coef, f"{row.name} row")) >= rhs)
            elif row.real:
                # A real upper side (budget: sum c_i x_i <= B + FEASIBILITY_TOL, evaluate's rule),
                # scaled by 2**k, coefficients up and the right side down (exactly, as a rational).
                terms = [x[i] for i in row.index.tolist()] if row.index is not None else x
                # the exact side (B + FEASIBILITY_TOL) when the row gives its terms; its magnitude
                # bounds the scale (the terms' absolute values: a side that cancels to near zero,
                # e.g. an upper bound of -2e-9 against the tolerance, must not admit 2**500)
                side = row.side if row.side is not None else (row.upper, FEASIBILITY_TOL)
                k, ok = _scale_exponent(row_coef, reach if row.index is None else reach[row.index],
                                        extra=sum(abs(t) for t in side))
                upper_coef = _as_int64(np.ceil(np.ldexp(row_coef, k)), f"{row.name} row")
                upper_rhs = _as_int64(_floor_scaled(*side, k=k), row.name)
                exact &= ok
                model.Add(cp_model.LinearExpr.WeightedSum(terms, upper_coef) <= upper_rhs)
            else:
                # Demand sum x_i >= D and the planner's rows (lot sizes, used variables, group
                # limits): integer coefficients and sides already.
                idx, vals = row.terms()
                expr = cp_model.LinearExpr.WeightedSum([x[i] for i in idx.tolist()],
                                                       [int(v) for v in vals.tolist()])
                if row.sense == "=":
                    model.Add(expr == int(row.rhs))
                elif row.sense == ">=":
                    model.Add(expr >= int(row.rhs))
                else:
                    model.Add(expr <= int(row.rhs))
        # Objective: utility sum r_i x_i, scaled by 2**k and rounded to nearest when not exact.
        objective = np.where(live, form.objective, 0.0)
        k_obj, ok = _scale_exponent(objective, reach)
        exact &= ok
        obj = _as_int64(np.rint(np.ldexp(objective, k_obj)), "objective")
        model.Maximize(cp_model.LinearExpr.WeightedSum(x, obj))
        if hint is not None:
            for var, value in zip(x, np.rint(hint).astype(np.int64).tolist()):
                model.AddHint(var, value)

        solver = cp_model.CpSolver()
        solver.parameters.relative_gap_limit = 0.0
        solver.parameters.absolute_gap_limit = 0.0
        solver.parameters.log_search_progress = bool(self.verbose)
        if deadline is not None:  # what is left of the call's time after building the model
            left = deadline - time.perf_counter()
            if left <= 0:
                return RawResult(None, Status.TIME_LIMIT), exact
            solver.parameters.max_time_in_seconds = left
        if self.threads is not None:
            solver.parameters.num_workers = int(self.threads)
        status = solver.Solve(model)
        bound = math.ldexp(solver.BestObjectiveBound(), -k_obj)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            xv = np.array([solver.Value(v) for v in x], dtype=float)
            if status == cp_model.OPTIMAL:
                # The bound of a rounded (restricted) model is no bound of the problem: drop it.
                if exact and not relaxed:
                    return RawResult(xv, Status.OPTIMAL, bound), exact
                return RawResult(xv, Status.FEASIBLE, None), exact
            st = Status.TIME_LIMIT if deadline is not None else Status.FEASIBLE
            return RawResult(xv, st, bound if exact else None), exact
        if status == cp_model.INFEASIBLE:
            return RawResult(None, Status.INFEASIBLE), exact
        if status == cp_model.UNKNOWN and deadline is not None:
            return RawResult(None, Status.TIME_LIMIT), exact
        if status == cp_model.MODEL_INVALID:
            # CP-SAT checks that every linear expression stays within 64-bit integers: with huge
            # capacities (1024 agents of 2^53 units) the sums of units pass 2^63.
            reason = (model.Validate() or "no reason given").splitlines()[0]
            raise SolverError(f"ortools-cpsat: CP-SAT refused the model ({reason[:200]}); its sums of units and "
                              "scaled coefficients must stay within 64-bit integers: use highs or cbc")
        raise SolverError(f"ortools-cpsat: solver status {solver.StatusName(status)}")
