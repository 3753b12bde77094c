"""Integer fields are read as exact decimals, never through float(); numbers have no underscores.

A float rounds ``4503599627370496.5`` and ``2.0000000000000001`` to integers, and Python's float()
reads ``1_0`` as 10: a data file is not Python source.  Capacities in agents files, item counts in
knapsack files, bandit observation counts and integer options share one reader.
"""
import json
from decimal import Decimal, localcontext

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from subsel._files import InputError, parse_float, parse_integer
from subsel.bandits import OnlinePlanner
from subsel.cli import integer
from subsel.models import read_agents, read_knapsack

ACCEPTED = [("3", 3), ("3.0", 3), ("+3", 3), (" 3 ", 3), ("3e0", 3), ("30e-1", 3), ("3.000", 3),
            ("9007199254740993", 2 ** 53 + 1), ("9007199254740993.0", 2 ** 53 + 1), ("-2", -2), ("1e3", 1000)]
REFUSED = ["3.5", "2.0000000000000001", "4503599627370496.5", "1_0", "0x10", "\u0661\u0660", "nan", "inf", "", "abc",
           "1e500", "3.", "++3", "3e", "1e-400"]


@pytest.mark.parametrize("text, value", ACCEPTED)
def test_integer_forms_are_read_exactly(text, value):
    got = parse_integer(text)
    assert got == value and type(got) is int


@pytest.mark.parametrize("text", [t for t in REFUSED if t != "3."])
def test_non_integers_are_refused(text):
    with pytest.raises(ValueError):
        parse_integer(text)


def test_a_trailing_point_is_an_integer():
    assert parse_integer("3.") == 3


@given(st.integers(-10 ** 30, 10 ** 30), st.integers(0, 40), st.integers(1, 9), st.integers(0, 30))
def test_any_fraction_however_small_is_refused(n, zeros, digit, exp):
    assert parse_integer(f"{n}.{'0' * zeros}") == n
    with pytest.raises(ValueError, match="fractional part"):
        parse_integer(f"{n}.{'0' * zeros}{digit}")
    assert parse_integer(f"{n}e{exp}") == n * 10 ** exp
    with localcontext(prec=100):  # the default 28 digits would round the test's own numbers
        shifted = Decimal(n).scaleb(-exp)  # n * 10^-exp: an integer only when 10^exp divides n
    if n % 10 ** exp == 0:
        assert parse_integer(f"{shifted:f}") == n // 10 ** exp
    else:
        with pytest.raises(ValueError):
            parse_integer(f"{shifted:f}")


@pytest.mark.parametrize("text", ["1_0", "0_9", "1__0", "_1", "0x1p0", "\u0661\u0660", "\uff13", "3\u00a0"])
def test_numbers_with_underscores_hex_or_non_ascii_digits_are_refused(text):
    """Python's ``float()`` reads each of these (``"١٠"`` is 10); a data file means none of them."""
    with pytest.raises(ValueError):
        parse_float(text)


@pytest.mark.parametrize("cell, rule", [
    ("4503599627370496.5", "expected an integer"), ("2.0000000000000001", "expected an integer"),
    ("1_0", "expected a number"), ("2.5", "expected an integer"),
    ("9007199254740993", "must be at most 2^53"), ("1e400", "must be at most 2^53"),
])
def test_agents_file_capacity_refused_with_file_line_column_value(tmp_path, cell, rule):
    f = tmp_path / "agents.csv"
    f.write_text(f"name,quality,cost,capacity\na,0.9,0.1,2\nb,0.9,0.1,{cell}\n")
    with pytest.raises(InputError) as info:
        read_agents(f, alpha=0.7)
    message = str(info.value)
    assert message.startswith(f"{f}: line 3, column 'capacity': {rule}")
    assert cell in message or str(int(Decimal(cell))) in message


@pytest.mark.parametrize("column, row", [("quality", "a,0_9,0.1,1"), ("cost", "a,0.9,0_1,1")])
def test_agents_file_numbers_with_underscores_are_refused(tmp_path, column, row):
    f = tmp_path / "agents.csv"
    f.write_text(f"name,quality,cost,capacity\n{row}\n")
    with pytest.raises(InputError, match=f"line 2, column '{column}': expected a number; got '0_"):
        read_agents(f, alpha=0.7)


def test_agents_file_integer_forms_accepted(tmp_path):
    f = tmp_path / "agents.csv"
    f.write_text("name,quality,cost,capacity\na,0.9,0.1,3.0\nb,0.9,0.1,2e1\nc,0.9,0.1,9007199254740992\n")
    assert read_agents(f, alpha=0.7).capacity.tolist() == [3, 20, 2 ** 53]


def test_knapsack_file_count_written_as_decimal(tmp_path):
    f = tmp_path / "ok.txt"
    f.write_bytes(b"2.0 10\n1 2\n3 4\n")
    assert read_knapsack(f)[0].values.tolist() == [1, 3]


@pytest.mark.parametrize("cell", ["2.0000000000000001", "1_0", "1.5", "nan"])
def test_bandit_observation_counts_are_exact_integers(cell):
    agents = pd.DataFrame({"name": ["a", "b"], "cost": ["0.1", "0.3"], "capacity": ["2", "1"]})
    p = OnlinePlanner.create(agents, alpha=0.6, epsilon=0.4, horizon=20)
    p.next_order()
    before = json.dumps(p.to_state())
    rows = pd.DataFrame([["a", "2", "1"], ["b", "1", cell]], columns=["name", "received", "good"])
    with pytest.raises(ValueError, match=f"row 1, column 'good': expected a non-negative integer; got '{cell}'"):
        p.feedback(rows)
    assert json.dumps(p.to_state()) == before


def test_bandit_observation_count_written_as_decimal_is_accepted():
    agents = pd.DataFrame({"name": ["a"], "cost": ["0.1"], "capacity": ["2"]})
    p = OnlinePlanner.create(agents, alpha=0.6, epsilon=0.4, horizon=20)
    p.next_order()
    p.feedback(pd.DataFrame([["a", "2.0", "1.0"]], columns=["name", "received", "good"]))
    assert np.asarray(p.policy.w).tolist() == [2]


@pytest.mark.parametrize("text", ["1_0", "2.0000000000000001", "1.5", "abc"])
def test_integer_options_refuse_non_integers(text):
    with pytest.raises(ValueError):
        integer(text)
    assert integer.__name__ == "int"  # argparse says "invalid int value"
