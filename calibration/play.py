#!/usr/bin/env python3
"""Play one harness-gym episode by hand, turn by turn, from a shell: the way the graded corpus is made.

A person (or an agent acting as the policy) starts an episode, reads what the policy would read (the
system prompt, the viewer's messages, the tools), then sends one assistant turn at a time. Each command
prints only what the environment added. The reward, the answer key and ``info`` are never printed: the
player plays blind, as a policy does.

    play.py start NAME --seed 7 --locale en --variant train [--intent product_qa] [--url ws://...]
    play.py call NAME TOOL '{"arg": 1}' [TOOL '{...}' ...]    # one turn with one or more tool calls
    play.py reply NAME "the spoken reply"                      # one turn with a final reply
    play.py show NAME                                          # the whole conversation so far, and the tools
    play.py stop NAME                                          # close the episode early

`start` leaves a small process behind holding the WebSocket session (unix socket in $HGYM_PLAY_DIR,
default /tmp/hgym-play); it exits when the episode ends or on `stop`. The episode id on the server is
NAME, so a server started with `--record DIR` files the record under it.

Runs with Debian's python3 and the packages python3-websockets and python3-msgpack, from the
repository root (it imports clients/python in place).
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))

PLAY_DIR = os.environ.get("HGYM_PLAY_DIR", "/tmp/hgym-play")


def sock_path(name: str) -> str:
    return os.path.join(PLAY_DIR, f"{name}.sock")


def render_tools(tools: List[Dict[str, Any]]) -> str:
    out = []
    for t in tools:
        f = t.get("function", {})
        params = json.dumps(f.get("parameters", {}), ensure_ascii=False)
        out.append(f"- {f.get('name')}: {f.get('description', '(no description)')}\n  parameters: {params}")
    return "\n".join(out)


def render_messages(messages: List[Dict[str, Any]]) -> str:
    out = []
    for m in messages:
        role = m.get("role")
        if role == "tool":
            out.append(f"[tool result for {m.get('tool_call_id')}]\n{m.get('content')}")
        elif role == "assistant":
            calls = m.get("tool_calls") or []
            text = m.get("content") or ""
            parts = [f"[assistant] {text}".rstrip()]
            for c in calls:
                fn = c.get("function", {})
                parts.append(f"  call {c.get('id')}: {fn.get('name')}({fn.get('arguments')})")
            out.append("\n".join(parts))
        else:
            out.append(f"[{role}]\n{m.get('content')}")
    return "\n\n".join(out)


def serve(args: argparse.Namespace) -> None:
    """The daemon: reset, print the first observation to the parent through a pipe, then answer turns."""
    from harness_gym import HarnessGymEnv

    env = HarnessGymEnv(args.url, timeout_s=120.0)
    options: Dict[str, Any] = {"episode_id": args.name, "locale": args.locale, "variant": args.variant}
    task: Dict[str, Any] = {}
    if args.intent:
        task["intent"] = args.intent
    if args.task_split:
        task["split"] = args.task_split
    if task:
        options["task"] = task
    obs, _info = env.reset(seed=args.seed, options=options)
    first = render_messages(obs.get("messages", [])) + "\n\n[tools]\n" + render_tools(obs.get("tools", []))
    os.makedirs(PLAY_DIR, exist_ok=True)
    path = sock_path(args.name)
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    sys.stdout.write(first + "\n")
    sys.stdout.flush()
    os.close(1)
    turn = 0
    done = False
    while not done:
        conn, _ = srv.accept()
        with conn:
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            req = json.loads(data.decode("utf-8"))
            if req["op"] == "show":
                text = render_messages(env.messages) + "\n\n[tools]\n" + render_tools(env.tools)
            elif req["op"] == "stop":
                text = "episode closed"
                done = True
            else:
                turn += 1
                if req["op"] == "reply":
                    message = {"role": "assistant", "content": req["text"]}
                else:
                    calls = [
                        {"id": f"call_{turn}_{i}", "type": "function",
                         "function": {"name": n, "arguments": json.dumps(a, ensure_ascii=False)}}
                        for i, (n, a) in enumerate(req["calls"])
                    ]
                    message = {"role": "assistant", "content": None, "tool_calls": calls}
                try:
                    obs, _r, terminated, truncated, info = env.step({"message": message})
                    text = render_messages(obs.get("messages", []))
                    if "tools" in obs:
                        text += "\n\n[tools changed]\n" + render_tools(obs["tools"])
                    if terminated or truncated:
                        text += f"\n\nEPISODE ENDED (outcome: {info.get('outcome')})"
                        done = True
                except Exception as err:  # an item error: say it, the episode is unchanged
                    text = f"ERROR: {err}"
            conn.sendall(text.encode("utf-8"))
    srv.close()
    os.unlink(path)
    env.close()


def send(name: str, req: Dict[str, Any]) -> None:
    path = sock_path(name)
    if not os.path.exists(path):
        sys.exit(f"play.py: no live episode named {name!r} (start one with: play.py start {name} --seed N)")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall((json.dumps(req, ensure_ascii=False) + "\n").encode("utf-8"))
    s.shutdown(socket.SHUT_WR)
    out = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
    print(out.decode("utf-8"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    st = sub.add_parser("start")
    st.add_argument("name")
    st.add_argument("--seed", type=int, required=True)
    st.add_argument("--locale", default="en", choices=["en", "zh-CN"])
    st.add_argument("--variant", default="identity")
    st.add_argument("--intent")
    st.add_argument("--task-split", choices=["train", "eval"])
    st.add_argument("--url", default=os.environ.get("HGYM_URL", "ws://127.0.0.1:8080/v1/env"))
    st.add_argument("--daemon", action="store_true", help=argparse.SUPPRESS)
    c = sub.add_parser("call")
    c.add_argument("name")
    c.add_argument("pairs", nargs="+", help="TOOL JSON_ARGS [TOOL JSON_ARGS ...]")
    r = sub.add_parser("reply")
    r.add_argument("name")
    r.add_argument("text")
    for cmd in ("show", "stop"):
        x = sub.add_parser(cmd)
        x.add_argument("name")
    args = p.parse_args()

    if args.cmd == "start":
        if args.daemon:
            serve(args)
            return
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            os.setsid()
            os.dup2(wfd, 1)
            os.close(wfd)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            try:
                serve(args)
            except Exception as err:
                os.write(1, f"ERROR: {err}\n".encode())
            os._exit(0)
        os.close(wfd)
        with os.fdopen(rfd, "rb") as f:
            print(f.read().decode("utf-8"), end="")
        return
    if args.cmd == "call":
        if len(args.pairs) % 2 != 0:
            sys.exit("play.py: call takes TOOL JSON_ARGS pairs")
        calls = []
        for i in range(0, len(args.pairs), 2):
            try:
                calls.append((args.pairs[i], json.loads(args.pairs[i + 1])))
            except json.JSONDecodeError as err:
                sys.exit(f"play.py: arguments of {args.pairs[i]} are not JSON ({err})")
        send(args.name, {"op": "call", "calls": calls})
    elif args.cmd == "reply":
        send(args.name, {"op": "reply", "text": args.text})
    else:
        send(args.name, {"op": args.cmd})


if __name__ == "__main__":
    main()
