"""OpenRLHF: the agent-func file contract (``--train.agent_func_path``) over harness-gym.

Written against OpenRLHF commit ``3c3be6234e0cb353e76bb8019947db9dfe99fca7`` (2026-08-13). The files it
touches are vendored verbatim under ``clients/python/tests/vendor/openrlhf/`` (``openrlhf/utils/agent.py``:
``AgentInstanceBase``, ``MultiTurnAgentExecutor``; ``openrlhf/trainer/ray/vllm_engine.py``:
``_load_agent_executor``, ``RolloutRayActor.generate_responses``; ``openrlhf/trainer/ppo_utils/
samples_generator.py``: the dynamic filter) and ``clients/python/tests/test_adapter_openrlhf.py`` drives
this module through them. OpenRLHF is imported lazily: the classes are built on first access, so ``from
harness_gym.adapters.openrlhf import AgentExecutor`` in an agent-func file
(``clients/python/examples/openrlhf/agent_func.py``) is all the file needs.

- :data:`AgentExecutor`: a ``MultiTurnAgentExecutor`` built with no arguments (``_load_agent_executor``
  calls ``agent_module.AgentExecutor()``); its ``execute`` hands the trainer's ``hf_tokenizer`` to the
  instances (they are constructed with no arguments).
- :data:`AgentInstance` (``AgentInstanceBase``): ``reset`` reads the row from the ``label`` (the JSON of a
  :func:`~harness_gym.train.group_rows` row; the ``n_samples_per_prompt`` siblings share it, hence task and
  variant), resets over the process-wide pooled connection and returns the reset messages and the episode's
  own tools rendered with the chat template (generation prompt included) as the observation: OpenRLHF
  tokenizes that text without a template. ``step`` sends the action text, and returns ``rewards`` (the
  server's step reward, 0 until the final step, as an object with ``.item()``: a torch tensor when torch is
  importable), ``scores`` (the final reward on the last step), ``environment_feedback`` (the environment's
  added messages as templated text: the closing of the assistant turn, the tool results or hook feedback,
  and the next generation prompt, computed by :class:`~harness_gym.train.TokenTrajectory`), ``done``
  (terminated or truncated) and ``extra_logs`` (numbers only: the reward, each component, failed, turns).

OpenRLHF gives the instance only texts, so the action's ids are re-encoded from its text (plus the
end-of-turn id) for the accounting; the loss mask is OpenRLHF's own ``action_ranges``.

Failed episodes are excluded, not trained as reward 0. A failure is a transport error, a server error, the
server's turn cap (``outcome == "max_turns"``, unless ``HARNESS_GYM_MASK_TRUNCATED=0``) or the executor's
token budget (``max_length``) spent before the episode ended (its server episode is then released).
``AgentExecutor.execute`` returns such a sample with:

- ``action_ranges = []``: ``SamplesGenerator._process_response_into_experience`` builds an all-zero
  ``action_mask`` from it, and OpenRLHF's loss leaves fully masked sequences out (``aggregate_loss``:
  "exclude fully masked sequences"; token-level: no tokens), so the sample carries no gradient;
- ``scores = nan``: with ``--algo.dynamic_filtering_enable``, ``SamplesGenerator._generate_vllm`` drops the
  whole group when ``not (min_r < mean(scores) < max_r)``, which a NaN mean always is, and dispatches a
  fresh prompt in its place, so a failed sample never enters its siblings' baseline and groups stay whole
  (``rewards.reshape(-1, n_samples_per_prompt)`` needs them whole);
- ``reward = 0.0`` (finite: without dynamic filtering the group is kept, and this 0 then does enter the
  siblings' mean and std, though the failed sample itself gets no gradient) and ``extra_logs
  ["harness_gym_failed"] = 1``.

Settings (environment variables, as the instances take no arguments): ``HARNESS_GYM_URL`` (one or several,
comma-separated), ``HARNESS_GYM_MAX_TURNS`` (default 8, sent as ``options.max_turns``),
``HARNESS_GYM_RESET_OPTIONS`` (JSON, added to every row's options), ``HARNESS_GYM_TOKEN``,
``HARNESS_GYM_MASK_TRUNCATED`` (default 1). Or set the class attributes of :data:`AgentInstance`.
"""

from __future__ import annotations

import contextvars
import json
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ..errors import HarnessGymError
from ..train import TokenTrajectory, row_reset_item, shared_pool

#: The instance made by the running ``execute`` (each sample runs in its own asyncio task, hence context).
_INSTANCE: contextvars.ContextVar[Optional[List[Any]]] = contextvars.ContextVar("harness_gym_openrlhf_instance", default=None)

DEFAULT_COMPONENTS = ("accuracy", "effectiveness", "hook_compliance", "tool_rationality", "skill_selection")


class Scalar:
    """A float with ``.item()``, for ``rewards`` when torch is not importable."""

    __slots__ = ("value",)

    def __init__(self, value: float) -> None:
        self.value = float(value)

    def item(self) -> float:
        return self.value

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"Scalar({self.value})"


def scalar(value: float) -> Any:
    """``torch.tensor(value)`` when torch is importable, else a :class:`Scalar`."""
    try:
        import torch
    except ImportError:
        return Scalar(value)
    return torch.tensor(float(value))


def row_from_label(label: Any) -> Dict[str, Any]:
    """The harness-gym row a dataset label carries (its JSON, or the dict)."""
    if isinstance(label, Mapping):
        return dict(label)
    return json.loads(str(label))


def exclude(out: Dict[str, Any], logs: Optional[Mapping[str, float]] = None) -> Dict[str, Any]:
    """Make an executor result a sample OpenRLHF leaves out (see the module docstring): no action tokens in
    the loss mask, a NaN score (its group fails any ``--algo.dynamic_filtering_range``), reward 0.
    ``logs`` are defaults for ``extra_logs`` keys the result lacks (every sample logs the same keys)."""
    out["action_ranges"] = []
    out["scores"] = float("nan")
    out["reward"] = 0.0
    logs = {**(logs or {}), **(out.get("extra_logs") or {})}
    logs["harness_gym_failed"] = 1.0
    out["extra_logs"] = logs
    return out


def _build() -> Dict[str, type]:
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor

    class HarnessGymAgentInstance(AgentInstanceBase):
        """One harness-gym episode (see :mod:`harness_gym.adapters.openrlhf`)."""

        #: Set by :class:`HarnessGymAgentExecutor` from ``execute``'s ``hf_tokenizer``.
        tokenizer: Any = None
        urls: Optional[Sequence[str]] = None
        max_turns: Optional[int] = None
        reset_options: Optional[Mapping[str, Any]] = None
        mask_truncated: Optional[bool] = None
        components: Sequence[str] = DEFAULT_COMPONENTS
        #: Called with every reset and step result item (logging, tests).
        on_result: Optional[Callable[[Dict[str, Any]], None]] = None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            urls = self.urls or [u.strip() for u in os.environ.get("HARNESS_GYM_URL", "").split(",") if u.strip()]
            if not urls:
                raise RuntimeError("harness_gym agent: set HARNESS_GYM_URL")
            token = os.environ.get("HARNESS_GYM_TOKEN")
            self.pool = shared_pool(list(urls), **({"token": token} if token else {}))
            self.turn_cap = int(self.max_turns if self.max_turns is not None else os.environ.get("HARNESS_GYM_MAX_TURNS", 8))
            self.options = dict(self.reset_options if self.reset_options is not None else json.loads(os.environ.get("HARNESS_GYM_RESET_OPTIONS") or "{}"))
            self.mask_capped = self.mask_truncated if self.mask_truncated is not None else os.environ.get("HARNESS_GYM_MASK_TRUNCATED", "1") != "0"
            self.handle: Any = None
            self.traj: Optional[TokenTrajectory] = None
            self.failure: Optional[str] = None
            self.done = False
            self.turns = 0
            made = _INSTANCE.get()
            if made is not None:
                made.append(self)

        def _observe(self, result: Dict[str, Any]) -> None:
            if self.on_result is not None:
                type(self).on_result(result)  # a plain function stored on the class, not a method

        async def reset(self, states: dict, **kwargs: Any) -> dict:
            tok = self.tokenizer
            if tok is None:
                raise RuntimeError("no tokenizer: use harness_gym.adapters.openrlhf.AgentExecutor as the AgentExecutor")
            item = row_reset_item(row_from_label(states.get("label")), {"max_turns": self.turn_cap, **self.options})
            try:
                self.handle, result = await self.pool.reset(item)
            except (HarnessGymError, OSError) as exc:
                self.failure = "transport"
                return {"observation": str(states.get("observation") or "")}
            if result.get("ok") is False:
                self.failure = "server_error"
                return {"observation": str(states.get("observation") or "")}
            self._observe(result)
            obs = result["observation"]
            self.traj = TokenTrajectory(tok, obs.get("messages", []), obs.get("tools", []))
            return {"observation": tok.decode(self.traj.prompt_ids, skip_special_tokens=False)}

        def _logs(self, reward: float, info: Mapping[str, Any], failed: bool) -> Dict[str, float]:
            components = info.get("reward_components") or {}
            logs = {name: float(components.get(name, 0.0)) for name in self.components}
            logs.update(harness_gym_reward=float(reward), harness_gym_failed=1.0 if failed else 0.0, harness_gym_turns=float(self.turns))
            return logs

        def _end(self, failure: str) -> dict:
            self.failure = self.failure or failure
            self.done = True
            return {"rewards": scalar(0.0), "scores": 0.0, "environment_feedback": "", "done": True,
                    "extra_logs": self._logs(0.0, {}, True)}

        async def step(self, state_dict: dict, **kwargs: Any) -> dict:
            if self.failure is not None or self.traj is None:
                return self._end(self.failure or "server_error")
            tok = self.tokenizer
            text = str(state_dict.get("action_text") or "")
            self.turns += 1
            eos = getattr(tok, "eos_token_id", None)
            self.traj.add_generation(tok.encode(text, add_special_tokens=False) + ([eos] if eos is not None else []))
            try:
                result = await self.pool.step(self.handle, {"text": text})
            except (HarnessGymError, OSError):
                return self._end("transport")
            if result.get("ok") is False:
                await self.pool.release(self.handle)
                return self._end("server_error")
            self._observe(result)
            reward, info = float(result["reward"]), result["info"]
            done = bool(result["terminated"] or result["truncated"])
            if done:
                self.done = True
                capped = bool(result["truncated"]) and info.get("outcome") == "max_turns" and self.mask_capped
                if capped:
                    self.failure = "max_turns"
                return {"rewards": scalar(0.0 if capped else reward), "scores": 0.0 if capped else reward,
                        "environment_feedback": "", "done": True, "extra_logs": self._logs(reward, info, capped)}
            ids = self.traj.add_environment(result["observation"].get("messages", []), result["observation"].get("tools"))
            return {"rewards": scalar(reward), "scores": 0.0, "environment_feedback": tok.decode(ids, skip_special_tokens=False),
                    "done": False, "extra_logs": self._logs(reward, info, False)}

    class HarnessGymAgentExecutor(MultiTurnAgentExecutor):
        """``AgentExecutor()``: OpenRLHF's multi-turn executor over :class:`HarnessGymAgentInstance`."""

        def __init__(self) -> None:
            super().__init__(HarnessGymAgentInstance)

        async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine, images=None):
            HarnessGymAgentInstance.tokenizer = hf_tokenizer  # the instances are built with no arguments
            made: List[Any] = []
            token = _INSTANCE.set(made)
            try:
                out = await super().execute(prompt, label, sampling_params, max_length, hf_tokenizer, llm_engine, images)
            finally:
                _INSTANCE.reset(token)
            instance = made[0] if made else None
            if instance is not None and not instance.done and instance.failure is None:
                instance.failure = "max_length"  # the token budget ran out before the episode ended
                if instance.handle is not None:
                    await instance.pool.release(instance.handle)
            if instance is None or instance.failure is not None:
                exclude(out, instance._logs(0.0, {}, True) if instance is not None else None)
            return out

    for cls in (HarnessGymAgentInstance, HarnessGymAgentExecutor):
        cls.__module__ = __name__
    return {"AgentInstance": HarnessGymAgentInstance, "AgentExecutor": HarnessGymAgentExecutor}


_CLASSES: Optional[Dict[str, type]] = None


def __getattr__(name: str) -> Any:
    # ``AgentExecutor`` / ``AgentInstance`` are built on first access (OpenRLHF imported then).
    global _CLASSES
    if name in ("AgentExecutor", "AgentInstance"):
        if _CLASSES is None:
            _CLASSES = _build()
        return _CLASSES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
