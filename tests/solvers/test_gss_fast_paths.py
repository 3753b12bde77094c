"""GSS's fast paths (default argsort with ties put in index order, one-problem shortcuts) give the
answers of the plain reference code, of the batched kernel and never beat brute force."""
import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from subsel import SubsetSelectionProblem
from subsel.models import ProblemBatch
from subsel.solvers import Status, get_solver
from subsel.solvers import gss as gss_module
from tests.solvers.reference import check_gss
from tests.solvers.test_solve_batch import assert_same_answers
from tests.strategies import brute_force, must_list_problems, problem_batches, problems

# Few distinct values, so that ties are common; infinities and both zeros as the kernel's keys can be.
KEYS = st.sampled_from([0.0, -0.0, 0.25, -0.25, 1.0, 3.5, np.inf, -np.inf, 1e-300, 2.0 ** -1074])


@contextlib.contextmanager
def quick_sort_everywhere():
    """Every list, however short, takes the default-argsort path; batches skip the whole-row sort."""
    old = gss_module._QUICK_SORT_MIN, gss_module._NARROW
    gss_module._QUICK_SORT_MIN, gss_module._NARROW = 0, 0
    try:
        yield
    finally:
        gss_module._QUICK_SORT_MIN, gss_module._NARROW = old


@settings(max_examples=200)
@given(key=st.integers(1, 4).flatmap(lambda m: st.integers(0, 40).flatmap(
    lambda w: arrays(np.float64, (m, w), elements=KEYS))))
def test_stable_argsort_is_the_stable_argsort(key):
    with quick_sort_everywhere():
        got = gss_module._stable_argsort(key)
    assert got.tolist() == np.argsort(key, axis=1, kind="stable").tolist()


@settings(max_examples=100)
@given(key=arrays(np.float64, (3, 30), elements=KEYS), count=st.lists(st.integers(0, 30), min_size=3, max_size=3))
def test_stable_argsort_keeps_nan_padding_last(key, count):
    padded = np.where(np.arange(30) < np.array(count)[:, None], key, np.nan)
    with quick_sort_everywhere():
        got = gss_module._stable_argsort(padded)
    want = np.argsort(padded, axis=1, kind="stable")
    for j, k in enumerate(count):
        assert got[j, :k].tolist() == want[j, :k].tolist()


def test_stable_argsort_on_long_rows_with_and_without_ties():
    rng = np.random.default_rng(4)
    for key in (rng.random((1, 5000)), rng.integers(0, 50, (2, 5000)).astype(float)):
        assert gss_module._stable_argsort(key).tolist() == np.argsort(key, axis=1, kind="stable").tolist()


@settings(max_examples=150)
@given(problem=problems(n_max=12, cap_max=3, grid=True))
def test_quick_sort_gss_equals_the_reference_on_a_grid(problem):
    with quick_sort_everywhere():
        check_gss(problem)


@settings(max_examples=100)
@given(problem=must_list_problems(n_max=8, cap_max=3))
def test_quick_sort_gss_equals_the_reference_with_must_lists(problem):
    with quick_sort_everywhere():
        check_gss(problem)


@settings(max_examples=120)
@given(problem=problems(n_max=7, cap_max=2, grid=True))
def test_quick_sort_gss_is_feasible_and_never_beats_brute_force(problem):
    with quick_sort_everywhere():
        sol = check_gss(problem)
        best = brute_force(problem)
        assert best is not None  # without must lists or demand, x = 0 is always feasible
        assert sol.is_feasible and problem.evaluate(sol.x).feasible
        assert sol.objective <= best[0] + 1e-9 * max(1.0, abs(best[0]))


@settings(max_examples=60)
@given(problem=must_list_problems(n_max=6, cap_max=2))
def test_quick_sort_gss_infeasible_only_when_brute_force_is(problem):
    with quick_sort_everywhere():
        sol = check_gss(problem)
        best = brute_force(problem)
        if sol.status is Status.INFEASIBLE:
            assert best is None
        else:
            assert best is not None and sol.objective <= best[0] + 1e-9 * max(1.0, abs(best[0]))


@settings(max_examples=60)
@given(batch=problem_batches(n_max=10, m_max=6, grid=True))
def test_quick_sort_batches_with_padding_equal_per_problem(batch):
    with quick_sort_everywhere():
        assert_same_answers(get_solver("gss"), batch)


@settings(max_examples=40)
@given(batch=problem_batches(n_max=9, m_max=5, cap_max=3))
def test_quick_sort_batches_with_capacities_equal_per_problem(batch):
    with quick_sort_everywhere():
        assert_same_answers(get_solver("gss"), batch)


@pytest.mark.parametrize("seed", [0, 1])
def test_long_lists_with_many_ties_equal_the_reference(seed):
    # Values on a grid of 1/40: the lists (thousands of members) hold long runs of equal ratios.
    rng = np.random.default_rng(seed)
    n = 20_000
    q, c = rng.integers(0, 41, n) / 40, rng.integers(0, 41, n) / 40
    check_gss(SubsetSelectionProblem(quality=q, cost=c, alpha=0.6, capacity=rng.integers(1, 3, n)))
    check_gss(SubsetSelectionProblem(quality=q, cost=c, alpha=0.6, must_take=[0, 1, 2], must_not_take=[3]))
    batch = ProblemBatch(quality=np.stack([q, q[::-1]])[:, :3000], cost=np.stack([c, c])[:, :3000],
                         alpha=np.array([0.6, 0.55]))
    assert_same_answers(get_solver("gss"), batch)


@settings(max_examples=100)
@given(problem=must_list_problems(n_max=9, cap_max=3))
def test_one_problem_path_equals_the_batch_of_one(problem):
    x, feasible = gss_module.gss_batch(ProblemBatch.from_problems([problem]))
    sol = get_solver("gss").solve(problem)
    assert sol.is_feasible == bool(feasible[0])
    if sol.is_feasible:
        assert sol.x.tolist() == x[0].tolist()


def test_solving_does_not_build_the_default_names():
    p = SubsetSelectionProblem.random(30_000, 0.7, 11)
    sol = get_solver("gss").solve(p)
    assert sol.is_feasible and "_default_names" not in p.__dict__
    assert sol.x.tolist() == gss_module.gss_batch(ProblemBatch.from_problems([p]))[0][0].tolist()
