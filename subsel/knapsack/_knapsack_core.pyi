# Types of the compiled knapsack kernel (subsel/knapsack/_knapsack_core.pyx): the arrays are numpy
# arrays of the dtypes its docstrings name; the tuples are read by position by the Python glue.
from typing import Any

import numpy as np

BLOCK: int
DONE: int
BUDGET: int
MEMORY: int
RELAX: int
FALLBACK: int
I_S: int
I_T: int
I_SIDE: int
I_NITEMS: int
I_NBLOCKS: int
I_LAST_REFRESH: int
I_NEXT_PAIRING: int
I_RELAX_DONE: int
I_ZKIND: int
I_ZBLOCK: int
I_ZANC: int
I_ZEXTRA: int
I_SAVED: int
I_CORE_DONE: int
I_DIV: int
IST_SIZE: int
Z: int
Z_FRESH: int
UB: int
WB: int

def run(p: np.ndarray, w: np.ndarray, e: np.ndarray, flip_bound: np.ndarray, c: Any, big: Any, b: int,
        integer: bool, margin: float, has_target: bool, mem_limit: int, budget: int, min_relax: int,
        W: np.ndarray, P: np.ndarray, anc: np.ndarray, bits: np.ndarray, items: np.ndarray,
        hist_anc: np.ndarray, hist_bits: np.ndarray, hist_off: np.ndarray, ist: np.ndarray, zst: np.ndarray,
        zbits: np.ndarray, spare: np.ndarray) -> tuple[Any, ...]: ...
def backtrack(take: np.ndarray, items: np.ndarray, hist_anc: np.ndarray, hist_bits: np.ndarray,
              hist_off: np.ndarray, block: int, ancestor: int, flips: Any, extra: int, b: int) -> None: ...
def dantzig(p: np.ndarray, w: np.ndarray, c: Any, step: Any, grow: int) -> tuple[float, float]: ...
def free_capacity(c: Any, wb: Any, w: np.ndarray, idx: np.ndarray) -> Any: ...
def surrogate_bound(p: np.ndarray, w: np.ndarray, c: Any, s: Any, card: int, step: Any, real: bool = ...
                    ) -> tuple[float, float, bool]: ...
def pairwise_sum(a: np.ndarray) -> float: ...
def surrogate_bound_band(p: np.ndarray, w: np.ndarray, c: Any, s: Any, card: int, step: Any, t_lo: float,
                         t_hi: float) -> tuple[float, float, bool] | None: ...
def surrogate_multiplier(p: np.ndarray, w: np.ndarray, c: Any, card: int, k_lo: int, k_hi: int, unit: Any,
                         real: bool = ..., band: bool = ...) -> tuple[float, int]: ...
def count_fit(a: np.ndarray, cap: Any, largest: bool) -> int: ...
def break_solution(e: np.ndarray, w: np.ndarray, c: float) -> tuple[np.ndarray, int]: ...
def by_efficiency(e_in: np.ndarray, F_in: np.ndarray) -> np.ndarray: ...
def break_split(p_in: np.ndarray, w_in: np.ndarray, e_in: np.ndarray, c: float) -> tuple[Any, ...]: ...
def greedy_one(p: np.ndarray, w: np.ndarray, e: np.ndarray, before: np.ndarray, brk: int, a: int, k2: int,
               Pb: float, Wb: float, capacity: float, lp: float, eb: float, thr: float) -> tuple[Any, ...]: ...
def greedy_free(p_in: np.ndarray, w_in: np.ndarray, e_in: np.ndarray, before_in: np.ndarray, brk: int, Pb: float,
                Wb: float, capacity: float) -> tuple[float, np.ndarray]: ...
def start_free(p_in: np.ndarray, w_in: np.ndarray, e_in: np.ndarray, capacity: float, unit: float, mem_limit: int,
               budget: int, relax_done: bool, min_relax: int, min_pairing: int, lower: float,
               spare: np.ndarray) -> tuple[Any, ...]: ...
def weight_grid(w: np.ndarray) -> float: ...
def relax_free(p_in: np.ndarray, w_in: np.ndarray, e_in: np.ndarray, capacity: float, unit: float, z: float,
               mem_limit: int, budget: int, min_relax: int, min_pairing: int, max_enumerate: int,
               spare: np.ndarray) -> tuple[Any, ...]: ...
def solve01(v_in: np.ndarray, w_in: np.ndarray, cap: int, mem_limit: int, budget: int, max_enumerate: int,
            min_relax: int, min_pairing: int, spare: np.ndarray) -> tuple[Any, ...]: ...
def unit_selection(margin_in: np.ndarray, r_in: np.ndarray, tol: float, cap_shift: float, node_limit: int
                   ) -> tuple[np.ndarray, int, float, float]: ...
