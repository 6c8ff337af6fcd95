"""harness_gym.train.pool: 512 env instances in one process share one connection and finish their episodes.

The server side is counted too: ``harness_gym_sessions`` on ``/metrics`` grows by exactly one while the
512 episodes run, and every episode's handle names the same session.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
import unittest
import urllib.request
from typing import Any, Dict, List

import support

from harness_gym.train import EnvPool, PooledEnv


def metrics_sessions() -> int:
    """The server's ``harness_gym_sessions`` gauge (sessions held, attached or awaiting a resume)."""
    http = support.server_url().replace("ws://", "http://").replace("/v1/env", "/metrics")
    text = urllib.request.urlopen(http, timeout=10).read().decode()
    match = re.search(r"^harness_gym_sessions (\d+)", text, re.M)
    assert match, "no harness_gym_sessions gauge on /metrics"
    return int(match.group(1))


async def play(env: PooledEnv, seed: int) -> Dict[str, Any]:
    """Play one episode with the oracle's hints; returns the final step's numbers."""
    obs, info = await env.reset(seed=seed, options={"variant": "train", "locale": "en", "oracle_hints": True})
    for _ in range(32):
        obs, reward, terminated, truncated, info = await env.step(info["oracle_action"])
        if terminated or truncated:
            return {"reward": reward, "outcome": info["outcome"], "turn": info["turn"], "session": env.handle.session_id}
    raise AssertionError(f"seed {seed} did not end in 32 steps")


class PoolTest(unittest.TestCase):
    def test_512_envs_share_one_connection_and_finish(self) -> None:
        before = metrics_sessions()
        pool = EnvPool(support.server_url())
        seen: List[int] = []
        try:
            async def main() -> List[Dict[str, Any]]:
                envs = [PooledEnv(pool) for _ in range(512)]
                async def one(i: int) -> Dict[str, Any]:
                    result = await play(envs[i], 1000 + i)
                    if i == 0:
                        seen.append(metrics_sessions())  # while hundreds of episodes are still running
                    return result
                return await asyncio.gather(*(one(i) for i in range(512)))

            started = time.monotonic()
            results = support.run(main())
            wall = time.monotonic() - started
        finally:
            pool.close()
        self.assertEqual(len(results), 512)
        self.assertTrue(all(r["outcome"] in ("accepted", "refused", "hook_blocked", "max_turns", "error_cap") for r in results))
        self.assertEqual(len({r["session"] for r in results}), 1)
        self.assertEqual(pool.stats.connections_opened, 1)
        self.assertEqual(seen, [before + 1])
        # Batching: 512 resets went out in a few frames, and steps in frames far fewer than the steps taken.
        steps = sum(r["turn"] for r in results)
        self.assertEqual(pool.stats.items["step"], steps)
        self.assertLessEqual(pool.stats.frames["reset"], 8)
        self.assertLess(pool.stats.frames["step"], steps / 16)
        self.assertGreater(sum(r["reward"] for r in results) / 512, 0.9)  # the oracle scores high
        support.report(
            "train/pool512",
            {
                "envs": 512,
                "wall_s": round(wall, 2),
                "connections": pool.stats.connections_opened,
                "frames": pool.stats.frames,
                "largest_batch": pool.stats.largest_batch,
                "steps": steps,
            },
        )

    def test_blocking_envs_on_threads_share_the_pool(self) -> None:
        pool = EnvPool(support.server_url())
        out: Dict[int, Dict[str, Any]] = {}
        try:
            def worker(i: int) -> None:
                out[i] = asyncio.run(play(PooledEnv(pool), 1000 + i))

            threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
        finally:
            pool.close()
        self.assertEqual(sorted(out), list(range(32)))
        self.assertEqual(pool.stats.connections_opened, 1)
        self.assertEqual(len({r["session"] for r in out.values()}), 1)

    def test_a_dropped_connection_is_resumed_and_episodes_finish(self) -> None:
        pool = EnvPool(support.server_url())
        try:
            async def main() -> List[Dict[str, Any]]:
                envs = [PooledEnv(pool) for _ in range(64)]
                tasks = [asyncio.ensure_future(play(envs[i], 2000 + i)) for i in range(64)]
                await asyncio.sleep(0.05)
                client = pool._conns[0].client
                assert client is not None
                pool._thread.loop.call_soon_threadsafe(client.drop_connection)
                return await asyncio.gather(*tasks)

            results = support.run(main())
            client = pool._conns[0].client
            assert client is not None
            self.assertGreaterEqual(client.resumes, 1)
        finally:
            pool.close()
        self.assertEqual(len(results), 64)
        self.assertEqual(pool.stats.connections_opened, 1)  # resumed, not reopened
        self.assertEqual(len({r["session"] for r in results}), 1)

    def test_seeds_shard_over_connections(self) -> None:
        pool = EnvPool([support.server_url(), support.server_url()])
        try:
            async def main() -> List[Any]:
                envs = [PooledEnv(pool) for _ in range(8)]
                await asyncio.gather(*(e.reset(seed=10 + i, options={"variant": "train"}) for i, e in enumerate(envs)))
                handles = [e.handle for e in envs]
                await asyncio.gather(*(e.close() for e in envs))
                return handles

            handles = support.run(main())
        finally:
            pool.close()
        self.assertEqual([h.conn for h in handles], [(10 + i) % 2 for i in range(8)])
        self.assertEqual(pool.stats.connections_opened, 2)
        self.assertEqual(len({h.session_id for h in handles}), 2)


if __name__ == "__main__":
    unittest.main()
