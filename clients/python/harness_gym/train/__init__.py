"""harness_gym.train: the framework-neutral core that trainer integrations (verl, ROLL, OpenRLHF, TRL,
verifiers) build on.

- :class:`EnvPool` / :func:`shared_pool`: one pooled connection per worker process, multiplexing every
  env instance's resets and steps into batch frames (``pool.py``).
- :func:`group_rows` / :func:`row_reset_item`: dataset rows whose siblings share seed, variant, locale
  and options, hence task and variant, in any process (``rows.py``).
- :class:`TokenTrajectory`: token-exact multi-turn accounting with a chat template (``tokens.py``).
- :func:`rollout` / :class:`Sample` / :class:`RolloutConfig`: one episode as a training sample
  (``rollout.py``).
- :class:`ToyTokenizer`: a small real tokenizer with Qwen2.5's chat template, for tests (``toy_tokenizer.py``).
"""

from .pool import EnvPool, EpisodeHandle, PooledEnv, PoolStats, close_shared_pools, shared_pool
from .rollout import FAILURES, Generation, RolloutConfig, Sample, rollout
from .rows import expand_rows, group_rows, row_reset_item, variant_key
from .tokens import ChatTokenizer, TemplatePrefixError, TokenTrajectory, default_tools_message
from .toy_tokenizer import ToyTokenizer, render_qwen25

__all__ = [
    "EnvPool",
    "EpisodeHandle",
    "PooledEnv",
    "PoolStats",
    "shared_pool",
    "close_shared_pools",
    "group_rows",
    "expand_rows",
    "row_reset_item",
    "variant_key",
    "ChatTokenizer",
    "TokenTrajectory",
    "TemplatePrefixError",
    "default_tools_message",
    "FAILURES",
    "Generation",
    "RolloutConfig",
    "Sample",
    "rollout",
    "ToyTokenizer",
    "render_qwen25",
]
