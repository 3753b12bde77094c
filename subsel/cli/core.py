"""Core commands: ``solvers`` (the table of backends).  generate / solve / export come with the core issue."""
from __future__ import annotations

import argparse

from ..solvers import solver_info


def _cmd_solvers(args: argparse.Namespace) -> int:
    rows = solver_info()
    header = f"{'name':<14} {'exact':<6} {'complexity':<22} {'extensions':<40} available"
    print(header)
    for r in rows:
        ext = ",".join(sorted(r.supports)) or "-"
        avail = "yes" if r.available else f"no ({r.reason})"
        print(f"{r.name:<14} {'yes' if r.exact else 'no':<6} {r.complexity:<22} {ext:<40} {avail}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the core sub-commands to the ``subsel`` parser."""
    p = sub.add_parser("solvers", help="list the solver backends and whether they work here")
    p.set_defaults(func=_cmd_solvers)
