"""Groups by seed: 8 groups of 8 scattered over two processes (two connections, two sessions) get one task
and one variant per group, from the dataset row alone (no ``group_id``, which is session-scoped)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
from collections import defaultdict
from typing import Any, Dict, List

import support

from harness_gym.train import expand_rows, group_rows, row_reset_item

SPEC = {"families": ["skills", "tools", "prompt", "hooks"], "intensity": 0.8, "split": "train"}


def run_worker(samples: List[Dict[str, Any]], directory: str, name: str) -> "subprocess.Popen[str]":
    """Start a worker process (its own interpreter, hence its own shared pool) on these samples."""
    job = os.path.join(directory, f"{name}.json")
    with open(job, "w") as f:
        json.dump({"url": support.server_url(), "samples": samples}, f)
    return subprocess.Popen(
        [sys.executable, os.path.join(support.HERE, "train_group_worker.py"), job],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


class GroupRowsTest(unittest.TestCase):
    def test_rows_carry_what_fixes_the_episode(self) -> None:
        rows = group_rows(3, seed=40, variant=SPEC, locale="en", group_size=4, options={"faults": 0.1})
        self.assertEqual([r["seed"] for r in rows], [40, 41, 42])
        self.assertEqual(len({r["row_id"] for r in rows}), 3)
        samples = expand_rows(rows)
        self.assertEqual(len(samples), 12)
        self.assertEqual([s["sample_index"] for s in samples[:4]], [0, 1, 2, 3])
        item = row_reset_item(samples[5], {"max_turns": 6, "faults": 0.5})
        self.assertEqual(item, {"seed": 41, "variant": SPEC, "options": {"max_turns": 6, "faults": 0.1, "locale": "en"}})
        self.assertNotIn("group_id", item)
        json.dumps(rows)  # rows go into a dataset file as they are
        with self.assertRaises(ValueError):
            group_rows(2, seed=0xFFFFFFFF)

    def test_8_groups_of_8_over_two_processes_get_one_task_and_variant_each(self) -> None:
        rows = group_rows(4, seed=300, variant="train", locale="en", group_size=8)
        rows += group_rows(4, seed=300, variant=SPEC, locale="zh-CN", group_size=8)
        samples = expand_rows(rows)
        # Scatter as a trainer does: alternate samples to the two workers, so every group is split 4/4.
        outs = []
        with tempfile.TemporaryDirectory() as directory:
            procs = [run_worker(samples[0::2], directory, "a"), run_worker(samples[1::2], directory, "b")]
            try:
                for proc in procs:
                    stdout, stderr = proc.communicate(timeout=60)
                    self.assertEqual(proc.returncode, 0, stderr)
                    outs.append(json.loads(stdout))
            finally:
                for proc in procs:
                    if proc.poll() is None:
                        proc.kill()
                        proc.communicate()
        self.assertEqual([o["connections"] for o in outs], [1, 1])
        sessions = [{s["session"] for s in o["samples"]} for o in outs]
        self.assertEqual([len(s) for s in sessions], [1, 1])
        self.assertNotEqual(sessions[0], sessions[1])
        by_row: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
        for o in outs:
            for s in o["samples"]:
                by_row[s["row_id"]].append(s)
        self.assertEqual(len(by_row), 8)
        for row_id, members in by_row.items():
            with self.subTest(row=row_id):
                self.assertEqual(sorted(m["sample_index"] for m in members), list(range(8)))
                self.assertEqual(len({m["session"] for m in members}), 2)  # the group spans both processes
                self.assertEqual(len({m["task_id"] for m in members}), 1)
                self.assertEqual(len({m["variant_id"] for m in members}), 1)
                self.assertEqual(len({m["reward"] for m in members}), 1)  # same episode, same oracle, same reward
        # The grouping is not vacuous: the groups themselves differ.
        tasks = {members[0]["task_id"] for members in by_row.values()}
        variants = {members[0]["variant_id"] for members in by_row.values()}
        self.assertGreaterEqual(len(tasks), 6)
        self.assertGreaterEqual(len(variants), 6)
        support.report("train/groups", {row: [by_row[row][0]["task_id"], by_row[row][0]["variant_id"]] for row in sorted(by_row)})


if __name__ == "__main__":
    unittest.main()
