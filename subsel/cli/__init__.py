"""The ``subsel`` command line (argparse).

Each command group lives in its own module with a ``register(subparsers)`` function; this module only
assembles them and turns expected errors into one line on stderr with exit code 2 (no traceback).
Nothing in the library imports this package.
"""
from __future__ import annotations

import argparse
import importlib
import sys

#: Modules that add sub-commands, in the order of ``subsel --help``.
COMMAND_MODULES = [
    "subsel.cli.core",
    "subsel.cli.experiments",
    "subsel.cli.bandit",
    "subsel.cli.emsco",
]


class CLIError(Exception):
    """An error the user can fix (bad input, missing file); printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered sub-command."""
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="subsel",
        description="Subset selection under constraints: solve, compare, learn and design.")
    parser.add_argument("--version", action="version", version=f"subsel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``subsel`` console script.

    Returns
    -------
    int
        0 on success, 2 on bad input (one line on stderr), 130 when interrupted.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except (CLIError, ValueError, TypeError, FileNotFoundError, IsADirectoryError,
            PermissionError, NotADirectoryError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"subsel: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("subsel: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
