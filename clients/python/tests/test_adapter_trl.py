"""The TRL adapter driven through TRL's own code (vendored verbatim under vendor/trl/), over a live server.

TRL commit read: huggingface/trl ``f2cd57710ae345ea6428ae95363267fcf38a3dc8`` (vendor/trl/VENDOR.json).

- ``trl/generation/vllm_generation.py`` is imported for real (torch, transformers, accelerate stubbed in
  ``sys.modules``), and ``VLLMGeneration.generate`` runs its server-mode path: ``gather_object`` of every
  rank's prompts, rank 0 asks the vLLM server, ``broadcast_object_list``, each rank takes its slice. The ranks
  are threads around a simulated collective with accelerate's semantics (``gather_object`` flattens every
  rank's list in rank order, ``broadcast_object_list`` copies rank 0's list; huggingface/accelerate
  ``16cb6eb80dd9aa8b4df1a63ef57863e455d53b83`` ``src/accelerate/utils/operations.py`` L498-503, L675); a rank
  that makes a collective the others do not make fails the barrier instead of hanging.
- ``trl/trainer/grpo_trainer.py`` imports torch, transformers, datasets, pandas and peft at module level, so
  it is not imported: the pure-Python statements of ``GRPOTrainer`` that a rollout function meets (the
  ``rollout_func`` branch of ``_generate``, the ``env_mask`` pop, the merge of extra fields into the inputs,
  the reward keyword arguments and the None-to-NaN conversion of ``_calculate_rewards``) are cut out of the
  vendored file by ``ast`` and executed as they are; what needs tensors is checked statically.
- ``trl/trainer/grpo_config.py`` / ``base_config.py`` are imported for real on a stand-in of
  ``transformers.TrainingArguments`` (see ``TrainingArguments`` below), so ``GRPOConfig(...)`` in the docs and
  the example is TRL's own dataclass and ``__post_init__``.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import contextvars
import dataclasses
import importlib
import inspect
import json
import math
import os
import re
import sys
import textwrap
import threading
import types
import unittest
from collections import defaultdict
from typing import Any, Callable, ClassVar, Dict, Iterator, List, Optional, Tuple

import support
from test_adapter_verl import train_tokenizer
from test_train_tokens import hermes_text, mask_runs

from harness_gym.train import Generation, ToyTokenizer, group_rows

HERE = os.path.dirname(os.path.abspath(__file__))


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


VENDOR = os.path.join(HERE, "vendor", "trl")
TRL_COMMIT = json.loads(read(os.path.join(VENDOR, "VENDOR.json")))["commit"]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
ADAPTER = os.path.join(REPO, "clients", "python", "harness_gym", "adapters", "trl.py")
DOC = os.path.join(REPO, "docs", "training", "trl.md")
EXAMPLES = os.path.join(REPO, "clients", "python", "examples", "trl")

EPISODE: contextvars.ContextVar[Dict[str, Any]] = contextvars.ContextVar("trl_episode")
G = 4


# ---------------------------------------------------------------------------------------------------------
# the vendored source, read with ast


def vendored_source(rel: str) -> str:
    return read(os.path.join(VENDOR, rel))


def find_def(tree: ast.AST, path: str) -> ast.AST:
    """``"GRPOTrainer._generate"`` -> that FunctionDef (KeyError when the vendored code has no such name)."""
    node: ast.AST = tree
    for part in path.split("."):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and child.name == part:
                node = child
                break
        else:
            raise KeyError(f"{path}: no {part!r} in the vendored source")
    return node


def signature_of(func: ast.AST) -> inspect.Signature:
    """The signature of a vendored function, rebuilt from its ast (annotations and defaults' values dropped)."""
    assert isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
    args = func.args
    stripped = ast.arguments(
        posonlyargs=[ast.arg(a.arg) for a in args.posonlyargs], args=[ast.arg(a.arg) for a in args.args],
        vararg=ast.arg(args.vararg.arg) if args.vararg else None, kwonlyargs=[ast.arg(a.arg) for a in args.kwonlyargs],
        kw_defaults=[None if d is None else ast.Constant(None) for d in args.kw_defaults],
        kwarg=ast.arg(args.kwarg.arg) if args.kwarg else None, defaults=[ast.Constant(None) for _ in args.defaults])
    namespace: Dict[str, Any] = {}
    exec(f"def f({ast.unparse(stripped)}): pass", namespace)
    return inspect.signature(namespace["f"])


def statements(func: ast.AST, wanted: Callable[[ast.stmt], bool]) -> ast.stmt:
    """The one statement anywhere in ``func`` for which ``wanted`` holds (AssertionError otherwise)."""
    found = [n for n in ast.walk(func) if isinstance(n, ast.stmt) and wanted(n)]
    if len(found) != 1:
        raise AssertionError(f"{getattr(func, 'name', func)}: {len(found)} statements match, expected 1")
    return found[0]


def run_statements(nodes: List[ast.stmt], namespace: Dict[str, Any], label: str) -> Dict[str, Any]:
    """Execute vendored statements, as they are, in ``namespace``."""
    code = compile(ast.Module(body=list(nodes), type_ignores=[]), f"<TRL {TRL_COMMIT[:12]} {label}>", "exec")
    exec(code, namespace)
    return namespace


GRPO_TRAINER = ast.parse(vendored_source("trl/trainer/grpo_trainer.py"))
VLLM_GENERATION = ast.parse(vendored_source("trl/generation/vllm_generation.py"))
GRPO_CONFIG = ast.parse(vendored_source("trl/trainer/grpo_config.py"))
BASE_CONFIG = ast.parse(vendored_source("trl/trainer/base_config.py"))


class RealTrainerSteps:
    """The pure-Python statements of GRPOTrainer that carry a rollout function's output, cut from the vendored file."""

    def __init__(self) -> None:
        generate = find_def(GRPO_TRAINER, "GRPOTrainer._generate")
        branch = statements(generate, lambda n: isinstance(n, ast.If) and ast.unparse(n.test) == "self.rollout_func is not None")
        assert isinstance(branch, ast.If)
        #: L2150-2169: output = self.rollout_func(prompts, self); required keys; extra_fields.
        self.rollout_branch = branch.body
        #: L2214: tool_mask = extra_fields.pop("env_mask", None)
        self.env_mask = [statements(generate, lambda n: ast.unparse(n) == "tool_mask = extra_fields.pop('env_mask', None)")]
        score = find_def(GRPO_TRAINER, "GRPOTrainer._generate_and_score_completions")
        #: L2662-2667: the extra fields merged into each input row.
        self.merge = [statements(score, lambda n: isinstance(n, ast.If) and ast.unparse(n.test) == "extra_fields")]
        rewards = find_def(GRPO_TRAINER, "GRPOTrainer._calculate_rewards")
        #: L1617-1618: every input column but prompt/completion/completion_ids, as lists.
        self.reward_kwargs = [statements(rewards, lambda n: ast.unparse(n).startswith("keys = [key for key in inputs[0]")),
                              statements(rewards, lambda n: ast.unparse(n).startswith("reward_kwargs = {key: [example[key]"))]
        #: L1659-1663: a synchronous reward function's call and its None -> NaN.
        self.reward_call = [statements(rewards, lambda n: ast.unparse(n).startswith("output_reward_func = reward_func(prompts=prompts")),
                            statements(rewards, lambda n: ast.unparse(n).startswith("output_reward_func = [reward if reward is not None else torch.nan"))]

    def call_rollout_func(self, rollout_func: Callable[..., Any], prompts: List[Any], trainer: Any) -> Dict[str, Any]:
        trainer.rollout_func = rollout_func
        trainer.use_vllm = False  # the weight sync before the call is the trainer's business
        ns = run_statements(self.rollout_branch, {"self": trainer, "prompts": prompts}, "GRPOTrainer._generate")
        run_statements(self.env_mask, ns, "GRPOTrainer._generate")
        return ns

    def merged_inputs(self, prompts: List[Any], extra_fields: Dict[str, Any]) -> List[Dict[str, Any]]:
        inputs = [{"prompt": p} for p in prompts]
        run_statements(self.merge, {"inputs": inputs, "extra_fields": extra_fields}, "_generate_and_score_completions")
        return inputs

    def rewards(self, funcs: List[Callable[..., Any]], inputs: List[Dict[str, Any]]) -> Dict[str, List[float]]:
        ns = run_statements(self.reward_kwargs, {"inputs": inputs}, "_calculate_rewards")
        out = {}
        for f in funcs:
            ns.update(reward_func=f, prompts=[i["prompt"] for i in inputs], completions=["" for _ in inputs],
                      completion_ids_list=[[] for _ in inputs], torch=types.SimpleNamespace(nan=math.nan))
            run_statements(self.reward_call, ns, "_calculate_rewards")
            out[f.__name__] = ns["output_reward_func"]
        return out


# ---------------------------------------------------------------------------------------------------------
# the real VLLMGeneration, on simulated ranks


class World:
    """``n`` ranks as threads, with accelerate's object collectives (a barrier per collective, 30 s timeout)."""

    def __init__(self, n: int, timeout: float = 30.0) -> None:
        self.n = n
        self.barrier = threading.Barrier(n, timeout=timeout)
        self.slots: List[Any] = [None] * n
        self.local = threading.local()
        #: per rank, every collective it made: ("gather", len) / ("broadcast", None)
        self.log: List[List[Tuple[str, Optional[int]]]] = [[] for _ in range(n)]

    @property
    def rank(self) -> int:
        return getattr(self.local, "rank", 0)

    def gather_object(self, obj: Any) -> List[Any]:
        """operations.py L498-503: all_gather_object, then the per-rank lists flattened in rank order."""
        r = self.rank
        self.log[r].append(("gather", len(obj)))
        self.slots[r] = list(obj)
        self.barrier.wait()
        out = [x for y in self.slots for x in y]
        self.barrier.wait()
        return out

    def broadcast_object_list(self, object_list: List[Any], from_process: int = 0) -> List[Any]:
        r = self.rank
        self.log[r].append(("broadcast", None))
        if r == from_process:
            self.slots[r] = list(object_list)
        self.barrier.wait()
        object_list[:] = self.slots[from_process]
        self.barrier.wait()
        return object_list

    def accelerator(self, rank: int) -> Any:
        return types.SimpleNamespace(process_index=rank, local_process_index=rank, is_main_process=rank == 0,
                                     num_processes=self.n, device="cpu")

    def run(self, work: Callable[[int], Any]) -> List[Any]:
        """``work(rank)`` on every rank at once; the results in rank order (the first error re-raised)."""
        results: List[Any] = [None] * self.n
        errors: List[BaseException] = []

        def main(rank: int) -> None:
            self.local.rank = rank
            try:
                results[rank] = work(rank)
            except BaseException as exc:
                errors.append(exc)
                self.barrier.abort()

        threads = [threading.Thread(target=main, args=(r,)) for r in range(self.n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return results


class FakeVLLMServer:
    """``VLLMClient.generate`` as VLLMGeneration calls it (L575-580): one fixed reply per prompt, every token's
    logprob ``-uid / 1e4`` for a uid unique to that (prompt, call), so a completion can be traced to its prompt."""

    def __init__(self, reply: List[int]) -> None:
        self.reply = reply
        self.prompts: Dict[int, List[int]] = {}
        self.calls: List[int] = []
        self.lock = threading.Lock()

    def generate(self, prompts: List[List[int]], images: Any = None, n: int = 1, **sampling: Any) -> Dict[str, Any]:
        assert n == 1 and images is None and sampling["max_tokens"] == 64, (n, images, sampling)
        out: Dict[str, Any] = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "logprob_token_ids": []}
        with self.lock:
            self.calls.append(len(prompts))
            for p in prompts:
                uid = len(self.prompts) + 1
                self.prompts[uid] = list(p)
                out["prompt_ids"].append(list(p))
                out["completion_ids"].append(list(self.reply))
                out["logprobs"].append([[-uid / 1e4] for _ in self.reply])
                out["logprob_token_ids"].append([[t] for t in self.reply])
        return out

    def uid(self, logprob: float) -> int:
        return round(-logprob * 1e4)


@contextlib.contextmanager
def modules(entries: Dict[str, types.ModuleType]) -> Iterator[None]:
    """Put modules in ``sys.modules`` for the block, restoring whatever was there before."""
    saved = {name: sys.modules.get(name) for name in entries}
    sys.modules.update(entries)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old


def module(name: str, path: Optional[str] = None, **attrs: Any) -> types.ModuleType:
    m = types.ModuleType(name)
    if path is not None:
        m.__path__ = [path]  # a package whose files are the vendored ones
    m.__dict__.update(attrs)
    return m


class _Anything:
    def __init__(self, *a: Any, **k: Any) -> None:
        pass


def _false(*a: Any, **k: Any) -> bool:
    return False


@contextlib.contextmanager
def vendored_trl(world: World) -> Iterator[types.ModuleType]:
    """``trl.generation.vllm_generation`` (vendored, verbatim) imported with its heavy imports stubbed; yields it."""
    trl_dir = os.path.join(VENDOR, "trl")
    torch = module("torch", nn=module("torch.nn", Module=_Anything), distributed=module("torch.distributed"))
    stubs = {
        "torch": torch, "torch.nn": torch.nn, "torch.distributed": torch.distributed,
        "torch.distributed.fsdp": module("torch.distributed.fsdp", FullyShardedDataParallel=_Anything),
        "accelerate": module("accelerate"),
        "accelerate.utils": module("accelerate.utils", gather_object=world.gather_object,
                                   broadcast_object_list=world.broadcast_object_list, is_peft_model=_false),
        "transformers": module("transformers", PreTrainedModel=_Anything, PreTrainedTokenizerBase=_Anything,
                               ProcessorMixin=_Anything, is_bitsandbytes_available=_false),
        "transformers.utils": module("transformers.utils", is_torch_mlu_available=_false, is_torch_mps_available=_false,
                                     is_torch_npu_available=_false, is_torch_xpu_available=_false),
        "trl": module("trl", trl_dir),
        "trl.generation": module("trl.generation", os.path.join(trl_dir, "generation")),
        "trl.generation.vllm_client": module("trl.generation.vllm_client", VLLMClient=_Anything),
        "trl.distributed": module("trl.distributed", DistributedBackend=_Anything),
        "trl.extras": module("trl.extras", os.path.join(trl_dir, "extras")),
        "trl.extras.profiling": module("trl.extras.profiling", ProfilingContext=_Anything),
        "trl.import_utils": module("trl.import_utils", is_vllm_available=_false),
        "trl.trainer": module("trl.trainer", os.path.join(trl_dir, "trainer")),
        "trl.trainer.utils": module("trl.trainer.utils", ensure_master_addr_port=_Anything),
        "trl.generation.vllm_generation": None,  # type: ignore[dict-item]  # imported below, removed after
    }
    with modules(stubs):
        del sys.modules["trl.generation.vllm_generation"]
        yield importlib.import_module("trl.generation.vllm_generation")


def server_mode_generation(vg_module: types.ModuleType, accelerator: Any, server: FakeVLLMServer) -> Any:
    """A VLLMGeneration in server mode with the attributes ``generate`` reads (``__init__`` would connect)."""
    vg = vg_module.VLLMGeneration.__new__(vg_module.VLLMGeneration)
    vg.__dict__.update(accelerator=accelerator, mode="server", vllm_client=server, enable_sleep_mode=False,
                       temperature=1.0, top_p=1.0, top_k=-1, min_p=None, repetition_penalty=1.0,
                       max_completion_length=64, logprobs=0, structured_outputs_regex=None, generation_kwargs={})
    return vg


# ---------------------------------------------------------------------------------------------------------


class Records:
    """Every episode's reset/step results (the observer runs in the episode's own asyncio task)."""

    def __init__(self) -> None:
        self.episodes: List[Dict[str, Any]] = []
        self.lock = threading.Lock()

    def observe(self, result: Dict[str, Any]) -> None:
        if "reward" not in result:  # a reset result: a new episode in this task
            episode: Dict[str, Any] = {"results": [], "generated": []}
            EPISODE.set(episode)
            with self.lock:
                self.episodes.append(episode)
        EPISODE.get()["results"].append(result)

    def by_task(self) -> Dict[str, List[Dict[str, Any]]]:
        out: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
        for e in self.episodes:
            out[e["results"][0]["info"]["task_id"]].append(e)
        return out


class TrlAdapterTest(unittest.TestCase):
    tokenizer: ToyTokenizer
    steps: RealTrainerSteps

    @classmethod
    def setUpClass(cls) -> None:
        cls.tokenizer = train_tokenizer()
        cls.steps = RealTrainerSteps()

    def trainer(self, **attrs: Any) -> Any:
        base = dict(processing_class=self.tokenizer, args=types.SimpleNamespace(max_completion_length=64),
                    accelerator=types.SimpleNamespace(num_processes=1, process_index=0, is_main_process=True), vllm_generation=None)
        base.update(attrs)
        return types.SimpleNamespace(**base)

    def check(self, ns: Dict[str, Any], prompts: List[Any], records: Records, generated_by_task: Dict[str, List[List[int]]]) -> List[Dict[str, Any]]:
        prompt_ids, completion_ids, logprobs, env_mask, extra = (ns["prompt_ids"], ns["completion_ids"], ns["logprobs"],
                                                                 ns["tool_mask"], ns["extra_fields"])
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
        groups = [(extra["harness_task_id"][k], extra["harness_variant_id"][k]) for k in range(0, n)]
        for g in range(0, n, G):
            self.assertEqual(len(set(groups[g : g + G])), 1)
        self.assertEqual(len(set(groups)), n // G)
        return self.steps.merged_inputs(prompts, extra)

    def test_rollout_func_through_grpo_trainer_statements_plays_the_oracle_token_exact(self) -> None:
        """GRPOTrainer._generate's rollout_func branch, env_mask pop, the extra-field merge and the reward calls
        (vendored statements, executed) over an injected per-episode generator: the oracle."""
        from harness_gym.adapters import trl as ht

        rows = group_rows(3, seed=800, variant="train", locale="en", group_size=G)
        self.assertEqual(ht.row_from_prompt(ht.prompt_column(rows)[1]), rows[1])
        prompts = [p for p in ht.prompt_column(rows) for _ in range(G)]  # RepeatSampler(mini_repeat_count=G), L1264-1271
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
        ns = self.steps.call_rollout_func(func, prompts, self.trainer(args=types.SimpleNamespace(max_completion_length=2048)))
        inputs = self.check(ns, prompts, records, generated_by_task)
        for lp, mask in zip(ns["logprobs"], ns["tool_mask"]):
            self.assertEqual(lp, [-0.5 if m else 0.0 for m in mask])
        rewards = self.steps.rewards([ht.harness_reward, *[ht.component_reward(c) for c in ht.DEFAULT_COMPONENTS]], inputs)
        self.assertEqual(rewards["harness_reward"], ns["extra_fields"]["harness_reward"])
        self.assertEqual(rewards["harness_accuracy"], [c["accuracy"] for c in ns["extra_fields"]["reward_components"]])
        self.assertTrue(any(len(mask_runs(m)) > 1 for m in ns["tool_mask"]))  # multi-turn: env ids between turns
        support.report("adapters/trl", {"samples": len(prompts), "mean_reward": sum(rewards["harness_reward"]) / len(prompts)})

    def test_one_process_one_real_vllm_generation_call_per_turn_with_the_running_episodes(self) -> None:
        """The real VLLMGeneration.generate (server mode, one rank): one call per turn, no padding."""
        from harness_gym.adapters import trl as ht

        tok = self.tokenizer
        reply = tok.encode("您好，请问您想了解哪款商品？") + [tok.eos_token_id]
        world = World(1)
        server = FakeVLLMServer(reply)
        rows = group_rows(2, seed=810, variant="identity", locale="zh-CN", group_size=G)
        prompts = [p for p in ht.prompt_column(rows) for _ in range(G)]
        records = Records()
        with vendored_trl(world) as vgm:
            trainer = self.trainer(vllm_generation=server_mode_generation(vgm, world.accelerator(0), server), accelerator=world.accelerator(0))
            func = ht.make_rollout_func(support.server_url(), on_result=records.observe, max_turns=3, max_episode_tokens=100000, mask_truncated=False)
            ns = self.steps.call_rollout_func(func, prompts, trainer)
        turns = [len(e["results"]) - 1 for e in records.episodes]
        generated = {e["results"][0]["info"]["task_id"]: [reply] * (len(e["results"]) - 1) for e in records.episodes}
        self.check(ns, prompts, records, generated)
        self.assertGreater(max(turns), 1)
        self.assertEqual(server.calls, [sum(1 for t in turns if t > k) for k in range(max(turns))])
        self.assertEqual({kind for kind, _ in world.log[0]}, {"gather", "broadcast"})  # VLLMGeneration's own collectives

    def test_unequal_prompt_counts_across_ranks_cross_completions_in_the_real_vllm_generation(self) -> None:
        """The defect the adapter avoids, shown on TRL's code: rank 0 sends 2 prompts and rank 1 one, and rank 1
        receives the completion generated for rank 0's second prompt (the slice is process_index * len(prompts))."""
        world = World(2)
        server = FakeVLLMServer([7, 8])
        sent = {0: [[1, 1], [2, 2]], 1: [[3, 3]]}
        with vendored_trl(world) as vgm:
            gens = [server_mode_generation(vgm, world.accelerator(r), server) for r in range(2)]
            out = world.run(lambda r: gens[r].generate(sent[r], None, 1))
        rank1_prompt_ids, _, rank1_logprobs, _ = out[1]
        self.assertEqual(rank1_prompt_ids, [[2, 2]])  # rank 0's prompt, not [3, 3]
        self.assertEqual(server.prompts[server.uid(rank1_logprobs[0][0][0])], [2, 2])

    def test_ranks_with_different_turn_counts_stay_in_lockstep_through_the_real_vllm_generation(self) -> None:
        """Two ranks, each with its own group, episodes of different lengths: every rank makes the same
        collectives with the same widths (finished episodes padded), nobody hangs, and every completion an
        episode received was generated for the context that episode sent."""
        from harness_gym.adapters import trl as ht

        tok = self.tokenizer
        reply = tok.encode("您好，请问您想了解哪款商品？") + [tok.eos_token_id]
        world = World(2)
        server = FakeVLLMServer(reply)
        rows = group_rows(2, seed=830, variant="identity", locale="zh-CN", group_size=G)
        rank_prompts = {r: [ht.prompt_column([rows[r]])[0]] * G for r in range(2)}
        records = [Records(), Records()]
        # Rank 1's episodes are capped at one turn by their row's options, rank 0's play up to four.
        rank_prompts[1] = [ht.prompt_column([dict(rows[1], options=dict(rows[1].get("options") or {}, max_turns=1))])[0]] * G
        with vendored_trl(world) as vgm:
            trainers = [self.trainer(vllm_generation=server_mode_generation(vgm, world.accelerator(r), server), accelerator=world.accelerator(r))
                        for r in range(2)]
            funcs = [ht.make_rollout_func(support.server_url(), on_result=records[r].observe, max_turns=4, max_episode_tokens=100000, mask_truncated=False)
                     for r in range(2)]
            out = world.run(lambda r: self.steps.call_rollout_func(funcs[r], rank_prompts[r], trainers[r]))
        turns = [[len(e["results"]) - 1 for e in records[r].episodes] for r in range(2)]
        self.assertNotEqual(max(turns[0]), max(turns[1]), turns)
        self.assertEqual(world.log[0], world.log[1])  # the same collectives, the same widths, in the same order
        gathers = [n for kind, n in world.log[0] if kind == "gather"]
        self.assertIn(1, gathers)  # the round-width agreements ([count] per rank)
        for r in range(2):
            ns = out[r]
            for i in range(G):
                prompt, completion, lps, mask = ns["prompt_ids"][i], ns["completion_ids"][i], ns["logprobs"][i], ns["tool_mask"][i]
                runs = mask_runs(mask)
                self.assertEqual(len(runs), turns[r][i])
                for a, b in runs:
                    self.assertEqual(completion[a:b], reply)
                    self.assertEqual(server.prompts[server.uid(lps[a])], prompt + completion[:a])  # its own context
        # Each round: the width agreement ([count] per rank), then VLLMGeneration's gather of prompts and of
        # images and its broadcast; a last agreement (width 0) ends the rounds on every rank at once.
        log = world.log[0]
        widths = [log[i + 1][1] for i in range(len(log) - 3) if log[i + 3][0] == "broadcast"]
        self.assertEqual(len(widths), max(turns[0] + turns[1]))
        self.assertEqual(server.calls, [2 * w for w in widths])
        self.assertGreater(sum(widths), sum(turns[1]))  # rank 1 padded rounds after its episodes ended
        self.assertEqual(log[-1], ("gather", 1))

    def test_inside_a_running_event_loop_like_jupyter(self) -> None:
        """rollout_func called from a coroutine (a notebook cell): asyncio.run would raise; the adapter runs
        the episodes on a worker thread."""
        from harness_gym.adapters import trl as ht

        async def oracle(ids: List[int], n: int) -> Generation:
            return Generation([self.tokenizer.eos_token_id], [-0.1])

        (row,) = group_rows(1, seed=840, variant="identity", locale="en", group_size=1)
        func = ht.make_rollout_func(support.server_url(), generate=oracle, max_turns=2, max_episode_tokens=100000, mask_truncated=False)

        async def cell() -> Dict[str, Any]:
            asyncio.get_running_loop()  # there is one
            return func(ht.prompt_column([row]) * 2, self.trainer())

        out = asyncio.run(cell())
        self.assertEqual(len(out["completion_ids"]), 2)
        self.assertEqual(out["harness_failure"], ["", ""])

    def test_failed_and_capped_episodes_score_none_so_trl_leaves_them_out_of_the_baseline(self) -> None:
        from harness_gym.adapters import trl as ht

        async def chatty(ids: List[int], n: int) -> Generation:
            return Generation(self.tokenizer.encode("x " * 200)[:n], [-1.0] * min(n, 200))

        (row,) = group_rows(1, seed=820, variant="identity", locale="en", group_size=1)
        func = ht.make_rollout_func(support.server_url(), generate=chatty, max_episode_tokens=100, max_turns=12)
        prompts = ht.prompt_column([row])
        ns = self.steps.call_rollout_func(func, prompts, self.trainer(args=types.SimpleNamespace(max_completion_length=32)))
        extra = ns["extra_fields"]
        self.assertEqual(extra["harness_failure"], ["response_budget"])
        self.assertEqual(set(ns["tool_mask"][0]), {0})
        self.assertEqual(len(ns["completion_ids"][0]), 100)
        inputs = self.steps.merged_inputs(prompts, extra)
        rewards = self.steps.rewards([ht.harness_reward, *[ht.component_reward(c) for c in ht.DEFAULT_COMPONENTS]], inputs)
        # Every reward function scored it None -> NaN: TRL's unscorable row (checked in the static test).
        for name, values in rewards.items():
            self.assertTrue(math.isnan(values[0]), name)
        with self.assertRaises(ValueError):
            ht.row_from_prompt("no row here")


class TrlInterfaceTest(unittest.TestCase):
    """Every TRL name the adapter relies on exists, with a compatible signature, in the vendored source."""

    def test_the_adapter_imports_no_trl(self) -> None:
        tree = ast.parse(read(ADAPTER))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        self.assertFalse({m for m in imported if m.split(".")[0] == "trl"}, imported)
        # The one framework import: the collective VLLMGeneration itself uses (L24).
        self.assertIn("accelerate.utils", imported)
        uses = [ast.unparse(n) for n in ast.walk(VLLM_GENERATION) if isinstance(n, ast.ImportFrom) and n.module == "accelerate.utils"]
        self.assertTrue(any("gather_object" in u for u in uses), uses)

    def test_vllm_generation_generate(self) -> None:
        gen = find_def(VLLM_GENERATION, "VLLMGeneration.generate")
        signature_of(gen).bind("self", [[1]], None, 1)  # the adapter: vllm_generation.generate(contexts, None, 1)
        returns = [n for n in ast.walk(gen) if isinstance(n, ast.Return)]
        self.assertEqual([ast.unparse(r.value) for r in returns], ["(prompt_ids, completion_ids, logprobs, logprob_token_ids)"])
        body = ast.unparse(gen)
        # The collective and the per-rank slice the lockstep protocol answers.
        self.assertIn("all_prompts = gather_object(prompts)", body)
        self.assertIn("slice(accelerator.process_index * len(prompts), (accelerator.process_index + 1) * len(prompts))", body)
        self.assertIn("ordered_set_of_prompt_ids = all_prompts[::num_generations]", body)
        self.assertIn("'max_tokens': max_completion_length", body)

    def test_grpo_trainer(self) -> None:
        names = {n.targets[0].id for n in GRPO_TRAINER.body if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
        self.assertIn("RolloutFunc", names)
        init = signature_of(find_def(GRPO_TRAINER, "GRPOTrainer.__init__"))
        init.bind("self", model="m", args=None, train_dataset=None, reward_funcs=[], rollout_func=None)  # docs and example
        source = ast.unparse(find_def(GRPO_TRAINER, "GRPOTrainer.__init__"))
        for attribute in ("self.rollout_func = rollout_func", "self.vllm_generation = VLLMGeneration("):
            self.assertIn(attribute, source)
        self.assertIn("model=self.model, accelerator=self.accelerator, processing_class=self.processing_class", source)
        steps = RealTrainerSteps()  # every statement the behaviour tests execute is still there, verbatim
        self.assertIn("output = self.rollout_func(prompts, self)", ast.unparse(ast.Module(body=steps.rollout_branch, type_ignores=[])))
        self.assertIn("required_keys = {'prompt_ids', 'completion_ids', 'logprobs'}", ast.unparse(ast.Module(body=steps.rollout_branch, type_ignores=[])))
        # None rewards: NaN, and a row every function scored None is out of the baseline with advantage 0.
        score = ast.unparse(find_def(GRPO_TRAINER, "GRPOTrainer._generate_and_score_completions"))
        for line in ("unscorable_mask = torch.isnan(rewards_per_func).all(dim=1)", "rewards[unscorable_mask] = torch.nan",
                     "mean_grouped_rewards = torch.nanmean(rewards.view(-1, num_generations), dim=1)",
                     "advantages = torch.nan_to_num(advantages, nan=0.0)"):
            self.assertIn(line, score)

    def test_grpo_config_fields_the_adapter_reads(self) -> None:
        fields = config_fields()
        for name in ("max_completion_length", "num_generations", "use_vllm", "vllm_mode", "mask_truncated_completions", "reward_weights"):
            self.assertIn(name, fields)


# ---------------------------------------------------------------------------------------------------------
# docs/training/trl.md and examples/trl/ through TRL's own GRPOConfig


def config_fields() -> Dict[str, str]:
    """GRPOConfig's and _BaseConfig's dataclass fields (name -> the class declaring it), from the vendored ast."""
    out: Dict[str, str] = {}
    for tree, cls in ((BASE_CONFIG, "_BaseConfig"), (GRPO_CONFIG, "GRPOConfig")):
        for n in find_def(tree, cls).body:  # type: ignore[attr-defined]
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                out[n.target.id] = cls
    return out


@dataclasses.dataclass
class TrainingArguments:
    """Stand-in for ``transformers.TrainingArguments`` (not installed here): only the fields the docs set and
    GRPOConfig.__post_init__ reads, with transformers' defaults. These few names are the ones not checked
    against a vendored source; GRPOConfig's own fields are TRL's real dataclass."""

    output_dir: Optional[str] = None
    per_device_train_batch_size: int = 8
    per_device_eval_batch_size: int = 8
    gradient_accumulation_steps: int = 1
    report_to: Any = None
    fp16: bool = False
    bf16: Optional[bool] = None
    parallelism_config: Any = None
    auto_find_batch_size: bool = False
    do_eval: bool = False
    eval_strategy: str = "no"
    world_size: int = 1
    _VALID_DICT_FIELDS: ClassVar[List[str]] = []  # transformers' class attribute that _BaseConfig extends

    def __post_init__(self) -> None:
        pass


class Recorded:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs
        Recorded.last = self  # type: ignore[attr-defined]

    def train(self) -> None:
        self.trained = True

    @classmethod
    def from_dict(cls, mapping: Dict[str, Any]) -> "Recorded":
        return cls(mapping)


@contextlib.contextmanager
def real_grpo_config() -> Iterator[Any]:
    trl_dir = os.path.join(VENDOR, "trl")
    stubs = {
        "transformers": module("transformers", TrainingArguments=TrainingArguments),
        "trl": module("trl", trl_dir),
        "trl.trainer": module("trl.trainer", os.path.join(trl_dir, "trainer")),
    }
    with modules(stubs):
        for name in ("trl.trainer.base_config", "trl.trainer.grpo_config"):
            sys.modules.pop(name, None)
        try:
            yield importlib.import_module("trl.trainer.grpo_config").GRPOConfig
        finally:
            for name in ("trl.trainer.base_config", "trl.trainer.grpo_config"):
                sys.modules.pop(name, None)


def python_blocks(path: str) -> List[str]:
    with open(path, encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


class TrlDocsTest(unittest.TestCase):
    """The docs' and the example's scripts executed with TRL's real GRPOConfig (datasets and GRPOTrainer
    recorded, the trainer's keywords bound to the vendored GRPOTrainer.__init__ signature)."""

    def run_script(self, source: str, label: str, namespace: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        init = signature_of(find_def(GRPO_TRAINER, "GRPOTrainer.__init__"))
        with real_grpo_config() as GRPOConfig:
            Recorded.last = None  # type: ignore[attr-defined]
            stubs = {"datasets": module("datasets", Dataset=Recorded),
                     "trl": module("trl", GRPOConfig=GRPOConfig, GRPOTrainer=Recorded)}
            ns = dict(namespace or {}, __name__="__main__")
            with modules(stubs):
                exec(compile(source, label, "exec"), ns)
            trainer = Recorded.last  # type: ignore[attr-defined]
            if trainer is not None and "args" in trainer.kwargs:
                init.bind("self", *trainer.args, **trainer.kwargs)
                self.assertIsInstance(trainer.kwargs["args"], GRPOConfig)
                self.assertTrue(trainer.trained)
                config = trainer.kwargs["args"]
                self.assertEqual(len(config.reward_weights), len(trainer.kwargs["reward_funcs"]))
                self.assertEqual(config.generation_batch_size % config.num_generations, 0)  # __post_init__ ran
                self.assertTrue(callable(trainer.kwargs["rollout_func"]))
            return ns

    def test_every_python_block_of_the_doc_runs_with_the_real_grpo_config(self) -> None:
        blocks = python_blocks(DOC)
        self.assertGreaterEqual(len(blocks), 2)
        ns: Dict[str, Any] = {}
        for k, block in enumerate(blocks):
            ns = self.run_script(block, f"{DOC} block {k}", ns)

    def test_every_example_runs_with_the_real_grpo_config(self) -> None:
        scripts = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py"))
        self.assertTrue(scripts)
        for name in scripts:
            with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
                self.run_script(f.read(), os.path.join(EXAMPLES, name))

    def test_config_keywords_in_docs_are_grpo_config_fields(self) -> None:
        """GRPOConfig(...) keywords anywhere in the docs (code and prose): a GRPOConfig/_BaseConfig field, or
        one of the TrainingArguments names listed in the stand-in above."""
        fields = set(config_fields()) | {f.name for f in dataclasses.fields(TrainingArguments)}
        text = read(DOC)
        for path in sorted(os.listdir(EXAMPLES)):
            text += read(os.path.join(EXAMPLES, path))
        used = set(re.findall(r"GRPOConfig\(([a-z_]+)=", text))
        for call in re.findall(r"GRPOConfig\((.*?)\n\)", text, re.S):
            used |= set(re.findall(r"^\s*([a-z_]+)=", call, re.M))
        used |= set(re.findall(r"`([a-z_]+)=", text)) & (fields | {"mask_truncated", "generate", "max_turns"})
        self.assertTrue(used)
        self.assertFalse(used - fields - {"mask_truncated", "generate", "max_turns"}, used)
        # backquoted config names in the prose (`vllm_max_model_length`, ...) exist too
        for name in set(re.findall(r"`(vllm_[a-z_]+|num_generations[a-z_]*|max_completion_length|mask_truncated_completions|shuffle_dataset|scale_rewards)`", text)) - {"vllm_generation"}:  # the trainer's attribute
            self.assertIn(name, fields)


if __name__ == "__main__":
    unittest.main()
