"""Stand-in for OpenRLHF's agent-func interface (standard library only).

Source: https://github.com/OpenRLHF/OpenRLHF
Commit read: 3c3be6234e0cb353e76bb8019947db9dfe99fca7 (2026-08-13, snapshot fetched 2026-12-02)
Copied from:
  openrlhf/utils/agent.py L12-28    AgentExecutorBase, AgentInstanceBase
  openrlhf/utils/agent.py L31-181   MultiTurnAgentExecutor.execute (text path; the VLM/image branches dropped)
  openrlhf/trainer/ray/vllm_engine.py L19-30   _load_agent_executor: the --train.agent_func_path file must
                                               define ``AgentExecutor``, a subclass of AgentExecutorBase,
                                               constructed with no arguments
  openrlhf/trainer/ray/vllm_engine.py L185-208 generate_responses: the n samples of one prompt run
                                               ``executor.execute`` on the same engine, label shared
  examples/python/agent_func.py L10-72         the documented step() return keys
Kept verbatim so a fake must match: ``hf_tokenizer(text=..., add_special_tokens=False, return_tensors="pt")
["input_ids"][0].tolist()``; ``step_result["rewards"].item()`` (a torch tensor in the original: a plain float
has no ``.item()``); ``llm_engine.generate(token_ids, sampling_params, multi_modal_data=...)`` returning an
object with ``.outputs[0].token_ids / .text / .logprobs`` (vLLM RequestOutput); ``sampling_params`` has
``max_tokens`` and ``logprobs`` attributes (vLLM SamplingParams).
"""
import importlib.util
from abc import ABC, abstractmethod
from copy import deepcopy


class AgentExecutorBase(ABC):
    @abstractmethod
    async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine, images=None):
        raise NotImplementedError("AgentExecutorBase.execute is not implemented")


class AgentInstanceBase(ABC):
    @abstractmethod
    def __init__(self, *args, **kwargs):
        pass

    async def reset(self, states: dict, **kwargs):
        return states

    @abstractmethod
    async def step(self, state_dict: dict, **kwargs):
        raise NotImplementedError("AgentInstance.step is not implemented")


class MultiTurnAgentExecutor(AgentExecutorBase):
    def __init__(self, agent_instance_cls):
        assert issubclass(agent_instance_cls, AgentInstanceBase), "AgentInstance must inherit from AgentInstanceBase"
        self.agent_instance_cls = agent_instance_cls

    async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine, images=None):
        # Treat each AgentInstance as an isolated environment; bind every prompt to its own independent instance
        agent_instance = self.agent_instance_cls()

        initial_states = {"observation": prompt, "label": label}
        reset_result = await agent_instance.reset(initial_states)
        observation_text = reset_result["observation"]

        current_obs_tokens = hf_tokenizer(text=observation_text, add_special_tokens=False, return_tensors="pt")[
            "input_ids"
        ][0].tolist()

        # Truncate initial observation if it's too long to leave room for generation
        min_generation_tokens = getattr(sampling_params, "max_tokens", None) or 1
        max_initial_length = max_length - min_generation_tokens
        if len(current_obs_tokens) > max_initial_length:
            current_obs_tokens = current_obs_tokens[-max_initial_length:]
            observation_text = hf_tokenizer.decode(current_obs_tokens, skip_special_tokens=False)

        action_ranges = []
        total_reward = 0
        final_scores = 0
        extra_logs = {}

        if sampling_params.logprobs is not None:
            rollout_log_probs = [0.0] * len(current_obs_tokens)
        else:
            rollout_log_probs = None

        while True:
            # Next sampling budget
            sampling_params.max_tokens = max_length - len(current_obs_tokens)
            if sampling_params.max_tokens <= 0:
                break

            mm_data = None
            request_output = await llm_engine.generate(
                current_obs_tokens, deepcopy(sampling_params), multi_modal_data=mm_data
            )
            action_tokens = request_output.outputs[0].token_ids
            action_text = request_output.outputs[0].text

            action_start = len(current_obs_tokens)
            action_end = action_start + len(action_tokens)
            action_ranges.append((action_start, action_end))

            states = {
                "observation_text": observation_text,
                "action_text": action_text,
                "label": label,
                "sampling_params": sampling_params,
            }
            step_result = await agent_instance.step(states)

            total_reward += step_result["rewards"].item()
            final_scores = step_result.get("scores", total_reward)
            environment_feedback_text = step_result["environment_feedback"]
            done = step_result["done"]
            extra_logs = step_result.get("extra_logs", {})

            feedback_tokens = hf_tokenizer(
                text=environment_feedback_text, add_special_tokens=False, return_tensors="pt"
            )["input_ids"][0].tolist()

            observation_text = observation_text + action_text + environment_feedback_text
            current_obs_tokens = current_obs_tokens + action_tokens + feedback_tokens

            if sampling_params.logprobs is not None:
                for i, logprob in enumerate(request_output.outputs[0].logprobs):
                    rollout_log_probs.append(logprob[action_tokens[i]].logprob)
                rollout_log_probs.extend([0.0] * len(feedback_tokens))

            if step_result.get("sampling_params", None):
                sampling_params = step_result["sampling_params"]

            if done:
                break

        final_response = {
            "prompt": prompt,
            "label": label,
            "images": images,
            "mm_train_inputs": None,
            "reward": total_reward,
            "scores": final_scores,
            "observation_tokens": current_obs_tokens,
            "action_ranges": action_ranges,
            "rollout_log_probs": rollout_log_probs,
            "extra_logs": extra_logs,
        }
        return final_response


def _load_agent_executor(agent_func_path: str) -> AgentExecutorBase:
    assert agent_func_path.endswith(".py"), "Agent path must be a Python file"
    spec = importlib.util.spec_from_file_location("agent_module", agent_func_path)
    agent_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(agent_module)
    assert hasattr(agent_module, "AgentExecutor"), "Agent module must contain AgentExecutor class"
    agent_executor_cls = agent_module.AgentExecutor
    assert issubclass(agent_executor_cls, AgentExecutorBase), "AgentExecutor must inherit from AgentExecutorBase"
    return agent_executor_cls()
