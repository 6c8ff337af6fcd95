"""Stand-in for ROLL's Gym-style environment contract (gem.Env) and its env managers' calls (stdlib only).

ROLL's agentic pipeline creates environments with the `gem` package (axon-rl/gem) and drives them from its
env managers; a custom environment is a ``gem.Env`` subclass registered with ``gem.register``.

Sources and commits read (snapshots fetched 2026-12-02):
  https://github.com/alibaba/ROLL   8eb27cc2dc34c4d1310b169d9b86d339004d811a (2026-08-19)
    roll/pipeline/agentic/env/__init__.py L1-19                 gem.register("<id>", entry_point="module:Class")
    roll/pipeline/agentic/env_manager/base_env_manager.py L9-20 RolloutCache
    roll/pipeline/agentic/env_manager/traj_env_manager.py
        L69-76   self.env = gem.make(env_id=env_config["env_type"], **env_config["config"])
        L145-217 reset(): observation, info = self.env.reset(seed=seed); step(): self.env.step(action=text)
        L307-320 formulate_rollouts: episode_score = sum(step rewards)
    roll/pipeline/agentic/env_manager/agent_native_env_manager.py
        L97-158  reset/step of the native (messages) manager: observation is a list of messages, info["tools"]
                 at reset, env.env_reset_failed read after reset, the action may be an EpisodeStopReason
    roll/pipeline/agentic/agentic_config.py L379-425  group_seed = random.randint(0, 2**31 - 1) per group
    roll/utils/constants.py L23-41  GenerateStopReason, EpisodeStopReason
  https://github.com/axon-rl/gem    4069f2f8d45f5047ac13221f7c90c8b19927d43a (2025-12-31)
    gem/core.py L26-104                    Env, EnvWrapper
    gem/envs/registration.py L28-81        EnvSpec, ENV_REGISTRY, register, make
    gem/utils/constants.py L15             TERMINAL_STATE
Substitution: gem.utils.seeding.set_seed(seed) -> random.seed(seed) (numpy/torch seeding dropped).
"""
import abc
import enum
import importlib
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, SupportsFloat, Tuple, TypeVar, Union

ObsType = TypeVar("ObsType")
ActType = TypeVar("ActType")

TERMINAL_STATE = "<｜TERMINAL_STATE｜>"


class Env(abc.ABC):
    @abc.abstractmethod
    def step(self, action: ActType) -> Tuple[ObsType, SupportsFloat, bool, bool, Dict[str, Any]]:
        """Returns observation, reward, terminated, truncated, info."""

    @abc.abstractmethod
    def reset(self, seed: Optional[int] = None) -> Tuple[ObsType, Dict[str, Any]]:
        """Returns observation, info. Subclasses call ``super().reset(seed)`` (or ``Env.reset(self, seed)``)."""
        if seed is not None:
            random.seed(seed)

    def sample_random_action(self) -> str:
        raise NotImplementedError

    @property
    def unwrapped(self) -> "Env":
        return self

    def spawn(self, same_state: bool = False, **kwargs) -> "Env":
        raise NotImplementedError


class EnvWrapper(Env):
    def __init__(self, env: Env):
        super().__init__()
        self.env = env
        for attr in dir(env):
            if not attr.startswith("_") and not hasattr(self, attr):
                setattr(self, attr, getattr(env, attr))

    @property
    def unwrapped(self) -> "Env":
        return self.env.unwrapped


@dataclass
class EnvSpec:
    """A specification for creating environments."""

    id: str
    entry_point: Union[Callable, str]
    kwargs: Dict[str, Any] = field(default_factory=dict)


ENV_REGISTRY: Dict[str, EnvSpec] = {}


def register(env_id: str, entry_point: Union[Callable, str], **kwargs: Any):
    """Register an environment with a given ID."""
    if env_id in ENV_REGISTRY:
        raise ValueError(f"Environment {env_id} already registered.")
    ENV_REGISTRY[env_id] = EnvSpec(id=env_id, entry_point=entry_point, kwargs=kwargs)


def make(env_id: str, **kwargs) -> Env:
    if env_id not in ENV_REGISTRY:
        raise ValueError(f"Environment {env_id} not found in registry.")
    env_spec = ENV_REGISTRY[env_id]
    if isinstance(env_spec.entry_point, str):
        module_path, class_name = env_spec.entry_point.split(":")
        try:
            module = importlib.import_module(module_path)
            env_class: Callable = getattr(module, class_name)
        except (ModuleNotFoundError, AttributeError) as e:
            raise ImportError(f"Could not import {module_path}.{class_name}. Error: {e}")
    else:
        env_class = env_spec.entry_point
    env = env_class(**{**env_spec.kwargs, **kwargs})
    env.env_id = env_id
    env.entry_point = env_spec.entry_point
    return env


class GenerateStopReason(enum.Enum):
    FINISH = enum.auto()
    ABORT = enum.auto()
    MAX_LENGTH = enum.auto()
    NO_SYSTEM_PROMPT = enum.auto()


class EpisodeStopReason(enum.Enum):
    FINISH = "finish"
    MAX_LENGTH = "max_length"
    MAX_STEPS = "max_steps"
    ABORT = "abort"
    ENV_RESET_FAILED = "env_reset_failed"
    SANDBOX_INIT_FAILED = "sandbox_init_failed"
    ENV_TIMEOUT = "env_timeout"
    LLM_GENERATE_FAILED = "llm_generate_failed"
    UNKNOWN = "unknown"
    NO_SYSTEM_PROMPT = "no_system_prompt"
    EVAL_GT = "eval_gt"


@dataclass
class RolloutCache:
    env_id: int
    group_id: int
    tag: str
    history: List[Dict] = field(default_factory=list)
    frames: List = field(default_factory=list)
    truncated: bool = False
    terminated: bool = False
    step: int = 0


# ---- the env-side bookkeeping of TrajEnvManager.reset/step/formulate_rollouts, for shim tests ----

def traj_env_manager_episode(
    env: Env, seed: int, policy: Callable[[RolloutCache], str], max_steps: int
) -> Tuple[RolloutCache, float]:
    """Drive ``env`` as TrajEnvManager does (traj_env_manager.py L176-216, L318-319), minus generation.

    ``policy(cache)`` returns the decoded response text for the current history. Returns the cache and
    ``episode_score`` (the sum of step rewards, which is what ROLL trains on).
    """
    cache = RolloutCache(env_id=0, group_id=0, tag="test")
    observation, info = env.reset(seed=seed)
    if observation is None:
        raise ValueError("reset returned no observation (ROLL ends the rollout loop)")
    cache.history.append({"observation": observation, "actions_left": max_steps - cache.step, "messages": None, **info})
    while not cache.terminated:
        response = policy(cache)
        observation, reward, terminated, truncated, info = env.step(action=response)
        suffix = info.pop("suffix", None)
        cache.step += 1
        cache.terminated = terminated
        cache.truncated = truncated
        if cache.step >= max_steps:
            cache.terminated = True
            if not terminated:
                cache.truncated = True
        cache.history[-1]["reward"] = reward
        cache.history[-1]["llm_response"] = response
        if info is not None:
            cache.history[-1].update(info)
        cache.history.append({"observation": observation, "actions_left": max_steps - cache.step, "messages": None})
        if suffix is not None:
            cache.history[-1]["suffix"] = suffix
    scores = [h["reward"] for h in cache.history if "reward" in h]
    return cache, sum(scores)
