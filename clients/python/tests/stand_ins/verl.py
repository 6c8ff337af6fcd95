"""The vendored, real verl (``vendor/verl``, verl-project/verl@1dda039b9c6311889a9c9a26040677e1254814f9), made
importable without its heavy dependencies.

Nothing of verl itself is written here: ``verl.experimental.agent_loop`` (``__init__``, ``agent_loop``,
``single_turn_agent_loop``, ``tool_agent_loop``, ``utils``) and ``verl.trainer.ppo.v1.agent_loop_tq`` are
imported from the verbatim vendored files. What this module stubs, in ``sys.modules`` and only inside
:func:`loaded`, is what those files import and Debian's python3 lacks:

- third-party: ``torch`` (a numpy-backed subset: tensors are ndarrays with ``unsqueeze``/``size``/``dim``/
  ``sum(dim=)``), ``pydantic`` (verl needs v2's ``model_dump``/``ConfigDict``; Debian has 1.10, so a small
  v2-shaped ``BaseModel``: declared fields, defaults copied, nested models built from dicts, the set fields
  tracked for ``exclude_unset``), ``hydra`` (``hydra.utils.instantiate`` with hydra's defaults: ``_target_``
  imported, the other keys and the call's kwargs passed as keyword arguments, nested config values passed as
  ``DictConfig`` / ``ListConfig`` as ``_convert_: none`` does), ``ray`` (``@ray.remote`` returns the class),
  ``PIL``, ``transformers``, ``tensordict``, ``transfer_queue`` (a recording key-value store);
- verl-internal helpers the agent-loop files import from heavy modules (``verl.protocol.DataProto``,
  ``verl.utils.*``, ``verl.tools.*``, ``verl.workers.*``, ``tool_parser``), each as small as the code path
  needs. ``omega_conf_to_dataclass`` returns the rollout DictConfig itself and, for the model config, an
  object holding the test's tokenizer.

numpy and omegaconf are the real ones.
"""
from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import sys
import types
from typing import Any, Dict, Iterator, List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
VENDOR = os.path.join(os.path.dirname(HERE), "vendor", "verl")
VERL_ROOT = os.path.join(VENDOR, "verl")
CONFIG_YAML = os.path.join(VERL_ROOT, "trainer", "config", "_generated_ppo_trainer.yaml")


# --------------------------------------------------------------------------------------------- torch
class Tensor(np.ndarray):
    """A numpy array with the few torch.Tensor methods verl's agent-loop code calls."""

    def __new__(cls, data: Any, dtype: Any = None) -> "Tensor":
        return np.asarray(data, dtype=dtype).view(cls)

    def unsqueeze(self, dim: int) -> "Tensor":
        return np.expand_dims(self, dim).view(Tensor)

    def squeeze(self, dim: Optional[int] = None) -> "Tensor":  # type: ignore[override]
        return np.squeeze(np.asarray(self), axis=dim).view(Tensor)

    @property
    def size(self) -> "_Size":  # type: ignore[override]
        # numpy reads ``.size`` as the element count; verl calls ``.size(dim)``: an int that can be called.
        return _Size(np.ndarray.size.__get__(self), self.shape)

    def dim(self) -> int:
        return self.ndim

    def sum(self, dim: Optional[int] = None, axis: Optional[int] = None, **kwargs: Any) -> Any:  # type: ignore[override]
        out = np.ndarray.sum(np.asarray(self), axis=dim if dim is not None else axis, **kwargs)
        return out.view(Tensor) if isinstance(out, np.ndarray) else out

    def to(self, dtype: Any) -> "Tensor":
        return self.astype(dtype).view(Tensor)

    def bool(self) -> "Tensor":
        return self.astype(bool).view(Tensor)


class _Size(int):
    def __new__(cls, count: int, shape: Any) -> "_Size":
        out = int.__new__(cls, count)
        out.shape = shape  # type: ignore[attr-defined]
        return out

    def __call__(self, dim: Optional[int] = None) -> Any:
        return self.shape if dim is None else self.shape[dim]  # type: ignore[attr-defined]


def _t(x: Any, dtype: Any = None) -> Tensor:
    return Tensor(x, dtype=dtype)


def _torch() -> types.ModuleType:
    torch = types.ModuleType("torch")
    torch.Tensor = Tensor  # type: ignore[attr-defined]
    torch.int64 = torch.long = np.int64  # type: ignore[attr-defined]
    torch.int16 = np.int16  # type: ignore[attr-defined]
    torch.float32 = np.float32  # type: ignore[attr-defined]
    torch.bool = np.bool_  # type: ignore[attr-defined]
    torch.tensor = lambda data, dtype=None: _t(data, dtype)  # type: ignore[attr-defined]
    torch.cat = lambda seq, dim=0: np.concatenate([np.asarray(s) for s in seq], axis=dim).view(Tensor)  # type: ignore[attr-defined]
    torch.stack = lambda seq, dim=0: np.stack([np.asarray(s) for s in seq], axis=dim).view(Tensor)  # type: ignore[attr-defined]
    torch.zeros_like = lambda x, dtype=None: np.zeros_like(np.asarray(x), dtype=dtype).view(Tensor)  # type: ignore[attr-defined]
    torch.ones_like = lambda x, dtype=None: np.ones_like(np.asarray(x), dtype=dtype).view(Tensor)  # type: ignore[attr-defined]
    torch.zeros = lambda shape, dtype=None: np.zeros(shape, dtype=dtype).view(Tensor)  # type: ignore[attr-defined]
    torch.ones = lambda shape, dtype=None: np.ones(shape, dtype=dtype).view(Tensor)  # type: ignore[attr-defined]
    torch.full = lambda shape, value, dtype=None: np.full(shape, value, dtype=dtype).view(Tensor)  # type: ignore[attr-defined]
    torch.arange = lambda *a, **k: np.arange(*a).view(Tensor)  # type: ignore[attr-defined]
    torch.nn = types.SimpleNamespace(utils=types.SimpleNamespace(rnn=types.SimpleNamespace()))  # type: ignore[attr-defined]
    return torch


def compute_position_id_with_mask(mask: Any) -> Tensor:
    """verl.utils.model.compute_position_id_with_mask: ``clip(cumsum(mask, -1) - 1, min=0)``."""
    return np.clip(np.cumsum(np.asarray(mask), axis=-1) - 1, 0, None).view(Tensor)


# ------------------------------------------------------------------------------------------ pydantic
class _Missing:
    pass


class BaseModel:
    """pydantic v2's BaseModel as far as verl's AgentLoopOutput / TokenOutput use it (no type validation)."""

    model_config: Dict[str, Any] = {}

    @classmethod
    def _fields(cls) -> Dict[str, Any]:
        fields: Dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            if klass in (BaseModel, object):
                continue
            for name in getattr(klass, "__annotations__", {}):
                if name == "model_config" or name.startswith("_"):
                    continue
                fields[name] = klass.__dict__.get(name, fields.get(name, _Missing))
        return fields

    def __init__(self, **data: Any) -> None:
        fields = type(self)._fields()
        unknown = set(data) - set(fields)
        if unknown:  # v2's default (extra="ignore") drops them; nobody here passes any, so say so
            raise TypeError(f"{type(self).__name__}: unexpected fields {sorted(unknown)}")
        object.__setattr__(self, "_set", set(data))
        for name, default in fields.items():
            if name in data:
                value = data[name]
            elif default is _Missing:
                raise TypeError(f"{type(self).__name__}: field {name!r} required")
            else:
                value = _copy(default)
            hint = _hint(type(self), name)
            if isinstance(hint, type) and issubclass(hint, BaseModel) and isinstance(value, dict):
                value = hint(**value)
            object.__setattr__(self, name, value)

    def model_dump(self, exclude_unset: bool = False, **_: Any) -> Dict[str, Any]:
        out = {}
        for name in type(self)._fields():
            if exclude_unset and name not in self._set:  # type: ignore[attr-defined]
                continue
            value = getattr(self, name)
            out[name] = value.model_dump() if isinstance(value, BaseModel) else _copy(value)
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in type(self)._fields():
            self._set.add(name)  # type: ignore[attr-defined]


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


def _hint(cls: type, name: str) -> Any:
    import typing

    for klass in cls.__mro__:
        ann = getattr(klass, "__annotations__", {})
        if name in ann:
            hint = ann[name]
            if isinstance(hint, str):
                module = sys.modules.get(klass.__module__)
                try:
                    hint = eval(hint, vars(module) if module else {}, {"Optional": typing.Optional, "Any": typing.Any})
                except Exception:
                    return None
            return hint
    return None


def _pydantic() -> types.ModuleType:
    mod = types.ModuleType("pydantic")
    mod.BaseModel = BaseModel  # type: ignore[attr-defined]
    mod.ConfigDict = dict  # type: ignore[attr-defined]
    return mod


# --------------------------------------------------------------------------------------------- hydra
def instantiate(config: Any, **kwargs: Any) -> Any:
    """hydra.utils.instantiate with hydra's defaults (_convert_: none, _recursive_: true on a flat entry)."""
    from omegaconf import DictConfig, OmegaConf

    node = config if isinstance(config, DictConfig) else OmegaConf.create(config)
    target = str(node["_target_"])
    module, _, attr = target.rpartition(".")
    cls = getattr(importlib.import_module(module), attr)
    args: Dict[str, Any] = {}
    for key in node:
        if str(key).startswith("_") and str(key).endswith("_"):
            continue
        args[str(key)] = node[key]  # nested values stay DictConfig / ListConfig, as hydra passes them
    args.update(kwargs)
    return cls(**args)


# -------------------------------------------------------------------------------------- the rest
class DataProto:
    """verl.protocol.DataProto as far as AgentLoopWorker.generate_sequences / _postprocess use it."""

    def __init__(self, batch: Any = None, non_tensor_batch: Optional[Dict[str, Any]] = None, meta_info: Optional[Dict[str, Any]] = None) -> None:
        self.batch = batch
        self.non_tensor_batch = dict(non_tensor_batch or {})
        self.meta_info = dict(meta_info or {})

    def __len__(self) -> int:
        if self.batch is not None:
            return int(self.batch.batch_size[0] if isinstance(self.batch.batch_size, (list, tuple)) else self.batch.batch_size)
        return len(next(iter(self.non_tensor_batch.values())))


class TensorDict(dict):
    def __init__(self, source: Optional[Dict[str, Any]] = None, batch_size: Any = None, **_: Any) -> None:
        super().__init__(source or {})
        self.batch_size = batch_size if isinstance(batch_size, (list, tuple)) else [batch_size]


class TransferQueue(types.ModuleType):
    """transfer_queue: records tags and trajectories by partition."""

    def __init__(self) -> None:
        super().__init__("transfer_queue")
        self.tags: Dict[str, Dict[str, Any]] = {}
        self.trajectories: Dict[str, Dict[str, Any]] = {}

    def init(self, *_: Any, **__: Any) -> None:
        pass

    async def async_kv_put(self, key: str, partition_id: str, tag: Dict[str, Any]) -> None:
        self.tags[f"{partition_id}/{key}"] = dict(tag)

    async def async_kv_batch_put(self, keys: List[str], fields: List[Dict[str, Any]], tags: List[Dict[str, Any]], partition_id: str) -> None:
        for key, field, tag in zip(keys, fields, tags):
            self.trajectories[f"{partition_id}/{key}"] = dict(field, __tag__=tag)


class ModelConfig:
    """What AgentLoopWorker reads of HFModelConfig (omega_conf_to_dataclass of actor_rollout_ref.model)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.processor = None
        self.hf_config = types.SimpleNamespace(model_type="qwen2")

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


#: The tokenizer the next AgentLoopWorker gets (set by the test).
TOKENIZER: List[Any] = [None]


def omega_conf_to_dataclass(cfg: Any, *_: Any, **__: Any) -> Any:
    if "path" in cfg and "tokenizer_path" in cfg:  # actor_rollout_ref.model
        return ModelConfig(TOKENIZER[0])
    return cfg


class _Trace:
    max_samples_per_step_per_worker = None

    @classmethod
    def init(cls, *_: Any, **__: Any) -> None:
        pass

    @classmethod
    def get_instance(cls) -> "_Trace":
        return cls()


def _module(name: str, **attrs: Any) -> types.ModuleType:
    mod = types.ModuleType(name)
    for k, v in attrs.items():
        setattr(mod, k, v)
    return mod


def _stubs() -> Dict[str, types.ModuleType]:
    identity = lambda f=None, *a, **k: f  # noqa: E731
    null_context = lambda *a, **k: contextlib.nullcontext()  # noqa: E731

    class _Anything:
        def __init__(self, *a: Any, **k: Any) -> None:
            pass

    class _Builder:
        def supports_multimodal(self) -> bool:
            return False

    class _SkipManager:
        @staticmethod
        def annotate(**_: Any) -> Any:
            return lambda f: f

    ray = _module("ray", remote=lambda cls=None, **_: cls, get=lambda x: x, nodes=lambda: [])
    ray.actor = _module("ray.actor", ActorHandle=_Anything)  # type: ignore[attr-defined]
    ray.util = _module("ray.util")  # type: ignore[attr-defined]
    stubs: Dict[str, types.ModuleType] = {
        "torch": _torch(),
        "pydantic": _pydantic(),
        "hydra": _module("hydra", utils=_module("hydra.utils", instantiate=instantiate)),
        "ray": ray,
        "ray.actor": ray.actor,
        "ray.util": ray.util,
        "PIL": _module("PIL"),
        "PIL.Image": _module("PIL.Image", Image=_Anything),
        "transformers": _module("transformers", AutoProcessor=_Anything, AutoTokenizer=_Anything),
        "tensordict": _module("tensordict", TensorDict=TensorDict, NonTensorData=_Anything, NonTensorStack=_Anything),
        "transfer_queue": TransferQueue(),
        "verl.protocol": _module("verl.protocol", DataProto=DataProto),
        "verl.tools": _module("verl.tools"),
        "verl.tools.tool_registry": _module("verl.tools.tool_registry", load_all_tools=lambda **_: []),
        "verl.tools.function_tool": _module("verl.tools.function_tool", FunctionTool=_Anything, normalize_function_tool_return=identity),
        "verl.tools.schemas": _module("verl.tools.schemas", OpenAIFunctionCallSchema=_Anything, OpenAIFunctionParsedSchema=_Anything, ToolResponse=_Anything),
        "verl.trainer.distillation": _module("verl.trainer.distillation", is_distillation_enabled=lambda *_: False),
        "verl.utils": _module("verl.utils"),
        "verl.utils.config": _module("verl.utils.config", omega_conf_to_dataclass=omega_conf_to_dataclass),
        "verl.utils.dataset": _module("verl.utils.dataset"),
        "verl.utils.dataset.rl_dataset": _module("verl.utils.dataset.rl_dataset", RLHFDataset=_Anything, get_dataset_class=lambda *_: _Anything),
        "verl.utils.model": _module("verl.utils.model", compute_position_id_with_mask=compute_position_id_with_mask),
        "verl.utils.profiler": _module("verl.utils.profiler", simple_timer=null_context),
        "verl.utils.ray_utils": _module("verl.utils.ray_utils", auto_await=identity, get_event_loop=asyncio.get_event_loop),
        "verl.utils.rollout_trace": _module("verl.utils.rollout_trace", RolloutTraceConfig=_Trace, rollout_trace_attr=null_context, rollout_trace_op=identity),
        "verl.utils.skip": _module("verl.utils.skip", SkipManager=_SkipManager),
        "verl.utils.tokenizer": _module("verl.utils.tokenizer", build_multimodal_processor_inputs=None, get_processor_token_id=lambda *_: None),
        "verl.utils.tokenizer.continuous_token_wiring": _module("verl.utils.tokenizer.continuous_token_wiring", create_continuous_token_builder=lambda *a, **k: _Builder()),
        "verl.utils.tensordict_utils": _module("verl.utils.tensordict_utils", list_of_dict_to_tensordict=list),
        "verl.workers": _module("verl.workers"),
        "verl.workers.config": _module("verl.workers.config", HFModelConfig=_Anything, RolloutConfig=_Anything),
        "verl.workers.rollout": _module("verl.workers.rollout"),
        "verl.workers.rollout.llm_server": _module("verl.workers.rollout.llm_server", LLMServerClient=_Anything),
        "verl.experimental.agent_loop.tool_parser": _module("verl.experimental.agent_loop.tool_parser", FunctionCall=_Anything, ToolParser=_Anything),
    }
    stubs["hydra.utils"] = stubs["hydra"].utils  # type: ignore[attr-defined]
    # TokenOutput: the vendored replica.py's fields, on the pydantic stand-in (replica.py imports ray's scheduling).
    replica = _module("verl.workers.rollout.replica", BaseModel=BaseModel, Any=Any, Optional=Optional)
    exec(_token_output_source(), replica.__dict__)
    stubs["verl.workers.rollout.replica"] = replica
    return stubs


def _token_output_source() -> str:
    """``class TokenOutput(BaseModel)`` copied out of the vendored replica.py (its AST), nothing else."""
    import ast

    path = os.path.join(VERL_ROOT, "workers", "rollout", "replica.py")
    with open(path, encoding="utf-8") as f:
        source = f.read()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == "TokenOutput":
            return ast.get_source_segment(source, node)
    raise RuntimeError("TokenOutput is no longer in verl/workers/rollout/replica.py")


#: Vendored packages without their real ``__init__`` (it would import the whole trainer).
PACKAGES = {
    "verl": VERL_ROOT,
    "verl.experimental": os.path.join(VERL_ROOT, "experimental"),
    "verl.trainer": os.path.join(VERL_ROOT, "trainer"),
    "verl.trainer.ppo": os.path.join(VERL_ROOT, "trainer", "ppo"),
    "verl.trainer.ppo.v1": os.path.join(VERL_ROOT, "trainer", "ppo", "v1"),
}


@contextlib.contextmanager
def loaded() -> Iterator[types.SimpleNamespace]:
    """Import the vendored verl with the stubs in ``sys.modules``; everything is removed afterwards."""
    before = set(sys.modules)
    shadowed = {name: sys.modules[name] for name in ("pydantic",) if name in sys.modules}
    clash = [n for n in ("torch", "ray", "hydra", "verl", "transformers", "tensordict") if n in sys.modules]
    if clash:
        raise RuntimeError(f"{clash} already imported; refusing to shadow them")
    stubs = _stubs()
    for name, path in PACKAGES.items():
        pkg = types.ModuleType(name)
        pkg.__path__ = [path]  # type: ignore[attr-defined]
        pkg.__file__ = os.path.join(path, "__init__.py")
        sys.modules[name] = pkg
    sys.modules.update(stubs)
    try:
        agent_loop_pkg = importlib.import_module("verl.experimental.agent_loop")
        agent_loop = importlib.import_module("verl.experimental.agent_loop.agent_loop")
        tq_mod = importlib.import_module("verl.trainer.ppo.v1.agent_loop_tq")
        yield types.SimpleNamespace(
            package=agent_loop_pkg, agent_loop=agent_loop, agent_loop_tq=tq_mod, tq=stubs["transfer_queue"],
            TokenOutput=stubs["verl.workers.rollout.replica"].TokenOutput, DataProto=DataProto, Tensor=Tensor,
            tokenizer=TOKENIZER,
        )
    finally:
        for name in set(sys.modules) - before:
            sys.modules.pop(name, None)
        sys.modules.update(shadowed)
        # harness_gym.adapters.verl caches the class built on this verl: forget it with verl.
        adapter = sys.modules.get("harness_gym.adapters.verl")
        if adapter is not None:
            adapter._CLASS = None  # type: ignore[attr-defined]
