"""One real round at a time: a planner that keeps its bandit policy in a JSON state (Deva
et al., AAMAS 2021, Section 4: one round of SS-UCB at a time).

The planner's cycle is ``next`` (this round's order: units per agent) → procure and inspect →
``feedback`` (units received and units good per agent).  :class:`OnlinePlanner` holds the agents'
names, the policy and the pending order; every check of the feedback happens before anything
changes, so a rejected feedback leaves the planner (and a state file written from it) unchanged.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._text import counted
from ..models import MAX_EXACT_INT, CSVTable, problem_from_table
from ..solvers import Solver
from .policies import Policy, make_policy, policy_from_state

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

STATE_FORMAT = "subsel-bandit-online"
STATE_VERSION = 1


class OnlinePlanner:
    """A bandit policy for real rounds, with named agents and a pending order.

    Parameters
    ----------
    names : sequence of str, shape (n,)
        Unique agent names.
    policy : Policy
        A single-run policy (``runs=None``) over the same ``n`` agents.

    Attributes
    ----------
    pending : ndarray of int64, shape (n,) or None
        The order handed out by :meth:`next_order` and not yet answered by :meth:`feedback`.
    pending_round : int or None
        Its round number (``policy.t + 1``).

    Raises
    ------
    ValueError
        Duplicate or empty names, a batched policy, or a size mismatch.
    """

    def __init__(self, names, policy: Policy):
        names = tuple(str(s) for s in names)
        if policy.runs is not None:
            raise ValueError("an online planner needs a single-run policy (runs=None)")
        if len(names) != policy.n:
            raise ValueError(f"names has {len(names)} entries but the policy has {policy.n} agents")
        seen: dict[str, int] = {}
        for i, s in enumerate(names):
            if not s:
                raise ValueError(f"names[{i}] is empty")
            if s in seen:
                raise ValueError(f"names[{i}] duplicates names[{seen[s]}]: {s!r}")
            seen[s] = i
        self.names = names
        self.policy = policy
        self.pending: np.ndarray | None = None
        self.pending_round: int | None = None

    @classmethod
    def create(cls, agents: pd.DataFrame | CSVTable, alpha: float, epsilon: float, horizon: int,
               policy: str = "ss-ucb", oracle: Solver | str | None = None, R: float = 1.0,
               seed: int | None = None) -> "OnlinePlanner":
        """A fresh planner for agents given as a table with columns ``name, cost`` and ``capacity``.

        ``capacity`` is optional (default 1); a ``quality`` column is not expected (unknown).
        The cells are checked by the model's rules (:func:`subsel.models.problem_from_table`
        with a placeholder quality), so a bad cell is reported by its line and column (a
        :class:`~subsel.models.CSVTable` read from a file) or its 0-based row (a DataFrame).

        Parameters
        ----------
        agents : pandas.DataFrame or CSVTable
            One row per agent.

        Raises
        ------
        subsel.models.InputError
            Missing ``name`` or ``cost`` column, a ``quality`` column, bad cells.
        ValueError
            Bad settings, unknown policy.
        """
        table = agents if isinstance(agents, CSVTable) else CSVTable.from_frame(agents)
        table.require("name", "cost")
        if str(policy).strip().lower() == "known-quality":
            raise ValueError("policy 'known-quality' needs the true qualities, which an online planner "
                             "does not have; choose ss-ucb, dpss-ucb, gss-ucb, cucb, cts or cautious-ucb")
        problem = problem_from_table(table, alpha=alpha, R=R, quality=1.0)
        pol = make_policy(policy, oracle, cost=problem.cost, alpha=alpha, epsilon=epsilon,
                          horizon=horizon, R=R, capacity=problem.capacity, seed=seed)
        return cls(problem.names, pol)

    # ------------------------------------------------------------------ the cycle
    def next_order(self) -> pd.DataFrame:
        """This round's order, columns ``name, units`` (every agent, 0 units included).

        Asking again before the feedback returns the same pending order.
        """
        if self.pending is None:
            self.pending = np.asarray(self.policy.select(), dtype=np.int64)
            self.pending_round = self.policy.t + 1
        import pandas as pd

        return pd.DataFrame({"name": list(self.names), "units": self.pending.tolist()})

    def feedback(self, observations: pd.DataFrame | CSVTable) -> None:
        """Record the pending round's outcome; on any error nothing changes.

        Parameters
        ----------
        observations : pandas.DataFrame or CSVTable
            Columns ``name, received, good`` (units received and good units per agent); rows for
            agents ordered 0 units may be left out.  An optional ``round`` column must equal the
            pending round.

        Raises
        ------
        subsel.models.InputError
            A missing column, an unknown or repeated agent, a value that is not a non-negative
            integer, ``good > received``, a stale ``round``: naming the line of the file (a
            :class:`~subsel.models.CSVTable`) or the 0-based row (a DataFrame) and the column.
        ValueError
            No pending order (feedback already recorded: a repeated round), or received units that
            differ from the pending order.
        """
        if self.pending is None:
            raise ValueError(f"no order is pending: round {self.policy.t} was already recorded "
                             "(repeated feedback?); run 'next' first")
        table = observations if isinstance(observations, CSVTable) else CSVTable.from_frame(observations)
        table.require("name", "received", "good")
        index = {s: i for i, s in enumerate(self.names)}
        received = np.zeros(len(self.names), dtype=np.int64)
        good = np.zeros(len(self.names), dtype=np.int64)
        seen: dict[str, int] = {}
        cols = ("received", "good") + (("round",) if table.has("round") else ())
        cells = {col: table.column(col) for col in cols}
        for row, name in enumerate(table.column("name")):
            if name not in index:
                raise table.error(row, "name", "unknown agent", name)
            if name in seen:
                raise table.error(row, "name", "repeats the agent of {other}", name, other=seen[name])
            seen[name] = row
            vals = {col: _count(table, row, col, cells[col][row]) for col in cols}
            if "round" in vals and vals["round"] != self.pending_round:
                raise table.error(row, "round", f"is not the pending round {self.pending_round} "
                                  "(repeated or stale feedback?)", vals["round"])
            if vals["good"] > vals["received"]:
                raise table.error(row, "good", f"exceeds received = {vals['received']} for agent "
                                  f"{name!r}", vals["good"])
            received[index[name]] = vals["received"]
            good[index[name]] = vals["good"]
        diff = np.flatnonzero(received != self.pending)
        if diff.size:
            i = int(diff[0])
            raise ValueError(f"feedback does not match the last order: agent {self.names[i]!r} was "
                             f"ordered {counted(int(self.pending[i]), 'unit')}, received "
                             f"{int(received[i])}")
        self.policy.update(received, good)
        self.pending = None
        self.pending_round = None

    # ------------------------------------------------------------------ state
    def to_state(self) -> dict[str, Any]:
        """Plain-JSON state: names, the policy's state and the pending order."""
        return {"format": STATE_FORMAT, "version": STATE_VERSION, "names": list(self.names),
                "policy": self.policy.to_state(),
                "pending": None if self.pending is None else
                {"round": self.pending_round, "units": self.pending.tolist()}}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "OnlinePlanner":
        """Rebuild a planner from :meth:`to_state`.

        Raises
        ------
        ValueError
            Not an online-planner state, an unsupported version, a missing key, or a damaged
            entry (names that are not a list of strings; a pending order that is not ``n``
            integers in ``0..capacity`` for round ``t + 1``), naming the key.
        """
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise ValueError(f"not a subsel online bandit state (expected format {STATE_FORMAT!r})")
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported online state version {state.get('version')!r}")
        for key in ("names", "policy"):
            if key not in state:
                raise ValueError(f"online state: key {key!r} is missing")
        names = state["names"]
        if not isinstance(names, list) or not all(isinstance(s, str) for s in names):
            raise ValueError(f"online state: 'names' must be a list of strings; got {names!r}")
        planner = cls(names, policy_from_state(state["policy"]))
        pending = state.get("pending")
        if pending is not None:
            pol = planner.policy
            if not isinstance(pending, dict) or "units" not in pending or "round" not in pending:
                raise ValueError(f"online state: 'pending' must hold 'round' and 'units'; got {pending!r}")
            units, rnd = pending["units"], pending["round"]
            if (not isinstance(units, list) or len(units) != pol.n
                    or not all(isinstance(u, int) and not isinstance(u, bool) for u in units)):
                raise ValueError(f"online state: pending 'units' must be {pol.n} integers; got {units!r}")
            for i, v in enumerate(units):  # in Python integers: 10^30 must not overflow int64 first
                if not 0 <= v <= int(pol.capacity[i]):
                    raise ValueError(f"online state: pending units[{i}] = {v} is outside 0..capacity "
                                     f"{int(pol.capacity[i])}")
            u = np.asarray(units, dtype=np.int64)
            if rnd != pol.t + 1 or isinstance(rnd, bool):
                raise ValueError(f"online state: pending round {rnd!r} is not the next round {pol.t + 1}")
            planner.pending = u
            planner.pending_round = int(rnd)
        return planner


def _count(table: CSVTable, row: int, col: str, value: str) -> int:
    try:
        v = float(value)
    except ValueError:
        raise table.error(row, col, "expected a non-negative integer", value) from None
    if not np.isfinite(v) or v < 0 or v != round(v) or v > MAX_EXACT_INT:
        big = " up to 2^53" if np.isfinite(v) and v > MAX_EXACT_INT else ""
        raise table.error(row, col, f"expected a non-negative integer{big}", value)
    return int(v)

