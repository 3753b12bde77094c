"""CBC through PuLP, found by name (``pulp.getSolver("PULP_CBC_CMD")``), never a hard-coded class.

PuLP 3.x wheels bundle the CBC binary; PuLP 4 moves it out.  When CBC is missing, this backend is
"not available" (``CBC.available() == (False, reason)``) and ``subsel solvers`` says so; importing
this module never fails for that reason.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from ..models import LinearForm, weighted_sum
from ._milp import MILPSolver
from .base import RawResult, SolverError, Status

#: PuLP's names for CBC, in order of preference: the binary bundled with PuLP 3.x, then a CBC
#: installed apart (PuLP 4 moves CBC out: ``pip install pulp[cbc]`` and ``COIN_CMD``).
PULP_CBC = "PULP_CBC_CMD"
CBC_NAMES = (PULP_CBC, "COIN_CMD")


def _cbc_name() -> str | None:
    """The first of :data:`CBC_NAMES` that PuLP reports available here, or None."""
    import pulp

    found = pulp.listSolvers(onlyAvailable=True)
    return next((name for name in CBC_NAMES if name in found), None)


#: CLP's ``dualTolerance`` in every CBC run (reduced costs, hence utilities, below it are zero).
CBC_DUAL_TOLERANCE = 1e-11


class CBC(MILPSolver):
    """Exact MILP backend on COIN-OR CBC through PuLP, with every extension.

    CBC is found by name through ``pulp.listSolvers(onlyAvailable=True)`` / ``pulp.getSolver``
    (:data:`CBC_NAMES`).  The model is the scaled linear form
    (:func:`subsel.solvers._milp.solver_form`) built by :meth:`subsel.models.LinearForm.pulp_model`.
    Options passed to PuLP: ``gapRel = gapAbs = 0``; ``dualTolerance 1e-11`` (CLP's default 1e-7
    let the LP ignore reduced costs, hence utilities, below 1e-7: an agent with ``r = 6e-8`` was
    left out of an ``optimal`` selection), ``primalTolerance 1e-9``, ``integerTolerance 1e-9``; the
    warm start as initial values with ``warmStart`` (not on the planner's forms, see ``_run``);
    ``timeLimit`` from the remaining time of the
    call (a stop there with an incumbent is status ``time_limit``; PuLP does not report CBC's
    bound); ``threads``; ``msg`` from ``verbose``.  Answers are verified with the exact feasibility
    rule and certified as described in :mod:`subsel.solvers._milp`.
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
            name = _cbc_name()
        except Exception as exc:  # pragma: no cover - PuLP's own probing failed
            return False, f"PuLP could not list its solvers ({exc})"
        if name is None:
            return False, (f"PuLP {pulp.__version__} finds no CBC ({' or '.join(CBC_NAMES)}); "
                           "PuLP >= 4 no longer bundles it: install pulp<4 or pulp[cbc]")
        return True, ""

    def _run(self, form: LinearForm, time_limit: float | None, warm: np.ndarray | None) -> RawResult:
        import pulp

        t0 = time.perf_counter()
        prob, x = form.pulp_model()
        build = time.perf_counter() - t0
        # CLP's dual tolerance (default 1e-7) bounds the utilities it can see: keep it far below
        # 1e-9 on the scaled objective; primal and integer tolerances as tight as CBC takes.
        options = [f"dualTolerance {CBC_DUAL_TOLERANCE:g}", "primalTolerance 1e-9", "integerTolerance 1e-9"]
        kwargs = dict(msg=bool(self.verbose), gapRel=0.0, gapAbs=0.0, options=options)
        # No warm start on the planner's forms (binary "used" columns): CBC (2.10, through PuLP's
        # warmStart) returned the start itself as optimal on such a model while a better selection
        # existed (a must-take agent with a fixed cost; tests/solvers/test_planner_backends.py).
        if warm is not None and not form.aux_of.size:
            for var, v in zip(x, np.asarray(warm).tolist()):
                var.setInitialValue(v)
            kwargs["warmStart"] = True
        if time_limit is not None:
            # PuLP writes the model to a file for CBC and reads the answer back: keep time for that
            # (about twice the time it took to build the model).
            kwargs["timeLimit"] = max(float(time_limit) - 3.0 * build, 0.01)
        if self.threads is not None:
            kwargs["threads"] = self.threads
        name = _cbc_name()
        if name is None:
            raise SolverError(f"cbc: {self.available()[1]}")
        with warnings.catch_warnings():  # PuLP 3.3 announces PULP_CBC_CMD's move in PuLP 4
            warnings.simplefilter("ignore", DeprecationWarning)
            solver = pulp.getSolver(name, **kwargs)
        try:
            prob.solve(solver)
        except pulp.PulpSolverError as exc:
            raise SolverError(f"cbc: {exc}") from exc
        values = [v.varValue for v in x]
        has_x = all(v is not None for v in values)
        xv = np.array(values, dtype=float) if has_x else None
        if prob.sol_status == pulp.LpSolutionOptimal:
            return RawResult(xv, Status.OPTIMAL, float(weighted_sum(xv, form.objective)) if xv is not None else None)
        if prob.sol_status == pulp.LpSolutionInfeasible or prob.status == pulp.LpStatusInfeasible:
            return RawResult(None, Status.INFEASIBLE)
        if prob.sol_status == pulp.LpSolutionIntegerFeasible:
            status = Status.TIME_LIMIT if time_limit is not None else Status.FEASIBLE
            return RawResult(xv, status, None)
        if prob.status == pulp.LpStatusNotSolved and time_limit is not None:
            return RawResult(None, Status.TIME_LIMIT, None)
        raise SolverError(f"cbc: PuLP status {pulp.LpStatus.get(prob.status, prob.status)}, "
                          f"solution status {pulp.LpSolution.get(prob.sol_status, prob.sol_status)}")
