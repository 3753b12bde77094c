"""The numbers of ``docs/reproducing.md`` are the numbers a ``--quick`` run writes.

A run's reports are committed under ``docs/quick-results/`` (``NAME.md``, as ``subsel reproduce
NAME --quick --seed 0`` writes them; ``docs/quick-results/index.md`` names the commands).  These
tests read ``docs/reproducing.md`` and those reports and compare them, without running anything:

- the whole Table II (every row of the ``emsco-table2`` report but its run count and time) and the
  CSTC table are the report's cells;
- every number of ours quoted in the prose is one of the reports' numbers, and the sentences built
  from one cell (the Table 1 ratios, the Heart ILP subset, the claims of non-domination) are
  rebuilt here from the report and must appear as written.

When a report is regenerated and its numbers move, these tests name the sentence to rewrite.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reproducing.md"
REPORTS = ROOT / "docs" / "quick-results"
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", flags=re.S | re.M)
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")

#: Numbers of the page that are not results of ours: a citation's year, an arXiv number, the
#: paper's own settings.
NOT_RESULTS = {"2013", "2205.00570", "250"}


def _prose(text: str) -> str:
    return FENCE.sub("", text)


def _table(text: str, header_start: str) -> list[list[str]]:
    """The rows (cells stripped) of the markdown table whose header line starts with ``header_start``."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def _report(name: str) -> str:
    return (REPORTS / f"{name}.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def table2() -> dict[tuple[str, str], list[str]]:
    """``(data set, method) -> [g1, g2, g3*, non-dominated]`` of the emsco-table2 report."""
    rows = _table(_report("emsco-table2"), "| data set | method | runs |")
    return {(r[0], r[1]): [r[3], r[4], r[5], r[6]] for r in rows}


def test_the_whole_table_ii_is_the_report_s(page, table2):
    rows = _table(page, "| data set | method | g1 (coverage) |")
    assert {(r[0], r[1]): r[2:] for r in rows} == table2
    assert any(method == "gm" for _, method in table2)


def test_the_cstc_table_is_the_report_s(page, table2):
    report = _report("emsco-table2")
    cstc = report[report.index("CSTC (`cstc`): cost-sensitive tree"):]
    rows = _table(page, "| data set | g2 (accuracy) | g3* (cost) |")
    assert rows, "the CSTC table is missing"
    for name, g2, g3, all_cost, lam, used in rows:
        assert [g2, g3] == table2[(name, "cstc")][1:3], name
        assert all_cost == table2[(name, "all-features")][2], name
        m = re.search(rf"{name}: depth 3, λ ([\d.]+), features ([^;.]+)", cstc)
        assert m is not None, name
        assert (lam, int(used)) == (m.group(1), len(m.group(2).split())), name


def test_every_number_of_the_page_is_a_reported_one(page):
    reported = set()
    for report in REPORTS.glob("*.md"):
        reported |= set(NUMBER.findall(report.read_text(encoding="utf-8")))
    checked = {"| " + " | ".join(r) + " |" for r in _table(page, "| data set | g2 (accuracy) | g3* (cost) |")}
    unknown = [(line, n) for line in _prose(page).splitlines() if line not in checked  # cell by cell above
               for n in NUMBER.findall(line) if n not in reported and n not in NOT_RESULTS]
    assert not unknown, "numbers in docs/reproducing.md that no quick report has: " + "; ".join(
        f"{n} in {line.strip()[:80]!r}" for line, n in unknown)


def test_table_1_ratios_are_the_report_s(page):
    rows = {r[0]: r for r in _table(_report("table1"), "| n | t_dpss:t_gss |")}
    small = ["5", "10", "15", "20"]
    dpss = ", ".join(rows[n][1] for n in small)
    ilp = ", ".join(rows[n][2] for n in small)
    large = ", ".join(f"{rows[n][2]} at {'' if i else 'n = '}{n}" for i, n in enumerate(["50", "100", "500", "1000"]))
    line = next(line for line in page.splitlines() if line.startswith("| Table 1: t_ilp"))
    assert f"{ilp} for n = 5, 10, 15, 20; {large}" in line
    line = next(line for line in page.splitlines() if line.startswith("| Table 1: t_dpss"))
    assert f"{dpss} for n = 5, 10, 15, 20" in line


def test_heart_ilp_subset_sentence_is_the_report_s(page, table2):
    report = _report("emsco-table2")
    features = re.search(r"heart: ([\w ]+) \(of \d+ distinct subsets\)", report)
    assert features is not None
    names = features.group(1).split()
    g2, g3 = table2[("heart", "ilp-subset")][1:3]
    said = f"is {', '.join(names[:-1])} and {names[-1]}, with accuracy {g2} at cost {g3}"
    assert said in " ".join(page.split())


SAID = {"gm": "GM", "cstc": "CSTC", "ilp-subset": "the ILP subset (d)", "emsco+ilp": "`emsco+ilp`",
        "nsga2": "NSGA-II", "all-features": "all features (a)", "all-features-reject": "(b)"}


def test_the_non_domination_claim_is_the_report_s(page, table2):
    names = list(dict.fromkeys(n for n, _ in table2))
    free = [n for n in names if table2[(n, "emsco")][3] == "yes"]
    report = _report("emsco-table2")
    claim = next(line for line in report.splitlines() if line.startswith("- **EMSCO is non-dominated"))
    dominated = dict(re.findall(r"(\w+): dominated by (.+?)(?=, \w+: |$)", claim))
    assert set(dominated) == set(names) - set(free)
    line = next(line for line in page.splitlines() if line.startswith("| EMSCO is non-dominated"))
    ours = line.split("|")[3]
    head, *parts = re.split(r"[;,] on ", ours)
    assert f"{len(free)} of {len(names)} against our methods" in head
    assert f"({', '.join(n.capitalize() for n in free)})" in head
    said = {part.split()[0]: part for part in parts}
    assert set(said) == {n.capitalize() for n in dominated}
    for name, by in dominated.items():
        for method in by.split(", "):
            assert SAID[method] in said[name.capitalize()], (name, method)
