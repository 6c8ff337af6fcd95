"""Shared test support: the server URL and the TypeScript oracle's expected results, from the environment.

test/clients/python.test.ts starts a real server (oracle hints allowed) and sets ``HARNESS_GYM_URL`` and
``HARNESS_GYM_EXPECTED``. Without them the server tests fail with a clear message rather than skipping.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any, Awaitable, Dict, TypeVar

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)

T = TypeVar("T")


def server_url() -> str:
    """The WebSocket URL of the server under test (``HARNESS_GYM_URL``)."""
    url = os.environ.get("HARNESS_GYM_URL")
    if not url:
        raise RuntimeError(
            "HARNESS_GYM_URL is not set: run these tests through `npx vitest run test/clients` (it starts the "
            "server), or start `harness-gym serve --allow-oracle-hints` and export HARNESS_GYM_URL and HARNESS_GYM_EXPECTED"
        )
    return url


def expected() -> Dict[str, Any]:
    """The in-process TypeScript oracle's results per case (``HARNESS_GYM_EXPECTED``, JSON)."""
    raw = os.environ.get("HARNESS_GYM_EXPECTED")
    if not raw:
        raise RuntimeError("HARNESS_GYM_EXPECTED is not set (the vitest driver computes it with the TypeScript oracle)")
    return json.loads(raw)


def run(coro: Awaitable[T]) -> T:
    """Run a coroutine on a fresh event loop (each test is independent)."""
    return asyncio.run(coro)  # type: ignore[arg-type]


def report(tag: str, value: Any) -> None:
    """Print a result line the vitest driver parses and compares: ``RESULT <tag> <json>``."""
    print(f"RESULT {tag} {json.dumps(value, sort_keys=True)}", flush=True)
