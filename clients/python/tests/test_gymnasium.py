"""``HarnessGym-v0`` (harness_gym/gymnasium.py) against the real Gymnasium and a real server.

Gymnasium is vendored verbatim (vendor/gymnasium/VENDOR.json names the commit; vendor/check_vendor.py
checks every file), with its one dependency outside Debian, ``farama_notifications``, vendored the same
way (vendor/farama_notifications/). Both folders go first on ``sys.path`` here, so these tests run the
pinned Gymnasium whatever else is installed. What they show:

- ``gymnasium.utils.env_checker.check_env`` passes on the env, with no warning;
- ``gymnasium.make`` builds the ``OrderEnforcing(PassiveEnvChecker(env))`` stack and episodes play
  through it, observations inside the declared space;
- ``TimeLimit(RecordEpisodeStatistics(env))`` plays episodes and reports their statistics;
- ``SyncVectorEnv`` and ``AsyncVectorEnv`` (``gymnasium.make_vec``) each run 64 episodes;
- any Python int is a seed (``2**40``, negative, huge): the same seed gives the same episode;
- without Gymnasium, ``import harness_gym`` works and ``harness_gym.gymnasium`` names what to install.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
import unittest
import warnings
from typing import Any, Dict, List

import support

VENDOR = os.path.join(support.HERE, "vendor")
VENDORED = [os.path.join(VENDOR, "gymnasium"), os.path.join(VENDOR, "farama_notifications")]
for _path in reversed(VENDORED):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker, RecordEpisodeStatistics, TimeLimit  # noqa: E402

import harness_gym.gymnasium as hgym  # noqa: E402

#: Oracle hints let the tests finish episodes the way the reference policy does.
OPTIONS = {"variant": "train", "oracle_hints": True}


def make(**kwargs: Any) -> gym.Env:
    kwargs.setdefault("options", OPTIONS)
    return gym.make(hgym.ENV_ID, url=support.server_url(), **kwargs)


def oracle(info: Dict[str, Any]) -> Dict[str, Any]:
    return info["oracle_action"]


class GymnasiumEnvTest(unittest.TestCase):
    def test_vendored_gymnasium_is_the_one_under_test(self) -> None:
        with open(os.path.join(VENDOR, "gymnasium", "VENDOR.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        self.assertTrue(gym.__file__.startswith(os.path.join(VENDOR, "gymnasium", "gymnasium")), gym.__file__)
        self.assertEqual(manifest["repo"], "Farama-Foundation/Gymnasium")
        self.assertIn(hgym.ENV_ID, gym.registry)
        self.assertEqual(gym.spec(hgym.ENV_ID).entry_point, "harness_gym.gymnasium:HarnessGymnasiumEnv")

    def test_check_env_passes(self) -> None:
        env = make(options={"variant": "train"})
        try:
            self.assertIsInstance(env.unwrapped, gym.Env)
            human = io.StringIO()
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(human):
                warnings.simplefilter("always")
                check_env(env.unwrapped)  # render modes checked through env.spec.make(render_mode=...)
            self.assertEqual([str(w.message) for w in caught], [])
            self.assertIn("==== episode", human.getvalue())  # render_mode="human" printed the conversation
        finally:
            env.close()

    def test_make_gives_the_checked_stack_and_plays_episodes(self) -> None:
        env = make()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.play_through_the_stack(env)
        self.assertEqual([str(w.message) for w in caught], [])  # PassiveEnvChecker found nothing to say

    def play_through_the_stack(self, env: gym.Env) -> None:
        try:
            self.assertIsInstance(env, OrderEnforcing)
            self.assertIsInstance(env.env, PassiveEnvChecker)
            self.assertIsInstance(env.unwrapped, hgym.HarnessGymnasiumEnv)
            with self.assertRaises(gym.error.ResetNeeded):
                env.step("hello")
            for seed in range(3):
                obs, info = env.reset(seed=seed)
                self.assertIn(obs, env.observation_space)
                self.assertEqual(info["turn"], 0)
                self.assertTrue(json.loads(obs["tools"]))
                at_reset = sum(m["role"] == "assistant" for m in obs["messages"])
                for _ in range(32):
                    obs, reward, terminated, truncated, info = env.step(oracle(info))
                    self.assertIn(obs, env.observation_space)
                    if terminated or truncated:
                        break
                self.assertTrue(terminated or truncated)
                self.assertIn("outcome", info)
                self.assertGreaterEqual(reward, 0.0)
                # The observation is the whole conversation; chat_messages gives back the OpenAI messages.
                self.assertEqual(hgym.chat_messages(obs), env.unwrapped.messages)
                self.assertEqual(sum(m["role"] == "assistant" for m in obs["messages"]), at_reset + info["turn"])
            # A string action is a raw completion the episode's parser reads.
            obs, info = env.reset(seed=99)
            before = len(obs["messages"])
            obs, reward, terminated, truncated, info = env.step("好的宝宝，稍等一下")
            self.assertEqual(obs["messages"][before]["role"], "assistant")
            self.assertEqual(obs["messages"][before]["content"], "好的宝宝，稍等一下")
        finally:
            env.close()

    def test_render(self) -> None:
        env = make(render_mode="ansi")
        try:
            obs, info = env.reset(seed=5)
            text = env.render()
            self.assertIsInstance(text, str)
            self.assertIn("[system]", text)
            self.assertIn(obs["messages"][-1]["content"], text)
            obs, *_ = env.step(oracle(info))
            text = env.render()
            self.assertIn("[assistant]", text)
            self.assertIn("-> ", text)  # the oracle's first turn calls tools
            self.assertIn("[tool ", text)
        finally:
            env.close()
        env = make(render_mode="human")
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                obs, info = env.reset(seed=5)
                env.step(oracle(info))
                self.assertIsNone(env.render())
            self.assertIn("==== episode", out.getvalue())
            self.assertEqual(out.getvalue().count("[system]"), 1)  # printed as it grows, once
            self.assertIn("[tool ", out.getvalue())
        finally:
            env.close()

    def test_time_limit_over_record_episode_statistics(self) -> None:
        base = make()
        env = TimeLimit(RecordEpisodeStatistics(base), max_episode_steps=2)
        recorded, cut = 0, 0
        try:
            for seed in range(12):
                obs, info = env.reset(seed=seed)
                first = oracle(info)  # the oracle's tool calls: the oracle ends in two steps, odd seeds never reply
                steps, total = 0, 0.0
                while True:
                    obs, reward, terminated, truncated, info = env.step(oracle(info) if seed % 2 == 0 else first)
                    steps += 1
                    total += reward
                    if terminated or truncated:
                        break
                self.assertLessEqual(steps, 2)
                if "outcome" in info:  # the server ended it: RecordEpisodeStatistics saw the end
                    recorded += 1
                    self.assertEqual(info["episode"]["l"], steps)
                    self.assertAlmostEqual(float(info["episode"]["r"]), total, places=5)
                    self.assertGreaterEqual(float(info["episode"]["t"]), 0.0)
                else:  # cut by TimeLimit, outside the statistics wrapper
                    cut += 1
                    self.assertEqual((steps, terminated, truncated), (2, False, True))
                    self.assertNotIn("episode", info)
            inner = env.env
            self.assertEqual(len(inner.return_queue), recorded)
            self.assertEqual(list(inner.length_queue), [2] * recorded)
            self.assertEqual(recorded + cut, 12)
            self.assertGreater(recorded, 0)
            self.assertGreater(cut, 0)
            print("TimeLimit(RecordEpisodeStatistics): %d episodes recorded, %d cut at 2 steps" % (recorded, cut),
                  file=sys.stderr)
        finally:
            env.close()

    def vector_episodes(self, mode: str, num_envs: int, episodes: int, **vector_kwargs: Any) -> None:
        started = time.monotonic()
        envs = gym.make_vec(
            hgym.ENV_ID,
            num_envs=num_envs,
            vectorization_mode=mode,
            vector_kwargs=vector_kwargs,
            url=support.server_url(),
            options=OPTIONS,
        )
        stats = gym.wrappers.vector.RecordEpisodeStatistics(envs, buffer_length=episodes * 2)
        envs = gym.wrappers.vector.DictInfoToList(stats)  # infos: one dict per sub-env
        try:
            self.assertEqual(envs.metadata["autoreset_mode"], gym.vector.AutoresetMode.NEXT_STEP)
            obs, infos = envs.reset(seed=1000)
            self.assertEqual(len(obs["messages"]), num_envs)
            self.assertEqual(len({info["server_seed"] for info in infos}), num_envs)
            ended = np.zeros(num_envs, dtype=bool)
            rewards: List[float] = []
            for _ in range(episodes * 16):
                # A slot that ended last step is reset by this one (its action is ignored).
                actions = tuple("" if ended[i] else infos[i]["oracle_action"] for i in range(num_envs))
                obs, reward, terminated, truncated, infos = envs.step(actions)
                ended = terminated | truncated
                rewards.extend(float(r) for r in reward[ended])
                if len(rewards) >= episodes:
                    break
            self.assertGreaterEqual(len(rewards), episodes)
            self.assertEqual(len(stats.return_queue), len(rewards))
            self.assertEqual(sorted(float(r) for r in stats.return_queue), sorted(rewards))
            self.assertTrue(all(0.0 <= r <= 1.0 for r in rewards))
            seconds = time.monotonic() - started
            print("%s vector env: %d envs, %d episodes in %.2f s, mean reward %.3f"
                  % (mode, num_envs, len(rewards), seconds, sum(rewards) / len(rewards)), file=sys.stderr)
        except BaseException:
            envs.close(terminate=True)  # a worker may be mid-step: do not wait for it
            raise
        envs.close()

    def test_sync_vector_env_runs_64_episodes(self) -> None:
        self.vector_episodes("sync", 8, 64)

    def test_async_vector_env_runs_64_episodes(self) -> None:
        # Each subprocess opens its own connection; observations are tuples of strings, not shared arrays.
        # spawn, not fork: the suite's process may hold other threads (fork would copy their locks).
        self.vector_episodes("async", 4, 64, shared_memory=False, context="spawn")

    def test_any_int_is_a_seed_and_seeds_are_deterministic(self) -> None:
        env = make()
        try:
            for seed in (2**40, -1, -(2**70), 10**30, 0, 2**32, np.int64(7)):
                with self.subTest(seed=int(seed)):
                    obs_a, info_a = env.reset(seed=seed)
                    then_a = env.reset()
                    obs_b, info_b = env.reset(seed=seed)
                    then_b = env.reset()
                    self.assertTrue(gym.utils.env_checker.data_equivalence((obs_a, info_a), (obs_b, info_b), exact=True))
                    self.assertTrue(gym.utils.env_checker.data_equivalence(then_a, then_b, exact=True))
                    self.assertTrue(0 <= info_a["server_seed"] < 2**32)
                    self.assertEqual(env.unwrapped.np_random_seed, int(seed))
            # Different seeds, different server seeds; -s is not s.
            seen = {env.reset(seed=s)[1]["server_seed"] for s in (1, -1, 2, -2, 2**40, -(2**40))}
            self.assertEqual(len(seen), 6)
            # Non-negative seeds seed np_random exactly as Gymnasium does.
            env.reset(seed=2**40)
            expected = gym.utils.seeding.np_random(2**40)[0].integers(0, 2**32)
            env.reset(seed=2**40)
            self.assertEqual(env.unwrapped.np_random_seed, 2**40)
            self.assertEqual(int(expected), env.reset(seed=2**40)[1]["server_seed"])
        finally:
            env.close()

    def test_without_gymnasium_nothing_changes(self) -> None:
        code = (
            "import sys\n"
            "sys.modules['gymnasium'] = None  # as if not installed, whatever is\n"
            "import harness_gym\n"
            "assert harness_gym.HarnessGymEnv and harness_gym.VectorEnv\n"
            "assert 'harness_gym.gymnasium' not in sys.modules\n"
            "try:\n"
            "    import harness_gym.gymnasium\n"
            "except ImportError as e:\n"
            "    print('ImportError:', e)\n"
            "else:\n"
            "    print('imported')\n"
        )
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=support.PACKAGE_ROOT, capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": support.PACKAGE_ROOT},
        )
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("ImportError: harness_gym.gymnasium needs Gymnasium", run.stdout)
        self.assertIn("pip install gymnasium", run.stdout)


if __name__ == "__main__":
    unittest.main()
