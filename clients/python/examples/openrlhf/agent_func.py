"""OpenRLHF agent-func file for harness-gym: pass it as --train.agent_func_path (docs/training/openrlhf.md).

OpenRLHF loads this file and builds ``AgentExecutor()`` with no arguments. The dataset's label column holds
each harness-gym row as JSON (make_dataset.py); set HARNESS_GYM_URL (and optionally HARNESS_GYM_MAX_TURNS,
HARNESS_GYM_RESET_OPTIONS) in the environment of the vLLM engines (Ray runtime_env env_vars).
"""
from harness_gym.adapters.openrlhf import AgentExecutor, AgentInstance  # noqa: F401
