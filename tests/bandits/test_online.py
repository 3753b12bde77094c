"""OnlinePlanner: the next / feedback cycle and its checks (nothing changes on rejected feedback)."""
import json

import numpy as np
import pandas as pd
import pytest

from subsel.bandits import OnlinePlanner

AGENTS = pd.DataFrame({"name": ["a", "b", "c"], "cost": ["0.1", "0.3", "0.2"], "capacity": ["2", "1", "1"]})


def planner(**kw):
    args = dict(alpha=0.6, epsilon=0.4, horizon=20)
    args.update(kw)
    return OnlinePlanner.create(AGENTS, **args)


def obs(rows):
    return pd.DataFrame(rows, columns=["name", "received", "good"])


def test_cycle_explores_then_learns():
    p = planner()
    tau = p.policy.tau
    for t in range(1, tau + 2):
        order = p.next_order()
        assert order.columns.tolist() == ["name", "units", "round"]
        if t <= tau:
            assert order["units"].tolist() == [2, 1, 1]
        assert p.pending_round == t
        units = order["units"].to_numpy()
        p.feedback(obs([[n, u, u] for n, u in zip(order["name"], units)]))
        assert p.policy.t == t
    assert p.policy.w.tolist() == pytest.approx((np.array([2, 1, 1]) * tau + units).tolist())


def test_next_twice_returns_the_same_order():
    p = planner()
    assert p.next_order().equals(p.next_order())


def test_state_round_trip_keeps_pending_order():
    p = planner(policy="cts", seed=3)
    p.next_order()
    back = OnlinePlanner.from_state(json.loads(json.dumps(p.to_state())))
    assert back.to_state() == p.to_state()
    assert back.pending.tolist() == p.pending.tolist()


@pytest.mark.parametrize("rows, match", [
    ([["a", 2, 2], ["b", 1, 1], ["zz", 1, 1]], "row 2, column 'name': unknown agent; got 'zz'"),
    ([["a", 2, 3], ["b", 1, 1], ["c", 1, 1]], "row 0, column 'good': exceeds received = 2 for agent 'a'; got 3"),
    ([["a", 1, 1], ["b", 1, 1], ["c", 1, 1]], "does not match the order of round 1: agent 'a' was ordered 2"),
    ([["a", 2, 2], ["b", 1, 1]], "agent 'c' was ordered 1 unit, received 0"),
    ([["a", 2, 2], ["a", 2, 2], ["c", 1, 1]], "row 1, column 'name': repeats the agent of row 0; got 'a'"),
    ([["a", 2, 2], ["b", "x", 1], ["c", 1, 1]], "row 1, column 'received': expected a non-negative"),
    ([["a", 2, 2], ["b", 1, -1], ["c", 1, 1]], "row 1, column 'good': expected a non-negative"),
])
def test_rejected_feedback_changes_nothing(rows, match):
    p = planner()
    p.next_order()
    before = json.dumps(p.to_state())
    with pytest.raises(ValueError, match=match):
        p.feedback(obs(rows))
    assert json.dumps(p.to_state()) == before


def test_repeated_round_is_rejected():
    p = planner()
    p.next_order()
    good = obs([["a", 2, 1], ["b", 1, 1], ["c", 1, 0]])
    p.feedback(good)
    with pytest.raises(ValueError, match="no order is pending: round 1 was already recorded"):
        p.feedback(good)


def test_feedback_before_any_order_says_nothing_was_ordered():
    p = planner()
    with pytest.raises(ValueError, match="no order is pending: nothing was ordered yet; run 'next' first") as info:
        p.feedback(obs([["a", 2, 1]]))
    assert "round 0" not in str(info.value) and "repeated" not in str(info.value)


def test_round_column_must_match():
    p = planner()
    p.next_order()
    rows = pd.DataFrame({"name": ["a", "b", "c"], "received": [2, 1, 1], "good": [1, 1, 1], "round": [2, 2, 2]})
    with pytest.raises(ValueError, match="row 0, column 'round': is not the pending round 1 .*; got 2"):
        p.feedback(rows)


@pytest.mark.parametrize("table, match", [
    (AGENTS.drop(columns="cost"), "column 'cost' is missing"),
    (AGENTS.assign(quality=0.5), "a 'quality' column is not expected"),
    (AGENTS.assign(cost=["0.1", "-1", "0.2"]), "row 1, column 'cost'"),
    (AGENTS.assign(name=["a", "a", "c"]), "duplicates"),
    (AGENTS.rename(columns={"capacity": "capcity"}), "unknown column 'capcity'; an online planner's agents CSV "
                                                     "has the columns name, cost, capacity"),
    (AGENTS.assign(min_units=[1, 1, 1]), "column 'min_units' is not supported by the online planner"),
    (AGENTS.assign(lot_size=[1, 1, 1]), "column 'lot_size' is not supported by the online planner"),
    (AGENTS.assign(fixed_cost=[0, 0, 0]), "column 'fixed_cost' is not supported by the online planner"),
    (AGENTS.assign(group=["g", "g", ""]), "column 'group' is not supported by the online planner"),
])
def test_create_validation(table, match):
    with pytest.raises(ValueError, match=match):
        OnlinePlanner.create(table, alpha=0.6, epsilon=0.1, horizon=10)


@pytest.mark.parametrize("column, value, match", [
    ("capcity", 3, "unknown column 'capcity'"),
    ("min_units", 2, "column 'min_units' is not supported by the online planner"),
    ("group", "g", "column 'group' is not supported by the online planner"),
])
def test_add_agents_refuses_a_column_it_would_not_read(column, value, match):
    p = planner()
    before = json.dumps(p.to_state())
    with pytest.raises(ValueError, match=match):
        p.add_agents(pd.DataFrame({"name": ["d"], "cost": ["0.1"], column: [value]}))
    assert json.dumps(p.to_state()) == before


def test_known_quality_policy_is_not_for_online_use():
    with pytest.raises(ValueError, match="needs the true qualities"):
        OnlinePlanner.create(AGENTS, alpha=0.6, epsilon=0.1, horizon=10, policy="known-quality")


@pytest.mark.parametrize("n, shown", [(2, "(a0, a1)"), (7, "(all 7 of them)")])
def test_next_order_with_every_agent_unavailable_opens_no_round(n, shown):
    from subsel.bandits import make_policy

    names = [f"a{i}" for i in range(n)]
    planner = OnlinePlanner(names, make_policy("ss-ucb", "dpss", cost=[0.1] * n, alpha=0.6, epsilon=0.4,
                                               horizon=20), max_open=2)
    for kw in ({"unavailable": names}, {"available": []}):
        with pytest.raises(ValueError, match=rf"every agent is unavailable \({shown}\): nothing can be ordered"):
            planner.next_order(**kw)
        assert planner.rounds == 0 and planner.open == {}
    assert planner.next_order(unavailable=names[1:])["units"].tolist() == [1] + [0] * (n - 1)
