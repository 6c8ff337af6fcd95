"""Make an OpenRLHF prompt dataset of harness-gym rows (JSON lines: ``prompt`` and ``label``).

    python3 clients/python/examples/openrlhf/make_dataset.py --groups 4096 --variant identity --out train.jsonl

``label`` is the :func:`harness_gym.train.group_rows` row as JSON (``--data.label_key label``); the agent
replaces the placeholder ``prompt`` (``--data.input_key prompt``) with the episode's own. One line per group:
``--rollout.n_samples_per_prompt`` makes the siblings, which share the label, hence task and variant.
``--task-split eval`` names the held-out tasks in every label (``task: {split: "eval"}``); absent, the
server's ``defaults.task_split`` applies. ``--variant eval`` holds out the harness: the two are independent.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from harness_gym.train import group_rows  # noqa: E402


def openrlhf_rows(rows):
    """``{"prompt", "label"}`` per row."""
    return [{"prompt": f"harness-gym episode {r['row_id']}", "label": json.dumps(dict(r), sort_keys=True)} for r in rows]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="identity", help="preset name or VariantSpec JSON")
    parser.add_argument("--locale", default=None)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--task-split", choices=["train", "eval"], default=None,
                        help="task split of every row (default: none named, the server's defaults.task_split)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    variant = json.loads(args.variant) if args.variant.lstrip().startswith("{") else args.variant
    rows = group_rows(args.groups, seed=args.seed, variant=variant, locale=args.locale, group_size=args.group_size,
                      task={"split": args.task_split} if args.task_split else None)
    with open(args.out, "w", encoding="utf-8") as f:
        for line in openrlhf_rows(rows):
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(json.dumps({"rows": len(rows), "out": args.out}))


if __name__ == "__main__":
    main()
