"""Decisions, not only answers: the price of quality, the next-best selections, truthful payments.

Built on the :class:`~subsel.solvers.Solver` interface only (any backend that supports the problem's
extensions; the exactness claims need an exact one):

- :func:`frontier` and :func:`frontier_breakpoints` — the optimum as a function of the quality
  threshold (Deva, Abhishek, Gujar, AAMAS 2021, Section 3);
- :func:`alternatives` — the k best distinct selections (Lawler, Management Science 18(7), 1972;
  Murty, Operations Research 16(3), 1968);
- :func:`payments` — critical payments that make reporting the true cost a dominant strategy
  (Myerson, Mathematics of Operations Research 6(1), 1981; Archer and Tardos, FOCS 2001), the
  mechanism Deva, Abhishek, Gujar name as future work (Section 7).

pandas is imported inside the functions that build a table, so importing this package stays light.
"""
from .._extras import face_dir, lazy_attribute
from .mechanism import payments, unit_steps
from .pricing import fallback_solver, frontier, frontier_breakpoints
from .ranking import alternatives, alternatives_solver

#: Loaded on first use: the figure needs matplotlib.
_LAZY = {"plot_frontier": "plots", "figure_format": "plots"}

__all__ = ["alternatives", "alternatives_solver", "fallback_solver", "frontier", "frontier_breakpoints", "payments",
           "unit_steps", "plot_frontier", "figure_format"]


def __getattr__(name: str) -> object:
    """Load :func:`plot_frontier` and :func:`figure_format` on first use (PEP 562)."""
    return lazy_attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    """The names of the face, loaded or not (PEP 562)."""
    return face_dir(globals(), __all__)
