"""What an answer is: :class:`Status`, and :class:`SolverError`, the failure of a solver.

Shared by the knapsack core (:func:`subsel.knapsack.solve_knapsack`) and every solver of
:mod:`subsel.solvers` (which re-exports both names), so they live in the lower layer.
"""
import enum

__all__ = ["SolverError", "Status"]


class Status(str, enum.Enum):
    """What a solution is (the status vocabulary of python-mip: OPTIMAL, FEASIBLE, INFEASIBLE,
    NO_SOLUTION_FOUND, ERROR, plus a time-limited stop that carries a selection).

    ``optimal``
        ``x`` is feasible under the one feasibility rule of
        :meth:`~subsel.models.SubsetSelectionProblem.evaluate`, and no feasible selection has a
        utility higher by more than the optimality tolerance (proven or certified).
    ``feasible``
        ``x`` is feasible; optimality is not proven (a heuristic, a MILP stopped at a gap, or a
        MILP answer that subsel could not certify at the data's scale).
    ``time_limit``
        The time limit struck *with* a selection: ``x`` is the best feasible selection known then
        (at least the smallest selection, nothing but the must-take units, when that is feasible).
    ``no_solution_found``
        The time limit struck *before* any feasible selection was known; ``x`` is an all-zero
        placeholder, not an answer.  Only constraints that force units (a demand, a must-take
        agent, a group's minimum units or agents, a linear constraint's lower side) can make the
        smallest selection infeasible, so only they lead here.
    ``infeasible``
        Proven: no selection satisfies the constraints; ``x`` is a placeholder.
    ``error``
        The backend failed; ``x`` is a placeholder.

    :attr:`Solution.is_feasible` is True exactly for the first three.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"
    NO_SOLUTION_FOUND = "no_solution_found"
    ERROR = "error"

    @property
    def has_selection(self) -> bool:
        """True for the statuses whose ``x`` is a feasible selection (optimal, feasible, time_limit)."""
        return self in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)

    def __str__(self) -> str:  # "optimal", not "Status.OPTIMAL"
        return self.value


class SolverError(RuntimeError):
    """A backend failed or returned an answer that does not pass ``problem.evaluate``."""
