"""``SubsetSelectionProblem.objective_quality``: qualities for the objective only (optional field)."""
import numpy as np
import pytest
from hypothesis import given, settings

from subsel import SubsetSelectionProblem
from subsel.solvers import get_solver
from tests.strategies import brute_force, problems


def test_default_is_quality():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.2, 0.1], alpha=0.7)
    assert p.objective_quality is None
    assert p.utility.tolist() == pytest.approx([0.7, 0.4])


def test_utility_uses_objective_quality_and_constraint_does_not():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.2, 0.1], alpha=0.7, R=2.0,
                               objective_quality=[0.5, 1.0])
    assert p.utility.tolist() == pytest.approx([0.8, 1.9])
    assert p.quality_margin.tolist() == pytest.approx([0.2, -0.2])
    ev = p.evaluate([1, 1])
    assert ev.utility == pytest.approx(2.7) and ev.avg_quality == pytest.approx(0.7) and ev.feasible
    assert p.with_changes(alpha=0.6).objective_quality.tolist() == [0.5, 1.0]
    with pytest.raises(ValueError):
        p.objective_quality[0] = 0.1  # read-only like every array field


@pytest.mark.parametrize("value, match", [
    ([0.5, 1.5], r"objective_quality\[1\] must be in \[0, 1\]"),
    ([0.5, -0.1], r"objective_quality\[1\] must be in \[0, 1\]"),
    ([0.5], "objective_quality has 1 entries but quality has 2"),
    ([0.5, float("nan")], r"objective_quality\[1\] must be a finite number"),
    ([[0.5, 0.5]], "objective_quality must be one-dimensional"),
])
def test_validation(value, match):
    with pytest.raises(ValueError, match=match):
        SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.2, 0.1], alpha=0.7, objective_quality=value)


def test_an_iterator_is_named_not_read_as_one_object():
    with pytest.raises(TypeError, match=r"quality must be a list, tuple or array of numbers; got a generator"):
        SubsetSelectionProblem(quality=(q for q in [0.9, 0.5]), cost=[0.2, 0.1], alpha=0.7)
    with pytest.raises(TypeError, match=r"capacity must be .*; got a list_iterator"):
        SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.2, 0.1], alpha=0.7, capacity=iter([1, 1]))
    with pytest.raises(TypeError, match=r"cost has masked entries"):
        SubsetSelectionProblem(quality=[0.9, 0.5], cost=np.ma.array([0.2, 0.1], mask=[False, True]), alpha=0.7)
    # A masked array without masked entries is an array.
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=np.ma.array([0.2, 0.1]), alpha=0.7)
    assert p.cost.tolist() == [0.2, 0.1]


@settings(max_examples=60)
@given(problems(n_max=6, cap_max=2))
def test_exact_solver_optimises_the_objective_qualities(problem):
    """DPSS stays exact when objective and constraint qualities differ (here: reversed)."""
    p = problem.with_changes(objective_quality=problem.quality[::-1].copy())
    best = brute_force(p)
    sol = get_solver("dpss").solve(p)
    assert sol.objective == pytest.approx(best[0], abs=1e-9)
    assert np.isclose(sol.objective, float(sol.x @ p.utility))
