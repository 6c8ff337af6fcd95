"""Token-exact multi-turn accounting: the ids a trainer learns from are the ids the model saw and wrote.

Re-templating the whole conversation after every turn gives ids that differ from what the model
generated (templates strip reasoning, normalise whitespace, re-serialise tool calls), and PPO trained on
those fails to converge (verl's multi-turn docs). So :class:`TokenTrajectory` tokenizes each part once:

- the reset messages and the episode's own ``tools`` (its renamed, per-episode schemas) are rendered
  with the chat template and the generation prompt: ``prompt_ids``;
- the ids the model generated are appended as they are, loss mask 1 (and their logprobs, when given);
- the environment's added messages (tool results, hook feedback) are tokenized incrementally, mask 0:
  their ids are ``template(all) - template(prefix)``, where ``prefix`` is the conversation up to and
  including the assistant turn just taken and ``all`` adds the new messages and the generation prompt.
  ``template(prefix)`` must be a true prefix of ``template(all)``, else :class:`TemplatePrefixError`
  (a template whose rendering of earlier turns depends on later ones cannot be accounted this way).
- between the generated ids and the added messages go the template's own closing ids of the assistant
  turn, mask 0: what the template renders after the end-of-turn token the model stopped on (for Qwen,
  the ``\\n`` after ``<|im_end|>``), so the sequence matches the template's layout.

The template's view of the conversation keeps the assistant turn as the decoded text (or as the message
a ``parse`` function makes of it). A tool list that changes on a step (tools discovered over MCP) is not
re-rendered into the prompt, which would rewrite the prefix: the new tools are appended as a ``system``
message (``tools_message``), mask 0.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Mapping, Optional, Protocol, Sequence


class ChatTokenizer(Protocol):
    """What the accounting needs of a tokenizer: a Hugging Face ``PreTrainedTokenizer`` has all of it."""

    def apply_chat_template(self, conversation: Any, tools: Any = None, add_generation_prompt: bool = False, tokenize: bool = True, **kwargs: Any) -> Any: ...

    def encode(self, text: str, **kwargs: Any) -> List[int]: ...

    def decode(self, ids: Sequence[int], **kwargs: Any) -> str: ...


class TemplatePrefixError(ValueError):
    """``template(prefix)`` is not a prefix of ``template(prefix + added)``: incremental ids are impossible."""


Message = Dict[str, Any]


def default_tools_message(new_tools: Sequence[Mapping[str, Any]]) -> Message:
    """A ``system`` message announcing tools offered mid-episode, in the Hermes/Qwen ``<tools>`` layout."""
    lines = "\n".join(json.dumps(t, ensure_ascii=False) for t in new_tools)
    return {"role": "system", "content": f"New tools are available:\n<tools>\n{lines}\n</tools>"}


def _tool_name(tool: Mapping[str, Any]) -> str:
    fn = tool.get("function", tool)
    return str(fn.get("name"))


class TokenTrajectory:
    """One episode's ids, loss mask and logprobs, built turn by turn (see the module for the rules).

    ``response_ids``, ``loss_mask`` and ``logprobs`` have one entry per id after the prompt; mask 1 marks
    exactly the generated ids. ``logprobs`` holds the generator's logprob of each generated id and 0.0
    elsewhere; it is ``None`` when some turn came without logprobs.
    """

    def __init__(
        self,
        tokenizer: ChatTokenizer,
        messages: Sequence[Mapping[str, Any]],
        tools: Optional[Sequence[Mapping[str, Any]]] = None,
        *,
        stop_token_ids: Optional[Sequence[int]] = None,
        template_kwargs: Optional[Mapping[str, Any]] = None,
        parse: Optional[Callable[[str], Message]] = None,
        tools_message: Callable[[Sequence[Mapping[str, Any]]], Message] = default_tools_message,
    ) -> None:
        """``messages`` and ``tools``: the reset observation's. ``stop_token_ids``: the end-of-turn ids
        (default: the tokenizer's ``eos_token_id``). ``template_kwargs`` go to every ``apply_chat_template``
        call (e.g. ``enable_thinking``). ``parse`` turns the decoded text into the assistant message the
        template sees (default ``{role: assistant, content: text}``)."""
        self.tokenizer = tokenizer
        #: The conversation as the template sees it (assistant turns as decoded or parsed).
        self.messages: List[Message] = [dict(m) for m in messages]
        #: The tools rendered into the prompt, and those announced later by ``tools_message``.
        self.tools: List[Dict[str, Any]] = [dict(t) for t in (tools or [])]
        self._prompt_tools = list(self.tools)
        self._template_kwargs = dict(template_kwargs or {})
        self._parse = parse
        self._tools_message = tools_message
        if stop_token_ids is None:
            eos = getattr(tokenizer, "eos_token_id", None)
            stop_token_ids = eos if isinstance(eos, (list, tuple)) else ([eos] if eos is not None else [])
        self.stop_token_ids = frozenset(int(i) for i in stop_token_ids)
        self._rendered = self._render(self.messages, True)
        self.prompt_ids: List[int] = list(self._rendered)
        self.response_ids: List[int] = []
        self.loss_mask: List[int] = []
        self.logprobs: Optional[List[float]] = []
        #: Per assistant turn: ``(start, end)`` of its generated ids in ``response_ids``.
        self.turn_spans: List[tuple] = []
        self._closing: Optional[List[int]] = None
        self._prefix: Optional[List[int]] = None

    @property
    def turns(self) -> int:
        """Assistant turns taken."""
        return len(self.turn_spans)

    @property
    def ids(self) -> List[int]:
        """The whole sequence: ``prompt_ids + response_ids`` (the context of the next generation)."""
        return self.prompt_ids + self.response_ids

    def _render(self, messages: Sequence[Mapping[str, Any]], generation_prompt: bool) -> List[int]:
        out = self.tokenizer.apply_chat_template(
            list(messages),
            tools=self.tools_rendered or None,
            add_generation_prompt=generation_prompt,
            tokenize=True,
            **self._template_kwargs,
        )
        if isinstance(out, Mapping):  # transformers with return_dict=True
            out = out["input_ids"]
        return [int(i) for i in out]

    @property
    def tools_rendered(self) -> List[Dict[str, Any]]:
        """The tools in the prompt (the reset's), which every render uses so that prefixes stay prefixes."""
        return self._prompt_tools

    def add_generation(self, ids: Sequence[int], logprobs: Optional[Sequence[float]] = None) -> Message:
        """Append the ids the model generated (mask 1); returns the assistant message they stand for.

        Send ``{"text": message["content"]}`` (or ``{"message": ...}`` when ``parse`` made a structured
        one) as the step's action.
        """
        if self._closing is not None:
            raise RuntimeError("add_environment() must follow each add_generation()")
        ids = [int(i) for i in ids]
        if logprobs is not None and len(logprobs) != len(ids):
            raise ValueError(f"{len(logprobs)} logprobs for {len(ids)} ids")
        start = len(self.response_ids)
        self.response_ids.extend(ids)
        self.loss_mask.extend([1] * len(ids))
        if logprobs is None or self.logprobs is None:
            self.logprobs = None
        else:
            self.logprobs.extend(float(x) for x in logprobs)
        self.turn_spans.append((start, len(self.response_ids)))
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        message = self._parse(text) if self._parse is not None else {"role": "assistant", "content": text}
        before = self._rendered  # template(messages, generation prompt): ends where generation began
        self.messages.append(message)
        after = self._render(self.messages, False)
        if after[: len(before)] != before:
            raise TemplatePrefixError("the template renders the history differently once the assistant turn is added")
        rendered_turn = after[len(before) :]
        self._closing = self._closing_ids(ids, rendered_turn)
        self._prefix = after
        return message

    def _closing_ids(self, generated: List[int], rendered_turn: List[int]) -> List[int]:
        """What the template renders after the end-of-turn id the model stopped on."""
        if rendered_turn[: len(generated)] == generated:
            return rendered_turn[len(generated) :]
        if generated and generated[-1] in self.stop_token_ids:
            stop = generated[-1]
            last = max((i for i, t in enumerate(rendered_turn) if t == stop), default=None)
            if last is not None:
                return rendered_turn[last + 1 :]
        return []  # no end-of-turn id (cut at the length limit): nothing closes the turn

    def add_environment(self, messages: Sequence[Mapping[str, Any]], tools: Optional[Sequence[Mapping[str, Any]]] = None) -> List[int]:
        """Append the environment's added messages (mask 0) and the next generation prompt; returns their ids.

        ``tools``: the step's ``observation.tools`` when the tool set changed (the full list); tools not yet
        shown are announced by a ``tools_message`` after the messages.
        """
        if self._closing is None or self._prefix is None:
            raise RuntimeError("add_environment() must follow add_generation()")
        added = [dict(m) for m in messages]
        if tools is not None:
            known = {_tool_name(t) for t in self.tools}
            new = [dict(t) for t in tools if _tool_name(t) not in known]
            if new:
                self.tools.extend(new)
                added.append(self._tools_message(new))
        self.messages.extend(added)
        full = self._render(self.messages, True)
        if full[: len(self._prefix)] != self._prefix:
            raise TemplatePrefixError("template(prefix) is not a prefix of template(prefix + added messages)")
        ids = self._closing + full[len(self._prefix) :]
        self.response_ids.extend(ids)
        self.loss_mask.extend([0] * len(ids))
        if self.logprobs is not None:
            self.logprobs.extend([0.0] * len(ids))
        self._rendered = full
        self._closing = None
        self._prefix = None
        return ids

    def truncate(self, max_response_ids: int) -> None:
        """Cut ``response_ids`` (and mask, logprobs) to ``max_response_ids``, as a trainer's response length does."""
        del self.response_ids[max_response_ids:]
        del self.loss_mask[max_response_ids:]
        if self.logprobs is not None:
            del self.logprobs[max_response_ids:]


def tools_instruction(tools: Sequence[Mapping[str, Any]]) -> str:
    """The episode's tools as Qwen2.5/Qwen3's chat template writes them in the system turn (for adapters
    whose framework renders the tools into the prompt rather than passing them to the template)."""
    lines = "".join("\n" + json.dumps(t, ensure_ascii=False) for t in tools)
    return (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>" + lines + "\n</tools>\n\n"
        "For each function call, return a json object with function name and arguments within "
        '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


def messages_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The environment's added messages as the text of one user turn: tool results as ``<tool_response>`` blocks."""
    parts = []
    for m in messages:
        content = str(m.get("content") or "")
        parts.append(f"<tool_response>\n{content}\n</tool_response>" if m.get("role") == "tool" else content)
    return "\n".join(parts)
