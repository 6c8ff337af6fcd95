#!/usr/bin/env python3
"""Reset 64 episodes in one batch, step them by playing the server's oracle hints, print the mean reward.

The server must run with oracle hints allowed (a testing switch, never for training):

    npx harness-gym serve --allow-oracle-hints
    python3 clients/python/examples/oracle_hints.py --url ws://127.0.0.1:8080/v1/env

Prints one JSON line: {"episodes", "mean_reward", "rewards": [...per episode...], "seeds": [...], ...}.
Episode i uses seed ``seed + i``, so the numbers equal the in-process TypeScript oracle's for those seeds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any, Dict, List

try:
    import harness_gym  # noqa: F401  (installed: see clients/python/README.md "Install")
except ImportError:  # run in place from a checkout: the package is in the folder above this one
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from harness_gym import HarnessGymClient, HarnessGymError, unwrap  # noqa: E402

#: What to do when the server does not allow oracle hints (a testing switch, off by default).
NO_HINTS = (
    "this server does not allow oracle hints: start one with `npx harness-gym serve --allow-oracle-hints` "
    "(a testing aid, never for training), or play a model instead: examples/grpo_loop.py --base-url"
)


async def play(url: str, episodes: int, seed: int, variant: str, encoding: str, faults: float, locale: str) -> Dict[str, Any]:
    """Play ``episodes`` oracle episodes in lock-step batches; returns the summary."""
    async with await HarnessGymClient.connect(url, encoding=encoding) as client:
        options: Dict[str, Any] = {"oracle_hints": True, "locale": locale}
        if faults:
            options["faults"] = faults
        ids = [f"oracle-{i}" for i in range(episodes)]
        # One reset frame for the whole batch (the client splits only past limits.max_batch).
        results = [
            unwrap(r)
            for r in await client.reset(
                [{"episode_id": ids[i], "seed": seed + i, "variant": variant, "options": options} for i in range(episodes)]
            )
        ]
        hints = {r["episode_id"]: r["info"]["oracle_action"] for r in results}
        rewards: Dict[str, float] = {}
        outcomes: Dict[str, str] = {}
        steps = 0
        while hints:
            batch = [{"episode_id": eid, "action": action} for eid, action in hints.items()]
            hints = {}
            for r in map(unwrap, await client.step(batch)):
                steps += 1
                if r["terminated"] or r["truncated"]:
                    rewards[r["episode_id"]] = r["reward"]
                    outcomes[r["episode_id"]] = r["info"]["outcome"]
                else:
                    hints[r["episode_id"]] = r["info"]["oracle_action"]
        await client.close_episodes(ids)
    per_episode: List[float] = [rewards[eid] for eid in ids]
    return {
        "episodes": episodes,
        "variant": variant,
        "mean_reward": round(sum(per_episode) / len(per_episode), 4),
        "steps": steps,
        "seeds": [seed + i for i in range(episodes)],
        "rewards": per_episode,
        "outcomes": [outcomes[eid] for eid in ids],
    }


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("HARNESS_GYM_URL", "ws://127.0.0.1:8080/v1/env"))
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", default="train", help="identity | train | eval")
    parser.add_argument("--encoding", default="msgpack", choices=["msgpack", "json"])
    parser.add_argument("--faults", type=float, default=0.0, help="injected tool-fault rate in [0, 1]")
    parser.add_argument("--locale", default="zh-CN", choices=["zh-CN", "en"])
    args = parser.parse_args()
    try:
        summary = asyncio.run(play(args.url, args.episodes, args.seed, args.variant, args.encoding, args.faults, args.locale))
    except HarnessGymError as e:
        # One line that says what to do, never a traceback.
        hint = NO_HINTS if "oracle_hints" in str(e) else f"the server refused: {e}"
        print(f"oracle_hints.py: {hint}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print(f"oracle_hints.py: cannot reach {args.url} ({e}); start a server with `npx harness-gym serve --allow-oracle-hints`", file=sys.stderr)
        sys.exit(3)
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    main()
