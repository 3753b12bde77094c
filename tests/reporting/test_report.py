"""The planner's report: its numbers are the Python API's, read back from the parsed HTML; it is one
self-contained, escaped, accessible page; a failing report writes nothing."""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings

import subsel
from subsel import SubsetSelectionProblem, frontier, get_solver
from subsel.decisions import alternatives, frontier_breakpoints, payments
from subsel.models import FEASIBILITY_TOL
from subsel.reporting import render_html, report, report_content
from subsel.solvers import SolverError, Status, constraint_families, without_constraints
from tests.reporting.dom import Node, pairs, parse, table, value
from tests.strategies import brute_force, planner_problems

SUPPLIERS = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6, 0.9], cost=[0.5, 0.2, 0.1, 0.45], alpha=0.8,
                                   capacity=[2, 3, 2, 1], names=["acme", "bolt", "cork", "dyna"])

#: The planner's example of the model page: minimum orders, lots, fixed costs, groups with limits, a budget.
PLANNER = SubsetSelectionProblem(
    quality=[0.95, 0.90, 0.70, 0.85], cost=[0.40, 0.30, 0.10, 0.20], alpha=0.8,
    capacity=[40, 40, 60, 50], names=["north_a", "north_b", "local_c", "far_d"],
    min_units=[10, 1, 20, 5], lot_size=[5, 10, 1, 5], fixed_cost=[2.0, 1.0, 0.5, 0.0],
    group=["north", "north", "local", None],
    group_limits={"north": {"max_agents": 1}, "local": {"min_units": 20}}, budget=40.0)

#: The same with a demand instead of the budget (payments need no budget).
PLANNER_DEMAND = PLANNER.with_changes(budget=None, demand=60)

#: Infeasible: 120 units on a budget of 20; the nearest fixes are a demand of 100 or a budget of 23.5.
SHORT = PLANNER.with_changes(demand=120, budget=20.0)


def build(problem, tmp_path, **options):
    path = tmp_path / "report.html"
    content = report(problem, path, **options)
    text = path.read_text(encoding="utf-8")
    return content, text, parse(text)


def section(doc: Node, ident: str) -> Node:
    node = doc.find("section", id=ident)
    assert node is not None, f"no section {ident!r}"
    return node


def check_plan(problem, doc, solver):
    """Section 2 against ``solver.solve``: every number, the agents taken and not taken."""
    sol = get_solver(solver).solve(problem)
    plan = section(doc, "plan")
    glance = pairs(plan, "The plan at a glance")
    assert value(glance["Utility"]) == pytest.approx(sol.objective, rel=1e-12)
    if math.isnan(sol.avg_quality):  # nothing bought
        assert glance["Average quality"].text() == "-"
    else:
        assert value(glance["Average quality"]) == pytest.approx(sol.avg_quality, rel=1e-12)
    assert value(glance["Units bought"]) == int(sol.x.sum())
    assert value(glance["Agents used"]) == np.count_nonzero(sol.x)
    fixed = problem.fixed_cost if "fixed_cost" in problem.extensions else np.zeros(problem.n)
    spend = float(problem.cost @ sol.x + fixed @ (sol.x > 0))
    assert value(glance["Spend (unit costs and fixed costs)"]) == pytest.approx(spend, rel=1e-12)
    assert glance["Solver"].text() == sol.solver
    assert glance["Status"].text().startswith(sol.status.value)
    if sol.x.any():
        _, rows = table(plan, "Units per agent taken")
        assert [(r[0].text(), value(r[1])) for r in rows] == [(problem.names[i], sol.x[i])
                                                               for i in np.flatnonzero(sol.x)]
    else:
        assert "The plan buys nothing" in plan.text()
    not_taken = plan.find("ul", **{"class": "names"})
    shown = [li.text() for li in not_taken.iter("li")] if not_taken is not None else []
    assert shown == [problem.names[i] for i in np.flatnonzero(sol.x == 0)]
    return sol


def without_limit(problem, group, key):
    """``problem`` without one limit of one group, its other limits kept."""
    return problem.with_changes(group_limits={g: {k: v for k, v in lim.items() if (g, k) != (group, key)}
                                              for g, lim in problem.group_limits.items()})


def check_binds(problem, doc, sol, solver):
    """Section 3: each constraint's slack from the plan, and the gain of dropping it from a solve without it."""
    head, rows = table(section(doc, "binds"), "Each constraint's slack")
    col = {h: j for j, h in enumerate(head)}
    seen = {}
    for r in rows:
        seen.setdefault(r[0].text(), []).append(r)
    x = sol.x
    surplus = float(problem.quality_surplus(x))
    quality = seen.pop("Average quality of the units bought")[0]
    assert value(quality[col["Slack"]]) == pytest.approx(0.0 if abs(surplus) <= FEASIBILITY_TOL else surplus,
                                                         abs=1e-12)
    gains = {}
    for fam in constraint_families(problem):
        relaxed = get_solver(solver).solve(without_constraints(problem, {fam}))
        gains[fam] = relaxed.objective - sol.objective
    assert value(quality[col["Gain if dropped"]]) == pytest.approx(gains["quality"], rel=1e-9, abs=1e-9)
    deciding = [r[0].text() for r in rows if r[col["Decides the plan"]].text() == "yes"]
    if problem.budget is not None:
        fixed = problem.fixed_cost if "fixed_cost" in problem.extensions else np.zeros(problem.n)
        budget = seen.pop("Total spend (unit costs and fixed costs)")[0]
        left = problem.budget - float(problem.cost @ x + fixed @ (x > 0))
        assert value(budget[col["Slack"]]) == pytest.approx(left, rel=1e-9, abs=1e-9)
        assert value(budget[col["Gain if dropped"]]) == pytest.approx(gains["budget"], rel=1e-9, abs=1e-9)
    if problem.demand is not None:
        demand = seen.pop("Units bought")[0]
        assert value(demand[col["Slack"]]) == int(x.sum()) - problem.demand
    for g, limits in problem.group_limits.items():
        members = np.array([lab == g for lab in problem.group])
        for key, bound in limits.items():
            what = "units" if key.endswith("units") else "agents used"
            sense = "at least" if key.startswith("min") else "at most"
            row = next(r for r in seen[f"{what[:1].upper()}{what[1:]} from group {g}"]
                       if r[col["Bound"]].text() == f"{sense} {bound}")
            got = int(x[members].sum()) if what == "units" else int(np.count_nonzero(x[members]))
            head_room = got - bound if key.startswith("min") else bound - got
            assert value(row[col["Slack"]]) == head_room
            assert value(row[col["Bound"]]) == bound
            alone = get_solver(solver).solve(without_limit(problem, g, key))  # this limit dropped, the others kept
            assert value(row[col["Gain if dropped"]]) == pytest.approx(alone.objective - sol.objective, rel=1e-9,
                                                                      abs=1e-9)
    # the binding ones (dropping them gains) come first
    first = [r[col["Decides the plan"]].text() == "yes" for r in rows]
    assert first == sorted(first, reverse=True)
    assert len(deciding) == sum(1 for r in rows if r[col["Decides the plan"]].text() == "yes")


def check_frontier(problem, doc, solver, width=0.05):
    a = problem.alpha
    expected = frontier_breakpoints(problem, max(0.0, a - width), min(1.0, a + width), solver=solver)
    price = section(doc, "price-of-quality")
    _, rows = table(price, "Breakpoints")
    assert len(rows) == len(expected)
    for r, e in zip(rows, expected.itertuples()):
        assert value(r[0]) == e.alpha and value(r[1]) == e.alpha_to
        if math.isnan(e.objective):
            assert r[2].text() == "-"
        else:
            assert value(r[2]) == pytest.approx(e.objective, rel=1e-12)
        assert value(r[3]) == e.units and value(r[5]) == e.agents and r[6].text() == e.status
    svg = price.find("svg")
    assert svg.attrs["role"] == "img"
    title, desc = svg.find("title"), svg.find("desc")
    assert title is not None and desc is not None and desc.text()
    assert set(svg.attrs["aria-labelledby"].split()) == {title.attrs["id"], desc.attrs["id"]}
    return expected


def check_alternatives(problem, doc, k, solver, sol):
    expected = alternatives(problem, k, solver=solver)
    _, rows = table(section(doc, "alternatives"), "The next-best plans")
    assert len(rows) == len(expected)
    for r, e in zip(rows, expected.itertuples()):
        assert value(r[0]) == e.rank
        assert value(r[1]) == pytest.approx(e.objective, rel=1e-12)
        assert value(r[2]) == pytest.approx(sol.objective - e.objective, rel=1e-9, abs=1e-12)
        assert value(r[3]) == e.units and value(r[5]) == e.agents and r[7].text() == e.status
        differs = r[8].text()
        if (e.x == sol.x).all():
            assert differs == "the plan itself"
        for i in np.flatnonzero((e.x > 0) & (sol.x == 0)):
            assert problem.names[i] in differs.split("adds ", 1)[1]
        for i in np.flatnonzero((e.x == 0) & (sol.x > 0)):
            assert problem.names[i] in differs.split("drops ", 1)[1]


def check_payments(problem, doc, solver):
    expected = payments(problem, solver=solver)
    _, rows = table(section(doc, "payments"), "Critical payments")
    taken = expected[expected.units > 0]
    assert [r[0].text() for r in rows] == list(taken.name)
    for r, e in zip(rows, taken.itertuples()):
        assert value(r[1]) == e.units and value(r[2]) == e.reported_cost
        if math.isinf(e.payment):
            assert r[3].text() == "unbounded"
        else:
            assert value(r[3]) == pytest.approx(e.payment, rel=1e-12)
            assert value(r[5]) == pytest.approx(e.payment - e.reported_cost * e.units, rel=1e-9, abs=1e-12)


def check_page(text: str, doc: Node) -> None:
    """One self-contained page: nothing fetched, no script, headings in order, every table headed."""
    assert doc.attrs["doctype"].lower() == "doctype html"
    html = doc.find("html")
    assert html.attrs.get("lang") == "en"
    for node in doc.iter():
        for attr in ("src", "srcset", "data", "poster", "xlink:href", "action", "formaction"):
            assert attr not in node.attrs, (node.tag, attr)
        href = node.attrs.get("href")
        if href is not None:
            assert href.startswith("#"), href  # links inside the page only
    assert doc.find("script") is None and doc.find("link") is None and doc.find("iframe") is None
    assert doc.find("img") is None and doc.find("object") is None and doc.find("embed") is None
    for style in list(doc.iter("style")) + [n for n in doc.iter() if "style" in n.attrs]:
        css = style.text() if style.tag == "style" else style.attrs["style"]
        assert "@import" not in css and "url(" not in css.replace(" ", "")
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?\s*(?:https?:|//)", text, re.I)
    levels = [int(h.tag[1]) for h in doc.iter() if re.fullmatch(r"h[1-6]", h.tag)]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:])), levels  # no level skipped
    for t in doc.iter("table"):
        assert t.find("caption") is not None
        assert all(th.attrs.get("scope") in ("col", "row") for th in t.iter("th"))
    for sec in doc.iter("section"):
        labelled = sec.attrs["aria-labelledby"]
        assert sec.find("h2", id=labelled) is not None
    figure = doc.find("figure")
    if figure is not None:
        assert figure.find("figcaption") is not None


def sections(doc: Node) -> list[str]:
    return [s.attrs["id"] for s in doc.iter("section")]


# ---------------------------------------------------------------------------------- feasible instances
def test_a_report_holds_the_api_numbers_in_every_section(tmp_path):
    content, text, doc = build(SUPPLIERS, tmp_path, alternatives=5, payments=True)
    assert sections(doc) == ["problem", "plan", "binds", "price-of-quality", "alternatives", "payments"]
    check_page(text, doc)
    problem = pairs(section(doc, "problem"), "The problem and every constraint")
    assert value(problem["Agents"]) == 4 and value(problem["Quality threshold α"]) == 0.8
    assert value(problem["Revenue per good unit R"]) == 1.0
    sol = check_plan(SUPPLIERS, doc, "exact")
    check_binds(SUPPLIERS, doc, sol, "exact")
    check_frontier(SUPPLIERS, doc, "exact")
    check_alternatives(SUPPLIERS, doc, 5, "exact", sol)
    check_payments(SUPPLIERS, doc, "exact")
    json.dumps(content, allow_nan=False)  # plain data: strict JSON as it is


def test_the_planner_fields_budget_and_group_limits(tmp_path):
    _, text, doc = build(PLANNER, tmp_path, alternatives=3)
    check_page(text, doc)
    settings = pairs(section(doc, "problem"), "The problem and every constraint")
    assert value(settings["Total spend (unit costs and fixed costs)"]) == 40.0
    assert value(settings["Agents used from group north"]) == 1
    assert value(settings["Units from group local"]) == 20
    head, agents = table(section(doc, "problem"), "The agents")
    assert head[-4:] == ["Minimum order", "Lot size", "Fixed cost", "Group"]
    assert [value(r[5]) for r in agents] == [10, 1, 20, 5] and [value(r[6]) for r in agents] == [5, 10, 1, 5]
    assert [r[8].text() for r in agents] == ["north", "north", "local", ""]
    sol = check_plan(PLANNER, doc, "highs")
    check_binds(PLANNER, doc, sol, "highs")
    check_frontier(PLANNER, doc, "highs")
    check_alternatives(PLANNER, doc, 3, "highs", sol)


def test_a_demand_and_payments_with_the_planner_fields(tmp_path):
    _, text, doc = build(PLANNER_DEMAND, tmp_path, payments=True, solver="highs")
    check_page(text, doc)
    sol = check_plan(PLANNER_DEMAND, doc, "highs")
    check_binds(PLANNER_DEMAND, doc, sol, "highs")
    check_payments(PLANNER_DEMAND, doc, "highs")


def test_each_limit_of_a_group_gains_what_dropping_it_alone_gains():
    """A group with a binding ``max_units`` and a ``min_units`` with slack: dropping the whole group
    gains, dropping its slack ``min_units`` alone gains nothing (brute force), and the report says so
    row by row, not the group's gain on each of its rows."""
    p = SubsetSelectionProblem(quality=[0.9, 0.9, 0.85, 0.6], cost=[0.1, 0.1, 0.5, 0.1], alpha=0.8,
                               capacity=[3, 3, 3, 2], names=["a", "b", "c", "d"], group=["g", "g", None, None],
                               group_limits={"g": {"min_units": 1, "max_units": 2}})
    best = brute_force(p)[0]
    whole = brute_force(without_constraints(p, {"group_limits:g"}))[0]
    alone = {key: brute_force(without_limit(p, "g", key))[0] for key in ("min_units", "max_units")}
    assert whole > best + 0.1 and alone["min_units"] == pytest.approx(best)  # the case this test is about
    content = report_content(p, solver="highs")
    rows = {r["bound"]: r for r in content["slack"] if r["family"] == "group_limits:g"}
    assert rows[2]["slack"] == 0 and rows[1]["slack"] == 1  # at most 2 units binds, at least 1 has slack
    assert rows[2]["gain"] == pytest.approx(alone["max_units"] - best) and rows[2]["binding"]
    assert rows[1]["gain"] == pytest.approx(alone["min_units"] - best, abs=1e-9) and not rows[1]["binding"]


def test_the_binding_constraint_is_named_first():
    """At alpha 0.8 the quality threshold keeps the cheapest agent out: dropping it gains, it comes first."""
    p = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.8, budget=5.0)
    content = report_content(p)
    first = content["slack"][0]
    assert first["family"] == "quality" and first["binding"] and first["gain"] == pytest.approx(0.5)
    budget = next(r for r in content["slack"] if r["family"] == "budget")
    assert not budget["binding"] and budget["slack"] == pytest.approx(5.0 - 0.7)


def test_the_price_of_quality_names_what_alpha_plus_and_minus_width_cost(tmp_path):
    content, _, doc = build(SUPPLIERS, tmp_path, width=0.1)
    points = {p["which"]: p for p in content["frontier"]["points"]}
    v = frontier_breakpoints(SUPPLIERS, 0.7, 0.9)
    at = {a: float(v[(v.alpha <= a) & (a <= v.alpha_to)].objective.iloc[0]) for a in (0.7, 0.9)}
    assert points["lower"]["objective"] == pytest.approx(at[0.7])
    assert points["higher"]["objective"] == pytest.approx(at[0.9])
    assert points["higher"]["change"] == pytest.approx(at[0.9] - content["plan"]["objective"])
    text = section(doc, "price-of-quality").find("p").text()
    assert "raise the threshold to α = 0.9" in text and "lower the threshold to α = 0.7" in text
    caption = section(doc, "price-of-quality").find("figcaption").text()
    assert "α ± 0.1" in caption


def test_a_solver_that_is_not_exact_shows_the_price_of_quality_on_a_grid(tmp_path):
    content, _, doc = build(SUPPLIERS, tmp_path, solver="gss")
    assert content["frontier"]["method"] == "grid" and "even grid" in content["frontier"]["note"]
    _, rows = table(section(doc, "price-of-quality"), "The best plan on an even grid")
    assert any(value(r[0]) == SUPPLIERS.alpha for r in rows)
    assert "not proven optimal" in section(doc, "plan").text() or content["plan"]["status"] == "optimal"


def test_a_time_limited_plan_shows_the_proven_gap():
    """A plan without proof shows its status and the bound (here: gss, a heuristic with no bound)."""
    content = report_content(SUPPLIERS.with_changes(alpha=0.99), solver="gss")
    html = parse(render_html(content))
    status = pairs(section(html, "plan"), "The plan at a glance")["Status"].text()
    assert status.startswith(content["plan"]["status"])
    if content["plan"]["status"] != "optimal":
        assert "not proven optimal" in status


# ---------------------------------------------------------------------------------- infeasible instances
def test_an_infeasible_problem_gets_the_explanation_and_the_nearest_fix(tmp_path):
    content, text, doc = build(SHORT, tmp_path, alternatives=3, payments=False)
    check_page(text, doc)
    assert sections(doc) == ["problem", "infeasible", "price-of-quality"]
    sol = get_solver("highs").solve(SHORT)
    assert sol.status is Status.INFEASIBLE
    why = section(doc, "infeasible")
    assert why.find("p", **{"class": "why"}).text() == sol.explanation + "."
    assert [li.text() for li in why.find("ul").iter("li")] == ["the budget", "the demand"]
    fix = why.find("p", **{"class": "fix"}).text()
    assert f"lower the demand to {sol.conflict.max_units}" in fix
    assert f"raise the budget to {sol.conflict.min_budget:g}" in fix
    assert content["plan"] is None and content["alternatives"] is None
    check_frontier(SHORT, doc, "highs")


def test_an_infeasible_must_take_list_has_no_numeric_fix(tmp_path):
    p = SubsetSelectionProblem(quality=[0.5, 0.9], cost=[0.1, 0.2], alpha=0.8, must_take=[0], names=["low", "high"])
    _, text, doc = build(p, tmp_path)
    check_page(text, doc)
    sol = get_solver("exact").solve(p)
    why = section(doc, "infeasible")
    assert why.find("p", **{"class": "why"}).text() == sol.explanation + "."
    assert [li.text() for li in why.find("ul").iter("li")] == ["the quality threshold", "the must-take list"]
    assert "No single number decides it" in why.find("p", **{"class": "fix"}).text()
    # payments of an infeasible problem: a note, no section
    content = report_content(p, payments=True)
    assert content["payments"] is None and any("payments" in n for n in content["notes"])


# ---------------------------------------------------------------------------------- escaping
def test_every_user_string_is_escaped(tmp_path):
    names = ["<script>alert(1)</script>", "a & b", '"quoted"', "it's <b>bold</b>"]
    p = SubsetSelectionProblem(quality=[0.9, 0.85, 0.6, 0.95], cost=[0.1, 0.2, 0.1, 0.3], alpha=0.8, names=names,
                               group=["<g&>", "<g&>", None, None], group_limits={"<g&>": {"max_agents": 1}})
    _, text, doc = build(p, tmp_path, title="<i>Q3</i> & more", source="<file>.csv", alternatives=2,
                         solver="highs")
    assert doc.find("script") is None and doc.find("b") is None and doc.find("i") is None
    assert doc.find("h1").text() == "<i>Q3</i> & more" and doc.find("title").text() == "<i>Q3</i> & more"
    _, agents = table(section(doc, "problem"), "The agents")
    assert [r[0].text() for r in agents] == names
    assert [r[-1].text() for r in agents] == ["<g&>", "<g&>", "", ""]
    settings = pairs(section(doc, "problem"), "The problem and every constraint")
    assert "Agents used from group <g&>" in settings
    assert "<file>.csv" in doc.find("header").text()
    check_page(text, doc)


# ---------------------------------------------------------------------------------- the API's contract
def test_report_is_a_lazy_name_of_subsel_and_import_subsel_stays_light():
    import subprocess
    import sys

    code = "import sys, subsel; print('subsel.reporting' in sys.modules, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    assert subsel.report is report


@pytest.mark.parametrize("options, message", [
    (dict(alternatives=0), "alternatives must be a positive integer"),
    (dict(alternatives=True), "alternatives must be a positive integer"),
    (dict(width=0.0), "width must be a number in"),
    (dict(width=1.5), "width must be a number in"),
    (dict(payments=True, solver="gss"), "payments need an exact solver"),
    (dict(solver="nope"), "unknown solver 'nope'"),
    (dict(solver=get_solver("exact"), time_limit_s=1.0), "time_limit_s and threads go with a solver name"),
])
def test_bad_options_raise_and_write_nothing(tmp_path, options, message):
    path = tmp_path / "report.html"
    path.write_text("the old report")
    with pytest.raises(ValueError, match=re.escape(message)):
        report(SUPPLIERS, path, **options)
    assert path.read_text() == "the old report" and sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_payments_with_a_budget_and_alternatives_without_cuts_are_refused():
    with pytest.raises(ValueError, match="budget 40: critical payments"):
        report_content(PLANNER, payments=True)
    with pytest.raises(ValueError, match="need a solver with no-good cuts"):
        report_content(PLANNER_DEMAND.with_changes(group=None, group_limits=None), alternatives=2, solver="exact")
    with pytest.raises(TypeError, match="problem must be a SubsetSelectionProblem"):
        report_content("agents.csv")


def test_an_unwritable_path_raises_and_leaves_no_temporary_file(tmp_path):
    with pytest.raises(OSError):
        report(SUPPLIERS, tmp_path / "missing" / "report.html")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------- stopped solvers
class _Stopped(subsel.Solver):
    """A backend that stops at its time limit: with the first agent's units (``time_limit``) and a bound,
    or before any selection (``no_solution_found``)."""

    name = "stopped"
    supports = frozenset({"demand"})

    def __init__(self, found: bool):
        super().__init__()
        self.found = found

    def _solve(self, problem):
        from subsel.solvers import RawResult

        if not self.found:
            return RawResult(None, Status.NO_SOLUTION_FOUND, 10.0)
        x = np.zeros(problem.n, dtype=np.int64)
        x[0] = 1
        return RawResult(x, Status.TIME_LIMIT, 2.5)


def test_a_time_limited_plan_shows_its_status_and_the_proven_gap():
    p = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.8)
    content = report_content(p, solver=_Stopped(found=True))
    plan = content["plan"]
    assert plan["status"] == "time_limit" and not plan["proven"]
    assert plan["gap"] == pytest.approx(2.5 - 0.45) and plan["bound"] == 2.5
    doc = parse(render_html(content))
    status = pairs(section(doc, "plan"), "The plan at a glance")["Status"]
    assert status.text().startswith("time_limit: not proven optimal")
    assert [float(d.attrs["value"]) for d in status.iter("data")] == [pytest.approx(2.05), 2.5]
    assert all(r["gain"] is None and not r["binding"] for r in content["slack"])
    assert any("not proven optimal" in n for n in content["notes"])
    assert content["frontier"]["method"] == "grid"


def test_no_plan_before_the_time_limit_says_so_and_the_command_exits_1(tmp_path, monkeypatch, capsys):
    p = SubsetSelectionProblem(quality=[0.95, 0.8], cost=[0.5, 0.2], alpha=0.8, demand=1)
    content = report_content(p, solver=_Stopped(found=False))
    assert content["plan"] is None and content["infeasible"]["status"] == "no_solution_found"
    why = section(parse(render_html(content)), "infeasible")
    assert "found no plan (status no_solution_found)" in why.text() and "give it more time" in why.text()
    # on the command line: the report is written, the exit code is 1 (as `subsel solve`)
    from subsel.cli import main
    from subsel.cli import report as report_cli

    monkeypatch.setattr(report_cli, "_default_solver", lambda problem, alternatives, distinct: "stopped")
    import subsel.reporting._content as content_module

    monkeypatch.setattr(content_module, "get_solver", lambda name, **options: _Stopped(found=False))
    agents = tmp_path / "a.csv"
    agents.write_text("name,quality,cost\na,0.95,0.5\nb,0.8,0.2\n")
    out = tmp_path / "r.html"
    assert main(["report", str(agents), "--alpha", "0.8", "--demand", "1", "-o", str(out)]) == 1
    assert "no plan: no_solution_found" in capsys.readouterr().err
    assert section(parse(out.read_text(encoding="utf-8")), "infeasible") is not None


def test_more_steps_than_the_report_finds_exactly_go_on_an_even_grid(monkeypatch):
    import subsel.reporting._price as price_module

    monkeypatch.setattr(price_module, "MAX_STEPS", 2)
    content = report_content(SUPPLIERS)
    f = content["frontier"]
    v = frontier_breakpoints(SUPPLIERS, 0.8 - 0.05, 0.8 + 0.05)
    assert f["method"] == "breakpoints" and "cut short after 2 steps" in f["note"]
    exact, grid = f["rows"][:2], f["rows"][2:]
    assert [(r["alpha"], r["alpha_to"], r["objective"]) for r in exact] == [
        (r.alpha, r.alpha_to, r.objective) for r in v.iloc[:2].itertuples()]
    # beyond the last exact step, an even grid of 21 thresholds up to alpha + 0.05
    start = math.nextafter(exact[-1]["alpha_to"], 1)
    assert [r["alpha"] for r in grid] == np.linspace(start, f["alpha_max"], 21).tolist()
    assert all(r["alpha_to"] is None for r in grid) and f["solves"] == 2 + 21 and f["complete"]
    _, rows = table(section(parse(render_html(content)), "price-of-quality"),
                    "Breakpoints found exactly up to α = 0.828571, then an even grid of 21 thresholds")
    assert [value(r[0]) for r in rows] == [r["alpha"] for r in f["rows"]]
    assert [r[1].text() for r in rows[2:]] == ["-"] * 21
    for r in grid:
        step = v[(v.alpha <= r["alpha"]) & (r["alpha"] <= v.alpha_to)]
        assert r["objective"] == pytest.approx(float(step.objective.iloc[0]))


# ---------------------------------------------------------------------------------- random planner instances
@settings(max_examples=8)
@given(problem=planner_problems(n_max=4, cap_max=3))
def test_random_planner_instances_report_the_api_numbers(problem):
    """Any mix of minimum orders, lots, fixed costs, groups, budget, demand and must lists: the page's
    plan is the solver's (and brute force's), its slack and gains are the API's, its frontier is
    ``frontier_breakpoints`` (or the grid of ``frontier`` where the steps cannot be proven)."""
    try:
        content = report_content(problem, solver="highs")
        sol = get_solver("highs").solve(problem)
    except SolverError:  # a MILP backend that cannot decide a hair from the rule's bound: nothing to report
        assume(False)
    text = render_html(content)
    doc = parse(text)
    check_page(text, doc)
    best = brute_force(problem)
    if sol.status is Status.INFEASIBLE:
        assert best is None and content["plan"] is None
        why = section(doc, "infeasible")
        assert why.find("p", **{"class": "why"}).text() == sol.explanation + "."
    else:
        assert best is not None and content["plan"]["objective"] == pytest.approx(best[0], rel=1e-9, abs=1e-9)
        check_plan(problem, doc, "highs")
        check_binds(problem, doc, sol, "highs")
    f = content["frontier"]
    if f["method"] == "breakpoints":
        check_frontier(problem, doc, "highs")
    else:
        grid = frontier(problem, [r["alpha"] for r in f["rows"]], solver="highs")
        assert [r["units"] for r in f["rows"]] == grid.units.tolist()


def test_nothing_below_the_report_imports_it():
    """The report sits on top, beside the command line: no other layer imports it."""
    import ast
    from pathlib import Path

    package = Path(subsel.__file__).parent
    importers = []
    for path in package.rglob("*.py"):
        rel = path.relative_to(package).as_posix()
        if rel.startswith(("reporting/", "cli/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if any("reporting" in name.split(".") for name in names):
                importers.append(rel)
    assert importers == []
    assert subsel._LAZY["report"] == "reporting"


# ---------------------------------------------------------------------------------- constraint objects
def test_constraint_objects_get_their_bounds_slack_and_gains(tmp_path):
    from subsel import LinearConstraint, QualityFloor

    co2 = [2.5, 1.0, 3.0, 0.5]
    p = SubsetSelectionProblem([0.9, 0.8, 0.7, 0.95], [0.1, 0.2, 0.1, 0.5], alpha=0.75, names=["a", "b", "c", "d"],
                               capacity=[3, 3, 3, 3], constraints=[
                                   LinearConstraint({"a": 1, "b": 1}, upper=1, name="a_or_b", on="used"),
                                   LinearConstraint(co2, lower=2, upper=12.5, name="co2"),
                                   QualityFloor([0.99, 0.90, 0.97, 0.8], 0.95, name="ontime")])
    _, text, doc = build(p, tmp_path, solver="highs")
    check_page(text, doc)
    settings = pairs(section(doc, "problem"), "The problem and every constraint")
    assert value(settings["Average ontime of the units bought"]) == 0.95
    sol = check_plan(p, doc, "highs")
    head, rows = table(section(doc, "binds"), "Each constraint's slack")
    col = {h: j for j, h in enumerate(head)}
    by = {(r[0].text(), r[col["Bound"]].text()): r for r in rows}
    total = float(np.dot(co2, sol.x))
    upper = by[("Co2: sum of its coefficients over the units bought", "at most 12.5")]
    lower = by[("Co2: sum of its coefficients over the units bought", "at least 2")]
    assert value(upper[col["The plan"]]) == pytest.approx(total)
    assert value(lower[col["Slack"]]) == pytest.approx(total - 2)
    used = by[("A_or_b: sum of its coefficients over the agents used", "at most 1")]
    assert value(used[col["Slack"]]) == 1 - int(sol.x[0] > 0) - int(sol.x[1] > 0)
    ontime = by[("Average ontime of the units bought", "at least 0.95")]
    surplus = float(np.dot(np.array([0.99, 0.90, 0.97, 0.8]) - 0.95, sol.x))
    assert value(ontime[col["Slack"]]) == pytest.approx(surplus, abs=1e-12)
    for name, row in (("a_or_b", used), ("ontime", ontime), ("co2", upper)):
        relaxed = get_solver("highs").solve(without_constraints(p, {name}))
        assert value(row[col["Gain if dropped"]]) == pytest.approx(relaxed.objective - sol.objective, abs=1e-9)
    # dropping only the lower side of co2 gains nothing: that side does not decide the plan
    assert lower[col["Decides the plan"]].text() == "no"
    # infeasible with them: the conflict names the constraint object in words
    short = p.with_changes(demand=12)
    sol = get_solver("highs").solve(short)
    assert sol.status is Status.INFEASIBLE
    content = report_content(short, solver="highs")
    words = [w for f, w in zip(content["infeasible"]["constraints"], content["infeasible"]["described"])
             if f in ("co2", "a_or_b", "ontime")]
    assert all(w.startswith("the constraint ") for w in words)
    assert content["infeasible"]["constraints"] == list(sol.conflict.constraints)
