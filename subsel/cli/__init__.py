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


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are ONE line on stderr and exit code 2.

    Plain argparse prints the whole usage block before the message; the house rule for every
    command is a single line ``subsel: error: <message> (see 'subsel <cmd> --help')``.  Every
    sub-parser is of this class too (``parser_class`` of ``add_subparsers``).
    """

    def error(self, message: str) -> None:  # type: ignore[override]
        """Print ``message`` as one line naming the command's ``--help`` and exit with code 2."""
        message = " ".join(str(message).split())
        self.exit(2, f"subsel: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered sub-command."""
    from .. import __version__

    parser = ArgumentParser(
        prog="subsel",
        description="Subset selection under constraints: solve, compare, learn and design.")
    parser.add_argument("--version", action="version", version=f"subsel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                parser_class=ArgumentParser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``subsel`` console script.

    Returns
    -------
    int
        0 on success, 1 when the work ran but failed (see each command), 2 on bad input (one
        line on stderr), 130 when interrupted (Ctrl-C), 143 when terminated (SIGTERM); in both
        last cases the files and folders the run had started are removed.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) and usage errors (2, one line already printed)
        return exc.code if isinstance(exc.code, int) else 2
    from .guards import Terminated, shutdown_worker_pools, terminate_as_interrupt

    try:
        with terminate_as_interrupt():  # SIGTERM stops as cleanly as Ctrl-C
            try:
                code = args.func(args)
            finally:
                shutdown_worker_pools()  # no idle worker processes left behind
    except BrokenPipeError:
        return 0
    except (CLIError, ValueError, TypeError, OSError, MemoryError) as exc:
        print(f"subsel: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except Terminated:
        print("subsel: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("subsel: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


def _one_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message; ``path: reason`` for system errors naming a file."""
    if isinstance(exc, MemoryError):
        text = str(exc).strip()
        return f"not enough memory{': ' + text.splitlines()[0] if text else ''}"
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}".splitlines()[0]
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
