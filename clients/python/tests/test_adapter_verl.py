"""The verl adapter driven by the real, vendored verl (verl-project/verl@1dda039b9c6311889a9c9a26040677e1254814f9,
``vendor/verl``) over a live server; stubs only for what Debian's python3 lacks (``stand_ins/verl.py``).

- V0 (``AgentLoopWorker.generate_sequences``, ``trainer.use_v1=False``): verl's worker loads the example
  agent-loop YAML (``agent_loop_config_path``), instantiates the loop per sample with hydra's arguments,
  runs it, pads each output and concatenates the batch (``_agent_loop_postprocess`` / ``_postprocess``).
  The trainer config is verl's own (the vendored ``_generated_ppo_trainer.yaml``) with the overrides of
  ``examples/verl/run_grpo.sh`` merged in struct mode (an unknown key fails).
- V1 (``AgentLoopWorkerTQ._run_prompt``, verl's default trainer): a failed sibling is left out of its group.
- The static check: every name the adapter imports from verl and every verl interface it calls exists in
  the vendored source with a compatible signature; a scratch copy with a changed interface fails it.

The "model" behind ``server_manager.generate`` is the oracle (the server's hints) in Qwen's Hermes format
via the toy tokenizer; its first final reply of an episode is bold, which the ``reply_format`` hook blocks.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import unittest
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from omegaconf import DictConfig, ListConfig, OmegaConf

import support
from stand_ins import verl as verl_stubs
from test_train_tokens import hermes_text, mask_runs

from harness_gym.train import EnvPool, ToyTokenizer, group_rows

EXAMPLES = os.path.join(support.PACKAGE_ROOT, "examples", "verl")
ADAPTER = os.path.join(support.PACKAGE_ROOT, "harness_gym", "adapters", "verl.py")
DOC = os.path.join(support.PACKAGE_ROOT, "..", "..", "docs", "training", "verl.md")
VERL_COMMIT = "1dda039b9c6311889a9c9a26040677e1254814f9"

#: Episodes by the asyncio task playing them (verl makes one task per sample; the observer and the model meet here).
EPISODES: Dict[int, Dict[str, Any]] = {}


def episode() -> Dict[str, Any]:
    return EPISODES.setdefault(id(asyncio.current_task()), {"results": []})


def observe(result: Dict[str, Any]) -> None:
    episode()["results"].append(result)


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def load_example(name: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"verl_example_{name}", os.path.join(EXAMPLES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


class PadTokenizer(ToyTokenizer):
    """The toy tokenizer with transformers' ``pad`` (what verl's ``_pad_token_ids`` calls)."""

    padding_side = "right"

    def pad(self, encoded: Dict[str, Any], padding: str, max_length: int, return_tensors: str, return_attention_mask: bool) -> Dict[str, Any]:
        import torch  # the stand-in, inside verl_stubs.loaded()

        ids = list(encoded["input_ids"])
        assert padding == "max_length" and return_tensors == "pt" and len(ids) <= max_length, (padding, len(ids), max_length)
        fill = [self.pad_token_id] * (max_length - len(ids))
        ones, zeros = [1] * len(ids), [0] * len(fill)
        left = self.padding_side == "left"
        out = {"input_ids": torch.tensor(fill + ids if left else ids + fill, dtype=torch.int64)}
        if return_attention_mask:
            out["attention_mask"] = torch.tensor(zeros + ones if left else ones + zeros, dtype=torch.int64)
        return out


def train_tokenizer() -> PadTokenizer:
    async def corpus() -> List[str]:
        pool = EnvPool(support.server_url())
        try:
            handle, result = await pool.reset({"seed": 1, "variant": "train", "options": {"locale": "en"}})
            await pool.release(handle)
        finally:
            await asyncio.get_running_loop().run_in_executor(None, pool.close)
        obs = result["observation"]
        return [m["content"] for m in obs["messages"]] + [json.dumps(t) for t in obs["tools"]]

    trained = ToyTokenizer.train(support.run(corpus()), vocab_size=3000)
    tok = PadTokenizer()
    tok.__dict__.update(trained.__dict__)
    tok._pieces = list(tok._pieces) + [b"z" * 70000]  # one id whose text is over the server's max_action_chars
    tok.huge_id = len(tok._pieces) - 1
    return tok


class OracleServerManager:
    """``LLMServerClient.generate(request_id, *, prompt_ids, sampling_params, **kwargs)``: the oracle's next action.

    ``spoil``: per group (row id), the first episode to ask answers with one id whose text is 70,000
    characters, over the server's ``max_action_chars``: the step is an item error, the sample a failure."""

    def __init__(self, tokenizer: PadTokenizer, token_output: Any, spoil: bool = False) -> None:
        self.tokenizer = tokenizer
        self.TokenOutput = token_output
        self.spoil = spoil
        self.spoiled: Dict[str, int] = {}
        self.calls: List[Dict[str, Any]] = []

    async def generate(self, request_id, *, prompt_ids: List[int], sampling_params: Dict[str, Any], image_data=None, video_data=None, audio_data=None, mm_processor_kwargs=None, **kwargs):
        ep = episode()
        ep.setdefault("request_ids", set()).add(request_id)
        self.calls.append({"sampling_params": dict(sampling_params), "kwargs": dict(kwargs)})
        group = ep["results"][0]["info"].get("task_id", "")
        if self.spoil and self.spoiled.setdefault(group, id(ep)) == id(ep):
            ep["spoiled"] = True
            ids = [self.tokenizer.huge_id, self.tokenizer.eos_token_id]
        else:
            message = ep["results"][-1]["info"]["oracle_action"]["message"]
            text = hermes_text(message)
            if not message.get("tool_calls") and not ep.get("blocked"):
                ep["blocked"] = True
                text = f"**{text}**"
            ids = self.tokenizer.encode(text) + [self.tokenizer.eos_token_id]
        ids = ids[: sampling_params["max_tokens"]]
        turn = len(ep.setdefault("generated", []))
        ep["generated"].append(ids)
        ep.setdefault("contexts", []).append(list(prompt_ids))
        logprobs = [-((turn * 7 + i) % 13) / 10 for i in range(len(ids))] if sampling_params.get("logprobs") else None
        return self.TokenOutput(token_ids=ids, log_probs=logprobs, stop_reason="completed")


def script_overrides(path: str) -> List[str]:
    """The ``key=value`` arguments of the ``python3 -m verl.trainer.main_ppo`` command in a shell script or doc block."""
    text = read(path)
    if path.endswith(".md"):
        blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
        text = next(b for b in blocks if "verl.trainer.main_ppo" in b)
    command = text[text.index("python3 -m verl.trainer.main_ppo"):]
    command = command.replace("\\\n", " ").split("\n")[0]
    args = shlex.split(command)[3:]
    return [a for a in args if a != "$@"]


def trainer_config(overrides: List[str]) -> DictConfig:
    """verl's full trainer config (vendored ``_generated_ppo_trainer.yaml``, the flattening of ``ppo_trainer.yaml``)
    with ``overrides`` merged in struct mode, as hydra does: a key verl does not define raises."""
    base = OmegaConf.load(verl_stubs.CONFIG_YAML)
    OmegaConf.set_struct(base, True)
    return OmegaConf.merge(base, OmegaConf.from_dotlist(overrides))


def run_overrides(**subst: str) -> List[str]:
    out = []
    for arg in script_overrides(os.path.join(EXAMPLES, "run_grpo.sh")):
        for var, value in subst.items():
            arg = arg.replace(f'"${var}"', value).replace(f"${var}", value)
        out.append(arg)
    return out


def agent_loop_yaml(tmp: str, **entry: Any) -> str:
    """The example agent-loop YAML, with the test's server and options (written as YAML, read by verl)."""
    (config,) = OmegaConf.to_container(OmegaConf.load(os.path.join(EXAMPLES, "agent_loop.yaml")))
    config.update(entry)
    path = os.path.join(tmp, "agent_loop.yaml")
    OmegaConf.save(OmegaConf.create([config]), path)
    return path


def dataset_batch(rows: List[Dict[str, Any]], n: int) -> Tuple[Dict[str, np.ndarray], List[Dict[str, Any]]]:
    """What verl's trainer hands the worker: the dataset rows repeated ``n`` times (interleaved), each with its uid."""
    samples = []
    for index, row in enumerate(rows):
        for _ in range(n):
            samples.append(dict(row, raw_prompt=row["prompt"], index=index, uid=f"uid-{index}"))
    keys = [k for k in samples[0] if k != "prompt"]
    batch = {}
    for k in keys:
        arr = np.empty(len(samples), dtype=object)
        arr[:] = [s[k] for s in samples]
        batch[k] = arr
    batch["priority"] = np.arange(len(samples), dtype=np.int64)  # AgentLoopManager.generate_sequences adds it
    return batch, samples


class VerlAdapterTest(unittest.TestCase):
    tokenizer: PadTokenizer

    @classmethod
    def setUpClass(cls) -> None:
        cls.tokenizer = train_tokenizer()

    def setUp(self) -> None:
        EPISODES.clear()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def entry(self, **extra: Any) -> str:
        # Nested values (a dict, a list) arrive from hydra as DictConfig / ListConfig.
        return agent_loop_yaml(
            self.tmp, server_urls=[support.server_url()], reset_options={"oracle_hints": True, "locale": "en"},
            on_result="test_adapter_verl:observe", max_turns=12, reward_components=list(("accuracy", "effectiveness", "hook_compliance", "tool_rationality", "skill_selection")),
            **extra,
        )

    def config(self, *extra: str, logprobs: bool = True, use_v1: bool = False) -> DictConfig:
        overrides = run_overrides(DATA=self.tmp, HERE=EXAMPLES, MODEL="Qwen/Qwen2.5-7B-Instruct")
        overrides = [o for o in overrides if not o.startswith("actor_rollout_ref.rollout.agent.agent_loop_config_path=")]
        overrides += [
            f"actor_rollout_ref.rollout.agent.agent_loop_config_path={self.entry()}",
            f"actor_rollout_ref.rollout.calculate_log_probs={logprobs}",
            f"trainer.use_v1={use_v1}",
            *extra,
        ]
        return trainer_config(overrides)

    # ------------------------------------------------------------------ V0: AgentLoopWorker, a whole batch
    def test_v0_worker_batch_token_exact_with_the_servers_rewards(self) -> None:
        make_dataset = load_example("make_dataset")
        rows = make_dataset.verl_rows(group_rows(2, seed=700, variant="train", locale="en", group_size=4)
                                      + group_rows(2, seed=700, variant="identity", locale="en", group_size=4))
        with verl_stubs.loaded() as verl:
            verl.tokenizer[0] = self.tokenizer
            config = self.config()
            self.assertEqual(config.actor_rollout_ref.rollout.n, 8)  # run_grpo.sh's; the batch below uses 4
            manager = OracleServerManager(self.tokenizer, verl.TokenOutput)
            batch, samples = dataset_batch(rows, 4)

            async def main() -> Any:
                worker = verl.agent_loop.AgentLoopWorker(config, manager, None, None)
                self.assertIn("harness_gym", verl.agent_loop._agent_loop_registry)  # from agent_loop_config_path
                return await worker.generate_sequences(verl.DataProto(non_tensor_batch=batch, meta_info={"global_steps": 1}))

            out = support.run(main())
            P, R = 9216, 8192
            self.assertEqual(tuple(out.batch["prompts"].shape), (16, P))
            self.assertEqual(tuple(out.batch["responses"].shape), (16, R))
            self.assertEqual(tuple(out.batch["rollout_log_probs"].shape), (16, R))
            self.assertEqual(out.meta_info["reward_extra_keys"][:5], ["accuracy", "effectiveness", "hook_compliance", "tool_rationality", "skill_selection"])
            episodes = list(EPISODES.values())
            self.assertEqual(len(episodes), 16)
            retried = 0
            for i in range(16):
                row = json.loads(samples[i]["extra_info"]["harness_gym_row"])
                tools = json.loads(out.non_tensor_batch["harness_gym_tools"][i])
                ep = next(e for e in episodes if e["contexts"][0] == self._prompt(out, i))  # siblings play alike
                final = ep["results"][-1]
                self.assertTrue(final["terminated"] or final["truncated"])
                self.assertEqual(out.non_tensor_batch["harness_gym_row_id"][i], str(row["row_id"]))
                self.assertEqual(out.non_tensor_batch["harness_gym_failed"][i], 0.0)
                # rm_scores holds the server's final reward on the last response token.
                length = int(out.batch["attention_mask"][i, P:].sum())
                self.assertAlmostEqual(float(out.batch["rm_scores"][i, length - 1]), final["reward"], places=6)
                for name, value in final["info"]["reward_components"].items():
                    self.assertAlmostEqual(float(out.non_tensor_batch[name][i]), value, places=6)
                # The mask covers exactly the generated ids; logprobs there, 0 elsewhere; every turn from the sequence so far.
                response = out.batch["responses"][i, :length].tolist()
                mask = out.batch["response_mask"][i, :length].tolist()
                spans = mask_runs(mask)
                self.assertEqual([response[a:b] for a, b in spans], ep["generated"])
                lp = out.batch["rollout_log_probs"][i, :length].tolist()
                for turn, (a, b) in enumerate(spans):
                    self.assertEqual([round(x, 5) for x in lp[a:b]], [round(-((turn * 7 + k) % 13) / 10, 5) for k in range(b - a)])
                for (a, _), context in zip(spans, ep["contexts"]):
                    self.assertEqual(context, self._prompt(out, i) + response[:a])
                self.assertEqual(len(ep["request_ids"]), 1)
                # The episode's own tools reached the prompt verl trains on.
                self.assertEqual(tools, ep["results"][0]["observation"]["tools"])
                prompt_text = self.tokenizer.decode(self._prompt(out, i))
                for tool in tools:
                    self.assertIn(json.dumps(tool["function"]["name"]), prompt_text)
                retried += any(r["info"].get("hook_violations") for r in ep["results"][1:])
            self.assertTrue(any(json.loads(t) for t in out.non_tensor_batch["harness_gym_tools"]))
            # Siblings (same uid) share task and variant; the four groups differ.
            groups = {}
            for i in range(16):
                groups.setdefault(samples[i]["uid"], set()).add((out.non_tensor_batch["harness_gym_task_id"][i], out.non_tensor_batch["harness_gym_variant_id"][i]))
            self.assertEqual([len(v) for v in groups.values()], [1, 1, 1, 1])
            self.assertEqual(len({next(iter(v)) for v in groups.values()}), 4)
            self.assertGreaterEqual(retried, 8)
            self.assertTrue(all(c["sampling_params"]["max_tokens"] <= 1024 and c["sampling_params"]["logprobs"] for c in manager.calls))
            self.assertTrue(all(type(c["kwargs"]["priority"]) is int for c in manager.calls))  # verl's per-sample priority passed on
            support.report("adapters/verl", {"samples": 16, "hook_retries": retried})

    def _prompt(self, out: Any, i: int) -> List[int]:
        P = out.batch["prompts"].shape[1]
        ids = out.batch["prompts"][i].tolist()
        return ids[P - int(out.batch["attention_mask"][i, :P].sum()):]

    def test_v0_batch_whose_first_sample_failed_concatenates_with_and_without_logprobs(self) -> None:
        make_dataset = load_example("make_dataset")
        good = group_rows(1, seed=710, variant="identity", locale="en", group_size=2)
        bad = [dict(good[0], variant="no-such-variant", row_id=99)]
        rows = make_dataset.verl_rows(bad + good)
        for logprobs in (True, False):
            with self.subTest(logprobs=logprobs), verl_stubs.loaded() as verl:
                EPISODES.clear()
                verl.tokenizer[0] = self.tokenizer
                config = self.config(logprobs=logprobs)
                manager = OracleServerManager(self.tokenizer, verl.TokenOutput)
                batch, _ = dataset_batch(rows, 2)

                async def main() -> Any:
                    worker = verl.agent_loop.AgentLoopWorker(config, manager, None, None)
                    return await worker.generate_sequences(verl.DataProto(non_tensor_batch=batch, meta_info={}))

                out = support.run(main())  # torch.cat in _postprocess: every sample has logprobs, or none
                self.assertEqual(list(out.non_tensor_batch["harness_gym_failure"]), ["server_error", "server_error", "", ""])
                self.assertEqual(list(out.non_tensor_batch["harness_gym_failed"]), [1.0, 1.0, 0.0, 0.0])
                self.assertEqual(int(out.batch["response_mask"][:2].sum()), 0)
                self.assertGreater(int(out.batch["response_mask"][2:].sum()), 0)
                self.assertEqual("rollout_log_probs" in out.batch, logprobs)
                self.assertEqual(float(out.batch["rm_scores"][:2].sum()), 0.0)

    # -------------------------------------------------------------- V1: AgentLoopWorkerTQ, failure = left out
    def test_v1_failed_sibling_is_left_out_of_its_group(self) -> None:
        make_dataset = load_example("make_dataset")
        rows = make_dataset.verl_rows(group_rows(2, seed=720, variant="identity", locale="en", group_size=4))
        with verl_stubs.loaded() as verl:
            verl.tokenizer[0] = self.tokenizer
            config = self.config("actor_rollout_ref.rollout.n=4", use_v1=True)
            import harness_gym.adapters.verl as hv

            manager = OracleServerManager(self.tokenizer, verl.TokenOutput, spoil=True)
            sampling = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}

            async def main() -> None:
                worker = verl.agent_loop_tq.AgentLoopWorkerTQ(config, manager, None, None)
                for index, row in enumerate(rows[:1]):
                    prompt = dict(row, raw_prompt=row["prompt"], index=index, uid=f"uid-{index}", global_steps=3)
                    prompt.pop("prompt")
                    await worker._run_prompt(prompt, sampling, trajectory={"step": 3, "sample_index": index, "rollout_n": 0, "validate": False})
                manager.spoil = False
                row = rows[1]
                prompt = dict(row, raw_prompt=row["prompt"], index=1, uid="uid-1", global_steps=3)
                prompt.pop("prompt")
                await worker._run_prompt(prompt, sampling, trajectory={"step": 3, "sample_index": 1, "rollout_n": 0, "validate": False})

            with self.assertLogs("verl.trainer.ppo.v1.agent_loop_tq", level="ERROR") as logs:  # verl logs the failed session
                support.run(main())
            self.assertEqual(len(logs.records), 1)
            self.assertIn("EpisodeFailed", "\n".join(logs.output))
            tq = verl.tq
            self.assertEqual(tq.tags["train/uid-0"]["status"], "failure")
            self.assertEqual(tq.tags["train/uid-1"]["status"], "finished")
            kept0 = sorted(k for k in tq.trajectories if k.startswith("train/uid-0_"))
            kept1 = sorted(k for k in tq.trajectories if k.startswith("train/uid-1_"))
            self.assertEqual(len(kept0), 3)  # the spoiled sibling stored nothing: its group's statistics are the other three's
            self.assertEqual(len(kept1), 4)
            spoiled = [e for e in EPISODES.values() if e.get("spoiled")]
            self.assertEqual(len(spoiled), 1)
            for key in kept0 + kept1:
                field = tq.trajectories[key]
                self.assertEqual(field["extra_fields"]["reward_extra_info"]["harness_gym_failed"], 0.0)
                self.assertAlmostEqual(float(field["rm_scores"][-1]), field["extra_fields"]["reward_extra_info"]["harness_gym_reward"], places=6)
                self.assertEqual(len(field["rollout_log_probs"]), len(field["responses"]))
                self.assertEqual(field["__tag__"]["status"], "success")
            self.assertIsInstance(hv.EpisodeFailed, type)

    # -------------------------------------------------------------------------------- conversions, modes
    def test_hydra_containers_and_numpy_rows_become_plain(self) -> None:
        import harness_gym.adapters.verl as hv

        value = OmegaConf.create({"a": [1, {"b": 2}], "c": {"d": "${a}"}})
        self.assertIsInstance(value.a, ListConfig)
        self.assertEqual(hv.plain(value), {"a": [1, {"b": 2}], "c": {"d": [1, {"b": 2}]}})
        row = {"extra_info": {"harness_gym_row": {"seed": np.int64(3), "options": {"tags": np.array(["x", "y"], dtype=object)}}}}
        got = hv.row_from_kwargs(row)
        self.assertEqual(got, {"seed": 3, "options": {"tags": ["x", "y"]}})
        self.assertIs(type(got["seed"]), int)
        import msgpack

        msgpack.packb(got)  # what the client sends

    def test_failure_mode_follows_the_trainer(self) -> None:
        with verl_stubs.loaded() as verl:
            verl.tokenizer[0] = self.tokenizer
            import harness_gym.adapters.verl as hv

            cls = hv.agent_loop_class()
            self.assertTrue(issubclass(cls, verl.agent_loop.AgentLoopBase))
            self.assertNotIn("harness_gym", verl.agent_loop._agent_loop_registry)  # building registers nothing
            self.assertIs(hv.register_agent_loop(), cls)
            self.assertEqual(verl.agent_loop._agent_loop_registry["harness_gym"], {"_target_": "harness_gym.adapters.verl.HarnessGymAgentLoop"})
            modes = {}
            for use_v1, mode in [(True, "auto"), (False, "auto"), (True, "mask"), (False, "raise")]:
                config = self.config(use_v1=use_v1)

                async def make() -> Any:
                    return verl_stubs.instantiate(
                        {"_target_": "harness_gym.adapters.verl.HarnessGymAgentLoop", "server_urls": support.server_url(), "failure_mode": mode},
                        trainer_config=verl.agent_loop.DictConfigWrap(config), server_manager=None, tokenizer=self.tokenizer,
                        processor=None, dataset_cls=None, data_config=verl.agent_loop.DictConfigWrap(config.data), hf_model_type=None,
                        tools=verl.agent_loop.ToolListWrap([]),
                    )

                modes[(use_v1, mode)] = support.run(make()).failure_mode
            self.assertEqual(modes, {(True, "auto"): "raise", (False, "auto"): "mask", (True, "mask"): "mask", (False, "raise"): "raise"})

    def test_import_needs_no_verl(self) -> None:
        import harness_gym.adapters.verl as hv

        self.assertEqual(hv.AGENT_NAME, "harness_gym")
        self.assertEqual(hv.row_from_kwargs({"extra_info": {"harness_gym_row": '{"seed": 3}'}}), {"seed": 3})
        self.assertNotIn("verl", sys.modules)

    # ------------------------------------------------------------------------------ configs and commands
    def test_documented_commands_and_configs_parse_against_verls_config(self) -> None:
        for source in (os.path.join(EXAMPLES, "run_grpo.sh"), DOC):
            with self.subTest(source=os.path.basename(source)):
                overrides = [o.replace("$DATA", "/d").replace('"$HERE', '"/h').replace("$HERE", "/h").replace("$MODEL", "m") for o in script_overrides(source)]
                self.assertGreater(len(overrides), 8)
                config = trainer_config(overrides)  # raises on a key verl does not define
                for o in overrides:
                    key, _, value = o.partition("=")
                    self.assertIsNotNone(OmegaConf.select(config, key, default=None, throw_on_missing=False), key)
        with self.assertRaises(Exception):
            trainer_config(["actor_rollout_ref.rollout.agent.no_such_key=1"])
        # Inline `key=value` settings in the doc's prose are verl keys too.
        inline = re.findall(r"`((?:actor_rollout_ref|data|trainer|algorithm)\.[\w.]+=[^`\s]+)`", read(DOC))
        self.assertIn("trainer.v1.sampler.sync_refill_failed_groups=True", inline)
        trainer_config(inline)
        # The make_dataset.py command lines (doc and script) through the script's own argument parser.
        make_dataset = load_example("make_dataset")
        lines = [line for line in (read(DOC) + read(os.path.join(EXAMPLES, "run_grpo.sh"))).splitlines() if line.strip().startswith("python3") and re.search(r"make_dataset\.py\"? --", line)]
        self.assertEqual(len(lines), 4)
        for n, line in enumerate(lines):
            args = shlex.split(line.strip())
            args = args[args.index(next(a for a in args if a.endswith("make_dataset.py"))) + 1:]
            out = os.path.join(self.tmp, f"rows{n}.jsonl")
            args[args.index("--out") + 1] = out
            self.assertEqual(make_dataset.main(args), 0, line)
            with open(out, encoding="utf-8") as f:
                first = json.loads(f.readline())
            self.assertEqual(first["agent_name"], "harness_gym")
        # The agent-loop YAML (example and doc) names only constructor arguments.
        with verl_stubs.loaded():
            import inspect

            import harness_gym.adapters.verl as hv

            params = set(inspect.signature(hv.agent_loop_class().__init__).parameters)
            doc_yaml = re.findall(r"```yaml\n(.*?)```", read(DOC), re.S)
            for entries in [OmegaConf.load(os.path.join(EXAMPLES, "agent_loop.yaml"))] + [OmegaConf.create(b) for b in doc_yaml]:
                for entry in entries:
                    self.assertEqual(entry["_target_"], "harness_gym.adapters.verl.HarnessGymAgentLoop")
                    self.assertLessEqual(set(entry) - {"name", "_target_"}, params)

    # --------------------------------------------------------------------------------------- static check
    def test_every_verl_interface_the_adapter_uses_exists_in_the_vendored_source(self) -> None:
        self.assertEqual(check_interfaces(verl_stubs.VENDOR), [])

    def test_the_static_check_fails_when_a_vendored_interface_changes(self) -> None:
        edits = {
            "export": ("verl/experimental/agent_loop/agent_loop.py", "def register(agent_name: str):", "def register_agent_loop(agent_name: str):"),
            "field": ("verl/experimental/agent_loop/agent_loop.py", "    response_logprobs: Optional[list[float]] = None\n    \"\"\"Log probabilities for the response tokens.\"\"\"", "    rollout_logprobs: Optional[list[float]] = None"),
            "generate": ("verl/workers/rollout/llm_server.py", "        prompt_ids: list[int],\n        sampling_params: dict[str, Any],\n        image_data", "        input_ids: list[int],\n        sampling_params: dict[str, Any],\n        image_data"),
            "instantiate": ("verl/experimental/agent_loop/agent_loop.py", "                tools=ToolListWrap(self.tools),", "                tools=ToolListWrap(self.tools),\n                episode_budget=1,"),
            "failure": ("verl/trainer/ppo/v1/agent_loop_tq.py", "results = await asyncio.gather(*tasks, return_exceptions=True)", "results = await asyncio.gather(*tasks)"),
        }
        for name, (rel, old, new) in edits.items():
            with self.subTest(edit=name), tempfile.TemporaryDirectory() as tmp:
                copy = os.path.join(tmp, "verl")
                shutil.copytree(verl_stubs.VENDOR, copy)
                path = os.path.join(copy, rel)
                text = read(path)
                self.assertIn(old, text)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text.replace(old, new, 1))
                problems = check_interfaces(copy)
                self.assertTrue(problems, name)


# ------------------------------------------------------------------------------------------ the static check
def _module_ast(root: str, module: str) -> ast.Module:
    path = os.path.join(root, *module.split(".")) + ".py"
    if not os.path.exists(path):
        path = os.path.join(root, *module.split("."), "__init__.py")
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read())


def _top(tree: ast.Module, name: str) -> Optional[ast.AST]:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return node
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return node
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            return node
    return None


def _method(cls: ast.ClassDef, name: str) -> Optional[ast.AST]:
    return next((n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name), None)


def _fields(cls: ast.ClassDef) -> Dict[str, bool]:
    """Annotated fields of a pydantic model -> required (no default)."""
    return {n.target.id: n.value is None for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def _calls(tree: ast.AST, func: str) -> List[ast.Call]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name == func:
                out.append(node)
    return out


def check_interfaces(vendor_root: str) -> List[str]:
    """What the adapter (``harness_gym/adapters/verl.py``) uses of verl, checked in the source under
    ``vendor_root/verl``; one line per mismatch."""
    problems: List[str] = []
    adapter = ast.parse(read(ADAPTER))
    trees: Dict[str, ast.Module] = {}

    def tree(module: str) -> Optional[ast.Module]:
        if module not in trees:
            try:
                trees[module] = _module_ast(vendor_root, module)
            except OSError:
                problems.append(f"{module}: no such module")
                return None
        return trees[module]

    # 1. Every name imported from verl exists there.
    for node in ast.walk(adapter):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("verl"):
            t = tree(node.module)
            for alias in node.names:
                if t is not None and _top(t, alias.name) is None:
                    problems.append(f"{node.module}.{alias.name}: not defined")
    al = tree("verl.experimental.agent_loop.agent_loop")
    if al is None:
        return problems
    base = _top(al, "AgentLoopBase")
    output = _top(al, "AgentLoopOutput")
    register = _top(al, "register")
    worker = _top(al, "AgentLoopWorker")
    for name, node in (("AgentLoopBase", base), ("AgentLoopOutput", output), ("register", register), ("AgentLoopWorker", worker)):
        if not isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            problems.append(f"agent_loop.py: {name} missing")
    # 2. register(agent_name) -> decorator.
    if isinstance(register, ast.FunctionDef) and [a.arg for a in register.args.args] != ["agent_name"]:
        problems.append("register: signature is not (agent_name)")
    # 3. AgentLoopOutput(...) as the adapter builds it: every keyword a field, every required field given.
    fields = _fields(output) if isinstance(output, ast.ClassDef) else {}
    (build,) = _calls(adapter, "AgentLoopOutput")
    given = {k.arg for k in build.keywords}
    if fields:
        problems += [f"AgentLoopOutput: no field {k}" for k in sorted(given - set(fields))]
        problems += [f"AgentLoopOutput: required field {k} not given" for k, req in fields.items() if req and k not in given]
    metrics = _top(al, "AgentLoopMetrics")
    for kw in build.keywords:
        if kw.arg == "metrics" and isinstance(kw.value, ast.Dict) and isinstance(metrics, ast.ClassDef):
            for key in kw.value.keys:
                if isinstance(key, ast.Constant) and key.value not in _fields(metrics):
                    problems.append(f"AgentLoopMetrics: no field {key.value}")
    # 4. AgentLoopBase: run(self, sampling_params, **kwargs) abstract; __init__ sets what the adapter reads.
    run = _method(base, "run") if isinstance(base, ast.ClassDef) else None
    if not isinstance(run, ast.AsyncFunctionDef) or [a.arg for a in run.args.args] != ["self", "sampling_params"] or run.args.kwarg is None:
        problems.append("AgentLoopBase.run: not async (self, sampling_params, **kwargs)")
    init = _method(base, "__init__") if isinstance(base, ast.ClassDef) else None
    set_attrs = {t.attr for n in ast.walk(init) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Attribute)} if init else set()
    for attr in ("config", "server_manager", "tokenizer", "apply_chat_template_kwargs"):
        if attr not in set_attrs:
            problems.append(f"AgentLoopBase.__init__: no longer sets self.{attr}")
    base_params = {a.arg for a in init.args.args + init.args.kwonlyargs} if init else set()
    # 5. The worker instantiates the loop with keyword arguments the adapter's constructor (or the base's) names.
    ours = next(n for n in ast.walk(adapter) if isinstance(n, ast.ClassDef) and n.name == "HarnessGymAgentLoop")
    our_init = _method(ours, "__init__")
    our_params = {a.arg for a in our_init.args.args + our_init.args.kwonlyargs}
    for call in _calls(worker, "instantiate") if worker is not None else []:
        for kw in call.keywords:
            if kw.arg != "config" and kw.arg not in our_params | base_params:
                problems.append(f"AgentLoopWorker passes {kw.arg}= the adapter does not know")
    # 6. server_manager.generate(request_id, *, prompt_ids, sampling_params, **kwargs) and TokenOutput's fields.
    ls = tree("verl.workers.rollout.llm_server")
    client = _top(ls, "LLMServerClient") if ls else None
    gen = _method(client, "generate") if isinstance(client, ast.ClassDef) else None
    if gen is None:
        problems.append("LLMServerClient.generate: missing")
    else:
        (call,) = [c for c in _calls(adapter, "generate") if isinstance(c.func, ast.Attribute)]
        positional = [a.arg for a in gen.args.args][1:]
        kwonly = {a.arg for a in gen.args.kwonlyargs}
        if len(call.args) > len(positional):
            problems.append("LLMServerClient.generate: fewer positional parameters than the adapter passes")
        for kw in call.keywords:
            if kw.arg is None and gen.args.kwarg is None:
                problems.append("LLMServerClient.generate: takes no **kwargs (priority)")
            elif kw.arg is not None and kw.arg not in kwonly | set(positional):
                problems.append(f"LLMServerClient.generate: no parameter {kw.arg}")
    rp = tree("verl.workers.rollout.replica")
    token_output = _top(rp, "TokenOutput") if rp else None
    used = {n.attr for n in ast.walk(adapter) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "out"}
    if not isinstance(token_output, ast.ClassDef):
        problems.append("TokenOutput: missing")
    else:
        problems += [f"TokenOutput: no field {f}" for f in sorted(used - set(_fields(token_output)))]
    # 7. The V1 worker leaves a raising session out of its group: gather(..., return_exceptions=True), status failure.
    tqm = tree("verl.trainer.ppo.v1.agent_loop_tq")
    settle = _top(tqm, "_settle_session_tasks") if tqm else None
    gathers = _calls(settle, "gather") if settle else []
    if not any(any(k.arg == "return_exceptions" and getattr(k.value, "value", None) is True for k in g.keywords) for g in gathers):
        problems.append("agent_loop_tq._settle_session_tasks: no longer gathers with return_exceptions=True")
    return problems


if __name__ == "__main__":
    unittest.main()
