"""CBC through PuLP, found by name (``pulp.getSolver("PULP_CBC_CMD")``), never a hard-coded class.

PuLP 3.x wheels bundle the CBC binary; PuLP 4 moves it out.  When CBC is missing, this backend is
"not available" (``CBC.available() == (False, reason)``) and ``subsel solvers`` says so; importing
this module never fails for that reason.
"""
from __future__ import annotations

import numpy as np

from ..models.formulations import LinearForm
from ._milp import MILPSolver
from .base import RawResult, SolverError, Status

#: PuLP's registry name of its bundled CBC.
PULP_CBC = "PULP_CBC_CMD"


class CBC(MILPSolver):
    """Exact MILP backend on COIN-OR CBC through PuLP, with every extension.

    The model is :meth:`subsel.models.LinearForm.pulp_model` (variables ``x_{i}``).  Options passed
    to PuLP: ``gapRel = gapAbs = 0``; ``timeLimit`` from ``time_limit_s`` (a stop there with an
    incumbent is status ``time_limit``; PuLP does not report CBC's bound, so ``bound`` is None then);
    ``threads``; ``msg`` from ``verbose``.  Answers failing the 1e-9 feasibility check are re-solved
    with scaled rows and ``primalTolerance 1e-9``, ``integerTolerance 1e-9``, then repaired
    (SPEC §5; :mod:`subsel.solvers._milp`).
    """

    name = "cbc"
    complexity = "branch and cut (exp. worst case)"

    @classmethod
    def available(cls) -> tuple[bool, str]:
        try:
            import pulp
        except ImportError as exc:
            return False, f"pulp is not installed ({exc})"
        try:
            found = pulp.listSolvers(onlyAvailable=True)
        except Exception as exc:  # pragma: no cover - PuLP's own probing failed
            return False, f"PuLP could not list its solvers ({exc})"
        if PULP_CBC not in found:
            return False, (f"PuLP {pulp.__version__} has no working {PULP_CBC} "
                           "(PuLP >= 4 no longer bundles CBC; install pulp<4 or a cbc binary)")
        return True, ""

    def _run(self, form: LinearForm, tight: bool) -> RawResult:
        import pulp

        prob, x = form.pulp_model()
        options = ["primalTolerance 1e-9", "integerTolerance 1e-9"] if tight else []
        kwargs = dict(msg=bool(self.verbose), gapRel=0.0, gapAbs=0.0, options=options)
        if self.time_limit_s is not None:
            kwargs["timeLimit"] = self.time_limit_s
        if self.threads is not None:
            kwargs["threads"] = self.threads
        solver = pulp.getSolver(PULP_CBC, **kwargs)
        try:
            prob.solve(solver)
        except pulp.PulpSolverError as exc:
            raise SolverError(f"cbc: {exc}") from exc
        values = [v.varValue for v in x]
        has_x = all(v is not None for v in values)
        xv = np.array(values, dtype=float) if has_x else None
        if prob.sol_status == pulp.LpSolutionOptimal:
            return RawResult(xv, Status.OPTIMAL, float(xv @ form.objective) if has_x else None)
        if prob.sol_status == pulp.LpSolutionInfeasible or prob.status == pulp.LpStatusInfeasible:
            return RawResult(None, Status.INFEASIBLE)
        if prob.sol_status == pulp.LpSolutionIntegerFeasible:
            status = Status.TIME_LIMIT if self.time_limit_s is not None else Status.FEASIBLE
            return RawResult(xv, status, None)
        if prob.status == pulp.LpStatusNotSolved and self.time_limit_s is not None:
            return RawResult(None, Status.TIME_LIMIT, None)
        raise SolverError(f"cbc: PuLP status {pulp.LpStatus.get(prob.status, prob.status)}, "
                          f"solution status {pulp.LpSolution.get(prob.sol_status, prob.sol_status)}")
