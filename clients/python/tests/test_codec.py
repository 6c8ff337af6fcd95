"""Offline tests: frame codecs, number round trips, reset items, actions, advantages, error typing."""

from __future__ import annotations

import math
import unittest

import support  # noqa: F401  (puts the package on sys.path)

from harness_gym import (
    CapacityReachedError,
    FrameError,
    ItemError,
    ResetNeededError,
    UnauthorizedError,
    decode,
    encode,
    group_advantages,
    reset_item,
    to_action,
    unwrap,
)
from harness_gym.errors import frame_error


class CodecTest(unittest.TestCase):
    def test_msgpack_round_trip_keeps_ints_floats_and_strings_apart(self) -> None:
        value = {
            "type": "step",
            "id": 2**53 - 1,
            "ints": [0, 1, -1, 255, 65536, 4294967295, -(2**31)],
            "floats": [0.1, 1.0, 89.9, 1e-9, -2.5],
            "text": "满399减60 ok",
            "nested": {"none": None, "flag": True, "empty": []},
        }
        frame = encode(value, "msgpack")
        self.assertIsInstance(frame, bytes)
        back = decode(frame)
        self.assertEqual(back, value)
        self.assertEqual([type(x) for x in back["ints"]], [int] * 7)
        self.assertEqual([type(x) for x in back["floats"]], [float] * 5)
        self.assertIs(type(back["text"]), str)

    def test_json_frames_are_text_and_round_trip(self) -> None:
        value = {"type": "ping", "id": 7, "x": 0.5, "s": "宝宝"}
        frame = encode(value, "json")
        self.assertIsInstance(frame, str)
        self.assertEqual(frame, '{"type":"ping","id":7,"x":0.5,"s":"宝宝"}')
        self.assertEqual(decode(frame), value)

    def test_json_refuses_nan(self) -> None:
        with self.assertRaises(ValueError):
            encode({"x": math.nan}, "json")


class ResetItemTest(unittest.TestCase):
    def test_item_fields_and_protocol_options_are_split(self) -> None:
        item = reset_item(5, {"variant": "train", "group_id": "g", "locale": "en", "oracle_hints": True, "task": {"intent": "chitchat"}})
        self.assertEqual(
            item,
            {"seed": 5, "variant": "train", "group_id": "g", "task": {"intent": "chitchat"}, "options": {"locale": "en", "oracle_hints": True}},
        )

    def test_no_seed_no_options(self) -> None:
        self.assertEqual(reset_item(None, None), {})

    def test_actions(self) -> None:
        self.assertEqual(to_action("hi"), {"text": "hi"})
        message = {"message": {"role": "assistant", "content": "x"}}
        self.assertEqual(to_action(message), message)


class AdvantageTest(unittest.TestCase):
    def test_group_advantages_are_centred_and_scaled(self) -> None:
        adv = group_advantages([1.0, 0.0, 1.0, 0.0])
        self.assertEqual([round(a, 4) for a in adv], [1.0, -1.0, 1.0, -1.0])
        self.assertEqual(group_advantages([1.0, 0.0], eps=0.0), [1.0, -1.0])
        self.assertAlmostEqual(sum(group_advantages([0.2, 0.9, 0.4])), 0.0, places=12)

    def test_equal_rewards_give_no_signal(self) -> None:
        self.assertEqual(group_advantages([1, 1, 1]), [0.0, 0.0, 0.0])
        self.assertEqual(group_advantages([0.5, 1.0], scale=False), [-0.25, 0.25])
        self.assertEqual(group_advantages([]), [])


class ErrorTypingTest(unittest.TestCase):
    def test_frame_errors_map_to_classes_with_codes(self) -> None:
        e = frame_error({"type": "error", "id": 3, "error": {"code": "UNAUTHORIZED", "message": "bad token"}})
        self.assertIsInstance(e, UnauthorizedError)
        self.assertEqual((e.code, e.request_id), ("UNAUTHORIZED", 3))
        full = frame_error({"type": "error", "id": None, "error": {"code": "CAPACITY_REACHED", "message": "", "details": {"retry_after_ms": 250}}})
        self.assertIsInstance(full, CapacityReachedError)
        self.assertEqual(full.retry_after_ms, 250)  # type: ignore[attr-defined]
        other = frame_error({"type": "error", "id": 1, "error": {"code": "UNKNOWN_TYPE", "message": "?"}})
        self.assertIs(type(other), FrameError)

    def test_unwrap(self) -> None:
        ok = {"ok": True, "episode_id": "a"}
        self.assertIs(unwrap(ok), ok)
        with self.assertRaises(ResetNeededError) as ctx:
            unwrap({"ok": False, "episode_id": "a", "error": {"code": "RESET_NEEDED", "message": "ended"}})
        self.assertEqual((ctx.exception.code, ctx.exception.episode_id), ("RESET_NEEDED", "a"))
        with self.assertRaises(ItemError) as other:
            unwrap({"ok": False, "error": {"code": "UNKNOWN_TASK", "message": "no"}})
        self.assertEqual(other.exception.code, "UNKNOWN_TASK")
        self.assertIsNone(other.exception.episode_id)


if __name__ == "__main__":
    unittest.main()
