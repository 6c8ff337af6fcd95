"""A worker process of test_train_groups: plays the dataset samples given on stdin over its shared pool.

argv[1]: a JSON file ``{"url": ..., "samples": [row + sample_index, ...]}``; stdout: one JSON list, per sample its row id,
sample index, task id, variant id, final reward and session id.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from harness_gym.train import row_reset_item, shared_pool  # noqa: E402


async def play(pool, sample):
    handle, result = await pool.reset(row_reset_item(sample, {"oracle_hints": True}))
    assert result["ok"], result
    first = result["info"]
    info = first
    for _ in range(32):
        step = await pool.step(handle, info["oracle_action"])
        assert step["ok"], step
        info = step["info"]
        if step["terminated"] or step["truncated"]:
            break
    return {
        "row_id": sample["row_id"],
        "sample_index": sample["sample_index"],
        "task_id": first["task_id"],
        "variant_id": first["variant_id"],
        "reward": step["reward"],
        "session": handle.session_id,
    }


async def main() -> None:
    with open(sys.argv[1]) as f:
        job = json.load(f)
    pool = shared_pool(job["url"])
    out = await asyncio.gather(*(play(pool, s) for s in job["samples"]))
    assert shared_pool(job["url"]) is pool
    print(json.dumps({"samples": out, "connections": pool.stats.connections_opened}))


asyncio.run(main())
