"""EMSCO's genetic operators as small, separately tested functions (Hamilton and Fulp, IEEE CEC 2022, Section IV).

Every function is pure apart from the explicit ``rng: numpy.random.Generator`` it is handed.  Nothing
here knows about classification: a *stage assignment* is an integer vector ``Q`` with ``Q[i]`` the
(zero-based) stage of feature ``i``; it is *aligned* when its stages are ``0..|Q|-1``, all non-empty.
``|Q|`` (:func:`n_stages`) is the stage count.  Objectives are always **maximised**.

Rounding: the paper's ``round(x)`` "returns the nearest integer"; halves are rounded up here
(``floor(x + 0.5)``, :func:`round_half_up`), not to even as Python's ``round`` does.
"""
from __future__ import annotations

import functools

import numpy as np
from scipy import stats

__all__ = [
    "beta_binomial_pmf",
    "context_crossover",
    "crossover_stage_count",
    "elite_indices",
    "fitness",
    "front_ranks",
    "log_fitness",
    "map_stage",
    "mutation_pmf",
    "n_stages",
    "nondominated_sort",
    "random_stage_assignment",
    "realign",
    "roulette_wheel",
    "round_half_up",
    "stage_mutation",
]


def round_half_up(x):
    """Nearest integer, halves rounded up: ``floor(x + 0.5)`` (the paper's ``round`` on R+).

    Parameters
    ----------
    x : float or ndarray

    Returns
    -------
    int or ndarray of int64
    """
    r = np.floor(np.asarray(x, dtype=float) + 0.5).astype(np.int64)
    return int(r) if r.ndim == 0 else r


def n_stages(genes: np.ndarray) -> int:
    """Stage count ``|Q|`` of an aligned stage assignment (``max + 1``).

    Parameters
    ----------
    genes : ndarray of int, shape (n_features,)

    Returns
    -------
    int
    """
    return int(genes.max()) + 1 if isinstance(genes, np.ndarray) else int(max(genes)) + 1


def realign(genes: np.ndarray) -> np.ndarray:
    """Remove empty stages and renumber the rest ``0..s-1`` keeping their order (paper Section IV-E, crossover).

    Parameters
    ----------
    genes : array-like of int, shape (n_features,)
        Stage of each feature, any non-negative integers.

    Returns
    -------
    ndarray of int64, shape (n_features,)
        Aligned assignment: stage ``j`` is the ``j``-th smallest distinct input value.

    Examples
    --------
    >>> realign([4, 0, 4, 2]).tolist()
    [2, 0, 2, 1]
    """
    genes = np.asarray(genes, dtype=np.int64)
    if genes.size == 0:
        return genes.copy()
    present = np.zeros(int(genes.max()) + 1, dtype=np.int64)
    present[genes] = 1
    return (np.cumsum(present) - 1)[genes]


def random_stage_assignment(n_features: int, max_stages: int, rng: np.random.Generator) -> np.ndarray:
    """A random one- or two-stage solution of EMSCO's initial population (paper Section IV).

    With probability 1/2 every feature goes to stage 0; otherwise each feature goes to stage 0 or 1
    by a fair coin (then realigned, so an all-equal draw is a one-stage solution).  With
    ``max_stages == 1`` or a single feature the solution always has one stage.

    Parameters
    ----------
    n_features : int
        ``n >= 1``.
    max_stages : int
        Maximum stage count ``k >= 1``.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, shape (n_features,)
    """
    if max_stages < 2 or n_features < 2 or rng.random() < 0.5:
        return np.zeros(n_features, dtype=np.int64)
    return realign(rng.integers(0, 2, size=n_features))


def beta_binomial_pmf(n: int, beta: float) -> np.ndarray:
    """Probability mass of BetaBinomial(n, a=1, b=beta) on ``0..n`` (the paper's Eq. for mutation).

    ``P(j) = C(n, j) B(j + 1, n - j + beta) / B(1, beta)``; mean ``n / (beta + 1)``; decreasing in
    ``j`` when ``beta > 1``.

    Parameters
    ----------
    n : int
        ``n >= 0``.
    beta : float
        ``beta > 0``.

    Returns
    -------
    ndarray of float64, shape (n + 1,)
        Sums to 1.
    """
    return stats.betabinom.pmf(np.arange(n + 1), n, 1.0, beta)


@functools.lru_cache(maxsize=1024)
def mutation_pmf(stage_count: int, beta: float, max_stages: int) -> np.ndarray:
    """Distribution of a mutated gene's new stage (paper Section IV-D, mutation).

    Below the maximum stage count (``stage_count < max_stages``) it is BetaBinomial(n = |Q|, 1, beta)
    over ``0..|Q|``, where drawing ``|Q|`` opens a new stage.  At the maximum the value ``|Q|`` is
    not allowed: the same pmf restricted to ``0..|Q|-1`` and renormalised.

    Parameters
    ----------
    stage_count : int
        ``|Q| >= 1``.
    beta : float
        Bias ``beta > 0`` (larger prefers early stages).
    max_stages : int
        Maximum stage count ``k >= 1``.

    Returns
    -------
    ndarray of float64, shape (|Q| + 1,) or (|Q|,)
        Read-only (cached per argument triple).
    """
    pmf = beta_binomial_pmf(stage_count, beta)
    if stage_count >= max_stages:
        pmf = pmf[:-1] / pmf[:-1].sum()
    pmf.flags.writeable = False
    return pmf


def stage_mutation(genes: np.ndarray, rate: float, beta: float, max_stages: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Beta-binomial mutation of a stage assignment (paper Section IV-D).

    Each gene mutates independently with probability ``rate``; a mutated gene's new stage is drawn
    from :func:`mutation_pmf` of the chromosome's stage count before mutation (so all genes that
    draw ``|Q|`` go to the same new stage, and the stage count grows by at most one).  The draw
    uses the pmf as the probabilities (``Generator.choice(..., p=pmf)``) — the authors' code put
    them in ``choice``'s ``replace`` argument and so drew uniformly.  The result is realigned
    (a mutation can empty a stage).

    Parameters
    ----------
    genes : ndarray of int, shape (n_features,)
        Aligned assignment with ``|Q| <= max_stages``; not modified.
    rate : float
        Mutation rate ``m̂`` per gene, in [0, 1].
    beta : float
        Beta-binomial bias ``beta > 0``.
    max_stages : int
        Maximum stage count ``k``.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, shape (n_features,)
        Aligned assignment with at most ``max_stages`` stages.
    """
    genes = np.asarray(genes, dtype=np.int64)
    hit = rng.random(genes.size) < rate
    n_hit = int(hit.sum())
    if n_hit == 0:
        return genes.copy()
    pmf = mutation_pmf(n_stages(genes), float(beta), int(max_stages))
    child = genes.copy()
    child[hit] = rng.choice(pmf.size, size=n_hit, p=pmf)
    return realign(child)


def crossover_stage_count(size_a: int, size_b: int, rng: np.random.Generator) -> int:
    """The child's stage count: ``|P_A|``, ``|P_B|`` or ``round((|P_A| + |P_B|) / 2)``, 1/3 each.

    Parameters
    ----------
    size_a, size_b : int
        Parents' stage counts.
    rng : numpy.random.Generator

    Returns
    -------
    int
    """
    return (size_a, size_b, round_half_up((size_a + size_b) / 2))[int(rng.integers(0, 3))]


def map_stage(stage, parent_size, child_size):
    """Context-keeping gene map ``max(0, round((stage + 1) / |R| * |C|) - 1)`` (paper §IV-E).

    Parameters
    ----------
    stage : int or ndarray of int
        ``[R]_i``, zero-based stage in parent ``R``.
    parent_size : int or ndarray of int
        ``|R|``.
    child_size : int
        ``|C|``.

    Returns
    -------
    int or ndarray of int64
        Zero-based stage in the child, in ``0..|C|-1``.

    Examples
    --------
    >>> map_stage(0, 2, 4), map_stage(1, 2, 4), map_stage(2, 4, 2)
    (1, 3, 1)
    """
    r = np.maximum(0, round_half_up((np.asarray(stage) + 1) / np.asarray(parent_size) * child_size) - 1)
    return int(r) if np.ndim(r) == 0 else r


def context_crossover(parent_a: np.ndarray, parent_b: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
    """EMSCO's context-keeping uniform crossover (paper Section IV-E), always recombining.

    The child's stage count ``|C|`` comes from :func:`crossover_stage_count`; gene ``i`` comes from
    parent ``R`` in {A, B} (fair coin per gene) and is mapped by :func:`map_stage` (its relative
    position in ``R`` kept); finally empty stages are removed and stages renumbered
    (:func:`realign`).  The crossover rate (recombine with probability ``r̂``, else copy one parent
    by a fair coin) is applied by the caller (:class:`~subsel.evolution.engine.GeneticEngine`).

    Parameters
    ----------
    parent_a, parent_b : ndarray of int, shape (n_features,)
        Aligned assignments.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, shape (n_features,)
        Aligned child; its stage count is at most ``max(|P_A|, |P_B|)``.
    """
    a = np.asarray(parent_a, dtype=np.int64)
    b = np.asarray(parent_b, dtype=np.int64)
    sa, sb = n_stages(a), n_stages(b)
    sc = crossover_stage_count(sa, sb, rng)
    from_a = rng.random(a.size) < 0.5
    genes = np.where(from_a, a, b)
    size = np.where(from_a, sa, sb)
    return realign(np.atleast_1d(map_stage(genes, size, sc)))


# -- ranking, fitness, selection, elitism ---------------------------------------------------------

def nondominated_sort(objectives: np.ndarray) -> np.ndarray:
    """Non-domination level of every row (0 = first front), all objectives maximised (paper §IV-C).

    Row ``u`` dominates row ``v`` when ``u >= v`` in every objective and ``u > v`` in at least one.
    ``E_0`` holds the non-dominated rows, ``E_1`` the non-dominated rows once ``E_0`` is removed, and
    so on.  Equal rows share a front.

    Parameters
    ----------
    objectives : array-like of float, shape (n_solutions, n_objectives)

    Returns
    -------
    ndarray of int64, shape (n_solutions,)
        Front index ``t`` of each row.
    """
    F = np.asarray(objectives, dtype=float)
    n = F.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    ge = (F[:, None, :] >= F[None, :, :]).all(axis=2)
    gt = (F[:, None, :] > F[None, :, :]).any(axis=2)
    dominates = ge & gt                       # dominates[u, v]: u dominates v
    n_dominators = dominates.sum(axis=0)
    front = np.full(n, -1, dtype=np.int64)
    current = np.flatnonzero(n_dominators == 0)
    t = 0
    while current.size:
        front[current] = t
        n_dominators = n_dominators - dominates[current].sum(axis=0)
        n_dominators[front >= 0] = -1
        current = np.flatnonzero(n_dominators == 0)
        t += 1
    return front


def front_ranks(front: np.ndarray) -> np.ndarray:
    """Paper's flipped rank: ``rank = t* - t + 1`` so the first front ranks highest (§IV-C).

    Parameters
    ----------
    front : ndarray of int, shape (n_solutions,)
        Front index ``t`` from :func:`nondominated_sort`; ``t*`` is its maximum.

    Returns
    -------
    ndarray of int64, shape (n_solutions,)
        ``rank >= 1``; the last front has rank 1.
    """
    front = np.asarray(front, dtype=np.int64)
    return front.max() - front + 1


def log_fitness(objectives: np.ndarray, rank: np.ndarray, epsilon: float = 0.01) -> np.ndarray:
    """Natural log of EMSCO's fitness ``f = gamma**rank * E`` (paper Eq. 12).

    ``E = ||g||_2`` per row and ``gamma = max E / min E + epsilon`` over the population.  Working in
    logs keeps ``gamma**rank`` from overflowing in populations with many fronts.  Because
    ``gamma > max E / min E``, every solution of a better front has a higher fitness than every
    solution of a worse one.

    Extension beyond the paper (which has ``E > 0`` since ``g3 > 0``): rows with ``E = 0`` get
    fitness 0 (log ``-inf``) and ``min E`` is taken over the rows with ``E > 0``; when every row has
    ``E = 0`` all fitnesses are 0.

    Parameters
    ----------
    objectives : array-like of float, shape (n_solutions, n_objectives)
        Non-negative objective values (maximised).
    rank : array-like of int, shape (n_solutions,)
        From :func:`front_ranks`.
    epsilon : float, default 0.01
        The paper's ``epsilon > 0``.

    Returns
    -------
    ndarray of float64, shape (n_solutions,)

    Raises
    ------
    ValueError
        Negative or non-finite objectives.
    """
    F = np.asarray(objectives, dtype=float)
    if not np.all(np.isfinite(F)) or np.any(F < 0):
        bad = np.argwhere(~np.isfinite(F) | (F < 0))[0]
        raise ValueError(f"objectives must be finite and >= 0 for EMSCO's fitness; "
                         f"got objectives[{bad[0]}, {bad[1]}] = {F[bad[0], bad[1]]!r}")
    E = np.linalg.norm(F, axis=1)
    pos = E > 0
    out = np.full(E.shape, -np.inf)
    if not pos.any():
        return out
    gamma = E[pos].max() / E[pos].min() + epsilon
    out[pos] = np.asarray(rank, dtype=float)[pos] * np.log(gamma) + np.log(E[pos])
    return out


def fitness(objectives: np.ndarray, rank: np.ndarray, epsilon: float = 0.01) -> np.ndarray:
    """EMSCO's fitness ``f = gamma**rank * ||g||_2`` (paper Eq. 12); ``exp`` of :func:`log_fitness`.

    May overflow to ``inf`` for populations with very many fronts; the engine uses the logs.

    Parameters
    ----------
    objectives : array-like of float, shape (n_solutions, n_objectives)
    rank : array-like of int, shape (n_solutions,)
    epsilon : float, default 0.01

    Returns
    -------
    ndarray of float64, shape (n_solutions,)
    """
    with np.errstate(over="ignore"):
        return np.exp(log_fitness(objectives, rank, epsilon))


def roulette_wheel(log_f: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Roulette-wheel selection: indices drawn with probability proportional to fitness (§IV-B1).

    Parameters
    ----------
    log_f : ndarray of float, shape (n_solutions,)
        Log fitness (:func:`log_fitness`); ``-inf`` means fitness 0.  When every fitness is 0 the
        draw is uniform.
    size : int
        Number of draws (with replacement).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, shape (size,)
    """
    log_f = np.asarray(log_f, dtype=float)
    if np.all(np.isneginf(log_f)):
        p = np.full(log_f.size, 1.0 / log_f.size)
    else:
        w = np.exp(log_f - log_f.max())
        p = w / w.sum()
    return rng.choice(log_f.size, size=size, p=p).astype(np.int64)


def elite_indices(keys: list, log_f: np.ndarray, front: np.ndarray, elite_fraction: float,
                  tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Elitism: the top ``M`` unique solutions by fitness (paper Section IV-B2).

    ``M = max(|unique first front|, round(b * |unique population|))``.  Duplicates (equal keys) count
    once, represented by their first occurrence.  Order: fitness decreasing, then ``tiebreak``
    increasing (e.g. stage count: fewer stages first), then position.

    Parameters
    ----------
    keys : list of hashable, length n_solutions
        Identity of each solution (e.g. its genes as bytes).
    log_f : ndarray of float, shape (n_solutions,)
    front : ndarray of int, shape (n_solutions,)
        Front index (0 = first front).
    elite_fraction : float
        ``b`` in [0, 1].
    tiebreak : ndarray, shape (n_solutions,), optional

    Returns
    -------
    ndarray of int64, shape (M,)
        Indices into the population, best first.
    """
    seen: dict = {}
    for i, k in enumerate(keys):
        seen.setdefault(k, i)
    unique = np.fromiter(seen.values(), dtype=np.int64, count=len(seen))
    n_first = int(np.sum(np.asarray(front)[unique] == 0))
    m = max(n_first, round_half_up(elite_fraction * unique.size))
    tb = np.zeros(len(keys)) if tiebreak is None else np.asarray(tiebreak, dtype=float)
    order = np.lexsort((unique, tb[unique], -np.asarray(log_f, dtype=float)[unique]))
    return unique[order[:m]]
