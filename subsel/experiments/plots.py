"""Figures of the comparison experiments (matplotlib, Agg backend; plotting apart from computing).

Every function takes an already aggregated table and a path, writes one PNG atomically and returns
the path.  None of them computes anything the tables do not already hold.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._extras import require
from .._files import atomic_write_with

__all__ = ["new_figure", "save_figure", "plot_mean_ratio", "plot_ratio_box", "plot_time_ratios", "plot_comparison"]


def new_figure(*args, **kwargs):
    """``(pyplot, plt.subplots(*args, **kwargs))`` on the Agg backend (no screen needed).

    Raises
    ------
    ImportError
        matplotlib is not installed (the message names the ``pip install`` to run).
    """
    require("matplotlib", extra="experiments", feature="drawing figures")
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt, plt.subplots(*args, **kwargs)


def save_figure(fig, path: str | os.PathLike) -> Path:
    """Write ``fig`` as PNG to ``path`` atomically (no half-written file), close it, return the path."""
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        atomic_write_with(path, lambda tmp: fig.savefig(tmp, dpi=120, bbox_inches="tight", format="png"))
    finally:
        plt.close(fig)
    return path


def plot_mean_ratio(summary: pd.DataFrame, path: str | os.PathLike, *, title: str, ylabel: str) -> Path:
    """Mean utility ratio against α, one line per n (the paper's Figure 1a/1b layout).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`subsel.experiments.analysis.summarize` output with ``n, alpha, mean_ratio``.
    path : path
        PNG to write.
    title, ylabel : str
    """
    plt, (fig, ax) = new_figure(figsize=(6.4, 4.2))
    for n, g in summary.groupby("n", sort=True):
        g = g.sort_values("alpha")
        ax.plot(g["alpha"], g["mean_ratio"], marker="o", label=f"n = {n}")
    ax.axhline(1.0, color="0.6", lw=0.8, ls="--")
    low = np.nanmin(summary["mean_ratio"].to_numpy(float)) if len(summary) else 0.9
    ax.set_ylim(min(0.9, low - 0.01) if np.isfinite(low) else 0.9, 1.01)
    ax.set_xlabel("quality threshold α")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    return save_figure(fig, path)


def plot_ratio_box(ratios: pd.DataFrame, path: str | os.PathLike, *, title: str, ylabel: str) -> Path:
    """Box plot of per-instance utility ratios per n (the paper's Figure 2).

    Only defined ratios are drawn; each box's label gives how many instances had an undefined
    ratio (zero optimum or a failure), so nothing disappears silently.  The axis stops at -0.1:
    ratios below it (GSS with a negative utility) are counted in the label, not drawn.

    Parameters
    ----------
    ratios : pandas.DataFrame
        :func:`subsel.experiments.analysis.add_ratios` output with ``n, ratio, ratio_status``.
    """
    plt, (fig, ax) = new_figure(figsize=(7.2, 4.6))
    defined = ratios.loc[ratios["ratio_status"] == "ok", "ratio"].to_numpy(float)
    low = max(float(defined.min()) - 0.02, -0.1) if defined.size else 0.0
    groups, labels = [], []
    for n, g in ratios.groupby("n", sort=True):
        ok = g["ratio_status"] == "ok"
        values = g.loc[ok, "ratio"].to_numpy(float)
        groups.append(values)
        below = int((values < low).sum())
        labels.append(f"{n}\n{int((~ok).sum())} undef." + (f"\n{below} < {low:g}" if below else ""))
    ax.boxplot(groups, whis=1.5, flierprops={"markersize": 3, "alpha": 0.5})
    ax.set_ylim(low, 1.02)
    ax.set_xticks(range(1, len(labels) + 1), labels)
    ax.axhline(1.0, color="0.6", lw=0.8, ls="--")
    ax.set_xlabel("number of agents n (instances with an undefined or off-scale ratio)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y")
    return save_figure(fig, path)


def plot_time_ratios(summary: pd.DataFrame, path: str | os.PathLike, *, title: str,
                     labels: dict[str, str] | None = None) -> Path:
    """Median time ratio (solver time / reference time) against n, log-log, one line per solver.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``n, solver, median_time_ratio``.
    labels : dict, optional
        Legend label per solver name.
    """
    labels = labels or {}
    plt, (fig, ax) = new_figure(figsize=(6.4, 4.2))
    for solver, g in summary.groupby("solver", sort=False):
        g = g.sort_values("n")
        ax.plot(g["n"], g["median_time_ratio"], marker="o", label=labels.get(solver, solver))
    ax.axhline(1.0, color="0.6", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of agents n")
    ax.set_ylabel("median time ratio")
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def plot_comparison(summary: pd.DataFrame, times: pd.DataFrame, path: str | os.PathLike, *,
                    reference: str) -> Path:
    """Two panels: mean utility ratio to the reference, and median solve time, against n.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`subsel.experiments.analysis.summarize` output (``n, alpha, solver, mean_ratio``).
    times : pandas.DataFrame
        ``n, alpha, solver, median_wall_time_s`` and optionally ``median_backend_time_s`` (then
        drawn instead: the solvers' own times, subsel's overhead left out) for every solver, the
        reference included.
    reference : str
    """
    plt, (fig, (ax1, ax2)) = new_figure(1, 2, figsize=(11, 4.2))
    solvers = list(dict.fromkeys(list(times["solver"]) + list(summary["solver"])))
    colors = {s: f"C{i % 10}" for i, s in enumerate(solvers)}
    # Exact solvers share ratio 1.0 and often the same times: each solver gets its own marker, markers
    # shrink down the list (the later ones drawn on top) and the points are spread a little along n,
    # so that every colour shows where the curves coincide.
    markers = {s: "osD^vPX<>h"[i % 10] for i, s in enumerate(solvers)}
    sizes = {s: max(4.5, 10.0 - 1.3 * i) for i, s in enumerate(solvers)}
    spread = {s: 1.0 + 0.04 * (i - (len(solvers) - 1) / 2) for i, s in enumerate(solvers)}
    alphas = sorted(set(times["alpha"]) | set(summary["alpha"]))
    styles = {a: ("-", "--", ":", "-.")[i % 4] for i, a in enumerate(alphas)}
    ns = sorted(set(times["n"]))

    def draw(ax, table, column):
        for (solver, alpha), g in table.groupby(["solver", "alpha"], sort=True):
            g = g.sort_values("n")
            ax.plot(g["n"] * spread[solver], g[column], marker=markers[solver], ms=sizes[solver],
                    color=colors[solver], ls=styles[alpha], zorder=2 + solvers.index(solver) / len(solvers),
                    label=f"{solver}, α = {alpha:g}")
        ax.set_xscale("log")
        ax.set_xticks(ns, [str(v) for v in ns])
        ax.minorticks_off()
        ax.set_xlabel("number of agents n")
        ax.grid(alpha=0.3, which="both")

    draw(ax1, summary, "mean_ratio")
    ax1.axhline(1.0, color="0.6", lw=0.8, ls="--")
    ax1.set_ylabel(f"mean utility ratio z / z_{reference}")
    ax1.set_title(f"utility relative to {reference} (undefined ratios excluded)")
    backend = "median_backend_time_s" in times
    draw(ax2, times, "median_backend_time_s" if backend else "median_wall_time_s")
    ax2.set_yscale("log")
    ax2.set_ylabel(f"median {'backend' if backend else 'wall'} time per solve [s]")
    ax2.set_title("solve time")
    # One legend beside the panels (inside, it covered the data): colour = solver, line style = α.
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colors[s], marker=markers[s], label=s) for s in solvers]
    if len(alphas) > 1:
        handles += [Line2D([], [], color="0.3", ls=styles[a], label=f"α = {a:g}") for a in alphas]
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False,
               title=None if len(alphas) > 1 else f"α = {alphas[0]:g}" if alphas else None)
    fig.tight_layout()
    return save_figure(fig, path)
