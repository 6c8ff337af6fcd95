"""The OpenRLHF shim driven as OpenRLHF drives an agent-func file, through the stand-in, over a live server.

The example file is loaded by the stand-in's ``_load_agent_executor`` (``AgentExecutor()`` with no arguments)
and ``execute(prompt, label, sampling_params, max_length, hf_tokenizer, llm_engine)`` runs for 3 groups x 3
samples concurrently, the label made by the example dataset script. The engine answers with the oracle's next
action (the server's hints) as a vLLM RequestOutput would; its first final reply is bold, which the
``reply_format`` hook blocks, so episodes go on with hook feedback.
"""

from __future__ import annotations

import asyncio
import contextvars
import importlib.util
import os
import unittest
from types import SimpleNamespace
from typing import Any, Dict, List

import support
from stand_ins import installed
from test_adapter_verl import train_tokenizer
from test_train_tokens import hermes_text

from harness_gym.train import ToyTokenizer, group_rows

EXAMPLES = os.path.join(support.PACKAGE_ROOT, "examples", "openrlhf")
EPISODE: contextvars.ContextVar[Dict[str, Any]] = contextvars.ContextVar("openrlhf_episode")


class HFTokenizer(ToyTokenizer):
    """What OpenRLHF calls on a Hugging Face tokenizer: ``tok(text=..., ...)["input_ids"][0].tolist()``."""

    def __call__(self, text: str, add_special_tokens: bool = True, return_tensors: Any = None) -> Dict[str, Any]:
        ids = self.encode(text)
        return {"input_ids": [SimpleNamespace(tolist=lambda: list(ids))]}


def observe(result: Dict[str, Any]) -> None:
    EPISODE.get()["results"].append(result)


class OracleEngine:
    """``llm_engine.generate(token_ids, sampling_params, multi_modal_data=None)`` -> a RequestOutput-like object."""

    def __init__(self, tokenizer: ToyTokenizer) -> None:
        self.tokenizer = tokenizer

    async def generate(self, token_ids: List[int], sampling_params: Any, multi_modal_data: Any = None) -> Any:
        episode = EPISODE.get()
        message = episode["results"][-1]["info"]["oracle_action"]["message"]
        text = hermes_text(message)
        if not message.get("tool_calls") and not episode.get("blocked"):
            episode["blocked"] = True
            text = f"**{text}**"
        ids = (self.tokenizer.encode(text) + [self.tokenizer.eos_token_id])[: sampling_params.max_tokens]
        episode.setdefault("generated", []).append(ids)
        logprobs = [{t: SimpleNamespace(logprob=-0.125)} for t in ids]
        out = SimpleNamespace(token_ids=ids, text=self.tokenizer.decode(ids, skip_special_tokens=True), logprobs=logprobs)
        return SimpleNamespace(outputs=[out])


class OpenRLHFAdapterTest(unittest.TestCase):
    tokenizer: HFTokenizer

    @classmethod
    def setUpClass(cls) -> None:
        base = train_tokenizer()
        cls.tokenizer = HFTokenizer()
        cls.tokenizer.__dict__.update(base.__dict__)

    def load(self, openrlhf: Any) -> Any:
        os.environ["HARNESS_GYM_URL"] = support.server_url()
        executor = openrlhf._load_agent_executor(os.path.join(EXAMPLES, "agent_func.py"))
        from harness_gym.adapters import openrlhf as ho

        ho.AgentInstance.reset_options = {"oracle_hints": True}
        ho.AgentInstance.max_turns = 12
        ho.AgentInstance.on_result = observe
        return executor, ho

    async def execute(self, executor: Any, line: Dict[str, Any], max_length: int) -> Any:
        episode: Dict[str, Any] = {"results": []}
        EPISODE.set(episode)
        params = SimpleNamespace(max_tokens=1024, logprobs=1)
        out = await executor.execute(line["prompt"], line["label"], params, max_length, self.tokenizer, OracleEngine(self.tokenizer))
        return out, episode

    def test_agent_func_file_plays_groups_with_the_servers_rewards(self) -> None:
        spec = importlib.util.spec_from_file_location("openrlhf_make_dataset", os.path.join(EXAMPLES, "make_dataset.py"))
        make_dataset = importlib.util.module_from_spec(spec)
        assert spec.loader is not None
        spec.loader.exec_module(make_dataset)
        lines = make_dataset.openrlhf_rows(group_rows(3, seed=900, variant="train", locale="zh-CN", group_size=3))
        with installed("openrlhf") as openrlhf:
            executor, ho = self.load(openrlhf)
            self.assertIsInstance(executor, openrlhf.MultiTurnAgentExecutor)

            async def main() -> List[Any]:
                return await asyncio.gather(*(self.execute(executor, line, 60000) for line in lines for _ in range(3)))

            results = support.run(main())
        tasks: Dict[str, set] = {}
        retried = 0
        for (out, episode), line in zip(results, [l for l in lines for _ in range(3)]):
            final = episode["results"][-1]
            self.assertTrue(final["terminated"] or final["truncated"])
            self.assertEqual(out["reward"], final["reward"])  # the sum of step rewards = the final reward
            self.assertEqual(out["scores"], final["reward"])
            for name, value in final["info"]["reward_components"].items():
                self.assertEqual(out["extra_logs"][name], value)
            self.assertEqual(out["extra_logs"]["harness_gym_failed"], 0.0)
            tokens = out["observation_tokens"]
            self.assertEqual([tokens[a:b] for a, b in out["action_ranges"]], episode["generated"])
            logprobs = out["rollout_log_probs"]
            self.assertEqual(len(logprobs), len(tokens))
            inside = {i for a, b in out["action_ranges"] for i in range(a, b)}
            self.assertEqual([i for i, lp in enumerate(logprobs) if lp != 0.0], sorted(inside))
            # The observation is the episode's prompt rendered with the template (not the dataset's placeholder).
            text = self.tokenizer.decode(tokens)
            self.assertTrue(text.startswith("<|im_start|>system\n"))
            self.assertNotIn("harness-gym episode", text)
            # Between turns: the closing "\n" of the assistant turn, then the environment's templated messages.
            for (_, b), (a2, _) in zip(out["action_ranges"], out["action_ranges"][1:]):
                between = self.tokenizer.decode(tokens[b:a2])
                self.assertTrue(between.startswith("\n<|im_start|>"), between[:40])
                self.assertTrue(between.endswith("<|im_start|>assistant\n"))
            tasks.setdefault(line["label"], set()).add((episode["results"][0]["info"]["task_id"], episode["results"][0]["info"]["variant_id"]))
            retried += any(r["info"].get("hook_violations") for r in episode["results"][1:])
        self.assertEqual([len(v) for v in tasks.values()], [1, 1, 1])  # siblings share task and variant
        self.assertEqual(len(set().union(*tasks.values())), 3)
        self.assertGreaterEqual(retried, 3)
        support.report("adapters/openrlhf", {"samples": len(results), "hook_retries": retried})

    def test_failures_end_the_episode_flagged_and_rewards_have_item(self) -> None:
        from harness_gym.adapters import openrlhf as ho

        self.assertEqual(ho.scalar(0.5).item(), 0.5)
        lines = [{"prompt": "p", "label": '{"seed": 901, "variant": "identity", "options": {"locale": "en"}}'}]
        with installed("openrlhf") as openrlhf:
            executor, ho = self.load(openrlhf)
            ho.AgentInstance.max_turns = 1
            try:
                out, _ = support.run(self.execute(executor, lines[0], 60000))
            finally:
                ho.AgentInstance.max_turns = 12
        self.assertEqual(out["extra_logs"]["harness_gym_failed"], 1.0)  # the server's turn cap ended it
        self.assertEqual((out["reward"], out["scores"]), (0.0, 0.0))
        self.assertEqual(len(out["action_ranges"]), 1)


if __name__ == "__main__":
    unittest.main()
