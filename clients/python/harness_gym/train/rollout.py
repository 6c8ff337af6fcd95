"""One multi-turn episode as a training sample: the loop every trainer shim runs.

:func:`rollout` resets an episode from a dataset row over an :class:`~harness_gym.train.pool.EnvPool`,
asks a generator for each assistant turn, accounts the ids with a
:class:`~harness_gym.train.tokens.TokenTrajectory`, steps the server with the decoded text, and returns a
:class:`Sample`: prompt and response ids, the loss mask (1 on exactly the generated ids), logprobs, the
final reward, its components and segments, the outcome, and ``failure`` when the sample says nothing
about the policy (an infrastructure failure or a cap) and a trainer should mask it.

The generator is any async callable ``generate(ids, max_new_tokens) -> Generation`` (or ``(ids,
logprobs)``, or a list of ids): a vLLM / SGLang server call in a framework, a scripted policy in tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import HarnessGymError
from .pool import EnvPool, EpisodeHandle
from .rows import row_reset_item
from .tokens import ChatTokenizer, TokenTrajectory


@dataclass
class Generation:
    """One assistant turn as the generator returns it: token ids, and their logprobs when known."""

    ids: List[int]
    logprobs: Optional[List[float]] = None


GenerateFn = Callable[[List[int], int], Awaitable[Union[Generation, Tuple[List[int], Optional[List[float]]], List[int]]]]

#: ``Sample.failure`` values. Transport and server failures say nothing about the policy; ``max_turns``
#: and ``response_budget`` are caps the trainer usually masks too (DAPO's overlong filtering).
FAILURES = ("transport", "server_error", "max_turns", "response_budget")

#: Item error codes that are the transport's, not the server's: a sharded pool's replica went down
#: (``REPLICA_DOWN``) or none was live (``NO_REPLICA``). Such samples get ``failure = "transport"``.
TRANSPORT_ITEM_CODES = frozenset({"REPLICA_DOWN", "NO_REPLICA"})


def _item_failure(item: Mapping[str, Any]) -> Tuple[str, str]:
    code = str(item["error"]["code"])
    return ("transport" if code in TRANSPORT_ITEM_CODES else "server_error"), code


@dataclass(frozen=True)
class RolloutConfig:
    """Caps of one rollout, set from the trainer's own limits.

    ``max_response_tokens``: the trainer's response length (every id after the prompt, the environment's
    included, as verl and OpenRLHF count it). ``max_new_tokens``: one turn's generation cap. ``max_turns``:
    the assistant turns allowed, sent as ``options.max_turns`` (the server takes the least of it, the
    variant's limit and ``limits.max_turns``); ``None`` derives it from the budget, one turn per
    ``min_turn_tokens`` of it. ``mask_truncated``: whether a sample cut by a cap gets a ``failure``.
    ``action``: ``"text"`` sends ``{text}`` (the server's parser reads it), ``"message"`` sends the
    message ``parse`` made.
    """

    max_response_tokens: int = 8192
    max_new_tokens: int = 1024
    max_turns: Optional[int] = None
    min_turn_tokens: int = 256
    mask_truncated: bool = True
    action: str = "text"

    def turn_cap(self) -> int:
        """The turn cap sent to the server: ``max_turns``, else what the response budget leaves room for."""
        if self.max_turns is not None:
            return max(1, self.max_turns)
        return max(1, self.max_response_tokens // max(1, self.min_turn_tokens))


@dataclass
class Sample:
    """One finished episode, ready for a trainer."""

    row: Dict[str, Any]
    prompt_ids: List[int]
    response_ids: List[int]
    #: 1 on exactly the ids the model generated, 0 on the environment's and the template's.
    loss_mask: List[int]
    #: The generator's logprob per response id (0.0 where the mask is 0); ``None`` if not given.
    logprobs: Optional[List[float]]
    #: The final step's reward (the composite in [0, 1]); 0.0 when the episode did not end on the server.
    reward: float
    reward_components: Dict[str, float] = field(default_factory=dict)
    reward_details: Dict[str, Any] = field(default_factory=dict)
    segments: Dict[str, Any] = field(default_factory=dict)
    #: ``accepted``, ``refused``, ``hook_blocked``, ``max_turns``, ``error_cap``; ``None`` if it never ended.
    outcome: Optional[str] = None
    task_id: Optional[str] = None
    variant_id: Optional[str] = None
    turns: int = 0
    terminated: bool = False
    truncated: bool = False
    #: ``None`` for a sample to learn from; else one of :data:`FAILURES` (mask it).
    failure: Optional[str] = None
    #: The error code or message behind a ``transport`` / ``server_error`` failure.
    error: Optional[str] = None
    #: Per step, the ``info.hook_violations`` and ``info.tool_errors`` the server reported.
    hook_violations: List[List[Dict[str, Any]]] = field(default_factory=list)
    tool_errors: List[List[Dict[str, Any]]] = field(default_factory=list)
    #: The conversation as the template saw it, and the tools.
    messages: List[Dict[str, Any]] = field(default_factory=list)
    tools: List[Dict[str, Any]] = field(default_factory=list)
    #: ``(start, end)`` of each turn's generated ids in ``response_ids``.
    turn_spans: List[Tuple[int, int]] = field(default_factory=list)

    @property
    def masked(self) -> bool:
        """Whether a trainer should leave this sample out of the loss (``failure`` is set)."""
        return self.failure is not None


def _as_generation(out: Any) -> Generation:
    if isinstance(out, Generation):
        return out
    if isinstance(out, tuple):
        ids, logprobs = out
        return Generation(list(ids), None if logprobs is None else list(logprobs))
    return Generation(list(out))


async def rollout(
    pool: EnvPool,
    row: Mapping[str, Any],
    tokenizer: ChatTokenizer,
    generate: GenerateFn,
    config: RolloutConfig = RolloutConfig(),
    *,
    extra_options: Optional[Mapping[str, Any]] = None,
    on_reset: Optional[Callable[[Dict[str, Any]], None]] = None,
    on_step: Optional[Callable[[Dict[str, Any]], None]] = None,
    **trajectory_options: Any,
) -> Sample:
    """Play one episode of ``row`` (see :func:`~harness_gym.train.rows.group_rows`) and return its sample.

    ``extra_options``: reset options added to the row's (the same for every sibling). ``on_reset`` and
    ``on_step`` are called with the reset's and each step's result item (to log ``info``, or for tests). ``trajectory_options`` go to
    :class:`TokenTrajectory` (``parse``, ``stop_token_ids``, ``template_kwargs``, ``tools_message``).
    Item errors and transport failures end the sample with ``failure`` set; they are never raised.
    """
    options = {"max_turns": config.turn_cap(), **(extra_options or {})}
    item = row_reset_item(row, options)
    try:
        handle, result = await pool.reset(item)
    except (HarnessGymError, OSError) as exc:
        return _failed(row, "transport", getattr(exc, "code", None) or type(exc).__name__)
    if result.get("ok") is False:
        return _failed(row, *_item_failure(result))
    if on_reset is not None:
        on_reset(result)
    observation, info = result["observation"], result["info"]
    traj = TokenTrajectory(tokenizer, observation.get("messages", []), observation.get("tools", []), **trajectory_options)
    sample = Sample(
        row=dict(row), prompt_ids=traj.prompt_ids, response_ids=[], loss_mask=[], logprobs=None, reward=0.0,
        task_id=info.get("task_id"), variant_id=info.get("variant_id"),
    )
    ended = False
    while True:
        room = config.max_response_tokens - len(traj.response_ids)
        if room <= 0:
            sample.failure = "response_budget" if config.mask_truncated else None
            sample.truncated = True
            break
        gen = _as_generation(await generate(traj.ids, min(config.max_new_tokens, room)))
        message = traj.add_generation(gen.ids, gen.logprobs)
        action = {"message": message} if config.action == "message" else {"text": str(message.get("content") or "")}
        try:
            step = await pool.step(handle, action)
        except (HarnessGymError, OSError) as exc:
            sample.failure, sample.error = "transport", getattr(exc, "code", None) or type(exc).__name__
            break
        if step.get("ok") is False:
            sample.failure, sample.error = _item_failure(step)
            await pool.release(handle)
            break
        if on_step is not None:
            on_step(step)
        info = step["info"]
        sample.hook_violations.append(list(info.get("hook_violations", [])))
        sample.tool_errors.append(list(info.get("tool_errors", [])))
        if step["terminated"] or step["truncated"]:
            ended = True
            sample.reward = float(step["reward"])
            sample.terminated, sample.truncated = bool(step["terminated"]), bool(step["truncated"])
            sample.outcome = info.get("outcome")
            sample.reward_components = dict(info.get("reward_components", {}))
            sample.reward_details = dict(info.get("reward_details", {}))
            sample.segments = dict(info.get("segments", {}))
            if sample.truncated and sample.outcome == "max_turns" and config.mask_truncated:
                sample.failure = "max_turns"
            break
        traj.add_environment(step["observation"].get("messages", []), step["observation"].get("tools"))
    if not ended and sample.failure == "response_budget":
        await pool.release(handle)
    if len(traj.response_ids) > config.max_response_tokens:
        traj.truncate(config.max_response_tokens)
    sample.response_ids, sample.loss_mask, sample.logprobs = traj.response_ids, traj.loss_mask, traj.logprobs
    sample.turns, sample.turn_spans = traj.turns, list(traj.turn_spans)
    sample.messages, sample.tools = traj.messages, traj.tools
    return sample


def _failed(row: Mapping[str, Any], failure: str, error: str) -> Sample:
    return Sample(row=dict(row), prompt_ids=[], response_ids=[], loss_mask=[], logprobs=None, reward=0.0, failure=failure, error=error)
