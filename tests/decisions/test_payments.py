"""subsel.payments: critical payments, checked for truthfulness and individual rationality."""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem, get_solver, payments
from subsel.decisions import unit_steps
from tests.decisions.reference import best
from tests.strategies import must_list_problems, planner_problems, problems

TOL = 1e-7


def _with_cost(problem, i, z):
    cost = np.array(problem.cost, dtype=float)
    cost[i] = z
    return problem.with_changes(cost=cost)


def _reports(problem, i, solver="exact", points=41):
    """A fine grid of reports for agent i, plus just below and above every step of x_i(z) from z = 0."""
    breaks, _ = unit_steps(_with_cost(problem, i, 0.0), i, solver=solver)
    finite = breaks[np.isfinite(breaks)]
    top = float(finite.max()) + 1.0 if finite.size else 3.0
    grid = list(np.linspace(0.0, top, points))
    for z in finite:
        grid += [z - 1e-6, z + 1e-6, np.nextafter(z, -1.0), np.nextafter(z, np.inf)]
    return [z for z in grid if z >= 0.0]


def _check_steps(problem, i, solver="exact"):
    """Between two steps of x_i(z) (and after the last) the units of the step are those of an optimum."""
    breaks, units = unit_steps(problem, i, solver=solver)
    c = float(problem.cost[i])
    edges = [c, *breaks.tolist()]
    assert units[-1] == 0 and np.all(np.diff(units) < 0) and np.all(np.diff(edges) >= 0)
    for j, u in enumerate(units):
        if j + 1 < len(edges):
            if not math.isfinite(edges[j + 1]) or edges[j + 1] - edges[j] < 1e-6:
                continue
            z = (edges[j] + edges[j + 1]) / 2
        elif math.isfinite(edges[-1]):
            z = edges[-1] + 1.0
        else:
            continue
        at = _with_cost(problem, i, z)
        assert best(at, fixed=(i, int(u))) == pytest.approx(best(at), rel=1e-9, abs=1e-9)


def _truthful(problem, solver="exact", points=41):
    if best(problem) is None:  # costs never make a problem feasible: nobody to pay
        with pytest.raises(ValueError, match="infeasible"):
            payments(problem, solver=solver)
        return
    honest = payments(problem, solver=solver)
    for i in range(problem.n):
        c = float(problem.cost[i])
        profit = honest.payment[i] - c * honest.units[i]
        assert profit >= -TOL  # individual rationality
        for z in _reports(problem, i, solver, points):
            lie = payments(_with_cost(problem, i, z), solver=solver)
            gain = lie.payment[i] - c * lie.units[i]
            if math.isinf(profit):
                continue
            assert gain <= profit + TOL * max(1.0, abs(profit)), (i, z, gain, profit)


@settings(max_examples=12)
@given(problems(n_max=4, cap_max=1, grid=True))
def test_no_agent_gains_by_misreporting_unit_capacities(problem):
    _truthful(problem)


@settings(max_examples=12)
@given(must_list_problems(n_max=4, cap_max=3))
def test_no_agent_gains_by_misreporting_with_capacities_and_must_lists(problem):
    _truthful(problem)


@settings(max_examples=30)
@given(must_list_problems(n_max=5, cap_max=3), st.data())
def test_steps_match_brute_force(problem, data):
    """Between two steps (and after the last) the units of the step are those of an optimum."""
    i = data.draw(st.integers(0, problem.n - 1))
    assume(best(problem) is not None)  # a selection to pay for
    _check_steps(problem, i)


@settings(max_examples=10, deadline=None)
@given(planner_problems(n_max=3, cap_max=3))
def test_no_agent_gains_by_misreporting_with_the_planner_fields(problem):
    """Minimum orders, lot sizes, fixed costs and group limits (no budget) keep the selection
    monotone in each report: truthful and individually rational, with a MILP backend."""
    _truthful(problem.with_changes(budget=None), solver="highs", points=13)


@settings(max_examples=25, deadline=None)
@given(planner_problems(n_max=3, cap_max=4), st.data())
def test_steps_with_the_planner_fields_match_brute_force(problem, data):
    problem = problem.with_changes(budget=None)
    i = data.draw(st.integers(0, problem.n - 1))
    assume(best(problem) is not None)  # a selection to pay for
    _check_steps(problem, i, "highs")


@settings(max_examples=30)
@given(problems(n_max=6, cap_max=1))
def test_unit_capacities_pay_the_cost_plus_the_loss_without_the_agent(problem):
    df = payments(problem)
    opt = best(problem)
    for i in np.flatnonzero(df.units.to_numpy()):
        without = best(problem.with_changes(must_not_take=[int(i)]))
        assert df.payment[i] == pytest.approx(problem.cost[i] + opt - without, abs=1e-9)
        assert df.payment_per_unit[i] == df.payment[i]
    assert (df.payment[df.units == 0] == 0).all() and df.payment_per_unit[df.units == 0].isna().all()


def test_table_columns_and_a_known_payment():
    p = SubsetSelectionProblem(quality=[0.9, 0.8, 0.6], cost=[0.3, 0.4, 0.6], alpha=0.8, names=["a", "b", "c"])
    df = payments(p)
    assert list(df.columns) == ["name", "units", "reported_cost", "payment", "payment_per_unit"]
    assert df.name.tolist() == ["a", "b", "c"] and df.units.tolist() == [1, 1, 0]
    # a: without it the best is b alone (0.4), so a may report up to 0.3 + (1.0 - 0.4) = 0.9
    # b: without it a alone (0.6): b's critical cost is 0.4 + (1.0 - 0.6) = 0.8
    assert df.payment.tolist() == pytest.approx([0.9, 0.8, 0.0])


def test_capacity_steps_pay_each_unit_its_own_critical_cost():
    # Agent 0 (q = 0.9) sells up to 2 units, agent 1 (q = 0.6) one unit that needs 0.1 of surplus.
    p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.75], cost=[0.5, 0.0, 0.0], alpha=0.7, capacity=[2, 1, 2])
    breaks, units = unit_steps(p, 0)
    for z, u in zip([0.5, *breaks], units):
        at = _with_cost(p, 0, z + 1e-9)
        assert get_solver("exact").solve(at).x[0] == u
    pay = payments(p).payment[0]
    assert pay == pytest.approx(0.5 * units[0] + float(np.sum(units[:-1] * np.diff([0.5, *breaks]))))


def test_an_agent_needed_at_any_price_is_paid_without_bound():
    p = SubsetSelectionProblem(quality=[0.9, 0.8], cost=[0.3, 0.4], alpha=0.5, must_take=[0])
    df = payments(p)
    assert math.isinf(df.payment[0]) and df.payment[1] == pytest.approx(0.8)
    q = SubsetSelectionProblem(quality=[0.9, 0.8], cost=[0.3, 0.4], alpha=0.5, demand=2)
    assert np.isinf(payments(q, solver="highs").payment).all()


def test_refusals():
    p = SubsetSelectionProblem(quality=[0.9, 0.8], cost=[0.3, 0.4], alpha=0.5)
    with pytest.raises(ValueError, match="budget 1: critical payments need"):
        payments(p.with_changes(budget=1.0), solver="highs")
    with pytest.raises(ValueError, match="'gss' does not prove optimality; payments needs an exact solver"):
        payments(p, solver="gss")
    with pytest.raises(ValueError, match="the problem is infeasible"):
        payments(p.with_changes(demand=3), solver="highs")
    with pytest.raises(ValueError, match="agent 'x' is not an agent name"):
        unit_steps(p, "x")
    with pytest.raises(ValueError, match=r"agent must be an index in 0..1 or a name; got 2"):
        unit_steps(p, 2)
    with pytest.raises(TypeError, match="problem must be a SubsetSelectionProblem"):
        payments(None)
    planner = p.with_changes(lot_size=[2, 1], capacity=[2, 2])
    grouped = planner.with_changes(group=["a", "a"], group_limits={"a": {"max_agents": 1}})
    # exact solves group limits too: the same payments as a MILP backend's
    assert payments(grouped).equals(payments(grouped, solver="highs"))
    with pytest.raises(ValueError, match="budget 1: critical payments need"):
        payments(planner.with_changes(budget=1.0), solver="highs")


def test_huge_costs_and_capacities():
    p = SubsetSelectionProblem(quality=[1.0, 0.5], cost=[1e20, 0.0], alpha=0.75, R=1e29,
                               capacity=[10 ** 12, 10 ** 12])
    df = payments(p)
    assert df.units.tolist() == [10 ** 12, 10 ** 12]
    assert (df.payment >= df.units * df.reported_cost).all()
