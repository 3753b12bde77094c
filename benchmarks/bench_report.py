"""The planner's report against one solve: how many times ``subsel solve`` a ``subsel report`` takes.

Both are run as a user runs them (``python -m subsel ...``, start-up included), alternated in one run
so that load from other processes falls on both sides alike, on planner problems made by
``subsel generate --planner`` (the budget and demand it prints) and on the shipped example data.
Each line: the problem, the best of ``--repeat`` wall times of ``solve`` and of ``report``, their ratio,
and the report's time budget and the parts it cut short (read back from the page).

    python benchmarks/bench_report.py                  # n = 200 and 500, and data/suppliers.csv
    python benchmarks/bench_report.py --n 200 --repeat 1
"""
from __future__ import annotations

import argparse
import html
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "subsel", *args], capture_output=True, text=True, check=True)
    return time.perf_counter() - start, out.stderr


def _generated(n: int, folder: Path) -> list[str]:
    agents, limits = folder / f"agents{n}.csv", folder / f"limits{n}.csv"
    _, said = _run(["generate", "--planner", "--n", str(n), "--seed", "1", "-o", str(agents),
                    "--group-limits-out", str(limits)])
    command = re.search(r"solve with: subsel solve (.*)", said)
    if command is None:
        raise SystemExit(f"generate did not print the solve command: {said}")
    return command.group(1).split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="*", default=[200, 500], help="planner problem sizes")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each side, best kept (default 2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = [(f"planner n={n}", _generated(n, folder)) for n in args.n]
        cases.append(("data/suppliers.csv, groups, demand 350",
                      [str(ROOT / "data" / "suppliers.csv"), "--alpha", "0.85", "--group-limits",
                       str(ROOT / "data" / "suppliers-groups.csv"), "--demand", "350"]))
        print(f"{'problem':40} {'solve s':>8} {'report s':>9} {'ratio':>6}  budget, cut short")
        for name, problem in cases:
            solve, report = [], []
            page = folder / "report.html"
            for _ in range(args.repeat):
                solve.append(_run(["solve", *problem, "--json", "-o", str(folder / "s.json")])[0])
                report.append(_run(["report", *problem, "-o", str(page), "--quiet"])[0])
            text = html.unescape(re.sub(r"<(?!/?li>)[^>]*>", "", page.read_text(encoding="utf-8")))
            budget = re.search(r"within a budget of ([\d.e+-]+) s", text)
            cut = re.findall(r"<li>([^<]*the time budget[^<]*)</li>", text)
            print(f"{name:40} {min(solve):8.2f} {min(report):9.2f} {min(report) / min(solve):6.1f}  "
                  f"{budget.group(1) if budget else '?'} s, {'; '.join(cut) or 'nothing'}")


if __name__ == "__main__":
    main()
