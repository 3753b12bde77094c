"""Bandit policies with an ask/tell interface: SS-UCB and baselines (Deva, Abhishek, Gujar, "A
Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS 2021, Section 4).

Every policy keeps, per agent, the units observed ``w_i`` and the good units among them, from which
``q̂_i = good_i / w_i``.  ``select()`` asks the policy for this round's selection; ``update(x, good)``
tells it what was observed.  A policy runs one planner (``runs=None``: arrays of shape (n,)) or
``m`` independent planners at once (``runs=m``: arrays of shape (m, n)); the batched form asks its
oracle through :meth:`subsel.solvers.Solver.solve_batch`, the single form through
:meth:`~subsel.solvers.Solver.solve`.  Both give the same selections for the same history.

The oracle is any :class:`~subsel.solvers.Solver` (an instance or a registry name): DPSS-UCB and
GSS-UCB are SS-UCB with the ``dpss`` and ``gss`` oracles.

State (``to_state()`` / :func:`policy_from_state`) is plain JSON: the policy's settings, the oracle's
registry name, the round counter and the statistics (and a Thompson sampler's generator state).

Longer than 600 lines on purpose: the policies share one base (statistics, state, oracle calls)
and differ in a few lines each (the index and the threshold of Section 4); one module keeps the
differences side by side.
"""
from __future__ import annotations

import inspect
import math
import re
from typing import Any, ClassVar, Sequence

import numpy as np

from .._random import as_generator
from .._validation import as_float_array, check_array_range, check_capacity, check_scalar
from ..models import MAX_EXACT_INT, ProblemBatch, SubsetSelectionProblem
from ..solvers import Solver, SolverError, get_solver
from .environment import run_generators
from .pool import AgentPool

STATE_FORMAT = "subsel-bandit-policy"
STATE_VERSION = 2
#: Older policy-state versions still read (version 1: a fixed pool, no names).
READ_VERSIONS = (1, 2)


def exploration_rounds(horizon: int, epsilon: float) -> int:
    """SS-UCB's exploration length ``tau = ceil(3 ln T / (2 eps^2))`` (Deva et al., Algorithm 2; Lemma 3).

    Parameters
    ----------
    horizon : int
        ``T``, an integer in ``1 .. 2^53``.
    epsilon : float
        Tolerance ``eps``, in ``(0, 1]``.

    Returns
    -------
    int
        ``tau``; it can exceed ``T`` (e.g. eps = 0.01, T = 10^5 gives 172,694), and then every
        round explores.

    Raises
    ------
    ValueError
        ``horizon`` outside ``1 .. 2^53``, ``epsilon`` outside ``(0, 1]``, or an ``epsilon`` so
        small that ``tau`` would exceed ``2^53`` rounds.

    Examples
    --------
    >>> exploration_rounds(100_000, 0.05)
    6908
    """
    T = check_scalar(horizon, "horizon", int, min_val=1, max_val=MAX_EXACT_INT)
    eps = check_scalar(epsilon, "epsilon", min_val=0, max_val=1, include_boundaries="right")
    if T == 1:
        return 0
    tau = 3.0 * math.log(T) / (2.0 * eps * eps) if eps > 1e-150 else math.inf
    if not tau <= MAX_EXACT_INT:
        raise ValueError(f"epsilon = {eps:g} is too small: tau = 3 ln T / (2 eps^2) would exceed 2^53 "
                         f"rounds for horizon {T}")
    return int(math.ceil(tau))


def fitting_epsilon(horizon: int) -> float | None:
    """The smallest ``eps`` (4 significant digits, rounded up) with ``tau < T`` for horizon ``T``.

    With a smaller ``eps`` SS-UCB explores for the whole horizon (Deva et al., Algorithm 2):
    ``ceil(3 ln T / (2 eps^2)) < T`` needs ``eps >= sqrt(3 ln T / (2 (T - 1)))``.

    Returns
    -------
    float or None
        That ``eps``; 0.0 for ``T = 1`` (``tau = 0`` for every ``eps``); None when no
        ``eps <= 1`` fits (``T = 2``).

    Raises
    ------
    ValueError
        ``horizon`` outside ``1 .. 2^53``.

    Examples
    --------
    >>> fitting_epsilon(1000)
    0.1019
    """
    T = check_scalar(horizon, "horizon", int, min_val=1, max_val=MAX_EXACT_INT)
    if T == 1:
        return 0.0
    eps = math.sqrt(3.0 * math.log(T) / (2.0 * (T - 1)))
    if eps > 1.0:
        return None
    digits = 3 - math.floor(math.log10(eps))
    eps = math.ceil(eps * 10 ** digits) / 10 ** digits
    while eps <= 1.0 and exploration_rounds(T, eps) >= T:
        eps = round(eps + 10 ** -digits, digits)
    return eps if eps <= 1.0 else None


def ucb_bonus(t: int, w: np.ndarray) -> np.ndarray:
    """UCB exploration bonus ``sqrt(3 ln t / (2 w_i))`` (Deva et al., Section 4.1, Algorithm 2).

    Parameters
    ----------
    t : int
        Round ``t >= 1`` (values below 1 count as 1).
    w : ndarray of float, any shape
        Units observed per agent, ``>= 0``.

    Returns
    -------
    ndarray of float, shape like ``w``
        The bonus; ``inf`` where ``w_i = 0`` at every round, including ``t = 1`` where
        ``ln t = 0`` (no division warning, never NaN), so an agent never observed has an
        optimistic quality of 1.

    Examples
    --------
    >>> ucb_bonus(1, np.array([0.0, 1.0])).tolist()
    [inf, 0.0]
    """
    w = np.asarray(w, dtype=float)
    half = 1.5 * math.log(max(t, 1))  # 3 ln t / 2
    if half > 0.0:  # half / 0 = inf: no NaN possible
        with np.errstate(divide="ignore"):
            bonus = np.divide(half, w)
        return np.sqrt(bonus, out=bonus)
    return np.where(w > 0, 0.0, np.inf)  # round 1: ln t = 0, and 0 / 0 would be NaN


def resolve_oracle(oracle: Solver | str) -> Solver:
    """A :class:`Solver` instance, or one created by registry name (``get_solver``).

    Raises
    ------
    TypeError
        ``oracle`` is neither.
    ValueError
        Unknown or unavailable solver name.
    """
    if isinstance(oracle, Solver):
        return oracle
    if isinstance(oracle, str):
        return get_solver(oracle)
    raise TypeError(f"oracle must be a Solver or a solver name; got {oracle!r}")


class Policy(AgentPool):
    """Base class: statistics, ask/tell plumbing, oracle calls and JSON state.

    Parameters
    ----------
    oracle : Solver or str
        The offline solver asked each round (``SSA`` in Deva et al., Algorithm 2).
    cost : array-like of float, shape (n,) or (runs, n)
        Known per-unit costs ``>= 0``.
    alpha : float
        Quality threshold in [0, 1].
    R : float, default 1.0
        Revenue per good unit (``> 0``).
    capacity : array-like of int, shape (n,), optional
        Units per agent, shared by every run; default 1.
    runs : int, optional
        ``None`` for one planner (arrays of shape (n,)), else the number of independent runs.
    names : sequence of str, shape (n,), optional
        Unique agent names; default the positions as text (``"0", "1", ...``), as problems do.

    Attributes
    ----------
    t : int
        Rounds completed: the latest round with feedback (:meth:`update`'s ``round``; one more
        per update when rounds are not given).
    w : ndarray of float, shape (n,) or (runs, n)
        Units observed per agent.
    good : ndarray of float, shape like ``w``
        Good units observed per agent.

    Raises
    ------
    ValueError, TypeError
        Bad settings, naming the parameter (costs, capacities and alpha by the problem model's
        rules).
    """

    name: ClassVar[str] = "policy"

    def __init__(self, oracle: Solver | str, cost, alpha: float, R: float = 1.0, capacity=None,
                 runs: int | None = None, names=None):
        self.oracle = resolve_oracle(oracle)
        self.runs = None if runs is None else check_scalar(runs, "runs", int, min_val=1)
        try:
            c = np.array(cost, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"cost must be an array of numbers; got {cost!r}") from None
        if c.ndim not in (1, 2) or (c.ndim == 2 and c.shape[0] != (self.runs or 1)):
            raise ValueError(f"cost must have shape (n,) or (runs, n); got {c.shape}")
        if c.shape[-1] == 0:
            raise ValueError(f"cost must hold at least one agent; got shape {c.shape}")
        if c.ndim == 2 and self.runs is None:
            raise ValueError("cost has one row per run but runs is None")
        n = c.shape[-1]
        try:
            kf = np.ones(n) if capacity is None else np.asarray(capacity, dtype=float)
        except (TypeError, ValueError):
            kf = None  # the problem model's rules below name the bad entry
        if kf is not None and kf.ndim == 1 and kf.size and np.nanmax(kf) > MAX_EXACT_INT:
            i = int(np.nanargmax(kf))
            raise ValueError(f"capacity[{i}] must be <= 2^53; got {kf[i]:g}")
        # The problem model's rules and messages, checked once (no throwaway problems).
        check_array_range(as_float_array(c, "cost", (1, 2)), "cost", 0.0, rule=">= 0")
        self.alpha = check_scalar(alpha, "alpha")
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1]; got {self.alpha}")
        self.R = check_scalar(R, "R")
        if self.R <= 0:
            raise ValueError(f"R must be > 0; got {self.R}")
        self.capacity = (np.ones(n, dtype=np.int64) if capacity is None
                         else check_capacity(capacity, limit=MAX_EXACT_INT))
        if self.capacity.shape != (n,):
            raise ValueError(f"capacity has {self.capacity.size} entries but cost has {n}; "
                             "arrays must have the same length")
        self.cost = c
        m = self.runs or 1
        self._cost2 = np.broadcast_to(c, (m, n))
        self._template: ProblemBatch | None = None
        self.w = np.zeros((m, n)) if self.runs else np.zeros(n)
        self.good = np.zeros_like(self.w)
        self.t = 0
        self._init_pool(names, n)

    # ------------------------------------------------------------------ statistics
    @property
    def n(self) -> int:
        """Number of agents."""
        return int(self.cost.shape[-1])

    @property
    def q_hat(self) -> np.ndarray:
        """Empirical mean quality ``good / w``; 0 for an agent never observed (see ``w``)."""
        out = np.maximum(self.w, self._ones())
        return np.divide(self.good, out, out=out)

    def _ones(self) -> np.ndarray:
        """Read-only ones shaped like ``w``: ``np.minimum(a, ones)`` gives ``np.minimum(a, 1.0)``
        exactly, several times faster than against the scalar (kept across rounds)."""
        ones = self.__dict__.get("_ones_cache")
        if ones is None or ones.shape != self.w.shape:
            ones = np.ones(self.w.shape)
            ones.setflags(write=False)
            self.__dict__["_ones_cache"] = ones
        return ones

    def ucb(self, t: int | None = None) -> np.ndarray:
        """Raw UCB ``q̂_i + sqrt(3 ln t / (2 w_i))`` for round ``t`` (default: the next round).

        Unobserved agents get ``inf``; see :meth:`optimistic_quality` for the oracle's input.
        """
        t = self.t + 1 if t is None else t
        out = self.q_hat
        out += ucb_bonus(t, self.w)
        return out

    def optimistic_quality(self, t: int | None = None) -> np.ndarray:
        """``min(q̂⁺, 1)``, and 1 for an agent never observed at every round ``t >= 1``: never NaN.

        Deva et al., Algorithm 2 (the optimistic estimate handed to the oracle).
        """
        out = self.ucb(t)
        return np.minimum(out, self._ones(), out=out)

    def pessimistic_quality(self, t: int | None = None) -> np.ndarray:
        """``max(q̂ - sqrt(3 ln t / (2 w)), 0)``, and 0 for an agent never observed (LCB)."""
        t = self.t + 1 if t is None else t
        return np.maximum(self.q_hat - ucb_bonus(t, self.w), 0.0)

    # ------------------------------------------------------------------ ask / tell
    def select(self, available=None) -> np.ndarray:
        """This round's selection (ask), over the agents available this round.

        Parameters
        ----------
        available : array-like of bool, shape (n,) or (runs, n), or sequence of str, optional
            The agents that can be ordered this round (sleeping agents: Deva et al., Section 7):
            a mask over the pool, or their names; default every agent.  The oracle sees only
            these (see :mod:`subsel.bandits.pool`); the others get 0 units.

        Returns
        -------
        ndarray of int64, shape (n,) or (runs, n)
            Units per agent of the current pool, in pool order.

        Raises
        ------
        TypeError, ValueError
            A mask that is not boolean or has the wrong shape; an unknown name.
        """
        if available is None and not self._newcomers_possible():
            x = self._select2()  # the fixed pool: the papers' path, untouched
        else:
            mask = None if available is None else self.availability_mask(available)
            x = self._select_masked(mask)
        return x if self.runs else x[0]

    #: First round after the policy's own exploration (SS-UCB: ``tau + 1``; CUCB: 2).
    def _explored_after(self) -> int:
        return 0

    def _explore_units(self) -> np.ndarray | None:
        """Units a newcomer is ordered each round until it has :meth:`_explore_need` units observed."""
        return None

    def _explore_need(self) -> float:
        return 0.0

    def _newcomers_possible(self) -> bool:
        """Past the policy's own exploration, is some agent short of the observations it needs?"""
        need = self._explore_need()
        return bool(need) and self.t + 1 > self._explored_after() and bool(self.w.min() < need)

    def _select_masked(self, mask: np.ndarray | None) -> np.ndarray:
        """Selection with sleeping agents cut out and short-of-observations agents explored."""
        m = self.runs or 1
        avail = np.ones((m, self.n), dtype=bool) if mask is None else mask
        units = self._explore_units()
        exploring = None
        explored = self.t + 1 > self._explored_after()  # past the policy's own exploration
        if units is not None and explored and self.w.min() < self._explore_need():
            exploring = (self.w < self._explore_need()) & avail
            if not exploring.any():
                exploring = None
        self._oracle_mask = avail if exploring is None else avail & ~exploring
        try:
            x = self._select2()
        finally:
            self._oracle_mask = None
        if exploring is not None:
            x = np.where(exploring, np.broadcast_to(units, x.shape), x)
        elif explored and self._oracle_only():
            return x  # the oracle's answer, already cut to the available agents
        return np.where(avail, x, 0)

    def _oracle_only(self) -> bool:
        """Past its own exploration, does ``_select2`` answer only through :meth:`_ask_oracle`?"""
        return True

    def _select2(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def update(self, x, good_units, round: int | None = None) -> None:
        """Record one round's semi-bandit feedback (tell): ``x`` units played, ``good_units`` good.

        With lead times, feedback arrives late, in parts and in any order: ``round`` says which
        round it belongs to.  The counts are sums, so the order of the parts does not change them;
        :attr:`t` becomes the latest round with feedback.  The UCB indices use what has arrived
        (delayed feedback: Joulani, Gyorgy, Szepesvari, "Online Learning under Delayed Feedback",
        ICML 2013, Section 3: the regret grows by an additive term in the delay).

        Parameters
        ----------
        x : array-like of int, shape (n,) or (runs, n)
            Units played (and received) per agent, ``0 <= x <= capacity``.
        good_units : array-like of int, shape like ``x``
            Good units per agent, ``0 <= good <= x``.
        round : int, optional
            The round (``1 .. 2^53``) the units were ordered in; default the next round
            (``t + 1``).

        Raises
        ------
        ValueError
            Wrong shapes, non-integers, units outside ``0..capacity``, or ``good > x`` (naming
            the first offending index); a ``round`` that is not an integer in ``1 .. 2^53``.
        """
        if round is not None:
            round = check_scalar(round, "round", int, min_val=1, max_val=MAX_EXACT_INT)
        shape = self.w.shape
        xa, ga = np.asarray(x, dtype=float), np.asarray(good_units, dtype=float)
        for name, arr in (("x", xa), ("good_units", ga)):
            if arr.shape != shape:
                raise ValueError(f"{name} must have shape {shape}; got {arr.shape}")
            bad = np.argwhere(~np.isfinite(arr) | (arr != np.round(arr)) | (arr < 0))
            if bad.size:
                i = tuple(int(v) for v in bad[0])
                raise ValueError(f"{name}{list(i)} must be a non-negative integer; got {arr[i]}")
        bad = np.argwhere(xa > self.capacity)
        if bad.size:
            i = tuple(int(v) for v in bad[0])
            raise ValueError(f"x{list(i)} = {xa[i]:g} exceeds capacity {self.capacity[i[-1]]}")
        bad = np.argwhere(ga > xa)
        if bad.size:
            i = tuple(int(v) for v in bad[0])
            raise ValueError(f"good_units{list(i)} = {ga[i]:g} exceeds the units played x = {xa[i]:g}")
        bad = np.argwhere(xa > MAX_EXACT_INT - self.w)  # w + x > 2^53, decided without rounding the sum
        if bad.size:
            i = tuple(int(v) for v in bad[0])
            raise ValueError(f"x{list(i)} = {xa[i]:g} would take the units observed of agent {i[-1]} past "
                             f"2^53 = {MAX_EXACT_INT} (w = {self.w[i]:g}), the largest count kept exactly")
        self._tell(xa, ga, round)

    def _tell(self, x: np.ndarray, good: np.ndarray, round: int | None = None) -> None:
        """Unchecked update (the simulator's fast path)."""
        self.w += x
        self.good += good
        self.t = self.t + 1 if round is None else max(self.t, round)

    # ------------------------------------------------------------------ oracle
    def _ask_oracle(self, quality: np.ndarray, threshold: float,
                    objective_quality: np.ndarray | None = None) -> np.ndarray:
        """The oracle's selection on (m, n) qualities: ``solve_batch`` when batched, else ``solve``.

        Agents outside ``_oracle_mask`` (asleep, or being explored) are handed over as worthless
        (quality 0) and cut from the answer (see :mod:`subsel.bandits.pool`).
        """
        mask = self._oracle_mask
        if mask is not None:  # qualities handed to an oracle lie in [0, 1]: q * 1 = q, q * 0 = 0 exactly
            quality = quality * mask
            if objective_quality is not None:
                objective_quality = objective_quality * mask
            return self._ask_oracle_all(quality, threshold, objective_quality) * mask  # int64: x or 0
        return self._ask_oracle_all(quality, threshold, objective_quality)

    def _ask_oracle_all(self, quality: np.ndarray, threshold: float,
                        objective_quality: np.ndarray | None) -> np.ndarray:
        if self.runs:
            if self._template is None:  # costs, capacities and R validated once, then reused
                self._template = ProblemBatch(quality=quality, cost=self.cost, alpha=threshold, R=self.R,
                                              capacity=self.capacity, objective_quality=objective_quality)
                batch = self._template
            else:
                batch = self._template.with_changes(quality=quality, alpha=threshold,
                                                    objective_quality=objective_quality)
            answers = self.oracle.solve_batch(batch)
            if not answers.is_feasible.all():
                j = int(np.flatnonzero(~answers.is_feasible)[0])
                raise SolverError(f"oracle {self.oracle.name} returned status {answers.status[j].value} "
                                  f"for run {j}")
            return answers.x
        problem = SubsetSelectionProblem(
            quality=quality[0], cost=self._cost2[0], alpha=threshold, capacity=self.capacity, R=self.R,
            objective_quality=None if objective_quality is None else objective_quality[0])
        sol = self.oracle.solve(problem)
        if not sol.is_feasible:
            raise SolverError(f"oracle {self.oracle.name} returned status {sol.status.value}")
        return np.asarray(sol.x, dtype=np.int64)[None, :]

    def _full(self, units: np.ndarray) -> np.ndarray:
        return np.broadcast_to(units, (self.runs or 1, self.n)).astype(np.int64)

    def _as2(self, arr: np.ndarray) -> np.ndarray:
        return arr if self.runs else arr[None, :]

    # ------------------------------------------------------------------ state
    def _params(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "R": self.R, "capacity": self.capacity.tolist(),
                "cost": self.cost.tolist(), "runs": self.runs, "names": list(self.names)}

    def to_state(self) -> dict[str, Any]:
        """Plain-JSON snapshot: settings, oracle name, round counter and statistics.

        Returns
        -------
        dict
            Keys ``format, version, policy, oracle, params, t, w, good, retired`` (plus ``rng``
            for randomised policies); ``params`` holds the names.  :func:`policy_from_state`
            rebuilds an equal policy.
        """
        return {"format": STATE_FORMAT, "version": STATE_VERSION, "policy": self.name,
                "oracle": self.oracle.name, "params": self._params(), "t": self.t,
                "w": _intlist(self.w), "good": _intlist(self.good), "retired": self._pool_state()}

    def _load_stats(self, state: dict[str, Any]) -> None:
        """Read ``t``, ``w`` and ``good`` from a state, every number range-checked first.

        Raises
        ------
        ValueError
            Naming the key: ``t`` not an integer in ``0 .. 2^53``; ``w`` / ``good`` not arrays of
            integers of the policy's shape with ``0 <= good <= w <= 2^53``.
        """
        t = state["t"]
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= MAX_EXACT_INT:
            raise ValueError(f"policy state: 't' must be an integer in 0..2^53; got {t!r}")
        arrays = {}
        for key in ("w", "good"):
            try:
                raw = np.array(state[key])
                if raw.dtype.kind not in "iuf" or any(  # strings ("2"), booleans, None, mixed
                        isinstance(v, (bool, np.bool_)) for v in np.asarray(state[key], dtype=object).ravel()):
                    raise TypeError
                arr = raw.astype(float)
            except (TypeError, ValueError, OverflowError):
                raise ValueError(f"policy state: {key!r} must be an array of numbers; got "
                                 f"{_short(state[key])}") from None
            if arr.shape != self.w.shape:
                raise ValueError(f"policy state: {key!r} must have shape {self.w.shape}; got {arr.shape}")
            bad = np.argwhere(~np.isfinite(arr) | (arr < 0) | (arr != np.round(arr)))
            if bad.size:
                i = tuple(int(v) for v in bad[0])
                raise ValueError(f"policy state: {key}{list(i)} must be a non-negative integer; got {arr[i]:g}")
            arrays[key] = arr
        w, good = arrays["w"], arrays["good"]
        for key in ("w", "good"):
            # Counts above 2^53 are no longer exact floats (2^54 + 1 would be read as 2^54): decide
            # on the values as written, in Python integers.
            flat = np.asarray(state[key], dtype=object).ravel().tolist()
            big = [j for j, v in enumerate(flat) if v > MAX_EXACT_INT]
            if big:
                i = tuple(int(v) for v in np.unravel_index(big[0], w.shape))
                raise ValueError(f"policy state: {key}{list(i)} = {flat[big[0]]} exceeds 2^53 = {MAX_EXACT_INT}, "
                                 "the largest count kept exactly")
        # No bound t x capacity on w: an agent removed and added back with a smaller capacity keeps
        # the units it delivered at its old capacity (Policy.add_agents restores its statistics).
        bad = np.argwhere(good > w)
        if bad.size:
            i = tuple(int(v) for v in bad[0])
            raise ValueError(f"policy state: good{list(i)} = {good[i]:g} exceeds w{list(i)} = {w[i]:g}")
        self.t = int(t)
        self.w, self.good = w, good

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(oracle={self.oracle.name!r}, n={self.n}, alpha={self.alpha:g}, "
                f"runs={self.runs}, t={self.t})")


def check_state_keys(mapping: dict[str, Any], known: Sequence[str], where: str) -> None:
    """Refuse keys a state mapping should not have: a state of another version would lose them.

    Rewriting a state drops whatever this version does not know, silently; so an unknown key is
    an error naming every unknown key (the file is then left untouched).

    Raises
    ------
    ValueError
        ``"{where}: unknown key(s) 'a', 'b' (known: ...)"``.
    """
    unknown = sorted(str(k) for k in mapping if k not in known)
    if unknown:
        raise ValueError(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(repr(_short(k, 40)) for k in unknown[:5])}"
                         f"{f' and {len(unknown) - 5} more' if len(unknown) > 5 else ''} "
                         f"(known: {', '.join(known)}); written by another version?")


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _intlist(a: np.ndarray) -> list:
    return np.asarray(a).astype(np.int64).tolist()


class SSUCB(Policy):
    """SS-UCB: explore ``tau`` rounds, then the oracle on optimistic qualities (Deva et al., Algorithm 2).

    Deva et al., Algorithm 2.  Rounds ``t = 1..tau`` play every unit of every agent (``x = k``:
    "every agent" means all its units, so each agent has ``w_i >= tau`` after the exploration,
    which is what Lemma 3's bound on the average UCB bonus needs).  From round ``tau + 1`` on,
    the oracle is asked with qualities ``min(q̂⁺, 1)`` (an agent never observed gets 1), the known
    costs, threshold ``alpha + epsilon`` and ``R``.  A threshold above 1 is clipped to 1 (only
    agents whose clipped UCB is 1 can then be taken); :attr:`threshold_clipped` says so.

    Parameters
    ----------
    oracle : Solver or str
        Any solver: ``"dpss"`` gives DPSS-UCB, ``"gss"`` GSS-UCB.
    cost : array-like of float, shape (n,) or (runs, n)
    alpha : float
        Quality threshold in [0, 1].
    epsilon : float
        Tolerance ``eps > 0``.
    horizon : int
        ``T``, which sets ``tau = ceil(3 ln T / (2 eps^2))``.
    R : float, default 1.0
    capacity : array-like of int, shape (n,), optional
    runs : int, optional
        See :class:`Policy`.

    Attributes
    ----------
    tau : int
        Exploration rounds.
    threshold : float
        ``min(alpha + epsilon, 1)``.

    Raises
    ------
    ValueError
        ``epsilon <= 0``, ``horizon < 1``, and as :class:`Policy`.

    Examples
    --------
    >>> pol = SSUCB("dpss", cost=[0.1, 0.5], alpha=0.7, epsilon=0.5, horizon=10)
    >>> pol.tau, pol.select().tolist()
    (14, [1, 1])
    """

    name = "ss-ucb"

    def __init__(self, oracle: Solver | str, cost, alpha: float, epsilon: float, horizon: int,
                 R: float = 1.0, capacity=None, runs: int | None = None, names=None):
        super().__init__(oracle, cost, alpha, R, capacity, runs, names)
        self.tau = exploration_rounds(horizon, epsilon)
        self.epsilon = float(epsilon)
        self.horizon = int(horizon)
        self.threshold = min(self.alpha + self.epsilon, 1.0)
        self.threshold_clipped = self.alpha + self.epsilon > 1.0

    def _select2(self) -> np.ndarray:
        if self.t + 1 <= self.tau:
            return self._full(self.capacity)
        return self._ask_oracle(self._as2(self.optimistic_quality()), self.threshold)

    def _explored_after(self) -> int:
        return self.tau

    def _explore_units(self) -> np.ndarray | None:
        return self.capacity  # Algorithm 2's exploration, applied to the newcomer alone

    def _explore_need(self) -> float:
        return float(self.tau)  # Lemma 3: w_i >= tau keeps the UCB bonus <= eps up to T

    def _params(self) -> dict[str, Any]:
        return {**super()._params(), "epsilon": self.epsilon, "horizon": self.horizon}


class CUCB(Policy):
    """CUCB (Chen, Wang & Yuan 2013) with the quality constraint: no forced exploration.

    Round 1 plays one unit of every agent; from round 2 on, the oracle is asked every round with
    ``min(q̂⁺, 1)`` and threshold ``min(alpha + epsilon, 1)`` (``epsilon`` defaults to 0: the plain
    constraint).  An agent never observed has ``q̂⁺ = 1`` at every round.

    Parameters
    ----------
    oracle, cost, alpha, R, capacity, runs
        As :class:`Policy`.
    epsilon : float, default 0.0
        Extra margin on the oracle's threshold (``>= 0``).

    Raises
    ------
    ValueError
        ``epsilon`` outside [0, 1], and as :class:`Policy`.
    """

    name = "cucb"

    def __init__(self, oracle: Solver | str, cost, alpha: float, R: float = 1.0, capacity=None,
                 epsilon: float = 0.0, runs: int | None = None, names=None):
        super().__init__(oracle, cost, alpha, R, capacity, runs, names)
        self.epsilon = check_scalar(epsilon, "epsilon", min_val=0, max_val=1)
        self.threshold = min(self.alpha + self.epsilon, 1.0)

    def _select2(self) -> np.ndarray:
        if self.t == 0:
            return self._full(np.ones(self.n, dtype=np.int64))
        return self._ask_oracle(self._as2(self.optimistic_quality()), self.threshold)

    def _explored_after(self) -> int:
        return 1

    def _explore_units(self) -> np.ndarray | None:
        return np.ones(self.n, dtype=np.int64)  # round 1's rule, applied to the newcomer alone

    def _explore_need(self) -> float:
        return 1.0

    def _params(self) -> dict[str, Any]:
        return {**super()._params(), "epsilon": self.epsilon}


class CautiousUCB(CUCB):
    """Optimistic in the objective, pessimistic in the constraint (a baseline beyond the paper).

    Like :class:`CUCB` (round 1 plays one unit of every agent), but the oracle sees the UCB
    ``min(q̂⁺, 1)`` in the objective (``objective_quality``) and the LCB
    ``max(q̂ - sqrt(3 ln t / (2 w)), 0)`` in the quality constraint, so its selections meet the
    constraint with high probability from the start, at the price of exploring less.

    Parameters
    ----------
    oracle, cost, alpha, R, capacity, epsilon, runs
        As :class:`CUCB`.
    """

    name = "cautious-ucb"

    def _select2(self) -> np.ndarray:
        if self.t == 0:
            return self._full(np.ones(self.n, dtype=np.int64))
        return self._ask_oracle(self._as2(self.pessimistic_quality()), self.threshold,
                                objective_quality=self._as2(self.optimistic_quality()))


class ThompsonSampling(CUCB):
    """Combinatorial Thompson sampling with Beta posteriors (Wang & Chen 2018).

    Each round draws ``theta_i ~ Beta(a0 + good_i, b0 + w_i - good_i)`` and plays the oracle's
    answer for qualities ``theta`` and threshold ``min(alpha + epsilon, 1)``.

    Parameters
    ----------
    oracle, cost, alpha, R, capacity, epsilon, runs
        As :class:`CUCB`.
    prior : (float, float), default (1.0, 1.0)
        Beta prior ``(a0, b0)``, both ``> 0`` (uniform by default).
    seed : int, Generator, SeedSequence or None (or, batched, a list of one per run)
        Source of the posterior draws; its state is part of :meth:`to_state`.  Batched
        (``runs=m``), run ``j`` draws from its own stream, child ``j`` of the seed
        (:func:`~subsel.bandits.environment.run_generators`), so its draws do not depend on ``m``.

    Raises
    ------
    ValueError
        A prior parameter ``<= 0``, and as :class:`CUCB`.
    """

    name = "cts"

    def __init__(self, oracle: Solver | str, cost, alpha: float, R: float = 1.0, capacity=None,
                 epsilon: float = 0.0, prior: tuple[float, float] = (1.0, 1.0),
                 seed: int | np.random.Generator | None = None, runs: int | None = None, names=None):
        super().__init__(oracle, cost, alpha, R, capacity, epsilon, runs, names)
        a0, b0 = (check_scalar(v, "prior") for v in prior)
        if a0 <= 0 or b0 <= 0:
            raise ValueError(f"prior parameters must be > 0; got {tuple(prior)}")
        self.prior = (a0, b0)
        if self.runs is None:
            self.rng = as_generator(seed)
            self.rngs = [self.rng]
        else:
            self.rngs = run_generators(seed, self.runs)
            self.rng = self.rngs[0]

    def _select2(self) -> np.ndarray:
        a = self.prior[0] + self.good
        b = self.prior[1] + self.w - self.good
        if self.runs is None:
            return self._ask_oracle(self.rng.beta(a, b)[None, :], self.threshold)
        theta = np.empty_like(self.w)
        for j, g in enumerate(self.rngs):  # one stream per run: run j's draws do not depend on m
            theta[j] = g.beta(a[j], b[j])
        return self._ask_oracle(theta, self.threshold)

    def _explore_units(self) -> np.ndarray | None:
        return None  # a newcomer starts from the prior: no forced exploration

    def _explore_need(self) -> float:
        return 0.0

    def _params(self) -> dict[str, Any]:
        return {**super()._params(), "prior": list(self.prior)}

    def to_state(self) -> dict[str, Any]:
        state = super().to_state()
        rngs = [{"bit_generator": type(g.bit_generator).__name__, "state": g.bit_generator.state}
                for g in self.rngs]
        state["rng"] = rngs[0] if self.runs is None else rngs
        return state

    def _load_rng(self, value: Any) -> None:
        """Restore the generator(s) of :meth:`to_state`, bit generators from an allow-list only."""
        entries = [value] if self.runs is None else value
        if not isinstance(entries, list) or len(entries) != len(self.rngs):
            raise ValueError(f"policy state: 'rng' must hold {len(self.rngs)} generator state(s); "
                             f"got {_short(value)}")
        gens = [_generator_from_state(e) for e in entries]
        self.rngs = gens
        self.rng = gens[0]


#: Bit generators a policy state may name (numpy's; nothing else is ever called).
BIT_GENERATORS: dict[str, type] = {cls.__name__: cls for cls in (
    np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64, np.random.MT19937)}


def _generator_from_state(entry: Any) -> np.random.Generator:
    if not isinstance(entry, dict) or "bit_generator" not in entry or "state" not in entry:
        raise ValueError(f"policy state: 'rng' must hold 'bit_generator' and 'state'; got {_short(entry)}")
    name = entry["bit_generator"]
    if not isinstance(name, str) or name not in BIT_GENERATORS:
        raise ValueError(f"policy state: rng.bit_generator {_short(name)} is not one of "
                         f"{', '.join(BIT_GENERATORS)}")
    check_state_keys(entry, ["bit_generator", "state"], "policy state 'rng'")
    bg = BIT_GENERATORS[name]()
    inner = entry["state"]
    if not isinstance(inner, dict) or inner.get("bit_generator") != name:
        raise ValueError(f"policy state: rng.state must be a {name} state; got {_short(inner)}")
    fresh = bg.state
    check_state_keys(inner, list(fresh), "policy state 'rng.state'")
    for key, value in fresh.items():
        if isinstance(value, dict) and isinstance(inner.get(key), dict):
            check_state_keys(inner[key], list(value), f"policy state 'rng.state.{key}'")
    try:
        bg.state = inner
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ValueError(f"policy state: rng.state is not a valid {name} state ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''})") from None
    return np.random.Generator(bg)


class KnownQuality(Policy):
    """The benchmark that knows ``q``: plays the oracle's answer for the true qualities every round.

    With an exact oracle its regret is zero (Deva et al.'s regret, eq. (2), is measured against it).

    Parameters
    ----------
    oracle, cost, alpha, R, capacity, runs
        As :class:`Policy`.
    quality : array-like of float, shape (n,) or (runs, n)
        The true qualities.
    """

    name = "known-quality"

    def __init__(self, oracle: Solver | str, cost, alpha: float, quality, R: float = 1.0,
                 capacity=None, runs: int | None = None, names=None):
        super().__init__(oracle, cost, alpha, R, capacity, runs, names)
        q = np.array(quality, dtype=float)
        if q.shape != self.w.shape:
            raise ValueError(f"quality must have shape {self.w.shape}; got {q.shape}")
        self.quality = q
        self._x = self._ask_oracle(self._as2(q), self.alpha)

    def _select2(self) -> np.ndarray:
        if self._oracle_mask is not None:  # some agents asleep: the optimum among the others
            return self._ask_oracle(self._as2(self.quality), self.alpha)
        return self._x.copy()

    def add_agents(self, cost, capacity=None, names=None, quality=None) -> None:
        """As :meth:`Policy.add_agents`, with the new agents' true ``quality`` (shape like ``cost``).

        Raises
        ------
        ValueError
            ``quality`` missing or of another shape than ``cost``; and as :meth:`Policy.add_agents`.
        """
        if quality is None:
            raise ValueError("known-quality: add_agents needs the new agents' quality")
        q = np.array(quality, dtype=float)
        if q.shape != np.shape(cost):
            raise ValueError(f"quality must have the shape of cost {np.shape(cost)}; got {q.shape}")
        self._new_quality = q
        try:
            super().add_agents(cost, capacity, names)
        finally:
            del self._new_quality

    def _before_pool_change(self, new, keep) -> None:
        if keep is not None:
            self.quality = self.quality[..., keep]
        else:
            m = self.runs or 1
            q = self._new_quality
            if self.quality.ndim == 2 or q.ndim == 2:
                self.quality = np.concatenate([np.broadcast_to(self.quality, (m, self.quality.shape[-1])),
                                               np.broadcast_to(q, (m, q.shape[-1]))], axis=1)
            else:
                self.quality = np.concatenate([self.quality, q])

    def _pool_changed(self) -> None:
        super()._pool_changed()
        self._x = self._ask_oracle(self._as2(self.quality), self.alpha)

    def _params(self) -> dict[str, Any]:
        return {**super()._params(), "quality": self.quality.tolist()}


#: Registry of policies by name (``make_policy``, the CLI's ``--policy``).
POLICIES: dict[str, type[Policy]] = {
    cls.name: cls for cls in (SSUCB, CUCB, CautiousUCB, ThompsonSampling, KnownQuality)}

#: Names that fix the oracle: DPSS-UCB and GSS-UCB are SS-UCB with those oracles (Deva et al.).
ALIASES: dict[str, tuple[str, str]] = {"dpss-ucb": ("ss-ucb", "dpss"), "gss-ucb": ("ss-ucb", "gss")}


def policy_names() -> list[str]:
    """Every name :func:`make_policy` accepts."""
    return list(POLICIES) + list(ALIASES)


def policy_settings() -> list[str]:
    """Every setting some policy takes (the keywords :func:`make_policy` accepts)."""
    names: set[str] = set()
    for cls in POLICIES.values():
        names |= set(inspect.signature(cls.__init__).parameters) - {"self", "oracle"}
    return sorted(names)


def make_policy(name: str, oracle: Solver | str | None = None, **settings: Any) -> Policy:
    """Create a policy by name with the settings it takes.

    One settings mapping can serve every policy: a setting another policy takes (``horizon`` for
    CUCB, ``seed`` for SS-UCB, ...) is ignored; a setting no policy takes (a typo such as
    ``epsilonn``) is an error.

    Parameters
    ----------
    name : str
        One of :func:`policy_names` (``ss-ucb``, ``cucb``, ``cautious-ucb``, ``cts``,
        ``known-quality``, ``dpss-ucb``, ``gss-ucb``).
    oracle : Solver or str, optional
        The oracle; default ``"dpss"`` (or the alias's own).
    **settings
        ``cost, alpha, epsilon, horizon, R, capacity, runs, seed, quality, prior``.

    Raises
    ------
    ValueError
        Unknown name, or an alias given a different oracle.
    TypeError
        A setting no policy takes, naming it; a required setting missing.
    """
    unknown = sorted(set(settings) - set(policy_settings()))
    if unknown:
        raise TypeError(f"make_policy: unknown setting{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(map(repr, unknown))}; known: {', '.join(policy_settings())}")
    key = str(name).strip().lower()
    if key in ALIASES:
        key, fixed = ALIASES[key]
        if oracle is not None and resolve_oracle(oracle).name != fixed:
            raise ValueError(f"policy {name!r} is SS-UCB with the {fixed!r} oracle; got oracle "
                             f"{resolve_oracle(oracle).name!r} (use --policy ss-ucb --oracle NAME)")
        oracle = fixed
    if key not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; known policies: {', '.join(policy_names())}")
    cls = POLICIES[key]
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "oracle"}
    kwargs = {k: v for k, v in settings.items() if k in accepted}
    return cls(oracle if oracle is not None else "dpss", **kwargs)


def policy_from_state(state: dict[str, Any], oracle: Solver | None = None) -> Policy:
    """Rebuild a policy from :meth:`Policy.to_state` (the inverse, statistics included).

    Parameters
    ----------
    state : dict
        As written by ``to_state`` (e.g. read back from JSON).
    oracle : Solver, optional
        Use this solver instead of creating one from the state's oracle name.

    Raises
    ------
    ValueError
        Not a policy state, unknown version or policy, a missing key, or inconsistent
        statistics (naming the key or field).
    """
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise ValueError(f"not a subsel bandit policy state (expected format {STATE_FORMAT!r})")
    version = state.get("version")
    if isinstance(version, bool) or version not in READ_VERSIONS:
        raise ValueError(f"unsupported policy state version {version!r}; "
                         f"this subsel reads versions {', '.join(map(str, READ_VERSIONS))}")
    name = state.get("policy")
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r} in state; known: {', '.join(POLICIES)}")
    known = ["format", "version", "policy", "oracle", "params", "t", "w", "good"] + (
        ["retired"] if version >= 2 else [])
    check_state_keys(state, known + (["rng"] if POLICIES[name] is ThompsonSampling else []), "policy state")
    missing = [k for k in ("params", "oracle", "t", "w", "good") if k not in state]
    if missing:
        raise ValueError(f"policy state: key {missing[0]!r} is missing")
    if not isinstance(state["params"], dict):
        raise ValueError(f"policy state: 'params' must be a mapping; got {state['params']!r}")
    params = dict(state["params"])
    if oracle is None and not isinstance(state["oracle"], str):
        raise ValueError(f"policy state: 'oracle' must be a solver name; got {_short(state['oracle'])}")
    try:
        policy = make_policy(name, oracle if oracle is not None else state["oracle"], **params)
    except (TypeError, ValueError, OverflowError) as exc:
        text = str(exc).splitlines()[0]
        # a constructor's TypeError names a Python function: say which key of the state is wrong
        missing = re.search(r"missing \d+ required (?:positional |keyword-only )?arguments?: '(\w+)'", text)
        unknown = re.search(r"unexpected keyword argument '(\w+)'", text)
        if isinstance(exc, TypeError) and missing:
            raise ValueError(f"policy state: key 'params.{missing[1]}' is missing") from None
        if isinstance(exc, TypeError) and unknown:
            raise ValueError(f"policy state: 'params' has an unknown key {unknown[1]!r}") from None
        raise ValueError(f"policy state 'params': {text}") from None
    policy._load_stats(state)
    if version >= 2:
        policy._load_retired(state.get("retired", {}))
    if isinstance(policy, ThompsonSampling):  # its random stream is part of its state
        if "rng" not in state:
            raise ValueError("policy state: key 'rng' is missing (a cts state holds its generator)")
        policy._load_rng(state["rng"])
    return policy
