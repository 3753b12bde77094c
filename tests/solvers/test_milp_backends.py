"""The MILP backends against brute force, with and without extensions; the pitfalls of MIP
tolerances and default gaps."""
import numpy as np
import pytest
from hypothesis import example, given, settings

from subsel.models import EXTENSIONS, LinearConstraint, SubsetSelectionProblem, linear_form
from subsel.solvers import SolverError, Status, available_solvers, get_solver, solver_info
from subsel.solvers._milp import MILPSolver, repair
from subsel.solvers.base import RawResult
from tests.strategies import brute_force, knapsack_brute_force, knapsacks, problems

MILP = [name for name in ("cbc", "highs", "ortools-scip") if name in available_solvers()]
CPSAT = "ortools-cpsat"
EVERY_EXTENSION = set(EXTENSIONS)  # the planner's fields included


def test_milp_backends_are_registered_exact_and_support_every_extension():
    info = {row.name: row for row in solver_info()}
    for name in ("cbc", "highs", "ortools-scip", "ortools-cpsat"):
        assert info[name].supports == EVERY_EXTENSION
    assert info["highs"].exact and info["cbc"].exact and info["ortools-scip"].exact
    assert not info[CPSAT].exact  # its integer scaling is exact only on dyadic data


# SCIP's default numerics/epsilon (1e-9) made utilities r_i = -1e-9 vanish: it took those agents
# and called a selection 1e-9 (four agents: 2e-9) short of the optimum optimal.
@pytest.mark.parametrize("name", MILP)
@settings(max_examples=30)
@given(problem=problems(n_max=6, cap_max=2))
@example(problem=SubsetSelectionProblem(quality=[0, 0, 0.5], cost=[1e-9, 0, 0], alpha=0))
@example(problem=SubsetSelectionProblem(quality=[0, 0, 0, 0, 0.5], cost=[1e-9] * 4 + [0], alpha=0))
@example(problem=SubsetSelectionProblem(quality=[1e-3] * 4 + [0.5], cost=[1e-11] * 4 + [0], alpha=0))
# CLP's default dual tolerance 1e-7 hid utilities below it from CBC (r = 2**-24, r = 1e-9 left out).
@example(problem=SubsetSelectionProblem(quality=[2.0 ** -24], cost=[0], alpha=0))
@example(problem=SubsetSelectionProblem(quality=[0, 0, 1, 1e-9], cost=[0] * 4, alpha=0))
# HiGHS 1.16, warm-started with GSS's feasible but suboptimal (1, 0, 2, 0, 0), returned it unchanged
# as "optimal" with the objective value of another point: subsel then said "feasible", not 0.125.
@example(problem=SubsetSelectionProblem(quality=[0.875, 0.75, 0.5, 0, 0.625], cost=[0.875, 0.75, 0, 0, 0.625],
                                        capacity=[1, 1, 2, 1, 2], alpha=0.55, R=0.5))
def test_exact_milp_equals_brute_force(name, problem):
    best = brute_force(problem)
    sol = get_solver(name).solve(problem)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(best[0], abs=1e-9)
    assert problem.evaluate(sol.x).feasible


@pytest.mark.parametrize("name", MILP)
@settings(max_examples=30)
@given(problem=problems(n_max=6, cap_max=2, extensions=True, grid=True))
def test_exact_milp_with_extensions_equals_brute_force(name, problem):
    best = brute_force(problem)
    sol = get_solver(name).solve(problem)
    if best is None:
        assert sol.status is Status.INFEASIBLE
    else:
        assert sol.status is Status.OPTIMAL
        assert sol.objective == pytest.approx(best[0], abs=1e-9)
        assert problem.evaluate(sol.x).feasible


@pytest.mark.parametrize("name", MILP)
@settings(max_examples=10)
@given(problem=problems(n_max=4, cap_max=3, extensions=True))
def test_exact_milp_capacities_up_to_three(name, problem):
    best = brute_force(problem)
    sol = get_solver(name).solve(problem)
    if best is None:
        assert sol.status is Status.INFEASIBLE
    else:
        assert sol.objective == pytest.approx(best[0], abs=1e-9)


@settings(max_examples=40)
@given(problem=problems(n_max=6, cap_max=2, extensions=True, grid=True))
# A tiny budget once scaled a must-not-take agent's cost 0.05 by 2**86: NaN cast, MODEL_INVALID.
@example(problem=SubsetSelectionProblem(quality=[0], cost=[0.05], alpha=0, budget=1e-10,
                                        must_not_take=[0]))
@example(problem=SubsetSelectionProblem(quality=[0.5, 0.9], cost=[0.05, 5e-324], alpha=0.2,
                                        budget=1e-300, must_not_take=[0]))
# Surplus (0.6 - 0.8) + (1 - 0.8) = -1.1e-16 in floats: feasible for evaluate (tolerance 1e-9), but
# the exactly scaled row had right side 0 and CP-SAT called the worse selection optimal.
@example(problem=SubsetSelectionProblem(quality=[0, 0, 0, 0.6, 1], cost=[0] * 5, alpha=0.8))
# The same at the budget: 0.1 + 0.2 > 0.3 by 5.6e-17 in floats, within the tolerance.
@example(problem=SubsetSelectionProblem(quality=[1, 1], cost=[0.1, 0.2], alpha=0, budget=0.3))
def test_cpsat_is_feasible_and_optimal_when_it_says_so(problem):
    best = brute_force(problem)
    sol = get_solver(CPSAT).solve(problem)
    if best is None:
        assert sol.status is Status.INFEASIBLE
    else:
        assert sol.status in (Status.OPTIMAL, Status.FEASIBLE)
        assert problem.evaluate(sol.x).feasible
        assert sol.objective <= best[0] + 1e-9
        if sol.status is Status.OPTIMAL:
            assert sol.objective == pytest.approx(best[0], abs=1e-9)


@settings(max_examples=30)
@given(instance=knapsacks(m_max=7))
def test_cpsat_scaling_is_exact_on_integer_knapsacks(instance):
    problem = SubsetSelectionProblem.from_knapsack(*instance)
    sol = get_solver(CPSAT).solve(problem)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(knapsack_brute_force(*instance), abs=1e-9)


def test_cpsat_integer_guard_refuses_nan_inf_and_overflow():
    from subsel.solvers.ortools import _as_int64

    assert _as_int64(np.array([3.0, -2.0]), "objective") == [3, -2]
    for bad in (np.nan, np.inf, 2.0 ** 63):
        with pytest.raises(SolverError, match="scaling of the budget row overflows int64"):
            _as_int64(np.array([1.0, bad]), "budget row")


@pytest.mark.parametrize("name", MILP + [CPSAT])
def test_impossible_demand_is_infeasible(name):
    p = SubsetSelectionProblem(quality=[0.9, 0.2, 0.6], cost=[0.1] * 3, alpha=0.5, capacity=[1, 2, 1],
                               demand=5)
    sol = get_solver(name).solve(p)
    assert sol.status is Status.INFEASIBLE
    assert np.isnan(sol.objective)
    # demand reachable only by breaking the quality row: also infeasible
    p2 = p.with_changes(demand=4)
    assert get_solver(name).solve(p2).status is Status.INFEASIBLE


def _fifty(anchor_surplus):
    """Fifty agents at q = alpha - 1e-8 (r > 0) plus an anchor holding ``anchor_surplus``."""
    alpha = 0.5
    q = np.r_[[alpha - 1e-8] * 50, alpha + anchor_surplus]
    c = np.r_[[0.1] * 50, 0.6]
    return SubsetSelectionProblem(quality=q, cost=c, alpha=alpha)


@pytest.mark.parametrize("name", MILP + [CPSAT])
def test_fifty_agents_just_below_alpha(name):
    """A 1e-6 MIP tolerance accepts all fifty units (surplus -5e-7 + anchor); our check
    allows 1e-9.  The anchor's surplus 2.05e-7 pays for exactly 20 of them."""
    p = _fifty(2.05e-7)
    sol = get_solver(name).solve(p)
    assert p.evaluate(sol.x).feasible
    r = p.utility
    expected = 20 * r[0] + r[50]
    assert sol.objective == pytest.approx(expected, abs=1e-9)
    assert int(sol.x[:50].sum()) == 20 and sol.x[50] == 1
    if name != CPSAT:
        assert sol.status is Status.OPTIMAL


class _Sloppy(MILPSolver):
    """A fake backend that, like a MILP at tolerance 1e-6, returns every unit on its first call."""

    name = "sloppy"

    def __init__(self, answers):
        super().__init__()
        self.answers = list(answers)
        self.calls = []

    def _run(self, form, time_limit, warm):
        self.calls.append(float(form.rows[0].lower))
        return self.answers.pop(0)


def test_milp_base_solves_the_tightened_model_when_the_relaxation_breaks_the_rule():
    p = _fifty(2.05e-7)
    good = np.r_[[1] * 20, [0] * 30, 1]
    s = _Sloppy([RawResult(np.ones(51), Status.OPTIMAL, 10.0), RawResult(good, Status.OPTIMAL, 7.9)])
    sol = s.solve(p)
    # Certified by the exact solver (the problem is in its scope): optimal.
    assert sol.status is Status.OPTIMAL and sol.x.tolist() == good.tolist()
    assert len(s.calls) == 2 and s.calls[0] < s.calls[1]  # relaxation first, then tightened rows


def test_milp_base_repairs_and_does_not_claim_optimality_without_a_certificate():
    # A budget puts the problem out of the exact solver's scope: the only bound is the relaxation's.
    p = _fifty(2.05e-7).with_changes(budget=100.0)
    # (sloppy answers of the relaxation, the tightened model and the unshifted boosted model; the
    # last, refused by the rule, is cut off, and the model without it is infeasible)
    s = _Sloppy([RawResult(np.ones(51), Status.OPTIMAL, 10.0)] * 3 + [RawResult(None, Status.INFEASIBLE)])
    sol = s.solve(p)
    assert sol.status is Status.FEASIBLE  # repaired: no longer proven optimal
    assert p.evaluate(sol.x).feasible and int(sol.x[:50].sum()) == 20
    assert sol.bound == pytest.approx(float(p.utility.sum()))  # the relaxation's optimum
    assert len(s.calls) == 4


def test_milp_base_proves_an_optimum_of_the_unshifted_model_that_passes_the_rule():
    # Out of exact's scope (a budget); the relaxation and the tightened model answer a selection
    # the rule refuses, the unshifted model (rows 2^20 times larger) one it accepts: that one is
    # optimal, since the unshifted model accepts every selection the rule accepts.
    p = _fifty(2.05e-7).with_changes(budget=100.0)
    good = np.r_[[1] * 20, [0] * 30, 1]
    s = _Sloppy([RawResult(np.ones(51), Status.OPTIMAL, 10.0)] * 2 + [RawResult(good, Status.OPTIMAL, 7.9)])
    sol = s.solve(p)
    assert sol.status is Status.OPTIMAL and len(s.calls) == 3
    assert int(sol.x[:50].sum()) == 20 and sol.x[50] == 1  # good, or repair's equal selection
    assert sol.bound == pytest.approx(float(p.utility.sum()))  # the relaxation's optimum
    # a boosted answer that is not proven optimal proves nothing
    s = _Sloppy([RawResult(np.ones(51), Status.OPTIMAL, 10.0)] * 2 + [RawResult(good, Status.FEASIBLE, 7.9)])
    assert s.solve(p).status is Status.FEASIBLE
    # a boosted optimum the rule refuses is cut off, and the next one decides
    s = _Sloppy([RawResult(np.ones(51), Status.OPTIMAL, 10.0)] * 3 + [RawResult(good, Status.OPTIMAL, 7.9)])
    sol = s.solve(p)
    assert sol.status is Status.OPTIMAL and len(s.calls) == 4 and int(sol.x[:50].sum()) == 20


def test_milp_base_never_returns_an_unrepairable_answer():
    p = _fifty(2.05e-7).with_changes(demand=51)  # truly infeasible
    # Every model, the tightened and the unchanged ones and those with the refused answer cut
    # off, gives the answer the rule refuses: exact decides (infeasible), and where exact does not
    # support the problem (a constraint object), no answer, status error (not an exception).  The
    # pipeline itself: solve() decides this one by an aggregate bound before the backend runs.
    s = _Sloppy([RawResult(np.ones(51), Status.OPTIMAL, 10.0)] * 20)
    raw = s._solve(p)
    assert raw.status is Status.INFEASIBLE and raw.x is None and 3 < len(s.calls) < 20
    loose = LinearConstraint(np.ones(p.n), upper=1e9, name="cap")  # binds nothing; exact refuses it
    s = _Sloppy([RawResult(np.ones(51), Status.OPTIMAL, 10.0)] * 20)
    raw = s._solve(p.with_changes(constraints=[loose]))
    assert raw.status is Status.ERROR and raw.x is None and 3 < len(s.calls) < 20
    s = _Sloppy([])
    assert s.solve(p).status is Status.INFEASIBLE and not s.calls  # all 51 units miss alpha together
    # The explanation of an infeasible answer asks the backend about parts of the problem too.
    s = _Sloppy([RawResult(None, Status.INFEASIBLE)] * 8)
    assert s.solve(p).status is Status.INFEASIBLE


def test_milp_base_refuses_fractional_values():
    p = _fifty(2.05e-7)
    s = _Sloppy([RawResult(np.r_[[0.5], np.zeros(50)], Status.OPTIMAL, 1.0)])
    with pytest.raises(SolverError, match=r"sloppy: returned a fractional value x\[0\] = 0.5"):
        s.solve(p)
    s = _Sloppy([RawResult(np.r_[[2.0], np.zeros(50)], Status.OPTIMAL, 1.0)])
    with pytest.raises(SolverError, match=r"sloppy: returned x\[0\] = 2.0 outside its bounds"):
        s.solve(p)


def test_repair_drops_the_cheapest_quality_spenders_and_fixes_the_budget():
    p = SubsetSelectionProblem(quality=[0.9, 0.5, 0.49], cost=[0.1, 0.1, 0.0], alpha=0.7, budget=0.15)
    x = repair(p, np.array([1, 1, 1]))
    assert p.evaluate(x).feasible
    assert x.tolist() == [1, 0, 0]
    assert repair(p.with_changes(must_take=[1, 2]), np.array([1, 1, 1])) is None


@pytest.mark.parametrize("name", MILP + [CPSAT])
def test_time_limit_option_is_accepted(name):
    p = SubsetSelectionProblem.random(30, 0.7, np.random.default_rng(3))
    sol = get_solver(name, time_limit_s=20, threads=1).solve(p)
    assert sol.status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)
    assert p.evaluate(sol.x).feasible


def test_linear_form_scale_keeps_the_feasible_set():
    p = _fifty(2.05e-7).with_changes(budget=3.0)
    f1, f2 = linear_form(p), linear_form(p, scale=1e3)
    assert np.allclose(f2.rows[0].coef, 1e3 * f1.rows[0].coef)
    assert f1.rows[0].lower == -1e-9  # the one feasibility rule: surplus >= -1e-9
    assert f2.rows[1].upper == pytest.approx(3e3)


def test_missing_cbc_is_not_available_never_an_import_error(monkeypatch, capsys):
    import pulp

    from subsel.cli import main
    from subsel.solvers.cbc import CBC

    monkeypatch.setattr(pulp, "listSolvers", lambda onlyAvailable=False: ["HiGHS"])
    ok, reason = CBC.available()
    assert not ok and "PULP_CBC_CMD or COIN_CMD" in reason
    assert "cbc" not in available_solvers()
    with pytest.raises(ValueError, match="solver 'cbc' is not available on this machine"):
        get_solver("cbc")
    assert main(["solvers"]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("cbc ")][0]
    assert "not available" in line


def test_time_limited_incumbent_is_repaired_not_resolved():
    p = _fifty(2.05e-7).with_changes(budget=100.0)
    s = _Sloppy([RawResult(np.ones(51), Status.TIME_LIMIT, 12.0)])
    sol = s.solve(p)
    assert len(s.calls) == 1
    assert sol.status is Status.TIME_LIMIT and p.evaluate(sol.x).feasible
    assert int(sol.x[:50].sum()) == 20


@pytest.mark.parametrize("name", ["cbc", "highs"])
@pytest.mark.parametrize("cost", [2.22507386e-309, 2.22507386e-311])
def test_subnormal_cost_does_not_overflow_the_scaling(name, cost):
    """A subnormal coefficient: the power-of-two scale of the MILP stays finite (was OverflowError)."""
    problem = SubsetSelectionProblem(quality=[0.0], cost=[cost], alpha=0.0, capacity=[1])
    sol = get_solver(name).solve(problem)
    assert sol.status is Status.OPTIMAL
    assert sol.x.tolist() == [0]


@pytest.mark.skipif("highs" not in available_solvers(), reason="highspy not installed")
@settings(max_examples=15, deadline=None)
@given(problem=problems(n_max=4, cap_max=2))
@example(problem=SubsetSelectionProblem(quality=[0.875, 0.75, 0.5, 0, 0.625], cost=[0.875, 0.75, 0, 0, 0.625],
                                        capacity=[1, 1, 2, 1, 2], alpha=0.55, R=0.5))
def test_highs_optimum_does_not_depend_on_the_warm_start(problem):
    """Every feasible integral point as HiGHS's warm start: the answer is optimal, and the objective
    it reports is that of the point it returns, equal to the cold start's."""
    import itertools

    from subsel.solvers._milp import solver_form

    highs = get_solver("highs")
    form, _ = solver_form(problem, 0.0)
    cold = highs._run(form, None, None)
    assert cold.status is Status.OPTIMAL
    value = float(form.objective @ cold.x)
    for point in itertools.product(*(range(int(k) + 1) for k in problem.capacity)):
        x = np.array(point, dtype=float)
        if any(float(row.coef @ x) < row.lower or float(row.coef @ x) > row.upper for row in form.rows):
            continue
        warm = highs._run(form, None, x)
        assert warm.status is Status.OPTIMAL
        assert float(form.objective @ warm.x) == pytest.approx(value, abs=1e-9)
        assert warm.bound == pytest.approx(float(form.objective @ warm.x), abs=1e-9)
