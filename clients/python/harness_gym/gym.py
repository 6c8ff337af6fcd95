"""A Gymnasium-style single-episode API over :class:`~harness_gym.client.HarnessGymClient`.

``reset(seed=, options=) -> (observation, info)`` and ``step(action) -> (observation, reward, terminated,
truncated, info)``, as Gymnasium's ``Env``; never a bare ``done``. A step before reset, or after the episode
ended, raises :class:`~harness_gym.errors.ResetNeededError` (Gymnasium's ``OrderEnforcing``). Item errors
from the server are raised as typed :class:`~harness_gym.errors.ItemError`.

Two forms: :class:`AsyncHarnessGymEnv` (``await env.reset()``) for asyncio code, and :class:`HarnessGymEnv`,
a blocking wrapper that runs the client on a private event loop in a background thread (so the WebSocket
keeps answering the server's pings while the policy thinks between steps).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Awaitable, Dict, List, Mapping, Optional, Tuple, TypeVar, Union

from .client import HarnessGymClient, ReconnectPolicy
from .errors import ResetNeededError, unwrap

Observation = Dict[str, Any]
Info = Dict[str, Any]
Action = Union[str, Mapping[str, Any]]
StepReturn = Tuple[Observation, float, bool, bool, Info]

#: Keys of ``reset(options=...)`` that belong on the ``ResetItem`` itself; the rest go to ``item.options``.
ITEM_KEYS = ("episode_id", "group_id", "task", "variant")

T = TypeVar("T")


def reset_item(seed: Optional[int], options: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """Build a ``ResetItem`` from Gymnasium-style ``seed`` and ``options``.

    ``options`` may mix item fields (``variant``, ``task``, ``group_id``, ``episode_id``) and protocol
    options (``parser``, ``locale``, ``max_turns``, ``rewards``, ``faults``, ``group_share``,
    ``observation``, ``oracle_hints``); unknown keys are sent as options, where the server rejects them.
    """
    item: Dict[str, Any] = {}
    if seed is not None:
        item["seed"] = seed
    protocol_options: Dict[str, Any] = {}
    for key, value in (options or {}).items():
        if key in ITEM_KEYS:
            item[key] = value
        else:
            protocol_options[key] = value
    if protocol_options:
        item["options"] = protocol_options
    return item


def to_action(action: Action) -> Dict[str, Any]:
    """A raw completion string becomes ``{text}``; a map is sent as it is (``{text}`` or ``{message}``)."""
    if isinstance(action, str):
        return {"text": action}
    return dict(action)


def action_message(action: Mapping[str, Any]) -> Dict[str, Any]:
    """The assistant message an action stands for, to keep the client's copy of the conversation."""
    if "message" in action:
        return dict(action["message"])
    return {"role": "assistant", "content": action.get("text", "")}


class AsyncHarnessGymEnv:
    """One episode at a time over a client (asyncio). Several envs may share one client (one session)."""

    def __init__(self, client: HarnessGymClient, episode_id: Optional[str] = None) -> None:
        """``episode_id`` names the episode on the server; absent, the server makes one at each reset."""
        self.client = client
        self._fixed_id = episode_id
        self.episode_id: Optional[str] = None
        self._live = False
        #: The whole conversation so far: reset messages, the agent's own turns and every delta.
        self.messages: List[Dict[str, Any]] = []
        #: The tool schemas in the episode's surface names (updated when a step changes them).
        self.tools: List[Dict[str, Any]] = []

    @classmethod
    async def connect(cls, url: str, **client_options: Any) -> "AsyncHarnessGymEnv":
        """Connect a new client (see :meth:`HarnessGymClient.connect` for the options) and wrap it."""
        return cls(await HarnessGymClient.connect(url, **client_options))

    async def reset(
        self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None
    ) -> Tuple[Observation, Info]:
        """Start an episode; ``seed`` (uint32) fixes task and variant. Returns ``(observation, info)``."""
        item = reset_item(seed, options)
        if self._fixed_id is not None and "episode_id" not in item:
            item["episode_id"] = self._fixed_id
        elif "episode_id" not in item and self.episode_id is not None and not self._live:
            item["episode_id"] = self.episode_id  # an ended, unclosed id may be reset again
        if self._live and self.episode_id is not None:
            await self.client.close_episodes([self.episode_id])
            self._live = False
        (result,) = await self.client.reset([item])
        result = unwrap(result)
        self.episode_id = result["episode_id"]
        self._live = True
        observation = result["observation"]
        self.messages = list(observation.get("messages", []))
        self.tools = list(observation.get("tools", []))
        return observation, result["info"]

    async def step(self, action: Action) -> StepReturn:
        """Send one assistant turn; returns ``(observation, reward, terminated, truncated, info)``."""
        if not self._live or self.episode_id is None:
            raise ResetNeededError("RESET_NEEDED", "call reset() before step()", episode_id=self.episode_id)
        wire_action = to_action(action)
        (result,) = await self.client.step([{"episode_id": self.episode_id, "action": wire_action}])
        result = unwrap(result)
        observation = result["observation"]
        self.messages.append(action_message(wire_action))
        self.messages.extend(observation.get("messages", []))
        if "tools" in observation:
            self.tools = list(observation["tools"])
        terminated, truncated = bool(result["terminated"]), bool(result["truncated"])
        if terminated or truncated:
            self._live = False
        return observation, float(result["reward"]), terminated, truncated, result["info"]

    async def close(self) -> None:
        """Close the episode on the server (the client stays open; close it separately)."""
        if self.episode_id is not None:
            await self.client.close_episodes([self.episode_id])
            self._live = False
            self.episode_id = None


class LoopThread:
    """A private event loop running in a daemon thread; ``run(coro)`` blocks until the coroutine is done."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="harness-gym-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Awaitable[T]) -> T:
        """Run ``coro`` on the loop thread and return its result (or raise its exception)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()  # type: ignore[arg-type]

    def stop(self) -> None:
        """Stop the loop and join the thread."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


class HarnessGymEnv:
    """Blocking Gymnasium-style env: its own connection, one episode at a time.

    >>> env = HarnessGymEnv("ws://127.0.0.1:8080/v1/env")
    >>> obs, info = env.reset(seed=1, options={"variant": "train"})
    >>> obs, reward, terminated, truncated, info = env.step({"text": "..."})
    >>> env.close()
    """

    def __init__(
        self,
        url: str,
        *,
        token: Optional[str] = None,
        seed: Optional[int] = None,
        encoding: str = "msgpack",
        reconnect: Optional[ReconnectPolicy] = ReconnectPolicy(),
        timeout_s: Optional[float] = 60.0,
    ) -> None:
        """Connect to ``url`` (``ws://HOST:PORT/v1/env``); the options are those of ``HarnessGymClient``."""
        self._thread = LoopThread()
        try:
            client = self._thread.run(
                HarnessGymClient.connect(
                    url, token=token, seed=seed, encoding=encoding, reconnect=reconnect, timeout_s=timeout_s
                )
            )
        except BaseException:
            self._thread.stop()
            raise
        self._env = AsyncHarnessGymEnv(client)

    @property
    def client(self) -> HarnessGymClient:
        """The underlying asyncio client (use it only through this env's thread)."""
        return self._env.client

    @property
    def messages(self) -> List[Dict[str, Any]]:
        """The whole conversation so far (see :attr:`AsyncHarnessGymEnv.messages`)."""
        return self._env.messages

    @property
    def tools(self) -> List[Dict[str, Any]]:
        """The current tool schemas in the episode's surface names."""
        return self._env.tools

    def reset(self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None) -> Tuple[Observation, Info]:
        """See :meth:`AsyncHarnessGymEnv.reset`."""
        return self._thread.run(self._env.reset(seed=seed, options=options))

    def step(self, action: Action) -> StepReturn:
        """See :meth:`AsyncHarnessGymEnv.step`."""
        return self._thread.run(self._env.step(action))

    def close(self) -> None:
        """End the session (every episode is freed) and stop the loop thread."""
        try:
            self._thread.run(self._env.client.close())
        finally:
            self._thread.stop()

    def __enter__(self) -> "HarnessGymEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
