"""``solve_knapsack`` called from several threads at once: the kernel keeps scratch buffers between
calls, and no two calls may share them, so every answer is the one of a call made alone."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from subsel import solve_knapsack
from subsel.knapsack import _knapsack
from subsel.models.instances import knapsack_instance

_KINDS = ("strongly_correlated", "inverse_strongly_correlated", "almost_strongly_correlated", "uncorrelated")


def _answer(p: np.ndarray, w: np.ndarray, c: int) -> tuple[bytes, int, int, str]:
    sol = solve_knapsack(p, w, c)
    return sol.x.tobytes(), sol.value, sol.bound, sol.status.value


@pytest.mark.parametrize("seed", [0, 1])
def test_threads_get_the_answers_of_calls_made_alone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    problems = [knapsack_instance(kind, int(n), 1000, rng) for kind in _KINDS for n in (300, 2000)]
    alone = [_answer(p, w, c) for p, w, c in problems]
    # (the set reaches the surrogate relaxation, whose buffers are the ones kept between calls: seen
    # through the core's Python entry, which runs the same search as the compiled default call)
    relaxed: list[float] = []
    relax_in_order = _knapsack.relax_in_order

    def counting(*args, **kwargs):
        relax = relax_in_order(*args, **kwargs)

        def wrapped(z, room):
            relaxed.append(z)
            return relax(z, room)
        return wrapped

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_knapsack, "relax_in_order", counting)
        for p, w, c in problems:
            _knapsack.solve_core(p.astype(float), w.astype(float), float(c))
    assert relaxed
    jobs = [problems[i % len(problems)] for i in rng.permutation(6 * len(problems))]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda job: _answer(*job), jobs))
    for (p, w, c), got in zip(jobs, together, strict=True):
        assert got == alone[next(i for i, q in enumerate(problems) if q[0] is p)]
