"""A verifiers environment module: `vf.load_environment("harness-gym-env", url=..., variant=...)` imports it.

Install it next to the harness-gym client (`pip install -e clients/python` then
`pip install -e clients/python/examples/verifiers/harness_gym_env`, or `vf-install harness-gym-env -p
clients/python/examples/verifiers`), and point prime-rl's `[[env]] id = "harness-gym-env"` at it
(docs/training/verifiers.md). Every argument is `harness_gym.adapters.verifiers.load_environment`'s.
"""

from harness_gym.adapters.verifiers import load_environment

__all__ = ["load_environment"]
