"""simulate(...) in a changing world: sleeping agents, joins and leaves, lead times."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel.bandits import BernoulliEnvironment, make_policy, paper_instances, simulate
from subsel.bandits.simulation import regret_constants
from subsel.bandits.world import arrival_schedule

ALPHA, EPS = 0.6, 0.3


def _setup(n=5, runs=4, T=40, inst=0, policy="ss-ucb", **kw):
    q, c = paper_instances(n, runs, ALPHA, inst)
    settings = dict(cost=c, alpha=ALPHA, epsilon=EPS, horizon=T, runs=runs, quality=q)
    settings.update(kw)
    pol = make_policy(policy, "dpss", **settings)
    return pol, BernoulliEnvironment(q, c, seed=inst + 1), q, c


def _brute(q, c, alpha, mask, sign):
    """Best (sign 1) or worst (sign -1) utility of a feasible selection of the agents in mask."""
    best = 0.0 if sign > 0 else np.inf
    idx = np.flatnonzero(mask)
    found = False
    for bits in itertools.product((0, 1), repeat=idx.size):
        x = np.zeros(q.size)
        x[idx] = bits
        if ((q - alpha) * x).sum() >= -1e-9:
            v = ((q - c) * x).sum()
            best = max(best, v) if sign > 0 else min(best, v)
            found = True
    return best if found else 0.0


@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 7))
@settings(max_examples=30)
def test_regret_constants_among_available_agents_match_brute_force(seed, n):
    rng = np.random.default_rng(seed)
    q, c = rng.random((3, n)), rng.random((3, n))
    mask = rng.random((3, n)) < 0.6
    best, L = regret_constants(q, c, ALPHA, available=mask)
    for j in range(3):
        assert best[j] == pytest.approx(_brute(q[j], c[j], ALPHA, mask[j], 1), abs=1e-9)
        worst = _brute(q[j], c[j], ALPHA, mask[j], -1)
        assert best[j] - L[j] == pytest.approx(worst, abs=1e-9)


@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(["ss-ucb", "cucb", "cts"]), st.integers(0, 3),
       st.integers(0, 2))
@settings(max_examples=25)
def test_unavailable_and_absent_agents_are_never_ordered(seed, policy, arrivals, lead):
    T, n, runs = 30, 5, 3
    rng = np.random.default_rng(seed)
    avail = rng.random((T, runs, n)) < 0.7
    present = arrival_schedule(n, arrivals, T)
    present[T // 2:, 0] = False  # agent 0 leaves half-way
    pol, env, _, _ = _setup(n, runs, T, seed % 1000, policy, seed=1)
    res = simulate(pol, env, T, EPS, availability=lambda t: avail[t - 1], pool=present, lead_time=lead,
                   keep_selections=True)
    x = res.selections
    assert not x[~avail].any()
    assert not x[~np.broadcast_to(present[:, None, :], x.shape)].any()
    assert pol.t == T - lead


def test_every_agent_available_plays_the_fixed_pool_trajectory():
    a, env_a, _, _ = _setup(runs=3, T=60)
    b, env_b, _, _ = _setup(runs=3, T=60)
    ra = simulate(a, env_a, 60, EPS, keep_selections=True)
    rb = simulate(b, env_b, 60, EPS, keep_selections=True, availability=lambda t: np.ones(5, bool))
    assert np.array_equal(ra.selections, rb.selections)
    assert np.array_equal(a.w, b.w) and np.array_equal(a.good, b.good)
    assert ra.regret_at_T == rb.regret_at_T


def test_known_quality_has_zero_regret_among_available_agents():
    pol, env, _, _ = _setup(n=6, runs=5, T=50, policy="known-quality")
    res = simulate(pol, env, 50, EPS, availability=0.7, seed=3)
    assert res.regret_at_T == pytest.approx(0.0, abs=1e-9)
    assert res.correct_fraction_after_tau == 1.0


@given(st.integers(0, 2 ** 32 - 1))
@settings(max_examples=10, deadline=None)
def test_regret_references_kept_with_the_environment_stay_right_over_several_calls(seed):
    # the table of references filled by one call (the whole pool's optimum where all of S* is
    # there, a solve elsewhere) is read by the next: an oracle that knows the qualities, and so
    # plays the best selection among each round's agents, still has a regret of exactly 0
    pol, env, _, _ = _setup(n=6, runs=4, T=60, inst=seed % 1000, policy="known-quality")
    for part, p in ((20, 0.6), (40, 0.9), (30, 0.6)):
        res = simulate(pol, env, part, EPS, availability=p, seed=seed + part)
        assert res.regret_at_T == 0.0
        assert res.correct_fraction_after_tau == 1.0


def test_lead_time_counts_only_what_arrived():
    pol, env, _, _ = _setup(runs=2, T=25)
    res = simulate(pol, env, 25, EPS, lead_time=4, keep_selections=True)
    assert pol.t == 21
    assert np.array_equal(pol.w, res.selections[:21].sum(axis=0))


def test_availability_draws_are_reproducible_and_do_not_depend_on_the_number_of_runs():
    def played(runs):
        pol, env, _, _ = _setup(runs=runs, T=20)
        return simulate(pol, env, 20, EPS, availability=0.5, seed=11, keep_selections=True).selections

    one, three = played(1), played(3)
    assert np.array_equal(one[:, 0], three[:, 0])
    assert np.array_equal(three, played(3))


def test_newcomer_of_a_schedule_is_explored():
    T = 200
    pol, env, _, _ = _setup(n=4, runs=2, T=T, epsilon=0.5)
    present = arrival_schedule(4, 1, T)
    join = int(np.argmax(present[:, 3]))  # 0-based round index of the arrival
    res = simulate(pol, env, T, 0.5, pool=present, keep_selections=True)
    tau = pol.tau
    assert join >= tau
    assert (res.selections[join:join + tau, :, 3] == 1).all()  # explored tau rounds, one unit each


@pytest.mark.parametrize("kw, match", [
    ({"availability": 0.0}, r"availability must be a probability in \(0, 1\]"),
    ({"availability": 1.5}, "availability must be a probability"),
    ({"lead_time": -1}, "lead_time must be an integer >= 0"),
    ({"pool": np.ones((3, 5), bool)}, r"pool must be a boolean array of shape \(T, n\) = \(10, 5\)"),
    ({"pool": np.zeros((10, 5), bool)}, "no agent is present in round 1"),
    ({"availability": lambda t: np.ones(3, bool)}, r"availability\(1\) must be a boolean mask"),
])
def test_changing_world_validation(kw, match):
    pol, env, _, _ = _setup(T=10)
    with pytest.raises(ValueError, match=match):
        simulate(pol, env, 10, EPS, **kw)


def test_single_run_policies_cannot_play_a_changing_world():
    q, c = paper_instances(3, 2, ALPHA, 0)
    pols = [make_policy("cucb", "dpss", cost=c[j], alpha=ALPHA) for j in range(2)]
    with pytest.raises(ValueError, match="need one batched policy"):
        simulate(pols, BernoulliEnvironment(q, c, seed=0), 5, EPS, lead_time=1)


def test_arrival_schedule():
    s = arrival_schedule(5, 2, 12)
    assert s.shape == (12, 5) and s[:, :3].all()
    assert [int(np.argmax(s[:, k])) for k in (3, 4)] == [2, 4]
    with pytest.raises(ValueError, match="arrivals must be in 0..n-1"):
        arrival_schedule(3, 3, 10)


@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([1, 7, 8, 10, 23, 24, 25, 40, 62]))
@settings(max_examples=40)
def test_agent_sets_as_integers_set_bit_i_for_agent_i(seed, n):
    from subsel.bandits.world import _bits

    rng = np.random.default_rng(seed)
    masks = rng.random((3, 5, n)) < rng.random()
    masks[0, 0] = True  # every agent: the largest key, 2^n - 1
    expected = np.zeros((3, 5), dtype=np.int64)
    for i in range(n):
        expected |= masks[..., i].astype(np.int64) << i
    keys = _bits(masks)
    assert keys.dtype == np.int64
    np.testing.assert_array_equal(keys, expected)
    np.testing.assert_array_equal(_bits(masks[:, 1]), expected[:, 1])  # a strided view


@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 3000), st.integers(1, 5000))
@settings(max_examples=40)
def test_first_occurrences_match_numpy_unique(seed, count, size):
    from subsel.bandits.world import _first_of

    cells = np.random.default_rng(seed).integers(0, size, count)
    expected = np.unique(cells, return_index=True)
    for got in (_first_of(cells, size), _first_of(cells, 64 * (count + 1))):  # no sort / a sort
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
