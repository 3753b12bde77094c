"""Simulator: regret bookkeeping, batched = per-run, zero regret of the known-quality policy,
correctness after tau on an eps-separated instance, per-run random streams (Deva et al., AAMAS 2021,
Section 6.2)."""
import itertools

import numpy as np
import pytest

from subsel.bandits import (
    BernoulliEnvironment,
    KnownQuality,
    Policy,
    make_policy,
    paper_instances,
    regret_constants,
    simulate,
)
from subsel.bandits import environment as environment_module
from subsel.bandits.environment import run_seeds, surplus_ok
from subsel.bandits.simulation import separated_instances, separation_gaps
from tests.strategies import brute_force


class Scripted(Policy):
    """Plays a fixed list of selections (for hand-computed regret)."""

    name = "scripted"

    def __init__(self, script, cost, alpha):
        super().__init__("dpss", cost, alpha, runs=1)
        self.script = [np.asarray(s)[None, :] for s in script]

    def _select2(self):
        return self.script[self.t]


def test_regret_bookkeeping_by_hand():
    # q = (0.9, 0.5), c = (0.1, 0.1): r = (0.8, 0.4); alpha = 0.7, eps = 0.1.
    # Feasible: {}, {0}, {0,1} (average 0.7).  S* = {0,1}: 1.2; min feasible utility 0; L = 1.2.
    q, c = np.array([[0.9, 0.5]]), np.array([[0.1, 0.1]])
    script = [[1, 1], [1, 0], [0, 1], [0, 0]]
    # regrets: 0 (optimal), 0.4 (correct), L = 1.2 ({1}: 0.5 < 0.6), 1.2 (empty: correct, utility 0)
    env = BernoulliEnvironment(q, c, seed=0)
    res = simulate(Scripted(script, c, 0.7), env, 4, 0.1, tau=0, checkpoints=[1, 2, 3, 4])
    assert res.optimum.tolist() == pytest.approx([1.2])
    assert res.L.tolist() == pytest.approx([1.2])
    assert res.regret_mean.tolist() == pytest.approx([0.0, 0.4, 1.6, 2.8])
    assert res.correct_fraction.tolist() == [1, 1, 0, 1]
    assert res.feasible_fraction.tolist() == [1, 1, 0, 1]
    assert res.utility_mean.tolist() == pytest.approx([1.2, 0.8, 0.4, 0.0])
    assert res.regret_at_T == pytest.approx(2.8)
    assert res.correct_fraction_after_tau == pytest.approx(0.75)


def test_L_uses_the_worst_feasible_selection():
    # r = (0.8, -0.15); both agents feasible alone: worst feasible is {1} with -0.15, L = 0.95
    q, c = np.array([[0.9, 0.8]]), np.array([[0.1, 0.95]])
    opt, L = regret_constants(q, c, 0.7)
    assert opt[0] == pytest.approx(0.8) and L[0] == pytest.approx(0.95)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_regret_constants_match_brute_force(seed):
    from subsel import SubsetSelectionProblem

    q, c = paper_instances(6, 4, 0.6, seed)
    c = c * 1.5  # costs above R exercise the transformation of the minimisation
    opt, L = regret_constants(q, c, 0.6, capacity=[1, 2, 1, 1, 2, 1])
    for j in range(4):
        p = SubsetSelectionProblem(quality=q[j], cost=c[j], alpha=0.6, capacity=[1, 2, 1, 1, 2, 1])
        best = brute_force(p)[0]
        worst = brute_force(p, minimize=True)[0]
        assert opt[j] == pytest.approx(best, abs=1e-9)
        assert L[j] == pytest.approx(best - worst, abs=1e-9)


def test_regret_constants_need_an_exact_solver():
    with pytest.raises(ValueError, match="not exact"):
        regret_constants(np.array([[0.5]]), np.array([[0.1]]), 0.5, exact="gss")


@pytest.mark.parametrize("policy, oracle", [("ss-ucb", "dpss"), ("ss-ucb", "gss"), ("cucb", "dpss"),
                                            ("cautious-ucb", "gss")])
def test_batched_and_per_run_paths_choose_identical_selections(policy, oracle):
    m, n, T, eps = 4, 6, 40, 0.5
    q, c = paper_instances(n, m, 0.6, seed=11)
    settings = dict(alpha=0.6, epsilon=eps, horizon=T)
    batched = make_policy(policy, oracle, cost=c, runs=m, **settings)
    singles = [make_policy(policy, oracle, cost=c[j], **settings) for j in range(m)]
    res_b = simulate(batched, BernoulliEnvironment(q, c, seed=5), T, eps, keep_selections=True)
    res_s = simulate(singles, BernoulliEnvironment(q, c, seed=5), T, eps, keep_selections=True)
    if policy == "ss-ucb":
        assert batched.tau < T  # the oracle is used in some rounds
    assert np.array_equal(res_b.selections, res_s.selections)
    assert res_b.regret_mean.tolist() == pytest.approx(res_s.regret_mean.tolist())


def test_known_quality_policy_has_zero_regret():
    q, c = paper_instances(8, 20, 0.7, seed=3)
    pol = KnownQuality("dpss", c, 0.7, quality=q, runs=20)
    res = simulate(pol, BernoulliEnvironment(q, c, seed=1), 50, 0.05)
    assert res.regret_at_T == 0.0
    assert np.all(res.regret_mean == 0) and np.all(res.correct_fraction == 1)
    assert np.all(res.feasible_fraction == 1)


def _separated(q, alpha, eps):
    for size in range(1, len(q) + 1):
        for S in itertools.combinations(range(len(q)), size):
            avg = float(np.mean(np.asarray(q)[list(S)]))
            if alpha - eps < avg < alpha:
                return False
    return True


@pytest.mark.parametrize("oracle", ["dpss", "gss"])
def test_correct_after_tau_on_separated_instance(oracle):
    q1 = [0.9, 0.75, 0.05]
    alpha, eps = 0.7, 0.1
    assert _separated(q1, alpha, eps)  # Deva et al., Definition 1
    m, T = 40, 1500
    q = np.tile(q1, (m, 1))
    c = np.tile([0.3, 0.2, 0.01], (m, 1))
    pol = make_policy("ss-ucb", oracle, cost=c, alpha=alpha, epsilon=eps, horizon=T, runs=m)
    assert pol.tau < T
    res = simulate(pol, BernoulliEnvironment(q, c, seed=2024), T, eps)
    assert res.correct_fraction_after_tau >= 0.95
    assert res.feasible_fraction_after_tau >= 0.95


def test_environment_feedback():
    env = BernoulliEnvironment([[1.0, 0.0, 0.5]], [[0.1, 0.1, 0.1]], capacity=[3, 2, 2], seed=0)
    received, good = env.play([[3, 2, 0]])
    assert received.tolist() == [[3, 2, 0]]
    assert good.tolist() == [[3, 0, 0]]
    with pytest.raises(ValueError, match=r"x\[0, 0\] must be an integer in \[0, capacity\]"):
        env.play([[4, 0, 0]])
    with pytest.raises(ValueError, match="x must have shape"):
        env.play([1, 0, 0])


def test_environment_outcome_frequencies():
    env = BernoulliEnvironment([0.3], [0.0], capacity=[4], seed=9)
    total = sum(int(env.play([4])[1][0]) for _ in range(2000))
    assert total / 8000 == pytest.approx(0.3, abs=0.03)


def test_surplus_ok_counts_empty_as_correct():
    assert surplus_ok(np.array([[0, 0], [1, 0]]), np.array([[0.2, 0.9], [0.2, 0.9]]), 0.5).tolist() == [True, False]


@pytest.mark.parametrize("kwargs, match", [
    (dict(quality=[1.5], cost=[0.1]), r"quality\[0\] must be in \[0, 1\]"),
    (dict(quality=[0.5], cost=[-0.1]), r"cost\[0\] must be >= 0"),
    (dict(quality=[[0.5], [0.4]], cost=[[0.1], [-0.2]]), r"run 1: cost\[0\] must be >= 0"),
    (dict(quality=[0.5, 0.5], cost=[0.1]), "cost must have shape"),
])
def test_environment_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BernoulliEnvironment(**kwargs)


def test_simulate_rejects_mismatched_runs():
    q, c = paper_instances(3, 2, 0.5, seed=0)
    pol = make_policy("cucb", cost=c[:1], alpha=0.5, runs=1)
    with pytest.raises(ValueError, match="runs=1 but the environment has 2 runs"):
        simulate(pol, BernoulliEnvironment(q, c, seed=0), 5, 0.1)


@pytest.mark.parametrize("n, runs, match", [(0, 2, "n must be an integer >= 1; got 0"),
                                            (3, -1, "runs must be an integer >= 1; got -1")])
def test_paper_instances_size_errors(n, runs, match):
    with pytest.raises(ValueError, match=match):
        paper_instances(n, runs, 0.7, 0)


# ---------------------------------------------------------------- per-run random streams
def _selections(policy, runs, seed=3, start=0, T=60, n=5, eps=0.4):
    q, c = paper_instances(n, runs, 0.6, seed, start=start)
    pol = make_policy(policy, "gss", cost=c, alpha=0.6, epsilon=eps, horizon=T, runs=runs,
                      seed=run_seeds(seed + 1, runs, start) if policy == "cts" else None)
    env = BernoulliEnvironment(q, c, seed=run_seeds(seed + 2, runs, start))
    return simulate(pol, env, T, eps, keep_selections=True).selections


@pytest.mark.parametrize("policy", ["ss-ucb", "cucb", "cts"])
def test_run_i_is_the_same_whatever_the_number_of_runs(policy):
    four = _selections(policy, 4)
    forty = _selections(policy, 40)
    assert np.array_equal(four, forty[:, :4])
    # and however runs are split over jobs: runs 4..7 on their own
    assert np.array_equal(_selections(policy, 4, start=4), forty[:, 4:8])


def test_a_single_seed_gives_run_j_child_j():
    q, c = paper_instances(4, 6, 0.6, seed=1)
    a = BernoulliEnvironment(q, c, seed=9)
    b = BernoulliEnvironment(q[2:5], c[2:5], seed=run_seeds(9, 3, start=2))
    x = np.ones((6, 4), dtype=np.int64)
    for _ in range(5):
        assert np.array_equal(a.play(x)[1][2:5], b.play(x[2:5])[1])


@pytest.mark.parametrize("capacity", [None, [3, 1, 2]])
def test_block_size_changes_no_outcome(monkeypatch, capacity):
    q = np.tile([0.3, 0.6, 0.9], (5, 1))
    x = np.tile([1, 1, 1] if capacity is None else capacity, (5, 1))
    draws = {}
    for values in (7, 2 ** 21):  # blocks of 1 round vs. all rounds at once
        monkeypatch.setattr(environment_module, "_BLOCK_VALUES", values)
        env = BernoulliEnvironment(q, np.zeros_like(q), capacity=capacity, seed=4)
        draws[values] = [env.play(x)[1] for _ in range(30)]
    assert all(np.array_equal(u, v) for u, v in zip(*draws.values()))


def test_run_seeds_match_spawn_and_reject_bad_sizes():
    spawned = np.random.SeedSequence(5).spawn(10)
    mine = run_seeds(5, 3, start=7)
    assert [s.generate_state(2).tolist() for s in mine] == [s.generate_state(2).tolist() for s in spawned[7:]]
    with pytest.raises(ValueError, match="start must be an integer >= 0"):
        run_seeds(5, 3, start=-1)
    with pytest.raises(TypeError, match="seed must be"):
        run_seeds("x", 3)


def test_environment_rejects_a_wrong_number_of_run_seeds():
    with pytest.raises(ValueError, match="seed has 2 per-run entries but quality has 3 runs"):
        BernoulliEnvironment(np.full((3, 2), 0.5), np.zeros((3, 2)), seed=run_seeds(0, 2))


# ---------------------------------------------------------------- the epsilon-separated family
def test_separation_gaps_match_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        q = rng.random(6)
        count = sum(1 for r in range(1, 7) for S in itertools.combinations(range(6), r)
                    if 0.7 - 1e-6 <= np.mean(q[list(S)]) < 0.75)
        assert int(separation_gaps(q, 0.7, 0.05)) == count


def test_separated_instances_are_separated_and_per_run():
    q, c = separated_instances(8, 6, 0.7, 0.05, seed=2)
    assert (separation_gaps(q, 0.7, 0.05) == 0).all()
    q3, c3 = separated_instances(8, 2, 0.7, 0.05, seed=2, start=3)
    assert np.array_equal(q3, q[3:5]) and np.array_equal(c3, c[3:5])
    # the optimum at alpha is the optimum at alpha + eps: the tightened threshold costs nothing
    at_alpha, _ = regret_constants(q, c, 0.7)
    at_tight, _ = regret_constants(q, c, 0.75)
    assert np.allclose(at_alpha, at_tight)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=17), "n must be <= 16"),
    (dict(epsilon=0.0), r"epsilon must be a number in \(0, 1\]"),
    (dict(n=12, alpha=0.5, epsilon=0.2, max_draws=2), "run 0: no 0.2-separated instance of 12 agents"),
])
def test_separated_instances_errors(kwargs, match):
    args = dict(n=8, runs=2, alpha=0.7, epsilon=0.05, seed=0) | kwargs
    with pytest.raises(ValueError, match=match):
        separated_instances(**args)
