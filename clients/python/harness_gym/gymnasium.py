"""A real Gymnasium environment over the harness-gym server: ``HarnessGym-v0``.

Importing this module (it needs the ``gymnasium`` package, which ``import harness_gym`` never does)
registers ``HarnessGym-v0``::

    import gymnasium as gym
    import harness_gym.gymnasium  # registers HarnessGym-v0

    env = gym.make("HarnessGym-v0", url="ws://127.0.0.1:8080/v1/env", options={"variant": "train"})
    obs, info = env.reset(seed=2**40)            # any Python int: seeds go through env.np_random
    obs, reward, terminated, truncated, info = env.step("<a completion>")

:class:`HarnessGymnasiumEnv` is a :class:`gymnasium.Env`:

- **observation** ``{"messages": (message, ...), "tools": str}``: the whole conversation so far (the
  reset messages, the agent's own turns as it sent them, every message the environment added), each
  message a dict with the fixed keys ``role``, ``content``, ``reasoning_content``, ``tool_calls`` (the
  OpenAI ``tool_calls`` list as JSON text) and ``tool_call_id`` (``""`` where the message has none), and
  the episode's current tool schemas (OpenAI ``{type: "function", function: {...}}``, as JSON text).
  :func:`chat_messages` turns the messages back into OpenAI chat messages.
- **action** a string: the raw completion, parsed by the episode's parser (``hermes``, ``qwen3_xml``,
  ``auto``: tool calls may be written in the text). ``step`` also takes the wire forms as mappings,
  ``{"text": ...}`` or ``{"message": {"role": "assistant", "content": ..., "tool_calls": [...]}}`` (a
  structured tool call), which the declared :class:`UnicodeText` space does not describe.
- **seeds**: ``reset(seed=s)`` seeds ``self.np_random`` (``super().reset(seed=s)``; a negative ``s``
  seeds it through its own ``SeedSequence``, since Gymnasium refuses negative seeds) and every reset draws
  the server's uint32 seed from ``self.np_random``, so any Python int works and the same seed gives the
  same episode; ``info["server_seed"]`` is the seed sent.
- **render** ``"ansi"`` (``render()`` returns the conversation as text) or ``"human"`` (printed as it
  grows, at each reset and step).

Rewards, ``terminated`` and ``truncated`` are the server's (docs/PROTOCOL.md "Episodes"); ``info`` is the
server's ``info`` plus ``server_seed``, its numbers as floats and its nulls left out (:func:`gymnasium_info`:
Gymnasium's vector envs batch each key by the type of its first value). One WebSocket connection per env, on a private event loop thread
(as :class:`harness_gym.gym.HarnessGymEnv`).
"""

from __future__ import annotations

import json
import operator
import sys
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        "harness_gym.gymnasium needs Gymnasium (and NumPy): install it with `pip install gymnasium`. "
        "The rest of harness_gym (HarnessGymClient, HarnessGymEnv, VectorEnv) works without it. (%s)" % e
    ) from e

from .client import ReconnectPolicy
from .gym import HarnessGymEnv

__all__ = [
    "ENV_ID",
    "MESSAGE_KEYS",
    "HarnessGymnasiumEnv",
    "UnicodeText",
    "chat_messages",
    "conversation_text",
]

#: The registered id.
ENV_ID = "HarnessGym-v0"

#: The keys of every message of an observation (a Gymnasium ``Dict`` needs the same keys in every sample).
MESSAGE_KEYS = ("role", "content", "reasoning_content", "tool_calls", "tool_call_id")

#: Characters :meth:`UnicodeText.sample` draws from (the space itself contains any string).
SAMPLE_CHARSET = "".join(
    dict.fromkeys("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.?!好的宝宝稍等一下这个商品有货吗价格多少发货时间链接")
)  # no repeats: Text needs its charset's list and set to be the same size

#: Spawn key of the SeedSequence behind a negative seed (Gymnasium's own seeding refuses them).
NEGATIVE_SEED_KEY = 0x6E656761  # "nega"

#: Upper bounds used when the server does not announce its limits (protocol defaults).
DEFAULT_MAX_ACTION_CHARS = 65536
DEFAULT_MAX_FRAME_BYTES = 4 << 20


class UnicodeText(spaces.Text):
    """A :class:`gymnasium.spaces.Text` over all of Unicode: it contains every ``str`` of ``min_length``
    to ``max_length`` characters (``Text`` needs an explicit, finite charset, and a conversation may hold
    any character). ``sample()`` draws from ``charset`` (ASCII letters, digits and some Chinese by
    default). Vector envs batch it as a ``Text`` (a tuple of strings)."""

    def __init__(
        self,
        max_length: int,
        *,
        min_length: int = 0,
        charset: Union[str, frozenset] = SAMPLE_CHARSET,
        seed: Optional[Union[int, np.random.Generator]] = None,
    ) -> None:
        super().__init__(max_length, min_length=min_length, charset=charset, seed=seed)

    def contains(self, x: Any) -> bool:
        """Any string whose length is within the bounds."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return "UnicodeText(%d, %d)" % (self.min_length, self.max_length)

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
            and self.character_set == other.character_set
        )


def message_space(max_chars: int) -> spaces.Dict:
    """The space of one message of an observation (see :data:`MESSAGE_KEYS`)."""
    return spaces.Dict(
        {
            "role": spaces.Text(16, min_length=1, charset="abcdefghijklmnopqrstuvwxyz_"),
            "content": UnicodeText(max_chars),
            "reasoning_content": UnicodeText(max_chars),
            "tool_calls": UnicodeText(max_chars),
            "tool_call_id": UnicodeText(max_chars),
        }
    )


def observation_message(message: Mapping[str, Any]) -> Dict[str, str]:
    """One OpenAI chat message as an observation message (fixed keys, strings, ``""`` where absent)."""
    content = message.get("content")
    if content is None:
        content = ""
    elif not isinstance(content, str):  # content parts: kept as their JSON text
        content = json.dumps(content, ensure_ascii=False)
    tool_calls = message.get("tool_calls")
    return {
        "role": str(message.get("role", "")),
        "content": content,
        "reasoning_content": str(message.get("reasoning_content") or ""),
        "tool_calls": json.dumps(tool_calls, ensure_ascii=False) if tool_calls else "",
        "tool_call_id": str(message.get("tool_call_id") or ""),
    }


def chat_messages(observation: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """OpenAI chat messages from an observation (or from its ``messages`` tuple), for a chat template:
    empty fields dropped, ``tool_calls`` parsed, an assistant message with tool calls and no text gets
    ``content: None``."""
    messages = observation["messages"] if isinstance(observation, Mapping) else observation
    out: List[Dict[str, Any]] = []
    for m in messages:
        message: Dict[str, Any] = {"role": m["role"], "content": m["content"]}
        if m["reasoning_content"]:
            message["reasoning_content"] = m["reasoning_content"]
        if m["tool_calls"]:
            message["tool_calls"] = json.loads(m["tool_calls"])
            if message["content"] == "":
                message["content"] = None
        if m["tool_call_id"]:
            message["tool_call_id"] = m["tool_call_id"]
        out.append(message)
    return out


#: Top-level ``info`` keys kept exactly as the server sends them (``oracle_action`` goes back as an action).
INFO_KEPT = ("turn", "server_seed", "oracle_action")


def info_value(value: Any) -> Any:
    """A value of ``info`` in the form Gymnasium's vector envs can batch: numbers as floats, nulls left out."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, Mapping):
        return {k: info_value(v) for k, v in value.items() if v is not None}
    return value  # lists: kept as they are (a vector env batches them as objects)


def gymnasium_info(info: Mapping[str, Any]) -> Dict[str, Any]:
    """The server's ``info`` made safe for ``gymnasium.vector`` (whose ``_add_info`` makes one array per key
    from its first value: an integer ``1`` would make ``0.75`` read as ``0``, and a later ``None`` fail):
    every number nested under ``reward_components``, ``reward_details``, ``segments``, ... becomes a float
    and a ``None`` (``segments.tool`` of an episode without tool calls) is left out; ``turn``,
    ``server_seed`` and ``oracle_action`` are kept as they are."""
    return {k: (v if k in INFO_KEPT else info_value(v)) for k, v in info.items() if v is not None}


def conversation_text(messages: List[Mapping[str, Any]]) -> str:
    """A conversation (OpenAI chat messages) as plain text, one block per message."""
    blocks = []
    for m in messages:
        role = str(m.get("role", "?"))
        head = "[%s]" % role if not m.get("tool_call_id") else "[%s %s]" % (role, m["tool_call_id"])
        lines = [head]
        if m.get("reasoning_content"):
            lines.append("(reasoning) " + str(m["reasoning_content"]))
        content = m.get("content")
        if content:
            lines.append(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False))
        for call in m.get("tool_calls") or []:
            fn = call.get("function", {})
            lines.append("-> %s(%s) [%s]" % (fn.get("name"), fn.get("arguments"), call.get("id")))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


class HarnessGymnasiumEnv(gymnasium.Env):
    """``HarnessGym-v0``: one harness-gym episode at a time over its own connection (module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        options: Optional[Mapping[str, Any]] = None,
        render_mode: Optional[str] = None,
        token: Optional[str] = None,
        encoding: str = "msgpack",
        reconnect: Optional[ReconnectPolicy] = ReconnectPolicy(),
        timeout_s: Optional[float] = 60.0,
    ) -> None:
        """Connect to ``url`` (``ws://HOST:PORT/v1/env``; default ``$HARNESS_GYM_URL``).

        ``options`` are the default reset options of every episode (``variant``, ``task``, ``parser``,
        ``locale``, ``max_turns``, ``rewards``, ``faults``, ``oracle_hints``, ...: docs/PROTOCOL.md
        ``ResetItem``); ``reset(options=...)`` adds to them for one episode. ``token``, ``encoding``,
        ``reconnect`` and ``timeout_s`` are :class:`~harness_gym.client.HarnessGymClient`'s.
        """
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError("render_mode must be one of %r or None, not %r" % (self.metadata["render_modes"], render_mode))
        if url is None:
            import os

            url = os.environ.get("HARNESS_GYM_URL")
            if not url:
                raise ValueError("HarnessGym-v0 needs url= (ws://HOST:PORT/v1/env) or HARNESS_GYM_URL")
        self.url = url
        self.render_mode = render_mode
        self.default_options: Dict[str, Any] = dict(options or {})
        self._closed = False
        self._rendered = 0
        self._full = False
        self._messages: List[Dict[str, Any]] = []
        self._tools: List[Dict[str, Any]] = []
        self._env = HarnessGymEnv(url, token=token, encoding=encoding, reconnect=reconnect, timeout_s=timeout_s)
        limits = self._env.client.limits
        max_chars = int(limits.get("max_frame_bytes", DEFAULT_MAX_FRAME_BYTES))
        self.action_space = UnicodeText(int(limits.get("max_action_chars", DEFAULT_MAX_ACTION_CHARS)))
        self.observation_space = spaces.Dict(
            {
                "messages": spaces.Sequence(message_space(max_chars), stack=False),
                "tools": UnicodeText(max_chars),
            }
        )

    # -- the conversation ----------------------------------------------------------------------------

    @property
    def messages(self) -> List[Dict[str, Any]]:
        """The whole conversation so far as OpenAI chat messages (as received and sent)."""
        return self._messages

    @property
    def tools(self) -> List[Dict[str, Any]]:
        """The episode's current tool schemas (OpenAI form)."""
        return self._tools

    @property
    def episode_id(self) -> Optional[str]:
        """The server's id of the current episode."""
        return self._env._env.episode_id

    def _observation(self) -> Dict[str, Any]:
        return {
            "messages": tuple(observation_message(m) for m in self._messages),
            "tools": json.dumps(self._tools, ensure_ascii=False),
        }

    # -- Gymnasium API ---------------------------------------------------------------------------------

    def _seed(self, seed: Optional[int]) -> None:
        """Seed ``self.np_random``: Gymnasium's way for ``seed >= 0``, its own SeedSequence below 0."""
        if seed is None:
            super().reset(seed=None)
            return
        seed = operator.index(seed)
        if seed >= 0:
            super().reset(seed=seed)
        else:
            sequence = np.random.SeedSequence(-seed, spawn_key=(NEGATIVE_SEED_KEY,))
            self._np_random = np.random.Generator(np.random.PCG64(sequence))
            self._np_random_seed = seed

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None
    ) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """Start an episode. ``seed``: any int (or None: the next draw of ``np_random``); ``options``: added
        to the env's default options for this episode."""
        self._seed(seed)
        server_seed = int(self.np_random.integers(0, 2**32))
        merged = dict(self.default_options)
        merged.update(options or {})
        merged.setdefault("observation", "delta")
        self._full = merged["observation"] == "full"
        observation, info = self._env.reset(seed=server_seed, options=merged)
        self._messages = list(observation.get("messages", []))
        self._tools = list(observation.get("tools", []))
        self._rendered = 0
        info = gymnasium_info(info)
        info["server_seed"] = server_seed
        if self.render_mode == "human":
            self._render_human(new_episode=True)
        return self._observation(), info

    def step(self, action: Union[str, Mapping[str, Any]]) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        """One assistant turn: a completion string, or ``{"text"}`` / ``{"message"}`` (the wire forms)."""
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, str):
            action = str(action)  # numpy str_ -> str
        observation, reward, terminated, truncated, info = self._env.step(action)
        if self._full:
            self._messages = list(observation.get("messages", []))
        else:
            self._messages = list(self._env.messages)
        if "tools" in observation:
            self._tools = list(observation["tools"])
        if self.render_mode == "human":
            self._render_human(new_episode=False)
        return self._observation(), float(reward), bool(terminated), bool(truncated), gymnasium_info(info)

    def render(self) -> Optional[str]:
        """``"ansi"``: the conversation so far as text. ``"human"``: printed already at each reset and step
        (returns None). No render mode: a warning, None."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode. "
                'You can specify the render_mode at initialization, e.g. gym.make("%s", render_mode="ansi")' % ENV_ID
            )
            return None
        if self.render_mode == "ansi":
            return conversation_text(self._messages)
        self._render_human(new_episode=False)
        return None

    def _render_human(self, new_episode: bool) -> None:
        if new_episode:
            sys.stdout.write("==== episode %s ====\n" % (self.episode_id,))
        text = conversation_text(self._messages[self._rendered :])
        self._rendered = len(self._messages)
        if text:
            sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def close(self) -> None:
        """End the session (the server frees its episodes) and stop the loop thread; closing twice is fine."""
        if self._closed:
            return
        self._closed = True
        self._env.close()


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="harness_gym.gymnasium:HarnessGymnasiumEnv", nondeterministic=False)
