"""``ShardedClient``: episodes over several server replicas, placed by seed, with failover to survivors.

Replicas of the server share nothing (docs/DEPLOY.md), so a trainer that outgrows one server runs N of
them and spreads its episodes: one session per replica, each episode placed on one replica by a rule
that this client and the TypeScript one (``client/sharded.ts``) apply alike.

**The placement rule.** For a reset item::

    shard_key     = item["group_id"] if the item has a group_id, else str(item["seed"])
    replica index = fnv1a32(shard_key) % len(live_urls)

``fnv1a32`` is 32-bit FNV-1a over the key's UTF-8 bytes (offset basis 0x811C9DC5, prime 0x01000193;
``fnv1a32("a") == 0xE40C292C``, ``fnv1a32("foobar") == 0xBF9CF968``); ``str(seed)`` is the decimal seed;
``live_urls`` are the URLs the client was given, **in the order given**, minus those of replicas that
are down or resuming a dropped connection (give every worker the same list in the same order;
:func:`urls_from_dns` sorts). So:

- the same seed lands on the same replica from every process and every client (Python or TypeScript)
  that sees the same live replicas; a group's members (one ``group_id``) land together, so the server
  can give them one task and variant (PROTOCOL.md "Groups"); siblings that share a seed but no group
  (``harness_gym.train.group_rows``) land together too;
- when the live set changes, most keys move (the modulus changed): placement is stable while the
  replicas are, which is when it matters, since a group lives in one session anyway;
- a group, once placed, stays on its replica's session even if the live set changes meanwhile (the
  client remembers the last ``group_memory`` groups it placed): if that replica dies, later members of
  the group fail with ``REPLICA_DOWN`` ("the group is lost") rather than start another task elsewhere;
- a second item for one episode id in one call goes with the first, and an episode id that is live
  (reset, not ended) on a replica goes there: the server then answers ``DUPLICATE_EPISODE``, as one
  server would; an ended one is placed afresh (and closed where it was, if it moves);
- an item with neither a group nor a seed goes round-robin over the live replicas (the server draws its
  seed from that replica's session stream); with no live replica an item fails with ``NO_REPLICA``.

**Sessions and seeds.** Replica ``i``'s first session is opened with ``hello.seed = (seed + i) % 2**32``
(with ``seed``), a later one (after a rejoin) with ``fnv1a32(f"{seed}:{i}:{sessions so far}")``, so the
replicas' seed streams differ; without ``seed`` each session gets a random one. Episode ids are scoped
to a session, so the client names every episode a reset item leaves unnamed (``<prefix>-<n>``); ids you
choose must be unique across the client, as with one server.

**When a replica dies.** A dropped connection is first resumed, as :class:`HarnessGymClient` does
(``reconnect``, default 3 tries from 0.2 s, doubling); while it resumes, the replica takes no new
placements (its episodes' requests wait). If the resume fails, or the server ends the session (a
drained replica closes with 1001, or answers ``SHUTTING_DOWN``), the replica is **down**: every request
in flight to it, and every later request about an episode or group that lived on it, fails alone as the
item error ``{ok: false, episode_id, error: {code: "REPLICA_DOWN", message: "replica <url> went down;
episode <id> is lost (<cause>)", details: {replica: <url>, cause}}}`` (``unwrap`` raises
:class:`~harness_gym.errors.ReplicaDownError`, with ``.replica`` and ``.episode_id``); the other
replicas' items in the same call are answered as usual. New episodes are placed over the survivors. In
the background the client reconnects to the dead replica with a new session, ``retry.retries`` times
(:class:`ReplicaRetry`, default 5, 1 s apart and doubling up to 30 s); once one succeeds the replica is
live again (its old episodes stay lost) and counts in the rule again; after the last it is ``gone`` for
this client. ``REPLICA_DOWN`` and ``NO_REPLICA`` are client codes, never sent by a server.

The client has :class:`HarnessGymClient`'s batch methods (``reset``, ``step``, ``close_episodes``,
``close``), so :class:`~harness_gym.vector.AsyncVectorEnv` and
:class:`~harness_gym.gym.AsyncHarnessGymEnv` run on it unchanged, and
:class:`~harness_gym.train.EnvPool` uses it with ``sharded=True``. It never raises for one replica's
trouble: a frame-level error of one replica's frame (``CLIENT_TIMEOUT``, ``BATCH_TOO_LARGE``, ...) fails
that frame's items with its code, ``details.replica`` naming the replica. ``connect`` raises
:class:`~harness_gym.errors.NoReplicaError` (``NO_REPLICA``) when it reaches no replica, or a refusal no
retry can fix (``UNAUTHORIZED``, ``PROTOCOL_VERSION``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import random
import socket
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .client import HarnessGymClient, ReconnectPolicy
from .errors import (
    ConnectionClosedError,
    HarnessGymError,
    NoReplicaError,
    ProtocolVersionError,
    ShuttingDownError,
    UnauthorizedError,
)

Message = Dict[str, Any]

FNV_OFFSET_BASIS = 0x811C9DC5
FNV_PRIME = 0x01000193


def fnv1a32(text: str) -> int:
    """32-bit FNV-1a of ``text``'s UTF-8 bytes."""
    h = FNV_OFFSET_BASIS
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * FNV_PRIME) & 0xFFFFFFFF
    return h


def shard_key(item: Mapping[str, Any]) -> Optional[str]:
    """The key a reset item is placed by: its ``group_id``, else its decimal ``seed``, else ``None``
    (round-robin)."""
    group = item.get("group_id")
    if isinstance(group, str):
        return group
    seed = item.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool):
        return str(seed)
    return None


def shard_index(key: str, replicas: int) -> int:
    """``fnv1a32(key) % replicas``: the index into the live URLs of the replica a key goes to."""
    if replicas < 1:
        raise ValueError("no replica to shard over")
    return fnv1a32(key) % replicas


def urls_from_dns(host: str, port: int = 8080, *, path: str = "/v1/env", scheme: str = "ws") -> List[str]:
    """One URL per address ``host`` resolves to, sorted by address (IPv4 first), so that every process
    resolving the same name (a Kubernetes headless Service) gets the same list in the same order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = sorted({ipaddress.ip_address(info[4][0]) for info in infos}, key=lambda a: (a.version, a))
    return [f"{scheme}://{a if a.version == 4 else f'[{a}]'}:{port}{path}" for a in addresses]


@dataclass(frozen=True)
class ReplicaRetry:
    """Tries to reconnect to a dead replica: ``retries`` of them, ``backoff_s`` apart (the first after
    ``backoff_s``), doubling up to ``max_backoff_s``. ``retries=0``: a dead replica is gone at once.
    The default is the TypeScript client's ``rejoin`` default."""

    retries: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0


#: How a replica's own client resumes a dropped connection before the replica counts as down (the
#: TypeScript client's default too): 3 tries from 0.2 s, doubling.
REPLICA_RECONNECT = ReconnectPolicy(retries=3, backoff_s=0.2)


@dataclass(frozen=True)
class ReplicaStatus:
    """One replica as the client sees it (:meth:`ShardedClient.replicas`)."""

    index: int
    url: str
    #: ``live`` (takes new episodes), ``reconnecting`` (a drop being resumed; its episodes wait), ``down``
    #: (dead, being retried) or ``gone`` (every retry failed).
    state: str
    #: The current session's id (``None`` when down).
    session_id: Optional[str]
    #: Sessions opened on this replica so far (1 at first; each successful retry adds one).
    sessions: int
    #: Retries made since it last went down.
    retries: int
    #: Why it last went down (``None`` if it never did).
    last_error: Optional[str]
    #: Episodes of the current session this client placed there and has not closed.
    episodes: int = 0

    @property
    def up(self) -> bool:
        """``live`` or ``reconnecting``: its session is held."""
        return self.state in ("live", "reconnecting")


class _Replica:
    def __init__(self, index: int, url: str) -> None:
        self.index = index
        self.url = url
        self.client: Optional[HarnessGymClient] = None
        #: Sessions opened; an episode or group remembers the epoch it was placed in.
        self.epoch = 0
        self.up = False
        self.gone = False
        self.retries = 0
        self.last_error: Optional[str] = None
        self.revive: Optional["asyncio.Task[None]"] = None

    @property
    def state(self) -> str:
        if self.gone:
            return "gone"
        if not self.up or self.client is None:
            return "down"
        return "live" if self.client.state == "open" else "reconnecting"


@dataclass
class _Episode:
    replica: int
    epoch: int
    live: bool


class ShardedClient:
    """Several replicas behind one client: one session each, episodes placed by seed (module docstring).

    Create it with :meth:`connect`. ``reset`` / ``step`` / ``close_episodes`` take and return what
    :class:`HarnessGymClient`'s do, one result per item in item order.
    """

    def __init__(
        self,
        urls: Sequence[str],
        *,
        token: Optional[str] = None,
        seed: Optional[int] = None,
        client_name: str = "harness-gym-python/sharded",
        encoding: str = "msgpack",
        reconnect: Optional[ReconnectPolicy] = REPLICA_RECONNECT,
        timeout_s: Optional[float] = 60.0,
        retry: ReplicaRetry = ReplicaRetry(),
        prefix: Optional[str] = None,
        group_memory: int = 65536,
    ) -> None:
        """Prefer :meth:`connect`, which also opens the sessions."""
        url_list = [urls] if isinstance(urls, str) else list(urls)
        if not url_list:
            raise ValueError("ShardedClient needs at least one replica URL")
        if len(set(url_list)) != len(url_list):
            raise ValueError(f"replica URLs must be distinct: {url_list}")
        self.urls: Tuple[str, ...] = tuple(url_list)
        self._replicas = [_Replica(i, u) for i, u in enumerate(url_list)]
        self._client_options: Dict[str, Any] = dict(
            token=token, client_name=client_name, encoding=encoding, reconnect=reconnect, timeout_s=timeout_s
        )
        self._seed = seed
        self._random = random.Random()
        self.retry = retry
        tag = f"{random.getrandbits(32):08x}"
        self._prefix = prefix if prefix is not None else f"sh{tag}"
        #: A stable id for the whole client (it holds one session per replica): ``EnvPool`` checks it.
        self.session_id = f"sharded-{tag}"
        self._ids = itertools.count()
        self._round_robin = itertools.count()
        self._episodes: Dict[Any, _Episode] = {}
        self._groups: "OrderedDict[str, Tuple[int, int]]" = OrderedDict()
        self._group_memory = max(1, group_memory)
        self._closed = False
        self._background: List["asyncio.Task[Any]"] = []

    # ------------------------------------------------------------------------------------------------
    # connection life
    # ------------------------------------------------------------------------------------------------

    @classmethod
    async def connect(cls, urls: Union[str, Sequence[str]], **options: Any) -> "ShardedClient":
        """Open one session per replica, all at once. Replicas that cannot be reached start ``down`` (and
        are retried); :class:`~harness_gym.errors.NoReplicaError` if none can, and a refusal no retry
        can fix (``UNAUTHORIZED``, ``PROTOCOL_VERSION``) is raised as it is. The options are
        :class:`ShardedClient`'s (those of :meth:`HarnessGymClient.connect`, plus ``retry``, ``prefix``,
        ``group_memory``)."""
        client = cls(urls if not isinstance(urls, str) else [urls], **options)
        outcomes = await asyncio.gather(*(client._open(r) for r in client._replicas), return_exceptions=True)
        failures: Dict[str, str] = {}
        for replica, outcome in zip(client._replicas, outcomes):
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, Exception) or isinstance(outcome, (UnauthorizedError, ProtocolVersionError)):
                    await client.close()
                    raise outcome
                failures[replica.url] = f"{type(outcome).__name__}: {outcome}"
                client._mark_down(replica, None, failures[replica.url], retry=False)
        if len(failures) == len(client._replicas):
            await client.close()
            raise NoReplicaError("NO_REPLICA", f"no replica could be reached: {failures}", {"replicas": failures, "replica": " ".join(client.urls)})
        for replica in client._replicas:
            if not replica.up:
                client._start_revive(replica)
        return client

    def _hello_seed(self, replica: _Replica) -> int:
        if self._seed is not None and replica.epoch == 0:
            return (self._seed + replica.index) % 2**32
        if self._seed is not None:
            return fnv1a32(f"{self._seed}:{replica.index}:{replica.epoch}")
        return self._random.getrandbits(32)

    async def _open(self, replica: _Replica) -> None:
        client = await HarnessGymClient.connect(replica.url, seed=self._hello_seed(replica), **self._client_options)
        if self._closed:
            await client.close()
            return
        replica.client = client
        replica.epoch += 1
        replica.up = True
        replica.gone = False
        replica.retries = 0

    def _mark_down(self, replica: _Replica, client: Optional[HarnessGymClient], cause: str, *, retry: bool = True) -> None:
        """The replica (its session ``client``) is dead: stop placing on it and retry it in the background."""
        if client is not None and replica.client is not client:
            return  # an older session's failure, reported late: the replica has a new one
        was_up = replica.up
        replica.up = False
        replica.last_error = cause
        old, replica.client = replica.client, None
        if old is not None and not old.is_closed:
            self._spawn(old.close())
        if was_up and retry:
            self._start_revive(replica)

    def _start_revive(self, replica: _Replica) -> None:
        if self._closed or replica.gone or (replica.revive is not None and not replica.revive.done()):
            return
        if self.retry.retries <= 0:
            replica.gone = True
            return
        replica.retries = 0
        replica.revive = self._spawn(self._revive(replica))

    async def _revive(self, replica: _Replica) -> None:
        delay = self.retry.backoff_s
        for _ in range(self.retry.retries):
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.retry.max_backoff_s)
            if self._closed:
                return
            replica.retries += 1
            try:
                await self._open(replica)
                return
            except Exception as exc:  # unreachable, draining (SHUTTING_DOWN on hello), full, ...
                replica.last_error = f"{type(exc).__name__}: {exc}"
        replica.gone = True

    def _spawn(self, coro: Any) -> "asyncio.Task[Any]":
        task = asyncio.get_running_loop().create_task(coro)
        self._background.append(task)
        task.add_done_callback(lambda t: self._background.remove(t) if t in self._background else None)
        return task

    def _refresh(self) -> None:
        """Notice replicas whose session ended since the last call (a failed resume, a server's close)."""
        for replica in self._replicas:
            client = replica.client
            if replica.up and client is not None and client.is_closed:
                error = client.close_error
                self._mark_down(replica, client, str(error) if error is not None else "the session ended")

    async def close(self) -> None:
        """End every replica's session cleanly (the servers free their episodes) and stop retrying."""
        if self._closed:
            return
        self._closed = True
        for replica in self._replicas:
            if replica.revive is not None:
                replica.revive.cancel()
        clients = [r.client for r in self._replicas if r.client is not None]
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def __aenter__(self) -> "ShardedClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # ------------------------------------------------------------------------------------------------
    # what the client knows
    # ------------------------------------------------------------------------------------------------

    @property
    def is_closed(self) -> bool:
        """True once :meth:`close` ran, or every replica is ``gone``."""
        return self._closed or all(r.gone for r in self._replicas)

    @property
    def live_urls(self) -> List[str]:
        """The URLs new episodes are placed over now, in the order given."""
        self._refresh()
        return [r.url for r in self._live()]

    def replicas(self) -> List[ReplicaStatus]:
        """Every replica's state, in the order given."""
        self._refresh()
        held = [0] * len(self._replicas)
        for episode in self._episodes.values():
            if self._current(episode.replica, episode.epoch):
                held[episode.replica] += 1
        return [
            ReplicaStatus(
                index=r.index,
                url=r.url,
                state=r.state,
                session_id=r.client.session_id if r.up and r.client is not None else None,
                sessions=r.epoch,
                retries=r.retries,
                last_error=r.last_error,
                episodes=held[r.index],
            )
            for r in self._replicas
        ]

    def replica_of(self, episode_id: Any) -> Optional[str]:
        """The URL of the replica an episode was started on (``None`` if the client does not know it)."""
        episode = self._episodes.get(episode_id)
        return self._replicas[episode.replica].url if episode is not None else None

    def place(self, item: Mapping[str, Any]) -> Optional[str]:
        """The URL a new reset item would go to now (a group already placed goes where it is); ``None``
        when no replica is live or the item would go round-robin. Nothing is recorded."""
        self._refresh()
        group = item.get("group_id")
        if isinstance(group, str) and group in self._groups:
            return self._replicas[self._groups[group][0]].url
        key = shard_key(item)
        live = self._live()
        if key is None or not live:
            return None
        return live[shard_index(key, len(live))].url

    @property
    def welcome(self) -> Message:
        """The ``welcome`` of the first live replica (limits, defaults, presets)."""
        for replica in self._live() or [r for r in self._replicas if r.up]:
            assert replica.client is not None
            return replica.client.welcome
        raise NoReplicaError("NO_REPLICA", "no replica is live", {"replicas": list(self.urls)})

    @property
    def limits(self) -> Message:
        """``welcome.limits`` of the first live replica."""
        return dict(self.welcome["limits"])

    @property
    def encoding(self) -> str:
        """``msgpack`` (binary frames) or ``json`` (text frames)."""
        return str(self._client_options["encoding"])

    @property
    def pending_count(self) -> int:
        """Requests sent to any replica and not yet answered."""
        return sum(r.client.pending_count for r in self._replicas if r.client is not None)

    def _live(self) -> List[_Replica]:
        """Replicas new episodes are placed on: up and not resuming a dropped connection."""
        return [r for r in self._replicas if r.up and r.client is not None and r.client.state == "open"]

    def _current(self, index: int, epoch: int) -> bool:
        replica = self._replicas[index]
        return replica.up and replica.epoch == epoch and replica.client is not None

    # ------------------------------------------------------------------------------------------------
    # requests
    # ------------------------------------------------------------------------------------------------

    async def reset(self, items: Sequence[Mapping[str, Any]]) -> List[Message]:
        """Reset a batch of episodes, each on the replica the rule gives; one result per item, in order."""
        self._check_open()
        self._refresh()
        live = self._live()
        results: List[Optional[Message]] = [None] * len(items)
        routes: Dict[int, List[Tuple[int, Dict[str, Any]]]] = {}
        in_call: Dict[Any, int] = {}
        moved: List[Tuple[int, int, Any]] = []
        for pos, raw in enumerate(items):
            item = dict(raw)
            if item.get("episode_id") is None:
                item["episode_id"] = f"{self._prefix}-{next(self._ids)}"
            episode_id = item["episode_id"]
            target, error = self._place_reset(item, in_call, live)
            if error is not None:
                results[pos] = error
                continue
            assert target is not None
            in_call[_hashable(episode_id)] = target
            previous = self._episodes.get(_hashable(episode_id))
            if previous is not None and previous.replica != target and self._current(previous.replica, previous.epoch):
                moved.append((previous.replica, previous.epoch, episode_id))
            routes.setdefault(target, []).append((pos, item))
        # An ended episode id reset on another replica than before: close it where it was (housekeeping).
        for index, epoch, episode_id in moved:
            client = self._replicas[index].client
            if client is not None and self._current(index, epoch):
                self._spawn(_quiet(client.close_episodes([episode_id])))
        await asyncio.gather(*(self._send(index, "reset", entries, results) for index, entries in routes.items()))
        return [r if r is not None else _item_error(None, "INTERNAL", "no result") for r in results]

    def _place_reset(self, item: Dict[str, Any], in_call: Dict[Any, int], live: List[_Replica]) -> Tuple[Optional[int], Optional[Message]]:
        episode_id = item["episode_id"]
        key_id = _hashable(episode_id)
        if key_id in in_call:
            return in_call[key_id], None  # a second item for one episode in one call: the server refuses it
        known = self._episodes.get(key_id)
        if known is not None and known.live and self._current(known.replica, known.epoch):
            return known.replica, None  # live: the replica answers DUPLICATE_EPISODE, as one server would
        group = item.get("group_id")
        if isinstance(group, str) and group in self._groups:
            index, epoch = self._groups[group]
            self._groups.move_to_end(group)
            if self._current(index, epoch):
                return index, None
            # Its siblings' session is gone: placed elsewhere it would start another task, silently.
            replica = self._replicas[index]
            return None, _lost(episode_id, replica, f"the replica of group {group}, {replica.url}, went down; the group is lost")
        if not live:
            return None, _item_error(episode_id, "NO_REPLICA", "no replica is live", {"replicas": list(self.urls)})
        key = shard_key(item)
        target = live[next(self._round_robin) % len(live)] if key is None else live[shard_index(key, len(live))]
        if isinstance(group, str):
            self._groups[group] = (target.index, target.epoch)
            while len(self._groups) > self._group_memory:
                self._groups.popitem(last=False)
        return target.index, None

    async def step(self, items: Sequence[Mapping[str, Any]]) -> List[Message]:
        """Step a batch of episodes, each on its replica; one result per item, in order."""
        self._check_open()
        self._refresh()
        results: List[Optional[Message]] = [None] * len(items)
        routes: Dict[int, List[Tuple[int, Dict[str, Any]]]] = {}
        for pos, raw in enumerate(items):
            item = dict(raw)
            episode_id = item.get("episode_id")
            known = self._episodes.get(_hashable(episode_id))
            if known is None:
                results[pos] = _item_error(episode_id, "UNKNOWN_EPISODE", f"no episode {episode_id!r} in this client's sessions")
            elif not self._current(known.replica, known.epoch):
                results[pos] = _lost(episode_id, self._replicas[known.replica])
            else:
                routes.setdefault(known.replica, []).append((pos, item))
        await asyncio.gather(*(self._send(index, "step", entries, results) for index, entries in routes.items()))
        return [r if r is not None else _item_error(None, "INTERNAL", "no result") for r in results]

    async def close_episodes(self, episode_ids: Sequence[str]) -> Message:
        """Close episodes on their replicas: ``{episode_ids: [...closed], unknown: [...]}``. Episodes of a
        replica that went down are ``unknown`` (its session, and they, are gone)."""
        self._check_open()
        self._refresh()
        routes: Dict[int, List[Any]] = {}
        unknown: List[Any] = []
        for episode_id in episode_ids:
            known = self._episodes.pop(_hashable(episode_id), None)
            if known is None or not self._current(known.replica, known.epoch):
                unknown.append(episode_id)
            else:
                routes.setdefault(known.replica, []).append(episode_id)
        closed: List[Any] = []

        async def one(index: int, ids: List[Any]) -> None:
            replica = self._replicas[index]
            client = replica.client
            assert client is not None
            try:
                reply = await client.close_episodes(ids)
            except (ConnectionClosedError, ShuttingDownError) as exc:
                self._mark_down(replica, client, str(exc))
                unknown.extend(ids)
                return
            except HarnessGymError:
                unknown.extend(ids)
                return
            closed.extend(reply["episode_ids"])
            unknown.extend(reply["unknown"])

        await asyncio.gather(*(one(index, ids) for index, ids in routes.items()))
        order = {_hashable(e): n for n, e in enumerate(episode_ids)}
        return {
            "episode_ids": sorted(closed, key=lambda e: order.get(_hashable(e), 0)),
            "unknown": sorted(unknown, key=lambda e: order.get(_hashable(e), 0)),
        }

    async def ping(self) -> None:
        """Round-trip a protocol ``ping`` on every live replica."""
        self._check_open()
        await asyncio.gather(*(r.client.ping() for r in self._live() if r.client is not None))

    async def _send(self, index: int, kind: str, entries: List[Tuple[int, Dict[str, Any]]], results: List[Optional[Message]]) -> None:
        replica = self._replicas[index]
        client, epoch = replica.client, replica.epoch
        assert client is not None
        items = [item for _, item in entries]
        try:
            replies = await (client.reset(items) if kind == "reset" else client.step(items))
        except (ConnectionClosedError, ShuttingDownError) as exc:
            # Dead (the resume failed, or the server closed the session) or draining: every item it held
            # is lost, and the replica takes no more.
            self._mark_down(replica, client, str(exc))
            for pos, item in entries:
                results[pos] = _lost(item.get("episode_id"), replica)
            return
        except HarnessGymError as exc:  # a frame-level error or a timeout: this replica's items fail with it
            for pos, item in entries:
                details: Dict[str, Any] = {"replica": replica.url}
                if exc.details is not None:
                    details["details"] = exc.details
                results[pos] = _item_error(item.get("episode_id"), exc.code, f"replica {replica.url}: {exc.message}", details)
            return
        for (pos, item), reply in zip(entries, replies):
            results[pos] = reply
            if reply.get("ok") is False:
                continue
            episode_id = _hashable(reply.get("episode_id", item.get("episode_id")))
            if kind == "reset":
                self._episodes[episode_id] = _Episode(index, epoch, True)
            elif reply.get("terminated") or reply.get("truncated"):
                known = self._episodes.get(episode_id)
                if known is not None:
                    known.live = False

    def _check_open(self) -> None:
        if self._closed:
            raise ConnectionClosedError("the sharded client is closed")


def _hashable(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


def _item_error(episode_id: Any, code: str, message: str, details: Optional[Any] = None) -> Message:
    error: Message = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    item: Message = {"ok": False, "error": error}
    if episode_id is not None:
        item["episode_id"] = episode_id
    return item


def _lost(episode_id: Any, replica: _Replica, why: Optional[str] = None) -> Message:
    """The item error of an episode (or a group member) whose replica went down, or whose session there is gone."""
    text = why or f"replica {replica.url} went down; episode {episode_id if episode_id is not None else '(unnamed)'} is lost"
    cause = replica.last_error
    return _item_error(episode_id, "REPLICA_DOWN", f"{text} ({cause or 'its session ended'})", {"replica": replica.url, "cause": cause})


async def _quiet(coro: Any) -> None:
    try:
        await coro
    except Exception:
        pass
