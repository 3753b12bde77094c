"""Throughput of the bandit simulation: batched DPSS-UCB and GSS-UCB vs a per-run loop.

Deva, Abhishek, Gujar, "A Multi-Arm Bandit Approach To Subset Selection Under Constraints" (AAMAS
2021), Section 6.2.  Measures run-rounds per second (runs x rounds / seconds) at the paper's setting
(n = 10, q, c ~ U[0, 1], alpha = 0.7, eps = 0.05, T = 10^5, so tau = 6908):

- the exploration phase (no oracle calls), batched over all runs;
- the oracle phase (t > tau) batched over all runs, for DPSS-UCB and GSS-UCB (one ``solve_batch``
  call per round), with every run on its own random stream (as ``simulate`` always does), per wall
  second and per CPU second (one core: the target is 10^6 run-rounds per CPU second);
- the same oracle phase with all runs drawing from one shared stream (the layout before per-run
  streams), for the cost of per-run streams as a ratio (the two are played in alternating chunks of
  rounds, so that the machine's load weighs on both alike; the CPU time of each chunk includes
  ``simulate``'s exact regret constants, which makes the rates slightly conservative);
- the same policies as a per-run loop (one ``Solver.solve`` call per run and round) on a small
  slice of runs;
- the DPSS-UCB oracle phase with sleeping agents (each agent available with probability 0.8 in
  each round, Deva et al., Section 7) beside the fixed pool, per CPU second (the bar: at least
  0.9x the fixed pool's rate): one whole ``simulate`` call each, of the same rounds from the same
  explored state, each timed with everything it does (for the sleeping side: its availability
  streams and its table of regret references, the best feasible selection among the agents of a
  round, one exact solve per run and distinct set of agents, filled from empty); the two run in
  two threads that take turns of a chunk of rounds, each charged the CPU time of its turns;

then prints the ratios and the extrapolated time of the full experiment (1000 runs x 10^5 rounds)
per policy, from the measured rates.  All numbers come from this one run.

Usage::

    python benchmarks/bench_bandits.py [--runs 1000] [--rounds 1500] [--chunks 6] [--slice-runs 10]
                                       [--slice-rounds 100] [--availability 0.8] [--repeats 1]
                                       [--only-availability]
"""
from __future__ import annotations

import argparse
import copy
import os
import threading
import time

import numpy as np

from subsel.bandits import BernoulliEnvironment, make_policy, paper_instances, simulate

N, ALPHA, EPS, T = 10, 0.7, 0.05, 100_000


class SharedStream(BernoulliEnvironment):
    """All runs draw from one generator, one (runs, n) block per round (the layout before per-run
    streams: run j's outcomes then depend on the number of runs)."""

    def _uniforms(self):
        shape = self.quality.shape + ((self._kmax,) if self._kmax > 1 else ())
        return self.rng.random(shape)


def explored(policy_name, oracle, quality, cost, runs, seed, env_class=BernoulliEnvironment):
    """A policy (batched when ``runs``) whose exploration phase was just played, and its environment."""
    env = env_class(quality, cost, seed=seed)
    pol = make_policy(policy_name, oracle, cost=cost, alpha=ALPHA, epsilon=EPS, horizon=T, runs=runs)
    start = time.perf_counter()
    x = np.broadcast_to(pol.capacity, quality.shape).astype(np.int64)
    for _ in range(pol.tau):
        pol._tell(x, env._good(x))
    return pol, env, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=1500, help="oracle rounds measured after tau")
    ap.add_argument("--slice-runs", type=int, default=10)
    ap.add_argument("--slice-rounds", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunks", type=int, default=6,
                    help="alternating chunks of the oracle rounds (per-run streams / one shared stream; "
                         "fixed pool / sleeping agents)")
    ap.add_argument("--availability", type=float, default=0.8,
                    help="probability that an agent is available in a round (sleeping-agents comparison)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="whole simulations per side in the sleeping-agents comparison")
    ap.add_argument("--only-availability", action="store_true",
                    help="only the sleeping-agents comparison (skip the per-oracle measurements)")
    args = ap.parse_args()
    quality, cost = paper_instances(N, args.runs, ALPHA, args.seed)
    if args.only_availability:
        availability(args, quality, cost)
        return
    print(f"n={N}, alpha={ALPHA}, eps={EPS}, T={T}, runs={args.runs}; measuring {args.rounds} oracle rounds "
          f"batched and {args.slice_rounds} rounds x {args.slice_runs} runs per-run")
    rates = {}
    for oracle in ("dpss", "gss"):
        # The two layouts are played in alternating chunks of rounds, so that a change of the
        # machine's load during the run weighs on both alike.
        played = {}
        for env_class in (SharedStream, BernoulliEnvironment):
            pol, env, explore_s = explored("ss-ucb", oracle, quality, cost, args.runs, args.seed + 1, env_class)
            played[env_class] = (pol, env)
            if env_class is BernoulliEnvironment:
                tau = pol.tau
                explore_rate = args.runs * tau / explore_s
        cpu_s = dict.fromkeys(played, 0.0)
        wall_s = dict.fromkeys(played, 0.0)
        chunks = max(1, min(args.chunks, args.rounds))
        sizes = [args.rounds // chunks + (k < args.rounds % chunks) for k in range(chunks)]
        for k, rounds in enumerate(sizes):
            for env_class in (list(played) if k % 2 == 0 else list(played)[::-1]):
                pol, env = played[env_class]
                cpu = time.process_time()
                res = simulate(pol, env, rounds, EPS, tau=0, checkpoints=[rounds])
                cpu_s[env_class] += time.process_time() - cpu
                wall_s[env_class] += res.wall_time_s
        work = args.runs * args.rounds
        batched_cpu = work / cpu_s[BernoulliEnvironment]
        stream_ratio = batched_cpu / (work / cpu_s[SharedStream])
        batched = work / wall_s[BernoulliEnvironment]
        # per-run loop on a slice: single-run policies, each asking Solver.solve every round
        k = args.slice_runs
        singles = []
        for j in range(k):
            p1, _, _ = explored("ss-ucb", oracle, quality[j], cost[j], None, args.seed + 2 + j)
            singles.append(p1)
        env_k = BernoulliEnvironment(quality[:k], cost[:k], seed=args.seed + 1)
        cpu = time.process_time()
        res_k = simulate(singles, env_k, args.slice_rounds, EPS, tau=0, checkpoints=[args.slice_rounds])
        per_run_cpu = k * args.slice_rounds / (time.process_time() - cpu)
        per_run = res_k.run_rounds_per_s
        full_s = args.runs * tau / explore_rate + args.runs * (T - tau) / batched_cpu
        rates[oracle] = batched_cpu
        print(f"{oracle.upper()}-UCB: explore phase {explore_rate:,.0f} run-rounds/s; oracle phase batched "
              f"{batched:,.0f} run-rounds/s wall, {batched_cpu:,.0f} per CPU second; per-run loop "
              f"{per_run:,.0f} run-rounds/s wall, {per_run_cpu:,.0f} per CPU second; ratio batched/per-run "
              f"{batched / per_run:,.1f}x (wall), {batched_cpu / per_run_cpu:,.1f}x (CPU)")
        print(f"    per-run streams / one shared stream (CPU-second rates): {stream_ratio:.3f} "
              f"({100 * (1 - stream_ratio):.1f}% slower; the bar is 15%)")
        print(f"    extrapolated full experiment ({args.runs} runs x {T} rounds, tau={tau}): "
              f"{full_s:,.0f} CPU s = {full_s / 60:.1f} min on one core "
              f"({'meets' if batched_cpu >= 1e6 else 'misses'} the 1e6 run-rounds per CPU second target)")
    print(f"ratio GSS-UCB / DPSS-UCB batched throughput: {rates['gss'] / rates['dpss']:.2f}")
    availability(args, quality, cost)
    print(f"load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
          "(wall rates drop when other processes share the cores; CPU-second rates much less)")


class Relay:
    """Two simulations in two threads, one running at a time, handing over every ``every`` rounds.

    Each side is charged the process's CPU time during its own turns (``time.process_time``, so
    that the work of helper threads, e.g. OpenBLAS's, counts too; the other side is blocked
    meanwhile): the two whole simulations are timed apart while they alternate in chunks of rounds,
    so that a change of the machine's load weighs on both alike.
    """

    def __init__(self, every: int):
        self.every, self.turn, self.done = max(1, every), None, set()
        self.spent: dict[str, float] = {}
        self.mark = 0.0
        self.cond = threading.Condition()

    def wait(self, key: str) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.turn == key)
            self.mark = time.process_time()

    def pass_on(self, key: str, other: str, finished: bool = False) -> None:
        with self.cond:
            self.spent[key] = self.spent.get(key, 0.0) + time.process_time() - self.mark
            if finished:
                self.done.add(key)
            if other not in self.done:
                self.turn = other
                self.cond.notify_all()
                if not finished:
                    self.cond.wait_for(lambda: self.turn == key)
            self.mark = time.process_time()


class RelayEnvironment(BernoulliEnvironment):
    """The outcomes of :class:`BernoulliEnvironment`, handing the relay over every few rounds."""

    def _good(self, x):
        self.played += 1
        if self.played % self.relay.every == 0:
            self.relay.pass_on(self.key, self.other)
        return super()._good(x)


def availability(args, quality, cost) -> None:
    """DPSS-UCB's oracle phase with sleeping agents beside the fixed pool, per CPU second.

    Each side is one whole ``simulate`` call of ``args.rounds`` rounds, everything included (the
    regret constants of the whole pool, and for the sleeping side its streams of availability
    draws and the filling of its table of regret references from empty), from the same explored
    policy (a copy) on a fresh environment with the same outcome stream.  The two calls run in
    turns of ``args.rounds / args.chunks`` rounds (see :class:`Relay`), ``args.repeats`` times
    (the side that starts alternates).
    """
    explored_pol, _, _ = explored("ss-ucb", "dpss", quality, cost, args.runs, args.seed + 1)
    chunks = max(2, min(args.chunks, args.rounds))
    cpu_s = {"fixed": 0.0, "asleep": 0.0}
    ratios = []
    seeds = np.random.SeedSequence(args.seed + 4).spawn(args.repeats)
    for k in range(args.repeats):
        relay = Relay(args.rounds // chunks)
        played: set[str] = set()

        def play(key, other, seed=seeds[k], relay=relay, played=played):
            pol = copy.deepcopy(explored_pol)
            env = RelayEnvironment(quality, cost, seed=args.seed + 3)
            env.relay, env.key, env.other, env.played = relay, key, other, 0
            kw = {"availability": args.availability, "seed": seed} if key == "asleep" else {}
            relay.wait(key)
            try:
                simulate(pol, env, args.rounds, EPS, tau=0, checkpoints=[args.rounds], **kw)
                played.add(key)
            finally:  # the other side never waits for a side that stopped
                relay.pass_on(key, other, finished=True)

        threads = [threading.Thread(target=play, args=("fixed", "asleep")),
                   threading.Thread(target=play, args=("asleep", "fixed"))]
        for th in threads:
            th.start()
        with relay.cond:
            relay.turn = "fixed" if k % 2 == 0 else "asleep"
            relay.cond.notify_all()
        for th in threads:
            th.join()
        if len(played) < 2:
            raise SystemExit("a simulation failed (its traceback is above)")
        spent = relay.spent
        for key in cpu_s:
            cpu_s[key] += spent[key]
        ratios.append(spent["fixed"] / spent["asleep"])
    work = args.runs * args.rounds * args.repeats
    rate = {key: work / cpu_s[key] for key in cpu_s}
    ratio = rate["asleep"] / rate["fixed"]
    print(f"sleeping agents (availability {args.availability:g}) vs fixed pool, DPSS-UCB oracle phase, "
          f"{args.runs} runs, whole simulations of {args.rounds} rounds (warm-up included) played in "
          f"turns of {args.rounds // chunks} rounds, {args.repeats} time(s): {rate['asleep']:,.0f} vs "
          f"{rate['fixed']:,.0f} run-rounds per CPU second: ratio {ratio:.3f} "
          f"({'meets' if ratio >= 0.9 else 'misses'} the 0.9 bar)"
          + (f"; per repeat {', '.join(f'{r:.3f}' for r in ratios)}" if args.repeats > 1 else ""))


if __name__ == "__main__":
    main()
