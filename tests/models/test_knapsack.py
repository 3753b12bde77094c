"""Knapsack benchmark readers on small files in both formats, with known optima."""
import io
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel.models import read_knapsack, read_optimum
from subsel.solvers import get_solver
from tests.strategies import knapsack_brute_force

P = [10.5, 7.25, 3.0, 8.0, 1.5]
W = [4.0, 3.5, 1.0, 5.25, 0.5]
CAP = 8.75


def _format_a(values, weights, capacity, vector=None, eol="\r\n"):
    lines = [f"{len(values)} {capacity}"] + [f"{p} {w}" for p, w in zip(values, weights)]
    if vector is not None:
        lines.append(" ".join(str(v) for v in vector))
    return (eol.join(lines) + eol).encode()


def _best_vector(values, weights, capacity):
    import itertools
    best, arg = -1.0, None
    for combo in itertools.product((0, 1), repeat=len(values)):
        x = np.array(combo)
        if x @ weights <= capacity and x @ values > best:
            best, arg = float(x @ values), x
    return best, arg


def test_format_a_crlf_reals_separate_optimum(tmp_path):
    opt = knapsack_brute_force(P, W, CAP)
    f = tmp_path / "f1_l-d_kp_5_8.75"
    f.write_bytes(_format_a(P, W, CAP))
    o = tmp_path / "f1_optimum"
    o.write_bytes(f"{opt}\r\n".encode())
    [inst] = read_knapsack(f, optimum_path=o)
    assert inst.name == "f1_l-d_kp_5_8"  # the stem
    assert inst.values.tolist() == P and inst.weights.tolist() == W and inst.capacity == CAP
    assert inst.optimum == opt and inst.solution is None
    sol = get_solver("highs").solve(inst.to_problem())
    assert sol.objective == pytest.approx(opt, abs=1e-9)
    assert read_optimum(o) == opt


def test_format_a_trailing_optimal_vector(tmp_path):
    opt, vec = _best_vector(np.array(P), np.array(W), CAP)
    f = tmp_path / "inst.txt"
    f.write_bytes(_format_a(P, W, CAP, vector=vec.tolist()))
    [inst] = read_knapsack(f)
    assert inst.solution.tolist() == vec.tolist()
    assert inst.optimum == pytest.approx(opt)
    assert get_solver("dpss").solve(inst.to_problem()).objective == pytest.approx(opt, abs=1e-9)


PISINGER = """knapPI_1_4_20_1
n 4
c 10
z {z1}
time 0.00
1,5,4,1
2,4,3,0
3,9,6,1
4,2,5,0
-----

knapPI_1_3_20_2
n 3
c 5
z {z2}
time 0.01
1,3,2,1
2,4,3,1
3,1,4,0
-----
"""


def test_format_b_several_instances(tmp_path):
    z1 = knapsack_brute_force([5, 4, 9, 2], [4, 3, 6, 5], 10)
    z2 = knapsack_brute_force([3, 4, 1], [2, 3, 4], 5)
    f = tmp_path / "knapPI_1_20.csv"
    f.write_text(PISINGER.format(z1=int(z1), z2=int(z2)))
    a, b = read_knapsack(f)
    assert (a.name, a.m, a.capacity, a.optimum) == ("knapPI_1_4_20_1", 4, 10.0, z1)
    assert (b.name, b.m, b.capacity, b.optimum) == ("knapPI_1_3_20_2", 3, 5.0, z2)
    assert a.solution.tolist() == [1, 0, 1, 0]
    for inst in (a, b):
        assert get_solver("cbc").solve(inst.to_problem()).objective == pytest.approx(inst.optimum)


@pytest.mark.parametrize("content, match", [
    (b"3 10\r\n1 2\r\n3 x\r\n4 5\r\n", r"bad.txt: line 3, column 'w': must be a number; got 'x'"),
    (b"3 10\n1 2\n3 4\n", r"bad.txt: line 1, column 'n': the file ends after 2 item lines, fewer than n; got '3'"),
    (b"3 10\n1 2\n3 4\n5 6\n1 1\n",
     r"bad.txt: line 1, column 'n': the file has 4 item lines \(from line 2\), more than n; correct n or remove "
     r"the extra lines; got '3'"),
    (b"3 10\n1 2\n3 4\n5 6\n7 8\n9 1\n", r"line 1, column 'n': the file has 5 item lines \(from line 2\)"),
    (b"2 10\n1 2\n3 -4\n", r"bad.txt: line 3, column 'w': weight must be >= 0; got '-4'"),
    (b"2 10\n1 2\n3 4\n1 2 3\n", r"bad.txt: line 4: after the 2 items only one line with an optimal 0/1"),
    # a second line after a valid vector: that line is named, not the vector
    (b"2 10\n1 2\n3 4\n1 0\n0 0\n", r"bad.txt: line 5: nothing may follow the optimal 0/1 vector \(line 4\)"),
    # a header of numbers only, not two: format (a) with the wrong count, named on its line
    (b"2 10 1\n1 2\n3 4\n", r"bad.txt: line 1: expected 'n W' \(the item count and the capacity\); got '2 10 1'"),
    (b"2 nan\n1 2\n3 4\n", r"bad.txt: line 1, column 'W': must be a finite number; got 'nan'"),
    (b"x 10\n1 2\n3 4\n", r"bad.txt: line 1: expected 'n W' \(the item count and the capacity, two numbers\); "
                         r"got 'x 10'"),
    (b"2 \xef\xbc\x98\n1 2\n3 4\n", r"bad.txt: line 1: expected 'n W'"),
    (b"2 10\n\xd9\xa1\xd9\xa0 2\n3 4\n", r"bad.txt: line 2, column 'p': must be a number"),
    (b"99999999999999999999999 10\n", r"bad.txt: line 1, column 'n'"),
    (b"2.5 10\n1 2\n3 4\n", r"bad.txt: line 1, column 'n': must be a non-negative integer"),
    # integers as exact decimals (not through float), no Python underscores
    (b"2.0000000000000001 10\n1 2\n3 4\n", r"bad.txt: line 1, column 'n': must be a non-negative integer"),
    (b"2 10\n1_0 2\n3 4\n", r"bad.txt: line 2, column 'p': must be a number; got '1_0'"),
    (b"inst\nn 1.5\nc 5\n1,2,3,0\n",
     r"bad.txt: line 2: 'n' \(the item count\) must be a non-negative integer; got '1.5'"),
    (b"2 5\n1 2\n3 4\n1 1\n", r"bad.txt: line 4: the 0/1 vector weighs 6 > W = 5"),
    (b"", r"bad.txt: the file is empty"),
    # the line of the wrong 'n', not the name line
    (b"inst\nn 2\nc 5\n1,2,3,0\n", r"bad.txt: line 2: instance inst states n = 2 but has 1 item rows"),
    (b"inst\nn 1\nc 5\n1,2,3,7\n", r"bad.txt: line 4, column 'x': must be 0 or 1; got '7'"),
    (b"inst\nn 1\n1,2,3,0\n", r"bad.txt: line 1: the instance starting here has no 'c' line"),
    # format (b): a key twice, an item index twice or not a count, 'x' on some rows only, a stated
    # solution over the capacity or off the stated optimum, two instances of one name
    (b"inst\nn 1\nc 5\nc 6\n1,2,3,0\n", r"bad.txt: line 4: a second 'c' line in one instance \(the first is "
                                         r"line 3\); got 'c 6'"),
    (b"inst\nn 1\nc 5\nz 2\nz 3\n1,2,3,1\n", r"bad.txt: line 5: a second 'z' line"),
    (b"inst\nn 2\nc 5\n1,2,3,0\n1,2,1,0\n", r"bad.txt: line 5, column 'i': item index 1 repeats line 4; got '1'"),
    (b"inst\nn 1\nc 5\n0,2,3,0\n", r"bad.txt: line 4, column 'i': must be a positive integer; got '0'"),
    (b"inst\nn 2\nc 5\n1,2,3,0\n2,2,1\n", r"bad.txt: line 5: this row has no 'x' column but other rows"),
    (b"inst\nn 2\nc 5\n1,2,3,1\n2,2,3,1\n", r"bad.txt: line 4: the selection of column 'x' weighs 6 > c = 5"),
    (b"inst\nn 2\nc 5\nz 3\n1,2,3,1\n2,2,1,0\n", r"bad.txt: line 4: 'z' \(the optimum\) states 3 but the "
                                                 r"selection of column 'x' has value 2"),
    (b"a\nn 1\nc 5\n1,2,3,0\n---\na\nn 1\nc 5\n1,2,3,0\n", r"bad.txt: line 6: a second instance named 'a' "
                                                           r"\(the first starts at line 1\)"),
])
def test_bad_files_name_file_and_line(tmp_path, content, match):
    f = tmp_path / "bad.txt"
    f.write_bytes(content)
    with pytest.raises(ValueError, match=match):
        read_knapsack(f)


def test_optimum_file_errors(tmp_path):
    o = tmp_path / "opt"
    o.write_text("12\n13\n")
    with pytest.raises(ValueError, match=r"opt: line 2: expected exactly one number"):
        read_optimum(o)
    o.write_text("-5\n")
    with pytest.raises(ValueError, match=r"opt: line 1: the optimum must be >= 0; got '-5'"):
        read_optimum(o)
    o.write_text("twelve\n")
    with pytest.raises(ValueError, match=r"opt: line 1: the optimum must be a number; got 'twelve'"):
        read_optimum(o)
    with pytest.raises(FileNotFoundError):
        read_optimum(tmp_path / "missing")


def test_read_knapsack_from_a_stream():
    """An open stream (the CLI passes ``sys.stdin`` for ``-``) reads like a file, named by its name."""
    z1 = knapsack_brute_force([5, 4, 9, 2], [4, 3, 6, 5], 10)
    z2 = knapsack_brute_force([3, 4, 1], [2, 3, 4], 5)
    stream = io.StringIO(PISINGER.format(z1=int(z1), z2=int(z2)))
    stream.name = "<stdin>"
    a, b = read_knapsack(stream)
    assert (a.name, a.m, a.optimum, b.m) == ("knapPI_1_4_20_1", 4, z1, 3)
    bad = io.StringIO("inst\nn 3\nc 5\n1,2,3,0\n")
    bad.name = "<stdin>"
    with pytest.raises(ValueError, match=r"^<stdin>: line 2: instance inst states n = 3"):
        read_knapsack(bad)


# Every field of both formats, with a value a float would round onto an integer (or a non-integer
# where an integer is needed): the error names the file, the line, the field and the text as written.
TINY = "0000000000000001"  # 10^-16: below float64's resolution at 1 and above
FIELD_CASES = [
    # format (a): "n W" then "p w" lines, then an optional 0/1 vector
    ("1 1e401\n1 1\n", 1, "column 'W': must have at most 401 digits", "1e401"),
    ("1 1" + "0" * 410 + "\n1 1\n", 1, "column 'W': must have at most 401 digits",
     "10000000000000000000... (411 characters)"),
    (f"2.{TINY} 10\n1 2\n3 4\n", 1, "column 'n': must be a non-negative integer", f"2.{TINY}"),
    (f"2 10.{TINY}\n1 2\n3 4\n", 1, "column 'W': has a fractional part below float64's resolution", f"10.{TINY}"),
    (f"2 10\n1 2\n3.{TINY} 4\n", 3, "column 'p': has a fractional part below float64's resolution", f"3.{TINY}"),
    (f"2 10\n1 2.{TINY}\n3 4\n", 2, "column 'w': has a fractional part below float64's resolution", f"2.{TINY}"),
    ("2 10\n1 2\n3 4\n1.0 0\n", 4, "entry 1 of the optimal 0/1 vector must be 0 or 1", "1.0"),
    ("2 1e-400\n1 2\n3 4\n", 1, "column 'W': has a fractional part below float64's resolution", "1e-400"),
    # format (b): key lines and "i,p,w,x" rows
    (f"inst\nn 1.{TINY}\nc 5\n1,2,3,0\n", 2, "'n' (the item count) must be a non-negative integer", f"1.{TINY}"),
    (f"inst\nn 1\nc 5.{TINY}\n1,2,3,0\n", 3, "'c' (the capacity) has a fractional part below", f"5.{TINY}"),
    (f"inst\nn 1\nc 5\nz 2.{TINY}\n1,2,3,0\n", 4, "'z' (the optimum) has a fractional part below", f"2.{TINY}"),
    (f"inst\nn 1\nc 5\n1,2.{TINY},3,0\n", 4, "column 'p': has a fractional part below", f"2.{TINY}"),
    (f"inst\nn 1\nc 5\n1,2,3.{TINY},0\n", 4, "column 'w': has a fractional part below", f"3.{TINY}"),
    (f"inst\nn 1\nc 5\n1,2,3,0.{TINY}\n", 4, "column 'x': must be 0 or 1", f"0.{TINY}"),
    ("inst\nn 1\nc 5\n1,2,4611686018427387905,0\n", 4, "column 'w': must be at most 2^62", "4611686018427387905"),
    ("inst\nn 1\nc 5.5\n1,2,9007199254740993,0\n", 4, "column 'w': an integer above 2^53 = 9007199254740992 in an "
     "instance with real numbers", "9007199254740993"),
    ("2 5\n3074457345618258602 1\n3074457345618258602 1\n", 3, "column 'p': the p values up to this line sum "
     "to 6148914691236517204 > 2^62", "6148914691236517204"),
    ("inst\nn 1\nc -5\n1,2,3,0\n", 3, "'c' (the capacity) must be >= 0", "-5"),
]


@pytest.mark.parametrize("content, line, rule, token", FIELD_CASES)
def test_every_field_error_names_file_line_and_value(tmp_path, content, line, rule, token):
    f = tmp_path / "k.txt"
    f.write_text(content)
    with pytest.raises(ValueError) as info:
        read_knapsack(f)
    message = str(info.value)
    assert message.startswith(f"{f}: line {line}")
    assert rule in message and token in message


def test_optimum_file_value_below_float_resolution(tmp_path):
    o = tmp_path / "opt"
    o.write_text(f"7.{TINY}\n")
    with pytest.raises(ValueError, match=rf"^{o}: line 1: the optimum has a fractional part below float64's "
                                         rf"resolution \(it would be read as the integer 7\); got '7.{TINY}'$"):
        read_optimum(o)


def test_items_know_their_lines(tmp_path):
    """Instances keep each item's line and the capacity's, so later refusals can name them."""
    f = tmp_path / "k.txt"
    f.write_text("\n2 10\n\n1 2\n3 4\n")
    [a] = read_knapsack(f)
    assert (a.file, a.lines, a.capacity_line, a.columns) == (str(f), (4, 5), 2, ("p", "w", "W"))
    f.write_text(PISINGER.format(z1=14, z2=7))   # the values of the 'x' columns
    a, b = read_knapsack(f)
    assert (a.lines, a.capacity_line, b.lines, b.capacity_line) == ((6, 7, 8, 9), 3, (17, 18, 19), 14)
    assert a.columns == ("p", "w", "c")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 ** 18 - 1) | st.integers(0, 99), st.integers(0, 10 ** 18 - 1)
                          | st.integers(0, 99), st.sampled_from([" ", "\t", "  "])), min_size=1, max_size=8),
       st.integers(0, 10 ** 20))
def test_plain_integer_items_read_as_one_by_one(items, capacity):
    """Item lines of plain whole numbers are read at once; the values, and the refusal of sums above
    2^62 naming the line where the sum crosses it, are those of the exact reading of each number."""
    text = f"{len(items)} {capacity}\n" + "".join(f"{p}{gap}{w}\n" for p, w, gap in items)
    crossings = []   # (column, item) where a column's running sum first passes 2^62: p is checked first
    for column, values in (("p", [p for p, _, _ in items]), ("w", [w for _, w, _ in items])):
        totals = np.cumsum([0] + values, dtype=object)[1:]
        crossings += [(column, j) for j, t in enumerate(totals) if t > 2 ** 62][:1]
    if crossings:
        column, j = crossings[0]
        with pytest.raises(ValueError, match=rf"line {j + 2}, column '{column}'"):
            read_knapsack(io.StringIO(text))
    else:
        [inst] = read_knapsack(io.StringIO(text))
        assert inst.values.dtype == np.int64 and inst.weights.dtype == np.int64
        assert inst.values.tolist() == [p for p, _, _ in items]
        assert inst.weights.tolist() == [w for _, w, _ in items]
        assert inst.capacity == capacity and type(inst.capacity) is int
        assert inst.lines == tuple(range(2, len(items) + 2))


@pytest.mark.parametrize("content", [b"0 7\n", b"0 7\n\n", b"inst\nn 0\nc 7\n"])
def test_an_item_count_of_zero_is_an_instance_without_items(tmp_path, content):
    f = tmp_path / "empty.txt"
    f.write_bytes(content)
    (inst,) = read_knapsack(f)
    assert inst.m == 0 and inst.values.size == 0 and inst.weights.size == 0 and inst.capacity == 7


@pytest.mark.parametrize("content, message", [
    (b"-1 7\n", "column 'n': must be a non-negative integer; got '-1'"),
    (b"0 7\n1 2\n", "column 'n': the file has 1 item lines"),
    (b"inst\nn 0\nc 7\n1,2,3,0\n", "states n = 0 but has 1 item rows"),
])
def test_an_item_count_of_zero_with_items_or_below_zero_is_refused(tmp_path, content, message):
    f = tmp_path / "bad.txt"
    f.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(message)):
        read_knapsack(f)
