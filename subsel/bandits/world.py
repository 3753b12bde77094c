"""Simulating a changing world: sleeping agents, a pool with joins and leaves, and lead times.

Deva, Abhishek, Gujar ("A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS
2021, Section 7) leave a dynamic pool and unavailable (sleeping) agents as future work; delayed
feedback follows Joulani, Gyorgy, Szepesvari ("Online Learning under Delayed Feedback", ICML 2013).
:class:`ChangingWorld` drives one batched policy through such a world for
:func:`~subsel.bandits.simulate`:

- **availability** ``p`` (or a callable): each agent is available in a round with probability
  ``p``, independently (run ``j`` draws from its own stream, child ``j`` of the seed, in blocks of
  rounds, so its draws depend neither on the other runs nor on their number); a callable
  ``availability(t)`` returns the mask of round ``t`` (shape (n,) or (runs, n));
- **pool** (a presence schedule, shape (T, n), or a callable ``pool(t)`` giving shape (n,)):
  an agent absent at round 1 is removed before the first round, and agents that join or leave
  later are added to or removed from the policy (:meth:`~subsel.bandits.Policy.add_agents`,
  :meth:`~subsel.bandits.Policy.remove_agents`: statistics of an agent that comes back are
  restored);
- **lead time** ``L``: the units ordered in round ``s`` arrive, and are told to the policy with
  ``round=s``, at the end of round ``s + L`` (``L = 0``: the same round, the papers' world); units
  of an agent that left meanwhile are dropped.

The regret of round ``t`` is measured against the best feasible selection among the agents present
and available in round ``t`` (Deva et al., eq. (2), restricted to those agents): ``r_q(S*_t) -
r_q(S_t)`` for a correct selection, else ``L_t``; both are computed by an exact solver once per
distinct (run, set of agents), a table of ``runs x 2^n`` entries for ``n <= 12`` agents (kept
with the environment, whose qualities and costs never change, so that a simulation continued in
chunks of rounds does not solve them again).
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable

import numpy as np

from ..solvers import Solver
from .environment import BernoulliEnvironment, run_generators
from .policies import KnownQuality, Policy

#: Largest pool whose regret references are cached in a (runs, 2^n) table.
TABLE_MAX_AGENTS = 12
#: Uniform numbers drawn per block of availability draws (16 MB of float32).
_BLOCK_VALUES = 2 ** 22
#: Masks of up to this many agents are turned into integers by one float32 product.
_F32_BITS = 24
_POW2_F32 = 2.0 ** np.arange(_F32_BITS, dtype=np.float32)


def arrival_schedule(n: int, arrivals: int, horizon: int) -> np.ndarray:
    """A pool where the last ``arrivals`` of ``n`` agents join at evenly spaced rounds.

    Agent ``n - arrivals + k`` (``k = 0 .. arrivals - 1``) joins at round
    ``1 + (k + 1) * T // (2 * (arrivals + 1))``, so every arrival happens in the first half of the
    horizon and has time to be learnt.

    Parameters
    ----------
    n : int
        Agents in all, ``> arrivals``.
    arrivals : int
        Agents that join late, ``>= 0``.
    horizon : int
        ``T``.

    Returns
    -------
    ndarray of bool, shape (T, n)
        Presence of every agent in every round.

    Raises
    ------
    ValueError
        ``arrivals`` outside ``0 .. n - 1`` or ``horizon < 1``.
    """
    if not 0 <= arrivals < n:
        raise ValueError(f"arrivals must be in 0..n-1 = 0..{n - 1}; got {arrivals}")
    if horizon < 1:
        raise ValueError(f"horizon must be >= 1; got {horizon}")
    present = np.ones((horizon, n), dtype=bool)
    for k in range(arrivals):
        join = 1 + (k + 1) * horizon // (2 * (arrivals + 1))
        present[:join - 1, n - arrivals + k] = False
    return present


def _bits(masks: np.ndarray) -> np.ndarray:
    """Boolean masks (..., n), n <= 62, as int64 integers whose bit i is agent i."""
    n = masks.shape[-1]
    if n <= _F32_BITS:  # one single-precision product: exact, every partial sum is an integer < 2^24
        return (masks.view(np.uint8) @ _POW2_F32[:n]).astype(np.int64)
    packed = np.packbits(masks, axis=-1, bitorder="little")
    keys = packed[..., 0].astype(np.int64)
    for i in range(1, packed.shape[-1]):
        keys |= packed[..., i].astype(np.int64) << (8 * i)
    return keys


def _first_of(cells: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``cells`` (int64 in ``0 .. size - 1``), ascending, and the index of
    each one's first occurrence: ``np.unique(cells, return_index=True)``, without a sort when
    ``cells`` is long (a pass over ``size`` entries instead)."""
    if cells.size < size // 64:
        return np.unique(cells, return_index=True)
    first = np.full(size, cells.size)
    np.minimum.at(first, cells, np.arange(cells.size))
    distinct = np.flatnonzero(first < cells.size)
    return distinct, first[distinct]


class ChangingWorld:
    """One batched policy in a world with sleeping agents, a changing pool and lead times.

    Parameters
    ----------
    policy : Policy
        Batched (``runs = m``), over the environment's ``n`` agents in order (its names are the
        environment's agents; any names work).
    environment : BernoulliEnvironment
        Batched, ``m`` runs.
    horizon : int
        ``T``.
    availability : float or callable, optional
        Probability ``p`` in ``(0, 1]`` that an agent is available in a round, or
        ``availability(t) -> mask`` of shape (n,) or (m, n).
    lead_time : int, default 0
        Rounds between an order and its feedback.
    pool : array-like of bool, shape (T, n), or callable, optional
        Presence of each agent in each round, or ``pool(t) -> mask`` of shape (n,).  At least one
        agent must be present in every round.
    seed : int, SeedSequence, Generator or None
        Root of the availability draws (run ``j``: child ``j``).
    exact : Solver
        Exact solver for the regret references.
    alpha : float
        The quality threshold of the regret references (the policy's).

    Raises
    ------
    ValueError
        ``p`` outside ``(0, 1]``, a negative lead time, a schedule of the wrong shape or with a
        round without agents, a mask of the wrong shape.
    """

    def __init__(self, policy: Policy, environment: BernoulliEnvironment, horizon: int,
                 availability: float | Callable[[int], Any] | None, lead_time: int,
                 pool: Any, seed: Any, exact: Solver, alpha: float):
        from .simulation import regret_selections  # the one definition of S* and L

        self._selections = regret_selections
        self.policy, self.env, self.T = policy, environment, int(horizon)
        m, n = environment.quality.shape
        self.m, self.n = m, n
        if isinstance(lead_time, bool) or not isinstance(lead_time, (int, np.integer)) or lead_time < 0:
            raise ValueError(f"lead_time must be an integer >= 0; got {lead_time!r}")
        self.lead_time = int(lead_time)
        self.p: float | None = None
        self.avail_fn = None
        if availability is not None and not callable(availability):
            if isinstance(availability, bool) or not isinstance(availability, (int, float, np.number)) \
                    or not 0.0 < float(availability) <= 1.0:
                raise ValueError(f"availability must be a probability in (0, 1] or a callable; got {availability!r}")
            self.p = float(availability)
            self.rngs = run_generators(seed, m)
        elif availability is not None:
            self.avail_fn = availability
        self.pool_fn = None
        self.present = None
        if callable(pool):
            self.pool_fn = pool
        elif pool is not None:
            arr = np.asarray(pool)
            if arr.dtype != bool or arr.shape != (self.T, n):
                raise ValueError(f"pool must be a boolean array of shape (T, n) = ({self.T}, {n}); "
                                 f"got {arr.dtype} {arr.shape}")
            self.present = arr
        self.env_index = {s: i for i, s in enumerate(policy.names)}
        if len(self.env_index) != n:
            raise ValueError(f"the policy has {policy.n} agents but the environment has {n}")
        self.exact, self.alpha = exact, alpha
        env = environment
        x_best, x_worst, best, worst = regret_selections(env.quality, env.cost, alpha, env.R,
                                                         env.capacity, exact)
        # S* and the worst feasible selection of the whole pool stay optimal (worst) among the
        # agents of a round whenever all their agents are there: no solve needed then.
        self.best_support, self.worst_support = x_best > 0, x_worst > 0
        self.full_opt, self.full_worst, self.full_L = best, worst, best - worst
        # Agents that no best (worst) selection takes whatever the others: quality below alpha and
        # a negative (positive) utility.  Their availability does not change the answer.
        q, r = env.quality, env.utility
        self.relevant = {"best": ~((q < alpha) & (r < 0)), "worst": ~((q < alpha) & (r > 0))}
        self.queue: deque[tuple[int, np.ndarray, np.ndarray]] = deque()
        self.block = max(1, min(256, _BLOCK_VALUES // (m * n)))
        self.masks = np.empty((0, m, n), dtype=bool)
        self._buffers: tuple[np.ndarray, np.ndarray | None] | None = None
        self._opt_buffer: np.ndarray | None = None
        self.next = 0
        self.table = n <= TABLE_MAX_AGENTS
        if self.table:  # kept with the environment: its qualities and costs never change
            cache = environment.__dict__.setdefault("_regret_tables", {})
            self.tables = cache.setdefault((float(alpha), exact.name), {
                k: np.full((m, 2 ** n), np.nan) for k in ("best", "worst")})
        self.bits = n <= 62  # sets of agents as integers (bit i: agent i)
        if self.bits:
            self.support_bits = {"best": _bits(self.best_support), "worst": _bits(self.worst_support)}
            self.relevant_bits = {k: _bits(v) for k, v in self.relevant.items()}
        self.cols = np.arange(n)
        self.whole = True
        self.table = self.table and self.bits
        if self.table:  # cell (j, k) of a table: run j, agents k (bits), at j * 2^n + k of its flat view
            self.flat = {k: v.reshape(-1) for k, v in self.tables.items()}
            self.offsets = np.arange(m, dtype=np.int64) << n
            # The bits a table's key keeps: the agents whose availability may change the answer,
            # and those of the whole pool's selection (whose presence decides whether it stands).
            self.key_bits = {k: self.relevant_bits[k] | self.support_bits[k] for k in self.relevant_bits}
        self.was_present = np.ones(n, dtype=bool)
        self.mask = np.ones((m, n), dtype=bool)

    # ------------------------------------------------------------------ schedules
    def _present(self, t: int) -> np.ndarray:
        if self.pool_fn is not None:
            mask = np.asarray(self.pool_fn(t))
        elif self.present is not None:
            mask = self.present[t - 1]
        else:
            return np.ones(self.n, dtype=bool)
        if mask.dtype != bool or mask.shape != (self.n,):
            raise ValueError(f"pool({t}) must be a boolean mask of shape ({self.n},); got {mask.dtype} {mask.shape}")
        if not mask.any():
            raise ValueError(f"pool: no agent is present in round {t}")
        return mask

    def _fill(self, t: int) -> None:
        """Masks (present and available) of rounds ``t .. t + block - 1``."""
        B = min(self.block, self.T - t + 1)
        m, n = self.m, self.n
        if self._buffers is None:  # reused block after block: no fresh pages to fault in each time
            self._buffers = (np.empty((self.block, m, n), dtype=bool),
                             np.empty((m, self.block * n), dtype=np.float32) if self.p is not None else None)
        masks = self._buffers[0][:B]
        if self.p is not None:
            u = self._buffers[1][:, :B * n]  # single precision: p is met to 2^-24
            for j, g in enumerate(self.rngs):
                g.random(out=u[j], dtype=np.float32)
            masks[:] = (u.reshape(m, B, n) < np.float32(self.p)).transpose(1, 0, 2)
        else:
            masks[:] = True
        for b in range(B if self.avail_fn is not None or self.pool_fn is not None
                       or self.present is not None else 0):
            if self.avail_fn is not None:
                a = np.asarray(self.avail_fn(t + b))
                if a.dtype != bool or a.shape not in ((n,), (m, n)):
                    raise ValueError(f"availability({t + b}) must be a boolean mask of shape ({n},) or "
                                     f"({m}, {n}); got {a.dtype} {a.shape}")
                masks[b] &= a
            masks[b] &= self._present(t + b)
        self.masks, self.next = masks, 0
        # r_q(S*) of the whole block at once: one solve for every (run, agents) not met before
        if self.table:  # every (round, run) through the table; only its misses are looked at
            keys = _bits(masks) & self.key_bits["best"]
            cells = keys + self.offsets  # (B, m): run j's row of the table, column its agents
            flat = self.flat["best"]
            if self._opt_buffer is None:
                self._opt_buffer = np.empty((self.block, m))
            opt = np.take(flat, cells, out=self._opt_buffer[:B])
            miss = np.isnan(opt)
            if miss.any():
                at = np.flatnonzero(miss)  # (round, run) pairs b * m + j, in order
                cells_at = cells.reshape(-1)[at]
                cells_in, first = _first_of(cells_at, flat.size)
                bf, jf = np.divmod(at[first], m)
                need = self.support_bits["best"][jf]
                whole = (keys[bf, jf] & need) == need  # S* all there: the whole pool's optimum
                flat[cells_in[whole]] = self.full_opt[jf[whole]]
                part = ~whole
                if part.any():
                    flat[cells_in[part]] = self._solve("best", jf[part], masks[bf[part], jf[part]])
                opt.reshape(-1)[at] = flat[cells_at]
        else:
            opt = np.broadcast_to(self.full_opt, (B, m)).copy()
            uncovered = (self.best_support & ~masks).any(axis=2)
            if uncovered.any():
                b, j = np.nonzero(uncovered)
                opt[b, j] = self._lookup("best", masks[b, j], j)
        self.opts = opt

    def references(self, correct: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``r_q(S*_t)`` and ``L_t`` (m,) of the round just played, among its agents.

        ``L_t`` is computed only for the runs whose selection is not ``correct`` (the others get
        the whole pool's ``L``, unused).  The best (worst) feasible selection is the whole pool's
        when all its agents are there, else it comes from the table, else it is solved and stored.
        """
        mask, opt = self.mask, self.opts[self.next - 1]
        if correct.all():  # the usual round once learnt: no L_t is read
            return opt, self.full_L
        L = self.full_L.copy()
        bad = ~correct
        if bad.any():
            worst = self.full_worst.copy()
            rows = bad & (self.worst_support & ~mask).any(axis=1)
            if rows.any():
                j = np.flatnonzero(rows)
                worst[j] = self._lookup("worst", mask[j], j)
            L[bad] = opt[bad] - worst[bad]
        return opt, L

    def _lookup(self, which: str, sub: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Utility of the best or worst feasible selection among the agents ``sub`` (k, n) of runs
        ``rows`` (k,), from the table, the misses solved in one call (each distinct one once)."""
        if not self.table:
            return self._solve(which, rows, sub)
        table = self.flat[which]
        cells = (_bits(sub) & self.key_bits[which][rows]) + self.offsets[rows]
        vals = table[cells]
        miss = np.isnan(vals)
        if miss.any():
            cells_in, first = _first_of(cells[miss], table.size)
            table[cells_in] = self._solve(which, rows[miss][first], sub[miss][first])
            vals = table[cells]
        return vals

    def _solve(self, which: str, rows: np.ndarray, sub: np.ndarray) -> np.ndarray:
        env = self.env
        _, _, best, worst = self._selections(env.quality[rows], env.cost[rows], self.alpha, env.R,
                                             env.capacity, self.exact, available=sub, which=which)
        return best if which == "best" else worst

    # ------------------------------------------------------------------ one round
    def round(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Play round ``t``; the selection (m, n) over the environment's agents, as int64 and float."""
        if self.next >= len(self.masks):
            self._fill(t)
        self.mask = mask = self.masks[self.next]
        self.next += 1
        if self.pool_fn is not None or self.present is not None:
            self._update_pool(self._present(t))
        pol = self.policy
        whole = self.whole  # every agent in the pool, in the environment's order
        if self.p is not None or self.avail_fn is not None:  # a mask of ours: (m, n) booleans, no checks
            x_pol = pol._select_masked(mask if whole else mask[:, self.cols])
        else:
            x_pol = pol.select()
        if whole:
            x = x_pol
        else:
            x = np.zeros((self.m, self.n), dtype=np.int64)
            x[:, self.cols] = x_pol
        xf = x.astype(float)
        good = self.env._good(x)
        if self.lead_time == 0 and whole:
            pol._tell(xf, good, round=t)
            return x, xf
        self.queue.append((t, xf, good))
        while self.queue and self.queue[0][0] + self.lead_time <= t:
            s, xs, gs = self.queue.popleft()
            if self.whole:
                pol._tell(xs, gs, round=s)
            else:
                pol._tell(xs[:, self.cols], gs[:, self.cols], round=s)
        return x, xf

    def _update_pool(self, present: np.ndarray) -> None:
        if np.array_equal(present, self.was_present):
            return
        pol = self.policy
        names = list(self.env_index)
        leave = [names[i] for i in np.flatnonzero(self.was_present & ~present)]
        join = np.flatnonzero(present & ~self.was_present)
        if join.size:
            # The known-quality benchmark is told the newcomers' true qualities, as it knows the others'.
            known = {"quality": self.env.quality[:, join]} if isinstance(pol, KnownQuality) else {}
            pol.add_agents(self.env.cost[:, join], capacity=self.env.capacity[join],
                           names=[names[i] for i in join], **known)
        if leave:
            pol.remove_agents(leave)
        self.cols = np.array([self.env_index[s] for s in pol.names], dtype=np.int64)
        self.whole = bool(np.array_equal(self.cols, np.arange(self.n)))
        self.was_present = present.copy()
