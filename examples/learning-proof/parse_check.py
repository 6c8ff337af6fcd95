#!/usr/bin/env python3
"""How often the policy's hand-written prompt parsers miss on each preset (README "Why the gap is small").

    python3 examples/learning-proof/parse_check.py   # starts its own server; 200 reset observations per preset
"""
import sys, asyncio, json
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
import learn, policy
async def main():
    srv = learn.Server()
    try:
        for v in ("identity", "train", "eval"):
            c = await learn.HarnessGymClient.connect(srv.url, seed=1)
            env = learn.AsyncVectorEnv(c, 200, group_size=1, seed=2_000_000, autoreset=False, options={"variant": v, "locale": "en"})
            obs, infos = await env.reset(); await env.close(); await c.close()
            st = {"no_skills": 0, "no_persona": 0, "no_viewer": 0, "no_viewer_id": 0, "no_items": 0, "ending_parsed": 0}
            for o in obs:
                a = policy.Agent(policy.Model(1), o, True)
                st["no_skills"] += not a.skills
                st["no_persona"] += not a.room["persona"]
                st["no_viewer"] += not a.room["viewer"]
                st["no_viewer_id"] += not a.room["viewer_id"]
                st["no_items"] += not a.room["links"]
                st["ending_parsed"] += bool(a.rules["ending"])
            print(json.dumps({"variant": v, "episodes": len(obs), **st}))
    finally:
        srv.stop()
asyncio.run(main())
