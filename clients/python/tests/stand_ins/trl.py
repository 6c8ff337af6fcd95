"""Stand-in for TRL's GRPOTrainer rollout_func / environment_factory interface (standard library only).

Source: https://github.com/huggingface/trl
Commit read: f2cd57710ae345ea6428ae95363267fcf38a3dc8 (2026-07-24, snapshot fetched 2026-12-02)
Copied from:
  trl/trainer/grpo_trainer.py
    L130-140    RolloutFunc, _SupportsReset, EnvironmentFactory
    L261-285    the rollout_func / environment_factory contract (docstring)
    L303-324    GRPOTrainer.__init__ parameter names (rollout_func=, environment_factory=)
    L626-659    environment probing: tools are the public bound methods of one probed instance per environment
                name (reset and get_reward excluded), fixed for the whole run (_env_tools[name])
    L2150-2173  _generate with rollout_func: called as rollout_func(prompts, self); required keys
    L2210-2214  "env_mask" popped from the extra fields and used as the tool mask (1 = model token)
    L2661-2667  remaining extra fields merged into each input row by index, for the reward functions
    L1264-1271  RepeatSampler(mini_repeat_count=num_generations): every prompt arrives num_generations times,
                consecutively (VLLMGeneration.generate dedups with prompts[::num_generations])
  trl/generation/vllm_generation.py L503-529  VLLMGeneration.generate signature and return shapes
Substitution: torch tensors -> lists; the trainer is any object with the attributes a shim reads.
"""
import inspect
from typing import Any, Callable, Dict, List, Optional, Protocol, Tuple

# What we call a rollout function is a callable that takes prompts (list) and the trainer instance as parameters and
# returns a dict of generation results. Those results must include "prompt_ids", "completion_ids", and "logprobs"
# fields. Any extra fields (per-completion) are forwarded to the reward functions.
RolloutFunc = Callable[[List[str], "GRPOTrainer"], Dict[str, Any]]


class _SupportsReset(Protocol):
    def reset(self, **kwargs) -> Optional[str]: ...


EnvironmentFactory = Callable[[], _SupportsReset]


class GRPOTrainer:
    """Only the attributes a rollout_func reads; the real trainer is far larger.

    ``vllm_generation``: a VLLMGeneration (below); ``processing_class``: the tokenizer; ``args``: GRPOConfig
    (``max_completion_length``, ``num_generations``, ``max_tool_calling_iterations``, ...);
    ``num_generations``: G.
    """

    def __init__(self, *, vllm_generation=None, processing_class=None, args=None, num_generations: int = 1):
        self.vllm_generation = vllm_generation
        self.processing_class = processing_class
        self.args = args
        self.num_generations = num_generations
        self.rollout_func: Optional[RolloutFunc] = None


class VLLMGeneration:
    def generate(
        self,
        prompts: List[List[int]],
        images: Optional[List[Optional[list]]],
        num_generations: int,
        profiler=None,
    ) -> Tuple:
        """Returns (prompt_ids, completion_ids, logprobs, logprob_token_ids).

        - prompt_ids: list[list[int]] (batch_size, prompt_len)
        - completion_ids: list[list[int]] (batch_size, completion_len)
        - logprobs: list[list[list[float | None]]] (batch_size, completion_len, num_logprobs)
        - logprob_token_ids: list[list[list[int]]] (batch_size, completion_len, num_logprobs)
        The sampled token's logprob is lp[0] (GRPOTrainer keeps ``[[lp[0] for lp in seq] for seq in logprobs]``).
        Generation length is the trainer's fixed max_completion_length (no per-call override in this signature).
        """
        raise NotImplementedError


def call_rollout_func(rollout_func: RolloutFunc, prompts: list, trainer) -> Tuple[list, list, list, Optional[list], Dict[str, Any]]:
    """What GRPOTrainer._generate does with a rollout_func (L2160-2214): returns prompt_ids, completion_ids,
    logprobs, tool_mask (from "env_mask", or None) and the remaining extra fields."""
    output = rollout_func(prompts, trainer)
    required_keys = {"prompt_ids", "completion_ids", "logprobs"}
    missing_keys = required_keys - output.keys()
    if missing_keys:
        missing_keys_list = sorted(missing_keys)
        raise ValueError(f"rollout_func must return keys {missing_keys_list} in its output dict.")
    extra_fields = {k: v for k, v in output.items() if k not in required_keys}
    prompt_ids, completion_ids, logprobs = output["prompt_ids"], output["completion_ids"], output["logprobs"]
    tool_mask = extra_fields.pop("env_mask", None)
    return prompt_ids, completion_ids, logprobs, tool_mask, extra_fields


def merge_extra_fields(inputs: List[dict], extra_fields: Dict[str, Any]) -> None:
    """L2661-2667: a list value is given to row i by index; a non-list value to every row."""
    if extra_fields:
        for i, inp in enumerate(inputs):
            for key, values in extra_fields.items():
                if isinstance(values, list) and i < len(values):
                    inp[key] = values[i]
                elif not isinstance(values, list):
                    inp[key] = values


def environment_tools(instance) -> List[Callable]:
    """L641-650: the tools environment_factory exposes for an environment: its public bound methods other than
    reset/get_reward, read once from a probed instance at trainer init and rendered into every prompt of that
    environment (their __name__, type hints and docstring make the schema)."""
    methods = []
    has_reset = False
    for member_name, member in inspect.getmembers(instance, predicate=inspect.ismethod):
        if member_name == "reset":
            has_reset = True
        elif member_name == "get_reward":
            pass
        elif not member_name.startswith("_"):
            methods.append(member)
    if not has_reset:
        raise ValueError("Each environment instance returned by `environment_factory` must define a callable `reset`.")
    return methods
