"""``--constraint`` and ``--quality-floor``: constraints written over columns of the agents CSV.

A column of the agents CSV is a coefficient vector, one number per agent.  ``--constraint "co2 <=
5000"`` is :class:`~subsel.models.LinearConstraint` ``sum_i co2_i x_i <= 5000`` (also ``>=`` and
``==``); ``--constraint "used(preferred) >= 2"`` counts the agents used, weighted by the column
(``sum_i preferred_i [x_i > 0] >= 2``); ``--quality-floor "ontime >= 0.95"`` is
:class:`~subsel.models.QualityFloor`: the units taken average at least 0.95 on the column.  Each
option may be repeated.  The constraint is named after its column (``co2``, ``preferred.used``; a
second constraint on the same column gets ``.2``, ...), which names its rows in LP/MPS files, its
violations and the conflicts of an infeasible answer.
"""
from __future__ import annotations

import argparse
import math
import re
from typing import Any, NamedTuple

import numpy as np

from .._files import CSVTable
from ..models import LinearConstraint, QualityFloor
from . import CLIError

__all__ = ["Expression", "add_constraint_args", "parse_expressions"]

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_COLUMN = r"[A-Za-z_][A-Za-z0-9_.]*"
_FORM = re.compile(rf"\s*(?:used\(\s*(?P<used>{_COLUMN})\s*\)|(?P<column>{_COLUMN}))\s*"
                   rf"(?P<sense><=|>=|==|=<|=>|<|>|=|!=)\s*(?P<bound>\S.*?)?\s*")


class Expression(NamedTuple):
    """One ``--constraint`` or ``--quality-floor`` as written: the option, the text and its parts."""

    option: str
    text: str
    column: str
    used: bool
    sense: str
    bound: float


def add_constraint_args(p: argparse.ArgumentParser) -> None:
    """The options ``--constraint`` and ``--quality-floor`` (repeatable)."""
    p.add_argument("--constraint", metavar="EXPR", action="append",
                   help="a linear constraint over a column of the agents CSV: 'co2 <= 5000' (also >=, ==), or "
                        "'used(preferred) >= 2' on the agents used; repeatable")
    p.add_argument("--quality-floor", metavar="EXPR", action="append",
                   help="a further quality attribute, a column of values in [0, 1]: 'ontime >= 0.95' (the units "
                        "taken average at least 0.95 on it); repeatable")


def parse_expressions(args: argparse.Namespace) -> list[Expression]:
    """The ``--constraint`` and ``--quality-floor`` options of ``args``, parsed.

    Raises
    ------
    CLIError
        A text that is not ``COLUMN SENSE NUMBER`` (or ``used(COLUMN) SENSE NUMBER``), a sense
        other than ``<=``, ``>=``, ``==`` (only ``>=`` for a quality floor), a bound that is not a
        finite number: one line naming the option and the text.
    """
    out = []
    for option, values in (("--constraint", getattr(args, "constraint", None)),
                           ("--quality-floor", getattr(args, "quality_floor", None))):
        for text in values or ():
            m = _FORM.fullmatch(text)
            if m is None:
                form = ("COLUMN >= NUMBER, e.g. 'ontime >= 0.95'" if option == "--quality-floor" else
                        "COLUMN <= NUMBER (or >=, ==), e.g. 'co2 <= 5000', or used(COLUMN) >= NUMBER")
                raise CLIError(f"{option} {text!r}: expected {form}")
            sense = m["sense"]
            allowed = (">=",) if option == "--quality-floor" else ("<=", ">=", "==")
            if sense not in allowed:
                raise CLIError(f"{option} {text!r}: the sense must be {' or '.join(allowed)}; got {sense!r}")
            if option == "--quality-floor" and m["used"] is not None:
                raise CLIError(f"{option} {text!r}: a quality floor is over the units, not used(...)")
            if m["bound"] is None:
                raise CLIError(f"{option} {text!r}: the bound is missing after {sense!r}")
            if not re.fullmatch(_NUMBER, m["bound"]) or not math.isfinite(float(m["bound"])):
                raise CLIError(f"{option} {text!r}: the bound must be a finite number; got {m['bound']!r}")
            column = m["used"] if m["used"] is not None else m["column"]
            out.append(Expression(option, text, column, m["used"] is not None, sense, float(m["bound"])))
    return out


def columns_of(expressions: list[Expression]) -> dict[str, str]:
    """The agents CSV columns the expressions read, each with the first option that reads it."""
    out: dict[str, str] = {}
    for e in expressions:
        out.setdefault(e.column, f"{e.option} {e.text!r}")
    return out


def build_constraints(expressions: list[Expression], table: CSVTable) -> list[Any]:
    """The constraint objects of ``expressions``, their coefficients read from ``table``.

    Raises
    ------
    CLIError
        A constraint the model refuses (naming the option and the text).
    InputError
        A cell that is not a finite number (naming the file, line and column); the columns are
        present (:func:`subsel.models.read_agents` checks them).
    """
    out: list[Any] = []
    seen: dict[str, int] = {}
    for e in expressions:
        values = table.numbers(e.column)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            i = int(bad[0])
            raise table.error(i, e.column, "must be a finite number", table.column(e.column)[i])
        if e.option == "--quality-floor":
            outside = np.flatnonzero((values < 0) | (values > 1))
            if outside.size:
                i = int(outside[0])
                raise table.error(i, e.column, f"must be in [0, 1] (read by {e.option} {e.text!r})",
                                  table.column(e.column)[i])
        base = f"{e.column}.used" if e.used else e.column
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base}.{seen[base]}"
        try:
            if e.option == "--quality-floor":
                out.append(QualityFloor(values, e.bound, name=name))
            else:
                lower = e.bound if e.sense in (">=", "==") else None
                upper = e.bound if e.sense in ("<=", "==") else None
                out.append(LinearConstraint(values, lower, upper, name=name, on="used" if e.used else "units"))
        except ValueError as exc:
            raise CLIError(f"{e.option} {e.text!r}: {exc}") from None
    return out
