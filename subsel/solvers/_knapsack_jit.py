"""Compiled kernel (numba) of ``exact`` for small problems: one call from the problem's arrays to the
selection, so that the fixed cost per call is that of a compiled branch and bound.

Importing this module imports numba; :mod:`subsel.solvers.exact` imports it only for
``Exact(jit=True)``, never at ``import subsel``.  The functions are compiled on first use and cached
on disk, so later processes load them instead of compiling.  The cache lives in numba's
``NUMBA_CACHE_DIR`` when set, else in a per-user folder (``$XDG_CACHE_HOME/subsel/numba``, by default
``~/.cache/subsel/numba``), never inside the installed package, so that uninstalling or reinstalling
subsel leaves no stray files in ``site-packages``.

The kernel solves the same 0-1 knapsack as the numpy path of ``exact`` (Deva, Abhishek, Gujar,
AAMAS 2021, Section 3; the reduction in :mod:`subsel.solvers.exact`) by depth-first branch and bound
on the items in efficiency order with the Dantzig bound (Horowitz and Sahni, "Computing partitions
with applications to the knapsack problem", J. ACM 21(2), 1974; Martello and Toth, *Knapsack
Problems*, Wiley, 1990, Section 2.5, algorithm MT1).  It gives up after a number of nodes, and the
caller then runs the dynamic program of :mod:`subsel.solvers._knapsack`, which handles the hard
classes.
"""
from __future__ import annotations

import os
import warnings
from contextlib import contextmanager
from typing import Any, Iterator

import numba as nb
import numpy as np
from numba.core import config as _config_module

#: numba's settings (``CACHE_DIR`` mirrors ``NUMBA_CACHE_DIR``; set at run time, untyped).
_numba_config: Any = _config_module
#: Efficiencies are capped here (p / w overflows on denormal weights); the order is kept.
_MAX_EFFICIENCY = 1e300
#: Integer profits are recognised below this sum (every partial sum exact in float64).
_INT_EXACT = 2.0 ** 52
#: Safety margin of the integer pruning rule ``bound < z + 1`` against the rounding of the bound.
_INT_MARGIN = 1e-6


@nb.njit
def unit_selection(margin: np.ndarray, r: np.ndarray, tol: float, cap_shift: float, node_limit: int
                   ) -> tuple[np.ndarray, int, float, float]:
    """Best selection of a problem with unit capacities and no must lists, by branch and bound.

    Parameters
    ----------
    margin : ndarray of float, shape (n,)
        ``q - alpha`` (the problem's ``quality_margin``).
    r : ndarray of float, shape (n,)
        Per-unit utility.
    tol : float
        The feasibility tolerance, added to the knapsack capacity.
    cap_shift : float
        Added to the capacity too (``<= 0``: the caller's tightening after a failed check).
    node_limit : int
        Nodes of the search after which it gives up.

    Returns
    -------
    (x, done, bound, capacity)
        ``x`` int64 (n,) the selection; ``done`` 1 when the search finished and ``x`` is feasible by
        a margin above the rounding of its float sum (optimal for the knapsack), 2 when it finished
        but ``x`` lies within that margin of the quality bound (the caller decides exactly), 0 when
        it gave up (``x`` the best found); ``bound`` the utility of S1 and S2 plus the Dantzig bound
        of the knapsack; ``capacity`` the knapsack capacity used.
    """
    n = margin.size
    x = np.zeros(n, np.int64)
    val = np.empty(n)
    wt = np.empty(n)
    eff = np.empty(n)
    ids = np.empty(n, np.int64)
    surplus0 = 0.0
    base = 0.0
    m = 0
    # Partition (Deva et al., Section 5.1): S1 and S2 start taken; S3 units are items to add, S2 units
    # items to remove (their value -r > 0 and weight q - alpha > 0).
    for i in range(n):
        mg = margin[i]
        if r[i] >= 0.0:
            if mg >= 0.0:  # S1
                x[i] = 1
                surplus0 += mg
                base += r[i]
            elif r[i] > 0.0:  # S3 with a value
                ids[m] = i
                val[m] = r[i]
                wt[m] = -mg
                m += 1
        elif mg > 0.0:  # S2
            x[i] = 1
            surplus0 += mg
            base += r[i]
            ids[m] = i
            val[m] = -r[i]
            wt[m] = mg
            m += 1
    capacity = surplus0 + tol + cap_shift
    if m == 0 or capacity < 0.0:
        return x, 1 if capacity >= 0.0 else 0, base, capacity
    for k in range(m):
        eff[k] = min(val[k] / wt[k], _MAX_EFFICIENCY)
    order = np.argsort(-eff[:m], kind="mergesort")
    v = val[:m][order]
    w = wt[:m][order]
    e = eff[:m][order]
    item = ids[:m][order]
    total = 0.0
    integer = True
    for k in range(m):
        total += v[k]
        if v[k] != np.floor(v[k]):
            integer = False
    integer = integer and total < _INT_EXACT
    # The bound's rounding error stays below (m + 4) ulps of the total profit: the integer rule's margin.
    margin_int = _INT_MARGIN + 2.0 * (m + 4) * 2.0 ** -52 * total
    # Root Dantzig bound.
    room = capacity
    lp = 0.0
    for k in range(m):
        if w[k] <= room:
            room -= w[k]
            lp += v[k]
        else:
            lp += room * e[k]
            break
    # Depth-first search, greedy forward moves (Horowitz-Sahni): ``cur`` the items taken so far,
    # ``j`` the next undecided item.
    cur = np.zeros(m, np.bool_)
    best = np.zeros(m, np.bool_)
    z = 0.0  # the empty knapsack (start selection) is feasible: capacity >= 0
    cw = 0.0
    cp = 0.0
    j = 0
    nodes = 0
    done = 1
    while True:
        nodes += 1
        if nodes > node_limit:
            done = 0
            break
        room = capacity - cw
        ub = cp
        k = j
        while k < m and w[k] <= room:
            room -= w[k]
            ub += v[k]
            k += 1
        bound = ub + room * e[k] if k < m else ub
        if (bound < z + 1.0 - margin_int) if integer else (bound <= z):
            advance = False
        else:
            for t in range(j, k):
                cur[t] = True
                cw += w[t]
            cp = ub
            if cp > z:
                z = cp
                best[:] = cur
            advance = k < m - 1  # item k does not fit: leave it out and go on after it
            j = k + 1
        if not advance:
            # Backtrack: drop the last item taken and continue after it.
            t = min(j, m) - 1
            while t >= 0 and not cur[t]:
                t -= 1
            if t < 0:
                break
            cur[t] = False
            cw -= w[t]
            cp -= v[t]
            j = t + 1
    for k in range(m):
        if best[k]:
            i = item[k]
            x[i] = 1 - x[i]  # S3: add the unit; S2: remove it
    if done and not _clearly_feasible(x, margin, tol):
        done = 2  # near the bound (or over it by rounding): the caller decides exactly
    return x, done, base + lp, capacity


@nb.njit
def _clearly_feasible(x: np.ndarray, margin: np.ndarray, tol: float) -> bool:
    """``sum x_i margin_i >= -tol`` by more than the rounding error of the float sum (the first
    stage of the feasibility rule of ``SubsetSelectionProblem.evaluate``; False also when the
    exact decision is needed)."""
    s = 0.0
    a = 0.0
    for i in range(x.size):
        if x[i]:
            s += x[i] * margin[i]
            a += x[i] * abs(margin[i])
    err = (x.size + 4) * 2.0 ** -52 * a * 1.01 + 2.0 ** -51 * tol + 1e-300
    return s - err > -tol


def cache_dir() -> str:
    """The folder of the kernel's disk cache: numba's ``NUMBA_CACHE_DIR`` when the user set one, else
    ``$XDG_CACHE_HOME/subsel/numba`` (``~/.cache/subsel/numba`` by default)."""
    if _numba_config.CACHE_DIR:
        return str(_numba_config.CACHE_DIR)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "subsel", "numba")


@contextmanager
def _numba_cache_dir(path: str) -> Iterator[None]:
    """numba's cache folder set to ``path`` while caches are attached (read when a cache is made)."""
    saved = _numba_config.CACHE_DIR
    _numba_config.CACHE_DIR = path
    try:
        yield
    finally:
        _numba_config.CACHE_DIR = saved


def _enable_caching() -> None:
    """Attach the disk cache to the kernels; without a writable cache folder they are compiled in
    each process instead (warned)."""
    try:
        with _numba_cache_dir(cache_dir()):
            for kernel in (_clearly_feasible, unit_selection):
                kernel.enable_caching()
    except Exception as exc:  # no writable folder: compile per process
        warnings.warn(f"exact: no cache for the compiled kernel in {cache_dir()} ({exc}); it is compiled "
                      "in each process", RuntimeWarning, stacklevel=2)


_enable_caching()
