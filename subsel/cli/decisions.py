"""Decision commands: ``frontier``, ``payments``, and ``solve --alternatives``.

``frontier FILE --alpha-min A --alpha-max B [--points K | --breakpoints [--resolution D]
[--max-steps N]] [-o frontier.csv] [--plot frontier.png]`` writes one row per threshold
(``alpha, objective, units, avg_quality, agents, status``; with ``--breakpoints`` one row per optimal
selection, plus ``alpha_to``).
``payments FILE --alpha A [-o payments.csv]`` writes ``name, units, reported_cost, payment,
payment_per_unit``.  Both write CSV to stdout by default (``-o -``), atomically to a file otherwise.
Exit codes as the core commands: 2 on bad input, one line on stderr.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys

import numpy as np

from ..models import PLANNER_EXTENSIONS
from ..solvers import Solver, SolverError, Status
from . import CLIError, counted, emit, integer, number
from .constraints import parse_expressions
from .core import (
    _add_problem_args,
    _default_solver,
    _fmt,
    _load_problem,
    _problem_inputs,
    _selected_agents,
    print_table,
)
from .guards import check_memory, check_paths


def _solver(args: argparse.Namespace, problem, exact_for: str | None = None) -> Solver:
    """The ``--solver`` backend; with ``exact_for`` (the command, for the message), an exact one."""
    from ..solvers import get_solver, solver_info

    if args.solver is not None and not args.solver.strip():
        raise CLIError("--solver must name a backend (see 'subsel solvers'); got ''")
    solver = get_solver(args.solver if args.solver is not None else _default_solver(problem))
    if exact_for is not None and not solver.exact:
        exact = ", ".join(row.name for row in solver_info() if row.available and row.exact)
        raise CLIError(f"--solver {solver.name} does not prove optimality; {exact_for} needs an exact "
                       f"solver: one of {exact} (see 'subsel solvers')")
    return solver


def _write_table(df, output: str, what: str) -> None:
    emit(df.to_csv(index=False, float_format="%.10g", lineterminator="\n"), output)
    if output != "-":
        print(f"wrote {counted(len(df), 'row')} ({what}) to {output}", file=sys.stderr)


# ---------------------------------------------------------------------------------- frontier
#: Peak bytes per threshold of ``frontier --points``: the grid, the row's values, the table and its text.
_BYTES_PER_POINT = 512


def _cmd_frontier(args: argparse.Namespace) -> int:
    from ..decisions import frontier, frontier_breakpoints

    for option, v in (("--alpha-min", args.alpha_min), ("--alpha-max", args.alpha_max)):
        if not 0.0 <= v <= 1.0:
            raise CLIError(f"{option} must be in [0, 1]; got {v}")
    if args.alpha_min > args.alpha_max:
        raise CLIError(f"--alpha-min must be <= --alpha-max; got {args.alpha_min:g} > {args.alpha_max:g}")
    if args.points is not None and args.breakpoints:
        raise CLIError("--points and --breakpoints exclude each other: a grid or the exact steps")
    if not args.breakpoints:
        for option, v in (("--resolution", args.resolution), ("--max-steps", args.max_steps)):
            if v is not None:
                raise CLIError(f"{option} applies to --breakpoints only (a grid has --points)")
    if args.resolution is not None and not 0.0 <= args.resolution <= 1.0:
        raise CLIError(f"--resolution must be in [0, 1]; got {args.resolution}")
    if args.max_steps is not None and args.max_steps < 1:
        raise CLIError(f"--max-steps must be a positive integer; got {args.max_steps}")
    points = 21 if args.points is None else args.points
    if points < 1:
        raise CLIError(f"--points must be a positive integer; got {points}")
    # The grid, the rows' values, the table and its text: about half a kilobyte per threshold.
    check_memory(points * _BYTES_PER_POINT, f"--points {points}")
    if args.plot is not None and args.plot == "-":
        raise CLIError("--plot needs a file name (.png, .pdf, .svg, ...), not '-'")
    check_paths(_problem_inputs(args), [("--output", args.output), ("--plot", args.plot)])
    if args.plot is not None:
        from .._extras import require

        require("matplotlib", extra="experiments", feature="subsel frontier --plot")
        from ..decisions import figure_format

        try:
            figure_format(args.plot)
        except ValueError as exc:
            raise CLIError(f"--plot: {exc}") from None
    args.alpha = args.alpha_min  # the problem needs a threshold; every row sets its own
    problem, _, label = _load_problem(args)
    solver = _solver(args, problem, exact_for="frontier --breakpoints" if args.breakpoints else None)
    try:
        if args.breakpoints:
            df = frontier_breakpoints(problem, args.alpha_min, args.alpha_max, solver=solver,
                                      resolution=args.resolution or 0.0, max_steps=args.max_steps)
        else:
            df = frontier(problem, np.linspace(args.alpha_min, args.alpha_max, points), solver=solver)
    except SolverError as exc:
        print(f"subsel: solver failed: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    what = "breakpoints" if args.breakpoints else "thresholds"
    if args.plot is None:
        _write_table(df, args.output, what)
    else:
        from .._files import atomic_write_with
        from ..decisions import plot_frontier

        def draw_then_table(tmp: str) -> None:
            # The figure goes to a temporary file beside --plot and replaces it only once the
            # table is written: a failing command leaves an existing figure as it was.
            plot_frontier(df, tmp, title=f"The price of quality: {label}")
            _write_table(df, args.output, what)

        atomic_write_with(args.plot, draw_then_table)
        print(f"wrote {args.plot} (best total profit and suppliers used against alpha)", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------------- payments
def _cmd_payments(args: argparse.Namespace) -> int:
    from ..decisions import payments

    check_paths(_problem_inputs(args), [("--output", args.output)])
    for e in parse_expressions(args):
        if e.column == "cost":
            # a row over the reported costs is a budget: an agent could then gain by misreporting
            raise CLIError(f"{e.option} {e.text!r}: payments take no constraint over the reported costs (a "
                           "budget by another name: truthful reporting would no longer be a dominant strategy)")
    problem, _, _ = _load_problem(args)  # no --budget: payments offer none (see the parser)
    try:
        df = payments(problem, solver=_solver(args, problem, exact_for="payments"))
    except SolverError as exc:
        print(f"subsel: solver failed: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    _write_table(df, args.output, "payments")
    return 0


# ---------------------------------------------------------------------------------- solve --alternatives
def solve_alternatives(args: argparse.Namespace, problem, solver: Solver, label: str) -> int:
    """``subsel solve FILE --alternatives K``: the K best selections as a table (CSV with ``-o``)."""
    from ..decisions import alternatives

    if args.alternatives < 1:
        raise CLIError(f"--alternatives must be a positive integer; got {args.alternatives}")
    planner = sorted(problem.extensions & set(PLANNER_EXTENSIONS))
    distinct = args.distinct or "units"
    if (planner or problem.added_constraints) and not solver.no_good_cuts:
        what = f"the planner's {', '.join(planner)}" if planner else \
            f"the constraints {', '.join(repr(c.name) for c in problem.added_constraints)}"
        raise CLIError(f"--alternatives with {what} needs a solver with no-good cuts "
                       f"(--solver highs, cbc, ortools-scip or ortools-cpsat); got --solver {solver.name}")
    if distinct == "agents" and not solver.no_good_cuts:
        raise CLIError("--distinct agents needs a solver with no-good cuts (--solver highs, cbc, ortools-scip or "
                       f"ortools-cpsat); got --solver {solver.name}")
    try:
        df = alternatives(problem, args.alternatives, solver=solver, distinct=distinct)
    except SolverError as exc:
        print(f"subsel: solver failed: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    empty = None
    if df.empty:  # say why, as `subsel solve` does: one solve gives the status and the explanation
        try:
            empty = solver.solve(problem)
        except SolverError as exc:
            print(f"subsel: solver failed: {str(exc).splitlines()[0]}", file=sys.stderr)
            return 1
    # as `subsel solve`: exit 1 when no answer came back (a limit before any selection), 0 when infeasible
    code = 1 if empty is not None and empty.status is not Status.INFEASIBLE else 0
    if empty is not None and args.output is not None:
        print(f"subsel: no selection written: status {empty.status.value}", file=sys.stderr)
    elif args.output is not None:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["rank", "name", "units"])
        for rank, x in zip(df["rank"], df.x):
            w.writerows((int(rank), problem.names[i], int(x[i])) for i in np.flatnonzero(x))
        emit(buf.getvalue(), args.output)
    if args.json:
        rows = [dict(rank=int(r.rank), objective=r.objective, units=int(r.units),
                     avg_quality=None if math.isnan(r.avg_quality) else r.avg_quality, agents=int(r.agents),
                     status=r.status, x=[int(v) for v in r.x]) for r in df.itertuples()]
        doc: dict = {"solver": solver.name, "alternatives": rows}
        if empty is not None:
            d = empty.to_dict()
            doc["status"] = d["status"]
            if empty.explanation is not None:
                doc["explanation"], doc["conflict"] = d["explanation"], d["conflict"]
        print(json.dumps(doc, allow_nan=False))
        return code
    out = sys.stderr if args.output == "-" else sys.stdout
    print(f"problem      {label}: {counted(problem.n, 'agent')}, alpha {problem.alpha:g}, R {problem.R:g}"
          + (f", extensions {','.join(sorted(problem.extensions))}" if problem.extensions else ""), file=out)
    print(f"solver       {solver.name}", file=out)
    if empty is not None:
        print(f"status       {empty.status.value}", file=out)
        if empty.explanation is not None:
            print(f"why          {empty.explanation}", file=out)
        print("no feasible selection" if empty.status is Status.INFEASIBLE
              else "no selection found", file=out)
        return code
    table = [("rank", "objective", "units", "avg_quality", "agents", "status", "selection")]
    for r in df.itertuples():
        table.append((str(r.rank), _fmt(r.objective), str(r.units), _fmt(r.avg_quality, 6), str(r.agents),
                      r.status, _selected_agents(problem.names, r.x) or "(nothing)"))
    print_table(table, file=out)
    if len(df) < args.alternatives:
        print(f"only {counted(len(df), 'feasible selection')} {'exists' if len(df) == 1 else 'exist'}", file=out)
    if args.output is not None and args.output != "-":
        print(f"wrote        {args.output} (rank,name,units of the selected agents)", file=out)
    return 0


# ---------------------------------------------------------------------------------- registration
def register(sub: argparse._SubParsersAction) -> None:
    """Add ``frontier`` and ``payments`` to the ``subsel`` parser."""
    p = sub.add_parser("frontier", help="the best profit at each quality threshold (the price of quality)",
                       description="Solve the agents CSV at every threshold between --alpha-min and "
                                   "--alpha-max (Deva et al., AAMAS 2021, Section 3), or find the exact "
                                   "thresholds where the optimal selection changes (--breakpoints).")
    _add_problem_args(p, knapsack=False, alpha=False)
    p.add_argument("--alpha-min", type=number, required=True, metavar="A", help="smallest threshold, in [0, 1]")
    p.add_argument("--alpha-max", type=number, required=True, metavar="B", help="largest threshold, in [0, 1]")
    p.add_argument("--points", type=integer, metavar="K", help="thresholds on an even grid (default 21)")
    p.add_argument("--breakpoints", action="store_true",
                   help="instead of a grid, one row per optimal selection with the range of thresholds "
                        "(alpha to alpha_to) where it is optimal; needs an exact solver (a step it cannot "
                        "prove is solved by a certified MILP backend: highs, cbc or ortools-scip)")
    p.add_argument("--resolution", type=number, metavar="D",
                   help="with --breakpoints: skip the thresholds closer than D to the last row's start (rows "
                        "stay exact; about (B - A) / D solves at most); default 0, every step")
    p.add_argument("--max-steps", type=integer, metavar="N",
                   help="with --breakpoints: stop with exit code 2 (naming a --resolution that fits) rather "
                        "than find more than N steps; default no limit")
    p.add_argument("--solver", help="backend name (see 'subsel solvers'); default: the first available exact one")
    p.add_argument("-o", "--output", default="-", help="CSV to write ('-' = stdout, the default)")
    p.add_argument("--plot", metavar="FILE", help="also draw profit and suppliers used against alpha, in the "
                                                 "image format the extension names (.png, .pdf, .svg, ...)")
    p.set_defaults(func=_cmd_frontier)

    p = sub.add_parser("payments", help="truthful (critical) payments to agents who report their costs",
                       description="Pay each selected agent its critical amount c x(c) + integral of x(z) "
                                   "dz above c (Myerson 1981; Archer and Tardos 2001), so that reporting "
                                   "the true cost is a dominant strategy; no budget (the planner's columns "
                                   "are kept, with a MILP backend).")
    _add_problem_args(p, knapsack=False, budget=False)
    p.add_argument("--solver", help="an exact backend (see 'subsel solvers'); default: the first available")
    p.add_argument("-o", "--output", default="-", help="CSV to write ('-' = stdout, the default)")
    p.set_defaults(func=_cmd_payments)
