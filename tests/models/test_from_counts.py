"""SubsetSelectionProblem.from_counts: validation, the bounds, and a simulation of the guarantee."""
import math

import numpy as np
import pytest

from subsel import SubsetSelectionProblem, get_solver
from subsel.models.inspections import lower_confidence_bounds


@pytest.mark.parametrize("good, inspected, kw, match", [
    ([1, 2], [2], {}, "inspected has 1 entries but good has 2"),
    ([1, 3], [2, 2], {}, r"good\[1\] must be at most inspected\[1\] = 2; got 3"),
    ([1, 0], [2, 0], {}, r"inspected\[1\] must be >= 1"),
    ([1, 0.5], [2, 2], {}, r"good\[1\] must be a non-negative integer; got 0.5"),
    ([1, -1], [2, 2], {}, r"good\[1\] must be a non-negative integer; got -1"),
    ([1, 1], [2, 2], {"confidence": 1.0}, r"confidence must be in \(0, 1\); got 1.0"),
    ([1, 1], [2, 2], {"confidence": 0.0}, r"confidence must be in \(0, 1\); got 0.0"),
    ([1, 1], [2, 2], {"method": "wilson"}, "method must be one of 'clopper-pearson', 'hoeffding'; got 'wilson'"),
    ([], [], {}, "at least one agent"),
])
def test_bad_counts_are_refused_naming_the_agent(good, inspected, kw, match):
    with pytest.raises(ValueError, match=match):
        SubsetSelectionProblem.from_counts(good, inspected, [0.1] * len(good), alpha=0.8, **kw)


def test_quality_is_given_by_the_counts():
    with pytest.raises(TypeError, match="from_counts takes no 'quality'"):
        SubsetSelectionProblem.from_counts([1], [2], [0.1], alpha=0.5, quality=[0.5])


def test_bounds_are_simultaneous_and_below_the_estimate():
    good, inspected = np.array([0, 5, 50, 99, 100]), np.array([10, 10, 100, 100, 100])
    est, hoeff = lower_confidence_bounds(good, inspected, 0.9, "hoeffding")
    _, cp = lower_confidence_bounds(good, inspected, 0.9)
    assert est.tolist() == [0.0, 0.5, 0.5, 0.99, 1.0]
    level = 0.1 / 5  # the union bound over five agents
    assert hoeff[2] == pytest.approx(0.5 - math.sqrt(math.log(1 / level) / 200))
    assert (cp >= hoeff).all() and (cp <= est).all() and cp[0] == 0.0
    # Clopper-Pearson with no failures: the bound l solves l^m = level exactly
    assert cp[4] == pytest.approx(level ** (1 / 100), rel=1e-9) and cp[4] < level ** (1 / 100)
    p = SubsetSelectionProblem.from_counts(good, inspected, [0.1] * 5, alpha=0.9, confidence=0.9)
    assert p.quality.tolist() == cp.tolist() and p.objective_quality.tolist() == est.tolist()


@pytest.mark.parametrize("method", ["clopper-pearson", "hoeffding"])
def test_the_plans_true_quality_meets_alpha_with_the_stated_confidence(method):
    """True qualities drawn, inspections drawn, the plan made: its true average quality is at least
    alpha in at least ``confidence`` of the trials.  A trial fails with probability at most
    delta = 0.05 (the guarantee); over T = 300 trials the failures exceed delta T + 3 sqrt(delta (1 -
    delta) T) = 26.3 with probability below 0.2 % even at that rate (a normal bound on the binomial
    count).  Plans made with the estimates themselves fail about 75 times in these trials, so the
    test tells a bound from none; the run also checks that plans are made (the guarantee is not met
    by taking nothing)."""
    rng = np.random.default_rng(20261206)
    trials, n, alpha, confidence = 300, 8, 0.8, 0.95
    delta = 1 - confidence
    failures = empty = 0
    solver = get_solver("exact")
    for _ in range(trials):
        q = rng.uniform(0.6, 1.0, n)
        inspected = rng.integers(20, 200, n)
        good = rng.binomial(inspected, q)
        cost = rng.uniform(0.0, 0.5, n)
        p = SubsetSelectionProblem.from_counts(good, inspected, cost, alpha=alpha, confidence=confidence,
                                               capacity=rng.integers(1, 4, n), method=method)
        x = solver.solve(p).x
        units = int(x.sum())
        if units == 0:
            empty += 1
            continue
        if float(np.dot(q, x)) / units < alpha - 1e-9 / units:
            failures += 1
    assert failures <= delta * trials + 3 * math.sqrt(delta * (1 - delta) * trials)
    assert empty < trials // 2
