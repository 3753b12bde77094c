"""The vectorised GSS and DPSS kernels give exactly the answers of the plain one-problem code."""
import numpy as np
import pytest
from hypothesis import given, settings

from subsel import SubsetSelectionProblem
from subsel.solvers import get_solver
from subsel.solvers import gss as gss_module
from tests.solvers.reference import check_gss, reference_dpss
from tests.strategies import must_list_problems, problems


@settings(max_examples=150)
@given(problem=problems(n_max=12, cap_max=3, grid=True))
def test_gss_equals_the_reference_on_a_grid(problem):
    check_gss(problem)


@settings(max_examples=150)
@given(problem=problems(n_max=12, cap_max=2))
def test_gss_equals_the_reference(problem):
    check_gss(problem)


@settings(max_examples=150)
@given(problem=must_list_problems(n_max=8, cap_max=3))
def test_gss_equals_the_reference_with_must_lists(problem):
    check_gss(problem)


@pytest.mark.parametrize("broadcast_max", [0, 10 ** 9])
@settings(max_examples=80)
@given(problem=problems(n_max=12, cap_max=2, grid=True))
def test_both_pairing_searches_agree(broadcast_max, problem):
    old = gss_module._PAIR_BROADCAST_MAX
    gss_module._PAIR_BROADCAST_MAX = broadcast_max
    try:
        check_gss(problem)
    finally:
        gss_module._PAIR_BROADCAST_MAX = old


def test_gss_equals_the_reference_on_large_random_instances():
    for seed, n in ((0, 20_000), (1, 50_000)):
        rng = np.random.default_rng(seed)
        p = SubsetSelectionProblem(quality=rng.random(n), cost=rng.random(n), alpha=0.7,
                                   capacity=rng.integers(1, 4, n))
        check_gss(p)


def check_dpss(problem, time_limit_s=None):
    sol = get_solver("dpss", time_limit_s=time_limit_s).solve(problem)
    raw = reference_dpss(problem, time_limit_s)
    assert sol.status is raw.status
    if raw.x is not None:
        assert sol.x.tolist() == np.asarray(raw.x).tolist()


@settings(max_examples=100)
@given(problem=problems(n_max=9, cap_max=3, grid=True))
def test_dpss_equals_the_reference(problem):
    check_dpss(problem)


@settings(max_examples=100)
@given(problem=must_list_problems(n_max=7, cap_max=3))
def test_dpss_equals_the_reference_with_must_lists(problem):
    check_dpss(problem)
