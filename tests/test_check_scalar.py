"""The one scalar-argument check (after scikit-learn's check_scalar): types, ranges, one wording."""
import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from subsel._validation import check_scalar


@pytest.mark.parametrize("value, expected", [(3, 3.0), (np.float32(0.5), 0.5), (np.int64(-2), -2.0)])
def test_numbers_come_back_as_python_floats(value, expected):
    out = check_scalar(value, "x")
    assert out == expected and type(out) is float


def test_integers_come_back_as_python_ints():
    out = check_scalar(np.int32(7), "k", int, min_val=1)
    assert out == 7 and type(out) is int


@pytest.mark.parametrize("value, target, shown", [
    (True, float, "True"), ("1", float, "'1'"), (None, float, "None"),
    (2.0, int, "2.0"), (np.bool_(False), int, "False"), ("3", int, "'3'"),
])
def test_wrong_kinds_are_type_errors(value, target, shown):
    kind = "an integer" if target is int else "a number"
    with pytest.raises(TypeError, match=rf"^x must be {kind}; got {shown}$"):
        check_scalar(value, "x", target)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused(value):
    with pytest.raises(ValueError, match=rf"^x must be a finite number; got {value!r}$"):
        check_scalar(value, "x")


@pytest.mark.parametrize("kwargs, bad, good, what", [
    (dict(min_val=0, max_val=1), 1.5, 1.0, "a number in [0, 1]"),
    (dict(min_val=0, max_val=1, include_boundaries="right"), 0.0, 1.0, "a number in (0, 1]"),
    (dict(min_val=0, max_val=1, include_boundaries="left"), 1.0, 0.0, "a number in [0, 1)"),
    (dict(min_val=0, max_val=1, include_boundaries="neither"), 0.0, 0.5, "a number in (0, 1)"),
    (dict(min_val=0, include_boundaries="right"), 0.0, 1e-300, "a number > 0"),
    (dict(max_val=2), 2.5, 2.0, "a number <= 2"),
    (dict(max_val=2, include_boundaries="left"), 2.0, 1.5, "a number < 2"),
])
def test_ranges_and_their_boundaries(kwargs, bad, good, what):
    assert check_scalar(good, "x", **kwargs) == good
    with pytest.raises(ValueError, match="^" + re.escape(f"x must be {what}; got {bad!r}") + "$"):
        check_scalar(bad, "x", **kwargs)


def test_integer_bounds_are_printed_exactly_and_units_named():
    with pytest.raises(ValueError, match=r"^h must be an integer in \[1, 9007199254740992\]; got 0$"):
        check_scalar(0, "h", int, min_val=1, max_val=2 ** 53)
    with pytest.raises(ValueError, match=r"^t must be a number > 0 \(seconds\); got -1$"):
        check_scalar(-1, "t", min_val=0, include_boundaries="right", unit="seconds")


@given(st.integers(-10 ** 20, 10 ** 20), st.integers(-50, 50), st.integers(-50, 50))
def test_an_integer_passes_exactly_when_inside_the_closed_range(v, lo, hi):
    inside = lo <= v <= hi
    try:
        assert check_scalar(v, "v", int, min_val=lo, max_val=hi) == v
        assert inside
    except ValueError as exc:
        assert not inside and str(exc) == f"v must be an integer in [{lo}, {hi}]; got {v}"
