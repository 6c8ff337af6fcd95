"""Playing the server's oracle hints from Python reaches exactly the in-process TypeScript oracle's results.

The vitest driver computes, for each case (variant, options, seeds), the TypeScript oracle's final reward,
reward components and outcome per seed, and passes them in ``HARNESS_GYM_EXPECTED``.
"""

from __future__ import annotations

import unittest
from typing import Any, Dict, List

import support

from harness_gym import AsyncVectorEnv, HarnessGymClient, HarnessGymEnv


def episode_options(case: Dict[str, Any]) -> Dict[str, Any]:
    """Gymnasium-style reset options for a case, with oracle hints on."""
    return {"variant": case["variant"], **case["options"], "oracle_hints": True}


async def play_vector(case: Dict[str, Any], encoding: str, group_size: int, groups: int) -> List[Any]:
    """Play ``groups`` groups of the case with the vector env; returns finished groups in seed order."""
    client = await HarnessGymClient.connect(support.server_url(), encoding=encoding)
    try:
        env = AsyncVectorEnv(
            client, groups * group_size, group_size=group_size, seed=case["seed"], options=episode_options(case), autoreset=False
        )
        _, infos = await env.reset()
        last = list(infos)
        finished = []
        for _ in range(64):
            if env.all_idle:
                break
            actions = [last[i]["oracle_action"] if live else None for i, live in enumerate(env.live)]
            _, _, _, _, step_infos = await env.step(actions)
            for i, live in enumerate(actions):
                if live is not None:
                    last[i] = step_infos[i]
            finished.extend(env.finished_groups())
        await env.close()
        return sorted(finished, key=lambda g: g.seed)
    finally:
        await client.close()


class OracleHintsTest(unittest.TestCase):
    cases: List[Dict[str, Any]]

    @classmethod
    def setUpClass(cls) -> None:
        cls.cases = support.expected()["cases"]

    def test_cases_are_not_empty(self) -> None:
        self.assertGreaterEqual(len(self.cases), 3)
        for case in self.cases:
            self.assertGreater(len(case["rewards"]), 0)

    def test_vector_env_matches_typescript_oracle_per_seed(self) -> None:
        for case in self.cases:
            for encoding in ("msgpack", "json"):
                with self.subTest(case=case["name"], encoding=encoding):
                    groups = support.run(play_vector(case, encoding, 1, len(case["rewards"])))
                    self.assertEqual([g.seed for g in groups], [case["seed"] + i for i in range(len(case["rewards"]))])
                    rewards = [g.rewards[0] for g in groups]
                    self.assertEqual(rewards, case["rewards"])
                    self.assertEqual([g.infos[0]["reward_components"] for g in groups], case["components"])
                    self.assertEqual([g.infos[0]["outcome"] for g in groups], case["outcomes"])
                    support.report(f"vector/{case['name']}/{encoding}", rewards)

    def test_groups_share_task_and_variant_and_score_as_their_seed(self) -> None:
        case = self.cases[0]
        groups = support.run(play_vector(case, "msgpack", 4, 4))
        self.assertEqual(len(groups), 4)
        for k, group in enumerate(groups):
            self.assertEqual(group.seed, case["seed"] + k)
            self.assertEqual(group.rewards, [case["rewards"][k]] * 4)
            self.assertEqual(len({g["task_id"] for g in group.infos}), 1)
            self.assertEqual(len({g["variant_id"] for g in group.infos}), 1)
            self.assertEqual(group.advantages(), [0.0] * 4)
        support.report("groups", [g.rewards for g in groups])

    def test_blocking_env_matches_typescript_oracle(self) -> None:
        for case in self.cases:
            with self.subTest(case=case["name"]):
                env = HarnessGymEnv(support.server_url(), encoding="json")
                rewards = []
                try:
                    for i in range(min(8, len(case["rewards"]))):
                        obs, info = env.reset(seed=case["seed"] + i, options=episode_options(case))
                        self.assertEqual(info["turn"], 0)
                        at_reset = sum(1 for m in env.messages if m["role"] == "assistant")
                        self.assertIn("tools", obs)
                        for _ in range(32):
                            obs, reward, terminated, truncated, info = env.step(info["oracle_action"])
                            if terminated or truncated:
                                break
                        self.assertTrue(terminated or truncated)
                        # The client's copy of the conversation grew by every agent turn and every delta.
                        self.assertEqual(sum(1 for m in env.messages if m["role"] == "assistant") - at_reset, info["turn"])
                        rewards.append(reward)
                finally:
                    env.close()
                self.assertEqual(rewards, case["rewards"][: len(rewards)])
                support.report(f"blocking/{case['name']}", rewards)


if __name__ == "__main__":
    unittest.main()
