"""HiGHS through highspy, built directly from arrays (the linear form of Deva et al., Section 3).

PuLP's HiGHS wrapper reports a time-limited stop as "Optimal"; this backend reads HiGHS's own model
status instead, and sets both MIP gaps to 0 so that ``optimal`` means proven optimal.
"""
from __future__ import annotations

import time

import numpy as np

from ..models import LinearForm
from ._milp import MILPSolver, captured_output
from .base import RawResult, SolverError, Status

#: Most agents of a model that HiGHS presolves under a time limit: its presolve does not check the
#: limit in every step (on 20,000 planner suppliers it ran 12.6-14.8 s on a 5 s limit, 8.6-8.9 s
#: without it; on 50,000, 83.5 s on a 60 s limit, 61.5 s without it, and a better plan).
PRESOLVE_MAX_AGENTS = 10_000


class HiGHS(MILPSolver):
    """Exact MILP backend on HiGHS (highspy), with every extension.

    The model is the scaled linear form (:func:`subsel.solvers._milp.solver_form`) passed as a
    column-compressed matrix with ``passModel``.  Options: ``mip_rel_gap = mip_abs_gap = 0``;
    primal, MIP and dual feasibility tolerances 1e-9 on the scaled model; the warm start with
    ``setSolution``; ``time_limit_s`` (the remaining time of the whole call) maps to ``time_limit``
    (a stop there is status ``time_limit`` with HiGHS's dual bound); ``threads`` (HiGHS's thread
    pool is process-wide: setting it resets that pool); ``verbose`` turns HiGHS's log on.  An
    ``optimal`` whose objective value is not that of the returned point (HiGHS 1.16, warm-started
    with a feasible but suboptimal selection, may return it unchanged) is solved again without the
    warm start; an ``infeasible`` from HiGHS's presolve is checked by solving again without it;
    under a time limit, a model of more than :data:`PRESOLVE_MAX_AGENTS` agents is not presolved
    (HiGHS's presolve overran the limit by seconds to minutes there).
    Answers are verified with the exact feasibility rule and certified as described in
    :mod:`subsel.solvers._milp`.

    Examples
    --------
    >>> from subsel import SubsetSelectionProblem, get_solver
    >>> p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.2], cost=[0.1, 0.1, 0.1], alpha=0.7)
    >>> get_solver("highs").solve(p).x.tolist()
    [1, 1, 0]
    """

    name = "highs"
    complexity = "branch and cut (exp. worst case)"

    @classmethod
    def available(cls) -> tuple[bool, str]:
        try:
            import highspy  # noqa: F401
        except ImportError as exc:
            return False, f"highspy is not installed ({exc})"
        return True, ""

    def _run(self, form: LinearForm, time_limit: float | None, warm: np.ndarray | None,
             presolve: bool = True, relaxed: bool = False) -> RawResult:
        """Solve ``form`` (its LP relaxation with ``relaxed``: every variable continuous)."""
        import highspy

        t0 = time.perf_counter()

        with captured_output(not self.verbose):
            h = highspy.Highs()  # type: ignore[no-untyped-call]
        h.setOptionValue("output_flag", bool(self.verbose))
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 0.0)
        # Tolerances on the scaled model (coefficients in [0.5, 1)): see subsel.solvers._milp.
        h.setOptionValue("mip_feasibility_tolerance", 1e-9)
        h.setOptionValue("primal_feasibility_tolerance", 1e-9)
        h.setOptionValue("dual_feasibility_tolerance", 1e-9)
        # HiGHS drops matrix entries at or below small_matrix_value (default 1e-9) when the model is
        # passed; 1e-12 is the smallest it takes (what is still dropped, the certificate catches).
        h.setOptionValue("small_matrix_value", 1e-12)
        if not presolve or (time_limit is not None and form.n_agents > PRESOLVE_MAX_AGENTS):
            h.setOptionValue("presolve", "off")
        if self.threads is not None:
            # HiGHS keeps one process-wide thread pool; its size changes only after a reset.
            highspy.Highs.resetGlobalScheduler(True)
            h.setOptionValue("threads", int(self.threads))

        lp = highspy.HighsLp()
        lp.num_col_ = form.n
        lp.num_row_ = len(form.rows)
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.col_cost_ = form.objective
        lp.col_lower_ = form.lower
        lp.col_upper_ = form.upper
        inf = highspy.kHighsInf
        lp.row_lower_ = np.array([-inf if np.isinf(r.lower) else r.lower for r in form.rows])
        lp.row_upper_ = np.array([inf if np.isinf(r.upper) else r.upper for r in form.rows])
        start, index, value = form.csc()
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = start
        lp.a_matrix_.index_ = index
        lp.a_matrix_.value_ = value
        if not relaxed:
            lp.integrality_ = [highspy.HighsVarType.kInteger] * form.n
        h.passModel(lp)
        if warm is not None:
            sol = highspy.HighsSolution()
            sol.col_value = np.asarray(warm, dtype=float).tolist()
            h.setSolution(sol)
        if time_limit is not None:  # what is left after building the model
            h.setOptionValue("time_limit", max(float(time_limit) - (time.perf_counter() - t0), 1e-3))
        h.run()

        status = h.getModelStatus()
        info = h.getInfo()
        has_x = info.primal_solution_status == 2  # kSolutionStatusFeasible
        x = np.asarray(h.getSolution().col_value, dtype=float) if has_x else None
        bound = float(info.mip_dual_bound) if np.isfinite(info.mip_dual_bound) else None
        S = highspy.HighsModelStatus
        if status == S.kOptimal:
            claimed = float(info.objective_function_value)
            if warm is not None and x is not None and self._contradicts(RawResult(x, Status.OPTIMAL, claimed), form):
                # HiGHS 1.16 can hand back a feasible warm start unchanged as "optimal" with the
                # objective value of another (infeasible) point: a claim that contradicts itself.
                # Solve again without the start.
                left = None if time_limit is None else float(time_limit) - (time.perf_counter() - t0)
                if left is None or left > 0:
                    return self._run(form, left, None, relaxed=relaxed)
                return RawResult(x, Status.TIME_LIMIT, None)
            return RawResult(x, Status.OPTIMAL, claimed)
        if status == S.kInfeasible:
            left = None if time_limit is None else float(time_limit) - (time.perf_counter() - t0)
            if presolve and (left is None or left > 0):
                # HiGHS 1.x's presolve can call a feasible model infeasible when a row holds
                # coefficients 10 orders of magnitude apart (a cost of 1e-10 beside costs near 1):
                # the claim stands only when the model solved without presolve makes it too.
                return self._run(form, left, warm, presolve=False, relaxed=relaxed)
            return RawResult(None, Status.INFEASIBLE)
        if status in (S.kTimeLimit, S.kInterrupt, S.kIterationLimit, S.kSolutionLimit):
            return RawResult(x, Status.TIME_LIMIT, bound)
        if status == S.kModelEmpty:  # pragma: no cover - n >= 1 always
            return RawResult(np.zeros(form.n), Status.OPTIMAL, 0.0)
        if status == S.kSolveError and presolve:
            # HiGHS (1.x) can end a model whose rows sit a few ulps from their bounds with "Solve
            # error" from its presolve; solve it again without presolve before calling it an error.
            left = None if time_limit is None else float(time_limit) - (time.perf_counter() - t0)
            if left is None or left > 0:
                return self._run(form, left, warm, presolve=False, relaxed=relaxed)
        raise SolverError(f"highs: model status {h.modelStatusToString(status)}")

