"""What every MILP backend shares: gap 0, tolerance guarding, repair (SPEC §5 pitfalls).

A MILP solver accepts a selection whose constraint rows are violated by up to its feasibility
tolerance (about 1e-6), while :meth:`SubsetSelectionProblem.evaluate` allows only
:data:`~subsel.models.FEASIBILITY_TOL` = 1e-9: fifty agents at ``q = alpha - 1e-8`` pass the solver and
fail our check.  :class:`MILPSolver` therefore

1. solves the linear form of SPEC §1 with relative and absolute MIP gap 0;
2. when the answer fails ``evaluate``, re-solves with the quality and budget rows multiplied by
   1e3 and then 1e6 (the feasible set is unchanged; the solver's absolute tolerance now admits
   1000x / 10^6x less violation) and with the backend's tightest tolerances;
3. if that still fails (or the answer was a time-limited incumbent, which a re-solve would not
   improve on in time), repairs the selection: drops the units that spend the most quality (or
   money) per unit of utility until the row holds, and returns it as ``feasible`` (no longer proven
   optimal) with the solver's bound.  Only when no repair keeps every constraint does it raise.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..models import FEASIBILITY_TOL, SubsetSelectionProblem
from ..models.formulations import LinearForm, linear_form
from ..models.problem import weighted_sum
from .base import RawResult, Solver, SolverError, Status

#: Row scalings tried in turn when a backend's answer fails ``evaluate`` (SPEC §5).
ROW_SCALES = (1.0, 1e3, 1e6)


def _round(x: np.ndarray, form: LinearForm) -> np.ndarray:
    return np.clip(np.rint(np.asarray(x, dtype=float)), form.lower, form.upper).astype(np.int64)


def repair(problem: SubsetSelectionProblem, x: np.ndarray) -> np.ndarray | None:
    """Make a nearly feasible selection feasible by dropping units (SPEC §5, "repair").

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
            deficit = -float(weighted_sum(x, m)) - FEASIBILITY_TOL / 2
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
        units = np.repeat(order, (x - lb)[order])
        regained = np.cumsum(gain[units])
        k = int(np.searchsorted(regained, deficit, side="left"))
        if k >= units.size:
            return None
        np.subtract.at(x, units[: k + 1], 1)
    return x if problem.evaluate(x).feasible else None


class MILPSolver(Solver):
    """Base of the MILP backends: gap 0, re-solve with scaled rows, repair (SPEC §5).

    Subclasses implement :meth:`_run`, which solves one :class:`~subsel.models.LinearForm` and
    returns a :class:`RawResult` (``x`` may still be fractional within the solver's tolerance).
    """

    exact: ClassVar[bool] = True
    supports: ClassVar[frozenset[str]] = frozenset({"budget", "demand", "must_take", "must_not_take"})

    def _run(self, form: LinearForm, tight: bool) -> RawResult:  # pragma: no cover - abstract
        """Solve ``form``; ``tight`` asks for the backend's tightest feasibility tolerances."""
        raise NotImplementedError

    def _solve(self, problem: SubsetSelectionProblem) -> RawResult:
        last = None
        scaled_infeasible = False
        for attempt, scale in enumerate(ROW_SCALES):
            form = linear_form(problem, scale=scale)
            raw = self._run(form, tight=attempt > 0)
            if raw.x is None:
                if raw.status is Status.INFEASIBLE and attempt > 0 and last is not None:
                    scaled_infeasible = True  # a stricter solve finds nothing: repair, else infeasible
                    break
                return raw
            x = _round(raw.x, form)
            if problem.evaluate(x).feasible:
                return RawResult(x, raw.status, raw.bound)
            last = (x, raw)
            if raw.status is not Status.OPTIMAL:
                break  # a stop at the time limit would only stop again: repair this incumbent
        if last is None:  # pragma: no cover - defensive
            raise SolverError(f"{self.name}: no answer")
        x, raw = last
        fixed = repair(problem, x)
        if fixed is None:
            if scaled_infeasible:
                return RawResult(None, Status.INFEASIBLE, None)
            raise SolverError(f"{self.name}: the solver's selection fails the feasibility check "
                              f"({'; '.join(problem.evaluate(x).violations)}) and could not be repaired")
        # A repaired answer is no longer proven optimal; a time-limited one stays time_limit.
        status = Status.TIME_LIMIT if raw.status is Status.TIME_LIMIT else Status.FEASIBLE
        return RawResult(fixed, status, raw.bound)
