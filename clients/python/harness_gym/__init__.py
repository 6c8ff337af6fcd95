"""harness-gym: the Python client of the harness-gym environment server (wire protocol version 1).

- :class:`HarnessGymClient`: asyncio, batched ``reset`` / ``step`` / ``close``, request ids, resume.
- :class:`HarnessGymEnv` / :class:`AsyncHarnessGymEnv`: Gymnasium-style single-episode API.
- :class:`VectorEnv` / :class:`AsyncVectorEnv`: N episodes in flight in GRPO groups.
- :class:`ShardedClient`: several server replicas behind one client, episodes placed by
  ``fnv1a32(group_id or str(seed)) % len(live_urls)`` (the TypeScript client's rule), failover to
  survivors (``sharding.py``).
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
    NoReplicaError,
    ProtocolVersionError,
    ReplicaDownError,
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
from .sharding import (
    REPLICA_RECONNECT,
    ReplicaRetry,
    ReplicaStatus,
    ShardedClient,
    fnv1a32,
    shard_index,
    shard_key,
    urls_from_dns,
)
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
    "ReplicaDownError",
    "NoReplicaError",
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
    "ShardedClient",
    "ReplicaRetry",
    "ReplicaStatus",
    "fnv1a32",
    "REPLICA_RECONNECT",
    "shard_key",
    "shard_index",
    "urls_from_dns",
]
