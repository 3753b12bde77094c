"""One real round at a time: a planner that keeps its bandit policy in a JSON state (Deva
et al., AAMAS 2021, Section 4: one round of SS-UCB at a time).

The planner's cycle is ``next`` (this round's order: units per agent) → procure and inspect →
``feedback`` (units received and units good per agent).  :class:`OnlinePlanner` holds the agents'
names, the policy and the pending order; every check of the feedback happens before anything
changes, so a rejected feedback leaves the planner (and a state file written from it) unchanged.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..models import SubsetSelectionProblem
from ..solvers import Solver
from .policies import Policy, make_policy, policy_from_state

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
    def create(cls, agents: pd.DataFrame, alpha: float, epsilon: float, horizon: int,
               policy: str = "ss-ucb", oracle: Solver | str | None = None, R: float = 1.0,
               seed: int | None = None) -> "OnlinePlanner":
        """A fresh planner for agents given as a table with columns ``name, cost`` and ``capacity``.

        ``capacity`` is optional (default 1); a ``quality`` column is not expected (unknown).
        Columns are validated by :meth:`SubsetSelectionProblem.from_dataframe` (with a
        placeholder quality), so bad cells are reported by row and column.

        Raises
        ------
        ValueError
            Missing ``name`` or ``cost`` column, bad cells, bad settings, unknown policy.
        """
        for col in ("name", "cost"):
            if col not in agents.columns:
                raise ValueError(f"agents: column {col!r} is missing; columns are {list(agents.columns)}")
        if "quality" in agents.columns:
            raise ValueError("agents: a 'quality' column is not expected (qualities are learned)")
        if str(policy).strip().lower() == "known-quality":
            raise ValueError("policy 'known-quality' needs the true qualities, which an online planner "
                             "does not have; choose ss-ucb, dpss-ucb, gss-ucb, cucb, cts or cautious-ucb")
        table = agents.copy()
        table["quality"] = 1.0
        problem = SubsetSelectionProblem.from_dataframe(table, alpha=alpha, R=R)
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
        return pd.DataFrame({"name": list(self.names), "units": self.pending.tolist()})

    def feedback(self, observations: pd.DataFrame) -> None:
        """Record the pending round's outcome; on any error nothing changes.

        Parameters
        ----------
        observations : pandas.DataFrame
            Columns ``name, received, good`` (units received and good units per agent); rows for
            agents ordered 0 units may be left out.  An optional ``round`` column must equal the
            pending round.

        Raises
        ------
        ValueError
            No pending order (feedback already recorded: a repeated round), a missing column, an
            unknown or repeated agent, a value that is not a non-negative integer, ``good >
            received``, or received units that differ from the pending order.
        """
        if self.pending is None:
            raise ValueError(f"no order is pending: round {self.policy.t} was already recorded "
                             "(repeated feedback?); run 'next' first")
        for col in ("name", "received", "good"):
            if col not in observations.columns:
                raise ValueError(f"observations: column {col!r} is missing; columns are "
                                 f"{list(map(str, observations.columns))}")
        index = {s: i for i, s in enumerate(self.names)}
        received = np.zeros(len(self.names), dtype=np.int64)
        good = np.zeros(len(self.names), dtype=np.int64)
        seen: dict[str, int] = {}
        for row, rec in enumerate(observations.to_dict("records")):
            name = str(rec["name"]).strip()
            if name not in index:
                raise ValueError(f"observations row {row}: unknown agent {name!r}")
            if name in seen:
                raise ValueError(f"observations row {row}: agent {name!r} repeats row {seen[name]}")
            seen[name] = row
            vals = {}
            for col in ("received", "good") + (("round",) if "round" in observations.columns else ()):
                vals[col] = _count(rec[col], row, col)
            if "round" in vals and vals["round"] != self.pending_round:
                raise ValueError(f"observations row {row}: round {vals['round']} is not the pending "
                                 f"round {self.pending_round} (repeated or stale feedback?)")
            if vals["good"] > vals["received"]:
                raise ValueError(f"observations row {row}: good = {vals['good']} exceeds received = "
                                 f"{vals['received']} for agent {name!r}")
            received[index[name]] = vals["received"]
            good[index[name]] = vals["good"]
        diff = np.flatnonzero(received != self.pending)
        if diff.size:
            i = int(diff[0])
            raise ValueError(f"feedback does not match the last order: agent {self.names[i]!r} was "
                             f"ordered {int(self.pending[i])} units, received {int(received[i])}")
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


def _count(value: Any, row: int, col: str) -> int:
    try:
        v = float(str(value).strip())
    except ValueError:
        raise ValueError(f"observations row {row}, column {col!r}: expected a non-negative integer; "
                         f"got {value!r}") from None
    if not np.isfinite(v) or v < 0 or v != round(v) or v > _MAX_COUNT:
        raise ValueError(f"observations row {row}, column {col!r}: expected a non-negative integer"
                         f"{' up to 2^53' if np.isfinite(v) and v > _MAX_COUNT else ''}; got {value!r}")
    return int(v)


#: Largest count read from an observations cell (integers beyond it are not exact as floats).
_MAX_COUNT = 2 ** 53
