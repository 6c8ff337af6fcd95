"""A small policy that can learn either the surface or the content of a harness (issue 43).

It reads the observation (system prompt, the offered tools with names and descriptions, the skills listed in
the prompt, the viewer's message, tool results) and acts in a discrete space built from what the observation
offers. One episode is two decisions turns:

* turn 1, tool calls: which offered tool loads skills (head ``loader``), which offered skill to load
  (``skill``), which offered tool to call, or none (``tool``), and for each of its parameters which value to
  pass (``arg``: the link number or item id the message names, the viewer id, the message itself, leave it
  out; ``enum``: one of the parameter's enum values);
* turn 2, the reply: its kind (``kind``: answer, refuse and record, ask back, hand off, call to action,
  greet) and, for an answer, which fact to state (``fact``: a field of the tool results or of the product
  lines in the prompt), composed into text by templates per locale.

Each head is a linear softmax over its candidates. A candidate's features are hashed crosses of the
viewer's message tokens with the candidate's NAME (the whole name as one token, plus its parts) and with
its DESCRIPTION (word tokens, scaled down by 1/sqrt(#words)): the name features are few and strong, the
description features many and weak. So a policy trained on one harness can latch onto names (as a model
fine-tuned on a fixed harness does), and a policy trained across renamed and reworded variants has to use
descriptions. No hand-written rule maps a name or description to a role; only the weights do.

numpy only; every random draw comes from the generator passed in, so a run is reproducible.
"""

from __future__ import annotations

import functools
import json
import math
import re
import zlib
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

DIM = 1 << 20
#: The longest tool-result value offered as a fact (an FAQ answer runs to about 90 characters).
LEAF_CHARS = 100
#: The most facts an answer states (the ``nfacts`` head picks 1..MAX_FACTS; learn.py --max-facts).
MAX_FACTS = 3
#: How strongly a description word counts against a name token (per word, before the 1/sqrt(n) scaling).
DESC_SCALE = 1.0
KINDS = ["answer", "refuse", "ask_back", "handoff", "cta", "greet"]
SLOTS = ["LINK", "ITEM", "VIEWER", "MSG", "OMIT"]
STOP = set(
    "a an the of to and or for in on is it its be by with as at this that from one any your you i my me "
    "when such so not no do are was will can".split()
)

#: A candidate's features: hashed indices and their values.
Feats = Tuple[np.ndarray, np.ndarray]

_HASH: Dict[str, int] = {}


def h(token: str) -> int:
    v = _HASH.get(token)
    if v is None:
        v = zlib.crc32(token.encode("utf-8"))
        if len(_HASH) < 500_000:
            _HASH[token] = v
    return v


def fid(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode("utf-8")) & (DIM - 1)


def words(text: str) -> List[str]:
    out = []
    for w in re.findall(r"[a-z]+|\d+(?:\.\d+)?|[\u4e00-\u9fff]", (text or "").lower()):
        out.append("<num>" if w[0].isdigit() else w)
    return out


def msg_tokens(text: str) -> List[str]:
    ws = [w for w in words(text) if w not in STOP]
    toks = list(dict.fromkeys(ws))
    toks += [a + "_" + b for a, b in zip(ws, ws[1:])][:12]
    return toks[:24] + ["<bias>"]


def name_tokens(name: str) -> List[str]:
    parts = [p for p in re.split(r"[^a-zA-Z0-9\u4e00-\u9fff]+", name.lower()) if p]
    return ["N=" + name] + ["n=" + p for p in parts]


def desc_tokens(desc: str) -> List[str]:
    return list(dict.fromkeys(w for w in words(desc) if w not in STOP and w != "<num>"))[:40]


_CROSS: Dict[Any, Feats] = {}


def cross(head: str, left: Sequence[str], name: str, desc: str, extra: Sequence[str] = ()) -> Feats:
    """Crosses of ``left`` (message tokens, or a slot tag) with the candidate's name and description
    (cached: a GRPO group's members see the same observation)."""
    key = (head, tuple(left), name, desc, tuple(extra))
    f = _CROSS.get(key)
    if f is None:
        if len(_CROSS) > 50_000:
            _CROSS.clear()
        f = _CROSS[key] = _cross(head, left, name, desc, extra)
    return f


def _cross(head: str, left: Sequence[str], name: str, desc: str, extra: Sequence[str]) -> Feats:
    right = ([(t, 1.0) for t in name_tokens(name)] if name else [])
    dt = desc_tokens(desc) if desc else []
    ds = DESC_SCALE / math.sqrt(max(1, len(dt)))
    right += [("d=" + t, ds) for t in dt] + [("x=" + t, 1.0) for t in extra]
    if not right or not left:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    lh = np.array([h(head + "|" + l) for l in left], dtype=np.uint64)
    rh = np.array([h(t) for t, _ in right], dtype=np.uint64)
    rv = np.array([v for _, v in right])
    idx = ((lh[:, None] * np.uint64(0x9E3779B1)) ^ rh[None, :]) % np.uint64(DIM)
    return idx.ravel().astype(np.int64), np.broadcast_to(rv, idx.shape).ravel().copy()


def concat(*fs: Feats) -> Feats:
    return np.concatenate([f[0] for f in fs]), np.concatenate([f[1] for f in fs])


class Decision:
    __slots__ = ("feats", "probs", "choice")

    def __init__(self, feats: List[Feats], probs: np.ndarray, choice: int) -> None:
        self.feats, self.probs, self.choice = feats, probs, choice


class Model:
    """The weights, and softmax choice over candidates."""

    def __init__(self, seed: int) -> None:
        self.w = np.zeros(DIM, dtype=np.float64)
        self.rng = np.random.default_rng(seed)

    def choose(self, feats: List[Feats], greedy: bool) -> Decision:
        logits = np.array([float(self.w[i] @ v) for i, v in feats])
        logits -= logits.max()
        p = np.exp(logits)
        p /= p.sum()
        c = int(np.argmax(p)) if greedy else int(self.rng.choice(len(p), p=p))
        return Decision(feats, p, c)

    def grad(self, decisions: Sequence[Decision], adv: float, g: np.ndarray, entropy: float = 0.0) -> None:
        """Accumulate adv * d log pi / d w, plus ``entropy`` times the gradient of each decision's entropy,
        into the dense gradient ``g``."""
        for d in decisions:
            p = d.probs
            logp = np.log(np.maximum(p, 1e-12))
            ent_grad = -p * (logp + float(-(p * logp).sum()))
            for c, (i, v) in enumerate(d.feats):
                coef = adv * ((1.0 if c == d.choice else 0.0) - p[c]) + entropy * ent_grad[c]
                if coef != 0.0 and len(i):
                    np.add.at(g, i, coef * v)


# ---------------------------------------------------------------------------------------------------------
# Reading the observation


def section_lines(system: str, header_words: Sequence[str]) -> List[str]:
    """Lines of the prompt block whose header names one of ``header_words`` (any header style)."""
    lines = system.split("\n")
    out: List[str] = []
    inside = False
    for ln in lines:
        s = ln.strip()
        is_header = bool(re.match(r"^(#+\s*[^\n]+|[A-Za-z\u4e00-\u9fff][^:：]{0,30}[:：]\s*)$", s)) or s == "---"
        if is_header:
            inside = any(h in s.lower() for h in header_words)
            continue
        if inside and s:
            out.append(s)
    return out


def read_skills(system: str) -> List[Tuple[str, str]]:
    """The skills the prompt lists, in any block style: lines ``name: description`` whose name is one token,
    outside the product lines (``Now presenting`` .. the lineup) and the FAQ."""
    out: List[Tuple[str, str]] = []
    lines = [ln.strip() for ln in system.split("\n")]
    start = next((i for i, ln in enumerate(lines) if re.match(r"(?i)^(now presenting|正在讲解)", ln)), -1)
    end = max([i for i, ln in enumerate(lines) if re.match(r"^link \d+ .*\(item id", ln)] + [start])
    for i, s in enumerate(lines):
        if start >= 0 and start <= i <= end:
            continue
        m = re.match(r"^(?:[-*•]\s*)?([^\s:：(]{2,48})\s*[:：]\s+(\S.{24,})$", s)
        if not m or m.group(1) in ("Q", "A") or m.group(1).lower().startswith(("http", "rule")):
            continue
        name, desc = m.group(1).lower(), m.group(2)
        # product lines wherever the variant put them: "brand: X; live price: ...", "Capacity: ...; Origin: ..."
        if name in ("brand", "options", "shipping") or re.search(r";\s*[A-Za-z][\w ]*:|live price|list price|seven-day no-reason|ships within", desc):
            continue
        if m:
            out.append((m.group(1), m.group(2)))
    seen = set()
    return [(n, d) for n, d in out if not (n in seen or seen.add(n))]


def read_rules(system: str) -> Dict[str, Any]:
    """The prompt's output rules the composer follows: a required ending, banned words, the length limit."""
    rules: Dict[str, Any] = {"ending": "", "banned": [], "max_chars": 120}
    for ln in system.split("\n"):
        if re.search(r"(?i)\b(end|finish|close)\w*\b[^\n]*\breply|reply[^\n]*\b(end|finish)", ln):
            m = re.search(r'"([^"]+)"', ln)
            if m:
                rules["ending"] = m.group(1)
        if re.search(r"(?i)banned|never to appear|do not use these words|must not use", ln):
            rules["banned"] += re.findall(r'"([^"]+)"', ln)
        m = re.search(r"at most (\d+) characters", ln)
        if m:
            rules["max_chars"] = int(m.group(1))
    return rules


def read_room(system: str, message: str, history: str) -> Dict[str, Any]:
    room: Dict[str, Any] = {}
    links = {int(n): iid for n, iid in re.findall(r"link (\d+)[^\n]*?\(item id: (it_[0-9a-f]+)", system)}
    titles = {int(n): t for n, t in re.findall(r"link (\d+) ([^\n(]+)\(item id", system)}
    room["links"], room["titles"] = links, titles
    m = re.search(r"now presenting:\s*link (\d+)", system) or re.search(r"正在讲解[:：]?\s*(\d+)", system)
    now = int(m.group(1)) if m else (min(links) if links else 1)
    m = re.search(r"link\s*(\d+)", message, re.I) or re.search(r"(\d+)\s*号", message) or re.search(r"link\s*(\d+)", history, re.I)
    room["link"] = int(m.group(1)) if m else now
    room["item"] = links.get(room["link"], "")
    m = re.search(r"viewer_id:\s*(vw_[0-9a-f]+)", system)
    room["viewer_id"] = m.group(1) if m else ""
    m = re.search(r"viewer asking:\s*([^\s(]+)", system)
    room["viewer"] = m.group(1) if m else ""
    m = re.search(r'You are "([^"]+)"', system) or re.search(r"“([^”]+)”", system)
    room["persona"] = m.group(1) if m else ""
    # facts of the product lines in the prompt: "key: value" pairs of the now-presenting block
    facts: List[Tuple[str, str]] = []
    block = re.search(r"Now presenting:\n(.*?)\nLineup", system, re.S)
    if block:
        for part in re.split(r"[;\n]", block.group(1)):
            kv = re.match(r"^\s*([A-Za-z][A-Za-z -]{1,30}):\s*(.+?)\s*$", part)
            if kv:
                facts.append(("prompt." + kv.group(1).strip(), kv.group(2)))
    room["prompt_facts"] = facts
    # two candidate links for asking back: the links whose titles share most words with the message
    mw = set(words(message))
    scored = sorted(titles, key=lambda n: (-len(mw & set(words(titles[n]))), n != now, n))
    room["ask"] = scored[:2]
    return room


@functools.lru_cache(maxsize=65536)
def mentioned(name: str, text: str) -> bool:
    """Whether the prompt's instructions (``instructions(system)``) name ``name``."""
    return re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text) is not None


def instructions(system: str) -> str:
    """The prompt without the tool lists it may carry (JSON lines, signature lines)."""
    return "\n".join(ln for ln in system.split("\n") if not ln.lstrip().startswith("{") and "(" not in ln.split(":")[0][:60])


_PARSED: Dict[Any, Any] = {}


def parse(system: str, message: str, history: str) -> Any:
    """The prompt and message as the policy reads them (cached per observation)."""
    key = (system, message, history)
    got = _PARSED.get(key)
    if got is None:
        if len(_PARSED) > 2000:
            _PARSED.clear()
        got = _PARSED[key] = (read_skills(system), read_rules(system), read_room(system, message, history), instructions(system))
    return got


def unwrap_params(params: Dict[str, Any]) -> Tuple[Optional[str], Dict[str, Any], List[str]]:
    """A variant may wrap the arguments in one object parameter: (wrapper key, inner properties, required)."""
    props = params.get("properties") or {}
    if len(props) == 1:
        (k, v), = props.items()
        if isinstance(v, dict) and v.get("type") == "object" and "properties" in v:
            return k, v["properties"], list(v.get("required") or [])
    return None, props, list(params.get("required") or [])


def leaves(value: Any, message: str, prefix: str = "") -> List[Tuple[str, str]]:
    """Scalar fields of a tool result as (key path, value); of a list of objects, the element whose text
    shares most words with the message (its text fields joined form the answer's subject)."""
    out: List[Tuple[str, str]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += leaves(v, message, f"{prefix}.{k}" if prefix else k)
    elif isinstance(value, list):
        if value and all(isinstance(e, dict) for e in value):
            mw = set(words(message))
            best = max(value, key=lambda e: len(mw & set(words(" ".join(str(x) for x in e.values() if isinstance(x, str))))))
            out += leaves(best, message, prefix)
        elif value and all(not isinstance(e, (dict, list)) for e in value):
            out.append((prefix, ", ".join(str(e) for e in value)))
    elif value is not None and not isinstance(value, bool):
        s = str(value)
        # an enum-like value reads as words ("in_stock" -> "in stock"), as a reply would say it
        if re.match(r"^[a-z]+(_[a-z]+)+$", s):
            s = s.replace("_", " ")
        if len(s) <= LEAF_CHARS and not re.match(r"^(it|sk|vw|od|cp|fq)_", s):
            out.append((prefix, s))
    elif isinstance(value, bool):
        out.append((prefix, "yes" if value else "no"))
    return out


NAMED_LINK = re.compile(r"link\s*\d+|\d+\s*号", re.I)


def fact_content(key: str, value: str, message: str) -> List[str]:
    """Content features of a candidate fact, the same for any harness: whether a word of its key occurs in
    the viewer's message ("shelf life?" and the key ``attributes.Shelf life``), and the value's shape (a
    number, a short enum-like word such as "low" or "in stock", or longer text)."""
    mw = set(words(message)) - STOP
    kw = {w for w in words(key.split(".")[-1]) if w not in STOP and w != "<num>"}
    out = ["key_in_msg"] if mw & kw else []
    v = value.strip().lower()
    if re.fullmatch(r"[\d.]+", v):
        out.append("v=<num>")
    elif re.fullmatch(r"[a-z]+( [a-z]+)?", v):
        out.append("v=" + v)
    else:
        out.append("v=<text>")
    return out


# ---------------------------------------------------------------------------------------------------------
# Templates per locale

TEMPLATES = {
    "en": {
        "answer": "{subj}: {facts}.",
        "fact": "the {key} is {value}",
        "join": ", ",
        "answer_none": "Let me double-check that for you.",
        "refuse": "Sorry, I can't help with that here; please see the details page.",
        "ask_back": "Do you mean link {a} or link {b}? Tell me and I will check right away.",
        "handoff": "So sorry! I've passed this to our human support team; watch for their message.",
        "cta": "Link {link} is in the cart now, tap it to order.",
        "greet": "Hi {viewer}, welcome! I'm {persona}, the AI digital host here. Ask me anything!",
    },
    "zh-CN": {
        "answer": "{subj}的{facts}。",
        "fact": "{key}是{value}",
        "join": "，",
        "answer_none": "我再帮你确认一下哦。",
        "refuse": "抱歉，这个我不能说也不能帮忙，详情请看商品详情页。",
        "ask_back": "你问的是{a}号链接还是{b}号链接呢？告诉我马上帮你查。",
        "handoff": "非常抱歉！已经帮你转给人工客服了，请留意消息。",
        "cta": "{link}号链接已经在购物车里啦，点进去就能下单。",
        "greet": "欢迎{viewer}！我是{persona}，这个直播间的AI数字人主播，有问题随时问我。",
    },
}


# ---------------------------------------------------------------------------------------------------------
# One episode


class Agent:
    """One episode's play: the decisions it took (for the gradient) and its conversation state."""

    def __init__(self, model: Model, obs: Dict[str, Any], greedy: bool) -> None:
        self.model, self.greedy = model, greedy
        self.decisions: List[Decision] = []
        #: The reward segment each decision belongs to (info.segments: "tool" or "reply").
        self.segments: List[str] = []
        msgs = obs["messages"]
        self.system = next((m.get("content") or "" for m in msgs if m["role"] == "system"), "")
        users = [m for m in msgs if m["role"] == "user"]
        self.message = (users[-1].get("content") or "") if users else ""
        history = " ".join(m.get("content") or "" for m in msgs[:-1] if m["role"] in ("user", "assistant"))
        self.locale = "zh-CN" if re.search(r"[\u4e00-\u9fff]", self.message) else "en"
        self.tools = [t["function"] for t in obs.get("tools") or []]
        self.skills, self.rules, self.room, self.instr = parse(self.system, self.message, history)
        self.mt = msg_tokens(self.message)
        self.turn = 0
        self.results: List[Any] = []
        self.reply: Optional[str] = None
        self.call_id = 0
        #: The skill loaded on turn 1 (name, description), or None.
        self.skill: Optional[Tuple[str, str]] = None

    def _pick(self, feats: List[Feats]) -> int:
        d = self.model.choose(feats, self.greedy)
        self.decisions.append(d)
        self.segments.append("reply" if self.turn > 1 else "tool")
        return d.choice

    def _call(self, tool: Dict[str, Any], args: Dict[str, Any]) -> Dict[str, Any]:
        self.call_id += 1
        return {"id": f"c{self.turn}_{self.call_id}", "type": "function",
                "function": {"name": tool["name"], "arguments": json.dumps(args, ensure_ascii=False)}}

    def _args(self, tool: Dict[str, Any]) -> Dict[str, Any]:
        wrap, props, required = unwrap_params(tool.get("parameters") or {})
        args: Dict[str, Any] = {}
        values = {"LINK": self.room["link"], "ITEM": self.room["item"], "VIEWER": self.room["viewer_id"], "MSG": self.message}
        for p, spec in props.items():
            spec = spec if isinstance(spec, dict) else {}
            pdesc = str(spec.get("description") or "")
            if spec.get("enum"):
                opts = [str(e) for e in spec["enum"]]
                feats = [concat(cross("enum", self.mt, "", "", extra=[e]), cross("enum", ["<p>"], p, pdesc, extra=[e])) for e in opts]
                if p not in required:
                    opts.append("")
                    feats.append(cross("enum", self.mt, "", "", extra=["<omit>"]))
                v = opts[self._pick(feats)]
                if v:
                    args[p] = v
                continue
            slots = [s for s in SLOTS if s != "OMIT" or p not in required]
            typ = str(spec.get("type") or "none")
            feats = [cross("arg", [s], p, pdesc, extra=["type=" + typ]) for s in slots]
            s = slots[self._pick(feats)]
            if s != "OMIT":
                args[p] = values[s]
        return {wrap: args} if wrap else args

    def act(self, obs: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        self.turn += 1
        if self.turn == 1:
            return self._first()
        if obs is not None:
            for m in obs.get("messages") or []:
                if m["role"] == "tool":
                    try:
                        self.results.append(json.loads(m.get("content") or ""))
                    except ValueError:
                        pass
        if self.reply is None:
            self.reply = self._finish(self._compose())
        return {"message": {"role": "assistant", "content": self.reply}}

    def _first(self) -> Dict[str, Any]:
        calls = []
        tools = self.tools
        if tools and self.skills:
            # which offered tool loads skills: name and description alone (no message)
            # a content feature too: whether the skills block of the prompt mentions the tool by name
            li = self._pick([cross("loader", ["<bias>"], t["name"], t.get("description") or "",
                                   extra=["mentioned"] if mentioned(t["name"], self.instr) else []) for t in tools])
            loader = tools[li]
            si = self._pick([cross("skill", self.mt, n, d) for n, d in self.skills])
            self.skill = self.skills[si]
            wrap, props, _ = unwrap_params(loader.get("parameters") or {})
            key = next(iter(props), "name")
            args = {key: self.skills[si][0]}
            calls.append(self._call(loader, {wrap: args} if wrap else args))
        # which other offered tool to call (the one chosen as the skill loader is not offered again)
        others = [t for t in tools if not calls or t["name"] != calls[0]["function"]["name"]]
        # the tool also depends on the skill just loaded (its name crossed with each tool's name and
        # description), as an agent reads the skill before it calls: "price" -> product-qa -> get_product
        sk = ["S=" + x for x in name_tokens(self.skill[0])] if self.skill else ["S=<none>"]
        feats = [concat(cross("tool", self.mt, t["name"], t.get("description") or ""),
                        cross("tool/skill", sk, t["name"], t.get("description") or "")) for t in others]
        feats.append(concat(cross("tool", self.mt, "", "", extra=["<none>"]), cross("tool/skill", sk, "", "", extra=["<none>"])))
        ti = self._pick(feats)
        if ti < len(others):
            calls.append(self._call(others[ti], self._args(others[ti])))
        self.calls = calls
        return {"message": {"role": "assistant", "content": None, "tool_calls": calls}}

    def _finish(self, text: str) -> str:
        """Apply the prompt's output rules: banned words out, the required ending, the length limit
        (sentences dropped from the end until it fits)."""
        for w in self.rules["banned"]:
            text = re.sub(re.escape(w), "", text, flags=re.I)
        end = self.rules["ending"]
        # a period between digits ("89.9") is a decimal point, not a sentence's end (round 1 split it and
        # the reply said "89. 9": two ungrounded numbers, blocked by the factual-risk hook)
        sentences = re.findall(r"(?:[^.!?。！？]|(?<=\d)\.(?=\d))+[.!?。！？]?", text)
        while True:
            out = " ".join(x.strip() for x in sentences) + ((" " + end) if end else "")
            if len(out) <= self.rules["max_chars"] or len(sentences) <= 1:
                return out.strip()
            sentences = sentences[:-1]

    def _compose(self) -> str:
        # the reply's kind depends on the message and on the skill loaded (its name and description)
        sname, sdesc = self.skill if self.skill else ("", "")
        # no bias token and no "had a tool result" token here: features shared by every message let the
        # kinds the other intents learn first (greet, refuse, ask back, hand off) crowd out "answer" before
        # any product_qa answer had landed (round 1)
        mt = [t for t in self.mt if t != "<bias>"]
        k = KINDS[self._pick([concat(cross("kind", mt, "", "", extra=[kind]),
                                     cross("kind/skill", ["K=" + kind], sname, sdesc)) for kind in KINDS])]
        t = TEMPLATES[self.locale]
        room = self.room
        if k == "answer":
            cands: List[Tuple[str, str]] = []
            for r in self.results:
                if isinstance(r, dict) and "error" not in r:
                    cands += leaves(r, self.message)
            cands += room["prompt_facts"]
            cands = cands[:60]
            if not cands:
                return t["answer_none"]
            feats = [concat(cross("fact", self.mt, "", "", extra=["k=" + p for p in re.split(r"[._ ]+", key.lower()) if p] + ["K=" + key.split(".")[-1].lower()]),
                            cross("fact", ["<c>"], "", "", extra=fact_content(key, value, self.message))) for key, value in cands]
            # how many facts to state (1-3, a decision of its own), then each fact, without replacement
            n = 1 + self._pick([cross("nfacts", self.mt, "", "", extra=[f"n={k}"]) for k in range(1, MAX_FACTS + 1)]) if MAX_FACTS > 1 else 1
            chosen: List[int] = []
            for _ in range(min(n, len(cands))):
                left = [i for i in range(len(cands)) if i not in chosen]
                chosen.append(left[self._pick([feats[i] for i in left])])
            # the subject names the link only when the viewer did (a link number nobody asked about is a
            # number outside the question's scope)
            if NAMED_LINK.search(self.message):
                subj = f"Link {room['link']}" if self.locale == "en" else f"{room['link']}号链接"
            else:
                subj = "This one" if self.locale == "en" else "这款"
            # facts that do not fit the length limit are left out from the end (the reply_format hook blocks
            # a reply over the limit); a fact too long for its "the key is" frame is stated as its value
            parts = [t["fact"].format(key=cands[i][0].split(".")[-1].replace("_", " "), value=cands[i][1]) for i in chosen]
            limit = self.rules["max_chars"] - (len(self.rules["ending"]) + 1 if self.rules["ending"] else 0)
            while len(parts) > 1 and len(t["answer"].format(subj=subj, facts=t["join"].join(parts))) > limit:
                parts.pop()
            text = t["answer"].format(subj=subj, facts=t["join"].join(parts))
            if len(text) > limit:
                text = t["answer"].format(subj=subj, facts=cands[chosen[0]][1])
            return text
        if k == "ask_back":
            a, b = (room["ask"] + [room["link"], room["link"] + 1])[:2]
            return t["ask_back"].format(a=a, b=b)
        if k == "cta":
            return t["cta"].format(link=room["link"])
        if k == "greet":
            return t["greet"].format(viewer=room["viewer"] or "there", persona=room["persona"] or "your host")
        return t[k]
