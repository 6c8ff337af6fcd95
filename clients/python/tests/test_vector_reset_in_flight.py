"""Regression: ``AsyncVectorEnv.reset()`` failed on a session that had already run the env.

- With episodes still running it re-sent their ids, and the server refuses to reset a live episode:
  ``DUPLICATE_EPISODE``. reset() now closes the live ones first.
- ``reset(seed=...)`` restarted the group numbering, so the new groups reused the session's old group
  ids; the server keeps a group for the whole session and a new seed for it is ``INVALID_MESSAGE``
  ("conflicts with group"). Group ids now count every group the env ever started; only the seed count
  restarts.
"""

from __future__ import annotations

import unittest
from typing import Any, Dict, List, Tuple

import support

from harness_gym import AsyncVectorEnv, HarnessGymClient

OPTIONS = {"variant": "train", "oracle_hints": True}


async def fresh_tasks(seed: int) -> List[str]:
    """The task ids a new env seeded ``seed`` gets on a new session (2 groups of 2)."""
    async with await HarnessGymClient.connect(support.server_url()) as client:
        env = AsyncVectorEnv(client, 4, group_size=2, seed=seed, options=OPTIONS)
        _, infos = await env.reset()
        await env.close()
        return [info["task_id"] for info in infos]


async def play_to_end(env: AsyncVectorEnv, infos: List[Dict[str, Any]]) -> List[Tuple[str, Any, List[float]]]:
    """Play the oracle until every group has finished once (``autoreset=False``); the groups by id."""
    last = list(infos)
    finished = []
    for _ in range(64):
        if env.all_idle:
            break
        actions = [last[i]["oracle_action"] if live else None for i, live in enumerate(env.live)]
        _, _, _, _, step_infos = await env.step(actions)
        last = [step_infos[i] if actions[i] is not None else last[i] for i in range(env.num_envs)]
        finished.extend((g.group_id, g.seed, g.rewards) for g in env.finished_groups())
    return sorted(finished)


class VectorResetInFlightTest(unittest.TestCase):
    def test_reset_while_episodes_run_closes_them_and_starts_new_groups(self) -> None:
        async def go() -> Tuple[List[str], List[str], List[Tuple[str, Any, List[float]]], List[str]]:
            async with await HarnessGymClient.connect(support.server_url()) as client:
                env = AsyncVectorEnv(client, 4, group_size=2, seed=7, options=OPTIONS, autoreset=False)
                _, infos = await env.reset()
                # One step: every slot is still live (or some ended): reset must not care.
                await env.step([info["oracle_action"] for info in infos])
                _, infos = await env.reset()
                ids = list(env.group_ids)
                self.assertEqual(env.finished_groups(), [])
                self.assertEqual([info["turn"] for info in infos], [0] * 4)
                finished = await play_to_end(env, infos)
                await env.close()
                return ids, [info["task_id"] for info in infos], finished, await fresh_tasks(7 + 2)

        ids, tasks, finished, expected_tasks = support.run(go())
        self.assertEqual(ids, ["vec-g2", "vec-g2", "vec-g3", "vec-g3"])
        # Without a new seed the count goes on: the second reset's groups are the env's groups 2 and 3.
        self.assertEqual(tasks, expected_tasks)
        self.assertEqual([(g, s) for g, s, _ in finished], [("vec-g2", 9), ("vec-g3", 10)])

    def test_reset_with_a_new_seed_restarts_the_seeds_not_the_group_ids(self) -> None:
        async def go() -> Tuple[List[str], List[str], List[Tuple[str, Any, List[float]]]]:
            async with await HarnessGymClient.connect(support.server_url()) as client:
                env = AsyncVectorEnv(client, 4, group_size=2, seed=1, options=OPTIONS, autoreset=False)
                _, infos = await env.reset()
                await play_to_end(env, infos)
                _, infos = await env.reset(seed=5)
                ids = list(env.group_ids)
                finished = await play_to_end(env, infos)
                await env.close()
                return ids, [info["task_id"] for info in infos], finished

        ids, tasks, finished = support.run(go())
        self.assertEqual(ids, ["vec-g2", "vec-g2", "vec-g3", "vec-g3"])
        self.assertEqual([(g, s) for g, s, _ in finished], [("vec-g2", 5), ("vec-g3", 6)])
        # Seeded 5 on a used session gives what a new env seeded 5 gets.
        self.assertEqual(tasks, support.run(fresh_tasks(5)))


if __name__ == "__main__":
    unittest.main()
