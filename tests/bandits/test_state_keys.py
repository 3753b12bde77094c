"""A bandit state of another version is refused, not rewritten without what it does not know.

Unknown keys at every level, counts above 2^53 (no longer exact as floats) and JSON nested too
deeply are one-line errors; the state file is left byte for byte unchanged.
"""
import copy
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subsel.bandits import OnlinePlanner
from subsel.cli import main
from subsel.models import MAX_EXACT_INT as MAX_COUNT

AGENTS = pd.DataFrame({"name": ["a", "b"], "cost": ["0.1", "0.3"], "capacity": ["2", "1"]})

#: Paths (keys from the top) of every mapping in a state, with the policy whose state has it.
LEVELS = [((), "ss-ucb"), (("open", 0), "ss-ucb"), (("policy",), "ss-ucb"), (("policy", "params"), "ss-ucb"),
          (("policy", "rng"), "cts"), (("policy", "rng", "state"), "cts"), (("policy", "rng", "state", "state"), "cts")]


def state_of(policy):
    kwargs = {"seed": 1} if policy == "cts" else {}
    p = OnlinePlanner.create(AGENTS, alpha=0.6, epsilon=0.4, horizon=20, policy=policy, **kwargs)
    p.next_order()
    return json.loads(json.dumps(p.to_state()))


def with_key(state, path, key, value=1):
    state = copy.deepcopy(state)
    node = state
    for k in path:
        node = node[k]
    node[key] = value
    return state


@pytest.mark.parametrize("path, policy", LEVELS)
def test_unknown_key_at_every_level_is_refused_naming_it(path, policy):
    with pytest.raises(ValueError, match="unknown (key|setting).*'extra_field'"):
        OnlinePlanner.from_state(with_key(state_of(policy), path, "extra_field"))


@settings(max_examples=40)
@given(level=st.sampled_from(LEVELS), key=st.text(min_size=1, max_size=12))
def test_any_unknown_key_is_refused(level, key):
    path, policy = level
    state = state_of(policy)
    node = state
    for k in path:
        node = node[k]
    assume(key not in node)  # a key the state does not know
    with pytest.raises(ValueError, match="unknown"):
        OnlinePlanner.from_state(with_key(state, path, key))


@pytest.mark.parametrize("path, policy", LEVELS)
def test_cli_refuses_unknown_key_and_leaves_the_file_unchanged(tmp_path, capsys, path, policy):
    state = tmp_path / "state.json"
    state.write_text(json.dumps(with_key(state_of(policy), path, "extra_field"), indent=1))
    before = state.read_bytes()
    code = main(["bandit", "next", "--state", str(state), "-o", str(tmp_path / "order.csv")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "extra_field" in err
    assert state.read_bytes() == before
    assert not (tmp_path / "order.csv").exists()


def test_counts_above_2_53_are_refused_not_rounded():
    state = state_of("ss-ucb")
    pol = state["policy"]
    pol["t"] = state["rounds"] = MAX_COUNT  # every round recorded: none open
    state["open"] = []
    pol["w"] = [2 ** 54 + 1, 0]
    with pytest.raises(ValueError, match=r"w\[0\] = 18014398509481985 exceeds 2\^53"):
        OnlinePlanner.from_state(state)
    pol["w"] = [MAX_COUNT, 0]
    assert OnlinePlanner.from_state(state).policy.w.tolist() == [MAX_COUNT, 0]


def test_feedback_cannot_push_counts_past_2_53():
    state = state_of("ss-ucb")
    pol = state["policy"]
    pol["t"] = MAX_COUNT - 1
    state["rounds"] = state["open"][0]["round"] = MAX_COUNT
    pol["w"] = [MAX_COUNT - 1, 0]
    planner = OnlinePlanner.from_state(state)
    before = planner.to_state()
    with pytest.raises(ValueError, match="past 2\\^53"):
        planner.policy.update(np.array([2, 0]), np.array([0, 0]))
    assert planner.to_state() == before


def test_deeply_nested_json_is_one_line(tmp_path, capsys):
    state = tmp_path / "state.json"
    state.write_text("[" * 100_000 + "]" * 100_000)
    before = state.read_bytes()
    code = main(["bandit", "next", "--state", str(state), "-o", str(tmp_path / "order.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [f"subsel: error: {state}: not a state file (JSON nested too deeply)"]
    assert state.read_bytes() == before
