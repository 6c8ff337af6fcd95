"""The verifiers shim (harness_gym.adapters.verifiers) driven through the verifiers v0 stand-in as prime-rl drives it.

``vf.load_environment("harness-gym-env", ...)`` imports the example module, and ``env.run_rollout(input,
client, model)`` runs the stand-in's MultiTurnEnv loop (init_state, setup_state, model call, env_response,
stop conditions, cleanup, rubric). The "model" answers with the server's oracle hint as verifiers' own
assistant message (flat ``ToolCall(id, name, arguments)``); expected rewards come from the in-process
TypeScript oracle (``support.expected()``).
"""

from __future__ import annotations

import asyncio
import os
import sys
import unittest
from types import SimpleNamespace
from typing import Any, Dict, List

import support

from stand_ins import installed
from harness_gym.adapters.verifiers import to_action_message
from harness_gym.train import EnvPool, close_shared_pools, group_rows, row_reset_item

EXAMPLE = os.path.join(support.PACKAGE_ROOT, "examples", "verifiers", "harness_gym_env")
COMPONENTS = {"accuracy", "effectiveness", "hook_compliance", "tool_rationality", "skill_selection"}


class OracleClient:
    """A vf.Client stand-in: plays the oracle hint and records what each model call was given."""

    def __init__(self) -> None:
        self.calls: List[Dict[str, Any]] = []

    def __call__(self, state: Any, prompt: List[Dict[str, Any]], tool_defs: Any) -> Any:
        self.calls.append({"prompt": list(prompt), "tool_defs": list(tool_defs or [])})
        hint = state["harness_info"]["oracle_action"]["message"]
        calls = [{"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in hint.get("tool_calls") or []]
        message = SimpleNamespace(role="assistant", content=hint.get("content"), tool_calls=calls or None, tokens=None, is_truncated=False)
        return SimpleNamespace(message=message)


def replay(item: Dict[str, Any], actions: List[Dict[str, Any]]) -> float:
    """The server's final reward for these actions, over a fresh connection of its own (not the shim's pool)."""
    pool = EnvPool(support.server_url())
    try:
        handle, result = pool.reset_sync(item)
        for message in actions:
            step = pool.step_sync(handle, {"message": message})
            if step["terminated"] or step["truncated"]:
                return float(step["reward"])
        raise AssertionError("the replay did not end")
    finally:
        pool.close()


def rollout_input(env: Any, index: int) -> Dict[str, Any]:
    dataset = env.dataset() if callable(env.dataset) else env.dataset
    return {**dataset[index], "example_id": index}


class VerifiersAdapterTest(unittest.TestCase):
    def setUp(self) -> None:
        self.ctx = installed("verifiers")
        self.vf = self.ctx.__enter__()
        sys.path.insert(0, EXAMPLE)

    def tearDown(self) -> None:
        sys.path.remove(EXAMPLE)
        sys.modules.pop("harness_gym_env", None)
        close_shared_pools()
        self.ctx.__exit__(None, None, None)

    def load(self, **args: Any) -> Any:
        return self.vf.load_environment("harness-gym-env", url=support.server_url(), options={"oracle_hints": True}, **args)

    def play(self, env: Any, index: int, client: Any = None) -> Any:
        return support.run(env.run_rollout(rollout_input(env, index), client or OracleClient(), "m"))

    def test_rollouts_score_the_servers_final_reward_with_episode_tools(self) -> None:
        case = next(c for c in support.expected()["cases"] if c["name"] == "train-zh")
        env = self.load(variant="train", locale="zh-CN", num_examples=8, seed=case["seed"], max_turns=12)
        self.assertIsInstance(env, self.vf.MultiTurnEnv)
        self.assertEqual((env.env_id, env.max_turns), ("harness-gym-env", 12))
        rewards, seen_tools = [], []
        for i in range(8):
            client = OracleClient()
            state = self.play(env, i, client)
            self.assertIsNone(state["error"])
            self.assertEqual(state["stop_condition"], "has_final_env_response")
            self.assertEqual(state["harness_outcome"], case["outcomes"][i])
            rewards.append(state["reward"])
            # Every reward component is a metric (weight 0), plus the failure flag and verifiers' num_turns.
            self.assertEqual(set(state["metrics"]), COMPONENTS | {"harness_reward", "harness_failed", "num_turns"})
            for name, value in case["components"][i].items():
                self.assertAlmostEqual(state["metrics"][name], value, places=9)
            self.assertEqual(state["metrics"]["harness_failed"], 0.0)
            self.assertEqual(state["metrics"]["num_turns"], len(client.calls))
            # The model saw the episode's own prompt and its renamed tools, not the dataset's placeholder.
            first = client.calls[0]
            self.assertEqual(first["prompt"], state["prompt"])
            self.assertEqual(first["prompt"][0]["role"], "system")
            names = [t.name for t in first["tool_defs"]]
            self.assertTrue(names)
            self.assertIsInstance(first["tool_defs"][0], self.vf.Tool)
            seen_tools.append(tuple(names))
            # The completion holds the assistant turns and the environment's replies.
            self.assertEqual([m["role"] for m in state["completion"]].count("assistant"), len(client.calls))
        self.assertEqual(rewards, case["rewards"][:8])
        # A policy that is not always right: each reward is what the server gives those actions on replay.
        mixed_env = self.load(variant="train", locale="en", num_examples=6, seed=300)
        mixed = []
        for i in range(6):
            oracle = OracleClient()

            def policy(state: Any, prompt: Any, tool_defs: Any) -> Any:
                if i % 2 == 1 and not oracle.calls:
                    oracle.calls.append({})
                    return SimpleNamespace(message=SimpleNamespace(role="assistant", content="好的，稍等", tool_calls=None, tokens=None, is_truncated=False))
                return oracle(state, prompt, tool_defs)

            state = self.play(mixed_env, i, policy)
            actions = [to_action_message(m) for m in state["completion"] if m["role"] == "assistant"]
            row = state["info"]["harness_gym"]
            self.assertEqual(state["reward"], replay(row_reset_item(row, {"oracle_hints": True, "max_turns": 12}), actions))
            mixed.append(state["reward"])
        self.assertGreater(len(set(mixed)), 1, mixed)
        self.assertGreater(len(set(seen_tools)), 1)  # tool names are per episode, not per environment
        support.report("adapter/verifiers/rewards", rewards)

    def test_rollouts_of_one_example_share_task_and_variant(self) -> None:
        env = self.load(variant="train", locale="en", num_examples=2, seed=4242)

        async def group(index: int) -> List[Any]:
            clients = [OracleClient() for _ in range(6)]
            return await asyncio.gather(*(env.run_rollout(rollout_input(env, index), c, "m") for c in clients))

        states = support.run(group(0))
        self.assertEqual(len({(s["task_id"], s["variant_id"]) for s in states}), 1)
        self.assertEqual(len({repr(s["prompt"]) for s in states}), 1)
        self.assertEqual(len({tuple(t.name for t in s["tool_defs"]) for s in states}), 1)
        self.assertEqual(len({s["reward"] for s in states}), 1)
        other = support.run(group(1))[0]
        self.assertNotEqual((other["task_id"], other["variant_id"]), (states[0]["task_id"], states[0]["variant_id"]))
        self.assertEqual(env.harness_pool.stats.connections_opened, 1)
        self.assertGreaterEqual(env.harness_pool.stats.largest_batch["reset"], 2)

    def test_failures_are_marked(self) -> None:
        # A row the server refuses: the error lands in state["error"], has_error stops, reward 0, flagged.
        bad = self.load(rows=group_rows(1, seed=3, variant="no-such-preset", group_size=1), eval_variant=None)
        state = self.play(bad, 0)
        self.assertIsInstance(state["error"], self.vf.Error)
        self.assertEqual((state["stop_condition"], state["reward"], state["metrics"]["harness_failed"]), ("has_error", 0.0, 1.0))
        self.assertEqual(state["harness_failure"], "server_error")
        # verifiers' own turn cap stops a live episode: released on the server, marked max_turns.
        capped = self.load(variant="identity", num_examples=1, seed=501, max_turns=1, eval_variant=None)

        def chatty(state: Any, prompt: Any, tool_defs: Any) -> Any:
            return SimpleNamespace(message=SimpleNamespace(role="assistant", content="好的，稍等", tool_calls=None, tokens=None, is_truncated=False))

        state = self.play(capped, 0, chatty)
        self.assertIn(state["stop_condition"], ("has_final_env_response", "max_turns_reached"))
        self.assertEqual((state["harness_failure"], state["is_truncated"], state["metrics"]["harness_failed"]), ("max_turns", True, 1.0))
        # A lost connection mid-episode: a vf.Error, masked.
        lossy = self.load(variant="identity", num_examples=1, seed=502, pool_options={"reconnect": None}, eval_variant=None)
        oracle = OracleClient()

        def dropping(state: Any, prompt: Any, tool_defs: Any) -> Any:
            if oracle.calls:
                pool = lossy.harness_pool
                pool._thread.loop.call_soon_threadsafe(pool._conns[0].client.drop_connection)
            return oracle(state, prompt, tool_defs)

        async def play_slow() -> Any:
            async def slow(state: Any, prompt: Any, tool_defs: Any) -> Any:
                out = dropping(state, prompt, tool_defs)
                await asyncio.sleep(0.2)
                return out

            return await lossy.run_rollout(rollout_input(lossy, 0), slow, "m")

        state = support.run(play_slow())
        self.assertEqual((state["stop_condition"], state["harness_failure"], state["reward"]), ("has_error", "transport", 0.0))
        self.assertIn("CONNECTION_CLOSED", str(state["error"]))

    def test_eval_dataset_and_import_without_verifiers(self) -> None:
        env = self.load(variant="train", num_examples=2, num_eval_examples=3)
        evals = env.eval_dataset() if callable(env.eval_dataset) else env.eval_dataset
        self.assertEqual([r["info"]["harness_gym"]["variant"] for r in evals], ["eval"] * 3)
        self.assertEqual([r["info"]["harness_gym"]["seed"] for r in evals], [1_000_000, 1_000_001, 1_000_002])
        self.ctx.__exit__(None, None, None)
        try:
            import importlib

            sys.modules.pop("harness_gym.adapters.verifiers", None)
            module = importlib.import_module("harness_gym.adapters.verifiers")
            self.assertEqual(module.tool_defs([{"type": "function", "function": {"name": "f", "parameters": {}}}]), [{"name": "f", "description": "", "parameters": {}}])
            with self.assertRaises(ImportError):
                module.load_environment(url=support.server_url())
        finally:
            self.ctx = installed("verifiers")
            self.ctx.__enter__()


if __name__ == "__main__":
    unittest.main()
