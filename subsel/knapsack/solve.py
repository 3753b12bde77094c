"""The public integer knapsack API: :func:`solve_knapsack` and its :class:`KnapsackSolution`.

Maximise ``v . x`` subject to ``w . x <= C`` with ``x_j`` in ``{0, ..., k_j}`` (``k_j = 1``: the 0-1
knapsack; ``counts``: the bounded knapsack), on integers in and integers out, in the manner of
OR-Tools' ``KnapsackSolver`` (init, solve, read the answer, ask whether it is proven).  The solver is
the expanding-core dynamic program behind ``exact`` (Pisinger, "A minimal algorithm for the 0-1
knapsack problem", Operations Research 45(5), 1997; Martello, Pisinger, Toth, "Dynamic programming
and strong bounds for the 0-1 knapsack problem", Management Science 45(3), 1999); bounded items are
split into binary pieces of 1, 2, 4, ... units (Martello and Toth, *Knapsack Problems*, Wiley, 1990,
Section 3.2), each unit count first capped at what fits.

Arithmetic is exact: the data are integers, and every sum the dynamic program forms (a sum of values
or of weights of distinct pieces) is an integer of at most :data:`MAX_KNAPSACK_TOTAL` = 2^62.  Up to
:data:`FLOAT_EXACT_TOTAL` = 2^52 the state lists are float64 (exact there, and the faster path);
above it they are int64, with the bounds widened by their rounding error.  The answer's value and
weight are summed again in integers and checked.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import _entry_error, _reject_booleans, check_scalar, readonly
from ..models._rules import MAX_EXACT_INT, MAX_KNAPSACK_TOTAL
from . import _knapsack
from ._knapsack import DEFAULT_MEMORY_LIMIT_MB, KnapsackResult, binary_pieces, int_tolerance
from ._knapsack import solve_core as _solve_core
from ._options import check_options
from ._small_knapsack import solve_small
from ._status import SolverError, Status
from ._ties import RuleStopped, SubSolver, lex_greatest

__all__ = ["DEFAULT_MEMORY_LIMIT_MB", "FLOAT_EXACT_TOTAL", "MAX_KNAPSACK_TOTAL", "KnapsackSolution", "check_options",
           "solve_knapsack"]

#: Up to this total every sum is exact in float64, and the dynamic program runs on floats.
FLOAT_EXACT_TOTAL = 2 ** 52


@dataclass(frozen=True, eq=False)
class KnapsackSolution:
    """The answer of :func:`solve_knapsack`.

    Attributes
    ----------
    x : ndarray of int64, shape (m,)
        Copies taken of each item (0 or 1 for the 0-1 knapsack, at most ``counts[j]`` otherwise);
        read-only.  Always feasible: ``weights . x <= capacity``.
    value : int
        ``values . x``, summed in integers.
    weight : int
        ``weights . x``, summed in integers (``<= capacity``).
    status : Status
        ``optimal`` when the search proved that no selection has a larger value; ``time_limit`` when
        the time or memory limit stopped it first (``x`` is then the best selection found).
    bound : int
        An upper bound on the optimal value (``value`` when ``optimal``).
    wall_time_s : float
        Seconds spent in the call, checks included.
    stopped_by : {"time_limit", "memory_limit"} or None
        Which limit ended the search short of its proof (``status`` is ``time_limit`` for both):
        ``"time_limit"`` (the search stops when its next step would end past the limit, so
        ``wall_time_s`` may be a little below ``time_limit_s``) or ``"memory_limit"`` (the next
        step's state lists would pass ``memory_limit_mb``); None when ``optimal``.
    """

    x: np.ndarray
    value: int
    weight: int
    status: Status
    bound: int
    wall_time_s: float
    stopped_by: str | None = None

    @property
    def optimal(self) -> bool:
        """True when the answer is proven optimal."""
        return self.status is Status.OPTIMAL

    @classmethod
    def _optimal(cls, x: np.ndarray, value: int, weight: int, wall_time_s: float) -> "KnapsackSolution":
        """A proven optimum (``bound = value``), built without the dataclass machinery (the fixed cost
        of a small call); ``x`` read-only."""
        self = object.__new__(cls)
        self.__dict__.update(x=x, value=value, weight=weight, status=Status.OPTIMAL, bound=value,
                             wall_time_s=wall_time_s, stopped_by=None)
        return self


def _as_int_array(value: Any, field_name: str) -> np.ndarray:
    """``value`` as a fresh one-dimensional int64 array of integers in ``[0, 2^62]``.

    Integral floats are accepted; Python ints are checked before any conversion (never rounded).

    Raises
    ------
    TypeError
        Not numbers, or booleans.
    ValueError
        Not one-dimensional; an entry negative, not an integer, not finite or above 2^62 (naming
        the first such index and its value).
    """
    _reject_booleans(value, field_name)
    try:
        raw = value if isinstance(value, np.ndarray) else np.asarray(value)
        if isinstance(value, (list, tuple)) and raw.dtype.kind == "f" and raw.size \
                and not float(np.abs(raw).max()) < MAX_EXACT_INT:
            raw = np.array(value, dtype=object)   # a Python int beyond 2^53 next to a float: never rounded
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{field_name} must be an array of integers; got {value!r}") from exc
    if raw.ndim != 1:
        raise ValueError(f"{field_name} must be one-dimensional; got shape {raw.shape}")
    limit = MAX_KNAPSACK_TOTAL
    if raw.dtype.kind == "O":  # Python ints (of any size), floats and other number objects: each exactly
        exact = []
        for i, v in enumerate(raw.tolist()):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise TypeError(f"{field_name}[{i}] must be an integer; got {v!r}")
            at = np.arange(raw.size) == i
            if isinstance(v, (float, np.floating)):
                if not math.isfinite(v):
                    raise _entry_error(field_name, at, raw, "must be a finite integer", v)
                if not float(v).is_integer():
                    raise _entry_error(field_name, at, raw,
                                       "must be an integer (a float is accepted only when integral)", v)
            n = int(v)
            if not 0 <= n <= limit:
                rule = "must be >= 0" if n < 0 else f"must be at most 2^62 = {limit}"
                raise _entry_error(field_name, at, raw, rule, v if isinstance(v, (float, np.floating)) else n)
            exact.append(n)
        raw = np.array(exact, dtype=np.int64)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"{field_name} must be an array of integers; got {value!r}")
    if raw.dtype.kind == "f":
        if raw.size and not np.isfinite(raw).all():
            raise _entry_error(field_name, ~np.isfinite(raw), raw, "must be a finite integer")
        frac = raw != np.floor(raw)
        if frac.any():
            raise _entry_error(field_name, frac, raw, "must be an integer (a float is accepted only when integral)")
    if raw.size:
        if raw.min() < 0:
            raise _entry_error(field_name, raw < 0, raw, "must be >= 0")
        with np.errstate(over="ignore"):   # (float16 cannot hold 2^62: the comparison is still right)
            too_big = raw.max() > limit
        if too_big:
            big = raw > limit
            got = raw[big][0]
            raise _entry_error(field_name, big, raw, f"must be at most 2^62 = {limit}",
                               int(got) if raw.dtype.kind in "iu" else got)
    return raw.astype(np.int64)


def _as_int(value: Any, field_name: str) -> int:
    """A non-negative integer scalar (int, numpy integer or integral float) as a Python int."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        v = int(value)
    else:
        f = check_scalar(value, field_name)
        if not f.is_integer():
            raise ValueError(f"{field_name} must be an integer (a float is accepted only when integral); "
                             f"got {f!r}")
        v = int(f)
    if v < 0:
        raise ValueError(f"{field_name} must be >= 0; got {v}")
    return v


def _total(arr: np.ndarray, copies: np.ndarray) -> int:
    """The exact ``sum arr * copies`` of non-negative int64 arrays (in Python ints when int64 could
    overflow)."""
    # Elementwise products, not a BLAS dot product (slow when a multi-threaded BLAS shares the machine).
    if float((arr.astype(float) * copies).sum()) < 2.0 ** 61:
        return int((arr * copies).sum())
    return sum(a * b for a, b in zip(arr.tolist(), copies.tolist()))


def _core(memory: int | None, deadline: float | None, stops: list[str] | None = None) -> SubSolver:
    """The exact sub-solver of the rule among equal optima: the knapsack core under the call's
    limits (a question they cut short comes back undecided: the rule then raises
    :class:`RuleStopped`; ``stops`` gets the limit that cut it, ``"time"`` or ``"memory"``)."""
    def solve(p: np.ndarray, w: np.ndarray, c: Any, target: Any) -> tuple[np.ndarray, bool]:
        res = _solve_core(p, w, c, deadline, memory, target=target)
        if not res.optimal and stops is not None:
            stops.append(res.stopped)
        return res.take, res.optimal
    return solve


def solve_knapsack(values: Any, weights: Any, capacity: Any, *, counts: Any = None,
                   time_limit_s: float | None = None,
                   memory_limit_mb: float | None = DEFAULT_MEMORY_LIMIT_MB,
                   lexicographic: bool = False) -> KnapsackSolution:
    """Solve an integer 0-1 or bounded knapsack exactly: ``max v.x`` s.t. ``w.x <= C``.

    The expanding-core dynamic program of Pisinger (Operations Research 45(5), 1997) with the bounds
    of combo (Martello, Pisinger, Toth, Management Science 45(3), 1999); a bounded item (``counts``)
    is capped at the copies that fit (``C // w_j``) and split into binary pieces of 1, 2, 4, ...
    copies (Martello and Toth, *Knapsack Problems*, 1990, Section 3.2), so a count of 10^12 costs
    about 40 items.  The arithmetic is exact for totals up to 2^62 (float64 state lists up to 2^52,
    int64 above) and the answer is checked in integers before it is returned.  The core search is
    compiled (a C extension built at install); a 0-1 call without ``lexicographic`` on totals up to
    2^52 is one compiled call from the arrays to the answer (the checks, the items that fit, the
    search), with the same ``x``, status and bound as the general path.

    Parameters
    ----------
    values : array-like of int, shape (m,)
        Value of one copy of each item, integers ``>= 0`` (integral floats accepted).
    weights : array-like of int, shape (m,)
        Weight of one copy of each item, integers ``>= 0``.
    capacity : int
        ``C >= 0`` (any size; a capacity above the total weight lets every item in).
    counts : array-like of int, shape (m,), optional
        Copies available of each item (integers ``>= 0``): a bounded knapsack.  Default: one copy
        each (the 0-1 knapsack).
    time_limit_s : float, optional
        Stop after about this many seconds with the best selection found (status ``time_limit``).
        With ``lexicographic``, deciding the rule counts too: stopped there, the optimum found is
        returned with status ``time_limit`` and ``bound`` equal to its value.  The clock is read
        between core steps and before each of the rule's questions, and the search stops early when
        the next step and the bound of the states would end past the limit.
    memory_limit_mb : float or None, default 1024
        Most memory (MiB) the state lists may take; when the next step would pass it, the search
        stops with the best selection found (status ``time_limit``).  ``None``: no limit.
    lexicographic : bool, default False
        ``True``: where several selections are optimal, return the lexicographically greatest ``x``
        (item 0 first, more copies greater), the rule ``exact`` applies: a fixed order on
        selections, independent of values and weights, so raising an item's value never removes a
        copy of it from the answer.  Deciding it costs little where ties are few but up to a
        thousand times the search where they abound (subset sum, the strongly correlated classes at
        10^4 items: seconds).  ``False``: on a 0-1 knapsack with at most 20 items of positive
        value that fit, the first optimum of the enumeration (Horowitz and Sahni, J. ACM 21(2),
        1974): with ``m <= 10`` such items ``y``, the optimal ``y`` with the smallest
        ``sum_j y_j 2^j``; with ``11 <= m <= 20``, the first ``h = m // 2`` of them so, completed by
        the heaviest optimal rest (equal weights: the largest ``sum_j y_{h+j} 2^j``).  Otherwise the
        first optimum the search reaches (items in decreasing efficiency, equal efficiencies by index;
        the core grown alternately from the break item; among states of equal weight and value the
        first reached kept): a deterministic function of the input, but no particular optimal
        selection.  The documentation's "Which optimal selection you get"
        lists every solver's choice.

    Returns
    -------
    KnapsackSolution
        ``x`` (int64, shape (m,)), ``value`` and ``weight`` as Python ints, ``status``, ``bound`` and
        ``wall_time_s``.  Where several selections are optimal: with ``lexicographic``, the
        lexicographically greatest of them (decided only with status ``optimal``).

    Raises
    ------
    TypeError
        Arrays that are not numbers, or booleans; ``lexicographic`` not a bool.
    ValueError
        Arrays of different lengths or not one-dimensional; an entry negative, not an integer or
        above 2^62 (naming the array, the index and the value); a negative or non-integral capacity;
        the total of the values, or of the weights of the copies that fit, above 2^62;
        ``time_limit_s`` or ``memory_limit_mb`` not a positive finite number (``None``: no limit).
    SolverError
        The answer failed the integer check (never seen; a bug to report).

    Examples
    --------
    >>> from subsel import solve_knapsack
    >>> sol = solve_knapsack([10, 7, 6], [5, 4, 3], 8)
    >>> sol.x.tolist(), sol.value, sol.weight, sol.status.value
    ([1, 0, 1], 16, 8, 'optimal')
    >>> solve_knapsack([10, 7, 6], [5, 4, 3], 9, counts=[1, 1, 3]).x.tolist()
    [0, 0, 3]
    """
    start = time.perf_counter()
    if counts is None and time_limit_s is None and lexicographic is False \
            and type(memory_limit_mb) in (int, float) and memory_limit_mb == DEFAULT_MEMORY_LIMIT_MB:
        small = solve_small(values, weights, capacity, start)  # up to 20 items: the fixed cost of a call
        if small is not None:
            x_small, value, weight, seconds = small
            return KnapsackSolution._optimal(x_small, value, weight, seconds)
    time_limit_s, memory_limit_mb = check_options(time_limit_s, memory_limit_mb, lexicographic)
    if counts is None and lexicographic is False:
        compiled = _solve_compiled(values, weights, capacity, start, time_limit_s, memory_limit_mb)
        if compiled is not None:
            return compiled
    v = _as_int_array(values, "values")
    w = _as_int_array(weights, "weights")
    if v.size != w.size:
        raise ValueError(f"values has {v.size} entries but weights has {w.size}; arrays must have the same length")
    cap = _as_int(capacity, "capacity")
    if counts is None:
        k = np.ones(v.size, dtype=np.int64)
    else:
        k = _as_int_array(counts, "counts")
        if k.size != v.size:
            raise ValueError(f"counts has {k.size} entries but values has {v.size}; arrays must have the "
                             "same length")
    # Copies that can be taken at all: those that fit.
    if cap < 2 ** 63:
        fit = np.where(w > 0, np.minimum(k, cap // np.maximum(w, 1)), k)
    else:  # a capacity beyond int64: in Python ints
        fit = np.array([min(a, cap // b) if b else a for a, b in zip(k.tolist(), w.tolist())], dtype=np.int64)
    totals = []
    for name, arr in (("values", v), ("weights", w)):
        totals.append(_total(arr, fit))
        if totals[-1] > MAX_KNAPSACK_TOTAL:
            raise ValueError(f"the {name} of the items (times the copies that fit) sum to {totals[-1]} > 2^62 "
                             f"= {MAX_KNAPSACK_TOTAL}, beyond 64-bit integer sums: divide the {name} by a "
                             "common factor or split the instance")
    cap = min(cap, totals[1])
    floats = max(totals) <= FLOAT_EXACT_TOTAL
    deadline = None if time_limit_s is None else start + time_limit_s
    memory = None if memory_limit_mb is None else int(memory_limit_mb * 2 ** 20)
    # Items that can be taken; without the rule, pieces of no value are never needed (with it, the
    # rule takes them where they fit).
    items = np.flatnonzero((fit > 0) & (v > 0) if not lexicographic else fit > 0)
    single = not items.size or int(fit[items].max()) == 1    # one copy each: the items are the pieces
    if single:
        pv, pw = v[items], w[items]
    else:
        owner, size = binary_pieces(fit[items])
        # The rule's order: by item, the larger pieces of an item first (more copies rank higher).
        rank = np.lexsort((-size, owner))
        owner, size = owner[rank], size[rank]
        pv, pw = v[items][owner] * size, w[items][owner] * size
    if floats:
        pv, pw = pv.astype(float), pw.astype(float)
    c_core = float(cap) if floats else cap
    useful = pv > 0
    if useful.all():
        res = _solve_core(pv, pw, c_core, deadline, memory)
        take = res.take
    else:
        res = _solve_core(pv[useful], pw[useful], c_core, deadline, memory)
        take = np.zeros(pv.size, dtype=bool)
        take[useful] = res.take
    if res.optimal and lexicographic:
        stops: list[str] = []
        try:
            take = lex_greatest(pv, pw, c_core, take, np.ones(pv.size, dtype=bool), _core(memory, deadline, stops),
                                0.0 if floats else int_tolerance(pv), deadline)
        except RuleStopped:   # an optimum, but the rule undecided: status time_limit, bound the optimum
            res = res._replace(optimal=False, bound=res.value, stopped=stops[-1] if stops else "time")
    x = np.zeros(v.size, dtype=np.int64)
    if single:
        x[items[take]] = 1
    else:
        np.add.at(x, items[owner[take]], size[take])
    return _answer(x, v, w, k, cap, res, 1e-6 if floats else int_tolerance(pv), start)


def _answer(x: np.ndarray, v: np.ndarray, w: np.ndarray, k: np.ndarray | None, cap: int, res: KnapsackResult,
            widen: float, start: float, taken: np.ndarray | None = None) -> KnapsackSolution:
    """The solution of the copies ``x`` the core's answer ``res`` gave: its value and weight summed
    in integers and checked (``weights . x <= cap``, ``x <= k``; ``k`` None: 0-1), the status and the
    bound (the core's widened by ``widen``, its rounding error, then rounded down).  ``taken``: the
    items of a 0-1 ``x`` (their values and weights summed instead of every product)."""
    if taken is None:
        value, weight = int((x * v).sum()), int((x * w).sum())
    else:
        value, weight = int(v[taken].sum()), int(w[taken].sum())
    if weight > cap or (k is not None and np.any(x > k)):
        raise SolverError(f"solve_knapsack: the answer weighs {weight} > capacity {cap} (a bug; please report)")
    optimal = res.optimal and value >= res.value
    bound = value if optimal else max(value, math.floor(res.bound + widen))
    return KnapsackSolution(readonly(x, copy=False), value, weight,
                            Status.OPTIMAL if optimal else Status.TIME_LIMIT, bound,
                            time.perf_counter() - start,
                            None if optimal else "memory_limit" if res.stopped == "memory" else "time_limit")


def _solve_compiled(values: Any, weights: Any, capacity: Any, start: float, time_limit_s: float | None,
                    memory_limit_mb: float | None) -> KnapsackSolution | None:
    """A 0-1 call without the rule among equal optima in one compiled call
    (the compiled kernel's ``solve01``); None where the general path must answer (a capacity that is not a
    non-negative integer, arrays of different lengths, an entry or a total out of range: it names
    them; totals beyond float64 or few items; the deadline already past).

    The same steps as the general path's, so the same ``x``, status and bound: the options come
    checked (:func:`check_options`), lists are converted (and checked) as there, int64 arrays inside
    the kernel.  The search runs to its end in the kernel, the surrogate relaxation included; with a
    time limit the kernel reads the clock between budgets of states (the general path reads it before
    the first step too), and a search stopped by a limit gets its bound here.
    """
    nbk = _knapsack._kernel()
    deadline = None if time_limit_s is None else start + time_limit_s
    memory = None if memory_limit_mb is None else int(memory_limit_mb * 2 ** 20)
    if type(values) is np.ndarray and type(weights) is np.ndarray and values.dtype == weights.dtype == np.int64 \
            and values.ndim == weights.ndim == 1:
        v, w = values, weights
        if not (v.flags.c_contiguous and w.flags.c_contiguous):
            v, w = np.ascontiguousarray(v), np.ascontiguousarray(w)   # (the kernel reads contiguous arrays)
    else:
        v, w = _as_int_array(values, "values"), _as_int_array(weights, "weights")
    if v.size != w.size:
        return None
    if type(capacity) is int or isinstance(capacity, np.integer):
        cap = int(capacity)
        if cap < 0:
            return None
    else:
        return None
    if deadline is not None and time.perf_counter() > deadline:
        return None
    r = nbk.solve01(v, w, min(cap, 2 ** 63 - 1), -1 if memory is None else memory,
                    nbk.SIGNAL_BUDGET if deadline is None else nbk.CLOCK_BUDGET, _knapsack._MAX_ENUMERATE,
                    _knapsack._MIN_RELAX, _knapsack._MIN_PAIRING, nbk.take_spare(), deadline, _knapsack.relax_sorted)
    code = r[0]
    if code == nbk.FALLBACK:
        nbk.give_spare(r[33])       # (start_free's spare, after solve01's 11 entries)
        return None
    if code == nbk.DONE:
        nbk.give_spare(r[33])
        x = r[1]
        value, weight, cap_in = int(r[2]), int(r[3]), int(r[4])
        if weight > cap_in:
            raise SolverError(f"solve_knapsack: the answer weighs {weight} > capacity {cap_in} (a bug; please "
                              "report)")
        if value >= r[13]:
            x.setflags(write=False)
            return KnapsackSolution._optimal(x, value, weight, time.perf_counter() - start)
        res = KnapsackResult(r[12], r[13], r[14], r[13], True, int(r[29][nbk.I_NITEMS]))
        return _answer(x, v, w, None, cap_in, res, 1e-6, start)
    res = nbk.finish_free(r[11:], r[9])     # (stopped by the time or memory limit)
    x = np.zeros(v.size, dtype=np.int64)
    taken = r[5][res.take]
    x[taken] = 1
    return _answer(x, v, w, None, int(r[4]), res, 1e-6, start, taken)
