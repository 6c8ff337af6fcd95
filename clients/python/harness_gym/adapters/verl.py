"""verl: an agent loop that plays one harness-gym episode per sample, token-exact.

Written against verl commit ``b178a3cd56f58b2d502255daba591e92833930a7``
(``verl/experimental/agent_loop/agent_loop.py``; the stand-in is ``clients/python/tests/stand_ins/verl.py``).
verl is imported lazily: ``import harness_gym.adapters.verl`` works without it, and the class
:data:`HarnessGymAgentLoop` is built (and registered as ``"harness_gym"``) on first access, e.g. by the
worker's ``hydra.utils.instantiate({"_target_": "harness_gym.adapters.verl.HarnessGymAgentLoop"})``.

One instance per sample, as verl makes them. ``run(sampling_params, **row)``:

- reads the harness-gym row from ``extra_info["harness_gym_row"]`` (a JSON string, see
  ``clients/python/examples/verl/make_dataset.py``; a dict is accepted too). The ``rollout.n`` siblings of
  a row share it, hence seed, variant, locale and options, hence task and variant, in any worker;
- resets over the process-wide pooled connection (:func:`~harness_gym.train.shared_pool`);
- renders the reset messages and the episode's own tools once (:class:`~harness_gym.train.TokenTrajectory`),
  generates each turn with ``server_manager.generate`` (token in, token out, logprobs kept), tokenizes
  only the environment's added messages (mask 0), and steps the server with the decoded text;
- returns an ``AgentLoopOutput``: ``response_ids`` / ``response_mask`` / ``response_logprobs`` cut to
  ``rollout.response_length``, ``reward_score`` = the final step's reward, ``num_turns``, ``metrics``, and
  ``extra_fields``: ``reward_extra_info`` (the same numeric keys for every sample, :data:`EXTRA_INFO_KEYS`
  plus one per reward component) and ``harness_gym_*`` strings (task, variant, outcome, failure).

A failed sample (transport error, server error, a cap, a prompt longer than ``rollout.prompt_length``) gets
``response_mask`` all 0, ``reward_score`` 0.0 and ``reward_extra_info["harness_gym_failed"] = 1``.

Settings, as keyword arguments (extra keys of the agent-loop YAML entry) or environment variables:
``server_urls`` (list or comma-separated; ``HARNESS_GYM_URL``), ``pool_connections``, ``token``
(``HARNESS_GYM_TOKEN``), ``max_turns`` (default: ``multi_turn.max_assistant_turns``, else derived from the
response length), ``max_new_tokens`` (one turn's cap, default 1024), ``min_turn_tokens`` (256),
``mask_truncated`` (True), ``reset_options`` (dict added to every row's options), ``reward_components``
(the component names, default :data:`DEFAULT_COMPONENTS`), ``on_result`` (a callable or ``"module:attr"``
called with every reset and step result item: logging, tests).
"""

from __future__ import annotations

import importlib
import json
import os
import time
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ..train import Generation, RolloutConfig, Sample, rollout, shared_pool

#: The name the loop is registered under (the dataset's ``agent_name`` / ``rollout.agent.default_agent_loop``).
AGENT_NAME = "harness_gym"

#: The default reward profile's components (docs/REWARDS.md); each is a ``reward_extra_info`` key.
DEFAULT_COMPONENTS = ("accuracy", "effectiveness", "hook_compliance", "tool_rationality", "skill_selection")

#: ``reward_extra_info`` keys every sample carries besides the components (verl reads sample 0's keys).
EXTRA_INFO_KEYS = ("harness_gym_reward", "harness_gym_failed", "harness_gym_turns", "harness_gym_terminated", "harness_gym_truncated")

#: ``extra_fields`` string keys every sample carries (per-sample arrays in verl's ``non_tensor_batch``).
STRING_FIELDS = ("harness_gym_task_id", "harness_gym_variant_id", "harness_gym_outcome", "harness_gym_failure", "harness_gym_row_id")


def _get(config: Any, path: str, default: Any = None) -> Any:
    """``a.b.c`` from a DictConfig or nested dicts; ``default`` when any part is missing or None."""
    node = config
    for part in path.split("."):
        if node is None:
            return default
        if isinstance(node, Mapping) or hasattr(node, "get"):
            try:
                node = node.get(part)
                continue
            except Exception:
                pass
        node = getattr(node, part, None)
    return default if node is None else node


def _urls(value: Any) -> List[str]:
    raw = value if value is not None else os.environ.get("HARNESS_GYM_URL")
    if not raw:
        raise RuntimeError("harness_gym agent loop: set server_urls in the agent-loop config or HARNESS_GYM_URL")
    if isinstance(raw, str):
        return [u.strip() for u in raw.split(",") if u.strip()]
    return [str(u) for u in raw]


def _callable(value: Any) -> Optional[Callable[..., Any]]:
    if value is None or callable(value):
        return value
    module, _, attr = str(value).partition(":")
    return getattr(importlib.import_module(module), attr)


def row_from_kwargs(kwargs: Mapping[str, Any]) -> Dict[str, Any]:
    """The harness-gym row of a verl dataset row (``extra_info["harness_gym_row"]``, JSON or dict)."""
    extra = kwargs.get("extra_info") or {}
    raw = extra.get("harness_gym_row") if isinstance(extra, Mapping) else None
    if raw is None:
        raise KeyError("the dataset row has no extra_info.harness_gym_row (make the dataset with examples/verl/make_dataset.py)")
    return json.loads(raw) if isinstance(raw, str) else dict(raw)


def reward_extra_info(sample: Sample, components: Sequence[str]) -> Dict[str, float]:
    """The fixed numeric key set: every component (0.0 when absent or failed) and :data:`EXTRA_INFO_KEYS`."""
    info = {name: float(sample.reward_components.get(name, 0.0)) for name in components}
    info.update(
        harness_gym_reward=float(sample.reward),
        harness_gym_failed=1.0 if sample.masked else 0.0,
        harness_gym_turns=float(sample.turns),
        harness_gym_terminated=1.0 if sample.terminated else 0.0,
        harness_gym_truncated=1.0 if sample.truncated else 0.0,
    )
    return info


def _build() -> type:
    from verl.experimental.agent_loop import AgentLoopBase, AgentLoopOutput, register

    class HarnessGymAgentLoop(AgentLoopBase):
        """One harness-gym episode per sample (see :mod:`harness_gym.adapters.verl`)."""

        def __init__(self, *args: Any, server_urls: Any = None, pool_connections: Optional[int] = None,
                     token: Optional[str] = None, max_turns: Optional[int] = None, max_new_tokens: int = 1024,
                     min_turn_tokens: int = 256, mask_truncated: bool = True,
                     reset_options: Optional[Mapping[str, Any]] = None,
                     reward_components: Optional[Sequence[str]] = None, on_result: Any = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            rollout_cfg = _get(self.config, "actor_rollout_ref.rollout", {})
            self.prompt_length = int(_get(rollout_cfg, "prompt_length", 1 << 30))
            self.response_length = int(_get(rollout_cfg, "response_length", 8192))
            turns = max_turns if max_turns is not None else _get(rollout_cfg, "multi_turn.max_assistant_turns")
            self.rollout_config = RolloutConfig(
                max_response_tokens=self.response_length,
                max_new_tokens=int(max_new_tokens),
                max_turns=None if turns is None else int(turns),
                min_turn_tokens=int(min_turn_tokens),
                mask_truncated=bool(mask_truncated),
            )
            options: Dict[str, Any] = {}
            if connections := pool_connections:
                options["connections"] = int(connections)
            tok = token if token is not None else os.environ.get("HARNESS_GYM_TOKEN")
            if tok:
                options["token"] = tok
            self.pool = shared_pool(_urls(server_urls), **options)
            self.reset_options = dict(reset_options or {})
            self.components = tuple(reward_components or DEFAULT_COMPONENTS)
            self.on_result = _callable(on_result)

        async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> Any:
            row = row_from_kwargs(kwargs)
            request_id = uuid.uuid4().hex
            timing = {"generate": 0.0, "env": 0.0}
            eos = getattr(self.tokenizer, "eos_token_id", None)
            too_long = False

            async def generate(ids: List[int], max_new_tokens: int) -> Generation:
                nonlocal too_long
                if not timing.get("turns") and len(ids) > self.prompt_length:
                    too_long = True  # the first context is the prompt
                timing["turns"] = timing.get("turns", 0.0) + 1
                if too_long:  # nothing to learn from: let the episode end cheaply, with no model call
                    return Generation([eos] if eos is not None else [], [0.0] if eos is not None else [])
                started = time.perf_counter()
                out = await self.server_manager.generate(
                    request_id, prompt_ids=list(ids), sampling_params={**sampling_params, "max_tokens": max_new_tokens}
                )
                timing["generate"] += time.perf_counter() - started
                ids_out = list(out.token_ids)[:max_new_tokens]
                lps = None if out.log_probs is None else [float(x) for x in list(out.log_probs)[: len(ids_out)]]
                return Generation(ids_out, lps)

            def observe(result: Dict[str, Any]) -> None:
                if self.on_result is not None:
                    self.on_result(result)

            started = time.perf_counter()
            sample = await rollout(
                self.pool, row, self.tokenizer, generate, self.rollout_config,
                extra_options=self.reset_options or None, on_reset=observe, on_step=observe,
                template_kwargs=self.apply_chat_template_kwargs or None,
            )
            timing["env"] = time.perf_counter() - started - timing["generate"]
            if too_long:
                sample.failure, sample.error = "prompt_too_long", f"{len(sample.prompt_ids)} prompt ids > prompt_length {self.prompt_length}"
            return self._output(sample, kwargs, timing)

        def _output(self, sample: Sample, kwargs: Mapping[str, Any], timing: Mapping[str, float]) -> Any:
            prompt_ids, response_ids = list(sample.prompt_ids), list(sample.response_ids)
            mask = list(sample.loss_mask)
            logprobs = None if sample.logprobs is None else list(sample.logprobs)
            if sample.masked:  # nothing of it enters the loss; logprobs zero so every sample has them
                mask = [0] * len(response_ids)
                logprobs = [0.0] * len(response_ids)
            if not prompt_ids:  # the reset failed: the dataset's placeholder prompt stands in
                raw = kwargs.get("raw_prompt") or [{"role": "user", "content": ""}]
                prompt_ids = list(self.tokenizer.apply_chat_template(list(raw), add_generation_prompt=True, tokenize=True))
            prompt_ids = prompt_ids[-self.prompt_length :]
            if not response_ids:
                eos = getattr(self.tokenizer, "eos_token_id", None)
                response_ids, mask, logprobs = [eos if eos is not None else 0], [0], [0.0]
            response_ids = response_ids[: self.response_length]
            mask = mask[: self.response_length]
            if logprobs is not None:
                logprobs = logprobs[: self.response_length]
            strings = {
                "harness_gym_task_id": sample.task_id or "",
                "harness_gym_variant_id": sample.variant_id or "",
                "harness_gym_outcome": sample.outcome or "",
                "harness_gym_failure": sample.failure or "",
                "harness_gym_row_id": str(sample.row.get("row_id", "")),
            }
            return AgentLoopOutput(
                prompt_ids=prompt_ids,
                response_ids=response_ids,
                response_mask=mask,
                response_logprobs=logprobs,
                reward_score=0.0 if sample.masked else float(sample.reward),
                num_turns=sum(1 for m in sample.messages if m.get("role") != "system"),
                metrics={"generate_sequences": float(timing["generate"]), "tool_calls": max(0.0, float(timing["env"]))},
                extra_fields={"reward_extra_info": reward_extra_info(sample, self.components), **strings},
            )

    HarnessGymAgentLoop.__module__ = __name__
    HarnessGymAgentLoop.__qualname__ = "HarnessGymAgentLoop"
    register(AGENT_NAME)(HarnessGymAgentLoop)
    return HarnessGymAgentLoop


_CLASS: Optional[type] = None


def agent_loop_class() -> type:
    """The ``AgentLoopBase`` subclass (built, and registered as ``"harness_gym"``, on the first call)."""
    global _CLASS
    if _CLASS is None:
        _CLASS = _build()
    return _CLASS


def register_agent_loop() -> type:
    """Register the loop under :data:`AGENT_NAME` in verl's registry (again, if verl was re-imported)."""
    from verl.experimental.agent_loop import register

    cls = agent_loop_class()
    register(AGENT_NAME)(cls)
    return cls


def __getattr__(name: str) -> Any:
    # ``harness_gym.adapters.verl.HarnessGymAgentLoop`` (the registry's ``_target_``) builds the class lazily.
    if name == "HarnessGymAgentLoop":
        return agent_loop_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
