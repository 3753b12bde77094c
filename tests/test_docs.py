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


#: Options a command's synopsis in docs/cli.md leaves to the text below it, and why.
OUTSIDE_THE_SYNOPSIS = {
    ("payments", "--budget"): "refused: critical payments need a selection monotone in each cost",
    **{("reproduce", o): "emsco-sweep on one's own data, a paragraph of its own"
       for o in ("--train", "--val", "--test", "--costs", "--label-column")},
}


def test_cli_page_synopses_list_every_option():
    """The synopsis block under each ``## `subsel COMMAND``` heading lists each option of the command
    (``--group-limits`` was missing from ``frontier`` and ``payments``)."""
    from subsel.cli import build_parser

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    synopses = dict(re.findall(r"^## `subsel ([^`]+)`\n+```text\n(.*?)```", text, flags=re.S | re.M))
    assert {"frontier", "payments", "solve"} <= set(synopses)
    missing = [f"subsel {command} {strings[-1]}" for command, options in _options(build_parser()).items()
               if command in synopses for strings in options
               if (command, strings[-1]) not in OUTSIDE_THE_SYNOPSIS
               and not any(re.search(re.escape(s) + r"(?![\w-])", synopses[command]) for s in strings)]
    assert not missing, "docs/cli.md synopses omit: " + ", ".join(missing)


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
    # The site reads offline: no script from the network, every formula already MathML, and no
    # docstring's Sphinx role left as text.
    for page in sorted((tmp_path / "site").rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        shown = re.sub(r"<(code|pre)[^>]*>.*?</\1>", "", html, flags=re.S)
        name = page.relative_to(tmp_path / "site")
        assert not re.search(r"<script[^>]*\bsrc=[\"']?(https?:)?//", html), f"{name}: a script from the network"
        assert not re.search(r"\\\(|\\\[|class=\"arithmatex\"", shown), f"{name}: a formula left as TeX"
        assert not re.search(r":(mod|func|class|meth|attr|data|exc):", shown), f"{name}: a raw Sphinx role"


def test_readme_is_a_front_page_whose_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    missing = [link for link in local if not (ROOT / link).exists()]
    assert local and not missing, missing
    for needle in ("Σ_i (R·q_i − c_i) · x_i", "Σ_i (q_i − α) · x_i ≥ 0", 'pip install ".[all]"',
                   'pip install -e ".[dev]"', "pytest",
                   # the planner's fields and the decision commands, and the page that explains them
                   "min_units", "lot_size", "fixed_cost", "--group-limits", "subsel frontier",
                   "--alternatives", "subsel payments", "(docs/decisions.md)"):
        assert needle in text, needle


def test_the_home_page_names_the_planners_fields_and_the_decisions():
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for needle in ("minimum order", "lot size", "fixed cost", "subsel frontier", "--alternatives",
                   "subsel payments", "(decisions.md)"):
        assert needle in text, needle


def test_the_formats_page_gives_the_columns_of_an_order(tmp_path, capsys):
    """``bandit next -o`` writes the columns the formats page names."""
    from subsel.cli import main

    agents, state, order = tmp_path / "a.csv", tmp_path / "s.json", tmp_path / "o.csv"
    agents.write_text("name,cost\na,0.1\n")
    assert main(["bandit", "init", "--agents", str(agents), "--alpha", "0.5", "--epsilon", "0.9", "--horizon", "9",
                 "--state", str(state)]) == 0
    assert main(["bandit", "next", "--state", str(state), "-o", str(order)]) == 0
    header = order.read_text().splitlines()[0]
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    assert f"`subsel bandit next -o FILE`: the order, `{header}`" in text, header
