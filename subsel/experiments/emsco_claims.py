"""The paper's qualitative claims about EMSCO (Hamilton and Fulp, IEEE CEC 2022, Section V-C), checked.

Pure functions of a :func:`subsel.experiments.statistics.summarize_methods` table, tested on
hand-made numbers; ``emsco-table2`` lists their outcome in its report.
"""
from __future__ import annotations

import pandas as pd

__all__ = ["check_claims"]


def _beats(a: pd.Series, b: pd.Series) -> int:
    """Number of objectives in which ``a`` is strictly better than ``b`` (g3* lower is better)."""
    return int(a["g1"] > b["g1"]) + int(a["g2"] > b["g2"]) + int(a["g3*"] < b["g3*"])


def check_claims(summary: pd.DataFrame, method: str = "emsco") -> list[dict]:
    """The paper's qualitative claims (§V-C), checked on a :func:`summarize_methods` table.

    Parameters
    ----------
    summary : pandas.DataFrame
        With ``dataset, method, g1, g2, g3*, non_dominated``.
    method : str
        The method the claims are about.

    Returns
    -------
    list of dict
        ``claim``, ``holds`` (True, False or None when it cannot be checked here) and ``detail``.
    """
    claims = []
    data = [d for d in pd.unique(summary["dataset"])]
    me = {d: summary[(summary["dataset"] == d) & (summary["method"] == method)] for d in data}
    data = [d for d in data if len(me[d])]
    nd = {d: bool(me[d]["non_dominated"].iloc[0]) for d in data}
    claims.append({
        "claim": "EMSCO is non-dominated on every data set",
        "holds": all(nd.values()) if data else None,
        "detail": ", ".join(f"{d}: {'non-dominated' if v else 'dominated by ' + _dominators(summary, d, method)}"
                            for d, v in nd.items())})
    def versus(datasets, other: str, better) -> tuple[bool | None, str]:
        ok, detail = [], []
        for d in datasets:
            o = summary[(summary["dataset"] == d) & (summary["method"] == other)]
            if d in me and len(me[d]) and len(o):
                holds, text = better(me[d].iloc[0], o.iloc[0])
                ok.append(holds)
                detail.append(f"{d}: {text}")
        return (all(ok) if ok else None), "; ".join(detail)

    holds, detail = versus(data, "gm", lambda m, o: (m["g2"] > o["g2"],
                                                     f"{m['g2']:.3f} vs {o['g2']:.3f}"))
    claims.append({"claim": "EMSCO is more accurate than GreedyMiser (GM) on every data set (paper: "
                            "than the budgeted GM and CSTC)",
                   "holds": holds, "detail": detail or "GM not run (LightGBM not installed)"})
    holds, detail = versus(data, "cstc", lambda m, o: (m["g2"] > o["g2"], f"{m['g2']:.3f} vs {o['g2']:.3f}"))
    claims.append({"claim": "EMSCO is more accurate than CSTC on every data set",
                   "holds": holds, "detail": detail or "CSTC not run"})
    detail, ok = [], []
    for d in data:
        m = me[d].iloc[0]
        for b in ("all-features", "ilp-subset"):
            other = summary[(summary["dataset"] == d) & (summary["method"] == b)]
            if len(other):
                better = m["g2"] > other["g2"].iloc[0]
                ok.append(better)
                detail.append(f"{d} vs {b}: {m['g2']:.3f} vs {other['g2'].iloc[0]:.3f}")
    claims.append({
        "claim": "(ours) EMSCO has higher accuracy than the non-selective baselines all-features (a) "
                 "and the budgeted ilp-subset (d)",
        "holds": all(ok) if ok else None, "detail": "; ".join(detail)})
    cheap = [d for d in ("pima", "synthetic15", "synthetic50") if d in data]
    holds, detail = versus(cheap, "gm", lambda m, o: (m["g3*"] < o["g3*"],
                                                      f"{m['g3*']:.4g} vs {o['g3*']:.4g}"))
    claims.append({"claim": "EMSCO has lower processing cost than GM on Pima, Synthetic15 and "
                            "Synthetic50 (paper: than GM and CSTC)",
                   "holds": holds, "detail": detail or "GM not run or none of these data sets"})
    holds, detail = versus(cheap, "cstc", lambda m, o: (m["g3*"] < o["g3*"], f"{m['g3*']:.4g} vs {o['g3*']:.4g}"))
    claims.append({"claim": "EMSCO has lower processing cost than CSTC on Pima, Synthetic15 and Synthetic50",
                   "holds": holds, "detail": detail or "CSTC not run or none of these data sets"})
    syn50 = [d for d in ("synthetic50",) if d in data]
    detail, ok = [], []
    for other in ("gm", "cstc"):
        holds, text = versus(syn50, other, lambda m, o: (_beats(o, m) == 0 and _beats(m, o) > 0,
                                                          f"{_beats(m, o)}/3 better, {_beats(o, m)}/3 worse"))
        if holds is not None:
            ok.append(holds)
            detail.append(f"vs {other} ({text})")
    claims.append({"claim": "EMSCO Pareto dominates GM and CSTC on Synthetic50",
                   "holds": all(ok) if ok else None, "detail": "; ".join(detail) or "not run on Synthetic50"})
    detail, ok = [], []
    for d in cheap:
        m = me[d].iloc[0]
        other = summary[(summary["dataset"] == d) & summary["method"].isin(("all-features",
                                                                           "all-features-reject"))]
        if len(other):
            lower = m["g3*"] < other["g3*"].min()
            ok.append(lower)
            detail.append(f"{d}: {m['g3*']:.4g} vs {other['g3*'].min():.4g}")
    claims.append({
        "claim": "(ours) EMSCO has lower processing cost than the all-features classifiers on Pima, "
                 "Synthetic15 and Synthetic50",
        "holds": all(ok) if ok else None, "detail": "; ".join(detail)})
    dear = [d for d in ("credit", "heart") if d in data]
    holds, detail = versus(dear, "gm", lambda m, o: (o["g3*"] < m["g3*"],
                                                     f"GM {o['g3*']:.4g} vs EMSCO {m['g3*']:.4g}"))
    claims.append({"claim": "GM has lower processing cost than EMSCO on Credit and Heart",
                   "holds": holds, "detail": detail or "GM not run or none of these data sets"})
    wins = {}
    for d in data:
        m = me[d].iloc[0]
        others = summary[(summary["dataset"] == d) & (summary["method"] != method)]
        wins[d] = bool(len(others)) and all(_beats(m, o) >= 2 for _, o in others.iterrows())
    claims.append({
        "claim": "EMSCO surpasses every other method in at least 2 of 3 objectives on a majority of "
                 "data sets",
        "holds": (sum(wins.values()) > len(wins) / 2) if wins else None,
        "detail": ", ".join(f"{d}: {'yes' if v else 'no'}" for d, v in wins.items())})
    detail = []
    for d in data:
        m = me[d].iloc[0]
        o = summary[(summary["dataset"] == d) & (summary["method"] == "nsga2")]
        if len(o):
            detail.append(f"{d}: EMSCO better in {_beats(m, o.iloc[0])}/3, NSGA-II better in "
                          f"{_beats(o.iloc[0], m)}/3")
    claims.append({"claim": "(ours) EMSCO against NSGA-II with the same evaluation budget",
                   "holds": None, "detail": "; ".join(detail)})
    return claims


def _dominators(summary: pd.DataFrame, dataset: str, method: str) -> str:
    g = summary[summary["dataset"] == dataset]
    m = g[g["method"] == method].iloc[0]
    dom = [o["method"] for _, o in g.iterrows()
           if o["method"] != method and o["g1"] >= m["g1"] and o["g2"] >= m["g2"]
           and o["g3*"] <= m["g3*"] and _beats(o, m) > 0]
    return ", ".join(dom) or "?"
