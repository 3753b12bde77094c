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
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .._files import CSVTable, InputError, atomic_write_text, read_csv
from .problem import SubsetSelectionProblem

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "problem_from_table",
    "problem_from_frame",
    "problem_to_frame",
    "problem_to_csv_text",
    "read_agents",
    "selection_csv_text",
    "write_problem",
]

#: Columns of an agents table and the constructor fields they fill.
_AGENT_FIELDS = {"names": "name", "quality": "quality", "cost": "cost", "capacity": "capacity"}


def problem_from_table(table: CSVTable, alpha: float, R: float = 1.0, *,
                       quality: float | None = None, cls: type | None = None,
                       **extensions: Any) -> "SubsetSelectionProblem":
    """A :class:`~subsel.models.SubsetSelectionProblem` from an agents table.

    Columns ``quality`` and ``cost`` are required, ``name`` and ``capacity`` optional.  Every cell
    is checked by the model's own rules; an error names the file, the line and the column.

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
    cls = cls or SubsetSelectionProblem
    if quality is None:
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
    try:
        return cls(quality=q, cost=c, capacity=k, alpha=alpha, R=R, names=names, **extensions)
    except InputError as exc:
        if exc.column in _AGENT_FIELDS and exc.row is not None:
            raise table.locate(exc, _AGENT_FIELDS) from None
        raise


def read_agents(source: Any, alpha: float, R: float = 1.0, *, name: str | None = None,
                cls: type | None = None, **extensions: Any) -> "SubsetSelectionProblem":
    """Read an agents CSV (header ``name,quality,cost,capacity``) into a problem.

    ``name`` and ``capacity`` are optional columns; any other column is refused (a misspelt
    ``capcity`` would otherwise silently mean capacity 1).  See :func:`read_csv` (the file format)
    and :func:`problem_from_table` (the cells).

    Raises
    ------
    InputError
        Anything wrong in the file (an unknown column included), naming the file, the line and the
        column.
    OSError
        The file cannot be opened.
    """
    table = read_csv(source, name=name, what="agents CSV (name,quality,cost,capacity)")
    unknown = [c for c in table.header if c not in _AGENT_FIELDS.values()]
    if unknown:
        # A misspelt optional column ('capcity') would otherwise be ignored and change the answer.
        seps = [s for s in (";", "\t", "|") if len(table.header) == 1 and s in table.header[0]]
        hint = (f"; the header seems to be separated by {seps[0]!r}: subsel reads comma-separated files"
                if seps else "")
        raise InputError(f"unknown column {unknown[0]!r}; an agents CSV has the columns name, quality, "
                         f"cost, capacity (names are case-sensitive; name and capacity are optional){hint}",
                         file=table.source, line=None)
    return problem_from_table(table, alpha, R, cls=cls, **extensions)


def problem_to_csv_text(problem: "SubsetSelectionProblem") -> str:
    """The agents of ``problem`` as CSV text ``name,quality,cost,capacity`` (17 significant
    digits: floats read back bit for bit)."""
    return problem_to_frame(problem).to_csv(index=False, float_format="%.17g")


def problem_to_frame(problem: SubsetSelectionProblem) -> pd.DataFrame:
    """The agents as a table with columns ``name, quality, cost, capacity`` (n rows)."""
    import pandas as pd

    return pd.DataFrame({"name": list(problem.names), "quality": problem.quality,
                         "cost": problem.cost, "capacity": problem.capacity})


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
