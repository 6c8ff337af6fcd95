#!/usr/bin/env python3
"""Print recorded episodes as a reviewer grades them: what the policy saw and did, never the reward.

    transcript.py FILE_OR_DIR [--episode ID ...] [--list]

For each episode: the system prompt, the viewer's messages, every tool call with its result, every
hook feedback and the final reply. The reward, its reasons and the answer key are left out on purpose:
a grader who sees them grades the reward, not the reply.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from typing import Any, Dict, Iterator, List

import msgpack


def records(path: str) -> Iterator[Dict[str, Any]]:
    files = [path]
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".hgrec"))
    for f in files:
        with open(f, "rb") as fh:
            unpacker = msgpack.Unpacker(fh, raw=False, strict_map_key=False)
            for value in unpacker:
                if isinstance(value, dict) and value.get("type") == "episode":
                    yield value


def action_text(action: Dict[str, Any]) -> str:
    if "text" in action:
        return f"[assistant, raw text]\n{action['text']}"
    m = action.get("message", {})
    parts = []
    if m.get("content"):
        parts.append(f"[assistant reply]\n{m['content']}")
    for c in m.get("tool_calls") or []:
        fn = c.get("function", {})
        parts.append(f"[assistant calls] {fn.get('name')}({fn.get('arguments')})  id={c.get('id')}")
    return "\n".join(parts) if parts else "[assistant] (empty)"


def messages_text(messages: List[Dict[str, Any]], skip_system: bool = False) -> str:
    out = []
    for m in messages:
        role = m.get("role")
        if role == "system" and skip_system:
            continue
        if role == "tool":
            out.append(f"[tool result {m.get('tool_call_id')}]\n{m.get('content')}")
        else:
            out.append(f"[{role}]\n{m.get('content')}")
    return "\n\n".join(out)


def alias(episode_id: str) -> str:
    """An opaque name for an episode, so that a reviewer does not read a planted flaw off its id."""
    return "ep-" + hashlib.sha1(episode_id.encode("utf-8")).hexdigest()[:10]


def show(rec: Dict[str, Any], name: str) -> str:
    reset = msgpack.unpackb(rec["reset"]["out"], raw=False, strict_map_key=False)
    obs = reset["observation"]
    tools = [t["function"]["name"] for t in obs.get("tools", [])]
    lines = [f"=== episode {name} (locale {rec['task']['locale']}) ===", messages_text(obs["messages"])]
    lines.append("[tools offered] " + ", ".join(tools))
    for step in rec["steps"]:
        lines.append(action_text(step["action"]))
        if "error" in step:
            lines.append(f"[refused action: {step['error'].get('code')}: {step['error'].get('message')}]")
            continue
        out = msgpack.unpackb(step["out"], raw=False, strict_map_key=False)
        text = messages_text(out["observation"].get("messages", []))
        if text:
            lines.append(text)
        if out.get("terminated") or out.get("truncated"):
            lines.append(f"[episode ended: {out['info'].get('outcome')}]")
    # A harness in auto-correct mode repairs a reply's form (emoji, Markdown) and airs the repaired text:
    # the reviewer grades what went on air, so show it when it differs from what the agent wrote.
    aired = rec.get("trace", {}).get("final_reply")
    last = None
    for step in rec["steps"]:
        content = step["action"].get("message", {}).get("content") if "message" in step["action"] else step["action"].get("text")
        if content:
            last = content
    if aired is not None and last is not None and aired != last:
        lines.append(f"[aired: the hook auto-corrected the reply's form before it went on air]\n{aired}")
    final = rec.get("trace", {}).get("final_state", {})
    lines.append("[world changes made by the agent] " + json.dumps(final, ensure_ascii=False))
    return "\n\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path")
    p.add_argument("--episode", action="append", default=[])
    p.add_argument("--list", action="store_true")
    p.add_argument("--blind", action="store_true", help="name episodes by opaque aliases (ep-...) instead of their ids")
    p.add_argument("--prefix", default="", help="only episode ids starting with this")
    a = p.parse_args()
    found = 0
    for rec in records(a.path):
        eid = rec["episode_id"]
        name = alias(eid) if a.blind else eid
        if not eid.startswith(a.prefix):
            continue
        if a.episode and eid not in a.episode and name not in a.episode:
            continue
        found += 1
        if a.list:
            print(name)
        else:
            print(show(rec, name) + "\n")
    if found == 0:
        sys.exit("transcript.py: no matching episode records")


if __name__ == "__main__":
    main()
