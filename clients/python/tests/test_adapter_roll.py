"""The ROLL adapter (harness_gym.adapters.roll) driven through ROLL's and gem's real code, against a real server.

Vendored verbatim under vendor/roll/ (VENDOR.json; vendor/roll/gem_src/VENDOR.json for gem):
  alibaba/ROLL 8eb27cc2dc34c4d1310b169d9b86d339004d811a
    roll/pipeline/agentic/env_manager/{base_env_manager,traj_env_manager,agent_native_env_manager}.py
        imported and run: TrajEnvManager and AgentNativeStepEnvManager (__init__, run_rollout_loop, reset,
        step, make_decision, format_messages, formulate_rollouts, create_placeholder_rollout)
    roll/utils/constants.py                      imported (GenerateStopReason, EpisodeStopReason)
    roll/utils/functionals.py                    aggregate_metrics and pad_to_length, compiled from the file
    roll/distributed/scheduler/rollout_scheduler.py  GroupData and GroupQueue, compiled from the file
    roll/pipeline/agentic/agentic_config.py      make_env_configs compiled from the file; dataclass fields read
    roll/configs/{base_config,worker_config}.py  dataclass fields read (config validation)
  axon-rl/gem 4069f2f8d45f5047ac13221f7c90c8b19927d43a
    gem/__init__.py, gem/core.py, gem/envs/registration.py, gem/utils/seeding.py   imported: the adapter's
        HarnessGymEnv subclasses the real gem.Env and is built by the real gem.make

Only heavy third-party modules (torch, ray, tensordict, transformers, codetiming, gem.vector) and ROLL
modules the adapter never meets (llm proxy, router, tracing, chat-template token utilities, DataProto,
the pipeline-level configs' import chain) are replaced in ``sys.modules``, for this module only. torch is a
small numpy-backed stand-in with the operations the managers use. The "model" is a fake LLM proxy that plays
the server's oracle hint (``--allow-oracle-hints``) as Hermes text with ``<|im_end|>`` left on, through a
character-level fake tokenizer (so what ROLL decodes is exactly what the policy wrote).
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import copy
import hashlib
import importlib
import inspect
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import types
import unittest
from collections import defaultdict
from dataclasses import dataclass, field
from harness_gym.train.tokens import default_tools_message
from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

import numpy as np
from omegaconf import DictConfig, ListConfig, OmegaConf

import support

HERE = os.path.dirname(os.path.abspath(__file__))
VENDOR = os.path.join(HERE, "vendor", "roll")
GEM_SRC = os.path.join(VENDOR, "gem_src")
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples", "roll")
DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "docs", "training", "roll.md")
ROLL_COMMIT = "8eb27cc2dc34c4d1310b169d9b86d339004d811a"
GEM_COMMIT = "4069f2f8d45f5047ac13221f7c90c8b19927d43a"

sys.path.insert(0, os.path.join(HERE, "vendor"))
import check_vendor  # noqa: E402

sys.path.pop(0)


# ---------------------------------------------------------------- heavy third-party stand-ins (torch & co)


class Tensor:
    """numpy-backed stand-in for the torch.Tensor operations ROLL's env managers use."""

    def __init__(self, a: Any) -> None:
        self.a = a if isinstance(a, np.ndarray) else np.asarray(a)
        self.device = None

    shape = property(lambda self: tuple(self.a.shape))
    ndim = property(lambda self: self.a.ndim)
    dtype = property(lambda self: self.a.dtype)

    def size(self, dim: Optional[int] = None) -> Any:
        return self.shape if dim is None else self.a.shape[dim]

    def unsqueeze(self, dim: int) -> "Tensor":
        return Tensor(np.expand_dims(self.a, dim))

    def cumsum(self, dim: int = -1) -> "Tensor":
        return Tensor(np.cumsum(self.a, axis=dim))

    def sum(self, dim: Optional[int] = None) -> "Tensor":
        return Tensor(np.sum(self.a, axis=dim))

    def mean(self, dim: Optional[int] = None) -> "Tensor":
        return Tensor(np.mean(self.a, axis=dim))

    def float(self) -> "Tensor":
        return Tensor(self.a.astype(np.float32))

    def item(self) -> Any:
        return self.a.item()

    def tolist(self) -> Any:
        return self.a.tolist()

    def __sub__(self, other: Any) -> "Tensor":
        return Tensor(self.a - (other.a if isinstance(other, Tensor) else other))

    def __getitem__(self, idx: Any) -> Any:
        idx = tuple(idx) if isinstance(idx, list) else idx
        out = self.a[idx]
        return Tensor(out) if isinstance(out, np.ndarray) else out

    def __setitem__(self, idx: Any, value: Any) -> None:
        self.a[tuple(idx) if isinstance(idx, list) else idx] = value.a if isinstance(value, Tensor) else value

    def __len__(self) -> int:
        return len(self.a)


def _torch() -> types.ModuleType:
    t = types.ModuleType("torch")
    t.Tensor = Tensor
    t.long, t.float, t.bool = np.int64, np.float32, np.bool_
    t.tensor = lambda data, dtype=None: Tensor(np.asarray(data, dtype=dtype))
    t.full = lambda size, value, dtype=None, device=None: Tensor(np.full(size, value, dtype=dtype))
    t.zeros = lambda size, dtype=None: Tensor(np.zeros(size, dtype=dtype))
    t.cat = lambda ts, dim=0: Tensor(np.concatenate([x.a for x in ts], axis=dim))
    return t


class TensorDict(dict):
    def __init__(self, source: Dict[str, Any], batch_size: Any) -> None:
        super().__init__(source)
        self.batch_size = [batch_size] if isinstance(batch_size, int) else list(batch_size)


class DataProto:
    """Stand-in for roll.distributed.scheduler.protocol.DataProto: batch, non_tensor_batch, meta_info, concat."""

    def __init__(self, batch: Any = None, non_tensor_batch: Any = None, meta_info: Any = None) -> None:
        self.batch = batch
        self.non_tensor_batch = non_tensor_batch if non_tensor_batch is not None else {}
        self.meta_info = meta_info if meta_info is not None else {}

    @staticmethod
    def concat(items: List["DataProto"]) -> "DataProto":
        batch = TensorDict({k: Tensor(np.concatenate([i.batch[k].a for i in items])) for k in items[0].batch}, batch_size=len(items))
        non_tensor = {k: np.concatenate([i.non_tensor_batch[k] for i in items]) for k in items[0].non_tensor_batch}
        return DataProto(batch, non_tensor, dict(items[0].meta_info))


class Timer:
    def __init__(self, name: str = "", logger: Any = None) -> None:
        self.last = 0.0

    def __enter__(self) -> "Timer":
        self._t = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.last = time.perf_counter() - self._t


class Tracer:
    def start_as_current_span(self, *a: Any, **k: Any) -> Any:
        return contextlib.nullcontext()


class CharTokenizer:
    """One token per character: ROLL's decode of a response gives back exactly the policy's text."""

    pad_token_id = 0

    def __init__(self) -> None:
        self.tools_seen: List[Any] = []

    @staticmethod
    def encode(text: str) -> List[int]:
        return [ord(c) for c in text]

    def decode(self, ids: List[int], skip_special_tokens: bool = True) -> str:
        return "".join(chr(i) for i in ids)

    def batch_decode(self, batch: Tensor, skip_special_tokens: bool = True) -> List[str]:
        return [self.decode(row) for row in batch.tolist()]

    def apply_chat_template(self, messages: List[Dict[str, Any]], tools: Any = None, **kwargs: Any) -> List[int]:
        self.tools_seen.append(tools)
        digest = hashlib.sha1(json.dumps([messages, tools], ensure_ascii=False, sort_keys=True).encode()).hexdigest()
        return self.encode(digest[:16])


#: What the chat-template helper (token_mask_utils, stubbed) was given: TrajEnvManager's rendered messages.
RENDERED: List[List[Dict[str, Any]]] = []


def _custom_apply_chat_template(messages: List[Dict[str, Any]], tokenizer: Any, add_generation_prompt: bool = True, **kwargs: Any) -> List[int]:
    RENDERED.append(copy.deepcopy(messages))
    return CharTokenizer.encode(hashlib.sha1(json.dumps(messages, ensure_ascii=False).encode()).hexdigest()[:16])


def compile_from(path: str, names: List[str], namespace: Dict[str, Any]) -> Dict[str, Any]:
    """Compile top-level functions/classes (or a class's methods, 'Class.method') from a vendored file."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    tree = ast.parse(source)
    for name in names:
        owner, _, member = name.partition(".")
        node = next(n for n in tree.body if getattr(n, "name", None) == owner)
        if member:
            node = next(n for n in node.body if getattr(n, "name", None) == member)
        module = ast.Module(body=[node], type_ignores=[])
        exec(compile(module, path, "exec", dont_inherit=True), namespace)  # noqa: S102 - ROLL's own source, vendored and hash-checked
    return namespace


def vendored(rel: str) -> str:
    return os.path.join(VENDOR, rel)


FUNCTIONALS = compile_from(vendored("roll/utils/functionals.py"), ["pad_to_length", "aggregate_metrics"], {"torch": _torch(), "np": np, "Dict": Dict, "List": List})


def _module(name: str, **attrs: Any) -> types.ModuleType:
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    return m


def stub_modules(gem_module: Any = None) -> Dict[str, types.ModuleType]:
    torch = _torch()
    torch_fns = FUNCTIONALS
    ray = _module("ray", get=lambda x: x, remote=lambda *a, **k: (a[0] if a and callable(a[0]) else (lambda c: c)))
    logger = _module("roll.utils.logging", get_logger=lambda *a, **k: _Logger())
    stubs = {
        "torch": torch,
        "ray": ray,
        "tensordict": _module("tensordict", TensorDict=TensorDict),
        "transformers": _module("transformers", PreTrainedTokenizer=object),
        "codetiming": _module("codetiming", Timer=Timer),
        "gem.vector": _module("gem.vector", __path__=[]),
        "gem.vector.async_vector_env": _module("gem.vector.async_vector_env", AsyncVectorEnv=object),
        "gem.vector.sync_vector_env": _module("gem.vector.sync_vector_env", SyncVectorEnv=object),
        "gem.vector.vector_env": _module("gem.vector.vector_env", VectorEnv=object),
        "roll.pipeline.agentic.llm_proxy": _module("roll.pipeline.agentic.llm_proxy", create_llm_proxy=lambda **k: OracleProxy(**k), BaseLLMProxy=object),
        "roll.utils.env_action_limiter": _module("roll.utils.env_action_limiter", get_global_limiter=lambda **k: contextlib.nullcontext()),
        "roll.distributed.scheduler.rollout_scheduler": _module("roll.distributed.scheduler.rollout_scheduler", GroupQueueManager=object),
        "roll.distributed.scheduler.router": _module("roll.distributed.scheduler.router", RouterManager=object),
        "roll.distributed.scheduler.protocol": _module("roll.distributed.scheduler.protocol", DataProto=DataProto),
        "roll.pipeline.agentic.env_manager.token_mask_utils": _module(
            "roll.pipeline.agentic.env_manager.token_mask_utils",
            custom_apply_chat_template=_custom_apply_chat_template,
            compute_conversation_end_token_id=lambda tokenizer: [10],
            convert_list_content_str=lambda messages, parse_tool_call_parameter_to_dict=False: messages,
        ),
        "roll.pipeline.agentic.tools": _module("roll.pipeline.agentic.tools", __path__=[]),
        "roll.pipeline.agentic.tools.tool_env_wrapper": _module("roll.pipeline.agentic.tools.tool_env_wrapper", tool_wrapper=None),
        "roll.pipeline.agentic.agentic_config": _module("roll.pipeline.agentic.agentic_config", AgenticConfig=object, EnvManagerConfig=object),
        "roll.utils.functionals": _module("roll.utils.functionals", pad_to_length=torch_fns["pad_to_length"], aggregate_metrics=torch_fns["aggregate_metrics"]),
        "roll.utils.logging": logger,
        "roll.utils.str_utils": _module("roll.utils.str_utils", contains_renderable_field=lambda s, key: "{" + key + "}" in s),
        "roll.utils.telemetry": _module("roll.utils.telemetry", attach_trace_context=lambda meta: contextlib.nullcontext(), get_tracer=lambda name: Tracer()),
        "roll.utils.hash_utils": _module("roll.utils.hash_utils", compute_object_hash=lambda o: hashlib.sha1(json.dumps(o, sort_keys=True, default=str).encode()).hexdigest()),
    }
    # FUNCTIONALS was compiled with its own torch stand-in; point it at this one.
    FUNCTIONALS["torch"] = torch
    return stubs


class _Logger:
    def __getattr__(self, name: str) -> Any:
        return lambda *a, **k: None


# ---------------------------------------------------------------- the policy ROLL's managers query


def hermes_text(message: Dict[str, Any]) -> str:
    parts = [message["content"]] if message.get("content") else []
    for call in message.get("tool_calls") or []:
        fn = call["function"]
        parts.append('<tool_call>\n{"name": "' + fn["name"] + '", "arguments": ' + fn["arguments"] + "}\n</tool_call>")
    return "\n".join(parts)


def latest_info(history: List[Dict[str, Any]]) -> Dict[str, Any]:
    for entry in reversed(history):
        if "harness_gym" in entry:
            return entry["harness_gym"]
    raise AssertionError("no harness_gym info in the cache")


def oracle_text(history: List[Dict[str, Any]]) -> str:
    try:
        info = latest_info(history)
    except AssertionError:
        return "ok<|im_end|>"  # a failed reset: no hint to play
    return hermes_text(info["oracle_action"]["message"]) + "<|im_end|>" if "oracle_action" in info else "ok<|im_end|>"


class OracleProxy:
    """Stands in for ROLL's llm proxy (create_llm_proxy): answers with ``policy(manager history)``."""

    def __init__(self, generate_scheduler: Any = None, llm_proxy_config: Any = None, tokenizer: Any = None, env: Any = None) -> None:
        self.env, self.tokenizer = env, tokenizer
        self.manager: Any = None
        self.policy = oracle_text
        self.texts: List[str] = []

    def generate(self, messages: Any, lm_input: Any, generation_config: Dict[str, Any]) -> DataProto:
        text = self.policy(self.manager.rollout_cache.history)
        self.texts.append(text)
        ids = CharTokenizer.encode(text)
        return DataProto(TensorDict({"responses": Tensor(np.asarray([ids], dtype=np.int64))}, batch_size=1))


class OutputQueue:
    """The GroupQueueManager actor as the env managers call it (ray.get stubbed to identity): hands out
    episode ids, collects rollouts, and stops the manager after ``episodes`` rollouts."""

    def __init__(self, episodes: int = 1) -> None:
        self.episodes = episodes
        self.rollouts: List[Tuple[int, int, int, Any, int]] = []
        self.stop_reasons: List[Any] = []
        self.manager: Any = None
        self.next_episode = 0
        outer = self

        class _Remote:
            def __init__(self, fn: Any) -> None:
                self.remote = fn

        self.get_episode_id = _Remote(lambda group_id, env_id: outer._episode())
        self.put = _Remote(lambda group_id, episode_id, start_step, rollout, env_id: outer._put(group_id, episode_id, start_step, rollout, env_id))

    def _episode(self) -> Optional[int]:
        if not self.manager.running:
            return None
        episode, self.next_episode = self.next_episode, self.next_episode + 1
        return episode

    def _put(self, *item: Any) -> None:
        self.rollouts.append(item)
        self.stop_reasons.append(getattr(self.manager, "stop_reason", None))
        if item[3] is not None and sum(1 for r in self.rollouts if r[3] is not None) >= self.episodes:
            self.manager.stop()


def load_yaml(path: str, **env_config: Any) -> DictConfig:
    cfg = OmegaConf.load(path)
    for tag in cfg.custom_envs:
        for k, v in env_config.items():
            cfg.custom_envs[tag].env_config[k] = v
    return cfg


def env_manager_cfg(section: Any) -> types.SimpleNamespace:
    """An EnvManagerConfig's fields make_env_configs reads (defaults as agentic_config.py declares them)."""
    redundancy = section.get("group_size_redundancy", 0)
    groups = section.get("num_env_groups", 128)
    size = section.get("group_size", 1)
    return types.SimpleNamespace(
        tags=list(section.get("tags", ["SimpleSokoban"])),
        num_groups_partition=list(section.get("num_groups_partition", [128])),
        num_env_groups=groups,
        group_size=size,
        final_group_size=size + redundancy,
        max_env_num_per_worker=groups * (size + redundancy),  # EnvManagerConfig.__post_init__ when <= 0
    )


MAKE_ENV_CONFIGS = compile_from(
    vendored("roll/pipeline/agentic/agentic_config.py"),
    ["AgenticConfig.make_env_configs"],
    {"defaultdict": defaultdict, "random": random, "DictConfig": DictConfig, "logger": _Logger(), "EnvManagerConfig": object},
)["make_env_configs"]

GROUP_QUEUE = compile_from(
    vendored("roll/distributed/scheduler/rollout_scheduler.py"),
    ["GroupData", "GroupQueue"],
    {"dataclass": dataclass, "field": field, "List": List, "Dict": Dict, "Optional": Optional, "DataProto": DataProto, "tqdm": object, "asyncio": asyncio, "logger": _Logger(), "__name__": "rollout_scheduler"},
)


def roll_env_configs(cfg: DictConfig, section: str = "train_env_manager") -> Dict[int, DictConfig]:
    """ROLL's own AgenticConfig.make_env_configs over the resolved config (as dacite.from_dict sees it)."""
    resolved = OmegaConf.to_container(cfg, resolve=True)
    pipeline = types.SimpleNamespace(custom_envs=DictConfig(resolved["custom_envs"]))
    manager = env_manager_cfg(resolved[section])
    MAKE_ENV_CONFIGS(pipeline, manager)
    return {env_id: c for rank in manager.env_configs.values() for env_id, c in rank.items()}, pipeline


# ---------------------------------------------------------------- the tests


class RollOnVendoredCode(unittest.TestCase):
    saved: Dict[str, Any] = {}

    @classmethod
    def setUpClass(cls) -> None:
        cls.saved = {k: v for k, v in sys.modules.items() if k in ("gem", "roll") or k.startswith(("gem.", "roll.", "torch", "ray", "tensordict", "transformers", "codetiming"))}
        for k in cls.saved:
            del sys.modules[k]
        sys.modules.update(stub_modules())
        sys.path[:0] = [VENDOR, GEM_SRC]
        cls.gem = importlib.import_module("gem")
        # roll/pipeline/agentic/env/__init__.py registers ROLL's own envs with gem; base_env_manager takes gem from it.
        sys.modules["roll.pipeline.agentic.env"] = _module("roll.pipeline.agentic.env", gem=cls.gem, __path__=[])
        cls.traj = importlib.import_module("roll.pipeline.agentic.env_manager.traj_env_manager")
        cls.native = importlib.import_module("roll.pipeline.agentic.env_manager.agent_native_env_manager")
        cls.constants = importlib.import_module("roll.utils.constants")
        for mod in (cls.traj, cls.native, cls.constants, cls.gem):
            assert mod.__file__.startswith(VENDOR), mod.__file__
        sys.modules.pop("harness_gym.adapters.roll", None)
        cls.roll = importlib.import_module("harness_gym.adapters.roll")
        cls.roll.register()
        cls.roll.register()  # a repeat is a no-op

    @classmethod
    def tearDownClass(cls) -> None:
        from harness_gym.train import close_shared_pools

        close_shared_pools()
        for k in [k for k in sys.modules if k in ("gem", "roll", "torch", "ray", "tensordict", "transformers", "codetiming") or k.startswith(("gem.", "roll.", "torch."))]:
            del sys.modules[k]
        sys.modules.pop("harness_gym.adapters.roll", None)
        sys.modules.update(cls.saved)
        for p in (VENDOR, GEM_SRC):
            sys.path.remove(p)

    def setUp(self) -> None:
        RENDERED.clear()

    # ---- helpers ----

    def manager(self, cls: type, env_config: DictConfig, pipeline: Any, episodes: int = 1) -> Tuple[Any, OutputQueue, CharTokenizer]:
        """A real ROLL env manager, built as ROLL's EnvironmentWorker builds it."""
        tokenizer = CharTokenizer()
        worker_config = types.SimpleNamespace(
            llm_proxy=None,
            generating_args=types.SimpleNamespace(max_new_tokens=1024, to_dict=lambda: {"max_new_tokens": 1024}),
        )
        pipeline_config = types.SimpleNamespace(
            custom_envs=pipeline.custom_envs, sequence_length=65536, skip_mock_system_prompt=False, parse_tool_call_parameter_to_dict=False, exp_name="harness-gym-test"
        )
        queue = OutputQueue(episodes)
        mgr = cls(worker_config, pipeline_config, env_config, tokenizer, generate_scheduler=None, output_queue=queue, thread_lock=None, mode="train")
        mgr.llm_proxy.manager = mgr
        queue.manager = mgr
        return mgr, queue, tokenizer

    def traj_config(self, **env_config: Any) -> Tuple[Dict[int, DictConfig], Any]:
        cfg = load_yaml(os.path.join(EXAMPLES, "harness_gym_traj.yaml"), url=support.server_url(), options={"oracle_hints": True}, **env_config)
        return roll_env_configs(cfg)

    def rollout(self, mgr: Any, queue: OutputQueue, seed: int = 0) -> Any:
        mgr.run_rollout_loop(DataProto(meta_info={"seed": seed}))
        self.assertIsNone(queue.rollouts[-1][3])  # the loop's closing put
        return [r[3] for r in queue.rollouts if r[3] is not None]

    # ---- tests ----

    def test_traj_manager_trains_on_the_servers_final_reward(self) -> None:
        """TrajEnvManager (real) over the shipped traj example: env built by gem.make from ROLL's own
        make_env_configs output (DictConfig with a nested ListConfig variant), the episode's system prompt and
        tools in the first user turn, and the score ROLL trains on equal to a replay of the same actions."""
        configs, pipeline = self.traj_config()
        env_config = configs[0]
        self.assertIsInstance(env_config["config"]["variant"], DictConfig)
        self.assertIsInstance(env_config["config"]["variant"]["families"], ListConfig)
        mgr, queue, _ = self.manager(self.traj.TrajEnvManager, env_config, pipeline)
        env = mgr.env
        self.assertIsInstance(env, self.gem.Env)
        self.assertEqual(type(env).__name__, "HarnessGymEnv")
        self.assertEqual(env.variant, {"families": ["skills", "tools", "prompt", "hooks"], "intensity": 0.25, "split": "train", "identity_share": 0.2})
        self.assertIs(type(env.variant["families"]), list)
        [rollout] = self.rollout(mgr, queue)
        seed = (env_config["group_seed"] + 0) & 0xFFFFFFFF
        # What ROLL trains on: scores (one per token) with the episode score on the last token.
        score = float(rollout.non_tensor_batch["episode_scores"][0])
        steps = list(rollout.non_tensor_batch["step_scores"][0])
        self.assertEqual(steps[:-1], [0.0] * (len(steps) - 1))
        self.assertEqual(score, steps[-1])
        self.assertAlmostEqual(float(rollout.batch["scores"].a.sum()), score, places=6)
        metrics = rollout.meta_info["metrics"]
        self.assertEqual(metrics["env/HarnessGymTrain/reward"], score)
        self.assertEqual((metrics["env/HarnessGymTrain/failed"], metrics["env/HarnessGymTrain/excluded"]), (0.0, 0.0))
        self.assertIn("env/HarnessGymTrain/accuracy", metrics)
        self.assertEqual(metrics["env/HarnessGymTrain/num_actions"], len(steps))
        # The actions ROLL decoded, replayed on a connection of their own, give the same reward.
        actions = [self.roll.strip_end_markers(t) for t in mgr.llm_proxy.texts]
        self.assertEqual(replay(env.reset_item(seed), actions), (score, env.env_info["task_id"]))
        # TrajEnvManager's first turn: its own system template, then the episode's system prompt and tools.
        first = RENDERED[0]
        self.assertEqual(first[0], {"role": "system", "content": "You are a helpful assistant."})
        self.assertEqual(first[1]["role"], "user")
        self.assertIn("# Tools", first[1]["content"])
        self.assertIn("<tool_call>", first[1]["content"])
        self.assertFalse(self.roll.GroupFilter().filter(0, 0, [rollout]))
        env.close()
        support.report("adapter/roll/traj", [score])

    def test_traj_matches_the_typescript_oracle(self) -> None:
        """Eight episodes of the oracle case through TrajEnvManager.reset/step: the server's rewards, exactly."""
        case = next(c for c in support.expected()["cases"] if c["name"] == "train-zh")
        configs, pipeline = self.traj_config(variant="train", locale="zh-CN")
        mgr, queue, _ = self.manager(self.traj.TrajEnvManager, configs[0], pipeline)
        scores = []
        for i in range(8):
            queue.rollouts.clear()
            queue.next_episode = 0
            # ROLL's seed is meta_info seed + group_seed + episode_id: make it the case's seed (plus 2^32 once,
            # which the adapter reduces to uint32).
            [rollout] = self.rollout(mgr, queue, seed=case["seed"] + i + (2**32 if i == 3 else 0) - configs[0]["group_seed"])
            self.assertEqual(mgr.env.seed, case["seed"] + i)
            scores.append(float(rollout.non_tensor_batch["episode_scores"][0]))
            for name, value in case["components"][i].items():
                self.assertAlmostEqual(rollout.meta_info["metrics"][f"env/HarnessGymTrain/{name}"], value, places=6)
        self.assertEqual(scores, case["rewards"][:8])

    def test_failed_resets_and_steps_drop_their_group(self) -> None:
        """A reset the server refuses (traj mode): the sample is marked excluded, never scored for training;
        harness_gym's GroupFilter in ROLL's real GroupQueue drops the whole group and a fresh group takes its
        place, while a clean group passes."""
        configs, pipeline = self.traj_config()
        bad_configs, bad_pipeline = self.traj_config(variant="no-such-preset")
        good = []
        for env_id in range(3):
            mgr, queue, _ = self.manager(self.traj.TrajEnvManager, configs[env_id], pipeline)
            good += self.rollout(mgr, queue)
        mgr, queue, _ = self.manager(self.traj.TrajEnvManager, bad_configs[3], bad_pipeline)
        [bad] = self.rollout(mgr, queue)
        self.assertEqual(bad.meta_info["metrics"]["env/HarnessGymTrain/excluded"], 1.0)
        self.assertEqual(bad.meta_info["metrics"]["env/HarnessGymTrain/failed"], 1.0)
        self.assertEqual((mgr.env.env_info["failure"], mgr.env.env_info["error"]), ("server_error", "INVALID_VARIANT"))
        self.assertEqual([r.meta_info["metrics"]["env/HarnessGymTrain/excluded"] for r in good], [0.0] * 3)

        def queue_with(rollouts: List[Any]) -> Any:
            progress = types.SimpleNamespace(update=lambda n: None)
            q = GROUP_QUEUE["GroupQueue"](0, progress, 4, 0, 1, 0, self.roll.GroupFilter(None, None, "train"))
            q.advance_step(-1)
            for r in rollouts:
                q.put(0, -1, r)
            return q

        dropped = queue_with(good + [bad])
        self.assertEqual(dropped.group_filter_count, 1)
        self.assertEqual(list(dropped.groups), [1])  # episode 0 gone, a fresh group 1 in its place
        self.assertEqual(dropped.groups[1].rollouts, [])
        self.assertFalse(dropped.complete.is_set())
        more = []
        for env_id in range(3, 4):
            mgr, queue, _ = self.manager(self.traj.TrajEnvManager, configs[env_id], pipeline)
            more += self.rollout(mgr, queue)
        kept = queue_with(good + more)
        self.assertEqual(kept.group_filter_count, 0)
        self.assertEqual(len(kept.groups[0].rollouts), 4)
        self.assertTrue(kept.complete.is_set())
        # The native manager's placeholder (drop_flag) is dropped too; a server that stays down stops the run.
        self.assertTrue(self.roll.GroupFilter().filter(0, 0, [DataProto(meta_info={"drop_flag": True, "metrics": {}})]))
        f = self.roll.GroupFilter()
        f.max_consecutive_drops = 2
        f.filter(0, 0, [bad])
        f.filter(0, 1, [bad])
        with self.assertRaises(RuntimeError):
            f.filter(0, 2, [bad])

    def test_native_manager_formulates_rollouts_with_env_info_and_episode_tools(self) -> None:
        """AgentNativeStepEnvManager (real), whole loop: the episode's tools reach apply_chat_template, one sample
        per step, formulate_rollouts writes env_info into its JSON trajectory record, and the score is the
        server's final reward."""
        cfg = load_yaml(os.path.join(EXAMPLES, "harness_gym_native.yaml"), url=support.server_url(), options={"oracle_hints": True})
        configs, pipeline = roll_env_configs(cfg)
        self.assertEqual(configs[0]["env_manager_cls"], "roll.pipeline.agentic.env_manager.agent_native_env_manager.AgentNativeStepEnvManager")
        tools_per_episode = []
        for env_id in range(2):
            mgr, queue, tokenizer = self.manager(self.native.AgentNativeStepEnvManager, configs[env_id * 8], pipeline)
            [rollout] = self.rollout(mgr, queue)
            env = mgr.env
            steps = rollout.non_tensor_batch["step_scores"].tolist()
            self.assertEqual(len(steps), len(mgr.llm_proxy.texts))  # one sample per step
            score = float(rollout.non_tensor_batch["episode_scores"][0])
            self.assertEqual(steps[-1], score)
            record = json.loads(rollout.non_tensor_batch["trajectory_data"][-1])
            self.assertEqual(record["env_info"]["env"], "harness_gym")
            self.assertEqual(record["env_info"]["seed"], (configs[env_id * 8]["group_seed"]) & 0xFFFFFFFF)
            self.assertIsNone(record["env_info"]["failure"])
            self.assertTrue(record["env_info"]["outcome"])
            self.assertEqual(record["reward_info"]["episode_reward"], score)
            self.assertFalse(record["failure_info"]["has_failure"])
            # The episode's tools: in ROLL's manager, in every apply_chat_template call, in the record.
            self.assertTrue(mgr.tools)
            # ROLL's manager takes the tools once, from the reset's info; tools offered mid-episode (MCP
            # discovery) grow the env's list and reach the model as a system message the shim inserts where
            # they arrived. (ROLL draws group seeds with an unseeded random, so either kind of episode runs.)
            names = lambda tools: [t["function"]["name"] for t in tools]  # noqa: E731
            self.assertTrue(set(names(mgr.tools)) <= set(names(env.tools)))
            if env.tools != mgr.tools:
                self.assertIn(default_tools_message(env.tools), env._native_messages())
            self.assertTrue(all(t == mgr.tools for t in tokenizer.tools_seen))
            self.assertEqual(json.loads(rollout.non_tensor_batch["tools"][-1]), mgr.tools)
            tools_per_episode.append(sorted(t["function"]["name"] for t in mgr.tools))
            actions = [self.roll.strip_end_markers(t) for t in mgr.llm_proxy.texts]
            self.assertEqual(replay(env.reset_item(env.seed), actions), (score, record["env_info"]["task_id"]))
        self.assertNotEqual(tools_per_episode[0], tools_per_episode[1])  # per episode, not per config

    def test_native_reset_failure_is_a_dropped_placeholder(self) -> None:
        """A refused reset in native mode: ROLL's own path (env_reset_failed -> placeholder with drop_flag)."""
        cfg = load_yaml(os.path.join(EXAMPLES, "harness_gym_native.yaml"), url=support.server_url(), variant="no-such-preset")
        configs, pipeline = roll_env_configs(cfg)
        mgr, queue, _ = self.manager(self.native.AgentNativeStepEnvManager, configs[0], pipeline)
        no_sleep = types.SimpleNamespace(time=time.time, sleep=lambda s: None)
        with mock.patch.object(self.native, "time", no_sleep):
            [placeholder] = self.rollout(mgr, queue)
        self.assertTrue(placeholder.meta_info["drop_flag"])
        self.assertEqual(mgr.failure_mode, "server_error: INVALID_VARIANT")
        self.assertEqual(queue.stop_reasons[0], self.constants.EpisodeStopReason.ENV_RESET_FAILED)
        self.assertTrue(self.roll.GroupFilter().filter(0, 0, [placeholder]))
        # A length stop (ROLL passes its EpisodeStopReason as the action) ends and marks the episode.
        env = self.gem.make(env_id="harness_gym", url=support.server_url(), variant="identity", env_manager="native")
        env.reset(seed=11)
        obs, reward, terminated, truncated, out = env.step(self.constants.EpisodeStopReason.MAX_LENGTH)
        self.assertEqual((reward, terminated, truncated, out["failure"], out["metrics"]["excluded"]), (0.0, True, True, "max_length", 0.0))
        env.close()

    def test_turn_cap_and_lost_connection(self) -> None:
        env = self.gem.make(env_id="harness_gym", url=support.server_url(), variant="identity", max_turns=1)
        env.reset(seed=11)
        obs, reward, terminated, truncated, out = env.step("好的，稍等")
        self.assertEqual((terminated, truncated, out["outcome"], out["failure"]), (True, True, "max_turns", "max_turns"))
        self.assertEqual((out["metrics"]["failed"], out["metrics"]["excluded"]), (1.0, 0.0))  # the policy's doing: trained
        lossy = self.gem.make(env_id="harness_gym", url=support.server_url(), variant="identity", options={"oracle_hints": True}, pool_options={"reconnect": None})
        obs, info = lossy.reset(seed=12)
        client = lossy.pool._conns[0].client
        lossy.pool._thread.loop.call_soon_threadsafe(client.drop_connection)
        time.sleep(0.2)
        obs, reward, terminated, truncated, out = lossy.step(hermes_text(info["harness_gym"]["oracle_action"]["message"]))
        self.assertEqual((reward, terminated, out["failure"], out["error"], out["metrics"]["excluded"]), (0.0, True, "transport", "CONNECTION_CLOSED", 1.0))
        obs, info = lossy.reset(seed=12)
        self.assertFalse(lossy.env_reset_failed)
        self.assertTrue(info["task_id"])
        lossy.close()

    def test_siblings_share_task_variant_and_one_connection(self) -> None:
        configs, pipeline = self.traj_config()
        firsts, scores = [], []
        for env_id in range(8):  # one group: eight env managers, one group seed
            mgr, queue, _ = self.manager(self.traj.TrajEnvManager, configs[env_id], pipeline)
            [rollout] = self.rollout(mgr, queue)
            firsts.append((mgr.env.env_info["task_id"], mgr.env.env_info["variant_id"]))
            scores.append(float(rollout.non_tensor_batch["episode_scores"][0]))
        self.assertEqual(len({configs[i]["group_seed"] for i in range(8)}), 1)
        self.assertEqual(len(set(firsts)), 1)
        self.assertEqual(len(set(scores)), 1)  # the same oracle actions, the same reward
        self.assertEqual(mgr.env.pool.stats.connections_opened, 1)
        mgr, queue, _ = self.manager(self.traj.TrajEnvManager, configs[8], pipeline)  # the next group: another seed
        self.rollout(mgr, queue)
        self.assertNotEqual((mgr.env.env_info["task_id"], mgr.env.env_info["variant_id"]), firsts[0])


# ---------------------------------------------------------------- static checks against the vendored source


def _parse(root: str, rel: str) -> ast.Module:
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return ast.parse(f.read())


def _find(tree: ast.AST, name: str) -> ast.AST:
    owner, _, member = name.partition(".")
    node = next((n for n in tree.body if getattr(n, "name", None) == owner), None)  # type: ignore[attr-defined]
    if node is not None and member:
        node = next((n for n in node.body if getattr(n, "name", None) == member), None)  # type: ignore[attr-defined]
    if node is None:
        raise LookupError(name)
    return node


def ast_signature(root: str, rel: str, name: str) -> inspect.Signature:
    """The signature of a vendored function or method, from its source (body dropped, defaults kept)."""
    node = copy.deepcopy(_find(_parse(root, rel), name))
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise LookupError(f"{name} is not a function")
    node.decorator_list, node.returns = [], None
    node.body = [ast.Pass()]
    for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs:
        a.annotation = None
    for a in (node.args.vararg, node.args.kwarg):
        if a is not None:
            a.annotation = None
    ns: Dict[str, Any] = {}
    exec(compile(ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[])), rel, "exec", dont_inherit=True), {"field": field, "os": os}, ns)
    return inspect.signature(ns[node.name])


def _calls_on(tree: ast.AST, target: str) -> List[Tuple[str, int, List[str], int]]:
    """Calls ``self.<target>.<method>(...)`` in a tree: (method, positional count, keywords, line)."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            v = n.func.value
            if isinstance(v, ast.Attribute) and v.attr == target and isinstance(v.value, ast.Name) and v.value.id == "self":
                out.append((n.func.attr, len(n.args), [k.arg for k in n.keywords if k.arg], n.lineno))
    return out


def _attrs_on(tree: ast.AST, target: str) -> List[Tuple[str, int]]:
    """Attributes read as ``self.<target>.<name>`` (not called) and ``getattr(self.<target>, "<name>", ...)``."""
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and id(n) not in called:
            v = n.value
            if isinstance(v, ast.Attribute) and v.attr == target and isinstance(v.value, ast.Name) and v.value.id == "self":
                out.append((n.attr, n.lineno))
    return out


def dataclass_fields(root: str, classes: Dict[str, str], name: str) -> Dict[str, str]:
    """Field name -> annotation source of a vendored dataclass, its vendored bases included."""
    tree = _parse(root, classes[name])
    node = _find(tree, name)
    fields: Dict[str, str] = {}
    for base in node.bases:  # type: ignore[attr-defined]
        if isinstance(base, ast.Name) and base.id in classes:
            fields.update(dataclass_fields(root, classes, base.id))
    for stmt in node.body:  # type: ignore[attr-defined]
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            fields[stmt.target.id] = ast.unparse(stmt.annotation)
    return fields


CONFIG_CLASSES = {
    "ScheduleConfig": "roll/configs/base_config.py",
    "BaseConfig": "roll/configs/base_config.py",
    "PPOConfig": "roll/configs/base_config.py",
    "WorkerConfig": "roll/configs/worker_config.py",
    "AgenticConfig": "roll/pipeline/agentic/agentic_config.py",
    "EnvManagerConfig": "roll/pipeline/agentic/agentic_config.py",
}

MANAGERS_SRC = (
    "roll/pipeline/agentic/env_manager/traj_env_manager.py",
    "roll/pipeline/agentic/env_manager/agent_native_env_manager.py",
)


def interface_problems(roll_root: str = VENDOR, gem_root: str = GEM_SRC) -> List[str]:
    """Every name the adapter imports from or calls on ROLL/gem, checked against the vendored source.

    Returns one line per mismatch (empty when the interface holds).
    """
    problems: List[str] = []
    adapter = importlib.import_module("harness_gym.adapters.roll")
    base = adapter._HarnessGymEnvBase

    def check(what: str, fn: Any) -> None:
        try:
            fn()
        except (LookupError, TypeError, AttributeError, StopIteration, OSError, SyntaxError) as exc:
            problems.append(f"{what}: {type(exc).__name__}: {exc}")

    # gem: what the adapter imports and calls.
    def gem_register() -> None:
        ast_signature(gem_root, "gem/envs/registration.py", "register").bind("harness_gym", entry_point=adapter.ENTRY_POINT)
        tree = _parse(gem_root, "gem/__init__.py")
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        for name in ("register", "make", "Env"):
            if name not in names:
                raise LookupError(f"gem/__init__.py does not export {name}")

    def gem_registry() -> None:
        reg = _parse(gem_root, "gem/envs/registration.py")
        if not any(isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "ENV_REGISTRY" for n in reg.body):
            raise LookupError("gem.envs.registration.ENV_REGISTRY")
        if "entry_point" not in dataclass_fields(gem_root, {"EnvSpec": "gem/envs/registration.py"}, "EnvSpec"):
            raise LookupError("EnvSpec.entry_point")
        # gem.make builds the env with the config as keywords: env_class(**{**spec.kwargs, **kwargs}).
        ast_signature(gem_root, "gem/envs/registration.py", "make").bind(env_id="harness_gym", url="ws://x")

    def gem_env() -> None:
        core = _parse(gem_root, "gem/core.py")
        ast_signature(gem_root, "gem/core.py", "Env.reset").bind(object(), 0)  # super().reset(seed)
        for method in ("step", "reset"):
            theirs = ast_signature(gem_root, "gem/core.py", f"Env.{method}")
            ours = inspect.signature(getattr(base, method))
            if list(theirs.parameters) != list(ours.parameters):
                raise TypeError(f"Env.{method}{theirs} vs the adapter's {method}{ours}")
        _find(core, "Env")

    # ROLL's env managers: every call they make on self.env, and every attribute they read from it.
    def managers() -> None:
        for rel in MANAGERS_SRC:
            tree = _parse(roll_root, rel)
            for method, npos, keywords, line in _calls_on(tree, "env"):
                impl = getattr(base, method, None)
                if impl is None:
                    problems.append(f"{rel}:{line} calls self.env.{method}(), which the adapter does not define")
                    continue
                try:
                    inspect.signature(impl).bind(object(), *([None] * npos), **{k: None for k in keywords})
                except TypeError as exc:
                    problems.append(f"{rel}:{line} calls self.env.{method}({', '.join(keywords)}): {exc}")
            for attr, line in _attrs_on(tree, "env"):
                # gem.make sets env_id and entry_point on every env it builds.
                if attr not in dir(base) and attr not in ("env_id", "entry_point") and attr not in _instance_attributes():
                    problems.append(f"{rel}:{line} reads self.env.{attr}, which the adapter does not define")

    def traj_keys() -> None:
        with open(os.path.join(roll_root, MANAGERS_SRC[0]), encoding="utf-8") as f:
            traj = f.read()
        with open(os.path.join(roll_root, MANAGERS_SRC[1]), encoding="utf-8") as f:
            native = f.read()
        # The info keys the adapter sets for the managers, and the metric names the filter reads.
        for key, src, where in (
            ("'env_instruction'", traj, "traj"),
            ("'metrics_agg_mode'", traj, "traj"),
            ('item.get("metrics", {})', traj, "traj"),
            ('env_metric = {f"env/{rollout_cache.tag}/{k}": v', traj, "traj"),
            ('info.get("tools", [])', native, "native"),
            ('info.get("failure_mode"', native, "native"),
            ("self.env.env_reset_failed", native, "native"),
            ('rollout.meta_info["drop_flag"] = True', native, "native"),
            ('env_metric = {f"env/{rollout_cache.tag}/{k}": v', native, "native"),
        ):
            if key not in src:
                raise LookupError(f"{where} manager no longer has {key}")
        # TrajEnvManager.__init__ builds the env this way (the adapter's constructor takes the env_config keys).
        if 'gem.make(env_id=self.env_config["env_type"], **self.env_config[\'config\'])' not in traj:
            raise LookupError("TrajEnvManager no longer builds its env with gem.make(env_id=..., **env_config['config'])")

    def metrics_last() -> None:
        sig = ast_signature(roll_root, "roll/utils/functionals.py", "aggregate_metrics")
        sig.bind(history_metrics=[], metrics_agg_mode={})
        with open(os.path.join(roll_root, "roll/utils/functionals.py"), encoding="utf-8") as f:
            if 'elif mode == "last":' not in f.read():
                raise LookupError('aggregate_metrics has no "last" mode')

    def stop_reason() -> None:
        const = _parse(roll_root, "roll/utils/constants.py")
        node = _find(const, "EpisodeStopReason")
        members = {t.id for s in node.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}  # type: ignore[attr-defined]
        if "MAX_LENGTH" not in members:
            raise LookupError("EpisodeStopReason.MAX_LENGTH")

    def group_filter() -> None:
        sched = _parse(roll_root, "roll/distributed/scheduler/rollout_scheduler.py")
        calls = [n for n in ast.walk(sched) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "filter"
                 and isinstance(n.func.value, ast.Attribute) and n.func.value.attr == "group_filter"]
        if not calls:
            raise LookupError("rollout_scheduler.py no longer calls self.group_filter.filter(...)")
        for c in calls:
            try:
                inspect.signature(adapter.GroupFilter.filter).bind(object(), *([None] * len(c.args)), **{k.arg: None for k in c.keywords})
            except TypeError as exc:
                raise TypeError(f"rollout_scheduler.py:{c.lineno} calls group_filter.filter({ast.unparse(c)[ast.unparse(c).index('(') + 1:-1]}): {exc}") from None
        made = [n for n in ast.walk(sched) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "group_filter_cls"]
        if not made:
            raise LookupError("rollout_scheduler.py no longer builds group_filter_cls(...)")
        for c in made:
            inspect.signature(adapter.GroupFilter).bind(*([None] * len(c.args)), **{k.arg: None for k in c.keywords})
        if "group_filter_cls" not in dataclass_fields(roll_root, CONFIG_CLASSES, "EnvManagerConfig"):
            raise LookupError("EnvManagerConfig.group_filter_cls")

    for what, fn in (
        ("gem.register", gem_register),
        ("gem.envs.registration", gem_registry),
        ("gem.core.Env", gem_env),
        ("ROLL env managers -> self.env", managers),
        ("ROLL env manager info keys", traj_keys),
        ("roll.utils.functionals.aggregate_metrics", metrics_last),
        ("roll.utils.constants.EpisodeStopReason", stop_reason),
        ("ROLL group_filter_cls", group_filter),
    ):
        check(what, fn)
    return problems


def _instance_attributes() -> set:
    """Attributes the adapter's constructor sets (read from its source)."""
    import harness_gym.adapters.roll as adapter

    tree = ast.parse(inspect.getsource(adapter._HarnessGymEnvBase.__init__).strip().replace("\n    ", "\n"))
    return {t.attr for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) for t in ([t] if not isinstance(t, ast.Tuple) else t.elts)
            if isinstance(t, ast.Attribute)}


class InterfaceAndConfigs(unittest.TestCase):
    """Static checks: the adapter's use of ROLL/gem, and every shipped config, against the vendored source."""

    def test_vendored_files_are_verbatim(self) -> None:
        for folder in (VENDOR, GEM_SRC):
            self.assertEqual(check_vendor.check_folder(folder), [], folder)
        with open(os.path.join(VENDOR, "VENDOR.json")) as f:
            self.assertEqual(json.load(f)["commit"], ROLL_COMMIT)
        with open(os.path.join(GEM_SRC, "VENDOR.json")) as f:
            self.assertEqual(json.load(f)["commit"], GEM_COMMIT)

    def test_every_name_the_adapter_uses_exists_with_that_signature(self) -> None:
        self.assertEqual(interface_problems(), [])

    def test_a_moved_interface_fails_the_check(self) -> None:
        """Scratch copies of the vendored trees with one interface changed each: the check must name it."""
        edits = [
            (VENDOR, MANAGERS_SRC[1], "**self.env.env_info", "**self.env.env_metadata", "env_metadata"),
            (VENDOR, MANAGERS_SRC[0], "self.env.step(action=responses[0])", "self.env.step(act=responses[0])", "act"),
            (VENDOR, "roll/distributed/scheduler/rollout_scheduler.py", "filter(group_id=self.group_id, episode_id=episode_id, group=group.rollouts)",
             "filter(group_id=self.group_id, episode_id=episode_id, rollouts=group.rollouts)", "rollouts"),
            (VENDOR, MANAGERS_SRC[0], "'env_instruction'", "'instruction'", "env_instruction"),
            (GEM_SRC, "gem/envs/registration.py", "def register(env_id: str, entry_point", "def register(env_id: str, entry", "gem.register"),
            (GEM_SRC, "gem/core.py", "def reset(self, seed: Optional[int] = None)", "def reset(self, seed: Optional[int] = None, options=None)", "reset"),
        ]
        for root, rel, old, new, word in edits:
            with tempfile.TemporaryDirectory() as tmp:
                copy_root = os.path.join(tmp, "tree")
                shutil.copytree(root, copy_root)
                path = os.path.join(copy_root, rel)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                self.assertIn(old, text, rel)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text.replace(old, new))
                roots = {"roll_root": copy_root} if root == VENDOR else {"gem_root": copy_root}
                problems = interface_problems(**roots)
                self.assertTrue(problems, f"{rel}: {old!r} -> {new!r} went unnoticed")
                self.assertIn(word, "\n".join(problems))

    def configs(self) -> List[Tuple[str, DictConfig]]:
        out = [(os.path.basename(p), OmegaConf.load(p)) for p in sorted(os.path.join(EXAMPLES, n) for n in os.listdir(EXAMPLES) if n.endswith(".yaml"))]
        with open(DOC, encoding="utf-8") as f:
            doc = f.read()
        blocks = [b.split("```", 1)[0] for b in doc.split("```yaml\n")[1:]]
        self.assertTrue(blocks)
        out += [(f"docs/training/roll.md block {i}", OmegaConf.create(b)) for i, b in enumerate(blocks)]
        return out

    def test_every_config_validates_against_rolls_dataclasses(self) -> None:
        """Each config (examples and the doc), resolved as ROLL's start script resolves it
        (OmegaConf.to_container(cfg, resolve=True), then dacite.from_dict(AgenticConfig), which ignores unknown
        keys): every key is a field of the vendored AgenticConfig / EnvManagerConfig (with their bases), of a
        type that fits, except the interpolation variables, which must be used as such; every custom_envs key
        is one ROLL reads; ROLL's own make_env_configs accepts it; and the env_config keys bind to the adapter."""
        import harness_gym.adapters.roll as adapter

        agentic = dataclass_fields(VENDOR, CONFIG_CLASSES, "AgenticConfig")
        manager = dataclass_fields(VENDOR, CONFIG_CLASSES, "EnvManagerConfig")
        interpolation_only = {"max_actions_per_traj", "max_tokens_per_step"}
        read_per_tag = {
            "env_type": "roll/pipeline/agentic/agentic_config.py",
            "env_config": "roll/pipeline/agentic/agentic_config.py",
            "env_manager_cls": "roll/pipeline/agentic/agentic_config.py",
            "max_steps": MANAGERS_SRC[0],
            "max_tokens_per_step": MANAGERS_SRC[0],
            "agent_system_template": MANAGERS_SRC[0],
            "agent_template": MANAGERS_SRC[0],
        }
        types_ok = {"int": int, "str": str, "List[str]": list, "List[int]": list, "Optional[int]": (int, type(None)), "Dict[str, Any]": dict}
        for name, cfg in self.configs():
            raw = OmegaConf.to_yaml(cfg)
            resolved = OmegaConf.to_container(cfg, resolve=True)
            for key, value in resolved.items():
                if key in interpolation_only:
                    self.assertIn("${" + key + "}", raw, f"{name}: {key} is no AgenticConfig field and is not interpolated")
                    continue
                self.assertIn(key, agentic, f"{name}: {key} is not an AgenticConfig field")
                if agentic[key] in types_ok:
                    self.assertIsInstance(value, types_ok[agentic[key]], f"{name}: {key}")
            for section in ("train_env_manager", "val_env_manager"):
                for key, value in (resolved.get(section) or {}).items():
                    self.assertIn(key, manager, f"{name}: {section}.{key} is not an EnvManagerConfig field")
                    if manager[key] in types_ok:
                        self.assertIsInstance(value, types_ok[manager[key]], f"{name}: {section}.{key}")
                if section in resolved and "group_filter_cls" in resolved[section]:
                    self.assertEqual(resolved[section]["group_filter_cls"], "harness_gym.adapters.roll.GroupFilter")
            for tag, env in resolved["custom_envs"].items():
                for key in env:
                    self.assertIn(key, read_per_tag, f"{name}: custom_envs.{tag}.{key} is read nowhere in ROLL")
                    with open(os.path.join(VENDOR, read_per_tag[key]), encoding="utf-8") as f:
                        self.assertIn(key, f.read())
                inspect.signature(adapter._HarnessGymEnvBase).bind(**env["env_config"])
                self.assertLessEqual(env["env_config"].get("max_turns", 0), env["max_steps"], f"{name}: max_turns > max_steps")
            if "train_env_manager" in resolved:
                # AgenticConfig.__post_init__'s checks, and ROLL's make_env_configs itself.
                train = resolved["train_env_manager"]
                self.assertEqual(resolved.get("rollout_batch_size", 128) % train["group_size"], 0, name)  # 128: BaseConfig default
                for section in ("train_env_manager", "val_env_manager"):
                    if section in resolved:
                        for tag in resolved[section]["tags"]:
                            self.assertIn(tag, resolved["custom_envs"], f"{name}: {section} tag {tag}")
                        configs, _ = roll_env_configs(cfg, section)
                        self.assertEqual(len(configs), resolved[section]["num_env_groups"] * resolved[section]["group_size"])
                        if "val_batch_size" in resolved and section == "val_env_manager":
                            self.assertEqual(resolved["val_batch_size"] % len(configs), 0, name)


class ImportWithoutGem(unittest.TestCase):
    def test_import_without_gem(self) -> None:
        saved = sys.modules.pop("harness_gym.adapters.roll", None)
        try:
            module = importlib.import_module("harness_gym.adapters.roll")
            self.assertEqual(module.strip_end_markers("hi<|im_end|>\n"), "hi")
            self.assertEqual(module.plain(OmegaConf.create({"a": [1, {"b": [2]}]})), {"a": [1, {"b": [2]}]})
            if "gem" not in sys.modules:
                with self.assertRaises(ImportError):
                    module.HarnessGymEnv  # noqa: B018 - gem is needed only here
        finally:
            sys.modules.pop("harness_gym.adapters.roll", None)
            if saved is not None:
                sys.modules["harness_gym.adapters.roll"] = saved


def replay(item: Dict[str, Any], actions: List[str]) -> Tuple[float, str]:
    """The server's final reward (and the task) for these actions, over a connection of its own (not the adapter's pool)."""
    from harness_gym.train import EnvPool

    pool = EnvPool(support.server_url())
    try:
        handle, result = pool.reset_sync(item)
        assert result.get("ok") is not False, result
        for text in actions:
            step = pool.step_sync(handle, {"text": text})
            if step["terminated"] or step["truncated"]:
                return float(step["reward"]), result["info"]["task_id"]
        raise AssertionError("the replay did not end")
    finally:
        pool.close()


if __name__ == "__main__":
    unittest.main()
