"""The report's time budget: everything after the plan shares it, each solve cut to the time left; slow
solves get an even grid instead of every step; what did not fit is named on the page (parsed), and the
command prints progress only on a terminal or when asked."""
import re

import numpy as np
import pytest

import subsel.reporting._price as price_module
from subsel import SubsetSelectionProblem, frontier, get_solver
from subsel.cli import main
from subsel.reporting import render_html, report_content
from tests.reporting.dom import parse, table, value
from tests.reporting.test_report import PLANNER, SHORT, SUPPLIERS, check_page, section


def _cut_note(doc):
    """The items of the page's 'Cut short' note under the title (None when there is none)."""
    header = doc.find("header")
    note = header.find("div", **{"class": "note"})
    return None if note is None else [li.text() for li in note.iter("li")]


def test_a_spent_budget_cuts_every_later_part_short_and_the_page_says_so():
    content = report_content(PLANNER, solver="highs", alternatives=2, time_budget_s=1e-6)
    sections = {c["section"] for c in content["budget"]["cut"]}
    assert sections == {"alternatives", "price-of-quality", "binds"}
    assert content["alternatives"] is None
    assert all(r["gain"] is None and not r["binding"] for r in content["slack"])
    # the price of quality still shows the plan's own point, which needs no solve
    f = content["frontier"]
    assert [r["alpha"] for r in f["rows"]] == [PLANNER.alpha]
    assert f["rows"][0]["objective"] == content["plan"]["objective"] and f["solves"] == 0 and not f["complete"]
    text = render_html(content)
    doc = parse(text)
    check_page(text, doc)
    items = _cut_note(doc)
    assert items is not None and len(items) == 3
    assert any("next-best plans are not shown" in x for x in items)
    assert any("misses 2 of the 2 thresholds" in x for x in items)
    assert any("gain is not known for" in x for x in items)
    for ident in ("binds", "price-of-quality"):
        notes = [p.text() for p in section(doc, ident).iter("p") if p.attrs.get("class") == "note"]
        assert any(n.startswith("Cut short:") for n in notes), ident
    assert "budget of 1e-06 s, as given" in doc.find("header").text()


def test_nothing_cut_means_no_note():
    content = report_content(SUPPLIERS, time_budget_s=600)
    assert content["budget"]["cut"] == [] and content["frontier"]["method"] == "breakpoints"
    assert _cut_note(parse(render_html(content))) is None


def test_solves_too_slow_for_every_step_get_an_even_grid(monkeypatch):
    monkeypatch.setattr(price_module, "MIN_EXACT_SOLVES", 10 ** 9)  # as if each solve were very slow
    content = report_content(SUPPLIERS, time_budget_s=600)
    f = content["frontier"]
    assert f["method"] == "grid" and "too slow to find every step" in f["note"] and f["complete"]
    alphas = [r["alpha"] for r in f["rows"]]
    assert alphas == sorted({*np.linspace(f["alpha_min"], f["alpha_max"], 21).tolist(), SUPPLIERS.alpha})
    expected = frontier(SUPPLIERS, alphas, solver=get_solver("exact"))
    assert [r["objective"] for r in f["rows"]] == pytest.approx(expected.objective.tolist())
    doc = parse(render_html(content))
    caption = f"The best plan on an even grid of {len(alphas)} thresholds ({len(alphas) - 1} solves"
    _, rows = table(section(doc, "price-of-quality"), caption)
    assert "cut short" not in section(doc, "price-of-quality").find("caption").text()
    assert [value(r[0]) for r in rows] == alphas


def test_the_grid_spans_the_range_first():
    """Cut short, a grid still has both ends (alpha -+ width) before its inner points."""
    order = price_module._grid(0.7, 0.9, 0.8, 5)
    assert order[:2] == [0.7, 0.9] and sorted(order) == [0.7, 0.75, 0.85, 0.9]


def test_an_infeasible_problem_within_a_spent_budget(tmp_path):
    content = report_content(SHORT, solver="highs", time_budget_s=1e-6)
    assert content["plan"] is None and content["infeasible"]["status"] == "infeasible"
    assert [r["status"] for r in content["frontier"]["rows"]] == ["infeasible"]
    check_page(render_html(content), parse(render_html(content)))


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "3"])
def test_the_budget_must_be_a_positive_number(bad):
    with pytest.raises(ValueError, match="time_budget_s must be a positive number of seconds"):
        report_content(SUPPLIERS, time_budget_s=bad)


@pytest.fixture
def agents(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("name,quality,cost\nacme,0.95,0.5\nbolt,0.8,0.2\ncork,0.6,0.1\n")
    return path


def test_progress_only_when_asked_or_on_a_terminal(agents, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", str(agents), "--alpha", "0.8", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.splitlines() == ["wrote the report (plan optimal, utility 1.05) to " + str(out)]
    assert main(["report", str(agents), "--alpha", "0.8", "-o", str(out), "--verbose"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "report: solving the plan" and lines[-1].startswith("wrote the report")
    assert any(re.match(r"report: the price of quality.*\(\d+\.\d s of \d+\.\d s\)$", x) for x in lines)
    assert main(["report", str(agents), "--alpha", "0.8", "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_a_cut_short_report_says_so_on_stderr(agents, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", str(agents), "--alpha", "0.8", "-o", str(out), "--time-budget", "1e-6"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("wrote the report (plan optimal, utility 1.05; cut short by the time budget: ")
    assert _cut_note(parse(out.read_text(encoding="utf-8")))


@pytest.mark.parametrize("extra, message", [
    (["--time-budget", "0"], "--time-budget must be a positive number of seconds; got 0"),
    (["--time-budget", "nan"], "--time-budget must be a positive number of seconds; got nan"),
    (["--quiet", "--verbose"], "not allowed with argument"),
])
def test_bad_budget_or_talk_options_write_nothing(agents, tmp_path, capsys, extra, message):
    out = tmp_path / "r.html"
    try:
        code = main(["report", str(agents), "--alpha", "0.8", "-o", str(out), *extra])
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and not out.exists()


def test_a_huge_demand_is_shown_in_a_few_digits(tmp_path):
    p = SubsetSelectionProblem(quality=[0.95, 0.8], cost=[0.5, 0.2], alpha=0.8, demand=10 ** 308)
    content = report_content(p, solver="highs")
    text = render_html(content)
    doc = parse(text)
    check_page(text, doc)
    shown = doc.find("main").text()
    assert not re.search(r"\d{16}", shown), "a number of 16 digits or more is printed on the page"
    assert "at least 1e+308" in section(doc, "problem").text()
    why = section(doc, "infeasible").find("p", **{"class": "why"})
    assert "demand 1e+308 cannot be met" in why.text()
    assert int(why.find("data").attrs["value"]) == 10 ** 308  # carried exactly


def test_a_budget_overrun_is_stated_not_called_within():
    content = report_content(SUPPLIERS, time_budget_s=600)
    b = content["budget"]
    assert "within a budget of" in parse(render_html(content)).find("header").text()
    b["used_s"] = b["seconds"] + 12.5  # as when the next-best plans asked for outlast the budget
    text = parse(render_html(content)).find("header").text()
    assert "over a budget of" in text and "within a budget" not in text and "runs to its end" in text
