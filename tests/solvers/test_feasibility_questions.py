"""The feasibility questions of the explanation: aggregate bounds, greedy witnesses, the oracle."""
import itertools
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem, get_solver
from subsel.solvers import available_solvers
from subsel.solvers._feasibility import (
    Questions,
    compact_relaxation,
    greedy_witnesses,
    refutation,
    spend_bound,
    unit_bound,
)
from tests.strategies import brute_force, planner_problems

HIGHS = "highs" in available_solvers()
EXAMPLES = int(os.environ.get("SUBSEL_PLANNER_EXAMPLES", "40"))


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3), demand=st.integers(0, 12),
       budget=st.sampled_from([None, 0.0, 0.1, 0.5, 2.0]))
def test_a_refutation_is_a_proof(problem, demand, budget):
    """Whatever an aggregate bound refutes has no selection (brute force)."""
    problem = problem.with_changes(demand=demand or None, budget=budget)
    why = refutation(problem)
    if why is not None:
        assert brute_force(problem) is None, why


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3), demand=st.integers(0, 12))
def test_greedy_witnesses_have_the_right_shape(problem, demand):
    problem = problem.with_changes(demand=demand or None)
    for x in greedy_witnesses(problem):
        assert x.shape == (problem.n,) and x.dtype == np.int64
        assert (x >= 0).all() and (x <= problem.capacity).all()


def _selections(problem):
    """Every selection ``problem``'s rule accepts (brute force)."""
    for combo in itertools.product(*(range(int(k) + 1) for k in problem.capacity)):
        x = np.array(combo, dtype=np.int64)
        if problem.evaluate(x).feasible:
            yield x


def _spend(problem, x):
    return float(np.dot(problem.cost, x)) + float(np.asarray(problem.fixed_cost)[x > 0].sum())


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3), demand=st.integers(0, 12),
       budget=st.sampled_from([None, 0.0, 0.1, 0.5, 2.0]))
def test_the_aggregate_bounds_hold_for_every_selection(problem, demand, budget):
    """No selection has more units than unit_bound or spends less than spend_bound (brute force)."""
    problem = problem.with_changes(demand=demand or None, budget=budget)
    most, least = unit_bound(problem), spend_bound(problem)
    for x in _selections(problem):
        assert most is not None and int(x.sum()) <= most
        assert least is not None and _spend(problem, x) >= least - 1e-12


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3), want=st.integers(0, 12))
def test_greedy_witnesses_aim_at_what_is_wanted(problem, want):
    """Aimed at ``want`` units (no demand), the greedy selections stay within every agent's
    allowed counts, and without a quality rule, budget or group caps the first reaches ``want``
    or takes every unit."""
    problem = problem.with_changes(demand=None)
    xs = list(greedy_witnesses(problem, want=want))
    for x in xs:
        assert x.shape == (problem.n,) and (x <= problem.upper_bounds()).all()
        used = x > 0
        assert (x[used] % problem.lot_size[used] == 0).all() and (x[used] >= problem.min_units[used]).all()
    if problem.alpha == 0 and problem.budget is None and not problem.group_limits and not problem.must_take.size:
        allowed = problem.upper_bounds() >= problem.min_units
        assert int(xs[0].sum()) >= min(want, int(problem.upper_bounds()[allowed].sum()))


@pytest.mark.skipif(not HIGHS, reason="highspy missing")
@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3), demand=st.integers(0, 12),
       budget=st.sampled_from([None, 0.5, 2.0]), what=st.sampled_from(["units", "spend"]),
       ipm=st.booleans())
def test_the_compact_relaxation_bounds_every_selection(problem, demand, budget, what, ipm):
    """The LP optimum of the relaxation over the units alone is at least the objective (the
    units, or minus the spend) of every selection the rule accepts (brute force), by the dual
    simplex and by the interior point method (used on many agents)."""
    import subsel.solvers._feasibility as feasibility

    problem = problem.with_changes(demand=demand or None, budget=budget)
    if what == "units":
        compact = compact_relaxation(problem, np.ones(problem.n))
    else:
        compact = compact_relaxation(problem, -np.asarray(problem.cost), np.asarray(problem.fixed_cost))
    assert compact is not None and compact.n == problem.n
    columns = feasibility._IPM_COLUMNS
    try:
        feasibility._IPM_COLUMNS = 0 if ipm else columns
        lp = Questions(get_solver("highs"))._lp(compact)
    finally:
        feasibility._IPM_COLUMNS = columns
    best = max((float(x.sum()) if what == "units" else -_spend(problem, x) for x in _selections(problem)),
               default=None)
    if best is not None:  # (with no selection, any answer of the relaxation is a bound)
        assert lp is not None and lp.status.value == "optimal"
        assert lp.bound >= best - 1e-7 * max(1.0, abs(best))


@pytest.mark.skipif(not HIGHS, reason="highspy missing")
@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=3), demand=st.integers(0, 12))
def test_the_oracle_agrees_with_brute_force(problem, demand):
    problem = problem.with_changes(demand=demand or None)
    answer = Questions(get_solver("highs")).witness(problem)
    best = brute_force(problem)
    if answer is False:
        assert best is None
    elif isinstance(answer, np.ndarray):
        assert problem.evaluate(answer).feasible
    # None (undecided) only under a deadline


def test_each_bound_refutes_its_case():
    base = dict(quality=[0.9, 0.7, 0.95], cost=[1.0, 2.0, 3.0], alpha=0.8, capacity=[10, 10, 10],
                group=["a", "a", "b"])
    p = SubsetSelectionProblem(**base, group_limits={"a": {"max_units": 5}}, demand=16)
    assert "demand 16 is above the 15 units" in refutation(p)
    p = SubsetSelectionProblem(**base, group_limits={"a": {"max_agents": 0}}, must_take=[0])
    assert "allows 0 agents" in refutation(p)
    p = SubsetSelectionProblem(**base, min_units=[6, 6, 1], group_limits={"a": {"min_agents": 2, "max_units": 11}})
    assert "least units (12" in refutation(p)
    p = SubsetSelectionProblem(**base, budget=5.0, must_take=[2])
    assert "budget 5 is below the 3" not in (refutation(p) or "")  # 3 <= 5: no refutation
    p = SubsetSelectionProblem(**base, budget=20.0, demand=25)
    assert "least any 25 units cost" in refutation(p)
    p = SubsetSelectionProblem(**{**base, "alpha": 0.96}, demand=1)
    assert "reach average quality 0.96" in refutation(p)
    assert refutation(SubsetSelectionProblem(**base, demand=20)) is None


@pytest.mark.skipif(not HIGHS, reason="highspy missing")
def test_a_deadline_leaves_members_undecided_and_says_so(monkeypatch):
    """With no time left, the conflict keeps the members the bounds cannot decide and names them
    (the greedy witnesses switched off: here they would decide every member at once)."""
    import subsel.solvers._feasibility as feasibility
    from subsel.models import planner_instance

    p = planner_instance(60, 3)
    p = p.with_changes(demand=sum(v["max_units"] for v in p.group_limits.values()) + 1)
    sol = get_solver("highs").solve(p)
    assert sol.status.value == "infeasible"
    with monkeypatch.context() as m:
        m.setattr(feasibility, "greedy_witnesses", lambda problem, want=None: [])
        text, conflict = sol.explain(time_limit_s=0.0)
    assert "demand" in conflict.constraints and conflict.undecided
    assert set(conflict.undecided) <= set(conflict.constraints)
    assert "not yet decided" in text and "proven in the conflict" in text
    full = get_solver("highs").solve(p)
    assert not full.conflict.undecided and set(full.conflict.constraints) <= set(conflict.constraints)


@pytest.mark.skipif(not HIGHS, reason="highspy missing")
def test_a_budget_below_a_groups_pledge_gets_the_least_budget():
    """Two northern agents pledged at their minimum orders cost 5 * 2 + 4 * 3 = 22 > 20."""
    from tests.solvers.test_planner_backends import check_advice

    p = SubsetSelectionProblem(quality=[0.9, 0.85, 0.95], cost=[2.0, 3.0, 1.0], alpha=0.8, capacity=[10, 10, 10],
                               min_units=[5, 4, 6], group=["north", "north", "south"],
                               group_limits={"north": {"min_agents": 2}}, budget=20.0)
    sol = get_solver("highs").solve(p)
    assert sol.status.value == "infeasible"
    assert sol.conflict.constraints == ("budget", "min_units", "group_limits:north")
    assert sol.conflict.min_budget == 22.0
    assert sol.explanation == ("no selection meets budget 20, the minimum orders and the limits of group 'north' "
                               "(min_agents 2) together (raise the budget to 22)")
    check_advice(p, sol.conflict)


@pytest.mark.skipif(not HIGHS, reason="highspy missing")
def test_a_threshold_lot_sizes_make_unreachable_gets_the_largest_threshold():
    """Agent 1 must take a lot of 6 at quality 0.6; agent 0 comes in lots of 8 at 0.9: at best
    (8 * 0.9 + 6 * 0.6) / 14 = 0.771428..."""
    from tests.solvers.test_planner_backends import check_advice

    p = SubsetSelectionProblem(quality=[0.9, 0.6], cost=[0.1, 0.1], alpha=0.8, capacity=[8, 12], lot_size=[8, 6],
                               must_take=[1])
    sol = get_solver("highs").solve(p)
    assert sol.status.value == "infeasible"
    assert sol.conflict.constraints == ("quality", "must_take", "lot_size")
    assert sol.conflict.max_alpha == 0.771428
    assert sol.explanation.endswith("(lower the average quality to 0.771428)")
    check_advice(p, sol.conflict)
    assert get_solver("highs").solve(p.with_changes(alpha=0.771428)).is_feasible
