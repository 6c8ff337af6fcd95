"""HarnessGymClient against a real server: batches, request ids, typed errors, sessions."""

from __future__ import annotations

import asyncio
import unittest

import support

from harness_gym import (
    BatchTooLargeError,
    ConnectionClosedError,
    FrameError,
    HarnessGymClient,
    ResetNeededError,
    UnknownEpisodeError,
    is_item_error,
    unwrap,
)


async def connect(**options: object) -> HarnessGymClient:
    return await HarnessGymClient.connect(support.server_url(), **options)  # type: ignore[arg-type]


class ClientTest(unittest.TestCase):
    def test_welcome(self) -> None:
        async def go() -> None:
            async with await connect(encoding="json") as client:
                welcome = client.welcome
                self.assertEqual((welcome["type"], welcome["protocol"], welcome["resumed"]), ("welcome", 1, False))
                self.assertIsInstance(client.session_id, str)
                for key in ("max_batch", "max_episodes", "max_frame_bytes", "max_turns", "replay_window"):
                    self.assertIs(type(client.limits[key]), int, key)
                self.assertIn("train", welcome["variant_presets"])

        support.run(go())

    def test_concurrent_requests_are_matched_by_id(self) -> None:
        async def go() -> None:
            async with await connect() as client:
                resets = [client.reset([{"episode_id": f"c{i}", "seed": i}]) for i in range(8)]
                pings = [client.ping() for _ in range(4)]
                results = await asyncio.gather(*resets, *pings)
                self.assertEqual([r[0]["episode_id"] for r in results[:8]], [f"c{i}" for i in range(8)])
                self.assertEqual(results[8:], [None] * 4)
                self.assertEqual(client.pending_count, 0)
                closed = await client.close_episodes([f"c{i}" for i in range(8)] + ["nope"])
                self.assertEqual(closed, {"episode_ids": [f"c{i}" for i in range(8)], "unknown": ["nope"]})

        support.run(go())

    def test_batches_past_max_batch_are_split_and_kept_in_order(self) -> None:
        async def go() -> None:
            async with await connect() as client:
                n = client.limits["max_batch"] + 5
                results = await client.reset([{"episode_id": f"b{i}", "seed": i % 7} for i in range(n)])
                self.assertEqual([r["episode_id"] for r in results], [f"b{i}" for i in range(n)])
                self.assertTrue(all(r["ok"] for r in results))
                # One raw frame past the limit is a frame-level error, typed.
                with self.assertRaises(BatchTooLargeError) as ctx:
                    await client.request({"type": "reset", "items": [{}] * n}, "reset_result")
                self.assertEqual(ctx.exception.code, "BATCH_TOO_LARGE")
                self.assertEqual(await client.step([]), [])

        support.run(go())

    def test_item_errors_are_data_and_unwrap_to_typed_exceptions(self) -> None:
        async def go() -> None:
            async with await connect() as client:
                items = await client.reset(
                    [{"episode_id": "x", "seed": 1}, {"episode_id": "y", "variant": "no-such-preset"}, {"episode_id": "x"}]
                )
                self.assertEqual([i["ok"] for i in items], [True, False, False])
                self.assertEqual([i["error"]["code"] for i in items[1:]], ["INVALID_VARIANT", "DUPLICATE_EPISODE"])
                self.assertEqual(items[1]["episode_id"], "y")
                (missing,) = await client.step([{"episode_id": "ghost", "action": {"text": "hi"}}])
                self.assertTrue(is_item_error(missing))
                with self.assertRaises(UnknownEpisodeError):
                    unwrap(missing)
                (bad,) = await client.step([{"episode_id": "x", "action": {"nope": 1}}])
                self.assertEqual(bad["error"]["code"], "INVALID_ACTION")

        support.run(go())

    def test_step_on_an_ended_episode_is_reset_needed(self) -> None:
        async def go() -> None:
            async with await connect() as client:
                reset = unwrap((await client.reset([{"episode_id": "e", "seed": 3, "options": {"oracle_hints": True}}]))[0])
                action = reset["info"]["oracle_action"]
                for _ in range(16):
                    step = unwrap((await client.step([{"episode_id": "e", "action": action}]))[0])
                    if step["terminated"] or step["truncated"]:
                        break
                    action = step["info"]["oracle_action"]
                (again,) = await client.step([{"episode_id": "e", "action": {"text": "hi"}}])
                with self.assertRaises(ResetNeededError):
                    unwrap(again)
                # An ended, unclosed id may be reset again.
                self.assertTrue((await client.reset([{"episode_id": "e", "seed": 4}]))[0]["ok"])

        support.run(go())

    def test_frame_level_errors_are_typed(self) -> None:
        async def go() -> None:
            async with await connect(encoding="json") as client:
                with self.assertRaises(FrameError) as unknown:
                    await client.request({"type": "bogus"}, "bogus_result")
                self.assertEqual(unknown.exception.code, "UNKNOWN_TYPE")
                with self.assertRaises(FrameError) as invalid:
                    await client.request({"type": "reset", "items": "not a list"}, "reset_result")
                self.assertEqual(invalid.exception.code, "INVALID_MESSAGE")
                self.assertIsNotNone(invalid.exception.request_id)
                await client.ping()  # the connection stays open after an error

        support.run(go())

    def test_numbers_round_trip_on_the_wire(self) -> None:
        async def go() -> None:
            for encoding in ("msgpack", "json"):
                async with await connect(encoding=encoding) as client:
                    (item,) = await client.reset([{"seed": 4294967295, "options": {"faults": 0.25, "max_turns": 3}}])
                    self.assertTrue(item["ok"], item)
                    self.assertIs(type(item["info"]["turn"]), int)

        support.run(go())

    def test_session_seed_fixes_seedless_resets(self) -> None:
        async def tasks(seed: int) -> list:
            async with await connect(seed=seed) as client:
                return [unwrap(r)["info"]["task_id"] for r in await client.reset([{}, {}, {}])]

        first, again, other = support.run(tasks(7)), support.run(tasks(7)), support.run(tasks(8))
        self.assertEqual(first, again)
        self.assertNotEqual(first, other)

    def test_requests_after_close_fail_with_connection_closed(self) -> None:
        async def go() -> None:
            client = await connect()
            await client.close()
            self.assertTrue(client.is_closed)
            with self.assertRaises(ConnectionClosedError) as ctx:
                await client.ping()
            self.assertEqual(ctx.exception.code, "CONNECTION_CLOSED")

        support.run(go())


if __name__ == "__main__":
    unittest.main()
