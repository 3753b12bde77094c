"""A planner's report: one self-contained HTML page with the plan, what binds it, the price of quality,
the next-best plans and the payments, readable offline in any browser and printable on A4.

Built on the public API only, on top of every other layer (nothing of subsel imports it):
:func:`report_content` computes the numbers as plain data (:meth:`Solver.solve`,
:func:`subsel.decisions.frontier_breakpoints`, :func:`subsel.decisions.alternatives`,
:func:`subsel.decisions.payments`, the explanation of infeasibility), :func:`render_html` turns them
into the page, and :func:`report` does both and writes the file atomically.
"""
from __future__ import annotations

import os
from typing import Any, Callable

from .._files import atomic_write_text
from ..models import SubsetSelectionProblem
from ..solvers import Solver
from ._content import DEFAULT_WIDTH, report_content
from ._render import render_html

__all__ = ["DEFAULT_WIDTH", "render_html", "report", "report_content"]


def report(problem: SubsetSelectionProblem, path: str | os.PathLike[str], *, solver: str | Solver | None = None,
           time_limit_s: float | None = None, threads: int | None = None, alternatives: int | None = None,
           payments: bool = False, width: float = DEFAULT_WIDTH, title: str | None = None,
           source: str | None = None, distinct: str = "units", time_budget_s: float | None = None,
           progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Write a planner's report on ``problem`` to ``path``: one self-contained HTML file.

    The page has, in a planner's words: (1) the problem and every constraint in force with its bound;
    (2) the plan: units per agent (the agents not taken listed apart), utility, average quality
    against alpha, spend, the solver, its status (``optimal`` proven, or the proven gap) and time;
    (3) what binds: each constraint's slack and the utility the best plan would gain without it,
    the binding constraints first; (4) the price of quality: the best utility for thresholds
    ``alpha - width`` to ``alpha + width``, as a figure with the plan marked and as the exact
    breakpoints (Deva, Abhishek, Gujar, AAMAS 2021, Section 3), or where the time budget does not
    allow every step, an even grid; (5) with ``alternatives``, the next-best
    plans and how each differs from the plan (Lawler, Management Science 18(7), 1972); (6) with
    ``payments``, each agent's critical payment, under which reporting the true cost is a dominant
    strategy (Myerson, Mathematics of Operations Research 6(1), 1981; Archer and Tardos, FOCS 2001);
    (7) for an infeasible problem, instead of a plan: why (a smallest conflicting set of constraints,
    Chinneck and Dravnieks, ORSA Journal on Computing 3(2), 1991) and the nearest fix.

    Styles are inline, the figure inline SVG, and nothing is fetched (no script, font, image or
    style from another file or address); every user string (agent and group names, title, source) is
    escaped.  Nothing is written unless the whole report was made: the page goes to a temporary file
    in the folder of ``path`` and replaces ``path`` by a rename.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    path : str or path-like
        The HTML file to write; its folder must exist.
    solver : str or Solver or None, default None
        Used for every part; None: the default of ``subsel solve`` (with ``alternatives``, the default
        of :func:`subsel.decisions.alternatives`).
    time_limit_s : float, optional
        Seconds per solve, for a solver given by name.
    threads : int, optional
        Threads of a solver given by name.
    alternatives : int, optional
        List the ``alternatives`` best plans (``subsel solve --alternatives K``).
    distinct : {"units", "agents"}, default "units"
        The plans listed differ in some agent's units, or in the agents they use
        (``subsel solve --distinct``).
    payments : bool, default False
        Add the critical payments (no budget; an exact solver).
    width : float, default 0.05
        Half the range of thresholds of the price of quality.
    title : str, optional
        Title of the page (default "Procurement plan").
    source : str, optional
        Where the problem came from, shown under the title (e.g. the agents file's name).
    time_budget_s : float, optional
        Seconds for everything after the plan; default 8 times the plan's solve time, at least 5 s.
        Each later solve is cut to the time left; with slow solves the price of quality is an even
        grid of fewer thresholds, and whatever did not fit is left out and named on the page.
    progress : callable, optional
        Called with a line of text as each part starts.

    Returns
    -------
    dict
        The report's data (:func:`report_content`), as written.

    Raises
    ------
    ValueError
        As :func:`report_content` (bad options, payments with a budget, an unknown solver ...).
    TypeError
        ``problem`` or ``solver`` of the wrong kind.
    SolverError
        A backend failed.
    OSError
        ``path`` cannot be written (then nothing is written or replaced).

    Examples
    --------
    >>> import os, tempfile
    >>> from subsel import SubsetSelectionProblem, report
    >>> p = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.8,
    ...                            names=["acme", "bolt", "cork"])
    >>> path = os.path.join(tempfile.mkdtemp(), "plan.html")
    >>> data = report(p, path, alternatives=3)
    >>> round(data["plan"]["objective"], 6), data["plan"]["not_taken"]
    (1.05, ['cork'])
    """
    content = report_content(problem, solver=solver, time_limit_s=time_limit_s, threads=threads,
                             alternatives=alternatives, payments=payments, width=width, title=title, source=source,
                             distinct=distinct, time_budget_s=time_budget_s, progress=progress)
    atomic_write_text(path, render_html(content))
    return content
