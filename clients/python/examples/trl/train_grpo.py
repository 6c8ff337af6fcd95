"""GRPO on harness-gym with TRL's rollout_func (huggingface/trl f2cd57710ae345ea6428ae95363267fcf38a3dc8; docs/training/trl.md).

clients/python/tests/test_adapter_trl.py runs this script with TRL's own GRPOConfig (datasets and the trainer recorded).

Start `harness-gym serve --port 8080` first; then `accelerate launch clients/python/examples/trl/train_grpo.py`.
"""
import os

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from harness_gym.adapters.trl import DEFAULT_COMPONENTS, component_reward, harness_reward, make_rollout_func, prompt_column
from harness_gym.train import group_rows

G = 8
rows = group_rows(4096, seed=0, variant="identity", locale="zh-CN", group_size=G)
train = Dataset.from_dict({"prompt": prompt_column(rows)})

args = GRPOConfig(
    output_dir="out/harness-gym-grpo",
    num_generations=G,
    per_device_train_batch_size=8,
    max_completion_length=1024,
    use_vllm=True,
    vllm_mode="colocate",
    mask_truncated_completions=False,
    reward_weights=[1.0] + [0.0] * len(DEFAULT_COMPONENTS),
    logging_steps=1,
)
trainer = GRPOTrainer(
    model=os.environ.get("MODEL", "Qwen/Qwen2.5-7B-Instruct"),
    args=args,
    train_dataset=train,
    reward_funcs=[harness_reward, *[component_reward(c) for c in DEFAULT_COMPONENTS]],
    rollout_func=make_rollout_func(os.environ.get("HARNESS_GYM_URL", "ws://127.0.0.1:8080/v1/env"), max_turns=8, max_episode_tokens=8192),
)
trainer.train()
