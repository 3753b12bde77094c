"""The price-of-quality figure as inline SVG text: a step chart, drawn without any plotting library.

The optimum is a non-increasing step function of the threshold (Deva, Abhishek, Gujar, AAMAS 2021,
Section 3); a few dozen lines of SVG draw it exactly, keep its text real text (searchable, read by
screen readers through ``<title>`` and ``<desc>``), and keep the report in the core install (no
plotting extra).  Nothing here fetches anything: no ``xmlns`` or ``href`` to the network.
"""
from __future__ import annotations

import math
from html import escape
from typing import Any

__all__ = ["frontier_svg", "nice_ticks"]

WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 72, 20, 16, 52


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count - 1, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks = []
    v = first
    while v <= hi + step * 1e-9:
        ticks.append(round(v, 12))
        v += step
    return ticks


def _label(v: float) -> str:
    return f"{v:.6g}"


def frontier_svg(frontier: dict[str, Any], plan_objective: float | None, alpha: float, *, ident: str = "pq",
                 title: str, desc: str) -> str:
    """The step chart of ``frontier`` (the report's price-of-quality part) as an ``<svg>`` element.

    Parameters
    ----------
    frontier : dict
        ``alpha_min``, ``alpha_max`` and ``rows`` (``alpha``, ``alpha_to`` or None, ``objective`` or None).
    plan_objective : float or None
        The plan's utility, marked at ``alpha``; None: no mark.
    alpha : float
        The threshold of the plan.
    ident : str
        Prefix of the element ids (unique in the page).
    title, desc : str
        The figure's text alternative: a short name and a sentence saying what it shows.

    Returns
    -------
    str
        An ``<svg role="img">`` element labelled by its ``<title>`` and ``<desc>``.
    """
    lo, hi = float(frontier["alpha_min"]), float(frontier["alpha_max"])
    rows = sorted(frontier["rows"], key=lambda r: r["alpha"])
    segments = []  # (x0, x1, y) of each step, blank where nothing is feasible
    for j, r in enumerate(rows):
        if r["objective"] is None:
            continue
        end = r["alpha_to"] if r["alpha_to"] is not None else (rows[j + 1]["alpha"] if j + 1 < len(rows) else hi)
        segments.append((r["alpha"], end, r["objective"]))
    values = [s[2] for s in segments] + ([plan_objective] if plan_objective is not None else [])
    ymin, ymax = (min(values), max(values)) if values else (0.0, 1.0)
    if ymax - ymin < 1e-12 * max(1.0, abs(ymax)):
        pad = max(abs(ymax) * 0.1, 1.0)
        ymin, ymax = ymin - pad, ymax + pad
    else:
        pad = (ymax - ymin) * 0.08
        ymin, ymax = ymin - pad, ymax + pad
    if hi <= lo:
        lo, hi = lo - 0.01, hi + 0.01
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(a: float) -> float:
        return LEFT + (a - lo) / (hi - lo) * plot_w

    def py(v: float) -> float:
        return TOP + (ymax - v) / (ymax - ymin) * plot_h

    out = [f'<svg role="img" aria-labelledby="{ident}-title {ident}-desc" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'width="100%" preserveAspectRatio="xMidYMid meet" class="chart">',
           f'<title id="{ident}-title">{escape(title)}</title>',
           f'<desc id="{ident}-desc">{escape(desc)}</desc>',
           f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" class="frame"/>']
    for t in nice_ticks(lo, hi, 6):
        if lo - 1e-12 <= t <= hi + 1e-12:
            x = px(t)
            out.append(f'<line x1="{x:.2f}" y1="{TOP}" x2="{x:.2f}" y2="{TOP + plot_h}" class="grid"/>')
            out.append(f'<text x="{x:.2f}" y="{TOP + plot_h + 16}" text-anchor="middle" class="tick">'
                       f'{_label(t)}</text>')
    for t in nice_ticks(ymin, ymax, 5):
        if ymin <= t <= ymax:
            y = py(t)
            out.append(f'<line x1="{LEFT}" y1="{y:.2f}" x2="{LEFT + plot_w}" y2="{y:.2f}" class="grid"/>')
            out.append(f'<text x="{LEFT - 6}" y="{y + 4:.2f}" text-anchor="end" class="tick">{_label(t)}</text>')
    out.append(f'<text x="{LEFT + plot_w / 2:.2f}" y="{HEIGHT - 10}" text-anchor="middle" class="axis">'
               'minimum average quality required (α)</text>')
    out.append(f'<text transform="translate(16 {TOP + plot_h / 2:.2f}) rotate(-90)" text-anchor="middle" '
               'class="axis">best utility (revenue units)</text>')
    x = px(alpha)
    out.append(f'<line x1="{x:.2f}" y1="{TOP}" x2="{x:.2f}" y2="{TOP + plot_h}" class="alpha"/>')
    if segments:
        points: list[str] = []
        previous = None
        for a0, a1, v in segments:
            if previous is not None and abs(previous - a0) > 1e-9 * (hi - lo):
                out.append(f'<polyline points="{" ".join(points)}" class="step"/>')
                points = []
            points += [f"{px(a0):.2f},{py(v):.2f}", f"{px(a1):.2f},{py(v):.2f}"]
            previous = a1
        out.append(f'<polyline points="{" ".join(points)}" class="step"/>')
    if plan_objective is not None:
        cx, cy = px(alpha), py(plan_objective)
        anchor = "start" if cx < LEFT + plot_w * 0.7 else "end"
        dx = 8 if anchor == "start" else -8
        out.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="5" class="plan"/>')
        out.append(f'<text x="{cx + dx:.2f}" y="{cy - 8:.2f}" text-anchor="{anchor}" class="mark">'
                   f'the plan: α {_label(alpha)}, utility {_label(plan_objective)}</text>')
    out.append("</svg>")
    return "\n".join(out)
