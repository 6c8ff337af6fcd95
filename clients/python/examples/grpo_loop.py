#!/usr/bin/env python3
"""A minimal GRPO-style rollout loop over harness-gym: groups, rewards, per-group advantages.

This is the skeleton a verl / OpenRLHF / TRL user adapts: keep ``num_envs`` episodes in flight over one
WebSocket session, in groups of ``group_size`` siblings that share a task and a harness variant; when a
group finishes, compute each member's advantage against its own group; hand (trajectory, advantage)
pairs to the trainer's policy-gradient step.

The policy is a model behind an OpenAI-compatible chat-completions endpoint (``--base-url``: vLLM,
SGLang, or ``harness-gym policy``, which answers with a reference policy so the loop runs without a GPU),
or, without ``--base-url``, a STUB that is clearly not a model: it makes a random tool call or a short
random reply, and with probability ``--p-oracle`` plays the server's oracle hint (``info.oracle_action``, a
testing aid that needs ``serve --allow-oracle-hints``). Replace ``update`` with your trainer's step.

    npx harness-gym serve                                   # the quick-start server
    npx harness-gym policy --policy memorizer --port 8000   # a "model" fine-tuned on the base harness
    python3 clients/python/examples/grpo_loop.py --base-url http://127.0.0.1:8000/v1 --model memorizer --variant train

The memorizer scores about 1 on ``--variant identity`` and close to 0 on ``train``: the gap HSA trains away.

Prints one JSON line per iteration and a final summary line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import urllib.error
import urllib.request
from collections import deque
from typing import Any, Deque, Dict, List, Optional, Tuple

try:
    import harness_gym  # noqa: F401  (installed: see clients/python/README.md "Install")
except ImportError:  # run in place from a checkout: the package is in the folder above this one
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from harness_gym import AsyncVectorEnv, GroupResult, HarnessGymClient, HarnessGymError  # noqa: E402


class EndpointPolicy:
    """The model: one chat completion per turn from an OpenAI-compatible endpoint, with the slot's whole
    conversation and the episode's own tools; its assistant message is the action."""

    def __init__(self, base_url: str, model: str, api_key: Optional[str]) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key

    def _complete(self, messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
        body: Dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            body["tools"] = tools
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                reply = json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            raise EndpointError(f"{self.url} answered HTTP {e.code}: {e.read().decode('utf-8', 'replace')[:300]}") from None
        except (urllib.error.URLError, OSError) as e:
            raise EndpointError(f"cannot reach {self.url} ({e}); is the endpoint running?") from None
        message = reply["choices"][0]["message"]
        out: Dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            out["tool_calls"] = message["tool_calls"]
        return {"message": out}

    async def act_all(self, turns: List[Optional[Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]]]) -> List[Optional[Dict[str, Any]]]:
        """One action per live slot (None for the others), the requests in flight together."""
        async def one(t: Optional[Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]]) -> Optional[Dict[str, Any]]:
            return None if t is None else await asyncio.to_thread(self._complete, t[0], t[1])

        return list(await asyncio.gather(*(one(t) for t in turns)))

    def update(self, batch: List[Dict[str, Any]]) -> None:
        """Where the trainer's GRPO step goes: loss = -advantage * logprob(trajectory) (+ KL, clipping)."""
        del batch


class EndpointError(Exception):
    """The model endpoint failed (one line to print)."""


class StubPolicy:
    """STUB POLICY (not a model): oracle hint with probability ``p_oracle``, else a random action."""

    def __init__(self, p_oracle: float, seed: int) -> None:
        self.p_oracle = p_oracle
        self.rng = random.Random(seed)

    async def act_all(self, turns: List[Optional[Tuple[List[Dict[str, Any]], List[Dict[str, Any]], Dict[str, Any]]]]) -> List[Optional[Dict[str, Any]]]:
        """One action per live slot (None for the others)."""
        return [None if t is None else self.act(*t) for t in turns]

    def act(self, messages: List[Dict[str, Any]], tools: List[Dict[str, Any]], info: Dict[str, Any]) -> Dict[str, Any]:
        """One assistant turn for one episode, as a protocol Action."""
        hint = info.get("oracle_action")
        if hint is not None and self.rng.random() < self.p_oracle:
            return hint
        if tools and self.rng.random() < 0.5:
            tool = self.rng.choice(tools)["function"]["name"]
            call = {"id": f"call_{self.rng.randrange(10**6)}", "type": "function", "function": {"name": tool, "arguments": "{}"}}
            return {"message": {"role": "assistant", "content": None, "tool_calls": [call]}}
        return {"text": self.rng.choice(["亲，稍等一下哦", "好的宝宝，马上为你查看", "Thanks for asking!"])}

    def update(self, batch: List[Dict[str, Any]]) -> None:
        """Where the trainer's GRPO step goes: loss = -advantage * logprob(trajectory) (+ KL, clipping)."""
        del batch


async def run(args: argparse.Namespace) -> Dict[str, Any]:
    """Roll out ``iterations`` batches of ``groups_per_batch`` finished groups each."""
    client = await HarnessGymClient.connect(args.url, seed=args.seed)
    options = {"variant": args.variant, "max_turns": args.max_turns}
    if args.base_url is None and args.p_oracle > 0:
        options["oracle_hints"] = True
    env = AsyncVectorEnv(client, args.num_envs, group_size=args.group_size, seed=args.seed, options=options)
    policy: Any = EndpointPolicy(args.base_url, args.model, args.api_key) if args.base_url else StubPolicy(args.p_oracle, args.seed)

    observations, infos = await env.reset()
    # The client keeps each slot's conversation: delta observations omit the agent's own turns.
    messages: List[List[Dict[str, Any]]] = [list(o["messages"]) for o in observations]
    tools: List[List[Dict[str, Any]]] = [list(o.get("tools", [])) for o in observations]
    last_info: List[Dict[str, Any]] = list(infos)

    history: List[Dict[str, Any]] = []
    # Finished groups not yet in a batch, each with its members' training entries. One step can finish
    # several groups (their last members end on the same step), so a batch may fill past
    # groups_per_batch: the surplus waits here for the next batch instead of making this one larger.
    pending: Deque[Tuple[GroupResult, List[Dict[str, Any]]]] = deque()
    for iteration in range(args.iterations):
        while len(pending) < args.groups_per_batch:
            if isinstance(policy, EndpointPolicy):
                actions = await policy.act_all([(messages[i], tools[i]) if live else None for i, live in enumerate(env.live)])
            else:
                actions = await policy.act_all([(messages[i], tools[i], last_info[i]) if live else None for i, live in enumerate(env.live)])
            observations, rewards, terminated, truncated, infos = await env.step(actions)
            for i, obs in enumerate(observations):
                if obs is None:
                    continue  # waiting for its siblings
                if infos[i].get("autoreset"):
                    messages[i], tools[i] = list(obs["messages"]), list(obs.get("tools", []))
                else:
                    action = actions[i] or {}
                    messages[i].append(action.get("message") or {"role": "assistant", "content": action.get("text", "")})
                    messages[i].extend(obs["messages"])
                    if "tools" in obs:
                        tools[i] = list(obs["tools"])
                last_info[i] = infos[i]
            for group in env.finished_groups():
                # GRPO: each member's advantage is relative to its own group (same task, same harness).
                # The conversations are copied now: the slots' next step starts their next group.
                entries = [
                    {"group_id": group.group_id, "messages": list(messages[slot]), "reward": reward, "advantage": advantage}
                    for slot, reward, advantage in zip(group.slots, group.rewards, group.advantages())
                ]
                pending.append((group, entries))
        taken = [pending.popleft() for _ in range(args.groups_per_batch)]
        groups = [group for group, _ in taken]
        batch = [entry for _, entries in taken for entry in entries]
        policy.update(batch)
        all_rewards = [r for g in groups for r in g.rewards]
        line = {
            "iteration": iteration,
            "groups": len(groups),
            "episodes": len(all_rewards),
            "mean_reward": round(sum(all_rewards) / len(all_rewards), 4),
            # Groups whose members all scored the same carry no GRPO signal.
            "groups_with_signal": sum(1 for g in groups if max(g.rewards) > min(g.rewards)),
            "max_abs_group_advantage_sum": round(max(abs(sum(g.advantages())) for g in groups), 9),
            # Finished groups left for the next batch.
            "groups_carried_over": len(pending),
        }
        history.append(line)
        print(json.dumps(line), flush=True)
    await env.close()
    await client.close()
    return {
        "summary": True,
        "iterations": args.iterations,
        "mean_reward": round(sum(h["mean_reward"] for h in history) / len(history), 4),
        "episodes": sum(h["episodes"] for h in history),
    }


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("HARNESS_GYM_URL", "ws://127.0.0.1:8080/v1/env"))
    parser.add_argument("--num-envs", type=int, default=32)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--groups-per-batch", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", default="train")
    parser.add_argument("--max-turns", type=int, default=6)
    parser.add_argument("--base-url", help="the model: an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (harness-gym policy)")
    parser.add_argument("--model", default="memorizer", help="model name sent to the endpoint")
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY"))
    parser.add_argument(
        "--p-oracle",
        type=float,
        default=0.0,
        help="stub policy (no --base-url): chance of playing the oracle hint; above 0 needs serve --allow-oracle-hints",
    )
    args = parser.parse_args()
    try:
        print(json.dumps(asyncio.run(run(args))))
    except EndpointError as e:
        print(f"grpo_loop.py: {e}", file=sys.stderr)
        sys.exit(3)
    except HarnessGymError as e:
        if "oracle_hints" in str(e):
            print("grpo_loop.py: this server does not allow oracle hints: run with --p-oracle 0 (the default) or --base-url, or start the server with --allow-oracle-hints", file=sys.stderr)
        else:
            print(f"grpo_loop.py: the server refused: {e}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print(f"grpo_loop.py: cannot reach {args.url} ({e}); start a server with `npx harness-gym serve`", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
