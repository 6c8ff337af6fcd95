"""TRL: a ``GRPOTrainer`` ``rollout_func`` that plays harness-gym episodes, and the reward functions for it.

Written against TRL commit ``f2cd57710ae345ea6428ae95363267fcf38a3dc8`` (huggingface/trl, 2026-07-24:
``trl/trainer/grpo_trainer.py``, ``trl/generation/vllm_generation.py``), vendored verbatim under
``clients/python/tests/vendor/trl/`` and checked name by name in ``clients/python/tests/test_adapter_trl.py``.
Nothing here imports TRL: the trainer is read through ``vllm_generation``, ``processing_class``, ``args``
and ``accelerator.num_processes``; ``accelerate.utils.gather_object`` is imported only with several processes.

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
ids and logprobs out), one call per turn for the batch's running episodes, in lockstep across processes:
every process makes the same calls with the same number of contexts, padding with one-id prompts whose
completions are dropped (that call is collective in server mode and with colocated tensor parallelism; see
``_TurnBatcher``). Its length is TRL's fixed ``max_completion_length`` per call; the shim cuts it to what the
episode's budget leaves. Pass ``generate=`` to use anything else: an async ``generate(ids, max_new_tokens) ->
Generation | (ids, logprobs) | ids`` per episode (the core's :data:`~harness_gym.train.rollout.GenerateFn`),
e.g. a direct vLLM server client; then no collective is made.

The function runs its episodes on a fresh event loop; when the calling thread already runs one (a Jupyter
notebook), on a worker thread it waits for.

Failures (transport, server error, a cap): ``env_mask`` all 0 (no loss), ``harness_reward`` and
``reward_components`` ``None`` (TRL leaves a completion every reward function scored ``None`` out of its
group's baseline, with advantage 0) and ``harness_failure`` set. Note TRL's ``mask_truncated_completions``
also drops completions whose last id is not EOS.

Why not ``environment_factory``: its tools are read once, from one probed instance, and rendered into every
prompt, while harness-gym renames tools per episode; its loop ends when the model stops calling tools,
so a hook that rejects a final answer and asks for a retry has no place (docs/TRAINING.md).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from ..train import Generation, RolloutConfig, Sample, rollout, shared_pool

ROW_OPEN = "<harness_gym_row>"
ROW_CLOSE = "</harness_gym_row>"
T = TypeVar("T")
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
    """Generation in lockstep rounds through ``trainer.vllm_generation.generate`` (one call per round).

    A round starts when every episode of this process still running waits for generation. Its width is agreed
    across processes first (``accelerate.utils.gather_object`` of this process's count, the maximum wins), then
    this process calls ``vllm_generation.generate(contexts, None, 1)`` with exactly that many contexts: its own,
    padded with :attr:`pad` (a one-id prompt whose completion is thrown away). Rounds go on until no process has
    an episode running, so a process whose episodes have all ended keeps joining the others' rounds.

    Why: at TRL ``f2cd57710ae345ea6428ae95363267fcf38a3dc8``, ``trl/generation/vllm_generation.py``
    ``VLLMGeneration.generate`` L550-609 (server mode) calls ``gather_object(prompts)`` (a collective) and hands
    rank ``r`` the slice ``[r * len(prompts), (r + 1) * len(prompts))`` of all completions, and L636-648 / L686-694
    (colocate, tensor-parallel) do the same within the TP group. Every process must therefore make the same
    number of calls with the same number of prompts, or ranks hang (one rank's extra gather) or read another
    rank's completions (unequal lengths): the defect of TRL PR #6673 in TRL's own multi-turn loop. With one
    process the width is the number of running episodes and no collective is made.
    """

    def __init__(self, trainer: Any, live: int) -> None:
        self.trainer = trainer
        self.live = live
        self.pending: List[Any] = []
        self.changed: Optional[asyncio.Event] = None
        tok = getattr(trainer, "processing_class", None)
        pad = next((i for i in (getattr(tok, "pad_token_id", None), getattr(tok, "eos_token_id", None)) if i is not None), 0)
        #: The padding prompt of a round (one id: the pad, else EOS, else 0).
        self.pad: List[int] = [int(pad)]
        accelerator = getattr(trainer, "accelerator", None)
        self.processes = int(getattr(accelerator, "num_processes", 1) or 1)
        #: Every ``generate`` call made: (contexts sent, of them this process's own).
        self.calls: List[Tuple[int, int]] = []

    def _poke(self) -> None:
        if self.changed is not None:
            self.changed.set()

    async def generate(self, ids: List[int], max_new_tokens: int) -> Generation:
        future: "asyncio.Future[Generation]" = asyncio.get_running_loop().create_future()
        self.pending.append((list(ids), max_new_tokens, future))
        self._poke()
        return await future

    def finished(self) -> None:
        self.live -= 1
        self._poke()

    def _width(self, own: int) -> int:
        if self.processes <= 1:
            return own
        from accelerate.utils import gather_object  # TRL's own dependency, the collective vllm_generation uses

        return max(int(n) for n in gather_object([own]))

    async def run(self) -> None:
        """The rounds (run beside the episodes; returns when no process has an episode running)."""
        self.changed = asyncio.Event()
        while True:
            while len(self.pending) < self.live:
                self.changed.clear()
                await self.changed.wait()
            batch, self.pending = self.pending, []
            width = self._width(len(batch))
            if width == 0:
                return
            contexts = [ids for ids, _, _ in batch] + [list(self.pad) for _ in range(width - len(batch))]
            self.calls.append((width, len(batch)))
            vllm = getattr(self.trainer, "vllm_generation", None)
            try:
                if vllm is None:
                    raise RuntimeError("make_rollout_func: trainer.vllm_generation is None (GRPOConfig(use_vllm=False)?); pass generate=")
                _, completions, logprobs, _ = vllm.generate(contexts, None, 1)
                if logprobs is None:
                    raise RuntimeError("make_rollout_func: vllm_generation.generate returned no logprobs")
            except BaseException as exc:
                for _, _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                raise
            for (_, room, future), ids, lps in zip(batch, completions, logprobs):
                ids = [int(i) for i in ids][:room]
                future.set_result(Generation(ids, [float(lp[0]) for lp in lps][: len(ids)]))


def _run_coroutine(make: Callable[[], Awaitable[T]]) -> T:
    """``asyncio.run(make())``, or, when this thread already runs an event loop (Jupyter, IPython), the same
    on a worker thread that this one waits for (``asyncio.run`` refuses to nest in a running loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())  # type: ignore[arg-type]
    box: Dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(make())  # type: ignore[arg-type]
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=work, name="harness-gym-trl-rollout", daemon=True)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


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
            rounds = [batcher.run()] if batcher is not None else []

            async def play(row: Dict[str, Any]) -> Sample:
                try:
                    return await rollout(pool, row, tokenizer, generate or batcher.generate, config,  # type: ignore[union-attr]
                                         extra_options=extra or None, on_reset=observe, on_step=observe)
                finally:
                    if batcher is not None:
                        batcher.finished()

            done = await asyncio.gather(*rounds, *(play(r) for r in rows))
            return list(done[len(rounds):])

        samples = _run_coroutine(play_all)
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
        out["harness_reward"].append(None if s.masked else float(s.reward))
        out["reward_components"].append(None if s.masked else dict(s.reward_components))
        out["harness_outcome"].append(s.outcome or "")
        out["harness_failure"].append(s.failure or "")
        out["harness_task_id"].append(s.task_id or "")
        out["harness_variant_id"].append(s.variant_id or "")
        out["harness_turns"].append(s.turns)
    return out


def harness_reward(prompts: Any = None, completions: Any = None, harness_reward: Optional[List[Optional[float]]] = None, **kwargs: Any) -> List[Optional[float]]:
    """TRL reward function: the episode's final reward from the server (``reward_funcs=[harness_reward]``).

    ``None`` for a failed or capped episode (``harness_failure`` set): TRL turns ``None`` into NaN, and a
    completion for which *every* reward function returned ``None`` is left out of its group's mean and std
    and gets advantage 0 (``trl/trainer/grpo_trainer.py`` L1659-1663, L2679-2685 and L2730 at
    ``f2cd57710ae345ea6428ae95363267fcf38a3dc8``). Any other reward function of the run must return ``None``
    for those rows too (:func:`component_reward` does), or the row is scored by it alone.
    """
    if harness_reward is None:
        raise KeyError("no harness_reward field: is make_rollout_func the trainer's rollout_func?")
    return [None if r is None else float(r) for r in harness_reward]


def component_reward(name: str) -> Callable[..., List[float]]:
    """A reward function returning one reward component (log it with weight 0: ``reward_weights``).

    TRL logs every reward function's mean as ``rewards/<name>/mean``, so ``reward_funcs=[harness_reward,
    *[component_reward(c) for c in DEFAULT_COMPONENTS]]`` with ``reward_weights=[1, 0, 0, 0, 0, 0]`` shows the
    components during a run without changing the reward. ``None`` for a failed or capped episode, as
    :func:`harness_reward`.
    """

    def reward(prompts: Any = None, completions: Any = None, reward_components: Optional[List[Optional[Mapping[str, float]]]] = None, **kwargs: Any) -> List[Optional[float]]:
        return [None if c is None else float(c.get(name, 0.0)) for c in (reward_components or [])]

    reward.__name__ = f"harness_{name}"
    return reward
