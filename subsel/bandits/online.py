"""One real round at a time: a planner that keeps its bandit policy in a JSON state (Deva
et al., AAMAS 2021, Section 4: one round of SS-UCB at a time).

The planner's cycle is ``next`` (this round's order: units per agent) → procure and inspect →
``feedback`` (units received and units good per agent).  :class:`OnlinePlanner` holds the policy
(with the agents' names) and the open orders; every check of the feedback happens before anything
changes, so a rejected feedback leaves the planner (and a state file written from it) unchanged.

Beyond the papers' world (Deva et al., Section 7), the pool may change between rounds
(:meth:`OnlinePlanner.add_agents`, :meth:`OnlinePlanner.remove_agents`), some agents may be
unavailable in a round (``next_order(unavailable=...)``), and orders may arrive late: with
``max_open > 1`` several rounds are open at once, each with its round number, and feedback for a
round may come in several parts and in any order (``feedback(..., round=K)``).  The UCB indices use
what has arrived; by Joulani, Gyorgy and Szepesvari ("Online Learning under Delayed Feedback", ICML
2013, Section 3), a delay of at most ``d`` rounds adds a term of order ``d`` times the per-round
regret to the bound, additively, instead of multiplying it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._files import CSVTable, parse_integer
from .._text import counted
from ..models import MAX_EXACT_INT, InputError, problem_from_table
from ..solvers import Solver
from .policies import Policy, check_state_keys, make_policy, policy_from_state

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

STATE_FORMAT = "subsel-bandit-online"
STATE_VERSION = 2
#: Older online-state versions still read (version 1: one pending order, a fixed pool).
READ_VERSIONS = (1, 2)

#: The columns of an online planner's agents table (``capacity`` optional).
AGENT_COLUMNS = ("name", "cost", "capacity")

#: Columns of an offline agents file that the online planner refuses by name: its oracle solves
#: the papers' model (Deva et al., Section 3), without the planner's minimum orders, lot sizes,
#: fixed costs and groups.
_OFFLINE_ONLY = ("min_units", "lot_size", "fixed_cost", "group")


def _agents_table(agents: pd.DataFrame | CSVTable) -> CSVTable:
    """The agents as a table whose every column the online planner reads.

    A column it would not read is refused: a misspelt ``capcity`` would otherwise mean capacity 1
    for every agent, and a planner column (``min_units``, ...) a constraint silently dropped.

    Raises
    ------
    subsel.models.InputError
        A ``quality`` column, a planner column, or any other column but ``name, cost, capacity``,
        naming the column and the file; a missing ``name`` or ``cost`` column.
    """
    table = agents if isinstance(agents, CSVTable) else CSVTable.from_frame(agents)
    for column in table.header:
        if column in AGENT_COLUMNS:
            continue
        if column == "quality":
            raise InputError("a 'quality' column is not expected (qualities are learned)", file=table.source)
        if column in _OFFLINE_ONLY:
            raise InputError(f"column {column!r} is not supported by the online planner: its oracle "
                             "solves the papers' model (name, cost, capacity), without minimum orders, "
                             "lot sizes, fixed costs or groups; remove the column", file=table.source)
        raise InputError(f"unknown column {column!r}; an online planner's agents CSV has the columns "
                         "name, cost, capacity (names are case-sensitive; capacity is optional)",
                         file=table.source)
    table.require("name", "cost")
    return table


class OnlinePlanner:
    """A bandit policy for real rounds, with named agents and open orders.

    Parameters
    ----------
    names : sequence of str, shape (n,)
        Unique agent names (they become the policy's :attr:`~subsel.bandits.Policy.names`).
    policy : Policy
        A single-run policy (``runs=None``) over the same ``n`` agents.
    max_open : int, default 1
        Rounds that may be open (ordered, not fully received) at once: the lead time in rounds
        plus one.  With 1, the papers' cycle: ``next`` again before the feedback repeats the order.

    Attributes
    ----------
    rounds : int
        Orders handed out so far: the number of the latest round.
    open : dict of int to dict
        The open rounds by number: ``units`` and ``received`` (by agent name) and the names of the
        agents that were ``unavailable`` in that round.
    pending : ndarray of int64, shape (n,) or None
        The newest open order over the current pool (None when no round is open).
    pending_round : int or None
        Its round number.

    Raises
    ------
    ValueError
        Duplicate or empty names, a batched policy, a size mismatch, ``max_open < 1``.
    """

    def __init__(self, names, policy: Policy, max_open: int = 1):
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
        if isinstance(max_open, bool) or not isinstance(max_open, (int, np.integer)) or max_open < 1:
            raise ValueError(f"max_open must be an integer >= 1; got {max_open!r}")
        policy.names = names
        self.policy = policy
        self.max_open = int(max_open)
        self.rounds = policy.t
        self.open: dict[int, dict[str, Any]] = {}

    @property
    def names(self) -> tuple[str, ...]:
        """The agents of the current pool, in pool order."""
        return self.policy.names

    @property
    def pending_round(self) -> int | None:
        return max(self.open) if self.open else None

    @property
    def pending(self) -> np.ndarray | None:
        if not self.open:
            return None
        units = self.open[max(self.open)]["units"]
        return np.array([units.get(s, 0) for s in self.names], dtype=np.int64)

    @classmethod
    def create(cls, agents: pd.DataFrame | CSVTable, alpha: float, epsilon: float, horizon: int,
               policy: str = "ss-ucb", oracle: Solver | str | None = None, R: float = 1.0,
               seed: int | None = None, max_open: int = 1) -> "OnlinePlanner":
        """A fresh planner for agents given as a table with columns ``name, cost`` and ``capacity``.

        ``capacity`` is optional (default 1); a ``quality`` column is not expected (unknown).
        The cells are checked by the model's rules (:func:`subsel.models.problem_from_table`
        with a placeholder quality), so a bad cell is reported by its line and column (a
        :class:`~subsel._files.CSVTable` read from a file) or its 0-based row (a DataFrame).

        Parameters
        ----------
        agents : pandas.DataFrame or CSVTable
            One row per agent.
        max_open : int, default 1
            See :class:`OnlinePlanner`.

        Raises
        ------
        subsel.models.InputError
            Missing ``name`` or ``cost`` column; a ``quality`` column, a column of the offline
            planner (``min_units``, ``lot_size``, ``fixed_cost``, ``group``) or any other column
            but ``name, cost, capacity`` (a misspelt ``capcity`` is not read as capacity 1); bad
            cells.
        ValueError
            Bad settings, unknown policy.
        """
        table = _agents_table(agents)
        if str(policy).strip().lower() == "known-quality":
            raise ValueError("policy 'known-quality' needs the true qualities, which an online planner "
                             "does not have; choose ss-ucb, dpss-ucb, gss-ucb, cucb, cts or cautious-ucb")
        problem = problem_from_table(table, alpha=alpha, R=R, quality=1.0)
        pol = make_policy(policy, oracle, cost=problem.cost, alpha=alpha, epsilon=epsilon,
                          horizon=horizon, R=R, capacity=problem.capacity, seed=seed)
        return cls(problem.names, pol, max_open=max_open)

    # ------------------------------------------------------------------ the pool
    def add_agents(self, agents: pd.DataFrame | CSVTable) -> tuple[str, ...]:
        """Add the agents of a table (columns ``name, cost[, capacity]``) to the pool.

        See :meth:`subsel.bandits.Policy.add_agents` (a name removed earlier gets its statistics
        back; a new one is explored).

        Returns
        -------
        tuple of str
            The names added.

        Raises
        ------
        subsel.models.InputError
            As :meth:`create`, for the table.
        ValueError
            A name already in the pool.  Nothing changes on an error.
        """
        table = _agents_table(agents)
        problem = problem_from_table(table, alpha=self.policy.alpha, R=self.policy.R, quality=1.0)
        self.policy.add_agents(problem.cost, problem.capacity, problem.names)
        return problem.names

    def remove_agents(self, names) -> None:
        """Remove agents from the pool (see :meth:`subsel.bandits.Policy.remove_agents`).

        Units still due from them in open rounds are no longer expected: those rounds close once
        everything else has arrived.

        Raises
        ------
        ValueError
            An unknown or repeated name, or removing every agent.  Nothing changes on an error.
        """
        gone = [names] if isinstance(names, str) else list(names)
        self.policy.remove_agents(gone)
        for rnd in list(self.open):
            rec = self.open[rnd]
            for s in gone:
                if s in rec["units"]:
                    rec["units"][s] = rec["received"][s]
            self._close_if_complete(rnd)

    # ------------------------------------------------------------------ the cycle
    def next_order(self, unavailable=None, available=None) -> pd.DataFrame:
        """The next round's order, columns ``name, units, round`` (every agent, 0 units included).

        When ``max_open`` rounds are open already, the newest open order is returned again (with
        ``max_open = 1``: asking again before the feedback returns the same pending order).

        Parameters
        ----------
        unavailable, available : sequence of str, optional
            Agents that cannot be ordered this round, or (the other way round) the only agents that
            can; at most one of the two.  They are recorded with the round.

        Raises
        ------
        ValueError
            Both given, an unknown name, or no agent left to order (every agent unavailable): a
            round in which nothing can be ordered is not opened, and nothing changes.
        """
        if len(self.open) >= self.max_open:
            return self._order_frame(max(self.open))
        if unavailable is not None and available is not None:
            raise ValueError("give the unavailable agents or the available ones, not both")
        asleep: list[str] = []
        mask = None
        if unavailable is not None or available is not None:
            mask = np.zeros(self.policy.n, dtype=bool)
            if available is not None:
                mask[self.policy.index(list(available))] = True
            else:
                mask[:] = True
                mask[self.policy.index(list(unavailable))] = False
            asleep = [s for s, ok in zip(self.names, mask) if not ok]
            if not mask.any():
                which = ", ".join(asleep) if len(asleep) <= 5 else f"all {len(asleep)} of them"
                raise ValueError(f"every agent is unavailable ({which}): nothing can be ordered, so no "
                                 "round is opened")
        x = np.asarray(self.policy.select(available=mask), dtype=np.int64)
        self.rounds += 1
        self.open[self.rounds] = {"units": dict(zip(self.names, x.tolist())),
                                  "received": dict.fromkeys(self.names, 0), "unavailable": asleep}
        return self._order_frame(self.rounds)

    def _order_frame(self, rnd: int) -> pd.DataFrame:
        import pandas as pd

        units = self.open[rnd]["units"]
        return pd.DataFrame({"name": list(units), "units": list(units.values()), "round": rnd})

    def feedback(self, observations: pd.DataFrame | CSVTable, round: int | None = None,
                 final: bool = False) -> None:
        """Record what arrived for a round; on any error nothing changes.

        Parameters
        ----------
        observations : pandas.DataFrame or CSVTable
            Columns ``name, received, good`` (units received and good units per agent); rows for
            agents that were ordered 0 units may be left out.  An optional ``round`` column must
            equal the round being recorded.
        round : int, optional
            The round the units were ordered in.  Given, the feedback may be partial (the round
            stays open until every unit ordered has arrived) and rounds may be recorded in any
            order.  Not given: the oldest open round, in full (the papers' cycle).
        final : bool, default False
            Nothing more will arrive for this round (a shortfall): it closes after this feedback.

        Raises
        ------
        subsel.models.InputError
            A missing column, an unknown, removed or repeated agent, a value that is not a
            non-negative integer, ``good > received``, more units than were ordered and not yet
            received, a stale ``round``: naming the line of the file (a
            :class:`~subsel._files.CSVTable`) or the 0-based row (a DataFrame) and the column.
        ValueError
            No open round (feedback already recorded: a repeated round), a round that does not
            exist or is complete, or (without ``round``) received units that differ from the order.
        """
        if round is None:
            if not self.rounds:
                raise ValueError("no order is pending: nothing was ordered yet; run 'next' first and "
                                 "record what arrived for its order")
            if not self.open:
                raise ValueError(f"no order is pending: round {self.rounds} was already recorded "
                                 "(repeated feedback?); run 'next' first")
            rnd, whole = min(self.open), True
        else:
            if isinstance(round, bool) or not isinstance(round, (int, np.integer)):
                raise ValueError(f"round must be an integer; got {round!r}")
            rnd, whole = int(round), False
            if not 1 <= rnd <= self.rounds:
                ordered = f"rounds 1..{self.rounds} were ordered" if self.rounds else "nothing was ordered yet"
                raise ValueError(f"round {rnd} does not exist: {ordered}")
            if rnd not in self.open:
                raise ValueError(f"round {rnd} is complete: every unit ordered was recorded (repeated feedback?)")
        rec = self.open[rnd]
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
                if name in rec["units"]:
                    raise table.error(row, "name", "was removed from the pool; its late units cannot "
                                      "be recorded", name)
                raise table.error(row, "name", "unknown agent", name)
            if name in seen:
                raise table.error(row, "name", "repeats the agent of {other}", name, other=seen[name])
            seen[name] = row
            vals = {col: _count(table, row, col, cells[col][row]) for col in cols}
            if "round" in vals and vals["round"] != rnd:
                raise table.error(row, "round", f"is not the pending round {rnd} "
                                  "(repeated or stale feedback?)", vals["round"])
            if vals["good"] > vals["received"]:
                raise table.error(row, "good", f"exceeds received = {vals['received']} for agent "
                                  f"{name!r}", vals["good"])
            due = rec["units"].get(name, 0) - rec["received"].get(name, 0)
            if not whole and vals["received"] > due:
                raise table.error(row, "received", f"exceeds the {counted(due, 'unit')} of agent {name!r} "
                                  f"still due for round {rnd}", vals["received"])
            received[index[name]] = vals["received"]
            good[index[name]] = vals["good"]
        if whole:
            ordered = np.array([rec["units"].get(s, 0) - rec["received"].get(s, 0) for s in self.names])
            diff = np.flatnonzero(received != ordered)
            if diff.size:
                i = int(diff[0])
                raise ValueError(f"feedback does not match the order of round {rnd}: agent {self.names[i]!r} "
                                 f"was ordered {counted(int(ordered[i]), 'unit')}, received "
                                 f"{int(received[i])} (partial or late feedback: give its round, "
                                 "round=K / --round K)")
        self.policy.update(received, good, round=rnd)
        for s, r in zip(self.names, received.tolist()):
            if r:
                rec["received"][s] += r
        if final:
            del self.open[rnd]
        else:
            self._close_if_complete(rnd)

    def _close_if_complete(self, rnd: int) -> None:
        rec = self.open[rnd]
        if all(rec["received"].get(s, 0) >= u for s, u in rec["units"].items()):
            del self.open[rnd]

    # ------------------------------------------------------------------ state
    def to_state(self) -> dict[str, Any]:
        """Plain-JSON state: names, the policy's state, the round counter and the open rounds."""
        return {"format": STATE_FORMAT, "version": STATE_VERSION, "names": list(self.names),
                "policy": self.policy.to_state(), "max_open": self.max_open, "rounds": self.rounds,
                "open": [{"round": k, "units": dict(v["units"]), "received": dict(v["received"]),
                          "unavailable": list(v["unavailable"])} for k, v in sorted(self.open.items())]}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "OnlinePlanner":
        """Rebuild a planner from :meth:`to_state` (this version's, or a version-1 state).

        Raises
        ------
        ValueError
            Not an online-planner state, an unsupported version, a missing key, or a damaged
            entry (names that are not a list of strings; an open order that is not integers in
            ``0..capacity`` per agent; a round number out of range), naming the key.
        """
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise ValueError(f"not a subsel online bandit state (expected format {STATE_FORMAT!r})")
        version = state.get("version")
        if isinstance(version, bool) or version not in READ_VERSIONS:
            raise ValueError(f"unsupported online state version {version!r}")
        known = ["format", "version", "names", "policy"] + (
            ["max_open", "rounds", "open"] if version >= 2 else ["pending"])
        check_state_keys(state, known, "online state")
        for key in ("names", "policy") + (("max_open", "rounds", "open") if version >= 2 else ()):
            if key not in state:
                raise ValueError(f"online state: key {key!r} is missing")
        names = state["names"]
        if not isinstance(names, list) or not all(isinstance(s, str) for s in names):
            raise ValueError(f"online state: 'names' must be a list of strings; got {names!r}")
        if version == 1:
            return cls._from_v1(state, names)
        planner = cls(names, policy_from_state(state["policy"]), max_open=state["max_open"])
        rounds, pol = state["rounds"], planner.policy
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not pol.t <= rounds <= MAX_EXACT_INT:
            raise ValueError(f"online state: 'rounds' must be an integer in t..2^53 = {pol.t}..2^53; "
                             f"got {rounds!r}")
        planner.rounds = rounds
        entries = state["open"]
        if not isinstance(entries, list):
            raise ValueError(f"online state: 'open' must be a list; got {type(entries).__name__}")
        cap = dict(zip(pol.names, pol.capacity.tolist()))
        for e in entries:
            if isinstance(e, dict):
                check_state_keys(e, ["round", "units", "received", "unavailable"], "online state 'open'")
            if not isinstance(e, dict) or set(e) != {"round", "units", "received", "unavailable"}:
                raise ValueError("online state: every open round must hold exactly 'round', 'units', "
                                 f"'received', 'unavailable'; got {e!r}"[:300])
            rnd = e["round"]
            if isinstance(rnd, bool) or not isinstance(rnd, int) or not 1 <= rnd <= rounds or rnd in planner.open:
                raise ValueError(f"online state: open round {rnd!r} is not a distinct round in 1..{rounds}")
            units, got = e["units"], e["received"]
            if not isinstance(units, dict) or not isinstance(got, dict) or set(units) != set(got):
                raise ValueError(f"online state: open round {rnd}: 'units' and 'received' must map the "
                                 "same agent names to integers")
            for s, u in units.items():
                r = got[s]
                if any(isinstance(v, bool) or not isinstance(v, int) for v in (u, r)) \
                        or not 0 <= r <= u <= cap.get(s, MAX_EXACT_INT):
                    raise ValueError(f"online state: open round {rnd}: units of {s!r} = {u!r} (received "
                                     f"{r!r}) is outside 0..capacity {cap.get(s, MAX_EXACT_INT)}")
            asleep = e["unavailable"]
            if not isinstance(asleep, list) or not all(isinstance(s, str) for s in asleep):
                raise ValueError(f"online state: open round {rnd}: 'unavailable' must be a list of names")
            planner.open[rnd] = {"units": dict(units), "received": dict(got), "unavailable": list(asleep)}
        if len(planner.open) > planner.max_open:
            raise ValueError(f"online state: {len(planner.open)} open rounds exceed max_open = {planner.max_open}")
        return planner

    @classmethod
    def _from_v1(cls, state: dict[str, Any], names: list[str]) -> "OnlinePlanner":
        """A version-1 state: one pending order at most, for round ``t + 1``, a fixed pool."""
        planner = cls(names, policy_from_state(state["policy"]))
        pending = state.get("pending")
        if pending is not None:
            pol = planner.policy
            if not isinstance(pending, dict) or "units" not in pending or "round" not in pending:
                raise ValueError(f"online state: 'pending' must hold 'round' and 'units'; got {pending!r}")
            check_state_keys(pending, ["round", "units"], "online state 'pending'")
            units, rnd = pending["units"], pending["round"]
            if (not isinstance(units, list) or len(units) != pol.n
                    or not all(isinstance(u, int) and not isinstance(u, bool) for u in units)):
                raise ValueError(f"online state: pending 'units' must be {pol.n} integers; got {units!r}")
            for i, v in enumerate(units):  # in Python integers: 10^30 must not overflow int64 first
                if not 0 <= v <= int(pol.capacity[i]):
                    raise ValueError(f"online state: pending units[{i}] = {v} is outside 0..capacity "
                                     f"{int(pol.capacity[i])}")
            if rnd != pol.t + 1 or isinstance(rnd, bool):
                raise ValueError(f"online state: pending round {rnd!r} is not the next round {pol.t + 1}")
            planner.rounds = int(rnd)
            planner.open[int(rnd)] = {"units": dict(zip(planner.names, units)),
                                      "received": dict.fromkeys(planner.names, 0), "unavailable": []}
        return planner


def _count(table: CSVTable, row: int, col: str, value: str) -> int:
    try:
        v = parse_integer(value)  # exact: "2.0000000000000001" is not 2
    except ValueError:
        raise table.error(row, col, "expected a non-negative integer", value) from None
    if v < 0 or v > MAX_EXACT_INT:
        big = " up to 2^53" if v > MAX_EXACT_INT else ""
        raise table.error(row, col, f"expected a non-negative integer{big}", value)
    return v

