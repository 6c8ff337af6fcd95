#!/usr/bin/env python3
"""How much each trained policy leans on names vs descriptions (issue 43, "measure why").

For the surface heads (skill loader, skill, tool), the logit of every candidate is the sum of its name
features' weights and its description features' weights. This prints, per trained model, the share of
|logit| that comes from names, and how often the candidate the model picks would still be picked from
the description features alone, over greedy episodes on a variant preset.

    python3 examples/learning-proof/reliance.py RESULTS_DIR [--variant identity] [--episodes 200]
(RESULTS_DIR holds weights-fixed-s1.npy and weights-hsa-s1.npy: `learn.py full --save-weights`; --seed picks another.)
"""
import argparse
import asyncio
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import learn  # noqa: E402
import policy  # noqa: E402


def split_logits(w, head, left, name, desc):
    fn = policy._cross(head, left, name, "", ())
    fd = policy._cross(head, left, "", desc, ())
    return float(w[fn[0]] @ fn[1]), float(w[fd[0]] @ fd[1])


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--variant", default="identity")
    ap.add_argument("--episodes", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1, help="the training seed whose weights to read")
    ap.add_argument("--desc-scale", type=float, default=1.0, help="the DESC_SCALE the weights were trained with")
    args = ap.parse_args()
    policy.DESC_SCALE = args.desc_scale
    srv = learn.Server()
    report = {}
    try:
        for name in ("fixed", "hsa"):
            w = np.load(os.path.join(args.out, f"weights-{name}-s{args.seed}.npy")).astype(np.float64)
            model = policy.Model(1)
            model.w = w
            client = await learn.HarnessGymClient.connect(srv.url, seed=1)
            env = learn.AsyncVectorEnv(client, args.episodes, group_size=1, seed=3_000_000, autoreset=False,
                                       options={"variant": args.variant, "locale": learn.LOCALE})
            obs, _ = await env.reset()
            await env.close()
            await client.close()
            tot_n = tot_d = 0.0
            agree = n = 0
            for o in obs:
                a = policy.Agent(model, o, True)
                heads = [("skill", a.mt, a.skills), ("tool", a.mt, [(t["name"], t.get("description") or "") for t in a.tools])]
                for head, left, cands in heads:
                    if not cands:
                        continue
                    parts = [split_logits(w, head, left, c, d) for c, d in cands]
                    full = [pn + pd for pn, pd in parts]
                    desc_only = [pd for _, pd in parts]
                    tot_n += sum(abs(pn) for pn, _ in parts)
                    tot_d += sum(abs(pd) for _, pd in parts)
                    agree += int(np.argmax(full) == np.argmax(desc_only))
                    n += 1
            report[name] = {"name_share_of_abs_logit": round(tot_n / max(1e-9, tot_n + tot_d), 3),
                            "desc_alone_picks_the_same": round(agree / max(1, n), 3), "decisions": n}
            print(json.dumps({"model": name, "variant": args.variant, **report[name]}))
    finally:
        srv.stop()


if __name__ == "__main__":
    asyncio.run(main())
