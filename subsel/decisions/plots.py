"""The figure of the price of quality (matplotlib, Agg backend; apart from the computing)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .._extras import require
from .._files import atomic_write_with

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def figure_format(path: str | os.PathLike[str]) -> str:
    """The image format a file name asks for: its extension, when matplotlib can write it.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    str
        The extension in lower case, without the dot (``png``, ``pdf``, ``svg``, ...).

    Raises
    ------
    ImportError
        matplotlib is not installed.
    ValueError
        No extension, or one matplotlib does not write (naming the file and the formats it writes).
    """
    require("matplotlib", extra="experiments", feature="the frontier figure")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    supported = sorted(FigureCanvasAgg(Figure()).get_supported_filetypes())
    ext = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if ext not in supported:
        raise ValueError(f"cannot draw the figure {os.fspath(path)!r}: its extension "
                         f"{'.' + ext if ext else '(none)'} is not an image format; use one of "
                         f"{', '.join('.' + e for e in supported)}")
    return ext


def plot_frontier(table: "pd.DataFrame", path: str | os.PathLike[str], *, title: str = "") -> None:
    """Draw a frontier table as an image: utility against the quality threshold, agents on a second axis.

    Written for a reader who never saw the model: the axes say "minimum average quality required
    (alpha)", "best total profit" and "suppliers used".  The optimum is a step function of alpha
    (Deva, Abhishek, Gujar, AAMAS 2021, Section 3), drawn as steps; thresholds without any feasible
    selection are left blank.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`~subsel.decisions.frontier` table (columns ``alpha``, ``objective``, ``agents``),
        or a :func:`~subsel.decisions.frontier_breakpoints` table (then also ``alpha_to``).
    path : str or path-like
        The image to write, atomically (no half-written file), in the format its extension names
        (``.png``, ``.pdf``, ``.svg``, ... : see :func:`figure_format`).
    title : str, optional

    Raises
    ------
    ImportError
        matplotlib is not installed (the message names the ``pip install`` to run).
    ValueError
        The extension of ``path`` is not an image format matplotlib writes.
    OSError
        The file cannot be written.
    """
    fmt = figure_format(path)
    require("matplotlib", extra="experiments", feature="the frontier figure")
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    t = table.sort_values("alpha")
    if "alpha_to" in t.columns:  # breakpoints: each selection holds from alpha to alpha_to
        xs = [v for a, b in zip(t.alpha, t.alpha_to) for v in (a, b)]
        profit = [v for v in t.objective for _ in (0, 1)]
        agents = [v for v in t.agents for _ in (0, 1)]
    else:
        xs, profit, agents = list(t.alpha), list(t.objective), list(t.agents)
    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        ax.step(xs, profit, where="post", color="tab:blue", label="best total profit")
        ax.set_xlabel("minimum average quality required (alpha)")
        ax.set_ylabel("best total profit (revenue units)", color="tab:blue")
        ax.grid(alpha=0.3)
        ax2 = ax.twinx()
        ax2.step(xs, agents, where="post", color="tab:orange", linestyle="--", label="suppliers used")
        ax2.set_ylabel("suppliers used (agents selected)", color="tab:orange")
        ax2.yaxis.set_major_locator(MaxNLocator(integer=True))
        lines = ax.get_lines() + ax2.get_lines()
        ax.legend(lines, [ln.get_label() for ln in lines], loc="upper right")
        ax.set_title(title or "The price of quality: a stricter threshold costs profit")
        atomic_write_with(path, lambda tmp: fig.savefig(tmp, dpi=120, bbox_inches="tight", format=fmt))
    finally:
        plt.close(fig)
