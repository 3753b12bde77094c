"""CBC through PuLP, found by name (``pulp.getSolver("PULP_CBC_CMD")``), never a hard-coded class.

PuLP 3.x wheels bundle the CBC binary; PuLP 4 moves it out.  When CBC is missing, this backend is
"not available" (``CBC.available() == (False, reason)``) and ``subsel solvers`` says so; importing
this module never fails for that reason.
"""
from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
import warnings

import numpy as np

from ..models import LinearForm
from ..models._rules import weighted_sum
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


def _children_using(marker: str) -> list[int]:
    """This process's child processes whose command line contains ``marker`` (Linux ``/proc``;
    elsewhere none)."""
    me = os.getpid()
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            if ppid != me:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if marker.encode() not in fh.read():
                    continue
        except (OSError, ValueError, IndexError):
            continue
        found.append(int(entry))
    return found


def interrupt_children_using(marker: str) -> list[int]:
    """Send SIGINT to this process's children whose command line contains ``marker``: CBC then
    stops its search at its next check and writes its best selection, as at its own time limit.

    Returns
    -------
    list of int
        The process ids signalled.
    """
    done = []
    for pid in _children_using(marker):
        try:
            os.kill(pid, signal.SIGINT)
            done.append(pid)
        except ProcessLookupError:
            pass
    return done


def end_children_using(marker: str, wait_s: float = 2.0) -> list[int]:
    """End this process's child processes whose command line contains ``marker``.

    The CBC process PuLP started on files of the folder ``marker`` (PuLP keeps no handle to it once
    its ``wait`` is interrupted).  SIGTERM first, SIGKILL after ``wait_s`` seconds.  Linux only
    (``/proc``); elsewhere nothing is done.

    Returns
    -------
    list of int
        The process ids signalled.
    """
    found = _children_using(marker)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = []
        for pid in found:
            try:
                os.kill(pid, sig)
                alive.append(pid)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait_s
        while alive and time.monotonic() < deadline:
            alive = [pid for pid in alive if not _reaped(pid)]
            time.sleep(0.02)
        if not alive:
            break
    return found


def _reaped(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == pid


#: CLP's ``dualTolerance`` in every CBC run (reduced costs, hence utilities, below it are zero).
CBC_DUAL_TOLERANCE = 1e-11

#: Seconds past the time left at which a CBC process still running is interrupted (SIGINT).
INTERRUPT_GRACE_S = 1.0


class CBC(MILPSolver):
    """Exact MILP backend on COIN-OR CBC through PuLP, with every extension.

    CBC is found by name through ``pulp.listSolvers(onlyAvailable=True)`` / ``pulp.getSolver``
    (:data:`CBC_NAMES`).  The model is the scaled linear form
    (:func:`subsel.solvers._milp.solver_form`) built by :meth:`subsel.models.LinearForm.pulp_model`.
    Options passed to PuLP: ``gapRel = gapAbs = 0``; ``dualTolerance 1e-11`` (CLP's default 1e-7
    let the LP ignore reduced costs, hence utilities, below 1e-7: an agent with ``r = 6e-8`` was
    left out of an ``optimal`` selection), ``primalTolerance 1e-9``, ``integerTolerance 1e-9``; no warm
    start (with one, CBC returned a worse selection as optimal on about 1% of random instances; the
    pipeline keeps the warm selection itself); ``timeLimit`` from the remaining time of the
    call less three times the model's building (PuLP writes the model and reads the answer), and
    CBC is not started when nothing is left (a stop there with an incumbent is status
    ``time_limit``; PuLP does not report CBC's bound); a CBC process still running
    :data:`INTERRUPT_GRACE_S` after the time left (it checks its limit only in the search) is
    interrupted with SIGINT and answers its best selection; ``threads``; ``msg`` from
    ``verbose``.  Answers are verified with the exact feasibility rule and certified as described
    in :mod:`subsel.solvers._milp`.
    """

    name = "cbc"
    complexity = "branch and cut (exp. worst case)"
    # With the rows 2^20 times larger, CBC's search missed the optimum of a model whose quality row
    # is a hair from binding and called a worse selection optimal (q = (0.576, 0.871, 0.958),
    # c = (4.74, 8.65, 10.93), R = 14, k = (4104, 150, 720), lots (24, 1, 24), alpha =
    # 0.876660377359434: 2877.07 where 2946.22 is feasible; CBC 2.10).  2^10 still puts its
    # tolerance below the rule's 1e-9, and what the rule refuses is cut off and solved again.
    decide_boost = 2.0 ** 10
    # CBC 2.10's preprocessing called a worse selection optimal on small planner models (qualities
    # at alpha, lots of 2, a demand of 1 and a group cap of 3: -0.2 where -0.1 is feasible; the LP
    # file alone reproduces it; about 1 in 3,000 random planner problems), and with preprocessing
    # off it fails to run on others: ``exact``, faster than CBC on the planner's coupling rows,
    # certifies every optimum it supports.
    certify_everywhere = True

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
        # No warm start: given an initial selection (PuLP's ``warmStart``, a MIPStart file), CBC
        # ended on about 1% of random instances at a worse selection that it called optimal, while
        # the same model without it reached the optimum (SubsetSelectionProblem.random(60, 0.7)
        # with seed 5: 9.146175 against 9.146717).  The pipeline keeps the warm selection itself
        # (MILPSolver offers it as the answer when CBC finds nothing better), so nothing is lost.
        del warm
        if time_limit is not None:
            # PuLP writes the model to a file for CBC and reads the answer back: keep time for that
            # (about twice the time it took to build the model).  When the building took all of
            # it, CBC is not started (it would only run past the limit).
            search = float(time_limit) - 3.0 * build
            if search <= 0:
                return RawResult(None, Status.TIME_LIMIT, None)
            kwargs["timeLimit"] = search
        if self.threads is not None:
            kwargs["threads"] = self.threads
        name = _cbc_name()
        if name is None:
            raise SolverError(f"cbc: {self.available()[1]}")
        with warnings.catch_warnings():  # PuLP 3.3 announces PULP_CBC_CMD's move in PuLP 4
            warnings.simplefilter("ignore", DeprecationWarning)
            solver = pulp.getSolver(name, **kwargs)
        # PuLP writes the model, the start and the answer (13-65 MB each on 50,000 agents) to files
        # and runs CBC as a child process; an interruption (Ctrl-C, SIGTERM) left both behind.  The
        # files go to a folder of this call, removed however the call ends, and a CBC process
        # still running on them is ended.
        with tempfile.TemporaryDirectory(prefix="subsel-cbc-") as folder:
            solver.tmpDir = folder
            # CBC checks its time limit in the search only (not in its preprocessing or root LP): at
            # the end of the time left (less the reading of its answer) plus INTERRUPT_GRACE_S it
            # is interrupted, and answers with its best selection so far.
            watchdog = None
            if time_limit is not None:
                wait = float(time_limit) - (time.perf_counter() - t0) - build + INTERRUPT_GRACE_S
                watchdog = threading.Timer(max(wait, 0.0), interrupt_children_using, (folder,))
                watchdog.daemon = True
                watchdog.start()
            try:
                prob.solve(solver)
            except pulp.PulpSolverError as exc:
                raise SolverError(f"cbc: {exc}") from exc
            except BaseException:
                end_children_using(folder)
                raise
            finally:
                if watchdog is not None:
                    watchdog.cancel()
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
