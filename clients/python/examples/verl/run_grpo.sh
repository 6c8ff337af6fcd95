#!/usr/bin/env bash
# GRPO on harness-gym with verl's agent loop (verl-project/verl@1dda039b9c6311889a9c9a26040677e1254814f9;
# see docs/training/verl.md). Every key=value below is checked against verl's own config at that commit
# (verl/trainer/config/_generated_ppo_trainer.yaml) by clients/python/tests/test_adapter_verl.py.
# Start the server first:  harness-gym serve --host 0.0.0.0 --port 8080 --max-sessions 1024
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${DATA:-$HOME/data/harness_gym}
MODEL=${MODEL:-Qwen/Qwen2.5-7B-Instruct}
export HARNESS_GYM_URL=${HARNESS_GYM_URL:-ws://127.0.0.1:8080/v1/env}

python3 "$HERE/make_dataset.py" --groups 4096 --seed 0 --variant identity --out "$DATA/train.parquet"
python3 "$HERE/make_dataset.py" --groups 128 --seed 1000000 --variant eval --task-split eval --split test --out "$DATA/val.parquet"

python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files="$DATA/train.parquet" \
  data.val_files="$DATA/val.parquet" \
  data.train_batch_size=64 \
  data.max_prompt_length=9216 \
  data.max_response_length=8192 \
  data.filter_overlong_prompts=False \
  data.return_raw_chat=True \
  trainer.use_v1=True \
  actor_rollout_ref.model.path="$MODEL" \
  actor_rollout_ref.actor.optim.lr=1e-6 \
  actor_rollout_ref.actor.ppo_mini_batch_size=64 \
  actor_rollout_ref.actor.use_kl_loss=False \
  actor_rollout_ref.rollout.name=vllm \
  actor_rollout_ref.rollout.mode=async \
  actor_rollout_ref.rollout.n=8 \
  actor_rollout_ref.rollout.prompt_length=9216 \
  actor_rollout_ref.rollout.response_length=8192 \
  actor_rollout_ref.rollout.calculate_log_probs=True \
  actor_rollout_ref.rollout.agent.agent_loop_config_path="$HERE/agent_loop.yaml" \
  actor_rollout_ref.rollout.agent.default_agent_loop=harness_gym \
  trainer.total_epochs=1 \
  trainer.logger='["console","wandb"]' \
  "$@"
