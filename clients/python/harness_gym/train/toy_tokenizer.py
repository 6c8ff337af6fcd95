"""A small but real tokenizer with a Qwen2.5-style chat template, for tests and examples without a model.

It is a faithful model of what :mod:`harness_gym.train.tokens` relies on in a Hugging Face tokenizer,
not a stand-in returning constants:

- ``encode`` pre-splits text as GPT-2 does (words with their leading space, digits, punctuation runs,
  whitespace runs; special and added tokens first), maps each piece to a learned id, and falls back to
  its UTF-8 bytes. ``decode(encode(s)) == s`` for every string. Pieces merge, so tokenizing a
  concatenation is not always the concatenation of the tokenizations, as with BPE.
- ``apply_chat_template`` renders Qwen2.5's template (the ``tokenizer_config.json`` of
  Qwen/Qwen2.5-7B-Instruct): the system message with a ``# Tools`` section listing each tool as JSON in
  ``<tools></tools>``, ``<|im_start|>role\\n...<|im_end|>\\n`` turns, assistant tool calls as
  ``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>`` (string arguments verbatim, as
  Qwen3's template does), consecutive ``tool`` messages merged into one ``user`` turn of
  ``<tool_response>`` blocks, and ``<|im_start|>assistant\\n`` as the generation prompt. The string is
  rendered whole and then tokenized, as ``transformers`` does.
- ``<|im_end|>`` is the end-of-turn (``eos_token_id``); ``<|im_start|>``, ``<|im_end|>`` and
  ``<|endoftext|>`` are special (dropped by ``skip_special_tokens``); the ``<tool_call>`` family are
  added tokens that stay in decoded text, as in Qwen's vocabulary.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
ADDED_TOKENS = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>")
DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."

# GPT-2's pre-split, plus ``_`` runs (``\w`` but neither letter nor digit), so that pieces cover every character.
_PIECE_RE = re.compile(r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d| ?[^\s\w]+| ?_+|\s+(?!\S)|\s+")
_BYTE_BASE = len(SPECIAL_TOKENS) + len(ADDED_TOKENS)


def _tojson(value: Any) -> str:
    # transformers' chat-template ``tojson``: json.dumps with ensure_ascii=False and default separators.
    return json.dumps(value, ensure_ascii=False)


def render_qwen25(
    messages: Sequence[Mapping[str, Any]],
    tools: Optional[Sequence[Mapping[str, Any]]] = None,
    add_generation_prompt: bool = False,
) -> str:
    """Qwen2.5-Instruct's chat template, as a string."""
    out: List[str] = []
    first_is_system = bool(messages) and messages[0].get("role") == "system"
    system = str(messages[0].get("content") or "") if first_is_system else DEFAULT_SYSTEM
    if tools:
        out.append("<|im_start|>system\n" + system)
        out.append("\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n")
        out.append("You are provided with function signatures within <tools></tools> XML tags:\n<tools>")
        for tool in tools:
            out.append("\n" + _tojson(tool))
        out.append(
            "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
            '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": '
            "<args-json-object>}\n</tool_call><|im_end|>\n"
        )
    else:
        out.append("<|im_start|>system\n" + system + "<|im_end|>\n")
    for i, message in enumerate(messages):
        role = message.get("role")
        content = message.get("content") or ""
        calls = message.get("tool_calls") or []
        if role == "user" or (role == "system" and i > 0) or (role == "assistant" and not calls):
            out.append(f"<|im_start|>{role}\n{content}<|im_end|>\n")
        elif role == "assistant":
            out.append("<|im_start|>assistant")
            if content:
                out.append("\n" + content)
            for call in calls:
                fn = call.get("function", call)
                arguments = fn.get("arguments")
                rendered = arguments if isinstance(arguments, str) else _tojson(arguments)
                out.append('\n<tool_call>\n{"name": "' + str(fn.get("name")) + '", "arguments": ' + rendered + "}\n</tool_call>")
            out.append("<|im_end|>\n")
        elif role == "tool":
            if i == 0 or messages[i - 1].get("role") != "tool":
                out.append("<|im_start|>user")
            out.append("\n<tool_response>\n" + content + "\n</tool_response>")
            if i == len(messages) - 1 or messages[i + 1].get("role") != "tool":
                out.append("<|im_end|>\n")
        elif role == "system":
            pass  # the first system message went into the header above
        else:
            raise ValueError(f"unknown role {role!r}")
    if add_generation_prompt:
        out.append("<|im_start|>assistant\n")
    return "".join(out)


class ToyTokenizer:
    """Word pieces learned from a corpus, UTF-8 byte fallback, Qwen2.5's chat template (see the module)."""

    def __init__(self, vocabulary: Iterable[str] = ()) -> None:
        """``vocabulary``: the word pieces with ids of their own (``train`` picks them from a corpus)."""
        fixed = list(SPECIAL_TOKENS) + list(ADDED_TOKENS)
        self._pieces: List[bytes] = [t.encode() for t in fixed] + [bytes([b]) for b in range(256)]
        self._ids: Dict[str, int] = {t: i for i, t in enumerate(fixed)}
        for piece in vocabulary:
            if piece not in self._ids and len(piece.encode()) > 1:
                self._ids[piece] = len(self._pieces)
                self._pieces.append(piece.encode())
        self.special_ids = frozenset(self._ids[t] for t in SPECIAL_TOKENS)
        self.eos_token = "<|im_end|>"
        self.eos_token_id = self._ids["<|im_end|>"]
        self.pad_token_id = self._ids["<|endoftext|>"]
        alternatives = sorted(fixed, key=len, reverse=True)
        self._split_re = re.compile("(" + "|".join(re.escape(t) for t in alternatives) + ")")

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int = 4096) -> "ToyTokenizer":
        """Give the ``vocab_size`` most frequent pieces of ``texts`` ids of their own."""
        counts: Counter = Counter()
        for text in texts:
            for part in re.split("|".join(re.escape(t) for t in SPECIAL_TOKENS + ADDED_TOKENS), text):
                counts.update(_PIECE_RE.findall(part))
        return cls(p for p, _ in counts.most_common(vocab_size))

    @property
    def vocab_size(self) -> int:
        """How many ids there are."""
        return len(self._pieces)

    def encode(self, text: str, add_special_tokens: bool = False) -> List[int]:
        """Token ids of ``text``; special and added tokens in it become their own ids."""
        ids: List[int] = []
        for part in self._split_re.split(text):
            if not part:
                continue
            known = self._ids.get(part)
            if known is not None and known < _BYTE_BASE:
                ids.append(known)
                continue
            pieces = _PIECE_RE.findall(part)
            assert "".join(pieces) == part, f"pre-split lost characters of {part!r}"
            for piece in pieces:
                pid = self._ids.get(piece)
                if pid is not None:
                    ids.append(pid)
                else:
                    ids.extend(_BYTE_BASE + b for b in piece.encode())
        return ids

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        """The text of ``ids`` (invalid UTF-8 from a cut multi-byte character becomes U+FFFD)."""
        data = b"".join(self._pieces[i] for i in ids if not (skip_special_tokens and i in self.special_ids))
        return data.decode("utf-8", errors="replace")

    def apply_chat_template(
        self,
        conversation: Sequence[Mapping[str, Any]],
        tools: Optional[Sequence[Mapping[str, Any]]] = None,
        add_generation_prompt: bool = False,
        tokenize: bool = True,
        **_: Any,
    ) -> Union[str, List[int]]:
        """Render Qwen2.5's template; token ids when ``tokenize`` (the default, as in transformers)."""
        text = render_qwen25(conversation, tools=tools, add_generation_prompt=add_generation_prompt)
        return self.encode(text) if tokenize else text
