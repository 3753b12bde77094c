"""A general solver comparison on the paper's random instances (``subsel compare``).

Any registered solvers, any sizes and thresholds: one task per (n, α, instance) solves the same
random instance (``q, c ~ U[0, 1]``) with every solver, in the same process; utilities and times
are then compared with a reference solver (ratios ``z / z_ref`` and ``t / t_ref`` per instance,
undefined ratios counted — see :mod:`subsel.experiments.analysis`).  ``t`` is each solver's own
time (``backend_time_s``: for CBC, the calls into CBC); what subsel adds around a backend (scaling,
verification, the cross-check with ``exact``, repair) is reported in its own column
(``overhead_time_s``), next to the whole call's ``wall_time_s``.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .._extras import require
from .._files import atomic_write_text
from ..solvers import SOLVERS, get_solver
from .analysis import add_ratios, summarize, to_markdown
from .plots import plot_comparison
from .runner import grid, run_grid, write_table
from .tasks import solve_instance

__all__ = ["compare", "check_comparison", "default_reference"]


def default_reference() -> str:
    """The reference used when no exact solver is listed: the first available exact solver of the
    registry other than ``dpss`` (exponential enumeration), normally ``exact``.

    Raises
    ------
    ValueError
        No exact solver is available here.
    """
    from ..solvers import solver_info

    for info in solver_info():
        if info.exact and info.available and info.name != "dpss":
            return info.name
    raise ValueError("no exact solver is available for the ratios' reference; pass --reference NAME")


def check_comparison(solvers: Sequence[str], n: Sequence[int], alpha: Sequence[float], instances: int,
                     reference: str | None = None) -> tuple[list[str], str]:
    """Validate a comparison's inputs and choose the reference.

    Parameters
    ----------
    solvers : sequence of str
        Registry names (case-insensitive), at least one, no repeats.
    n : sequence of int
        Instance sizes, each ``>= 1``.
    alpha : sequence of float
        Thresholds in [0, 1].
    instances : int
        Instances per (n, α), ``>= 1``.
    reference : str, optional
        The denominator of the ratios.  Default: the first exact solver of ``solvers``; when none
        is exact, the first available exact solver of the registry other than the exponential
        ``dpss`` (:func:`default_reference`; normally ``exact``), so a ratio is always measured
        against an optimum.  A reference not in ``solvers`` is added to the front.

    Returns
    -------
    (list of str, str)
        Normalised solver names (reference included, first when it was added) and the reference.

    Raises
    ------
    ValueError
        Unknown or unavailable solver (naming it and listing the known ones), repeats, empty lists,
        only the reference to compare (its ratios to itself would all be 1: nothing is run),
        no exact solver available for the default reference, ``n < 1``, α outside [0, 1],
        ``instances < 1``.
    ImportError
        matplotlib (for the figure) is not installed; the message names the ``pip install``.
    """
    require("matplotlib", extra="experiments", feature="subsel compare (its figure)")
    names = [str(s).strip().lower() for s in solvers]
    if not names or any(not s for s in names):
        raise ValueError("solvers: give at least one solver name, e.g. 'gss,dpss'")
    for i, s in enumerate(names):
        if names.index(s) != i:
            raise ValueError(f"solvers: {s!r} is listed twice")
    if reference is not None:
        reference = str(reference).strip().lower()
        if reference not in names:
            names.insert(0, reference)
    for s in names:
        if s not in SOLVERS:
            raise ValueError(f"unknown solver {s!r}; known solvers: {', '.join(SOLVERS)}")
        get_solver(s)  # unavailable here -> ValueError saying why
    if reference is None:
        exact = [s for s in names if type(get_solver(s)).exact]
        reference = exact[0] if exact else default_reference()
        if reference not in names:
            names.insert(0, reference)
    if len(names) < 2:
        raise ValueError(f"solvers: only the reference {reference!r} is listed; its ratios to itself "
                         "would all be 1. List at least one more solver (e.g. "
                         f"'{reference},{'exact' if reference == 'gss' else 'gss'}')")
    if not list(n):
        raise ValueError("n: give at least one instance size")
    for i, v in enumerate(n):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"n[{i}] must be a positive integer; got {v!r}")
    if not list(alpha):
        raise ValueError("alpha: give at least one threshold")
    for i, a in enumerate(alpha):
        if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a) or not 0 <= a <= 1:
            raise ValueError(f"alpha[{i}] must be in [0, 1]; got {a!r}")
    if isinstance(instances, bool) or not isinstance(instances, int) or instances < 1:
        raise ValueError(f"instances must be a positive integer; got {instances!r}")
    return names, reference


def compare(solvers: Sequence[str], n: Sequence[int], alpha: Sequence[float], instances: int, *,
            out_dir: str | Path, reference: str | None = None, seed: int = 0,
            time_limit_s: float | None = None, table_format: str = "csv", jobs: int = 1,
            scheduler: str | None = None, progress: bool | None = None, resume: bool = True,
            log: Callable[[str], None] | None = None, log_every: float | None = None,
            keep_checkpoint: bool = True) -> list[Path]:
    """Compare solvers on random instances and write table, ratios, summary, figure and markdown.

    Parameters
    ----------
    solvers, n, alpha, instances, reference
        See :func:`check_comparison`.
    out_dir : path
        Folder for ``compare.csv`` (or ``.parquet``; the tidy table: ``n, alpha, instance, seed,
        solver, status, objective, avg_quality, wall_time_s, backend_time_s, overhead_time_s,
        bound, units, error``), ``compare_ratios.csv`` (per instance and non-reference solver:
        ``ratio``, ``ratio_status``, ``time_ratio`` of backend times), ``compare_summary.csv``,
        ``compare.png`` and ``compare.md``.
    seed : int
        Root seed; instance ``(n, α, i)`` gets the same seed in every comparison with this root.
    time_limit_s : float, optional
        Per-solve limit handed to every solver.
    table_format : {"csv", "parquet"}
        Format of the tidy table.
    jobs, scheduler, progress, resume, log, log_every, keep_checkpoint
        As in :func:`subsel.experiments.run_grid`.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    ValueError
        Invalid inputs (see :func:`check_comparison`), unknown ``table_format``.
    """
    names, reference = check_comparison(solvers, n, alpha, instances, reference)
    if table_format not in ("csv", "parquet"):
        raise ValueError(f"table_format must be 'csv' or 'parquet'; got {table_format!r}")
    out = Path(out_dir)
    tasks = grid(seed, {"n": list(n), "alpha": [float(a) for a in alpha], "instance": range(instances)},
                 fixed={"solvers": names, "time_limit_s": time_limit_s})
    start = time.perf_counter()
    table = run_grid(tasks, solve_instance, out / f"compare.{table_format}", jobs=jobs,
                     scheduler=scheduler, progress=progress, resume=resume, desc="compare", log=log,
                     log_every=log_every, keep_checkpoint=keep_checkpoint)
    elapsed = time.perf_counter() - start

    files = [out / f"compare.{table_format}"]
    ratios = add_ratios(table, reference)  # check_comparison guarantees a solver besides the reference
    summary = summarize(ratios, by=("n", "alpha", "solver"))
    timing = [c for c in ("wall_time_s", "backend_time_s", "overhead_time_s") if c in table]
    times = (table.groupby(["n", "alpha", "solver"], sort=True)[timing].median()
             .rename(columns={c: f"median_{c}" for c in timing}).reset_index())
    status = (table.groupby(["solver", "status"]).size().unstack(fill_value=0))
    files.append(write_table(ratios, out / "compare_ratios.csv"))
    files.append(write_table(summary, out / "compare_summary.csv"))
    files.append(plot_comparison(summary, times, out / "compare.png", reference=reference))

    lines = [f"# Solver comparison: {', '.join(names)} (reference {reference})", "",
             f"Command: `subsel compare --solvers {','.join(names)} --n {','.join(map(str, n))} "
             f"--alpha {','.join(f'{a:g}' for a in alpha)} --instances {instances} --reference {reference} "
             f"--seed {seed}`.",
             f"{len(tasks)} random instances (q, c ~ U[0, 1], R = 1), every solver on every instance; "
             f"the task grid took {elapsed:.1f} s (the `subsel compare` line's time also counts the "
             "ratios, figure and this file).", ""]
    if reference not in {str(x).strip().lower() for x in solvers}:
        lines += [f"Reference `{reference}` was added automatically: none of the listed solvers is "
                  "exact (pass `--reference NAME` to choose another).", ""]
    titles = {"wall_time_s": "Median wall time per solve [s]",
              "backend_time_s": "Median backend time per solve [s] (the solver's own time)",
              "overhead_time_s": "Median subsel overhead per solve [s] (scaling, verification, "
                                 "cross-check with `exact`, repair, answer check)"}
    for c in timing:
        lines += [f"## {titles[c]}", "",
                  to_markdown(times.pivot_table(index=["n", "alpha"], columns="solver",
                                                values=f"median_{c}").reset_index(), ".3g")]
    lines += ["Statuses: " + "; ".join(f"{s}: " + ", ".join(f"{k} {int(v)}" for k, v in row.items() if v)
                                       for s, row in status.iterrows()) + ".", ""]
    if len(summary):
        cols = ["n", "alpha", "solver", "instances", "defined", "zero_reference", "reference_failed",
                "solver_failed", "mean_ratio", "median_ratio", "min_ratio", "share_at_1",
                "median_time_ratio"]
        cols += [c for c in ("median_backend_time_s", "median_overhead_time_s") if c in summary]
        zero = int(summary.groupby(["n", "alpha"])["zero_reference"].max().sum())
        lines += [f"## Utility ratio z / z_{reference} and time ratio t / t_{reference}", "",
                  *(["t is each solver's backend time (`backend_time_s`), subsel's overhead left out.", ""]
                    if "backend_time_s" in table else []),
                  to_markdown(summary[cols]),
                  f"**Undefined ratios.** {zero} of {len(tasks)} instances have z_{reference} = 0: their "
                  "ratios are undefined, excluded from means and medians and counted in `zero_reference` "
                  "(never called 1.0). `reference_failed` / `solver_failed` count solves without a "
                  "feasible answer."]
    files.append(out / "compare.md")
    atomic_write_text(files[-1], "\n".join(lines) + "\n")
    return files
