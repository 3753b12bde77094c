"""A changing world: agents that join and leave, sleeping agents, and feedback that arrives late."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from subsel.bandits import OnlinePlanner, make_policy, policy_from_state
from subsel.models import SubsetSelectionProblem
from tests.strategies import brute_force

DATA = Path(__file__).parent / "data"
POLICIES = ["ss-ucb", "cucb", "cautious-ucb", "cts"]


def _policy(name, n=4, runs=None, seed=0, **kw):
    rng = np.random.default_rng(seed)
    cost = rng.random((runs, n) if runs else n)
    settings = dict(cost=cost, alpha=0.6, epsilon=0.3, horizon=50, runs=runs, seed=1,
                    capacity=rng.integers(1, 3, n))
    settings.update(kw)
    return make_policy(name, "dpss", **settings)


def _play(pol, rng, rounds, available=None):
    for _ in range(rounds):
        x = pol.select(available=available)
        pol.update(x, rng.binomial(x, 0.7))


# ------------------------------------------------------------------ joining and leaving
@given(st.sampled_from(POLICIES), st.sampled_from([None, 3]), st.integers(0, 2 ** 32 - 1),
       st.lists(st.tuples(st.sampled_from(["add", "remove", "play"]), st.integers(0, 10 ** 6)),
                min_size=1, max_size=8))
def test_add_remove_keep_other_statistics_and_removed_agents_are_never_ordered(name, runs, seed, ops):
    pol = _policy(name, runs=runs, seed=seed % 1000)
    rng = np.random.default_rng(seed)
    removed: set[str] = set()
    fresh = iter(f"new{i}" for i in range(100))
    for op, k in ops:
        before = {s: (pol.w[..., i].copy(), pol.good[..., i].copy()) for i, s in enumerate(pol.names)}
        if op == "add":
            new = [next(fresh) for _ in range(1 + k % 2)]
            pol.add_agents(rng.random(len(new)), capacity=rng.integers(1, 3, len(new)), names=new)
        elif op == "remove" and pol.n > 1:
            gone = pol.names[k % pol.n]
            pol.remove_agents([gone])
            removed.add(gone)
        else:
            _play(pol, rng, 1 + k % 3)
            continue
        assert pol.w.shape[-1] == pol.n == len(pol.names) == pol.cost.shape[-1] == pol.capacity.size
        for i, s in enumerate(pol.names):
            if s in before:  # untouched agents: bit-identical statistics
                assert np.array_equal(pol.w[..., i], before[s][0])
                assert np.array_equal(pol.good[..., i], before[s][1])
        x = pol.select()
        assert x.shape == pol.w.shape
        assert not removed & set(pol.names)


def test_removed_statistics_are_restored_by_a_later_add():
    pol = _policy("ss-ucb", names=["a", "b", "c", "d"])
    _play(pol, np.random.default_rng(0), 5)
    w_b, good_b = pol.w[1], pol.good[1]
    pol.remove_agents("b")
    assert pol.names == ("a", "c", "d") and set(pol.retired) == {"b"}
    back = policy_from_state(json.loads(json.dumps(pol.to_state())))
    back.add_agents([0.3], capacity=[2], names=["b"])
    assert back.names == ("a", "c", "d", "b") and back.retired == {}
    assert back.w[-1] == w_b and back.good[-1] == good_b


@pytest.mark.parametrize("name", ["ss-ucb", "cucb", "cts"])
def test_an_agent_back_with_a_smaller_capacity_keeps_usable_statistics(name):
    pol = make_policy(name, "dpss", cost=[0.3, 0.2, 0.05], alpha=0.6, epsilon=0.5, horizon=40,
                      capacity=[3, 1, 2], names=["acme", "bolt", "corex"], seed=1)
    for _ in range(3):
        x = pol.select()
        pol.update(x, x)
    w = pol.w[0]
    pol.remove_agents("acme")
    pol.add_agents([0.3], capacity=[1], names=["acme"])
    back = policy_from_state(json.loads(json.dumps(pol.to_state())))
    assert back.names == ("bolt", "corex", "acme") and back.w[-1] == w
    assert name != "ss-ucb" or w == 9  # explored in full: 3 rounds of 3 units, more than t x 1
    x = back.select()
    assert 0 <= x[-1] <= 1
    back.update(x, x)
    policy_from_state(back.to_state())


def test_ss_ucb_explores_a_newcomer_in_full_until_tau_units():
    pol = _policy("ss-ucb", names=["a", "b", "c", "d"], epsilon=0.5, horizon=20)
    rng = np.random.default_rng(1)
    _play(pol, rng, pol.tau)
    pol.add_agents([0.9], capacity=[3], names=["late"])
    rounds = 0
    while pol.w[-1] < pol.tau:
        x = pol.select()
        assert x[-1] == 3  # ordered in full, whatever the oracle picks among the others
        pol.update(x, rng.binomial(x, 0.5))
        rounds += 1
    assert rounds == -(-pol.tau // 3)


def test_cucb_orders_one_unit_of_a_newcomer():
    pol = _policy("cucb", names=["a", "b", "c", "d"])
    _play(pol, np.random.default_rng(2), 3)
    pol.add_agents([5.0], names=["e"])  # too dear for the oracle: explored anyway, once
    assert pol.select()[-1] == 1


def test_default_names_of_added_agents_skip_names_in_use():
    pol = _policy("cucb")
    pol.remove_agents("1")
    pol.add_agents([0.1, 0.2])
    assert pol.names == ("0", "2", "3", "4", "5")


@pytest.mark.parametrize("call, match", [
    (lambda p: p.add_agents([-1.0]), r"cost\[0\] must be >= 0"),
    (lambda p: p.add_agents([]), "must have shape"),
    (lambda p: p.add_agents([0.1], capacity=[1, 2]), "capacity has 2 entries but cost has 1"),
    (lambda p: p.add_agents([0.1], capacity=[0]), "capacity"),
    (lambda p: p.add_agents([0.1], names=["0"]), "agent '0' is already in the pool"),
    (lambda p: p.add_agents([0.1, 0.2], names=["x", "x"]), "duplicates"),
    (lambda p: p.remove_agents(["zz"]), "agent 'zz' is not in the pool"),
    (lambda p: p.remove_agents(["0", "0"]), "repeated"),
    (lambda p: p.remove_agents(["0", "1", "2", "3"]), "at least one agent must remain"),
    (lambda p: p.select(available=[1, 0, 1, 1]), "boolean mask or agent names"),
    (lambda p: p.select(available=np.ones(3, bool)), r"available must have shape \(4,\)"),
    (lambda p: p.select(available=["zz"]), "agent 'zz' is not in the pool"),
    (lambda p: p.update(np.zeros(4), np.zeros(4), round=0), r"round must be an integer in \[1, \d+\]; got 0"),
])
def test_pool_validation_changes_nothing(call, match):
    pol = _policy("ss-ucb")
    _play(pol, np.random.default_rng(3), 2)
    before = json.dumps(pol.to_state())
    with pytest.raises((ValueError, TypeError), match=match):
        call(pol)
    assert json.dumps(pol.to_state()) == before


def test_known_quality_needs_the_newcomers_quality():
    pol = make_policy("known-quality", "dpss", cost=[0.1, 0.2], alpha=0.5, quality=[0.9, 0.1])
    with pytest.raises(ValueError, match="needs the new agents' quality"):
        pol.add_agents([0.1])
    pol.add_agents([0.0], quality=[0.8], names=["new"])
    assert pol.select().tolist() == [1, 0, 1]


# ------------------------------------------------------------------ sleeping agents
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 7))
def test_known_quality_with_sleeping_agents_plays_the_optimum_among_the_available(seed, n):
    rng = np.random.default_rng(seed)
    q, c = rng.random(n), rng.random(n)
    alpha = float(rng.uniform(0.2, 0.8))
    mask = rng.random(n) < 0.6
    pol = make_policy("known-quality", "dpss", cost=c, alpha=alpha, quality=q)
    x = pol.select(available=mask)
    assert not x[~mask].any()
    if mask.any():
        sub = SubsetSelectionProblem(quality=q[mask], cost=c[mask], alpha=alpha)
        best = brute_force(sub)
        value = float(((q - c) * x).sum())
        assert best is not None and value == pytest.approx(best[0], abs=1e-9)
        assert sub.evaluate(x[mask]).feasible


@given(st.sampled_from(POLICIES), st.sampled_from([None, 3]), st.integers(0, 2 ** 32 - 1),
       st.integers(1, 30))
def test_unavailable_agents_are_never_ordered(name, runs, seed, rounds):
    pol = _policy(name, runs=runs, seed=seed % 1000)
    rng = np.random.default_rng(seed)
    for t in range(rounds):
        if t == rounds // 2:
            pol.add_agents(rng.random(1), names=["late"])
        mask = rng.random(pol.w.shape) < 0.7
        if t % 3 == 0:  # also by names, one list shared by every run
            names = [s for s, ok in zip(pol.names, mask.reshape(-1, pol.n)[0]) if ok]
            x = pol.select(available=names)
            mask = np.broadcast_to(mask.reshape(-1, pol.n)[0], pol.w.shape)
        else:
            x = pol.select(available=mask)
        assert not x[~mask].any()
        pol.update(x, rng.binomial(x, 0.6))


def test_fixed_pool_with_every_agent_available_is_the_plain_path():
    a, b = _policy("ss-ucb", runs=3), _policy("ss-ucb", runs=3)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(a.tau + 5):
        xa, xb = a.select(), b.select(available=np.ones(a.n, bool))
        assert np.array_equal(xa, xb)
        a.update(xa, rng_a.binomial(xa, 0.5))
        b.update(xb, rng_b.binomial(xb, 0.5))


# ------------------------------------------------------------------ late feedback
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 12), st.integers(1, 3))
def test_delayed_feedback_in_any_order_gives_the_same_statistics(seed, rounds, parts):
    rng = np.random.default_rng(seed)
    a, b = _policy("ss-ucb"), _policy("ss-ucb")
    pieces = []
    for t in range(1, rounds + 1):
        x = a.select()
        good = rng.binomial(x, 0.6)
        a.update(x, good, round=t)
        # the same round in parts: received units split at random, good units among them
        cuts = np.sort(rng.integers(0, x[None, :] + 1, size=(parts - 1, x.size)), axis=0)
        xs = np.diff(np.vstack([np.zeros_like(x), cuts, x]), axis=0)
        gs = np.minimum(xs, np.maximum(good - np.vstack([np.zeros_like(x), np.cumsum(xs, 0)[:-1]]), 0))
        pieces += [(t, xi, gi) for xi, gi in zip(xs, gs)]
    for k in rng.permutation(len(pieces)):
        t, xi, gi = pieces[k]
        b.update(xi, gi, round=t)
    assert np.array_equal(a.w, b.w) and np.array_equal(a.good, b.good) and a.t == b.t == rounds


AGENTS = pd.DataFrame({"name": ["a", "b", "c"], "cost": ["0.1", "0.3", "0.2"], "capacity": ["2", "1", "1"]})


def _obs(rows):
    return pd.DataFrame(rows, columns=["name", "received", "good"])


def test_planner_open_rounds_in_any_order_match_in_order_feedback():
    rng = np.random.default_rng(7)
    late = OnlinePlanner.create(AGENTS, alpha=0.6, epsilon=0.4, horizon=30, max_open=4)
    orders = [late.next_order() for _ in range(4)]
    assert [int(o["round"].iloc[0]) for o in orders] == [1, 2, 3, 4]
    assert late.next_order().equals(orders[-1])  # four open: the newest again
    outcomes = {k + 1: rng.binomial(o["units"].to_numpy(), 0.5) for k, o in enumerate(orders)}
    for rnd in (3, 1, 4, 2):  # in any order, round 2 in two parts
        units, good = orders[rnd - 1]["units"].to_numpy(), outcomes[rnd]
        if rnd == 2:
            late.feedback(_obs([["a", 1, min(good[0], 1)]]), round=2)
            assert 2 in late.open
            late.feedback(_obs([["a", units[0] - 1, good[0] - min(good[0], 1)], ["b", units[1], good[1]],
                                ["c", units[2], good[2]]]), round=2)
        else:
            late.feedback(_obs([[s, u, g] for s, u, g in zip("abc", units, good)]), round=rnd)
    assert late.open == {}
    plain = OnlinePlanner.create(AGENTS, alpha=0.6, epsilon=0.4, horizon=30)
    for rnd in range(1, 5):
        units = plain.next_order()["units"].to_numpy()
        plain.feedback(_obs([[s, u, g] for s, u, g in zip("abc", units, outcomes[rnd])]))
    assert plain.to_state()["policy"] == late.to_state()["policy"]


@pytest.mark.parametrize("rows, rnd, match", [
    ([["a", 1, 1]], 5, "round 5 does not exist: rounds 1..2 were ordered"),
    ([["a", 1, 1]], 0, "round 0 does not exist"),
    ([["a", 3, 1]], 1, "column 'received': exceeds the 2 units of agent 'a' still due for round 1; got 3"),
    ([["b", 1, 1]], 2, "exceeds the 0 units of agent 'b' still due for round 2"),
    ([["a", 2, 3]], 1, "column 'good': exceeds received = 2"),
])
def test_planner_refuses_feedback_beyond_the_orders(rows, rnd, match):
    p = OnlinePlanner.create(AGENTS, alpha=0.6, epsilon=0.4, horizon=30, max_open=2)
    p.next_order()
    p.next_order(unavailable=["b"])
    before = json.dumps(p.to_state())
    with pytest.raises(ValueError, match=match):
        p.feedback(_obs(rows), round=rnd)
    assert json.dumps(p.to_state()) == before


def test_planner_complete_round_is_refused_and_availability_is_recorded():
    p = OnlinePlanner.create(AGENTS, alpha=0.6, epsilon=0.4, horizon=30, max_open=2)
    order = p.next_order(available=["a", "c"])
    assert order["units"].tolist() == [2, 0, 1]
    assert p.to_state()["open"][0]["unavailable"] == ["b"]
    p.feedback(_obs([["a", 2, 1], ["c", 1, 1]]), round=1)
    with pytest.raises(ValueError, match="round 1 is complete"):
        p.feedback(_obs([["a", 1, 1]]), round=1)
    with pytest.raises(ValueError, match="not both"):
        p.next_order(unavailable=["a"], available=["b"])


def test_planner_remove_drops_units_still_due_and_refuses_their_feedback():
    p = OnlinePlanner.create(AGENTS, alpha=0.6, epsilon=0.4, horizon=30, max_open=2)
    p.next_order()
    p.feedback(_obs([["a", 2, 2], ["c", 1, 1]]), round=1)
    p.remove_agents(["b"])
    assert p.open == {}  # b's unit is no longer due: round 1 is complete
    p.add_agents(pd.DataFrame({"name": ["b"], "cost": ["0.3"]}))
    assert p.names == ("a", "c", "b")
    p.next_order()
    p.remove_agents("a")
    with pytest.raises(ValueError, match="column 'name': was removed from the pool; .*; got 'a'"):
        p.feedback(_obs([["a", 1, 1]]), round=2)


# ------------------------------------------------------------------ state versions
@pytest.mark.parametrize("fixture", ["online_state_v1_ssucb.json", "online_state_v1_cts.json"])
def test_version_1_states_still_load_and_continue(fixture):
    old = json.loads((DATA / fixture).read_text())
    assert old["version"] == 1 and old["policy"]["version"] == 1
    p = OnlinePlanner.from_state(old)
    assert p.names == tuple(old["names"]) and p.policy.t == old["policy"]["t"]
    assert p.pending_round == old["pending"]["round"] and p.pending.tolist() == old["pending"]["units"]
    assert p.policy.w.tolist() == old["policy"]["w"]
    units = p.pending
    p.feedback(_obs([[s, int(u), int(u)] for s, u in zip(p.names, units)]))
    state = p.to_state()
    assert state["version"] == 2 and state["policy"]["version"] == 2
    assert OnlinePlanner.from_state(json.loads(json.dumps(state))).to_state() == state
