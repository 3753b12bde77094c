"""The planner's report as one self-contained HTML page, rendered from :func:`report_content`'s data.

One file, nothing fetched: the styles are inline, the figure is inline SVG, no script, font or image
comes from anywhere else, so the page reads the same mailed, opened from a USB stick or printed.
Every string that comes from the user (agent and group names, the title, the source) is escaped.
Numbers are shown as the command line prints them and carried exactly in ``<data value="...">``
(the value Python's ``repr`` gives), so a reader sees ``1.05`` and a program reads the float.
"""
from __future__ import annotations

import math
import re
from html import escape
from typing import Any

from .._text import counted, number_text, number_text_near
from ._svg import frontier_svg

__all__ = ["render_html"]

STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: #1a1a1a; background: #fff; line-height: 1.45; margin: 0 auto; max-width: 60rem; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 1px solid #bbb; padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
p.source, p.generated { color: #444; margin: 0; }
nav ol { padding-left: 1.4rem; margin: .5rem 0; }
table { border-collapse: collapse; margin: .5rem 0 1rem; width: 100%; font-size: .92rem; }
caption { text-align: left; font-weight: 600; padding-bottom: .3rem; }
th, td { border: 1px solid #ccc; padding: .25rem .45rem; vertical-align: top; text-align: left;
         overflow-wrap: break-word; }
thead th { background: #eef1f5; }
th[scope="row"] { background: #f6f7f9; font-weight: 600; }
th[scope="row"], td.text { overflow-wrap: anywhere; min-width: 7em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
.binding { font-weight: 600; color: #8a1c00; }
.ok { color: #1b5e20; }
.warn { color: #8a1c00; font-weight: 600; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: .4rem .7rem; }
.fix { background: #e8f5e9; border-left: 4px solid #2e7d32; padding: .4rem .7rem; }
figure { margin: 1rem 0; }
figcaption { color: #333; font-size: .9rem; }
svg.chart { max-width: 100%; height: auto; font-family: inherit; }
svg .frame { fill: none; stroke: #888; }
svg .grid { stroke: #e3e3e3; }
svg .tick { font-size: 11px; fill: #333; }
svg .axis { font-size: 12px; fill: #111; }
svg .step { fill: none; stroke: #1f5fa8; stroke-width: 2.5; }
svg .alpha { stroke: #c45100; stroke-dasharray: 5 4; }
svg .plan { fill: #c45100; stroke: #fff; stroke-width: 1.5; }
svg .mark { font-size: 12px; fill: #8a3700; }
ul.names { columns: 3 12rem; padding-left: 1.2rem; }
@page { size: A4; margin: 14mm 12mm; }
/* A4 paper and narrow screens alike: compact tables whose numbers may wrap, so no column is cut off. */
@media print, screen and (max-width: 52rem) {
  body { padding: .5rem; }
  table { font-size: 8.5pt; }
  th, td { padding: .15rem .3rem; }
  td.num { white-space: normal; }
}
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  nav { display: none; }
  h2 { break-after: avoid; page-break-after: avoid; }
  thead { display: table-header-group; }
  tr, figure { break-inside: avoid; page-break-inside: avoid; }
}
"""


#: The class of a numeric cell (right-aligned, tabular figures).
NUM = ' class="num"'


def _data(v: Any, text: str | None = None) -> str:
    """A number as ``<data value="exact">shown</data>``; ``-`` when missing."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-" if text is None else escape(text)
    shown = number_text(v) if text is None else text
    return f'<data value="{escape(repr(v))}">{escape(shown)}</data>'


#: A run of this many digits or more is shown in scientific notation (``1e+308``, not 309 digits).
_LONG = re.compile(r"(?<![\d.])\d{16,}(?![\d.])")


def _long_numbers(text: str) -> str:
    """``text`` escaped, each integer of 16 digits or more shown as ``%.10g`` and carried exactly in
    ``<data value>`` (a solver's message may spell out a demand of 1e308 digit by digit)."""
    out, pos = [], 0
    for m in _LONG.finditer(text):
        out += [escape(text[pos:m.start()]), _data(int(m.group()))]
        pos = m.end()
    return "".join(out) + escape(text[pos:])


def _seconds(v: float) -> str:
    return _data(v, f"{v:.4f}") + " s"


def _money(v: float | None) -> str:
    return _data(v)


def _quality(v: float | None, alpha: float) -> str:
    return "-" if v is None else _data(v, number_text_near(v, alpha))


def _table(caption: str, header: list[str], rows: list[list[str]], numeric: frozenset[int] | set[int] = frozenset(),
           row_header: bool = True, text: frozenset[int] | set[int] = frozenset()) -> str:
    """A table whose first cell of each row is a row header; cells are HTML already.  Columns in
    ``numeric`` are right-aligned figures; those in ``text`` (names, lists) may break anywhere."""
    out = ["<table>", f"<caption>{escape(caption)}</caption>", "<thead><tr>"]
    out += [f'<th scope="col"{NUM if j in numeric else ""}>{escape(h)}</th>' for j, h in enumerate(header)]
    out.append("</tr></thead><tbody>")
    for row in rows:
        cells = []
        for j, cell in enumerate(row):
            num = NUM if j in numeric else ' class="text"' if j in text else ""
            if j == 0 and row_header:
                cells.append(f'<th scope="row"{num}>{cell}</th>')
            else:
                cells.append(f"<td{num}>{cell}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _opening(ident: str, heading: str, n: int, name: str) -> list[str]:
    """A section's start tag and its numbered heading, which labels it."""
    return [f'<section id="{ident}" aria-labelledby="{heading}">', f'<h2 id="{heading}">{n}. {escape(name)}</h2>']


def _sense(sense: str | None) -> str:
    return {">=": "at least", "<=": "at most", "==": "exactly", None: ""}[sense]


def _bound_text(c: dict[str, Any]) -> str:
    if c["bound"] is None:
        return escape(c["detail"] or "")
    return f"{_sense(c['sense'])} {_data(c['bound'])}".strip()


# ---------------------------------------------------------------------------------- sections
def _problem(content: dict[str, Any], n: int) -> str:
    p = content["problem"]
    alpha, R = p["alpha"], p["R"]
    cons = p["constraints"]
    extra = [c for c in cons if c["family"] not in ("quality", "capacity")]
    fixed = any(c["family"] == "fixed_cost" for c in cons)
    text = (f"<p>Choose how many units to buy from each of {counted(p['agents'], 'agent')} (suppliers), "
            f"so that the average quality of the units bought is at least α = {_data(alpha)}, and earn the "
            f"most utility: each unit of agent <var>i</var> brings R·q<sub>i</sub> − c<sub>i</sub> (R = "
            f"{_data(R)} revenue per good unit, q<sub>i</sub> its quality, c<sub>i</sub> its unit cost)"
            + (", less a fixed cost for each agent used" if fixed else "")
            + ". No agent gives more units than its capacity"
            + (f"; {counted(len(extra), 'further constraint')} in force" if extra else "") + ".</p>")
    rows = [["Agents", _data(p["agents"])], ["Quality threshold α", _data(alpha)],
            ["Revenue per good unit R", _data(R)]]
    for c in cons:
        rows.append([escape(c["constraint"][:1].upper() + c["constraint"][1:]), _bound_text(c)])
    out = [*_opening("problem", "h-problem", n, "The problem"), text,
           _table("The problem and every constraint in force", ["What", "Value or bound"], rows, text={1})]
    cols = p["agent_columns"]
    labels = {"name": "Agent", "quality": "Quality q", "cost": "Unit cost c", "capacity": "Capacity",
              "utility": "Utility per unit R·q − c", "min_units": "Minimum order", "lot_size": "Lot size",
              "fixed_cost": "Fixed cost", "group": "Group"}
    numeric = {j for j, c in enumerate(cols) if c not in ("name", "group")}
    body = [[escape(r[c]) if c == "name" else (escape(r[c] or "") if c == "group" else _data(r[c])) for c in cols]
            for r in p["agent_rows"]]
    out.append(_table("The agents", [labels[c] for c in cols], body, numeric))
    out.append("</section>")
    return "\n".join(out)


def _status_text(plan: dict[str, Any]) -> str:
    if plan["proven"]:
        return '<span class="ok">optimal</span> (proven: no plan earns more)'
    status = escape(plan["status"])
    if plan["gap"] is not None:
        return (f'<span class="warn">{status}</span>: not proven optimal; the best plan earns at most '
                f'{_data(plan["gap"])} more (proven bound {_data(plan["bound"])})')
    return f'<span class="warn">{status}</span>: not proven optimal, and no bound on the optimum is known'


def _plan(content: dict[str, Any], n: int) -> str:
    plan, alpha = content["plan"], content["problem"]["alpha"]
    avg = plan["avg_quality"]
    compare = "" if avg is None else (" (at least α = " + _data(alpha) + ")")
    rows = [["Utility", _money(plan["objective"])],
            ["Average quality", _quality(avg, alpha) + compare],
            ["Units bought", _data(plan["units"])],
            ["Agents used", f"{_data(plan['agents'])} of {_data(content['problem']['agents'])}"],
            ["Spend (unit costs and fixed costs)", _money(plan["spend"])],
            ["Solver", f"<code>{escape(plan['solver'])}</code>"],
            ["Status", _status_text(plan)],
            ["Time", _seconds(plan["wall_time_s"])]]
    out = [*_opening("plan", "h-plan", n, "The plan"),
           _table("The plan at a glance", ["What", "Value"], rows)]
    fixed = "fixed_cost" in content["problem"]["agent_columns"]
    body = [[escape(t["name"]), _data(t["units"]), _quality(t["quality"], alpha), _money(t["cost"]),
             _money(t["utility"])] for t in plan["taken"]]
    if body:
        out.append(_table("Units per agent taken", ["Agent", "Units", "Quality", "Unit cost",
                                                   "Utility" + (" (less its fixed cost)" if fixed else "")],
                          body, {1, 2, 3, 4}))
    else:
        out.append("<p>The plan buys nothing: no agent earns more than it costs within the constraints.</p>")
    names = plan["not_taken"]
    out.append(f'<h3 id="not-taken">Agents not taken ({len(names)})</h3>')
    if names:
        out.append('<ul class="names">' + "".join(f"<li>{escape(x)}</li>" for x in names) + "</ul>")
    else:
        out.append("<p>Every agent is used.</p>")
    out.append("</section>")
    return "\n".join(out)


def _binds(content: dict[str, Any], n: int) -> str:
    alpha = content["problem"]["alpha"]
    rows = []
    for r in content["slack"]:
        value = r["value"]
        if r["family"] == "quality":
            shown = _quality(value, alpha)
        elif isinstance(value, (int, float)):
            shown = _data(value)
        else:
            shown = "-"
        if r["binding"]:
            decides = '<span class="binding">yes</span>'
        elif r["gain"] is None:
            decides = "not known" if r["family"] not in ("capacity", "fixed_cost") else "-"
        else:
            decides = "no"
        rows.append([escape(r["constraint"][:1].upper() + r["constraint"][1:]), _bound_text(r), shown,
                     _data(r["slack"]), escape(r["meaning"]), "-" if r["gain"] is None else _money(r["gain"]),
                     decides])
    deciding = [r for r in content["slack"] if r["binding"]]
    if deciding:
        lead = ("<p>The plan is decided by " + ", ".join(f"<strong>{escape(r['constraint'])}</strong>"
                                                          for r in _unique(deciding))
                + ": without it the best plan would earn more (the column “gain if dropped”).</p>")
    else:
        lead = ("<p>No single constraint holds the plan back: removing one constraint, whichever it is, and keeping "
                "all the others would not let the best plan earn more.</p>")
    out = [*_opening("binds", "h-binds", n, "What binds the plan"),
           lead,
           _table("Each constraint's slack, the binding ones first",
                  ["Constraint", "Bound", "The plan", "Slack", "Slack means", "Gain if dropped", "Decides the plan"],
                  rows, {2, 3, 5}, text={1}),
           *_cut_notes(content, "binds"),
           "<p>Slack is what is left before a constraint stops the plan (0: the constraint is met exactly). "
           "“Gain if dropped” is the best utility with that one constraint removed, minus the plan's: it says "
           "which constraints decided the plan (each found by solving the problem again without it).</p>",
           "</section>"]
    return "\n".join(out)


def _cut_notes(content: dict[str, Any], section: str) -> list[str]:
    """The notes of the parts of ``section`` that the time budget cut short."""
    cut = content.get("budget", {}).get("cut", [])
    return [f'<p class="note">Cut short: {escape(c["what"])}.</p>' for c in cut if c["section"] == section]


def _budget(content: dict[str, Any]) -> str:
    """A note under the title when the time budget cut a part short, naming each part and why."""
    b = content.get("budget")
    if not b or not b["cut"]:
        return ""
    why = (f"{number_text(b['seconds'], 3)} s, {number_text(b['seconds'] / max(b['solve_s'], 1e-9), 3)} times the "
           f"plan's solve time of {number_text(b['solve_s'], 3)} s" if b["default"] else
           f"{number_text(b['seconds'], 3)} s, as given")
    items = "".join(f"<li>{escape(c['what'])}</li>" for c in b["cut"])
    return (f'<div class="note" role="note"><p><strong>Cut short.</strong> Everything after the plan had a time '
            f"budget of {why}; these parts did not fit (a larger budget, or a faster solver, shows them "
            f"whole):</p><ul>{items}</ul></div>")


def _unique(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for r in rows:
        if r["family"] not in seen:
            seen.add(r["family"])
            out.append(r)
    return out


def _price(content: dict[str, Any], n: int) -> str:
    f, alpha = content["frontier"], content["problem"]["alpha"]
    plan = content["plan"]
    points = {p["which"]: p for p in f["points"]}
    sentences = []
    for which, verb in (("higher", "raise"), ("lower", "lower")):
        p = points[which]
        if p["alpha"] == alpha:
            continue
        if p["objective"] is None:
            sentences.append(f"At α = {_data(p['alpha'])} no plan is feasible.")
        elif p["change"] is None:
            sentences.append(f"At α = {_data(p['alpha'])} the best plan earns {_money(p['objective'])}.")
        else:
            d = p["change"]
            what = ("costs " + _money(-d) if d < 0 else "gains " + _money(d) if d > 0 else "changes nothing")
            sentences.append(f"To {verb} the threshold to α = {_data(p['alpha'])} {what}: the best plan there "
                             f"earns {_money(p['objective'])}.")
    values = [r["objective"] for r in f["rows"] if r["objective"] is not None]
    desc = (f"A step chart of the best utility against the quality threshold α from {number_text(f['alpha_min'])} "
            f"to {number_text(f['alpha_max'])}"
            + (f"; it falls from {number_text(max(values))} to {number_text(min(values))}" if values else
               "; no plan is feasible in this range")
            + (f". The plan is marked at α = {number_text(alpha)} with utility {number_text(plan['objective'])}."
               if plan is not None and plan["objective"] is not None else "."))
    svg = frontier_svg(f, None if plan is None else plan["objective"], alpha, ident="pq",
                       title="The price of quality: best utility against the quality threshold α", desc=desc)
    exact = f["method"] == "breakpoints"
    solves = counted(f.get("solves", len(f["rows"])), "solve")
    if exact:
        header = ["From α", "To α", "Best utility", "Units", "Average quality", "Agents", "Status"]
        body = [[_data(r["alpha"]), _data(r["alpha_to"]), _money(r["objective"]), _data(r["units"]),
                 "-" if r["avg_quality"] is None else _data(r["avg_quality"], number_text(r["avg_quality"], 6)),
                 _data(r["agents"]), escape(r["status"])] for r in f["rows"]]
        grid = [r for r in f["rows"] if r["alpha_to"] is None]
        if grid:
            last = max(r["alpha_to"] for r in f["rows"] if r["alpha_to"] is not None)
            caption = (f"Breakpoints found exactly up to α = {number_text(last, 6)}, then an even grid of "
                       f"{counted(len(grid), 'threshold')} (no “To α”) ({solves}): each exact row's plan is the best "
                       "for every threshold from α to α" + ("" if f.get("complete", True) else
                                                            "; cut short by the time budget"))
        else:
            caption = (f"Breakpoints, every step found exactly ({solves}): each row's plan is the best for every "
                       "threshold from α to α")
    else:
        header = ["α", "Best utility", "Units", "Average quality", "Agents", "Status"]
        body = [[_data(r["alpha"]), _money(r["objective"]), _data(r["units"]),
                 "-" if r["avg_quality"] is None else _data(r["avg_quality"], number_text(r["avg_quality"], 6)),
                 _data(r["agents"]), escape(r["status"])] for r in f["rows"]]
        caption = (f"The best plan on an even grid of {counted(len(f['rows']), 'threshold')} ({solves}, the plan's "
                   "own point reused), not every step" + ("" if f.get("complete", True) else
                                                          "; cut short by the time budget"))
    out = [*_opening("price-of-quality", "h-price", n, "The price of quality"),
           "<p>The threshold α enters only the quality constraint, so a stricter threshold only removes plans: "
           "the best utility is a step function of α that never rises (Deva, Abhishek, Gujar, AAMAS 2021, "
           "Section 3). " + " ".join(sentences) + "</p>",
           f'<figure aria-labelledby="pq-caption">{svg}<figcaption id="pq-caption">Best utility for thresholds '
           f"from {_data(f['alpha_min'])} to {_data(f['alpha_max'])} (α ± {_data(f['width'])}); the dot is the "
           "plan.</figcaption></figure>"]
    if f["note"]:
        out.append(f'<p class="note">{escape(f["note"])}.</p>')
    out += _cut_notes(content, "price-of-quality")
    out.append(_table(caption, header, body, set(range(len(header) - 1)), row_header=False))
    out.append("</section>")
    return "\n".join(out)


def _differs(r: dict[str, Any]) -> str:
    if r["same_as_plan"]:
        return "the plan itself"
    parts = []
    if r["added"]:
        parts.append("adds " + ", ".join(escape(x) for x in r["added"]))
    if r["removed"]:
        parts.append("drops " + ", ".join(escape(x) for x in r["removed"]))
    for c in r["changed"]:
        parts.append(f"{escape(c['name'])} {_data(c['plan'])} → {_data(c['units'])} units")
    return "; ".join(parts)


def _alternatives(content: dict[str, Any], n: int) -> str:
    a, alpha = content["alternatives"], content["problem"]["alpha"]
    body = [[_data(r["rank"]), _money(r["objective"]), _money(r["loss"]), _data(r["units"]),
             _quality(r["avg_quality"], alpha), _data(r["agents"]), _money(r["spend"]), escape(r["status"]),
             _differs(r)] for r in a["rows"]]
    more = "" if len(a["rows"]) >= a["k"] else f" Only {counted(len(a['rows']), 'feasible plan')} exist."
    out = [*_opening("alternatives", "h-alternatives", n, "The next-best plans"),
           f"<p>The {counted(a['k'], 'best distinct plan')}"
           + (" (distinct in the agents they use)" if a.get("distinct") == "agents" else "")
           + ", best first, each proven the best of all plans not "
           "listed before it (Lawler, <cite>Management Science</cite> 18(7), 1972; Murty, <cite>Operations "
           f"Research</cite> 16(3), 1968), with solver <code>{escape(a['solver'])}</code>. If the first choice "
           f"falls through, the next row says what to buy instead and what it costs.{more}</p>",
           _table("The next-best plans and how each differs from the plan",
                  ["Rank", "Utility", "Below the plan by", "Units", "Average quality", "Agents", "Spend", "Status",
                   "Differs from the plan"], body, {0, 1, 2, 3, 4, 5, 6}, row_header=False, text={8}),
           "</section>"]
    return "\n".join(out)


def _payments(content: dict[str, Any], n: int) -> str:
    pay = content["payments"]
    body = []
    for r in pay["rows"]:
        shown = "unbounded" if r["unbounded"] else _money(r["payment"])
        body.append([escape(r["name"]), _data(r["units"]), _money(r["reported_cost"]), shown,
                     "unbounded" if r["unbounded"] else _money(r["payment_per_unit"]),
                     "unbounded" if r["unbounded"] else _money(r["margin"])])
    total = ("<p>In all the plan pays " + _money(pay["total"]) + " against " + _money(pay["reported"])
             + " at the reported costs: " + _money(pay["premium"]) + " more, the price of honest reports.</p>"
             if pay["total"] is not None else
             "<p>An agent the plan needs at any reported cost (a must-take agent, or one without which a demand "
             "cannot be met) has no finite critical payment.</p>")
    out = [*_opening("payments", "h-payments", n, "Truthful payments"),
           "<p>Each agent used is paid its critical amount: its reported unit cost times its units, plus what it "
           "could have raised its report and still been given units, P<sub>i</sub> = c<sub>i</sub> x<sub>i</sub> "
           "+ ∫ x<sub>i</sub>(z) dz from c<sub>i</sub> upward. Because the best plan never gives an agent more "
           "units for a higher reported cost, reporting the true cost is a dominant strategy: no agent gains by "
           "lying about its cost, and an honest agent never loses (Myerson, <cite>Mathematics of Operations "
           "Research</cite> 6(1), 1981; Archer and Tardos, <cite>FOCS</cite> 2001). The payments are not budget "
           f"balanced: they can exceed the revenue. Solver <code>{escape(pay['solver'])}</code>.</p>",
           _table("Critical payments to the agents used",
                  ["Agent", "Units", "Reported unit cost", "Payment", "Payment per unit", "Margin above reported cost"],
                  body, {1, 2, 3, 4, 5}),
           total, "</section>"]
    return "\n".join(out)


def _infeasible(content: dict[str, Any], n: int) -> str:
    inf = content["infeasible"]
    proven = inf["status"] == "infeasible"
    out = [*_opening("infeasible", "h-infeasible", n, "Why there is no plan")]
    if proven:
        out.append(f"<p>No plan meets every constraint (status <strong>infeasible</strong>, proven by "
                   f"<code>{escape(inf['solver'])}</code>).</p>")
        if inf["explanation"]:
            out.append(f'<p class="why">{_long_numbers(inf["explanation"])}.</p>')
        if inf["constraints"]:
            out.append("<p>These constraints cannot all hold at once, even with every other constraint removed; "
                       "and with every other constraint removed, taking away any one of these leaves a problem "
                       "that has a plan (Chinneck and Dravnieks, <cite>ORSA Journal on Computing</cite> 3(2), "
                       "1991). With the other constraints kept, another conflict among them may remain:</p>")
            out.append("<ul>" + "".join(f"<li>{escape(c)}</li>" for c in inf["described"]) + "</ul>")
        if inf["fixes"]:
            out.append('<p class="fix">The nearest fix, checked by solving the changed problem: <strong>'
                       + escape(" or ".join(inf["fixes"])) + "</strong>.</p>")
        else:
            out.append('<p class="fix">No single number decides it: relax one of the constraints listed above.</p>')
    else:
        out.append(f'<p class="warn">The solver <code>{escape(inf["solver"])}</code> found no plan (status '
                   f'{escape(inf["status"])}) in {_seconds(inf["wall_time_s"])}; give '
                   "it more time.</p>")
    out.append("</section>")
    return "\n".join(out)


def render_html(content: dict[str, Any]) -> str:
    """The report page for ``content`` (from :func:`~subsel.reporting.report_content`).

    Parameters
    ----------
    content : dict
        The structure :func:`~subsel.reporting.report_content` returns.

    Returns
    -------
    str
        A complete HTML5 document: inline styles (with print rules for A4), inline SVG, no script
        and no reference to any other file or address.
    """
    parts: list[tuple[str, str, Any]] = [("problem", "The problem", _problem)]
    if content["plan"] is not None:
        parts += [("plan", "The plan", _plan), ("binds", "What binds the plan", _binds)]
    else:
        parts.append(("infeasible", "Why there is no plan", _infeasible))
    parts.append(("price-of-quality", "The price of quality", _price))
    if content["alternatives"] is not None:
        parts.append(("alternatives", "The next-best plans", _alternatives))
    if content["payments"] is not None:
        parts.append(("payments", "Truthful payments", _payments))
    title = escape(content["title"])
    nav = "".join(f'<li><a href="#{ident}">{escape(name)}</a></li>' for ident, name, _ in parts)
    body = [f"<h1>{title}</h1>"]
    if content["source"]:
        body.append(f'<p class="source">Problem: {escape(content["source"])}</p>')
    made = f"Made with subsel {escape(content['version'])}"
    b = content.get("budget")
    if b:
        over = b["used_s"] > b["seconds"]  # a part once started (e.g. the next-best plans) runs to its end
        made += (f": the plan solved in {_data(b['solve_s'], number_text(b['solve_s'], 3))} s, the rest in "
                 f"{_data(b['used_s'], number_text(b['used_s'], 3))} s "
                 + ("over" if over else "within") + " a budget of "
                 f"{_data(b['seconds'], number_text(b['seconds'], 3))} s"
                 + (" (a part once started runs to its end)" if over else ""))
    body.append(f'<p class="generated">{made}.</p>')
    body.append(_budget(content))
    header = "<header>" + "".join(body) + "</header>"
    sections = [render(content, j + 1) for j, (_, _, render) in enumerate(parts)]
    notes = ""
    if content["notes"]:
        notes = ('<aside aria-label="Notes"><h2 id="h-notes">Notes</h2><ul>'
                 + "".join(f"<li>{escape(x)}</li>" for x in content["notes"]) + "</ul></aside>")
    return ("<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="subsel {escape(content["version"])}">\n'
            f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{header}\n"
            f'<nav aria-label="Contents"><ol>{nav}</ol></nav>\n<main>\n' + "\n".join(sections) + f"\n{notes}\n"
            "</main>\n</body>\n</html>\n")
