"""The documentation's examples are tests.

- Every ```python block of ``README.md`` and of ``docs/*.md`` runs (in a temporary folder).
- Every ```console block of ``docs/*.md`` and ``README.md`` runs, page by page: each ``$ command`` is
  run by the shell in one temporary folder per page (so later blocks see the files of earlier ones),
  with ``subsel`` meaning this checkout's command line, and its output (stdout and stderr together)
  must match the lines below it.  ``...`` matches any text (doctest's ELLIPSIS) and runs of
  whitespace compare equal; a last line ``[exit N]`` states a non-zero exit code.
- ``docs/cli.md`` names every subcommand and every option of the command line.
"""
from __future__ import annotations

import argparse
import doctest
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", flags=re.S | re.M)
EXIT = re.compile(r"^\[exit (\d+)\]$")


def _blocks(page: Path, lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(page.read_text(encoding="utf-8")) if kind == lang]


def _rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


PYTHON_BLOCKS = [(page, i, code) for page in PAGES for i, code in enumerate(_blocks(page, "python"))]
CONSOLE_PAGES = [page for page in PAGES if _blocks(page, "console")]


def test_pages_have_examples():
    assert any(page.name == "README.md" for page, _, _ in PYTHON_BLOCKS), "README.md has no ```python example"
    assert CONSOLE_PAGES, "no page has a ```console example"


@pytest.mark.parametrize("page,index,code", PYTHON_BLOCKS,
                         ids=[f"{_rel(p)}-block{i}" for p, i, _ in PYTHON_BLOCKS])
def test_python_block_runs(page, index, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page}:python-block-{index}", "exec"), {"__name__": "docs_example"})


def parse_console(body: str) -> list[tuple[str, str, int]]:
    """Split a console block into ``(command, expected output, expected exit code)`` triples."""
    steps: list[tuple[str, list[str], int]] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            steps.append((command, [], 0))
        elif steps:
            m = EXIT.match(line.strip())
            if m:
                cmd, out, _ = steps[-1]
                steps[-1] = (cmd, out, int(m.group(1)))
            else:
                steps[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"console block: output before any '$ ' command: {line!r}")
        i += 1
    return [(cmd, "\n".join(out).strip("\n"), code) for cmd, out, code in steps]


def test_parse_console():
    steps = parse_console("$ a --x \\\n    --y\nout 1\nout 2\n$ b\n[exit 2]\n")
    assert steps == [("a --x  --y", "out 1\nout 2", 0), ("b", "", 2)]
    with pytest.raises(ValueError):
        parse_console("stray\n$ a\n")


def _shim(folder: Path) -> dict[str, str]:
    """An environment whose ``subsel`` is this checkout's command line, run by this Python."""
    folder.mkdir()
    script = folder / "subsel"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m subsel "$@"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    env = dict(os.environ)
    env.pop("SUBSEL_DATA", None)       # the examples run on the data sets shipped with the package
    env["PATH"] = f"{folder}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"      # stdout and stderr interleave in the order they were written
    env["MPLBACKEND"] = "Agg"
    env["COLUMNS"] = "100"
    return env


@pytest.mark.parametrize("page", CONSOLE_PAGES, ids=[_rel(p) for p in CONSOLE_PAGES])
def test_console_blocks(page, tmp_path):
    env = _shim(tmp_path / "bin")
    work = tmp_path / "work"
    work.mkdir()
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for body in _blocks(page, "console"):
        for command, expected, code in parse_console(body):
            done = subprocess.run(["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=600)
            got = done.stdout.strip("\n")
            assert done.returncode == code, (
                f"{_rel(page)}: `{command}` exited {done.returncode}, expected {code}; output:\n{got}")
            assert checker.check_output(expected + "\n", got + "\n", flags), (
                f"{_rel(page)}: `{command}` printed\n{got}\n--- expected ---\n{expected}")


def _options(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, list[list[str]]]:
    """Every (sub)command of the parser and the option strings of each of its documented options."""
    found: dict[str, list[list[str]]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(_options(sub, f"{prefix} {name}".strip()))
    if prefix:
        found[prefix] = [a.option_strings for a in parser._actions
                         if a.option_strings and a.help != argparse.SUPPRESS and "--help" not in a.option_strings]
    return found


def test_cli_page_names_every_command_and_option():
    from subsel.cli import build_parser

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = []
    for command, options in _options(build_parser()).items():
        if f"subsel {command}" not in text:
            missing.append(f"subsel {command}")
        missing += [f"subsel {command} {strings[-1]}" for strings in options
                    if not any(re.search(re.escape(s) + r"(?![\w-])", text) for s in strings)]
    assert not missing, "docs/cli.md does not mention: " + ", ".join(missing)


def test_every_option_of_the_command_line_explains_itself():
    from subsel.cli import build_parser

    silent = []

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prefix} {name}")
            elif action.help != argparse.SUPPRESS and not (action.help or "").strip():
                silent.append(f"{prefix} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "subsel")
    assert not silent, "options without help: " + ", ".join(silent)


def test_the_documentation_site_builds_strictly(tmp_path):
    """``mkdocs build --strict``: a broken link or a docstring the API pages cannot parse fails here."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    problems = [line for line in done.stdout.splitlines() if "WARNING" in line or "ERROR" in line]
    assert done.returncode == 0 and not problems, "\n".join(problems) or done.stdout[-2000:]
    assert (tmp_path / "site" / "api" / "index.html").is_file()


def test_readme_is_a_front_page_whose_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    missing = [link for link in local if not (ROOT / link).exists()]
    assert local and not missing, missing
    for needle in ("Σ_i (R·q_i − c_i) · x_i", "Σ_i (q_i − α) · x_i ≥ 0", 'pip install ".[all]"',
                   'pip install -e ".[dev]"', "pytest"):
        assert needle in text, needle
