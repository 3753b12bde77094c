"""Bernoulli agents with hidden qualities: the bandit environment of SS-UCB (Deva, Abhishek, Gujar,
"A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS 2021, Section 4.1).

Every unit procured from agent ``i`` is good with probability ``q_i`` (Deva et al., Section 4.1:
``E[X_i^j] = q_i``), independently of everything else.  Playing a selection ``x`` (units per agent)
returns, per agent, the units received and the units good — semi-bandit feedback.  The environment
draws the outcomes; policies never see ``q``.
"""
from __future__ import annotations

import numpy as np

from .._random import as_generator
from .._validation import check_scalar
from ..models import FEASIBILITY_TOL, SubsetSelectionProblem


def run_seeds(seed: int | np.random.Generator | np.random.SeedSequence | None, runs: int,
              start: int = 0) -> list[np.random.SeedSequence]:
    """One seed sequence per run index: children ``start .. start + runs - 1`` of ``seed``.

    Child ``j`` is ``SeedSequence(entropy, spawn_key=root.spawn_key + (j,))``, exactly what
    ``SeedSequence(seed).spawn(J)[j]`` gives for any ``J > j``, but computed from ``j`` alone: run
    ``j``'s stream is the same whatever the number of runs, and runs ``500..999`` of an experiment
    split over jobs or cluster workers are ``run_seeds(seed, 500, start=500)``.

    Parameters
    ----------
    seed : int, SeedSequence, Generator or None
        The root.  A Generator gives a root from four 64-bit words drawn from it (so the result
        depends on its state); None gives fresh entropy.
    runs : int
        Number of children, ``>= 0``.
    start : int, default 0
        Index of the first child, ``>= 0``.

    Returns
    -------
    list of numpy.random.SeedSequence, length ``runs``

    Raises
    ------
    TypeError
        ``seed`` is not one of the accepted types.
    ValueError
        ``runs`` or ``start`` negative (or a negative int seed, by numpy).

    Examples
    --------
    >>> a = run_seeds(7, 40)[3].generate_state(2)
    >>> b = run_seeds(7, 1, start=3)[0].generate_state(2)
    >>> bool((a == b).all())
    True
    """
    for name, value in (("runs", runs), ("start", start)):
        check_scalar(value, name, int, min_val=0)
    if isinstance(seed, np.random.Generator):
        root = np.random.SeedSequence(seed.integers(0, 2 ** 63, size=4).tolist())
    elif isinstance(seed, np.random.SeedSequence):
        root = seed
    elif seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        root = np.random.SeedSequence(None if seed is None else int(seed))
    else:
        raise TypeError(f"seed must be an int, a numpy Generator, a SeedSequence or None; got {seed!r}")
    return [np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + (int(j),),
                                   pool_size=root.pool_size)
            for j in range(int(start), int(start) + int(runs))]


def run_generators(seed, runs: int) -> list[np.random.Generator]:
    """One generator per run: from ``run_seeds(seed, runs)``, or from a sequence of per-run seeds.

    Parameters
    ----------
    seed : int, Generator, SeedSequence, None, or a list/tuple of ``runs`` of them
        A single seed gives run ``j`` the generator of child ``j`` (:func:`run_seeds`); a
        sequence gives run ``j`` its ``j``-th entry.
    runs : int

    Raises
    ------
    ValueError
        A sequence whose length is not ``runs``.
    TypeError
        An entry of an unaccepted type.
    """
    if isinstance(seed, (list, tuple)):
        if len(seed) != runs:
            raise ValueError(f"seed has {len(seed)} per-run entries but quality has {runs} runs")
        return [as_generator(s) for s in seed]
    return [np.random.default_rng(s) for s in run_seeds(seed, runs)]


class BernoulliEnvironment:
    """Agents whose units are good with hidden probabilities ``q`` (Deva et al., Section 4.1).

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
    seed : int, Generator, SeedSequence, None, or a sequence of them (one per run)
        Source of the outcomes.  For a batched environment a single seed gives run ``j`` the
        stream ``run_seeds(seed, m)[j]``; a sequence of ``m`` seeds gives each run its own (e.g.
        ``run_seeds(seed, m, start=s)`` for runs ``s .. s + m - 1`` of a larger experiment).

    Notes
    -----
    Outcomes use common random numbers: each round draws one uniform number per unit slot
    (``n x max k`` per run) whether or not the unit is played, and unit ``u`` of agent ``i`` is
    good when its number is below ``q_i``.  Two policies run against environments with the same
    seed therefore see the same luck.  Every run has its own random stream, consumed in round
    order, so run ``j``'s outcomes depend neither on how the other runs play nor on how many runs
    there are or how they are split over jobs.  The batched draws are made in blocks of rounds
    (one generator call per run and block), which changes no number.

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
        self._kmax = int(self.capacity.max())
        m = self.runs
        self.rngs = [as_generator(seed)] if m is None else run_generators(seed, m)
        self.rng = self.rngs[0]
        width = self.n * self._kmax
        self._block = 1 if m is None else int(min(1024, max(1, _BLOCK_VALUES // (m * width))))
        self._buffer = np.empty((0,))
        self._next = self._block  # empty buffer: the first draw fills it

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
        return xi, self._good(xi).astype(np.int64)

    def _uniforms(self) -> np.ndarray:
        """This round's uniform numbers, shape ``quality.shape`` (+ ``(max k,)`` if some k > 1)."""
        shape = self.quality.shape + ((self._kmax,) if self._kmax > 1 else ())
        if self.runs is None:
            return self.rng.random(shape)
        if self._next == self._block:  # refill: one call per run for the next block of rounds
            m, B = self.runs, self._block
            per_run = np.empty((m, B * self.n * self._kmax))
            for j, g in enumerate(self.rngs):
                g.random(out=per_run[j])
            self._buffer = per_run.reshape((m, B) + shape[1:])  # round b is [:, b]: a strided view
            self._next = 0
        u = self._buffer[:, self._next]
        self._next += 1
        return u

    def _good(self, x: np.ndarray) -> np.ndarray:
        """Draw the good units of an already checked selection (the simulator's fast path).

        Integers like ``x``: int64, or bool when every capacity is 1 (a unit is good or not).
        """
        if self._kmax == 1:
            good = np.less(self._uniforms(), self.quality)
            return np.logical_and(good, x, out=good)
        u = self._uniforms()
        ok = u < self.quality[..., None]
        played = np.arange(self._kmax) < x[..., None]
        return (ok & played).sum(axis=-1).astype(np.int64)


#: Uniform numbers drawn per block of a batched environment (about 16 MB of float64).
_BLOCK_VALUES = 2 ** 21


def surplus_ok(x: np.ndarray, quality: np.ndarray, threshold: float) -> np.ndarray:
    """Whether ``sum_i (q_i - threshold) x_i >= -FEASIBILITY_TOL`` per run (the linear form of the
    quality constraint, Deva et al., Section 3).

    With ``threshold = alpha`` this is feasibility; with ``alpha - epsilon`` it is the "correct"
    super-arm of Deva et al., Section 4.  An empty selection passes (its surplus is 0).

    Parameters
    ----------
    x, quality : ndarray, shape (n,) or (m, n)

    Returns
    -------
    bool or ndarray of bool, shape (m,)
    """
    return (x * (quality - threshold)).sum(axis=-1) >= -FEASIBILITY_TOL
