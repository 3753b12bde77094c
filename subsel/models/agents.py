"""The agents table: the CSV schema of a problem's agents, and of a selection of them.

An agents file has the header ``name,quality,cost,capacity`` (``name`` and ``capacity`` optional),
one row per agent of the model of Deva, Abhishek, Gujar, *A Multi-Arm Bandit Approach To Subset
Selection Under Constraints* (AAMAS 2021), Section 3; a selection has the header ``name,units``.
The file handling itself (decoding, the CSV reader, :class:`InputError`, atomic writes) is below
the model; this module gives the cells their meaning.  The problem module does not import it.
"""
from __future__ import annotations

import csv
import io
import os
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from .._files import CSVTable, InputError, atomic_write_text, parse_integer, read_csv
from ._rules import MAX_EXACT_INT
from .problem import SubsetSelectionProblem

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "problem_from_table",
    "problem_from_frame",
    "problem_to_frame",
    "problem_to_csv_text",
    "read_agents",
    "read_group_limits",
    "group_limits_csv_text",
    "selection_csv_text",
    "write_problem",
]

#: Columns of an agents table and the constructor fields they fill.
_AGENT_FIELDS = {"names": "name", "quality": "quality", "cost": "cost", "capacity": "capacity",
                 "min_units": "min_units", "lot_size": "lot_size", "fixed_cost": "fixed_cost", "group": "group",
                 "good": "good", "inspected": "inspected"}

#: The columns of inspection counts that may stand for ``quality``.
_COUNT_COLUMNS = ("good", "inspected")

#: The planner's optional columns with the value an empty cell stands for.
_PLANNER_COLUMNS = {"min_units": 1.0, "lot_size": 1.0, "fixed_cost": 0.0}


def problem_from_table(table: CSVTable, alpha: float, R: float = 1.0, *,
                       quality: float | None = None, cls: type | None = None,
                       confidence: float | None = None, constraints_from: Callable[[CSVTable], Any] | None = None,
                       **extensions: Any) -> "SubsetSelectionProblem":
    """A :class:`~subsel.models.SubsetSelectionProblem` from an agents table.

    Columns ``quality`` and ``cost`` are required, ``name`` and ``capacity`` optional.  Every cell
    is checked by the model's own rules; an error names the file, the line and the column.  In
    place of ``quality``, the columns ``good,inspected`` give the qualities from inspection counts
    (:meth:`SubsetSelectionProblem.from_counts`: estimates in the objective, lower confidence
    bounds in the quality constraint).

    Parameters
    ----------
    table : CSVTable
        From :func:`read_csv` or :meth:`CSVTable.from_frame`.
    alpha, R : float
        As in the constructor.
    quality : float, optional
        A placeholder quality for every agent when the table has no ``quality`` column (the
        online bandit planner learns qualities); then a ``quality`` column is refused.
    cls : type, optional
        The class to build (a subclass of SubsetSelectionProblem); default the class itself.
    confidence : float, optional
        With ``good,inspected``: the confidence of the bounds (default 0.95); refused without them.
    constraints_from : callable, optional
        ``constraints_from(table)`` gives constraint objects built from further columns (their
        cells read with ``table.numbers``, so an error names the line and the column).
    **extensions
        ``budget``, ``demand``, ``must_take``, ``must_not_take`` and any other constructor keyword.

    Raises
    ------
    InputError
        A missing column, an empty or non-numeric cell, or a cell breaking a model rule (quality
        outside [0, 1], negative cost, capacity not a positive integer, empty, repeated or
        control-character names), naming the line and the column.
    ValueError
        A bad setting (``alpha``, ``R``, extensions) as the constructor raises it.
    """
    make: Any = cls or SubsetSelectionProblem
    counts = quality is None and (table.has("good") or table.has("inspected"))
    if counts:
        if table.has("quality"):
            raise InputError("give either a 'quality' column or the columns 'good,inspected' (inspection "
                             "counts), not both", file=table.source)
        table.require("good", "inspected", "cost")
        q = None
    elif confidence is not None:
        raise InputError("a confidence applies to qualities from inspection counts: the table needs the "
                         "columns 'good,inspected' in place of 'quality'", file=table.source)
    elif quality is None:
        table.require("quality", "cost")
        q = table.numbers("quality")
    else:
        table.require("cost")
        if table.has("quality"):
            raise InputError("a 'quality' column is not expected (qualities are learned)",
                             file=table.source)
        q = np.full(len(table), float(quality))
    if len(table) == 0:
        raise InputError("the header is not followed by any agent row", file=table.source,
                         line=table.header_line if table.lines is not None else None)
    c = table.numbers("cost")
    # Capacities as exact integers: the model's range check sees 9007199254740993 and 2.5, not
    # their float roundings.
    k: Any = table.integers("capacity") if table.has("capacity") else None
    names = table.column("name") if table.has("name") else None
    planner: dict[str, Any] = {}
    for column, default in _PLANNER_COLUMNS.items():
        if not table.has(column):
            continue
        if column == "fixed_cost":  # an empty cell: the default 0
            values = table.numbers(column, allow_empty=True)
            empty = np.array([not cell.strip() for cell in table.column(column)], dtype=bool)
            planner[column] = np.where(empty, default, values)  # a written 'nan' stays NaN: refused
        else:  # integers read exactly (never through a float); an empty cell: the default 1
            planner[column] = [int(default) if not cell.strip() else _exact_integer(table, row, column, cell)
                               for row, cell in enumerate(table.column(column))]
    if table.has("group"):
        planner["group"] = table.column("group")  # an empty cell: no group
    if constraints_from is not None:
        extensions["constraints"] = list(extensions.get("constraints", ())) + list(constraints_from(table))
    try:
        if counts:
            good = [_exact_integer(table, row, "good", cell) for row, cell in enumerate(table.column("good"))]
            seen = [_exact_integer(table, row, "inspected", cell)
                    for row, cell in enumerate(table.column("inspected"))]
            return make.from_counts(good, seen, c, alpha, confidence=0.95 if confidence is None else confidence,
                                   capacity=k, R=R, names=names, **planner, **extensions)
        return make(quality=q, cost=c, capacity=k, alpha=alpha, R=R, names=names, **planner, **extensions)
    except InputError as exc:
        if exc.column in _AGENT_FIELDS and exc.row is not None:
            raise table.locate(exc, _AGENT_FIELDS) from None
        raise


def read_agents(source: Any, alpha: float, R: float = 1.0, *, name: str | None = None,
                cls: type | None = None, columns: Mapping[str, str] | None = None,
                **extensions: Any) -> "SubsetSelectionProblem":
    """Read an agents CSV (header ``name,quality,cost,capacity``) into a problem.

    ``name`` and ``capacity`` are optional columns, ``good,inspected`` may stand for ``quality``;
    any other column is refused (a misspelt ``capcity`` would otherwise silently mean capacity 1)
    unless ``columns`` names it: ``{column: what reads it}``, columns of coefficients read by
    ``constraints_from`` (see :func:`problem_from_table`), each of which must be present.  See
    :func:`read_csv` (the file format) and :func:`problem_from_table` (the cells).

    Raises
    ------
    InputError
        Anything wrong in the file (an unknown column included), naming the file, the line and the
        column.
    OSError
        The file cannot be opened.
    """
    table = read_csv(source, name=name, what="agents CSV (name,quality,cost,capacity)")
    columns = columns or {}
    for column, reader in columns.items():
        if not table.has(column):
            raise InputError(f"{reader}: the agents CSV has no column {column!r} (its columns: "
                             f"{', '.join(table.header)})", file=table.source)
    unknown = [c for c in table.header if c not in _AGENT_FIELDS.values() and c not in _COUNT_COLUMNS
               and c not in columns]
    if unknown:
        # A misspelt optional column ('capcity') would otherwise be ignored and change the answer.
        seps = [s for s in (";", "\t", "|") if len(table.header) == 1 and s in table.header[0]]
        hint = (f"; the header seems to be separated by {seps[0]!r}: subsel reads comma-separated files"
                if seps else "")
        raise InputError(f"unknown column {unknown[0]!r}; an agents CSV has the columns name, quality, "
                         "cost, capacity, min_units, lot_size, fixed_cost, group (names are "
                         "case-sensitive; all but quality and cost are optional; good,inspected may stand "
                         f"for quality; a column of coefficients is read only by a constraint naming it){hint}",
                         file=table.source, line=None)
    return problem_from_table(table, alpha, R, cls=cls, **extensions)


def problem_to_csv_text(problem: "SubsetSelectionProblem") -> str:
    """The agents of ``problem`` as CSV text ``name,quality,cost,capacity`` (and the planner's
    columns in use), each float as the shortest text that reads back bit for bit (``repr``:
    ``0.84``, not ``0.83999999999999997``)."""
    return problem_to_frame(problem).to_csv(index=False, lineterminator="\n")


def problem_to_frame(problem: SubsetSelectionProblem) -> pd.DataFrame:
    """The agents as a table with columns ``name, quality, cost, capacity`` (n rows), the planner's
    columns where they say something, and one column per constraint object
    (:func:`_constraint_columns`)."""
    import pandas as pd

    if problem.objective_quality is not None and not np.array_equal(problem.objective_quality, problem.quality):
        raise ValueError("objective_quality (the estimates the objective uses, e.g. from from_counts) has no "
                         "column in an agents file, which would hold only the quality bounds; write the "
                         "inspection counts as columns good,inspected instead")
    columns: dict[str, Any] = {"name": list(problem.names), "quality": problem.quality,
                               "cost": problem.cost, "capacity": problem.capacity}
    # The planner's columns only where they say something (the paper's file stays as it was).
    if (problem.min_units > 1).any():
        columns["min_units"] = problem.min_units
    if (problem.lot_size > 1).any():
        columns["lot_size"] = problem.lot_size
    if (problem.fixed_cost > 0).any():
        columns["fixed_cost"] = problem.fixed_cost
    if problem.group is not None:
        columns["group"] = ["" if g is None else g for g in problem.group]
    columns.update(_constraint_columns(problem, columns))
    return pd.DataFrame(columns)


def constraint_column(c: Any) -> str:
    """The agents-file column that holds the coefficients (or values) of the constraint object ``c``:
    its name without the suffixes the command line adds (``.used`` for ``used(COLUMN)``, ``.2``,
    ``.3``, ... for a further constraint on one column), so that a problem read with ``--constraint
    "co2 <= 5000"`` is written back with its column ``co2``."""
    name = str(c.name)
    if getattr(c, "on", "units") == "used" and name.endswith(".used"):
        name = name[:-len(".used")]
    else:
        head, dot, tail = name.rpartition(".")
        if dot and tail.isdigit() and head:
            name = head.removesuffix(".used") if getattr(c, "on", "units") == "used" else head
    return name


def _constraint_columns(problem: SubsetSelectionProblem, written: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The columns of the problem's constraint objects (:attr:`~SubsetSelectionProblem.added_constraints`):
    a :class:`~subsel.models.LinearConstraint`'s coefficients, a :class:`~subsel.models.QualityFloor`'s
    values, under :func:`constraint_column`.  Their sides are settings, like the budget, and are not
    written (the command line's ``--constraint`` / ``--quality-floor`` give them again).

    Raises
    ------
    ValueError
        A constraint of another kind (no per-agent column holds it); two constraints, or a
        constraint and a column of the agents file, that would write different numbers to one
        column (naming both).
    """
    out: dict[str, np.ndarray] = {}
    owner: dict[str, str] = {}
    for c in problem.added_constraints:
        if c.kind in ("linear", "linear_used"):
            values = np.asarray(c.coef, dtype=np.float64)  # type: ignore[attr-defined]
        elif c.kind == "quality_floor":
            values = np.asarray(c.values, dtype=np.float64)  # type: ignore[attr-defined]
        else:
            raise ValueError(f"the constraint {c.name!r} (kind {c.kind!r}) has no column in an agents file; "
                             "write the problem without it (problem.with_changes(constraints=...))")
        column = constraint_column(c)
        if column in _AGENT_FIELDS.values() and column not in written:  # read back as that field, not as c
            raise ValueError(f"the constraint {c.name!r} would write its coefficients to a column named "
                             f"{column!r}, which an agents file reads as the agents' {column}; rename the constraint")
        if column in written:
            same = column not in ("name", "group") and np.array_equal(
                np.asarray(written[column], dtype=float), values)
            if not same:
                raise ValueError(f"the constraint {c.name!r} would write its coefficients to the agents file's "
                                 f"column {column!r}, which holds other numbers; rename the constraint")
            continue
        if column in out and not np.array_equal(out[column], values):
            raise ValueError(f"the constraints {owner[column]!r} and {c.name!r} would write different numbers "
                             f"to the column {column!r}; rename one of them")
        out[column], owner[column] = values, c.name
    return out


def read_group_limits(source: Any, *, name: str | None = None) -> dict[str, dict[str, int]]:
    """Read a group-limits CSV: header ``group,min_units,max_units,min_agents,max_agents``.

    ``group`` is required, the four limits are optional columns; an empty cell is no limit.  Each
    row gives the limits of one group (Aissaoui, Haouari, Hassini, *Computers & OR* 34, 2007,
    Section 4: limits on the suppliers and quantities of a group).

    Parameters
    ----------
    source : str, path-like or binary stream
        The file (``-`` handling is the caller's: pass ``sys.stdin``).
    name : str, optional
        The name used in messages.

    Returns
    -------
    dict
        ``{group: {key: limit}}``, the ``group_limits`` argument of
        :class:`~subsel.models.SubsetSelectionProblem`.

    Raises
    ------
    InputError
        An unknown or missing column, an empty or repeated group, a cell that is not a
        non-negative integer, naming the file, the line and the column.
    OSError
        The file cannot be opened.
    """
    from .planner import GROUP_LIMIT_KEYS

    table = read_csv(source, name=name, what="group-limits CSV (group,min_units,max_units,min_agents,max_agents)")
    unknown = [c for c in table.header if c != "group" and c not in GROUP_LIMIT_KEYS]
    if unknown:
        raise InputError(f"unknown column {unknown[0]!r}; a group-limits CSV has the columns group, "
                         f"{', '.join(GROUP_LIMIT_KEYS)}", file=table.source, line=None)
    table.require("group")
    out: dict[str, dict[str, int]] = {}
    groups = table.column("group")
    seen: dict[str, int] = {}
    for row, g in enumerate(groups):
        if not g:
            raise table.error(row, "group", "must name a group", g)
        if g in seen:
            raise table.error(row, "group", "repeats the group of {other}", g, other=seen[g])
        seen[g] = row
        out[g] = {}
    for key in GROUP_LIMIT_KEYS:
        if not table.has(key):
            continue
        for row, cell in enumerate(table.column(key)):
            if not cell.strip():
                continue
            v = _exact_integer(table, row, key, cell, "must be a non-negative integer (or empty: no limit)")
            if v < 0 or v > MAX_EXACT_INT:
                raise table.error(row, key, "must be a non-negative integer (or empty: no limit)", cell)
            out[groups[row]][key] = v
    return out


def group_limits_csv_text(group_limits: Any) -> str:
    """Group limits as CSV text ``group,min_units,max_units,min_agents,max_agents``, which
    :func:`read_group_limits` reads back (an empty cell: no limit).

    Parameters
    ----------
    group_limits : mapping
        ``{group: {key: limit}}`` (a problem's :attr:`~subsel.models.SubsetSelectionProblem.group_limits`).

    Returns
    -------
    str
        One row per group, in the mapping's order, the four limit columns always present.
    """
    from .planner import GROUP_LIMIT_KEYS

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["group", *GROUP_LIMIT_KEYS])
    for g, limits in group_limits.items():
        w.writerow([g, *("" if limits.get(key) is None else int(limits[key]) for key in GROUP_LIMIT_KEYS)])
    return buf.getvalue()


def problem_from_frame(df: pd.DataFrame, alpha: float, R: float = 1.0, *, cls: type | None = None,
                       **extensions: Any) -> SubsetSelectionProblem:
    """A problem from a DataFrame with columns ``quality, cost`` and optional ``name, capacity``
    (:meth:`SubsetSelectionProblem.from_dataframe`); errors name the 0-based row and the column."""
    return problem_from_table(CSVTable.from_frame(df), alpha, R, cls=cls, **extensions)


def write_problem(problem: SubsetSelectionProblem, path: str | os.PathLike[str]) -> None:
    """Write the agents of ``problem`` to ``path`` atomically (:func:`problem_to_csv_text`)."""
    atomic_write_text(path, problem_to_csv_text(problem))


def selection_csv_text(names: Sequence[str], x: np.ndarray) -> str:
    """A selection as CSV text ``name,units``: one row per agent, in the problem's order.

    Parameters
    ----------
    names : sequence of str, length n
        The agents' names.
    x : ndarray of int, shape (n,)
        Units taken of each agent.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["name", "units"])
    w.writerows((n, int(u)) for n, u in zip(names, x))
    return buf.getvalue()


def _exact_integer(table: CSVTable, row: int, column: str, cell: str,
                   rule: str = "expected an integer") -> int:
    """One cell as an exact integer (a fractional part, however small, or underscores refused)."""
    try:
        return parse_integer(cell)
    except ValueError:
        raise table.error(row, column, rule, cell) from None
