"""TRL: a ``GRPOTrainer`` ``rollout_func`` that plays harness-gym episodes, and the reward functions for it.

Written against TRL commit ``f2cd57710ae345ea6428ae95363267fcf38a3dc8`` (``trl/trainer/grpo_trainer.py``;
the stand-in is ``clients/python/tests/stand_ins/trl.py``). Nothing here imports TRL: the trainer is only
read through the attributes the stand-in lists (``vllm_generation``, ``processing_class``, ``args``).

TRL hands a rollout function only the ``"prompt"`` column, every prompt repeated ``num_generations``
times in a row. So the dataset's prompt *is* the harness-gym row: :func:`prompt_column` makes it (a chat
whose one user message holds the row as JSON between :data:`ROW_OPEN` and :data:`ROW_CLOSE`), and
:func:`row_from_prompt` reads it back. Siblings carry the same row, hence the same seed, variant, locale and
options, hence task and variant, whatever process they land in. One row per group: TRL makes the copies.

``make_rollout_func(...)`` returns ``rollout_func(prompts, trainer) -> dict`` with, per element of
``prompts`` and in order: ``prompt_ids`` (the episode's reset messages and own tools rendered once with
``trainer.processing_class``), ``completion_ids`` (generated ids and the environment's ids, in order),
``logprobs`` (the sampled logprob of each generated id, 0.0 elsewhere), ``env_mask`` (1 = generated),
and the fields the reward functions read: ``harness_reward``, ``reward_components``, ``harness_outcome``,
``harness_failure``, ``harness_task_id``, ``harness_variant_id``, ``harness_turns``.

Generation: by default through ``trainer.vllm_generation.generate(contexts, None, 1)`` (token ids in, token
ids and logprobs out), called once per turn for every episode still running in the batch, so a batch of
episodes is one vLLM call per turn. Its length is TRL's fixed ``max_completion_length`` per call; the
shim cuts it to what the episode's budget leaves. Pass ``generate=`` to use anything else: an async
``generate(ids, max_new_tokens) -> Generation | (ids, logprobs) | ids`` per episode (the core's
:data:`~harness_gym.train.rollout.GenerateFn`), e.g. a direct vLLM server client.

Failures (transport, server error, a cap): ``env_mask`` all 0 (no loss), ``harness_reward`` 0.0 and
``harness_failure`` set. Note TRL's ``mask_truncated_completions`` also drops completions whose last id is
not EOS.

Why not ``environment_factory``: its tools are read once, from one probed instance, and rendered into every
prompt, while harness-gym renames tools per episode; its loop ends when the model stops calling tools,
so a hook that rejects a final answer and asks for a retry has no place (docs/TRAINING.md).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Union

from ..train import Generation, RolloutConfig, Sample, rollout, shared_pool

ROW_OPEN = "<harness_gym_row>"
ROW_CLOSE = "</harness_gym_row>"
DEFAULT_COMPONENTS = ("accuracy", "effectiveness", "hook_compliance", "tool_rationality", "skill_selection")


def prompt_column(rows: Sequence[Mapping[str, Any]]) -> List[List[Dict[str, str]]]:
    """The ``"prompt"`` column for :func:`~harness_gym.train.group_rows` rows: one conversational prompt
    per row (per group; TRL repeats it ``num_generations`` times), the row as JSON in its user message.

    ``datasets.Dataset.from_dict({"prompt": prompt_column(rows)})`` is a training set. The text is never
    shown to the model: the rollout function replaces it with the episode's reset messages.
    """
    return [[{"role": "user", "content": ROW_OPEN + json.dumps(dict(row), sort_keys=True) + ROW_CLOSE}] for row in rows]


def row_from_prompt(prompt: Union[str, Sequence[Mapping[str, Any]]]) -> Dict[str, Any]:
    """The row a prompt of :func:`prompt_column` encodes (a conversational prompt or a plain string)."""
    if isinstance(prompt, str):
        text = prompt
    else:
        text = "".join(str(m.get("content") or "") for m in prompt if m.get("role") == "user")
    start, end = text.find(ROW_OPEN), text.find(ROW_CLOSE)
    if start < 0 or end < start:
        raise ValueError("the prompt holds no harness-gym row (make the dataset with prompt_column)")
    return json.loads(text[start + len(ROW_OPEN) : end])


def _get(obj: Any, name: str, default: Any = None) -> Any:
    value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
    return default if value is None else value


class _TurnBatcher:
    """Gathers the running episodes' generation requests and sends them as one ``vllm_generation.generate``."""

    def __init__(self, trainer: Any, live: int) -> None:
        self.trainer = trainer
        self.live = live
        self.pending: List[Any] = []

    async def generate(self, ids: List[int], max_new_tokens: int) -> Generation:
        future: "asyncio.Future[Generation]" = asyncio.get_running_loop().create_future()
        self.pending.append((list(ids), max_new_tokens, future))
        self._maybe_flush()
        return await future

    def finished(self) -> None:
        self.live -= 1
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        if not self.pending or len(self.pending) < self.live:
            return
        batch, self.pending = self.pending, []
        try:
            _, completions, logprobs, _ = self.trainer.vllm_generation.generate([ids for ids, _, _ in batch], None, 1)
        except BaseException as exc:
            for _, _, future in batch:
                future.set_exception(exc)
            return
        for (_, room, future), ids, lps in zip(batch, completions, logprobs):
            ids = [int(i) for i in ids][:room]
            future.set_result(Generation(ids, [float(lp[0]) for lp in lps][: len(ids)]))


def make_rollout_func(
    urls: Union[str, Sequence[str], None] = None,
    *,
    max_episode_tokens: Optional[int] = None,
    max_turns: Optional[int] = None,
    min_turn_tokens: int = 256,
    mask_truncated: bool = True,
    reset_options: Optional[Mapping[str, Any]] = None,
    generate: Optional[Callable[[List[int], int], Awaitable[Any]]] = None,
    on_result: Optional[Callable[[Dict[str, Any]], None]] = None,
    pool_options: Optional[Mapping[str, Any]] = None,
) -> Callable[[List[Any], Any], Dict[str, Any]]:
    """A ``rollout_func`` for ``GRPOTrainer(..., rollout_func=make_rollout_func(...))`` (see the module).

    ``urls``: one or several server URLs (default ``$HARNESS_GYM_URL``, comma-separated); the process-wide
    pooled connection (:func:`~harness_gym.train.shared_pool`) serves every call. ``max_episode_tokens``: the
    completion budget of an episode, every id after the prompt (default ``args.max_completion_length`` x
    ``max_turns``; a longer completion is cut and masked). ``max_turns``: assistant turns, sent as
    ``options.max_turns`` (default: from the budget, one per ``min_turn_tokens``). ``reset_options``: added
    to every row's options. ``on_result``: called with each reset and step result item (logging, tests).
    """
    raw = urls if urls is not None else os.environ.get("HARNESS_GYM_URL")
    if not raw:
        raise RuntimeError("make_rollout_func: pass urls or set HARNESS_GYM_URL")
    url_list = [u.strip() for u in raw.split(",") if u.strip()] if isinstance(raw, str) else list(raw)
    extra = dict(reset_options or {})

    def observe(result: Dict[str, Any]) -> None:
        if on_result is not None:
            on_result(result)

    def rollout_func(prompts: List[Any], trainer: Any) -> Dict[str, Any]:
        tokenizer = trainer.processing_class
        per_call = int(_get(trainer.args, "max_completion_length", 1024))
        budget = max_episode_tokens if max_episode_tokens is not None else per_call * (max_turns or 8)
        config = RolloutConfig(max_response_tokens=budget, max_new_tokens=per_call, max_turns=max_turns,
                               min_turn_tokens=min_turn_tokens, mask_truncated=mask_truncated)
        pool = shared_pool(url_list, **dict(pool_options or {}))
        rows = [row_from_prompt(p) for p in prompts]

        async def play_all() -> List[Sample]:
            batcher = None if generate is not None else _TurnBatcher(trainer, len(rows))

            async def play(row: Dict[str, Any]) -> Sample:
                try:
                    return await rollout(pool, row, tokenizer, generate or batcher.generate, config,  # type: ignore[union-attr]
                                         extra_options=extra or None, on_reset=observe, on_step=observe)
                finally:
                    if batcher is not None:
                        batcher.finished()

            return list(await asyncio.gather(*(play(r) for r in rows)))

        samples = asyncio.run(play_all())
        return rollout_output(samples, tokenizer)

    return rollout_func


def rollout_output(samples: Sequence[Sample], tokenizer: Any) -> Dict[str, Any]:
    """The ``rollout_func`` dict for finished samples (one entry per sample, in order)."""
    eos = getattr(tokenizer, "eos_token_id", None)
    out: Dict[str, List[Any]] = {k: [] for k in ("prompt_ids", "completion_ids", "logprobs", "env_mask", "harness_reward",
                                                  "reward_components", "harness_outcome", "harness_failure",
                                                  "harness_task_id", "harness_variant_id", "harness_turns")}
    for s in samples:
        prompt = list(s.prompt_ids) or list(tokenizer.apply_chat_template([{"role": "user", "content": ""}], add_generation_prompt=True, tokenize=True))
        completion = list(s.response_ids) or [eos if eos is not None else 0]
        mask = [0] * len(completion) if s.masked or not s.response_ids else list(s.loss_mask)
        lps = list(s.logprobs) if s.logprobs is not None and s.response_ids else [0.0] * len(completion)
        out["prompt_ids"].append(prompt)
        out["completion_ids"].append(completion)
        out["logprobs"].append(lps)
        out["env_mask"].append(mask)
        out["harness_reward"].append(0.0 if s.masked else float(s.reward))
        out["reward_components"].append(dict(s.reward_components))
        out["harness_outcome"].append(s.outcome or "")
        out["harness_failure"].append(s.failure or "")
        out["harness_task_id"].append(s.task_id or "")
        out["harness_variant_id"].append(s.variant_id or "")
        out["harness_turns"].append(s.turns)
    return out


def harness_reward(prompts: Any = None, completions: Any = None, harness_reward: Optional[List[float]] = None, **kwargs: Any) -> List[float]:
    """TRL reward function: the episode's final reward from the server (``reward_funcs=[harness_reward]``)."""
    if harness_reward is None:
        raise KeyError("no harness_reward field: is make_rollout_func the trainer's rollout_func?")
    return [float(r) for r in harness_reward]


def component_reward(name: str) -> Callable[..., List[float]]:
    """A reward function returning one reward component (log it with weight 0: ``reward_weights``).

    TRL logs every reward function's mean as ``rewards/<name>/mean``, so ``reward_funcs=[harness_reward,
    *[component_reward(c) for c in DEFAULT_COMPONENTS]]`` with ``reward_weights=[1, 0, 0, 0, 0, 0]`` shows the
    components during a run without changing the reward.
    """

    def reward(prompts: Any = None, completions: Any = None, reward_components: Optional[List[Mapping[str, float]]] = None, **kwargs: Any) -> List[float]:
        return [float((c or {}).get(name, 0.0)) for c in (reward_components or [])]

    reward.__name__ = f"harness_{name}"
    return reward
