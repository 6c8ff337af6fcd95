"""The ROLL shim (harness_gym.adapters.roll) driven through the gem/ROLL stand-in as ROLL's env managers drive it.

The "model" plays the server's oracle hint (``--allow-oracle-hints``) written as Qwen's Hermes text, with an
``<|im_end|>`` left on as ROLL's decode leaves it. Expected rewards come from the in-process TypeScript
oracle (``support.expected()``), not from the shim, so an episode score that is not the server's final
reward fails here.
"""

from __future__ import annotations

import asyncio
import json
import threading
import unittest
from typing import Any, Dict, List, Optional, Tuple

import support

from stand_ins import installed
from harness_gym.adapters.roll import strip_end_markers
from harness_gym.train import EnvPool, close_shared_pools

TOOL_KEYS = {"type", "function"}


def hermes_text(message: Dict[str, Any]) -> str:
    parts = [message["content"]] if message.get("content") else []
    for call in message.get("tool_calls") or []:
        fn = call["function"]
        parts.append('<tool_call>\n{"name": "' + fn["name"] + '", "arguments": ' + fn["arguments"] + "}\n</tool_call>")
    return "\n".join(parts)


def latest_info(history: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The newest server info ROLL's cache holds (reset info in history[0], step info merged one entry back)."""
    for entry in reversed(history):
        if "harness_gym" in entry:
            return entry["harness_gym"]
    raise AssertionError("no harness_gym info in the cache")


def oracle_policy(cache: Any) -> str:
    return hermes_text(latest_info(cache.history)["oracle_action"]["message"]) + "<|im_end|>"


def replay(item: Dict[str, Any], actions: List[str]) -> float:
    """The server's final reward for these actions, over a fresh connection of its own (not the shim's pool)."""
    pool = EnvPool(support.server_url())
    try:
        handle, result = pool.reset_sync(item)
        assert result.get("ok") is not False, result
        for text in actions:
            step = pool.step_sync(handle, {"text": text})
            if step["terminated"] or step["truncated"]:
                return float(step["reward"])
        raise AssertionError("the replay did not end")
    finally:
        pool.close()


class MixedPolicy:
    """The oracle, except that on odd episodes the first turn is a canned reply (so rewards differ)."""

    def __init__(self) -> None:
        self.actions: List[str] = []
        self.odd = False

    def start(self, odd: bool) -> None:
        self.actions, self.odd = [], odd

    def __call__(self, cache: Any) -> str:
        text = "好的，稍等" if self.odd and not self.actions else oracle_policy(cache)
        self.actions.append(text)
        return text


def native_episode(env: Any, seed: int, max_steps: int, policy: Any) -> Tuple[Dict[str, Any], List[Dict[str, Any]], float]:
    """AgentNativeStepEnvManager.reset/step (agent_native_env_manager.py L97-158, ROLL 8eb27cc), minus generation.

    Returns the reset info, the history and the episode score (sum of step rewards). The manager reads
    ``env.env_reset_failed`` after reset and then drops the rollout; it ends only on ``terminated``.
    """
    observation, info = env.reset(seed=seed)
    assert observation is not None
    history: List[Dict[str, Any]] = [{"observation": observation, "messages": None, **info}]
    if env.env_reset_failed:
        return info, history, 0.0
    step = 0
    terminated = False
    while not terminated:
        action = policy(history)
        observation, reward, terminated, truncated, info = env.step(action=action)
        step += 1
        history[-1]["reward"] = reward
        history[-1]["llm_response"] = action
        history[-1].update(info)
        history.append({"observation": observation, "actions_left": max_steps - step, "messages": None})
        if step > max_steps + 2:
            raise AssertionError("the native manager would loop: the env never said terminated")
    return history[0], history, sum(h["reward"] for h in history if "reward" in h)


class RollAdapterTest(unittest.TestCase):
    def setUp(self) -> None:
        self.ctx = installed("roll")
        self.gem = self.ctx.__enter__()
        from harness_gym.adapters import roll

        self.roll = roll
        roll.register()
        roll.register()  # a repeat is a no-op

    def tearDown(self) -> None:
        close_shared_pools()
        self.ctx.__exit__(None, None, None)

    def make(self, **config: Any) -> Any:
        # As TrajEnvManager L72: gem.make(env_id=env_config["env_type"], **env_config["config"]).
        return self.gem.make(env_id="harness_gym", **{"url": support.server_url(), "options": {"oracle_hints": True}, **config})

    def test_traj_manager_episode_scores_are_the_servers_final_rewards(self) -> None:
        case = next(c for c in support.expected()["cases"] if c["name"] == "train-zh")
        env = self.make(variant="train", locale="zh-CN", max_turns=12)
        self.assertIsInstance(env, self.gem.Env)
        self.assertEqual(type(env).__name__, "HarnessGymEnv")
        scores, outcomes = [], []
        for i in range(8):
            # ROLL's seeds are ints from [0, 2^31) plus offsets; one past 2^32 is reduced to uint32.
            seed = case["seed"] + i + (2**32 if i == 3 else 0)
            cache, score = self.gem.traj_env_manager_episode(env, seed, oracle_policy, max_steps=12)
            scores.append(score)
            first = cache.history[0]
            final = cache.history[-2]
            # Reward only at the end: every earlier step 0, the last the server's reward.
            self.assertEqual([h["reward"] for h in cache.history[:-2]], [0.0] * (len(cache.history) - 2))
            self.assertEqual(final["reward"], score)
            self.assertEqual(final["metrics"]["reward"], score)
            self.assertEqual(final["metrics_agg_mode"], {k: "last" for k in final["metrics"]})
            self.assertEqual(set(final["metrics"]), {"reward", "failed", *case["components"][i]})
            for name, value in case["components"][i].items():
                self.assertAlmostEqual(final["metrics"][name], value, places=9)
            self.assertIsNone(final["failure"])
            outcomes.append(final["outcome"])
            # TrajEnvManager renders no tools: they are in the instruction text, with the system prompt.
            self.assertEqual(first["seed"], (case["seed"] + i) & 0xFFFFFFFF)
            self.assertIn("# Tools", first["env_instruction"])
            self.assertIsInstance(first["observation"], str)
            self.assertNotIn("tools", first)
        self.assertEqual(scores, case["rewards"][:8])
        self.assertEqual(outcomes, case["outcomes"][:8])
        # A policy that is not always right: each score is what the server gives those actions on replay.
        policy, mixed = MixedPolicy(), []
        for i in range(6):
            policy.start(odd=i % 2 == 1)
            cache, score = self.gem.traj_env_manager_episode(env, 300 + i, policy, max_steps=12)
            expected_score = replay(env.reset_item(300 + i), [strip_end_markers(a) for a in policy.actions])
            self.assertEqual(score, expected_score)
            self.assertEqual(cache.history[-2]["metrics"]["reward"], expected_score)
            mixed.append(score)
        self.assertGreater(len(set(mixed)), 1, mixed)
        # The reset's tools, each as the chat template would write it, and the system prompt, in the instruction.
        obs, info = env.reset(seed=case["seed"])
        self.assertTrue(env.tools)
        for tool in env.tools:
            self.assertIn("\n" + json.dumps(tool, ensure_ascii=False) + "\n", info["env_instruction"])
        self.assertTrue(info["env_instruction"].startswith(env.messages[0]["content"] + "\n\n# Tools\n"))
        env.close()
        support.report("adapter/roll/traj", scores)

    def test_siblings_share_task_variant_and_one_connection(self) -> None:
        # One ROLL group: group_size env managers (threads of one worker), one seed.
        group_seed = 1_234_567_890
        results: Dict[int, Any] = {}

        def manager(k: int) -> None:
            env = self.make(variant="train", locale="en", max_turns=12)
            cache, score = self.gem.traj_env_manager_episode(env, group_seed, oracle_policy, max_steps=12)
            results[k] = (cache.history[0], score)

        threads = [threading.Thread(target=manager, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(sorted(results), list(range(8)))
        firsts = [results[k][0] for k in range(8)]
        self.assertEqual(len({(f["task_id"], f["variant_id"]) for f in firsts}), 1)
        self.assertEqual(len({(f["observation"], f["env_instruction"]) for f in firsts}), 1)
        self.assertEqual(len({results[k][1] for k in range(8)}), 1)  # the same oracle actions, the same reward
        # Every env of the process shares the pooled connection.
        env = self.make(variant="train", locale="en", max_turns=12)
        self.assertEqual(env.pool.stats.connections_opened, 1)
        self.assertGreaterEqual(env.pool.stats.largest_batch["reset"], 2)
        # Another group seed gives another episode.
        other, _ = self.gem.traj_env_manager_episode(env, group_seed + 1, oracle_policy, max_steps=12)
        self.assertNotEqual((other.history[0]["task_id"], other.history[0]["variant_id"]), (firsts[0]["task_id"], firsts[0]["variant_id"]))

    def test_native_manager_gets_tools_in_info_and_full_messages(self) -> None:
        case = next(c for c in support.expected()["cases"] if c["name"] == "train-zh")
        env = self.make(variant="train", locale="zh-CN", max_turns=12, env_manager="native")

        def policy(history: List[Dict[str, Any]]) -> str:
            return oracle_policy(type("Cache", (), {"history": history}))

        scores = []
        for i in range(4):
            info, history, score = native_episode(env, case["seed"] + i, 12, policy)
            scores.append(score)
            self.assertFalse(env.env_reset_failed)
            # The tools come as info["tools"], in OpenAI form, for tokenizer.apply_chat_template(tools=...).
            self.assertTrue(info["tools"])
            self.assertTrue(all(set(t) == TOOL_KEYS for t in info["tools"]))
            self.assertNotIn("env_instruction", info)
            first = history[0]["observation"]
            self.assertEqual(first[0]["role"], "system")
            self.assertNotIn("# Tools", first[0]["content"])
            # Each observation is the whole conversation: it extends the previous one, the assistant turn included.
            for prev, nxt in zip(history, history[1:-1]):
                self.assertEqual(nxt["observation"][: len(prev["observation"])], prev["observation"])
                self.assertEqual(nxt["observation"][len(prev["observation"])]["role"], "assistant")
            self.assertEqual(history[-2]["reward"], score)
        self.assertEqual(scores, case["rewards"][:4])

    def test_failures_are_marked(self) -> None:
        # A reset the server refuses: the native manager sees env_reset_failed and drops the rollout.
        native = self.make(variant="no-such-preset", env_manager="native")
        info, history, score = native_episode(native, 7, 12, lambda h: "x")
        self.assertTrue(native.env_reset_failed)
        self.assertEqual((info["failure"], info["error"]), ("server_error", "INVALID_VARIANT"))
        self.assertEqual(info["tools"], [])
        self.assertEqual(len(history), 1)
        # TrajEnvManager has no such path: the first step ends the episode, reward 0, failure marked.
        traj = self.make(variant="no-such-preset")
        cache, score = self.gem.traj_env_manager_episode(traj, 7, lambda c: "x", max_steps=12)
        self.assertEqual(score, 0.0)
        self.assertEqual(cache.history[0]["failure"], "server_error")
        self.assertEqual((cache.history[0]["metrics"]["failed"], cache.history[0]["error"]), (1.0, "INVALID_VARIANT"))
        self.assertTrue(cache.truncated)
        # A length stop from the native manager (an EpisodeStopReason instead of text) ends and marks it.
        env = self.make(variant="identity", env_manager="native")
        env.reset(seed=11)
        obs, reward, terminated, truncated, out = env.step(self.gem.EpisodeStopReason.MAX_LENGTH)
        self.assertEqual((reward, terminated, truncated, out["failure"]), (0.0, True, True, "max_length"))
        # The server's turn cap truncates: terminated too (ROLL's managers end only on it), failure max_turns.
        capped = self.make(variant="identity", max_turns=1)
        cache, score = self.gem.traj_env_manager_episode(capped, 11, lambda c: "好的，稍等", max_steps=12)
        final = cache.history[-2]
        self.assertEqual((cache.step, final["outcome"], final["failure"], final["metrics"]["failed"]), (1, "max_turns", "max_turns", 1.0))
        self.assertEqual(score, final["metrics"]["reward"])  # the server's reward stands; the failure marks it for masking
        self.assertTrue(cache.truncated)
        # A connection lost mid-episode: terminated, reward 0, failure transport.
        lossy = self.make(variant="identity", pool_options={"reconnect": None})
        obs, info = lossy.reset(seed=12)
        client = lossy.pool._conns[0].client
        lossy.pool._thread.loop.call_soon_threadsafe(client.drop_connection)
        asyncio.run(asyncio.sleep(0.2))
        obs, reward, terminated, truncated, out = lossy.step(hermes_text(info["harness_gym"]["oracle_action"]["message"]))
        self.assertEqual((reward, terminated, truncated, out["failure"], out["error"]), (0.0, True, True, "transport", "CONNECTION_CLOSED"))
        # The next reset opens a fresh connection and plays on.
        obs, info = lossy.reset(seed=12)
        self.assertFalse(lossy.env_reset_failed)
        self.assertTrue(info["task_id"])

    def test_import_without_gem(self) -> None:
        self.ctx.__exit__(None, None, None)
        try:
            import importlib
            import sys

            sys.modules.pop("harness_gym.adapters.roll", None)
            module = importlib.import_module("harness_gym.adapters.roll")
            self.assertEqual(module.strip_end_markers("hi<|im_end|>\n"), "hi")
            with self.assertRaises(ImportError):
                module.HarnessGymEnv  # noqa: B018 - gem is needed only here
        finally:
            self.ctx = installed("roll")
            self.ctx.__enter__()


if __name__ == "__main__":
    unittest.main()
