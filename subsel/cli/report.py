"""The ``report`` command: a planner's report as one self-contained HTML file.

``subsel report FILE --alpha A [the options of solve] [--alternatives K] [--payments] -o report.html``
solves the agents CSV and writes one HTML page (inline styles and figure, nothing fetched) with the
problem, the plan, what binds it, the price of quality, the next-best plans and the payments, or,
when nothing is feasible, why and the nearest fix (:func:`subsel.reporting.report`).  The page is
written atomically, and only once the whole report was made: a failing report writes nothing and
replaces nothing.  Exit codes as ``solve``: 0 a report (of an infeasible problem too), 1 the solver
failed (nothing written) or found no plan before its time limit (the report, saying so, is written),
2 bad input (one line on stderr).
"""
from __future__ import annotations

import argparse
import math
import sys

from ..solvers import SolverError
from . import CLIError, emit, number
from .core import (
    _default_solver,
    _load_problem,
    _problem_inputs,
    add_alternatives_option,
    add_solve_options,
)
from .guards import check_paths


def _cmd_report(args: argparse.Namespace) -> int:
    from ..reporting import render_html, report_content

    if args.solver is not None and not args.solver.strip():
        raise CLIError("--solver must name a backend (see 'subsel solvers'); got ''")
    if args.alternatives is not None and args.alternatives < 1:
        raise CLIError(f"--alternatives must be a positive integer; got {args.alternatives}")
    if not 0.0 < args.width <= 1.0:
        raise CLIError(f"--width must be in (0, 1]; got {args.width:g}")
    if args.distinct is not None and args.alternatives is None:
        raise CLIError("--distinct applies to --alternatives only")
    distinct = args.distinct or "units"
    check_paths(_problem_inputs(args), [("--output", args.output)])
    problem, _, label = _load_problem(args)
    solver = (args.solver if args.solver is not None
              else _default_solver(problem, args.alternatives is not None, distinct))
    if args.time_budget is not None and not (math.isfinite(args.time_budget) and args.time_budget > 0):
        raise CLIError(f"--time-budget must be a positive number of seconds; got {args.time_budget:g}")
    # Progress on stderr where a person watches it (a terminal), or when asked; never with --quiet.
    show = not args.quiet and (args.verbose or sys.stderr.isatty())
    try:
        content = report_content(problem, solver=solver, time_limit_s=args.time_limit, threads=args.threads,
                                 alternatives=args.alternatives, payments=args.payments, width=args.width,
                                 title=args.title, source=label, distinct=distinct, time_budget_s=args.time_budget,
                                 progress=_progress if show else None)
    except SolverError as exc:
        print(f"subsel: solver failed: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    emit(render_html(content), args.output)
    plan, infeasible = content["plan"], content["infeasible"]
    if plan is not None:
        what = f"plan {plan['status']}, utility {plan['objective']:.10g}"
    else:
        what = f"no plan: {infeasible['status']}"
    where = "stdout" if args.output == "-" else args.output
    cut = content["budget"]["cut"]
    if cut:
        what += f"; cut short by the time budget: {'; '.join(c['what'] for c in cut)}"
    if not args.quiet:
        print(f"wrote the report ({what}) to {where}", file=sys.stderr)
    # as `subsel solve`: exit 1 when no answer came back (a time limit before any plan), 0 when infeasible
    return 1 if plan is None and infeasible["status"] != "infeasible" else 0


def _progress(line: str) -> None:
    print(f"report: {line}", file=sys.stderr, flush=True)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``report`` to the ``subsel`` parser."""
    p = sub.add_parser("report", help="a planner's report: one self-contained HTML file",
                       description="Solve an agents CSV and write a planner's report as one HTML file that "
                                   "reads offline in any browser and prints on A4: the problem, the plan, what "
                                   "binds it, the price of quality (alpha +- 0.05), and optionally the next-best "
                                   "plans and truthful payments; for an infeasible problem, why and the nearest "
                                   "fix.")
    add_solve_options(p, knapsack=False)
    add_alternatives_option(p)
    p.add_argument("--payments", action="store_true",
                   help="add each agent's critical payment (Myerson 1981; Archer and Tardos 2001): reporting "
                        "the true cost is then a dominant strategy; no --budget, an exact solver")
    p.add_argument("--width", type=number, default=0.05, metavar="W",
                   help="show the price of quality for thresholds alpha - W to alpha + W (default 0.05)")
    p.add_argument("--title", help="the report's title (default 'Procurement plan')")
    p.add_argument("--time-budget", type=number, metavar="S",
                   help="seconds for everything after the plan (what binds, the price of quality, the next-best "
                        "plans, the payments), each solve cut to the time left; default 8 times the plan's solve "
                        "time, at least 5 s. What does not fit is left out, and the page says so")
    talk = p.add_mutually_exclusive_group()
    talk.add_argument("--quiet", action="store_true", help="print nothing but errors on stderr")
    talk.add_argument("--verbose", action="store_true",
                      help="print each part as it starts on stderr even when it is not a terminal (by default "
                           "only a terminal gets these lines)")
    p.add_argument("-o", "--output", required=True, help="the HTML file to write ('-' = stdout)")
    p.set_defaults(func=_cmd_report)
