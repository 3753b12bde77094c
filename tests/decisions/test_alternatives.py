"""subsel.alternatives against the brute-force ranking of every feasible selection."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import LinearConstraint, QualityFloor, SubsetSelectionProblem, alternatives
from tests.decisions.reference import feasible_selections
from tests.strategies import must_list_problems, planner_problems, tolerance_hard_problems

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
    # utilities within the tie tolerance (1e-9 relative) of each other are tied and listed by the
    # tie rule: a listed utility may lie that far below the brute-force one of its rank
    assert np.allclose(df.objective.to_numpy(), want, rtol=2e-9, atol=0)


# ---------------------------------------------------------------------------- the no-good-cut path
@st.composite
def dyadic_planner_problems(draw, n_max=3, cap_max=3):
    """Dyadic instances with the planner's fields: minimum orders, lot sizes, fixed costs, groups."""
    p = draw(dyadic_problems(n_max=n_max, cap_max=cap_max, extensions=True))
    n, k = p.n, p.capacity
    changes = {}
    if draw(st.booleans()):
        changes["min_units"] = [draw(st.integers(1, int(ki))) for ki in k]
    if draw(st.booleans()):
        mins = changes.get("min_units", [1] * n)
        changes["lot_size"] = [draw(st.sampled_from([li for li in range(1, int(ki) + 1) if -(-m // li) * li <= ki]))
                               for ki, m in zip(k, mins)]
    if draw(st.booleans()):
        changes["fixed_cost"] = draw(st.lists(st.sampled_from([0.0, 0.0625, 0.25]), min_size=n, max_size=n))
    if draw(st.booleans()):
        changes["group"] = draw(st.lists(st.sampled_from(["a", None]), min_size=n, max_size=n))
        if "a" in changes["group"]:
            changes["group_limits"] = {"a": {draw(st.sampled_from(["max_agents", "max_units", "min_units"])):
                                             draw(st.integers(0, 3))}}
    return p.with_changes(**changes)


def _check_cut_ranking(problem, k, solver="highs"):
    ranked = feasible_selections(problem)
    df = alternatives(problem, k, solver=solver, method="cuts")
    assert list(df.columns) == COLUMNS and len(df) == min(k, len(ranked))
    for row, (value, x) in zip(df.itertuples(), ranked):
        assert row.x.tolist() == x.tolist()  # the same selection, in the documented tie order
        assert row.objective == pytest.approx(float(value), abs=1e-12) and row.status == "optimal"


@settings(max_examples=40, deadline=None)
@given(dyadic_problems(n_max=5, cap_max=1, extensions=True), st.integers(1, 20))
def test_cuts_match_brute_force_ranking_and_tie_rule(problem, k):
    """method='cuts', unit capacities: the brute-force ranking in the tie order (exact ties and
    zero utilities are common on the grid of sixteenths)."""
    _check_cut_ranking(problem, k)


@settings(max_examples=30, deadline=None)
@given(dyadic_problems(n_max=4, cap_max=3, extensions=True), st.integers(1, 20))
def test_cuts_with_several_units_match_brute_force(problem, k):
    """Agents with several units: each cut excludes one unit vector, written in binary digits."""
    _check_cut_ranking(problem, k)


@settings(max_examples=30, deadline=None)
@given(dyadic_planner_problems(), st.integers(1, 20))
def test_cuts_with_the_planner_fields_match_brute_force(problem, k):
    _check_cut_ranking(problem, k)
    if k <= 3:  # the default solver supports the problem
        df = alternatives(problem, k)
        assert [x.tolist() for x in df.x] == [x.tolist() for _, x in feasible_selections(problem)[:k]]


@settings(max_examples=25, deadline=None)
@given(planner_problems(n_max=3, cap_max=3), st.integers(1, 20))
def test_cuts_with_planner_fields_on_float_data(problem, k):
    """Random real data with the planner's fields, qualities a hair from alpha included: the
    utilities of the brute-force ranking, distinct feasible selections."""
    ranked = feasible_selections(problem)
    df = alternatives(problem, k, solver="highs")
    assert len(df) == min(k, len(ranked))
    want = np.array([float(v) for v, _ in ranked[:len(df)]])
    assert np.allclose(df.objective.to_numpy(), want, rtol=1e-9, atol=1e-9)
    assert len({tuple(x) for x in df.x}) == len(df)
    assert all(problem.evaluate(x).feasible for x in df.x) and (df.status == "optimal").all()


@settings(max_examples=25, deadline=None)
@given(must_list_problems(n_max=5, cap_max=2), st.integers(1, 20))
def test_cuts_on_float_data_match_the_partition(problem, k):
    """Random real data: the cut path lists the partition's utilities, distinct and feasible."""
    ranked = feasible_selections(problem)
    df = alternatives(problem, k, solver="highs", method="cuts")
    assert len(df) == min(k, len(ranked))
    want = np.array([float(v) for v, _ in ranked[:len(df)]])
    assert np.allclose(df.objective.to_numpy(), want, rtol=1e-9, atol=1e-9)
    assert len({tuple(x) for x in df.x}) == len(df)
    assert all(problem.evaluate(x).feasible for x in df.x)


@settings(max_examples=25, deadline=None)
@given(tolerance_hard_problems(n_max=5), st.integers(1, 20))
def test_cuts_with_qualities_a_hair_from_alpha(problem, k):
    ranked = feasible_selections(problem)
    df = alternatives(problem, k, solver="highs", method="cuts")
    assert len(df) == min(k, len(ranked)) and all(problem.evaluate(x).feasible for x in df.x)
    want = np.array([float(v) for v, _ in ranked[:len(df)]])
    assert np.allclose(df.objective.to_numpy(), want, rtol=2e-9, atol=0)  # tied within 1e-9: the tie rule orders them


def test_cuts_find_every_tie_where_highs_answered_its_warm_start():
    # HiGHS answered the warm start (nothing selected) as optimal with objective 0.125 while
    # [0,1,1,1,0] was left: three of eight tied selections were missed before
    p = SubsetSelectionProblem(quality=[0, 0, 0, 0.125, 0], cost=[0, 0, 0, 0, 0.0625], alpha=0.0, budget=0.25)
    ranked = feasible_selections(p)
    df = alternatives(p, 9, solver="highs", method="cuts")
    assert [x.tolist() for x in df.x] == [x.tolist() for _, x in ranked[:9]]
    assert df.objective.tolist()[:8] == [0.125] * 8


@pytest.mark.parametrize("solver", ["cbc", "highs", "ortools-scip", "ortools-cpsat"])
def test_cuts_on_every_milp_backend(solver):
    p = SubsetSelectionProblem(quality=[0.5, 0.5, 0.75, 1.0, 0.25], cost=[0.25, 0.25, 0.5, 0.75, 0.0],
                               alpha=0.625, budget=1.5, capacity=[1, 2, 1, 3, 1], lot_size=[1, 2, 1, 1, 1],
                               fixed_cost=[0.0, 0.0, 0.0, 0.25, 0.0])
    ranked = feasible_selections(p)
    df = alternatives(p, 12, solver=solver, method="cuts")
    assert [x.tolist() for x in df.x] == [x.tolist() for _, x in ranked[:12]]


def test_cuts_refused_where_they_do_not_apply():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, capacity=[2 ** 20 + 1, 1])
    with pytest.raises(ValueError, match=r"method 'cuts' needs capacities of at most 1048576; capacity\[0\] is "
                                         "1048577"):
        alternatives(p, 2, solver="highs", method="cuts")
    with pytest.raises(ValueError, match="method 'cuts' needs a solver with no-good cuts.*'exact'"):
        alternatives(p.with_changes(capacity=None), 2, solver="exact", method="cuts")
    with pytest.raises(ValueError, match="method must be 'partition' or 'cuts'; got 'x'"):
        alternatives(p, 2, method="x")


def test_solve_excluding_checks_its_input():
    from subsel import get_solver

    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, capacity=[1, 3])
    highs = get_solver("highs")
    with pytest.raises(ValueError, match=r"excluded must have shape \(m, 2\); got \(3,\)"):
        highs.solve_excluding(p, np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match=r"excluded\[0, 0\] must be a whole number of units in 0..1; got 2"):
        highs.solve_excluding(p, [[2, 0]])
    with pytest.raises(ValueError, match=r"excluded\[1, 1\] must be a whole number of units in 0..3; got 0.5"):
        highs.solve_excluding(p, [[0, 0], [0, 0.5]])
    with pytest.raises(ValueError, match="solver 'exact' has no no-good cuts"):
        get_solver("exact").solve_excluding(p, [[1, 0]])
    with pytest.raises(ValueError, match="no-good cuts need capacities of at most 1048576; capacity\\[1\\]"):
        highs.solve_excluding(p.with_changes(capacity=[1, 2 ** 21]), [[1, 0]])
    # a selection outside the bounds excludes nothing (must-take agent 0 is fixed at 1)
    fixed = p.with_changes(must_take=[0], capacity=[1, 1])
    assert highs.solve_excluding(fixed, [[0, 1]]).x.tolist() == [1, 1]
    assert highs.solve_excluding(fixed, [[1, 1]]).x.tolist() == [1, 0]
    sol = highs.solve_excluding(p, [[1, 0], [0, 0]])
    assert sol.status.value == "optimal" and sol.x.tolist() not in ([1, 0], [0, 0])
    p = p.with_changes(alpha=0.6)  # five feasible selections, utilities 0.8, 1.2, 1.6, 2.0 and 0
    ranked = feasible_selections(p)
    sol = highs.solve_excluding(p, np.array([x for _, x in ranked[:3]]))
    assert len(ranked) == 5 and sol.x.tolist() == ranked[3][1].tolist()


def test_default_solver_handles_the_planner_fields():
    """With a planner field the default is a solver with no-good cuts (the partition refuses those
    fields, and exact, the registry's first choice, has no cuts): the ranking agrees with brute force."""
    p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.8, 0.5], cost=[0.1, 0.2, 0.3, 0.05], capacity=[4, 6, 3, 5],
                               alpha=0.7, min_units=[2, 1, 1, 2], lot_size=[2, 1, 1, 1], fixed_cost=[0.5, 0, 0.1, 0])
    got = alternatives(p, 6)
    assert (got["status"] == "optimal").all()
    feasible = []
    for x in itertools.product(*(range(int(k) + 1) for k in p.capacity)):
        ev = p.evaluate(np.array(x))
        if ev.feasible:
            feasible.append(ev.utility)
    feasible.sort(reverse=True)
    assert np.allclose(got["objective"].to_numpy(), feasible[:6], rtol=0, atol=1e-9)


def test_planner_fields_beyond_the_cut_range_are_refused_by_capacity():
    """With a planner field the partition cannot run, and the cuts take capacities up to
    MAX_CUT_RANGE: the refusal names the capacity, not the method (which the CLI cannot choose)."""
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.0], capacity=[3_000_000, 10], alpha=0.7,
                               lot_size=[1, 2])
    with pytest.raises(ValueError, match=r"capacities of at most 1048576; capacity\[0\] is 3000000"):
        alternatives(p, 3)
    with pytest.raises(ValueError, match=r"capacity\[0\] is 3000000"):
        alternatives(p, 3, solver="highs")


@pytest.mark.parametrize("constraint", [LinearConstraint([1, 2, 3], upper=3, name="co2"),
                                        QualityFloor([0.99, 0.9, 0.97], 0.95, name="ontime")])
def test_the_partition_of_alternatives_refuses_constraint_objects_naming_them(constraint):
    with pytest.raises(ValueError, match=f"does not support the constraint objects \\('{constraint.name}'\\)"):
        alternatives(SubsetSelectionProblem([0.9, 0.8, 0.7], [0.1, 0.2, 0.1], alpha=0.75, capacity=[2, 2, 2],
                                            constraints=[constraint]), 2, solver="highs", method="partition")
