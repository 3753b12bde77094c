"""Core commands: ``generate``, ``solve``, ``export`` and ``solvers``.

File formats
------------
agents CSV
    Header ``name,quality,cost,capacity`` (``name`` and ``capacity`` optional), one agent per row.
    The threshold ``alpha`` and the revenue ``R`` are the planner's choice, not the agents'
    property, so they are not stored: ``solve`` and ``export`` take them as ``--alpha`` / ``--R``.
selection CSV (``solve -o``)
    Header ``name,units``, one row per agent (every agent, 0 units included), in input order.
knapsack files (``solve --knapsack``)
    Format (a) ``n W`` / ``p w`` lines or (b) Pisinger's generator output; see
    :mod:`subsel.models.knapsack`.

``-`` stands for stdin (input ``FILE``, an agents CSV or with ``--knapsack`` a knapsack file) or
stdout (``generate -o``, ``solve -o``, ``export -o`` with ``--format``).  Every file is written
atomically and only after the work succeeded, so no command leaves a partial file.
Exit codes: 0 success (an ``infeasible`` answer included: it is an answer), 1 the solver failed,
found no selection before its time limit, called ``optimal`` an objective that differs from the
known optimum, or found a selection above it (whatever its status: the known optimum is then wrong);
2 bad input (one line on stderr naming the file, line and column).
"""
from __future__ import annotations

import argparse
import csv
import io
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._text import number_text, number_text_near
from ..models import (
    MAX_EXACT_INT,
    PLANNER_EXTENSIONS,
    InputError,
    SubsetSelectionProblem,
    problem_to_csv_text,
    read_group_limits,
    selection_csv_text,
)
from ..models._rules import exact_total
from ..solvers import DEFAULT_SOLVER_PREFERENCE, SolverError, Status, default_solver, get_solver, solver_info
from . import CLIError, counted, emit, integer, number, optimum_contradiction, pick_instance
from .constraints import add_constraint_args, build_constraints, columns_of, parse_expressions
from .guards import check_memory, check_paths

if TYPE_CHECKING:  # the knapsack files and the LP/MPS writers are loaded by the commands that use them
    from ..models import KnapsackInstance


def _default_solver(problem: SubsetSelectionProblem, alternatives: bool = False, distinct: str = "units") -> str:
    """The solver ``solve`` uses without ``--solver``: the registry's one rule
    (:func:`subsel.solvers.default_solver`) for the extensions ``problem`` uses; with
    ``--alternatives``, the one :func:`subsel.decisions.alternatives` uses by default."""
    try:
        if alternatives:
            from ..decisions import alternatives_solver

            return alternatives_solver(problem, distinct)
        return default_solver(problem.extensions)
    except LookupError as exc:
        raise CLIError(str(exc)) from None


# ---------------------------------------------------------------------------------- solvers
def _cmd_solvers(args: argparse.Namespace) -> int:
    table = [("name", "exact", "complexity", "extensions", "available")]
    for r in solver_info():
        table.append((r.name, "yes" if r.exact else "no", r.complexity,
                      ",".join(sorted(r.supports)) or "-",
                      "yes" if r.available else f"not available ({r.reason})"))
    print_table(table)
    notes = [(r.name, r.caveat) for r in solver_info() if r.caveat]
    if notes:
        print()
        for name, caveat in notes:
            print(f"{name}: {caveat}")
    return 0


def print_table(table: list[tuple[str, ...]], file=None) -> None:
    """Print rows of cells, every column but the last as wide as its longest cell (rows line up)."""
    widths = [max(len(row[j]) for row in table) for j in range(len(table[0]) - 1)]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1], file=file)


# ---------------------------------------------------------------------------------- generate
def _cmd_generate(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise CLIError(f"--n must be a positive integer; got {args.n}")
    if args.alpha is not None and not 0.0 <= args.alpha <= 1.0:
        raise CLIError(f"--alpha must be in [0, 1]; got {args.alpha}")
    if not 1 <= args.capacity_max <= MAX_EXACT_INT:
        # Checked here, in exact integers: numpy's draw would say "high is out of bounds for int64"
        # beyond 2^63, and the model would name capacity[0] for a draw above 2^53.
        raise CLIError(f"--capacity-max must be an integer in 1..2^53 = {MAX_EXACT_INT}; got {args.capacity_max}")
    if args.seed is not None and args.seed < 0:
        raise CLIError(f"--seed must be a non-negative integer; got {args.seed}")
    if args.planner:
        return _generate_planner(args)
    if args.group_limits_out is not None:
        raise CLIError("--group-limits-out needs --planner (the paper's agents have no groups)")
    check_paths([], [("-o", args.output)])
    # the problem's arrays (q, c, capacities, utilities, names) and the CSV text: ~200 bytes a row
    check_memory(200.0 * args.n, f"--n {args.n}")
    rng = np.random.default_rng(args.seed)
    try:
        # q, c ~ U[0, 1] (Deva et al., Section 6.1); alpha does not enter the draw.
        problem = SubsetSelectionProblem.random(
            args.n, alpha=0.5 if args.alpha is None else args.alpha, rng=rng)
        if args.capacity_max > 1:
            cap = rng.integers(1, args.capacity_max + 1, size=args.n)
            problem = problem.with_changes(capacity=cap)
        text = problem_to_csv_text(problem)
    except MemoryError:
        raise CLIError(f"--n {args.n}: not enough memory to generate that many agents") from None
    emit(text, args.output)
    if args.output != "-":
        hint = f" --alpha {args.alpha:g}" if args.alpha is not None else " --alpha A"
        print(f"wrote {counted(args.n, 'agent')} to {args.output}; solve with: subsel solve {args.output}{hint}",
              file=sys.stderr)
    return 0


def _generate_planner(args: argparse.Namespace) -> int:
    """``generate --planner``: a produce cooperative (:func:`subsel.models.planner_instance`), its
    agents to ``-o`` and its regions' limits to ``--group-limits-out``, with the demand and budget
    printed in the command that solves it."""
    from ..models import group_limits_csv_text, planner_instance

    if args.capacity_max != 1:
        raise CLIError("--capacity-max does not apply with --planner (capacities are drawn in whole lots)")
    if args.group_limits_out is None:
        raise CLIError("--planner needs --group-limits-out FILE (the regions' caps and pledge)")
    if args.group_limits_out == "-" and args.output == "-":
        raise CLIError("-o and --group-limits-out cannot both be stdout ('-')")
    check_paths([], [("-o", args.output), ("--group-limits-out", args.group_limits_out)])
    # the problem's arrays (nine per agent), its planner fields and the CSV text: ~400 bytes a row
    check_memory(400.0 * args.n, f"--n {args.n}")
    alpha = 0.8 if args.alpha is None else args.alpha
    try:
        problem = planner_instance(args.n, np.random.default_rng(args.seed), alpha=alpha)
        agents, limits = problem_to_csv_text(problem), group_limits_csv_text(problem.group_limits)
    except MemoryError:
        raise CLIError(f"--n {args.n}: not enough memory to generate that many agents") from None
    emit(limits, args.group_limits_out)  # both texts are built before either file is written
    emit(agents, args.output)
    where = "stdout" if args.output == "-" else args.output
    command = f"subsel solve {args.output} --alpha {alpha:g} --R {problem.R:g} --group-limits {args.group_limits_out}"
    if problem.demand is not None:
        command += f" --demand {problem.demand} --budget {problem.budget:.2f}"
    regions = counted(len(problem.group_limits), 'region')
    print(f"wrote {counted(args.n, 'agent')} to {where} and the limits of {regions} to "
          f"{'stdout' if args.group_limits_out == '-' else args.group_limits_out}", file=sys.stderr)
    if problem.demand is not None:
        print(f"demand {problem.demand} units ({problem.demand / float(problem.capacity.sum()):.0%} of the "
              f"capacity), budget {problem.budget:.2f}", file=sys.stderr)
    print(f"solve with: {command}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------------- problem input
def _names(values: list[str] | None, option: str) -> list[str] | None:
    """Agent names of a repeatable option whose values are CSV lists (``"Smith, Inc.",C``).

    Each value is one CSV record: names are separated by commas, a name holding a comma or a
    quote is written in double quotes (``""`` for a quote inside), spaces around names are dropped.
    An empty name is an error, not skipped.
    """
    if values is None:
        return None
    names: list[str] = []
    for value in values:
        try:
            records = list(csv.reader(io.StringIO(value, newline=""), strict=True,
                                      skipinitialspace=True))
        except csv.Error as exc:
            raise CLIError(f"{option} {value!r}: not a comma-separated list of names ({exc}); quote "
                           'a name holding a comma: \'"Smith, Inc.",C\'') from None
        if not records or not value.strip():
            raise CLIError(f"{option}: the name list is empty; give agent names separated by commas, "
                           "e.g. a1,a7")
        if len(records) != 1:
            raise CLIError(f"{option} {value!r}: a name list is one line; got {len(records)} lines")
        for pos, name in enumerate(records[0]):
            name = name.strip()
            if not name:
                raise CLIError(f"{option}: name {pos + 1} of {value!r} is empty; give agent names "
                               "separated by commas, e.g. a1,a7")
            names.append(name)
    return names


_MUST_OPTIONS = {"must_take": "--must-take", "must_not_take": "--must-not-take"}


def _with_options(exc: InputError) -> CLIError | InputError:
    """An error about a must list entry, told in terms of the option rather than the field."""
    option = _MUST_OPTIONS.get(exc.column or "")
    if option is None or exc.row is None or exc.in_table:
        return exc
    return CLIError(f"{option}: name {exc.row + 1} ({exc.value!r}) {exc.rule}")


def _problem_inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """The files a problem is read from: FILE and, with --knapsack, the --optimum file."""
    return [("FILE", args.file), ("--optimum", args.optimum),
            ("--group-limits", getattr(args, "group_limits", None))]


def _load_problem(args: argparse.Namespace) -> tuple[SubsetSelectionProblem, float | None, str]:
    """The problem described by FILE and the options; also the known optimum and a label."""
    try:
        return _read_problem(args)
    except InputError as exc:
        raise _with_options(exc) from None
    except ValueError as exc:  # a limit the file gives for a group the agents CSV does not know
        if getattr(args, "group_limits", None) is None or not str(exc).startswith("group_limits"):
            raise
        raise CLIError(f"--group-limits {args.group_limits}: {exc}") from None


class _IntegerKnapsack(Exception):
    """A knapsack too large for the subset-selection encoding: ``solve`` answers it in integers."""

    def __init__(self, inst: KnapsackInstance) -> None:
        super().__init__(inst.name)
        self.inst = inst


def _read_problem(args: argparse.Namespace) -> tuple[SubsetSelectionProblem, float | None, str]:
    ext = dict(budget=args.budget, demand=args.demand, must_take=_names(args.must_take, "--must-take"),
               must_not_take=_names(args.must_not_take, "--must-not-take"))
    ext = {k: v for k, v in ext.items() if v is not None}
    if getattr(args, "group_limits", None) is not None:
        if args.group_limits == "-" and args.file == "-":
            raise CLIError("FILE and --group-limits cannot both be '-' (stdin)")
        source = sys.stdin if args.group_limits == "-" else Path(args.group_limits)
        if isinstance(source, Path) and not source.is_file():
            raise CLIError(f"--group-limits {args.group_limits}: "
                           + ("is a folder, not a limits file" if source.is_dir() else "no such file"))
        ext["group_limits"] = read_group_limits(source)
    expressions = parse_expressions(args)
    confidence = getattr(args, "confidence", None)
    if args.knapsack and (expressions or confidence is not None):
        raise CLIError(f"{expressions[0].option if expressions else '--confidence'} needs an agents CSV; it does not "
                       "apply with --knapsack")
    if expressions or confidence is not None:
        ext.update(columns=columns_of(expressions), confidence=confidence,
                   constraints_from=lambda table: build_constraints(expressions, table))
    both = set(ext.get("must_take", ())) & set(ext.get("must_not_take", ()))
    if both:
        raise CLIError(f"agent {sorted(both)[0]!r} is in both --must-take and --must-not-take")
    if args.knapsack:
        if args.alpha is not None:
            raise CLIError("--alpha does not apply with --knapsack: the conversion sets alpha")
        from ..models import read_knapsack

        instances = read_knapsack(sys.stdin if args.file == "-" else args.file, args.optimum)
        inst = pick_instance(instances, args.instance, args.file)
        if inst.m == 0:
            raise CLIError(f"{args.file} ({inst.name}): an instance with no items has no encoding as subset "
                           f"selection (it needs an item); 'subsel knapsack {args.file}' solves it")
        problem = inst.to_problem()
        if problem.knapsack is not None and not problem.knapsack.exact_in_float64:
            # export has no --solver: its LP/MPS model would hold the rounded floats.
            what = ("takes no --budget, --demand or must lists" if ext else "takes no --alternatives"
                    if getattr(args, "alternatives", None) is not None else "has no exact LP/MPS model (its "
                    "coefficients would be rounded)" if not hasattr(args, "solver") else None)
            if what is not None:
                raise CLIError(f"{args.file} ({inst.name}): a knapsack beyond exact float64 arithmetic "
                               f"(capacity + 3 max(weights) > 2^29 or a sum above 2^53) {what}; "
                               f"'subsel knapsack {args.file}' solves it in exact integers")
            if args.solver in (None, "exact"):
                raise _IntegerKnapsack(inst)  # reported in exact integers
        if ext:
            problem = problem.with_changes(**ext)
        return problem, inst.optimum, f"{args.file} ({inst.name}, {inst.m} items)"
    if args.optimum is not None or args.instance is not None:
        raise CLIError("--optimum and --instance need --knapsack")
    if args.alpha is None:
        raise CLIError("--alpha is required for an agents CSV (it is not stored in the file)")
    if args.file == "-":
        return SubsetSelectionProblem.from_csv(sys.stdin, alpha=args.alpha, R=args.R, **ext), None, "<stdin>"
    path = Path(args.file)
    if not path.exists():
        raise CLIError(f"{path}: no such file")
    if path.is_dir():
        raise CLIError(f"{path}: is a directory, expected an agents CSV file")
    return SubsetSelectionProblem.from_csv(path, alpha=args.alpha, R=args.R, **ext), None, str(path)




def _add_problem_args(p: argparse.ArgumentParser, knapsack: bool = True, alpha: bool = True,
                      budget: bool = True) -> None:
    """FILE and the model options; ``knapsack=False`` for agents CSV only, ``alpha=False`` when the
    command sets the threshold itself (``frontier``), ``budget=False`` when it takes no budget
    (``payments``: the option is not offered at all)."""
    p.add_argument("file", metavar="FILE", help="agents CSV (name,quality,cost,capacity) or '-' for stdin"
                   + ("; a knapsack file with --knapsack" if knapsack else ""))
    if alpha:
        p.add_argument("--alpha", type=number, help="quality threshold in [0, 1] (required for agents CSV)")
    p.add_argument("--R", type=number, default=1.0, help="revenue per good unit (default 1)")
    if budget:
        p.add_argument("--budget", type=number, help="extension: total cost sum c x <= B")
    else:
        p.set_defaults(budget=None)
    p.add_argument("--demand", type=integer, help="extension: at least D units")
    p.add_argument("--must-take", metavar="NAMES", action="append",
                   help="extension: agents with x >= 1, as comma-separated names; quote a name "
                        "holding a comma as in CSV ('\"Smith, Inc.\",C'); the option may be repeated")
    p.add_argument("--must-not-take", metavar="NAMES", action="append",
                   help="extension: agents with x = 0, as comma-separated names (CSV quoting, "
                        "repeatable, as --must-take)")
    p.add_argument("--confidence", type=number,
                   help="with the columns good,inspected in place of quality (inspection counts): the probability "
                        "that the plan's true average quality is at least alpha (default 0.95)")
    add_constraint_args(p)
    p.add_argument("--group-limits", metavar="FILE",
                   help="planner: a CSV group,min_units,max_units,min_agents,max_agents of limits per "
                        "group of agents (the agents CSV's 'group' column); an empty cell is no limit")
    if not knapsack:
        p.set_defaults(knapsack=False, optimum=None, instance=None)
        return
    p.add_argument("--knapsack", action="store_true",
                   help="FILE is a 0-1 knapsack file (format 'n W' or Pisinger's); alpha comes from "
                        "the conversion")
    p.add_argument("--optimum", metavar="FILE", help="with --knapsack: a file holding the known optimum")
    p.add_argument("--instance", metavar="NAME|INDEX",
                   help="with --knapsack: which instance of a multi-instance file, by name or by "
                        "0-based index (0 = the first, the default)")


# ---------------------------------------------------------------------------------- solve
_fmt_near = number_text_near
_fmt = number_text


#: How many selected agents ``solve`` names on the console (the selection CSV has them all).
SHOW_AGENTS = 20


#: Longest agent name shown in full on the console (the selection CSV has every name in full).
SHOW_NAME_CHARS = 60


def _short_name(name: str) -> str:
    """``name``, or its first characters and how many more (a 100,000-character name is not printed)."""
    if len(name) <= SHOW_NAME_CHARS:
        return name
    return f"{name[:SHOW_NAME_CHARS]}... ({len(name) - SHOW_NAME_CHARS} more characters)"


def _selected_agents(names, x) -> str:
    """``"a, b (2 units), c"``: the selected agents by name, the first :data:`SHOW_AGENTS` of them."""
    chosen = [(_short_name(n), int(u)) for n, u in zip(names, x) if u > 0]
    shown = ", ".join(n if u == 1 else f"{n} ({u} units)" for n, u in chosen[:SHOW_AGENTS])
    more = len(chosen) - SHOW_AGENTS
    return shown + (f", and {more} more (write them all with -o)" if more > 0 else "")


def _cmd_solve(args: argparse.Namespace) -> int:
    if args.json and args.output == "-":
        raise CLIError("--json and -o - would both write to stdout; give -o a file name")
    if args.solver is not None and not args.solver.strip():
        raise CLIError("--solver must name a backend (see 'subsel solvers'); got ''")
    check_paths(_problem_inputs(args), [("--output", args.output)])
    started = time.perf_counter()  # --time-limit bounds the whole command: the answer and its why
    try:
        problem, optimum, label = _load_problem(args)
    except _IntegerKnapsack as big:
        from .knapsack import solve_instance  # (the knapsack command imports this module)

        return solve_instance(args, big.inst, agents=True)
    if args.distinct is not None and args.alternatives is None:
        raise CLIError("--distinct applies to --alternatives only")
    distinct = args.distinct or "units"
    name = args.solver if args.solver is not None else _default_solver(problem, args.alternatives is not None,
                                                                       distinct)
    options = {}
    if args.time_limit is not None:
        used = time.perf_counter() - started  # reading the files counts (a bad limit: the solver's error)
        options["time_limit_s"] = args.time_limit if args.time_limit <= 0 else max(args.time_limit - used, 1e-3)
    if args.threads is not None:
        options["threads"] = args.threads
    solver = get_solver(name, **options)
    if args.alternatives is not None:
        from .decisions import solve_alternatives

        return solve_alternatives(args, problem, solver, label)
    try:
        sol = solver.solve(problem)
    except SolverError as exc:
        print(f"subsel: solver failed: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    explain_s = None
    if sol.status is Status.INFEASIBLE and not args.no_explain:
        t0 = time.perf_counter()
        left = None if args.time_limit is None else max(args.time_limit - (t0 - started), 0.0)
        sol.explain(time_limit_s=left)  # within what the time limit leaves
        explain_s = time.perf_counter() - t0
    elif sol.status is Status.INFEASIBLE:  # asked not to explain
        sol.__dict__["_explanation"] = None
    # Exit 1 when no answer came back (a time limit before any selection), or when an answer
    # called optimal contradicts the known optimum (the solver or the optimum file is wrong).
    no_answer = not sol.is_feasible and sol.status is not Status.INFEASIBLE
    matches = None
    if optimum is not None:
        matches = bool(sol.is_feasible
                       and abs(sol.objective - optimum) <= 1e-6 * max(1.0, abs(optimum)))
    # A feasible selection above the known optimum, whatever its status, proves the optimum wrong.
    above = bool(matches is False and sol.is_feasible and optimum is not None and sol.objective > optimum)
    code = 1 if no_answer or (matches is False and (sol.status is Status.OPTIMAL or above)) else 0
    why = ("; no plan was found within the time limit: give more time (--time-limit) or try another --solver"
           if sol.status in (Status.NO_SOLUTION_FOUND, Status.TIME_LIMIT) else "")
    if args.output is not None:
        if sol.is_feasible:
            emit(selection_csv_text(problem.names, sol.x), args.output)
        else:
            print(f"subsel: no selection written: status {sol.status.value}{why}", file=sys.stderr)
    elif no_answer:
        print(f"subsel: no selection found: status {sol.status.value}{why}", file=sys.stderr)
    if code and matches is False and optimum is not None:
        source = args.optimum if args.optimum is not None else f"stated in {args.file}"
        print(optimum_contradiction(_fmt(sol.objective), _fmt(optimum), above, source), file=sys.stderr)
    if args.json:
        import json

        d = sol.to_dict()
        out = {k: d[k] for k in ("solver", "status", "objective", "avg_quality", "x", "wall_time_s",
                                  "backend_time_s", "overhead_time_s")}
        if explain_s is not None:  # the solve's times above, the explanation's and the command's here
            out["explain_time_s"] = explain_s
            out["command_time_s"] = time.perf_counter() - started
        if not sol.is_feasible:
            out["x"] = None  # no selection: not an all-zero one
        if sol.explanation is not None:  # an infeasible answer says why
            out["explanation"] = d["explanation"]
            out["conflict"] = d["conflict"]
        if optimum is not None:
            out["known_optimum"] = optimum if math.isfinite(optimum) else None
            out["known_optimum_matches"] = matches
        # Strict JSON (RFC 8259): to_dict maps NaN and infinities to null; allow_nan=False proves it.
        print(json.dumps(out, allow_nan=False))
        return code
    units = exact_total(sol.x) if sol.is_feasible else 0
    lines = [
        f"problem      {label}: {counted(problem.n, 'agent')}, alpha {problem.alpha:g}, R {problem.R:g}"
        + (f", extensions {','.join(sorted(problem.extensions))}" if problem.extensions else ""),
        f"solver       {sol.solver}",
        f"status       {sol.status.value}",
        f"objective    {_fmt(sol.objective)}",
        f"avg_quality  {_fmt_near(sol.avg_quality, problem.alpha)}",
        f"selected     {counted(units, 'unit')} from {counted(int(np.count_nonzero(sol.x)), 'agent')}",
        f"wall_time_s  {sol.wall_time_s:.4f} (backend {sol.backend_time_s:.4f}, "
        f"subsel overhead {sol.overhead_time_s:.4f})",
    ]
    if explain_s is not None:  # the solve's time above; the explanation's and the command's here
        lines.append(f"explain_s    {explain_s:.4f} (the why; the command took {time.perf_counter() - started:.4f})")
    if sol.bound is not None and sol.status is not Status.OPTIMAL:
        lines.insert(4, f"bound        {_fmt(sol.bound)}")
    if sol.explanation is not None:
        lines.insert(3, f"why          {sol.explanation}")
    if optimum is not None:
        lines.append(f"known_optimum {_fmt(optimum)} ({'matches' if matches else 'DIFFERS'})")
    if sol.is_feasible and units:
        lines.append("agents       " + _selected_agents(problem.names, sol.x))
    if args.output is not None and args.output != "-" and sol.is_feasible:
        lines.append(f"wrote        {args.output} (name,units for all {counted(problem.n, 'agent')})")
    # With the selection on stdout, the summary goes to stderr so stdout stays a clean CSV.
    print("\n".join(lines), file=sys.stderr if args.output == "-" else sys.stdout)
    return code


# ---------------------------------------------------------------------------------- export
def _cmd_export(args: argparse.Namespace) -> int:
    check_paths(_problem_inputs(args), [("--output", args.output)])
    if args.output == "-":
        if args.format is None:
            raise CLIError("-o - (stdout) needs --format lp or --format mps")
        suffix = "." + args.format
    else:
        suffix = Path(args.output).suffix.lower()
        if suffix not in (".lp", ".mps"):
            raise CLIError(f"{args.output}: the output must end in .lp or .mps (the format comes from "
                           f"the extension); got {suffix or 'no extension'!r}")
        if args.format is not None and suffix != "." + args.format:
            raise CLIError(f"--format {args.format} contradicts the extension of {args.output}")
    from ..models import linear_form, lp_text, mps_text, write_lp, write_mps

    problem, _, label = _load_problem(args)
    if args.output == "-":  # the text the writers render, straight to stdout
        sys.stdout.write(lp_text(problem) if suffix == ".lp" else mps_text(problem))
        sys.stdout.flush()
    else:
        (write_lp if suffix == ".lp" else write_mps)(problem, args.output)
    # The planner's fields add lot-count and used columns to the agents' units.
    columns = problem.n if not problem.extensions & set(PLANNER_EXTENSIONS) and not problem.added_constraints \
        else linear_form(problem).n
    print(f"wrote the {suffix[1:].upper()} model of {label} ({counted(columns, 'variable')}) to "
          f"{'stdout' if args.output == '-' else args.output}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------------- registration
def add_solve_options(p: argparse.ArgumentParser, knapsack: bool = True) -> None:
    """The options of ``solve`` that say what to solve and how: FILE, the model's options and the
    solver's (``--solver``, ``--time-limit``, ``--threads``); ``report`` takes the same.
    ``knapsack=False`` for agents CSV only."""
    _add_problem_args(p, knapsack=knapsack)
    p.add_argument("--solver", help="backend name (see 'subsel solvers'); default: the first available "
                   f"of {', '.join(DEFAULT_SOLVER_PREFERENCE)} that supports the problem's constraints")
    p.add_argument("--time-limit", type=number, metavar="S",
                   help="time limit in seconds (gss, a one-pass heuristic, ignores it)")
    p.add_argument("--threads", type=integer,
                   help="threads for backends that use several, 1..64 (single-threaded ones ignore it)")


def add_alternatives_option(p: argparse.ArgumentParser) -> None:
    """``--alternatives K`` and ``--distinct`` of ``solve`` and ``report``."""
    p.add_argument("--alternatives", type=integer, metavar="K",
                   help="list the K best distinct selections, best first, each proven best among those "
                        "not listed before it (ties: more units of earlier agents first)")
    p.add_argument("--distinct", choices=("units", "agents"),
                   help="with --alternatives: selections that differ in some agent's units (units, the "
                        "default) or in which agents they use (agents: each the best plan of its set of "
                        "suppliers; a MILP backend)")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the core sub-commands to the ``subsel`` parser."""
    p = sub.add_parser("generate", help="write a random agents CSV (q, c ~ U[0, 1], the paper's instances)",
                       description="Write a random agents CSV: q, c ~ U[0, 1] (Deva et al., Section "
                                   "6.1). alpha is not stored in the CSV; --alpha is only checked "
                                   "and echoed in the hint of the next command.")
    p.add_argument("--n", type=integer, required=True, help="number of agents")
    p.add_argument("--alpha", type=number, help="optional: the threshold you plan to solve with")
    p.add_argument("--seed", type=integer, default=None, help="random seed (default: fresh entropy)")
    p.add_argument("--capacity-max", type=integer, default=1,
                   help="capacities drawn uniformly from 1..K (default 1)")
    p.add_argument("-o", "--output", default="-", help="agents CSV to write ('-' = stdout, default)")
    p.add_argument("--planner", action="store_true",
                   help="a produce cooperative instead: 10 regions, Beta qualities, costs rising with "
                        "quality, lot sizes 1/6/12/24, minimum orders of 1-10 lots, fixed order costs, "
                        "regional caps and a minimum-agents pledge; prints a demand (22%% of the "
                        "capacity) and a budget that binds (--alpha default 0.8, R 14)")
    p.add_argument("--group-limits-out", metavar="FILE",
                   help="with --planner: the group-limits CSV to write (the regions' caps and pledge)")
    p.set_defaults(func=_cmd_generate)

    p = sub.add_parser("solve", help="solve a subset-selection (or knapsack) instance",
                       description="Solve an agents CSV or a knapsack file with one backend.")
    add_solve_options(p)
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: solver, status, objective, avg_quality, x, wall_time_s, "
                        "backend_time_s, overhead_time_s "
                        "(+ known_optimum, known_optimum_matches; + explanation, conflict when infeasible)")
    p.add_argument("-o", "--output", help="write the selection as CSV name,units ('-' = stdout); with "
                   "--alternatives the CSV rank,name,units of every selection listed")
    p.add_argument("--no-explain", action="store_true",
                   help="answer 'infeasible' without the why (the conflict and the nearest change)")
    add_alternatives_option(p)
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("export", help="write the integer program as an LP or MPS file",
                       description="Write the integer program (Deva et al., AAMAS 2021, Section 3, with "
                                   "extensions) for external solvers; the format comes from the "
                                   "extension of -o.")
    _add_problem_args(p)
    p.add_argument("-o", "--output", required=True,
                   help="model.lp or model.mps, or '-' for stdout (then --format is needed)")
    p.add_argument("--format", choices=("lp", "mps"),
                   help="model format; default from the extension of -o (needed with -o -)")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("solvers", help="list the solver backends and whether they work here")
    p.set_defaults(func=_cmd_solvers)
