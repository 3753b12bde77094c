"""The constraints today's keywords build (Budget, Demand, MustTake, MustNotTake, GroupLimit) as objects."""
import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import Budget, Demand, GroupLimit, LinearConstraint, MustNotTake, MustTake, SubsetSelectionProblem
from subsel.models import FEASIBILITY_TOL, ProblemBatch, linear_form, lp_text
from subsel.solvers import constraint_families, without_constraints
from tests.strategies import constrained_problems, planner_problems

Q, C = [0.9, 0.5, 0.8], [0.2, 0.1, 0.3]


def full(**kw):
    return SubsetSelectionProblem(Q, C, 0.7, capacity=[2, 2, 2], names=["acme", "bolt", "cog"], budget=1.0,
                                  demand=2, must_take=["acme"], must_not_take=[2], group=["a", "a", None],
                                  group_limits={"a": {"max_agents": 1}}, **kw)


def test_constraints_lists_every_constraint_in_force_keywords_first():
    co2 = LinearConstraint([1, 2, 3], upper=4, name="co2")
    p = full(constraints=[co2])
    assert [type(c) for c in p.constraints] == [Budget, Demand, MustTake, MustNotTake, GroupLimit,
                                                 LinearConstraint]
    assert [c.name for c in p.constraints] == ["budget", "demand", "must_take", "must_not_take", "group_limits:a",
                                               "co2"]
    assert p.added_constraints == (p.constraints[-1],) and p.constraints[-1].coef.tolist() == [1, 2, 3]
    assert p.extensions == {"budget", "demand", "must_take", "must_not_take", "group_limits", "linear"}
    assert [c.describe() for c in p.constraints[:5]] == [
        "budget 1", "demand 2", "must-take acme", "must-not-take cog", "the limits of group 'a' (max_agents 1)"]


def test_the_paper_model_has_no_constraint_objects():
    assert SubsetSelectionProblem(Q, C, 0.7).constraints == ()


def test_objects_given_for_keywords_set_them_and_rebuild_the_problem():
    p = full()
    q = SubsetSelectionProblem(Q, C, 0.7, capacity=[2, 2, 2], names=["acme", "bolt", "cog"], group=["a", "a", None],
                               constraints=p.constraints)
    assert (q.budget, q.demand, q.must_take.tolist(), q.must_not_take.tolist()) == (1.0, 2, [0], [2])
    assert dict(q.group_limits) == {"a": {"max_agents": 1}} and q.added_constraints == ()
    assert [repr(c) for c in q.constraints] == [repr(c) for c in p.constraints]
    r = SubsetSelectionProblem(Q, C, 0.7).with_constraints(Budget(0.25), MustTake([0]))
    assert r.budget == 0.25 and r.must_take.tolist() == [0] and r.evaluate([1, 0, 0]).feasible
    assert r.evaluate([1, 1, 0]).violations == ("budget: sum c x = 0.3 > budget 0.25",)


@pytest.mark.parametrize("given, match", [
    (dict(budget=2.0, constraints=[Budget(1.0)]), r"constraints\[0\]: 'budget 1' and the keyword budget= are both"),
    (dict(demand=1, constraints=[Demand(2)]), r"constraints\[0\]: 'demand 2' and the keyword demand="),
    (dict(must_take=[0], constraints=[MustTake([1])]), "the keyword must_take= are both given"),
    (dict(group=["a", "a", None], group_limits={"a": {"max_units": 1}},
          constraints=[GroupLimit("a", {"max_units": 2})]), r"constraints\[0\]: the limits of group 'a' are given "
                                                             "twice"),
    (dict(constraints=[Budget(-1.0)]), "budget must be >= 0"),
    (dict(constraints=[MustTake(["zed"])]), "zed"),
])
def test_a_keyword_given_twice_or_badly_is_refused(given, match):
    with pytest.raises(ValueError, match=match):
        SubsetSelectionProblem(Q, C, 0.7, **given)


def test_an_unbound_keyword_object_cannot_be_bound_alone():
    with pytest.raises(ValueError, match="Budget is the problem's 'budget'"):
        Budget(1.0).bind(3, lambda: ("a", "b", "c"))


def test_copies_keep_or_drop_the_keywords_objects():
    co2 = LinearConstraint([1, 2, 3], upper=4, name="co2")
    p = full(constraints=[co2])
    assert [c.name for c in p.with_changes(alpha=0.5).constraints] == [c.name for c in p.constraints]
    assert p.with_changes(alpha=0.5).added_constraints == p.added_constraints
    assert [c.name for c in p.with_changes(budget=None).constraints] == [
        "demand", "must_take", "must_not_take", "group_limits:a", "co2"]
    assert [c.name for c in p.with_constraints(LinearConstraint([1, 1, 1], lower=1, name="n")).constraints][-2:] \
        == ["co2", "n"]


def test_the_explanation_drops_each_keyword_through_its_object():
    p = full(constraints=[LinearConstraint([1, 2, 3], upper=4, name="co2")], min_units=[1, 2, 1])
    assert constraint_families(p) == ["quality", "budget", "demand", "must_take", "must_not_take", "min_units",
                                      "group_limits:a", "co2"]
    q = without_constraints(p, {"budget", "must_take", "group_limits:a", "co2"})
    assert q.budget is None and q.must_take.size == 0 and dict(q.group_limits) == {} and q.added_constraints == ()
    assert [c.name for c in q.constraints] == ["demand", "must_not_take"]


def test_the_linear_form_takes_budget_and_demand_rows_from_their_objects():
    p = full()
    form = linear_form(p, scale=4.0)
    rows = {r.name: r for r in form.rows}
    assert rows["budget"].real and rows["budget"].upper == (1.0 + FEASIBILITY_TOL) * 4.0
    assert rows["budget"].coef[:3].tolist() == (np.array(C) * 4.0).tolist()
    assert not rows["demand"].real and rows["demand"].lower == 2.0
    assert [r.name for r in form.rows][:3] == ["quality", "budget", "demand"]
    assert "budget:" in lp_text(p) and "demand:" in lp_text(p)


def test_a_batch_row_lists_the_keywords_objects_once():
    p = full(constraints=[LinearConstraint([1, 2, 3], upper=4, name="co2")])
    b = ProblemBatch.from_problems([p, p.with_changes(alpha=0.6)])
    assert b.added_constraints == p.added_constraints
    assert [c.name for c in b.row(1).constraints] == [c.name for c in p.constraints]


def _fraction_dot(a, x):
    return sum((Fraction(float(ai)) * Fraction(float(xi)) for ai, xi in zip(a, x)), Fraction(0))


def _breaks(problem, c, x):
    """Whether ``x`` breaks the keyword constraint ``c``, decided here in fractions (independently)."""
    if isinstance(c, Budget):
        spent = _fraction_dot(problem.cost, x)
        if "fixed_cost" in problem.extensions:
            spent += _fraction_dot(problem.fixed_cost, [xi > 0 for xi in x])
        return spent > Fraction(problem.budget) + Fraction(FEASIBILITY_TOL)
    if isinstance(c, Demand):
        return sum(x) < problem.demand
    if isinstance(c, MustTake):
        return any(x[i] < 1 for i in problem.must_take)
    if isinstance(c, MustNotTake):
        return any(x[i] != 0 for i in problem.must_not_take)
    members = [i for i, g in enumerate(problem.group) if g == c.group]
    have = {"units": sum(x[i] for i in members), "agents": sum(x[i] > 0 for i in members)}
    return any(have[key.split("_")[1]] < v if key.startswith("min") else have[key.split("_")[1]] > v
               for key, v in c.limits.items())


@settings(max_examples=60, deadline=None)
@given(st.one_of(planner_problems(n_max=4, cap_max=3), constrained_problems(n_max=3, cap_max=2)), st.data())
def test_each_keyword_object_decides_as_fractions_do(problem, data):
    """For every selection, each keyword object names a violation exactly when its constraint is
    broken (decided here in fractions), and evaluate's lines are the objects' lines."""
    for x in itertools.product(*(range(int(k) + 1) for k in problem.capacity)):
        xa = np.array(x, dtype=float)
        lines = problem.evaluate(np.array(x)).violations
        for c in problem.constraints:
            if c.keyword is None:
                continue
            mine = c.violations(xa, problem.names.__getitem__)
            assert bool(mine) == _breaks(problem, c, x), (c, x, mine)
            if c.kind != "group_limits" or not problem.extensions & {"min_units", "lot_size"} or not lines:
                assert all(line in lines for line in mine)


def test_the_problems_own_constraints_passed_back_are_the_same_problem():
    """``with_changes(constraints=[*p.constraints, more])`` (a reader's natural copy) keeps the keywords."""
    p = full()
    co2 = LinearConstraint([1, 2, 3], upper=4, name="co2")
    q = p.with_changes(constraints=[*p.constraints, co2])
    assert [repr(c) for c in q.constraints] == [repr(c) for c in p.constraints] + [repr(co2)]
    assert q.added_constraints[0].name == "co2" and q.budget == 1.0 and dict(q.group_limits) == dict(p.group_limits)
    with pytest.raises(ValueError, match="'demand 3' and the keyword demand= are both given"):
        p.with_changes(constraints=[Demand(3)])


@pytest.mark.parametrize("keyword, obj", [({"budget": 5}, Budget(5.0)), ({"budget": 5.0}, Budget(5)),
                                          ({"demand": 3}, Demand(3.0))])
def test_a_keyword_and_its_object_with_the_same_value_are_one_constraint(keyword, obj):
    p = SubsetSelectionProblem([0.9, 0.8], [1.0, 2.0], alpha=0.5, capacity=[3, 3], constraints=[obj], **keyword)
    assert len([c for c in p.constraints if type(c) is type(obj)]) == 1
    q = SubsetSelectionProblem([0.9, 0.8], [1.0, 2.0], alpha=0.5, capacity=[3, 3], **keyword)
    assert len(q.with_constraints(obj).constraints) == len(q.constraints)
