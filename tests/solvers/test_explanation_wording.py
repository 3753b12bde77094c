"""How the explanation of an infeasible answer words what a time limit left open, and the numbers
it echoes."""
import pytest

from subsel import SubsetSelectionProblem, get_solver
from subsel._text import exact_text
from subsel.models.keyword_constraints import Budget
from subsel.solvers import available_solvers
from subsel.solvers.explain import Conflict, _time_text, advice_time, explain_time

HIGHS = "highs" in available_solvers()
PLAN = SubsetSelectionProblem(quality=[0.9, 0.85, 0.7], cost=[2.0, 3.0, 1.0], alpha=0.8, capacity=[10, 10, 10],
                              demand=25, budget=40.0)


def test_a_range_of_one_demand_reads_as_one_demand():
    c = Conflict(("demand",), max_units=34117, unproven=("max_units",), units_bound=34118)
    assert _time_text(PLAN, c) == "; the time limit left demand 34118 undecided"
    wide = Conflict(("demand",), max_units=34117, unproven=("max_units",), units_bound=34120)
    assert _time_text(PLAN, wide) == "; the time limit left the demands 34118 to 34120 undecided"


def test_the_default_budget_is_named_with_how_to_raise_it_not_a_time_limit():
    c = Conflict(("quality", "budget", "demand"), max_units=20, min_budget=45.5, undecided=("quality",),
                 unproven=("max_units", "min_budget"), units_bound=22, budget_bound=44.2)
    text = _time_text(PLAN, c, default_s=2.5)
    assert "time limit ran out" not in text and "time limit left" not in text
    assert text == ("; the explanation's default time budget (2.5 s) ran out: proven in the conflict: budget 40, "
                    "demand 25; not yet decided: average quality 0.8; it left the demands 21 to 22 undecided; "
                    "it left the least budget undecided between 44.2 and 45.5; a time limit gives it longer "
                    "(--time-limit on the command line, time_limit_s of Solution.explain)")
    # A user's time limit keeps its words, and nothing left open says nothing.
    assert _time_text(PLAN, c).startswith("; the time limit ran out: proven in the conflict: budget 40")
    assert _time_text(PLAN, Conflict(("demand",)), default_s=2.5) == ""


def test_a_least_budget_whose_bound_rounds_to_it_is_not_a_range():
    c = Conflict(("budget",), min_budget=44.2, unproven=("min_budget",), budget_bound=44.19999)
    assert _time_text(PLAN, c) == ""


def test_the_default_budget_is_a_few_times_the_verdict_and_bounded():
    assert explain_time(200, 15.0) == 4 * advice_time(200, 15.0) == 40.0
    assert explain_time(200, 1.0) == 4.0
    assert explain_time(500, 0.0) == pytest.approx(4 * 0.15)
    assert explain_time(10**6, 1e9) == 40.0


@pytest.mark.parametrize("value, text", [(313850.14, "313850.14"), (40.0, "40"), (0.8, "0.8"),
                                         (6522710.0, "6522710"), (0.1 + 0.2, "0.30000000000000004")])
def test_user_numbers_are_echoed_as_given(value, text):
    assert exact_text(value) == text
    assert Budget(value).describe() == f"budget {text}"


@pytest.mark.skipif(not HIGHS, reason="highspy missing")
def test_the_explanation_echoes_the_budget_and_threshold_as_given():
    """A budget of 313850.14 was echoed as 313850, and a threshold to 6 digits."""
    p = SubsetSelectionProblem(quality=[0.85, 0.9], cost=[10000.0, 20000.0], alpha=0.8, capacity=[20, 20],
                               demand=30, budget=313850.14)
    sol = get_solver("highs").solve(p)
    assert sol.status.value == "infeasible"
    assert "under budget 313850.14 " in sol.explanation and "313850 " not in sol.explanation
    high = p.with_changes(alpha=0.91234567, demand=None, budget=None, must_take=[0])
    sol = get_solver("highs").solve(high)
    assert sol.status.value == "infeasible"
    assert "average quality 0.91234567" in sol.explanation and "0.912346 " not in sol.explanation
