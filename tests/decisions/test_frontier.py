"""subsel.frontier and frontier_breakpoints against independent solves and brute force."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem, frontier, get_solver
from subsel.decisions import frontier_breakpoints
from tests.decisions.reference import best
from tests.strategies import mirrored_tolerance_problems, must_list_problems, problems, tolerance_hard_problems

ALPHAS = np.linspace(0.0, 1.0, 21)


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


@settings(max_examples=40)
@given(must_list_problems(n_max=6, cap_max=2), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=8))
def test_frontier_matches_independent_solves(problem, alphas):
    df = frontier(problem, alphas)
    assert list(df.columns) == ["alpha", "objective", "units", "avg_quality", "agents", "status"]
    exact = get_solver("exact")
    for row, alpha in zip(df.itertuples(), alphas):
        assert row.alpha == alpha
        sol = exact.solve(problem.with_changes(alpha=alpha))
        assert row.status == sol.status.value
        assert _same(row.objective, sol.objective)


@settings(max_examples=40)
@given(problems(n_max=5, cap_max=2, extensions=True))
def test_frontier_matches_brute_force_with_every_extension(problem):
    df = frontier(problem, ALPHAS, solver="highs")
    for row in df.itertuples():
        ref = best(problem.with_changes(alpha=row.alpha))
        if ref is None:
            assert row.status == "infeasible"
        else:
            assert row.status == "optimal" and _same(row.objective, ref)


@settings(max_examples=40)
@given(must_list_problems(n_max=6, cap_max=2), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_breakpoints_are_exact(problem, a, b):
    lo, hi = min(a, b), max(a, b)
    df = frontier_breakpoints(problem, lo, hi, tolerance_steps=True)
    assert df.alpha.iloc[0] == lo and df.alpha_to.iloc[-1] == hi
    for prev, row in zip(df.iloc[:-1].itertuples(), df.iloc[1:].itertuples()):
        # the next selection starts at the first threshold where the previous one is infeasible
        assert row.alpha == math.nextafter(prev.alpha_to, math.inf)
    for row in df.itertuples():
        for alpha in (row.alpha, (row.alpha + row.alpha_to) / 2, row.alpha_to):
            ref = best(problem.with_changes(alpha=alpha))
            assert (ref is None) if row.status == "infeasible" else _same(row.objective, ref)
        if row.status == "optimal" and row.units and row.alpha_to < hi:
            assert row.alpha_to == pytest.approx(row.avg_quality + 1e-9 / row.units, abs=1e-15)
            sol = get_solver("exact").solve(problem.with_changes(alpha=row.alpha))
            if sol.avg_quality == row.avg_quality and sol.x.sum() == row.units:  # the same selection, not a tie
                assert problem.with_changes(alpha=row.alpha_to).evaluate(sol.x).feasible
                assert not problem.with_changes(alpha=math.nextafter(row.alpha_to, 2)).evaluate(sol.x).feasible
    values = [r.objective for r in df.itertuples() if r.status != "infeasible"]
    assert all(b <= a + 1e-12 for a, b in zip(values, values[1:]))  # the optimum never rises with alpha


def test_exact_at_a_threshold_on_the_rules_bound():
    # the best selection of the float sums misses the rule's bound by a hair; the empty one is optimal
    p = SubsetSelectionProblem(quality=[0.75, 0.0, 0.0, 0.27421246185835285], cost=[1.0, 0.0, 0.0, 0.0],
                               alpha=0.5121062314291764, capacity=[2, 1, 1, 1])
    sol = get_solver("exact").solve(p)
    assert sol.objective == best(p) == 0.0 and sol.status.value == "optimal"


def test_breakpoints_of_a_known_frontier():
    p = SubsetSelectionProblem(quality=[0.95, 0.8, 0.6], cost=[0.5, 0.2, 0.1], alpha=0.5)
    df = frontier_breakpoints(p, 0.5, 1.0)
    # each step ends at the average quality of its selection: (0.95+0.8+0.6)/3, (0.95+0.8)/2, 0.95
    assert df.alpha_to.tolist()[:3] == pytest.approx([2.35 / 3 + 1e-9 / 3, 0.875 + 1e-9 / 2, 0.95 + 1e-9],
                                                     abs=1e-15)
    assert df.agents.tolist() == [3, 2, 1, 0]


def test_must_take_and_demand_make_high_thresholds_infeasible():
    p = SubsetSelectionProblem(quality=[0.9, 0.6], cost=[0.1, 0.1], alpha=0.5, must_take=[0, 1])
    df = frontier_breakpoints(p, 0.0, 1.0)
    assert df.status.tolist() == ["optimal", "infeasible"]
    assert df.alpha_to.iloc[0] == pytest.approx(0.75 + 1e-9 / 2, abs=1e-15)
    grid = frontier(p.with_changes(must_take=None, demand=2), [0.7, 0.8], solver="highs")
    assert grid.status.tolist() == ["optimal", "infeasible"]
    assert math.isnan(grid.objective.iloc[1])


def test_a_heuristic_solver_is_asked_at_every_threshold():
    p = SubsetSelectionProblem.random(30, 0.7, rng=3)
    df = frontier(p, [0.9, 0.5, 0.7], solver="gss")
    gss = get_solver("gss")
    for row in df.itertuples():
        assert row.objective == gss.solve(p.with_changes(alpha=row.alpha)).objective


def test_near_tolerance_thresholds():
    # 50 agents a hair below the threshold: feasible for the rule up to 1e-9 in total, not beyond
    q = np.full(50, 0.7 - 1e-12)
    p = SubsetSelectionProblem(quality=q, cost=np.zeros(50), alpha=0.7)
    df = frontier_breakpoints(p, 0.69, 0.71)
    assert df.units.iloc[0] == 50 and df.status.iloc[0] == "optimal"
    assert df.alpha_to.iloc[0] == pytest.approx(0.7 - 1e-12 + 1e-9 / 50, abs=1e-15)
    assert df.alpha.iloc[1] == math.nextafter(df.alpha_to.iloc[0], 1.0)


@pytest.mark.parametrize("alphas,match", [
    ([], "at least one"), ([0.5, 1.5], r"alphas\[1\]"), ([float("nan")], "alphas"), ([-0.1], r"alphas\[0\]"),
])
def test_frontier_rejects_bad_thresholds(alphas, match):
    p = SubsetSelectionProblem(quality=[0.9], cost=[0.1], alpha=0.5)
    with pytest.raises(ValueError, match=match):
        frontier(p, alphas)


def test_breakpoints_reject_bad_ranges_and_heuristics():
    p = SubsetSelectionProblem(quality=[0.9], cost=[0.1], alpha=0.5)
    with pytest.raises(ValueError, match="alpha_min must be <= alpha_max"):
        frontier_breakpoints(p, 0.8, 0.2)
    with pytest.raises(ValueError, match=r"alpha_max must be a number in \[0, 1\]; got 2"):
        frontier_breakpoints(p, 0.2, 2)
    with pytest.raises(ValueError, match="'gss' does not prove optimality"):
        frontier_breakpoints(p, solver="gss")
    with pytest.raises(TypeError, match="problem must be a SubsetSelectionProblem"):
        frontier("p.csv", [0.5])
    with pytest.raises(TypeError, match="solver must be a solver name or a Solver"):
        frontier(p, [0.5], solver=3)


def test_frontier_returns_a_dataframe_in_the_given_order():
    p = SubsetSelectionProblem.random(12, 0.5, rng=1)
    df = frontier(p, [0.9, 0.1, 0.5, 0.1])
    assert isinstance(df, pd.DataFrame) and df.alpha.tolist() == [0.9, 0.1, 0.5, 0.1]
    assert df.objective.iloc[1] == df.objective.iloc[3] >= df.objective.iloc[2] >= df.objective.iloc[0]


def test_import_subsel_does_not_load_the_decision_tools():
    import subprocess
    import sys

    code = ("import sys, subsel; assert 'subsel.decisions' not in sys.modules; "
            "f = subsel.frontier; assert 'subsel.decisions' in sys.modules and f.__name__ == 'frontier'; "
            "assert {'frontier', 'alternatives', 'payments'} <= set(subsel.__all__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        import subsel

        subsel.nothing  # noqa: B018


@settings(max_examples=30)
@given(tolerance_hard_problems(n_max=5))
def test_breakpoints_with_qualities_a_hair_from_alpha(problem):
    a = problem.alpha
    df = frontier_breakpoints(problem, max(0.0, a - 1e-8), min(1.0, a + 1e-8), tolerance_steps=True)
    for row in df.itertuples():
        for alpha in (row.alpha, row.alpha_to):
            ref = best(problem.with_changes(alpha=alpha))
            assert _same(row.objective, ref)


@settings(max_examples=15, deadline=None)
@given(must_list_problems(n_max=6, cap_max=3), st.sampled_from(["highs", "cbc", "ortools-scip"]))
def test_breakpoints_with_a_milp_backend_match_exact(problem, name):
    # each step starts one float above the last threshold where the previous selection passes the
    # rule: a MILP's tolerances alone could not prove the optimum there
    # (ties may make it pick another optimal selection than exact, with other steps)
    df = frontier_breakpoints(problem, 0.0, 1.0, solver=name, tolerance_steps=True)
    assert df.alpha.iloc[0] == 0.0 and df.alpha_to.iloc[-1] == 1.0
    for prev, row in zip(df.iloc[:-1].itertuples(), df.iloc[1:].itertuples()):
        assert row.alpha == math.nextafter(prev.alpha_to, math.inf)
    for row in df.itertuples():
        for alpha in (row.alpha, (row.alpha + row.alpha_to) / 2, row.alpha_to):
            ref = best(problem.with_changes(alpha=alpha))
            assert (ref is None) if row.status == "infeasible" else (row.status == "optimal"
                                                                     and _same(row.objective, ref))


@settings(max_examples=15, deadline=None)
@given(problems(n_max=4, cap_max=2, extensions=True))
def test_breakpoints_with_a_budget_or_demand_on_highs_match_brute_force(problem):
    # out of exact's scope: each step is proven by the unshifted model, with the selections the
    # rule refuses by a hair cut off
    df = frontier_breakpoints(problem, 0.0, 1.0, solver="highs", tolerance_steps=True)
    for row in df.itertuples():
        for alpha in (row.alpha, (row.alpha + row.alpha_to) / 2, row.alpha_to):
            ref = best(problem.with_changes(alpha=alpha))
            assert (ref is None) if row.status == "infeasible" else (row.status == "optimal"
                                                                     and _same(row.objective, ref))


def test_breakpoints_with_highs_where_its_tolerances_cut_off_the_optimum():
    # found by a random search: at this threshold the optimum's surplus lies inside the rule's 1e-9
    # and the tightened model refused it; HiGHS answered 'feasible' before it took exact's selection
    rng = np.random.default_rng(15)
    p = SubsetSelectionProblem(quality=rng.uniform(0, 1, 8), cost=rng.uniform(0, 1, 8),
                               capacity=rng.integers(1, 4, 8), alpha=0.5)
    got = frontier_breakpoints(p, 0.0, 1.0, solver="highs")
    assert (got.status == "optimal").all()
    assert got.alpha_to.tolist() == frontier_breakpoints(p, 0.0, 1.0).alpha_to.tolist()
    at = p.with_changes(alpha=0.7672942443557644)
    sol = get_solver("highs").solve(at)
    assert sol.status.value == "optimal" and sol.objective == best(at)


@settings(max_examples=40)
@given(tolerance_hard_problems(n_max=6) | mirrored_tolerance_problems(n_max=6), st.data())
def test_frontier_near_the_qualities_matches_fresh_independent_solves(problem, data):
    """Thresholds at the agents' qualities, an ulp and 1e-9 from them, with ties: each row's status
    and objective are those of an exact solve of a problem built from scratch at that threshold (a
    row may hold another optimal selection of the same utility, carried over from a lower one)."""
    q = sorted(set(float(v) for v in problem.quality))
    near = [min(1.0, max(0.0, v + d)) for v in q for d in (0.0, -1e-9, 1e-9)]
    near += [float(np.nextafter(v, t)) for v in q for t in (0.0, 1.0)]
    alphas = data.draw(st.lists(st.sampled_from(near), min_size=1, max_size=12))
    exact = get_solver("exact")
    exact.solve(problem)  # solved at its own threshold first: its derived arrays are cached
    df = frontier(problem, alphas)
    for row, alpha in zip(df.itertuples(), alphas):
        fresh = SubsetSelectionProblem(quality=problem.quality, cost=problem.cost, alpha=alpha,
                                       capacity=problem.capacity, R=problem.R)
        sol = exact.solve(fresh)
        assert row.alpha == alpha and row.status == sol.status.value
        assert _same(row.objective, sol.objective)


class _SolveEach(type(get_solver("exact"))):
    """`exact` that solves every threshold anew (``Solver.threshold_solver``, no shared work)."""

    def threshold_solver(self, problem):
        from subsel.solvers import Solver

        return Solver.threshold_solver(self, problem)


@settings(max_examples=60)
@given(problems(n_max=8) | problems(n_max=8, grid=True) | must_list_problems(n_max=6, cap_max=3)
       | tolerance_hard_problems(n_max=6) | mirrored_tolerance_problems(n_max=6), st.data())
def test_frontier_with_shared_work_is_the_frontier_of_fresh_solves_bit_for_bit(problem, data):
    """The shared work of ``exact`` across thresholds changes no bit of the frontier."""
    q = sorted(set(float(v) for v in problem.quality))
    near = [min(1.0, max(0.0, v + d)) for v in q for d in (0.0, -1e-9, 1e-9)]
    alphas = data.draw(st.lists(st.sampled_from(near) | st.floats(0.0, 1.0), min_size=1, max_size=12))
    pd.testing.assert_frame_equal(frontier(problem, alphas), frontier(problem, alphas, solver=_SolveEach()),
                                  check_exact=True)
