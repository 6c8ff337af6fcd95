"""Typed exceptions carrying the wire protocol's stable error codes (docs/PROTOCOL.md, "Errors").

Clients switch on ``code``, never on message text. Frame-level errors (an ``error`` message answering a
request) raise :class:`FrameError` or one of its subclasses; item-level errors (an ``ItemError`` inside a
batch result) are returned as data by :class:`~harness_gym.client.HarnessGymClient` and become
:class:`ItemError` only when a caller asks (:func:`unwrap`, the Gymnasium layer). Failures on the client's
side (the connection closed, a request timed out) use client codes that never appear on the wire.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type, Union

RequestId = Union[int, str]

#: Frame-level codes (an ``error`` message), as listed in PROTOCOL.md.
FRAME_CODES = frozenset(
    {
        "BAD_FRAME",
        "INVALID_MESSAGE",
        "UNKNOWN_TYPE",
        "HELLO_REQUIRED",
        "PROTOCOL_VERSION",
        "UNAUTHORIZED",
        "FRAME_TOO_LARGE",
        "BATCH_TOO_LARGE",
        "UNKNOWN_SESSION",
        "CAPACITY_REACHED",
        "SHUTTING_DOWN",
        "INTERNAL",
    }
)

#: Item-level codes (an ``ItemError`` inside ``reset_result`` / ``step_result``).
ITEM_CODES = frozenset(
    {
        "INVALID_MESSAGE",
        "UNKNOWN_EPISODE",
        "DUPLICATE_EPISODE",
        "RESET_NEEDED",
        "INVALID_ACTION",
        "INVALID_VARIANT",
        "UNKNOWN_TASK",
        "CAPACITY_REACHED",
        "TIMEOUT",
        "INTERNAL",
    }
)

#: Codes made by this client, never sent by a server.
CLIENT_CODES = frozenset({"CONNECTION_CLOSED", "CLIENT_TIMEOUT", "UNEXPECTED_REPLY", "REPLICA_DOWN", "NO_REPLICA"})


class HarnessGymError(Exception):
    """Base of every error this package raises; ``code`` is a protocol or client code."""

    code: str
    message: str
    details: Optional[Any]

    def __init__(self, code: str, message: str, details: Optional[Any] = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details


class FrameError(HarnessGymError):
    """A frame-level ``error`` message from the server; ``request_id`` is the request it answers (or None)."""

    request_id: Optional[RequestId]

    def __init__(
        self, code: str, message: str, details: Optional[Any] = None, request_id: Optional[RequestId] = None
    ) -> None:
        super().__init__(code, message, details)
        self.request_id = request_id


class UnauthorizedError(FrameError):
    """``UNAUTHORIZED``: a missing or wrong token on ``hello`` (the server then closes with 1008)."""


class ProtocolVersionError(FrameError):
    """``PROTOCOL_VERSION``: the server does not speak this client's protocol version."""


class CapacityReachedError(FrameError):
    """``CAPACITY_REACHED`` on ``hello``: the server is full; ``retry_after_ms`` says when to try again."""

    @property
    def retry_after_ms(self) -> Optional[int]:
        """The server's hint (``details.retry_after_ms``), when it gave one."""
        if isinstance(self.details, Mapping):
            value = self.details.get("retry_after_ms")
            return int(value) if isinstance(value, (int, float)) else None
        return None


class UnknownSessionError(FrameError):
    """``UNKNOWN_SESSION``: a resume named a session the server no longer holds."""


class ShuttingDownError(FrameError):
    """``SHUTTING_DOWN``: the server is draining and takes no new work."""


class BatchTooLargeError(FrameError):
    """``BATCH_TOO_LARGE``: a frame held more items than ``limits.max_batch``."""


class ItemError(HarnessGymError):
    """One failed item of a batch (``{ok: false, episode_id?, error}``)."""

    episode_id: Optional[str]

    def __init__(
        self, code: str, message: str, details: Optional[Any] = None, episode_id: Optional[str] = None
    ) -> None:
        super().__init__(code, message, details)
        self.episode_id = episode_id


class ResetNeededError(ItemError):
    """``RESET_NEEDED``: a step on an episode that already ended (Gymnasium's ``ResetNeeded``)."""


class UnknownEpisodeError(ItemError):
    """``UNKNOWN_EPISODE``: no such episode in this session."""


class InvalidActionError(ItemError):
    """``INVALID_ACTION``: neither a string ``text`` nor a valid assistant ``message``, or an action past
    ``limits.max_action_chars`` characters or ``limits.max_action_calls`` tool calls (the message names the
    bound); the episode is unchanged."""


class ReplicaDownError(ItemError):
    """``REPLICA_DOWN`` (a client code, never sent by a server; :class:`~harness_gym.sharding.ShardedClient`):
    the episode's replica went down, or its session there is gone (the replica came back with a new one),
    so the episode is lost. ``replica`` names the replica (its URL), ``cause`` says what the client saw.
    Other replicas' episodes are not affected."""

    @property
    def replica(self) -> Optional[str]:
        """The URL of the replica the episode lived on."""
        if isinstance(self.details, Mapping):
            value = self.details.get("replica")
            return str(value) if value is not None else None
        return None

    @property
    def cause(self) -> Optional[str]:
        """What the client saw (a failed resume, the server's close, ``SHUTTING_DOWN``)."""
        if isinstance(self.details, Mapping):
            value = self.details.get("cause")
            return str(value) if value is not None else None
        return None


class NoReplicaError(ItemError):
    """``NO_REPLICA`` (a client code; :class:`~harness_gym.sharding.ShardedClient`): no replica is live, so
    an item could not be placed; raised by ``connect`` when no replica could be reached
    (``details["replicas"]`` maps each URL to why)."""


class ConnectionClosedError(HarnessGymError):
    """The connection ended (cleanly, or dropped without a successful resume); pending requests fail."""

    def __init__(self, message: str, close_code: Optional[int] = None, reason: str = "") -> None:
        super().__init__("CONNECTION_CLOSED", message, {"close_code": close_code, "reason": reason})
        self.close_code = close_code
        self.reason = reason


class RequestTimeoutError(HarnessGymError):
    """No reply within the client's per-request timeout."""

    def __init__(self, message: str) -> None:
        super().__init__("CLIENT_TIMEOUT", message)


_FRAME_CLASSES: Dict[str, Type[FrameError]] = {
    "UNAUTHORIZED": UnauthorizedError,
    "PROTOCOL_VERSION": ProtocolVersionError,
    "CAPACITY_REACHED": CapacityReachedError,
    "UNKNOWN_SESSION": UnknownSessionError,
    "SHUTTING_DOWN": ShuttingDownError,
    "BATCH_TOO_LARGE": BatchTooLargeError,
}

_ITEM_CLASSES: Dict[str, Type[ItemError]] = {
    "RESET_NEEDED": ResetNeededError,
    "UNKNOWN_EPISODE": UnknownEpisodeError,
    "INVALID_ACTION": InvalidActionError,
    "REPLICA_DOWN": ReplicaDownError,
    "NO_REPLICA": NoReplicaError,
}


def _error_fields(error: Any) -> "tuple[str, str, Optional[Any]]":
    if not isinstance(error, Mapping):
        return "UNEXPECTED_REPLY", f"malformed error object: {error!r}", None
    return str(error.get("code", "UNEXPECTED_REPLY")), str(error.get("message", "")), error.get("details")


def frame_error(message: Mapping[str, Any]) -> FrameError:
    """Build the typed exception for a frame-level ``error`` message."""
    code, text, details = _error_fields(message.get("error"))
    cls = _FRAME_CLASSES.get(code, FrameError)
    return cls(code, text, details, request_id=message.get("id"))


def item_error(item: Mapping[str, Any]) -> ItemError:
    """Build the typed exception for an ``ItemError`` value."""
    code, text, details = _error_fields(item.get("error"))
    cls = _ITEM_CLASSES.get(code, ItemError)
    episode_id = item.get("episode_id")
    return cls(code, text, details, episode_id=episode_id if isinstance(episode_id, str) else None)


def is_item_error(item: Mapping[str, Any]) -> bool:
    """True for a batch result item that failed (``ok: false``)."""
    return item.get("ok") is False


def unwrap(item: Dict[str, Any]) -> Dict[str, Any]:
    """Return a successful result item unchanged; raise its typed :class:`ItemError` otherwise."""
    if is_item_error(item):
        raise item_error(item)
    return item
