"""harness_gym.adapters: thin shims that plug harness-gym into RL trainer frameworks.

Each module imports its framework lazily (inside functions and classes), so importing the module never
needs the framework installed, and each builds on the framework-neutral core in :mod:`harness_gym.train`
(one pooled connection per process, groups by the dataset row's seed, token-exact accounting):

- ``verl``: an ``AgentLoopBase`` subclass registered as ``"harness_gym"`` (docs/training/verl.md);
- ``trl``: a ``GRPOTrainer`` ``rollout_func`` and the reward functions reading its fields (docs/training/trl.md);
- ``openrlhf``: the agent-func file contract, ``AgentExecutor`` / ``AgentInstanceBase`` (docs/training/openrlhf.md);
- ``roll`` and ``verifiers``: see their modules.
"""
