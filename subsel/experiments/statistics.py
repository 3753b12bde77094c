"""Statistics of the EMSCO experiments: margins of error over runs and non-dominance of methods.

Hamilton & Fulp, *Budgeted Classification with Rejection: An Evolutionary Method with Multiple
Objectives* (IEEE CEC 2022), §V-B: Table II reports mean test objectives over independent EA runs,
Table III their 95% margins of error; a method is judged by whether another one Pareto-dominates
it in coverage ``g1``, accuracy ``g2`` (maximised) and mean cost ``g3*`` (minimised).  Pure
functions of tidy tables, tested on hand-made numbers.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["margin_of_error", "nondominated_methods", "summarize_methods"]


def margin_of_error(values, confidence: float = 0.95) -> float:
    """Half-width of the t-distribution confidence interval of the mean: ``t_{(1+c)/2, n-1} s / sqrt(n)``.

    Parameters
    ----------
    values : array-like of float, shape (n,)
        Independent measurements (NaN entries are dropped).
    confidence : float, default 0.95
        In (0, 1).

    Returns
    -------
    float
        NaN when fewer than two values (a single or deterministic measurement has no margin).

    Raises
    ------
    ValueError
        ``confidence`` outside (0, 1).

    Examples
    --------
    >>> round(margin_of_error([1.0, 2.0, 3.0]), 4)   # t_{0.975, 2} = 4.3027, s = 1
    2.4841
    """
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if v.size < 2:
        return float("nan")
    return float(stats.t.ppf(0.5 + confidence / 2, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size))


def nondominated_methods(summary: pd.DataFrame, by: str = "dataset") -> pd.Series:
    """Which rows are non-dominated within their group on mean ``(g1, g2, g3*)``.

    ``g1`` (coverage) and ``g2`` (accuracy) are maximised, ``g3*`` (mean cost) minimised (Hamilton
    and Fulp 2022, Section III).
    Row ``u`` dominates row ``v`` when it is at least as good in all three and better in one.

    Parameters
    ----------
    summary : pandas.DataFrame
        Columns ``by``, ``g1``, ``g2``, ``g3*`` (means).
    by : str
        Grouping column (rows are compared only within a group).

    Returns
    -------
    pandas.Series of bool
        Indexed like ``summary``.
    """
    from ..evolution import nondominated_sort

    out = pd.Series(False, index=summary.index)
    for _, g in summary.groupby(by, sort=False):
        F = np.column_stack([g["g1"], g["g2"], -g["g3*"]]).astype(float)
        out.loc[g.index] = nondominated_sort(F) == 0
    return out


def summarize_methods(table: pd.DataFrame, by=("dataset", "method"), confidence: float = 0.95
                      ) -> pd.DataFrame:
    """Mean test ``g1, g2, g3*`` with t-based margins of error per group, plus non-dominance.

    Parameters
    ----------
    table : pandas.DataFrame
        Tidy rows with ``by`` columns and ``g1, g2, g3*``, optional ``wall_time_s``.
    by : sequence of str
    confidence : float

    Returns
    -------
    pandas.DataFrame
        ``by``, ``runs``, ``g1, g2, g3*`` (means), ``moe_g1, moe_g2, moe_g3*`` (NaN for a single
        run), ``mean_wall_time_s`` and — when ``by`` starts with ``dataset`` and has ``method`` —
        ``non_dominated``.
    """
    by = list(by)
    rows = []
    for key, g in table.groupby(by, sort=False):
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row["runs"] = int(len(g))
        for c in ("g1", "g2", "g3*"):
            row[c] = float(g[c].mean())
        for c in ("g1", "g2", "g3*"):
            row[f"moe_{c}"] = margin_of_error(g[c], confidence)
        if "wall_time_s" in g:
            row["mean_wall_time_s"] = float(g["wall_time_s"].mean())
        rows.append(row)
    out = pd.DataFrame(rows)
    if by[:1] == ["dataset"] and "method" in by and len(out):
        out["non_dominated"] = nondominated_methods(out, "dataset")
    return out
