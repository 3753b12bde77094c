"""Bernoulli agents with hidden qualities: the bandit environment of SS-UCB (SPEC §2).

Every unit procured from agent ``i`` is good with probability ``q_i`` (Deva et al., Section 4.1:
``E[X_i^j] = q_i``), independently of everything else.  Playing a selection ``x`` (units per agent)
returns, per agent, the units received and the units good — semi-bandit feedback.  The environment
draws the outcomes; policies never see ``q``.
"""
from __future__ import annotations

import numpy as np

from .._random import as_generator
from ..models import FEASIBILITY_TOL, SubsetSelectionProblem


class BernoulliEnvironment:
    """Agents whose units are good with hidden probabilities ``q`` (SPEC §2; Deva et al., §4.1).

    One environment holds ``m`` independent runs at once when ``quality`` has shape (m, n) (the
    batched simulation); a 1-D ``quality`` is a single run.

    Parameters
    ----------
    quality : array-like of float, shape (n,) or (m, n)
        True qualities ``q_i`` in [0, 1] (hidden from policies).
    cost : array-like of float, shape (n,) or like ``quality``
        Known per-unit costs ``c_i >= 0`` (revenue units).
    capacity : array-like of int, shape (n,), optional
        Units per agent ``k_i >= 1``, shared by every run; default 1.
    R : float, default 1.0
        Revenue per good unit (``> 0``); per-unit utility ``r_i = R q_i - c_i``.
    seed : int, Generator, SeedSequence or None
        Source of the outcomes.

    Notes
    -----
    Outcomes use common random numbers: each round draws one uniform number per unit slot
    (shape ``quality.shape + (max k,)``) whether or not the unit is played, and unit ``u`` of
    agent ``i`` is good when its number is below ``q_i``.  Two policies run against environments
    with the same seed therefore see the same luck, and a run's outcomes do not depend on how the
    other runs play.

    Raises
    ------
    ValueError
        Bad shapes or values (via :class:`SubsetSelectionProblem`'s rules: quality in [0, 1],
        cost >= 0, capacity a positive integer, R > 0).

    Examples
    --------
    >>> env = BernoulliEnvironment([0.9, 0.2], [0.1, 0.1], seed=1)
    >>> received, good = env.play([1, 1])
    >>> received.tolist(), bool(good[0] <= 1)
    ([1, 1], True)
    """

    def __init__(self, quality, cost, capacity=None, R: float = 1.0,
                 seed: int | np.random.Generator | np.random.SeedSequence | None = None):
        q = np.array(quality, dtype=float)
        if q.ndim not in (1, 2) or q.shape[-1] == 0:
            raise ValueError(f"quality must have shape (n,) or (m, n); got {q.shape}")
        c = np.array(cost, dtype=float)
        if c.shape not in (q.shape[-1:], q.shape):
            raise ValueError(f"cost must have shape ({q.shape[-1]},) or {q.shape}; got {c.shape}")
        c = np.broadcast_to(c, q.shape)
        q2, c2 = q.reshape(-1, q.shape[-1]), c.reshape(-1, q.shape[-1])
        # One validation, in one place: the problem model's rules (row 0 names the fields).
        for j in range(q2.shape[0]):
            try:
                SubsetSelectionProblem(quality=q2[j], cost=c2[j], alpha=0.0, capacity=capacity, R=R)
            except ValueError as exc:
                raise ValueError(f"run {j}: {exc}" if q.ndim == 2 else str(exc)) from None
        self.quality = q
        self.cost = np.array(c)
        self.capacity = (np.ones(q.shape[-1], dtype=np.int64) if capacity is None
                         else np.asarray(capacity, dtype=float).astype(np.int64))
        self.R = float(R)
        self.rng = as_generator(seed)
        self._kmax = int(self.capacity.max())

    @property
    def n(self) -> int:
        """Number of agents."""
        return int(self.quality.shape[-1])

    @property
    def runs(self) -> int | None:
        """Number of runs for a batched environment, None for a single run."""
        return None if self.quality.ndim == 1 else int(self.quality.shape[0])

    @property
    def utility(self) -> np.ndarray:
        """True per-unit utilities ``r = R q - c``, shape like ``quality``."""
        return self.R * self.quality - self.cost

    def problem(self, alpha: float, run: int | None = None) -> SubsetSelectionProblem:
        """The known-quality problem of one run (true ``q``), e.g. for an exact solver.

        Parameters
        ----------
        alpha : float
            Quality threshold.
        run : int, optional
            Row of a batched environment (required then).
        """
        q, c = (self.quality, self.cost) if run is None else (self.quality[run], self.cost[run])
        if q.ndim != 1:
            raise ValueError("run must be given for a batched environment")
        return SubsetSelectionProblem(quality=q, cost=c, alpha=alpha, capacity=self.capacity, R=self.R)

    def play(self, x) -> tuple[np.ndarray, np.ndarray]:
        """Procure ``x`` units and observe them (semi-bandit feedback; Deva et al., §4.1).

        Parameters
        ----------
        x : array-like of int, shape like ``quality``
            Units per agent (and run), ``0 <= x <= capacity``.

        Returns
        -------
        received : ndarray of int64, shape like ``quality``
            Units delivered (all units ordered).
        good : ndarray of int64, shape like ``quality``
            Good units among them, ``0 <= good <= received``.

        Raises
        ------
        ValueError
            Wrong shape, or units outside ``0..capacity`` or not integers.
        """
        xa = np.asarray(x)
        if xa.shape != self.quality.shape:
            raise ValueError(f"x must have shape {self.quality.shape}; got {xa.shape}")
        xi = xa.astype(np.int64)
        if np.any(xi != xa) or np.any(xi < 0) or np.any(xi > self.capacity):
            bad = np.argwhere((xi != xa) | (xi < 0) | (xi > self.capacity))[0]
            raise ValueError(f"x{bad.tolist()} must be an integer in [0, capacity]; got {xa[tuple(bad)]}")
        return xi, self._good(xi)

    def _good(self, x: np.ndarray) -> np.ndarray:
        """Draw the good units of an already checked selection (the simulator's fast path)."""
        if self._kmax == 1:
            return (self.rng.random(self.quality.shape) < self.quality) * x
        u = self.rng.random(self.quality.shape + (self._kmax,))
        ok = u < self.quality[..., None]
        played = np.arange(self._kmax) < x[..., None]
        return (ok & played).sum(axis=-1).astype(np.int64)


def surplus_ok(x: np.ndarray, quality: np.ndarray, threshold: float) -> np.ndarray:
    """Whether ``sum_i (q_i - threshold) x_i >= -FEASIBILITY_TOL`` per run (SPEC §1 linear form).

    With ``threshold = alpha`` this is feasibility; with ``alpha - epsilon`` it is SPEC §2's
    "correct" super-arm.  An empty selection passes (its surplus is 0).

    Parameters
    ----------
    x, quality : ndarray, shape (n,) or (m, n)

    Returns
    -------
    bool or ndarray of bool, shape (m,)
    """
    return (x * (quality - threshold)).sum(axis=-1) >= -FEASIBILITY_TOL
