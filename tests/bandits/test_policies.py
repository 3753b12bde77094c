"""SS-UCB and the baselines: exploration, UCB formula, validation, state round-trip (Deva et al.,
AAMAS 2021, Section 4)."""
import json
import math

import numpy as np
import pytest

from subsel.bandits import (
    CUCB,
    SSUCB,
    BernoulliEnvironment,
    CautiousUCB,
    KnownQuality,
    ThompsonSampling,
    exploration_rounds,
    make_policy,
    policy_from_state,
)
from subsel.bandits.policies import fitting_epsilon, ucb_bonus
from subsel.solvers import get_solver
from subsel.solvers.dpss import DPSS


class CountingDPSS(DPSS):
    """DPSS that counts its calls (to check the exploration phase never asks the oracle)."""

    def __init__(self):
        super().__init__()
        self.calls = 0
        self._inside = False

    def solve(self, problem):
        self.calls += not self._inside
        return super().solve(problem)

    def solve_batch(self, *args, **kwargs):
        self.calls += 1
        self._inside = True
        try:
            return super().solve_batch(*args, **kwargs)
        finally:
            self._inside = False


def test_tau_formula():
    assert exploration_rounds(100_000, 0.05) == math.ceil(3 * math.log(100_000) / (2 * 0.05 ** 2))
    assert exploration_rounds(100_000, 0.01) > 100_000  # Deva et al. Section 6: eps = 0.01 cannot be used at T = 1e5


@pytest.mark.parametrize("runs", [None, 3])
def test_explore_phase_is_exactly_tau_rounds_with_every_unit(runs):
    cost = [0.1, 0.5, 0.2]
    capacity = [2, 1, 3]
    oracle = CountingDPSS()
    pol = SSUCB(oracle, cost, alpha=0.6, epsilon=0.5, horizon=40, capacity=capacity, runs=runs)
    assert pol.tau == math.ceil(3 * math.log(40) / (2 * 0.25))
    q = np.array([0.9, 0.5, 0.7])
    env = BernoulliEnvironment(q if runs is None else np.tile(q, (runs, 1)), cost, capacity, seed=3)
    for t in range(1, pol.tau + 1):
        x = pol.select()
        assert np.all(x == np.array(capacity)), t
        pol.update(x, env.play(x)[1])
    assert oracle.calls == 0
    assert np.all(pol.w == pol.tau * np.array(capacity))
    pol.select()
    assert oracle.calls == 1


def test_ucb_matches_formula_and_unobserved_is_one():
    pol = CUCB("dpss", cost=[0.1, 0.2, 0.3], alpha=0.5)
    pol.update([1, 1, 0], [1, 0, 0])
    pol.update([1, 0, 0], [0, 0, 0])
    t = pol.t + 1
    w = np.array([2.0, 1.0])
    qhat = np.array([0.5, 0.0])
    expected = qhat + np.sqrt(3 * math.log(t) / (2 * w))
    assert pol.ucb()[:2] == pytest.approx(expected, rel=1e-12)
    assert np.isinf(pol.ucb()[2])
    opt = pol.optimistic_quality()
    assert opt.tolist() == [min(expected[0], 1.0), min(expected[1], 1.0), 1.0]
    assert not np.isnan(opt).any()
    assert pol.pessimistic_quality()[2] == 0.0
    assert pol.q_hat.tolist() == [0.5, 0.0, 0.0]


def test_threshold_above_one_is_clipped():
    pol = SSUCB("dpss", [0.1], alpha=0.98, epsilon=0.05, horizon=10)
    assert pol.threshold == 1.0 and pol.threshold_clipped
    pol2 = SSUCB("dpss", [0.1], alpha=0.9, epsilon=0.05, horizon=10)
    assert pol2.threshold == pytest.approx(0.95) and not pol2.threshold_clipped


def test_ssucb_after_tau_asks_oracle_with_alpha_plus_eps():
    pol = SSUCB("dpss", cost=[0.1, 0.1], alpha=0.6, epsilon=0.1, horizon=3)
    pol.t = pol.tau  # jump past the exploration
    pol.w = np.array([1e9, 1e9])
    pol.good = np.array([0.68e9, 0.95e9])  # q̂ ~ (0.68, 0.95), bonuses ~ 0
    # threshold 0.7: agent 0 alone is infeasible, both together average 0.815
    assert pol.select().tolist() == [1, 1]
    pol.good = np.array([0.68e9, 0.70e9])
    assert pol.select().tolist() == [0, 1]


def test_cucb_first_round_plays_every_agent_once():
    pol = CUCB("gss", cost=[0.1, 0.9], alpha=0.5, capacity=[3, 2])
    assert pol.select().tolist() == [1, 1]


def test_known_quality_plays_the_optimum():
    q, c = [0.9, 0.6, 0.2], [0.1, 0.1, 0.1]
    pol = KnownQuality("dpss", c, 0.7, quality=q)
    assert pol.select().tolist() == [1, 1, 0]


def test_thompson_same_seed_same_draws():
    a = ThompsonSampling("dpss", [0.1, 0.2, 0.3], 0.5, seed=4)
    b = ThompsonSampling("dpss", [0.1, 0.2, 0.3], 0.5, seed=4)
    for _ in range(5):
        xa, xb = a.select(), b.select()
        assert xa.tolist() == xb.tolist()
        a.update(xa, xa)
        b.update(xb, xb)


def test_cautious_takes_nothing_it_cannot_vouch_for():
    pol = CautiousUCB("dpss", [0.1, 0.1], alpha=0.7)
    pol.update([1, 1], [1, 1])
    # after one good unit each, the LCB is 0 (bonus > 1): nothing passes the constraint
    assert pol.select().tolist() == [0, 0]


@pytest.mark.parametrize("make", [
    lambda: SSUCB("dpss", [0.1, 0.4, 0.2], 0.6, 0.3, 50),
    lambda: SSUCB("gss", [[0.1, 0.4, 0.2], [0.3, 0.3, 0.3]], 0.6, 0.3, 50, runs=2),
    lambda: CUCB("dpss", [0.1, 0.4, 0.2], 0.6, epsilon=0.05, capacity=[1, 2, 1]),
    lambda: CautiousUCB("gss", [0.1, 0.4, 0.2], 0.6),
    lambda: ThompsonSampling("dpss", [0.1, 0.4, 0.2], 0.6, seed=7, prior=(2.0, 1.0)),
    lambda: KnownQuality("dpss", [0.1, 0.4, 0.2], 0.6, quality=[0.9, 0.5, 0.4]),
])
def test_state_round_trip(make):
    pol = make()
    q = np.array([0.9, 0.5, 0.4])
    env = BernoulliEnvironment(np.broadcast_to(q, pol.w.shape), np.broadcast_to(pol.cost, pol.w.shape),
                               pol.capacity, seed=1)
    for _ in range(30):
        x = pol.select()
        pol.update(x, env.play(x)[1])
    state = json.loads(json.dumps(pol.to_state()))
    back = policy_from_state(state)
    assert type(back) is type(pol)
    assert back.to_state() == pol.to_state()
    assert back.t == pol.t and np.array_equal(back.w, pol.w) and np.array_equal(back.good, pol.good)
    for _ in range(3):
        xa, xb = pol.select(), back.select()
        assert xa.tolist() == xb.tolist()
        pol.update(xa, xa)
        back.update(xb, xb)


def test_make_policy_names_and_aliases():
    assert make_policy("dpss-ucb", cost=[0.1], alpha=0.5, epsilon=0.1, horizon=10).oracle.name == "dpss"
    gss = make_policy("gss-ucb", cost=[0.1], alpha=0.5, epsilon=0.1, horizon=10)
    assert isinstance(gss, SSUCB) and gss.oracle.name == "gss"
    assert make_policy("ss-ucb", get_solver("gss"), cost=[0.1], alpha=0.5, epsilon=0.1,
                       horizon=10).oracle.name == "gss"


@pytest.mark.parametrize("build, exc, match", [
    (lambda: make_policy("nope", cost=[0.1], alpha=0.5), ValueError, "unknown policy 'nope'"),
    (lambda: make_policy("gss-ucb", "dpss", cost=[0.1], alpha=0.5, epsilon=0.1, horizon=5),
     ValueError, "SS-UCB with the 'gss' oracle"),
    (lambda: SSUCB(42, [0.1], 0.5, 0.1, 10), TypeError, "oracle must be a Solver"),
    (lambda: SSUCB("nosuch", [0.1], 0.5, 0.1, 10), ValueError, "unknown solver"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 0.0, 10), ValueError, r"epsilon must be a number in \(0, 1\]; got 0"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 1.5, 10), ValueError, r"epsilon must be a number in \(0, 1\]; got 1.5"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 1e-300, 10), ValueError, "epsilon = 1e-300 is too small"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 1e-160, 10), ValueError, "epsilon = 1e-160 is too small"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 0.1, 2 ** 53 + 1), ValueError,
     r"horizon must be an integer in \[1, 9007199254740992\]; got 9007199254740993"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 0.1, 10, capacity=[1e30]), ValueError, r"capacity\[0\] must be <= 2\^53"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 0.1, 0), ValueError,
     r"horizon must be an integer in \[1, 9007199254740992\]; got 0"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 0.1, 2.5), TypeError, "horizon must be an integer"),
    (lambda: SSUCB("dpss", [-0.1], 0.5, 0.1, 10), ValueError, r"cost\[0\] must be >= 0"),
    (lambda: SSUCB("dpss", [0.1], 1.5, 0.1, 10), ValueError, r"alpha must be in \[0, 1\]"),
    (lambda: SSUCB("dpss", [0.1], 0.5, 0.1, 10, capacity=[0]), ValueError, "capacity"),
    (lambda: SSUCB("dpss", [[0.1], [0.2]], 0.5, 0.1, 10, runs=3), ValueError, "cost must have shape"),
    (lambda: CUCB("dpss", [0.1], 0.5, epsilon=-0.1), ValueError, r"epsilon must be a number in \[0, 1\]; got -0.1"),
    (lambda: ThompsonSampling("dpss", [0.1], 0.5, prior=(0.0, 1.0)), ValueError, "prior"),
    (lambda: KnownQuality("dpss", [0.1], 0.5, quality=[0.5, 0.5]), ValueError, "quality must have shape"),
])
def test_invalid_settings(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


@pytest.mark.parametrize("x, good, match", [
    ([1, 1], [1, 2], r"good_units\[1\] = 2 exceeds the units played"),
    ([1], [1], r"x must have shape \(2,\)"),
    ([1, 0.5], [0, 0], r"x\[1\] must be a non-negative integer"),
    ([1, -1], [0, 0], r"x\[1\] must be a non-negative integer"),
    ([1, 2], [0, 0], r"x\[1\] = 2 exceeds capacity 1"),
    ([1, 1], [0, -1], r"good_units\[1\] must be a non-negative integer"),
])
def test_invalid_update(x, good, match):
    pol = CUCB("dpss", [0.1, 0.2], 0.5)
    with pytest.raises(ValueError, match=match):
        pol.update(x, good)
    assert pol.t == 0 and not pol.w.any()


@pytest.mark.parametrize("state, match", [
    ({"format": "other"}, "not a subsel bandit policy state"),
    ({"format": "subsel-bandit-policy", "version": 99}, "unsupported policy state version"),
    ({"format": "subsel-bandit-policy", "version": 1, "policy": "zzz"}, "unknown policy 'zzz'"),
])
def test_invalid_state(state, match):
    with pytest.raises(ValueError, match=match):
        policy_from_state(state)


@pytest.mark.parametrize("cost, match", [
    ([], r"cost must hold at least one agent; got shape \(0,\)"),
    ([0.1, "x"], r"cost must be an array of numbers; got \[0.1, 'x'\]"),
])
def test_policy_cost_errors_name_the_field(cost, match):
    with pytest.raises(ValueError, match=match):
        SSUCB("dpss", cost=cost, alpha=0.7, epsilon=0.1, horizon=10)


@pytest.mark.parametrize("key", ["params", "oracle", "t", "w", "good"])
def test_policy_state_missing_key_is_a_value_error_naming_it(key):
    state = SSUCB("dpss", cost=[0.1, 0.2], alpha=0.7, epsilon=0.1, horizon=10).to_state()
    del state[key]
    with pytest.raises(ValueError, match=f"policy state: key '{key}' is missing"):
        policy_from_state(state)


def test_policy_state_bad_statistics_name_the_index():
    state = SSUCB("dpss", cost=[0.1, 0.2], alpha=0.7, epsilon=0.1, horizon=10).to_state()
    state["good"] = [0, 3]
    with pytest.raises(ValueError, match=r"good\[1\] = 3 exceeds w\[1\] = 0"):
        policy_from_state(state)


# ---------------------------------------------------------------- round one: never NaN
def test_ucb_bonus_is_inf_for_zero_count_even_at_round_one():
    with np.errstate(all="raise"):  # no 0/0 warning either
        assert ucb_bonus(1, np.array([0.0, 1.0])).tolist() == [math.inf, 0.0]
        assert ucb_bonus(5, np.array([0.0, 2.0])).tolist()[0] == math.inf


@pytest.mark.parametrize("runs", [None, 3])
def test_cucb_before_any_feedback_is_optimistic_not_nan(runs):
    pol = CUCB("dpss", [0.3, 0.2, 0.01], 0.7, runs=runs)
    for t in (None, 1, 2, 10):
        assert (pol.optimistic_quality(t) == 1.0).all()
        assert (pol.pessimistic_quality(t) == 0.0).all()


def test_never_observed_agent_is_one_at_every_round():
    pol = CUCB("dpss", [0.3, 0.2], 0.5)
    pol.update([0, 1], [0, 0])
    for t in range(1, 6):
        q = pol.optimistic_quality(t)
        assert q[0] == 1.0 and 0.0 <= q[1] <= 1.0 and not np.isnan(q).any()


@pytest.mark.parametrize("oracle", ["dpss", "gss"])
def test_ssucb_with_horizon_one_asks_the_oracle_with_all_ones(oracle):
    pol = SSUCB(oracle, cost=[0.3, 0.2, 0.01], alpha=0.7, epsilon=0.1, horizon=1)
    assert pol.tau == 0
    assert pol.select().tolist() == [1, 1, 1]  # q̂⁺ = 1 for all: every agent with c <= R pays


# ---------------------------------------------------------------- silent surprises
def test_make_policy_rejects_an_unknown_setting_naming_it():
    with pytest.raises(TypeError, match="unknown setting 'epsilonn'"):
        make_policy("ss-ucb", cost=[0.1], alpha=0.5, epsilon=0.1, horizon=10, epsilonn=0.3)
    with pytest.raises(TypeError, match="unknown settings 'a', 'b'"):
        make_policy("cucb", cost=[0.1], alpha=0.5, b=1, a=2)
    # a setting of another policy is fine: one mapping can drive every policy
    assert make_policy("cucb", cost=[0.1], alpha=0.5, horizon=10, seed=1).name == "cucb"


@pytest.mark.parametrize("T", [3, 10, 1000, 100_000])
def test_fitting_epsilon_is_the_smallest_that_leaves_rounds_after_tau(T):
    eps = fitting_epsilon(T)
    assert exploration_rounds(T, eps) < T
    assert exploration_rounds(T, eps * 0.99) >= T


def test_fitting_epsilon_edge_horizons():
    assert fitting_epsilon(1) == 0.0 and exploration_rounds(1, 0.01) == 0
    assert fitting_epsilon(2) is None and exploration_rounds(2, 1.0) == 2  # no eps <= 1 fits


# ---------------------------------------------------------------- damaged states
def _cts_state():
    pol = ThompsonSampling("dpss", [0.1, 0.2, 0.3], 0.5, seed=4)
    pol.update([1, 1, 1], [1, 0, 1])
    return pol.to_state()


@pytest.mark.parametrize("change, match", [
    (lambda s: s["rng"].update(bit_generator="seed"), "rng.bit_generator 'seed' is not one of"),
    (lambda s: s["rng"].update(bit_generator="random"), "rng.bit_generator 'random' is not one of"),
    (lambda s: s["rng"].update(bit_generator="Nope"), "rng.bit_generator 'Nope' is not one of"),
    (lambda s: s["rng"].update(bit_generator=["PCG64"]), "rng.bit_generator"),
    (lambda s: s["rng"].update(state={"bit_generator": "PCG64", "state": 5}), "rng.state is not a valid"),
    (lambda s: s["rng"].update(state="x"), "rng.state must be a PCG64 state"),
    (lambda s: s.update(rng=5), "'rng' must hold"),
    (lambda s: s.update(w=[1e19, 0, 0]), r"w\[0\] = 1e\+19 exceeds 2\^53"),
    (lambda s: s.update(w=[1.5, 1, 1]), r"w\[0\] must be a non-negative integer; got 1.5"),
    (lambda s: s.update(t=10 ** 30), "'t' must be an integer in 0..2\\^53"),
    (lambda s: s.update(t=True), "'t' must be an integer"),
    (lambda s: s["params"].update(epsilon=-1), r"policy state 'params': epsilon must be a number in \[0, 1\]; got -1"),
    (lambda s: s["params"].update(epsilonn=0.3), "policy state 'params': make_policy: unknown setting 'epsilonn'"),
    (lambda s: s["params"].update(capacity=[10 ** 30, 1, 1]), r"capacity\[0\] must be <= 2\^53"),
    (lambda s: s["params"].update(alpha="x"), "policy state 'params'"),
    (lambda s: s.update(oracle=5), "'oracle' must be a solver name"),
    (lambda s: s.pop("rng"), "key 'rng' is missing"),
    (lambda s: s.update(w=["2", 1, 1]), "'w' must be an array of numbers"),
    (lambda s: s.update(good=[" 1", 0, 1]), "'good' must be an array of numbers"),
    (lambda s: s.update(w=[True, 1, 1]), "'w' must be an array of numbers"),
    (lambda s: s.update(w=[None, 1, 1]), "'w' must be an array of numbers"),
])
def test_damaged_policy_state_is_a_value_error_naming_the_key(monkeypatch, change, match):
    for name in ("seed", "random"):  # a damaged state must never call numpy.random functions
        monkeypatch.setattr(np.random, name, lambda *a, **k: pytest.fail("numpy.random called"))
    state = _cts_state()
    change(state)
    with pytest.raises(ValueError, match=match):
        policy_from_state(state)


def test_ssucb_state_with_a_tiny_epsilon_is_a_value_error():
    state = SSUCB("dpss", cost=[0.1, 0.2], alpha=0.7, epsilon=0.1, horizon=10).to_state()
    state["params"]["epsilon"] = 1e-300
    with pytest.raises(ValueError, match="policy state 'params': epsilon = 1e-300 is too small"):
        policy_from_state(state)


def test_epsilon_too_small_for_any_horizon_is_a_value_error():
    for eps in (1e-300, 1e-160):
        with pytest.raises(ValueError, match="too small"):
            exploration_rounds(1000, eps)


def test_batched_thompson_state_round_trip_per_run_streams():
    pol = ThompsonSampling("dpss", [0.1, 0.2, 0.3], 0.5, seed=4, runs=2)
    back = policy_from_state(pol.to_state())
    assert np.array_equal(pol.select(), back.select())


def test_a_state_missing_a_setting_names_the_key():
    # (the constructor's TypeError named 'SSUCB.__init__()', a Python function)
    from subsel.bandits import make_policy, policy_from_state

    pol = make_policy("ss-ucb", "dpss", cost=[0.3, 0.2, 0.05], alpha=0.6, epsilon=0.5, horizon=40, capacity=[3, 1, 2])
    state = pol.to_state()
    del state["params"]["epsilon"]
    with pytest.raises(ValueError, match=r"^policy state: key 'params.epsilon' is missing$"):
        policy_from_state(state)
