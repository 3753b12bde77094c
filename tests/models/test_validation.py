"""One test per validation rule of SubsetSelectionProblem: the message names the
field and, for arrays, the first offending index."""
import math
import re

import numpy as np
import pytest

from subsel.models import SubsetSelectionProblem

Q = [0.9, 0.5, 0.3]
C = [0.1, 0.2, 0.3]


def make(**kw):
    args = dict(quality=Q, cost=C, alpha=0.6)
    args.update(kw)
    return SubsetSelectionProblem(**args)


@pytest.mark.parametrize("field", ["quality", "cost", "capacity"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_array_entry(field, bad):
    base = {"quality": Q, "cost": C, "capacity": [1, 2, 3]}[field]
    values = list(base)
    values[1] = bad
    with pytest.raises(ValueError, match=rf"^{field}\[1\] must be a finite number; got"):
        make(**{field: values})


@pytest.mark.parametrize("field", ["alpha", "R", "budget"])
def test_non_finite_scalar(field):
    with pytest.raises(ValueError, match=rf"^{field} must be a finite number; got nan"):
        make(**{field: math.nan})


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_quality_outside_unit_interval(bad):
    with pytest.raises(ValueError, match=rf"^quality\[2\] must be in \[0, 1\]; got {bad}"):
        make(quality=[0.9, 0.5, bad])


def test_negative_cost():
    with pytest.raises(ValueError, match=r"^cost\[0\] must be >= 0; got -2.0"):
        make(cost=[-2.0, 0.2, 0.3])


@pytest.mark.parametrize("bad, shown", [(0, "0"), (1.5, "1.5"), (-1, "-1")])
def test_capacity_not_positive_integer(bad, shown):
    with pytest.raises(ValueError, match=rf"^capacity\[1\] must be a positive integer; got {shown}$"):
        make(capacity=[1, bad, 2])


@pytest.mark.parametrize("bad", [-0.01, 1.01])
def test_alpha_outside_unit_interval(bad):
    with pytest.raises(ValueError, match=rf"^alpha must be in \[0, 1\]; got {bad}"):
        make(alpha=bad)


@pytest.mark.parametrize("bad", [0.0, -1.0])
def test_R_not_positive(bad):
    with pytest.raises(ValueError, match=rf"^R must be > 0; got {bad}"):
        make(R=bad)


@pytest.mark.parametrize("field, value", [("cost", [0.1, 0.2]), ("capacity", [1, 1, 1, 1]),
                                          ("names", ["a", "b"])])
def test_arrays_of_different_lengths(field, value):
    with pytest.raises(ValueError, match=rf"^{field} has {len(value)} entries but quality has 3"):
        make(**{field: value})


def test_no_agents():
    with pytest.raises(ValueError, match=r"^quality must hold at least one agent; got 0"):
        SubsetSelectionProblem(quality=[], cost=[], alpha=0.5)


def test_duplicate_names():
    with pytest.raises(ValueError, match=r"^names\[2\] duplicates names\[0\]; got 'a'"):
        make(names=["a", "b", "a"])


def test_agent_in_both_must_lists():
    with pytest.raises(ValueError, match=r"^agent 2 \('2'\) is in both must_take and must_not_take"):
        make(must_take=[0, 2], must_not_take=[2])
    with pytest.raises(ValueError, match=r"^agent 1 \('b'\) is in both must_take and must_not_take"):
        make(names=["a", "b", "c"], must_take=["b"], must_not_take=[1])


def test_unknown_agent_in_must_list():
    with pytest.raises(ValueError, match=r"^must_take\[1\] names no agent; got 'zz'"):
        make(must_take=["0", "zz"])
    with pytest.raises(ValueError, match=r"^must_not_take\[0\] must be an agent index in \[0, 2\]; got 7"):
        make(must_not_take=[7])


def test_negative_budget_and_bad_demand():
    with pytest.raises(ValueError, match=r"^budget must be >= 0; got -1.0"):
        make(budget=-1.0)
    with pytest.raises(ValueError, match=r"^demand must be a non-negative integer; got 1.5"):
        make(demand=1.5)
    with pytest.raises(ValueError, match=r"^demand must be at most 1.79e308 .* 310 digits"):
        make(demand=10 ** 309)
    assert make(demand=int(1.7e308)).demand == int(1.7e308)  # the largest float64s are demands still


def test_wrong_kinds_are_type_errors():
    with pytest.raises(TypeError, match=r"^alpha must be a number"):
        make(alpha="0.5")
    with pytest.raises(TypeError, match=r"^names must be a sequence of strings"):
        make(names="abc")
    with pytest.raises(TypeError, match=r"^must_take\[0\] must be an agent index or name"):
        make(must_take=[1.5])


def test_problem_is_immutable():
    p = make()
    with pytest.raises(ValueError):
        p.quality[0] = 0.1
    with pytest.raises(AttributeError):
        p.alpha = 0.1
    assert np.array_equal(p.quality, Q)


@pytest.mark.parametrize("field, value, match", [
    ("quality", [True, False, True], r"^quality\[0\] must be a number, not a boolean; got True"),
    ("cost", [0.1, np.True_, 0.3], r"^cost\[1\] must be a number, not a boolean"),
    ("quality", np.array([True, False, True]), r"^quality must be an array of numbers, not booleans"),
])
def test_booleans_are_not_numbers_here(field, value, match):
    """numpy reads True as 1.0; a quality or cost given as booleans is a mistake, so a TypeError."""
    with pytest.raises(TypeError, match=match):
        make(**{field: value})


@pytest.mark.parametrize("bad", ["", "  "])
def test_empty_agent_name(bad):
    with pytest.raises(ValueError, match=r"^names\[1\] must be a non-empty name"):
        make(names=["a", bad, "c"])


@pytest.mark.parametrize("bad, shown", [(None, "None"), (b"x", "b'x'"), (1.5, "1.5"), (True, "True")])
def test_agent_name_that_is_not_text_is_refused(bad, shown):
    with pytest.raises(ValueError, match=rf"^names\[1\] must be a string \(or an integer\); got {re.escape(shown)}"):
        make(names=["a", bad, "c"])


def test_agent_names_from_numpy_strings_and_integers_are_text():
    assert make(names=[np.str_("a"), 7, np.int64(8)]).names == ("a", "7", "8")


def test_huge_integer_demand_is_kept_exactly():
    """A Python int demand never goes through float (1e23 + 1 would round)."""
    d = 10 ** 23 + 1
    assert make(demand=d).demand == d


@pytest.mark.parametrize("value, kw, message", [
    (math.inf, dict(min_val=0, include_boundaries="right"), "x must be a finite number > 0 (s); got inf"),
    (np.float64(math.inf), dict(min_val=0), "x must be a finite number >= 0 (s); got inf"),
    (-math.inf, dict(max_val=1), "x must be a finite number <= 1 (s); got -inf"),
    # An infinity outside a bound it passes, and NaN, keep the message of the range.
    (-math.inf, dict(min_val=0), "x must be a number >= 0 (s); got -inf"),
    (math.inf, dict(min_val=0, max_val=1), "x must be a number in [0, 1] (s); got inf"),
    (math.nan, dict(min_val=0), "x must be a number >= 0 (s); got nan"),
])
def test_check_scalar_says_an_infinity_an_open_range_admits_is_not_finite(value, kw, message):
    from subsel._validation import check_scalar

    with pytest.raises(ValueError) as info:
        check_scalar(value, "x", unit="s", **kw)
    assert str(info.value) == message
