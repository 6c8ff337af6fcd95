"""The ``harness-gym-env`` verifiers v1 taskset: ``--env.taskset.id harness-gym-env`` (or prime-rl's
``[orchestrator.train.source.env.taskset] id = "harness-gym-env"``) imports this module.

verifiers' loaders (``verifiers/v1/utils/loaders.py`` at PrimeIntellect-ai/verifiers
a60a606ecc4d309247edf9ff92c3eabca362781f) take the Taskset and Env subclasses this module exports via
``__all__``. Install it next to the harness-gym client (``pip install ./clients/python
./clients/python/examples/verifiers/harness_gym_env``); see docs/training/verifiers.md.
"""

from harness_gym.adapters.verifiers import HarnessGymEnv, HarnessGymTaskset

__all__ = ["HarnessGymEnv", "HarnessGymTaskset"]
