"""One pooled connection per worker process, shared by every env instance of that process.

Trainers make one env object per sample (verl's agent loops, OpenRLHF's agent instances, ROLL's env
managers), often hundreds per process. One WebSocket per object fills a server's ``max_sessions`` (256
by default) and sends one frame per step. :class:`EnvPool` instead holds one connection (or a few, see
``connections``) for the whole process and multiplexes every instance's resets, steps and closes into
batch frames: calls that arrive within ``linger_s`` of each other on the same connection go out as one
``reset`` / ``step`` / ``close`` frame (split at ``limits.max_batch``), and the replies are matched back
by request id and item order (PROTOCOL.md, "Transport").

The pool runs its own event loop in a daemon thread, so it serves asyncio callers on any loop
(``await pool.reset(...)``) and blocking callers on any thread (``pool.reset_sync(...)``) alike, and its
WebSocket keeps answering pings while the policy generates. Dropped connections are resumed by
:class:`~harness_gym.client.HarnessGymClient` (same session, unanswered frames re-sent); a connection
that cannot be resumed fails the episodes it held (``ConnectionClosedError``) and the next reset on it
opens a fresh one.

With ``sharded=True`` the pool holds one :class:`~harness_gym.sharding.ShardedClient` over all its URLs
instead: episodes are placed by the sharding rule (a group's siblings, keyed by ``group_id`` or seed,
together), and a replica that dies fails only its episodes (``REPLICA_DOWN``, naming it) while new ones
go to the survivors (docs/DEPLOY.md).

:func:`shared_pool` returns the process-wide pool for a set of URLs (a new one after ``fork``).
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Awaitable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from ..client import HarnessGymClient, ReconnectPolicy
from ..errors import ConnectionClosedError, unwrap
from ..gym import LoopThread
from ..sharding import ReplicaRetry, ShardedClient

T = TypeVar("T")


@dataclass
class PoolStats:
    """What the pool did: connections opened, frames sent and items carried (batching = items / frames)."""

    connections_opened: int = 0
    frames: Dict[str, int] = field(default_factory=lambda: {"reset": 0, "step": 0, "close": 0})
    items: Dict[str, int] = field(default_factory=lambda: {"reset": 0, "step": 0, "close": 0})
    #: The largest number of items one flush carried, per kind.
    largest_batch: Dict[str, int] = field(default_factory=lambda: {"reset": 0, "step": 0, "close": 0})


@dataclass
class _Conn:
    url: str
    client: Optional[Union[HarnessGymClient, ShardedClient]] = None
    lock: Optional[asyncio.Lock] = None
    queues: Dict[str, List[Tuple[Any, "asyncio.Future[Any]"]]] = field(
        default_factory=lambda: {"reset": [], "step": []}
    )
    closing: List[str] = field(default_factory=list)
    flush_scheduled: bool = False


@dataclass(frozen=True)
class EpisodeHandle:
    """Where one episode lives: the pool's connection index and the episode id in that session."""

    conn: int
    episode_id: str
    #: The session the episode was started in (a fresh connection after a failed resume is another one).
    session_id: str


class EnvPool:
    """A few connections shared by every env instance of a process, batching their requests.

    ``urls``: one server URL or several; connection ``i`` goes to ``urls[i % len(urls)]``. ``connections``:
    how many connections in all (default one per URL). A reset with a seed goes to connection
    ``seed % connections`` (seeds shard over servers, and the siblings of a group in one process share a
    connection); a seedless reset goes round-robin. The other keyword arguments are
    :meth:`HarnessGymClient.connect`'s; connections open lazily, on their first reset.

    ``sharded=True``: the URLs are replicas of one service; the pool holds one
    :class:`~harness_gym.sharding.ShardedClient` over them (one session per replica, episodes placed by
    ``fnv1a32(group_id or str(seed)) % len(live_urls)``, failover to survivors, ``retry`` the
    :class:`~harness_gym.sharding.ReplicaRetry` for dead replicas); ``connections`` must then be left
    out. Episodes of a dead replica fail with ``REPLICA_DOWN`` item errors naming it (``PooledEnv``
    raises :class:`~harness_gym.errors.ReplicaDownError`; :func:`~harness_gym.train.rollout` marks the
    sample ``transport``).
    """

    def __init__(
        self,
        urls: Union[str, Sequence[str]],
        *,
        connections: Optional[int] = None,
        token: Optional[str] = None,
        encoding: str = "msgpack",
        reconnect: Optional[ReconnectPolicy] = ReconnectPolicy(),
        timeout_s: Optional[float] = 120.0,
        linger_s: float = 0.002,
        client_name: str = "harness-gym-python/pool",
        sharded: bool = False,
        retry: Optional[ReplicaRetry] = None,
    ) -> None:
        url_list = [urls] if isinstance(urls, str) else list(urls)
        if not url_list:
            raise ValueError("EnvPool needs at least one server URL")
        if sharded and connections is not None:
            raise ValueError("a sharded pool holds one session per replica: leave connections out")
        if retry is not None and not sharded:
            raise ValueError("retry is for sharded=True pools")
        self.sharded = sharded
        self._retry = retry if retry is not None else ReplicaRetry()
        n = 1 if sharded else connections if connections is not None else len(url_list)
        if n < 1:
            raise ValueError(f"connections must be at least 1, not {n}")
        self.urls = tuple(url_list)
        self._client_options: Dict[str, Any] = dict(
            token=token, encoding=encoding, reconnect=reconnect, timeout_s=timeout_s, client_name=client_name
        )
        self._linger_s = linger_s
        self._conns = [_Conn(" ".join(url_list) if sharded else url_list[i % len(url_list)]) for i in range(n)]
        self._ids = itertools.count()
        self._round_robin = itertools.count()
        self._prefix = f"p{os.getpid()}-{id(self) & 0xFFFFFF:x}"
        self.stats = PoolStats()
        self._thread = LoopThread()
        self._closed = False

    # ------------------------------------------------------------------------------------------------
    # public API: asyncio on any loop, or blocking on any thread
    # ------------------------------------------------------------------------------------------------

    @property
    def connections(self) -> int:
        """How many connections the pool may hold."""
        return len(self._conns)

    async def reset(self, item: Mapping[str, Any]) -> Tuple[EpisodeHandle, Dict[str, Any]]:
        """Reset one episode (a ``ResetItem`` without ``episode_id``: the pool names it).

        Returns the episode's handle and its result item (``{ok: True, observation, info}`` or an
        ``ItemError`` value, as :meth:`HarnessGymClient.reset` returns). Transport failures raise.
        """
        return await self._call(self._reset(dict(item)))

    async def step(self, handle: EpisodeHandle, action: Mapping[str, Any]) -> Dict[str, Any]:
        """Step one episode; returns its result item. An ended episode is closed on the server by the pool."""
        return await self._call(self._step(handle, dict(action)))

    async def release(self, handle: EpisodeHandle) -> None:
        """Close an episode the caller abandons (batched with other closes; errors are ignored)."""
        await self._call(self._release(handle))

    def reset_sync(self, item: Mapping[str, Any]) -> Tuple[EpisodeHandle, Dict[str, Any]]:
        """Blocking :meth:`reset`, for threads (not for a thread running an event loop)."""
        return self._thread.run(self._reset(dict(item)))

    def step_sync(self, handle: EpisodeHandle, action: Mapping[str, Any]) -> Dict[str, Any]:
        """Blocking :meth:`step`."""
        return self._thread.run(self._step(handle, dict(action)))

    def release_sync(self, handle: EpisodeHandle) -> None:
        """Blocking :meth:`release`."""
        self._thread.run(self._release(handle))

    def session_ids(self) -> List[Optional[str]]:
        """The session id of each connection (``None`` when not open)."""
        return [c.client.session_id if c.client is not None and not c.client.is_closed else None for c in self._conns]

    def welcome(self) -> Dict[str, Any]:
        """The ``welcome`` of connection 0 (opened if needed): limits, defaults, presets."""
        return self._thread.run(self._client(0)).welcome

    def close(self) -> None:
        """Close every connection cleanly (the server frees their episodes) and stop the pool's thread."""
        if self._closed:
            return
        self._closed = True
        try:
            self._thread.run(self._close_all())
        finally:
            self._thread.stop()

    def __enter__(self) -> "EnvPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------------
    # the pool's loop
    # ------------------------------------------------------------------------------------------------

    async def _call(self, coro: Awaitable[T]) -> T:
        if self._closed:
            raise RuntimeError("the pool is closed")
        future = asyncio.run_coroutine_threadsafe(coro, self._thread.loop)  # type: ignore[arg-type]
        return await asyncio.wrap_future(future)

    async def _client(self, index: int) -> Union[HarnessGymClient, ShardedClient]:
        conn = self._conns[index]
        if conn.client is not None and not conn.client.is_closed:
            return conn.client
        if conn.lock is None:
            conn.lock = asyncio.Lock()
        async with conn.lock:
            if conn.client is None or conn.client.is_closed:
                if self.sharded:
                    conn.client = await ShardedClient.connect(self.urls, retry=self._retry, **self._client_options)
                else:
                    conn.client = await HarnessGymClient.connect(conn.url, **self._client_options)
                self.stats.connections_opened += 1
            return conn.client

    def _pick(self, item: Mapping[str, Any]) -> int:
        seed = item.get("seed")
        if isinstance(seed, int):
            return seed % len(self._conns)
        return next(self._round_robin) % len(self._conns)

    async def _reset(self, item: Dict[str, Any]) -> Tuple[EpisodeHandle, Dict[str, Any]]:
        index = self._pick(item)
        client = await self._client(index)
        item["episode_id"] = f"{self._prefix}-{next(self._ids)}"
        result = await self._enqueue(index, "reset", item)
        return EpisodeHandle(index, item["episode_id"], client.session_id), result

    async def _step(self, handle: EpisodeHandle, action: Dict[str, Any]) -> Dict[str, Any]:
        conn = self._conns[handle.conn]
        if conn.client is None or conn.client.is_closed or conn.client.session_id != handle.session_id:
            raise ConnectionClosedError(f"the session of episode {handle.episode_id} is gone")
        result = await self._enqueue(handle.conn, "step", {"episode_id": handle.episode_id, "action": action})
        if result.get("ok") is not False and (result.get("terminated") or result.get("truncated")):
            self._queue_close(handle)
        return result

    async def _release(self, handle: EpisodeHandle) -> None:
        self._queue_close(handle)

    def _queue_close(self, handle: EpisodeHandle) -> None:
        conn = self._conns[handle.conn]
        if conn.client is not None and conn.client.session_id == handle.session_id:
            conn.closing.append(handle.episode_id)
            self._schedule(handle.conn)

    def _enqueue(self, index: int, kind: str, item: Dict[str, Any]) -> "asyncio.Future[Any]":
        future: "asyncio.Future[Any]" = asyncio.get_running_loop().create_future()
        self._conns[index].queues[kind].append((item, future))
        self._schedule(index)
        return future

    def _schedule(self, index: int) -> None:
        conn = self._conns[index]
        if not conn.flush_scheduled:
            conn.flush_scheduled = True
            # A short linger lets the calls of many env instances (each a cross-thread hop) join one frame.
            asyncio.get_running_loop().call_later(self._linger_s, self._flush, index)

    def _flush(self, index: int) -> None:
        conn = self._conns[index]
        conn.flush_scheduled = False
        loop = asyncio.get_running_loop()
        for kind in ("reset", "step"):
            batch, conn.queues[kind] = conn.queues[kind], []
            if batch:
                self._count(kind, len(batch), conn)
                loop.create_task(self._send(conn, kind, batch))
        if conn.closing and conn.client is not None:
            ids, conn.closing = conn.closing, []
            self._count("close", len(ids), conn)
            loop.create_task(self._send_close(conn.client, ids))

    def _count(self, kind: str, n: int, conn: _Conn) -> None:
        size = 256
        if conn.client is not None and not conn.client.is_closed:
            size = max(1, int(conn.client.limits.get("max_batch", 256)))
        self.stats.frames[kind] += -(-n // size)
        self.stats.items[kind] += n
        self.stats.largest_batch[kind] = max(self.stats.largest_batch[kind], n)

    async def _send(self, conn: _Conn, kind: str, batch: List[Tuple[Any, "asyncio.Future[Any]"]]) -> None:
        items = [item for item, _ in batch]
        try:
            assert conn.client is not None
            if kind == "reset":
                results = await conn.client.reset(items)
            else:
                results = await conn.client.step(items)
        except BaseException as exc:  # transport or frame error: every item of the batch fails with it
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        for (_, future), result in zip(batch, results):
            if not future.done():
                future.set_result(result)

    @staticmethod
    async def _send_close(client: Union[HarnessGymClient, ShardedClient], ids: List[str]) -> None:
        try:
            await client.close_episodes(ids)
        except Exception:
            pass  # closing is housekeeping: a closed session has freed its episodes already

    async def _close_all(self) -> None:
        for conn in self._conns:
            if conn.client is not None:
                await conn.client.close()


_SHARED: Dict[Tuple[Any, ...], EnvPool] = {}
_SHARED_LOCK = threading.Lock()


def shared_pool(urls: Union[str, Sequence[str]], **options: Any) -> EnvPool:
    """The process-wide :class:`EnvPool` for these URLs and options (made on first use).

    Keyed by process id too, so a forked worker gets its own pool rather than its parent's sockets. Closed
    at interpreter exit.
    """
    url_key = (urls,) if isinstance(urls, str) else tuple(urls)
    key = (os.getpid(), url_key, tuple(sorted(options.items())))
    with _SHARED_LOCK:
        pool = _SHARED.get(key)
        if pool is None or pool._closed:
            pool = EnvPool(urls, **options)
            _SHARED[key] = pool
        return pool


def close_shared_pools() -> None:
    """Close every pool :func:`shared_pool` made in this process."""
    with _SHARED_LOCK:
        pools = [p for k, p in _SHARED.items() if k[0] == os.getpid()]
        _SHARED.clear()
    for pool in pools:
        try:
            pool.close()
        except Exception:
            pass


atexit.register(close_shared_pools)


class PooledEnv:
    """A Gymnasium-style env instance over a pool: one episode at a time, no socket of its own.

    ``await env.reset(seed=, options=)`` / ``await env.step(action)`` (or ``reset_sync`` / ``step_sync``
    from a thread), with the semantics of :class:`~harness_gym.gym.AsyncHarnessGymEnv`; item errors raise
    typed :class:`~harness_gym.errors.ItemError`. Make as many as the trainer wants.
    """

    def __init__(self, pool: EnvPool) -> None:
        self.pool = pool
        self.handle: Optional[EpisodeHandle] = None
        self._live = False

    async def reset(self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """Start a new episode (an unfinished one is released first); returns ``(observation, info)``."""
        from ..gym import reset_item

        if self.handle is not None and self._live:
            await self.pool.release(self.handle)
        handle, result = await self.pool.reset(reset_item(seed, options))
        result = unwrap(result)
        self.handle, self._live = handle, True
        return result["observation"], result["info"]

    async def step(self, action: Union[str, Mapping[str, Any]]) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        """One assistant turn: ``(observation, reward, terminated, truncated, info)``."""
        from ..errors import ResetNeededError
        from ..gym import to_action

        if self.handle is None or not self._live:
            raise ResetNeededError("RESET_NEEDED", "call reset() before step()")
        result = unwrap(await self.pool.step(self.handle, to_action(action)))
        terminated, truncated = bool(result["terminated"]), bool(result["truncated"])
        if terminated or truncated:
            self._live = False
        return result["observation"], float(result["reward"]), terminated, truncated, result["info"]

    def reset_sync(self, **kwargs: Any) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """Blocking :meth:`reset`, for a thread without a running event loop."""
        return asyncio.run(self.reset(**kwargs))

    def step_sync(self, action: Union[str, Mapping[str, Any]]) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        """Blocking :meth:`step`."""
        return asyncio.run(self.step(action))

    async def close(self) -> None:
        """Release the episode if it is still running."""
        if self.handle is not None and self._live:
            await self.pool.release(self.handle)
        self._live = False
