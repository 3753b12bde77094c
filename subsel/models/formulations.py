"""Declarative linear formulations of the known-quality problem.

Deva, Abhishek, Gujar, AAMAS 2021, Section 3: the linear form of eq. (1).

The integer program is written once, as arrays, by :func:`linear_form`::

    maximize   sum_i r_i x_i                          (utility, r = R q - c)
    subject to sum_i (q_i - alpha) x_i >= -1e-9       quality   (average quality >= alpha)
               sum_i c_i x_i <= B + 1e-9              budget    (extension, optional)
               sum_i x_i >= D                         demand    (extension, optional)
               lb_i <= x_i <= ub_i, x_i integer       bounds: ub = capacity k_i, 0 for must-not-take;
                                                              lb = 1 for must-take, else 0

:func:`to_pulp` and :func:`to_ortools` turn it into a PuLP or an OR-Tools model (variables named
``x_{i}``), and :func:`write_lp` / :func:`write_mps` export it for external solvers (variables named
after the agents, :func:`variable_names`; the MPS file minimises the negated utility).  Every model is
built from whole arrays with one pass over the agents (no quadratic Python work), so that building a
model with n = 10^5 agents takes well under a second.  PuLP and OR-Tools are imported inside the
functions, so ``import subsel`` stays light.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._files import atomic_write_with
from .._text import counted
from .problem import SubsetSelectionProblem
from .rules import FEASIBILITY_TOL

if TYPE_CHECKING:  # pragma: no cover
    import pulp
    from ortools.linear_solver import pywraplp


@dataclass(frozen=True)
class LinearRow:
    """One linear constraint ``lower <= coef @ x <= upper``.

    Attributes
    ----------
    name : str
        ``quality``, ``budget`` or ``demand``.
    coef : ndarray of float, shape (n,)
    lower, upper : float
        Row bounds; ``-inf`` / ``inf`` when the side is free.
    """

    name: str
    coef: np.ndarray
    lower: float
    upper: float


@dataclass(frozen=True)
class LinearForm:
    """The integer program (Deva et al., Section 3) as arrays (every formulation and MILP backend starts here).

    Attributes
    ----------
    objective : ndarray of float, shape (n,)
        Per-unit utility ``r_i`` (maximised).
    lower, upper : ndarray of float, shape (n,)
        Variable bounds (must-take / must-not-take / capacity).
    rows : tuple of LinearRow
        ``quality`` always, then ``budget`` and ``demand`` when the problem uses them.
    """

    objective: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    rows: tuple[LinearRow, ...]

    @property
    def n(self) -> int:
        """Number of variables."""
        return int(self.objective.size)

    def csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The constraint matrix in compressed-column form ``(start, index, value)``.

        Returns
        -------
        start : ndarray of int32, shape (n + 1,)
        index : ndarray of int32, shape (nnz,)
            Row of each entry.
        value : ndarray of float, shape (nnz,)
        """
        m = len(self.rows)
        A = np.vstack([row.coef for row in self.rows]) if m else np.zeros((0, self.n))
        mask = A.T != 0  # (n, m): column-major walk
        counts = mask.sum(axis=1)
        start = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
        cols, rows = np.nonzero(mask)
        return start, rows.astype(np.int32), A[rows, cols]

    def pulp_model(self) -> tuple["pulp.LpProblem", list[Any]]:
        """This program as a PuLP model and its variables ``[x_0, ..., x_{n-1}]`` (see :func:`to_pulp`)."""
        import pulp

        prob = pulp.LpProblem("subset_selection", pulp.LpMaximize)
        # Variables: x_i integer units of agent i; bounds from capacity and the must lists
        # (must-take: x_i >= 1, must-not-take: x_i = 0).
        # (PuLP >= 3.3 attaches variables to the model; older PuLP builds them free-standing.)
        new_var = getattr(prob, "add_variable", None) or pulp.LpVariable
        x = [new_var(f"x_{i}", lowBound=lo, upBound=up, cat=pulp.LpInteger)
             for i, (lo, up) in enumerate(zip(self.lower.tolist(), self.upper.tolist()))]
        # Objective: total utility sum r_i x_i.
        prob.setObjective(pulp.LpAffineExpression(zip(x, self.objective.tolist()), name="utility"))
        for row in self.rows:
            expr = pulp.LpAffineExpression(zip(x, row.coef.tolist()))
            if row.name == "quality":
                # Quality: sum (q_i - alpha) x_i >= 0 (average quality of the units >= alpha).
                prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintGE, "quality", row.lower))
            elif row.name == "budget":
                # Budget (extension): sum c_i x_i <= B.
                prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintLE, "budget", row.upper))
            elif row.name == "demand":
                # Demand (extension): sum x_i >= D units.
                prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintGE, "demand", row.lower))
        return prob, x

    def ortools_model(self, backend: str = "SCIP") -> tuple["pywraplp.Solver", list[Any]]:
        """This program as an OR-Tools ``pywraplp`` model and its variables (see :func:`to_ortools`)."""
        from ortools.linear_solver import pywraplp

        solver = pywraplp.Solver.CreateSolver(backend)
        if solver is None:
            raise ValueError(f"backend {backend!r} is not available in this OR-Tools build")
        inf = solver.infinity()
        # Variables: x_i integer units of agent i; bounds from capacity and the must lists.
        x = [solver.IntVar(lo, up, f"x_{i}")
             for i, (lo, up) in enumerate(zip(self.lower.tolist(), self.upper.tolist()))]
        # Objective: total utility sum r_i x_i.
        objective = solver.Objective()
        for var, r in zip(x, self.objective.tolist()):
            objective.SetCoefficient(var, r)
        objective.SetMaximization()
        # Rows: quality sum (q_i - alpha) x_i >= 0; budget sum c_i x_i <= B; demand sum x_i >= D.
        for row in self.rows:
            lo = -inf if np.isinf(row.lower) else row.lower
            up = inf if np.isinf(row.upper) else row.upper
            con = solver.Constraint(lo, up, row.name)
            nz = np.flatnonzero(row.coef)
            for i, v in zip(nz.tolist(), row.coef[nz].tolist()):
                con.SetCoefficient(x[i], v)
        return solver, x


def linear_form(problem: SubsetSelectionProblem, scale: float = 1.0) -> LinearForm:
    """The integer program of ``problem`` as arrays (Deva et al., Section 3, with subsel's extensions).

    Parameters
    ----------
    problem : SubsetSelectionProblem
    scale : float, default 1.0
        Multiplies the quality and budget rows (coefficients and right-hand sides).  The feasible set
        is unchanged; a MILP's absolute feasibility tolerance then allows ``1/scale`` times less
        violation (used by the MILP backends to close the gap between their tolerance, about 1e-6,
        and :data:`subsel.models.FEASIBILITY_TOL`).

    Returns
    -------
    LinearForm

    Raises
    ------
    ValueError
        ``scale`` not a positive finite number.
    """
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive finite number; got {scale!r}")
    tol = FEASIBILITY_TOL
    rows = [LinearRow("quality", np.asarray(problem.quality_margin) * scale, -tol * scale, np.inf)]
    if problem.budget is not None:
        rows.append(LinearRow("budget", np.asarray(problem.cost) * scale, -np.inf,
                              (problem.budget + tol) * scale))
    if problem.demand is not None:
        rows.append(LinearRow("demand", np.ones(problem.n), float(problem.demand), np.inf))
    return LinearForm(np.asarray(problem.utility, dtype=float),
                      problem.lower_bounds().astype(float), problem.upper_bounds().astype(float),
                      tuple(rows))


def to_pulp(problem: SubsetSelectionProblem, scale: float = 1.0) -> "pulp.LpProblem":
    """The integer program as a :class:`pulp.LpProblem` (Deva et al., Section 3; variables ``x_{i}``).

    Parameters
    ----------
    problem : SubsetSelectionProblem
    scale : float, default 1.0
        See :func:`linear_form`.

    Returns
    -------
    pulp.LpProblem
        A maximisation named ``subset_selection``; constraints named ``quality``, ``budget``,
        ``demand``.  ``prob.variablesDict()["x_3"]`` is agent 3's variable.

    Examples
    --------
    >>> from subsel.models import SubsetSelectionProblem, to_pulp
    >>> p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.2, 0.1], alpha=0.7, budget=1.0)
    >>> prob = to_pulp(p)
    >>> prob.numConstraints(), prob.get_constraint_by_name("budget").constant
    (2, -1.0)
    """
    return linear_form(problem, scale).pulp_model()[0]


def to_ortools(problem: SubsetSelectionProblem, backend: str = "SCIP",
               scale: float = 1.0) -> "pywraplp.Solver":
    """The integer program as an OR-Tools linear-solver model (Deva et al., Section 3; variables ``x_{i}``).

    Parameters
    ----------
    problem : SubsetSelectionProblem
    backend : str, default "SCIP"
        The OR-Tools MIP engine (``"SCIP"``, ``"CBC"``, ``"HIGHS"``, ...).
    scale : float, default 1.0
        See :func:`linear_form`.

    Returns
    -------
    ortools.linear_solver.pywraplp.Solver
        The model, maximising utility; ``solver.variables()[i]`` is ``x_i``; constraints named
        ``quality``, ``budget``, ``demand``.

    Raises
    ------
    ValueError
        The OR-Tools build on this machine lacks ``backend``.
    """
    return linear_form(problem, scale).ortools_model(backend)[0]


#: Longest variable name written to LP / MPS files (before a uniqueness suffix).
MAX_NAME_LENGTH = 60


def variable_names(problem: SubsetSelectionProblem) -> list[str]:
    """The variable names of the agents in LP and MPS files: ``x_`` + a sanitised agent name.

    The mapping: every character of the agent's name outside ``A-Z a-z 0-9 _`` becomes ``_``, the
    result is cut to :data:`MAX_NAME_LENGTH` characters and prefixed with ``x_`` (so a name never
    starts with a digit or a letter ``e`` that LP readers could take for a number); when two agents
    would get the same name, every agent after the first gets the suffix ``_<index>`` (its 0-based
    position).  Agents with the default names ``"0", "1", ...`` become ``x_0, x_1, ...``.

    Parameters
    ----------
    problem : SubsetSelectionProblem

    Returns
    -------
    list of str, length n
        Unique names made of ``A-Z a-z 0-9 _`` only (legal in every LP and MPS reader).

    Examples
    --------
    >>> from subsel.models import SubsetSelectionProblem
    >>> p = SubsetSelectionProblem([0.9, 0.6, 0.5], [0.1, 0.1, 0.1], alpha=0.7,
    ...                            names=["acme ltd", "b-2", "acme/ltd"])
    >>> variable_names(p)
    ['x_acme_ltd', 'x_b_2', 'x_acme_ltd_2']
    """
    import re

    out: list[str] = []
    seen: set[str] = set()
    for i, name in enumerate(problem.names):
        base = "x_" + re.sub(r"[^A-Za-z0-9_]", "_", name)[:MAX_NAME_LENGTH]
        var = base if base not in seen else f"{base}_{i}"
        while var in seen:  # a suffixed name may itself be taken: extend until unique
            var += "_"
        seen.add(var)
        out.append(var)
    return out


def _num(v: float) -> str:
    """A float written so that every reader gets the same double back (17 significant digits)."""
    return repr(float(v)) if v != int(v) or abs(v) >= 1e16 else str(int(v))


def lp_text(problem: SubsetSelectionProblem) -> str:
    """The integer program as CPLEX LP text (maximise the utility; see :func:`write_lp`)."""
    form = linear_form(problem)
    names = variable_names(problem)

    def expr(coef: np.ndarray) -> list[str]:
        terms = []
        for i in np.flatnonzero(coef).tolist():
            c = float(coef[i])
            terms.append(f"{'-' if c < 0 else '+'} {_num(abs(c))} {names[i]}")
        lines = [" ".join(terms[k:k + 4]) for k in range(0, len(terms), 4)] or ["0 " + names[0]]
        return lines

    out = [f"\\ subsel subset-selection model: {counted(problem.n, 'agent')}, alpha = {problem.alpha!r}, "
           f"R = {problem.R!r}",
           "\\ Variables x_<agent name>: see subsel.models.variable_names for the mapping.",
           "Maximize", " utility:"]
    out += ["   " + line for line in expr(form.objective)]
    out.append("Subject To")
    for row in form.rows:
        out.append(f" {row.name}:")
        body = ["   " + line for line in expr(row.coef)]
        sense, rhs = (">=", row.lower) if np.isfinite(row.lower) else ("<=", row.upper)
        body[-1] += f" {sense} {_num(rhs)}"
        out += body
    out.append("Bounds")
    for i, (lo, up) in enumerate(zip(form.lower.tolist(), form.upper.tolist())):
        out.append(f" {names[i]} = 0" if up == 0 else f" {_num(lo)} <= {names[i]} <= {_num(up)}")
    out.append("General")
    out += [" " + " ".join(names[k:k + 8]) for k in range(0, form.n, 8)]
    out.append("End")
    return "\n".join(out) + "\n"


def mps_text(problem: SubsetSelectionProblem) -> str:
    """The integer program as MPS text (minimise the negated utility; see :func:`write_mps`)."""
    form = linear_form(problem)
    names = variable_names(problem)
    width = max(8, max(len(v) for v in names))
    senses = {"quality": "G", "budget": "L", "demand": "G"}
    out = [f"* subsel subset-selection model: {counted(problem.n, 'agent')}, alpha = {problem.alpha!r}, "
           f"R = {problem.R!r}",
           "* The objective row neg_utility is MINIMISED: it is minus the utility sum r_i x_i, so the",
           "* optimum is minus the best utility.  (No OBJSENSE section: readers that ignore it would",
           "* otherwise minimise a maximisation.)  Variables x_<agent name>: see",
           "* subsel.models.variable_names for the mapping.",
           "NAME          subset_selection",
           "ROWS",
           " N  neg_utility"]
    out += [f" {senses[row.name]}  {row.name}" for row in form.rows]
    out.append("COLUMNS")
    out.append("    MARKER    'MARKER'                 'INTORG'")
    for i, var in enumerate(names):
        r = -float(form.objective[i])
        out.append(f"    {var:<{width}}  neg_utility  {_num(r) if r != 0 else '0'}")
        for row in form.rows:
            if row.coef[i] != 0:
                out.append(f"    {var:<{width}}  {row.name:<11}  {_num(row.coef[i])}")
    out.append("    MARKER    'MARKER'                 'INTEND'")
    out.append("RHS")
    for row in form.rows:
        rhs = row.lower if np.isfinite(row.lower) else row.upper
        out.append(f"    RHS       {row.name:<11}  {_num(rhs)}")
    out.append("BOUNDS")
    for var, lo, up in zip(names, form.lower.tolist(), form.upper.tolist()):
        if up == lo:
            out.append(f" FX BND       {var:<{width}}  {_num(up)}")
            continue
        out.append(f" LO BND       {var:<{width}}  {_num(lo)}")
        out.append(f" UP BND       {var:<{width}}  {_num(up)}")
    out.append("ENDATA")
    return "\n".join(out) + "\n"


def write_lp(problem: SubsetSelectionProblem, path: str | os.PathLike[str]) -> None:
    """Write the integer program as a CPLEX LP file, atomically.

    The file maximises the utility ``sum r_i x_i`` (section ``Maximize``); rows ``quality``
    (``sum (q_i - alpha) x_i >= -1e-9``, the feasibility rule of
    :meth:`SubsetSelectionProblem.evaluate`), ``budget`` and ``demand`` when used; bounds from the
    capacities and the must lists; every variable integer (section ``General``).  Variables carry
    the agents' names (:func:`variable_names`); numbers are written with 17 significant digits,
    so a reader gets the stored doubles back.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    path : str or path-like
        Destination; its folder must exist.  No half-written file is ever left behind.

    Raises
    ------
    OSError
        The folder is missing or not writable.
    """
    text = lp_text(problem)
    atomic_write_with(path, lambda tmp: Path(tmp).write_text(text))


def write_mps(problem: SubsetSelectionProblem, path: str | os.PathLike[str]) -> None:
    """Write the integer program as an MPS file, atomically: a *minimisation of the negated utility*.

    MPS has no portable way to say "maximise": the ``OBJSENSE`` section is an extension that some
    readers reject (the CBC binary bundled with PuLP: "Unknown image OBJSENSE") or ignore (PuLP's
    ``LpProblem.fromMPS``, which then minimises).  So the objective row ``neg_utility`` holds
    ``-r_i`` and every reader minimises it: HiGHS, CBC, PuLP's ``fromMPS`` and OR-Tools all read the
    same problem, and its optimum is **minus** the best utility (a comment at the top says so).
    Rows ``quality`` (``sum (q_i - alpha) x_i >= -1e-9``), ``budget`` and ``demand`` when used;
    integer columns between ``MARKER`` lines; explicit ``LO``/``UP`` (or ``FX``) bounds.  Variables
    carry the agents' names (:func:`variable_names`); numbers have 17 significant digits.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    path : str or path-like
        Destination; its folder must exist.

    Raises
    ------
    OSError
        The folder is missing or not writable.
    """
    text = mps_text(problem)
    atomic_write_with(path, lambda tmp: Path(tmp).write_text(text))
