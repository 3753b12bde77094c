"""A changing pool of agents for the bandit policies: agents that join, leave and sleep.

Deva, Abhishek, Gujar ("A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS
2021, Section 7) name two extensions of SS-UCB as future work: a pool "dynamic with new agents
entering", and agents that are not available in some rounds (sleeping bandits).  :class:`AgentPool`
is the part of every :class:`~subsel.bandits.policies.Policy` that implements them:

- **names**: every agent has a unique name (default: its position as text, as problems do);
- **joining** (:meth:`AgentPool.add_agents`): new agents are appended at the end of the pool with
  no observations (or, for a name removed earlier, with the statistics it had when it left); every
  other agent's statistics stay exactly as they were;
- **leaving** (:meth:`AgentPool.remove_agents`): the agent's column is dropped and it is never
  ordered again; its statistics are *kept* (in :attr:`AgentPool.retired`) and restored if an agent
  of the same name is added later: the same supplier coming back is not explored again from
  scratch.  Its units observed stay valid evidence, since its quality is fixed (Deva et al.,
  Section 4.1);
- **sleeping** (``select(available=...)``): the oracle sees only the available agents (an
  unavailable agent is handed to it as worthless, quality 0, and cut from its answer: removing an
  agent with ``q_i - alpha <= 0`` and ``R q_i - c_i <= 0`` from a feasible selection keeps it
  feasible and does not lower its utility, so an exact oracle's answer is an optimum over the
  available agents alone); an unavailable agent is never ordered in that round.

**Exploring newcomers.**  SS-UCB plays every unit of every agent for ``tau = ceil(3 ln T / (2
eps^2))`` rounds, so that every agent has ``w_i >= tau`` units observed; that is what Lemma 3 of
Deva et al. needs: the UCB bonus ``sqrt(3 ln t / (2 w_i))`` is then at most ``eps`` for every
``t <= T``.  For an agent that joins later, or that was asleep during the exploration, the same
rule is applied to that agent alone: in every round where it is available and has fewer than
``tau`` units observed, it is ordered in full (all its units), whatever the oracle picks among the
explored agents.  Such a round may miss the quality constraint, like SS-UCB's own exploration
rounds, and there are at most ``ceil(tau / k_i)`` of them per newcomer (fewer once feedback has
arrived), so each newcomer adds at most ``ceil(tau / k_i) L`` to the regret bound (``L``: the
regret of an incorrect round, Deva et al., eq. (2)).  CUCB and the cautious baseline apply their
own first-round rule (one unit of every agent) to each newcomer in the same way; Thompson sampling
needs none (a newcomer starts from the prior).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_float_array, check_array_range, check_capacity
from ..models import MAX_EXACT_INT
from ..models._checks import check_names, default_names


class AgentPool:
    """Names, joining, leaving and sleeping agents: mixed into every bandit policy.

    A policy keeps, per agent, the columns ``cost``, ``capacity``, ``w`` and ``good`` (arrays of
    shape ``(n,)`` or ``(runs, n)``) and :attr:`names`; this class changes them together.

    Attributes
    ----------
    names : tuple of str, length n
        The agents of the current pool, in pool order (the order of ``select()``'s entries).
    retired : dict of str to (ndarray, ndarray)
        Statistics ``(w, good)`` of every removed agent (each of shape ``()`` or ``(runs,)``),
        restored when an agent of that name is added again.
    """

    names: tuple[str, ...]
    retired: dict[str, tuple[np.ndarray, np.ndarray]]
    cost: np.ndarray
    capacity: np.ndarray
    w: np.ndarray
    good: np.ndarray
    runs: int | None
    t: int

    def _init_pool(self, names: Any, n: int) -> None:
        checked = check_names(n, names)
        self.names = default_names(n) if checked is None else checked
        self.retired = {}
        self._oracle_mask: np.ndarray | None = None

    # ------------------------------------------------------------------ look-ups
    def index(self, names: Any) -> np.ndarray:
        """Positions in the pool of one name or a sequence of names.

        Raises
        ------
        ValueError
            A name that is not in the pool (naming it).
        """
        wanted = [names] if isinstance(names, str) else list(names)
        where = {s: i for i, s in enumerate(self.names)}
        out = []
        for s in wanted:
            if str(s) not in where:
                raise ValueError(f"agent {s!r} is not in the pool; agents: {_listing(self.names)}")
            out.append(where[str(s)])
        return np.asarray(out, dtype=np.int64)

    def availability_mask(self, available: Any) -> np.ndarray:
        """The boolean mask, shape ``(runs or 1, n)``, of ``select(available=...)``'s argument.

        Parameters
        ----------
        available : array-like of bool, shape (n,) or (runs, n); or a sequence of str
            A mask over the pool (one row per run, or one row shared by every run), or the names
            of the available agents.

        Raises
        ------
        TypeError
            A mask that is not boolean (numbers are not taken for a mask: ``[1, 0]`` could be
            positions).
        ValueError
            A wrong shape, or an unknown name.
        """
        m, n = (self.runs or 1), len(self.names)
        if isinstance(available, str) or (not isinstance(available, np.ndarray)
                                          and all(isinstance(s, str) for s in available)):
            mask = np.zeros(n, dtype=bool)
            mask[self.index(available)] = True
            return np.broadcast_to(mask, (m, n))
        arr = np.asarray(available)
        if arr.dtype != bool:
            raise TypeError(f"available must be a boolean mask or agent names; got dtype {arr.dtype}")
        if arr.shape not in ((n,), (m, n)) or (arr.ndim == 2 and self.runs is None):
            raise ValueError(f"available must have shape ({n},)" + (f" or ({m}, {n})" if self.runs else "")
                             + f"; got {arr.shape}")
        return np.broadcast_to(arr, (m, n))

    # ------------------------------------------------------------------ joining and leaving
    def add_agents(self, cost: Any, capacity: Any = None, names: Any = None) -> None:
        """Append agents to the pool (Deva et al., Section 7: a pool with new agents entering).

        A new agent starts with no observations, unless an agent of the same name was removed
        before: then it gets back the statistics it had (see :attr:`retired`).  Every other
        agent's statistics are untouched; a new agent is explored as the module explains.

        Parameters
        ----------
        cost : array-like of float, shape (k,) or (runs, k)
            Per-unit costs ``>= 0`` of the ``k`` new agents (one row per run, or one shared row).
        capacity : array-like of int, shape (k,), optional
            Units per new agent; default 1.
        names : sequence of str, shape (k,), optional
            Unique names, not in the pool; default the smallest integers, as text, not in use.

        Raises
        ------
        ValueError, TypeError
            Costs or capacities breaking the model's rules, shapes that do not fit, a name already
            in the pool or repeated.  Nothing changes on an error.
        """
        m = self.runs or 1
        c = as_float_array(cost, "cost", (1, 2))
        check_array_range(c, "cost", 0.0, rule=">= 0")
        if c.shape[-1] == 0 or (c.ndim == 2 and (self.runs is None or c.shape[0] != m)):
            raise ValueError("cost of the new agents must have shape (k,)"
                             + (f" or ({m}, k)" if self.runs else "") + f" with k >= 1; got {c.shape}")
        k = c.shape[-1]
        cap = np.ones(k, dtype=np.int64) if capacity is None else check_capacity(capacity, limit=MAX_EXACT_INT)
        if cap.shape != (k,):
            raise ValueError(f"capacity has {cap.size} entries but cost has {k} new agents")
        checked = check_names(k, names)  # None only when names is None
        new = checked if checked is not None else self._free_names(k)
        clash = [s for s in new if s in self.names]
        if clash:
            raise ValueError(f"agent {clash[0]!r} is already in the pool")
        self._before_pool_change(new, keep=None)
        shape = (m, k) if self.runs else (k,)
        w, good = np.zeros(shape), np.zeros(shape)
        for j, s in enumerate(new):
            if s in self.retired:
                w[..., j], good[..., j] = self.retired.pop(s)
        if self.cost.ndim == 2 or c.ndim == 2:
            self.cost = np.concatenate([np.broadcast_to(self.cost, (m, self.cost.shape[-1])),
                                        np.broadcast_to(c, (m, k))], axis=1)
        else:
            self.cost = np.concatenate([self.cost, c])
        self.capacity = np.concatenate([self.capacity, cap])
        self.w = np.concatenate([self.w, w], axis=-1)
        self.good = np.concatenate([self.good, good], axis=-1)
        self.names = self.names + tuple(new)
        self._pool_changed()

    def remove_agents(self, names: Any) -> None:
        """Remove agents from the pool; they are never ordered again (Deva et al., Section 7).

        Their statistics are kept in :attr:`retired` (restored by a later :meth:`add_agents` of
        the same name); every other agent's statistics are untouched.

        Parameters
        ----------
        names : str or sequence of str
            Agents of the pool.

        Raises
        ------
        ValueError
            An unknown or repeated name, or removing every agent.  Nothing changes on an error.
        """
        idx = self.index(names)
        if len(set(idx.tolist())) != idx.size:
            raise ValueError(f"an agent to remove is repeated in {list(names)!r}")
        if idx.size >= len(self.names):
            raise ValueError(f"cannot remove all {len(self.names)} agents: at least one agent must remain in the pool")
        keep = np.setdiff1d(np.arange(len(self.names)), idx)
        self._before_pool_change((), keep=keep)
        for i in idx.tolist():
            self.retired[self.names[i]] = (self.w[..., i].copy(), self.good[..., i].copy())
        self.cost = self.cost[..., keep]
        self.capacity = self.capacity[keep]
        self.w = self.w[..., keep]
        self.good = self.good[..., keep]
        self.names = tuple(self.names[i] for i in keep.tolist())
        self._pool_changed()

    def _free_names(self, k: int) -> tuple[str, ...]:
        used = set(self.names)
        out: list[str] = []
        i = len(self.names)
        while len(out) < k:
            if str(i) not in used:
                out.append(str(i))
            i += 1
        return tuple(out)

    def _before_pool_change(self, new: Any, keep: np.ndarray | None) -> None:
        """Hook for policies with more per-agent data (checked before anything changes)."""

    def _pool_changed(self) -> None:
        """Drop what was derived from the old pool (the oracle's problem template, caches)."""
        self.__dict__.pop("_ones_cache", None)
        self.__dict__["_template"] = None
        m = self.runs or 1
        self.__dict__["_cost2"] = np.broadcast_to(self.cost, (m, self.cost.shape[-1]))

    # ------------------------------------------------------------------ state
    def _pool_state(self) -> dict[str, Any]:
        return {name: {"w": np.asarray(w).astype(np.int64).tolist(),
                       "good": np.asarray(g).astype(np.int64).tolist()}
                for name, (w, g) in self.retired.items()}

    def _load_retired(self, value: Any) -> None:
        """Read :attr:`retired` from a state (``{name: {"w": ..., "good": ...}}``), range-checked."""
        if not isinstance(value, dict):
            raise ValueError(f"policy state: 'retired' must be a mapping; got {type(value).__name__}")
        shape = (self.runs,) if self.runs else ()
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name, entry in value.items():
            if name in self.names:
                raise ValueError(f"policy state: retired agent {name!r} is also in the pool")
            if not isinstance(entry, dict) or set(entry) != {"w", "good"}:
                raise ValueError(f"policy state: retired[{name!r}] must hold 'w' and 'good'")
            arrays = []
            for key in ("w", "good"):
                raw = entry[key]
                flat = raw if isinstance(raw, list) else [raw]
                if any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_EXACT_INT for v in flat):
                    raise ValueError(f"policy state: retired[{name!r}].{key} must be integers in 0..2^53; "
                                     f"got {raw!r}"[:200])
                arr = np.asarray(raw, dtype=float)
                if arr.shape != shape:
                    raise ValueError(f"policy state: retired[{name!r}].{key} must have shape {shape}; "
                                     f"got {arr.shape}")
                arrays.append(arr)
            if (arrays[1] > arrays[0]).any():
                raise ValueError(f"policy state: retired[{name!r}]: good exceeds w")
            out[name] = (arrays[0], arrays[1])
        self.retired = out


def _listing(names: tuple[str, ...], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")
