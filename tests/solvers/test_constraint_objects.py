"""Constraint objects (LinearConstraint on units and on used agents, QualityFloor) through every MILP
backend, the exported LP/MPS files, frontier, frontier_breakpoints and alternatives, against brute
force; other solvers refuse them by name; an infeasible answer names them in its conflict."""
import os

import numpy as np
import pytest
from hypothesis import assume, event, given, settings

from subsel import LinearConstraint, QualityFloor, SubsetSelectionProblem, alternatives, frontier
from subsel.decisions import frontier_breakpoints
from subsel.models import lp_text, mps_text
from subsel.solvers import SolverError, Status, UnsupportedExtensionError, available_solvers, get_solver
from tests.solvers.test_planner_backends import _highs_file
from tests.strategies import brute_force, constrained_problems, label_fields

MILP = [name for name in ("cbc", "highs", "ortools-scip", "ortools-cpsat") if name in available_solvers()]
EXAMPLES = int(os.environ.get("SUBSEL_CONSTRAINT_EXAMPLES", "30"))


def near_a_side(problem):
    """Some real row of the problem has a selection within 1e-6 of its side: within a MILP's tolerance."""
    margin = np.abs(problem.quality_margin)
    if ((margin > 0) & (margin < 1e-6)).any():
        return True
    for c in problem.added_constraints:
        if isinstance(c, QualityFloor):
            m = np.abs(np.asarray(c.margin))
            if ((m > 0) & (m < 1e-6)).any():
                return True
        elif not c.integral:  # sides drawn a hair from a selection's activity
            sides = [v for v in (c.lower, c.upper) if v is not None]
            for x in _every(problem):
                v = np.array(x, dtype=float) if c.on == "units" else (np.array(x) > 0).astype(float)
                gap = np.abs(float(np.dot(c.coef, v)) - np.array(sides))
                if ((gap > 0) & (gap < 1e-6)).any():
                    return True
    return False


def tolerance(best):
    return 1e-9 * max(1.0, abs(best))


def check(name, problem):
    label_fields(problem)
    for c in problem.added_constraints:
        event(f"constraint {c.kind}{'' if getattr(c, 'integral', False) else ' (real)'}")
    best = brute_force(problem)
    event(f"near a side: {near_a_side(problem)}")
    try:
        sol = get_solver(name).solve(problem)
    except SolverError as exc:  # a MILP tolerance above the rule's gap may leave it undecided
        # CP-SAT says so when its integer scaling is not exact and it cannot decide (its documented
        # limit, budgets of 1e-74 included, with or without constraint objects)
        cpsat = name == "ortools-cpsat" and "integer scaling of this instance is not exact" in str(exc)
        assert cpsat or (near_a_side(problem) and "no selection passes the feasibility check" in str(exc)), exc
        event("undecided")
        return
    event(f"answer: {sol.status.value}")
    if sol.status is Status.ERROR:  # no model gave a selection the rule accepts: undecided, not a crash
        assert near_a_side(problem), (sol.status, best)
        return
    if best is None:
        assert sol.status is Status.INFEASIBLE, (sol.status, sol.x)
        assert sol.conflict is not None and sol.conflict.constraints
        return
    assert sol.is_feasible and problem.evaluate(sol.x).feasible
    assert sol.objective <= best[0] + tolerance(best[0])
    if sol.status is Status.OPTIMAL:  # optimal is a promise
        assert sol.objective >= best[0] - tolerance(best[0]), (sol.objective, best)
    elif name != "ortools-cpsat":
        assert near_a_side(problem), sol.status  # exact backends prove the optimum away from the sides


@pytest.mark.parametrize("name", MILP)
@settings(max_examples=EXAMPLES, deadline=None)
@given(problem=constrained_problems())
def test_backend_equals_brute_force(name, problem):
    check(name, problem)


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
@settings(max_examples=EXAMPLES, deadline=None)
@given(problem=constrained_problems(planner=False))
def test_exported_files_solve_to_the_same_optimum(problem, tmp_path_factory):
    import highspy

    assume(not near_a_side(problem))  # external solvers decide with their own tolerances
    best = brute_force(problem)
    tmp = tmp_path_factory.mktemp("export")
    status_lp, value_lp = _highs_file(lp_text(problem), ".lp", tmp)
    status_mps, value_mps = _highs_file(mps_text(problem), ".mps", tmp)
    if best is None:
        assert status_lp == status_mps == highspy.HighsModelStatus.kInfeasible
    else:
        assert value_lp == pytest.approx(best[0], abs=1e-6 * max(1.0, abs(best[0])))
        assert -value_mps == pytest.approx(best[0], abs=1e-6 * max(1.0, abs(best[0])))


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
@settings(max_examples=15, deadline=None)
@given(problem=constrained_problems(n_max=3, planner=False))
def test_frontier_and_breakpoints_keep_every_constraint(problem):
    assume(not near_a_side(problem))
    alphas = [0.0, 0.3, 0.6, 0.9]
    table = frontier(problem, alphas, solver="highs")
    for alpha, value in zip(alphas, table["objective"]):
        best = brute_force(problem.with_changes(alpha=alpha))
        if best is None:
            assert np.isnan(value)
        else:
            assert value == pytest.approx(best[0], abs=1e-9)
    try:
        steps = frontier_breakpoints(problem, 0.0, 1.0, solver="highs")
    except ValueError as exc:  # a MILP backend at a threshold a hair above a selection's average
        assert "proven optimum" in str(exc) or "optimal" in str(exc)
    else:
        for row in steps.itertuples():
            best = brute_force(problem.with_changes(alpha=row.alpha))
            if best is None:
                assert row.status == "infeasible"
            else:
                assert row.objective == pytest.approx(best[0], abs=1e-9)


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
@settings(max_examples=15, deadline=None)
@given(problem=constrained_problems(n_max=3, cap_max=2))
def test_alternatives_keep_every_constraint(problem):
    assume(not near_a_side(problem))
    table = alternatives(problem, 3, solver="highs")
    values = sorted((problem.evaluate(np.array(x)).utility for x in _every(problem)
                     if problem.evaluate(np.array(x)).feasible), reverse=True)
    assert len(table) == min(3, len(values))
    for row, value in zip(table.itertuples(), values):
        assert problem.evaluate(row.x).feasible
        assert row.objective == pytest.approx(value, abs=1e-9)


def _every(problem):
    import itertools

    return itertools.product(*(range(int(k) + 1) for k in problem.capacity))


def small():
    return SubsetSelectionProblem([0.9, 0.8, 0.7, 0.95], [0.1, 0.2, 0.1, 0.5], alpha=0.75, capacity=[2, 3, 1, 2],
                                  names=["acme", "bolt", "cog", "dyn"])


@pytest.mark.parametrize("name", ["exact", "dpss", "gss"])
@pytest.mark.parametrize("constraint, kind", [
    (LinearConstraint([0.3, 0.25, 1.1, 0.7], upper=2.05, name="co2"), "linear"),
    (LinearConstraint({"acme": 1, "bolt": 1}, upper=1, name="acme_or_bolt", on="used"), "linear_used"),
    (QualityFloor([0.99, 0.9, 0.97, 0.96], 0.95, name="ontime"), "quality_floor")])
def test_other_solvers_refuse_naming_the_constraint(name, constraint, kind):
    p = small().with_constraints(constraint)
    with pytest.raises(UnsupportedExtensionError, match=f"constraint '{constraint.name}' \\(kind '{kind}'\\)"):
        get_solver(name).solve(p)


@pytest.mark.skipif("highs" not in MILP, reason="highspy missing")
def test_an_infeasible_answer_names_the_constraint_in_its_conflict():
    p = small().with_changes(demand=6).with_constraints(
        LinearConstraint({"acme": 1, "bolt": 1}, upper=1, name="acme_or_bolt", on="used"),
        LinearConstraint([1, 1, 1, 1], upper=4, name="cases"))
    sol = get_solver("highs").solve(p)
    assert sol.status is Status.INFEASIBLE
    assert sol.conflict.constraints == ("demand", "cases")
    assert "cases (sum coef x <= 4)" in sol.explanation


def test_a_threshold_copy_keeps_every_field():
    p = small().with_constraints(QualityFloor([0.99, 0.9, 0.97, 0.96], 0.95, name="ontime"))
    q = p.with_changes(alpha=0.5)
    for field in SubsetSelectionProblem.__dataclass_fields__:
        if field != "alpha":
            assert getattr(q, field) is getattr(p, field), field
    assert q.constraints == p.constraints and q.alpha == 0.5


def test_rows_are_tagged_real_or_integral():
    from subsel.models import linear_form

    p = small().with_constraints(LinearConstraint([1, 2, 0, 1], lower=1, upper=3, name="ints"),
                                 LinearConstraint([0.5, 0.25, 0.1, 0], lower=0.2, upper=1.0, name="mix"),
                                 LinearConstraint({"acme": 1, "dyn": 1}, lower=1, name="pick", on="used"))
    rows = {r.name: r for r in linear_form(p).rows}
    assert not rows["ints_min"].real and rows["ints_min"].tol == 0 and rows["ints_min"].lower == 1
    assert rows["ints_max"].upper == 3 and rows["ints_max"].sense == "<="
    assert rows["mix_min"].real and rows["mix_max"].real and rows["mix_min"].tol == 1e-9
    assert rows["quality"].real and not rows["pick"].real
    assert rows["pick"].index.size == 2  # over the used variables of acme and dyn


@pytest.mark.skipif("ortools-cpsat" not in MILP, reason="ortools missing")
@pytest.mark.parametrize("offset", [-1.5e-9, -1e-9, -0.5e-9, 0.0, 0.5e-9])
def test_cpsat_rounds_a_real_upper_side_exactly(offset):
    """Dyadic data scale exactly: CP-SAT's side is floor((U + 1e-9) 2^k) of the exact sum, so its
    optimum passes the rule also when a selection lies between U + 1e-9 and U + 2e-9 (the budget's
    side once counted the tolerance twice there, and CP-SAT answered an infeasible selection)."""
    bound = 1.0 + offset
    budget = SubsetSelectionProblem([0.9, 0.9], [0.5, 0.25], alpha=0.5, capacity=[2, 2], budget=bound)
    linear = SubsetSelectionProblem([0.9, 0.9], [0.1, 0.1], alpha=0.5, capacity=[2, 2],
                                    constraints=[LinearConstraint([0.5, 0.25], upper=bound, name="c")])
    for p in (budget, linear):
        sol = get_solver("ortools-cpsat").solve(p)
        assert sol.status is Status.OPTIMAL and p.evaluate(sol.x).feasible
        assert sol.objective == pytest.approx(brute_force(p)[0], abs=1e-12)
