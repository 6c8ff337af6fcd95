"""``ShardedClient`` over three real server replicas on loopback (``node dist/cli/main.js serve``).

Placement is checked on the servers too (each replica's ``harness_gym_resets_total`` grows by exactly the
episodes the rule sends it), the episodes are the ones one server would play (the oracle's rewards equal
the in-process TypeScript oracle's, ``HARNESS_GYM_EXPECTED``), and replicas die for real: SIGKILL by PID
(after SIGSTOP, so that a step frame is provably in flight when it dies), SIGTERM (a drain), and a
restart on the same port.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import unittest
from typing import Any, Dict, List, Mapping, Optional, Sequence

import support
from replicas import Replicas

from harness_gym import (
    AsyncVectorEnv,
    HarnessGymClient,
    NoReplicaError,
    ReconnectPolicy,
    ReplicaDownError,
    ReplicaRetry,
    ShardedClient,
    fnv1a32,
    shard_index,
    shard_key,
    unwrap,
    urls_from_dns,
)
from harness_gym.train import EnvPool, Generation, PooledEnv, RolloutConfig, ToyTokenizer, group_rows, rollout

REPLICAS: Optional[Replicas] = None

#: Fast failure detection for the tests: a dropped connection is resumed 3 times (0.35 s in all).
FAST_RESUME = ReconnectPolicy(retries=3, backoff_s=0.05)


def setUpModule() -> None:
    global REPLICAS
    REPLICAS = Replicas(3).start()


def tearDownModule() -> None:
    if REPLICAS is not None:
        REPLICAS.stop()


def replicas() -> Replicas:
    assert REPLICAS is not None
    return REPLICAS


def case() -> Dict[str, Any]:
    """The first expected case: variant ``train``, ``zh-CN``, seeds 1..64, the TypeScript oracle's rewards."""
    return support.expected()["cases"][0]


def case_items(seeds: Sequence[int], prefix: str) -> List[Dict[str, Any]]:
    c = case()
    return [
        {"episode_id": f"{prefix}-{s}", "seed": s, "variant": c["variant"], "options": {**c["options"], "oracle_hints": True}}
        for s in seeds
    ]


def expected_reward(seed: int) -> float:
    c = case()
    return c["rewards"][seed - c["seed"]]


def rule_hash(key: str) -> int:
    """FNV-1a 32 of the key's UTF-8 bytes, written out here again (not the package's function)."""
    h = 0x811C9DC5
    for b in key.encode("utf-8"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def by_rule(key: str, urls: Sequence[str]) -> str:
    """The rule: the URL at ``rule_hash(key) % len(live URLs)``, the live URLs in the order given."""
    return urls[rule_hash(key) % len(urls)]


def resets_total() -> List[float]:
    r = replicas()
    return [r.metric(i, "harness_gym_resets_total") if r.alive(i) else 0.0 for i in range(r.n)]


async def play(client: Any, started: Mapping[str, Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """Step every episode with its oracle hint until it ends (or fails); episode id -> last result item."""
    infos = {e: r["info"] for e, r in started.items()}
    final: Dict[str, Dict[str, Any]] = {}
    live = list(started)
    for _ in range(32):
        if not live:
            break
        replies = await client.step([{"episode_id": e, "action": infos[e]["oracle_action"]} for e in live])
        still = []
        for e, r in zip(live, replies):
            if r.get("ok") is False or r["terminated"] or r["truncated"]:
                final[e] = r
            else:
                infos[e] = r["info"]
                still.append(e)
        live = still
    assert not live, f"{len(live)} episodes did not end in 32 steps"
    return final


async def wait_for(predicate: Any, timeout_s: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def state_of(client: ShardedClient, url: str) -> Any:
    return next(s for s in client.replicas() if s.url == url)


class RuleTest(unittest.TestCase):
    """The rule itself, without servers."""

    def test_fnv1a32_vectors_and_the_key(self) -> None:
        self.assertEqual(fnv1a32(""), 0x811C9DC5)
        self.assertEqual(fnv1a32("a"), 0xE40C292C)
        self.assertEqual(fnv1a32("foobar"), 0xBF9CF968)
        self.assertEqual(fnv1a32("直播-g0"), rule_hash("直播-g0"))  # over UTF-8 bytes
        self.assertEqual(shard_key({"seed": 7}), "7")
        self.assertEqual(shard_key({"seed": 7, "group_id": "g1"}), "g1")  # the group wins: siblings together
        self.assertIsNone(shard_key({"seed": True}))
        self.assertIsNone(shard_key({"episode_id": "e"}))  # round-robin
        self.assertEqual(shard_index("7", 3), fnv1a32("7") % 3)
        with self.assertRaises(ValueError):
            shard_index("7", 0)

    def test_the_typescript_clients_vectors(self) -> None:
        # Computed with client/sharded.ts (fnv1a32, shardKey, shardIndex) under tsx: both clients must
        # place every key alike, or GRPO siblings split between a TypeScript and a Python worker.
        for text, h in {"": 2166136261, "a": 3826002220, "foobar": 3214735720, "直播-g0": 165480624,
                        "4294967295": 2798844194, "vec-g0": 3306517799}.items():
            self.assertEqual(fnv1a32(text), h, text)
        picks = [  # item, its key, index over 3 live replicas, over 2
            ({"seed": 1}, "1", 1, 0), ({"seed": 2}, "2", 1, 1), ({"seed": 4294967295}, "4294967295", 2, 0),
            ({"seed": 7, "group_id": "vec-g0"}, "vec-g0", 2, 1), ({"group_id": "直播-g1"}, "直播-g1", 2, 1),
        ]
        for item, key, three, two in picks:
            self.assertEqual(shard_key(item), key)
            self.assertEqual((shard_index(key, 3), shard_index(key, 2)), (three, two), key)

    def test_urls_are_checked_and_dns_lists_sorted_addresses(self) -> None:
        self.assertEqual(urls_from_dns("127.0.0.1", 8080), ["ws://127.0.0.1:8080/v1/env"])
        self.assertIn("ws://127.0.0.1:9/v1/env", urls_from_dns("localhost", 9))
        with self.assertRaises(ValueError):
            ShardedClient([])
        with self.assertRaises(ValueError):
            ShardedClient(["ws://a/v1/env", "ws://a/v1/env"])

    def test_no_reachable_replica_is_no_replica(self) -> None:
        async def main() -> None:
            with self.assertRaises(NoReplicaError) as caught:
                await ShardedClient.connect(["ws://127.0.0.1:9/v1/env"], retry=ReplicaRetry(retries=0))
            self.assertEqual(caught.exception.code, "NO_REPLICA")
            self.assertIn("ws://127.0.0.1:9/v1/env", caught.exception.details["replicas"])

        support.run(main())


class ShardingTest(unittest.TestCase):
    def setUp(self) -> None:
        self.r = replicas()
        for i in range(self.r.n):
            self.r.restart(i)  # a test that killed one restarts it; this is the safety net

    def test_seeds_land_by_the_rule_on_every_client_and_play_as_on_one_server(self) -> None:
        urls = self.r.urls
        seeds = list(range(1, 65))

        async def main() -> Dict[str, Any]:
            before = resets_total()
            async with await ShardedClient.connect(urls, seed=1) as client:
                self.assertEqual(client.live_urls, urls)
                items = case_items(seeds, "a")
                for item in items:
                    self.assertEqual(client.place(item), by_rule(str(item["seed"]), urls))
                started = [unwrap(r) for r in await client.reset(items)]
                placed = {s: client.replica_of(f"a-{s}") for s in seeds}
                after = resets_total()
                final = await play(client, {r["episode_id"]: r for r in started})
            for s in seeds:
                self.assertEqual(placed[s], by_rule(str(s), urls), f"seed {s}")
            counts = [sum(1 for s in seeds if placed[s] == u) for u in urls]
            # The servers saw exactly that: each replica's resets grew by the episodes the rule sent it.
            self.assertEqual([a - b for a, b in zip(after, before)], counts)
            self.assertTrue(all(c > 0 for c in counts), counts)
            rewards = [final[f"a-{s}"]["reward"] for s in seeds]
            self.assertEqual(rewards, [expected_reward(s) for s in seeds])

            # A second client, another process's view: the same seeds land on the same replicas.
            async with await ShardedClient.connect(urls) as other:
                again = [unwrap(r) for r in await other.reset(case_items(seeds[:16], "b"))]
                self.assertEqual([other.replica_of(f"b-{s}") for s in seeds[:16]], [placed[s] for s in seeds[:16]])
            # And the episodes are one server's: same task and variant per seed as on replica 0 alone.
            plain = await HarnessGymClient.connect(urls[0])
            try:
                alone = [unwrap(r) for r in await plain.reset(case_items(seeds[:16], "c"))]
            finally:
                await plain.close()
            self.assertEqual([(r["info"]["task_id"], r["info"]["variant_id"]) for r in again],
                             [(r["info"]["task_id"], r["info"]["variant_id"]) for r in alone])
            return {"counts": counts, "rewards": rewards}

        out = support.run(main())
        support.report("sharding/placement", out)

    def test_group_siblings_land_together_across_frames_and_in_a_vector_env(self) -> None:
        urls = self.r.urls

        async def main() -> None:
            async with await ShardedClient.connect(urls, seed=3) as client:
                groups = [f"grp-{k}" for k in range(16)]

                def member(k: int, j: int) -> Dict[str, Any]:
                    item: Dict[str, Any] = {"episode_id": f"{groups[k]}-{j}", "group_id": groups[k], "variant": "train"}
                    if j == 0:
                        item["seed"] = 500 + k  # the first member carries the group's seed
                    return item

                first = await client.reset([member(k, j) for k in range(16) for j in (0, 1)])
                second = await client.reset([member(k, j) for k in range(16) for j in (2, 3)])
                results = {r["episode_id"]: unwrap(r) for r in first + second}
                used = set()
                for k, g in enumerate(groups):
                    where = {client.replica_of(f"{g}-{j}") for j in range(4)}
                    self.assertEqual(where, {by_rule(g, urls)}, g)  # keyed by the group id, not the seed
                    used |= where
                    self.assertEqual(len({results[f"{g}-{j}"]["info"]["task_id"] for j in range(4)}), 1, g)
                    self.assertEqual(len({results[f"{g}-{j}"]["info"]["variant_id"] for j in range(4)}), 1, g)
                self.assertEqual(len(used), 3)

                # The vector env runs on the sharded client unchanged; its groups finish as on one server.
                c = case()
                env = AsyncVectorEnv(client, 32, group_size=4, seed=c["seed"], autoreset=False,
                                     options={"variant": c["variant"], **c["options"], "oracle_hints": True})
                _, infos = await env.reset()
                last = list(infos)
                finished = []
                for _ in range(64):
                    if env.all_idle:
                        break
                    actions = [last[i]["oracle_action"] if live else None for i, live in enumerate(env.live)]
                    _, _, _, _, step_infos = await env.step(actions)
                    for i, a in enumerate(actions):
                        if a is not None:
                            last[i] = step_infos[i]
                    finished.extend(env.finished_groups())
                finished.sort(key=lambda g: g.seed)
                self.assertEqual(len(finished), 8)
                for k, g in enumerate(finished):
                    self.assertEqual(g.seed, c["seed"] + k)
                    self.assertEqual(g.rewards, [c["rewards"][k]] * 4)
                    self.assertEqual({client.replica_of(e) for e in g.episode_ids}, {by_rule(g.group_id, urls)})
                # Again, on the same slots' (ended, unclosed) episode ids with new groups: each new group
                # lands by its own key, wherever its slots' last episodes were.
                _, infos = await env.reset(seed=c["seed"] + 8)
                for k in range(8):
                    members = range(4 * k, 4 * k + 4)
                    self.assertEqual({client.replica_of(env.episode_ids[i]) for i in members},
                                     {by_rule(env.group_ids[4 * k], urls)})
                    self.assertEqual(len({infos[i]["task_id"] for i in members}), 1)
                await env.close()
                support.report("sharding/vector", [g.rewards for g in finished])

        support.run(main())

    def test_a_killed_replica_fails_only_its_episodes_and_new_ones_go_to_survivors(self) -> None:
        r = self.r
        urls = r.urls
        victim = 1
        seeds = list(range(1, 65))

        async def main() -> Dict[str, Any]:
            client = await ShardedClient.connect(urls, seed=1, reconnect=FAST_RESUME,
                                                 retry=ReplicaRetry(retries=2, backoff_s=0.2, max_backoff_s=0.4))
            try:
                started = {x["episode_id"]: unwrap(x) for x in await client.reset(case_items(seeds, "k"))}
                on_victim = [e for e in started if client.replica_of(e) == urls[victim]]
                self.assertGreater(len(on_victim), 0)
                # One step for all, then freeze the victim and send the next step: its part is in flight.
                first = {x["episode_id"]: unwrap(x) for x in await client.step(
                    [{"episode_id": e, "action": started[e]["info"]["oracle_action"]} for e in started])}
                live = {e: x for e, x in first.items() if not (x["terminated"] or x["truncated"])}
                ended_early = {e: x for e, x in first.items() if e not in live}
                self.assertTrue(any(e in live for e in on_victim))
                os.kill(r.pids[victim], signal.SIGSTOP)
                step = asyncio.ensure_future(client.step(
                    [{"episode_id": e, "action": x["info"]["oracle_action"]} for e, x in live.items()]))
                await asyncio.sleep(0.3)
                self.assertFalse(step.done())  # the victim holds its part of the frame
                self.assertGreater(client.pending_count, 0)
                r.kill(victim)  # SIGKILL by PID
                replies = await asyncio.wait_for(step, 30)
                failed, going = {}, {}
                for e, x in zip(live, replies):
                    (failed if x.get("ok") is False else going)[e] = x
                self.assertEqual(set(failed), {e for e in live if e in on_victim})
                for e, x in failed.items():
                    self.assertEqual(x["error"]["code"], "REPLICA_DOWN")
                    self.assertEqual(x["error"]["details"]["replica"], urls[victim])
                    with self.assertRaises(ReplicaDownError) as caught:
                        unwrap(x)
                    self.assertEqual((caught.exception.replica, caught.exception.episode_id), (urls[victim], e))
                # The survivors' episodes go on to the end, with the oracle's rewards.
                rest = {e: x for e, x in going.items() if not (x["terminated"] or x["truncated"])}
                final = {**ended_early, **{e: x for e, x in going.items() if e not in rest}, **(await play(client, rest))}
                self.assertEqual(set(final) | set(failed), set(started))
                for e, x in final.items():
                    self.assertEqual(x["reward"], expected_reward(int(e.split("-")[1])), e)
                # A later step of a lost episode fails at once, without a round trip.
                t0 = time.monotonic()
                (again,) = await client.step([{"episode_id": on_victim[0], "action": {"text": "hi"}}])
                self.assertEqual(again["error"]["code"], "REPLICA_DOWN")
                self.assertLess(time.monotonic() - t0, 0.5)
                # New episodes go to the survivors, by the rule over the two live URLs.
                survivors = [u for i, u in enumerate(urls) if i != victim]
                self.assertEqual(client.live_urls, survivors)
                before = resets_total()
                fresh = await client.reset(case_items(range(1001, 1033), "n"))
                after = resets_total()
                self.assertTrue(all(x.get("ok") is True for x in fresh))
                for s in range(1001, 1033):
                    self.assertEqual(client.replica_of(f"n-{s}"), by_rule(str(s), survivors))
                self.assertEqual(sum(after) - sum(before), 32)
                # The dead replica is retried twice (bounded, with backoff), then given up.
                await wait_for(lambda: state_of(client, urls[victim]).state == "gone", 10, "the victim to be gone")
                status = state_of(client, urls[victim])
                self.assertEqual((status.retries, status.sessions, status.session_id), (2, 1, None))
                self.assertIn("ConnectionRefused", status.last_error or "")
                closed = await client.close_episodes(on_victim[:3] + ["n-1001"])
                self.assertEqual((closed["episode_ids"], closed["unknown"]), (["n-1001"], on_victim[:3]))
                return {"lost": len(failed), "finished": len(final), "rewards_match": True}
            finally:
                await client.close()

        try:
            out = support.run(main())
        finally:
            r.restart(victim)
        support.report("sharding/kill", out)

    def test_a_dead_replica_is_retried_and_rejoins_with_a_new_session(self) -> None:
        r = self.r
        urls = r.urls
        victim = 2

        async def main() -> None:
            client = await ShardedClient.connect(urls, reconnect=FAST_RESUME, retry=ReplicaRetry(retries=100, backoff_s=0.1, max_backoff_s=0.2))
            try:
                started = {x["episode_id"]: unwrap(x) for x in await client.reset(case_items(range(1, 31), "d"))}
                lost = [e for e in started if client.replica_of(e) == urls[victim]]
                self.assertGreater(len(lost), 0)
                old_session = state_of(client, urls[victim]).session_id
                r.kill(victim)
                await wait_for(lambda: state_of(client, urls[victim]).state == "down", 10, "the victim to be down")
                self.assertEqual(len(client.live_urls), 2)
                await asyncio.get_running_loop().run_in_executor(None, r.restart, victim)
                await wait_for(lambda: state_of(client, urls[victim]).state == "live", 20, "the victim to rejoin")
                status = state_of(client, urls[victim])
                self.assertEqual(status.sessions, 2)
                self.assertNotEqual(status.session_id, old_session)
                self.assertEqual(client.live_urls, urls)
                # Its old episodes stayed lost (that session is gone); new ones land by the rule over three.
                (x,) = await client.step([{"episode_id": lost[0], "action": started[lost[0]]["info"]["oracle_action"]}])
                self.assertEqual(x["error"]["code"], "REPLICA_DOWN")
                fresh = {y["episode_id"]: unwrap(y) for y in await client.reset(case_items(range(1, 31), "e"))}
                for s in range(1, 31):
                    self.assertEqual(client.replica_of(f"e-{s}"), by_rule(str(s), urls))
                final = await play(client, fresh)
                self.assertEqual([final[f"e-{s}"]["reward"] for s in range(1, 31)], [expected_reward(s) for s in range(1, 31)])
            finally:
                await client.close()

        try:
            support.run(main())
        finally:
            r.restart(victim)

    def test_a_drained_replica_sigterm_is_down_and_its_episodes_fail_typed(self) -> None:
        r = self.r
        urls = r.urls
        victim = 0

        async def main() -> None:
            client = await ShardedClient.connect(urls, retry=ReplicaRetry(retries=0))
            try:
                started = {x["episode_id"]: unwrap(x) for x in await client.reset(case_items(range(1, 25), "t"))}
                on_victim = [e for e in started if client.replica_of(e) == urls[victim]]
                self.assertGreater(len(on_victim), 0)
                r.kill(victim, signal.SIGTERM)  # graceful: the server closes its sessions with 1001
                await wait_for(lambda: state_of(client, urls[victim]).state == "gone", 10, "the drained replica to be gone")
                replies = await client.step([{"episode_id": e, "action": x["info"]["oracle_action"]} for e, x in started.items()])
                for e, x in zip(started, replies):
                    if e in on_victim:
                        self.assertEqual((x["error"]["code"], x["error"]["details"]["replica"]), ("REPLICA_DOWN", urls[victim]))
                    else:
                        self.assertTrue(x["ok"], x)
                self.assertIn("1001", state_of(client, urls[victim]).last_error or "")
                fresh = await client.reset(case_items(range(100, 110), "u"))
                self.assertTrue(all(client.replica_of(x["episode_id"]) != urls[victim] for x in fresh))
            finally:
                await client.close()

        try:
            support.run(main())
        finally:
            r.restart(victim)

    def test_env_pool_sharded_places_by_the_rule_and_rollouts_on_a_dead_replica_are_transport(self) -> None:
        r = self.r
        urls = r.urls
        pool = EnvPool(urls, sharded=True, reconnect=FAST_RESUME, retry=ReplicaRetry(retries=0), timeout_s=30)
        killed: List[int] = []
        try:
            async def one(seed: int) -> float:
                env = PooledEnv(pool)
                obs, info = await env.reset(seed=seed, options={"variant": case()["variant"], **case()["options"], "oracle_hints": True})
                sharded = pool._conns[0].client
                assert isinstance(sharded, ShardedClient)
                self.assertEqual(sharded.replica_of(env.handle.episode_id), by_rule(str(seed), urls))
                for _ in range(32):
                    obs, reward, terminated, truncated, info = await env.step(info["oracle_action"])
                    if terminated or truncated:
                        return reward
                raise AssertionError("did not end")

            async def played() -> List[float]:
                return list(await asyncio.gather(*(one(s) for s in range(1, 25))))

            self.assertEqual(support.run(played()), [expected_reward(s) for s in range(1, 25)])
            self.assertEqual(len(set(pool.session_ids())), 1)

            # Two rollouts: one whose replica is killed after its first turn, one elsewhere that finishes.
            tok = ToyTokenizer()
            rows = group_rows(2, seed=700, variant="identity", locale="en", group_size=1)
            sharded = pool._conns[0].client
            assert isinstance(sharded, ShardedClient)
            homes = [urls.index(by_rule(str(row["seed"]), urls)) for row in rows]
            if homes[0] == homes[1]:
                rows = [rows[0]] + [row for row in group_rows(40, seed=701, variant="identity", locale="en", group_size=1)
                                    if urls.index(by_rule(str(row["seed"]), urls)) != homes[0]][:1]
                homes = [urls.index(by_rule(str(row["seed"]), urls)) for row in rows]
            self.assertNotEqual(homes[0], homes[1])

            class Oracle:
                def __init__(self, kill: bool) -> None:
                    self.info: Dict[str, Any] = {}
                    self.turns = 0
                    self.kill = kill

                def on_result(self, result: Dict[str, Any]) -> None:
                    self.info = result["info"]

                async def generate(self, ids: List[int], n: int) -> Generation:
                    self.turns += 1
                    if self.kill and self.turns == 2:
                        r.kill(homes[0])
                        killed.append(homes[0])
                    message = self.info["oracle_action"]["message"]
                    return Generation(tok.encode(hermes_text(message)) + [tok.eos_token_id])

            models = [Oracle(True), Oracle(False)]

            async def both() -> List[Any]:
                return list(await asyncio.gather(*(
                    rollout(pool, row, tok, m.generate, RolloutConfig(), extra_options={"oracle_hints": True},
                            on_reset=m.on_result, on_step=m.on_result)
                    for row, m in zip(rows, models))))

            lost, kept = support.run(both())
            self.assertGreaterEqual(models[0].turns, 2)
            self.assertEqual((lost.failure, lost.error), ("transport", "REPLICA_DOWN"))
            self.assertIsNone(kept.failure)
            self.assertGreater(kept.reward, 0)
        finally:
            pool.close()
            for i in killed:
                r.restart(i)


def hermes_text(message: Dict[str, Any]) -> str:
    """An assistant message as Qwen writes it (see test_train_tokens.py)."""
    parts = [message["content"]] if message.get("content") else []
    for call in message.get("tool_calls") or []:
        fn = call["function"]
        parts.append('<tool_call>\n{"name": "' + fn["name"] + '", "arguments": ' + fn["arguments"] + "}\n</tool_call>")
    return "\n".join(parts)


if __name__ == "__main__":
    unittest.main()
