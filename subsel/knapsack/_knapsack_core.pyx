# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=False
"""Compiled core of the knapsack dynamic program (Cython, built at install): the expanding core with
Pareto state lists, the bounds that drop states, the reduction of items, combo's pairing of states
with items, the backtracking, the break item by selection, combo's greedy solutions, the surrogate
relaxation's multiplier and knapsacks, the whole default 0-1 call, and the small-problem branch and
bound of ``exact``.

On integer data (int64, or integers in float64) and on real-valued data alike, every float it
compares is computed by the same operations in the same order as the description in
:mod:`subsel.knapsack._knapsack` (no fast-math, no fused multiply-add: the C compiler's defaults), so
the answer, among equal optima too, is a deterministic function of the input.  Python semantics of
``%`` and ``//`` are kept (``cdivision=False``); the hot loops divide nothing.

Functions taking profits and weights are compiled for int64 and for float64 data (a fused type);
their Python entry points pick the version from the profits' dtype.

References
----------
D. Pisinger, "A minimal algorithm for the 0-1 knapsack problem", Operations Research 45(5):758-767,
1997.  S. Martello, D. Pisinger and P. Toth, "Dynamic programming and strong bounds for the 0-1
knapsack problem", Management Science 45(3):414-424, 1999 (Section 5: pairing of states with items).
S. Martello and P. Toth, *Knapsack Problems*, Wiley, 1990 (Section 2.2.2: the break item by
selection).  E. Horowitz and S. Sahni, "Computing partitions with applications to the knapsack
problem", Journal of the ACM 21(2):277-292, 1974 (the depth-first branch and bound).
"""
import math
import threading
from time import perf_counter as _perf_counter

import numpy as np

cimport cython
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport INFINITY, ceil, fabs, floor, frexp, pow
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

cnp.import_array()

ctypedef fused num:
    int64_t
    double

#: Every integer up to this is exact in float64.
cdef double _EXACT = 9007199254740992.0         # 2^53 (subsel.models.MAX_EXACT_INT)
#: Core steps per saved block of the solution history (bits of a state's flips).
BLOCK = _BLOCK_C
#: Bytes counted per state against a memory limit.
cdef int64_t _BYTES_PER_STATE = 200
#: Core steps between two refreshes of the free items.
cdef int64_t _REFRESH_EVERY = 4
#: Efficiencies are capped here (p / w overflows on denormal weights); the order is kept.
cdef double _MAX_EFFICIENCY = 1e300
#: Safety margin of the integer pruning rule ``bound < z + 1`` against the rounding of the bound.
cdef double _INT_MARGIN = 1e-6
cdef double _MANTISSA = 9007199254740992.0      # 2^53
#: Entries between two state buffers of one block (:func:`_carve`).
cdef Py_ssize_t _SET_GAP = 40
#: Most ranges of efficiency of the histogram :func:`break_split` finds the break item's range with.
cdef int64_t _BUCKETS = 2048

#: Return codes of :func:`run`, and of :func:`start_free` / :func:`solve01` when the Python glue answers.
DONE, BUDGET, MEMORY, RELAX = 0, 1, 2, 3
FALLBACK = -1
#: Return code of :func:`search_loop` (and of :func:`solve01`) when the clock stopped the search.
TIME = 4
#: Fields of the integer state vector ``ist`` of :func:`run`.
(I_S, I_T, I_SIDE, I_NITEMS, I_NBLOCKS, I_LAST_REFRESH, I_NEXT_PAIRING, I_RELAX_DONE, I_ZKIND,
 I_ZBLOCK, I_ZANC, I_ZEXTRA, I_SAVED, I_CORE_DONE, I_DIV) = range(15)
IST_SIZE = 15
#: Fields of the value vector ``zst`` (the profits' dtype): incumbent, incumbent at the last refresh,
#: global upper bound, the break solution's weight.
Z, Z_FRESH, UB, WB = 0, 1, 2, 3



cdef enum:
    _BLOCK_C = 64
    C_I_S = 0
    C_I_T = 1
    C_I_SIDE = 2
    C_I_NITEMS = 3
    C_I_NBLOCKS = 4
    C_I_LAST_REFRESH = 5
    C_I_NEXT_PAIRING = 6
    C_I_RELAX_DONE = 7
    C_I_ZKIND = 8
    C_I_ZBLOCK = 9
    C_I_ZANC = 10
    C_I_ZEXTRA = 11
    C_I_SAVED = 12
    C_I_DIV = 14
    C_Z = 0
    C_Z_FRESH = 1
    C_UB = 2
    C_WB = 3
    C_DONE = 0
    C_BUDGET = 1
    C_MEMORY = 2
    C_RELAX = 3
    C_TIME = 4
    C_FALLBACK = -1


cdef inline object _empty(Py_ssize_t n, int typenum):
    """``np.empty(n, dtype)`` through numpy's C API (a tenth of the Python call's time)."""
    cdef cnp.npy_intp dim = n
    return cnp.PyArray_EMPTY(1, &dim, typenum, 0)


cdef inline object _zeros(Py_ssize_t n, int typenum):
    """``np.zeros(n, dtype)`` through numpy's C API."""
    cdef cnp.npy_intp dim = n
    return cnp.PyArray_ZEROS(1, &dim, typenum, 0)


cdef inline double _pymax(double a, double b) noexcept nogil:
    """Python's ``max(a, b)``: ``a`` unless ``b > a``."""
    return b if b > a else a


cdef inline double _pymin(double a, double b) noexcept nogil:
    """Python's ``min(a, b)``: ``a`` unless ``b < a``."""
    return b if b < a else a


cdef inline object _dtype_of(num zero):
    """The numpy dtype of the fused type's version."""
    if num is int64_t:
        return np.int64
    return np.float64


# ---------------------------------------------------------------------------------------------
# The core search
# ---------------------------------------------------------------------------------------------
# The search reads and writes its arrays through raw pointers (checked for dtype and contiguity by
# :func:`_data` once per call): a typed memoryview costs about a microsecond to acquire, and a
# search on a small core is a few microseconds in all.

cdef void* _data(object a, int typenum, Py_ssize_t need) except NULL:
    """The data pointer of ndarray ``a``, after checking its dtype, contiguity and length
    (``>= need``); a TypeError or ValueError otherwise (NULL is never a valid pointer here: an
    empty array's pointer is not NULL in numpy)."""
    if not cnp.PyArray_Check(a):
        raise TypeError(f"the knapsack kernel takes numpy arrays; got {type(a).__name__}")
    cdef cnp.ndarray arr = <cnp.ndarray>a
    if cnp.PyArray_TYPE(arr) != typenum or not cnp.PyArray_IS_C_CONTIGUOUS(arr) or cnp.PyArray_NDIM(arr) != 1:
        raise TypeError(f"the knapsack kernel takes contiguous 1-d arrays of type {typenum}; got {a.dtype} "
                        f"with shape {a.shape}")
    if cnp.PyArray_DIM(arr, 0) < need:
        raise ValueError(f"the knapsack kernel needs an array of at least {need} entries; got {a.shape[0]}")
    return cnp.PyArray_DATA(arr)


cdef const int64_t* _data_int64(object a, Py_ssize_t need) except NULL:
    """:func:`_data` of an int64 array, of either of numpy's 64-bit integer types where they are two
    (``long`` and ``long long``: equal dtypes, other type numbers)."""
    if cnp.PyArray_Check(a) and cnp.PyArray_TYPE(<cnp.ndarray>a) != cnp.NPY_INT64 \
            and cnp.PyArray_ISSIGNED(<cnp.ndarray>a) and cnp.PyArray_ITEMSIZE(<cnp.ndarray>a) == 8:
        return <const int64_t*>_data(a, cnp.PyArray_TYPE(<cnp.ndarray>a), need)
    return <const int64_t*>_data(a, cnp.NPY_INT64, need)


cdef inline int _typenum(num zero) noexcept:
    """numpy's type number of the fused type's version."""
    if num is int64_t:
        return cnp.NPY_INT64
    return cnp.NPY_FLOAT64


cdef Py_ssize_t _refresh(const double* flip_bound, const num* w, Py_ssize_t m, num z, bint integer, double margin,
                         num big, int64_t* idx, num* min_left, num* min_right) noexcept nogil:
    """Free items (those an improving solution may flip: their count returned, their indices in
    ``idx``) and their weight prefix/suffix minima (``big`` where there is none: inf, or the
    largest int64), into buffers of ``m`` entries."""
    cdef Py_ssize_t j, k = 0
    cdef double thr = z + 1.0 - margin
    cdef bint f
    cdef num cur = big
    for j in range(m):
        f = flip_bound[j] >= thr if integer else flip_bound[j] > z
        if f:
            idx[k] = j
            k += 1
            if w[j] < cur:
                cur = w[j]
        min_left[j] = cur
    cur = big
    for j in range(m - 1, -1, -1):
        f = flip_bound[j] >= thr if integer else flip_bound[j] > z
        if f and w[j] < cur:
            cur = w[j]
        min_right[j] = cur
    return k


cdef num _free_capacity(num c, num wb, const num* w, const int64_t* idx, Py_ssize_t nidx):
    """``_knapsack.free_capacity``: ``c`` rounded down to ``wb`` plus a multiple of the greatest
    common divisor of the weights ``w[idx]`` (``c`` itself when it is at most 1)."""
    cdef int64_t g = 0, x, tmp
    cdef Py_ssize_t q
    for q in range(nidx):
        x = <int64_t>w[idx[q]]
        while x != 0:
            tmp = g % x
            g = x
            x = tmp
        if g == 1:
            return c
    if g <= 1:
        return c
    return c - (c - wb) % g


cdef bint _divisible(const double* w, const int64_t* idx, Py_ssize_t nidx, double c, double wb):
    """``_knapsack.divisible(w[idx[:nidx]], c, wb)`` on float64 data: the capacity below 2^53, the
    break weight ``wb`` and the weights ``w[idx]`` integral (their sums are then exact)."""
    cdef Py_ssize_t q
    if not (c < _EXACT and wb == floor(wb)):
        return False
    for q in range(nidx):
        if w[idx[q]] != floor(w[idx[q]]):
            return False
    return True


cdef inline Py_ssize_t _search_right(const num* a, Py_ssize_t n, num v) noexcept nogil:
    """``np.searchsorted(a[:n], v, side="right")``."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if v < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline Py_ssize_t _search_left_p(const int64_t* a, Py_ssize_t n, int64_t v) noexcept nogil:
    """``np.searchsorted(a[:n], v, side="left")`` on item indices."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline Py_ssize_t _search_right_i(const int64_t[::1] a, int64_t v) noexcept nogil:
    """``np.searchsorted(a, v, side="right")`` on item indices."""
    return _search_right(&a[0], a.shape[0], v) if a.shape[0] else 0


cdef inline Py_ssize_t _search_left_i(const int64_t[::1] a, int64_t v) noexcept nogil:
    """``np.searchsorted(a, v, side="left")`` on item indices."""
    return _search_left_p(&a[0], a.shape[0], v) if a.shape[0] else 0


cdef inline double _bound(num Wi, num Pi, num c, bint has_left, bint has_right, double eL, double eR,
                          num mL, num mR) noexcept nogil:
    """Upper bound of one state over all flips of the items outside the core: the formula of
    ``_knapsack._state_bounds``, with its operations in the same order (so the same float)."""
    cdef num slack = c - Wi
    cdef num om
    cdef double gain
    if slack >= 0:
        if has_right:
            gain = eR * slack
            if slack < mR:
                if has_left:
                    gain = gain - (eL - eR) * (mR - slack)
                else:
                    gain = 0.0
            if gain < 0.0:
                gain = 0.0
            return Pi + gain
        return Pi + 0.0
    if has_left:
        om = -slack
        return Pi - eR * om - (eL - eR) * (mL if mL > om else om)
    return -INFINITY


cdef inline bint _improving(double bound, num z, bint integer, double margin) noexcept nogil:
    """Whether a bound still allows a solution strictly better than ``z``."""
    if integer:
        return bound >= z + 1.0 - margin
    return bound > z


def _grow(a, Py_ssize_t need):
    """``a`` itself when it holds ``need`` entries, else a copy at least twice as long."""
    if need <= a.size:
        return a
    out = np.empty(max(need, 2 * a.size), a.dtype)
    out[:a.size] = a
    return out


def _state_sets(Py_ssize_t n):
    """One block for two state lists' buffers (weights, profits, ancestors, bits; ``n`` entries
    each), the eight at fixed distances (``8 (n + 40)`` int64 entries, buffer ``k`` at ``k`` times
    an eighth of the block), so that the two lists a step reads and writes lie the same way
    relative to each other in every process (as separate allocations they fall anywhere, and how
    they fall changed the step's time by half)."""
    return _empty(8 * (n + _SET_GAP), cnp.NPY_INT64)


cdef tuple _run(object p_o, object w_o, object e_o, object fb_o, num c, num big, int64_t b, bint integer,
                double margin, bint has_target, int64_t mem_limit, int64_t budget, int64_t min_relax,
                object W_in, object P_in, object anc_in, object bits_in, object items_o, object hist_anc_o,
                object hist_bits_o, object hist_off_o, object ist_o, object zst_o, object zbits_o, object spare):
    cdef int tn = _typenum(c)
    cdef Py_ssize_t m = cnp.PyArray_SIZE(<cnp.ndarray>p_o) if cnp.PyArray_Check(p_o) else 0
    cdef const num* p = <const num*>_data(p_o, tn, 0)
    cdef const num* w = <const num*>_data(w_o, tn, m)
    cdef const double* e = <const double*>_data(e_o, cnp.NPY_FLOAT64, m)
    cdef const double* flip_bound = <const double*>_data(fb_o, cnp.NPY_FLOAT64, m)
    cdef int64_t* items = <int64_t*>_data(items_o, cnp.NPY_INT64, m)
    cdef int64_t* ist = <int64_t*>_data(ist_o, cnp.NPY_INT64, 15)
    cdef num* zst = <num*>_data(zst_o, tn, 4)
    cdef uint64_t* zbits = <uint64_t*>_data(zbits_o, cnp.NPY_UINT64, 1)
    cdef Py_ssize_t size = cnp.PyArray_SIZE(<cnp.ndarray>W_in) if cnp.PyArray_Check(W_in) else 0
    cdef const num* Wv = <const num*>_data(W_in, tn, 0)
    cdef const num* Pv = <const num*>_data(P_in, tn, size)
    cdef const int64_t* Av = <const int64_t*>_data(anc_in, cnp.NPY_INT64, size)
    cdef const uint64_t* Bv = <const uint64_t*>_data(bits_in, cnp.NPY_UINT64, size)
    cdef int64_t* hist_anc = <int64_t*>_data(hist_anc_o, cnp.NPY_INT64, 0)
    cdef uint64_t* hist_bits = <uint64_t*>_data(hist_bits_o, cnp.NPY_UINT64, 0)
    cdef int64_t* hist_off = <int64_t*>_data(hist_off_o, cnp.NPY_INT64, 1)
    cdef int64_t s = ist[C_I_S], t = ist[C_I_T], side = ist[C_I_SIDE], n_items = ist[C_I_NITEMS]
    cdef int64_t n_blocks = ist[C_I_NBLOCKS], last_refresh = ist[C_I_LAST_REFRESH]
    cdef int64_t next_pairing = ist[C_I_NEXT_PAIRING]
    cdef num z = zst[C_Z], z_fresh = zst[C_Z_FRESH], ub_global = zst[C_UB]
    cdef num c0 = c
    cdef int64_t work = 0
    cdef int code = C_DONE
    cdef Py_ssize_t stride, cap, nfree, n, i, i1, i2, q, lo, hi, k, ck, best_k, end, src, cur_half
    cdef int64_t* blk
    cdef num *bW
    cdef num *bP
    cdef num *cW
    cdef num *cP
    cdef num *tW
    cdef num *tP
    cdef int64_t *bA
    cdef int64_t *cA
    cdef int64_t *tA
    cdef uint64_t *bB
    cdef uint64_t *cB
    cdef uint64_t *tB
    cdef int64_t j, cj, best_j, sgn, si
    cdef bint found, first, has_left, has_right
    cdef num best, cand_best, cv, dw, dp, z_new, wi, pi, run_max, mL, mR
    cdef double eL, eR
    cdef uint64_t shift, flag, inc_bits, bt
    cdef int64_t inc_anc
    # The free items and their weight minima: one buffer of 3 m entries, refreshed in place.
    work_buf = _empty(3 * m + 1, cnp.NPY_INT64)
    cdef int64_t* free_idx = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>work_buf)
    cdef num* min_left = <num*>(free_idx + m)
    cdef num* min_right = <num*>(free_idx + 2 * m)
    nfree = _refresh(flip_bound, w, m, z_fresh, integer, margin, big, free_idx, min_left, min_right)
    if ist[C_I_DIV] != 0:
        c = _free_capacity(c0, zst[C_WB], w, free_idx, nfree)
    # The state list lives at the start of the buffers cW, cP, cA, cB (the block's second half); a
    # step writes the next list into the first half and the halves swap.
    stride = spare.size // 8
    cap = max(stride - _SET_GAP, 0)
    if cap < size:
        spare = _state_sets(max(2 * size, 64))
        stride = spare.size // 8
        cap = stride - _SET_GAP
    blk = <int64_t*>_data(spare, cnp.NPY_INT64, 0)
    bW, bP, bA, bB = <num*>blk, <num*>(blk + stride), blk + 2 * stride, <uint64_t*>(blk + 3 * stride)
    cW, cP, cA, cB = <num*>(blk + 4 * stride), <num*>(blk + 5 * stride), blk + 6 * stride, <uint64_t*>(blk + 7 * stride)
    cur_half = 1
    for i in range(size):    # (the same values when the list already is the start of cW: a resumed search)
        cW[i] = Wv[i]
        cP[i] = Pv[i]
        cA[i] = Av[i]
        cB[i] = Bv[i]
    while True:
        if size == 0 or (s < 0 and t >= m) or z >= ub_global or (has_target and ist[C_I_ZKIND] != 0):
            code = C_DONE
            break
        if work > budget:
            code = C_BUDGET
            break
        if mem_limit >= 0 and ist[C_I_SAVED] + size * _BYTES_PER_STATE > mem_limit:
            code = C_MEMORY
            break
        if ist[C_I_RELAX_DONE] == 0 and size > min_relax:
            code = C_RELAX
            break
        work += size
        if size > next_pairing:
            # Combo's pairing of states with the items outside the core (numpy: _pair_states).
            next_pairing = 2 * size
            found = False
            best = z
            best_k = 0
            best_j = 0
            for si in range(2):
                sgn = 1 if si == 0 else -1
                if integer and found and best >= ub_global:   # (nothing beats the bound: combo stops)
                    break
                first = True
                cand_best = z
                ck = 0
                cj = 0
                if sgn == 1:
                    lo = _search_left_p(free_idx, nfree, t)
                    hi = nfree
                else:
                    lo = 0
                    hi = _search_right(<const int64_t*>free_idx, nfree, s) if s >= 0 else 0
                for q in range(lo, hi):
                    j = free_idx[q]
                    k = _search_right(<const num*>cW, size, c - sgn * w[j]) - 1
                    if k < 0:
                        continue
                    cv = cP[k] + sgn * p[j]
                    if first or cv > cand_best:
                        cand_best, ck, cj, first = cv, k, j, False
                        if integer and cand_best >= ub_global:   # (the first maximum, as numpy argmax)
                            break
                if not first and (not found or cand_best > best):
                    best, best_k, best_j, found = cand_best, ck, cj, True
            if found and best > z:
                z = best
                ist[C_I_ZKIND] = 1
                ist[C_I_ZBLOCK] = n_blocks
                ist[C_I_ZANC] = cA[best_k]
                zbits[0] = cB[best_k]
                ist[C_I_ZEXTRA] = best_j
                continue
        if z > z_fresh and n_items - last_refresh >= _REFRESH_EVERY:
            nfree = _refresh(flip_bound, w, m, z, integer, margin, big, free_idx, min_left, min_right)
            z_fresh = z
            last_refresh = n_items
            if ist[C_I_DIV] != 0:
                c = _free_capacity(c0, zst[C_WB], w, free_idx, nfree)
        # The next item, alternating sides (when one side is exhausted, the other).
        if (side == 1 and t < m) or s < 0:
            j = t
            q = _search_right(<const int64_t*>free_idx, nfree, t)
            t = free_idx[q] if q < nfree else m
        else:
            j = s
            q = _search_left_p(free_idx, nfree, s) - 1
            s = free_idx[q] if q >= 0 else -1
        side = -side
        shift = <uint64_t>(n_items % _BLOCK_C)
        has_left = s >= 0
        has_right = t < m
        eL = e[s] if has_left else INFINITY
        eR = e[t] if has_right else 0.0
        mL = min_left[s] if has_left else min_left[0]
        mR = min_right[t] if has_right else min_right[0]
        # Merge, dominance, incumbent and bounds in one pass, into the other half.  The incumbent
        # (the merged front's heaviest feasible state, i.e. its most profitable one) is known before
        # the pass from the two lists: the states are pruned against it.
        dw = w[j] if j >= b else -w[j]
        dp = p[j] if j >= b else -p[j]
        z_new = z
        k = _search_right(<const num*>cW, size, c) - 1
        if k >= 0 and cP[k] > z_new:
            z_new = cP[k]
        k = _search_right(<const num*>cW, size, c - dw) - 1
        if k >= 0 and cP[k] + dp > z_new:
            z_new = cP[k] + dp
        if cap < 2 * size:
            old = spare    # (the list is read from it below: it must outlive the copy)
            spare = _state_sets(max(2 * size, 2 * cap))
            stride = spare.size // 8
            cap = stride - _SET_GAP
            blk = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>spare)
            bW, bP, bA, bB = <num*>blk, <num*>(blk + stride), blk + 2 * stride, <uint64_t*>(blk + 3 * stride)
            tW, tP, tA, tB = <num*>(blk + 4 * stride), <num*>(blk + 5 * stride), blk + 6 * stride, \
                <uint64_t*>(blk + 7 * stride)
            for i in range(size):
                tW[i] = cW[i]
                tP[i] = cP[i]
                tA[i] = cA[i]
                tB[i] = cB[i]
            cW, cP, cA, cB = tW, tP, tA, tB
            cur_half = 1
            old = None
        n = 0
        i1 = 0
        i2 = 0
        run_max = cP[0]
        first = True
        inc_anc = 0
        inc_bits = 0
        flag = (<uint64_t>1) << shift
        with nogil:
            while i1 < size or i2 < size:
                # List 1 before list 2 on equal weights (np.searchsorted side="right").
                if i2 >= size or (i1 < size and cW[i1] <= cW[i2] + dw):
                    wi = cW[i1]
                    pi = cP[i1]
                    src = i1
                    bt = cB[i1]
                    i1 += 1
                else:
                    wi = cW[i2] + dw
                    pi = cP[i2] + dp
                    src = i2
                    bt = cB[i2] | flag
                    i2 += 1
                if first or pi > run_max:
                    # On the front: it dominates a kept state of equal weight (numpy: _pareto).
                    run_max = pi
                    if n > 0 and bW[n - 1] == wi:
                        n -= 1
                    if wi <= c:
                        inc_anc = cA[src]
                        inc_bits = bt
                    if _improving(_bound(wi, pi, c, has_left, has_right, eL, eR, mL, mR), z_new, integer,
                                  margin):
                        bW[n] = wi
                        bP[n] = pi
                        bA[n] = cA[src]
                        bB[n] = bt
                        n += 1
                first = False
        tW, tP, tA, tB = cW, cP, cA, cB
        cW, cP, cA, cB = bW, bP, bA, bB
        bW, bP, bA, bB = tW, tP, tA, tB
        cur_half = 1 - cur_half
        size = n
        items[n_items] = j
        n_items += 1
        if z_new > z:
            z = z_new
            ist[C_I_ZKIND] = 1
            ist[C_I_ZBLOCK] = n_blocks
            ist[C_I_ZANC] = inc_anc
            zbits[0] = inc_bits
            ist[C_I_ZEXTRA] = -1
        if n_items % _BLOCK_C == 0:
            end = hist_off[n_blocks] + size
            hist_anc_o = _grow(hist_anc_o, end)
            hist_bits_o = _grow(hist_bits_o, end)
            hist_off_o = _grow(hist_off_o, n_blocks + 2)
            hist_anc = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>hist_anc_o)
            hist_bits = <uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>hist_bits_o)
            hist_off = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>hist_off_o)
            for i in range(size):
                hist_anc[hist_off[n_blocks] + i] = cA[i]
                hist_bits[hist_off[n_blocks] + i] = cB[i]
            n_blocks += 1
            hist_off[n_blocks] = end
            ist[C_I_SAVED] += 16 * size
            for i in range(size):
                cA[i] = i
                cB[i] = 0
    ist[C_I_S] = s
    ist[C_I_T] = t
    ist[C_I_SIDE] = side
    ist[C_I_NITEMS] = n_items
    ist[C_I_NBLOCKS] = n_blocks
    ist[C_I_LAST_REFRESH] = last_refresh
    ist[C_I_NEXT_PAIRING] = next_pairing
    zst[C_Z] = z
    zst[C_Z_FRESH] = z_fresh
    # The list as views of the block (its half cur_half), as a resumed search and the bound of an
    # unfinished one read it; a finished search's list is never read again (empty views).
    if code == C_DONE:
        size = 0
    o = (4 if cur_half else 0) * stride
    dtype = _dtype_of(c)
    return (code, spare[o:o + size].view(dtype), spare[o + stride:o + stride + size].view(dtype),
            spare[o + 2 * stride:o + 2 * stride + size], spare[o + 3 * stride:o + 3 * stride + size].view(np.uint64),
            hist_anc_o, hist_bits_o, hist_off_o, spare)


def run(p, w, e, flip_bound, c, big, int64_t b, bint integer, double margin, bint has_target, int64_t mem_limit,
        int64_t budget, int64_t min_relax, W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits,
        spare):
    """Run the core search from the state given until it ends, the relaxation is due or ``budget``
    states have been processed.

    Parameters
    ----------
    p, w : ndarray, shape (m,)
        Profits and weights in efficiency order (float64 holding integers, or int64; contiguous).
    e, flip_bound : ndarray of float, shape (m,)
        Efficiencies and the Dembo-Hammer bounds of flipping each item.
    c, big, b : scalar, scalar, int
        Capacity (the profits' type), the weights' "none" (inf, or the largest int64) and break item.
    integer, margin : bool, float
        The pruning rule ``bound >= z + 1 - margin`` (else ``bound > z``).
    has_target : bool
        Stop at the first improvement of ``z``.
    mem_limit, budget, min_relax : int
        Bytes the state lists may take (-1: none); states to process before returning; the list
        length past which the relaxation is due.
    W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits
        The search's state; ``ist``, ``zst``, ``zbits`` updated in place.
    spare : ndarray of int64
        A block of buffers for two state lists (:func:`_state_sets`), of any length (replaced by a
        larger one when too short).

    Returns
    -------
    (code, W, P, anc, bits, hist_anc, hist_bits, hist_off, spare)
        ``DONE`` (optimal), ``BUDGET`` (call again), ``MEMORY`` (stopped by the memory limit) or
        ``RELAX`` (the caller runs the surrogate relaxation, sets ``I_RELAX_DONE``, calls again);
        the state arrays (views of the buffers returned) and the buffers.
    """
    if p.dtype == np.int64:
        return _run[int64_t](p, w, e, flip_bound, c, big, b, integer, margin, has_target, mem_limit, budget,
                             min_relax, W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits, spare)
    return _run[double](p, w, e, flip_bound, c, big, b, integer, margin, has_target, mem_limit, budget,
                        min_relax, W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits, spare)


cdef void _backtrack(unsigned char[::1] take, int64_t[::1] items, int64_t[::1] hist_anc, uint64_t[::1] hist_bits,
                     int64_t[::1] hist_off, int64_t block, int64_t ancestor, uint64_t flips, int64_t extra,
                     int64_t b) noexcept:
    cdef int64_t pos, item, q
    if extra >= 0:
        take[extra] = extra >= b
    while True:
        for pos in range(_BLOCK_C):
            if (flips >> <uint64_t>pos) & 1:
                item = items[block * _BLOCK_C + pos]
                take[item] = item >= b
        if block == 0:
            return
        block -= 1
        q = hist_off[block] + ancestor
        ancestor = hist_anc[q]
        flips = hist_bits[q]


def backtrack(take, items, hist_anc, hist_bits, hist_off, int64_t block, int64_t ancestor, flips, int64_t extra,
              int64_t b):
    """Flip, in ``take`` (the break solution, bool, in place), the core items of the incumbent's history."""
    _backtrack(take.view(np.uint8), items, hist_anc, hist_bits, hist_off, block, ancestor, <uint64_t>int(flips),
               extra, b)


# ---------------------------------------------------------------------------------------------
# Selection of the break item, bounds
# ---------------------------------------------------------------------------------------------

cdef inline bint _before(const double* e, int64_t i, int64_t j) noexcept nogil:
    """Whether item ``i`` precedes item ``j`` in the stable order by decreasing efficiency."""
    return e[i] > e[j] or (e[i] == e[j] and i < j)


@cython.cdivision(True)
cdef inline void _pivot_positions(int64_t lo, int64_t hi, int64_t* q1, int64_t* q2, int64_t* q3) noexcept nogil:
    """Three positions in ``[lo, hi)`` drawn by a linear congruential hash of ``(lo, hi)``: the
    candidates of a selection's pivot (deterministic, and not fooled by sorted or rotated input)."""
    cdef int64_t n = hi - lo
    cdef int64_t h = ((lo & 0xFFFFFFFFLL) * 1103515245LL + (hi & 0xFFFFFFFFLL) * 1664525LL + 12345) & 0xFFFFFFFFLL
    q1[0] = lo + h % n
    h = (h * 1103515245LL + 12345) & 0xFFFFFFFFLL
    q2[0] = lo + h % n
    h = (h * 1103515245LL + 12345) & 0xFFFFFFFFLL
    q3[0] = lo + h % n


cdef Py_ssize_t _partition(const double* e, const num* w, int64_t* idx, Py_ssize_t lo, Py_ssize_t hi,
                           num* wsum) noexcept:
    """Partition ``idx[lo:hi]`` around a pivot in the stable order by decreasing ``e``: returns the
    pivot's new position ``i`` (``idx[lo:i]`` precede it) and (in ``wsum``) their weight.  The pivot
    is the median of three entries at positions drawn by a hash of ``(lo, hi)`` (deterministic)."""
    cdef int64_t q1, q2, q3, a, b_, c_, piv, x, tmp
    cdef Py_ssize_t i, j, k, q
    cdef num wb = 0
    _pivot_positions(lo, hi, &q1, &q2, &q3)
    a = idx[q1]
    b_ = idx[q2]
    c_ = idx[q3]
    if _before(e, a, b_):
        a, b_ = b_, a
    if _before(e, b_, c_):
        b_ = c_
        if _before(e, a, b_):
            b_ = a
    piv = b_
    i = lo
    j = hi - 1
    k = lo
    while k <= j:
        x = idx[k]
        if x != piv and _before(e, x, piv):
            tmp = idx[i]
            idx[i] = idx[k]
            idx[k] = tmp
            wb += w[x]
            i += 1
            k += 1
        elif x == piv:
            k += 1
        else:
            tmp = idx[j]
            idx[j] = idx[k]
            idx[k] = tmp
            j -= 1
    for q in range(i, j + 1):
        if idx[q] == piv:
            tmp = idx[i]
            idx[i] = idx[q]
            idx[q] = tmp
            break
    wsum[0] = wb
    return i


cdef int64_t _select_break(const num* p, const double* e, const num* w, int64_t* idx, Py_ssize_t n, num c,
                           num* wacc, num* pacc, int64_t* nb) noexcept:
    """The break item among the items ``idx[:n]`` in the stable order by decreasing ``e`` (-1: they
    all fit), by selection (Martello and Toth 1990, Section 2.2.2): the items before it are added to
    the weight ``wacc``, the profit ``pacc`` and the count ``nb`` of the items before them all, against
    the capacity ``c``.  ``idx`` is reordered."""
    cdef Py_ssize_t lo = 0, hi = n, i, q
    cdef int64_t piv
    cdef num wb = 0
    while lo < hi:
        i = _partition(e, w, idx, lo, hi, &wb)
        piv = idx[i]
        if wacc[0] + wb > c:
            hi = i
            continue
        wacc[0] += wb
        for q in range(lo, i):
            pacc[0] += p[idx[q]]
        nb[0] += i - lo
        if wacc[0] + w[piv] > c:
            return piv
        wacc[0] += w[piv]
        pacc[0] += p[piv]
        nb[0] += 1
        lo = i + 1
    return -1


cdef void _dantzig_e(const num[::1] p, const num[::1] w, const double[::1] e, num c, num step, int64_t grow,
                     double* u0, double* u1):
    """The Dantzig bound of ``p``, ``w``, ``c`` given the efficiencies ``e = p / w``, and its
    estimate at weights ``+ step``, capacity ``+ grow * step``: the break item by selection."""
    cdef Py_ssize_t n = p.shape[0]
    cdef int64_t brk = -1, nb_ = 0
    cdef num wacc = 0, pacc = 0
    cdef double pb, r, pj, wj
    idx_a = np.arange(n, dtype=np.int64)
    cdef int64_t[::1] idx = idx_a
    if n:
        brk = _select_break(&p[0], &e[0], &w[0], &idx[0], n, c, &wacc, &pacc, &nb_)
    pb = <double>pacc
    if brk < 0:
        u0[0] = pb
        u1[0] = pb
        return
    r = <double>c - <double>wacc if nb_ else <double>c - 0.0
    pj = <double>p[brk]
    wj = <double>w[brk]
    u0[0] = pb + r * pj / wj
    u1[0] = pb + _pymax(r + (grow - nb_) * step, 0.0) * pj / (wj + step)


cdef tuple _dantzig(const num[::1] p, const num[::1] w, num c, num step, int64_t grow):
    cdef Py_ssize_t n = p.shape[0], j
    cdef double u0, u1
    e_a = _empty(n, cnp.NPY_FLOAT64)
    cdef double[::1] e = e_a
    for j in range(n):
        e[j] = <double>p[j] / <double>w[j]
    _dantzig_e(p, w, e, c, step, grow, &u0, &u1)
    return u0, u1


def dantzig(p, w, c, step, int64_t grow):
    """The Dantzig bound of ``p``, ``w``, ``c`` (``w > 0``), and its estimate at weights ``+ step``,
    capacity ``+ grow * step``, without a sort: the break item of the stable order by decreasing
    ``p / w`` found by selection in expected linear time (Martello and Toth 1990, Section 2.2.2).
    The items before it, the break item and so every float operation are those of the sorted
    computation: the same numbers."""
    if p.dtype == np.int64:
        return _dantzig[int64_t](p, w, c, step, grow)
    return _dantzig[double](p, w, c, step, grow)


cdef Py_ssize_t _ranges(uint64_t lo, uint64_t hi, uint64_t ranges, int* sh, uint64_t* base, int64_t* bcnt, num* bw,
                        num* bp) noexcept:
    """The ranges of keys ``lo..hi`` for a histogram of fewer than ``ranges`` bins (the key of range
    ``(key >> sh) - base``): sets ``sh`` and ``base``, empties the bins and returns their number."""
    sh[0] = 0
    while (hi >> sh[0]) - (lo >> sh[0]) >= ranges:
        sh[0] += 1
    base[0] = lo >> sh[0]
    cdef Py_ssize_t r, nr = <Py_ssize_t>((hi >> sh[0]) - base[0]) + 1
    for r in range(nr):
        bcnt[r] = 0
        bw[r] = 0
        bp[r] = 0
    return nr


cdef Py_ssize_t _crossing(Py_ssize_t nr, const int64_t* bcnt, const num* bw, const num* bp, num cs, num* wacc,
                          num* pacc, int64_t* nb) noexcept:
    """The range that holds the break item (-1: everything fits), the ranges taken from the last
    (of largest efficiency) down: their weight, profit and count added to ``wacc``, ``pacc``, ``nb``."""
    cdef Py_ssize_t r
    for r in range(nr - 1, -1, -1):
        if wacc[0] + bw[r] > cs:
            return r
        wacc[0] += bw[r]
        pacc[0] += bp[r]
        nb[0] += bcnt[r]
    return -1


cdef inline int _surrogate_always(num c, num s, int64_t card, num wsum, num p0, Py_ssize_t cnt, Py_ssize_t n, num* cs,
                                  double* u0, double* u1) noexcept:
    """The capacity ``cs`` of the surrogate problem left by the items always taken (``cnt`` of the
    ``n``, their surrogate weight ``wsum`` and profit ``p0``), and the bound when they settle it:
    returns 0 (no capacity left: ``-inf``), 1 (every item always taken) or -1 (not settled)."""
    cs[0] = c + s * card - wsum
    if cs[0] < 0:
        u0[0] = -INFINITY
        u1[0] = -INFINITY
        return 0
    if cnt == n:
        u0[0] = <double>p0
        u1[0] = <double>p0
        return 1
    return -1


cdef inline void _tally(const num* w, Py_ssize_t j, num s, int sh, uint64_t base, uint64_t* key, num* bw) noexcept:
    """Item ``j`` (unless always taken: ``key`` all ones) into the histogram of weights of
    :func:`_surrogate_bound_into`, its key replaced by its range."""
    cdef uint64_t u = key[j]
    cdef Py_ssize_t r
    if u != ~(<uint64_t>0):
        r = <Py_ssize_t>((u >> sh) - base)
        key[j] = <uint64_t>r
        bw[r] += w[j] + s


@cython.cdivision(True)
cdef int _surrogate_bound_into(const num* p, const num* w, Py_ssize_t n, num c, num s, int64_t card, num step,
                               double* er, uint64_t* key, num* wsb, int64_t* idx, int64_t* bcnt, num* bw, num* bp,
                               double* u0, double* u1, int64_t* brk_out) except -1:
    """The surrogate bound and its estimate at ``s + step`` (``u0``, ``u1``) into the caller's buffers
    (``er``, ``key``, ``wsb``, ``idx`` of ``n`` entries, ``bcnt``, ``bw``, ``bp`` of ``2 _BUCKETS``), and
    the break item (``brk_out``; -1: none): returns 1 when every item is always taken, else 0.  The
    break item of the items of positive surrogate weight in the stable order by decreasing
    ``p / (w + s)`` in three passes, as :func:`break_split` finds it: the efficiencies' monotone bits,
    a histogram of weights over ranges of them (each key replaced by its range), then the profits
    and the count of the items of the ranges above the one that holds the break item, and only the
    items of that range for :func:`_surrogate_break`.  The sums are exact (integers), so every
    number is that of the selection over every item."""
    cdef Py_ssize_t j, cnt = 0, nr, r, rb = -1, nin = 0
    cdef num wsj, wsum = 0, p0 = 0, cs, wacc = 0, pacc = 0
    cdef uint64_t sign = (<uint64_t>1) << 63, lo = ~(<uint64_t>0), hi = 0, u, base
    cdef uint64_t none = ~(<uint64_t>0)
    cdef int sh = 0
    cdef int64_t nb_ = 0, brk = -1, q
    cdef int settled
    brk_out[0] = -1
    for j in range(n):
        wsj = w[j] + s
        if wsj <= 0:
            cnt += 1
            wsum += wsj
            p0 += p[j]
            key[j] = none
        else:
            u = _bits(<double>p[j] / <double>wsj + 0.0)     # (-0.0 as 0.0, without a branch)
            u ^= ((<uint64_t>0) - (u >> 63)) | sign
            key[j] = u
            lo = u if u < lo else lo
            hi = u if u > hi else hi
    settled = _surrogate_always(c, s, card, wsum, p0, cnt, n, &cs, u0, u1)
    if settled >= 0:
        return settled
    nr = _ranges(lo, hi, <uint64_t>max(16, min(_BUCKETS, n - cnt)), &sh, &base, bcnt, bw, bp)
    # Two histograms of weights, of the even and the odd items, summed after (neighbours in the same
    # range would otherwise wait for each other's sums; the sums are integers, so the same).  Each
    # key becomes its range; the profits and the count of the items of the ranges above the break
    # item's are summed in the pass that gathers the items of its range.
    cdef num* bw2 = bw + _BUCKETS
    for r in range(nr):
        bw2[r] = 0
    for j in range(0, n - 1, 2):
        _tally(w, j, s, sh, base, key, bw)
        _tally(w, j + 1, s, sh, base, key, bw2)
    if n & 1:
        _tally(w, n - 1, s, sh, base, key, bw)
    for r in range(nr - 1, -1, -1):
        if wacc + (bw[r] + bw2[r]) > cs:
            rb = r
            break
        wacc += bw[r] + bw2[r]
    for j in range(n):
        q = <int64_t>key[j]             # (-1: always taken)
        if q > rb:
            nb_ += 1
            pacc += p[j]
        elif q == rb and rb >= 0:
            wsb[j] = w[j] + s
            er[j] = <double>p[j] / <double>wsb[j]
            idx[nin] = j
            nin += 1
    if nin:
        brk = _surrogate_break(p, er, wsb, idx, nin, cs, &wacc, &pacc, &nb_, bcnt, bw, bp)
    _surrogate_ends(p, wsb, brk, cs, wacc, pacc, nb_, card - cnt, step, p0, u0, u1)
    brk_out[0] = brk
    return 0


cdef inline void _surrogate_ends(const num* p, const num* wsb, int64_t brk, num cs, num wacc, num pacc, int64_t nb,
                                 int64_t grow, num step, num p0, double* u0, double* u1) noexcept:
    """The surrogate bound and its estimate at ``s + step`` (``u0``, ``u1``) from the break item
    ``brk`` (-1: every item fits), the weight ``wacc``, profit ``pacc`` and count ``nb`` of the
    items before it, the capacity ``cs``, the items that can still join ``grow`` and the profit
    ``p0`` of those always taken."""
    cdef double rr, pj, wj
    if brk < 0:
        u0[0] = p0 + <double>pacc
        u1[0] = p0 + <double>pacc
        return
    rr = <double>cs - <double>wacc if nb else <double>cs - 0.0
    pj = <double>p[brk]
    wj = <double>wsb[brk]
    u0[0] = p0 + (<double>pacc + rr * pj / wj)
    u1[0] = p0 + (<double>pacc + _pymax(rr + (grow - nb) * step, 0.0) * pj / (wj + step))


cdef int64_t _surrogate_break(const num* p, double* er, num* wsb, int64_t* idx, Py_ssize_t nin, num cs, num* wacc,
                              num* pacc, int64_t* nb, int64_t* bcnt, num* bw, num* bp) noexcept:
    """The break item (-1: every item fits) among the ``nin`` items ``idx`` (their efficiencies ``er``
    and surrogate weights ``wsb``) of the range of :func:`_surrogate_bound_into` that holds it, after
    the ranges above it (their weight ``wacc``, profit ``pacc`` and count ``nb``, to which the items
    before it are added).  A range of many items is split the same way again (a histogram over
    ranges of its own bits, ``bcnt``, ``bw``, ``bp`` reused), the last one by selection."""
    cdef Py_ssize_t q, nr, r, rb, k
    cdef int64_t brk = -1, j
    cdef uint64_t sign = (<uint64_t>1) << 63, lo, hi, u, base
    cdef int sh
    while nin > 64:
        lo = ~(<uint64_t>0)
        hi = 0
        for q in range(nin):
            u = _bits(er[idx[q]]) if er[idx[q]] != 0.0 else 0
            u ^= ((<uint64_t>0) - (u >> 63)) | sign
            lo = u if u < lo else lo
            hi = u if u > hi else hi
        if lo == hi:        # equal efficiencies: in the order of the items (that of idx)
            for q in range(nin):
                j = idx[q]
                if wacc[0] + wsb[j] > cs:
                    return j
                wacc[0] += wsb[j]
                pacc[0] += p[j]
                nb[0] += 1
            return -1
        nr = _ranges(lo, hi, <uint64_t>min(_BUCKETS, nin), &sh, &base, bcnt, bw, bp)
        for q in range(nin):
            j = idx[q]
            u = _bits(er[j]) if er[j] != 0.0 else 0
            u ^= ((<uint64_t>0) - (u >> 63)) | sign
            r = <Py_ssize_t>((u >> sh) - base)
            bcnt[r] += 1
            bw[r] += wsb[j]
            bp[r] += p[j]
        rb = _crossing(nr, bcnt, bw, bp, cs, wacc, pacc, nb)
        if rb < 0:
            return -1
        k = 0
        for q in range(nin):
            j = idx[q]
            u = _bits(er[j]) if er[j] != 0.0 else 0
            u ^= ((<uint64_t>0) - (u >> 63)) | sign
            if <Py_ssize_t>((u >> sh) - base) == rb:
                idx[k] = j
                k += 1
        nin = k
    if nin > 0:
        brk = _select_break(p, er, wsb, idx, nin, cs, wacc, pacc, nb)
    return brk


@cython.cdivision(True)
cdef int _surrogate_bound_band(const num* p, const num* w, Py_ssize_t n, num c, num s, int64_t card, num step,
                               double t_lo, double t_hi, double* er, num* wsb, int64_t* idx, int64_t* bcnt, num* bw,
                               num* bp, double* u0, double* u1, int64_t* brk_out) except -1:
    """:func:`_surrogate_bound_into` in one pass over the items when the break item's efficiency is
    guessed to lie in ``[t_lo, t_hi]``: the items above it summed, those in it kept (in their order)
    for :func:`_surrogate_break`, those below it left.  The guess holds when the items above fit in
    the capacity and those in the band do not all fit after them: then the break item, the sums
    before it and so the bound are those of the stable order over every item (the sums are exact).
    Returns 2, ``u0``, ``u1`` not set, when the guess is wrong or an efficiency is NaN."""
    cdef Py_ssize_t j, cnt = 0, m = 0
    cdef num wsj, wsum = 0, p0 = 0, cs, wacc = 0, pacc = 0, wband = 0
    cdef int64_t nb_ = 0, brk
    cdef double e
    cdef int settled
    brk_out[0] = -1
    for j in range(n):
        wsj = w[j] + s
        if wsj > 0:
            e = <double>p[j] / <double>wsj
            if e > t_hi:
                nb_ += 1
                wacc += wsj
                pacc += p[j]
            elif not e < t_lo:
                er[j] = e
                wsb[j] = wsj
                idx[m] = j
                m += 1
                wband += wsj
        else:
            cnt += 1
            wsum += wsj
            p0 += p[j]
    settled = _surrogate_always(c, s, card, wsum, p0, cnt, n, &cs, u0, u1)
    if settled >= 0:
        return settled
    if wacc > cs or not wacc + wband > cs:
        return 2
    for j in range(m):
        if er[idx[j]] != er[idx[j]]:
            return 2
    brk = _surrogate_break(p, er, wsb, idx, m, cs, &wacc, &pacc, &nb_, bcnt, bw, bp)
    _surrogate_ends(p, wsb, brk, cs, wacc, pacc, nb_, card - cnt, step, p0, u0, u1)
    brk_out[0] = brk
    return 0


cdef class _SurrogateBuffers:
    """The buffers of :func:`_surrogate_bound_into` for up to ``n`` items of dtype ``dt``, allocated
    once for every bound of a multiplier search and kept for the next call (:func:`_take_buffers`)."""
    cdef object er_a, key_a, wsb_a, idx_a, bcnt_a, bw_a, bp_a
    cdef Py_ssize_t n
    cdef int typenum
    cdef double* er
    cdef uint64_t* key
    cdef void* wsb
    cdef int64_t* idx
    cdef int64_t* bcnt
    cdef void* bw
    cdef void* bp

    def __cinit__(self, Py_ssize_t n, dt):
        self.n = n
        self.er_a = _empty(n, cnp.NPY_FLOAT64)
        self.key_a = _empty(n, cnp.NPY_UINT64)
        self.wsb_a = np.empty(n, dt)
        self.idx_a = _empty(n, cnp.NPY_INT64)
        self.bcnt_a = _empty(2 * _BUCKETS, cnp.NPY_INT64)
        self.bw_a = np.empty(2 * _BUCKETS, dt)
        self.bp_a = np.empty(2 * _BUCKETS, dt)
        self.typenum = cnp.PyArray_TYPE(<cnp.ndarray>self.wsb_a)
        self.er = <double*>cnp.PyArray_DATA(<cnp.ndarray>self.er_a)
        self.key = <uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>self.key_a)
        self.wsb = cnp.PyArray_DATA(<cnp.ndarray>self.wsb_a)
        self.idx = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>self.idx_a)
        self.bcnt = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>self.bcnt_a)
        self.bw = cnp.PyArray_DATA(<cnp.ndarray>self.bw_a)
        self.bp = cnp.PyArray_DATA(<cnp.ndarray>self.bp_a)


# Buffers given back by finished calls, for the next (fresh arrays of a few hundred kB cost page
# faults in every call: the C library returns freed memory to the system).  A call takes a set out
# of the list and owns it until it gives it back; a list's pop and append hold the interpreter lock,
# so threads never share a set.
cdef list _POOL = []
cdef Py_ssize_t _POOL_SIZE = 4


cdef _SurrogateBuffers _take_buffers(Py_ssize_t n, int typenum):
    """A set of buffers for ``n`` items of dtype ``typenum``: one given back before, else new."""
    cdef _SurrogateBuffers buf
    cdef Py_ssize_t q
    for q in range(len(_POOL) - 1, -1, -1):
        buf = <_SurrogateBuffers>_POOL[q]
        if buf.n >= n and buf.typenum == typenum:
            del _POOL[q]
            return buf
    return _SurrogateBuffers(n, np.int64 if typenum == cnp.NPY_INT64 else np.float64)


cdef void _give_buffers(_SurrogateBuffers buf):
    """Keep ``buf`` for a later call (the largest sets, at most ``_POOL_SIZE``)."""
    cdef Py_ssize_t q, low = 0
    _POOL.append(buf)
    if len(_POOL) > _POOL_SIZE:
        for q in range(1, len(_POOL)):
            if (<_SurrogateBuffers>_POOL[q]).n < (<_SurrogateBuffers>_POOL[low]).n:
                low = q
        del _POOL[low]


cdef int _surrogate_bound_buf(const num[::1] p, const num[::1] w, num c, num s, int64_t card, num step,
                              _SurrogateBuffers buf, double* u0, double* u1, int64_t* brk) except -1:
    return _surrogate_bound_into[num](&p[0] if p.shape[0] else NULL, &w[0] if p.shape[0] else NULL, p.shape[0], c, s,
                                      card, step, buf.er, buf.key, <num*>buf.wsb, buf.idx, buf.bcnt, <num*>buf.bw,
                                      <num*>buf.bp, u0, u1, brk)


cdef tuple _surrogate_bound(const num[::1] p, const num[::1] w, num c, num s, int64_t card, num step):
    cdef double u, u_next
    cdef int64_t brk
    cdef _SurrogateBuffers buf = _take_buffers(p.shape[0], _typenum(c))
    cdef int every = _surrogate_bound_buf[num](p, w, c, s, card, step, buf, &u, &u_next, &brk)
    _give_buffers(buf)
    return u, u_next, every == 1


cdef object _surrogate_bound_guess(const num[::1] p, const num[::1] w, num c, num s, int64_t card, num step,
                                   double t_lo, double t_hi):
    cdef double u, u_next
    cdef int64_t brk
    cdef Py_ssize_t n = p.shape[0]
    cdef _SurrogateBuffers buf = _take_buffers(n, _typenum(c))
    cdef int got = _surrogate_bound_band[num](&p[0] if n else NULL, &w[0] if n else NULL, n, c, s, card, step, t_lo,
                                              t_hi, buf.er, <num*>buf.wsb, buf.idx, buf.bcnt, <num*>buf.bw,
                                              <num*>buf.bp, &u, &u_next, &brk)
    _give_buffers(buf)
    return None if got == 2 else (u, u_next, got == 1)


def surrogate_bound_band(p, w, c, s, int64_t card, step, double t_lo, double t_hi):
    """:func:`surrogate_bound` on integer data with the break item's efficiency guessed to lie in
    ``[t_lo, t_hi]`` (one pass over the items): ``None`` when the guess is refused, else the same
    answer as :func:`surrogate_bound`."""
    if p.dtype == np.int64:
        return _surrogate_bound_guess[int64_t](p, w, c, s, card, step, t_lo, t_hi)
    return _surrogate_bound_guess[double](p, w, c, s, card, step, t_lo, t_hi)


cdef double _pairwise(const double* a, Py_ssize_t n) noexcept nogil:
    """``a[:n].sum()`` as numpy sums a contiguous float64 array: pairwise, eight accumulators in
    blocks of up to 128 entries (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002,
    Section 4.2), so the same float."""
    cdef double res, r0, r1, r2, r3, r4, r5, r6, r7
    cdef Py_ssize_t i, n2
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
        i = 8
        while i < n - n % 8:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise(a, n2) + _pairwise(a + n2, n - n2)


def pairwise_sum(a):
    """``a.sum()`` of a float64 array by :func:`_pairwise` (numpy's order of additions)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    return _pairwise(<const double*>_data(a, cnp.NPY_FLOAT64, 0), a.size)


cdef tuple _surrogate_bound_real(const double[::1] p, const double[::1] w, double c, double s, int64_t card,
                                 double step):
    """The surrogate bound of real-valued data: the sums of the items always taken pairwise, the items
    in the stable order by decreasing efficiency, their weights summed one by one up to the break
    item and the profits before it pairwise (the operations of a sort, a cumulative sum and numpy's
    sums), so every float is that of the sorted computation."""
    cdef Py_ssize_t n = p.shape[0], j, k = 0, cnt = 0, b
    cdef double cs, p0, pb, acc = 0.0, before = 0.0, r, pj, wj
    wa_a = _empty(n, cnp.NPY_FLOAT64)
    pa_a = _empty(n, cnp.NPY_FLOAT64)
    pr_a = _empty(n, cnp.NPY_FLOAT64)
    wr_a = _empty(n, cnp.NPY_FLOAT64)
    er_a = _empty(n, cnp.NPY_FLOAT64)
    cdef double[::1] wa = wa_a, pa = pa_a, pr = pr_a, wr = wr_a, er = er_a
    for j in range(n):
        if w[j] + s <= 0:
            wa[cnt] = w[j] + s
            pa[cnt] = p[j]
            cnt += 1
        else:
            pr[k] = p[j]
            wr[k] = w[j] + s
            er[k] = p[j] / wr[k]
            k += 1
    cs = c + s * <double>card - _pairwise(&wa[0], cnt)
    p0 = _pairwise(&pa[0], cnt)
    if cs < 0:
        return -INFINITY, -INFINITY
    if k == 0:
        return p0, p0
    order_a = by_efficiency(er_a[:k], np.arange(k, dtype=np.int64))
    cdef int64_t[::1] order = order_a
    b = k
    for j in range(k):
        acc += wr[order[j]]
        if acc > cs:
            b = j
            break
        before = acc
    for j in range(b):
        pa[j] = pr[order[j]]
    pb = _pairwise(&pa[0], b)
    if b == k:
        return p0 + pb, p0 + pb
    r = cs - before if b else cs - 0.0
    pj = pr[order[b]]
    wj = wr[order[b]]
    return (p0 + (pb + r * pj / wj),
            p0 + (pb + _pymax(r + <double>(card - cnt - b) * step, 0.0) * pj / (wj + step)))


def surrogate_bound(p, w, c, s, int64_t card, step, bint real=False):
    """The surrogate problem's Dantzig bound (``sum (w_j + s) y_j <= c + s card``, the items of
    surrogate weight ``<= 0`` always taken) and its estimate at ``s + step``; the third answer is True
    when every item is always taken.  On integer data (int64, or integers in float64 whose sums are
    exact) the break item by selection; on real-valued data (``real``) by the sorted computation,
    with numpy's sums (the third answer then False)."""
    if real:
        return _surrogate_bound_real(p, w, c, s, card, step) + (False,)
    if p.dtype == np.int64:
        return _surrogate_bound[int64_t](p, w, c, s, card, step)
    return _surrogate_bound[double](p, w, c, s, card, step)


@cython.cdivision(True)
cdef inline double _ratio(double a, double b) noexcept:
    return a / b


cdef tuple _surrogate_multiplier(const num[::1] p, const num[::1] w, num c, int64_t card, int64_t k_lo, int64_t k_hi,
                                 num unit, bint real, bint band=True):
    """The bisection of :func:`surrogate_multiplier`.  A bound guesses its break item's efficiency
    (:func:`_surrogate_bound_band`, one pass over the items): between those, at its multiplier, of
    the break items of the nearest bounds below and above it (and a quarter of their distance
    beyond); while one side has none, beyond that of the last break item of the other side, twice
    as far as it is from the one before (the break item moves on as the multiplier does).  A wrong
    guess costs the bound of :func:`_surrogate_bound_into` too; a search whose guesses were more
    often wrong than right guesses no more."""
    cdef double best_u = INFINITY, u0, u1, ea, eb, d
    cdef int64_t best_k = 0, k, brk, ra, rb, wrong = 0, right = 0
    cdef int64_t lo_old = -1, lo_new = -1, hi_old = -1, hi_new = -1
    cdef Py_ssize_t n = p.shape[0]
    cdef _SurrogateBuffers buf = None
    cdef num s
    cdef int got
    cdef bint between, tried
    if not (num is double and real):
        buf = _take_buffers(n, _typenum(c))
    while k_lo <= k_hi:
        k = (k_lo + k_hi) // 2
        s = k * unit
        got = 2
        tried = False
        between = lo_new >= 0 and hi_new >= 0
        ra, rb = lo_new, hi_new
        if not between:
            ra, rb = (lo_old, lo_new) if lo_new >= 0 else (hi_old, hi_new)
        if num is double and real:
            u0, u1 = _surrogate_bound_real(p, w, c, s, card, unit)
            got = 0
        elif band and wrong <= right and ra >= 0 and w[ra] + s > 0 and w[rb] + s > 0:
            tried = True
            ea = _ratio(<double>p[ra], <double>(w[ra] + s))
            eb = _ratio(<double>p[rb], <double>(w[rb] + s))
            d = 0.25 * fabs(eb - ea)
            if between:
                ea, eb = _pymin(ea, eb) - d, _pymax(ea, eb) + d
            else:
                ea = eb + 2.0 * (eb - ea)
            got = _surrogate_bound_band[num](&p[0], &w[0], n, c, s, card, unit, _pymin(ea, eb), _pymax(ea, eb),
                                             buf.er, <num*>buf.wsb, buf.idx, buf.bcnt, <num*>buf.bw, <num*>buf.bp,
                                             &u0, &u1, &brk)
        if tried:
            wrong += got == 2
            right += got != 2
        if got == 2:
            _surrogate_bound_buf[num](p, w, c, s, card, unit, buf, &u0, &u1, &brk)
        if u0 < best_u:
            best_u, best_k = u0, k
        if u1 > u0:
            k_hi = k - 1
            if brk >= 0:
                hi_old, hi_new = hi_new, brk
        else:
            k_lo = k + 1
            if brk >= 0:
                lo_old, lo_new = lo_new, brk
    if buf is not None:
        _give_buffers(buf)
    return best_u, best_k


def surrogate_multiplier(p, w, c, int64_t card, int64_t k_lo, int64_t k_hi, unit, bint real=False,
                         bint band=True):
    """The surrogate multiplier ``s = k unit`` (``k_lo <= k <= k_hi``) of the least surrogate bound
    (:func:`surrogate_bound`), by an integer bisection led by the sign of the bound's slope, as combo
    searches it (Martello, Pisinger, Toth 1999, Section 3): the least bound met and its ``k``.
    ``band`` False: every bound by :func:`_surrogate_bound_into` (the reference of the guessed ones)."""
    if p.dtype == np.int64:
        return _surrogate_multiplier[int64_t](p, w, c, card, k_lo, k_hi, unit, False, band)
    return _surrogate_multiplier[double](p, w, c, card, k_lo, k_hi, unit, real, band)


cdef int64_t _count_fit(const num[::1] a, num cap, bint largest):
    cdef Py_ssize_t n = a.shape[0], lo = 0, hi = n, i, k, j, q
    cdef int64_t q1, q2, q3, cnt = 0
    cdef num x, y, zz, piv, acc = 0, s_less, one, tmp, mn, mx
    v_a = _empty(n, _typenum(cap))
    cdef num* v = <num*>cnp.PyArray_DATA(<cnp.ndarray>v_a)
    for j in range(n):
        v[j] = -a[j] if largest else a[j]
    while lo < hi:
        _pivot_positions(lo, hi, &q1, &q2, &q3)
        x = v[q1]
        y = v[q2]
        zz = v[q3]
        # piv = max(min(x, y), min(max(x, y), z)), with Python's min and max
        mn = y if y < x else x
        mx = y if y > x else x
        tmp = zz if zz < mx else mx
        piv = tmp if tmp > mn else mn
        # Three-way partition of v[lo:hi]: below the pivot, equal, above.
        i = lo
        k = lo
        j = hi - 1
        s_less = 0
        while k <= j:
            if v[k] < piv:
                tmp = v[i]
                v[i] = v[k]
                v[k] = tmp
                s_less += -v[i] if largest else v[i]
                i += 1
                k += 1
            elif v[k] > piv:
                tmp = v[k]
                v[k] = v[j]
                v[j] = tmp
                j -= 1
            else:
                k += 1
        if acc + s_less > cap:
            hi = i
            continue
        acc += s_less
        cnt += i - lo
        one = -piv if largest else piv
        for q in range(i, j + 1):
            if acc + one > cap:
                return cnt
            acc += one
            cnt += 1
        lo = j + 1
    return cnt


def count_fit(a, cap, bint largest):
    """The most entries of ``a`` (``>= 0``) whose sum stays ``<= cap``, taking the smallest first (the
    largest first when ``largest``): ``np.searchsorted(np.cumsum(np.sort(a)), cap, side="right")``
    (``np.sort(a)[::-1]`` when ``largest``) by selection instead of a sort (the count and the sums,
    exact on integers, do not depend on the order of equal entries)."""
    a = np.ascontiguousarray(a)
    if a.dtype == np.int64:
        return _count_fit[int64_t](a, cap, largest)
    return _count_fit[double](a, cap, largest)


cdef int64_t _break_solution(const double* e, const double* w, Py_ssize_t n, double c, unsigned char* before):
    cdef Py_ssize_t lo = 0, hi = n, i, q
    cdef int64_t k
    cdef double wacc = 0.0, wb = 0.0
    idx_a = _empty(n, cnp.NPY_INT64)
    cdef int64_t* idx = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>idx_a)
    for i in range(n):
        idx[i] = i
    while lo < hi:
        i = _partition(e, w, idx, lo, hi, &wb)
        if wacc + wb > c:
            hi = i
            continue
        wacc += wb
        for q in range(lo, i):
            before[idx[q]] = True
        k = idx[i]
        if wacc + w[k] > c:
            return k
        wacc += w[k]
        before[k] = True
        lo = i + 1
    return -1


def break_solution(e, w, double c):
    """The break solution of the stable order by decreasing efficiency ``e`` without sorting: the
    items before the break item (a mask) and the break item (-1 when everything fits), by selection
    in expected linear time (Martello and Toth, *Knapsack Problems*, 1990, Section 2.2.2)."""
    e = np.ascontiguousarray(e, dtype=np.float64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    before = _zeros(e.size, cnp.NPY_BOOL)
    k = _break_solution(<const double*>_data(e, cnp.NPY_FLOAT64, 0), <const double*>_data(w, cnp.NPY_FLOAT64, e.size),
                        e.size, c, <unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>before))
    return before, k


cdef inline uint64_t _bits(double x) noexcept nogil:
    cdef uint64_t u
    memcpy(&u, &x, 8)
    return u


cdef void _radix(uint64_t* src_k, int64_t* src_f, uint64_t* dst_k, int64_t* dst_f, Py_ssize_t n) noexcept:
    """Sort ``(src_k, src_f)[:n]`` by the keys, stably, in place (``dst_*`` scratch of ``n``): a
    least-significant-digit radix sort, one byte per pass, passes whose byte is the same for every
    entry skipped (Knuth, *The Art of Computer Programming* 3, Section 5.2.5)."""
    cdef Py_ssize_t q, d, v
    cdef int64_t pos, cmax
    cdef uint64_t u, sh
    cdef int64_t count[8][257]
    cdef uint64_t* tk
    cdef int64_t* tf
    cdef uint64_t* k0 = src_k
    memset(&count[0][0], 0, sizeof(count))
    for q in range(n):
        u = src_k[q]
        for d in range(8):
            count[d][((u >> (8 * d)) & 255) + 1] += 1
    for d in range(8):
        cmax = 0
        for v in range(257):
            if count[d][v] > cmax:
                cmax = count[d][v]
        if cmax == n:        # one byte value for every entry: the pass keeps the order
            continue
        for v in range(256):
            count[d][v + 1] += count[d][v]
        sh = 8 * d
        for q in range(n):
            v = (src_k[q] >> sh) & 255
            pos = count[d][v]
            count[d][v] = pos + 1
            dst_k[pos] = src_k[q]
            dst_f[pos] = src_f[q]
        tk = src_k
        src_k = dst_k
        dst_k = tk
        tf = src_f
        src_f = dst_f
        dst_f = tf
    if src_k != k0:          # (an odd number of passes: the answer is in the scratch)
        memcpy(dst_k, src_k, n * sizeof(uint64_t))
        memcpy(dst_f, src_f, n * sizeof(int64_t))


cdef void _insertion(uint64_t* k, int64_t* f, Py_ssize_t n) noexcept:
    """Sort ``(k, f)[:n]`` by the keys, stably (a later entry passes only larger keys)."""
    cdef Py_ssize_t q, r
    cdef uint64_t u
    cdef int64_t g
    for q in range(1, n):
        u = k[q]
        g = f[q]
        r = q
        while r > 0 and k[r - 1] > u:
            k[r] = k[r - 1]
            f[r] = f[r - 1]
            r -= 1
        k[r] = u
        f[r] = g


cdef void _distribute(uint64_t* k, int64_t* f, uint64_t* tk, int64_t* tf, Py_ssize_t n) noexcept:
    """Sort ``(k, f)[:n]`` by the keys, stably, in place (``tk``, ``tf`` scratch of ``n``): the entries
    distributed over about ``n`` ranges of keys in their order, each range sorted the same way in the
    scratch (insertion up to 32 entries; a range of equal keys is left as it is) and copied back (a
    distributive sort; Knuth, *The Art of Computer Programming* 3, Section 5.2.5)."""
    cdef Py_ssize_t q, r, nr, a, b
    cdef uint64_t lo = ~(<uint64_t>0), hi = 0, u, base
    cdef int64_t pos
    cdef int sh = 0
    if n <= 32:
        _insertion(k, f, n)
        return
    for q in range(n):
        u = k[q]
        if u < lo:
            lo = u
        if u > hi:
            hi = u
    if lo == hi:
        return
    while (hi >> sh) - (lo >> sh) >= <uint64_t>n:
        sh += 1
    base = lo >> sh
    nr = <Py_ssize_t>((hi >> sh) - base) + 1
    cdef int64_t* start = <int64_t*>calloc(nr + 1, sizeof(int64_t))
    if start == NULL:
        _radix(k, f, tk, tf, n)
        return
    for q in range(n):
        start[<Py_ssize_t>((k[q] >> sh) - base) + 1] += 1
    for r in range(nr):
        start[r + 1] += start[r]
    for q in range(n):
        r = <Py_ssize_t>((k[q] >> sh) - base)
        pos = start[r]
        start[r] = pos + 1
        tk[pos] = k[q]
        tf[pos] = f[q]
    a = 0                   # (start[r] is now the end of range r)
    for r in range(nr):
        b = start[r]
        if b - a > 1:
            _distribute(tk + a, tf + a, k + a, f + a, b - a)
        a = b
    free(start)
    memcpy(k, tk, n * sizeof(uint64_t))
    memcpy(f, tf, n * sizeof(int64_t))


def by_efficiency(e_in, F_in):
    """The items ``F`` (ascending) in the stable order by decreasing ``e`` (no NaN): ``F[np.argsort(-e[F],
    kind="stable")]``, by a stable distributive sort (:func:`_distribute`) on the float's bits made
    monotone (``-0.0`` as ``0.0``): a stable sort by the same keys, so the same order."""
    F_c = F_in if cnp.PyArray_Check(F_in) and cnp.PyArray_TYPE(<cnp.ndarray>F_in) == cnp.NPY_INT64 \
        and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>F_in) else np.ascontiguousarray(F_in, dtype=np.int64)
    cdef const double* e = <const double*>_data(e_in, cnp.NPY_FLOAT64, 0)
    cdef const int64_t* F = <const int64_t*>_data(F_c, cnp.NPY_INT64, 0)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(<cnp.ndarray>F_c), q
    cdef int64_t j
    cdef uint64_t u, sign = (<uint64_t>1) << 63
    src_f_a = _empty(n, cnp.NPY_INT64)
    memcpy(cnp.PyArray_DATA(<cnp.ndarray>src_f_a), F, n * sizeof(int64_t))
    q = 1
    while q < n and e[F[q - 1]] >= e[F[q]]:
        q += 1
    if q >= n:              # already in that order (equal efficiencies: subset sum)
        return src_f_a
    cdef _SurrogateBuffers buf = _take_buffers(n, cnp.NPY_INT64)     # (scratch: keys, and the sort's)
    cdef uint64_t* key = buf.key
    for q in range(n):
        j = F[q]
        u = 0 if e[j] == 0.0 else _bits(e[j])
        u = ~u if u & sign else u | sign          # monotone in the value ...
        key[q] = ~u                                # ... decreasing
    _distribute(key, <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>src_f_a), <uint64_t*>buf.er, buf.idx, n)
    _give_buffers(buf)
    return src_f_a


def break_split(p_in, w_in, e_in, double c):
    """:func:`break_solution` with the sums and the neighbours :func:`greedy_one` needs, in three
    passes over the items: a histogram of the profits and weights over ranges of efficiency (the
    leading bits of the float, at most 2048 ranges, fewer for fewer items), the range that holds the
    break item found from the top, then the selection of :func:`break_solution` only among the items
    of that range (the bucket step of a distributive partitioning; Martello and Toth 1990, Section
    2.2.2, find the break item by selection).

    The weights must be ``>= 0`` and every sum of profits and of weights exact (integers, or a
    power-of-two grid, with totals below 2^53), so that their order does not matter.

    Returns
    -------
    tuple
        ``(before, brk, Pb, Wb, a, k)``: the items before the break item in the stable order by
        decreasing ``e`` (a mask; every item when ``brk`` is -1: everything fits), the break item,
        the break solution's profit and weight, the last item before the break item and the first
        after it in that order (-1 when there is none, or when everything fits).
    """
    cdef Py_ssize_t n = e_in.size, j, q, nr, r, rb, above, below, ninside
    cdef const double* p = <const double*>_data(p_in, cnp.NPY_FLOAT64, n)
    cdef const double* w = <const double*>_data(w_in, cnp.NPY_FLOAT64, n)
    cdef const double* e = <const double*>_data(e_in, cnp.NPY_FLOAT64, n)
    cdef uint64_t sign = (<uint64_t>1) << 63, lo = ~(<uint64_t>0), hi = 0, u, s, base, ranges
    cdef double wacc = 0.0, pacc = 0.0
    cdef int64_t a = -1, k = -1, a_in = -1, k_in = -1, brk_local
    if n == 0:
        return np.ones(0, np.bool_), -1, 0.0, 0.0, -1, -1
    cdef _SurrogateBuffers buf = _take_buffers(n, cnp.NPY_INT64)     # (scratch: the keys)
    cdef uint64_t* key = buf.key
    for j in range(n):     # the float's bits made monotone in its value (-0.0 as 0.0; no branch)
        u = _bits(e[j]) & ((<uint64_t>0) - <uint64_t>(e[j] != 0.0))
        u ^= ((<uint64_t>0) - (u >> 63)) | sign
        key[j] = u
        if u < lo:
            lo = u
        if u > hi:
            hi = u
    ranges = <uint64_t>max(16, min(_BUCKETS, n))
    s = 0
    while (hi >> s) - (lo >> s) >= ranges:
        s += 1
    base = lo >> s
    nr = <Py_ssize_t>((hi >> s) - base) + 1
    cnt_a = _zeros(nr, cnp.NPY_INT64)
    ws_a = _zeros(nr, cnp.NPY_FLOAT64)
    ps_a = _zeros(nr, cnp.NPY_FLOAT64)
    cdef int64_t* cnt = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>cnt_a)
    cdef double* ws = <double*>cnp.PyArray_DATA(<cnp.ndarray>ws_a)
    cdef double* ps = <double*>cnp.PyArray_DATA(<cnp.ndarray>ps_a)
    for j in range(n):
        r = <Py_ssize_t>((key[j] >> s) - base)
        cnt[r] += 1
        ws[r] += w[j]
        ps[r] += p[j]
    rb = -1
    for r in range(nr - 1, -1, -1):
        if wacc + ws[r] > c:
            rb = r
            break
        wacc += ws[r]
        pacc += ps[r]
    if rb < 0:      # everything fits
        _give_buffers(buf)
        return np.ones(n, np.bool_), -1, pacc, wacc, -1, -1
    above = rb + 1  # the nearest ranges with items above and below the break item's
    while above < nr and cnt[above] == 0:
        above += 1
    below = rb - 1
    while below >= 0 and cnt[below] == 0:
        below -= 1
    before_a = _empty(n, cnp.NPY_BOOL)
    cdef unsigned char* before = <unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>before_a)
    ninside = cnt[rb]
    inside_a = _empty(ninside + 1, cnp.NPY_INT64)     # (+ 1: every item is written, the range's kept)
    e_in_a = _empty(ninside + 1, cnp.NPY_FLOAT64)
    w_in_a = _empty(ninside + 1, cnp.NPY_FLOAT64)
    cdef int64_t* inside = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>inside_a)
    cdef double* e_ins = <double*>cnp.PyArray_DATA(<cnp.ndarray>e_in_a)
    cdef double* w_ins = <double*>cnp.PyArray_DATA(<cnp.ndarray>w_in_a)
    q = 0
    for j in range(n):
        r = <Py_ssize_t>((key[j] >> s) - base)
        before[j] = r > rb
        inside[q] = j       # (written always, kept when in the range: no branch)
        e_ins[q] = e[j]
        w_ins[q] = w[j]
        q += r == rb
        if (r == above) | (r == below):
            if r == above:
                if a < 0 or _before(e, a, j):
                    a = j
            elif k < 0 or _before(e, j, k):
                k = j
    _give_buffers(buf)
    local_a = _zeros(ninside, cnp.NPY_BOOL)
    cdef unsigned char* local = <unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>local_a)
    brk_local = _break_solution(e_ins, w_ins, ninside, c - wacc, local)
    for q in range(ninside):   # the range's items come later than those above, earlier than below
        j = inside[q]
        if local[q]:
            before[j] = True
            pacc += p[j]
            wacc += w[j]
            if a_in < 0 or _before(e, a_in, j):
                a_in = j
        elif q != brk_local and (k_in < 0 or _before(e, j, k_in)):
            k_in = j
    # (brk_local is never -1 here: the range's weights do not all fit)
    return (before_a, inside[brk_local if brk_local >= 0 else ninside + brk_local], pacc, wacc,
            a_in if a_in >= 0 else a, k_in if k_in >= 0 else k)


cdef tuple _greedy_one(const double* p, const double* w, const double* e, const unsigned char* before, Py_ssize_t n,
                       int64_t brk,
                       int64_t a, int64_t k2, double Pb, double Wb, double capacity, double lp, double eb,
                       double thr):
    cdef Py_ssize_t j, m = 0
    cdef double r0 = capacity - Wb
    cdef double need1 = w[brk] - r0
    cdef double lim = r0 + w[a] if a >= 0 else -INFINITY
    cdef double need2 = (w[brk] + w[k2]) - r0 if k2 >= 0 else INFINITY
    cdef int64_t j1 = -1, j2 = -1, q1 = -1, q2 = -1, f1 = -1, f2 = -1, f3 = -1
    cdef double pj1 = -INFINITY, pj2 = -INFINITY, pq1 = INFINITY, pq2 = INFINITY
    cdef double pj, wj, f, best, val, ws, ps
    cdef double sg[2]
    cdef double tw1[2]
    cdef double tw2[2]
    cdef double tp1[2]
    cdef double tp2[2]
    cdef int bf, hit
    cand_a = _empty(n, cnp.NPY_INT64)
    fb_a = _empty(n, cnp.NPY_FLOAT64)
    cdef int64_t* cand = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>cand_a)
    cdef double* fb = <double*>cnp.PyArray_DATA(<cnp.ndarray>fb_a)
    # Branch-free but for the rare: the candidates are written unconditionally and counted when their
    # flip bound reaches thr (about half the items: a branch on it mispredicts), and whether the item
    # lies before the break item (random in the given order) only picks the thresholds of its side,
    # compared as ``sg * w <= tw`` and ``-sg * p <= tp`` (``sg`` = -1 before, +1 after: the negations
    # are exact, so ``w >= need`` and ``p <= pq`` before, ``w <= r0`` and ``p >= pj`` after).  The
    # items that may change a greedy choice (``hit``: the tests without the ties, a superset) are rare
    # after the first few, and only they take the branch with the full tests.
    sg[0] = 1.0
    sg[1] = -1.0
    tw1[1] = -need1
    tw2[1] = -need2
    tw1[0] = r0
    tw2[0] = lim
    tp1[1] = pq1
    tp2[1] = pq2
    tp1[0] = -pj2
    tp2[0] = -pj1
    for j in range(n):
        pj = p[j]
        wj = w[j]
        f = lp - fabs(pj - eb * wj)
        cand[m] = j
        fb[m] = f
        m += f >= thr
        bf = before[j] != 0
        ws = wj * sg[bf]
        ps = pj * -sg[bf]
        hit = ((ws <= tw1[bf]) & (ps <= tp1[bf])) | ((ws <= tw2[bf]) & (ps <= tp2[bf]))
        if hit:
            if bf:      # the cheapest item out (alone, or against the break item and the next)
                if wj >= need1 and pj <= pq1 and (q1 < 0 or pj < pq1 or _before(e, j, q1)):
                    q1 = j
                    pq1 = pj
                if wj >= need2 and pj <= pq2 and (q2 < 0 or pj < pq2 or _before(e, j, q2)):
                    q2 = j
                    pq2 = pj
            else:       # the most valuable item in (alone, or for the last item before the break)
                if j != brk and wj <= r0 and pj >= pj2 and (j2 < 0 or pj > pj2 or _before(e, j, j2)):
                    j2 = j
                    pj2 = pj
                if wj <= lim and pj >= pj1 and (j1 < 0 or pj > pj1 or _before(e, j, j1)):
                    j1 = j
                    pj1 = pj
            tp1[1] = pq1
            tp2[1] = pq2
            tp1[0] = -pj2
            tp2[0] = -pj1
    best = Pb
    if j1 >= 0:
        val = Pb - p[a] + p[j1]
        if val > best:
            best, f1, f2, f3 = val, a, j1, -1
    if j2 >= 0:
        val = Pb + p[j2]
        if val > best:
            best, f1, f2, f3 = val, j2, -1, -1
    if q1 >= 0:
        val = Pb + p[brk] - p[q1]
        if val > best:
            best, f1, f2, f3 = val, q1, brk, -1
    if q2 >= 0:
        val = Pb + (p[brk] + p[k2]) - p[q2]
        if val > best:
            best, f1, f2, f3 = val, q2, brk, k2
    return best, f1, f2, f3, cand_a[:m], fb_a[:m]


def greedy_one(p, w, e, before, int64_t brk, int64_t a, int64_t k2, double Pb, double Wb, double capacity,
               double lp, double eb, double thr):
    """:func:`greedy_free` in one pass, given the neighbours ``a`` and ``k2`` of the break item
    (:func:`break_split`), and in the same pass the items whose flip bound ``lp - |p_j - eb w_j|``
    reaches ``thr``.

    Returns ``(value, f1, f2, f3, cand, fb)``: the best greedy value (``Pb`` when none is better),
    the items it flips in the break solution (-1: none), and the items of flip bound ``>= thr`` in
    increasing index with their flip bounds."""
    cdef Py_ssize_t n = p.size
    return _greedy_one(<const double*>_data(p, cnp.NPY_FLOAT64, n), <const double*>_data(w, cnp.NPY_FLOAT64, n),
                       <const double*>_data(e, cnp.NPY_FLOAT64, n), <const unsigned char*>_data(before, cnp.NPY_BOOL, n),
                       n, brk, a, k2, Pb, Wb, capacity, lp, eb, thr)


def greedy_free(p_in, w_in, e_in, before_in, int64_t brk, double Pb, double Wb, double capacity):
    """``_knapsack.greedy_start`` on the items in any order (``before`` the break solution, ``brk`` the
    break item): the same solutions, the same ties (the first in the stable order by decreasing ``e``),
    the same float operations (:func:`greedy_one`, after a pass for the break item's neighbours).
    Returns the value and the break solution with its flips (``before`` itself when none is better)."""
    cdef Py_ssize_t j, n = p_in.size
    cdef const double* e = <const double*>_data(e_in, cnp.NPY_FLOAT64, n)
    cdef const unsigned char* before = <const unsigned char*>_data(before_in, cnp.NPY_BOOL, n)
    cdef int64_t a = -1, k2 = -1
    for j in range(n):
        if before[j]:
            if a < 0 or _before(e, a, j):
                a = j
        elif j != brk and (k2 < 0 or _before(e, j, k2)):
            k2 = j
    best, f1, f2, f3, _, _ = _greedy_one(<const double*>_data(p_in, cnp.NPY_FLOAT64, n),
                                         <const double*>_data(w_in, cnp.NPY_FLOAT64, n), e, before, n, brk, a, k2, Pb,
                                         Wb, capacity, 0.0, 0.0, INFINITY)
    take = before_in
    if f1 >= 0:
        take = before_in.copy()
        for f in (f1, f2, f3):
            if f >= 0:
                take[f] = not take[f]
    return best, take


def start_free(p_in, w_in, e_in, double capacity, double unit, int64_t mem_limit, int64_t budget, bint relax_done,
               int64_t min_relax, int64_t min_pairing, double lower, spare):
    """:func:`search_free` up to the first return of :func:`run`, in one compiled call: the break
    solution (:func:`break_split`), combo's greedy solutions and the Dembo-Hammer bounds in one pass
    (:func:`greedy_one`), the free items in efficiency order, the start of the search and its run;
    when it ends (``DONE``), the backtracking too.

    Every number is the one the Python glue computes: the sums of profits and weights are exact
    (checked: the absolute profits sum below 2^53 and the absolute weights below 2^53 ``unit``, the
    weights' power-of-two grid), so their order does not matter; the other operations are the same
    float operations in the same order; the free items are sorted stably.  ``budget < 0`` returns
    before the first step.  ``lower``: the incumbent's value to start from when it is above the
    break solution's; ``spare``: :func:`run`'s buffers.

    Returns
    -------
    tuple
        ``(code, take, value, lp, ub_global, F, before, inside, b, flip_bound_F, W, P, anc, bits, items,
        hist_anc, hist_bits, hist_off, ist, zst, zbits, gtake, spare, pF, wF, eF)``: ``code`` is ``FALLBACK`` (sums
        not exact: nothing done), ``DONE`` (``take``, in the caller's order, and ``value`` are the
        answer, the core size is ``ist[I_NITEMS]``) or the code of :func:`run` to resume the search
        from, with the free items ``F`` (in efficiency order), the break solution ``before`` and its
        restriction ``inside`` to ``F``, the break item's rank ``b`` in ``F``, and the profits, weights
        and efficiencies of ``F`` (``p[F]``, ``w[F]``, ``e[F]``; empty unless the search is to resume).
    """
    cdef Py_ssize_t n = p_in.size, j, q, k, m, cnt
    cdef const double* p = <const double*>_data(p_in, cnp.NPY_FLOAT64, n)
    cdef const double* w = <const double*>_data(w_in, cnp.NPY_FLOAT64, n)
    cdef const double* e = <const double*>_data(e_in, cnp.NPY_FLOAT64, n)
    cdef double ap = 0.0, aw = 0.0, Wb, Pb, val, eb, lp, ub_global, zs, thr
    cdef int64_t brk, a, k2, b
    cdef bint ordered, greedy
    for j in range(n):
        ap += fabs(p[j])
        aw += fabs(w[j])
    empty_f = _zeros(0, cnp.NPY_FLOAT64)
    empty_i = _zeros(0, cnp.NPY_INT64)
    empty_b = _zeros(0, cnp.NPY_BOOL)
    empty_u = _zeros(0, cnp.NPY_UINT64)
    ist_a = _zeros(IST_SIZE, cnp.NPY_INT64)
    zst_a = _zeros(4, cnp.NPY_FLOAT64)
    cdef int64_t* ist = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>ist_a)
    cdef double* zst = <double*>cnp.PyArray_DATA(<cnp.ndarray>zst_a)
    if not (ap < _EXACT and aw < _EXACT * unit):
        return (C_FALLBACK, empty_b, 0.0, 0.0, 0.0, empty_i, empty_b, empty_b, 0, empty_f, empty_f, empty_f,
                empty_i, empty_u, empty_i, empty_i, empty_u, empty_i, ist_a, zst_a, empty_u, empty_b, spare,
                empty_f, empty_f, empty_f)
    ordered = True          # items already by decreasing efficiency (subset sum): the break by a scan
    for j in range(1, n):
        if e[j] > e[j - 1]:
            ordered = False
            break
    cdef unsigned char* bv
    if ordered:
        before_a = _zeros(n, cnp.NPY_BOOL)
        bv = <unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>before_a)
        brk = -1
        Wb = 0.0
        Pb = 0.0
        for j in range(n):
            if Wb + w[j] > capacity:
                brk = j
                break
            Wb += w[j]
            Pb += p[j]
            bv[j] = True
        a = brk - 1
        k2 = brk + 1 if brk + 1 < n else -1
    else:
        before_a, brk, Pb, Wb, a, k2 = break_split(p_in, w_in, e_in, capacity)
        bv = <unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>before_a)
    if brk < 0:  # everything fits
        val = 0.0
        for j in range(n):
            val += p[j]
        return (C_DONE, np.ones(n, np.bool_), val, val, val, empty_i, before_a, empty_b, 0, empty_f, empty_f,
                empty_f, empty_i, empty_u, empty_i, empty_i, empty_u, empty_i, ist_a, zst_a, empty_u, empty_b, spare,
                empty_f, empty_f, empty_f)
    eb = e[brk]
    lp = Pb + (capacity - Wb) * eb
    ub_global = floor(lp + _INT_MARGIN)
    zs = Pb if lower <= Pb else lower
    # The greedy solutions, and the items free at any incumbent from zs up (filtered below).
    z0, f1, f2, f3, cand_a, fbc_a = _greedy_one(p, w, e, bv, n, brk, a, k2, Pb, Wb, capacity, lp, eb,
                                                zs + 1.0 - _INT_MARGIN)
    greedy = z0 > zs
    gtake = before_a
    if greedy:
        zs = z0
        gtake = before_a.copy()
        for f in (f1, f2, f3):
            if f >= 0:
                gtake[f] = not gtake[f]
    if zs >= ub_global:    # a greedy solution is optimal (or nothing beats lower)
        zst[C_Z] = zs
        return (C_DONE, gtake.copy(), zs, lp, ub_global, empty_i, before_a, empty_b, 0, empty_f, empty_f,
                empty_f, empty_i, empty_u, empty_i, empty_i, empty_u, empty_i, ist_a, zst_a, empty_u, gtake, spare,
                empty_f, empty_f, empty_f)
    thr = zs + 1.0 - _INT_MARGIN
    cdef const int64_t* cand = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>cand_a)
    cdef const double* fbc = <const double*>cnp.PyArray_DATA(<cnp.ndarray>fbc_a)
    cdef Py_ssize_t ncand = cand_a.size
    cnt = 0
    for q in range(ncand):
        if fbc[q] >= thr:
            cnt += 1
    F0 = _empty(cnt, cnp.NPY_INT64)
    cdef int64_t* Fv = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>F0)
    k = 0
    for q in range(ncand):
        if fbc[q] >= thr:
            Fv[k] = cand[q]
            k += 1
    F_a = by_efficiency(e_in, F0)
    Fv = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>F_a)
    m = cnt
    pF_a = _empty(m, cnp.NPY_FLOAT64)
    wF_a = _empty(m, cnp.NPY_FLOAT64)
    eF_a = _empty(m, cnp.NPY_FLOAT64)
    fbF_a = _empty(m, cnp.NPY_FLOAT64)
    inside_a = _empty(m, cnp.NPY_BOOL)
    cdef double* pF = <double*>cnp.PyArray_DATA(<cnp.ndarray>pF_a)
    cdef double* wF = <double*>cnp.PyArray_DATA(<cnp.ndarray>wF_a)
    cdef double* eF = <double*>cnp.PyArray_DATA(<cnp.ndarray>eF_a)
    cdef double* fbF = <double*>cnp.PyArray_DATA(<cnp.ndarray>fbF_a)
    cdef unsigned char* inside = <unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>inside_a)
    b = 0
    for q in range(m):
        j = Fv[q]
        pF[q] = p[j]
        wF[q] = w[j]
        eF[q] = e[j]
        inside[q] = bv[j]
        fbF[q] = lp - fabs(p[j] - eb * w[j])     # (greedy_one's flip bound, recomputed)
        if bv[j]:
            b += 1
    # The search's start: every free item of F is free at z = Pb.
    W = _empty(1, cnp.NPY_FLOAT64)
    P = _empty(1, cnp.NPY_FLOAT64)
    (<double*>cnp.PyArray_DATA(<cnp.ndarray>W))[0] = Wb
    (<double*>cnp.PyArray_DATA(<cnp.ndarray>P))[0] = Pb
    anc = _zeros(1, cnp.NPY_INT64)
    bits = _zeros(1, cnp.NPY_UINT64)
    items_a = _empty(m, cnp.NPY_INT64)
    hist_anc = _empty(64, cnp.NPY_INT64)
    hist_bits = _empty(64, cnp.NPY_UINT64)
    hist_off = _zeros(8, cnp.NPY_INT64)
    free_a = _empty(m, cnp.NPY_INT64)
    cdef int64_t* free_idx = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>free_a)
    k = 0
    for q in range(m):
        if fbF[q] >= thr:
            free_idx[k] = q
            k += 1
    q = _search_right(<const int64_t*>free_idx, k, b - 1) - 1
    ist[C_I_S] = free_idx[q] if q >= 0 else -1
    q = _search_left_p(free_idx, k, b)
    ist[C_I_T] = free_idx[q] if q < k else m
    ist[C_I_SIDE] = 1
    ist[C_I_NEXT_PAIRING] = min_pairing
    ist[C_I_RELAX_DONE] = 1 if relax_done else 0
    ist[C_I_DIV] = 1 if _divisible(wF, free_idx, k, capacity, Wb) else 0
    zst[C_Z] = zs
    zst[C_Z_FRESH] = zs
    if greedy:
        ist[C_I_ZKIND] = 2
    zst[C_UB] = ub_global
    zst[C_WB] = Wb
    zbits_a = _zeros(1, cnp.NPY_UINT64)
    code = C_BUDGET
    if budget >= 0:
        code, W, P, anc, bits, hist_anc, hist_bits, hist_off, spare = _run[double](
            pF_a, wF_a, eF_a, fbF_a, capacity, INFINITY, b, True, _INT_MARGIN, False, mem_limit, budget, min_relax,
            W, P, anc, bits, items_a, hist_anc, hist_bits, hist_off, ist_a, zst_a, zbits_a, spare)
    take = empty_b
    if code == C_DONE:
        take = gtake.copy() if ist[C_I_ZKIND] == 2 else _take_of(ist_a, zbits_a, items_a, hist_anc, hist_bits, hist_off,
                                                                b, inside_a, before_a, F_a, None)
    return (code, take, zst[C_Z], lp, ub_global, F_a, before_a, inside_a, b, fbF_a, W, P, anc, bits, items_a,
            hist_anc, hist_bits, hist_off, ist_a, zst_a, zbits_a, gtake, spare, pF_a, wF_a, eF_a)


cdef double _weight_grid(const double[::1] w):
    cdef int64_t unit_exp = 10 ** 6, low, M
    cdef int expo, low_expo
    cdef double top = 0.0, x, mant
    cdef Py_ssize_t j
    for j in range(w.shape[0]):
        x = w[j]
        if x > 0:
            mant = frexp(x, &expo)
            M = <int64_t>(mant * _MANTISSA)
            frexp(<double>(M & -M), &low_expo)     # (the lowest set bit: 2^(low_expo - 1))
            low = low_expo - 1
            if expo - 53 + low < unit_exp:
                unit_exp = expo - 53 + low
            if x > top:
                top = x
    if unit_exp == 10 ** 6 or top / pow(2.0, <double>unit_exp) >= 4503599627370496.0:
        return -1.0
    return pow(2.0, <double>unit_exp)


def weight_grid(w):
    """``_knapsack._weight_grid``: the largest power of two of which every weight is an integer
    multiple (``w / u < 2^52``), by the same exponents; ``-1.0`` where it returns None."""
    return _weight_grid(np.ascontiguousarray(w, dtype=np.float64))


cdef object _gather(object a, object idx):
    """``a[idx]`` of a float64 array and int64 indices (``0 <= idx < a.size``), by a loop (numpy's
    fancy indexing sets up an iterator); numpy's where ``a`` is not a contiguous float64 array."""
    if not (cnp.PyArray_Check(a) and cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.NPY_FLOAT64
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>a)):
        return a[idx]
    cdef Py_ssize_t n = cnp.PyArray_SIZE(<cnp.ndarray>idx), q
    cdef const int64_t* ix = <const int64_t*>_data(idx, cnp.NPY_INT64, n)
    cdef const double* src = <const double*>_data(a, cnp.NPY_FLOAT64, 0)
    out = _empty(n, cnp.NPY_FLOAT64)
    cdef double* dst = <double*>cnp.PyArray_DATA(<cnp.ndarray>out)
    for q in range(n):
        dst[q] = src[ix[q]]
    return out


cdef object _merged_order(e_in, F_in, Py_ssize_t m):
    """``np.argsort(-e, kind="stable")`` of ``m`` items given ``F``, some of them already in that order
    (:func:`by_efficiency`): the other items sorted the same way, and the two lists merged (an item of
    ``F`` first where it is more efficient, or as efficient and of a smaller index), so the same
    order."""
    cdef const double* e = <const double*>_data(e_in, cnp.NPY_FLOAT64, m)
    cdef const int64_t* F = <const int64_t*>_data(F_in, cnp.NPY_INT64, 0)
    cdef Py_ssize_t nf = cnp.PyArray_SIZE(<cnp.ndarray>F_in), q, k = 0, a = 0, c = 0
    q = 1
    while q < m and e[q - 1] >= e[q]:
        q += 1
    if q >= m or nf == 0:   # every item already in that order (subset sum), or none sorted before
        return by_efficiency(e_in, np.arange(m, dtype=np.int64))
    rest_a = _zeros(m - nf, cnp.NPY_INT64)
    cdef int64_t* rest = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>rest_a)
    seen_a = _zeros(m, cnp.NPY_BOOL)
    cdef unsigned char* seen = <unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>seen_a)
    for q in range(nf):
        seen[F[q]] = 1
    for q in range(m):
        if not seen[q]:
            rest[k] = q
            k += 1
    rest_a = by_efficiency(e_in, rest_a)
    rest = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>rest_a)
    out_a = _empty(m, cnp.NPY_INT64)
    cdef int64_t* out = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>out_a)
    for q in range(m):
        if a < nf and (c >= m - nf or e[F[a]] > e[rest[c]] or (e[F[a]] == e[rest[c]] and F[a] < rest[c])):
            out[q] = F[a]
            a += 1
        else:
            out[q] = rest[c]
            c += 1
    return out_a


def merged_order(e, F):
    """:func:`_merged_order` (``e`` contiguous float64 without NaN, ``F`` distinct items in the order
    of :func:`by_efficiency`)."""
    return _merged_order(e, np.ascontiguousarray(F, dtype=np.int64), cnp.PyArray_SIZE(<cnp.ndarray>e))


def relax_free(p_in, w_in, e_in, double capacity, double unit, double z, int64_t mem_limit, int64_t budget,
               int64_t min_relax, int64_t min_pairing, int64_t max_enumerate, spare, F_sorted=None):
    """``_knapsack.relax_in_order``'s relaxation in one compiled call: the items in efficiency order,
    the cardinality bounds, the surrogate multipliers (:func:`surrogate_multiplier`) and each
    surrogate knapsack, prepared as ``_knapsack.solve_knapsack`` prepares integer data in float64
    (the weights' grid and divisor) and solved by :func:`start_free` with ``z`` as its lower bound.

    Returns
    -------
    (ok, u, z, found, take, spare)
        (``F_sorted``: some of the items already in efficiency order, :func:`by_efficiency`, or None.)
        ``ok`` False where the Python glue must answer (a
        surrogate knapsack of at most ``max_enumerate`` items or without a grid, a search not done
        within ``budget`` states); else the bound, the best value and, when ``found``, its items
        (bool, in the given order).
    """
    cdef Py_ssize_t m = p_in.size, j, k, q, n_rest, n_cases = 0
    cdef int64_t b, card1, card2, card, k_lo, k_hi, best_k, g, a, d, cap_steps, n_picked, tmp
    cdef double acc = 0.0, maxsur, ub = -INFINITY, best_u, u, s, p0, w_always, cs, lower, unit2, cs2
    cdef double value, z1, w_picked
    cdef double los[2]
    cdef double his[2]
    cdef int64_t cards[2]
    cdef bint improving[2]
    cdef bint found = False
    order = by_efficiency(e_in, np.arange(m, dtype=np.int64)) if F_sorted is None else \
        _merged_order(e_in, F_sorted, m)
    ps_a = _gather(p_in, order)
    ws_a = _gather(w_in, order)
    cdef double[::1] ps = ps_a, ws = ws_a
    none = _zeros(0, cnp.NPY_BOOL)
    b = m
    for j in range(m):
        acc += ws[j]
        if acc > capacity:
            b = j
            break
    card1 = _count_fit[double](ws, capacity, False)
    card2 = _count_fit[double](ps, z, True) + 1
    maxsur = ws_a.max()
    improving[0] = improving[1] = False
    if card2 == b + 1:
        los[0], his[0], cards[0], improving[0], n_cases = -maxsur, 0.0, b + 1, True, 1
    elif card1 == b:
        los[0], his[0], cards[0], n_cases = 0.0, maxsur, b, 1
    elif card1 == b + 1 or card2 == b:
        los[0], his[0], cards[0] = 0.0, maxsur, b
        los[1], his[1], cards[1], n_cases = -maxsur, 0.0, b + 1, 2
    if n_cases == 0:
        return True, INFINITY, z, False, none, spare
    best_take = none
    cdef double[::1] p2, w2, e2
    cdef int64_t[::1] rest
    cdef unsigned char[::1] picked, take2
    for q in range(n_cases):
        card = cards[q]
        k_lo = <int64_t>floor(los[q] / unit)
        k_hi = <int64_t>ceil(his[q] / unit)
        best_u, best_k = _surrogate_multiplier[double](ps, ws, capacity, card, k_lo, k_hi, unit, False)
        u = floor(best_u + _INT_MARGIN)
        if u <= z or best_k == 0:
            ub = _pymax(ub, _pymax(u, z) if improving[q] else u)
            continue
        s = best_k * unit
        p0 = 0.0
        w_always = 0.0
        n_rest = 0
        for j in range(m):
            if ws[j] + s <= 0:
                p0 += ps[j]
                w_always += ws[j] + s
            else:
                n_rest += 1
        cs = capacity + s * card - w_always
        lower = z - p0
        if n_rest <= max_enumerate or cs < 0:
            return False, 0.0, z, False, none, spare
        rest_a = _empty(n_rest, cnp.NPY_INT64)
        p2_a = _empty(n_rest, cnp.NPY_FLOAT64)
        w2_a = _empty(n_rest, cnp.NPY_FLOAT64)
        rest = rest_a
        p2 = p2_a
        w2 = w2_a
        k = 0
        for j in range(m):
            if ws[j] + s > 0:
                rest[k] = j
                p2[k] = ps[j]
                w2[k] = ws[j] + s
                k += 1
        unit2 = _weight_grid(w2)
        if unit2 < 0 or not cs / unit2 < 4611686018427387904.0:    # 2^62
            return False, 0.0, z, False, none, spare
        g = 0
        for j in range(n_rest):
            a = <int64_t>(w2[j] / unit2)
            if a > 0 and g != 1:
                while a != 0:
                    tmp = g % a
                    g = a
                    a = tmp
        d = g if g > 0 else 1
        cap_steps = <int64_t>floor(cs / unit2)
        cs2 = <double>(cap_steps - cap_steps % d) * unit2
        e2_a = _empty(n_rest, cnp.NPY_FLOAT64)
        e2 = e2_a
        for j in range(n_rest):
            e2[j] = _pymin(p2[j] / w2[j], _MAX_EFFICIENCY)
        r = start_free(p2_a, w2_a, e2_a, cs2, unit2, mem_limit, budget, True, min_relax, min_pairing, lower, spare)
        spare = r[22]
        if r[0] != C_DONE:
            return False, 0.0, z, False, none, spare
        value = r[2]
        take2 = r[1].view(np.uint8)
        z1 = p0 + value
        picked_a = _zeros(m, cnp.NPY_BOOL)
        picked = picked_a.view(np.uint8)
        n_picked = 0
        w_picked = 0.0
        for j in range(m):
            if ws[j] + s <= 0:
                picked[j] = True
        for k in range(n_rest):
            if take2[k]:
                picked[rest[k]] = True
        for j in range(m):
            if picked[j]:
                n_picked += 1
                w_picked += ws[j]
        if value > lower and n_picked == card and z1 > z and w_picked <= capacity:
            z = z1
            best_take = picked_a
            found = True
        ub = _pymax(ub, _pymax(z1, z) if improving[q] else z1)
    take = _zeros(m, cnp.NPY_BOOL)
    if found:
        take[order] = best_take
    return True, _pymax(ub, z), z, found, take, spare


# ---------------------------------------------------------------------------------------------
# The search's loop: the core steps, the surrogate relaxation when due, the clock between budgets
# ---------------------------------------------------------------------------------------------

#: About the seconds per state of the bound of an unfinished search (reserved before its deadline).
cdef double _BOUND_SECONDS_PER_STATE = 1e-7
#: States :func:`run` processes between two readings of the clock (with a deadline).
cdef int64_t _CLOCK_BUDGET = 200000
#: States :func:`run` processes between two checks for Ctrl-C without a deadline (tenths of a second).
cdef int64_t _SIGNAL_BUDGET = 2000000
CLOCK_BUDGET, SIGNAL_BUDGET = _CLOCK_BUDGET, _SIGNAL_BUDGET

# The state buffers of :func:`run` kept between searches, per thread (the two lists of a step, one
# block: :func:`_state_sets`, whatever the dtype of the lists): a search's steps then write into
# memory already mapped, instead of fresh pages (whose first touch costs as much as the step itself
# on large lists).  The two largest blocks are kept; blocks above _SPARE_BYTES are not.
_SPARES = threading.local()
cdef Py_ssize_t _SPARE_BYTES = 1 << 26


def take_spare():
    """A block of buffers for :func:`run` (two state lists' weights and profits, ancestors and bits):
    the largest block this thread kept, or an empty one (replaced by the search as it grows)."""
    kept = getattr(_SPARES, "kept", None)
    if kept:
        return kept.pop()
    return _empty(0, cnp.NPY_INT64)


def give_spare(spare):
    """Keep ``spare`` (from :func:`run`, no longer used) for this thread's next search; of the blocks
    handed back, the two largest are kept (a search and the surrogate search it runs)."""
    cdef Py_ssize_t size = cnp.PyArray_SIZE(<cnp.ndarray>spare)
    if size * 8 > _SPARE_BYTES or size == 0:
        return
    kept = getattr(_SPARES, "kept", None)
    if kept is None:
        kept = _SPARES.kept = []
    kept.append(spare)
    kept.sort(key=len)     # (the largest last: taken first)
    while len(kept) > 2:
        del kept[0]


def ub_value(ub, bint exact_int):
    """The global bound as the kernel compares it with ``z``: on int64 data the least integer ``>= ub``
    (``z >= ub`` is then decided exactly), else the float."""
    if not exact_int:
        return float(ub)
    if ub == np.inf:
        return np.iinfo(np.int64).max
    return min(math.ceil(ub), np.iinfo(np.int64).max)


def relax_once(p, w, e, double capacity, double unit, double z, room, deadline, int64_t min_relax,
               int64_t min_pairing, int64_t max_enumerate, F_sorted=None):
    """:func:`relax_free` as the search calls it when the relaxation is due (``room``: bytes its
    state lists may take, None: no limit; a deadline: budgets of states), with a block of
    :func:`run`'s buffers from this thread's pool, handed back.  Returns ``(ok, u, z, take or
    None)``; ``F_sorted`` as :func:`relax_free` takes it."""
    ok, u, z_new, found, take, spare = relax_free(p, w, e, capacity, unit, z, -1 if room is None else int(room),
                                                  _SIGNAL_BUDGET if deadline is None else _CLOCK_BUDGET, min_relax,
                                                  min_pairing, max_enumerate, take_spare(), F_sorted)
    give_spare(spare)
    return ok, u, z_new, take if found else None


cdef object _take_of(ist_a, zbits_a, items_a, hist_anc, hist_bits, hist_off, int64_t b, inside_a, base, order,
                     z_take):
    """The items of the incumbent a search ended with, in the caller's order: ``z_take`` when the
    relaxation or a greedy solution gave it (``ist[I_ZKIND] == 2``), else the break solution ``base``
    (None: nothing taken) with the items ``order`` (the search's, in efficiency order) as the break
    solution ``inside`` flipped by the states' bits (``ist[I_ZKIND] == 1``)."""
    cdef const int64_t* ist = <const int64_t*>_data(ist_a, cnp.NPY_INT64, IST_SIZE)
    if ist[C_I_ZKIND] == 2 and z_take is not None:   # (already in the caller's order)
        return z_take
    take_sorted = inside_a.copy()
    if ist[C_I_ZKIND] == 1:
        _backtrack(take_sorted.view(np.uint8), items_a, hist_anc, hist_bits, hist_off, ist[C_I_ZBLOCK],
                   ist[C_I_ZANC], zbits_a[0], ist[C_I_ZEXTRA], b)
    out = _zeros(cnp.PyArray_SIZE(<cnp.ndarray>order), cnp.NPY_BOOL) if base is None else base.copy()
    out[order] = take_sorted
    return out


def take_of(ist, zbits, items, hist_anc, hist_bits, hist_off, int64_t b, inside, base, order, z_take):
    """:func:`_take_of` (the Python glue's entry)."""
    return _take_of(ist, zbits, items, hist_anc, hist_bits, hist_off, b, inside, base, order, z_take)


cdef tuple _search_loop(p, w, e, flip_bound, c, big, int64_t b, bint integer, double margin, bint has_target,
                        int64_t mem_limit, int64_t min_relax, deadline, relax, W, P, anc, bits, items, hist_anc,
                        hist_bits, hist_off, ist_a, zst_a, zbits, ub_global, z_take, spare):
    cdef int64_t* ist = <int64_t*>_data(ist_a, cnp.NPY_INT64, IST_SIZE)
    cdef bint exact_int = cnp.PyArray_TYPE(<cnp.ndarray>p) == cnp.NPY_INT64
    cdef bint timed = deadline is not None
    cdef int64_t budget = _CLOCK_BUDGET if timed else _SIGNAL_BUDGET
    cdef double last = 0.0, now = 0.0, dl = deadline if timed else 0.0
    cdef int code
    while True:
        PyErr_CheckSignals()     # (between budgets, as the interpreter between calls: Ctrl-C stops it)
        # Stop before the deadline when another call like the last, and the final bound over the
        # states (about 1e-7 s each), would end past it: a call on millions of states takes tenths
        # of a second, and ending past the limit by that much is not honouring it.
        if timed:
            now = _perf_counter()
            if now + last + <double>cnp.PyArray_SIZE(<cnp.ndarray>W) * _BOUND_SECONDS_PER_STATE > dl:
                code = C_TIME
                break
        if exact_int:
            code, W, P, anc, bits, hist_anc, hist_bits, hist_off, spare = _run[int64_t](
                p, w, e, flip_bound, c, big, b, integer, margin, has_target, mem_limit, budget, min_relax, W, P, anc,
                bits, items, hist_anc, hist_bits, hist_off, ist_a, zst_a, zbits, spare)
        else:
            code, W, P, anc, bits, hist_anc, hist_bits, hist_off, spare = _run[double](
                p, w, e, flip_bound, c, big, b, integer, margin, has_target, mem_limit, budget, min_relax, W, P, anc,
                bits, items, hist_anc, hist_bits, hist_off, ist_a, zst_a, zbits, spare)
        if timed:
            last = _perf_counter() - now
        if code == C_BUDGET:
            continue
        if code != C_RELAX:
            break
        ist[C_I_RELAX_DONE] = 1
        room = None if mem_limit < 0 else mem_limit - ist[C_I_SAVED] - cnp.PyArray_SIZE(<cnp.ndarray>W) * _BYTES_PER_STATE
        z = zst_a[C_Z].item()
        if type(relax) is tuple:    # the relaxation compiled (else the Python fallback's same steps)
            pr, wr, er, cr, unit, fallback, max_enumerate, min_pairing, F_sorted = relax
            ok, u, z_new, take_new = relax_once(pr, wr, er, cr, unit, z, room, deadline, min_relax, min_pairing,
                                                max_enumerate, F_sorted)
            if not ok:
                u, z_new, take_new = fallback(pr, wr, er, cr, unit, deadline, z, room)
        else:
            u, z_new, take_new = relax(z, room)
        if u < ub_global:
            ub_global = u
        zst_a[C_UB] = ub_value(ub_global, exact_int)
        if take_new is not None and z_new > zst_a[C_Z].item():
            zst_a[C_Z] = z_new
            ist[C_I_ZKIND] = 2
            z_take = take_new
    return code, W, P, anc, bits, hist_anc, hist_bits, hist_off, ub_global, z_take, spare


def search_loop(p, w, e, flip_bound, c, big, int64_t b, bint integer, double margin, bint has_target,
                int64_t mem_limit, int64_t min_relax, deadline, relax, W, P, anc, bits, items, hist_anc, hist_bits,
                hist_off, ist, zst, zbits, ub_global, z_take, spare):
    """The core search from the state given (:func:`run`'s arguments) until it ends: :func:`run` in
    budgets of states, the surrogate relaxation when :func:`run` says it is due, and with a
    ``deadline`` (a ``time.perf_counter()`` value; None: none) the clock read before each budget.

    ``mem_limit``: bytes the state lists may take (-1: no limit); ``relax``: ``relax(z, room)``
    returning ``(bound, value, take or None)``, or the tuple ``(p, w, e, capacity, unit, fallback,
    max_enumerate, min_pairing, F_sorted)`` of integer data in float64 for :func:`relax_once` (with
    ``fallback(p, w, e, capacity, unit, deadline, z, room)`` where it does not answer);
    ``ub_global``: the global bound (lowered by the relaxation); ``z_take``: the incumbent's items
    when it is not the search's (``ist[I_ZKIND] == 2``), else None.

    Returns
    -------
    (code, W, P, anc, bits, hist_anc, hist_bits, hist_off, ub_global, z_take, spare)
        ``DONE`` (optimal), ``MEMORY`` or ``TIME`` (stopped by the limit), and the search's state.
    """
    return _search_loop(p, w, e, flip_bound, c, big, b, integer, margin, has_target, mem_limit, min_relax, deadline,
                        relax, W, P, anc, bits, items, hist_anc, hist_bits, hist_off, ist, zst, zbits, ub_global,
                        z_take, spare)


def solve01(v_in, w_in, int64_t cap, int64_t mem_limit, int64_t budget, int64_t max_enumerate, int64_t min_relax,
            int64_t min_pairing, spare, deadline=None, fallback=None):
    """The default 0-1 call of ``solve_knapsack`` in one compiled call: the checks of the entries and
    totals, the items that fit and are worth something, the float data, the capacity on the weights'
    common divisor, the efficiencies, :func:`start_free`, and (given a ``fallback``) the rest of the
    search in :func:`search_loop`: the surrogate relaxation compiled, the clock read between budgets
    of states when there is a ``deadline``.

    Parameters
    ----------
    v_in, w_in : ndarray of int64, shape (n,)
        Values and weights as given (not yet checked).
    cap : int
        The capacity, ``0 <= cap < 2^63`` (a larger one lets the same items in: the caller clips it).
    mem_limit, budget, max_enumerate, min_relax, min_pairing : int
        Bytes the state lists may take (-1: no limit); states to process before returning to the
        caller's clock (:func:`run`); the core's limits as they are at the call.
    spare : ndarray of int64
        :func:`run`'s block of buffers, returned as the last entry.
    deadline : float or None
        A ``time.perf_counter()`` value (``budget`` then the states between two readings of it).
    fallback : callable or None
        The relaxation's Python steps where :func:`relax_once` does not answer (:func:`search_loop`);
        None: return after :func:`start_free`'s first run, the search for the caller to resume.

    Returns
    -------
    tuple
        ``(code, x, value, weight, cap, items, pf, wf, e, capacity, unit) + start_free(...)``, the
        search's state as :func:`search_loop` left it when it ran (its code ``DONE``, ``MEMORY`` or
        ``TIME``, the incumbent's items, if not the search's, in ``start_free``'s ``gtake`` entry):
        ``code`` ``FALLBACK`` when the Python path must answer (an entry outside ``[0, 2^62]`` or a
        total above 2^62: it raises; totals above 2^52: the int64 path; at most ``max_enumerate``
        items of value that fit, or none of positive weight: the enumeration or the general path);
        otherwise :func:`start_free`'s code.  With ``DONE``, ``x`` (int64) is the answer, ``value``
        and ``weight`` its exact sums, ``cap`` the capacity clipped at the total weight of the items
        that fit; ``items``, ``pf``, ``wf``, ``e`` (the items of value that fit, their float profits,
        weights, efficiencies), ``capacity`` (float, on the weights' divisor) and ``unit`` (the
        weights' power-of-two grid) are what a resumed search needs.
    """
    cdef const int64_t* v = _data_int64(v_in, 0)
    cdef Py_ssize_t n = cnp.PyArray_DIM(<cnp.ndarray>v_in, 0), j, k, q, m = 0
    cdef const int64_t* w = _data_int64(w_in, n)
    cdef int64_t limit = 1LL << 62, tv = 0, tw = 0, g = 0, a, tmp, zb, capk, value = 0, weight = 0
    cdef int tz = 64
    cdef bint bad = False
    for j in range(n):
        if v[j] < 0 or v[j] > limit or w[j] < 0 or w[j] > limit:
            bad = True
        elif w[j] <= cap:
            if v[j] > limit - tv or w[j] > limit - tw:
                bad = True
            else:
                tv += v[j]
                tw += w[j]
                if v[j] > 0:
                    m += 1
        if bad:
            break
    x_a = _zeros(n, cnp.NPY_INT64)
    empty_f = _zeros(0, cnp.NPY_FLOAT64)
    items_a = _empty(m, cnp.NPY_INT64)
    pf_a = _empty(m, cnp.NPY_FLOAT64)
    wf_a = _empty(m, cnp.NPY_FLOAT64)
    e_a = _empty(m, cnp.NPY_FLOAT64)
    cdef int64_t* items = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>items_a)
    cdef int64_t* x = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>x_a)
    cdef double* pf = <double*>cnp.PyArray_DATA(<cnp.ndarray>pf_a)
    cdef double* wf = <double*>cnp.PyArray_DATA(<cnp.ndarray>wf_a)
    cdef double* e = <double*>cnp.PyArray_DATA(<cnp.ndarray>e_a)
    if not bad and tv < (1LL << 52) and tw <= (1LL << 52) and m > max_enumerate:
        k = 0
        for j in range(n):
            if v[j] > 0 and w[j] <= cap:
                items[k] = j
                pf[k] = <double>v[j]
                wf[k] = <double>w[j]
                e[k] = _pymin(pf[k] / wf[k], _MAX_EFFICIENCY) if wf[k] > 0 else _MAX_EFFICIENCY
                k += 1
        for k in range(m):
            a = w[items[k]]
            if a > 0:
                if g != 1:      # the weights' greatest common divisor (1 stays 1) ...
                    while a != 0:
                        tmp = g % a
                        g = a
                        a = tmp
                    a = w[items[k]]
                if tz > 0:      # ... and the least number of trailing zero bits
                    zb = 0
                    while a & 1 == 0 and zb < tz:
                        a >>= 1
                        zb += 1
                    tz = zb
                if g == 1 and tz == 0:      # (neither changes any more)
                    break
    capk = cap if cap < tw else tw
    if bad or g == 0:
        return (C_FALLBACK, x_a, 0, 0, capk, items_a, pf_a, wf_a, e_a, 0.0, 0.0) + start_free(
            empty_f, empty_f, empty_f, 0.0, 0.0, mem_limit, -1, False, min_relax, min_pairing, -INFINITY, spare)
    cdef double unit = <double>((<int64_t>1) << tz)
    cdef double capacity = <double>(capk - capk % g)
    r = start_free(pf_a, wf_a, e_a, capacity, unit, mem_limit, budget, False, min_relax, min_pairing, -INFINITY,
                   spare)
    if r[0] != C_DONE and r[0] != C_FALLBACK and fallback is not None:
        # The search goes on here, as the Python glue's search goes on (search_loop), to its end or
        # to the limit that stops it.
        ist_a, zst_a = r[18], r[19]
        code, W, P, anc, bits, hist_anc, hist_bits, hist_off, ub_global, z_take, spare = _search_loop(
            r[23], r[24], r[25], r[9], capacity, INFINITY, r[8], True, _INT_MARGIN, False, mem_limit, min_relax,
            deadline, (pf_a, wf_a, e_a, capacity, unit, fallback, max_enumerate, min_pairing, r[5]), r[10], r[11],
            r[12], r[13], r[14], r[15], r[16], r[17], ist_a, zst_a, r[20], r[4],
            r[21] if (<int64_t*>_data(ist_a, cnp.NPY_INT64, IST_SIZE))[C_I_ZKIND] == 2 else None, r[22])
        take_o = _take_of(ist_a, r[20], r[14], hist_anc, hist_bits, hist_off, r[8], r[7], r[6], r[5], z_take) \
            if code == C_DONE else r[1]
        r = ((code, take_o, zst_a[C_Z].item(), r[3], ub_global) + r[5:10]
             + (W, P, anc, bits, r[14], hist_anc, hist_bits, hist_off, ist_a, zst_a, r[20], z_take, spare) + r[23:])
    cdef const unsigned char* take
    if r[0] == C_DONE:
        take = <const unsigned char*>_data(r[1], cnp.NPY_BOOL, m)
        for q in range(m):
            if take[q]:
                j = items[q]
                x[j] = 1
                value += v[j]
                weight += w[j]
    return (r[0], x_a, value, weight, capk, items_a, pf_a, wf_a, e_a, capacity, unit) + r


# ---------------------------------------------------------------------------------------------
# The small-problem kernel of ``exact``
# ---------------------------------------------------------------------------------------------

cdef double _INT_EXACT = 4503599627370496.0     # 2^52


cdef bint _clearly_feasible(const int64_t[::1] x, const double[::1] margin, double tol):
    """``sum x_i margin_i >= -tol`` by more than the rounding error of the float sum (the first
    stage of the feasibility rule of ``SubsetSelectionProblem.evaluate``; False also when the
    exact decision is needed)."""
    cdef double s = 0.0, a = 0.0, err
    cdef Py_ssize_t i
    for i in range(x.shape[0]):
        if x[i]:
            s += x[i] * margin[i]
            a += x[i] * fabs(margin[i])
    err = (x.shape[0] + 4) * 2.0 ** -52 * a * 1.01 + 2.0 ** -51 * tol + 1e-300
    return s - err > -tol


def unit_selection(margin_in, r_in, double tol, double cap_shift, int64_t node_limit):
    """Best selection of a problem with unit capacities and no must lists, by branch and bound
    (Horowitz and Sahni 1974: depth first, greedy forward moves, Dantzig bounds).

    Parameters
    ----------
    margin_in : ndarray of float, shape (n,)
        ``q - alpha`` (the problem's ``quality_margin``).
    r_in : ndarray of float, shape (n,)
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
    cdef const double[::1] margin = np.ascontiguousarray(margin_in, dtype=np.float64)
    cdef const double[::1] r = np.ascontiguousarray(r_in, dtype=np.float64)
    cdef Py_ssize_t n = margin.shape[0], i, k, m = 0, t, j
    cdef double surplus0 = 0.0, base = 0.0, mg, capacity, total, margin_int, room, lp, z, cw, cp, ub, bound
    cdef int64_t nodes = 0
    cdef int done = 1
    cdef bint integer, advance
    x_a = _zeros(n, cnp.NPY_INT64)
    val_a = _empty(n, cnp.NPY_FLOAT64)
    wt_a = _empty(n, cnp.NPY_FLOAT64)
    eff_a = _empty(n, cnp.NPY_FLOAT64)
    ids_a = _empty(n, cnp.NPY_INT64)
    cdef int64_t[::1] x = x_a, ids = ids_a
    cdef double[::1] val = val_a, wt = wt_a, eff = eff_a
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
        return x_a, 1 if capacity >= 0.0 else 0, base, capacity
    for k in range(m):
        eff[k] = _pymin(val[k] / wt[k], _MAX_EFFICIENCY)
    order = np.argsort(-eff_a[:m], kind="mergesort")
    cdef double[::1] v = val_a[:m][order], w = wt_a[:m][order], e = eff_a[:m][order]
    cdef int64_t[::1] item = ids_a[:m][order]
    total = 0.0
    integer = True
    for k in range(m):
        total += v[k]
        if v[k] != floor(v[k]):
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
    cur_a = _zeros(m, cnp.NPY_UINT8)
    best_a = _zeros(m, cnp.NPY_UINT8)
    cdef unsigned char[::1] cur = cur_a, best = best_a
    z = 0.0  # the empty knapsack (start selection) is feasible: capacity >= 0
    cw = 0.0
    cp = 0.0
    j = 0
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
            t = (j if j < m else m) - 1
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
    return x_a, done, base + lp, capacity


def free_capacity(c, wb, w, idx):
    """The capacity an improving solution can use: ``c`` rounded down to ``wb`` plus a multiple of
    the greatest common divisor of the weights ``w[idx]`` (``c`` itself when it is at most 1; the
    rudimentary divisibility of Martello, Pisinger and Toth 1999), as the core search computes it."""
    w = np.ascontiguousarray(w)
    idx_a = np.ascontiguousarray(idx, dtype=np.int64)
    cdef const int64_t* ip = <const int64_t*>_data(idx_a, cnp.NPY_INT64, 0)
    if w.dtype == np.int64:
        return _free_capacity[int64_t](c, wb, <const int64_t*>_data(w, cnp.NPY_INT64, 0), ip, idx_a.size)
    return _free_capacity[double](c, wb, <const double*>_data(w, cnp.NPY_FLOAT64, 0), ip, idx_a.size)
