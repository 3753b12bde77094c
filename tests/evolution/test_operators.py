"""EMSCO's genetic operators (Hamilton and Fulp 2022, Section IV): each operator against its definition."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from subsel.evolution import operators as ops
from tests.strategies import objective_matrices, stage_vectors

# -- realignment ------------------------------------------------------------------------------------

@given(stage_vectors())
def test_realign_is_order_preserving_and_consecutive(genes):
    r = ops.realign(genes)
    assert sorted(set(r.tolist())) == list(range(len(set(genes.tolist()))))
    # same order relation between every pair of genes
    assert np.array_equal(np.sign(genes[:, None] - genes[None, :]), np.sign(r[:, None] - r[None, :]))


def test_realign_removes_empty_stages():
    assert ops.realign([3, 0, 3, 5]).tolist() == [1, 0, 1, 2]
    assert ops.realign([0, 1, 2]).tolist() == [0, 1, 2]


# -- mutation ---------------------------------------------------------------------------------------

def test_beta_binomial_pmf_mean_and_monotone():
    for n, beta in [(1, 2.0), (3, 2.0), (7, 2.5), (10, 4.0)]:
        pmf = ops.beta_binomial_pmf(n, beta)
        assert pmf.shape == (n + 1,)
        assert pmf.sum() == pytest.approx(1.0)
        assert np.dot(np.arange(n + 1), pmf) == pytest.approx(n / (beta + 1))
        assert np.all(np.diff(pmf) < 0)  # beta > 1: early stages preferred


def test_mutation_pmf_at_max_stages_is_truncated_and_renormalised():
    full = ops.beta_binomial_pmf(3, 2.0)
    below = ops.mutation_pmf(3, 2.0, max_stages=4)
    at_max = ops.mutation_pmf(3, 2.0, max_stages=3)
    assert np.allclose(below, full)
    assert at_max.shape == (3,)
    assert np.allclose(at_max, full[:3] / full[:3].sum())


@pytest.mark.parametrize("max_stages", [10, 3])
def test_mutation_frequencies_match_pmf(max_stages):
    """All genes mutate (rate 1); every stage stays present, so realignment keeps the raw draws."""
    rng = np.random.default_rng(12345)
    genes = np.arange(6000) % 3                  # |Q| = 3
    child = ops.stage_mutation(genes, 1.0, 2.0, max_stages, rng)
    pmf = ops.mutation_pmf(3, 2.0, max_stages)
    counts = np.bincount(child, minlength=pmf.size)
    assert counts.size == pmf.size               # a new stage only below the maximum
    assert stats.chisquare(counts, pmf * counts.sum()).pvalue > 1e-3
    # the authors' bug (uniform draws) would be rejected by the same test
    assert stats.chisquare(counts, np.full(pmf.size, counts.sum() / pmf.size)).pvalue < 1e-6


def test_mutation_rate_zero_is_identity_and_rate_respected():
    rng = np.random.default_rng(0)
    genes = np.array([0, 1, 1, 2, 0])
    assert np.array_equal(ops.stage_mutation(genes, 0.0, 2.0, 5, rng), genes)
    many = np.zeros(20000, dtype=np.int64)        # one stage: a mutation can only open stage 1
    child = ops.stage_mutation(many, 0.1, 2.0, 5, rng)
    changed = int(np.sum(child == 1))
    p_new = ops.beta_binomial_pmf(1, 2.0)[1]
    assert stats.binomtest(changed, many.size, 0.1 * p_new).pvalue > 1e-3


@given(stage_vectors(n_max=10, stage_max=4), st.integers(1, 6), st.integers(0, 2**32 - 1))
@settings(max_examples=60)
def test_mutation_keeps_alignment_and_max_stages(genes, k, seed):
    genes = ops.realign(genes)
    if ops.n_stages(genes) > k:
        genes = np.minimum(genes, k - 1)
    child = ops.stage_mutation(genes, 0.5, 2.0, k, np.random.default_rng(seed))
    assert np.array_equal(child, ops.realign(child))
    assert ops.n_stages(child) <= k
    assert ops.n_stages(child) <= ops.n_stages(genes) + 1


# -- crossover --------------------------------------------------------------------------------------

def test_crossover_stage_count_choices_are_equally_likely():
    rng = np.random.default_rng(7)
    draws = np.array([ops.crossover_stage_count(2, 5, rng) for _ in range(6000)])
    values, counts = np.unique(draws, return_counts=True)
    assert values.tolist() == [2, 4, 5]          # round(3.5) = 4 (halves up)
    assert stats.chisquare(counts).pvalue > 1e-3


def test_crossover_stage_count_equal_parents():
    rng = np.random.default_rng(0)
    assert {ops.crossover_stage_count(3, 3, rng) for _ in range(50)} == {3}


@pytest.mark.parametrize("stage,parent,child,expected", [
    (0, 2, 4, 1),   # round(1/2 * 4) - 1
    (1, 2, 4, 3),   # round(2/2 * 4) - 1
    (0, 4, 2, 0),   # round(0.5) - 1 = 0
    (2, 4, 2, 1),   # round(1.5) - 1 = 1
    (3, 4, 2, 1),   # round(2) - 1
    (0, 3, 1, 0),   # max(0, round(1/3) - 1)
    (4, 5, 5, 4),   # same size: identity
])
def test_map_stage_formula(stage, parent, child, expected):
    assert ops.map_stage(stage, parent, child) == expected


@given(stage_vectors(n_max=10, stage_max=4), st.integers(0, 2**32 - 1))
@settings(max_examples=60)
def test_crossover_of_identical_parents_returns_the_parent(genes, seed):
    genes = ops.realign(genes)
    child = ops.context_crossover(genes, genes.copy(), np.random.default_rng(seed))
    assert np.array_equal(child, genes)


@given(stage_vectors(n_min=2, n_max=10, stage_max=4), stage_vectors(n_min=2, n_max=10, stage_max=4),
       st.integers(0, 2**32 - 1))
@settings(max_examples=60)
def test_crossover_child_is_aligned_and_genes_come_from_a_parent(a, b, seed):
    n = min(a.size, b.size)
    a, b = ops.realign(a[:n]), ops.realign(b[:n])
    rng = np.random.default_rng(seed)
    child = ops.context_crossover(a, b, rng)
    assert child.shape == a.shape
    assert np.array_equal(child, ops.realign(child))
    assert ops.n_stages(child) <= max(ops.n_stages(a), ops.n_stages(b))


def test_crossover_gene_mapping_before_realignment():
    """Parents with every stage used twice: with |C| = |P_A| = 4, genes from A map to themselves
    and genes from B (|P_B| = 2) map to 1 (stage 0) and 3 (stage 1)."""
    a = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    b = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    allowed = [{a[i], ops.map_stage(b[i], 2, 4)} for i in range(a.size)]
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(300):
        child = ops.context_crossover(a, b, rng)
        if ops.n_stages(child) == 4:  # |C| = 4 and no stage emptied: realignment is the identity
            seen += 1
            assert all(child[i] in allowed[i] for i in range(a.size))
    assert seen > 20


# -- ranking and fitness ----------------------------------------------------------------------------

def brute_force_fronts(F: np.ndarray) -> np.ndarray:
    """Fronts by the definition: repeatedly remove the rows no remaining row dominates."""
    remaining = set(range(len(F)))
    front = np.full(len(F), -1)
    t = 0
    while remaining:
        current = [u for u in remaining
                   if not any(np.all(F[v] >= F[u]) and np.any(F[v] > F[u]) for v in remaining)]
        for u in current:
            front[u] = t
        remaining -= set(current)
        t += 1
    return front


@given(objective_matrices())
def test_nondominated_sort_matches_brute_force(F):
    assert np.array_equal(ops.nondominated_sort(F), brute_force_fronts(F))


@given(objective_matrices(grid=False))
def test_nondominated_sort_matches_brute_force_continuous(F):
    assert np.array_equal(ops.nondominated_sort(F), brute_force_fronts(F))


def test_front_ranks_first_front_highest():
    front = np.array([0, 2, 1, 0, 2])
    assert ops.front_ranks(front).tolist() == [3, 1, 2, 3, 1]


@given(objective_matrices(grid=False))
def test_better_front_always_has_higher_fitness(F):
    F = F + 0.01                                   # EMSCO's objectives have E > 0 (g3 > 0)
    front = ops.nondominated_sort(F)
    f = ops.fitness(F, ops.front_ranks(front))
    logf = ops.log_fitness(F, ops.front_ranks(front))
    for t in range(front.max()):
        assert f[front == t].min() > f[front == t + 1].max()
        assert logf[front == t].min() > logf[front == t + 1].max()


def test_fitness_formula():
    F = np.array([[0.6, 0.8, 0.0], [0.3, 0.4, 0.0]])   # E = 1.0 and 0.5
    rank = np.array([2, 1])
    gamma = 1.0 / 0.5 + 0.01
    assert np.allclose(ops.fitness(F, rank), [gamma**2 * 1.0, gamma * 0.5])


def test_fitness_rejects_negative_objectives():
    with pytest.raises(ValueError, match=r"objectives\[1, 0\]"):
        ops.log_fitness(np.array([[0.1], [-0.2]]), np.array([1, 1]))


def test_zero_norm_solutions_get_zero_fitness():
    logf = ops.log_fitness(np.array([[0.0, 0.0], [0.5, 0.5]]), np.array([1, 2]))
    assert np.isneginf(logf[0]) and np.isfinite(logf[1])


# -- selection and elitism --------------------------------------------------------------------------

def test_roulette_wheel_frequencies_proportional_to_fitness():
    rng = np.random.default_rng(11)
    f = np.array([1.0, 2.0, 3.0, 4.0])
    idx = ops.roulette_wheel(np.log(f), 20000, rng)
    counts = np.bincount(idx, minlength=4)
    assert stats.chisquare(counts, f / f.sum() * counts.sum()).pvalue > 1e-3


def test_roulette_wheel_all_zero_is_uniform():
    idx = ops.roulette_wheel(np.full(3, -np.inf), 3000, np.random.default_rng(0))
    assert set(idx.tolist()) == {0, 1, 2}


def test_elite_count_and_uniqueness():
    keys = ["a", "a", "b", "c", "d", "e", "f", "g", "h", "i"]
    logf = np.array([9, 9, 8, 7, 6, 5, 4, 3, 2, 1], dtype=float)
    front = np.array([0, 0, 1, 1, 1, 2, 2, 2, 3, 3])
    # 9 unique solutions, b = 0.5 -> round(4.5) = 5 > |unique first front| = 1
    elite = ops.elite_indices(keys, logf, front, 0.5)
    assert elite.tolist() == [0, 2, 3, 4, 5]
    # first front larger than b * unique: keep it whole
    front2 = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    assert ops.elite_indices(keys, logf, front2, 0.1).tolist() == [0, 2, 3, 4, 5]


def test_elite_ties_prefer_lower_tiebreak():
    elite = ops.elite_indices(["a", "b"], np.array([1.0, 1.0]), np.array([0, 0]), 0.0,
                              tiebreak=np.array([3, 2]))
    assert elite.tolist() == [1, 0]


def test_random_initial_solutions_have_one_or_two_stages():
    rng = np.random.default_rng(0)
    sizes = {ops.n_stages(ops.random_stage_assignment(8, 5, rng)) for _ in range(200)}
    assert sizes == {1, 2}
    assert {ops.n_stages(ops.random_stage_assignment(8, 1, rng)) for _ in range(20)} == {1}
    assert ops.random_stage_assignment(1, 5, rng).tolist() == [0]
