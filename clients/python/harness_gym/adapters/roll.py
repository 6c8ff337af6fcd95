"""ROLL (alibaba/ROLL): harness-gym as a ``gem.Env`` for ROLL's agentic env managers.

Written against ROLL 8eb27cc2dc34c4d1310b169d9b86d339004d811a and gem
4069f2f8d45f5047ac13221f7c90c8b19927d43a (docs/training/roll.md), whose files it touches are vendored
verbatim under clients/python/tests/vendor/roll/ and drive its tests. ROLL
builds each env with ``gem.make(env_type, **env_config)``, calls ``reset(seed=group_seed + episode_id)``
and ``step(action=<decoded response>)``, and trains on the sum of the step rewards. This module does not
import ``gem`` until the class is needed: ``HarnessGymEnv`` is made on first access (PEP 562), so
``import harness_gym.adapters.roll`` works without ROLL installed.

Choices, each forced by the managers' code:

- Every env instance of a process shares one pooled connection (:func:`harness_gym.train.shared_pool`):
  ROLL runs hundreds of env managers per worker, one socket each would fill a server.
- Seeds are reduced to uint32 (ROLL's group seeds are ints from ``[0, 2^31)`` plus offsets). Siblings of
  a group reset with the same seed, variant, locale and options, so they get one task and one variant.
- Both managers end an episode only on ``terminated`` (a ``truncated`` without it loops on), so an
  episode the server truncated (``max_turns``, ``error_cap``) is returned with ``terminated=True`` and
  ``truncated=True``; ``info["outcome"]`` says which.
- ``TrajEnvManager`` renders no tools and owns the system message (``agent_system_template``), so the
  episode's system prompt and its renamed tools go into ``info["env_instruction"]`` (prepended to the
  first user turn) in Qwen's ``# Tools`` layout, and tool results come back as ``<tool_response>``
  blocks in the user turn, which is how Qwen's template renders ``tool`` messages anyway.
- ``AgentNativeStepEnvManager`` re-templates the observation (the whole conversation) with
  ``tools=info["tools"]`` every step, so the shim asks the server for ``observation: "full"`` and
  returns its messages; a failed reset sets ``env_reset_failed`` (ROLL then drops the rollout).
- The reward is the server's: 0 on every step but the last, so the sum ROLL trains on is the final
  reward. The last step's ``info["metrics"]`` holds the reward and its components (aggregated "last"
  into ``env/<tag>/<name>``); ``info["failure"]`` marks a sample that says nothing about the policy
  (``transport``, ``server_error``, ``max_turns``, ``max_length``), and ``metrics["failed"]`` counts them.
- A sample the server or the connection spoiled (``server_error``, ``transport``) is excluded, never
  trained as reward 0: ``metrics["excluded"]`` is 1 on it, ROLL aggregates it into the rollout's
  ``meta_info["metrics"]["env/<tag>/excluded"]``, and :class:`GroupFilter` (set as the env manager's
  ``group_filter_cls``) drops the whole group, so ROLL's ``GroupQueue.put`` (rollout_scheduler.py) starts
  a fresh group in its place: the group stays consistent. It also drops a group holding a rollout with
  ``meta_info["drop_flag"]``, the native manager's placeholder for a failed reset.
- ROLL's ``make_env_configs`` hands ``env_config`` over as an omegaconf ``DictConfig`` (nested
  ``DictConfig``/``ListConfig`` values); every value is converted to plain dicts and lists here, at the
  boundary, before anything reaches msgpack.
- ``AgentNativeStepEnvManager.formulate_rollouts`` writes ``**self.env.env_info`` into its JSON trajectory
  record: :attr:`env_info` is a plain, JSON-serialisable dict of the episode (as ROLL's own native envs
  define it, a property).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import HarnessGymError
from ..train.pool import EnvPool, EpisodeHandle, shared_pool
from ..train.rows import plain, row_reset_item
from ..train.tokens import default_tools_message, messages_text, tools_instruction

#: The id :func:`register` uses, and the entry point gem imports.
ENV_ID = "harness_gym"
ENTRY_POINT = "harness_gym.adapters.roll:HarnessGymEnv"

#: End-of-turn markers ROLL leaves in the action (it decodes with ``skip_special_tokens=False``).
END_MARKERS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end|>", "</s>")

MANAGERS = ("traj", "native")

#: Failures that say nothing about the policy: their samples are excluded from training (``metrics["excluded"]``).
EXCLUDED_FAILURES = ("server_error", "transport")


class GroupFilter:
    """ROLL's ``group_filter_cls`` interface (roll/pipeline/agentic/agentic_pipeline.py ``GroupFilter``):
    ``GroupFilter(config, env_manager_config, mode).filter(group_id, episode_id, group) -> bool``, True to
    drop the group. ``GroupQueue.put`` (roll/distributed/scheduler/rollout_scheduler.py) then advances a
    fresh group in its place, so the batch still fills with whole, consistent groups.

    A group is dropped when one of its rollouts holds a sample harness-gym marked excluded (a reset or step
    the server refused or the connection lost: ``env/<tag>/excluded`` > 0 in ``meta_info["metrics"]``), or
    the native manager's ``drop_flag`` placeholder for a failed reset. Unlike ROLL's own native filter, this
    one does not let failed groups through past a ratio (that would train them as reward 0); instead, after
    ``max_consecutive_drops`` dropped groups in a row it raises, so a server that is down stops the run
    loudly rather than looping on.
    """

    max_consecutive_drops = 256

    def __init__(self, config: Any = None, env_manager_config: Any = None, mode: str = "train") -> None:
        self.config = config
        self.env_manager_config = env_manager_config
        self.mode = mode
        self.stats = {"total": 0, "filtered": 0}
        self.consecutive = 0

    @staticmethod
    def excluded(rollout: Any) -> bool:
        """Whether one rollout (a ROLL ``DataProto``) must not be trained on."""
        if rollout is None:
            return False
        meta = getattr(rollout, "meta_info", None) or {}
        if meta.get("drop_flag", False):
            return True
        metrics = meta.get("metrics") or {}
        return any(str(k).endswith("/excluded") and float(v) > 0 for k, v in metrics.items())

    def filter(self, group_id: int, episode_id: int, group: List[Any]) -> bool:
        self.stats["total"] += 1
        if not any(self.excluded(r) for r in group):
            self.consecutive = 0
            return False
        self.stats["filtered"] += 1
        self.consecutive += 1
        if self.consecutive > self.max_consecutive_drops:
            raise RuntimeError(
                f"harness-gym: {self.consecutive} groups in a row had a failed reset or step (group {group_id}, "
                f"episode {episode_id}); is the server reachable?"
            )
        return True


def register(env_id: str = ENV_ID, **kwargs: Any) -> None:
    """``gem.register(env_id, entry_point=ENTRY_POINT, **kwargs)``, once per process (a repeat is a no-op).

    Call it where ROLL registers its own envs (``roll/pipeline/agentic/env/__init__.py``), so every Ray
    worker that imports ROLL's envs knows ``env_type: harness_gym``.
    """
    import gem
    from gem.envs.registration import ENV_REGISTRY

    spec = ENV_REGISTRY.get(env_id)
    if spec is not None and spec.entry_point == ENTRY_POINT:
        return
    gem.register(env_id, entry_point=ENTRY_POINT, **kwargs)


def strip_end_markers(text: str, markers: Sequence[str] = END_MARKERS) -> str:
    """The response without trailing end-of-turn markers (the server's parser reads plain text)."""
    changed = True
    while changed:
        changed = False
        stripped = text.rstrip()
        for marker in markers:
            if marker and stripped.endswith(marker):
                text, changed = stripped[: -len(marker)], True
    return text


class _HarnessGymEnvBase:
    """The env's logic; :data:`HarnessGymEnv` mixes it with ``gem.Env``.

    Constructor keywords are ROLL's ``custom_envs.<tag>.env_config``: ``url`` (one server URL or a list,
    episodes sharded by seed), ``variant`` (a preset name or a VariantSpec map), ``locale``, ``task`` (a
    task selector), ``options`` (further reset options), ``max_turns`` (sent as ``options.max_turns``;
    keep it at most ``max_steps``), ``env_manager`` (``"traj"`` for TrajEnvManager, ``"native"`` for
    AgentNativeStepEnvManager), ``pool_options`` (:class:`EnvPool` keywords, e.g. ``token``).
    """

    def __init__(
        self,
        url: Union[str, Sequence[str]] = "ws://127.0.0.1:8080/v1/env",
        variant: Union[str, Mapping[str, Any]] = "train",
        locale: Optional[str] = None,
        task: Optional[Mapping[str, Any]] = None,
        options: Optional[Mapping[str, Any]] = None,
        max_turns: Optional[int] = None,
        env_manager: str = "traj",
        pool_options: Optional[Mapping[str, Any]] = None,
        end_markers: Sequence[str] = END_MARKERS,
    ) -> None:
        if env_manager not in MANAGERS:
            raise ValueError(f"env_manager must be one of {MANAGERS}, not {env_manager!r}")
        url, variant, task, options, pool_options = plain(url), plain(variant), plain(task), plain(options), plain(pool_options)
        urls = url if isinstance(url, str) else tuple(url)
        self.pool: EnvPool = shared_pool(urls, **dict(pool_options or {}))
        self.variant = variant
        self.locale = None if locale is None else str(locale)
        self.task = dict(task) if task else None
        self.options = dict(options or {})
        self.max_turns = None if max_turns is None else int(max_turns)
        self.env_manager = env_manager
        self.end_markers = tuple(plain(end_markers))
        #: Read by AgentNativeStepEnvManager right after reset.
        self.env_reset_failed = False
        self.handle: Optional[EpisodeHandle] = None
        self.live = False
        self.seed: Optional[int] = None
        self.messages: List[Dict[str, Any]] = []
        self.tools: List[Dict[str, Any]] = []
        #: Native mode: system messages announcing tools offered mid-episode, at their positions.
        self._notes: List[Tuple[int, Dict[str, Any]]] = []
        self._failure: Optional[Tuple[str, str]] = None
        self._last: Dict[str, Any] = {}

    @property
    def env_info(self) -> Dict[str, Any]:
        """The episode, for ``AgentNativeStepEnvManager.formulate_rollouts``'s trajectory record (JSON)."""
        return {
            "env": ENV_ID,
            "seed": self.seed,
            "variant": self.variant,
            "locale": self.locale,
            "env_manager": self.env_manager,
            "task_id": self._last.get("task_id"),
            "variant_id": self._last.get("variant_id"),
            "turn": self._last.get("turn"),
            "outcome": self._last.get("outcome"),
            "failure": self._last.get("failure"),
            "error": self._last.get("error"),
        }

    # ---- gem.Env ----

    def reset(self, seed: Optional[int] = None) -> Tuple[Any, Dict[str, Any]]:
        self.seed = None if seed is None else int(seed) & 0xFFFFFFFF
        # gem.Env.reset seeds random and numpy (gem/utils/seeding.py set_seed): numpy takes only uint32 seeds,
        # so it gets the reduced one (ROLL's meta seed + group seed + episode id can pass 2^32).
        super().reset(self.seed)  # type: ignore[misc]
        self._release()
        self.env_reset_failed, self._failure, self._notes, self._last = False, None, [], {}
        item = self.reset_item(self.seed)
        try:
            self.handle, result = self.pool.reset_sync(item)
        except (HarnessGymError, OSError) as exc:
            return self._reset_failed("transport", getattr(exc, "code", None) or type(exc).__name__)
        if result.get("ok") is False:
            return self._reset_failed("server_error", result["error"]["code"])
        self.live = True
        observation, info = result["observation"], result["info"]
        self.messages = list(observation.get("messages", []))
        self.tools = list(observation.get("tools", []))
        out = self._info(info)
        self._last = {k: out.get(k) for k in ("task_id", "variant_id", "turn")}
        if self.env_manager == "native":
            out["tools"] = self.tools
            return self._native_messages(), out
        system = [str(m.get("content") or "") for m in self.messages if m.get("role") == "system"][:1]
        out["env_instruction"] = "\n\n".join(system + ([tools_instruction(self.tools)] if self.tools else []))
        rest = self.messages[1:] if system else self.messages
        return messages_text(rest), out

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        if not isinstance(action, str):
            # AgentNativeStepEnvManager passes its EpisodeStopReason when generation hit the length limit.
            reason = str(getattr(action, "value", action))
            self._release()
            return self._ended("max_length", reason)
        if not self.live or self.handle is None:
            failure, error = self._failure or ("server_error", "RESET_NEEDED")
            return self._ended(failure, error)
        text = strip_end_markers(action, self.end_markers)
        try:
            result = self.pool.step_sync(self.handle, {"text": text})
        except (HarnessGymError, OSError) as exc:
            self.live = False
            return self._ended("transport", getattr(exc, "code", None) or type(exc).__name__)
        if result.get("ok") is False:
            self._release()
            return self._ended("server_error", result["error"]["code"])
        observation, info = result["observation"], result["info"]
        terminated, truncated = bool(result["terminated"]), bool(result["truncated"])
        added = list(observation.get("messages", []))
        new_tools = observation.get("tools")
        out = self._info(info)
        self._last.update({k: out.get(k) for k in ("task_id", "variant_id", "turn")})
        if self.env_manager == "native":
            self.messages = added  # observation "full": the whole conversation as the server parsed it
            if new_tools is not None and new_tools != self.tools:
                self._notes.append((len(self.messages), default_tools_message(new_tools)))
            obs: Any = self._native_messages()
        else:
            obs = messages_text(added)
            if new_tools is not None and new_tools != self.tools:
                obs = (obs + "\n\n" if obs else "") + str(default_tools_message(new_tools)["content"])
        if new_tools is not None:
            self.tools = list(new_tools)
        if not (terminated or truncated):
            return obs, 0.0, False, False, out
        self.live = False
        reward = float(result["reward"])
        outcome = info.get("outcome")
        failure = "max_turns" if truncated and outcome == "max_turns" else None
        out.update(self._final(reward, dict(info.get("reward_components", {})), failure))
        out["outcome"] = outcome
        self._last.update({"outcome": outcome, "failure": failure})
        out["reward_components"] = dict(info.get("reward_components", {}))
        out["segments"] = dict(info.get("segments", {}))
        return obs, reward, True, truncated, out

    def close(self) -> None:
        """Release a running episode (the pool itself stays open for the process's other envs)."""
        self._release()

    # ---- helpers ----

    def reset_item(self, seed: Optional[int]) -> Dict[str, Any]:
        """The ``ResetItem`` for a seed: the config's variant, locale, task and options, nothing per sample."""
        options = dict(self.options)
        if self.max_turns is not None:
            options["max_turns"] = int(self.max_turns)
        if self.env_manager == "native":
            options["observation"] = "full"
        row = {"seed": 0 if seed is None else seed, "variant": self.variant, "locale": self.locale, "task": self.task, "options": options}
        item = row_reset_item(row)
        if seed is None:
            del item["seed"]  # the server draws one from the session's stream
        return item

    def _info(self, info: Mapping[str, Any]) -> Dict[str, Any]:
        return {
            "task_id": info.get("task_id"),
            "variant_id": info.get("variant_id"),
            "turn": info.get("turn"),
            "seed": self.seed,
            #: The server's whole info (hook_violations, tool_errors, reward_details, ...).
            "harness_gym": dict(info),
        }

    def _final(self, reward: float, components: Mapping[str, float], failure: Optional[str], error: Optional[str] = None) -> Dict[str, Any]:
        metrics = {
            "reward": reward,
            **{k: float(v) for k, v in components.items()},
            "failed": 1.0 if failure else 0.0,
            "excluded": 1.0 if failure in EXCLUDED_FAILURES else 0.0,
        }
        out: Dict[str, Any] = {"metrics": metrics, "metrics_agg_mode": {k: "last" for k in metrics}, "failure": failure}
        if failure:
            out["failure_mode"] = failure if error is None else f"{failure}: {error}"
        if error is not None:
            out["error"] = error
        return out

    def _ended(self, failure: str, error: str) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        out = {"task_id": self._last.get("task_id"), "variant_id": self._last.get("variant_id"), "seed": self.seed, **self._final(0.0, {}, failure, error)}
        self._last.update({"failure": failure, "error": error})
        obs: Any = self._native_messages() if self.env_manager == "native" else ""
        return obs, 0.0, True, True, out

    def _reset_failed(self, failure: str, error: str) -> Tuple[Any, Dict[str, Any]]:
        self.env_reset_failed, self._failure, self.live, self.messages, self.tools = True, (failure, error), False, [], []
        info = {"task_id": None, "variant_id": None, "seed": self.seed, "failure": failure, "error": error, "failure_mode": f"{failure}: {error}"}
        self._last = {"failure": failure, "error": error}
        if self.env_manager == "native":
            info["tools"] = []
            return [], info
        # TrajEnvManager has no reset-failure path (a None observation would end its loop for good): the
        # first step ends the episode with metrics["excluded"] = 1, and GroupFilter drops its group.
        info["env_instruction"] = ""
        return f"[harness-gym reset failed: {error}]", info

    def _native_messages(self) -> List[Dict[str, Any]]:
        out = list(self.messages)
        for shift, (pos, note) in enumerate(self._notes):
            out.insert(pos + shift, note)
        return out

    def _release(self) -> None:
        if self.live and self.handle is not None:
            try:
                self.pool.release_sync(self.handle)
            except Exception:
                pass  # releasing is housekeeping
        self.live = False


_CLASS: Optional[type] = None


def env_class() -> type:
    """The ``gem.Env`` subclass (made once, on first use, so that ``gem`` is imported only then)."""
    global _CLASS
    if _CLASS is None:
        from gem.core import Env

        _CLASS = type("HarnessGymEnv", (_HarnessGymEnvBase, Env), {"__module__": __name__, "__doc__": _HarnessGymEnvBase.__doc__})
    return _CLASS


def __getattr__(name: str) -> Any:
    # gem.make resolves "harness_gym.adapters.roll:HarnessGymEnv" with getattr(module, "HarnessGymEnv").
    if name == "HarnessGymEnv":
        return env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
