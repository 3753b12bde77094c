"""The ``subsel`` command line (argparse).

Each command group lives in its own module with a ``register(subparsers)`` function; this module only
assembles them and turns expected errors into one line on stderr with exit code 2 (no traceback).
Nothing in the library imports this package.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from typing import Any

from .._extras import MODULE_EXTRA, MissingExtraError, install_hint
from .._text import counted  # noqa: F401  (the commands' modules import it from here)

#: Modules that add sub-commands, in the order of ``subsel --help``, with the commands each adds.
#: A command line naming one of these commands imports only that command's module, so ``subsel
#: solve`` never loads the bandit, EMSCO or experiment code; ``subsel --help`` loads them all.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "subsel.cli.core": ("generate", "solve", "export", "solvers"),
    "subsel.cli.decisions": ("frontier", "payments"),
    "subsel.cli.report": ("report",),
    "subsel.cli.knapsack": ("knapsack",),
    "subsel.cli.experiments": ("reproduce", "compare"),
    "subsel.cli.bandit": ("bandit",),
    "subsel.cli.emsco": ("emsco",),
}


def integer(text: str) -> int:
    """argparse ``type`` of every integer option: an exact decimal integer (``3``, ``3.0``, ``1e3``).

    Read as a data file's integers are (the exact decimal parser of the file layer): a fractional
    part, however small (``2.0000000000000001``), and Python's underscores (``1_0``) are refused;
    argparse then reports ``invalid int value``.
    """
    from .._files import parse_integer

    return parse_integer(text)


integer.__name__ = "int"  # argparse names the type in its message: "invalid int value: '1.5'"


def number(text: str) -> float:
    """argparse ``type`` of every real-valued option: a decimal number as a data file writes it.

    Python's ``float()`` also reads ``1_0`` (as 10) and ``0_9``; an option is not Python source, so
    those are refused (argparse then reports ``invalid float value``).
    """
    from .._files import parse_float

    return parse_float(text)


number.__name__ = "float"


class CLIError(Exception):
    """An error the user can fix (bad input, missing file); printed as one line, exit code 2."""


def optimum_contradiction(found: str, optimum: str, above: bool, source: str) -> str:
    """The stderr line of an answer called optimal that differs from the known optimum (exit code
    1), saying which side is wrong where that is certain: a value ``above`` the known optimum comes
    from a selection whose feasibility was checked, so the known optimum (``source``: where it was
    stated) is wrong; below it, the solver or the known optimum is."""
    if above:
        return (f"subsel: the known optimum {optimum} ({source}) is below the value {found} of a feasible "
                "selection (checked): the known optimum is wrong")
    return f"subsel: value {found} called optimal differs from the known optimum {optimum} ({source})"


def emit(text: str, output: str) -> None:
    """Write a command's output ``text`` to ``output``: ``-`` is stdout, anything else a file written
    atomically (a temporary file renamed into place: never half-written)."""
    if output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        from .._files import atomic_write_text

        atomic_write_text(output, text)


def pick_instance(instances: Any, key: str | None, file: str) -> Any:
    """The instance of a multi-instance file named ``key`` (its name, or its 0-based position as
    digits); the first when ``key`` is None.

    Raises
    ------
    CLIError
        No instance of ``file`` has that name or position.
    """
    if key is None:
        return instances[0]
    for inst in instances:
        if inst.name == key:
            return inst
    if key.isdigit() and int(key) < len(instances):  # 0-based: 0 is the first instance
        return instances[int(key)]
    raise CLIError(f"{file}: no instance {key!r}; it holds {len(instances)}: "
                   + ", ".join(i.name for i in instances[:5]) + (" ..." if len(instances) > 5 else ""))


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are ONE line on stderr and exit code 2.

    Plain argparse prints the whole usage block before the message; the house rule for every
    command is a single line ``subsel: error: <message> (see 'subsel <cmd> --help')``.  Every
    sub-parser is of this class too (``parser_class`` of ``add_subparsers``).
    """

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        # No abbreviations: "--dataset pima" must not be read silently as "--datasets pima".
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        """Print ``message`` as one line naming the command's ``--help`` and exit with code 2."""
        message = " ".join(str(message).split())
        self.exit(2, f"subsel: error: {message} (see '{self.prog} --help')\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every sub-command, or only the module of ``command`` when it is known
    (none for ``--version``, which is answered before a command is read)."""
    from .. import __version__

    parser = ArgumentParser(
        prog="subsel",
        description="Subset selection under constraints: solve, compare, learn and design.")
    parser.add_argument("--version", action="version", version=f"subsel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                parser_class=ArgumentParser)
    if command == "--version":  # answered before any command is parsed: load none of them
        modules: list[str] = []
    else:
        modules = [m for m, commands in COMMAND_MODULES.items() if command in commands] or list(COMMAND_MODULES)
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    """Print a warning raised while a command runs as one line, ``subsel: warning: ...`` (not Python's
    two lines with the source file and the line of code)."""
    text = " ".join(str(message).split())
    print(f"subsel: warning: {text}", file=sys.stderr if file is None else file)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``subsel`` console script.

    Returns
    -------
    int
        0 on success, 1 when the work ran but failed (see each command), 2 on bad input, a
        missing optional library (one line on stderr naming the ``pip install "subsel[...]"`` to
        run) or a compiled part of subsel not built (sources that were not installed), 130 when
        interrupted (Ctrl-C), 143 when terminated (SIGTERM); in both last cases the
        files and folders the run had started are removed.
    """
    try:
        return _main(argv)
    except KeyboardInterrupt:   # (also while the parser and the commands' modules are loading)
        print("subsel: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:     # the compiled kernel not built (any other: a bug, raised)
        if exc.name != "subsel.knapsack._knapsack_core":
            raise
        print(f"subsel: error: {exc}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None) -> int:
    """:func:`main` but for a Ctrl-C before the command runs (it handles that one)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:  # named by the command's own parser, which points to its own --help
            commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            commands.choices[args.command].error(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exc:  # --help, --version (0) and usage errors (2, one line already printed)
        return exc.code if isinstance(exc.code, int) else 2
    from .guards import Terminated, named_standard_output, shutdown_worker_pools, terminate_as_interrupt

    try:
        # SIGTERM stops as cleanly as Ctrl-C; a failed write to stdout is named and is the command's error.
        with terminate_as_interrupt(), named_standard_output(), warnings.catch_warnings():
            warnings.showwarning = _show_warning
            try:
                code = args.func(args)
            finally:
                shutdown_worker_pools()  # no idle worker processes left behind
    except BrokenPipeError:
        return 0
    except (CLIError, ValueError, TypeError, OSError, MemoryError, MissingExtraError) as exc:
        message = _one_line(exc)
        if isinstance(exc, (ValueError, TypeError)):
            message = _name_option(message, args)
        print(f"subsel: error: {message}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional library no call site checked first
        extra = MODULE_EXTRA.get((exc.name or "").partition(".")[0])
        if extra is None:
            raise
        print(f"subsel: error: {exc.name} is not installed: {install_hint(extra[1])}", file=sys.stderr)
        return 2
    except Terminated:
        print("subsel: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("subsel: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


#: Parameters of the library that a command-line option sets, by the name the library's errors use
#: and the option's ``dest``: "budget must be >= 0; got -1.0", raised by the model after parsing,
#: is shown as "--budget must be >= 0; got -1.0".
OPTION_OF_PARAMETER: dict[str, str] = {
    "alpha": "alpha", "R": "R", "budget": "budget", "demand": "demand", "epsilon": "epsilon",
    "horizon": "horizon", "time_limit_s": "time_limit", "memory_limit_mb": "memory_limit", "threads": "threads",
    "n": "n", "instances": "instances", "confidence": "confidence", "width": "width",
}
#: Options that name solvers (a comma-separated list for ``--solvers``).
SOLVER_OPTIONS = ("solver", "oracle", "reference", "solvers")


def _name_option(message: str, args: argparse.Namespace) -> str:
    """``message`` with a leading library parameter name replaced by the option that set it.

    Only when the command has that option and the user gave it a value (``args`` holds it):
    ``budget must be >= 0`` becomes ``--budget must be >= 0``, and an entry of a list option,
    ``n[1] must be a positive integer``, becomes ``--n: n[1] must be ...``.  An unknown solver name
    given to ``--solver``, ``--oracle``, ``--reference`` or ``--solvers`` is prefixed with the option.
    """
    field, sep, rest = message.partition(" ")
    base, bracket, _ = field.partition("[")
    dest = OPTION_OF_PARAMETER.get(base)
    if sep and dest is not None and getattr(args, dest, None) is not None:
        option = f"--{dest.replace('_', '-')}"
        return f"{option}: {message}" if bracket else f"{option} {rest}"
    if message.startswith("unknown solver "):
        for dest in SOLVER_OPTIONS:
            value = getattr(args, dest, None)
            if isinstance(value, str) and any(message.startswith(f"unknown solver {v.strip()!r}")
                                              for v in value.split(",") if dest == "solvers" or v == value):
                return f"--{dest}: {message}"
    return message


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
