"""The TRL shim driven as GRPOTrainer._generate drives a rollout_func, through the stand-in, over a live server.

The prompts are the dataset's "prompt" column made by ``prompt_column``, each repeated num_generations times
(TRL's RepeatSampler); the output goes through the stand-in's ``call_rollout_func`` and ``merge_extra_fields``,
and the reward functions are called with the merged fields as TRL calls them. Two generation seams: the
injected per-episode ``generate`` (here the oracle, from the server's hints), and the default
``trainer.vllm_generation.generate`` (here a fake vLLM answering a fixed text, one batched call per turn).
"""

from __future__ import annotations

import contextvars
import unittest
from collections import defaultdict
from typing import Any, Dict, List

import support
from stand_ins import installed
from test_adapter_verl import train_tokenizer
from test_train_tokens import hermes_text, mask_runs

from harness_gym.train import Generation, ToyTokenizer, group_rows

EPISODE: contextvars.ContextVar[Dict[str, Any]] = contextvars.ContextVar("trl_episode")
G = 4


class Records:
    """Every episode's reset/step results (the observer runs in the episode's own asyncio task)."""

    def __init__(self) -> None:
        self.episodes: List[Dict[str, Any]] = []

    def observe(self, result: Dict[str, Any]) -> None:
        if "reward" not in result:  # a reset result: a new episode in this task
            episode: Dict[str, Any] = {"results": [], "generated": []}
            EPISODE.set(episode)
            self.episodes.append(episode)
        EPISODE.get()["results"].append(result)

    def by_task(self) -> Dict[str, List[Dict[str, Any]]]:
        out: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
        for e in self.episodes:
            out[e["results"][0]["info"]["task_id"]].append(e)
        return out


def call_reward_funcs(funcs: List[Any], inputs: List[Dict[str, Any]]) -> Dict[str, List[float]]:
    """GRPOTrainer._calculate_rewards: every input key but prompt/completion goes to each function as a list."""
    keys = [k for k in inputs[0] if k not in ("prompt", "completion", "completion_ids")]
    kwargs = {k: [inp[k] for inp in inputs] for k in keys}
    return {f.__name__: f(prompts=[i["prompt"] for i in inputs], completions=["" for _ in inputs], **kwargs) for f in funcs}


class TrlAdapterTest(unittest.TestCase):
    tokenizer: ToyTokenizer

    @classmethod
    def setUpClass(cls) -> None:
        cls.tokenizer = train_tokenizer()

    def check(self, trl: Any, out: Any, prompts: List[Any], records: Records, generated_by_task: Dict[str, List[List[int]]]) -> List[Dict[str, Any]]:
        prompt_ids, completion_ids, logprobs, env_mask, extra = out
        n = len(prompts)
        for value in (prompt_ids, completion_ids, logprobs, env_mask, *extra.values()):
            self.assertEqual(len(value), n)
        episodes = records.by_task()
        for i in range(n):
            task = extra["harness_task_id"][i]
            finals = [e["results"][-1] for e in episodes[task]]
            self.assertEqual(len(episodes[task]), G)  # the G siblings of a prompt all played this task
            self.assertEqual(len({e["results"][0]["info"]["variant_id"] for e in episodes[task]}), 1)
            self.assertEqual(extra["harness_reward"][i], finals[0]["reward"])
            self.assertEqual(extra["reward_components"][i], finals[0]["info"]["reward_components"])
            self.assertEqual(extra["harness_failure"][i], "")
            spans = mask_runs(env_mask[i])
            self.assertEqual([completion_ids[i][a:b] for a, b in spans], generated_by_task[task])
            self.assertEqual(len(logprobs[i]), len(completion_ids[i]))
            self.assertEqual(sum(1 for m in env_mask[i] if m), sum(len(g) for g in generated_by_task[task]))
        # Siblings (consecutive G) share task and variant; the groups differ.
        groups = [(extra["harness_task_id"][k], extra["harness_variant_id"][k]) for k in range(0, n)]
        for g in range(0, n, G):
            self.assertEqual(len(set(groups[g : g + G])), 1)
        self.assertEqual(len(set(groups)), n // G)
        inputs = [{"prompt": p} for p in prompts]
        trl.merge_extra_fields(inputs, extra)
        return inputs

    def test_rollout_func_with_an_injected_generator_plays_the_oracle_token_exact(self) -> None:
        with installed("trl") as trl:
            from harness_gym.adapters import trl as ht

            rows = group_rows(3, seed=800, variant="train", locale="en", group_size=G)
            self.assertEqual(ht.row_from_prompt(ht.prompt_column(rows)[1]), rows[1])
            prompts = [p for p in ht.prompt_column(rows) for _ in range(G)]  # RepeatSampler(mini_repeat_count=G)
            records = Records()
            generated_by_task: Dict[str, List[List[int]]] = {}
            tok = self.tokenizer

            async def oracle(ids: List[int], max_new_tokens: int) -> Generation:
                episode = EPISODE.get()
                message = episode["results"][-1]["info"]["oracle_action"]["message"]
                text = hermes_text(message)
                if not message.get("tool_calls") and not episode.get("blocked"):
                    episode["blocked"] = True
                    text = f"**{text}**"
                out = (tok.encode(text) + [tok.eos_token_id])[:max_new_tokens]
                episode["generated"].append(out)
                generated_by_task[episode["results"][0]["info"]["task_id"]] = episode["generated"]
                return Generation(out, [-0.5] * len(out))

            func = ht.make_rollout_func(support.server_url(), generate=oracle, on_result=records.observe,
                                        reset_options={"oracle_hints": True}, max_turns=12)
            trainer = trl.GRPOTrainer(processing_class=tok, args={"max_completion_length": 2048}, num_generations=G)
            out = trl.call_rollout_func(func, prompts, trainer)
            inputs = self.check(trl, out, prompts, records, generated_by_task)
            _, completion_ids, logprobs, env_mask, extra = out
            for i in range(len(prompts)):
                self.assertEqual(logprobs[i], [-0.5 if m else 0.0 for m in env_mask[i]])
            rewards = call_reward_funcs([ht.harness_reward, *[ht.component_reward(c) for c in ht.DEFAULT_COMPONENTS]], inputs)
            self.assertEqual(rewards["harness_reward"], extra["harness_reward"])
            self.assertEqual(rewards["harness_accuracy"], [c["accuracy"] for c in extra["reward_components"]])
            self.assertTrue(any(len(mask_runs(m)) > 1 for m in env_mask))  # multi-turn: env ids between turns
            support.report("adapters/trl", {"samples": len(prompts), "mean_reward": sum(rewards["harness_reward"]) / len(prompts)})

    def test_rollout_func_generates_through_trainer_vllm_generation_one_batched_call_per_turn(self) -> None:
        with installed("trl") as trl:
            from harness_gym.adapters import trl as ht

            tok = self.tokenizer
            reply = tok.encode("您好，请问您想了解哪款商品？") + [tok.eos_token_id]

            class FakeVLLM(trl.VLLMGeneration):
                calls: List[int] = []

                def generate(self, prompts, images, num_generations, profiler=None):
                    self.calls.append(len(prompts))
                    assert images is None and num_generations == 1
                    lps = [[-0.25 - i / 100] for i in range(len(reply))]
                    return prompts, [list(reply) for _ in prompts], [lps for _ in prompts], None

            rows = group_rows(2, seed=810, variant="identity", locale="zh-CN", group_size=G)
            prompts = [p for p in ht.prompt_column(rows) for _ in range(G)]
            records = Records()
            vllm = FakeVLLM()
            trainer = trl.GRPOTrainer(vllm_generation=vllm, processing_class=tok, args={"max_completion_length": 64}, num_generations=G)
            func = ht.make_rollout_func(support.server_url(), on_result=records.observe, max_turns=3, max_episode_tokens=100000, mask_truncated=False)
            out = trl.call_rollout_func(func, prompts, trainer)
            turns = [len(e["results"]) - 1 for e in records.episodes]
            generated = {e["results"][0]["info"]["task_id"]: [reply] * (len(e["results"]) - 1) for e in records.episodes}
            self.check(trl, out, prompts, records, generated)
            # One vLLM call per turn, carrying every episode still running.
            self.assertGreater(max(turns), 1)
            self.assertEqual(vllm.calls, [sum(1 for t in turns if t > k) for k in range(max(turns))])
            _, _, logprobs, env_mask, _ = out
            for lp, mask in zip(logprobs, env_mask):
                run = [x for x, m in zip(lp, mask) if m]
                self.assertEqual(run[: len(reply)], [-0.25 - i / 100 for i in range(len(reply))])

    def test_failures_are_masked_and_import_needs_no_trl(self) -> None:
        from harness_gym.adapters import trl as ht

        class Trainer:
            processing_class = self.tokenizer
            args = {"max_completion_length": 32}

        async def chatty(ids: List[int], n: int) -> Generation:
            return Generation(self.tokenizer.encode("x " * 200)[:n], [-1.0] * min(n, 200))

        (row,) = group_rows(1, seed=820, variant="identity", locale="en", group_size=1)
        out = ht.make_rollout_func(support.server_url(), generate=chatty, max_episode_tokens=100, max_turns=12)(ht.prompt_column([row]), Trainer())
        self.assertEqual(out["harness_failure"], ["response_budget"])
        self.assertEqual(set(out["env_mask"][0]), {0})
        self.assertEqual(len(out["completion_ids"][0]), 100)
        self.assertEqual(ht.harness_reward(harness_reward=out["harness_reward"]), [0.0])
        with self.assertRaises(ValueError):
            ht.row_from_prompt("no row here")


if __name__ == "__main__":
    unittest.main()
