"""The dynamic program of ``exact`` on the planner's choices in the rule's exact integers, below and
past the int64 range (Python ints there): the same optimum as brute force, and ``optimal`` proven
a hair above a frontier's step where those integers pass 64 bits."""
import itertools
import math
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from subsel.decisions.pricing import _last_feasible_alpha
from subsel.models import SubsetSelectionProblem
from subsel.solvers import Status, _choices, get_solver
from tests.solvers.test_exact_planner import _brute_force_by_lots, check_exact, exact_part
from tests.strategies import brute_force, planner_problems

EXAMPLES = int(os.environ.get("SUBSEL_PLANNER_EXAMPLES", "100"))


@st.composite
def cores(draw):
    """A small core: per agent a value and an integer weight per lot, a fixed cost, a used range
    ``[lo, hi]`` and whether not used is allowed; each agent's reference is its least-weight choice."""
    n = draw(st.integers(1, 4))
    dv = np.array(draw(st.lists(st.sampled_from([-1.5, -0.25, 0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n)))
    dw = np.array(draw(st.lists(st.integers(-7, 9), min_size=n, max_size=n)), dtype=np.int64)
    f = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 2.0]), min_size=n, max_size=n)))
    lo = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), dtype=np.int64)
    hi = lo + np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.int64)
    off = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    z_ref = np.where(dw >= 0, np.where(off, 0, lo), hi)
    cap = draw(st.integers(0, 40))
    return dv, dw, f, lo, hi, off, z_ref, cap


def _brute(dv, dw, f, lo, hi, off, z_ref, cap):
    counts = [([0] if o else []) + list(range(int(a), int(b) + 1)) for a, b, o in zip(lo, hi, off)]
    w_ref = int((dw * z_ref).sum())
    best = None
    for combo in itertools.product(*counts):
        z = np.array(combo)
        if int((dw * z).sum()) - w_ref <= cap:
            value = float((dv * z).sum() - f[z > 0].sum())
            best = value if best is None else max(best, value)
    return best


def _run(dv, dw, f, lo, hi, off, z_ref, cap, scale):
    """The dynamic program with every weight and the capacity times ``scale`` (int64 up to 2^62,
    Python ints beyond): the same selections fit."""
    w = dw * scale if isinstance(scale, np.int64) else np.array([int(v) * scale for v in dw], dtype=object)
    w_ref = w * z_ref if w.dtype != object else np.array([v * int(z) for v, z in zip(w, z_ref)], dtype=object)
    v_ref = dv * z_ref - np.where(z_ref > 0, f, 0.0)
    n = dv.size
    return _choices._dynamic_program(dv, w, f, z_ref, w_ref, v_ref, lo, hi, off, np.full((1, n + 1), 1e9),
                                     np.zeros(1), 1 / int(scale), int(cap) * int(scale), -np.inf, 0.0, None, None)


@settings(max_examples=EXAMPLES)
@given(core=cores(), shift=st.sampled_from([0, 50, 57, 58, 59, 60, 61, 62, 63, 64, 70, 200, 1100]))
def test_the_dynamic_program_in_exact_integers_of_any_size_equals_brute_force(core, shift):
    """Weights scaled by 2^shift: in int64 while their sums fit (shift <= 57 here), as Python ints
    beyond (the boundary of 2^63 crossed, and past float64's range at 2^1100)."""
    dv, dw, f, lo, hi, off, z_ref, cap = core
    best = _brute(*core)
    v_ref = float((dv * z_ref).sum() - f[z_ref > 0].sum())
    scale = np.int64(1 << shift) if shift <= 57 else 1 << shift
    z, value, complete, weight = _run(*core, scale)
    assert complete
    assert z is not None
    assert int((dw * z).sum()) - int((dw * z_ref).sum()) <= cap   # fits, in exact integers
    got = float((dv * z).sum() - f[z > 0].sum())
    assert value == pytest.approx(got - v_ref, abs=1e-9)
    assert got == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("relaxation", [True, False])
@settings(max_examples=EXAMPLES)
@given(problem=planner_problems(n_max=5, cap_max=4))
def test_exact_one_float_above_a_step_in_python_ints_equals_brute_force(problem, relaxation):
    """One float above the last threshold of the optimum (where the frontier solves next, and the
    float search's optimum fails the rule by a hair), with the rule's integers as if past int64:
    the relaxation rounded to 62 bits and then the search in Python ints (or that search alone)
    prove the optimum of brute force."""
    p = exact_part(problem)
    best = brute_force(p)
    assume(best is not None and best[1].sum() > 0)
    step = math.nextafter(_last_feasible_alpha(p, best[1]), math.inf)
    assume(step <= 1.0)
    calls = []

    def exact_weights(*args):
        out = exact_integers(*args)
        calls.append(out[0].dtype.kind)
        return out

    exact_integers, rounded = _choices._exact_weights, _choices._rounded_weights
    with mock.patch.object(_choices, "_INT64_SUMS", 0), \
            mock.patch.object(_choices, "_exact_weights", exact_weights), \
            mock.patch.object(_choices, "_rounded_weights", rounded if relaxation else exact_weights):
        check_exact(p.with_changes(alpha=step))
    assert all(kind == "O" for kind in calls)
    if calls:
        event("the rule's exact integers searched")


@pytest.mark.parametrize("limit", [0, 2 ** 62])
@pytest.mark.parametrize("alpha", [0.859795918367432, 0.8597959183673469, 0.85979591836745])
def test_big_lots_at_a_frontier_step_are_proven_in_integers_of_any_size(alpha, limit):
    """Lots of 240 units a hair from a mix's average quality: the rule's integers exceed 64 bits."""
    p = SubsetSelectionProblem(quality=[0.688, 0.676, 0.871], cost=np.ones(3), alpha=alpha, R=14.0,
                               capacity=[2160, 1, 11040], min_units=[1, 1, 1], lot_size=[240, 1, 240],
                               fixed_cost=[0.0, 12.5, 0.0])
    best = _brute_force_by_lots(p)
    with mock.patch.object(_choices, "_INT64_SUMS", limit):
        sol = get_solver("exact").solve(p)
    assert sol.status is Status.OPTIMAL, sol.status
    assert abs(sol.objective - best[0]) <= 1e-9 * max(1.0, abs(best[0])), (sol.objective, best)
