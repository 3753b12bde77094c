"""The one CSV reader: physical line numbers, files and streams alike, one structured error type."""
import io
import pickle

import numpy as np
import pytest

from subsel._files import read_csv
from subsel.models import InputError, SubsetSelectionProblem, read_agents


class _Stdin(io.TextIOWrapper):
    """A stand-in for ``sys.stdin``: text on top of a binary buffer, named ``<stdin>``."""

    def __init__(self, data: bytes):
        super().__init__(io.BytesIO(data), encoding="utf-8")

    @property
    def name(self):  # noqa: D401
        return "<stdin>"


@pytest.mark.parametrize("data, lines", [
    (b"h,v\na,1\nb,2\n", (2, 3)),
    (b"h,v\n\na,1\n\n\nb,2\n", (3, 6)),                 # blank lines keep their numbers
    (b"h,v\r\na,1\r\n\r\nb,2\r\n", (2, 4)),            # CRLF
    (b"h,v\ra,1\r\rb,2", (2, 4)),                      # old Mac line ends, no final newline
    (b'h,v\n"a\nstill a",1\nb,2\n', (2, 4)),           # a quoted field spanning two lines
    (b'\xef\xbb\xbfh,v\n\n"x\r\ny\r\nz",1\nb,2\n', (3, 6)),  # BOM, quoted CRLFs
    (b"\n\nh,v\na,1\n", (4,)),                         # blank lines before the header
])
def test_rows_know_their_physical_lines(data, lines):
    table = read_csv(io.BytesIO(data))
    assert table.header == ("h", "v")
    assert table.lines == lines


def test_a_bad_cell_after_a_blank_line_names_its_own_line(tmp_path):
    path = tmp_path / "agents.csv"
    path.write_bytes(b"name,quality,cost\na,0.5,0.1\n\nb,oops,0.1\n")
    with pytest.raises(InputError) as exc:
        SubsetSelectionProblem.from_csv(path, alpha=0.5)
    e = exc.value
    assert (e.file, e.line, e.column, e.value) == (str(path), 4, "quality", "oops")
    assert e.rule == "expected a number"
    assert str(e) == f"{path}: line 4, column 'quality': expected a number; got 'oops'"


@pytest.mark.parametrize("data, match", [
    (b"name,quality,cost\na\rb,0.9,0.1", r": line 2: 1 field but the header has 3"),
    (b"name,quality,cost\na,0.9,0.1\n\xff,0.1,0.1\n", r": line 3: not UTF-8 text \(byte 0xff"),
    (b"name,quality,cost\na\x00b,0.9,0.1\n", r": line 2: holds a NUL byte"),
    (b'name,quality,cost\n"a"b,0.9,0.1\n', r": line 2: not a readable CSV"),
    (b'name,quality,cost\na,0.9,0.1\n"b,0.2,0.1\n', r": line 3: not a readable CSV"),
    (b"name,quality,quality\na,0.9,0.1\n", r": line 1: column 3 repeats the header 'quality'"),
    (b"name,quality,cost,\na,0.9,0.1,\n", r": line 1: column 4 of the header has no name"),
    (b"", r": the file is empty"),
    (b"\n\r\n", r": the file is empty"),
    (b"name,quality,cost\n", r": line 1: the header is not followed by any agent row"),
    (b"name,quality,cost\na,0.9,0.1\n\nb,0.2,-1\n", r": line 4, column 'cost': must be >= 0; got -1.0"),
    (b"name,quality,cost\na,0.9,0.1\n\na,0.2,1\n", r": line 4, column 'name': duplicates line 2; got 'a'"),
    (b'name,quality,cost\na,0.9,0.1\n"b\nc",0.2,1\n', r": line 3, column 'name': must not hold control"),
    (b"name,quality,cost\na,0.9,nan\n", r": line 2, column 'cost': must be a finite number; got nan"),
    (b"name,quality,cost\na,0.9,\n", r": line 2, column 'cost': expected a number; got ''"),
    # values as written, not as read (inf, 1e+23, 0.0)
    (b"name,quality,cost\na,0.9,1e400\n", r": line 2, column 'cost': must be a finite number; got 1e400$"),
    (b"name,quality,cost,fixed_cost\na,0.9,0.1,1e400\n",
     r": line 2, column 'fixed_cost': must be a finite number; got 1e400$"),
    (b"name,quality,cost,capacity,min_units\na,0.9,0.1,3,99999999999999999999999\n",
     r": line 2, column 'min_units': must be at most 2\^53 = 9007199254740992; got 99999999999999999999999$"),
    (b"name,quality,cost,capacity,lot_size\na,0.9,0.1,3,99999999999999999999999\n",
     r": line 2, column 'lot_size': must be at most 2\^53 = 9007199254740992; got 99999999999999999999999$"),
    (b"name,quality,cost\na,1.50,0.1\n", r": line 2, column 'quality': must be in \[0, 1\]; got 1.5$"),
    # digits of another script: float() reads them, a data file's number is ASCII (as integer cells)
    ("name,quality,cost\na,\u0660.\u0669,0.1\n".encode(), r": line 2, column 'quality': expected a number; got "),
    ("name,quality,cost\na,0.9,\uff10.1\n".encode(), r": line 2, column 'cost': expected a number; got "),
])
def test_file_and_stdin_give_the_same_error(tmp_path, data, match):
    path = tmp_path / "agents.csv"
    path.write_bytes(data)
    with pytest.raises(InputError, match=rf"^{path}{match}") as from_file:
        SubsetSelectionProblem.from_csv(path, alpha=0.5)
    with pytest.raises(InputError, match=rf"^<stdin>{match}") as from_stdin:
        SubsetSelectionProblem.from_csv(_Stdin(data), alpha=0.5)
    assert str(from_file.value).replace(str(path), "<stdin>") == str(from_stdin.value)
    assert len(str(from_file.value).splitlines()) == 1


def test_quoted_names_with_commas_and_bom_round_trip(tmp_path):
    p = SubsetSelectionProblem(quality=[0.9, 0.3], cost=[0.1, 0.2], alpha=0.5,
                               names=["Smith, Inc.", 'say "hi"'])
    path = tmp_path / "a.csv"
    p.to_csv(path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    back = SubsetSelectionProblem.from_csv(path, alpha=0.5)
    assert back.names == p.names
    assert np.array_equal(back.quality, p.quality)


def test_the_constructor_raises_the_same_type_for_array_entries():
    with pytest.raises(InputError) as exc:
        SubsetSelectionProblem(quality=[0.5, 1.5], cost=[0, 0], alpha=0.5)
    assert (exc.value.column, exc.value.row, exc.value.value) == ("quality", 1, 1.5)
    assert str(exc.value) == "quality[1] must be in [0, 1]; got 1.5"
    assert isinstance(exc.value, ValueError)
    with pytest.raises(InputError, match=r"^names\[1\] must not hold control characters"):
        SubsetSelectionProblem(quality=[0.5, 0.5], cost=[0, 0], alpha=0.5, names=["a", "b\x00"])


def test_input_error_pickles_with_its_fields():
    e = InputError("must be >= 0", file="a.csv", line=3, column="cost", value=-1.0)
    back = pickle.loads(pickle.dumps(e))
    assert str(back) == str(e) and back.line == 3 and back.value == -1.0


@pytest.mark.parametrize("header, column", [("name,quality,cost,capcity", "capcity"),
                                            ("name,quality,cost,Capacity", "Capacity"),
                                            ("name,quality,cost,capacity,notes", "notes")])
def test_agents_csv_refuses_unknown_columns(tmp_path, header, column):
    path = tmp_path / "a.csv"
    path.write_text(header + "\na,0.9,0.1,5" + (",x" if column == "notes" else "") + "\n")
    with pytest.raises(InputError, match=rf"unknown column '{column}'; an agents CSV has the columns"):
        read_agents(path, alpha=0.7)
