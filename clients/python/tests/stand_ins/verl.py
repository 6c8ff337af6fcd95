"""Stand-in for verl's agent-loop interface (standard library only).

Source: https://github.com/volcengine/verl
Commit read: b178a3cd56f58b2d502255daba591e92833930a7 (2026-01-29, newest snapshot fetched 2026-12-02)
Copied from:
  verl/experimental/agent_loop/agent_loop.py
    L125-155  AgentLoopMetrics, AgentLoopOutput (pydantic BaseModel in the original)
    L185-189  DictConfigWrap
    L192-323  AgentLoopBase (__init__, apply_chat_template for the tokenizer path, abstract run)
    L326-342  _agent_loop_registry, register
    L94-122   AsyncLLMServerManager.generate (signature only)
    L504-518  how AgentLoopWorker instantiates a registered loop (hydra.utils.instantiate on {"_target_": fqdn})
    L521-587, L761-777  the constraints _agent_loop_postprocess/_postprocess put on an output (check_outputs)
  verl/workers/rollout/replica.py L32-42  TokenOutput
  verl/utils/chat_template.py L9-28      initialize_system_prompt
  verl/utils/ray_utils.py L87-94         get_event_loop
Substitutions: pydantic BaseModel -> keyword-only dataclass (same field names, order and defaults; a dict
given for ``metrics`` is coerced like pydantic does); hydra.utils.instantiate -> importlib on ``_target_``;
torch / PIL / multimodal branches dropped (the processor path is not used by a text shim).
"""
import asyncio
import importlib
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(kw_only=True)
class TokenOutput:
    token_ids: List[int]
    """response token ids"""
    log_probs: Optional[List[float]] = None
    """logprobs of response token ids"""
    routed_experts: Optional[Any] = None
    """routed experts of response token ids"""
    stop_reason: Optional[str] = None
    """stop reason: 'completed', 'aborted', or None for unknown"""
    num_preempted: Optional[int] = None
    """number of preempted times for metric calculation"""


@dataclass(kw_only=True)
class AgentLoopMetrics:
    """Agent loop performance metrics."""

    generate_sequences: float = 0.0
    tool_calls: float = 0.0
    num_preempted: int = -1  # -1 means not available

    def model_dump(self) -> Dict[str, Any]:  # pydantic's method, called by AgentLoopWorker._postprocess (L784)
        return asdict(self)


@dataclass(kw_only=True)
class AgentLoopOutput:
    """Agent loop output."""

    prompt_ids: List[int]
    """Prompt token ids."""
    response_ids: List[int]
    """Response token ids including LLM generated token, tool response token."""
    response_mask: List[int]
    """Response mask, 1 for LLM generated token, 0 for tool response token."""
    response_logprobs: Optional[List[float]] = None
    """Log probabilities for the response tokens."""
    routed_experts: Optional[Any] = None
    """Routed experts for the total tokens."""
    multi_modal_data: Optional[Dict[str, Any]] = None
    """Multi-modal data for multi-modal tools."""
    reward_score: Optional[float] = None
    """Reward score for the trajectory."""
    num_turns: int = 0
    """Number of chat turns, including user, assistant, tool."""
    metrics: AgentLoopMetrics
    """Auxiliary performance metrics"""
    extra_fields: Dict[str, Any] = field(default_factory=dict)
    """Extra fields for dynamic addition."""

    def __post_init__(self) -> None:
        # pydantic validates a dict into AgentLoopMetrics (ToolAgentLoop passes metrics=agent_data.metrics, a dict)
        if isinstance(self.metrics, dict):
            self.metrics = AgentLoopMetrics(**self.metrics)
        elif not isinstance(self.metrics, AgentLoopMetrics):
            raise TypeError('metrics must be AgentLoopMetrics or a dict of its fields')


class DictConfigWrap:
    """Wrapper for DictConfig to avoid hydra.utils.instantiate recursive resolve."""

    def __init__(self, config):
        self.config = config


class AsyncLLMServerManager:
    """Signature of the server manager an agent loop calls; tests pass a fake with this ``generate``."""

    async def generate(
        self,
        request_id,
        *,
        prompt_ids: List[int],
        sampling_params: Dict[str, Any],
        image_data: Optional[List[Any]] = None,
        video_data: Optional[List[Any]] = None,
    ) -> TokenOutput:
        raise NotImplementedError


def initialize_system_prompt(tokenizer, **apply_chat_template_kwargs) -> List[int]:
    token1 = tokenizer.apply_chat_template([{"role": "user", "content": ""}], add_generation_prompt=False, tokenize=True)
    token2 = tokenizer.apply_chat_template(
        [{"role": "user", "content": ""}] * 2, add_generation_prompt=False, tokenize=True
    )
    # get system prompt tokens
    system_prompt = token1[: -(len(token2) - len(token1))]
    return system_prompt


def get_event_loop():
    try:
        loop = asyncio.get_event_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
    return loop


class AgentLoopBase(ABC):
    """An agent loop takes an input message, chat with OpenAI compatible LLM server and interact with various
    environments."""

    def __init__(
        self,
        trainer_config: DictConfigWrap,
        server_manager: AsyncLLMServerManager,
        tokenizer,
        processor,
        dataset_cls,
        dataset_config: DictConfigWrap,
        **kwargs,
    ):
        self.config = trainer_config.config
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.processor = processor
        self.dataset_cls = dataset_cls
        self.dataset_config = dataset_config.config
        self.apply_chat_template_kwargs = self.dataset_config.get("apply_chat_template_kwargs", {})
        self.system_prompt = initialize_system_prompt(self.tokenizer, **self.apply_chat_template_kwargs)
        self.loop = get_event_loop()

    async def apply_chat_template(
        self,
        messages: List[dict],
        tools: List[dict] = None,
        images=None,
        videos=None,
        remove_system_prompt: bool = False,
    ):
        """Tokenizer path of the original (processor is None for text models)."""
        if self.processor is not None:
            raise NotImplementedError('stand-in: the multimodal processor path is not copied')
        prompt_ids = await self.loop.run_in_executor(
            None,
            lambda: self.tokenizer.apply_chat_template(
                messages,
                tools=tools,
                add_generation_prompt=True,
                tokenize=True,
                **self.apply_chat_template_kwargs,
            ),
        )
        if remove_system_prompt:
            prompt_ids = prompt_ids[len(self.system_prompt) :]
        return prompt_ids

    @abstractmethod
    async def run(self, sampling_params: Dict[str, Any], **kwargs) -> AgentLoopOutput:
        """Run agent loop to interact with LLM server and environment.

        Args:
            sampling_params (Dict[str, Any]): LLM sampling params.
            **kwargs: dataset fields from `verl.utils.dataset.RLHFDataset`.
        """
        raise NotImplementedError


"""Agent loop registry: key is agent_name, value is a dict of agent loop config
used by hydra.utils.instantiate to initialize agent loop instance."""
_agent_loop_registry: Dict[str, dict] = {}


def register(agent_name: str):
    """Register agent loop class."""

    def decorator(subclass):
        fqdn = f"{subclass.__module__}.{subclass.__qualname__}"
        _agent_loop_registry[agent_name] = {"_target_": fqdn}
        return subclass

    return decorator


# ---- what AgentLoopWorker does around run() (agent_loop.py L504-518), for shim tests ----

def instantiate(agent_name: str, **init_kwargs) -> AgentLoopBase:
    """``hydra.utils.instantiate(config=_agent_loop_registry[agent_name], trainer_config=..., ...)``."""
    assert agent_name in _agent_loop_registry, (
        f"Agent loop {agent_name} not registered, registered agent loops: {_agent_loop_registry.keys()}"
    )
    config = dict(_agent_loop_registry[agent_name])
    module_name, _, qualname = config.pop("_target_").rpartition(".")
    cls = getattr(importlib.import_module(module_name), qualname)
    return cls(**config, **init_kwargs)


def check_outputs(outputs: List[AgentLoopOutput], prompt_length: int, response_length: int) -> None:
    """Raise where AgentLoopWorker's post-processing would fail or silently misalign.

    - prompt_ids / response_ids are padded to prompt_length / response_length (tokenizer.pad, padding="max_length"),
      which does not truncate: a longer sequence breaks the batch (torch.cat over samples).
    - response_mask is padded to response_length the same way and multiplied by the response attention mask;
      response_logprobs is padded with 0.0 up to response_length.
    - reward_extra_info keys are read from the first sample and indexed in every other one (L774-777).
    """
    for i, out in enumerate(outputs):
        if len(out.prompt_ids) > prompt_length:
            raise ValueError(f'sample {i}: {len(out.prompt_ids)} prompt ids > prompt_length {prompt_length}')
        if len(out.response_ids) > response_length:
            raise ValueError(f'sample {i}: {len(out.response_ids)} response ids > response_length {response_length}')
        if len(out.response_mask) != len(out.response_ids):
            raise ValueError(f'sample {i}: response_mask and response_ids differ in length')
        if out.response_logprobs is not None and len(out.response_logprobs) != len(out.response_ids):
            raise ValueError(f'sample {i}: response_logprobs and response_ids differ in length')
    infos = [out.extra_fields.get("reward_extra_info", {}) for out in outputs]
    keys = list(infos[0].keys()) if infos else []
    for i, info in enumerate(infos):
        for key in keys:
            if key not in info:
                raise KeyError(f'sample {i}: reward_extra_info lacks {key!r}, which sample 0 has')
