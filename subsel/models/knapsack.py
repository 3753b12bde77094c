"""Readers for the two common plain-text 0-1 knapsack benchmark formats.

The instances test the reduction of subset selection to the 0-1 knapsack (Pisinger, Operations
Research 45(5), 1997; Martello, Pisinger, Toth, Management Science 45(3), 1999).

Format (a), "n W" (e.g. the low-dimensional instances of the knapsack literature)::

    n W
    p_1 w_1
    ...
    p_n w_n
    [x_1 ... x_n]          optional trailing line: an optimal 0/1 vector

Line ends may be CRLF, profits, weights and the capacity may be real numbers, and the optimum often
comes in a separate file holding one number (:func:`read_optimum`).  Integers are read exactly
(Python ints, never through a float): an instance whose numbers are all integers has int64
``values`` and ``weights`` and an int ``capacity``, each at most ``2^62`` with the profits and the
weights each summing to at most ``2^62`` (:data:`~subsel.models.MAX_KNAPSACK_TOTAL`); an
instance with a real number has float64 arrays, and its integers must then stay within ``2^53``.

Format (b), the output of Pisinger's instance generators (several instances per file)::

    knapPI_1_50_1000_1
    n 50
    c 995
    z 8373
    time 0.00
    1,94,485,0
    ...                    rows "i,p,w,x" (x: the optimal 0/1 choice)
    -----                  a line of dashes ends an instance

Every instance converts to a subset-selection problem with
:meth:`KnapsackInstance.to_problem` (:meth:`SubsetSelectionProblem.from_knapsack`), whose optimal
utility equals the knapsack optimum.
"""
from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._files import _MAX_INT_DIGITS, InputError, parse_float, parse_integer, read_text
from ._rules import MAX_EXACT_INT, MAX_KNAPSACK_TOTAL

if TYPE_CHECKING:
    from .problem import SubsetSelectionProblem

__all__ = ["KnapsackInstance", "read_knapsack", "read_optimum"]


@dataclass(frozen=True, eq=False)
class KnapsackInstance:
    """One 0-1 knapsack instance: maximise ``p @ x`` subject to ``w @ x <= W``, ``x`` in {0, 1}^m.

    Attributes
    ----------
    name : str
        Instance name (the file's stem for format (a); the header line for format (b)).
    values : ndarray of int64 or float, shape (m,)
        Profits ``p_j >= 0``: int64 when every number of the instance is an integer, else float.
    weights : ndarray of int64 or float, shape (m,)
        Weights ``w_j >= 0``, likewise.
    capacity : int or float
        ``W >= 0``: an int when every number of the instance is an integer.
    optimum : int, float or None
        The known optimal value, when the file (or an optimum file) states one (an int when
        written as one).
    solution : ndarray of int, shape (m,) or None
        A known optimal 0/1 vector, when the file states one.
    file : str or None
        The file's name as given (``<stdin>`` for standard input), for messages about its content.
    lines : tuple of int, shape (m,), or None
        The 1-based physical line of each item in the file.
    capacity_line : int or None
        The line stating the capacity.
    columns : tuple of str
        The file's names of the profit, weight and capacity fields: ``("p", "w", "W")`` in format
        (a), ``("p", "w", "c")`` in format (b).
    """

    name: str
    values: np.ndarray
    weights: np.ndarray
    capacity: int | float
    optimum: int | float | None = None
    solution: np.ndarray | None = None
    file: str | None = None
    lines: tuple[int, ...] | None = None
    capacity_line: int | None = None
    columns: tuple[str, str, str] = ("p", "w", "W")

    @property
    def m(self) -> int:
        """Number of items."""
        return int(self.values.size)

    def to_problem(self) -> SubsetSelectionProblem:
        """The subset-selection encoding (:meth:`SubsetSelectionProblem.from_knapsack`).

        Agent 0 is the anchor, agent ``j + 1`` item ``j``.
        """
        from .problem import SubsetSelectionProblem  # here, not at load: reading a knapsack file needs no problem

        return SubsetSelectionProblem.from_knapsack(self.values, self.weights, self.capacity)


#: A whole number of at most 18 ASCII digits (below 2^62 = 4.6e18, so within every limit of
#: :func:`_number`): read with ``int`` directly, the bulk of every benchmark file.
_PLAIN_INTEGER = re.compile(r"[+-]?[0-9]{1,18}", re.ASCII)


def _bad(path: Path | _Stream, line: int, column: str | None, rule: str, token: str) -> InputError:
    """The one error of a knapsack file: file, line, field (a column, or ``None`` when ``rule``
    names the field itself) and the text as written."""
    return InputError(rule, file=str(path), line=line, column=column, value=token)


def _number(token: str, path: Path | _Stream, line: int, column: str | None, what: str = "",
            limit: int | None = MAX_KNAPSACK_TOTAL) -> int | float:
    """A real field (profit, weight, capacity, optimum): an exact int when it is written as a whole
    number (``3``, ``3.0``, ``3e2``; at most ``limit`` = 2^62 in magnitude, no limit for the
    capacity), else a float.  ``what`` prefixes the rule when the field is not a column
    (``"c (capacity) "``).

    A number that float64 would round onto an integer although it has a fractional part
    (``2.0000000000000001``) is refused: read as a float it would silently become integer data.
    """
    if _PLAIN_INTEGER.fullmatch(token):  # the common case, read at once: exact, and within 2^62
        return int(token)
    try:
        v = parse_float(token)  # a decimal number: not Python's "1_0"
    except ValueError:
        raise _bad(path, line, column, f"{what}must be a number", token) from None
    if not math.isfinite(v):
        if limit is None and not math.isnan(v):  # a capacity beyond float64, written as an integer
            try:
                return parse_integer(token)
            except ValueError as exc:
                if "digits" in str(exc):
                    shown = token if len(token) <= 40 else f"{token[:20]}... ({len(token)} characters)"
                    raise _bad(path, line, column, f"{what}must have at most {_MAX_INT_DIGITS + 1} digits (every "
                               "capacity from 2^62 up holds all the items)", shown) from None
        raise _bad(path, line, column, f"{what}must be a finite number", token)
    if not v.is_integer():
        return v
    try:  # exact: "9007199254740993" is not 2^53, "2.0000000000000001" is not 2
        exact = parse_integer(token)
    except ValueError:
        raise _bad(path, line, column, f"{what}has a fractional part below float64's resolution (it "
                   f"would be read as the integer {int(v)})", token) from None
    if limit is not None and abs(exact) > limit:
        raise _bad(path, line, column, f"{what}must be at most 2^62 = {MAX_KNAPSACK_TOTAL} (beyond 64-bit "
                   "integer sums)", token)
    return exact


def _count(token: str, path: Path | _Stream, line: int, column: str | None, what: str = "",
           least: int = 1) -> int:
    """An integer field of at least ``least``, 1 or 0 (an item index: 1; an item count: 0), read exactly:
    ``3`` and ``3.0``, not ``3.5``."""
    try:
        n = parse_integer(token)
    except ValueError:
        n = least - 1
    if n < least:
        kind = "a positive integer" if least == 1 else "a non-negative integer"
        raise _bad(path, line, column, f"{what}must be {kind}", token)
    return n


def _arrays(path: Any, lines: list[int], p: list[int | float], w: list[int | float], W: int | float,
            capacity_line: int, capacity_column: str | None) -> tuple[np.ndarray, np.ndarray, int | float]:
    """The instance's numbers as arrays: int64 and an int capacity when all are integers (their sums
    checked against 2^62, naming the line where one crosses), else float64 (each integer within
    2^53, the limit of exact float64 arithmetic)."""
    if all(type(v) is int for v in p) and all(type(v) is int for v in w) and type(W) is int:
        for column, values in (("p", p), ("w", w)):
            total = 0
            for line, v in zip(lines, values):
                total += int(v)
                if total > MAX_KNAPSACK_TOTAL:
                    raise ValueError(f"{path}: line {line}, column '{column}': the {column} values up to this "
                                     f"line sum to {total} > 2^62 = {MAX_KNAPSACK_TOTAL}, beyond 64-bit "
                                     "integer sums")
        return np.array(p, dtype=np.int64), np.array(w, dtype=np.int64), W
    # Real-valued data: every number becomes a float64, so an integer must be one exactly.
    places: list[tuple[int, str | None, int | float]] = [
        (line, column, v) for column, values in (("p", p), ("w", w)) for line, v in zip(lines, values)]
    for line, where, v in [*places, (capacity_line, capacity_column, W)]:
        if type(v) is int and abs(v) > MAX_EXACT_INT:
            raise _bad(path, line, where, f"an integer above 2^53 = {MAX_EXACT_INT} in an instance with "
                       "real numbers is beyond exact float64 arithmetic", str(v))
    return np.array(p, dtype=float), np.array(w, dtype=float), float(W)


class _Stream:
    """An open stream (e.g. ``sys.stdin``) standing in for a path: printable name, readable once."""

    def __init__(self, stream: Any):
        self.stream = stream
        self.name = str(getattr(stream, "name", "<stream>"))
        self.stem = self.name.strip("<>") or "stream"

    def read_bytes(self) -> bytes:
        data = self.stream.read()
        return data.encode("utf-8") if isinstance(data, str) else data

    def __str__(self) -> str:
        return self.name


def _as_source(path: Any) -> Path | _Stream:
    return _Stream(path) if hasattr(path, "read") else Path(path)


def _lines(path: Path | _Stream) -> list[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers (CRLF and CR line ends accepted)."""
    _, text = read_text(path.stream if isinstance(path, _Stream) else path, name=str(path))
    return [(i, s.strip()) for i, s in enumerate(io.StringIO(text, newline=""), start=1) if s.strip()]


def read_optimum(path: str | Path | Any) -> int | float:
    """Read a file holding one number, the optimum of a knapsack instance (an exact int when it is
    written as a whole number).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        The file does not hold exactly one number, or it is negative (naming the file and line).
    """
    path = _as_source(path)
    lines = _lines(path)
    tokens = [(i, t) for i, s in lines for t in s.split()]
    if len(tokens) != 1:
        where = f"line {tokens[1][0]}: " if len(tokens) > 1 else ""
        raise ValueError(f"{path}: {where}expected exactly one number (the optimum); the file holds "
                         f"{len(tokens)} words")
    value = _number(tokens[0][1], path, tokens[0][0], None, "the optimum ")
    if value < 0:   # (profits are >= 0: so is every optimum)
        raise _bad(path, tokens[0][0], None, "the optimum must be >= 0", tokens[0][1])
    return value


def _item(tokens: list[str], path: Path | _Stream, line: int) -> tuple[int | float, int | float]:
    """Profit and weight of one item line (``tokens``: the two fields as written)."""
    p = _number(tokens[0], path, line, "p")
    w = _number(tokens[1], path, line, "w")
    if p < 0:
        raise _bad(path, line, "p", "profit must be >= 0", tokens[0])
    if w < 0:
        raise _bad(path, line, "w", "weight must be >= 0", tokens[1])
    return p, w


def _solution_sums(p: np.ndarray, w: np.ndarray, W: int | float, solution: np.ndarray
                   ) -> tuple[int | float, int | float, bool]:
    """Weight and value of a stated 0/1 solution (exact integer sums on integer data) and whether it
    is heavier than the capacity ``W``."""
    if p.dtype.kind == "i":  # exact integer sums
        weight: int | float = sum(int(v) for v in w[solution == 1].tolist())
        value: int | float = sum(int(v) for v in p[solution == 1].tolist())
        return weight, value, weight > W
    weight, value = float(w @ solution), float(p @ solution)
    return weight, value, weight > W * (1 + 1e-12) + 1e-9


#: Item lines ``p w`` of plain whole numbers (at most 18 digits, no sign: all valid, below 2^62).
_PLAIN_ITEMS = re.compile(r"(?:[0-9]{1,18}[ \t]+[0-9]{1,18}\n)*[0-9]{1,18}[ \t]+[0-9]{1,18}", re.ASCII)


def _plain_items(items: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray] | None:
    """Profits and weights (int64) of item lines that are all plain whole numbers whose sums stay
    within 2^62, read at once; ``None`` for any other data (read line by line, which names the
    first bad value or the line where a sum crosses 2^62)."""
    body = "\n".join(s for _, s in items)
    if not _PLAIN_ITEMS.fullmatch(body):
        return None
    values = np.array(list(map(int, body.split())), dtype=np.int64).reshape(-1, 2)
    if int(values.max()) > MAX_KNAPSACK_TOTAL // len(items):  # a sum might pass 2^62: checked line by line
        return None
    return values[:, 0].copy(), values[:, 1].copy()


def _read_format_a(path: Path | _Stream, lines: list[tuple[int, str]]) -> KnapsackInstance:
    ln, head = lines[0]
    toks = head.split()
    if len(toks) != 2:
        raise ValueError(f"{path}: line {ln}: expected 'n W'; got {head!r}")
    n = _count(toks[0], path, ln, "n", least=0)
    W = _number(toks[1], path, ln, "W", limit=None)
    if W < 0:
        raise _bad(path, ln, "W", "capacity must be >= 0", toks[1])
    if len(lines) < n + 1:
        k = len(lines) - 1
        raise _bad(path, ln, "n", f"the file ends after {k} item line{'s' if k != 1 else ''}, fewer than n",
                   toks[0])
    plain = _plain_items(lines[1:n + 1]) if type(W) is int else None
    if plain is not None:
        p, w = plain
    else:  # read item by item, naming the line, column and text of the first bad one
        pl: list[int | float] = []
        wl: list[int | float] = []
        for i, s in lines[1:n + 1]:
            t = s.split()
            if len(t) != 2:
                raise ValueError(f"{path}: line {i}: expected two numbers 'p w'; got {s!r}")
            pj, wj = _item(t, path, i)
            pl.append(pj)
            wl.append(wj)
        p, w, W = _arrays(path, [i for i, _ in lines[1:n + 1]], pl, wl, W, ln, "W")
    solution = None
    optimum: int | float | None = None
    rest = lines[n + 1:]
    if rest:
        i, s = rest[0]
        t = s.split()
        if len(t) == 2 and n != 2:  # an item line, not the vector (for n = 2, read as the vector)
            extra = sum(1 for _, r in rest if len(r.split()) == 2)
            raise _bad(path, ln, "n", f"the file has {n + extra} item lines (from line {lines[1][0]}), more "
                       "than n; correct n or remove the extra lines", toks[0])
        if len(t) != n:
            raise ValueError(f"{path}: line {i}: after the {n} items only one line with an optimal "
                             f"0/1 vector of {n} entries may follow; got {s[:40]!r}")
        bad_entry = next((k for k, v in enumerate(t) if v not in ("0", "1")), None)
        if bad_entry is not None:
            raise ValueError(f"{path}: line {i}: entry {bad_entry + 1} of the optimal 0/1 vector must be 0 "
                             f"or 1; got {t[bad_entry][:40]!r}")
        if len(rest) > 1:
            i2, s2 = rest[1]
            raise ValueError(f"{path}: line {i2}: nothing may follow the optimal 0/1 vector (line {i}); "
                             f"got {s2[:40]!r}")
        solution = np.array([int(v) for v in t], dtype=np.int64)
        weight, optimum, heavy = _solution_sums(p, w, W, solution)
        if heavy:
            raise ValueError(f"{path}: line {i}: the 0/1 vector weighs {weight:g} > W = {W:g}")
    return KnapsackInstance(path.stem, p, w, W, optimum, solution, file=str(path),
                            lines=tuple(i for i, _ in lines[1:n + 1]), capacity_line=ln)


_KEY = re.compile(r"^(n|c|z|time)\s+(\S+)$")


def _read_format_b(path: Path | _Stream, lines: list[tuple[int, str]]) -> list[KnapsackInstance]:
    instances: list[KnapsackInstance] = []
    block: list[tuple[int, str]] = []
    blocks = []
    for i, s in lines:
        if re.fullmatch(r"-{3,}", s):
            if block:
                blocks.append(block)
            block = []
        else:
            block.append((i, s))
    if block:
        blocks.append(block)
    names: dict[str, int] = {}   # instance name -> the line its block starts at
    for block in blocks:
        name = None
        keys: dict[str, tuple[int, str]] = {}
        rows: list[tuple[int, list[str]]] = []
        for i, s in block:
            m = _KEY.match(s)
            if m:
                if m.group(1) in keys:
                    raise _bad(path, i, None, f"a second '{m.group(1)}' line in one instance (the first is "
                                              f"line {keys[m.group(1)][0]})", s)
                keys[m.group(1)] = (i, m.group(2))
            elif "," in s:
                rows.append((i, [t.strip() for t in s.split(",")]))
            elif name is None and not keys and not rows:
                name = s
            else:
                if name is not None and not keys and not rows and len(name.split()) == 2 \
                        and len(s.split()) == 2 and block is blocks[0]:
                    # Two words on line 1, then two on line 2: a format (a) file whose 'n W' header
                    # is not two numbers (read as an instance name).
                    head_line = block[0][0]
                    raise ValueError(f"{path}: line {head_line}: expected 'n W' (the item count and the "
                                     f"capacity, two numbers); got {name[:40]!r}")
                raise ValueError(f"{path}: line {i}: expected 'n N', 'c W', 'z OPT', 'time T' or an "
                                 f"'i,p,w,x' row; got {s[:40]!r}")
        first = block[0][0]
        for key in ("n", "c"):
            if key not in keys:
                raise ValueError(f"{path}: line {first}: the instance starting here has no '{key}' line")
        li, nv = keys["n"]
        n = _count(nv, path, li, None, "'n' (the item count) ", least=0)
        li, cv = keys["c"]
        W = _number(cv, path, li, None, "'c' (the capacity) ", limit=None)
        if W < 0:
            raise _bad(path, li, None, "'c' (the capacity) must be >= 0", cv)
        optimum = None
        if "z" in keys:
            optimum = _number(keys["z"][1], path, keys["z"][0], None, "'z' (the optimum) ")
        if len(rows) != n:
            raise ValueError(f"{path}: line {keys['n'][0]}: instance {name or len(instances)} states n = {n} "
                             f"but has {len(rows)} item rows")
        pl, wl = [], []
        x = np.zeros(n, dtype=np.int64)
        have_x = True
        index_line: dict[int, int] = {}   # item index -> its line
        for j, (i, t) in enumerate(rows):
            if len(t) not in (3, 4):
                raise ValueError(f"{path}: line {i}: expected 'i,p,w,x'; got {','.join(t)!r}")
            index = _count(t[0], path, i, "i")
            if index in index_line:
                raise _bad(path, i, "i", f"item index {index} repeats line {index_line[index]}", t[0])
            index_line[index] = i
            pj, wj = _item(t[1:3], path, i)
            pl.append(pj)
            wl.append(wj)
            if len(t) == 4:
                if t[3] not in ("0", "1"):
                    raise ValueError(f"{path}: line {i}, column 'x': must be 0 or 1; got {t[3]!r}")
                x[j] = int(t[3])
            else:
                have_x = False
        if len({len(t) for _, t in rows}) > 1:
            first_short = next(i for i, t in rows if len(t) == 3)
            raise ValueError(f"{path}: line {first_short}: this row has no 'x' column but other rows of the "
                             "instance have one; give 'x' on every row or on none")
        p, w, W = _arrays(path, [i for i, _ in rows], pl, wl, W, li, None)
        if have_x:
            weight, value, heavy = _solution_sums(p, w, W, x)
            if heavy:
                raise ValueError(f"{path}: line {rows[0][0]}: the selection of column 'x' weighs {weight:g} > "
                                 f"c = {W:g}")
            if optimum is not None and value != optimum:
                raise ValueError(f"{path}: line {keys['z'][0]}: 'z' (the optimum) states {optimum:g} but the "
                                 f"selection of column 'x' has value {value:g}")
        inst_name = name or f"{path.stem}_{len(instances)}"
        if inst_name in names:
            raise ValueError(f"{path}: line {first}: a second instance named {inst_name!r} (the first starts "
                             f"at line {names[inst_name]})")
        names[inst_name] = first
        instances.append(KnapsackInstance(inst_name, p, w, W, optimum,
                                          x if have_x else None, file=str(path),
                                          lines=tuple(i for i, _ in rows), capacity_line=li,
                                          columns=("p", "w", "c")))
    if not instances:
        raise ValueError(f"{path}: no instance found")
    return instances


def read_knapsack(path: str | Path | Any, optimum_path: str | Path | None = None
                  ) -> list[KnapsackInstance]:
    """Read a 0-1 knapsack benchmark file in format (a) ``n W`` or (b) Pisinger's generator output.

    The format is recognised from the first non-blank line: two numbers mean format (a).

    Parameters
    ----------
    path : str, path-like or readable stream
        The instance file, or an open stream (e.g. ``sys.stdin``; messages then name its ``name``).
    optimum_path : str or path-like, optional
        A file holding one number, the known optimum (format (a) files often come with one); it
        overrides the optimum stated in the file.  Only for files holding one instance.

    Returns
    -------
    list of KnapsackInstance
        One instance for format (a); one or more for format (b).  An item count of 0 is an
        instance with no items (``m = 0``), as :func:`subsel.knapsack.solve_knapsack` accepts one.

    Raises
    ------
    FileNotFoundError
        A file does not exist.
    ValueError
        Bad content, naming the file and the line (and column where there is one): besides a bad
        number, in format (b) a key line given twice in one instance, an item index that is not a
        positive integer or repeats, an ``x`` column on some rows only, a stated selection ``x``
        heavier than ``c`` or whose value is not ``z``, and two instances of one name.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.txt"
    >>> _ = f.write_bytes(b"3 5\\r\\n4 3\\r\\n3 2\\r\\n2 2\\r\\n")
    >>> inst = read_knapsack(f)[0]
    >>> inst.m, inst.capacity, inst.optimum, inst.values.dtype.name
    (3, 5, None, 'int64')
    """
    path = _as_source(path)
    lines = _lines(path)
    if not lines:
        raise ValueError(f"{path}: the file is empty")
    first = lines[0][1].split()
    numeric = all(re.fullmatch(r"[-+0-9.eE]+|nan|inf|infinity", t, re.IGNORECASE) for t in first)
    if numeric and len(first) != 2:   # numbers only: a header of format (a) with the wrong count
        raise ValueError(f"{path}: line {lines[0][0]}: expected 'n W' (the item count and the capacity); "
                         f"got {lines[0][1][:40]!r}")
    is_a = numeric
    instances = [_read_format_a(path, lines)] if is_a else _read_format_b(path, lines)
    if optimum_path is not None:
        if len(instances) != 1:
            raise ValueError(f"{optimum_path}: an optimum file needs a one-instance knapsack file; "
                             f"{path} holds {len(instances)}")
        opt = read_optimum(optimum_path)
        inst = instances[0]
        instances = [replace(inst, optimum=opt)]
    return instances
