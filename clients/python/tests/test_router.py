"""Resume through a router: HAProxy running the shipped deploy/haproxy.cfg (ports substituted) in front of
three real replicas. The router pins a session with the cookie it sets on the first upgrade response
(``hgym_replica``); the client sends it back on every resume's upgrade (PROTOCOL.md "Routers"), so each
resume reaches the replica that holds the session. Without the cookie, HAProxy balances the resume like a
new session, and another replica answers ``UNKNOWN_SESSION``.

HAProxy (Debian's ``haproxy``; .ci/run installs it) is found at ``HARNESS_GYM_HAPROXY``, on ``PATH`` or in
/usr/sbin; without it this test fails (the suite does not skip).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request
from typing import List, Optional

import support
from replicas import REPO, Replicas

from harness_gym import ConnectionClosedError, HarnessGymClient, ReconnectPolicy, UnknownSessionError, unwrap

REPLICAS: Optional[Replicas] = None
HAPROXY: Optional["subprocess.Popen[str]"] = None
FRONT = ""
WORK = tempfile.mkdtemp(prefix="hgym-router-")


def haproxy_binary() -> str:
    found = os.environ.get("HARNESS_GYM_HAPROXY") or shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.path.exists(p)), None
    )
    if not found:
        raise RuntimeError("haproxy is not installed: apt-get install -y haproxy (.ci/run does)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def haproxy_config(front: int, ports: List[int]) -> str:
    """deploy/haproxy.cfg with the frontend on 127.0.0.1:front and r1..r3 on the replicas' ports."""
    with open(os.path.join(REPO, "deploy", "haproxy.cfg"), encoding="utf-8") as f:
        cfg = f.read()
    subs = [(r"^(\s*bind ):8080$", rf"\g<1>127.0.0.1:{front}")]
    subs += [(rf"^(\s*server r{i + 1} )127\.0\.0\.1:808{i + 1}( cookie r{i + 1})$", rf"\g<1>127.0.0.1:{p}\g<2>") for i, p in enumerate(ports)]
    for pattern, to in subs:
        cfg, n = re.subn(pattern, to, cfg, flags=re.M)
        assert n == 1, f"deploy/haproxy.cfg: {pattern} matched {n} times"
    return cfg


def setUpModule() -> None:
    global REPLICAS, HAPROXY, FRONT
    binary = haproxy_binary()
    REPLICAS = Replicas(3, ["--resume-grace", "30"]).start()
    front = free_port()
    path = os.path.join(WORK, "haproxy.cfg")
    with open(path, "w", encoding="utf-8") as f:
        f.write(haproxy_config(front, REPLICAS.ports))
    HAPROXY = subprocess.Popen([binary, "-db", "-f", path], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = time.monotonic()
    FRONT = f"ws://127.0.0.1:{front}/v1/env"
    deadline = started + 30
    while True:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{front}/readyz", timeout=2).status == 200:
                break
        except OSError:
            pass
        if time.monotonic() > deadline or HAPROXY.poll() is not None:
            raise RuntimeError("haproxy did not become ready")
        time.sleep(0.2)
    # Let every replica pass its health checks (inter 1s, rise 2) so that new sessions reach all three.
    time.sleep(max(0.0, started + 2.5 - time.monotonic()))


def tearDownModule() -> None:
    if HAPROXY is not None:
        HAPROXY.send_signal(signal.SIGTERM)
        try:
            HAPROXY.wait(timeout=10)
        except subprocess.TimeoutExpired:
            HAPROXY.kill()
            HAPROXY.wait()
    if REPLICAS is not None:
        REPLICAS.stop()
    shutil.rmtree(WORK, ignore_errors=True)


def sessions_per_replica() -> List[float]:
    r = REPLICAS
    assert r is not None
    return [r.metric(i, "harness_gym_sessions") for i in range(r.n)]


class RouterTest(unittest.TestCase):
    def test_every_resume_through_haproxy_reaches_the_replica_of_the_session(self) -> None:
        async def main() -> None:
            client = await HarnessGymClient.connect(FRONT, reconnect=ReconnectPolicy(retries=5, backoff_s=0.05))
            try:
                self.assertRegex(client.router_cookie or "", r"^hgym_replica=r[123]$")
                home = int((client.router_cookie or "r0")[-1]) - 1
                session = client.session_id
                item = {"episode_id": "r", "seed": 7, "variant": "train", "options": {"oracle_hints": True}}
                last = unwrap((await client.reset([item]))[0])
                for n in range(6):
                    client.drop_connection()
                    await asyncio.sleep(0.05)
                    # Applied on the session's replica after the resume: the episode goes on.
                    last = unwrap((await client.step([{"episode_id": "r", "action": last["info"]["oracle_action"]}]))[0])
                    self.assertEqual((client.session_id, client.welcome["resumed"]), (session, True), n)
                    if last["terminated"] or last["truncated"]:
                        self.assertEqual(last["reward"], 1.0)
                        last = unwrap((await client.reset([{**item, "seed": 8 + n}]))[0])
                self.assertEqual(client.resumes, 6)
                # The session lives on the replica the cookie names, and on no other.
                counts = sessions_per_replica()
                self.assertGreaterEqual(counts[home], 1)
            finally:
                await client.close()

        support.run(main())

    def test_without_the_cookie_a_resume_lands_elsewhere(self) -> None:
        # The control: the same drops with the cookie withheld; HAProxy balances each resume as a new
        # session, so within a few drops one reaches another replica, which does not know the session.
        async def main() -> Optional[str]:
            client = await HarnessGymClient.connect(FRONT, reconnect=ReconnectPolicy(retries=1, backoff_s=0.05))
            client.router_cookie = None
            try:
                unwrap((await client.reset([{"episode_id": "c", "seed": 9}]))[0])
                for _ in range(12):
                    client.drop_connection()
                    await asyncio.sleep(0.05)
                    try:
                        await client.close_episodes([])
                    except (UnknownSessionError, ConnectionClosedError) as exc:
                        return exc.code
                return None
            finally:
                await client.close()

        self.assertEqual(support.run(main()), "UNKNOWN_SESSION")


if __name__ == "__main__":
    unittest.main()
