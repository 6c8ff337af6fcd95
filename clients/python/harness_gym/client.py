"""``HarnessGymClient``: an asyncio client of the harness-gym wire protocol, version 1 (docs/PROTOCOL.md).

One client is one WebSocket connection and one session holding many episodes. Every request carries a
client-chosen integer ``id``; replies are matched by id, so any number of requests can be in flight and be
answered out of order. Frames are MessagePack (binary) by default, JSON (text) on request.

Reconnect with resume: when the connection drops without a close frame, the client reconnects, sends
``hello {resume: session_id, token}`` and re-sends every unanswered request with its original id and bytes.
The server answers a request it had already applied from its replay window, so nothing is applied twice.
A clean close (ours or the server's, e.g. ``idle`` or ``resumed elsewhere``) is final. Behind a router
(HAProxy, ``deploy/haproxy.cfg``) the resume's upgrade request carries a ``Cookie`` header with the
``name=value`` of every ``Set-Cookie`` of the session's first upgrade response, so that the router sends it
to the server that holds the session (PROTOCOL.md "Routers").
"""

from __future__ import annotations

import asyncio
import inspect
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import msgpack
import websockets
from websockets.exceptions import ConnectionClosed, WebSocketException

from .errors import (
    ConnectionClosedError,
    FrameError,
    HarnessGymError,
    RequestTimeoutError,
    frame_error,
)

#: The protocol version this client speaks (``hello.protocol``).
PROTOCOL_VERSION = 1

Message = Dict[str, Any]
Encoding = str  # "msgpack" | "json"


@dataclass(frozen=True)
class ReconnectPolicy:
    """Reconnect-with-resume after a drop: up to ``retries`` attempts, ``backoff_s`` apart, doubling."""

    retries: int = 5
    backoff_s: float = 0.1


@dataclass
class _Pending:
    id: int
    frame: Union[bytes, str]
    expect: str
    future: "asyncio.Future[Message]"
    #: The connection generation this frame was last sent on (re-sent after each resume).
    generation: int = -1


def _headers_keyword() -> str:
    """The keyword ``websockets.connect`` takes extra request headers by: ``extra_headers`` up to
    websockets 13 (the legacy client), ``additional_headers`` in the asyncio client of 14 and later."""
    try:
        parameters = inspect.signature(websockets.connect).parameters
    except (TypeError, ValueError):
        return "extra_headers"
    return "additional_headers" if "additional_headers" in parameters else "extra_headers"


def router_cookie(ws: Any) -> Optional[str]:
    """The ``Cookie`` header a resume sends back: ``name=value`` of every ``Set-Cookie`` of the upgrade
    response (attributes dropped, joined by ``; ``), or ``None`` when the response set none."""
    headers = getattr(ws, "response_headers", None)  # websockets' legacy client
    if headers is None:
        headers = getattr(getattr(ws, "response", None), "headers", None)  # its asyncio client (14+)
    if headers is None or not hasattr(headers, "get_all"):
        return None
    pairs = [str(v).split(";", 1)[0].strip() for v in headers.get_all("Set-Cookie")]
    pairs = [p for p in pairs if "=" in p and not p.startswith("=")]
    return "; ".join(pairs) or None


def encode(message: Mapping[str, Any], encoding: Encoding) -> Union[bytes, str]:
    """Encode one message: MessagePack bytes (a binary frame) or compact JSON text (a text frame).

    ``use_bin_type=True`` keeps ``str`` and ``bytes`` apart on the wire; Python ints stay integers and
    floats stay 64-bit floats, so numbers round-trip exactly.
    """
    if encoding == "json":
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return msgpack.packb(message, use_bin_type=True)


def decode(frame: Union[bytes, str]) -> Any:
    """Decode one received frame by its kind: binary is MessagePack, text is JSON."""
    if isinstance(frame, (bytes, bytearray, memoryview)):
        return msgpack.unpackb(bytes(frame), raw=False, strict_map_key=False)
    return json.loads(frame)


class HarnessGymClient:
    """A connection to a harness-gym server: one session, many episodes, batched requests.

    Create it with :meth:`connect`. Batch methods return one result item per request item, in order; an
    item that failed is an ``{ok: False, error: {code, ...}}`` value (use :func:`harness_gym.unwrap`).
    A frame-level error raises a :class:`~harness_gym.errors.FrameError` subclass.
    """

    url: str

    def __init__(
        self,
        url: str,
        *,
        token: Optional[str] = None,
        seed: Optional[int] = None,
        client_name: str = "harness-gym-python",
        encoding: Encoding = "msgpack",
        reconnect: Optional[ReconnectPolicy] = ReconnectPolicy(),
        timeout_s: Optional[float] = 60.0,
        on_error: Optional[Callable[[HarnessGymError], None]] = None,
    ) -> None:
        """Prefer :meth:`connect`, which also opens the connection."""
        if encoding not in ("msgpack", "json"):
            raise ValueError(f"encoding must be 'msgpack' or 'json', not {encoding!r}")
        self.url = url
        self._token = token
        self._seed = seed
        self._client_name = client_name
        self._encoding = encoding
        self._reconnect = reconnect
        self._timeout_s = timeout_s
        self._on_error = on_error
        self._pending: Dict[int, _Pending] = {}
        self._next_id = 1
        self._ws: Any = None
        self._reader: Optional["asyncio.Task[None]"] = None
        self._welcome: Optional[Message] = None
        self._generation = 0
        # connecting -> open <-> reconnecting -> closed
        self._state = "connecting"
        self._close_error: Optional[HarnessGymError] = None
        #: Frame-level errors that named no request (``id: null``), newest last (when no ``on_error``).
        self.orphan_errors: List[HarnessGymError] = []
        #: How many times this client resumed its session after a drop.
        self.resumes = 0
        #: What the resume's upgrade request sends as ``Cookie``: the router's pin, set on the session's
        #: first upgrade response (``None`` when connected to a server directly).
        self.router_cookie: Optional[str] = None

    # ------------------------------------------------------------------------------------------------
    # connection life
    # ------------------------------------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        token: Optional[str] = None,
        seed: Optional[int] = None,
        client_name: str = "harness-gym-python",
        encoding: Encoding = "msgpack",
        reconnect: Optional[ReconnectPolicy] = ReconnectPolicy(),
        timeout_s: Optional[float] = 60.0,
        on_error: Optional[Callable[[HarnessGymError], None]] = None,
    ) -> "HarnessGymClient":
        """Open a connection, send ``hello`` and wait for ``welcome``.

        ``seed`` (uint32) seeds the session's stream, from which seedless reset items draw their seeds.
        ``reconnect=None`` turns resume off: a drop then fails every pending request.
        Raises :class:`FrameError` (e.g. ``UNAUTHORIZED``) or ``OSError`` when the server cannot be reached.
        """
        client = cls(
            url,
            token=token,
            seed=seed,
            client_name=client_name,
            encoding=encoding,
            reconnect=reconnect,
            timeout_s=timeout_s,
            on_error=on_error,
        )
        ws = await client._open()
        client.router_cookie = router_cookie(ws)
        try:
            client._welcome = await client._handshake(ws, resume=False)
        except BaseException:
            await ws.close()
            client._state = "closed"
            raise
        client._attach(ws)
        client._state = "open"
        return client

    async def _open(self, cookie: Optional[str] = None) -> Any:
        # max_size=None: frames are bounded by the server's limits.max_frame_bytes, not by the library's 1 MiB.
        options: Dict[str, Any] = dict(max_size=None, open_timeout=10, close_timeout=5, ping_interval=20, ping_timeout=20)
        if cookie:
            options[_headers_keyword()] = {"Cookie": cookie}
        return await websockets.connect(self.url, **options)

    async def _handshake(self, ws: Any, *, resume: bool) -> Message:
        """Send ``hello`` on a fresh connection and read frames until its ``welcome`` or ``error``."""
        hello: Message = {"type": "hello", "id": self._take_id(), "protocol": PROTOCOL_VERSION}
        hello["client"] = self._client_name
        if self._token is not None:
            hello["token"] = self._token
        if resume:
            hello["resume"] = self.session_id
        elif self._seed is not None:
            hello["seed"] = self._seed
        await ws.send(encode(hello, self._encoding))
        while True:
            message = decode(await ws.recv())
            if not isinstance(message, dict) or message.get("id") != hello["id"]:
                continue  # a late reply from before a drop can't be matched here; it is re-requested anyway
            if message.get("type") == "welcome":
                return message
            if message.get("type") == "error":
                raise frame_error(message)
            raise HarnessGymError("UNEXPECTED_REPLY", f"hello answered by {message.get('type')!r}")

    def _attach(self, ws: Any) -> None:
        self._ws = ws
        self._generation += 1
        self._reader = asyncio.get_running_loop().create_task(self._read_loop(ws))

    @property
    def welcome(self) -> Message:
        """The server's latest ``welcome`` (refreshed by each resume)."""
        assert self._welcome is not None
        return self._welcome

    @property
    def session_id(self) -> str:
        """The session id; stable across resumes."""
        return str(self.welcome["session_id"])

    @property
    def limits(self) -> Message:
        """``welcome.limits``: max_batch, max_episodes, max_turns, ..."""
        return dict(self.welcome["limits"])

    @property
    def encoding(self) -> Encoding:
        """``msgpack`` (binary frames) or ``json`` (text frames)."""
        return self._encoding

    @property
    def pending_count(self) -> int:
        """Requests sent and not yet answered."""
        return len(self._pending)

    @property
    def is_closed(self) -> bool:
        """True once the session ended and no more requests can be made."""
        return self._state == "closed"

    @property
    def state(self) -> str:
        """``connecting``, ``open``, ``reconnecting`` (a drop, resume under way) or ``closed``."""
        return self._state

    @property
    def close_error(self) -> Optional[HarnessGymError]:
        """Why the session ended (what pending requests failed with), once it is closed; else ``None``."""
        return self._close_error if self._state == "closed" else None

    async def close(self) -> None:
        """End the session cleanly with a WebSocket close frame: the server frees every episode."""
        if self._state == "closed":
            return
        self._state = "closed"
        self._fail_all(ConnectionClosedError("the client closed the session", 1000, "client close"))
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    async def __aenter__(self) -> "HarnessGymClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # ------------------------------------------------------------------------------------------------
    # requests
    # ------------------------------------------------------------------------------------------------

    async def reset(self, items: Sequence[Mapping[str, Any]]) -> List[Message]:
        """Reset a batch of episodes (``ResetItem`` maps); one result per item, in item order.

        A batch longer than ``limits.max_batch`` is split into several frames, sent at once.
        """
        return await self._batched("reset", "reset_result", list(items))

    async def step(self, items: Sequence[Mapping[str, Any]]) -> List[Message]:
        """Step a batch of episodes (``{episode_id, action}`` maps); one result per item, in item order."""
        return await self._batched("step", "step_result", list(items))

    async def close_episodes(self, episode_ids: Sequence[str]) -> Message:
        """Close episodes (a ``close`` frame): returns ``{episode_ids: [...closed], unknown: [...]}``."""
        reply = await self.request({"type": "close", "episode_ids": list(episode_ids)}, "closed")
        return {"episode_ids": reply["episode_ids"], "unknown": reply["unknown"]}

    async def ping(self) -> None:
        """Round-trip a protocol ``ping``."""
        await self.request({"type": "ping"}, "pong")

    async def _batched(self, kind: str, expect: str, items: List[Mapping[str, Any]]) -> List[Message]:
        size = max(1, int(self.limits.get("max_batch", len(items) or 1)))
        chunks = [items[i : i + size] for i in range(0, len(items), size)] or [[]]
        replies = await asyncio.gather(*(self.request({"type": kind, "items": c}, expect) for c in chunks))
        out: List[Message] = []
        for reply in replies:
            out.extend(reply["items"])
        return out

    async def request(self, message: Mapping[str, Any], expect: str) -> Message:
        """Send one request (its ``id`` is filled in) and wait for the reply of type ``expect``.

        The low-level door to the protocol; the batch methods are built on it.
        """
        if self._state == "closed":
            raise self._close_error or ConnectionClosedError("the session is closed")
        request_id = self._take_id()
        frame = encode({**message, "id": request_id}, self._encoding)
        future: "asyncio.Future[Message]" = asyncio.get_running_loop().create_future()
        pending = _Pending(request_id, frame, expect, future)
        self._pending[request_id] = pending
        if self._state == "open":
            pending.generation = self._generation
            try:
                await self._ws.send(frame)
            except ConnectionClosed:
                pass  # the reader sees the drop; the resume re-sends this frame
        try:
            if self._timeout_s:
                return await asyncio.wait_for(future, self._timeout_s)
            return await future
        except asyncio.TimeoutError:
            raise RequestTimeoutError(f"no reply to request {request_id} within {self._timeout_s}s") from None
        finally:
            self._pending.pop(request_id, None)

    def _take_id(self) -> int:
        request_id = self._next_id
        self._next_id += 1
        return request_id

    # ------------------------------------------------------------------------------------------------
    # receiving, drops and resume
    # ------------------------------------------------------------------------------------------------

    async def _read_loop(self, ws: Any) -> None:
        while True:
            try:
                frame = await ws.recv()
            except ConnectionClosed as closed:
                await self._on_closed(ws, closed)
                return
            self._on_frame(frame)

    def _on_frame(self, frame: Union[bytes, str]) -> None:
        try:
            message = decode(frame)
        except Exception as exc:  # an undecodable frame from the server is a server bug: report, go on
            self._report(HarnessGymError("UNEXPECTED_REPLY", f"undecodable frame: {exc}"))
            return
        if not isinstance(message, dict):
            self._report(HarnessGymError("UNEXPECTED_REPLY", f"frame is not a map: {message!r}"))
            return
        request_id = message.get("id")
        pending = self._pending.get(request_id) if isinstance(request_id, int) else None
        if pending is None:
            if message.get("type") == "error":
                self._report(frame_error(message))
            return  # a duplicate answer (e.g. replayed after a resume) for a request already settled
        if pending.future.done():
            return
        kind = message.get("type")
        if kind == "error":
            pending.future.set_exception(frame_error(message))
        elif kind == pending.expect:
            pending.future.set_result(message)
        else:
            pending.future.set_exception(
                HarnessGymError("UNEXPECTED_REPLY", f"expected {pending.expect!r}, got {kind!r}", message)
            )

    def _report(self, error: HarnessGymError) -> None:
        if self._on_error is not None:
            self._on_error(error)
        else:
            self.orphan_errors.append(error)

    async def _on_closed(self, ws: Any, closed: ConnectionClosed) -> None:
        if self._state == "closed" or ws is not self._ws:
            return
        received = getattr(closed, "rcvd", None)
        # RFC 6455 section 7.1.5: no close frame received means the connection dropped (code 1006).
        dropped = received is None
        if dropped and self._reconnect is not None and self._welcome is not None:
            try:
                await self._resume()
            except Exception as exc:  # never leave the client "reconnecting" with requests waiting forever
                self._state = "closed"
                self._fail_all(ConnectionClosedError(f"connection dropped and the resume failed: {exc!r}", 1006))
            return
        code = received.code if received is not None else 1006
        reason = received.reason if received is not None else ""
        self._state = "closed"
        self._fail_all(ConnectionClosedError(f"connection closed ({code} {reason})".strip(), code, reason))

    async def _resume(self) -> None:
        assert self._reconnect is not None
        self._state = "reconnecting"
        delay = self._reconnect.backoff_s
        last: Optional[BaseException] = None
        for attempt in range(self._reconnect.retries):
            if attempt > 0:
                await asyncio.sleep(delay)
                delay *= 2
            ws = None
            try:
                ws = await self._open(self.router_cookie)
                self._welcome = await self._handshake(ws, resume=True)
            except FrameError as exc:
                # UNKNOWN_SESSION, UNAUTHORIZED, ...: retrying cannot help.
                if ws is not None:
                    await ws.close()
                self._state = "closed"
                self._fail_all(exc)
                return
            except (OSError, WebSocketException, asyncio.TimeoutError, HarnessGymError) as exc:
                # WebSocketException: ConnectionClosed, and a handshake that failed (InvalidMessage from a
                # port that accepted and closed, as a dying server's may; InvalidStatus from a proxy).
                if ws is not None:
                    await ws.close()
                last = exc
                continue
            if self._state == "closed":  # close() ran meanwhile
                await ws.close()
                return
            self.resumes += 1
            self._attach(ws)
            try:
                await self._resend(ws)
            except ConnectionClosed:
                return  # dropped again: the new reader resumes once more
            self._state = "open"
            return
        self._state = "closed"
        self._fail_all(ConnectionClosedError(f"connection dropped and could not be resumed: {last}", 1006))

    async def _resend(self, ws: Any) -> None:
        # Re-send in id order until every pending frame went out on this connection; requests made while
        # this runs land in _pending and are picked up by the next pass (state is not yet "open").
        while True:
            todo = sorted(
                (p for p in self._pending.values() if p.generation != self._generation and not p.future.done()),
                key=lambda p: p.id,
            )
            if not todo:
                return
            for pending in todo:
                pending.generation = self._generation
                await ws.send(pending.frame)

    def _fail_all(self, error: HarnessGymError) -> None:
        self._close_error = error
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_exception(error)
                # Mark retrieved so a request abandoned by its caller does not log "never retrieved".
                pending.future.exception()

    # ------------------------------------------------------------------------------------------------
    # test support
    # ------------------------------------------------------------------------------------------------

    def drop_connection(self) -> None:
        """Abort the TCP connection without a close frame, as a network failure would (for tests)."""
        if self._ws is not None:
            self._ws.transport.abort()
