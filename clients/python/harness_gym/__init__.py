"""harness-gym: the Python client of the harness-gym environment server (wire protocol version 1).

- :class:`HarnessGymClient`: asyncio, batched ``reset`` / ``step`` / ``close``, request ids, resume.
- :class:`HarnessGymEnv` / :class:`AsyncHarnessGymEnv`: Gymnasium-style single-episode API.
- :class:`VectorEnv` / :class:`AsyncVectorEnv`: N episodes in flight in GRPO groups.
"""

from .client import PROTOCOL_VERSION, HarnessGymClient, ReconnectPolicy, decode, encode
from .errors import (
    CLIENT_CODES,
    FRAME_CODES,
    ITEM_CODES,
    BatchTooLargeError,
    CapacityReachedError,
    ConnectionClosedError,
    FrameError,
    HarnessGymError,
    InvalidActionError,
    ItemError,
    ProtocolVersionError,
    RequestTimeoutError,
    ResetNeededError,
    ShuttingDownError,
    UnauthorizedError,
    UnknownEpisodeError,
    UnknownSessionError,
    is_item_error,
    unwrap,
)
from .gym import AsyncHarnessGymEnv, HarnessGymEnv, reset_item, to_action
from .vector import AsyncVectorEnv, GroupResult, VectorEnv, group_advantages

__version__ = "0.1.0"

__all__ = [
    "PROTOCOL_VERSION",
    "HarnessGymClient",
    "ReconnectPolicy",
    "encode",
    "decode",
    "CLIENT_CODES",
    "FRAME_CODES",
    "ITEM_CODES",
    "HarnessGymError",
    "FrameError",
    "ItemError",
    "UnauthorizedError",
    "ProtocolVersionError",
    "CapacityReachedError",
    "UnknownSessionError",
    "ShuttingDownError",
    "BatchTooLargeError",
    "ResetNeededError",
    "UnknownEpisodeError",
    "InvalidActionError",
    "ConnectionClosedError",
    "RequestTimeoutError",
    "is_item_error",
    "unwrap",
    "AsyncHarnessGymEnv",
    "HarnessGymEnv",
    "reset_item",
    "to_action",
    "AsyncVectorEnv",
    "VectorEnv",
    "GroupResult",
    "group_advantages",
]
