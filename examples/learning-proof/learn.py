#!/usr/bin/env python3
"""GRPO through harness-gym with a small numpy policy (policy.py): fixed-harness training vs HSA (issue 43).

    python3 examples/learning-proof/learn.py full --out DIR [--save-weights]  # both runs, the table, the plots
    python3 examples/learning-proof/learn.py short [--url URL]  # the CI form: 30 iterations, asserts learning
    python3 examples/learning-proof/learn.py paired --out DIR   # paired HSA - fixed on the same seeds
    python3 examples/learning-proof/learn.py report --out DIR   # table.md and the SVG plots from results.json

They start their own servers (``node dist/cli/main.js serve --port 0`` on 127.0.0.1; build dist/ first) and
stop them by PID; ``short --url`` uses a running server instead (its default task mix must be ``MIX``).
Training goes through the Python client's ``AsyncVectorEnv`` in GRPO groups (the same task and variant per
group, ``group_share: "task+variant"``), on-policy batches (``autoreset=False``), advantages from
``GroupResult.advantages()`` plus per-segment group advantages (``info.segments``), see README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, HERE)

from harness_gym import AsyncVectorEnv, HarnessGymClient, group_advantages  # noqa: E402
from policy import Agent, Model  # noqa: E402

CLI = os.path.join(ROOT, "dist", "cli", "main.js")
INTENTS = ["product_qa", "chitchat", "clarification", "risky", "handoff"]
MIX = "product_qa=0.4,chitchat=0.15,clarification=0.15,risky=0.15,handoff=0.15"
LOCALE = "en"
MAX_TURNS = 4


# ---------------------------------------------------------------------------------------------------------
# Servers


class Server:
    def __init__(self, harness: Optional[str] = None) -> None:
        cmd = ["node", CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--workers", "0", "--mix", MIX, "--log-level", "warn"]
        if harness:
            cmd += ["--harness", harness]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.url = ""
        deadline = time.time() + 60
        assert self.proc.stdout is not None
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            m = re.search(r"(ws://127\.0\.0\.1:\d+/v1/env)", line)
            if m:
                self.url = m.group(1)
                break
        if not self.url:
            self.stop()
            raise RuntimeError("server did not start: " + " ".join(cmd))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# ---------------------------------------------------------------------------------------------------------
# Rollouts


async def play_batch(client: HarnessGymClient, model: Model, variant: Any, groups: int, group_size: int,
                     seed: int, greedy: bool, prefix: str) -> Tuple[List[Any], List[List[Agent]]]:
    """One on-policy batch of ``groups`` groups; returns the finished groups and each group's agents."""
    n = groups * group_size
    env = AsyncVectorEnv(client, n, group_size=group_size, seed=seed, autoreset=False, prefix=prefix,
                         options={"variant": variant, "locale": LOCALE, "max_turns": MAX_TURNS})
    obs, _ = await env.reset()
    agents: List[Agent] = [Agent(model, o, greedy) for o in obs]
    actions: List[Any] = [a.act(None) for a in agents]
    finished = []
    while not env.all_idle:
        obs, _, _, _, _ = await env.step([actions[i] if live else None for i, live in enumerate(env.live)])
        finished += env.finished_groups()
        actions = [agents[i].act(obs[i]) if live else None for i, live in enumerate(env.live)]
    finished += env.finished_groups()
    await client.close_episodes(env.episode_ids)
    by_slot = [[agents[s] for s in g.slots] for g in finished]
    return finished, by_slot


def segment_values(grp: Any, name: str) -> List[float]:
    """Each member's ``info.segments[name]``: a tool segment not scored (no call needed, none made) counts
    1, a reply segment not scored (no reply accepted) 0."""
    out = []
    for info in grp.infos:
        v = (info.get("segments") or {}).get(name)
        out.append(float(v) if v is not None else (1.0 if name == "tool" else 0.0))
    return out


def update(model: Model, finished: List[Any], by_slot: List[List[Agent]], lr: float, seg_weight: float,
           entropy: float) -> None:
    """One policy-gradient step. Each decision's advantage is the member's GRPO advantage of the final
    reward, plus ``seg_weight`` times its GRPO advantage on the reward segment the decision belongs to
    (``info.segments``: tool decisions on the tool segment, reply decisions on the reply segment; the
    per-segment groups the HAT report trains). The curves report the final reward only."""
    g = np.zeros_like(model.w)
    n = 0
    for grp, agents in zip(finished, by_slot):
        final = grp.advantages()
        seg = {s: group_advantages(segment_values(grp, s)) for s in ("tool", "reply")}
        for j, agent in enumerate(agents):
            n += 1
            for s in ("tool", "reply"):
                adv = final[j] + seg_weight * seg[s][j]
                ds = [d for d, t in zip(agent.decisions, agent.segments) if t == s]
                if ds:
                    model.grad(ds, adv, g, entropy)
    if n:
        model.w += (lr / n) * g


async def train(url: str, variant: str, iters: int, groups: int, group_size: int, seed: int, lr: float,
                seg_weight: float, log=None, entropy: float = 0.05) -> Tuple[Model, List[Dict[str, Any]]]:
    model = Model(seed)
    curve = []
    client = await HarnessGymClient.connect(url, seed=seed)
    try:
        for it in range(iters):
            t0 = time.time()
            finished, by_slot = await play_batch(client, model, variant, groups, group_size,
                                                 seed * 1_000_003 + it * groups, False, f"t{it}")
            rewards = [r for grp in finished for r in grp.rewards]
            equal = sum(1 for grp in finished if max(grp.rewards) - min(grp.rewards) < 1e-9)
            # all-equal groups split: every member at the floor (<= 0.02, the gates' cap: nothing learned
            # yet) or all equal above it (the policy has converged on that task)
            low = sum(1 for grp in finished if max(grp.rewards) - min(grp.rewards) < 1e-9 and max(grp.rewards) <= 0.02)
            update(model, finished, by_slot, lr, seg_weight, entropy)
            row = {"iter": it, "episodes": len(rewards), "reward": float(np.mean(rewards)),
                   "all_equal_share": equal / max(1, len(finished)),
                   "all_equal_floor_share": low / max(1, len(finished)), "seconds": round(time.time() - t0, 3)}
            curve.append(row)
            if log:
                log(json.dumps({"variant": variant, **row}))
    finally:
        await client.close()
    return model, curve


async def evaluate(url: str, model: Model, variant: Any, episodes: int, seed: int) -> Dict[str, Any]:
    """Greedy play of ``episodes`` lone episodes (groups of 1) from seed ``seed``; mean reward per intent."""
    client = await HarnessGymClient.connect(url, seed=seed)
    per: Dict[str, List[float]] = {}
    seq: List[float] = []
    try:
        done = 0
        while done < episodes:
            n = min(64, episodes - done)
            finished, _ = await play_batch(client, model, variant, n, 1, seed + done, True, f"e{done}")
            for grp in sorted(finished, key=lambda g: g.seed):
                per.setdefault(grp.infos[0]["intent"], []).append(grp.rewards[0])
                seq.append(grp.rewards[0])
            done += n
    finally:
        await client.close()
    allr = [r for v in per.values() for r in v]
    return {"episodes": len(allr), "mean": float(np.mean(allr)), "rewards": seq,
            "intents": {k: {"n": len(v), "mean": float(np.mean(v))} for k, v in sorted(per.items())}}


def cli_eval(policy: str, variant: str, episodes: int, seed: int, harness: Optional[str]) -> Dict[str, Any]:
    """The reference policies in-process (`harness-gym eval`), one run per intent for per-intent means."""
    out: Dict[str, Any] = {"intents": {}}
    tot, n = 0.0, 0
    weights = dict(kv.split("=") for kv in MIX.split(","))
    for intent in INTENTS:
        k = max(1, round(episodes * float(weights[intent])))
        cmd = ["node", CLI, "eval", "--policy", policy, "--variant", variant, "--episodes", str(k), "--seed", str(seed),
               "--locale", LOCALE, "--mix", f"{intent}=1", "--json"]
        if harness:
            cmd += ["--harness", harness]
        res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if res.returncode != 0:
            out["intents"][intent] = {"n": 0, "mean": None, "error": res.stderr.strip()[-200:]}
            continue
        line = json.loads(res.stdout.strip().splitlines()[-1])
        out["intents"][intent] = {"n": line["episodes"], "mean": line["reward"]["mean"]}
        tot += line["reward"]["mean"] * line["episodes"]
        n += line["episodes"]
    out["episodes"], out["mean"] = n, (tot / n if n else None)
    return out


# ---------------------------------------------------------------------------------------------------------
# Plots (hand-written SVG)


def svg_lines(path: str, title: str, ylabel: str, series: Dict[str, List[float]], ymax: float = 1.0) -> None:
    W, H, L, B, T, R = 640, 320, 56, 40, 30, 140
    n = max(len(v) for v in series.values())
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    def x(i: int) -> float:
        return L + (W - L - R) * (i / max(1, n - 1))
    def y(v: float) -> float:
        return T + (H - T - B) * (1 - v / ymax)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
             f'<rect width="{W}" height="{H}" fill="white"/>',
             f'<text x="{W/2}" y="18" text-anchor="middle" font-size="14">{title}</text>']
    for k in range(6):
        v = ymax * k / 5
        parts.append(f'<line x1="{L}" x2="{W-R}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{L-6}" y="{y(v)+4:.1f}" text-anchor="end">{v:.1f}</text>')
    for k in range(0, n, max(1, n // 8)):
        parts.append(f'<text x="{x(k):.1f}" y="{H-B+16}" text-anchor="middle">{k}</text>')
    parts.append(f'<text x="{(L+W-R)/2}" y="{H-6}" text-anchor="middle">iteration</text>')
    parts.append(f'<text x="14" y="{(T+H-B)/2}" text-anchor="middle" transform="rotate(-90 14 {(T+H-B)/2})">{ylabel}</text>')
    parts.append(f'<line x1="{L}" x2="{L}" y1="{T}" y2="{H-B}" stroke="black"/><line x1="{L}" x2="{W-R}" y1="{H-B}" y2="{H-B}" stroke="black"/>')
    for j, (name, vals) in enumerate(series.items()):
        c = colors[j % len(colors)]
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(vals))
        parts.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{pts}"/>')
        parts.append(f'<line x1="{W-R+10}" x2="{W-R+30}" y1="{T+20*j+10}" y2="{T+20*j+10}" stroke="{c}" stroke-width="2"/>')
        parts.append(f'<text x="{W-R+34}" y="{T+20*j+14}">{name}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def smooth(v: List[float], k: int = 5) -> List[float]:
    return [float(np.mean(v[max(0, i - k + 1): i + 1])) for i in range(len(v))]


# ---------------------------------------------------------------------------------------------------------
# Commands


async def full(args: argparse.Namespace) -> None:
    out = args.out
    os.makedirs(out, exist_ok=True)
    base = Server()
    v2 = Server(os.path.join(ROOT, "examples", "harness-v2"))
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    results: Dict[str, Any] = {"config": vars(args), "mix": MIX, "locale": LOCALE, "runs": {}, "reference": {}}
    try:
        t_start = time.time()
        for name, variant in (("fixed", "identity"), ("hsa", "train")):
            t0 = time.time()
            model, curve = await train(base.url, variant, args.iters, args.groups, args.group_size, args.seed, args.lr, args.seg_weight, log, args.entropy)
            train_s = time.time() - t0
            evals = {}
            for ev in ("identity", "train", "eval"):
                evals[ev] = await evaluate(base.url, model, ev, args.eval_episodes, 2_000_000)
                log(json.dumps({"run": name, "eval": ev, "mean": evals[ev]["mean"]}))
            evals["harness-v2"] = await evaluate(v2.url, model, "identity", args.eval_episodes, 2_000_000)
            log(json.dumps({"run": name, "eval": "harness-v2", "mean": evals["harness-v2"]["mean"]}))
            results["runs"][name] = {"train_variant": variant, "train_episodes": sum(r["episodes"] for r in curve),
                                     "train_seconds": round(train_s, 1), "curve": curve, "eval": evals}
            if args.save_weights:
                np.save(os.path.join(out, f"weights-{name}.npy"), model.w.astype(np.float32))
        for pol in ("oracle", "memorizer"):
            results["reference"][pol] = {}
            for ev in ("identity", "train", "eval"):
                results["reference"][pol][ev] = cli_eval(pol, ev, args.eval_episodes, 2_000_000, None)
            results["reference"][pol]["harness-v2"] = cli_eval(pol, "identity", args.eval_episodes, 2_000_000,
                                                                os.path.join(ROOT, "examples", "harness-v2"))
        results["wall_seconds"] = round(time.time() - t_start, 1)
    finally:
        base.stop()
        v2.stop()
    for name in ("fixed", "hsa"):
        for row in results["runs"][name]["curve"]:
            row.pop("seconds", None)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    write_report(out, results)


def write_report(out: str, results: Dict[str, Any]) -> None:
    """The plots and the tables (table.md) from results.json."""
    curves = {n: results["runs"][n]["curve"] for n in ("fixed", "hsa")}
    svg_lines(os.path.join(out, "reward.svg"), "Mean reward per GRPO iteration (5-iteration running mean)", "reward",
              {"fixed (identity)": smooth([r["reward"] for r in curves["fixed"]]),
               "HSA (train)": smooth([r["reward"] for r in curves["hsa"]])})
    series = {"fixed: all equal": smooth([r["all_equal_share"] for r in curves["fixed"]]),
              "HSA: all equal": smooth([r["all_equal_share"] for r in curves["hsa"]])}
    if all("all_equal_floor_share" in r for c in curves.values() for r in c):
        series["fixed: all at floor"] = smooth([r["all_equal_floor_share"] for r in curves["fixed"]])
        series["HSA: all at floor"] = smooth([r["all_equal_floor_share"] for r in curves["hsa"]])
    svg_lines(os.path.join(out, "all-equal.svg"), "Share of GRPO groups whose rewards are all equal (5-iteration running mean)",
              "share of groups", series)
    text = table(results)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(text + "\n")
    print(text)


def table(results: Dict[str, Any]) -> str:
    cols = ["identity", "train", "eval", "harness-v2"]
    lines = ["| policy | training episodes | " + " | ".join(cols) + " |", "|---|---|" + "---|" * len(cols)]
    def fmt(v: Optional[float]) -> str:
        return "-" if v is None else f"{v:.3f}"
    for name, label in (("fixed", "GRPO, fixed harness (identity)"), ("hsa", "GRPO, HSA (train variants)")):
        r = results["runs"][name]
        lines.append(f"| {label} | {r['train_episodes']} | " + " | ".join(fmt(r["eval"][c]["mean"]) for c in cols) + " |")
    for pol in ("oracle", "memorizer"):
        r = results["reference"][pol]
        lines.append(f"| {pol} (reference) | - | " + " | ".join(fmt(r[c]["mean"]) for c in cols) + " |")
    lines.append("")
    lines.append("| policy | identity -> eval | identity -> harness-v2 | eval episodes per cell |")
    lines.append("|---|---|---|---|")
    for name, label in (("fixed", "GRPO, fixed harness"), ("hsa", "GRPO, HSA")):
        ev = results["runs"][name]["eval"]
        i = ev["identity"]["mean"]
        lines.append(f"| {label} | {ev['eval']['mean'] - i:+.3f} | {ev['harness-v2']['mean'] - i:+.3f} | {ev['identity']['episodes']} |")
    lines.append("")
    lines.append("| run | reward, first 10 iterations | reward, last 10 | all-equal groups, first 10 | last 10 | all at the floor (<= 0.02), first 10 | last 10 |")
    lines.append("|---|---|---|---|---|---|---|")
    for name, label in (("fixed", "fixed (identity)"), ("hsa", "HSA (train)")):
        c = results["runs"][name]["curve"]
        def m(key: str, part: List[Dict[str, Any]]) -> str:
            vals = [r[key] for r in part if key in r]
            return f"{np.mean(vals):.3f}" if vals else "-"
        lines.append(f"| {label} | {m('reward', c[:10])} | {m('reward', c[-10:])} | {m('all_equal_share', c[:10])} | "
                     f"{m('all_equal_share', c[-10:])} | {m('all_equal_floor_share', c[:10])} | {m('all_equal_floor_share', c[-10:])} |")
    lines.append("")
    lines.append("| policy | harness | " + " | ".join(INTENTS) + " |")
    lines.append("|---|---|" + "---|" * len(INTENTS))
    rows = [(f"fixed", results["runs"]["fixed"]["eval"]), ("HSA", results["runs"]["hsa"]["eval"]),
            ("oracle", results["reference"]["oracle"]), ("memorizer", results["reference"]["memorizer"])]
    for label, ev in rows:
        for c in cols:
            it = ev[c]["intents"]
            lines.append(f"| {label} | {c} | " + " | ".join(fmt(it.get(i, {}).get("mean")) for i in INTENTS) + " |")
    return "\n".join(lines)


async def paired(args: argparse.Namespace) -> None:
    """Re-evaluate saved weights (full --save-weights) on the same seeds and print the paired difference
    HSA - fixed per harness with its standard error (the per-episode rewards are kept in paired.json)."""
    base = Server()
    v2 = Server(os.path.join(ROOT, "examples", "harness-v2"))
    out: Dict[str, Any] = {}
    try:
        models = {}
        for name in ("fixed", "hsa"):
            m = Model(args.seed)
            m.w = np.load(os.path.join(args.out, f"weights-{name}.npy")).astype(np.float64)
            models[name] = m
        for ev in ("identity", "train", "eval", "harness-v2"):
            url, variant = (v2.url, "identity") if ev == "harness-v2" else (base.url, ev)
            r = {n: await evaluate(url, models[n], variant, args.eval_episodes, 2_000_000) for n in models}
            d = np.array(r["hsa"]["rewards"]) - np.array(r["fixed"]["rewards"])
            out[ev] = {"fixed": r["fixed"]["mean"], "hsa": r["hsa"]["mean"], "hsa_minus_fixed": float(d.mean()),
                       "se": float(d.std(ddof=1) / np.sqrt(len(d))), "episodes": len(d),
                       "rewards": {n: r[n]["rewards"] for n in r}}
            print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in out[ev].items() if k != "rewards"} | {"harness": ev}))
    finally:
        base.stop()
        v2.stop()
    with open(os.path.join(args.out, "paired.json"), "w") as f:
        json.dump(out, f)


async def short(args: argparse.Namespace) -> int:
    """The CI form: train on `train` variants for a few iterations; learning must show."""
    srv = None if args.url else Server()
    url = args.url or srv.url
    try:
        t0 = time.time()
        _, curve = await train(url, "train", args.iters, args.groups, args.group_size, args.seed, args.lr, args.seg_weight,
                               lambda s: print(s, file=sys.stderr, flush=True), args.entropy)
    finally:
        if srv:
            srv.stop()
    k = max(2, args.iters // 4)
    first = curve[:k]
    last = curve[-k:]
    r0, r1 = np.mean([r["reward"] for r in first]), np.mean([r["reward"] for r in last])
    e0, e1 = np.mean([r["all_equal_share"] for r in first]), np.mean([r["all_equal_share"] for r in last])
    summary = {"iterations": args.iters, "episodes": sum(r["episodes"] for r in curve), "reward_first": round(float(r0), 4),
               "reward_last": round(float(r1), 4), "all_equal_first": round(float(e0), 4), "all_equal_last": round(float(e1), 4),
               "seconds": round(time.time() - t0, 1)}
    ok = r1 >= r0 + args.margin and e1 <= e0
    summary["learned"] = bool(ok)
    print(json.dumps(summary))
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["full", "short", "report", "paired"])
    ap.add_argument("--save-weights", action="store_true", help="full: also write weights-{fixed,hsa}.npy (4 MiB each)")
    ap.add_argument("--iters", type=int, default=None)
    ap.add_argument("--groups", type=int, default=16, help="GRPO groups per iteration")
    ap.add_argument("--group-size", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=2.0)
    ap.add_argument("--seg-weight", type=float, default=1.0, help="weight of the per-segment GRPO advantages")
    ap.add_argument("--entropy", type=float, default=0.05, help="entropy bonus per decision")
    ap.add_argument("--eval-episodes", type=int, default=400)
    ap.add_argument("--margin", type=float, default=0.1, help="short: the reward gain required")
    ap.add_argument("--url", default=None, help="short: a running server to train on (its default task mix should be MIX)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    args = ap.parse_args()
    if args.iters is None:
        args.iters = 160 if args.mode == "full" else 30
    if args.mode == "full":
        asyncio.run(full(args))
        return 0
    if args.mode == "paired":
        asyncio.run(paired(args))
        return 0
    if args.mode == "report":
        with open(os.path.join(args.out, "results.json")) as f:
            write_report(args.out, json.load(f))
        return 0
    return asyncio.run(short(args))


if __name__ == "__main__":
    sys.exit(main())
