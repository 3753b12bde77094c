"""Qualities known from inspections: lower confidence bounds that make a plan's quality a guarantee.

A planner rarely knows ``q_i``; it knows that ``g_i`` of ``m_i`` inspected units of agent ``i`` were
good.  :meth:`SubsetSelectionProblem.from_counts` builds the problem of Deva, Abhishek, Gujar (AAMAS
2021, Section 3) whose objective uses the estimates ``g_i / m_i`` and whose quality constraint uses
per-agent lower confidence bounds ``l_i``, as the cautious side of SS-UCB does (Section 4): with
probability at least ``confidence`` over the inspections, ``q_i >= l_i`` for **every** agent at once.

**Why the plan's quality is then guaranteed.**  Each bound is one-sided at level ``delta / n``
(``delta = 1 - confidence``); by the union bound the event ``E = {q_i >= l_i for all i}`` has
probability at least ``1 - delta``.  On ``E``, every selection ``x >= 0`` that meets the constraint
on the bounds, ``sum_i (l_i - alpha) x_i >= 0``, meets it on the true qualities too:
``sum_i (q_i - alpha) x_i >= sum_i (l_i - alpha) x_i >= 0``.  This holds for *every* selection at
once, so it holds for the plan a solver picks from the same data (the plan depends on the
inspections; a confidence bound on the average of one fixed plan would not cover a plan chosen
after looking at them).  The union bound over agents is the price of that: each bound is taken at
``delta / n`` rather than ``delta``.  (The feasibility rule's tolerance of 1e-9 on the left side
carries over: the true average is at least ``alpha - 1e-9 / units``.)

**The two bounds.**

* ``"hoeffding"``: ``l_i = g_i / m_i - sqrt(ln(n / delta) / (2 m_i))`` (Hoeffding's inequality,
  the bound of Deva et al., Section 4, Lemma 1), clipped at 0;
* ``"clopper-pearson"`` (the default): the exact one-sided binomial bound of Clopper and Pearson
  (*Biometrika* 26(4), 1934), the ``delta / n`` quantile of ``Beta(g_i, m_i - g_i + 1)`` (0 when
  ``g_i = 0``), lowered by ``1e-12`` relative to absorb the rounding of the quantile.  Never looser
  than Hoeffding's for these counts, much tighter when ``g_i / m_i`` is near 1.

What the guarantee costs is the utility of the plan against the plan made with the true qualities:
the bounds exclude agents whose estimate is above ``alpha`` but whose bound is not.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._files import InputError
from .._validation import as_float_array
from .._validation import check_scalar as _check_scalar
from ._rules import MAX_EXACT_INT

__all__ = ["BOUNDS", "lower_confidence_bounds"]

#: The lower confidence bounds :meth:`SubsetSelectionProblem.from_counts` offers.
BOUNDS = ("clopper-pearson", "hoeffding")


def _counts(values: Any, field: str) -> np.ndarray:
    arr = as_float_array(values, field)
    bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)) | (arr < 0))
    if bad.size:
        i = int(bad[0])
        raise InputError("must be a non-negative integer", column=field, row=i, value=float(arr[i]))
    if arr.size and arr.max() > MAX_EXACT_INT:
        i = int(np.argmax(arr))
        raise InputError(f"must be at most 2^53 = {MAX_EXACT_INT}", column=field, row=i, value=float(arr[i]))
    return arr


def lower_confidence_bounds(good: Any, inspected: Any, confidence: float = 0.95,
                            method: str = "clopper-pearson") -> tuple[np.ndarray, np.ndarray]:
    """Estimates and simultaneous lower confidence bounds of agents' qualities from inspection counts.

    Parameters
    ----------
    good : array-like of int, shape (n,)
        Good units among those inspected, ``0 <= good_i <= inspected_i``.
    inspected : array-like of int, shape (n,)
        Units inspected, ``>= 1``.
    confidence : float, default 0.95
        In (0, 1): the probability, over the inspections, that every bound holds at once.
    method : {"clopper-pearson", "hoeffding"}
        See the module's text.

    Returns
    -------
    (estimate, lower) : two ndarrays of float, shape (n,)
        ``good / inspected`` and the bounds ``l_i`` in [0, estimate].

    Raises
    ------
    ValueError
        Counts that are not non-negative integers, ``good_i > inspected_i`` or ``inspected_i = 0``
        (naming the agent and the value), arrays of different lengths, no agents, ``confidence``
        outside (0, 1), an unknown method.
    ImportError
        ``"clopper-pearson"`` where SciPy (a dependency of the core install) is missing.

    Examples
    --------
    >>> est, low = lower_confidence_bounds([48, 95], [50, 100], confidence=0.9, method="hoeffding")
    >>> est.tolist(), [round(v, 4) for v in low.tolist()]
    ([0.96, 0.95], [0.7869, 0.8276])
    """
    g = _counts(good, "good")
    m = _counts(inspected, "inspected")
    if g.size == 0:
        raise ValueError("good must hold at least one agent; got 0 agents")
    if m.size != g.size:
        raise ValueError(f"inspected has {m.size} entries but good has {g.size}; arrays must have the same length")
    zero = np.flatnonzero(m == 0)
    if zero.size:
        raise InputError("must be >= 1 (an agent never inspected has no estimate)", column="inspected",
                         row=int(zero[0]), value=0)
    over = np.flatnonzero(g > m)
    if over.size:
        i = int(over[0])
        raise InputError(f"must be at most inspected[{i}] = {int(m[i])}", column="good", row=i, value=int(g[i]))
    conf = _check_scalar(confidence, "confidence")
    if not 0.0 < conf < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {conf}")
    if method not in BOUNDS:
        raise ValueError(f"method must be one of {', '.join(map(repr, BOUNDS))}; got {method!r}")
    n = g.size
    level = (1.0 - conf) / n  # each bound one-sided at delta / n: all hold at once (union bound)
    estimate = g / m
    if method == "hoeffding":
        lower = estimate - np.sqrt(math.log(1.0 / level) / (2.0 * m))
    else:
        try:
            from scipy.special import betaincinv
        except ImportError as exc:  # pragma: no cover - scipy is in the test environment
            raise ImportError("the Clopper-Pearson bound needs SciPy (pip install scipy), or use "
                              "method='hoeffding'") from exc
        with np.errstate(invalid="ignore"):
            q = betaincinv(np.maximum(g, 1.0), m - g + 1.0, level)
        lower = np.where(g > 0, q * (1.0 - 1e-12), 0.0)
    lower = np.clip(np.minimum(lower, estimate), 0.0, 1.0)
    return estimate, lower
