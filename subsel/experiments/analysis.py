"""Ratio bookkeeping of solver comparisons: utility ratios, time ratios, undefined cases counted.

The paper (Deva et al., Section 6.1) reports ``z_gss / z_dpss`` and ``z_gss / z_ilp`` and the time
ratios ``t_dpss : t_gss`` and ``t_ilp : t_gss``.  A ratio to a reference whose utility is 0 is
undefined: such instances are flagged ``zero_reference`` and counted, never dropped silently and never
called 1.0.  Means and medians are taken over the defined ratios only, and every summary row says how
many instances it excluded and why.

Times: a table may carry, next to ``wall_time_s`` (the whole ``solve`` call), the backend's own time
``backend_time_s`` and subsel's overhead ``overhead_time_s`` (scaling, verification, the cross-check
with ``exact``, repair; see :attr:`subsel.solvers.Solution.backend_time_s`).  Time ratios then
compare backend times, so that ``t_cbc`` is CBC's time, not CBC's plus subsel's checks.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["ZERO_TOL", "RATIO_STATUSES", "add_ratios", "summarize", "to_markdown"]

#: ``|z_ref| <= ZERO_TOL`` counts as a zero optimum (utilities are sums of ``R q_i - c_i``, O(1) each).
ZERO_TOL = 1e-12

#: Why a ratio is or is not defined, in the order of precedence.
RATIO_STATUSES = ("ok", "reference_failed", "solver_failed", "zero_reference", "negative_reference")

_FEASIBLE = {"optimal", "feasible", "time_limit"}
_INSTANCE_KEYS = ("n", "alpha", "instance", "seed")


def add_ratios(table: pd.DataFrame, reference: str, *, keys: Sequence[str] = _INSTANCE_KEYS
               ) -> pd.DataFrame:
    """Pair every solver's row with the reference solver's row of the same instance.

    Parameters
    ----------
    table : pandas.DataFrame
        Tidy rows with ``keys`` plus ``solver, status, objective, wall_time_s`` and optionally
        ``backend_time_s, overhead_time_s`` (as written by
        :func:`subsel.experiments.tasks.solve_instance`).
    reference : str
        Solver name whose utility (and time) is the denominator.
    keys : sequence of str
        Columns identifying an instance.

    Returns
    -------
    pandas.DataFrame
        One row per (instance, solver other than the reference): ``keys``, ``solver, status,
        objective, wall_time_s[, backend_time_s, overhead_time_s], reference, reference_status,
        reference_objective, reference_wall_time_s[, reference_backend_time_s,
        reference_overhead_time_s], ratio, ratio_status, time_ratio``.  ``ratio = objective /
        reference_objective`` when ``ratio_status == "ok"``, NaN otherwise; ``ratio_status`` is the
        first of :data:`RATIO_STATUSES` that applies: the reference has no feasible answer; the solver
        has none; ``|reference_objective| <= ZERO_TOL``; a negative reference.  ``time_ratio =
        backend_time_s / reference_backend_time_s`` (the solvers' own times, subsel's overhead
        left out; ``wall_time_s / reference_wall_time_s`` for a table without backend times)
        whenever both times are positive and finite.

    Raises
    ------
    ValueError
        A needed column is missing, the reference solver has no rows, or an instance has two rows of
        the same solver.

    Examples
    --------
    >>> t = pd.DataFrame({"instance": [0, 0, 1, 1], "solver": ["ref", "g"] * 2,
    ...                   "status": ["optimal", "feasible"] * 2, "objective": [2.0, 1.0, 0.0, 0.0],
    ...                   "wall_time_s": [1.0, 0.5, 1.0, 0.5]})
    >>> r = add_ratios(t, "ref", keys=["instance"])
    >>> r["ratio"].tolist()[0], r["ratio_status"].tolist()
    (0.5, ['ok', 'zero_reference'])
    """
    keys = list(keys)
    need = keys + ["solver", "status", "objective", "wall_time_s"]
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise ValueError(f"comparison table lacks column(s) {', '.join(missing)}")
    if not (table["solver"] == reference).any():
        raise ValueError(f"reference solver {reference!r} has no rows; solvers in the table: "
                         f"{', '.join(map(str, pd.unique(table['solver'])))}")
    dup = table.duplicated(keys + ["solver"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise ValueError(f"row {i}: instance {table.iloc[i][keys].to_dict()} has two rows of solver "
                         f"{table.iloc[i]['solver']!r}")
    split = {"backend_time_s", "overhead_time_s"} <= set(table.columns)
    cols = ["status", "objective", "wall_time_s"] + (["backend_time_s", "overhead_time_s"] if split else [])
    ref = table.loc[table["solver"] == reference, keys + cols].rename(
        columns={c: f"reference_{c}" for c in cols})
    other = table.loc[table["solver"] != reference, keys + ["solver"] + cols]
    out = other.merge(ref, on=keys, how="left", validate="many_to_one")
    out.insert(len(keys) + 1 + len(cols), "reference", reference)

    z, z_ref = out["objective"].to_numpy(float), out["reference_objective"].to_numpy(float)
    ref_ok = out["reference_status"].isin(_FEASIBLE).to_numpy() & np.isfinite(z_ref)
    sol_ok = out["status"].isin(_FEASIBLE).to_numpy() & np.isfinite(z)
    status = np.select(
        [~ref_ok, ~sol_ok, np.abs(z_ref) <= ZERO_TOL, z_ref < 0],
        ["reference_failed", "solver_failed", "zero_reference", "negative_reference"], default="ok")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(status == "ok", z / np.where(status == "ok", z_ref, 1.0), np.nan)
        tcol = "backend_time_s" if split else "wall_time_s"
        t, t_ref = out[tcol].to_numpy(float), out[f"reference_{tcol}"].to_numpy(float)
        good_t = np.isfinite(t) & np.isfinite(t_ref) & (t > 0) & (t_ref > 0)
        time_ratio = np.where(good_t, t / np.where(good_t, t_ref, 1.0), np.nan)
    out["ratio"] = ratio
    out["ratio_status"] = status
    out["time_ratio"] = time_ratio
    return out.reset_index(drop=True)


def summarize(ratios: pd.DataFrame, by: Sequence[str] = ("n", "alpha", "solver")) -> pd.DataFrame:
    """Aggregate :func:`add_ratios` output per group, counting every undefined ratio.

    Parameters
    ----------
    ratios : pandas.DataFrame
        Output of :func:`add_ratios`.
    by : sequence of str
        Grouping columns.

    Returns
    -------
    pandas.DataFrame
        Per group: ``instances`` (all), ``defined`` (ratio_status ok), one count column per undefined
        cause (``zero_reference, reference_failed, solver_failed, negative_reference``),
        ``reference_not_optimal`` (reference feasible but not proven optimal), ``mean_ratio,
        median_ratio, min_ratio, share_at_1`` (share of defined ratios >= 1 - 1e-9; NaN when none
        is defined), ``negative_ratio`` (defined ratios below 0: the solver lost money where the
        reference did not — GSS can, when rounding an S2 fraction up), ``median_time_ratio,
        mean_time_ratio, median_wall_time_s, median_reference_wall_time_s``, and when the ratios
        carry backend times ``median_backend_time_s, median_overhead_time_s,
        median_reference_backend_time_s``.
    """
    by = list(by)

    def agg(g: pd.DataFrame) -> pd.Series:
        ok = g["ratio_status"] == "ok"
        r = g.loc[ok, "ratio"]
        split = {} if "backend_time_s" not in g else {
            "median_backend_time_s": float(g["backend_time_s"].median()),
            "median_overhead_time_s": float(g["overhead_time_s"].median()),
            "median_reference_backend_time_s": float(g["reference_backend_time_s"].median()),
        }
        return pd.Series({
            "instances": len(g),
            "defined": int(ok.sum()),
            "zero_reference": int((g["ratio_status"] == "zero_reference").sum()),
            "reference_failed": int((g["ratio_status"] == "reference_failed").sum()),
            "solver_failed": int((g["ratio_status"] == "solver_failed").sum()),
            "negative_reference": int((g["ratio_status"] == "negative_reference").sum()),
            "reference_not_optimal": int(g["reference_status"].isin({"feasible", "time_limit"}).sum()),
            "mean_ratio": float(r.mean()) if len(r) else np.nan,
            "median_ratio": float(r.median()) if len(r) else np.nan,
            "min_ratio": float(r.min()) if len(r) else np.nan,
            "share_at_1": float((r >= 1 - 1e-9).mean()) if len(r) else np.nan,
            "negative_ratio": int((r < 0).sum()),
            "median_time_ratio": float(g["time_ratio"].median()),
            "mean_time_ratio": float(g["time_ratio"].mean()),
            "median_wall_time_s": float(g["wall_time_s"].median()),
            "median_reference_wall_time_s": float(g["reference_wall_time_s"].median()),
        } | split)

    rows = [dict(zip(by, key if isinstance(key, tuple) else (key,))) | agg(g).to_dict()
            for key, g in ratios.groupby(by, sort=True)]
    out = pd.DataFrame(rows)
    for c in ("instances", "defined", "zero_reference", "reference_failed", "solver_failed",
              "negative_reference", "reference_not_optimal", "negative_ratio"):
        if c in out:
            out[c] = out[c].astype(int)
    return out


def to_markdown(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """A GitHub-markdown table of ``df`` (no extra dependency); NaN shows as an em dash."""
    def cell(v) -> str:
        if isinstance(v, (float, np.floating)):
            return "—" if np.isnan(v) else format(float(v), floatfmt)
        return str(v)

    header = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body]) + "\n"
