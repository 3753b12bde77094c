"""evaluate takes shortcuts on long integer selections; they give the same Evaluation as float input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel.models import MAX_EXACT_INT, SubsetSelectionProblem
from subsel.models._rules import linear_at_least, weighted_sum

N = 9000  # above the length from which weighted_sum leaves BLAS


def _same(*evaluations):
    """Evaluations equal field by field (NaN average qualities count as equal)."""
    first = evaluations[0]
    for ev in evaluations[1:]:
        assert ev._replace(avg_quality=0.0) == first._replace(avg_quality=0.0)
        assert ev.avg_quality == first.avg_quality or (np.isnan(ev.avg_quality) and np.isnan(first.avg_quality))
    return True


def _problem(seed, cap_max=1, **kw):
    rng = np.random.default_rng(seed)
    return SubsetSelectionProblem(quality=rng.random(N), cost=rng.random(N), alpha=0.6,
                                  capacity=rng.integers(1, cap_max + 1, N), **kw)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 16), cap_max=st.integers(1, 3), shift=st.integers(-1, 1),
       ext=st.booleans(), dtype=st.sampled_from([np.int64, np.int32, np.uint32]))
def test_integer_and_float_selections_evaluate_the_same(seed, cap_max, shift, ext, dtype):
    kw = dict(budget=float(N) / 5, demand=N // 3, must_take=[0, 5], must_not_take=[7]) if ext else {}
    p = _problem(seed, cap_max, **kw)
    rng = np.random.default_rng(seed + 1)
    x = rng.integers(0, cap_max + 1, N) + (shift if dtype is not np.uint32 else abs(shift))
    x[rng.integers(0, N, 3)] = cap_max + 2  # capacity violations too
    xi = x.astype(dtype)
    assert _same(p.evaluate(xi), p.evaluate(x.astype(float)), p.evaluate(x.tolist()))


def test_feasible_integer_selection_near_the_bound():
    # A feasible selection whose surplus is exactly 0: both inputs decide it the same way.
    q = np.full(N, 0.5)
    q[: N // 2] = 0.75
    q[N // 2:] = 0.25
    p = SubsetSelectionProblem(quality=q, cost=np.zeros(N), alpha=0.5)
    x = np.ones(N, dtype=np.int64)
    ev = p.evaluate(x)
    assert ev.feasible and _same(ev, p.evaluate(x.astype(float)))
    x[0] = 0  # one quality-adding unit less: surplus -0.25
    assert not p.evaluate(x).feasible and _same(p.evaluate(x), p.evaluate(x.astype(float)))


def test_huge_integer_entries_fall_back_to_the_float_path():
    p = _problem(0, cap_max=1)
    x = np.zeros(N, dtype=np.int64)
    x[3] = 2 ** 60
    ev = p.evaluate(x)
    assert not ev.feasible and _same(ev, p.evaluate(x.astype(float)))
    assert any("capacity: x[3]" in v for v in ev.violations)
    assert MAX_EXACT_INT < 2 ** 60


def test_weighted_sum_with_scratch_space_is_bit_identical():
    rng = np.random.default_rng(5)
    x, v = rng.integers(0, 4, 50_000), rng.random(50_000)
    work = np.empty(50_000)
    assert weighted_sum(x, v, out=work) == weighted_sum(x.astype(float), v)
    assert weighted_sum(x.astype(float), v, out=np.empty(3)) == weighted_sum(x.astype(float), v)


@pytest.mark.parametrize("nonnegative", [False, True])
def test_linear_at_least_with_the_margin_at_hand(nonnegative):
    rng = np.random.default_rng(9)
    q = rng.random(N)
    x = rng.integers(0, 2, N).astype(float)
    margin = q - 0.5
    s = float(weighted_sum(x, margin))
    for rhs in (s - 1e-6, s + 1e-6, s):
        expected = linear_at_least(x, q, 0.5, (rhs,))
        assert linear_at_least(x, q, 0.5, (rhs,), shifted=margin, nonnegative=nonnegative,
                               work=np.empty(N)) == expected
