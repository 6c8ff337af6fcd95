"""Make a verl dataset of harness-gym rows (one row per group; verl's ``rollout.n`` makes the siblings).

    python3 clients/python/examples/verl/make_dataset.py --groups 512 --seed 0 --variant identity \\
        --locale zh-CN --out ~/data/harness_gym/train.parquet
    python3 clients/python/examples/verl/make_dataset.py --groups 64 --seed 1000000 --variant eval \\
        --task-split eval --out ~/data/harness_gym/val.parquet

Each row has the columns verl's ``RLHFDataset`` reads: ``prompt`` (a short placeholder chat; the agent
loop replaces it with the episode's reset messages and tools, so ``data.filter_overlong_prompts`` says
nothing about the real prompt length), ``data_source``, ``agent_name`` = ``"harness_gym"`` (selects the
loop), ``ability``, ``reward_model`` (unused: the loop sets ``reward_score``), and ``extra_info`` with
``harness_gym_row``: the row of :func:`harness_gym.train.group_rows` as JSON (a string, so parquet's schema
does not depend on whether the variant is a preset name or a spec).

``.parquet`` needs pandas with pyarrow (as verl does); ``.jsonl`` writes JSON lines with the standard library.
``--variant`` is a preset name or a VariantSpec as JSON (the curriculum: docs/CURRICULUM.md): which
harness, held out with ``eval``. ``--task-split`` is which tasks: ``eval`` puts ``task: {split: "eval"}`` in
every row (held-out rooms and tasks); absent, the rows name no split and the server's
``defaults.task_split`` applies (``train`` unless configured). The two axes are independent
(docs/CURRICULUM.md "Held-out tasks and held-out harnesses"). ``--split`` is verl's dataset split label.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from harness_gym.train import group_rows  # noqa: E402

PLACEHOLDER = "harness-gym episode {row_id}: the agent loop replaces this prompt with the episode's."


def verl_rows(rows: Sequence[Mapping[str, Any]], *, split: str = "train", data_source: str = "harness_gym") -> List[Dict[str, Any]]:
    """verl dataset rows for harness-gym rows (see the module)."""
    out = []
    for index, row in enumerate(rows):
        out.append({
            "data_source": data_source,
            "agent_name": "harness_gym",
            "prompt": [{"role": "user", "content": PLACEHOLDER.format(row_id=row["row_id"])}],
            "ability": "agent",
            "reward_model": {"style": "rule", "ground_truth": ""},
            "extra_info": {"split": split, "index": index, "harness_gym_row": json.dumps(dict(row), sort_keys=True)},
        })
    return out


def write(rows: List[Dict[str, Any]], path: str) -> None:
    """Write ``rows`` as parquet (pandas) or JSON lines, by the file's extension."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if path.endswith(".jsonl"):
        with open(path, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    try:
        import pandas as pd
    except ImportError:
        raise SystemExit("writing parquet needs pandas and pyarrow (installed with verl); or give --out FILE.jsonl")
    pd.DataFrame(rows).to_parquet(path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=512, help="rows (GRPO groups)")
    parser.add_argument("--seed", type=int, default=0, help="row k gets seed SEED + k")
    parser.add_argument("--variant", default="identity", help="preset name or VariantSpec JSON")
    parser.add_argument("--locale", default=None, help="zh-CN or en (default: the server's)")
    parser.add_argument("--group-size", type=int, default=8, help="recorded in the row; set rollout.n to it")
    parser.add_argument("--options", default=None, help="reset options as JSON, shared by every sibling")
    parser.add_argument("--task-split", choices=["train", "eval"], default=None,
                        help="task split of every row (default: none named, the server's defaults.task_split)")
    parser.add_argument("--split", default="train", help="verl's dataset split label (extra_info.split)")
    parser.add_argument("--out", required=True, help="FILE.parquet or FILE.jsonl")
    args = parser.parse_args(argv)
    variant: Any = json.loads(args.variant) if args.variant.lstrip().startswith("{") else args.variant
    rows = group_rows(args.groups, seed=args.seed, variant=variant, locale=args.locale, group_size=args.group_size,
                      task={"split": args.task_split} if args.task_split else None,
                      options=json.loads(args.options) if args.options else None)
    write(verl_rows(rows, split=args.split), args.out)
    print(json.dumps({"rows": len(rows), "out": args.out, "first_seed": args.seed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
