"""verifiers / prime-rl: ``load_environment()`` returning a ``vf.MultiTurnEnv`` that plays harness-gym episodes.

Written against PrimeIntellect-ai/verifiers a60a606ecc4d (its ``verifiers.legacy`` v0 API, still what
``import verifiers as vf`` gives; docs/TRAINING.md, docs/training/verifiers.md). ``verifiers`` is imported
inside :func:`load_environment` only, so ``import harness_gym.adapters.verifiers`` works without it.

- Dataset rows are :func:`harness_gym.train.group_rows` rows in ``info["harness_gym"]``; the rollouts of
  one example share the row, hence seed, variant, locale and options, hence task and variant.
- ``setup_state`` resets the episode over the process's pooled connection and replaces ``state["prompt"]``
  with the episode's messages and ``state["tool_defs"]`` with its own (renamed) tools as ``vf.Tool``.
- ``env_response`` sends the assistant turn as a ``{message}`` action and returns the environment's added
  messages; when the episode ends it sets ``state["final_env_response"]`` (the built-in stop).
- The rubric's one reward function, ``harness_reward``, reads the final step's reward; the reward
  components are metrics of weight 0, and so is ``harness_failed``.
- Failures: a reset or step the server refuses, or a lost connection, raise :class:`HarnessGymEnvError`
  (a ``vf.Error``), which verifiers records in ``state["error"]`` and stops on (``has_error``); a server cap
  (``max_turns``) or the env's own ``max_turns`` set ``state["harness_failure"]`` and ``is_truncated``.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ..errors import HarnessGymError
from ..train.pool import shared_pool
from ..train.rows import group_rows, row_reset_item


def _get(obj: Any, key: str, default: Any = None) -> Any:
    """A field of a message or tool call, whether a dict or a pydantic model (verifiers' own types)."""
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def to_action_message(message: Any) -> Dict[str, Any]:
    """verifiers' assistant message (``ToolCall(id, name, arguments)``, or OpenAI's nested form) as an Action."""
    out: Dict[str, Any] = {"role": "assistant", "content": _get(message, "content")}
    reasoning = _get(message, "reasoning_content")
    if reasoning:
        out["reasoning_content"] = reasoning
    calls = []
    for call in _get(message, "tool_calls") or []:
        fn = _get(call, "function")
        name = _get(fn, "name") if fn is not None else _get(call, "name")
        arguments = _get(fn, "arguments") if fn is not None else _get(call, "arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append({"id": str(_get(call, "id")), "type": "function", "function": {"name": name, "arguments": arguments}})
    if calls:
        out["tool_calls"] = calls
    if not isinstance(out["content"], (str, type(None))):
        # A list of content parts: keep the text ones.
        out["content"] = "".join(str(_get(p, "text", "")) for p in out["content"])
    return out


def tool_defs(tools: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """OpenAI tool schemas as verifiers' provider-agnostic ``Tool`` fields (``name, description, parameters``)."""
    out = []
    for tool in tools:
        fn = tool.get("function", tool)
        out.append({"name": fn["name"], "description": fn.get("description", ""), "parameters": fn.get("parameters", {"type": "object", "properties": {}})})
    return out


def dataset_records(rows: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """One verifiers example per row: a placeholder prompt (``setup_state`` replaces it) and the row in ``info``."""
    return [
        {"prompt": [{"role": "user", "content": f"harness-gym episode {row['row_id']}"}], "answer": "", "info": {"harness_gym": dict(row)}}
        for row in rows
    ]


def _dataset(records: List[Dict[str, Any]]) -> Any:
    try:
        from datasets import Dataset  # verifiers depends on it; the stand-in tests run without it
    except ImportError:
        return records
    return Dataset.from_list(records)


def load_environment(
    url: Union[str, Sequence[str]] = "ws://127.0.0.1:8080/v1/env",
    variant: Union[str, Mapping[str, Any]] = "train",
    locale: Optional[str] = None,
    num_examples: int = 1024,
    seed: int = 0,
    eval_variant: Optional[Union[str, Mapping[str, Any]]] = "eval",
    num_eval_examples: int = 64,
    eval_seed: int = 1_000_000,
    rows: Optional[Sequence[Mapping[str, Any]]] = None,
    max_turns: int = 12,
    options: Optional[Mapping[str, Any]] = None,
    components: Optional[Sequence[str]] = None,
    pool_options: Optional[Mapping[str, Any]] = None,
    **env_kwargs: Any,
) -> Any:
    """A ``vf.MultiTurnEnv`` over a harness-gym server.

    ``rows`` (dataset rows, e.g. a curriculum's) override ``variant`` / ``locale`` / ``num_examples`` /
    ``seed``, which otherwise make ``group_rows(num_examples, seed=, variant=, locale=)``; the eval set is
    ``num_eval_examples`` rows of ``eval_variant`` from ``eval_seed`` (``eval_variant=None``: none).
    ``max_turns`` is both verifiers' turn cap and ``options.max_turns`` on the server. ``options`` are
    further reset options for every row. ``components``: the reward components to log as metrics
    (default: the server's default reward profile's modules, read from its ``welcome``).
    ``env_kwargs`` go to ``MultiTurnEnv`` (``timeout_seconds``, ``sampling_args``, ...).
    """
    import verifiers as vf

    urls = url if isinstance(url, str) else tuple(url)
    pool = shared_pool(urls, **dict(pool_options or {}))
    train_rows = list(rows) if rows is not None else group_rows(num_examples, seed=seed, variant=variant, locale=locale, group_size=1)
    eval_rows = group_rows(num_eval_examples, seed=eval_seed, variant=eval_variant, locale=locale, group_size=1) if eval_variant is not None and num_eval_examples > 0 else []
    extra_options = {**dict(options or {}), "max_turns": int(max_turns)}
    if components is None:
        welcome = pool.welcome()
        profile = welcome.get("defaults", {}).get("rewards")
        profiles = {p["name"]: p for p in welcome.get("reward_profiles", [])}
        chosen = profiles.get(profile) or next(iter(profiles.values()), {"modules": []})
        components = [m["name"] for m in chosen["modules"]]

    class HarnessGymEnvError(vf.Error):
        """A reset or step the server refused, or a lost connection: the rollout says nothing about the policy."""

    class HarnessGymMultiTurnEnv(vf.MultiTurnEnv):
        """Each rollout is one harness-gym episode of its example's row."""

        async def setup_state(self, state: Any) -> Any:
            row = state["info"]["harness_gym"]
            state["harness_failure"] = None
            state["harness_reward"] = 0.0
            state["reward_components"] = {}
            try:
                handle, result = await pool.reset(row_reset_item(row, extra_options))
            except (HarnessGymError, OSError) as exc:
                state["harness_failure"] = "transport"
                raise HarnessGymEnvError(f"harness-gym reset: {getattr(exc, 'code', None) or type(exc).__name__}") from exc
            if result.get("ok") is False:
                state["harness_failure"] = "server_error"
                raise HarnessGymEnvError(f"harness-gym reset: {result['error']['code']}")
            observation, info = result["observation"], result["info"]
            state["harness_handle"], state["harness_live"], state["harness_info"] = handle, True, info
            state["task_id"], state["variant_id"] = info.get("task_id"), info.get("variant_id")
            state["prompt"] = list(observation.get("messages", []))
            state["tool_defs"] = self._normalize_tool_defs(tool_defs(observation.get("tools", []))) or []
            return state

        async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
            action = to_action_message(messages[-1])
            try:
                result = await pool.step(state["harness_handle"], {"message": action})
            except (HarnessGymError, OSError) as exc:
                state["harness_live"], state["harness_failure"] = False, "transport"
                raise HarnessGymEnvError(f"harness-gym step: {getattr(exc, 'code', None) or type(exc).__name__}") from exc
            if result.get("ok") is False:
                state["harness_failure"] = "server_error"
                raise HarnessGymEnvError(f"harness-gym step: {result['error']['code']}")
            observation, info = result["observation"], result["info"]
            state["harness_info"] = info
            added: List[Dict[str, Any]] = list(observation.get("messages", []))
            if observation.get("tools") is not None:
                # Tools offered mid-episode (MCP discovery): every later model call gets the new list.
                state["tool_defs"] = self._normalize_tool_defs(tool_defs(observation["tools"])) or []
            if result["terminated"] or result["truncated"]:
                state["harness_live"] = False
                state["harness_reward"] = float(result["reward"])
                state["reward_components"] = dict(info.get("reward_components", {}))
                state["harness_outcome"] = info.get("outcome")
                state["harness_segments"] = dict(info.get("segments", {}))
                if result["truncated"] and info.get("outcome") == "max_turns":
                    state["harness_failure"] = "max_turns"
                    state["is_truncated"] = True
                state["final_env_response"] = added
            return added

        @vf.cleanup
        async def release_episode(self, state: Any) -> None:
            # verifiers' own max_turns (or a timeout) can stop a rollout the server still runs.
            if state.get("harness_live"):
                state["harness_live"] = False
                if state.get("harness_failure") is None:
                    state["harness_failure"] = "max_turns"
                    state["is_truncated"] = True
                await pool.release(state["harness_handle"])

    def harness_reward(state: Any) -> float:
        """The episode's final reward from the server (0.0 if it did not end there)."""
        return float(state.get("harness_reward") or 0.0)

    def harness_failed(state: Any) -> float:
        """1.0 when the rollout should be masked (transport or server error, a turn cap)."""
        return 1.0 if state.get("harness_failure") or state.get("error") is not None else 0.0

    def component_metric(name: str) -> Any:
        def metric(state: Any) -> float:
            return float((state.get("reward_components") or {}).get(name, 0.0))

        metric.__name__ = name
        metric.__doc__ = f"The {name} reward component of the episode (weight 0: logged, not trained on)."
        return metric

    rubric = vf.Rubric(funcs=[harness_reward], weights=[1.0])
    for name in components:
        rubric.add_metric(component_metric(name))
    rubric.add_metric(harness_failed)
    env = HarnessGymMultiTurnEnv(
        max_turns=int(max_turns),
        dataset=lambda: _dataset(dataset_records(train_rows)),
        eval_dataset=(lambda: _dataset(dataset_records(eval_rows))) if eval_rows else None,
        rubric=rubric,
        **env_kwargs,
    )
    env.harness_pool = pool
    env.HarnessGymEnvError = HarnessGymEnvError
    return env
