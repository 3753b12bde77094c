"""subsel.alternatives against the brute-force ranking of every feasible selection."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem, alternatives
from tests.decisions.reference import feasible_selections
from tests.strategies import must_list_problems, tolerance_hard_problems

COLUMNS = ["rank", "objective", "units", "avg_quality", "agents", "status", "x"]


@st.composite
def dyadic_problems(draw, n_max=6, cap_max=2, extensions=False):
    """Instances on a grid of sixteenths: every sum is exact, so exact ties are common and no two
    different utilities are within rounding of each other (the tie rule can be checked exactly)."""
    n = draw(st.integers(1, n_max))
    val = st.integers(0, 16).map(lambda v: v / 16)
    kwargs = {}
    if extensions:
        if draw(st.booleans()):
            kwargs["budget"] = draw(st.integers(0, 2 * n)) / 4
        if draw(st.booleans()):
            kwargs["demand"] = draw(st.integers(0, 3))
    take = draw(st.lists(st.integers(0, n - 1), max_size=2, unique=True))
    drop = draw(st.lists(st.integers(0, n - 1).filter(lambda i: i not in take), max_size=1, unique=True))
    return SubsetSelectionProblem(quality=draw(st.lists(val, min_size=n, max_size=n)),
                                  cost=draw(st.lists(val, min_size=n, max_size=n)), alpha=draw(val),
                                  capacity=draw(st.lists(st.integers(1, cap_max), min_size=n, max_size=n)),
                                  must_take=take or None, must_not_take=drop or None, **kwargs)


def _check_exact_ranking(problem, k, solver="exact"):
    ranked = feasible_selections(problem)
    df = alternatives(problem, k, solver=solver)
    assert list(df.columns) == COLUMNS
    assert len(df) == min(k, len(ranked))
    assert df["rank"].tolist() == list(range(1, len(df) + 1))
    for row, (value, x) in zip(df.itertuples(), ranked):
        assert row.x.tolist() == x.tolist()  # the same selection, in the documented tie order
        assert row.objective == pytest.approx(float(value), abs=1e-12)
        assert row.units == x.sum() and row.agents == np.count_nonzero(x) and row.status == "optimal"


@settings(max_examples=60)
@given(dyadic_problems(n_max=5, cap_max=2), st.integers(1, 20))
def test_exact_matches_brute_force_ranking_and_tie_rule(problem, k):
    _check_exact_ranking(problem, k)


@settings(max_examples=25)
@given(dyadic_problems(n_max=4, cap_max=2, extensions=True), st.integers(1, 20))
def test_milp_backend_with_budget_and_demand(problem, k):
    _check_exact_ranking(problem, k, solver="highs")


@settings(max_examples=40)
@given(must_list_problems(n_max=5, cap_max=3), st.integers(1, 20))
def test_float_data_utilities_match_brute_force(problem, k):
    """Random real data: the utilities of the ranking agree (near-ties may come in either order)."""
    ranked = feasible_selections(problem)
    df = alternatives(problem, k)
    assert len(df) == min(k, len(ranked))
    got = df.objective.to_numpy()
    want = np.array([float(v) for v, _ in ranked[:len(df)]])
    assert np.allclose(got, want, rtol=1e-9, atol=1e-9)
    assert len({tuple(x) for x in df.x}) == len(df)  # distinct
    assert all(problem.evaluate(x).feasible for x in df.x)


def test_every_selection_when_k_is_large_and_none_when_infeasible():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, capacity=[2, 1])
    df = alternatives(p, 50)
    assert sorted(map(tuple, df.x)) == sorted(map(tuple, (x for _, x in feasible_selections(p))))
    empty = alternatives(p.with_changes(must_take=[1], must_not_take=[0]), 3)
    assert empty.empty and list(empty.columns) == COLUMNS


def test_ties_come_in_the_documented_order():
    # three identical agents, room for one: three selections of equal utility, earlier agents first
    p = SubsetSelectionProblem(quality=[0.5, 0.5, 0.5, 1.0], cost=[0.25, 0.25, 0.25, 1.0], alpha=0.75)
    df = alternatives(p, 4)
    assert [x.tolist() for x in df.x] == [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [0, 0, 0, 1]]


def test_a_heuristic_solver_gives_unproven_rows():
    p = SubsetSelectionProblem.random(6, 0.6, rng=2)
    df = alternatives(p, 3, solver="gss")
    assert (df.status == "feasible").all()


@pytest.mark.parametrize("k", [0, -1, 2.5, True, "3"])
def test_rejects_bad_k(k):
    p = SubsetSelectionProblem(quality=[0.9], cost=[0.1], alpha=0.5)
    with pytest.raises(ValueError, match=r"k must be a positive integer"):
        alternatives(p, k)


def test_large_capacities_fixed_by_the_partition_are_refused():
    p = SubsetSelectionProblem(quality=[1.0, 0.5], cost=[0.0, 0.0], alpha=0.5, capacity=[10 ** 12, 10 ** 12])
    with pytest.raises(ValueError, match="more than 100000 single units"):
        alternatives(p, 2)


@settings(max_examples=30)
@given(tolerance_hard_problems(n_max=5), st.integers(1, 20))
def test_qualities_a_hair_from_alpha(problem, k):
    """Sums landing on the rule's bound: every listed selection passes the rule, and the ranking's
    utilities are the brute-force ones (equal up to the optimality tolerance)."""
    ranked = feasible_selections(problem)
    df = alternatives(problem, k)
    assert len(df) == min(k, len(ranked))
    assert all(problem.evaluate(x).feasible for x in df.x)
    want = np.array([float(v) for v, _ in ranked[:len(df)]])
    assert np.allclose(df.objective.to_numpy(), want, rtol=1e-9, atol=0)
