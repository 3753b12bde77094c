"""Unknown qualities: SS-UCB and baseline bandit policies, their environment and simulator
(Deva, Abhishek, Gujar, "A Multi-Arm Bandit Approach To Subset Selection Under Constraints", AAMAS
2021, Section 4).

- :class:`BernoulliEnvironment` — agents with hidden qualities, semi-bandit feedback;
- policies with ``select()`` / ``update(x, good)``: :class:`SSUCB` (DPSS-UCB, GSS-UCB with the
  ``dpss`` / ``gss`` oracles), :class:`CUCB`, :class:`CautiousUCB`, :class:`ThompsonSampling`,
  :class:`KnownQuality`; :func:`make_policy` by name, :func:`policy_from_state` from JSON;
- :func:`paper_instances`, :func:`separated_instances` — the paper's random instances and their
  epsilon-separated variant, one seed child per run (:func:`run_seeds`);
- :func:`simulate` — many runs at once with batched oracles, regret and correctness curves, also
  in a changing world (sleeping agents, lead times, joins and leaves: :mod:`subsel.bandits.world`,
  :func:`arrival_schedule`); every policy's pool can change (:mod:`subsel.bandits.pool`);
- :class:`OnlinePlanner` — one real round at a time, with a JSON state file.

The oracle of every policy is a :class:`subsel.solvers.Solver`, used only through ``solve`` and
``solve_batch``.
"""
from .environment import BernoulliEnvironment, run_seeds
from .online import OnlinePlanner
from .policies import (
    CUCB,
    POLICIES,
    SSUCB,
    CautiousUCB,
    KnownQuality,
    Policy,
    ThompsonSampling,
    exploration_rounds,
    fitting_epsilon,
    make_policy,
    policy_from_state,
    policy_names,
)
from .simulation import (
    SimulationResult,
    default_checkpoints,
    paper_instances,
    regret_constants,
    separated_instances,
    separation_gaps,
    simulate,
)
from .world import ChangingWorld, arrival_schedule

__all__ = [
    "CUCB",
    "POLICIES",
    "SSUCB",
    "BernoulliEnvironment",
    "ChangingWorld",
    "CautiousUCB",
    "KnownQuality",
    "OnlinePlanner",
    "Policy",
    "SimulationResult",
    "ThompsonSampling",
    "arrival_schedule",
    "default_checkpoints",
    "exploration_rounds",
    "fitting_epsilon",
    "make_policy",
    "paper_instances",
    "policy_from_state",
    "policy_names",
    "regret_constants",
    "run_seeds",
    "separated_instances",
    "separation_gaps",
    "simulate",
]
