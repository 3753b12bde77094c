"""Every MILP backend on the planner's fields agrees with brute force; exported files solve to the
same optimum; other solvers refuse naming the constraint; infeasible answers are explained."""
import io
import os

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from subsel.models import SubsetSelectionProblem, lp_text, mps_text
from subsel.solvers import Status, UnsupportedExtensionError, available_solvers, get_solver
from tests.strategies import brute_force, label_fields, note_event, planner_problems

MILP = [name for name in ("cbc", "highs", "ortools-scip", "ortools-cpsat") if name in available_solvers()]
EXAMPLES = int(os.environ.get("SUBSEL_PLANNER_EXAMPLES", "40"))
EXPORT_EXAMPLES = int(os.environ.get("SUBSEL_EXPORT_EXAMPLES", "25"))


def near_the_bound(problem):
    """Some quality within 1e-6 of alpha (but not on it): within a MILP's tolerance of the rule."""
    margin = np.abs(problem.quality_margin)
    return bool(((margin > 0) & (margin < 1e-6)).any())


def check_against_brute_force(name, problem, near=None):
    """``near``: whether the problem lies within a MILP's tolerance of the rule (default: some
    quality within 1e-6 of alpha); there a proven bound may stand for ``optimal``."""
    label_fields(problem)
    best = brute_force(problem)
    sol = get_solver(name).solve(problem)  # never a SolverError, a hair from alpha included
    note_event(f"answer: {sol.status.value}")
    if best is None:
        assert sol.status is Status.INFEASIBLE, (sol.status, sol.x)
        assert sol.explanation and sol.conflict is not None and sol.conflict.constraints
        return
    assert sol.is_feasible, sol.status
    assert problem.evaluate(sol.x).feasible
    if sol.status is Status.OPTIMAL:  # optimal is a promise
        assert sol.objective >= best[0] - 1e-9 * max(1.0, abs(best[0])), (sol.objective, best)
    else:
        reached = sol.objective >= best[0] - 1e-9 * max(1.0, abs(best[0]))
        note_event(f"{sol.status.value} answer {'at' if reached else 'below'} the optimum")
    assert sol.objective <= best[0] + 1e-9 * max(1.0, abs(best[0]))
    near = near_the_bound(problem) if near is None else near
    if name != "ortools-cpsat" and not near:  # CP-SAT may say feasible when its scaling is not exact
        assert sol.status is Status.OPTIMAL
    elif sol.status is not Status.OPTIMAL:
        assert sol.bound is None or sol.bound >= best[0] - 1e-9 * max(1.0, abs(best[0]))


@pytest.mark.parametrize("name", MILP)
@settings(max_examples=EXAMPLES)
@given(problem=planner_problems())
def test_backend_equals_brute_force(name, problem):
    check_against_brute_force(name, problem)


@pytest.mark.parametrize("name", [name for name in MILP if name != "ortools-cpsat"])
@pytest.mark.parametrize("problem", [
    # must take 2 units of 0.5, 2.5e-10 below alpha: with 1 unit more of 0.5 the surplus is inside
    # the rule's 1e-9, with 2 more it is not (the unchanged model's optimum, refused)
    SubsetSelectionProblem(quality=[0, 0.5, 0.5, 0], cost=[0, 0, 0, 0], alpha=0.5 + 2.5e-10, capacity=[1, 2, 2, 1],
                           must_take=[1], lot_size=[1, 2, 1, 1]),
    # the only selection reaching 0.75 misses alpha by the rule's 1e-9: infeasible
    SubsetSelectionProblem(quality=[0, 1, 0], cost=[0, 0, 0], alpha=0.75 + 2.5e-10, capacity=[1, 3, 1], must_take=[0]),
    SubsetSelectionProblem(quality=[0, 0, 0.5, 0.5], cost=[0, 0, 0, 1], alpha=0.25 + 2.5e-10, capacity=[1, 1, 1, 2],
                           demand=4),
])
def test_backend_a_hair_above_a_selections_average_with_forced_units(name, problem):
    check_against_brute_force(name, problem, near=True)


@pytest.mark.parametrize("name", MILP)
def test_backend_a_float_above_a_selections_average_with_forced_units(name):
    # [1, 0, 1, 1, 1] averages 0.56, 2.5e-10 below alpha: the rule refuses it, while CBC's
    # loosened and tightened models both returned it (a SolverError); the optimum is 0.7.
    problem = SubsetSelectionProblem(
        quality=[0.6, 0.3, 0.38, 0.85, 0.41], cost=[0.14, 0.23, 0.41, 0.36, 0.23], alpha=0.5600000002500001,
        capacity=[1, 3, 3, 1, 1], fixed_cost=[0.02, 0.08, 0.08, 0.12, 0.04], group=["a", "a", "b", "b", None],
        group_limits={"a": {"max_agents": 1}, "b": {"min_units": 2}})
    sol = get_solver(name).solve(problem)
    assert sol.status is Status.OPTIMAL and sol.x.tolist() == [1, 0, 1, 1, 0]
    assert sol.objective == pytest.approx(brute_force(problem)[0], abs=1e-12) == pytest.approx(0.7)


@pytest.mark.parametrize("name", [name for name in MILP if name != "ortools-cpsat"])  # CP-SAT may refuse
@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3), data=st.data())
def test_backend_at_a_threshold_a_hair_from_a_selections_average(name, problem, data):
    # The thresholds frontier_breakpoints solves at: an optimal selection's own average quality, a
    # float or a few away, where a MILP's tolerance and the rule's disagree.
    best = brute_force(problem.with_changes(alpha=0.0))
    assume(best is not None and best[1].sum() > 0)
    x = best[1]
    offset = data.draw(st.sampled_from([2.5e-10, 5e-10, 1e-9, 2e-9, -2.5e-10, 0.0]))
    alpha = float(np.dot(problem.quality, x) / x.sum()) + offset
    assume(0.0 <= alpha <= 1.0)
    check_against_brute_force(name, problem.with_changes(alpha=alpha), near=True)


def _cbc():
    """PuLP's CBC, found by name as the backend finds it (its move in PuLP 4 announced quietly)."""
    import warnings

    import pulp

    from subsel.solvers.cbc import _cbc_name

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.getSolver(_cbc_name(), msg=False)


def _highs_file(text, suffix, tmp_path):
    import highspy

    path = tmp_path / f"model{suffix}"
    path.write_text(text)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    # Tolerances far below the rule's 1e-9 (qualities a hair from alpha are drawn), gap 0.
    for key in ("primal_feasibility_tolerance", "mip_feasibility_tolerance"):
        h.setOptionValue(key, 1e-10)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("small_matrix_value", 1e-12)  # HiGHS drops entries up to 1e-9 by default
    h.readModel(str(path))
    h.run()
    return h.getModelStatus(), h.getInfo().objective_function_value


@pytest.mark.parametrize("name", [m for m in MILP if m != "ortools-cpsat"])  # CP-SAT: decimal data not certified
def test_lots_a_hair_above_a_step_prove_the_true_optimum(name):
    # One float above a step of the frontier (lot sizes 24/1/24): CBC, its rows 2^20 times larger
    # in the model that decides the proof, called [168, 150, 720] (2877.07) optimal.
    p = SubsetSelectionProblem(quality=[0.576, 0.871, 0.958], cost=[4.74, 8.65, 10.93], alpha=0.876660377359434,
                               R=14.0, capacity=[4104, 150, 720], lot_size=[24, 1, 24])
    sol = get_solver(name).solve(p)
    # every plan (lot counts), enumerated; the rule decides the best few exactly
    x = np.stack(np.meshgrid(24 * np.arange(172), np.arange(151), 24 * np.arange(31), indexing="ij"), -1).reshape(-1, 3)
    utility, surplus = x @ p.utility, x @ (p.quality - p.alpha)
    order = np.argsort(-np.where(surplus > -1e-6, utility, -np.inf))[:50]
    best = max(p.evaluate(x[i]).utility for i in order if p.evaluate(x[i]).feasible)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(best, rel=1e-9)
    assert p.evaluate(sol.x).feasible


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
@settings(max_examples=EXPORT_EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=4))
def test_exported_files_solve_to_the_same_optimum(problem, tmp_path_factory):
    import highspy
    import pulp

    label_fields(problem)
    # The files carry the stored numbers (17 digits); an external solver decides with its own
    # tolerances, so qualities within 1e-6 of alpha are the backends' job (tested above), not the files'.
    margin = np.abs(problem.quality_margin)
    assume(not ((margin > 0) & (margin < 1e-6)).any())
    best = brute_force(problem)
    tmp = tmp_path_factory.mktemp("export")
    status_lp, value_lp = _highs_file(lp_text(problem), ".lp", tmp)
    status_mps, value_mps = _highs_file(mps_text(problem), ".mps", tmp)
    if best is None:
        assert status_lp == highspy.HighsModelStatus.kInfeasible
        assert status_mps == highspy.HighsModelStatus.kInfeasible
    else:
        tol = 1e-6 * max(1.0, abs(best[0]))
        assert value_lp == pytest.approx(best[0], abs=tol)
        assert -value_mps == pytest.approx(best[0], abs=tol)  # the MPS file minimises -utility
        path = tmp / "model.mps"
        _, prob = pulp.LpProblem.fromMPS(str(path))
        if "cbc" in MILP:
            prob.solve(_cbc())
            assert pulp.LpStatus[prob.status] == "Optimal"
            assert -pulp.value(prob.objective) == pytest.approx(best[0], abs=tol)


def test_cbc_reads_the_exported_mps(tmp_path):
    if "cbc" not in MILP:
        pytest.skip("cbc missing")
    import pulp

    p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.8], cost=[0.1, 0.1, 0.2], alpha=0.7, capacity=[10, 10, 10],
                               min_units=[3, 1, 2], lot_size=[1, 2, 5], fixed_cost=[1.0, 0.0, 0.5],
                               group=["n", "n", None], group_limits={"n": {"max_agents": 1}}, budget=3.0)
    best = brute_force(p)
    path = tmp_path / "m.mps"
    path.write_text(mps_text(p))
    _, prob = pulp.LpProblem.fromMPS(str(path))
    prob.solve(_cbc())
    assert -pulp.value(prob.objective) == pytest.approx(best[0], abs=1e-6)


@pytest.mark.parametrize("name, field", [("gss", "group_limits"), ("dpss", "group_limits")])
def test_other_solvers_refuse_naming_the_constraint(name, field):
    values = {"min_units": dict(min_units=[2, 1]), "lot_size": dict(lot_size=[2, 1]),
              "fixed_cost": dict(fixed_cost=[0.5, 0]),
              "group_limits": dict(group=["g", "g"], group_limits={"g": {"max_agents": 1}})}[field]
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, capacity=[2, 2], **values)
    with pytest.raises(UnsupportedExtensionError, match=f"does not support the '{field}' constraint"):
        get_solver(name).solve(p)


def test_default_solver_supports_the_problem():
    from subsel.solvers import default_solver

    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, capacity=[4, 4], lot_size=[2, 1])
    name = default_solver(p.extensions)
    assert p.extensions <= get_solver(name).supports
    assert default_solver(p.with_changes(lot_size=None).extensions) == "exact"


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
def test_infeasible_demand_is_explained_with_the_nearest_change():
    # Quality 0.8 on average: a unit of a (0.9, cost 3) balances one of b (0.7, cost 1): 4 per pair.
    p = SubsetSelectionProblem(quality=[0.9, 0.7], cost=[3.0, 1.0], alpha=0.8, capacity=[100, 100],
                               budget=100.0, demand=60)
    sol = get_solver("highs").solve(p)
    assert sol.status is Status.INFEASIBLE
    assert sol.conflict.constraints == ("quality", "budget", "demand")
    assert sol.conflict.max_units == 50
    assert sol.conflict.min_budget == pytest.approx(120.0)
    assert sol.explanation == ("demand 60 cannot be met: at most 50 units reach average quality 0.8 within "
                               "budget 100 (lower the demand to 50 or raise the budget to 120)")
    assert get_solver("highs").solve(p.with_changes(demand=50)).is_feasible
    assert get_solver("highs").solve(p.with_changes(budget=120.0)).is_feasible
    d = sol.to_dict()
    assert d["conflict"]["constraints"] == ["quality", "budget", "demand"]


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
def test_group_minimum_against_must_not_take_is_a_smallest_conflict():
    p = SubsetSelectionProblem(quality=[0.9, 0.9, 0.2], cost=[0.1, 0.1, 0.1], alpha=0.5, capacity=[3, 3, 3],
                               group=["local", "far", "far"], group_limits={"local": {"min_units": 2}},
                               must_not_take=[0], budget=10.0)
    sol = get_solver("highs").solve(p)
    assert sol.status is Status.INFEASIBLE
    assert sol.conflict.constraints == ("must_not_take", "group_limits:local")
    assert "group 'local'" in sol.explanation


def test_feasible_answers_carry_no_explanation():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7)
    sol = get_solver("exact").solve(p)
    assert sol.explanation is None and sol.conflict is None
    assert "explanation" not in sol.to_dict()


def test_lot_counts_and_used_variables_in_the_form():
    from subsel.models import linear_form

    p = SubsetSelectionProblem(quality=[0.9, 0.6], cost=[0.1, 0.1], alpha=0.7, capacity=[10, 7],
                               min_units=[3, 1], lot_size=[1, 2], fixed_cost=[0.5, 0.0])
    form = linear_form(p)
    assert form.n_agents == 2 and form.n == 4  # x0, x1, lots of agent 1, used of agent 0
    assert form.upper.tolist() == [10, 6, 3, 1]
    full = form.full(np.array([3, 4]))
    assert full.tolist() == [3, 4, 2, 1]
    names = {row.name for row in form.rows}
    assert {"quality", "lot_1", "used_max_0", "used_min_0"} <= names
    assert "x_0" in lp_text(p) and "lots_1" in lp_text(p) and "used_0" in mps_text(p)
    buf = io.StringIO(lp_text(p))
    assert "lot_1:" in buf.getvalue()


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3))
@example(problem=SubsetSelectionProblem(  # the least spend's optimum passes the model, not the rule
    quality=[1.0, 0.0, 0.0, 0.499999999], cost=[1.0, 0.0, 0.0, 0.0], alpha=0.5, capacity=[2, 1, 1, 1], budget=0.0,
    demand=1, min_units=[1, 1, 1, 1], lot_size=[1, 1, 1, 1], fixed_cost=[0.0, 0.0, 0.0, 0.0]))
def test_conflict_is_irreducible_by_brute_force(problem):
    """The conflict is infeasible on its own and dropping any one member makes it feasible."""
    from subsel.solvers import constraint_families, without_constraints

    sol = get_solver("highs").solve(problem)
    assume(sol.status is Status.INFEASIBLE)  # a conflict to check
    kept = set(sol.conflict.constraints)
    others = set(constraint_families(problem)) - kept
    assert brute_force(without_constraints(problem, others)) is None
    for member in kept:
        assert brute_force(without_constraints(problem, others | {member})) is not None, member
    check_advice(problem, sol.conflict)


def check_advice(problem, conflict):
    """The advised changes, each alone, make ``problem`` feasible (every other constraint kept;
    decided by brute force), and the advised demand is the largest that can be met."""
    if conflict.max_units is not None:  # the demand it names can be met, one more cannot
        assert conflict.max_units < problem.demand
        assert brute_force(problem.with_changes(demand=conflict.max_units)) is not None
        assert brute_force(problem.with_changes(demand=conflict.max_units + 1)) is None
    if conflict.min_budget is not None:
        assert conflict.min_budget > problem.budget
        assert brute_force(problem.with_changes(budget=conflict.min_budget)) is not None
        # The least budget up to its rounding to 6 significant digits (and the MILP's tolerance),
        # unless the answer says it is not proven the least.
        below = conflict.min_budget * (1 - 1e-5) - 1e-6
        assert "min_budget" in conflict.unproven or below <= problem.budget \
            or brute_force(problem.with_changes(budget=below)) is None
    if conflict.max_alpha is not None:  # the threshold it names is met, one 1e-5 above is not
        assert conflict.max_alpha < problem.alpha
        assert brute_force(problem.with_changes(alpha=conflict.max_alpha)) is not None
        above = min(conflict.max_alpha * (1 + 1e-5) + 1e-6, 1.0)
        assert above >= problem.alpha or brute_force(problem.with_changes(alpha=above)) is None


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3), demand=st.integers(1, 12), budget=st.sampled_from(
    [0.0, 0.1, 0.5, 1.0, 2.0]))
@example(  # HiGHS's presolve called this feasible problem infeasible (a cost of 1e-10 in the budget row)
    problem=SubsetSelectionProblem(quality=[0, 0, 1, 0], cost=[1, 0.375, 1e-10, 0.2591474105991201], alpha=0,
                                   capacity=[2, 2, 1, 1], min_units=[2, 2, 1, 1]),
    demand=3, budget=1.0)
def test_advised_change_makes_the_problem_feasible(problem, demand, budget):
    """On random infeasible instances with a demand and a budget, the nearest change the answer
    advises is verified by brute force; the text advises exactly those numbers."""
    problem = problem.with_changes(demand=demand, budget=budget)
    sol = get_solver("highs").solve(problem)
    assume(sol.status is Status.INFEASIBLE)  # advice to check
    conflict = sol.conflict
    check_advice(problem, conflict)
    if conflict.max_units is not None:
        assert f"lower the demand to {conflict.max_units}" in sol.explanation
    if conflict.min_budget is not None:
        assert f"raise the budget to {conflict.min_budget:g}" in sol.explanation
    if conflict.max_alpha is not None:
        assert f"lower the average quality to {conflict.max_alpha:g}" in sol.explanation
    if conflict.max_units is None and conflict.min_budget is None and conflict.max_alpha is None:
        assert "lower" not in sol.explanation and "raise" not in sol.explanation


@pytest.mark.parametrize("name", [name for name in MILP if name != "ortools-cpsat"])
def test_a_threshold_a_hair_above_the_only_plans_average_is_infeasible(name):
    """A must-take agent forces the plan whose average is 0.5; at 0.5 + 2.5e-10 no plan passes the
    rule.  CBC's tightened model let that plan through its primal tolerance and every model gave only
    plans the rule refuses: the answer is still infeasible (exact decides), not an error."""
    p = SubsetSelectionProblem(quality=[1.0, 1.0, 0.0, 0.0], cost=[0.75, 0.0, 0.0, 1.0], alpha=0.5 + 2.5e-10,
                               capacity=[1, 2, 1, 2], budget=3.0, must_take=[3], min_units=[1, 1, 1, 2],
                               fixed_cost=[0.0, 0.3, 0.0, 0.0])
    assert brute_force(p) is None
    assert get_solver(name).solve(p).status is Status.INFEASIBLE
