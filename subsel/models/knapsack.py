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
comes in a separate file holding one number (:func:`read_optimum`).

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .io import read_text
from .problem import SubsetSelectionProblem

__all__ = ["KnapsackInstance", "read_knapsack", "read_optimum"]


@dataclass(frozen=True, eq=False)
class KnapsackInstance:
    """One 0-1 knapsack instance: maximise ``p @ x`` subject to ``w @ x <= W``, ``x`` in {0, 1}^m.

    Attributes
    ----------
    name : str
        Instance name (the file's stem for format (a); the header line for format (b)).
    values : ndarray of float, shape (m,)
        Profits ``p_j >= 0``.
    weights : ndarray of float, shape (m,)
        Weights ``w_j >= 0``.
    capacity : float
        ``W >= 0``.
    optimum : float or None
        The known optimal value, when the file (or an optimum file) states one.
    solution : ndarray of int, shape (m,) or None
        A known optimal 0/1 vector, when the file states one.
    """

    name: str
    values: np.ndarray
    weights: np.ndarray
    capacity: float
    optimum: float | None = None
    solution: np.ndarray | None = None

    @property
    def m(self) -> int:
        """Number of items."""
        return int(self.values.size)

    def to_problem(self) -> SubsetSelectionProblem:
        """The subset-selection encoding (:meth:`SubsetSelectionProblem.from_knapsack`).

        Agent 0 is the anchor, agent ``j + 1`` item ``j``.
        """
        return SubsetSelectionProblem.from_knapsack(self.values, self.weights, self.capacity)


#: Largest integer datum read exactly (every integer up to 2^53 is a float64).
MAX_EXACT_INT = 2 ** 53


def _number(token: str, path: Path | _Stream, line: int, what: str) -> float:
    try:
        v = float(token)
    except ValueError:
        raise ValueError(f"{path}: line {line}: {what} must be a number; got {token!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{path}: line {line}: {what} must be a finite number; got {token!r}")
    exact = int(token) if re.fullmatch(r"[+-]?\d+", token) else (int(v) if v.is_integer() else None)
    if exact is not None and abs(exact) > MAX_EXACT_INT:
        raise ValueError(f"{path}: line {line}, {what}: an integer above 2^53 = {MAX_EXACT_INT} is beyond "
                         f"exact float64 arithmetic; got {token!r}")
    return v


def _check_exact_range(path: Any, lines: list[int], p: np.ndarray, w: np.ndarray) -> None:
    """Integer data: refuse a running sum of profits or weights above 2^53 (beyond exact float64
    arithmetic), naming the line where it crosses.  The limits of the subset-selection encoding
    (``W + 3 max w <= 2^29``) are checked when an instance is encoded
    (:meth:`KnapsackInstance.to_problem`), not here: :func:`subsel.solvers.solve_knapsack` solves
    larger integer instances directly."""
    if not (all(float(v).is_integer() for v in p) and all(float(v).is_integer() for v in w)):
        return  # real-valued data: encoded as floats (documented tolerance)
    for column, values in (("p", p), ("w", w)):
        total = 0
        for line, v in zip(lines, values.tolist()):
            total += int(v)
            if total > MAX_EXACT_INT:
                raise ValueError(f"{path}: line {line}, column '{column}': the {column} values up to this "
                                 f"line sum to {total} > 2^53 = {MAX_EXACT_INT}, beyond exact float64 "
                                 "arithmetic")


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


def read_optimum(path: str | Path | Any) -> float:
    """Read a file holding one number, the optimum of a knapsack instance.

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        The file does not hold exactly one number (naming the file and line).
    """
    path = _as_source(path)
    lines = _lines(path)
    tokens = [(i, t) for i, s in lines for t in s.split()]
    if len(tokens) != 1:
        where = f"line {tokens[1][0]}: " if len(tokens) > 1 else ""
        raise ValueError(f"{path}: {where}expected exactly one number (the optimum); got {len(tokens)} tokens")
    return _number(tokens[0][1], path, tokens[0][0], "the optimum")


def _check_item(p: float, w: float, path: Path | _Stream, line: int) -> None:
    if p < 0:
        raise ValueError(f"{path}: line {line}, column 'p': profit must be >= 0; got {p:g}")
    if w < 0:
        raise ValueError(f"{path}: line {line}, column 'w': weight must be >= 0; got {w:g}")


def _read_format_a(path: Path | _Stream, lines: list[tuple[int, str]]) -> KnapsackInstance:
    ln, head = lines[0]
    toks = head.split()
    if len(toks) != 2:
        raise ValueError(f"{path}: line {ln}: expected 'n W'; got {head!r}")
    nf = _number(toks[0], path, ln, "n")
    if nf < 1 or nf != round(nf):
        raise ValueError(f"{path}: line {ln}, column 'n': must be a positive integer; got {toks[0]!r}")
    n = int(nf)
    W = _number(toks[1], path, ln, "W")
    if W < 0:
        raise ValueError(f"{path}: line {ln}, column 'W': capacity must be >= 0; got {toks[1]!r}")
    if len(lines) < n + 1:
        raise ValueError(f"{path}: expected {n} item lines after line {ln}; the file ends after "
                         f"{len(lines) - 1}")
    p = np.empty(n)
    w = np.empty(n)
    for j, (i, s) in enumerate(lines[1:n + 1]):
        t = s.split()
        if len(t) != 2:
            raise ValueError(f"{path}: line {i}: expected two numbers 'p w'; got {s!r}")
        p[j] = _number(t[0], path, i, "column 'p'")
        w[j] = _number(t[1], path, i, "column 'w'")
        _check_item(p[j], w[j], path, i)
    solution = None
    optimum = None
    rest = lines[n + 1:]
    if rest:
        i, s = rest[0]
        t = s.split()
        if len(rest) > 1 or len(t) != n or any(v not in ("0", "1") for v in t):
            raise ValueError(f"{path}: line {i}: after the {n} items only one line with an optimal "
                             f"0/1 vector of {n} entries may follow; got {s[:40]!r}")
        solution = np.array([int(v) for v in t], dtype=np.int64)
        if float(w @ solution) > W * (1 + 1e-12) + 1e-9:
            raise ValueError(f"{path}: line {i}: the 0/1 vector weighs {float(w @ solution):g} > W = {W:g}")
        optimum = float(p @ solution)
    _check_exact_range(path, [i for i, _ in lines[1:n + 1]], p, w)
    return KnapsackInstance(path.stem, p, w, W, optimum, solution)


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
    for block in blocks:
        name = None
        keys: dict[str, tuple[int, str]] = {}
        rows: list[tuple[int, list[str]]] = []
        for i, s in block:
            m = _KEY.match(s)
            if m:
                keys[m.group(1)] = (i, m.group(2))
            elif "," in s:
                rows.append((i, [t.strip() for t in s.split(",")]))
            elif name is None and not keys and not rows:
                name = s
            else:
                raise ValueError(f"{path}: line {i}: expected 'n N', 'c W', 'z OPT', 'time T' or an "
                                 f"'i,p,w,x' row; got {s[:40]!r}")
        first = block[0][0]
        for key in ("n", "c"):
            if key not in keys:
                raise ValueError(f"{path}: line {first}: the instance starting here has no '{key}' line")
        li, nv = keys["n"]
        nf = _number(nv, path, li, "n")
        if nf < 1 or nf != round(nf):
            raise ValueError(f"{path}: line {li}: n must be a positive integer; got {nv!r}")
        n = int(nf)
        li, cv = keys["c"]
        W = _number(cv, path, li, "c (capacity)")
        if W < 0:
            raise ValueError(f"{path}: line {li}: capacity must be >= 0; got {cv!r}")
        optimum = None
        if "z" in keys:
            optimum = _number(keys["z"][1], path, keys["z"][0], "z (optimum)")
        if len(rows) != n:
            raise ValueError(f"{path}: line {keys['n'][0]}: instance {name or len(instances)} states n = {n} "
                             f"but has {len(rows)} item rows")
        p, w = np.empty(n), np.empty(n)
        x = np.zeros(n, dtype=np.int64)
        have_x = True
        for j, (i, t) in enumerate(rows):
            if len(t) not in (3, 4):
                raise ValueError(f"{path}: line {i}: expected 'i,p,w,x'; got {','.join(t)!r}")
            p[j] = _number(t[1], path, i, "column 'p'")
            w[j] = _number(t[2], path, i, "column 'w'")
            _check_item(p[j], w[j], path, i)
            if len(t) == 4:
                if t[3] not in ("0", "1"):
                    raise ValueError(f"{path}: line {i}, column 'x': must be 0 or 1; got {t[3]!r}")
                x[j] = int(t[3])
            else:
                have_x = False
        _check_exact_range(path, [i for i, _ in rows], p, w)
        instances.append(KnapsackInstance(name or f"{path.stem}_{len(instances)}", p, w, W, optimum,
                                          x if have_x else None))
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
        One instance for format (a); one or more for format (b).

    Raises
    ------
    FileNotFoundError
        A file does not exist.
    ValueError
        Bad content, naming the file and the line (and column where there is one).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.txt"
    >>> _ = f.write_bytes(b"3 5\\r\\n4 3\\r\\n3 2\\r\\n2 2\\r\\n")
    >>> inst = read_knapsack(f)[0]
    >>> inst.m, inst.capacity, inst.optimum
    (3, 5.0, None)
    """
    path = _as_source(path)
    lines = _lines(path)
    if not lines:
        raise ValueError(f"{path}: the file is empty")
    first = lines[0][1].split()
    is_a = len(first) == 2 and all(re.fullmatch(r"[-+0-9.eE]+", t) for t in first)
    instances = [_read_format_a(path, lines)] if is_a else _read_format_b(path, lines)
    if optimum_path is not None:
        if len(instances) != 1:
            raise ValueError(f"{optimum_path}: an optimum file needs a one-instance knapsack file; "
                             f"{path} holds {len(instances)}")
        opt = read_optimum(optimum_path)
        inst = instances[0]
        instances = [KnapsackInstance(inst.name, inst.values, inst.weights, inst.capacity, opt,
                                      inst.solution)]
    return instances
