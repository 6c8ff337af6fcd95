"""verl: an agent loop that plays one harness-gym episode per sample, token-exact.

Written against verl commit ``1dda039b9c6311889a9c9a26040677e1254814f9`` (verl-project/verl, 2026-08-22):
``verl/experimental/agent_loop/agent_loop.py`` (``AgentLoopBase``, ``AgentLoopOutput``, ``register``,
``AgentLoopWorker``) and ``verl/trainer/ppo/v1/agent_loop_tq.py`` (the V1 TransferQueue worker, verl's
default trainer: ``trainer.use_v1: true``), vendored verbatim under ``clients/python/tests/vendor/verl/``.
verl is imported lazily: ``import harness_gym.adapters.verl`` works without it, and the class
:data:`HarnessGymAgentLoop` is built on first access, e.g. by the worker's
``hydra.utils.instantiate({"_target_": "harness_gym.adapters.verl.HarnessGymAgentLoop", ...})``.

Registration: verl's agent-loop workers are Ray actors; each one fills its registry from the modules it
imports (the ``@register`` decorator of ``verl.experimental.agent_loop.agent_loop``; the package
``verl.experimental.agent_loop`` does not export it) and from ``rollout.agent.agent_loop_config_path``,
a YAML list of ``{name, _target_, **kwargs}`` loaded in ``AgentLoopWorker.__init__``. The example
``clients/python/examples/verl/agent_loop.yaml`` is that list; :func:`register_agent_loop` registers the
class, without arguments, in the current process under :data:`AGENT_NAME`. Building the class registers
nothing: the first ``instantiate`` in a worker builds it, and a registration then would replace the YAML's
entry (and its arguments) for every later sample.

One instance per sample, as verl makes them. ``run(sampling_params, **row)``:

- reads the harness-gym row from ``extra_info["harness_gym_row"]`` (a JSON string, see
  ``clients/python/examples/verl/make_dataset.py``; a dict is accepted too). The ``rollout.n`` siblings of
  a row share it, hence seed, variant, locale and options, hence task and variant, in any worker;
- resets over the process-wide pooled connection (:func:`~harness_gym.train.shared_pool`);
- renders the reset messages and **the episode's own tools** (from the reset observation, renamed per
  episode; tools offered later are announced in a system message) once
  (:class:`~harness_gym.train.TokenTrajectory`), generates each turn with ``server_manager.generate``
  (token in, token out, logprobs kept), tokenizes only the environment's added messages (mask 0), and steps
  the server with the decoded text. verl's own ``tools`` argument (the worker-wide tools of
  ``multi_turn.tool_config_path``, for ``ToolAgentLoop``) is not used: harness-gym runs the tools;
- returns an ``AgentLoopOutput``: ``response_ids`` / ``response_mask`` / ``response_logprobs`` cut to
  ``rollout.response_length``, ``reward_score`` = the final step's reward, ``num_turns``, ``metrics``, and
  ``extra_fields``: ``reward_extra_info`` (the same numeric keys for every sample, :data:`EXTRA_INFO_KEYS`
  plus one per reward component), ``harness_gym_*`` strings (task, variant, outcome, failure, row id) and
  ``harness_gym_tools`` (the episode's tool schemas as JSON). ``response_logprobs`` is a list for every
  sample when ``sampling_params["logprobs"]`` is set (``rollout.calculate_log_probs``), else ``None`` for
  every sample: verl concatenates them only when sample 0 has them.

A failed sample (transport error, server error, a cap, a prompt longer than ``rollout.prompt_length``) is
left out of its group, as verl allows (``failure_mode``):

- ``"raise"`` (the default under verl's V1 trainer, ``trainer.use_v1: true``): ``run`` raises
  :class:`EpisodeFailed`. ``AgentLoopWorkerTQ._run_prompt`` gathers the group's sessions with
  ``return_exceptions=True``, stores no trajectory for the failed one and tags the group ``failure``; the
  replay buffer keeps the rest of the group sampleable (its GRPO statistics are the siblings'), or refills
  the group with ``trainer.v1.replay_buffer.sync_refill_failed_groups`` (verl ``replay_buffer.py``);
- ``"mask"`` (the default under the deprecated V0 trainer, where a raise would abort the whole batch):
  ``response_mask`` all 0, ``reward_score`` 0.0 and ``reward_extra_info["harness_gym_failed"] = 1``. The
  sample takes no gradient, but V0's GRPO still counts its 0.0 in the group's mean and std
  (``core_algos.compute_grpo_outcome_advantage`` has no per-sample mask, and ``uid`` cannot be changed by an
  agent loop: ``DataProto.union`` asserts it equal).

Settings, as keyword arguments (extra keys of the agent-loop YAML entry; hydra passes nested values as
``DictConfig`` / ``ListConfig``, converted here to plain containers) or environment variables:
``server_urls`` (list or comma-separated; ``HARNESS_GYM_URL``), ``pool_connections``, ``token``
(``HARNESS_GYM_TOKEN``), ``max_turns`` (default: ``multi_turn.max_assistant_turns``, else derived from the
response length), ``max_new_tokens`` (one turn's cap, default 1024), ``min_turn_tokens`` (256),
``mask_truncated`` (True), ``reset_options`` (dict added to every row's options), ``reward_components``
(the component names, default :data:`DEFAULT_COMPONENTS`), ``failure_mode`` (``"auto"``, ``"raise"`` or
``"mask"``), ``on_result`` (a callable or ``"module:attr"`` called with every reset and step result item:
logging, tests).
"""

from __future__ import annotations

import importlib
import json
import os
import time
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ..train import Generation, RolloutConfig, Sample, rollout, shared_pool
from ..train.rows import plain

#: The verl commit this adapter was read against and is tested with (vendored in clients/python/tests/vendor/verl).
VERL_COMMIT = "1dda039b9c6311889a9c9a26040677e1254814f9"

#: The name the loop is registered under (the dataset's ``agent_name`` / ``rollout.agent.default_agent_loop``).
AGENT_NAME = "harness_gym"

#: The default reward profile's components (docs/REWARDS.md); each is a ``reward_extra_info`` key.
DEFAULT_COMPONENTS = ("accuracy", "effectiveness", "hook_compliance", "tool_rationality", "skill_selection")

#: ``reward_extra_info`` keys every sample carries besides the components (verl reads sample 0's keys).
EXTRA_INFO_KEYS = ("harness_gym_reward", "harness_gym_failed", "harness_gym_turns", "harness_gym_terminated", "harness_gym_truncated")

#: ``extra_fields`` string keys every sample carries (per-sample arrays in verl's ``non_tensor_batch``).
STRING_FIELDS = ("harness_gym_task_id", "harness_gym_variant_id", "harness_gym_outcome", "harness_gym_failure", "harness_gym_row_id", "harness_gym_tools")

#: ``failure_mode`` values.
FAILURE_MODES = ("auto", "raise", "mask")


class EpisodeFailed(RuntimeError):
    """Raised by ``run`` for a failed sample in ``failure_mode="raise"``: verl's V1 worker drops the session
    from its group (``AgentLoopWorkerTQ._run_prompt``). ``sample`` is the :class:`~harness_gym.train.Sample`."""

    def __init__(self, sample: Sample) -> None:
        self.sample = sample
        self.failure = sample.failure
        super().__init__(
            f"harness-gym episode failed ({sample.failure}: {sample.error or 'no detail'}; row {sample.row.get('row_id', '?')}): "
            "left out of its group"
        )


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
    raw = plain(value) if value is not None else os.environ.get("HARNESS_GYM_URL")
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
    """The harness-gym row of a verl dataset row (``extra_info["harness_gym_row"]``, JSON or dict), plain."""
    extra = plain(kwargs.get("extra_info")) or {}
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
    from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput

    class HarnessGymAgentLoop(AgentLoopBase):
        """One harness-gym episode per sample (see :mod:`harness_gym.adapters.verl`)."""

        def __init__(self, *args: Any, server_urls: Any = None, pool_connections: Optional[int] = None,
                     token: Optional[str] = None, max_turns: Optional[int] = None, max_new_tokens: int = 1024,
                     min_turn_tokens: int = 256, mask_truncated: bool = True,
                     reset_options: Optional[Mapping[str, Any]] = None,
                     reward_components: Optional[Sequence[str]] = None, failure_mode: str = "auto",
                     on_result: Any = None, tools: Any = None, **kwargs: Any) -> None:
            # ``tools``: verl's ToolListWrap of the worker-wide tools (for ToolAgentLoop); harness-gym's tools
            # are the episode's own, from the server. ``name`` (the YAML entry's) arrives in kwargs.
            super().__init__(*args, **kwargs)
            rollout_cfg = _get(self.config, "actor_rollout_ref.rollout", {})
            self.prompt_length = int(_get(rollout_cfg, "prompt_length", 1 << 30))
            self.response_length = int(_get(rollout_cfg, "response_length", 8192))
            turns = max_turns if max_turns is not None else _get(rollout_cfg, "multi_turn.max_assistant_turns")
            self.rollout_config_hg = RolloutConfig(
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
                options["token"] = str(tok)
            self.pool = shared_pool(_urls(server_urls), **options)
            self.reset_options = dict(plain(reset_options) or {})
            self.components = tuple(plain(reward_components) or DEFAULT_COMPONENTS)
            self.template_kwargs = dict(plain(self.apply_chat_template_kwargs) or {})
            mode = str(failure_mode)
            if mode not in FAILURE_MODES:
                raise ValueError(f"failure_mode must be one of {FAILURE_MODES}, not {mode!r}")
            if mode == "auto":  # V1 (TransferQueue) drops a raising session from its group; V0 aborts the batch
                mode = "raise" if bool(_get(self.config, "trainer.use_v1", False)) else "mask"
            self.failure_mode = mode
            self.on_result = _callable(on_result)

        async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> Any:
            row = row_from_kwargs(kwargs)
            sampling_params = dict(plain(sampling_params) or {})
            want_logprobs = bool(sampling_params.get("logprobs"))
            priority = kwargs.get("priority")
            extra = {} if priority is None else {"priority": int(plain(priority))}
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
                    request_id, prompt_ids=list(ids), sampling_params={**sampling_params, "max_tokens": max_new_tokens}, **extra
                )
                timing["generate"] += time.perf_counter() - started
                ids_out = [int(t) for t in list(out.token_ids)[:max_new_tokens]]
                lps = None if out.log_probs is None else [float(x) for x in list(out.log_probs)[: len(ids_out)]]
                return Generation(ids_out, lps)

            def observe(result: Dict[str, Any]) -> None:
                if self.on_result is not None:
                    self.on_result(result)

            started = time.perf_counter()
            sample = await rollout(
                self.pool, row, self.tokenizer, generate, self.rollout_config_hg,
                extra_options=self.reset_options or None, on_reset=observe, on_step=observe,
                template_kwargs=self.template_kwargs or None,
            )
            timing["env"] = time.perf_counter() - started - timing["generate"]
            if too_long:
                sample.failure, sample.error = "prompt_too_long", f"{len(sample.prompt_ids)} prompt ids > prompt_length {self.prompt_length}"
            if sample.masked and self.failure_mode == "raise":
                raise EpisodeFailed(sample)
            return self._output(sample, kwargs, timing, want_logprobs)

        def _output(self, sample: Sample, kwargs: Mapping[str, Any], timing: Mapping[str, float], want_logprobs: bool) -> Any:
            prompt_ids, response_ids = list(sample.prompt_ids), list(sample.response_ids)
            mask = list(sample.loss_mask)
            # Every sample of a batch has logprobs, or none has (verl concatenates them when sample 0 has them).
            logprobs: Optional[List[float]] = None
            if want_logprobs:
                logprobs = list(sample.logprobs) if sample.logprobs is not None else [0.0] * len(response_ids)
            if sample.masked:  # nothing of it enters the loss
                mask = [0] * len(response_ids)
                if logprobs is not None:
                    logprobs = [0.0] * len(response_ids)
            if not prompt_ids:  # the reset failed: the dataset's placeholder prompt stands in
                raw = plain(kwargs.get("raw_prompt")) or [{"role": "user", "content": ""}]
                prompt_ids = list(self.tokenizer.apply_chat_template(list(raw), add_generation_prompt=True, tokenize=True))
            prompt_ids = prompt_ids[-self.prompt_length :]
            if not response_ids:
                eos = getattr(self.tokenizer, "eos_token_id", None)
                response_ids, mask = [eos if eos is not None else 0], [0]
                logprobs = [0.0] if want_logprobs else None
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
                "harness_gym_tools": json.dumps(sample.tools, ensure_ascii=False, sort_keys=True),
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
    # Not registered here: building the class happens inside the worker's first instantiate, and
    # ``register`` would replace the agent_loop_config_path entry (with its kwargs) by a bare _target_.
    return HarnessGymAgentLoop


_CLASS: Optional[type] = None


def agent_loop_class() -> type:
    """The ``AgentLoopBase`` subclass (built on the first call; see :func:`register_agent_loop`)."""
    global _CLASS
    if _CLASS is None:
        _CLASS = _build()
    return _CLASS


def register_agent_loop() -> type:
    """Register the loop under :data:`AGENT_NAME` in this process's verl registry, with no arguments (a bare
    ``_target_``: settings then come from the environment, ``HARNESS_GYM_URL``).

    verl's Ray workers register it, with the YAML's arguments, from ``rollout.agent.agent_loop_config_path``
    (examples/verl/agent_loop.yaml). The package ``verl.experimental.agent_loop`` exports no ``register``:
    it is the module's."""
    from verl.experimental.agent_loop.agent_loop import register

    cls = agent_loop_class()
    register(AGENT_NAME)(cls)
    return cls


def __getattr__(name: str) -> Any:
    # ``harness_gym.adapters.verl.HarnessGymAgentLoop`` (the registry's ``_target_``) builds the class lazily.
    if name == "HarnessGymAgentLoop":
        return agent_loop_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
