"""Which design of EMSCO's Pareto front is reported: the ``select`` rules.

Hamilton & Fulp, *Budgeted Classification with Rejection: An Evolutionary Method with Multiple
Objectives* (IEEE CEC 2022), §IV: the search ends with a front of trade-offs between coverage
``g1``, accuracy on accepted inputs ``g2`` and mean acquisition cost ``g3*``; the paper reports the
highest-fitness design (Eq. 12).  The other rules pick another member of the same front, judged on
the validation split, without refitting anything.
"""
from __future__ import annotations

import numpy as np

__all__ = ["SELECT_RULES", "check_select", "choose_budgeted", "select_design"]

#: The rules and what each one picks (ties are broken in the order given, then by fitness order).
SELECT_RULES = {
    "fitness": "highest fitness gamma**rank * ||g||_2 (paper Eq. 12); ties: fewer stages",
    "accuracy": "highest validation accuracy g2; ties: higher coverage g1, then lower cost g3*",
    "coverage": "highest validation coverage g1; ties: higher accuracy g2, then lower cost g3*",
    "cost": "lowest validation mean cost g3*; ties: higher accuracy g2, then higher coverage g1",
    "knee": "closest (Euclidean) to the ideal point after scaling g1, g2 and g3* to [0, 1] over the "
            "front (1 = the front's best value, 0 = its worst)",
}


def check_select(select) -> str:
    """Normalise and check a ``select`` rule name.

    Parameters
    ----------
    select : str
        One of :data:`SELECT_RULES` (case and surrounding spaces ignored).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        Not a known rule (the message lists them).
    """
    name = str(select).strip().lower() if isinstance(select, str) else None
    if name not in SELECT_RULES:
        raise ValueError(f"select must be one of {', '.join(SELECT_RULES)}; got {select!r}")
    return name


def select_design(g1, g2, g3_star, select: str = "fitness") -> int:
    """Position of the design picked by ``select`` among front members listed best fitness first.

    Parameters
    ----------
    g1, g2, g3_star : array-like of float, shape (n_designs,)
        Validation coverage, accuracy on accepted inputs and mean cost per input of each front
        member, in fitness order (position 0 = highest fitness, ties already broken by fewer
        stages), as in ``EMSCOClassifier.pareto_front_``.
    select : str, default "fitness"
        A rule of :data:`SELECT_RULES`.

    Returns
    -------
    int
        Position in ``0..n_designs-1``; the lowest position wins remaining ties.

    Raises
    ------
    ValueError
        Unknown rule, no designs, or arrays of different lengths.

    Examples
    --------
    >>> select_design([0.9, 0.5, 0.7], [0.80, 0.95, 0.90], [10.0, 30.0, 12.0], "accuracy")
    1
    >>> select_design([0.9, 0.5, 0.7], [0.80, 0.95, 0.90], [10.0, 30.0, 12.0], "knee")
    2
    """
    rule = check_select(select)
    g1, g2, g3 = (np.asarray(v, dtype=float).ravel() for v in (g1, g2, g3_star))
    if not g1.size:
        raise ValueError("no designs to select from (empty front)")
    if not g1.size == g2.size == g3.size:
        raise ValueError(f"g1, g2 and g3* must have the same length; got {g1.size}, {g2.size}, "
                         f"{g3.size}")
    order = np.arange(g1.size)
    if rule == "fitness":
        return 0
    if rule == "accuracy":
        keys = (order, g3, -g1, -g2)
    elif rule == "coverage":
        keys = (order, g3, -g2, -g1)
    elif rule == "cost":
        keys = (order, -g1, -g2, g3)
    else:
        scaled = []
        for v, maximise in ((g1, True), (g2, True), (g3, False)):
            lo, hi = v.min(), v.max()
            s = np.ones_like(v) if hi - lo <= 0 else (v - lo) / (hi - lo)
            scaled.append(s if maximise else 1.0 - s)
        distance = np.sqrt(sum((1.0 - s) ** 2 for s in scaled))
        keys = (order, distance)
    return int(np.lexsort(keys)[0])


def choose_budgeted(val_accuracy, cost, knob) -> int:
    """The design of a budgeted baseline's sweep that the experiments report.

    Highest validation accuracy; ties: lower feature cost, then the larger trade-off ``knob`` (the
    more cost-averse design).  The choice of a non-selective classifier that the protocol of
    Hamilton & Fulp (IEEE CEC 2022, §V-B), which compares test accuracy at each method's own cost,
    would report; used for GreedyMiser's trade-off and CSTC's λ alike.

    Parameters
    ----------
    val_accuracy, cost, knob : array-like of float, shape (n_designs,)

    Returns
    -------
    int
        Position of the chosen design.

    Raises
    ------
    ValueError
        No designs, or arrays of different lengths.

    Examples
    --------
    >>> choose_budgeted([0.8, 0.9, 0.9], [5.0, 9.0, 9.0], [0.0, 1.0, 3.0])
    2
    """
    acc, c, k = (np.asarray(v, dtype=float).ravel() for v in (val_accuracy, cost, knob))
    if not acc.size:
        raise ValueError("no designs to choose from")
    if not acc.size == c.size == k.size:
        raise ValueError(f"val_accuracy, cost and knob must have the same length; got {acc.size}, "
                         f"{c.size}, {k.size}")
    return int(np.lexsort((-k, c, -acc))[0])
