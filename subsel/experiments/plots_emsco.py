"""Figures of EMSCO's experiments (matplotlib, Agg backend): plotting apart from computing.

Each function takes an aggregated table, writes one PNG atomically and returns its path.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .plots import new_figure, save_figure

__all__ = ["plot_method_table", "plot_sweep"]


def plot_method_table(summary: pd.DataFrame, path: str | os.PathLike, *, title: str) -> Path:
    """One panel per data set: mean test cost ``g3*`` (x) against accuracy ``g2`` (y) per method.

    Marker color is the coverage ``g1``; error bars are the 95% margins of error; non-dominated
    methods are drawn with a black edge.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`subsel.experiments.emsco.summarize_methods` output.
    path : path
        PNG to write.
    title : str
    """
    datasets = list(pd.unique(summary["dataset"]))
    cols = min(3, len(datasets)) or 1
    rows = int(np.ceil(len(datasets) / cols)) or 1
    plt, (fig, axes) = new_figure(rows, cols, figsize=(4.6 * cols, 3.8 * rows), squeeze=False,
                               layout="constrained")
    markers = dict(zip(["emsco", "emsco+ilp", "nsga2", "all-features", "all-features-reject",
                        "ilp-subset", "gm"], "o*^sDvP"))
    sc = None
    for ax, d in zip(axes.ravel(), datasets):
        g = summary[summary["dataset"] == d]
        for _, r in g.iterrows():
            ax.errorbar(r["g3*"], r["g2"], xerr=np.nan_to_num(r["moe_g3*"]),
                        yerr=np.nan_to_num(r["moe_g2"]), fmt="none", ecolor="0.6", lw=0.8)
            sc = ax.scatter([r["g3*"]], [r["g2"]], c=[r["g1"]], cmap="viridis", vmin=0, vmax=1,
                            marker=markers.get(r["method"], "o"), s=70,
                            edgecolors="k" if r["non_dominated"] else "none", label=r["method"])
        ax.set_title(d)
        ax.set_xlabel("mean cost per input g3* (test)")
        ax.set_ylabel("accuracy g2 (test)")
    for ax in axes.ravel()[len(datasets):]:
        ax.axis("off")
    from matplotlib.lines import Line2D

    shown = [m for m in markers if m in set(summary["method"])]
    handles = [Line2D([], [], ls="none", marker=markers[m], color="0.4", markersize=8) for m in shown]
    fig.legend(handles, shown, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(shown),
               fontsize=8, frameon=False, title="method (black edge: non-dominated)")
    if sc is not None:
        fig.colorbar(sc, ax=axes.ravel().tolist(), label="coverage g1", shrink=0.8)
    fig.suptitle(title)
    return save_figure(fig, path)


def plot_sweep(summary: pd.DataFrame, table: pd.DataFrame, path: str | os.PathLike, *,
               title: str) -> Path:
    """Cost–accuracy curve over p̂: mean per p̂ (line, colored by coverage), runs as faint points.

    Parameters
    ----------
    summary : pandas.DataFrame
        Per p̂: ``confidence, g1, g2, g3*, std_g2, std_g3*``.
    table : pandas.DataFrame
        Per run: ``confidence, g1, g2, g3*``.
    path : path
    title : str
    """
    plt, (fig, ax) = new_figure(figsize=(6.4, 4.4))
    ax.scatter(table["g3*"], table["g2"], c=table["g1"], cmap="viridis", vmin=0, vmax=1, s=12,
               alpha=0.35)
    s = summary.sort_values("confidence")
    ax.plot(s["g3*"], s["g2"], color="0.5", lw=0.8, zorder=1)
    ax.errorbar(s["g3*"], s["g2"], xerr=np.nan_to_num(s["std_g3*"]), yerr=np.nan_to_num(s["std_g2"]),
                fmt="none", ecolor="0.6", lw=0.8, zorder=1)
    sc = ax.scatter(s["g3*"], s["g2"], c=s["g1"], cmap="viridis", vmin=0, vmax=1, s=60,
                    edgecolors="k", zorder=2)
    for _, r in s.iterrows():
        ax.annotate(f"{r['confidence']:g}", (r["g3*"], r["g2"]), textcoords="offset points",
                    xytext=(5, 4), fontsize=8)
    fig.colorbar(sc, ax=ax, label="coverage g1 (mean)")
    ax.set_xlabel("mean cost per input g3* (test)")
    ax.set_ylabel("accuracy on accepted inputs g2 (test)")
    ax.set_title(title + "\nlabels: p̂; bars: ±1 std over runs")
    return save_figure(fig, path)
