"""AsyncVectorEnv's groups and autoreset against a real server, checked step by step against a model of
the behaviour clients/python/README.md ("Vector envs and GRPO groups") documents.

The policy makes siblings end at different steps: even slots play the server's oracle hint, odd slots a
canned reply, so a group's members finish apart and the early one has to wait.
"""

from __future__ import annotations

import unittest
from typing import Any, Dict, List, Optional, Tuple

import support

from harness_gym import AsyncVectorEnv, GroupResult, HarnessGymClient

SEED = 11
OPTIONS = {"variant": "train", "oracle_hints": True, "max_turns": 6}
WAITING = {"waiting": True}


def act(slot: int, info: Dict[str, Any]) -> Dict[str, Any]:
    """Even slots: the oracle's next action; odd slots: a reply that does not solve the task."""
    return info["oracle_action"] if slot % 2 == 0 else {"text": "好的，稍等"}


class Model:
    """What the README says a slot does: live -> (its episode ends) waiting -> (its group's last member
    ends: the group is reported) due -> (next step: the group is reset) live."""

    def __init__(self, num_envs: int, group_size: int, seed: int) -> None:
        self.group_size = group_size
        self.state = ["live"] * num_envs
        self.final: List[Optional[Tuple[float, Dict[str, Any]]]] = [None] * num_envs
        self.seed = seed
        self.started = num_envs // group_size  # groups started so far: the reset made one per group

    def groups(self) -> List[List[int]]:
        n = len(self.state)
        return [list(range(g, g + self.group_size)) for g in range(0, n, self.group_size)]


async def play(case: unittest.TestCase, num_envs: int, group_size: int, steps: int) -> Dict[str, int]:
    """Run ``steps`` steps, asserting every slot's result and every finished group against the model."""
    client = await HarnessGymClient.connect(support.server_url())
    counts = {"waited": 0, "autoresets": 0, "groups": 0, "mixed_groups": 0}
    try:
        env = AsyncVectorEnv(client, num_envs, group_size=group_size, seed=SEED, options=OPTIONS)
        _, infos = await env.reset()
        model = Model(num_envs, group_size, SEED)
        case.assertEqual(env.group_ids, [f"vec-g{s // group_size}" for s in range(num_envs)])
        last = list(infos)
        for t in range(steps):
            case.assertEqual(env.live, [s == "live" for s in model.state], f"step {t}")
            before_ids = list(env.group_ids)
            actions = [act(i, last[i]) if live else None for i, live in enumerate(env.live)]
            observations, rewards, terminated, truncated, infos = await env.step(actions)
            for i in range(num_envs):
                where = f"step {t} slot {i} ({model.state[i]})"
                if model.state[i] == "live":
                    case.assertIsNotNone(observations[i], where)
                    case.assertNotIn("autoreset", infos[i], where)
                    last[i] = infos[i]
                    if terminated[i] or truncated[i]:
                        model.state[i] = "waiting"
                        model.final[i] = (rewards[i], infos[i])
                        case.assertIn("outcome", infos[i], where)
                    else:
                        case.assertEqual(rewards[i], 0.0, where)
                elif model.state[i] == "due":
                    # Reset, not stepped: the new group's reset observation, reward 0, the autoreset mark.
                    case.assertEqual((rewards[i], terminated[i], truncated[i]), (0.0, False, False), where)
                    case.assertIs(infos[i]["autoreset"], True, where)
                    case.assertEqual(infos[i]["turn"], 0, where)
                    case.assertIn("tools", observations[i], where)
                    case.assertNotEqual(env.group_ids[i], before_ids[i], where)
                    last[i] = infos[i]
                    model.state[i] = "live"
                    counts["autoresets"] += 1
                else:
                    got = (observations[i], rewards[i], terminated[i], truncated[i], infos[i])
                    case.assertEqual(got, (None, 0.0, False, False, WAITING), where)
                    counts["waited"] += 1
            # New groups take the next ids, in slot order, and seed + (groups started so far).
            for slots in model.groups():
                if env.group_ids[slots[0]] != before_ids[slots[0]]:
                    case.assertEqual(env.group_ids[slots[0]], f"vec-g{model.started}")
                    case.assertEqual({env.group_ids[i] for i in slots}, {f"vec-g{model.started}"})
                    model.started += 1
            expected: List[GroupResult] = []
            for slots in model.groups():
                if all(model.state[i] == "waiting" for i in slots):
                    group_id = env.group_ids[slots[0]]
                    k = int(group_id.rsplit("-g", 1)[1])
                    finals = [model.final[i] for i in slots]
                    expected.append(
                        GroupResult(
                            group_id=group_id,
                            seed=SEED + k,
                            episode_ids=[f"vec-{i}" for i in slots],
                            rewards=[f[0] for f in finals if f],
                            infos=[f[1] for f in finals if f],
                            slots=slots,
                        )
                    )
                    for i in slots:
                        model.state[i] = "due"
            got = env.finished_groups()
            case.assertEqual(got, expected, f"step {t}")
            case.assertEqual(env.finished_groups(), [], "taking empties the queue")
            for group in got:
                counts["groups"] += 1
                counts["mixed_groups"] += max(group.rewards) > min(group.rewards)
                case.assertEqual(len({info["task_id"] for info in group.infos}), 1, "siblings share a task")
                case.assertEqual(len({info["variant_id"] for info in group.infos}), 1, "and a variant")
        await env.close()
    finally:
        await client.close()
    return counts


async def first_steps(options: Dict[str, Any], autoreset: bool, steps: int) -> List[Tuple[Any, List[GroupResult]]]:
    """``steps`` steps of 4 slots in groups of 2, every live slot playing the oracle; each step's result
    and the groups finished_groups() returned right after it."""
    client = await HarnessGymClient.connect(support.server_url())
    try:
        env = AsyncVectorEnv(client, 4, group_size=2, seed=SEED, options=options, autoreset=autoreset)
        _, last = await env.reset()
        out = []
        for _ in range(steps):
            actions = [last[i]["oracle_action"] if live else None for i, live in enumerate(env.live)]
            result = await env.step(actions)
            last = [result[4][i] if result[0][i] is not None else last[i] for i in range(4)]
            out.append((result, env.finished_groups()))
        out.append((env.all_idle, []))
        await env.close()
        return out
    finally:
        await client.close()


class VectorEnvTest(unittest.TestCase):
    def test_autoreset_follows_the_documented_slot_cycle(self) -> None:
        counts = support.run(play(self, 8, 2, 24))
        # The run exercised every transition: siblings waited, groups were reset, rewards differed.
        self.assertGreater(counts["waited"], 0, counts)
        self.assertGreaterEqual(counts["autoresets"], 8, counts)
        self.assertGreaterEqual(counts["groups"], 4, counts)
        self.assertGreater(counts["mixed_groups"], 0, counts)

    def test_groups_ending_on_one_step_are_all_returned_by_one_call(self) -> None:
        # max_turns 1: every episode is truncated on its first step, so both groups end together.
        steps = support.run(first_steps({**OPTIONS, "max_turns": 1}, True, 3))
        (obs, rewards, terminated, truncated, infos), groups = steps[0]
        self.assertEqual((terminated, truncated), ([False] * 4, [True] * 4))
        self.assertEqual([(g.group_id, g.seed, g.slots) for g in groups], [("vec-g0", SEED, [0, 1]), ("vec-g1", SEED + 1, [2, 3])])
        self.assertEqual([g.rewards for g in groups], [rewards[0:2], rewards[2:4]])
        self.assertEqual([[i["outcome"] for i in g.infos] for g in groups], [["max_turns"] * 2] * 2)
        # The next step resets all four slots (nothing is stepped); the one after ends the new groups.
        (obs, rewards, terminated, truncated, infos), groups = steps[1]
        self.assertEqual(groups, [])
        self.assertEqual([i["autoreset"] for i in infos], [True] * 4)
        self.assertEqual(rewards, [0.0] * 4)
        _, groups = steps[2]
        self.assertEqual([(g.group_id, g.seed) for g in groups], [("vec-g2", SEED + 2), ("vec-g3", SEED + 3)])

    def test_without_autoreset_finished_slots_stay_idle(self) -> None:
        steps = support.run(first_steps({**OPTIONS, "max_turns": 1}, False, 3))
        self.assertEqual(len(steps[0][1]), 2)
        for (obs, rewards, terminated, truncated, infos), groups in steps[1:3]:
            self.assertEqual((obs, rewards, infos, groups), ([None] * 4, [0.0] * 4, [WAITING] * 4, []))
        self.assertIs(steps[3][0], True, "all_idle")


if __name__ == "__main__":
    unittest.main()
