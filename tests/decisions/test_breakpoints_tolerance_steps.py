"""frontier_breakpoints leaves out the steps that exist only through the rule's tolerance: selections at
the same average quality with fewer units, each met 1e-9 / units longer (steps some 1e-12 wide), are
compared in exact rational arithmetic and make no row (Deva, Abhishek, Gujar, AAMAS 2021, Section 3)."""
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem
from subsel.decisions import frontier_breakpoints
from subsel.models import read_group_limits
from tests.decisions.reference import best
from tests.strategies import must_list_problems

DATA = Path(__file__).resolve().parents[2] / "data"


def _met_exactly(row) -> bool:
    """The row's selection meets its own starting threshold without the tolerance (its average
    quality, a float within an ulp of the exact one, is not below it)."""
    return row.units == 0 or Fraction(row.avg_quality) >= Fraction(row.alpha) - Fraction(1, 10 ** 15)


def test_the_example_suppliers_have_no_step_of_float_noise_width():
    # At alpha 0.84 +- 0.05 with the shipped group limits, five selections of 394 down to 390 units
    # all average 0.84: under the rule each lasted 1e-9 / units longer than the last, steps 6e-15 wide.
    p = SubsetSelectionProblem.from_csv(DATA / "suppliers.csv", alpha=0.84,
                                        group_limits=read_group_limits(DATA / "suppliers-groups.csv"))
    df = frontier_breakpoints(p, 0.79, 0.89, solver="highs")
    width = df.alpha_to - df.alpha
    assert (width.iloc[1:] > 1e-9).all(), df[width <= 1e-9]
    assert all(_met_exactly(r) for r in df.iloc[1:].itertuples())
    for prev, row in zip(df.iloc[:-1].itertuples(), df.iloc[1:].itertuples()):
        assert row.alpha == math.nextafter(prev.alpha_to, math.inf) and row.objective <= prev.objective
    every = frontier_breakpoints(p, 0.79, 0.89, solver="highs", tolerance_steps=True)
    noise = every[(every.alpha_to - every.alpha) < 1e-12]
    assert len(noise) >= 5  # what the rule alone gives
    # every row is one of the rule's steps, and the left-out ones are the noise
    assert set(zip(df.units, df.objective)) <= set(zip(every.units, every.objective))
    assert len(every) - len(df) == len(set(zip(every.units, every.objective)) - set(zip(df.units, df.objective)))


@settings(max_examples=40, deadline=None)
@given(must_list_problems(n_max=6, cap_max=3), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_rows_are_the_rules_steps_less_the_tolerance_ones(problem, a, b):
    lo, hi = min(a, b), max(a, b)
    df = frontier_breakpoints(problem, lo, hi)
    every = frontier_breakpoints(problem, lo, hi, tolerance_steps=True)
    assert df.alpha.iloc[0] == lo and df.alpha_to.iloc[-1] == hi
    assert df.iloc[0].objective == every.iloc[0].objective or math.isnan(every.iloc[0].objective)
    for prev, row in zip(df.iloc[:-1].itertuples(), df.iloc[1:].itertuples()):
        assert row.alpha == math.nextafter(prev.alpha_to, math.inf)
    kept = iter(every.itertuples())
    for row in df.itertuples():  # the rows, in order, are a subsequence of the rule's steps
        same = next(r for r in kept if r.alpha_to == row.alpha_to)
        assert (same.units, same.status) == (row.units, row.status)
        assert row.objective == same.objective or (math.isnan(row.objective) and math.isnan(same.objective))
    for row in df.iloc[1:-1].itertuples():
        assert _met_exactly(row)
    for row in df.itertuples():  # at each row's end its value is the rule's optimum there
        ref = best(problem.with_changes(alpha=row.alpha_to))
        assert (ref is None) if row.status == "infeasible" else abs(row.objective - ref) <= 1e-9 * max(1.0, abs(ref))


def test_tolerance_steps_must_be_a_bool():
    p = SubsetSelectionProblem(quality=[0.9, 0.6], cost=[0.1, 0.1], alpha=0.5)
    with pytest.raises(TypeError, match="tolerance_steps must be True or False; got 'yes'"):
        frontier_breakpoints(p, 0.0, 1.0, tolerance_steps="yes")
