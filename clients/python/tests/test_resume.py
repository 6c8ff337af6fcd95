"""Resume after a dropped connection: reconnect, ``hello {resume}``, re-send pending requests by id.

A TCP proxy between client and server drops connections without a close frame, as a network failure
does; it can also swallow the server's replies first, so that a request is applied but its answer lost.
"""

from __future__ import annotations

import asyncio
import unittest
from typing import List, Optional, Tuple
from urllib.parse import urlparse

import support

from harness_gym import ConnectionClosedError, HarnessGymClient, ReconnectPolicy, UnknownSessionError, unwrap


class DropProxy:
    """Forwards TCP between the client and the server; ``drop()`` aborts every connection abruptly."""

    def __init__(self, upstream: str) -> None:
        parsed = urlparse(upstream)
        self._host, self._port, self._path = parsed.hostname or "127.0.0.1", parsed.port or 80, parsed.path
        self._server: Optional[asyncio.AbstractServer] = None
        self._pairs: List[Tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = []
        #: While set, bytes from the server are swallowed (the request is applied, the reply lost).
        self.swallow = False
        self.swallowed = asyncio.Event()
        self.connections = 0
        #: While set, new connections are accepted and closed at once (no HTTP answer: a dying server's port).
        self.hang_up = False

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}{self._path}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        if self.hang_up:
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection(self._host, self._port)
        self._pairs.append((writer, up_writer))

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, downstream: bool) -> None:
            try:
                while data := await src.read(65536):
                    if downstream and self.swallow:
                        self.swallowed.set()
                        continue
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            dst.close()  # pass an orderly TCP close on, so clean WebSocket closes finish at once

        await asyncio.gather(pump(reader, up_writer, False), pump(up_reader, writer, True))

    def drop(self) -> None:
        """Abort both sides of every connection: no close frame reaches anyone."""
        for a, b in self._pairs:
            a.transport.abort()
            b.transport.abort()
        self._pairs.clear()

    async def close(self) -> None:
        self.drop()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


async def play_oracle(client: HarnessGymClient, episode_id: str, seed: int, drop_at: Optional[int], proxy: Optional[DropProxy]) -> List[dict]:
    """Step one oracle episode; before step ``drop_at`` the proxy swallows the reply and drops."""
    reset = unwrap((await client.reset([{"episode_id": episode_id, "seed": seed, "variant": "train", "options": {"oracle_hints": True}}]))[0])
    action = reset["info"]["oracle_action"]
    steps = []
    for n in range(32):
        if proxy is not None and n == drop_at:
            proxy.swallow = True
            pending = asyncio.ensure_future(client.step([{"episode_id": episode_id, "action": action}]))
            await asyncio.wait_for(proxy.swallowed.wait(), 10)  # the server applied it and answered
            proxy.swallow = False
            proxy.drop()
            (step,) = await pending
        else:
            (step,) = await client.step([{"episode_id": episode_id, "action": action}])
        step = unwrap(step)
        steps.append(step)
        if step["terminated"] or step["truncated"]:
            return steps
        action = step["info"]["oracle_action"]
    raise AssertionError("episode did not end")


class ResumeTest(unittest.TestCase):
    def test_lost_reply_is_replayed_not_applied_twice(self) -> None:
        async def go() -> Tuple[List[dict], List[dict], int, int, bool]:
            direct = await HarnessGymClient.connect(support.server_url())
            try:
                baseline = await play_oracle(direct, "r", 11, None, None)
            finally:
                await direct.close()
            proxy = DropProxy(support.server_url())
            url = await proxy.start()
            client = await HarnessGymClient.connect(url, reconnect=ReconnectPolicy(retries=5, backoff_s=0.05))
            try:
                session = client.session_id
                resumed = await play_oracle(client, "r", 11, 0, proxy)
                same_session = client.session_id == session and client.welcome["resumed"] is True
                return baseline, resumed, client.resumes, proxy.connections, same_session
            finally:
                await client.close()
                await proxy.close()

        baseline, resumed, resumes, connections, same_session = support.run(go())
        self.assertEqual((resumes, connections), (1, 2))
        self.assertTrue(same_session)
        # Identical step results: the first step was applied once, its stored reply replayed.
        self.assertEqual(resumed, baseline)
        self.assertEqual([s["info"]["turn"] for s in resumed], list(range(1, len(baseline) + 1)))
        support.report("resume", [s["reward"] for s in resumed])

    def test_drop_between_requests_resumes_transparently(self) -> None:
        async def go() -> Tuple[dict, int]:
            proxy = DropProxy(support.server_url())
            url = await proxy.start()
            client = await HarnessGymClient.connect(url, encoding="json", reconnect=ReconnectPolicy(retries=5, backoff_s=0.05))
            try:
                unwrap((await client.reset([{"episode_id": "d", "seed": 5}]))[0])
                proxy.drop()
                await asyncio.sleep(0.1)
                closed = await client.close_episodes(["d"])  # the episode survived in the kept session
                return closed, client.resumes
            finally:
                await client.close()
                await proxy.close()

        closed, resumes = support.run(go())
        self.assertEqual(closed, {"episode_ids": ["d"], "unknown": []})
        self.assertEqual(resumes, 1)

    def test_a_resume_answered_by_no_http_fails_the_requests_instead_of_hanging(self) -> None:
        # Regression: a handshake that failed (websockets' InvalidMessage) escaped the resume loop and
        # left the client "reconnecting" with its requests waiting until their timeout.
        async def go() -> Tuple[str, str, int]:
            proxy = DropProxy(support.server_url())
            url = await proxy.start()
            client = await HarnessGymClient.connect(url, reconnect=ReconnectPolicy(retries=3, backoff_s=0.05), timeout_s=30)
            try:
                unwrap((await client.reset([{"episode_id": "h", "seed": 5}]))[0])
                proxy.hang_up = True
                proxy.drop()
                try:
                    await asyncio.wait_for(client.step([{"episode_id": "h", "action": {"text": "hi"}}]), 10)
                except ConnectionClosedError as exc:
                    return exc.code, client.state, proxy.connections
                return "answered", client.state, proxy.connections
            finally:
                await client.close()
                await proxy.close()

        code, state, connections = support.run(go())
        self.assertEqual((code, state), ("CONNECTION_CLOSED", "closed"))
        self.assertEqual(connections, 1 + 3)  # the first connection, then every resume attempt

    def test_resume_of_an_ended_session_is_unknown_session(self) -> None:
        async def go() -> str:
            client = await HarnessGymClient.connect(support.server_url())
            session = client.session_id
            await client.close()  # a clean close frees the session at once
            other = HarnessGymClient(support.server_url())
            other._welcome = {"session_id": session}  # resume that session (test-only access)
            ws = await other._open()
            try:
                await other._handshake(ws, resume=True)
            except UnknownSessionError as exc:
                return exc.code
            finally:
                await ws.close()
            return "resumed"

        self.assertEqual(support.run(go()), "UNKNOWN_SESSION")


if __name__ == "__main__":
    unittest.main()
