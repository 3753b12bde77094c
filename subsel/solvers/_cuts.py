"""No-good cuts on a MILP's linear form: every selection but the excluded ones.

Balas and Jeroslow, "Canonical cuts on the unit hypercube", SIAM Journal on Applied Mathematics
23(1), 1972: for a 0-1 point ``d*`` the cut ``sum_{d* = 1} (1 - d) + sum_{d* = 0} d >= 1`` removes
``d*`` and no other 0-1 point.  A selection of agents with several units is made a 0-1 point by
writing each unit count in binary digits (unique), so the cut removes exactly one unit vector.
Used by :meth:`subsel.solvers.Solver.solve_excluding` (the next-best selections) and by the MILP
pipeline's last decision at the feasibility rule's bound.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..models import LinearForm, LinearRow
from .base import MAX_CUT_RANGE


def excluding(form: LinearForm, excluded: np.ndarray) -> tuple[LinearForm, Callable[[np.ndarray], np.ndarray]]:
    """``form`` without the selections ``excluded`` (shape (m, n_agents)), by no-good cuts.

    A 0-1 variable enters a cut itself; an agent whose units range over ``lower..upper`` with
    ``upper - lower > 1`` is written in binary digits, ``x_i = lower_i + sum_b 2^b z_ib`` (one
    equation per agent, ``z_ib`` new 0-1 variables: the digits of a unit count are unique).  The
    canonical cut of each excluded selection on the digits, ``sum_{d* = 1} (1 - d) + sum_{d* = 0} d
    >= 1`` (Balas and Jeroslow, "Canonical cuts on the unit hypercube", SIAM J. Appl. Math. 23(1),
    1972), then removes that selection and nothing else.  Agents fixed by their bounds take no part,
    and a selection outside the bounds (no solution of the form) gets no cut.  Integer data: no
    scaling or tolerance.

    Returns
    -------
    (LinearForm, callable)
        The form (the digits after every variable of ``form``) and a function giving the full
        vector of values (digits included) of the agents' units ``x``, for a warm start.

    Raises
    ------
    ValueError
        An agent's range wider than :data:`MAX_CUT_RANGE` units (naming it).
    """
    na = form.n_agents
    lo = np.rint(form.lower[:na]).astype(np.int64)
    width = np.rint(form.upper[:na]).astype(np.int64) - lo
    wide = np.flatnonzero(width > MAX_CUT_RANGE)
    if wide.size:
        i = int(wide[0])
        raise ValueError(f"no-good cuts need unit ranges of at most {MAX_CUT_RANGE}; agent {i} may take "
                         f"{int(width[i])} units")
    bits = np.where(width > 1, np.array([int(w).bit_length() for w in width.tolist()], dtype=np.int64), 0)
    owner = np.repeat(np.arange(na), bits)
    power = np.concatenate([2.0 ** np.arange(b) for b in bits.tolist()]) if owner.size else np.zeros(0)
    first = form.n
    extra = int(bits.sum())
    # dense rows get zero coefficients for the digits
    rows = [row if row.index is not None else replace(row, coef=np.r_[row.coef, np.zeros(extra)])
            for row in form.rows]
    col = first
    for i in np.flatnonzero(bits).tolist():
        b = int(bits[i])
        idx = np.r_[i, np.arange(col, col + b)]
        rows.append(LinearRow(f"digits_{i}", np.r_[1.0, -(2.0 ** np.arange(b))], float(lo[i]), float(lo[i]), idx))
        col += b
    binary = np.flatnonzero((width == 1))

    def digits(x: np.ndarray) -> np.ndarray:
        """The cut's 0-1 values of a selection: the binary agents' units, then the digits."""
        x = np.asarray(x, dtype=np.int64)
        d = ((x[owner] - lo[owner]) // power.astype(np.int64)) % 2 if owner.size else np.zeros(0, dtype=np.int64)
        return np.r_[x[binary] - lo[binary], d]

    index = np.r_[binary, np.arange(first, col)].astype(np.int64)
    ex = np.asarray(excluded, dtype=np.int64).reshape(-1, na)
    # A selection outside the bounds is no solution of the form anyway, and its digits would be
    # wrong (negative or beyond the range): no cut for it.
    ex = ex[((ex >= lo) & (ex <= lo + width)).all(axis=1)]
    for j, x in enumerate(ex):
        d = digits(x)
        # sum (1 - 2 d*) v >= 1 - sum d*, on v = x_i - lo_i (binary agents) and the digits
        shift = float(np.sum((1 - 2 * d[:binary.size]) * lo[binary]))
        rows.append(LinearRow(f"no_good_{j}", (1 - 2 * d).astype(float), float(1 - int(d.sum())) + shift, np.inf,
                              index))
    out = LinearForm(np.r_[form.objective, np.zeros(extra)], np.r_[form.lower, np.zeros(extra)],
                     np.r_[form.upper, np.ones(extra)], tuple(rows), form.aux_of, form.aux_lot)

    def start(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.int64)
        d = ((x[owner] - lo[owner]) // power.astype(np.int64)) % 2 if owner.size else np.zeros(0)
        return np.r_[form.full(x), d.astype(float)]

    return out, start


def excluding_agents(form: LinearForm, used: np.ndarray) -> LinearForm:
    """``form`` without the selections whose set of used agents is a row of ``used``, by no-good cuts
    on the used indicators.

    Each agent that may be used or not gets a binary "used" variable ``u_i = [x_i > 0]``: the
    planner's own where the form has one, else a new one linked by ``x_i - ub_i u_i <= 0`` and
    ``x_i - u_i >= 0``.  The canonical cut of Balas and Jeroslow ("Canonical cuts on the unit
    hypercube", SIAM J. Appl. Math. 23(1), 1972) of a set ``S``,
    ``sum_{i in S} (1 - u_i) + sum_{i not in S} u_i >= 1``, removes every selection that uses
    exactly the agents of ``S`` and nothing else.  Agents fixed by their bounds (never used, or
    always used) are constants; a set they contradict is no solution of the form and gets no cut.
    The new variables are appended as auxiliary "used" variables of the form, so
    :meth:`~subsel.models.LinearForm.full` gives their values.  Integer data: no scaling.

    Parameters
    ----------
    form : LinearForm
    used : ndarray of bool or 0/1, shape (m, n_agents)

    Returns
    -------
    LinearForm
    """
    na = form.n_agents
    lower = np.rint(form.lower[:na]).astype(np.int64)
    upper = np.rint(form.upper[:na]).astype(np.int64)
    free = (lower == 0) & (upper > 0)
    var = np.full(na, -1, dtype=np.int64)
    for j, (i, lot) in enumerate(zip(form.aux_of.tolist(), form.aux_lot.tolist())):
        if lot == 0:
            var[i] = na + j
    new = np.flatnonzero(free & (var < 0))
    var[new] = form.n + np.arange(new.size)
    rows = [row if row.index is not None else replace(row, coef=np.r_[row.coef, np.zeros(new.size)])
            for row in form.rows]
    for i, v in zip(new.tolist(), var[new].tolist()):
        idx = np.array([i, v], dtype=np.int64)
        rows.append(LinearRow(f"agent_used_max_{i}", np.array([1.0, -float(upper[i])]), -np.inf, 0.0, idx))
        rows.append(LinearRow(f"agent_used_min_{i}", np.array([1.0, -1.0]), 0.0, np.inf, idx))
    sets = np.asarray(used, dtype=bool).reshape(-1, na)
    always = lower > 0
    cols = np.flatnonzero(free)
    for j, s in enumerate(sets):
        if (s[~free] != always[~free]).any():
            continue  # the bounds already exclude this set
        if not cols.size:  # every agent fixed, and the one set there is excluded: no selection left
            rows.append(LinearRow(f"no_good_agents_{j}", np.zeros(1), 1.0, np.inf, np.zeros(1, dtype=np.int64)))
            continue
        d = s[cols]
        # sum_{d=1} (1 - u) + sum_{d=0} u >= 1  <=>  sum (1 - 2 d) u >= 1 - sum d
        rows.append(LinearRow(f"no_good_agents_{j}", (1 - 2 * d.astype(np.int64)).astype(float),
                              float(1 - int(d.sum())), np.inf, var[cols].astype(np.int64)))
    return LinearForm(np.r_[form.objective, np.zeros(new.size)], np.r_[form.lower, np.zeros(new.size)],
                      np.r_[form.upper, np.ones(new.size)], tuple(rows), np.r_[form.aux_of, new].astype(np.int64),
                      np.r_[form.aux_lot, np.zeros(new.size)])
