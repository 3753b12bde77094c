"""The time budget of a planner's report: the parts after the plan share it, each solve cut to the time
left, and what did not fit is recorded to be named on the page."""
from __future__ import annotations

import copy
import time
from typing import Callable

from ..solvers import Solver

__all__ = ["BUDGET_FACTOR", "MIN_BUDGET_S"]

#: The parts after the plan (what binds, the price of quality, the next-best plans, the payments)
#: get this many times the plan's solve time by default ...
BUDGET_FACTOR = 8.0

#: ... and at least this many seconds.
MIN_BUDGET_S = 5.0

class _Clock:
    """The time budget of the parts after the plan: each of their solves is capped at the time left.

    ``seconds`` from now; ``solve_s`` the plan's solve time, the estimate of one more solve;
    ``progress`` gets a line per part (or None)."""

    def __init__(self, seconds: float, solve_s: float, progress: Callable[[str], None] | None):
        self.seconds = float(seconds)
        self.start = time.perf_counter()
        self.end = self.start + self.seconds
        self.solve_s = max(float(solve_s), 1e-3)
        self.progress = progress
        self.cut: list[dict[str, str]] = []

    def left(self, until: float | None = None) -> float:
        return (self.end if until is None else min(self.end, until)) - time.perf_counter()

    def until(self, share: float) -> float:
        """The moment by which a part given ``share`` of the time left must end."""
        return time.perf_counter() + share * max(self.left(), 0.0)

    def affordable(self, until: float | None = None) -> int:
        """How many solves as long as the plan's fit before ``until`` (default: the budget's end)."""
        return max(int(self.left(until) / self.solve_s), 0)

    def solver(self, engine: Solver, until: float | None = None) -> Solver | None:
        """``engine`` with its time limit cut to the time left (None when none is left)."""
        left = self.left(until)
        if left <= 1e-3:
            return None
        capped = copy.copy(engine)
        capped.time_limit_s = left if engine.time_limit_s is None else min(engine.time_limit_s, left)
        return capped

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(f"{text} ({time.perf_counter() - self.start:.1f} s of {self.seconds:.1f} s)")

    def cut_short(self, section: str, what: str) -> None:
        self.cut.append(dict(section=section, what=what))
