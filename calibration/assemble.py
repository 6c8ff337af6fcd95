#!/usr/bin/env python3
"""Assemble a graded corpus from play sessions: one record file and one grades file.

    assemble.py OUT_DIR --records RAW_DIR [RAW_DIR ...] --grades GRADES.jsonl [...] [--flaws FLAWS.jsonl ...]

RAW_DIR: directories a server wrote with `serve --record` while agents played (calibration/play.py).
GRADES: the graders' JSON lines ({"episode", "grade", "verdict", "why"}); an episode may be named by its
id or by its blind alias (transcript.py --blind). FLAWS: the flawed players' logs ({"episode", "kind",
"flaw"}); an episode with a flaw log is marked `flawed: true`. Only graded episodes are kept; an episode
graded twice keeps its first grade.
"""
import argparse, glob, hashlib, json, os
import msgpack

def alias(e: str) -> str:
    return "ep-" + hashlib.sha1(e.encode()).hexdigest()[:10]

def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--records", nargs="+", required=True)
    p.add_argument("--grades", nargs="+", required=True)
    p.add_argument("--flaws", nargs="*", default=[])
    a = p.parse_args()
    recs, header = {}, None
    for d in a.records:
        for f in sorted(glob.glob(os.path.join(d, "*.hgrec"))):
            with open(f, "rb") as fh:
                for v in msgpack.Unpacker(fh, raw=False, strict_map_key=False):
                    if isinstance(v, dict) and v.get("type") == "episode":
                        recs.setdefault(v["episode_id"], v)
                    elif header is None:
                        header = v
    names = {alias(e): e for e in recs}
    flaws = {}
    for f in a.flaws:
        for line in open(f, encoding="utf-8"):
            if line.strip():
                d = json.loads(line)
                flaws[d["episode"]] = d
    grades, seen = [], set()
    for f in a.grades:
        for line in open(f, encoding="utf-8"):
            if not line.strip():
                continue
            g = json.loads(line)
            e = names.get(g["episode"], g["episode"])
            if e not in recs or e in seen:
                continue
            seen.add(e)
            row = {"episode": e, "grade": float(g["grade"]), "verdict": g["verdict"]}
            if g.get("why"):
                row["why"] = g["why"]
            if e in flaws:
                row["flawed"] = True
                row["flaw"] = flaws[e]["flaw"]
            grades.append(row)
    grades.sort(key=lambda r: r["episode"])
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "grades.jsonl"), "w", encoding="utf-8") as fh:
        for r in grades:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(a.out, "corpus.hgrec"), "wb") as fh:
        fh.write(msgpack.packb(header, use_bin_type=True))
        for r in grades:
            fh.write(msgpack.packb(recs[r["episode"]], use_bin_type=True))
    print(f"{len(grades)} graded episodes of {len(recs)} records")

if __name__ == "__main__":
    main()
