"""frontier_breakpoints on a planner's co-op: lot sizes on large unit counts, where ``exact`` proves
the optimum one float above a step (and a certified MILP backend is the fallback where it cannot); a
resolution and a step budget for frontiers of thousands of steps.  Every row against the
enumeration of all plans (Deva, Abhishek, Gujar, AAMAS 2021, Section 3: the optimum is a
non-increasing step function of the threshold)."""
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem, get_solver
from subsel.decisions import fallback_solver, frontier_breakpoints
from tests.strategies import PlansByThreshold, decimal_lot_problems

#: The co-op of the planner's report: one float above the step at 0.876660377359434, exact's float
#: search alone cannot prove the optimum.
COOP = dict(quality=[0.576, 0.871, 0.958], cost=[4.74, 8.65, 10.93], alpha=0.85, R=14.0,
            capacity=[4104, 150, 720], lot_size=[24, 1, 24])
HAIR = 0.876660377359434


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def _check(df, plans: PlansByThreshold, lo: float, hi: float, resolution: float = 0.0) -> None:
    """Every row proven and equal to the enumeration at both ends; the rows cover [lo, hi] in order,
    each starting one float after the last (or, with a resolution, no nearer than it)."""
    assert (df.status == "optimal").all()
    assert df.alpha.iloc[0] == lo and df.alpha_to.iloc[-1] == hi
    for prev, row in zip(df.iloc[:-1].itertuples(), df.iloc[1:].itertuples()):
        step = math.nextafter(prev.alpha_to, math.inf)
        assert row.alpha == (step if not resolution else min(max(step, prev.alpha + resolution), hi))
        assert prev.objective >= row.objective
    for row in df.itertuples():
        assert _same(row.objective, plans.best(row.alpha)), row
        assert _same(row.objective, plans.best(row.alpha_to)), row


def test_exact_alone_proves_the_step_of_the_report():
    # One float above a step the float search's optimum fails the rule by a hair and the rule's
    # exact integers exceed 64 bits: the core, small, is checked in exact arithmetic.
    p = SubsetSelectionProblem(**COOP)
    sol = get_solver("exact").solve(p.with_changes(alpha=HAIR))
    assert sol.status.value == "optimal" and _same(sol.objective, PlansByThreshold(p).best(HAIR))
    _check(frontier_breakpoints(p, 0.85, 0.99, fallback=None, tolerance_steps=True), PlansByThreshold(p), 0.85, 0.99)


def test_the_coop_of_the_report_completes_and_every_step_is_the_enumerations():
    p = SubsetSelectionProblem(**COOP)
    df = frontier_breakpoints(p, 0.85, 0.99, tolerance_steps=True)
    _check(df, PlansByThreshold(p), 0.85, 0.99)
    row = df[df.alpha == HAIR].iloc[0]
    assert _same(row.objective, 2946.216) and row.units == 192 + 147 + 720


#: Co-ops of the strategy's kind where ``exact`` alone stopped (threshold range around the steps it
#: could not prove: 0.5948 and 0.6623).
STOPPED = [
    (SubsetSelectionProblem(quality=[0.517, 0.593, 0.837], cost=[6.71, 2.59, 10.52], alpha=0.5, R=14.0,
                            capacity=[7440, 44, 2160], lot_size=[240, 1, 240]), 0.55),
    (SubsetSelectionProblem(quality=[0.608, 0.661, 0.771], cost=[5.01, 4.51, 10.74], alpha=0.5, R=14.0,
                            capacity=[8880, 23, 720], lot_size=[240, 1, 240]), 0.6),
]


@settings(max_examples=8)
@given(decimal_lot_problems(), st.sampled_from([-0.08, -0.04, 0.0]))
@example(STOPPED[0][0], STOPPED[0][1] - 0.517)
@example(STOPPED[1][0], STOPPED[1][1] - 0.661)
def test_breakpoints_of_lot_size_coops_against_enumeration(problem, shift):
    lo = max(0.0, float(np.median(problem.quality)) + shift)
    hi = min(1.0, lo + 0.1)
    _check(frontier_breakpoints(problem, lo, hi, tolerance_steps=True), PlansByThreshold(problem), lo, hi)


@settings(max_examples=10)
@given(decimal_lot_problems(), st.sampled_from([0.002, 0.01, 0.05]))
def test_a_resolution_keeps_every_row_exact_and_skips_the_rest(problem, resolution):
    df = frontier_breakpoints(problem, 0.5, 1.0, resolution=resolution, tolerance_steps=True)
    _check(df, PlansByThreshold(problem), 0.5, 1.0, resolution)
    assert len(df) <= math.ceil(0.5 / resolution) + 1


def test_a_step_budget_stops_with_a_resolution_that_fits():
    p = SubsetSelectionProblem(**COOP)
    with pytest.raises(ValueError, match=r"more than max_steps = 10 steps .* resolution such as 0\.014"):
        frontier_breakpoints(p, 0.85, 0.99, max_steps=10)
    df = frontier_breakpoints(p, 0.85, 0.99, resolution=0.014, max_steps=11)
    assert len(df) <= 11 and (df.status == "optimal").all()


def test_the_fallback_is_a_certified_milp_backend_that_supports_the_problem():
    p = SubsetSelectionProblem(**COOP)
    exact = get_solver("exact", time_limit_s=30.0)
    backup = fallback_solver(p, exact)
    assert backup is not None and backup.name == "highs" and backup.time_limit_s == 30.0
    assert fallback_solver(p, get_solver("highs")).name == "cbc"
    df = frontier_breakpoints(p, HAIR, HAIR, fallback="ortools-scip")
    assert _same(df.objective.iloc[0], 2946.216)


@pytest.mark.parametrize("kwargs, match", [
    (dict(resolution=-0.1), "resolution"),
    (dict(resolution=2.0), "resolution"),
    (dict(max_steps=0), "max_steps must be a positive integer"),
    (dict(max_steps=2.5), "max_steps must be a positive integer"),
    (dict(max_steps=True), "max_steps must be a positive integer"),
    (dict(fallback="gss"), "does not prove optimality"),
    (dict(fallback="nope"), "nope"),
])
def test_bad_resolution_step_budget_and_fallback_are_refused(kwargs, match):
    p = SubsetSelectionProblem(**COOP)
    with pytest.raises(ValueError, match=match):
        frontier_breakpoints(p, 0.85, 0.9, **kwargs)
