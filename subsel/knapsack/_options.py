"""The options of a knapsack search, checked in one place: :func:`~subsel.knapsack.solve_knapsack`
and the ``exact`` solver (:class:`subsel.solvers.Exact`) take the same limits and call
:func:`check_options` (a module of its own: the solver loads it without the knapsack API's code)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import check_scalar

__all__ = ["check_options"]


#: The largest memory limit, 2^40 MiB (1 EiB): its bytes fit the kernel's 64-bit counters.
MAX_MEMORY_LIMIT_MB = 2 ** 40


def check_options(time_limit_s: Any, memory_limit_mb: Any, lexicographic: Any) -> tuple[float | None, float | None]:
    """The limits of a knapsack search, checked: ``(time_limit_s, memory_limit_mb)`` as floats (or None).

    The checks of :func:`~subsel.knapsack.solve_knapsack` and of the ``exact`` solver, which passes the
    same options.

    Raises
    ------
    TypeError
        ``lexicographic`` not a bool; a limit not a number.
    ValueError
        A limit not positive and finite (``None``: no limit), or a memory limit above
        :data:`MAX_MEMORY_LIMIT_MB`.
    """
    if lexicographic is False and _plain(time_limit_s, math.inf) and _plain(memory_limit_mb, MAX_MEMORY_LIMIT_MB):
        # The common case (no limit, or a limit given as a plain number in range): what the checks
        # below return, without their type dispatch.
        return (None if time_limit_s is None else float(time_limit_s),
                None if memory_limit_mb is None else float(memory_limit_mb))
    if time_limit_s is not None:
        time_limit_s = check_scalar(time_limit_s, "time_limit_s", min_val=0, include_boundaries="right",
                                    unit="seconds")
    if memory_limit_mb is not None:
        memory_limit_mb = check_scalar(memory_limit_mb, "memory_limit_mb", min_val=0, max_val=MAX_MEMORY_LIMIT_MB,
                                       include_boundaries="right", unit="MiB")
    if not isinstance(lexicographic, (bool, np.bool_)):
        raise TypeError(f"lexicographic must be True or False; got {lexicographic!r}")
    return time_limit_s, memory_limit_mb


def _plain(limit: Any, top: float) -> bool:
    """``limit`` is None, or a Python int or float in ``(0, top]`` (never a bool, NaN or infinity)."""
    return limit is None or (type(limit) in (int, float) and 0 < limit <= top and limit != math.inf)
