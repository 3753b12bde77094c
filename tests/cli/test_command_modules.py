"""The command line imports only the module of the command it runs (COMMAND_MODULES)."""
import argparse
import importlib
import subprocess
import sys

import pytest

from subsel.cli import COMMAND_MODULES, ArgumentParser, build_parser, main


def commands_of(module: str) -> list[str]:
    parser = ArgumentParser(prog="subsel")
    sub = parser.add_subparsers(dest="command", parser_class=ArgumentParser)
    importlib.import_module(module).register(sub)
    return list(sub.choices)


@pytest.mark.parametrize("module", list(COMMAND_MODULES))
def test_the_table_names_exactly_the_commands_each_module_registers(module):
    assert commands_of(module) == list(COMMAND_MODULES[module])


def test_a_known_command_builds_only_its_module_and_anything_else_builds_all():
    def choices(parser: argparse.ArgumentParser) -> list[str]:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return list(action.choices)

    everything = [c for commands in COMMAND_MODULES.values() for c in commands]
    assert choices(build_parser("solve")) == list(COMMAND_MODULES["subsel.cli.core"])
    assert choices(build_parser("bandit")) == ["bandit"]
    for argv0 in (None, "--help", "sovle"):
        assert choices(build_parser(argv0)) == everything
    assert choices(build_parser("--version")) == []


def test_version_prints_the_version_and_loads_no_command(capsys):
    import subsel

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"subsel {subsel.__version__}\n"
    code = ("import sys; from subsel.cli import main; rc = main(['--version']); "
            "print(sorted(m for m in sys.modules if m.startswith(('subsel.cli.', 'subsel.experiments', "
            "'pandas')))); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "[]"


def test_help_lists_every_command_and_a_typo_lists_the_choices(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for commands in COMMAND_MODULES.values():
        for command in commands:
            assert f"    {command} " in out or f"    {command}\n" in out, command
    assert main(["sovle"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'sovle'" in err and "'emsco'" in err
