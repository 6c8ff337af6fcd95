"""verifiers v1 / prime-rl: a ``vf.Taskset`` of harness-gym episodes and the ``vf.Env`` that plays them.

Written against PrimeIntellect-ai/verifiers a60a606ecc4d309247edf9ff92c3eabca362781f's ``verifiers.v1``
API (vendored: clients/python/tests/vendor/verifiers/VENDOR.json), in the shape of its ``openenv`` taskset
(``verifiers/v1/tasksets/openenv/taskset.py``): the taskset yields one task per harness-gym row, and the
env's ``run()`` plays the user, stepping the harness-gym server host-side. prime-rl
(PrimeIntellect-ai/prime-rl 559b44772e471d1538537b8805cc77f3824a5e64) loads only v1 tasksets since
03f12efb ("drop v0 env compat"); the v0 ``MultiTurnEnv`` shim this module used to hold is gone.

- **Tasks.** :class:`HarnessGymTaskset` yields :class:`HarnessGymTask`\\ s whose data carries a
  :func:`harness_gym.train.group_rows` row (seed, variant, locale, options): prime-rl's rollouts of one
  task share the row, hence task and variant. ``prompt`` is ``None``: the env opens the conversation.
- **Turns.** :class:`HarnessGymEnv.run` resets the episode over the process's pooled connection, opens the
  player's interaction with the episode's messages, the episode's own (renamed) tools written into the
  system turn in Qwen's ``# Tools`` layout. Each reply goes to the server: as ``{message}`` with its tool
  calls when the inference server parsed them, else as ``{text}`` (the server parses Hermes / Qwen3 XML
  tool calls). The environment's added messages come back as one user turn (tool results as
  ``<tool_response>`` blocks).
- **Reward.** When the episode ends, the trace gets the server's final reward as ``harness_reward``
  (weight 1), each reward component as a metric, and the server's outcome in ``trace.info["harness_gym"]``.
- **Failures are excluded, never scored 0.** A reset or step the server refuses, a lost connection, the
  server's turn cap (``outcome: max_turns``), or the agent's own limits ending the exchange while the
  episode still runs: ``run()`` records the error on the trace (``trace.record_error``: ``ok`` false) and
  raises, so verifiers marks the episode failed (``Env.run_episode``), prime-rl marks its traces failed
  (``orchestrator/envs.py``) and ``iter_trainable_traces`` (``orchestrator/algo/base.py``) leaves them
  out of the group baseline and the batch. ``train_on_capped=True`` trains server-capped episodes on the
  server's own reward instead (their trace stopped as ``max_turns``, so ``is_truncated``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import Field

import verifiers.v1 as vf

from ..errors import HarnessGymError
from ..train.pool import shared_pool
from ..train.rows import group_rows, row_reset_item
from ..train.tokens import messages_text, tools_instruction

__all__ = ["HarnessGymConfig", "HarnessGymData", "HarnessGymEnv", "HarnessGymEnvConfig", "HarnessGymTask", "HarnessGymTaskset"]

DEFAULT_URL = "ws://127.0.0.1:8080/v1/env"


class HarnessGymConfig(vf.TasksetConfig):
    """``[orchestrator.train.source.env.taskset]`` in prime-rl (``--env.taskset.*`` in ``vf eval``)."""

    url: str | list[str] = DEFAULT_URL
    """One harness-gym server URL, or a list (episodes sharded by seed)."""
    variant: str | dict[str, Any] = "train"
    """A variant preset name (``train``, ``eval``, ``identity``) or a VariantSpec map."""
    locale: str | None = None
    num_examples: int = 1024
    """Rows ``seed .. seed + num_examples - 1``."""
    seed: int = 0
    rows: list[dict[str, Any]] | None = None
    """Your own ``group_rows`` rows (e.g. a curriculum); replace variant/locale/num_examples/seed."""
    max_turns: int = 12
    """Sent as the server's ``options.max_turns``; keep the player's ``max_turns`` at least this."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Further reset options for every row."""
    components: list[str] | None = None
    """The reward components recorded as metrics (default: every one the server reports)."""
    train_on_capped: bool = False
    """Train server-capped episodes (``outcome: max_turns``) on the server's reward instead of excluding them."""
    pool_options: dict[str, Any] = Field(default_factory=dict)
    """:class:`harness_gym.train.EnvPool` keywords (e.g. ``token``); kept off the task data (traced)."""


class HarnessGymData(vf.TaskData):
    row: dict[str, Any]
    """The ``group_rows`` row: seed, variant, locale, task selector, options."""
    url: str | list[str]
    reset_options: dict[str, Any]
    """Options merged under the row's own (``max_turns`` and ``options``); the same for every sibling."""
    components: list[str] | None = None
    train_on_capped: bool = False


class HarnessGymTask(vf.Task[HarnessGymData]):
    pass


class HarnessGymTaskset(vf.Taskset[HarnessGymTask, HarnessGymConfig]):
    def load(self) -> Iterator[HarnessGymTask]:
        config = self.config
        rows = list(config.rows) if config.rows is not None else group_rows(config.num_examples, seed=config.seed, variant=config.variant, locale=config.locale, group_size=1)
        reset_options = {**dict(config.options), "max_turns": int(config.max_turns)}
        for idx, row in enumerate(rows):
            yield HarnessGymTask(
                HarnessGymData(
                    idx=idx,
                    name=f"harness-gym#{row.get('row_id', idx)}",
                    prompt=None,
                    row=dict(row),
                    url=config.url,
                    reset_options=reset_options,
                    components=config.components,
                    train_on_capped=config.train_on_capped,
                ),
                config.task,
            )


class HarnessGymEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


class HarnessGymFailure(Exception):
    """The episode says nothing about the policy: a refused reset or step, a lost connection, a cap."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"harness-gym {kind}: {message}")
        self.kind = kind


def opening_messages(observation: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The reset observation's messages, the tools appended to the system message (one is added if none)."""
    messages = [dict(m) for m in observation.get("messages", [])]
    tools = observation.get("tools") or []
    if tools:
        block = tools_instruction(tools)
        if messages and messages[0].get("role") == "system":
            messages[0]["content"] = f"{messages[0].get('content') or ''}\n\n{block}"
        else:
            messages.insert(0, {"role": "system", "content": block})
    return messages


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def reply_action(messages: Sequence[Any]) -> dict[str, Any]:
    """A segment's final assistant message as a harness-gym action.

    ``vf.AssistantMessage(content, reasoning_content, tool_calls=[vf.ToolCall(id, name, arguments)])``:
    with tool calls (the inference server parsed them) a ``{message}`` action; otherwise ``{text}``, which
    the server parses for Hermes / Qwen3 XML tool calls.
    """
    last = next((m for m in reversed(list(messages)) if _get(m, "role") == "assistant"), None)
    if last is None:
        return {"text": ""}
    content = _get(last, "content")
    if not isinstance(content, (str, type(None))):
        content = "".join(str(_get(p, "text", "")) for p in content)
    calls = _get(last, "tool_calls") or []
    if not calls:
        return {"text": content or ""}
    message: dict[str, Any] = {"role": "assistant", "content": content}
    reasoning = _get(last, "reasoning_content")
    if reasoning:
        message["reasoning_content"] = reasoning
    message["tool_calls"] = [
        {"id": str(_get(c, "id")), "type": "function", "function": {"name": _get(c, "name"), "arguments": _get(c, "arguments") if isinstance(_get(c, "arguments"), str) else json.dumps(_get(c, "arguments"), ensure_ascii=False)}}
        for c in calls
    ]
    return {"message": message}


class HarnessGymEnv(vf.Env[HarnessGymEnvConfig]):
    """One harness-gym episode per rollout; the env plays the user (see the module docstring)."""

    def _pool(self, data: HarnessGymData) -> Any:
        taskset = getattr(self, "taskset", None)
        options = dict(getattr(getattr(taskset, "config", None), "pool_options", None) or {})
        urls = data.url if isinstance(data.url, str) else tuple(data.url)
        return shared_pool(urls, **options)

    async def run(self, task: HarnessGymTask, agents: Any) -> None:
        data = task.data
        pool = self._pool(data)
        failure: HarnessGymFailure | None = None
        final: dict[str, Any] | None = None
        try:
            handle, result = await pool.reset(row_reset_item(data.row, data.reset_options))
        except (HarnessGymError, OSError) as exc:
            raise HarnessGymFailure("transport", f"reset: {getattr(exc, 'code', None) or type(exc).__name__}") from exc
        if result.get("ok") is False:
            raise HarnessGymFailure("server_error", f"reset: {result['error']['code']}")
        live = True
        info = result["info"]
        async with agents.player.interaction(task) as interaction:
            trace = interaction.trace
            trace.info["harness_gym"] = {"task_id": info.get("task_id"), "variant_id": info.get("variant_id")}
            try:
                segment = await interaction.turn(opening_messages(result["observation"]))
                while True:
                    if segment.terminated:
                        # The agent's own limits (max_turns, tokens, context) ended a live episode.
                        failure = HarnessGymFailure("unfinished", f"the exchange ended ({trace.stop_condition}) before the episode")
                        break
                    try:
                        step = await pool.step(handle, reply_action(segment.messages))
                    except (HarnessGymError, OSError) as exc:
                        live = False
                        failure = HarnessGymFailure("transport", f"step: {getattr(exc, 'code', None) or type(exc).__name__}")
                        break
                    if step.get("ok") is False:
                        failure = HarnessGymFailure("server_error", f"step: {step['error']['code']}")
                        break
                    if step["terminated"] or step["truncated"]:
                        live, final = False, step
                        if step["truncated"] and step["info"].get("outcome") == "max_turns":
                            trace.stop("max_turns")
                            if not data.train_on_capped:
                                failure = HarnessGymFailure("max_turns", "the server's turn cap ended the episode")
                        break
                    segment = await interaction.turn(messages_text(step["observation"].get("messages", [])))
            finally:
                if live:
                    await pool.release(handle)
        if final is not None:
            end_info = final["info"]
            components = dict(end_info.get("reward_components") or {})
            if data.components is not None:
                components = {k: components.get(k, 0.0) for k in data.components}
            trace.info["harness_gym"].update(
                outcome=end_info.get("outcome"),
                segments=dict(end_info.get("segments") or {}),
                reward_details=end_info.get("reward_details"),
                failure=failure.kind if failure is not None else None,
            )
            if failure is None:
                trace.record_reward("harness_reward", float(final["reward"]))
                trace.record_metrics({k: float(v) for k, v in components.items()})
        if failure is not None:
            trace.info["harness_gym"]["failure"] = failure.kind
            trace.record_error(failure)
            raise failure
