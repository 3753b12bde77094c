"""Reading and writing subsel's files: one CSV reader, one error type, atomic writes.

This module sits below the model and imports nothing of subsel; what a file *means* (the agents
table, a knapsack instance, a bandit state) lives with the layer that owns it.

Every CSV the package reads (agents files, bandit agents and observations, EMSCO data splits) goes
through :func:`read_csv`, which

- reads files and streams (``sys.stdin``) the same way: from bytes, decoded as UTF-8 (a leading
  byte-order mark is dropped), so a bad byte is an error naming the source and the line;
- knows the physical 1-based line of every row, whatever comes before it: blank lines (skipped),
  CRLF or lone CR line ends, quoted fields spanning several lines;
- refuses what a lenient reader would silently reinterpret: repeated or empty header names, rows
  with more or fewer fields than the header, malformed quoting, NUL bytes.

Every problem it finds is an :class:`InputError` (a :class:`ValueError`) carrying the file, the
line, the column, the offending value and the rule, printed as one line::

    agents.csv: line 4, column 'quality': must be in [0, 1]; got 1.5

The model's constructors raise the same type for a bad array entry (``quality[2] must be in [0, 1];
got 1.5``); the readers translate its index into the file's line, so both paths share one rule.

Writes go through :func:`atomic_write_with` / :func:`atomic_write_text`: a temporary file in the
destination's folder, synced to the disk, renamed into place, and the folder synced, so no reader
ever sees half a file and a power cut leaves the old file or the new one, never an empty one.

Longer than 600 lines on purpose: the error type, the decoder, the CSV reader and the atomic
writers are one contract (every message names the file and the line; nothing is ever half
written), and everything above the model reads and writes through it.
"""
from __future__ import annotations

import codecs
import csv
import errno
import io
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "InputError",
    "CSVTable",
    "read_csv",
    "read_text",
    "source_name",
    "parse_float",
    "parse_integer",
    "atomic_write_text",
    "atomic_write_with",
    "stale_temporaries",
]

_NO_VALUE: Any = object()

#: A number as a data file writes it: optional sign, digits with an optional decimal point,
#: optional exponent (``3``, ``-2.5``, ``.5``, ``3e-4``), or ``nan`` / ``inf`` / ``infinity`` in any
#: case (the model's finiteness rules then refuse them with their line).  Not the extras of
#: Python's literals that ``float()`` also takes: underscores (``1_0``), which a data file never
#: means as digit separators.
_DECIMAL = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)\s*",
                      re.IGNORECASE | re.ASCII)   # (ASCII digits: Python's float() reads "١٠" as 10)

#: Largest decimal exponent an integer field may reach (far beyond every range check, small
#: enough that the exact value is cheap to build: ``1e999999999`` is refused, not expanded).
_MAX_INT_DIGITS = 400


def parse_float(text: str) -> float:
    """The float of a decimal number written in a data file (see ``_DECIMAL``).

    Raises
    ------
    ValueError
        ``text`` is not such a number (e.g. ``1_0``, ``0x10``, ``abc``, empty).
    """
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"expected a number; got {text!r}")
    return float(text)


def parse_integer(text: str) -> int:
    """The exact integer written as a decimal number: ``3``, ``3.0``, ``3e2``, ``+7``.

    Integer fields (capacities, counts, sizes) are read as exact decimals, never through a float:
    ``4503599627370496.5`` and ``2.0000000000000001`` have a fractional part and are refused, while
    a float would round them to integers.

    Raises
    ------
    ValueError
        ``text`` is not a decimal number, is not finite, or has a non-zero fractional part
        (however small), or its value has more than 401 digits.

    Examples
    --------
    >>> parse_integer("3.0"), parse_integer("9007199254740993")
    (3, 9007199254740993)
    """
    from decimal import Decimal, InvalidOperation

    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"expected an integer; got {text!r}")
    try:
        d = Decimal(text.strip())
    except InvalidOperation:  # pragma: no cover - the pattern admits only what Decimal reads
        raise ValueError(f"expected an integer; got {text!r}") from None
    if not d.is_finite():
        raise ValueError(f"expected an integer; got {text!r}")
    if d.adjusted() > _MAX_INT_DIGITS:
        raise ValueError(f"expected an integer of at most {_MAX_INT_DIGITS + 1} digits; got {text!r}")
    if d != d.to_integral_value():
        raise ValueError(f"expected an integer (it has a fractional part); got {text!r}")
    return int(d)


class Written(str):
    """A number as the input wrote it (``1e400``, ``99999999999999999999999``): printed as is,
    unquoted, where the value read from it would print otherwise (``inf``, ``1e+23``)."""


def _show(value: Any) -> str:
    """A value as messages print it: strings quoted (``'x'``), numbers plain (``1.5``)."""
    if isinstance(value, Written):
        return str(value)
    if isinstance(value, (str, bytes)):
        return repr(value)
    if isinstance(value, (np.floating, np.integer)):
        return str(value.item())
    return str(value)


class InputError(ValueError):
    """A value in the input broke a rule; knows where it is and prints as one line.

    One type for every input problem: a cell of a CSV file (``file``, ``line``, ``column``), a row
    of a table given as a DataFrame (``row``), or an entry of an array handed to a constructor
    (``column`` is then the field, ``row`` its index).  A subclass of :class:`ValueError`, so code
    catching ``ValueError`` keeps working.

    Parameters
    ----------
    rule : str
        What is wrong or expected, e.g. ``"must be in [0, 1]"``.  It may hold ``{other}``, filled
        with the place of a related entry (``line 2`` in a file, ``names[0]`` for an array), e.g.
        ``"duplicates {other}"``.
    file : str, optional
        The file's name as given (``<stdin>`` for standard input).
    line : int, optional
        1-based physical line of the file.
    column : str, optional
        Column (or field) name.
    value : object, optional
        The offending value (omitted from the message when not given).
    row : int, optional
        0-based index of the entry (row of a table, element of an array) when no line is known.
    other : int, optional
        Index of a related entry (the first occurrence of a repeated name).
    other_line : int, optional
        Line of that related entry in the file.
    in_table : bool, default False
        The error is about a table (file or DataFrame) rather than an array argument: ``row`` is
        then printed as ``row i, column 'c'`` instead of ``c[i]``.

    Attributes
    ----------
    file, line, column, value, row, rule, other
        As given; ``value`` is ``None`` when not given (see :attr:`has_value`).

    Examples
    --------
    >>> str(InputError("must be in [0, 1]", file="a.csv", line=4, column="quality", value=1.5))
    "a.csv: line 4, column 'quality': must be in [0, 1]; got 1.5"
    >>> str(InputError("must be >= 0", column="cost", row=3, value=-2.0))
    'cost[3] must be >= 0; got -2.0'
    """

    def __init__(self, rule: str, *, file: str | None = None, line: int | None = None,
                 column: str | None = None, value: Any = _NO_VALUE, row: int | None = None,
                 other: int | None = None, other_line: int | None = None, in_table: bool = False):
        self.rule = rule
        self.in_table = in_table or file is not None or line is not None
        self.file = file
        self.line = line
        self.column = column
        self.has_value = value is not _NO_VALUE
        self.value = value if self.has_value else None
        self.row = row
        self.other = other
        self.other_line = other_line
        super().__init__(self._message())

    def _message(self) -> str:
        if self.other_line is not None:
            other = f"line {self.other_line}"
        elif self.other is not None:
            other = f"row {self.other}" if self.in_table else f"{self.column}[{self.other}]"
        else:
            other = ""
        rule = self.rule.replace("{other}", other)
        got = f"; got {_show(self.value)}" if self.has_value else ""
        if not self.in_table and self.row is not None and self.column:
            return f"{self.column}[{self.row}] {rule}{got}"  # an array entry of a constructor
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        elif self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        head = ", ".join(where)
        text = f"{head}: {rule}{got}" if head else f"{rule}{got}"
        return f"{self.file}: {text}" if self.file is not None else text

    def located(self, *, file: str | None = None, lines: Sequence[int] | None = None,
                columns: Mapping[str, str] | None = None, value: Any = _NO_VALUE) -> "InputError":
        """The same error placed in a file: the row index becomes the file's line.

        Parameters
        ----------
        file : str, optional
            The file's name.
        lines : sequence of int, optional
            Physical line of each row (index ``row`` -> ``lines[row]``).
        columns : mapping, optional
            Field names to column names (``{"names": "name"}``).
        value : object, optional
            The value to show instead of this error's (the cell as written).
        """
        column = self.column
        if columns and column is not None and column in columns:
            column = columns[column]
        line, row, other_line = self.line, self.row, self.other_line
        if lines is not None and row is not None and 0 <= row < len(lines):
            line, row = lines[row], None
            if self.other is not None and 0 <= self.other < len(lines):
                other_line = lines[self.other]
        if value is _NO_VALUE:
            value = self.value if self.has_value else _NO_VALUE
        out = InputError(self.rule, file=file if file is not None else self.file, line=line,
                         column=column, value=value, row=row, other=self.other,
                         other_line=other_line, in_table=True)
        return out

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across processes despite the keyword-only constructor
        value = self.value if self.has_value else _NO_VALUE
        return (_rebuild, (self.rule, self.file, self.line, self.column, value, self.row,
                           self.other, self.other_line, self.in_table))


def _rebuild(rule: str, file: str | None, line: int | None, column: str | None, value: Any, row: int | None,
             other: int | None, other_line: int | None, in_table: bool) -> InputError:
    return InputError(rule, file=file, line=line, column=column, value=value, row=row,
                      other=other, other_line=other_line, in_table=in_table)


# ------------------------------------------------------------------------------------- reading
def source_name(source: Any) -> str:
    """The name messages use for ``source``: the path as given, or a stream's ``name``
    (``<stdin>``)."""
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        return name if isinstance(name, str) else "<stream>"
    return os.fspath(source)


_LINE_END = re.compile(rb"\r\n|\r|\n")


def _physical_line(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and 1-based byte column of ``data[offset]`` (CRLF, CR and LF end lines)."""
    ends = list(_LINE_END.finditer(data, 0, offset))
    start = ends[-1].end() if ends else 0
    return len(ends) + 1, offset - start + 1


def read_text(source: Any, *, name: str | None = None) -> tuple[str, str]:
    """Name and text of a file or stream, decoded as UTF-8 the same way for both.

    Streams are read from their binary buffer where they have one (``sys.stdin.buffer``), so
    standard input and a file with the same bytes give the same text and the same errors.  A
    leading UTF-8 byte-order mark is dropped.

    Parameters
    ----------
    source : str, path-like or readable stream
        A path, or an open stream (text or binary).
    name : str, optional
        Name to use in messages (default: the path, or the stream's ``name``).

    Returns
    -------
    (str, str)
        The name and the text (line ends untouched).

    Raises
    ------
    InputError
        The bytes are not UTF-8 (naming the line and the byte), or the file holds a NUL byte.
    OSError
        The file cannot be opened (missing, a folder, no permission) or read (a special file, a
        device error); the error names the path (``name`` when given).
    """
    label = name if name is not None else source_name(source)
    try:
        if hasattr(source, "read"):
            stream = getattr(source, "buffer", source)
            try:
                data = stream.read()
            except UnicodeDecodeError as exc:  # a text stream that decodes by itself
                raise InputError(f"not UTF-8 text ({exc.reason}); save the file as UTF-8",
                                 file=label) from None
        else:
            with open(source, "rb") as fh:
                data = fh.read()
    except OSError as exc:  # a failed read (a special file, a device error) names no file by itself
        if exc.filename is None:
            exc.filename = label
        raise
    if isinstance(data, str):
        text = data
        if "\x00" in text:
            line = len(re.findall(r"\r\n|\r|\n", text[:text.index("\x00")])) + 1
            raise InputError("holds a NUL byte; not a text file", file=label, line=line)
        return label, text[1:] if text.startswith("\ufeff") else text
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _physical_line(data, exc.start)
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at byte {col} of the "
                         "line); save the file as UTF-8", file=label, line=line) from None
    if "\x00" in text:
        line, _ = _physical_line(data, data.index(b"\x00"))
        raise InputError("holds a NUL byte; not a text file", file=label, line=line)
    return label, text


@dataclass(frozen=True)
class CSVTable:
    """A CSV file as read by :func:`read_csv`: a header, rows of strings and their line numbers.

    Attributes
    ----------
    source : str or None
        The file's name in messages (``<stdin>`` for standard input); None for a table built from
        a DataFrame (messages then give 0-based ``row`` numbers).
    header : tuple of str
        Column names, stripped of surrounding spaces; unique and non-empty.
    rows : tuple of tuple of str
        Data rows, each as long as the header; cells stripped of surrounding spaces.
    lines : tuple of int or None
        1-based physical line where each row starts (None for a DataFrame).
    header_line : int
        Line of the header (1 unless blank lines precede it).
    """

    source: str | None
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...] | None
    header_line: int = 1

    # --------------------------------------------------------------------------- construction
    @classmethod
    def from_frame(cls, df: "pd.DataFrame", source: str | None = None) -> "CSVTable":
        """A table of strings from a DataFrame (column names and cells through ``str``).

        Raises
        ------
        InputError
            Repeated or empty column names.
        """
        header = tuple(str(c).strip() for c in df.columns)
        _check_header(header, source, None)
        rows = tuple(tuple("" if _is_missing(v) else str(v).strip() for v in rec)
                     for rec in df.itertuples(index=False, name=None))
        return cls(source, header, rows, None, 1)

    # --------------------------------------------------------------------------- access
    def __len__(self) -> int:
        return len(self.rows)

    def has(self, column: str) -> bool:
        """True when ``column`` is in the header."""
        return column in self.header

    def column(self, column: str) -> list[str]:
        """The cells of ``column`` (strings), one per row."""
        j = self._index(column)
        return [r[j] for r in self.rows]

    def _index(self, column: str) -> int:
        try:
            return self.header.index(column)
        except ValueError:
            raise self.missing(column) from None

    def missing(self, column: str, hint: str = "") -> InputError:
        """The error for a required column that is not in the header."""
        return InputError(f"column {column!r} is missing; columns are {list(self.header)}{hint}",
                          file=self.source, line=None)

    def require(self, *columns: str) -> None:
        """Raise :meth:`missing` for the first of ``columns`` not in the header."""
        for c in columns:
            if c not in self.header:
                raise self.missing(c)

    def line_of(self, row: int) -> int | None:
        """Physical line of data row ``row`` (0-based), or None for a DataFrame."""
        return None if self.lines is None else self.lines[row]

    def error(self, row: int, column: str | None, rule: str, value: Any = _NO_VALUE,
              other: int | None = None) -> InputError:
        """An :class:`InputError` at data row ``row`` (0-based) and ``column`` of this table."""
        line = self.line_of(row)
        return InputError(rule, file=self.source, line=line, column=column, value=value,
                          row=None if line is not None else row, other=other,
                          other_line=None if other is None or self.lines is None
                          else self.lines[other], in_table=True)

    def locate(self, exc: InputError, columns: Mapping[str, str] | None = None) -> InputError:
        """``exc`` (raised for an array entry, ``row`` = index) placed at this table's line.

        A number whose value, as the message would print it, is not the number the cell wrote
        (``1e400`` read as ``inf``, ``99999999999999999999999`` as ``1e+23``) is shown as written.
        """
        written: Any = _NO_VALUE
        column = columns.get(exc.column, exc.column) if columns and exc.column else exc.column
        if (exc.has_value and exc.row is not None and column in self.header and 0 <= exc.row < len(self)
                and isinstance(exc.value, (int, float, np.integer, np.floating))
                and not isinstance(exc.value, (bool, np.bool_))):
            cell = self.rows[exc.row][self.header.index(column)]
            if cell and not _same_number(cell, _show(exc.value)):
                written = Written(cell)
        return exc.located(file=self.source, lines=self.lines, columns=columns, value=written)

    def numbers(self, column: str, *, allow_empty: bool = False) -> np.ndarray:
        """The cells of ``column`` as floats, shape (len(self),).

        A cell is a number when Python's ``float`` reads it (``1``, ``-2.5``, ``3e-4``; also
        ``nan`` and ``inf``, which the model's finiteness rules then refuse with their line).

        Parameters
        ----------
        allow_empty : bool, default False
            Read empty cells as NaN instead of refusing them.

        Raises
        ------
        InputError
            The first cell that is empty or not a number, with its line and column.
        """
        cells = self.column(column)
        try:
            # Underscores and other scripts' digits: numpy (like float()) reads "1_0" as 10 and
            # "٠.٩" as 0.9; the cell loop below refuses them, as integer cells are refused.
            out = np.array(cells, dtype=float) if cells and not any("_" in c or not c.isascii() for c in cells) \
                else None
        except ValueError:
            out = None
        if not cells:
            return np.zeros(0)
        if out is not None and (allow_empty or all(cells)):
            return out
        out = np.empty(len(cells))
        for i, cell in enumerate(cells):
            if cell == "":
                if allow_empty:
                    out[i] = math.nan
                    continue
                raise self.error(i, column, "expected a number", cell)
            try:
                out[i] = parse_float(cell)
            except ValueError:
                raise self.error(i, column, "expected a number", cell) from None
        return out

    def integers(self, column: str) -> np.ndarray:
        """The cells of ``column`` as exact integers (:func:`parse_integer`), shape (len(self),).

        Returns
        -------
        ndarray of int64, or of Python ints (dtype object) when a value is outside int64's range
            The model's range checks then name the value exactly.

        Raises
        ------
        InputError
            The first cell that is empty, not a number, or not an integer (a non-zero fractional
            part, however small), with its line and column.
        """
        values = []
        for i, cell in enumerate(self.column(column)):
            try:
                values.append(parse_integer(cell))
            except ValueError:
                rule = "expected a number" if not _DECIMAL.fullmatch(cell) else "expected an integer"
                raise self.error(i, column, rule, cell) from None
        if all(-2 ** 63 <= v < 2 ** 63 for v in values):
            return np.array(values, dtype=np.int64)
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out

    def to_frame(self) -> "pd.DataFrame":
        """The table as a DataFrame of strings (columns in header order)."""
        import pandas as pd

        return pd.DataFrame(list(self.rows) if self.rows else None, columns=list(self.header),
                            dtype=str)


def _same_number(a: str, b: str) -> bool:
    """Whether two texts write the same number exactly (``0.10`` and ``0.1``; not ``1e400`` and
    ``inf``); False when either is not a number."""
    from decimal import Decimal, InvalidOperation

    try:
        return Decimal(a) == Decimal(b)
    except (InvalidOperation, ValueError):
        return False


def _is_missing(v: Any) -> bool:
    """None, NaN, pandas' NA or NaT: an empty cell."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return True
    import pandas as pd

    try:
        return bool(pd.isna(v)) if pd.api.types.is_scalar(v) else False
    except (TypeError, ValueError):
        return False


def _check_header(header: Sequence[str], source: str | None, line: int | None) -> None:
    seen: dict[str, int] = {}
    for j, name in enumerate(header):
        if not name:
            raise InputError(f"column {j + 1} of the header has no name; every column needs one",
                             file=source, line=line)
        if any(_is_control(ch) for ch in name):
            hint = (" (a tab: the file seems to be tab-separated; subsel reads comma-separated files)"
                    if "\t" in name and len(header) == 1 else "")
            raise InputError(f"column {j + 1} of the header holds a control character{hint}",
                             file=source, line=line, value=name)
        if name in seen:
            raise InputError(f"column {j + 1} repeats the header {name!r} of column {seen[name] + 1}",
                             file=source, line=line)
        seen[name] = j


def _is_control(ch: str) -> bool:
    o = ord(ch)
    return o < 0x20 or 0x7F <= o < 0xA0


def _physical_lines(text: str) -> Iterable[str]:
    """Lines of ``text`` with their ends kept; CRLF, CR and LF all end a line."""
    return io.StringIO(text, newline="")


def read_csv(source: Any, *, name: str | None = None, what: str = "CSV") -> CSVTable:
    """Read a CSV file or stream into a :class:`CSVTable` with the line of every row.

    The first non-blank line is the header.  Blank lines are skipped everywhere; the line numbers
    stay those of the file.  Fields may be quoted (``"Smith, Inc."``; a quoted field may span
    lines); spaces around unquoted cells are dropped.

    Parameters
    ----------
    source : str, path-like or readable stream
        A path, or an open stream (``sys.stdin``); both are read as bytes and decoded as UTF-8.
    name : str, optional
        Name used in messages (default: the path as given, or the stream's ``name``).
    what : str, default "CSV"
        What the file should be, for the message on an empty file (``"agents CSV"``).

    Returns
    -------
    CSVTable

    Raises
    ------
    InputError
        Not UTF-8, a NUL byte, an empty file, malformed quoting, an empty, repeated or
        control-character header name, or a row with more or fewer fields than the header — each
        naming the file and the line.
    OSError
        The file cannot be opened.

    Examples
    --------
    >>> import io
    >>> t = read_csv(io.StringIO("name,q\\r\\n\\r\\n\\"a\\nb\\",1\\r\\nc,2\\r\\n"))
    >>> t.header, t.rows, t.lines
    (('name', 'q'), (('a\\nb', '1'), ('c', '2')), (3, 5))
    """
    label, text = read_text(source, name=name)
    reader = csv.reader(_physical_lines(text), strict=True, skipinitialspace=True)
    header: tuple[str, ...] | None = None
    header_line = 1
    rows: list[tuple[str, ...]] = []
    lines: list[int] = []
    start = 1
    while True:
        try:
            rec = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(f"not a readable CSV ({exc})", file=label, line=start) from None
        line, start = start, reader.line_num + 1
        if not rec or (len(rec) == 1 and not rec[0].strip()):
            continue  # a blank line
        cells = tuple(map(str.strip, rec))
        if header is None:
            _check_header(cells, label, line)
            header, header_line = cells, line
            continue
        if len(cells) != len(header):
            raise InputError(f"{len(cells)} field{'s' if len(cells) != 1 else ''} but the header "
                             f"has {len(header)} ({','.join(header)})", file=label, line=line)
        rows.append(cells)
        lines.append(line)
    if header is None:
        article = "an" if what[:1].lower() in "aeiou" else "a"
        raise InputError(f"the file is empty; expected {article} {what} with a header line", file=label)
    return CSVTable(label, header, tuple(rows), tuple(lines), header_line)


# ------------------------------------------------------------------------------------- writing
def _default_mode(path: Path) -> int:
    """The mode a plainly created file would get: the existing file's, else 0o666 minus the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _user_error(exc: OSError, path: Path, tmp: str | None) -> OSError:
    """``exc`` again, of the same class, but naming ``path`` instead of the temporary file."""
    if tmp is not None and tmp not in str(exc) and exc.filename not in (None, tmp):
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


def atomic_write_with(path: str | os.PathLike[str], writer: Callable[[str], object]) -> None:
    """Call ``writer(tmp_path)`` on a temporary file next to ``path``, then rename it into place.

    The temporary file keeps the destination's suffix (some writers choose the format by it) and
    gets the permissions an ordinary new file would have.  It is synced to the disk (``fsync``)
    before the rename, and the folder after it, so that the write is durable.  Errors name ``path``, never the
    temporary file; on any error or interruption the temporary file is removed.  A symbolic link is
    followed: its target is replaced and the link kept.  A destination that exists and is not a
    regular file (a device such as ``/dev/null``, a named pipe) is written through, never replaced.

    Raises
    ------
    IsADirectoryError
        ``path`` is an existing folder or ends in a path separator (``out/``).
    FileNotFoundError
        The folder of ``path`` does not exist.
    OSError
        The folder is not writable (``PermissionError``) or another system error; the destination
        is then left untouched.
    """
    raw = os.fspath(path)
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder; give a file name", raw)
    if raw.endswith(("/", os.sep)):
        raise IsADirectoryError(errno.EISDIR, "ends in a path separator (a folder); give a file name",
                                raw)
    if path.exists() and not path.is_file():
        _write_through(path, writer)
        return
    parent = path.parent
    if not parent.is_dir():
        if parent.exists():
            raise NotADirectoryError(errno.ENOTDIR, f"cannot write: {parent} is not a folder", raw)
        raise FileNotFoundError(errno.ENOENT, f"cannot write: folder {parent} does not exist", raw)
    import tempfile  # here, not at load: only a write needs it (start-up of a command that reads)

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix or ".tmp",
                                   dir=parent)
    except OSError as exc:
        if exc.errno == errno.ENOENT:  # the folder exists, yet no file can be made in it (/proc, /sys)
            raise OSError(exc.errno, f"cannot create a file in folder {parent} (a special file system?)",
                          str(path)) from None
        raise _user_error(exc, path, None) from None
    os.close(fd)
    try:
        writer(tmp)
        os.chmod(tmp, _default_mode(path))
        _fsync(tmp)  # the content is on disk before the name points at it
        os.replace(tmp, path)
        _fsync(parent, folder=True)  # and the rename itself survives a power cut
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
            raise _user_error(exc, path, tmp) from exc
        raise


def _fsync(path: str | os.PathLike[str], folder: bool = False) -> None:
    """Flush ``path`` (a file, or a folder's entries) to the disk.

    The durable-rename pattern of SQLite's journal and of ``python-atomicwrites``: sync the
    temporary file before the rename, so that a power cut cannot leave the new name on an empty
    or partial file, then the folder, so that the rename itself is kept.  A file system that
    cannot sync a folder (``EINVAL``, ``ENOTSUP``: some network and FUSE file systems) is left at
    that.
    """
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if folder else 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    except OSError as exc:
        if not folder or exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _write_through(path: Path, writer: Callable[[str], object]) -> None:
    """Write to a special file (device, named pipe) in place: render to a temporary file, copy."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        tmp = os.path.join(folder, "out" + (path.suffix or ".tmp"))
        writer(tmp)
        try:
            with open(tmp, "rb") as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except OSError as exc:
            raise _user_error(exc, path, tmp) from exc


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    Parameters
    ----------
    path : str or path-like
        Destination; its folder must exist.
    text : str
        Content.

    Raises
    ------
    OSError
        When the folder is missing or not writable; the destination is then left untouched.
    """
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding=encoding, newline="") as fh:
            fh.write(text)

    atomic_write_with(path, write)


def stale_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Temporary files :func:`atomic_write_with` left next to ``path`` when killed mid-write.

    They are named ``.<stem>.<8 random characters><suffix>`` in the folder of ``path``.  Only
    call this while no other writer of ``path`` can be running (e.g. under a lock on it).

    Returns
    -------
    list of Path
        The leftovers, sorted (possibly empty).
    """
    path = Path(path)
    pattern = re.compile(rf"^\.{re.escape(path.stem)}\.[A-Za-z0-9_]{{8}}{re.escape(path.suffix or '.tmp')}$")
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return []
    return sorted(p for p in entries if pattern.match(p.name) and p.is_file())
