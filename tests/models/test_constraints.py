"""Validation and exact decisions of the constraint objects (LinearConstraint, QualityFloor)."""
import numpy as np
import pytest

from subsel import LinearConstraint, QualityFloor, SubsetSelectionProblem
from subsel.models import FEASIBILITY_TOL, InputError


def problem(**kw):
    return SubsetSelectionProblem([0.9, 0.8, 0.7], [0.1, 0.2, 0.1], alpha=0.75, capacity=[2, 2, 2],
                                  names=["acme", "bolt", "cog"], **kw)


@pytest.mark.parametrize("make, match", [
    (lambda: LinearConstraint([1, 1, 1], name="x"), "give lower, upper or both"),
    (lambda: LinearConstraint([1, 1, 1], lower=3, upper=2, name="x"), "lower 3 is above upper 2"),
    (lambda: LinearConstraint([1, 1, 1], upper=1, on="agents", name="x"), "on must be 'units' or 'used'; got 'agents'"),
    (lambda: LinearConstraint([1, 1, 1], upper=float("inf"), name="x"), "upper must be a finite number; got inf"),
    (lambda: LinearConstraint([1, 1, 1], upper=float("nan"), name="x"), "upper"),
    (lambda: LinearConstraint([1, 1, 1], upper=1, name="co 2"), "name must start with a letter"),
    (lambda: LinearConstraint([1, 1, 1], upper=1, name="budget"), "taken by the problem's own rows"),
    (lambda: LinearConstraint([1, 1, 1], upper=1, name="used_x"), "taken by the problem's own rows"),
    (lambda: QualityFloor([0.9, 0.9, 0.9], 1.5, name="ontime"), r"alpha must be in \[0, 1\]; got 1.5"),
])
def test_a_bad_constraint_is_refused_when_made(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_a_name_that_is_not_text_is_a_type_error():
    with pytest.raises(TypeError, match="name must be a string"):
        LinearConstraint([1, 1, 1], upper=1, name=3)


@pytest.mark.parametrize("constraint, match", [
    (LinearConstraint([1, 1], upper=1, name="co2"), "has 2 entries but the problem has 3 agents"),
    (LinearConstraint([1, float("nan"), 1], upper=1, name="co2"), r"coef\[1\] must be a finite number; got nan"),
    (LinearConstraint([1, 1e31, 1], upper=1, name="co2"), r"coef\[1\] must be at most 1e\+30"),
    (LinearConstraint({"acme": 1, "zed": 2}, upper=1, name="co2"), "names no agent; got 'zed'"),
    (LinearConstraint({"acme": "one"}, upper=1, name="co2"), "must be a number for agent 'acme'"),
    (QualityFloor([0.9, 1.2, 0.9], 0.9, name="ontime"), r"values\[1\] must be in \[0, 1\]; got 1.2"),
    (QualityFloor({"acme": 0.9, "bolt": 0.9}, 0.9, name="ontime"), r"agent 2 \('cog'\) is missing"),
])
def test_a_constraint_that_does_not_fit_the_agents_is_refused_naming_it(constraint, match):
    with pytest.raises(ValueError, match=match):
        problem(constraints=[constraint])


def test_constraints_need_unique_names_and_objects():
    c = LinearConstraint([1, 1, 1], upper=1, name="co2")
    with pytest.raises(ValueError, match="the name 'co2' is used twice"):
        problem(constraints=[c, LinearConstraint([1, 0, 1], upper=2, name="co2")])
    with pytest.raises(TypeError, match=r"constraints\[0\] must be a constraint object"):
        problem(constraints=["co2 <= 1"])
    with pytest.raises(TypeError, match="constraints must be a sequence"):
        problem(constraints="co2")
    assert isinstance(problem(constraints=[c]).constraints, tuple)
    assert problem().constraints == ()


def test_a_mapping_leaves_other_agents_at_zero_and_the_problem_holds_the_bound_copy():
    c = LinearConstraint({"bolt": 2.5}, upper=5, name="co2")
    p = problem(constraints=[c])
    assert p.constraints[0].coef.tolist() == [0.0, 2.5, 0.0] and c.coef == {"bolt": 2.5}
    assert p.extensions == {"linear"}
    assert p.evaluate([2, 2, 2]).feasible and not p.evaluate([0, 3, 0]).feasible  # 3 > capacity, too
    assert p.with_constraints(QualityFloor([1, 1, 0], 0.5, name="ontime")).extensions == {"linear", "quality_floor"}


def test_real_sides_are_decided_exactly_with_the_tolerance():
    # 0.1 + 0.2 > 0.3 in floats; the rule is decided on the stored numbers, with 1e-9 of tolerance.
    coef = [0.1, 0.2, 0.0]
    at = problem(constraints=[LinearConstraint(coef, upper=0.3, name="c")])
    assert at.evaluate([1, 1, 0]).feasible  # exact sum 0.3000000000000000166 <= 0.3 + 1e-9
    tight = problem(constraints=[LinearConstraint(coef, upper=0.3 - 2 * FEASIBILITY_TOL, name="c")])
    assert tight.evaluate([1, 1, 0]).violations[0].startswith("c: sum coef x = 0.3 > 0.299999998")  # as given
    low = problem(constraints=[LinearConstraint(coef, lower=0.3 + 0.5 * FEASIBILITY_TOL, name="c")])
    assert low.evaluate([1, 1, 0]).feasible
    lower = problem(constraints=[LinearConstraint(coef, lower=0.3 + 2 * FEASIBILITY_TOL, name="c")])
    assert not lower.evaluate([1, 1, 0]).feasible


def test_integral_sides_have_no_tolerance_and_used_counts_agents():
    c = LinearConstraint({"acme": 1, "bolt": 1}, upper=1, name="acme_or_bolt", on="used")
    p = problem(constraints=[c])
    assert p.constraints[0].integral and p.constraints[0].kind == "linear_used"
    assert p.evaluate([2, 0, 1]).feasible
    assert p.evaluate([1, 1, 0]).violations == ("acme_or_bolt: sum coef [x > 0] = 2 > 1",)
    two = problem(constraints=[LinearConstraint([1, 1, 1], lower=2, upper=3, name="cases")])
    assert [two.evaluate(np.array(x)).feasible for x in ([1, 0, 0], [1, 1, 0], [2, 1, 0], [2, 2, 0])] == \
        [False, True, True, False]


def test_a_quality_floor_is_the_quality_rule_on_another_attribute():
    floor = QualityFloor([0.99, 0.9, 0.97], 0.95, name="ontime")
    p = problem(constraints=[floor])
    # (0.99 + 0.9) / 2 = 0.945 < 0.95; (0.99 + 0.97 + 0.9) / 3 = 0.9533
    assert not p.evaluate([1, 1, 0]).feasible and p.evaluate([1, 1, 1]).feasible
    assert p.evaluate([1, 1, 0]).violations[0].startswith("ontime: sum (v - alpha) x")
    # the same numbers as the main quality row decide the same way
    same = SubsetSelectionProblem([0.99, 0.9, 0.97], [0.1, 0.2, 0.1], alpha=0.95, capacity=[2, 2, 2])
    for x in ([1, 1, 0], [1, 1, 1], [2, 1, 0], [0, 0, 2], [2, 2, 2]):
        assert same.evaluate(x).feasible == p.with_changes(alpha=0.0).evaluate(x).feasible


def test_input_errors_name_the_agent():
    with pytest.raises(InputError) as info:
        problem(constraints=[QualityFloor([0.9, -0.1, 0.9], 0.9, name="ontime")])
    assert info.value.row == 1
