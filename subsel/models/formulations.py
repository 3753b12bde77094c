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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .._files import atomic_write_with
from .._text import counted, exact_text
from ._rules import FEASIBILITY_TOL
from .planner import PLANNER_EXTENSIONS, unconstrained
from .problem import SubsetSelectionProblem

PLANNER_EXTENSIONS_SET = frozenset(PLANNER_EXTENSIONS)

if TYPE_CHECKING:  # pragma: no cover
    import pulp
    from ortools.linear_solver import pywraplp


@dataclass(frozen=True)
class LinearRow:
    """One linear constraint ``lower <= coef @ x <= upper``.

    Attributes
    ----------
    name : str
        ``quality``, ``budget`` or ``demand``; for the planner's fields ``group_units_<j>``,
        ``group_agents_<j>`` (group ``j``, with ``_min`` / ``_max``), ``lot_<i>``, ``used_max_<i>``
        and ``used_min_<i>`` (agent ``i``); a constraint object's name and its row's suffix.
    coef : ndarray of float, shape (n,), or shape (len(index),) when ``index`` is given
    lower, upper : float
        Row bounds; ``-inf`` / ``inf`` when the side is free (equal for an equation).
    index : ndarray of int, optional
        A sparse row: the variables of the entries of ``coef`` (default: ``coef`` is dense).
    real : bool, default False
        Real coefficients, one finite side (quality, budget, a quality floor, a fractional linear
        constraint): scaled and loosened by a MILP backend, rounded safe-side by CP-SAT.  False:
        integer coefficients and sides, used as they are.
    tol : float, default 0.0
        The tolerance included in the finite side (``FEASIBILITY_TOL`` for a real row, else 0).
    side : tuple of float, optional
        The terms whose exact sum is the finite side (``(B, 1e-9)`` for the budget), which CP-SAT
        rounds exactly; None when the side is exact as stored or the row is scaled.
    """

    name: str
    coef: np.ndarray
    lower: float
    upper: float
    index: np.ndarray | None = None
    real: bool = False
    tol: float = 0.0
    side: tuple[float, ...] | None = None

    def terms(self) -> tuple[np.ndarray, np.ndarray]:
        """The row's nonzero entries: ``(variables, coefficients)``, int and float arrays."""
        if self.index is None:
            nz = np.flatnonzero(self.coef)
            return nz, self.coef[nz]
        return np.asarray(self.index), np.asarray(self.coef, dtype=float)

    def dense(self, n: int) -> np.ndarray:
        """The coefficients as a dense float array of shape (n,)."""
        if self.index is None:
            return np.asarray(self.coef, dtype=float)
        out = np.zeros(n)
        np.add.at(out, self.index, self.coef)
        return out

    @property
    def sense(self) -> str:
        """``">="``, ``"<="`` or ``"="`` (a row has one finite side, or two equal ones)."""
        if self.lower == self.upper:
            return "="
        return ">=" if np.isfinite(self.lower) else "<="

    @property
    def rhs(self) -> float:
        """The finite side of the row."""
        return float(self.lower if np.isfinite(self.lower) else self.upper)


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
        ``quality``, ``budget`` and ``demand`` (when used), the constraint objects' rows over the
        units, then the group limits, their rows over the used variables, lots and used links.
    aux_of : ndarray of int, shape (n_aux,)
        The planner's auxiliary variables follow the agents' units ``x``: variable
        ``n_agents + j`` belongs to agent ``aux_of[j]``.
    aux_lot : ndarray of float, shape (n_aux,)
        For a lot count ``z_i`` (``x_i = l_i z_i``) the lot size ``l_i``; 0 for a binary "used"
        variable ``u_i`` (``u_i = 1`` exactly when ``x_i > 0``).
    """

    objective: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    rows: tuple[LinearRow, ...]
    aux_of: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    aux_lot: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def n(self) -> int:
        """Number of variables (the agents' units, then the auxiliary variables)."""
        return int(self.objective.size)

    @property
    def n_agents(self) -> int:
        """Number of agents: the first ``n_agents`` variables are the units ``x``."""
        return self.n - int(self.aux_of.size)

    def full(self, x: np.ndarray) -> np.ndarray:
        """The values of every variable for the agents' units ``x`` (shape (n_agents,)): lot counts
        ``x_i / l_i`` and used indicators ``[x_i > 0]`` appended.  Shape (n,), float."""
        xa = np.asarray(x, dtype=float)
        if not self.aux_of.size:
            return xa
        xi = xa[self.aux_of]
        aux = np.where(self.aux_lot > 0, xi / np.where(self.aux_lot > 0, self.aux_lot, 1.0), xi > 0)
        return np.concatenate((xa, aux))

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
        if not any(row.index is not None for row in self.rows):
            A = np.vstack([row.coef for row in self.rows]) if m else np.zeros((0, self.n))
            mask = A.T != 0  # (n, m): column-major walk
            counts = mask.sum(axis=1)
            start = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
            cols, rows = np.nonzero(mask)
            return start, rows.astype(np.int32), A[rows, cols]
        parts = [(row.terms(), j) for j, row in enumerate(self.rows)]
        cols = np.concatenate([t[0] for t, _ in parts]).astype(np.int64)
        vals = np.concatenate([t[1] for t, _ in parts])
        rows_of = np.concatenate([np.full(t[0].size, j, dtype=np.int64) for t, j in parts])
        order = np.lexsort((rows_of, cols))
        counts = np.bincount(cols, minlength=self.n)
        start = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
        return start, rows_of[order].astype(np.int32), vals[order]

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
        # Rows: quality sum (q_i - alpha) x_i >= 0 (average quality of the units >= alpha);
        # budget sum c_i x_i (+ sum f_i u_i) <= B; demand sum x_i >= D; the planner's rows.
        senses = {">=": pulp.LpConstraintGE, "<=": pulp.LpConstraintLE, "=": pulp.LpConstraintEQ}
        for row in self.rows:
            idx, val = row.terms() if row.index is not None else (range(self.n), row.coef)
            expr = pulp.LpAffineExpression(zip((x[i] for i in idx), np.asarray(val).tolist()))
            prob.addConstraint(pulp.LpConstraint(expr, senses[row.sense], row.name, row.rhs))
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
            nz, vals = row.terms()
            for i, v in zip(nz.tolist(), vals.tolist()):
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
    exact = scale == 1.0  # the sides' exact terms, for a scale of 1
    rows = [LinearRow("quality", np.asarray(problem.quality_margin) * scale, -tol * scale, np.inf, real=True,
                      tol=tol, side=(-tol,) if exact else None)]
    on_used: list[LinearRow] = []
    # Every constraint in force through its object (budget and demand first, as their keywords'
    # objects come first; the must lists are bounds and the group limits rows of the planner's
    # form, without rows here), each row tagged real or integral.
    for c in problem.constraints:
        for r in c.rows():
            s = scale if r.real else 1.0
            row = LinearRow(c.name + r.suffix, np.asarray(r.coef, dtype=float) * s, r.lower * s, r.upper * s,
                            real=r.real, tol=r.tol, side=r.side if exact else None)
            (on_used if r.on == "used" else rows).append(row)
    if on_used or problem.extensions & PLANNER_EXTENSIONS_SET:
        return planner_form(problem, rows, scale, on_used)
    return LinearForm(np.asarray(problem.utility, dtype=float),
                      problem.lower_bounds().astype(float), problem.upper_bounds().astype(float),
                      tuple(rows))


def planner_form(problem: SubsetSelectionProblem, rows: list[LinearRow], scale: float = 1.0,
                 on_used: Sequence[LinearRow] = ()) -> LinearForm:
    """The integer program with the planner's fields (see :mod:`subsel.models.planner`).

    Beside the units ``x_i`` it has, per agent that needs them, an integer lot count ``z_i``
    (``x_i - l_i z_i = 0``, row ``lot_<i>``) and a binary "used" variable ``u_i``, linked by
    ``x_i - ub_i u_i <= 0`` (``used_max_<i>``) and ``x_i - m_i u_i >= 0`` (``used_min_<i>``), so that
    ``u_i = [x_i > 0]`` exactly and a used agent gives at least its minimum order.  The fixed cost
    enters the objective as ``-f_i u_i`` and the budget row as ``+f_i u_i``; a group's limits are
    the rows ``sum_{i in g} x_i`` (``group_units_<j>_min`` / ``_max``) and ``sum_{i in g} u_i``
    (``group_agents_<j>_min`` / ``_max``), ``j`` the group's position in
    ``problem.group`` order of first appearance.

    Parameters
    ----------
    problem : SubsetSelectionProblem
    rows : list of LinearRow
        The dense rows over the units (quality, budget, demand), as :func:`linear_form` built them.
    scale : float, default 1.0
        The scale of the budget row (see :func:`linear_form`), applied to the fixed costs too.
    on_used : sequence of LinearRow
        Rows of constraint objects over the used indicators ``[x_i > 0]`` (coefficients of shape
        (n,)), written over the used variables ``u_i`` of the agents they name.

    Returns
    -------
    LinearForm
    """
    n = problem.n
    lb, ub = problem.lower_bounds(), problem.upper_bounds()
    m, lot, f = problem.min_units, problem.lot_size, problem.fixed_cost
    planner = problem._planner if problem._planner is not None else unconstrained(n)
    gi, groups, limits = planner.group_index, planner.group_names, planner.group_limits
    counted_groups = np.array([bool(limits.get(g, {}).keys() & {"min_agents", "max_agents"}) for g in groups]
                              + [False], dtype=bool)  # index -1: no group
    live = ub > 0
    need_lots = live & (lot > 1)
    named = np.zeros(n, dtype=bool)
    for r in on_used:
        named |= np.asarray(r.coef) != 0
    need_used = live & ((m > 1) | (f > 0) | counted_groups[gi] | named)
    lots_of = np.flatnonzero(need_lots)
    used_of = np.flatnonzero(need_used)
    aux_of = np.concatenate((lots_of, used_of)).astype(np.int64)
    aux_lot = np.concatenate((lot[lots_of].astype(float), np.zeros(used_of.size)))
    z0, u0 = n, n + lots_of.size  # first lot count, first used variable
    total = u0 + used_of.size
    used_var = np.full(n, -1, dtype=np.int64)
    used_var[used_of] = u0 + np.arange(used_of.size)

    def widen(coef: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
        out = np.zeros(total)
        out[:n] = coef
        if extra is not None:
            out[u0:] = extra[used_of]
        return out

    objective = widen(np.asarray(problem.utility, dtype=float), -np.asarray(f, dtype=float))
    dense = [replace(r, coef=widen(r.coef, np.asarray(f, dtype=float) * scale if r.name == "budget" else None))
             for r in rows]
    lower = np.concatenate((lb, -(-lb[lots_of] // lot[lots_of]), (lb[used_of] > 0))).astype(float)
    upper = np.concatenate((ub, ub[lots_of] // lot[lots_of], np.ones(used_of.size))).astype(float)
    out = list(dense)
    for j, g in enumerate(groups):
        lim = limits.get(g, {})
        members = np.flatnonzero((gi == j) & live)
        for what, var in (("units", members), ("agents", used_var[members])):
            for side in ("min", "max"):
                key = f"{side}_{what}"
                if key in lim:
                    bound = float(lim[key])
                    out.append(LinearRow(f"group_{what}_{j}_{side}", np.ones(var.size), bound if side == "min"
                                         else -np.inf, bound if side == "max" else np.inf, var))
    for r in on_used:  # sum_i a_i [x_i > 0] on the used variables (an agent fixed at 0 has u_i = 0)
        nz = np.flatnonzero(live & (np.asarray(r.coef) != 0))
        out.append(replace(r, coef=np.asarray(r.coef, dtype=float)[nz], index=used_var[nz]))
    for k, i in enumerate(lots_of.tolist()):
        out.append(LinearRow(f"lot_{i}", np.array([1.0, -float(lot[i])]), 0.0, 0.0, np.array([i, z0 + k])))
    for k, i in enumerate(used_of.tolist()):
        v = np.array([i, u0 + k])
        out.append(LinearRow(f"used_max_{i}", np.array([1.0, -float(ub[i])]), -np.inf, 0.0, v))
        if m[i] > 1:
            out.append(LinearRow(f"used_min_{i}", np.array([1.0, -float(m[i])]), 0.0, np.inf, v))
        else:  # x_i >= u_i
            out.append(LinearRow(f"used_min_{i}", np.array([1.0, -1.0]), 0.0, np.inf, v))
    return LinearForm(objective, lower, upper, tuple(out), aux_of, aux_lot)


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


#: A float written so that every reader gets the same double back.
_num = exact_text


def _all_names(problem: SubsetSelectionProblem, form: LinearForm) -> list[str]:
    """Names of every column: the agents' (:func:`variable_names`), then ``lots_<agent>`` and
    ``used_<agent>`` for the planner's auxiliary variables."""
    names = variable_names(problem)
    aux = [("lots_" if lot > 0 else "used_") + names[i][2:]
           for i, lot in zip(form.aux_of.tolist(), form.aux_lot.tolist())]
    return names + aux


def lp_text(problem: SubsetSelectionProblem) -> str:
    """The integer program as CPLEX LP text (maximise the utility; see :func:`write_lp`)."""
    form = linear_form(problem)
    names = _all_names(problem, form)

    def expr(row: np.ndarray | LinearRow) -> list[str]:
        idx, vals = row.terms() if isinstance(row, LinearRow) else (np.flatnonzero(row), row[np.flatnonzero(row)])
        terms = []
        for i, c in zip(idx.tolist(), vals.tolist()):
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
        body = ["   " + line for line in expr(row)]
        body[-1] += f" {row.sense} {_num(row.rhs)}"
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
    names = _all_names(problem, form)
    width = max(8, max(len(v) for v in names))
    senses = {">=": "G", "<=": "L", "=": "E"}
    out = [f"* subsel subset-selection model: {counted(problem.n, 'agent')}, alpha = {problem.alpha!r}, "
           f"R = {problem.R!r}",
           "* The objective row neg_utility is MINIMISED: it is minus the utility sum r_i x_i, so the",
           "* optimum is minus the best utility.  (No OBJSENSE section: readers that ignore it would",
           "* otherwise minimise a maximisation.)  Variables x_<agent name>: see",
           "* subsel.models.variable_names for the mapping.",
           "NAME          subset_selection",
           "ROWS",
           " N  neg_utility"]
    out += [f" {senses[row.sense]}  {row.name}" for row in form.rows]
    out.append("COLUMNS")
    out.append("    MARKER    'MARKER'                 'INTORG'")
    entries: list[list[tuple[str, float]]] = [[] for _ in range(form.n)]  # per column: (row, coef)
    for row in form.rows:
        idx, vals = row.terms()
        for i, c in zip(idx.tolist(), vals.tolist()):
            entries[i].append((row.name, c))
    for i, var in enumerate(names):
        r = -float(form.objective[i])
        out.append(f"    {var:<{width}}  neg_utility  {_num(r) if r != 0 else '0'}")
        for name, c in entries[i]:
            out.append(f"    {var:<{width}}  {name:<11}  {_num(c)}")
    out.append("    MARKER    'MARKER'                 'INTEND'")
    out.append("RHS")
    for row in form.rows:
        out.append(f"    RHS       {row.name:<11}  {_num(row.rhs)}")
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
