"""Stand-in for verifiers' (legacy v0) multi-turn environment interface (standard library only).

Source: https://github.com/PrimeIntellect-ai/verifiers
Commit read: a60a606ecc4d309247edf9ff92c3eabca362781f (2026-08-21, snapshot fetched 2026-12-02)
Note: at this commit MultiTurnEnv / Rubric / load_environment live in ``verifiers.legacy`` (aliased as
``verifiers`` / ``import verifiers as vf``); docs/overview.md calls v0 deprecated in favour of ``verifiers.v1``
(tasksets, harnesses, traces), which this stand-in does not cover.
Copied from:
  verifiers/legacy/decorators.py L10-69, L103-140       discover_decorated, stop, cleanup
  verifiers/legacy/types.py L186-190  Tool; L256-273 TrajectoryStepTokens; L300-322 TrajectoryStep,
                                      BaseRolloutInput, RolloutInput; L447-484 State (input forwarding);
                                      L873-877 RolloutScore
  verifiers/legacy/envs/environment.py L99-118 Environment.__init__ parameters; L478-486 get_model_response
                                      signature; L540-599 init_state (tool_defs from info["tool_defs"]);
                                      L640-665 _render_stop, is_completed (@final); L1340-1346 add_rubric
  verifiers/legacy/envs/multiturn_env.py L32-224        MultiTurnMonitorRubric, MultiTurnEnv (timing and the
                                      max_total_completion_tokens_reached stop dropped)
  verifiers/legacy/rubrics/rubric.py L25-76, L106-141, L184-218, L319-356  Rubric
  verifiers/legacy/rubrics/rubric_group.py L19-24, L77-99                   RubricGroup
  verifiers/legacy/utils/env_utils.py L13-70            load_environment, env_module_name
Substitutions: pydantic message/Tool models -> plain dicts / a dataclass; timing, usage tracking, clients,
datasets and the error chain dropped; ``get_model_response`` is the seam a test fills (the original calls a
vf.Client); ``maybe_normalize_messages`` is the identity on a list of dicts.
"""
import asyncio
import importlib
import inspect
import uuid
from abc import abstractmethod
from copy import deepcopy
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, TypedDict, get_origin

try:  # Python 3.11+
    from typing import NotRequired  # noqa: F401
except ImportError:  # pragma: no cover
    NotRequired = Optional  # type: ignore

Messages = List[Dict[str, Any]]
SamplingArgs = Dict[str, Any]
Info = Dict[str, Any]
RewardFunc = Callable[..., Any]


class Error(Exception):
    """vf.Error: errors a rollout records in state["error"] instead of raising."""


class OverlongPromptError(Error):
    pass


# ---- decorators ----

def discover_decorated(obj: Any, attr: str) -> list:
    methods = [
        method
        for _, method in inspect.getmembers(obj, predicate=inspect.ismethod)
        if hasattr(method, attr) and callable(method)
    ]
    priority_attr = f"{attr}_priority"
    methods.sort(key=lambda m: (-getattr(m, priority_attr, 0), m.__name__))
    return methods


def stop(func=None, priority: int = 0):
    """Mark a method as a stop condition (takes a State, returns bool); is_completed checks them all."""

    def decorator(f):
        setattr(f, "stop", True)
        setattr(f, "stop_priority", priority)
        return f

    return decorator if func is None else decorator(func)


def cleanup(func=None, priority: int = 0, stage: str = "rollout"):
    def decorator(f):
        setattr(f, "cleanup", True)
        setattr(f, "cleanup_priority", priority)
        setattr(f, "cleanup_stage", stage)
        return f

    return decorator if func is None else decorator(func)


# ---- types ----

@dataclass
class Tool:
    name: str
    description: str
    parameters: Dict[str, object]
    strict: Optional[bool] = None


class TrajectoryStepTokens(TypedDict):
    prompt_ids: List[int]
    prompt_mask: List[int]
    completion_ids: List[int]
    completion_mask: List[int]
    completion_logprobs: List[float]
    overlong_prompt: bool
    is_truncated: bool
    routed_experts: Any


class TrajectoryStep(TypedDict):
    prompt: Messages
    completion: Messages
    response: Any
    tokens: Optional[TrajectoryStepTokens]
    reward: Optional[float]
    advantage: Optional[float]
    is_truncated: bool
    trajectory_id: str
    extras: Dict[str, Any]


class BaseRolloutInput(TypedDict):
    prompt: Messages
    example_id: int


class RolloutInput(BaseRolloutInput, total=False):
    answer: str
    info: Any  # Info | str


class RolloutScore(TypedDict):
    reward: float
    metrics: Dict[str, float]


class State(dict):
    INPUT_FIELDS = ["prompt", "answer", "info", "example_id"]
    INTERNAL_KEYS = {"is_completed", "stop_condition", "is_truncated", "error"}

    def __getitem__(self, key: str) -> Any:
        if key in self.INPUT_FIELDS and "input" in self:
            input_obj = super().__getitem__("input")
            if key in input_obj:
                return input_obj[key]
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self.INPUT_FIELDS and "input" in self:
            input_obj = super().__getitem__("input")
            if key in input_obj:
                input_obj[key] = value
                return
        super().__setitem__(key, value)


def concat_messages(parts: List[Messages]) -> Messages:
    out: Messages = []
    for part in parts:
        out.extend(part)
    return out


def maybe_normalize_messages(messages, field_name: str = "") -> Messages:
    if not isinstance(messages, list):
        raise TypeError(f"{field_name}: expected a list of messages")
    return messages


async def maybe_await(func, *args, **kwargs):
    result = func(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


async def maybe_call_with_named_args(func, **kwargs):
    params = inspect.signature(func).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return await maybe_await(func, **kwargs)
    return await maybe_await(func, **{k: v for k, v in kwargs.items() if k in params})


# ---- rubrics ----

class Parser:
    """vf.Parser (only its presence matters to Rubric's class_objects)."""


class Rubric:
    """Each reward function takes any of prompt, completion, answer, state, info, task, parser, **kwargs and
    returns a float; score_rollout sets state["reward"] (weighted sum) and state["metrics"] (name -> value)."""

    def __init__(self, funcs: Optional[List[RewardFunc]] = None, weights: Optional[List[float]] = None, parser: Optional[Parser] = None):
        self.funcs = funcs or []
        self.weights = weights or []
        if not self.weights:
            self.weights = [1.0] * len(self.funcs)
        elif len(self.weights) != len(self.funcs):
            raise ValueError(
                f"Number of weights ({len(self.weights)}) must match number of functions ({len(self.funcs)})"
            )
        self.parser = parser or Parser()
        self.class_objects = {}
        if self.parser:
            self.class_objects["parser"] = self.parser

    def add_reward_func(self, func: RewardFunc, weight: float = 1.0):
        self.funcs.append(func)
        self.weights.append(weight)

    def add_metric(self, func: RewardFunc, weight: float = 0.0):
        self.funcs.append(func)
        self.weights.append(weight)

    def _is_group_func(self, func: RewardFunc) -> bool:
        sig = inspect.signature(func)
        param_names = set(sig.parameters.keys())
        group_indicators = {"states", "prompts", "completions", "answers", "tasks", "infos"}
        return_annotation = sig.return_annotation
        returns_list = return_annotation is list or get_origin(return_annotation) is list
        return bool(param_names & group_indicators) or returns_list

    def score_objects(self, state: State) -> Dict[str, Any]:
        return {
            "prompt": state["prompt"],
            "completion": state["completion"],
            "answer": state.get("answer", ""),
            "state": state,
            "info": state.get("info", {}),
            **self.class_objects,
            "task": None,
        }

    async def _call_individual_reward_func(self, func: RewardFunc, state: State) -> float:
        sig = inspect.signature(func)
        merged = self.score_objects(state)
        if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
            kwargs = merged
        else:
            kwargs = {k: v for k, v in merged.items() if k in sig.parameters}
        try:
            return float(await maybe_await(func, **kwargs))
        except Exception:
            return 0.0  # the original logs the error and scores 0.0

    async def score_rollout(self, state: State):
        reward_funcs = [func for func in self.funcs if not self._is_group_func(func)]
        group_reward_funcs = [func for func in self.funcs if self._is_group_func(func)]
        assert len(reward_funcs) > 0 and len(group_reward_funcs) == 0, (
            "Rubric.score_rollout requires at least one individual-level reward function and no group-level reward functions"
        )
        reward_scores = [await self._call_individual_reward_func(func=func, state=state) for func in reward_funcs]
        weights = [w for f, w in zip(self.funcs, self.weights) if not self._is_group_func(f)]
        rewards = RolloutScore(
            metrics={func.__name__: reward for func, reward in zip(reward_funcs, reward_scores)},
            reward=sum(r * w for r, w in zip(reward_scores, weights)),
        )
        state["reward"] = rewards["reward"]
        state["metrics"] = rewards["metrics"]

    async def cleanup(self, state: State):
        return None


class RubricGroup(Rubric):
    def __init__(self, rubrics: List[Rubric], **kwargs):
        if not rubrics:
            raise ValueError("RubricGroup must have at least one rubric")
        super().__init__(**kwargs)
        self.rubrics = rubrics

    async def score_rollout(self, state: State):
        total_reward = 0.0
        aggregated_metrics: Dict[str, float] = {}
        original_reward = state.get("reward", 0.0)
        original_metrics = state.get("metrics", {}).copy() if state.get("metrics") else {}
        for rubric in self.rubrics:
            await rubric.score_rollout(state)
            total_reward += state.get("reward", 0.0)
            for key, value in (state.get("metrics") or {}).items():
                aggregated_metrics[key] = aggregated_metrics.get(key, 0.0) + value
            state["reward"] = original_reward
            state["metrics"] = original_metrics.copy()
        state["reward"] = total_reward
        state["metrics"] = aggregated_metrics


# ---- environments ----

class Environment:
    def __init__(
        self,
        dataset=None,
        eval_dataset=None,
        system_prompt: Optional[str] = None,
        few_shot: Optional[Messages] = None,
        parser: Optional[Parser] = None,
        rubric: Optional[Rubric] = None,
        sampling_args: Optional[SamplingArgs] = None,
        message_type: Any = None,
        tool_defs: Optional[List[Tool]] = None,
        max_workers: int = 512,
        env_id: Optional[str] = None,
        env_args: Optional[dict] = None,
        map_kwargs: dict = {},
        max_seq_len: Optional[int] = None,
        score_rollouts: bool = True,
        pass_threshold: float = 0.5,
        **kwargs,
    ):
        if "oai_tools" in kwargs:
            raise ValueError("`oai_tools` is no longer supported. Use `tool_defs`.")
        self.dataset = dataset
        self.eval_dataset = eval_dataset
        self.tool_defs = self._normalize_tool_defs(tool_defs)
        self.system_prompt = system_prompt
        self.few_shot = few_shot
        self.parser = parser or Parser()
        self.rubric = rubric or Rubric()
        self.sampling_args = sampling_args
        self.env_id = env_id or ""
        self.env_args = env_args or {}
        self.max_seq_len = max_seq_len
        self.map_kwargs = map_kwargs
        self.score_rollouts = score_rollouts
        self.pass_threshold = pass_threshold
        self._stop_conditions = discover_decorated(self, "stop")
        self._cleanup_handlers = discover_decorated(self, "cleanup")

    def _normalize_tool_defs(self, tool_defs):
        if tool_defs is None:
            return None
        return [t if isinstance(t, Tool) else Tool(**t) for t in tool_defs]

    def add_rubric(self, rubric: Rubric) -> None:
        if self.rubric is None:
            self.rubric = rubric
        elif isinstance(self.rubric, RubricGroup):
            self.rubric.rubrics.append(rubric)
        else:
            self.rubric = RubricGroup(rubrics=[self.rubric, rubric])

    async def get_model_response(
        self,
        state: State,
        prompt: Messages,
        client=None,
        model: Optional[str] = None,
        tool_defs: Optional[List[Tool]] = None,
        sampling_args: Optional[SamplingArgs] = None,
    ):
        """The original resolves tool_defs = state.get("tool_defs") when not given and calls the vf.Client;
        the stand-in calls ``state["client"](state=..., prompt=..., tool_defs=...)``, a test's fake returning
        an object with ``.message`` (role/content/tool_calls/is_truncated/tokens)."""
        if tool_defs is None:
            tool_defs = state.get("tool_defs")
        return await maybe_await(state["client"], state=state, prompt=prompt, tool_defs=tool_defs)

    async def init_state(self, input: RolloutInput, client, model: str, sampling_args: Optional[SamplingArgs] = None) -> State:
        state_input = deepcopy(input)
        state = State(input=state_input)
        state["prompt"] = state_input.get("prompt")
        state["client"] = client
        state["model"] = model
        state["sampling_args"] = sampling_args
        state["is_completed"] = False
        state["is_truncated"] = False
        info = state.get("info")
        if isinstance(info, dict) and "tool_defs" in info:
            resolved = info["tool_defs"]
        elif self.tool_defs is not None:
            resolved = self.tool_defs
        else:
            resolved = []
        state["tool_defs"] = self._normalize_tool_defs(resolved) or []
        state["trajectory"] = []
        state["completion"] = None
        state["trajectory_id"] = uuid.uuid4().hex
        state["reward"] = None
        state["metrics"] = None
        state["error"] = None
        state["final_env_response"] = None
        return state

    async def _render_stop(self, state: State, condition, **kwargs) -> bool:
        if await maybe_call_with_named_args(condition, state=state, env=self, **kwargs):
            state["is_completed"] = True
            state["is_truncated"] = state.get("is_truncated", False) or any(
                step.get("is_truncated", False) for step in state.get("trajectory", [])
            )
            state["stop_condition"] = condition.__name__
            return True
        return False

    async def is_completed(self, state: State, **kwargs) -> bool:  # @final in the original: add @stop methods instead
        for condition in self._stop_conditions:
            if await self._render_stop(state, condition, **kwargs):
                return True
        return False

    async def cleanup(self, state: State) -> None:
        for handler in self._cleanup_handlers:
            await maybe_call_with_named_args(handler, state=state)

    async def run_rollout(self, input: RolloutInput, client, model: str, sampling_args=None) -> State:
        """_run_rollout_state (environment.py L667-689): rollout, then rubric.score_rollout."""
        state = await self.rollout(input, client, model, sampling_args)
        if self.score_rollouts:
            await self.rubric.score_rollout(state)
        return state


class MultiTurnMonitorRubric(Rubric):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_metric(self.num_turns)

    async def num_turns(self, state: State) -> int:
        return len(state["trajectory"])


class MultiTurnEnv(Environment):
    def __init__(self, max_turns: int = -1, timeout_seconds: Optional[float] = None, **kwargs):
        super().__init__(**kwargs)
        self.max_turns = max_turns
        self.timeout_seconds = timeout_seconds
        self.max_total_completion_tokens: int = -1
        self.add_rubric(MultiTurnMonitorRubric())

    @abstractmethod
    async def env_response(self, messages: Messages, state: State, **kwargs) -> Messages:
        """Generate a response from the environment."""

    @stop(priority=100)
    async def has_error(self, state: State, **kwargs) -> bool:
        return state.get("error") is not None

    @stop
    async def prompt_too_long(self, state: State) -> bool:
        return state.get("prompt_too_long", False)

    @stop
    async def max_turns_reached(self, state: State) -> bool:
        return len(state["trajectory"]) >= self.max_turns and self.max_turns > 0

    @stop
    async def has_final_env_response(self, state: State) -> bool:
        """Check if env_response signaled termination via final_env_response."""
        return state.get("final_env_response") is not None

    async def setup_state(self, state: State) -> Optional[State]:
        """Override to add environment-specific state fields. Mutate state in place."""
        return state

    async def get_prompt_messages(self, state: State) -> Messages:
        if len(state["trajectory"]) == 0:
            return state["prompt"]
        prev_turn_prompt = state["trajectory"][-1]["prompt"]
        prev_turn_completion = state["trajectory"][-1]["completion"]
        messages = concat_messages([prev_turn_prompt, prev_turn_completion])
        env_response = await self.env_response(messages, state)
        env_response = maybe_normalize_messages(env_response, field_name="env_response")
        return concat_messages([messages, env_response])

    async def render_completion(self, state: State):
        if len(state["trajectory"]) == 0:
            state["completion"] = []
            return
        last_prompt = state["trajectory"][-1]["prompt"]
        last_completion = state["trajectory"][-1]["completion"]
        full_conversation = concat_messages([last_prompt, last_completion])
        if state.get("final_env_response"):
            final_resp = maybe_normalize_messages(state["final_env_response"], field_name="final_env_response")
            full_conversation = concat_messages([full_conversation, final_resp])
        state["completion"] = full_conversation[len(state["prompt"]):]

    @cleanup(priority=100)
    async def render_state(self, state: State) -> None:
        await self.render_completion(state)

    async def add_trajectory_step(self, state: State, trajectory_step: TrajectoryStep):
        """Override to set intermediate rewards, advantages, or extra metadata."""
        state["trajectory"].append(trajectory_step)

    async def add_model_response(self, state: State, prompt_messages: Messages, response):
        message = response.message
        completion_messages = [{k: v for k, v in vars(message).items() if k in ("role", "content", "tool_calls")}]
        tokens = getattr(message, "tokens", None)
        is_truncated = bool(getattr(message, "is_truncated", False))
        trajectory_step = TrajectoryStep(
            prompt=prompt_messages,
            completion=completion_messages,
            response=response,
            tokens=tokens,
            reward=None,
            advantage=None,
            is_truncated=is_truncated,
            trajectory_id=state["trajectory_id"],
            extras={},
        )
        await self.add_trajectory_step(state, trajectory_step)

    async def rollout(self, input: RolloutInput, client, model: str, sampling_args: Optional[SamplingArgs] = None) -> State:
        state = await self.init_state(input, client, model, sampling_args)

        async def rollout_loop() -> None:
            nonlocal state
            try:
                setup_state = await self.setup_state(state)
                if setup_state is not None:
                    state = setup_state
            except Error as e:
                state["error"] = e
            while not await self.is_completed(state):
                try:
                    prompt_messages = await self.get_prompt_messages(state)
                    prompt_messages = maybe_normalize_messages(prompt_messages, field_name="prompt_messages")
                    if state.get("final_env_response") is not None:
                        continue
                    response = await self.get_model_response(state, prompt_messages)
                    await self.add_model_response(state, prompt_messages, response)
                except Error as e:
                    if isinstance(e, OverlongPromptError):
                        state["prompt_too_long"] = True
                        state["is_truncated"] = True
                    else:
                        state["error"] = e

        try:
            await asyncio.wait_for(rollout_loop(), timeout=self.timeout_seconds)
        except asyncio.TimeoutError:
            state["timed_out"] = True
            state["is_completed"] = True
            state["stop_condition"] = "timeout_reached"
        finally:
            await self.cleanup(state)
        return state


def env_module_name(env_id: str) -> str:
    return env_id.replace("-", "_").split("/")[-1]


def load_environment(env_id: str, **env_args) -> Environment:
    """Import the module named after env_id and call its ``load_environment(**env_args)``."""
    module = importlib.import_module(env_module_name(env_id))
    env_load_func = getattr(module, "load_environment", None)
    if env_load_func is None:
        raise AttributeError(f"Module '{module.__name__}' does not expose load_environment.")
    env_instance = env_load_func(**env_args)
    env_instance.env_id = env_instance.env_id or env_id
    env_instance.env_args = env_instance.env_args or env_args
    return env_instance
