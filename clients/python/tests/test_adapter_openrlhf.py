"""The OpenRLHF adapter driven through OpenRLHF's own code, vendored at 3c3be6234e0cb353e76bb8019947db9dfe99fca7.

``vendor/openrlhf/`` holds verbatim copies (``vendor/VENDOR.json``; ``vendor/check_vendor.py``) of the files
the adapter touches. They are imported under their real module paths (``openrlhf.utils.agent`` ...); only
heavy third-party imports (torch, ray, vllm, tqdm, aiohttp, packaging) and OpenRLHF's model and DeepSpeed
modules the vendored files import but never reach here (``openrlhf.trainer.ray.launcher``, ``ppo_actor``,
``ppo_critic``, ``openrlhf.utils.utils``, ``openrlhf.trainer.ray.utils``) are stubs in ``sys.modules``.
torch is a NumPy-backed stub with the handful of operations ``_process_response_into_experience`` uses; ray
runs ``.remote`` calls on one background event loop (``ray.get`` / ``ray.wait`` on its futures).

- The documented command (docs/training/openrlhf.md) is run through ``openrlhf/cli/train_ppo_ray.py``'s own
  ``__main__`` block (``runpy``): OpenRLHF's argparse parser, ``hierarchize`` and its argument validation run
  on it, and the stubbed ``get_strategy`` (the first thing ``train(args)`` does after ``ray.init``) stops it
  with the parsed arguments. The module builds its parser inside ``if __name__ == "__main__":`` and exposes
  no parser function, so nothing is extracted. Each flag is also checked with ``ast`` against the file's
  ``add_argument`` literals.
- The example agent-func file is loaded by OpenRLHF's ``_load_agent_executor`` and episodes are played by
  ``RolloutRayActor.generate_responses`` (the real method on an instance built without its vLLM-starting
  ``__init__``: ``executor`` and ``llm`` set as ``__init__`` sets them) over a live server, the engine answering
  with the oracle's next action.
- A failed or capped sample goes through ``SamplesGenerator._generate_vllm`` / ``_process_response_into_
  experience`` with the dynamic filter on: its group is dropped whole and a replacement prompt is played;
  with the filter off, the sample is kept with an all-zero action mask.
- A static check: every name the adapter imports from OpenRLHF exists in the vendored source, its overrides
  and ``super()`` calls fit the vendored signatures, and the result keys it returns are the ones the vendored
  executor reads (and the keys it edits are the ones the vendored generator reads).
"""

from __future__ import annotations

import ast
import asyncio
import concurrent.futures
import contextlib
import contextvars
import copy
import importlib
import json
import math
import os
import re
import runpy
import shlex
import shutil
import sys
import tempfile
import threading
import types
import unittest
from types import SimpleNamespace
from typing import Any, Dict, Iterator, List, Optional

import numpy as np

import support
from test_train_tokens import hermes_text

from harness_gym.train import EnvPool, ToyTokenizer, group_rows

#: The vendored OpenRLHF; ``HARNESS_GYM_OPENRLHF_VENDOR`` points the whole suite at another copy (e.g. an edited
#: scratch copy, to see the tests fail when an interface moves).
VENDOR = os.environ.get("HARNESS_GYM_OPENRLHF_VENDOR") or os.path.join(support.HERE, "vendor", "openrlhf")
OPENRLHF_COMMIT = "3c3be6234e0cb353e76bb8019947db9dfe99fca7"
EXAMPLES = os.path.join(support.PACKAGE_ROOT, "examples", "openrlhf")
DOC = os.path.join(os.path.dirname(os.path.dirname(support.PACKAGE_ROOT)), "docs", "training", "openrlhf.md")
ADAPTER = os.path.join(support.PACKAGE_ROOT, "harness_gym", "adapters", "openrlhf.py")
EPISODE: contextvars.ContextVar[Optional[Dict[str, Any]]] = contextvars.ContextVar("openrlhf_episode", default=None)
EPISODES: List[Dict[str, Any]] = []


# ---------------------------------------------------------------- stubs of heavy third-party modules


class Tensor(np.ndarray):
    """The few torch.Tensor methods the vendored generator calls, on a NumPy array."""

    def to(self, *args: Any, **kwargs: Any) -> "Tensor":
        return self

    def float(self) -> "Tensor":
        return self.astype(np.float32)

    def unsqueeze(self, dim: int) -> "Tensor":
        return np.expand_dims(self, dim)


class NoGrad:
    def __call__(self, fn: Any) -> Any:
        return fn

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def torch_stub() -> types.ModuleType:
    torch = types.ModuleType("torch")
    torch.Tensor = Tensor
    torch.LongTensor = Tensor
    torch.BoolTensor = Tensor
    torch.long = np.int64
    torch.float32 = np.float32
    torch.no_grad = NoGrad
    torch.device = str
    torch.tensor = lambda data, dtype=None: np.asarray(data, dtype=dtype).view(Tensor)
    torch.ones = lambda n, dtype=None: np.ones(n, dtype=dtype).view(Tensor)
    torch.zeros_like = lambda t: np.zeros_like(t).view(Tensor)
    torch.where = np.where
    return torch


class Ray:
    """``ray``: ``.remote`` calls run on one background event loop; refs are concurrent futures."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()

    def handle(self, actor: Any) -> Any:
        """An actor handle: ``handle.method.remote(*args, **kwargs)`` -> a ref."""
        ray = self

        class Method:
            def __init__(self, fn: Any) -> None:
                self.fn = fn

            def remote(self, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
                args, kwargs = copy.deepcopy((args, kwargs))  # each call gets its own copy, as Ray's serialization gives
                if asyncio.iscoroutinefunction(self.fn):
                    return asyncio.run_coroutine_threadsafe(self.fn(*args, **kwargs), ray.loop)
                done: concurrent.futures.Future = concurrent.futures.Future()
                done.set_result(self.fn(*args, **kwargs))
                return done

        return SimpleNamespace(**{n: Method(getattr(actor, n)) for n in ("generate_responses", "get_num_unfinished_requests")})

    def module(self) -> types.ModuleType:
        ray = types.ModuleType("ray")
        ray.remote = lambda cls=None, **kw: cls if cls is not None else (lambda c: c)
        ray.get = lambda ref, timeout=None: [r.result(120) for r in ref] if isinstance(ref, list) else ref.result(120)

        def wait(refs: List[Any], num_returns: int = 1, timeout: Optional[float] = None) -> Any:
            concurrent.futures.wait(refs, timeout=timeout, return_when=concurrent.futures.FIRST_COMPLETED)
            ready = [r for r in refs if r.done()][:num_returns]
            return ready, [r for r in refs if r not in ready]

        ray.wait = wait
        ray.cancel = lambda ref: ref.cancel()
        ray.is_initialized = lambda: True
        ray.init = lambda *a, **k: None
        ray.util = types.ModuleType("ray.util")
        return ray


class StopBeforeTraining(Exception):
    def __init__(self, args: Any) -> None:
        super().__init__("parsed")
        self.parsed = args


def get_strategy(args: Any) -> Any:
    """``openrlhf.utils.get_strategy``: the first call of ``train(args)`` after ``ray.init``; stops there."""
    raise StopBeforeTraining(args)


def module(name: str, path: Optional[str] = None, **attrs: Any) -> types.ModuleType:
    m = types.ModuleType(name)
    if path is not None:
        m.__path__ = [os.path.join(VENDOR, path)]  # a package whose vendored children import for real
    m.__dict__.update(attrs)
    return m


@contextlib.contextmanager
def vendored_openrlhf() -> Iterator[SimpleNamespace]:
    """The vendored OpenRLHF importable under its real paths, heavy imports stubbed; removed afterwards."""
    ray = Ray()
    placeholder = lambda *a, **k: None  # noqa: E731  (named in imports the test never reaches)
    version = module("packaging.version", parse=lambda v: tuple(int(x) for x in re.findall(r"\d+", v)[:3]))

    class SamplingParams(SimpleNamespace):
        pass

    stubs = {
        "torch": torch_stub(),
        "tqdm": module("tqdm", tqdm=lambda it, **k: SimpleNamespace(set_postfix=placeholder, update=placeholder)),
        "aiohttp": module("aiohttp", ClientTimeout=placeholder, ClientSession=placeholder, ClientError=Exception),
        "packaging": module("packaging", version=version),
        "packaging.version": version,
        "vllm": module("vllm", __version__="0.10.0", SamplingParams=SamplingParams),
        "vllm.inputs": module("vllm.inputs", TokensPrompt=dict),
        "vllm.utils": module("vllm.utils", random_uuid=lambda: os.urandom(8).hex()),
        "ray": ray.module(),
        "ray.util.placement_group": module("ray.util.placement_group", placement_group=placeholder),
        "ray.util.scheduling_strategies": module("ray.util.scheduling_strategies", PlacementGroupSchedulingStrategy=placeholder),
        "openrlhf": module("openrlhf", "openrlhf"),
        "openrlhf.utils": module("openrlhf.utils", "openrlhf/utils", get_strategy=get_strategy),
        "openrlhf.utils.utils": module("openrlhf.utils.utils", zero_pad_sequences=placeholder),
        "openrlhf.trainer": module("openrlhf.trainer", "openrlhf/trainer"),
        "openrlhf.trainer.ppo_utils": module("openrlhf.trainer.ppo_utils", "openrlhf/trainer/ppo_utils"),
        "openrlhf.trainer.ray": module("openrlhf.trainer.ray", "openrlhf/trainer/ray", create_vllm_engines=placeholder),
        "openrlhf.trainer.ray.utils": module("openrlhf.trainer.ray.utils", get_bundle_indices=placeholder, ray_noset_visible_devices=placeholder),
        "openrlhf.trainer.ray.launcher": module("openrlhf.trainer.ray.launcher", RayActorGroup=placeholder, ReferenceModelActor=placeholder, RewardModelActor=placeholder),
        "openrlhf.trainer.ray.ppo_actor": module("openrlhf.trainer.ray.ppo_actor", PolicyModelActor=placeholder),
        "openrlhf.trainer.ray.ppo_critic": module("openrlhf.trainer.ray.ppo_critic", CriticModelActor=placeholder),
        "openrlhf.cli": module("openrlhf.cli", "openrlhf/cli"),
    }
    stubs["ray"].util = module("ray.util")
    stubs["ray.util"] = stubs["ray"].util
    ho = importlib.import_module("harness_gym.adapters.openrlhf")  # kept across tests; its classes are rebuilt
    before = dict(sys.modules)

    ho._CLASSES = None  # built against these vendored classes
    sys.modules.update(stubs)
    try:
        yield SimpleNamespace(
            ray=ray,
            agent=importlib.import_module("openrlhf.utils.agent"),
            vllm_engine=importlib.import_module("openrlhf.trainer.ray.vllm_engine"),
            samples_generator=importlib.import_module("openrlhf.trainer.ppo_utils.samples_generator"),
            ho=ho,
        )
    finally:
        ho._CLASSES = None
        # Only what this installed: the stubs and the vendored openrlhf modules.
        ours = set(stubs)
        for name in list(sys.modules):
            if name not in before and (name in ours or name.split(".")[0] in ("openrlhf", "torch", "ray", "vllm")):
                del sys.modules[name]
        for name in ours:
            if name in before:
                sys.modules[name] = before[name]
        ray.close()


# ---------------------------------------------------------------- the tokenizer and the model


class HFTokenizer(ToyTokenizer):
    """What OpenRLHF calls on a Hugging Face tokenizer: ``tok(text=..., ...)["input_ids"][0].tolist()``."""

    def __call__(self, text: str, add_special_tokens: bool = True, return_tensors: Any = None) -> Dict[str, Any]:
        ids = self.encode(text)
        return {"input_ids": [SimpleNamespace(tolist=lambda: list(ids))]}


def hf_tokenizer() -> HFTokenizer:
    async def corpus() -> List[str]:
        pool = EnvPool(support.server_url())
        try:
            handle, result = await pool.reset({"seed": 1, "variant": "train", "options": {"locale": "en"}})
            await pool.release(handle)
        finally:
            await asyncio.get_running_loop().run_in_executor(None, pool.close)
        obs = result["observation"]
        return [m["content"] for m in obs["messages"]] + [json.dumps(t) for t in obs["tools"]]

    base = ToyTokenizer.train(support.run(corpus()), vocab_size=3000)
    tok = HFTokenizer()
    tok.__dict__.update(base.__dict__)
    return tok


def observe(result: Dict[str, Any]) -> None:
    """``AgentInstance.on_result``: each sample runs in its own asyncio task, so a context variable is per sample."""
    episode = EPISODE.get()
    if episode is None:
        episode = {"results": [], "key": (result["info"]["task_id"], result["info"]["variant_id"])}
        EPISODE.set(episode)
        EPISODES.append(episode)
    episode["results"].append(result)


class OracleLLM:
    """vLLM's ``AsyncLLMEngine.generate(prompt, sampling_params, request_id=...)``: yields RequestOutput-like
    objects answering with the oracle's next action. The first final reply of an episode is bold (the
    ``reply_format`` hook blocks it where active); the first sample of up to ``saboteurs`` groups calls a tool
    that does not exist on every turn, so the server's turn cap ends it."""

    def __init__(self, tokenizer: ToyTokenizer, saboteurs: int = 0) -> None:
        self.tokenizer = tokenizer
        self.saboteurs = saboteurs
        self.sabotaged: Dict[Any, Dict[str, Any]] = {}

    async def generate(self, prompt: Dict[str, Any], sampling_params: Any, request_id: str) -> Any:
        episode = EPISODE.get()
        if episode is None:  # the reset failed: the agent sees the dataset's prompt
            out = SimpleNamespace(token_ids=[self.tokenizer.eos_token_id], text="", logprobs=None)
            yield SimpleNamespace(outputs=[out])
            return
        if "saboteur" not in episode:
            episode["saboteur"] = episode["key"] not in self.sabotaged and len(self.sabotaged) < self.saboteurs
            if episode["saboteur"]:
                self.sabotaged[episode["key"]] = episode
        message = episode["results"][-1]["info"]["oracle_action"]["message"]
        if episode["saboteur"]:
            message = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "no_such_tool", "arguments": "{}"}}]}
        text = hermes_text(message)
        if not message.get("tool_calls") and not episode.get("blocked"):
            episode["blocked"] = True
            text = f"**{text}**"
        ids = (self.tokenizer.encode(text) + [self.tokenizer.eos_token_id])[: sampling_params.max_tokens]
        episode.setdefault("generated", []).append(ids)
        logprobs = [{t: SimpleNamespace(logprob=-0.125)} for t in ids]
        out = SimpleNamespace(token_ids=ids, text=self.tokenizer.decode(ids, skip_special_tokens=True), logprobs=logprobs)
        yield SimpleNamespace(outputs=[out])


def rollout_actor(o: SimpleNamespace, llm: OracleLLM) -> Any:
    """A ``RolloutRayActor`` without its vLLM-starting ``__init__``: the attributes that ``__init__`` sets and
    ``generate`` / ``generate_responses`` read, the executor loaded by OpenRLHF's own loader."""
    actor = object.__new__(o.vllm_engine.RolloutRayActor)
    actor.executor = o.vllm_engine._load_agent_executor(os.path.join(EXAMPLES, "agent_func.py"))
    actor.llm = llm
    actor._mm_pad_token_ids = None
    actor.get_num_unfinished_requests = lambda: 0  # reads llm.output_processor in vLLM
    return actor


def configure(ho: Any, max_turns: int = 12) -> None:
    os.environ["HARNESS_GYM_URL"] = support.server_url()
    ho.AgentInstance.reset_options = {"oracle_hints": True}
    ho.AgentInstance.max_turns = max_turns
    ho.AgentInstance.on_result = observe


# ---------------------------------------------------------------- the documented command


def documented_command() -> List[str]:
    """The arguments after ``python3 -m openrlhf.cli.train_ppo_ray`` in docs/training/openrlhf.md."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    block = next(b for b in blocks if "openrlhf.cli.train_ppo_ray" in b)
    words = shlex.split(block.replace("\\\n", " "))
    start = words.index("openrlhf.cli.train_ppo_ray") + 1
    return words[start:]


def parse_with_openrlhf(argv: List[str]) -> Any:
    """Run vendored ``openrlhf/cli/train_ppo_ray.py`` as ``__main__`` on ``argv``; returns its parsed args."""
    saved = sys.argv
    sys.argv = ["train_ppo_ray.py"] + argv
    try:
        runpy.run_path(os.path.join(VENDOR, "openrlhf", "cli", "train_ppo_ray.py"), run_name="__main__")
    except StopBeforeTraining as stop:
        return stop.parsed
    finally:
        sys.argv = saved
    raise AssertionError("train_ppo_ray.py returned without calling train(args)")


def parser_flags() -> List[str]:
    with open(os.path.join(VENDOR, "openrlhf", "cli", "train_ppo_ray.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    flags = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            flags += [a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("--")]
    return flags


# ---------------------------------------------------------------- the static contract check


def _functions(tree: ast.AST) -> Dict[str, Dict[str, ast.FunctionDef]]:
    """class name -> method name -> def, for every class in a tree (nested ones included)."""
    out: Dict[str, Dict[str, ast.FunctionDef]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            out[node.name] = {f.name: f for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return out


def _bases(tree: ast.AST) -> Dict[str, List[str]]:
    return {n.name: [b.id for b in n.bases if isinstance(b, ast.Name)] for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}


def _params(fn: ast.FunctionDef) -> SimpleNamespace:
    a = fn.args
    return SimpleNamespace(positional=[p.arg for p in a.posonlyargs + a.args], star=a.vararg is not None,
                           kwonly=[p.arg for p in a.kwonlyargs], kwargs=a.kwarg is not None,
                           required=len(a.posonlyargs + a.args) - len(a.defaults))


def _keys_read(fn: ast.AST, name: str) -> SimpleNamespace:
    """Keys read from the variable ``name`` in ``fn``: ``name["k"]`` (required) and ``name.get("k")``."""
    required, optional = set(), set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name and isinstance(node.ctx, ast.Load):
            if isinstance(node.slice, ast.Constant):
                required.add(node.slice.value)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name and node.args and isinstance(node.args[0], ast.Constant)):
            optional.add(node.args[0].value)
    # ``if name.get("k"): ... name["k"]`` reads an optional key.
    return SimpleNamespace(required=required - optional, optional=optional, all=required | optional)


def _returned_dicts(fn: ast.AST) -> List[set]:
    return [{k.value for k in n.value.keys if isinstance(k, ast.Constant)} for n in ast.walk(fn)
            if isinstance(n, ast.Return) and isinstance(n.value, ast.Dict)]


def contract_problems(vendor_root: str = VENDOR, adapter_path: str = ADAPTER) -> List[str]:
    """What the adapter uses of OpenRLHF and the vendored source at ``vendor_root`` does not provide."""
    problems: List[str] = []

    def parse(rel: str) -> ast.AST:
        with open(os.path.join(vendor_root, rel), encoding="utf-8") as f:
            return ast.parse(f.read())

    with open(adapter_path, encoding="utf-8") as f:
        adapter = ast.parse(f.read())
    imported: Dict[str, ast.AST] = {}  # name -> vendored tree defining it
    for node in ast.walk(adapter):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "openrlhf":
            rel = node.module.replace(".", "/") + ".py"
            if not os.path.isfile(os.path.join(vendor_root, rel)):
                problems.append(f"{node.module}: not in the vendored source")
                continue
            tree = parse(rel)
            top = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
            top |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
            for alias in node.names:
                if alias.name not in top:
                    problems.append(f"{node.module}.{alias.name}: not defined in the vendored source")
                imported[alias.name] = tree
    if not imported:
        return problems + ["the adapter imports nothing from openrlhf"]
    ours, our_bases = _functions(adapter), _bases(adapter)

    def base_method(cls: str, method: str) -> Optional[ast.FunctionDef]:
        for base in our_bases.get(cls, []):
            tree = imported.get(base)
            if tree is None:
                continue
            seen, todo = set(), [base]
            theirs, their_bases = _functions(tree), _bases(tree)
            while todo:
                b = todo.pop(0)
                if b in seen:
                    continue
                seen.add(b)
                if method in theirs.get(b, {}):
                    return theirs[b][method]
                todo += their_bases.get(b, [])
        return None

    for cls, methods in ours.items():
        if not any(b in imported for b in our_bases.get(cls, [])):
            continue
        for name, fn in methods.items():
            base = base_method(cls, name)
            if base is None:
                if not name.startswith("_"):
                    problems.append(f"{cls}.{name}: overrides nothing in the vendored bases")
                continue
            mine, theirs = _params(fn), _params(base)
            if name != "__init__":  # OpenRLHF calls these with the base's parameters
                if mine.positional[: len(theirs.positional)] != theirs.positional and not mine.star:
                    problems.append(f"{cls}.{name}{tuple(mine.positional)}: the vendored base takes {tuple(theirs.positional)}")
                if mine.required > theirs.required:
                    problems.append(f"{cls}.{name}: requires {mine.required} arguments, the base {theirs.required}")
                if theirs.kwargs and not mine.kwargs:
                    problems.append(f"{cls}.{name}: the base takes **kwargs, the override does not")
            for call in ast.walk(fn):  # super().<m>(...)
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call)
                        and isinstance(call.func.value.func, ast.Name) and call.func.value.func.id == "super"):
                    target = base_method(cls, call.func.attr)
                    if target is None:
                        problems.append(f"{cls}.{name}: super().{call.func.attr} is not in the vendored bases")
                        continue
                    t = _params(target)
                    if len(call.args) > len(t.positional) - 1 and not t.star:
                        problems.append(f"{cls}.{name}: super().{call.func.attr} gets {len(call.args)} positional arguments, takes {len(t.positional) - 1}")
                    if len(call.args) + len(call.keywords) < t.required - 1:
                        problems.append(f"{cls}.{name}: super().{call.func.attr} gets too few arguments (needs {t.required - 1})")
                    for kw in call.keywords:
                        if kw.arg not in t.positional + t.kwonly and not t.kwargs:
                            problems.append(f"{cls}.{name}: super().{call.func.attr} has no parameter {kw.arg!r}")

    # The result dicts: what the vendored executor reads of reset() and step(), what the adapter returns.
    agent = parse("openrlhf/utils/agent.py")
    execute = _functions(agent).get("MultiTurnAgentExecutor", {}).get("execute")
    if execute is None:
        return problems + ["MultiTurnAgentExecutor.execute: not in the vendored agent.py"]
    reads = {"reset": _keys_read(execute, "reset_result"), "step": _keys_read(execute, "step_result")}
    final = next((d for d in _returned_dicts(execute)), None)
    if final is None:
        final = {k.value for n in ast.walk(execute) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict)
                 and any(isinstance(t, ast.Name) and t.id == "final_response" for t in n.targets) for k in n.value.keys}
    instance_methods = next((m for c, m in ours.items() if "step" in m and "reset" in m), {})
    for method, keys in reads.items():
        returned = [d for name in (method, "_end" if method == "step" else "") if name in instance_methods
                    for d in _returned_dicts(instance_methods[name])]
        if not returned:
            problems.append(f"AgentInstance.{method}: no dict returned to check")
        for d in returned:
            if keys.required - d:
                problems.append(f"AgentInstance.{method} returns no {sorted(keys.required - d)}, which MultiTurnAgentExecutor.execute reads")
            if d - keys.all:
                problems.append(f"AgentInstance.{method} returns {sorted(d - keys.all)}, which MultiTurnAgentExecutor.execute never reads")
    # The executor result keys the adapter edits (exclude()): produced by execute, read by the generator.
    generator = parse("openrlhf/trainer/ppo_utils/samples_generator.py")
    process = _functions(generator).get("SamplesGenerator", {}).get("_process_response_into_experience")
    consumed = _keys_read(process, "response").all if process is not None else set()
    if process is None:
        problems.append("SamplesGenerator._process_response_into_experience: not in the vendored samples_generator.py")
    exclude = next((n for n in adapter.body if isinstance(n, ast.FunctionDef) and n.name == "exclude"), None)
    result = exclude.args.args[0].arg if exclude is not None and exclude.args.args else None
    edited = {n.slice.value for n in ast.walk(exclude) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
              and isinstance(n.value, ast.Name) and n.value.id == result and isinstance(n.slice, ast.Constant)} if exclude is not None else set()
    if not edited:
        problems.append("exclude(): no result keys found")
    for key in sorted(edited):
        if key not in final:
            problems.append(f"exclude() sets {key!r}, which MultiTurnAgentExecutor.execute does not return")
        if key not in consumed:
            problems.append(f"exclude() sets {key!r}, which _process_response_into_experience does not read")
    # The loader: agent_module.AgentExecutor, a subclass of AgentExecutorBase, built with no arguments.
    engine = parse("openrlhf/trainer/ray/vllm_engine.py")
    loader = next((n for n in engine.body if isinstance(n, ast.FunctionDef) and n.name == "_load_agent_executor"), None)
    if loader is None or not any(isinstance(n, ast.Attribute) and n.attr == "AgentExecutor" for n in ast.walk(loader)):
        problems.append("vllm_engine._load_agent_executor: no longer reads the module's AgentExecutor")
    elif not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "agent_executor_cls" and not n.args and not n.keywords
                 for n in ast.walk(loader)):
        problems.append("vllm_engine._load_agent_executor: no longer builds AgentExecutor() with no arguments")
    return problems


# ---------------------------------------------------------------- the tests


class OpenRLHFAdapterTest(unittest.TestCase):
    tokenizer: HFTokenizer

    @classmethod
    def setUpClass(cls) -> None:
        cls.tokenizer = hf_tokenizer()

    def setUp(self) -> None:
        EPISODES.clear()

    def lines(self, groups: int, seed: int) -> List[Dict[str, Any]]:
        spec = importlib.util.spec_from_file_location("openrlhf_make_dataset", os.path.join(EXAMPLES, "make_dataset.py"))
        make_dataset = importlib.util.module_from_spec(spec)
        assert spec.loader is not None
        spec.loader.exec_module(make_dataset)
        return make_dataset.openrlhf_rows(group_rows(groups, seed=seed, variant="train", locale="zh-CN", group_size=3))

    def test_documented_command_parses_with_openrlhfs_own_parser(self) -> None:
        argv = documented_command()
        known = set(parser_flags())
        self.assertGreater(len(known), 100)
        used = [w.split("=")[0] for w in argv if w.startswith("--")]
        self.assertEqual([f for f in used if f not in known], [])  # ast: every flag is an add_argument literal
        with vendored_openrlhf():
            args = parse_with_openrlhf(argv)
            # A flag the parser does not know fails here (argparse exits), e.g. the old --pretrain.
            with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull), self.assertRaises(SystemExit):
                parse_with_openrlhf(argv + ["--pretrain", "x"])
        self.assertTrue(args.train.agent_func_path.endswith("clients/python/examples/openrlhf/agent_func.py"))
        self.assertEqual(args.reward.remote_url, ["agent"])  # set by train_ppo_ray for an agent-func path
        self.assertEqual(args.algo.advantage.estimator, "group_norm")
        self.assertTrue(args.algo.dynamic_filtering_enable)  # what drops a failed sample's group
        self.assertEqual((args.data.input_key, args.data.label_key), ("prompt", "label"))
        self.assertGreater(args.rollout.n_samples_per_prompt, 1)
        self.assertGreater(args.data.max_len, 8192)
        self.assertGreater(args.vllm.num_engines, 0)
        support.report("adapters/openrlhf/cli", {"flags": len(used)})

    def test_agent_func_file_plays_groups_through_rollout_actor(self) -> None:
        lines = self.lines(3, 900)
        with vendored_openrlhf() as o:
            configure(o.ho)
            actor = rollout_actor(o, OracleLLM(self.tokenizer))
            self.assertIsInstance(actor.executor, o.agent.MultiTurnAgentExecutor)
            params = o.samples_generator.SamplingParams(max_tokens=1024, logprobs=1)
            refs = [o.ray.handle(actor).generate_responses.remote(prompt=l["prompt"], label=l["label"], sampling_params=params,
                                                                  max_length=60000, hf_tokenizer=self.tokenizer, num_samples=3)
                    for l in lines]
            outs = [sys.modules["ray"].get(r) for r in refs]
        by_key = {e["key"]: [] for e in EPISODES}
        for e in EPISODES:
            by_key[e["key"]].append(e)
        self.assertEqual(sorted(len(v) for v in by_key.values()), [3, 3, 3])  # siblings share task and variant
        retried = 0
        for group in outs:
            self.assertEqual(len(group), 3)
            for out in group:
                episode = next(e for e in EPISODES if [out["observation_tokens"][a:b] for a, b in out["action_ranges"]] == e["generated"])
                final = episode["results"][-1]
                self.assertTrue(final["terminated"] or final["truncated"])
                self.assertEqual(out["reward"], final["reward"])  # the sum of step rewards = the final reward
                self.assertEqual(out["scores"], final["reward"])
                for name, value in final["info"]["reward_components"].items():
                    self.assertEqual(out["extra_logs"][name], value)
                self.assertEqual(out["extra_logs"]["harness_gym_failed"], 0.0)
                tokens, logprobs = out["observation_tokens"], out["rollout_log_probs"]
                self.assertEqual(len(logprobs), len(tokens))
                inside = {i for a, b in out["action_ranges"] for i in range(a, b)}
                self.assertEqual([i for i, lp in enumerate(logprobs) if lp != 0.0], sorted(inside))
                text = self.tokenizer.decode(tokens)
                self.assertTrue(text.startswith("<|im_start|>system\n"))  # the episode's prompt, not the dataset's
                self.assertNotIn("harness-gym episode", text)
                for (_, b), (a2, _) in zip(out["action_ranges"], out["action_ranges"][1:]):
                    between = self.tokenizer.decode(tokens[b:a2])
                    self.assertTrue(between.startswith("\n<|im_start|>"), between[:40])
                    self.assertTrue(between.endswith("<|im_start|>assistant\n"))
                retried += any(r["info"].get("hook_violations") for r in episode["results"][1:])
        self.assertGreaterEqual(retried, 3)
        support.report("adapters/openrlhf", {"samples": sum(len(g) for g in outs), "hook_retries": retried})

    def test_a_failed_sample_drops_its_group_in_openrlhfs_dynamic_filter(self) -> None:
        lines = self.lines(4, 950)
        with vendored_openrlhf() as o:
            args = parse_with_openrlhf(documented_command())
            configure(o.ho, max_turns=4)
            # Small sizes for the test; the filter range keeps every finite mean, so only a failure drops a group.
            args.rollout.batch_size, args.rollout.n_samples_per_prompt = 3, 3
            args.algo.dynamic_filtering_range = (-0.01, 1.01)
            llm = OracleLLM(self.tokenizer, saboteurs=1)
            actor = rollout_actor(o, llm)
            generator = o.samples_generator.SamplesGenerator(SimpleNamespace(args=args), iter([]), None, self.tokenizer, [o.ray.handle(actor)])
            batches = iter([([None], [l["prompt"]], [l["label"]], [None]) for l in lines])
            kwargs = dict(max_len=60000, n_samples_per_prompt=3, max_new_tokens=args.rollout.max_new_tokens)
            accepted, consumed, exhausted = generator._generate_vllm(batches, num_prompts=3, dynamic_filtering=True, **kwargs)

            self.assertEqual(len(llm.sabotaged), 1)
            saboteur = next(iter(llm.sabotaged.values()))
            self.assertEqual(saboteur["results"][-1]["info"]["outcome"], "max_turns")  # the server's turn cap
            self.assertEqual(consumed, 4)  # the dropped group was replaced by the fourth prompt
            self.assertEqual(len(accepted), 9)  # three whole groups
            labels = [e.labels[0] for e in accepted]
            self.assertEqual(sorted(labels.count(l) for l in set(labels)), [3, 3, 3])
            self.assertIn(lines[3]["label"], labels)
            for e in accepted:
                self.assertEqual(e.info["harness_gym_failed"][0], 0.0)
                self.assertTrue(math.isfinite(e.scores[0].item()))
                self.assertGreater(int(e.action_mask.sum()), 0)

            # With the filter off (or in evaluation), the failed sample stays, but with no tokens in the loss.
            EPISODES.clear()
            llm.sabotaged.clear()
            kept, _, _ = generator._generate_vllm(iter([([None], [lines[0]["prompt"]], [lines[0]["label"]], [None])]), num_prompts=1, dynamic_filtering=False, **kwargs)
        self.assertEqual(len(kept), 3)
        failed = [e for e in kept if e.info["harness_gym_failed"][0] == 1.0]
        self.assertEqual(len(failed), 1)
        self.assertEqual(int(failed[0].action_mask.sum()), 0)  # aggregate_loss leaves fully masked sequences out
        self.assertTrue(math.isnan(failed[0].scores[0].item()))
        self.assertEqual(failed[0].rewards[0].item(), 0.0)
        self.assertEqual(failed[0].response_length[0].item(), 0)
        for e in kept:
            self.assertEqual(set(e.info), set(kept[0].info))  # every sample logs the same keys
        support.report("adapters/openrlhf/filtered", {"accepted": len(accepted), "prompts_consumed": consumed})

    def test_a_spent_token_budget_and_a_transport_failure_are_excluded(self) -> None:
        line = self.lines(1, 990)[0]
        with vendored_openrlhf() as o:
            configure(o.ho)
            executor = o.vllm_engine._load_agent_executor(os.path.join(EXAMPLES, "agent_func.py"))
            engine = SimpleNamespace(generate=lambda ids, params, multi_modal_data=None: self._generate(OracleLLM(self.tokenizer), ids, params))
            params = o.samples_generator.SamplingParams(max_tokens=64, logprobs=None)

            async def one(max_length: int) -> Dict[str, Any]:
                return await executor.execute(line["prompt"], line["label"], params, max_length, self.tokenizer, engine)

            budget = support.run(one(600))  # less than the prompt: one turn fits, then the budget is spent
            o.ho.AgentInstance.urls = ["ws://127.0.0.1:9/v1/env"]  # nothing listens there
            try:
                unreachable = support.run(one(60000))
            finally:
                o.ho.AgentInstance.urls = None
        for out in (budget, unreachable):
            self.assertEqual(out["action_ranges"], [])
            self.assertTrue(math.isnan(out["scores"]))
            self.assertEqual(out["reward"], 0.0)
            self.assertEqual(out["extra_logs"]["harness_gym_failed"], 1.0)
            self.assertIn("accuracy", out["extra_logs"])
        self.assertFalse(EPISODES[0]["results"][-1].get("terminated") or EPISODES[0]["results"][-1].get("truncated"))

    async def _generate(self, llm: OracleLLM, ids: List[int], params: Any) -> Any:
        async for out in llm.generate({"prompt_token_ids": ids}, params, "r"):
            return out

    def test_contract_with_the_vendored_source(self) -> None:
        self.assertEqual(contract_problems(), [])
        with open(os.path.join(VENDOR, "VENDOR.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["commit"], OPENRLHF_COMMIT)
        with open(ADAPTER, encoding="utf-8") as f:
            self.assertIn(OPENRLHF_COMMIT, f.read())

    def test_contract_fails_when_a_vendored_interface_moves(self) -> None:
        changes = {
            "step result key renamed": ("openrlhf/utils/agent.py", 'done = step_result["done"]', 'done = step_result["finished"]'),
            "execute signature": ("openrlhf/utils/agent.py", "async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine, images=None):\n        # Treat",
                                  "async def execute(self, prompt, label, sampling_params, max_length: int, tokenizer, llm_engine, images=None):\n        # Treat"),
            "base class renamed": ("openrlhf/utils/agent.py", "class AgentInstanceBase(ABC):", "class EnvInstanceBase(ABC):"),
            "reset result key": ("openrlhf/utils/agent.py", 'reset_result["observation"]', 'reset_result["obs"]'),
            "generator stops reading scores": ("openrlhf/trainer/ppo_utils/samples_generator.py", 'score_val = response.get("scores", None)', "score_val = None"),
            "loader takes arguments": ("openrlhf/trainer/ray/vllm_engine.py", "return agent_executor_cls()", "return agent_executor_cls(agent_func_path)"),
        }
        for what, (rel, old, new) in changes.items():
            with tempfile.TemporaryDirectory() as tmp:
                copy = os.path.join(tmp, "openrlhf")
                shutil.copytree(VENDOR, copy)
                path = os.path.join(copy, rel)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                self.assertTrue(old in text, f"{what}: {old!r} is not in {rel}")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text.replace(old, new))
                self.assertNotEqual(contract_problems(copy), [], what)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--contract":  # python3 test_adapter_openrlhf.py --contract [VENDOR_DIR]
        found = contract_problems(sys.argv[2] if len(sys.argv) > 2 else VENDOR)
        print("\n".join(found) if found else "ok: the adapter fits the vendored OpenRLHF")
        sys.exit(1 if found else 0)
    unittest.main()
