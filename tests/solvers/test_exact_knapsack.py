"""The `exact` backend (knapsack reduction + core DP) against brute force, HiGHS and a textbook DP."""
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem
from subsel.knapsack import _knapsack
from subsel.knapsack._knapsack import binary_pieces as _binary_pieces
from subsel.knapsack._knapsack import solve_core as solve_knapsack
from subsel.models import FEASIBILITY_TOL
from subsel.models.instances import KNAPSACK_CLASSES, knapsack_instance
from subsel.solvers import Status, get_solver, solver_info
from tests.strategies import brute_force, knapsack_brute_force, knapsack_dp, knapsacks, problems_with_must_lists

#: The paths of the knapsack core: the dynamic program (no enumeration) and, for small knapsacks,
#: the enumeration of every subset, in two halves or (the smallest) directly.
PATHS = pytest.mark.parametrize("enumerate_up_to", ["dp", "halves", "direct"])


def solve_exact(problem, enumerate_up_to):
    """``exact`` (its numpy path) with the knapsack core's enumeration limits set for this call."""
    most, direct = {"dp": (0, 0), "halves": (_knapsack._MAX_ENUMERATE, 0),
                    "direct": (_knapsack._MAX_ENUMERATE, _knapsack._DIRECT_ENUMERATE)}[enumerate_up_to]
    with mock.patch.object(_knapsack, "_MAX_ENUMERATE", most), \
            mock.patch.object(_knapsack, "_DIRECT_ENUMERATE", direct):
        return get_solver("exact", jit=False).solve(problem)


def highs_optimum(problem: SubsetSelectionProblem) -> tuple[float, np.ndarray]:
    """The MILP of the problem (Deva et al., AAMAS 2021, Section 3) solved by HiGHS at gap 0 with tight
    tolerances (an independent reference)."""
    highspy = pytest.importorskip("highspy")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for key, value in (("mip_rel_gap", 0.0), ("mip_abs_gap", 0.0),
                       ("mip_feasibility_tolerance", 1e-10), ("primal_feasibility_tolerance", 1e-10)):
        h.setOptionValue(key, value)
    n = problem.n
    idx = np.arange(n, dtype=np.int32)
    h.addCols(n, problem.utility.astype(float), problem.lower_bounds().astype(float),
              problem.upper_bounds().astype(float), 0, np.zeros(0, dtype=np.int32),
              np.zeros(0, dtype=np.int32), np.zeros(0))
    h.addRow(0.0, highspy.kHighsInf, n, idx, problem.quality_margin.astype(float))
    h.changeColsIntegrality(n, idx, np.full(n, highspy.HighsVarType.kInteger))
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    x = np.rint(np.array(h.getSolution().col_value)).astype(np.int64)
    return h.getInfo().objective_function_value, x


def check_optimal(problem, sol, optimum):
    assert sol.status is Status.OPTIMAL
    assert problem.evaluate(sol.x).feasible
    assert sol.objective == pytest.approx(optimum, rel=1e-12, abs=1e-9)
    assert sol.bound >= sol.objective


# ------------------------------------------------------------------ brute force (small n)
@settings(max_examples=120)
@given(problems_with_must_lists(n_max=7, cap_max=2))
# A denormal weight (quality margin 5e-324): the weight grid's unit is 5e-324 and the capacity in
# units overflowed (OverflowError rounding the capacity down to the grid).
@example(problem=SubsetSelectionProblem(quality=[0.0, 0.0, 0.0, 0.0, 5e-324], cost=[0.0, 0.0, 0.0, 0.0, 1.0],
                                        alpha=0.0))
@PATHS
def test_exact_equals_brute_force(enumerate_up_to, problem):
    best = brute_force(problem)
    sol = solve_exact(problem, enumerate_up_to)
    if best is None:
        assert sol.status is Status.INFEASIBLE
    else:
        check_optimal(problem, sol, best[0])


@settings(max_examples=80)
@given(problems_with_must_lists(n_max=5, cap_max=3, grid=True))
# All in S1: the bound was the float sum 0.65 + 3 * 0.3 = 1.5499999999999998, one ulp below the
# objective 1.55 that evaluate reports.
@example(problem=SubsetSelectionProblem(quality=[0, 0, 0.65, 0.3, 0], cost=[0] * 5, capacity=[1, 1, 1, 3, 1],
                                        alpha=0.0))
@PATHS
def test_exact_equals_brute_force_with_ties(enumerate_up_to, problem):
    """Coarse grid data: many ties, q == alpha agents and exactly-zero surpluses."""
    best = brute_force(problem)
    sol = solve_exact(problem, enumerate_up_to)
    if best is None:
        assert sol.status is Status.INFEASIBLE
    else:
        check_optimal(problem, sol, best[0])


@settings(max_examples=100)
@given(knapsacks(m_max=8))
@PATHS
def test_exact_solves_encoded_knapsack_exactly(enumerate_up_to, data):
    """A knapsack encoded by from_knapsack has the knapsack optimum, to the unit."""
    p, w, c = data
    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
    sol = solve_exact(problem, enumerate_up_to)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == knapsack_brute_force(p, w, c)
    assert float(np.dot(sol.x[1:], w)) <= c


@settings(max_examples=60)
@given(knapsacks(m_max=8, integer=False))
@PATHS
def test_exact_solves_encoded_real_knapsack(enumerate_up_to, data):
    p, w, c = data
    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
    sol = solve_exact(problem, enumerate_up_to)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(knapsack_brute_force(p, w, c), abs=1e-9)


@settings(max_examples=100)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6))
def test_binary_pieces_represent_every_count(free):
    owner, size = _binary_pieces(np.array(free, dtype=np.int64))
    for i, k in enumerate(free):
        pieces = size[owner == i]
        assert pieces.sum() == k
        sums = {0}
        for s in pieces:
            sums |= {v + int(s) for v in sums}
        assert sums == set(range(k + 1))


# ------------------------------------------------------------------ MILP reference (larger n)
@pytest.mark.parametrize("n, seed", [(50, 0), (500, 1), (2000, 2), (2000, 3)])
def test_exact_matches_highs_on_paper_instances(n, seed):
    problem = SubsetSelectionProblem.random(n, alpha=0.7, rng=seed)
    optimum, x_ref = highs_optimum(problem)
    sol = get_solver("exact").solve(problem)
    check_optimal(problem, sol, optimum)
    if problem.evaluate(x_ref).feasible:
        assert sol.objective >= problem.evaluate(x_ref).utility - 1e-9


@pytest.mark.parametrize("seed", [4, 5])
def test_exact_matches_highs_with_capacities_and_must_lists(seed):
    rng = np.random.default_rng(seed)
    n = 300
    base = SubsetSelectionProblem.random(n, alpha=0.7, rng=rng)
    agents = rng.permutation(n)
    problem = base.with_changes(capacity=rng.integers(1, 9, size=n), must_take=agents[:5],
                                must_not_take=agents[5:10])
    optimum, _ = highs_optimum(problem)
    check_optimal(problem, get_solver("exact").solve(problem), optimum)


@pytest.mark.parametrize("R", [1000, 10000])
@pytest.mark.parametrize("kind", KNAPSACK_CLASSES)
def test_exact_matches_highs_on_hard_classes(kind, R):
    """Pisinger's classes through from_knapsack, checked against HiGHS on the same problem."""
    p, w, c = knapsack_instance(kind, 60, R, np.random.default_rng(11))
    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
    optimum, _ = highs_optimum(problem)
    sol = get_solver("exact").solve(problem)
    check_optimal(problem, sol, optimum)
    assert sol.objective == round(sol.objective)  # integer data stay exact


@pytest.mark.parametrize("kind", KNAPSACK_CLASSES)
def test_exact_matches_dynamic_program_on_hard_classes(kind):
    """n = 300 of every class (R = 1000) against the textbook DP over capacities."""
    p, w, c = knapsack_instance(kind, 300, 1000, np.random.default_rng(12))
    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
    sol = get_solver("exact").solve(problem)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == knapsack_dp(p, w, c)
    assert int(sol.x[1:] @ w) <= c
    assert sol.bound >= sol.objective


def test_knapsack_core_on_real_valued_data_matches_dp():
    """The core DP alone, on real weights that are integers times 2^-10 (so the DP is exact)."""
    rng = np.random.default_rng(3)
    w_int = rng.integers(1, 200, size=300)
    p = rng.random(300) * 100
    c_int = int(w_int.sum() // 3)
    res = solve_knapsack(p, w_int / 1024.0, c_int / 1024.0)
    # Reference: DP over integer capacities with real profits.
    best = np.zeros(c_int + 1)
    for pj, wj in zip(p, w_int):
        best[wj:] = np.maximum(best[wj:], best[:c_int + 1 - wj] + pj)
    assert res.optimal
    assert res.value == pytest.approx(best[c_int], rel=1e-12)
    assert float(p[res.take].sum()) == pytest.approx(res.value, rel=1e-12)
    assert w_int[res.take].sum() <= c_int
    assert res.lp_bound >= res.value


# ------------------------------------------------------------------ the paper's cases and contract
def test_spec_gss_worst_case_solved_optimally():
    """The GSS worst case: alpha=0.99, q=(1, .98, .97), r=(eps, R/4, .9R): the optimum takes agents 1 and 2."""
    eps, R = 1e-4, 1.0
    q = [1.00, 0.98, 0.97]
    r = [eps, R / 4, 0.9 * R]
    p = SubsetSelectionProblem(quality=q, cost=[R * qi - ri for qi, ri in zip(q, r)], alpha=0.99, R=R)
    sol = get_solver("exact").solve(p)
    assert sol.status is Status.OPTIMAL
    assert sol.x.tolist() == [1, 1, 0]
    assert sol.objective == pytest.approx(eps + R / 4)
    assert get_solver("gss").solve(p).objective < 0.01 * sol.objective


def test_time_limit_returns_feasible_solution_and_valid_bound():
    p, w, c = knapsack_instance("strongly_correlated", 2000, 1000, np.random.default_rng(1))
    problem = SubsetSelectionProblem.from_knapsack(p, w, c)
    optimum = get_solver("exact").solve(problem).objective  # itself checked against the DP above
    sol = get_solver("exact", time_limit_s=1e-6).solve(problem)  # strikes before the first step
    assert sol.status is Status.TIME_LIMIT
    assert problem.evaluate(sol.x).feasible
    assert sol.bound >= optimum >= sol.objective


def test_infeasible_must_take_is_reported():
    problem = SubsetSelectionProblem(quality=[0.2, 0.8], cost=[0.0, 0.0], alpha=0.7, must_take=[0])
    sol = get_solver("exact").solve(problem)
    assert sol.status is Status.INFEASIBLE


@pytest.mark.parametrize("extension, value", [("budget", 0.15), ("demand", 2)])
def test_second_constraint_is_solved(extension, value):
    """A budget or a demand on the paper's problem: the coupled search, the brute-force optimum."""
    from tests.strategies import brute_force

    problem = SubsetSelectionProblem(quality=[0.9, 0.5, 0.8], cost=[0.1, 0.1, 0.05], alpha=0.7, capacity=[1, 2, 1],
                                     **{extension: value})
    sol = get_solver("exact").solve(problem)
    best = brute_force(problem)
    assert sol.status is Status.OPTIMAL and abs(sol.objective - best[0]) <= 1e-12


def test_registry_lists_exact():
    row = next(r for r in solver_info() if r.name == "exact")
    assert row.exact and row.available
    assert row.supports == frozenset({"must_take", "must_not_take", "min_units", "lot_size", "fixed_cost", "budget",
                                      "demand", "group_limits"})


def test_tolerance_boundary_is_feasible_side():
    """Fifty agents at q = alpha - 1e-12 beside one at alpha: surplus -5e-11 passes the 1e-9 check."""
    alpha = 0.7
    q = [alpha] + [alpha - 1e-12] * 50
    problem = SubsetSelectionProblem(quality=q, cost=[0.0] * 51, alpha=alpha)
    sol = get_solver("exact").solve(problem)
    assert sol.x.sum() == 51
    assert problem.quality_surplus(sol.x) >= -FEASIBILITY_TOL
