"""The verl shim driven as verl's AgentLoopWorker drives it, through the stand-in, over a live server.

The loop is registered by name, instantiated from the registry entry the example YAML makes (extra keys =
constructor kwargs) with the worker's fixed arguments, and ``run(sampling_params, **dataset_row)`` is called
for 4 groups x 4 samples concurrently with rows from ``examples/verl/make_dataset.py``. The "model" behind
``server_manager.generate`` is the oracle (the server's hints) written in Qwen's Hermes format by the toy
tokenizer; its first final reply of each episode is wrapped in bold, which the ``reply_format`` hook blocks.
"""

from __future__ import annotations

import asyncio
import contextvars
import importlib.util
import json
import os
import unittest
from typing import Any, Dict, List

import support
from stand_ins import installed
from test_train_tokens import hermes_text, mask_runs

from harness_gym.train import EnvPool, ToyTokenizer, group_rows

EXAMPLES = os.path.join(support.PACKAGE_ROOT, "examples", "verl")
#: The episode being played by the current asyncio task (the observer and the fake model meet here).
EPISODE: contextvars.ContextVar[Dict[str, Any]] = contextvars.ContextVar("episode")


def observe(result: Dict[str, Any]) -> None:
    EPISODE.get()["results"].append(result)


def load_example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"verl_example_{name}", os.path.join(EXAMPLES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def read_yaml_list(text: str) -> List[Dict[str, Any]]:
    """The flat YAML list of maps the example config is (no PyYAML on Debian's default python3)."""
    entries: List[Dict[str, Any]] = []
    for line in text.splitlines():
        body = line.split(" #")[0].rstrip() if not line.lstrip().startswith("#") else ""
        if not body:
            continue
        if body.startswith("- "):
            entries.append({})
            body = body[2:]
        key, _, value = body.strip().partition(":")
        value = value.strip()
        scalars = {"true": True, "false": False, "null": None, "{}": {}}
        if value in scalars:
            entries[-1][key] = scalars[value]
        else:
            try:
                entries[-1][key] = json.loads(value)
            except ValueError:
                entries[-1][key] = value
    return entries


def train_tokenizer() -> ToyTokenizer:
    async def corpus() -> List[str]:
        pool = EnvPool(support.server_url())
        try:
            handle, result = await pool.reset({"seed": 1, "variant": "train", "options": {"locale": "en"}})
            await pool.release(handle)
        finally:
            await asyncio.get_running_loop().run_in_executor(None, pool.close)
        obs = result["observation"]
        return [m["content"] for m in obs["messages"]] + [json.dumps(t) for t in obs["tools"]]

    return ToyTokenizer.train(support.run(corpus()), vocab_size=3000)


class OracleServerManager:
    """``AsyncLLMServerManager.generate``'s signature; answers with the oracle's next action as token ids."""

    def __init__(self, tokenizer: ToyTokenizer, token_output: Any) -> None:
        self.tokenizer = tokenizer
        self.TokenOutput = token_output
        self.calls: List[Dict[str, Any]] = []

    async def generate(self, request_id, *, prompt_ids: List[int], sampling_params: Dict[str, Any], image_data=None, video_data=None):
        episode = EPISODE.get()
        episode.setdefault("request_ids", set()).add(request_id)
        message = episode["results"][-1]["info"]["oracle_action"]["message"]
        text = hermes_text(message)
        if not message.get("tool_calls") and not episode.get("blocked"):
            episode["blocked"] = True
            text = f"**{text}**"
        ids = self.tokenizer.encode(text) + [self.tokenizer.eos_token_id]
        ids = ids[: sampling_params["max_tokens"]]
        turn = len(episode.setdefault("generated", []))
        episode["generated"].append(ids)
        episode.setdefault("contexts", []).append(list(prompt_ids))
        self.calls.append({"sampling_params": dict(sampling_params)})
        return self.TokenOutput(token_ids=ids, log_probs=[-((turn * 7 + i) % 13) / 10 for i in range(len(ids))], stop_reason="completed")


class VerlAdapterTest(unittest.TestCase):
    tokenizer: ToyTokenizer

    @classmethod
    def setUpClass(cls) -> None:
        cls.tokenizer = train_tokenizer()

    def make_loop(self, verl: Any, manager: Any, *, prompt_length: int = 16384, response_length: int = 16384, **entry: Any) -> Any:
        # What the example YAML entry makes of the registry (name and _target_, the rest are kwargs).
        with open(os.path.join(EXAMPLES, "agent_loop.yaml")) as f:
            (config,) = read_yaml_list(f.read())
        self.assertEqual(config["_target_"], "harness_gym.adapters.verl.HarnessGymAgentLoop")
        config.update(server_urls=support.server_url(), reset_options={"oracle_hints": True}, on_result=observe, max_turns=12)
        config.update(entry)
        verl._agent_loop_registry[config["name"]] = config
        trainer_config = {"actor_rollout_ref": {"rollout": {"prompt_length": prompt_length, "response_length": response_length, "multi_turn": {"max_assistant_turns": None}}}}
        return verl.instantiate(
            config["name"], trainer_config=verl.DictConfigWrap(trainer_config), server_manager=manager,
            tokenizer=self.tokenizer, processor=None, dataset_cls=None, dataset_config=verl.DictConfigWrap({}),
        )

    async def run_one(self, loop: Any, fields: Dict[str, Any], sampling_params: Dict[str, Any]) -> Any:
        episode: Dict[str, Any] = {"results": []}
        EPISODE.set(episode)
        out = await loop.run(sampling_params, **fields)
        return out, episode

    def test_registered_loop_plays_groups_token_exact_with_the_servers_rewards(self) -> None:
        with installed("verl") as verl:
            import harness_gym.adapters.verl as hv

            cls = hv.register_agent_loop()
            self.assertEqual(verl._agent_loop_registry["harness_gym"], {"_target_": "harness_gym.adapters.verl.HarnessGymAgentLoop"})
            self.assertTrue(issubclass(cls, verl.AgentLoopBase))
            make_dataset = load_example("make_dataset")
            rows = group_rows(2, seed=700, variant="train", locale="en", group_size=4)
            rows += group_rows(2, seed=700, variant="identity", locale="zh-CN", group_size=4)
            dataset = make_dataset.verl_rows(rows)
            json.dumps(dataset)
            manager = OracleServerManager(self.tokenizer, verl.TokenOutput)
            sampling_params = {"temperature": 1.0, "top_p": 1.0, "logprobs": True}

            loops: List[Any] = []

            async def main() -> List[Any]:
                jobs = []
                for fields in dataset:
                    for _ in range(4):  # rollout.n = 4: verl repeats the row, one loop instance per sample
                        loops.append(self.make_loop(verl, manager))
                        jobs.append(self.run_one(loops[-1], dict(fields, raw_prompt=fields["prompt"]), sampling_params))
                return await asyncio.gather(*jobs)

            results = support.run(main())
            outputs = [out for out, _ in results]
            verl.check_outputs(outputs, prompt_length=16384, response_length=16384)
            by_group: Dict[str, List[Any]] = {}
            retried = tool_turns = 0
            for (out, episode), fields in zip(results, [f for f in dataset for _ in range(4)]):
                final = episode["results"][-1]
                self.assertTrue(final["terminated"] or final["truncated"])
                # The reward is the server's final reward; the components are its components.
                self.assertEqual(out.reward_score, final["reward"])
                info = out.extra_fields["reward_extra_info"]
                for name, value in final["info"]["reward_components"].items():
                    self.assertEqual(info[name], value)
                self.assertEqual(info["harness_gym_failed"], 0.0)
                self.assertEqual(info["harness_gym_reward"], final["reward"])
                # The mask covers exactly the generated ids, turn by turn; logprobs kept there, 0 elsewhere.
                spans = mask_runs(out.response_mask)
                self.assertEqual([out.response_ids[a:b] for a, b in spans], episode["generated"])
                lp = [0.0] * len(out.response_ids)
                for turn, (a, b) in enumerate(spans):
                    lp[a:b] = [-((turn * 7 + i) % 13) / 10 for i in range(b - a)]
                self.assertEqual(out.response_logprobs, lp)
                # Each turn was generated from the sequence accounted so far: never re-templated.
                for (a, _), context in zip(spans, episode["contexts"]):
                    self.assertEqual(context, out.prompt_ids + out.response_ids[:a])
                self.assertEqual(len(episode["request_ids"]), 1)  # one request id per episode (sticky routing)
                self.assertEqual(out.extra_fields["harness_gym_task_id"], episode["results"][0]["info"]["task_id"])
                self.assertEqual(out.extra_fields["harness_gym_outcome"], final["info"]["outcome"])
                self.assertGreaterEqual(out.num_turns, 2 * len(episode["generated"]))
                by_group.setdefault(json.loads(fields["extra_info"]["harness_gym_row"])["row_id"], []).append(out)
                retried += any(r["info"].get("hook_violations") for r in episode["results"][1:])
                tool_turns += any(m.get("tool_calls") for m in [r["info"]["oracle_action"]["message"] for r in episode["results"] if "oracle_action" in r["info"]])
            # Group siblings share task and variant; the groups differ.
            self.assertEqual(len(by_group), 4)
            keys = set()
            for outs in by_group.values():
                self.assertEqual(len({(o.extra_fields["harness_gym_task_id"], o.extra_fields["harness_gym_variant_id"]) for o in outs}), 1)
                keys.add((outs[0].extra_fields["harness_gym_task_id"], outs[0].extra_fields["harness_gym_variant_id"]))
            self.assertEqual(len(keys), 4)
            # Every sample has the same reward_extra_info keys (verl indexes all by sample 0's).
            self.assertEqual(len({tuple(o.extra_fields["reward_extra_info"]) for o in outputs}), 1)
            self.assertEqual(len({tuple(sorted(o.extra_fields)) for o in outputs}), 1)
            # One pooled connection for the whole process, shared by every loop instance.
            self.assertEqual(len({id(loop.pool) for loop in loops}), 1)
            self.assertEqual(loops[0].pool.stats.connections_opened, 1)
            self.assertEqual(len(loops[0].pool.session_ids()), 1)
            self.assertGreater(loops[0].pool.stats.largest_batch["reset"], 1)  # the 16 resets shared frames
            self.assertGreaterEqual(retried, 8)
            self.assertGreater(tool_turns, 0)
            self.assertTrue(all(c["sampling_params"]["max_tokens"] <= 1024 for c in manager.calls))
            self.assertTrue(all(c["sampling_params"]["temperature"] == 1.0 for c in manager.calls))
            support.report("adapters/verl", {"samples": len(outputs), "hook_retries": retried, "mean_reward": sum(o.reward_score for o in outputs) / len(outputs)})

    def test_caps_and_long_prompts_are_masked_and_fit_verls_lengths(self) -> None:
        with installed("verl") as verl:
            import harness_gym.adapters.verl as hv

            hv.register_agent_loop()
            make_dataset = load_example("make_dataset")
            (fields,) = make_dataset.verl_rows(group_rows(1, seed=701, variant="identity", locale="en", group_size=1))
            manager = OracleServerManager(self.tokenizer, verl.TokenOutput)

            async def main() -> List[Any]:
                return await asyncio.gather(
                    self.run_one(self.make_loop(verl, manager, response_length=300), fields, {}),
                    self.run_one(self.make_loop(verl, manager, max_turns=1), fields, {}),
                    self.run_one(self.make_loop(verl, manager, prompt_length=100), dict(fields, raw_prompt=fields["prompt"]), {}),
                )

            (budget, _), (capped, _), (long_prompt, long_episode) = support.run(main())
            verl.check_outputs([budget, capped], prompt_length=16384, response_length=300)
            verl.check_outputs([long_prompt], prompt_length=100, response_length=16384)
            for out, failure in [(budget, "response_budget"), (capped, "max_turns"), (long_prompt, "prompt_too_long")]:
                with self.subTest(failure=failure):
                    self.assertEqual(out.extra_fields["harness_gym_failure"], failure)
                    self.assertEqual(out.extra_fields["reward_extra_info"]["harness_gym_failed"], 1.0)
                    self.assertEqual(set(out.response_mask), {0})
                    self.assertEqual(out.reward_score, 0.0)
                    self.assertEqual(len(out.response_logprobs), len(out.response_ids))
            self.assertEqual(len(budget.response_ids), 300)
            self.assertEqual(len(long_prompt.prompt_ids), 100)
            self.assertNotIn("generated", long_episode)  # the model was never called for it

    def test_import_needs_no_verl(self) -> None:
        import harness_gym.adapters.verl as hv

        self.assertEqual(hv.AGENT_NAME, "harness_gym")
        self.assertEqual(hv.row_from_kwargs({"extra_info": {"harness_gym_row": '{"seed": 3}'}}), {"seed": 3})


if __name__ == "__main__":
    unittest.main()
