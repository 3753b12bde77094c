"""The ``knapsack`` command: solve an integer 0-1 knapsack file exactly.

``subsel knapsack FILE`` reads the formats of :func:`subsel.models.read_knapsack` (``n W`` lines or
Pisinger's generator output; ``-`` for stdin) and solves one instance with
:func:`subsel.solvers.solve_knapsack` in exact integer arithmetic, without the limits of the
subset-selection encoding (the file reader takes integers and their sums up to 2^62, exactly),
printing value, weight, status and time.

selection CSV (``-o``)
    Header ``name,units``, one row per item (``item_0``, ``item_1``, ... as in
    :meth:`SubsetSelectionProblem.from_knapsack`), 0 or 1 units, in input order; ``-o -`` writes it
    to stdout (the summary then goes to stderr).

Exit codes: 0 success (a time-limited answer included: it carries a selection and a bound), 1 an
answer called optimal that differs from the known optimum (``--optimum`` or the file's ``z``), or
any answer above it; 2 bad input (one line on stderr).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from .._files import InputError
from ..knapsack import DEFAULT_MEMORY_LIMIT_MB, solve_knapsack
from ..models import KnapsackInstance, read_knapsack
from . import CLIError, counted, emit, number, optimum_contradiction, pick_instance
from .guards import check_paths


def _cmd_knapsack(args: argparse.Namespace) -> int:
    if args.json and args.output == "-":
        raise CLIError("--json and -o - would both write to stdout; give -o a file name")
    check_paths([("FILE", args.file), ("--optimum", args.optimum)], [("--output", args.output)])
    solve_knapsack([], [], 0, time_limit_s=args.time_limit,  # the options' check, before any reading
                   memory_limit_mb=args.memory_limit)
    instances = read_knapsack(sys.stdin if args.file == "-" else args.file, args.optimum)
    return solve_instance(args, pick_instance(instances, args.instance, args.file))


def _stopped_by(args: argparse.Namespace, sol) -> tuple[str, str]:
    """Which limit ended a search short of the proof (the solution's ``stopped_by``), as the JSON's
    key and the summary's words."""
    if sol.stopped_by == "time_limit" and args.time_limit is not None:
        return "time_limit", f"time limit ({args.time_limit:g} s; raise it with --time-limit)"
    return "memory_limit", f"memory limit ({_memory_limit(args):g} MiB of state lists; raise it with --memory-limit)"


def _memory_limit(args: argparse.Namespace) -> float:
    """``--memory-limit`` (``subsel solve --knapsack``, which hands its large instances here, has the default)."""
    return getattr(args, "memory_limit", DEFAULT_MEMORY_LIMIT_MB)


def solve_instance(args: argparse.Namespace, inst: KnapsackInstance, *, agents: bool = False) -> int:
    """Solve one knapsack instance read from ``args.file`` and report it as ``subsel knapsack`` does.

    ``agents``: the selection CSV also has the row ``anchor,1`` first, as the agents of
    :meth:`SubsetSelectionProblem.from_knapsack` (``subsel solve --knapsack`` answering a knapsack too
    large for that encoding in exact integers).
    """
    try:
        sol = solve_knapsack(inst.values, inst.weights, inst.capacity, time_limit_s=args.time_limit,
                             memory_limit_mb=_memory_limit(args))
    except ValueError as exc:
        hint = (" (for real-valued data use 'subsel solve --knapsack')" if "must be an integer" in str(exc)
                else "")
        raise CLIError(f"{_locate(exc, inst, args.file)}{hint}") from None
    optimum = None if inst.optimum is None else int(inst.optimum) if float(inst.optimum).is_integer() \
        else inst.optimum
    matches = None if optimum is None else sol.value == optimum
    above = optimum is not None and sol.value > optimum   # a feasible selection beats it: it is wrong
    code = 1 if matches is False and (sol.optimal or above) else 0
    if args.output is not None:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["name", "units"])
        if agents:
            writer.writerow(["anchor", 1])
        writer.writerows((f"item_{j}", int(u)) for j, u in enumerate(sol.x))
        emit(buf.getvalue(), args.output)
    if code:
        source = (args.optimum if args.optimum is not None
                  else "the value of the file's 0/1 vector" if inst.solution is not None else f"stated in {args.file}")
        print(optimum_contradiction(str(sol.value), str(optimum), above, source), file=sys.stderr)
    if args.json:
        out = {"instance": inst.name, "items": inst.m, "capacity": int(inst.capacity),
               "status": sol.status.value, "value": sol.value, "weight": sol.weight, "bound": sol.bound,
               "x": sol.x.tolist(), "wall_time_s": sol.wall_time_s,
               "stopped_by": None if sol.optimal else _stopped_by(args, sol)[0]}
        if optimum is not None:
            out["known_optimum"] = optimum
            out["known_optimum_matches"] = matches
        print(json.dumps(out, allow_nan=False))
        return code
    lines = [
        f"knapsack     {args.file} ({inst.name}, {counted(inst.m, 'item')}, capacity {int(inst.capacity)})",
        f"status       {sol.status.value}",
        f"value        {sol.value}",
        f"weight       {sol.weight}",
        f"items        {int(sol.x.sum())} taken",
        f"wall_time_s  {sol.wall_time_s:.4f}",
    ]
    if agents:
        lines.insert(1, "solver       exact integer knapsack (capacity + 3 max(weights) > 2^29 or a sum "
                        "above 2^53: beyond exact float64)")
    if not sol.optimal:
        lines.insert(2, f"bound        {sol.bound}")
        lines.insert(2, f"stopped      {_stopped_by(args, sol)[1]}")
    if optimum is not None:
        lines.append(f"known_optimum {optimum} ({'matches' if matches else 'DIFFERS'})")
    if args.output is not None and args.output != "-":
        lines.append(f"wrote        {args.output} (name,units for all {counted(inst.m, 'item')})")
    print("\n".join(lines), file=sys.stderr if args.output == "-" else sys.stdout)
    return code


def _locate(exc: ValueError, inst: KnapsackInstance, file: str) -> str:
    """A refusal of :func:`subsel.solvers.solve_knapsack` placed in the file: an item's profit or
    weight by its line and column, the capacity by its line (the reader knows both)."""
    p, w, c = inst.columns
    if isinstance(exc, InputError) and exc.row is not None and exc.column in ("values", "weights"):
        return str(exc.located(file=inst.file or file, lines=inst.lines,
                               columns={"values": p, "weights": w}))
    if isinstance(inst.capacity, float) and not inst.capacity.is_integer() and inst.capacity_line is not None:
        return str(InputError("must be an integer (a float is accepted only when integral)",
                              file=inst.file or file, line=inst.capacity_line, column=c, value=inst.capacity))
    return f"{file} ({inst.name}): {exc}"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``knapsack`` sub-command to the ``subsel`` parser."""
    p = sub.add_parser("knapsack", help="solve an integer 0-1 knapsack file exactly",
                       description="Solve one instance of a 0-1 knapsack file (format 'n W' or Pisinger's "
                                   "generator output) in exact integer arithmetic.")
    p.add_argument("file", metavar="FILE", help="knapsack file, or '-' for stdin")
    p.add_argument("--optimum", metavar="FILE", help="a file holding the known optimum (checked against)")
    p.add_argument("--instance", metavar="NAME|INDEX",
                   help="which instance of a multi-instance file, by name or by 0-based index (0 = the "
                        "first, the default)")
    p.add_argument("--time-limit", type=number, metavar="S",
                   help="stop after S seconds with the best selection found (status time_limit)")
    p.add_argument("--memory-limit", type=number, metavar="MIB", default=DEFAULT_MEMORY_LIMIT_MB,
                   help=f"MiB the search's state lists may take (default {DEFAULT_MEMORY_LIMIT_MB:g}); past it, "
                        "the best selection found and a bound")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: instance, items, capacity, status, value, weight, bound, "
                        "x, wall_time_s, stopped_by (time_limit, memory_limit or null) (+ known_optimum, "
                        "known_optimum_matches)")
    p.add_argument("-o", "--output", help="write the selection as CSV name,units ('-' = stdout)")
    p.set_defaults(func=_cmd_knapsack)
