"""``exact`` and ``dpss`` on minimum orders, lot sizes and fixed costs (with must lists) against
brute force; ``exact`` on the whole planner's model (budget, demand, group limits too)."""
import itertools
import os

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subsel.models import SubsetSelectionProblem, planner_instance
from subsel.solvers import Status, UnsupportedExtensionError, get_solver
from tests.strategies import brute_force, label_fields, planner_problems

EXAMPLES = int(os.environ.get("SUBSEL_PLANNER_EXAMPLES", "100"))


def exact_part(problem):
    """What ``dpss`` supports of a drawn problem (and ``exact`` without coupling rows): no budget,
    demand or group limits."""
    return problem.with_changes(budget=None, demand=None, group_limits=None)


def check_exact(problem, solver="exact"):
    label_fields(problem)
    best = brute_force(problem)
    sol = get_solver(solver).solve(problem)
    if best is None:
        assert sol.status is Status.INFEASIBLE, (sol.status, sol.x)
        return sol
    assert sol.status is Status.OPTIMAL, sol.status
    assert problem.evaluate(sol.x).feasible
    tol = 1e-9 * max(1.0, abs(best[0]))
    assert abs(sol.objective - best[0]) <= tol, (sol.objective, best)
    assert sol.bound is not None and sol.bound >= best[0] - tol
    return sol


@pytest.mark.parametrize("solver", ["exact", "dpss"])
@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=5, cap_max=4))
def test_exact_equals_brute_force(solver, problem):
    check_exact(exact_part(problem), solver)


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=4, cap_max=6), take=st.lists(st.integers(0, 3), max_size=2, unique=True),
       drop=st.lists(st.integers(0, 3), max_size=2, unique=True))
def test_exact_with_must_lists_equals_brute_force(problem, take, drop):
    take = [i for i in take if i < problem.n]
    drop = [i for i in drop if i < problem.n and i not in take]
    for solver in ("exact", "dpss"):
        check_exact(exact_part(problem).with_changes(must_take=take, must_not_take=drop), solver)


@settings(max_examples=EXAMPLES)
@given(n=st.integers(2, 5), seed=st.integers(0, 2 ** 32 - 1), hair=st.sampled_from([0.0, 1e-12, 1e-9, 2e-9]))
def test_exact_at_the_bound_equals_brute_force(n, seed, hair):
    """Qualities on a grid a hair from alpha, fixed costs that tie with unit values."""
    rng = np.random.default_rng(seed)
    alpha = 0.5
    q = alpha + rng.choice([-0.25, -0.125, 0.125, 0.25], size=n) + rng.choice([0.0, hair, -hair], size=n)
    k = rng.integers(1, 5, size=n)
    m = np.array([rng.integers(1, ki + 1) for ki in k])
    lot = np.array([rng.choice([li for li in range(1, ki + 1) if -(-mi // li) * li <= ki]) for mi, ki in zip(m, k)])
    p = SubsetSelectionProblem(quality=q, cost=rng.choice([0.125, 0.25, 0.5, 1.0], size=n), alpha=alpha,
                               capacity=k, min_units=m, lot_size=lot,
                               fixed_cost=rng.choice([0.0, 0.125, 0.25], size=n))
    check_exact(p)
    check_exact(p, "dpss")


def _brute_force_by_lots(problem):
    """Optimum over the allowed counts only (0, or a multiple of the lot size from the minimum order
    to the capacity), checked by the rule: big lots stay cheap to enumerate."""
    allowed = [[0] + list(range(-(-int(m) // int(lot)) * int(lot), int(k) + 1, int(lot)))
               for m, lot, k in zip(problem.min_units, problem.lot_size, problem.capacity)]
    best = None
    for combo in itertools.product(*allowed):
        ev = problem.evaluate(np.array(combo))
        if ev.feasible and (best is None or ev.utility > best[0] + 1e-12):
            best = (ev.utility, np.array(combo))
    return best


@pytest.mark.parametrize("alpha", [0.859795918367432, 0.8597959183673469, 0.85979591836745])
def test_big_lots_at_a_frontier_step_equal_brute_force(alpha):
    """Qualities of three decimals, lots of 240 units, and thresholds within 1e-13 of the average
    quality of a mix (720 and 11,040 units), one of them reached by a frontier's steps.  The float
    search's optimum fails the rule by a hair there, and the rule's exact integers exceed 64 bits:
    the optimum is still proven (the core checked in exact arithmetic)."""
    q = np.array([0.688, 0.676, 0.871])
    p = SubsetSelectionProblem(quality=q, cost=np.ones(3), alpha=alpha, R=14.0, capacity=np.array([2160, 1, 11040]),
                               min_units=np.ones(3, dtype=np.int64), lot_size=np.array([240, 1, 240]),
                               fixed_cost=np.array([0.0, 12.5, 0.0]))
    best = _brute_force_by_lots(p)
    sol = get_solver("exact").solve(p)
    assert sol.status is Status.OPTIMAL, sol.status
    assert abs(sol.objective - best[0]) <= 1e-9 * max(1.0, abs(best[0])), (sol.objective, best)


def test_huge_capacities_agree_with_highs():
    """Capacities up to 10^12 in lots of 10^6: exact and the MILP backend reach the same optimum."""
    rng = np.random.default_rng(3)
    n = 30
    k = rng.integers(10 ** 11, 10 ** 12, size=n)
    lot = np.full(n, 10 ** 6)
    p = SubsetSelectionProblem(quality=rng.random(n), cost=rng.random(n), alpha=0.6, capacity=k,
                               min_units=k // 3, lot_size=lot, fixed_cost=rng.random(n) * 1e5)
    a, b = get_solver("exact").solve(p), get_solver("highs").solve(p)
    assert a.status is Status.OPTIMAL and p.evaluate(a.x).feasible
    assert np.all(a.x % lot == 0) and np.all((a.x == 0) | (a.x >= k // 3))
    assert a.objective >= b.objective - 1e-6 * abs(b.objective)


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=5, cap_max=4))
def test_exact_on_the_whole_model_equals_brute_force(problem):
    """Every mix of the planner's fields, budget, demand, group limits and must lists."""
    check_exact(problem)


@settings(max_examples=EXAMPLES)
@given(n=st.integers(2, 5), seed=st.integers(0, 2 ** 32 - 1), hair=st.sampled_from([0.0, 1e-12, 1e-9, 2e-9]),
       budget=st.booleans(), demand=st.booleans(), groups=st.booleans())
def test_exact_with_coupling_rows_at_the_bound_equals_brute_force(n, seed, hair, budget, demand, groups):
    """Qualities and the budget a hair from their limits, with demand and group limits."""
    rng = np.random.default_rng(seed)
    alpha = 0.5
    q = alpha + rng.choice([-0.25, -0.125, 0.125, 0.25], size=n) + rng.choice([0.0, hair, -hair], size=n)
    k = rng.integers(1, 5, size=n)
    c = rng.choice([0.125, 0.25, 0.5], size=n)
    f = rng.choice([0.0, 0.125, 0.25], size=n)
    x = np.array([rng.integers(0, ki + 1) for ki in k])
    changes = {}
    if budget:
        changes["budget"] = max(0.0, float(c @ x + f[x > 0].sum()) + rng.choice([0.0, hair, -hair]))
    if demand:
        changes["demand"] = int(x.sum())
    if groups:
        changes["group"] = ["a" if i % 2 else "b" for i in range(n)]
        changes["group_limits"] = {"a": {"max_units": int(x[1::2].sum())}, "b": {"min_agents": 1, "max_agents": 1}}
    p = SubsetSelectionProblem(quality=q, cost=c, alpha=alpha, capacity=k, fixed_cost=f, **changes)
    check_exact(p)


def test_constraint_objects_stay_refused_by_name_and_the_default_falls_back():
    from subsel.models import LinearConstraint, QualityFloor
    from subsel.solvers import default_solver

    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, capacity=[2, 2], min_units=[2, 1],
                               group=["g", "g"], group_limits={"g": {"max_agents": 1}}, budget=1.0)
    for c in (LinearConstraint([1, 1], upper=1, name="co2"), QualityFloor([0.9, 0.9], 0.8, name="ontime")):
        q = p.with_constraints(c)
        with pytest.raises(UnsupportedExtensionError, match=f"does not support the constraint '{c.name}'"):
            get_solver("exact").solve(q)
        assert default_solver(q.extensions) != "exact"
        assert get_solver(default_solver(q.extensions)).solve(q).status is Status.OPTIMAL
    assert get_solver("exact").solve(p).status is Status.OPTIMAL


def test_time_limit_answer_carries_a_proven_bound():
    """A stop on the time limit: a feasible selection and the Lagrangian bound, at least the
    optimum of the MILP backend."""
    rng = np.random.default_rng(5)
    n = 40
    k = rng.integers(10, 60, size=n)
    p = SubsetSelectionProblem(quality=rng.random(n), cost=rng.random(n), alpha=0.6, capacity=k,
                               min_units=k // 3, fixed_cost=rng.random(n) * 5, budget=float(k.sum()) * 0.1,
                               demand=int(k.sum() * 0.15), group=[str(i % 4) for i in range(n)],
                               group_limits={str(g): {"max_units": int(k.sum() * 0.06)} for g in range(4)})
    sol = get_solver("exact", time_limit_s=0.05).solve(p)
    assert sol.status in (Status.TIME_LIMIT, Status.OPTIMAL, Status.NO_SOLUTION_FOUND)
    best = get_solver("highs").solve(p)
    assert best.status is Status.OPTIMAL
    assert sol.bound is not None and sol.bound >= best.objective - 1e-9 * abs(best.objective)
    if sol.is_feasible:
        assert p.evaluate(sol.x).feasible and sol.objective <= best.objective + 1e-9 * abs(best.objective)


def test_default_solver_is_exact_for_its_fields():
    from subsel.solvers import default_solver

    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.1], alpha=0.7, capacity=[4, 4], lot_size=[2, 1],
                               min_units=[2, 3], fixed_cost=[0.5, 0.0])
    assert default_solver(p.extensions) == "exact"
    # The coupling rows: exact solves them, a MILP backend is the default (faster there).
    assert default_solver(p.with_changes(budget=1.0).extensions) != "exact"


def test_dpss_refuses_a_hopeless_enumeration_without_a_time_limit():
    n = 40
    odd = np.arange(n) % 2 == 1  # S2 and S3 agents in turn
    p = SubsetSelectionProblem(quality=np.where(odd, 0.9, 0.5), cost=np.where(odd, 0.95, 0.3), alpha=0.7,
                               capacity=np.full(n, 8), min_units=np.full(n, 2))
    with pytest.raises(ValueError, match=r"dpss would enumerate about 2\^\d"):
        get_solver("dpss").solve(p)
    sol = get_solver("dpss", time_limit_s=0.2).solve(p)
    assert sol.status is Status.TIME_LIMIT and p.evaluate(sol.x).feasible


def swing(problem):
    """The largest ``max v - min v`` over one agent's allowed counts (``v = r x - f [x > 0]``)."""
    out = 0.0
    lb, ub = problem.lower_bounds(), problem.upper_bounds()
    for i in range(problem.n):
        xs = [x for x in range(int(lb[i]), int(ub[i]) + 1)
              if x == 0 or (x >= problem.min_units[i] and x % problem.lot_size[i] == 0)]
        vals = [problem.utility[i] * x - (problem.fixed_cost[i] if x > 0 else 0.0) for x in xs]
        out = max(out, max(vals) - min(vals))
    return out


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=5, cap_max=4), take=st.lists(st.integers(0, 4), max_size=1))
def test_gss_is_feasible_and_within_its_guarantee(problem, take):
    """GSS on the planner's fields: feasible, within one agent's swing of the optimum, and its
    bound is a true upper bound."""
    problem = exact_part(problem)
    problem = problem.with_changes(must_take=[i for i in take if i < problem.n and i not in problem.must_not_take])
    assume(problem._planner is not None)  # the paper's problem: GSS's own greedy, no such guarantee
    best = brute_force(problem)
    sol = get_solver("gss").solve(problem)
    if best is None:
        assert sol.status is Status.INFEASIBLE
    else:
        assert sol.status is Status.FEASIBLE and problem.evaluate(sol.x).feasible
        tol = 1e-9 * max(1.0, abs(best[0]))
        assert sol.objective <= best[0] + tol
        assert sol.objective >= best[0] - swing(problem) - tol, (sol.objective, best[0], swing(problem))
        assert sol.bound >= best[0] - tol


def test_one_agent_with_a_huge_capacity_stays_within_the_memory_limit():
    """Capacities up to 2^53 double one agent's state list about 50 times: the memory limit holds
    inside an agent too (an answer, feasible and with a true bound, not gigabytes)."""
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.0], capacity=[10**15, 10**15], alpha=0.7,
                               fixed_cost=[0.0, 5.0])
    sol = get_solver("exact", memory_limit_mb=64).solve(p)
    assert sol.status in (Status.FEASIBLE, Status.OPTIMAL) and p.evaluate(sol.x).feasible
    assert sol.bound >= sol.objective


def test_a_memory_limit_stops_the_search_with_a_feasible_answer_and_a_bound():
    rng = np.random.default_rng(5)
    n = 2000
    k = rng.integers(1, 11, size=n)
    p = SubsetSelectionProblem(quality=rng.random(n), cost=rng.random(n), alpha=0.7, capacity=k,
                               min_units=np.maximum(1, k // 2), fixed_cost=rng.random(n) * 0.3)
    full = get_solver("exact").solve(p)
    cut = get_solver("exact", memory_limit_mb=1e-9).solve(p)
    assert full.status is Status.OPTIMAL
    assert cut.status in (Status.FEASIBLE, Status.OPTIMAL) and p.evaluate(cut.x).feasible
    assert cut.objective <= full.objective + 1e-9 * abs(full.objective)
    assert cut.bound >= full.objective - 1e-9 * abs(full.objective)


@pytest.mark.parametrize("seed", range(4))
def test_whole_model_agrees_with_highs_on_moderate_instances(seed):
    """25 agents with every planner field, a budget and a demand that bind and group limits: the
    same optimum as the MILP backend (both proven)."""
    rng = np.random.default_rng(seed)
    n = 25
    k = rng.integers(10, 60, size=n)
    lot = rng.choice([1, 2, 5], size=n)
    k = k - k % lot
    p = SubsetSelectionProblem(quality=rng.random(n), cost=rng.random(n), alpha=0.6, capacity=k,
                               min_units=np.maximum(k // 3, 1), lot_size=lot, fixed_cost=rng.random(n) * 5,
                               budget=float(k.sum()) * 0.1, demand=int(k.sum() * 0.15),
                               group=[str(i % 3) for i in range(n)],
                               group_limits={"0": {"max_units": int(k.sum() * 0.1), "min_agents": 1},
                                             "1": {"max_agents": 3}})
    a, b = get_solver("exact").solve(p), get_solver("highs").solve(p)
    assert a.status is b.status
    if b.status is Status.OPTIMAL:
        assert p.evaluate(a.x).feasible
        assert abs(a.objective - b.objective) <= 1e-9 * max(1.0, abs(b.objective))
        assert a.bound >= b.objective - 1e-9 * abs(b.objective)


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=5, cap_max=4))
def test_search_without_highs_programs_equals_brute_force(problem):
    """The Lagrangian search alone (what ``exact`` runs when HiGHS's programs give no answer)."""
    from unittest import mock

    with mock.patch("subsel.solvers._planner_search._with_programs", return_value=None):
        check_exact(problem)


@pytest.mark.parametrize("seed", range(3))
def test_generated_coop_agrees_with_highs(seed):
    """The generated cooperative (every planner field, caps, a pledge, a binding budget and
    demand): the same proven optimum as the MILP backend, at least the bound-free plan's value."""
    from subsel.models import planner_instance

    p = planner_instance(40, seed)
    a, b = get_solver("exact").solve(p), get_solver("highs").solve(p)
    assert a.status is Status.OPTIMAL and b.status is Status.OPTIMAL
    assert p.evaluate(a.x).feasible
    assert abs(a.objective - b.objective) <= 1e-9 * max(1.0, abs(b.objective))
    assert a.bound >= b.objective - 1e-9 * abs(b.objective)


@pytest.mark.parametrize(("n", "seed", "alpha"), [(60, 0, 0.88), (60, 2, 0.9), (100, 1, 0.9)])
def test_generated_coop_without_a_feasible_plan_is_proven_infeasible(n, seed, alpha):
    """A threshold no plan of the cooperative meets with its demand and caps (the hull program has
    no solution): proven infeasible, as by the MILP backend, well inside the time limit (the
    search without the programs does not end on these)."""
    p = planner_instance(n, seed).with_changes(alpha=alpha)
    assert get_solver("highs").solve(p).status is Status.INFEASIBLE
    sol = get_solver("exact", time_limit_s=20).solve(p)
    assert sol.status is Status.INFEASIBLE


def test_hull_program_by_column_generation_equals_the_whole_program():
    """The hull program solved by sifting (forced at 300 agents) reaches the whole program's
    Lagrangian bound, with counts within each agent's hull."""
    from unittest import mock

    from subsel.models import planner_instance
    from subsel.solvers import _planner_core as core
    from subsel.solvers._planner_search import _bound_at, _model

    for seed in range(3):
        d = _model(planner_instance(300, seed).with_changes(must_take=[0, 7]))
        z, y, mu = core.hull_program(d, None)
        with mock.patch.object(core, "_SIFT_MIN", 20), mock.patch.object(core, "_SIFT_SAMPLE", 15):
            zs, ys, mus = core.hull_program(d, None)
        whole, sifted = _bound_at(d, mu)[0], _bound_at(d, mus)[0]
        assert abs(sifted - whole) <= 1e-7 * abs(whole), (sifted, whole)
        assert (ys >= -1e-9).all() and (ys <= 1 + 1e-9).all() and ys[[0, 7]].min() >= 1 - 1e-9
        assert (zs >= d.lo * ys - 1e-6).all() and (zs <= d.hi * ys + 1e-6).all()


@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=5, cap_max=4))
def test_exact_with_column_generation_equals_brute_force(problem):
    """``exact`` with the hull program solved by sifting from the first agent on (samples of one
    agent, infeasible restricted programs) still proves the brute force optimum."""
    from unittest import mock

    from subsel.solvers import _planner_core as core

    with mock.patch.object(core, "_SIFT_MIN", 0), mock.patch.object(core, "_SIFT_SAMPLE", 1):
        check_exact(problem)


def _coop_a_hair_above_a_step():
    """The generated 30-supplier co-op (seed 3) without its coupling rows, at a threshold a frontier
    reached: the float search's optimum fails the rule by a hair, and the rule's exact integers
    exceed 64 bits on a core too large to enumerate."""
    p = planner_instance(30, np.random.default_rng(3))
    return p.with_changes(alpha=0.8506270133699337, budget=None, demand=None, group_limits=None)


def test_exact_on_a_large_core_a_hair_above_a_step_proves_the_certified_optimum():
    """Rounded to 62 bits the rule's integers allow a selection the rule refuses on this 11-agent
    core: it was 'feasible' (and the frontier stopped there); the search in Python ints proves it."""
    p = _coop_a_hair_above_a_step()
    ref = get_solver("cbc").solve(p)
    assert ref.status is Status.OPTIMAL
    sol = get_solver("exact").solve(p)
    tol = 1e-9 * max(1.0, abs(ref.objective))
    assert sol.status is Status.OPTIMAL and p.evaluate(sol.x).feasible
    assert abs(sol.objective - ref.objective) <= tol, (sol.objective, ref.objective)
    assert sol.bound is not None and sol.bound >= ref.objective - tol


def test_highs_a_hair_above_a_step_answers_with_a_plan_not_an_error():
    """HiGHS can end the model whose rows are boosted to decide a hair's difference with "Solve
    error": that step then decides nothing, and the answer is the plan found, not an error."""
    p = _coop_a_hair_above_a_step()
    sol = get_solver("highs").solve(p)
    assert sol.status in (Status.OPTIMAL, Status.FEASIBLE) and p.evaluate(sol.x).feasible
    ref = get_solver("cbc").solve(p)
    assert sol.objective <= ref.objective + 1e-9 * max(1.0, abs(ref.objective))
