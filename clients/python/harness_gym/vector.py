"""A vector env that keeps ``num_envs`` episodes in flight over one session, in GRPO groups.

Slots are grouped ``group_size`` at a time (slots ``0..G-1`` are the first group, and so on); each group
shares one ``group_id``, so the server gives its members the same task (and, with the default
``group_share: "task+variant"``, the same variant): the siblings GRPO compares. Episodes of a group end at
different steps; a slot whose episode ended waits (its action is ignored, its observation is ``None``)
until all its siblings have ended. On the step where the last one ends, the group's final rewards are
queued for :meth:`AsyncVectorEnv.finished_groups`, and with ``autoreset=True`` the *next* ``step`` resets
the whole group on a new task (Gymnasium's "next step" autoreset: those slots are not stepped then, and
return the reset observation, reward 0 and ``info["autoreset"] = True``). Several groups can end on the
same step, so one ``finished_groups()`` call may return several.

Seeds: with a base ``seed``, group ``k`` (counting the groups started since the env was last seeded, by
the constructor or by ``reset(seed=...)``) gets seed ``seed + k`` (Gymnasium's batched-seed convention);
without one, the server draws each group's seed from the session's stream. Only a group's first member
carries the seed (the protocol's rule). Group ids ``<prefix>-g<n>`` count every group this env ever
started and are never reused: the server keeps a group for the whole session, so a reused id would join
the old group (and a different seed for it is ``INVALID_MESSAGE``).
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .client import HarnessGymClient
from .errors import unwrap
from .gym import Action, Info, LoopThread, Observation, reset_item, to_action

VectorStep = Tuple[List[Optional[Observation]], List[float], List[bool], List[bool], List[Info]]

_LIVE, _WAITING, _RESET_DUE, _IDLE = "live", "waiting", "reset_due", "idle"


@dataclass
class GroupResult:
    """One finished GRPO group: its members' final rewards and infos, in slot order.

    Every list has one entry per member (``group_size`` of them), index ``j`` being the group's ``j``-th
    slot. Only final values are kept: the trajectories are the caller's (observations are deltas).
    """

    #: The ``group_id`` sent to the server (``<prefix>-g<n>``; unique within the env's lifetime).
    group_id: str
    #: The seed sent with the group's first member, or ``None`` when the server drew it (then unknown here).
    seed: Optional[int]
    #: The members' episode ids: the slots' stable ids (``<prefix>-<slot>``), reused by the slot's next group.
    episode_ids: List[str]
    #: Each member's reward on its final step (terminated or truncated): the composite reward in [0, 1].
    rewards: List[float]
    #: Each member's ``info`` on its final step: ``outcome``, ``reward_components``, ``reward_details``,
    #: ``segments``, ``task_id``, ``variant_id``, ``turn``, ...
    infos: List[Info]
    #: The members' slots in the vector env.
    slots: List[int] = field(default_factory=list)

    def advantages(self, eps: float = 1e-6, scale: bool = True) -> List[float]:
        """GRPO advantages of the members: see :func:`group_advantages`."""
        return group_advantages(self.rewards, eps=eps, scale=scale)


def group_advantages(rewards: Sequence[float], eps: float = 1e-6, scale: bool = True) -> List[float]:
    """``(r - mean) / (std + eps)`` within one group (population std); ``scale=False`` skips the division
    (Dr. GRPO). A group whose rewards are all equal gets zero advantages: it carries no signal."""
    if not rewards:
        return []
    mean = sum(rewards) / len(rewards)
    centred = [r - mean for r in rewards]
    if not scale:
        return centred
    std = math.sqrt(sum(c * c for c in centred) / len(rewards))
    return [c / (std + eps) for c in centred]


class AsyncVectorEnv:
    """``num_envs`` episodes over one client, in groups of ``group_size`` (asyncio)."""

    def __init__(
        self,
        client: HarnessGymClient,
        num_envs: int,
        *,
        group_size: int = 1,
        seed: Optional[int] = None,
        options: Optional[Mapping[str, Any]] = None,
        autoreset: bool = True,
        prefix: str = "vec",
    ) -> None:
        """``options`` are the Gymnasium-style reset options of every episode (see ``gym.reset_item``)."""
        if num_envs < 1 or group_size < 1 or num_envs % group_size != 0:
            raise ValueError(f"num_envs ({num_envs}) must be a positive multiple of group_size ({group_size})")
        self.client = client
        self.num_envs = num_envs
        self.group_size = group_size
        self.autoreset = autoreset
        self._seed = seed
        self._options = dict(options or {})
        self._prefix = prefix
        #: Server episode id of each slot (stable: an ended, unclosed id is reset again).
        self.episode_ids = [f"{prefix}-{i}" for i in range(num_envs)]
        #: The current group id of each slot.
        self.group_ids: List[str] = [""] * num_envs
        self._group_seed: Dict[str, Optional[int]] = {}
        self._state = [_IDLE] * num_envs
        self._final: List[Optional[Tuple[float, Info]]] = [None] * num_envs
        #: Groups started since the last seeding: group ``k`` gets ``seed + k``.
        self._next_group = 0
        #: Groups ever started: the group ids, never reset (the server keeps groups for the session).
        self._group_serial = 0
        self._finished: List[GroupResult] = []

    @property
    def live(self) -> List[bool]:
        """Which slots expect an action on the next step."""
        return [s == _LIVE for s in self._state]

    def _new_group(self, slots: Sequence[int], seed: Optional[int]) -> List[Dict[str, Any]]:
        k = self._next_group
        self._next_group += 1
        group_id = f"{self._prefix}-g{self._group_serial}"
        self._group_serial += 1
        group_seed = None if seed is None else (seed + k) % 2**32
        self._group_seed[group_id] = group_seed
        items = []
        for n, slot in enumerate(slots):
            options = {**self._options, "episode_id": self.episode_ids[slot]}
            if self.group_size > 1:
                options["group_id"] = group_id
            items.append(reset_item(group_seed if n == 0 else None, options))
            self.group_ids[slot] = group_id
            self._state[slot] = _LIVE
            self._final[slot] = None
        return items

    def _groups(self) -> List[List[int]]:
        return [list(range(g, g + self.group_size)) for g in range(0, self.num_envs, self.group_size)]

    async def reset(
        self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None
    ) -> Tuple[List[Observation], List[Info]]:
        """Reset every slot in one batch (new groups). ``seed``/``options`` replace the constructor's.

        Episodes still running are closed first (the protocol refuses to reset a live episode id:
        ``DUPLICATE_EPISODE``); their unfinished groups are dropped, and so are finished groups not yet
        taken with :meth:`finished_groups`. A ``seed`` restarts the seed count: group ``k`` after this
        reset gets ``seed + k``.
        """
        live = [self.episode_ids[i] for i in range(self.num_envs) if self._state[i] == _LIVE]
        if live:
            await self.client.close_episodes(live)
        if seed is not None:
            self._seed = seed
            self._next_group = 0
        if options is not None:
            self._options = dict(options)
        self._finished.clear()
        self._group_seed.clear()
        items: List[Dict[str, Any]] = []
        for slots in self._groups():
            items.extend(self._new_group(slots, self._seed))
        results = [unwrap(r) for r in await self.client.reset(items)]
        return [r["observation"] for r in results], [r["info"] for r in results]

    async def step(self, actions: Sequence[Optional[Action]]) -> VectorStep:
        """Step every live slot with its action (entries for other slots are ignored; pass ``None``).

        Returns per-slot lists ``(observations, rewards, terminated, truncated, infos)``. A live slot gives
        its step result (reward 0 until its final step). A slot whose episode ended, or that is idle, gives
        ``None``, 0.0, False, False, ``{"waiting": True}``. A slot of a group that finished on the previous
        step (``autoreset=True``) is reset, not stepped, in a reset frame sent alongside the step frame: it
        gives the reset observation, 0.0, False, False and the reset info with ``"autoreset": True``, and
        is live from the next call. Item errors raise their typed exception.
        """
        if len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(actions)}")
        observations: List[Optional[Observation]] = [None] * self.num_envs
        rewards = [0.0] * self.num_envs
        terminated = [False] * self.num_envs
        truncated = [False] * self.num_envs
        infos: List[Info] = [{"waiting": True} for _ in range(self.num_envs)]

        step_slots = [i for i in range(self.num_envs) if self._state[i] == _LIVE]
        for i in step_slots:
            if actions[i] is None:
                raise ValueError(f"slot {i} is live and needs an action")
        reset_slots: List[int] = []
        reset_items: List[Dict[str, Any]] = []
        for slots in self._groups():
            if self._state[slots[0]] == _RESET_DUE:
                reset_slots.extend(slots)
                reset_items.extend(self._new_group(slots, self._seed))
        step_items = [{"episode_id": self.episode_ids[i], "action": to_action(actions[i])} for i in step_slots]  # type: ignore[arg-type]

        calls = []
        if step_items:
            calls.append(self.client.step(step_items))
        if reset_items:
            calls.append(self.client.reset(reset_items))
        replies = await asyncio.gather(*calls)
        step_results = replies[0] if step_items else []
        reset_results = replies[-1] if reset_items else []

        for i, raw in zip(step_slots, step_results):
            r = unwrap(raw)
            observations[i], rewards[i] = r["observation"], float(r["reward"])
            terminated[i], truncated[i], infos[i] = bool(r["terminated"]), bool(r["truncated"]), r["info"]
            if terminated[i] or truncated[i]:
                self._state[i] = _WAITING
                self._final[i] = (rewards[i], r["info"])
        for i, raw in zip(reset_slots, reset_results):
            r = unwrap(raw)
            observations[i], infos[i] = r["observation"], {**r["info"], "autoreset": True}
        self._collect()
        return observations, rewards, terminated, truncated, infos

    def _collect(self) -> None:
        """Queue every group whose members have all ended, and mark it for autoreset (or idle)."""
        for slots in self._groups():
            if not all(self._state[i] == _WAITING for i in slots):
                continue
            finals = [self._final[i] for i in slots]
            group_id = self.group_ids[slots[0]]
            self._finished.append(
                GroupResult(
                    group_id=group_id,
                    # Popped: a long run starts millions of groups.
                    seed=self._group_seed.pop(group_id, None),
                    episode_ids=[self.episode_ids[i] for i in slots],
                    rewards=[f[0] for f in finals if f is not None],
                    infos=[f[1] for f in finals if f is not None],
                    slots=list(slots),
                )
            )
            for i in slots:
                self._state[i] = _RESET_DUE if self.autoreset else _IDLE

    def finished_groups(self) -> List[GroupResult]:
        """Take the groups finished since the last call, in the order they finished."""
        out, self._finished = self._finished, []
        return out

    @property
    def all_idle(self) -> bool:
        """With ``autoreset=False``: True once every group has finished."""
        return all(s == _IDLE for s in self._state)

    async def close(self) -> None:
        """Close the slots' episodes on the server (the client stays open)."""
        await self.client.close_episodes(self.episode_ids)
        self._state = [_IDLE] * self.num_envs


class VectorEnv:
    """Blocking form of :class:`AsyncVectorEnv` with its own connection and background event loop."""

    def __init__(self, url: str, num_envs: int, *, client_options: Optional[Mapping[str, Any]] = None, **vector_options: Any) -> None:
        """``client_options`` go to ``HarnessGymClient.connect``; the rest to ``AsyncVectorEnv``."""
        self._thread = LoopThread()
        try:
            client = self._thread.run(HarnessGymClient.connect(url, **dict(client_options or {})))
        except BaseException:
            self._thread.stop()
            raise
        self._env = AsyncVectorEnv(client, num_envs, **vector_options)

    @property
    def env(self) -> AsyncVectorEnv:
        """The wrapped asyncio vector env."""
        return self._env

    def reset(self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None) -> Tuple[List[Observation], List[Info]]:
        """See :meth:`AsyncVectorEnv.reset`."""
        return self._thread.run(self._env.reset(seed=seed, options=options))

    def step(self, actions: Sequence[Optional[Action]]) -> VectorStep:
        """See :meth:`AsyncVectorEnv.step`."""
        return self._thread.run(self._env.step(actions))

    def finished_groups(self) -> List[GroupResult]:
        """See :meth:`AsyncVectorEnv.finished_groups`."""
        return self._env.finished_groups()

    def close(self) -> None:
        """End the session and stop the loop thread."""
        try:
            self._thread.run(self._env.client.close())
        finally:
            self._thread.stop()
