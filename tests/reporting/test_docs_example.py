"""The documentation's example report is the report of the example data it names, as it stands."""
from pathlib import Path

import numpy as np
import pytest

from subsel import SubsetSelectionProblem, get_solver
from subsel.models import read_group_limits
from tests.reporting.dom import pairs, parse, table, value
from tests.reporting.test_report import check_page

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "report" / "example-report.html"


def test_the_example_report_matches_the_example_data():
    problem = SubsetSelectionProblem.from_csv(
        ROOT / "data" / "suppliers.csv", alpha=0.85, demand=350,
        group_limits=read_group_limits(ROOT / "data" / "suppliers-groups.csv"))
    sol = get_solver("highs").solve(problem)
    text = EXAMPLE.read_text(encoding="utf-8")
    doc = parse(text)
    check_page(text, doc)
    assert [s.attrs["id"] for s in doc.iter("section")] == [
        "problem", "plan", "binds", "price-of-quality", "alternatives", "payments"]
    glance = pairs(doc.find("section", id="plan"), "The plan at a glance")
    assert value(glance["Utility"]) == pytest.approx(sol.objective, rel=1e-12)
    assert value(glance["Average quality"]) == pytest.approx(sol.avg_quality, rel=1e-12)
    _, rows = table(doc.find("section", id="plan"), "Units per agent taken")
    assert [(r[0].text(), value(r[1])) for r in rows] == [(problem.names[i], sol.x[i]) for i in np.flatnonzero(sol.x)]
    page = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    assert "(report/example-report.html)" in page and "(report/report-screenshot.png)" in page
    assert (ROOT / "docs" / "report" / "report-screenshot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
